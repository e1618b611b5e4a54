//! Random attacks on the files a shard run writes, each run through the `nqueens` binary:
//! rescue files planted by someone else (another owner's, of the wrong mode, a symbolic link
//! to a file of the victim's or to a forgery) beside the output or where rescue files used to
//! be kept (`$TMPDIR`), and file size limits (`ulimit -f`, SIGXFSZ not trapped) on the output,
//! the rescue files and the checkpoint. Shared by the `mutate` instrument (`scripts/mutate.sh N
//! SEED files`) and the test suite's sample (`tests/integration/long_runs.rs`).
//!
//! What must hold: the shard's result, once the same command has been run again where it
//! says to (or its standard output saved where it says so), merges with the other shard to
//! the true total; nothing a planted link names is changed; and nothing counted is lost (a
//! run that said where it kept the counts writes them without counting again).

// The test suite's sample uses part of what the example does.
#![allow(dead_code)]

use std::io::{BufRead, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use nqueens_engine::Tally;
use nqueens_engine::run::shard::{self, ShardResult};
use nqueens_engine::types::Residues;

/// The board of the trials (n = 12 in 2 shards: tens of milliseconds a run, results of about
/// 2 KiB and checkpoints of about 30 KiB, so that limits of 0 to 2 KiB fall on each file).
const N: &str = "12";

/// What is done in one trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A rescue file planted for the shard's output.
    PlantedRescue,
    /// The shard run under `ulimit -f`.
    SizeLimit,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::PlantedRescue, Kind::SizeLimit];

    pub fn name(self) -> &'static str {
        match self {
            Kind::PlantedRescue => "planted-rescue",
            Kind::SizeLimit => "size-limit",
        }
    }
}

/// How a trial ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The shard's result merged to the true total.
    Exact,
    /// The shard's result merged to another total, or was refused by the merge.
    Wrong(String),
    /// Counts said to be kept were counted again, or the run ended without them anywhere.
    Lost(String),
    /// A file that a planted link names was changed.
    WrittenThrough,
}

/// One trial: what was done, how it ended, and where the counts went.
#[derive(Clone, Debug)]
pub struct Trial {
    pub kind: Kind,
    pub detail: String,
    pub verdict: Verdict,
    /// Where the shard's counts went first: `output`, `rescue`, `checkpoint`, `stdout`.
    pub went: &'static str,
}

impl Trial {
    /// What is wrong with the trial, if anything.
    pub fn failure(&self) -> Option<String> {
        match &self.verdict {
            Verdict::Exact => None,
            Verdict::Wrong(why) => Some(format!("a wrong or refused result: {why}")),
            Verdict::Lost(why) => Some(format!("counts lost: {why}")),
            Verdict::WrittenThrough => Some("a file a planted link names was changed".into()),
        }
    }
}

/// A scratch folder with the board's genuine shards (counted by the binary) and the truth.
pub struct Lab {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// The genuine results of shards 0/2 and 1/2.
    genuine: [PathBuf; 2],
    truth: Tally,
    root: bool,
}

impl Lab {
    /// Counts the board's two shards with `bin` into a scratch folder.
    pub fn new(bin: &Path) -> Lab {
        let dir = tempfile::Builder::new()
            .prefix("nqueens-mutate-files-")
            .tempdir()
            .expect("a scratch folder");
        let genuine = [0, 1].map(|i| dir.path().join(format!("genuine-{i}.json")));
        for (i, file) in genuine.iter().enumerate() {
            let shard = format!("{i}/2");
            let out = Command::new(bin)
                .args(["count", N, "--shard", &shard, "--output"])
                .arg(file)
                .output()
                .expect("nqueens runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let truth = shard::merge(genuine.to_vec(), false, None)
            .expect("the genuine shards merge")
            .sum
            .outcome
            .tally;
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        Lab {
            bin: bin.to_path_buf(),
            dir,
            genuine,
            truth,
            root,
        }
    }

    /// Does one trial of `kind`, picked from `rng`, in a folder of its own (removed after).
    pub fn trial(&self, kind: Kind, rng: &mut super::trials::Rng) -> Trial {
        let t = tempfile::Builder::new()
            .prefix("trial-")
            .tempdir_in(self.dir.path())
            .expect("a trial folder");
        match kind {
            Kind::PlantedRescue => self.planted(t.path(), rng),
            Kind::SizeLimit => self.limited(t.path(), rng),
        }
    }

    /// The verdict on `out` as shard `i`'s result: merged with the other genuine shard.
    fn merged(&self, out: &Path, i: usize) -> Verdict {
        let files = vec![out.to_path_buf(), self.genuine[1 - i].clone()];
        match shard::merge(files, false, None) {
            Ok(m) if m.sum.outcome.tally == self.truth => Verdict::Exact,
            Ok(m) => Verdict::Wrong(format!("total {}", m.sum.outcome.tally.solutions)),
            Err(e) => Verdict::Wrong(e.to_string()),
        }
    }

    /// `nqueens ARGS` with `$TMPDIR` and this user's cache folder in `t`, run by `bash`
    /// after `setup` (none where empty); where `stage` is given, the folder `out` is made at
    /// the moment the result is to be renamed into place, so that the output cannot take it.
    fn run(&self, t: &Path, setup: &str, args: &[String], out_fails: Option<&Path>) -> Output {
        let mut c = Command::new("bash");
        c.arg("-c")
            .arg(format!("{setup}\nexec \"$@\""))
            .arg("bash")
            .arg(&self.bin)
            .args(args)
            .env("TMPDIR", t.join("tmp"))
            .env("XDG_CACHE_HOME", t.join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let Some(out) = out_fails else {
            return c.output().expect("bash runs");
        };
        c.env("NQUEENS_TEST_WAIT_AT", "output");
        let mut child = c.spawn().expect("bash runs");
        let mut err = std::io::BufReader::new(child.stderr.take().expect("piped"));
        let mut said = Vec::new();
        let mut line = String::new();
        while err.read_line(&mut line).unwrap_or(0) > 0 {
            said.extend_from_slice(line.as_bytes());
            if line.contains("waiting at output") {
                std::fs::create_dir(out).expect("a folder at the output");
                break;
            }
            line.clear();
        }
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(b"\n");
        }
        let _ = err.read_to_end(&mut said);
        let mut done = child.wait_with_output().expect("the run ends");
        done.stderr = said;
        done
    }

    fn planted(&self, t: &Path, rng: &mut super::trials::Rng) -> Trial {
        let (shared, private, tmp) = (t.join("shared"), t.join("private"), t.join("tmp"));
        for (folder, mode) in [(&shared, 0o1777), (&private, 0o700), (&tmp, 0o1777)] {
            std::fs::create_dir(folder).expect("a folder");
            chmod(folder, mode);
        }
        let i = rng.below(2);
        let folder = if rng.below(2) == 0 { &shared } else { &private };
        let out = folder.join("s.json");
        // The forgery: this shard with one part raised (checksums recomputed), the other
        // shard's genuine result, or this shard's genuine result from another run.
        let forged = t.join("forged.json");
        let what = self.forge(i, &forged, rng);
        let victim = t.join("victim");
        std::fs::write(&victim, "precious").expect("written");
        let crc = crc32fast::hash(out.as_os_str().as_encoded_bytes());
        let old = tmp.join(format!("nqueens-{crc:08x}-s.json.rescue"));
        let beside = folder.join("s.json.rescue");
        let places: Vec<&PathBuf> = match rng.below(3) {
            0 => vec![&beside],
            1 => vec![&old],
            _ => vec![&beside, &old],
        };
        let plant = rng.below(4);
        let how = match plant {
            0 if self.root => "another owner's",
            0 | 1 => "of mode 0644",
            2 => "a link to the victim's file",
            _ => "a link to the forgery",
        };
        for at in &places {
            self.plant(plant, at, &forged, &victim);
        }
        let fails = rng.below(2) == 0;
        let detail = format!(
            "shard {i}/2, output in a {} folder, {how} ({what}) {}{}",
            if *folder == shared {
                "shared"
            } else {
                "private"
            },
            match places.len() {
                2 => "beside it and in $TMPDIR",
                _ if places[0] == &beside => "beside it",
                _ => "in $TMPDIR",
            },
            if fails { ", the output failing" } else { "" }
        );
        let args: Vec<String> = ["count", N, "--shard", &format!("{i}/2"), "--output"]
            .iter()
            .map(|s| s.to_string())
            .chain([out.to_string_lossy().into_owned()])
            .collect();
        let forged_before = std::fs::read(&forged).expect("read");
        let first = self.run(t, "", &args, fails.then_some(out.as_path()));
        let mut went = "output";
        let verdict = (|| {
            if fails {
                let err = String::from_utf8_lossy(&first.stderr);
                if !err.contains("the shard's counts are kept in") {
                    return Verdict::Lost(format!("not kept: {err}"));
                }
                went = "rescue";
                std::fs::remove_dir(&out).expect("the folder goes");
                let again = self.run(t, "", &args, None);
                let err = String::from_utf8_lossy(&again.stderr);
                if !again.status.success() || !err.contains("nothing counted again") {
                    return Verdict::Lost(format!("counted again: {err}"));
                }
            } else if !first.status.success() {
                return Verdict::Lost(String::from_utf8_lossy(&first.stderr).into_owned());
            }
            self.merged(&out, i)
        })();
        let untouched = std::fs::read(&victim).is_ok_and(|v| v == b"precious")
            && std::fs::read(&forged).is_ok_and(|f| f == forged_before);
        Trial {
            kind: Kind::PlantedRescue,
            detail,
            verdict: if untouched && verdict == Verdict::Exact {
                verdict
            } else if !untouched {
                Verdict::WrittenThrough
            } else {
                verdict
            },
            went,
        }
    }

    /// Writes at `forged` (mode 0600) what a forger plants as shard `i`'s rescue file: this
    /// shard with one part raised (checksums recomputed), the other shard's genuine result,
    /// or this shard's genuine result from another run. Says which.
    fn forge(&self, i: usize, forged: &Path, rng: &mut super::trials::Rng) -> &'static str {
        let (content, what) = match rng.below(3) {
            0 => {
                let mut r = read(&self.genuine[i]);
                let k = rng.below(r.subproblems.len());
                r.subproblems[k].1 += 8 * (1 + rng.below(100) as u128);
                r.subproblems[k].2 += 8;
                reseal(&mut r);
                (r, "a part raised")
            }
            1 => (read(&self.genuine[1 - i]), "the other shard"),
            _ => (read(&self.genuine[i]), "this shard, genuine"),
        };
        std::fs::write(forged, content.text().expect("serializes")).expect("written");
        chmod(forged, 0o600);
        what
    }

    /// Plants at `at` the file of kind `plant`: the forgery as another owner's (root) or of
    /// mode 0644 (0, 1), or a link to the victim's file (2) or to the forgery (3).
    fn plant(&self, plant: usize, at: &Path, forged: &Path, victim: &Path) {
        match plant {
            0 | 1 => {
                std::fs::copy(forged, at).expect("copied");
                chmod(at, 0o600);
                if plant == 0 && self.root {
                    std::os::unix::fs::chown(at, Some(65534), Some(65534)).expect("chown");
                } else {
                    chmod(at, 0o644);
                }
            }
            2 => std::os::unix::fs::symlink(victim, at).expect("a link"),
            _ => std::os::unix::fs::symlink(forged, at).expect("a link"),
        }
    }

    fn limited(&self, t: &Path, rng: &mut super::trials::Rng) -> Trial {
        let i = rng.below(2);
        let kib = rng.below(3);
        let out = t.join("s.json");
        let mut args: Vec<String> = ["count", N, "--shard", &format!("{i}/2"), "--output"]
            .iter()
            .map(|s| s.to_string())
            .chain([out.to_string_lossy().into_owned()])
            .collect();
        let checkpoint = rng.below(2) == 0;
        if checkpoint {
            args.extend([
                "--checkpoint".into(),
                t.join("s.ckpt").to_string_lossy().into(),
            ]);
        }
        let detail = format!(
            "shard {i}/2 under ulimit -f {kib}{}",
            if checkpoint { " with a checkpoint" } else { "" }
        );
        let first = self.run(t, &format!("ulimit -f {kib}"), &args, None);
        let err = String::from_utf8_lossy(&first.stderr).into_owned();
        let mut went = "output";
        let verdict = (|| {
            match first.status.code() {
                Some(0) => {}
                Some(1) if err.contains("written to standard output instead") => {
                    went = "stdout";
                    std::fs::write(&out, &first.stdout).expect("saved");
                }
                Some(1) if err.contains("the shard's counts are") => {
                    went = if err.contains("all in checkpoint") {
                        "checkpoint"
                    } else {
                        "rescue"
                    };
                    let again = self.run(t, "", &args, None);
                    let said = String::from_utf8_lossy(&again.stderr);
                    let resumed = said.contains("nothing counted again")
                        || said
                            .lines()
                            .any(|l| l.starts_with("resuming: ") && whole_resume(l));
                    if !again.status.success() || !resumed {
                        return Verdict::Lost(format!("counted again: {said}"));
                    }
                }
                // Refused before counting (a checkpoint that cannot take its header): nothing
                // was counted, so nothing is lost; the same command without the limit counts.
                Some(1) if err.contains("cannot write checkpoint") && !err.contains("shard's") => {
                    went = "nothing counted";
                    let again = self.run(t, "", &args, None);
                    if !again.status.success() {
                        return Verdict::Lost(String::from_utf8_lossy(&again.stderr).into());
                    }
                }
                _ => return Verdict::Lost(format!("{:?}: {err}", first.status)),
            }
            self.merged(&out, i)
        })();
        Trial {
            kind: Kind::SizeLimit,
            detail,
            verdict,
            went,
        }
    }
}

/// Whether a `resuming: K of M parts done` line says every part was done.
fn whole_resume(line: &str) -> bool {
    let words: Vec<&str> = line.split(' ').collect();
    words.len() > 3 && words[1] == words[3]
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn read(p: &Path) -> ShardResult {
    serde_json::from_slice(&std::fs::read(p).expect("read")).expect("a shard result")
}

/// Recomputes a result's sums, residues and digest after its parts were changed.
fn reseal(r: &mut ShardResult) {
    let each: Vec<Tally> = r.each().map(|(_, t)| t).collect();
    let sum: Tally = each.iter().copied().sum();
    r.solutions = sum.solutions;
    r.unique8 = sum.unique8;
    r.residues = each.into_iter().map(Residues::of).sum();
    r.seal();
}

/// Verdicts by kind, and where the counts went.
#[derive(Default)]
pub struct Tallies {
    rows: std::collections::BTreeMap<(Kind, &'static str), [usize; 4]>,
}

impl Tallies {
    pub fn add(&mut self, t: &Trial) {
        let row = self.rows.entry((t.kind, t.went)).or_default();
        row[match t.verdict {
            Verdict::Exact => 0,
            Verdict::Wrong(_) => 1,
            Verdict::Lost(_) => 2,
            Verdict::WrittenThrough => 3,
        }] += 1;
    }

    /// The trials that failed.
    pub fn failures(&self) -> usize {
        self.rows.values().map(|r| r[1] + r[2] + r[3]).sum()
    }

    /// The table: kind, where the counts went, trials, exact, wrong, lost, written through;
    /// then the row of all trials.
    pub fn csv(&self) -> String {
        let mut text = String::from("kind,went,trials,exact,wrong,lost,written_through\n");
        let mut all = [0usize; 4];
        for ((kind, went), r) in &self.rows {
            let n: usize = r.iter().sum();
            text += &format!(
                "{},{went},{n},{},{},{},{}\n",
                kind.name(),
                r[0],
                r[1],
                r[2],
                r[3]
            );
            for (a, x) in all.iter_mut().zip(r) {
                *a += x;
            }
        }
        let n: usize = all.iter().sum();
        text += &format!("all,-,{n},{},{},{},{}\n", all[0], all[1], all[2], all[3]);
        text
    }
}

/// Runs `count` trials with the binary `bin`, the kinds taking turns, from `seed`, calling
/// `each` with every trial's number and outcome.
pub fn run(bin: &Path, count: usize, seed: u64, mut each: impl FnMut(usize, &Trial)) {
    let lab = Lab::new(bin);
    let mut rng = super::trials::Rng::new(seed);
    for t in 0..count {
        let kind = Kind::ALL[t % Kind::ALL.len()];
        let trial = lab.trial(kind, &mut rng);
        each(t, &trial);
    }
}
