//! The types every other module shares: what to count ([`Options`], [`Symmetry`],
//! [`Kernel`]), what a count gives ([`Tally`], [`Counts`]) and why it can fail ([`Error`]).
//!
//! A leaf: it depends on no other module of the crate.

use std::num::NonZeroUsize;

use serde::{Deserialize, Serialize};

/// Largest board the engine handles: one bit per column in a `u32`.
pub const MAX_N: u32 = 32;

/// The most subproblems a plan holds (about 200 MB of them): a deeper split is refused
/// before it is built rather than exhaust memory.
pub const MAX_SUBPROBLEMS: usize = 1 << 22;

/// The most worker threads a command starts (`-j`): rayon's idle workers look for work in
/// every other worker's queue before they sleep, so a pool's start costs the square of its
/// threads where they outnumber the CPUs. 1024 covers the largest nodes of today (2 x 192
/// cores with SMT is 768 CPUs) and keeps a start on 2 CPUs to seconds.
pub const MAX_THREADS: usize = 1024;

/// Default number of rows placed before the work is split into subproblems, where they
/// are searched.
pub const DEFAULT_SPLIT_DEPTH: usize = 2;

/// How much of the square's symmetry the search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Symmetry {
    /// Search every column of the first row.
    None,
    /// Search the left half of the first row and count each solution with its mirror image.
    Mirror,
    /// Search one border constellation per class of the eight symmetries of the square;
    /// also counts fundamental solutions.
    Full,
}

impl Symmetry {
    /// Every mode, in the order the command line lists them.
    pub const ALL: [Symmetry; 3] = [Symmetry::None, Symmetry::Mirror, Symmetry::Full];

    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Mirror => "mirror",
            Symmetry::Full => "full",
        }
    }

    /// One line on what the mode does (the command line's help).
    pub fn about(self) -> &'static str {
        match self {
            Symmetry::None => "Search every column of the first row",
            Symmetry::Mirror => {
                "Search the left half of the first row; each solution counts with its mirror image"
            }
            Symmetry::Full => {
                "One border constellation per class of the square's eight symmetries; also counts fundamental solutions"
            }
        }
    }
}

/// Which counting loop runs the subproblems.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// AVX-512 where the CPU has it, else AVX2, else scalar.
    #[default]
    Auto,
    /// The scalar loop, on any CPU.
    Scalar,
    /// Sixteen subtrees in AVX-512 lanes (an error where the CPU lacks AVX-512F).
    Avx512,
    /// Eight subtrees in AVX2 lanes (an error where the CPU lacks AVX2).
    Avx2,
}

impl Kernel {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [Kernel; 4] = [Kernel::Auto, Kernel::Scalar, Kernel::Avx512, Kernel::Avx2];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Scalar => "scalar",
            Kernel::Avx512 => "avx512",
            Kernel::Avx2 => "avx2",
        }
    }

    /// One line on what the choice runs (the command line's help).
    pub fn about(self) -> &'static str {
        match self {
            Kernel::Auto => "AVX-512 where the CPU has it, else AVX2, else the scalar loop",
            Kernel::Scalar => "The scalar loop, on any CPU",
            Kernel::Avx512 => "Sixteen subtrees in AVX-512 lanes (an error where the CPU lacks it)",
            Kernel::Avx2 => "Eight subtrees in AVX2 lanes (an error where the CPU lacks it)",
        }
    }
}

/// How each subproblem is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// `join` where it is faster (n = 10 to 27, results/zen4/2026-11-22-vertical-cut-join/)
    /// and at 28, where the search cannot finish (results/zen3/2026-11-26-search-bound/);
    /// `search` otherwise.
    #[default]
    Auto,
    /// Backtracking to the leaves, in the counting loop the kernel picks.
    Search,
    /// The board is cut into a left and a right half, whose placements are built per key
    /// (the rows of the left half's queens) and matched by diagonals (see `join/`).
    Join,
}

impl Method {
    /// Every choice, in the order the command line lists them.
    pub const ALL: [Method; 3] = [Method::Auto, Method::Search, Method::Join];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Search => "search",
            Method::Join => "join",
        }
    }

    /// One line on what the choice does (the command line's help).
    pub fn about(self) -> &'static str {
        match self {
            Method::Auto => {
                "join from n = 10 to 28 (measured faster to 27; at 28 the search cannot finish), search otherwise"
            }
            Method::Search => "Backtracking to the leaves in the loop --kernel picks",
            Method::Join => {
                "Cut the board down the middle; build each half's placements per key and count the pairs that share no diagonal"
            }
        }
    }
}

/// Largest board the join handles (`--method join`): the published range and n = 28, the
/// first board nobody has counted (10 million keys; `estimate 28 --method join` projects it).
/// Beyond, its plans would hold tens of millions of keys (C(n, n/2) row sets) and each key's
/// half-boards hours of work; the search handles them.
pub const MAX_CUT_N: u32 = 28;

/// Default memory budget of a run (all threads together), in bytes: 2 GiB.
pub const DEFAULT_MEMORY: usize = 2 << 30;

macro_rules! named {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<$t, String> {
                <$t>::ALL
                    .into_iter()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| {
                        let names: Vec<&str> = <$t>::ALL.iter().map(|v| v.name()).collect();
                        format!("'{s}' is not one of {}", names.join(", "))
                    })
            }
        }
    };
}
named!(Symmetry);
named!(Kernel);
named!(Method);

/// How to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Worker threads; `None` means one per logical CPU.
    pub threads: Option<NonZeroUsize>,
    /// Rows placed before the search's work is split into independent subproblems; `None`
    /// places [`DEFAULT_SPLIT_DEPTH`] rows, fewer on a smaller board, and a depth given is
    /// an error where it exceeds the board ([`Options::split_depth_for`]). In full mode the
    /// first level is the border constellation and each further level fills the next free
    /// row. Depths 0 and 1 cut the same subproblems (one per root); at 0 they run one after
    /// another on one thread and the count reports one subproblem. The join cuts a board
    /// into its keys at any depth.
    pub split_depth: Option<usize>,
    /// Which symmetries cut the work.
    pub symmetry: Symmetry,
    /// Which counting loop runs (every loop gives the same counts).
    pub kernel: Kernel,
    /// How each subproblem is counted (every method gives the same counts).
    pub method: Method,
    /// Bytes the run may use, all threads together (the join keeps within it).
    pub memory: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: None,
            split_depth: None,
            symmetry: Symmetry::Full,
            kernel: Kernel::Auto,
            method: Method::Auto,
            memory: DEFAULT_MEMORY,
        }
    }
}

impl Options {
    /// The split depth of an `n`-board: the one given, refused where it exceeds `n`, or
    /// [`DEFAULT_SPLIT_DEPTH`] at most `n` (a board past [`MAX_N`] is refused).
    pub fn split_depth_for(&self, n: u32) -> Result<usize, Error> {
        if n > MAX_N {
            return Err(Error::BoardSize(n.into()));
        }
        match self.split_depth {
            None => Ok(DEFAULT_SPLIT_DEPTH.min(n as usize)),
            Some(depth) if depth > n as usize => Err(Error::SplitDepth { depth, n }),
            Some(depth) => Ok(depth),
        }
    }
}

/// Sums over subproblems: solutions, and eight times the fundamental solutions in full mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// All solutions.
    pub solutions: u128,
    /// Eight times the fundamental solutions (meaningful in full mode only).
    pub unique8: u128,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            solutions: self.solutions + o.solutions,
            unique8: self.unique8 + o.unique8,
        }
    }
}

/// The two primes [`Residues`] are taken modulo.
pub const RESIDUE_PRIMES: [u128; 2] = [65_521, 65_519];

/// A tally's solutions and `unique8` modulo two small primes ([`RESIDUE_PRIMES`]): files
/// carry them beside the exact counts, and sums of residues are added modulo the primes,
/// apart from the `u128` sums, so that a total or a record changed without them (even with
/// its checksum recomputed) no longer agrees with them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residues(pub [u32; 4]);

impl Residues {
    /// The residues of one tally.
    pub fn of(t: Tally) -> Residues {
        let [p, q] = RESIDUE_PRIMES;
        Residues(
            [
                t.solutions % p,
                t.solutions % q,
                t.unique8 % p,
                t.unique8 % q,
            ]
            .map(|r| r as u32),
        )
    }
}

impl std::ops::Add for Residues {
    type Output = Residues;
    fn add(self, o: Residues) -> Residues {
        let [p, q] = RESIDUE_PRIMES;
        let m = [p, q, p, q];
        Residues(std::array::from_fn(|i| {
            ((u128::from(self.0[i]) + u128::from(o.0[i])) % m[i]) as u32
        }))
    }
}

impl std::iter::Sum for Residues {
    fn sum<I: Iterator<Item = Residues>>(iter: I) -> Residues {
        iter.fold(Residues::default(), |a, b| a + b)
    }
}

impl std::iter::Sum for Tally {
    fn sum<I: Iterator<Item = Tally>>(iter: I) -> Tally {
        iter.fold(Tally::default(), |a, b| a + b)
    }
}

/// The counts of one board and how they were obtained.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Counts {
    /// Board size.
    pub n: u32,
    /// Number of solutions (OEIS A000170), exact.
    pub solutions: u128,
    /// Number of fundamental solutions, up to rotation and reflection (OEIS A002562);
    /// counted in full mode only (`null` in JSON otherwise).
    pub unique: Option<u128>,
    /// How the board was counted: `search` or `join` (`auto` resolved for the board).
    pub method: Method,
    /// The counting loop that made the counts, resolved for the CPU: `scalar`, `avx2` or
    /// `avx512` (the join's matcher follows it too); `"mixed"` in JSON where shards counted
    /// with different loops were merged, `null` where this run counted no part (see
    /// [`Loops`]).
    pub kernel: Loops,
    /// Worker threads this run counted on (1 where a search at split depth 0 ran on one
    /// thread); `None` (`null` in JSON) where it counted no part.
    pub threads: Option<usize>,
    /// Rows placed before the search's split; `None` (`null` in JSON) where the join ran,
    /// which cuts the board into its keys at any depth.
    pub split_depth: Option<usize>,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Number of independent subproblems the work was cut into.
    pub subproblems: u64,
    /// Wall-clock seconds for the count.
    pub elapsed_s: f64,
    /// The GPU adapter that counted keys beside the CPU (`--gpu`), by its driver's name;
    /// with it `gpu_parts` (the parts this run counted on it) and `cpu_parts` (the rest:
    /// counted on the CPU or resumed), which sum to `subproblems`. All three are left out
    /// of the JSON where no GPU was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<&'static str>,
    /// The parts this run counted on the GPU, where one was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_parts: Option<u64>,
    /// The other parts, where a GPU was used: counted on the CPU, or resumed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_parts: Option<u64>,
}

/// The name of a kernel, or `mixed` where shards ran different ones.
pub fn kernel_name(kernel: Option<Kernel>) -> &'static str {
    kernel.map_or("mixed", Kernel::name)
}

/// Which counting loop made a result's counts ([`Counts::kernel`]).
///
/// A checkpoint's records hold counts, not the loop or threads that made them, so a run
/// that only resumes finished parts names neither: it says it counted nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loops {
    /// Every part this run counted ran this loop (resolved for the CPU, never `Auto`).
    One(Kernel),
    /// Shards counted with different loops were merged.
    Mixed,
    /// This run counted no part: every one came from a checkpoint.
    Resumed,
}

impl Loops {
    /// The loop's name, `mixed`, or `None` where this run counted nothing.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Loops::One(kernel) => Some(kernel.name()),
            Loops::Mixed => Some("mixed"),
            Loops::Resumed => None,
        }
    }
}

impl From<Kernel> for Loops {
    fn from(kernel: Kernel) -> Loops {
        Loops::One(kernel)
    }
}

/// `None` stands for shards counted with different loops ([`kernel_name`]'s `mixed`).
impl From<Option<Kernel>> for Loops {
    fn from(kernel: Option<Kernel>) -> Loops {
        kernel.map_or(Loops::Mixed, Loops::One)
    }
}

/// The loop's name, `"mixed"`, or `null` where this run counted nothing.
impl Serialize for Loops {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.name().serialize(s)
    }
}

/// Why a count could not be made. The messages name values in the library's terms (a split
/// depth, a kernel, a memory budget); the command line adds the flag that gave each.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The board is larger than the engine handles.
    #[error("board size {0} is out of range: N must be between 0 and {MAX_N}")]
    BoardSize(u64),
    /// The split depth exceeds the board.
    #[error("split depth {depth} is more than n = {n} allows: the depth must be from 0 to {n}")]
    SplitDepth {
        /// Requested depth.
        depth: usize,
        /// Board size.
        n: u32,
    },
    /// A SIMD kernel was asked for on a CPU without its instructions.
    #[error(
        "kernel {asked}: this CPU lacks its instructions; it has {}",
        kernel_list(has)
    )]
    Kernel {
        /// The kernel asked for.
        asked: Kernel,
        /// The kernels this CPU has, widest first, then `auto`.
        has: Vec<Kernel>,
    },
    /// The split depth cuts the board into more subproblems than a plan holds.
    #[error(
        "split depth {depth} cuts the n = {n} board into more than {limit} subproblems: a smaller depth cuts fewer"
    )]
    TooManySubproblems {
        /// Requested depth.
        depth: usize,
        /// Board size.
        n: u32,
        /// The most subproblems a plan holds ([`MAX_SUBPROBLEMS`]).
        limit: usize,
    },
    /// The split depth is so near the board's size that cutting it is a search of its own.
    #[error(
        "split depth {depth} is too deep for n = {n}: cutting the board there places more than {limit} queens before any subproblem is counted (its subproblems are nearly solutions): a smaller depth cuts it sooner"
    )]
    SplitTooDeep {
        /// Requested depth.
        depth: usize,
        /// Board size.
        n: u32,
        /// [`crate::run::plan::MAX_CUT_PLACEMENTS`].
        limit: u64,
    },
    /// The parts an estimate must sample are too large to count.
    #[error(
        "n = {n} at split depth {depth}: the parts a sample must count search about {nodes:.1e} nodes (Knuth's estimate from random walks down their trees), more than {seconds} s on {threads} threads even at 10^10 nodes a second: too long to sample; a deeper split depth cuts smaller parts"
    )]
    TooLongToSample {
        /// Board size.
        n: u32,
        /// Split depth.
        depth: usize,
        /// The nodes the sample must search at least.
        nodes: u128,
        /// The most seconds the sample may need at the fastest rate.
        seconds: u64,
        /// The threads it would run on.
        threads: usize,
    },
    /// Not one part of some stratum finished within the sampling's bound.
    #[error(
        "n = {n}: {sampled} parts finished within {seconds} s, too few to cover the parts' costs (a part of a large board takes minutes on one thread): a longer sampling covers them"
    )]
    TooFewSamples {
        /// Board size.
        n: u32,
        /// The bound the sampling had, as given.
        seconds: String,
        /// Parts that finished within it.
        sampled: usize,
    },
    /// A search's parts were not all costed within the sampling's bound, so none was sampled.
    #[error(
        "n = {n}: the search's {parts} parts could not be costed within {seconds} s (four levels below each: 40 s on 2 threads at n = 26): a longer sampling costs them"
    )]
    Uncosted {
        /// Board size.
        n: u32,
        /// The bound the sampling had, as given.
        seconds: String,
        /// The plan's parts.
        parts: usize,
    },
    /// More shards were asked for than the plan has subproblems.
    #[error(
        "shard {index}/{count}: the plan has {subproblems} subproblems, so at most {subproblems} shards (a deeper split depth cuts more)"
    )]
    Shards {
        /// The shard asked for.
        index: usize,
        /// The number of parts asked for.
        count: usize,
        /// Subproblems in the plan.
        subproblems: usize,
    },
    /// The join cannot keep within the memory budget.
    #[error(
        "the join over n = {n} needs at least {} with these threads, more than the {} allowed: a larger budget, fewer threads or the search fits",
        size_text(*need),
        size_text(*limit)
    )]
    Memory {
        /// Board size.
        n: u32,
        /// Bytes needed at least.
        need: usize,
        /// Bytes allowed.
        limit: usize,
    },
    /// The join was asked for on a board larger than it handles.
    #[error(
        "the join handles n up to {max}, not {0} (its pieces and keys outgrow memory beyond): the search counts it",
        max = MAX_CUT_N
    )]
    JoinSize(u32),
    /// More worker threads were asked for than a command starts.
    #[error("{0} threads: the thread count must be from 1 to {max}", max = MAX_THREADS)]
    Threads(usize),
    /// The thread pool could not be started.
    #[error("could not start the worker threads: {0}")]
    ThreadPool(String),
    /// A run was stopped before every part was counted ([`crate::Run::execute_until`]).
    #[error("stopped after {finished} of {parts} parts: the count is incomplete")]
    Stopped {
        /// Parts counted, those resumed included.
        finished: usize,
        /// Parts the run was to count.
        parts: usize,
    },
}

/// A number of bytes for people: bytes below a KiB, else KiB, MiB, GiB or TiB with three
/// significant figures at most (`1.5 GiB`, `512 MiB`).
pub fn size_text(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} bytes"),
        _ if value >= 100.0 || value.fract() == 0.0 => format!("{value:.0} {}", UNITS[unit]),
        _ if value >= 10.0 => format!("{value:.1} {}", UNITS[unit]),
        _ => format!("{value:.2} {}", UNITS[unit]),
    }
}

/// Checks a board size and split depth before any work starts.
pub fn validate(n: u32, split_depth: usize) -> Result<(), Error> {
    if n > MAX_N {
        return Err(Error::BoardSize(n.into()));
    }
    if split_depth > n as usize {
        return Err(Error::SplitDepth {
            depth: split_depth,
            n,
        });
    }
    Ok(())
}

/// `a, b or c`.
fn kernel_list(kernels: &[Kernel]) -> String {
    let names: Vec<String> = kernels.iter().map(|k| k.to_string()).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}
