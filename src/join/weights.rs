//! The quarter turn's weights: in full mode from n = 21 ([`WEIGHTED_FROM`]), the join counts
//! each solution 0, 1 or 2 times, so that the weights over the whole board sum to its
//! solutions while the pairs of weight 0 (about half of them) are never matched.
//!
//! ```text
//! weighed(key E, with its middle queen's row m on an odd board):
//!     even board:
//!         c = psi(E); a half-board's class is its top piece's  (psi, class)
//!         L>, R= ...: the left and right half-boards above c, at c, ...
//!         count 2 (L> x R>) + (L= x R>=) + (L> x R=)           (blocks; or R's ties first)
//!     odd board:
//!         c = |m - h|; a half-board's class is its middle row's queen's distance
//!         the side with the middle row counts its half-boards above c twice, the rest
//!         not at all                                           (from_middle)
//!     no pair with a half-board below c is matched
//! ```
//!
//! The keys stand for their orbits under the mirror and the upside-down image; the quarter
//! turn maps a solution of key `E` (the rows of the left columns' queens, with the middle
//! column's queen's row `m` on an odd board) to a solution of key `F` (the columns of the
//! bottom rows' queens, with the middle row's queen's column `f`), and a solution of `F`
//! back to one of an image of `E`. So with `psi` any function of a key that those images
//! keep, weighting each solution `1 + sign(psi(F) - psi(E))` pairs a weight of 2 with one
//! of 0 and a 1 with a 1 along every orbit of the quarter turn: the weights sum to the
//! solutions, for every such `psi`. What makes one `psi` better than another is how the
//! matching can leave the pairs of weight 0 out: a `psi` that gives each key dozens of
//! groups of half-boards (a sum over the queens) costs more matching than it skips.
//!
//! **Even boards.** `psi(X) = min(class(X's low half), class(X's high half, reversed))`,
//! `class` a hash of a half's `h`-bit set that its complement keeps (the mirror swaps a key
//! with its complement, the upside-down image reverses it). For a solution's `F`, the low
//! half is the left columns holding a bottom queen: the complement of the columns of its
//! left half-board's top piece; the high half, reversed, is the same of its right
//! half-board (built as a mirrored left one). So each half-board has a class fixed by its
//! top piece's column set (a span of the build), `a` on the left and `b` on the right, and
//! a solution weighs by `min(a, b)` against the key's `c = psi(E)`: with `L>` the left
//! half-boards whose class is above `c` (and so on), a key counts
//!
//! ```text
//! 2 (L> x R>)  +  (L= x R>=)  +  (L> x R=)
//! ```
//!
//! (the ties' blocks with the right side's class first where the matching's model of its
//! work finds that cheaper), and never matches a pair with a half-board below `c`. The
//! larger class in place of the smaller (four blocks, `2 (L> x R + L<= x R>) + ...`) skips
//! as many pairs, in more time (measured: results/zen3/2026-11-26-quarter-turn-weights/).
//!
//! **Odd boards.** `psi(X, m) = |m - h|`, the middle queen's distance from the middle row:
//! a solution weighs by how far its middle row's queen is from the middle column against
//! how far its middle column's queen is from the middle row. The middle row's queen is on
//! the left half-board where the key has the middle row, else on the right one (or it is
//! the middle queen, and every solution weighs 1); its bottom piece starts on that row and
//! carries the queen's class in the top bits of its word (`pieces::TAG`), and so does every
//! half-board built from it. So a middle row whose side has the classes counts that side's
//! half-boards above its class twice and the rest not at all. No solution weighs 1 there:
//! two queens as far from the middle, one on the middle row and one on the middle column,
//! share a diagonal, so the middle row's queen is never at the middle column's queen's
//! distance, and the join matches no ties on an odd board.
//!
//! [`search`] is the oracle: every solution of the key found by a plain backtracking search
//! of the board turned a quarter, and weighed on its own.

use crate::search::schedule::{MAX_N, mask_of};
use crate::types::Symmetry;

/// The least board whose join weighs its solutions. Below it a key's sides are so small
/// that the blocks' own costs (each block a matching of its own, its tables filled, an
/// even board's blocks of ties matching many probe words against a few) outweigh the pairs
/// skipped; from it on, the weights take less time than none (measured:
/// results/zen3/2026-11-26-quarter-turn-weights/).
pub const WEIGHTED_FROM: u32 = 21;

/// Whether the join of an `n`-board in `symmetry` weighs its solutions: full mode on a
/// board of at least [`WEIGHTED_FROM`]. A property of the board alone, so of the plan.
pub fn weighted(n: u32, symmetry: Symmetry) -> bool {
    symmetry == Symmetry::Full && n >= WEIGHTED_FROM
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
/// columns): the smaller class of its low half and of its high half reversed.
pub(super) fn psi(n: usize, x: u32) -> u32 {
    let h = n / 2;
    let low = x & mask_of(h as u32);
    let high = (x >> h).reverse_bits() >> (32 - h);
    class(h, low).min(class(h, high))
}

/// An odd board's class of a row or column `x`: its distance from the middle one, `h`
/// (the middle queen's for a key, the middle row's queen's for a half-board).
pub(super) fn from_middle(h: usize, x: usize) -> u32 {
    x.abs_diff(h) as u32
}

/// A solution's weight on an even board: its half-boards' classes `a` and `b` against its
/// key's `c`.
pub(super) fn weight(a: u32, b: u32, c: u32) -> u64 {
    weigh(a.min(b), c)
}

/// A solution's weight from its part of `psi`, `f`, against its key's, `c`: 2, 1 or 0.
pub(super) fn weigh(f: u32, c: u32) -> u64 {
    u64::from(f >= c) + u64::from(f > c)
}

/// Which half-boards of a side a block of pairs takes, by their class against the key's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Above,
    AtLeast,
    Equal,
}

impl Part {
    /// Whether a half-board of class `a` is in this part for a key of class `c`.
    pub(super) fn takes(self, a: u32, c: u32) -> bool {
        match self {
            Part::Above => a > c,
            Part::AtLeast => a >= c,
            Part::Equal => a == c,
        }
    }
}

/// The blocks of pairs an even board's weighed key counts (left part, right part, weight),
/// from the half-boards of each class on each side (`[below, equal, above]` the key's
/// class): both above it, twice; one of its class and the other at least that, once; the
/// ties' blocks with the left side's class first or the right's, whichever costs the less by
/// `work`, the model the matching picks its table by (the work of matching sides of so many
/// half-boards). The same count either way.
pub(super) fn blocks(
    left: [u64; 3],
    right: [u64; 3],
    work: impl Fn(f64, f64) -> f64,
) -> [(Part, Part, u64); 3] {
    let by_left = [
        (Part::Above, Part::Above, 2),
        (Part::Equal, Part::AtLeast, 1),
        (Part::Above, Part::Equal, 1),
    ];
    let by_right = by_left.map(|(l, r, w)| (r, l, w));
    let size = |side: [u64; 3], p: Part| -> f64 {
        let [_, equal, above] = side.map(|x| x as f64);
        match p {
            Part::Above => above,
            Part::AtLeast => equal + above,
            Part::Equal => equal,
        }
    };
    let cost = |blocks: &[(Part, Part, u64)]| -> f64 {
        let each = blocks
            .iter()
            .map(|&(l, r, _)| work(size(left, l), size(right, r)));
        each.sum()
    };
    if cost(&by_right) < cost(&by_left) {
        by_right
    } else {
        by_left
    }
}

/// The weighed solutions of an `n`-board whose left columns' queens take `rows` and whose
/// middle column's queen takes row `middle` (an odd board's), by a backtracking search of
/// the board turned a quarter: its rows the board's columns, the left ones taking their
/// queens on `rows`, the middle one on `middle`, the right ones on the rest. Each solution
/// found is weighed on its own, by the columns of its top queens on each side (an even
/// board) or its middle row's queen's (an odd one) against the key's: the oracle the join's
/// blocks are checked against, and what `keys::search` counts for an even board's weighed
/// key (an odd board's it counts with the search's loops, `by_middle_row`; the tests
/// compare the two).
pub fn search(n: u32, rows: u32, middle: Option<u8>) -> u128 {
    let (n, h) = (n as usize, n as usize / 2);
    let all = mask_of(n as u32);
    let mid = middle.map_or(0, |m| 1u32 << m);
    let mut walk = Walk {
        n,
        h,
        c: match middle {
            None => psi(n, rows),
            Some(m) => from_middle(h, m.into()),
        },
        sides: [rows, all & !rows & !mid, mid],
        total: 0,
    };
    let empty = Taken {
        rows: 0,
        down: 0,
        up: 0,
        ups: [0, 0],
        middle: h,
    };
    walk.column(0, empty);
    walk.total
}

/// The weighed solutions of an odd board's key on `rows` with its middle queen on row `m`,
/// from `count`, which counts the solutions of the board turned a quarter (its rows the
/// board's columns) within `forbid`, the key's squares: the middle row's queen put on each
/// column of the side that has the middle row in turn (the others closed to it), each count
/// times that column's weight; where `m` is the middle row, every solution weighs 1.
pub(super) fn by_middle_row(
    n: u32,
    rows: u32,
    m: u8,
    forbid: &[u32; MAX_N as usize],
    count: impl Fn(&[u32; MAX_N as usize]) -> u128,
) -> u128 {
    let (n, h) = (n as usize, n as usize / 2);
    if usize::from(m) == h {
        return count(forbid);
    }
    let c = from_middle(h, m.into());
    let columns = if rows >> h & 1 == 1 { 0..h } else { h + 1..n };
    columns
        .map(|j| {
            let w = weigh(from_middle(h, j), c);
            if w == 0 {
                return 0;
            }
            let mut on = *forbid;
            for (i, row) in on.iter_mut().enumerate().take(n) {
                *row |= if i == j {
                    mask_of(n as u32) & !(1 << h)
                } else {
                    1 << h
                };
            }
            u128::from(w) * count(&on)
        })
        .sum()
}

/// The oracle's search: one queen per column, left to right.
struct Walk {
    n: usize,
    h: usize,
    /// The key's class.
    c: u32,
    /// The rows the left columns' queens take, the right columns', the middle column's.
    sides: [u32; 3],
    total: u128,
}

/// What the oracle's queens placed so far take: `rows`, the diagonals `down` (row - col)
/// and `up` (row + col); `ups[s]` the columns of side `s` whose queen is a top one (a right
/// column `n - 1 - j` as bit `j`, as its mirrored half-board has it) and `middle` the
/// column of the middle row's queen (odd boards).
#[derive(Clone, Copy)]
struct Taken {
    rows: u32,
    down: u64,
    up: u64,
    ups: [u32; 2],
    middle: usize,
}

impl Walk {
    /// Places the queen of column `col` where the queens of the columns before it leave
    /// room (`taken`).
    fn column(&mut self, col: usize, taken: Taken) {
        let Taken {
            rows,
            down,
            up,
            ups,
            middle,
        } = taken;
        let (n, h) = (self.n, self.h);
        if col == n {
            let w = if n % 2 == 0 {
                weight(class(h, ups[0]), class(h, ups[1]), self.c)
            } else {
                weigh(from_middle(h, middle), self.c)
            };
            self.total += u128::from(w);
            return;
        }
        let side = if col < h {
            0
        } else if n % 2 == 1 && col == h {
            2
        } else {
            1
        };
        let mut free = self.sides[side] & !rows;
        while free != 0 {
            let r = free.trailing_zeros() as usize;
            free &= free - 1;
            let (d, u) = (1u64 << (r + n - col), 1u64 << (r + col));
            if down & d != 0 || up & u != 0 {
                continue;
            }
            let mut ups = ups;
            if r < h && side < 2 {
                ups[side] |= 1 << if side == 0 { col } else { n - 1 - col };
            }
            let middle = if n % 2 == 1 && r == h { col } else { middle };
            let taken = Taken {
                rows: rows | 1 << r,
                down: down | d,
                up: up | u,
                ups,
                middle,
            };
            self.column(col + 1, taken);
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::join::keys::{Key, keys};

    /// The weighed solutions of `key` in full mode by [`search`]: each entry (middle row)'s,
    /// times its orbit's size.
    pub(in crate::join) fn weighed(n: u32, key: Key) -> u128 {
        key.entries(n, Symmetry::Full)
            .map(|(m, size)| u128::from(size) * search(n, key.rows, m))
            .sum()
    }

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
    fn weights_are_two_one_or_zero_by_the_smaller_class() {
        assert_eq!(weight(5, 4, 3), 2);
        assert_eq!(weight(4, 5, 3), 2);
        assert_eq!(weight(3, 5, 3), 1);
        assert_eq!(weight(5, 3, 3), 1);
        assert_eq!(weight(5, 2, 3), 0);
        assert_eq!(weigh(2, 3), 0);
        assert_eq!(weigh(3, 3), 1);
        assert_eq!(weigh(4, 3), 2);
    }

    /// An odd board's two weighings agree key by key: the middle row's queen put on each
    /// column in turn with the search's loops, and every solution weighed on its own.
    #[test]
    fn both_weighings_of_an_odd_board_agree() {
        for n in [7u32, 9, 11, 13] {
            for (i, key) in keys(n, Symmetry::Full).into_iter().enumerate() {
                let kernel = [crate::Kernel::Scalar, crate::Kernel::Auto][i % 2];
                let by_rows =
                    crate::join::keys::search_weighed(n, Symmetry::Full, key, kernel, true);
                assert_eq!(by_rows, weighed(n, key), "n={n} {key:?}");
            }
        }
    }

    /// The oracle's weights over every key (each with its orbit's size) sum to the board's
    /// solutions, and its weighted keys are not their solutions (else nothing is skipped).
    #[test]
    fn the_oracles_weights_sum_to_the_solutions() {
        for n in 4..=13 {
            let (mut sum, mut differ) = (0u128, 0);
            for key in keys(n, Symmetry::Full) {
                let w = weighed(n, key);
                let plain = crate::join::search(n, Symmetry::Full, key, crate::Kernel::Scalar);
                differ += usize::from(w != plain);
                sum += w;
            }
            assert_eq!(Some(sum), crate::published::all(n), "n={n}");
            if n >= 8 {
                assert!(differ > 0, "n={n}");
            }
        }
    }
}
