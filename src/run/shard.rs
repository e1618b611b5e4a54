//! Shards: a plan's subproblems dealt into `K` disjoint, cost-balanced parts that separate
//! runs (a cluster's array tasks) count, and the merge that adds their results up.
//!
//! A **shard result** is one JSON object: the configuration, which part `I/K` of the
//! subproblems it covers, the host and run that counted it, its partial counts and a BLAKE3
//! digest of all that, written whole or not at all through [`crate::run::durable::Output`].
//! `merge` adds shard results up after checking that they are complete, distinct, of one
//! configuration and untouched, reading each once, as untrusted input: its size bounded
//! ([`MAX_SHARD_BYTES`]), its fields range-checked and its sums checked. The audit's sample
//! is picked as the files are read and recounted from that one reading.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::run::durable::{
    self, CHECKPOINT_FORMAT, FileError, Output, SHARD_FORMAT, SHARD_VERSION, Written,
};
use crate::run::plan::{Config, Plan};
use crate::run::{Engine, Outcome, Run};
use crate::types::{
    Error, Kernel, Loops, MAX_SUBPROBLEMS, MAX_THREADS, Method, Residues, Symmetry, Tally,
};

/// Part `index` of `count` disjoint parts of a plan's subproblems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which part, `0..count`.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// Refuses more parts than `plan` has subproblems (each part must hold one at least).
    pub fn check(self, plan: &Plan) -> Result<(), Error> {
        let subproblems = plan.len();
        if self.count > subproblems {
            return Err(Error::Shards {
                index: self.index,
                count: self.count,
                subproblems,
            });
        }
        Ok(())
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The subproblems of shard `shard`, in increasing order: those [`deal`] gives its part.
pub fn subproblems_of(costs: &[u64], shard: Shard) -> Vec<usize> {
    let parts = deal(costs, shard.count);
    (0..costs.len())
        .filter(|&i| parts[i] == shard.index)
        .collect()
}

/// The part (of `count`) that each subproblem belongs to: the plan's subproblems dealt,
/// costliest first, each to the part with the least estimated cost so far (ties to the
/// lower part), so parts take about the same time. Deterministic for a given plan.
///
/// The parts are kept in a heap by `(load, part)`, so dealing `P` subproblems into `K`
/// parts takes `O(P log P)` to order them and `O(P log K)` to deal them.
pub fn deal(costs: &[u64], count: usize) -> Vec<usize> {
    let order = cost_order(costs);
    deal_in_order(costs, &order, count)
        .into_iter()
        .map(|s| s as usize)
        .collect()
}

/// The subproblems costliest first (ties in increasing order): the order [`deal`] deals
/// them in, for [`deal_in_order`].
pub(crate) fn cost_order(costs: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..costs.len() as u32).collect();
    order.sort_by(|&a, &b| costs[b as usize].cmp(&costs[a as usize]).then(a.cmp(&b)));
    order
}

/// [`deal`], the subproblems' order given (`cost_order(costs)`): a dealing of many shard
/// counts sorts once.
pub(crate) fn deal_in_order(costs: &[u64], order: &[u32], count: usize) -> Vec<u32> {
    let mut parts: BinaryHeap<Reverse<(u128, u32)>> =
        (0..count as u32).map(|p| Reverse((0, p))).collect();
    let mut owner = vec![0; costs.len()];
    for &i in order {
        let Some(Reverse((load, part))) = parts.pop() else {
            break;
        };
        owner[i as usize] = part;
        parts.push(Reverse((load + u128::from(costs[i as usize]), part)));
    }
    owner
}

/// The most bytes a shard result can hold: an entry `[index,solutions,unique8],` (at most
/// 89 bytes with 39-digit counts) for each part of the largest plan
/// ([`MAX_SUBPROBLEMS`]), and 64 KiB for the rest. A larger file is refused unread.
pub const MAX_SHARD_BYTES: u64 = MAX_SUBPROBLEMS as u64 * 96 + (64 << 10);

/// How `merge --audit` recounts a part of a plan counted by `method` with the loop
/// `made_with` (its own file's), on a CPU whose best loop is `best` ([`Kernel::Auto`]
/// resolved here): a
/// joined shard's keys are searched, with `best` (the loop that made a file is a speed
/// choice of its machine, which this one may lack); a searched shard is recounted with the
/// other loop, the scalar one after a SIMD loop (every CPU has it) and `best` after the
/// scalar one, so that a bug in one loop shows as a difference.
pub fn audit_counting(method: Method, made_with: Kernel, best: Kernel) -> (Method, Kernel) {
    match (method, made_with) {
        (Method::Join, _) => (Method::Search, best),
        (_, Kernel::Avx512 | Kernel::Avx2) => (Method::Search, Kernel::Scalar),
        _ => (Method::Search, best),
    }
}

/// The partial counts of one shard: its subproblems each with its counts, and the sums.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardResult {
    /// Always "nqueens-shard".
    pub format: String,
    /// File format version.
    pub version: u32,
    /// What was counted (with the nqueens version and method).
    pub config: Config,
    /// Which part.
    pub shard: Shard,
    /// The CPU's counting loop that ran (an audit recounts with the other one); where a GPU
    /// counted parts too, the loop that built their half-boards.
    pub kernel: Kernel,
    /// The GPU that counted some of the parts (`count --gpu`): the adapter's name; absent
    /// where none did, the file then as it was before there was a GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// The parts that GPU counted, in increasing order, each one of [`ShardResult::subproblems`];
    /// absent where none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_subproblems: Vec<usize>,
    /// The host that counted it ([`durable::host`]).
    pub host: String,
    /// The run (process) that counted it: [`RUN_ID_DIGITS`] random hex digits drawn once per
    /// process ([`run_id`]), so that copies of one run's file count once in a quorum.
    pub run: String,
    /// Each subproblem of this part, in increasing order: `[index, solutions, unique8]`.
    pub subproblems: Vec<(usize, u128, u128)>,
    /// Solutions in this part.
    pub solutions: u128,
    /// Eight times the fundamental solutions in this part (full mode).
    pub unique8: u128,
    /// The part's counts modulo two primes, summed subproblem by subproblem.
    pub residues: Residues,
    /// Worker threads used.
    pub threads: usize,
    /// Seconds this part took (its last run, when resumed).
    pub elapsed_s: f64,
    /// BLAKE3 (64 hex digits) of the object's canonical content: its JSON as this nqueens
    /// writes it (fields in order, no spaces) with this field empty. Read back, the object
    /// is the one written (serde_json's `float_roundtrip` reads `elapsed_s` exactly), so its
    /// JSON, and the digest, are the same; a file laid out otherwise with the same values has
    /// the same content.
    pub digest: String,
}

/// The hex digits of a run id: 128 random bits.
pub const RUN_ID_DIGITS: usize = 32;

/// This process's run id ([`ShardResult::run`]): 128 bits from the system's random source,
/// drawn on first use; where that cannot be read, from the standard library's random
/// hashing keys, the time and the process id.
pub fn run_id() -> &'static str {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        use std::io::Read;
        let mut bits = [0u8; RUN_ID_DIGITS / 2];
        let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bits));
        if read.is_err() {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            for (k, half) in bits.chunks_mut(8).enumerate() {
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(now);
                h.write_u32(std::process::id());
                h.write_usize(k);
                half.copy_from_slice(&h.finish().to_le_bytes());
            }
        }
        bits.iter().map(|b| format!("{b:02x}")).collect()
    })
}

impl ShardResult {
    /// A shard result with its checksum, from each subproblem's counts (in any order).
    pub fn new(
        plan: &Plan,
        shard: Shard,
        kernel: Kernel,
        mut each: Vec<(usize, Tally)>,
        threads: usize,
        elapsed_s: f64,
    ) -> ShardResult {
        each.sort_unstable_by_key(|&(i, _)| i);
        let tally: Tally = each.iter().map(|&(_, t)| t).sum();
        let mut r = ShardResult {
            format: SHARD_FORMAT.into(),
            version: SHARD_VERSION,
            config: plan.config(),
            shard,
            kernel,
            gpu: None,
            gpu_subproblems: Vec::new(),
            host: durable::host().into(),
            run: run_id().into(),
            residues: each.iter().map(|&(_, t)| Residues::of(t)).sum(),
            subproblems: each
                .iter()
                .map(|&(i, t)| (i, t.solutions, t.unique8))
                .collect(),
            solutions: tally.solutions,
            unique8: tally.unique8,
            threads,
            elapsed_s,
            digest: String::new(),
        };
        r.seal();
        r
    }

    /// The result naming the GPU `adapter` as the loop that counted `parts` (increasing, each
    /// one of its subproblems), sealed again.
    pub fn counted_on_gpu(mut self, adapter: &str, parts: Vec<usize>) -> ShardResult {
        self.gpu = Some(adapter.to_string());
        self.gpu_subproblems = parts;
        self.seal();
        self
    }

    /// Sets the digest to the content's: after a change, the file reads as untouched to its
    /// digest alone, which has no key (which is why the residues, `merge --audit` and
    /// `--quorum` exist; the tests forge shards with it).
    pub fn seal(&mut self) {
        self.digest = self.computed_digest();
    }

    /// The part's summed counts.
    pub fn tally(&self) -> Tally {
        Tally {
            solutions: self.solutions,
            unique8: self.unique8,
        }
    }

    /// Each subproblem's index and counts.
    pub fn each(&self) -> impl Iterator<Item = (usize, Tally)> + '_ {
        self.subproblems
            .iter()
            .map(|&(i, solutions, unique8)| (i, Tally { solutions, unique8 }))
    }

    fn computed_digest(&self) -> String {
        let mut blank = self.clone();
        blank.digest.clear();
        blake3::hash(&serde_json::to_vec(&blank).unwrap_or_default())
            .to_hex()
            .to_string()
    }

    /// Writes the result to `out`'s temporary file and syncs it; [`Written::publish`]
    /// then puts it in place (see [`Output`]).
    pub fn write(&self, out: Output) -> Result<Written, FileError> {
        let text = self
            .text()
            .map_err(|e| FileError::invalid(out.path(), e.to_string()))?;
        out.write(&text)
    }

    /// The file's bytes: the JSON object and a newline.
    pub fn text(&self) -> serde_json::Result<Vec<u8>> {
        let mut text = serde_json::to_vec(self)?;
        text.push(b'\n');
        Ok(text)
    }

    /// [`ShardResult::read`] of a file already open (`file`; `path` names it in messages),
    /// such as one opened never through a link.
    pub fn read_open(file: std::fs::File, path: &Path) -> Result<ShardResult, FileError> {
        durable::read_json_from::<ShardResult>(file, path, "shard result", MAX_SHARD_BYTES)?
            .checked(path)
    }

    /// Reads a shard result and checks it: at most [`MAX_SHARD_BYTES`], its checksum, that
    /// this nqueens made it, and that its subproblems, sums and residues agree with each
    /// other and its sums fit the board (`durable::count_limit`).
    pub fn read(path: &Path) -> Result<ShardResult, FileError> {
        /// What every version of a shard result starts with.
        #[derive(Deserialize)]
        struct Head {
            format: String,
            version: u32,
        }
        let e = match durable::read_json::<ShardResult>(path, "shard result", MAX_SHARD_BYTES) {
            Ok(r) => return r.checked(path),
            Err(e) => e,
        };
        if durable::format_of(path).is_some_and(|f| f == CHECKPOINT_FORMAT) {
            return Err(FileError::invalid(
                path,
                "a checkpoint, not a shard result: a merge takes the files a shard's count \
                 writes; a checkpoint is resumed by counting its board again with it",
            ));
        }
        // A result of another version has other fields: read again, for the message only.
        match durable::read_json::<Head>(path, "shard result", MAX_SHARD_BYTES) {
            Ok(h) if h.format == SHARD_FORMAT && h.version != SHARD_VERSION => {
                Err(other_version(path, h.version))
            }
            _ => Err(e),
        }
    }

    /// The checks of [`ShardResult::read`] on a result read from `path`.
    fn checked(self, path: &Path) -> Result<ShardResult, FileError> {
        self.check_kind(path)?;
        self.check_fields(path)?;
        self.check_counts(path)?;
        self.check_gpu(path)?;
        Ok(self)
    }

    /// Checks that the result is a shard result of this format, untouched since its digest
    /// was computed, made by this nqueens.
    fn check_kind(&self, path: &Path) -> Result<(), FileError> {
        let r = self;
        let invalid = |why: String| FileError::invalid(path, why);
        if r.format != SHARD_FORMAT {
            return Err(invalid(format!(
                "not an nqueens shard result (its format is {:?}, not {SHARD_FORMAT:?})",
                r.format
            )));
        }
        if r.version != SHARD_VERSION {
            return Err(other_version(path, r.version));
        }
        if r.digest != r.computed_digest() {
            return Err(invalid(format!(
                "(shard {}): its BLAKE3 digest does not match its content; it was changed or damaged",
                r.shard
            )));
        }
        let this = env!("CARGO_PKG_VERSION");
        if r.config.nqueens != this {
            return Err(invalid(format!(
                "(shard {}) was made by nqueens {}; this is nqueens {this}: merge with the version that made it",
                r.shard, r.config.nqueens
            )));
        }
        Ok(())
    }

    /// Checks that the fields no count depends on hold what a run writes: threads within
    /// [`MAX_THREADS`], a duration, a loop that ran, a host name and a run id as
    /// [`durable::host`] and [`run_id`] make them.
    fn check_fields(&self, path: &Path) -> Result<(), FileError> {
        let r = self;
        let wrong = |why: String| {
            FileError::invalid(path, format!("(shard {}): {why}; it was changed", r.shard))
        };
        if !(1..=MAX_THREADS).contains(&r.threads) {
            return Err(wrong(format!(
                "threads {} is out of range (1 to {MAX_THREADS})",
                r.threads
            )));
        }
        if !(r.elapsed_s.is_finite() && r.elapsed_s >= 0.0) {
            return Err(wrong(format!(
                "elapsed_s {} is no duration (finite, 0 or more)",
                r.elapsed_s
            )));
        }
        if r.kernel == Kernel::Auto {
            return Err(wrong("kernel auto names no loop that ran".into()));
        }
        let named = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
        if !(1..=64).contains(&r.host.len()) || !r.host.chars().all(named) {
            return Err(wrong(format!(
                "host {:?} is no host name as nqueens writes one (1 to 64 letters, digits, '-', '_' or '.')",
                r.host
            )));
        }
        let hex = |c: char| matches!(c, '0'..='9' | 'a'..='f');
        if r.run.len() != RUN_ID_DIGITS || !r.run.chars().all(hex) {
            return Err(wrong(format!(
                "run {:?} is no run id ({RUN_ID_DIGITS} hex digits)",
                r.run
            )));
        }
        Ok(())
    }

    /// Checks that a GPU named is named as an adapter is (1 to 256 characters, none a
    /// control character), and that its parts are in order, each one of the file's, with a
    /// GPU named where there are any.
    fn check_gpu(&self, path: &Path) -> Result<(), FileError> {
        let r = self;
        let wrong = |why: String| {
            FileError::invalid(path, format!("(shard {}): {why}; it was changed", r.shard))
        };
        if let Some(name) = &r.gpu
            && (!(1..=256).contains(&name.chars().count()) || name.chars().any(char::is_control))
        {
            return Err(wrong(format!(
                "gpu {name:?} is no adapter's name (1 to 256 characters, no control character)"
            )));
        }
        if r.gpu.is_none() && !r.gpu_subproblems.is_empty() {
            return Err(wrong("gpu_subproblems without a gpu".into()));
        }
        let increasing = r.gpu_subproblems.windows(2).all(|w| w[0] < w[1]);
        let held = r
            .gpu_subproblems
            .iter()
            .all(|&i| r.subproblems.binary_search_by_key(&i, |e| e.0).is_ok());
        if !(increasing && held) {
            return Err(wrong(
                "gpu_subproblems is out of order or names a subproblem the file does not hold"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Checks that the subproblems are in order, within the plan, and that their sums and
    /// residues agree with the totals and fit the board ([`durable::count_limit`]).
    fn check_counts(&self, path: &Path) -> Result<(), FileError> {
        let r = self;
        let invalid = |why: String| FileError::invalid(path, why);
        let increasing = r.subproblems.windows(2).all(|w| w[0].0 < w[1].0);
        let inside = r.subproblems.iter().all(|e| e.0 < r.config.subproblems);
        if !(increasing && inside) {
            return Err(invalid(format!(
                "(shard {}): its subproblem list is out of order or out of the plan",
                r.shard
            )));
        }
        let limit = durable::count_limit(r.config.n);
        let sum = r
            .each()
            .try_fold(Tally::default(), |sum, (_, t)| durable::add_within(sum, t, limit))
            .ok_or_else(|| {
                invalid(format!(
                    "(shard {}): its subproblems' counts add up to more than an n = {} board has (at most {limit}); it was changed",
                    r.shard, r.config.n
                ))
            })?;
        let residues: Residues = r.each().map(|(_, t)| Residues::of(t)).sum();
        if !(sum == r.tally() && residues == r.residues && Residues::of(sum) == r.residues) {
            return Err(invalid(format!(
                "(shard {}): its sums or residues disagree with its subproblems; it was changed",
                r.shard
            )));
        }
        Ok(())
    }
}

/// Refuses a shard result of format `version`, not [`SHARD_VERSION`]: an older one is
/// counted again (its checks are weaker), a newer one merged by the nqueens that made it.
fn other_version(path: &Path, version: u32) -> FileError {
    let what = if version < SHARD_VERSION {
        "count the shard again with this nqueens"
    } else {
        "merge it with the nqueens that made it"
    };
    FileError::invalid(
        path,
        format!(
            "a shard result of format version {version}; this nqueens reads version {SHARD_VERSION}: {what}"
        ),
    )
}

/// Why shard results could not be merged or an audit failed. Each message names the files
/// concerned.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No file was given.
    #[error("merge needs at least one shard result")]
    NoFiles,
    /// A file could not be read, or is wrong in itself or beside the first.
    #[error(transparent)]
    File(#[from] FileError),
    /// Two files are the same shard.
    #[error("{} and {} are both shard {shard}", first.display(), second.display())]
    Twice {
        /// The file read first.
        first: PathBuf,
        /// The file read second.
        second: PathBuf,
        /// The shard both are.
        shard: Shard,
    },
    /// Shards are missing.
    #[error("missing shard(s) {missing} of {count}")]
    Missing {
        /// The missing shards' indices as ranges, `0-3 7` (the first twenty ranges).
        missing: String,
        /// How many shards there are.
        count: usize,
    },
    /// The shards' plan cannot be rebuilt here.
    #[error("{}: {config}: {error}", path.display())]
    Plan {
        /// The first file.
        path: PathBuf,
        /// Its configuration, in words.
        config: String,
        /// Why the plan cannot be made.
        error: Error,
    },
    /// This nqueens plans the configuration differently.
    #[error(
        "the shards are for {files}, but this nqueens plans {planned}: merge them with the nqueens that made them"
    )]
    Replanned {
        /// The files' configuration, in words.
        files: String,
        /// This nqueens's plan, in words.
        planned: String,
    },
    /// A subproblem is in two shards.
    #[error(
        "subproblem {subproblem} is counted in both {} and {}: the shards overlap",
        first.display(),
        second.display()
    )]
    Overlap {
        /// The subproblem.
        subproblem: usize,
        /// One file that counts it.
        first: PathBuf,
        /// Another.
        second: PathBuf,
    },
    /// Subproblems are in no shard.
    #[error(
        "the shards leave {uncovered} of the plan's {total} subproblems uncounted (the first is {first})"
    )]
    Uncovered {
        /// How many.
        uncovered: usize,
        /// The plan's subproblems.
        total: usize,
        /// The first one in no shard.
        first: usize,
    },
    /// The shards' counts add up to more than the board can have.
    #[error(
        "the shards' counts add up to more than an n = {n} board has (at most {limit}): a file was changed"
    )]
    Overflow {
        /// The board.
        n: u32,
        /// `durable::count_limit` of the board.
        limit: u128,
    },
    /// In full mode, the shards' eight-fold fundamental counts add up to no multiple of 8.
    #[error(
        "the shards' fundamental counts add up to {unique8} eighths, not a whole number of solutions: a file was changed"
    )]
    NotBurnside {
        /// The sum of the shards' `unique8`.
        unique8: u128,
    },
    /// Two files name one run but differ: copies of one run's file are identical.
    #[error(
        "{} and {} both name run {run} (host {host}), but differ: copies of one run's file are identical, so one of them was changed",
        first.display(),
        second.display()
    )]
    SameRun {
        /// The file read first.
        first: PathBuf,
        /// The file read second.
        second: PathBuf,
        /// The run both name.
        run: String,
        /// The host the second names.
        host: String,
    },
    /// In a quorum, the copies of parts disagree.
    #[error("{}", disagreements_text(.0))]
    Disagree(Vec<Disagreement>),
    /// In a quorum, parts were counted alike by runs of fewer sources than the quorum.
    #[error(
        "{lacking} of the plan's {total} parts lack a quorum of {quorum} sources: parts {parts}{}{}",
        if held.is_empty() {
            String::new()
        } else {
            format!("; the first are held only by {held}")
        },
        match copies {
            0 => String::new(),
            1 => "; 1 file was a copy of another of its run, counted once".into(),
            k => format!("; {k} files were copies of others of their runs, counted once"),
        }
    )]
    NoQuorum {
        /// The quorum.
        quorum: usize,
        /// How many parts lack it.
        lacking: usize,
        /// The plan's parts.
        total: usize,
        /// The parts that lack it, as ranges (the first twenty).
        parts: String,
        /// The first files that hold parts lacking it, each with its shard and source.
        held: String,
        /// The files left out as copies of files of their runs.
        copies: usize,
    },
    /// The audit's loop cannot run here.
    #[error(transparent)]
    Loop(#[from] Error),
    /// A recounted subproblem differs from its shard's record.
    #[error(
        "audit: subproblem {subproblem} of {} recounts to {} solutions ({} x8 fundamental), but the shard records {} ({}): the shard is wrong",
        path.display(),
        again.solutions,
        again.unique8,
        recorded.solutions,
        recorded.unique8
    )]
    Audit {
        /// The subproblem.
        subproblem: usize,
        /// The file that records it.
        path: PathBuf,
        /// Its counts recounted.
        again: Tally,
        /// Its counts as recorded.
        recorded: Tally,
    },
}

/// Two runs' counts of one part that differ (`merge --quorum`).
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    /// The part.
    pub part: usize,
    /// The file read first that holds it.
    pub first: PathBuf,
    /// Its counts there.
    pub counted: Tally,
    /// A file that holds it with other counts.
    pub second: PathBuf,
    /// Its counts there.
    pub other: Tally,
}

/// Every disagreement, one line each: the part, both files and both counts.
fn disagreements_text(list: &[Disagreement]) -> String {
    let mut text = format!(
        "quorum refused: the runs disagree on {} part{}:",
        list.len(),
        if list.len() == 1 { "" } else { "s" }
    );
    for d in list {
        text.push_str(&format!(
            "\n  part {}: {} records {} solutions ({} x8 fundamental), but {} records {} ({})",
            d.part,
            d.first.display(),
            d.counted.solutions,
            d.counted.unique8,
            d.second.display(),
            d.other.solutions,
            d.other.unique8
        ));
    }
    text
}

/// What a merge adds up, whichever way it checks the files (each shard once, [`merge`], or
/// several runs' copies of each part, [`crate::run::quorum::merge`]).
pub struct Sum {
    /// The plan the shards divide, rebuilt by this nqueens.
    pub plan: Plan,
    /// The summed counts of the parts merged, the most threads any shard used and the
    /// longest shard time.
    pub outcome: Outcome,
    /// The files merged, in the order read.
    pub files: Vec<PathBuf>,
    /// The loop the first file's shard ran, and whether every shard ran it.
    pub kernel: (Kernel, bool),
    /// The loop each file's shard ran, in the order of [`Sum::files`]: the audit recounts
    /// each part with another.
    pub kernels: Vec<Kernel>,
    /// The parts `merge --audit` recounts, with their counts as the merge read them (empty
    /// without a [`Pick`]), in increasing order of part.
    pub sample: Vec<Sampled>,
}

impl Sum {
    /// Nothing merged yet of `plan`; `kernel` is the loop the first file's shard ran.
    pub(crate) fn new(plan: Plan, kernel: Kernel) -> Sum {
        Sum {
            plan,
            outcome: Outcome {
                tally: Tally::default(),
                threads: Some(1),
                elapsed_s: 0.0,
                kernel: Loops::One(kernel),
                each: Vec::new(),
                gpu_parts: 0,
                gpu_each: Vec::new(),
                gpu_failed: None,
            },
            files: Vec::new(),
            kernel: (kernel, true),
            kernels: Vec::new(),
            sample: Vec::new(),
        }
    }

    /// Notes the file `path` and its result `r`'s loop, threads and time; returns its index
    /// in [`Sum::files`].
    pub(crate) fn note(&mut self, path: PathBuf, r: &ShardResult) -> u32 {
        self.kernel.1 &= r.kernel == self.kernel.0;
        self.outcome.kernel = self.kernel.1.then_some(self.kernel.0).into();
        self.outcome.threads = self.outcome.threads.max(Some(r.threads));
        self.outcome.elapsed_s = self.outcome.elapsed_s.max(r.elapsed_s);
        self.outcome.gpu_parts += r.gpu_subproblems.len() as u64;
        self.files.push(path);
        self.kernels.push(r.kernel);
        (self.files.len() - 1) as u32
    }

    /// Adds `t` to the total, refusing a total past what the board can have.
    pub(crate) fn add(&mut self, t: Tally) -> Result<(), MergeError> {
        let (n, limit) = (self.plan.n, durable::count_limit(self.plan.n));
        self.outcome.tally = durable::add_within(self.outcome.tally, t, limit)
            .ok_or(MergeError::Overflow { n, limit })?;
        Ok(())
    }

    /// Refuses a complete full-mode total that is no Burnside sum: the fundamental
    /// solutions are an eighth of one, so a total that is no multiple of 8 was changed (a
    /// part of the plan's sum need not be one).
    pub(crate) fn check_burnside(&self, complete: bool) -> Result<(), MergeError> {
        let unique8 = self.outcome.tally.unique8;
        if complete && self.plan.symmetry == Symmetry::Full && !unique8.is_multiple_of(8) {
            return Err(MergeError::NotBurnside { unique8 });
        }
        Ok(())
    }
}

/// Shard results checked and added up by [`merge`]: the sums and, per subproblem and per
/// shard, which file holds it (not the files' contents: a plan's 176,871 shard files merge
/// in a few megabytes).
pub struct Merged {
    /// The plan, the sums, the files and the audit's sample.
    pub sum: Sum,
    /// How many shards the plan was dealt into (`K` of `--shard I/K`).
    pub count: usize,
    /// Per shard, its file (an index into `files`), [`NONE`] where it is missing.
    shard_file: Vec<u32>,
    /// Per subproblem, the file that holds it, [`NONE`] where none does.
    owner: Vec<u32>,
}

/// No file (a shard or subproblem not merged).
const NONE: u32 = u32::MAX;

/// How `merge --audit` picks the parts it recounts: about `percent`% of the parts merged (at
/// least one), those first in a random order of the parts drawn from `seed`. The
/// pick is made as the files are read, and the parts picked are recounted against the
/// counts of that one reading: a file changed afterwards changes nothing the merge uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// The share of the parts merged to recount, above 0 and at most 100.
    pub percent: f64,
    /// The seed of the random order.
    pub seed: u64,
}

impl Pick {
    /// How many of `parts` merged parts to recount.
    fn of(self, parts: usize) -> usize {
        ((parts as f64 * self.percent / 100.0).ceil() as usize).clamp(1, parts.max(1))
    }
}

/// A part picked for `merge --audit`, with its counts as the merge read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampled {
    /// Its place in the seed's random order.
    rank: u64,
    /// The part.
    pub part: usize,
    /// The file its counts were read from (an index into [`Sum::files`]).
    pub file: u32,
    /// Its counts as read.
    pub tally: Tally,
}

impl Ord for Sampled {
    fn cmp(&self, other: &Sampled) -> std::cmp::Ordering {
        (self.rank, self.part).cmp(&(other.rank, other.part))
    }
}

impl PartialOrd for Sampled {
    fn partial_cmp(&self, other: &Sampled) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The audit's sample, gathered as parts are merged: the parts first in the random order so
/// far, as many as the pick could want (were every part of the plan merged), each with the
/// counts it was merged with. Memory is bounded by that number, not by the files.
pub(crate) struct Sampler {
    pick: Pick,
    /// The most parts the pick can want.
    most: usize,
    /// The parts kept, the last in the random order on top.
    kept: BinaryHeap<Sampled>,
}

impl Sampler {
    /// A sampler for `pick` of a plan of `parts` parts.
    pub(crate) fn new(pick: Pick, parts: usize) -> Sampler {
        let most = pick.of(parts);
        Sampler {
            pick,
            most,
            kept: BinaryHeap::with_capacity(most.min(1 << 20)),
        }
    }

    /// Offers part `part`, merged with counts `tally` from file `file`.
    pub(crate) fn offer(&mut self, part: usize, file: u32, tally: Tally) {
        let rank = crate::random::rank(self.pick.seed, part as u64);
        let s = Sampled {
            rank,
            part,
            file,
            tally,
        };
        if self.kept.len() < self.most {
            self.kept.push(s);
        } else if self.kept.peek().is_some_and(|last| s < *last) {
            self.kept.pop();
            self.kept.push(s);
        }
    }

    /// The sample of a merge of `merged` parts, in increasing order of part: the pick's
    /// share of them, those first in the random order.
    pub(crate) fn sample(self, merged: usize) -> Vec<Sampled> {
        let mut first = self.kept.into_sorted_vec();
        first.truncate(self.pick.of(merged));
        first.sort_unstable_by_key(|s| s.part);
        first
    }
}

/// Shard results read at once (in parallel on the engine's threads), then added in order: a
/// bound on what a merge holds, whatever the number of files.
const BATCH: usize = 1024;

/// The most bytes of shard results read at once (one file at least, whatever its size):
/// with [`BATCH`], a bound on what a merge holds, whatever the files' sizes. A result's
/// entries take about as much memory read as they take in the file.
const BATCH_BYTES: u64 = 32 << 20;

impl Merged {
    /// Whether every shard was merged (and so, checked, every subproblem).
    pub fn complete(&self) -> bool {
        self.shard_file.iter().all(|&f| f != NONE)
    }

    /// Shards merged.
    pub fn shards_merged(&self) -> usize {
        self.shard_file.iter().filter(|&&f| f != NONE).count()
    }

    /// Subproblems merged.
    pub fn parts_merged(&self) -> usize {
        self.owner.iter().filter(|&&f| f != NONE).count()
    }

    /// The share of the plan's estimated cost ([`Plan::costs`]) that the merged shards hold,
    /// from 0 to 1: what a partial merge covers of the work (their counts cover no such
    /// share of the total, which a running job's progress only estimates).
    pub fn cost_merged(&self) -> f64 {
        cost_share(&self.sum.plan, |i| self.owner[i] != NONE)
    }

    /// The missing shards, as inclusive ranges of their indices, in increasing order.
    pub fn missing(&self) -> Vec<(usize, usize)> {
        ranges_where(self.shard_file.len(), |i| self.shard_file[i] == NONE)
    }
}

/// The share of `plan`'s estimated cost ([`Plan::costs`]) in the parts `i` that `has(i)`,
/// from 0 to 1.
pub(crate) fn cost_share(plan: &Plan, has: impl Fn(usize) -> bool) -> f64 {
    let costs = plan.costs();
    let all: u128 = costs.iter().map(|&c| u128::from(c)).sum();
    let done: u128 = (0..costs.len())
        .filter(|&i| has(i))
        .map(|i| u128::from(costs[i]))
        .sum();
    done as f64 / all.max(1) as f64
}

/// The indices `i` below `len` where `pick(i)`, as inclusive ranges, in increasing order.
pub(crate) fn ranges_where(len: usize, pick: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for i in (0..len).filter(|&i| pick(i)) {
        match ranges.last_mut() {
            Some(last) if last.1 + 1 == i => last.1 = i,
            _ => ranges.push((i, i)),
        }
    }
    ranges
}

/// Ranges of indices as people and scripts read them: `0-3 7 9-12` (space-separated, so
/// that a CSV cell needs no quoting); at most `most` ranges, then `and N more`.
pub fn ranges_text(ranges: &[(usize, usize)], most: usize) -> String {
    let mut words: Vec<String> = ranges
        .iter()
        .take(most)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if ranges.len() > most {
        words.push(format!("and {} more", ranges.len() - most));
    }
    words.join(" ")
}

/// The shard results in folder `dir`: every file in it (not below) whose name ends in
/// `.json` and does not start with `.` (temporary files), in name order.
pub fn shard_files_in(dir: &Path) -> Result<Vec<PathBuf>, FileError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(FileError::io("read the folder", dir))? {
        let entry = entry.map_err(FileError::io("read the folder", dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".json") && !name.starts_with('.') {
            files.push(entry.path());
        }
    }
    files.sort_unstable();
    Ok(files)
}

/// Adds up shard results after checking that they are shards of `0..K` of one
/// configuration, each at most once, that this binary makes the same plan for it, that each
/// holds only subproblems its shard was dealt and no subproblem is in two, that together they
/// cover every subproblem of the plan exactly once (unless `partial`: then the shards there
/// are summed, each still whole) and that their sum fits the board. With a `pick`, the
/// audit's sample is kept as the files are read ([`Pick`]).
///
/// The files are read `BATCH` at a time, in parallel (on the caller's rayon pool: run it
/// inside [`Engine::install`]), and only their sums and which file holds which subproblem are
/// kept, so memory stays bounded by the plan, not by the files.
pub fn merge(
    paths: impl IntoIterator<Item = PathBuf>,
    partial: bool,
    pick: Option<Pick>,
) -> Result<Merged, MergeError> {
    let start = |plan: Plan, r: &ShardResult| Merging::new(plan, r.shard.count, r.kernel, pick);
    read_each(paths, true, start, |m, path, r| m.add(path, r))?.finish(partial)
}

/// Reads the shard results at `paths`, [`BATCH`] at a time in parallel (on the caller's
/// rayon pool), checks that each is for the plan of the first file (and, where
/// `one_count`, in as many shards) and a shard that exists, and hands each in order to
/// `add`, with what `start` made of the plan (rebuilt by this nqueens from the first file)
/// and the first result.
pub(crate) fn read_each<M>(
    paths: impl IntoIterator<Item = PathBuf>,
    one_count: bool,
    start: impl FnOnce(Plan, &ShardResult) -> M,
    mut add: impl FnMut(&mut M, PathBuf, ShardResult) -> Result<(), MergeError>,
) -> Result<M, MergeError> {
    use rayon::prelude::*;
    let mut paths = paths.into_iter().peekable();
    if paths.peek().is_none() {
        return Err(MergeError::NoFiles);
    }
    let mut start = Some(start);
    let mut merging: Option<M> = None;
    // The first file's path, configuration and shard count: every other file must match.
    let mut first: Option<(PathBuf, Config, usize)> = None;
    loop {
        // Files up to BATCH of them and BATCH_BYTES in all (one at least); a file that
        // cannot be looked at is read, to be refused with its error.
        let mut bytes = 0;
        let mut batch: Vec<PathBuf> = Vec::new();
        while let Some(path) = paths.next_if(|_| batch.len() < BATCH && bytes < BATCH_BYTES) {
            bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
            batch.push(path);
        }
        if batch.is_empty() {
            break;
        }
        let read: Vec<Result<ShardResult, FileError>> =
            batch.par_iter().map(|p| ShardResult::read(p)).collect();
        for (path, r) in batch.into_iter().zip(read) {
            let r = r?;
            let (first_path, config, count) =
                first.get_or_insert_with(|| (path.clone(), r.config.clone(), r.shard.count));
            let count = one_count.then_some(*count);
            check_shard(&path, &r, (first_path, config, count))?;
            let m = match (&mut merging, start.take()) {
                (Some(m), _) => m,
                (None, Some(start)) => merging.insert(start(rebuild(first_path, config)?, &r)),
                (None, None) => unreachable!("the merge is started with the first file"),
            };
            add(m, path, r)?;
        }
    }
    merging.ok_or(MergeError::NoFiles)
}

/// Checks that shard result `r`, read from `path`, is for the plan of the first file
/// `(first_path, config, count)` (in as many shards, where `count` is given), and that its
/// shard exists.
fn check_shard(
    path: &Path,
    r: &ShardResult,
    (first_path, config, count): (&Path, &Config, Option<usize>),
) -> Result<(), MergeError> {
    let invalid = |why: String| MergeError::File(FileError::invalid(path, why));
    if !r.config.same_plan(config) || count.is_some_and(|k| r.shard.count != k) {
        return Err(invalid(format!(
            "(shard {}) is for {} in {} parts, but {} is for {} in {} parts",
            r.shard,
            r.config.describe(),
            r.shard.count,
            first_path.display(),
            config.describe(),
            count.unwrap_or(r.shard.count)
        )));
    }
    if r.shard.count > r.config.subproblems {
        return Err(invalid(format!(
            "shard {} has more parts than its plan has subproblems ({})",
            r.shard, r.config.subproblems
        )));
    }
    if r.shard.index >= r.shard.count {
        return Err(invalid(format!("shard {} does not exist", r.shard)));
    }
    Ok(())
}

/// Refuses shard result `r` (read from `path`) for holding subproblem `i`, which the plan
/// deals to shard `dealt` of as many.
pub(crate) fn dealt_elsewhere(path: &Path, r: &ShardResult, i: usize, dealt: u32) -> MergeError {
    MergeError::File(FileError::invalid(
        path,
        format!(
            "(shard {}) holds subproblem {i}, which the plan deals to shard {dealt}/{}: it was changed",
            r.shard, r.shard.count
        ),
    ))
}

/// The shard each subproblem of `plan` is dealt to, of `count` ([`deal`]).
pub(crate) fn deal_of(plan: &Plan, count: usize) -> Vec<u32> {
    let costs = plan.costs();
    deal_in_order(costs, &cost_order(costs), count)
}

/// A merge under way: what has been merged, the shard the plan deals each subproblem to,
/// and the audit's sample so far.
struct Merging {
    merged: Merged,
    deal_of: Vec<u32>,
    sampler: Option<Sampler>,
}

impl Merging {
    /// Nothing merged yet of `plan` dealt into `count` shards; `kernel` is the loop the
    /// first file's shard ran, `pick` the audit's.
    fn new(plan: Plan, count: usize, kernel: Kernel, pick: Option<Pick>) -> Merging {
        let deal_of = deal_of(&plan, count);
        let sampler = pick.map(|p| Sampler::new(p, plan.len()));
        let merged = Merged {
            count,
            shard_file: vec![NONE; count],
            owner: vec![NONE; plan.len()],
            sum: Sum::new(plan, kernel),
        };
        Merging {
            merged,
            deal_of,
            sampler,
        }
    }

    /// Adds shard result `r`, read from `path` (a shard of the plan that exists), after
    /// checking that its shard was not merged before, that its subproblems are its shard's
    /// and in no other file ([`Merging::claim`]), and that the sum fits the board.
    fn add(&mut self, path: PathBuf, r: ShardResult) -> Result<(), MergeError> {
        let m = &mut self.merged;
        let me = m.sum.files.len() as u32;
        let slot = &mut m.shard_file[r.shard.index];
        if *slot != NONE {
            return Err(MergeError::Twice {
                first: m.sum.files[*slot as usize].clone(),
                second: path,
                shard: r.shard,
            });
        }
        *slot = me;
        self.claim(&path, &r, me)?;
        let sum = &mut self.merged.sum;
        sum.add(r.tally())?;
        sum.note(path, &r);
        Ok(())
    }

    /// Marks each subproblem of `r` (read from `path`) as held by file `me`, after checking
    /// that no other file holds it and that the plan deals it to `r`'s shard; offers each
    /// to the audit's sample.
    fn claim(&mut self, path: &Path, r: &ShardResult, me: u32) -> Result<(), MergeError> {
        let m = &mut self.merged;
        for (i, t) in r.each() {
            let other = std::mem::replace(&mut m.owner[i], me);
            if other != NONE {
                return Err(MergeError::Overlap {
                    subproblem: i,
                    first: m.sum.files[other as usize].clone(),
                    second: path.to_path_buf(),
                });
            }
            if self.deal_of[i] as usize != r.shard.index {
                return Err(dealt_elsewhere(path, r, i, self.deal_of[i]));
            }
            if let Some(s) = &mut self.sampler {
                s.offer(i, me, t);
            }
        }
        Ok(())
    }

    /// The merge, after checking that every shard is there (unless `partial`), that the
    /// shards merged hold every subproblem dealt to them, and that a complete full-mode
    /// total is a Burnside sum; with the audit's sample.
    fn finish(self, partial: bool) -> Result<Merged, MergeError> {
        let Merging {
            merged: mut m,
            deal_of,
            sampler,
        } = self;
        if !partial && !m.complete() {
            return Err(MergeError::Missing {
                missing: ranges_text(&m.missing(), 20),
                count: m.count,
            });
        }
        // Every subproblem of each merged shard: in a complete merge, every one of the plan's.
        let lost = |i: &usize| m.owner[*i] == NONE && m.shard_file[deal_of[*i] as usize] != NONE;
        let total = m.sum.plan.len();
        let uncovered = (0..total).filter(lost).count();
        if uncovered > 0 {
            return Err(MergeError::Uncovered {
                uncovered,
                total,
                first: (0..total).find(lost).unwrap_or(0),
            });
        }
        m.sum.check_burnside(m.complete())?;
        if let Some(s) = sampler {
            m.sum.sample = s.sample(m.parts_merged());
        }
        Ok(m)
    }
}

/// The plan of the shards' configuration `config` (read from `path`), rebuilt by this
/// nqueens and found to be the same.
fn rebuild(path: &Path, config: &Config) -> Result<Plan, MergeError> {
    let method: Method = config
        .method
        .parse()
        .map_err(|e: String| FileError::invalid(path, format!("method {}: {e}", config.method)))?;
    // Built to compare and recount, not to join: the pieces need memory, the tables none.
    let plan = Plan::build(
        config.n,
        config.symmetry,
        config.split_depth,
        method,
        usize::MAX,
        1,
    )
    .map_err(|error| MergeError::Plan {
        path: path.to_path_buf(),
        config: config.describe(),
        error,
    })?;
    if !plan.config().same_plan(config) {
        return Err(MergeError::Replanned {
            files: config.describe(),
            planned: plan.config().describe(),
        });
    }
    Ok(plan)
}

/// What [`Sum::audit`] recounted: the engine it ran on (with the loop it used last), and
/// each way of counting it used with how many parts, in order of the loop's name.
pub struct Audited {
    /// The engine given, its loop the last one used.
    pub engine: Engine,
    /// Each method and loop used, with how many parts it recounted.
    pub by: Vec<(Method, Kernel, usize)>,
}

impl Sum {
    /// Recounts the audit's sample ([`Sum::sample`]) on `engine` (on a CPU whose best loop
    /// is `best`), each part by the method and loop [`audit_counting`] picks for the loop of
    /// the file it was read from, and fails on the first part that differs from the counts
    /// the merge read for it. Nothing is read again: what is checked is what was summed.
    pub fn audit(&self, mut engine: Engine, best: Kernel) -> Result<Audited, MergeError> {
        let mut ways: Vec<(Method, Kernel, Vec<usize>)> = Vec::new();
        for s in &self.sample {
            let made_with = self.kernels[s.file as usize];
            let (method, kernel) = audit_counting(self.plan.method, made_with, best);
            match ways.iter_mut().find(|w| (w.0, w.1) == (method, kernel)) {
                Some(w) => w.2.push(s.part),
                None => ways.push((method, kernel, vec![s.part])),
            }
        }
        ways.sort_by_key(|w| w.1.name());
        let mut by = Vec::with_capacity(ways.len());
        for (method, kernel, parts) in ways {
            engine = engine.with_kernel(kernel)?;
            by.push((method, engine.kernel(), parts.len()));
            // The merged plan's parts, each counted by `method` (a join's keys can be searched).
            let recounted = Run::new(&self.plan)
                .counted_by(method)
                .only(parts)
                .keep_each()
                .execute(&engine)
                .each;
            for (i, again) in recounted {
                let Ok(k) = self.sample.binary_search_by_key(&i, |s| s.part) else {
                    unreachable!("only the sample's parts are recounted");
                };
                let s = self.sample[k];
                if again != s.tally {
                    return Err(MergeError::Audit {
                        subproblem: i,
                        path: self.files[s.file as usize].clone(),
                        again,
                        recorded: s.tally,
                    });
                }
            }
        }
        Ok(Audited { engine, by })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::xorshift;
    use rayon::prelude::*;

    #[test]
    fn shards_partition_the_subproblems_and_balance_cost() {
        let costs: Vec<u64> = (0..100u64).map(|i| (i * 7919) % 1000 + 1).collect();
        for k in [1, 2, 3, 7, 100, 150] {
            let parts: Vec<Vec<usize>> = (0..k)
                .map(|i| subproblems_of(&costs, Shard { index: i, count: k }))
                .collect();
            let mut all: Vec<usize> = parts.concat();
            all.sort_unstable();
            assert_eq!(all, (0..100).collect::<Vec<_>>(), "k = {k}");
            if k <= 7 {
                let loads: Vec<u64> = parts
                    .iter()
                    .map(|p| p.iter().map(|&i| costs[i]).sum())
                    .collect();
                let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
                assert!(hi - lo <= 1000, "k = {k}: {loads:?}");
            }
        }
    }

    /// A genuine shard result's bytes, read back and checked as `merge` reads a file, for a
    /// quarter of a million random `elapsed_s`: durations as a clock gives them (many print with 17
    /// digits, which a parser that is not exact reads one bit off) and any finite float.
    #[test]
    fn every_elapsed_time_reads_back_to_its_own_digest() {
        let plan = Plan::new(8, Symmetry::Full, 2).unwrap();
        // One subproblem of many: the text stays short, the test fast.
        let each = vec![(0, Tally::default())];
        let shard = Shard {
            index: 0,
            count: plan.len(),
        };
        let path = Path::new("s.json");
        // Eight runs of 31,250 on the test's threads, each its own sequence.
        let refused: u32 = (0..8u64)
            .into_par_iter()
            .map(|run| {
                let mut r = ShardResult::new(&plan, shard, Kernel::Scalar, each.clone(), 2, 0.0);
                let mut next = xorshift(0x9e37_79b9_7f4a_7c15 ^ run << 56);
                let mut refused = 0;
                for k in 0..31_250u32 {
                    let bits = next();
                    r.elapsed_s = match k % 4 {
                        // Any finite, non-negative float.
                        0 => f64::from_bits(bits >> 1).min(f64::MAX),
                        // A clock's seconds and nanoseconds, up to a day or up to two seconds.
                        1 => std::time::Duration::new(
                            bits % 86_400,
                            (bits >> 32) as u32 % 1_000_000_000,
                        )
                        .as_secs_f64(),
                        2 => {
                            std::time::Duration::new(bits % 2, (bits >> 32) as u32 % 1_000_000_000)
                                .as_secs_f64()
                        }
                        _ => (bits >> 11) as f64 / (1u64 << 53) as f64 * 100.0,
                    };
                    r.seal();
                    let text = r.text().unwrap();
                    let back: ShardResult = serde_json::from_slice(&text).unwrap();
                    if back.elapsed_s.to_bits() != r.elapsed_s.to_bits()
                        || back.checked(path).is_err()
                    {
                        refused += 1;
                    }
                }
                refused
            })
            .sum();
        assert_eq!(
            refused, 0,
            "genuine shard results refused, of a quarter of a million"
        );
    }

    /// A reference dealing: each subproblem, costliest first, to the part with the least
    /// load (ties to the lower part), found by a scan of every part.
    fn dealt_by_scanning(costs: &[u64], shard: Shard) -> Vec<usize> {
        let mut order: Vec<usize> = (0..costs.len()).collect();
        order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
        let mut load = vec![0u128; shard.count];
        let mut mine = Vec::new();
        for i in order {
            let part = (0..shard.count).min_by_key(|&p| (load[p], p)).unwrap();
            load[part] += u128::from(costs[i]);
            if part == shard.index {
                mine.push(i);
            }
        }
        mine.sort_unstable();
        mine
    }

    #[test]
    fn the_heap_deals_exactly_as_a_scan_of_every_part() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        // Wide costs, and narrow ones with many ties (equal loads, equal costs).
        for (parts, spread) in [(500, 1 << 40), (300, 4), (64, 1), (1000, 1000)] {
            let costs: Vec<u64> = (0..parts)
                .map(|_| next() % spread + u64::from(spread == 1))
                .collect();
            for count in [1, 2, 3, 7, 16, 63, parts / 2, parts] {
                for index in [0, count / 2, count - 1] {
                    let shard = Shard { index, count };
                    assert_eq!(
                        subproblems_of(&costs, shard),
                        dealt_by_scanning(&costs, shard),
                        "{parts} parts of spread {spread}, shard {shard}"
                    );
                }
            }
        }
    }
}
