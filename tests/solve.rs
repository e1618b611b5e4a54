//! Listing solutions: valid, distinct, complete, in lexicographic order, whatever the threads.

mod common;

use std::io::Read;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::{Command as Std, Stdio};

use assert_cmd::Command;
use nqueens::board::is_solution;
use nqueens::list::{ListOptions, for_each_solution};
use nqueens::{Kernel, published};

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
                common::solutions(n as usize),
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
        common::untested("this CPU has no SIMD lanes: only the scalar loop lists");
        return;
    }
    // Whole listings, then the first solutions of large boards, where the lanes keep more
    // in each frame.
    let cases = [
        (11, None),
        (12, None),
        (13, None),
        (20, Some(3000)),
        (27, Some(300)),
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
                    common::images(x).iter().min(),
                    Some(x),
                    "smallest of its images, n={n}"
                );
            }
            let mut classes: Vec<Vec<u8>> = xs
                .iter()
                .map(|x| common::images(x).into_iter().min().unwrap())
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
    let big = list(24, 2, false, Some(3));
    assert_eq!(big.len(), 3);
    assert!(big.iter().all(|x| is_solution(x)) && strictly_increasing(&big));
    assert_eq!(
        big,
        common::first_solutions(24, 3),
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
    assert_eq!(rows, common::solutions(8));
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
