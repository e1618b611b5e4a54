//! Matching: the pairs of a key's left and right half-boards whose words share a bit (a
//! diagonal), counted with bitsets: for each eight diagonals in play, the unions of every
//! subset of their sets of half-boards, ORed per probe word and counted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{Lanes, Word};

/// Bytes a table of `words` words per entry takes, with its sets (at most 64 diagonals in
/// play, eight bytes of them).
fn table_bytes(words: usize) -> usize {
    (64 + 64usize.div_ceil(CHUNK) * ENTRIES) * words * 8
}

/// Ranks per table chunk: a probe word's ranks are read `CHUNK` at a time, each chunk
/// selecting one of its table's `2^CHUNK` entries (the unions of every subset of the
/// chunk's sets).
/// Eight: at n = 18 on Zen 4 (one thread, user time) 3.1-3.5 s, against 3.2-3.6 with six,
/// 3.9-4.3 with five and 3.6-4.0 with four (smaller tables, more loads per probe word).
const CHUNK: usize = 8;
/// Entries of one chunk's table.
const ENTRIES: usize = 1 << CHUNK;

/// The most words a table slice holds (2048 half-boards): its entries, 256 per eight ranks of
/// 256 bytes each (320 KB for the usual five), stay in a core's L2 cache. Only a table the
/// split could not bring down to [`LEAF`] (its bits ran out) is sliced.
const SLICE_WORDS: usize = 32;

/// The least a key's matching needs: a table slice of eight words (512 half-boards).
pub const MIN_BYTES: usize = 8 * (64 + 64usize.div_ceil(CHUNK) * ENTRIES) * 8;

/// The most half-boards a table leaf holds: the split goes on below it, one diagonal at a
/// time, until a side has at most this many (one slice of eight words, 512 bits).
pub(super) const LEAF: usize = 512;

/// The least room the split levels' filtered probe words take, in probe sides (see
/// [`room`]): deeper levels past it are matched unfiltered (see [`split`]).
pub(super) const LEVELS: usize = 2;

/// The most room the split levels' filtered probe words take, in probe sides, where the
/// thread's budget has it: with two, random keys of n = 22 took 1.10x the time of levels
/// without a bound (one thread, least of 3 alternated runs), with sixteen 0.85x of two.
pub(super) const ROOM_MOST: usize = 16;

/// Words of room for the filtered levels of a matching of `table` and `probe` words within
/// `bytes`: what half the budget leaves beyond the table (three times: it, the words a
/// split moves aside, and a copy the caller may hold) and the probe (twice: it and the
/// other side's buffer), at least [`LEVELS`] probe sides (what the chunks' size allows for)
/// and at most [`ROOM_MOST`]. Half: the budget's other uses (the pieces each thread keeps
/// beyond the shared ones, vectors' slack) are not counted, and a run filling every
/// thread's share would pass `--memory`. Where the sides fill the chunks (n = 26), the room
/// is its least.
fn room(bytes: usize, table: usize, probe: usize) -> usize {
    let spare = (bytes / 16).saturating_sub(3 * table + 2 * probe);
    spare.clamp(LEVELS * probe, ROOM_MOST * probe) + 64
}

/// Most probe groups a matching takes (one per middle row of an odd board).
pub(super) const MAX_GROUPS: usize = 32;

/// What the matching did, all threads together since the process started ([`tally`]):
/// one atomic add per matching or leaf, each thousands of word steps.
struct Tally {
    every: AtomicU64,
    tested: AtomicU64,
    leaves: AtomicU64,
}

static TALLY: Tally = Tally {
    every: AtomicU64::new(0),
    tested: AtomicU64::new(0),
    leaves: AtomicU64::new(0),
};

/// What the matching has done so far in this process, all threads together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matched {
    /// Pairs of half-boards the matchings were given: what testing every pair tests.
    pub pairs: u64,
    /// Pairs tested at the leaves, bitset tables or one by one: the rest were ruled out
    /// by splitting on a diagonal.
    pub tested: u64,
    /// Leaves counted.
    pub leaves: u64,
}

/// The matching's totals so far ([`Matched`]).
pub fn matched() -> Matched {
    Matched {
        pairs: TALLY.every.load(Ordering::Relaxed),
        tested: TALLY.tested.load(Ordering::Relaxed),
        leaves: TALLY.leaves.load(Ordering::Relaxed),
    }
}

/// A thread's buffers for matching, reused from key to key: the split levels' filtered
/// probe words, the table words a split moves aside, and a leaf's sets and tables.
#[derive(Default)]
pub(super) struct Matcher {
    levels: Vec<Word>,
    aside: Vec<Word>,
    sets: Vec<u64>,
    tables: Vec<u64>,
}

/// What a matching may use: its thread's share of the memory, and a flag that abandons it
/// (the split stops going down once it is set; see [`super::Cut::count_until`]).
#[derive(Clone, Copy)]
pub(super) struct Within<'a> {
    /// Bytes of this thread's budget.
    pub bytes: usize,
    /// Set to abandon the matching.
    pub stop: &'a AtomicBool,
}

impl Matcher {
    /// Adds to `out[g]` the pairs of a `table` word and a word of probe group `g` (which
    /// ends at `ends[g]`) that share no bit: the pairs that make a solution.
    ///
    /// Counting every pair would test far more than there are solutions (about 3,000 pairs
    /// per solution at n = 18, 7,400 at n = 20, and more as n grows). So the table side is
    /// split first, one diagonal at a time, the most contested first (in both sides'
    /// samples): its words without the diagonal meet every probe word there, those with it
    /// only the probe words without it, which are filtered into a buffer of their own (all
    /// levels' together in a room of [`room`]'s size: unbounded, at n = 26 they
    /// took `estimate 26 -j 2` to 3.16 GB in its 2 GiB). Each side of the split loses that
    /// diagonal; once the table side has at most [`LEAF`] words, its pairs are counted with
    /// bitset tables over the diagonals still in play. The table side is reordered; the
    /// probe words are not changed.
    pub(super) fn disjoint(
        &mut self,
        table: &mut [Word],
        probe: &[Word],
        ends: &[usize],
        out: &mut [u64],
        within: Within,
        lanes: Lanes,
    ) {
        debug_assert!(ends.len() <= MAX_GROUPS && ends.last() == Some(&probe.len()));
        TALLY
            .every
            .fetch_add((table.len() * probe.len()) as u64, Ordering::Relaxed);
        let order = if table.len() > LEAF {
            contested(table, probe)
        } else {
            Order::default()
        };
        // Room for the filtered levels, where there is a split (`room`), every word of it
        // written once (only the room grows, from key to key). A table of one leaf needs
        // none: on an odd board its probe may be every middle row's right half-boards.
        let room = if order.len > 0 {
            room(within.bytes, table.len(), probe.len())
        } else {
            0
        };
        if self.levels.len() < room {
            self.levels.resize(room, 0);
        }
        let mut leaf = Leaf {
            budget: within.bytes,
            stop: within.stop,
            lanes,
            aside: &mut self.aside,
            sets: &mut self.sets,
            tables: &mut self.tables,
        };
        split(
            table,
            probe,
            ends,
            !0,
            &order.bits[..order.len],
            out,
            &mut self.levels[..room],
            &mut leaf,
        );
    }

    /// Adds to `out[0]` the pairs of a word of `a` and a word of `b` that share no bit, the
    /// side [`table_first`] picks as the table (reordered), the other as one probe group.
    pub(super) fn either(
        &mut self,
        a: &mut [Word],
        b: &mut [Word],
        out: &mut [u64],
        within: Within,
        lanes: Lanes,
    ) {
        let (table, probe) = if table_first(a.len(), b.len()) {
            (a, &*b)
        } else {
            (b, &*a)
        };
        self.disjoint(table, probe, &[probe.len()], out, within, lanes);
    }
}

/// Whether a side of `a` words should be the table against one of `b` (else `b`'s).
///
/// A model of [`Matcher::disjoint`]: the table side is split until its parts fit a leaf,
/// `log2(t / LEAF)` levels; each level keeps every probe word on the side without the
/// diagonal and about half on the side with it, so a probe word is matched in about `1.5`
/// leaves per level, `p * (t / LEAF)^0.585` in all, and each leaf's tables are filled once.
/// The larger side is usually the better table (fewer probe words, each matched in fewer
/// leaves), unless the other is so small that fills would outweigh it. On Zen 4, one
/// thread, random keys against "the smaller side is the table": n = 22 1.27x faster, 23
/// 1.23x, 24 1.63x, 25 1.63x; n = 19 and 20 level, n = 21 0.9x (level on 2 threads by
/// shards; results/README.md). It decides only how a key is counted, never what.
fn table_first(a: usize, b: usize) -> bool {
    let cost = |t: usize, p: usize| {
        let leaves = (t as f64 / LEAF as f64).max(1.0);
        p as f64 * leaves.powf(0.585) + leaves * FILL
    };
    cost(a, b) <= cost(b, a)
}

/// What filling one leaf's tables costs, in probe words matched: about `2 * 256 * K`
/// vector stores and ORs for `K` bytes of ranks, where a probe word takes `K` loads, `K`
/// ORs and a count.
const FILL: f64 = 700.0;

/// The diagonals a split goes through, most contested first.
struct Order {
    bits: [u64; 64],
    len: usize,
}

impl Default for Order {
    fn default() -> Order {
        Order {
            bits: [0; 64],
            len: 0,
        }
    }
}

/// The bits both sides use, ordered by the product of their shares in samples of at most
/// about 256 words of each side (ties to the lower bit): the diagonals where a table word
/// and a probe word most often meet, whose split drops the most pairs.
fn contested(table: &[Word], probe: &[Word]) -> Order {
    let tally = |v: &[Word]| {
        let mut c = [0u64; 64];
        for &w in v.iter().step_by((v.len() / 256).max(1)) {
            let mut b = w;
            while b != 0 {
                c[b.trailing_zeros() as usize] += 1;
                b &= b - 1;
            }
        }
        c
    };
    let (a, b) = (tally(table), tally(probe));
    let mut scored: Vec<(u64, usize)> = (0..64)
        .map(|i| (a[i] * b[i], i))
        .filter(|&(s, _)| s > 0)
        .collect();
    scored.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut order = Order::default();
    for (k, &(_, i)) in scored.iter().enumerate() {
        order.bits[k] = 1 << i;
    }
    order.len = scored.len();
    order
}

/// The probe groups' ranges, from their ends.
fn groups(ends: &[usize]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    (0..ends.len()).map(|g| g.checked_sub(1).map_or(0, |f| ends[f])..ends[g])
}

/// One split level of [`Matcher::disjoint`]: `live` holds the diagonals still in play,
/// `order` those left to split on; the front of `levels` takes this level's filtered probe
/// words (after the side without the diagonal is done, so that its levels use the same
/// room), the rest the levels below. Where the room runs out, the probe is not filtered:
/// the same pairs are counted at the leaves, with more probe words. So the filtered levels
/// of a matching never take more than the room its caller gave them.
#[allow(clippy::too_many_arguments)]
fn split(
    table: &mut [Word],
    probe: &[Word],
    ends: &[usize],
    live: u64,
    order: &[u64],
    out: &mut [u64],
    levels: &mut [Word],
    leaf: &mut Leaf,
) {
    if table.is_empty() || probe.is_empty() || leaf.stop.load(Ordering::Relaxed) {
        return;
    }
    let Some((&bit, order)) = order.split_first().filter(|_| table.len() > LEAF) else {
        leaf.disjoint(table, probe, ends, live, out);
        return;
    };
    let without = partition(table, bit, leaf.lanes, leaf.aside);
    let (t0, t1) = table.split_at_mut(without);
    split(t0, probe, ends, live & !bit, order, out, levels, leaf);
    if levels.len() < probe.len() + 8 {
        // No room left to filter: the probe words with `bit` stay, and `bit` stays in play,
        // where every table word has it, so they meet every one.
        split(t1, probe, ends, live, order, out, levels, leaf);
        return;
    }
    // The probe words without `bit`, group by group, in front of the levels below.
    let (mut len, mut kept) = (0, [0usize; MAX_GROUPS]);
    for (g, range) in groups(ends).enumerate() {
        len += filter(&probe[range], bit, &mut levels[len..], leaf.lanes);
        kept[g] = len;
    }
    let (filtered, below) = levels.split_at_mut(len);
    let ends = &kept[..ends.len()];
    split(t1, filtered, ends, live & !bit, order, out, below, leaf);
}

/// Puts the words of `table` without `bit` first and returns how many there are; `aside`
/// is a buffer the vector loop may use.
fn partition(table: &mut [Word], bit: u64, lanes: Lanes, aside: &mut Vec<Word>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Lanes::Avx2 = lanes {
        // SAFETY: `Lanes::of` picked AVX2 only where the CPU has it.
        return unsafe { super::pack::partition256(table, bit, aside) };
    }
    let _ = (lanes, aside);
    // A branchless partition: each word is swapped into place and the boundary moves past
    // it when it lacks the bit.
    let mut without = 0;
    for j in 0..table.len() {
        let w = table[j];
        table.swap(j, without);
        without += usize::from(w & bit == 0);
    }
    without
}

/// Writes the words of `from` without `bit` to the front of `to` (room for every word and
/// one vector more), in order, and returns how many there are.
fn filter(from: &[Word], bit: u64, to: &mut [Word], lanes: Lanes) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Lanes::Avx512 = lanes {
        // SAFETY: `Lanes::of` picked AVX-512 only where the CPU has it.
        return unsafe { super::pack::filter512(from, bit, to) };
    }
    #[cfg(target_arch = "x86_64")]
    if let Lanes::Avx2 = lanes {
        // SAFETY: `Lanes::of` picked AVX2 only where the CPU has it.
        return unsafe { super::pack::filter256(from, bit, to) };
    }
    let _ = lanes;
    filter_words(from, bit, to)
}

/// [`filter`] a word at a time (the plain loop, and the vector loops' last few words).
pub(super) fn filter_words(from: &[u64], bit: u64, to: &mut [u64]) -> usize {
    // Every word written, the kept ones advancing the end: no branch to mispredict.
    let to = &mut to[..from.len()];
    let mut len = 0;
    for &w in from {
        to[len] = w;
        len += usize::from(w & bit == 0);
    }
    len
}

/// What a leaf needs besides its words: the memory its tables may take, the instructions
/// they run in, and the buffers they are built in.
struct Leaf<'a> {
    budget: usize,
    stop: &'a AtomicBool,
    lanes: Lanes,
    aside: &'a mut Vec<Word>,
    sets: &'a mut Vec<u64>,
    tables: &'a mut Vec<u64>,
}

impl Leaf<'_> {
    /// Adds to `out[g]` the pairs of `table` and group `g` of `probe` that share no bit of
    /// `live` (the other bits are settled: no table word shares them with a probe word).
    fn disjoint(
        &mut self,
        table: &[Word],
        probe: &[Word],
        ends: &[usize],
        live: u64,
        out: &mut [u64],
    ) {
        let union = table.iter().fold(0, |u, &w| u | w) & live;
        let ranks = union.count_ones() as usize;
        let all = |range: &std::ops::Range<usize>| (table.len() * range.len()) as u64;
        TALLY
            .tested
            .fetch_add((table.len() * probe.len()) as u64, Ordering::Relaxed);
        TALLY.leaves.fetch_add(1, Ordering::Relaxed);
        if ranks == 0 {
            for (g, range) in groups(ends).enumerate() {
                out[g] += all(&range);
            }
            return;
        }
        // Small leaves: every pair tested is cheaper than a table.
        if (table.len() * probe.len()) < ENTRIES * 8 * ranks.div_ceil(CHUNK) {
            for (g, range) in groups(ends).enumerate() {
                out[g] += table
                    .iter()
                    .map(|&t| probe[range.clone()].iter().filter(|&&p| p & t == 0).count() as u64)
                    .sum::<u64>();
            }
            return;
        }
        let mut met = [0u64; MAX_GROUPS];
        let most = (self.budget / table_bytes(1)).clamp(8, SLICE_WORDS) / 8 * 8;
        for slice in table.chunks(64 * most) {
            let words = slice.len().div_ceil(64).next_multiple_of(8);
            let mut t = Tables {
                union,
                words,
                sets: &mut *self.sets,
                entries: &mut *self.tables,
            };
            match self.lanes {
                #[cfg(target_arch = "x86_64")]
                Lanes::Avx512 => {
                    // SAFETY: `Lanes::of` picked these only where the CPU has their features.
                    unsafe { t.fill512(slice) };
                    for (g, range) in groups(ends).enumerate() {
                        // SAFETY: as above.
                        met[g] += unsafe { t.matched512(&probe[range]) };
                    }
                }
                #[cfg(target_arch = "x86_64")]
                Lanes::Avx2 => {
                    // SAFETY: as above.
                    unsafe { t.fill256(slice) };
                    for (g, range) in groups(ends).enumerate() {
                        // SAFETY: as above.
                        met[g] += unsafe { t.matched256(&probe[range]) };
                    }
                }
                Lanes::Scalar => {
                    t.fill(slice, |w| ranked(w, union), columns);
                    for (g, range) in groups(ends).enumerate() {
                        met[g] += t.matched_scalar(&probe[range]);
                    }
                }
            }
        }
        for (g, range) in groups(ends).enumerate() {
            out[g] += all(&range) - met[g];
        }
    }
}

/// Each rank's bits of a block of 64 ranked words, as one word per rank (plain words).
pub(super) fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
    for (r, o) in out.iter_mut().enumerate().take(ranks) {
        *o = block
            .iter()
            .enumerate()
            .fold(0, |m, (j, &x)| m | ((x >> r) & 1) << j);
    }
}

/// The first `bytes` tables of unions of `W`-word `sets` (see [`Tables::fill`]), a loop of
/// its own per size of entry (8 words for every leaf) so that each union is a few whole
/// vector ORs rather than a loop of unknown length.
#[inline(always)]
fn double<const W: usize>(tables: &mut [u64], sets: &[u64], bytes: usize) {
    for (j, table) in tables.chunks_exact_mut(ENTRIES * W).take(bytes).enumerate() {
        table[..W].fill(0);
        for k in 0..CHUNK {
            let (done, rest) = table.split_at_mut(W << k);
            let next = &mut rest[..W << k];
            match sets.get((CHUNK * j + k) * W..(CHUNK * j + k + 1) * W) {
                Some(set) => {
                    // The set in registers and each entry read whole before it is written:
                    // written in place, the compiler could not tell the two apart and ORed
                    // a word at a time, reloading the set (on Zen 3, a fifth of n = 19).
                    let set: [u64; W] = set.try_into().expect("a set is W words");
                    for (to, from) in next.chunks_exact_mut(W).zip(done.chunks_exact(W)) {
                        let mut entry: [u64; W] = from.try_into().expect("an entry is W words");
                        for (e, s) in entry.iter_mut().zip(set) {
                            *e |= s;
                        }
                        to.copy_from_slice(&entry);
                    }
                }
                None => next.copy_from_slice(done),
            }
        }
    }
}

/// One slice's sets and tables of unions (`words` words each, a multiple of 8).
struct Tables<'a> {
    union: u64,
    words: usize,
    sets: &'a mut Vec<u64>,
    /// `entries[(j * 256 + v) * words..][..words]`: the union of the sets of ranks
    /// `8j + (the bits of v)`.
    entries: &'a mut Vec<u64>,
}

impl Tables<'_> {
    /// Builds the sets and tables of `slice` (its words ranked by `rank`); `columns` turns
    /// 64 ranked words into the 64-bit set of each rank (a bit matrix transposed, a block
    /// at a time: setting bit by bit in memory chained each store to the last).
    #[inline(always)]
    fn fill(
        &mut self,
        slice: &[Word],
        rank: impl Fn(u64) -> u64,
        columns: impl Fn(&[u64; 64], usize, &mut [u64; 64]),
    ) {
        let (words, ranks) = (self.words, self.union.count_ones() as usize);
        let sets = &mut *self.sets;
        sets.clear();
        sets.resize(ranks * words, 0);
        let (mut block, mut column) = ([0u64; 64], [0u64; 64]);
        for (b, chunk) in slice.chunks(64).enumerate() {
            block.fill(0);
            for (x, &t) in block.iter_mut().zip(chunk) {
                *x = rank(t);
            }
            columns(&block, ranks, &mut column);
            for (r, &c) in column[..ranks].iter().enumerate() {
                sets[r * words + b] = c;
            }
        }
        // Each eight ranks' 256 unions by doubling: entries `2^k..2^(k + 1)` are entries
        // `0..2^k` with rank `k`'s set added, contiguous runs the compiler vectorises. Every
        // entry is written, so the buffer only grows and is never cleared.
        let bytes = ranks.div_ceil(CHUNK);
        let tables = &mut *self.entries;
        if tables.len() < bytes * ENTRIES * words {
            tables.resize(bytes * ENTRIES * words, 0);
        }
        match words {
            8 => double::<8>(tables, sets, bytes),
            16 => double::<16>(tables, sets, bytes),
            24 => double::<24>(tables, sets, bytes),
            _ => double::<32>(tables, sets, bytes),
        }
    }

    /// The offsets of the entries a ranked probe word selects, one per nonzero byte. Each
    /// is `words` words inside `entries`: a ranked word has bits below the union's count
    /// only, so its bytes `j` stay below the tables' count.
    #[inline(always)]
    fn select(&self, ranked: u64, at: &mut [usize; 64]) -> usize {
        let mut k = 0;
        for j in 0..64usize.div_ceil(CHUNK) {
            let v = (ranked >> (CHUNK * j)) as usize & (ENTRIES - 1);
            if v != 0 {
                at[k] = (j * ENTRIES + v) * self.words;
                k += 1;
            }
        }
        k
    }

    /// The table members each probe word meets, summed: the OR of its entries, counted.
    fn matched_scalar(&self, probe: &[Word]) -> u64 {
        let (mut meets, mut at, mut acc) = (0, [0usize; 64], [0u64; 8]);
        for &p in probe {
            let k = self.select(ranked(p, self.union), &mut at);
            for c in (0..self.words).step_by(8) {
                acc.fill(0);
                for &o in &at[..k] {
                    for (a, t) in acc.iter_mut().zip(&self.entries[o + c..o + c + 8]) {
                        *a |= t;
                    }
                }
                meets += acc.iter().map(|a| u64::from(a.count_ones())).sum::<u64>();
            }
        }
        meets
    }
}

/// `$tables.$loop::<K>($probe)` with `K` the tables' count of bytes of ranks (1 to 8), so
/// that each count gets a loop of its own with its loads unrolled.
#[cfg(target_arch = "x86_64")]
macro_rules! per_bytes {
    ($tables:expr, $loop:ident, $probe:expr) => {
        match ($tables.union.count_ones() as usize).div_ceil(CHUNK) {
            1 => $tables.$loop::<1>($probe),
            2 => $tables.$loop::<2>($probe),
            3 => $tables.$loop::<3>($probe),
            4 => $tables.$loop::<4>($probe),
            5 => $tables.$loop::<5>($probe),
            6 => $tables.$loop::<6>($probe),
            7 => $tables.$loop::<7>($probe),
            8 => $tables.$loop::<8>($probe),
            9 => $tables.$loop::<9>($probe),
            10 => $tables.$loop::<10>($probe),
            11 => $tables.$loop::<11>($probe),
            12 => $tables.$loop::<12>($probe),
            _ => $tables.$loop::<13>($probe),
        }
    };
}

#[cfg(target_arch = "x86_64")]
impl Tables<'_> {
    /// [`Tables::fill`] compiled for AVX-512 (the unions eight words a step), each rank's
    /// bits of eight words taken at once by `vptestmq`.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn fill512(&mut self, slice: &[Word]) {
        use std::arch::x86_64::*;
        let union = self.union;
        let columns = |block: &[u64; 64], ranks: usize, out: &mut [u64; 64]| {
            // SAFETY: each load reads eight of the block's 64 words; unaligned.
            let v: [__m512i; 8] = std::array::from_fn(|k| unsafe {
                _mm512_loadu_si512(block[8 * k..].as_ptr().cast())
            });
            for (r, o) in out.iter_mut().enumerate().take(ranks) {
                let bit = _mm512_set1_epi64(1 << r);
                *o = v.iter().enumerate().fold(0u64, |m, (k, &x)| {
                    m | u64::from(_mm512_test_epi64_mask(x, bit)) << (8 * k)
                });
            }
        };
        self.fill(slice, |w| _pext_u64(w, union), columns);
    }

    /// [`Tables::fill`] compiled for AVX2, each block of 64 words turned into its ranks'
    /// sets by a 64 x 64 bit transpose in registers (four words a register): six rounds,
    /// each swapping the bits of rows `i` and `i + s` whose columns differ in `s` (at `s` of
    /// 4 and more between registers, at 2 and 1 between a register's lanes). Taking each
    /// rank's bits four words a step (`vmovmskpd`) instead cost 16 steps a rank, two thirds
    /// of the fill on Zen 3.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn fill256(&mut self, slice: &[Word]) {
        use std::arch::x86_64::*;
        let union = self.union;
        let columns = |block: &[u64; 64], _ranks: usize, out: &mut [u64; 64]| {
            // SAFETY: each load reads four of the block's 64 words; unaligned.
            let mut v: [__m256i; 16] = std::array::from_fn(|k| unsafe {
                _mm256_loadu_si256(block[4 * k..].as_ptr().cast())
            });
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
                // SAFETY: each store writes four of `out`'s 64 words; unaligned.
                unsafe { _mm256_storeu_si256(out[4 * k..].as_mut_ptr().cast(), *x) };
            }
        };
        self.fill(slice, |w| _pext_u64(w, union), columns);
    }

    /// The table entries a ranked probe word selects, all `K` of them (a zero byte selects
    /// entry 0 of its eight ranks, the empty union), so that the loops below run a fixed
    /// number of loads per step. Each is `words` words (the tables' `words`, passed as a
    /// constant where a loop is written for one width) inside `entries`: a ranked word has
    /// bits below the union's count only, and `K` is the tables' count of bytes.
    #[inline(always)]
    fn every<const K: usize>(&self, ranked: u64, words: usize) -> [usize; K] {
        debug_assert_eq!(words, self.words);
        std::array::from_fn(|j| {
            (j * ENTRIES + ((ranked >> (CHUNK * j)) as usize & (ENTRIES - 1))) * words
        })
    }

    /// [`Tables::matched_scalar`] with AVX-512: eight words of the entries a step, counted
    /// by `vpopcntq`, one loop per count of bytes.
    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn matched512(&self, probe: &[Word]) -> u64 {
        per_bytes!(self, matched512k, probe)
    }

    #[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
    fn matched512k<const K: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(K * ENTRIES * self.words <= self.entries.len());
        let (entries, words) = (self.entries.as_ptr(), self.words);
        let mut sum = _mm512_setzero_si512();
        for &p in probe {
            let at = self.every::<K>(std::arch::x86_64::_pext_u64(p, self.union), words);
            for c in (0..words).step_by(8) {
                // SAFETY: `o + c + 8 <= o + words <= entries.len()` for every `o` of `at`
                // (see `every`; `c` steps by 8 below `words`, a multiple of 8); unaligned.
                let load = |o: usize| unsafe { _mm512_loadu_si512(entries.add(o + c).cast()) };
                let acc = at[1..]
                    .iter()
                    .fold(load(at[0]), |acc, &o| _mm512_or_si512(acc, load(o)));
                sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
            }
        }
        _mm512_reduce_add_epi64(sum) as u64
    }

    /// [`Tables::matched_scalar`] with AVX2: four words a step, counted by nibble lookups
    /// (`vpshufb`) summed per word (`vpsadbw`) or, for leaf entries, by Harley-Seal
    /// ([`Tables::matched256k8`]), one loop per count of bytes.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256(&self, probe: &[Word]) -> u64 {
        per_bytes!(self, matched256k, probe)
    }

    /// [`Tables::matched256`] for `K` bytes of ranks: a loop of its own per size of entry
    /// (`words` is 8 for every leaf; 16 to 32 only for a table sliced when its split ran out
    /// of bits), so that an entry's offset is a shift and its steps are unrolled.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256k<const K: usize>(&self, probe: &[Word]) -> u64 {
        match self.words {
            8 => self.matched256k8::<K>(probe),
            16 => self.matched256kw::<K, 16>(probe),
            24 => self.matched256kw::<K, 24>(probe),
            _ => self.matched256kw::<K, 32>(probe),
        }
    }

    /// [`Tables::matched256kw`] for leaf entries (8 words), eight probe words at a time:
    /// their sixteen ORed vectors are added up bit by bit in carry-save adders (Harley and
    /// Seal's count: a vector of ones, twos, fours and eights kept across steps, five logic
    /// instructions per vector), so that only one vector in sixteen, the sixteens, has its
    /// bits counted by nibble lookups, instead of every one. The last few words go through
    /// [`Tables::matched256kw`].
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256k8<const K: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(self.words == 8 && K * ENTRIES * 8 <= self.entries.len());
        let entries = self.entries.as_ptr();
        let zero = _mm256_setzero_si256();
        // The bits of a vector, counted per 64-bit lane.
        let count = |v: __m256i| _mm256_sad_epu8(byte_counts(v), zero);
        // A probe word's two vectors: the OR of the entries it selects, words 0-3 and 4-7.
        let ored = |p: u64| {
            let at = self.every::<K>(std::arch::x86_64::_pext_u64(p, self.union), 8);
            // SAFETY: `o + 8 <= entries.len()` for every `o` of `at` (see `every`); unaligned.
            let load = |o: usize| unsafe { _mm256_loadu_si256(entries.add(o).cast()) };
            let half = |c: usize| {
                at[1..]
                    .iter()
                    .fold(load(at[0] + c), |acc, &o| _mm256_or_si256(acc, load(o + c)))
            };
            (half(0), half(4))
        };
        // A carry-save adder: of three vectors' bits in each position, the carry and the sum.
        let csa = |a: __m256i, b: __m256i, c: __m256i| {
            let u = _mm256_xor_si256(a, b);
            let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
            (carry, _mm256_xor_si256(u, c))
        };
        let (mut ones, mut twos, mut fours, mut eights) = (zero, zero, zero, zero);
        let mut sixteens = zero;
        let steps = probe.chunks_exact(8);
        let rest = steps.remainder();
        for step in steps {
            let mut pairs = [zero; 4];
            for (q, pair) in step.chunks_exact(2).zip(&mut pairs) {
                let (a0, a1) = ored(q[0]);
                let (twos_a, o) = csa(ones, a0, a1);
                let (b0, b1) = ored(q[1]);
                let (twos_b, o) = csa(o, b0, b1);
                ones = o;
                let (fours_ab, t) = csa(twos, twos_a, twos_b);
                twos = t;
                *pair = fours_ab;
            }
            let (eights_a, f) = csa(fours, pairs[0], pairs[1]);
            let (eights_b, f) = csa(f, pairs[2], pairs[3]);
            fours = f;
            let (sixteen, e) = csa(eights, eights_a, eights_b);
            eights = e;
            sixteens = _mm256_add_epi64(sixteens, count(sixteen));
        }
        let weighted = [
            (sixteens, 4),
            (count(eights), 3),
            (count(fours), 2),
            (count(twos), 1),
        ]
        .into_iter()
        .fold(count(ones), |sum, (v, shift)| {
            _mm256_add_epi64(sum, _mm256_sllv_epi64(v, _mm256_set1_epi64x(shift)))
        });
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), weighted) };
        lanes.iter().sum::<u64>() + self.matched256kw::<K, 8>(rest)
    }

    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256kw<const K: usize, const W: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(W == self.words && K * ENTRIES * W <= self.entries.len());
        let entries = self.entries.as_ptr();
        let mut sum = _mm256_setzero_si256();
        // A byte's count (at most 8 a step) is summed in `bytes` over at most 31 steps,
        // before it could pass 255, and only then added up per word (`vpsadbw`).
        for probe in probe.chunks(31 / (W / 4)) {
            let mut bytes = _mm256_setzero_si256();
            for &p in probe {
                let at = self.every::<K>(std::arch::x86_64::_pext_u64(p, self.union), W);
                for c in (0..W).step_by(4) {
                    // SAFETY: `o + c + 4 <= o + W <= entries.len()` for every `o` of `at` (a
                    // ranked word has bits below the union's count only, and `K` is the
                    // tables' count of bytes; `c` steps by 4 below `W`, a multiple of 8);
                    // unaligned.
                    let load = |o: usize| unsafe { _mm256_loadu_si256(entries.add(o + c).cast()) };
                    let acc = at[1..]
                        .iter()
                        .fold(load(at[0]), |acc, &o| _mm256_or_si256(acc, load(o)));
                    bytes = _mm256_add_epi8(bytes, byte_counts(acc));
                }
            }
            sum = _mm256_add_epi64(sum, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().sum()
    }
}

/// The bits set in each byte of `v` (0 to 8), by two nibble lookups (`vpshufb`): the
/// AVX2 leaves' count, per vector or once per sixteen.
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

/// The ranks among `union`'s bits of `word`'s bits, as bits (BMI2's `pext`).
fn ranked(word: u64, union: u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Kernel;

    /// Random words of `bits` set bits among the low `width`: half-boards' diagonals.
    fn words(count: usize, bits: u32, width: u32, state: &mut u64) -> Vec<Word> {
        let mut next = move || {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state
        };
        (0..count)
            .map(|_| {
                let mut w = 0u64;
                while w.count_ones() < bits {
                    w |= 1 << (next() % u64::from(width));
                }
                w
            })
            .collect()
    }

    /// The larger side is the table unless the other is so small that a leaf per 512 of the
    /// larger would cost more in fills than its probe words save.
    #[test]
    fn the_table_is_the_side_the_model_finds_cheaper() {
        assert!(table_first(200_000, 50_000));
        assert!(!table_first(50_000, 200_000));
        assert!(table_first(600, 1_000_000));
        assert!(!table_first(1_000_000, 600));
    }

    /// Tables the split cannot bring down to a leaf (the probe side meets them on a few
    /// diagonals only) are sliced, in entries of 16 to 32 words: each loop counts them as
    /// testing every pair does.
    #[test]
    fn sliced_tables_count_what_every_pair_counts() {
        let mut state = 0x2545_f491_4f6c_dd1d;
        for (tables, bits) in [(700, 8), (1300, 8), (1700, 9), (9000, 9), (20_000, 10)] {
            let table = words(tables, bits, 44, &mut state);
            // Probe words on the low six diagonals only: six splits at most.
            let probe = words(300, 2, 6, &mut state);
            let every: u64 = table
                .iter()
                .map(|&t| probe.iter().filter(|&&p| t & p == 0).count() as u64)
                .sum();
            assert!(every > 0, "the case matches nothing");
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512, Kernel::Auto] {
                if kernel.resolve().is_err() {
                    continue;
                }
                for budget in [MIN_BYTES, 64 << 20] {
                    let mut out = [0];
                    let mut t = table.clone();
                    Matcher::default().disjoint(
                        &mut t,
                        &probe,
                        &[probe.len()],
                        &mut out,
                        Within {
                            bytes: budget,
                            stop: super::super::NEVER,
                        },
                        Lanes::of(kernel),
                    );
                    assert_eq!(out[0], every, "{tables} {kernel:?} budget {budget}");
                }
            }
        }
    }

    /// The split matcher counts, group by group, what testing every pair counts: sides
    /// below and above a leaf, several probe groups, a roomy and the least budget, in each
    /// loop this CPU has.
    #[test]
    fn the_split_counts_what_every_pair_counts() {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for (tables, probes, bits, width) in [
            (100, 300, 6, 30),
            (LEAF + 1, 700, 7, 36),
            (3000, 2000, 9, 44),
            (5000, 900, 11, 50),
        ] {
            let table = words(tables, bits, width, &mut state);
            let probe = words(probes, bits, width, &mut state);
            let ends = [probes / 3, probes / 2, probes];
            let every: Vec<u64> = groups(&ends)
                .map(|g| {
                    let n = table
                        .iter()
                        .map(|&t| probe[g.clone()].iter().filter(|&&p| t & p == 0).count() as u64);
                    n.sum()
                })
                .collect();
            assert!(every.iter().sum::<u64>() > 0, "the case matches nothing");
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512, Kernel::Auto] {
                if kernel.resolve().is_err() {
                    continue;
                }
                for budget in [MIN_BYTES, 64 << 20] {
                    let mut out = vec![0; ends.len()];
                    let mut t = table.clone();
                    Matcher::default().disjoint(
                        &mut t,
                        &probe,
                        &ends,
                        &mut out,
                        Within {
                            bytes: budget,
                            stop: super::super::NEVER,
                        },
                        Lanes::of(kernel),
                    );
                    assert_eq!(out, every, "{tables}x{probes} {kernel:?} budget {budget}");
                }
            }
        }
    }
}
