//! Lists solutions in lexicographic order and renders them: the first two of the 8-board
//! as boards of 'Q' and '.', as the puzzle sites' strings and as JSON Lines, then every
//! fundamental solution of the 6-board (one per symmetry class) as columns, and the SVG
//! picture of them.
//! `cargo run --release --example solutions`

use std::io::Write;
use std::ops::ControlFlow;

use nqueens_engine::Error;
use nqueens_engine::solve::{ListOptions, board, for_each_solution};

/// Runs the example, writing to the standard streams (the tests call it, and [`run`] to
/// read its output).
pub fn main() {
    if let Err(e) = run(&mut std::io::stdout().lock()) {
        eprintln!("solutions: {e}");
        std::process::exit(1);
    }
}

/// Writes the renderings to `out`.
pub fn run(out: &mut dyn Write) -> Result<(), Error> {
    // The listing calls back with each solution (a queen's column per row) in order; a limit
    // stops it early, as breaking out of the callback would.
    let first_two = ListOptions {
        limit: Some(2),
        ..ListOptions::default()
    };
    let mut text = Vec::new();
    for_each_solution(8, &first_two, |columns| {
        board::board(columns, &mut text);
        text.push(b'\n');
        board::leetcode(columns, &mut text);
        text.push(b'\n');
        board::json(columns, &mut text);
        ControlFlow::Continue(())
    })?;
    // One solution per symmetry class: the smallest of its eight images.
    let unique = ListOptions {
        unique: true,
        ..ListOptions::default()
    };
    let mut boards = Vec::new();
    let classes = for_each_solution(6, &unique, |columns| {
        board::columns(columns, &mut text);
        boards.extend_from_slice(columns);
        ControlFlow::Continue(())
    })?;
    out.write_all(&text).expect("stdout");
    writeln!(out, "{classes} fundamental solution(s) of the 6-board").expect("stdout");
    let svg = board::svg(6, &boards, "The fundamental solutions of the 6-board");
    writeln!(out, "{svg}").expect("stdout");
    Ok(())
}
