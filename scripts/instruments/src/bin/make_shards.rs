//! Real shard results of a small board, many of them, fast: the plan of `n` searched at a
//! split depth, each part counted once (in parallel), dealt into `K` shards as
//! `count --shard I/K` deals them, and each shard's result written as `count` writes it (the
//! same JSON and checksum; no fsync, which a scale test of `merge` does not need). Each
//! shard's `elapsed_s` is its share of the counting time, by parts.
//! `cargo run --release -p nqueens-instruments --bin make_shards -- N DEPTH SYMMETRY K DIR`, e.g.
//! `14 6 none 176871 shards/` (n = 14 at depth 6 has 241,484 parts: 176,871 shards, as many
//! as n = 22's join has parts; `scripts/merge-scale.sh` makes them so). With `K` a range
//! `A-B`, shard 0 of each slicing from `A` to `B` shards is written instead (`n19-0-of-K.json`),
//! one run's slicings of the plan each: what `merge --quorum` holds per slicing
//! (`scripts/quorum-memory.sh`).

use std::path::PathBuf;

use nqueens_engine::run::shard::{self, Shard, ShardResult};
use nqueens_engine::{Engine, Options, Plan, Run, Symmetry, Tally};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, depth, symmetry, k, dir] = &args[..] else {
        usage("five arguments");
    };
    let number = |s: &str| -> usize {
        s.parse()
            .unwrap_or_else(|_| usage(&format!("{s}: not a number")))
    };
    let symmetry = match symmetry.as_str() {
        "none" => Symmetry::None,
        "mirror" => Symmetry::Mirror,
        "full" => Symmetry::Full,
        other => usage(&format!("unknown symmetry {other}")),
    };
    // `A-B`: shard 0 of every slicing from A to B; else all K shards of one.
    let (slicings, every) = match k.split_once('-') {
        Some((a, b)) => (number(a)..=number(b), false),
        None => (number(k)..=number(k), true),
    };
    let (n, depth, dir) = (number(n) as u32, number(depth), PathBuf::from(dir));
    let engine = Engine::new(&Options::default()).unwrap_or_else(|e| usage(&e.to_string()));
    let plan = engine
        .install(|| Plan::new(n, symmetry, depth))
        .unwrap_or_else(|e| usage(&e.to_string()));
    if *slicings.start() == 0 || *slicings.end() > plan.len() || slicings.is_empty() {
        usage(&format!("K must be 1 to the plan's {} parts", plan.len()));
    }
    let outcome = Run::new(&plan).keep_each().execute(&engine);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| usage(&format!("{}: {e}", dir.display())));
    let per_part = outcome.elapsed_s / plan.len() as f64;
    let mut written = 0;
    for k in slicings.clone() {
        let owner = shard::deal(engine.install(|| plan.costs()), k);
        let mut shards: Vec<Vec<(usize, Tally)>> = vec![Vec::new(); if every { k } else { 1 }];
        for &(i, t) in &outcome.each {
            if let Some(each) = shards.get_mut(owner[i]) {
                each.push((i, t));
            }
        }
        for (index, each) in shards.into_iter().enumerate() {
            let elapsed_s = per_part * each.len() as f64;
            let shard = Shard { index, count: k };
            let mut r = ShardResult::new(&plan, shard, engine.kernel(), each, 1, elapsed_s);
            if !every {
                // Each slicing a run of its own, as a host's would be.
                r.run = format!(
                    "{:032x}",
                    (u128::from(r.config.fingerprint) << 64) + k as u128
                );
                r.seal();
            }
            let mut text = serde_json::to_vec(&r).expect("a shard result serializes");
            text.push(b'\n');
            let name = if every {
                format!("n{n}-{index}.json")
            } else {
                format!("n{n}-{index}-of-{k}.json")
            };
            let path = dir.join(name);
            std::fs::write(&path, text)
                .unwrap_or_else(|e| usage(&format!("{}: {e}", path.display())));
            written += 1;
        }
    }
    println!(
        "{written} shard results of n = {n} ({} parts, {} solutions; slicings {} to {}) in {}",
        plan.len(),
        outcome.tally.solutions,
        slicings.start(),
        slicings.end(),
        dir.display()
    );
}

fn usage(why: &str) -> ! {
    eprintln!("make_shards: {why}\nusage: make_shards N DEPTH none|mirror|full K|A-B DIR");
    std::process::exit(2)
}
