//! Matching: the pairs of a key's left and right half-boards whose words share a bit (a
//! diagonal), counted with bitsets: for each eight diagonals in play, the unions of every
//! subset of their sets of half-boards, ORed per probe word and counted.

use super::{Lanes, Word};

/// Bytes a table of `words` words per entry takes, with its sets (at most 64 diagonals in
/// play, eight bytes of them).
fn table_bytes(words: usize) -> usize {
    (64 + 8 * 256) * words * 8
}

/// The most words a table slice holds (2048 half-boards): its entries, 256 per eight ranks of
/// 256 bytes each (320 KB for the usual five), stay in a core's L2 cache. On Zen 4 (1 MB of
/// L2) `count 18 -j 1` took 2.8-3.2 s with slices of 32 words against 3.2-3.5 with 16 or 24,
/// 3.5-3.9 with 40 to 128 and 3.5-3.7 unsliced; n = 19 on 2 threads 11.2-11.5 s against
/// 12.8-13.1 unsliced.
const SLICE_WORDS: usize = 32;

/// The least a key's matching needs: a table slice of eight words (512 half-boards).
pub const MIN_BYTES: usize = 8 * (64 + 8 * 256) * 8;

/// Pairs of `table` and `probe` words that share a bit, for each group of the probe words
/// (group `g` ends at `ends[g]`) added to `out[g]`; the table built a slice at a time
/// within `budget` bytes.
#[allow(clippy::too_many_arguments)]
pub(super) fn meets(
    table: &[Word],
    probe: &mut [Word],
    ends: &[usize],
    out: &mut [u64],
    budget: usize,
    lanes: Lanes,
    sets: &mut Vec<u64>,
    tables: &mut Vec<u64>,
) {
    let union = table.iter().fold(0, |u, &w| u | w);
    let ranks = union.count_ones() as usize;
    let groups = || (0..ends.len()).map(|g| g.checked_sub(1).map_or(0, |f| ends[f])..ends[g]);
    if ranks == 0 {
        return;
    }
    // Small keys: every pair tested is cheaper than a table.
    if (table.len() * probe.len()) < 256 * 8 * ranks.div_ceil(8) {
        for (g, range) in groups().enumerate() {
            out[g] += table
                .iter()
                .map(|&t| probe[range.clone()].iter().filter(|&&p| p & t != 0).count() as u64)
                .sum::<u64>();
        }
        return;
    }
    // Each probe word's diagonals as ranks among the table's (what `pext` computes).
    for p in probe.iter_mut() {
        *p = ranked(*p, union);
    }
    let most = (budget / table_bytes(1)).clamp(8, SLICE_WORDS) / 8 * 8;
    for slice in table.chunks(64 * most) {
        let words = slice.len().div_ceil(64).next_multiple_of(8);
        let mut t = Tables {
            union,
            words,
            sets: &mut *sets,
            entries: &mut *tables,
        };
        match lanes {
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512 => {
                // SAFETY: `Lanes::of` picked these only where the CPU has their features.
                unsafe { t.fill512(slice) };
                for (g, range) in groups().enumerate() {
                    // SAFETY: as above.
                    out[g] += unsafe { t.matched512(&probe[range]) };
                }
            }
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => {
                // SAFETY: as above.
                unsafe { t.fill256(slice) };
                for (g, range) in groups().enumerate() {
                    // SAFETY: as above.
                    out[g] += unsafe { t.matched256(&probe[range]) };
                }
            }
            Lanes::Scalar => {
                t.fill(slice, |w| ranked(w, union), columns);
                for (g, range) in groups().enumerate() {
                    out[g] += t.matched_scalar(&probe[range]);
                }
            }
        }
    }
}

/// Each rank's bits of a block of 64 ranked words, as one word per rank (plain words).
pub(super) fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
    for (r, o) in out.iter_mut().enumerate().take(ranks) {
        *o = block
            .iter()
            .enumerate()
            .fold(0, |m, (j, &x)| m | ((x >> r) & 1) << j);
    }
}

/// One slice's sets and tables of unions (`words` words each, a multiple of 8).
struct Tables<'a> {
    union: u64,
    words: usize,
    sets: &'a mut Vec<u64>,
    /// `entries[(j * 256 + v) * words..][..words]`: the union of the sets of ranks
    /// `8j + (the bits of v)`.
    entries: &'a mut Vec<u64>,
}

impl Tables<'_> {
    /// Builds the sets and tables of `slice` (its words ranked by `rank`); `columns` turns
    /// 64 ranked words into the 64-bit set of each rank (a bit matrix transposed, a block
    /// at a time: setting bit by bit in memory chained each store to the last).
    #[inline(always)]
    fn fill(
        &mut self,
        slice: &[Word],
        rank: impl Fn(u64) -> u64,
        columns: impl Fn(&[u64; 64], usize, &mut [u64; 64]),
    ) {
        let (words, ranks) = (self.words, self.union.count_ones() as usize);
        let sets = &mut *self.sets;
        sets.clear();
        sets.resize(ranks * words, 0);
        let (mut block, mut column) = ([0u64; 64], [0u64; 64]);
        for (b, chunk) in slice.chunks(64).enumerate() {
            block.fill(0);
            for (x, &t) in block.iter_mut().zip(chunk) {
                *x = rank(t);
            }
            columns(&block, ranks, &mut column);
            for (r, &c) in column[..ranks].iter().enumerate() {
                sets[r * words + b] = c;
            }
        }
        let bytes = ranks.div_ceil(8);
        let tables = &mut *self.entries;
        tables.clear();
        tables.resize(bytes * 256 * words, 0);
        for j in 0..bytes {
            for v in 1..256usize {
                let r = 8 * j + v.trailing_zeros() as usize;
                let (to, from) = ((j * 256 + v) * words, (j * 256 + (v & (v - 1))) * words);
                let (done, rest) = tables.split_at_mut(to);
                let (entry, smaller) = (&mut rest[..words], &done[from..from + words]);
                match sets.get(r * words..(r + 1) * words) {
                    Some(set) => {
                        for ((e, a), b) in entry.iter_mut().zip(smaller).zip(set) {
                            *e = a | b;
                        }
                    }
                    None => entry.copy_from_slice(smaller),
                }
            }
        }
    }

    /// The offsets of the entries a ranked probe word selects, one per nonzero byte. Each
    /// is `words` words inside `entries`: a ranked word has bits below the union's count
    /// only, so its bytes `j` stay below the tables' count.
    #[inline(always)]
    fn select(&self, ranked: u64, at: &mut [usize; 8]) -> usize {
        let mut k = 0;
        for j in 0..8 {
            let v = (ranked >> (8 * j)) as usize & 255;
            if v != 0 {
                at[k] = (j * 256 + v) * self.words;
                k += 1;
            }
        }
        k
    }

    /// The table members each probe word meets, summed: the OR of its entries, counted.
    fn matched_scalar(&self, probe: &[Word]) -> u64 {
        let (mut meets, mut at, mut acc) = (0, [0usize; 8], [0u64; 8]);
        for &p in probe {
            let k = self.select(p, &mut at);
            for c in (0..self.words).step_by(8) {
                acc.fill(0);
                for &o in &at[..k] {
                    for (a, t) in acc.iter_mut().zip(&self.entries[o + c..o + c + 8]) {
                        *a |= t;
                    }
                }
                meets += acc.iter().map(|a| u64::from(a.count_ones())).sum::<u64>();
            }
        }
        meets
    }
}

/// `$tables.$loop::<K>($probe)` with `K` the tables' count of bytes of ranks (1 to 8), so
/// that each count gets a loop of its own with its loads unrolled.
#[cfg(target_arch = "x86_64")]
macro_rules! per_bytes {
    ($tables:expr, $loop:ident, $probe:expr) => {
        match $tables.union.count_ones().div_ceil(8) {
            1 => $tables.$loop::<1>($probe),
            2 => $tables.$loop::<2>($probe),
            3 => $tables.$loop::<3>($probe),
            4 => $tables.$loop::<4>($probe),
            5 => $tables.$loop::<5>($probe),
            6 => $tables.$loop::<6>($probe),
            7 => $tables.$loop::<7>($probe),
            _ => $tables.$loop::<8>($probe),
        }
    };
}

#[cfg(target_arch = "x86_64")]
impl Tables<'_> {
    /// [`Tables::fill`] compiled for AVX-512 (the unions eight words a step), each rank's
    /// bits of eight words taken at once by `vptestmq`.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn fill512(&mut self, slice: &[Word]) {
        use std::arch::x86_64::*;
        let union = self.union;
        let columns = |block: &[u64; 64], ranks: usize, out: &mut [u64; 64]| {
            // SAFETY: each load reads eight of the block's 64 words; unaligned.
            let v: [__m512i; 8] = std::array::from_fn(|k| unsafe {
                _mm512_loadu_si512(block[8 * k..].as_ptr().cast())
            });
            for (r, o) in out.iter_mut().enumerate().take(ranks) {
                let bit = _mm512_set1_epi64(1 << r);
                *o = v.iter().enumerate().fold(0u64, |m, (k, &x)| {
                    m | u64::from(_mm512_test_epi64_mask(x, bit)) << (8 * k)
                });
            }
        };
        self.fill(slice, |w| _pext_u64(w, union), columns);
    }

    /// [`Tables::fill`] compiled for AVX2, each rank's bits of four words taken at once by
    /// `vmovmskpd` (the rank's bit shifted to the sign).
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn fill256(&mut self, slice: &[Word]) {
        use std::arch::x86_64::*;
        let union = self.union;
        let columns = |block: &[u64; 64], ranks: usize, out: &mut [u64; 64]| {
            // SAFETY: each load reads four of the block's 64 words; unaligned.
            let v: [__m256i; 16] = std::array::from_fn(|k| unsafe {
                _mm256_loadu_si256(block[4 * k..].as_ptr().cast())
            });
            for (r, o) in out.iter_mut().enumerate().take(ranks) {
                let to_sign = _mm_cvtsi32_si128(63 - r as i32);
                *o = v.iter().enumerate().fold(0u64, |m, (k, &x)| {
                    let signs = _mm256_castsi256_pd(_mm256_sll_epi64(x, to_sign));
                    m | (_mm256_movemask_pd(signs) as u64) << (4 * k)
                });
            }
        };
        self.fill(slice, |w| _pext_u64(w, union), columns);
    }

    /// The table entries a ranked probe word selects, all `K` of them (a zero byte selects
    /// entry 0 of its eight ranks, the empty union), so that the loops below run a fixed
    /// number of loads per step. Each is `words` words inside `entries`: a ranked word has
    /// bits below the union's count only, and `K` is the tables' count of bytes.
    #[inline(always)]
    fn every<const K: usize>(&self, ranked: u64) -> [usize; K] {
        std::array::from_fn(|j| (j * 256 + ((ranked >> (8 * j)) & 255) as usize) * self.words)
    }

    /// [`Tables::matched_scalar`] with AVX-512: eight words of the entries a step, counted
    /// by `vpopcntq`, one loop per count of bytes.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn matched512(&self, probe: &[Word]) -> u64 {
        per_bytes!(self, matched512k, probe)
    }

    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn matched512k<const K: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(K * 256 * self.words <= self.entries.len());
        let (entries, words) = (self.entries.as_ptr(), self.words);
        let mut sum = _mm512_setzero_si512();
        for &p in probe {
            let at = self.every::<K>(p);
            for c in (0..words).step_by(8) {
                // SAFETY: `o + c + 8 <= o + words <= entries.len()` for every `o` of `at`
                // (see `every`; `c` steps by 8 below `words`, a multiple of 8); unaligned.
                let load = |o: usize| unsafe { _mm512_loadu_si512(entries.add(o + c).cast()) };
                let acc = at[1..]
                    .iter()
                    .fold(load(at[0]), |acc, &o| _mm512_or_si512(acc, load(o)));
                sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
            }
        }
        _mm512_reduce_add_epi64(sum) as u64
    }

    /// [`Tables::matched_scalar`] with AVX2: four words a step, counted by nibble lookups
    /// (`vpshufb`) summed per word (`vpsadbw`), one loop per count of bytes.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256(&self, probe: &[Word]) -> u64 {
        per_bytes!(self, matched256k, probe)
    }

    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256k<const K: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(K * 256 * self.words <= self.entries.len());
        let (entries, words) = (self.entries.as_ptr(), self.words);
        let nibbles = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        let mut sum = _mm256_setzero_si256();
        for &p in probe {
            let at = self.every::<K>(p);
            for c in (0..words).step_by(4) {
                // SAFETY: `o + c + 4 <= o + words <= entries.len()` for every `o` of `at`
                // (see `every`; `c` steps by 4 below `words`, a multiple of 8); unaligned.
                let load = |o: usize| unsafe { _mm256_loadu_si256(entries.add(o + c).cast()) };
                let acc = at[1..]
                    .iter()
                    .fold(load(at[0]), |acc, &o| _mm256_or_si256(acc, load(o)));
                let lo = _mm256_shuffle_epi8(nibbles, _mm256_and_si256(acc, low));
                let hi =
                    _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(acc, 4), low));
                let bytes = _mm256_add_epi8(lo, hi);
                sum = _mm256_add_epi64(sum, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
            }
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().sum()
    }
}

/// The ranks among `union`'s bits of `word`'s bits, as bits (BMI2's `pext`).
fn ranked(word: u64, union: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { pext(word, union) };
    }
    let (mut ranked, mut bits) = (0u64, word & union);
    while bits != 0 {
        ranked |= 1 << (union & ((1u64 << bits.trailing_zeros()) - 1)).count_ones();
        bits &= bits - 1;
    }
    ranked
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pext(word: u64, union: u64) -> u64 {
    std::arch::x86_64::_pext_u64(word, union)
}
