//! The search space of a partial board: the free rows as *levels*, and a node of the search.
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
//! Both counting loops ([`crate::search::scalar`], [`crate::search::simd`]) search a schedule.

use std::ops::ControlFlow;

pub use crate::types::MAX_N;

/// The free rows of a partial board and what the fixed queens leave open on each.
#[derive(Clone, Debug, PartialEq, Eq)]
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

    /// The columns of `board`'s queens on the first `level` free rows, by level: the prefix
    /// [`Schedule::board_above`] takes (the other entries 0).
    pub fn prefix_above(&self, board: &Board, level: usize) -> [u8; MAX_N as usize] {
        let mut prefix = [0; MAX_N as usize];
        for (p, &row) in prefix.iter_mut().zip(&self.rows[..level]) {
            *p = board[row as usize];
        }
        prefix
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

    /// Calls `visit` with every node of level `floor` below `state`, in order, and the board
    /// with the queens of the levels on the way filled in (other rows as they were), until
    /// `visit` breaks.
    pub fn down_to(
        &self,
        state: State,
        floor: usize,
        board: &mut Board,
        visit: &mut impl FnMut(State, &Board) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if state.level >= floor {
            return visit(state, board);
        }
        for child in self.children(state) {
            board[self.rows[state.level] as usize] =
                (child.cols & !state.cols).trailing_zeros() as u8;
            self.down_to(child, floor, board, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// Nodes between `state` and level `depth` (a truncated search): a relative estimate of
    /// the cost of the subtree below `state`.
    pub fn nodes_below(&self, state: State, depth: usize) -> u64 {
        if state.level >= depth {
            return 1;
        }
        1 + self
            .children(state)
            .map(|child| self.nodes_below(child, depth))
            .sum::<u64>()
    }

    /// Knuth's estimate of the nodes of the whole search below `state`, from `probes`
    /// random walks down its tree (each walk's product of the open squares met on the way
    /// is an unbiased estimate of each level's nodes), `random` picking the squares: the
    /// size of a tree too large to search, in microseconds.
    pub fn estimated_nodes(
        &self,
        state: State,
        probes: u32,
        random: &mut impl FnMut() -> u64,
    ) -> f64 {
        let mut total = 0.0;
        for _ in 0..probes {
            let (mut here, mut width) = (state, 1.0f64);
            total += 1.0;
            while here.level < self.levels {
                let open = self.open(&here);
                if open == 0 {
                    break;
                }
                width *= f64::from(open.count_ones());
                total += width;
                let mut pick = random() % u64::from(open.count_ones());
                let mut rest = open;
                while pick > 0 {
                    rest &= rest - 1;
                    pick -= 1;
                }
                here = self.place(&here, rest & rest.wrapping_neg());
            }
        }
        total / f64::from(probes.max(1))
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
