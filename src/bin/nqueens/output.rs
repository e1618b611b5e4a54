//! Renderers: one result struct, a human table, JSON Lines and CSV.
//!
//! Each renderer writes a header (if it has one) once and then one row per result, so rows
//! appear as soon as each board is counted. A value that does not apply (the split depth of
//! a join, the fundamental solutions outside full mode) is `null` in JSON, empty in CSV and
//! `-` in the table.

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

use nqueens_engine::types::kernel_name;
use nqueens_engine::{Counts, Method};

/// Whether standard output was closed as the process started, noted by [`note_stdout`].
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Notes whether descriptor 1 is closed: called before Rust's runtime starts, which opens
/// `/dev/null` in a closed standard descriptor's place (so that writes to it would succeed,
/// going nowhere).
pub fn note_stdout() {
    if stdout_shut() {
        STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether descriptor 1 is closed now.
fn stdout_shut() -> bool {
    // SAFETY: F_GETFD reads a descriptor's flags; it touches no memory of ours.
    unsafe { libc::fcntl(1, libc::F_GETFD) == -1 }
}

/// Whether this process's standard output was closed when it started (`>&-`): what is
/// written there would go nowhere, and a command that prints its result refuses to start.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) || stdout_shut()
}

/// Output format of `count` and `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// JSON Lines: one object per board.
    Json,
    /// Comma-separated values with a header row.
    Csv,
}

/// A table row or record that can be rendered in every format.
pub trait Record: Serialize {
    /// Column names, in order.
    fn columns() -> &'static [&'static str];
    /// Column widths for the table format.
    fn widths() -> &'static [usize];
    /// Cell texts, in column order, as JSON writes each value (CSV's cells); `None` where the
    /// value does not apply.
    fn cells(&self) -> Vec<Option<String>>;
    /// The table's cells: [`Record::cells`], with seconds and hours rounded for people.
    fn table(&self) -> Vec<Option<String>> {
        self.cells()
    }
    /// The table's cells on a terminal, where its last column has `room` columns left of
    /// the table's width: [`Record::table`], unless that column's text can be shortened.
    fn table_within(&self, room: usize) -> Vec<Option<String>> {
        let _ = room;
        self.table()
    }
    /// The columns (indices) a table on a terminal moves into a line above its rows: those
    /// that repeat from row to row, so that the rest fits 100 columns.
    fn above() -> &'static [usize] {
        &[]
    }
}

/// A number as JSON writes it, so that CSV gives what JSON gives, to the last digit.
fn exact(x: f64) -> String {
    serde_json::to_string(&x).unwrap_or_else(|_| x.to_string())
}

/// The width a table on a terminal keeps within.
const TABLE_WIDTH: usize = 100;

/// Writes records in one format.
pub struct Printer<W: Write> {
    out: W,
    format: Format,
    started: bool,
    /// Whether the table goes to a terminal: its repeated columns go above it.
    terminal: bool,
    /// The values of the columns above the rows, as last written.
    above: Option<Vec<String>>,
}

impl<W: Write> Printer<W> {
    /// A printer that writes to `out`.
    pub fn new(out: W, format: Format) -> Printer<W> {
        Printer {
            out,
            format,
            started: false,
            terminal: false,
            above: None,
        }
    }

    /// The same printer, its table fitted for a terminal where stdout is one: the columns
    /// that repeat ([`Record::above`]) in a line above the rows, written again when they
    /// change. Off a terminal the table keeps every column, as scripts split it.
    pub fn on_terminal(mut self) -> Printer<W> {
        self.terminal = io::stdout().is_terminal();
        self
    }

    /// Writes one record (and the header before the first).
    pub fn print<R: Record>(&mut self, record: &R) -> io::Result<()> {
        match self.format {
            Format::Json => {
                serde_json::to_writer(&mut self.out, record)?;
                writeln!(self.out)?;
            }
            Format::Csv => {
                // RFC 4180 as the csv crate writes it: a field with a comma, a quote or a
                // line break (a CPU's model name may hold one) in quotes, lines ending in \n.
                let mut csv = csv::WriterBuilder::new()
                    .terminator(csv::Terminator::Any(b'\n'))
                    .from_writer(&mut self.out);
                if !self.started {
                    csv.write_record(R::columns())?;
                }
                let cells = record.cells().into_iter().map(Option::unwrap_or_default);
                csv.write_record(cells)?;
                csv.flush()?;
            }
            Format::Table => {
                let above: &[usize] = if self.terminal { R::above() } else { &[] };
                let kept: Vec<usize> = (0..R::columns().len())
                    .filter(|i| !above.contains(i))
                    .collect();
                let line = |cells: &[String]| {
                    let padded: Vec<String> = kept
                        .iter()
                        .map(|&i| format!("{:>w$}", cells[i], w = R::widths()[i]))
                        .collect();
                    padded.join("  ")
                };
                let cells = match kept.split_last() {
                    Some((_, before)) if self.terminal => {
                        let used: usize = before.iter().map(|&i| R::widths()[i] + 2).sum();
                        record.table_within(TABLE_WIDTH.saturating_sub(used))
                    }
                    _ => record.table(),
                };
                let cells: Vec<String> = cells
                    .into_iter()
                    .map(|c| c.unwrap_or_else(|| "-".into()))
                    .collect();
                let settings: Vec<String> = above.iter().map(|&i| cells[i].clone()).collect();
                let new_settings = !above.is_empty() && self.above.as_ref() != Some(&settings);
                if new_settings {
                    if self.started {
                        writeln!(self.out)?;
                    }
                    let said: Vec<String> = above
                        .iter()
                        .zip(&settings)
                        .map(|(&i, v)| format!("{} {v}", R::columns()[i]))
                        .collect();
                    // Wrapped at the table's width, between settings.
                    let mut text = String::new();
                    for (k, item) in said.iter().enumerate() {
                        let last = text.rsplit('\n').next().unwrap_or_default().len();
                        if k > 0 && last + 2 + item.len() > TABLE_WIDTH {
                            text.push_str(",\n");
                        } else if k > 0 {
                            text.push_str(", ");
                        }
                        text.push_str(item);
                    }
                    writeln!(self.out, "{text}")?;
                    self.above = Some(settings);
                }
                if !self.started || new_settings {
                    let names: Vec<String> = R::columns().iter().map(|c| c.to_string()).collect();
                    writeln!(self.out, "{}", line(&names))?;
                }
                writeln!(self.out, "{}", line(&cells))?;
            }
        }
        self.started = true;
        self.out.flush()
    }
}

impl Record for Counts {
    fn columns() -> &'static [&'static str] {
        &[
            "n",
            "solutions",
            "unique",
            "method",
            "kernel",
            "threads",
            "split_depth",
            "symmetry",
            "subproblems",
            "elapsed_s",
        ]
    }
    fn widths() -> &'static [usize] {
        &[2, 18, 17, 6, 6, 7, 11, 8, 11, 10]
    }
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            Some(self.n.to_string()),
            Some(self.solutions.to_string()),
            self.unique.map(|u| u.to_string()),
            Some(self.method.to_string()),
            self.kernel.name().map(str::to_string),
            self.threads.map(|t| t.to_string()),
            self.split_depth.map(|d| d.to_string()),
            Some(self.symmetry.to_string()),
            Some(self.subproblems.to_string()),
            Some(exact(self.elapsed_s)),
        ]
    }
    fn table(&self) -> Vec<Option<String>> {
        let mut cells = self.cells();
        cells[9] = Some(format!("{:.6}", self.elapsed_s));
        cells
    }
    fn above() -> &'static [usize] {
        &[3, 4, 5, 6, 7]
    }
}

/// What the rows of `merge --partial` begin with: the board, the sums of what is merged and
/// how it was counted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sums {
    /// Board size.
    pub n: u32,
    /// Whether the whole plan is merged (then `solutions` is the board's total).
    pub complete: bool,
    /// Solutions in the parts merged.
    pub solutions: u128,
    /// Fundamental solutions, once the whole plan is merged (full mode only).
    pub unique: Option<u128>,
    /// How the shards counted (`search` or `join`).
    pub method: Method,
    /// The loop the shards ran (`mixed` where they differ).
    pub kernel: &'static str,
    /// Symmetry mode.
    pub symmetry: nqueens_engine::Symmetry,
}

impl Sums {
    /// The sums of `sum`, the whole plan's where `complete`.
    pub fn of(sum: &nqueens_engine::run::shard::Sum, complete: bool) -> Sums {
        let (plan, tally) = (&sum.plan, sum.outcome.tally);
        let (kernel, same) = sum.kernel;
        Sums {
            n: plan.n,
            complete,
            solutions: tally.solutions,
            unique: (complete && plan.symmetry == nqueens_engine::Symmetry::Full)
                .then_some(tally.unique8 / 8),
            method: plan.method,
            kernel: kernel_name(same.then_some(kernel)),
            symmetry: plan.symmetry,
        }
    }

    fn cells(&self) -> Vec<Option<String>> {
        vec![
            Some(self.n.to_string()),
            Some(self.complete.to_string()),
            Some(self.solutions.to_string()),
            self.unique.map(|u| u.to_string()),
            Some(self.method.to_string()),
            Some(self.kernel.to_string()),
            Some(self.symmetry.to_string()),
        ]
    }
}

/// The columns of a row that begins with [`Sums`], then `$column`s of widths `$width`:
/// `(columns, widths)`.
macro_rules! after_sums {
    ($($column:literal: $width:literal),*) => {
        (
            &["n", "complete", "solutions", "unique", "method", "kernel", "symmetry", $($column),*],
            &[2, 8, 18, 17, 6, 6, 8, $($width),*],
        )
    };
}

/// What `merge --partial` found: the sums of the shards there are, and how much of the plan
/// they cover.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coverage {
    /// The board and the sums.
    #[serde(flatten)]
    pub sums: Sums,
    /// Shards the plan was dealt into.
    pub shards: usize,
    /// Shards merged.
    pub shards_merged: usize,
    /// Subproblems in the plan.
    pub parts: usize,
    /// Subproblems merged.
    pub parts_merged: usize,
    /// The share of the plan's estimated work the merged shards hold, 0 to 1.
    pub cost_merged: f64,
    /// The missing shards as ranges, `0-3 7 9-12` (empty when none is).
    pub missing: String,
}

/// [`Coverage`]'s columns and widths.
const COVERAGE: (&[&str], &[usize]) = after_sums!(
    "shards": 7, "shards_merged": 13, "parts": 8, "parts_merged": 12, "cost_merged": 11, "missing": 7
);

impl Record for Coverage {
    fn columns() -> &'static [&'static str] {
        COVERAGE.0
    }
    fn widths() -> &'static [usize] {
        COVERAGE.1
    }
    fn cells(&self) -> Vec<Option<String>> {
        let mut cells = self.sums.cells();
        cells.extend([
            Some(self.shards.to_string()),
            Some(self.shards_merged.to_string()),
            Some(self.parts.to_string()),
            Some(self.parts_merged.to_string()),
            Some(exact(self.cost_merged)),
            (!self.missing.is_empty()).then(|| self.missing.clone()),
        ]);
        cells
    }
    fn table(&self) -> Vec<Option<String>> {
        self.table_within(usize::MAX)
    }
    fn table_within(&self, room: usize) -> Vec<Option<String>> {
        rounded_and_shortened(self.cells(), self.cost_merged, room)
    }
    fn above() -> &'static [usize] {
        // The board, whether it is complete, how it was counted, the shards and the parts.
        &[0, 1, 4, 5, 6, 7, 9]
    }
}

/// What `merge --quorum K --partial` found: the sums of the parts that runs of K sources counted alike,
/// and how much of the plan they cover.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// The board and the sums of the parts that have their quorum.
    #[serde(flatten)]
    pub sums: Sums,
    /// The sources whose runs must agree on a part.
    pub quorum: usize,
    /// The runs merged.
    pub runs: usize,
    /// The sources (folders, lists) they came from.
    pub sources: usize,
    /// Subproblems in the plan.
    pub parts: usize,
    /// Subproblems that have their quorum.
    pub parts_agreed: usize,
    /// The share of the plan's estimated work in them, 0 to 1.
    pub cost_agreed: f64,
    /// The parts that lack their quorum as ranges, every one (the table shows the first
    /// [`TABLE_RANGES`]; empty when none does).
    pub lacking: String,
}

/// The most ranges of parts or shards a table's cell shows; JSON and CSV give them all.
pub const TABLE_RANGES: usize = 20;

/// A list of ranges (`0-3 7 9-12`) as a table shows it within `room` columns: all of them
/// where at most [`TABLE_RANGES`] fit, else the most of the first [`TABLE_RANGES`] that fit
/// with `and N more` (at least one, where none fits).
fn shortened(ranges: &str, room: usize) -> String {
    let words: Vec<&str> = ranges.split(' ').collect();
    if words.len() <= TABLE_RANGES && ranges.len() <= room {
        return ranges.to_string();
    }
    let with_more = |k: usize| format!("{} and {} more", words[..k].join(" "), words.len() - k);
    (1..=TABLE_RANGES.min(words.len() - 1))
        .rev()
        .map(with_more)
        .find(|text| text.len() <= room)
        .unwrap_or_else(|| with_more(1))
}

/// The table's cells of a merge's `cells`, whose last two are the share of the work merged
/// (shown rounded: `cost`) and the ranges missing (shortened to `room` columns).
fn rounded_and_shortened(
    mut cells: Vec<Option<String>>,
    cost: f64,
    room: usize,
) -> Vec<Option<String>> {
    let at = cells.len() - 2;
    cells[at] = Some(format!("{cost:.6}"));
    cells[at + 1] = cells[at + 1].as_deref().map(|r| shortened(r, room));
    cells
}

/// [`Agreement`]'s columns and widths.
const AGREEMENT: (&[&str], &[usize]) = after_sums!(
    "quorum": 6, "runs": 5, "sources": 7, "parts": 8, "parts_agreed": 12, "cost_agreed": 11, "lacking": 7
);

impl Record for Agreement {
    fn columns() -> &'static [&'static str] {
        AGREEMENT.0
    }
    fn widths() -> &'static [usize] {
        AGREEMENT.1
    }
    fn cells(&self) -> Vec<Option<String>> {
        let mut cells = self.sums.cells();
        cells.extend([
            Some(self.quorum.to_string()),
            Some(self.runs.to_string()),
            Some(self.sources.to_string()),
            Some(self.parts.to_string()),
            Some(self.parts_agreed.to_string()),
            Some(exact(self.cost_agreed)),
            (!self.lacking.is_empty()).then(|| self.lacking.clone()),
        ]);
        cells
    }
    fn table(&self) -> Vec<Option<String>> {
        self.table_within(usize::MAX)
    }
    fn table_within(&self, room: usize) -> Vec<Option<String>> {
        rounded_and_shortened(self.cells(), self.cost_agreed, room)
    }
    fn above() -> &'static [usize] {
        // The board, whether it is complete, how it was counted, the quorum, runs, sources
        // and parts.
        &[0, 1, 4, 5, 6, 7, 8, 9, 10]
    }
}

/// One line of `nqueens verify`: a computed count beside the published one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Check {
    /// Board size.
    pub n: u32,
    /// Solutions counted.
    pub computed: u128,
    /// OEIS A000170(n).
    pub published: u128,
    /// Fundamental solutions counted (full mode only).
    pub computed_unique: Option<u128>,
    /// OEIS A002562(n) (none for n = 0).
    pub published_unique: Option<u128>,
    /// Whether every counted value equals its published value.
    pub ok: bool,
    /// How the board was counted (`search` or `join`).
    pub method: Method,
    /// The counting loop that ran (`scalar`, `avx2` or `avx512`).
    pub kernel: nqueens_engine::Loops,
    /// Wall-clock seconds for the count.
    pub elapsed_s: f64,
}

impl Check {
    /// Compares a count with the published tables.
    pub fn of(counts: &Counts, published: u128, published_unique: Option<u128>) -> Check {
        let unique_ok = match (counts.unique, published_unique) {
            (Some(c), Some(p)) => c == p,
            _ => true,
        };
        Check {
            n: counts.n,
            computed: counts.solutions,
            published,
            computed_unique: counts.unique,
            published_unique,
            ok: counts.solutions == published && unique_ok,
            method: counts.method,
            kernel: counts.kernel,
            elapsed_s: counts.elapsed_s,
        }
    }
}

impl Record for Check {
    fn columns() -> &'static [&'static str] {
        &[
            "n",
            "computed",
            "published",
            "computed_unique",
            "published_unique",
            "ok",
            "method",
            "kernel",
            "elapsed_s",
        ]
    }
    fn widths() -> &'static [usize] {
        &[2, 18, 18, 17, 17, 5, 6, 6, 10]
    }
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            Some(self.n.to_string()),
            Some(self.computed.to_string()),
            Some(self.published.to_string()),
            self.computed_unique.map(|u| u.to_string()),
            self.published_unique.map(|u| u.to_string()),
            Some(self.ok.to_string()),
            Some(self.method.to_string()),
            self.kernel.name().map(str::to_string),
            Some(exact(self.elapsed_s)),
        ]
    }
    fn table(&self) -> Vec<Option<String>> {
        let mut cells = self.cells();
        cells[8] = Some(format!("{:.6}", self.elapsed_s));
        cells
    }
    fn above() -> &'static [usize] {
        &[6, 7]
    }
}

/// Whether stderr is coloured, set once from `--color` ([`set_colour`]); until then as
/// `--color auto`.
static COLOUR: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Sets whether stderr is coloured, for the rest of the command.
pub fn set_colour(on: bool) {
    let _ = COLOUR.set(on);
}

/// Writes `error: {message}` on stderr, the `error:` in bold red as clap writes its own, where
/// `--color` says so ([`crate::cli::Colour::on`]).
pub fn error(message: impl std::fmt::Display) {
    let colour = *COLOUR.get_or_init(|| crate::cli::Colour::Auto.on());
    let prefix = if colour {
        "\x1b[1m\x1b[31merror:\x1b[0m"
    } else {
        "error:"
    };
    let _ = writeln!(io::stderr(), "{prefix} {message}");
}

/// `x` with four significant figures (thread-hours span fractions of a second to years).
pub fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// What `estimate` predicts for one board on this machine.
#[derive(Debug, Serialize)]
pub struct Prediction {
    /// Board size.
    pub n: u32,
    /// How the board would be counted (`search` or `join`).
    pub method: Method,
    /// The counting loop that ran (`scalar`, `avx2` or `avx512`).
    pub kernel: &'static str,
    /// Worker threads (the wall time's).
    pub threads: usize,
    /// Parts in the plan.
    pub parts: usize,
    /// Parts counted and timed.
    pub sampled: usize,
    /// Seconds the sampling took.
    pub sampling_s: f64,
    /// Predicted thread-hours of the whole count (the seconds its threads spend counting,
    /// over 3600), and a 95% interval of the sampling's spread.
    pub thread_hours: f64,
    /// Low end of the interval (`null` where a stratum had a single sample).
    pub thread_hours_low: Option<f64>,
    /// High end of the interval (`null` where a stratum had a single sample).
    pub thread_hours_high: Option<f64>,
    /// Strata the prediction and its interval are made over (strata with fewer than two
    /// samples merged with their neighbours).
    pub strata: usize,
    /// Parts still counting at the bound (`--seconds`), abandoned and left out: at most
    /// one a thread.
    pub abandoned: usize,
    /// How far leaving them out pulls `thread_hours` down, as a fraction of it (they are
    /// likelier the long parts), from the sample's spread: 0 where none were; `null` where
    /// one fell in a stratum of a single sample.
    pub lean: Option<f64>,
    /// Predicted wall-clock seconds on `threads` threads.
    pub wall_s: f64,
    /// Bytes the count may hold (`--memory`, for the join; `null` for the search).
    pub memory_limit: Option<usize>,
    /// Peak bytes this process held while sampling (`null` where the system does not say).
    pub memory_seen: Option<u64>,
    /// Shards asked for (`--shards`).
    pub shards: Option<usize>,
    /// Predicted wall-clock seconds of the longest shard on `threads` threads.
    pub longest_shard_s: Option<f64>,
    /// The GPU adapter that counted the sample (`--gpu`, `--gpu-only`; `null` without one).
    pub gpu: Option<&'static str>,
    /// With a GPU, the prediction in its hours: the count's wall-clock hours (`wall_s`), its
    /// threads feeding the one GPU; `null` without one.
    pub gpu_hours: Option<f64>,
}

impl Record for Prediction {
    fn columns() -> &'static [&'static str] {
        &[
            "n",
            "method",
            "kernel",
            "threads",
            "parts",
            "sampled",
            "sampling_s",
            "thread_hours",
            "thread_hours_low",
            "thread_hours_high",
            "strata",
            "abandoned",
            "lean",
            "wall_s",
            "memory_limit",
            "memory_seen",
            "shards",
            "longest_shard_s",
            "gpu",
            "gpu_hours",
        ]
    }
    fn widths() -> &'static [usize] {
        &[
            2, 6, 6, 7, 8, 7, 10, 12, 16, 17, 6, 9, 6, 12, 12, 11, 6, 15, 3, 9,
        ]
    }
    fn cells(&self) -> Vec<Option<String>> {
        vec![
            Some(self.n.to_string()),
            Some(self.method.to_string()),
            Some(self.kernel.to_string()),
            Some(self.threads.to_string()),
            Some(self.parts.to_string()),
            Some(self.sampled.to_string()),
            Some(exact(self.sampling_s)),
            Some(exact(self.thread_hours)),
            self.thread_hours_low.map(exact),
            self.thread_hours_high.map(exact),
            Some(self.strata.to_string()),
            Some(self.abandoned.to_string()),
            self.lean.map(exact),
            Some(exact(self.wall_s)),
            self.memory_limit.map(|m| m.to_string()),
            self.memory_seen.map(|m| m.to_string()),
            self.shards.map(|k| k.to_string()),
            self.longest_shard_s.map(exact),
            self.gpu.map(str::to_string),
            self.gpu_hours.map(exact),
        ]
    }
    fn table(&self) -> Vec<Option<String>> {
        let mut cells = self.cells();
        cells[6] = Some(format!("{:.1}", self.sampling_s));
        cells[7] = Some(significant(self.thread_hours));
        cells[8] = self.thread_hours_low.map(significant);
        cells[9] = self.thread_hours_high.map(significant);
        cells[12] = self.lean.map(significant);
        cells[13] = Some(format!("{:.1}", self.wall_s));
        cells[17] = self.longest_shard_s.map(|s| format!("{s:.1}"));
        cells[18] = self
            .gpu
            .map(|g| g.split_whitespace().collect::<Vec<_>>().join("_"));
        cells[19] = self.gpu_hours.map(significant);
        cells
    }
    fn above() -> &'static [usize] {
        &[0, 1, 2, 3, 4, 5, 10, 11, 12, 14, 15, 16, 18, 19]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens_engine::{Options, count};

    /// Each record in CSV and in JSON: the CSV's cells, and the JSON's values as JSON writes
    /// them (strings unquoted, `null` as empty), in the CSV's column order.
    fn both<R: Record>(record: &R) -> (Vec<String>, Vec<String>) {
        let (mut csv, mut json) = (Vec::new(), Vec::new());
        Printer::new(&mut csv, Format::Csv).print(record).unwrap();
        Printer::new(&mut json, Format::Json).print(record).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let row = csv.lines().nth(1).unwrap().split(',').map(String::from);
        let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let values = R::columns().iter().map(|c| match &json[c] {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        });
        (row.collect(), values.collect())
    }

    #[test]
    fn csv_gives_the_values_json_gives() {
        let counts = count(9, &Options::default()).unwrap();
        let (csv, json) = both(&counts);
        assert_eq!(csv, json);
        let check = Check::of(&counts, 352, Some(46));
        let (csv, json) = both(&check);
        assert_eq!(csv[5], "true");
        assert_eq!(csv, json);
        let prediction = Prediction {
            n: 20,
            method: Method::Join,
            kernel: "avx2",
            threads: 2,
            parts: 41_000,
            sampled: 300,
            sampling_s: 60.123_456_789,
            thread_hours: 0.012_345_678_9,
            thread_hours_low: Some(0.011_111_111_1),
            thread_hours_high: None,
            strata: 8,
            abandoned: 2,
            lean: Some(0.001_234_5),
            wall_s: 22.222_222_2,
            memory_limit: Some(2 << 30),
            memory_seen: None,
            shards: Some(8),
            longest_shard_s: Some(2.777_777_7),
            gpu: Some("NVIDIA H200"),
            gpu_hours: Some(0.012_345_678_9),
        };
        let (csv, json) = both(&prediction);
        assert_eq!(csv, json);
        assert_eq!(csv[11], "2");
        assert_eq!(csv[12], "0.0012345");
        assert_eq!(csv[13], "22.2222222");
        assert_eq!(csv[9], "", "no interval is written as nothing");
    }

    /// A record whose cells need quoting in CSV.
    #[derive(Serialize)]
    struct Named {
        cpu: String,
    }

    impl Record for Named {
        fn columns() -> &'static [&'static str] {
            &["cpu"]
        }
        fn widths() -> &'static [usize] {
            &[8]
        }
        fn cells(&self) -> Vec<Option<String>> {
            vec![Some(self.cpu.clone())]
        }
    }

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        for (cpu, cell) in [
            ("AMD EPYC", "AMD EPYC"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ] {
            let mut csv = Vec::new();
            Printer::new(&mut csv, Format::Csv)
                .print(&Named { cpu: cpu.into() })
                .unwrap();
            assert_eq!(String::from_utf8(csv).unwrap(), format!("cpu\n{cell}\n"));
        }
    }

    /// The shares and the lists of a partial merge: every digit and every range in CSV and
    /// JSON, rounded and shortened in the table only.
    #[test]
    fn partial_merges_keep_every_digit_and_range_off_the_table() {
        let ranges: Vec<String> = (0..40)
            .map(|i| format!("{}-{}", 3 * i, 3 * i + 1))
            .collect();
        let sums = Sums {
            n: 12,
            complete: false,
            solutions: 100,
            unique: None,
            method: Method::Search,
            kernel: "avx2",
            symmetry: nqueens_engine::Symmetry::Full,
        };
        let agreement = Agreement {
            sums: sums.clone(),
            quorum: 2,
            runs: 2,
            sources: 2,
            parts: 120,
            parts_agreed: 40,
            cost_agreed: 0.333_332_233_347_118_87,
            lacking: ranges.join(" "),
        };
        let coverage = Coverage {
            sums,
            shards: 100,
            shards_merged: 60,
            parts: 120,
            parts_merged: 40,
            cost_merged: 0.333_332_233_347_118_87,
            missing: ranges.join(" "),
        };
        for cells in [agreement.cells(), coverage.cells()] {
            let last = cells.len() - 1;
            assert_eq!(cells[last - 1].as_deref(), Some("0.33333223334711887"));
            assert_eq!(cells[last].as_deref(), Some(ranges.join(" ").as_str()));
        }
        let (csv, json) = both(&agreement);
        assert_eq!(csv, json);
        let (csv, json) = both(&coverage);
        assert_eq!(csv, json);
        let table = agreement.table();
        assert_eq!(table[table.len() - 2].as_deref(), Some("0.333332"));
        let shown = table[table.len() - 1].clone().unwrap();
        assert!(shown.ends_with("57-58 and 20 more"), "{shown}");
    }

    #[test]
    fn counts_past_u64_are_printed_exactly() {
        let mut c = count(4, &Options::default()).unwrap();
        c.solutions = (1u128 << 70) + 1;
        let mut csv = Vec::new();
        Printer::new(&mut csv, Format::Csv).print(&c).unwrap();
        assert!(
            String::from_utf8(csv)
                .unwrap()
                .contains(",1180591620717411303425,")
        );
    }
}
