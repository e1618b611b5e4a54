//! Subproblems: the queens fixed before the search (*roots*) and the independent
//! subproblems a root is cut into by placing queens on its first free rows.
//!
//! - `none`: one root per column of the top row, weight 1.
//! - `mirror`: the top-row columns of the left half, weight 2, and the middle column of an
//!   odd board, weight 1: every solution's mirror image starts in the other half.
//! - `full`: roots that together reach every solution whose border constellation is the
//!   smallest of its eight images (see [`crate::search::symmetry`]), each exactly once:
//!   - *corner*: a queen at `(0, 0)` and one at `(1, c1)`. The only other transform that
//!     keeps the corner queen is the transpose, which swaps `c1` with the row of the queen
//!     in column 1, so that row must be greater than `c1`: column 1 is closed on rows
//!     `2..=c1`. Such solutions have no symmetry: weight 8.
//!   - *border*: otherwise, every border constellation with no queen in a corner that is the
//!     smallest of its images, all four border queens fixed. Its weight is
//!     `8 / |stabiliser|`; where a symmetry fixes the constellation each solution is
//!     classified on its own ([`crate::search::symmetry::classify`]). A constellation's completions
//!     are the same in each of its eight images, so one without symmetry is searched in the
//!     image whose search is expected smallest ([`cheapest_view`]).
//!
//! The empty board (`n == 0`) and `n == 1` have a single root that is classified on its own.

use crate::search::schedule::{MAX_N, Schedule, State};
use crate::search::symmetry::{self, Constellation, Transform};
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
    /// The four border queens of a constellation that is the smallest of its images,
    /// searched as its image under `view` (the count of completions is the same in every
    /// view; the search tree is not, see [`cheapest_view`]).
    Border {
        /// The constellation, as [`crate::search::symmetry`] compares it.
        canonical: Constellation,
        /// The transform whose image is searched (`Identity` where completions are
        /// classified one by one: [`crate::search::symmetry::classify`] reads the canonical view).
        view: Transform,
    },
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
            Kind::Nearest(t) => {
                close_nearer_than(n, t, &mut forbid);
                vec![(0, t)]
            }
            Kind::Border { canonical, view } => canonical.transformed(n, view).queens(n),
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
    forbid[m] |= crate::search::schedule::mask_of(u32::from(t))
        | !crate::search::schedule::mask_of(n - u32::from(t));
}

/// Roots for the solutions with top queen `(0, t)` nearest a corner: one per border
/// constellation that is the smallest of its images (its four queens all fixed), searched
/// in its [`cheapest_view`]. A constellation fixes the weight of all its solutions, unless a
/// symmetry fixes it (then each is classified, in the canonical view).
fn constellations(n: u32, t: u8) -> Vec<Root> {
    let m = (n - 1) as u8;
    let mut out = Vec::new();
    for bottom in (t..=m - t).filter(|&b| b != t) {
        for left in t..=m - t {
            for right in (t..=m - t).filter(|&r| r != left) {
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
                    let (weight, view) = match weight {
                        8 => (8, cheapest_view(n, &c)),
                        _ => (0, Transform::Identity),
                    };
                    out.push(Root {
                        kind: Kind::Border { canonical: c, view },
                        weight,
                    });
                }
            }
        }
    }
    out
}

/// How fast a row's open squares thin out with the queens placed above it, in
/// [`cheapest_view`]'s model of a search: `l` free rows down, a row keeps
/// `1 - VIEW_THINNING * l / (n - 2)` of the squares the fixed queens leave open (at least 5%).
/// A larger value weighs the top rows' closed squares more against the deeper rows'
/// (results/zen4/2026-11-22-scalar-search/).
const VIEW_THINNING: f64 = 1.6;

/// The view of a constellation whose search is expected smallest (the first of equals, in
/// [`Transform::ALL`] order).
///
/// All eight images of a board have the same completions, but not the same search: the
/// search fills rows top down, and a view whose fixed queens close many squares on the top
/// rows (the left and right queens' rows skipped early, the bottom queen's long diagonal
/// reaching up) prunes the tree near its root. Each view's tree is estimated from the
/// fixed queens' attacks alone, so it costs nothing next to the search: the nodes on a free
/// row are those on the row above times the row's open squares, thinned by
/// `VIEW_THINNING`, and the estimate is their sum over the rows. Counting every node of
/// every view to pick the truly smallest would cost more than the search.
pub fn cheapest_view(n: u32, c: &Constellation) -> Transform {
    let size = |t: Transform| {
        let s = view_schedule(n, c, t);
        let free_columns = f64::from(n) - 2.0;
        let (mut nodes, mut total) = (1.0, 0.0);
        for (l, &pre) in s.pre[..s.levels].iter().enumerate() {
            let open = f64::from((s.full & !(s.fixed_cols | pre)).count_ones());
            nodes *= open * (1.0 - VIEW_THINNING * l as f64 / free_columns).max(0.05);
            total += nodes;
        }
        total
    };
    Transform::ALL
        .into_iter()
        .map(|t| (size(t), t))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(Transform::Identity, |(_, t)| t)
}

/// The search schedule of a constellation's image under `view`: its four queens fixed,
/// nothing else closed (a border root's schedule).
fn view_schedule(n: u32, c: &Constellation, view: Transform) -> Schedule {
    Schedule::new(n, &c.transformed(n, view).queens(n), &[0; MAX_N as usize])
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
                out.extend(constellations(n, t));
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
/// root has fewer free rows), in increasing order of root and then of the placed columns,
/// one at a time: a depth-first walk of each root's first free rows with an explicit stack.
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
    /// Queens placed so far, and the most the walk may place before it stops.
    placed: u64,
    budget: u64,
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
            placed: 0,
            budget: u64::MAX,
        }
    }

    /// The walk ends once it has placed `budget` queens: the work of cutting a board is
    /// bounded, whatever the depth (near the board's size, the subproblems are nearly
    /// solutions, and finding even a few takes a search of the whole board).
    pub fn within(mut self, budget: u64) -> Subproblems<'a> {
        self.budget = budget;
        self
    }

    /// Whether the walk stopped at its budget, with subproblems left uncut.
    pub fn over_budget(&self) -> bool {
        self.placed >= self.budget
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
            if self.placed >= self.budget {
                return None;
            }
            self.placed += 1;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::scalar;

    /// Each full-mode border root, its constellation and its view.
    fn border_roots(n: u32) -> Vec<(Root, Constellation, Transform)> {
        roots(n, Symmetry::Full)
            .into_iter()
            .filter_map(|r| match r.kind {
                Kind::Border { canonical, view } => Some((r, canonical, view)),
                _ => None,
            })
            .collect()
    }

    /// The search below a constellation's image under `view`, all its free rows.
    fn searched(n: u32, c: &Constellation, view: Transform) -> (u128, u64) {
        let s = view_schedule(n, c, view);
        (
            scalar::count(&s, s.start()),
            s.nodes_below(s.start(), s.levels),
        )
    }

    #[test]
    fn every_view_of_a_constellation_has_the_same_completions() {
        for n in 5..=11 {
            for (root, c, view) in border_roots(n) {
                let canonical = searched(n, &c, Transform::Identity).0;
                for t in Transform::ALL {
                    assert_eq!(searched(n, &c, t).0, canonical, "n = {n}, {c:?} in {t:?}");
                }
                assert_eq!(root.schedule(n), view_schedule(n, &c, view));
                if root.classifies() {
                    assert_eq!(
                        view,
                        Transform::Identity,
                        "classified in the canonical view"
                    );
                }
            }
        }
    }

    #[test]
    fn the_chosen_views_search_under_70_percent_of_the_canonical_views_nodes() {
        let n = 13;
        let (mut chosen, mut canonical) = (0, 0);
        for (_, c, view) in border_roots(n) {
            chosen += searched(n, &c, view).1;
            canonical += searched(n, &c, Transform::Identity).1;
        }
        assert!(
            chosen * 10 < canonical * 7,
            "chosen views {chosen} nodes, canonical {canonical}"
        );
    }
}
