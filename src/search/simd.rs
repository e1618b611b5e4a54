//! The counting loop in SIMD lanes: sixteen subtrees searched in lockstep with AVX-512, and
//! its feeding: how a subtree is cut into batches of smaller subtrees for the lanes.
//!
//! The scalar loop ([`crate::search::scalar`]) spends much of its time on mispredicted branches:
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
//! looked up per lane with a two-table permute (with AVX2, four registers, a permute each
//! and two blends). A lane that finishes its subtree takes the next one; all subtrees of
//! one call start at the same level of the same schedule.
//!
//! The loop is written once (`simd/lanes.rs`) over a small trait of its steps
//! (`Vector` in `simd/vector.rs`), with one form per ISA: sixteen AVX-512 lanes (masks in mask
//! registers, frames scattered) and eight AVX2 lanes (masks in vectors, frames stored lane
//! by lane). A NEON or AVX10 loop is one more form of the trait and one entry point.
//!
//! The last free row always has exactly one column left, so a lane on the row before it
//! counts one solution when the next row is open: a masked add, no popcount.

use std::ops::ControlFlow;
use std::sync::OnceLock;

use crate::search::schedule::{Board, MAX_N, Schedule, State};

#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(target_arch = "x86_64")]
mod vector;

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
/// smaller frame. A smaller frame moves fewer words a step, but starting deeper hands the
/// lanes more and smaller subtrees (results/xeon/2026-11-22-lane-frames/).
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
/// until it returns false, as [`crate::search::scalar::walk`] does, searched in `lanes` (see
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
/// column 0 is bit `o`; `lane_start[lane]` is the start each lane is below (the three are
/// `lanes`, each a value per lane). Shared by both loops.
#[cfg(target_arch = "x86_64")]
fn record_hits(
    hit: u32,
    stack: &[i32],
    [bits, nexts, lane_start]: [&[u32]; 3],
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
/// `None` when the CPU lacks `lanes`' ISA.
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
                    (Lanes::Avx512, Frame::Open) => lanes::avx512::<false, false, RECORD>(args),
                    (Lanes::Avx512, Frame::OpenRd) => lanes::avx512::<true, false, RECORD>(args),
                    (Lanes::Avx512, Frame::OpenRdLd) => lanes::avx512::<true, true, RECORD>(args),
                    (Lanes::Avx2, Frame::Open) => lanes::avx2::<false, false, RECORD>(args),
                    (Lanes::Avx2, Frame::OpenRd) => lanes::avx2::<true, false, RECORD>(args),
                    (Lanes::Avx2, Frame::OpenRdLd) => lanes::avx2::<true, true, RECORD>(args),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::plan::Plan;
    use crate::search::scalar;
    use crate::types::Symmetry;

    const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

    /// Indices below the bound asked for, from the crate's seeded sequence: the same picks
    /// every run.
    fn picker(seed: u64) -> impl FnMut(usize) -> usize {
        let mut next = crate::random::xorshift(seed);
        move |below| (next() % below as u64) as usize
    }

    /// Says on the test run's own stderr that a case was not tested on this CPU, and why.
    fn untested(why: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "NOT TESTED HERE: {why}");
    }

    #[test]
    fn every_lane_frame_agrees_with_the_scalar_loop_at_its_shallowest_start() {
        let lanes_here = Lanes::here();
        if lanes_here.is_empty() {
            untested("this CPU has no SIMD lanes: no lane frames to compare");
            return;
        }
        let mut pick = picker(0x9e37_79b9_7f4a_7c15);
        let mut compared = 0;
        // Large boards too: the headroom a frame needs shrinks as the board grows.
        for n in [13u32, 17, 20, 24, 27] {
            for symmetry in MODES {
                let plan = Plan::new(n, symmetry, 2).unwrap();
                for frame in Frame::ALL {
                    for _ in 0..6 {
                        let (roots, subproblems) = plan.rows().unwrap();
                        let sub = subproblems[pick(subproblems.len())];
                        let s = roots[sub.root as usize].schedule(n);
                        if s.levels < 3 {
                            continue;
                        }
                        // Start exactly where the frame allows, unless the subtrees would be
                        // too big for a test; then as shallow as stays small.
                        let level = frame
                            .shallowest_start(&s)
                            .max(s.levels.saturating_sub(12))
                            .max(sub.state.level);
                        if level + 2 > s.levels {
                            continue;
                        }
                        // Random descents from the subproblem to that level.
                        let starts: Vec<State> = (0..40)
                            .filter_map(|_| {
                                let mut st = sub.state;
                                while st.level < level {
                                    let kids: Vec<State> = s.children(st).collect();
                                    if kids.is_empty() {
                                        return None;
                                    }
                                    st = kids[pick(kids.len())];
                                }
                                Some(st)
                            })
                            .collect();
                        let scalar: u128 = starts.iter().map(|&st| scalar::count(&s, st)).sum();
                        for &l in &lanes_here {
                            let lanes = count_subtrees(&s, l, frame, &starts).unwrap();
                            assert_eq!(
                                lanes, scalar,
                                "n={n} {symmetry} {frame:?} {l:?} level {level}"
                            );
                        }
                        compared += usize::from(!starts.is_empty());
                    }
                }
            }
        }
        assert!(compared > 200, "only {compared} sets compared");
    }

    /// The loops' own counters run past `u64::MAX` exactly: each is started just below it (no
    /// board small enough to test gets there from zero), and the plan's counts of the result
    /// print exactly.
    #[test]
    fn kernel_counters_run_past_u64_exactly() {
        let plan = Plan::new(12, Symmetry::Mirror, 1).unwrap();
        let (roots, subproblems) = plan.rows().unwrap();
        let sub = subproblems[2];
        let s = roots[sub.root as usize].schedule(12);
        let base = u128::from(u64::MAX) - 5;
        let alone = scalar::count(&s, sub.state);
        assert!(alone > 5);
        let past = scalar::count_from(&s, sub.state, base);
        assert_eq!(past, base + alone);
        assert!(past > u128::from(u64::MAX));
        for lanes in Lanes::here() {
            let frame = Frame::OpenRdLd;
            let start = frame.shallowest_start(&s).max(1);
            let mut starts = Vec::new();
            let mut board = s.fixed_board;
            let _ = s.down_to(sub.state, start, &mut board, &mut |st, _| {
                starts.push(st);
                std::ops::ControlFlow::Continue(())
            });
            let counted = count_subtrees_from(&s, lanes, frame, &starts, base).unwrap();
            assert_eq!(counted, past, "the {lanes:?} lanes' counter");
        }
        if Lanes::here().is_empty() {
            untested("this CPU has no SIMD lanes: only the scalar counter was driven past u64");
        }
        let tally = crate::Tally {
            solutions: 2 * past,
            unique8: 0,
        };
        let counts = Plan::new(12, Symmetry::Mirror, 1).unwrap().counts(
            tally,
            Some(crate::Kernel::Scalar),
            1,
            0.0,
        );
        let json = serde_json::to_string(&counts).unwrap();
        assert!(
            json.contains(&format!("\"solutions\":{}", 2 * past)),
            "{json}"
        );
    }
}
