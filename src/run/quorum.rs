//! Quorum: one plan counted several times over by independent runs (on hosts one does not
//! control, as volunteer computing's redundancy does), merged part by part.
//!
//! `merge --quorum K` takes the shard results of every run at once, in any slicing (one
//! host's 16 shards beside another's 7), grouped by [`Source`] (where the caller found
//! them: one folder, or one list), and accepts a part only where runs of `K` sources
//! counted it and every copy of it agrees: runs of one source, however many, are one vote.
//! A run is a process ([`ShardResult::run`]): copies of one run's file are one run, counted
//! for the source it is read from first, and two files that name one run but differ are
//! refused. Each file is still checked whole, as a plain merge checks it: its format and
//! digest, its plan, and that it holds exactly the parts the plan deals its shard.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::run::durable::FileError;
use crate::run::plan::Plan;
use crate::run::shard::{
    self, Disagreement, MergeError, Pick, Sampler, Shard, ShardResult, Sum, cost_share,
    dealt_elsewhere, ranges_where,
};
use crate::types::{Kernel, Tally};

/// The most copies a quorum can ask for.
pub const MAX_QUORUM: usize = 64;

/// Shard results from one place: what one party is taken to have made. A quorum counts
/// votes by source, not by run, so that one party's many runs are one vote. The caller
/// decides what a source is (`nqueens merge`: a folder, or a list of paths) and gives each
/// once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The source's name in messages (`nqueens merge`: its canonical path).
    pub name: PathBuf,
    /// Its shard results, in the order read.
    pub files: Vec<PathBuf>,
}

/// Runs' shard results merged part by part under a quorum ([`merge`]).
pub struct Agreed {
    /// The plan, the sums of the parts that have a quorum, the files and the audit's sample.
    pub sum: Sum,
    /// The sources that must agree on a part.
    pub quorum: usize,
    /// The runs whose files were merged.
    pub runs: usize,
    /// The sources those runs came from, each once, in order.
    pub sources: Vec<PathBuf>,
    /// The hosts those runs name, each once, in order.
    pub hosts: Vec<String>,
    /// The files left out as copies of a file of the same run: each with the file merged.
    pub copies: Vec<(PathBuf, PathBuf)>,
    /// Per part, the sources whose runs counted it.
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

/// One part's votes so far: the counts of the first file that holds it, how many sources
/// have counted it, and the last of them (its index + 1; 0 for none). The files come
/// source by source, so a source's vote is counted at its first run that holds the part.
#[derive(Clone, Copy, Default)]
struct Votes {
    first: Tally,
    file: u32,
    sources: u32,
    last: u32,
}

/// A quorum merge under way.
struct Tallying {
    sum: Sum,
    quorum: usize,
    votes: Vec<Votes>,
    /// Each run merged: its file (an index into the files) and that file's digest.
    runs: HashMap<String, (u32, String)>,
    /// The plan's deals into the shard counts of the files read lately ([`Deals`]).
    deals: Deals,
    disagreements: Vec<Disagreement>,
    hosts: BTreeSet<String>,
    copies: Vec<(PathBuf, PathBuf)>,
    /// Per source, the files read before its first and its name; and the source of the
    /// file being read, with the files read so far.
    sources: Vec<(usize, PathBuf)>,
    at: (usize, usize),
    /// The sources that gave a run.
    voted: Vec<bool>,
    /// Per file merged, its shard and source.
    file_of: Vec<(Shard, u32)>,
}

/// The plan's deals into the shard counts of the files read lately: each a part's shard per
/// part (4 bytes a part), at most [`DEALS_KEPT`] of them, the least lately used dropped
/// first. Files come a run at a time, each run's in one slicing, so a deal is made about
/// once a slicing and memory stays bounded by the plan, however many slicings the files
/// hold.
struct Deals {
    /// The plan's parts, costliest first: the order a deal takes them in.
    order: Vec<u32>,
    /// Per shard count, the shard each part is dealt to, and the parts each shard holds;
    /// the most lately used last.
    kept: Vec<(usize, Vec<u32>, Vec<u32>)>,
}

/// The most files a refusal for want of a quorum names.
const HELD_NAMED: usize = 5;

/// The most deals [`Deals`] keeps: for n = 22's 176,871 parts, 11 MiB.
const DEALS_KEPT: usize = 16;

impl Deals {
    fn new(plan: &Plan) -> Deals {
        Deals {
            order: shard::cost_order(plan.costs()),
            kept: Vec::new(),
        }
    }

    /// The deal of `plan` into `count` shards: the shard of each part, and the parts of
    /// each shard.
    fn of(&mut self, plan: &Plan, count: usize) -> (&[u32], &[u32]) {
        match self.kept.iter().position(|(k, _, _)| *k == count) {
            Some(at) => {
                let used = self.kept.remove(at);
                self.kept.push(used);
            }
            None => {
                if self.kept.len() == DEALS_KEPT {
                    self.kept.remove(0);
                }
                let deal_of = shard::deal_in_order(plan.costs(), &self.order, count);
                let mut sizes = vec![0; count];
                for &s in &deal_of {
                    sizes[s as usize] += 1;
                }
                self.kept.push((count, deal_of, sizes));
            }
        }
        let (_, deal_of, sizes) = &self.kept[self.kept.len() - 1];
        (deal_of, sizes)
    }
}

/// Merges the shard results of `sources`, counted by several runs, part by part: a part is
/// summed where runs of `quorum` sources counted it and all its copies agree. Refuses every
/// disagreement (named: the part, both files, both counts), two files of one run that
/// differ, and what a plain [`shard::merge`] refuses of a file in itself; and, unless
/// `partial`, parts that lack the quorum (named, with files that hold them). With a `pick`,
/// the audit's sample is drawn from the parts summed, with the counts read.
///
/// Run it inside [`crate::Engine::install`]: the files are read in parallel, a batch at a
/// time. Every part's first counts and votes are kept (48 bytes a part) and the deals of the
/// slicings read lately, not the files: memory is bounded by the plan, not by the files.
pub fn merge(
    sources: Vec<Source>,
    quorum: usize,
    partial: bool,
    pick: Option<Pick>,
) -> Result<Agreed, MergeError> {
    let mut starts = Vec::with_capacity(sources.len());
    let mut files = Vec::new();
    for s in sources {
        starts.push((files.len(), s.name));
        files.extend(s.files);
    }
    let start = |plan: Plan, r: &ShardResult| Tallying::new(plan, r.kernel, (quorum, starts));
    shard::read_each(files, false, start, |t, path, r| t.add(path, r))?.finish(partial, pick)
}

impl Tallying {
    /// Nothing merged yet of `plan` (the first file's loop `kernel`) under `quorum`, of the
    /// sources that start at the files `sources` says.
    fn new(
        plan: Plan,
        kernel: Kernel,
        (quorum, sources): (usize, Vec<(usize, PathBuf)>),
    ) -> Tallying {
        Tallying {
            votes: vec![Votes::default(); plan.len()],
            deals: Deals::new(&plan),
            sum: shard::Sum::new(plan, kernel),
            quorum,
            runs: HashMap::new(),
            disagreements: Vec::new(),
            hosts: BTreeSet::new(),
            copies: Vec::new(),
            voted: vec![false; sources.len()],
            sources,
            at: (0, 0),
            file_of: Vec::new(),
        }
    }

    /// The source of the next file read: the last whose first file is at or before it.
    fn next_source(&mut self) -> usize {
        let (mut s, read) = self.at;
        while s + 1 < self.sources.len() && self.sources[s + 1].0 <= read {
            s += 1;
        }
        self.at = (s, read + 1);
        s
    }

    /// Adds shard result `r`, read from `path`: left out where it is a copy of a file of
    /// its run already merged, refused where it names that run but differs, or is not
    /// whole; else a vote of its source for each of its parts.
    fn add(&mut self, path: PathBuf, r: ShardResult) -> Result<(), MergeError> {
        let source = self.next_source();
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
        self.file_of.push((r.shard, source as u32));
        self.voted[source] = true;
        for (i, t) in r.each() {
            self.vote(i, t, me, source as u32 + 1);
        }
        self.hosts.insert(r.host);
        self.runs.insert(r.run, (me, r.digest));
        Ok(())
    }

    /// Counts file `me`'s vote of `t` for part `i`, from source `source` (its index + 1):
    /// one vote a source; notes a disagreement with the first.
    fn vote(&mut self, i: usize, t: Tally, me: u32, source: u32) {
        let v = &mut self.votes[i];
        if v.sources == 0 {
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
        if v.last != source {
            (v.sources, v.last) = (v.sources + 1, source);
        }
    }

    /// Checks that `r` (read from `path`) holds exactly the parts the plan deals its shard.
    fn check_whole(&mut self, path: &Path, r: &ShardResult) -> Result<(), MergeError> {
        let (deal_of, sizes) = self.deals.of(&self.sum.plan, r.shard.count);
        if let Some((i, _)) = r
            .each()
            .find(|(i, _)| deal_of[*i] as usize != r.shard.index)
        {
            return Err(dealt_elsewhere(path, r, i, deal_of[i]));
        }
        let dealt = sizes[r.shard.index] as usize;
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

    /// The first few files that hold parts lacking the quorum, each with its shard and
    /// source, in words: where the parts without a quorum came from.
    fn held_only(&self) -> String {
        let mut files: Vec<u32> = Vec::new();
        for v in &self.votes {
            let lacks = (v.sources as usize) < self.quorum;
            if lacks && v.sources > 0 && !files.contains(&v.file) {
                files.push(v.file);
                if files.len() == HELD_NAMED {
                    break;
                }
            }
        }
        let named: Vec<String> = files
            .iter()
            .map(|&f| {
                let (shard, source) = self.file_of[f as usize];
                format!(
                    "{} (shard {shard}, of source {})",
                    self.sum.files[f as usize].display(),
                    self.sources[source as usize].1.display()
                )
            })
            .collect();
        named.join(", ")
    }

    /// The merge, after refusing every disagreement and (unless `partial`) parts that lack
    /// the quorum: the sum of the parts that have it, checked as a whole board's where
    /// every part has, and the audit's sample of them.
    fn finish(self, partial: bool, pick: Option<Pick>) -> Result<Agreed, MergeError> {
        if !self.disagreements.is_empty() {
            return Err(MergeError::Disagree(self.disagreements));
        }
        let held = if partial {
            String::new()
        } else {
            self.held_only()
        };
        let mut sum = self.sum;
        let mut sampler = pick.map(|p| Sampler::new(p, self.votes.len()));
        let mut agreed = 0;
        for (i, v) in self.votes.iter().enumerate() {
            if v.sources as usize >= self.quorum {
                sum.add(v.first)?;
                agreed += 1;
                if let Some(s) = &mut sampler {
                    s.offer(i, v.file, v.first);
                }
            }
        }
        let sources = (self.sources.into_iter().zip(self.voted))
            .filter_map(|((_, name), voted)| voted.then_some(name))
            .collect();
        let mut done = Agreed {
            quorum: self.quorum,
            runs: self.runs.len(),
            sources,
            hosts: self.hosts.into_iter().collect(),
            copies: self.copies,
            votes: self.votes.iter().map(|v| v.sources).collect(),
            sum,
        };
        let total = done.votes.len();
        if !partial && agreed < total {
            return Err(MergeError::NoQuorum {
                quorum: done.quorum,
                lacking: total - agreed,
                total,
                parts: shard::ranges_text(&done.lacking(), 20),
                held,
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
