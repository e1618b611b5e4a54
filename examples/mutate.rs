//! Random mutations and forgeries of a small shard set, each merged as `nqueens merge` merges
//! it, with the verdicts checked (see `mutate/trials.rs`): a CSV of the verdicts by kind on
//! stdout, each failing trial on stderr, exit 1 if any failed.
//! `cargo run --example mutate -- TRIALS [SEED]`; `scripts/mutate.sh N` runs it and keeps the
//! CSV in a dated results folder.

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
    if args.is_empty() || args.len() > 2 {
        usage("one or two arguments");
    }
    let (count, seed) = (number(0, 0) as usize, number(1, 71));
    let mut tallies = trials::Tallies::default();
    trials::run(count, seed, |t, trial| {
        tallies.add(trial);
        if let Some(why) = trial.failure() {
            eprintln!("trial {t} ({} {}): {why}", trial.kind.name(), trial.detail);
        }
    });
    print!("{}", tallies.csv());
    if tallies.failures() > 0 {
        std::process::exit(1);
    }
}

fn usage(why: &str) -> ! {
    eprintln!("mutate: {why}\nusage: mutate TRIALS [SEED]");
    std::process::exit(2)
}
