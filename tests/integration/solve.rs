//! Listing solutions: valid, distinct, complete, in lexicographic order, whatever the threads.

use std::io::Read;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::{Command as Std, Stdio};

use assert_cmd::Command;
use nqueens_engine::solve::board::is_solution;
use nqueens_engine::solve::{FEW, ListOptions, for_each_solution};
use nqueens_engine::{Kernel, published};

use crate::oracle;

fn list(n: u32, threads: usize, unique: bool, limit: Option<u64>) -> Vec<Vec<u8>> {
    list_with(n, threads, unique, limit, Kernel::Auto)
}

fn list_with(
    n: u32,
    threads: usize,
    unique: bool,
    limit: Option<u64>,
    kernel: Kernel,
) -> Vec<Vec<u8>> {
    let options = ListOptions {
        threads: NonZeroUsize::new(threads),
        unique,
        limit,
        kernel,
    };
    let mut out = Vec::new();
    let seen = for_each_solution(n, &options, |cols| {
        out.push(cols.to_vec());
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(seen as usize, out.len());
    out
}

fn strictly_increasing(xs: &[Vec<u8>]) -> bool {
    xs.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn every_solution_listed_once_valid_and_in_order() {
    // The default loop, and the scalar one on its own (the default falls back to it only for
    // small subtrees on a CPU with SIMD lanes).
    for (threads, kernel) in [1, 2, 4]
        .into_iter()
        .flat_map(|t| [(t, Kernel::Auto), (t, Kernel::Scalar)])
    {
        for n in 0..=10u32 {
            let xs = list_with(n, threads, false, None, kernel);
            assert_eq!(
                Some(xs.len() as u128),
                published::all(n),
                "n={n} -j{threads}"
            );
            assert!(
                xs.iter().all(|x| x.len() == n as usize && is_solution(x)),
                "n={n}"
            );
            assert!(
                strictly_increasing(&xs),
                "lexicographic and distinct, n={n} -j{threads}"
            );
            assert_eq!(
                xs,
                oracle::solutions(n as usize),
                "same as the naive solver, n={n}"
            );
        }
    }
}

#[test]
fn the_loops_list_the_same_solutions() {
    let loops: Vec<Kernel> = [Kernel::Avx512, Kernel::Avx2]
        .into_iter()
        .filter(|k| k.resolve().is_ok())
        .collect();
    if loops.is_empty() {
        oracle::untested("this CPU has no SIMD lanes: only the scalar loop lists");
        return;
    }
    // Whole listings, then the first solutions of large boards, where the lanes keep more
    // in each frame (more than `FEW`: fewer are listed by the scalar loop alone).
    let cases = [
        (11, None),
        (12, None),
        (13, None),
        (20, Some(FEW + 2000)),
        (27, Some(FEW + 300)),
    ];
    for (n, limit) in cases {
        for unique in [false, true] {
            let scalar = list_with(n, 2, unique, limit, Kernel::Scalar);
            assert!(!scalar.is_empty());
            for &k in &loops {
                let lanes = list_with(n, 2, unique, limit, k);
                assert!(scalar == lanes, "n={n} unique={unique} limit={limit:?} {k}");
            }
        }
    }
}

#[test]
fn unique_lists_one_smallest_image_per_class() {
    for threads in [1, 3] {
        for n in 1..=10u32 {
            let xs = list(n, threads, true, None);
            assert_eq!(
                Some(xs.len() as u128),
                published::fundamental(n),
                "n={n} -j{threads}"
            );
            assert!(strictly_increasing(&xs), "n={n}");
            for x in &xs {
                assert!(is_solution(x));
                assert_eq!(
                    oracle::images(x).iter().min(),
                    Some(x),
                    "smallest of its images, n={n}"
                );
            }
            let mut classes: Vec<Vec<u8>> = xs
                .iter()
                .map(|x| oracle::images(x).into_iter().min().unwrap())
                .collect();
            classes.sort();
            classes.dedup();
            assert_eq!(classes.len(), xs.len(), "no two equivalent, n={n}");
        }
    }
}

#[test]
fn limit_takes_the_first_in_order() {
    let all = list(10, 2, false, None);
    for k in [0, 1, 5, 100, 724, 1000] {
        let some = list(10, 2, false, Some(k));
        assert_eq!(some, all[..(k as usize).min(all.len())], "--limit {k}");
    }
    // Up to `FEW` the first solutions are searched on the caller's thread, past it by the
    // pool: both give the first in order, of all solutions and of one per class.
    for unique in [false, true] {
        let all = list(13, 2, unique, None);
        for k in [1, 7, FEW - 1, FEW, FEW + 1, 2 * FEW] {
            let some = list(13, 2, unique, Some(k));
            assert_eq!(some, all[..k as usize], "--limit {k} unique={unique}");
        }
    }
    // Small boards whole: every solution (at most 352, up to n = 9) by both.
    for n in 0..=9 {
        let all = list(n, 2, false, None);
        assert_eq!(list(n, 1, false, Some(FEW)), all, "n = {n}");
    }
    let big = list(24, 2, false, Some(3));
    assert_eq!(big.len(), 3);
    assert!(big.iter().all(|x| is_solution(x)) && strictly_increasing(&big));
    assert_eq!(
        big,
        oracle::first_solutions(24, 3),
        "the first three in order"
    );
}

fn solve(args: &[&str]) -> String {
    let out = Command::cargo_bin("nqueens")
        .unwrap()
        .arg("solve")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn leetcode_text_is_exact() {
    assert_eq!(solve(&["1", "--format", "leetcode"]), "[[\"Q\"]]\n");
    assert_eq!(
        solve(&["4", "--format", "leetcode"]),
        "[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]]\n"
    );
    assert_eq!(solve(&["3", "--format", "leetcode"]), "[]\n");
}

#[test]
fn board_columns_and_json_formats() {
    assert_eq!(
        solve(&["4"]),
        ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n"
    );
    assert_eq!(solve(&["4", "--format", "columns"]), "1 3 0 2\n2 0 3 1\n");
    assert_eq!(
        solve(&["4", "--format", "json"]),
        "{\"n\":4,\"columns\":[1,3,0,2]}\n{\"n\":4,\"columns\":[2,0,3,1]}\n"
    );
    let text = solve(&["8", "--format", "columns", "-j", "2"]);
    let rows: Vec<Vec<u8>> = text
        .lines()
        .map(|l| l.split(' ').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows, oracle::solutions(8));
    let unique = solve(&["8", "--unique", "--format", "json"]);
    assert_eq!(unique.lines().count(), 12);
}

#[test]
fn solve_rejects_bad_input_like_count() {
    for (args, needle) in [
        (&["33"][..], "between 0 and 32"),
        (&["-1"], "between 0 and 32"),
        (&["8", "--format", "x"], "--format"),
        (&["8", "--limit", "-2"], "--limit"),
    ] {
        let out = Command::cargo_bin("nqueens")
            .unwrap()
            .arg("solve")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}"
        );
    }
}

/// The first solution of the largest board comes in a fraction of a second, where batches of
/// subproblems handed to the pool took many seconds. The bound leaves room for a loaded machine.
#[test]
fn the_first_solution_of_n_32_comes_at_once() {
    let start = std::time::Instant::now();
    let first = solve(&["32", "--limit", "1", "--format", "columns"]);
    let cols: Vec<u8> = first
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .collect();
    assert!(is_solution(&cols) && cols.len() == 32, "{first}");
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["solve", "16"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // stdout is dropped here: the reader has gone, as with `| head`.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "exit {:?}", out.status.code());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What an SVG picture of boards holds, read back by an XML parser: the picture's size, and
/// for each board its corner, its queens' squares (the column of the queen in each row) and
/// its label.
struct Picture {
    width: usize,
    height: usize,
    title: String,
    boards: Vec<((usize, usize), Vec<u8>, String)>,
}

fn parse_svg(text: &str, n: usize) -> Picture {
    use quick_xml::events::Event;
    let square = nqueens_engine::solve::board::SVG_SQUARE;
    let number = |e: &quick_xml::events::BytesStart, name: &str| -> usize {
        let a = e.try_get_attribute(name).unwrap().unwrap();
        a.value.parse().unwrap()
    };
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut picture = Picture {
        width: 0,
        height: 0,
        title: String::new(),
        boards: Vec::new(),
    };
    let mut queens: Vec<(usize, usize)> = Vec::new();
    let (mut stack, mut text_of) = (Vec::<String>::new(), String::new());
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let opens = matches!(event, Event::Start(_));
        match event {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.name().as_ref().to_string();
                let href = e
                    .try_get_attribute("xlink:href")
                    .unwrap()
                    .map(|a| a.value.into_owned());
                match (name.as_str(), href.as_deref()) {
                    ("svg", _) => {
                        picture.width = number(&e, "width");
                        picture.height = number(&e, "height");
                    }
                    ("use", Some("#board")) => {
                        let corner = (number(&e, "x"), number(&e, "y"));
                        picture.boards.push((corner, Vec::new(), String::new()));
                        queens.clear();
                    }
                    ("use", Some("#q")) => {
                        let (x0, y0) = picture.boards.last().expect("a queen on a board").0;
                        let (x, y) = (number(&e, "x") - x0, number(&e, "y") - y0);
                        assert_eq!((x % square, y % square), (0, 0), "on a square");
                        queens.push((y / square, x / square));
                    }
                    ("use", other) => panic!("a <use> of {other:?}"),
                    _ => {}
                }
                if opens {
                    stack.push(name);
                    text_of.clear();
                }
            }
            Event::Text(t) => text_of.push_str(&t.xml10_content()),
            Event::End(_) => {
                match stack.pop().as_deref() {
                    Some("title") => picture.title = text_of.clone(),
                    Some("text") if !picture.boards.is_empty() => {
                        picture.boards.last_mut().unwrap().2 = text_of.clone()
                    }
                    Some("g")
                        if stack.is_empty() || stack.last().map(String::as_str) == Some("svg") =>
                    {
                        if let Some(board) = picture.boards.last_mut()
                            && board.1.is_empty()
                        {
                            // One queen per row, rows in order.
                            queens.sort();
                            assert_eq!(queens.len(), n, "one queen per row");
                            assert!(queens.iter().enumerate().all(|(i, &(r, _))| i == r));
                            board.1 = queens.iter().map(|&(_, c)| c as u8).collect();
                        }
                    }
                    _ => {}
                }
                text_of.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    picture
}

#[test]
fn svg_draws_every_listed_solution_numbered_in_one_valid_picture() {
    let square = nqueens_engine::solve::board::SVG_SQUARE;
    for (n, args, expected, title) in [
        (
            8,
            &["--unique"][..],
            list(8, 2, true, None),
            "8 queens: the 12 fundamental solutions (one per class of rotations and reflections)",
        ),
        (
            6,
            &[][..],
            list(6, 2, false, None),
            "6 queens: all 4 solutions",
        ),
        (
            10,
            &["--limit", "7"][..],
            list(10, 2, false, Some(7)),
            "10 queens: the first 7 solutions",
        ),
        (3, &[][..], Vec::new(), "3 queens: no solutions"),
    ] {
        let mut all = vec![n.to_string(), "--format".into(), "svg".into()];
        all.extend(args.iter().map(|a| a.to_string()));
        let text = solve(&all.iter().map(String::as_str).collect::<Vec<_>>());
        let picture = parse_svg(&text, n);
        assert_eq!(picture.title, title, "n={n}");
        let drawn: Vec<Vec<u8>> = picture.boards.iter().map(|b| b.1.clone()).collect();
        assert_eq!(drawn, expected, "n={n} {args:?}: the boards, in order");
        let side = n * square;
        for (i, ((x, y), _, label)) in picture.boards.iter().enumerate() {
            assert_eq!(label, &(i + 1).to_string(), "numbered in order");
            assert!(
                x + side <= picture.width && y + side <= picture.height,
                "inside"
            );
        }
        // No two boards overlap.
        for (i, a) in picture.boards.iter().enumerate() {
            for b in &picture.boards[..i] {
                let apart = |p: usize, q: usize| p.abs_diff(q) >= side;
                assert!(apart(a.0.0, b.0.0) || apart(a.0.1, b.0.1), "n={n}: overlap");
            }
        }
    }
}

/// `solve` with `args`, run until it ends or for `seconds` at most (then killed): its exit
/// code (`None` where it was killed), stdout and stderr.
fn solve_within(args: &[&str], seconds: u64) -> (Option<i32>, String, String) {
    let child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("solve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read to the end on a thread of its own, so that a large output is never stuck in the pipe.
    let pid = child.id().to_string();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || send.send(child.wait_with_output().unwrap()));
    let timeout = std::time::Duration::from_secs(seconds);
    let (code, out) = match receive.recv_timeout(timeout) {
        Ok(out) => (out.status.code(), out),
        Err(_) => {
            Std::new("kill").args(["-KILL", &pid]).status().unwrap();
            (None, receive.recv().unwrap())
        }
    };
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (code, text(out.stdout), text(out.stderr))
}

/// A picture of more boards than one SVG draws is refused at once, naming `--limit`, rather
/// than gathered for minutes; one with a `--limit` is drawn at once.
#[test]
fn svg_refuses_at_once_what_is_too_large_to_draw() {
    for args in [
        &["16", "--format", "svg"][..],
        &["20", "--format", "svg"],
        &["13", "--unique", "--format", "svg"],
        &["20", "--format", "svg", "--limit", "10001"],
    ] {
        let (code, out, err) = solve_within(args, 10);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(
            err.starts_with("error: ") && err.contains("--limit") && err.contains("10000"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let (code, out, err) = solve_within(&["20", "--format", "svg", "--limit", "3"], 10);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(parse_svg(&out, 20).boards.len(), 3);
    // The largest boards drawn whole.
    let (code, out, err) = solve_within(&["12", "--unique", "--format", "svg"], 60);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        parse_svg(&out, 12).boards.len() as u128,
        published::fundamental(12).unwrap()
    );
}

/// A listing that will not end soon says so on stderr, and how to take the first few.
#[test]
fn an_endless_listing_says_how_to_take_the_first_few() {
    use std::io::BufRead;
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["solve", "30", "--format", "columns"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.split_whitespace().count(), 30, "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with("note: listing every solution for n = 30 will not end soon")
            && err.contains("--limit K lists the first K")
            && err.lines().count() == 1,
        "{err}"
    );
    // With a limit, or a board that ends, nothing is said.
    let (code, _, err) = solve_within(&["30", "--limit", "2"], 10);
    assert_eq!((code, err.as_str()), (Some(0), ""));
}

/// A board without solutions says so on stderr, its output the format's empty form.
#[test]
fn a_board_without_solutions_says_so() {
    for (args, expected) in [
        (&["3"][..], ""),
        (&["2", "--unique"], ""),
        (&["3", "--format", "leetcode"], "[]\n"),
    ] {
        let (code, out, err) = solve_within(args, 10);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(out, expected, "{args:?}");
        let n = args[0];
        assert!(
            err.starts_with(&format!("note: n = {n} has no solutions")) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // None asked for: none listed, nothing said.
    let (code, out, err) = solve_within(&["3", "--limit", "0"], 10);
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), "", ""));
}
