//! Resume files and shard results for long runs.
//!
//! A **checkpoint** is a JSON Lines file: a header naming the board, mode, split depth,
//! the task list's size and fingerprint (and the shard, if any), then one record per
//! finished task with its counts and a CRC-32 of them. Records are appended by the workers
//! and written with `fsync` in small batches, so a run killed at any moment loses at most
//! the tasks in flight and the last unsynced batch; a torn last line (a crash mid-write) is
//! ignored, cut off and recounted. Anything else that does not fit (another configuration,
//! a damaged record before the end, a task counted twice) is an error, never a silently
//! wrong total.
//!
//! A **shard result** is one JSON object: the configuration, which part `I/K` of the tasks
//! it covers, its partial counts and a CRC-32 of all that. `merge` adds shard results up
//! after checking that they are complete, distinct, of one configuration and untouched.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};

use crate::Symmetry;
use crate::engine::{Plan, Tally};

const CHECKPOINT_FORMAT: &str = "nqueens-checkpoint";
const SHARD_FORMAT: &str = "nqueens-shard";
const VERSION: u32 = 1;

/// What a checkpoint or shard result was made for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Board size.
    pub n: u32,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Split depth.
    pub split_depth: usize,
    /// Number of tasks in the whole plan.
    pub tasks: usize,
    /// [`Plan::fingerprint`] of the plan.
    pub fingerprint: u32,
}

impl Config {
    /// The configuration of a plan.
    pub fn of(plan: &Plan) -> Config {
        Config {
            n: plan.n,
            symmetry: plan.symmetry,
            split_depth: plan.split_depth,
            tasks: plan.tasks.len(),
            fingerprint: plan.fingerprint(),
        }
    }

    fn describe(&self) -> String {
        format!(
            "n = {}, symmetry {}, split depth {}, {} subproblems (fingerprint {:08x})",
            self.n, self.symmetry, self.split_depth, self.tasks, self.fingerprint
        )
    }
}

/// Part `index` of `count` disjoint parts of a plan's tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which part, `0..count`.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The tasks of shard `shard`: the plan's tasks dealt, costliest first, each to the part
/// with the least estimated cost so far (ties to the lower part), so parts take about the
/// same time. Deterministic for a given plan. Returned in increasing order.
pub fn shard_tasks(costs: &[u64], shard: Shard) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0u128; shard.count];
    let mut mine = Vec::new();
    for i in order {
        let part = (0..shard.count).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[part] += u128::from(costs[i]);
        if part == shard.index {
            mine.push(i);
        }
    }
    mine.sort_unstable();
    mine
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    config: Config,
    shard: Option<Shard>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    task: usize,
    solutions: u128,
    unique8: u128,
    crc: u32,
}

fn record_crc(task: usize, t: Tally) -> u32 {
    crc32fast::hash(format!("{task} {} {}", t.solutions, t.unique8).as_bytes())
}

/// Records written and not yet synced, flushed every this many records or this long.
const BATCH: usize = 16;
const BATCH_TIME: Duration = Duration::from_secs(1);

struct Pending {
    file: File,
    lines: Vec<u8>,
    records: usize,
    since: Instant,
    written: usize,
}

/// An open checkpoint that finished tasks are appended to.
pub struct Checkpoint {
    path: PathBuf,
    pending: Mutex<Pending>,
}

impl Checkpoint {
    /// Opens (or creates) the checkpoint of `plan` (and `shard`) at `path`, returning it
    /// and the tasks it already holds with their counts.
    pub fn open(
        path: &Path,
        plan: &Plan,
        shard: Option<Shard>,
    ) -> Result<(Checkpoint, HashMap<usize, Tally>)> {
        let header = Header {
            format: CHECKPOINT_FORMAT.into(),
            version: VERSION,
            config: Config::of(plan),
            shard,
        };
        let shown = path.display();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open checkpoint {shown}"))?;
        let mut done = HashMap::new();
        let len = file.metadata()?.len();
        let mut keep = 0u64;
        if len == 0 {
            let mut line = serde_json::to_vec(&header)?;
            line.push(b'\n');
            file.write_all(&line)?;
            file.sync_all()?;
            keep = line.len() as u64;
        } else {
            let mut reader = BufReader::new(&file);
            let mut line = Vec::new();
            let mut number = 0usize;
            loop {
                line.clear();
                let read = reader.read_until(b'\n', &mut line)?;
                if read == 0 {
                    break;
                }
                number += 1;
                let complete = line.ends_with(b"\n");
                let at_end = keep + read as u64 == len;
                if number == 1 {
                    let found: Header = serde_json::from_slice(&line)
                        .ok()
                        .filter(|h: &Header| h.format == CHECKPOINT_FORMAT && complete)
                        .with_context(|| format!("{shown} is not an nqueens checkpoint (its first line is not a header)"))?;
                    ensure!(
                        found.version == VERSION,
                        "{shown} is a version {} checkpoint; this nqueens reads version {VERSION}",
                        found.version
                    );
                    if found != header {
                        bail!(
                            "{shown} was written for {}{}; this run is {}{}: use another file, or the command that made it",
                            found.config.describe(),
                            found
                                .shard
                                .map(|s| format!(", shard {s}"))
                                .unwrap_or_default(),
                            header.config.describe(),
                            header
                                .shard
                                .map(|s| format!(", shard {s}"))
                                .unwrap_or_default(),
                        );
                    }
                    keep += read as u64;
                    continue;
                }
                let record = serde_json::from_slice::<Record>(&line).ok().filter(|r| {
                    complete
                        && r.crc
                            == record_crc(
                                r.task,
                                Tally {
                                    solutions: r.solutions,
                                    unique8: r.unique8,
                                },
                            )
                });
                match record {
                    Some(r) => {
                        ensure!(
                            r.task < plan.tasks.len(),
                            "{shown}, line {number}: subproblem {} does not exist",
                            r.task
                        );
                        let t = Tally {
                            solutions: r.solutions,
                            unique8: r.unique8,
                        };
                        ensure!(
                            done.insert(r.task, t).is_none(),
                            "{shown}, line {number}: subproblem {} is recorded twice",
                            r.task
                        );
                        keep += read as u64;
                    }
                    // A torn last record: the crash came mid-write. It is recounted.
                    None if at_end => break,
                    None => bail!(
                        "{shown}, line {number}: damaged record (checksum or format); the checkpoint cannot be trusted"
                    ),
                }
            }
            // Cut a torn tail so new records start on a line of their own.
            file.set_len(keep)?;
            file.sync_all()?;
        }
        file.seek(SeekFrom::Start(keep))?;
        let pending = Pending {
            file,
            lines: Vec::new(),
            records: 0,
            since: Instant::now(),
            written: 0,
        };
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                pending: Mutex::new(pending),
            },
            done,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a finished task; syncs the file every few records or every second.
    pub fn record(&self, task: usize, tally: Tally) -> Result<()> {
        let record = Record {
            task,
            solutions: tally.solutions,
            unique8: tally.unique8,
            crc: record_crc(task, tally),
        };
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        serde_json::to_writer(&mut p.lines, &record)?;
        p.lines.push(b'\n');
        p.records += 1;
        if p.records >= BATCH || p.since.elapsed() >= BATCH_TIME {
            Self::sync(&mut p)
                .with_context(|| format!("writing checkpoint {}", self.path.display()))?;
        }
        Ok(())
    }

    /// Writes and syncs every record so far; returns how many this run has made durable.
    pub fn flush(&self) -> Result<usize> {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        Self::sync(&mut p)
            .with_context(|| format!("writing checkpoint {}", self.path.display()))?;
        Ok(p.written)
    }

    fn sync(p: &mut Pending) -> std::io::Result<()> {
        if !p.lines.is_empty() {
            let lines = std::mem::take(&mut p.lines);
            p.file.write_all(&lines)?;
            p.file.sync_data()?;
            p.written += p.records;
        }
        p.records = 0;
        p.since = Instant::now();
        Ok(())
    }
}

/// The partial counts of one shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardResult {
    /// Always "nqueens-shard".
    pub format: String,
    /// File format version.
    pub version: u32,
    /// What was counted.
    pub config: Config,
    /// Which part.
    pub shard: Shard,
    /// Number of tasks in this part.
    pub shard_tasks: usize,
    /// Solutions in this part.
    pub solutions: u128,
    /// Eight times the fundamental solutions in this part (full mode).
    pub unique8: u128,
    /// Worker threads used.
    pub threads: usize,
    /// Seconds this part took (its last run, when resumed).
    pub elapsed_s: f64,
    /// CRC-32 (hex) of the object's JSON with this field empty.
    pub checksum: String,
}

impl ShardResult {
    /// A shard result with its checksum.
    pub fn new(
        plan: &Plan,
        shard: Shard,
        shard_tasks: usize,
        tally: Tally,
        threads: usize,
        elapsed_s: f64,
    ) -> ShardResult {
        let mut r = ShardResult {
            format: SHARD_FORMAT.into(),
            version: VERSION,
            config: Config::of(plan),
            shard,
            shard_tasks,
            solutions: tally.solutions,
            unique8: tally.unique8,
            threads,
            elapsed_s,
            checksum: String::new(),
        };
        r.checksum = r.computed_checksum();
        r
    }

    fn computed_checksum(&self) -> String {
        let mut blank = self.clone();
        blank.checksum.clear();
        format!(
            "{:08x}",
            crc32fast::hash(&serde_json::to_vec(&blank).unwrap_or_default())
        )
    }

    /// Writes the result atomically: to a temporary file beside `path`, synced, then renamed.
    pub fn write(&self, path: &Path) -> Result<()> {
        let tmp = path.with_extension("tmp");
        let mut text = serde_json::to_vec_pretty(self)?;
        text.push(b'\n');
        let mut f =
            File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
        f.write_all(&text)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot move {} to {}", tmp.display(), path.display()))?;
        Ok(())
    }

    /// Reads a shard result and checks its checksum.
    pub fn read(path: &Path) -> Result<ShardResult> {
        let shown = path.display();
        let text =
            std::fs::read(path).with_context(|| format!("cannot read shard result {shown}"))?;
        let r: ShardResult = serde_json::from_slice(&text)
            .ok()
            .filter(|r: &ShardResult| r.format == SHARD_FORMAT)
            .with_context(|| format!("{shown} is not an nqueens shard result"))?;
        ensure!(
            r.version == VERSION,
            "{shown} is a version {} shard result; this nqueens reads version {VERSION}",
            r.version
        );
        ensure!(
            r.checksum == r.computed_checksum(),
            "{shown} (shard {}): its checksum does not match its content; it was changed or damaged",
            r.shard
        );
        Ok(r)
    }
}

/// Adds up shard results after checking that they are shards `0..K` of one configuration,
/// each exactly once. Returns the configuration, the summed counts, the most threads any
/// shard used and the longest shard time.
pub fn merge(paths: &[PathBuf]) -> Result<(Config, Tally, usize, f64)> {
    ensure!(!paths.is_empty(), "merge needs at least one shard result");
    let results: Vec<(&PathBuf, ShardResult)> = paths
        .iter()
        .map(|p| ShardResult::read(p).map(|r| (p, r)))
        .collect::<Result<_>>()?;
    let (first_path, first) = &results[0];
    let mut seen: HashMap<usize, &PathBuf> = HashMap::new();
    for (path, r) in &results {
        if r.config != first.config || r.shard.count != first.shard.count {
            bail!(
                "{} (shard {}) is for {} in {} parts, but {} is for {} in {} parts",
                path.display(),
                r.shard,
                r.config.describe(),
                r.shard.count,
                first_path.display(),
                first.config.describe(),
                first.shard.count
            );
        }
        ensure!(
            r.shard.index < r.shard.count,
            "{}: shard {} does not exist",
            path.display(),
            r.shard
        );
        if let Some(other) = seen.insert(r.shard.index, path) {
            bail!(
                "{} and {} are both shard {}",
                other.display(),
                path.display(),
                r.shard
            );
        }
    }
    let missing: Vec<String> = (0..first.shard.count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    ensure!(
        missing.is_empty(),
        "missing shard(s) {} of {}",
        missing.join(", "),
        first.shard.count
    );
    let tally = results.iter().fold(Tally::default(), |a, (_, r)| {
        a + Tally {
            solutions: r.solutions,
            unique8: r.unique8,
        }
    });
    let threads = results.iter().map(|(_, r)| r.threads).max().unwrap_or(1);
    let elapsed = results.iter().map(|(_, r)| r.elapsed_s).fold(0.0, f64::max);
    Ok((first.config.clone(), tally, threads, elapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_tasks_and_balance_cost() {
        let costs: Vec<u64> = (0..100u64).map(|i| (i * 7919) % 1000 + 1).collect();
        for k in [1, 2, 3, 7, 100, 150] {
            let parts: Vec<Vec<usize>> = (0..k)
                .map(|i| shard_tasks(&costs, Shard { index: i, count: k }))
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
}
