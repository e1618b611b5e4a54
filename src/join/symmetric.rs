//! Full mode's symmetric part: the solutions that each of the seven symmetries other than
//! the identity maps to itself are counted and summed. With the total, Burnside's lemma
//! then gives the fundamental solutions: the total plus this sum is eight times their
//! number.
//!
//! ```text
//! fixed_by_symmetries(n):
//!     for each symmetry g but the identity:
//!         if g is the half turn: count it by the half turn's own search; next
//!         for each column c of the first row, in parallel:
//!             place (0, c) and every image of it under g; count the ways
//!             to fill the lowest free row the same way, orbit by orbit
//!     return the sum
//!
//! half_turn(n):
//!     a queen (r, c) comes with (n - 1 - r, n - 1 - c): the top n / 2 rows decide the board
//!     search those rows with bitmasks whose columns and diagonals are their own images
//! ```
//!
//! A queen's whole orbit under `g` goes on the board at once ([`Fixed::place`]), so a
//! board that `g` does not fix is never built. The half turn fixes most of these
//! solutions, and its search (`Turned`) needs no orbit: each mask stays its own image.
//! Both searches read their stop flag in the first [`STOP_ROWS`] rows only.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

/// The solutions of an `n`-board that each of the seven symmetries other than the identity
/// maps to itself, summed (Burnside's lemma: with the total, eight times the number of
/// fundamental solutions). Each symmetry's are counted by a search that places a queen's
/// whole orbit at once, the first row's choices in parallel.
#[cfg(test)]
pub fn fixed_by_symmetries(n: u32) -> u128 {
    fixed_by_symmetries_until(n, super::word::NEVER)
}

/// [`fixed_by_symmetries`], abandoned once `stop` is set: the searches stop going down
/// (checked at each of a few first rows, on every thread they were stolen to) and the
/// count returns early, too small, for the caller to drop.
pub fn fixed_by_symmetries_until(n: u32, stop: &AtomicBool) -> u128 {
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
        .enumerate()
        .map(|(i, &g)| {
            if i == HALF_TURN {
                return half_turn_until(n, stop);
            }
            (0..n)
                .into_par_iter()
                .map(|c| {
                    Fixed::default()
                        .place(n, g, 0, c)
                        .map_or(0, |b| b.complete(n, g, stop))
                })
                .sum::<u128>()
        })
        .sum()
}

/// The half turn's place in `maps`: its solutions are most of those the symmetries fix,
/// and it has a search of its own ([`half_turn`]).
const HALF_TURN: usize = 1;

/// The solutions of an `n`-board that the half turn maps to itself. Its queens come in
/// pairs `(r, c)`, `(n - 1 - r, n - 1 - c)` (with the centre queen on an odd board), so the
/// top `n / 2` rows decide the board, and the columns and both diagonals taken are each
/// symmetric: column `c` with `n - 1 - c`, diagonal `d` with `2n - 2 - d`. Row `r`'s free
/// columns are then one shift of each mask: a down-right diagonal `r - c + n - 1` is taken
/// exactly when its image `c + n - 1 - r` is. The middle diagonals start taken: a queen on
/// one would share it with its image (or be the centre). A bitmask search, the first row's
/// choices in parallel, many times faster than the general search (`Fixed`).
#[cfg(test)]
pub fn half_turn(n: usize) -> u128 {
    half_turn_until(n, super::word::NEVER)
}

/// [`half_turn`], abandoned once `stop` is set.
fn half_turn_until(n: usize, stop: &AtomicBool) -> u128 {
    if n <= 1 {
        return 1;
    }
    let all = (1u64 << n) - 1;
    let middle = 1u64 << (n - 1);
    let cols = if n % 2 == 1 { 1u64 << (n / 2) } else { 0 };
    let start = Turned {
        cols,
        down_right: middle,
        down_left: middle,
    };
    let free = start.free(n, 0, all);
    (0..n)
        .filter(|&c| free >> c & 1 == 1)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|c| start.place(n, 0, c).count(n, 1, all, stop))
        .sum()
}

/// The columns and diagonals taken by a half-turn-symmetric partial board (each mask its
/// own image under the half turn).
#[derive(Clone, Copy)]
struct Turned {
    cols: u64,
    down_right: u64,
    down_left: u64,
}

impl Turned {
    /// The columns of row `r` where a queen and its image attack nothing.
    fn free(self, n: usize, r: usize, all: u64) -> u64 {
        !(self.cols | self.down_right >> (n - 1 - r) | self.down_left >> r) & all
    }

    /// The board with queens on `(r, c)` and `(n - 1 - r, n - 1 - c)`.
    fn place(self, n: usize, r: usize, c: usize) -> Turned {
        let (dr, dl) = (r + n - 1 - c, r + c);
        Turned {
            cols: self.cols | 1 << c | 1 << (n - 1 - c),
            down_right: self.down_right | 1 << dr | 1 << (2 * n - 2 - dr),
            down_left: self.down_left | 1 << dl | 1 << (2 * n - 2 - dl),
        }
    }

    /// The ways to fill rows `r..n / 2` (and their images); none once `stop` is set
    /// (checked in the first rows only, where it costs nothing).
    fn count(self, n: usize, r: usize, all: u64, stop: &AtomicBool) -> u128 {
        if r == n / 2 {
            return 1;
        }
        if stopped(r, stop) {
            return 0;
        }
        let mut free = self.free(n, r, all);
        let mut total = 0;
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            total += self.place(n, r, c).count(n, r + 1, all, stop);
        }
        total
    }
}

/// The rows the searches check their stop flag in: deeper subtrees take well under a
/// millisecond below the first rows at every n the join counts.
const STOP_ROWS: usize = 8;

/// Whether a search on row `r` stops: `stop` is set, read in the first [`STOP_ROWS`] only.
fn stopped(r: usize, stop: &AtomicBool) -> bool {
    r < STOP_ROWS && stop.load(Ordering::Relaxed)
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

    /// Number of ways to fill the free rows keeping the board closed under `g`; none once
    /// `stop` is set (checked in the first rows only).
    fn complete(self, n: usize, g: Symmetric, stop: &AtomicBool) -> u128 {
        let r = (!self.rows).trailing_zeros() as usize;
        if r >= n {
            return 1;
        }
        if stopped(r, stop) {
            return 0;
        }
        (0..n)
            .filter_map(|c| self.place(n, g, r, c))
            .map(|b| b.complete(n, g, stop))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The half turn's own search counts what the general one counts.
    #[test]
    fn the_half_turn_search_agrees_with_the_general_one() {
        let g: Symmetric = |n, r, c| (n - 1 - r, n - 1 - c);
        for n in 1..=14 {
            let general: u128 = (0..n)
                .map(|c| {
                    Fixed::default()
                        .place(n, g, 0, c)
                        .map_or(0, |b| b.complete(n, g, crate::join::NEVER))
                })
                .sum();
            assert_eq!(half_turn(n), general, "n={n}");
        }
    }
}
