//! Counts n = 14 part by part, with an [`Observer`] that tells how far the count has come:
//! progress on stderr, each tenth of the parts as it finishes, and the total on stdout.
//! `cargo run --release --example progress`

use std::io::Write;
use std::sync::Mutex;

use nqueens_engine::{Engine, Error, Observer, Options, Run, Tally};

const N: u32 = 14;

/// Counts the finished parts and writes a line each time another tenth of them is done.
/// The workers call [`Observer::finished`] from every thread, so the state is behind a lock.
struct Progress<'a> {
    parts: usize,
    state: Mutex<(usize, &'a mut (dyn Write + Send))>,
}

impl Observer for Progress<'_> {
    fn finished(&self, _index: usize, _tally: Tally) {
        let mut state = self.state.lock().expect("no observer panics");
        state.0 += 1;
        let done = state.0;
        // A line when the tenth this part falls in is not the tenth of the part before.
        if done * 10 / self.parts != (done - 1) * 10 / self.parts {
            let line = format!("{done} of {} parts", self.parts);
            writeln!(state.1, "{line}").expect("stderr");
        }
    }
}

/// Runs the example, writing to the standard streams (the tests call it, and [`run`] to
/// read its output).
pub fn main() {
    if let Err(e) = run(&mut std::io::stdout().lock(), &mut std::io::stderr()) {
        eprintln!("progress: {e}");
        std::process::exit(1);
    }
}

/// Counts the board, its progress written to `progress` and its total to `out`.
pub fn run(out: &mut dyn Write, progress: &mut (dyn Write + Send)) -> Result<(), Error> {
    let engine = Engine::new(&Options::default())?;
    // The plan lists the board's parts; the run counts them and tells the observer of each.
    let plan = engine.plan(N)?;
    let observer = Progress {
        parts: plan.len(),
        state: Mutex::new((0, progress)),
    };
    let outcome = Run::new(&plan).observe(&observer).execute(&engine);
    let counts = outcome.counts(&plan);
    writeln!(out, "n = {N}: {} solutions", counts.solutions).expect("stdout");
    Ok(())
}
