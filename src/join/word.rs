//! The join's bottom layer, which imports nothing of the join: it defines the word a
//! half-board is written as, the step that packs the words a vector keeps, and the plain
//! loops that every ISA's vector loops finish their last few words with.
//!
//! ```text
//! a half-board's Word (64 bits):
//!     bits 0 .. 2h - 1    the down-right diagonals both halves share
//!     bits 32 ..          the down-left ones
//!     bits 60 .. 63       its piece's class (TAG), where the quarter turn's weights use one
//!
//! pack(kept list, vector w, set m):                  (Pack; one form per ISA in pack.rs)
//!     store the words of w in m at the list's end, in order
//!     the end moves on by |m|; w's other words land past it, for the next store to overwrite
//!
//! filter_words(from, bit, to):                        (the same step a word at a time)
//!     for each word w of from:
//!         to[len] = w; len += 1 if w lacks bit        (no branch to mispredict)
//! ```
//!
//! [`SplitWord`] is a word as the split holds it: 64 bits, or 32 once the diagonals in play
//! fit them. [`Pack`] is declared here, beside the words it packs, and `pack.rs`
//! implements it for each ISA's vectors ([`Wide`], [`Narrow`] and their short forms);
//! [`Isa`] names the instructions a key is counted in. The other plain loops tally the
//! split's samples, count the words that lack some bits, narrow an odd key's left words
//! and rank a word's bits (`pext`). [`resize_exact`] and [`hold`] size buffers exactly to
//! what they are asked to hold, and [`NEVER`] is the stop flag of a count that is never
//! abandoned.

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr};
use std::sync::atomic::AtomicBool;

use crossbeam_utils::CachePadded;

use crate::types::Kernel;

/// A count that is never abandoned: the flag `Join::count` and the whole-run counts pass
/// where `Join::count_until` takes one that `estimate` sets at its deadline. Every thread
/// reads it at every split level, so it is padded to cache lines of its own
/// ([`CachePadded`]): a variable a thread writes on the same line (the instruments'
/// counters in `matching.rs`, or any static the linker puts beside it) would take the
/// line from every reader at each write.
pub static NEVER: &CachePadded<AtomicBool> = &UNSET;

/// The flag behind [`NEVER`].
static UNSET: CachePadded<AtomicBool> = CachePadded::new(AtomicBool::new(false));

/// A half-board's word: bits `0..2h - 1` the shared down-right diagonals, bits `32..` the
/// shared down-left ones.
pub(super) type Word = u64;

/// Where a piece's class is (`Pieces::fill`), and a half-board's built from it: the top
/// bits of the word, above every diagonal a quadrant or half-board of up to 28 rows
/// reaches (26 of each direction at most). 0 where there is none.
pub(super) const TAG_SHIFT: u32 = 60;

/// Bits of a class: up to 14 columns from the middle one.
pub(super) const TAG_BITS: u32 = 4;

/// The bits a class takes in a word.
pub(super) const TAG: u64 = ((1 << TAG_BITS) - 1) << TAG_SHIFT;

/// Whether an odd key's narrowing (`narrow` in `mod.rs`) keeps the left half-board `w`: it
/// misses the middle queen's diagonals `mid`, and where `above` is given, its class is
/// above it.
pub(super) fn leaves(w: Word, mid: u64, above: Option<u64>) -> bool {
    (w & mid == 0) & above.is_none_or(|c| w >> TAG_SHIFT > c)
}

/// A left half-board's word in the right half's layout (`mask` wide), its class dropped.
pub(super) fn narrowed(w: Word, mask: u64) -> Word {
    (w >> 1) & mask | ((w >> 33) & mask) << 32
}

/// A word of half-boards' diagonals as the split holds it: all 64 bits, or 32 of them
/// gathered (`short::gather`).
pub(super) trait SplitWord:
    Copy + Default + Eq + Debug + Send + Sync + BitAnd<Output = Self> + BitOr<Output = Self> + 'static
{
    /// The vectors that pack these words with AVX2.
    #[cfg(target_arch = "x86_64")]
    type Avx2: Pack<E = Self>;
    /// The vectors that pack these words with AVX-512.
    #[cfg(target_arch = "x86_64")]
    type Avx512: Pack<E = Self>;

    /// Whether it is a short word.
    const SHORT: bool;

    /// The word's bits.
    fn wide(self) -> u64;
    /// The word with `bits` (which fit it).
    fn of(bits: u64) -> Self;
    /// The words as 64-bit ones where they are: only the split's full words gather.
    fn full(words: &mut [Self]) -> Option<&mut [u64]>;
}

impl SplitWord for u64 {
    #[cfg(target_arch = "x86_64")]
    type Avx2 = Narrow;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = Wide;
    const SHORT: bool = false;

    #[inline(always)]
    fn wide(self) -> u64 {
        self
    }
    #[inline(always)]
    fn of(bits: u64) -> u64 {
        bits
    }
    fn full(words: &mut [u64]) -> Option<&mut [u64]> {
        Some(words)
    }
}

impl SplitWord for u32 {
    #[cfg(target_arch = "x86_64")]
    type Avx2 = Narrow32;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = Wide32;
    const SHORT: bool = true;

    #[inline(always)]
    fn wide(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn of(bits: u64) -> u32 {
        debug_assert!(bits >> 32 == 0);
        bits as u32
    }
    fn full(_: &mut [u32]) -> Option<&mut [u64]> {
        None
    }
}

/// A vector of [`Pack::WORDS`] words ([`Pack::E`]: full ones, or the split's short ones)
/// and a set of them, and how the kept ones are stored packed: the step each ISA's vectors
/// take in `pack.rs`, which implements it for [`Wide`], [`Narrow`], [`Wide32`] and
/// [`Narrow32`].
///
/// # Safety
///
/// Every method may be called only on a CPU with the implementing ISA.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe trait Pack {
    /// Words in a vector.
    const WORDS: usize;
    /// A word.
    type E: SplitWord;
    /// A vector of words.
    type V: Copy;
    /// A set of a vector's words, a bit each.
    type M: Copy;

    /// Every word `x` (which fits one).
    unsafe fn splat(x: u64) -> Self::V;
    /// The first [`Pack::WORDS`] words at `from`.
    ///
    /// # Safety
    ///
    /// They are readable.
    unsafe fn load(from: *const Self::E) -> Self::V;
    /// The words of `w` that share no bit with `b`.
    unsafe fn lacking(w: Self::V, b: Self::V) -> Self::M;
    /// The words not in `m`.
    unsafe fn others(m: Self::M) -> Self::M;
    /// How many words `m` holds.
    unsafe fn count(m: Self::M) -> usize;
    /// Stores the words of `w` in `m` at `to`, packed in order, and returns how many they
    /// are ([`Pack::count`]); the vector's other words land past them.
    ///
    /// # Safety
    ///
    /// [`Pack::WORDS`] words at `to` are writable.
    unsafe fn put(to: *mut Self::E, w: Self::V, m: Self::M) -> usize {
        // SAFETY: the caller's.
        unsafe {
            Self::store(to, w, m);
            Self::count(m)
        }
    }
    /// [`Pack::put`] without the count.
    ///
    /// # Safety
    ///
    /// [`Pack::WORDS`] words at `to` are writable.
    unsafe fn store(to: *mut Self::E, w: Self::V, m: Self::M);
    /// Both sides of `w` stored: its words in `m` packed in order at `front` (as
    /// [`Pack::store`]), and the others packed in order at the end of the [`Pack::WORDS`]
    /// words at `back`, the vector's other words landing before them.
    ///
    /// # Safety
    ///
    /// [`Pack::WORDS`] words at `front` and at `back` are writable.
    unsafe fn store_apart(front: *mut Self::E, back: *mut Self::E, w: Self::V, m: Self::M);
}

/// Eight words of AVX-512F.
#[cfg(target_arch = "x86_64")]
pub(super) struct Wide;

/// Four words of AVX2; a set of them is four bits, an index of `pack.rs`'s `PACK`.
#[cfg(target_arch = "x86_64")]
pub(super) struct Narrow;

/// Sixteen short words of AVX-512F: [`Wide`]'s steps on 32-bit lanes.
#[cfg(target_arch = "x86_64")]
pub(super) struct Wide32;

/// Eight short words of AVX2: [`Narrow`]'s steps on 32-bit lanes, a set of them eight bits,
/// an index of `pack.rs`'s `PACK32`.
#[cfg(target_arch = "x86_64")]
pub(super) struct Narrow32;

/// The instructions a key's matching runs in.
#[derive(Clone, Copy)]
pub(super) enum Isa {
    /// AVX-512 with `vpopcntq` and BMI2 (`--kernel avx512` or `auto` on such a CPU).
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX2 and BMI2 (`--kernel avx2`, or `avx512` on a CPU without `vpopcntq`).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Plain 64-bit words (`--kernel scalar`, or a CPU with neither).
    Scalar,
}

impl Isa {
    /// The instructions `kernel` asks for, where this CPU has them; else plain words.
    pub(super) fn of(kernel: Kernel) -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            // Every vector loop also takes `pext` and `popcnt` (a mask's count, a leaf's).
            let bits = has!("bmi2") && has!("popcnt");
            match kernel.resolve() {
                Ok(Kernel::Avx512) if bits && has!("avx512f") && has!("avx512vpopcntdq") => {
                    return Isa::Avx512;
                }
                Ok(Kernel::Avx512 | Kernel::Avx2) if bits && has!("avx2") => return Isa::Avx2,
                _ => {}
            }
        }
        let _ = kernel;
        Isa::Scalar
    }
}

/// Each byte's lowest bit: the split's sampling tally ([`tally_words`]) keeps its counters
/// in the eight bytes of a word, counter `k` adding bit `k` of each byte of the words
/// sampled.
pub(super) const ONES: u64 = 0x0101_0101_0101_0101;

/// Adds counter word `k` of the tally to `counts`: its byte `j` counted bit `8j + k`. Each
/// byte is at most 255 (the caller takes a counter out before it could pass that).
#[inline(always)]
pub(super) fn take_out(counter: u64, k: usize, counts: &mut [u64; 64]) {
    for (byte, count) in counts.iter_mut().skip(k).step_by(8).enumerate() {
        *count += counter >> (8 * byte) & 0xff;
    }
}

/// Adds to `counts[b]` how many of every `step`-th word of `v` have bit `b`: the split's
/// sampling tally a word at a time (the plain loop, and the vector loops' last few
/// samples). Eight byte-wide counters a word (bit `k` of each byte into counter `k`), each
/// taken out before it could pass 255.
pub(super) fn tally_words<E: SplitWord>(v: &[E], step: usize, counts: &mut [u64; 64]) {
    let mut lanes = [0u64; 8];
    let empty = |lanes: &mut [u64; 8], counts: &mut [u64; 64]| {
        for (k, lane) in lanes.iter_mut().enumerate() {
            take_out(*lane, k, counts);
            *lane = 0;
        }
    };
    for (i, &w) in v.iter().step_by(step).enumerate() {
        for (k, lane) in lanes.iter_mut().enumerate() {
            *lane += w.wide() >> k & ONES;
        }
        if i % 255 == 254 {
            empty(&mut lanes, counts);
        }
    }
    empty(&mut lanes, counts);
}

/// Writes the words of `from` without `bit` to the front of `to`, in order, and returns how
/// many there are: the split's filter a word at a time (the plain loop, and the vector
/// loops' last few words).
pub(super) fn filter_words<E: SplitWord>(from: &[E], bit: u64, to: &mut [E]) -> usize {
    // Every word written, the kept ones advancing the end: no branch to mispredict.
    let to = &mut to[..from.len()];
    let (mut len, bit) = (0, E::of(bit));
    for &w in from {
        to[len] = w;
        len += usize::from(w & bit == E::default());
    }
    len
}

/// How many of `words` share no bit with `bits`: the count a side's sizes take of the
/// bottom pieces a top piece leaves, a word at a time (the plain loop, and the vector
/// loops' last few words).
pub(super) fn lacking_words(words: &[u64], bits: u64) -> u64 {
    words.iter().map(|&q| u64::from(q & bits == 0)).sum()
}

/// The ranks among `union`'s bits of `word`'s bits, as bits (BMI2's `pext` where the CPU
/// has it).
pub(super) fn ranked(word: u64, union: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { pext(word, union) };
    }
    let (mut ranked, mut bits) = (0u64, word & union);
    while bits != 0 {
        ranked |= 1 << (union & ((1u64 << bits.trailing_zeros()) - 1)).count_ones();
        bits &= bits - 1;
    }
    ranked
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pext(word: u64, union: u64) -> u64 {
    std::arch::x86_64::_pext_u64(word, union)
}

/// Sets `words`' length to `len` (new words zero) with its capacity grown to that, where it
/// must grow, and no further: a thread's budget charges its buffers at the words they are
/// asked to hold, where `Vec`'s amortised growth would give them up to twice that. An empty
/// buffer is allocated zeroed (`calloc`: the kernel's fresh pages, resident only where they
/// are used), not grown and then filled.
pub(super) fn resize_exact(words: &mut Vec<Word>, len: usize) {
    if words.capacity() == 0 {
        *words = vec![0; len];
        return;
    }
    words.reserve_exact(len.saturating_sub(words.len()));
    words.resize(len, 0);
}

/// Lets go of `words` where it holds more than `need` words by more than a [`SLACK`] part of
/// `free` (the key's free bytes): what grows again is allocated afresh ([`resize_exact`]),
/// not grown from a part kept and filled. A thread's buffers are kept from key to key (most
/// keys need about what the key before did), but one that a key grew and the next needs
/// less of holds memory no budget charges while others grow: a room a key before grew,
/// kept beside this key's chunks, takes a thread past its share (`matching::Matcher::fit`).
pub(super) fn hold(words: &mut Vec<Word>, need: usize, free: usize) {
    if words.capacity() > need.saturating_add(free / SLACK / 8) {
        *words = Vec::new();
    }
}

/// The part of a key's free bytes (one in this many) a matching's buffers may each hold
/// past what it needs where the thread would be over its budget ([`hold`]).
pub(super) const SLACK: usize = 128;

/// Bytes `words` grows by where it is made to hold `need` words.
pub(super) fn grows(words: &Vec<Word>, need: usize) -> usize {
    need.saturating_sub(words.capacity()) * 8
}

/// Bytes `buffers` hold.
pub(super) fn held(buffers: [&Vec<Word>; 4]) -> usize {
    buffers.iter().map(|b| b.capacity()).sum::<usize>() * 8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer grown for a key holds what was asked, not `Vec`'s doubling: from empty, from
    /// a part held, and again past it; and one let go where it holds too much.
    #[test]
    fn buffers_grow_to_what_they_are_asked() {
        let mut words = Vec::new();
        resize_exact(&mut words, 1000);
        assert_eq!((words.len(), words.capacity()), (1000, 1000));
        words[999] = 7;
        resize_exact(&mut words, 1001);
        assert_eq!((words.capacity(), words[999], words[1000]), (1001, 7, 0));
        resize_exact(&mut words, 3000);
        assert_eq!(words.capacity(), 3000);
        // Free bytes whose `SLACK` part is 1,000 words.
        let free = 1000 * 8 * SLACK;
        hold(&mut words, 2000, free);
        assert_eq!(words.capacity(), 3000, "within the slack");
        hold(&mut words, 1999, free);
        assert_eq!(words.capacity(), 0);
        assert_eq!(
            held([&vec![0; 3], &Vec::new(), &vec![0; 5], &vec![0; 1]]),
            72
        );
    }
}
