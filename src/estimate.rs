//! What a count will cost before it runs: a sample of its parts counted and timed, and the
//! whole predicted from them (`nqueens estimate`).
//!
//! The parts are sorted by their estimated cost ([`Plan::costs`]) and cut into strata of
//! equal estimated cost; each stratum is sampled at random (without replacement), one part
//! per stratum in turn, the sampled parts counted on the engine's threads side by side (so
//! that their times include what a run shares: caches, memory, the cores' clock). Within a
//! stratum the time of its parts is taken as proportional to their estimated cost (a ratio
//! estimator), which is as good as the cost model and never worse than the plain mean; the
//! strata's totals and variances add up to the run's, with a 95% interval.
//!
//! A join enumerates the pieces of its keys' rows as it needs them: a sampled part mostly
//! finds none kept, where a whole run that keeps every row set's pieces enumerates each
//! once. So the pieces are timed apart ([`crate::cut::enumerated`]) and, where they all fit
//! what the run keeps, counted once per row set the plan uses; otherwise with each part.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::cut;
use crate::plan::{Parts, Plan};
use crate::run::Engine;
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
    pub pieces: cut::Enumerated,
}

/// The predicted cost of counting a plan's parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Parts in the plan.
    pub parts: usize,
    /// The parts counted and timed.
    pub samples: Vec<Sample>,
    /// Predicted thread-seconds of counting every part, pieces included.
    pub core_seconds: f64,
    /// A 95% interval of `core_seconds` (the sampling's spread within the strata).
    pub interval: (f64, f64),
    /// Of `core_seconds`, the pieces' enumeration.
    pub pieces_seconds: f64,
    /// Whether the pieces were counted once per row set (all fit what a run keeps), not
    /// with each part.
    pub pieces_once: bool,
    /// Each part's predicted thread-seconds (its stratum's seconds per unit of estimated
    /// cost, the pieces spread by cost): what a shard of some of them takes.
    pub predicted: Vec<f64>,
}

impl Estimate {
    /// The predicted wall time of counting the parts `parts` (e.g. a shard's) on `threads`
    /// threads: their thread-seconds shared out, but never less than the longest of them, which
    /// one thread counts alone.
    pub fn wall(&self, parts: impl IntoIterator<Item = usize>, threads: usize) -> f64 {
        let (sum, longest) = parts.into_iter().fold((0.0, 0.0f64), |(s, l), i| {
            (s + self.predicted[i], l.max(self.predicted[i]))
        });
        (sum / threads.max(1) as f64).max(longest)
    }
}

/// Counts a sample of `plan`'s parts on `engine` as `settings` say, telling `seen` of each
/// as it finishes, and predicts the cost of counting them all.
pub fn estimate(
    engine: &Engine,
    plan: &Plan,
    settings: &Settings,
    seen: &(dyn Fn(&Sample) + Sync),
) -> Result<Estimate, Error> {
    sampleable(plan, settings, engine.threads())?;
    let costs = engine.pool().install(|| plan.costs().to_vec());
    // A join's last part in full mode (the symmetric solutions) is a search of its own,
    // whose cost is not on the keys' scale: a stratum of its own, always counted.
    let apart = matches!(plan.parts, Parts::Columns { .. }) && costs.len() > plan.len_of_keys();
    let keyed = if apart {
        &costs[..costs.len() - 1]
    } else {
        &costs[..]
    };
    // Two samples per stratum at least, so that each has a rate and a spread: fewer strata
    // where fewer samples are asked for.
    let wanted = (settings.samples / 2).clamp(1, settings.strata.max(1));
    let mut strata = strata(keyed, wanted);
    if apart {
        strata.insert(0, vec![costs.len() - 1]);
    }
    // One of each stratum whatever `samples` says: a stratum left out would be left out of
    // the total.
    let queue = picks(&strata, settings.samples.max(strata.len()), settings.seed);
    // At least two of each stratum (where it has them), whatever the time.
    let least = strata.iter().map(|s| s.len().min(2)).sum::<usize>();

    let next = AtomicUsize::new(0);
    let samples = Mutex::new(Vec::new());
    let start = Instant::now();
    // Warm-up: one part per thread, not timed, so that the threads' buffers and the pieces
    // a run shares are not counted against the first samples.
    // (A plan without parts, e.g. n = 2 or 3 in full mode, has no stratum to warm up with.)
    if let Some(warm) = strata.get(strata.len() / 2) {
        engine.pool().broadcast(|b| {
            plan.count(warm[b.index() % warm.len()], engine.kernel());
        });
    }
    engine.pool().broadcast(|_| {
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let late = start.elapsed().as_secs_f64() > settings.seconds;
            let Some(&(stratum, part)) = queue.get(k).filter(|_| k < least || !late) else {
                return;
            };
            let (before, t) = (cut::enumerated(), Instant::now());
            plan.count(part, engine.kernel());
            let sample = Sample {
                part,
                stratum,
                cost: costs[part],
                seconds: t.elapsed().as_secs_f64(),
                pieces: cut::enumerated() - before,
            };
            seen(&sample);
            samples
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(sample);
        }
    });
    let mut samples = samples.into_inner().unwrap_or_else(|e| e.into_inner());
    samples.sort_by_key(|s| (s.stratum, s.part));
    Ok(predict(plan, &costs, &strata, samples))
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
    let mut random = crate::shard::xorshift(settings.seed);
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

/// The whole plan's cost from the samples (sorted by stratum).
fn predict(plan: &Plan, costs: &[u64], strata: &[Vec<usize>], samples: Vec<Sample>) -> Estimate {
    // The pieces once per row set where they all fit what the run keeps.
    let enumerated = samples
        .iter()
        .fold(cut::Enumerated::default(), |a, s| cut::Enumerated {
            row_sets: a.row_sets + s.pieces.row_sets,
            seconds: a.seconds + s.pieces.seconds,
            bytes: a.bytes + s.pieces.bytes,
        });
    let once = match &plan.parts {
        Parts::Columns { cut, keys, .. } if enumerated.row_sets > 0 => {
            let sets = cut.row_sets(keys) as f64;
            let per = enumerated.row_sets as f64;
            let bytes = sets * enumerated.bytes as f64 / per;
            (bytes <= cut.pieces_budget() as f64).then(|| sets * enumerated.seconds / per)
        }
        _ => None,
    };
    let time = |s: &Sample| match once {
        Some(_) => s.seconds - s.pieces.seconds,
        None => s.seconds,
    };
    let (mut total, mut variance) = (0.0, 0.0);
    let mut rate = vec![0.0; strata.len()];
    for (h, parts) in strata.iter().enumerate() {
        let mine: Vec<&Sample> = samples.iter().filter(|s| s.stratum == h).collect();
        let cost: f64 = parts.iter().map(|&i| costs[i] as f64).sum();
        let sampled_cost: f64 = mine.iter().map(|s| s.cost as f64).sum();
        if mine.is_empty() || sampled_cost == 0.0 {
            continue;
        }
        let r = mine.iter().map(|s| time(s)).sum::<f64>() / sampled_cost;
        rate[h] = r;
        total += r * cost;
        let k = mine.len() as f64;
        if mine.len() >= 2 && mine.len() < parts.len() {
            let spread = mine
                .iter()
                .map(|s| (time(s) - r * s.cost as f64).powi(2))
                .sum::<f64>()
                / (k - 1.0);
            let mean_cost = sampled_cost / k;
            let kept = 1.0 - k / parts.len() as f64;
            variance += (cost / mean_cost).powi(2) * kept * spread / k;
        }
    }
    let pieces_seconds = once.unwrap_or_else(|| {
        // Counted with each part: their share of the sampled time, scaled like it.
        let sampled: f64 = samples.iter().map(|s| s.seconds).sum();
        if sampled > 0.0 {
            total * enumerated.seconds / sampled
        } else {
            0.0
        }
    });
    let core_seconds = total + once.unwrap_or(0.0);
    let half = 1.96 * variance.sqrt();
    let all: f64 = costs
        .iter()
        .map(|&c| c as f64)
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    let mut predicted = vec![0.0; costs.len()];
    for (h, parts) in strata.iter().enumerate() {
        for &i in parts {
            predicted[i] = rate[h] * costs[i] as f64 + once.unwrap_or(0.0) * costs[i] as f64 / all;
        }
    }
    Estimate {
        parts: costs.len(),
        samples,
        core_seconds,
        interval: ((core_seconds - half).max(0.0), core_seconds + half),
        pieces_seconds,
        pieces_once: once.is_some(),
        predicted,
    }
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
}
