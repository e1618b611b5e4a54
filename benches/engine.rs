//! Criterion benches of the kernel alone and of the whole engine, each asserting the count
//! it times (against the published table).

use std::hint::black_box;
use std::num::NonZeroUsize;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nqueens::{Options, Symmetry, kernel, published, split};

const MODES: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

/// The kernel alone: every mirror root of the board, one after another on this thread.
fn kernel_alone(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    for n in 8..=13u32 {
        let roots = split::roots(n, Symmetry::Mirror);
        let schedules: Vec<_> = roots.iter().map(|r| (r.weight, r.schedule(n))).collect();
        let expected = published::all(n).unwrap();
        group.bench_with_input(
            BenchmarkId::new("mirror-roots", n),
            &schedules,
            |b, schedules| {
                b.iter(|| {
                    let total: u128 = schedules
                        .iter()
                        .map(|(w, s)| {
                            u128::from(*w) * u128::from(kernel::count(black_box(s), s.start()))
                        })
                        .sum();
                    assert_eq!(total, expected);
                })
            },
        );
    }
    group.finish();
}

/// The whole engine: split, rayon and reduction, per symmetry mode and thread count.
fn engine(c: &mut Criterion) {
    for symmetry in MODES {
        let mut group = c.benchmark_group(format!("count-{symmetry}"));
        for threads in [1, 2] {
            let options = Options {
                threads: NonZeroUsize::new(threads),
                split_depth: 2,
                symmetry,
            };
            let pool = nqueens::engine::pool(options.thread_count()).unwrap();
            for n in 8..=13u32 {
                let id = BenchmarkId::new(format!("j{threads}"), n);
                group.bench_with_input(id, &n, |b, &n| {
                    b.iter(|| {
                        let counts = nqueens::count_in(black_box(n), &options, &pool);
                        assert_eq!(Some(counts.solutions), published::all(n));
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, kernel_alone, engine);
criterion_main!(benches);
