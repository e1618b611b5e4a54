//! The engine and the `nqueens` binary, tested from outside: one module per concern.
//!
//! - `cli`: the command-line contract (outputs that parse, refusals that name the argument).
//! - `counts`: counts against the published table and the naive oracle, in every mode.
//! - `solve`: listing solutions, valid, distinct, complete and in order.
//! - `long_runs`: checkpoint and resume, shards and merge, progress, signals and files.
//! - `reference`: the reference counter the speed ratios are measured against.
//! - `scaling_script`: `scripts/scaling.sh` in its quick mode.
//! - `snapshots`: what a user reads (help, tables, CSV, JSON, the man page) as snapshots.
//!
//! `cargo test --test integration MODULE::` runs one of them. The mutation trials of
//! checkpoints (`tests/mutations.rs`) have a binary of their own: they take file locks in
//! this process, and a child that another test spawns holds a copy of every descriptor, a
//! lock's included, until it runs its program.

mod cli;
mod counts;
mod long_runs;
mod oracle;
mod reference;
mod scaling_script;
mod snapshots;
mod solve;

/// The binary's subcommands, in the order its help lists them.
const SUBCOMMANDS: [&str; 8] = [
    "count",
    "verify",
    "solve",
    "merge",
    "estimate",
    "bench",
    "completions",
    "man",
];

// The file trials the `mutate` instrument (scripts/instruments) runs by the thousand;
// `long_runs` runs a sample.
#[path = "../mutate/files.rs"]
mod file_trials;
#[path = "../mutate/trials.rs"]
mod trials;
