//! Criterion benches of the counting loops alone and of the whole engine, each asserting the
//! count it times (against the published table).

use std::hint::black_box;
use std::num::NonZeroUsize;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nqueens_engine::{Engine, Kernel, Method, Options, Plan, Symmetry, Tally, published};

const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

/// The loops this CPU can run.
fn kernels() -> Vec<Kernel> {
    [Kernel::Scalar, Kernel::Avx512, Kernel::Avx2]
        .into_iter()
        .filter(|k| k.resolve().is_ok())
        .collect()
}

/// A loop alone: every mirror root of the board, one after another on this thread.
fn kernel_alone(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    for kernel in kernels() {
        for n in 8..=13u32 {
            let plan = Plan::new(n, Symmetry::Mirror, 1).unwrap();
            let expected = published::all(n).unwrap();
            group.bench_with_input(
                BenchmarkId::new(format!("{kernel:?}-mirror-roots"), n),
                &plan,
                |b, plan| {
                    b.iter(|| {
                        let total: Tally = (0..plan.len())
                            .map(|i| black_box(plan).count(i, kernel))
                            .sum();
                        assert_eq!(total.solutions, expected);
                    })
                },
            );
        }
    }
    group.finish();
}

/// The whole engine (a [`nqueens_engine::Run`] over every part): split, rayon and reduction, per
/// symmetry mode, method, loop and thread count.
fn engine(c: &mut Criterion) {
    for symmetry in MODES {
        let mut group = c.benchmark_group(format!("count-{symmetry}"));
        for (method, kernel) in [Method::Search, Method::Join]
            .into_iter()
            .flat_map(|m| kernels().into_iter().map(move |k| (m, k)))
        {
            for threads in [1, 2] {
                let options = Options {
                    threads: NonZeroUsize::new(threads),
                    split_depth: Some(2),
                    symmetry,
                    kernel,
                    method,
                    ..Options::default()
                };
                let engine = Engine::new(&options).unwrap();
                for n in 8..=13u32 {
                    let id = BenchmarkId::new(format!("{method}-{kernel:?}-j{threads}"), n);
                    group.bench_with_input(id, &n, |b, &n| {
                        b.iter(|| {
                            let counts = engine.count(black_box(n)).unwrap();
                            assert_eq!(Some(counts.solutions), published::all(n));
                        })
                    });
                }
            }
        }
        group.finish();
    }
}

criterion_group!(benches, kernel_alone, engine);
criterion_main!(benches);
