//! Quorum: one plan counted several times over by independent runs (on hosts one does not
//! control, as volunteer computing's redundancy does), merged part by part.
//!
//! `merge --quorum K` takes the shard results of every run at once, in any slicing (one
//! host's 16 shards beside another's 7), and accepts a part only where `K` runs counted it
//! and every copy of it agrees. A run is a process ([`ShardResult::run`]): copies of one
//! run's file are one vote, and two files that name one run but differ are refused. Each
//! file is still checked whole, as a plain merge checks it: its format and digest, its
//! plan, and that it holds exactly the parts the plan deals its shard.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::run::durable::FileError;
use crate::run::plan::Plan;
use crate::run::shard::{
    self, Disagreement, MergeError, Pick, Sampler, ShardResult, Sum, cost_share, dealt_elsewhere,
    ranges_where,
};
use crate::types::{Kernel, Tally};

/// The most copies a quorum can ask for.
pub const MAX_QUORUM: usize = 64;

/// Runs' shard results merged part by part under a quorum ([`merge`]).
pub struct Agreed {
    /// The plan, the sums of the parts that have a quorum, the files and the audit's sample.
    pub sum: Sum,
    /// The runs that must agree on a part.
    pub quorum: usize,
    /// The runs whose files were merged.
    pub runs: usize,
    /// The hosts those runs name, each once, in order.
    pub hosts: Vec<String>,
    /// The files left out as copies of a file of the same run: each with the file merged.
    pub copies: Vec<(PathBuf, PathBuf)>,
    /// Per part, the runs that counted it.
    votes: Vec<u32>,
}

impl Agreed {
    /// Whether a part has its quorum.
    fn agreed(&self, i: usize) -> bool {
        self.votes[i] as usize >= self.quorum
    }

    /// Whether every part of the plan has its quorum.
    pub fn complete(&self) -> bool {
        (0..self.votes.len()).all(|i| self.agreed(i))
    }

    /// The parts that have their quorum.
    pub fn parts_agreed(&self) -> usize {
        (0..self.votes.len()).filter(|&i| self.agreed(i)).count()
    }

    /// The share of the plan's estimated cost in the parts that have their quorum, 0 to 1.
    pub fn cost_agreed(&self) -> f64 {
        cost_share(&self.sum.plan, |i| self.agreed(i))
    }

    /// The parts that lack their quorum, as inclusive ranges, in increasing order.
    pub fn lacking(&self) -> Vec<(usize, usize)> {
        ranges_where(self.votes.len(), |i| !self.agreed(i))
    }
}

/// One part's votes so far: the counts of the first file that holds it, and how many runs
/// have counted it.
#[derive(Clone, Copy, Default)]
struct Votes {
    first: Tally,
    file: u32,
    runs: u32,
}

/// A quorum merge under way.
struct Tallying {
    sum: Sum,
    quorum: usize,
    votes: Vec<Votes>,
    /// Each run merged: its file (an index into the files) and that file's digest.
    runs: HashMap<String, (u32, String)>,
    /// Per shard count, the shard each part is dealt to and the parts each shard holds.
    deals: HashMap<usize, (Vec<u32>, Vec<usize>)>,
    disagreements: Vec<Disagreement>,
    hosts: BTreeSet<String>,
    copies: Vec<(PathBuf, PathBuf)>,
}

/// Merges the shard results at `paths`, counted by several runs, part by part: a part is
/// summed where `quorum` runs counted it and all its copies agree. Refuses every
/// disagreement (named: the part, both files, both counts), two files of one run that
/// differ, and what a plain [`shard::merge`] refuses of a file in itself; and, unless
/// `partial`, parts that lack the quorum. With a `pick`, the audit's sample is drawn from
/// the parts summed, with the counts read.
///
/// Run it inside [`crate::Engine::install`]: the files are read in parallel, a batch at a
/// time. Every part's first counts are kept (40 bytes a part), not the files.
pub fn merge(
    paths: impl IntoIterator<Item = PathBuf>,
    quorum: usize,
    partial: bool,
    pick: Option<Pick>,
) -> Result<Agreed, MergeError> {
    let start = |plan: Plan, r: &ShardResult| Tallying::new(plan, r.kernel, quorum);
    shard::read_each(paths, false, start, |t, path, r| t.add(path, r))?.finish(partial, pick)
}

impl Tallying {
    fn new(plan: Plan, kernel: Kernel, quorum: usize) -> Tallying {
        Tallying {
            votes: vec![Votes::default(); plan.len()],
            sum: shard::Sum::new(plan, kernel),
            quorum,
            runs: HashMap::new(),
            deals: HashMap::new(),
            disagreements: Vec::new(),
            hosts: BTreeSet::new(),
            copies: Vec::new(),
        }
    }

    /// Adds shard result `r`, read from `path`: left out where it is a copy of a file of
    /// its run already merged, refused where it names that run but differs, or is not
    /// whole; else a vote for each of its parts.
    fn add(&mut self, path: PathBuf, r: ShardResult) -> Result<(), MergeError> {
        if let Some((f, digest)) = self.runs.get(&r.run) {
            let first = self.sum.files[*f as usize].clone();
            if *digest == r.digest {
                self.copies.push((path, first));
                return Ok(());
            }
            return Err(MergeError::SameRun {
                first,
                second: path,
                run: r.run,
                host: r.host,
            });
        }
        self.check_whole(&path, &r)?;
        let me = self.sum.note(path, &r);
        for (i, t) in r.each() {
            self.vote(i, t, me);
        }
        self.hosts.insert(r.host);
        self.runs.insert(r.run, (me, r.digest));
        Ok(())
    }

    /// Counts file `me`'s vote of `t` for part `i`, noting a disagreement with the first.
    fn vote(&mut self, i: usize, t: Tally, me: u32) {
        let v = &mut self.votes[i];
        if v.runs == 0 {
            (v.first, v.file) = (t, me);
        } else if v.first != t {
            self.disagreements.push(Disagreement {
                part: i,
                first: self.sum.files[v.file as usize].clone(),
                counted: v.first,
                second: self.sum.files[me as usize].clone(),
                other: t,
            });
        }
        v.runs += 1;
    }

    /// Checks that `r` (read from `path`) holds exactly the parts the plan deals its shard.
    fn check_whole(&mut self, path: &Path, r: &ShardResult) -> Result<(), MergeError> {
        let plan = &self.sum.plan;
        let (deal_of, sizes) = self.deals.entry(r.shard.count).or_insert_with(|| {
            let deal_of = shard::deal_of(plan, r.shard.count);
            let mut sizes = vec![0; r.shard.count];
            for &s in &deal_of {
                sizes[s as usize] += 1;
            }
            (deal_of, sizes)
        });
        if let Some((i, _)) = r
            .each()
            .find(|(i, _)| deal_of[*i] as usize != r.shard.index)
        {
            return Err(dealt_elsewhere(path, r, i, deal_of[i]));
        }
        let dealt = sizes[r.shard.index];
        if r.subproblems.len() != dealt {
            return Err(MergeError::File(FileError::invalid(
                path,
                format!(
                    "(shard {}) holds {} of the {dealt} subproblems the plan deals it: it was changed",
                    r.shard,
                    r.subproblems.len()
                ),
            )));
        }
        Ok(())
    }

    /// The merge, after refusing every disagreement and (unless `partial`) parts that lack
    /// the quorum: the sum of the parts that have it, checked as a whole board's where
    /// every part has, and the audit's sample of them.
    fn finish(self, partial: bool, pick: Option<Pick>) -> Result<Agreed, MergeError> {
        if !self.disagreements.is_empty() {
            return Err(MergeError::Disagree(self.disagreements));
        }
        let mut sum = self.sum;
        let mut sampler = pick.map(|p| Sampler::new(p, self.votes.len()));
        let mut agreed = 0;
        for (i, v) in self.votes.iter().enumerate() {
            if v.runs as usize >= self.quorum {
                sum.add(v.first)?;
                agreed += 1;
                if let Some(s) = &mut sampler {
                    s.offer(i, v.file, v.first);
                }
            }
        }
        let mut done = Agreed {
            quorum: self.quorum,
            runs: self.runs.len(),
            hosts: self.hosts.into_iter().collect(),
            copies: self.copies,
            votes: self.votes.iter().map(|v| v.runs).collect(),
            sum,
        };
        let total = done.votes.len();
        if !partial && agreed < total {
            return Err(MergeError::NoQuorum {
                quorum: done.quorum,
                lacking: total - agreed,
                total,
                parts: shard::ranges_text(&done.lacking(), 20),
                copies: done.copies.len(),
            });
        }
        done.sum.check_burnside(agreed == total)?;
        if let Some(s) = sampler {
            done.sum.sample = s.sample(agreed);
        }
        Ok(done)
    }
}
