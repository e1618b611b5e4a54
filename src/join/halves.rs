//! Half-boards: a top piece and a bottom piece on a key's rows whose columns complete each
//! other and whose diagonals do not meet, written as one word of the diagonals both halves
//! reach (plain words, or eight or four bottom pieces a step with AVX-512 or AVX2):
//!
//! ```text
//! build(top pieces, bottom pieces, shape):
//!     for each top piece p, by its column set:
//!         for each bottom piece q on the other columns:
//!             if p and q share no diagonal, and q misses the middle queen's lines:
//!                 write the word of p | q, its diagonals shifted to the shared ones
//! ```
//!
//! A side's sizes are counted the same way without writing a word ([`boards`]), so that
//! a key's chunks are planned before any is built.

use super::pieces::{Lines, Pieces};
use super::word::{Isa, TAG, TAG_SHIFT, Word, lacking_words, resize_exact};

/// Fills `out` with the word of every left half-board whose top piece is one of
/// `north`'s on a column set of `ups` and whose bottom piece is one of `south`'s (the
/// pieces of one row set of each quadrant), that does not meet `forbid`; or
/// (`mirrored`) of their mirror images as right half-boards: the diagonals
/// `low..low + width` of each direction, down-right in the low half. The mirror keeps
/// rows and swaps the two directions (and so the word's halves); it maps the middle
/// column to itself, so the middle queen forbids the same squares.
/// `out` is given room for `boards` half-boards and what one top piece's pairs write
/// past them, and no more where it must grow ([`resize_exact`]).
///
/// Where `above` is a class, only the half-boards whose bottom piece is of a class above
/// it are made, and without their classes (a weighed key's side with the middle row's
/// queen: the others weigh 0); else each carries its bottom piece's ([`TAG`], where it
/// has one).
pub(super) fn build(
    h: usize,
    (north, south): (&Pieces, &Pieces),
    (spans, boards): (&[Span], u64),
    shape: &Shape,
    isa: Isa,
    out: &mut Vec<Word>,
) {
    let halves = Halves::of(h, north, south, spans);
    let below = spans.iter().map(|s| halves.below(s).len()).max();
    let need = boards as usize + below.unwrap_or(0) + 8;
    out.clear();
    out.reserve_exact(need);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::of` picked AVX-512 only where the CPU has it.
        Isa::Avx512 => unsafe { halves.build512(shape, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::of` picked AVX2 only where the CPU has it.
        Isa::Avx2 => unsafe { halves.build256(shape, out) },
        Isa::Scalar => halves.build_with(shape, out, pairs),
    }
}

/// Appends to `counts` how many half-boards [`build`] makes of each top piece of
/// `span` (pieces of `north`) with `south`'s that do not meet `forbid`, none of them
/// written: each bottom piece tested with one AND ([`Pieces::meeting`]), a vector of
/// them at a time ([`lacking`]), those a middle queen forbids dropped first for all the
/// span's top pieces ([`Halves::blocks`], as the build drops them). A side's sizes are
/// counted per top piece ([`Sizes::of`]) without building its half-boards, which would
/// cost as many pairs of pieces as building the side's chunks after it.
pub(super) fn boards(
    h: usize,
    (north, south): (&Pieces, &Pieces),
    span: Span,
    forbid: Lines,
    isa: Isa,
    counts: &mut Vec<u32>,
) {
    let spans = [span];
    let halves = Halves::of(h, north, south, &spans);
    let tops = halves.tops(&span);
    let from = counts.len();
    counts.resize(from + tops.len(), 0);
    let counts = &mut counts[from..];
    halves.blocks(&span, (forbid, None), |south, block| {
        for (count, &p) in counts.iter_mut().zip(tops) {
            let p = north.lines(p);
            if p.meets(forbid) == 0 {
                // At most the south pieces on one column set: far below 2^32.
                *count += lacking(block, south.meeting(p.with(forbid)), isa) as u32;
            }
        }
    });
}

/// How many of `words` (bottom pieces) share no bit with `bits`, in `isa`'s instructions:
/// a vector of pieces at a time where the CPU has one (`pack::lacking256`), a word at a
/// time elsewhere: the sizes of every side that does not fit one chunk are counted so.
fn lacking(words: &[u64], bits: u64, isa: Isa) -> u64 {
    #[cfg(target_arch = "x86_64")]
    match isa {
        // SAFETY: `Isa::of` picked these only where the CPU has their features.
        Isa::Avx512 => return unsafe { super::pack::lacking512(words, bits) },
        // SAFETY: as above.
        Isa::Avx2 => return unsafe { super::pack::lacking256(words, bits) },
        Isa::Scalar => {}
    }
    let _ = isa;
    lacking_words(words, bits)
}

/// Part of a side's half-boards: `north`'s pieces `from..to` on column set `up`, each with
/// every `south` piece on the other columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) up: u32,
    pub(super) from: u32,
    pub(super) to: u32,
}

/// How many half-boards a side makes (from `north`'s and `south`'s pieces): its column
/// sets' spans of pieces and their pairs, and where those could be more than a chunk holds,
/// each north piece's count; and the side cut into chunks of spans, in order of columns
/// ([`Sizes::chunks`]). Where every pair of pieces fits (a pair makes at most one
/// half-board) they are one chunk. Otherwise a chunk takes pieces while their half-boards
/// fit, at least one: the pairs are a loose bound (a side's half-boards are a third to a
/// tenth of its pairs at n = 26), which would cut a side into several times the chunks.
pub(super) struct Sizes {
    /// Every column set's north pieces (that have south pieces under them) as one span.
    sets: Vec<Span>,
    /// Pairs of pieces of each set: a bound on its half-boards.
    set_pairs: Vec<u64>,
    /// The half-boards of each north piece of `sets`, in their order (a piece's span is
    /// implied by it): counted only where their pairs passed the bound [`Sizes::of`] was
    /// given. Four bytes a piece, allocated once: at n = 28 a row set has tens of
    /// millions of north pieces, where a span with a count each (24 bytes, grown by
    /// doubling) takes hundreds of megabytes of a thread's share.
    counts: Vec<u32>,
}

impl Sizes {
    /// The sizes of the side `north` and `south` make; each north piece's half-boards
    /// counted where the pairs pass `bound` (`size`, which appends a column set's counts,
    /// a north piece each, in order: [`boards`]).
    pub(super) fn of(
        north: &Pieces,
        south: &Pieces,
        h: usize,
        bound: u64,
        mut size: impl FnMut(Span, &mut Vec<u32>),
    ) -> Sizes {
        let all = (1usize << h) - 1;
        // Every column set's pieces as one span, in one pass over the sets that have some
        // (so only the south side can be empty).
        let (mut sets, mut set_pairs, mut tops) = (Vec::new(), Vec::new(), 0usize);
        for &up in north.sets() {
            let up = up as usize;
            let (top, below) = (north.on(up).len(), south.on(all & !up).len());
            if below > 0 {
                set_pairs.push((top * below) as u64);
                tops += top;
                sets.push(Span {
                    up: up as u32,
                    from: 0,
                    to: top as u32,
                });
            }
        }
        let mut counts = Vec::new();
        if set_pairs.iter().sum::<u64>() > bound {
            counts.reserve_exact(tops);
            for &set in &sets {
                size(set, &mut counts);
            }
        }
        Sizes {
            sets,
            set_pairs,
            counts,
        }
    }

    /// The most bytes the sizes of a side with `north`'s pieces take ([`Sizes::bytes`]):
    /// a count a north piece, and a span and its pairs a column set, grown by doubling.
    pub(super) fn most_bytes(north: &Pieces) -> usize {
        north.len() * 4 + north.sets().len() * 2 * (std::mem::size_of::<Span>() + 8)
    }

    /// Bytes these sizes take: at n = 26 a side's counts take megabytes.
    pub(super) fn bytes(&self) -> usize {
        self.sets.capacity() * std::mem::size_of::<Span>()
            + self.set_pairs.capacity() * 8
            + self.counts.capacity() * 4
    }

    /// The column set of each span (the top pieces' columns), in order.
    pub(super) fn ups(&self) -> impl Iterator<Item = u32> + '_ {
        self.sets.iter().map(|s| s.up)
    }

    /// The half-boards of each column set: counted where they were, else its pairs' bound.
    pub(super) fn each_set(&self) -> Vec<u64> {
        if self.counts.is_empty() {
            return self.set_pairs.clone();
        }
        let mut counts = self.counts.iter();
        self.sets
            .iter()
            .map(|set| {
                let pieces = (set.to - set.from) as usize;
                counts.by_ref().take(pieces).map(|&b| u64::from(b)).sum()
            })
            .collect()
    }

    /// Each north piece of `sets`, alone in its span, in order.
    fn each(sets: &[Span]) -> impl Iterator<Item = Span> + '_ {
        sets.iter().flat_map(|set| {
            (set.from..set.to).map(move |from| Span {
                up: set.up,
                from,
                to: from + 1,
            })
        })
    }

    /// The side's half-boards (of the column sets `keep` takes, where it is given, by their
    /// place in [`Sizes::ups`]): counted where they were, else the pairs' bound.
    pub(super) fn boards_of(&self, keep: Option<&[bool]>) -> u64 {
        let each = self.each_set().into_iter().enumerate();
        each.filter(|&(s, _)| keep.is_none_or(|k| k[s]))
            .map(|(_, b)| b)
            .sum()
    }

    /// The side cut into chunks of at most `most` half-boards (or one north piece's, where
    /// those alone are more): one where they all fit, or where they were not counted (a
    /// side is never cut where its pieces' sizes are unknown; [`Sizes::of`]'s caller gives
    /// a bound no more than any `most` it asks for). Only the column sets `keep` takes,
    /// where it is given ([`Sizes::boards_of`]). Each with its half-boards: counted, or the
    /// pairs' bound.
    pub(super) fn chunks(&self, most: u64, keep: Option<&[bool]>) -> Vec<Chunk> {
        let kept = |s: usize| keep.is_none_or(|k| k[s]);
        let all = self.boards_of(keep);
        if all <= most || self.counts.is_empty() {
            let sets = self.sets.iter().enumerate().filter(|&(s, _)| kept(s));
            return vec![Chunk {
                spans: sets.map(|(_, &set)| set).collect(),
                boards: all,
            }];
        }
        let mut start = 0;
        let pieces = self.sets.iter().enumerate().flat_map(|(s, set)| {
            let (from, len) = (start, (set.to - set.from) as usize);
            start += len;
            let counts = &self.counts[from..from + if kept(s) { len } else { 0 }];
            Sizes::each(std::slice::from_ref(set)).zip(counts)
        });
        let (mut out, mut chunk) = (Vec::new(), Chunk::default());
        for (piece, &boards) in pieces {
            let boards = u64::from(boards);
            if chunk.boards + boards > most && !chunk.spans.is_empty() {
                out.push(std::mem::take(&mut chunk));
            }
            match chunk.spans.last_mut() {
                Some(last) if last.up == piece.up => last.to = piece.to,
                _ => chunk.spans.push(piece),
            }
            chunk.boards += boards;
        }
        if !chunk.spans.is_empty() || out.is_empty() {
            out.push(chunk);
        }
        out
    }
}

/// Spans of a side built together ([`Sizes::chunks`]), and their half-boards as counted
/// (or their pairs' bound where they were not): what the budget charged for them, and
/// what their buffer is given room for.
#[derive(Clone, Debug, Default)]
pub(super) struct Chunk {
    pub(super) spans: Vec<Span>,
    pub(super) boards: u64,
}

/// The pieces one build joins: `north`'s in `spans` with `south`'s on the other columns of
/// `all`.
struct Halves<'a> {
    north: &'a Pieces,
    south: &'a Pieces,
    spans: &'a [Span],
    all: usize,
}

impl<'a> Halves<'a> {
    /// The pieces a build of `spans` joins, on an `n`-board's `h` left columns.
    fn of(h: usize, north: &'a Pieces, south: &'a Pieces, spans: &'a [Span]) -> Halves<'a> {
        Halves {
            north,
            south,
            spans,
            all: (1 << h) - 1,
        }
    }

    /// The bottom pieces under `span`'s top pieces: those on the other columns.
    fn below(&self, span: &Span) -> &[u64] {
        self.south.on(self.all & !span.up as usize)
    }

    /// `span`'s top pieces.
    fn tops(&self, span: &Span) -> &[u64] {
        &self.north.on(span.up as usize)[span.from as usize..span.to as usize]
    }

    /// [`build`] with `pairs` joining one top piece to the bottom pieces under it,
    /// appended to `out` (which `build` cleared and gave room).
    #[inline(always)]
    fn build_with(
        &self,
        shape: &Shape,
        out: &mut Vec<Word>,
        pairs: impl Fn(&Pieces, Lines, &[u64], &Shape, &mut Vec<Word>),
    ) {
        let north = self.north;
        for span in self.spans {
            let tops = self.tops(span);
            self.blocks(span, (shape.forbid, shape.above), |south, block| {
                for &p in tops {
                    let p = north.lines(p);
                    if p.meets(shape.forbid) == 0 {
                        pairs(south, p, block, shape, out);
                    }
                }
            });
        }
    }

    /// Calls `each` with the bottom pieces under `span`'s top pieces, a block at a time:
    /// where a middle queen forbids squares (and the span has [`FEW_TOPS`] top pieces or
    /// more), only those it leaves, found once for every top piece, and only those above
    /// the class `above`, without it, where that is set (a side that keeps some classes is
    /// always sifted: its words carry no class to filter them by later). Else the bottom
    /// pieces as they are, in one block.
    #[inline(always)]
    fn blocks(
        &self,
        span: &Span,
        (forbid, above): (Lines, Option<u64>),
        mut each: impl FnMut(&Pieces, &[u64]),
    ) {
        let south = self.south;
        let gone = south.meeting(forbid);
        let below = self.below(span);
        let sifted = gone != 0 && self.tops(span).len() >= FEW_TOPS || above.is_some();
        if !sifted {
            if !below.is_empty() {
                each(south, below);
            }
            return;
        }
        let mut missing = [std::mem::MaybeUninit::<u64>::uninit(); MISSING];
        for block in below.chunks(MISSING) {
            let mut len = 0;
            for &q in block {
                let class = q >> TAG_SHIFT;
                // A bottom piece of the key's class puts a queen on a diagonal of the
                // middle one.
                debug_assert!(above != Some(class) || q & gone != 0);
                let kept = above.is_none_or(|c| class > c);
                missing[len].write(if above.is_some() { q & !TAG } else { q });
                len += usize::from(q & gone == 0 && kept);
            }
            if len > 0 {
                // SAFETY: the first `len` were written above (each before `len` passed it).
                each(south, unsafe {
                    std::slice::from_raw_parts(missing.as_ptr().cast::<u64>(), len)
                });
            }
        }
    }

    /// [`build`] compiled for AVX-512, eight bottom pieces a step ([`pairs512`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,popcnt")]
    fn build512(&self, shape: &Shape, out: &mut Vec<Word>) {
        // The closure inherits this function's AVX-512F and popcnt, which `pairs512` needs.
        self.build_with(shape, out, |s, p, below, shape, out| {
            pairs512(s, p, below, shape, out)
        });
    }

    /// [`build`] compiled for AVX2, four bottom pieces a step ([`pairs256`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    fn build256(&self, shape: &Shape, out: &mut Vec<Word>) {
        // The closure inherits this function's AVX2 and popcnt, which `pairs256` needs.
        self.build_with(shape, out, |s, p, below, shape, out| {
            pairs256(s, p, below, shape, out)
        });
    }
}

/// The most bottom pieces [`Halves::build_with`] keeps at a time as those a middle queen
/// leaves (on the stack: 16 KB): each bottom piece is tested against the middle queen once
/// per block, not once for every top piece (at n = 27 a third of the pairs of pieces meet
/// the middle queen). A column set has up to several thousand bottom pieces at n = 27, so
/// a span may take a few blocks:
/// its half-boards then come block by block, each with every top piece (a chunk's words
/// in another order, the same words). The unit tests take blocks of 16, so that their
/// small boards' spans take many.
const MISSING: usize = if cfg!(test) { 16 } else { 2048 };

/// The fewest top pieces of a span for which [`Halves::build_with`] finds the bottom pieces
/// a middle queen leaves first.
const FEW_TOPS: usize = 4;

/// Which half-boards [`build`] makes and how it writes them: the squares the middle queen
/// forbids, the diagonals kept (`low`, `mask`) and the turn that swaps the word's halves for
/// a mirror image.
pub(super) struct Shape {
    forbid: Lines,
    /// The class the bottom pieces kept are above, where the side keeps some classes.
    above: Option<u64>,
    low: usize,
    mask: u64,
    turn: u32,
}

impl Shape {
    /// Left half-boards (or, `mirrored`, right ones) that do not meet `forbid`, only those
    /// whose bottom piece's class is above `above` where it is one, written as the
    /// diagonals `low..low + width` of each direction.
    pub(super) fn new(
        (forbid, above): (Lines, Option<u64>),
        mirrored: bool,
        (low, width): (usize, usize),
    ) -> Shape {
        Shape {
            forbid,
            above,
            low,
            mask: (1u64 << width) - 1,
            turn: if mirrored { 32 } else { 0 },
        }
    }

    /// What the vector forms of [`pairs`] broadcast for top piece `p`: the lines a bottom
    /// piece must miss (`p`'s and the middle queen's, each direction), `p`'s own, and the
    /// mask of the diagonals kept.
    fn words(&self, p: Lines) -> [u64; 5] {
        let f = self.forbid;
        [
            p.down_right | f.down_right,
            p.down_left | f.down_left,
            p.down_right,
            p.down_left,
            self.mask,
        ]
    }

    /// The shifts that restore a bottom piece's two directions (see [`Pieces::lines`]) and
    /// the one that drops the diagonals below those kept.
    fn counts(&self, south: &Pieces) -> [usize; 3] {
        [south.low.0, south.low.1, self.low]
    }
}

/// Appends the half-boards of top piece `p` with each bottom piece of `below` (pieces of
/// `south`) that meets neither it nor the middle queen, each with its bottom piece's class
/// ([`TAG`], where it has one). Every pair is written and the clashing ones overwritten:
/// no branch to mispredict.
fn pairs(south: &Pieces, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    let mut len = out.len();
    resize_exact(out, len + below.len());
    for &piece in below {
        let q = south.lines(piece);
        let clash = p.meets(q) | q.meets(shape.forbid);
        let both = p.with(q);
        let (low, mask) = (shape.low, shape.mask);
        let word = (both.down_right >> low) & mask | ((both.down_left >> low) & mask) << 32;
        out[len] = word.rotate_left(shape.turn) | piece & TAG;
        len += usize::from(clash == 0);
    }
    out.truncate(len);
}

/// [`pairs`] with AVX-512: eight bottom pieces a step, the ones that clash dropped by
/// `vpcompressq` into a register (its memory form is slow on some CPUs) and all eight words
/// stored, the next step overwriting past the kept ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
fn pairs512(south: &Pieces, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    use super::word::{Pack, Wide};
    use std::arch::x86_64::*;
    let [to_dr, to_dl, low] = shape.counts(south).map(|x| _mm_cvtsi64_si128(x as i64));
    let half = _mm512_set1_epi64(0xffff_ffff);
    let tag = _mm512_set1_epi64(TAG as i64);
    let [a, b, pdr, pdl, mask] = shape.words(p).map(|x| _mm512_set1_epi64(x as i64));
    let turn = _mm512_set1_epi64(i64::from(shape.turn));
    // Room for every pair and one full store past the last kept word.
    out.reserve_exact(below.len() + 8);
    let base = out.len();
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u64>();
    let mut len = 0;
    for chunk in below.chunks(8) {
        let live = ((1u16 << chunk.len()) - 1) as u8;
        // SAFETY: the masked load reads only the chunk's words.
        let q = unsafe { _mm512_maskz_loadu_epi64(live, chunk.as_ptr().cast()) };
        let qdr = _mm512_sll_epi64(_mm512_and_si512(q, half), to_dr);
        let qdl = _mm512_sll_epi64(_mm512_srli_epi64::<32>(_mm512_andnot_si512(tag, q)), to_dl);
        let clash = _mm512_or_si512(_mm512_and_si512(qdr, a), _mm512_and_si512(qdl, b));
        let kept = _mm512_testn_epi64_mask(clash, clash) & live;
        let dr = _mm512_and_si512(_mm512_srl_epi64(_mm512_or_si512(qdr, pdr), low), mask);
        let dl = _mm512_and_si512(_mm512_srl_epi64(_mm512_or_si512(qdl, pdl), low), mask);
        let word = _mm512_rolv_epi64(_mm512_or_si512(dr, _mm512_slli_epi64::<32>(dl)), turn);
        let word = _mm512_or_si512(word, _mm512_and_si512(q, tag));
        // SAFETY: the CPU has AVX-512F (this function's feature); `len <= below.len()`
        // words are kept so far, so the eight words stored at `dst + len` lie within the
        // capacity reserved above.
        len += unsafe { Wide::put(dst.add(len), word, kept) };
    }
    // SAFETY: the first `len` words past `base` were written above (each store wrote its
    // kept words first), and the capacity holds them.
    unsafe { out.set_len(base + len) };
}

/// [`pairs`] with AVX2: four bottom pieces a step, the kept words moved to the front by
/// `vpermd` (`Narrow::put` of `pack.rs`) and all four stored, the next step overwriting
/// past the kept ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn pairs256(south: &Pieces, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    use super::word::{Narrow, Pack};
    use std::arch::x86_64::*;
    let [to_dr, to_dl, low] = shape.counts(south).map(|x| _mm_cvtsi64_si128(x as i64));
    let half = _mm256_set1_epi64x(0xffff_ffff);
    let tag = _mm256_set1_epi64x(TAG as i64);
    let [a, b, pdr, pdl, mask] = shape.words(p).map(|x| _mm256_set1_epi64x(x as i64));
    let mirrored = shape.turn != 0;
    // Room for every pair and one full store past the last kept word.
    out.reserve_exact(below.len() + 4);
    let base = out.len();
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u64>();
    let mut len = 0;
    // One step: four bottom pieces `q`, of which the `live` lanes are real.
    let mut step = |q: __m256i, live: i32| {
        let qdr = _mm256_sll_epi64(_mm256_and_si256(q, half), to_dr);
        let qdl = _mm256_sll_epi64(_mm256_srli_epi64::<32>(_mm256_andnot_si256(tag, q)), to_dl);
        let clash = _mm256_or_si256(_mm256_and_si256(qdr, a), _mm256_and_si256(qdl, b));
        let none = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
        let kept = _mm256_movemask_pd(_mm256_castsi256_pd(none)) & live;
        let dr = _mm256_and_si256(_mm256_srl_epi64(_mm256_or_si256(qdr, pdr), low), mask);
        let dl = _mm256_and_si256(_mm256_srl_epi64(_mm256_or_si256(qdl, pdl), low), mask);
        let (dr, dl) = if mirrored { (dl, dr) } else { (dr, dl) };
        let word = _mm256_or_si256(dr, _mm256_slli_epi64::<32>(dl));
        let word = _mm256_or_si256(word, _mm256_and_si256(q, tag));
        // SAFETY: the CPU has AVX2 (this function's feature); `len <= below.len()` words
        // are kept so far, so the four words stored at `dst + len` lie within the capacity
        // reserved above.
        len += unsafe { Narrow::put(dst.add(len), word, kept as usize) };
    };
    // Whole steps by plain loads; the last few pieces by one masked load (a mask built for
    // every step would cost more than the step's own work).
    let chunks = below.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        // SAFETY: the load reads the chunk's four words; unaligned.
        step(unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }, 0b1111);
    }
    if !rest.is_empty() {
        let live = (1i32 << rest.len()) - 1;
        let lanes = _mm256_setr_epi64x(
            -i64::from(live & 1 != 0),
            -i64::from(live & 2 != 0),
            -i64::from(live & 4 != 0),
            0,
        );
        // SAFETY: the masked load reads only the remaining words.
        step(
            unsafe { _mm256_maskload_epi64(rest.as_ptr().cast(), lanes) },
            live,
        );
    }
    // SAFETY: the first `len` words past `base` were written above (each store wrote its
    // kept words first), and the capacity holds them.
    unsafe { out.set_len(base + len) };
}
