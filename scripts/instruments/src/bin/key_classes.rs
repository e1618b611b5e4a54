//! Which keys cost the join the most per solution: random keys of an `n`-board counted on
//! one thread and timed, each with its class, written as CSV (one row per key; a run is
//! results/zen3/2026-11-25-estimate-bound/key-classes.csv).
//! `cargo run --release -p nqueens-instruments --features instruments --bin key_classes --
//! N KEYS [SEED]`
//!
//! A key's class is how its left queens split between the board's top and bottom halves:
//! `top` is the number of them in the top `n / 2` rows. A key with most of its left queens
//! in one half has left half-boards crowded on that half's diagonals and right ones on the
//! other's, so its pairs are far more often compatible or far more often not than a
//! balanced key's. The row gives the key's matching seconds (its pieces' enumeration,
//! which a whole run pays once per row set, apart), its solutions weighted by its orbit
//! and its estimated cost ([`nqueens_engine::Plan::costs`]); ns per solution is `seconds / solutions`.

use nqueens_instruments::random_parts;

use std::time::Instant;

use nqueens_engine::Kernel;
use nqueens_engine::instruments::{enumerated, key_rows};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (n, plan, parts) = random_parts(&args, 20, usage);
    let costs = plan.costs();
    let top_rows = (1u32 << (n / 2)) - 1;
    println!("n,part,top,left,cost,solutions,seconds,pieces_seconds,ns_per_solution");
    // One key first, untimed: the thread's buffers.
    plan.count(0, Kernel::Auto);
    for part in parts {
        let Some(rows) = key_rows(&plan, part) else {
            usage("the plan's part is not a key");
        };
        let (before, start) = (enumerated(), Instant::now());
        let solutions = plan.count(part, Kernel::Auto).solutions;
        let seconds = start.elapsed().as_secs_f64();
        let pieces = (enumerated() - before).seconds;
        let matching = seconds - pieces;
        println!(
            "{n},{part},{},{},{},{solutions},{matching:.6},{pieces:.6},{:.3}",
            (rows & top_rows).count_ones(),
            rows.count_ones(),
            costs[part],
            if solutions > 0 {
                matching * 1e9 / solutions as f64
            } else {
                f64::NAN
            }
        );
    }
}

fn usage(why: &str) -> ! {
    eprintln!("key_classes: {why}\nusage: key_classes N KEYS [SEED]");
    std::process::exit(2);
}
