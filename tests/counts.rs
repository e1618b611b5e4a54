//! Counts against the published tables and against the naive oracle, in every mode.

mod common;

use std::num::NonZeroUsize;

use nqueens::{Kernel, Method, Options, Plan, Symmetry, count, published};

const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

fn options(threads: usize, split_depth: usize, symmetry: Symmetry) -> Options {
    Options {
        threads: NonZeroUsize::new(threads),
        split_depth,
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
            common::untested(&format!(
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
                        assert_eq!(c.threads, if sequential { 1 } else { threads }, "{what}");
                        assert_eq!(c.split_depth.is_none(), c.method == Method::Join, "{what}");
                        assert_eq!(c.kernel, kernel.resolve().ok(), "{what}");
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
fn joined(n: u32, symmetry: Symmetry, memory: usize) -> Result<Plan, nqueens::Error> {
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
        let nqueens::Error::Memory { need, limit, .. } = e else {
            panic!("expected a memory error, got {e:?}");
        };
        assert!(need > limit, "{need} {limit}");
        least = need;
    }
    for memory in [least, 4 << 20, 64 << 20] {
        let plan = joined(15, Symmetry::Full, memory).unwrap();
        assert_eq!(plan.fingerprint(), roomy.fingerprint(), "memory {memory}");
        let total: nqueens::Tally = (0..plan.len()).map(|i| plan.count(i, Kernel::Auto)).sum();
        assert_eq!(Some(total.solutions), published::all(15), "memory {memory}");
        assert_eq!(Some(total.unique8 / 8), published::fundamental(15));
    }
    assert!(matches!(
        Plan::build(15, Symmetry::Full, 2, Method::Auto, 1 << 10, 2),
        Err(nqueens::Error::Memory { .. })
    ));
    for (memory, threads) in [(8 << 20, 2), (8 << 20, 8), (1 << 30, 64)] {
        let auto = Plan::build(17, Symmetry::Full, 2, Method::Auto, memory, threads).unwrap();
        assert_eq!(auto.method, Method::Join);
        assert_eq!(
            auto.config(),
            joined(17, Symmetry::Full, 1 << 30).unwrap().config()
        );
    }
    let max = nqueens::join::MAX_CUT_N;
    assert_eq!(
        joined(max + 1, Symmetry::Full, 1 << 30).map(|p| p.len()),
        Err(nqueens::Error::JoinSize(max + 1))
    );
    // `auto` joins every board the join can cut (n = 28's keys are not built here: seconds),
    // and searches those beyond.
    assert_eq!(max, 28);
    assert_eq!(Method::Auto.resolve(28), Method::Join);
    assert_eq!(Method::Auto.resolve(29), Method::Search);
    assert_eq!(Method::Auto.resolve(9), Method::Search);
    assert!(Plan::precheck(28, Symmetry::Full, 2, Method::Join, 2 << 30, 2).is_ok());
}

/// A small share per thread goes to the pieces kept for all threads: enumerating them again
/// and again is what made a small `--memory` slow (`count 19 -j 2 --memory 32M` 1.6x the
/// time of 2G), while a thread's chunks count as fast at [`join::THREAD_FLOOR`]. At n = 19,
/// 32 MiB on 2 threads keeps more than 20 MB of pieces (8 MB before); 2 GiB on 2 threads
/// still gives each thread its fair three quarters; every split fits what it shares.
#[test]
fn small_shares_go_to_the_pieces() {
    use nqueens::join::{self, THREAD_FLOOR};
    use nqueens::run::plan::Parts;
    let pieces = |plan: &Plan| match &plan.parts {
        Parts::Columns { cut, .. } => cut.pieces_budget(),
        Parts::Rows { .. } => panic!("a join was asked for"),
    };
    let small = joined(19, Symmetry::Full, 32 << 20).unwrap();
    assert!(pieces(&small) > 20 << 20, "{}", pieces(&small));
    assert!(small.join_budget >= THREAD_FLOOR);
    let roomy = joined(19, Symmetry::Full, 2 << 30).unwrap();
    assert!(roomy.join_budget > 700 << 20, "{}", roomy.join_budget);
    assert_eq!(small.fingerprint(), roomy.fingerprint());
    for free in [join::MIN_BYTES, 1 << 20, 32 << 20, 1 << 30, 1 << 40] {
        for threads in [1, 2, 64, 1024] {
            if free < threads * join::MIN_BYTES {
                continue;
            }
            let (pieces, each) = Plan::split_memory(free, threads);
            assert!(pieces + each * threads <= free, "{free} {threads}");
            assert!(each >= THREAD_FLOOR.min(free / threads), "{free} {threads}");
        }
    }
    // The default grows with the threads, from 2 GiB, within the machine's memory.
    let default = nqueens::run::default_memory;
    assert_eq!(default(1), nqueens::types::DEFAULT_MEMORY);
    assert!(default(1024) >= default(64) && default(64) >= default(2));
}

#[test]
fn every_kernel_and_mode_matches_the_published_table_at_15() {
    for kernel in kernels() {
        for symmetry in MODES {
            let c = count(
                15,
                &Options {
                    kernel,
                    ..options(2, 2, symmetry)
                },
            )
            .unwrap();
            assert_eq!(Some(c.solutions), published::all(15), "{symmetry} {kernel}");
            if symmetry == Symmetry::Full {
                assert_eq!(c.unique, published::fundamental(15), "{kernel}");
            }
        }
    }
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
        common::untested("this CPU has no SIMD lanes: nothing to compare the scalar loop with");
        return;
    }
    let mut pick = picker(0x2545_f491_4f6c_dd1d);
    for symmetry in MODES {
        for n in [9u32, 12, 13, 15] {
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
fn every_lane_frame_agrees_with_the_scalar_loop_at_its_shallowest_start() {
    use nqueens::search::scalar;
    use nqueens::search::schedule::State;
    use nqueens::search::simd::{self, Frame, Lanes};
    let lanes_here = Lanes::here();
    if lanes_here.is_empty() {
        common::untested("this CPU has no SIMD lanes: no lane frames to compare");
        return;
    }
    let mut pick = picker(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    // Large boards too: the headroom a frame needs shrinks as the board grows.
    for n in [13u32, 17, 20, 24, 27] {
        for symmetry in MODES {
            let plan = Plan::new(n, symmetry, 2).unwrap();
            for frame in Frame::ALL {
                for _ in 0..6 {
                    let (roots, subproblems) = plan.rows().unwrap();
                    let sub = subproblems[pick(subproblems.len())];
                    let s = roots[sub.root as usize].schedule(n);
                    if s.levels < 3 {
                        continue;
                    }
                    // Start exactly where the frame allows, unless the subtrees would be
                    // too big for a test; then as shallow as stays small.
                    let level = frame
                        .shallowest_start(&s)
                        .max(s.levels.saturating_sub(12))
                        .max(sub.state.level);
                    if level + 2 > s.levels {
                        continue;
                    }
                    // Random descents from the subproblem to that level.
                    let starts: Vec<State> = (0..40)
                        .filter_map(|_| {
                            let mut st = sub.state;
                            while st.level < level {
                                let kids: Vec<State> = s.children(st).collect();
                                if kids.is_empty() {
                                    return None;
                                }
                                st = kids[pick(kids.len())];
                            }
                            Some(st)
                        })
                        .collect();
                    let scalar: u128 = starts.iter().map(|&st| scalar::count(&s, st)).sum();
                    for &l in &lanes_here {
                        let lanes = simd::count_subtrees(&s, l, frame, &starts).unwrap();
                        assert_eq!(
                            lanes, scalar,
                            "n={n} {symmetry} {frame:?} {l:?} level {level}"
                        );
                    }
                    compared += usize::from(!starts.is_empty());
                }
            }
        }
    }
    assert!(compared > 200, "only {compared} sets compared");
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
fn compiled_table_matches_its_source() {
    let rows = common::published_tsv();
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

/// The loops' own counters run past `u64::MAX` exactly: each is started just below it (no
/// board small enough to test gets there from zero), and the plan's counts of the result
/// print exactly.
#[test]
fn kernel_counters_run_past_u64_exactly() {
    use nqueens::search::scalar;
    use nqueens::search::simd::{self, Frame, Lanes};
    let plan = Plan::new(12, Symmetry::Mirror, 1).unwrap();
    let (roots, subproblems) = plan.rows().unwrap();
    let sub = subproblems[2];
    let s = roots[sub.root as usize].schedule(12);
    let base = u128::from(u64::MAX) - 5;
    let alone = scalar::count(&s, sub.state);
    assert!(alone > 5);
    let past = scalar::count_from(&s, sub.state, base);
    assert_eq!(past, base + alone);
    assert!(past > u128::from(u64::MAX));
    for lanes in Lanes::here() {
        let frame = Frame::OpenRdLd;
        let start = frame.shallowest_start(&s).max(1);
        let mut starts = Vec::new();
        let mut board = s.fixed_board;
        let _ = s.down_to(sub.state, start, &mut board, &mut |st, _| {
            starts.push(st);
            std::ops::ControlFlow::Continue(())
        });
        let counted = simd::count_subtrees_from(&s, lanes, frame, &starts, base).unwrap();
        assert_eq!(counted, past, "the {lanes:?} lanes' counter");
    }
    if Lanes::here().is_empty() {
        common::untested("this CPU has no SIMD lanes: only the scalar counter was driven past u64");
    }
    let tally = nqueens::Tally {
        solutions: 2 * past,
        unique8: 0,
    };
    let counts = Plan::new(12, Symmetry::Mirror, 1).unwrap().counts(
        tally,
        Some(nqueens::Kernel::Scalar),
        1,
        0.0,
    );
    let json = serde_json::to_string(&counts).unwrap();
    assert!(
        json.contains(&format!("\"solutions\":{}", 2 * past)),
        "{json}"
    );
}
