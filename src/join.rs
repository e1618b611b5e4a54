//! The join method: instead of searching the tree below a node to its leaves, the free rows
//! below it are cut into an upper and a lower part; the lower part's placements are
//! enumerated once (from the bottom up) and grouped by the columns they use, and each
//! placement of the upper part is matched against the one group whose columns complete it.
//!
//! Both parts are described on the first row of the lower part (row `r`): the upper part by
//! its columns and the diagonals its queens send down across row `r`, the lower part by its
//! columns and the diagonals its queens send up across row `r` (its own queen on `r`
//! included). A diagonal that crosses row `r` is one line through both parts, and one that
//! misses row `r` (it leaves the board at a side first) meets no queen of the other part;
//! so an upper and a lower placement make a solution exactly when their columns are
//! complementary and their diagonal masks on row `r` are disjoint. Matching two groups is
//! then a count of the pairs of 64-bit words that share no bit: with AVX-512 each lower word
//! is loaded once, eight to a register, and tested against every upper word of its group;
//! with AVX2 each upper word is tested against the lower group eight words a step.
//!
//! The lower part is stored within half the memory budget, the split row moving down until
//! it fits; the upper part is matched a chunk at a time within the other half. Where even
//! two lower rows would not fit, or the part below the node is too shallow to split, the
//! node is searched instead. A thread keeps the last lower part it built: the subproblems of
//! one root (which a join run takes together) share it.

use crate::schedule::{Schedule, State};
use crate::types::Kernel;

/// A placement's two diagonal masks on the split row, packed: the down-right (upper part)
/// or up-left (lower part) lines in the high half, the other direction in the low half.
type Packed = u64;

/// Bytes per stored placement: its key and word as found (12, up to twice that while the
/// vectors grow by doubling), and its word grouped (8).
const BYTES_PER_PLACEMENT: usize = 32;

/// Boards the join handles: a direct index of every column set (`2^n` entries) groups the
/// placements; larger boards are searched.
pub const MAX_N: u32 = 24;

/// Bytes a join over an `n`-board needs before any placement is stored (two indexes).
pub fn fixed_bytes(n: u32) -> usize {
    if n <= MAX_N { 2 * (4 << n) } else { 0 }
}

/// Number of ways to complete the board below `start`, joined within about `budget` bytes:
/// half for the lower part, half for the upper part, which is matched a chunk at a time.
/// Where the join does not apply (a board over [`MAX_N`], a node too near the bottom) or
/// the lower part would not fit even with two rows, the node is searched with `kernel`.
pub fn count(s: &Schedule, start: State, budget: usize, kernel: Kernel) -> u128 {
    let levels = s.levels;
    if s.n > MAX_N || start.level + 4 > levels {
        return kernel.count(s, start);
    }
    let half = budget.saturating_sub(fixed_bytes(s.n)) / 2 / BYTES_PER_PLACEMENT;
    let room = half.max(1);
    // The lower part takes the bottom half of the rows below the node (on Zen 4 at n = 17
    // and 18, a split one row lower was slower and one row higher no faster); fewer rows
    // where that would not fit. It keeps two rows at least, and the upper part one.
    let mut m = start.level + (levels - start.level).div_ceil(2);
    SCRATCH.with_borrow_mut(|scratch| {
        if scratch.n != s.n {
            let size = 1usize << s.n;
            *scratch = Scratch {
                n: s.n,
                lower: vec![0; size],
                upper: vec![0; size],
                last: None,
            };
        }
        // The lower part depends on the schedule alone: the subproblems of one root, which
        // a join run counts one after another, build it once.
        let reuse = matches!(&scratch.last, Some((schedule, lower, fit))
            if schedule == s && lower.m >= m && *fit == room);
        if !reuse {
            scratch.last = None;
            while m + 2 <= levels {
                if let Some(lower) = Lower::build(s, m, room, &mut scratch.upper) {
                    scratch.last = Some((s.clone(), lower, room));
                    break;
                }
                m += 1;
            }
        }
        match &scratch.last {
            Some((_, lower, _)) if lower.m > start.level => {
                lower.join(s, start, room, &mut scratch.lower, &mut scratch.upper)
            }
            _ => kernel.count(s, start),
        }
    })
}

/// Placements grouped by their columns: `masks[ranges[g].0..ranges[g].1]` are those of
/// column set `keys[g]`.
struct Grouped {
    keys: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    masks: Vec<Packed>,
}

impl Grouped {
    /// Groups `found` with a counting sort on the column set, using `slot` (one entry per
    /// column set of the board, all zero; left all zero) as its counters.
    fn new(found: &Found, slot: &mut [u32]) -> Grouped {
        let mut keys = Vec::new();
        for &c in &found.keys {
            let n = &mut slot[c as usize];
            if *n == 0 {
                keys.push(c);
            }
            *n += 1;
        }
        let mut ranges = Vec::with_capacity(keys.len());
        let mut at = 0u32;
        for &k in &keys {
            let len = slot[k as usize];
            ranges.push((at, at + len));
            slot[k as usize] = at;
            at += len;
        }
        let mut masks = vec![0; found.len()];
        for (&c, &p) in found.keys.iter().zip(&found.words) {
            let i = &mut slot[c as usize];
            masks[*i as usize] = p;
            *i += 1;
        }
        for &k in &keys {
            slot[k as usize] = 0;
        }
        Grouped {
            keys,
            ranges,
            masks,
        }
    }

    /// Group `g`'s placements.
    fn group(&self, g: usize) -> &[Packed] {
        let (lo, hi) = self.ranges[g];
        &self.masks[lo as usize..hi as usize]
    }
}

/// Per-thread scratch: two tables with an entry per column set of the board, all zero
/// between uses.
struct Scratch {
    n: u32,
    lower: Vec<u32>,
    upper: Vec<u32>,
    /// The last lower part built: its schedule, itself, and the room it was built in.
    last: Option<(Schedule, Lower, usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch { n: 0, lower: Vec::new(), upper: Vec::new(), last: None })
    };
}

/// The lower part's placements, grouped by their columns.
struct Lower {
    /// The first level of the lower part.
    m: usize,
    grouped: Grouped,
}

impl Lower {
    /// Enumerates levels `m..levels` of `s` from the bottom up and groups them; `None` if
    /// there are more than `room` placements.
    fn build(s: &Schedule, m: usize, room: usize, slot: &mut [u32]) -> Option<Lower> {
        let mut found = Found::default();
        if !walk_lower(s, m, room, &mut found) {
            return None;
        }
        Some(Lower {
            m,
            grouped: Grouped::new(&found, slot),
        })
    }

    /// Matches the upper part's placements below `start` with the groups, `room` of them
    /// at a time: the number of completions below `start`. Each chunk of upper placements
    /// is grouped by its columns too, so each pair of groups is matched in one pass: every
    /// lower word is loaded once and tested against each upper word of its group.
    /// `lookup` and `slot` are scratch tables as [`Grouped::new`] takes them.
    fn join(
        &self,
        s: &Schedule,
        start: State,
        room: usize,
        lookup: &mut [u32],
        slot: &mut [u32],
    ) -> u128 {
        // lookup[cols] = 1 + the lower group of those columns.
        for (g, &k) in self.grouped.keys.iter().enumerate() {
            lookup[k as usize] = g as u32 + 1;
        }
        let mut total = 0u128;
        let mut walk = Upper::new(s, start, self.m);
        let mut found = Found::default();
        loop {
            found.clear();
            let more = walk.fill(&mut found, room);
            let upper = Grouped::new(&found, slot);
            for (g, &k) in upper.keys.iter().enumerate() {
                if let Some(l) = lookup[k as usize].checked_sub(1) {
                    total += u128::from(pairs(self.grouped.group(l as usize), upper.group(g)));
                }
            }
            if !more {
                break;
            }
        }
        for &k in &self.grouped.keys {
            lookup[k as usize] = 0;
        }
        total
    }
}

/// Placements as they are found: the column sets they leave or take, and their packed
/// diagonal masks on the split row.
#[derive(Default)]
struct Found {
    keys: Vec<u32>,
    words: Vec<Packed>,
}

impl Found {
    fn clear(&mut self) {
        self.keys.clear();
        self.words.clear();
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline(always)]
    fn push(&mut self, key: u32, word: Packed) {
        self.keys.push(key);
        self.words.push(word);
    }
}

/// The upper part: every placement of levels `start.level..m` below `start`, as the column
/// set it leaves to the lower part and its diagonals on level `m`'s row, found a chunk at a
/// time. An explicit stack; the last upper level is a loop over its open squares.
struct Upper<'a> {
    s: &'a Schedule,
    top: usize,
    last: usize,
    stack: [(u32, u32, u32, u32); 32],
    l: usize,
    node: (u32, u32, u32, u32),
    finished: bool,
}

impl<'a> Upper<'a> {
    fn new(s: &'a Schedule, start: State, m: usize) -> Upper<'a> {
        debug_assert!(start.level < m);
        Upper {
            s,
            top: start.level,
            last: m - 1,
            stack: [(0, 0, 0, 0); 32],
            l: start.level,
            node: (s.open(&start), start.cols, start.ld, start.rd),
            finished: false,
        }
    }

    /// Appends placements to `out` until it holds `cap` or more; false once every one has
    /// been found.
    fn fill(&mut self, out: &mut Found, cap: usize) -> bool {
        let s = self.s;
        let full = s.full;
        let (mut l, (mut open, mut cols, mut ld, mut rd)) = (self.l, self.node);
        while !self.finished && out.len() < cap {
            if l == self.last {
                let sh = s.shift[l & 31];
                while open != 0 {
                    let bit = open & open.wrapping_neg();
                    open ^= bit;
                    let (d, a) = (((ld | bit) << sh) & full, (rd | bit) >> sh);
                    out.push(full & !(cols | bit), u64::from(d) << 32 | u64::from(a));
                }
            }
            if open == 0 {
                if l == self.top {
                    self.finished = true;
                    break;
                }
                l -= 1;
                (open, cols, ld, rd) = self.stack[l & 31];
                continue;
            }
            let bit = open & open.wrapping_neg();
            open ^= bit;
            let sh = s.shift[l & 31];
            let (nc, nl, nr) = (cols | bit, (ld | bit) << sh, (rd | bit) >> sh);
            let next = full & !(nc | nl | nr | s.pre[(l + 1) & 31]);
            if next != 0 {
                self.stack[l & 31] = (open, cols, ld, rd);
                (open, cols, ld, rd) = (next, nc, nl, nr);
                l += 1;
            }
        }
        (self.l, self.node) = (l, (open, cols, ld, rd));
        !self.finished
    }
}

/// The lower part, from the last level up to level `m`: every placement, as the columns it
/// takes and its diagonals on level `m`'s row (its own queen there included); false as
/// soon as there are more than `room`. An explicit stack; level `m` is a loop.
fn walk_lower(s: &Schedule, m: usize, room: usize, out: &mut Found) -> bool {
    let full = s.full;
    let bottom = s.levels - 1;
    debug_assert!(m < bottom);
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    // `ul` and `ur`: the lines going up-left and up-right, as seen on level `l`'s row.
    let (mut l, mut cols, mut ul, mut ur) = (bottom, 0u32, 0u32, 0u32);
    let mut open = full & !(s.fixed_cols | s.pre[bottom]);
    loop {
        if l == m {
            while open != 0 {
                let bit = open & open.wrapping_neg();
                open ^= bit;
                // An up-left line seen from below is a down-right one seen from above.
                out.push(cols | bit, u64::from(ul | bit) << 32 | u64::from(ur | bit));
            }
            if out.len() > room {
                return false;
            }
        }
        if open == 0 {
            if l == bottom {
                return true;
            }
            l += 1;
            (open, cols, ul, ur) = stack[l & 31];
            continue;
        }
        let bit = open & open.wrapping_neg();
        open ^= bit;
        let sh = s.shift[(l - 1) & 31];
        let (nc, nu, nr) = (cols | bit, (ul | bit) >> sh, ((ur | bit) << sh) & full);
        let next = full & !(nc | s.fixed_cols | nu | nr | s.pre[(l - 1) & 31]);
        if next != 0 {
            stack[l & 31] = (open, cols, ul, ur);
            (open, cols, ul, ur) = (next, nc, nu, nr);
            l -= 1;
        }
    }
}

/// How many pairs of a word of `lower` and a word of `upper` share no bit.
fn pairs(lower: &[Packed], upper: &[Packed]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::simd::Lanes::Avx512.available() {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { wide::pairs512(lower, upper) };
        }
    }
    upper.iter().map(|&u| disjoint(lower, u)).sum()
}

/// How many words of `group` share no bit with `word` (for [`pairs`] on CPUs without
/// AVX-512).
fn disjoint(group: &[Packed], word: Packed) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::simd::Lanes::Avx2.available() {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { wide::disjoint256(group, word) };
        }
    }
    group.iter().filter(|&&b| b & word == 0).count() as u64
}

#[cfg(target_arch = "x86_64")]
mod wide {
    use std::arch::x86_64::*;

    /// [`super::pairs`] with AVX-512: eight lower words loaded once, tested against every
    /// upper word (broadcast).
    #[target_feature(enable = "avx512f")]
    pub(super) fn pairs512(lower: &[u64], upper: &[u64]) -> u64 {
        let one = _mm512_set1_epi64(1);
        let (mut a, mut b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut chunks = lower.chunks(8);
        for c in &mut chunks {
            let k = ((1u16 << c.len()) - 1) as u8;
            // SAFETY: the mask covers the `c.len()` (at most 8) words of `c`; masked-off
            // lanes are not read.
            let x = unsafe { _mm512_maskz_loadu_epi64(k, c.as_ptr().cast()) };
            let mut pair = upper.chunks_exact(2);
            for u in &mut pair {
                let (p, q) = (
                    _mm512_set1_epi64(u[0] as i64),
                    _mm512_set1_epi64(u[1] as i64),
                );
                a = _mm512_mask_add_epi64(a, _mm512_mask_testn_epi64_mask(k, x, p), a, one);
                b = _mm512_mask_add_epi64(b, _mm512_mask_testn_epi64_mask(k, x, q), b, one);
            }
            for &u in pair.remainder() {
                let p = _mm512_set1_epi64(u as i64);
                a = _mm512_mask_add_epi64(a, _mm512_mask_testn_epi64_mask(k, x, p), a, one);
            }
        }
        _mm512_reduce_add_epi64(_mm512_add_epi64(a, b)) as u64
    }

    /// [`super::disjoint`] eight words a step with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn disjoint256(group: &[u64], word: u64) -> u64 {
        let w = _mm256_set1_epi64x(word as i64);
        let zero = _mm256_setzero_si256();
        let (mut a, mut b) = (zero, zero);
        let mut chunks = group.chunks_exact(8);
        for c in &mut chunks {
            // SAFETY: each load reads 4 u64 (32 bytes) inside the 8 of `c`; unaligned.
            let (x, y) = unsafe {
                (
                    _mm256_loadu_si256(c.as_ptr().cast()),
                    _mm256_loadu_si256(c[4..].as_ptr().cast()),
                )
            };
            a = _mm256_sub_epi64(a, _mm256_cmpeq_epi64(_mm256_and_si256(x, w), zero));
            b = _mm256_sub_epi64(b, _mm256_cmpeq_epi64(_mm256_and_si256(y, w), zero));
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 4 u64, the 32 bytes the store writes; unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi64(a, b)) };
        let rest = chunks
            .remainder()
            .iter()
            .filter(|&&x| x & word == 0)
            .count() as u64;
        lanes.iter().sum::<u64>() + rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every matching path this CPU has agrees with the plain count, whatever the lengths
    /// (full steps and every remainder).
    #[test]
    fn every_matching_path_counts_disjoint_pairs_exactly() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // About a quarter of the bits set, so that some pairs are disjoint.
            x & x.rotate_left(21)
        };
        for len in [0usize, 1, 3, 7, 8, 9, 15, 16, 17, 40, 131] {
            let lower: Vec<u64> = (0..len).map(|_| next()).collect();
            let upper: Vec<u64> = (0..len % 7 + 1).map(|_| next()).collect();
            let plain: u64 = upper
                .iter()
                .map(|&u| lower.iter().filter(|&&l| l & u == 0).count() as u64)
                .sum();
            assert_eq!(pairs(&lower, &upper), plain, "len {len}");
            #[cfg(target_arch = "x86_64")]
            {
                use crate::simd::Lanes;
                if Lanes::Avx2.available() {
                    // SAFETY: the CPU has AVX2, checked just above.
                    let avx2: u64 = upper
                        .iter()
                        .map(|&u| unsafe { wide::disjoint256(&lower, u) })
                        .sum();
                    assert_eq!(avx2, plain, "AVX2, len {len}");
                }
                if Lanes::Avx512.available() {
                    // SAFETY: the CPU has AVX-512F, checked just above.
                    let avx512 = unsafe { wide::pairs512(&lower, &upper) };
                    assert_eq!(avx512, plain, "AVX-512, len {len}");
                }
            }
        }
    }
}
