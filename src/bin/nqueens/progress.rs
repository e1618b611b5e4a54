//! Progress of a long count on stderr, weighted by each subproblem's estimated cost.
//!
//! On a terminal it is an indicatif bar; with `--progress always` elsewhere (a log file) it
//! is a plain line every few seconds. Subproblem costs differ by orders of magnitude, so the
//! fraction done and the ETA count estimated work ([`nqueens::Plan::costs`]), not
//! subproblems.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::{Observer, Tally};

/// When to show progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    /// When stderr is a terminal.
    Auto,
    /// Always: a bar on a terminal, plain lines elsewhere.
    Always,
    /// Never.
    Never,
}

/// The progress of one board.
pub struct Progress {
    label: String,
    costs: Vec<u64>,
    total_cost: u64,
    total_subproblems: u64,
    start_cost: u64,
    done_cost: AtomicU64,
    done_subproblems: AtomicU64,
    start: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Progress over `subproblems` (indices into the estimated costs, which `costs` gives
    /// only when progress is shown), of which `already` are done; `None` when it is not to
    /// be shown.
    pub fn new(
        when: When,
        label: String,
        costs: impl FnOnce() -> Vec<u64>,
        subproblems: &[usize],
        already: &[usize],
    ) -> Option<Progress> {
        let terminal = std::io::stderr().is_terminal();
        let shown = match when {
            When::Auto => terminal,
            When::Always => true,
            When::Never => false,
        };
        if !shown {
            return None;
        }
        let costs = costs();
        let total_cost = subproblems.iter().map(|&i| costs[i]).sum();
        let start_cost = already.iter().map(|&i| costs[i]).sum();
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total_cost), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{elapsed_precise}] {wide_bar} {percent:>3}% of est. work, {msg}, eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(label.clone());
            bar.set_position(start_cost);
            bar.reset_eta();
            bar
        });
        let p = Progress {
            label,
            costs,
            total_cost,
            total_subproblems: subproblems.len() as u64,
            start_cost,
            done_cost: AtomicU64::new(start_cost),
            done_subproblems: AtomicU64::new(already.len() as u64),
            start: Instant::now(),
            bar,
        };
        p.update_message();
        Some(p)
    }

    /// Marks subproblem `i` done.
    pub fn subproblem_done(&self, i: usize) {
        self.done_cost.fetch_add(self.costs[i], Ordering::Relaxed);
        self.done_subproblems.fetch_add(1, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(self.costs[i]);
            self.update_message();
        }
    }

    fn update_message(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{}/{} subproblems",
                self.done_subproblems.load(Ordering::Relaxed),
                self.total_subproblems
            ));
        }
    }

    /// One line of plain progress: subproblems, share of estimated work, elapsed, ETA.
    pub fn line(&self) -> String {
        let done = self.done_cost.load(Ordering::Relaxed);
        let elapsed = self.start.elapsed().as_secs_f64();
        let fraction = if self.total_cost == 0 {
            1.0
        } else {
            done as f64 / self.total_cost as f64
        };
        let rate = (done - self.start_cost) as f64 / elapsed.max(1e-9);
        let eta = if rate > 0.0 {
            format!(
                "about {} left",
                seconds((self.total_cost - done) as f64 / rate)
            )
        } else {
            "estimating".into()
        };
        format!(
            "{}: {}/{} subproblems, {:.1}% of estimated work, {} elapsed, {eta}",
            self.label,
            self.done_subproblems.load(Ordering::Relaxed),
            self.total_subproblems,
            100.0 * fraction,
            seconds(elapsed)
        )
    }

    /// Prints a plain line, unless a bar shows the progress (for a periodic tick).
    pub fn tick(&self) {
        if self.bar.is_none() {
            let _ = writeln!(std::io::stderr(), "{}", self.line());
        }
    }

    /// Ends the display: clears the bar, or prints a last plain line.
    pub fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish_and_clear(),
            None => {
                let _ = writeln!(std::io::stderr(), "{}", self.line());
            }
        }
    }
}

fn seconds(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60),
    }
}

impl Observer for Progress {
    fn finished(&self, index: usize, _: Tally) {
        self.subproblem_done(index);
    }
}
