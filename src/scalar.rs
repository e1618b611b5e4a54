//! The scalar counting loop: bitmask backtracking over the free rows of a [`Schedule`], on
//! any CPU.
//!
//! The loop keeps an explicit stack of at most 32 frames on the native stack: no heap,
//! no recursion, and the last row is never entered: the squares still open on it are the
//! solutions below the current node (see [`Leaves`]).

use crate::schedule::{Board, MAX_N, Schedule, State};

/// What the search does on reaching the last free row.
///
/// The loop never descends into the last free row: it hands over the open squares there
/// (each one a solution) with the board filled on every other row.
pub trait Leaves {
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

/// Counts solutions: the open squares of the last row are added up.
struct Count(u128);

impl Leaves for Count {
    const RECORD: bool = false;
    #[inline(always)]
    fn last_row(&mut self, open: u32, _: &mut Board) {
        self.0 += u128::from(open.count_ones());
    }
}

/// Number of ways to complete the board below `start`, exact at any size (`u128`).
pub fn count(s: &Schedule, start: State) -> u128 {
    count_from(s, start, 0)
}

/// `base` plus the number of ways to complete the board below `start`: [`count`] with the
/// counter started at `base` (so a test can drive it past `u64::MAX`).
pub fn count_from(s: &Schedule, start: State, base: u128) -> u128 {
    let mut c = Count(base);
    run(s, start, &mut [0; MAX_N as usize], &mut c);
    c.0
}

/// [`search`] compiled for this CPU's bit instructions where it has them: `popcnt` counts
/// the last row's squares in one instruction (a dozen without it) and BMI1 takes and clears
/// the lowest open square in one each. Both are older than AVX2 on every x86-64 line; the
/// portable build targets the first x86-64s, which lack them. Measured on Zen 4, n = 16 in
/// full mode on one thread: 1.42 s portable, 1.28-1.31 s with them.
fn run<L: Leaves>(s: &Schedule, start: State, board: &mut Board, leaves: &mut L) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("bmi1")
    {
        // SAFETY: the CPU was just found to have both features the function is built for.
        return unsafe { search_bits(s, start, board, leaves) };
    }
    search(s, start, board, leaves)
}

/// [`search`] with `popcnt` and BMI1 (see [`run`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn search_bits<L: Leaves>(s: &Schedule, start: State, board: &mut Board, leaves: &mut L) {
    search(s, start, board, leaves)
}

/// Calls `visit` with each completed board below `start` (`n` entries, the column of the
/// queen in each row, the fixed queens included), in increasing lexicographic order, until
/// `visit` returns false.
///
/// `prefix[..start.level]` holds the columns already placed on the levels above `start`.
pub fn walk<F: FnMut(&[u8]) -> bool>(s: &Schedule, start: State, prefix: &[u8], visit: &mut F) {
    struct Walk<'a, F> {
        n: usize,
        last_row: usize,
        visit: &'a mut F,
        stop: bool,
    }
    impl<F: FnMut(&[u8]) -> bool> Leaves for Walk<'_, F> {
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
    let mut board = s.board_above(start.level, prefix);
    if s.levels == 0 {
        // No free row: the fixed queens are the one completion.
        visit(&board[..s.n as usize]);
        return;
    }
    let last_row = s.rows[s.levels - 1] as usize;
    if start.level == s.levels {
        // Every free row is placed: the last one's queen stands for the open last row.
        let c = board[last_row];
        board[last_row] = 0;
        return Walk {
            n: s.n as usize,
            last_row,
            visit,
            stop: false,
        }
        .last_row(1 << c, &mut board);
    }
    run(
        s,
        start,
        &mut board,
        &mut Walk {
            n: s.n as usize,
            last_row,
            visit,
            stop: false,
        },
    );
}

/// The hot loop: depth-first search below `start`, handing each last-row mask to `leaves`.
///
/// `board` holds the fixed queens and the levels above `start` (read only when
/// `L::RECORD`). Each iteration takes the lowest open square of the current level, computes
/// the open squares one level down, and either hands them over (when that level is the last
/// free row) or descends. A level whose squares are used up pops a frame. All state lives in
/// fixed arrays on the stack.
#[inline(always)]
fn search<L: Leaves>(s: &Schedule, start: State, board: &mut Board, leaves: &mut L) {
    let last = s.levels;
    if start.level >= last {
        // Already complete: one solution.
        leaves.last_row(1, board);
        return;
    }
    if start.level + 1 == last {
        leaves.last_row(s.open(&start), board);
        return;
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
        if L::RECORD {
            board[s.rows[level & 31] as usize & 31] = bit.trailing_zeros() as u8;
        }
        let sh = s.shift[level & 31];
        let ncols = cols | bit;
        let nld = (ld | bit) << sh;
        let nrd = (rd | bit) >> sh;
        let next = s.full & !(ncols | nld | nrd | s.pre[(level + 1) & 31]);
        if level + 2 == last {
            leaves.last_row(next, board);
            if leaves.stopped() {
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
            let total = mirror_total(n, |s| {
                let mut c = Count(0);
                search(s, s.start(), &mut [0; MAX_N as usize], &mut c);
                c.0
            });
            assert_eq!(Some(total), published::all(n), "n = {n}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_loop_with_bit_instructions_counts_as_the_portable_one() {
        if !(std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1"))
        {
            return;
        }
        for n in 1..=12 {
            for root in split::roots(n, Symmetry::Full) {
                let s = root.schedule(n);
                let (mut portable, mut bits) = (Count(0), Count(0));
                search(&s, s.start(), &mut [0; MAX_N as usize], &mut portable);
                // SAFETY: the CPU has popcnt and BMI1 (checked above).
                unsafe { search_bits(&s, s.start(), &mut [0; MAX_N as usize], &mut bits) };
                assert_eq!(portable.0, bits.0, "n = {n}, root {root:?}");
            }
        }
    }
}
