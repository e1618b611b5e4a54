//! The join's matching on a GPU (`--features gpu`), exact against the CPU on whatever
//! Vulkan adapter is found: lavapipe (Mesa's software one) in CI. No adapter is a failure,
//! never a skip. `.ci/run` runs this binary at two of lavapipe's vector widths
//! (`LP_NATIVE_VECTOR_WIDTH=128` and `256`): every test at one, the exact tests (`exact_`)
//! at the other, the rest testing the command line's files, errors and signals, not the
//! shaders. The exact tests run with the workgroup memory capped at 16 KiB and at 32 KiB
//! (below the adapter's limit, where it is less), on one GPU of each cap shared by the
//! process. Without the feature, only the binary's refusal of the GPU flags is tested.

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

    /// A GPU of the adapter found, its workgroup memory capped at `cap`; at the smaller cap
    /// its split levels' workgroups take a GPU's least slice, at the other the software
    /// adapter's own (one word an invocation), so that both are checked.
    fn open(cap: u32) -> Gpu {
        let gpu = Gpu::open(GpuOptions {
            workgroup_bytes: Some(cap),
            slice_least: (cap == CAPS[0]).then_some(nqueens_engine::gpu::SLICE_LEAST),
            ..GpuOptions::default()
        });
        match gpu {
            Ok(gpu) => gpu,
            Err(e) => panic!("the GPU tests need a Vulkan adapter: {e}"),
        }
    }

    /// One GPU of each cap ([`CAPS`]), opened once for every test of this process (each
    /// open compiles the shaders): a matching at a time on each.
    fn shared() -> &'static [Gpu; 2] {
        static GPUS: std::sync::OnceLock<[Gpu; 2]> = std::sync::OnceLock::new();
        GPUS.get_or_init(|| CAPS.map(open))
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
    fn exact_random_words_count_what_every_pair_counts() {
        for (gpu, cap) in shared().iter().zip(CAPS) {
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
                assert_eq!(
                    gpu.count_disjoint(&a, &b).unwrap(),
                    want,
                    "{t} x {p} cap {cap}"
                );
                assert_eq!(
                    gpu.count_disjoint(&b, &a).unwrap(),
                    want,
                    "{p} x {t} cap {cap}"
                );
            }
        }
    }

    /// Matchings handed over together (more than a descent takes, empty ones, ones past a
    /// tile, either side the larger) count what each counts alone by testing every pair.
    #[test]
    fn exact_matchings_counted_together_count_what_each_counts() {
        for (gpu, cap) in shared().iter().zip(CAPS) {
            let mut rng = Rng(0x6a09_e667_f3bc_c908);
            let sides: Vec<(Vec<u64>, Vec<u64>)> = (0..70)
                .map(|i| {
                    let (t, p) = match i % 7 {
                        0 => (0, 5),
                        1 => (700, 30),
                        2 => (3, 900),
                        _ => (1 + rng.next() as usize % 300, 1 + rng.next() as usize % 200),
                    };
                    let bits = 2 + (rng.next() % 8) as u32;
                    let a = (0..t).map(|_| rng.word(bits, 20)).collect();
                    let b = (0..p).map(|_| rng.word(bits, 20)).collect();
                    (a, b)
                })
                .collect();
            let matchings: Vec<(&[u64], &[u64])> =
                sides.iter().map(|(a, b)| (&a[..], &b[..])).collect();
            let want: Vec<u64> = matchings.iter().map(|&(a, b)| every_pair(a, b)).collect();
            assert_eq!(
                gpu.count_disjoint_each(&matchings).unwrap(),
                want,
                "cap {cap}"
            );
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

    /// Every total of `boards`, each key on `gpu` (the symmetric solutions' part on the
    /// CPU), against the published table; up to n = 14 every part against the CPU's count
    /// of it.
    fn totals_and_parts(boards: impl Iterator<Item = u32>, gpu: &Gpu) {
        for n in boards {
            let (engine, plan) = plan(n, Symmetry::Full);
            let mut sum = Tally::default();
            for i in 0..plan.len() {
                let cpu = || plan.count_by(i, plan.method, engine.kernel());
                let t = match plan.count_on(i, (engine.kernel(), gpu), &NEVER) {
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

    /// Every total n = 1..16 and part to 14 ([`totals_and_parts`]), the caps taking turns
    /// (every board once, each cap on half of them, the two tests side by side): the odd
    /// boards at the 32 KB cap.
    #[test]
    fn exact_every_odd_total_to_15_and_part_to_13_is_the_cpus() {
        totals_and_parts((1..=15).step_by(2), &shared()[1]);
    }

    /// The even boards to 16 at the 16 KB cap ([`totals_and_parts`]).
    #[test]
    fn exact_every_even_total_to_16_and_part_to_14_is_the_cpus() {
        totals_and_parts((2..=16).step_by(2), &shared()[0]);
    }

    /// Every part of n <= 14 in the modes without the full symmetry (keys of another shape,
    /// and full mode's odd boards' shared tables), against the CPU's.
    #[test]
    fn exact_every_part_to_14_in_the_other_modes_is_the_cpus() {
        for symmetry in [Symmetry::None, Symmetry::Mirror] {
            for n in (1..=14u32).filter(|n| symmetry == Symmetry::Mirror || n % 3 == 0 || *n <= 9) {
                let gpu = &shared()[n as usize % 2];
                let (engine, plan) = plan(n, symmetry);
                for i in 0..plan.len() {
                    if let Some(t) = plan.count_on(i, (engine.kernel(), gpu), &NEVER) {
                        let cpu = plan.count_by(i, plan.method, engine.kernel());
                        assert_eq!(t, cpu, "n={n} {symmetry} part {i}");
                    }
                }
            }
        }
    }

    /// Random keys of n = 17..20, each cap, against the CPU's count of them (odd and even
    /// boards, keys weighed by the quarter turn among them).
    #[test]
    fn exact_random_keys_of_17_to_20_are_the_cpus() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for (n, keys) in [(17u32, 4), (18, 3), (19, 3), (20, 2)] {
            let (engine, plan) = plan(n, Symmetry::Full);
            let keyed = (0..plan.len()).filter(|&i| plan.is_key_part(i)).count();
            for (gpu, cap) in shared().iter().zip(CAPS) {
                for _ in 0..keys {
                    let i = (rng.next() % keyed as u64) as usize;
                    let t = plan.count_on(i, (engine.kernel(), gpu), &NEVER).unwrap();
                    let cpu = plan.count_by(i, plan.method, engine.kernel());
                    assert_eq!(t, cpu, "n={n} part {i} cap {cap}");
                }
            }
        }
    }

    /// A matching whose count passes 2^32 (every pair disjoint, so every pair reaches a leaf):
    /// the workgroups' partials stay below 2^32 and the host's sum is exact. (No `exact_` in
    /// its name: `.ci/run` runs it at one vector width, the host's sum being no shader's.)
    #[test]
    fn counts_past_2_to_the_32_are_exact() {
        let gpu = &shared()[1];
        let (t, p) = (70_001usize, 65_537usize);
        // Table words on the low diagonals, probe words on the high ones: no pair meets.
        let mut rng = Rng(7);
        let a: Vec<u64> = (0..t).map(|_| rng.word(5, 12)).collect();
        let b: Vec<u64> = (0..p).map(|_| rng.word(5, 12) << 14).collect();
        let want = (t * p) as u64;
        assert!(want > 1 << 32);
        assert_eq!(gpu.count_disjoint(&a, &b).unwrap(), want);
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
        let software = shared()[1].adapter().software;
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.contains("software adapter"), software, "{err}");
    }

    /// `bench --gpu-only` rates the GPU like a CPU: a row per joined board naming it, with its
    /// rate and parts, and a score row; `estimate --gpu-only` names it and predicts its hours.
    #[test]
    fn bench_and_estimate_report_the_gpu() {
        let name = shared()[1].adapter().name.clone();
        let out = nqueens()
            .args(["bench", "--gpu-only", "-j", "1", "--format", "json"])
            .env("NQUEENS_TEST_WORKLOAD", "tiny")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // One JSON object a line: the joined board's row and the score row.
        let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2, "{rows:?}");
        let (_, plan) = plan(11, Symmetry::Full);
        for row in rows {
            assert_eq!(row["gpu"], name.as_str(), "{row}");
            assert_eq!(row["solutions"], 2680, "{row}");
            assert_eq!(
                row["gpu_parts"].as_u64(),
                Some(plan.len() as u64 - 1),
                "{row}"
            );
            assert!(row["solutions_per_s"].as_f64().unwrap() > 0.0, "{row}");
        }
        let out = nqueens()
            .args([
                "estimate",
                "12",
                "--gpu-only",
                "-j",
                "2",
                "--seconds",
                "2",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(v["gpu"], name.as_str());
        // Both threads feed the GPU: its hours are the count's wall-clock hours.
        assert_eq!(v["threads"], 2);
        let hours = v["gpu_hours"].as_f64().unwrap();
        let wall = v["wall_s"].as_f64().unwrap();
        assert!(hours > 0.0 && hours == wall / 3600.0, "{v}");
        assert!(hours < v["thread_hours"].as_f64().unwrap(), "{v}");
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

    /// The GPU's shards name it as the loop that counted their keys (`gpu`, `gpu_subproblems`:
    /// every part but full mode's symmetric solutions), merge to the total, and `merge --audit
    /// 100` recounts every part on the CPU (by the search) and agrees; two of a shard's parts'
    /// counts swapped, the file sealed again (its sums and residues unchanged), the audit
    /// finds them.
    #[test]
    fn gpu_shards_name_it_and_merge_and_audit_exactly() {
        use nqueens_engine::run::shard::ShardResult;
        let dir = tempfile::tempdir().unwrap();
        let (_, plan) = plan(11, Symmetry::Full);
        let symmetric = plan.len() - 1;
        let adapter = shared()[1].adapter().name.clone();
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
            let r = ShardResult::read(&path).unwrap();
            assert_eq!(r.gpu.as_deref(), Some(adapter.as_str()), "shard {i}");
            let keys: Vec<usize> = r
                .subproblems
                .iter()
                .map(|e| e.0)
                .filter(|&p| p != symmetric)
                .collect();
            assert_eq!(r.gpu_subproblems, keys, "shard {i}");
        }
        let merge = || {
            nqueens()
                .args(["merge", "--audit", "100", "--format", "json"])
                .arg(dir.path())
                .output()
                .unwrap()
        };
        let out = merge();
        let v = json(&out);
        assert_eq!(v["solutions"], 2680);
        let err = String::from_utf8_lossy(&out.stderr);
        let all = format!("audit: {} subproblems recounted by search", plan.len());
        assert!(err.contains(&all), "{err}");
        // Two parts of shard 0 with different counts, swapped: the sums stay.
        let path = dir.path().join("s0.json");
        let mut r = ShardResult::read(&path).unwrap();
        let (a, b) = (0..r.subproblems.len())
            .flat_map(|a| (a + 1..r.subproblems.len()).map(move |b| (a, b)))
            .find(|&(a, b)| r.subproblems[a].1 != r.subproblems[b].1)
            .unwrap();
        let (ca, cb) = (
            (r.subproblems[a].1, r.subproblems[a].2),
            (r.subproblems[b].1, r.subproblems[b].2),
        );
        (r.subproblems[a].1, r.subproblems[a].2) = cb;
        (r.subproblems[b].1, r.subproblems[b].2) = ca;
        r.seal();
        std::fs::write(&path, r.text().unwrap()).unwrap();
        let out = merge();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("audit"), "{err}");
    }

    /// Records a GPU counted name it (`"loop":"gpu"`); the CPU's name none. Resumed by a run
    /// without a GPU, its shard names the loop alone (`gpu`), and the same parts.
    #[test]
    fn checkpoint_records_name_the_gpu() {
        use nqueens_engine::run::shard::ShardResult;
        let dir = tempfile::tempdir().unwrap();
        let (ckpt, out) = (dir.path().join("c.ckpt"), dir.path().join("s.json"));
        let args = |gpu: bool| {
            let mut a = vec!["count", "12", "--shard", "0/1", "--checkpoint"];
            a.push(ckpt.to_str().unwrap());
            a.extend(["--output", out.to_str().unwrap()]);
            if gpu {
                a.push("--gpu-only");
            }
            a.into_iter().map(String::from).collect::<Vec<_>>()
        };
        // Aborted (as a crash would) once 20 parts are synced.
        let crashed = nqueens()
            .args(args(true))
            .env("NQUEENS_TEST_ABORT_AFTER", "20")
            .output()
            .unwrap();
        assert!(!crashed.status.success());
        let text = std::fs::read_to_string(&ckpt).unwrap();
        let (_, plan) = plan(12, Symmetry::Full);
        let symmetric = plan.len() - 1;
        let mut on_gpu = Vec::new();
        for line in text.lines().skip(1) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let part = v["subproblem"].as_u64().unwrap() as usize;
            let gpu = v.get("loop").map(|l| l.as_str().unwrap());
            assert_eq!(gpu, (part != symmetric).then_some("gpu"), "{line}");
            if gpu.is_some() {
                on_gpu.push(part);
            }
        }
        assert!(on_gpu.len() >= 10, "{text}");
        on_gpu.sort_unstable();
        nqueens().args(args(false)).assert().success();
        let r = ShardResult::read(&out).unwrap();
        assert_eq!(r.solutions, 14200);
        assert_eq!(r.gpu.as_deref(), Some("gpu"));
        assert_eq!(r.gpu_subproblems, on_gpu);
    }

    /// SIGTERM while the GPU counts: exit 143, every part finished kept; resumed, the total
    /// is exact, and the parts resumed from the GPU's records count as the GPU's.
    #[test]
    fn sigterm_keeps_every_finished_gpu_part() {
        let dir = tempfile::tempdir().unwrap();
        let ckpt = dir.path().join("c.ckpt");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
            .args(["count", "14", "--gpu-only", "--checkpoint"])
            .arg(&ckpt)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Three records synced: the GPU counts on, a key in flight.
        let records =
            || std::fs::read_to_string(&ckpt).map_or(0, |t| t.lines().count().saturating_sub(1));
        let start = std::time::Instant::now();
        while records() < 3 {
            assert!(start.elapsed().as_secs() < 120, "no record in two minutes");
            assert!(
                child.try_wait().unwrap().is_none(),
                "ended before the signal"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(143), "{err}");
        let line = err
            .lines()
            .find_map(|l| l.strip_prefix("interrupted by SIGTERM: "))
            .unwrap_or_else(|| panic!("{err}"));
        let held: usize = line.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(held, records(), "{err}");
        let (_, plan) = plan(14, Symmetry::Full);
        assert!(
            held < plan.len(),
            "every part counted before the signal: {err}"
        );
        let out = nqueens()
            .args([
                "count",
                "14",
                "--gpu-only",
                "--format",
                "json",
                "--checkpoint",
            ])
            .arg(&ckpt)
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(
            Some(v["solutions"].as_u64().unwrap().into()),
            published::all(14)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("resuming: {held} of")), "{err}");
        assert_eq!(v["cpu_parts"], 1);
        assert_eq!(v["gpu_parts"].as_u64().unwrap() as usize, plan.len() - 1);
    }

    /// A GPU lost as it counts (the device destroyed, as a driver's reset would): exit 1 with
    /// the device's error, no panic, the parts counted before kept; resumed, exact. Lost
    /// before its first matching: exit 1, nothing counted.
    #[test]
    fn a_lost_gpu_ends_the_count_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let ckpt = dir.path().join("c.ckpt");
        let count = |lost: Option<&str>| {
            let mut c = nqueens();
            c.args([
                "count",
                "13",
                "--gpu-only",
                "--format",
                "json",
                "--checkpoint",
            ])
            .arg(&ckpt);
            if let Some(k) = lost {
                c.env("NQUEENS_TEST_GPU_LOST_AFTER", k);
            }
            c.output().unwrap()
        };
        for after in ["0", "40"] {
            let out = count(Some(after));
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "lost after {after}: {err}");
            assert!(err.contains("failed") && err.contains("lost"), "{err}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(out.stdout.is_empty());
            assert!(
                err.contains("run the same command again to resume"),
                "{err}"
            );
        }
        let records = std::fs::read_to_string(&ckpt).unwrap().lines().count() - 1;
        assert!(records > 0, "nothing kept of what the GPU counted before");
        let v = json(&count(None));
        assert_eq!(v["solutions"], 73712);
    }

    /// A lost device's matchings are errors, never counts.
    #[test]
    fn a_lost_device_counts_nothing() {
        let gpu = open(32 << 10);
        let (a, b) = ([1u64, 2, 4], [2u64, 8]);
        assert_eq!(gpu.count_disjoint(&a, &b).unwrap(), 5);
        gpu.lose();
        let e = gpu.count_disjoint(&a, &b).unwrap_err();
        assert!(e.to_string().contains("lost"), "{e}");
    }

    /// The GPU's buffers take at most the bytes given them (its share of `--memory`), and
    /// wgpu's blocks reserved for them at most two more blocks (of an eighth of them, 4 MiB
    /// at least): a matching larger than they hold is cut to fit, exactly. (wgpu's own blocks
    /// are of 128 MiB at least: they passed this.)
    #[test]
    fn the_gpus_buffers_stay_within_their_bytes() {
        let bytes = 8u64 << 20;
        let gpu = Gpu::open(GpuOptions {
            buffer_bytes: bytes,
            ..GpuOptions::default()
        })
        .unwrap();
        let mut rng = Rng(11);
        // More table words than the buffers take at once (a sixty-fourth of their bytes).
        let a: Vec<u64> = (0..140_000).map(|_| rng.word(10, 24)).collect();
        let b: Vec<u64> = (0..300).map(|_| rng.word(10, 24)).collect();
        assert_eq!(gpu.count_disjoint(&a, &b).unwrap(), every_pair(&a, &b));
        let held = gpu
            .reserved_bytes()
            .expect("wgpu reports its memory on Vulkan");
        let block = (bytes / 8).max(4 << 20);
        assert!(
            held > 0 && held <= bytes + 2 * block,
            "{held} bytes held, {bytes} given"
        );
    }
}
