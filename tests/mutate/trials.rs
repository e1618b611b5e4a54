//! Random mutations and forgeries of a small shard set, each merged as `nqueens merge` merges
//! it: alone, with `--audit 100`, and under `--quorum 2` beside a genuine run sliced otherwise.
//! Shared by the `mutate` instrument (`scripts/mutate.sh N`) and the test suite's sample
//! (`tests/mutations.rs`).
//!
//! A **mutation** changes a file's bytes as an accident or a careless edit would (a bit
//! flipped, a digit changed, the file cut short, two fields' values swapped, its line written
//! twice, its JSON laid out otherwise, a file copied or lost). A **forgery** changes what a
//! file says and recomputes every checksum the format has (sums, residues, the digest); one
//! kind adds a second run forged alike to run A's folder and leaves out run B's files of the
//! part forged, so that only one source holds it, twice. What
//! must hold: no merge gives a wrong total after a mutation; with a full audit, or under a
//! quorum with a genuine copy, none does after a forgery either, and the quorum names every
//! part whose counts were forged. A plain merge without audit may take a forgery: nothing in
//! a file can tell one (docs/trust.md).

// The test suite's sample uses part of what the example does.
#![allow(dead_code)]

use std::num::NonZeroUsize;
use std::path::PathBuf;

use nqueens_engine::run::quorum::{self, Source};
use nqueens_engine::run::shard::{self, MergeError, Pick, Shard, ShardResult};
use nqueens_engine::types::Residues;
use nqueens_engine::{Engine, Kernel, Options, Outcome, Plan, Run, Symmetry, Tally};

/// The board of the shard sets: n = 10 searched at depth 3 in full symmetry (about 200 parts),
/// small enough for hundreds of merges a second.
pub const N: u32 = 10;
pub const DEPTH: usize = 3;
/// Run A's shards (the ones changed) and run B's (the genuine copy of the quorum).
const A_SHARDS: usize = 4;
const B_SHARDS: usize = 3;

/// What is done to the set in one trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    BitFlip,
    Digit,
    Truncate,
    SwapFields,
    DuplicateLine,
    Reformat,
    CopyFile,
    DeleteFile,
    ForgeCount,
    ForgeSwapCounts,
    ForgeMove,
    ForgeDrop,
    ForgeFields,
    ForgeShard,
    ForgeConfig,
    ForgeOneSource,
}

impl Kind {
    pub const ALL: [Kind; 16] = [
        Kind::BitFlip,
        Kind::Digit,
        Kind::Truncate,
        Kind::SwapFields,
        Kind::DuplicateLine,
        Kind::Reformat,
        Kind::CopyFile,
        Kind::DeleteFile,
        Kind::ForgeCount,
        Kind::ForgeSwapCounts,
        Kind::ForgeMove,
        Kind::ForgeDrop,
        Kind::ForgeFields,
        Kind::ForgeShard,
        Kind::ForgeConfig,
        Kind::ForgeOneSource,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::BitFlip => "bit-flip",
            Kind::Digit => "digit",
            Kind::Truncate => "truncate",
            Kind::SwapFields => "swap-fields",
            Kind::DuplicateLine => "duplicate-line",
            Kind::Reformat => "reformat",
            Kind::CopyFile => "copy-file",
            Kind::DeleteFile => "delete-file",
            Kind::ForgeCount => "forge-count",
            Kind::ForgeSwapCounts => "forge-swap-counts",
            Kind::ForgeMove => "forge-move",
            Kind::ForgeDrop => "forge-drop",
            Kind::ForgeFields => "forge-fields",
            Kind::ForgeShard => "forge-shard",
            Kind::ForgeConfig => "forge-config",
            Kind::ForgeOneSource => "forge-one-source",
        }
    }

    /// Whether the trial recomputes every checksum (a forgery) rather than changing bytes.
    pub fn forged(self) -> bool {
        self >= Kind::ForgeCount
    }
}

/// How a merge ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Refused, with the message.
    Refused(String),
    /// Accepted, with the true total.
    Exact,
    /// Accepted, with another total.
    Wrong(Tally),
}

/// One trial: what was done, and how each merge ended.
#[derive(Clone, Debug)]
pub struct Trial {
    pub kind: Kind,
    pub detail: String,
    /// The parts whose counts a forgery changed.
    pub changed: Vec<usize>,
    /// `merge A`.
    pub merged: Verdict,
    /// `merge --audit 100 A`.
    pub audited: Verdict,
    /// `merge --quorum 2 A B`.
    pub quorum: Verdict,
}

impl Trial {
    /// Whether the quorum refused the set naming every part whose counts were forged (false
    /// where none was).
    pub fn named(&self) -> bool {
        match &self.quorum {
            // Run B lacks the part: A's two runs of it, one source, are no quorum.
            Verdict::Refused(why) if self.kind == Kind::ForgeOneSource => {
                !self.changed.is_empty() && why.contains("lack a quorum of 2 sources")
            }
            Verdict::Refused(why) if !self.changed.is_empty() => self
                .changed
                .iter()
                .all(|p| why.contains(&format!("part {p}: "))),
            _ => false,
        }
    }

    /// What is wrong with the verdicts, if anything.
    pub fn failure(&self) -> Option<String> {
        let wrong = |v: &Verdict| matches!(v, Verdict::Wrong(_));
        if wrong(&self.audited) {
            return Some("merge --audit 100 accepted a wrong total".into());
        }
        if wrong(&self.quorum) {
            return Some("merge --quorum 2 accepted a wrong total".into());
        }
        if !self.kind.forged() && wrong(&self.merged) {
            return Some("merge accepted a wrong total from a file not forged".into());
        }
        if self.kind == Kind::Reformat && self.merged != Verdict::Exact {
            return Some(format!(
                "the same content laid out otherwise: {:?}",
                self.merged
            ));
        }
        if !self.changed.is_empty() && !self.named() {
            return Some(format!(
                "the quorum did not name the forged part(s) {:?}: {:?}",
                self.changed, self.quorum
            ));
        }
        None
    }
}

/// splitmix64: the trials' random numbers, the same for a seed on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A genuine set of two runs' shard results in a scratch folder, and the true total.
pub struct Lab {
    dir: tempfile::TempDir,
    engine: Engine,
    truth: Tally,
    /// Run A's files, changed by the trials and put back after each.
    a: Vec<PathBuf>,
    genuine: Vec<Vec<u8>>,
    /// Run B's files, never changed.
    b: Vec<PathBuf>,
}

/// The trials' board counted once on one thread, each part's count kept, and a scratch
/// folder named from `prefix` for the files made of it.
pub fn counted(prefix: &str) -> (Engine, Plan, Outcome, tempfile::TempDir) {
    let engine = Engine::new(&Options {
        threads: NonZeroUsize::new(1),
        ..Options::default()
    })
    .expect("one thread starts");
    let plan = Plan::new(N, Symmetry::Full, DEPTH).expect("the board is in range");
    let outcome = Run::new(&plan).keep_each().execute(&engine);
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("a scratch folder");
    (engine, plan, outcome, dir)
}

impl Lab {
    /// Counts the board once and writes both runs' shards, each file a run of its own.
    pub fn new() -> Lab {
        let (engine, plan, outcome, dir) = counted("nqueens-mutate-");
        let write = |run: &str, count: usize| -> Vec<PathBuf> {
            let folder = dir.path().join(run);
            std::fs::create_dir_all(&folder).expect("a folder");
            let owner = shard::deal(plan.costs(), count);
            (0..count)
                .map(|index| {
                    let each = outcome
                        .each
                        .iter()
                        .copied()
                        .filter(|&(i, _)| owner[i] == index)
                        .collect();
                    let shard = Shard { index, count };
                    let mut r = ShardResult::new(&plan, shard, engine.kernel(), each, 1, 0.25);
                    r.run = format!(
                        "{:032x}",
                        (u128::from(run.as_bytes()[0]) << 64) + index as u128
                    );
                    r.seal();
                    let path = folder.join(format!("n{N}-{index}-of-{count}.json"));
                    std::fs::write(&path, text(&r)).expect("a shard file");
                    path
                })
                .collect()
        };
        let (a, b) = (write("a", A_SHARDS), write("b", B_SHARDS));
        let genuine = a
            .iter()
            .map(|p| std::fs::read(p).expect("read back"))
            .collect();
        Lab {
            truth: outcome.tally,
            engine,
            a,
            genuine,
            b,
            dir,
        }
    }

    /// Does one trial of `kind`, picked from `rng`, merges, and puts the set back.
    pub fn trial(&self, kind: Kind, rng: &mut Rng) -> Trial {
        let (detail, changed) = self.change(kind, rng);
        let files = self.files_of_a();
        let (merged, audited) = self.merge_alone(&files);
        // Run B without the files that hold a part forged in one source's two runs.
        let b = if kind == Kind::ForgeOneSource {
            let holds = |f: &PathBuf| {
                let r = read(&std::fs::read(f).expect("run B reads"));
                r.each().any(|(i, _)| changed.contains(&i))
            };
            self.b.iter().filter(|f| !holds(f)).cloned().collect()
        } else {
            self.b.clone()
        };
        let sources = vec![
            Source {
                name: "a".into(),
                files,
            },
            Source {
                name: "b".into(),
                files: b,
            },
        ];
        let quorum = self.verdict(
            self.engine
                .install(|| quorum::merge(sources, 2, false, None))
                .map(|q| q.sum.outcome.tally),
        );
        self.restore();
        Trial {
            kind,
            detail,
            changed,
            merged,
            audited,
            quorum,
        }
    }

    /// The files of run A as a merge of its folder finds them.
    fn files_of_a(&self) -> Vec<PathBuf> {
        shard::shard_files_in(&self.dir.path().join("a")).expect("the folder reads")
    }

    /// `merge A` and `merge --audit 100 A`: one reading, audited with the other loop.
    fn merge_alone(&self, files: &[PathBuf]) -> (Verdict, Verdict) {
        let pick = Pick {
            percent: 100.0,
            seed: 1,
        };
        let merged = self
            .engine
            .install(|| shard::merge(files.to_vec(), false, Some(pick)));
        let merged = match merged {
            Ok(m) => m,
            Err(e) => {
                let refused = self.verdict(Err(e));
                return (refused.clone(), refused);
            }
        };
        let sum = &merged.sum;
        let alone = self.verdict(Ok(sum.outcome.tally));
        let best = Kernel::Auto.resolve().expect("a loop for this CPU");
        let engine = Engine::new(&Options {
            threads: NonZeroUsize::new(1),
            ..Options::default()
        })
        .expect("one thread starts");
        let audited = match sum.audit(engine, best) {
            Ok(_) => alone.clone(),
            Err(e) => self.verdict(Err(e)),
        };
        (alone, audited)
    }

    fn verdict(&self, merged: Result<Tally, MergeError>) -> Verdict {
        match merged {
            Err(e) => Verdict::Refused(e.to_string()),
            Ok(t) if t == self.truth => Verdict::Exact,
            Ok(t) => Verdict::Wrong(t),
        }
    }

    /// Puts run A's files back as they were, and removes any other file of its folder.
    fn restore(&self) {
        for f in self.files_of_a() {
            if !self.a.contains(&f) {
                std::fs::remove_file(f).expect("an extra file goes");
            }
        }
        for (path, bytes) in self.a.iter().zip(&self.genuine) {
            std::fs::write(path, bytes).expect("a file put back");
        }
    }

    /// Changes run A's files as `kind` does; returns what was done and the parts whose
    /// counts a forgery changed.
    fn change(&self, kind: Kind, rng: &mut Rng) -> (String, Vec<usize>) {
        let i = rng.below(self.a.len());
        let (path, bytes) = (&self.a[i], &self.genuine[i]);
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if kind.forged() {
            return self.forge(kind, i, rng);
        }
        let (detail, new) = mutated(kind, bytes, rng);
        match kind {
            Kind::CopyFile => {
                let copy = path.with_file_name("extra.json");
                std::fs::write(copy, bytes).expect("a copy");
            }
            Kind::DeleteFile => std::fs::remove_file(path).expect("a file goes"),
            _ => std::fs::write(path, new).expect("a file changed"),
        }
        (format!("{name}: {detail}"), Vec::new())
    }

    /// A forgery of `kind` on run A's file `i` (and another, to move a part).
    fn forge(&self, kind: Kind, i: usize, rng: &mut Rng) -> (String, Vec<usize>) {
        let mut r = read(&self.genuine[i]);
        let name = self.a[i]
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let (detail, changed) = match kind {
            Kind::ForgeCount => forge_count(&mut r, rng),
            Kind::ForgeSwapCounts => forge_swap(&mut r, rng),
            Kind::ForgeMove => {
                let j = (i + 1 + rng.below(self.a.len() - 1)) % self.a.len();
                let mut other = read(&self.genuine[j]);
                let k = rng.below(r.subproblems.len());
                let moved = r.subproblems.remove(k);
                other.subproblems.push(moved);
                other.subproblems.sort_unstable();
                std::fs::write(&self.a[j], text(&resealed(other))).expect("a file forged");
                (format!("part {} moved to file {j}", moved.0), Vec::new())
            }
            Kind::ForgeDrop => {
                let k = rng.below(r.subproblems.len());
                (
                    format!("part {} dropped", r.subproblems.remove(k).0),
                    Vec::new(),
                )
            }
            Kind::ForgeFields => (forge_field(&mut r, rng), Vec::new()),
            Kind::ForgeShard => {
                r.shard.index = (r.shard.index + 1 + rng.below(A_SHARDS - 1)) % A_SHARDS;
                (format!("shard index {}", r.shard.index), Vec::new())
            }
            Kind::ForgeOneSource => {
                // A second run of the file in run A's folder (a fresh run id), forged alike.
                let forged = forge_count(&mut r, rng);
                let mut twin = r.clone();
                twin.run = format!("{:016x}{:016x}", rng.next(), rng.next());
                let at = self.a[i].with_file_name("twin.json");
                std::fs::write(at, text(&resealed(twin))).expect("a file forged");
                forged
            }
            _ => (forge_config(&mut r, rng), Vec::new()),
        };
        std::fs::write(&self.a[i], text(&resealed(r))).expect("a file forged");
        (format!("{name}: {detail}"), changed)
    }
}

/// A shard result's file bytes as `count --shard` writes them.
fn text(r: &ShardResult) -> Vec<u8> {
    let mut text = serde_json::to_vec(r).expect("a shard result serializes");
    text.push(b'\n');
    text
}

fn read(bytes: &[u8]) -> ShardResult {
    serde_json::from_slice(bytes).expect("a genuine file parses")
}

/// `r` with its sums, residues and digest recomputed from its parts: a forger's work.
fn resealed(mut r: ShardResult) -> ShardResult {
    let sum: Tally = r.each().map(|(_, t)| t).sum();
    r.solutions = sum.solutions;
    r.unique8 = sum.unique8;
    r.residues = r.each().map(|(_, t)| Residues::of(t)).sum();
    r.seal();
    r
}

/// A change of `bytes` as an accident or an edit makes it, for the unforged kinds (the
/// checkpoint trials apply it to a whole file or to one line: `mutate/checkpoints.rs`).
pub fn mutated(kind: Kind, bytes: &[u8], rng: &mut Rng) -> (String, Vec<u8>) {
    let mut new = bytes.to_vec();
    let detail = match kind {
        Kind::BitFlip => {
            let (at, bit) = (rng.below(new.len()), rng.below(8));
            new[at] ^= 1 << bit;
            format!("byte {at} bit {bit} flipped")
        }
        Kind::Digit => {
            let digits: Vec<usize> = (0..new.len())
                .filter(|&k| new[k].is_ascii_digit())
                .collect();
            let at = digits[rng.below(digits.len())];
            let was = new[at];
            new[at] = b'0' + ((was - b'0') as usize + 1 + rng.below(9)) as u8 % 10;
            format!("digit at byte {at}: {} to {}", was as char, new[at] as char)
        }
        Kind::Truncate => {
            let at = rng.below(new.len());
            new.truncate(at);
            format!("cut to {at} bytes")
        }
        Kind::SwapFields => {
            let mut v: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
            let fields = v.as_object_mut().expect("an object");
            let keys: Vec<String> = fields.keys().cloned().collect();
            let x = rng.below(keys.len());
            let y = (x + 1 + rng.below(keys.len() - 1)) % keys.len();
            let (vx, vy) = (fields[&keys[x]].clone(), fields[&keys[y]].clone());
            fields.insert(keys[x].clone(), vy);
            fields.insert(keys[y].clone(), vx);
            new = serde_json::to_vec(&v).expect("JSON");
            format!("values of {} and {} swapped", keys[x], keys[y])
        }
        Kind::DuplicateLine => {
            new.extend_from_slice(bytes);
            "its line twice".into()
        }
        Kind::Reformat => {
            let v: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
            new = serde_json::to_vec_pretty(&v).expect("JSON");
            "pretty-printed, keys sorted".into()
        }
        Kind::CopyFile => "copied to extra.json".into(),
        _ => "removed".into(),
    };
    (detail, new)
}

/// One part's counts changed; returns what and the part.
fn forge_count(r: &mut ShardResult, rng: &mut Rng) -> (String, Vec<usize>) {
    let k = rng.below(r.subproblems.len());
    let (part, solutions, unique8) = r.subproblems[k];
    let t = forged_tally(Tally { solutions, unique8 }, rng);
    let (new, new8) = (t.solutions, t.unique8);
    r.subproblems[k] = (part, new, new8);
    (
        format!("part {part}: {solutions} ({unique8}) to {new} ({new8})"),
        vec![part],
    )
}

/// Counts `t` changed as a forger changes them: the solutions moved by 1 to 1000, and half
/// the time the fundamental count too, by whole solutions (a Burnside sum).
pub fn forged_tally(t: Tally, rng: &mut Rng) -> Tally {
    let d = 1 + rng.below(1000) as u128;
    let solutions = if rng.below(2) == 0 || t.solutions < d {
        t.solutions + d
    } else {
        t.solutions - d
    };
    Tally {
        solutions,
        unique8: t.unique8 + 8 * (rng.below(2) as u128) * d,
    }
}

/// Two parts' counts swapped: parts of other counts where the file has them (a swap of
/// equal counts changes nothing).
fn forge_swap(r: &mut ShardResult, rng: &mut Rng) -> (String, Vec<usize>) {
    let x = rng.below(r.subproblems.len());
    let counts = |e: (usize, u128, u128)| (e.1, e.2);
    let other: Vec<usize> = (0..r.subproblems.len())
        .filter(|&y| counts(r.subproblems[y]) != counts(r.subproblems[x]))
        .collect();
    let y = match other.len() {
        0 => (x + 1 + rng.below(r.subproblems.len() - 1)) % r.subproblems.len(),
        k => other[rng.below(k)],
    };
    let (px, sx, ux) = r.subproblems[x];
    let (py, sy, uy) = r.subproblems[y];
    r.subproblems[x] = (px, sy, uy);
    r.subproblems[y] = (py, sx, ux);
    let changed = if (sx, ux) == (sy, uy) {
        vec![]
    } else {
        vec![px, py]
    };
    (format!("parts {px} and {py} swapped counts"), changed)
}

/// A field no count depends on, set in range or out of it.
fn forge_field(r: &mut ShardResult, rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => {
            r.threads = if rng.below(2) == 0 {
                1 + rng.below(1024)
            } else {
                rng.next() as usize
            };
            format!("threads {}", r.threads)
        }
        1 => {
            r.elapsed_s = (rng.next() as i64) as f64 / 1e6;
            format!("elapsed_s {}", r.elapsed_s)
        }
        2 => {
            r.host = ["other-host", "", "a/b", "h\u{e9}"][rng.below(4)].into();
            format!("host {:?}", r.host)
        }
        3 => {
            r.run = format!(
                "{:032x}",
                u128::from(rng.next()) << 64 | u128::from(rng.next())
            );
            r.run.truncate(if rng.below(2) == 0 { 32 } else { 31 });
            format!("run {}", r.run)
        }
        _ => {
            r.kernel = [Kernel::Auto, Kernel::Scalar, Kernel::Avx2, Kernel::Avx512][rng.below(4)];
            format!("kernel {}", r.kernel.name())
        }
    }
}

/// The plan or format the file names, changed.
fn forge_config(r: &mut ShardResult, rng: &mut Rng) -> String {
    let c = &mut r.config;
    match rng.below(6) {
        0 => c.n = if rng.below(2) == 0 { N - 1 } else { N + 1 },
        1 => c.fingerprint ^= 1 << rng.below(32),
        2 => c.split_depth += 1,
        3 => c.symmetry = Symmetry::Mirror,
        4 => c.subproblems += 1 + rng.below(3),
        _ => r.version = [2, 4][rng.below(2)],
    }
    format!("config {} version {}", c.describe(), r.version)
}

/// Runs `trials` trials from `seed`, the kinds in turn; `each` hears of every trial.
pub fn run(trials: usize, seed: u64, mut each: impl FnMut(usize, &Trial)) {
    let lab = Lab::new();
    let mut rng = Rng::new(seed);
    for t in 0..trials {
        let kind = Kind::ALL[t % Kind::ALL.len()];
        let trial = lab.trial(kind, &mut rng);
        each(t, &trial);
    }
}

/// The trials' verdicts by kind, as CSV rows.
#[derive(Default)]
pub struct Tallies(std::collections::BTreeMap<Kind, [usize; 13]>);

impl Tallies {
    pub const HEADER: &str = "kind,trials,merge_refused,merge_exact,merge_wrong,audit_refused,audit_exact,audit_wrong,quorum_refused,quorum_exact,quorum_wrong,counts_forged,forged_parts_named,failures";

    pub fn add(&mut self, trial: &Trial) {
        let row = self.0.entry(trial.kind).or_default();
        let at = |v: &Verdict| match v {
            Verdict::Refused(_) => 0,
            Verdict::Exact => 1,
            Verdict::Wrong(_) => 2,
        };
        row[0] += 1;
        row[1 + at(&trial.merged)] += 1;
        row[4 + at(&trial.audited)] += 1;
        row[7 + at(&trial.quorum)] += 1;
        let forged = !trial.changed.is_empty();
        row[10] += usize::from(forged);
        row[11] += usize::from(trial.named());
        row[12] += usize::from(trial.failure().is_some());
    }

    /// The rows, a total last.
    pub fn csv(&self) -> String {
        let mut all = [0usize; 13];
        let mut text = format!("{}\n", Tallies::HEADER);
        let mut line = |name: &str, row: &[usize; 13]| {
            let cells: Vec<String> = row.iter().map(usize::to_string).collect();
            text.push_str(&format!("{name},{}\n", cells.join(",")));
        };
        for (kind, row) in &self.0 {
            for (a, r) in all.iter_mut().zip(row) {
                *a += r;
            }
            line(kind.name(), row);
        }
        line("all", &all);
        text
    }

    pub fn failures(&self) -> usize {
        self.0.values().map(|r| r[12]).sum()
    }
}
