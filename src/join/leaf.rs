//! A leaf of the matching: a table side of at most `matching::LEAF` (512)
//! half-boards (or slices of a larger one the split could not bring down) against its probe
//! words, counted with bitsets:
//!
//! ```text
//! leaf(table, probe groups):
//!     U = OR(table) & OR(probe) & live; k = popcount(U)
//!     if k == 0: every pair is disjoint; stop
//!     if the pairs are few: test each pair with one AND; stop
//!     set[r] = the table words of rank r (bit j: table word j), by transposing
//!     for each run of at most 8 ranks: entry[v] = OR of the run's sets v selects
//!     for each probe word p: met = popcount(OR of one entry per run of pext(p, U))
//!     out[g] += |table| * |group g| - the met of its words
//! ```
//!
//! The table's words are ranked over the diagonals in play that
//! both sides use ([`unions`]; `pext`) and transposed into one set of half-boards per
//! diagonal, and the diagonals are cut into runs of at most eight, as even as they go
//! ([`spread`]), each run's unions of every subset of its sets precomputed (up to 256
//! entries). A probe word then finds every table word it meets by ORing one
//! entry per run of its diagonals and counting the bits.
//!
//! The two loops, the fill and the match, are written once over [`Entry`]: an ISA's form of
//! eight words of an entry (four for [`Half`]) and of the steps the loops take (ranking a
//! word, transposing a block, ORing entries, counting their bits). [`Wide`] is AVX-512 (one
//! vector an entry, counted by `vpopcntq`), [`Narrow`] AVX2 (two vectors an entry, sixteen
//! of them added up by carry-save adders before a nibble table counts one: Harley and Seal),
//! [`Half`] AVX2 for slices of at most 256 half-boards (one vector an entry: a leaf's work
//! follows its entries' loads), [`Words`] plain words on any CPU. Each has one
//! `#[target_feature]` entry point ([`Bitsets::disjoint`] picks it); a NEON form is one more
//! `impl`.

use std::ops::Range;

use super::word::{Isa, SplitWord, ranked};
#[cfg(target_arch = "x86_64")]
use super::word::{Narrow, Wide};

/// Most probe groups a matching takes (one per middle row of an odd board).
pub(super) const MAX_GROUPS: usize = 32;

/// Where a probe group's words lie in the probe slice. A partition reorders each group's
/// words within its own span, so a group's words stay in it at every level.
pub(super) type Span = Range<usize>;

/// The most ranks a table takes: a probe word's ranks are read a run of at most `CHUNK` at
/// a time ([`spread`]), each run selecting one of its table's up to `2^CHUNK` entries (the
/// unions of every subset of the run's sets).
/// Eight: fewer ranks a run make smaller tables but more loads a probe word, which cost more
/// (measured: results/zen4/2026-11-28-shared-ranks/, results/zen3/2026-11-26-half-entries/).
const CHUNK: usize = 8;
/// Entries of one chunk's table.
const ENTRIES: usize = 1 << CHUNK;

/// The most words a table slice holds (2048 half-boards): its entries, 256 per eight ranks of
/// 256 bytes each (320 KB for the usual five), stay in a core's L2 cache. Only a table the
/// split could not bring down to a leaf (its bits ran out) is sliced.
const SLICE_WORDS: usize = 32;

/// Bytes a table of `words` words per entry takes, with its sets (at most 64 diagonals in
/// play, eight bytes of them).
fn table_bytes(words: usize) -> usize {
    (64 + 64usize.div_ceil(CHUNK) * ENTRIES) * words * 8
}

/// The least a key's matching needs: a table slice of eight words (512 half-boards).
pub const MIN_BYTES: usize = 8 * (64 + 64usize.div_ceil(CHUNK) * ENTRIES) * 8;

/// The most a leaf's sets and tables take: a slice of [`SLICE_WORDS`] words.
pub(super) const MOST_BYTES: usize = MIN_BYTES / 8 * SLICE_WORDS;

/// A thread's buffers for leaves, reused from leaf to leaf: a slice's sets and its tables
/// of unions. They only grow.
#[derive(Default)]
pub(super) struct Bitsets {
    sets: Vec<u64>,
    tables: Vec<u64>,
}

impl Bitsets {
    /// Bytes its sets and tables hold.
    pub(super) fn bytes(&self) -> usize {
        (self.sets.capacity() + self.tables.capacity()) * 8
    }

    /// Adds to `out[g]` the pairs of `table` and group `g` of `probe` (its words in
    /// `spans[g]`) that share no bit of `live` (the other bits are settled: no table word
    /// shares them with a probe word), with tables of at most `budget` bytes, in `isa`.
    pub(super) fn disjoint<E: SplitWord>(
        &mut self,
        (table, probe, spans): Leaf<E>,
        live: u64,
        (budget, isa): (usize, Isa),
        out: &mut [u64],
    ) {
        // The ranks: the diagonals in play that both sides use. A diagonal no probe word
        // has cannot part a pair, so it takes no byte of the entries' index: at n = 27
        // most probe words then read fewer entries than the table's diagonals alone would
        // give them.
        let union = unions((table, probe, spans), isa) & live;
        let ranks = union.count_ones() as usize;
        let all = |range: &Span| (table.len() * range.len()) as u64;
        let probes: usize = spans.iter().map(Span::len).sum();
        if ranks == 0 {
            for (g, range) in spans.iter().enumerate() {
                out[g] += all(range);
            }
            return;
        }
        // Small leaves: every pair tested is cheaper than a table.
        if (table.len() * probes) < ENTRIES * 8 * ranks.div_ceil(CHUNK) {
            for (g, range) in spans.iter().enumerate() {
                out[g] += table
                    .iter()
                    .map(|&t| {
                        let meets = |&&p: &&E| p & t == E::default();
                        probe[range.clone()].iter().filter(meets).count() as u64
                    })
                    .sum::<u64>();
            }
            return;
        }
        let mut met = [0u64; MAX_GROUPS];
        let most = (budget / table_bytes(1)).clamp(8, SLICE_WORDS) / 8 * 8;
        // The runs of ranks, one a table: the same for every slice.
        let spread = spread(ranks, !matches!(isa, Isa::Scalar));
        for slice in table.chunks(64 * most) {
            // AVX2 loads an entry a vector (four words) at a time: a slice of at most 256
            // half-boards takes entries of one vector ([`Half`]), others of eight words.
            let half = matches!(isa, Isa::Avx2) && slice.len() <= 64 * Half::WORDS;
            let words = if half {
                Half::WORDS
            } else {
                slice.len().div_ceil(64).next_multiple_of(8)
            };
            let need = ranks.div_ceil(CHUNK) * ENTRIES * words;
            let mut t = Tables {
                union,
                spread,
                words,
                sets: &mut self.sets,
                entries: aligned(&mut self.tables, need),
            };
            let leaf = (slice, probe, spans);
            match isa {
                // SAFETY: `Isa::of` picked these only where the CPU has their features.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { t.met512(leaf, &mut met) },
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 if half => unsafe { t.met256_half(leaf, &mut met) },
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { t.met256(leaf, &mut met) },
                // SAFETY: `Words` needs no feature.
                Isa::Scalar => unsafe { t.met::<Words, E>(leaf, &mut met) },
            }
        }
        for (g, range) in spans.iter().enumerate() {
            out[g] += all(range) - met[g];
        }
    }
}

/// The diagonals both sides of a leaf use: the union of the table's words and the union
/// of the probe words, ANDed: a plain loop the compiler turns into vector ORs in the ISA
/// each entry point enables (four vectors a step; without one, SSE2's), where an OR over
/// arrays of eight words compiles to gathers with AVX-512.
fn unions<E: SplitWord>(leaf: Leaf<E>, isa: Isa) -> u64 {
    match isa {
        // SAFETY: `Isa::of` picked these only where the CPU has their features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { unions512(leaf) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { unions256(leaf) },
        Isa::Scalar => unions_in(leaf),
    }
}

/// [`unions`] in AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn unions512<E: SplitWord>(leaf: Leaf<E>) -> u64 {
    unions_in(leaf)
}

/// [`unions`] in AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unions256<E: SplitWord>(leaf: Leaf<E>) -> u64 {
    unions_in(leaf)
}

/// [`unions`], inlined into each entry point.
#[inline(always)]
fn unions_in<E: SplitWord>((table, probe, spans): Leaf<E>) -> u64 {
    let ored = super::short::ored::<E>;
    let probed = spans.iter().fold(0, |u, s| u | ored(&probe[s.clone()]));
    ored(table) & probed
}

/// Eight words of a table entry in one ISA's registers, and the steps a leaf's loops take
/// in that ISA.
///
/// # Safety
///
/// Every method may be called only on a CPU with the ISA the implementing type names. An
/// implementation reads only the [`Entry::WORDS`] words `load` is given and writes only `out` in
/// `columns`: the loops' bounds (the `SAFETY` notes in [`Tables`]) count on it.
pub(super) unsafe trait Entry {
    /// The words of an entry that [`Entry::E`] holds: eight, or four ([`Half`]'s).
    const WORDS: usize = 8;
    /// [`Entry::WORDS`] words of an entry.
    type E: Copy;
    /// A running count of the bits of entries.
    type Sum: Copy;

    /// The ranks among `union`'s bits of `word`'s bits, as bits (BMI2's `pext`).
    unsafe fn rank(word: u64, union: u64) -> u64;
    /// The low bits of `ranked` put at `spread`'s bits, in order (BMI2's `pdep`); a
    /// `spread` of the low bits leaves it as it is.
    unsafe fn place(ranked: u64, spread: u64) -> u64 {
        if spread & spread.wrapping_add(1) == 0 {
            return ranked & spread;
        }
        let (mut out, mut bits, mut from) = (0u64, spread, 0);
        while bits != 0 {
            let low = bits & bits.wrapping_neg();
            if ranked >> from & 1 == 1 {
                out |= low;
            }
            bits ^= low;
            from += 1;
        }
        out
    }
    /// Each rank's bits of a block of 64 ranked words, as one word per rank (the first
    /// `ranks` of `out`; the others may be written too): a bit matrix transposed.
    unsafe fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]);
    /// The [`Entry::WORDS`] words at `from`.
    ///
    /// # Safety
    ///
    /// They are readable.
    unsafe fn load(from: *const u64) -> Self::E;
    /// The words of `a` and `b` ORed.
    unsafe fn or(a: Self::E, b: Self::E) -> Self::E;
    /// No bits counted.
    unsafe fn zero() -> Self::Sum;
    /// `sum` with the bits of `e`.
    unsafe fn add(sum: Self::Sum, e: Self::E) -> Self::Sum;
    /// `sum` with the bits of eight `E`s.
    #[inline(always)]
    unsafe fn add8(sum: Self::Sum, e: [Self::E; 8]) -> Self::Sum {
        let mut sum = sum;
        for e in e {
            // SAFETY: the caller's.
            sum = unsafe { Self::add(sum, e) };
        }
        sum
    }
    /// The bits counted.
    unsafe fn total(sum: Self::Sum) -> u64;
}

/// How a leaf's ranks are cut into its tables, as the bits a ranked word's ranks are put at
/// ([`Entry::place`]): table `j` takes the ranks at byte `j`, `K = ceil(ranks / 8)` runs of
/// them. `even`: the runs as even as they go (20 ranks: 7, 7 and 6), so that a probe word
/// still reads one entry a table but the tables hold `2^7 + 2^7 + 2^6` entries, not `2^8 +
/// 2^8 + 2^4`: fewer to fill, and fewer lines for the probe words' loads (one `pdep` a
/// probe word: as fast as the leaf's `pext` on the CPUs it is made for, both microcoded on
/// older AMD CPUs). Otherwise eight ranks a table, the last what is left (the plain loop,
/// which has no `pdep`).
fn spread(ranks: usize, even: bool) -> u64 {
    let k = ranks.div_ceil(CHUNK);
    if !even || k == 0 {
        return if ranks == 64 { !0 } else { (1u64 << ranks) - 1 };
    }
    (0..k).fold(0, |s, j| {
        let len = ranks / k + usize::from(j < ranks % k);
        s | ((1u64 << len) - 1) << (CHUNK * j)
    })
}

/// The ranks of table `j` of a leaf whose ranks are put at `spread`: the first, and how
/// many.
fn run(spread: u64, j: usize) -> (usize, usize) {
    let below = spread & ((1u64 << (CHUNK * j)) - 1);
    let len = (spread >> (CHUNK * j) & 0xff).count_ones();
    (below.count_ones() as usize, len as usize)
}

/// One slice's sets and tables of unions (`words` words each, a multiple of 8).
struct Tables<'a> {
    union: u64,
    /// Where a ranked word's ranks are put, table `j`'s at byte `j` ([`spread`]).
    spread: u64,
    words: usize,
    sets: &'a mut Vec<u64>,
    /// `entries[(j * 256 + v) * words..][..words]`: the union of the sets of run `j`'s
    /// ranks that `v`'s bits select (its `v` below `2^len`, [`run`]).
    entries: &'a mut [u64],
}

/// The first `need` words of `buffer` from its first cache line's start (64 bytes), grown
/// to hold them: an entry of eight words is then one line, never two, and none of its
/// vectors' loads crosses a line.
fn aligned(buffer: &mut Vec<u64>, need: usize) -> &mut [u64] {
    const LINE: usize = 64 / 8;
    if buffer.len() < need + LINE {
        buffer.resize(need + LINE, 0);
    }
    let from = buffer.as_ptr().align_offset(64).min(LINE);
    &mut buffer[from..from + need]
}

/// A leaf's slice of table words, its probe words and where each probe group's lie.
type Leaf<'a, E> = (&'a [E], &'a [E], &'a [Span]);

/// Steps of eight probe words (a cache line each) that [`Tables::matched_in`] asks the CPU for
/// before it reaches them. At n = 27 a leaf's probe words are about 30,000 (240 KB, past L1)
/// read once, among the tables' random loads: 16 steps (1 KB) ahead is far enough for them
/// to arrive in time and near enough that they are still there when read (measured:
/// results/xeon/2026-11-27-probe-prefetch/).
const AHEAD: usize = 16;

/// Asks for the probe words [`AHEAD`] steps past `step` to be brought into the caches: a hint
/// that never faults, whatever the address, and changes no result.
#[inline(always)]
fn read_ahead<E>(step: &[E]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and never faults, even past the slice's end; SSE is
    // in every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(step.as_ptr().wrapping_add(8 * AHEAD).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = step;
}

/// `$tables.$loop::<$isa, K>($probe)` with `K` the tables' count of bytes of ranks (1 to 8:
/// a word has 64 bits), so that each count gets a loop of its own with its loads unrolled.
macro_rules! per_bytes {
    ($tables:expr, $loop:ident, $isa:ty, $probe:expr) => {
        match ($tables.union.count_ones() as usize).div_ceil(CHUNK) {
            1 => $tables.$loop::<$isa, _, 1>($probe),
            2 => $tables.$loop::<$isa, _, 2>($probe),
            3 => $tables.$loop::<$isa, _, 3>($probe),
            4 => $tables.$loop::<$isa, _, 4>($probe),
            5 => $tables.$loop::<$isa, _, 5>($probe),
            6 => $tables.$loop::<$isa, _, 6>($probe),
            7 => $tables.$loop::<$isa, _, 7>($probe),
            _ => $tables.$loop::<$isa, _, 8>($probe),
        }
    };
}

impl Tables<'_> {
    /// Fills the tables of `slice` and adds to `met[g]` the pairs of it and probe group `g`
    /// that share a bit, in `I`'s instructions.
    ///
    /// # Safety
    ///
    /// The CPU has `I`'s ISA.
    #[inline(always)]
    unsafe fn met<I: Entry, E: SplitWord>(
        &mut self,
        (slice, probe, spans): Leaf<E>,
        met: &mut [u64],
    ) {
        // SAFETY: the caller's.
        unsafe {
            self.fill::<I, E>(slice);
            for (g, range) in spans.iter().enumerate() {
                met[g] += per_bytes!(self, matched, I, &probe[range.clone()]);
            }
        }
    }

    /// Builds the sets and tables of `slice`: its words ranked, 64 at a time turned into the
    /// 64-bit set of each rank (setting bit by bit in memory chained each store to the last),
    /// and each eight ranks' 256 unions.
    ///
    /// # Safety
    ///
    /// The CPU has `I`'s ISA.
    #[inline(always)]
    unsafe fn fill<I: Entry, E: SplitWord>(&mut self, slice: &[E]) {
        let (words, ranks, union) = (self.words, self.union.count_ones() as usize, self.union);
        let sets = &mut *self.sets;
        sets.clear();
        sets.resize(ranks * words, 0);
        let (mut block, mut column) = ([0u64; 64], [0u64; 64]);
        for (b, chunk) in slice.chunks(64).enumerate() {
            block.fill(0);
            for (x, &t) in block.iter_mut().zip(chunk) {
                // SAFETY: the caller's.
                *x = unsafe { I::rank(t.wide(), union) };
            }
            // SAFETY: the caller's.
            unsafe { I::columns(&block, ranks, &mut column) };
            for (r, &c) in column[..ranks].iter().enumerate() {
                sets[r * words + b] = c;
            }
        }
        // Each run's unions by doubling: entries `2^k..2^(k + 1)` are entries `0..2^k` with
        // the run's rank `k`'s set added, contiguous runs the compiler vectorises. Every
        // entry a probe word can select is written (a run of `len` ranks: its first
        // `2^len`), so the buffer only grows and is never cleared.
        let bytes = ranks.div_ceil(CHUNK);
        let tables = &mut *self.entries;
        // Sized by the caller (`aligned`): every table `ored` reads is filled below.
        debug_assert!(tables.len() >= bytes * ENTRIES * words);
        let spread = self.spread;
        match words {
            4 => double::<4>(tables, sets, bytes, spread),
            8 => double::<8>(tables, sets, bytes, spread),
            16 => double::<16>(tables, sets, bytes, spread),
            24 => double::<24>(tables, sets, bytes, spread),
            _ => double::<32>(tables, sets, bytes, spread),
        }
    }

    /// The table words each probe word meets, summed: the OR of its entries, counted. A loop
    /// per `K` (the tables' bytes of ranks); leaves' entries (8 words) get one of their own,
    /// so that an entry's offset is a shift.
    ///
    /// # Safety
    ///
    /// The CPU has `I`'s ISA.
    #[inline(always)]
    unsafe fn matched<I: Entry, E: SplitWord, const K: usize>(&self, probe: &[E]) -> u64 {
        // SAFETY: the caller's.
        unsafe {
            if I::WORDS == 4 {
                self.matched_in::<I, E, K, 4>(probe)
            } else if self.words == 8 {
                self.matched_in::<I, E, K, 8>(probe)
            } else {
                self.matched_in::<I, E, K, 0>(probe)
            }
        }
    }

    /// [`Tables::matched`] for entries of `W` words (0: the tables' `words`, known only when
    /// it runs), eight probe words a step ([`Entry::add8`]), eight words of their entries at
    /// a time.
    ///
    /// # Safety
    ///
    /// The CPU has `I`'s ISA.
    #[inline(always)]
    unsafe fn matched_in<I: Entry, E: SplitWord, const K: usize, const W: usize>(
        &self,
        probe: &[E],
    ) -> u64 {
        let words = if W == 0 { self.words } else { W };
        debug_assert!(words == self.words && K * ENTRIES * words <= self.entries.len());
        debug_assert!(words % I::WORDS == 0);
        let steps = probe.chunks_exact(8);
        let rest = steps.remainder();
        // SAFETY: the caller's; `ored`'s below.
        unsafe {
            let mut sum = I::zero();
            for c in (0..words).step_by(I::WORDS) {
                for s in steps.clone() {
                    read_ahead(s);
                    let e = [
                        self.ored::<I, K>(s[0].wide(), c, words),
                        self.ored::<I, K>(s[1].wide(), c, words),
                        self.ored::<I, K>(s[2].wide(), c, words),
                        self.ored::<I, K>(s[3].wide(), c, words),
                        self.ored::<I, K>(s[4].wide(), c, words),
                        self.ored::<I, K>(s[5].wide(), c, words),
                        self.ored::<I, K>(s[6].wide(), c, words),
                        self.ored::<I, K>(s[7].wide(), c, words),
                    ];
                    sum = I::add8(sum, e);
                }
                for &p in rest {
                    sum = I::add(sum, self.ored::<I, K>(p.wide(), c, words));
                }
            }
            I::total(sum)
        }
    }

    /// Words `c..c + I::WORDS` of the OR of the `K` entries probe word `p` selects, one per byte of
    /// its ranks (a zero byte selects entry 0 of its eight ranks, the empty union), so that
    /// every step runs the same loads.
    ///
    /// # Safety
    ///
    /// The CPU has `I`'s ISA; `words` is the tables' and `K` their bytes;
    /// `c + I::WORDS <= words`.
    #[inline(always)]
    unsafe fn ored<I: Entry, const K: usize>(&self, p: u64, c: usize, words: usize) -> I::E {
        // SAFETY: the caller's.
        let ranked = unsafe { I::place(I::rank(p, self.union), self.spread) };
        let at: [usize; K] = std::array::from_fn(|j| {
            (j * ENTRIES + ((ranked >> (CHUNK * j)) as usize & (ENTRIES - 1))) * words
        });
        let entries = self.entries.as_ptr();
        // SAFETY: `o + c + I::WORDS <= o + words <= entries.len()` for every `o` of `at`: a ranked
        // word has bits below the union's count only, and `K` is the tables' count of bytes.
        unsafe {
            let mut acc = I::load(entries.add(at[0] + c));
            for &o in &at[1..] {
                acc = I::or(acc, I::load(entries.add(o + c)));
            }
            acc
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Tables<'_> {
    /// [`Tables::met`] in AVX-512.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn met512<E: SplitWord>(&mut self, leaf: Leaf<E>, met: &mut [u64]) {
        // SAFETY: the features `Wide` needs are enabled here.
        unsafe { self.met::<Wide, E>(leaf, met) }
    }

    /// [`Tables::met`] in AVX2.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn met256<E: SplitWord>(&mut self, leaf: Leaf<E>, met: &mut [u64]) {
        // SAFETY: the features `Narrow` needs are enabled here.
        unsafe { self.met::<Narrow, E>(leaf, met) }
    }

    /// [`Tables::met`] in AVX2 for a slice of at most 256 half-boards: one vector an entry.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn met256_half<E: SplitWord>(&mut self, leaf: Leaf<E>, met: &mut [u64]) {
        // SAFETY: the features `Half` needs are enabled here.
        unsafe { self.met::<Half, E>(leaf, met) }
    }
}

/// The first `bytes` tables of unions of `W`-word `sets`, table `j` those of run `j` of the
/// ranks `spread` puts ([`run`]; see [`Tables::fill`]), a loop of
/// its own per size of entry (8 words for every leaf) so that each union is a few whole
/// vector ORs rather than a loop of unknown length.
#[inline(always)]
fn double<const W: usize>(tables: &mut [u64], sets: &[u64], bytes: usize, spread: u64) {
    for (j, table) in tables.chunks_exact_mut(ENTRIES * W).take(bytes).enumerate() {
        table[..W].fill(0);
        let (first, len) = run(spread, j);
        for k in 0..len {
            let set = &sets[(first + k) * W..(first + k + 1) * W];
            let (done, rest) = table.split_at_mut(W << k);
            let next = &mut rest[..W << k];
            // The set in registers and each entry read whole before it is written: written
            // in place, the compiler cannot tell the two apart and ORs a word at a time,
            // reloading the set.
            let set: [u64; W] = set.try_into().expect("a set is W words");
            for (to, from) in next.chunks_exact_mut(W).zip(done.chunks_exact(W)) {
                let mut entry: [u64; W] = from.try_into().expect("an entry is W words");
                for (e, s) in entry.iter_mut().zip(set) {
                    *e |= s;
                }
                to.copy_from_slice(&entry);
            }
        }
    }
}

/// Plain 64-bit words, on any CPU: an entry is eight of them.
pub(super) struct Words;

// SAFETY: no method needs a feature.
unsafe impl Entry for Words {
    type E = [u64; 8];
    type Sum = u64;

    #[inline(always)]
    unsafe fn rank(word: u64, union: u64) -> u64 {
        ranked(word, union)
    }
    #[inline(always)]
    unsafe fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
        for (r, o) in out.iter_mut().enumerate().take(ranks) {
            *o = block
                .iter()
                .enumerate()
                .fold(0, |m, (j, &x)| m | ((x >> r) & 1) << j);
        }
    }
    #[inline(always)]
    unsafe fn load(from: *const u64) -> [u64; 8] {
        // SAFETY: the caller's; unaligned.
        unsafe { from.cast::<[u64; 8]>().read_unaligned() }
    }
    #[inline(always)]
    unsafe fn or(a: [u64; 8], b: [u64; 8]) -> [u64; 8] {
        std::array::from_fn(|k| a[k] | b[k])
    }
    #[inline(always)]
    unsafe fn zero() -> u64 {
        0
    }
    #[inline(always)]
    unsafe fn add(sum: u64, e: [u64; 8]) -> u64 {
        sum + e.iter().map(|w| u64::from(w.count_ones())).sum::<u64>()
    }
    #[inline(always)]
    unsafe fn total(sum: u64) -> u64 {
        sum
    }
}

// SAFETY: AVX-512F, AVX-512 VPOPCNTDQ and BMI2 alone; the trait's contract puts them on the
// caller.
#[cfg(target_arch = "x86_64")]
unsafe impl Entry for Wide {
    type E = std::arch::x86_64::__m512i;
    type Sum = std::arch::x86_64::__m512i;

    #[inline(always)]
    unsafe fn rank(word: u64, union: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_pext_u64(word, union) }
    }
    #[inline(always)]
    unsafe fn place(ranked: u64, spread: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_pdep_u64(ranked, spread) }
    }
    /// AVX2's transpose ([`Narrow`]'s): it takes the same steps whatever the ranks.
    #[inline(always)]
    unsafe fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
        // SAFETY: the caller's; an AVX-512 CPU has AVX2.
        unsafe { Narrow::columns(block, ranks, out) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u64) -> Self::E {
        // SAFETY: the caller's; unaligned.
        unsafe { std::arch::x86_64::_mm512_loadu_si512(from.cast()) }
    }
    #[inline(always)]
    unsafe fn or(a: Self::E, b: Self::E) -> Self::E {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_mm512_or_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self::Sum {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn add(sum: Self::Sum, e: Self::E) -> Self::Sum {
        use std::arch::x86_64::*;
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { _mm512_add_epi64(sum, _mm512_popcnt_epi64(e)) }
    }
    #[inline(always)]
    unsafe fn total(sum: Self::Sum) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_mm512_reduce_add_epi64(sum) as u64 }
    }
}

/// The AVX2 count of a stream of entries (two vectors each), Harley and Seal's: vectors of
/// ones, twos, fours and eights kept across steps of eight entries, added to by carry-save
/// adders (five logic instructions a vector), so that only the sixteens, one vector in
/// sixteen, have their bits counted by nibble lookups. Entries added one at a time (the
/// last few of a probe) are counted into `plain`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct CarrySaveSum {
    ones: std::arch::x86_64::__m256i,
    twos: std::arch::x86_64::__m256i,
    fours: std::arch::x86_64::__m256i,
    eights: std::arch::x86_64::__m256i,
    /// Bits of sixteens, counted per 64-bit lane.
    sixteens: std::arch::x86_64::__m256i,
    /// Bits counted per 64-bit lane.
    plain: std::arch::x86_64::__m256i,
}

// SAFETY: AVX2 and BMI2 alone; the trait's contract puts them on the caller.
#[cfg(target_arch = "x86_64")]
unsafe impl Entry for Narrow {
    type E = (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i);
    type Sum = CarrySaveSum;

    #[inline(always)]
    unsafe fn rank(word: u64, union: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_pext_u64(word, union) }
    }
    #[inline(always)]
    unsafe fn place(ranked: u64, spread: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_pdep_u64(ranked, spread) }
    }
    /// A 64 x 64 bit transpose in registers (four words a register): six steps, each
    /// swapping the bits of rows `i` and `i + s` whose columns differ in `s` (at `s` of 4 and
    /// more between registers, at 2 and 1 between a register's lanes), where taking each
    /// rank's bits four words a step (`vmovmskpd`) costs 16 steps a rank.
    #[inline(always)]
    unsafe fn columns(block: &[u64; 64], _ranks: usize, out: &mut [u64; 64]) {
        use std::arch::x86_64::*;
        // SAFETY: the caller's; each load and store is four of the 64 words, unaligned.
        unsafe {
            let mut v = [_mm256_setzero_si256(); 16];
            for (k, x) in v.iter_mut().enumerate() {
                *x = _mm256_loadu_si256(block[4 * k..].as_ptr().cast());
            }
            // Rows `i` and `i + S` (`i` without bit `S`) in registers `S / 4` apart: row
            // `i + S`'s columns without bit `S` take row `i`'s with it, and back.
            macro_rules! across {
                ($s:literal, $mask:expr) => {
                    let m = _mm256_set1_epi64x($mask);
                    for k in (0..16).filter(|k| 4 * k & $s == 0) {
                        let (a, b) = (v[k], v[k + $s / 4]);
                        let t =
                            _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64::<$s>(a), b), m);
                        v[k + $s / 4] = _mm256_xor_si256(b, t);
                        v[k] = _mm256_xor_si256(a, _mm256_slli_epi64::<$s>(t));
                    }
                };
            }
            // The same between lanes of one register: `$swap` brings each row's partner
            // beside it, `$second` names the partners' (`i + S`) 32-bit halves.
            macro_rules! within {
                ($s:literal, $mask:expr, $swap:literal, $second:literal) => {
                    let m = _mm256_set1_epi64x($mask);
                    for x in v.iter_mut() {
                        let y = _mm256_permute4x64_epi64::<$swap>(*x);
                        let first =
                            _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64::<$s>(*x), y), m);
                        let second =
                            _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64::<$s>(y), *x), m);
                        let t =
                            _mm256_blend_epi32::<$second>(_mm256_slli_epi64::<$s>(first), second);
                        *x = _mm256_xor_si256(*x, t);
                    }
                };
            }
            across!(32, 0x0000_0000_ffff_ffff);
            across!(16, 0x0000_ffff_0000_ffff);
            across!(8, 0x00ff_00ff_00ff_00ff);
            across!(4, 0x0f0f_0f0f_0f0f_0f0f);
            within!(2, 0x3333_3333_3333_3333, 0x4e, 0xf0);
            within!(1, 0x5555_5555_5555_5555, 0xb1, 0xcc);
            for (k, x) in v.iter().enumerate() {
                _mm256_storeu_si256(out[4 * k..].as_mut_ptr().cast(), *x);
            }
        }
    }
    /// Two of [`Half`]'s entries.
    #[inline(always)]
    unsafe fn load(from: *const u64) -> Self::E {
        // SAFETY: the caller's: eight words at `from`, four for each.
        unsafe { (Half::load(from), Half::load(from.add(4))) }
    }
    #[inline(always)]
    unsafe fn or(a: Self::E, b: Self::E) -> Self::E {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { (Half::or(a.0, b.0), Half::or(a.1, b.1)) }
    }
    #[inline(always)]
    unsafe fn zero() -> CarrySaveSum {
        // SAFETY: the trait's contract: the CPU has this ISA.
        let zero = unsafe { std::arch::x86_64::_mm256_setzero_si256() };
        CarrySaveSum {
            ones: zero,
            twos: zero,
            fours: zero,
            eights: zero,
            sixteens: zero,
            plain: zero,
        }
    }
    #[inline(always)]
    unsafe fn add(sum: CarrySaveSum, e: Self::E) -> CarrySaveSum {
        use std::arch::x86_64::*;
        // SAFETY: the caller's.
        unsafe {
            let counted = _mm256_add_epi64(lane_counts(e.0), lane_counts(e.1));
            CarrySaveSum {
                plain: _mm256_add_epi64(sum.plain, counted),
                ..sum
            }
        }
    }
    #[inline(always)]
    unsafe fn add8(sum: CarrySaveSum, e: [Self::E; 8]) -> CarrySaveSum {
        use std::arch::x86_64::*;
        let CarrySaveSum {
            mut ones,
            mut twos,
            fours,
            eights,
            sixteens,
            plain,
        } = sum;
        let mut pairs = [ones; 4];
        // SAFETY: the caller's.
        let (fours, eights, sixteens) = unsafe {
            for (q, pair) in e.chunks_exact(2).zip(&mut pairs) {
                let (twos_a, o) = csa(ones, q[0].0, q[0].1);
                let (twos_b, o) = csa(o, q[1].0, q[1].1);
                ones = o;
                let (fours_ab, t) = csa(twos, twos_a, twos_b);
                twos = t;
                *pair = fours_ab;
            }
            let (eights_a, f) = csa(fours, pairs[0], pairs[1]);
            let (eights_b, fours) = csa(f, pairs[2], pairs[3]);
            let (sixteen, eights) = csa(eights, eights_a, eights_b);
            (
                fours,
                eights,
                _mm256_add_epi64(sixteens, lane_counts(sixteen)),
            )
        };
        CarrySaveSum {
            ones,
            twos,
            fours,
            eights,
            sixteens,
            plain,
        }
    }
    #[inline(always)]
    unsafe fn total(sum: CarrySaveSum) -> u64 {
        use std::arch::x86_64::*;
        // SAFETY: the caller's.
        unsafe {
            let mut total = _mm256_add_epi64(lane_counts(sum.ones), sum.plain);
            for (v, shift) in [
                (lane_counts(sum.twos), 1),
                (lane_counts(sum.fours), 2),
                (lane_counts(sum.eights), 3),
                (sum.sixteens, 4),
            ] {
                total = _mm256_add_epi64(total, _mm256_sll_epi64(v, _mm_cvtsi32_si128(shift)));
            }
            let mut lanes = [0u64; 4];
            // SAFETY: `lanes` is 32 bytes; the store is unaligned.
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), total);
            lanes.iter().sum()
        }
    }
}

/// AVX2 with one vector an entry: a table slice of at most 256 half-boards, whose entries
/// need four words, not [`Narrow`]'s eight. A leaf's cost is its entries' loads, and with
/// eight words an entry a slice of at most 256 loads as many words past its half-boards as
/// in them.
#[cfg(target_arch = "x86_64")]
pub(super) struct Half;

// SAFETY: AVX2 and BMI2 alone, as `Narrow`'s; the trait's contract puts them on the caller.
#[cfg(target_arch = "x86_64")]
unsafe impl Entry for Half {
    const WORDS: usize = 4;
    type E = std::arch::x86_64::__m256i;
    type Sum = CarrySaveSum;

    #[inline(always)]
    unsafe fn rank(word: u64, union: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { Narrow::rank(word, union) }
    }
    #[inline(always)]
    unsafe fn place(ranked: u64, spread: u64) -> u64 {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { Narrow::place(ranked, spread) }
    }
    #[inline(always)]
    unsafe fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
        // SAFETY: the trait's contract.
        unsafe { Narrow::columns(block, ranks, out) }
    }
    #[inline(always)]
    unsafe fn load(from: *const u64) -> Self::E {
        // SAFETY: the caller's; unaligned.
        unsafe { std::arch::x86_64::_mm256_loadu_si256(from.cast()) }
    }
    #[inline(always)]
    unsafe fn or(a: Self::E, b: Self::E) -> Self::E {
        // SAFETY: the trait's contract: the CPU has this ISA.
        unsafe { std::arch::x86_64::_mm256_or_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn zero() -> CarrySaveSum {
        // SAFETY: the trait's contract.
        unsafe { Narrow::zero() }
    }
    #[inline(always)]
    unsafe fn add(sum: CarrySaveSum, e: Self::E) -> CarrySaveSum {
        use std::arch::x86_64::*;
        // SAFETY: the caller's.
        unsafe {
            CarrySaveSum {
                plain: _mm256_add_epi64(sum.plain, lane_counts(e)),
                ..sum
            }
        }
    }
    /// Narrow's carry-save adders over eight vectors a step: the step's one vector of
    /// eights is added to the running eights by a half adder, whose carry (the sixteens) is
    /// counted.
    #[inline(always)]
    unsafe fn add8(sum: CarrySaveSum, e: [Self::E; 8]) -> CarrySaveSum {
        use std::arch::x86_64::*;
        let CarrySaveSum {
            ones,
            twos,
            fours,
            eights,
            sixteens,
            plain,
        } = sum;
        // SAFETY: the caller's.
        unsafe {
            let (twos_a, ones) = csa(ones, e[0], e[1]);
            let (twos_b, ones) = csa(ones, e[2], e[3]);
            let (fours_a, twos) = csa(twos, twos_a, twos_b);
            let (twos_a, ones) = csa(ones, e[4], e[5]);
            let (twos_b, ones) = csa(ones, e[6], e[7]);
            let (fours_b, twos) = csa(twos, twos_a, twos_b);
            let (eights_a, fours) = csa(fours, fours_a, fours_b);
            let sixteen = _mm256_and_si256(eights, eights_a);
            CarrySaveSum {
                ones,
                twos,
                fours,
                eights: _mm256_xor_si256(eights, eights_a),
                sixteens: _mm256_add_epi64(sixteens, lane_counts(sixteen)),
                plain,
            }
        }
    }
    #[inline(always)]
    unsafe fn total(sum: CarrySaveSum) -> u64 {
        // SAFETY: the trait's contract.
        unsafe { Narrow::total(sum) }
    }
}

/// A carry-save adder: of three vectors' bits in each position, the carry and the sum.
///
/// # Safety
///
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn csa(
    a: std::arch::x86_64::__m256i,
    b: std::arch::x86_64::__m256i,
    c: std::arch::x86_64::__m256i,
) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        let u = _mm256_xor_si256(a, b);
        let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
        (carry, _mm256_xor_si256(u, c))
    }
}

/// The bits of `v`, counted per 64-bit lane.
///
/// # Safety
///
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn lane_counts(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe { _mm256_sad_epu8(byte_counts(v), _mm256_setzero_si256()) }
}

/// The bits set in each byte of `v` (0 to 8), by two nibble lookups (`vpshufb`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn byte_counts(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let nibbles = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let lo = _mm256_shuffle_epi8(nibbles, _mm256_and_si256(v, low));
    let hi = _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
    _mm256_add_epi8(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::super::matching::tests::{every_pair, words};
    use super::super::word::Isa;
    use super::*;
    use crate::types::Kernel;

    /// Each loop counts a leaf as testing every pair does, on each side of the widths its
    /// entries change at (one vector of AVX2 up to 256 half-boards, eight words up to 512,
    /// then slices), with probe groups whose words do not fill the last step of eight, and
    /// ranks that fill their last table (48) or not (45: only its first 32 entries filled).
    #[test]
    fn every_entry_width_counts_what_every_pair_counts() {
        let mut state = 0x5851_f42d_4c95_7f2d;
        let sizes = [1, 63, 64, 65, 200, 255, 256, 257, 300, 511, 512, 513, 2100];
        for (tables, width) in sizes.into_iter().flat_map(|t| [(t, 48), (t, 45)]) {
            // Enough probe words that the tables are filled, not every pair tested.
            let probes = (ENTRIES * 8 * 6 / tables).max(301) + 5;
            let table = words(tables, 12, width, &mut state);
            let probe = words(probes, 12, width, &mut state);
            let spans = [0..probes / 3, probes / 3..probes];
            let every = every_pair(&table, &probe, &spans);
            assert!(every.iter().all(|&e| e > 0), "the case matches nothing");
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                if kernel.resolve().is_err() {
                    continue;
                }
                let mut out = [0, 0];
                let leaf = (&table[..], &probe[..], &spans[..]);
                let within = (64 << 20, Isa::of(kernel));
                Bitsets::default().disjoint(leaf, !0, within, &mut out);
                assert_eq!(out[..], every[..], "{tables} {width} {kernel:?}");
            }
        }
    }

    /// Every count of ranks is cut into `ceil(ranks / 8)` tables, each a run of ranks at the
    /// bottom of its byte: even runs differ by one at most, the plain loop's are eight but
    /// the last. A ranked word put at the spread (`pdep` where the CPU has it, and the
    /// plain loop) gives each table its own run of ranks.
    #[test]
    fn ranks_are_cut_into_runs_one_a_table() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for ranks in 1..=64 {
            for even in [false, true] {
                let spread = spread(ranks, even);
                assert_eq!(spread.count_ones() as usize, ranks, "{ranks} {even}");
                let tables = ranks.div_ceil(CHUNK);
                let lens: Vec<usize> = (0..8).map(|j| run(spread, j).1).collect();
                assert!(lens[tables..].iter().all(|&l| l == 0), "{ranks} {even}");
                assert!(lens[..tables].iter().all(|&l| (1..=CHUNK).contains(&l)));
                let (least, most) = (lens[..tables].iter().min(), lens[..tables].iter().max());
                if even {
                    assert!(most.unwrap() - least.unwrap() <= 1, "{ranks}: {lens:?}");
                } else {
                    assert!(lens[..tables - 1].iter().all(|&l| l == CHUNK), "{lens:?}");
                }
                for j in 0..8 {
                    let byte = spread >> (CHUNK * j) & 0xff;
                    assert_eq!(byte & (byte + 1), 0, "{ranks} {even}: byte {j} {byte:#x}");
                }
                let low = if ranks == 64 { !0 } else { (1u64 << ranks) - 1 };
                for _ in 0..64 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    let ranked = state & low;
                    // SAFETY: `Words` needs no feature.
                    let placed = unsafe { Words::place(ranked, spread) };
                    #[cfg(target_arch = "x86_64")]
                    if std::arch::is_x86_feature_detected!("bmi2") {
                        // SAFETY: the CPU has BMI2, which `Narrow::place` takes.
                        assert_eq!(unsafe { Narrow::place(ranked, spread) }, placed);
                    }
                    for j in 0..tables {
                        let (first, len) = run(spread, j);
                        let own = ranked >> first & ((1u64 << len) - 1);
                        assert_eq!(placed >> (CHUNK * j) & 0xff, own, "{ranks} {even} {j}");
                    }
                }
            }
        }
    }

    /// A leaf ranks only the diagonals both sides use: where the probe words use fewer of
    /// the table's (or some it lacks), each loop still counts what every pair counts, with
    /// fewer bytes of ranks than the table's diagonals alone would take.
    #[test]
    fn a_leaf_ranks_only_the_diagonals_both_sides_use() {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        // Table diagonals 0..48; the first probe group's 0..20 (with the second's, 0..24: 3
        // bytes of ranks, not 6), 28..58 (20 shared: 3 bytes) and 40..52 (8 shared: 1 byte).
        for (tables, (width, shift)) in [200, 300, 512]
            .into_iter()
            .flat_map(|t| [(20, 0), (30, 28), (12, 40)].map(|c| (t, c)))
        {
            let table = words(tables, 12, 48, &mut state);
            let probes = ENTRIES * 8 * 6 / tables + 37;
            // The second group's diagonals four above the first's: neither side's alone.
            let probe: Vec<u64> = words(probes, 6, width, &mut state)
                .into_iter()
                .enumerate()
                .map(|(i, w)| w << (shift + if i < probes / 2 { 0 } else { 4 }))
                .collect();
            let spans = [0..probes / 2, probes / 2..probes];
            let leaf = (&table[..], &probe[..], &spans[..]);
            let both = unions(leaf, Isa::Scalar);
            assert!(
                both.count_ones().div_ceil(8) < 6,
                "{width} {shift}: no rank saved"
            );
            let every = every_pair(&table, &probe, &spans);
            assert!(every.iter().all(|&e| e > 0), "the case matches nothing");
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                if kernel.resolve().is_err() {
                    continue;
                }
                assert_eq!(unions(leaf, Isa::of(kernel)), both, "{kernel:?}");
                let mut out = [0, 0];
                let within = (64 << 20, Isa::of(kernel));
                Bitsets::default().disjoint(leaf, !0, within, &mut out);
                assert_eq!(out[..], every[..], "{tables} {width} {shift} {kernel:?}");
            }
        }
    }
}
