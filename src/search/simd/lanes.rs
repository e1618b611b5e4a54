//! The lane loop, written once over [`Vector`], and its entry points, one per ISA: each is
//! `#[target_feature]` and inlines the loop and the ISA's steps into itself.

use super::vector::{Avx2, Avx512, SLOTS, Stacks, Vector};
use super::{Args, record_hits};
use crate::search::schedule::MAX_N;

/// The loop in sixteen AVX-512 lanes; `KEEP_RD`, `KEEP_LD` and `RECORD` as for [`search`].
#[target_feature(enable = "avx512f")]
pub(super) fn avx512<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
    args: Args<'_>,
) -> u128 {
    // SAFETY: this function runs only where the CPU has AVX-512F (its target feature).
    unsafe { search::<Avx512, KEEP_RD, KEEP_LD, RECORD>(args) }
}

/// The loop in eight AVX2 lanes; `KEEP_RD`, `KEEP_LD` and `RECORD` as for [`search`].
#[target_feature(enable = "avx2")]
pub(super) fn avx2<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
    args: Args<'_>,
) -> u128 {
    // SAFETY: this function runs only where the CPU has AVX2 (its target feature).
    unsafe { search::<Avx2, KEEP_RD, KEEP_LD, RECORD>(args) }
}

/// The loop: every step advances each lane by one node of its subtree. Frames keep the
/// down-left diagonals when `KEEP_RD`, the down-right ones when `KEEP_LD`; column 0 of the
/// board is bit `o` of a lane, and each completion is appended to `hits` when `RECORD`.
/// Returns `base` plus the number of completions.
///
/// # Safety
///
/// The CPU has `V`'s ISA.
#[inline(always)]
unsafe fn search<V: Vector, const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
    (s, o, starts, hits, base): Args<'_>,
) -> u128 {
    let Some(first) = starts.first() else {
        return base;
    };
    let top = first.level as i32;
    let m = MAX_N as usize;
    // SAFETY: the CPU has `V`'s ISA (the caller's); the stacks' indices are argued below.
    unsafe {
        // The per-level tables, each indexed by the lane's own level: the shift down from
        // it, the squares the fixed queens close one level below, the shift down to it.
        let shift = V::table(&std::array::from_fn(|l| s.shift[l]));
        let pre_below = V::table(&std::array::from_fn(|l| {
            if l + 1 < m { s.pre[l + 1] << o } else { 0 }
        }));
        let shift_above = V::table(&std::array::from_fn(
            |l| {
                if l > 0 { s.shift[l - 1] } else { 0 }
            },
        ));
        let lane_ids = V::lane_ids();
        let width = V::splat(V::LANES as i32);
        let spare = lane_ids.add(V::splat((m * V::LANES) as i32));
        let (zero, one) = (V::splat(0), V::splat(1));
        let full = V::splat((s.full << o) as i32);
        let top_v = V::splat(top);
        let before_last = V::splat(s.levels as i32 - 2);

        // Frame `level * LANES + lane` of stack 0: the squares that were open on `level`
        // when the lane went down from it (the queen it placed is the lowest of them);
        // stacks 1 and 2 the diagonals where the frame keeps them.
        let mut stacks: Stacks = [[0; SLOTS]; 3];
        let (mut open, mut cols, mut ld, mut rd, mut level) = (zero, zero, zero, zero, top_v);
        let mut busy = V::none();
        // The start each lane is below (read only when recording).
        let mut lane_start = [0u32; 16];
        let mut next_start = 0usize;
        let mut found = zero;
        let mut total = base;
        let mut steps = 0u32;
        // Lanes that need a subtree: all of them at first.
        let mut idle: u32 = (1 << V::LANES) - 1;
        loop {
            // Give idle lanes the next subtrees.
            while idle != 0 {
                let lane = idle.trailing_zeros() as usize;
                idle &= idle - 1;
                let Some(t) = starts.get(next_start) else {
                    break;
                };
                next_start += 1;
                lane_start[lane] = next_start as u32 - 1;
                open = open.set_lane(lane, s.open(t) << o);
                cols = cols.set_lane(lane, (t.cols & s.full) << o);
                ld = ld.set_lane(lane, (t.ld & s.full) << o);
                rd = rd.set_lane(lane, (t.rd & s.full) << o);
                level = level.set_lane(lane, top as u32);
                busy = V::either(busy, V::only(lane));
            }
            if V::bits(busy) == 0 {
                break;
            }
            let empty = open.eq_in(zero, busy);
            let go = V::but(busy, empty);
            let done = level.eq_in(top_v, empty);
            let pop = V::but(empty, done);

            // Popping lanes read their parent's frame; its address depends only on the
            // level, so the gather starts while the other lanes compute. For the lanes in
            // `pop`, `up` is `(level - 1) * LANES + lane` with `top <= level - 1` (popping
            // lanes are below their start), `level < 32` (levels of a schedule) and
            // `lane < LANES`: inside the stacks.
            let here = level.times_lanes().add(lane_ids);
            let up = here.sub(width);
            let parent = V::gather(&stacks[0], up, pop);
            let kept_rd = if KEEP_RD {
                V::gather(&stacks[1], up, pop)
            } else {
                zero
            };
            let kept_ld = if KEEP_LD {
                V::gather(&stacks[2], up, pop)
            } else {
                zero
            };
            let at = V::level(level);
            let (sh, pre, psh) = (
                V::lookup(&shift, at),
                V::lookup(&pre_below, at),
                V::lookup(&shift_above, at),
            );

            // Lanes with an open square take the lowest one.
            let bit = open.lowest();
            let ncols = cols.or(bit);
            let nld = ld.or(bit).shl(sh);
            let nrd = rd.or(bit).shr(sh);
            let taken = ncols.or(nld).or(nrd.or(pre));
            let next = taken.andnot(full);
            let last = level.eq_in(before_last, go);
            let hit = next.nonzero_in(last);
            found = found.count_in(hit);
            if RECORD {
                let hit_bits = V::bits(hit);
                if hit_bits != 0 {
                    let levels = [top as usize, s.levels - 2];
                    let (bits, nexts) = (bit.lanes(), next.lanes());
                    let lanes = [&bits[..V::LANES], &nexts[..V::LANES]];
                    let from = &lane_start[..V::LANES];
                    record_hits(hit_bits, &stacks[0], lanes, from, levels, o, hits);
                }
            }
            let push = next.nonzero_in(V::but(go, last));
            // Pushing lanes write their frame at `here`: `level < levels - 2` below 32, so
            // inside the stacks, as is each lane's spare slot.
            V::store::<KEEP_RD, KEEP_LD>(&mut stacks, here, spare, push, [open, rd, ld]);

            // A popped lane undoes its parent's queen: the lowest square of the frame. The
            // diagonal bits the shift pushed off the word were off the board for good, so
            // shifting back restores every bit that can still matter.
            let pbit = parent.lowest();
            let pcols = cols.xor(pbit);
            let pld = if KEEP_LD {
                kept_ld
            } else {
                pbit.andnot(ld.shr(psh))
            };
            let prd = if KEEP_RD {
                kept_rd
            } else {
                pbit.andnot(rd.shl(psh))
            };

            // New state: pushed lanes go down, popped lanes go up, others try the next square.
            let above = level.sub(one);
            open = open
                .xor(bit)
                .select(push, next)
                .select(pop, parent.xor(pbit));
            cols = cols.select(push, ncols).select(pop, pcols);
            ld = ld.select(push, nld).select(pop, pld);
            rd = rd.select(push, nrd).select(pop, prd);
            level = level.count_in(push).select(pop, above);
            busy = V::but(busy, done);
            idle = V::bits(done);

            // Each lane adds at most one per step: empty the 32-bit counters long before
            // they could wrap.
            steps += 1;
            if steps == 1 << 30 {
                total += found.sum();
                found = zero;
                steps = 0;
            }
        }
        total + found.sum()
    }
}
