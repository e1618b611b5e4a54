//! The symmetry group of the square, and how full-symmetry mode picks one solution of each
//! class.
//!
//! Every solution of an `n`-board (`n >= 1`) has exactly one queen in the top row, the
//! bottom row, the left column and the right column: its *border constellation* (fewer than
//! four queens where one sits in a corner). The eight transforms of the square act on
//! constellations, and full mode counts a solution only when its constellation is the
//! smallest of its eight images (compared as `(top, bottom, left, right)`): the top queen is
//! nearest to a corner, and the search fixes each such constellation's queens before it
//! starts (the corner ones by their first two rows); see [`crate::search::roots`].
//!
//! A counted solution `x` with constellation `C` stands for `8 / |Stab(C)|` solutions, where
//! `Stab(C)` is the set of transforms fixing `C`; and by Burnside's lemma the fundamental
//! solutions over `C` number the average over `Stab(C)` of the solutions each transform
//! fixes. So each counted `x` adds `8 / |Stab(C)|` to the total and
//! `8 / |Stab(C)| * |{g in Stab(C) : g x = x}|` to eight times the fundamental count.

/// One of the eight symmetries of the square, acting on `(row, col)` squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// Leaves every square where it is.
    Identity,
    /// Quarter turn clockwise.
    Rotate90,
    /// Half turn.
    Rotate180,
    /// Quarter turn anticlockwise.
    Rotate270,
    /// Left and right swapped.
    MirrorColumns,
    /// Top and bottom swapped.
    MirrorRows,
    /// Reflection in the main diagonal.
    Transpose,
    /// Reflection in the anti-diagonal.
    AntiTranspose,
}

impl Transform {
    /// All eight, identity first.
    pub const ALL: [Transform; 8] = [
        Transform::Identity,
        Transform::Rotate90,
        Transform::Rotate180,
        Transform::Rotate270,
        Transform::MirrorColumns,
        Transform::MirrorRows,
        Transform::Transpose,
        Transform::AntiTranspose,
    ];

    /// Image of square `(r, c)` of an `n`-board (`n >= 1`).
    pub fn apply(self, n: u32, (r, c): (u8, u8)) -> (u8, u8) {
        let m = (n - 1) as u8;
        match self {
            Transform::Identity => (r, c),
            Transform::Rotate90 => (c, m - r),
            Transform::Rotate180 => (m - r, m - c),
            Transform::Rotate270 => (m - c, r),
            Transform::MirrorColumns => (r, m - c),
            Transform::MirrorRows => (m - r, c),
            Transform::Transpose => (c, r),
            Transform::AntiTranspose => (m - c, m - r),
        }
    }

    /// Image of a solution given as the column of the queen in each row.
    #[cfg(test)]
    pub fn apply_columns(self, cols: &[u8]) -> Vec<u8> {
        let n = cols.len() as u32;
        let mut out = vec![0u8; cols.len()];
        for (r, &c) in cols.iter().enumerate() {
            let (r2, c2) = self.apply(n, (r as u8, c));
            out[r2 as usize] = c2;
        }
        out
    }

    /// Whether the solution `cols` is its own image.
    pub fn fixes(self, cols: &[u8]) -> bool {
        let n = cols.len() as u32;
        cols.iter().enumerate().all(|(r, &c)| {
            let (r2, c2) = self.apply(n, (r as u8, c));
            cols[r2 as usize] == c2
        })
    }
}

/// Whether a solution is the lexicographically smallest of its eight images (row 0 first):
/// the representative `nqueens solve --unique` lists for its class.
pub fn is_smallest_image(cols: &[u8]) -> bool {
    let n = cols.len();
    let mut image = [0u8; 32];
    Transform::ALL[1..].iter().all(|&t| {
        for (r, &c) in cols.iter().enumerate() {
            let (r2, c2) = t.apply(n as u32, (r as u8, c));
            image[r2 as usize] = c2;
        }
        image[..n] >= *cols
    })
}

/// The queens on the border of a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Constellation {
    /// Column of the queen in row 0.
    pub top: u8,
    /// Column of the queen in row `n - 1`.
    pub bottom: u8,
    /// Row of the queen in column 0.
    pub left: u8,
    /// Row of the queen in column `n - 1`.
    pub right: u8,
}

impl Constellation {
    /// Its queens as distinct `(row, col)` squares, in row order (a corner queen once).
    pub fn queens(&self, n: u32) -> Vec<(u8, u8)> {
        let m = (n - 1) as u8;
        let mut q = vec![
            (0, self.top),
            (m, self.bottom),
            (self.left, 0),
            (self.right, m),
        ];
        q.sort_unstable();
        q.dedup();
        q
    }

    /// The constellation of a solution (`cols.len() >= 1`).
    pub fn of(cols: &[u8]) -> Constellation {
        let m = (cols.len() - 1) as u8;
        let row_of = |c: u8| cols.iter().position(|&x| x == c).unwrap_or(0) as u8;
        Constellation {
            top: cols[0],
            bottom: cols[m as usize],
            left: row_of(0),
            right: row_of(m),
        }
    }

    /// Image under a transform, on an `n`-board.
    pub fn transformed(&self, n: u32, t: Transform) -> Constellation {
        let m = (n - 1) as u8;
        let mut out = *self;
        for q in [
            (0, self.top),
            (m, self.bottom),
            (self.left, 0),
            (self.right, m),
        ] {
            let (r, c) = t.apply(n, q);
            if r == 0 {
                out.top = c;
            }
            if r == m {
                out.bottom = c;
            }
            if c == 0 {
                out.left = r;
            }
            if c == m {
                out.right = r;
            }
        }
        out
    }
}

/// The weight `8 / |Stab(C)|` of a constellation that is the smallest of its eight images,
/// `None` for one that is not.
pub fn constellation_weight(n: u32, c: &Constellation) -> Option<u32> {
    let mut stabiliser = 0;
    for t in Transform::ALL {
        let image = c.transformed(n, t);
        if image < *c {
            return None;
        }
        stabiliser += u32::from(image == *c);
    }
    Some(8 / stabiliser)
}

/// How full mode counts one solution: `(weight, fixed)` where `weight` is the number of
/// solutions it stands for and `fixed` how many transforms of its constellation's
/// stabiliser fix it; `None` when its constellation is not the smallest of its images.
pub fn classify(cols: &[u8]) -> Option<(u32, u32)> {
    if cols.is_empty() {
        // The empty board: one solution, fixed by all eight transforms.
        return Some((1, 8));
    }
    let n = cols.len() as u32;
    let c = Constellation::of(cols);
    let weight = constellation_weight(n, &c)?;
    let fixed = Transform::ALL
        .into_iter()
        .filter(|&t| c.transformed(n, t) == c && t.fixes(cols))
        .count();
    Some((weight, fixed as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_are_eight_distinct_maps_closed_under_inverse() {
        let probe: Vec<u8> = vec![0, 2, 4, 1, 3];
        let images: Vec<Vec<u8>> = Transform::ALL
            .iter()
            .map(|t| t.apply_columns(&probe))
            .collect();
        for (i, a) in images.iter().enumerate() {
            for b in &images[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let mut x = probe.clone();
        for _ in 0..4 {
            x = Transform::Rotate90.apply_columns(&x);
        }
        assert_eq!(x, probe);
        for t in [
            Transform::MirrorColumns,
            Transform::MirrorRows,
            Transform::Transpose,
            Transform::AntiTranspose,
        ] {
            assert_eq!(t.apply_columns(&t.apply_columns(&probe)), probe);
        }
    }

    #[test]
    fn constellation_of_an_image_is_the_image_of_the_constellation() {
        // The 10 solutions of n = 5 and the 4 of n = 6.
        for x in [
            vec![0u8, 2, 4, 1, 3],
            vec![1, 3, 0, 2, 4],
            vec![1, 3, 5, 0, 2, 4],
            vec![2, 5, 1, 4, 0, 3],
        ] {
            let n = x.len() as u32;
            for t in Transform::ALL {
                assert_eq!(
                    Constellation::of(&t.apply_columns(&x)),
                    Constellation::of(&x).transformed(n, t)
                );
            }
        }
    }

    #[test]
    fn classify_counts_each_class_once_with_its_size() {
        // n = 6 has 4 solutions in one class of 4 (a half-turn symmetric class).
        let class = [
            vec![1u8, 3, 5, 0, 2, 4],
            vec![2, 5, 1, 4, 0, 3],
            vec![3, 0, 4, 1, 5, 2],
            vec![4, 2, 0, 5, 3, 1],
        ];
        let counted: Vec<_> = class.iter().filter_map(|x| classify(x)).collect();
        let total: u32 = counted.iter().map(|(w, _)| w).sum();
        let unique8: u32 = counted.iter().map(|(w, f)| w * f).sum();
        assert_eq!((total, unique8), (4, 8));
    }
}
