//! Checkpoint and resume, shards and merge, and progress that leaves stdout alone.

use std::path::{Path, PathBuf};
use std::process::{Command as Std, Output};
use std::time::Duration;

use assert_cmd::Command;
use nqueens_engine::Tally;
use nqueens_engine::run::shard::ShardResult;
use nqueens_engine::types::Residues;
use serde_json::Value::Null;

use crate::file_trials;

fn nqueens(args: &[&str]) -> Output {
    Command::cargo_bin("nqueens")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

/// A fresh scratch directory for one test, removed with everything in it when dropped (a
/// passing or failing test leaves nothing behind).
struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

fn scratch(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("nqueens-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// The counts of a JSON Lines row, without the timing.
fn counts(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut().unwrap().remove("elapsed_s");
    v
}

/// Runs nqueens with the test hook that aborts it, as a crash would, once `k` results are
/// synced to its checkpoint; asserts that it did not finish.
fn crash_after<S: AsRef<std::ffi::OsStr>>(args: &[S], k: &str) -> Output {
    let out = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args)
        .env("NQUEENS_TEST_ABORT_AFTER", k)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the hook aborts the run");
    out
}

/// `out`, asserted to be a success (its stderr shown where not).
fn succeeded(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `out`, asserted to be a refusal (exit 1, nothing on stdout) whose stderr holds each of
/// `needles`; its stderr.
fn refused_with(out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "no total: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} not in: {err}");
    }
    err
}

#[test]
fn killed_run_resumes_to_the_uninterrupted_counts() {
    let dir = scratch("resume");
    for symmetry in ["full", "mirror"] {
        let base = [
            "count",
            "14",
            "--split-depth",
            "3",
            "--format",
            "json",
            "--symmetry",
            symmetry,
        ];
        let whole = counts(&nqueens(&base));
        let ckpt = dir.join(format!("{symmetry}.ckpt"));
        let mut args = base.to_vec();
        args.extend(["--checkpoint", path(&ckpt)]);
        // Crash after 50 results, then again after 40 more, then finish.
        for k in ["50", "40"] {
            crash_after(&args, k);
        }
        let lines = std::fs::read_to_string(&ckpt).unwrap().lines().count();
        assert!(lines > 90, "records were kept across both crashes: {lines}");
        // A checkpoint given to merge is named for what it is.
        let merged = merge(&[path(&ckpt).to_string()]);
        let err = String::from_utf8_lossy(&merged.stderr);
        assert_eq!(merged.status.code(), Some(1), "{err}");
        assert!(err.contains("a checkpoint, not a shard result"), "{err}");
        let resumed = nqueens(&args);
        let err = String::from_utf8_lossy(&resumed.stderr);
        let said = err
            .lines()
            .find_map(|l| l.strip_prefix("resuming: "))
            .unwrap_or_else(|| panic!("no resuming line: {err}"));
        let done: usize = said.split(' ').next().unwrap().parse().unwrap();
        assert!(
            (90..=lines).contains(&done) && said.contains(" parts done (from "),
            "{said}"
        );
        assert_eq!(counts(&resumed), whole, "{symmetry}");
        // Running again over a complete checkpoint recounts nothing and agrees, naming no
        // loop or threads: none counted this run.
        let mut again = counts(&nqueens(&args));
        assert_eq!((&again["kernel"], &again["threads"]), (&Null, &Null));
        for said in ["kernel", "threads"] {
            again[said] = whole[said].clone();
        }
        assert_eq!(again, whole);
    }
}

/// A resumed count names the loop and threads of this run's counting: none where the
/// checkpoint held every part (its records do not say which loop made them), this run's
/// where it counted any, whatever `-j` and `--kernel` the earlier runs had.
#[test]
fn a_resumed_count_names_only_the_loop_and_threads_it_counted_with() {
    let dir = scratch("labels");
    let ckpt = dir.join("n12.ckpt");
    let first = ["count", "12", "-j", "2", "--checkpoint", path(&ckpt)];
    crash_after(&first, "20");
    let other = ["-j", "1", "--kernel", "scalar", "--format", "json"];
    let partly = counts(&nqueens(&[&first[..2], &other, &first[4..]].concat()));
    let named = (&partly["kernel"], &partly["threads"]);
    assert_eq!(named, (&serde_json::json!("scalar"), &serde_json::json!(1)));
    let finished = |format: &str| {
        let mut args = [&first[..2], &other[..4], &first[4..]].concat();
        args.extend(["--format", format]);
        let out = nqueens(&args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        assert!(err.contains("none left to count"), "{err}");
        String::from_utf8(out.stdout).unwrap()
    };
    let row: serde_json::Value = serde_json::from_str(&finished("json")).unwrap();
    assert_eq!(row["solutions"], 14200);
    assert_eq!((&row["kernel"], &row["threads"]), (&Null, &Null));
    let csv = finished("csv");
    let fields: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(&fields[3..7], ["join", "", "", ""], "{csv}");
    let table = finished("table");
    let cells: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(&cells[3..6], ["join", "-", "-"], "{table}");
}

/// A plan is the same on every machine: shards of a join made with 1 thread and a small
/// `--memory` merge with shards made with 8 threads and a large one, and a checkpoint
/// written by one resumes under the other, to the published counts.
#[test]
fn shards_and_checkpoints_move_between_thread_counts_and_memory_budgets() {
    let dir = scratch("machines");
    let small = ["--method", "join", "-j", "1", "--memory", "24M"];
    let large = ["--method", "join", "-j", "8", "--memory", "1G"];
    let whole = counts(&nqueens(&["count", "14", "--format", "json"]));
    let mut files = Vec::new();
    for (i, flags) in [(0, &small), (1, &large), (2, &small)] {
        let file = dir.join(format!("n14-{i}-of-3.json"));
        let shard = format!("{i}/3");
        let mut args = vec!["count", "14", "--shard", &shard, "--output", path(&file)];
        args.extend(flags.iter());
        let out = nqueens(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        files.push(path(&file).to_string());
    }
    let merged = counts(&merge(&files));
    assert_eq!(merged["solutions"], whole["solutions"]);
    assert_eq!(merged["unique"], whole["unique"]);

    for (first, then) in [(&small, &large), (&large, &small)] {
        let ckpt = dir.join(format!("moved-{}.ckpt", first[3]));
        let with = |flags: &[&str; 6]| {
            let mut args = vec![
                "count",
                "14",
                "--format",
                "json",
                "--checkpoint",
                path(&ckpt),
            ];
            args.extend(flags.iter());
            args.into_iter().map(String::from).collect::<Vec<_>>()
        };
        crash_after(&with(first), "100");
        let resumed = counts(&nqueens(
            &with(then).iter().map(String::as_str).collect::<Vec<_>>(),
        ));
        assert_eq!(
            resumed["solutions"], whole["solutions"],
            "-j {} then -j {}",
            first[3], then[3]
        );
        assert_eq!(resumed["unique"], whole["unique"]);
    }
}

/// A checkpoint of `count 13 --split-depth 3` left by a crash after 30 records: its directory
/// (removed when dropped), its path, the command that resumes it, and the counts of an
/// uninterrupted run.
fn crashed_checkpoint(name: &str) -> (Scratch, PathBuf, Vec<String>, serde_json::Value) {
    let dir = scratch(name);
    let ckpt = dir.join("c.ckpt");
    let args: Vec<String> = [
        "count",
        "13",
        "--split-depth",
        "3",
        "--format",
        "json",
        "--checkpoint",
        path(&ckpt),
    ]
    .map(String::from)
    .to_vec();
    let plain: Vec<&str> = args[..6].iter().map(String::as_str).collect();
    let whole = counts(&nqueens(&plain));
    crash_after(&args, "30");
    (dir, ckpt, args, whole)
}

#[test]
fn torn_last_record_is_recounted() {
    let (_dir, ckpt, args, whole) = crashed_checkpoint("torn");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // A crash mid-write leaves part of a line; so does a record cut anywhere.
    let mut text = std::fs::read_to_string(&ckpt).unwrap();
    let last = text.trim_end().lines().last().unwrap().to_string();
    text.push_str(&last[..last.len() / 2]);
    std::fs::write(&ckpt, &text).unwrap();
    assert_eq!(counts(&nqueens(&args)), whole);
    assert!(
        std::fs::read_to_string(&ckpt)
            .unwrap()
            .lines()
            .all(|l| l.ends_with('}')),
        "the torn tail was cut off"
    );
}

/// The subproblems a checkpoint's records name, in order.
fn recorded(ckpt: &Path) -> Vec<u64> {
    std::fs::read_to_string(ckpt)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            r["subproblem"].as_u64().unwrap()
        })
        .collect()
}

/// A changed checksum on line 3 of 14,402 costs that record only: the file is not cut there,
/// and the 14,399 good records after it are not counted again.
#[test]
fn one_damaged_record_among_fourteen_thousand_costs_that_record_only() {
    let dir = scratch("one-damaged");
    let ckpt = dir.join("c.ckpt");
    let args = words_then(
        "count 15 --method search --kernel scalar --format json --checkpoint",
        &ckpt,
    );
    crash_after(&args, "14401");
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let records = text.lines().count() - 1;
    assert!(records >= 14401, "{records}");
    let mut lines: Vec<&str> = text.lines().collect();
    let damaged = lines[2].replacen("\"crc\":", "\"crc\":1", 1);
    lines[2] = &damaged;
    std::fs::write(&ckpt, lines.join("\n") + "\n").unwrap();
    let out = nqueens(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 damaged record skipped (line 3: checksum or format); its subproblem is counted again; the file is rewritten without it"),
        "{err}"
    );
    assert!(
        err.contains(&format!("resuming: {} of 17121 parts done", records - 1)),
        "{err}"
    );
    let whole = counts(&out);
    assert_eq!(
        (&whole["solutions"], &whole["unique"]),
        (&2279184.into(), &285053.into())
    );
    // The file holds every subproblem once: the good records kept, the damaged one gone, the
    // rest added by the resumed run.
    let mut all = recorded(&ckpt);
    assert_eq!(all.len(), 17121);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 17121);
}

#[test]
fn duplicate_records_are_kept_once_and_conflicting_ones_refused_by_line() {
    let (_dir, ckpt, args, whole) = crashed_checkpoint("duplicates");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len() + 1;
    let with_copy = |of: &str| text.clone() + of + "\n";
    // The same record twice (a copy of line 2 as the last line): harmless, kept once.
    std::fs::write(&ckpt, with_copy(lines[1])).unwrap();
    let out = nqueens(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(counts(&out), whole);
    let mut all = recorded(&ckpt);
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "the copy is gone from the file");
    // The copy with other counts and a sound checksum: refused, naming both lines.
    std::fs::write(&ckpt, with_copy(lines[1])).unwrap();
    forge_record(&ckpt, last - 1, |t| t.solutions += 8);
    let out = nqueens(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("lines 2 and {last} both record subproblem"))
            && err.contains("Delete both lines")
            && err.contains("start a new checkpoint"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no total");
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused() {
    let dir = scratch("refuse");
    let ckpt = dir.join("c.ckpt");
    let args = |n: &'static str| {
        [
            "count",
            n,
            "--split-depth",
            "3",
            "--checkpoint",
            path(&ckpt),
        ]
        .map(String::from)
    };
    crash_after(&args("13"), "30");
    // Another board size.
    let other = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args("12"))
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("was written for n = 13"));
    // Changed counts in three records before the end: those three are skipped (each
    // record's own checksum vouches for it) and counted again, to the exact total.
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let changed = text.replacen("\"solutions\":", "\"solutions\":1", 3);
    std::fs::write(&ckpt, changed).unwrap();
    let damaged = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args("13"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&damaged.stderr);
    assert!(
        err.contains("3 damaged records skipped (lines 2, 3, 4: checksum or format)"),
        "{err}"
    );
    assert_eq!(counts(&damaged)["solutions"], 73712);
    assert_eq!(counts(&damaged)["unique"], 9233);
    // Not a checkpoint at all.
    std::fs::write(&ckpt, "hello\n").unwrap();
    let foreign = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args("13"))
        .output()
        .unwrap();
    assert_eq!(foreign.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&foreign.stderr).contains("not an nqueens checkpoint"));
}

/// Sound records of an n = 15 checkpoint put among an n = 16 checkpoint's: each is damaged
/// there (its checksum names the plan it was made for), skipped and counted again, and the
/// resume gives n = 16's exact total, never one with n = 15's counts in it.
#[test]
fn a_record_from_another_plans_checkpoint_is_damaged_there_not_counted() {
    let dir = scratch("foreign-record");
    let (theirs, ours) = (dir.join("n15.ckpt"), dir.join("n16.ckpt"));
    let args15 = words_then("count 15 --method search --checkpoint", &theirs);
    // No resume audit: the checksum alone must tell the foreign records.
    let args16 = words_then(
        "count 16 --method search --audit 0 --format json --checkpoint",
        &ours,
    );
    crash_after(&args15, "400");
    crash_after(&args16, "100");
    let ours_text = std::fs::read_to_string(&ours).unwrap();
    let held: Vec<u64> = recorded(&ours);
    // Records of parts the n = 16 file does not hold, with counts not 0 (n = 15's counts).
    let foreign: Vec<String> = std::fs::read_to_string(&theirs)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            r["solutions"].as_u64() > Some(0) && !held.contains(&r["subproblem"].as_u64().unwrap())
        })
        .take(20)
        .map(String::from)
        .collect();
    assert_eq!(foreign.len(), 20);
    let mut lines: Vec<&str> = ours_text.lines().collect();
    lines.splice(2..2, foreign.iter().map(String::as_str));
    std::fs::write(&ours, lines.join("\n") + "\n").unwrap();
    let out = nqueens(&args16);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("20 damaged records skipped (lines 3, 4, 5, 6, 7 and 15 more"),
        "{err}"
    );
    let v = counts(&out);
    assert_eq!(
        (&v["solutions"], &v["unique"]),
        (&14772512.into(), &1846955.into())
    );
}

/// A checkpoint of the format before records were tied to their plan (version 2) is refused
/// by its version, the flag and file named, with the way on; so is a newer one.
#[test]
fn a_checkpoint_of_another_format_version_is_refused_by_its_version() {
    let (_dir, ckpt, args, _) = crashed_checkpoint("old-version");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let with_version = |v: u32| {
        let (header, rest) = text.split_once('\n').unwrap();
        let mut h: serde_json::Value = serde_json::from_str(header).unwrap();
        h["version"] = v.into();
        std::fs::write(&ckpt, format!("{h}\n{rest}")).unwrap();
    };
    with_version(2);
    refused_with(
        &nqueens(&args),
        &[
            &format!(
                "--checkpoint: {}: a checkpoint of format version 2; this nqueens reads version 3",
                path(&ckpt)
            ),
            "resume it with the nqueens that wrote it, or count again with a new checkpoint",
        ],
    );
    with_version(4);
    refused_with(
        &nqueens(&args),
        &[
            "a checkpoint of format version 4; this nqueens reads version 3: resume it with the nqueens that wrote it",
        ],
    );
}

fn shards(dir: &Path, n: &str, k: usize, extra: &[&str]) -> Vec<String> {
    (0..k)
        .map(|i| {
            let file = dir.join(format!("n{n}-{i}-of-{k}.json"));
            let shard = format!("{i}/{k}");
            let mut args = vec!["count", n, "--shard", &shard, "--output", path(&file)];
            args.extend(extra);
            let out = succeeded(nqueens(&args));
            assert!(
                out.stdout.is_empty(),
                "a shard prints its summary on stderr only"
            );
            path(&file).to_string()
        })
        .collect()
}

fn merge(files: &[String]) -> Output {
    let mut args = vec!["merge", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    nqueens(&args)
}

#[test]
fn shards_merge_to_the_full_count() {
    let dir = scratch("shards");
    // The join (n >= 10 by default) and the search, with and without symmetry.
    for (n, symmetry) in [
        ("13", "full"),
        ("13", "none"),
        ("10", "full"),
        ("8", "none"),
    ] {
        let whole = counts(&nqueens(&[
            "count",
            n,
            "--format",
            "json",
            "--symmetry",
            symmetry,
        ]));
        let subproblems = whole["subproblems"].as_u64().unwrap() as usize;
        // As many shards as subproblems (one each) is the most there can be: tried where they
        // are few (a process per shard).
        let most = (subproblems <= 100).then_some(subproblems);
        for k in [1, 2, 5].into_iter().chain(most) {
            let files = shards(&dir, n, k, &["--symmetry", symmetry]);
            let mut merged = counts(&merge(&files));
            merged["threads"] = whole["threads"].clone();
            assert_eq!(merged, whole, "n = {n}, {symmetry}, {k} shards");
        }
        let too_many = format!("0/{}", subproblems + 1);
        let out = nqueens(&[
            "count",
            n,
            "--symmetry",
            symmetry,
            "--shard",
            &too_many,
            "--output",
            "x",
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!("at most {subproblems} shards"))
        );
    }
}

#[test]
fn merge_refuses_missing_duplicate_mismatched_and_tampered_shards() {
    let dir = scratch("merge");
    let files = shards(&dir, "12", 3, &["--method", "search"]);
    let refused = |files: &[String], needle: &str| {
        let out = merge(files);
        assert_eq!(out.status.code(), Some(1), "{files:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{err}");
    };
    refused(&files[..2], "missing shard(s) 2 of 3");
    refused(
        &[files[0].clone(), files[1].clone(), files[1].clone()],
        "are both shard 1/3",
    );
    let other = shards(&dir, "11", 3, &[]);
    refused(
        &[files[0].clone(), files[1].clone(), other[2].clone()],
        "is for n = 11",
    );
    // The same board counted by the other method: not mixed.
    let joined = dir.join("joined");
    std::fs::create_dir_all(&joined).unwrap();
    let by_join = shards(&joined, "12", 3, &["--method", "join"]);
    refused(
        &[files[0].clone(), files[1].clone(), by_join[2].clone()],
        "method join",
    );
    let mut whole_join = counts(&merge(&by_join));
    let whole_search = counts(&merge(&files));
    // The join's parts are its keys, not the search's subproblems, at no split depth.
    for differs in ["threads", "subproblems", "method", "split_depth"] {
        whole_join[differs] = whole_search[differs].clone();
    }
    assert_eq!(whole_join, whole_search, "either method, the same counts");
    let text = std::fs::read_to_string(&files[2]).unwrap();
    std::fs::write(
        &files[2],
        text.replacen("\"solutions\":", "\"solutions\":9", 1),
    )
    .unwrap();
    refused(&files, "BLAKE3 digest does not match");
}

/// `count 13 --split-depth 3` as shard `i` of 2, written to `file`, checkpointed in `ckpt`.
fn checkpointed_shard(i: usize, file: &Path, ckpt: &Path) -> Vec<String> {
    let shard = format!("{i}/2");
    [
        "count",
        "13",
        "--split-depth",
        "3",
        "--shard",
        &shard,
        "--output",
        path(file),
        "--checkpoint",
        path(ckpt),
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_shard_can_checkpoint_and_resume() {
    let dir = scratch("shard-ckpt");
    let whole = counts(&nqueens(&[
        "count",
        "13",
        "--split-depth",
        "3",
        "--format",
        "json",
    ]));
    let mut files = Vec::new();
    for i in 0..2 {
        let file = dir.join(format!("{i}.json"));
        let args = checkpointed_shard(i, &file, &dir.join(format!("{i}.ckpt")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crash_after(&args, "20");
        assert!(nqueens(&args).status.success());
        files.push(path(&file).to_string());
    }
    let mut merged = counts(&merge(&files));
    merged["threads"] = whole["threads"].clone();
    assert_eq!(merged, whole);
}

#[test]
fn progress_leaves_stdout_unchanged() {
    let table = |progress: &str| {
        let out = nqueens(&["count", "10-13", "--progress", progress]);
        assert!(out.status.success());
        // Every column but the time.
        let text = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<String> = text
            .lines()
            .map(|l| l.rsplit_once("  ").unwrap().0.to_string())
            .collect();
        (rows, String::from_utf8(out.stderr).unwrap())
    };
    let (never, quiet) = table("never");
    let (auto, auto_err) = table("auto");
    let (always, shown) = table("always");
    assert_eq!(never, auto);
    assert_eq!(never, always);
    assert!(
        quiet.is_empty() && auto_err.is_empty(),
        "no progress off a terminal unless asked"
    );
    assert!(
        shown.contains("subproblems") && shown.contains("% of estimated work"),
        "{shown}"
    );
}

/// Starts a long count (n = 16, scalar search, one thread) on `ckpt` and waits until it
/// has begun.
fn long_count_on(ckpt: &Path) -> (std::process::Child, Vec<String>) {
    let args: Vec<String> = [
        "count",
        "--method",
        "search",
        "--kernel",
        "scalar",
        "16",
        "-j",
        "1",
        "--split-depth",
        "3",
        "--format",
        "json",
        "--checkpoint",
        path(ckpt),
    ]
    .map(String::from)
    .to_vec();
    let child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    (child, args)
}

/// (Ctrl-C is SIGINT.)
#[test]
fn sigint_sigterm_and_sighup_save_the_checkpoint_and_exit_128_plus_the_signal() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let dir = scratch(&format!("sig{signal}"));
        let ckpt = dir.join("c.ckpt");
        let (child, args) = long_count_on(&ckpt);
        let status = Std::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "SIG{signal}: {err}");
        assert!(
            err.contains(&format!("interrupted by SIG{signal}")),
            "{err}"
        );
        assert!(
            err.contains("run the same command again to resume"),
            "{err}"
        );
        assert!(
            std::fs::read_to_string(&ckpt).unwrap().lines().count() > 1,
            "SIG{signal}: some results were saved"
        );
        // What was saved resumes to the exact total (once: every signal saves the same way,
        // and resuming has tests of its own).
        if signal == "TERM" {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let resumed = counts(&nqueens(&args));
            assert_eq!(resumed["solutions"], 14772512);
            assert_eq!(resumed["unique"], 1846955);
        }
    }
}

#[test]
fn a_second_run_on_a_checkpoint_in_use_is_refused() {
    let dir = scratch("locked");
    let ckpt = dir.join("c.ckpt");
    let (mut first, args) = long_count_on(&ckpt);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let second = nqueens(&args);
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains("in use by another nqueens run"), "{err}");
    first.kill().unwrap();
    let _ = first.wait();
    // Once the first run is gone, the file is free, whole, and resumes to the exact total.
    let resumed = counts(&nqueens(&args));
    assert_eq!(resumed["solutions"], 14772512);
}

/// Mounts a tmpfs with `options` at `disk` (made here), or says that `case` is not tested
/// and returns false where this machine does not allow it (not root).
fn mounted(disk: &Path, options: &str, case: &str) -> bool {
    std::fs::create_dir_all(disk).unwrap();
    let ok = Std::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs", path(disk)])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let _ = writeln_stderr(&format!(
            "NOT TESTED HERE: cannot mount a tmpfs (not root?): {case}"
        ));
    }
    ok
}

#[test]
fn a_full_disk_never_leaves_half_a_record_and_the_count_is_still_printed() {
    let dir = scratch("full");
    let disk = dir.join("disk");
    if !mounted(&disk, "size=16k", "the full-disk case") {
        return;
    }
    let ckpt = disk.join("c.ckpt");
    let args = [
        "count",
        "14",
        "--split-depth",
        "3",
        "--format",
        "json",
        "--checkpoint",
        path(&ckpt),
    ];
    let whole = counts(&nqueens(&args[..6]));
    // 16 KiB hold a few hundred of this run's several thousand records.
    let full = nqueens(&args);
    let err = String::from_utf8_lossy(&full.stderr).to_string();
    assert!(err.contains("warning"), "{err}");
    assert_eq!(
        counts(&full),
        whole,
        "the count is printed whatever the disk did"
    );
    let text = std::fs::read_to_string(&ckpt).unwrap();
    assert!(text.lines().count() > 1, "the records that fit were kept");
    assert!(
        text.ends_with('\n') && text.lines().all(|l| l.ends_with('}')),
        "no half record"
    );
    // With room again, the same command resumes from the kept records.
    let kept = text.lines().count();
    let _ = Std::new("umount").arg(path(&disk)).status();
    let roomy = dir.join("c.ckpt");
    std::fs::write(&roomy, &text).unwrap();
    let again = [&args[..7], &[path(&roomy)]].concat();
    assert_eq!(counts(&nqueens(&again)), whole);
    assert!(
        std::fs::read_to_string(dir.join("c.ckpt"))
            .unwrap()
            .lines()
            .count()
            > kept
    );
}

/// `args` of nqueens run by `sh` after `setup` (shell commands: limits), with stdout
/// dropped and stderr piped.
fn run_after(setup: &str, args: &[&str]) -> std::process::Child {
    Std::new("sh")
        .arg("-c")
        .arg(format!("{setup}; exec \"$@\""))
        .arg("sh")
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// The arguments of a count of some seconds (n = 17, the scalar search on one thread) with
/// a checkpoint at `ckpt`.
fn seconds_of_counting(ckpt: &Path) -> Vec<&str> {
    words_then(
        "count 17 --method search --kernel scalar -j 1 --split-depth 3 --checkpoint",
        ckpt,
    )
}

/// The words of `text`, then `file`: a command line that ends in a path.
fn words_then<'a>(text: &'a str, file: &'a Path) -> Vec<&'a str> {
    text.split(' ').chain([path(file)]).collect()
}

/// A checkpoint that can take no record says so at once, not when the count ends.
#[test]
fn a_checkpoint_write_that_fails_is_reported_at_once_while_counting_goes_on() {
    use std::io::BufRead;
    let dir = scratch("write-fails");
    let ckpt = dir.join("c.ckpt");
    // Files of 1 or 2 KiB at most (sh's blocks), SIGXFSZ ignored: a write past that fails
    // with EFBIG. The header fits; a few records more do not.
    let mut child = run_after("trap '' XFSZ; ulimit -f 2", &seconds_of_counting(&ckpt));
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(
        first.starts_with(&format!(
            "warning: cannot write checkpoint {}: ",
            path(&ckpt)
        )) && first.contains("counting goes on"),
        "{first}"
    );
    assert!(child.try_wait().unwrap().is_none(), "said while counting");
    let (code, rest) = terminate(child, err);
    assert_eq!(code, Some(143), "{rest}");
    assert!(!rest.contains("counting goes on"), "said once: {rest}");
    assert!(rest.contains("interrupted by SIGTERM"), "{rest}");
}

/// Under `ulimit -n 4` (the standard streams and the checkpoint, no descriptor to spare)
/// signals are still caught, and the record is written.
#[test]
fn with_no_descriptor_to_spare_the_checkpoint_is_written_and_a_signal_saves_it() {
    let dir = scratch("descriptors");
    let ckpt = dir.join("c.ckpt");
    let whole = succeeded(
        run_after("ulimit -n 4", &["count", "13", "--checkpoint", path(&ckpt)])
            .wait_with_output()
            .unwrap(),
    );
    assert!(!String::from_utf8_lossy(&whole.stderr).contains("warning"));
    let text = std::fs::read_to_string(&ckpt).unwrap();
    assert!(text.lines().count() > 100, "every record written");
    std::fs::remove_file(&ckpt).unwrap();
    let child = run_after("ulimit -n 4", &seconds_of_counting(&ckpt));
    // Once a second's records are synced.
    while std::fs::read_to_string(&ckpt).map_or(0, |t| t.lines().count()) < 2 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut child = child;
    let err = child.stderr.take().unwrap();
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    let records = std::fs::read_to_string(&ckpt).unwrap().lines().count() - 1;
    assert!(
        err.contains(&format!(
            "interrupted by SIGTERM: {records} of 290116 parts saved in {}",
            path(&ckpt)
        )),
        "{err}"
    );
}

/// Out of memory, a count does not abort ("memory allocation of N bytes failed", a backtrace
/// and exit 134): under the largest address space limit (`ulimit -v`) that it does
/// not fit, found by bisection, it ends with a line naming what could not be allocated, and
/// exit 1.
#[cfg(target_os = "linux")]
#[test]
fn out_of_memory_ends_with_a_line_naming_the_allocation() {
    let dir = scratch("memory");
    let ckpt = dir.join("v.ckpt");
    let run = |kib: u64| {
        let _ = std::fs::remove_file(&ckpt);
        let args = words_then(
            "count 15 --method search --kernel scalar -j 1 --checkpoint",
            &ckpt,
        );
        run_after(&format!("ulimit -v {kib}"), &args)
            .wait_with_output()
            .unwrap()
    };
    let (mut low, mut high) = (4096, 65536);
    while !run(high).status.success() {
        assert!(high < 1 << 20, "fails even with a GiB");
        (low, high) = (high, high * 2);
    }
    let mut failed = None;
    while high - low > 256 {
        let mid = (low + high) / 2;
        let out = run(mid);
        if out.status.success() {
            high = mid;
        } else {
            (low, failed) = (mid, Some(out));
        }
    }
    let out = failed.expect("a limit it does not fit under");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "ulimit -v {low}: {err}");
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.starts_with("error: out of memory: cannot allocate ")),
        "ulimit -v {low}: {err}"
    );
    for abort in ["panicked", "backtrace", "memory allocation of"] {
        assert!(!err.contains(abort), "ulimit -v {low}: {err}");
    }
}

/// Runs nqueens with `args` (`$TMPDIR` set to `tmp`, `$XDG_CACHE_HOME` to `tmp/cache`) and
/// the test hook that makes it wait at `stage`, does `change` there, lets it go on, and
/// returns its output.
fn changed_at(stage: &str, args: &[&str], tmp: &Path, change: impl FnOnce()) -> Output {
    use std::io::{Read, Write};
    let mut command = launched(&[]);
    command
        .args(args)
        .env("NQUEENS_TEST_WAIT_AT", stage)
        .env("TMPDIR", tmp)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .stdin(std::process::Stdio::piped());
    let (mut child, mut err) = started_until(command, &format!("waiting at {stage}"));
    change();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\n").unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    err.read_to_end(&mut rest).unwrap();
    let mut out = child.wait_with_output().unwrap();
    out.stderr = rest;
    out
}

/// An output that cannot be written does not throw the counted shard away.
#[test]
fn a_counted_shard_its_output_cannot_take_is_kept_for_the_same_command_to_write() {
    let dir = scratch("rescue");
    let (out, tmp) = (dir.join("out"), dir.join("tmp"));
    std::fs::create_dir(&out).unwrap();
    std::fs::create_dir(&tmp).unwrap();
    let files = [out.join("s.json"), out.join("t.json")];
    let args = |i: usize| {
        let shard = format!("{i}/2");
        [
            "count",
            "12",
            "--shard",
            &shard,
            "--output",
            path(&files[i]),
        ]
        .map(String::from)
    };
    let again = |i: usize| {
        let out = succeeded(
            Command::cargo_bin("nqueens")
                .unwrap()
                .args(args(i))
                .env("TMPDIR", &tmp)
                .env("XDG_CACHE_HOME", tmp.join("cache"))
                .output()
                .unwrap(),
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The output made a directory as the result is put in place: the counts are kept beside.
    let run: Vec<String> = args(0).to_vec();
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let failed = changed_at("output", &run, &tmp, || {
        std::fs::create_dir(&files[0]).unwrap()
    });
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    let rescue = format!("{}.rescue", path(&files[0]));
    let way_on = |kept: &str, file: &Path| {
        format!(
            "the shard's counts are kept in {kept}: run the same command again to write {} from them without counting again",
            path(file)
        )
    };
    assert!(err.contains(&way_on(&rescue, &files[0])), "{err}");
    std::fs::remove_dir(&files[0]).unwrap();
    let err = again(0);
    assert!(
        err.contains(&format!(
            "shard 0/2: the counts an earlier run kept in {rescue} written to {}; nothing counted again",
            path(&files[0])
        )),
        "{err}"
    );
    assert!(!Path::new(&rescue).exists());
    // Its folder gone: the counts are kept in this user's own folder, made 0700.
    let held = std::fs::read(&files[0]).unwrap();
    let run: Vec<String> = args(1).to_vec();
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let failed = changed_at("output", &run, &tmp, || {
        std::fs::remove_dir_all(&out).unwrap()
    });
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    let own = tmp.join("cache/nqueens/rescue");
    let kept: Vec<PathBuf> = std::fs::read_dir(&own)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(err.contains(&way_on(path(&kept[0]), &files[1])), "{err}");
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!((mode(&own), mode(&kept[0])), (0o700, 0o600));
    std::fs::create_dir(&out).unwrap();
    assert!(again(1).contains("nothing counted again"));
    assert_eq!(std::fs::read_dir(&own).unwrap().count(), 0);
    std::fs::write(&files[0], held).unwrap();
    let both = [path(&files[0]).to_string(), path(&files[1]).to_string()];
    assert_eq!(counts(&merge(&both))["solutions"], 14200);
}

/// A full disk at the output does not throw the counted shard away: with a checkpoint that
/// holds every part, the same command writes it without counting again.
#[test]
fn a_shard_whose_output_cannot_be_written_stays_in_its_whole_checkpoint() {
    let dir = scratch("unwritten");
    let (file, ckpt) = (dir.join("s.json"), dir.join("s.ckpt"));
    let args = [
        "count",
        "12",
        "--shard",
        "0/2",
        "--output",
        path(&file),
        "--checkpoint",
        path(&ckpt),
    ];
    // Every part checkpointed, then a crash before the output.
    crash_after(&args, "126");
    // Files of 1 KiB at most (sh's block or two), SIGXFSZ ignored: the result, larger,
    // fails to be written (EFBIG), as on a full disk; the checkpoint is not written to.
    let failed = run_after("trap '' XFSZ; ulimit -f 1", &args)
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "the shard's counts are all in checkpoint {}: run the same command again to write {} from them without counting again",
            path(&ckpt),
            path(&file)
        )),
        "{err}"
    );
    assert!(!file.exists());
    let again = succeeded(nqueens(&args));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("resuming: 126 of 126 parts done"), "{err}");
    assert!(err.contains("partial counts written to"), "{err}");
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_counting() {
    let dir = scratch("outdir");
    let out = nqueens(&[
        "count",
        "15",
        "--shard",
        "0/2",
        "--output",
        path(&dir.join("missing").join("s.json")),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--output") && err.contains("cannot write there"),
        "{err}"
    );
}

#[test]
fn shards_written_side_by_side_at_once_are_all_kept() {
    let dir = scratch("beside");
    // All four at once, their outputs side by side in one directory.
    let children: Vec<_> = (0..4)
        .map(|i| {
            Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
                .args(["count", "13", "-j", "1", "--shard", &format!("{i}/4")])
                .args(["--output", path(&dir.join(format!("x.{i}")))])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files: Vec<String> = (0..4)
        .map(|i| path(&dir.join(format!("x.{i}"))).to_string())
        .collect();
    let merged = merge(&files);
    assert_eq!(counts(&merged)["solutions"], 73712);
    let left: Vec<_> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// Rewrites the shard result at `file` through `edit`; with `consistent`, its sums and
/// residues are made to agree with its subproblems again; then it is sealed with a valid
/// digest: a forger who knows the file format.
fn forge(file: &str, consistent: bool, edit: impl FnOnce(&mut ShardResult)) {
    let mut r: ShardResult = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    edit(&mut r);
    if consistent {
        let each: Vec<Tally> = r.each().map(|(_, t)| t).collect();
        let sum: Tally = each.iter().copied().sum();
        r.solutions = sum.solutions;
        r.unique8 = sum.unique8;
        r.residues = each.into_iter().map(Residues::of).sum();
    }
    r.seal();
    std::fs::write(file, serde_json::to_string(&r).unwrap()).unwrap();
}

#[test]
fn merge_refuses_forged_overlapping_partial_and_foreign_shards_and_audits_catch_the_rest() {
    let dir = scratch("forged");
    let fresh = |name: &str| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        shards(&sub, "12", 3, &[])
    };
    let refused = |files: &[String], needle: &str| {
        let out = merge(files);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{needle}: {err}");
        assert!(err.contains(needle), "{err}");
    };
    // A forged total with the digest recomputed, too large for a 64-bit count.
    let files = fresh("total");
    forge(&files[1], false, |r| r.solutions = 1 << 100);
    refused(&files, "sums or residues disagree");
    // One subproblem's count and the totals changed, the digest recomputed: the residues
    // still hold the old counts.
    let files = fresh("one");
    forge(&files[1], false, |r| {
        r.subproblems[0].1 += 1;
        r.solutions += 1;
    });
    refused(&files, "sums or residues disagree");
    // A subproblem in two shards, and one in none.
    let files = fresh("overlap");
    let stolen = {
        let r: ShardResult =
            serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
        r.subproblems[0]
    };
    forge(&files[1], true, |r| {
        r.subproblems.push(stolen);
        r.subproblems.sort_unstable();
    });
    refused(&files, "the shards overlap");
    let files = fresh("partial");
    forge(&files[2], true, |r| {
        r.subproblems.pop();
    });
    refused(&files, "leave 1 of the plan's");
    // Made by another version of nqueens.
    let files = fresh("version");
    forge(&files[0], false, |r| r.config.nqueens = "0.0.9".into());
    refused(&files, "was made by nqueens 0.0.9");
    // A forgery consistent in every way merges (nothing in the files can tell); recounting
    // every subproblem finds it.
    let files = fresh("audit");
    let honest = counts(&merge(&files));
    let out = nqueens(
        &[
            &["merge", "--audit", "100", "--format", "json"][..],
            &files.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat(),
    );
    assert_eq!(counts(&out), honest, "an honest audit passes");
    assert!(String::from_utf8_lossy(&out.stderr).contains("all equal to the shards' records"));
    forge(&files[2], true, |r| r.subproblems[1].1 += 8);
    let forged = merge(&files);
    assert_eq!(
        counts(&forged)["solutions"],
        honest["solutions"].as_u64().unwrap() + 8
    );
    let audited = nqueens(
        &[
            &["merge", "--audit", "100"][..],
            &files.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&audited.stderr);
    assert_eq!(audited.status.code(), Some(1), "{err}");
    assert!(err.contains("the shard is wrong"), "{err}");
    assert!(audited.stdout.is_empty(), "no total from a failed audit");
}

#[test]
fn kill_9_at_twenty_moments_still_ends_with_the_exact_total() {
    let dir = scratch("kill9");
    let ckpt = dir.join("c.ckpt");
    let args = [
        "count",
        "15",
        "--kernel",
        "scalar",
        "-j",
        "1",
        "--split-depth",
        "3",
        "--format",
        "json",
        "--checkpoint",
        path(&ckpt),
    ];
    // A fixed sequence of moments, 20 to 400 ms into each run.
    let mut seed = 0x9e37_79b9_u64;
    let mut finished_early = 0;
    for _ in 0..20 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let wait = 20 + (seed >> 33) % 380;
        let mut child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(wait));
        if child.try_wait().unwrap().is_some() {
            finished_early += 1;
            continue;
        }
        child.kill().unwrap(); // SIGKILL: nothing is flushed, nothing can run
        let _ = child.wait();
        let text = std::fs::read_to_string(&ckpt).unwrap_or_default();
        let whole_lines = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .count();
        assert!(
            whole_lines >= 1,
            "the header is written before any counting"
        );
    }
    let out = counts(&nqueens(&args));
    assert_eq!(
        out["solutions"], 2279184,
        "{finished_early} runs finished before their kill"
    );
    assert_eq!(out["unique"], 285053);
}

#[test]
fn a_checkpoint_record_forged_with_its_checksum_recomputed_is_skipped_and_recounted() {
    let (_dir, ckpt, args, whole) = crashed_checkpoint("forged-record");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Line 3's count raised by 1000 and its CRC-32 recomputed over the record's fields, as
    // the format is documented; its residues still hold the true count.
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut record: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    let forged = record["solutions"].as_u64().unwrap() + 1000;
    record["solutions"] = forged.into();
    let r: Vec<u64> = record["residues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let fields = format!(
        "{} {} {} {} {} {} {}",
        record["subproblem"], forged, record["unique8"], r[0], r[1], r[2], r[3]
    );
    record["crc"] = crc32fast::hash((tie_of(&ckpt) + &fields).as_bytes()).into();
    lines[2] = serde_json::to_string(&record).unwrap();
    std::fs::write(&ckpt, lines.join("\n") + "\n").unwrap();
    let resumed = nqueens(&args);
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(err.contains("1 damaged record skipped (line 3: "), "{err}");
    assert_eq!(
        counts(&resumed),
        whole,
        "the forged count is not in the total"
    );
}

// Files and signals a cluster can trust.

/// Runs nqueens with `args`, the test hook set to pause it once signals are caught and
/// before planning: a refusal of the arguments must come first, without the pause.
fn refused_before_planning(args: &[&str]) -> String {
    let out = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args)
        .env("NQUEENS_TEST_PAUSE_AT", "planning")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("paused at planning"), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    err
}

/// The names in `dir` that end in `.tmp`.
fn temporaries_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("not-a-file");
    let fifo = dir.join("fifo");
    assert!(Std::new("mkfifo").arg(&fifo).status().unwrap().success());
    let sub = dir.join("outdir");
    std::fs::create_dir(&sub).unwrap();
    let to_fifo = dir.join("to-fifo");
    std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
    let slash = format!("{}/", path(&sub));
    let new_in_dir = format!("{}/", path(&dir.join("s.json")));
    let mut cases = vec![
        (path(&fifo).to_string(), "a FIFO"),
        (path(&sub).to_string(), "a directory"),
        (slash, "names a directory"),
        (new_in_dir, "names a directory"),
        (path(&to_fifo).to_string(), "a symbolic link to"),
        (path(&dangling).to_string(), "a symbolic link to"),
    ];
    // A device node (a copy of /dev/null), which a written output would replace with a file.
    let null = dir.join("null");
    let made = Std::new("mknod")
        .args(["-m", "666", path(&null), "c", "1", "3"])
        .output()
        .is_ok_and(|o| o.status.success());
    if made {
        cases.push((path(&null).to_string(), "a character device"));
    } else {
        let _ = writeln_stderr("NOT TESTED HERE: cannot make a device node (not root?)");
    }
    for (target, why) in &cases {
        let err = refused_before_planning(&["count", "12", "--shard", "0/2", "--output", target]);
        assert!(
            err.contains("--output") && err.contains(why),
            "{target}: {err}"
        );
        assert!(err.contains(target.as_str()), "names the path: {err}");
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::symlink_metadata(&to_fifo)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::metadata(&sub).unwrap().is_dir());
    if made {
        assert!(
            std::fs::symlink_metadata(&null)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    // A link to a regular file is followed: the file is replaced, the link stays.
    let real = dir.join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let files = [0, 1].map(|i| {
        let file = if i == 0 {
            link.clone()
        } else {
            dir.join("1.json")
        };
        shard_of_12(&format!("{i}/2"), &file)
    });
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(counts(&merge(&files))["solutions"], 14200);
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
}

/// Counts `shard` of n = 12 into `file`, which it returns.
fn shard_of_12(shard: &str, file: &Path) -> String {
    succeeded(nqueens(&[
        "count",
        "12",
        "--shard",
        shard,
        "--output",
        path(file),
    ]));
    path(file).to_string()
}

fn writeln_stderr(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr(), "{line}")
}

#[test]
fn another_users_file_in_a_sticky_directory_is_refused_before_counting() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("sticky");
    let nobody = ["--reuid", "65534", "--regid", "65534", "--clear-groups"];
    let can_switch = Std::new("setpriv")
        .args(nobody)
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    if !can_switch {
        let _ =
            writeln_stderr("NOT TESTED HERE: cannot run as another user (not root, or no setpriv)");
        return;
    }
    // As /tmp: a directory anyone may write, where only a file's owner may replace it.
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let sticky = dir.join("tmp");
    std::fs::create_dir(&sticky).unwrap();
    std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let theirs = sticky.join("theirs.json");
    std::fs::write(&theirs, "root's").unwrap();
    let out = Std::new("setpriv")
        .args(nobody)
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "12", "--shard", "0/2", "--output", path(&theirs)])
        .env("NQUEENS_TEST_PAUSE_AT", "planning")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(path(&theirs)) && err.contains("sticky"),
        "{err}"
    );
    assert!(!err.contains("paused"), "refused before planning: {err}");
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "root's");
    assert_eq!(temporaries_in(&sticky), Vec::<String>::new());
}

#[test]
fn the_same_file_for_checkpoint_and_output_is_refused() {
    let dir = scratch("same");
    let same = dir.join("same.json");
    let hard = dir.join("hard.json");
    let soft = dir.join("soft.json");
    let refused = |output: &Path| {
        let err = refused_before_planning(&[
            "count",
            "12",
            "--shard",
            "0/2",
            "--checkpoint",
            path(&same),
            "--output",
            path(output),
        ]);
        assert!(err.contains("the same file"), "{err}");
    };
    refused(&same);
    assert!(!same.exists(), "nothing was made");
    // By another name: a link, or `dir/./same.json`.
    std::fs::write(&same, "").unwrap();
    std::fs::hard_link(&same, &hard).unwrap();
    std::os::unix::fs::symlink(&same, &soft).unwrap();
    for other in [&hard, &soft, &dir.join(".").join("same.json")] {
        refused(other);
    }
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
}

#[test]
fn counts_that_wrap_a_u128_are_refused_never_summed() {
    let dir = scratch("wrap");
    let files = shards(&dir, "12", 2, &[]);
    // Self-consistent: the subproblem's count is 2^128 - k, and the sums wrap back to the
    // true total + 1 (the issue's file printed `solutions 1`); residues and digest agree.
    let mut r: ShardResult =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let true_sum = r.solutions;
    r.subproblems[0].1 = r.subproblems[0].1.wrapping_sub(true_sum).wrapping_sub(1);
    r.solutions = r.subproblems.iter().fold(0u128, |s, e| s.wrapping_add(e.1));
    assert_eq!(r.solutions, u128::MAX);
    r.residues = r.each().map(|(_, t)| Residues::of(t)).sum();
    r.seal();
    std::fs::write(&files[0], serde_json::to_string(&r).unwrap()).unwrap();
    let out = merge(&files);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&files[0]) && err.contains("more than an n = 12 board has"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no total");

    // A checkpoint record of 2^128 - 1 with its checksum and residues recomputed.
    let (_dir, ckpt, args, _) = crashed_checkpoint("wrap-ckpt");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let record: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    let (sub, unique8) = (
        record["subproblem"].as_u64().unwrap(),
        record["unique8"].as_u64().unwrap(),
    );
    let forged = Tally {
        solutions: u128::MAX,
        unique8: unique8.into(),
    };
    let [a, b, c, d] = Residues::of(forged).0;
    let fields = format!("{sub} {} {unique8} {a} {b} {c} {d}", u128::MAX);
    let crc = crc32fast::hash((tie_of(&ckpt) + &fields).as_bytes());
    lines[2] = format!(
        "{{\"subproblem\":{sub},\"solutions\":{},\"unique8\":{unique8},\"residues\":[{a},{b},{c},{d}],\"crc\":{crc}}}",
        u128::MAX
    );
    std::fs::write(&ckpt, lines.join("\n") + "\n").unwrap();
    let out = nqueens(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(path(&ckpt))
            && err.contains("line 3")
            && err.contains("more than an n = 13 board has"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no total");
}

/// In full mode the fundamental solutions are a Burnside sum's eighth: a self-consistent
/// forged file whose eight-fold counts add up to no multiple of 8 is refused, not rounded.
#[test]
fn fundamental_counts_that_are_no_whole_number_are_refused() {
    let dir = scratch("eighths");
    let files = shards(&dir, "12", 2, &[]);
    forge(&files[1], true, |r| r.subproblems[0].2 += 1);
    let out = merge(&files);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a whole number of solutions"), "{err}");
    assert!(out.stdout.is_empty(), "no total");
}

/// Starts `args` with the test hook that pauses it at `stage`, and waits for the pause. Its
/// stdin is a pipe: a hold (`merged`) goes on at a line written there.
fn paused_at(
    stage: &str,
    args: &[&str],
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    paused_in(&[], stage, args)
}

/// nqueens, started by the command `launcher` (none where empty).
fn launched(launcher: &[&str]) -> Std {
    let nqueens = assert_cmd::cargo::cargo_bin("nqueens");
    match launcher.split_first() {
        Some((first, rest)) => {
            let mut c = Std::new(first);
            c.args(rest).arg(&nqueens);
            c
        }
        None => Std::new(&nqueens),
    }
}

/// [`paused_at`], nqueens started by the command `launcher` (none where empty).
fn paused_in(
    launcher: &[&str],
    stage: &str,
    args: &[&str],
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let mut command = launched(launcher);
    command
        .args(args)
        .env("NQUEENS_TEST_PAUSE_AT", stage)
        .stdin(std::process::Stdio::piped());
    started_until(command, &format!("paused at {stage}"))
}

/// Starts `command`, its stdout and stderr piped, and reads its stderr up to a line that
/// holds `said`.
fn started_until(
    mut command: Std,
    said: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains(said) {
        line.clear();
        if err.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!("the run ended before saying {said:?}");
        }
    }
    (child, err)
}

/// Sends SIGTERM to `child` and returns its exit code and the rest of its stderr.
fn terminate(mut child: std::process::Child, mut err: impl std::io::Read) -> (Option<i32>, String) {
    assert!(
        Std::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    (child.wait().unwrap().code(), rest)
}

#[test]
fn sigterm_while_planning_or_writing_the_output_leaves_no_temporary_file() {
    let dir = scratch("sigterm");
    let out = dir.join("s.json");
    let ckpt = dir.join("s.ckpt");
    let args = checkpointed_shard(1, &out, &ckpt);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // While planning: the output's temporary file is made, the checkpoint not yet opened.
    let (child, err) = paused_at("planning", &args);
    assert_eq!(temporaries_in(&dir).len(), 1, "the output is checked first");
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    assert!(
        err.contains("interrupted by SIGTERM before counting began"),
        "{err}"
    );
    assert!(err.contains("run the same command again"), "{err}");
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    assert!(!out.exists());
    // While the output is written: every subproblem counted and checkpointed, the result
    // synced under its temporary name, which the signal puts in place, whole.
    let (child, err) = paused_at("output", &args);
    assert_eq!(temporaries_in(&dir).len(), 1);
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    assert!(
        err.contains(&format!(
            "interrupted by SIGTERM once the count was done and its result synced: written whole to {}",
            path(&out)
        )),
        "{err}"
    );
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    std::fs::remove_file(&out).unwrap();
    // The same command again resumes from the checkpoint and writes the shard.
    let again = nqueens(&args);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let other = dir.join("0.json");
    let first = nqueens(&[
        "count",
        "13",
        "--split-depth",
        "3",
        "--shard",
        "0/2",
        "--output",
        path(&other),
    ]);
    assert!(first.status.success());
    assert_eq!(
        counts(&merge(&[path(&other).into(), path(&out).into()]))["solutions"],
        73712
    );
    // Without a checkpoint, a signal says that nothing was saved.
    let (child, err) = paused_at("planning", &["count", "13"]);
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    assert!(err.contains("nothing was saved"), "{err}");
}

#[test]
fn files_too_large_to_be_shards_are_refused_unread() {
    let dir = scratch("large");
    // Sparse: larger than the largest plan's shard could be, no disk used.
    let huge = dir.join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let started = std::time::Instant::now();
    let out = merge(&[path(&huge).to_string()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(path(&huge)) && err.contains("larger than any shard result"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "not read: {:?}",
        started.elapsed()
    );
    // An endless device is refused unread: not a regular file.
    let (code, err) = within(5, &["merge", "/dev/zero"]);
    assert_eq!(code, Some(2), "a path of the wrong kind: {err}");
    assert!(
        err.contains("/dev/zero: a character device, not a regular file"),
        "{err}"
    );
}

#[test]
fn every_bad_file_is_named_with_what_is_wrong_with_it() {
    let dir = scratch("named");
    let files = shards(&dir, "12", 1, &[]);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let at = text.find("\"solutions\":").unwrap() + "\"solutions\":".len();
    let digits = text[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let (head, tail) = (&text[..at], &text[at + digits..]);
    let cases = [
        ("truncated", text[..text.len() / 2].to_string(), "cut short"),
        ("string", format!("{head}\"14200\"{tail}"), "line 1 column"),
        (
            "2^127",
            format!("{head}{}{tail}", 1u128 << 127),
            "BLAKE3 digest",
        ),
        (
            "huge",
            format!("{head}1361129467683753853853498429727072845824{tail}"),
            "out of range",
        ),
    ];
    for (name, bad, why) in cases {
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, bad).unwrap();
        let out = merge(&[path(&file).to_string()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(path(&file)) && err.contains(why),
            "{name}: {err}"
        );
        assert!(
            !err.contains("not an nqueens shard result of this version"),
            "{name}: {err}"
        );
    }
    // A checkpoint that can take nothing: named, refused before planning.
    let err = refused_before_planning(&["count", "12", "--checkpoint", "/dev/full"]);
    assert!(
        err.contains("--checkpoint /dev/full") && err.contains("not a regular file"),
        "{err}"
    );
}

#[test]
fn a_joined_shard_is_audited_with_the_best_loop_of_this_cpu() {
    use nqueens_engine::run::shard::audit_counting;
    use nqueens_engine::{Kernel, Method};
    // Made with AVX-512, audited on a CPU whose best loop is AVX2 or the scalar one.
    for best in [Kernel::Avx2, Kernel::Scalar] {
        assert_eq!(
            audit_counting(Method::Join, Kernel::Avx512, best),
            (Method::Search, best)
        );
        assert_eq!(
            audit_counting(Method::Join, Kernel::Avx2, best),
            (Method::Search, best)
        );
    }
    // A searched shard is recounted with the other loop, which every CPU has after SIMD.
    assert_eq!(
        audit_counting(Method::Search, Kernel::Avx512, Kernel::Avx2),
        (Method::Search, Kernel::Scalar)
    );
    assert_eq!(
        audit_counting(Method::Search, Kernel::Scalar, Kernel::Avx2),
        (Method::Search, Kernel::Avx2)
    );
    // End to end, with the shards marked as made by AVX-512 (which this CPU may lack).
    let dir = scratch("audit-kernel");
    let files = shards(&dir, "12", 2, &["--method", "join"]);
    for file in &files {
        forge(file, false, |r| r.kernel = Kernel::Avx512);
    }
    let out = nqueens(
        &[
            &["merge", "--audit", "100", "--format", "json"][..],
            &files.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat(),
    );
    assert_eq!(counts(&out)["solutions"], 14200);
}

/// The audit recounts each part with another loop than the one its own file says counted
/// it: of two files, the first counted by AVX-512 and the second by the scalar loop, the
/// second's parts are recounted by this CPU's best loop, not by the scalar loop that the
/// first file's picks.
#[test]
fn the_audit_recounts_each_part_with_another_loop_than_its_own_files() {
    use nqueens_engine::run::shard::audit_counting;
    use nqueens_engine::{Kernel, Method};
    let dir = scratch("audit-own-loop");
    let files = shards(&dir, "12", 2, &["--method", "search"]);
    let marked = [Kernel::Avx512, Kernel::Scalar];
    let mut parts = Vec::new();
    for (file, kernel) in files.iter().zip(marked) {
        forge(file, false, |r| {
            r.kernel = kernel;
            parts.push(r.subproblems.len());
        });
    }
    let out = nqueens(
        &[
            &["merge", "--audit", "100", "-j", "1"][..],
            &[&files[0], &files[1]],
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let best = Kernel::Auto.resolve().unwrap();
    let loops = marked.map(|k| audit_counting(Method::Search, k, best).1);
    let expected = if loops[0] == loops[1] {
        format!(
            "audit: {} subproblems recounted by search with the {} loop",
            parts[0] + parts[1],
            loops[0].name()
        )
    } else {
        // In order of the loops' names: the best SIMD loop's, then the scalar one's.
        format!(
            "audit: {} subproblems recounted ({} by search with the {} loop, {} by search with the scalar loop)",
            parts[0] + parts[1],
            parts[1],
            loops[1].name(),
            parts[0]
        )
    };
    assert!(err.contains(&expected), "{expected:?} not in: {err}");
}

#[test]
fn a_checkpoint_whose_header_was_cut_short_starts_again() {
    let (_dir, ckpt, args, whole) = crashed_checkpoint("torn-header");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let header = text.lines().next().unwrap();
    // A crash while the header was written leaves the start of it.
    for cut in [1, header.len() / 2, header.len()] {
        std::fs::write(&ckpt, &header[..cut]).unwrap();
        assert_eq!(counts(&nqueens(&args)), whole, "cut at {cut}");
    }
    // Not the start of this run's header: someone else's file, refused.
    std::fs::write(&ckpt, "{\"format\":\"x\"").unwrap();
    let out = nqueens(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an nqueens checkpoint"));
}

// A cluster run at full scale.

/// The launcher that runs a command as PID 1 of a new PID namespace (as a container or a
/// requeued job may), where this machine allows it (root).
fn as_pid_1() -> Option<[&'static str; 3]> {
    let launcher = ["unshare", "-fp", "--kill-child"];
    let ok = Std::new(launcher[0])
        .args(&launcher[1..])
        .args(["sh", "-c", "test $$ = 1"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "NOT TESTED HERE: cannot make a PID namespace (not root?): runs with the same PID"
        );
    }
    ok.then_some(launcher)
}

#[test]
fn a_killed_runs_temporary_file_never_blocks_its_requeue_even_with_the_same_pid() {
    let dir = scratch("requeue");
    let out = dir.join("s.json");
    let args = ["count", "13", "--shard", "0/1", "--output", path(&out)];
    let launcher = as_pid_1();
    let launcher: &[&str] = launcher.as_ref().map_or(&[], |l| &l[..]);
    // The first run holds its temporary file, and is killed (a node lost, `kill -9`).
    let (mut child, _err) = paused_in(launcher, "planning", &args);
    let stale = temporaries_in(&dir);
    assert_eq!(stale.len(), 1);
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(temporaries_in(&dir), stale, "kill -9 leaves it");
    // Its requeue, with the same PID: the stale file is taken over and becomes the result.
    succeeded(launched(launcher).args(args).output().unwrap());
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    assert_eq!(counts(&merge(&[path(&out).into()]))["solutions"], 73712);
}

#[test]
fn two_runs_of_one_output_at_once_each_write_their_own_temporary_file() {
    let dir = scratch("same-output");
    let out = dir.join("s.json");
    let args = ["count", "12", "--shard", "0/1", "--output", path(&out)];
    let (first, err) = paused_at("planning", &args);
    let held = temporaries_in(&dir);
    assert_eq!(held.len(), 1);
    succeeded(nqueens(&args));
    assert_eq!(
        temporaries_in(&dir),
        held,
        "the live run's file is left alone"
    );
    let (code, _) = terminate(first, err);
    assert_eq!(code, Some(143));
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    assert_eq!(counts(&merge(&[path(&out).into()]))["solutions"], 14200);
}

/// A writer's lock goes with its temporary file through the rename, so for a
/// moment the output it just put in place is locked; the other run of the same output,
/// finishing then, must replace it as it would a moment later, not take it for a live
/// checkpoint.
#[test]
fn runs_of_one_output_finishing_together_all_succeed() {
    let dir = scratch("pairs");
    let out = dir.join("s.json");
    let args = ["count", "11", "--shard", "0/1", "--output", path(&out)];
    let run = || {
        Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    for pair in 0..40 {
        let (a, b) = (run(), run());
        for child in [a, b] {
            let done = child.wait_with_output().unwrap();
            assert!(
                done.status.success(),
                "pair {pair}: {}",
                String::from_utf8_lossy(&done.stderr)
            );
        }
    }
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    assert_eq!(counts(&merge(&[path(&out).into()]))["solutions"], 2680);
}

#[test]
fn output_names_up_to_255_bytes_are_written() {
    let dir = scratch("long-name");
    let mut files = Vec::new();
    for (i, len) in [(0, 241), (1, 250), (2, 255)] {
        // Names that differ only at their end, each with a temporary file of its own.
        let name = format!("{}-{i}-of-3.json", "s".repeat(len - 12));
        assert_eq!(name.len(), len);
        files.push(shard_of_12(&format!("{i}/3"), &dir.join(name)));
    }
    assert_eq!(counts(&merge(&files))["solutions"], 14200);
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
}

#[test]
fn a_temporary_file_that_cannot_be_made_is_named() {
    let dir = scratch("read-only");
    let disk = dir.join("ro");
    if !mounted(&disk, "ro,size=16k", "a read-only directory") {
        return;
    }
    let out = nqueens(&[
        "count",
        "8",
        "--shard",
        "0/1",
        "--output",
        path(&disk.join("s.json")),
    ]);
    let _ = Std::new("umount").arg(path(&disk)).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot make its temporary file") && err.contains("/.s.json."),
        "{err}"
    );
}

#[test]
fn an_output_locked_by_a_live_run_is_refused_before_counting() {
    let dir = scratch("locked-output");
    let ckpt = dir.join("a.ckpt");
    let (mut first, _) = long_count_on(&ckpt);
    let before = std::fs::read(&ckpt).unwrap();
    let err = refused_before_planning(&["count", "12", "--shard", "0/4", "--output", path(&ckpt)]);
    assert!(
        err.contains("--output") && err.contains("locked by a live nqueens run"),
        "{err}"
    );
    let after = std::fs::read(&ckpt).unwrap();
    assert!(
        after.starts_with(&before),
        "the checkpoint is the live run's still"
    );
    first.kill().unwrap();
    let _ = first.wait();
    // Once the run is gone, the file may be replaced.
    succeeded(nqueens(&[
        "count",
        "12",
        "--shard",
        "0/4",
        "--output",
        path(&ckpt),
    ]));
}

#[test]
fn an_output_through_a_file_descriptor_never_replaces_the_file_behind_it() {
    use std::process::Stdio;
    let dir = scratch("fd-output");
    let log = dir.join("job.log");
    for (target, fd) in [
        ("/dev/stdout", 1),
        ("/dev/stderr", 2),
        ("/proc/self/fd/1", 1),
        ("/dev/fd/2", 2),
    ] {
        std::fs::write(&log, "earlier lines\n").unwrap();
        let append = || Stdio::from(std::fs::OpenOptions::new().append(true).open(&log).unwrap());
        let mut run = Std::new(assert_cmd::cargo::cargo_bin("nqueens"));
        run.args(["count", "10", "--shard", "0/1", "--output", target])
            .env("NQUEENS_TEST_PAUSE_AT", "planning");
        if fd == 1 {
            run.stdout(append());
        } else {
            run.stderr(append());
        }
        let out = run.output().unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(out.status.code(), Some(2), "{target}: {text}");
        assert!(text.starts_with("earlier lines\n"), "{target}: {text}");
        let err = if fd == 2 {
            text
        } else {
            String::from_utf8_lossy(&out.stderr).to_string()
        };
        assert!(err.contains("through a file descriptor"), "{target}: {err}");
        assert!(!err.contains("paused at planning"), "{target}: {err}");
    }
    // The same file named by its path while open as stdout: the same refusal.
    std::fs::write(&log, "earlier lines\n").unwrap();
    let out = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "10", "--shard", "0/1", "--output", path(&log)])
        .stdout(Stdio::from(
            std::fs::OpenOptions::new().append(true).open(&log).unwrap(),
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("open in this process as file descriptor 1"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "earlier lines\n");
}

/// Runs nqueens with `args` for at most `seconds`: its exit code (`None` when it had to be
/// killed) and stderr.
fn within(seconds: u64, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = (0..seconds * 20).find_map(|_| {
        std::thread::sleep(Duration::from_millis(50));
        child.try_wait().unwrap()
    });
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (status.and_then(|s| s.code()), err)
}

#[test]
fn nothing_a_file_or_an_argument_asks_for_keeps_a_run_busy_for_long() {
    let dir = scratch("hangs");
    // A FIFO that no process writes: refused, not waited on.
    let fifo = dir.join("fifo");
    assert!(Std::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, err) = within(20, &["merge", path(&fifo)]);
    assert_eq!(code, Some(2), "a path of the wrong kind: {err}");
    assert!(
        err.contains(path(&fifo)) && err.contains("a FIFO (or pipe), not a regular file"),
        "{err}"
    );
    // A forged shard of 1 KB that asks merge to cut n = 32 into near-solutions.
    let files = shards(&dir, "8", 1, &["--method", "search"]);
    forge(&files[0], true, |r| {
        r.config.n = 32;
        r.config.split_depth = 32;
    });
    let (code, err) = within(20, &["merge", &files[0]]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&files[0]) && err.contains("split depth 32 is too deep for n = 32"),
        "{err}"
    );
    // Split depths no search can cut at, whatever method counts the board, and a sample
    // whose parts take years: refused at once (a second each in a release build).
    for (args, why) in [
        (
            &["count", "32", "--split-depth", "30"][..],
            "too deep for n = 32",
        ),
        (
            &["count", "26", "--split-depth", "26"],
            "too deep for n = 26",
        ),
        (
            &["count", "24", "--split-depth", "24"],
            "too deep for n = 24",
        ),
        (
            &["count", "32", "--split-depth", "6"],
            "more than 4194304 subproblems",
        ),
        (
            &["estimate", "32", "--seconds", "1", "--samples", "1"],
            "too long to sample",
        ),
    ] {
        let (code, err) = within(20, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(why),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_signal_in_the_first_moments_is_handled_not_fatal() {
    // Paused as the first thing main does: the signal comes before any handler exists.
    let (child, err) = paused_at("start", &["count", "16", "--progress", "never"]);
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
}

/// Two shards of n = 12 counted by `method` into `dir`, the first at split depth 3, the
/// second at the default depth; their merge.
fn shards_at_two_depths(dir: &Path, method: &str) -> Output {
    let files: Vec<String> = [("0/2", Some("3")), ("1/2", None)]
        .iter()
        .map(|&(shard, depth)| {
            let file = dir.join(format!("{method}-{}.json", &shard[..1]));
            let mut args = vec!["count", "12", "--method", method, "--shard", shard];
            args.extend(["--output", path(&file)]);
            if let Some(depth) = depth {
                args.extend(["--split-depth", depth]);
            }
            succeeded(nqueens(&args));
            path(&file).to_string()
        })
        .collect();
    merge(&files)
}

#[test]
fn join_files_made_at_different_split_depths_merge_and_resume() {
    let dir = scratch("join-depths");
    // The join does not use the depth: shards made with different ones are one plan.
    assert_eq!(
        counts(&shards_at_two_depths(&dir, "join"))["solutions"],
        14200
    );
    // A checkpoint made at one depth resumes at another.
    let ckpt = dir.join("c.ckpt");
    let again = [
        "count",
        "13",
        "--method",
        "join",
        "--checkpoint",
        path(&ckpt),
    ];
    crash_after(&[&again[..], &["--split-depth", "3"]].concat(), "20");
    let again = [&again[..], &["--format", "json"]].concat();
    assert_eq!(counts(&nqueens(&again))["solutions"], 73712);
    // The search's depth is its plan: shards of two depths are still refused.
    assert_eq!(shards_at_two_depths(&dir, "search").status.code(), Some(1));
}

#[test]
fn a_checkpoint_that_cannot_take_its_header_is_not_left_behind() {
    let dir = scratch("no-room");
    let disk = dir.join("disk");
    if !mounted(
        &disk,
        "size=16k",
        "a disk too full for a checkpoint's header",
    ) {
        return;
    }
    // Fill the disk to its last byte.
    let filler = std::fs::File::create(disk.join("filler")).unwrap();
    let mut filler = std::io::BufWriter::new(filler);
    while std::io::Write::write_all(&mut filler, &[0u8; 512]).is_ok()
        && std::io::Write::flush(&mut filler).is_ok()
    {}
    drop(filler);
    let ckpt = disk.join("c.ckpt");
    let out = nqueens(&["count", "12", "--checkpoint", path(&ckpt)]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let existed = ckpt.exists();
    let _ = Std::new("umount").arg(path(&disk)).status();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(path(&ckpt)), "{err}");
    assert!(!existed, "no empty checkpoint left");
}

/// Rewrites record `line` (0-based) of the checkpoint at `ckpt` with `edit` applied to its
/// counts, its residues and CRC-32 recomputed: a forger who knows the format.
/// What a record's checksum of the checkpoint `ckpt` covers before its fields, as the format
/// is documented: `"{fingerprint} {shard} "`, from the file's header.
fn tie_of(ckpt: &Path) -> String {
    let text = std::fs::read_to_string(ckpt).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let shard = match &header["shard"] {
        serde_json::Value::Null => "-".to_string(),
        s => format!("{}/{}", s["index"], s["count"]),
    };
    let fingerprint = header["config"]["fingerprint"].as_u64().unwrap();
    format!("{fingerprint:08x} {shard} ")
}

/// Changes the counts of the record on line `line + 1` of `ckpt` by `edit`, and recomputes
/// its residues and checksum (tied to the header's fingerprint and shard) as a forger would.
fn forge_record(ckpt: &Path, line: usize, edit: impl FnOnce(&mut Tally)) {
    let text = std::fs::read_to_string(ckpt).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let tie = tie_of(ckpt);
    let record: serde_json::Value = serde_json::from_str(&lines[line]).unwrap();
    let number = |k: &str| record[k].as_u64().unwrap();
    let mut t = Tally {
        solutions: number("solutions").into(),
        unique8: number("unique8").into(),
    };
    edit(&mut t);
    let r = Residues::of(t).0.map(u128::from);
    let v = [
        number("subproblem").into(),
        t.solutions,
        t.unique8,
        r[0],
        r[1],
        r[2],
        r[3],
    ];
    let fields: Vec<String> = v.iter().map(u128::to_string).collect();
    let crc = crc32fast::hash((tie + &fields.join(" ")).as_bytes());
    lines[line] = format!(
        "{{\"subproblem\":{},\"solutions\":{},\"unique8\":{},\"residues\":[{}],\"crc\":{crc}}}",
        v[0],
        v[1],
        v[2],
        fields[3..].join(",")
    );
    std::fs::write(ckpt, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_self_consistent_forged_checkpoint_is_caught_by_the_resume_audit() {
    let (dir, ckpt, args, whole) = crashed_checkpoint("audited");
    let saved = std::fs::read(&ckpt).unwrap();
    // Resumed from a record forged by `edit` with `--audit audit`: refused, saying `why`.
    let refused = |edit: fn(&mut Tally), audit: &str, why: &str| {
        std::fs::write(&ckpt, &saved).unwrap();
        forge_record(&ckpt, 2, edit);
        let mut run: Vec<&str> = args.iter().map(String::as_str).collect();
        run.extend(["--audit", audit]);
        let out = nqueens(&run);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(path(&ckpt)) && err.contains(why), "{err}");
        assert!(out.stdout.is_empty(), "no total");
    };
    // Every record recounted: the forged one is found.
    refused(|t| t.solutions += 8, "1000000", "recounts to");
    // Fundamental counts that add up to no whole number: refused as merge refuses them.
    refused(|t| t.unique8 += 1, "0", "not a whole number");
    // The genuine file resumes, audited by default, to the exact total.
    std::fs::write(&ckpt, &saved).unwrap();
    let plain: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = nqueens(&plain);
    assert!(String::from_utf8_lossy(&out.stderr).contains("audit: 4 of the checkpoint's"));
    assert_eq!(counts(&out), whole);
    drop(dir);
}

/// `merge` at the scale of a plan, in small: 300 shards given as a folder, as a `--list`
/// file and on standard input merge to the whole count; with five missing, a plain merge
/// names them as ranges and `--partial` sums the rest, says how much of the plan it covers
/// (table, JSON, CSV) and audits what is there. (`scripts/merge-scale.sh` merges 176,871.)
#[test]
fn merge_takes_folders_lists_and_partial_sets() {
    let dir = scratch("scale");
    let folder = dir.join("shards");
    std::fs::create_dir_all(&folder).unwrap();
    let flags = [
        "--method",
        "search",
        "--symmetry",
        "none",
        "--split-depth",
        "4",
        "-j",
        "1",
    ];
    let k = 300;
    // Shards made four processes at a time.
    std::thread::scope(|s| {
        for t in 0..4 {
            let folder = &folder;
            s.spawn(move || {
                for i in (t..k).step_by(4) {
                    let (shard, file) = (format!("{i}/{k}"), folder.join(format!("{i}.json")));
                    let mut args = vec!["count", "12", "--shard", &shard, "--output", path(&file)];
                    args.extend(flags);
                    assert!(nqueens(&args).status.success(), "{shard}");
                }
            });
        }
    });
    let mut whole_args = vec!["count", "12", "--format", "json"];
    whole_args.extend(flags);
    let whole = counts(&nqueens(&whole_args));
    let same = |out: &Output| {
        let mut merged = counts(out);
        merged["threads"] = whole["threads"].clone();
        merged
    };
    let by_folder = nqueens(&["merge", "--format", "json", path(&folder)]);
    assert_eq!(same(&by_folder), whole);
    let list = dir.join("list.txt");
    let names: Vec<String> = (0..k)
        .map(|i| path(&folder.join(format!("{i}.json"))).to_string())
        .collect();
    std::fs::write(&list, names.join("\n") + "\n").unwrap();
    let by_list = nqueens(&["merge", "--format", "json", "--list", path(&list)]);
    assert_eq!(same(&by_list), whole);
    let by_stdin = Command::cargo_bin("nqueens")
        .unwrap()
        .args(["merge", "--format", "json", "--list", "-"])
        .write_stdin(names.join("\n"))
        .output()
        .unwrap();
    assert_eq!(same(&by_stdin), whole);
    // Five shards missing: refused, named as ranges; summed with --partial.
    for i in [5, 6, 7, 100, 299] {
        std::fs::remove_file(folder.join(format!("{i}.json"))).unwrap();
    }
    let out = nqueens(&["merge", path(&folder)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing shard(s) 5-7 100 299 of 300"), "{err}");
    let partial = nqueens(&["merge", "--partial", "--format", "json", path(&folder)]);
    assert!(
        partial.status.success(),
        "{}",
        String::from_utf8_lossy(&partial.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&partial.stdout).unwrap();
    assert_eq!(v["complete"], false);
    assert_eq!(v["missing"], "5-7 100 299");
    assert_eq!(
        (v["shards"].as_u64(), v["shards_merged"].as_u64()),
        (Some(300), Some(295))
    );
    let solutions = v["solutions"].as_u64().unwrap();
    assert!(solutions > 0 && solutions < whole["solutions"].as_u64().unwrap());
    let covered = v["cost_merged"].as_f64().unwrap();
    assert!(covered > 0.9 && covered < 1.0, "{covered}");
    assert!(v["parts_merged"].as_u64() < v["parts"].as_u64());
    let csv = nqueens(&["merge", "--partial", "--format", "csv", path(&folder)]);
    let text = String::from_utf8_lossy(&csv.stdout);
    assert!(
        text.lines().nth(1).unwrap().ends_with(",5-7 100 299"),
        "{text}"
    );
    let table = nqueens(&["merge", "--partial", path(&folder)]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("5-7 100 299"));
    let audited = nqueens(&[
        "merge",
        "--partial",
        "--audit",
        "20",
        "-j",
        "1",
        path(&folder),
    ]);
    let err = String::from_utf8_lossy(&audited.stderr);
    assert!(audited.status.success(), "{err}");
    assert!(err.contains("all equal to the shards' records"), "{err}");
    assert!(err.contains("missing shards 5-7 100 299"), "{err}");
}

/// `--list` names paths as bytes: a shard result named `a\xff.json` (no UTF-8) merges from a
/// list as from its folder. The list is read within bounds: `/dev/zero` (no file), a line
/// longer than a path and a NUL byte are refused at once (exit 2), naming the limit or the line.
#[test]
fn a_list_is_read_as_bytes_and_within_bounds() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("list-bytes");
    let files = shards(&dir, "12", 2, &[]);
    let odd = dir.join(std::ffi::OsStr::from_bytes(b"a\xff.json"));
    std::fs::rename(&files[1], &odd).unwrap();
    let by_folder = counts(&nqueens(&["merge", "--format", "json", path(&dir)]));
    let list = dir.join("list.txt");
    let mut bytes = files[0].as_bytes().to_vec();
    bytes.push(b'\n');
    bytes.extend_from_slice(odd.as_os_str().as_bytes());
    bytes.extend_from_slice(b"\r\n\n");
    std::fs::write(&list, &bytes).unwrap();
    let by_list = nqueens(&["merge", "--format", "json", "--list", path(&list)]);
    assert_eq!(counts(&by_list), by_folder);
    let usage = |(code, err): (Option<i32>, String), needle: &str| {
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(needle), "{needle:?} not in: {err}");
    };
    usage(
        within(5, &["merge", "--list", "/dev/zero"]),
        "--list /dev/zero: a character device, not a regular file",
    );
    std::fs::write(&list, format!("{}\n{}\n", files[0], "x".repeat(5000))).unwrap();
    usage(
        within(5, &["merge", "--list", path(&list)]),
        "line 2 is longer than 4096 bytes",
    );
    std::fs::write(&list, format!("{}\nb\0.json\n", files[0])).unwrap();
    usage(
        within(5, &["merge", "--list", path(&list)]),
        "line 2 holds a NUL byte, which no path holds",
    );
}

/// A shard result of the format before digests (version 2: a CRC-32 `checksum`, no host or
/// run) is refused naming its version, as is a newer one; each result names its host and a
/// run of its own; fields out of range are refused, their digest recomputed or not.
#[test]
fn other_versions_and_fields_out_of_range_are_refused() {
    let dir = scratch("fields");
    let files = shards(&dir, "12", 2, &[]);
    let read = |file: &str| -> ShardResult {
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
    };
    let (a, b) = (read(&files[0]), read(&files[1]));
    assert_eq!(a.host, nqueens_engine::run::host());
    assert!(a.run != b.run && a.run.len() == 32, "{} {}", a.run, b.run);
    let refused =
        |file: &str, needle: &str| refused_with(&merge(&[file.to_string()]), &[file, needle]);
    // Version 2, as the nqueens before this one wrote it.
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let fields = old.as_object_mut().unwrap();
    for gone in ["host", "run", "digest"] {
        fields.remove(gone);
    }
    fields.insert("version".into(), 2.into());
    fields.insert("checksum".into(), "6c0b5b4e".into());
    let v2 = dir.join("v2.json");
    std::fs::write(&v2, old.to_string()).unwrap();
    refused(
        path(&v2),
        "a shard result of format version 2; this nqueens reads version 3: count the shard again with this nqueens",
    );
    // A file's name, what is changed, and what the refusal says.
    type Case = (&'static str, fn(&mut ShardResult), &'static str);
    let cases: [Case; 7] = [
        (
            "v4",
            |r| r.version = 4,
            "format version 4; this nqueens reads version 3: merge it with the nqueens that made it",
        ),
        (
            "threads",
            |r| r.threads = 1143676510000000000,
            "(shard 0/2): threads 1143676510000000000 is out of range (1 to 1024); it was changed",
        ),
        ("no-threads", |r| r.threads = 0, "threads 0 is out of range"),
        (
            "elapsed",
            |r| r.elapsed_s = -1.5,
            "elapsed_s -1.5 is no duration (finite, 0 or more)",
        ),
        (
            "kernel",
            |r| r.kernel = nqueens_engine::Kernel::Auto,
            "kernel auto names no loop that ran",
        ),
        (
            "host",
            |r| r.host = "a host/../x".into(),
            "host \"a host/../x\" is no host name",
        ),
        (
            "run",
            |r| r.run = "not-a-run".into(),
            "run \"not-a-run\" is no run id (32 hex digits)",
        ),
    ];
    for (name, edit, needle) in cases {
        let file = dir.join(format!("{name}.json"));
        std::fs::copy(&files[0], &file).unwrap();
        forge(path(&file), false, edit);
        refused(path(&file), needle);
    }
}

/// `merge --audit` recounts the counts it summed, from its one reading of each file: a forged
/// file swapped for the genuine one after the merge read it is still caught. (The audit used
/// to read its sample's files again and take a file with the CRC-32 of the one merged as
/// unchanged; a forgery can be given any CRC-32.)
#[test]
fn a_file_swapped_after_the_merge_read_it_is_audited_as_it_was_read() {
    use std::io::{Read, Write};
    let dir = scratch("swapped");
    let files = shards(&dir, "12", 3, &["--method", "search"]);
    let genuine = dir.join("genuine.json");
    std::fs::copy(&files[2], &genuine).unwrap();
    forge(&files[2], true, |r| r.subproblems[1].1 += 8);
    let args: Vec<&str> = ["merge", "--audit", "100"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    let (mut child, mut err) = paused_at("merged", &args);
    std::fs::rename(&genuine, &files[2]).unwrap();
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let out = Output {
        stderr: rest.into_bytes(),
        ..child.wait_with_output().unwrap()
    };
    refused_with(&out, &[&files[2], "recounts to", "the shard is wrong"]);
}

/// The audit's sample: every seed its own (seeds 2k and 2k + 1 picked the same one when the
/// pick was xorshift's, whose state is made odd), the same for a seed whatever order the
/// files come in, and about the share asked for.
#[test]
fn every_seed_picks_its_own_audit_sample_in_any_file_order() {
    use nqueens_engine::run::shard::{Pick, merge as merge_files};
    let dir = scratch("seeds");
    let files: Vec<PathBuf> = shards(&dir, "12", 3, &["--method", "search"])
        .into_iter()
        .map(PathBuf::from)
        .collect();
    let sample = |files: &[PathBuf], seed: u64| -> Vec<usize> {
        let pick = Pick {
            percent: 10.0,
            seed,
        };
        let merged = merge_files(files.to_vec(), false, Some(pick)).unwrap();
        let parts = merged.sum.plan.len();
        let sample: Vec<usize> = merged.sum.sample.iter().map(|s| s.part).collect();
        assert_eq!(sample.len(), parts.div_ceil(10), "10% of {parts}");
        sample
    };
    let reversed: Vec<PathBuf> = files.iter().rev().cloned().collect();
    for k in [0u64, 1, 7, 24_301] {
        let (even, odd) = (sample(&files, 2 * k), sample(&files, 2 * k + 1));
        assert_ne!(even, odd, "seeds {} and {}", 2 * k, 2 * k + 1);
        assert_eq!(sample(&reversed, 2 * k), even, "seed {}", 2 * k);
    }
}

/// `merge --quorum 2 A B` over two runs' shard folders of n = 17, sliced differently (3 and
/// 5 shards): exact where they agree; a part forged in one (its sums, residues and digest
/// recomputed) refused, naming the part, both files and both counts; copies of one run
/// counted once; `--partial` says how much of the plan has its quorum.
#[test]
fn a_quorum_of_two_runs_merges_exact_and_names_every_part_forged() {
    let dir = scratch("quorum");
    let folder = |name: &str, k: usize| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        (path(&sub).to_string(), shards(&sub, "17", k, &[]))
    };
    let ((a, _), (b, b_files)) = (folder("a", 3), folder("b", 5));
    let quorum =
        |args: &[&str]| nqueens(&[&["merge", "--format", "json", "--quorum", "2"], args].concat());
    let exact = quorum(&[&a, &b]);
    let total = counts(&exact);
    assert_eq!(total["solutions"], 95815104);
    assert_eq!(total["unique"], 11977939);
    let err = String::from_utf8_lossy(&exact.stderr);
    assert!(
        err.contains(
            "all 7108 parts of the plan counted alike in 2 sources or more (8 runs from 2 sources "
        ),
        "{err}"
    );
    // Two parts forged in one file of B: each named, with both files and both counts.
    let forged = &b_files[3];
    let mut parts = Vec::new();
    forge(forged, true, |r| {
        for k in [0, 2] {
            r.subproblems[k].1 += 8;
            parts.push((r.subproblems[k].0, r.subproblems[k].1));
        }
    });
    let err = refused_with(
        &quorum(&[&a, &b]),
        &["quorum refused: the runs disagree on 2 parts:"],
    );
    for (part, count) in parts {
        let line = err
            .lines()
            .find(|l| l.contains(&format!("part {part}: ")))
            .unwrap_or_else(|| panic!("part {part} is not named: {err}"));
        assert!(
            line.contains(&format!("{a}/n17-"))
                && line.contains(&format!("{forged} records {count} ")),
            "{line}"
        );
    }
    // B's copy of A is A's runs again: one vote each, no quorum.
    refused_with(
        &quorum(&[&a, &a]),
        &[
            "7108 of the plan's 7108 parts lack a quorum of 2 sources: parts 0-7107; the first are held only by ",
            "; 3 files were copies of others of their runs, counted once",
        ],
    );
    // Partial: A and two of B's five shards.
    let out = quorum(&["--partial", &a, &b_files[0], &b_files[1]]);
    let row = counts(&out);
    assert_eq!(row["complete"], false);
    let agreed = row["parts_agreed"].as_u64().unwrap();
    assert!(0 < agreed && agreed < 7108, "{row}");
    assert!(!row["lacking"].as_str().unwrap().is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "quorum 2: {agreed} of the plan's 7108 parts counted alike in 2 sources or more"
        )),
        "{err}"
    );
}

/// One source's runs are one vote, however many there are: with shard 3 missing from an
/// honest host A, host B's folder holding two runs of shard 3 (forged alike, fresh run ids)
/// fills no quorum of 2, whether B is given as a folder, as its files one by one, as a folder
/// and a folder inside it, or as a list; the refusal names shard 3 and B. Complete, A and B
/// merge exactly, the output saying how many sources there were.
#[test]
fn runs_of_one_source_fill_no_quorum_however_many_they_are() {
    let dir = scratch("one-source");
    let (a, b) = (dir.join("hostA"), dir.join("hostB"));
    let sub = b.join("sub");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&sub).unwrap();
    let ours = shards(&a, "12", 4, &[]);
    let theirs = shards(&b, "12", 4, &[]);
    let quorum =
        |args: &[&str]| nqueens(&[&["merge", "--format", "json", "--quorum", "2"], args].concat());
    let (source_a, source_b) = (
        std::fs::canonicalize(&a).unwrap(),
        std::fs::canonicalize(&b).unwrap(),
    );
    let exact = quorum(&[path(&a), path(&b)]);
    assert_eq!(counts(&exact), counts(&merge(&ours)));
    let err = String::from_utf8_lossy(&exact.stderr);
    let said = format!(
        "(8 runs from 2 sources {}, {}; on host",
        source_a.display(),
        source_b.display()
    );
    assert!(err.contains(&said), "{err}");
    let row = counts(&quorum(&["--partial", path(&a), path(&b)]));
    assert_eq!((&row["runs"], &row["sources"]), (&8.into(), &2.into()));
    // A loses shard 3; B gets two more runs of it, one beside its files and one below, and
    // all three of B's are forged alike, their digests recomputed.
    std::fs::remove_file(&ours[3]).unwrap();
    let again = [b.join("again-3.json"), sub.join("n12-3-of-4.json")];
    for file in &again {
        succeeded(nqueens(&[
            "count",
            "12",
            "--shard",
            "3/4",
            "--output",
            path(file),
        ]));
    }
    for file in [&theirs[3], path(&again[0]), path(&again[1])] {
        forge(file, true, |r| r.subproblems[0].1 += 8);
    }
    let list = dir.join("b.txt");
    let listed = [&theirs[..], &[path(&again[1]).to_string()]].concat();
    std::fs::write(&list, listed.join("\n")).unwrap();
    let beside = dir.join("beside.txt");
    std::fs::write(&beside, path(&again[1])).unwrap();
    let (a, b, sub) = (path(&a), path(&b), path(&sub));
    let one_by_one: Vec<&str> = theirs
        .iter()
        .map(String::as_str)
        .chain([path(&again[0])])
        .collect();
    let list_source = std::fs::canonicalize(&list).unwrap();
    for (args, source) in [
        (vec![a, b], &source_b),
        ([&[a], &one_by_one[..]].concat(), &source_b),
        (vec![a, b, sub], &source_b),
        ([&[a, sub], &one_by_one[..]].concat(), &source_b),
        (vec![a, "--list", path(&list)], &list_source),
        (vec![a, b, "--list", path(&beside)], &source_b),
    ] {
        let named = format!("(shard 3/4, of source {})", source.display());
        refused_with(
            &quorum(&args),
            &[
                "64 of the plan's 253 parts lack a quorum of 2 sources: parts ",
                &named,
            ],
        );
    }
}

/// Two files that name one run but differ: one was changed (a forger who copied a genuine
/// run id into a forgery to pass as its copy).
#[test]
fn two_files_of_one_run_that_differ_are_refused() {
    let dir = scratch("one-run");
    let files = shards(&dir, "12", 2, &[]);
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let theirs = shards(&other, "12", 2, &[]);
    let run = serde_json::from_str::<ShardResult>(&std::fs::read_to_string(&files[0]).unwrap())
        .unwrap()
        .run;
    forge(&theirs[0], true, |r| r.run = run.clone());
    let out = nqueens(
        &[
            &["merge", "--quorum", "2"][..],
            &[&files[0], &files[1], &theirs[0], &theirs[1]],
        ]
        .concat(),
    );
    let named = format!("{} and {} both name run {run}", files[0], theirs[0]);
    refused_with(&out, &[&named, "but differ"]);
}

// Files no one else can plant or replace: rescue files, file size limits, a signal at the
// rename, and the names of nqueens's own temporary files.

/// nqueens with `args`, its old temporary folder (`$TMPDIR`) and this user's cache folder
/// (`$XDG_CACHE_HOME`) set.
fn with_folders(args: &[&str], tmp: &Path, cache: &Path) -> Output {
    Command::cargo_bin("nqueens")
        .unwrap()
        .args(args)
        .env("TMPDIR", tmp)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap()
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether this process runs as root, who can give a file to another user.
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The files another user could plant as a rescue file of this user's: a forged file
/// (consistent in itself) of another owner where this process can make one (root), else of
/// the wrong mode; and a symbolic link to `victim`.
fn planted(forged: &Path, at: &Path, victim: &Path, case: usize) {
    let _ = std::fs::remove_file(at);
    match case {
        0 => {
            std::fs::copy(forged, at).unwrap();
            chmod(at, 0o600);
            if is_root() {
                std::os::unix::fs::chown(at, Some(65534), Some(65534)).unwrap();
            } else {
                chmod(at, 0o644);
            }
        }
        _ => std::os::unix::fs::symlink(victim, at).unwrap(),
    }
}

#[test]
fn a_rescue_file_planted_by_another_user_or_as_a_link_is_never_taken_or_written_through() {
    let dir = scratch("planted");
    let (shared, private, tmp) = (dir.join("shared"), dir.join("private"), dir.join("tmp"));
    // This user's own folder, as `changed_at` sets it.
    let cache = tmp.join("cache");
    for (folder, mode) in [(&shared, 0o1777), (&private, 0o700), (&tmp, 0o1777)] {
        std::fs::create_dir(folder).unwrap();
        chmod(folder, mode);
    }
    // The forgery: a genuine shard 0/2 with one part raised, its checksums recomputed.
    let other = shard_of_12("1/2", &dir.join("s1.json"));
    let forged = dir.join("forged.json");
    shard_of_12("0/2", &forged);
    forge(path(&forged), true, |r| r.subproblems[0].1 += 8);
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let exact = |out: &Path| {
        let files = [path(out).to_string(), other.clone()];
        assert_eq!(counts(&merge(&files))["solutions"], 14200);
    };
    for (folder, case) in [(&shared, 0), (&shared, 1), (&private, 0), (&private, 1)] {
        let out = folder.join("s0.json");
        let _ = std::fs::remove_file(&out);
        let args = ["count", "12", "--shard", "0/2", "--output", path(&out)];
        // Beside the output, and where rescue files used to be kept: `$TMPDIR`, which every
        // user can write.
        let crc = crc32fast::hash(path(&out).as_bytes());
        let old = tmp.join(format!("nqueens-{crc:08x}-s0.json.rescue"));
        let beside = folder.join("s0.json.rescue");
        for at in [&beside, &old] {
            planted(&forged, at, &victim, case);
        }
        let run = with_folders(&args, &tmp, &cache);
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{case} in {folder:?}: {err}");
        assert!(!err.contains("nothing counted again"), "{err}");
        exact(&out);
        // Beside an output in a folder others can write, nothing is taken; in a folder of
        // this user's alone, a file this user did not make is named and left alone.
        if *folder == private {
            assert!(
                err.contains(&format!(
                    "warning: rescue file {} is not this run's",
                    path(&beside)
                )),
                "{err}"
            );
        }
        for at in [&beside, &old] {
            assert!(std::fs::symlink_metadata(at).is_ok(), "left alone: {at:?}");
        }
        // An output that cannot take the counts: they are kept, never through the link.
        std::fs::remove_file(&out).unwrap();
        let failed = changed_at("output", &args, &tmp, || std::fs::create_dir(&out).unwrap());
        let err = String::from_utf8_lossy(&failed.stderr).into_owned();
        assert_eq!(failed.status.code(), Some(1), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let kept = if *folder == private {
            beside.clone()
        } else {
            cache
                .join("nqueens/rescue")
                .join(format!("{crc:08x}-s0.json.rescue"))
        };
        assert!(
            err.contains(&format!("the shard's counts are kept in {}", path(&kept))),
            "{err}"
        );
        std::fs::remove_dir(&out).unwrap();
        let again = changed_at("planning", &args, &tmp, || {});
        let err = String::from_utf8_lossy(&again.stderr).into_owned();
        assert!(again.status.success(), "{err}");
        assert!(err.contains("nothing counted again"), "{err}");
        exact(&out);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}

/// `bash -c 'ulimit -f KIB; exec nqueens ARGS'`, SIGXFSZ not trapped, this user's cache
/// folder set to `cache`: its output, stdout piped.
fn limited(kib: u32, args: &[&str], cache: &Path) -> Output {
    Std::new("bash")
        .arg("-c")
        .arg(format!("ulimit -f {kib}; exec \"$@\""))
        .arg("bash")
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap()
}

#[test]
fn under_a_file_size_limit_the_count_goes_on_and_a_shard_loses_nothing() {
    let dir = scratch("size-limit");
    let cache = dir.join("cache");
    // A checkpoint past 100 KiB: its writes fail with EFBIG, and the count goes on (or, where
    // the first write that fails is the last, ends) with the warning.
    let ckpt = dir.join("c.ckpt");
    let args = [
        "count",
        "17",
        "--format",
        "json",
        "--checkpoint",
        path(&ckpt),
    ];
    let out = limited(100, &args, &cache);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(counts(&out)["solutions"], 95815104, "{err}");
    assert!(
        err.contains(&format!("warning: cannot write checkpoint {}", path(&ckpt)))
            && (err.contains("counting goes on")
                || err.contains("the count is complete and does not depend on it")),
        "{err}"
    );
    // A shard's result past 50 KiB: neither its output nor a rescue file can take it, and it
    // goes to standard output, whole.
    let out0 = dir.join("s0.json");
    let args = ["count", "17", "--shard", "0/2", "--output", path(&out0)];
    let out = limited(50, &args, &cache);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(
        err.contains(&format!(
            "the shard's result is written to standard output instead, whole: save it as {}",
            path(&out0)
        )),
        "{err}"
    );
    assert!(!out0.exists());
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    std::fs::write(&out0, &out.stdout).unwrap();
    let out1 = dir.join("s1.json");
    succeeded(nqueens(&[
        "count",
        "17",
        "--shard",
        "1/2",
        "--output",
        path(&out1),
    ]));
    let files = [path(&out0).to_string(), path(&out1).to_string()];
    assert_eq!(counts(&merge(&files))["solutions"], 95815104);
}

/// Starts `args` with the test hook that pauses it at `stage` and this user's cache folder
/// set to `cache`, and waits for the pause.
fn paused_with_cache(
    stage: &str,
    args: &[&str],
    cache: &Path,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let mut command = launched(&[]);
    command
        .args(args)
        .env("NQUEENS_TEST_PAUSE_AT", stage)
        .env("XDG_CACHE_HOME", cache);
    started_until(command, &format!("paused at {stage}"))
}

#[test]
fn sigterm_after_the_result_is_synced_publishes_it_whole() {
    let dir = scratch("sigterm-whole");
    let cache = dir.join("cache");
    let first = shard_of_12("0/2", &dir.join("s0.json"));
    let out = dir.join("s1.json");
    let args = ["count", "12", "--shard", "1/2", "--output", path(&out)];
    // No checkpoint: the synced result is all there is, and it is put in place.
    let (child, err) = paused_with_cache("output", &args, &cache);
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    assert!(
        err.contains(&format!(
            "interrupted by SIGTERM once the count was done and its result synced: written whole to {}; nothing needs counting again",
            path(&out)
        )),
        "{err}"
    );
    assert!(!err.contains("nothing was saved"), "{err}");
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    let both = [first.clone(), path(&out).to_string()];
    assert_eq!(counts(&merge(&both))["solutions"], 14200);
    // An output that will not take it then (made a folder): the result is rescued, and the
    // same command writes it without counting again.
    std::fs::remove_file(&out).unwrap();
    let (child, err) = paused_with_cache("output", &args, &cache);
    std::fs::create_dir(&out).unwrap();
    let (code, err) = terminate(child, err);
    assert_eq!(code, Some(143), "{err}");
    let kept = format!("{}.rescue", path(&out));
    assert!(err.contains(&format!("so it is kept in {kept}")), "{err}");
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    std::fs::remove_dir(&out).unwrap();
    let again = with_folders(&args, &dir, &cache);
    let err = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(again.status.success(), "{err}");
    assert!(err.contains("nothing counted again"), "{err}");
    assert_eq!(counts(&merge(&both))["solutions"], 14200);
}

#[test]
fn a_live_writers_temporary_file_cannot_be_an_output_nor_is_another_file_there_removed() {
    let dir = scratch("temporary-names");
    let cache = dir.join("cache");
    let out = dir.join("s.json");
    let args = ["count", "12", "--shard", "0/2", "--output", path(&out)];
    // A writer paused with its whole result in its temporary file, unlocked for a moment as
    // far as a reader of shard results can tell: another run may not take that name.
    let (writer, err) = paused_with_cache("output", &args, &cache);
    let held = temporaries_in(&dir);
    assert_eq!(held.len(), 1);
    let tmp = dir.join(&held[0]);
    let t = dir.join("t.json");
    for (flag, name) in [
        ("--output", path(&tmp).to_string()),
        (
            "--output",
            path(&dir.join(".s.json.rewrite.tmp")).to_string(),
        ),
        (
            "--checkpoint",
            path(&dir.join(".c.ckpt.otherhost.63.tmp")).to_string(),
        ),
    ] {
        let mut run = vec!["count", "12", "--shard", "0/2"];
        if flag == "--checkpoint" {
            run.extend(["--output", path(&t)]);
        }
        run.extend([flag, &name]);
        let err = refused_before_planning(&run);
        assert!(
            err.contains(&format!(
                "{flag} {name}: a name of nqueens's own temporary files"
            )),
            "{err}"
        );
    }
    let (code, err) = terminate(writer, err);
    assert_eq!(code, Some(143), "{err}");
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
    let files = [path(&out).to_string(), shard_of_12("1/2", &t)];
    assert_eq!(counts(&merge(&files))["solutions"], 14200);
    // A file put in place of a paused writer's temporary file (by a rename) is not the
    // writer's to remove.
    std::fs::remove_file(&out).unwrap();
    let (writer, err) = paused_with_cache("planning", &args, &cache);
    let held = temporaries_in(&dir);
    let mine = dir.join("mine");
    std::fs::write(&mine, "mine").unwrap();
    std::fs::rename(&mine, dir.join(&held[0])).unwrap();
    let (code, err) = terminate(writer, err);
    assert_eq!(code, Some(143), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join(&held[0])).unwrap(), "mine");
}

/// A sample of `scripts/mutate.sh`'s file trials (`tests/mutate/files.rs`): rescue files
/// planted by another user or as links, and `ulimit -f` limits; `scripts/mutate.sh N SEED
/// files` runs many more.
#[test]
fn no_planted_rescue_file_or_file_size_limit_gives_a_wrong_total_or_loses_counts() {
    let mut tallies = file_trials::Tallies::default();
    let mut failed = Vec::new();
    // 24 trials: each kind 12 times.
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    file_trials::run(&bin, 24, 71, |t, trial| {
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
fn links_planted_at_an_output_or_a_checkpoints_rewrite_are_never_written_through() {
    let dir = scratch("planted-links");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let is_link = |p: &Path| {
        std::fs::symlink_metadata(p)
            .unwrap()
            .file_type()
            .is_symlink()
    };
    // A link put at the output's name while the run counts: the rename replaces it.
    let out = dir.join("s.json");
    let args = ["count", "12", "--shard", "0/2", "--output", path(&out)];
    let run = changed_at("output", &args, &dir, || {
        std::os::unix::fs::symlink(&victim, &out).unwrap()
    });
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(!is_link(&out));
    let files = [
        path(&out).to_string(),
        shard_of_12("1/2", &dir.join("t.json")),
    ];
    assert_eq!(counts(&merge(&files))["solutions"], 14200);
    // A link at the name a checkpoint is rewritten under (a damaged record makes the resume
    // rewrite it): made new, never written through.
    let (_scratch, ckpt, args, whole) = crashed_checkpoint("planted-rewrite");
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let damaged = lines[2].replacen("\"crc\":", "\"crc\":1", 1);
    lines[2] = &damaged;
    std::fs::write(&ckpt, lines.join("\n") + "\n").unwrap();
    let rewrite = ckpt.with_file_name(".c.ckpt.rewrite.tmp");
    std::os::unix::fs::symlink(&victim, &rewrite).unwrap();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let resumed = nqueens(&args);
    let err = String::from_utf8_lossy(&resumed.stderr).into_owned();
    assert!(err.contains("the file is rewritten without it"), "{err}");
    assert_eq!(counts(&resumed), whole);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(!is_link(&ckpt) && !rewrite.exists());
}
