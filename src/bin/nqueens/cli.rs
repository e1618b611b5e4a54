//! The command line: clap derive structs (their doc comments are the help), the parsers of
//! their values, and where flags become the library's options.

use std::num::NonZeroUsize;
use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use nqueens_engine::run::quorum::MAX_QUORUM;
use nqueens_engine::run::shard::Shard;
use nqueens_engine::types::MAX_THREADS;
use nqueens_engine::{
    Counts, DEFAULT_SPLIT_DEPTH, Error, Kernel, MAX_N, Method, Options, Plan, Symmetry, published,
};

use crate::output::Format;
use crate::progress::When;

/// Exact counts of N-Queens solutions, on every core.
#[derive(Debug, Parser)]
#[command(
    name = "nqueens",
    version = version(),
    about,
    propagate_version = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour on standard error: auto colours a terminal where NO_COLOR is unset or empty
    #[arg(long, global = true, value_enum, ignore_case = true, value_name = "WHEN", default_value_t = Colour::Auto)]
    pub color: Colour,
}

/// When messages on standard error are coloured (`--color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Colour {
    /// On a terminal, where NO_COLOR is unset or empty
    Auto,
    /// Always, even off a terminal
    Always,
    /// Never
    Never,
}

impl Colour {
    /// The `--color` given in `args` (the last one, as clap takes it), before they are parsed:
    /// clap's own errors are coloured by it too. A value that is not one is left to clap.
    pub fn among(args: &[std::ffi::OsString]) -> Colour {
        let mut colour = Colour::Auto;
        let mut next = false;
        for arg in args.iter().skip(1) {
            let Some(arg) = arg.to_str() else {
                next = false;
                continue;
            };
            if arg == "--" {
                break;
            }
            let value = if next {
                Some(arg)
            } else {
                arg.strip_prefix("--color=")
            };
            next = arg == "--color";
            if let Some(v) = value.and_then(|v| <Colour as clap::ValueEnum>::from_str(v, true).ok())
            {
                colour = v;
            }
        }
        colour
    }

    /// Whether standard error is coloured.
    pub fn on(self) -> bool {
        use std::io::IsTerminal;
        match self {
            Colour::Always => true,
            Colour::Never => false,
            Colour::Auto => {
                std::io::stderr().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }

    /// clap's colour for its own help and errors.
    pub fn clap(self) -> clap::ColorChoice {
        match self {
            Colour::Auto => clap::ColorChoice::Auto,
            Colour::Always => clap::ColorChoice::Always,
            Colour::Never => clap::ColorChoice::Never,
        }
    }
}

/// What `--version` prints after the name: the package's version, and the commit it was
/// built from where the build names one (`NQUEENS_COMMIT`, set by the build script in a git
/// checkout): `0.1.0 (abc1234)`.
fn version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| version_text(env!("CARGO_PKG_VERSION"), option_env!("NQUEENS_COMMIT")))
}

/// `version`, with `commit` in brackets where there is one.
fn version_text(version: &str, commit: Option<&str>) -> String {
    match commit.map(str::trim).filter(|c| !c.is_empty()) {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the solutions of one or more board sizes
    Count(CountArgs),
    /// Count n = 0..=M and check each against the published values
    ///
    /// Counts every board from 0 to M as `count` does and compares each with the published
    /// OEIS values; exits 1 on a mismatch.
    Verify(VerifyArgs),
    /// Write the solutions of a board, in lexicographic order of their columns
    Solve(SolveArgs),
    /// Add up shard results and print the counts
    ///
    /// Adds up shard results (from `count --shard I/K --output FILE`) and prints the counts,
    /// with elapsed_s the longest shard's.
    Merge(MergeArgs),
    /// Predict what counting a board costs on this machine
    ///
    /// Predicts thread-hours, wall time, memory and the longest of K shards from a timed
    /// sample of the board's parts.
    Estimate(EstimateArgs),
    /// Rate this machine on a fixed workload, 1 thread to all
    ///
    /// Runs a fixed, versioned workload (boards counted by both methods) at 1 thread and at
    /// every thread count up to the machine's, with solutions per second, speed-up and
    /// efficiency, and each count checked against the published values (exit 1 on a
    /// difference). The score of a thread count is the geometric mean of its boards'
    /// solutions per second; scores compare across machines under the same workload name.
    Bench(BenchArgs),
    /// Write a shell completion script to stdout
    ///
    /// Writes a shell completion script to stdout, e.g. `nqueens completions bash`.
    Completions(CompletionsArgs),
    /// Write the man page (roff) to stdout
    ///
    /// Writes the man page (roff; every subcommand and option) to stdout:
    /// `nqueens man > nqueens.1`.
    Man,
}

impl Command {
    /// Whether the command prints its result on stdout (a shard writes its file instead).
    pub fn prints(&self) -> bool {
        match self {
            Command::Count(args) => args.long.shard.is_none(),
            _ => true,
        }
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The quick workload (two boards, a few seconds) instead of the benchmark (five boards,
    /// about a minute on 2 idle cores)
    #[arg(long)]
    pub quick: bool,
    /// The most threads: the sweep runs 1, 2, 4, ... below T, and T [default: the number of
    /// logical CPUs]
    #[arg(short = 'j', long, value_name = "T", value_parser = threads(), allow_negative_numbers = true)]
    pub threads: Option<NonZeroUsize>,
    /// Runs of each board at each thread count; the median time is reported
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = whole(1..=100, "").map(to_usize), allow_negative_numbers = true)]
    pub runs: usize,
    /// Counting loop (the search's, and the join's matcher): auto picks AVX-512 where the CPU
    /// has it
    #[arg(long, value_parser = choice(&Kernel::ALL, Kernel::name, Kernel::about), default_value_t = Kernel::Auto)]
    pub kernel: Kernel,
    /// Output format
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard result files, one per shard 0..K, and folders: every `*.json` file in one (not
    /// below, names starting with `.` left out) is a shard result
    #[arg(required_unless_present = "list", value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Also the shard results named in LIST, one path per line (`-`: standard input; at
    /// most 4096 bytes a line): for more files than a command line holds
    #[arg(long, value_name = "LIST")]
    pub list: Vec<PathBuf>,
    /// Sum the shards there are, even if some are missing: say how much of the plan they
    /// cover and which shards are missing, as ranges (a running job's progress); each shard
    /// present is still checked whole
    #[arg(long)]
    pub partial: bool,
    /// Output format
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Table)]
    pub format: Format,
    /// Recount about P% of the subproblems (at least one), picked at random, with the other
    /// counting loop where there is one, and fail on any difference
    #[arg(long, value_name = "P", value_parser = parse_percent, allow_negative_numbers = true)]
    pub audit: Option<f64>,
    /// Seed of the audit's random pick (printed with the audit), to repeat it
    #[arg(long, value_name = "S", requires = "audit", value_parser = whole(0..=u64::MAX, ""), allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// The files hold K independent runs' results of one plan (shard folders counted on
    /// different hosts, in any slicing): accept a part only where runs of K sources (a
    /// folder, or a --list file) counted it alike, and name every part whose copies
    /// disagree. One source's runs are one vote; copies of one run's file count once
    #[arg(long, value_name = "K", value_parser = whole(1..=MAX_QUORUM as u64, "").map(to_usize), allow_negative_numbers = true)]
    pub quorum: Option<usize>,
    /// Worker threads, 1 to 1024, the command's only ones (planning and the audit)
    /// [default: the number of logical CPUs, at most 1024]
    #[arg(short = 'j', long, value_name = "T", value_parser = threads(), allow_negative_numbers = true)]
    pub threads: Option<NonZeroUsize>,
}

/// Flags for runs that last hours.
#[derive(Debug, Args)]
pub struct LongRunArgs {
    /// Progress on stderr, weighted by estimated cost: auto shows it on a terminal
    #[arg(long, value_enum, ignore_case = true, default_value_t = When::Auto)]
    pub progress: When,
    /// Record each finished subproblem in FILE and resume from it when run again (one board size)
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Count only part I of K disjoint, cost-balanced parts (0 <= I < K; one board size)
    #[arg(long, value_name = "I/K", value_parser = parse_shard, requires = "output", allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// Where --shard writes its partial counts (JSON, for `nqueens merge`)
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub output: Option<PathBuf>,
    /// Recount N of the parts a resumed checkpoint holds, picked at random, and refuse the
    /// checkpoint if one differs from its record (0: trust it)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = whole(0..=u64::MAX, AUDIT_NOTE).map(to_usize), allow_negative_numbers = true)]
    pub audit: usize,
}

/// How `solve` writes each solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BoardFormat {
    /// N lines of 'Q' and '.', a blank line between solutions
    Board,
    /// One JSON array of solutions, each an array of N strings
    Leetcode,
    /// One line per solution: the 0-based column of the queen in each row
    Columns,
    /// JSON Lines: {"n":4,"columns":[1,3,0,2]}
    Json,
    /// One SVG picture of every solution listed (with --unique, one per class; --limit K, the
    /// first K): a grid of numbered boards, for a slide or a page; at most 10000 boards
    Svg,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Board size (0 <= N <= 32)
    #[arg(value_name = "N", value_parser = parse_one_size, allow_negative_numbers = true)]
    pub n: u32,
    /// Output format
    #[arg(long, value_enum, ignore_case = true, default_value_t = BoardFormat::Board)]
    pub format: BoardFormat,
    /// Stop after the first K solutions in order (up to 1000 are searched by the scalar loop
    /// on one thread, which stops at the last one wanted)
    #[arg(long, value_name = "K", value_parser = whole(0..=u64::MAX, ""), allow_negative_numbers = true)]
    pub limit: Option<u64>,
    /// One solution per symmetry class: the lexicographically smallest of its eight images
    #[arg(long)]
    pub unique: bool,
    /// Worker threads, 1 to 1024, the command's only ones [default: the number of logical CPUs,
    /// at most 1024]
    #[arg(short = 'j', long, value_name = "T", value_parser = threads(), allow_negative_numbers = true)]
    pub threads: Option<NonZeroUsize>,
    /// Search loop: auto picks AVX-512 where the CPU has it (all list the same solutions)
    #[arg(long, value_parser = choice(&Kernel::ALL, Kernel::name, Kernel::about), default_value_t = Kernel::Auto)]
    pub kernel: Kernel,
}

/// Flags shared by every command that counts.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Worker threads, 1 to 1024, the command's only ones [default: the number of logical CPUs,
    /// at most 1024]
    #[arg(short = 'j', long, value_name = "T", value_parser = threads(), allow_negative_numbers = true)]
    pub threads: Option<NonZeroUsize>,
    /// Rows placed before the search's work is split into subproblems (0: as 1, run on one
    /// thread); the join does not use it: its parts are its keys [default: 2]
    #[arg(long, value_name = "K", value_parser = whole(0..=u64::from(MAX_N), " (at most the board size)").map(to_usize), allow_negative_numbers = true)]
    pub split_depth: Option<usize>,
    /// Symmetry used to cut the work
    #[arg(long, value_parser = choice(&Symmetry::ALL, Symmetry::name, Symmetry::about), default_value_t = Symmetry::Full)]
    pub symmetry: Symmetry,
    /// Output format
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Table)]
    pub format: Format,
    /// Counting loop: auto picks AVX-512 where the CPU has it (all give the same counts)
    #[arg(long, value_parser = choice(&Kernel::ALL, Kernel::name, Kernel::about), default_value_t = Kernel::Auto)]
    pub kernel: Kernel,
    /// How the board is counted (all give the same counts)
    #[arg(long, value_parser = choice(&Method::ALL, Method::name, Method::about), default_value_t = Method::Auto)]
    pub method: Method,
    /// Memory the join may use, all threads together (its pieces, then its tables): bytes, or
    /// with a unit: K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), KB, MB, GB, TB (powers
    /// of 1000), at most the machine's or its cgroup's memory [default: 2G, or 128M per
    /// thread where that is more, at most half of the machine's or its cgroup's memory]
    #[arg(long, value_name = "SIZE", value_parser = parse_memory_here, allow_hyphen_values = true)]
    pub memory: Option<usize>,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// Board sizes: N, or inclusive ranges A-B (0 <= N <= 32), e.g. `8 10 12` or `1-12`
    #[arg(required = true, value_name = "N", value_parser = parse_sizes, allow_negative_numbers = true)]
    pub sizes: Vec<RangeInclusive<u32>>,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub long: LongRunArgs,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Board size (0..=32)
    #[arg(value_name = "N", value_parser = whole(0..=u64::from(MAX_N), "").map(to_u32), allow_negative_numbers = true)]
    pub n: u32,
    /// Also predict the longest of K shards (`count --shard I/K`), each on this machine's
    /// threads
    #[arg(long, value_name = "K", value_parser = whole(1..=1 << 24, "").map(to_usize), allow_negative_numbers = true)]
    pub shards: Option<usize>,
    /// Parts to count at most (one of each stratum in any case); by default `--seconds`
    /// decides
    #[arg(long, value_name = "S", default_value_t = nqueens_engine::run::estimate::Settings::default().samples, value_parser = whole(1..=1 << 20, "").map(to_usize), allow_negative_numbers = true)]
    pub samples: usize,
    /// Sample for at most this many seconds, the parts' costs included: then no part starts
    /// and the parts still counting are abandoned and left out. Sampling over a
    /// minute evens out the machine's changes of speed, which a second's sample takes for
    /// the whole run's; at n = 26 and 27 a part takes minutes on one thread
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Seed of the random pick of parts (the same seed picks the same parts)
    #[arg(long, value_name = "S", default_value_t = 0x5eed, value_parser = whole(0..=u64::MAX, ""), allow_negative_numbers = true)]
    pub seed: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub gpu: crate::gpu::GpuArgs,
}

/// The longest `estimate --seconds` (about 32 years): a bound, not a wish.
const MAX_SECONDS: f64 = 1e9;

fn parse_seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|t| *t > 0.0 && *t <= MAX_SECONDS)
        .ok_or_else(|| format!("the seconds must be a number above 0 and at most {MAX_SECONDS}"))
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Largest board size to check (0..=27, the published range)
    #[arg(long, value_name = "M", default_value_t = 14, value_parser = whole(0..=PUBLISHED_MAX, " (the published values)").map(to_u32), allow_negative_numbers = true)]
    pub max_n: u32,
    /// Progress on stderr for each board, as `count` shows it: auto shows it on a terminal
    #[arg(long, value_enum, ignore_case = true, default_value_t = When::Auto)]
    pub progress: When,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The units of `--memory`, as GNU coreutils reads them (`sort -S`, `head -c`): a bare letter
/// and the `iB` forms are powers of 1024, the `B` forms powers of 1000; any case.
const MEMORY_UNITS: [(&str, u64); 14] = [
    ("", 1),
    ("B", 1),
    ("K", 1 << 10),
    ("KIB", 1 << 10),
    ("KB", 1_000),
    ("M", 1 << 20),
    ("MIB", 1 << 20),
    ("MB", 1_000_000),
    ("G", 1 << 30),
    ("GIB", 1 << 30),
    ("GB", 1_000_000_000),
    ("T", 1 << 40),
    ("TIB", 1 << 40),
    ("TB", 1_000_000_000_000),
];

/// The largest `--memory`: 1 PiB.
const MAX_MEMORY: u64 = 1 << 50;

fn parse_memory(s: &str) -> Result<usize, String> {
    let bad = || {
        format!(
            "'{s}' is not a size from 1 byte to 1 PiB: expected bytes, or a number with a unit: \
             K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), KB, MB, GB, TB (powers of 1000), \
             e.g. 512M, 2GiB, 1.5G, 2GB"
        )
    };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim().to_ascii_uppercase());
    let scale = MEMORY_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, scale)| scale)
        .ok_or_else(bad)?;
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return Err(bad());
    }
    let bytes = number.parse::<f64>().map_err(|_| bad())? * scale as f64;
    if !(1.0..=MAX_MEMORY as f64).contains(&bytes) {
        return Err(bad());
    }
    Ok(bytes as usize)
}

/// [`parse_memory`], refusing more than this machine (or its cgroup) holds, where Linux says:
/// a join could never take it, and a typo such as `999T` for `999M` would go unseen.
fn parse_memory_here(s: &str) -> Result<usize, String> {
    let bytes = parse_memory(s)?;
    match nqueens_engine::run::machine_memory() {
        Some(machine) if bytes > machine => Err(format!(
            "{} is more than this machine's memory: at most {} (the least of its memory and \
             its cgroup's limit)",
            nqueens_engine::types::size_text(bytes),
            nqueens_engine::types::size_text(machine),
        )),
        _ => Ok(bytes),
    }
}

fn parse_percent(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p) && *p > 0.0)
        .ok_or_else(|| "the audit share must be a percentage above 0 and at most 100".to_string())
}

/// `I/K`, as the other numbers are read: no spaces inside or around.
fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("'{s}' is not a shard: expected I/K with whole numbers 0 <= I < K");
    let (i, k) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        i.parse::<usize>().map_err(|_| bad())?,
        k.parse::<usize>().map_err(|_| bad())?,
    );
    if index >= count {
        return Err(match count {
            0 => bad(),
            _ => format!(
                "'{s}' is not a shard: shards count from 0, so the {count} shards are 0/{count} .. {}/{count}",
                count - 1
            ),
        });
    }
    Ok(Shard { index, count })
}

fn parse_size(s: &str) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(v) => in_range(v),
        Err(_) => Err(format!(
            "'{s}' is not a board size: expected a whole number N or a range A-B, with 0 <= N <= {MAX_N}"
        )),
    }
}

/// A board size read as a number, refused past [`MAX_N`] or below 0.
fn in_range(v: i64) -> Result<u32, String> {
    u32::try_from(v)
        .ok()
        .filter(|&n| n <= MAX_N)
        .ok_or_else(|| format!("board size {v} is out of range: N must be between 0 and {MAX_N}"))
}

/// One board size `N`, where a range is not taken (`solve` lists one board).
fn parse_one_size(s: &str) -> Result<u32, String> {
    parse_size(s).map_err(|e| {
        if parse_sizes(s).is_ok() {
            format!("'{s}' is a range: solve lists one board size N (0 <= N <= {MAX_N}); count takes ranges")
        } else if e.contains("range A-B") {
            format!("'{s}' is not a board size: expected a whole number N, with 0 <= N <= {MAX_N}")
        } else {
            e
        }
    })
}

/// `N` or `A-B` (inclusive, `A <= B`).
fn parse_sizes(s: &str) -> Result<RangeInclusive<u32>, String> {
    // A leading '-' is a sign (a negative size), not a range separator. Byte offsets come
    // from char_indices, so any text (not only ASCII) is cut on a character boundary.
    match s
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '-')
        .map(|(i, _)| i)
    {
        None => parse_size(s).map(|n| n..=n),
        Some(i) => {
            // Each end a whole number, else the range as given is named, with its form.
            let end = |t: &str| {
                t.trim().parse::<i64>().map_err(|_| {
                    format!(
                        "'{s}' is not a range of board sizes: expected A-B, whole numbers with 0 <= A <= B <= {MAX_N}, e.g. 8-12"
                    )
                })
            };
            let (a, b) = (end(&s[..i])?, end(&s[i + 1..])?);
            let (a, b) = (in_range(a)?, in_range(b)?);
            if a > b {
                return Err(format!(
                    "the range {a}-{b} is reversed: write it as {b}-{a}"
                ));
            }
            Ok(a..=b)
        }
    }
}

/// A whole number in a range, read by clap's ranged parser: any value refused (not a
/// number, or out of the range) is named with the argument and the range, and `note`.
#[derive(Clone)]
struct Whole {
    range: RangeInclusive<u64>,
    note: &'static str,
}

/// [`Whole`] over `range`.
fn whole(range: RangeInclusive<u64>, note: &'static str) -> Whole {
    Whole { range, note }
}

impl TypedValueParser for Whole {
    type Value = u64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<u64, clap::Error> {
        let ranged = clap::value_parser!(u64).range(self.range.clone());
        ranged.parse_ref(cmd, arg, value).map_err(|_| {
            let name = arg.map_or_else(|| "...".to_string(), ToString::to_string);
            let (low, high) = (self.range.start(), self.range.end());
            let message = format!(
                "invalid value '{}' for '{name}': expected a whole number from {low} to {high}{}\n",
                value.to_string_lossy(),
                self.note
            );
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, message).with_cmd(cmd)
        })
    }
}

/// `-j`: a thread count from 1 to [`MAX_THREADS`].
fn threads() -> impl TypedValueParser<Value = NonZeroUsize> {
    whole(1..=MAX_THREADS as u64, "")
        .map(|t| NonZeroUsize::new(to_usize(t)).unwrap_or(NonZeroUsize::MIN))
}

/// A whole number read within a range that fits (the ranges above are at most `usize`'s).
fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// A whole number read within a range that fits a `u32` (board sizes).
fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The largest `verify --max-n`: the last board of the published tables.
const PUBLISHED_MAX: u64 = published::A000170.len() as u64 - 1;

/// What `count --audit` takes, beside `merge --audit`'s percentage.
const AUDIT_NOTE: &str =
    ": the checkpoint's parts to recount, 0 (trust them) or more; merge --audit takes a percentage";

/// The value parser of a choice of the library's ([`Symmetry`], [`Kernel`]): its names, each
/// with its line of help.
fn choice<T>(
    values: &'static [T],
    name: fn(T) -> &'static str,
    about: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + std::str::FromStr<Err = String> + 'static,
{
    let values = values
        .iter()
        .map(move |&v| PossibleValue::new(name(v)).help(about(v)));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<T>())
}

/// The flags of a command that counts (`count`, `verify`, `estimate`), turned once into the
/// library's [`Options`], with what only the command line needs beside them.
pub struct Counting {
    /// The library's options; `split_depth` is `--split-depth` where it was given.
    pub options: Options,
    /// Output format.
    pub format: Format,
}

impl EngineArgs {
    /// `--memory`, or its default for these threads ([`nqueens_engine::run::default_memory`]).
    pub fn memory(&self) -> usize {
        self.memory.unwrap_or_else(|| {
            let threads = nqueens_engine::run::worker_threads(self.threads).unwrap_or(1);
            nqueens_engine::run::default_memory(threads)
        })
    }

    /// The flags as the library's options, for boards up to `largest`: a `--split-depth`
    /// deeper than every board asked for is refused.
    pub fn counting(&self, largest: u32) -> Result<Counting, Error> {
        if let Some(depth) = self.split_depth
            && depth > largest as usize
        {
            return Err(Error::SplitDepth { depth, n: largest });
        }
        Ok(Counting {
            options: Options {
                threads: self.threads,
                split_depth: self.split_depth,
                symmetry: self.symmetry,
                kernel: self.kernel,
                method: self.method,
                memory: self.memory(),
            },
            format: self.format,
        })
    }
}

impl Counting {
    /// The options where a GPU counts too (`gpu`): the join, which is what a GPU counts,
    /// where no method was asked for (a search is refused), and `--memory` less the GPU's
    /// buffers ([`crate::gpu::share`]).
    pub fn with_gpu(mut self, gpu: bool) -> anyhow::Result<Counting> {
        if !gpu {
            return Ok(self);
        }
        self.options.method = match self.options.method {
            Method::Auto | Method::Join => Method::Join,
            Method::Search => anyhow::bail!(
                "--gpu counts the join's keys, and --method search has none: leave --method out or give --method join"
            ),
        };
        self.options.memory -= crate::gpu::share(self.options.memory);
        Ok(self)
    }

    /// The split depth of an `n`-board: the one asked for (or the default), at most `n`:
    /// one `--split-depth` serves every board of a range.
    pub fn split_depth(&self, n: u32) -> usize {
        self.options
            .split_depth
            .unwrap_or(DEFAULT_SPLIT_DEPTH)
            .min(n as usize)
    }

    /// Refuses what the flags alone rule out for any of `sizes`, before the threads start
    /// (`-j 4096` takes seconds to start) or a plan is built.
    pub fn precheck(&self, sizes: impl IntoIterator<Item = u32>) -> Result<(), Error> {
        let o = &self.options;
        let threads = nqueens_engine::run::worker_threads(o.threads)?;
        for n in sizes {
            let depth = self.split_depth(n);
            Plan::precheck(n, o.symmetry, depth, o.method, o.memory, threads)?;
            // A depth asked for is the search's, checked even where the join counts (it is
            // then unused, and a count of days would end with a note that it was).
            if self.options.split_depth.is_some() {
                Plan::check_split_depth(n, o.symmetry, depth)?;
            }
        }
        Ok(())
    }
}

/// Says once, on stderr, that an explicit `--split-depth` was not used: the join counted a
/// board (its parts are its keys at any depth), and the output reports no split depth.
pub struct UnusedDepth {
    asked: Option<usize>,
    said: bool,
}

impl UnusedDepth {
    pub fn new(counting: &Counting) -> UnusedDepth {
        UnusedDepth {
            asked: counting.options.split_depth,
            said: false,
        }
    }

    /// Notes `counts` (once per command) if the depth was asked for and the join counted.
    pub fn check(&mut self, counts: &Counts) {
        if let Some(depth) = self.asked
            && counts.split_depth.is_none()
            && !std::mem::replace(&mut self.said, true)
        {
            eprintln!(
                "note: --split-depth {depth} is not used where the join counts (n = {} here): its parts are its keys; --method search splits at that depth",
                counts.n
            );
        }
    }
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
    fn the_version_names_the_commit_built_from() {
        assert_eq!(version_text("0.1.0", Some("abc1234")), "0.1.0 (abc1234)");
        assert_eq!(version_text("0.1.0", None), "0.1.0");
        assert_eq!(version_text("0.1.0", Some("")), "0.1.0");
        let shown = Cli::command().render_version();
        assert_eq!(shown, format!("nqueens {}\n", version()));
        assert!(shown.starts_with(concat!("nqueens ", env!("CARGO_PKG_VERSION"))));
        assert_eq!(
            shown.contains(" ("),
            option_env!("NQUEENS_COMMIT").is_some_and(|c| !c.trim().is_empty())
        );
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
        assert_eq!(
            parse_sizes("8-").unwrap_err(),
            "'8-' is not a range of board sizes: expected A-B, whole numbers with 0 <= A <= B <= 32, e.g. 8-12"
        );
        assert!(parse_sizes("-8").unwrap_err().contains("between 0 and 32"));
        assert!(parse_sizes("8-40").unwrap_err().contains("board size 40"));
        assert!(
            parse_sizes("x-3")
                .unwrap_err()
                .contains("'x-3' is not a range")
        );
        assert!(parse_sizes("").is_err());
        for text in ["é", "1é", "é-3", "3-é", "-", "--", "1--2", "٣"] {
            assert!(parse_sizes(text).is_err(), "{text}");
        }
    }

    #[test]
    fn shards_are_read_without_spaces_as_threads_are() {
        assert_eq!(parse_shard("0/4"), Ok(Shard { index: 0, count: 4 }));
        let last = parse_shard("4/4").unwrap_err();
        assert!(
            last.contains("shards count from 0") && last.contains("0/4 .. 3/4"),
            "{last}"
        );
        for text in ["0/ 4", "0 /4", " 0/4", "0/4 ", "0/0", "-1/4", "0/", "0"] {
            let err = parse_shard(text).unwrap_err();
            assert!(err.contains("expected I/K"), "{text}: {err}");
        }
    }

    #[test]
    fn memory_sizes_parse_with_units() {
        assert_eq!(parse_memory("2G"), Ok(2 << 30));
        assert_eq!(parse_memory("2GiB"), Ok(2 << 30));
        assert_eq!(parse_memory("2gib"), Ok(2 << 30));
        assert_eq!(parse_memory("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_memory("2 GB"), Ok(2_000_000_000));
        assert_eq!(parse_memory("512m"), Ok(512 << 20));
        assert_eq!(parse_memory("512MiB"), Ok(512 << 20));
        assert_eq!(parse_memory("512MB"), Ok(512_000_000));
        assert_eq!(parse_memory("64K"), Ok(64 << 10));
        assert_eq!(parse_memory("64kB"), Ok(64_000));
        assert_eq!(parse_memory("1.5G"), Ok(3 << 29));
        assert_eq!(parse_memory("1T"), Ok(1 << 40));
        assert_eq!(parse_memory("1TB"), Ok(1_000_000_000_000));
        assert_eq!(parse_memory("4096"), Ok(4096));
        assert_eq!(parse_memory("4096B"), Ok(4096));
        assert_eq!(parse_memory("1024T"), Ok(1 << 50));
        for bad in [
            "", "G", "2X", "2GG", "2iB", "-1G", "0", "0.5", ".5G", "5.G", "1e3", "inf", "é",
            "1025T", "2P",
        ] {
            let err = parse_memory(bad).unwrap_err();
            assert!(err.contains("from 1 byte to 1 PiB"), "{bad}: {err}");
        }
    }
}
