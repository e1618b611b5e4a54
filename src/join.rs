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
//! Most pairs share a bit. A large lower group is therefore ordered by two of its bits (the
//! ones its placements set most often near the middle of the row), and each upper placement
//! is grouped under its own values of those bits, so that an upper placement with one of
//! them set skips the lower placements that have it set too: at n = 18 that skips 40% of
//! the pairs.
//!
//! The lower part is stored within half the memory budget, the split row moving down until
//! it fits; the upper part is matched a chunk at a time within the other half. Where even
//! two lower rows would not fit, or the part below the node is too shallow to split, the
//! node is searched instead. A thread keeps the last lower part it built, with its index
//! of column sets and its buffers: the subproblems of one root (which a join run takes
//! together) share it, and the next root's part reuses the memory.

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
    count_split(s, start, budget, kernel, MIN_SPLIT)
}

/// [`count`], the lower groups of `min_split` placements or more split on their bits.
fn count_split(
    s: &Schedule,
    start: State,
    budget: usize,
    kernel: Kernel,
    min_split: usize,
) -> u128 {
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
                lookup: vec![0; size],
                slot: vec![0; size],
                lower: Lower::default(),
                kept: None,
                found: Found::default(),
                chunk: Grouped::default(),
            };
        }
        // The lower part depends on the schedule alone: the subproblems of one root, which
        // a join run counts one after another, build it once.
        let reuse = matches!(&scratch.kept, Some((schedule, fit, split))
            if schedule == s && scratch.lower.m >= m && *fit == room && *split == min_split);
        if !reuse {
            if scratch.kept.take().is_some() {
                for &k in &scratch.lower.grouped.keys {
                    scratch.lookup[k as usize] = 0;
                }
            }
            while m + 2 <= levels {
                let Scratch {
                    lower, slot, found, ..
                } = scratch;
                if lower.build(s, m, room, min_split, slot, found) {
                    // lookup[cols] = 1 + the lower group of those columns, while it is kept.
                    for (g, &k) in lower.grouped.keys.iter().enumerate() {
                        scratch.lookup[k as usize] = g as u32 + 1;
                    }
                    // The upper chunks are grouped by group and pattern.
                    let keys = lower.grouped.keys.len() * PARTS;
                    if slot.len() < keys {
                        slot.resize(keys, 0);
                    }
                    scratch.kept = Some((s.clone(), room, min_split));
                    break;
                }
                m += 1;
            }
        }
        let Scratch {
            kept,
            lower,
            lookup,
            slot,
            found,
            chunk,
            ..
        } = scratch;
        if kept.is_some() && lower.m > start.level {
            lower.join(
                s,
                start,
                room,
                kernel,
                Tables {
                    lookup,
                    slot,
                    found,
                    chunk,
                },
            )
        } else {
            kernel.count(s, start)
        }
    })
}

/// Placements grouped by key, keys in increasing order: `masks[ranges[g].0..ranges[g].1]`
/// are those of key `keys[g]`. A lower part's key is its column set; an upper chunk's is
/// `lower group * PARTS + pattern` (see [`Lower::join`]).
#[derive(Default)]
struct Grouped {
    keys: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    masks: Vec<Packed>,
}

impl Grouped {
    /// Groups `found` by key into `self` (its vectors reused) with a counting sort, using
    /// `slot` (an entry per key, all zero; left all zero) as its counters.
    fn fill(&mut self, found: &Found, slot: &mut [u32]) {
        let Grouped {
            keys,
            ranges,
            masks,
        } = self;
        keys.clear();
        ranges.clear();
        for &c in &found.keys {
            let n = &mut slot[c as usize];
            if *n == 0 {
                keys.push(c);
            }
            *n += 1;
        }
        keys.sort_unstable();
        let mut at = 0u32;
        for &k in keys.iter() {
            let len = slot[k as usize];
            ranges.push((at, at + len));
            slot[k as usize] = at;
            at += len;
        }
        masks.resize(found.len(), 0);
        for (&c, &p) in found.keys.iter().zip(&found.words) {
            let i = &mut slot[c as usize];
            masks[*i as usize] = p;
            *i += 1;
        }
        for &k in keys.iter() {
            slot[k as usize] = 0;
        }
    }

    /// Group `g`'s placements.
    fn group(&self, g: usize) -> &[Packed] {
        let (lo, hi) = self.ranges[g];
        &self.masks[lo as usize..hi as usize]
    }
}

/// Per-thread scratch: two tables with an entry per column set of the board, all zero
/// between uses, and the upper part's chunk buffers, kept from one join to the next.
struct Scratch {
    n: u32,
    /// `1 +` the group of the kept lower part that has a column set, 0 where none has.
    lookup: Vec<u32>,
    /// Counters for [`Grouped::fill`].
    slot: Vec<u32>,
    /// The last lower part built (its buffers reused for the next)...
    lower: Lower,
    /// ... and, while it is whole, its schedule, the room it was built in and the
    /// smallest group it split.
    kept: Option<(Schedule, usize, usize)>,
    /// Placements as found (a lower part while it is built, then each upper chunk).
    found: Found,
    /// The current upper chunk, grouped.
    chunk: Grouped,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            n: 0,
            lookup: Vec::new(),
            slot: Vec::new(),
            lower: Lower {
                m: 0,
                grouped: Grouped { keys: Vec::new(), ranges: Vec::new(), masks: Vec::new() },
                split: Vec::new(),
                bounds: Vec::new(),
                sorted: Vec::new(),
            },
            kept: None,
            found: Found { keys: Vec::new(), words: Vec::new() },
            chunk: Grouped { keys: Vec::new(), ranges: Vec::new(), masks: Vec::new() },
        })
    };
}

/// The scratch a join works in: [`Lower::join`]'s lookup table, the grouping counters,
/// and the upper part's chunk as found and as grouped.
struct Tables<'a> {
    lookup: &'a [u32],
    slot: &'a mut [u32],
    found: &'a mut Found,
    chunk: &'a mut Grouped,
}

/// The lower part's placements, grouped by their columns.
#[derive(Default)]
struct Lower {
    /// The first level of the lower part.
    m: usize,
    grouped: Grouped,
    /// Each group's placements are ordered by their bits at these positions (the group's
    /// *pattern*), bit `i` of the pattern from `split[g][i]`.
    split: Vec<[u8; SPLIT_BITS]>,
    /// Each group's placements of pattern `a` are `grouped.masks[bounds[g][a]..bounds[g][a + 1]]`.
    bounds: Vec<[u32; PARTS + 1]>,
    /// Scratch for ordering a group.
    sorted: Vec<Packed>,
}

/// Bits each lower group is split on: an upper placement with one of them set is matched
/// only with the lower placements that have it clear.
const SPLIT_BITS: usize = 2;
/// Patterns of the split bits.
const PARTS: usize = 1 << SPLIT_BITS;
/// Groups smaller than this are not split: each pair of parts is matched with its own
/// pass, and on small parts a pass costs more than the pairs it skips (on Zen 4, n = 17:
/// no gain at any size; n = 18: 10% less time with groups from 64 placements split).
const MIN_SPLIT: usize = 64;

/// A word's bits at the positions `at`, as a pattern.
#[inline(always)]
fn pattern(word: Packed, at: &[u8; SPLIT_BITS]) -> usize {
    let mut p = 0;
    for (i, &b) in at.iter().enumerate() {
        p |= (((word >> b) & 1) as usize) << i;
    }
    p
}

impl Lower {
    /// Enumerates levels `m..levels` of `s` from the bottom up into `self` (its buffers
    /// reused), grouped, each group of `min_split` placements or more ordered by its split
    /// bits, with `found` as scratch; false if there are more than `room` placements
    /// (`self` is then not a lower part).
    fn build(
        &mut self,
        s: &Schedule,
        m: usize,
        room: usize,
        min_split: usize,
        slot: &mut [u32],
        found: &mut Found,
    ) -> bool {
        found.clear();
        if !walk_lower(s, m, room, found) {
            return false;
        }
        let Lower {
            m: at_level,
            grouped,
            split,
            bounds,
            sorted,
        } = self;
        *at_level = m;
        grouped.fill(found, slot);
        let groups = grouped.keys.len();
        split.clear();
        bounds.clear();
        for g in 0..groups {
            let (lo, hi) = grouped.ranges[g];
            let words = &mut grouped.masks[lo as usize..hi as usize];
            let at = split_bits(s.n, words, min_split);
            let mut count = [0u32; PARTS + 1];
            for &w in words.iter() {
                count[pattern(w, &at) + 1] += 1;
            }
            let mut b = [lo; PARTS + 1];
            for a in 0..PARTS {
                b[a + 1] = b[a] + count[a + 1];
            }
            let mut next = b;
            sorted.clear();
            sorted.resize(words.len(), 0);
            for &w in words.iter() {
                let i = &mut next[pattern(w, &at)];
                sorted[(*i - lo) as usize] = w;
                *i += 1;
            }
            words.copy_from_slice(sorted);
            split.push(at);
            bounds.push(b);
        }
        true
    }

    /// Matches the upper part's placements below `start` with the groups, `room` of them
    /// at a time: the number of completions below `start`. An upper placement is kept only
    /// where a lower group has the columns it leaves, under that group's number; each
    /// chunk is grouped by those numbers, so each pair of groups is matched in one pass:
    /// every lower word is loaded once and tested against each upper word of its group.
    fn join(&self, s: &Schedule, start: State, room: usize, kernel: Kernel, t: Tables) -> u128 {
        let Tables {
            lookup,
            slot,
            found,
            chunk: upper,
        } = t;
        let mut total = 0u128;
        let mut walk = Upper::new(s, start, self.m);
        loop {
            found.clear();
            let more = walk.fill(found, room, lookup, &self.split);
            upper.fill(found, slot);
            for (i, &k) in upper.keys.iter().enumerate() {
                let (g, b) = (k as usize / PARTS, k as usize % PARTS);
                let bounds = &self.bounds[g];
                let u = upper.group(i);
                // The lower patterns that share no split bit with `b`, as runs.
                let mut a = 0;
                while a < PARTS {
                    if a & b != 0 {
                        a += 1;
                        continue;
                    }
                    let first = a;
                    while a < PARTS && a & b == 0 {
                        a += 1;
                    }
                    let l = &self.grouped.masks[bounds[first] as usize..bounds[a] as usize];
                    total += u128::from(pairs(kernel, l, u));
                }
            }
            if !more {
                break;
            }
        }
        total
    }
}

/// The bits a lower group of `min_split` placements or more is split on: those its
/// placements set most often, weighted towards the middle of the row, where the upper
/// part's lines are thickest (judged on the group's first 64 placements). A smaller group
/// is "split" on bit 63, which no placement sets (`n <= 24`): it stays one part.
fn split_bits(n: u32, words: &[Packed], min_split: usize) -> [u8; SPLIT_BITS] {
    if words.len() < min_split {
        return [63; SPLIT_BITS];
    }
    let mut count = [0u32; 64];
    for &w in words.iter().take(64) {
        let mut w = w;
        while w != 0 {
            count[w.trailing_zeros() as usize] += 1;
            w &= w - 1;
        }
    }
    let score = |b: usize| {
        let c = (b % 32) as u32;
        count[b] * (c + 1).min(n.saturating_sub(c))
    };
    let mut at = [0u8; SPLIT_BITS];
    let mut taken = 0u64;
    for slot in at.iter_mut() {
        let best = (0..64)
            .filter(|&b| taken >> b & 1 == 0)
            .max_by_key(|&b| score(b))
            .unwrap_or(0);
        taken |= 1 << best;
        *slot = best as u8;
    }
    at
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
    fn fill(
        &mut self,
        out: &mut Found,
        cap: usize,
        lookup: &[u32],
        split: &[[u8; SPLIT_BITS]],
    ) -> bool {
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
                    let g = lookup[(full & !(cols | bit)) as usize];
                    if g != 0 {
                        let w = u64::from(d) << 32 | u64::from(a);
                        let g = g as usize - 1;
                        out.push((g * PARTS + pattern(w, &split[g])) as u32, w);
                    }
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

/// How many pairs of a word of `lower` and a word of `upper` share no bit, with the SIMD
/// width of `kernel` (a resolved kernel: AVX-512, AVX2 or scalar).
fn pairs(kernel: Kernel, lower: &[Packed], upper: &[Packed]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::simd::Lanes;
        match kernel.lanes() {
            Some(Lanes::Avx512) if Lanes::Avx512.available() => {
                // SAFETY: the CPU has AVX-512F, checked just above.
                return unsafe { wide::pairs512(lower, upper) };
            }
            Some(Lanes::Avx2) if Lanes::Avx2.available() => {
                // SAFETY: the CPU has AVX2, checked just above.
                return unsafe { wide::pairs256(lower, upper) };
            }
            _ => {}
        }
    }
    // Off x86-64 every kernel matches one pair at a time.
    let _ = kernel;
    upper
        .iter()
        .map(|&u| lower.iter().filter(|&&l| l & u == 0).count() as u64)
        .sum()
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

    /// [`super::pairs`] with AVX2: eight lower words loaded once (two registers), tested
    /// against every upper word (broadcast); the last seven or fewer padded, their padding
    /// lanes masked out of the count.
    #[target_feature(enable = "avx2")]
    pub(super) fn pairs256(lower: &[u64], upper: &[u64]) -> u64 {
        let zero = _mm256_setzero_si256();
        let (mut a, mut b) = (zero, zero);
        let mut step = |x: __m256i, y: __m256i, vx: __m256i, vy: __m256i| {
            for &u in upper {
                let p = _mm256_set1_epi64x(u as i64);
                let (tx, ty) = (
                    _mm256_cmpeq_epi64(_mm256_and_si256(x, p), zero),
                    _mm256_cmpeq_epi64(_mm256_and_si256(y, p), zero),
                );
                // A lane that shares no bit is all ones (-1): subtracting counts it.
                a = _mm256_sub_epi64(a, _mm256_and_si256(tx, vx));
                b = _mm256_sub_epi64(b, _mm256_and_si256(ty, vy));
            }
        };
        let all = _mm256_set1_epi64x(-1);
        let mut chunks = lower.chunks_exact(8);
        for c in &mut chunks {
            // SAFETY: each load reads 4 u64 (32 bytes) inside the 8 of `c`; unaligned.
            let (x, y) = unsafe {
                (
                    _mm256_loadu_si256(c.as_ptr().cast()),
                    _mm256_loadu_si256(c[4..].as_ptr().cast()),
                )
            };
            step(x, y, all, all);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let (mut words, mut valid) = ([0u64; 8], [0u64; 8]);
            words[..rest.len()].copy_from_slice(rest);
            valid[..rest.len()].fill(u64::MAX);
            // SAFETY: each load reads 4 u64 (32 bytes) inside the 8 of `words` or `valid`.
            let (x, y, vx, vy) = unsafe {
                (
                    _mm256_loadu_si256(words.as_ptr().cast()),
                    _mm256_loadu_si256(words[4..].as_ptr().cast()),
                    _mm256_loadu_si256(valid.as_ptr().cast()),
                    _mm256_loadu_si256(valid[4..].as_ptr().cast()),
                )
            };
            step(x, y, vx, vy);
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 4 u64, the 32 bytes the store writes; unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi64(a, b)) };
        lanes.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The join counts every subproblem as the scalar search does, with every lower group
    /// split or none, within a roomy budget and within one so small that the upper part
    /// comes in many chunks and the lower part moves down.
    #[test]
    fn join_equals_search_split_or_not_roomy_or_tight() {
        use crate::split::{Subproblems, roots};
        use crate::types::Symmetry;
        for (n, symmetry, levels) in [(14, Symmetry::Full, 1), (13, Symmetry::Mirror, 2)] {
            let roots = roots(n, symmetry);
            let schedules: Vec<Schedule> = roots.iter().map(|r| r.schedule(n)).collect();
            for (i, sub) in Subproblems::new(n, &roots, levels).enumerate() {
                if i % 3 != 0 {
                    continue;
                }
                let s = &schedules[sub.root as usize];
                let want = Kernel::Scalar.count(s, sub.state);
                let kernels = [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512];
                for kernel in kernels.into_iter().filter(|k| k.resolve().is_ok()) {
                    for budget in [64 << 20, fixed_bytes(n) + (48 << 10)] {
                        for min_split in [0, usize::MAX] {
                            let got = count_split(s, sub.state, budget, kernel, min_split);
                            assert_eq!(
                                got, want,
                                "n {n}, sub {i}, {kernel}, {budget} B, {min_split}"
                            );
                        }
                    }
                }
            }
        }
    }

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
            let mut upper: Vec<u64> = (0..len % 7 + 1).map(|_| next()).collect();
            if len % 2 == 1 {
                // A word with no bit: disjoint from every lower word, never from padding.
                upper.push(0);
            }
            let plain: u64 = upper
                .iter()
                .map(|&u| lower.iter().filter(|&&l| l & u == 0).count() as u64)
                .sum();
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                if kernel.resolve().is_ok() {
                    assert_eq!(pairs(kernel, &lower, &upper), plain, "{kernel}, len {len}");
                }
            }
        }
    }
}
