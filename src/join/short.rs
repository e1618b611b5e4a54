//! Short words: a split's half-boards held in 32 bits once the diagonals in play fit them.
//!
//! ```text
//! mask = the diagonals in play that both sides use
//! if popcount(mask) <= 32:
//!     each word w of both sides becomes pext(w, mask)         (gather)
//!     each diagonal d of the order becomes pext(d, mask)      (gathered)
//!     the levels below split the 32-bit words
//! ```
//!
//! A half-board's word has a bit for each of the `2h - 1` shared diagonals of each direction
//! (50 at n = 27), but deep in a split most of them are settled: the levels above took
//! their diagonals out of play, and many others are used by no word of one side. A pair of
//! words shares a diagonal in play exactly where their bits *gathered* by the diagonals in
//! play (BMI2's `pext`) share a bit, so from the level where those fit 32 bits, the split goes
//! on with both sides gathered into 32-bit words ([`SplitWord`] for `u32`): a vector holds twice
//! the words, and the partitions and filters below, the bulk of the split's passes, move
//! half the bytes. From n = 22 on, about half the table words the split partitions and
//! most of the probe words it filters are at such levels (measured: results/zen4/2026-11-29-short-words/).
//! The gathering is a pass over both sides,
//! into buffers the level already has (the room for the filtered levels, the words a
//! partition moves aside), and leaves the 64-bit words as they were.

use super::word::{SplitWord, ranked};

/// The OR of `words`: the diagonals any of them has. Inlined, so that it runs in the
/// vector instructions its caller's entry point enables (a leaf's `unions`).
#[inline(always)]
pub(super) fn ored<E: SplitWord>(words: &[E]) -> u64 {
    words.iter().fold(E::default(), |u, &w| u | w).wide()
}

/// `words` as twice as many 32-bit words, the same bytes: a buffer of full words lent to
/// short ones.
pub(super) fn halves(words: &mut [u64]) -> &mut [u32] {
    // SAFETY: the bytes of `words`, borrowed as long as it is; a `u32` is aligned wherever
    // a `u64` is, and every bit pattern is a `u32`.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u32>(), 2 * words.len()) }
}

/// Writes each word of `from` to `to` with its bits of `mask` (at most 32) gathered to the
/// low end in order (`pext`): the short words of the level where the diagonals in play,
/// `mask`, fit 32 bits. Only where the CPU has BMI2 (every vector loop does: `Isa::of`).
pub(super) fn gather(from: &[u64], mask: u64, to: &mut [u32]) {
    debug_assert!(mask.count_ones() <= 32 && to.len() == from.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { gather_bmi2(from, mask, to) };
    }
    for (t, &w) in to.iter_mut().zip(from) {
        *t = ranked(w, mask) as u32;
    }
}

/// [`gather`] with BMI2's `pext`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn gather_bmi2(from: &[u64], mask: u64, to: &mut [u32]) {
    for (t, &w) in to.iter_mut().zip(from) {
        *t = std::arch::x86_64::_pext_u64(w, mask) as u32;
    }
}

/// `bit` (one of `mask`'s) where [`gather`] puts it.
pub(super) fn gathered(bit: u64, mask: u64) -> u64 {
    1 << (mask & (bit - 1)).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gathered words share a bit exactly where the words share one of the mask's, and a
    /// bit lands where `gathered` says.
    #[test]
    fn gathered_words_meet_where_the_words_meet_in_the_mask() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200 {
            let mut mask = next() & next();
            while mask.count_ones() > 32 {
                mask &= mask - 1;
            }
            let words: Vec<u64> = (0..40).map(|_| next() & next()).collect();
            let mut short = vec![0u32; words.len()];
            gather(&words, mask, &mut short);
            for (i, &a) in words.iter().enumerate() {
                for (j, &b) in words.iter().enumerate() {
                    assert_eq!(a & b & mask == 0, short[i] & short[j] == 0);
                }
                let mut bits = mask;
                while bits != 0 {
                    let bit = bits & bits.wrapping_neg();
                    assert_eq!(a & bit != 0, u64::from(short[i]) & gathered(bit, mask) != 0);
                    bits &= bits - 1;
                }
            }
        }
    }
}
