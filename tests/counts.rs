//! Counts against the published tables and against the naive oracle, in every mode.

mod common;

use std::num::NonZeroUsize;

use nqueens::engine::Plan;
use nqueens::{Kernel, Options, Symmetry, count, published};

const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

fn options(threads: usize, split_depth: usize, symmetry: Symmetry) -> Options {
    Options {
        threads: NonZeroUsize::new(threads),
        split_depth,
        symmetry,
        kernel: Kernel::Scalar,
    }
}

/// Every counting loop this CPU can run.
fn kernels() -> Vec<Kernel> {
    let mut k = vec![Kernel::Scalar];
    if nqueens::simd::available() {
        k.push(Kernel::Avx512);
    } else {
        eprintln!("this CPU lacks AVX-512: only the scalar loop is tested");
    }
    k
}

#[test]
fn every_kernel_mode_thread_count_and_split_depth_matches_the_published_table_up_to_14() {
    for kernel in kernels() {
        for symmetry in MODES {
            for threads in [1, 2, 3] {
                for depth in 0..=3 {
                    for n in 0..=14u32 {
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
                        assert_eq!(c.threads, threads);
                    }
                }
            }
        }
    }
}

#[test]
fn kernels_agree_task_by_task_on_random_task_sets() {
    if !nqueens::simd::available() {
        eprintln!("this CPU lacks AVX-512: nothing to compare the scalar loop with");
        return;
    }
    // A fixed linear congruential sequence picks the tasks: the same sets every run.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut pick = |below: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % below
    };
    for symmetry in MODES {
        for n in [9u32, 12, 13, 15] {
            for depth in [1, 2, 3] {
                let scalar = Plan::new(n, symmetry, depth);
                let lanes = Plan::new(n, symmetry, depth).with_kernel(Kernel::Avx512);
                let chosen: Vec<usize> = (0..12).map(|_| pick(scalar.tasks.len())).collect();
                for &i in &chosen {
                    assert_eq!(
                        scalar.solve(i),
                        lanes.solve(i),
                        "n={n} {symmetry} depth {depth} task {i}"
                    );
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
        let all = common::solutions(n);
        let (classes, orbit_sum) = common::classes(n);
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
fn compiled_table_matches_the_shared_file() {
    let Some(rows) = common::published_tsv() else {
        eprintln!("shared/sequences/published.tsv not found beside the checkout; skipped");
        return;
    };
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
        Err(nqueens::Error::BoardSize(33))
    );
    assert_eq!(
        count(3, &options(1, 4, Symmetry::Mirror)),
        Err(nqueens::Error::SplitDepth { depth: 4, n: 3 })
    );
    assert!(
        count(33, &Options::default())
            .unwrap_err()
            .to_string()
            .contains("between 0 and 32")
    );
}

#[test]
fn counts_past_u64_are_printed_exactly() {
    use nqueens::output::{Format, Printer};
    let mut c = count(4, &Options::default()).unwrap();
    c.solutions = (1u128 << 70) + 1;
    let json = serde_json::to_string(&c).unwrap();
    assert!(
        json.contains("\"solutions\":1180591620717411303425"),
        "{json}"
    );
    let mut csv = Vec::new();
    Printer::new(&mut csv, Format::Csv).print(&c).unwrap();
    assert!(
        String::from_utf8(csv)
            .unwrap()
            .contains(",1180591620717411303425,")
    );
}
