//! Random keys of the join's plan counted on one thread and timed: a quick, quiet measure of
//! the matching alone (no planning of the whole board, no threads), for comparing two builds
//! side by side. `cargo run --release -p nqueens-instruments --features instruments --bin
//! time_keys -- N KEYS [SEED] [scalar|avx2]` prints the keys' solutions (weighted by their orbits) and the
//! seconds they took.

use nqueens_instruments::random_parts;

use std::time::Instant;

use nqueens_engine::Kernel;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (n, plan, parts) = random_parts(&args, 100, usage);
    let keys = parts.len();
    let kernel = match args.get(3).map(String::as_str) {
        None => Kernel::Auto,
        Some("scalar") => Kernel::Scalar,
        Some("avx2") => Kernel::Avx2,
        Some(other) => usage(&format!("unknown kernel {other}")),
    };
    // One key first, untimed: the thread's buffers.
    plan.count(parts[0], kernel);
    let before = nqueens_engine::instruments::matched();
    let start = Instant::now();
    let solutions: u128 = parts.iter().map(|&i| plan.count(i, kernel).solutions).sum();
    let seconds = start.elapsed().as_secs_f64();
    let after = nqueens_engine::instruments::matched();
    // What the matching did for these keys: the pairs its leaves tested, the leaves, and the
    // split levels that went on with short words.
    println!(
        "n={n} keys={keys} solutions={solutions} seconds={seconds:.3} tested={} leaves={} short={}",
        after.tested - before.tested,
        after.leaves - before.leaves,
        after.short - before.short
    );
}

fn usage(why: &str) -> ! {
    eprintln!("time_keys: {why}\nusage: time_keys N KEYS [SEED] [scalar|avx2]");
    std::process::exit(2);
}
