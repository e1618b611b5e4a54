//! What the instruments share: the arguments `N KEYS [SEED]`, the join's plan, and the random
//! pick of keys.

use nqueens_engine::{Method, Plan, Symmetry};

/// Argument `i` (0-based) of `args` as a number, `default` where it is not given; `usage`
/// (which exits) where it is not a number.
fn number(args: &[String], i: usize, default: u64, usage: fn(&str) -> !) -> u64 {
    args.get(i).map_or(default, |a| {
        a.parse()
            .unwrap_or_else(|_| usage(&format!("argument {}: not a number: {a}", i + 1)))
    })
}

/// The next of a xorshift64 sequence from `state` (never 0): the same keys for a seed on
/// every machine.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The board `N` (10 to 27) of `args`, the join's plan of it (full symmetry, a thread's
/// share of 2 GiB between two, as `-j 2` has) and `KEYS` of its parts picked at random from `SEED` (the same on every machine);
/// `usage` (which exits) for what is out of range.
pub fn random_parts(args: &[String], keys: u64, usage: fn(&str) -> !) -> (u64, Plan, Vec<usize>) {
    let (n, keys) = (number(args, 0, 20, usage), number(args, 1, keys, usage));
    let mut state = number(args, 2, 0x1234_5678_9abc_def1, usage) | 1;
    if !(10..=27).contains(&n) || keys == 0 {
        usage("N must be 10 to 27 and KEYS at least 1");
    }
    let plan = Plan::build(n as u32, Symmetry::Full, 2, Method::Join, 2 << 30, 2)
        .unwrap_or_else(|e| usage(&e.to_string()));
    let len = plan.len_of_keys() as u64;
    let parts = (0..keys)
        .map(|_| (next(&mut state) % len) as usize)
        .collect();
    (n, plan, parts)
}
