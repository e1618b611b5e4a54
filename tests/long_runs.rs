//! Checkpoint and resume, shards and merge, and progress that leaves stdout alone.

use std::path::{Path, PathBuf};
use std::process::{Command as Std, Output};
use std::time::Duration;

use assert_cmd::Command;

fn nqueens(args: &[&str]) -> Output {
    Command::cargo_bin("nqueens")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nqueens-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
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
        assert_eq!(counts(&nqueens(&args)), whole, "{symmetry}");
        // Running again over a complete checkpoint recounts nothing and agrees.
        assert_eq!(counts(&nqueens(&args)), whole);
    }
}

#[test]
fn torn_last_record_is_recounted() {
    let dir = scratch("torn");
    let ckpt = dir.join("c.ckpt");
    let args = [
        "count",
        "13",
        "--split-depth",
        "3",
        "--format",
        "json",
        "--checkpoint",
        path(&ckpt),
    ];
    let whole = counts(&nqueens(&args[..6]));
    crash_after(&args, "30");
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
    // A changed count in a record before the end.
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let changed = text.replacen("\"solutions\":", "\"solutions\":1", 3);
    std::fs::write(&ckpt, changed).unwrap();
    let damaged = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args("13"))
        .output()
        .unwrap();
    assert_eq!(damaged.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&damaged.stderr).contains("damaged record"));
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

fn shards(dir: &Path, n: &str, k: usize, extra: &[&str]) -> Vec<String> {
    (0..k)
        .map(|i| {
            let file = dir.join(format!("n{n}-{i}-of-{k}.json"));
            let shard = format!("{i}/{k}");
            let mut args = vec!["count", n, "--shard", &shard, "--output", path(&file)];
            args.extend(extra);
            let out = nqueens(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
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
    for symmetry in ["full", "none"] {
        let whole = counts(&nqueens(&[
            "count",
            "13",
            "--format",
            "json",
            "--symmetry",
            symmetry,
        ]));
        let tasks = whole["subproblems"].as_u64().unwrap() as usize;
        for k in [1, 2, 5, tasks + 3] {
            let files = shards(&dir, "13", k, &["--symmetry", symmetry]);
            let mut merged = counts(&merge(&files));
            merged["threads"] = whole["threads"].clone();
            assert_eq!(merged, whole, "{symmetry}, {k} shards");
        }
    }
}

#[test]
fn merge_refuses_missing_duplicate_mismatched_and_tampered_shards() {
    let dir = scratch("merge");
    let files = shards(&dir, "12", 3, &[]);
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
    let text = std::fs::read_to_string(&files[2]).unwrap();
    std::fs::write(
        &files[2],
        text.replacen("\"solutions\": ", "\"solutions\": 9", 1),
    )
    .unwrap();
    refused(&files, "checksum does not match");
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
        let (file, ckpt, shard) = (
            dir.join(format!("{i}.json")),
            dir.join(format!("{i}.ckpt")),
            format!("{i}/2"),
        );
        let args = [
            "count",
            "13",
            "--split-depth",
            "3",
            "--shard",
            &shard,
            "--output",
            path(&file),
            "--checkpoint",
            path(&ckpt),
        ];
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

#[test]
fn ctrl_c_saves_the_checkpoint_and_exits_130() {
    let dir = scratch("sigint");
    let ckpt = dir.join("c.ckpt");
    let args = [
        "count",
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
        path(&ckpt),
    ];
    let child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let status = Std::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("run the same command again to resume"));
    assert!(
        std::fs::read_to_string(&ckpt).unwrap().lines().count() > 1,
        "some results were saved"
    );
    let resumed = counts(&nqueens(&args));
    assert_eq!(resumed["solutions"], 14772512);
    assert_eq!(resumed["unique"], 1846955);
}
