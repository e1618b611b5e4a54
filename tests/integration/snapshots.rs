//! What a user reads, as snapshots: the help of the binary and of every command, the count's
//! table, CSV and JSON, verify's table and the man page, each in a `.snap` file under
//! `snapshots/`. A change to any of them fails here and shows as a diff; `cargo insta review`
//! (or `INSTA_UPDATE=always`) takes the new text once it is meant. Times and the build's
//! version (its commit) are redacted; counts run the scalar loop on 2 threads, so the text is
//! the same on every machine.

use assert_cmd::Command;

/// What nqueens writes to stdout for `args` at 100 columns without colour; it must succeed.
fn output(args: &[&str]) -> String {
    let out = Command::cargo_bin("nqueens")
        .unwrap()
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// `text` against the snapshot `name`, its times (seconds with six digits or more, and the
/// spaces that pad them) and the version with its commit redacted.
fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        filters => vec![
            (r" +\d+\.\d{6,}\b", " [seconds]"),
            (r"\b\d+\.\d{6,}\b", "[seconds]"),
            (r"\b\d+\.\d+\.\d+ \([^)]*\)", "[version]"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn the_help_of_the_binary_and_of_each_command() {
    snapshot("help", &output(&["--help"]));
    for command in crate::SUBCOMMANDS {
        snapshot(&format!("help-{command}"), &output(&[command, "--help"]));
    }
}

/// Counts on the scalar loop and 2 threads, without progress: the same text on every machine.
const SAME_EVERYWHERE: [&str; 6] = ["-j", "2", "--kernel", "scalar", "--progress", "never"];

#[test]
fn the_counts_table_csv_and_json() {
    let count = [&["count", "8-10"][..], &SAME_EVERYWHERE].concat();
    snapshot("count-table", &output(&count));
    for format in ["csv", "json"] {
        let args = [&count[..], &["--format", format]].concat();
        snapshot(&format!("count-{format}"), &output(&args));
    }
}

#[test]
fn the_verify_table() {
    let verify = [&["verify", "--max-n", "9"][..], &SAME_EVERYWHERE].concat();
    snapshot("verify-table", &output(&verify));
}

#[test]
fn the_man_page() {
    snapshot("man", &output(&["man"]));
}
