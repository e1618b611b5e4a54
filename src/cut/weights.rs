//! The quarter turn's weights: on an even board in full mode, the join counts each solution
//! 0, 1 or 2 times, so that the weights over the whole board sum to its solutions while a
//! key's pairs of weight 0 are never matched (about 40% of its pairs).
//!
//! The keys stand for their orbits under the mirror and the upside-down image; the quarter
//! turn maps a solution of key `E` (the rows of the left columns' queens) to a solution of
//! key `F`, the columns of the bottom rows' queens, and a solution of `F` back to one of an
//! image of `E`. So with `psi` any function of a key that those images keep, weighting
//! each solution `1 + sign(psi(F) - psi(E))` pairs a weight of 2 with one of 0 and a 1 with
//! a 1 along every orbit of the quarter turn: the weights sum to the solutions, for every
//! such `psi`. (The fifth and sixth rounds' `psi` was a sum over the queens, which gave
//! each key dozens of groups of half-boards and cost more matching than it skipped:
//! results/README.md.)
//!
//! Here `psi(X) = max(class(X's low half), class(X's high half, reversed))`, where
//! `class` is a hash of a half's `h`-bit set that its complement keeps: the mirror swaps a
//! key with its complement, the upside-down image reverses it, and `psi` is kept by both.
//! For a solution's `F`, the low half is the left columns holding a bottom queen: the
//! complement of the columns of its left half-board's top piece; the high half, reversed,
//! is the same of its right half-board (built as a mirrored left one). So each half-board
//! has a class of its own, `a` on the left and `b` on the right, fixed by the column set of
//! its top piece (a span of the build), and a solution's weight is that of
//! `max(a, b)` against the key's `c = psi(E)`: with `L>` the left half-boards whose class
//! is above `c` (and so on), the key counts
//!
//! ```text
//! 2 (L> x R  +  L<= x R>)  +  (L= x R<=  +  L< x R=)
//! ```
//!
//! (or the same with the sides' roles swapped, whichever a model of the matching's work
//! finds cheaper), and never matches `L< x R<`. An odd board's middle row puts the middle
//! row's queen in neither half, so its classes depend on more than a top piece's columns:
//! odd boards are not weighted (every key of a board must be, or none).
//!
//! [`search`] is the oracle: every solution of the key found by a plain backtracking search
//! of the board turned a quarter, and weighed on its own.

use crate::schedule::mask_of;
use crate::types::Symmetry;

use super::keys::Key;
use super::matching::either_work;

/// The least board whose join weighs its solutions. Below it a key's sides are so small
/// that the blocks' own costs (each block a matching of its own, its tables filled, the
/// blocks of ties matching many probe words against a few) outweigh the pairs skipped:
/// 1,000 random keys of n = 20 took 1.1x the time unweighted, 300 of n = 22 0.87x, 40 of
/// n = 24 0.72x (one thread, Zen 3, AVX2; results/README.md).
pub const WEIGHTED_FROM: u32 = 22;

/// Whether the join of an `n`-board in `symmetry` weighs its solutions: full mode on an
/// even board of at least [`WEIGHTED_FROM`]. A property of the board alone, so of the plan.
pub fn weighted(n: u32, symmetry: Symmetry) -> bool {
    symmetry == Symmetry::Full && n.is_multiple_of(2) && n >= WEIGHTED_FROM
}

/// The class of an `h`-bit set `x`: a hash of the smaller of `x` and its complement, the
/// same on every machine (integer steps only).
pub(super) fn class(h: usize, x: u32) -> u32 {
    let all = mask_of(h as u32);
    let x = x.min(!x & all);
    // SplitMix64's finaliser: nearby sets get unrelated classes, so a key's half-boards
    // fall on both sides of its own class.
    let mut z = u64::from(x).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as u32
}

/// `psi` of an `n`-bit set of `n / 2` bits (a key's rows, or a solution's bottom queens'
/// columns): the larger class of its low half and of its high half reversed.
pub(super) fn psi(n: usize, x: u32) -> u32 {
    let h = n / 2;
    let low = x & mask_of(h as u32);
    let high = (x >> h).reverse_bits() >> (32 - h);
    class(h, low).max(class(h, high))
}

/// A solution's weight: its half-boards' classes `a` and `b` against its key's `c`.
pub(super) fn weight(a: u32, b: u32, c: u32) -> u64 {
    let f = a.max(b);
    u64::from(f >= c) + u64::from(f > c)
}

/// Which half-boards of a side a block of pairs takes, by their class against the key's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    All,
    Above,
    AtMost,
    Equal,
    Below,
}

impl Part {
    /// Whether a half-board of class `a` is in this part for a key of class `c`.
    pub(super) fn takes(self, a: u32, c: u32) -> bool {
        match self {
            Part::All => true,
            Part::Above => a > c,
            Part::AtMost => a <= c,
            Part::Equal => a == c,
            Part::Below => a < c,
        }
    }
}

/// The blocks of pairs a weighted key counts (left part, right part, weight), from the
/// half-boards of each class on each side (`[below, equal, above]` the key's class):
/// the left side's classes split first, or the right's, whichever costs the less by the
/// model the matching picks its table by (`matching::either_work`). The same count either
/// way.
pub(super) fn blocks(left: [u64; 3], right: [u64; 3]) -> [(Part, Part, u64); 4] {
    let by_left = [
        (Part::Above, Part::All, 2),
        (Part::AtMost, Part::Above, 2),
        (Part::Equal, Part::AtMost, 1),
        (Part::Below, Part::Equal, 1),
    ];
    let by_right = by_left.map(|(l, r, w)| (r, l, w));
    let size = |side: [u64; 3], p: Part| -> f64 {
        let [below, equal, above] = side.map(|x| x as f64);
        match p {
            Part::All => below + equal + above,
            Part::Above => above,
            Part::AtMost => below + equal,
            Part::Equal => equal,
            Part::Below => below,
        }
    };
    let work = |blocks: &[(Part, Part, u64); 4]| -> f64 {
        let each = blocks
            .iter()
            .map(|&(l, r, _)| either_work(size(left, l), size(right, r)));
        each.sum()
    };
    if work(&by_right) < work(&by_left) {
        by_right
    } else {
        by_left
    }
}

/// The weighted solutions of key `key` of an even `n`-board (one key, not its orbit), by
/// a backtracking search of the board turned a quarter: its rows the board's columns, the
/// first `n / 2` taking their queens on the key's rows, the others on the rest. Each
/// solution is weighed by the columns of its top queens on each side (the classes of its
/// half-boards) against the key's class: the oracle the join's blocks are checked against.
pub fn search(n: u32, key: Key) -> u128 {
    let (n, h) = (n as usize, n as usize / 2);
    let all = mask_of(n as u32);
    let top = mask_of(h as u32);
    let c = psi(n, key.rows);
    let mut walk = Walk {
        n,
        h,
        c,
        top,
        sides: [key.rows, all & !key.rows],
        total: 0,
    };
    walk.column(0, 0, 0, 0, [0, 0]);
    walk.total
}

/// The oracle's search: one queen per column, left to right.
struct Walk {
    n: usize,
    h: usize,
    c: u32,
    top: u32,
    /// The rows the left columns' queens take, and the right columns'.
    sides: [u32; 2],
    total: u128,
}

impl Walk {
    /// Places the queen of column `col`, `rows` taken and the diagonals `down` (row - col)
    /// and `up` (row + col) taken, `ups[s]` the columns of side `s` whose queen is a top
    /// one (a right column `n - 1 - j` as bit `j`, as its mirrored half-board has it).
    fn column(&mut self, col: usize, rows: u32, down: u64, up: u64, ups: [u32; 2]) {
        if col == self.n {
            let (a, b) = (class(self.h, ups[0]), class(self.h, ups[1]));
            self.total += u128::from(weight(a, b, self.c));
            return;
        }
        let side = usize::from(col >= self.h);
        let mut free = self.sides[side] & !rows;
        while free != 0 {
            let r = free.trailing_zeros() as usize;
            free &= free - 1;
            let (d, u) = (1u64 << (r + self.n - col), 1u64 << (r + col));
            if down & d != 0 || up & u != 0 {
                continue;
            }
            let mut ups = ups;
            if self.top >> r & 1 == 1 {
                ups[side] |= 1 << if side == 0 { col } else { self.n - 1 - col };
            }
            self.column(col + 1, rows | 1 << r, down | d, up | u, ups);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cut::keys::keys;

    #[test]
    fn psi_is_kept_by_the_mirror_and_the_upside_down_image() {
        for n in [4usize, 6, 8, 10, 12] {
            let all = mask_of(n as u32);
            for x in 0..=all {
                if x.count_ones() as usize != n / 2 {
                    continue;
                }
                let flipped = x.reverse_bits() >> (32 - n);
                assert_eq!(psi(n, x), psi(n, all & !x), "n={n} x={x:b}");
                assert_eq!(psi(n, x), psi(n, flipped), "n={n} x={x:b}");
            }
        }
    }

    #[test]
    fn weights_are_two_one_or_zero_by_the_larger_class() {
        assert_eq!(weight(5, 1, 3), 2);
        assert_eq!(weight(1, 5, 3), 2);
        assert_eq!(weight(3, 1, 3), 1);
        assert_eq!(weight(1, 3, 3), 1);
        assert_eq!(weight(1, 2, 3), 0);
    }

    /// The oracle's weights over every key (each with its orbit's size) sum to the board's
    /// solutions, and its weighted keys are not their solutions (else nothing is skipped).
    #[test]
    fn the_oracles_weights_sum_to_the_solutions() {
        for (n, solutions) in [(4u32, 2u128), (6, 4), (8, 92), (10, 724), (12, 14_200)] {
            let (mut sum, mut differ) = (0u128, 0);
            for key in keys(n, Symmetry::Full) {
                let (_, size) = key.entries(n, Symmetry::Full).next().unwrap();
                let w = search(n, key);
                let plain = crate::cut::search(n, Symmetry::None, key, crate::Kernel::Scalar);
                differ += usize::from(w != plain);
                sum += u128::from(size) * w;
            }
            assert_eq!(sum, solutions, "n={n}");
            if n >= 8 {
                assert!(differ > 0, "n={n}");
            }
        }
    }
}
