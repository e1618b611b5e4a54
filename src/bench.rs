//! A fixed, versioned benchmark: the same boards counted by both methods at 1 thread and at
//! every thread count up to the machine's, so that a CPU (or a scheduler) can be rated and
//! the ratings of two machines compared (`nqueens bench`).
//!
//! A [`Workload`] is a list of [`Case`]s (a board and a method), fixed by its name: a change
//! of boards, methods, symmetry or memory is a new name (`v2`), never an edit of `v1`, so a
//! score always means the same work. Every case counts in full symmetry with the default
//! split depth and memory, each thread count on an [`Engine`] of its own (its own rayon
//! pool; the global pool is never touched), planning included in the time, as `count`
//! reports it.
//!
//! The score of a thread count is the geometric mean of its cases' solutions per second:
//! each board weighs the same whatever its size, and a machine twice as fast on every case
//! scores twice as much (the way 7-Zip's `b` averages its compression and decompression
//! ratings).
//!
//! ```
//! use nqueens_engine::bench::{Workload, thread_counts};
//! use nqueens_engine::Kernel;
//!
//! assert_eq!(thread_counts(6), [1, 2, 4, 6]);
//! let case = Workload::TINY.cases[0];
//! let counts = case.count(1, Kernel::Auto).unwrap();
//! assert_eq!(counts.solutions, 724);
//! ```

use std::num::NonZeroUsize;

use crate::run::Engine;
use crate::types::{Counts, DEFAULT_MEMORY, Error, Kernel, Method, Options};

/// One board counted by one method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    /// Board size.
    pub n: u32,
    /// How it is counted (never `Auto`: a workload names what it times).
    pub method: Method,
}

/// A named, fixed list of cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// The name that fixes the cases: scores are comparable only under the same name.
    pub name: &'static str,
    /// The cases, counted in this order at each thread count.
    pub cases: &'static [Case],
}

const fn search(n: u32) -> Case {
    Case {
        n,
        method: Method::Search,
    }
}

const fn join(n: u32) -> Case {
    Case {
        n,
        method: Method::Join,
    }
}

impl Workload {
    /// The benchmark: about a minute of wall time on an idle machine of two cores, two and
    /// a half where it is shared (results/zen3/2026-11-25-bench-and-first-solutions/).
    pub const V1: Workload = Workload {
        name: "v1",
        cases: &[search(16), search(17), join(17), join(18), join(19)],
    };

    /// A few seconds of CPU time: one board of each method.
    pub const QUICK: Workload = Workload {
        name: "quick-v1",
        cases: &[search(15), join(17)],
    };

    /// Milliseconds, for the tests: the same path, boards too small to time.
    pub const TINY: Workload = Workload {
        name: "tiny-v1",
        cases: &[search(10), join(11)],
    };
}

impl Workload {
    /// Its boards in order, as `nqueens bench` names them (`search 15, join 17`).
    pub fn boards(&self) -> String {
        let boards: Vec<String> = self
            .cases
            .iter()
            .map(|c| format!("{} {}", c.method, c.n))
            .collect();
        boards.join(", ")
    }
}

impl Case {
    /// Counts the board on `threads` threads of a pool of its own with `kernel`: the whole
    /// count, planning included, as `count` times it.
    pub fn count(self, threads: usize, kernel: Kernel) -> Result<Counts, Error> {
        // Planning too runs on the engine's threads, never on rayon's global pool.
        self.engine(threads, kernel)?.count(self.n)
    }

    /// [`Case::count`] with the join's keys counted on `gpu` too (a [`crate::Pairs`]), or
    /// on it alone where `only` ([`crate::Run::on_gpu`]): the counts, and how many parts it
    /// counted.
    pub fn count_on(
        self,
        threads: usize,
        kernel: Kernel,
        (gpu, only): (&dyn crate::join::Pairs, bool),
    ) -> Result<(Counts, u64), Error> {
        let start = std::time::Instant::now();
        let engine = self.engine(threads, kernel)?;
        let plan = engine.plan(self.n)?;
        let outcome = crate::Run::new(&plan)
            .started(start)
            .on_gpu(gpu, only)
            .execute(&engine);
        Ok((outcome.counts(&plan), outcome.gpu_parts))
    }

    /// The engine a count of this case runs on.
    fn engine(self, threads: usize, kernel: Kernel) -> Result<Engine, Error> {
        Engine::new(&Options {
            threads: Some(NonZeroUsize::new(threads).unwrap_or(NonZeroUsize::MIN)),
            split_depth: None,
            symmetry: crate::Symmetry::Full,
            kernel,
            method: self.method,
            memory: DEFAULT_MEMORY,
        })
    }
}

/// The thread counts of a sweep up to `most`: 1, 2, 4, ... below it, and `most` itself.
pub fn thread_counts(most: usize) -> Vec<usize> {
    let most = most.max(1);
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| t.checked_mul(2))
        .take_while(|&t| t < most)
        .collect();
    counts.push(most);
    counts
}

/// The geometric mean of positive rates (0 for none).
pub fn geometric_mean(rates: &[f64]) -> f64 {
    if rates.is_empty() {
        return 0.0;
    }
    (rates.iter().map(|r| r.ln()).sum::<f64>() / rates.len() as f64).exp()
}

/// The median of some runs by their first field, seconds (the lower middle one of an even
/// number), with what else was measured of it; `None` for no runs.
pub fn median_run<T>(mut runs: Vec<(f64, T)>) -> Option<(f64, T)> {
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let middle = runs.len().checked_sub(1)? / 2;
    runs.into_iter().nth(middle)
}

/// Seconds of CPU time this process has used, all its threads together (those ended
/// included), where the system says (`getrusage`, to the microsecond: a board of the tests'
/// workload takes milliseconds). Set beside the wall time, it shows how much of the machine a
/// count got: on a shared machine a thread that waits for a core counts in the wall time only.
pub fn cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage writes the whole struct where it returns 0.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return None;
        }
        usage.assume_init()
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Whether a count on `threads` threads that took `wall` seconds and `cpu` CPU seconds
/// had the machine to itself: false where the CPU time is below three quarters of what
/// those threads could use on the cores this process may run on (`cores`), the rest having
/// gone to other work. A count's threads wait for one another at its end, so a quarter is
/// left to that; counts under a tenth of a second (the tests' workload) are not judged, their
/// threads' start and the scheduler's slices weighing as much as the count.
pub fn had_the_machine(threads: usize, cores: usize, wall: f64, cpu: f64) -> bool {
    wall < 0.1 || cpu >= 0.75 * threads.min(cores).max(1) as f64 * wall
}

/// The CPU's model name as the system reports it (Linux's `/proc/cpuinfo`), where it does.
pub fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name") || l.starts_with("Model"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, name)| name.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|name| !name.is_empty())
}

/// The instruction set: the architecture and, on x86-64, which of the extensions the
/// counting loops use this CPU has (`x86_64 avx2 bmi1 bmi2 lzcnt popcnt`).
pub fn isa() -> String {
    let mut isa = std::env::consts::ARCH.to_string();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let features = [
            ("avx512f", has!("avx512f")),
            ("avx512vpopcntdq", has!("avx512vpopcntdq")),
            ("avx2", has!("avx2")),
            ("bmi1", has!("bmi1")),
            ("bmi2", has!("bmi2")),
            ("lzcnt", has!("lzcnt")),
            ("popcnt", has!("popcnt")),
        ];
        for (name, _) in features.iter().filter(|(_, here)| *here) {
            isa.push(' ');
            isa.push_str(name);
        }
    }
    isa
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_short_of_cpu_time_had_a_busy_machine() {
        assert!(had_the_machine(2, 2, 1.0, 1.9));
        assert!(!had_the_machine(2, 2, 1.0, 1.1));
        assert!(had_the_machine(8, 2, 1.0, 1.6), "at most the cores");
        assert!(!had_the_machine(1, 2, 1.0, 0.5));
        assert!(had_the_machine(1, 2, 0.004, 0.002), "too short to judge");
    }

    #[test]
    fn thread_counts_double_up_to_the_most() {
        assert_eq!(thread_counts(1), [1]);
        assert_eq!(thread_counts(2), [1, 2]);
        assert_eq!(thread_counts(3), [1, 2, 3]);
        assert_eq!(thread_counts(8), [1, 2, 4, 8]);
        assert_eq!(thread_counts(12), [1, 2, 4, 8, 12]);
        assert_eq!(thread_counts(0), [1]);
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let Some(before) = cpu_seconds() else {
            return; // not Linux: nothing to read
        };
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed().as_secs_f64() < 0.3 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let used = cpu_seconds().unwrap() - before;
        assert!(used > 0.0 && used < 60.0, "{used}");
    }

    #[test]
    fn means_and_medians() {
        assert!((geometric_mean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
        assert_eq!(geometric_mean(&[]), 0.0);
        assert_eq!(
            median_run(vec![(3.0, 'c'), (1.0, 'a'), (2.0, 'b')]),
            Some((2.0, 'b'))
        );
        assert_eq!(
            median_run(vec![(4.0, 4), (1.0, 1), (3.0, 3), (2.0, 2)]),
            Some((2.0, 2))
        );
        assert_eq!(median_run::<()>(vec![]), None);
    }

    #[test]
    fn workloads_name_what_they_count_and_never_auto() {
        for w in [Workload::V1, Workload::QUICK, Workload::TINY] {
            assert!(!w.cases.is_empty());
            assert!(w.cases.iter().all(|c| c.method != Method::Auto));
            for m in [Method::Search, Method::Join] {
                assert!(w.cases.iter().any(|c| c.method == m), "{} {m}", w.name);
            }
        }
    }

    /// The README and the man page list the benchmark's boards as `nqueens bench` does: a
    /// change of the workload that leaves them stale fails here.
    #[test]
    fn the_docs_list_the_workloads_boards() {
        assert_eq!(Workload::QUICK.boards(), "search 15, join 17");
        let readme = include_str!("../README.md");
        for w in [Workload::V1, Workload::QUICK] {
            let listed = format!("`{}`: {}", w.name, w.boards());
            assert!(readme.contains(&listed), "README lacks {listed}");
        }
    }

    #[test]
    fn each_case_counts_on_its_own_threads() {
        for t in [1, 3] {
            for case in Workload::TINY.cases {
                let c = case.count(t, Kernel::Auto).unwrap();
                assert_eq!(c.method, case.method);
                assert_eq!(c.threads, Some(t));
                assert_eq!(
                    Some(c.solutions),
                    crate::published::all(case.n),
                    "n={}",
                    case.n
                );
            }
        }
    }
}
