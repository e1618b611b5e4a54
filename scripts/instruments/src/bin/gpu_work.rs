//! The GPU path's work against the CPU join's, key by key: the speed proof that needs no
//! device. `cargo run --release -p nqueens-instruments --features gpu,instruments --bin
//! gpu_work -- N KEYS [SEED] [WORKGROUP_BYTES]` counts `KEYS` random keys of `N` (the same keys for a seed on
//! every machine) on the CPU and on the GPU, checks that they agree, and prints one CSV row
//! a key: the pairs each tested at its leaves, the fewest workgroups of the GPU's
//! submissions (the key's last left out) and the most, the fewest of a dispatch that had
//! any, its matchings, submissions, dispatches (and those that found no work), its deepest
//! level, words moved by the split levels, probe words visiting leaves, restarts, and the
//! sizes the adapter's limits gave. `SLICE_LEAST=32` in the environment sets the least words
//! a split level's workgroup takes (a GPU's 32 on a software adapter, whose own is one an
//! invocation), so that a software adapter's counters are a GPU's.

use nqueens_instruments::random_parts;

use std::sync::atomic::AtomicBool;

use nqueens_engine::Kernel;
use nqueens_engine::gpu::{Gpu, GpuOptions};
use nqueens_engine::instruments::matched;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (n, plan, parts) = random_parts(&args, 4, usage);
    let cap = args.get(3).map(|a| {
        a.parse::<u32>()
            .unwrap_or_else(|_| usage("WORKGROUP_BYTES must be a number"))
    });
    let slice_least = std::env::var("SLICE_LEAST").ok().map(|v| {
        v.parse::<u32>()
            .unwrap_or_else(|_| usage("SLICE_LEAST must be a number"))
    });
    let gpu = Gpu::open(GpuOptions {
        workgroup_bytes: cap,
        slice_least,
        ..GpuOptions::default()
    })
    .unwrap_or_else(|e| usage(&e.to_string()));
    let sizes = gpu.sizes();
    let never = AtomicBool::new(false);
    let kernel = Kernel::Auto;
    for &i in &parts {
        let before = matched();
        let cpu = plan.count(i, kernel);
        let cpu_tested = matched().tested - before.tested;
        gpu.take_work();
        let on_gpu = plan
            .count_on(i, (kernel, &gpu), &never)
            .expect("a key's part");
        let work = gpu.take_work();
        assert_eq!(on_gpu, cpu, "n={n} part {i}: the GPU and the CPU disagree");
        let largest = work.workgroups.iter().max().copied().unwrap_or(0);
        let blank = |w: Option<u64>| w.map_or(String::new(), |w| w.to_string());
        println!(
            "{n},{i},{cpu_tested},{},{},{largest},{},{},{},{},{},{},{},{},{},{},{},{}",
            work.tested,
            blank(work.min_workgroups()),
            blank(work.fewest),
            work.matchings,
            work.submissions,
            work.dispatches,
            work.idle,
            work.depth,
            work.moved,
            work.visits,
            work.restarts,
            sizes.tile,
            sizes.workgroup_bytes,
            sizes.slice_least,
        );
    }
}

fn usage(why: &str) -> ! {
    eprintln!("gpu_work: {why}\nusage: gpu_work N KEYS [SEED] [WORKGROUP_BYTES]");
    std::process::exit(2);
}
