//! The steps of the search's lane loop in one ISA each: [`Vector`], a vector of 32-bit
//! lanes with its mask, and its two forms, sixteen lanes of AVX-512 ([`Avx512`]) and eight
//! of AVX2 ([`Avx2`]). The loop itself ([`super::lanes`]) is written once over the trait;
//! a NEON or AVX10 form is one more `impl` here and one entry point in [`super::lanes`].
//!
//! Every method is a few instructions, `#[inline(always)]` and `unsafe`: it may run only
//! where the CPU has the ISA, which the loop's `#[target_feature]` entry points guarantee.
//! Inlined into them, the methods compile as if the loop had been written with the
//! intrinsics directly (memchr's `Vector` trait is the model).

use std::arch::x86_64::*;

use crate::search::schedule::MAX_N;

/// Frames in one of a lane loop's stacks: a frame per level and lane (`level * LANES +
/// lane`) for the widest loop, and a spare slot per lane after them, where an ISA without
/// a scatter stores the lanes that do not push.
pub(super) const SLOTS: usize = MAX_N as usize * Avx512::LANES + Avx512::LANES;

/// A loop's three stacks: the open squares, the down-left and the down-right diagonals.
pub(super) type Stacks = [[i32; SLOTS]; 3];

/// A vector of [`Vector::LANES`] 32-bit lanes, each a subtree's search, and the steps the
/// lane loop takes on them.
///
/// # Safety
///
/// Every method may be called only on a CPU with the implementing ISA.
pub(super) unsafe trait Vector: Copy {
    /// Lanes in a vector.
    const LANES: usize;
    /// A set of lanes (a bit each, or a vector of all-ones lanes).
    type Mask: Copy;
    /// A 32-entry table, one entry per level, as [`Vector::lookup`] reads it.
    type Table;
    /// The lanes' levels prepared for [`Vector::lookup`] (shared by the step's lookups).
    type Level: Copy;
    /// Two 32-entry tables of entries below 2^16, as [`Vector::lookup_pair`] reads them.
    type Pair;

    /// Every lane `x`.
    unsafe fn splat(x: i32) -> Self;
    /// Lane `i` holds `i`.
    unsafe fn lane_ids() -> Self;
    /// The lanes of `self`.
    unsafe fn lanes(self) -> [u32; 16];
    /// `self` with lane `lane` set to `x`.
    unsafe fn set_lane(self, lane: usize, x: u32) -> Self;

    /// Lane-wise `&`.
    unsafe fn and(self, o: Self) -> Self;
    /// Lane-wise `|`.
    unsafe fn or(self, o: Self) -> Self;
    /// Lane-wise `^`.
    unsafe fn xor(self, o: Self) -> Self;
    /// Lane-wise `!self & o`.
    unsafe fn andnot(self, o: Self) -> Self;
    /// Lane-wise wrapping `+`.
    unsafe fn add(self, o: Self) -> Self;
    /// Lane-wise wrapping `-`.
    unsafe fn sub(self, o: Self) -> Self;
    /// Each lane shifted left by the same lane of `by`.
    unsafe fn shl(self, by: Self) -> Self;
    /// Each lane shifted right (logically) by the same lane of `by`.
    unsafe fn shr(self, by: Self) -> Self;
    /// Each lane times [`Vector::LANES`] (a shift).
    unsafe fn times_lanes(self) -> Self;

    /// The lanes of `within` where `self` equals `o`.
    unsafe fn eq_in(self, o: Self, within: Self::Mask) -> Self::Mask;
    /// The lanes of `within` where `self` is not zero.
    unsafe fn nonzero_in(self, within: Self::Mask) -> Self::Mask;
    /// `o` in the lanes of `m`, `self` in the others.
    unsafe fn select(self, m: Self::Mask, o: Self) -> Self;
    /// `self + 1` in the lanes of `m`, `self` in the others.
    unsafe fn count_in(self, m: Self::Mask) -> Self;

    /// No lane.
    unsafe fn none() -> Self::Mask;
    /// Lane `lane` alone.
    unsafe fn only(lane: usize) -> Self::Mask;
    /// The lanes of `a` or of `b`.
    unsafe fn either(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// The lanes of `a` not in `b`.
    unsafe fn but(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// The lanes of `m` as bits, lane `i` bit `i`.
    unsafe fn bits(m: Self::Mask) -> u32;

    /// The table of `t`.
    unsafe fn table(t: &[u32; 32]) -> Self::Table;
    /// `level` (each lane below 32) prepared for lookups.
    unsafe fn level(level: Self) -> Self::Level;
    /// Each lane's entry of `t` at its level.
    unsafe fn lookup(t: &Self::Table, level: Self::Level) -> Self;
    /// The tables of `a` and `b`, each entry below 2^16, read together.
    unsafe fn pair(a: &[u32; 32], b: &[u32; 32]) -> Self::Pair;
    /// Each lane's entries of both tables of `t` at its level.
    unsafe fn lookup_pair(t: &Self::Pair, level: Self::Level) -> (Self, Self);

    /// Lane `i` of `stack[at[i]]` for the lanes of `m`, zero in the others.
    ///
    /// # Safety
    ///
    /// Each `at[i]` of a lane in `m` is below [`SLOTS`].
    unsafe fn gather(stack: &[i32; SLOTS], at: Self, m: Self::Mask) -> Self;
    /// Stores, in the lanes of `m`, `values[k]` at `at` of stack `k` (the open squares, and
    /// the diagonals where `RD` and `LD` say); other lanes store nothing, or their value at
    /// `spare` (a slot of their own that no frame uses).
    ///
    /// # Safety
    ///
    /// Each lane of `at` in `m`, and each of `spare`, is below [`SLOTS`].
    unsafe fn store<const RD: bool, const LD: bool>(
        stacks: &mut Stacks,
        at: Self,
        spare: Self,
        m: Self::Mask,
        values: [Self; 3],
    );

    /// The lanes' sum.
    unsafe fn sum(self) -> u128 {
        // SAFETY: the caller's.
        let lanes = unsafe { self.lanes() };
        lanes[..Self::LANES].iter().map(|&x| u128::from(x)).sum()
    }

    /// The lowest set bit of each lane.
    unsafe fn lowest(self) -> Self {
        // SAFETY: the caller's.
        unsafe { self.and(Self::splat(0).sub(self)) }
    }
}

/// Sixteen lanes of AVX-512F: masks are `__mmask16`, tables two registers read with a
/// two-table permute, frames stored with a masked scatter.
#[derive(Clone, Copy)]
pub(super) struct Avx512(__m512i);

// SAFETY: every method uses AVX-512F alone; the trait's contract puts it on the caller.
unsafe impl Vector for Avx512 {
    const LANES: usize = 16;
    type Mask = __mmask16;
    type Table = (__m512i, __m512i);
    type Level = __m512i;
    // A lookup is one permutation: two tables cost two.
    type Pair = [(__m512i, __m512i); 2];

    #[inline(always)]
    unsafe fn splat(x: i32) -> Self {
        Avx512(unsafe { _mm512_set1_epi32(x) })
    }
    #[inline(always)]
    unsafe fn lane_ids() -> Self {
        Avx512(unsafe { _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0) })
    }
    #[inline(always)]
    unsafe fn lanes(self) -> [u32; 16] {
        let mut a = [0u32; 16];
        // SAFETY: `a` is 16 u32, the 64 bytes the store writes; the store is unaligned.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), self.0) };
        a
    }
    #[inline(always)]
    unsafe fn set_lane(self, lane: usize, x: u32) -> Self {
        Avx512(unsafe { _mm512_mask_set1_epi32(self.0, 1 << lane, x as i32) })
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_and_si512(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_or_si512(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_xor_si512(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn andnot(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_andnot_si512(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        Avx512(unsafe { _mm512_sub_epi32(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn shl(self, by: Self) -> Self {
        Avx512(unsafe { _mm512_sllv_epi32(self.0, by.0) })
    }
    #[inline(always)]
    unsafe fn shr(self, by: Self) -> Self {
        Avx512(unsafe { _mm512_srlv_epi32(self.0, by.0) })
    }
    #[inline(always)]
    unsafe fn times_lanes(self) -> Self {
        Avx512(unsafe { _mm512_slli_epi32::<4>(self.0) })
    }
    #[inline(always)]
    unsafe fn eq_in(self, o: Self, within: __mmask16) -> __mmask16 {
        unsafe { _mm512_mask_cmpeq_epi32_mask(within, self.0, o.0) }
    }
    #[inline(always)]
    unsafe fn nonzero_in(self, within: __mmask16) -> __mmask16 {
        unsafe { _mm512_mask_test_epi32_mask(within, self.0, self.0) }
    }
    #[inline(always)]
    unsafe fn select(self, m: __mmask16, o: Self) -> Self {
        Avx512(unsafe { _mm512_mask_mov_epi32(self.0, m, o.0) })
    }
    #[inline(always)]
    unsafe fn count_in(self, m: __mmask16) -> Self {
        Avx512(unsafe { _mm512_mask_add_epi32(self.0, m, self.0, _mm512_set1_epi32(1)) })
    }
    #[inline(always)]
    unsafe fn none() -> __mmask16 {
        0
    }
    #[inline(always)]
    unsafe fn only(lane: usize) -> __mmask16 {
        1 << lane
    }
    #[inline(always)]
    unsafe fn either(a: __mmask16, b: __mmask16) -> __mmask16 {
        a | b
    }
    #[inline(always)]
    unsafe fn but(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & !b
    }
    #[inline(always)]
    unsafe fn bits(m: __mmask16) -> u32 {
        u32::from(m)
    }
    #[inline(always)]
    unsafe fn table(t: &[u32; 32]) -> (__m512i, __m512i) {
        // SAFETY: each load reads 16 u32 (64 bytes) from within `t`; loads are unaligned.
        unsafe {
            (
                _mm512_loadu_si512(t.as_ptr().cast()),
                _mm512_loadu_si512(t[16..].as_ptr().cast()),
            )
        }
    }
    #[inline(always)]
    unsafe fn level(level: Self) -> __m512i {
        level.0
    }
    #[inline(always)]
    unsafe fn lookup(t: &(__m512i, __m512i), level: __m512i) -> Self {
        Avx512(unsafe { _mm512_permutex2var_epi32(t.0, level, t.1) })
    }
    #[inline(always)]
    unsafe fn pair(a: &[u32; 32], b: &[u32; 32]) -> [(__m512i, __m512i); 2] {
        unsafe { [Self::table(a), Self::table(b)] }
    }
    #[inline(always)]
    unsafe fn lookup_pair(t: &[(__m512i, __m512i); 2], level: __m512i) -> (Self, Self) {
        unsafe { (Self::lookup(&t[0], level), Self::lookup(&t[1], level)) }
    }
    #[inline(always)]
    unsafe fn gather(stack: &[i32; SLOTS], at: Self, m: __mmask16) -> Self {
        let zero = unsafe { _mm512_setzero_si512() };
        // SAFETY: the lanes of `m` read inside `stack` (the caller's); scale 4 is i32.
        Avx512(unsafe { _mm512_mask_i32gather_epi32::<4>(zero, m, at.0, stack.as_ptr()) })
    }
    #[inline(always)]
    unsafe fn store<const RD: bool, const LD: bool>(
        stacks: &mut Stacks,
        at: Self,
        _spare: Self,
        m: __mmask16,
        values: [Self; 3],
    ) {
        let [open, rd, ld] = stacks;
        // SAFETY: the lanes of `m` write inside the stacks (the caller's); scale 4 is i32.
        unsafe {
            _mm512_mask_i32scatter_epi32::<4>(open.as_mut_ptr(), m, at.0, values[0].0);
            if RD {
                _mm512_mask_i32scatter_epi32::<4>(rd.as_mut_ptr(), m, at.0, values[1].0);
            }
            if LD {
                _mm512_mask_i32scatter_epi32::<4>(ld.as_mut_ptr(), m, at.0, values[2].0);
            }
        }
    }
}

/// Eight lanes of AVX2: masks are vectors (all ones in a lane that is in), tables four
/// registers read with a permute each and two blends on the level's bits 3 and 4, and
/// frames stored lane by lane (AVX2 has no scatter), every lane at once: a pushing lane at
/// its frame, the others at their spare slot, so that the store has no branch.
#[derive(Clone, Copy)]
pub(super) struct Avx2(__m256i);

impl Avx2 {
    /// `b` in the lanes where `on`'s sign bit is set, `a` in the others
    /// (`_mm256_blendv_ps`).
    #[inline(always)]
    unsafe fn pick(a: __m256i, b: __m256i, on: __m256i) -> __m256i {
        unsafe {
            _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
                _mm256_castsi256_ps(on),
            ))
        }
    }
}

// SAFETY: every method uses AVX2 (and AVX) alone; the trait's contract puts it on the
// caller.
unsafe impl Vector for Avx2 {
    const LANES: usize = 8;
    type Mask = __m256i;
    type Table = [__m256i; 4];
    type Level = (__m256i, __m256i, __m256i);
    // A lookup is four permutations and three blends: two tables share one, each entry in
    // a half of the lane.
    type Pair = [__m256i; 4];

    #[inline(always)]
    unsafe fn splat(x: i32) -> Self {
        Avx2(unsafe { _mm256_set1_epi32(x) })
    }
    #[inline(always)]
    unsafe fn lane_ids() -> Self {
        Avx2(unsafe { _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0) })
    }
    #[inline(always)]
    unsafe fn lanes(self) -> [u32; 16] {
        let mut a = [0u32; 16];
        // SAFETY: `a` has room for the 8 u32 (32 bytes) the store writes; it is unaligned.
        unsafe { _mm256_storeu_si256(a.as_mut_ptr().cast(), self.0) };
        a
    }
    #[inline(always)]
    unsafe fn set_lane(self, lane: usize, x: u32) -> Self {
        unsafe {
            let k = Self::only(lane);
            Avx2(_mm256_blendv_epi8(self.0, _mm256_set1_epi32(x as i32), k))
        }
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_and_si256(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_or_si256(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn andnot(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_andnot_si256(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_add_epi32(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        Avx2(unsafe { _mm256_sub_epi32(self.0, o.0) })
    }
    #[inline(always)]
    unsafe fn shl(self, by: Self) -> Self {
        Avx2(unsafe { _mm256_sllv_epi32(self.0, by.0) })
    }
    #[inline(always)]
    unsafe fn shr(self, by: Self) -> Self {
        Avx2(unsafe { _mm256_srlv_epi32(self.0, by.0) })
    }
    #[inline(always)]
    unsafe fn times_lanes(self) -> Self {
        Avx2(unsafe { _mm256_slli_epi32::<3>(self.0) })
    }
    #[inline(always)]
    unsafe fn eq_in(self, o: Self, within: __m256i) -> __m256i {
        unsafe { _mm256_and_si256(within, _mm256_cmpeq_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn nonzero_in(self, within: __m256i) -> __m256i {
        unsafe {
            let zero = _mm256_cmpeq_epi32(self.0, _mm256_setzero_si256());
            _mm256_andnot_si256(zero, within)
        }
    }
    #[inline(always)]
    unsafe fn select(self, m: __m256i, o: Self) -> Self {
        Avx2(unsafe { _mm256_blendv_epi8(self.0, o.0, m) })
    }
    #[inline(always)]
    unsafe fn count_in(self, m: __m256i) -> Self {
        // A lane in `m` is -1: subtracting it adds one.
        Avx2(unsafe { _mm256_sub_epi32(self.0, m) })
    }
    #[inline(always)]
    unsafe fn none() -> __m256i {
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn only(lane: usize) -> __m256i {
        unsafe { _mm256_cmpeq_epi32(Self::lane_ids().0, _mm256_set1_epi32(lane as i32)) }
    }
    #[inline(always)]
    unsafe fn either(a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_or_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn but(a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_andnot_si256(b, a) }
    }
    #[inline(always)]
    unsafe fn bits(m: __m256i) -> u32 {
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32 }
    }
    #[inline(always)]
    unsafe fn table(t: &[u32; 32]) -> [__m256i; 4] {
        // SAFETY: each load reads 8 u32 (32 bytes) from within `t`; loads are unaligned.
        std::array::from_fn(|q| unsafe { _mm256_loadu_si256(t[8 * q..].as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn level(level: Self) -> (__m256i, __m256i, __m256i) {
        // Levels are below 32: bits 3 and 4 pick the table's quarter, shifted to the sign
        // bit for the blends.
        unsafe {
            (
                level.0,
                _mm256_slli_epi32::<28>(level.0),
                _mm256_slli_epi32::<27>(level.0),
            )
        }
    }
    #[inline(always)]
    unsafe fn lookup(t: &[__m256i; 4], (level, b3, b4): (__m256i, __m256i, __m256i)) -> Self {
        unsafe {
            let q = t.map(|v| _mm256_permutevar8x32_epi32(v, level));
            Avx2(Self::pick(
                Self::pick(q[0], q[1], b3),
                Self::pick(q[2], q[3], b3),
                b4,
            ))
        }
    }
    #[inline(always)]
    unsafe fn pair(a: &[u32; 32], b: &[u32; 32]) -> [__m256i; 4] {
        debug_assert!(a.iter().chain(b).all(|&x| x < 1 << 16));
        unsafe { Self::table(&std::array::from_fn(|l| a[l] | b[l] << 16)) }
    }
    #[inline(always)]
    unsafe fn lookup_pair(t: &[__m256i; 4], level: Self::Level) -> (Self, Self) {
        unsafe {
            let both = Self::lookup(t, level).0;
            (
                Avx2(_mm256_and_si256(both, _mm256_set1_epi32(0xffff))),
                Avx2(_mm256_srli_epi32::<16>(both)),
            )
        }
    }
    #[inline(always)]
    unsafe fn gather(stack: &[i32; SLOTS], at: Self, m: __m256i) -> Self {
        let zero = unsafe { _mm256_setzero_si256() };
        // SAFETY: the lanes of `m` read inside `stack` (the caller's); scale 4 is i32.
        Avx2(unsafe { _mm256_mask_i32gather_epi32::<4>(zero, stack.as_ptr(), at.0, m) })
    }
    #[inline(always)]
    unsafe fn store<const RD: bool, const LD: bool>(
        stacks: &mut Stacks,
        at: Self,
        spare: Self,
        m: __m256i,
        values: [Self; 3],
    ) {
        // Every lane stores: a lane of `m` its frame, the others their spare slot.
        let at = unsafe { _mm256_blendv_epi8(spare.0, at.0, m) };
        let (idx, vals) = unsafe { (Avx2(at).lanes(), values.map(|v| v.lanes())) };
        let [open, rd, ld] = stacks;
        for lane in 0..Self::LANES {
            // Masked so the compiler sees every index is inside the stacks.
            let i = idx[lane] as usize % SLOTS;
            open[i] = vals[0][lane] as i32;
            if RD {
                rd[i] = vals[1][lane] as i32;
            }
            if LD {
                ld[i] = vals[2][lane] as i32;
            }
        }
    }
}
