//! A sample of the `mutate` instrument's trials (`tests/mutate/`): random mutations and
//! forgeries of a shard set, merged alone, with a full audit and under a quorum of two runs,
//! and random mutations of a checkpoint, resumed. No merge may give a wrong total after a
//! mutation; none with an audit or a quorum after a forgery; the quorum names every forged
//! part. No resume may give a wrong total after a mutation. `scripts/mutate.sh 10000` runs
//! many more.

#[path = "mutate/checkpoints.rs"]
mod checkpoints;
#[path = "mutate/trials.rs"]
mod trials;

#[test]
fn no_mutation_or_forgery_is_merged_to_a_wrong_total() {
    let mut tallies = trials::Tallies::default();
    let mut failed = Vec::new();
    // 224 trials: every kind 14 times.
    trials::run(224, 71, |t, trial| {
        tallies.add(trial);
        if let Some(why) = trial.failure() {
            failed.push(format!(
                "trial {t} ({} {}): {why}",
                trial.kind.name(),
                trial.detail
            ));
        }
    });
    assert!(
        failed.is_empty(),
        "{}\n{}",
        failed.join("\n"),
        tallies.csv()
    );
}

#[test]
fn no_mutated_checkpoint_is_resumed_to_a_wrong_total() {
    let mut tallies = checkpoints::Tallies::default();
    let mut failed = Vec::new();
    // 260 trials: every kind 20 times.
    checkpoints::run(260, 71, |t, trial| {
        tallies.add(trial);
        if let Some(why) = trial.failure() {
            failed.push(format!(
                "trial {t} ({} {}): {why}",
                trial.kind.name(),
                trial.detail
            ));
        }
    });
    assert!(
        failed.is_empty(),
        "{}\n{}",
        failed.join("\n"),
        tallies.csv()
    );
}
