//! Exact counts of N-Queens solutions, on every core.
//!
//! The first rows of the board are split into independent subproblems whose bitmask
//! backtracking rayon work-steals across threads; symmetry cuts the work (the mirror image
//! on the first row halves it, the eight symmetries of the square cut it to about an
//! eighth) and the per-subproblem counts are reduced, exactly, into totals. Where the CPU
//! has AVX-512, sixteen subtrees at a time are searched in lockstep in SIMD lanes
//! ([`simd`]); the scalar loop ([`kernel`]) runs everywhere and gives the same counts.
//!
//! ```
//! use nqueens::{count, Options, Symmetry};
//!
//! // Full symmetry is the default: totals and fundamental solutions.
//! let counts = count(8, &Options::default()).unwrap();
//! assert_eq!((counts.solutions, counts.unique), (92, Some(12)));
//!
//! let mirror = count(10, &Options { symmetry: Symmetry::Mirror, ..Options::default() }).unwrap();
//! assert_eq!((mirror.solutions, mirror.unique), (724, None));
//! ```

use std::num::NonZeroUsize;
use std::time::Instant;

use serde::Serialize;

pub mod board;
pub mod checkpoint;
pub mod cli;
pub mod engine;
pub mod kernel;
pub mod list;
pub mod output;
pub mod progress;
pub mod published;
pub mod simd;
pub mod split;
pub mod symmetry;

pub use kernel::MAX_N;

/// How much of the square's symmetry the search uses.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, clap::ValueEnum,
)]
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
    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Mirror => "mirror",
            Symmetry::Full => "full",
        }
    }
}

impl std::fmt::Display for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which counting loop runs the subproblems.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// AVX-512 where the CPU has it, scalar otherwise.
    #[default]
    Auto,
    /// The scalar loop, on any CPU.
    Scalar,
    /// Sixteen subtrees in AVX-512 lanes (an error where the CPU lacks AVX-512F).
    Avx512,
}

impl Kernel {
    /// The loop that will actually run: `Auto` resolved for this CPU.
    pub fn resolve(self) -> Result<Kernel, Error> {
        match self {
            Kernel::Auto if simd::available() => Ok(Kernel::Avx512),
            Kernel::Auto => Ok(Kernel::Scalar),
            Kernel::Avx512 if !simd::available() => Err(Error::Kernel),
            k => Ok(k),
        }
    }
}

/// Default number of rows placed before the work is split.
pub const DEFAULT_SPLIT_DEPTH: usize = 2;

/// How to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Worker threads; `None` means one per logical CPU.
    pub threads: Option<NonZeroUsize>,
    /// Rows placed before the work is split into independent subproblems (0: one
    /// sequential task). In full mode the first level is the border constellation and each
    /// further level fills the next free row. At most `n`.
    pub split_depth: usize,
    /// Which symmetries cut the work.
    pub symmetry: Symmetry,
    /// Which counting loop runs (every loop gives the same counts).
    pub kernel: Kernel,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: None,
            split_depth: DEFAULT_SPLIT_DEPTH,
            symmetry: Symmetry::Full,
            kernel: Kernel::Auto,
        }
    }
}

impl Options {
    /// The number of worker threads these options ask for.
    pub fn thread_count(&self) -> NonZeroUsize {
        self.threads
            .unwrap_or_else(|| NonZeroUsize::new(num_cpus::get()).unwrap_or(NonZeroUsize::MIN))
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
    /// Worker threads used.
    pub threads: usize,
    /// Rows placed before the split.
    pub split_depth: usize,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Number of independent subproblems the work was cut into.
    pub subproblems: u64,
    /// Wall-clock seconds for the count.
    pub elapsed_s: f64,
}

/// Why a count could not be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The board is larger than the engine handles.
    #[error("board size {0} is out of range: N must be between 0 and {MAX_N}")]
    BoardSize(u64),
    /// The split depth exceeds the board.
    #[error("--split-depth {depth} is larger than the board (N = {n}): allowed 0..={n}")]
    SplitDepth {
        /// Requested depth.
        depth: usize,
        /// Board size.
        n: u32,
    },
    /// The AVX-512 kernel was asked for on a CPU without it.
    #[error("--kernel avx512: this CPU lacks AVX-512F; use --kernel scalar or auto")]
    Kernel,
    /// The thread pool could not be started.
    #[error("--threads: could not start the worker threads: {0}")]
    ThreadPool(String),
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

/// Counts the solutions of the `n`-queens problem.
///
/// Errors when `n > 32`, when the split depth exceeds `n`, or when the worker threads
/// cannot be started.
pub fn count(n: u32, options: &Options) -> Result<Counts, Error> {
    validate(n, options.split_depth)?;
    options.kernel.resolve()?;
    let threads = options.thread_count();
    let pool = engine::pool(threads)?;
    Ok(count_in(n, options, &pool))
}

/// [`count`] on an existing pool (whose size is reported as the thread count).
/// The caller has validated `n` and the split depth with [`validate`]; a kernel this CPU
/// cannot run falls back to the scalar one.
pub fn count_in(n: u32, options: &Options, pool: &rayon::ThreadPool) -> Counts {
    let start = Instant::now();
    let plan =
        engine::Plan::new(n, options.symmetry, options.split_depth).with_kernel(options.kernel);
    let all: Vec<usize> = (0..plan.tasks.len()).collect();
    let (tally, subproblems) = (plan.run(pool, &all, &|_, _| {}), plan.subproblems());
    Counts::from_tally(
        n,
        options,
        tally,
        pool.current_num_threads(),
        subproblems,
        start.elapsed().as_secs_f64(),
    )
}

impl Counts {
    /// The counts of a finished board from its summed tally.
    pub fn from_tally(
        n: u32,
        options: &Options,
        tally: engine::Tally,
        threads: usize,
        subproblems: u64,
        elapsed_s: f64,
    ) -> Counts {
        let unique = (options.symmetry == Symmetry::Full).then(|| {
            debug_assert_eq!(tally.unique8 % 8, 0, "Burnside sums are multiples of 8");
            tally.unique8 / 8
        });
        Counts {
            n,
            solutions: tally.solutions,
            unique,
            threads,
            split_depth: options.split_depth,
            symmetry: options.symmetry,
            subproblems,
            elapsed_s,
        }
    }
}
