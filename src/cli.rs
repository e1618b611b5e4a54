//! The command line: clap derive structs (their doc comments are the help) and dispatch.

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use crate::checkpoint::{self, Checkpoint, Shard, ShardResult};
use crate::engine::{Plan, Tally};
use crate::output::{Check, Format, Printer};
use crate::progress::{Progress, When};
use crate::{Counts, Kernel, MAX_N, Options, Symmetry, published};

/// Exact counts of N-Queens solutions, on every core.
#[derive(Debug, Parser)]
#[command(name = "nqueens", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the solutions of one or more board sizes.
    Count(CountArgs),
    /// Count n = 0..=M and compare each with the published OEIS values; exit 1 on a mismatch.
    Verify(VerifyArgs),
    /// Write the solutions of a board, in lexicographic order of their columns.
    Solve(SolveArgs),
    /// Add up shard results (from `count --shard I/K --output FILE`) and print the counts.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// Shard result files, one per shard 0..K
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Flags for runs that last hours.
#[derive(Debug, Args)]
struct LongRunArgs {
    /// Progress on stderr, weighted by estimated cost: auto shows it on a terminal
    #[arg(long, value_enum, default_value_t = When::Auto)]
    progress: When,
    /// Record each finished subproblem in FILE and resume from it when run again (one board size)
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Count only part I of K disjoint, cost-balanced parts (0 <= I < K; one board size)
    #[arg(long, value_name = "I/K", value_parser = parse_shard, requires = "output")]
    shard: Option<Shard>,
    /// Where --shard writes its partial counts (JSON, for `nqueens merge`)
    #[arg(long, value_name = "FILE", requires = "shard")]
    output: Option<PathBuf>,
}

/// How `solve` writes each solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BoardFormat {
    /// N lines of 'Q' and '.', a blank line between solutions
    Board,
    /// One JSON array of solutions, each an array of N strings
    Leetcode,
    /// One line per solution: the 0-based column of the queen in each row
    Columns,
    /// JSON Lines: {"n":4,"columns":[1,3,0,2]}
    Json,
}

#[derive(Debug, Args)]
struct SolveArgs {
    /// Board size (0 <= N <= 32)
    #[arg(value_name = "N", value_parser = parse_size, allow_negative_numbers = true)]
    n: u32,
    /// Output format
    #[arg(long, value_enum, default_value_t = BoardFormat::Board)]
    format: BoardFormat,
    /// Stop after the first K solutions in order
    #[arg(long, value_name = "K", value_parser = parse_limit, allow_negative_numbers = true)]
    limit: Option<u64>,
    /// One solution per symmetry class: the lexicographically smallest of its eight images
    #[arg(long)]
    unique: bool,
    /// Worker threads [default: the number of logical CPUs]
    #[arg(short = 'j', long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<NonZeroUsize>,
    /// Search loop: auto picks AVX-512 where the CPU has it (all list the same solutions)
    #[arg(long, value_enum, default_value_t = Kernel::Auto)]
    kernel: Kernel,
}

/// Flags shared by every command that counts.
#[derive(Debug, Args)]
struct EngineArgs {
    /// Worker threads [default: the number of logical CPUs]
    #[arg(short = 'j', long, value_name = "T", value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<NonZeroUsize>,
    /// Rows placed before the work is split into subproblems (0: one sequential task)
    #[arg(long, value_name = "K", value_parser = parse_split_depth, allow_negative_numbers = true)]
    split_depth: Option<usize>,
    /// Symmetry used to cut the work
    #[arg(long, value_enum, default_value_t = Symmetry::Full)]
    symmetry: Symmetry,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Counting loop: auto picks AVX-512 where the CPU has it (all give the same counts)
    #[arg(long, value_enum, default_value_t = Kernel::Auto)]
    kernel: Kernel,
}

#[derive(Debug, Args)]
struct CountArgs {
    /// Board sizes: N, or inclusive ranges A-B (0 <= N <= 32), e.g. `8 10 12` or `1-12`
    #[arg(required = true, value_name = "N", value_parser = parse_sizes, allow_negative_numbers = true)]
    sizes: Vec<RangeInclusive<u32>>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    long: LongRunArgs,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// Largest board size to check (0..=27, the published range)
    #[arg(long, value_name = "M", default_value_t = 14, value_parser = parse_max_n, allow_negative_numbers = true)]
    max_n: u32,
    #[command(flatten)]
    engine: EngineArgs,
}

const MAX_THREADS: usize = 4096;

fn parse_threads(s: &str) -> Result<NonZeroUsize, String> {
    s.parse::<usize>()
        .ok()
        .and_then(NonZeroUsize::new)
        .filter(|t| t.get() <= MAX_THREADS)
        .ok_or_else(|| format!("the thread count must be a whole number from 1 to {MAX_THREADS}"))
}

fn parse_split_depth(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&d| d <= MAX_N as usize)
        .ok_or_else(|| {
            format!(
                "the split depth must be a whole number from 0 to the board size (at most {MAX_N})"
            )
        })
}

fn parse_limit(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| format!("the limit must be a whole number from 0 to {}", u64::MAX))
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("'{s}' is not a shard: expected I/K with whole numbers 0 <= I < K");
    let (i, k) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        i.trim().parse::<usize>().map_err(|_| bad())?,
        k.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if index >= count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

fn parse_max_n(s: &str) -> Result<u32, String> {
    let last = published::A000170.len() - 1;
    s.parse::<u32>()
        .ok()
        .filter(|&m| m as usize <= last)
        .ok_or_else(|| {
            format!("--max-n must be a whole number from 0 to {last} (the published values)")
        })
}

fn parse_size(s: &str) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(v) if (0..=i64::from(MAX_N)).contains(&v) => Ok(v as u32),
        Ok(v) => Err(format!(
            "board size {v} is out of range: N must be between 0 and {MAX_N}"
        )),
        Err(_) => Err(format!(
            "'{s}' is not a board size: expected a whole number N or a range A-B, with 0 <= N <= {MAX_N}"
        )),
    }
}

/// `N` or `A-B` (inclusive, `A <= B`).
fn parse_sizes(s: &str) -> Result<RangeInclusive<u32>, String> {
    // A leading '-' is a sign (a negative size), not a range separator.
    match s[1.min(s.len())..].find('-').map(|i| i + 1) {
        None => parse_size(s).map(|n| n..=n),
        Some(i) => {
            let (a, b) = (parse_size(&s[..i])?, parse_size(&s[i + 1..])?);
            if a > b {
                return Err(format!(
                    "the range {a}-{b} is reversed: write it as {b}-{a}"
                ));
            }
            Ok(a..=b)
        }
    }
}

/// Options for one board: an explicit split depth is kept (the caller has checked it against
/// the largest board), the default is capped at the board size.
fn options_for(n: u32, engine: &EngineArgs) -> Options {
    Options {
        threads: engine.threads,
        split_depth: engine
            .split_depth
            .unwrap_or(crate::DEFAULT_SPLIT_DEPTH)
            .min(n as usize),
        symmetry: engine.symmetry,
        kernel: engine.kernel,
    }
}

/// Refuses a split depth deeper than every requested board.
fn check_split_depth(engine: &EngineArgs, largest: u32) -> Result<(), crate::Error> {
    match engine.split_depth {
        Some(depth) if depth > largest as usize => {
            Err(crate::Error::SplitDepth { depth, n: largest })
        }
        _ => Ok(()),
    }
}

/// What went wrong, and the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 2.
    Usage(anyhow::Error),
    /// A check failed or the work could not be done: exit 1.
    Failed(anyhow::Error),
    /// Results disagree with the published values: exit 1, already reported.
    Mismatch,
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Failed(e.into())
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Count(args) => count(args),
        Command::Verify(args) => verify(args),
        Command::Solve(args) => solve(args),
        Command::Merge(args) => merge(args),
    }
}

fn pool(engine: &EngineArgs) -> Result<rayon::ThreadPool, Failure> {
    engine
        .kernel
        .resolve()
        .map_err(|e| Failure::Usage(e.into()))?;
    let threads = Options {
        threads: engine.threads,
        ..Options::default()
    }
    .thread_count();
    crate::engine::pool(threads).map_err(|e| Failure::Failed(e.into()))
}

fn count(args: CountArgs) -> Result<(), Failure> {
    let largest = args.sizes.iter().map(|r| *r.end()).max().unwrap_or(0);
    check_split_depth(&args.engine, largest).map_err(|e| Failure::Usage(e.into()))?;
    let single = args.sizes.len() == 1 && args.sizes[0].start() == args.sizes[0].end();
    if !single && (args.long.checkpoint.is_some() || args.long.shard.is_some()) {
        return Err(Failure::Usage(anyhow::anyhow!(
            "--checkpoint and --shard take a single board size N"
        )));
    }
    let pool = pool(&args.engine)?;
    let mut out = Printer::new(io::stdout().lock(), args.engine.format);
    for n in args.sizes.iter().cloned().flatten() {
        if let Some(counts) = long_count(n, &options_for(n, &args.engine), &pool, &args.long)? {
            out.print(&counts)?;
        }
    }
    Ok(())
}

/// Test hook: abort the process (as a crash would) once this many results are synced to
/// the checkpoint.
const ABORT_AFTER: &str = "NQUEENS_TEST_ABORT_AFTER";

/// Counts one board with progress, checkpoint and shard as asked; `None` for a shard, whose
/// partial counts go to its output file.
fn long_count(
    n: u32,
    options: &Options,
    pool: &rayon::ThreadPool,
    long: &LongRunArgs,
) -> Result<Option<Counts>, Failure> {
    let failed = |e: anyhow::Error| Failure::Failed(e);
    let start = Instant::now();
    let plan = Plan::new(n, options.symmetry, options.split_depth).with_kernel(options.kernel);
    let shows = match long.progress {
        When::Always => true,
        When::Auto => io::stderr().is_terminal(),
        When::Never => false,
    };
    let selected: Vec<usize> = match long.shard {
        Some(shard) => checkpoint::shard_tasks(plan.costs(), shard),
        None => (0..plan.tasks.len()).collect(),
    };
    let (saved, done) = match &long.checkpoint {
        Some(path) => {
            let (c, done) = Checkpoint::open(path, &plan, long.shard).map_err(failed)?;
            (Some(Arc::new(c)), done)
        }
        None => (None, HashMap::new()),
    };
    let prior = done.values().fold(Tally::default(), |a, &b| a + b);
    let (already, todo): (Vec<usize>, Vec<usize>) =
        selected.iter().partition(|i| done.contains_key(i));
    let progress = match shows {
        true => Progress::new(
            long.progress,
            format!("n={n}"),
            plan.costs().to_vec(),
            &selected,
            &already,
        ),
        false => None,
    };
    if let Some(c) = &saved {
        let c = Arc::clone(c);
        let _ = ctrlc::set_handler(move || {
            let kept = c.flush().unwrap_or(0);
            let _ = writeln!(
                io::stderr(),
                "interrupted: {kept} more subproblem results saved in {}; run the same command again to resume",
                c.path().display()
            );
            std::process::exit(130);
        });
    }
    let abort_after: Option<usize> = std::env::var(ABORT_AFTER).ok().and_then(|v| v.parse().ok());
    let write_error = Mutex::new(None);
    let finished = AtomicUsize::new(0);
    let work = || {
        plan.run(pool, &todo, &|i, tally| {
            if let Some(c) = &saved {
                if let Err(e) = c.record(i, tally) {
                    write_error
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                }
                if abort_after.is_some_and(|k| finished.fetch_add(1, Ordering::SeqCst) + 1 >= k) {
                    let _ = c.flush();
                    std::process::abort();
                }
            }
            if let Some(p) = &progress {
                p.task_done(i);
            }
        })
    };
    let tally = match &progress {
        Some(p) => p.around(Duration::from_secs(2), work),
        None => work(),
    };
    if let Some(p) = &progress {
        p.finish();
    }
    if let Some(c) = &saved {
        c.flush().map_err(failed)?;
    }
    if let Some(e) = write_error.into_inner().unwrap_or(None) {
        return Err(failed(e));
    }
    let total = prior + tally;
    let (threads, elapsed) = (pool.current_num_threads(), start.elapsed().as_secs_f64());
    match (long.shard, &long.output) {
        (Some(shard), Some(path)) => {
            let result = ShardResult::new(&plan, shard, selected.len(), total, threads, elapsed);
            result.write(path).map_err(failed)?;
            let _ = writeln!(
                io::stderr(),
                "shard {shard}: {} of {} subproblems counted; partial counts written to {}",
                selected.len(),
                plan.tasks.len(),
                path.display()
            );
            Ok(None)
        }
        _ => Ok(Some(Counts::from_tally(
            n,
            options,
            total,
            threads,
            plan.subproblems(),
            elapsed,
        ))),
    }
}

fn merge(args: MergeArgs) -> Result<(), Failure> {
    let (config, tally, threads, elapsed) =
        checkpoint::merge(&args.files).map_err(Failure::Failed)?;
    let options = Options {
        threads: None,
        split_depth: config.split_depth,
        symmetry: config.symmetry,
        kernel: crate::Kernel::Auto,
    };
    let subproblems = if config.split_depth == 0 {
        1
    } else {
        config.tasks as u64
    };
    let counts = Counts::from_tally(config.n, &options, tally, threads, subproblems, elapsed);
    Printer::new(io::stdout().lock(), args.format).print(&counts)?;
    Ok(())
}

fn verify(args: VerifyArgs) -> Result<(), Failure> {
    check_split_depth(&args.engine, args.max_n).map_err(|e| Failure::Usage(e.into()))?;
    let pool = pool(&args.engine)?;
    let mut out = Printer::new(io::stdout().lock(), args.engine.format);
    let mut bad = Vec::new();
    for n in 0..=args.max_n {
        let counts = crate::count_in(n, &options_for(n, &args.engine), &pool);
        let published = published::all(n).expect("--max-n is within the published table");
        let check = Check::of(&counts, published, published::fundamental(n));
        if !check.ok {
            bad.push(n);
        }
        out.print(&check)?;
    }
    if bad.is_empty() {
        return Ok(());
    }
    let _ = writeln!(
        io::stderr(),
        "error: counts differ from the published values for n = {bad:?}"
    );
    Err(Failure::Mismatch)
}

fn solve(args: SolveArgs) -> Result<(), Failure> {
    use crate::board;
    // One instance per format, so each renderer is inlined into the search. Separators lead
    // each record; the first record's is dropped.
    match args.format {
        BoardFormat::Board => write_solutions(&args, with_lead(b'\n', board::board), (b"", b"")),
        BoardFormat::Leetcode => {
            write_solutions(&args, with_lead(b',', board::leetcode), (b"[", b"]\n"))
        }
        BoardFormat::Columns => write_solutions(&args, board::columns, (b"", b"")),
        BoardFormat::Json => write_solutions(&args, board::json, (b"", b"")),
    }
}

/// A renderer that writes `lead` before each record.
fn with_lead(lead: u8, render: fn(&[u8], &mut Vec<u8>)) -> impl Fn(&[u8], &mut Vec<u8>) + Sync {
    move |cols, out| {
        out.push(lead);
        render(cols, out)
    }
}

/// Writes every solution with `render` between `open` and `close` (from `frame`); when the
/// renderer leads each record with a separator, the first one is dropped.
fn write_solutions<R>(args: &SolveArgs, render: R, frame: (&[u8], &[u8])) -> Result<(), Failure>
where
    R: Fn(&[u8], &mut Vec<u8>) + Sync,
{
    use std::ops::ControlFlow;

    let (open, close) = frame;
    let leads = matches!(args.format, BoardFormat::Board | BoardFormat::Leetcode);
    args.kernel
        .resolve()
        .map_err(|e| Failure::Usage(e.into()))?;
    let options = crate::list::ListOptions {
        threads: args.threads,
        unique: args.unique,
        limit: args.limit,
        kernel: args.kernel,
    };
    let mut out = io::stdout().lock();
    out.write_all(open)?;
    let mut first = true;
    let mut failed = None;
    crate::list::render(args.n, &options, render, |run| {
        let mut bytes = run.bytes();
        if first && leads && !run.is_empty() {
            bytes = &bytes[1..];
        }
        first &= run.is_empty();
        match out.write_all(bytes) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    })
    .map_err(|e| Failure::Failed(e.into()))?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    out.write_all(close)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_parse_as_numbers_and_ranges() {
        assert_eq!(parse_sizes("8"), Ok(8..=8));
        assert_eq!(parse_sizes("1-12"), Ok(1..=12));
        assert_eq!(parse_sizes("0-0"), Ok(0..=0));
        assert!(parse_sizes("12-8").unwrap_err().contains("reversed"));
        assert!(parse_sizes("-3").unwrap_err().contains("between 0 and 32"));
        assert!(parse_sizes("33").unwrap_err().contains("between 0 and 32"));
        assert!(parse_sizes("x").unwrap_err().contains("not a board size"));
        assert!(parse_sizes("3-").unwrap_err().contains("not a board size"));
        assert!(parse_sizes("").is_err());
    }
}
