//! The scalar loop: bitmask backtracking over the free rows of a [`Schedule`], on any CPU;
//! [`count`] and [`walk`] both run it.
//!
//! Its stack holds *nodes*, not frames: a node's children are computed together, the live
//! ones but the first are pushed, and the search goes on with the first without touching
//! memory. It never enters the last free row: by then one column is left, and the squares
//! still open on it are the completions below the node. All state lives in fixed arrays on
//! the native stack: no heap, no recursion.

use crate::search::schedule::{Board, MAX_N, Schedule, State};

/// What the loop does on the row before the last: it hands over the open squares of the
/// last free row (each one a completion; by then one column is left, so at most one).
trait Leaves {
    /// Whether [`Leaves::last_row`] reads the board; when false the loop does not fill it.
    const RECORD: bool;
    /// Called with the open squares of the last free row and (when `RECORD`) the board with
    /// every other row filled.
    fn last_row(&mut self, open: u32, board: &mut Board);
    /// Whether the search should end now (checked after each [`Leaves::last_row`]).
    #[inline(always)]
    fn stopped(&self) -> bool {
        false
    }
}

/// Counts completions.
///
/// A `u64`: the loop hands over one square at most per node, so one search would need 2^64
/// nodes (centuries at a billion a second) to overflow it.
struct Count(u64);

impl Leaves for Count {
    const RECORD: bool = false;
    #[inline(always)]
    fn last_row(&mut self, open: u32, _: &mut Board) {
        debug_assert!(open.count_ones() <= 1, "one column is left on the last row");
        self.0 += u64::from(open != 0);
    }
}

/// Number of ways to complete the board below `start`, exact at any size (`u128`).
pub fn count(s: &Schedule, start: State) -> u128 {
    count_from(s, start, 0)
}

/// `base` plus the number of ways to complete the board below `start`: [`count`] with the
/// counter started at `base` (so a test can drive it past `u64::MAX`).
pub fn count_from(s: &Schedule, start: State, base: u128) -> u128 {
    base + u128::from(run(s, start, &mut [0; MAX_N as usize], Count(0)).0)
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
    run(s, start, &mut board, walker);
}

/// Hands each completion to a visitor, until it says stop.
struct Walker<'a, F> {
    n: usize,
    /// The last free row (the loop never enters it).
    last_row: usize,
    visit: &'a mut F,
    stop: bool,
}

impl<F: FnMut(&[u8]) -> bool> Leaves for Walker<'_, F> {
    const RECORD: bool = true;
    fn last_row(&mut self, mut open: u32, board: &mut Board) {
        while open != 0 && !self.stop {
            board[self.last_row] = open.trailing_zeros() as u8;
            open &= open - 1;
            self.stop = !(self.visit)(&board[..self.n]);
        }
    }
    fn stopped(&self) -> bool {
        self.stop
    }
}

/// [`search`] compiled for this CPU's bit instructions where it has them (detected at run
/// time): `popcnt` counts a mask's squares in one instruction (a dozen without it), BMI1
/// takes and clears the lowest open square in one each, BMI2 shifts by a register without
/// touching the flags, `lzcnt` finds the highest open square. All are older than AVX2 on
/// every x86-64 line; the portable build targets the first x86-64s, which lack them. They
/// shorten the hot loop by a few instructions a node (results/zen4/2026-11-22-scalar-search/).
fn run<L: Leaves>(s: &Schedule, start: State, board: &mut Board, leaves: L) -> L {
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the CPU was just found to have every feature the function is built for.
        return unsafe { search_bits(s, start, board, leaves) };
    }
    search(s, start, board, leaves)
}

/// Whether this CPU has every feature [`search_bits`] is built for.
#[cfg(target_arch = "x86_64")]
fn bit_instructions() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
}

/// [`search`] with the bit instructions (see [`run`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
fn search_bits<L: Leaves>(s: &Schedule, start: State, board: &mut Board, leaves: L) -> L {
    search(s, start, board, leaves)
}

/// Entries of [`search`]'s node stack. A node on level `l` pushes at most one fewer than its
/// open squares, at most `n - 1 - l`, and the stack only ever holds the pushes of the
/// nodes on the path to the current one: at most `31 + 30 + ... + 0 = 496` for `n = 32`.
const STACK: usize = 512;

/// The nodes [`search`] has still to visit, one array per field.
struct Nodes {
    open: [u32; STACK],
    cols: [u32; STACK],
    ld: [u32; STACK],
    rd: [u32; STACK],
    level: [u8; STACK],
    /// The column of the queen the node was made by, on its parent's row (read only when
    /// recording).
    queen: [u8; STACK],
}

/// A queen on `bit` of a node with masks `(cols, ld, rd)`: the child's masks one level
/// down (`sh` rows below) and its open squares (`closed`: the squares the fixed queens
/// close there, and every bit off the board).
#[inline(always)]
fn place(bit: u32, (cols, ld, rd): (u32, u32, u32), sh: u32, closed: u32) -> [u32; 4] {
    let (cols, ld, rd) = (cols | bit, (ld | bit) << sh, (rd | bit) >> sh);
    [!(cols | ld | rd | closed), cols, ld, rd]
}

/// The highest square of `x`; 0 when there is none.
#[inline(always)]
fn highest(x: u32) -> u32 {
    (0x8000_0000u64 >> x.leading_zeros()) as u32
}

/// The hot loop: depth-first search below `start`, handing each last-row mask to `leaves`
/// (in lexicographic order when `L::RECORD`).
///
/// Each turn takes one node. On the row before the last it hands over, square by square
/// from the lowest, what each leaves open on the last row. Elsewhere it pushes every live
/// child but the one on the lowest open square (one with no loop, as most nodes have at
/// most two; highest first when listing, so they come back lowest first), then goes on
/// with the lowest if it is live, or pops a node when it is not. More than half the nodes
/// have one open square; those cost no store, no load and one branch, whether the child is
/// live (a loop with a frame per level pays a push, a pop and two mispredicted branches).
///
/// `board` holds the fixed queens and the levels above `start` (written only when
/// `L::RECORD`: each node's queen goes on the board when the node is taken up).
#[inline(always)]
fn search<L: Leaves>(s: &Schedule, start: State, board: &mut Board, mut leaves: L) -> L {
    let last = s.levels;
    if start.level >= last {
        // Already complete: one solution.
        leaves.last_row(1, board);
        return leaves;
    }
    let mut open = s.open(&start);
    if start.level + 1 == last {
        leaves.last_row(open, board);
        return leaves;
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
        queen: [0; STACK],
    };
    let mut sp = 0usize;
    let (mut cols, mut ld, mut rd, mut level) = (start.cols, start.ld, start.rd, start.level);
    // Indices are masked (`& 31`: levels and rows are below 32; `& (STACK - 1)`: see
    // STACK), which lets the compiler drop every bounds check from the loop.
    let row = |level: usize| s.rows[level & 31] as usize & 31;
    loop {
        let sh = s.shift[level & 31];
        let below = closed[level & 31];
        let masks = (cols, ld, rd);
        if level + 2 == last {
            while open != 0 {
                let bit = open & open.wrapping_neg();
                open &= open - 1;
                if L::RECORD {
                    board[row(level)] = bit.trailing_zeros() as u8;
                }
                leaves.last_row(place(bit, masks, sh, below)[0], board);
                if leaves.stopped() {
                    return leaves;
                }
            }
        } else if open != 0 {
            let first = open & open.wrapping_neg();
            let mut rest = open ^ first;
            let child = (level + 1) as u8;
            let mut push = |bit: u32, live: bool| {
                let [o, c, l, r] = place(bit, masks, sh, below);
                let i = sp & (STACK - 1);
                (nodes.open[i], nodes.cols[i], nodes.ld[i], nodes.rd[i]) = (o, c, l, r);
                nodes.level[i] = child;
                if L::RECORD {
                    nodes.queen[i] = bit.trailing_zeros() as u8;
                }
                sp += usize::from(live & (o != 0));
            };
            // One square with no branch (written and dropped when there is none), then any
            // others. Listing pushes them highest first, so they come back lowest first;
            // counting needs no order and takes the lowest, which costs one instruction
            // less.
            let next = |rest: u32| match L::RECORD {
                true => highest(rest),
                false => rest & rest.wrapping_neg(),
            };
            let bit = next(rest);
            push(bit, bit != 0);
            rest ^= bit;
            while rest != 0 {
                let bit = next(rest);
                push(bit, true);
                rest ^= bit;
            }
            let [o, c, l, r] = place(first, masks, sh, below);
            if o != 0 {
                if L::RECORD {
                    board[row(level)] = first.trailing_zeros() as u8;
                }
                (open, cols, ld, rd) = (o, c, l, r);
                level += 1;
                continue;
            }
        }
        if sp == 0 {
            return leaves;
        }
        sp -= 1;
        let i = sp & (STACK - 1);
        (open, cols, ld, rd) = (nodes.open[i], nodes.cols[i], nodes.ld[i], nodes.rd[i]);
        level = usize::from(nodes.level[i]);
        if L::RECORD {
            board[row(level - 1)] = nodes.queen[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published;
    use crate::search::roots;
    use crate::types::Symmetry;

    /// Mirror-mode total of `n` counted root by root with `count_root`.
    fn mirror_total(n: u32, count_root: impl Fn(&Schedule) -> u128) -> u128 {
        roots::roots(n, Symmetry::Mirror)
            .iter()
            .map(|root| u128::from(root.weight) * count_root(&root.schedule(n)))
            .sum()
    }

    #[test]
    fn the_portable_loop_counts_the_published_totals() {
        for n in 1..=12 {
            let total = mirror_total(n, |s| {
                u128::from(search(s, s.start(), &mut [0; MAX_N as usize], Count(0)).0)
            });
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
        // Every full-mode root of these sizes, and every node one, two and three levels
        // below them: starts on every level the plan hands out, down to the last rows.
        for n in 4..=11 {
            for root in roots::roots(n, Symmetry::Full) {
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
                    let counted = count(&s, *st);
                    assert_eq!(counted, walked(&s, *st, prefix), "n = {n}, {root:?} {st:?}");
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
            for root in roots::roots(n, Symmetry::Full) {
                let s = root.schedule(n);
                let portable = search(&s, s.start(), &mut [0; MAX_N as usize], Count(0)).0;
                // SAFETY: the CPU has every feature the function is built for (checked above).
                let bits =
                    unsafe { search_bits(&s, s.start(), &mut [0; MAX_N as usize], Count(0)) }.0;
                assert_eq!(portable, bits, "n = {n}, root {root:?}");
            }
        }
    }
}
