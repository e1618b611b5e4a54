//! A seeded pseudo-random sequence, shared by the plan's samples, the estimate and the
//! merge's audit: the same seed gives the same numbers on every machine.

/// xorshift64*: a fixed sequence of pseudo-random numbers for a given seed.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}
