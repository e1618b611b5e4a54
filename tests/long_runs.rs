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
    // A changed count in a record before the end: the file is cut there (each record's own
    // checksum vouches for those before it) and the rest is counted again, to the exact total.
    let text = std::fs::read_to_string(&ckpt).unwrap();
    let changed = text.replacen("\"solutions\":", "\"solutions\":1", 3);
    std::fs::write(&ckpt, changed).unwrap();
    let damaged = Command::cargo_bin("nqueens")
        .unwrap()
        .args(args("13"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&damaged.stderr).contains("line 2 was damaged"));
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
        let subproblems = whole["subproblems"].as_u64().unwrap() as usize;
        // As many shards as subproblems (one each) is the most there can be.
        for k in [1, 2, 5, subproblems] {
            let files = shards(&dir, "13", k, &["--symmetry", symmetry]);
            let mut merged = counts(&merge(&files));
            merged["threads"] = whole["threads"].clone();
            assert_eq!(merged, whole, "{symmetry}, {k} shards");
        }
        let too_many = format!("0/{}", subproblems + 1);
        let out = nqueens(&[
            "count",
            "13",
            "--symmetry",
            symmetry,
            "--shard",
            &too_many,
            "--output",
            "x",
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!("at most {subproblems} parts"))
        );
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

/// Starts a long count (n = 16, scalar, one thread) on `ckpt` and waits until it has begun.
fn long_count_on(ckpt: &Path) -> (std::process::Child, Vec<String>) {
    let args: Vec<String> = [
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
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let resumed = counts(&nqueens(&args));
        assert_eq!(resumed["solutions"], 14772512);
        assert_eq!(resumed["unique"], 1846955);
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

#[test]
fn a_full_disk_never_leaves_half_a_record_and_the_count_is_still_printed() {
    let dir = scratch("full");
    let disk = dir.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    let mounted = Std::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs", path(&disk)])
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("cannot mount a small tmpfs here (not root?): the full-disk case is not tested");
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
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
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
