//! Exact counts of N-Queens solutions, on every core.
//!
//! The first rows of the board are split into independent subproblems whose bitmask
//! backtracking rayon work-steals across threads; symmetry cuts the work (the mirror image
//! on the first row halves it, the eight symmetries of the square cut it to about an
//! eighth) and the per-subproblem counts are reduced, exactly, into totals. Where the CPU
//! has AVX-512, sixteen subtrees at a time are searched in lockstep in SIMD lanes, eight
//! where it has AVX2 ([`simd`]); the scalar loop ([`scalar`]) runs everywhere and gives the
//! same counts.
//!
//! ```
//! use nqueens::{count, Options, Symmetry};
//!
//! // Full symmetry is the default: totals and fundamental solutions.
//! let counts = count(8, &Options::default()).unwrap();
//! assert_eq!((counts.solutions, counts.unique), (92, Some(12)));
//!
//! let mirror = count(10, &Options { symmetry: Symmetry::Mirror, ..Options::default() }).unwrap();
//! assert_eq!((mirror.solutions, mirror.unique), (724, None));
//! ```
//!
//! The modules, from what is shared to what uses it (ARCHITECTURE.md has the data flow):
//! [`types`] (options, counts, errors), [`schedule`] (a partial board's free rows),
//! [`scalar`] and [`simd`] (the two counting loops, each with its feeding) behind
//! [`kernel`] (the one interface both are called through), [`symmetry`] and [`split`]
//! (roots and subproblems), [`plan`] (a board's subproblems and their costs), [`run`] (an
//! engine counting a plan, with observers), [`checkpoint`] and [`shard`] (long runs, over
//! [`durable`]: temporary files, syncs, locks and the limits of what is read),
//! [`list`] and [`board`] (solutions in order, rendered), [`published`] (the tables, for
//! checking only).

pub mod bench;
pub mod board;
pub mod checkpoint;
pub mod cut;
pub mod durable;
pub mod estimate;
pub mod kernel;
pub mod list;
pub mod plan;
pub mod published;
pub mod run;
pub mod scalar;
pub mod schedule;
pub mod shard;
pub mod simd;
pub mod split;
pub mod symmetry;
pub mod types;

pub use plan::Plan;
pub use run::{Engine, Observer, Outcome, Run};
pub use types::{
    Counts, DEFAULT_MEMORY, DEFAULT_SPLIT_DEPTH, Error, Kernel, MAX_N, Method, Options, Symmetry,
    Tally,
};

/// Counts the solutions of the `n`-queens problem.
///
/// Errors when `n > 32`, when the split depth exceeds `n`, when the AVX-512 kernel is asked
/// for on a CPU without it, or when the worker threads cannot be started.
pub fn count(n: u32, options: &Options) -> Result<Counts, Error> {
    types::validate(n, options.split_depth)?;
    Engine::new(options)?.count(n, options.split_depth)
}

/// The README's examples (its `rust` blocks), compiled and run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
