//! The counting loop in SIMD lanes: sixteen subtrees searched in lockstep with AVX-512, and
//! its feeding: how a subtree is cut into batches of smaller subtrees for the lanes.
//!
//! The scalar loop ([`crate::scalar`]) spends most of its time on mispredicted branches:
//! whether a level is used up, whether the next level is open. Here each of sixteen lanes
//! runs its own depth-first search of one subtree, and every step of the loop advances
//! every lane by one node: lanes with an open square descend (or count, on the row before
//! the last), lanes whose level is used up pop a frame. Which lanes do what is a mask, not
//! a branch, so the loop's one branch (are any lanes still busy?) is always predicted.
//!
//! Each lane has its own stack in memory, `frame[level * 16 + lane]`, written with a
//! scatter and read with a gather. Those are the loop's dearest instructions, so a frame
//! keeps as little as it can (see [`Frame`]): at least the squares that were open on the
//! level when the lane went down from it. The queen placed there is the lowest of them, so
//! on the way back up the columns are that queen taken away, and the diagonals are the
//! diagonal masks shifted back and that queen taken away. A shift back restores every bit
//! except those the shift down pushed out of the 32-bit word; the board sits in the middle
//! of the word so that, in subtrees shallow enough, no lost bit is one that still matters.
//!
//! The per-level tables of the schedule (`pre`, `shift`) fit in two registers each and are
//! looked up per lane with a two-table permute. A lane that finishes its subtree takes the
//! next one; all subtrees of one call start at the same level of the same schedule.
//!
//! The last free row always has exactly one column left, so a lane on the row before it
//! counts one solution when the next row is open: a masked add, no popcount.

use std::ops::ControlFlow;
use std::sync::OnceLock;

use crate::schedule::{Board, MAX_N, Schedule, State};

/// Lanes per step.
pub const LANES: usize = 16;

/// What a lane's frame keeps, fewest words first; what it does not keep is rebuilt when
/// the lane climbs back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The open squares only. The board sits in the middle of the word: half the spare
    /// bits are headroom for the down-left diagonals, half for the down-right ones.
    Open,
    /// The open squares and the down-left diagonals; all spare bits are headroom for the
    /// down-right ones.
    OpenRd,
    /// The open squares and both diagonal masks: no headroom needed, any depth.
    OpenRdLd,
}

impl Frame {
    /// Every kind, fewest words first.
    pub const ALL: [Frame; 3] = [Frame::Open, Frame::OpenRd, Frame::OpenRdLd];

    /// Its name in `NQUEENS_LANE_FRAME` and `scripts/frames.sh`.
    pub fn name(self) -> &'static str {
        match self {
            Frame::Open => "open",
            Frame::OpenRd => "open-rd",
            Frame::OpenRdLd => "open-rd-ld",
        }
    }

    /// The bit of a lane's word that holds column 0 of an `n`-board.
    fn offset(self, n: u32) -> u32 {
        match self {
            Frame::Open => (32 - n) / 2,
            Frame::OpenRd | Frame::OpenRdLd => 0,
        }
    }

    /// Whether the frame keeps the down-left diagonals.
    fn keeps_rd(self) -> bool {
        self != Frame::Open
    }

    /// Whether the frame keeps the down-right diagonals.
    fn keeps_ld(self) -> bool {
        self == Frame::OpenRdLd
    }

    /// How many rows a rebuilt diagonal mask may travel back up and stay exact on the board:
    /// a rebuilt down-left mask loses the bits shifted below the word (room: the bits below
    /// the board), a rebuilt down-right one those shifted above it (room: the bits above).
    fn headroom(self, n: u32) -> u32 {
        let below = self.offset(n);
        let above = 32 - n - below;
        let rd = if self.keeps_rd() { u32::MAX } else { below };
        let ld = if self.keeps_ld() { u32::MAX } else { above };
        rd.min(ld)
    }

    /// The shallowest level of `s` at which lanes with this frame may start: subtrees from
    /// there never rebuild a mask over more rows than the headroom.
    ///
    /// A lane never goes below the row before the last, so the deepest mask it rebuilds on
    /// the level just below its start has travelled back from that row.
    pub fn shallowest_start(self, s: &Schedule) -> usize {
        debug_assert!(s.levels >= 2);
        let deepest = u32::from(s.rows[s.levels - 2]);
        let room = self.headroom(s.n);
        (0..s.levels.saturating_sub(2))
            .find(|&l| deepest <= u32::from(s.rows[l + 1]).saturating_add(room))
            .unwrap_or(s.levels.saturating_sub(2))
    }
}

/// Subtrees per SIMD call: enough that the lanes stay busy while the last ones finish.
const SUBTREES: usize = 16 * LANES;

/// Most subtrees per SIMD call when the lanes start below the natural frontier.
const BATCH: usize = 4 * SUBTREES;

/// Levels the scalar feeding may descend below the natural frontier to let the lanes use a
/// smaller frame. Measured on full-symmetry counts (results/README.md, "Lane frames"): the
/// one-word frame starting five levels down still beats the two-word frame at n = 19 (by
/// 10%), ties with it six levels down at n = 20, and loses eight levels down at n = 21 (by
/// 13%).
const SLACK: usize = 5;

/// Number of completions below `start`, searched in the lanes (see [`feed`]); `None`, having
/// done nothing, where the lanes cannot run.
pub fn count_below(s: &Schedule, start: State) -> Option<u128> {
    let mut total = 0;
    let ran = feed::<false>(
        s,
        start,
        &mut s.fixed_board.clone(),
        &mut |frame, starts, _| {
            total += count_subtrees(s, frame, starts).unwrap_or(0);
            ControlFlow::Continue(())
        },
    );
    ran.then_some(total)
}

/// Calls `visit` with each completed board below `start` in increasing lexicographic order
/// until it returns false, as [`crate::scalar::walk`] does, searched in the lanes (see
/// [`feed`]). Returns false, visiting nothing, where the lanes cannot run.
pub fn walk_below<F: FnMut(&[u8]) -> bool>(
    s: &Schedule,
    start: State,
    prefix: &[u8],
    visit: &mut F,
) -> bool {
    let mut board = s.board_above(start.level, prefix);
    let mut hits = Vec::new();
    feed::<true>(s, start, &mut board, &mut |frame, starts, boards| {
        hits.clear();
        if walk_subtrees(s, frame, starts, &mut hits).is_none() {
            return ControlFlow::Break(());
        }
        for h in &hits {
            let mut b = boards[h.start as usize];
            for (l, &c) in (starts[0].level..s.levels).zip(&h.cols) {
                b[s.rows[l] as usize] = c;
            }
            if !visit(&b[..s.n as usize]) {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })
}

/// Hands the subtrees below `start` to `batch` for the lanes, in order, at most [`BATCH`] at
/// a time, each with the board above it (`board` holds the rows above `start`).
///
/// The lanes start on the *natural frontier*, the first level with at least [`SUBTREES`]
/// nodes below `start` (or the deepest they may start on), or deeper where the frame picked
/// by [`frame_for`] needs it. Returns false, calling nothing, where the lanes cannot run:
/// the CPU lacks them or the subtree is too shallow. The boards are left empty unless
/// `BOARDS`.
fn feed<const BOARDS: bool>(
    s: &Schedule,
    start: State,
    board: &mut Board,
    batch: &mut impl FnMut(Frame, &[State], &[Board]) -> ControlFlow<()>,
) -> bool {
    if start.level + 2 > s.levels || !available() {
        return false;
    }
    let mut natural = start.level;
    let mut width = 1;
    let mut frontier = vec![start];
    while width < SUBTREES && natural + 3 <= s.levels && !frontier.is_empty() {
        frontier = frontier.iter().flat_map(|&st| s.children(st)).collect();
        width = frontier.len();
        natural += 1;
    }
    let (frame, floor) = frame_for(s, natural);
    let (mut starts, mut boards) = (Vec::with_capacity(BATCH), Vec::with_capacity(BATCH));
    let flow = s.down_to(start, floor, board, &mut |st, b| {
        starts.push(st);
        if BOARDS {
            boards.push(*b);
        }
        if starts.len() < BATCH {
            return ControlFlow::Continue(());
        }
        let flow = batch(frame, &starts, &boards);
        starts.clear();
        boards.clear();
        flow
    });
    if flow.is_continue() && !starts.is_empty() {
        let _ = batch(frame, &starts, &boards);
    }
    true
}

/// The smallest frame whose shallowest start is at most [`SLACK`] levels below `level`,
/// and the level the lanes start on with it; or the frame `NQUEENS_LANE_FRAME` forces.
fn frame_for(s: &Schedule, level: usize) -> (Frame, usize) {
    let pick = |f: Frame| (f, f.shallowest_start(s).max(level));
    if let Some(f) = forced_frame() {
        return pick(f);
    }
    Frame::ALL
        .into_iter()
        .map(pick)
        .find(|&(_, floor)| floor <= level + SLACK)
        .unwrap_or_else(|| pick(Frame::OpenRdLd))
}

/// The frame the environment variable `NQUEENS_LANE_FRAME` forces (`open`, `open-rd` or
/// `open-rd-ld`), read once: how `scripts/frames.sh` measures the frames against each other
/// to choose [`SLACK`]. Any other value, or none, leaves the choice to [`frame_for`].
fn forced_frame() -> Option<Frame> {
    static FORCED: OnceLock<Option<Frame>> = OnceLock::new();
    *FORCED.get_or_init(|| {
        let name = std::env::var("NQUEENS_LANE_FRAME").ok()?;
        Frame::ALL.into_iter().find(|f| f.name() == name)
    })
}

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

/// The number of completions below all of `starts`, which are nodes of `s` on one level,
/// at least two above the last and no shallower than `frame`'s
/// [`Frame::shallowest_start`]. `None` when the CPU lacks AVX-512 (see [`available`]).
pub fn count_subtrees(s: &Schedule, frame: Frame, starts: &[State]) -> Option<u128> {
    count_subtrees_from(s, frame, starts, 0)
}

/// `base` plus [`count_subtrees`]: the loop's counter started at `base` (so a test can drive
/// it past `u64::MAX`).
pub fn count_subtrees_from(
    s: &Schedule,
    frame: Frame,
    starts: &[State],
    base: u128,
) -> Option<u128> {
    dispatch::<false>(s, frame, starts, &mut Vec::new(), base)
}

/// A completion found by [`walk_subtrees`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hit {
    /// Index of the start it lies below.
    pub start: u32,
    /// The column of the queen on each level from the start's level to the last (entries
    /// past those are zero).
    pub cols: [u8; MAX_N as usize],
}

/// Every completion below `starts` (as for [`count_subtrees`]), appended to `hits` ordered
/// by start and, below each start, in increasing lexicographic order of the columns.
/// `None` when the CPU lacks AVX-512.
pub fn walk_subtrees(
    s: &Schedule,
    frame: Frame,
    starts: &[State],
    hits: &mut Vec<Hit>,
) -> Option<()> {
    let from = hits.len();
    dispatch::<true>(s, frame, starts, hits, 0)?;
    // Each start is one lane's, whose hits come in order: a stable counting sort by start
    // puts them in order.
    let mut at = vec![0usize; starts.len() + 1];
    for h in &hits[from..] {
        at[h.start as usize + 1] += 1;
    }
    for i in 1..at.len() {
        at[i] += at[i - 1];
    }
    let mut sorted = vec![Hit::default(); hits.len() - from];
    for h in &hits[from..] {
        sorted[at[h.start as usize]] = *h;
        at[h.start as usize] += 1;
    }
    hits[from..].copy_from_slice(&sorted);
    Some(())
}

/// Runs the loop for `frame`, recording completions into `hits` when `RECORD`; returns
/// `base` plus the number of completions.
fn dispatch<const RECORD: bool>(
    s: &Schedule,
    frame: Frame,
    starts: &[State],
    hits: &mut Vec<Hit>,
    base: u128,
) -> Option<u128> {
    #[cfg(target_arch = "x86_64")]
    {
        if available() {
            debug_assert!(starts.iter().all(|t| t.level == starts[0].level
                && t.level + 2 <= s.levels
                && t.level >= frame.shallowest_start(s)));
            let o = frame.offset(s.n);
            // SAFETY: the CPU has AVX-512F (checked just above), the only feature these
            // functions are compiled for.
            return Some(unsafe {
                match frame {
                    Frame::Open => avx512::search::<false, false, RECORD>(s, o, starts, hits, base),
                    Frame::OpenRd => {
                        avx512::search::<true, false, RECORD>(s, o, starts, hits, base)
                    }
                    Frame::OpenRdLd => {
                        avx512::search::<true, true, RECORD>(s, o, starts, hits, base)
                    }
                }
            });
        }
    }
    let _ = (s, frame, starts, hits, base);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{Hit, LANES, MAX_N, Schedule, State};

    /// The loop; frames keep the down-left diagonals when `KEEP_RD`, the down-right ones
    /// when `KEEP_LD`, column 0 of the board is bit `o` of a lane, and each completion is
    /// appended to `hits` when `RECORD`. Returns `base` plus the number of completions.
    #[target_feature(enable = "avx512f")]
    pub(super) fn search<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
        s: &Schedule,
        o: u32,
        starts: &[State],
        hits: &mut Vec<Hit>,
        base: u128,
    ) -> u128 {
        let Some(first) = starts.first() else {
            return base;
        };
        let top = first.level as i32;
        let load16 = |xs: &[u32], o: u32| {
            let mut a = [0i32; 16];
            for (d, &x) in a.iter_mut().zip(xs) {
                *d = (x << o) as i32;
            }
            // SAFETY: `a` is 16 i32, the 64 bytes the load reads; the load is unaligned.
            unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
        };
        let (pre_lo, pre_hi) = (load16(&s.pre[..16], o), load16(&s.pre[16..], o));
        let (sh_lo, sh_hi) = (load16(&s.shift[..16], 0), load16(&s.shift[16..], 0));
        let lane_ids = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let (zero, one) = (_mm512_setzero_si512(), _mm512_set1_epi32(1));
        let full = _mm512_set1_epi32((s.full << o) as i32);
        let top_v = _mm512_set1_epi32(top);
        let before_last = _mm512_set1_epi32(s.levels as i32 - 2);

        // Frame `level * LANES + lane`: the squares that were open on `level` when the lane
        // went down from it (the queen it placed is the lowest of them).
        let mut stack = [0i32; MAX_N as usize * LANES];
        let mut stack_rd = [0i32; MAX_N as usize * LANES];
        let mut stack_ld = [0i32; MAX_N as usize * LANES];
        let (mut open, mut cols, mut ld, mut rd, mut level) = (zero, zero, zero, zero, top_v);
        let mut busy: __mmask16 = 0;
        // The start each lane is below (read only when recording).
        let mut lane_start = [0u32; LANES];
        let mut next_start = 0usize;
        let mut found = zero;
        let mut total = base;
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
                lane_start[lane as usize] = next_start as u32 - 1;
                open = _mm512_mask_set1_epi32(open, k, (s.open(t) << o) as i32);
                cols = _mm512_mask_set1_epi32(cols, k, ((t.cols & s.full) << o) as i32);
                ld = _mm512_mask_set1_epi32(ld, k, ((t.ld & s.full) << o) as i32);
                rd = _mm512_mask_set1_epi32(rd, k, ((t.rd & s.full) << o) as i32);
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

            // Popping lanes read their parent's frame; its address depends only on the
            // level, so the gather starts while the other lanes compute.
            let here = _mm512_add_epi32(_mm512_slli_epi32::<4>(level), lane_ids);
            let up = _mm512_sub_epi32(here, _mm512_set1_epi32(LANES as i32));
            // SAFETY: `here` is `level * 16 + lane` and `up` is `(level - 1) * 16 + lane`,
            // with `lane < 16` and, for the lanes in the mask, `top <= level - 1` (popping
            // lanes are below their start) and `level < 32` (levels of a schedule): inside
            // the 512-entry array; scale 4 is i32.
            let parent = unsafe { _mm512_mask_i32gather_epi32::<4>(zero, pop, up, stack.as_ptr()) };
            let kept_rd = if KEEP_RD {
                // SAFETY: as above.
                unsafe { _mm512_mask_i32gather_epi32::<4>(zero, pop, up, stack_rd.as_ptr()) }
            } else {
                zero
            };
            let kept_ld = if KEEP_LD {
                // SAFETY: as above.
                unsafe { _mm512_mask_i32gather_epi32::<4>(zero, pop, up, stack_ld.as_ptr()) }
            } else {
                zero
            };

            // Lanes with an open square take the lowest one.
            let bit = _mm512_and_si512(open, _mm512_sub_epi32(zero, open));
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
            found = _mm512_mask_add_epi32(found, hit, found, one);
            if RECORD && hit != 0 {
                let levels = [top as usize, s.levels - 2];
                record(hit, &stack, levels, o, [bit, next], &lane_start, hits);
            }
            let push = _mm512_mask_test_epi32_mask(go & !last, next, next);
            // SAFETY: as for the gather.
            unsafe {
                _mm512_mask_i32scatter_epi32::<4>(stack.as_mut_ptr(), push, here, open);
                if KEEP_RD {
                    _mm512_mask_i32scatter_epi32::<4>(stack_rd.as_mut_ptr(), push, here, rd);
                }
                if KEEP_LD {
                    _mm512_mask_i32scatter_epi32::<4>(stack_ld.as_mut_ptr(), push, here, ld);
                }
            }

            // A popped lane undoes its parent's queen: the lowest square of the frame. The
            // diagonal bits the shift pushed off the word were off the board for good, so
            // shifting back restores every bit that can still matter.
            let pbit = _mm512_and_si512(parent, _mm512_sub_epi32(zero, parent));
            let above = _mm512_sub_epi32(level, one);
            let psh = _mm512_permutex2var_epi32(sh_lo, above, sh_hi);
            let pcols = _mm512_xor_si512(cols, pbit);
            let pld = if KEEP_LD {
                kept_ld
            } else {
                _mm512_andnot_si512(pbit, _mm512_srlv_epi32(ld, psh))
            };
            let prd = if KEEP_RD {
                kept_rd
            } else {
                _mm512_andnot_si512(pbit, _mm512_sllv_epi32(rd, psh))
            };

            // New state: pushed lanes go down, popped lanes go up, others try the next square.
            let rest = _mm512_xor_si512(open, bit);
            open = _mm512_mask_mov_epi32(rest, push, next);
            open = _mm512_mask_xor_epi32(open, pop, parent, pbit);
            cols = _mm512_mask_mov_epi32(cols, push, ncols);
            cols = _mm512_mask_mov_epi32(cols, pop, pcols);
            ld = _mm512_mask_mov_epi32(ld, push, nld);
            ld = _mm512_mask_mov_epi32(ld, pop, pld);
            rd = _mm512_mask_mov_epi32(rd, push, nrd);
            rd = _mm512_mask_mov_epi32(rd, pop, prd);
            level = _mm512_mask_add_epi32(level, push, level, one);
            level = _mm512_mask_mov_epi32(level, pop, above);
            busy &= !done;
            idle = done;

            // Each lane adds at most one per step: empty the 32-bit counters long before
            // they could wrap.
            steps += 1;
            if steps == 1 << 30 {
                total += sum(found);
                found = zero;
                steps = 0;
            }
        }
        total + sum(found)
    }

    /// Appends the boards of the lanes in `hit`, which stand on level `before_last` with a
    /// queen on `bit` and the last row's square `next` open. The queens above are the
    /// lowest squares of the lane's frames from level `top` down.
    #[target_feature(enable = "avx512f")]
    fn record(
        hit: __mmask16,
        stack: &[i32; MAX_N as usize * LANES],
        [top, before_last]: [usize; 2],
        o: u32,
        [bit, next]: [__m512i; 2],
        lane_start: &[u32; LANES],
        hits: &mut Vec<Hit>,
    ) {
        let (mut bits, mut nexts) = ([0u32; LANES], [0u32; LANES]);
        // SAFETY: each array is 16 u32, the 64 bytes a store writes; stores are unaligned.
        unsafe {
            _mm512_storeu_si512(bits.as_mut_ptr().cast(), bit);
            _mm512_storeu_si512(nexts.as_mut_ptr().cast(), next);
        }
        let mut lanes = hit;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let mut h = Hit {
                start: lane_start[lane],
                cols: [0; MAX_N as usize],
            };
            let column = |mask: u32| (mask.trailing_zeros() - o) as u8;
            let mut k = 0;
            for level in top..before_last {
                h.cols[k] = column(stack[level * LANES + lane] as u32);
                k += 1;
            }
            h.cols[k] = column(bits[lane]);
            h.cols[k + 1] = column(nexts[lane]);
            hits.push(h);
        }
    }

    #[target_feature(enable = "avx512f")]
    fn sum(v: __m512i) -> u128 {
        let mut a = [0u32; 16];
        // SAFETY: `a` is 16 u32, the 64 bytes the store writes; the store is unaligned.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) };
        a.iter().map(|&x| u128::from(x)).sum()
    }
}
