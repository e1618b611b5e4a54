//! Random keys of the join's plan built on one thread and handed to a matching that counts
//! nothing: what a thread feeding a GPU spends on each key before the device matches it.
//! `cargo run --release -p nqueens-instruments --bin build_keys -- N KEYS [SEED]` prints a
//! CSV row a key: its part, the seconds its half-boards took, and the table and probe words
//! it handed over (summed over its matchings).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use nqueens_engine::{Kernel, Pairs};
use nqueens_instruments::random_parts;

/// A matching that counts no pair and adds up the words handed to it.
#[derive(Default)]
struct Nothing {
    table: AtomicU64,
    probe: AtomicU64,
}

impl Pairs for Nothing {
    fn disjoint(&self, table: &[u64], probe: &[u64]) -> u64 {
        self.table.fetch_add(table.len() as u64, Ordering::Relaxed);
        self.probe.fetch_add(probe.len() as u64, Ordering::Relaxed);
        0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (n, plan, parts) = random_parts(&args, 4, usage);
    let never = AtomicBool::new(false);
    println!("n,part,build_s,table_words,probe_words");
    for part in parts {
        let nothing = Nothing::default();
        let start = Instant::now();
        plan.count_on(part, (Kernel::Auto, &nothing), &never);
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{n},{part},{seconds:.3},{},{}",
            nothing.table.load(Ordering::Relaxed),
            nothing.probe.load(Ordering::Relaxed)
        );
    }
}

fn usage(why: &str) -> ! {
    eprintln!("build_keys: {why}\nusage: build_keys N KEYS [SEED]");
    std::process::exit(2);
}
