//! The join holds what `--memory` gives it: every byte the process allocates, counted by this
//! binary's allocator, stays within the plan's memory while keys are counted in chunks.
//! A buffer grown by `Vec`'s doubling, kept from a key or a block before beside this one's,
//! a matching's room sized as if its sides were all the thread held, or a key's pieces put
//! in place before the buffers of the key before were let go would each pass it (each did).

use std::sync::atomic::Ordering;

use nqueens_engine::{Kernel, Method, Plan, Symmetry};

use crate::counted::{HELD, PEAK, alone};

/// The most bytes held at once while keys of an `n`-board are counted on this thread, in
/// `order`, with a plan given `memory` bytes and one thread, the plan included. Key `k` of
/// `order` is the key `k / parts` of the way along the plan's order.
fn peak(n: u32, memory: usize, parts: usize, order: &[usize]) -> usize {
    let plan = Plan::build(n, Symmetry::Full, 2, Method::Join, memory, 1).unwrap();
    let keys = plan.len_of_keys();
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    let mut solutions = 0u128;
    for &k in order {
        solutions += plan.count(keys / parts * k, Kernel::Auto).solutions;
    }
    assert!(solutions > 0, "n = {n}: the keys counted no solution");
    PEAK.load(Ordering::Relaxed)
}

/// Keys of every size, of n = 24 given 128 MiB (an even board: its larger matchings in
/// groups, its weighed keys in blocks) and n = 23 given 96 MiB (an odd board: a right side
/// per middle row). A thread's share there is a fair one (at least `SMALL_SHARE`): its
/// pieces, chunks and room all pass under pressure. The keys come in an order that mixes
/// their sizes (a tiny key, a large one, smaller ones, a middling one), so buffers one key
/// grew meet another key's, and what the thread keeps from the keys before grows to most of
/// its share. Then n = 23 given 64 MiB, a small share, where a key's own pieces take most of
/// the thread's. Below such a share a key's own pieces may still pass it: a thread holds at
/// least them, its sides' sizes and the least chunk (`FEWEST_BOARDS` in `cut`). The keys are
/// cheap ones of each size: the costliest keys of n = 24 take many times as long, and these
/// bind the budget too.
#[test]
fn a_join_holds_at_most_its_memory() {
    let _alone = alone();
    let cases: [(u32, usize, usize, &[usize]); 3] = [
        (24, 128, 32, &[0, 1, 7, 6, 15, 24, 25, 31, 4, 32]),
        (23, 96, 16, &[0, 1, 6, 7, 8, 9, 11, 12, 15]),
        (23, 64, 16, &[0, 1, 6, 7, 8, 9, 10, 11, 12, 15]),
    ];
    for (n, mib, parts, order) in cases {
        let memory = mib << 20;
        let peak = peak(n, memory, parts, order);
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
