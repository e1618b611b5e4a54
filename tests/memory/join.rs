//! The join holds what `--memory` gives it: every byte the process allocates, counted by this
//! binary's allocator, stays within the plan's memory while keys are counted in chunks.
//! A buffer grown by `Vec`'s doubling, kept from a key or a block before beside this one's,
//! a matching's room sized as if its sides were all the thread held, or a key's pieces put
//! in place before the buffers of the key before were let go would each pass it (each did).

use std::sync::atomic::Ordering;

use nqueens_engine::{Kernel, Method, Plan, Symmetry};

use crate::counted::{HELD, PEAK, alone};

/// The most bytes held at once while `picked` keys of an `n`-board are counted on this thread
/// with a plan given `memory` bytes and one thread, the plan included.
fn peak(n: u32, memory: usize, every: usize) -> usize {
    let plan = Plan::build(n, Symmetry::Full, 2, Method::Join, memory, 1).unwrap();
    let keys = plan.len_of_keys();
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    let mut solutions = 0u128;
    for i in (0..keys).step_by(keys / every) {
        solutions += plan.count(i, Kernel::Auto).solutions;
    }
    assert!(solutions > 0, "n = {n}: the keys counted no solution");
    PEAK.load(Ordering::Relaxed)
}

/// Keys of every size, spread over the plan's order, of n = 24 given 128 MiB (an even board:
/// its larger matchings in groups, its weighed keys in blocks) and n = 23 given 96 MiB (an
/// odd board: a right side per middle row). A thread's share there is a fair one (at least
/// `SMALL_SHARE`): its pieces, chunks and room all pass under pressure, and the keys differ
/// in size, so buffers one key grew meet another key's. Then n = 23 given 64 MiB, a small
/// share, where a key's own pieces take most of the thread's (every 24th key: at 3543734
/// it held 69,051,427 bytes). Below such a share a key's own pieces may still pass it: a
/// thread holds at least them, its sides' sizes and the least chunk (`FEWEST_BOARDS` in `cut`).
#[test]
fn a_join_holds_at_most_its_memory() {
    let _alone = alone();
    for (n, mib, every) in [(24, 128, 16), (23, 96, 16), (23, 64, 24)] {
        let memory = mib << 20;
        let peak = peak(n, memory, every);
        assert!(
            peak <= memory,
            "n = {n}: {peak} bytes held at most, {memory} given"
        );
        // Else the budget never bound, and the test would pass whatever the join held.
        assert!(
            peak > memory / 4 * 3,
            "n = {n}: {peak} bytes held at most: the budget ({memory}) hardly used"
        );
    }
}
