//! The scalar loops: bitmask backtracking over the free rows of a [`Schedule`], on any CPU.
//!
//! Counting and listing search the same tree in different orders:
//!
//! - [`count`] needs no order, so it keeps a stack of *nodes*, not of frames: a node's
//!   children are computed together, the live ones but the first are pushed, and the search
//!   goes on with the first without touching memory. A node with one open square (more
//!   than half of them, deep in the tree) costs no store, no load and no branch beyond the
//!   one that asks whether its child is live.
//! - [`walk`] lists completions in lexicographic order, so it keeps one frame per level
//!   and takes the squares of a level lowest first.
//!
//! Neither enters the last free row: by then one column is left, and the squares still
//! open on it are the completions below the node. Both live in fixed arrays on the native
//! stack: no heap, no recursion.

use crate::schedule::{Board, MAX_N, Schedule, State};

/// Number of ways to complete the board below `start`, exact at any size (`u128`).
pub fn count(s: &Schedule, start: State) -> u128 {
    count_from(s, start, 0)
}

/// `base` plus the number of ways to complete the board below `start`: [`count`] with the
/// counter started at `base` (so a test can drive it past `u64::MAX`).
pub fn count_from(s: &Schedule, start: State, base: u128) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the CPU was just found to have every feature the function is built for.
        return base + u128::from(unsafe { tally_bits(s, start) });
    }
    base + u128::from(tally(s, start))
}

/// Whether this CPU has the bit instructions [`tally_bits`] and [`search_bits`] are built
/// for: `popcnt` counts a mask's squares in one instruction (a dozen without it), BMI1
/// takes and clears the lowest open square in one each, BMI2 shifts by a register without
/// touching the flags. All are older than AVX2 on every x86-64 line; the portable build
/// targets the first x86-64s, which lack them. Measured on Zen 4, n = 16 in full mode on
/// one thread: the frame loop 1.42 s portable, 1.28-1.31 s with them; [`tally`] 1.03-1.04 s
/// portable, 0.99 s with them.
#[cfg(target_arch = "x86_64")]
fn bit_instructions() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

/// [`tally`] with the bit instructions (see [`bit_instructions`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
fn tally_bits(s: &Schedule, start: State) -> u64 {
    tally(s, start)
}

/// Entries of [`tally`]'s node stack. A node on level `l` pushes at most one fewer than its
/// open squares, at most `n - 1 - l`, and the stack only ever holds the pushes of the
/// nodes on the path to the current one: at most `31 + 30 + ... + 0 = 496` for `n = 32`.
const STACK: usize = 512;

/// The nodes [`tally`] has still to search, one array per field.
struct Nodes {
    open: [u32; STACK],
    cols: [u32; STACK],
    ld: [u32; STACK],
    rd: [u32; STACK],
    level: [u8; STACK],
}

/// A queen on `bit` of a node with masks `(cols, ld, rd)`: the child's masks one level
/// down (`sh` rows below) and its open squares (`closed`: the squares the fixed queens
/// close there, and every bit off the board).
#[inline(always)]
fn place(bit: u32, (cols, ld, rd): (u32, u32, u32), sh: u32, closed: u32) -> [u32; 4] {
    let (cols, ld, rd) = (cols | bit, (ld | bit) << sh, (rd | bit) >> sh);
    [!(cols | ld | rd | closed), cols, ld, rd]
}

/// The counting loop: the number of completions below `start`.
///
/// Each turn takes one node. On the row before the last it counts the open squares that
/// leave the last row open. Elsewhere it pushes every live child but the one on the lowest
/// open square (the second with no loop, as most nodes have at most two), then goes on
/// with that one if it is live, or pops a node when it is not. The loop's one
/// unpredictable branch per node is whether its first child is live.
///
/// The count is a `u64`: each turn adds at most 32, so one call would need 2^59 turns
/// (centuries at a billion a second) to overflow it.
#[inline(always)]
fn tally(s: &Schedule, start: State) -> u64 {
    let last = s.levels;
    if start.level >= last {
        // Already complete: one solution.
        return 1;
    }
    let mut open = s.open(&start);
    if start.level + 1 == last || open == 0 {
        // On the last row (one column left), or a dead end.
        return u64::from(open.count_ones());
    }
    // What is closed one level below each level, the columns off the board included, so a
    // child's open squares are one complement.
    let mut closed = [!0u32; MAX_N as usize];
    for (c, &pre) in closed.iter_mut().zip(&s.pre[1..last]) {
        *c = pre | !s.full;
    }
    let mut nodes = Nodes {
        open: [0; STACK],
        cols: [0; STACK],
        ld: [0; STACK],
        rd: [0; STACK],
        level: [0; STACK],
    };
    let mut sp = 0usize;
    let (mut cols, mut ld, mut rd, mut level) = (start.cols, start.ld, start.rd, start.level);
    let mut found = 0u64;
    // Indices are masked (`& 31`: levels are below 32; `& (STACK - 1)`: see STACK), which
    // lets the compiler drop every bounds check from the loop.
    loop {
        let sh = s.shift[level & 31];
        let below = closed[level & 31];
        let masks = (cols, ld, rd);
        if level + 2 == last {
            // Two columns left: each open square is a solution when the last row stays open.
            while open != 0 {
                let bit = open & open.wrapping_neg();
                open &= open - 1;
                found += u64::from(place(bit, masks, sh, below)[0] != 0);
            }
        } else {
            let first = open & open.wrapping_neg();
            let mut rest = open ^ first;
            let child = (level + 1) as u8;
            let mut push = |bit: u32, live: bool| {
                let [o, c, l, r] = place(bit, masks, sh, below);
                let i = sp & (STACK - 1);
                (nodes.open[i], nodes.cols[i], nodes.ld[i], nodes.rd[i]) = (o, c, l, r);
                nodes.level[i] = child;
                sp += usize::from(live & (o != 0));
            };
            // The second square with no branch (written and dropped when there is none),
            // then any others.
            push(rest & rest.wrapping_neg(), rest != 0);
            rest &= rest.wrapping_sub(1);
            while rest != 0 {
                push(rest & rest.wrapping_neg(), true);
                rest &= rest - 1;
            }
            let [o, c, l, r] = place(first, masks, sh, below);
            if o != 0 {
                (open, cols, ld, rd) = (o, c, l, r);
                level += 1;
                continue;
            }
        }
        if sp == 0 {
            return found;
        }
        sp -= 1;
        let i = sp & (STACK - 1);
        (open, cols, ld, rd) = (nodes.open[i], nodes.cols[i], nodes.ld[i], nodes.rd[i]);
        level = usize::from(nodes.level[i]);
    }
}

/// Calls `visit` with each completed board below `start` (`n` entries, the column of the
/// queen in each row, the fixed queens included), in increasing lexicographic order, until
/// `visit` returns false.
///
/// `prefix[..start.level]` holds the columns already placed on the levels above `start`.
pub fn walk<F: FnMut(&[u8]) -> bool>(s: &Schedule, start: State, prefix: &[u8], visit: &mut F) {
    let mut board = s.board_above(start.level, prefix);
    if s.levels == 0 {
        // No free row: the fixed queens are the one completion.
        visit(&board[..s.n as usize]);
        return;
    }
    let mut walker = Walker {
        n: s.n as usize,
        last_row: s.rows[s.levels - 1] as usize,
        visit,
        stop: false,
    };
    if start.level == s.levels {
        // Every free row is placed: the last one's queen stands for the open last row.
        let c = board[walker.last_row];
        board[walker.last_row] = 0;
        return walker.last_row(1 << c, &mut board);
    }
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the CPU was just found to have every feature the function is built for.
        return unsafe { search_bits(s, start, &mut board, &mut walker) };
    }
    search(s, start, &mut board, &mut walker)
}

/// Hands each completion to a visitor, until it says stop.
struct Walker<'a, F> {
    n: usize,
    /// The last free row (the loop never enters it).
    last_row: usize,
    visit: &'a mut F,
    stop: bool,
}

impl<F: FnMut(&[u8]) -> bool> Walker<'_, F> {
    /// The open squares of the last free row (each a completion), with the board filled on
    /// every other row.
    fn last_row(&mut self, mut open: u32, board: &mut Board) {
        while open != 0 && !self.stop {
            board[self.last_row] = open.trailing_zeros() as u8;
            open &= open - 1;
            self.stop = !(self.visit)(&board[..self.n]);
        }
    }
}

/// [`search`] with the bit instructions (see [`bit_instructions`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
fn search_bits<F: FnMut(&[u8]) -> bool>(
    s: &Schedule,
    start: State,
    board: &mut Board,
    walker: &mut Walker<'_, F>,
) {
    search(s, start, board, walker)
}

/// The listing loop: depth-first search below `start` in lexicographic order, handing each
/// last-row mask to `walker`.
///
/// `board` holds the fixed queens and the levels above `start`. Each iteration takes the
/// lowest open square of the current level, records it, computes the open squares one
/// level down, and either hands them over (when that level is the last free row) or
/// descends. A level whose squares are used up pops a frame.
#[inline(always)]
fn search<F: FnMut(&[u8]) -> bool>(
    s: &Schedule,
    start: State,
    board: &mut Board,
    walker: &mut Walker<'_, F>,
) {
    let last = s.levels;
    if start.level + 1 == last {
        return walker.last_row(s.open(&start), board);
    }
    // Frame `l` holds level `l`'s node while a level below it is searched: (open squares
    // left, cols, ld, rd). Indices are masked with `& 31` (levels are below 32), which lets
    // the compiler drop every bounds check from the loop.
    let mut stack = [(0u32, 0u32, 0u32, 0u32); MAX_N as usize];
    let top = start.level;
    let mut level = start.level;
    let (mut cols, mut ld, mut rd) = (start.cols, start.ld, start.rd);
    let mut open = s.open(&start);
    loop {
        if open == 0 {
            if level == top {
                return;
            }
            level -= 1;
            (open, cols, ld, rd) = stack[level & 31];
            continue;
        }
        let bit = open & open.wrapping_neg();
        open ^= bit;
        board[s.rows[level & 31] as usize & 31] = bit.trailing_zeros() as u8;
        let sh = s.shift[level & 31];
        let ncols = cols | bit;
        let nld = (ld | bit) << sh;
        let nrd = (rd | bit) >> sh;
        let next = s.full & !(ncols | nld | nrd | s.pre[(level + 1) & 31]);
        if level + 2 == last {
            walker.last_row(next, board);
            if walker.stop {
                return;
            }
        } else if next != 0 {
            stack[level & 31] = (open, cols, ld, rd);
            (open, cols, ld, rd) = (next, ncols, nld, nrd);
            level += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published;
    use crate::split;
    use crate::types::Symmetry;

    /// Mirror-mode total of `n` counted root by root with `count_root`.
    fn mirror_total(n: u32, count_root: impl Fn(&Schedule) -> u128) -> u128 {
        split::roots(n, Symmetry::Mirror)
            .iter()
            .map(|root| u128::from(root.weight) * count_root(&root.schedule(n)))
            .sum()
    }

    #[test]
    fn the_portable_loop_counts_the_published_totals() {
        for n in 1..=12 {
            let total = mirror_total(n, |s| u128::from(tally(s, s.start())));
            assert_eq!(Some(total), published::all(n), "n = {n}");
        }
    }

    /// Completions below `start` counted one by one by the listing loop.
    fn walked(s: &Schedule, start: State, prefix: &[u8]) -> u128 {
        let mut seen = 0u128;
        walk(s, start, prefix, &mut |_| {
            seen += 1;
            true
        });
        seen
    }

    #[test]
    fn counting_and_listing_agree_on_every_subproblem() {
        // Every full-mode root of these sizes, and every node one and two levels below
        // them: starts on every level the plan hands out, down to the last rows.
        for n in 4..=11 {
            for root in split::roots(n, Symmetry::Full) {
                let s = root.schedule(n);
                let mut frontier = vec![(s.start(), vec![])];
                let mut starts = frontier.clone();
                for _ in 0..s.levels.min(3) {
                    frontier = frontier
                        .iter()
                        .flat_map(|(st, prefix): &(State, Vec<u8>)| {
                            s.children(*st).map(move |child| {
                                let mut p = prefix.clone();
                                p.push((child.cols & !st.cols).trailing_zeros() as u8);
                                (child, p)
                            })
                        })
                        .collect();
                    starts.extend(frontier.iter().cloned());
                }
                for (st, prefix) in &starts {
                    let counted = u128::from(tally(&s, *st));
                    assert_eq!(counted, walked(&s, *st, prefix), "n = {n}, {root:?} {st:?}");
                    assert_eq!(counted, count(&s, *st), "n = {n}, {root:?} {st:?}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_loop_with_bit_instructions_counts_as_the_portable_one() {
        if !bit_instructions() {
            return;
        }
        for n in 1..=12 {
            for root in split::roots(n, Symmetry::Full) {
                let s = root.schedule(n);
                // SAFETY: the CPU has the bit instructions (checked above).
                let bits = unsafe { tally_bits(&s, s.start()) };
                assert_eq!(tally(&s, s.start()), bits, "n = {n}, root {root:?}");
            }
        }
    }
}
