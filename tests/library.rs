//! The library without the command line: a crate that depends on nqueens-engine with
//! `default-features = false` builds none of the binary's crates.

use std::process::Command;

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
