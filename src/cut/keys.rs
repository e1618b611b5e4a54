//! The join's parts: keys (the rows of the left half's queens, with the middle queen's on an
//! odd board), one per orbit of the symmetries that map keys to keys; and a key counted by
//! searching, the oracle the join is checked against part by part.

use crate::schedule::{Schedule, mask_of};
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
/// make one).
pub fn keys(n: u32, symmetry: Symmetry) -> Vec<Key> {
    let h = n / 2;
    let nz = n as usize;
    let mut out = Vec::new();
    // Every `h`-subset of the rows in increasing order (Gosper's next-combination step).
    let mut rows: u64 = (1 << h) - 1;
    while rows < 1 << n {
        let r = rows as u32;
        let middles = if n % 2 == 1 {
            (0..nz)
                .filter(|&m| r >> m & 1 == 0 && orbit(nz, symmetry, r, Some(m)).is_some())
                .fold(0, |acc, m| acc | 1 << m)
        } else {
            0
        };
        if middles != 0 || (n.is_multiple_of(2) && orbit(nz, symmetry, r, None).is_some()) {
            out.push(Key { rows: r, middles });
        }
        if rows == 0 {
            break;
        }
        let low = rows & rows.wrapping_neg();
        let up = rows + low;
        rows = up | (((rows ^ up) >> 2) / low);
    }
    out
}

/// A relative estimate of the time counting `key` takes, from an estimate of its
/// half-boards on each side ([`half_boards`]): building them, and matching (about one
/// word step per 512 pairs). It only orders the parts, weights progress and balances
/// shards; it is the same on every machine (IEEE multiplies, divides and adds, no fused
/// steps or library functions).
pub fn cost(n: u32, key: Key) -> u64 {
    let all = mask_of(n);
    let left = half_boards(n, key.rows, None);
    let mut time = 1.0;
    for m in key.middle_rows(n) {
        let mid = m.map_or(0, |m| 1 << m);
        let right = half_boards(n, all ^ key.rows ^ mid, m);
        let kept = m.map_or(left, |m| left * missed(n, key.rows, m));
        time += kept + right + kept * right / 512.0;
    }
    time as u64
}

/// An estimate of the half-boards on `rows` (one queen in each of the `h = n / 2` columns
/// of a half, none attacking another, nor the middle queen on row `m`): the `h!` ways to
/// give the rows columns, times the chance that no two queens share a diagonal, taken as
/// independent per pair of rows (two rows `d < h` apart share one in `2(h - d)` of the
/// `h(h - 1)` ordered pairs of columns).
fn half_boards(n: u32, rows: u32, m: Option<usize>) -> f64 {
    let h = n as usize / 2;
    let on: Vec<usize> = (0..n as usize).filter(|&r| rows >> r & 1 == 1).collect();
    let mut count: f64 = (1..=h).map(|k| k as f64).product();
    if h < 2 {
        return count;
    }
    let pairs = (h * (h - 1)) as f64;
    for (i, &a) in on.iter().enumerate() {
        for &b in &on[i + 1..] {
            let d = b - a;
            if d < h {
                count *= 1.0 - 2.0 * (h - d) as f64 / pairs;
            }
        }
    }
    match m {
        Some(m) => count * missed(n, rows, m),
        None => count,
    }
}

/// The chance that the queens on `rows` miss the middle queen on row `m`: a queen `d` rows
/// from it, `1 <= d <= h`, is on its diagonal in one of `h` columns.
fn missed(n: u32, rows: u32, m: usize) -> f64 {
    let h = n as usize / 2;
    (0..n as usize)
        .filter(|&r| rows >> r & 1 == 1 && (1..=h).contains(&r.abs_diff(m)))
        .fold(1.0, |p, _| p * (1.0 - 1.0 / h as f64))
}

/// The solutions of the keys of `key`, each weighed by its orbit's size, counted by
/// searching (an oracle for the join, part by part): the board turned a quarter, its first
/// `h` rows closed outside the key's rows (and the middle row outside the middle queen's),
/// searched with `kernel`'s loop.
pub fn search(n: u32, symmetry: Symmetry, key: Key, kernel: Kernel) -> u128 {
    let h = n as usize / 2;
    let mut forbid = [0u32; MAX_N as usize];
    for f in forbid.iter_mut().take(h) {
        *f = mask_of(n) & !key.rows;
    }
    key.entries(n, symmetry)
        .map(|(m, weight)| {
            if let Some(m) = m {
                forbid[h] = mask_of(n) & !(1 << m);
            }
            let s = Schedule::new(n, &[], &forbid);
            u128::from(weight) * kernel.count(&s, s.start())
        })
        .sum()
}
