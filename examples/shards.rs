//! Counts n = 12 as three separate runs would: the plan's parts dealt into 3 shards, each
//! shard counted alone and written as a shard result (the JSON `count --shard I/3 --output`
//! writes), then the three files checked and merged into the board's total.
//! `cargo run --release --example shards`

use std::io::Write;
use std::path::Path;

use nqueens_engine::run::shard::{self, Shard, ShardResult};
use nqueens_engine::{Engine, Options, Run};

const N: u32 = 12;
const SHARDS: usize = 3;

/// Runs the example, writing to the standard streams (the tests call it, and [`run`] to
/// read its output).
pub fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    if let Err(e) = run(dir.path(), &mut std::io::stdout().lock()) {
        eprintln!("shards: {e}");
        std::process::exit(1);
    }
}

/// Writes the shard results into `dir`, merges them, and writes what each shard counted and
/// the merged total to `out`.
pub fn run(dir: &Path, out: &mut dyn Write) -> Result<(), Box<dyn std::error::Error>> {
    let engine = Engine::new(&Options::default())?;
    let plan = engine.plan(N)?;
    let mut files = Vec::new();
    for index in 0..SHARDS {
        // Each shard gets the parts the deal by estimated cost gives it: the same on every
        // machine, so runs elsewhere count the other shards.
        let shard = Shard {
            index,
            count: SHARDS,
        };
        let parts = shard::subproblems_of(plan.costs(), shard);
        let outcome = Run::new(&plan).only(parts).keep_each().execute(&engine);
        let result = ShardResult::new(
            &plan,
            shard,
            engine.kernel(),
            outcome.each,
            outcome.threads.unwrap_or(engine.threads()),
            outcome.elapsed_s,
        );
        let file = dir.join(format!("{index}-of-{SHARDS}.json"));
        std::fs::write(&file, result.text()?)?;
        writeln!(out, "shard {index}: {} solutions", result.solutions)?;
        files.push(file);
    }
    // The merge reads the files in parallel on the engine's threads, and refuses a set
    // that misses, repeats or changes a part.
    let merged = engine.install(|| shard::merge(files, false, None))?;
    let counts = merged.sum.outcome.counts(&merged.sum.plan);
    writeln!(out, "merged: {} solutions", counts.solutions)?;
    Ok(())
}
