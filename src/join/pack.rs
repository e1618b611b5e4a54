//! Keeping some of a vector's words: the words a test keeps are packed to the front of the
//! vector and stored where a list of kept words ends. The half-boards' build (`halves.rs`),
//! the matching's filter and partition (`matching.rs`) and an odd key's narrowing
//! ([`narrow512`]) all take this step:
//!
//! ```text
//! filter(from, bit, to):                                       (filter512, filter256)
//!     for each vector w of from:
//!         m = the words of w that lack bit                     (Pack::lacking)
//!         store w's words in m packed at to[len..]; len += |m| (Pack::put)
//!     the last few words a word at a time                      (word.rs's filter_words)
//!
//! partition(table, bit):                                       (partition512, partition256)
//!     if the table is large: read it a block at a time from either end, and store each
//!         vector's words without bit at the front, those with it at the back (two_ended)
//!     else: keep the words without bit in place, those with it through aside, then
//!         copy them back behind the others                     (through_aside)
//! ```
//!
//! [`Pack`] (declared in `word.rs`, beside the words it packs) is that step in one ISA,
//! and this module implements it: [`Wide`] packs eight words of AVX-512 by `vpcompressq`
//! in a register (its memory form is slow on some CPUs), and [`Narrow`] packs four words
//! of AVX2 by a `vpermd` with indices from [`PACK`] (AVX2 has no compress); [`Wide32`] and
//! [`Narrow32`] take the same steps on the split's short words (32 bits: sixteen and eight
//! a vector; `short.rs`). The filter and the partition are written once over it for both
//! widths, the narrowing for full words ([`Tally`]), each with a `#[target_feature]`
//! entry point per ISA; so are the split's sampling tally ([`tally_in`]: a vector of
//! sampled words at a time, the same trait's loads and adds) and the count of the words
//! that miss some bits, which a side's sizes take ([`lacking_in`]).
//!
//! Each store writes a whole vector at the end of the kept words, and the next one
//! overwrites the words past the ones it kept: so a list being filled needs room for one
//! vector more than it can hold.

use std::arch::x86_64::*;

use super::word::{
    Narrow, Narrow32, ONES, Pack, SplitWord, TAG_SHIFT, Wide, Wide32, filter_words, lacking_words,
    leaves, narrowed, take_out, tally_words,
};

/// For each set of four 64-bit lanes kept, the 32-bit indices for `vpermd` that move them
/// to the front in order, and the others after them in order: so one permutation packs
/// both sides of a partition, the kept words at the vector's front and the others at its
/// end.
const PACK: [[i32; 8]; 16] = packing::<4, 16>();

/// [`PACK`] for eight 32-bit lanes (the split's short words): 8 KB, in L1 beside the words.
const PACK32: [[i32; 8]; 256] = packing::<8, 256>();

/// [`PACK`]'s indices for `LANES` lanes (`SETS`, `2^LANES`, sets of them): for each set of
/// lanes kept, those lanes first, then the others, each lane `8 / LANES` 32-bit indices.
const fn packing<const LANES: usize, const SETS: usize>() -> [[i32; 8]; SETS] {
    let span = 8 / LANES;
    let mut table = [[0i32; 8]; SETS];
    let mut kept = 0;
    while kept < SETS {
        // Pass 0 places the kept lanes, pass 1 the others after them.
        let (mut pass, mut at) = (0, 0);
        while pass < 2 {
            let mut lane = 0;
            while lane < LANES {
                if kept >> lane & 1 != pass {
                    let mut k = 0;
                    while k < span {
                        table[kept][span * at + k] = (span * lane + k) as i32;
                        k += 1;
                    }
                    at += 1;
                }
                lane += 1;
            }
            pass += 1;
        }
        kept += 1;
    }
    table
}

/// The rest of a vector of full words' steps: the narrowing of an odd key's left words
/// ([`narrow_in`]) and the split's sampling tally ([`tally_in`]).
///
/// # Safety
///
/// As [`Pack`]'s.
pub(super) unsafe trait Tally: Pack<E = u64> {
    /// The words in both `a` and `b`.
    unsafe fn both(a: Self::M, b: Self::M) -> Self::M;
    /// The words of `w` whose class (the bits from [`TAG_SHIFT`]) is above `c`.
    unsafe fn above(w: Self::V, c: u64) -> Self::M;
    /// Each word of `w` as [`narrowed`] turns it, with `mask` in every word.
    unsafe fn narrowed(w: Self::V, mask: Self::V) -> Self::V;
    /// The words at `from`, `from + step`, ...: a vector of [`Pack::WORDS`] of them, each
    /// widened to 64 bits.
    ///
    /// # Safety
    ///
    /// Each is readable.
    unsafe fn strided<W: SplitWord>(from: *const W, step: usize) -> Self::V;
    /// `sum` plus, in each byte of each word, bit `k` of that byte of `w`'s word.
    unsafe fn add_bit(sum: Self::V, w: Self::V, k: u32) -> Self::V;
    /// The sum of `v`'s words, wrapping.
    unsafe fn sum(v: Self::V) -> u64;
}

// SAFETY: every method uses AVX-512F alone; the trait's contract puts it on the caller.
unsafe impl Pack for Wide {
    const WORDS: usize = 8;
    type E = u64;
    type V = __m512i;
    type M = __mmask8;

    #[inline(always)]
    unsafe fn splat(x: u64) -> __m512i {
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u64) -> __m512i {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm512_loadu_si512(from.cast()) }
    }
    #[inline(always)]
    unsafe fn lacking(w: __m512i, b: __m512i) -> __mmask8 {
        unsafe { _mm512_testn_epi64_mask(w, b) }
    }
    #[inline(always)]
    unsafe fn others(m: __mmask8) -> __mmask8 {
        !m
    }
    #[inline(always)]
    unsafe fn count(m: __mmask8) -> usize {
        m.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn store(to: *mut u64, w: __m512i, m: __mmask8) {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm512_storeu_si512(to.cast(), _mm512_maskz_compress_epi64(m, w)) };
    }
    #[inline(always)]
    unsafe fn store_apart(front: *mut u64, back: *mut u64, w: __m512i, m: __mmask8) {
        // The others packed to the front of a register, then spread to the top lanes
        // (`0xff00 >> k` as a byte: the top `k` lanes, none for `k = 0`).
        let top = (0xff00u16 >> (!m).count_ones()) as u8;
        // SAFETY: the caller's; unaligned.
        unsafe {
            Self::store(front, w, m);
            let packed = _mm512_maskz_compress_epi64(!m, w);
            _mm512_storeu_si512(back.cast(), _mm512_maskz_expand_epi64(top, packed));
        }
    }
}

// SAFETY: every method uses AVX-512F alone; the trait's contract puts it on the caller.
unsafe impl Tally for Wide {
    #[inline(always)]
    unsafe fn both(a: __mmask8, b: __mmask8) -> __mmask8 {
        a & b
    }
    #[inline(always)]
    unsafe fn above(w: __m512i, c: u64) -> __mmask8 {
        unsafe {
            let class = _mm512_srli_epi64::<TAG_SHIFT>(w);
            _mm512_cmpgt_epu64_mask(class, _mm512_set1_epi64(c as i64))
        }
    }
    #[inline(always)]
    unsafe fn narrowed(w: __m512i, mask: __m512i) -> __m512i {
        unsafe {
            let down_right = _mm512_and_si512(_mm512_srli_epi64::<1>(w), mask);
            let down_left = _mm512_and_si512(_mm512_srli_epi64::<33>(w), mask);
            _mm512_or_si512(down_right, _mm512_slli_epi64::<32>(down_left))
        }
    }
    #[inline(always)]
    unsafe fn strided<W: SplitWord>(from: *const W, step: usize) -> __m512i {
        // SAFETY: the caller's.
        let at = |i: usize| unsafe { (*from.add(i * step)).wide() as i64 };
        unsafe { _mm512_set_epi64(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0)) }
    }
    #[inline(always)]
    unsafe fn add_bit(sum: __m512i, w: __m512i, k: u32) -> __m512i {
        unsafe {
            let bits = _mm512_srl_epi64(w, _mm_cvtsi32_si128(k as i32));
            _mm512_add_epi64(sum, _mm512_and_si512(bits, _mm512_set1_epi64(ONES as i64)))
        }
    }
    #[inline(always)]
    unsafe fn sum(v: __m512i) -> u64 {
        unsafe { _mm512_reduce_add_epi64(v) as u64 }
    }
}

// SAFETY: every method uses AVX2 (and AVX) alone; the trait's contract puts it on the
// caller.
unsafe impl Pack for Narrow {
    const WORDS: usize = 4;
    type E = u64;
    type V = __m256i;
    type M = usize;

    #[inline(always)]
    unsafe fn splat(x: u64) -> __m256i {
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u64) -> __m256i {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm256_loadu_si256(from.cast()) }
    }
    #[inline(always)]
    unsafe fn lacking(w: __m256i, b: __m256i) -> usize {
        unsafe {
            let none = _mm256_cmpeq_epi64(_mm256_and_si256(w, b), _mm256_setzero_si256());
            _mm256_movemask_pd(_mm256_castsi256_pd(none)) as usize
        }
    }
    #[inline(always)]
    unsafe fn others(m: usize) -> usize {
        m ^ 15
    }
    #[inline(always)]
    unsafe fn count(m: usize) -> usize {
        m.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn store(to: *mut u64, w: __m256i, m: usize) {
        // SAFETY: `m` is four bits, an index of `PACK` (masked so the compiler sees it);
        // the store is the caller's; unaligned.
        unsafe {
            let order = _mm256_loadu_si256(PACK[m & 15].as_ptr().cast());
            _mm256_storeu_si256(to.cast(), _mm256_permutevar8x32_epi32(w, order));
        }
    }
    #[inline(always)]
    unsafe fn store_apart(front: *mut u64, back: *mut u64, w: __m256i, m: usize) {
        // One permutation for both: `PACK` puts the others after the kept words, so at the
        // vector's end. SAFETY: as `store`.
        unsafe {
            let order = _mm256_loadu_si256(PACK[m & 15].as_ptr().cast());
            let packed = _mm256_permutevar8x32_epi32(w, order);
            _mm256_storeu_si256(front.cast(), packed);
            _mm256_storeu_si256(back.cast(), packed);
        }
    }
}

// SAFETY: every method uses AVX2 (and AVX) alone; the trait's contract puts it on the
// caller.
unsafe impl Tally for Narrow {
    #[inline(always)]
    unsafe fn both(a: usize, b: usize) -> usize {
        a & b
    }
    #[inline(always)]
    unsafe fn above(w: __m256i, c: u64) -> usize {
        // A class is four bits: the signed compare is the unsigned one.
        unsafe {
            let class = _mm256_srli_epi64::<{ TAG_SHIFT as i32 }>(w);
            let over = _mm256_cmpgt_epi64(class, _mm256_set1_epi64x(c as i64));
            _mm256_movemask_pd(_mm256_castsi256_pd(over)) as usize
        }
    }
    #[inline(always)]
    unsafe fn narrowed(w: __m256i, mask: __m256i) -> __m256i {
        unsafe {
            let down_right = _mm256_and_si256(_mm256_srli_epi64::<1>(w), mask);
            let down_left = _mm256_and_si256(_mm256_srli_epi64::<33>(w), mask);
            _mm256_or_si256(down_right, _mm256_slli_epi64::<32>(down_left))
        }
    }
    #[inline(always)]
    unsafe fn strided<W: SplitWord>(from: *const W, step: usize) -> __m256i {
        // SAFETY: the caller's.
        let at = |i: usize| unsafe { (*from.add(i * step)).wide() as i64 };
        unsafe { _mm256_set_epi64x(at(3), at(2), at(1), at(0)) }
    }
    #[inline(always)]
    unsafe fn add_bit(sum: __m256i, w: __m256i, k: u32) -> __m256i {
        unsafe {
            let bits = _mm256_srl_epi64(w, _mm_cvtsi32_si128(k as i32));
            _mm256_add_epi64(sum, _mm256_and_si256(bits, _mm256_set1_epi64x(ONES as i64)))
        }
    }
    #[inline(always)]
    unsafe fn sum(v: __m256i) -> u64 {
        let mut words = [0u64; 4];
        // SAFETY: four words of room; unaligned.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), v) };
        words.iter().fold(0, |s, &w| s.wrapping_add(w))
    }
}

// SAFETY: every method uses AVX-512F alone; the trait's contract puts it on the caller.
unsafe impl Pack for Wide32 {
    const WORDS: usize = 16;
    type E = u32;
    type V = __m512i;
    type M = __mmask16;

    #[inline(always)]
    unsafe fn splat(x: u64) -> __m512i {
        unsafe { _mm512_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u32) -> __m512i {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm512_loadu_si512(from.cast()) }
    }
    #[inline(always)]
    unsafe fn lacking(w: __m512i, b: __m512i) -> __mmask16 {
        unsafe { _mm512_testn_epi32_mask(w, b) }
    }
    #[inline(always)]
    unsafe fn others(m: __mmask16) -> __mmask16 {
        !m
    }
    #[inline(always)]
    unsafe fn count(m: __mmask16) -> usize {
        m.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn store(to: *mut u32, w: __m512i, m: __mmask16) {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm512_storeu_si512(to.cast(), _mm512_maskz_compress_epi32(m, w)) };
    }
    #[inline(always)]
    unsafe fn store_apart(front: *mut u32, back: *mut u32, w: __m512i, m: __mmask16) {
        // As `Wide`'s: the others packed, then spread to the top `k` lanes.
        let top = (0xffff_0000u32 >> (!m).count_ones()) as u16;
        // SAFETY: the caller's; unaligned.
        unsafe {
            Self::store(front, w, m);
            let packed = _mm512_maskz_compress_epi32(!m, w);
            _mm512_storeu_si512(back.cast(), _mm512_maskz_expand_epi32(top, packed));
        }
    }
}

// SAFETY: every method uses AVX2 (and AVX) alone; the trait's contract puts it on the
// caller.
unsafe impl Pack for Narrow32 {
    const WORDS: usize = 8;
    type E = u32;
    type V = __m256i;
    type M = usize;

    #[inline(always)]
    unsafe fn splat(x: u64) -> __m256i {
        unsafe { _mm256_set1_epi32(x as i32) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u32) -> __m256i {
        // SAFETY: the caller's; unaligned.
        unsafe { _mm256_loadu_si256(from.cast()) }
    }
    #[inline(always)]
    unsafe fn lacking(w: __m256i, b: __m256i) -> usize {
        unsafe {
            let none = _mm256_cmpeq_epi32(_mm256_and_si256(w, b), _mm256_setzero_si256());
            _mm256_movemask_ps(_mm256_castsi256_ps(none)) as usize
        }
    }
    #[inline(always)]
    unsafe fn others(m: usize) -> usize {
        m ^ 255
    }
    #[inline(always)]
    unsafe fn count(m: usize) -> usize {
        m.count_ones() as usize
    }
    #[inline(always)]
    unsafe fn store(to: *mut u32, w: __m256i, m: usize) {
        // SAFETY: `m` is eight bits, an index of `PACK32` (masked so the compiler sees
        // it); the store is the caller's; unaligned.
        unsafe {
            let order = _mm256_loadu_si256(PACK32[m & 255].as_ptr().cast());
            _mm256_storeu_si256(to.cast(), _mm256_permutevar8x32_epi32(w, order));
        }
    }
    #[inline(always)]
    unsafe fn store_apart(front: *mut u32, back: *mut u32, w: __m256i, m: usize) {
        // One permutation for both, as `Narrow`'s. SAFETY: as `store`.
        unsafe {
            let order = _mm256_loadu_si256(PACK32[m & 255].as_ptr().cast());
            let packed = _mm256_permutevar8x32_epi32(w, order);
            _mm256_storeu_si256(front.cast(), packed);
            _mm256_storeu_si256(back.cast(), packed);
        }
    }
}

/// Adds to `counts[b]` how many of every `step`-th word of `v` (words `0, step, 2 step,
/// ...`) have bit `b`, eight sampled words a vector with AVX-512F ([`tally_in`]), short
/// words widened.
#[target_feature(enable = "avx512f")]
pub(super) fn tally512<E: SplitWord>(v: &[E], step: usize, counts: &mut [u64; 64]) {
    // SAFETY: this function runs only where the CPU has AVX-512F (its feature).
    unsafe { tally_in::<Wide, E>(v, step, counts) }
}

/// [`tally512`] four sampled words a vector with AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn tally256<E: SplitWord>(v: &[E], step: usize, counts: &mut [u64; 64]) {
    // SAFETY: this function runs only where the CPU has AVX2 (its feature).
    unsafe { tally_in::<Narrow, E>(v, step, counts) }
}

/// The split's sampling tally ([`tally_words`]) a vector of sampled words
/// at a time: eight byte-wide counters a word (bit `k` of each byte into counter `k`), the
/// vector's words of a counter summed when it is taken out, so taken out before they
/// together could pass a byte's 255. The samples past the last whole vector one by one.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn tally_in<P: Tally, E: SplitWord>(v: &[E], step: usize, counts: &mut [u64; 64]) {
    let vectors = v.len().div_ceil(step) / P::WORDS;
    let per = 255 / P::WORDS;
    // SAFETY: the CPU has `P`'s ISA (the caller's). Vector `i` reads samples `i WORDS` to
    // `(i + 1) WORDS - 1`, all below `v.len().div_ceil(step)`: words below `v.len()`.
    unsafe {
        let mut lanes = [P::splat(0); 8];
        let empty = |lanes: &mut [P::V; 8], counts: &mut [u64; 64]| {
            for (k, lane) in lanes.iter_mut().enumerate() {
                // No byte of the sum carries into the next: each is at most 255.
                take_out(P::sum(*lane), k, counts);
                *lane = P::splat(0);
            }
        };
        for i in 0..vectors {
            let w = P::strided(v.as_ptr().add(i * P::WORDS * step), step);
            for (k, lane) in lanes.iter_mut().enumerate() {
                *lane = P::add_bit(*lane, w, k as u32);
            }
            if i % per == per - 1 {
                empty(&mut lanes, counts);
            }
        }
        empty(&mut lanes, counts);
    }
    let rest = (vectors * P::WORDS * step).min(v.len());
    tally_words(&v[rest..], step, counts);
}

/// Sets `kept` to the words of `left` that share no bit with `mid` and, where `above` is
/// given, whose class is above it, each [`narrowed`] by `mask`, eight at a time with
/// AVX-512F ([`narrow_in`]): the left half-boards a middle row's queen leaves, in the right
/// half's layout (`narrow` in `mod.rs`).
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn narrow512(
    left: &[u64],
    (mid, mask): (u64, u64),
    above: Option<u64>,
    kept: &mut Vec<u64>,
) {
    // SAFETY: this function runs only where the CPU has AVX-512F and popcnt (its features).
    unsafe { narrow_in::<Wide>(left, (mid, mask), above, kept) }
}

/// [`narrow512`] four at a time with AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn narrow256(
    left: &[u64],
    (mid, mask): (u64, u64),
    above: Option<u64>,
    kept: &mut Vec<u64>,
) {
    // SAFETY: this function runs only where the CPU has AVX2 and popcnt (its features).
    unsafe { narrow_in::<Narrow>(left, (mid, mask), above, kept) }
}

/// [`narrow512`] in `P`'s vectors: a vector of words a step, the kept ones narrowed and
/// stored packed at the end of those kept before; the last few words one by one.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn narrow_in<P: Tally>(
    left: &[u64],
    (mid, mask): (u64, u64),
    above: Option<u64>,
    kept: &mut Vec<u64>,
) {
    kept.clear();
    // Room for every word and one full store past the last kept one.
    kept.reserve_exact(left.len() + P::WORDS);
    let dst = kept.spare_capacity_mut().as_mut_ptr().cast::<u64>();
    let chunks = left.chunks_exact(P::WORDS);
    let rest = chunks.remainder();
    let mut len = 0;
    // SAFETY: the CPU has `P`'s ISA (the caller's). Each load reads one chunk's words; at
    // most the words before a chunk were kept, so a store at `dst + len` lies within the
    // room reserved above, and the first `len` words are written when it is set.
    unsafe {
        let (m, k) = (P::splat(mid), P::splat(mask));
        for chunk in chunks {
            let w = P::load(chunk.as_ptr());
            let mut keep = P::lacking(w, m);
            if let Some(c) = above {
                keep = P::both(keep, P::above(w, c));
            }
            len += P::put(dst.add(len), P::narrowed(w, k), keep);
        }
        for &w in rest {
            dst.add(len).write(narrowed(w, mask));
            len += usize::from(leaves(w, mid, above));
        }
        kept.set_len(len);
    }
}

/// How many words of `words` share no bit with `bits`, eight a step with AVX-512F
/// ([`lacking_in`]): a side's sizes count each top piece's bottom pieces this way
/// (`halves::boards`), one AND a piece.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn lacking512(words: &[u64], bits: u64) -> u64 {
    // SAFETY: this function runs only where the CPU has AVX-512F and popcnt (its features).
    unsafe { lacking_in::<Wide>(words, bits) }
}

/// [`lacking512`] four a step with AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn lacking256(words: &[u64], bits: u64) -> u64 {
    // SAFETY: this function runs only where the CPU has AVX2 and popcnt (its features).
    unsafe { lacking_in::<Narrow>(words, bits) }
}

/// [`lacking512`] in `P`'s vectors: a vector of words a step, its words without `bits`
/// counted; the last few words one by one.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn lacking_in<P: Pack<E = u64>>(words: &[u64], bits: u64) -> u64 {
    let chunks = words.chunks_exact(P::WORDS);
    let rest = chunks.remainder();
    let mut count = 0;
    // SAFETY: the CPU has `P`'s ISA (the caller's); each load reads one chunk's words.
    unsafe {
        let b = P::splat(bits);
        for chunk in chunks {
            count += P::count(P::lacking(P::load(chunk.as_ptr()), b));
        }
    }
    count as u64 + lacking_words(rest, bits)
}

/// Writes the words of `from` without `bit` to the front of `to`, in order, eight at a time
/// with AVX-512F ([`filter_in`]), and returns how many there are. `to` has room for every
/// word of `from` and one vector more.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn filter512<E: SplitWord>(from: &[E], bit: u64, to: &mut [E]) -> usize {
    // SAFETY: this function runs only where the CPU has AVX-512F and popcnt (its features).
    unsafe { filter_in::<E::Avx512>(from, bit, to) }
}

/// [`filter512`] four at a time with AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn filter256<E: SplitWord>(from: &[E], bit: u64, to: &mut [E]) -> usize {
    // SAFETY: this function runs only where the CPU has AVX2 and popcnt (its features).
    unsafe { filter_in::<E::Avx2>(from, bit, to) }
}

/// The words of `from` without `bit` written to the front of `to` in `P`'s vectors: a
/// vector of words a step, those without `bit` packed and stored at the end of the kept
/// ones; the last few words one by one. Returns how many were kept.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn filter_in<P: Pack>(from: &[P::E], bit: u64, to: &mut [P::E]) -> usize {
    // Room for every word and one full store past the last kept one.
    assert!(to.len() >= from.len() + P::WORDS);
    let dst = to.as_mut_ptr();
    let mut len = 0;
    let chunks = from.chunks_exact(P::WORDS);
    let rest = chunks.remainder();
    // SAFETY: the CPU has `P`'s ISA (the caller's). Each load reads one chunk's words; at
    // most the words before a chunk were kept, so a store at `dst + len` lies within `to`
    // (checked above).
    unsafe {
        let b = P::splat(bit);
        for chunk in chunks {
            let w = P::load(chunk.as_ptr());
            len += P::put(dst.add(len), w, P::lacking(w, b));
        }
    }
    len + filter_words(rest, bit, &mut to[len..])
}

/// The words of `table` without `bit` put first, and how many they are, with AVX2: a table
/// of at least [`TWO_ENDED`] words in place from both ends ([`two_ended`]), a smaller one
/// through `aside` ([`through_aside`]), where the plain loop swaps each word into place (a
/// store and a reload of the same words). The split partitions its probe words this way too
/// where its room for filtered copies has run out.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn partition256<E: SplitWord>(table: &mut [E], bit: u64, aside: &mut [E]) -> usize {
    // SAFETY: this function runs only where the CPU has AVX2 and popcnt (its features).
    unsafe { partition_in::<E::Avx2, 8>(table, bit, aside, TWO_ENDED) }
}

/// [`partition256`] eight words at a time with AVX-512F: the same loops over [`Wide`], whose
/// compressing store [`filter512`] uses, from both ends only from [`TWO_ENDED_WIDE`] words:
/// for tables too it takes less time than the plain loop (measured: results/zen4/2026-11-28-two-ended-partition/).
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn partition512<E: SplitWord>(table: &mut [E], bit: u64, aside: &mut [E]) -> usize {
    // SAFETY: this function runs only where the CPU has AVX-512F and popcnt (its features).
    unsafe { partition_in::<E::Avx512, 4>(table, bit, aside, TWO_ENDED_WIDE) }
}

/// The fewest words [`partition256`] partitions from both ends: below it the tail of
/// [`two_ended`] (up to four blocks a word at a time) costs more than `aside`'s copy saves,
/// above it reading and writing each word once saves more, most of all on the tables out of
/// cache at the top of a large board's split (measured: results/zen4/2026-11-28-partition-pick-early/). The unit tests
/// take 192 (three blocks of short words, the fewest [`two_ended`] takes), so that small
/// tables go both ways.
const TWO_ENDED: usize = if cfg!(test) { 192 } else { 512 };

/// [`TWO_ENDED`] for [`partition512`]: eight words a step through `aside` cost less than
/// four, so from both ends pays only for tables out of the caches (measured:
/// results/zen4/2026-11-28-two-ended-partition/).
const TWO_ENDED_WIDE: usize = if cfg!(test) { 192 } else { 65536 };

// [`two_ended`] reads three blocks before its loop.
const _: () = assert!(TWO_ENDED >= 3 * BLOCK && TWO_ENDED_WIDE >= 3 * BLOCK);

/// The most words [`two_ended`] reads at a time from one end: eight AVX2 vectors (four of
/// AVX-512), loaded before any is stored, 32 full words or 64 short ones: fewer a block
/// take more time, and more no longer fit the registers (measured: results/zen4/2026-11-28-two-ended-partition/).
const BLOCK: usize = 64;

/// [`partition256`] in `P`'s vectors, `B` a block.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn partition_in<P: Pack, const B: usize>(
    table: &mut [P::E],
    bit: u64,
    aside: &mut [P::E],
    from: usize,
) -> usize {
    // SAFETY: the caller's.
    unsafe {
        if table.len() >= from {
            two_ended::<P, B>(table, bit)
        } else {
            through_aside::<P>(table, bit, aside)
        }
    }
}

/// The words of `table` without `bit` put first, in place, a block of `B` vectors read at a
/// time from one end, and each vector's words stored packed at both ends: those without
/// `bit` at the front of the words stored at the start, those with it at the back of the
/// words stored at the end (each store a whole vector, the next overwriting its other
/// words). The first two blocks and the last are read first, so the blocks read go on being
/// three ahead of the words stored. Each block is read from the end that had less room
/// written free when the block before it was read, not when it was stored: so where the
/// next block lies does not wait for the counts of the block being stored, and its loads
/// overlap that block's work (chosen by the room as of the last store, each block's loads
/// would wait for the chain of counts before them). The words left at the end (those three
/// blocks and what was left unread, under a block) go word by word into the room they
/// leave, which is exactly theirs. Each word is read and written once, where
/// [`through_aside`] writes the words with `bit` twice and reads them again: at the top of
/// a split of n = 27 its tables of millions of words do not fit in any cache. The order of
/// the words on each side is not kept. Both stores of a vector take one packing
/// ([`Pack::store_apart`]): with AVX2 one `vpermd`, not one for each.
///
/// # Safety
///
/// The CPU has `P`'s ISA; `table` has at least three blocks' words.
#[inline(always)]
unsafe fn two_ended<P: Pack, const B: usize>(table: &mut [P::E], bit: u64) -> usize {
    let block = B * P::WORDS;
    let len = table.len();
    debug_assert!(block <= BLOCK && len >= 3 * block);
    // The first two blocks and the last, then what is left unread.
    let mut ends = [P::E::default(); 4 * BLOCK];
    ends[..2 * block].copy_from_slice(&table[..2 * block]);
    ends[2 * block..3 * block].copy_from_slice(&table[len - block..]);
    // Unread: `read.0..read.1`; stored: `..written.0` and `written.1..`.
    let (mut read, mut written) = ((2 * block, len - block), (0, len));
    // The room at the two ends, `read.0 - written.0` and `written.1 - read.1`, when the
    // last block was read, before its words were stored.
    let mut room = (read.0 - written.0, written.1 - read.1);
    let to = table.as_mut_ptr();
    // SAFETY: the CPU has `P`'s ISA (the caller's). The room at the two ends is three
    // blocks together before a block is read (a block stored for each read), four once it
    // is; each end has a block at least when a block's words are stored. The next block is
    // read from the end that had less (`room`, at most two blocks) when this one was read:
    // that end then holds what it had, less what this block stored there, at most a block
    // and at most what it had, plus the block read; the other had two blocks at least and
    // loses a block at most. Its vectors are loaded before any store, so the stores may
    // take the room it was read from. The stores at the front start at most a block less a
    // vector past `written.0` and write a vector, so they end within its room; the same at
    // the back.
    unsafe {
        let b = P::splat(bit);
        while read.1 - read.0 >= block {
            let from = if room.0 <= room.1 {
                read.0 += block;
                read.0 - block
            } else {
                read.1 -= block;
                read.1
            };
            room = (read.0 - written.0, written.1 - read.1);
            let mut v = [b; B];
            for (k, v) in v.iter_mut().enumerate() {
                *v = P::load(to.add(from + k * P::WORDS));
            }
            for v in v {
                let kept = P::lacking(v, b);
                let n = P::count(kept);
                P::store_apart(to.add(written.0), to.add(written.1 - P::WORDS), v, kept);
                written = (written.0 + n, written.1 - (P::WORDS - n));
            }
        }
    }
    let left = read.1 - read.0;
    ends[3 * block..3 * block + left].copy_from_slice(&table[read.0..read.1]);
    // Their room, `written.0..written.1`, holds them exactly: each word written at both
    // ends of it, the end whose side it is moving past it (no branch to mispredict).
    let b = P::E::of(bit);
    for &w in &ends[..3 * block + left] {
        table[written.0] = w;
        table[written.1 - 1] = w;
        let without = usize::from(w & b == P::E::default());
        written = (written.0 + without, written.1 - (1 - without));
    }
    debug_assert_eq!(written.0, written.1);
    written.0
}

/// The words of `table` without `bit` put first, in order: a vector of words a step, those
/// without `bit` packed and stored back in place (never past the words read), those with it
/// packed the same way into `aside`, which is copied after them at the end. The words keep
/// their order on each side.
///
/// # Safety
///
/// The CPU has `P`'s ISA.
#[inline(always)]
unsafe fn through_aside<P: Pack>(table: &mut [P::E], bit: u64, aside: &mut [P::E]) -> usize {
    assert!(aside.len() >= table.len() + P::WORDS);
    let (to, apart) = (table.as_mut_ptr(), aside.as_mut_ptr());
    let (mut lo, mut hi) = (0, 0);
    let whole = table.len() / P::WORDS * P::WORDS;
    // SAFETY: the CPU has `P`'s ISA (the caller's). A load at `j` reads words `j..j +
    // WORDS`, within `whole <= table.len()`; `lo <= j`, so the words stored at `lo` lie
    // within the words read so far; `hi <= j` and `aside` has room for `table.len() +
    // WORDS` words (checked above).
    unsafe {
        let b = P::splat(bit);
        for j in (0..whole).step_by(P::WORDS) {
            let w = P::load(to.add(j));
            let kept = P::lacking(w, b);
            let n = P::count(kept);
            P::store(to.add(lo), w, kept);
            P::store(apart.add(hi), w, P::others(kept));
            (lo, hi) = (lo + n, hi + P::WORDS - n);
        }
    }
    let b = P::E::of(bit);
    for j in whole..table.len() {
        let w = table[j];
        if w & b == P::E::default() {
            table[lo] = w;
            lo += 1;
        } else {
            aside[hi] = w;
            hi += 1;
        }
    }
    table[lo..].copy_from_slice(&aside[..hi]);
    lo
}
