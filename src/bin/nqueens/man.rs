//! The man page, `nqueens man`: one page with every subcommand and option, read from the clap
//! definitions (so it cannot drift from `--help`), and the sections `--help` has no room for:
//! output, exit status, environment, files, examples.

use std::fmt::Write as _;

use clap::{Arg, Command};

/// What the page says about the whole program, after its name.
const DESCRIPTION: &str = "\
nqueens counts the solutions of the N-Queens problem exactly (OEIS A000170) and, with full \
symmetry, the fundamental solutions, up to rotation and reflection (OEIS A002562), on every core. \
It cuts a board into independent parts and counts each with one of two methods: search \
(backtracking to the leaves, in a scalar loop or in AVX2 or AVX-512 lanes) or join (the board cut \
down the middle, its left and right half-boards matched by diagonals). Every method and every loop \
gives the same counts; counts are exact at every size.

It also lists the solutions in lexicographic order (solve), checks itself against the published \
values (verify), rates the machine with a fixed, versioned workload (bench), and carries runs \
that last hours: progress weighted by each part's estimated cost, a checkpoint to resume from, \
and shards for a cluster that merge adds up.

Results go to standard output; progress, notes and errors to standard error, in colour only when \
it is a terminal and NO_COLOR is not set (--color always or never decides instead).";

/// The columns of `count` and `merge`.
const OUTPUT: &[(&str, &str)] = &[
    ("n", "The board size."),
    ("solutions", "All solutions, exact."),
    (
        "unique",
        "Fundamental solutions, counted with --symmetry full only (null in JSON, empty in CSV, - in the table otherwise).",
    ),
    (
        "method",
        "The method that counted the board: search or join (--method auto resolved for the board).",
    ),
    (
        "kernel",
        "The counting loop that ran, resolved for the CPU: scalar, avx2 or avx512 (the join's matcher follows it too); mixed where merge adds up shards that ran different loops.",
    ),
    (
        "threads",
        "The threads that counted (1 for a search at split depth 0).",
    ),
    (
        "split_depth",
        "The rows the search placed before splitting; not used where the join ran (null, empty, -).",
    ),
    ("symmetry", "The symmetry mode."),
    (
        "subproblems",
        "The parts the board was cut into (the search's subproblems or the join's keys).",
    ),
    (
        "elapsed_s",
        "Wall-clock seconds, planning included; for merge, the longest shard's.",
    ),
];

const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success; also when the reader of standard output stops early (nqueens solve 16 | head).",
    ),
    (
        "1",
        "A failed check or failed work: verify or bench found a count that differs from the published value; merge refused the shards (missing, duplicate, overlapping, changed, of another configuration or version), its audit found a difference, or under --quorum the runs disagree on a part or leave parts without a quorum; a checkpoint in use by another run or made for another board; a file that could not be read or written.",
    ),
    (
        "2",
        "Bad input, with a message naming the argument and what it allows (a misspelt subcommand or flag gets a suggestion); also nqueens without arguments, which prints the usage.",
    ),
    (
        "129, 130, 143",
        "Interrupted by SIGHUP, SIGINT (Ctrl-C) or SIGTERM. With --checkpoint the checkpoint is synced first: the same command resumes. A shard's result already written whole is put in place first.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "When set to anything but the empty string, messages on standard error are not coloured, unless --color always says so.",
    ),
    (
        "RAYON_NUM_THREADS",
        "Has no effect: every thread of a command comes from -j (its default: one per logical CPU, at most 1024).",
    ),
    (
        "XDG_CACHE_HOME, HOME",
        "A shard's rescue file, where its --output and the folder beside it cannot take it, is kept in $XDG_CACHE_HOME/nqueens/rescue (else $HOME/.cache/nqueens/rescue), a folder of mode 0700 that no other user may write.",
    ),
    (
        "NQUEENS_LANE_FRAME",
        "For measurements only (scripts/frames.sh): forces the SIMD lanes' stack frame, open, open-rd or open-rd-ld. The counts do not change.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "--checkpoint FILE",
        "JSON Lines: a header naming what is counted (nqueens version, method, board, symmetry, split depth and a fingerprint of the plan), then one record per finished part with its counts, their residues modulo 65521 and 65519 and a checksum. Appended and synced in batches; locked while a run uses it. A file made for anything else is refused.",
    ),
    (
        "--output FILE",
        "The result of one --shard, JSON: its parts' counts, their sums and residues, the host and run that counted them and a BLAKE3 digest, for merge. Written to a temporary file beside FILE, synced and renamed over it at the end. Where FILE cannot take it, kept in FILE.rescue (only in a folder no other user may write) or in the rescue folder (ENVIRONMENT), else written to standard output.",
    ),
];

const EXAMPLES: &[(&str, &str)] = &[
    (
        "nqueens count 16",
        "Count the 16-queens solutions on every core.",
    ),
    (
        "nqueens count 1-12 --format csv",
        "Boards 1 to 12, one CSV row each.",
    ),
    (
        "nqueens count 17 --method search --kernel scalar -j 1",
        "The search in the scalar loop on one thread.",
    ),
    (
        "nqueens verify --max-n 17",
        "Count n = 0 to 17 and compare with the published values.",
    ),
    (
        "nqueens solve 8 --unique --format columns",
        "The 12 fundamental solutions of the 8-queens board, one line each.",
    ),
    (
        "nqueens solve 8 --unique --format svg > boards.svg",
        "The same as one picture: a grid of 12 numbered boards, for a slide.",
    ),
    (
        "nqueens bench --format csv > bench.csv",
        "Rate this machine: workload v1 (search 16, search 17, join 17, join 18, join 19; about a minute on 2 cores) at 1, 2, 4, ... threads up to the logical CPUs; --quick takes seconds.",
    ),
    (
        "nqueens count 20 --checkpoint n20.ckpt --progress always",
        "A long count that the same command resumes after Ctrl-C or a crash.",
    ),
    (
        "nqueens count 19 --shard 3/16 --output n19-3.json",
        "Part 3 of 16 (run the other 15 elsewhere), then: nqueens merge --audit 1 n19-*.json",
    ),
    (
        "nqueens merge --quorum 2 hostA/ hostB/",
        "Two hosts' shard folders of one board, sliced as each liked: the total where both counted every part alike, else every part on which they differ.",
    ),
];

/// The page, in roff, for `cmd` (the whole command line, `Cli::command()`).
pub fn page(mut cmd: Command) -> String {
    cmd.build();
    let mut out = String::new();
    let version = cmd.get_version().unwrap_or_default().to_string();
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    let _ = writeln!(
        out,
        ".TH NQUEENS 1 \"\" \"nqueens {}\" \"User Commands\"",
        escape(&version)
    );
    section(&mut out, "NAME");
    let _ = writeln!(out, "nqueens \\- {}", escape(&lowercase_first(&about)));
    section(&mut out, "SYNOPSIS");
    let commands: Vec<&Command> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .collect();
    for (i, sub) in commands.iter().enumerate() {
        if i > 0 {
            out.push_str(".br\n");
        }
        let _ = writeln!(out, "{}", usage(sub));
    }
    out.push_str(".br\n\\fBnqueens\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n");
    section(&mut out, "DESCRIPTION");
    paragraphs(&mut out, DESCRIPTION);
    // --help and --version: once, here, though every subcommand takes them.
    section(&mut out, "OPTIONS");
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        option(&mut out, arg);
    }
    section(&mut out, "COMMANDS");
    for sub in commands {
        let _ = writeln!(out, ".SS \"nqueens {}\"", escape(sub.get_name()));
        let about = sub.get_long_about().or(sub.get_about());
        paragraphs(&mut out, &about.map(|a| a.to_string()).unwrap_or_default());
        for arg in own_arguments(sub) {
            option(&mut out, arg);
        }
    }
    section(&mut out, "OUTPUT");
    paragraphs(
        &mut out,
        "count, verify and merge write a table (the default), JSON Lines (--format json) or CSV \
         (--format csv, with the values JSON gives; only the table rounds), one row per board as \
         it finishes. The columns of count and merge:",
    );
    list(&mut out, OUTPUT, false);
    out.push_str(".PP\n");
    paragraphs(
        &mut out,
        "verify writes n, computed, published, computed_unique, published_unique, ok (true or \
         false), method, kernel and elapsed_s. solve writes boards, a LeetCode-style JSON array, columns, JSON \
         Lines or one SVG picture of numbered boards (its --format).",
    );
    out.push_str(".PP\n");
    paragraphs(
        &mut out,
        "bench writes, in the same three formats, one row per board and thread count and a score \
         row per thread count: workload (its name: scores compare only under the same one), row \
         (board or score), n, method, threads, solutions, elapsed_s (planning included; the sum \
         on a score row), cpu_s (CPU seconds of all threads: below elapsed_s times threads where \
         threads waited for a core), solutions_per_s (on a score row the geometric mean of the \
         boards' rates: the score), speedup and efficiency (against the same row at 1 thread), \
         kernel, isa and cpu. A summary of the scores goes to standard error.",
    );
    section(&mut out, "EXIT STATUS");
    list(&mut out, EXIT_STATUS, true);
    section(&mut out, "ENVIRONMENT");
    list(&mut out, ENVIRONMENT, true);
    section(&mut out, "FILES");
    list(&mut out, FILES, true);
    section(&mut out, "EXAMPLES");
    list(&mut out, EXAMPLES, true);
    section(&mut out, "SEE ALSO");
    paragraphs(
        &mut out,
        "The README of the source tree (how it counts, long runs on a cluster, measured speed) and \
         ARCHITECTURE.md (how the code is laid out). OEIS A000170 and A002562.",
    );
    out
}

/// A subcommand's arguments but --help and --version (the page shows those once).
fn own_arguments(sub: &Command) -> impl Iterator<Item = &Arg> {
    sub.get_arguments()
        .filter(|a| !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str()))
}

fn section(out: &mut String, name: &str) {
    let _ = writeln!(out, ".SH \"{name}\"");
}

/// Text in paragraphs, separated by blank lines in `text`.
fn paragraphs(out: &mut String, text: &str) {
    for (i, p) in text.split("\n\n").enumerate() {
        if i > 0 {
            out.push_str(".PP\n");
        }
        let _ = writeln!(
            out,
            "{}",
            escape(&p.split_whitespace().collect::<Vec<_>>().join(" "))
        );
    }
}

/// Tagged paragraphs: each term (bold when `bold`) and what it means.
fn list(out: &mut String, items: &[(&str, &str)], bold: bool) {
    for (term, meaning) in items {
        let term = escape(term);
        let term = if bold {
            format!("\\fB{term}\\fR")
        } else {
            term
        };
        let _ = writeln!(out, ".TP\n{term}\n{}", escape(meaning));
    }
}

/// A subcommand's synopsis: its name in bold, then its arguments as its usage has them.
fn usage(sub: &Command) -> String {
    let text = sub.clone().render_usage().to_string();
    let text = text.trim_start_matches("Usage:").trim();
    let name = format!("nqueens {}", sub.get_name());
    let rest = text.strip_prefix(&name).unwrap_or(text).trim();
    format!("\\fB{}\\fR {}", escape(&name), escape(rest))
}

/// One option or positional argument: its flags and value, its help, its choices, its default.
fn option(out: &mut String, arg: &Arg) {
    let value = arg
        .get_value_names()
        .and_then(|v| v.first())
        .map(|v| v.to_string())
        .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    let mut head = Vec::new();
    if let Some(short) = arg.get_short() {
        head.push(format!("\\fB\\-{}\\fR", escape(&short.to_string())));
    }
    if let Some(long) = arg.get_long() {
        head.push(format!("\\fB\\-\\-{}\\fR", escape(long)));
    }
    let head = if arg.is_positional() {
        format!("\\fI{}\\fR", escape(&value))
    } else if takes_value {
        format!("{} \\fI{}\\fR", head.join(", "), escape(&value))
    } else {
        head.join(", ")
    };
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let _ = writeln!(out, ".TP\n{head}");
    paragraphs(out, &help);
    let choices: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if !choices.is_empty() {
        out.push_str(".RS\n");
        for v in &choices {
            let help = v.get_help().map(|h| h.to_string());
            let _ = writeln!(
                out,
                ".TP\n\\fB{}\\fR\n{}",
                escape(v.get_name()),
                escape(help.as_deref().unwrap_or(""))
            );
        }
        out.push_str(".RE\n");
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && takes_value && !arg.is_positional() {
        let _ = writeln!(out, ".IP\nDefault: {}.", escape(&defaults.join(", ")));
    }
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// Text made safe for roff: backslashes escaped, hyphens as minus signs (so that options
/// copied from the page work), and a line that would start with a control character guarded.
fn escape(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    /// Every subcommand and every option `--help` shows is on the page, with the sections a
    /// man page is read for, and no reference to pages that do not exist.
    #[test]
    fn the_page_has_every_subcommand_and_option() {
        let page = page(Cli::command());
        let mut cmd = Cli::command();
        cmd.build();
        for sub in cmd.get_subcommands().filter(|c| c.get_name() != "help") {
            let name = sub.get_name();
            assert!(page.contains(&format!(".SS \"nqueens {name}\"")), "{name}");
            for arg in own_arguments(sub) {
                if let Some(long) = arg.get_long() {
                    let flag = format!("\\fB\\-\\-{}\\fR", escape(long));
                    let at = page.find(&format!(".SS \"nqueens {name}\"")).unwrap();
                    assert!(page[at..].contains(&flag), "{name} --{long}");
                }
                for v in arg.get_possible_values() {
                    assert!(
                        page.contains(&escape(v.get_name())),
                        "{name} {}",
                        v.get_name()
                    );
                }
            }
        }
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OUTPUT"] {
            assert!(page.contains(&format!(".SH \"{section}\"")), "{section}");
        }
        for section in [
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(page.contains(&format!(".SH \"{section}\"")), "{section}");
        }
        assert!(!page.contains("(1)"), "no pages of subcommands exist");
        assert!(page.contains("Default: 14."), "defaults are shown");
        assert!(
            !page.contains("Default: false."),
            "flags have no default to show"
        );
        assert_eq!(
            page.matches("\\fB\\-\\-version\\fR").count(),
            2,
            "in the synopsis and once as an option"
        );
    }

    /// The example of `bench` names the boards of the workload it runs.
    #[test]
    fn the_bench_example_lists_the_workloads_boards() {
        let bench = EXAMPLES
            .iter()
            .find(|(command, _)| command.starts_with("nqueens bench"))
            .expect("an example of bench");
        let listed = format!(
            "workload v1 ({}",
            nqueens_engine::bench::Workload::V1.boards()
        );
        assert!(bench.1.contains(&listed), "{}", bench.1);
    }

    #[test]
    fn roff_control_characters_are_escaped() {
        assert_eq!(escape("--split-depth"), "\\-\\-split\\-depth");
        assert_eq!(escape(".hidden"), "\\&.hidden");
        assert_eq!(escape("a\\b"), "a\\eb");
    }
}
