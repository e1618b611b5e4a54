//! Runs the tasks of a board on a rayon pool and reduces their counts into totals.
//!
//! A [`Plan`] is the deterministic list of tasks for a board, mode and split depth; a task's
//! index in it is its identity in checkpoints and shard results, and [`Plan::fingerprint`]
//! guards against a list that changed between runs.

use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::kernel::{self, Board, Schedule, State};
use crate::split::{self, Root, Task};
use crate::{Error, Kernel, Symmetry, simd, symmetry};

/// Sums over tasks: solutions, and eight times the fundamental solutions in full mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// All solutions.
    pub solutions: u128,
    /// Eight times the fundamental solutions (meaningful in full mode only).
    pub unique8: u128,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            solutions: self.solutions + o.solutions,
            unique8: self.unique8 + o.unique8,
        }
    }
}

/// Builds a pool of `threads` workers.
pub fn pool(threads: NonZeroUsize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.get())
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// The tasks of one board, mode and split depth, in a fixed order.
pub struct Plan {
    /// Board size.
    pub n: u32,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Rows placed before the split (0: the tasks run one after another on one thread).
    pub split_depth: usize,
    /// The roots the tasks come from.
    pub roots: Vec<Root>,
    /// The tasks, in order.
    pub tasks: Vec<Task>,
    /// The counting loop (resolved: `Scalar` or `Avx512`).
    pub kernel: Kernel,
    /// [`Plan::costs`], computed once when first asked for.
    costs: OnceLock<Vec<u64>>,
}

impl Plan {
    /// The plan of an `n`-board (the caller has validated `n` and the depth).
    pub fn new(n: u32, symmetry: Symmetry, split_depth: usize) -> Plan {
        let roots = split::roots(n, symmetry);
        let tasks = split::tasks(n, &roots, split_depth.saturating_sub(1));
        Plan {
            n,
            symmetry,
            split_depth,
            roots,
            tasks,
            kernel: Kernel::Scalar,
            costs: OnceLock::new(),
        }
    }

    /// The same plan counted with `kernel` (`Auto` resolved; an unavailable kernel falls back
    /// to scalar). The kernel does not change the tasks or the counts.
    pub fn with_kernel(mut self, kernel: Kernel) -> Plan {
        self.kernel = kernel.resolve().unwrap_or(Kernel::Scalar);
        self
    }

    /// Number of independent subproblems reported for the plan (1 when not split).
    pub fn subproblems(&self) -> u64 {
        if self.split_depth == 0 {
            1
        } else {
            self.tasks.len() as u64
        }
    }

    /// A checksum of the task list: equal plans have equal fingerprints.
    pub fn fingerprint(&self) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.n.to_le_bytes());
        h.update(self.symmetry.name().as_bytes());
        for t in &self.tasks {
            let State {
                level,
                cols,
                ld,
                rd,
            } = t.state;
            h.update(&t.root.to_le_bytes());
            h.update(&(level as u32).to_le_bytes());
            for x in [cols, ld, rd] {
                h.update(&x.to_le_bytes());
            }
        }
        h.finalize()
    }

    /// Counts task `i`.
    pub fn solve(&self, i: usize) -> Tally {
        let task = &self.tasks[i];
        solve(self.n, &self.roots[task.root as usize], task, self.kernel)
    }

    /// A relative estimate of each task's cost: the number of nodes a few levels below it.
    /// Subtree sizes vary by orders of magnitude; this tracks them well enough to order the
    /// tasks, weight an ETA and balance shards. Computed once per plan.
    pub fn costs(&self) -> &[u64] {
        self.costs.get_or_init(|| {
            let schedules: Vec<Schedule> = self.roots.iter().map(|r| r.schedule(self.n)).collect();
            self.tasks
                .par_iter()
                .map(|t| {
                    let s = &schedules[t.root as usize];
                    1 + nodes_below(s, t.state, (t.state.level + 4).min(s.levels))
                })
                .collect()
        })
    }

    /// Counts the tasks in `selected` on `pool`, calling `done(i, tally)` as each task `i`
    /// finishes (from the worker thread), and returns their sum.
    ///
    /// With more than one thread the tasks start costliest first (by [`Plan::costs`]), so the
    /// run does not end with one thread on a large task while the others wait: rayon hands
    /// out the front of the list first and the small tasks at the back fill the gaps.
    pub fn run(
        &self,
        pool: &rayon::ThreadPool,
        selected: &[usize],
        done: &(dyn Fn(usize, Tally) + Sync),
    ) -> Tally {
        let one = |&i: &usize| {
            let t = self.solve(i);
            done(i, t);
            t
        };
        if self.split_depth == 0 || pool.current_num_threads() == 1 {
            return selected
                .iter()
                .map(one)
                .fold(Tally::default(), |a, b| a + b);
        }
        let costs = self.costs();
        let mut order = selected.to_vec();
        order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
        pool.install(|| {
            order
                .par_iter()
                .with_max_len(1)
                .map(one)
                .reduce(Tally::default, |a, b| a + b)
        })
    }
}

/// Subtrees per SIMD call: enough that the lanes stay busy while the last ones finish.
const SUBTREES: usize = 16 * simd::LANES;

/// Most subtrees per SIMD call when the lanes start below the natural frontier.
const BATCH: usize = 4 * SUBTREES;

/// Levels the scalar loop may descend below the natural frontier to let the lanes use a
/// smaller frame. Measured on full-symmetry counts (results/README.md): the one-word frame
/// starting five levels down still beats the two-word frame at n = 19 (by 10%), ties with
/// it six levels down at n = 20, and loses eight levels down at n = 21 (by 13%).
const SLACK: usize = 5;

/// Hands the subtrees below `start` to `batch` for the SIMD lanes, in order, at most
/// [`BATCH`] at a time, each with the board above it (`board` holds the rows above `start`).
///
/// The lanes start on the *natural frontier*, the first level with at least [`SUBTREES`]
/// nodes below `start` (or the deepest they may start on), or deeper where the frame picked
/// by [`lanes_frame`] needs it. Returns false, calling nothing, where the lanes cannot run:
/// the CPU lacks them or the subtree is too shallow. The boards are left empty unless
/// `BOARDS`.
fn in_lanes<const BOARDS: bool>(
    s: &Schedule,
    start: State,
    board: &mut Board,
    batch: &mut impl FnMut(simd::Frame, &[State], &[Board]) -> ControlFlow<()>,
) -> bool {
    if start.level + 2 > s.levels || !simd::available() {
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
    let (frame, floor) = lanes_frame(s, natural);
    let (mut starts, mut boards) = (Vec::with_capacity(BATCH), Vec::with_capacity(BATCH));
    let flow = down_to(s, start, floor, board, &mut |st, b| {
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
/// and the level the lanes start on with it.
fn lanes_frame(s: &Schedule, level: usize) -> (simd::Frame, usize) {
    let pick = |f: simd::Frame| (f, f.shallowest_start(s).max(level));
    simd::Frame::ALL
        .into_iter()
        .map(pick)
        .find(|&(_, floor)| floor <= level + SLACK)
        .unwrap_or_else(|| pick(simd::Frame::OpenRdLd))
}

/// Calls `visit` with every node of level `floor` below `state`, in order, and the board
/// with the queens of the levels on the way filled in (other rows as they were), until
/// `visit` breaks.
fn down_to(
    s: &Schedule,
    state: State,
    floor: usize,
    board: &mut Board,
    visit: &mut impl FnMut(State, &Board) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if state.level >= floor {
        return visit(state, board);
    }
    for child in s.children(state) {
        board[s.rows[state.level] as usize] = (child.cols & !state.cols).trailing_zeros() as u8;
        down_to(s, child, floor, board, visit)?;
    }
    ControlFlow::Continue(())
}

/// Counts below `start` in the SIMD lanes (see [`in_lanes`]); `None` where they cannot.
fn lanes_count(s: &Schedule, start: State) -> Option<u64> {
    let mut total = 0;
    let ran = in_lanes::<false>(
        s,
        start,
        &mut s.fixed_board.clone(),
        &mut |frame, starts, _| {
            total += simd::count_subtrees(s, frame, starts).unwrap_or(0);
            ControlFlow::Continue(())
        },
    );
    ran.then_some(total)
}

/// Calls `visit` with each completed board below `start` in increasing lexicographic order
/// until it returns false, as [`kernel::walk`] does, with the SIMD lanes searching (see
/// [`in_lanes`]). Returns false, visiting nothing, where the lanes cannot run.
pub fn lanes_walk<F: FnMut(&[u8]) -> bool>(
    s: &Schedule,
    start: State,
    prefix: &[u8],
    visit: &mut F,
) -> bool {
    let mut board = s.board_above(start.level, prefix);
    let mut hits = Vec::new();
    in_lanes::<true>(s, start, &mut board, &mut |frame, starts, boards| {
        hits.clear();
        if simd::walk_subtrees(s, frame, starts, &mut hits).is_none() {
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

/// Nodes between `state` and level `depth` of a schedule (a truncated search).
fn nodes_below(s: &Schedule, state: State, depth: usize) -> u64 {
    if state.level >= depth {
        return 1;
    }
    1 + s
        .children(state)
        .map(|child| nodes_below(s, child, depth))
        .sum::<u64>()
}

/// Counts one task with the given loop.
pub fn solve(n: u32, root: &Root, task: &Task, loop_: Kernel) -> Tally {
    let s = root.schedule(n);
    if !root.classifies() {
        let simd = if loop_ == Kernel::Avx512 {
            lanes_count(&s, task.state)
        } else {
            None
        };
        let c = u128::from(simd.unwrap_or_else(|| kernel::count(&s, task.state)));
        return Tally {
            solutions: u128::from(root.weight) * c,
            unique8: 8 * c,
        };
    }
    // Each completion is weighed by its own constellation's symmetry.
    let mut tally = Tally::default();
    kernel::walk(&s, task.state, &task.prefix, &mut |board| {
        if let Some((weight, fixed)) = symmetry::classify(board) {
            tally.solutions += u128::from(weight);
            tally.unique8 += u128::from(weight * fixed);
        }
        true
    });
    tally
}
