//! What the timing examples share: their numeric arguments, and the random pick of keys.

/// Argument `i` (0-based) of `args` as a number, `default` where it is not given; `usage`
/// (which exits) where it is not a number.
pub fn number(args: &[String], i: usize, default: u64, usage: fn(&str) -> !) -> u64 {
    args.get(i).map_or(default, |a| {
        a.parse()
            .unwrap_or_else(|_| usage(&format!("argument {}: not a number: {a}", i + 1)))
    })
}

/// The next of a xorshift64 sequence from `state` (never 0): the same keys for a seed on
/// every machine.
pub fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
