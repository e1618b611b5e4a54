//! Subproblems: the queens fixed before the search (*roots*) and the independent
//! subproblems a root is cut into by placing queens on its first free rows.
//!
//! - `none`: one root per column of the top row, weight 1.
//! - `mirror`: the top-row columns of the left half, weight 2, and the middle column of an
//!   odd board, weight 1: every solution's mirror image starts in the other half.
//! - `full`: roots that together reach every solution whose border constellation is the
//!   smallest of its eight images (see [`crate::symmetry`]), each exactly once:
//!   - *corner*: a queen at `(0, 0)` and one at `(1, c1)`. The only other transform that
//!     keeps the corner queen is the transpose, which swaps `c1` with the row of the queen
//!     in column 1, so that row must be greater than `c1`: column 1 is closed on rows
//!     `2..=c1`. Such solutions have no symmetry: weight 8.
//!   - *side*: a queen at `(0, t)`, `1 <= t < n - 1 - t`. The top queen must be nearest to a
//!     corner, so columns 0 and `n - 1` are closed on rows `< t` and `> n - 1 - t`, and the
//!     bottom row is closed outside `t..=n-1-t`. Where no other border queen is as near
//!     (its *tie squares* closed) the constellation is the unique smallest image: weight 8.
//!   - *border*: for the solutions where another border queen is as near a corner as the top
//!     one (a tie), every border constellation of that kind that is the smallest of its
//!     images, all four border queens fixed. Its weight is `8 / |stabiliser|`; where a
//!     symmetry fixes the constellation each solution is classified on its own
//!     ([`crate::symmetry::classify`]).
//!
//! The empty board (`n == 0`) and `n == 1` have a single root that is classified on its own.

use crate::schedule::{MAX_N, Schedule, State};
use crate::symmetry::{self, Constellation};
use crate::types::Symmetry;

/// What a root fixes, and so which squares it closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing fixed (the empty board, or a board of one square).
    Open,
    /// A queen at `(0, c)` (modes `none` and `mirror`).
    Top(u8),
    /// Queens at `(0, 0)` and `(1, c1)`.
    Corner(u8),
    /// A queen at `(0, t)`, no tie.
    Side(u8),
    /// The four border queens of a constellation with a tie (see [`crate::symmetry`]).
    Border(Constellation),
    /// A queen at `(0, t)`, every border square nearer a corner closed, ties open: the
    /// solutions whose top queen is nearest a corner (for listing one per class).
    Nearest(u8),
}

/// Queens fixed before the search, and how many solutions each completion stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Root {
    /// What it fixes.
    pub kind: Kind,
    /// Solutions each completion stands for; 0 when each completion must be classified.
    pub weight: u8,
}

impl Root {
    /// Whether each completion must be classified by its own symmetry.
    pub fn classifies(&self) -> bool {
        self.weight == 0
    }

    /// The fixed queens and the closed squares (`forbid[row]` a mask of columns).
    pub fn layout(&self, n: u32) -> (Vec<(u8, u8)>, [u32; MAX_N as usize]) {
        let mut forbid = [0u32; MAX_N as usize];
        let queens = match self.kind {
            Kind::Open => vec![],
            Kind::Top(c) => vec![(0, c)],
            Kind::Corner(c1) => {
                for row in forbid.iter_mut().take(c1 as usize + 1).skip(2) {
                    *row |= 0b10;
                }
                vec![(0, 0), (1, c1)]
            }
            Kind::Side(t) => {
                close_nearer_than(n, t, &mut forbid);
                for (r, c) in tie_squares(n, t) {
                    forbid[r as usize] |= 1 << c;
                }
                vec![(0, t)]
            }
            Kind::Nearest(t) => {
                close_nearer_than(n, t, &mut forbid);
                vec![(0, t)]
            }
            Kind::Border(c) => c.queens(n),
        };
        (queens, forbid)
    }

    /// The search schedule of the rows this root leaves free.
    pub fn schedule(&self, n: u32) -> Schedule {
        let (queens, forbid) = self.layout(n);
        Schedule::new(n, &queens, &forbid)
    }
}

/// Closes the border squares nearer to a corner than `t` (other than the top row).
fn close_nearer_than(n: u32, t: u8, forbid: &mut [u32; MAX_N as usize]) {
    let m = (n - 1) as usize;
    let sides = 1 | 1 << m;
    for r in 1..t as usize {
        forbid[r] |= sides;
        forbid[m - r] |= sides;
    }
    forbid[m] |=
        crate::schedule::mask_of(u32::from(t)) | !crate::schedule::mask_of(n - u32::from(t));
}

/// The border squares as near to a corner as `(0, t)`, other than the top row's.
pub fn tie_squares(n: u32, t: u8) -> [(u8, u8); 6] {
    let m = (n - 1) as u8;
    [(t, 0), (m - t, 0), (t, m), (m - t, m), (m, t), (m, m - t)]
}

/// Roots for the solutions with top queen `(0, t)` and another border queen as near a corner:
/// one per border constellation that is the smallest of its images. A constellation fixes
/// the weight of all its solutions, unless a symmetry fixes it (then each is classified).
fn tied_constellations(n: u32, t: u8) -> Vec<Root> {
    let m = (n - 1) as u8;
    let tie = |x: u8| x == t || x == m - t;
    let mut out = Vec::new();
    for bottom in (t..=m - t).filter(|&b| b != t) {
        for left in t..=m - t {
            for right in (t..=m - t).filter(|&r| r != left) {
                if !(tie(bottom) || tie(left) || tie(right)) {
                    continue;
                }
                let c = Constellation {
                    top: t,
                    bottom,
                    left,
                    right,
                };
                let queens = c.queens(n);
                let peaceful = queens
                    .iter()
                    .enumerate()
                    .all(|(i, &a)| queens[i + 1..].iter().all(|&b| !attack(a, b)));
                if !peaceful {
                    continue;
                }
                if let Some(weight) = symmetry::constellation_weight(n, &c) {
                    out.push(Root {
                        kind: Kind::Border(c),
                        weight: if weight == 8 { 8 } else { 0 },
                    });
                }
            }
        }
    }
    out
}

/// Whether two distinct queens attack each other.
fn attack(a: (u8, u8), b: (u8, u8)) -> bool {
    let (dr, dc) = (a.0 as i32 - b.0 as i32, a.1 as i32 - b.1 as i32);
    dr == 0 || dc == 0 || dr.abs() == dc.abs()
}

/// The roots of an `n`-board under a symmetry mode.
pub fn roots(n: u32, symmetry: Symmetry) -> Vec<Root> {
    let n8 = n as u8;
    match symmetry {
        _ if n == 0 => vec![Root {
            kind: Kind::Open,
            weight: 1,
        }],
        Symmetry::None => (0..n8)
            .map(|c| Root {
                kind: Kind::Top(c),
                weight: 1,
            })
            .collect(),
        Symmetry::Mirror => (0..n8.div_ceil(2))
            .map(|c| Root {
                kind: Kind::Top(c),
                weight: if 2 * c + 1 == n8 { 1 } else { 2 },
            })
            .collect(),
        Symmetry::Full if n == 1 => vec![Root {
            kind: Kind::Open,
            weight: 0,
        }],
        Symmetry::Full => {
            let mut out: Vec<Root> = (2..n8)
                .map(|c1| Root {
                    kind: Kind::Corner(c1),
                    weight: 8,
                })
                .collect();
            for t in (1..n8).take_while(|&t| t < n8 - 1 - t) {
                out.push(Root {
                    kind: Kind::Side(t),
                    weight: 8,
                });
                out.extend(tied_constellations(n, t));
            }
            out
        }
    }
}

/// Roots that reach, in lexicographic order, every solution that is the lexicographically
/// smallest of its eight images (and others, to be filtered): such a solution's top queen
/// is nearest a corner, and with a corner queen its row-1 queen comes before the transpose's.
pub fn smallest_image_roots(n: u32) -> Vec<Root> {
    let n8 = n as u8;
    if n <= 1 {
        return vec![Root {
            kind: Kind::Open,
            weight: 0,
        }];
    }
    let corner = (2..n8).map(|c1| Root {
        kind: Kind::Corner(c1),
        weight: 0,
    });
    let side = (1..n8).take_while(|&t| t <= n8 - 1 - t).map(|t| Root {
        kind: Kind::Nearest(t),
        weight: 0,
    });
    corner.chain(side).collect()
}

/// An independent piece of work: a root with queens on its first `state.level` free rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subproblem {
    /// Index of the root in the list it came from.
    pub root: u32,
    /// The search node the subproblem starts from.
    pub state: State,
    /// Columns of the queens placed on the free rows above `state.level`.
    pub prefix: [u8; MAX_N as usize],
}

/// The subproblems of every root after `levels` more free rows are filled (fewer where a
/// root has fewer free rows), in increasing order of root and then of the placed columns.
pub fn subproblems(n: u32, roots: &[Root], levels: usize) -> Vec<Subproblem> {
    Subproblems::new(n, roots, levels).collect()
}

/// [`subproblems`] one at a time, without building the list: a depth-first walk of each
/// root's first free rows with an explicit stack.
pub struct Subproblems<'a> {
    n: u32,
    roots: &'a [Root],
    levels: usize,
    /// The root being cut, its schedule and the depth its subproblems start at.
    current: Option<(usize, Schedule, usize)>,
    next_root: usize,
    /// One frame per level being enumerated: the node and its open squares not yet tried.
    frames: Vec<(State, u32)>,
    prefix: [u8; MAX_N as usize],
}

impl<'a> Subproblems<'a> {
    /// The subproblems of `roots` on an `n`-board, `levels` free rows below each root.
    pub fn new(n: u32, roots: &'a [Root], levels: usize) -> Subproblems<'a> {
        Subproblems {
            n,
            roots,
            levels,
            current: None,
            next_root: 0,
            frames: Vec::new(),
            prefix: [0; MAX_N as usize],
        }
    }
}

impl Iterator for Subproblems<'_> {
    type Item = Subproblem;

    fn next(&mut self) -> Option<Subproblem> {
        loop {
            let Some((root, s, depth)) = &self.current else {
                let root = *self.roots.get(self.next_root)?;
                let s = root.schedule(self.n);
                let depth = self.levels.min(s.levels);
                let start = s.start();
                self.frames.push((start, s.open(&start)));
                self.current = Some((self.next_root, s, depth));
                self.next_root += 1;
                if depth == 0 {
                    self.frames.clear();
                    let first = Subproblem {
                        root: (self.next_root - 1) as u32,
                        state: start,
                        prefix: self.prefix,
                    };
                    self.current = None;
                    return Some(first);
                }
                continue;
            };
            let Some((state, open)) = self.frames.last_mut() else {
                self.current = None;
                continue;
            };
            if *open == 0 {
                self.frames.pop();
                continue;
            }
            let bit = *open & open.wrapping_neg();
            *open ^= bit;
            let here = *state;
            self.prefix[here.level] = bit.trailing_zeros() as u8;
            let below = s.place(&here, bit);
            if below.level == *depth {
                return Some(Subproblem {
                    root: *root as u32,
                    state: below,
                    prefix: self.prefix,
                });
            }
            self.frames.push((below, s.open(&below)));
        }
    }
}
