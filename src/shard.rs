//! Shards: a plan's subproblems dealt into `K` disjoint, cost-balanced parts that separate
//! runs (a cluster's array tasks) count, and the merge that adds their results up.
//!
//! A **shard result** is one JSON object: the configuration, which part `I/K` of the
//! subproblems it covers, its partial counts and a CRC-32 of all that. `merge` adds shard
//! results up after checking that they are complete, distinct, of one configuration and
//! untouched.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};

use crate::checkpoint::{VERSION, sync_parent};
use crate::plan::{Config, Plan};
use crate::run::Outcome;
use crate::types::{Error, Tally};

const SHARD_FORMAT: &str = "nqueens-shard";

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
        let subproblems = plan.subproblems.len();
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

/// The subproblems of shard `shard`: the plan's subproblems dealt, costliest first, each to the part
/// with the least estimated cost so far (ties to the lower part), so parts take about the
/// same time. Deterministic for a given plan. Returned in increasing order.
pub fn subproblems_of(costs: &[u64], shard: Shard) -> Vec<usize> {
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

/// Where a shard result will go: a temporary file created beside the destination when the
/// run starts (so a missing or unwritable directory fails before any counting), written,
/// synced and renamed over the destination at the end, the directory synced after. Its name
/// is unique to this process and output, so shards writing beside each other never share
/// one. Dropped without [`Output::commit`], it removes the temporary file.
pub struct Output {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl Output {
    /// Creates the temporary file for `path`.
    pub fn create(path: &Path) -> Result<Output> {
        static SERIAL: AtomicUsize = AtomicUsize::new(0);
        let name = path
            .file_name()
            .with_context(|| format!("--output {}: not a file name", path.display()))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(
            ".{}-{}.tmp",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = path.with_file_name(tmp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("--output {}: cannot write there", path.display()))?;
        Ok(Output {
            path: path.to_path_buf(),
            tmp,
            file: Some(file),
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes`, syncs them, renames the temporary file over the destination and
    /// syncs the directory.
    fn commit(mut self, bytes: &[u8]) -> Result<()> {
        let shown = self.tmp.display().to_string();
        let mut file = self.file.take().context("output already written")?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {shown}"))?;
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("cannot move {shown} to {}", self.path.display()))?;
        sync_parent(&self.path)
            .with_context(|| format!("cannot sync the directory of {}", self.path.display()))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
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
    /// Number of subproblems in this part.
    #[serde(alias = "shard_tasks")]
    pub shard_subproblems: usize,
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
        shard_subproblems: usize,
        tally: Tally,
        threads: usize,
        elapsed_s: f64,
    ) -> ShardResult {
        let mut r = ShardResult {
            format: SHARD_FORMAT.into(),
            version: VERSION,
            config: plan.config(),
            shard,
            shard_subproblems,
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

    /// Writes the result atomically through `out` (see [`Output`]).
    pub fn write(&self, out: Output) -> Result<()> {
        let mut text = serde_json::to_vec_pretty(self)?;
        text.push(b'\n');
        out.commit(&text)
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
/// each exactly once, and that this binary makes the same plan for it. Returns the plan
/// and the summed counts, with the most threads any shard used and the longest shard time.
pub fn merge(paths: &[PathBuf]) -> Result<(Plan, Outcome)> {
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
            r.shard.count <= r.config.subproblems,
            "{}: shard {} has more parts than its plan has subproblems ({})",
            path.display(),
            r.shard,
            r.config.subproblems
        );
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
    let config = &first.config;
    let plan = Plan::new(config.n, config.symmetry, config.split_depth)
        .with_context(|| format!("{}: {}", first_path.display(), config.describe()))?;
    ensure!(
        plan.config() == *config,
        "the shards are for {}, but this nqueens plans {}: merge them with the nqueens that made them",
        config.describe(),
        plan.config().describe()
    );
    let tally = results
        .iter()
        .map(|(_, r)| Tally {
            solutions: r.solutions,
            unique8: r.unique8,
        })
        .sum();
    let outcome = Outcome {
        tally,
        threads: results.iter().map(|(_, r)| r.threads).max().unwrap_or(1),
        elapsed_s: results.iter().map(|(_, r)| r.elapsed_s).fold(0.0, f64::max),
    };
    Ok((plan, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
