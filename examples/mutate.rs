//! Random mutations and forgeries of a small shard set, each merged as `nqueens merge` merges
//! it (see `mutate/trials.rs`), and random mutations of a checkpoint, each resumed as `nqueens
//! count --checkpoint` resumes it (see `mutate/checkpoints.rs`), with the verdicts checked: a
//! CSV of the verdicts by kind on stdout (both sets: the shards' table, an empty line, the
//! checkpoints'), each failing trial on stderr, exit 1 if any failed.
//! `cargo run --example mutate -- TRIALS [SEED] [shards|checkpoints|both]` (TRIALS of each
//! set; default seed 71, both); `scripts/mutate.sh N` runs it and keeps the CSVs in a dated
//! results folder.

#[path = "mutate/checkpoints.rs"]
mod checkpoints;
#[path = "mutate/trials.rs"]
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
    let (shards, checkpoints) = match args.get(2).map_or("both", String::as_str) {
        "shards" => (true, false),
        "checkpoints" => (false, true),
        "both" => (true, true),
        other => usage(&format!("{other}: not shards, checkpoints or both")),
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
    if failures > 0 {
        std::process::exit(1);
    }
}

fn usage(why: &str) -> ! {
    eprintln!("mutate: {why}\nusage: mutate TRIALS [SEED] [shards|checkpoints|both]");
    std::process::exit(2)
}
