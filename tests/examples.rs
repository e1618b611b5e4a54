//! The examples in `examples/`, run as a library user would build them (no feature): each
//! one's `main`, then its `run` with the output read back and checked against the published
//! counts and the renderers' formats.

use nqueens_engine::published;

#[path = "../examples/count.rs"]
mod count;
#[path = "../examples/progress.rs"]
mod progress;
#[path = "../examples/shards.rs"]
mod shards;
#[path = "../examples/solutions.rs"]
mod solutions;

#[test]
fn the_count_example_prints_each_board_as_published() {
    count::main();
    let mut out = Vec::new();
    count::run(&mut out).unwrap();
    let expected: String = (1..=12)
        .map(|n| {
            let all = published::all(n).unwrap();
            format!("{n} {all} {}\n", published::fundamental(n).unwrap())
        })
        .collect();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn the_progress_example_reports_each_tenth_of_the_parts_and_the_total() {
    progress::main();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    progress::run(&mut out, &mut err).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "n = 14: 365596 solutions\n"
    );
    let err = String::from_utf8(err).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 10, "{err}");
    let parts = lines[9].split(' ').nth(2).unwrap();
    assert_eq!(lines[9], format!("{parts} of {parts} parts"), "{err}");
    // Each line says more parts than the one before.
    let done: Vec<usize> = lines
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(done.windows(2).all(|w| w[0] < w[1]), "{err}");
}

#[test]
fn the_solutions_example_renders_the_first_boards_and_the_classes() {
    solutions::main();
    let mut out = Vec::new();
    solutions::run(&mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let (text, svg) = out.split_once("<?xml").unwrap();
    let first = "Q.......\n....Q...\n.......Q\n.....Q..\n..Q.....\n......Q.\n.Q......\n...Q....\n";
    let second = "Q.......\n.....Q..\n.......Q\n..Q.....\n......Q.\n...Q....\n.Q......\n....Q...\n";
    let expected = format!(
        "{first}\n{}\n{{\"n\":8,\"columns\":[0,4,7,5,2,6,1,3]}}\n\
         {second}\n{}\n{{\"n\":8,\"columns\":[0,5,7,2,6,3,1,4]}}\n\
         1 3 5 0 2 4\n1 fundamental solution(s) of the 6-board\n",
        leetcode(first),
        leetcode(second),
    );
    assert_eq!(text, expected);
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    assert!(
        svg.contains("The fundamental solutions of the 6-board"),
        "{svg}"
    );
}

/// The puzzle sites' form of a board: its rows as a JSON array of strings.
fn leetcode(board: &str) -> String {
    let rows: Vec<String> = board.lines().map(|r| format!("\"{r}\"")).collect();
    format!("[{}]", rows.join(","))
}

#[test]
fn the_shards_example_merges_three_shards_to_the_published_total() {
    shards::main();
    let dir = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    shards::run(dir.path(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let shard_sum: u128 = lines[..3]
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let count = l.strip_prefix(&format!("shard {i}: ")).unwrap();
            count
                .strip_suffix(" solutions")
                .unwrap()
                .parse::<u128>()
                .unwrap()
        })
        .sum();
    assert_eq!(shard_sum, 14200, "{out}");
    assert_eq!(lines[3], "merged: 14200 solutions");
    // The three shard files are there for a merge elsewhere.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}
