//! The counting loop in SIMD lanes: sixteen subtrees searched in lockstep with AVX-512, and
//! its feeding: how a subtree is cut into batches of smaller subtrees for the lanes.
//!
//! The scalar loop ([`crate::scalar`]) spends much of its time on mispredicted branches:
//! whether a node's first child is live, how many siblings it pushes. Here each of sixteen
//! lanes runs its own depth-first search of one subtree, and every step of the loop advances
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

/// Lanes per step of the AVX-512 loop.
pub const LANES: usize = 16;

/// Lanes per step of the AVX2 loop.
pub const AVX2_LANES: usize = 8;

/// Which SIMD loop searches: sixteen lanes with AVX-512, or eight with AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Sixteen lanes, AVX-512F (gathers and scatters).
    Avx512,
    /// Eight lanes, AVX2 (gathers; stores lane by lane).
    Avx2,
}

impl Lanes {
    /// Both, widest first.
    pub const ALL: [Lanes; 2] = [Lanes::Avx512, Lanes::Avx2];

    /// Whether this CPU runs them.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Lanes::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
                Lanes::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }

    /// Subtrees searched side by side.
    pub fn width(self) -> usize {
        match self {
            Lanes::Avx512 => LANES,
            Lanes::Avx2 => AVX2_LANES,
        }
    }

    /// The lanes this CPU runs, widest first.
    pub fn here() -> Vec<Lanes> {
        Lanes::ALL.into_iter().filter(|l| l.available()).collect()
    }
}

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

/// Subtrees per SIMD call, per lane: enough that the lanes stay busy while the last ones
/// finish.
const SUBTREES_PER_LANE: usize = 16;

/// Most subtrees per SIMD call when the lanes start below the natural frontier, per lane.
const BATCH_PER_LANE: usize = 4 * SUBTREES_PER_LANE;

/// Levels the scalar feeding may descend below the natural frontier to let the lanes use a
/// smaller frame. Measured on full-symmetry counts (results/README.md, "Lane frames"): the
/// one-word frame starting five levels down still beats the two-word frame at n = 19 (by
/// 10%), ties with it six levels down at n = 20, and loses eight levels down at n = 21 (by
/// 13%).
const SLACK: usize = 5;

/// Number of completions below `start`, searched in `lanes` (see `feed`); `None`, having
/// done nothing, where they cannot run.
pub fn count_below(s: &Schedule, start: State, lanes: Lanes) -> Option<u128> {
    let mut total = 0;
    let ran = feed::<false>(
        s,
        start,
        lanes,
        &mut s.fixed_board.clone(),
        &mut |frame, starts, _| {
            total += count_subtrees(s, lanes, frame, starts).unwrap_or(0);
            ControlFlow::Continue(())
        },
    );
    ran.then_some(total)
}

/// Calls `visit` with each completed board below `start` in increasing lexicographic order
/// until it returns false, as [`crate::scalar::walk`] does, searched in `lanes` (see
/// `feed`). Returns false, visiting nothing, where they cannot run.
pub fn walk_below<F: FnMut(&[u8]) -> bool>(
    s: &Schedule,
    start: State,
    prefix: &[u8],
    visit: &mut F,
    lanes: Lanes,
) -> bool {
    let mut board = s.board_above(start.level, prefix);
    let mut hits = Vec::new();
    feed::<true>(s, start, lanes, &mut board, &mut |frame, starts, boards| {
        hits.clear();
        if walk_subtrees(s, lanes, frame, starts, &mut hits).is_none() {
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

/// Hands the subtrees below `start` to `batch` for `lanes`, in order, at most
/// [`BATCH_PER_LANE`] per lane at a time, each with the board above it (`board` holds the
/// rows above `start`).
///
/// The lanes start on the *natural frontier*, the first level with at least
/// [`SUBTREES_PER_LANE`] nodes per lane below `start` (or the deepest they may start on), or
/// deeper where the frame picked by [`frame_for`] needs it. Returns false, calling nothing,
/// where the lanes cannot run: the CPU lacks them or the subtree is too shallow. The boards
/// are left empty unless `BOARDS`.
fn feed<const BOARDS: bool>(
    s: &Schedule,
    start: State,
    lanes: Lanes,
    board: &mut Board,
    batch: &mut impl FnMut(Frame, &[State], &[Board]) -> ControlFlow<()>,
) -> bool {
    if start.level + 2 > s.levels || !lanes.available() {
        return false;
    }
    let subtrees = SUBTREES_PER_LANE * lanes.width();
    let most = BATCH_PER_LANE * lanes.width();
    let mut natural = start.level;
    let mut width = 1;
    let mut frontier = vec![start];
    while width < subtrees && natural + 3 <= s.levels && !frontier.is_empty() {
        frontier = frontier.iter().flat_map(|&st| s.children(st)).collect();
        width = frontier.len();
        natural += 1;
    }
    let (frame, floor) = frame_for(s, natural);
    let (mut starts, mut boards) = (Vec::with_capacity(most), Vec::with_capacity(most));
    let flow = s.down_to(start, floor, board, &mut |st, b| {
        starts.push(st);
        if BOARDS {
            boards.push(*b);
        }
        if starts.len() < most {
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

/// Appends the boards of the lanes in `hit` (one bit per lane), which stand on level
/// `before_last` with a queen on `bits[lane]` and the last row's square `nexts[lane]` open.
/// The queens above are the lowest squares of the lane's frames (`stack[level * width +
/// lane]`, where `width` is the number of lanes, `lane_start.len()`) from level `top` down;
/// column 0 is bit `o`; `lane_start[lane]` is the start each lane is below. Shared by both
/// loops.
#[cfg(target_arch = "x86_64")]
fn record_hits(
    hit: u32,
    stack: &[i32],
    [bits, nexts]: [&[u32]; 2],
    lane_start: &[u32],
    [top, before_last]: [usize; 2],
    o: u32,
    hits: &mut Vec<Hit>,
) {
    let width = lane_start.len();
    let column = |mask: u32| (mask.trailing_zeros() - o) as u8;
    let mut left = hit;
    while left != 0 {
        let lane = left.trailing_zeros() as usize;
        left &= left - 1;
        let mut h = Hit {
            start: lane_start[lane],
            cols: [0; MAX_N as usize],
        };
        let mut k = 0;
        for level in top..before_last {
            h.cols[k] = column(stack[level * width + lane] as u32);
            k += 1;
        }
        h.cols[k] = column(bits[lane]);
        h.cols[k + 1] = column(nexts[lane]);
        hits.push(h);
    }
}

/// Whether this CPU runs the AVX-512 lanes.
pub fn available() -> bool {
    Lanes::Avx512.available()
}

/// The number of completions below all of `starts`, which are nodes of `s` on one level,
/// at least two above the last and no shallower than `frame`'s
/// [`Frame::shallowest_start`], searched in `lanes`. `None` when the CPU lacks them.
pub fn count_subtrees(s: &Schedule, lanes: Lanes, frame: Frame, starts: &[State]) -> Option<u128> {
    count_subtrees_from(s, lanes, frame, starts, 0)
}

/// `base` plus [`count_subtrees`]: the loop's counter started at `base` (so a test can drive
/// it past `u64::MAX`).
pub fn count_subtrees_from(
    s: &Schedule,
    lanes: Lanes,
    frame: Frame,
    starts: &[State],
    base: u128,
) -> Option<u128> {
    dispatch::<false>(s, lanes, frame, starts, &mut Vec::new(), base)
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
    lanes: Lanes,
    frame: Frame,
    starts: &[State],
    hits: &mut Vec<Hit>,
) -> Option<()> {
    let from = hits.len();
    dispatch::<true>(s, lanes, frame, starts, hits, 0)?;
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
    lanes: Lanes,
    frame: Frame,
    starts: &[State],
    hits: &mut Vec<Hit>,
    base: u128,
) -> Option<u128> {
    #[cfg(target_arch = "x86_64")]
    {
        if lanes.available() {
            debug_assert!(starts.iter().all(|t| t.level == starts[0].level
                && t.level + 2 <= s.levels
                && t.level >= frame.shallowest_start(s)));
            let o = frame.offset(s.n);
            let args = (s, o, starts, hits, base);
            // SAFETY: the CPU has the feature these functions are compiled for (AVX-512F,
            // or AVX2), checked just above.
            return Some(unsafe {
                match (lanes, frame) {
                    (Lanes::Avx512, Frame::Open) => avx512::search::<false, false, RECORD>(args),
                    (Lanes::Avx512, Frame::OpenRd) => avx512::search::<true, false, RECORD>(args),
                    (Lanes::Avx512, Frame::OpenRdLd) => avx512::search::<true, true, RECORD>(args),
                    (Lanes::Avx2, Frame::Open) => avx2::search::<false, false, RECORD>(args),
                    (Lanes::Avx2, Frame::OpenRd) => avx2::search::<true, false, RECORD>(args),
                    (Lanes::Avx2, Frame::OpenRdLd) => avx2::search::<true, true, RECORD>(args),
                }
            });
        }
    }
    let _ = (s, lanes, frame, starts, hits, base);
    None
}

/// What both loops take: the schedule, the bit of column 0, the starts, where hits go, and
/// the count to start from.
#[cfg(target_arch = "x86_64")]
type Args<'a> = (&'a Schedule, u32, &'a [State], &'a mut Vec<Hit>, u128);

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{Args, LANES, MAX_N};

    /// The loop; frames keep the down-left diagonals when `KEEP_RD`, the down-right ones
    /// when `KEEP_LD`, column 0 of the board is bit `o` of a lane, and each completion is
    /// appended to `hits` when `RECORD`. Returns `base` plus the number of completions.
    #[target_feature(enable = "avx512f")]
    pub(super) fn search<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
        (s, o, starts, hits, base): Args<'_>,
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
                let lanes = [&each(bit)[..], &each(next)];
                super::record_hits(u32::from(hit), &stack, lanes, &lane_start, levels, o, hits);
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

    /// The sixteen lanes of `v`.
    #[target_feature(enable = "avx512f")]
    fn each(v: __m512i) -> [u32; LANES] {
        let mut a = [0u32; LANES];
        // SAFETY: `a` is 16 u32, the 64 bytes the store writes; the store is unaligned.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) };
        a
    }

    #[target_feature(enable = "avx512f")]
    fn sum(v: __m512i) -> u128 {
        each(v).iter().map(|&x| u128::from(x)).sum()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{Args, MAX_N};

    /// Lanes per step.
    const LANES: usize = super::AVX2_LANES;

    /// Frames on the stack, and 8 more: where the lanes that do not push write, so that
    /// every step stores all eight lanes without a branch (AVX2 has no scatter).
    const SLOTS: usize = MAX_N as usize * LANES + LANES;

    /// The AVX2 form of [`super::avx512::search`]: eight lanes, the same frames and steps.
    /// Masks are vectors (all ones in a lane that is in); the per-level tables are gathered
    /// from memory; pushes store every lane's value at its own address (the frame for a
    /// pushing lane, a slot of its own otherwise), one scalar store each.
    #[target_feature(enable = "avx2")]
    pub(super) fn search<const KEEP_RD: bool, const KEEP_LD: bool, const RECORD: bool>(
        (s, o, starts, hits, base): Args<'_>,
    ) -> u128 {
        let Some(first) = starts.first() else {
            return base;
        };
        let top = first.level as i32;
        // The per-level tables, each indexed by the lane's own level: the shift down from
        // it, the squares the fixed queens close one level below, the shift down to it.
        let m = MAX_N as usize;
        let shift: [u32; 32] = std::array::from_fn(|l| s.shift[l]);
        let pre_below: [u32; 32] =
            std::array::from_fn(|l| if l + 1 < m { s.pre[l + 1] << o } else { 0 });
        let shift_above: [u32; 32] =
            std::array::from_fn(|l| if l > 0 { s.shift[l - 1] } else { 0 });
        let (shift, pre_below, shift_above) =
            (table(&shift), table(&pre_below), table(&shift_above));
        let lane_ids = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let spare = _mm256_add_epi32(lane_ids, _mm256_set1_epi32((MAX_N as usize * LANES) as i32));
        let (zero, one, ones) = (
            _mm256_setzero_si256(),
            _mm256_set1_epi32(1),
            _mm256_set1_epi32(-1),
        );
        let full = _mm256_set1_epi32((s.full << o) as i32);
        let top_v = _mm256_set1_epi32(top);
        let before_last = _mm256_set1_epi32(s.levels as i32 - 2);

        let mut stack = [0i32; SLOTS];
        let mut stack_rd = [0i32; SLOTS];
        let mut stack_ld = [0i32; SLOTS];
        let (mut open, mut cols, mut ld, mut rd, mut level) = (zero, zero, zero, zero, top_v);
        let mut busy = zero;
        let mut lane_start = [0u32; LANES];
        let mut next_start = 0usize;
        let mut found = zero;
        let mut total = base;
        let mut steps = 0u32;
        let mut idle: u32 = 0xff;
        loop {
            while idle != 0 {
                let lane = idle.trailing_zeros() as usize;
                idle &= idle - 1;
                let Some(t) = starts.get(next_start) else {
                    break;
                };
                next_start += 1;
                lane_start[lane] = next_start as u32 - 1;
                let k = _mm256_cmpeq_epi32(lane_ids, _mm256_set1_epi32(lane as i32));
                let put =
                    |v: __m256i, x: u32| _mm256_blendv_epi8(v, _mm256_set1_epi32(x as i32), k);
                open = put(open, s.open(t) << o);
                cols = put(cols, (t.cols & s.full) << o);
                ld = put(ld, (t.ld & s.full) << o);
                rd = put(rd, (t.rd & s.full) << o);
                level = put(level, top as u32);
                busy = _mm256_or_si256(busy, k);
            }
            if _mm256_testz_si256(busy, busy) != 0 {
                break;
            }
            let empty = _mm256_and_si256(busy, _mm256_cmpeq_epi32(open, zero));
            let go = _mm256_andnot_si256(empty, busy);
            let done = _mm256_and_si256(empty, _mm256_cmpeq_epi32(level, top_v));
            let pop = _mm256_andnot_si256(done, empty);

            let here = _mm256_add_epi32(_mm256_slli_epi32::<3>(level), lane_ids);
            let up = _mm256_sub_epi32(here, _mm256_set1_epi32(LANES as i32));
            let above = _mm256_sub_epi32(level, one);
            // SAFETY: for the lanes in `pop`, `up` is `(level - 1) * 8 + lane` with
            // `top <= level - 1 < 32` and `lane < 8`, inside the stacks; other lanes are
            // not read. Scale 4 is i32.
            let parent = unsafe { _mm256_mask_i32gather_epi32::<4>(zero, stack.as_ptr(), up, pop) };
            let kept_rd = if KEEP_RD {
                // SAFETY: as above.
                unsafe { _mm256_mask_i32gather_epi32::<4>(zero, stack_rd.as_ptr(), up, pop) }
            } else {
                zero
            };
            let kept_ld = if KEEP_LD {
                // SAFETY: as above.
                unsafe { _mm256_mask_i32gather_epi32::<4>(zero, stack_ld.as_ptr(), up, pop) }
            } else {
                zero
            };
            // Levels are below 32: bits 3 and 4 of the level pick the table's quarter.
            let (b3, b4) = (
                _mm256_slli_epi32::<28>(level),
                _mm256_slli_epi32::<27>(level),
            );
            let (sh, pre_below, psh) = (
                lookup(&shift, level, b3, b4),
                lookup(&pre_below, level, b3, b4),
                lookup(&shift_above, level, b3, b4),
            );

            let bit = _mm256_and_si256(open, _mm256_sub_epi32(zero, open));
            let ncols = _mm256_or_si256(cols, bit);
            let nld = _mm256_sllv_epi32(_mm256_or_si256(ld, bit), sh);
            let nrd = _mm256_srlv_epi32(_mm256_or_si256(rd, bit), sh);
            let taken =
                _mm256_or_si256(_mm256_or_si256(ncols, nld), _mm256_or_si256(nrd, pre_below));
            let next = _mm256_andnot_si256(taken, full);
            let some_next = _mm256_xor_si256(_mm256_cmpeq_epi32(next, zero), ones);
            let last = _mm256_and_si256(go, _mm256_cmpeq_epi32(level, before_last));
            let hit = _mm256_and_si256(last, some_next);
            found = _mm256_sub_epi32(found, hit);
            if RECORD {
                let hit_bits = _mm256_movemask_ps(_mm256_castsi256_ps(hit)) as u32;
                if hit_bits != 0 {
                    let levels = [top as usize, s.levels - 2];
                    let lanes = [&each(bit)[..], &each(next)];
                    super::record_hits(hit_bits, &stack, lanes, &lane_start, levels, o, hits);
                }
            }
            let push = _mm256_and_si256(_mm256_andnot_si256(last, go), some_next);
            // Every lane stores: a pushing lane its frame, the others their spare slot.
            let at = _mm256_blendv_epi8(spare, here, push);
            let mut idx = [0i32; LANES];
            let mut vals = [[0i32; LANES]; 3];
            // SAFETY: each array is 8 i32, the 32 bytes a store writes; stores are unaligned.
            unsafe {
                _mm256_storeu_si256(idx.as_mut_ptr().cast(), at);
                _mm256_storeu_si256(vals[0].as_mut_ptr().cast(), open);
                if KEEP_RD {
                    _mm256_storeu_si256(vals[1].as_mut_ptr().cast(), rd);
                }
                if KEEP_LD {
                    _mm256_storeu_si256(vals[2].as_mut_ptr().cast(), ld);
                }
            }
            for lane in 0..LANES {
                // Masked so the compiler sees every index is inside the stacks.
                let i = idx[lane] as usize % SLOTS;
                stack[i] = vals[0][lane];
                if KEEP_RD {
                    stack_rd[i] = vals[1][lane];
                }
                if KEEP_LD {
                    stack_ld[i] = vals[2][lane];
                }
            }

            let pbit = _mm256_and_si256(parent, _mm256_sub_epi32(zero, parent));
            let pcols = _mm256_xor_si256(cols, pbit);
            let pld = if KEEP_LD {
                kept_ld
            } else {
                _mm256_andnot_si256(pbit, _mm256_srlv_epi32(ld, psh))
            };
            let prd = if KEEP_RD {
                kept_rd
            } else {
                _mm256_andnot_si256(pbit, _mm256_sllv_epi32(rd, psh))
            };

            let rest = _mm256_xor_si256(open, bit);
            open = _mm256_blendv_epi8(rest, next, push);
            open = _mm256_blendv_epi8(open, _mm256_xor_si256(parent, pbit), pop);
            cols = _mm256_blendv_epi8(cols, ncols, push);
            cols = _mm256_blendv_epi8(cols, pcols, pop);
            ld = _mm256_blendv_epi8(ld, nld, push);
            ld = _mm256_blendv_epi8(ld, pld, pop);
            rd = _mm256_blendv_epi8(rd, nrd, push);
            rd = _mm256_blendv_epi8(rd, prd, pop);
            level = _mm256_sub_epi32(level, push);
            level = _mm256_blendv_epi8(level, above, pop);
            busy = _mm256_andnot_si256(done, busy);
            idle = _mm256_movemask_ps(_mm256_castsi256_ps(done)) as u32;

            steps += 1;
            if steps == 1 << 30 {
                total += sum(found);
                found = zero;
                steps = 0;
            }
        }
        total + sum(found)
    }

    /// A 32-entry table as four vectors of eight.
    #[target_feature(enable = "avx2")]
    fn table(t: &[u32; 32]) -> [__m256i; 4] {
        // SAFETY: each load reads 8 u32 (32 bytes) from within `t`; loads are unaligned.
        std::array::from_fn(|q| unsafe { _mm256_loadu_si256(t[8 * q..].as_ptr().cast()) })
    }

    /// Each lane's entry of `t` at its `level` (below 32): a permute within each quarter,
    /// then blends on bit 3 (`b3`, the level shifted to the sign bit) and bit 4 (`b4`).
    #[target_feature(enable = "avx2")]
    fn lookup(t: &[__m256i; 4], level: __m256i, b3: __m256i, b4: __m256i) -> __m256i {
        let q = t.map(|v| _mm256_permutevar8x32_epi32(v, level));
        let pick = |a: __m256i, b: __m256i, on: __m256i| {
            _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
                _mm256_castsi256_ps(on),
            ))
        };
        pick(pick(q[0], q[1], b3), pick(q[2], q[3], b3), b4)
    }

    /// The eight lanes of `v`.
    #[target_feature(enable = "avx2")]
    fn each(v: __m256i) -> [u32; LANES] {
        let mut a = [0u32; LANES];
        // SAFETY: `a` is 8 u32, the 32 bytes the store writes; the store is unaligned.
        unsafe { _mm256_storeu_si256(a.as_mut_ptr().cast(), v) };
        a
    }

    #[target_feature(enable = "avx2")]
    fn sum(v: __m256i) -> u128 {
        each(v).iter().map(|&x| u128::from(x)).sum()
    }
}
