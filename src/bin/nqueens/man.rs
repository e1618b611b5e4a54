//! The man page, `nqueens man`: one page with every subcommand and option, read from the clap
//! definitions (so it cannot drift from `--help`), and the sections `--help` has no room for:
//! output, exit status, environment, files, examples.

use std::fmt::Write as _;
use std::io::{self, Write};

use clap::Command;
use clap_mangen::Man;

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

/// The page, in roff, for `cmd` (the whole command line, `Cli::command()`). clap_mangen renders
/// the title, the name, the description and every option list; the synopsis (each
/// subcommand's usage), each subcommand's heading and the sections `--help` has no room for are
/// this module's.
pub fn page(mut cmd: Command) -> io::Result<String> {
    cmd.build();
    let version = cmd.get_version().unwrap_or_default().to_string();
    // The name line reads "nqueens - exact counts ...", as man pages' names do.
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    let man = Man::new(
        cmd.clone()
            .about(lowercase_first(&about))
            .long_about(DESCRIPTION),
    );
    let mut page = Page(Vec::new());
    // The title is written here: clap_mangen leaves an empty date unquoted, which shifts the
    // title's other fields. The page opens with it, then defines `\*(Aq` once.
    page.text(|out| {
        let _ = writeln!(
            out,
            ".TH NQUEENS 1 \"\" \"nqueens {}\" \"User Commands\"",
            escape(&version)
        );
        out.push_str(APOSTROPHE);
    });
    page.mangen(|w| man.render_name_section(w))?;
    let commands: Vec<&Command> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .collect();
    page.text(|out| {
        section(out, "SYNOPSIS");
        for (i, sub) in commands.iter().enumerate() {
            if i > 0 {
                out.push_str(".br\n");
            }
            let _ = writeln!(out, "{}", usage(sub));
        }
        out.push_str(".br\n\\fBnqueens\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n");
    });
    page.mangen(|w| man.render_description_section(w))?;
    // --help and --version: once, here, though every subcommand takes them.
    page.mangen(|w| man.render_options_section(w))?;
    page.text(|out| section(out, "COMMANDS"));
    for sub in commands {
        page.text(|out| {
            let _ = writeln!(out, ".SS \"nqueens {}\"", escape(sub.get_name()));
            let about = sub.get_long_about().or(sub.get_about());
            paragraphs(out, &about.map(|a| a.to_string()).unwrap_or_default());
        });
        // A subcommand's options but --help and --version, under its heading rather than
        // in a section of their own.
        let own = Man::new(
            sub.clone()
                .mut_arg("help", |a| a.hide(true))
                .mut_arg("version", |a| a.hide(true)),
        );
        page.mangen_under(".SH OPTIONS\n", |w| own.render_options_section(w))?;
    }
    page.text(extra_sections);
    // Every part is written from `String`s and clap's own text: UTF-8.
    Ok(String::from_utf8_lossy(&page.0).into_owned())
}

/// The definition of `\*(Aq` (an apostrophe that stays one) that every clap_mangen rendering
/// opens with: the page has it once, after its title.
const APOSTROPHE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// The roff of the page, written in parts.
struct Page(Vec<u8>);

impl Page {
    /// Appends what `write` puts in a string.
    fn text(&mut self, write: impl FnOnce(&mut String)) {
        let mut out = String::new();
        write(&mut out);
        self.0.extend_from_slice(out.as_bytes());
    }

    /// Appends what clap_mangen's `render` writes, less the definition the page opens with.
    fn mangen(&mut self, render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        self.mangen_under("", render)
    }

    /// [`Page::mangen`] less the section `heading` the part opens with too: the part goes
    /// under the page's own heading.
    fn mangen_under(
        &mut self,
        heading: &str,
        render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut out = Vec::new();
        render(&mut out)?;
        let part = out.strip_prefix(APOSTROPHE.as_bytes()).unwrap_or(&out);
        let part = part.strip_prefix(heading.as_bytes()).unwrap_or(part);
        self.0.extend_from_slice(part);
        Ok(())
    }
}

/// The sections `--help` has no room for: output, exit status, environment, files, examples.
fn extra_sections(out: &mut String) {
    section(out, "OUTPUT");
    paragraphs(
        out,
        "count, verify and merge write a table (the default), JSON Lines (--format json) or CSV \
         (--format csv, with the values JSON gives; only the table rounds), one row per board as \
         it finishes. The columns of count and merge:",
    );
    list(out, OUTPUT, false);
    out.push_str(".PP\n");
    paragraphs(
        out,
        "verify writes n, computed, published, computed_unique, published_unique, ok (true or \
         false), method, kernel and elapsed_s. solve writes boards, a LeetCode-style JSON array, columns, JSON \
         Lines or one SVG picture of numbered boards (its --format).",
    );
    out.push_str(".PP\n");
    paragraphs(
        out,
        "bench writes, in the same three formats, one row per board and thread count and a score \
         row per thread count: workload (its name: scores compare only under the same one), row \
         (board or score), n, method, threads, solutions, elapsed_s (planning included; the sum \
         on a score row), cpu_s (CPU seconds of all threads: below elapsed_s times threads where \
         threads waited for a core), solutions_per_s (on a score row the geometric mean of the \
         boards' rates: the score), speedup and efficiency (against the same row at 1 thread), \
         kernel, isa and cpu. A summary of the scores goes to standard error.",
    );
    section(out, "EXIT STATUS");
    list(out, EXIT_STATUS, true);
    section(out, "ENVIRONMENT");
    list(out, ENVIRONMENT, true);
    section(out, "FILES");
    list(out, FILES, true);
    section(out, "EXAMPLES");
    list(out, EXAMPLES, true);
    section(out, "SEE ALSO");
    paragraphs(
        out,
        "The README of the source tree (how it counts, long runs on a cluster, measured speed) and \
         ARCHITECTURE.md (how the code is laid out). OEIS A000170 and A002562.",
    );
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
        let page = page(Cli::command()).unwrap();
        let mut cmd = Cli::command();
        cmd.build();
        for sub in cmd.get_subcommands().filter(|c| c.get_name() != "help") {
            let name = sub.get_name();
            assert!(page.contains(&format!(".SS \"nqueens {name}\"")), "{name}");
            let own = sub.get_arguments().filter(|a| {
                !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str())
            });
            for arg in own {
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
        let sections = [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "COMMANDS",
            "OUTPUT",
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
            "EXAMPLES",
            "SEE ALSO",
        ];
        for section in sections {
            // clap_mangen's headings are bare, this module's quoted.
            let bare = format!(".SH {section}\n");
            let quoted = format!(".SH \"{section}\"\n");
            assert!(page.contains(&bare) || page.contains(&quoted), "{section}");
        }
        assert!(!page.contains("(1)"), "no pages of subcommands exist");
        assert!(page.contains("[default: 14]"), "defaults are shown");
        assert!(
            !page.contains("[default: false]"),
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
