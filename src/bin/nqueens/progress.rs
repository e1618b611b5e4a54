//! Progress of a long count on stderr, from the first moment: planning (the parts, the join's
//! pieces, their estimated costs), then the count, weighted by each part's estimated cost.
//!
//! On a terminal it is an indicatif spinner, then a bar; with `--progress always` elsewhere (a
//! log file) it is a plain line at once and then every few seconds. Elapsed time counts from
//! the start of the process ([`start_clock`]). Subproblem costs differ by orders of magnitude,
//! so the fraction done and the ETA count estimated work ([`nqueens_engine::Plan::costs`]), not
//! subproblems. Planning is shown by time alone: nothing here looks inside it.

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens_engine::{Method, Observer, Tally};

use crate::layout::{self, Eta, seconds};
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

/// Whether a bar may be on the terminal, asked without waiting or allocating (for a last
/// message: its lock held elsewhere counts as drawn).
pub fn drawn() -> bool {
    DRAWN.try_lock().map_or(true, |bar| bar.is_some())
}

/// Writes `line` to stderr on a line of its own: above the bar, where one is drawn.
pub fn say(line: &str) {
    let drawn = DRAWN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let write = || {
        let _ = writeln!(std::io::stderr(), "{line}");
    };
    match drawn {
        Some(bar) => bar.suspend(write),
        None => write(),
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
        Method::Auto => nqueens_engine::run::plan::JOIN_FASTER.contains(&n),
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
    /// The wall seconds the per-n table predicts for the whole board on these threads.
    predicted: Option<f64>,
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
    /// The estimated cost of the part that finished last.
    last_cost: AtomicU64,
    /// The threads counting (as many parts are in flight).
    threads: u64,
    /// The wall seconds a unit of estimated cost takes on these threads as the per-n table
    /// predicts, where the selection is long enough to say ([`PREDICTED_FROM`]).
    predicted: Option<f64>,
    since: Instant,
    /// Work done (as [`Counting::done`] says) when the display last looked, oldest first:
    /// the rate is measured over the last [`Counting::window`].
    seen: Mutex<VecDeque<(Instant, u64)>>,
}

impl Counting {
    /// The count of `subproblems` (indices into `costs`), `already` done, on `threads`.
    fn new(costs: Vec<u64>, subproblems: &[usize], already: &[usize], threads: usize) -> Counting {
        let start_cost = already.iter().map(|&i| costs[i]).sum();
        Counting {
            total_cost: subproblems.iter().map(|&i| costs[i]).sum(),
            total_subproblems: subproblems.len() as u64,
            start_cost,
            done_cost: AtomicU64::new(start_cost),
            done_subproblems: AtomicU64::new(already.len() as u64),
            last_cost: AtomicU64::new(0),
            threads: threads as u64,
            predicted: None,
            since: Instant::now(),
            seen: Mutex::new(VecDeque::from([(Instant::now(), start_cost)])),
            costs,
        }
    }

    /// Part `i` finished.
    fn finished(&self, i: usize) {
        self.done_cost.fetch_add(self.costs[i], Ordering::Relaxed);
        self.done_subproblems.fetch_add(1, Ordering::Relaxed);
        self.last_cost.store(self.costs[i], Ordering::Relaxed);
    }

    /// Estimated work done: the finished parts', and half the work of the parts in flight.
    ///
    /// The run takes the costliest parts first, and a part counts as done only when it ends:
    /// with whole parts only, the first seconds' rate misses the parts in flight, about the
    /// last one's cost per thread, and the first ETA is several times the time left. The
    /// parts in flight, no costlier than the last that ended, are half done on the average.
    fn done(&self) -> u64 {
        let done = self.done_cost.load(Ordering::Relaxed);
        let finished = self.done_subproblems.load(Ordering::Relaxed);
        let in_flight = self.threads.min(self.total_subproblems - finished);
        let half = in_flight * self.last_cost.load(Ordering::Relaxed) / 2;
        (done + half).min(self.total_cost)
    }

    /// How far back the rate is measured: a quarter of the time counted so far, at least
    /// [`SETTLING`]. The first parts run slower per unit of estimated cost than the rest (the
    /// join builds its pieces as the first keys need them), so a rate since the start stays
    /// low for long, where the recent rate forgets them.
    fn window(&self, now: Instant) -> Duration {
        (now.duration_since(self.since) / 4).max(SETTLING)
    }

    /// Where the count stands now, as its line shows it.
    fn now(&self) -> layout::Counting {
        let finished = self.done_cost.load(Ordering::Relaxed);
        let done = self.done();
        let fraction = if self.total_cost == 0 {
            1.0
        } else {
            finished as f64 / self.total_cost as f64
        };
        // The recent rate, or where no part finished lately, the rate since the start.
        let since = self.since.elapsed().as_secs_f64().max(1e-9);
        let rate = match self.rate(done) {
            r if r > 0.0 => r,
            _ => done.saturating_sub(self.start_cost) as f64 / since,
        };
        let measured = finished > self.start_cost && since >= SETTLING.as_secs_f64() && rate > 0.0;
        let left = self.total_cost.saturating_sub(done) as f64;
        let eta = if finished == self.total_cost {
            Eta::Done
        } else if measured {
            Eta::Left(seconds(left / rate))
        } else {
            Eta::Measuring(self.predicted.map(|per_cost| seconds(per_cost * left)))
        };
        layout::Counting {
            fraction,
            eta,
            elapsed: seconds(elapsed().as_secs_f64()),
            done: self.done_subproblems.load(Ordering::Relaxed),
            total: self.total_subproblems,
        }
    }

    /// Estimated work done per second over the last [`Counting::window`], `done` now.
    fn rate(&self, done: u64) -> f64 {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.back().is_none_or(|&(at, _)| now - at >= LOOK_EVERY) {
            seen.push_back((now, done));
        }
        let from = now.checked_sub(self.window(now)).unwrap_or(self.since);
        // The latest look at or before the window's start (else the first) is the base.
        while seen.len() > 1 && seen[1].0 <= from {
            seen.pop_front();
        }
        let (at, base) = seen
            .front()
            .copied()
            .unwrap_or((self.since, self.start_cost));
        (done.saturating_sub(base)) as f64 / now.duration_since(at).as_secs_f64().max(1e-9)
    }
}

/// No ETA is measured before the count has run this long: the first parts' rate says little.
const SETTLING: Duration = Duration::from_secs(5);

/// The shortest predicted count whose prediction the line shows while the rate is measured:
/// below, the table's figures (another machine's) say less than a few seconds' counting.
const PREDICTED_FROM: f64 = 600.0;

/// How often the work done is noted for the rate.
const LOOK_EVERY: Duration = Duration::from_millis(200);

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
            predicted: None,
            last_line: Mutex::new(Instant::now()),
        };
        match &p.bar {
            Some(bar) => {
                bar.set_message(p.fitted());
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
                bar.enable_steady_tick(Duration::from_millis(100));
                *DRAWN.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
                end_line_on_signals();
            }
            None => p.print_line(),
        }
        Some(p)
    }

    /// The wall seconds the per-n table predicts for the whole board: the ETA shown while
    /// the rate is measured, where it is long (call before [`Progress::counting`]).
    pub fn predict(&mut self, seconds: f64) {
        self.predicted = Some(seconds);
    }

    /// How often [`Progress::tick`] wants to be called: often enough for a bar's clock (plain
    /// lines keep to their own [`PLAIN_EVERY`], across planning and counting).
    pub fn period(&self) -> Duration {
        Duration::from_millis(250)
    }

    /// Planning is done: the count goes over `subproblems` (indices into `costs`, the plan's
    /// estimated costs), of which `already` are done, on `threads` threads.
    pub fn counting(
        &self,
        costs: Vec<u64>,
        subproblems: &[usize],
        already: &[usize],
        threads: usize,
    ) {
        let mut c = Counting::new(costs, subproblems, already, threads);
        let board: u64 = c.costs.iter().sum();
        let todo = c.total_cost.saturating_sub(c.start_cost) as f64;
        c.predicted = self
            .predicted
            .map(|whole| whole / board.max(1) as f64)
            .filter(|per_cost| per_cost * todo >= PREDICTED_FROM);
        let _ = self.counting.set(c);
        if let Some(bar) = &self.bar {
            // The line, bar included, is drawn here, from one look at the count.
            bar.disable_steady_tick();
            bar.set_style(
                ProgressStyle::with_template("{wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_message(self.fitted());
        }
    }

    /// Marks subproblem `i` done.
    fn subproblem_done(&self, i: usize) {
        let Some(c) = self.counting.get() else {
            return;
        };
        c.finished(i);
    }

    /// Where planning is: what it builds, and the time since the process started.
    fn planning(&self) -> layout::Planning<'static> {
        layout::Planning {
            what: self.planning,
            elapsed: seconds(elapsed().as_secs_f64()),
        }
    }

    /// Where the board is, every field filled: planning and for how long, or the share of
    /// estimated work, an ETA, the time since the process started and the parts done.
    fn message(&self) -> String {
        match self.counting.get() {
            Some(c) => c.now().message(),
            None => self.planning().message(),
        }
    }

    /// The terminal's line, fitted to its width now: the spinner's message while planning
    /// (beside the label and the spinner), then the whole line of the count.
    fn fitted(&self) -> String {
        let width = layout::terminal_width();
        match self.counting.get() {
            Some(c) => c.now().fitted(&self.label, width),
            None => {
                let beside = self.label.chars().count() + 3;
                self.planning().fitted(width.saturating_sub(beside))
            }
        }
    }

    fn print_line(&self) {
        *self.last_line.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let _ = writeln!(std::io::stderr(), "{}: {}", self.label, self.message());
    }

    /// Brings the display up to date (a periodic tick): the bar's message, or a plain line
    /// when the last is [`PLAIN_EVERY`] old.
    pub fn tick(&self) {
        match &self.bar {
            Some(bar) => bar.set_message(self.fitted()),
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

impl Observer for Progress {
    fn finished(&self, index: usize, _: Tally) {
        self.subproblem_done(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_in_flight_count_as_half_done() {
        let c = Counting::new(vec![100, 60, 50, 40], &[0, 1, 2, 3], &[], 2);
        assert_eq!(c.done(), 0, "nothing finished: nothing to go by");
        c.finished(0);
        // Two threads on parts no costlier than the last one: half of 100 each.
        assert_eq!(c.done(), 100 + 2 * 50);
        c.finished(1);
        c.finished(2);
        // One part left, in flight on one thread.
        assert_eq!(c.done(), 210 + 25);
        c.finished(3);
        assert_eq!(c.done(), 250);
        // A resumed count starts from what was done.
        let resumed = Counting::new(vec![100, 60, 50, 40], &[0, 1, 2, 3], &[0, 1], 2);
        assert_eq!((resumed.start_cost, resumed.done()), (160, 160));
    }

    #[test]
    fn the_rate_is_measured_before_an_eta_is_given() {
        let c = Counting::new(vec![100, 60, 50, 40], &[0, 1, 2, 3], &[], 2);
        assert_eq!(c.now().eta, Eta::Measuring(None), "nothing finished yet");
        let mut seeded = Counting::new(vec![100, 60, 50, 40], &[0, 1, 2, 3], &[], 2);
        seeded.predicted = Some(10.0);
        assert_eq!(seeded.now().eta, Eta::Measuring(Some(seconds(2500.0))));
        // Parts finished, but too soon for a rate: still measured.
        seeded.finished(0);
        assert!(matches!(seeded.now().eta, Eta::Measuring(Some(_))));
        // Past the settling time with parts done, yet none finished lately: the rate since
        // the start gives the ETA, not a claim of seconds.
        let mut late = Counting::new(vec![100, 60, 50, 40], &[0, 1, 2, 3], &[], 2);
        late.since = Instant::now() - Duration::from_secs(100);
        late.finished(3);
        // The last look, 30 s ago, saw what is done now: no rate over the recent window.
        let then = Instant::now() - Duration::from_secs(30);
        late.seen = Mutex::new(VecDeque::from([(then, late.done())]));
        let line = late.now();
        // 40 done and 2 x 20 in flight of 250 in 100 s: 170 left at 0.8 a second.
        assert_eq!(line.eta, Eta::Left(seconds(212.5)), "{:?}", line.eta);
    }
}
