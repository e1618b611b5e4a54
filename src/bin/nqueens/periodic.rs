//! Work on the caller's thread while a helper thread does small things every so often:
//! plain progress lines, checkpoint syncs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Something to do every `.0`.
pub type Tick<'a> = (Duration, &'a (dyn Fn() + Sync));

/// Runs `work` while a helper thread calls each tick's function every its period (the first
/// call one period after the start), until `work` returns. The helper naps 50 ms at most
/// between looks, and is woken when `work` returns, so it ends with it rather than up to a
/// nap later, which a short count would wait for. Where no thread can start (no memory
/// for its stack), `work` runs without the ticks, with a warning.
pub fn while_running<T: Send>(ticks: &[Tick<'_>], work: impl FnOnce() -> T + Send) -> T {
    if ticks.is_empty() {
        return work();
    }
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new().spawn_scoped(scope, || {
            let start = Instant::now();
            let mut next: Vec<Instant> = ticks.iter().map(|(every, _)| start + *every).collect();
            let nap = ticks
                .iter()
                .map(|(every, _)| *every)
                .fold(Duration::from_millis(50), Duration::min);
            while !finished.load(Ordering::Relaxed) {
                std::thread::park_timeout(nap);
                let now = Instant::now();
                for ((every, tick), at) in ticks.iter().zip(&mut next) {
                    if now >= *at && !finished.load(Ordering::Relaxed) {
                        tick();
                        *at += *every;
                    }
                }
            }
        });
        let helper = match helper {
            Ok(helper) => helper,
            Err(e) => {
                crate::progress::say(&format!(
                    "warning: cannot start the thread that shows progress and syncs the checkpoint ({e}): the count goes on without it, the workers syncing the checkpoint"
                ));
                return work();
            }
        };
        let out = work();
        finished.store(true, Ordering::Relaxed);
        helper.thread().unpark();
        out
    })
}
