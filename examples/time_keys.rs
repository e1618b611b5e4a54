//! Random keys of the join's plan counted on one thread and timed: a quick, quiet measure of
//! the matching alone (no planning of the whole board, no threads), for comparing two builds
//! side by side. `cargo run --release --example time_keys -- N KEYS [SEED] [scalar|avx2]`
//! prints the keys' solutions (weighted by their orbits) and the seconds they took.

mod common;

use std::time::Instant;

use nqueens::{Kernel, Method, Plan, Symmetry};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| common::number(&args, i, default, usage);
    let (n, keys) = (number(0, 20), number(1, 100));
    let mut state = number(2, 0x1234_5678_9abc_def1) | 1;
    if !(10..=27).contains(&n) || keys == 0 {
        usage("N must be 10 to 27 and KEYS at least 1");
    }
    let kernel = match args.get(3).map(String::as_str) {
        None => Kernel::Auto,
        Some("scalar") => Kernel::Scalar,
        Some("avx2") => Kernel::Avx2,
        Some(other) => usage(&format!("unknown kernel {other}")),
    };
    let plan = Plan::build(n as u32, Symmetry::Full, 2, Method::Join, 2 << 30, 1)
        .unwrap_or_else(|e| usage(&e.to_string()));
    let len = plan.len_of_keys() as u64;
    let parts: Vec<usize> = (0..keys)
        .map(|_| (common::next(&mut state) % len) as usize)
        .collect();
    // One key first, untimed: the thread's buffers.
    plan.count(parts[0], kernel);
    let start = Instant::now();
    let solutions: u128 = parts.iter().map(|&i| plan.count(i, kernel).solutions).sum();
    println!(
        "n={n} keys={keys} solutions={solutions} seconds={:.3}",
        start.elapsed().as_secs_f64()
    );
}

fn usage(why: &str) -> ! {
    eprintln!("time_keys: {why}\nusage: time_keys N KEYS [SEED] [scalar|avx2]");
    std::process::exit(2);
}
