//! `nqueens bench`: the library's fixed workload ([`nqueens_engine::bench`]) swept over thread
//! counts, one row per board and thread count and a score row per thread count, each count
//! checked against the published values.

use std::io::{self, Write};

use serde::Serialize;

use nqueens_engine::bench::{self, Case, Workload};
use nqueens_engine::{Counts, Kernel, Method, published};

use crate::cli::BenchArgs;
use crate::commands::Failure;
use crate::hooks;
use crate::output::{Printer, Record, significant};

/// One row of `nqueens bench`: a board counted at one thread count, or the score of a
/// thread count (`row` says which).
#[derive(Debug, Serialize)]
pub struct BenchRow {
    /// The workload's name (`v1`, `quick-v1`): scores compare only under the same name.
    pub workload: &'static str,
    /// `board` (one board counted by one method) or `score` (every board of the workload at
    /// this thread count).
    pub row: &'static str,
    /// Board size (`null` on a score row).
    pub n: Option<u32>,
    /// How the board was counted, `search` or `join` (`null` on a score row).
    pub method: Option<Method>,
    /// Worker threads.
    pub threads: usize,
    /// Solutions counted (on a score row, of every board), checked against OEIS A000170.
    pub solutions: u128,
    /// Wall-clock seconds, planning included (the median of `--runs`; on a score row, the
    /// sum over the boards).
    pub elapsed_s: f64,
    /// CPU seconds the process used for the count, all threads together (`null` where the
    /// system does not say): below `elapsed_s` x `threads` where the threads waited for a
    /// core, on a busy or shared machine.
    pub cpu_s: Option<f64>,
    /// Solutions per second (on a score row, the geometric mean of the boards' rates: the
    /// score).
    pub solutions_per_s: f64,
    /// Solutions per second against the same row at 1 thread (a GPU's row: against the
    /// CPU's at 1 thread; `null` where that was not counted, with `--gpu-only`).
    pub speedup: Option<f64>,
    /// Speed-up per thread (1 is perfect scaling; a GPU's row: per CPU thread beside it).
    pub efficiency: Option<f64>,
    /// The CPU's counting loop that ran (`scalar`, `avx2` or `avx512`).
    pub kernel: &'static str,
    /// The architecture and the extensions of it the loops use that this CPU has, separated
    /// by spaces (by `+` in the table).
    pub isa: String,
    /// The CPU's model name as the system reports it (`unknown` where it does not; its
    /// spaces `_` in the table).
    pub cpu: String,
    /// The GPU adapter that counted the join's keys on this row (`--gpu`, `--gpu-only`; its
    /// spaces `_` in the table), `null` on a CPU's row.
    pub gpu: Option<&'static str>,
    /// The parts that GPU counted (on a score row, of every board), `null` on a CPU's row.
    pub gpu_parts: Option<u64>,
}

impl Record for BenchRow {
    fn columns() -> &'static [&'static str] {
        &[
            "workload",
            "row",
            "n",
            "method",
            "threads",
            "solutions",
            "elapsed_s",
            "cpu_s",
            "solutions_per_s",
            "speedup",
            "efficiency",
            "kernel",
            "isa",
            "cpu",
            "gpu",
            "gpu_parts",
        ]
    }
    fn widths() -> &'static [usize] {
        &[8, 5, 2, 6, 7, 10, 10, 8, 15, 7, 10, 6, 3, 3, 3, 9]
    }
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            Some(self.workload.to_string()),
            Some(self.row.to_string()),
            self.n.map(|n| n.to_string()),
            self.method.map(|m| m.to_string()),
            Some(self.threads.to_string()),
            Some(self.solutions.to_string()),
            Some(format!("{:.6}", self.elapsed_s)),
            self.cpu_s.map(|s| format!("{s:.2}")),
            Some(self.solutions_per_s.to_string()),
            self.speedup.map(|s| format!("{s:.3}")),
            self.efficiency.map(|e| format!("{e:.3}")),
            Some(self.kernel.to_string()),
            Some(self.isa.clone()),
            Some(self.cpu.clone()),
            self.gpu.map(str::to_string),
            self.gpu_parts.map(|p| p.to_string()),
        ]
    }
    /// The cells, each one word, so that every column splits on white space: the extensions
    /// joined by `+` (`x86_64+avx2+bmi1`), the spaces of the CPU's name made `_`.
    fn table(&self) -> Vec<Option<String>> {
        let mut cells = self.cells();
        for (cell, join) in cells[12..].iter_mut().zip(["+", "_", "_"]) {
            *cell = cell.as_deref().map(|t| one_word(t, join));
        }
        cells
    }
    fn above() -> &'static [usize] {
        &[0, 11, 12, 13, 14]
    }
}

/// `text` as one word: its words joined by `join`.
fn one_word(text: &str, join: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(join)
}

/// `x` rounded to `digits` decimals, so that JSON gives what the table and CSV show.
fn rounded(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Why a board's counts are wrong, if they are: they differ from the published values.
fn miscounted(case: Case, threads: usize, counts: &Counts) -> Option<String> {
    let (all, fundamental) = (published::all(case.n)?, published::fundamental(case.n));
    let unique_ok = match (counts.unique, fundamental) {
        (Some(c), Some(p)) => c == p,
        _ => true,
    };
    (counts.solutions != all || !unique_ok).then(|| {
        format!(
            "n = {} ({} on {threads} thread{}) counted {} solutions ({} fundamental); the published values are {all} ({})",
            case.n,
            case.method,
            if threads == 1 { "" } else { "s" },
            counts.solutions,
            counts.unique.map_or("-".to_string(), |u| u.to_string()),
            fundamental.map_or("-".to_string(), |u| u.to_string()),
        )
    })
}

/// What every row of one bench shares: the workload, the CPU's loop, its extensions and name.
struct Rows {
    workload: &'static str,
    kernel: Kernel,
    isa: String,
    cpu: String,
}

/// One board's (or a score's) figures for a row: solutions, wall and CPU seconds, rate, and
/// the rate at 1 CPU thread the speed-up is against (`None` where that was not counted).
type Figures = (u128, f64, Option<f64>, f64, Option<f64>);

impl Rows {
    /// The row of `case` (a score row where `None`) at `threads`, counted with the GPU
    /// `gpu` (its name and the parts it counted) where one counted.
    fn row(
        &self,
        (threads, case): (usize, Option<Case>),
        (solutions, elapsed_s, cpu_s, rate, one): Figures,
        gpu: Option<(&'static str, u64)>,
    ) -> BenchRow {
        let speedup = one.map(|one| rate / one);
        BenchRow {
            workload: self.workload,
            row: if case.is_some() { "board" } else { "score" },
            n: case.map(|c| c.n),
            method: case.map(|c| c.method),
            threads,
            solutions,
            elapsed_s: rounded(elapsed_s, 6),
            cpu_s: cpu_s.map(|s| rounded(s, 2)),
            solutions_per_s: rate.round(),
            speedup: speedup.map(|s| rounded(s, 3)),
            efficiency: speedup.map(|s| rounded(s / threads as f64, 3)),
            kernel: self.kernel.name(),
            isa: self.isa.clone(),
            cpu: self.cpu.clone(),
            gpu: gpu.map(|g| g.0),
            gpu_parts: gpu.map(|g| g.1),
        }
    }
}

/// Runs the workload at each thread count of the sweep, printing a row per board as it is
/// counted and a score row per thread count, then with `--gpu` (or alone, with
/// `--gpu-only`) a row per joined board counted with the GPU on the sweep's most threads and
/// their score; a summary on stderr; exit 1 if a count differs from the published values.
pub fn bench(args: BenchArgs) -> Result<(), Failure> {
    let workload = match (hooks::tiny_workload(), args.quick) {
        (true, _) => Workload::TINY,
        (_, true) => Workload::QUICK,
        _ => Workload::V1,
    };
    let kernel = args.kernel.resolve()?;
    let most = nqueens_engine::run::worker_threads(args.threads)?;
    let gpu = crate::gpu::open(&args.gpu, crate::gpu::share(nqueens_engine::DEFAULT_MEMORY))?;
    let only = gpu.as_ref().is_some_and(crate::gpu::Opened::only);
    let sweep = if only {
        Vec::new()
    } else {
        bench::thread_counts(most)
    };
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let rows = Rows {
        workload: workload.name,
        kernel,
        isa: bench::isa(),
        cpu: bench::cpu_model().unwrap_or_else(|| "unknown".to_string()),
    };
    let on = gpu.as_ref().map_or(String::new(), |g| {
        format!(
            "; the joined boards with GPU {} on {most} threads",
            g.name()
        )
    });
    let at = match &sweep[..] {
        [] => String::new(),
        [1] => " at 1 thread".to_string(),
        counts => {
            let counts: Vec<String> = counts.iter().map(usize::to_string).collect();
            format!(" at {} threads", counts.join(", "))
        }
    };
    let _ = writeln!(
        io::stderr(),
        "bench, workload {}: {}{at}; {} ({}), the {kernel} loop{on}",
        workload.name,
        workload.boards(),
        rows.cpu,
        rows.isa,
    );
    let mut out = Printer::new(io::stdout().lock(), args.format).on_terminal();
    // Each board's rate and the score at 1 thread (the sweep's first).
    let mut single: Vec<f64> = Vec::new();
    let mut scores: Vec<(usize, f64)> = Vec::new();
    let mut wrong = Vec::new();
    for &threads in &sweep {
        let (mut rates, mut solutions, mut seconds) = (Vec::new(), 0u128, 0.0);
        let mut cpu = Some(0.0);
        for (i, &case) in workload.cases.iter().enumerate() {
            let (counts, elapsed, used) = timed(case, threads, kernel, args.runs)?;
            wrong.extend(miscounted(case, threads, &counts));
            let rate = counts.solutions as f64 / elapsed;
            if single.len() == i {
                single.push(rate);
            }
            rates.push(rate);
            solutions += counts.solutions;
            seconds += elapsed;
            cpu = cpu.zip(used).map(|(a, b)| a + b);
            let figures = (counts.solutions, elapsed, used, rate, Some(single[i]));
            out.print(&rows.row((threads, Some(case)), figures, None))?;
        }
        let score = bench::geometric_mean(&rates);
        let one = scores.first().map_or(score, |&(_, s)| s);
        scores.push((threads, score));
        let figures = (solutions, seconds, cpu, score, Some(one));
        out.print(&rows.row((threads, None), figures, None))?;
        if let Some(cpu) = cpu {
            busy_note(threads, cores, seconds, cpu);
        }
    }
    let on_gpu = match &gpu {
        Some(g) => {
            let one = (&single[..], scores.first().map(|s| s.1));
            Some(gpu_rows(
                (&rows, &mut out),
                (workload, most, args.runs),
                g,
                one,
                &mut wrong,
            )?)
        }
        None => None,
    };
    summarize(workload.name, &scores, on_gpu, &wrong)
}

/// Says on stderr that the machine was busy at `threads` threads (of `cores`), where the
/// boards had less CPU time (`cpu` seconds) than the threads could use in `seconds`.
fn busy_note(threads: usize, cores: usize, seconds: f64, cpu: f64) {
    if bench::had_the_machine(threads, cores, seconds, cpu) {
        return;
    }
    let _ = writeln!(
        io::stderr(),
        "note: the machine was busy at {threads} thread{}: the boards had {} CPU \
         seconds of the {} that {} could use in {} s, so these rates are below what \
         it does alone",
        if threads == 1 { "" } else { "s" },
        significant(cpu),
        significant(threads.min(cores) as f64 * seconds),
        match threads.min(cores) {
            1 => "one core".to_string(),
            c => format!("{c} cores"),
        },
        significant(seconds),
    );
}

/// The rows of the workload's joined boards counted with the GPU `g` on `threads` CPU
/// threads (`runs` times each), printed to `out`, and their score row; the speed-ups against
/// the CPU's rates at 1 thread (`single`, each board's, and the score), where they were
/// counted. Returns the score (and the GPU's name).
fn gpu_rows(
    (rows, out): (&Rows, &mut Printer<io::StdoutLock<'static>>),
    (workload, threads, runs): (Workload, usize, usize),
    g: &crate::gpu::Opened,
    (single, one): (&[f64], Option<f64>),
    wrong: &mut Vec<String>,
) -> Result<(&'static str, f64), Failure> {
    let (mut rates, mut solutions, mut seconds, mut parts) = (Vec::new(), 0u128, 0.0, 0);
    let mut cpu = Some(0.0);
    for (i, &case) in workload.cases.iter().enumerate() {
        if case.method != Method::Join {
            continue;
        }
        let mut times = Vec::with_capacity(runs);
        let mut counted = None;
        for _ in 0..runs {
            let before = bench::cpu_seconds();
            let c = case.count_on(threads, rows.kernel, (g.pairs(), g.only()))?;
            if let Some(failure) = g.failure() {
                return Err(failure);
            }
            let used = bench::cpu_seconds().zip(before).map(|(b, a)| b - a);
            times.push((c.0.elapsed_s, used));
            counted = Some(c);
        }
        let (mut counts, on_gpu) = counted.expect("at least one run");
        counts.solutions += hooks::miscount();
        let (elapsed, used) = bench::median_run(times).expect("at least one run");
        wrong.extend(miscounted(case, threads, &counts));
        let rate = counts.solutions as f64 / elapsed;
        rates.push(rate);
        (solutions, seconds, parts) = (
            solutions + counts.solutions,
            seconds + elapsed,
            parts + on_gpu,
        );
        cpu = cpu.zip(used).map(|(a, b)| a + b);
        let figures = (
            counts.solutions,
            elapsed,
            used,
            rate,
            single.get(i).copied(),
        );
        out.print(&rows.row((threads, Some(case)), figures, Some((g.name(), on_gpu))))?;
    }
    let score = bench::geometric_mean(&rates);
    // The CPU's score at 1 thread is over every board: the GPU's is over the joined ones.
    let one = one.filter(|_| rates.len() == workload.cases.len());
    let figures = (solutions, seconds, cpu, score, one);
    out.print(&rows.row((threads, None), figures, Some((g.name(), parts))))?;
    Ok((g.name(), score))
}

/// Counts `case` `runs` times on `threads` threads: its counts, and the wall and CPU seconds
/// of the median run by wall time.
fn timed(
    case: Case,
    threads: usize,
    kernel: Kernel,
    runs: usize,
) -> Result<(Counts, f64, Option<f64>), Failure> {
    let mut times = Vec::with_capacity(runs);
    let mut counts = None;
    for _ in 0..runs {
        let before = bench::cpu_seconds();
        let c = case.count(threads, kernel)?;
        let used = bench::cpu_seconds().zip(before).map(|(b, a)| b - a);
        times.push((c.elapsed_s, used));
        counts = Some(c);
    }
    let mut counts = counts.expect("at least one run");
    counts.solutions += hooks::miscount();
    let (elapsed, used) = bench::median_run(times).expect("at least one run");
    Ok((counts, elapsed, used))
}

/// Says on stderr each thread count's score (`scores`, the first at 1 thread), the GPU's
/// (`gpu`: its name and score) where it counted, and whether every count equals the
/// published value; fails where one (`wrong`) does not.
fn summarize(
    workload: &str,
    scores: &[(usize, f64)],
    gpu: Option<(&str, f64)>,
    wrong: &[String],
) -> Result<(), Failure> {
    if let Some((name, score)) = gpu {
        let _ = writeln!(
            io::stderr(),
            "score with GPU {name} (geometric mean of the joined boards' solutions per second): {} M/s",
            significant(score / 1e6)
        );
    }
    let Some(&(_, one)) = scores.first() else {
        return mismatches(wrong);
    };
    let rated: Vec<String> = scores
        .iter()
        .map(|&(t, s)| {
            format!(
                "{t} thread{}: {} M/s (speed-up {:.2}, efficiency {:.2})",
                if t == 1 { "" } else { "s" },
                significant(s / 1e6),
                s / one,
                s / one / t as f64
            )
        })
        .collect();
    let _ = writeln!(
        io::stderr(),
        "score, workload {workload} (geometric mean of the boards' solutions per second): {}",
        rated.join("; ")
    );
    mismatches(wrong)
}

/// Says whether every count equals the published value; fails where one (`wrong`) does not.
fn mismatches(wrong: &[String]) -> Result<(), Failure> {
    if wrong.is_empty() {
        let _ = writeln!(io::stderr(), "every count equals the published value");
        return Ok(());
    }
    for w in wrong {
        let _ = writeln!(io::stderr(), "error: {w}");
    }
    Err(Failure::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_that_differs_from_the_published_value_is_named() {
        let case = Workload::TINY.cases[0];
        let mut counts = case.count(1, Kernel::Auto).unwrap();
        assert_eq!(miscounted(case, 1, &counts), None);
        counts.unique = counts.unique.map(|u| u + 1);
        let why = miscounted(case, 1, &counts).expect("a wrong fundamental count");
        assert!(why.contains("n = 10 (search on 1 thread)"), "{why}");
        counts.unique = counts.unique.map(|u| u - 1);
        counts.solutions += 2;
        assert!(miscounted(case, 1, &counts).is_some());
    }
}
