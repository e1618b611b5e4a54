//! What a count will cost before it runs: a sample of its parts counted and timed, and the
//! whole predicted from them (`nqueens estimate`).
//!
//! The parts are sorted by their estimated cost ([`Plan::costs`]) and cut into strata of
//! equal estimated cost; each stratum is sampled at random (without replacement), one part
//! per stratum in turn, the sampled parts counted on the engine's threads side by side (so
//! that their times include what a run shares: caches, memory, the cores' clock). Within a
//! stratum the time of its parts is taken as proportional to their estimated cost (a ratio
//! estimator), which is as good as the cost model and never worse than the plain mean; the
//! strata's totals and variances add up to the run's, with a 95% interval. The parts still
//! counting at the bound are left out, and how far that pulls the total down is estimated
//! from the sample's spread (`lean`).
//!
//! A join enumerates the pieces of its keys' rows as it needs them: a sampled part mostly
//! finds none kept, where a whole run that keeps every row set's pieces enumerates each
//! once. So the pieces are timed apart (`join::enumerated`) and, where they all fit
//! what the run keeps, counted once per row set the plan uses; otherwise with each part.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::join;
use crate::run::Engine;
use crate::run::plan::{Parts, Plan};
use crate::types::Error;

/// How an estimate samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Parts to count at most.
    pub samples: usize,
    /// Strata of equal estimated cost the parts are cut into.
    pub strata: usize,
    /// Seconds after which no more samples start (once each stratum has two).
    pub seconds: f64,
    /// Seed of the random pick (the same seed picks the same parts).
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            // Enough that `seconds` decides at every n: parts of n = 21 take about 10 ms.
            samples: 65536,
            strata: 8,
            seconds: 60.0,
            seed: 0x5eed,
        }
    }
}

/// One sampled part: which, its stratum and estimated cost, and what counting it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The part's index in the plan.
    pub part: usize,
    /// Its stratum.
    pub stratum: usize,
    /// Its estimated cost ([`Plan::costs`]).
    pub cost: u64,
    /// Seconds counting it took, its pieces' enumeration included.
    pub seconds: f64,
    /// The pieces enumerated for it.
    pub pieces: join::Enumerated,
}

/// The predicted cost of counting a plan's parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Parts in the plan.
    pub parts: usize,
    /// The parts counted and timed.
    pub samples: Vec<Sample>,
    /// The parts still counting at the bound, abandoned and left out (at most one a
    /// thread), each with the seconds it had run.
    pub abandoned: Vec<Sample>,
    /// How far leaving them out pulls `core_seconds` down, as a fraction of it: the parts
    /// running at any moment are likelier the long ones (the module's `lean`). `None` where
    /// one fell in a stratum with fewer than two samples (no spread to measure).
    pub lean: Option<f64>,
    /// Predicted thread-seconds of counting every part, pieces included.
    pub core_seconds: f64,
    /// A 95% interval of `core_seconds`: the sampling's spread within the strata (the
    /// ratio estimator's variance, stratum by stratum, with the finite population
    /// correction), `None` where some stratum had one sample of several parts (no spread to
    /// measure). It does not cover a machine that runs faster or slower than while sampling.
    pub interval: Option<(f64, f64)>,
    /// The strata the prediction is made over: those asked for, merged with their
    /// neighbours, cheapest first, where one had fewer than two samples in the time.
    pub strata: usize,
    /// Parts left out of `core_seconds`: the symmetric solutions' part of a full-mode join
    /// where it did not finish within `--seconds` (its own stratum, one search counted
    /// once, a tiny share of a large board).
    pub untimed: Vec<usize>,
    /// Of `core_seconds`, the pieces' enumeration.
    pub pieces_seconds: f64,
    /// Whether the pieces were counted once per row set (all fit what a run keeps), not
    /// with each part.
    pub pieces_once: bool,
    /// Each part's predicted thread-seconds (its stratum's seconds per unit of estimated
    /// cost, the pieces spread by cost): what a shard of some of them takes. Four bytes a
    /// part: the estimate holds this and its strata beside the join's buffers at their
    /// fullest, within the eight bytes a part the plan sets aside for a run's order of its
    /// parts. Eight-byte predictions and a copy of the costs would take `estimate 26` past
    /// its 2 GiB.
    pub predicted: Vec<f32>,
}

impl Estimate {
    /// The predicted wall time of counting the parts `parts` (e.g. a shard's) on `threads`
    /// threads: their thread-seconds shared out, but never less than the longest of them, which
    /// one thread counts alone.
    pub fn wall(&self, parts: impl IntoIterator<Item = usize>, threads: usize) -> f64 {
        let (sum, longest) = parts.into_iter().fold((0.0, 0.0f64), |(s, l), i| {
            let p = f64::from(self.predicted[i]);
            (s + p, l.max(p))
        });
        (sum / threads.max(1) as f64).max(longest)
    }
}

/// Counts a sample of `plan`'s parts on `engine` as `settings` say, telling `seen` of each
/// as it finishes, and predicts the cost of counting them all.
///
/// `settings.seconds` is a bound on the whole of it, the parts' costs included: at that
/// moment no part starts, and the parts still counting (a join's keys and its symmetric
/// solutions' search, a search's subproblems between their subtrees of at most
/// [`plan::ABANDON_ROWS`](crate::run::plan::ABANDON_ROWS) free rows) are abandoned through
/// [`Plan::count_until`] and left out of the sample. The parts abandoned are likelier the
/// long ones (at most one per thread), so a sample of few parts a thread leans low: by about
/// [`Estimate::lean`], which the estimate reports beside them. Where no part of
/// some stratum (after strata short of samples merge) finished in time, nothing can be
/// predicted: [`Error::TooFewSamples`]; where the bound came before a search's parts were
/// costed, [`Error::Uncosted`].
pub fn estimate(
    engine: &Engine,
    plan: &Plan,
    settings: &Settings,
    seen: &(dyn Fn(&Sample) + Sync),
) -> Result<Estimate, Error> {
    estimate_with(engine, plan, settings, seen, None)
}

/// [`estimate`] of the keys counted on a GPU alone (`gpu`, a [`crate::Pairs`]), fed by
/// every thread as `Run::on_gpu` feeds it where it counts every key: each sample's seconds
/// are its key's building and its wait for the device and matching on it, so the thread-hours
/// over the threads are the node's hours with the GPU. The parts that are no key are
/// counted on the threads.
pub fn estimate_on(
    engine: &Engine,
    plan: &Plan,
    settings: &Settings,
    seen: &(dyn Fn(&Sample) + Sync),
    gpu: &dyn join::Pairs,
) -> Result<Estimate, Error> {
    estimate_with(engine, plan, settings, seen, Some(gpu))
}

fn estimate_with(
    engine: &Engine,
    plan: &Plan,
    settings: &Settings,
    seen: &(dyn Fn(&Sample) + Sync),
    gpu: Option<&dyn join::Pairs>,
) -> Result<Estimate, Error> {
    let threads = engine.threads();
    sampleable(plan, settings, threads)?;
    let start = Instant::now();
    // No bound past what an `Instant` holds (the command line allows 10^9 s at most).
    let deadline = Duration::try_from_secs_f64(settings.seconds.max(0.0))
        .ok()
        .and_then(|d| start.checked_add(d));
    let over = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let sampled = std::thread::scope(|scope| {
        // The clock: sets `over` at the deadline (or once sampling has ended).
        let clock = scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                match deadline.map(|d| d.checked_duration_since(Instant::now())) {
                    None => std::thread::park(),
                    Some(Some(left)) if !left.is_zero() => std::thread::park_timeout(left),
                    Some(_) => break,
                }
            }
            over.store(true, Ordering::Relaxed);
        });
        /// Ends the clock when sampling ends, even by a panic (which the scope would
        /// otherwise hold until the deadline).
        struct Ended<'a>(&'a AtomicBool, &'a std::thread::Thread);
        impl Drop for Ended<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
                self.1.unpark();
            }
        }
        let _ended = Ended(&finished, clock.thread());
        sample(engine, plan, settings, (&over, gpu), seen)
    })
    .ok_or_else(|| Error::Uncosted {
        n: plan.n,
        seconds: settings.seconds.to_string(),
        parts: plan.len(),
    })?;
    predict(plan, sampled, threads, settings.seconds)
}

/// What [`sample`] returns.
struct Sampled<'a> {
    /// The parts that finished within the bound, sorted by stratum.
    samples: Vec<Sample>,
    /// The parts abandoned at the bound.
    abandoned: Vec<Sample>,
    /// The strata: each one's parts.
    strata: Vec<Vec<usize>>,
    /// The parts' costs (the plan's own).
    costs: &'a [u64],
}

/// The sampling of [`estimate`]: the samples (sorted by stratum) that finished before
/// `over` was set, the parts abandoned then (each with the seconds it had run), the strata
/// and the parts' costs; `None` where `over` was set before the parts were costed (a
/// search's costs at n = 26 take tens of seconds).
fn sample<'a>(
    engine: &Engine,
    plan: &'a Plan,
    settings: &Settings,
    (over, gpu): (&AtomicBool, Option<&dyn join::Pairs>),
    seen: &(dyn Fn(&Sample) + Sync),
) -> Option<Sampled<'a>> {
    let costs = engine.pool().install(|| plan.costs_until(over))?;
    // A join's last part in full mode (the symmetric solutions) is a search of its own,
    // whose cost is not on the keys' scale: a stratum of its own, counted first.
    let keyed = plan.len_of_keys();
    let apart = symmetric_part(plan);
    // Two samples per stratum at least where the time allows, so that each has a rate and a
    // spread: fewer strata where fewer samples are asked for.
    let wanted = (settings.samples / 2).clamp(1, settings.strata.max(1));
    let mut strata = strata(&costs[..keyed], wanted);
    if apart {
        strata.insert(0, vec![costs.len() - 1]);
    }
    // One of each stratum whatever `samples` says: a stratum left out would be left out of
    // the total.
    let queue = picks(&strata, settings.samples.max(strata.len()), settings.seed);
    // A part that ended after the bound may have been abandoned: left out.
    let counted = |part: usize| {
        let on_gpu = gpu.and_then(|g| plan.count_on(part, (engine.kernel(), g), over));
        if on_gpu.is_none() {
            plan.count_until(part, engine.kernel(), over);
        }
        !over.load(Ordering::Relaxed)
    };

    let next = AtomicUsize::new(0);
    let samples = Mutex::new(Vec::new());
    let abandoned = Mutex::new(Vec::new());
    // Warm-up: one of the cheapest parts per thread, not timed, so that the threads' buffers
    // are not counted against the first samples. (A plan without parts, e.g. n = 2 or 3 in
    // full mode, has no stratum to warm up with.)
    if let Some(warm) = strata.get(usize::from(apart)) {
        engine
            .pool()
            .broadcast(|b| counted(warm[b.index() % warm.len()]));
    }
    let each = || {
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(stratum, part)) = queue.get(k).filter(|_| !over.load(Ordering::Relaxed))
            else {
                return;
            };
            let (before, t) = (join::enumerated(), Instant::now());
            let finished = counted(part);
            let sample = Sample {
                part,
                stratum,
                cost: costs[part],
                seconds: t.elapsed().as_secs_f64(),
                pieces: join::enumerated() - before,
            };
            if !finished {
                abandoned
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(sample);
                return;
            }
            seen(&sample);
            samples
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(sample);
        }
    };
    engine.pool().broadcast(|_| each());
    let mut samples = samples.into_inner().unwrap_or_else(|e| e.into_inner());
    samples.sort_by_key(|s| (s.stratum, s.part));
    let mut abandoned = abandoned.into_inner().unwrap_or_else(|e| e.into_inner());
    abandoned.sort_by_key(|s| (s.stratum, s.part));
    Some(Sampled {
        samples,
        abandoned,
        strata,
        costs,
    })
}

/// Whether `plan` is a full-mode join, whose last part (the symmetric solutions) is a
/// search of its own, not on the keys' scale of cost: a stratum of its own, never merged.
fn symmetric_part(plan: &Plan) -> bool {
    matches!(plan.parts, Parts::Columns { .. }) && plan.len() > plan.len_of_keys()
}

/// Nodes a thread searches per second at most: faster than any machine (a tenth of a
/// nanosecond a node), so that what this rate cannot do in time, no thread can.
pub const FASTEST_NODES_PER_S: f64 = 1e10;

/// The longest the parts a sample cannot do without may take, at [`FASTEST_NODES_PER_S`]
/// on the engine's threads: ten times the sampling time asked for, ten minutes at least.
fn max_sampling_s(settings: &Settings) -> f64 {
    (10.0 * settings.seconds).max(600.0)
}

/// Refuses a search plan whose sample could not end (`estimate 32` would count parts of
/// 10^20 nodes), before anything is counted or costed: the parts a sample cannot do without
/// (two of each stratum, one per thread to warm up), each as large as the smallest of 64
/// parts picked at random, searched at [`FASTEST_NODES_PER_S`] on every thread, take more
/// than [`max_sampling_s`]. The parts' sizes are Knuth's estimates
/// ([`Plan::estimated_nodes`]): a few milliseconds of random walks down trees whose search
/// would take years.
fn sampleable(plan: &Plan, settings: &Settings, threads: usize) -> Result<(), Error> {
    let parts = plan.len();
    if !matches!(plan.parts, Parts::Rows { .. }) || parts == 0 {
        return Ok(());
    }
    let mut random = crate::random::xorshift(settings.seed);
    let smallest = (0..64.min(parts))
        .map(|_| random() as usize % parts)
        .filter_map(|i| plan.estimated_nodes(i, 200, settings.seed))
        .fold(f64::INFINITY, f64::min);
    let strata = (settings.samples / 2).clamp(1, settings.strata.max(1));
    let least = (2 * strata + threads).min(parts) as f64;
    let nodes = smallest * least;
    let limit = max_sampling_s(settings);
    if nodes / FASTEST_NODES_PER_S / threads.max(1) as f64 > limit {
        return Err(Error::TooLongToSample {
            n: plan.n,
            depth: plan.split_depth,
            nodes: nodes as u128,
            seconds: limit as u64,
            threads,
        });
    }
    Ok(())
}

/// The parts in strata of about equal estimated cost, cheapest first: the parts sorted by
/// cost, each in the stratum its cost's midpoint in the running total falls in.
fn strata(costs: &[u64], count: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&i| (costs[i], i));
    let total: u128 = costs.iter().map(|&c| u128::from(c)).sum::<u128>().max(1);
    let mut out = vec![Vec::new(); count];
    let mut before = 0u128;
    for i in order {
        let c = u128::from(costs[i]);
        let s = ((2 * before + c) * count as u128 / (2 * total)).min(count as u128 - 1);
        out[s as usize].push(i);
        before += c;
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The order parts are sampled in: one of each stratum in turn, each stratum's at random
/// without replacement, `samples` in all at most.
fn picks(strata: &[Vec<usize>], samples: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // splitmix64: the same picks on every machine for a seed.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut left: Vec<Vec<usize>> = strata.to_vec();
    let mut out = Vec::new();
    while out.len() < samples && left.iter().any(|s| !s.is_empty()) {
        for (s, parts) in left.iter_mut().enumerate() {
            if parts.is_empty() || out.len() == samples {
                continue;
            }
            let k = (next() % parts.len() as u64) as usize;
            out.push((s, parts.swap_remove(k)));
        }
    }
    out
}

/// The strata an estimate is made over: neighbouring strata of `counts` (each stratum's
/// parts and samples, in increasing order of cost) merged, from the cheapest, until each
/// has two samples or every part sampled, so that each has a rate and a spread; a group of
/// strata is one stratum of their parts. The first `fixed` strata are never merged (a
/// full-mode join's symmetric part, whose cost is not on the keys' scale). The result lists
/// the original strata of each group.
fn groups(counts: &[(usize, usize)], fixed: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = (0..counts.len()).map(|h| vec![h]).collect();
    let short = |g: &Vec<usize>| {
        let (parts, samples) = g
            .iter()
            .fold((0, 0), |(p, s), &h| (p + counts[h].0, s + counts[h].1));
        samples < 2 && samples < parts
    };
    while out.len() > fixed + 1 {
        let Some(g) = (fixed..out.len()).find(|&g| short(&out[g])) else {
            break;
        };
        let (into, from) = if g + 1 < out.len() {
            (g, g + 1)
        } else {
            (g - 1, g)
        };
        let moved = out.remove(from);
        out[into].extend(moved);
    }
    out
}

/// How far a stratum's rate leans low for the parts of it abandoned at the bound, as a
/// fraction of the rate: `abandoned` parts out of `kept` timed ones on `threads` threads,
/// whose times over their predicted ones vary by `variance` (relative) and whose costs'
/// mean square is `squares` times their mean's square.
///
/// A thread is likelier to be counting a long part at any moment than a short one, so the
/// part it abandons at the bound is picked in proportion to its time: among parts whose time
/// is their cost times the rate times `1 + e` (`e` of mean 0 and variance `variance`), such a
/// pick has `cost * e` of mean `squares * mean_cost * variance`, and taking it out lowers the
/// rate by that over the kept parts' cost. How many parts finish varies too, which gives
/// back a `1 / threads` share of it (a renewal process's first order: one thread's count
/// over its parts is level). `scripts/estimate-bias.py` simulates one stratum of equal
/// costs: from 2 to 16 threads and spreads of 0.5 to 2, the kept parts' mean is pulled
/// down 1.1 to 1.9 times this. So it gives the order of the pull, on the low side
/// (results/zen4/2026-11-28-kluev-and-lean/).
fn lean(abandoned: usize, kept: usize, variance: f64, squares: f64, threads: usize) -> f64 {
    let share = 1.0 - 1.0 / threads.max(1) as f64;
    share * abandoned as f64 * squares * variance / kept as f64
}

/// The whole plan's cost from the samples (sorted by stratum) and the parts abandoned at
/// the bound, on the sampling's threads; `seconds` is the bound the sampling had, for the
/// message where too few parts finished within it.
fn predict(plan: &Plan, sampled: Sampled, threads: usize, seconds: f64) -> Result<Estimate, Error> {
    let Sampled {
        samples,
        mut abandoned,
        strata,
        costs,
    } = sampled;
    let strata = &strata[..];
    let enumerated = enumerated_in(&samples);
    let once = pieces_once(plan, &enumerated);
    let fixed = usize::from(symmetric_part(plan));
    // The symmetric solutions' part, abandoned, is left out as untimed below, not here.
    abandoned.retain(|s| s.stratum >= fixed);
    let groups = groups(&sampled_per_stratum(strata, &samples), fixed);
    let weigh = Weigh {
        apart: once.is_some(),
        threads,
    };
    let mut sums = Sums::new(strata.len());
    for group in &groups {
        let g = Group::of(group, strata, costs, &samples, &abandoned);
        if g.mine.is_empty() && group[0] < fixed {
            // The symmetric solutions' part (one search, counted once, small beside the
            // keys) did not finish in time: left out, and said so.
            sums.untimed.extend(g.parts());
            continue;
        }
        if g.mine.is_empty() {
            return Err(Error::TooFewSamples {
                n: plan.n,
                seconds: seconds.to_string(),
                sampled: samples.len(),
            });
        }
        sums.add(&g, weigh);
    }
    let pieces_seconds = once.unwrap_or_else(|| {
        // Counted with each part: their share of the sampled time, scaled like it.
        let sampled: f64 = samples.iter().map(|s| s.seconds).sum();
        if sampled > 0.0 {
            sums.total * enumerated.seconds / sampled
        } else {
            0.0
        }
    });
    let core_seconds = sums.total + once.unwrap_or(0.0);
    let half = 1.96 * sums.variance.sqrt();
    Ok(Estimate {
        parts: costs.len(),
        samples,
        abandoned,
        lean: sums
            .lean_known
            .then(|| sums.pulled / core_seconds.max(f64::MIN_POSITIVE)),
        core_seconds,
        interval: sums
            .spread_known
            .then(|| ((core_seconds - half).max(0.0), core_seconds + half)),
        strata: groups.len(),
        untimed: sums.untimed,
        pieces_seconds,
        pieces_once: once.is_some(),
        predicted: per_part(costs, strata, &sums.rate, once),
    })
}

/// The pieces the sampled parts enumerated, all together.
fn enumerated_in(samples: &[Sample]) -> join::Enumerated {
    samples
        .iter()
        .fold(join::Enumerated::default(), |a, s| join::Enumerated {
            row_sets: a.row_sets + s.pieces.row_sets,
            seconds: a.seconds + s.pieces.seconds,
            bytes: a.bytes + s.pieces.bytes,
        })
}

/// The seconds of enumerating the pieces once per row set the plan uses, from the sampled
/// parts' `enumerated`; `None` where they would not all fit what the run keeps (then each
/// part enumerates its own), or where the plan is no join or no part enumerated any.
fn pieces_once(plan: &Plan, enumerated: &join::Enumerated) -> Option<f64> {
    match &plan.parts {
        Parts::Columns { cut, keys, .. } if enumerated.row_sets > 0 => {
            let sets = cut.row_sets(keys) as f64;
            let per = enumerated.row_sets as f64;
            let bytes = sets * enumerated.bytes as f64 / per;
            (bytes <= cut.pieces_budget() as f64).then(|| sets * enumerated.seconds / per)
        }
        _ => None,
    }
}

/// How [`predict`] times its samples: whether the pieces are counted once apart (so a
/// sample's own time leaves them out), and the sampling's threads.
#[derive(Clone, Copy)]
struct Weigh {
    apart: bool,
    threads: usize,
}

impl Weigh {
    /// The seconds of `s` its part's prediction is made from.
    fn time(self, s: &Sample) -> f64 {
        if self.apart {
            s.seconds - s.pieces.seconds
        } else {
            s.seconds
        }
    }
}

/// Each stratum's parts and samples, as [`groups`] takes them.
fn sampled_per_stratum(strata: &[Vec<usize>], samples: &[Sample]) -> Vec<(usize, usize)> {
    strata
        .iter()
        .enumerate()
        .map(|(h, parts)| {
            (
                parts.len(),
                samples.iter().filter(|s| s.stratum == h).count(),
            )
        })
        .collect()
}

/// The parts of the strata `strata` of `all`.
fn parts_of<'a>(strata: &'a [usize], all: &'a [Vec<usize>]) -> impl Iterator<Item = usize> + 'a {
    strata.iter().flat_map(move |&h| all[h].iter().copied())
}

/// A group of strata (see [`groups`]) and what [`predict`] weighs it by.
struct Group<'a> {
    /// The strata in it.
    strata: &'a [usize],
    /// Every stratum's parts.
    all: &'a [Vec<usize>],
    /// Its samples.
    mine: Vec<&'a Sample>,
    /// The estimated cost of all its parts.
    cost: f64,
    /// Its parts.
    size: usize,
    /// Its parts abandoned at the bound.
    left_out: usize,
}

impl<'a> Group<'a> {
    /// The strata `strata` of `all`, with their `samples`, the parts' `costs` and the
    /// parts `abandoned`.
    fn of(
        strata: &'a [usize],
        all: &'a [Vec<usize>],
        costs: &[u64],
        samples: &'a [Sample],
        abandoned: &[Sample],
    ) -> Group<'a> {
        let in_group = |s: &&Sample| strata.contains(&s.stratum);
        Group {
            strata,
            all,
            mine: samples.iter().filter(in_group).collect(),
            cost: parts_of(strata, all).map(|i| costs[i] as f64).sum(),
            size: parts_of(strata, all).count(),
            left_out: abandoned.iter().filter(in_group).count(),
        }
    }

    /// Its parts.
    fn parts(&self) -> impl Iterator<Item = usize> + 'a {
        parts_of(self.strata, self.all)
    }

    /// The squares of `deviation` over its samples (those where it is `Some`), summed and
    /// divided by one less than the number of samples; `None` with fewer than two samples
    /// (no spread to measure).
    fn spread(&self, deviation: impl Fn(&Sample) -> Option<f64>) -> Option<f64> {
        let k = self.mine.len();
        if k < 2 {
            return None;
        }
        let deviations = self.mine.iter().filter_map(|s| deviation(s));
        Some(deviations.map(|d| d.powi(2)).sum::<f64>() / (k as f64 - 1.0))
    }

    /// How far the abandoned parts pull its rate `r` down ([`lean`]), from the relative
    /// spread of its samples' times about their predicted ones; `None` with fewer than two
    /// samples.
    fn lean(&self, r: f64, sampled_cost: f64, weigh: Weigh) -> Option<f64> {
        let relative =
            self.spread(|s| (s.cost > 0).then(|| weigh.time(s) / (r * s.cost as f64) - 1.0))?;
        let (mine, k) = (&self.mine, self.mine.len() as f64);
        let squares =
            mine.iter().map(|s| (s.cost as f64).powi(2)).sum::<f64>() * k / sampled_cost.powi(2);
        Some(lean(
            self.left_out,
            mine.len(),
            relative,
            squares,
            weigh.threads,
        ))
    }

    /// The variance of its total at rate `r` (the ratio estimator's, with the finite
    /// population correction); `None` with fewer than two samples.
    fn variance(&self, r: f64, sampled_cost: f64, weigh: Weigh) -> Option<f64> {
        let spread = self.spread(|s| Some(weigh.time(s) - r * s.cost as f64))?;
        let k = self.mine.len() as f64;
        let mean_cost = sampled_cost / k;
        let kept = 1.0 - k / self.size as f64;
        Some((self.cost / mean_cost).powi(2) * kept * spread / k)
    }
}

/// What the groups of strata add up to in [`predict`].
struct Sums {
    /// Predicted thread-seconds of counting the parts, pieces counted once left out.
    total: f64,
    /// The variance of `total`.
    variance: f64,
    /// Whether every group sampled in part had two samples or more (a spread).
    spread_known: bool,
    /// The seconds the abandoned parts' leaving out takes off `total` ([`lean`]).
    pulled: f64,
    /// Whether each abandoned part fell where a spread is known.
    lean_known: bool,
    /// Parts left out as untimed.
    untimed: Vec<usize>,
    /// Each stratum's seconds per unit of estimated cost.
    rate: Vec<f64>,
}

impl Sums {
    /// Nothing added yet, for `strata` strata.
    fn new(strata: usize) -> Sums {
        Sums {
            total: 0.0,
            variance: 0.0,
            spread_known: true,
            pulled: 0.0,
            lean_known: true,
            untimed: Vec::new(),
            rate: vec![0.0; strata],
        }
    }

    /// Adds `g`'s total, variance and pull, at its samples' seconds per unit of cost.
    fn add(&mut self, g: &Group<'_>, weigh: Weigh) {
        let sampled_cost: f64 = g.mine.iter().map(|s| s.cost as f64).sum();
        if sampled_cost == 0.0 {
            return;
        }
        let r = g.mine.iter().map(|s| weigh.time(s)).sum::<f64>() / sampled_cost;
        for &h in g.strata {
            self.rate[h] = r;
        }
        self.total += r * g.cost;
        // A rate of zero (parts too quick for the clock) pulls nothing. (The symmetric part's
        // group has none left out: see `predict`'s `retain`.)
        if g.left_out > 0 && r > 0.0 {
            match g.lean(r, sampled_cost, weigh) {
                Some(lean) => self.pulled += r * g.cost * lean,
                None => self.lean_known = false,
            }
        }
        if g.mine.len() < g.size {
            match g.variance(r, sampled_cost, weigh) {
                Some(v) => self.variance += v,
                None => self.spread_known = false,
            }
        }
    }
}

/// Each part's predicted seconds: its stratum's `rate` times its cost, and the pieces
/// counted `once` spread over the parts by cost.
fn per_part(costs: &[u64], strata: &[Vec<usize>], rate: &[f64], once: Option<f64>) -> Vec<f32> {
    let all: f64 = costs
        .iter()
        .map(|&c| c as f64)
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    let mut predicted = vec![0.0f32; costs.len()];
    for (h, parts) in strata.iter().enumerate() {
        for &i in parts {
            let seconds = rate[h] * costs[i] as f64 + once.unwrap_or(0.0) * costs[i] as f64 / all;
            predicted[i] = seconds as f32;
        }
    }
    predicted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strata_hold_about_equal_cost_and_every_part_once() {
        let costs: Vec<u64> = (0..1000u64).map(|i| 1 + (i * 7919) % 97).collect();
        let s = strata(&costs, 8);
        assert_eq!(s.len(), 8);
        let mut all: Vec<usize> = s.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..1000).collect::<Vec<_>>());
        let total: u64 = costs.iter().sum();
        for stratum in &s {
            let c: u64 = stratum.iter().map(|&i| costs[i]).sum();
            assert!(c.abs_diff(total / 8) <= 97, "{c} of {total}");
        }
    }

    #[test]
    fn strata_with_fewer_than_two_samples_merge_with_their_neighbours() {
        // (parts, samples) per stratum; the first is fixed (the symmetric part).
        let counts = [(1, 0), (10, 2), (10, 1), (10, 0), (10, 3), (10, 1)];
        // The short one takes its neighbours until it has two; the last short one joins
        // the group before it; the fixed one stays alone though it has none.
        assert_eq!(groups(&counts, 1), vec![vec![0], vec![1], vec![2, 3, 4, 5]]);
        // A stratum sampled whole needs no second sample; every stratum with two stays.
        assert_eq!(
            groups(&[(1, 1), (5, 2), (3, 2)], 0),
            vec![vec![0], vec![1], vec![2]]
        );
        // Too few samples for any split: one stratum of all the keys.
        assert_eq!(groups(&[(4, 1), (4, 0), (4, 0)], 0), vec![vec![0, 1, 2]]);
        assert_eq!(groups(&[(9, 0)], 0), vec![vec![0]]);
        assert_eq!(groups(&[], 0), Vec::<Vec<usize>>::new());
    }

    #[test]
    fn picks_take_each_stratum_in_turn_without_repeats() {
        let s = vec![vec![0, 1, 2], vec![3], vec![4, 5, 6, 7]];
        let p = picks(&s, 100, 1);
        assert_eq!(p.len(), 8);
        assert_eq!(p.iter().take(3).map(|x| x.0).collect::<Vec<_>>(), [0, 1, 2]);
        let mut parts: Vec<usize> = p.iter().map(|x| x.1).collect();
        parts.sort_unstable();
        assert_eq!(parts, (0..8).collect::<Vec<_>>());
        assert_eq!(picks(&s, 100, 1), p, "the same seed picks the same parts");
        assert_eq!(picks(&s, 2, 1).len(), 2);
    }

    /// [`lean`] against what leaving out the parts in flight does, simulated: parts of
    /// random times (lognormal, mean 1, spread `cv`) taken in turn by `threads` threads until
    /// `bound`, those running then left out. Returns the kept parts' mean and what `lean`
    /// predicts from them (their spread, the parts left out), each averaged over `runs`.
    fn pulled(threads: usize, bound: f64, cv: f64, runs: usize) -> (f64, f64) {
        let mut random = crate::random::xorshift(0x1ea4);
        let mut uniform = move || (random() >> 11) as f64 / (1u64 << 53) as f64;
        let s2 = (1.0 + cv * cv).ln();
        let (mut kept_mean, mut predicted) = (0.0, 0.0);
        for _ in 0..runs {
            let mut kept = Vec::new();
            for _ in 0..threads {
                let mut t = 0.0;
                loop {
                    // Box-Muller: a normal, then its lognormal of mean 1.
                    let (u, v) = (uniform().max(f64::MIN_POSITIVE), uniform());
                    let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                    let d = (z * s2.sqrt() - s2 / 2.0).exp();
                    if t + d > bound {
                        break;
                    }
                    t += d;
                    kept.push(d);
                }
            }
            let k = kept.len() as f64;
            let mean = kept.iter().sum::<f64>() / k;
            let variance = kept.iter().map(|d| (d / mean - 1.0).powi(2)).sum::<f64>() / (k - 1.0);
            kept_mean += mean / runs as f64;
            predicted += lean(threads, kept.len(), variance, 1.0, threads) / runs as f64;
        }
        (kept_mean, predicted)
    }

    #[test]
    fn the_lean_follows_what_leaving_out_the_parts_in_flight_pulls() {
        // 16 threads of about 5 parts each (`estimate 27` on 16 cores for minutes), 4 of
        // about 20, and 2 of about 55 (`estimate 27 --seconds 1200 -j 2`).
        for (threads, bound) in [(16, 5.0), (4, 20.0), (2, 55.0)] {
            for cv in [0.5, 1.0, 2.0] {
                let (kept, predicted) = pulled(threads, bound, cv, 3000);
                let pull = 1.0 - kept;
                assert!(
                    (0.4 * pull..1.0 * pull).contains(&predicted),
                    "{threads} threads, cv {cv}: pulled {pull}, lean {predicted}"
                );
            }
        }
        // One thread's parts over their count are level: nothing pulled, nothing said.
        let (kept, predicted) = pulled(1, 55.0, 1.0, 3000);
        assert!(
            (kept - 1.0).abs() < 0.004 && predicted == 0.0,
            "{kept} {predicted}"
        );
    }
}
