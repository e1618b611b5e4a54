//! The join's parts: keys (the rows of the left half's queens, with the middle queen's on an
//! odd board), one per orbit of the symmetries that map keys to keys; and a key counted by
//! searching, the oracle the join is checked against part by part.
//!
//! ```text
//! keys(n):
//!     for each set E of h rows (with each middle row m left free, on an odd board):
//!         keep (E, m) where it is the least of its images (by rows, then middle row)
//!             under the symmetries the mode uses (the mirror, the upside-down image)
//!         weigh it by the size of its orbit
//! ```

use rayon::prelude::*;

use crate::search::schedule::{Schedule, mask_of};
use crate::types::{Kernel, MAX_N, Symmetry};

/// One key of the join, with the middle rows that go with it on an odd board: the rows of
/// the left columns' queens and the rows of the middle column's queen whose key is its
/// orbit's representative (the left half-boards are built once for them all). Each stands
/// for the keys of its orbit, which have the same count ([`Key::entries`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Bit `r`: row `r` holds a queen of the left columns.
    pub rows: u32,
    /// Bit `m`: the middle queen on row `m` (odd boards; 0 on an even board).
    pub middles: u32,
}

impl Key {
    /// Each middle row (`None` on an even board) with the size of its orbit under the
    /// symmetries `symmetry` uses: the number of keys it stands for.
    pub fn entries(self, n: u32, symmetry: Symmetry) -> impl Iterator<Item = (Option<u8>, u8)> {
        self.middle_rows(n).map(move |m| {
            let size = orbit(n as usize, symmetry, self.rows, m);
            let size = size.expect("a key's middle rows are its orbits' representatives");
            (m.map(|m| m as u8), size)
        })
    }

    /// Each middle row of the key; one `None` on an even board.
    fn middle_rows(self, n: u32) -> impl Iterator<Item = Option<usize>> {
        let odd = n % 2 == 1;
        let rows = (0..n as usize).filter(move |&m| odd && self.middles >> m & 1 == 1);
        rows.map(Some).chain((!odd).then_some(None))
    }
}

/// The size of the orbit of key `(rows, m)` under the symmetries `symmetry` uses (none;
/// the mirror; the mirror and the upside-down image), or `None` where it is not the
/// orbit's representative (the smallest by rows, then middle row).
fn orbit(n: usize, symmetry: Symmetry, rows: u32, m: Option<usize>) -> Option<u8> {
    let all = mask_of(n as u32);
    let flip = |x: u32| {
        if n == 0 {
            0
        } else {
            x.reverse_bits() >> (32 - n)
        }
    };
    let code = |rows: u32, m: Option<usize>| (u64::from(rows) << 8) | m.map_or(0, |m| m as u64);
    let mid = m.map_or(0, |m| 1 << m);
    let mirror = (all ^ rows ^ mid, m);
    let flipped = (flip(rows), m.map(|m| n - 1 - m));
    let both = (flip(all ^ rows ^ mid), flipped.1);
    let images: &[(u32, Option<usize>)] = match symmetry {
        Symmetry::None => &[],
        Symmetry::Mirror => &[mirror],
        Symmetry::Full => &[mirror, flipped, both],
    };
    let me = code(rows, m);
    let mut orbit = [me; 4];
    for (o, &(r, m)) in orbit.iter_mut().zip(images) {
        *o = code(r, m);
        if *o < me {
            return None;
        }
    }
    let orbit = &mut orbit[..=images.len()];
    orbit.sort_unstable();
    Some(1 + orbit.windows(2).filter(|w| w[0] != w[1]).count() as u8)
}

/// The keys of an `n`-board, one per orbit of the symmetries `symmetry` uses (none; the
/// mirror; the mirror and the upside-down image), in increasing order of rows: every set
/// of `n / 2` rows with a representative (on an odd board, each with the middle rows that
/// make one). Found in parallel, one block of row sets per pattern of the top rows.
pub fn keys(n: u32, symmetry: Symmetry) -> Vec<Key> {
    let h = n / 2;
    let top = n.min(8);
    let low = n - top;
    (0..1u32 << top)
        .into_par_iter()
        .filter(|high| high.count_ones() <= h && h - high.count_ones() <= low)
        .map(|high| {
            let mut out = Vec::new();
            for below in subsets(low, h - high.count_ones()) {
                let rows = high << low | below;
                if let Some(key) = key_of(n, symmetry, rows) {
                    out.push(key);
                }
            }
            out
        })
        .flatten_iter()
        .collect()
}

/// Every `k`-subset of `0..bits` as a mask, in increasing order (Gosper's next-combination
/// step).
fn subsets(bits: u32, k: u32) -> impl Iterator<Item = u32> {
    let first: u64 = (1 << k) - 1;
    std::iter::successors(Some(first), move |&x| {
        if x == 0 {
            return None;
        }
        let low = x & x.wrapping_neg();
        let up = x + low;
        Some(up | (((x ^ up) >> 2) / low))
    })
    .take_while(move |&x| x < 1 << bits)
    .map(|x| x as u32)
}

/// The key on `rows`, with the middle rows whose keys represent their orbits, if any do.
fn key_of(n: u32, symmetry: Symmetry, rows: u32) -> Option<Key> {
    let nz = n as usize;
    if n.is_multiple_of(2) {
        return orbit(nz, symmetry, rows, None).map(|_| Key { rows, middles: 0 });
    }
    let middles = (0..nz)
        .filter(|&m| rows >> m & 1 == 0 && orbit(nz, symmetry, rows, Some(m)).is_some())
        .fold(0, |acc, m| acc | 1 << m);
    (middles != 0).then_some(Key { rows, middles })
}

/// A relative estimate of the time counting `key` takes, from an estimate of its
/// half-boards on each side (`Estimate`): building them, and matching (about one word
/// step per 512 pairs). It only orders the parts, weights progress and balances shards; it
/// is the same on every machine (IEEE multiplies, divides and adds in a fixed order, no
/// fused steps or library functions).
pub fn cost(n: u32, key: Key) -> u64 {
    let all = mask_of(n);
    let e = Estimate::new(n);
    let left = e.half_boards(key.rows);
    let rest = all ^ key.rows;
    let others = e.half_boards(rest);
    let mut time = 1.0;
    for m in key.middle_rows(n) {
        let (kept, right) = match m {
            None => (left, others),
            Some(m) => (
                left * e.missed(key.rows, m),
                e.without(others, rest, m) * e.missed(rest ^ 1 << m, m),
            ),
        };
        time += kept + right + kept * right / 512.0;
    }
    time as u64
}

/// An estimate of the half-boards on a set of rows (one queen in each of the `h = n / 2`
/// columns of a half, none attacking another): the `h!` ways to give the rows columns,
/// times the chance that no two queens share a diagonal, taken as independent per pair of
/// rows (two rows `d < h` apart share one in `2(h - d)` of the `h(h - 1)` ordered pairs of
/// columns: `apart[d]` is the chance they do not).
struct Estimate {
    n: usize,
    h: usize,
    orders: f64,
    apart: [f64; 32],
    /// `missed[k]`: the chance that `k` queens near the middle queen all miss it.
    missed: [f64; 33],
}

impl Estimate {
    fn new(n: u32) -> Estimate {
        let (n, h) = (n as usize, n as usize / 2);
        let mut apart = [1.0; 32];
        if h >= 2 {
            let pairs = (h * (h - 1)) as f64;
            for (d, a) in apart.iter_mut().enumerate().take(h).skip(1) {
                *a = 1.0 - 2.0 * (h - d) as f64 / pairs;
            }
        }
        let mut missed = [1.0; 33];
        for k in 1..missed.len() {
            missed[k] = missed[k - 1] * (1.0 - 1.0 / h.max(1) as f64);
        }
        Estimate {
            n,
            h,
            orders: (1..=h).map(|k| k as f64).product(),
            apart,
            missed,
        }
    }

    /// The rows at most `reach` rows from `m`, `m` itself aside.
    fn near(&self, m: usize, reach: usize) -> u64 {
        let band = (1u64 << (2 * reach + 1)) - 1;
        (band << m >> reach) & !(1 << m)
    }

    /// The estimate for the queens on `rows`.
    fn half_boards(&self, rows: u32) -> f64 {
        let (rows, reach) = (u64::from(rows), (1u64 << self.h.saturating_sub(1)) - 1);
        let mut count = self.orders;
        for a in Bits(rows) {
            for j in Bits((rows >> (a + 1)) & reach) {
                count *= self.apart[j + 1];
            }
        }
        count
    }

    /// `count`, the estimate for `rows`, for `rows` without row `m`: its pairs divided out.
    fn without(&self, count: f64, rows: u32, m: usize) -> f64 {
        let close = u64::from(rows) & self.near(m, self.h.saturating_sub(1));
        Bits(close).fold(count, |c, r| c / self.apart[r.abs_diff(m)])
    }

    /// The chance that the queens on `rows` miss the middle queen on row `m`: a queen `d`
    /// rows from it, `1 <= d <= h`, is on its diagonal in one of `h` columns.
    fn missed(&self, rows: u32, m: usize) -> f64 {
        let close = u64::from(rows) & self.near(m, self.h) & ((1 << self.n) - 1);
        self.missed[close.count_ones() as usize]
    }
}

/// The positions of a word's set bits, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let b = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            b
        })
    }
}

/// The solutions of the keys of `key`, each weighed by its orbit's size, counted by
/// searching (an oracle for the join, part by part): the board turned a quarter, its first
/// `h` rows closed outside the key's rows (and the middle row outside the middle queen's),
/// searched with `kernel`'s loop. Where the join weighs its solutions by the quarter turn
/// ([`super::weights`]), the same weights: on an odd board, the middle row's queen put on
/// each column of its side in turn (`weights::by_middle_row`); on an even board,
/// by a plain backtracking search that weighs every solution it finds
/// ([`super::weights::search`]).
pub fn search(n: u32, symmetry: Symmetry, key: Key, kernel: Kernel) -> u128 {
    search_weighed(
        n,
        symmetry,
        key,
        kernel,
        super::weights::weighted(n, symmetry),
    )
}

/// [`search`], weighing the solutions where `weighed`.
pub(super) fn search_weighed(
    n: u32,
    symmetry: Symmetry,
    key: Key,
    kernel: Kernel,
    weighed: bool,
) -> u128 {
    let h = n as usize / 2;
    let mut forbid = [0u32; MAX_N as usize];
    for f in forbid.iter_mut().take(h) {
        *f = mask_of(n) & !key.rows;
    }
    let count = |forbid: &[u32; MAX_N as usize]| {
        let s = Schedule::new(n, &[], forbid);
        kernel.count(&s, s.start())
    };
    key.entries(n, symmetry)
        .map(|(m, size)| {
            if let Some(m) = m {
                forbid[h] = mask_of(n) & !(1 << m);
            }
            let found = match m {
                None if weighed => super::weights::search(n, key.rows, None),
                Some(m) if weighed => super::weights::by_middle_row(n, key.rows, m, &forbid, count),
                _ => count(&forbid),
            };
            u128::from(size) * found
        })
        .sum()
}
