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
    /// Solutions per second against the same row at 1 thread.
    pub speedup: f64,
    /// Speed-up per thread (1 is perfect scaling).
    pub efficiency: f64,
    /// The counting loop that ran (`scalar`, `avx2` or `avx512`).
    pub kernel: &'static str,
    /// The architecture and the extensions of it the loops use that this CPU has, separated
    /// by spaces (by `+` in the table).
    pub isa: String,
    /// The CPU's model name as the system reports it (`unknown` where it does not; its
    /// spaces `_` in the table).
    pub cpu: String,
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
        ]
    }
    fn widths() -> &'static [usize] {
        &[8, 5, 2, 6, 7, 10, 10, 8, 15, 7, 10, 6, 3, 3]
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
            Some(format!("{:.3}", self.speedup)),
            Some(format!("{:.3}", self.efficiency)),
            Some(self.kernel.to_string()),
            Some(self.isa.clone()),
            Some(self.cpu.clone()),
        ]
    }
    /// The cells, each one word, so that every column splits on white space: the extensions
    /// joined by `+` (`x86_64+avx2+bmi1`), the spaces of the CPU's name made `_`.
    fn table(&self) -> Vec<Option<String>> {
        let mut cells = self.cells();
        for (cell, join) in cells[12..].iter_mut().zip(["+", "_"]) {
            *cell = cell.as_deref().map(|t| one_word(t, join));
        }
        cells
    }
    fn above() -> &'static [usize] {
        &[0, 11, 12, 13]
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

/// Runs the workload at each thread count of the sweep, printing a row per board as it is
/// counted and a score row per thread count; a summary on stderr; exit 1 if a count differs
/// from the published values.
pub fn bench(args: BenchArgs) -> Result<(), Failure> {
    let workload = match (hooks::tiny_workload(), args.quick) {
        (true, _) => Workload::TINY,
        (_, true) => Workload::QUICK,
        _ => Workload::V1,
    };
    let kernel = args.kernel.resolve()?;
    let most = nqueens_engine::run::worker_threads(args.threads)?;
    let sweep = bench::thread_counts(most);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let cpu = bench::cpu_model().unwrap_or_else(|| "unknown".to_string());
    let isa = bench::isa();
    let _ = writeln!(
        io::stderr(),
        "bench, workload {}: {} at {} thread{}; {cpu} ({isa}), the {kernel} loop",
        workload.name,
        workload.boards(),
        sweep
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        if sweep == [1] { "" } else { "s" },
    );
    let mut out = Printer::new(io::stdout().lock(), args.format).on_terminal();
    let row =
        |threads: usize,
         case: Option<Case>,
         (solutions, elapsed_s, cpu_s, rate, one): (u128, f64, Option<f64>, f64, f64)| {
            let speedup = rate / one;
            BenchRow {
                workload: workload.name,
                row: if case.is_some() { "board" } else { "score" },
                n: case.map(|c| c.n),
                method: case.map(|c| c.method),
                threads,
                solutions,
                elapsed_s: rounded(elapsed_s, 6),
                cpu_s: cpu_s.map(|s| rounded(s, 2)),
                solutions_per_s: rate.round(),
                speedup: rounded(speedup, 3),
                efficiency: rounded(speedup / threads as f64, 3),
                kernel: kernel.name(),
                isa: isa.clone(),
                cpu: cpu.clone(),
            }
        };
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
            out.print(&row(
                threads,
                Some(case),
                (counts.solutions, elapsed, used, rate, single[i]),
            ))?;
        }
        let score = bench::geometric_mean(&rates);
        let one = scores.first().map_or(score, |&(_, s)| s);
        scores.push((threads, score));
        out.print(&row(threads, None, (solutions, seconds, cpu, score, one)))?;
        if let Some(cpu) = cpu
            && !bench::had_the_machine(threads, cores, seconds, cpu)
        {
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
    }
    summarize(workload.name, &scores, &wrong)
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

/// Says on stderr each thread count's score (`scores`, the first at 1 thread) and whether
/// every count equals the published value; fails where one (`wrong`) does not.
fn summarize(workload: &str, scores: &[(usize, f64)], wrong: &[String]) -> Result<(), Failure> {
    let one = scores[0].1;
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
