//! The library without the command line: a crate that depends on nqueens-engine with
//! `default-features = false` builds none of the binary's crates, and the examples in
//! `examples/` run without a feature (`examples.rs`).

use std::process::Command;

mod examples;

/// The crates of nqueens-engine' normal dependency tree, with `extra` flags to `cargo tree`.
fn tree(extra: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal",
            "-p",
            "nqueens-engine",
        ])
        .args(["--prefix", "none", "--format", "{p}", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .args(extra)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

#[test]
fn without_default_features_none_of_the_cli_crates_are_built() {
    // anyhow too: the library's errors are its own types.
    let cli = [
        "anyhow",
        "clap",
        "clap_complete",
        "indicatif",
        "console",
        "signal-hook",
    ];
    let with_cli = tree(&[]);
    for name in cli {
        assert!(with_cli.iter().any(|c| c == name), "{name} in {with_cli:?}");
    }
    let library = tree(&["--no-default-features"]);
    for name in cli {
        assert!(!library.iter().any(|c| c == name), "{name} in {library:?}");
    }
    assert!(library.iter().any(|c| c == "rayon"), "{library:?}");
}

/// The README's numbers of crates, with and without the command line, are the tree's.
#[test]
fn the_readme_counts_the_crates_as_cargo_does() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let words: Vec<&str> = readme.split_whitespace().collect();
    let at = words
        .windows(4)
        .position(|w| w[0] == "builds" && w[2..] == ["crates", "besides"])
        .expect("the README's sentence on the crates");
    let (without, with) = (words[at + 1], words[at + 7]);
    assert_eq!(
        words[at + 5..at + 7],
        ["instead", "of"],
        "{:?}",
        &words[at..at + 8]
    );
    let besides = |extra: &[&str]| {
        let mut crates = tree(extra);
        crates.sort();
        crates.dedup();
        crates
            .iter()
            .filter(|c| *c != "nqueens-engine")
            .count()
            .to_string()
    };
    assert_eq!(
        without,
        besides(&["--no-default-features"]),
        "without the CLI"
    );
    assert_eq!(with, besides(&[]), "with the CLI");
}

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use nqueens_engine::run::FileError;
use nqueens_engine::run::shard::{Disagreement, MergeError, Shard};
use nqueens_engine::{
    Engine, Error, Kernel, Loops, Method, Observer, Options, Pairs, Run, Tally, count, published,
};
use serde_json::json;

/// A loop over every board counts each one with the default options: the default split
/// depth is at most the board's size.
#[test]
fn count_takes_every_board_from_0_to_16_with_the_default_options() {
    for n in 0..=16 {
        let c = count(n, &Options::default()).unwrap_or_else(|e| panic!("n = {n}: {e}"));
        assert_eq!(Some(c.solutions), published::all(n), "n = {n}");
    }
}

/// A split depth given is used as given, and refused where it is deeper than the board,
/// by `count` and by the engine alike.
#[test]
fn a_split_depth_given_deeper_than_the_board_is_an_error() {
    let deep = Options {
        split_depth: Some(40),
        ..Options::default()
    };
    assert_eq!(
        count(12, &deep),
        Err(Error::SplitDepth { depth: 40, n: 12 })
    );
    let engine = Engine::new(&deep).unwrap();
    assert_eq!(
        engine.plan(12).err(),
        Some(Error::SplitDepth { depth: 40, n: 12 })
    );
    let at_most = Options {
        split_depth: Some(1),
        ..Options::default()
    };
    assert_eq!(count(1, &at_most).unwrap().solutions, 1);
    assert_eq!(
        count(0, &at_most),
        Err(Error::SplitDepth { depth: 1, n: 0 })
    );
    assert_eq!(count(33, &Options::default()), Err(Error::BoardSize(33)));
}

/// `Options::split_depth` is read once, by `Engine::new`: its plans and counts split there.
#[test]
fn the_engine_splits_each_board_as_its_options_say() {
    let options = Options {
        split_depth: Some(3),
        method: Method::Search,
        threads: NonZeroUsize::new(2),
        ..Options::default()
    };
    let engine = Engine::new(&options).unwrap();
    let plan = engine.plan(10).unwrap();
    assert_eq!(plan.split_depth, 3);
    let counts = engine.count(10).unwrap();
    assert_eq!((counts.split_depth, counts.solutions), (Some(3), 724));
    let default = Engine::new(&Options {
        method: Method::Search,
        ..Options::default()
    })
    .unwrap();
    assert_eq!(default.plan(10).unwrap().split_depth, 2);
    assert_eq!(default.plan(1).unwrap().split_depth, 1);
}

/// An outcome knows the loop and threads that counted it: its counts need only the plan.
#[test]
fn an_outcome_names_the_loop_that_counted_it() {
    let engine = Engine::new(&Options {
        kernel: Kernel::Scalar,
        ..Options::default()
    })
    .unwrap();
    let plan = engine.plan(11).unwrap();
    let counts = Run::new(&plan).execute(&engine).counts(&plan);
    assert_eq!(counts.solutions, 2680);
    assert_eq!(counts.kernel, Loops::One(Kernel::Scalar));
    assert_eq!(counts.threads, Some(engine.threads()));
}

/// A GPU's matching as the join hands it over, counted here pair by pair: it notes how many
/// threads are inside it at once, and its first caller waits (up to a few seconds) for a
/// second to come in.
#[derive(Default)]
struct Together {
    inside: AtomicUsize,
    most: AtomicUsize,
    first: AtomicBool,
}

impl Pairs for Together {
    fn disjoint(&self, table: &[u64], probe: &[u64]) -> u64 {
        let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        if !self.first.swap(true, Ordering::SeqCst) {
            let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while self.most.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < until {
                std::thread::yield_now();
            }
        }
        let pairs = table
            .iter()
            .map(|&t| probe.iter().filter(|&&p| t & p == 0).count() as u64)
            .sum();
        self.inside.fetch_sub(1, Ordering::SeqCst);
        pairs
    }
}

/// Where the GPU counts every key, every worker feeds it: two threads are inside its
/// matching at once (one building its key while another's is matched), and the counts are
/// the CPU's.
#[test]
fn every_worker_feeds_a_gpu_that_counts_every_key() {
    let engine = Engine::new(&Options {
        threads: NonZeroUsize::new(2),
        method: Method::Join,
        ..Options::default()
    })
    .unwrap();
    let plan = engine.plan(12).unwrap();
    let gpu = Together::default();
    let outcome = Run::new(&plan).on_gpu(&gpu, true).execute(&engine);
    assert_eq!(outcome.counts(&plan).solutions, 14_200);
    assert_eq!(outcome.gpu_parts, plan.len_of_keys() as u64);
    assert_eq!(gpu.most.load(Ordering::SeqCst), 2, "one thread fed the GPU");
}

/// A run that resumes every part names no loop or threads (a checkpoint's records do not
/// say what counted them); one that counts any part names its own.
#[test]
fn a_resumed_run_names_only_the_loop_and_threads_it_counted_with() {
    let two = Engine::new(&Options {
        threads: NonZeroUsize::new(2),
        ..Options::default()
    })
    .unwrap();
    let plan = two.plan(12).unwrap();
    let each = Run::new(&plan).keep_each().execute(&two).each;
    assert_eq!(each.len(), plan.len());
    let one = Engine::new(&Options {
        threads: NonZeroUsize::new(1),
        kernel: Kernel::Scalar,
        ..Options::default()
    })
    .unwrap();
    let done: std::collections::HashMap<usize, Tally> = each.into_iter().collect();
    let all = Run::new(&plan).resume(done.clone()).execute(&one);
    let counts = all.counts(&plan);
    assert_eq!(counts.solutions, 14200);
    assert_eq!((counts.kernel, counts.threads), (Loops::Resumed, None));
    let json = serde_json::to_value(counts).unwrap();
    assert_eq!(
        (&json["kernel"], &json["threads"]),
        (&json!(null), &json!(null))
    );
    let mut most = done;
    most.remove(&0);
    let rest = Run::new(&plan).resume(most).execute(&one).counts(&plan);
    assert_eq!(rest.solutions, 14200);
    assert_eq!(
        (rest.kernel, rest.threads),
        (Loops::One(Kernel::Scalar), Some(1))
    );
}

/// Sets its flag once `after` parts have finished.
struct StopAfter<'a> {
    after: usize,
    seen: AtomicUsize,
    stop: &'a AtomicBool,
}

impl Observer for StopAfter<'_> {
    fn finished(&self, _: usize, _: Tally) {
        if self.seen.fetch_add(1, Ordering::SeqCst) + 1 >= self.after {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// A run stopped from outside starts no further part: on one thread exactly the parts
/// before the stop are counted, and the run says how many of how many.
#[test]
fn a_run_stopped_from_outside_counts_no_further_part() {
    let engine = Engine::new(&Options {
        threads: NonZeroUsize::new(1),
        method: Method::Search,
        ..Options::default()
    })
    .unwrap();
    let plan = engine.plan(13).unwrap();
    assert!(plan.len() > 10);
    let stop = AtomicBool::new(false);
    let observer = StopAfter {
        after: 3,
        seen: AtomicUsize::new(0),
        stop: &stop,
    };
    let stopped = Run::new(&plan)
        .observe(&observer)
        .execute_until(&engine, &stop);
    assert_eq!(
        stopped,
        Err(Error::Stopped {
            finished: 3,
            parts: plan.len()
        })
    );
    assert_eq!(
        observer.seen.into_inner(),
        3,
        "no part started after the stop"
    );
    // Never set, the flag changes nothing; set after the last part, the count stands.
    let unset = AtomicBool::new(false);
    let whole = Run::new(&plan).execute_until(&engine, &unset).unwrap();
    assert_eq!(whole.counts(&plan).solutions, 73712);
    let last = StopAfter {
        after: plan.len(),
        seen: AtomicUsize::new(0),
        stop: &unset,
    };
    let done = Run::new(&plan)
        .observe(&last)
        .execute_until(&engine, &unset);
    assert_eq!(done.unwrap().tally.solutions, 73712);
}

/// Every variant of the library's `Error`, each once; the match has no wildcard, so a new
/// variant fails to compile here until it is listed.
fn every_error() -> Vec<Error> {
    let errors = [
        Error::BoardSize(40),
        Error::SplitDepth { depth: 40, n: 12 },
        Error::Kernel {
            asked: Kernel::Avx512,
            has: vec![Kernel::Avx2, Kernel::Scalar, Kernel::Auto],
        },
        Error::TooManySubproblems {
            depth: 9,
            n: 30,
            limit: 1 << 22,
        },
        Error::SplitTooDeep {
            depth: 29,
            n: 30,
            limit: 1 << 30,
        },
        Error::TooLongToSample {
            n: 30,
            depth: 2,
            nodes: 1 << 80,
            seconds: 60,
            threads: 2,
        },
        Error::TooFewSamples {
            n: 26,
            seconds: "0.5".into(),
            sampled: 0,
        },
        Error::Uncosted {
            n: 26,
            seconds: "0.5".into(),
            parts: 100,
        },
        Error::Shards {
            index: 0,
            count: 100,
            subproblems: 10,
        },
        Error::Memory {
            n: 22,
            need: 3 << 30,
            limit: 1 << 20,
        },
        Error::JoinSize(29),
        Error::Threads(5000),
        Error::ThreadPool("no threads".into()),
        Error::Stopped {
            finished: 3,
            parts: 10,
        },
    ];
    let seen: Vec<usize> = errors
        .iter()
        .map(|e| match e {
            Error::BoardSize(_) => 0,
            Error::SplitDepth { .. } => 1,
            Error::Kernel { .. } => 2,
            Error::TooManySubproblems { .. } => 3,
            Error::SplitTooDeep { .. } => 4,
            Error::TooLongToSample { .. } => 5,
            Error::TooFewSamples { .. } => 6,
            Error::Uncosted { .. } => 7,
            Error::Shards { .. } => 8,
            Error::Memory { .. } => 9,
            Error::JoinSize(_) => 10,
            Error::Threads(_) => 11,
            Error::ThreadPool(_) => 12,
            Error::Stopped { .. } => 13,
        })
        .collect();
    assert_eq!(seen, (0..14).collect::<Vec<_>>(), "every variant once");
    errors.into()
}

/// Every variant of `FileError` (none names a flag: the binary adds the one a path came with).
fn every_file_error() -> Vec<FileError> {
    let path = || PathBuf::from("shards/0.json");
    let files = [
        FileError::Unusable {
            path: path(),
            why: "a directory".into(),
        },
        FileError::Io {
            doing: "write shard result".into(),
            path: path(),
            error: std::io::Error::other("disk full"),
        },
        FileError::InUse { path: path() },
        FileError::TooLarge {
            path: path(),
            kind: "shard result",
            limit: 1 << 30,
        },
        FileError::invalid(&path(), "not JSON"),
    ];
    for f in &files {
        match f {
            FileError::Unusable { .. }
            | FileError::Io { .. }
            | FileError::InUse { .. }
            | FileError::TooLarge { .. }
            | FileError::Invalid { .. } => {}
        }
    }
    files.into()
}

/// Every variant of `MergeError`.
fn every_merge_error() -> Vec<MergeError> {
    let path = || PathBuf::from("shards/0.json");
    let tally = Tally {
        solutions: 2,
        unique8: 8,
    };
    let merges = [
        MergeError::NoFiles,
        MergeError::File(FileError::InUse { path: path() }),
        MergeError::Twice {
            first: path(),
            second: path(),
            shard: Shard { index: 0, count: 2 },
        },
        MergeError::Missing {
            missing: "1-3".into(),
            count: 4,
        },
        MergeError::Plan {
            path: path(),
            config: "n = 12".into(),
            error: Error::SplitDepth { depth: 40, n: 12 },
        },
        MergeError::Replanned {
            files: "n = 12".into(),
            planned: "n = 12".into(),
        },
        MergeError::Overlap {
            subproblem: 3,
            first: path(),
            second: path(),
        },
        MergeError::Uncovered {
            uncovered: 1,
            total: 10,
            first: 3,
        },
        MergeError::Overflow {
            n: 12,
            limit: 1 << 40,
        },
        MergeError::NotBurnside { unique8: 9 },
        MergeError::SameRun {
            first: path(),
            second: path(),
            run: "r".into(),
            host: "h".into(),
        },
        MergeError::Disagree(vec![Disagreement {
            part: 1,
            first: path(),
            counted: tally,
            second: path(),
            other: Tally::default(),
        }]),
        MergeError::NoQuorum {
            quorum: 2,
            lacking: 3,
            total: 10,
            parts: "0-2".into(),
            held: "shards/0.json (shard 0/2, source shards)".into(),
            copies: 1,
        },
        MergeError::Audit {
            subproblem: 1,
            path: path(),
            again: tally,
            recorded: Tally::default(),
        },
        MergeError::Loop(Error::Kernel {
            asked: Kernel::Avx512,
            has: vec![Kernel::Scalar, Kernel::Auto],
        }),
    ];
    for m in &merges {
        match m {
            MergeError::NoFiles
            | MergeError::File(_)
            | MergeError::Twice { .. }
            | MergeError::Missing { .. }
            | MergeError::Plan { .. }
            | MergeError::Replanned { .. }
            | MergeError::Overlap { .. }
            | MergeError::Uncovered { .. }
            | MergeError::Overflow { .. }
            | MergeError::NotBurnside { .. }
            | MergeError::SameRun { .. }
            | MergeError::Disagree(_)
            | MergeError::NoQuorum { .. }
            | MergeError::Audit { .. }
            | MergeError::Loop(_) => {}
        }
    }
    merges.into()
}

/// Every variant of the library's errors, rendered: each names values in the library's
/// terms, never a command-line flag (the binary adds the flags). The matches have no
/// wildcard, so a new variant fails to compile here until it is rendered too.
#[test]
fn library_errors_name_values_never_flags() {
    let (errors, files, merges) = (every_error(), every_file_error(), every_merge_error());
    let texts = errors
        .iter()
        .map(ToString::to_string)
        .chain(files.iter().map(ToString::to_string))
        .chain(merges.iter().map(ToString::to_string));
    // As the checks of a path to write give them, too.
    let dir = tempfile::tempdir().unwrap();
    let given = dir.path().join("sub/");
    let refused = [
        nqueens_engine::run::file_to_write(&given).unwrap_err(),
        nqueens_engine::run::Output::create(dir.path())
            .err()
            .unwrap(),
    ];
    assert!(refused.iter().all(FileError::is_usage), "{refused:?}");
    let refused = refused.iter().map(ToString::to_string);
    for text in texts.chain(refused) {
        assert!(!text.contains("--"), "{text}");
    }
    // The size of a memory budget is said in binary units.
    let memory = errors[9].to_string();
    assert!(
        memory.contains("3 GiB") && memory.contains("1 MiB"),
        "{memory}"
    );
}
