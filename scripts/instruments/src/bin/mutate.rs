//! Random mutations and forgeries of a small shard set, each merged as `nqueens merge` merges
//! it (see `tests/mutate/trials.rs`), and random mutations of a checkpoint, each resumed as
//! `nqueens count --checkpoint` resumes it (see `tests/mutate/checkpoints.rs`), with the
//! verdicts checked: a CSV of the verdicts by kind on stdout (several sets: their tables in
//! turn, an empty line between), each failing trial on stderr, exit 1 if any failed. The
//! `files` set (see `tests/mutate/files.rs`) runs the `nqueens` binary against planted rescue
//! files and file size limits. The trials live beside the tests, which run a sample of them.
//! `cargo run -p nqueens-instruments --bin mutate -- TRIALS [SEED]
//! [shards|checkpoints|files|both|all]` (TRIALS of each set; default seed 71, both: shards
//! and checkpoints; all: the three); `scripts/mutate.sh N` runs it and keeps the CSVs in a
//! dated results folder.

#[path = "../../../../tests/mutate/checkpoints.rs"]
mod checkpoints;
#[path = "../../../../tests/mutate/files.rs"]
mod files;
#[path = "../../../../tests/mutate/trials.rs"]
mod trials;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |a| {
            a.parse()
                .unwrap_or_else(|_| usage(&format!("{a}: not a whole number")))
        })
    };
    if args.is_empty() || args.len() > 3 {
        usage("one to three arguments");
    }
    let (count, seed) = (number(0, 0) as usize, number(1, 71));
    let (shards, checkpoints, files) = match args.get(2).map_or("both", String::as_str) {
        "shards" => (true, false, false),
        "checkpoints" => (false, true, false),
        "files" => (false, false, true),
        "both" => (true, true, false),
        "all" => (true, true, true),
        other => usage(&format!(
            "{other}: not shards, checkpoints, files, both or all"
        )),
    };
    let mut failures = 0;
    if shards {
        let mut tallies = trials::Tallies::default();
        trials::run(count, seed, |t, trial| {
            tallies.add(trial);
            if let Some(why) = trial.failure() {
                eprintln!("trial {t} ({} {}): {why}", trial.kind.name(), trial.detail);
            }
        });
        print!("{}", tallies.csv());
        failures += tallies.failures();
    }
    if shards && checkpoints {
        println!();
    }
    if checkpoints {
        let mut tallies = checkpoints::Tallies::default();
        checkpoints::run(count, seed, |t, trial| {
            tallies.add(trial);
            if let Some(why) = trial.failure() {
                eprintln!(
                    "checkpoint trial {t} ({} {}): {why}",
                    trial.kind.name(),
                    trial.detail
                );
            }
        });
        print!("{}", tallies.csv());
        failures += tallies.failures();
    }
    if files {
        if shards || checkpoints {
            println!();
        }
        let mut tallies = files::Tallies::default();
        files::run(&nqueens(), count, seed, |t, trial| {
            tallies.add(trial);
            if let Some(why) = trial.failure() {
                eprintln!(
                    "file trial {t} ({} {}): {why}",
                    trial.kind.name(),
                    trial.detail
                );
            }
        });
        print!("{}", tallies.csv());
        failures += tallies.failures();
    }
    if failures > 0 {
        std::process::exit(1);
    }
}

/// The `nqueens` binary the file trials run: `$MUTATE_NQUEENS`, else the one built beside
/// this example (`target/debug/nqueens` for `target/debug/examples/mutate`).
fn nqueens() -> std::path::PathBuf {
    if let Some(bin) = std::env::var_os("MUTATE_NQUEENS") {
        return bin.into();
    }
    let me = std::env::current_exe().unwrap_or_else(|e| usage(&format!("where am I? {e}")));
    let bin = me
        .parent()
        .and_then(|examples| examples.parent())
        .map(|profile| profile.join("nqueens"))
        .filter(|bin| bin.is_file());
    bin.unwrap_or_else(|| {
        usage("no nqueens binary beside the example: cargo build --bin nqueens, or set MUTATE_NQUEENS")
    })
}

fn usage(why: &str) -> ! {
    eprintln!("mutate: {why}\nusage: mutate TRIALS [SEED] [shards|checkpoints|files|both|all]");
    std::process::exit(2)
}
