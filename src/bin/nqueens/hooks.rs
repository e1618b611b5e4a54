//! Test hooks: environment variables the fault-injection tests set to make a run stop at a
//! known moment. Unset, they cost one look at the environment.

use std::io::Write;
use std::time::Duration;

/// Test hook: the stage at which to pause, saying so on stderr, for a test to send a
/// signal there (`planning`: signals caught and the files checked, nothing planned yet; a
/// test that sees no pause knows a refusal came first; `output`: the shard result written
/// and synced under its temporary name, not yet renamed; `start`: the first thing `main`
/// does, signals held back and no handler yet, for two seconds only).
const PAUSE_AT: &str = "NQUEENS_TEST_PAUSE_AT";

/// Test hook: the stage at which to wait for a line (or the end) on standard input, saying
/// so on stderr, for a test to change the files there and let the run go on (the stages of
/// [`PAUSE_AT`] but `start`).
const WAIT_AT: &str = "NQUEENS_TEST_WAIT_AT";

/// Pauses for a minute (at `start`, two seconds) at `stage` where [`PAUSE_AT`] names it;
/// waits for standard input there where [`WAIT_AT`] does.
pub fn pause_at(stage: &str) {
    if std::env::var_os(PAUSE_AT).is_some_and(|v| v == stage) {
        let _ = writeln!(std::io::stderr(), "test hook: paused at {stage}");
        let seconds = if stage == "start" { 2 } else { 60 };
        std::thread::sleep(Duration::from_secs(seconds));
    }
    if std::env::var_os(WAIT_AT).is_some_and(|v| v == stage) {
        let _ = writeln!(std::io::stderr(), "test hook: waiting at {stage}");
        let _ = std::io::stdin().read_line(&mut String::new());
    }
}

/// Pauses at `stage` where [`PAUSE_AT`] names it, saying so on stderr, until a line (or the
/// end) comes on stdin: for a test to change files at a known moment and then let the run
/// go on (`merged`: `merge`'s files read and summed, its audit not yet run).
pub fn hold_at(stage: &str) {
    if std::env::var_os(PAUSE_AT).is_some_and(|v| v == stage) {
        let _ = writeln!(std::io::stderr(), "test hook: paused at {stage}");
        let _ = std::io::stdin().read_line(&mut String::new());
    }
}

/// Test hook: where set, a command says on stderr how many threads the process has once its
/// work is done (its workers still up; rayon's global pool, once started, never ends).
const THREADS: &str = "NQUEENS_TEST_THREADS";

/// Reports this process's threads (`/proc/self/task`) where [`THREADS`] is set.
pub fn report_threads() {
    if std::env::var_os(THREADS).is_none() {
        return;
    }
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        let _ = writeln!(std::io::stderr(), "test hook: {} threads", tasks.count());
    }
}

/// Test hook: solutions added to each count of `bench` before it is checked, so that a test
/// sees a wrong count refused.
const MISCOUNT: &str = "NQUEENS_TEST_MISCOUNT";

/// What [`MISCOUNT`] adds (0 unset).
pub fn miscount() -> u128 {
    std::env::var(MISCOUNT)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Test hook: `tiny` makes `bench` count the workload of the tests ([`Workload::TINY`],
/// milliseconds) in place of the one asked for.
///
/// [`Workload::TINY`]: nqueens_engine::bench::Workload::TINY
const WORKLOAD: &str = "NQUEENS_TEST_WORKLOAD";

/// Whether [`WORKLOAD`] asks for the tests' workload.
pub fn tiny_workload() -> bool {
    std::env::var_os(WORKLOAD).is_some_and(|v| v == "tiny")
}
