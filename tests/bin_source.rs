//! The command line's source reads as code, not as a lab notebook: no function over 100 lines,
//! and no comment that quotes a measurement (those live in results/ and in commit messages).

use std::path::PathBuf;

/// The longest a function of the binary may be, its signature and braces included.
const MOST_LINES: usize = 100;

/// Each source file of the binary: its name and its text.
fn sources() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/bin/nqueens");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(
        files.len() > 5,
        "the binary's files are in {}",
        dir.display()
    );
    files
}

/// Whether `line` starts a function (a declaration without a body is let through below).
fn starts_function(line: &str) -> bool {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub ", "const ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.starts_with("fn ")
}

/// Each function of `text` as (first line, name, lines), its braces counted from the line
/// that names it to the one that closes its body.
fn functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !starts_function(line) {
            continue;
        }
        let name = line.split("fn ").nth(1).unwrap_or("");
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened) = (0i64, false);
        for (j, l) in lines.iter().enumerate().skip(i) {
            if !opened && l.trim_end().ends_with(';') {
                break;
            }
            for c in l.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                found.push((i + 1, name.clone(), j - i + 1));
                break;
            }
        }
    }
    found
}

#[test]
fn no_function_is_over_100_lines() {
    let mut long = Vec::new();
    for (file, text) in sources() {
        let all = functions(&text);
        assert!(!all.is_empty(), "{file}: functions found");
        for (line, name, lines) in all {
            if lines > MOST_LINES {
                long.push(format!("{file}:{line} {name}: {lines} lines"));
            }
        }
    }
    assert!(long.is_empty(), "split into named steps: {long:#?}");
}

#[test]
fn the_function_counter_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(MOST_LINES);
    let text = format!("/// A doc.\npub fn long(a: u32) -> u32 {{\n{body}    x\n}}\nfn short();\n");
    assert_eq!(functions(&text), [(2, "long".to_string(), MOST_LINES + 3)]);
}

/// What a measurement history looks like in a comment: a ratio (`1.26x`), a best-of-runs,
/// a timing, a date or the machine it was taken on.
fn quotes_a_measurement(comment: &str) -> Option<&'static str> {
    let bytes = comment.as_bytes();
    let ratio = bytes.iter().enumerate().any(|(i, &b)| {
        b == b'x'
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
    });
    let date = comment.as_bytes().windows(10).any(|w| {
        w.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        }) && w.starts_with(b"20")
    });
    let timing = comment
        .split("took ")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    if ratio {
        Some("a ratio")
    } else if date {
        Some("a date")
    } else if timing {
        Some("a timing")
    } else if comment.contains("least of") || comment.contains("alternated") {
        Some("a best of runs")
    } else if comment.contains("vCPU") || comment.contains("Zen ") {
        Some("the machine measured on")
    } else {
        None
    }
}

#[test]
fn no_comment_quotes_a_measurement() {
    let mut quoted = Vec::new();
    for (file, text) in sources() {
        for (i, line) in text.lines().enumerate() {
            let Some((_, comment)) = line.split_once("//") else {
                continue;
            };
            if let Some(what) = quotes_a_measurement(comment) {
                quoted.push(format!("{file}:{}: {what}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        quoted.is_empty(),
        "one sentence of why, and the figures in results/: {quoted:#?}"
    );
}

#[test]
fn measurements_are_recognised() {
    for comment in [
        "took 1.10x the time",
        "the least of 3 runs",
        "on a 2-vCPU Zen 3",
        "measured on 2026-11-25",
        "it took 93 s",
        "2x faster",
    ] {
        assert!(quotes_a_measurement(comment).is_some(), "{comment}");
    }
    for comment in [
        "the seed 0x5eed",
        "exit 128 + the signal",
        "it took the lock",
        "x8 fundamental",
    ] {
        assert_eq!(quotes_a_measurement(comment), None, "{comment}");
    }
}
