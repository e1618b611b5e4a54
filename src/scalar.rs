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
    search(s, start, &mut [0; MAX_N as usize], &mut c);
    c.0
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
    search(
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
