//! Counts the boards from 1 to 12 with the default options (every core, full symmetry):
//! each board's solutions and fundamental solutions, one line a board.
//! `cargo run --release --example count`

use std::io::Write;

use nqueens_engine::{Engine, Error, Options};

/// The largest board counted: n = 12 takes a few milliseconds.
const LARGEST: u32 = 12;

/// Runs the example, writing to the standard streams (the tests call it, and [`run`] to
/// read its output).
pub fn main() {
    if let Err(e) = run(&mut std::io::stdout().lock()) {
        eprintln!("count: {e}");
        std::process::exit(1);
    }
}

/// Writes `n solutions fundamental` for each board from 1 to [`LARGEST`] to `out`.
pub fn run(out: &mut dyn Write) -> Result<(), Error> {
    // One engine (its threads started and its counting loop chosen once) counts every board.
    let engine = Engine::new(&Options::default())?;
    for n in 1..=LARGEST {
        let counts = engine.count(n)?;
        let fundamental = counts
            .unique
            .expect("full symmetry counts the fundamental solutions");
        writeln!(out, "{n} {} {fundamental}", counts.solutions).expect("stdout");
    }
    Ok(())
}
