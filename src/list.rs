//! Listing solutions in lexicographic order (row 0 first), generated in parallel.
//!
//! The subproblems of a listing are cut in lexicographic order (see
//! [`crate::split::Subproblems`]) and
//! come lazily, a batch at a time. A producer thread has the pool render each batch's
//! solutions into one buffer per subproblem; a channel that holds one batch carries them to the
//! caller's thread, which sees the solutions in order. Memory holds at most a batch being
//! rendered and one waiting, whatever the board size.

use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::mpsc;

use rayon::prelude::*;

use crate::run::Engine;
use crate::split::{self, Root, Subproblem, Subproblems};
use crate::symmetry;
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
        split::smallest_image_roots(n)
    } else {
        split::roots(n, Symmetry::None)
    };
    let limit = options.limit.unwrap_or(u64::MAX);
    let batch = 8 * engine.threads();
    let mut listed = 0u64;
    if limit == 0 {
        return Ok(0);
    }
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::sync_channel::<Vec<Chunk>>(1);
        let (roots, render) = (&roots, &render);
        scope.spawn(move || {
            let mut subproblems = Subproblems::new(n, roots, split_levels(n));
            let mut produced = 0u64;
            while produced < limit {
                let next: Vec<Subproblem> = subproblems.by_ref().take(batch).collect();
                if next.is_empty() {
                    break;
                }
                let chunks: Vec<Chunk> = pool.install(|| {
                    next.par_iter()
                        .map(|t| {
                            let root = &roots[t.root as usize];
                            render_one(n, root, t, (options.unique, kernel), limit, render)
                        })
                        .collect()
                });
                produced += chunks.iter().map(|c| c.ends.len() as u64).sum::<u64>();
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

/// Renders up to `limit` solutions of one subproblem (one per class when `unique`), searched
/// with `kernel`.
fn render_one<R: Fn(&[u8], &mut Vec<u8>)>(
    n: u32,
    root: &Root,
    sub: &Subproblem,
    (unique, kernel): (bool, Kernel),
    limit: u64,
    render: &R,
) -> Chunk {
    let s = root.schedule(n);
    let mut chunk = Chunk::default();
    let mut emit = |board: &[u8]| {
        if !unique || symmetry::is_smallest_image(board) {
            render(board, &mut chunk.bytes);
            chunk.ends.push(chunk.bytes.len());
        }
        (chunk.ends.len() as u64) < limit
    };
    kernel.walk(&s, sub.state, &sub.prefix, &mut emit);
    chunk
}

/// Calls `visit` with each solution of an `n`-board (the column of the queen in each row),
/// in lexicographic order, until the limit or until `visit` breaks; returns how many it saw.
///
/// ```
/// use std::ops::ControlFlow;
/// use nqueens::list::{for_each_solution, ListOptions};
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
