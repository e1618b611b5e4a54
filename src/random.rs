//! Seeded pseudo-random numbers, shared by the plan's samples, the estimate and the merge's
//! audit: the same seed gives the same numbers on every machine.

/// xorshift64*: a fixed sequence of pseudo-random numbers for a given seed. Seeds `2k` and
/// `2k + 1` give the same sequence (the state must be odd); the plan's samples and the
/// estimate keep it so, as their seeds pick what they have always picked.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// splitmix64 (Steele, Lea and Flood): a bijection of the 64-bit words whose outputs for
/// consecutive inputs look independent.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Item `i`'s place in the random order of `seed`: the items with the smallest ranks are a
/// random sample, the same whatever order the items come in. Distinct items have distinct
/// ranks, and distinct seeds distinct orders (the seed is mixed whole, not made odd).
pub(crate) fn rank(seed: u64, i: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_seeds_order_items_apart() {
        let order = |seed| {
            let mut items: Vec<u64> = (0..64).collect();
            items.sort_by_key(|&i| rank(seed, i));
            items
        };
        for k in [0u64, 1, 12_150, u64::MAX / 2] {
            assert_ne!(
                order(2 * k),
                order(2 * k + 1),
                "seeds {} and {}",
                2 * k,
                2 * k + 1
            );
        }
        let mut ranks: Vec<u64> = (0..10_000).map(|i| rank(7, i)).collect();
        ranks.sort_unstable();
        ranks.dedup();
        assert_eq!(ranks.len(), 10_000, "distinct items, distinct ranks");
    }
}
