//! The hot loop: bitmask backtracking over the free rows of a partial board.
//!
//! A [`Schedule`] lists the rows still to fill, top to bottom, as *levels*. Queens fixed
//! before the search (the first row in mirror mode, the border constellation in full mode)
//! are folded into it: their columns go into the starting column mask, and the squares
//! they attack on each free row go into that level's `pre` mask. A level's row may be
//! more than one row below the previous level's (a fixed queen sits in between), so the
//! diagonal masks shift by `shift[level]` rather than by one.
//!
//! Bit `c` of every mask is column `c`. `ld` holds the diagonals running down and to the
//! right (shifted left, towards higher columns, on each step down), `rd` those running
//! down and to the left (shifted right). Bits shifted past column `n - 1` or below column
//! 0 fall off the board, which is exactly what a diagonal does.
//!
//! The loop keeps an explicit stack of at most 32 frames on the native stack: no heap,
//! no recursion, and the last row is never entered: the squares still open on it are the
//! solutions below the current node (see [`Leaves`]).

/// Largest board the kernel handles: one bit per column in a `u32`.
pub const MAX_N: u32 = 32;

/// The free rows of a partial board and what the fixed queens leave open on each.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Board size.
    pub n: u32,
    /// Mask of the `n` columns of the board.
    pub full: u32,
    /// Number of free rows (levels).
    pub levels: usize,
    /// Row index of each level.
    pub rows: [u8; MAX_N as usize],
    /// Squares attacked by the fixed queens on each level's row.
    pub pre: [u32; MAX_N as usize],
    /// Rows from each level's row to the next level's row (at least 1).
    pub shift: [u32; MAX_N as usize],
    /// Columns taken by the fixed queens.
    pub fixed_cols: u32,
    /// The fixed queens as a board (other rows 0).
    pub fixed_board: Board,
}

impl Schedule {
    /// The schedule of an `n`-board with the given queens `(row, col)` fixed and the
    /// squares in `forbid[row]` closed to the search.
    ///
    /// The fixed queens must not attack one another; rows without a fixed queen become the
    /// levels, in increasing row order.
    pub fn new(n: u32, fixed: &[(u8, u8)], forbid: &[u32; MAX_N as usize]) -> Schedule {
        debug_assert!(n <= MAX_N);
        let full = mask_of(n);
        let mut s = Schedule {
            n,
            full,
            levels: 0,
            rows: [0; MAX_N as usize],
            pre: [0; MAX_N as usize],
            shift: [1; MAX_N as usize],
            fixed_cols: 0,
            fixed_board: [0; MAX_N as usize],
        };
        for &(r, c) in fixed {
            s.fixed_cols |= 1 << c;
            s.fixed_board[r as usize] = c;
        }
        for row in 0..n as i32 {
            if fixed.iter().any(|&(r, _)| r as i32 == row) {
                continue;
            }
            let mut pre = forbid[row as usize];
            for &(r, c) in fixed {
                let d = row - r as i32;
                for col in [c as i32 + d, c as i32 - d] {
                    if (0..n as i32).contains(&col) {
                        pre |= 1 << col;
                    }
                }
            }
            s.rows[s.levels] = row as u8;
            s.pre[s.levels] = pre;
            s.levels += 1;
        }
        for l in 1..s.levels {
            s.shift[l - 1] = u32::from(s.rows[l] - s.rows[l - 1]);
        }
        s
    }

    /// The fixed queens and, on the first `level` free rows, the queens in `prefix` (by
    /// level), as a board; rows below are 0.
    pub fn board_above(&self, level: usize, prefix: &[u8]) -> Board {
        let mut board = self.fixed_board;
        for (l, &c) in prefix[..level].iter().enumerate() {
            board[self.rows[l] as usize] = c;
        }
        board
    }

    /// The search state before any free row is filled.
    pub fn start(&self) -> State {
        State {
            level: 0,
            cols: self.fixed_cols,
            ld: 0,
            rd: 0,
        }
    }

    /// Squares open to a queen on `state`'s level.
    #[inline(always)]
    pub fn open(&self, state: &State) -> u32 {
        self.full & !(state.cols | state.ld | state.rd | self.pre[state.level])
    }

    /// The nodes one level below `state`, one per open square, lowest column first.
    pub fn children(&self, state: State) -> impl Iterator<Item = State> + '_ {
        let mut open = self.open(&state);
        std::iter::from_fn(move || {
            (open != 0).then(|| {
                let bit = open & open.wrapping_neg();
                open ^= bit;
                self.place(&state, bit)
            })
        })
    }

    /// The state one level down after a queen on column bit `bit` of `state`'s level.
    #[inline(always)]
    pub fn place(&self, state: &State, bit: u32) -> State {
        let sh = self.shift[state.level];
        State {
            level: state.level + 1,
            cols: state.cols | bit,
            ld: (state.ld | bit) << sh,
            rd: (state.rd | bit) >> sh,
        }
    }
}

/// Mask of the low `n` bits (all columns of an `n`-board).
pub fn mask_of(n: u32) -> u32 {
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// A node of the search: the level about to be filled and what earlier levels attack there.
///
/// `ld` and `rd` are already shifted to this level's row; `cols` includes the fixed queens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// Index of the next free row to fill (`== levels` when the board is complete).
    pub level: usize,
    /// Columns taken.
    pub cols: u32,
    /// Diagonals running down-right, as seen on this level's row.
    pub ld: u32,
    /// Diagonals running down-left, as seen on this level's row.
    pub rd: u32,
}

/// A board as the column of the queen in each row (entries of unfilled rows are stale).
pub type Board = [u8; MAX_N as usize];

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
struct Count(u64);

impl Leaves for Count {
    const RECORD: bool = false;
    #[inline(always)]
    fn last_row(&mut self, open: u32, _: &mut Board) {
        self.0 += u64::from(open.count_ones());
    }
}

/// Number of ways to complete the board below `start`.
pub fn count(s: &Schedule, start: State) -> u64 {
    let mut c = Count(0);
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
