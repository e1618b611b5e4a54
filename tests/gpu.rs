//! The join's matching on a GPU (`--features gpu`), exact against the CPU on whatever
//! Vulkan adapter is found: lavapipe (Mesa's software one) in CI. No adapter is a failure,
//! never a skip. `.ci/run` runs this binary at two of lavapipe's vector widths
//! (`LP_NATIVE_VECTOR_WIDTH=128` and `256`); the exact tests run with the workgroup memory
//! capped at 16 KiB and at 32 KiB (below the adapter's limit, where it is less). Without the
//! feature, only the binary's refusal of the GPU flags is tested.

use assert_cmd::Command;

fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// A build without the GPU refuses each GPU flag with exit 2, naming the feature.
#[cfg(not(feature = "gpu"))]
#[test]
fn the_gpu_flags_are_refused_without_the_feature() {
    for flags in [
        &["count", "8", "--gpu"][..],
        &["count", "8", "--gpu-only"],
        &["count", "8", "--gpu-device", "1"],
        &["estimate", "12", "--gpu-only"],
    ] {
        let out = nqueens().args(flags).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--features gpu"), "{flags:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[cfg(feature = "gpu")]
mod gpu {
    use super::nqueens;
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

    /// A joined plan of `n` in `symmetry` on an engine of this machine's threads.
    fn plan(n: u32, symmetry: Symmetry) -> (Engine, nqueens_engine::Plan) {
        let engine = Engine::new(&Options {
            symmetry,
            method: Method::Join,
            ..Options::default()
        })
        .unwrap();
        let plan = engine.plan(n).unwrap();
        (engine, plan)
    }

    /// Every total n = 1..16, each key on the GPU (the symmetric solutions' part on the CPU),
    /// against the published table; up to n = 14 every part against the CPU's count of it.
    #[test]
    fn every_total_to_16_and_part_to_14_is_the_cpus() {
        for (i, n) in (1..=16u32).enumerate() {
            // The caps take turns: every board once, each cap on half of them.
            let gpu = open(CAPS[i % 2]);
            let (engine, plan) = plan(n, Symmetry::Full);
            let mut sum = Tally::default();
            for i in 0..plan.len() {
                let cpu = || plan.count_by(i, plan.method, engine.kernel());
                let t = match plan.count_on(i, (engine.kernel(), &gpu), &NEVER) {
                    Some(t) if n <= 14 => {
                        assert_eq!(t, cpu(), "n={n} part {i}");
                        t
                    }
                    Some(t) => t,
                    None => cpu(),
                };
                sum = sum + t;
            }
            let counts = plan.counts(sum, Some(engine.kernel()), 1, 0.0);
            assert_eq!(Some(counts.solutions), published::all(n), "n={n}");
            assert_eq!(counts.unique, published::fundamental(n), "n={n}");
        }
    }

    /// Every part of n <= 14 in the modes without the full symmetry (keys of another shape,
    /// and full mode's odd boards' shared tables), against the CPU's.
    #[test]
    fn every_part_to_14_in_the_other_modes_is_the_cpus() {
        for symmetry in [Symmetry::None, Symmetry::Mirror] {
            for n in (1..=14u32).filter(|n| symmetry == Symmetry::Mirror || n % 3 == 0 || *n <= 9) {
                let gpu = open(CAPS[n as usize % 2]);
                let (engine, plan) = plan(n, symmetry);
                for i in 0..plan.len() {
                    if let Some(t) = plan.count_on(i, (engine.kernel(), &gpu), &NEVER) {
                        let cpu = plan.count_by(i, plan.method, engine.kernel());
                        assert_eq!(t, cpu, "n={n} {symmetry} part {i}");
                    }
                }
            }
        }
    }

    /// Random keys of n = 17..20 (and two of n = 21, weighed by the quarter turn), each cap,
    /// against the CPU's count of them.
    #[test]
    fn random_keys_of_17_to_21_are_the_cpus() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for (n, keys) in [(17u32, 6), (18, 5), (19, 4), (20, 3), (21, 2)] {
            let (engine, plan) = plan(n, Symmetry::Full);
            let keyed = (0..plan.len()).filter(|&i| plan.is_key_part(i)).count();
            for cap in CAPS {
                let gpu = open(cap);
                for _ in 0..keys {
                    let i = (rng.next() % keyed as u64) as usize;
                    let t = plan.count_on(i, (engine.kernel(), &gpu), &NEVER).unwrap();
                    let cpu = plan.count_by(i, plan.method, engine.kernel());
                    assert_eq!(t, cpu, "n={n} part {i} cap {cap}");
                }
            }
        }
    }

    /// A matching whose count passes 2^32 (every pair disjoint, so every pair reaches a leaf):
    /// the workgroups' partials stay below 2^32 and the host's sum is exact.
    #[test]
    fn counts_past_2_to_the_32_are_exact() {
        let gpu = open(32 << 10);
        let (t, p) = (70_001usize, 65_537usize);
        // Table words on the low diagonals, probe words on the high ones: no pair meets.
        let mut rng = Rng(7);
        let a: Vec<u64> = (0..t).map(|_| rng.word(5, 12)).collect();
        let b: Vec<u64> = (0..p).map(|_| rng.word(5, 12) << 14).collect();
        let want = (t * p) as u64;
        assert!(want > 1 << 32);
        assert_eq!(gpu.count_disjoint(&a, &b), want);
    }

    /// The JSON a run wrote to stdout, once it succeeded (its stderr in the failure).
    fn json(out: &std::process::Output) -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `count --gpu-only` names the adapter and its parts in JSON, which sum to the plan's; a
    /// software adapter is said on stderr.
    #[test]
    fn count_names_the_gpu_and_its_parts() {
        let out = nqueens()
            .args(["count", "12", "--gpu-only", "--format", "json"])
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(v["solutions"], 14200);
        let gpu = v["gpu"].as_str().expect("the adapter named");
        assert!(!gpu.is_empty());
        let (g, c) = (
            v["gpu_parts"].as_u64().unwrap(),
            v["cpu_parts"].as_u64().unwrap(),
        );
        assert_eq!(g + c, v["subproblems"].as_u64().unwrap());
        // Every key on the GPU: full mode's symmetric solutions are the one part left.
        assert_eq!(c, 1);
        let software = open(32 << 10).adapter().software;
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.contains("software adapter"), software, "{err}");
    }

    /// No adapter (the Vulkan loader pointed at no driver): exit 2, saying how to get one.
    #[test]
    fn no_adapter_exits_2_saying_how_to_get_one() {
        let out = nqueens()
            .args(["count", "10", "--gpu"])
            .env("VK_ICD_FILENAMES", "/nonexistent")
            .env("VK_DRIVER_FILES", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("mesa-vulkan-drivers"), "{err}");
        assert!(out.stdout.is_empty());
    }

    /// Shards counted on the GPU merge to the total, and `merge --audit 100` recounts every part
    /// on the CPU and agrees.
    #[test]
    fn gpu_shards_merge_and_audit_exactly() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..2 {
            let path = dir.path().join(format!("s{i}.json"));
            nqueens()
                .args([
                    "count",
                    "11",
                    "--gpu-only",
                    "--shard",
                    &format!("{i}/2"),
                    "--output",
                ])
                .arg(&path)
                .assert()
                .success();
        }
        let out = nqueens()
            .args(["merge", "--audit", "100", "--format", "json"])
            .arg(dir.path())
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(v["solutions"], 2680);
    }
}
