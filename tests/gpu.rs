//! The join's matching on a GPU (`--features gpu`), exact against the CPU on whatever
//! Vulkan adapter is found: lavapipe (Mesa's software one) in CI. No adapter is a failure,
//! never a skip. `.ci/run` runs this binary at two of lavapipe's vector widths
//! (`LP_NATIVE_VECTOR_WIDTH=128` and `256`); each test runs with the workgroup memory capped
//! at 16 KiB and at 32 KiB (below the adapter's limit, where it is less).
#![cfg(feature = "gpu")]

use std::sync::atomic::AtomicBool;

use nqueens_engine::gpu::{Gpu, GpuOptions};
use nqueens_engine::{Engine, Method, Options, Symmetry, Tally, published};

static NEVER: AtomicBool = AtomicBool::new(false);

/// The workgroup memory caps every exact test runs at.
const CAPS: [u32; 2] = [16 << 10, 32 << 10];

fn open(cap: u32) -> Gpu {
    let gpu = Gpu::open(GpuOptions {
        workgroup_bytes: Some(cap),
        ..GpuOptions::default()
    });
    match gpu {
        Ok(gpu) => gpu,
        Err(e) => panic!("the GPU tests need a Vulkan adapter: {e}"),
    }
}

/// A small xorshift for the tests' words and keys.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word of about `bits` set bits among the low `width` of each half.
    fn word(&mut self, bits: u32, width: u32) -> u64 {
        let mut w = 0;
        for _ in 0..bits {
            let b = (self.next() % u64::from(width)) as u32;
            let half = (self.next() & 1) as u32 * 32;
            w |= 1u64 << (b + half);
        }
        w
    }
}

fn every_pair(a: &[u64], b: &[u64]) -> u64 {
    a.iter()
        .map(|&x| b.iter().filter(|&&y| x & y == 0).count() as u64)
        .sum()
}

/// Random sides, small and past a tile, sparse and dense, count what testing every pair
/// counts.
#[test]
fn random_words_count_what_every_pair_counts() {
    for cap in CAPS {
        let gpu = open(cap);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (t, p, bits, width) in [
            (1, 1, 3, 8),
            (7, 3, 2, 5),
            (600, 40, 6, 20),
            (3000, 2500, 10, 25),
            (20_000, 700, 12, 27),
            (513, 9000, 4, 30),
        ] {
            let a: Vec<u64> = (0..t).map(|_| rng.word(bits, width)).collect();
            let b: Vec<u64> = (0..p).map(|_| rng.word(bits, width)).collect();
            let want = every_pair(&a, &b);
            assert_eq!(gpu.count_disjoint(&a, &b), want, "{t} x {p} cap {cap}");
            assert_eq!(gpu.count_disjoint(&b, &a), want, "{p} x {t} cap {cap}");
        }
    }
}

/// Every total n = 1..16, each key on the GPU (the symmetric solutions' part on the CPU),
/// against the published table.
#[test]
fn every_total_to_16_is_the_table() {
    for (i, n) in (1..=16u32).enumerate() {
        // The caps take turns: every board once, each cap on half of them.
        let gpu = open(CAPS[i % 2]);
        let engine = Engine::new(&Options {
            symmetry: Symmetry::Full,
            method: Method::Join,
            ..Options::default()
        })
        .unwrap();
        let plan = engine.plan(n, 0).unwrap();
        let mut sum = Tally::default();
        for i in 0..plan.len() {
            sum = sum
                + plan
                    .count_on(i, (engine.kernel(), &gpu), &NEVER)
                    .unwrap_or_else(|| plan.count_by(i, plan.method, engine.kernel()));
        }
        let counts = plan.counts(sum, Some(engine.kernel()), 1, 0.0);
        assert_eq!(Some(counts.solutions), published::all(n), "n={n}");
    }
}
