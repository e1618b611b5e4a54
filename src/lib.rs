//! Exact counts of N-Queens solutions (OEIS A000170) and fundamental solutions (A002562),
//! on every core.
//!
//! A board is cut into independent parts, rayon work-steals them across threads, and the
//! per-part counts are summed exactly in `u128`. Two methods cut and count the parts
//! ([`Method`]; [`Method::Auto`] picks from `n` alone, with the same counts either way):
//!
//! - the **join** (the default from n = 10 to 28): the board is cut down the middle; each
//!   part is a *key*, the rows the queens of the left columns take, and a left and a right
//!   half-board on it make a solution exactly when no diagonal holds a queen of each. The
//!   pairs are counted by splitting one side on its most contested diagonals down to bitset
//!   tables (`docs/join.md` in the repository explains it in full).
//! - the **search** (the default elsewhere): the first rows are cut into subproblems whose
//!   bitmask backtracking counts the completions, sixteen subtrees at a time in AVX-512 lanes,
//!   eight in AVX2, or one in the scalar loop ([`Kernel`]; `docs/search.md`).
//!
//! # Using the library
//!
//! The default feature `cli` builds the `nqueens` binary and its crates (clap, indicatif and
//! more); a crate that only counts leaves them out. The counting loops are slow unoptimised,
//! so optimise this crate in debug builds too:
//!
//! ```toml
//! [dependencies]
//! nqueens-engine = { version = "0.1", default-features = false }
//!
//! [profile.dev.package.nqueens-engine]
//! opt-level = 3
//! ```
//!
//! # Entry points
//!
//! [`count`] counts one board with the given [`Options`]:
//!
//! ```
//! use nqueens_engine::{count, Options, Symmetry};
//!
//! // Full symmetry is the default: totals and fundamental solutions.
//! let counts = count(8, &Options::default()).unwrap();
//! assert_eq!((counts.solutions, counts.unique), (92, Some(12)));
//!
//! let mirror = count(10, &Options { symmetry: Symmetry::Mirror, ..Options::default() }).unwrap();
//! assert_eq!((mirror.solutions, mirror.unique), (724, None));
//! ```
//!
//! Every setting is an [`Options`] field, read in one place: [`count`] and [`Engine::new`]
//! take them whole. The default split depth fits every board (`0..=32` all count); a depth
//! given that exceeds the board is an error:
//!
//! ```
//! use nqueens_engine::{count, Error, Options};
//!
//! for n in 0..=12 {
//!     count(n, &Options::default()).unwrap();
//! }
//! let deep = Options { split_depth: Some(40), ..Options::default() };
//! assert_eq!(count(12, &deep), Err(Error::SplitDepth { depth: 40, n: 12 }));
//! ```
//!
//! An [`Engine`] (threads started, loop chosen, once) counts many boards; its [`Plan`] of
//! a board lists the board's parts, and a [`Run`] counts them, telling each [`Observer`] of
//! every part as it finishes (the CLI's progress and [`run::checkpoint`] plug in there;
//! [`run::shard`] deals a plan's parts to separate runs and merges their results). The
//! [`Outcome`] knows the loop and threads that counted, so [`Outcome::counts`] needs only
//! the plan:
//!
//! ```
//! use nqueens_engine::{Engine, Observer, Options, Run, Tally};
//! use std::sync::atomic::{AtomicUsize, Ordering};
//!
//! struct Parts(AtomicUsize);
//! impl Observer for Parts {
//!     fn finished(&self, _index: usize, _tally: Tally) {
//!         self.0.fetch_add(1, Ordering::Relaxed);
//!     }
//! }
//! let engine = Engine::new(&Options::default()).unwrap();
//! let plan = engine.plan(12).unwrap();
//! let parts = Parts(AtomicUsize::new(0));
//! let outcome = Run::new(&plan).observe(&parts).execute(&engine);
//! assert_eq!(outcome.counts(&plan).solutions, 14200);
//! assert_eq!(parts.0.into_inner(), plan.len());
//! ```
//!
//! A run stops early when a flag set from another thread says so
//! ([`Run::execute_until`]): the parts in flight finish, the rest do not start, and the
//! run says how many were counted.
//!
//! [`solve::for_each_solution`] lists the solutions in lexicographic order:
//!
//! ```
//! use nqueens_engine::solve::{for_each_solution, ListOptions};
//! use std::ops::ControlFlow;
//!
//! let mut first = Vec::new();
//! for_each_solution(8, &ListOptions { limit: Some(1), ..ListOptions::default() }, |columns| {
//!     first = columns.to_vec();
//!     ControlFlow::Break(())
//! })
//! .unwrap();
//! assert_eq!(first, [0, 4, 7, 5, 2, 6, 1, 3]);
//! ```
//!
//! [`run::estimate::estimate`] predicts what a count costs from a timed sample of its parts:
//!
//! ```
//! use nqueens_engine::run::estimate::{estimate, Settings};
//! use nqueens_engine::{Engine, Options};
//!
//! let engine = Engine::new(&Options::default()).unwrap();
//! let plan = engine.plan(16).unwrap();
//! let quick = Settings { seconds: 0.2, ..Settings::default() };
//! let e = estimate(&engine, &plan, &quick, &|_sample| {}).unwrap();
//! assert_eq!(e.parts, plan.len());
//! assert!(!e.samples.is_empty());
//! ```
//!
//! [`solve::board`] renders a solution (a queen's column per row) as text, LeetCode's
//! strings, JSON or an SVG picture:
//!
//! ```
//! use nqueens_engine::solve::board;
//!
//! let mut text = Vec::new();
//! board::board(&[1, 3, 0, 2], &mut text);
//! assert_eq!(String::from_utf8(text).unwrap(), ".Q..\n...Q\nQ...\n..Q.\n");
//! ```
//!
//! The modules, from what is shared to what uses it (ARCHITECTURE.md has the data flow):
//! [`types`] (options, counts, errors); [`run`] (a board's plan, the engine that counts it,
//! and the long-run files: checkpoints, shards, estimates); [`solve`] (solutions in order,
//! rendered as boards); [`bench`](mod@bench) (the benchmark's workloads); [`published`] (the
//! tables, for checking only).

pub mod bench;
#[cfg(feature = "gpu")]
pub mod gpu;
mod join;
pub mod published;
mod random;
pub mod run;
mod search;
pub mod solve;
pub mod types;

pub use run::plan::Plan;

/// The join's own counters and a part's key, for the measuring tools in `scripts/instruments`
/// (`--features instruments`). They follow the code, with no promise of stability.
#[cfg(feature = "instruments")]
pub mod instruments {
    pub use crate::join::{Enumerated, Matched, enumerated, matched};

    /// The rows of the left half's queens in the first key of a join's `part`, as a bit
    /// set; `None` for a search's part or the symmetric solutions' part.
    pub fn key_rows(plan: &crate::Plan, part: usize) -> Option<u32> {
        match &plan.parts {
            crate::run::plan::Parts::Columns { keys, group, .. } => {
                keys.get(part * group).map(|key| key.rows)
            }
            crate::run::plan::Parts::Rows { .. } => None,
        }
    }
}
pub use join::Pairs;
pub use run::{Engine, Observer, Outcome, Run};
pub use types::{
    Counts, DEFAULT_MEMORY, DEFAULT_SPLIT_DEPTH, Error, Kernel, Loops, MAX_N, Method, Options,
    Symmetry, Tally,
};

/// Counts the solutions of the `n`-queens problem, for every `n` from 0 to [`MAX_N`]: the
/// default split depth is at most the board's size.
///
/// Errors when `n > 32`, when a split depth given exceeds `n`, when a SIMD kernel is asked
/// for on a CPU without it, or when the worker threads cannot be started.
pub fn count(n: u32, options: &Options) -> Result<Counts, Error> {
    options.split_depth_for(n)?;
    Engine::new(options)?.count(n)
}

/// The README's examples (its `rust` blocks), compiled and run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
