//! Listing solutions in lexicographic order (row 0 first), generated in parallel.
//!
//! The subproblems of a listing are cut in lexicographic order (see
//! `search::roots::Subproblems`) and come lazily, a batch at a time. A producer
//! thread has the pool render each batch's solutions into one buffer per subproblem; a
//! channel that holds one batch carries them to the caller's thread, which sees the
//! solutions in order. Memory holds at most a batch being rendered and one waiting,
//! whatever the board size.

pub mod board;

use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::run::Engine;
use crate::search::roots::{self, Root, Subproblem, Subproblems};
use crate::search::schedule::Schedule;
use crate::search::symmetry;
use crate::types::{Error, Kernel, Options, Symmetry, validate};

/// What to list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// Worker threads; `None` means one per logical CPU.
    pub threads: Option<NonZeroUsize>,
    /// One solution per symmetry class: the lexicographically smallest of its eight images.
    pub unique: bool,
    /// Stop after this many solutions.
    pub limit: Option<u64>,
    /// Which loop searches (every loop lists the same solutions).
    pub kernel: Kernel,
}

/// The solutions rendered by one subproblem: `bytes[ends[i - 1]..ends[i]]` is solution `i`.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// Free rows filled before a listing is cut into subproblems: they stay small (memory stays
/// flat) and numerous enough to balance.
fn split_levels(n: u32) -> usize {
    (n as usize).saturating_sub(13).max(2)
}

/// How many subproblems the pool is handed at a time. Each hand-over wakes the workers and
/// waits for them (futexes, and rayon's idle threads spinning on `sched_yield`), which costs
/// more than a small subproblem with no solution: far down the lexicographic order of a large
/// board (`solve 32 --limit 1`) a fixed batch of a few subproblems per thread spends most of
/// its time in the kernel. So a batch that renders little, quickly, is followed by one twice
/// as large, and one that renders much by one half as large: memory stays at about
/// [`Batch::BYTES`] a batch, and sparse regions pass in few hand-overs.
struct Batch {
    size: usize,
    least: usize,
}

impl Batch {
    /// The rendered bytes a batch aims at.
    const BYTES: usize = 1 << 20;
    /// The most subproblems a batch holds.
    const MOST: usize = 1 << 16;
    /// A batch that takes longer than this does not grow: its hand-over is already cheap.
    const QUICK: Duration = Duration::from_millis(20);

    /// The first batch: eight subproblems per thread (the least a batch will hold).
    fn new(threads: usize) -> Batch {
        let least = (8 * threads).min(Batch::MOST);
        Batch { size: least, least }
    }

    /// The next batch's size, after one that rendered `bytes` in `took`.
    fn adapt(&mut self, bytes: usize, took: Duration) {
        if bytes > 2 * Batch::BYTES {
            self.size = (self.size / 2).max(self.least);
        } else if bytes < Batch::BYTES / 2 && took < Batch::QUICK {
            self.size = (self.size * 2).min(Batch::MOST.max(self.least));
        }
    }
}

/// The rendered bytes of consecutive solutions, in order.
pub struct Rendered<'a> {
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl<'a> Rendered<'a> {
    /// All their bytes, one record after another.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// How many solutions.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each solution's record.
    pub fn records(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (bytes, ends) = (self.bytes, self.ends);
        ends.iter().scan(0, move |start, &end| {
            let record = &bytes[*start..end];
            *start = end;
            Some(record)
        })
    }
}

/// Renders each solution of an `n`-board with `render` on the worker threads and hands the
/// rendered records to `each` on the caller's thread, a run of consecutive solutions at a
/// time, in lexicographic order of the solutions, until the limit or until `each` breaks.
/// Returns how many solutions were handed over.
pub fn render<R, F>(n: u32, options: &ListOptions, render: R, mut each: F) -> Result<u64, Error>
where
    R: Fn(&[u8], &mut Vec<u8>) + Sync,
    F: FnMut(Rendered<'_>) -> ControlFlow<()>,
{
    validate(n, 0)?;
    let engine = Engine::new(&Options {
        threads: options.threads,
        kernel: options.kernel,
        ..Options::default()
    })?;
    let (pool, kernel) = (engine.pool(), engine.kernel());
    let roots = if options.unique {
        roots::smallest_image_roots(n)
    } else {
        roots::roots(n, Symmetry::None)
    };
    let limit = options.limit.unwrap_or(u64::MAX);
    let mut batch = Batch::new(engine.threads());
    let mut listed = 0u64;
    if limit == 0 {
        return Ok(0);
    }
    if limit <= FEW {
        let wanted = (options.unique, limit);
        return Ok(first_few(n, &roots, wanted, &engine, &render, &mut each));
    }
    // Each root's schedule, made once rather than for each of its subproblems.
    let schedules: Vec<Schedule> = roots.iter().map(|r| r.schedule(n)).collect();
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::sync_channel::<Vec<Chunk>>(1);
        let (roots, schedules, render) = (&roots, &schedules, &render);
        scope.spawn(move || {
            let mut subproblems = Subproblems::new(n, roots, split_levels(n));
            let mut produced = 0u64;
            while produced < limit {
                let next: Vec<Subproblem> = subproblems.by_ref().take(batch.size).collect();
                if next.is_empty() {
                    break;
                }
                let started = Instant::now();
                let chunks: Vec<Chunk> = pool.install(|| {
                    next.par_iter()
                        .map(|t| {
                            let s = &schedules[t.root as usize];
                            render_one(s, t, (options.unique, kernel), limit, render)
                        })
                        .collect()
                });
                produced += chunks.iter().map(|c| c.ends.len() as u64).sum::<u64>();
                let bytes = chunks.iter().map(|c| c.bytes.len()).sum();
                batch.adapt(bytes, started.elapsed());
                if send.send(chunks).is_err() {
                    break; // the caller stopped listening
                }
            }
        });
        for chunk in receive.iter().flatten() {
            let take = chunk.ends.len().min((limit - listed) as usize);
            let end = take.checked_sub(1).map_or(0, |i| chunk.ends[i]);
            listed += take as u64;
            let rendered = Rendered {
                bytes: &chunk.bytes[..end],
                ends: &chunk.ends[..take],
            };
            if each(rendered).is_break() || listed == limit {
                break;
            }
        }
    });
    Ok(listed)
}

/// The most solutions [`render`] lists by finding the first and walking on from it on the
/// caller's thread (`first_few`), not in batches on the pool.
pub const FEW: u64 = 1000;

/// Lists the first `limit` solutions (at most [`FEW`]), one per class when `unique`. The
/// first solutions of a large board lie deep in a sparse corner of the tree, past many
/// subproblems without one (`n = 32`: 87.5 M nodes before the first, 825 k of them in the
/// subproblem that holds it, cut [`first_levels`] deep). So the pool only finds the first
/// subproblem that holds one ([`holds`], `position_first` over batches in order, from one
/// subproblem per thread, doubling up to [`FIND_BATCH`]: a large batch has idle threads
/// search far past the first), and the caller's thread then walks it and those after it
/// with the scalar loop, which stops at the last solution wanted. Rendering, and handing
/// each subproblem's solutions to the pool (futex and `sched_yield` calls, mostly), cost
/// more than the search here; the SIMD lanes search each of their subtrees to the end,
/// where the first solution is all that is wanted.
/// Returns how many were handed to `each`.
fn first_few<R, F>(
    n: u32,
    roots: &[Root],
    (unique, limit): (bool, u64),
    engine: &Engine,
    render: &R,
    each: &mut F,
) -> u64
where
    R: Fn(&[u8], &mut Vec<u8>),
    F: FnMut(Rendered<'_>) -> ControlFlow<()>,
{
    let schedules: Vec<Schedule> = roots.iter().map(|r| r.schedule(n)).collect();
    let mut subproblems = Subproblems::new(n, roots, first_levels(n));
    let (mut batch, mut size) = (Vec::new(), engine.threads());
    let first = loop {
        batch.clear();
        batch.extend(subproblems.by_ref().take(size));
        size = (2 * size).min(FIND_BATCH);
        if batch.is_empty() {
            return 0;
        }
        let first = engine.install(|| {
            batch
                .par_iter()
                .position_first(|t| holds(&schedules[t.root as usize], t, unique))
        });
        if let Some(first) = first {
            break first;
        }
    };
    let (mut listed, mut bytes) = (0u64, Vec::new());
    for t in batch.drain(first..).chain(subproblems) {
        let s = &schedules[t.root as usize];
        let mut go_on = true;
        Kernel::Scalar.walk(s, t.state, &t.prefix, &mut |board| {
            if !unique || symmetry::is_smallest_image(board) {
                bytes.clear();
                render(board, &mut bytes);
                listed += 1;
                let run = Rendered {
                    bytes: &bytes,
                    ends: &[bytes.len()],
                };
                go_on = each(run).is_continue() && listed < limit;
            }
            go_on
        });
        if !go_on {
            break;
        }
    }
    listed
}

/// The subproblems [`first_few`]'s pool searches at a time for the first that holds a solution.
const FIND_BATCH: usize = 4096;

/// Free rows filled below each root for [`first_few`]: none up to `n = 20`, where every root
/// is quick to search, then one more per row, so that the subproblem holding the first
/// solution stays small while those before it are shared out (`n = 32`: 12, with 0.9 % of
/// the nodes before the first solution in its subproblem).
fn first_levels(n: u32) -> usize {
    n.saturating_sub(20) as usize
}

/// Whether subproblem `t` of a root with schedule `s` holds a solution (of the smallest
/// image of its class when `unique`), searched by the pool: a subtree of more than
/// [`SOLO_LEVELS`] free rows is cut [`STEP`] rows deeper and its pieces searched in
/// parallel, each stopping at its first solution, all once one is found. The first
/// solutions of a large board come after subtrees that are very uneven (`n = 32`: of the 223
/// subproblems cut 13 rows deep that come before the first solution, one holds 40 M nodes
/// and most a few hundred), so cutting once does not share them out.
fn holds(s: &Schedule, t: &Subproblem, unique: bool) -> bool {
    if s.levels - t.state.level <= SOLO_LEVELS {
        return holds_one(s, t, unique);
    }
    // The subproblems `STEP` levels below `t`, in order.
    let mut below = Vec::new();
    let mut board = s.board_above(t.state.level, &t.prefix);
    let _ = s.down_to(
        t.state,
        t.state.level + STEP,
        &mut board,
        &mut |state, board| {
            let mut u = Subproblem { state, ..*t };
            for l in t.state.level..state.level {
                u.prefix[l] = board[s.rows[l] as usize];
            }
            below.push(u);
            ControlFlow::Continue(())
        },
    );
    below.par_iter().any(|u| holds(s, u, unique))
}

/// Free rows below which [`holds`] searches a subtree on one thread.
const SOLO_LEVELS: usize = 16;

/// Rows [`holds`] cuts a larger subtree at a time.
const STEP: usize = 2;

/// Whether subproblem `t` of a root with schedule `s` holds a solution (of the smallest
/// image of its class when `unique`): its scalar walk, stopped at the first.
fn holds_one(s: &Schedule, t: &Subproblem, unique: bool) -> bool {
    let mut found = false;
    Kernel::Scalar.walk(s, t.state, &t.prefix, &mut |board| {
        found = !unique || symmetry::is_smallest_image(board);
        !found
    });
    found
}

/// Renders up to `limit` solutions of one subproblem (one per class when `unique`), searched
/// with `kernel` in `s`, its root's schedule.
fn render_one<R: Fn(&[u8], &mut Vec<u8>)>(
    s: &Schedule,
    sub: &Subproblem,
    (unique, kernel): (bool, Kernel),
    limit: u64,
    render: &R,
) -> Chunk {
    let mut chunk = Chunk::default();
    let mut emit = |board: &[u8]| {
        if !unique || symmetry::is_smallest_image(board) {
            render(board, &mut chunk.bytes);
            chunk.ends.push(chunk.bytes.len());
        }
        (chunk.ends.len() as u64) < limit
    };
    kernel.walk(s, sub.state, &sub.prefix, &mut emit);
    chunk
}

/// Calls `visit` with each solution of an `n`-board (the column of the queen in each row),
/// in lexicographic order, until the limit or until `visit` breaks; returns how many it saw.
///
/// ```
/// use std::ops::ControlFlow;
/// use nqueens_engine::solve::{for_each_solution, ListOptions};
///
/// let mut all = Vec::new();
/// for_each_solution(4, &ListOptions::default(), |cols| {
///     all.push(cols.to_vec());
///     ControlFlow::Continue(())
/// })
/// .unwrap();
/// assert_eq!(all, [[1, 3, 0, 2], [2, 0, 3, 1]]);
/// ```
pub fn for_each_solution<F>(n: u32, options: &ListOptions, visit: F) -> Result<u64, Error>
where
    F: FnMut(&[u8]) -> ControlFlow<()>,
{
    let mut visit = visit;
    render(
        n,
        options,
        |cols, out| out.extend_from_slice(cols),
        |run| run.records().try_for_each(&mut visit),
    )
}
