//! Exact counts of N-Queens solutions, on every core.
//!
//! A board is cut into independent parts, rayon work-steals them across threads, and the
//! per-part counts are reduced, exactly, into totals. Two methods cut and count the parts
//! ([`Method`]; [`Method::Auto`] picks per board, from `n` alone):
//!
//! - the **join** ([`join`]; the default from n = 10 to 28): the board is cut down the middle.
//!   Each part is a *key*, the rows the queens of the left columns take; its left and right
//!   half-boards are built from pieces (the placements inside each quarter), and a left and
//!   a right half-board make a solution exactly when no diagonal holds a queen of each. The
//!   pairs are found by splitting one side on its most contested diagonals down to bitset
//!   tables, not by testing every pair. Mirror images of keys are counted once, and the
//!   fundamental solutions come by Burnside's lemma.
//! - the **search** (the default elsewhere): the first rows are split into subproblems
//!   whose bitmask backtracking counts the completions; symmetry cuts the work (the mirror
//!   image on the first row halves it, the eight symmetries of the square cut it to about
//!   an eighth). Where the CPU has AVX-512, sixteen subtrees at a time are searched in
//!   lockstep in SIMD lanes, eight where it has AVX2 ([`search::simd`]); the scalar loop
//!   ([`search::scalar`]) runs everywhere and gives the same counts. The join's matching follows
//!   the same choice of loop.
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
//! [`types`] (options, counts, errors); [`search`] (roots, subproblems and the scalar and
//! SIMD loops); [`join`] (the join: keys, pieces, half-boards and their matching); [`run`]
//! (a board's plan, the engine that counts it, and the long-run files: checkpoints, shards,
//! estimates); [`solve`] (solutions in order, rendered as boards); [`bench`](mod@bench) (the
//! benchmark's workloads); [`published`] (the tables, for checking only).

pub mod bench;
pub mod join;
pub mod published;
mod random;
pub mod run;
pub mod search;
pub mod solve;
pub mod types;

pub use run::plan::Plan;
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
