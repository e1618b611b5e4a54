//! Test hooks: environment variables the fault-injection tests set to make a run stop at a
//! known moment. Unset, they cost one look at the environment.

use std::io::Write;
use std::time::Duration;

/// Test hook: the stage at which to pause (`planning`: the files checked, nothing planned
/// yet), saying so on stderr: a test that finds no pause knows a refusal came before.
const PAUSE_AT: &str = "NQUEENS_TEST_PAUSE_AT";

/// Pauses for a minute at `stage` where [`PAUSE_AT`] names it.
pub fn pause_at(stage: &str) {
    if std::env::var_os(PAUSE_AT).is_some_and(|v| v == stage) {
        let _ = writeln!(std::io::stderr(), "test hook: paused at {stage}");
        std::thread::sleep(Duration::from_secs(60));
    }
}
