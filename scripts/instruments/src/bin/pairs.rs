//! Pairs of half-boards the join tests per solution, for each n from A to B:
//! `cargo run --release -p nqueens-instruments --features instruments --bin pairs -- A B`
//! (`scripts/pairs.sh` writes it to a CSV; results/zen4/2026-11-23-join-pairs/ holds a run). The board is counted in
//! `--symmetry none` (every key once), so the solutions are the board's. `every_pair` is
//! what testing every pair of each key's half-boards tests (the join before it split on
//! diagonals); `tested` what the split leaves to the bitset tables.

use nqueens_engine::instruments::matched;
use nqueens_engine::{Kernel, Method, Plan, Symmetry};
use rayon::prelude::*;

fn main() {
    let arg = |i: usize, d: u32| std::env::args().nth(i).map_or(d, |a| a.parse().unwrap());
    let (from, to) = (arg(1, 10), arg(2, 18));
    println!("n,solutions,every_pair,tested,leaves,every_pair_per_solution,tested_per_solution");
    for n in from..=to {
        let plan = Plan::build(n, Symmetry::None, 2, Method::Join, 2 << 30, 1).unwrap();
        let before = matched();
        let solutions: u128 = (0..plan.len())
            .into_par_iter()
            .map(|i| plan.count(i, Kernel::Auto).solutions)
            .sum();
        assert_eq!(
            Some(solutions),
            nqueens_engine::published::all(n),
            "n = {n}"
        );
        let after = matched();
        let (every, tested) = (after.pairs - before.pairs, after.tested - before.tested);
        let per = |x: u64| x as f64 / solutions.max(1) as f64;
        println!(
            "{n},{solutions},{every},{tested},{},{:.1},{:.1}",
            after.leaves - before.leaves,
            per(every),
            per(tested)
        );
    }
}
