//! The counting loop in SIMD lanes: sixteen subtrees searched in lockstep with AVX-512.
//!
//! The scalar loop ([`crate::kernel`]) spends most of its time on mispredicted branches:
//! whether a level is used up, whether the next level is open. Here each of sixteen lanes
//! runs its own depth-first search of one subtree, and every step of the loop advances
//! every lane by one node: lanes with an open square descend (or count, on the row before
//! the last), lanes whose level is used up pop a frame. Which lanes do what is a mask, not
//! a branch, so the loop's one branch (are any lanes still busy?) is always predicted.
//!
//! Each lane has its own stack in memory, `frame[level * 16 + lane]`, written with a
//! scatter and read with a gather. The per-level tables of the schedule (`pre`, `shift`)
//! fit in two registers each and are looked up per lane with a two-table permute. A lane
//! that finishes its subtree takes the next one; all subtrees of one call start at the same
//! level of the same schedule.
//!
//! The last free row always has exactly one column left, so a lane on the row before it
//! counts one solution when the next row is open: a masked add, no popcount.

use crate::kernel::{MAX_N, Schedule, State};

/// Lanes per step.
pub const LANES: usize = 16;

/// Whether this CPU can run [`count_subtrees`].
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The number of completions below all of `starts`, which are nodes of `s` on one level at
/// least two above the last. `None` when the CPU lacks AVX-512 (see [`available`]).
pub fn count_subtrees(s: &Schedule, starts: &[State]) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        if available() {
            debug_assert!(
                starts
                    .iter()
                    .all(|t| t.level == starts[0].level && t.level + 2 <= s.levels)
            );
            // SAFETY: the CPU has AVX-512F (checked just above), the only feature the
            // function is compiled for.
            return Some(unsafe { avx512::count(s, starts) });
        }
    }
    let _ = (s, starts);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{LANES, MAX_N, Schedule, State};

    /// Frames of every lane at every level: `[level * LANES + lane]`.
    struct Stack {
        open: [i32; MAX_N as usize * LANES],
        cols: [i32; MAX_N as usize * LANES],
        ld: [i32; MAX_N as usize * LANES],
        rd: [i32; MAX_N as usize * LANES],
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn count(s: &Schedule, starts: &[State]) -> u64 {
        let Some(first) = starts.first() else {
            return 0;
        };
        let top = first.level as i32;
        let load16 = |xs: &[u32]| {
            let mut a = [0i32; 16];
            for (d, &x) in a.iter_mut().zip(xs) {
                *d = x as i32;
            }
            // SAFETY: `a` is 16 i32, the 64 bytes the load reads; the load is unaligned.
            unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
        };
        let (pre_lo, pre_hi) = (load16(&s.pre[..16]), load16(&s.pre[16..]));
        let (sh_lo, sh_hi) = (load16(&s.shift[..16]), load16(&s.shift[16..]));
        let lane_ids = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let (zero, one) = (_mm512_setzero_si512(), _mm512_set1_epi32(1));
        let full = _mm512_set1_epi32(s.full as i32);
        let top_v = _mm512_set1_epi32(top);
        let before_last = _mm512_set1_epi32(s.levels as i32 - 2);

        let mut stack = Stack {
            open: [0; MAX_N as usize * LANES],
            cols: [0; MAX_N as usize * LANES],
            ld: [0; MAX_N as usize * LANES],
            rd: [0; MAX_N as usize * LANES],
        };
        let (mut open, mut cols, mut ld, mut rd, mut level) = (zero, zero, zero, zero, top_v);
        let mut busy: __mmask16 = 0;
        let mut next_start = 0usize;
        let mut hits = zero;
        let mut total = 0u64;
        let mut steps = 0u32;
        // Lanes that need a subtree: all of them at first.
        let mut idle: __mmask16 = 0xffff;
        loop {
            // Give idle lanes the next subtrees.
            while idle != 0 {
                let lane = idle.trailing_zeros();
                idle &= idle - 1;
                let Some(t) = starts.get(next_start) else {
                    break;
                };
                next_start += 1;
                let k: __mmask16 = 1 << lane;
                open = _mm512_mask_set1_epi32(open, k, s.open(t) as i32);
                cols = _mm512_mask_set1_epi32(cols, k, t.cols as i32);
                ld = _mm512_mask_set1_epi32(ld, k, t.ld as i32);
                rd = _mm512_mask_set1_epi32(rd, k, t.rd as i32);
                level = _mm512_mask_set1_epi32(level, k, top);
                busy |= k;
            }
            if busy == 0 {
                break;
            }
            let empty = _mm512_mask_cmpeq_epi32_mask(busy, open, zero);
            let go = busy & !empty;
            let done = _mm512_mask_cmpeq_epi32_mask(empty, level, top_v);
            let pop = empty & !done;

            // Lanes with an open square take the lowest one.
            let bit = _mm512_and_si512(open, _mm512_sub_epi32(zero, open));
            let rest = _mm512_xor_si512(open, bit);
            let sh = _mm512_permutex2var_epi32(sh_lo, level, sh_hi);
            let below = _mm512_add_epi32(level, one);
            let pre = _mm512_permutex2var_epi32(pre_lo, below, pre_hi);
            let ncols = _mm512_or_si512(cols, bit);
            let nld = _mm512_sllv_epi32(_mm512_or_si512(ld, bit), sh);
            let nrd = _mm512_srlv_epi32(_mm512_or_si512(rd, bit), sh);
            let taken = _mm512_or_si512(_mm512_or_si512(ncols, nld), _mm512_or_si512(nrd, pre));
            let next = _mm512_andnot_si512(taken, full);
            let last = _mm512_mask_cmpeq_epi32_mask(go, level, before_last);
            let hit = _mm512_mask_test_epi32_mask(last, next, next);
            hits = _mm512_mask_add_epi32(hits, hit, hits, one);
            let push = _mm512_mask_test_epi32_mask(go & !last, next, next);

            // Descending lanes save their frame; popping lanes load their parent's.
            let here = _mm512_add_epi32(_mm512_slli_epi32::<4>(level), lane_ids);
            let up = _mm512_sub_epi32(here, _mm512_set1_epi32(LANES as i32));
            // SAFETY: every index is `level * 16 + lane` with `level < 32` (levels of a
            // schedule) and `lane < 16`, inside the 512-entry arrays; scale 4 is i32.
            let (p_open, p_cols, p_ld, p_rd) = unsafe {
                _mm512_mask_i32scatter_epi32::<4>(stack.open.as_mut_ptr(), push, here, rest);
                _mm512_mask_i32scatter_epi32::<4>(stack.cols.as_mut_ptr(), push, here, cols);
                _mm512_mask_i32scatter_epi32::<4>(stack.ld.as_mut_ptr(), push, here, ld);
                _mm512_mask_i32scatter_epi32::<4>(stack.rd.as_mut_ptr(), push, here, rd);
                (
                    _mm512_mask_i32gather_epi32::<4>(rest, pop, up, stack.open.as_ptr()),
                    _mm512_mask_i32gather_epi32::<4>(cols, pop, up, stack.cols.as_ptr()),
                    _mm512_mask_i32gather_epi32::<4>(ld, pop, up, stack.ld.as_ptr()),
                    _mm512_mask_i32gather_epi32::<4>(rd, pop, up, stack.rd.as_ptr()),
                )
            };
            // New state: pushed lanes go down, popped lanes go up, others keep trying.
            open = _mm512_mask_mov_epi32(p_open, push, next);
            cols = _mm512_mask_mov_epi32(p_cols, push, ncols);
            ld = _mm512_mask_mov_epi32(p_ld, push, nld);
            rd = _mm512_mask_mov_epi32(p_rd, push, nrd);
            level = _mm512_mask_add_epi32(level, push, level, one);
            level = _mm512_mask_sub_epi32(level, pop, level, one);
            busy &= !done;
            idle = done;

            // Each lane adds at most one per step: empty the 32-bit counters long before
            // they could wrap.
            steps += 1;
            if steps == 1 << 30 {
                total += sum(hits);
                hits = zero;
                steps = 0;
            }
        }
        total + sum(hits)
    }

    #[target_feature(enable = "avx512f")]
    fn sum(v: __m512i) -> u64 {
        let mut a = [0u32; 16];
        // SAFETY: `a` is 16 u32, the 64 bytes the store writes; the store is unaligned.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) };
        a.iter().map(|&x| u64::from(x)).sum()
    }
}
