//! `merge --quorum` holds what the plan's parts need, not a deal of the plan per slicing: the
//! bytes this binary's allocator has out at once while shard 0 of 1,000 slicings of one
//! plan is merged under a quorum stay a small multiple of the plan's parts. (A deal kept per
//! slicing, 4 bytes a part each, held about three times this bound.)

use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;

use nqueens_engine::run::quorum::{self, Source};
use nqueens_engine::run::shard::{self, Shard, ShardResult};
use nqueens_engine::{Engine, Options, Plan, Run, Symmetry, Tally};

use crate::counted::{HELD, PEAK, alone};

/// Shard 0 of every slicing of n = 12's plan (searched at depth 5, no symmetry) from 1 to
/// 1,000 shards, each a run of its own in one folder, merged under a quorum of 1: the parts
/// agreed and summed exactly, within 1,500 bytes a part (780 measured; a deal kept per slicing
/// adds 4,000).
#[test]
fn a_quorum_of_many_slicings_holds_memory_by_the_parts() {
    let _alone = alone();
    let engine = Engine::new(&Options {
        threads: NonZeroUsize::new(2),
        ..Options::default()
    })
    .unwrap();
    let plan = Plan::new(12, Symmetry::None, 5).unwrap();
    let parts = plan.len();
    let slicings = 1000;
    assert!(parts > 5 * slicings, "{parts} parts");
    let outcome = Run::new(&plan).keep_each().execute(&engine);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for k in 1..=slicings {
        let owner = shard::deal(plan.costs(), k);
        let each: Vec<(usize, Tally)> = (outcome.each.iter().copied())
            .filter(|&(i, _)| owner[i] == 0)
            .collect();
        let shard = Shard { index: 0, count: k };
        let mut r = ShardResult::new(&plan, shard, engine.kernel(), each, 1, 0.5);
        r.run = format!("{k:032x}");
        r.seal();
        let file = dir.path().join(format!("0-of-{k}.json"));
        std::fs::write(&file, serde_json::to_vec(&r).unwrap()).unwrap();
        files.push(file);
    }
    let sources = vec![Source {
        name: dir.path().to_path_buf(),
        files,
    }];
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    let before = HELD.load(Ordering::Relaxed);
    let agreed = engine
        .install(|| quorum::merge(sources, 1, true, None))
        .unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    // Shard 0 of one shard is the whole plan: every part agreed, summed once.
    assert_eq!(agreed.parts_agreed(), parts);
    assert_eq!(agreed.sum.outcome.tally, outcome.tally);
    assert!(
        peak <= 1500 * parts,
        "{peak} bytes held at most for {parts} parts of {slicings} slicings"
    );
}
