//! The lane loop, written once over [`Vector`], and its entry points, one per ISA: each is
//! `#[target_feature]` and inlines the loop and the ISA's steps into itself.
//!
//! The loop's steps are `#[inline(always)]` functions, so each entry point compiles to one
//! loop with every lane's state in registers.

use super::vector::{Avx2, Avx512, SLOTS, Stacks, Vector};
use super::{Args, Hit, record_hits};
use crate::search::schedule::{MAX_N, Schedule, State};

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
    // SAFETY: the CPU has `V`'s ISA (the caller's); the stacks' indices are argued in `step`.
    unsafe {
        let k = Fixed::<V>::new(s, o, starts, first.level);
        // Frame `level * LANES + lane` of stack 0: the squares that were open on `level`
        // when the lane went down from it (the queen it placed is the lowest of them);
        // stacks 1 and 2 the diagonals where the frame keeps them.
        let mut stacks: Stacks = [[0; SLOTS]; 3];
        let mut walk = Walk::<V>::new(&k);
        // The start each lane is below (read only when recording).
        let mut lane_start = [0u32; 16];
        let mut next_start = 0usize;
        let mut total = base;
        let mut steps = 0u32;
        // Lanes that need a subtree: all of them at first.
        let mut idle: u32 = (1 << V::LANES) - 1;
        loop {
            walk.fill(&k, idle, &mut next_start, &mut lane_start);
            if V::bits(walk.busy) == 0 {
                break;
            }
            let done = walk.step::<KEEP_RD, KEEP_LD, RECORD>(&k, &mut stacks, &lane_start, hits);
            idle = V::bits(done);
            // Each lane adds at most one per step: empty the 32-bit counters long before
            // they could wrap.
            steps += 1;
            if steps == 1 << 30 {
                total += walk.found.sum();
                walk.found = k.zero;
                steps = 0;
            }
        }
        total + walk.found.sum()
    }
}

/// What one call of the loop holds fixed: the schedule, the starts, and the per-level
/// tables and constants in vectors.
struct Fixed<'a, V: Vector> {
    /// The schedule the lanes search.
    s: &'a Schedule,
    /// The bit of a lane that holds column 0.
    o: u32,
    /// The subtrees' roots, all on level `top`.
    starts: &'a [State],
    /// The level of every start.
    top: usize,
    /// Per level, indexed by the lane's own level: the shift down from it, and the shift
    /// down to it.
    shifts: V::Pair,
    /// Per level: the squares the fixed queens close one level below it.
    pre_below: V::Table,
    /// Each lane's index.
    lane_ids: V,
    /// The lanes in a vector, in each lane.
    width: V,
    /// Each lane's spare slot in the stacks, after every level's frames.
    spare: V,
    /// Zero in each lane.
    zero: V,
    /// One in each lane.
    one: V,
    /// The board's squares, in each lane.
    full: V,
    /// `top`, in each lane.
    top_v: V,
    /// The row before the last, where a lane counts instead of going down.
    before_last: V,
}

impl<'a, V: Vector> Fixed<'a, V> {
    /// The tables and constants for `starts` on level `top` of `s`, column 0 at bit `o`.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn new(s: &'a Schedule, o: u32, starts: &'a [State], top: usize) -> Self {
        let m = MAX_N as usize;
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        unsafe {
            let lane_ids = V::lane_ids();
            Fixed {
                s,
                o,
                starts,
                top,
                shifts: V::pair(
                    &std::array::from_fn(|l| s.shift[l]),
                    &std::array::from_fn(|l| if l > 0 { s.shift[l - 1] } else { 0 }),
                ),
                pre_below: V::table(&std::array::from_fn(|l| {
                    if l + 1 < m { s.pre[l + 1] << o } else { 0 }
                })),
                lane_ids,
                width: V::splat(V::LANES as i32),
                spare: lane_ids.add(V::splat((m * V::LANES) as i32)),
                zero: V::splat(0),
                one: V::splat(1),
                full: V::splat((s.full << o) as i32),
                top_v: V::splat(top as i32),
                before_last: V::splat(s.levels as i32 - 2),
            }
        }
    }
}

/// A node of each lane: the squares open on its level and the columns and diagonals its
/// queens take.
#[derive(Clone, Copy)]
struct Node<V> {
    open: V,
    cols: V,
    ld: V,
    rd: V,
}

impl<V: Vector> Node<V> {
    /// `other` in the lanes of `m`, `self` in the others.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn select(self, m: V::Mask, other: Node<V>) -> Node<V> {
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        unsafe {
            Node {
                open: self.open.select(m, other.open),
                cols: self.cols.select(m, other.cols),
                ld: self.ld.select(m, other.ld),
                rd: self.rd.select(m, other.rd),
            }
        }
    }
}

/// Each lane's walk down its subtree: its node and level, whether it is busy, and the
/// completions it has found.
struct Walk<V: Vector> {
    node: Node<V>,
    level: V,
    busy: V::Mask,
    found: V,
}

impl<V: Vector> Walk<V> {
    /// Every lane idle on level `top`, nothing found.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn new(k: &Fixed<'_, V>) -> Self {
        let zero = k.zero;
        let node = Node {
            open: zero,
            cols: zero,
            ld: zero,
            rd: zero,
        };
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        let busy = unsafe { V::none() };
        Walk {
            node,
            level: k.top_v,
            busy,
            found: zero,
        }
    }

    /// Gives the lanes in `idle` the next starts, from `next_start` on, while any are left,
    /// and notes in `lane_start` which start each lane is below.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn fill(
        &mut self,
        k: &Fixed<'_, V>,
        mut idle: u32,
        next_start: &mut usize,
        lane_start: &mut [u32; 16],
    ) {
        let (s, o, n) = (k.s, k.o, &mut self.node);
        while idle != 0 {
            let lane = idle.trailing_zeros() as usize;
            idle &= idle - 1;
            let Some(t) = k.starts.get(*next_start) else {
                break;
            };
            *next_start += 1;
            lane_start[lane] = *next_start as u32 - 1;
            // SAFETY: the CPU has `V`'s ISA (the caller's).
            unsafe {
                n.open = n.open.set_lane(lane, s.open(t) << o);
                n.cols = n.cols.set_lane(lane, (t.cols & s.full) << o);
                n.ld = n.ld.set_lane(lane, (t.ld & s.full) << o);
                n.rd = n.rd.set_lane(lane, (t.rd & s.full) << o);
                self.level = self.level.set_lane(lane, k.top as u32);
                self.busy = V::either(self.busy, V::only(lane));
            }
        }
    }

    /// One step: each busy lane with an open square takes the lowest one and goes down to
    /// it (or counts it, on the row before the last); each lane without one climbs back to
    /// its parent, or, at its start, is done and no longer busy. Returns the lanes done.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA; every lane's level is below 32 and no shallower than `top`.
    #[inline(always)]
    unsafe fn step<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
        &mut self,
        k: &Fixed<'_, V>,
        stacks: &mut Stacks,
        lane_start: &[u32; 16],
        hits: &mut Vec<Hit>,
    ) -> V::Mask {
        // SAFETY: the CPU has `V`'s ISA (the caller's); the stacks' indices are argued below.
        unsafe {
            let empty = self.node.open.eq_in(k.zero, self.busy);
            let go = V::but(self.busy, empty);
            let done = self.level.eq_in(k.top_v, empty);
            let pop = V::but(empty, done);

            // Popping lanes read their parent's frame; its address depends only on the
            // level, so the gather starts while the other lanes compute. For the lanes in
            // `pop`, `up` is `(level - 1) * LANES + lane` with `top <= level - 1` (popping
            // lanes are below their start), `level < 32` (levels of a schedule) and
            // `lane < LANES`: inside the stacks.
            let here = self.level.times_lanes().add(k.lane_ids);
            let up = here.sub(k.width);
            let frame = gather::<V, KEEP_RD, KEEP_LD>(stacks, up, pop, k.zero);
            let at = V::level(self.level);
            let ((sh, psh), pre) = (V::lookup_pair(&k.shifts, at), V::lookup(&k.pre_below, at));

            // Lanes with an open square take the lowest one.
            let bit = self.node.open.lowest();
            let child = self.child(bit, sh, pre, k.full);
            let last = self.level.eq_in(k.before_last, go);
            let hit = child.open.nonzero_in(last);
            self.found = self.found.count_in(hit);
            if RECORD {
                let boards = [bit, child.open];
                record::<V>(k, V::bits(hit), &stacks[0], boards, lane_start, hits);
            }
            let push = child.open.nonzero_in(V::but(go, last));
            // Pushing lanes write their frame at `here`: `level < levels - 2` below 32, so
            // inside the stacks, as is each lane's spare slot.
            let n = self.node;
            V::store::<KEEP_RD, KEEP_LD>(stacks, here, k.spare, push, [n.open, n.rd, n.ld]);

            let parent = self.parent::<KEEP_RD, KEEP_LD>(frame, psh);
            let moves = Moves {
                push,
                child,
                pop,
                parent,
            };
            self.advance(bit, moves, k.one);
            self.busy = V::but(self.busy, done);
            done
        }
    }

    /// The node one level down, with a queen on `bit`: `sh` is the shift down from each
    /// lane's level, `pre` the squares the fixed queens close there, `full` the board's.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn child(&self, bit: V, sh: V, pre: V, full: V) -> Node<V> {
        let n = &self.node;
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        unsafe {
            let cols = n.cols.or(bit);
            let ld = n.ld.or(bit).shl(sh);
            let rd = n.rd.or(bit).shr(sh);
            let taken = cols.or(ld).or(rd.or(pre));
            let open = taken.andnot(full);
            Node { open, cols, ld, rd }
        }
    }

    /// The node one level up, whose `frame` a popping lane read; `psh` is the shift down
    /// to each lane's level. The lane undoes its parent's queen, the lowest square of the
    /// frame. The diagonal bits the shift pushed off the word were off the board for good,
    /// so shifting back restores every bit that can still matter; a frame that keeps a
    /// diagonal mask gives it back as it was.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn parent<const KEEP_RD: bool, const KEEP_LD: bool>(
        &self,
        [open, kept_rd, kept_ld]: [V; 3],
        psh: V,
    ) -> Node<V> {
        let n = &self.node;
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        unsafe {
            let pbit = open.lowest();
            let ld = if KEEP_LD {
                kept_ld
            } else {
                pbit.andnot(n.ld.shr(psh))
            };
            let rd = if KEEP_RD {
                kept_rd
            } else {
                pbit.andnot(n.rd.shl(psh))
            };
            Node {
                open: open.xor(pbit),
                cols: n.cols.xor(pbit),
                ld,
                rd,
            }
        }
    }

    /// The new state: the lanes `moves` pushes go down to its child, those it pops go up
    /// to its parent, the others try the square after `bit`, their lowest open one.
    ///
    /// # Safety
    ///
    /// The CPU has `V`'s ISA.
    #[inline(always)]
    unsafe fn advance(&mut self, bit: V, moves: Moves<V>, one: V) {
        let Moves {
            push,
            child,
            pop,
            parent,
        } = moves;
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        unsafe {
            let above = self.level.sub(one);
            let next = Node {
                open: self.node.open.xor(bit),
                ..self.node
            };
            self.node = next.select(push, child).select(pop, parent);
            self.level = self.level.count_in(push).select(pop, above);
        }
    }
}

/// Where a step of the loop moves the lanes: those in `push` down to `child`, those in
/// `pop` up to `parent`.
struct Moves<V: Vector> {
    push: V::Mask,
    child: Node<V>,
    pop: V::Mask,
    parent: Node<V>,
}

/// The frames of the lanes in `pop` at `up`: the open squares, and the down-left and
/// down-right diagonals where the frame keeps them (`zero` where it does not).
///
/// # Safety
///
/// The CPU has `V`'s ISA; each lane of `up` in `pop` is below [`SLOTS`].
#[inline(always)]
unsafe fn gather<V: Vector, const KEEP_RD: bool, const KEEP_LD: bool>(
    stacks: &Stacks,
    up: V,
    pop: V::Mask,
    zero: V,
) -> [V; 3] {
    // SAFETY: the caller's.
    unsafe {
        let open = V::gather(&stacks[0], up, pop);
        let rd = if KEEP_RD {
            V::gather(&stacks[1], up, pop)
        } else {
            zero
        };
        let ld = if KEEP_LD {
            V::gather(&stacks[2], up, pop)
        } else {
            zero
        };
        [open, rd, ld]
    }
}

/// Appends to `hits` the boards of the lanes in `hit`, which stand on the row before the
/// last with a queen on `bit` and the last row's square `next` open.
///
/// # Safety
///
/// The CPU has `V`'s ISA.
#[inline(always)]
unsafe fn record<V: Vector>(
    k: &Fixed<'_, V>,
    hit: u32,
    open_stack: &[i32; SLOTS],
    [bit, next]: [V; 2],
    lane_start: &[u32; 16],
    hits: &mut Vec<Hit>,
) {
    if hit != 0 {
        let levels = [k.top, k.s.levels - 2];
        // SAFETY: the CPU has `V`'s ISA (the caller's).
        let (bits, nexts) = unsafe { (bit.lanes(), next.lanes()) };
        let lanes = [
            &bits[..V::LANES],
            &nexts[..V::LANES],
            &lane_start[..V::LANES],
        ];
        record_hits(hit, open_stack, lanes, levels, k.o, hits);
    }
}
