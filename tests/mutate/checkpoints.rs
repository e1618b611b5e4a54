//! Random mutations of a checkpoint, each resumed as `nqueens count --checkpoint` resumes it:
//! the file opened for the same plan ([`Checkpoint::open`]), the parts it does not hold
//! counted, and the sum checked. Shared by the `mutate` instrument (`scripts/mutate.sh N`) and
//! the test suite's sample (`tests/mutations.rs`), beside the shard trials (`trials.rs`),
//! whose random numbers and byte mutations these reuse.
//!
//! A **mutation** changes the file's bytes as an accident or a careless edit would (a bit
//! flipped, a digit changed or written as another script's digit, the file cut short, a line
//! written twice, removed, or swapped with another, a field's value swapped with another
//! line's or within its line, a line laid out otherwise, a sound record of another plan's
//! checkpoint put in). What must hold: the resume either
//! refuses the file or gives the true total, never another; a line given only more
//! whitespace resumes exactly. A **forgery** (a record's counts changed and its residues and
//! checksum recomputed, written through the library) is tallied apart and may give a wrong
//! total: no checksum can tell one (docs/trust.md).

// The test suite's sample uses part of what the example does.
#![allow(dead_code)]

use std::path::PathBuf;

use nqueens_engine::run::checkpoint::Checkpoint;
use nqueens_engine::{Engine, Plan, Run, Symmetry, Tally};

use crate::trials::{self, Rng, Verdict};

/// What is done to the checkpoint in one trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    BitFlip,
    Digit,
    UnicodeDigit,
    Truncate,
    DuplicateLine,
    RemoveLine,
    SwapLines,
    SwapValues,
    SwapFields,
    Reformat,
    Whitespace,
    ForeignRecord,
    ForgeRecord,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::BitFlip,
        Kind::Digit,
        Kind::UnicodeDigit,
        Kind::Truncate,
        Kind::DuplicateLine,
        Kind::RemoveLine,
        Kind::SwapLines,
        Kind::SwapValues,
        Kind::SwapFields,
        Kind::Reformat,
        Kind::Whitespace,
        Kind::ForeignRecord,
        Kind::ForgeRecord,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::BitFlip => "bit-flip",
            Kind::Digit => "digit",
            Kind::UnicodeDigit => "unicode-digit",
            Kind::Truncate => "truncate",
            Kind::DuplicateLine => "duplicate-line",
            Kind::RemoveLine => "remove-line",
            Kind::SwapLines => "swap-lines",
            Kind::SwapValues => "swap-values",
            Kind::SwapFields => "swap-fields",
            Kind::Reformat => "reformat",
            Kind::Whitespace => "whitespace",
            Kind::ForeignRecord => "foreign-record",
            Kind::ForgeRecord => "forge-record",
        }
    }

    /// The shard trials' mutation this one is, and whether it changes one line (else the
    /// whole file).
    fn shard_kind(self) -> Option<(trials::Kind, bool)> {
        match self {
            Kind::BitFlip => Some((trials::Kind::BitFlip, false)),
            Kind::Digit => Some((trials::Kind::Digit, false)),
            Kind::Truncate => Some((trials::Kind::Truncate, false)),
            Kind::DuplicateLine => Some((trials::Kind::DuplicateLine, true)),
            Kind::SwapFields => Some((trials::Kind::SwapFields, true)),
            Kind::Reformat => Some((trials::Kind::Reformat, true)),
            _ => None,
        }
    }
}

/// One trial: what was done, and how the resume ended.
#[derive(Clone, Debug)]
pub struct Trial {
    pub kind: Kind,
    pub detail: String,
    pub verdict: Verdict,
    /// Whether [`Checkpoint::open`] refused the file (else, where refused, the count did:
    /// fundamental counts that make no whole number of solutions, as `nqueens count` refuses).
    pub refused_at_open: bool,
    /// The damaged records the open skipped (counted again).
    pub skipped: usize,
}

impl Trial {
    /// What is wrong with the verdict, if anything.
    pub fn failure(&self) -> Option<String> {
        if self.kind == Kind::ForgeRecord {
            return None;
        }
        if let Verdict::Wrong(t) = &self.verdict {
            return Some(format!(
                "resumed to a wrong total: {} solutions ({} x8 fundamental)",
                t.solutions, t.unique8
            ));
        }
        if self.kind == Kind::Whitespace && self.verdict != Verdict::Exact {
            return Some(format!(
                "the same content with more whitespace: {:?}",
                self.verdict
            ));
        }
        None
    }
}

/// A genuine partial checkpoint in a scratch folder, and the true total.
pub struct Lab {
    dir: tempfile::TempDir,
    engine: Engine,
    plan: Plan,
    truth: Tally,
    /// The parts the checkpoint records, in its order.
    recorded: Vec<(usize, Tally)>,
    genuine: Vec<u8>,
    /// Where each trial's file is resumed.
    path: PathBuf,
    /// Sound records of other plans' checkpoints (the board one smaller, and the board in
    /// no symmetry), each a line.
    foreign: Vec<Vec<u8>>,
}

impl Lab {
    /// Counts the board once and writes a checkpoint of two parts in three (each part whose
    /// index is not a multiple of 3) through the library, as a count stopped midway leaves
    /// it.
    pub fn new() -> Lab {
        let (engine, plan, outcome, dir) = trials::counted("nqueens-mutate-checkpoint-");
        let recorded: Vec<(usize, Tally)> = outcome
            .each
            .iter()
            .copied()
            .filter(|&(i, _)| i % 3 != 0)
            .collect();
        let genuine = write(&dir.path().join("genuine.ckpt"), &plan, &recorded);
        let mut foreign = Vec::new();
        for (n, symmetry) in [(trials::N - 1, Symmetry::Full), (trials::N, Symmetry::None)] {
            let other = Plan::new(n, symmetry, trials::DEPTH).expect("the board is in range");
            let each = Run::new(&other).keep_each().execute(&engine).each;
            let path = dir.path().join(format!("n{n}-{}.ckpt", symmetry.name()));
            let bytes = write(&path, &other, &each);
            let lines = bytes.split_inclusive(|&b| b == b'\n').skip(1);
            foreign.extend(lines.map(<[u8]>::to_vec));
        }
        Lab {
            foreign,
            path: dir.path().join("resumed.ckpt"),
            truth: outcome.tally,
            engine,
            plan,
            recorded,
            genuine,
            dir,
        }
    }

    /// Does one trial of `kind`, picked from `rng`, and resumes the changed file.
    pub fn trial(&self, kind: Kind, rng: &mut Rng) -> Trial {
        let (detail, bytes) = self.change(kind, rng);
        let (verdict, refused_at_open, skipped) = self.resume(&bytes);
        Trial {
            kind,
            detail,
            verdict,
            refused_at_open,
            skipped,
        }
    }

    /// Opens `bytes` as the checkpoint of the plan, counts the parts it does not hold, and
    /// sums: the verdict, whether the open refused it, and the damaged records skipped.
    fn resume(&self, bytes: &[u8]) -> (Verdict, bool, usize) {
        std::fs::write(&self.path, bytes).expect("a checkpoint written");
        let (c, done, skipped) = match Checkpoint::open(&self.path, &self.plan, None) {
            Ok(opened) => opened,
            Err(e) => return (Verdict::Refused(e.to_string()), true, 0),
        };
        drop(c);
        let skipped = skipped.map_or(0, |s| s.damaged);
        let t = Run::new(&self.plan)
            .resume(done)
            .execute(&self.engine)
            .tally;
        let verdict = if !t.unique8.is_multiple_of(8) {
            Verdict::Refused(format!(
                "the fundamental counts add up to {} eighths",
                t.unique8
            ))
        } else if t == self.truth {
            Verdict::Exact
        } else {
            Verdict::Wrong(t)
        };
        (verdict, false, skipped)
    }

    /// The genuine file changed as `kind` does, and what was done.
    fn change(&self, kind: Kind, rng: &mut Rng) -> (String, Vec<u8>) {
        let bytes = &self.genuine[..];
        let mut lines: Vec<Vec<u8>> = bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        let detail = match kind.shard_kind() {
            Some((shard_kind, false)) => {
                let (detail, new) = trials::mutated(shard_kind, bytes, rng);
                return (detail, new);
            }
            Some((shard_kind, true)) => {
                let x = rng.below(lines.len());
                let line = &lines[x];
                let (detail, mut new) = if shard_kind == trials::Kind::DuplicateLine {
                    trials::mutated(shard_kind, line, rng)
                } else {
                    // The JSON without its newline, which the mutation leaves out.
                    let (detail, mut new) =
                        trials::mutated(shard_kind, &line[..line.len() - 1], rng);
                    new.push(b'\n');
                    (detail, new)
                };
                std::mem::swap(&mut lines[x], &mut new);
                format!("line {}: {detail}", x + 1)
            }
            None => match kind {
                Kind::UnicodeDigit => {
                    let digits: Vec<usize> = (0..bytes.len())
                        .filter(|&k| bytes[k].is_ascii_digit())
                        .collect();
                    let at = digits[rng.below(digits.len())];
                    let d = u32::from(bytes[at] - b'0');
                    // Fullwidth, Arabic-Indic, Devanagari, mathematical bold.
                    let zero = [0xff10, 0x0660, 0x0966, 0x1d7ce][rng.below(4)];
                    let c = char::from_u32(zero + d).expect("a digit");
                    let mut new = bytes[..at].to_vec();
                    new.extend_from_slice(c.to_string().as_bytes());
                    new.extend_from_slice(&bytes[at + 1..]);
                    return (format!("digit at byte {at} written as {c:?}"), new);
                }
                Kind::RemoveLine => {
                    let x = rng.below(lines.len());
                    lines.remove(x);
                    format!("line {} removed", x + 1)
                }
                Kind::SwapLines => {
                    let x = rng.below(lines.len());
                    let y = (x + 1 + rng.below(lines.len() - 1)) % lines.len();
                    lines.swap(x, y);
                    format!("lines {} and {} swapped", x + 1, y + 1)
                }
                Kind::SwapValues => swap_values(&mut lines, rng),
                Kind::Whitespace => {
                    let x = rng.below(lines.len());
                    let at = spaces_at(&lines[x]);
                    let k = at[rng.below(at.len())];
                    let space = [&b" "[..], b"  ", b"\t", b" \r"][rng.below(4)];
                    lines[x].splice(k..k, space.iter().copied());
                    format!(
                        "line {}: {:?} at byte {k}",
                        x + 1,
                        String::from_utf8_lossy(space)
                    )
                }
                Kind::ForeignRecord => {
                    let record = &self.foreign[rng.below(self.foreign.len())];
                    let x = 1 + rng.below(lines.len());
                    lines.insert(x, record.clone());
                    let text = String::from_utf8_lossy(record);
                    format!("line {}: another plan's {}", x + 1, text.trim_end())
                }
                _ => return self.forge(rng),
            },
        };
        (detail, lines.concat())
    }

    /// A record's counts changed, written with its residues and checksum through the library:
    /// a forger's work.
    fn forge(&self, rng: &mut Rng) -> (String, Vec<u8>) {
        let k = rng.below(self.recorded.len());
        let mut records = self.recorded.clone();
        let (part, was) = records[k];
        let t = trials::forged_tally(was, rng);
        records[k] = (part, t);
        let path = self.dir.path().join("forged.ckpt");
        let _ = std::fs::remove_file(&path);
        let detail = format!(
            "part {part}: {} ({}) to {} ({})",
            was.solutions, was.unique8, t.solutions, t.unique8
        );
        (detail, write(&path, &self.plan, &records))
    }
}

/// Writes a checkpoint of `plan` at `path` (a new file) recording `records`, as a count
/// does, and returns its bytes.
fn write(path: &std::path::Path, plan: &Plan, records: &[(usize, Tally)]) -> Vec<u8> {
    let (c, done, skipped) = Checkpoint::open(path, plan, None).expect("a new checkpoint");
    assert!(done.is_empty() && skipped.is_none(), "a new file");
    for &(i, t) in records {
        c.record(i, t).expect("a record queued");
    }
    c.close().expect("the records written");
    drop(c);
    std::fs::read(path).expect("read back")
}

/// One field's value swapped between two records (lines 2 on), each written again as JSON.
fn swap_values(lines: &mut [Vec<u8>], rng: &mut Rng) -> String {
    let x = 1 + rng.below(lines.len() - 1);
    let y = 1 + (x + rng.below(lines.len() - 2)) % (lines.len() - 1);
    let parse = |l: &[u8]| -> serde_json::Value { serde_json::from_slice(l).expect("a record") };
    let (mut vx, mut vy) = (parse(&lines[x]), parse(&lines[y]));
    let keys: Vec<String> = vx.as_object().expect("an object").keys().cloned().collect();
    let key = &keys[rng.below(keys.len())];
    std::mem::swap(&mut vx[key], &mut vy[key]);
    for (at, v) in [(x, vx), (y, vy)] {
        lines[at] = serde_json::to_vec(&v).expect("JSON");
        lines[at].push(b'\n');
    }
    format!("{key} of lines {} and {} swapped", x + 1, y + 1)
}

/// Where whitespace may go in a line of JSON without changing what it says: at its start,
/// after each `{`, `[`, `:` and `,` outside strings, and before its newline.
fn spaces_at(line: &[u8]) -> Vec<usize> {
    let mut at = vec![0, line.len() - 1];
    let (mut quoted, mut escaped) = (false, false);
    for (k, &b) in line.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b'{' | b'[' | b':' | b',' if !quoted => at.push(k + 1),
            _ => {}
        }
    }
    at
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
pub struct Tallies(std::collections::BTreeMap<Kind, [usize; 7]>);

impl Tallies {
    pub const HEADER: &str =
        "kind,trials,open_refused,count_refused,exact,wrong,records_skipped,failures";

    pub fn add(&mut self, trial: &Trial) {
        let row = self.0.entry(trial.kind).or_default();
        row[0] += 1;
        match &trial.verdict {
            Verdict::Refused(_) if trial.refused_at_open => row[1] += 1,
            Verdict::Refused(_) => row[2] += 1,
            Verdict::Exact => row[3] += 1,
            Verdict::Wrong(_) => row[4] += 1,
        }
        row[5] += trial.skipped;
        row[6] += usize::from(trial.failure().is_some());
    }

    /// The rows, a total of the mutations (the forgeries left out) last.
    pub fn csv(&self) -> String {
        let mut all = [0usize; 7];
        let mut text = format!("{}\n", Tallies::HEADER);
        let mut line = |name: &str, row: &[usize; 7]| {
            let cells: Vec<String> = row.iter().map(usize::to_string).collect();
            text.push_str(&format!("{name},{}\n", cells.join(",")));
        };
        for (kind, row) in &self.0 {
            if *kind != Kind::ForgeRecord {
                for (a, r) in all.iter_mut().zip(row) {
                    *a += r;
                }
            }
            line(kind.name(), row);
        }
        line("all-mutations", &all);
        text
    }

    pub fn failures(&self) -> usize {
        self.0.values().map(|r| r[6]).sum()
    }
}
