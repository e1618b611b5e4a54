//! Published solution counts, for checking the engine (never for answering).
//!
//! Sources: OEIS A000170 (all solutions) and A002562 (fundamental solutions, up to rotation
//! and reflection); the Q27 project (n = 27). Copied from `tests/data/published.tsv`, which a
//! test checks them against.

/// OEIS A000170: solutions of the `n`-queens problem, `n = 0..=27` (the empty board has one).
pub const A000170: [u128; 28] = [
    1,
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2680,
    14200,
    73712,
    365596,
    2279184,
    14772512,
    95815104,
    666090624,
    4968057848,
    39029188884,
    314666222712,
    2691008701644,
    24233937684440,
    227514171973736,
    2207893435808352,
    22317699616364044,
    234907967154122528,
];

/// OEIS A002562: fundamental solutions, `n = 1..=27` (index 0 is `n = 1`; the sequence starts there).
pub const A002562: [u128; 27] = [
    1,
    0,
    0,
    1,
    2,
    1,
    6,
    12,
    46,
    92,
    341,
    1787,
    9233,
    45752,
    285053,
    1846955,
    11977939,
    83263591,
    621012754,
    4878666808,
    39333324973,
    336376244042,
    3029242658210,
    28439272956934,
    275986683743434,
    2789712466510289,
    29363495934315694,
];

/// The published number of all solutions of an `n`-board, where known.
pub fn all(n: u32) -> Option<u128> {
    A000170.get(n as usize).copied()
}

/// The published number of fundamental solutions of an `n`-board, where known (`n >= 1`).
pub fn fundamental(n: u32) -> Option<u128> {
    (n as usize)
        .checked_sub(1)
        .and_then(|i| A002562.get(i))
        .copied()
}
