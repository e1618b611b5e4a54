//! Counts against the published tables and against the naive oracle, in every mode.

use std::num::NonZeroUsize;

use nqueens_engine::{Kernel, Method, Options, Plan, Symmetry, count, published};

use crate::oracle;

const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

fn options(threads: usize, split_depth: usize, symmetry: Symmetry) -> Options {
    Options {
        threads: NonZeroUsize::new(threads),
        split_depth: Some(split_depth),
        symmetry,
        kernel: Kernel::Scalar,
        method: Method::Search,
        ..Options::default()
    }
}

/// Every counting loop this CPU can run.
fn kernels() -> Vec<Kernel> {
    let k: Vec<Kernel> = [Kernel::Scalar, Kernel::Avx512, Kernel::Avx2]
        .into_iter()
        .filter(|k| k.resolve().is_ok())
        .collect();
    for missing in [Kernel::Avx512, Kernel::Avx2] {
        if !k.contains(&missing) {
            oracle::untested(&format!(
                "this CPU lacks {missing}: that loop is not tested"
            ));
        }
    }
    k
}

/// Up to 14 at the default threads and split depth, up to 12 at the others: n = 13 and 14
/// at all twelve took 11 s of the README's test command, which must stay under 3 minutes.
#[test]
fn every_kernel_mode_thread_count_and_split_depth_matches_the_published_table_up_to_14() {
    for kernel in kernels() {
        for symmetry in MODES {
            for threads in [1, 2, 3] {
                for depth in 0..=3 {
                    let top = if (threads, depth) == (2, 2) { 14 } else { 12 };
                    for n in 0..=top {
                        let o = Options {
                            kernel,
                            ..options(threads, depth.min(n as usize), symmetry)
                        };
                        let c = count(n, &o).unwrap();
                        let what = format!("n={n} {symmetry} -j{threads} depth {depth} {kernel:?}");
                        assert_eq!(Some(c.solutions), published::all(n), "{what}");
                        if symmetry == Symmetry::Full && n >= 1 {
                            assert_eq!(c.unique, published::fundamental(n), "unique {what}");
                        } else if symmetry != Symmetry::Full {
                            assert_eq!(c.unique, None);
                        }
                        // A search at split depth 0 runs on one thread; the join at any depth.
                        let sequential = c.method == Method::Search && depth.min(n as usize) == 0;
                        let used = if sequential { 1 } else { threads };
                        assert_eq!(c.threads, Some(used), "{what}");
                        assert_eq!(c.split_depth.is_none(), c.method == Method::Join, "{what}");
                        assert_eq!(c.kernel, kernel.resolve().unwrap().into(), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_join_matches_the_published_table_up_to_15_in_every_mode_and_kernel() {
    for (symmetry, kernel) in MODES
        .into_iter()
        .flat_map(|m| kernels().into_iter().map(move |k| (m, k)))
    {
        for depth in [0, 2] {
            for n in 0..=15u32 {
                let o = Options {
                    method: Method::Join,
                    kernel,
                    ..options(2, depth.min(n as usize), symmetry)
                };
                let c = count(n, &o).unwrap();
                assert_eq!(
                    Some(c.solutions),
                    published::all(n),
                    "n={n} {symmetry} depth {depth}"
                );
                if symmetry == Symmetry::Full && n >= 1 {
                    assert_eq!(c.unique, published::fundamental(n), "n={n} depth {depth}");
                }
            }
        }
    }
}

/// The join's plan of an `n`-board in `symmetry`, within `memory` bytes over two threads.
fn joined(n: u32, symmetry: Symmetry, memory: usize) -> Result<Plan, nqueens_engine::Error> {
    Plan::build(n, symmetry, 2, Method::Join, memory, 2)
}

/// Each part of the join (a key, or the symmetric solutions' part) counted by the join in
/// every kernel and by a search of the same part (the board turned a quarter, the key's
/// rows closed off), on random samples; odd and even boards.
#[test]
fn methods_agree_part_by_part_on_random_samples_up_to_18() {
    let mut pick = picker(0x51f1_5eed_u64);
    let loops = kernels();
    for (n, samples) in [
        (9u32, 12),
        (12, 12),
        (13, 8),
        (14, 8),
        (16, 4),
        (17, 2),
        (18, 2),
    ] {
        for symmetry in MODES {
            let join = joined(n, symmetry, 1 << 30).unwrap();
            let mut parts: Vec<usize> = (0..samples).map(|_| pick(join.len())).collect();
            // The last part: in full mode, the solutions the other symmetries fix.
            parts.push(join.len() - 1);
            for i in parts {
                let searched = join.count_by(i, Method::Search, Kernel::Auto);
                for &k in &loops {
                    assert_eq!(join.count(i, k), searched, "n={n} {symmetry} part {i} {k}");
                }
            }
        }
    }
}

/// Memory decides how a join is sliced, never what it counts or how it is cut: a tight
/// budget counts the same; one below the least the threads need is refused with the bytes
/// it needs (`auto` too: it does not fall back to another method); the plan, method and
/// fingerprint are the same whatever the memory and threads.
#[test]
fn memory_slices_the_work_never_the_plan() {
    let roomy = joined(15, Symmetry::Full, 1 << 30).unwrap();
    // Refused with what it needs (at first a lower bound, before the keys are found), until
    // that is enough.
    let mut least = 1 << 10;
    while let Err(e) = joined(15, Symmetry::Full, least) {
        let nqueens_engine::Error::Memory { need, limit, .. } = e else {
            panic!("expected a memory error, got {e:?}");
        };
        assert!(need > limit, "{need} {limit}");
        least = need;
    }
    for memory in [least, 4 << 20, 64 << 20] {
        let plan = joined(15, Symmetry::Full, memory).unwrap();
        assert_eq!(plan.fingerprint(), roomy.fingerprint(), "memory {memory}");
        let total: nqueens_engine::Tally =
            (0..plan.len()).map(|i| plan.count(i, Kernel::Auto)).sum();
        assert_eq!(Some(total.solutions), published::all(15), "memory {memory}");
        assert_eq!(Some(total.unique8 / 8), published::fundamental(15));
    }
    assert!(matches!(
        Plan::build(15, Symmetry::Full, 2, Method::Auto, 1 << 10, 2),
        Err(nqueens_engine::Error::Memory { .. })
    ));
    for (memory, threads) in [(8 << 20, 2), (8 << 20, 8), (1 << 30, 64)] {
        let auto = Plan::build(17, Symmetry::Full, 2, Method::Auto, memory, threads).unwrap();
        assert_eq!(auto.method, Method::Join);
        assert_eq!(
            auto.config(),
            joined(17, Symmetry::Full, 1 << 30).unwrap().config()
        );
    }
    let max = nqueens_engine::types::MAX_CUT_N;
    assert_eq!(
        joined(max + 1, Symmetry::Full, 1 << 30).map(|p| p.len()),
        Err(nqueens_engine::Error::JoinSize(max + 1))
    );
    // `auto` joins every board the join can cut (n = 28's keys are not built here: seconds),
    // and searches those beyond.
    assert_eq!(max, 28);
    assert_eq!(Method::Auto.resolve(28), Method::Join);
    assert_eq!(Method::Auto.resolve(29), Method::Search);
    assert_eq!(Method::Auto.resolve(9), Method::Search);
    assert!(Plan::precheck(28, Symmetry::Full, 2, Method::Join, 2 << 30, 2).is_ok());
}

/// A fixed linear congruential sequence of indices below the bound asked for: the same
/// picks every run.
fn picker(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |below| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % below
    }
}

#[test]
fn kernels_agree_subproblem_by_subproblem_on_random_sets() {
    let loops = kernels();
    if loops.len() == 1 {
        oracle::untested("this CPU has no SIMD lanes: nothing to compare the scalar loop with");
        return;
    }
    let mut pick = picker(0x2545_f491_4f6c_dd1d);
    for symmetry in MODES {
        for n in [9u32, 12, 13, 14] {
            for depth in [1, 2, 3] {
                let plan = Plan::new(n, symmetry, depth).unwrap();
                let chosen: Vec<usize> = (0..12).map(|_| pick(plan.len())).collect();
                for &i in &chosen {
                    let scalar = plan.count(i, Kernel::Scalar);
                    for &k in &loops[1..] {
                        assert_eq!(
                            scalar,
                            plan.count(i, k),
                            "n={n} {symmetry} depth {depth} subproblem {i} {k}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_deep_split_gives_the_same_counts() {
    for symmetry in MODES {
        for n in 8..=11u32 {
            let deep = count(n, &options(2, n as usize, symmetry)).unwrap();
            assert_eq!(
                Some(deep.solutions),
                published::all(n),
                "n={n} {symmetry} split at the last row"
            );
        }
    }
}

#[test]
fn naive_oracle_agrees_up_to_10() {
    for n in 0..=10usize {
        let all = oracle::solutions(n);
        let (classes, orbit_sum) = oracle::classes(n);
        assert_eq!(
            orbit_sum,
            all.len(),
            "orbits partition the solutions, n={n}"
        );
        for symmetry in MODES {
            let c = count(n as u32, &options(2, 2.min(n), symmetry)).unwrap();
            assert_eq!(c.solutions, all.len() as u128, "n={n} {symmetry}");
            if symmetry == Symmetry::Full {
                assert_eq!(c.unique, Some(classes as u128), "n={n}");
            }
        }
    }
}

#[test]
fn compiled_table_matches_its_source() {
    let rows = oracle::published_tsv();
    assert_eq!(rows.len(), published::A000170.len());
    for (n, all, unique) in rows {
        assert_eq!(published::all(n), Some(all), "A000170({n})");
        assert_eq!(published::fundamental(n), unique, "A002562({n})");
    }
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    assert_eq!(
        count(33, &Options::default()),
        Err(nqueens_engine::Error::BoardSize(33))
    );
    assert_eq!(
        count(3, &options(1, 4, Symmetry::Mirror)),
        Err(nqueens_engine::Error::SplitDepth { depth: 4, n: 3 })
    );
    assert!(
        count(33, &Options::default())
            .unwrap_err()
            .to_string()
            .contains("between 0 and 32")
    );
}

/// The JSON half; the CSV half is a unit test of the binary's printer (`output.rs`).
#[test]
fn counts_past_u64_are_printed_exactly() {
    let mut c = count(4, &Options::default()).unwrap();
    c.solutions = (1u128 << 70) + 1;
    let json = serde_json::to_string(&c).unwrap();
    assert!(
        json.contains("\"solutions\":1180591620717411303425"),
        "{json}"
    );
}
