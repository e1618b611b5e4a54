//! Matching: the pairs of a key's left and right half-boards whose words share a bit (a
//! diagonal), counted with bitsets: for each eight diagonals in play, the unions of every
//! subset of their sets of half-boards, ORed per probe word and counted.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::leaf::{Bitsets, MAX_GROUPS, MOST_BYTES, Span};
use super::short;
use super::word::{Held, Isa, Word, filter_words, grows, hold, resize_exact, tally_words};

/// The most half-boards a table leaf holds: the split goes on below it, one diagonal at a
/// time, until a side has at most this many (one slice of eight words, 512 bits).
pub(super) const LEAF: usize = 512;

/// The room an odd board's chunks leave for the split levels' filtered probe words, in
/// probe sides ([`room`]'s least there; see `BYTES_PER_BOARD` in the parent module).
pub(super) const LEVELS: usize = 2;

/// The most room the split levels' filtered probe words take, in probe sides, where the
/// thread's budget has it: less room leaves more levels to partition their probe in place,
/// which costs time, while more only holds memory (measured: results/README.md).
pub(super) const ROOM_MOST: usize = 16;

/// Words of room for the filtered levels of a matching of `table` and `probe` words within
/// `bytes`: what half the budget leaves beyond the table (three times: it, the words a
/// split moves aside, and a copy the caller may hold) and the probe (twice: it and the
/// other side's buffer), at least `least` probe sides (what the caller's chunks leave for
/// it) and at most [`ROOM_MOST`]. Half: the budget's other uses (the pieces each thread
/// keeps beyond the shared ones, what its buffers keep past their need: [`hold`]) are
/// not counted here; [`Matcher::room`] bounds it by what the thread's buffers leave. Where
/// the sides fill the chunks (n = 26), the room is its least, and the levels past it
/// partition the probe in place ([`split`]).
fn room(bytes: usize, table: usize, probe: usize, least: usize) -> usize {
    let spare = (bytes / 16).saturating_sub(3 * table + 2 * probe);
    spare.clamp(least * probe, ROOM_MOST * probe) + 64
}

/// What the matching did, all threads together since the process started ([`tally`]):
/// one atomic add per matching or leaf, each thousands of word steps.
struct Tally {
    every: AtomicU64,
    tested: AtomicU64,
    leaves: AtomicU64,
    short: AtomicU64,
}

static TALLY: Tally = Tally {
    every: AtomicU64::new(0),
    tested: AtomicU64::new(0),
    leaves: AtomicU64::new(0),
    short: AtomicU64::new(0),
};

/// What the matching has done so far in this process, all threads together.
#[cfg(any(test, feature = "instruments"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matched {
    /// Pairs of half-boards the matchings were given: what testing every pair tests.
    pub pairs: u64,
    /// Pairs tested at the leaves, bitset tables or one by one: the rest were ruled out
    /// by splitting on a diagonal.
    pub tested: u64,
    /// Leaves counted.
    pub leaves: u64,
    /// Split levels that went on with their words short (`short.rs`): 32 bits, the
    /// diagonals in play gathered.
    pub short: u64,
}

/// The matching's totals so far ([`Matched`]).
#[cfg(any(test, feature = "instruments"))]
pub fn matched() -> Matched {
    Matched {
        pairs: TALLY.every.load(Ordering::Relaxed),
        tested: TALLY.tested.load(Ordering::Relaxed),
        leaves: TALLY.leaves.load(Ordering::Relaxed),
        short: TALLY.short.load(Ordering::Relaxed),
    }
}

/// A thread's buffers for matching, reused from key to key: the split levels' filtered
/// probe words, the words a split's partition moves aside, and a leaf's sets and tables.
#[derive(Default)]
pub(super) struct Matcher {
    levels: Vec<Word>,
    aside: Vec<Word>,
    bitsets: Bitsets,
}

/// What a matching may use: its thread's share of the memory, and a flag that abandons it
/// (the split stops going down once it is set; see [`super::Join::count_until`]).
#[derive(Clone, Copy)]
pub(super) struct Within<'a> {
    /// Bytes of this thread's budget.
    pub bytes: usize,
    /// Set to abandon the matching.
    pub stop: &'a AtomicBool,
    /// Probe sides of room for the filtered levels that the caller's chunks leave, whatever
    /// the budget's half says ([`LEVELS`] on an odd board, none on an even one).
    pub least: usize,
    /// Bytes the thread's buffers besides the matcher's hold: the chunks (the sides given
    /// among them, whole where a matching is given a part of them). The room takes at most
    /// what they, the words a partition moves aside and a leaf's tables leave of `bytes`.
    pub held: usize,
}

/// The probe groups' spans, from their ends.
fn groups(ends: &[usize]) -> impl Iterator<Item = Span> + '_ {
    (0..ends.len()).map(|g| g.checked_sub(1).map_or(0, |f| ends[f])..ends[g])
}

impl Matcher {
    /// Bytes its buffers hold.
    pub(super) fn bytes(&self) -> usize {
        (self.levels.capacity() + self.aside.capacity()) * 8 + self.bitsets.bytes()
    }

    /// Where they and the thread's other buffers (`within.held`) would hold more than
    /// `within`'s bytes once a matching of sides of `a` and `b` words has grown them, lets
    /// go of what its buffers hold past what that matching needs, where that is more than a
    /// [`SLACK`](super::word::SLACK) part of `within`'s bytes ([`hold`]): the words a
    /// partition moves aside (a side's, at most) and the room (`room`, the larger side the
    /// table or the probe). A group or a split deeper down may grow them again, exactly
    /// ([`resize_exact`]). Only where the budget would be passed: a buffer let go
    /// and grown again costs its pages' faults, too many to pay at every matching.
    pub(super) fn fit(&mut self, (a, b): (usize, usize), within: Within) {
        self.fit_as((a, b), false, within);
    }

    /// [`Matcher::fit`] for a matching whose table side is known (`table`, `probe` words):
    /// the room a probe of the table's size would take is let go too (a right side kept
    /// whole as the table would else keep the room it needs as the probe, up to twice what
    /// its probe needs).
    pub(super) fn fit_table(&mut self, (table, probe): (usize, usize), within: Within) {
        self.fit_as((table, probe), true, within);
    }

    /// [`Matcher::fit`], the first side the table where `fixed`.
    fn fit_as(&mut self, (a, b): (usize, usize), fixed: bool, within: Within) {
        let as_table = self.room(within, a, b);
        let most = if fixed {
            as_table
        } else {
            as_table.max(self.room(within, b, a))
        };
        let aside = a.max(b) + 8;
        // What the buffers hold, and what this matching grows them by: a buffer kept past its
        // need passes the budget only beside another's growth (the words a block before
        // moved aside, kept beside this block's room).
        let grown = grows(&self.levels, most) + grows(&self.aside, aside);
        if within.held + self.bytes() + grown > within.bytes {
            hold(&mut self.levels, most, within.bytes);
            hold(&mut self.aside, aside, within.bytes);
        }
    }

    /// Words of room for the filtered levels of a matching of `table` and `probe` words:
    /// [`room`]'s, and at most what `within`'s bytes leave past the thread's other buffers
    /// (`within.held`), the words a partition moves aside (the larger side's, or what the
    /// buffer holds already) and a leaf's tables, but never less than `within.least` probe
    /// sides. [`room`] alone counts only the matching's own sides: a group of an even
    /// board's left words ([`Matcher::grouped`]) is matched with the whole chunks held,
    /// which [`room`] alone would let pass the thread's budget (`tests/memory.rs`).
    fn room(&self, within: Within, table: usize, probe: usize) -> usize {
        let aside = self.aside.capacity().max(table.max(probe) + 8);
        // A leaf's tables grow when the first leaf is filled, after the room is sized: a
        // slice's tables at their most, grown by `Vec`'s doubling.
        let leaves = self.bitsets.bytes().max(2 * MOST_BYTES);
        let others = within.held + aside * 8 + leaves;
        let left = within.bytes.saturating_sub(others) / 8;
        room(within.bytes, table, probe, within.least).min(left.max(within.least * probe + 64))
    }

    /// Lets go of its buffers: they grow again to what the next matching needs.
    pub(super) fn release(&mut self) {
        *self = Matcher::default();
    }

    /// Adds to `out[g]` the pairs of a `table` word and a word of probe group `g` (which
    /// ends at `ends[g]`) that share no bit: the pairs that make a solution.
    ///
    /// Counting every pair would test thousands of pairs per solution, more as n grows
    /// (measured: results/README.md). So the table side is
    /// split first, one diagonal at a time, the most contested first (in both sides'
    /// samples; a level the model finds at least [`REPICK`] work picks its own): its words
    /// without the diagonal meet every probe word there, those with it only the probe
    /// words without it, which are filtered into a buffer of their own (all levels'
    /// together in a room of [`room`]'s size, which keeps them within the thread's
    /// budget), or where the room has run out
    /// partitioned in place (the words without it first in each group's span). Each side
    /// of the split loses that diagonal; once the table side has at most [`LEAF`] words,
    /// its pairs are counted with bitset tables over the diagonals still in play. Where
    /// the model finds it cheaper ([`turned`]), a level swaps the sides: each probe
    /// group becomes the table, the table's words its probe. Both sides may be reordered,
    /// each probe group within its own words, the table within its own.
    pub(super) fn disjoint(
        &mut self,
        table: &mut [Word],
        probe: &mut [Word],
        ends: &[usize],
        out: &mut [u64],
        within: Within,
        isa: Isa,
    ) {
        debug_assert!(ends.len() <= MAX_GROUPS && ends.last() == Some(&probe.len()));
        TALLY
            .every
            .fetch_add((table.len() * probe.len()) as u64, Ordering::Relaxed);
        let order = if table.len() > LEAF {
            contested(table, probe, isa)
        } else {
            Order::default()
        };
        // Room for the filtered levels, where there is a split (`room`), every word of it
        // written once (only the room grows, from key to key). A table of one leaf needs
        // none: on an odd board its probe may be every middle row's right half-boards.
        let room = if order.len > 0 {
            self.room(within, table.len(), probe.len())
        } else {
            0
        };
        if self.levels.len() < room {
            resize_exact(&mut self.levels, room);
        }
        let mut spans: [Span; MAX_GROUPS] = Default::default();
        for (span, range) in spans.iter_mut().zip(groups(ends)) {
            *span = range;
        }
        let mut leaf = Leaf {
            budget: within.bytes,
            stop: within.stop,
            isa,
            aside: aside(&mut self.aside, table.len().max(probe.len())),
            bitsets: &mut self.bitsets,
        };
        split(
            table,
            probe,
            &spans[..ends.len()],
            (!0, !0),
            &order.bits[..order.len],
            out,
            &mut self.levels[..room],
            &mut leaf,
            None,
        );
    }

    /// [`Matcher::either`] for an even board's sides, `left` grouped where the room for
    /// filtered probe words would run out (at n = 26 a key's larger matching has none, and
    /// every level would partition in place). The left half's column next to the middle has
    /// its queen on some row `r`, and so down-right diagonal bit `r` and down-left bit
    /// `r - 1` (of the shared diagonals, `low` = `h`): each left word goes to the group of
    /// the lowest `r` whose two bits it has (its own queen's or another pair's), and each group
    /// where the model says it pays is matched on its own with the right words that have
    /// neither bit, partitioned first in `right`; the others (and words with no such pair)
    /// together with every right word. A group's words share two diagonals, so its split
    /// takes an order of its own (`contested`), and its probe side fits the room: the
    /// groups cost less than the partitions they save (measured: results/README.md). Where
    /// the room holds the probe side twice (the keys of n = 24), the sides are matched
    /// whole. Only how a key is counted: every pair is matched in exactly one group.
    pub(super) fn pivoted(
        &mut self,
        left: &mut [Word],
        right: &mut [Word],
        out: &mut [u64],
        within: Within,
        isa: Isa,
    ) {
        let (t, p) = if table_first(left.len(), right.len()) {
            (left.len(), right.len())
        } else {
            (right.len(), left.len())
        };
        if self.room(within, t, p) >= 2 * p {
            return self.either(left, right, out, within, isa);
        }
        let (sizes, pivot) = pivots(left, right);
        self.grouped(left, right, (sizes, pivot), out, within, isa);
    }

    /// [`Matcher::pivoted`]'s matching: `left`'s words in [`pivot_pair`]'s groups (`sizes`
    /// words each), those `pivot` takes each with the right words without its two bits,
    /// the others together with every right word.
    fn grouped(
        &mut self,
        left: &mut [Word],
        right: &mut [Word],
        (sizes, pivot): ([usize; PAIRS], [bool; PAIRS]),
        out: &mut [u64],
        within: Within,
        isa: Isa,
    ) {
        debug_assert!(
            !pivot[PAIRS - 1],
            "the words with no pair meet every right word"
        );
        // The groups matched on their own first, then the others, each in the order built
        // (a counting sort through `aside`, which the table's partitions size anyway).
        let order = || {
            (0..PAIRS)
                .filter(|&g| pivot[g])
                .chain((0..PAIRS).filter(|&g| !pivot[g]))
        };
        let mut slot = [0usize; PAIRS];
        let mut at = 0;
        for g in order() {
            slot[g] = at;
            at += sizes[g];
        }
        let sorted = aside(&mut self.aside, left.len().max(right.len()));
        for &w in left.iter() {
            let g = pivot_pair(w);
            sorted[slot[g]] = w;
            slot[g] += 1;
        }
        left.copy_from_slice(&sorted[..left.len()]);
        let mut rest = left;
        for g in order().take_while(|&g| pivot[g]) {
            let (group, others) = std::mem::take(&mut rest).split_at_mut(sizes[g]);
            rest = others;
            let bits = 1u64 << g | 1u64 << (32 + g - 1);
            let kept = partition(right, bits, isa, &mut self.aside[..]);
            self.either(group, &mut right[..kept], out, within, isa);
        }
        if !rest.is_empty() {
            self.either(rest, right, out, within, isa);
        }
    }

    /// Adds to `out[0]` the pairs of a word of `a` and a word of `b` that share no bit, the
    /// side [`table_first`] picks as the table (reordered), the other as one probe group.
    pub(super) fn either(
        &mut self,
        a: &mut [Word],
        b: &mut [Word],
        out: &mut [u64],
        within: Within,
        isa: Isa,
    ) {
        let (table, probe) = if table_first(a.len(), b.len()) {
            (a, b)
        } else {
            (b, a)
        };
        let ends = [probe.len()];
        self.disjoint(table, probe, &ends, out, within, isa);
    }
}

/// The buffer of the words a partition moves aside, with room for `words` and a vector more
/// (of either width: [`Leaf`]): grown afresh where it must grow (its words need not be kept;
/// `calloc`'s pages are resident only where they are used: [`resize_exact`]).
fn aside(buffer: &mut Vec<Word>, words: usize) -> &mut [Word] {
    let need = words + 16;
    if buffer.len() < need {
        *buffer = Vec::new();
        resize_exact(buffer, need);
    }
    buffer
}

/// Whether a side of `a` words should be the table against one of `b` (else `b`'s).
///
/// A model of [`Matcher::disjoint`]: the table side is split until its parts fit a leaf,
/// `log2(t / LEAF)` levels; each level keeps every probe word on the side without the
/// diagonal and about half on the side with it, so a probe word is matched in about `1.5`
/// leaves per level, `p * (t / LEAF)^0.585` in all, and each leaf's tables are filled once.
/// The larger side is usually the better table (fewer probe words, each matched in fewer
/// leaves), unless the other is so small that fills would outweigh it: against the smaller
/// side always the table, the model takes less time from n = 22 on, about as much below
/// (measured: results/README.md). It decides only how a key is counted, never what.
fn table_first(a: usize, b: usize) -> bool {
    work(a as f64, b as f64) <= work(b as f64, a as f64)
}

/// Whether a split level of `table` words against the probe groups in `spans` costs less,
/// by the model ([`work`]), with each group the table and the table's words its probe: the
/// model's choice of [`table_first`] made again at every level, where the table has been
/// cut and the probe filtered. Deep in a split the probe words left are often far fewer
/// than the table's (at n = 26 a key's table of 10^7 words can face 3 x 10^5 probe words
/// at the top), and splitting the table on down to leaves of a handful of probe words
/// costs more in fills and partitions than the leaves match (measured:
/// results/README.md). A group is turned only with the others: the fills of the table's
/// leaves are saved only if none is left against it.
fn turned(table: usize, spans: &[Span]) -> bool {
    let t = table as f64;
    let probes: usize = spans.iter().map(Span::len).sum();
    let each: f64 = spans
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| work(s.len() as f64, t))
        .sum();
    each < work(t, probes as f64)
}

/// The model [`table_first`] and [`turned`] use: the work of matching a table of `t` words
/// with `p` probe words, in probe words matched at a leaf.
fn work(t: f64, p: f64) -> f64 {
    let leaves = (t / LEAF as f64).max(1.0);
    p * leaves.powf(0.585) + leaves * FILL
}

/// The model's work for sides of `a` and `b` words, the cheaper one the table (none where
/// a side is empty).
pub(super) fn either_work(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        return 0.0;
    }
    work(a, b).min(work(b, a))
}

/// [`Matcher::pivoted`]'s groups: one per bit of a half of a word, and one for the words
/// with no pair.
const PAIRS: usize = 33;

/// The bits of a half of a word ([`PAIRS`] - 1 of them: a board's shared diagonals of one
/// direction, `2h - 1`, fit).
const HALF: u64 = (1 << (PAIRS - 1)) - 1;

/// The lowest `r` whose down-right bit `r` and down-left bit `r - 1` are both in `w` (the
/// diagonals of a queen on row `r` of the left half's last column), or `PAIRS - 1` where
/// there is none. `r` is at least 1: a queen on row 0 there has no down-left bit.
fn pivot_pair(w: Word) -> usize {
    let both = w & HALF & (w >> 32 & HALF) << 1;
    if both == 0 {
        PAIRS - 1
    } else {
        both.trailing_zeros() as usize
    }
}

/// How many words of `left` each of [`pivot_pair`]'s groups has, and which of them
/// [`Matcher::pivoted`] matches on its own: those where the model's work for the group
/// against the right words without its two bits (their share estimated from a sample of
/// `right`) is less than the group's share of matching every word.
fn pivots(left: &[Word], right: &[Word]) -> ([usize; PAIRS], [bool; PAIRS]) {
    let mut sizes = [0usize; PAIRS];
    for &w in left {
        sizes[pivot_pair(w)] += 1;
    }
    let step = (right.len() / 4096).max(1);
    let (mut meets, mut sampled) = ([0usize; PAIRS], 0usize);
    for &w in right.iter().step_by(step) {
        let mut met = w & HALF | (w >> 32 & HALF) << 1;
        while met != 0 {
            meets[met.trailing_zeros() as usize] += 1;
            met &= met - 1;
        }
        sampled += 1;
    }
    let (r, l) = (right.len() as f64, left.len() as f64);
    let whole = either_work(r, l);
    let pivot = std::array::from_fn(|g| {
        let size = sizes[g] as f64;
        let r_g = r * (sampled - meets[g]) as f64 / sampled.max(1) as f64;
        g < PAIRS - 1 && sizes[g] > 0 && either_work(r_g, size) < whole * size / l
    });
    (sizes, pivot)
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
/// about [`SAMPLE`] words of each side (ties to the lower bit): the diagonals where a table word
/// and a probe word most often meet, whose split drops the most pairs.
fn contested(table: &[Word], probe: &[Word], isa: Isa) -> Order {
    let (a, b) = (sampled(table, isa), sampled(probe, isa));
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

/// Words of each side [`contested`] and [`picked`] sample (every `len / SAMPLE`-th): fewer
/// pick worse diagonals, more cost more than their better picks save (measured:
/// results/README.md).
const SAMPLE: usize = 128;

/// The least work ([`work`]: probe words matched at a leaf) of a split level at which it
/// picks its own diagonal ([`picked`]) rather than take the next of its matching's order. The
/// order is made from the whole sides, but a level's table words all lack, or all have, each
/// diagonal split on above it, and its probe words were filtered by those its table words
/// have, so other diagonals are the contested ones there. A level's work, not its probe
/// alone, is what a better diagonal saves: a large table against fewer probe words is worth
/// a pick too. Below this bound the picks leave fewer pairs to the leaves, but their
/// samples cost more than those pairs (measured: results/README.md).
const REPICK: f64 = 4096.0;

/// Adds to `counts[b]` how many of every `step`-th word of `v` have bit `b`, in `isa`'s
/// instructions: a vector of sampled words at a time where the CPU has one (`pack::tally256`,
/// `pack::tally512`): a split level of n = 27 samples about 512 words of its sides
/// ([`picked`]), enough that a vector of them at a time pays.
fn tally<E: Held>(v: &[E], step: usize, counts: &mut [u64; 64], isa: Isa) {
    #[cfg(target_arch = "x86_64")]
    match isa {
        // SAFETY: `Isa::of` picked AVX-512 only where the CPU has it.
        Isa::Avx512 => return unsafe { super::pack::tally512(v, step, counts) },
        // SAFETY: `Isa::of` picked AVX2 only where the CPU has it.
        Isa::Avx2 => return unsafe { super::pack::tally256(v, step, counts) },
        Isa::Scalar => {}
    }
    let _ = isa;
    tally_words(v, step, counts);
}

/// The stride at which about [`SAMPLE`] of `len` words are sampled: every `len / SAMPLE`-th.
fn stride(len: usize) -> usize {
    (len / SAMPLE).max(1)
}

/// How many of about [`SAMPLE`] words of `v` (every [`stride`]-th) have each bit.
fn sampled<E: Held>(v: &[E], isa: Isa) -> [u64; 64] {
    let mut counts = [0u64; 64];
    tally(v, stride(v.len()), &mut counts, isa);
    counts
}

/// A split level's sample of its probe groups ([`picked`]'s): how many sampled words have
/// each bit, the groups' words, and the words each sampled one stands for. The level's table
/// words without its diagonal meet the same probe words (reordered at most), so their level
/// takes this sample rather than draw its own: along a chain of such levels the probe is
/// sampled once. [`picked`] samples the level's table words the same way, as one group.
struct Probed {
    counts: [u64; 64],
    words: f64,
    share: f64,
}

impl Probed {
    /// A sample of the probe groups in `spans`, each in its share (one stride for all).
    fn of<E: Held>(probe: &[E], spans: &[Span], isa: Isa) -> Probed {
        let mut counts = [0u64; 64];
        let probes: usize = spans.iter().map(Span::len).sum();
        let step = stride(probes);
        for span in spans {
            tally(&probe[span.clone()], step, &mut counts, isa);
        }
        // The words the sample drew (`tally` takes every `step`-th of a slice from its first).
        let drawn: usize = spans.iter().map(|s| s.len().div_ceil(step)).sum();
        Probed {
            counts,
            words: probes as f64,
            share: probes as f64 / drawn.max(1) as f64,
        }
    }
}

/// `order` with the diagonal that this level's own samples say leaves the least work put
/// first, the others after it in their order; ties to the earlier. The probe groups are
/// sampled at one stride, so each in its share. A diagonal's work is that of the two sides
/// its split leaves, each estimated from the samples: the `t0` table words without it
/// against all `p` probe words, and the `t1` with it against the `p0` without it, as
/// `p sqrt(t0) + p0 sqrt(t1)`, a probe word taken to meet a share of a side's leaves that
/// shrinks as the side grows ([`work`]'s `leaves^0.585`, with the exponent lower). At the
/// exponent 1 this is the diagonal that drops the most pairs at this level (the product of
/// both sides' counts, as [`contested`] has it); lower, it values a split that cuts the
/// table evenly, which shortens the levels below and leaves fewer pairs to the leaves
/// (measured: results/README.md). Also returns the diagonals both samples have (for
/// [`looked`]).
fn picked<E: Held>(table: &[E], probed: &Probed, order: &[u64], isa: Isa) -> (Order, u64) {
    let sample = Probed::of(table, std::slice::from_ref(&(0..table.len())), isa);
    let (t, tl, table_share) = (&sample.counts, sample.words, sample.share);
    let (p, pl, probe_share) = (&probed.counts, probed.words, probed.share);
    let left = |bit: u64| {
        let d = bit.trailing_zeros() as usize;
        let (t1, p1) = (t[d] as f64 * table_share, p[d] as f64 * probe_share);
        pl * (tl - t1).max(0.0).sqrt() + (pl - p1).max(0.0) * t1.sqrt()
    };
    let mut best = 0;
    let mut least = f64::INFINITY;
    for (i, &bit) in order.iter().enumerate() {
        let w = left(bit);
        if w < least {
            (best, least) = (i, w);
        }
    }
    let mut own = Order::default();
    own.bits[..order.len()].copy_from_slice(order);
    own.bits[..=best].rotate_right(1);
    own.len = order.len();
    let both = (0..64).filter(|&d| t[d] > 0 && p[d] > 0);
    (own, both.fold(0, |bits, d| bits | 1 << d))
}

/// One split level of [`Matcher::disjoint`]: `live` holds the diagonals still in play,
/// `seen` a superset of those both sides' words use (`!0` until a level [`looked`]; where
/// the two together fit 32 bits the level goes on with short words, [`shortened`]),
/// `order` those left to split on (the first, or where the model's work for the level is at
/// least [`REPICK`] the one [`picked`] finds, the probe sampled once along a chain of
/// levels: `known`, a [`Probed`]); probe group `g`'s words are `probe[spans[g]]`. The table
/// words without the diagonal are matched with every probe word; those with it with the
/// probe words without it, filtered into the front of `levels` (after the side without the
/// diagonal is done, so that its levels use the same room; the rest is the levels below).
/// Where the room runs out, the probe words are partitioned in place instead, the words
/// without the diagonal first in each group's span, and the table words with it go first:
/// the other side's levels reorder the spans as they like, which that would not survive.
/// So the filtered levels of a matching never take more than the room its caller gave
/// them, and every level drops its diagonal's pairs. A level that [`turned`] finds cheaper
/// with the sides swapped splits each probe group as a table against every table word (its
/// one group), with the same diagonals left: a pair is counted in exactly one of them.
/// It never turns twice running from the other side (the model's inequality is strict),
/// so a chain of turns is at most two levels long.
#[allow(clippy::too_many_arguments)]
fn split<E: Held>(
    table: &mut [E],
    probe: &mut [E],
    spans: &[Span],
    (live, seen): (u64, u64),
    order: &[u64],
    out: &mut [u64],
    levels: &mut [E],
    leaf: &mut Leaf<E>,
    known: Option<&Probed>,
) {
    if table.is_empty() || spans.iter().all(Range::is_empty) || leaf.stop.load(Ordering::Relaxed) {
        return;
    }
    let play = (live, seen);
    if table.len() > LEAF && shortened(table, probe, spans, play, order, out, levels, leaf) {
        return;
    }
    if table.len() > LEAF && turned(table.len(), spans) {
        return split_turned(table, probe, spans, play, order, out, levels, leaf);
    }
    let probes: usize = spans.iter().map(Span::len).sum();
    // The model (a `powf`) asked only of levels above a leaf with diagonals to pick from.
    let picks =
        table.len() > LEAF && order.len() > 1 && work(table.len() as f64, probes as f64) >= REPICK;
    if picks {
        return split_picked(table, probe, spans, play, order, out, levels, leaf, known);
    }
    split_on(table, probe, spans, play, order, out, levels, leaf, known);
}

/// A [`split`] level with its sides swapped ([`turned`]): each probe group the table from here, the
/// table's words its one probe group.
#[allow(clippy::too_many_arguments)]
fn split_turned<E: Held>(
    table: &mut [E],
    probe: &mut [E],
    spans: &[Span],
    play: (u64, u64),
    order: &[u64],
    out: &mut [u64],
    levels: &mut [E],
    leaf: &mut Leaf<E>,
) {
    let all = 0..table.len();
    let whole = std::slice::from_ref(&all);
    for (g, span) in spans.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
        let group = &mut probe[span.clone()];
        split(
            group,
            table,
            whole,
            play,
            order,
            &mut out[g..=g],
            levels,
            leaf,
            None,
        );
    }
}

/// A [`split`] level that picks its own diagonal ([`picked`]) from its samples: the
/// table's, and the probe's (`known`, that of the level it is the side of without the
/// diagonal, the same probe words; else drawn here). It looks for the diagonals its words
/// use where they might fit 32 bits ([`looked`]), and goes on short where they do.
#[allow(clippy::too_many_arguments)]
fn split_picked<E: Held>(
    table: &mut [E],
    probe: &mut [E],
    spans: &[Span],
    (live, seen): (u64, u64),
    order: &[u64],
    out: &mut [u64],
    levels: &mut [E],
    leaf: &mut Leaf<E>,
    known: Option<&Probed>,
) {
    let drawn;
    let sample = match known {
        Some(sample) => sample,
        None => {
            drawn = Probed::of(probe, spans, leaf.isa);
            &drawn
        }
    };
    let (own, sampled) = picked(table, sample, order, leaf.isa);
    let looked = looked(table, probe, spans, (live, seen), sampled, leaf.isa);
    let play = (live, looked);
    let order = &own.bits[..own.len];
    if looked != seen && shortened(table, probe, spans, play, order, out, levels, leaf) {
        return;
    }
    split_on(
        table,
        probe,
        spans,
        play,
        order,
        out,
        levels,
        leaf,
        Some(sample),
    );
}

/// A [`split`] level on the first diagonal of `order`: the table's words without it
/// matched with every probe word, those with it with the probe words without it (filtered
/// into `levels`, or partitioned in place where its room has run out); or, where the
/// table fits a leaf or no diagonal is left, the leaf's bitsets. `probed` is the probe's
/// sample, where the level has one, for the side without the diagonal.
#[allow(clippy::too_many_arguments)]
fn split_on<E: Held>(
    table: &mut [E],
    probe: &mut [E],
    spans: &[Span],
    (live, seen): (u64, u64),
    order: &[u64],
    out: &mut [u64],
    levels: &mut [E],
    leaf: &mut Leaf<E>,
    probed: Option<&Probed>,
) {
    let probes: usize = spans.iter().map(Span::len).sum();
    let Some((&bit, order)) = order.split_first().filter(|_| table.len() > LEAF) else {
        let within = (leaf.budget, leaf.isa);
        tally_leaf(table.len() * probes);
        leaf.bitsets
            .disjoint((table, &*probe, spans), live, within, out);
        return;
    };
    let without = partition(table, bit, leaf.isa, leaf.aside);
    let (t0, t1) = table.split_at_mut(without);
    let play = (live & !bit, seen);
    let mut kept: [Span; MAX_GROUPS] = Default::default();
    if t1.is_empty() {
        // No table word has `bit` (deep in a split, a diagonal of the order may be gone
        // from the table's words): no probe words to filter or partition for them.
        return split(t0, probe, spans, play, order, out, levels, leaf, probed);
    }
    if levels.len() < probes + 16 {
        // No room left to filter: the probe words without `bit` first in each span.
        for (k, span) in kept.iter_mut().zip(spans) {
            let lacking = partition(&mut probe[span.clone()], bit, leaf.isa, leaf.aside);
            *k = span.start..span.start + lacking;
        }
        let kept = &kept[..spans.len()];
        split(t1, probe, kept, play, order, out, levels, leaf, None);
        split(t0, probe, spans, play, order, out, levels, leaf, probed);
        return;
    }
    split(t0, probe, spans, play, order, out, levels, leaf, probed);
    // The probe words without `bit`, group by group, in front of the levels below.
    let mut len = 0;
    for (k, span) in kept.iter_mut().zip(spans) {
        let from = len;
        len += filter(&probe[span.clone()], bit, &mut levels[len..], leaf.isa);
        *k = from..len;
    }
    let (filtered, below) = levels.split_at_mut(len);
    let kept = &kept[..spans.len()];
    split(t1, filtered, kept, play, order, out, below, leaf, None);
}

/// The fewest table words a level takes short ([`shortened`]): below it the levels left
/// are too few to pay for gathering its words.
const SHORT_LEAST: usize = if cfg!(test) { LEAF } else { 4096 };

/// Whether a level of `table` words of `E` may go on short ([`shortened`], [`looked`]):
/// its words are full, at least [`SHORT_LEAST`], and the CPU has vector loops (and BMI2).
fn may_shorten<E: Held>(table: usize, isa: Isa) -> bool {
    !E::SHORT && !matches!(isa, Isa::Scalar) && table >= SHORT_LEAST
}

/// The most diagonals in play that the samples of a level of full words may show for it to
/// look for every word's ([`looked`]): they miss the rarer ones, so a level whose samples
/// show this many often has a few more.
const LOOK: u32 = 32;

/// `seen`, a superset of the diagonals the level's words use on both sides, made exact where
/// its words are full, more than 32 of its diagonals in play (`live`) may be used, and the
/// samples' (`sampled`: the bits both sides' samples have) are few enough that they might
/// fit 32 ([`LOOK`]): one pass over both sides' words, ORed. Its levels below then take their
/// words short ([`shortened`]) once the superset, less the diagonals split on since, fits.
fn looked<E: Held>(
    table: &[E],
    probe: &[E],
    spans: &[Span],
    (live, seen): (u64, u64),
    sampled: u64,
    isa: Isa,
) -> u64 {
    if !may_shorten::<E>(table.len(), isa)
        || (seen & live).count_ones() <= 32
        || (sampled & live).count_ones() > LOOK
    {
        return seen;
    }
    let probed = spans
        .iter()
        .fold(0, |u, s| u | short::ored(&probe[s.clone()]));
    seen & live & short::ored(table) & probed
}

/// Goes on with the level's words short, and says so, where they are full, the diagonals in
/// play that both sides may use (`live & seen`) fit 32 bits, the CPU has vector loops
/// (and BMI2's `pext`), and the buffers have room: each probe group's words gathered
/// ([`short::gather`]) into the front of the room for the filtered levels, the table's into
/// the front of the partitions' buffer, and the order's diagonals where gathering puts
/// them. The full words are left as they were (the levels above may use them again).
#[allow(clippy::too_many_arguments)]
fn shortened<E: Held>(
    table: &mut [E],
    probe: &mut [E],
    spans: &[Span],
    (live, seen): (u64, u64),
    order: &[u64],
    out: &mut [u64],
    levels: &mut [E],
    leaf: &mut Leaf<E>,
) -> bool {
    let mask = live & seen;
    if mask.count_ones() > 32 || !may_shorten::<E>(table.len(), leaf.isa) {
        return false;
    }
    let (Some(table), Some(probe), Some(levels), Some(aside)) = (
        E::full(table),
        E::full(probe),
        E::full(levels),
        E::full(leaf.aside),
    ) else {
        return false;
    };
    let probes: usize = spans.iter().map(Span::len).sum();
    let (levels, aside) = (short::halves(levels), short::halves(aside));
    if levels.len() < 2 * probes + 64 || aside.len() < table.len() + table.len().max(probes) + 64 {
        return false;
    }
    let (short_probe, below) = levels.split_at_mut(probes);
    let mut kept: [Span; MAX_GROUPS] = Default::default();
    let mut at = 0;
    for (k, span) in kept.iter_mut().zip(spans) {
        *k = at..at + span.len();
        short::gather(&probe[span.clone()], mask, &mut short_probe[k.clone()]);
        at = k.end;
    }
    let (short_table, aside) = aside.split_at_mut(table.len());
    short::gather(table, mask, short_table);
    let mut gathered = Order::default();
    for &bit in order.iter().filter(|&&bit| bit & mask != 0) {
        gathered.bits[gathered.len] = short::gathered(bit, mask);
        gathered.len += 1;
    }
    TALLY.short.fetch_add(1, Ordering::Relaxed);
    let mut short_leaf = Leaf {
        budget: leaf.budget,
        stop: leaf.stop,
        isa: leaf.isa,
        aside,
        bitsets: &mut *leaf.bitsets,
    };
    split(
        short_table,
        short_probe,
        &kept[..spans.len()],
        ((1 << mask.count_ones()) - 1, !0),
        &gathered.bits[..gathered.len],
        out,
        below,
        &mut short_leaf,
        None,
    );
    true
}

/// Puts the words of `table` without `bit` first and returns how many there are; `aside`
/// is a buffer the vector loops may use. The table's words and, where the room has run out,
/// a probe group's: in the vector loops where the CPU has them (`pack::partition256`,
/// `pack::partition512`), else a word at a time.
fn partition<E: Held>(table: &mut [E], bit: u64, isa: Isa, aside: &mut [E]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx512 = isa {
        // SAFETY: `Isa::of` picked AVX-512 only where the CPU has it.
        return unsafe { super::pack::partition512(table, bit, aside) };
    }
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx2 = isa {
        // SAFETY: `Isa::of` picked AVX2 only where the CPU has it.
        return unsafe { super::pack::partition256(table, bit, aside) };
    }
    let _ = (isa, aside);
    // A branchless partition: each word is swapped into place and the boundary moves past
    // it when it lacks the bit.
    let (mut without, bit) = (0, E::of(bit));
    for j in 0..table.len() {
        let w = table[j];
        table.swap(j, without);
        without += usize::from(w & bit == E::default());
    }
    without
}

/// Writes the words of `from` without `bit` to the front of `to` (room for every word and
/// one vector more), in order, and returns how many there are.
fn filter<E: Held>(from: &[E], bit: u64, to: &mut [E], isa: Isa) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx512 = isa {
        // SAFETY: `Isa::of` picked AVX-512 only where the CPU has it.
        return unsafe { super::pack::filter512(from, bit, to) };
    }
    #[cfg(target_arch = "x86_64")]
    if let Isa::Avx2 = isa {
        // SAFETY: `Isa::of` picked AVX2 only where the CPU has it.
        return unsafe { super::pack::filter256(from, bit, to) };
    }
    let _ = isa;
    filter_words(from, bit, to)
}

/// What the split and its leaves need besides their words: the memory a leaf's tables may
/// take, the flag that stops the split, the instructions they run in, the buffer a
/// partition uses (room for the larger side and a vector more; where the words are
/// shortened, the short table's and its partitions') and the ones a leaf's tables are built
/// in.
struct Leaf<'a, E> {
    budget: usize,
    stop: &'a AtomicBool,
    isa: Isa,
    aside: &'a mut [E],
    bitsets: &'a mut Bitsets,
}

/// Counts what [`Bitsets::disjoint`]'s leaf tests: the pairs, and one leaf.
fn tally_leaf(pairs: usize) {
    TALLY.tested.fetch_add(pairs as u64, Ordering::Relaxed);
    TALLY.leaves.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::leaf::MIN_BYTES;
    use super::*;
    use crate::types::Kernel;

    /// For each probe group, the pairs of it and `table` that share no bit, pair by pair.
    pub(in crate::join) fn every_pair(table: &[Word], probe: &[Word], spans: &[Span]) -> Vec<u64> {
        let met = |g: &Span, t: Word| probe[g.clone()].iter().filter(|&&p| p & t == 0).count();
        let group = |g: &Span| table.iter().map(|&t| met(g, t)).sum::<usize>() as u64;
        spans.iter().map(group).collect()
    }

    /// Random words of `bits` set bits among the low `width`: half-boards' diagonals.
    pub(in crate::join) fn words(
        count: usize,
        bits: u32,
        width: u32,
        state: &mut u64,
    ) -> Vec<Word> {
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

    /// Every partition the CPU has (the split's tables, and its probe groups where the room
    /// has run out) puts exactly the words without the bit first and keeps every word, full
    /// words and short ones: tables under and over the vector loops' `pack::TWO_ENDED` (192
    /// in the tests), sparse and dense words, and tables where every word or none has the
    /// bit.
    #[test]
    fn partitions_put_the_words_without_the_bit_first() {
        partitions_of::<u64>(64);
        partitions_of::<u32>(32);
    }

    /// [`partitions_put_the_words_without_the_bit_first`] for words of `E` (`width` bits).
    fn partitions_of<E: Held + Ord>(width: u32) {
        let mut state = 0x2545_f491_4f6c_dd1d;
        let lens = (0..300).chain([511, 512, 513, 1000, 4099]);
        for (i, len) in lens.enumerate() {
            let table: Vec<E> = match i % 5 {
                0 => vec![E::of(0); len],
                1 => vec![E::of(!0 >> (64 - width)); len],
                k => words(len, [1, 8, 20][k - 2], width, &mut state)
                    .into_iter()
                    .map(E::of)
                    .collect(),
            };
            let bit = 1 << (i * 7 % width as usize);
            let has = |w: &E| (*w & E::of(bit)) != E::default();
            let mut want = table.clone();
            want.sort_unstable_by_key(|w| (has(w), *w));
            let without = table.iter().filter(|w| !has(w)).count();
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                if kernel.resolve().is_err() {
                    continue;
                }
                let mut got = table.clone();
                let mut aside = vec![E::default(); len + 16];
                let lacking = partition(&mut got, bit, Isa::of(kernel), &mut aside);
                assert_eq!(lacking, without, "{kernel:?} length {len} width {width}");
                got[..without].sort_unstable();
                got[without..].sort_unstable();
                assert_eq!(got, want, "{kernel:?} length {len} width {width}");
            }
        }
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
    /// testing every pair does. The probe side is large enough that the levels do not swap
    /// the sides (`turned`) before the leaves: with 300 probe words no leaf is sliced.
    #[test]
    fn sliced_tables_count_what_every_pair_counts() {
        let mut state = 0x2545_f491_4f6c_dd1d;
        for (tables, bits) in [(700, 8), (1300, 8), (1700, 9), (9000, 9), (20_000, 10)] {
            let table = words(tables, bits, 44, &mut state);
            // Probe words on the low six diagonals only: six splits at most.
            let probe = words(4000, 2, 6, &mut state);
            split_against_every_pair(&table, &probe, &[probe.len()]);
        }
    }

    /// An even board's sides matched in groups of a pair of diagonals of the left words
    /// (`pivoted`, where the room runs out) count what testing every pair counts, whichever
    /// groups are matched on their own, in each loop this CPU has.
    #[test]
    fn pivoted_groups_count_what_every_pair_counts() {
        let mut state = 0x517c_c1b7_2722_0a95;
        // Half-boards' words: down-right diagonals in the low half, down-left in the high.
        let mut sides = |count: usize| {
            let (low, high) = (
                words(count, 5, 23, &mut state),
                words(count, 5, 23, &mut state),
            );
            low.iter()
                .zip(high)
                .map(|(&l, h)| l | h << 32)
                .collect::<Vec<Word>>()
        };
        for (lefts, rights) in [(3000, 9000), (9000, 2000), (LEAF, LEAF)] {
            let (left, right) = (sides(lefts), sides(rights));
            let every = every_pair(&right, &left, std::slice::from_ref(&(0..left.len())))[0];
            let (sizes, _) = pivots(&left, &right);
            assert!(sizes[..PAIRS - 1].iter().filter(|&&s| s > 0).count() > 4);
            let all: [bool; PAIRS] = std::array::from_fn(|g| g < PAIRS - 1);
            let some: [bool; PAIRS] = std::array::from_fn(|g| g < PAIRS - 1 && g % 3 == 1);
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512, Kernel::Auto] {
                if kernel.resolve().is_err() {
                    continue;
                }
                for (pivot, budget) in [(all, MIN_BYTES), (some, MIN_BYTES), (all, 64 << 20)] {
                    let mut out = [0];
                    let (mut l, mut r) = (left.clone(), right.clone());
                    let within = Within {
                        bytes: budget,
                        stop: super::super::NEVER,
                        least: 0,
                        held: 0,
                    };
                    let isa = Isa::of(kernel);
                    Matcher::default().grouped(
                        &mut l,
                        &mut r,
                        (sizes, pivot),
                        &mut out,
                        within,
                        isa,
                    );
                    assert_eq!(out[0], every, "{lefts}x{rights} {kernel:?} budget {budget}");
                    let mut out = [0];
                    let (mut l, mut r) = (left.clone(), right.clone());
                    Matcher::default().pivoted(&mut l, &mut r, &mut out, within, isa);
                    assert_eq!(out[0], every, "{lefts}x{rights} {kernel:?} pivoted");
                }
            }
        }
    }

    /// The tally counts what counting each sampled word's bits one by one counts, in each
    /// loop this CPU has: across the byte counters' emptying (more than 255 words, and
    /// more than 63 vectors of four or 31 of eight, whose lanes are summed before a byte
    /// could pass 255), at strides that leave a last vector partly padded, and whole;
    /// dense words too, and every word with every bit.
    #[test]
    fn the_tally_counts_each_bit_of_the_sampled_words() {
        let mut state = 0x2f69_3d1c_77a5_b0e3;
        let sparse = words(2000, 20, 64, &mut state);
        let dense = words(1500, 60, 64, &mut state);
        let full = vec![!0u64; 1021];
        for v in [&sparse, &dense, &full] {
            for step in [1, 2, 3, 7, 13, 2000] {
                let plain: [u64; 64] = std::array::from_fn(|b| {
                    v.iter().step_by(step).filter(|&&w| w >> b & 1 == 1).count() as u64
                });
                for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                    if kernel.resolve().is_err() {
                        continue;
                    }
                    let mut counts = [0u64; 64];
                    tally(v, step, &mut counts, Isa::of(kernel));
                    assert_eq!(counts, plain, "{kernel:?} step {step} of {}", v.len());
                }
            }
        }
    }

    /// A probe sample takes every group at one stride from its first word: its counts are
    /// those of the words drawn, and each drawn word stands for the groups' words over the
    /// words drawn (groups of 0, 5, 300 and 1,100 words: a stride of several words).
    #[test]
    fn a_probe_sample_draws_every_group_at_one_stride() {
        let mut state = 0x51d3_a0b7_c4e2_9f81;
        let probe = words(1405, 9, 44, &mut state);
        let spans: Vec<Span> = groups(&[0, 5, 305, 1405]).collect();
        let step = stride(1405);
        let drawn: Vec<Word> = spans
            .iter()
            .flat_map(|s| probe[s.clone()].iter().step_by(step).copied())
            .collect();
        assert!(step > 2 && drawn.len() < 1405 / 2);
        let sample = Probed::of(&probe, &spans, Isa::Scalar);
        let counts: [u64; 64] =
            std::array::from_fn(|b| drawn.iter().filter(|&&w| w >> b & 1 == 1).count() as u64);
        assert_eq!(sample.counts, counts);
        assert_eq!(sample.words, 1405.0);
        assert_eq!(sample.share, 1405.0 / drawn.len() as f64);
    }

    /// A level puts first the diagonal whose split its own words say leaves the least work
    /// (`p sqrt(t0) + p0 sqrt(t1)`), which need not be the one they meet on most, keeps
    /// the others in their order, and keeps the earlier of a tie.
    #[test]
    fn a_level_picks_the_diagonal_whose_sides_leave_the_least_work() {
        // Bit 1 in every table word and half the probe's, bit 5 in half of each, bit 9 in
        // every probe word and no table word.
        // (Halves in blocks, not alternate words: a sample at an even stride sees only
        // the even words.)
        let table: Vec<Word> = (0..600).map(|i| 1 << 1 | u64::from(i < 300) << 5).collect();
        let probe: Vec<Word> = (0..800)
            .map(|i| 1 << 9 | if i < 400 { 1 << 1 | 1 << 5 } else { 0 })
            .collect();
        let spans = [0..300, 300..800];
        let order = [1 << 9, 1 << 5, 1 << 1];
        let (own, _) = picked(
            &table,
            &Probed::of(&probe, &spans, Isa::Scalar),
            &order,
            Isa::Scalar,
        );
        assert_eq!(own.bits[..own.len], [1 << 1, 1 << 9, 1 << 5]);
        // Bit 2 in a tenth of the table and every probe word, bit 3 in half the table and
        // three tenths of the probe: the pairs meet on bit 3 more (500 x 300 against 100 x
        // 1000), but its split leaves more work (1000 sqrt(500) + 700 sqrt(500) against
        // 1000 sqrt(900) + 0 sqrt(100)).
        let table: Vec<Word> = (0..1000)
            .map(|i| u64::from(i % 10 == 0) << 2 | (i % 2) << 3)
            .collect();
        let probe: Vec<Word> = (0..1000)
            .map(|i| 1 << 2 | u64::from(i % 10 < 3) << 3)
            .collect();
        let whole: Vec<Span> = groups(&[1000]).collect();
        let probed = Probed::of(&probe, &whole, Isa::Scalar);
        let (own, sampled) = picked(&table, &probed, &[1 << 3, 1 << 2], Isa::Scalar);
        assert_eq!(own.bits[..own.len], [1 << 2, 1 << 3]);
        // The diagonals both sides' samples have.
        assert_eq!(sampled, 1 << 2 | 1 << 3);
        // Bits 1 and 5 alike in both sides: the tie keeps the order's.
        let same: Vec<Word> = (0..600).map(|_| 1 << 1 | 1 << 5).collect();
        let whole: Vec<Span> = groups(&[600]).collect();
        let (own, _) = picked(
            &same,
            &Probed::of(&same, &whole, Isa::Scalar),
            &[1 << 5, 1 << 1],
            Isa::Scalar,
        );
        assert_eq!(own.bits[..own.len], [1 << 5, 1 << 1]);
        assert_eq!(
            picked(
                &table,
                &Probed::of(&probe, &spans, Isa::Scalar),
                &[],
                Isa::Scalar
            )
            .0
            .len,
            0
        );
    }

    /// The split matcher counts, group by group, what testing every pair counts: sides
    /// below and above a leaf, several probe groups, a roomy budget (every level filtered
    /// into the room), the least (every level partitioned in place) and one between (the
    /// room runs out part way down), in each loop this CPU has.
    #[test]
    fn the_split_counts_what_every_pair_counts() {
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for (tables, probes, bits, width) in [
            (100, 300, 6, 30),
            (LEAF + 1, 700, 7, 36),
            (3000, 2000, 9, 44),
            (5000, 900, 11, 50),
            // Levels that pick their own diagonal (`REPICK`), the groups sampled in shares
            // (the cases above pick at their top levels too).
            (2500, 5600, 9, 44),
            // A few probe words against many: with one group the sides swap at the top
            // (`turned`).
            (6000, 60, 9, 44),
        ] {
            let table = words(tables, bits, width, &mut state);
            let probe = words(probes, bits, width, &mut state);
            for ends in [vec![probes / 3, probes / 2, probes], vec![probes]] {
                split_against_every_pair(&table, &probe, &ends);
            }
        }
        // Two probe groups each ten times the table: both swap with it at the top.
        let table = words(2000, 9, 44, &mut state);
        let probe = words(40_000, 9, 44, &mut state);
        split_against_every_pair(&table, &probe, &[20_000, 40_000]);
        // Table words whose diagonals come in pairs (bits 2i and 2i + 1 together): below a
        // split on one, a side has none of the other, and its level has an empty side.
        let paired = |w: Word| {
            (0..22)
                .filter(|i| w >> i & 1 == 1)
                .fold(0, |p, i| p | 3 << (2 * i))
        };
        let table: Vec<Word> = words(3000, 5, 22, &mut state)
            .into_iter()
            .map(paired)
            .collect();
        let probe = words(2000, 9, 44, &mut state);
        split_against_every_pair(&table, &probe, &[700, 2000]);
    }

    /// Where the diagonals in play come to fit 32 bits part way down, the split goes on with
    /// short words (and does so: the tally of such levels grows) and counts, group by group,
    /// what testing every pair counts: sides whose words have more diagonals than that at
    /// the top, at every budget, in each loop this CPU has.
    #[test]
    fn short_words_count_what_every_pair_counts() {
        let mut state = 0x3c6e_f372_fe94_f82b;
        let before = matched().short;
        for (tables, probes, bits, width) in [(6000, 5000, 9, 40), (9000, 3000, 12, 48)] {
            let table = words(tables, bits, width, &mut state);
            let probe = words(probes, bits, width, &mut state);
            for ends in [vec![probes / 4, probes / 2, probes], vec![probes]] {
                split_against_every_pair(&table, &probe, &ends);
            }
        }
        if !matches!(Isa::of(Kernel::Auto), Isa::Scalar) {
            assert!(
                matched().short > before,
                "no level went on with short words"
            );
        }
    }

    /// [`the_split_counts_what_every_pair_counts`] for one case.
    fn split_against_every_pair(table: &[Word], probe: &[Word], ends: &[usize]) {
        let (tables, probes) = (table.len(), probe.len());
        let spans: Vec<Span> = groups(ends).collect();
        let every = every_pair(table, probe, &spans);
        assert!(every.iter().sum::<u64>() > 0, "the case matches nothing");
        for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512, Kernel::Auto] {
            if kernel.resolve().is_err() {
                continue;
            }
            let between = 16 * (3 * tables + 3 * probes);
            for budget in [MIN_BYTES, between, 64 << 20] {
                let mut out = vec![0; ends.len()];
                let (mut t, mut p) = (table.to_vec(), probe.to_vec());
                Matcher::default().disjoint(
                    &mut t,
                    &mut p,
                    ends,
                    &mut out,
                    Within {
                        bytes: budget,
                        stop: super::super::NEVER,
                        least: 0,
                        held: 0,
                    },
                    Isa::of(kernel),
                );
                assert_eq!(
                    out, every,
                    "{tables}x{probes} {ends:?} {kernel:?} budget {budget}"
                );
            }
        }
    }

    /// The sides swap where a few probe words face a large table (the table's leaves'
    /// fills saved), not where the probe is as large or the table one leaf; an empty group
    /// costs nothing.
    #[test]
    fn a_level_swaps_the_sides_where_the_model_finds_it_cheaper() {
        let one = |len: usize| groups(&[len]).collect::<Vec<Span>>();
        assert!(turned(6000, &one(60)));
        assert!(turned(6000, &[0..0, 0..60]));
        assert!(!turned(6000, &one(6000)));
        assert!(!turned(600, &one(60)));
        // Two groups each against every table word cost more than one split of the table,
        // unless each is far larger than it.
        assert!(!turned(6000, &[0..30, 30..60]));
        assert!(turned(2000, &[0..20_000, 20_000..40_000]));
    }
}
