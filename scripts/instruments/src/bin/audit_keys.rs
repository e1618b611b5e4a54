//! The join against the search, part by part, at boards too large for the tests:
//! `cargo run --release -p nqueens-instruments --bin audit_keys -- N PARTS [SEED] [MIB]`
//! counts PARTS random parts (keys) of the join's plan of N both ways, on every thread, and
//! exits 1 on a difference. `MIB` (2048 unless given) is the join's memory: a small one makes
//! it cut the keys' sides in chunks, as the largest boards' keys are.
//! This is what `merge --audit` does for a shard's parts, here at boards as large as n = 23
//! and 24 (results/zen4/2026-11-23-join-frontier/ has the run).

use std::time::Instant;

use nqueens_engine::{Kernel, Method, Plan, Symmetry};

fn main() {
    let arg = |i: usize| std::env::args().nth(i).and_then(|a| a.parse::<u64>().ok());
    let (Some(n), Some(parts)) = (arg(1), arg(2)) else {
        eprintln!("usage: audit_keys N PARTS [SEED] [MIB]");
        std::process::exit(2);
    };
    let mut state = arg(3).unwrap_or(0x5eed) | 1;
    let memory = arg(4).unwrap_or(2048) as usize * (1 << 20);
    let plan =
        Plan::build(n as u32, Symmetry::Full, 2, Method::Join, memory, 1).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2);
        });
    // The keys' parts (the last part in full mode is the symmetric solutions', not a key).
    let keys = plan.len_of_keys();
    let mut differ = false;
    for _ in 0..parts {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let i = (state % keys as u64) as usize;
        let t = Instant::now();
        let joined = plan.count_by(i, Method::Join, Kernel::Auto);
        let join_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let searched = plan.count_by(i, Method::Search, Kernel::Auto);
        let search_s = t.elapsed().as_secs_f64();
        let same = joined == searched;
        differ |= !same;
        println!(
            "n = {n}, part {i} of {}: join {} ({join_s:.3} s), search {} ({search_s:.3} s): {}",
            plan.len(),
            joined.solutions,
            searched.solutions,
            if same { "equal" } else { "DIFFERENT" }
        );
    }
    std::process::exit(i32::from(differ));
}
