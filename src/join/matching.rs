//! Matching: the pairs of a key's left and right half-boards whose words share no bit (no
//! diagonal) are counted. One side is the *table*, the other the *probe* in one or more
//! groups. The table is split on one diagonal at a time, most contested first, until its
//! parts fit a leaf, whose pairs `leaf.rs` counts with bitsets:
//!
//! ```text
//! disjoint(table, probe groups):
//!     order = the diagonals both sides use, most contested first       (contested)
//!     level(table, probe groups, order)                                 (Level::split)
//!
//! level(table, probe groups, order):
//!     if the diagonals in play fit 32 bits: gather both sides, go on short
//!     if swapping the sides costs less by the model: level(each group, table)
//!     if the level is large: put the diagonal its own samples favour first
//!     if the table fits a leaf or no diagonal is left: count it with bitsets; stop
//!     d = the first diagonal of order
//!     t0, t1 = the table words without d, with d                        (partition)
//!     level(t0, probe groups, the rest of order)
//!     level(t1, the probe words without d, the rest of order)           (filter)
//! ```
//!
//! A pair is counted in exactly one leaf: the pairs that share `d` are dropped at the level
//! that splits on `d`. [`Matcher`] holds a thread's buffers from key to key; [`Level`] is
//! one level of the split and [`Descent`] what all its levels share.

use std::ops::Range;
#[cfg(any(test, feature = "instruments"))]
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, Ordering};

use super::leaf::{Bitsets, MAX_GROUPS, MOST_BYTES, Span};
use super::short;
use super::word::{Isa, SplitWord, Word, filter_words, grows, hold, resize_exact, tally_words};

/// The most half-boards a table leaf holds: the split goes on below it, one diagonal at a
/// time, until a side has at most this many (one slice of eight words, 512 bits).
pub(super) const LEAF: usize = 512;

/// The room an odd board's chunks leave for the split levels' filtered probe words, in
/// probe sides ([`room`]'s least there; see `BYTES_PER_BOARD` in the parent module).
pub(super) const LEVELS: usize = 2;

/// The most room the split levels' filtered probe words take, in probe sides, where the
/// thread's budget has it: less room leaves more levels to partition their probe in place,
/// which costs time, while more only holds memory (measured: results/zen3/2026-11-25-chunks/).
pub(super) const ROOM_MOST: usize = 16;

/// Words of room for the filtered levels of a matching of `table` and `probe` words within
/// `bytes`: what half the budget leaves beyond the table (three times: it, the words a
/// split moves aside, and a copy the caller may hold) and the probe (twice: it and the
/// other side's buffer), at least `least` probe sides (what the caller's chunks leave for
/// it) and at most [`ROOM_MOST`]. Half: the budget's other uses (the pieces each thread
/// keeps beyond the shared ones, what its buffers keep past their need: [`hold`]) are
/// not counted here; [`Matcher::room`] bounds it by what the thread's buffers leave. Where
/// the sides fill the chunks (n = 26), the room is its least, and the levels past it
/// partition the probe in place ([`Level::split`]).
fn room(bytes: usize, table: usize, probe: usize, least: usize) -> usize {
    let spare = (bytes / 16).saturating_sub(3 * table + 2 * probe);
    spare.clamp(least * probe, ROOM_MOST * probe) + 64
}

/// What the matching did, all threads together since the process started ([`matched`]):
/// one atomic add per matching or leaf, each thousands of word steps. Only the tests and
/// the instruments (`--features instruments`) read it, so only their builds keep it.
#[cfg(any(test, feature = "instruments"))]
struct Tally {
    every: AtomicU64,
    tested: AtomicU64,
    leaves: AtomicU64,
    short: AtomicU64,
}

#[cfg(any(test, feature = "instruments"))]
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
    room: Vec<Word>,
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
    /// The instructions it runs in.
    pub isa: Isa,
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
        (self.room.capacity() + self.aside.capacity()) * 8 + self.bitsets.bytes()
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
        let grown = grows(&self.room, most) + grows(&self.aside, aside);
        if within.held + self.bytes() + grown > within.bytes {
            hold(&mut self.room, most, within.bytes);
            hold(&mut self.aside, aside, within.bytes);
        }
    }

    /// Words of room for the filtered levels of a matching of `table` and `probe` words:
    /// [`room`]'s, and at most what `within`'s bytes leave past the thread's other buffers
    /// (`within.held`), the words a partition moves aside (the larger side's, or what the
    /// buffer holds already) and a leaf's tables, but never less than `within.least` probe
    /// sides. [`room`] alone counts only the matching's own sides: a group of an even
    /// board's left words ([`Matcher::grouped`]) is matched with the whole chunks held,
    /// which [`room`] alone would let pass the thread's budget (`tests/memory/join.rs`).
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
    /// (measured: results/zen4/2026-11-23-join-pairs/). So the table side is
    /// split first, one diagonal at a time, the most contested first (in both sides'
    /// samples; a level the model finds at least [`REPICK`] work picks its own): its words
    /// without the diagonal meet every probe word there, those with it only the probe
    /// words without it, which are filtered into a buffer of their own (all levels'
    /// together in a room of [`room`]'s size, which keeps them within the thread's
    /// budget), or where the room has run out
    /// partitioned in place (the words without it first in each group's span). Each side
    /// of the split loses that diagonal; once the table side has at most [`LEAF`] words,
    /// its pairs are counted with bitset tables over the diagonals still in play. Where
    /// the model finds it cheaper ([`swap_pays`]), a level swaps the sides: each probe
    /// group becomes the table, the table's words its probe. Both sides may be reordered,
    /// each probe group within its own words, the table within its own.
    pub(super) fn disjoint(
        &mut self,
        table: &mut [Word],
        probe: &mut [Word],
        ends: &[usize],
        out: &mut [u64],
        within: Within,
    ) {
        debug_assert!(ends.len() <= MAX_GROUPS && ends.last() == Some(&probe.len()));
        record(Counter::Pairs, table.len() * probe.len());
        let order = if table.len() > LEAF {
            contested(table, probe, within.isa)
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
        if self.room.len() < room {
            resize_exact(&mut self.room, room);
        }
        let mut spans: [Span; MAX_GROUPS] = Default::default();
        for (span, range) in spans.iter_mut().zip(groups(ends)) {
            *span = range;
        }
        let mut descent = Descent {
            budget: within.bytes,
            stop: within.stop,
            isa: within.isa,
            aside: aside(&mut self.aside, table.len().max(probe.len())),
            bitsets: &mut self.bitsets,
        };
        let top = Level {
            table,
            probe,
            spans: &spans[..ends.len()],
            in_play: InPlay::ALL,
            order: &order.bits[..order.len],
            out,
            room: &mut self.room[..room],
            probed: None,
        };
        top.split(&mut descent);
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
    /// groups cost less than the partitions they save (measured: results/zen3/2026-11-26-even-groups/). Where
    /// the room holds the probe side twice (the keys of n = 24), the sides are matched
    /// whole. Only how a key is counted: every pair is matched in exactly one group.
    pub(super) fn pivoted(
        &mut self,
        left: &mut [Word],
        right: &mut [Word],
        out: &mut [u64],
        within: Within,
    ) {
        let (t, p) = if table_first(left.len(), right.len()) {
            (left.len(), right.len())
        } else {
            (right.len(), left.len())
        };
        if self.room(within, t, p) >= 2 * p {
            return self.either(left, right, out, within);
        }
        let pivots = pivots(left, right);
        self.grouped(left, right, &pivots, out, within);
    }

    /// [`Matcher::pivoted`]'s matching: `left`'s words in [`pivot_pair`]'s groups (`sizes`
    /// words each), those `pivot` takes each with the right words without its two bits,
    /// the others together with every right word.
    fn grouped(
        &mut self,
        left: &mut [Word],
        right: &mut [Word],
        pivots: &Pivots,
        out: &mut [u64],
        within: Within,
    ) {
        let Pivots {
            sizes,
            alone: pivot,
        } = pivots;
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
            let kept = partition(right, bits, within.isa, &mut self.aside[..]);
            self.either(group, &mut right[..kept], out, within);
        }
        if !rest.is_empty() {
            self.either(rest, right, out, within);
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
    ) {
        let (table, probe) = if table_first(a.len(), b.len()) {
            (a, b)
        } else {
            (b, a)
        };
        let ends = [probe.len()];
        self.disjoint(table, probe, &ends, out, within);
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
/// (measured: results/zen4/2026-11-23-table-side/). It decides only how a key is counted, never what.
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
/// results/xeon/2026-11-27-turned-levels/). A group swaps only with the others: the fills of the table's
/// leaves are saved only if none is left against it.
fn swap_pays(table: usize, spans: &[Span]) -> bool {
    let t = table as f64;
    let probes: usize = spans.iter().map(Span::len).sum();
    let each: f64 = spans
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| work(s.len() as f64, t))
        .sum();
    each < work(t, probes as f64)
}

/// The model [`table_first`] and [`swap_pays`] use: the work of matching a table of `t` words
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
fn pivots(left: &[Word], right: &[Word]) -> Pivots {
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
    Pivots {
        sizes,
        alone: pivot,
    }
}

/// [`Matcher::pivoted`]'s groups of left words ([`pivot_pair`]'s): how many words each
/// has, and whether it is matched on its own.
struct Pivots {
    sizes: [usize; PAIRS],
    alone: [bool; PAIRS],
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

/// Words of each side [`contested`] and [`pick_diagonal`] sample (every `len / SAMPLE`-th): fewer
/// pick worse diagonals, more cost more than their better picks save (measured:
/// results/zen4/2026-11-28-picking-levels/).
const SAMPLE: usize = 128;

/// The least work ([`work`]: probe words matched at a leaf) of a split level at which it
/// picks its own diagonal ([`pick_diagonal`]) rather than take the next of its matching's order. The
/// order is made from the whole sides, but a level's table words all lack, or all have, each
/// diagonal split on above it, and its probe words were filtered by those its table words
/// have, so other diagonals are the contested ones there. A level's work, not its probe
/// alone, is what a better diagonal saves: a large table against fewer probe words is worth
/// a pick too. Below this bound the picks leave fewer pairs to the leaves, but their
/// samples cost more than those pairs (measured: results/zen4/2026-11-28-picking-levels/).
const REPICK: f64 = 4096.0;

/// Adds to `counts[b]` how many of every `step`-th word of `v` have bit `b`, in `isa`'s
/// instructions: a vector of sampled words at a time where the CPU has one (`pack::tally256`,
/// `pack::tally512`): a split level of n = 27 samples about 512 words of its sides
/// ([`pick_diagonal`]), enough that a vector of them at a time pays.
fn tally<E: SplitWord>(v: &[E], step: usize, counts: &mut [u64; 64], isa: Isa) {
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
fn sampled<E: SplitWord>(v: &[E], isa: Isa) -> [u64; 64] {
    let mut counts = [0u64; 64];
    tally(v, stride(v.len()), &mut counts, isa);
    counts
}

/// A split level's sample of its probe groups ([`pick_diagonal`]'s): how many sampled words have
/// each bit, the groups' words, and the words each sampled one stands for. The level's table
/// words without its diagonal meet the same probe words (reordered at most), so their level
/// takes this sample rather than draw its own: along a chain of such levels the probe is
/// sampled once. [`pick_diagonal`] samples the level's table words the same way, as one group.
struct Probed {
    counts: [u64; 64],
    words: f64,
    share: f64,
}

impl Probed {
    /// A sample of the probe groups in `spans`, each in its share (one stride for all).
    fn of<E: SplitWord>(probe: &[E], spans: &[Span], isa: Isa) -> Probed {
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
/// (measured: results/xeon/2026-11-27-picking-model/). Also returns the diagonals both samples have (for
/// [`Level::used_diagonals`]).
fn pick_diagonal<E: SplitWord>(
    table: &[E],
    probed: &Probed,
    order: &[u64],
    isa: Isa,
) -> (Order, u64) {
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

/// The diagonals a split level's words may still meet on: `live`, those not yet split on,
/// and `seen`, a superset of those both sides' words use (every bit until a level counts
/// them, [`Level::used_diagonals`]). Where `live & seen` fits 32 bits, the levels below may
/// go on with short words ([`Level::go_short`]).
#[derive(Clone, Copy)]
struct InPlay {
    live: u64,
    seen: u64,
}

impl InPlay {
    /// Every diagonal, at the top of a split.
    const ALL: InPlay = InPlay { live: !0, seen: !0 };

    /// The diagonals both sides may still meet on.
    fn both(self) -> u64 {
        self.live & self.seen
    }
}

/// What every level of a split shares besides its words: the memory a leaf's tables may
/// take, the flag that stops the split, the instructions it runs in, the buffer a partition
/// uses (room for the larger side and a vector more; where the words go short, the short
/// table's and its partitions') and the sets and tables a leaf is counted with.
struct Descent<'a, E> {
    budget: usize,
    stop: &'a AtomicBool,
    isa: Isa,
    aside: &'a mut [E],
    bitsets: &'a mut Bitsets,
}

/// One level of a split ([`Matcher::disjoint`]): `table` against the probe groups whose
/// words are `probe[spans[g]]`, each adding its count to `out[g]`.
///
/// ```text
/// level(table, probe groups):
///     stop, if the table or every group is empty, or the count is abandoned
///     go on short, if the diagonals in play fit 32 bits         (go_short)
///     swap the sides, if the model finds that cheaper            (swap_pays)
///     put its own best diagonal first, if the level is large     (pick_diagonal)
///     with d the first diagonal of the order, or at a leaf:
///         count the pairs with bitsets                           (leaf.rs)
///         t0, t1 = the table words without d, with d
///         level(t0, every probe word)
///         level(t1, the probe words without d)   filtered into the room, or
///                                                partitioned in place, t1 first
/// ```
///
/// Every pair is counted in exactly one leaf: a level drops the pairs that meet on its
/// diagonal, and a swapped level keeps the same diagonals in play.
struct Level<'s, E> {
    /// The table's words: reordered by the partitions.
    table: &'s mut [E],
    /// The words the probe groups' spans index: reordered within each span.
    probe: &'s mut [E],
    /// Each probe group's words in `probe`.
    spans: &'s [Span],
    /// The diagonals the two sides may still meet on.
    in_play: InPlay,
    /// The diagonals left to split on, most contested first.
    order: &'s [u64],
    /// Each probe group's count.
    out: &'s mut [u64],
    /// The room left for the levels below to filter their probe words into.
    room: &'s mut [E],
    /// The probe's sample, where a level above drew it for the same probe words.
    probed: Option<&'s Probed>,
}

impl<E: SplitWord> Level<'_, E> {
    /// Counts the level's pairs: the level's decisions in the order the pseudo-code above
    /// has them.
    ///
    /// A level that [`swap_pays`] for splits each probe group as a table against every
    /// table word (its one group), with the same diagonals left. It never swaps twice
    /// running from the other side (the model's inequality is strict), so a chain of swaps
    /// is at most two levels long. A level whose model work is at least [`REPICK`] puts
    /// the diagonal [`pick_diagonal`] finds first ([`Level::with_own_diagonal`]).
    fn split(mut self, descent: &mut Descent<E>) {
        let empty = self.spans.iter().all(Range::is_empty);
        if self.table.is_empty() || empty || descent.stop.load(Ordering::Relaxed) {
            return;
        }
        let large = self.table.len() > LEAF;
        if large && self.go_short(descent) {
            return;
        }
        if large && swap_pays(self.table.len(), self.spans) {
            return self.swapped(descent);
        }
        // The model (a `powf`) asked only of levels above a leaf with diagonals to pick from.
        let probes = self.probes() as f64;
        if large && self.order.len() > 1 && work(self.table.len() as f64, probes) >= REPICK {
            return self.with_own_diagonal(descent);
        }
        self.on_first(descent);
    }

    /// The probe groups' words.
    fn probes(&self) -> usize {
        self.spans.iter().map(Span::len).sum()
    }

    /// The level with its sides swapped ([`swap_pays`]): each probe group becomes the table
    /// from here on, and the table's words become its one probe group.
    fn swapped(self, descent: &mut Descent<E>) {
        let all = 0..self.table.len();
        let whole = std::slice::from_ref(&all);
        for (g, span) in self.spans.iter().enumerate() {
            if span.is_empty() {
                continue;
            }
            let level = Level {
                table: &mut self.probe[span.clone()],
                probe: &mut *self.table,
                spans: whole,
                in_play: self.in_play,
                order: self.order,
                out: &mut self.out[g..=g],
                room: &mut *self.room,
                probed: None,
            };
            level.split(descent);
        }
    }

    /// The level with the diagonal [`pick_diagonal`] finds in its samples put first: the
    /// table's sample, and the probe's (`probed`, drawn by a level above for the same
    /// probe words, else drawn here). Where its words might fit 32 bits it counts the
    /// diagonals they use ([`Level::used_diagonals`]) and goes on short where they do.
    fn with_own_diagonal(self, descent: &mut Descent<E>) {
        let isa = descent.isa;
        let drawn;
        let sample = match self.probed {
            Some(sample) => sample,
            None => {
                drawn = Probed::of(self.probe, self.spans, isa);
                &drawn
            }
        };
        let (own, sampled) = pick_diagonal(self.table, sample, self.order, isa);
        let seen = self.used_diagonals(sampled, isa);
        let counted = seen != self.in_play.seen;
        let mut level = Level {
            in_play: InPlay {
                seen,
                ..self.in_play
            },
            order: &own.bits[..own.len],
            probed: Some(sample),
            ..self
        };
        if counted && level.go_short(descent) {
            return;
        }
        level.on_first(descent);
    }

    /// The level split on the first diagonal of its order: the table's words without it
    /// matched with every probe word, those with it with the probe words without it
    /// (filtered into the room, after the side without the diagonal is done so that its
    /// levels use the same room; or partitioned in place where the room has run out, the
    /// side with the diagonal first: the other side's levels reorder the spans as they
    /// like, which that would not survive). Where the table fits a leaf or no diagonal is
    /// left, the leaf's bitsets count the pairs. The probe's sample goes on to the side
    /// without the diagonal, which meets the same probe words.
    fn on_first(self, descent: &mut Descent<E>) {
        let Level {
            table,
            probe,
            spans,
            in_play,
            order,
            out,
            room,
            probed,
        } = self;
        let probes: usize = spans.iter().map(Span::len).sum();
        let Some((&bit, order)) = order.split_first().filter(|_| table.len() > LEAF) else {
            record(Counter::Tested, table.len() * probes);
            record(Counter::Leaves, 1);
            let within = (descent.budget, descent.isa);
            let sides = (&*table, &*probe, spans);
            descent.bitsets.disjoint(sides, in_play.live, within, out);
            return;
        };
        let without = partition(table, bit, descent.isa, descent.aside);
        let (t0, t1) = table.split_at_mut(without);
        let in_play = InPlay {
            live: in_play.live & !bit,
            ..in_play
        };
        let mut kept: [Span; MAX_GROUPS] = Default::default();
        if t1.is_empty() {
            // No table word has `bit` (deep in a split, a diagonal of the order may be gone
            // from the table's words): no probe words to filter or partition for them.
            let (table, room) = (t0, room);
            let level = Level {
                table,
                probe,
                spans,
                in_play,
                order,
                out,
                room,
                probed,
            };
            return level.split(descent);
        }
        if room.len() < probes + 16 {
            // No room left to filter: the probe words without `bit` first in each span.
            for (k, span) in kept.iter_mut().zip(spans) {
                let lacking = partition(&mut probe[span.clone()], bit, descent.isa, descent.aside);
                *k = span.start..span.start + lacking;
            }
            let with = Level {
                table: t1,
                probe: &mut *probe,
                spans: &kept[..spans.len()],
                in_play,
                order,
                out: &mut *out,
                room: &mut *room,
                probed: None,
            };
            with.split(descent);
            let table = t0;
            let level = Level {
                table,
                probe,
                spans,
                in_play,
                order,
                out,
                room,
                probed,
            };
            return level.split(descent);
        }
        let level = Level {
            table: t0,
            probe: &mut *probe,
            spans,
            in_play,
            order,
            out: &mut *out,
            room: &mut *room,
            probed,
        };
        level.split(descent);
        // The probe words without `bit`, group by group, in front of the levels below.
        let mut len = 0;
        for (k, span) in kept.iter_mut().zip(spans) {
            let from = len;
            len += filter(&probe[span.clone()], bit, &mut room[len..], descent.isa);
            *k = from..len;
        }
        let (filtered, below) = room.split_at_mut(len);
        let with = Level {
            table: t1,
            probe: filtered,
            spans: &kept[..spans.len()],
            in_play,
            order,
            out,
            room: below,
            probed: None,
        };
        with.split(descent);
    }

    /// The level's `seen` made exact where its words are full, more than 32 of its live
    /// diagonals may be used, and the samples' (`sampled`: the bits both sides' samples
    /// have) are few enough that they might fit 32 ([`LOOK`]): one pass over both sides'
    /// words, ORed. Its levels below then go on short ([`Level::go_short`]) once that set,
    /// less the diagonals split on since, fits.
    fn used_diagonals(&self, sampled: u64, isa: Isa) -> u64 {
        let InPlay { live, seen } = self.in_play;
        if !may_shorten::<E>(self.table.len(), isa)
            || (seen & live).count_ones() <= 32
            || (sampled & live).count_ones() > LOOK
        {
            return seen;
        }
        let probed = self
            .spans
            .iter()
            .fold(0, |u, s| u | short::ored(&self.probe[s.clone()]));
        seen & live & short::ored(self.table) & probed
    }

    /// Goes on with the level's words short, and says so, where they are full, the
    /// diagonals in play that both sides may use fit 32 bits, the CPU has vector loops
    /// (and BMI2's `pext`), and the buffers have room: each probe group's words gathered
    /// ([`short::gather`]) into the front of the room, the table's into the front of the
    /// partitions' buffer, and the order's diagonals where gathering puts them. The full
    /// words stay as they are (the levels above may use them again).
    fn go_short(&mut self, descent: &mut Descent<E>) -> bool {
        let mask = self.in_play.both();
        if mask.count_ones() > 32 || !may_shorten::<E>(self.table.len(), descent.isa) {
            return false;
        }
        let (Some(table), Some(probe), Some(room), Some(aside)) = (
            E::full(self.table),
            E::full(self.probe),
            E::full(self.room),
            E::full(descent.aside),
        ) else {
            return false;
        };
        let probes: usize = self.spans.iter().map(Span::len).sum();
        let (room, aside) = (short::halves(room), short::halves(aside));
        if room.len() < 2 * probes + 64 || aside.len() < table.len() + table.len().max(probes) + 64
        {
            return false;
        }
        let (short_probe, below) = room.split_at_mut(probes);
        let mut kept: [Span; MAX_GROUPS] = Default::default();
        let mut at = 0;
        for (k, span) in kept.iter_mut().zip(self.spans) {
            *k = at..at + span.len();
            short::gather(&probe[span.clone()], mask, &mut short_probe[k.clone()]);
            at = k.end;
        }
        let (short_table, aside) = aside.split_at_mut(table.len());
        short::gather(table, mask, short_table);
        let mut gathered = Order::default();
        for &bit in self.order.iter().filter(|&&bit| bit & mask != 0) {
            gathered.bits[gathered.len] = short::gathered(bit, mask);
            gathered.len += 1;
        }
        record(Counter::Short, 1);
        let mut short_descent = Descent {
            budget: descent.budget,
            stop: descent.stop,
            isa: descent.isa,
            aside,
            bitsets: &mut *descent.bitsets,
        };
        let level = Level {
            table: short_table,
            probe: short_probe,
            spans: &kept[..self.spans.len()],
            in_play: InPlay {
                live: (1 << mask.count_ones()) - 1,
                seen: !0,
            },
            order: &gathered.bits[..gathered.len],
            out: &mut *self.out,
            room: below,
            probed: None,
        };
        level.split(&mut short_descent);
        true
    }
}

/// The fewest table words a level takes short ([`Level::go_short`]): below it the levels
/// left are too few to pay for gathering its words.
const SHORT_LEAST: usize = if cfg!(test) { LEAF } else { 4096 };

/// Whether a level of `table` words of `E` may go on short ([`Level::go_short`],
/// [`Level::used_diagonals`]): its words are full, at least [`SHORT_LEAST`], and the CPU
/// has vector loops (and BMI2).
fn may_shorten<E: SplitWord>(table: usize, isa: Isa) -> bool {
    !E::SHORT && !matches!(isa, Isa::Scalar) && table >= SHORT_LEAST
}

/// The most diagonals in play that the samples of a level of full words may show for it
/// to count every word's ([`Level::used_diagonals`]): the samples miss the rarer ones, so a
/// level whose samples show this many often has a few more.
const LOOK: u32 = 32;

/// Puts the words of `table` without `bit` first and returns how many there are; `aside`
/// is a buffer the vector loops may use. The table's words and, where the room has run out,
/// a probe group's: in the vector loops where the CPU has them (`pack::partition256`,
/// `pack::partition512`), else a word at a time.
fn partition<E: SplitWord>(table: &mut [E], bit: u64, isa: Isa, aside: &mut [E]) -> usize {
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
fn filter<E: SplitWord>(from: &[E], bit: u64, to: &mut [E], isa: Isa) -> usize {
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

/// One of the matching's counters ([`Matched`]'s fields).
#[derive(Clone, Copy)]
enum Counter {
    Pairs,
    Tested,
    Leaves,
    Short,
}

/// Adds `by` to `counter` where the build keeps the counters (the tests' and the
/// instruments'); else does nothing.
#[inline(always)]
fn record(counter: Counter, by: usize) {
    #[cfg(any(test, feature = "instruments"))]
    {
        let to = match counter {
            Counter::Pairs => &TALLY.every,
            Counter::Tested => &TALLY.tested,
            Counter::Leaves => &TALLY.leaves,
            Counter::Short => &TALLY.short,
        };
        to.fetch_add(by as u64, Ordering::Relaxed);
    }
    #[cfg(not(any(test, feature = "instruments")))]
    let _ = (counter, by);
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
    fn partitions_of<E: SplitWord + Ord>(width: u32) {
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
    /// the sides (`swap_pays`) before the leaves: with 300 probe words no leaf is sliced.
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
            let sizes = pivots(&left, &right).sizes;
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
                        isa: Isa::of(kernel),
                        least: 0,
                        held: 0,
                    };
                    Matcher::default().grouped(
                        &mut l,
                        &mut r,
                        &Pivots {
                            sizes,
                            alone: pivot,
                        },
                        &mut out,
                        within,
                    );
                    assert_eq!(out[0], every, "{lefts}x{rights} {kernel:?} budget {budget}");
                    let mut out = [0];
                    let (mut l, mut r) = (left.clone(), right.clone());
                    Matcher::default().pivoted(&mut l, &mut r, &mut out, within);
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
        let (own, _) = pick_diagonal(
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
        let (own, sampled) = pick_diagonal(&table, &probed, &[1 << 3, 1 << 2], Isa::Scalar);
        assert_eq!(own.bits[..own.len], [1 << 2, 1 << 3]);
        // The diagonals both sides' samples have.
        assert_eq!(sampled, 1 << 2 | 1 << 3);
        // Bits 1 and 5 alike in both sides: the tie keeps the order's.
        let same: Vec<Word> = (0..600).map(|_| 1 << 1 | 1 << 5).collect();
        let whole: Vec<Span> = groups(&[600]).collect();
        let (own, _) = pick_diagonal(
            &same,
            &Probed::of(&same, &whole, Isa::Scalar),
            &[1 << 5, 1 << 1],
            Isa::Scalar,
        );
        assert_eq!(own.bits[..own.len], [1 << 5, 1 << 1]);
        assert_eq!(
            pick_diagonal(
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
            // (`swap_pays`).
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
                        isa: Isa::of(kernel),
                        least: 0,
                        held: 0,
                    },
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
        assert!(swap_pays(6000, &one(60)));
        assert!(swap_pays(6000, &[0..0, 0..60]));
        assert!(!swap_pays(6000, &one(6000)));
        assert!(!swap_pays(600, &one(60)));
        // Two groups each against every table word cost more than one split of the table,
        // unless each is far larger than it.
        assert!(!swap_pays(6000, &[0..30, 30..60]));
        assert!(swap_pays(2000, &[0..20_000, 20_000..40_000]));
    }
}
