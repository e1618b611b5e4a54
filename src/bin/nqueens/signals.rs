//! SIGINT, SIGTERM and SIGHUP during a count: caught from the start of the command, before
//! any planning, so that every one ends the same way: the checkpoint (once open) synced,
//! the unfinished `--output`'s temporary file removed (a result already written whole and
//! synced put in place instead), a line on stderr saying how to go on, and exit code 128 +
//! the signal's number. SIGXFSZ is ignored: a file size limit is a write error.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use libc::{SIGHUP, SIGINT, SIGTERM};
use nqueens_engine::run as durable;
use nqueens_engine::run::checkpoint::Checkpoint;

use crate::memory::{self, Use};

/// The set of the signals a count catches.
fn caught() -> libc::sigset_t {
    // SAFETY: the set is initialised by sigemptyset before any other use.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        for s in [SIGINT, SIGTERM, SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Holds SIGINT, SIGTERM and SIGHUP back (pending, not lost) from the first thing `main`
/// does, in every thread started after (threads inherit it): a count's [`Interrupts`]
/// takes them from there, one sent in the first millisecond included (exit 128 + the
/// signal, with the line saying so) rather than the signal killing the process; the other
/// commands [`release`] them.
pub fn hold() {
    let set = caught();
    // SAFETY: changes this thread's signal mask (the only thread yet); the set is valid.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
}

/// Lets the signals [`hold`] holds back through, in this thread and those it starts after:
/// those pending are delivered now, with their default action (or a handler's, where one
/// is installed).
pub fn release() {
    let set = caught();
    // SAFETY: as in `hold`.
    unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
}

/// Ignores SIGXFSZ, which a write past a file size limit (`ulimit -f`) raises and which by
/// default kills the process: such a write then fails with `EFBIG`, an error the files'
/// writers handle as they handle a full disk (a checkpoint's warning while the count goes
/// on, a shard's result kept elsewhere).
pub fn ignore_file_size_limit() {
    // SAFETY: sets the disposition of one signal to SIG_IGN; no handler runs.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

/// What a signal has to save, as the count goes on.
#[derive(Default)]
struct State {
    /// The `--checkpoint` given, and the checkpoint once it is open.
    checkpoint: Option<(PathBuf, Option<Open>)>,
}

/// An open checkpoint, with the parts the run counts: those it resumed, of how many.
struct Open {
    checkpoint: Arc<Checkpoint>,
    resumed: usize,
    parts: usize,
}

/// The handler of one command's signals.
pub struct Interrupts {
    state: Arc<Mutex<State>>,
}

impl Interrupts {
    /// Catches SIGINT, SIGTERM and SIGHUP from now on. `checkpoint` is the `--checkpoint`
    /// given, if any (named in the message of a signal that comes before it is open).
    ///
    /// A thread of its own waits for them (`sigwait`): every thread holds them back from
    /// the start ([`hold`]; threads inherit it), so they stay pending until it takes them,
    /// and it needs no file descriptor (a handler's self-pipe takes two, which under
    /// `ulimit -n 4` are not there).
    pub fn install(checkpoint: Option<PathBuf>) -> Interrupts {
        let state = Arc::new(Mutex::new(State {
            checkpoint: checkpoint.map(|p| (p, None)),
        }));
        // The thread says it is up: one that died starting (no memory for its signal
        // stack) would leave the signals held back for good.
        let (up, started) = std::sync::mpsc::channel();
        let waiting = {
            let state = Arc::clone(&state);
            std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    let _ = up.send(());
                    let set = caught();
                    loop {
                        let mut signal = 0;
                        // SAFETY: both pointers are valid for the call.
                        if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
                            stop(signal, &state);
                        }
                    }
                })
                .map_err(|e| e.to_string())
                .and_then(|_| {
                    started
                        .recv()
                        .map_err(|_| "it ended as it started".to_string())
                })
        };
        match waiting {
            // This thread reports the signal; a progress bar only ends its line.
            Ok(()) => crate::progress::leave_signals(),
            Err(e) => {
                let _ = writeln!(
                    io::stderr(),
                    "warning: cannot catch signals ({e}): a signal will end the count without saving"
                );
                release();
            }
        }
        Interrupts { state }
    }

    /// The checkpoint is open, for a run of `parts` parts of which it `resumed` some: a
    /// signal syncs it from now on, and says how many parts it holds.
    pub fn save(&self, checkpoint: Arc<Checkpoint>, (resumed, parts): (usize, usize)) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let path = checkpoint.path().to_path_buf();
        let open = Open {
            checkpoint,
            resumed,
            parts,
        };
        state.checkpoint = Some((path, Some(open)));
    }
}

/// What a checkpoint holds once this run's `kept` parts are synced: `N of M parts saved in
/// FILE`, and how many of them this run counted where it resumed some.
fn saved(open: &Open, kept: usize) -> String {
    let path = open.checkpoint.path().display();
    let held = format!(
        "{} of {} parts saved in {path}",
        open.resumed + kept,
        open.parts
    );
    if open.resumed == 0 {
        held
    } else {
        format!("{held} ({kept} of them counted by this run)")
    }
}

/// Syncs what there is, removes the temporary files, says how to go on, and exits with
/// 128 + `signal`. The state stays locked: nothing changes it while the process ends.
fn stop(signal: i32, state: &Mutex<State>) -> ! {
    crate::progress::end_line();
    let name = match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "SIGHUP",
    };
    let state = state.lock().unwrap_or_else(|e| e.into_inner());
    let line = match &state.checkpoint {
        Some((_, Some(open))) => match memory::within(Use::Records, || open.checkpoint.close()) {
            Ok(kept) => format!(
                "interrupted by {name}: {}; run the same command again to resume",
                saved(open, kept)
            ),
            Err(e) => format!(
                "interrupted by {name}: {e}; the records synced before are kept; run the same command again to resume"
            ),
        },
        Some((path, None)) => format!(
            "interrupted by {name} before counting began; {} holds what earlier runs saved; run the same command again to resume",
            path.display()
        ),
        None => format!(
            "interrupted by {name}: nothing was saved (no --checkpoint); run the same command again to count from the start"
        ),
    };
    let done: Vec<String> = durable::remove_temporaries()
        .into_iter()
        .map(ended)
        .collect();
    let line = if done.is_empty() {
        line
    } else {
        format!(
            "interrupted by {name} once the count was done and its result synced: {}",
            done.join("; ")
        )
    };
    let _ = writeln!(io::stderr().lock(), "{line}");
    std::process::exit(128 + signal);
}

/// Where a result written whole before the signal went, in words: its output, else a rescue
/// file, else its temporary file, left in place.
fn ended(end: durable::Ended) -> String {
    match end {
        durable::Ended::Published(dest) => format!(
            "written whole to {}; nothing needs counting again",
            dest.display()
        ),
        durable::Ended::Kept { tmp, dest, why } => {
            let kept = std::fs::read(&tmp)
                .map_err(|e| e.to_string())
                .and_then(|bytes| crate::files::keep_bytes(&bytes, &dest));
            match kept {
                Ok(file) => {
                    let _ = std::fs::remove_file(&tmp);
                    format!(
                        "{} would not take it ({why}), so it is kept in {}: run the same command again to write {} from it without counting again",
                        dest.display(),
                        file.display(),
                        dest.display()
                    )
                }
                Err(e) => format!(
                    "{} would not take it ({why}), nor could it be kept ({e}); it is left whole in {}: move it to {} before running again",
                    dest.display(),
                    tmp.display(),
                    dest.display()
                ),
            }
        }
    }
}
