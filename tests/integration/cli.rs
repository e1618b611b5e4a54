//! The command-line contract: outputs that parse, and bad input that gets exit code 2 and a
//! message naming the argument: clap's whole message (tip and usage) for what clap parses, one
//! line for what only the count can check.

use assert_cmd::Command;
use predicates::prelude::*;

fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// Runs nqueens with `args`, which must succeed: its stdout and stderr.
fn succeeds(args: &[&str]) -> (String, String) {
    let out = nqueens().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

/// [`succeeds`], with the one JSON line it prints parsed.
fn json(args: &[&str]) -> (serde_json::Value, String) {
    let (out, err) = succeeds(args);
    (serde_json::from_str(&out).unwrap(), err)
}

#[test]
fn count_8_shows_92_with_threads() {
    nqueens()
        .args(["count", "8", "-j", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains(" 92 "))
        .stdout(predicate::str::contains("threads"));
}

#[test]
fn bad_input_exits_2_with_a_message_naming_the_argument() {
    let cases: &[(&[&str], &str)] = &[
        (&["count", "-3"], "between 0 and 32"),
        (&["count", "abc"], "not a board size"),
        (&["count", "33"], "between 0 and 32"),
        (&["count", "12-8"], "reversed"),
        (&["count", "8", "--threads", "0"], "--threads"),
        (&["count", "8", "-j", "x"], "--threads"),
        (&["count", "8", "-j", "1025"], "from 1 to 1024"),
        (&["merge", "x.json", "-j", "4096"], "from 1 to 1024"),
        (&["count", "8", "--split-depth", "9"], "--split-depth"),
        (&["count", "8", "--split-depth", "-1"], "--split-depth"),
        (&["count", "8", "--format", "xml"], "--format"),
        (&["count", "8", "--symmetry", "some"], "--symmetry"),
        (&["count"], "<N>"),
        (&["verify", "--max-n", "28"], "--max-n"),
        (&["count", "é"], "not a board size"),
        (&["count", "1é-3"], "'1é-3' is not a range of board sizes"),
        (
            &["count", "8-"],
            "'8-' is not a range of board sizes: expected A-B, whole numbers with 0 <= A <= B <= 32",
        ),
        (
            &["count", "8", "--shard", "-1/2", "--output", "x"],
            "--shard",
        ),
        (
            &["count", "8", "--shard", "0/1000000000000", "--output", "x"],
            "--shard 0/1000000000000",
        ),
        (
            &["count", "24", "--method", "search", "--split-depth", "12"],
            "--split-depth 12",
        ),
        (&["count", "8", "--method", "fast"], "--method"),
        (&["count", "8", "--memory", "2P"], "--memory"),
        (
            &["count", "16", "--method", "join", "--memory", "64K"],
            "--memory",
        ),
    ];
    for (args, needle) in cases {
        let out = nqueens().args(*args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        // clap's errors end by pointing to --help; the count's own are one line.
        let lines = err.trim_end().lines().count();
        assert!(
            lines == 1
                || err
                    .trim_end()
                    .ends_with("For more information, try '--help'."),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// A typo gets clap's suggestion and the usage, a bad choice the values there are.
#[test]
fn typos_get_a_suggestion_and_the_usage() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["cout", "12"],
            &[
                "'cout'",
                "a similar subcommand exists: 'count'",
                "Usage: nqueens",
            ],
        ),
        (
            &["count", "12", "--symetry", "full"],
            &[
                "'--symetry'",
                "a similar argument exists: '--symmetry'",
                "Usage: nqueens count",
            ],
        ),
        (
            &["completions", "tcsh"],
            &[
                "'tcsh'",
                "possible values: bash, elvish, fish, powershell, zsh",
            ],
        ),
    ];
    for (args, needles) in cases {
        let out = nqueens().args(*args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for needle in *needles {
            assert!(err.contains(needle), "{args:?}: {needle} in {err}");
        }
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn split_depth_error_names_the_allowed_range() {
    nqueens()
        .args(["count", "8", "--split-depth", "9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--split-depth 9 is more than n = 8 allows: the depth must be from 0 to 8",
        ));
}

#[test]
fn sizes_as_lists_and_ranges() {
    let out = nqueens()
        .args(["count", "1-4", "8", "--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ns: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(ns, ["1", "2", "3", "4", "8"]);
}

#[test]
fn json_lines_have_every_field_with_exact_values() {
    for symmetry in ["none", "mirror", "full"] {
        let out = nqueens()
            .args([
                "count",
                "8",
                "10",
                "--format",
                "json",
                "-j",
                "2",
                "--split-depth",
                "3",
                "--symmetry",
                symmetry,
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        for (v, (n, total, unique)) in lines.iter().zip([(8, 92, 12), (10, 724, 92)]) {
            assert_eq!(v["n"], n);
            assert_eq!(v["solutions"], total);
            assert!(v["solutions"].is_u64(), "solutions is a JSON integer");
            assert_eq!(v["threads"], 2);
            // n = 8 is searched, split 3 rows down; n = 10 joined, whose parts are its keys.
            let (method, depth) = if n == 8 {
                ("search", 3.into())
            } else {
                ("join", serde_json::Value::Null)
            };
            assert_eq!(v["method"], method);
            assert_eq!(v["split_depth"], depth);
            assert!(["scalar", "avx2", "avx512"].contains(&v["kernel"].as_str().unwrap()));
            assert_eq!(v["symmetry"], symmetry);
            assert!(v["subproblems"].as_u64().unwrap() > 1);
            assert!(v["elapsed_s"].as_f64().unwrap() >= 0.0);
            if symmetry == "full" {
                assert_eq!(v["unique"], unique);
            } else {
                assert!(v["unique"].is_null());
            }
        }
    }
}

#[test]
fn csv_has_a_header_and_the_same_columns() {
    let out = nqueens()
        .args(["count", "6-8", "--format", "csv", "--symmetry", "full"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "n",
        "solutions",
        "unique",
        "method",
        "kernel",
        "threads",
        "split_depth",
        "symmetry",
        "subproblems",
        "elapsed_s",
    ] {
        assert!(header.contains(&col), "{col} in {header:?}");
    }
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let got: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r[at("solutions")].clone(), r[at("unique")].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("4".into(), "1".into()),
            ("40".into(), "6".into()),
            ("92".into(), "12".into())
        ]
    );
}

#[test]
fn verify_passes_and_prints_the_table() {
    nqueens()
        .args(["verify", "--max-n", "10"])
        .assert()
        .success()
        .stdout(predicate::str::contains("published"))
        .stdout(predicate::str::contains("724"))
        .stdout(predicate::str::contains("false").not());
}

#[test]
fn verify_json_has_one_line_per_size() {
    let out = nqueens()
        .args([
            "verify",
            "--max-n",
            "9",
            "--format",
            "json",
            "--symmetry",
            "full",
            "--kernel",
            "scalar",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 10);
    assert!(lines.iter().all(|v| v["ok"] == true));
    assert!(
        lines
            .iter()
            .all(|v| v["method"] == "search" && v["kernel"] == "scalar")
    );
    assert_eq!(lines[9]["computed_unique"], 46);
}

#[test]
fn help_and_version_succeed() {
    nqueens()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("count"));
    // The version, and the commit built from where the build names one.
    let (out, _) = succeeds(&["--version"]);
    let rest = out
        .strip_prefix(concat!("nqueens ", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        rest == "\n"
            || rest
                .strip_prefix(" (")
                .and_then(|r| r.strip_suffix(")\n"))
                .is_some_and(|c| !c.is_empty() && !c.contains(char::is_whitespace)),
        "{out:?}"
    );
}

#[test]
fn no_arguments_print_the_usage_and_exit_2() {
    let out = nqueens().output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("Usage: nqueens [OPTIONS] <COMMAND>") && err.contains("count"),
        "{err}"
    );
}

#[test]
fn completions_and_man_page_are_generated() {
    let bash = nqueens().args(["completions", "bash"]).output().unwrap();
    assert!(bash.status.success());
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains("_nqueens") && bash.contains("--split-depth"));
    let man = nqueens().arg("man").output().unwrap();
    assert!(man.status.success());
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(man.contains(".TH NQUEENS 1") && man.contains(".SS \"nqueens verify\""));
}

#[test]
fn verify_passes_with_the_join() {
    let (text, _) = succeeds(&[
        "verify", "--max-n", "14", "--method", "join", "--format", "csv",
    ]);
    assert_eq!(text.lines().count(), 16, "{text}");
    assert!(text.lines().skip(1).all(|l| l.contains(",true,")), "{text}");
}

/// Without `--split-depth` the search splits at depth 2; the join's parts are its keys
/// (one per orbit of the mirror and the upside-down image, plus the part of the solutions
/// the other symmetries fix in full mode) whatever the depth, and it reports no depth.
#[test]
fn the_join_cuts_keys_whatever_the_split_depth() {
    let line = |n: &str, args: &[&str]| {
        let (line, _) = json(&[&["count", n, "--format", "json"], args].concat());
        (
            line["split_depth"].as_u64(),
            line["subproblems"].as_u64().unwrap(),
            line["solutions"].as_u64().unwrap(),
        )
    };
    assert_eq!(line("12", &["--method", "search"]).0, Some(2));
    for depth in ["1", "3"] {
        let (d, parts, total) = line("12", &["--method", "join", "--split-depth", depth]);
        assert_eq!((d, total), (None, 14200));
        assert_eq!(parts as usize, expected_keys(12) + 1);
    }
}

/// What ran is what is reported: the join at split depth 0 still runs on every thread (and
/// says the depth was not used), the search at depth 0 on one.
#[test]
fn split_depth_0_reports_the_threads_that_ran() {
    let run = |args: &[&str]| {
        let base = [
            "count",
            "12",
            "-j",
            "2",
            "--split-depth",
            "0",
            "--format",
            "json",
        ];
        json(&[&base[..], args].concat())
    };
    let (joined, note) = run(&[]);
    assert_eq!(joined["method"], "join");
    assert_eq!(joined["threads"], 2);
    assert!(joined["split_depth"].is_null());
    assert!(note.contains("--split-depth 0 is not used"), "{note}");
    let (searched, quiet) = run(&["--method", "search", "--kernel", "scalar"]);
    assert_eq!(
        (
            &searched["method"],
            &searched["kernel"],
            &searched["threads"]
        ),
        (&"search".into(), &"scalar".into(), &1.into())
    );
    assert_eq!(
        (&searched["split_depth"], &searched["subproblems"]),
        (&0.into(), &1.into())
    );
    assert!(quiet.is_empty(), "{quiet}");
    // The table says `-` where a value does not apply.
    let out = nqueens()
        .args(["count", "12", "--symmetry", "mirror", "--method", "join"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let at = |name: &str| rows[0].iter().position(|c| *c == name).unwrap();
    assert_eq!(
        (
            rows[1][at("unique")],
            rows[1][at("method")],
            rows[1][at("split_depth")]
        ),
        ("-", "join", "-")
    );
}

/// Orbits of the `n / 2`-row sets of `n` rows (`n` even) under complement and reversal,
/// counted by brute force.
fn expected_keys(n: u32) -> usize {
    let all = (1u32 << n) - 1;
    let flip = |x: u32| x.reverse_bits() >> (32 - n);
    (0..=all)
        .filter(|e| e.count_ones() == n / 2)
        .filter(|&e| [all ^ e, flip(e), flip(all ^ e)].iter().all(|&o| o >= e))
        .count()
}

/// `merge` reports the method of the shards' plan and the loop they ran, `mixed` where they
/// ran different ones.
#[test]
fn merge_reports_the_method_and_the_loop_the_shards_ran() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |i: usize, kernel: &str| {
        let file = dir.path().join(format!("{i}-{kernel}.json"));
        let file = file.to_str().unwrap().to_string();
        let shard = format!("{i}/2");
        let args = ["count", "12", "--method", "search", "--kernel", kernel];
        succeeds(&[&args[..], &["--shard", &shard, "--output", &file]].concat());
        file
    };
    let merged = |files: [String; 2]| json(&["merge", "--format", "json", &files[0], &files[1]]).0;
    let scalar = merged([shard(0, "scalar"), shard(1, "scalar")]);
    assert_eq!(
        (&scalar["method"], &scalar["kernel"]),
        (&"search".into(), &"scalar".into())
    );
    assert_eq!(
        (&scalar["split_depth"], &scalar["solutions"]),
        (&2.into(), &14200.into())
    );
    let here = nqueens_engine::Kernel::Auto.resolve().unwrap();
    let either = merged([shard(0, "scalar"), shard(1, here.name())]);
    let expected = if here == nqueens_engine::Kernel::Scalar {
        "scalar"
    } else {
        "mixed"
    };
    assert_eq!(either["kernel"], expected);
}

/// Off a terminal, `--progress always` writes a line at once (planning), then lines with
/// every field filled, the last at 100%.
#[test]
fn progress_shows_planning_at_once_and_no_empty_field() {
    let (_, err) = succeeds(&["count", "13", "--progress", "always", "--method", "join"]);
    let lines: Vec<&str> = err.lines().collect();
    let first = lines[0];
    assert!(
        first.starts_with("n=13: planning: building the join's pieces and keys, ")
            && first.ends_with("s elapsed"),
        "{err}"
    );
    let last = lines[lines.len() - 1];
    assert!(
        last.starts_with("n=13: 100.0% of estimated work, done, ")
            && last.ends_with(" 545/545 subproblems"),
        "{err}"
    );
    for line in lines {
        assert!(
            !line.contains(", ,") && !line.contains(": ,") && !line.ends_with(", "),
            "{line}"
        );
    }
}

/// Whether util-linux's `script` is here to make a terminal (a note on stderr where not).
fn have_script() -> bool {
    let have = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !have {
        eprintln!("NOT TESTED HERE: no `script` (util-linux) to make a terminal");
    }
    have
}

/// `nqueens count` with `args` on a terminal `width` columns wide (a pseudo-terminal from
/// util-linux's `script`), sent SIGINT after `seconds`: its exit code and what the terminal
/// showed.
fn count_on_a_terminal(width: usize, seconds: u32, args: &str) -> (Option<i32>, String) {
    let command = format!(
        "stty rows 24 cols {width}; timeout --preserve-status -s INT {seconds} {} count {args}",
        env!("CARGO_BIN_EXE_nqueens")
    );
    let out = std::process::Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), text)
}

/// On a terminal (a pseudo-terminal from util-linux's `script`), Ctrl-C during a count
/// without a checkpoint ends the bar's line before saying so, and exits 130.
#[test]
fn ctrl_c_on_a_terminal_ends_the_bar_line() {
    if !have_script() {
        return;
    }
    let (code, text) = count_on_a_terminal(200, 1, "20 --method search --kernel scalar -j 1");
    assert_eq!(code, Some(130), "{text}");
    // The last frame of the spinner or bar (planning or counting, as the machine's load has
    // it; a wide terminal, so that the frame is whole), its line ended (the terminal writes \n as
    // \r\n), then the message, on its own line, that nothing was saved.
    let (before, after) = text.rsplit_once("interrupted by SIGINT").unwrap();
    assert!(
        after.starts_with(": nothing was saved")
            && after.ends_with("\r\n")
            && after.matches('\n').count() == 1,
        "{text:?}"
    );
    let frame = before
        .strip_suffix("\r\n")
        .expect("the bar's line is ended");
    let frame = frame.rsplit("\x1b[2K").next().unwrap();
    assert!(
        frame.starts_with("n=20 ") && frame.contains(" elapsed"),
        "{frame:?}"
    );
}

/// Whether `word` is one the progress line writes whole: a word of its text, a share, a
/// duration, parts done of all (`total` after the slash), or a piece of the bar.
fn progress_word(word: &str, total: &mut Option<String>) -> bool {
    const WORDS: &[&str] = &[
        "planning:",
        "planning",
        "cutting",
        "the",
        "search's",
        "subproblems",
        "elapsed",
        "time",
        "measuring",
        "rate",
        "predicted",
        "as",
        "left",
        "left:",
        "of",
        "estimated",
        "work",
        "about",
        "done",
    ];
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let duration = word
        .split_inclusive(['h', 'm', 's'])
        .all(|p| p.len() > 1 && digits(&p[..p.len() - 1]))
        && word.ends_with('s');
    let share = word
        .strip_suffix('%')
        .and_then(|w| w.split_once('.'))
        .is_some_and(|(a, b)| digits(a) && b.len() == 1 && digits(b));
    let parts = word.split_once('/').is_some_and(|(done, all)| {
        digits(done) && digits(all) && total.get_or_insert_with(|| all.to_string()) == all
    });
    let bar = word.chars().all(|c| "[]=>".contains(c));
    WORDS.contains(&word) || word.starts_with("n=") || duration || share || parts || bar
}

/// On a terminal 40 and 80 columns wide, every frame of the progress line fits the width,
/// and holds whole words and numbers only (the total of parts never cut short).
#[test]
fn progress_fits_the_terminal_in_whole_words() {
    if !have_script() {
        return;
    }
    for width in [40, 80] {
        let (_, text) = count_on_a_terminal(width, 2, "17 --method search --kernel scalar -j 1");
        let mut total = None;
        let frames: Vec<&str> = text
            .split(['\r', '\n'])
            .map(|f| f.trim_start_matches("\x1b[2K").trim_end())
            .filter(|f| f.starts_with("n=17"))
            .collect();
        assert!(frames.len() > 1, "{text:?}");
        for frame in &frames {
            assert!(frame.chars().count() <= width, "{width}: {frame:?}");
            for word in frame
                .split([' ', ','])
                .filter(|w| !w.is_empty() && w.is_ascii())
            {
                assert!(
                    progress_word(word, &mut total),
                    "{width}: {word:?} in {frame:?}"
                );
            }
        }
        assert!(frames.iter().any(|f| f.contains('%')), "{width}: {text:?}");
    }
}

/// `estimate` predicts from a sample: every field filled and positive, no more parts timed
/// than asked, the same parts for the same seed; more shards than parts is refused.
#[test]
fn estimate_predicts_from_a_sample_and_refuses_impossible_shards() {
    let run = |seed: &str| {
        let out = nqueens()
            .args(["estimate", "12", "--samples", "12", "--shards", "4"])
            .args(["--seed", seed, "--format", "json", "-j", "2"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("thread-hours"));
        v
    };
    let v = run("7");
    assert_eq!(v["n"], 12);
    assert_eq!(v["method"], "join");
    assert_eq!(v["parts"], 253);
    let sampled = v["sampled"].as_u64().unwrap();
    assert!((1..=12).contains(&sampled), "{v}");
    for field in ["thread_hours", "wall_s", "longest_shard_s"] {
        assert!(v[field].as_f64().unwrap() > 0.0, "{field}: {v}");
    }
    let (low, high) = (
        v["thread_hours_low"].as_f64(),
        v["thread_hours_high"].as_f64(),
    );
    assert!(low <= v["thread_hours"].as_f64() && v["thread_hours"].as_f64() <= high);
    // No bound came before the twelve parts: none abandoned, nothing to lean by.
    assert_eq!(
        (&v["abandoned"], &v["lean"]),
        (&0.into(), &0.0.into()),
        "{v}"
    );
    assert_eq!(run("7")["sampled"], v["sampled"]);
    let out = nqueens()
        .args(["estimate", "12", "--shards", "100000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard"));
}

/// Every stratum is sampled however few samples are asked for (a stratum left out would be
/// left out of the total), and a board without parts estimates to nothing.
#[test]
fn estimate_covers_every_stratum_and_boards_without_parts() {
    let estimate = |args: &[&str]| {
        let out = nqueens()
            .arg("estimate")
            .args(args)
            .args(["--format", "json", "-j", "2"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let thread_hours = |v: &serde_json::Value| v["thread_hours"].as_f64().unwrap();
    for n in ["0", "1", "2", "3"] {
        assert!(thread_hours(&estimate(&[n])) < 1e-6, "n = {n}");
    }
    // A full-mode join has a stratum of keys and one of the symmetric solutions: with one
    // sample asked for, only the latter was timed before, a small share of the board.
    let few = estimate(&["14", "--samples", "1"]);
    let many = estimate(&["14", "--samples", "256"]);
    assert!(few["sampled"].as_u64().unwrap() >= 2, "{few}");
    assert!(
        thread_hours(&few) > thread_hours(&many) / 4.0,
        "{few} against {many}"
    );
}

/// `--seconds` bounds the sampling: at n = 24 the symmetric solutions' part alone searches
/// for 6 s and a key takes up to seconds, yet half a second is half a second (the parts in
/// flight abandoned); what finished is an estimate (without an interval from one part), or
/// too few parts a refusal naming `--seconds`. The same for the search at n = 26, whose parts take hours
/// and whose costs alone take 40 s (abandoned too: the refusal).
#[test]
fn estimate_seconds_is_a_bound() {
    for (n, method) in [("24", "join"), ("26", "search")] {
        let start = std::time::Instant::now();
        let out = nqueens()
            .args(["estimate", n, "--method", method, "--seconds", "0.5"])
            .args(["--format", "json", "-j", "2"])
            .output()
            .unwrap();
        let took = start.elapsed().as_secs_f64();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let sampling = v["sampling_s"].as_f64().unwrap();
            assert!(sampling < 1.5, "sampled for {sampling} s: {v}");
            assert!(v["thread_hours"].as_f64().unwrap() > 0.0, "{v}");
            // One part has no spread (two in one stratum have one).
            if v["sampled"].as_u64() < Some(2) {
                assert!(v["thread_hours_low"].is_null(), "{v}");
            }
            // The parts in flight at the bound: one a thread at most, said on stderr.
            let abandoned = v["abandoned"].as_u64().unwrap();
            assert!(abandoned <= 2, "{v}");
            assert_eq!(
                abandoned > 0,
                err.contains("still counting at the bound"),
                "{err}"
            );
            assert!(
                v["lean"].is_null() || v["lean"].as_f64() >= Some(0.0),
                "{v}"
            );
        } else {
            assert_eq!(out.status.code(), Some(2), "{method}: {err}");
            assert!(err.contains("--seconds 0.5"), "{method}: {err}");
        }
        assert!(took < 6.0, "{method}: took {took} s: {err}");
    }
}

/// What the arguments alone rule out is refused before any thread starts or plan is built:
/// 1024 threads take seconds to start on 2 CPUs, n = 27's keys seconds to find.
#[test]
fn refusals_that_need_only_the_arguments_come_at_once() {
    for args in [
        &[
            "count", "22", "--method", "join", "-j", "1024", "--memory", "1M",
        ][..],
        &[
            "count", "27", "--method", "join", "-j", "64", "--memory", "16M",
        ],
        &["estimate", "27", "--memory", "100M"],
        &["verify", "--max-n", "27", "-j", "1024", "--memory", "2M"],
    ] {
        let start = std::time::Instant::now();
        let out = nqueens().args(args).output().unwrap();
        let took = start.elapsed();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--memory"),
            "{args:?}"
        );
        assert!(took.as_secs_f64() < 2.0, "{args:?} took {took:?}");
    }
}

/// Every thread a command counts on comes from `-j`: planning (the join's keys and costs),
/// the symmetric solutions' part, costs, the estimate's samples and the merge's plan and
/// audit run on the command's own pool, so `RAYON_NUM_THREADS=8` adds no thread. Besides
/// the `-j` workers there are the main thread and `count`'s signal handler; rayon's global
/// pool, had anything started it, would still be up when the test hook counts.
#[test]
fn threads_come_from_j_alone() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |i: usize| dir.path().join(format!("s{i}.json"));
    for i in 0..2 {
        let (s, o) = (format!("{i}/2"), shard(i));
        succeeds(&[
            "count",
            "13",
            "--shard",
            &s,
            "--output",
            o.to_str().unwrap(),
        ]);
    }
    let (s0, s1, s2) = (shard(0), shard(1), shard(2));
    let (s0, s1, s2) = (
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
    );
    let runs: &[(&[&str], usize)] = &[
        (&["count", "13", "-j", "1"], 1),
        (&["count", "13", "-j", "3"], 3),
        (&["count", "13", "--method", "search", "-j", "1"], 1),
        (&["count", "13", "--method", "search", "-j", "2"], 2),
        (
            &["count", "13", "--shard", "1/3", "--output", s2, "-j", "1"],
            1,
        ),
        (&["verify", "--max-n", "12", "-j", "1"], 1),
        (
            &[
                "estimate",
                "13",
                "--samples",
                "4",
                "--seconds",
                "30",
                "-j",
                "1",
            ],
            1,
        ),
        (&["merge", s0, s1, "--audit", "50", "-j", "1"], 1),
    ];
    for &(args, j) in runs {
        let out = nqueens()
            .args(args)
            .env("RAYON_NUM_THREADS", "8")
            .env("NQUEENS_TEST_THREADS", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        let threads: usize = err
            .lines()
            .find_map(|l| l.strip_prefix("test hook: ")?.strip_suffix(" threads"))
            .unwrap_or_else(|| panic!("{args:?}: no thread report in {err}"))
            .parse()
            .unwrap();
        assert!(threads <= j + 2, "{args:?}: {threads} threads with -j {j}");
    }
}

/// The fields of a CSV line: commas split them, except inside double quotes (`""` is a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// `nqueens bench` with `args` on the tests' workload (milliseconds), which must succeed: its
/// stdout and stderr.
fn tiny_bench(args: &[&str]) -> (String, String) {
    let out = nqueens()
        .arg("bench")
        .args(args)
        .env("NQUEENS_TEST_WORKLOAD", "tiny")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

#[test]
fn bench_sweeps_the_threads_with_counts_checked_in_json_and_csv() {
    // The tests' workload: search 10 and join 11, at 1, 2 and 3 threads (-j caps).
    let (text, err) = tiny_bench(&["-j", "3", "--format", "json"]);
    assert!(
        err.contains("every count equals the published value"),
        "{err}"
    );
    assert!(err.contains("score, workload tiny-v1"), "{err}");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3 * 3, "two boards and a score per thread count");
    let mut seen = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let threads = r["threads"].as_u64().unwrap();
        assert_eq!(threads, [1, 2, 3][i / 3], "{r}");
        assert_eq!(r["workload"], "tiny-v1");
        assert_eq!(
            r["kernel"],
            nqueens_engine::Kernel::Auto.resolve().unwrap().name()
        );
        assert!(
            r["isa"]
                .as_str()
                .unwrap()
                .starts_with(std::env::consts::ARCH)
        );
        assert!(!r["cpu"].as_str().unwrap().is_empty());
        assert!(r["solutions_per_s"].as_f64().unwrap() > 0.0);
        assert!(r["elapsed_s"].as_f64().unwrap() > 0.0);
        let speedup = r["speedup"].as_f64().unwrap();
        let efficiency = r["efficiency"].as_f64().unwrap();
        if threads == 1 {
            assert_eq!((speedup, efficiency), (1.0, 1.0), "{r}");
        }
        assert!((efficiency - speedup / threads as f64).abs() < 2e-3, "{r}");
        if i % 3 < 2 {
            assert_eq!(r["row"], "board");
            let n = r["n"].as_u64().unwrap() as u32;
            assert_eq!(r["method"], ["search", "join"][i % 3]);
            assert_eq!(
                r["solutions"].as_u64().map(u128::from),
                nqueens_engine::published::all(n)
            );
            seen.push(n);
        } else {
            assert_eq!(r["row"], "score");
            assert!(r["n"].is_null() && r["method"].is_null());
            assert_eq!(r["solutions"], 724 + 2680, "the boards' sum");
            let rates: Vec<f64> = rows[i - 2..i]
                .iter()
                .map(|b| b["solutions_per_s"].as_f64().unwrap())
                .collect();
            let mean = (rates[0] * rates[1]).sqrt();
            let score = r["solutions_per_s"].as_f64().unwrap();
            // The boards' rates are rounded to whole solutions per second, as is the score:
            // each rate's half moves the mean by about half its share of it.
            let slack = 0.5 + mean * (0.5 / rates[0] + 0.5 / rates[1]) * 0.51 + 1e-9 * mean;
            assert!((score - mean).abs() <= slack, "{score} {mean} {slack}");
        }
    }
    assert_eq!(seen, [10, 11, 10, 11, 10, 11]);

    let (text, _) = tiny_bench(&["-j", "1", "--format", "csv"]);
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap());
    let keys: Vec<String> = rows[0].as_object().unwrap().keys().cloned().collect();
    let mut sorted = header.clone();
    sorted.sort();
    let mut keys_sorted = keys.clone();
    keys_sorted.sort();
    assert_eq!(sorted, keys_sorted, "CSV columns are JSON's fields");
    let body: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(body.len(), 3);
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert!(body.iter().all(|r| r.len() == header.len()));
    assert_eq!(body[0][at("solutions")], "724");
    assert_eq!(body[1][at("solutions")], "2680");
    assert_eq!(body[2][at("row")], "score");
    assert_eq!(body[2][at("n")], "", "empty where JSON has null");

    // The table (the default): a header, then the same rows, `-` where JSON has null.
    let (text, err) = tiny_bench(&["-j", "1"]);
    assert!(err.contains("at 1 thread;"), "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        header.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let score: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(score[1..4], ["score", "-", "-"], "{text}");
    // Every column splits on white space: the extensions joined by `+`, the CPU's name by `_`.
    let one_word = |value: &serde_json::Value, join: &str| {
        let words: Vec<&str> = value.as_str().unwrap().split_whitespace().collect();
        words.join(join)
    };
    for line in &lines {
        assert_eq!(line.split_whitespace().count(), header.len(), "{line}");
    }
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[at("isa")], one_word(&rows[0]["isa"], "+"), "{line}");
        assert_eq!(cells[at("cpu")], one_word(&rows[0]["cpu"], "_"), "{line}");
    }
}

/// `bench` says on stderr when the machine was busy: here its one core is shared with a
/// spinning process, so the count gets about half of it.
#[test]
fn bench_notes_a_busy_machine() {
    let pinned = |program: &str| {
        let mut c = std::process::Command::new("taskset");
        c.args(["-c", "0", program]);
        c
    };
    if pinned("true").status().is_err() {
        eprintln!("NOT TESTED HERE: no `taskset` (util-linux) to share a core");
        return;
    }
    let mut spinner = pinned("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    let out = pinned(env!("CARGO_BIN_EXE_nqueens"))
        .args(["bench", "--quick", "-j", "1", "--format", "csv"])
        .output();
    spinner.kill().unwrap();
    spinner.wait().unwrap();
    let out = out.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("note: the machine was busy at 1 thread: the boards had "),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("busy"));
}

/// `verify`'s n = 0 row has no published fundamental count, and stderr says why; n = 1 has
/// one and no such note.
#[test]
fn verify_says_why_n_0_has_no_published_unique() {
    let (text, err) = succeeds(&["verify", "--max-n", "1", "--format", "json"]);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["published_unique"], serde_json::Value::Null);
    assert_eq!(rows[0]["computed_unique"], 1);
    assert_eq!(rows[1]["published_unique"], 1);
    assert!(
        err.contains("note: n = 0 has no published fundamental count")
            && err.contains("A002562 starts at n = 1"),
        "{err}"
    );
    assert_eq!(err.matches("note: n = ").count(), 1, "{err}");
}

#[test]
fn bench_fails_on_a_wrong_count() {
    let out = nqueens()
        .args(["bench", "-j", "1", "--format", "csv"])
        .env("NQUEENS_TEST_WORKLOAD", "tiny")
        .env("NQUEENS_TEST_MISCOUNT", "1")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: n = 10 (search on 1 thread) counted 725 solutions"),
        "{err}"
    );
    assert!(err.contains("the published values are 724"), "{err}");
    assert!(!err.contains("every count equals"), "{err}");
    // The rows are written all the same, the wrong count in them.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(",725,"), "{text}");
}

#[test]
fn bench_refuses_bad_flags() {
    for (args, needle) in [
        (&["bench", "--runs", "0"][..], "--runs"),
        (&["bench", "-j", "0"][..], "--threads"),
        (&["bench", "--quick", "--quick"][..], "--quick"),
        (&["bench", "--format", "xml"][..], "--format"),
    ] {
        let out = nqueens().args(args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `verify` shows the progress of each board as `count` does.
#[test]
fn verify_shows_progress_like_count() {
    let (_, err) = succeeds(&["verify", "--max-n", "11", "--progress", "always"]);
    for n in 0..=11 {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("n={n}: 100.0% of estimated work, done, "))),
            "n = {n}: {err}"
        );
    }
}

/// Runs nqueens with `args` and sends it `signal` (`INT`, `TERM`) once its stderr holds a
/// line `ready` takes: its exit code and its whole stderr.
fn signalled(args: &[&str], ready: impl Fn(&str) -> bool, signal: &str) -> (Option<i32>, String) {
    use std::io::{BufRead, Read};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let (mut text, mut line) = (String::new(), String::new());
    while !ready(&line) {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "ended early: {text}");
        text.push_str(&line);
    }
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    err.read_to_string(&mut text).unwrap();
    (child.wait().unwrap().code(), text)
}

/// Ctrl-C stops `verify` as it stops `count`: a line saying so, exit 130.
#[test]
fn ctrl_c_stops_verify_with_a_message() {
    // Counting has begun (the handler is installed before the first board).
    let (code, text) = signalled(
        &["verify", "--max-n", "20", "--progress", "always", "-j", "1"],
        |line| line.starts_with("n=15:"),
        "INT",
    );
    assert_eq!(code, Some(130), "{text}");
    assert!(text.contains("interrupted by SIGINT"), "{text}");
}

/// `count` with a checkpoint at `ckpt`, stopped by SIGTERM once it counts: its stderr.
fn count_stopped(ckpt: &std::path::Path) -> String {
    let args = [
        "count",
        "17",
        "--method",
        "search",
        "--kernel",
        "scalar",
        "-j",
        "1",
        "--progress",
        "always",
        "--checkpoint",
    ];
    let path = ckpt.to_str().unwrap();
    let all: Vec<&str> = args.iter().copied().chain([path]).collect();
    // A progress line of the count: the checkpoint is open and told to the signal's handler.
    let (code, text) = signalled(&all, |line| line.contains("% of estimated work"), "TERM");
    assert_eq!(code, Some(143), "{text}");
    text
}

/// An interrupted run says how many parts its checkpoint holds, of how many: on a first run
/// all of them its own, on a resumed one how many of them it counted.
#[test]
fn an_interrupted_run_says_how_many_parts_are_saved() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("c.ckpt");
    let saved = |text: &str| -> (usize, usize, String) {
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("interrupted by SIGTERM: "))
            .unwrap_or_else(|| panic!("{text}"));
        let (held, rest) = line.split_once(" of ").unwrap();
        let (parts, rest) = rest.split_once(" parts saved in ").unwrap();
        (
            held.parse().unwrap(),
            parts.parse().unwrap(),
            rest.to_string(),
        )
    };
    let first = count_stopped(&ckpt);
    let (held, parts, rest) = saved(&first);
    let path = ckpt.display();
    assert_eq!(
        rest,
        format!("{path}; run the same command again to resume")
    );
    assert!(!first.contains("more"), "{first}");
    assert!(held <= parts, "{first}");
    let second = count_stopped(&ckpt);
    assert!(
        second.contains(&format!("resuming: {held} of {parts} parts done")),
        "{second}"
    );
    let (now, all, rest) = saved(&second);
    assert!(now >= held && all == parts, "{second}");
    assert_eq!(
        rest,
        format!(
            "{path} ({} of them counted by this run); run the same command again to resume",
            now - held
        )
    );
}

/// Values that clap would take for flags (`-1`) reach the flag's own message, and a range
/// given to `solve` is named as such.
#[test]
fn messages_name_what_is_wrong() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["solve", "8-10"],
            "'8-10' is a range: solve lists one board size N",
        ),
        (
            &["solve", "x"],
            "expected a whole number N, with 0 <= N <= 32",
        ),
        (
            &["estimate", "12", "--seconds", "-1"],
            "the seconds must be a number above 0 and at most 1000000000",
        ),
        (
            &["estimate", "12", "--seconds", "0"],
            "the seconds must be a number above 0",
        ),
        (
            &["estimate", "12", "--seconds", "1e300"],
            "the seconds must be a number above 0",
        ),
        (
            &["estimate", "12", "--samples", "-1"],
            "'--samples <S>': expected a whole number from 1 to 1048576",
        ),
        (
            &["estimate", "12", "--shards", "-1"],
            "'--shards <K>': expected a whole number from 1 to 16777216",
        ),
        (
            &["estimate", "12", "--seed", "-1"],
            "'--seed <S>': expected a whole number from 0 to 18446744073709551615",
        ),
        (&["count", "8", "--memory", "-1G"], "'-1G' is not a size"),
        (&["merge", "x", "--audit", "-1"], "the audit share must be"),
        (
            &["count", "16", "17", "--checkpoint", "x"],
            "error: --checkpoint takes one board size N, not 16 17: run one command per board",
        ),
        (
            &["count", "8-10", "--shard", "0/2", "--output", "x"],
            "error: --shard takes one board size N, not 8-10",
        ),
        (
            &["count", "8", "--audit", "-1"],
            "'--audit <N>': expected a whole number from 0 to 18446744073709551615: the checkpoint's parts to recount, 0 (trust them) or more",
        ),
        (
            &["count", "8", "--audit", "abc"],
            "'--audit <N>': expected a whole number",
        ),
        (
            &["count", "8", "--shard", "0/ 4", "--output", "x"],
            "'0/ 4' is not a shard: expected I/K",
        ),
        (
            &["count", "8", "-j", " 2"],
            "'--threads <T>': expected a whole number from 1 to 1024",
        ),
    ];
    for (args, needle) in cases {
        let out = nqueens().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            !err.contains("-- -1") && !err.contains("a range A-B"),
            "{args:?}: {err}"
        );
    }
}

/// `merge --partial` of a folder no shard has written to yet: the work is not done (exit 1),
/// where a merge of nothing is bad usage (exit 2).
#[test]
fn a_partial_merge_of_nothing_yet_is_work_not_done() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    for (args, code, message) in [
        (
            &["merge", "--partial", folder][..],
            1,
            "error: merge --partial: no shard results found yet",
        ),
        (
            &["merge", folder],
            2,
            "error: merge: no shard results given",
        ),
    ] {
        let out = nqueens().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// A SIMD loop this CPU lacks is refused with the loops it has.
#[test]
fn a_missing_kernel_names_the_ones_this_cpu_has() {
    let has = nqueens_engine::Kernel::available();
    let Some(missing) = [nqueens_engine::Kernel::Avx512, nqueens_engine::Kernel::Avx2]
        .into_iter()
        .find(|k| !has.contains(k))
    else {
        eprintln!("NOT TESTED HERE: this CPU has every loop");
        return;
    };
    let out = nqueens()
        .args(["count", "8", "--kernel", missing.name()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for k in &has {
        assert!(
            err.contains(&format!("--kernel {}", k.name())),
            "{k}: {err}"
        );
    }
    assert!(
        err.contains("--kernel scalar") && err.contains("--kernel auto"),
        "{err}"
    );
}

/// nqueens' own `error:` lines are coloured on a terminal as clap's are, and plain with
/// NO_COLOR or off a terminal.
#[test]
fn own_errors_are_coloured_on_a_terminal_unless_no_color() {
    if !have_script() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_nqueens");
    let on_terminal = |no_color: Option<&str>| {
        let mut script = std::process::Command::new("script");
        script
            .args([
                "-qfec",
                &format!("{bin} count 8 --split-depth 9"),
                "/dev/null",
            ])
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            script.env("NO_COLOR", v);
        }
        String::from_utf8_lossy(&script.output().unwrap().stdout).into_owned()
    };
    let red = "\x1b[1m\x1b[31merror:\x1b[0m --split-depth 9";
    assert!(on_terminal(None).contains(red), "{:?}", on_terminal(None));
    assert!(
        on_terminal(Some("")).contains(red),
        "an empty NO_COLOR is unset"
    );
    let plain = on_terminal(Some("1"));
    assert!(
        plain.contains("error: --split-depth 9") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let out = nqueens()
        .args(["count", "8", "--split-depth", "9"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: --split-depth 9"));
}

/// `--color always` colours errors (nqueens' own and clap's) even off a terminal and beside
/// NO_COLOR; `--color never` never colours, even on a terminal.
#[test]
fn color_always_and_never_decide_over_the_terminal() {
    for args in [
        &["count", "8", "--split-depth", "9", "--color", "always"][..],
        &["--color=always", "count", "8", "--split-depth", "9"],
    ] {
        let out = nqueens().args(args).env("NO_COLOR", "1").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.starts_with("\x1b[1m\x1b[31merror:\x1b[0m --split-depth 9"),
            "{args:?}: {err:?}"
        );
    }
    let out = nqueens()
        .args(["count", "--bogus", "--color", "ALWAYS"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.contains(&b'\x1b'), "clap's errors too");
    if !have_script() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_nqueens");
    for command in [
        format!("{bin} count 8 --split-depth 9 --color never"),
        format!("{bin} count --bogus --color never"),
    ] {
        let out = std::process::Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("error:") && !text.contains('\x1b'),
            "{command}: {text:?}"
        );
    }
}

/// A `--memory` beyond what the machine holds is refused before any work, naming the flag
/// and the machine's memory, in every command that takes it.
#[test]
fn memory_beyond_the_machine_is_refused() {
    for args in [
        &["count", "8", "--memory", "999T"][..],
        &["estimate", "14", "--memory", "999T"],
        &["verify", "--max-n", "8", "--memory", "999T"],
    ] {
        let out = nqueens().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--memory") && err.contains("999 TiB is more than this machine's memory"),
            "{args:?}: {err}"
        );
        assert!(err.contains("GiB") || err.contains("TiB"), "{err}");
        assert!(out.stdout.is_empty());
    }
    succeeds(&["count", "8", "--memory", "64M"]);
}

/// The README's install lines, as written there, on a fresh account (an empty HOME; the
/// binary cargo builds stands in for `cargo install`): the completions and the man page
/// land where it says, and where `man` is installed, its lines find the page.
#[test]
fn readme_install_lines_work_on_a_fresh_account() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = readme
        .split("```console\n")
        .find(|b| b.contains("nqueens man > "))
        .and_then(|b| b.split("```").next())
        .expect("the README's install block");
    let lines: Vec<&str> = block
        .lines()
        .filter_map(|l| l.strip_prefix("$ "))
        .filter(|l| !l.starts_with("cargo install"))
        .collect();
    let man = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok();
    if !man {
        eprintln!("NOT TESTED HERE: no `man` to read the page with");
    }
    let script: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| man || !l.starts_with("man "))
        .collect();
    assert!(
        script.iter().any(|l| l.starts_with("mkdir -p")) && script.len() >= 4,
        "{lines:?}"
    );
    let home = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_nqueens"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("sh")
        .args(["-ec", &script.join("\n")])
        .env("HOME", home.path())
        .env("PATH", path)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .env_remove("MANPATH")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{script:?}: {err}");
    let share = home.path().join(".local/share");
    let completions =
        std::fs::read_to_string(share.join("bash-completion/completions/nqueens")).unwrap();
    assert!(
        completions.contains("complete -F _nqueens"),
        "{completions}"
    );
    let page = std::fs::read_to_string(share.join("man/man1/nqueens.1")).unwrap();
    assert!(page.starts_with(".TH "), "{page}");
    if man {
        // Each of the README's man lines shows the page.
        let shown = text
            .matches("nqueens - exact counts of N-Queens solutions")
            .count();
        let asked = script.iter().filter(|l| l.starts_with("man ")).count();
        assert!(
            asked >= 2 && shown == asked,
            "{asked} lines, {shown} pages: {text}{err}"
        );
    }
}

/// Runs `sh -c script` with `$0` the nqueens binary: its exit code, stdout and stderr.
fn in_shell(script: &str) -> (Option<i32>, String, String) {
    let out = std::process::Command::new("sh")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn a_result_that_cannot_reach_stdout_fails_with_exit_1() {
    // A closed stdout (Rust's runtime puts /dev/null read-write there): refused up front.
    for script in [
        r#""$0" count 12 >&-"#,
        r#""$0" merge x.json >&-"#,
        r#""$0" verify --max-n 4 >&-"#,
    ] {
        let (code, _, err) = in_shell(script);
        assert_eq!(code, Some(1), "{script}: {err}");
        assert!(err.contains("standard output is closed"), "{script}: {err}");
    }
    // A full device: the write fails, and says so.
    if std::path::Path::new("/dev/full").exists() {
        let (code, _, err) = in_shell(r#""$0" count 12 >/dev/full"#);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("cannot write to standard output"), "{err}");
    }
    // Dropped on purpose: a success, /dev/null opened write-only (a shell) or read-write
    // (Python's subprocess.DEVNULL), as the runtime opens it in a closed stdout's place.
    let (code, _, err) = in_shell(r#""$0" count 12 >/dev/null"#);
    assert_eq!(code, Some(0), "{err}");
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "12"])
        .stdout(null)
        .status()
        .unwrap();
    assert!(status.success());
    // A shard prints nothing on stdout: a closed one is no loss.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let script = format!(
        r#""$0" count 8 --shard 0/1 --output {} >&-"#,
        file.display()
    );
    let (code, _, err) = in_shell(&script);
    assert_eq!(code, Some(0), "{err}");
}

/// `nqueens ARGS` on a terminal `width` columns wide (a pseudo-terminal from util-linux's
/// `script`), `COLUMNS` unset, killed with SIGINT after `seconds`: its exit code and what
/// the terminal showed (its line ends as `\r\n`).
fn on_a_terminal(width: usize, seconds: u32, args: &str) -> (Option<i32>, String) {
    let timed = format!("timeout --preserve-status -s INT {seconds}");
    let out = terminal(width, &timed, args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `nqueens ARGS`, after `wrapper` (a command that runs it, or nothing), on a terminal
/// `width` columns wide: util-linux's `script` on a pseudo-terminal, `COLUMNS` unset.
fn terminal(width: usize, wrapper: &str, args: &str) -> std::process::Command {
    let command = format!(
        "stty rows 24 cols {width}; {wrapper} {} {args}",
        env!("CARGO_BIN_EXE_nqueens")
    );
    let mut script = std::process::Command::new("script");
    script
        .args(["-qfec", &command, "/dev/null"])
        .env_remove("COLUMNS");
    script
}

/// [`on_a_terminal`] that ends two seconds after the terminal first shows `word` (or after
/// `seconds`), the terminal closed under the command: what the terminal showed.
fn on_a_terminal_until(width: usize, seconds: u64, args: &str, word: &str) -> String {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let mut child = terminal(width, "", args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(k @ 1..) = stdout.read(&mut buf) {
            if tx.send(buf[..k].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut shown = Vec::new();
    let mut until = Instant::now() + Duration::from_secs(seconds);
    let mut seen = false;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(bytes) => shown.extend(bytes),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if !seen && String::from_utf8_lossy(&shown).contains(word) {
            seen = true;
            until = until.min(Instant::now() + Duration::from_secs(2));
        }
    }
    // The terminal's end hangs the command up.
    child.kill().unwrap();
    child.wait().unwrap();
    String::from_utf8_lossy(&shown).into_owned()
}

/// Help is wrapped to the terminal between words: every help text fits 80 columns where
/// `COLUMNS` says 80 and on an 80-column terminal, and the top level gives each subcommand
/// one line.
#[test]
fn help_fits_80_columns_with_one_line_summaries() {
    // The columns a line takes: its characters, less the colours' escape sequences.
    let fits = |text: &str, what: &str| {
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            let mut shown = 0;
            let mut chars = line.chars();
            while let Some(c) = chars.next() {
                if c == '\x1b' {
                    chars.by_ref().find(|&c| c == 'm');
                } else {
                    shown += 1;
                }
            }
            assert!(shown <= 80, "{what}: {line:?}");
        }
    };
    for sub in std::iter::once("").chain(crate::SUBCOMMANDS) {
        for flag in ["-h", "--help"] {
            let args: Vec<&str> = [sub, flag].into_iter().filter(|a| !a.is_empty()).collect();
            let out = nqueens().args(&args).env("COLUMNS", "80").output().unwrap();
            assert!(out.status.success(), "{args:?}");
            fits(&String::from_utf8(out.stdout).unwrap(), &args.join(" "));
        }
    }
    let (top, _) = succeeds(&["--help"]);
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.ends_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(listed.len() > 8, "{top}");
    for sub in crate::SUBCOMMANDS {
        let rows = listed
            .iter()
            .filter(|l| l.trim_start().starts_with(sub))
            .count();
        assert_eq!(rows, 1, "{sub}: {listed:?}");
    }
    assert!(
        listed
            .iter()
            .all(|l| l.starts_with("  ") && !l.starts_with("   ")),
        "one line each: {listed:?}"
    );
    if have_script() {
        let (code, text) = on_a_terminal(80, 20, "count --help");
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("--split-depth"), "{text}");
        fits(&text, "count --help on a terminal");
    }
}

/// One rule for paths given to read: missing, or a folder, FIFO or device where a file is
/// asked, is bad input (exit 2) before any work; a file of the wrong content fails (exit 1).
#[test]
fn missing_or_wrong_kind_paths_exit_2_and_wrong_content_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::create_dir(at("folder")).unwrap();
    std::fs::write(at("list.txt"), format!("{}\n", at("nofile.json"))).unwrap();
    std::fs::write(at("folders.txt"), format!("{}\n", at("folder"))).unwrap();
    std::fs::write(at("junk.json"), "not a shard").unwrap();
    let fifo = at("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let cases: [(Vec<String>, i32); 8] = [
        (vec![at("nofile.json")], 2),
        (vec![format!("{}/", at("missing"))], 2),
        (vec!["--list".into(), at("nofile.txt")], 2),
        (vec!["--list".into(), at("list.txt")], 2),
        (vec!["--list".into(), at("folders.txt")], 2),
        (vec!["--list".into(), at("folder")], 2),
        (vec![fifo.clone()], 2),
        (vec![at("junk.json")], 1),
    ];
    for (args, code) in cases {
        let out = nqueens().arg("merge").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "merge {args:?}: {err}");
        assert!(
            err.starts_with("error: ") && out.stdout.is_empty(),
            "{args:?}: {err}"
        );
    }
}

/// A count the per-n table puts past an hour on its threads says so on stderr before it
/// plans, with the hours and what to do; stdout stays empty, and a short count says nothing.
#[test]
fn a_count_past_an_hour_warns_within_seconds() {
    for (n, hours) in [
        ("27", "about 5700 hours on 2 threads"),
        ("30", "hours on 2 threads"),
    ] {
        use std::io::{BufRead, Read};
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
            .args(["count", n, "-j", "2", "--progress", "never"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The first line of stderr, within 3 seconds; the count is then killed.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stderr).read_line(&mut line);
            let _ = tx.send(line);
        });
        let err = rx
            .recv_timeout(std::time::Duration::from_secs(3))
            .unwrap_or_default();
        child.kill().unwrap();
        child.wait().unwrap();
        let mut stdout = Vec::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_end(&mut stdout)
            .unwrap();
        assert!(stdout.is_empty(), "{n}: stdout unchanged");
        let warning = err.lines().next().unwrap_or_default();
        assert!(
            warning.starts_with(&format!("warning: n = {n} takes ")),
            "{err}"
        );
        assert!(warning.contains(hours), "{warning}");
        assert!(
            warning.contains("thread-hours"),
            "the table's rates: {warning}"
        );
        assert!(
            warning.contains("--checkpoint") && warning.contains(&format!("nqueens estimate {n}")),
            "{warning}"
        );
    }
    let (_, err) = succeeds(&["count", "16", "-j", "2"]);
    assert!(!err.contains("warning"), "{err}");
}

/// On an 80-column terminal the bar says the rate is being measured until it is known, and
/// then gives a time from it: never "a few seconds" for a count that has barely begun.
#[test]
fn the_eta_is_measured_before_it_is_given() {
    if !have_script() {
        return;
    }
    // Planning takes seconds on a loaded machine: the window leaves the bar time to show,
    // and ends two seconds after it first shows a prediction.
    let text = on_a_terminal_until(
        80,
        20,
        "count 20 --method search --kernel scalar -j 1",
        "predicted",
    );
    assert!(
        text.contains("measuring") || text.contains("predicted"),
        "{text}"
    );
    assert!(!text.contains("few seconds"), "{text}");
    assert!(
        !text.contains("after the first part"),
        "the rate is measured, not awaited: {text}"
    );
}

/// On a terminal the tables fit 100 columns: what repeats from row to row (the method, the
/// loop, the threads) goes into a line above the rows, again where it changes; off a
/// terminal every column stays in the table.
#[test]
fn tables_fit_100_columns_on_a_terminal() {
    if !have_script() {
        return;
    }
    for args in [
        "count 8-11 --progress never",
        "verify --max-n 11 --progress never",
        "estimate 14 --seconds 1",
    ] {
        let (code, text) = on_a_terminal(100, 60, args);
        assert_eq!(code, Some(0), "{args}: {text}");
        let table: Vec<&str> = text
            .split("\r\n")
            .filter(|l| !l.contains('\x1b') && !l.starts_with("n = "))
            .collect();
        for line in &table {
            assert!(line.chars().count() <= 100, "{args}: {line:?}");
        }
        assert!(
            table
                .iter()
                .any(|l| l.starts_with("method ") || l.starts_with("n 14, method ")),
            "{args}: {text}"
        );
    }
    let (_, count) = on_a_terminal(100, 60, "count 8-11 --progress never");
    assert!(
        count.contains("method join, kernel"),
        "the line again where it changes"
    );
    let (off, _) = succeeds(&["count", "8", "10"]);
    assert!(off.starts_with(" n  ") && off.lines().next().unwrap().contains("method"));
    merge_partial_fits_100_columns_on_a_terminal();
}

/// `merge --partial`'s table (and its quorum's) on a terminal: the board and how it was
/// counted above the row, the missing ranges cut to what fits; off a terminal and in JSON
/// every column and range.
fn merge_partial_fits_100_columns_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (folder, shards) in [("a", &[0, 2, 4, 6, 8, 10, 12, 14, 16][..]), ("b", &[0, 2])] {
        std::fs::create_dir(at(folder)).unwrap();
        for i in shards {
            let output = at(&format!("{folder}/{i}.json"));
            let shard = format!("{i}/40");
            succeeds(&["count", "12", "--shard", &shard, "--output", &output]);
        }
    }
    let missing = "1 3 5 7 9 11 13 15 17-39";
    let partial = format!("merge --partial {}", at("a"));
    let quorum = format!("merge --quorum 2 --partial {} {}", at("a"), at("b"));
    for args in [&partial, &quorum] {
        let (code, text) = on_a_terminal(100, 60, args);
        assert_eq!(code, Some(0), "{args}: {text}");
        // The stderr lines of prose wrap as the terminal does; the table's lines fit.
        let table: Vec<&str> = text
            .split("\r\n")
            .filter(|l| !l.starts_with("partial:") && !l.starts_with("quorum"))
            .collect();
        for line in &table {
            assert!(line.chars().count() <= 100, "{args}: {line:?}");
        }
        assert!(
            table[0].starts_with("n 12, complete false, method join, kernel "),
            "{args}: {text}"
        );
        let row = table.iter().rev().find(|l| !l.trim().is_empty()).unwrap();
        assert!(row.ends_with(" more"), "the ranges cut to fit: {row:?}");
    }
    let (row, _) = succeeds(&["merge", "--partial", &at("a")]);
    let header = row.lines().next().unwrap();
    assert!(
        header.contains(" method ") && header.ends_with("missing"),
        "{row}"
    );
    assert!(row.trim_end().ends_with(missing), "{row}");
    let (v, _) = json(&["merge", "--partial", "--format", "json", &at("a")]);
    assert_eq!(v["missing"], missing);
    assert_eq!(
        (&v["shards"], &v["parts_merged"].is_u64()),
        (&40.into(), &true)
    );
}

/// The lines a terminal `width` columns wide shows once `text` is written to it: characters
/// overwrite, a carriage return goes to the line's start, a line feed down one, a full line
/// wraps, and of the escape sequences the erasing ones (`K`, `J`) and the cursor's moves
/// (`A`, `B`, `G`) act; colours and the rest are ignored.
fn screen(text: &str, width: usize) -> Vec<String> {
    let (mut lines, mut row, mut col) = (vec![Vec::<char>::new()], 0, 0);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => row += 1,
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                let mut params = String::new();
                let end = loop {
                    match chars.next() {
                        Some(p) if !p.is_ascii_alphabetic() => params.push(p),
                        other => break other.unwrap_or('m'),
                    }
                };
                let k: usize = params.parse().unwrap_or(0);
                match end {
                    'K' if k == 2 => lines[row].clear(),
                    'K' => lines[row].truncate(col),
                    'J' => {
                        lines[row].truncate(col);
                        lines.truncate(row + 1);
                    }
                    'A' => row = row.saturating_sub(k.max(1)),
                    'B' => row += k.max(1),
                    'G' => col = k.max(1) - 1,
                    _ => {}
                }
            }
            c if !c.is_control() => {
                if col == width {
                    (row, col) = (row + 1, 0);
                }
                if lines.len() <= row {
                    lines.resize(row + 1, Vec::new());
                }
                let line = &mut lines[row];
                if line.len() <= col {
                    line.resize(col + 1, ' ');
                }
                line[col] = c;
                col += 1;
            }
            _ => {}
        }
        if lines.len() <= row {
            lines.resize(row + 1, Vec::new());
        }
    }
    lines
        .iter()
        .map(|l| l.iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// On an 80-column terminal no progress line is left behind: a resumed count's planning
/// spinner is gone from above its `warning:`, `audit:` and `resuming:` lines (each on a line
/// of its own), and `estimate`'s sampling line shows its bound (`3/4 s`) and is cleared
/// at its end.
#[test]
fn progress_lines_leave_no_trace_on_a_terminal() {
    if !have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("n14.ckpt");
    let ckpt = ckpt.to_str().unwrap();
    succeeds(&["count", "14", "--checkpoint", ckpt]);
    // One record damaged (its counts changed, its checksum not): a warning, and a part to
    // count again.
    let text = std::fs::read_to_string(ckpt).unwrap();
    let damaged = text.replacen("\"solutions\":", "\"solutions\":1", 1);
    assert_ne!(damaged, text);
    std::fs::write(ckpt, damaged).unwrap();
    for (run, told) in [
        (
            "damaged",
            &["warning: checkpoint", "audit: ", "resuming: "][..],
        ),
        ("complete", &["audit: ", "resuming: "][..]),
    ] {
        let (code, raw) = on_a_terminal(80, 120, &format!("count 14 --checkpoint {ckpt}"));
        assert_eq!(code, Some(0), "{run}: {raw}");
        assert!(
            raw.contains("planning"),
            "{run}: the spinner was drawn: {raw:?}"
        );
        let shown = screen(&raw, 80);
        for start in told {
            assert!(
                shown.iter().any(|l| l.starts_with(start)),
                "{run}: {start} on a line of its own: {shown:#?}"
            );
        }
        assert!(
            !shown
                .iter()
                .any(|l| l.contains("planning") || l.contains("s elapsed")),
            "{run}: no progress line stays: {shown:#?}"
        );
        assert!(shown.iter().any(|l| l.starts_with("14 ")), "{shown:#?}");
    }
    let (code, raw) = on_a_terminal(80, 120, "estimate 16 --seconds 4");
    assert_eq!(code, Some(0), "{raw}");
    assert!(
        raw.contains("parts sampled, ") && raw.contains("/4 s (last: part "),
        "the sampling line with its bound: {raw:?}"
    );
    let shown = screen(&raw, 80);
    assert!(
        !shown.iter().any(|l| l.contains("parts sampled")),
        "the sampling line is cleared: {shown:#?}"
    );
    assert!(
        shown.iter().any(|l| l.starts_with("n = 16: about ")),
        "{shown:#?}"
    );
}

/// Small conventions: a format in capitals is the format, and a shard past the last says
/// that shards count from 0.
#[test]
fn formats_take_any_case_and_shards_count_from_0() {
    let (upper, _) = succeeds(&["count", "8", "--format", "JSON"]);
    let (lower, _) = succeeds(&["count", "8", "--format", "json"]);
    let fields =
        |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["solutions"].clone();
    assert_eq!(fields(&upper), fields(&lower));
    let out = nqueens()
        .args(["count", "8", "--shard", "4/4", "--output", "x.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("shards count from 0") && err.contains("0/4 .. 3/4"),
        "{err}"
    );
}
