//! Progress of a long count on stderr, from the first moment: planning (the parts, the join's
//! pieces, their estimated costs), then the count, weighted by each part's estimated cost.
//!
//! On a terminal it is an indicatif spinner, then a bar; with `--progress always` elsewhere (a
//! log file) it is a plain line at once and then every few seconds. Elapsed time counts from
//! the start of the process ([`start_clock`]). Subproblem costs differ by orders of magnitude,
//! so the fraction done and the ETA count estimated work ([`nqueens::Plan::costs`]), not
//! subproblems. Planning is shown by time alone: nothing here looks inside it.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::{Method, Observer, Tally};

use crate::periodic::while_running;

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

/// How often a plain line is written (off a terminal).
const PLAIN_EVERY: Duration = Duration::from_secs(2);

/// When the process started ([`start_clock`]).
static START: OnceLock<Instant> = OnceLock::new();

/// Starts the clock progress counts elapsed time from: call it first thing in `main`.
pub fn start_clock() {
    START.get_or_init(Instant::now);
}

/// Time since [`start_clock`].
fn elapsed() -> Duration {
    START.get_or_init(Instant::now).elapsed()
}

/// The bar on the terminal now, for [`end_line`].
static DRAWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Whether a checkpoint's signal handler says how the run ended ([`leave_signals`]).
static SIGNALS_LEFT: AtomicBool = AtomicBool::new(false);

/// Ends the line of the bar or spinner on the terminal, if one is drawn, leaving its last
/// frame: what an interrupted run does before saying so. The bar draws no more (the workers
/// may still finish parts); a newline ends its line (after indicatif's padding, or the `^C`
/// the terminal echoed). Safe to call more than once.
pub fn end_line() {
    if let Some(bar) = DRAWN.lock().unwrap_or_else(|e| e.into_inner()).take() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
        let _ = writeln!(std::io::stderr());
    }
}

/// Another handler (the checkpoint's) reports SIGINT, SIGTERM and SIGHUP and exits: progress
/// only ends its line then, first calling [`end_line`] itself.
pub fn leave_signals() {
    SIGNALS_LEFT.store(true, Ordering::SeqCst);
}

/// On SIGINT, SIGTERM or SIGHUP while a bar is drawn: ends its line and, unless a checkpoint's
/// handler reports the signal, says so and exits with 128 + the signal's number, as the
/// signal would have. Installed once, with the first bar.
fn end_line_on_signals() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                end_line();
                if SIGNALS_LEFT.load(Ordering::SeqCst) {
                    return;
                }
                let name = match signal {
                    SIGINT => "SIGINT",
                    SIGTERM => "SIGTERM",
                    _ => "SIGHUP",
                };
                let _ = writeln!(std::io::stderr(), "interrupted by {name}");
                std::process::exit(128 + signal);
            }
        });
    });
}

/// What planning builds, for the line shown while it runs: the join's pieces and keys where
/// `method` joins board `n` (as `auto` would), else the search's subproblems.
pub fn planning(n: u32, method: Method) -> &'static str {
    let joins = match method {
        Method::Join => true,
        Method::Search => false,
        Method::Auto => nqueens::plan::JOIN_FASTER.contains(&n),
    };
    if joins {
        "building the join's pieces and keys"
    } else {
        "cutting the search's subproblems"
    }
}

/// The progress of one board: planning, then counting.
pub struct Progress {
    label: String,
    planning: &'static str,
    bar: Option<ProgressBar>,
    counting: OnceLock<Counting>,
    /// When the last plain line was written.
    last_line: Mutex<Instant>,
}

/// The count's part of the progress, known once the plan is.
struct Counting {
    costs: Vec<u64>,
    total_cost: u64,
    total_subproblems: u64,
    start_cost: u64,
    done_cost: AtomicU64,
    done_subproblems: AtomicU64,
    since: Instant,
}

impl Progress {
    /// Progress of the board `label`, shown from now on as `when` says (`None` when it is
    /// not): a spinner, or a first plain line, saying that planning does `planning`.
    pub fn start(when: When, label: String, planning: &'static str) -> Option<Progress> {
        let terminal = std::io::stderr().is_terminal();
        let shown = match when {
            When::Auto => terminal,
            When::Always => true,
            When::Never => false,
        };
        if !shown {
            return None;
        }
        // Set up hidden, so that the first frame drawn has every field.
        let bar = terminal.then(|| {
            let bar = ProgressBar::hidden();
            bar.set_style(
                ProgressStyle::with_template("{prefix} {spinner} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_prefix(label.clone());
            bar
        });
        let p = Progress {
            label,
            planning,
            bar,
            counting: OnceLock::new(),
            last_line: Mutex::new(Instant::now()),
        };
        match &p.bar {
            Some(bar) => {
                bar.set_message(p.message());
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
                bar.enable_steady_tick(Duration::from_millis(100));
                *DRAWN.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
                end_line_on_signals();
            }
            None => p.print_line(),
        }
        Some(p)
    }

    /// How often [`Progress::tick`] wants to be called: often enough for a bar's clock (plain
    /// lines keep to their own [`PLAIN_EVERY`], across planning and counting).
    pub fn period(&self) -> Duration {
        Duration::from_millis(250)
    }

    /// Planning is done: the count goes over `subproblems` (indices into `costs`, the plan's
    /// estimated costs), of which `already` are done.
    pub fn counting(&self, costs: Vec<u64>, subproblems: &[usize], already: &[usize]) {
        let total_cost = subproblems.iter().map(|&i| costs[i]).sum();
        let start_cost = already.iter().map(|&i| costs[i]).sum();
        let _ = self.counting.set(Counting {
            costs,
            total_cost,
            total_subproblems: subproblems.len() as u64,
            start_cost,
            done_cost: AtomicU64::new(start_cost),
            done_subproblems: AtomicU64::new(already.len() as u64),
            since: Instant::now(),
        });
        if let Some(bar) = &self.bar {
            bar.disable_steady_tick();
            bar.set_message(self.message());
            bar.set_length(total_cost);
            bar.set_position(start_cost);
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:20}] {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
        }
    }

    /// Marks subproblem `i` done.
    fn subproblem_done(&self, i: usize) {
        let Some(c) = self.counting.get() else {
            return;
        };
        c.done_cost.fetch_add(c.costs[i], Ordering::Relaxed);
        c.done_subproblems.fetch_add(1, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(c.costs[i]);
        }
    }

    /// Where the board is, every field filled: planning and for how long, or the share of
    /// estimated work, an ETA, the time since the process started and the parts done.
    fn message(&self) -> String {
        let since_start = seconds(elapsed().as_secs_f64());
        let Some(c) = self.counting.get() else {
            return format!("planning: {}, {since_start} elapsed", self.planning);
        };
        let done = c.done_cost.load(Ordering::Relaxed);
        let fraction = if c.total_cost == 0 {
            1.0
        } else {
            done as f64 / c.total_cost as f64
        };
        let rate = (done - c.start_cost) as f64 / c.since.elapsed().as_secs_f64().max(1e-9);
        let eta = if done == c.total_cost {
            "done".to_string()
        } else if rate > 0.0 {
            format!(
                "about {} left",
                seconds((c.total_cost - done) as f64 / rate)
            )
        } else {
            "time left after the first part".to_string()
        };
        // What matters most first: a narrow terminal cuts the end of the line.
        format!(
            "{:.1}% of estimated work, {eta}, {since_start} elapsed, {}/{} subproblems",
            100.0 * fraction,
            c.done_subproblems.load(Ordering::Relaxed),
            c.total_subproblems,
        )
    }

    fn print_line(&self) {
        *self.last_line.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let _ = writeln!(std::io::stderr(), "{}: {}", self.label, self.message());
    }

    /// Brings the display up to date (a periodic tick): the bar's message, or a plain line
    /// when the last is [`PLAIN_EVERY`] old.
    pub fn tick(&self) {
        match &self.bar {
            Some(bar) => bar.set_message(self.message()),
            None => {
                let last = *self.last_line.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= PLAIN_EVERY {
                    self.print_line();
                }
            }
        }
    }

    /// Runs `work` (planning) while the display ticks.
    pub fn during<T: Send>(progress: &Option<Progress>, work: impl FnOnce() -> T + Send) -> T {
        match progress {
            Some(p) => while_running(&[(p.period(), &|| p.tick())], work),
            None => work(),
        }
    }

    /// Ends the display: clears the bar, or prints a last plain line.
    pub fn finish(&self) {
        match &self.bar {
            Some(bar) => {
                DRAWN.lock().unwrap_or_else(|e| e.into_inner()).take();
                bar.finish_and_clear();
            }
            None => self.print_line(),
        }
    }
}

impl Drop for Progress {
    /// A board that fails (a join refused in planning, a checkpoint refused) clears its
    /// spinner or bar, so that the error stands on a line of its own.
    fn drop(&mut self) {
        if let Some(bar) = &self.bar
            && !bar.is_finished()
        {
            DRAWN.lock().unwrap_or_else(|e| e.into_inner()).take();
            bar.finish_and_clear();
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
