//! The solutions that the seven symmetries other than the identity fix: with the total,
//! Burnside's lemma gives the fundamental solutions.

use rayon::prelude::*;

/// The solutions of an `n`-board that each of the seven symmetries other than the identity
/// maps to itself, summed (Burnside's lemma: with the total, eight times the number of
/// fundamental solutions). Each symmetry's are counted by a search that places a queen's
/// whole orbit at once, the first row's choices in parallel.
pub fn fixed_by_symmetries(n: u32) -> u128 {
    let n = n as usize;
    if n == 0 {
        return 7;
    }
    let maps: [Symmetric; 7] = [
        |n, r, c| (c, n - 1 - r),         // quarter turn
        |n, r, c| (n - 1 - r, n - 1 - c), // half turn
        |n, r, c| (n - 1 - c, r),         // three-quarter turn
        |n, r, c| (r, n - 1 - c),         // mirror
        |n, r, c| (n - 1 - r, c),         // upside down
        |_, r, c| (c, r),                 // main diagonal
        |n, r, c| (n - 1 - c, n - 1 - r), // other diagonal
    ];
    maps.iter()
        .map(|&g| {
            (0..n)
                .into_par_iter()
                .map(|c| {
                    Fixed::default()
                        .place(n, g, 0, c)
                        .map_or(0, |b| b.complete(n, g))
                })
                .sum::<u128>()
        })
        .sum()
}

/// A symmetry of the `n`-square: where it takes square `(r, c)`.
type Symmetric = fn(usize, usize, usize) -> (usize, usize);

/// A partial board closed under one symmetry: rows, columns and diagonals taken.
#[derive(Clone, Copy, Default)]
struct Fixed {
    rows: u64,
    cols: u64,
    down_right: u64,
    down_left: u64,
}

impl Fixed {
    /// The board with the queen `(r, c)` and its images under `g` added, if none attacks
    /// another queen.
    fn place(mut self, n: usize, g: Symmetric, r: usize, c: usize) -> Option<Fixed> {
        let (mut rr, mut cc) = (r, c);
        loop {
            let (dr, dl) = (1u64 << (rr + n - 1 - cc), 1u64 << (rr + cc));
            if self.rows >> rr & 1 == 1
                || self.cols >> cc & 1 == 1
                || self.down_right & dr != 0
                || self.down_left & dl != 0
            {
                return None;
            }
            self.rows |= 1 << rr;
            self.cols |= 1 << cc;
            self.down_right |= dr;
            self.down_left |= dl;
            (rr, cc) = g(n, rr, cc);
            if (rr, cc) == (r, c) {
                return Some(self);
            }
        }
    }

    /// Number of ways to fill the free rows keeping the board closed under `g`.
    fn complete(self, n: usize, g: Symmetric) -> u128 {
        let r = (!self.rows).trailing_zeros() as usize;
        if r >= n {
            return 1;
        }
        (0..n)
            .filter_map(|c| self.place(n, g, r, c))
            .map(|b| b.complete(n, g))
            .sum()
    }
}
