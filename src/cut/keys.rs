//! The join's parts: keys (the rows of the left half's queens, with the middle queen's on an
//! odd board), one per orbit of the symmetries that map keys to keys; and a key counted by
//! searching, the oracle the join is checked against part by part.

use crate::schedule::{Schedule, mask_of};
use crate::types::{Kernel, MAX_N, Symmetry};

/// One part of the join: the rows of the left columns' queens and, on an odd board, the
/// rows of the middle column's queen counted with them, each key with the size of its
/// orbit (the keys it stands for, each with the same count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// Bit `r`: row `r` holds a queen of the left columns.
    pub rows: u32,
    /// `(middle row, orbit size)`: one entry with no row on an even board; on an odd one
    /// the middle rows whose key is its orbit's representative (the left half-boards are
    /// built once for them all).
    pub middles: Vec<(Option<u8>, u8)>,
}

/// The keys of an `n`-board, one per orbit of the symmetries `symmetry` uses (none; the
/// mirror; the mirror and the upside-down image), in increasing order of rows; the keys
/// of one left row set form one part.
pub fn keys(n: u32, symmetry: Symmetry) -> Vec<Key> {
    let n = n as usize;
    let h = n / 2;
    let all = mask_of(n as u32);
    let flip = |x: u32| {
        if n == 0 {
            0
        } else {
            x.reverse_bits() >> (32 - n)
        }
    };
    let middles: Vec<Option<usize>> = if n % 2 == 1 {
        (0..n).map(Some).collect()
    } else {
        vec![None]
    };
    let code = |rows: u32, m: Option<usize>| (u64::from(rows) << 8) | m.map_or(0, |m| m as u64);
    let mut out = Vec::new();
    for rows in (0..=all).filter(|r| r.count_ones() as usize == h) {
        let mut key = Key {
            rows,
            middles: Vec::new(),
        };
        for &m in &middles {
            if m.is_some_and(|m| rows >> m & 1 == 1) {
                continue;
            }
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
            if images.iter().any(|&(r, m)| code(r, m) < me) {
                continue;
            }
            let mut orbit: Vec<u64> = images.iter().map(|&(r, m)| code(r, m)).collect();
            orbit.push(me);
            orbit.sort_unstable();
            orbit.dedup();
            key.middles.push((m.map(|m| m as u8), orbit.len() as u8));
        }
        if !key.middles.is_empty() {
            out.push(key);
        }
    }
    out
}

/// The solutions of the keys of `key`, each weighed by its orbit's size, counted by
/// searching (an oracle for the join, part by part): the board turned a quarter, its first
/// `h` rows closed outside the key's rows (and the middle row outside the middle queen's),
/// searched with `kernel`'s loop.
pub fn search(n: u32, key: &Key, kernel: Kernel) -> u128 {
    let h = n as usize / 2;
    let mut forbid = [0u32; MAX_N as usize];
    for f in forbid.iter_mut().take(h) {
        *f = mask_of(n) & !key.rows;
    }
    key.middles
        .iter()
        .map(|&(m, weight)| {
            if let Some(m) = m {
                forbid[h] = mask_of(n) & !(1 << m);
            }
            let s = Schedule::new(n, &[], &forbid);
            u128::from(weight) * kernel.count(&s, s.start())
        })
        .sum()
}
