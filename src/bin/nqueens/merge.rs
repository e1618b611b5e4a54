//! `merge`: shard results added up, each shard once or under a quorum of runs, audited and
//! printed.

use std::io::{self, Write};

use nqueens_engine::run::quorum::{self, Agreed};
use nqueens_engine::run::shard::{self, MergeError, Pick, Sum};
use nqueens_engine::{Engine, Kernel, Options};

use crate::cli::MergeArgs;
use crate::commands::Failure;
use crate::hooks;
use crate::output::{Agreement, Coverage, Printer, Sums, TABLE_RANGES};
use crate::sources;

/// A merge that cannot be made (exit 1), with the flags that would help where some would.
fn failed(e: MergeError) -> Failure {
    let hint = match &e {
        MergeError::Missing { .. } => " (merge --partial sums the shards there are)".to_string(),
        MergeError::NoQuorum { quorum, .. } => {
            format!(" (merge --partial --quorum {quorum} sums the parts that have one)")
        }
        _ => String::new(),
    };
    Failure::Failed(anyhow::anyhow!("{e}{hint}"))
}

pub fn merge(args: MergeArgs) -> Result<(), Failure> {
    // One pool for the whole command: the files are read, the plan rebuilt (its keys found in
    // parallel) and audited on -j threads.
    let engine = Engine::new(&Options {
        threads: args.threads,
        ..Options::default()
    })?;
    let mut sources =
        sources::sources(&args.files, &args.list, args.partial, args.quorum.is_some())?;
    // The audit's sample is picked as the files are read: its seed comes first.
    let pick = args.audit.map(|percent| Pick {
        percent,
        seed: args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        }),
    });
    if let Some(k) = args.quorum {
        let agreed = engine
            .install(|| quorum::merge(sources, k, args.partial, pick))
            .map_err(failed)?;
        return print_agreed(&args, audited(&agreed.sum, engine, pick)?, &agreed);
    }
    let files = sources.pop().map(|s| s.files).unwrap_or_default();
    let merged = engine
        .install(|| shard::merge(files, args.partial, pick))
        .map_err(failed)?;
    let engine = audited(&merged.sum, engine, pick)?;
    let mut out = Printer::new(io::stdout().lock(), args.format).on_terminal();
    let sum = &merged.sum;
    if args.partial {
        let coverage = Coverage {
            sums: Sums::of(sum, merged.complete()),
            shards: merged.count,
            shards_merged: merged.shards_merged(),
            parts: sum.plan.len(),
            parts_merged: merged.parts_merged(),
            cost_merged: engine.install(|| merged.cost_merged()),
            missing: shard::ranges_text(&merged.missing(), usize::MAX),
        };
        if !coverage.sums.complete {
            let _ = writeln!(
                io::stderr(),
                "partial: {} of {} shards, {} of {} subproblems ({:.2}% of the estimated work); missing shards {}",
                coverage.shards_merged,
                coverage.shards,
                coverage.parts_merged,
                coverage.parts,
                100.0 * coverage.cost_merged,
                shard::ranges_text(&merged.missing(), 20)
            );
        }
        out.print(&coverage)?;
    } else {
        out.print(&sum.outcome.counts(&sum.plan))?;
    }
    hooks::report_threads();
    Ok(())
}

/// Recounts the audit's sample of `sum`, where `pick` asks for one, on `engine`, each part
/// with the other method or loop than its own file's; returns the engine.
fn audited(sum: &Sum, engine: Engine, pick: Option<Pick>) -> Result<Engine, Failure> {
    // The files are read and summed: a test changes them here, and the audit must not see it.
    hooks::hold_at("merged");
    let Some(pick) = pick else {
        return Ok(engine);
    };
    // Recount with the other method, or the other loop: a bug in what counted a part then
    // shows as a difference rather than repeating itself.
    let audit = sum.audit(engine, Kernel::Auto.resolve()?).map_err(failed)?;
    let recounted: usize = audit.by.iter().map(|w| w.2).sum();
    let how = match &audit.by[..] {
        [(method, kernel, _)] => format!("by {} with the {} loop", method.name(), kernel.name()),
        ways => {
            let each: Vec<String> = ways
                .iter()
                .map(|(method, kernel, k)| {
                    format!("{k} by {} with the {} loop", method.name(), kernel.name())
                })
                .collect();
            format!("({})", each.join(", "))
        }
    };
    let _ = writeln!(
        io::stderr(),
        "audit: {recounted} subproblems recounted {how} (seed {}), all equal to the shards' records",
        pick.seed
    );
    Ok(audit.engine)
}

/// Prints a quorum merge: the copies left out, then the counts, or with `--partial` how much
/// of the plan has its quorum.
fn print_agreed(args: &MergeArgs, engine: Engine, agreed: &Agreed) -> Result<(), Failure> {
    let mut err = io::stderr();
    for (copy, of) in &agreed.copies {
        let _ = writeln!(
            err,
            "quorum: {} is a copy of {} (the same run): counted once",
            copy.display(),
            of.display()
        );
    }
    let sum = &agreed.sum;
    let (parts, complete) = (sum.plan.len(), agreed.complete());
    let names: Vec<String> = agreed
        .sources
        .iter()
        .map(|s| s.display().to_string())
        .collect();
    let merged = format!(
        "{} from {} {}; on {}",
        runs(agreed.runs),
        agreed.sources.len(),
        named("source", &names, 4),
        named("host", &agreed.hosts, 8)
    );
    let mut out = Printer::new(io::stdout().lock(), args.format).on_terminal();
    if args.partial {
        let row = Agreement {
            sums: Sums::of(sum, complete),
            quorum: agreed.quorum,
            runs: agreed.runs,
            sources: agreed.sources.len(),
            parts,
            parts_agreed: agreed.parts_agreed(),
            cost_agreed: engine.install(|| agreed.cost_agreed()),
            lacking: shard::ranges_text(&agreed.lacking(), usize::MAX),
        };
        let _ = writeln!(
            err,
            "quorum {}: {} of the plan's {parts} parts counted alike in {} or more ({:.2}% of the estimated work; {merged}){}",
            agreed.quorum,
            row.parts_agreed,
            source_count(agreed.quorum),
            100.0 * row.cost_agreed,
            if complete {
                String::new()
            } else {
                format!(
                    "; lacking parts {}",
                    shard::ranges_text(&agreed.lacking(), TABLE_RANGES)
                )
            }
        );
        out.print(&row)?;
    } else {
        let _ = writeln!(
            err,
            "quorum {}: all {parts} parts of the plan counted alike in {} or more ({merged})",
            agreed.quorum,
            source_count(agreed.quorum)
        );
        out.print(&sum.outcome.counts(&sum.plan))?;
    }
    hooks::report_threads();
    Ok(())
}

/// `k` sources, in words.
fn source_count(k: usize) -> String {
    format!("{k} source{}", if k == 1 { "" } else { "s" })
}

/// `k` runs, in words.
fn runs(k: usize) -> String {
    format!("{k} run{}", if k == 1 { "" } else { "s" })
}

/// `word` and the first `most` of `items`, comma-separated, then how many more: `hosts a,
/// b and 3 more`.
fn named(word: &str, items: &[String], most: usize) -> String {
    let mut text = format!(
        "{word}{} {}",
        if items.len() == 1 { "" } else { "s" },
        items[..items.len().min(most)].join(", ")
    );
    if items.len() > most {
        text.push_str(&format!(" and {} more", items.len() - most));
    }
    text
}
