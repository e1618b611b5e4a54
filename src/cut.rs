//! The join method: the board cut down the middle into a left and a right half, each half's
//! placements enumerated once per key, and the compatible pairs counted with bitsets.
//!
//! Every solution puts one queen in each of the `h = n / 2` left columns; the rows those
//! take are its *key* `E`. On an odd board the middle column's queen (row `m`) is part of
//! the key too, and the right `h` columns take the other rows. A *left half-board* (one
//! queen in each left column, on the rows of `E`, no two attacking, none attacking the
//! middle queen) and a right half-board on the other rows make a solution exactly when no
//! diagonal holds a queen of each: the key already gives every row and column one queen.
//! So the count of a key is `L * R` minus the pairs that share a diagonal.
//!
//! Half-boards are built from *pieces*: the placements inside one quadrant (the top or
//! bottom rows of a half), stored by the rows and the columns they use, enumerated once per
//! board. A left half-board of key `E` is a top piece on `E`'s top rows and a bottom piece
//! on its bottom rows whose columns complete each other and whose diagonals do not meet.
//!
//! A half-board is stored as one word: the `2h - 1` diagonals of each direction that both
//! halves can reach. Matching (the hot part): the smaller half of a key goes into a table.
//! Its words' union names the diagonals in play; for each of them the set of half-boards
//! on it is a bitset, and for each eight consecutive diagonals the union of every subset
//! of their sets is precomputed (256 entries). A half-board of the other side then finds
//! everything it meets by ORing one entry per eight of its diagonals (at most six at
//! n = 22) and counting the bits: with AVX-512, eight words a step and `vpopcntq`; with
//! AVX2 four and a nibble table; a plain loop elsewhere. The table is built and matched a
//! slice of at most 2048 half-boards at a time (so that a slice stays in L2 cache), fewer
//! where the memory budget asks. On an odd board the left half-boards of one row set go
//! into one table for all its middle rows (see [`Cut::count`]).
//!
//! Symmetry: the mirror image maps key `(E, m)` to `(rest, m)`, the upside-down image to
//! the flipped rows; keys in one orbit have the same count, so one key per orbit is counted
//! with the orbit's size as its weight. The quarter and half turns and the diagonal
//! reflections do not map keys to keys; fundamental solutions come by Burnside's lemma
//! from the total and the solutions each of the seven other symmetries fixes, which a small
//! search of its own counts ([`fixed_by_symmetries`]).

use std::cell::RefCell;

use rayon::prelude::*;

use crate::schedule::{Schedule, mask_of};
use crate::types::{Kernel, MAX_N, Symmetry};

/// Largest board the cut handles: its pieces tables hold `2^(rows + columns)` offsets per
/// quadrant, and the keys of larger boards outnumber a plan's parts.
pub const MAX_CUT_N: u32 = 22;

/// A queen set's diagonals as bits: `r - c + n - 1` (down-right) and `r + c` (down-left).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Lines {
    down_right: u64,
    down_left: u64,
}

impl Lines {
    fn of(n: usize, r: usize, c: usize) -> Lines {
        Lines {
            down_right: 1 << (r + n - 1 - c),
            down_left: 1 << (r + c),
        }
    }

    fn meets(self, o: Lines) -> u64 {
        self.down_right & o.down_right | self.down_left & o.down_left
    }

    fn with(self, o: Lines) -> Lines {
        Lines {
            down_right: self.down_right | o.down_right,
            down_left: self.down_left | o.down_left,
        }
    }
}

/// The placements inside one quadrant of the left half (rows `first..first + rows`,
/// columns `0..width`), by the rows and columns they use: the pieces of index
/// `rows_used << width | cols_used` are `pieces[offsets[i]..offsets[i + 1]]`. A piece is
/// stored as its diagonals relative to the quadrant's lowest ones, down-right in the low
/// half of the word, down-left in the high half ([`Quadrant::lines`] restores them).
struct Quadrant {
    width: usize,
    /// Down-right and down-left index of bit 0 of each half.
    low: (usize, usize),
    offsets: Vec<u32>,
    pieces: Vec<u64>,
}

impl Quadrant {
    /// The quadrant's offsets, its pieces counted but not stored.
    fn counted(n: usize, first: usize, rows: usize, width: usize) -> Quadrant {
        let mut q = Quadrant {
            width,
            low: ((first + n).saturating_sub(width), first),
            offsets: vec![0; (1 << (rows + width)) + 1],
            pieces: Vec::new(),
        };
        q.each(n, first, rows, |i, _, q| q.offsets[i + 1] += 1);
        for i in 1..q.offsets.len() {
            q.offsets[i] += q.offsets[i - 1];
        }
        q
    }

    /// Stores the pieces counted.
    fn fill(&mut self, n: usize, first: usize, rows: usize) {
        let total = self.offsets[self.offsets.len() - 1] as usize;
        self.pieces = vec![0; total];
        self.each(n, first, rows, |i, lines, q| {
            let o = q.offsets[i] as usize;
            q.pieces[o] = lines.down_right >> q.low.0 | (lines.down_left >> q.low.1) << 32;
            q.offsets[i] += 1;
        });
        // Each offset advanced to its bucket's end, its successor's start: shift them back.
        self.offsets.rotate_right(1);
        self.offsets[0] = 0;
    }

    /// Calls `visit` with the index and lines of every placement, depth first over the
    /// rows: each row empty or one queen on a free square.
    fn each(
        &mut self,
        n: usize,
        first: usize,
        rows: usize,
        mut visit: impl FnMut(usize, Lines, &mut Quadrant),
    ) {
        let width = self.width;
        let mut stack = vec![(0usize, 0usize, 0usize, Lines::default())];
        while let Some((i, used_rows, used_cols, lines)) = stack.pop() {
            if i == rows {
                visit(used_rows << width | used_cols, lines, self);
                continue;
            }
            stack.push((i + 1, used_rows, used_cols, lines));
            for c in (0..width).filter(|c| used_cols >> c & 1 == 0) {
                let queen = Lines::of(n, first + i, c);
                if lines.meets(queen) == 0 {
                    let next = (used_rows | 1 << i, used_cols | 1 << c);
                    stack.push((i + 1, next.0, next.1, lines.with(queen)));
                }
            }
        }
    }

    /// The stored pieces on `rows` and `cols`.
    fn pieces(&self, rows: usize, cols: usize) -> &[u64] {
        let i = rows << self.width | cols;
        &self.pieces[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// A stored piece's lines on the board.
    #[inline(always)]
    fn lines(&self, piece: u64) -> Lines {
        Lines {
            down_right: (piece & 0xffff_ffff) << self.low.0,
            down_left: (piece >> 32) << self.low.1,
        }
    }

    fn bytes(&self) -> usize {
        self.offsets.len() * 4 + self.pieces.len() * 8
    }
}

/// One part of the join: the rows of the left columns' queens and, on an odd board, the
/// rows of the middle column's queen counted with them, each key with the size of its
/// orbit (the keys it stands for, each with the same count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// Bit `r`: row `r` holds a queen of the left columns.
    pub rows: u32,
    /// `(middle row, orbit size)`: one entry with no row on an even board; on an odd one
    /// the middle rows whose key is its orbit's representative (the left half-boards are
    /// built once for them all).
    pub middles: Vec<(Option<u8>, u8)>,
}

/// The keys of an `n`-board, one per orbit of the symmetries `symmetry` uses (none; the
/// mirror; the mirror and the upside-down image), in increasing order of rows; the keys
/// of one left row set form one part.
pub fn keys(n: u32, symmetry: Symmetry) -> Vec<Key> {
    let n = n as usize;
    let h = n / 2;
    let all = mask_of(n as u32);
    let flip = |x: u32| {
        if n == 0 {
            0
        } else {
            x.reverse_bits() >> (32 - n)
        }
    };
    let middles: Vec<Option<usize>> = if n % 2 == 1 {
        (0..n).map(Some).collect()
    } else {
        vec![None]
    };
    let code = |rows: u32, m: Option<usize>| (u64::from(rows) << 8) | m.map_or(0, |m| m as u64);
    let mut out = Vec::new();
    for rows in (0..=all).filter(|r| r.count_ones() as usize == h) {
        let mut key = Key {
            rows,
            middles: Vec::new(),
        };
        for &m in &middles {
            if m.is_some_and(|m| rows >> m & 1 == 1) {
                continue;
            }
            let mid = m.map_or(0, |m| 1 << m);
            let mirror = (all ^ rows ^ mid, m);
            let flipped = (flip(rows), m.map(|m| n - 1 - m));
            let both = (flip(all ^ rows ^ mid), flipped.1);
            let images: &[(u32, Option<usize>)] = match symmetry {
                Symmetry::None => &[],
                Symmetry::Mirror => &[mirror],
                Symmetry::Full => &[mirror, flipped, both],
            };
            let me = code(rows, m);
            if images.iter().any(|&(r, m)| code(r, m) < me) {
                continue;
            }
            let mut orbit: Vec<u64> = images.iter().map(|&(r, m)| code(r, m)).collect();
            orbit.push(me);
            orbit.sort_unstable();
            orbit.dedup();
            key.middles.push((m.map(|m| m as u8), orbit.len() as u8));
        }
        if !key.middles.is_empty() {
            out.push(key);
        }
    }
    out
}

/// The pieces of an `n`-board's left half, top and bottom quadrants, shared by every key:
/// the right half's are their mirror images.
pub struct Cut {
    n: usize,
    h: usize,
    top: usize,
    quadrants: [Quadrant; 2],
}

/// A half-board's word: bits `0..2h - 1` the shared down-right diagonals, bits `32..` the
/// shared down-left ones.
type Word = u64;

impl Cut {
    /// Enumerates the pieces of an `n`-board (`n <= MAX_CUT_N`), or says how many bytes
    /// they need where that is more than `limit` (counted before any is stored).
    pub fn new(n: u32, limit: usize) -> Result<Cut, usize> {
        debug_assert!(n <= MAX_CUT_N);
        let n = n as usize;
        let (h, top) = (n / 2, n / 2);
        let mut quadrants = [
            Quadrant::counted(n, 0, top, h),
            Quadrant::counted(n, top, n - top, h),
        ];
        let need = quadrants.iter().map(Quadrant::bytes).sum::<usize>()
            + quadrants
                .iter()
                .map(|q| q.offsets[q.offsets.len() - 1] as usize * 8)
                .sum::<usize>();
        if need > limit {
            return Err(need);
        }
        quadrants[0].fill(n, 0, top);
        quadrants[1].fill(n, top, n - top);
        Ok(Cut {
            n,
            h,
            top,
            quadrants,
        })
    }

    /// Bytes the pieces take.
    pub fn bytes(&self) -> usize {
        self.quadrants.iter().map(Quadrant::bytes).sum()
    }

    /// The rows the right half's queens take, the middle queen on `middle`.
    fn right_rows(&self, rows: u32, middle: Option<u8>) -> u32 {
        let mid = middle.map_or(0, |m| 1 << m);
        mask_of(self.n as u32) ^ rows ^ mid
    }

    /// Fills `out` with the word of every left half-board on `rows` that does not meet
    /// `forbid`, or (`mirrored`) of their mirror images as right half-boards: the
    /// diagonals `low..low + width` of each direction, down-right in the low half. The
    /// mirror keeps rows and swaps the two directions (and so the word's halves); it maps
    /// the middle column to itself, so the middle queen forbids the same squares.
    #[allow(clippy::too_many_arguments)]
    fn build(
        &self,
        rows: u32,
        forbid: Lines,
        mirrored: bool,
        (low, width): (usize, usize),
        lanes: Lanes,
        out: &mut Vec<Word>,
    ) {
        let shape = Shape {
            forbid,
            low,
            mask: (1u64 << width) - 1,
            turn: if mirrored { 32 } else { 0 },
        };
        match lanes {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Lanes::of` picked AVX-512 only where the CPU has it.
            Lanes::Avx512 => unsafe { self.build512(rows, &shape, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Lanes::of` picked AVX2 only where the CPU has it.
            Lanes::Avx2 => unsafe { self.build256(rows, &shape, out) },
            Lanes::Scalar => self.build_with(rows, &shape, out, pairs),
        }
    }

    /// [`Cut::build`] with `pairs` joining one top piece to the bottom pieces under it.
    #[inline(always)]
    fn build_with(
        &self,
        rows: u32,
        shape: &Shape,
        out: &mut Vec<Word>,
        pairs: impl Fn(&Quadrant, Lines, &[u64], &Shape, &mut Vec<Word>),
    ) {
        out.clear();
        let [north, south] = &self.quadrants;
        let (rn, rs) = (
            rows as usize & ((1 << self.top) - 1),
            rows as usize >> self.top,
        );
        let k = rn.count_ones();
        let cols = (1usize << self.h) - 1;
        for up in (0..=cols).filter(|c| c.count_ones() == k) {
            let below = south.pieces(rs, cols & !up);
            if below.is_empty() {
                continue;
            }
            for &p in north.pieces(rn, up) {
                let p = north.lines(p);
                if p.meets(shape.forbid) == 0 {
                    pairs(south, p, below, shape, out);
                }
            }
        }
    }

    /// [`Cut::build`] compiled for AVX-512, eight bottom pieces a step ([`pairs512`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn build512(&self, rows: u32, shape: &Shape, out: &mut Vec<Word>) {
        // The closure inherits this function's AVX-512F, which `pairs512` needs.
        self.build_with(rows, shape, out, |s, p, below, shape, out| {
            pairs512(s, p, below, shape, out)
        });
    }

    /// [`Cut::build`] compiled for AVX2, four bottom pieces a step ([`pairs256`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn build256(&self, rows: u32, shape: &Shape, out: &mut Vec<Word>) {
        // The closure inherits this function's AVX2, which `pairs256` needs.
        self.build_with(rows, shape, out, |s, p, below, shape, out| {
            pairs256(s, p, below, shape, out)
        });
    }

    /// The diagonals both halves reach: `2h - 1` of each direction from index `n - h`.
    fn shared(&self) -> (usize, usize) {
        (self.n - self.h, (2 * self.h).saturating_sub(1))
    }

    /// An upper bound of the half-boards on `rows`: the pairs of pieces that could make one.
    fn bound(&self, rows: u32) -> u64 {
        let [north, south] = &self.quadrants;
        let (rn, rs) = (
            rows as usize & ((1 << self.top) - 1),
            rows as usize >> self.top,
        );
        let cols = (1usize << self.h) - 1;
        (0..=cols)
            .filter(|c| c.count_ones() == rn.count_ones())
            .map(|up| (north.pieces(rn, up).len() * south.pieces(rs, cols & !up).len()) as u64)
            .sum()
    }

    /// What `key` costs, from upper bounds of its half-boards on each side (pairs of
    /// pieces): a relative estimate of its time (building is linear in the half-boards,
    /// matching about `l * r / 64` word steps), and the bytes a thread's half-boards for it
    /// can take at most, its tables aside (the left ones twice, as built and as one middle
    /// queen leaves them; every middle row's right ones; the largest group again while it
    /// is built).
    pub fn measure(&self, key: &Key) -> (u64, usize) {
        let l = self.bound(key.rows);
        let (mut time, mut sum, mut most) = (1 + l, 0, 0);
        for &(m, _) in &key.middles {
            let r = self.bound(self.right_rows(key.rows, m));
            time += r + l * r / 64;
            (sum, most) = (sum + r, most.max(r));
        }
        (time, 8 * (2 * l + sum + most) as usize)
    }

    /// Number of solutions of the keys of `key`, each weighed by its orbit's size, its
    /// tables within `budget` bytes and matched in `kernel`'s instructions.
    ///
    /// On an odd board the middle queen joins the right half: the left half-boards are
    /// built once for all the part's middle rows, with one more diagonal each side
    /// (indices `n - h - 1` to `n + h - 1`, where the middle queen on row `m` is bit `m` of
    /// both halves), and go into the one table; each middle row's right half-boards, with
    /// the middle queen's bits, are matched against it as one group.
    pub fn count(&self, key: &Key, budget: usize, kernel: Kernel) -> u128 {
        SCRATCH.with_borrow_mut(|s| {
            let Scratch {
                left,
                right,
                group,
                kept,
                ends,
                sizes,
                meets: met,
                sets,
                tables,
            } = s;
            sizes.clear();
            let (low, width) = self.shared();
            let odd = self.n % 2 == 1;
            let wide = if odd {
                (low - 1, width + 2)
            } else {
                (low, width)
            };
            let lanes = Lanes::of(kernel);
            self.build(key.rows, Lines::default(), false, wide, lanes, left);
            right.clear();
            ends.clear();
            met.clear();
            let mask = (1u64 << width) - 1;
            let shared = odd && left.len() < SHARED_BELOW;
            for &(m, _) in &key.middles {
                let forbid = m.map_or(Lines::default(), |m| Lines::of(self.n, m as usize, self.h));
                let rows = self.right_rows(key.rows, m);
                self.build(rows, forbid, true, (low, width), lanes, group);
                let Some(m) = m else {
                    // An even board: one group, the smaller side in the table.
                    met.push(0);
                    let (table, probe) = if left.len() <= group.len() {
                        (&mut *left, &mut *group)
                    } else {
                        (&mut *group, &mut *left)
                    };
                    let ends = [probe.len()];
                    meets(table, probe, &ends, met, budget, lanes, sets, tables);
                    sizes.push((left.len() as u64, group.len() as u64));
                    continue;
                };
                let mid = 1u64 << m | 1 << (m + 32);
                if shared {
                    // The middle queen's bits join the right half-board's, in the wide
                    // layout: left half-boards that meet it meet every one of the group.
                    right.extend(
                        group
                            .iter()
                            .map(|&w| (w & mask) << 1 | ((w >> 32) & mask) << 33 | mid),
                    );
                    ends.push(right.len());
                    sizes.push((left.len() as u64, group.len() as u64));
                } else {
                    // The left half-boards the middle queen leaves, narrowed, in a table of
                    // their own.
                    kept.clear();
                    kept.extend(
                        left.iter()
                            .filter(|&&w| w & mid == 0)
                            .map(|&w| (w >> 1) & mask | ((w >> 33) & mask) << 32),
                    );
                    met.push(0);
                    let g = met.len() - 1;
                    let ends = [group.len()];
                    meets(
                        kept,
                        group,
                        &ends,
                        &mut met[g..],
                        budget,
                        lanes,
                        sets,
                        tables,
                    );
                    sizes.push((kept.len() as u64, group.len() as u64));
                }
            }
            if shared && !right.is_empty() && !left.is_empty() {
                met.resize(ends.len(), 0);
                meets(left, right, ends, met, budget, lanes, sets, tables);
            }
            let mut total = 0;
            for ((&(_, weight), &(l, r)), &met) in key.middles.iter().zip(&*sizes).zip(&*met) {
                total += u128::from(weight) * u128::from(l * r - met);
            }
            total
        })
    }
}

/// Odd boards: the left half-boards of a part go into one table for all its middle rows
/// below this many, one table per middle row (of those the middle queen leaves) from it.
/// Small tables cost their 256 entries per eight diagonals whatever their size, large ones
/// grow with the boards the middle queen would rule out: on Zen 4 one thread took 1.2-1.5 s
/// at n = 17 shared against 2.0 s per middle row, and 47-49 s at n = 19 against 51-57 s
/// with every part shared (thresholds of 2048 to 16384 within the noise).
const SHARED_BELOW: usize = 4096;

/// How half-boards are written: the squares the middle queen forbids, the diagonals kept
/// (`low`, `mask`) and the turn that swaps the word's halves for a mirror image.
struct Shape {
    forbid: Lines,
    low: usize,
    mask: u64,
    turn: u32,
}

impl Shape {
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

    /// The shifts that restore a bottom piece's two directions (see [`Quadrant::lines`]) and
    /// the one that drops the diagonals below those kept.
    fn counts(&self, south: &Quadrant) -> [usize; 3] {
        [south.low.0, south.low.1, self.low]
    }
}

/// Appends the half-boards of top piece `p` with each bottom piece of `below` (pieces of
/// `south`) that meets neither it nor the middle queen. Every pair is written and the
/// clashing ones overwritten: no branch to mispredict.
fn pairs(south: &Quadrant, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    let mut len = out.len();
    out.resize(len + below.len(), 0);
    for &q in below {
        let q = south.lines(q);
        let clash = p.meets(q) | q.meets(shape.forbid);
        let both = p.with(q);
        let (low, mask) = (shape.low, shape.mask);
        let word = (both.down_right >> low) & mask | ((both.down_left >> low) & mask) << 32;
        out[len] = word.rotate_left(shape.turn);
        len += usize::from(clash == 0);
    }
    out.truncate(len);
}

/// [`pairs`] with AVX-512: eight bottom pieces a step, the ones that clash dropped by
/// `vpcompressq` into a register (its memory form is slow on Zen 4) and all eight words
/// stored, the next step overwriting past the kept ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn pairs512(south: &Quadrant, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    use std::arch::x86_64::*;
    let [to_dr, to_dl, low] = shape.counts(south).map(|x| _mm_cvtsi64_si128(x as i64));
    let half = _mm512_set1_epi64(0xffff_ffff);
    let [a, b, pdr, pdl, mask] = shape.words(p).map(|x| _mm512_set1_epi64(x as i64));
    let turn = _mm512_set1_epi64(i64::from(shape.turn));
    // Room for every pair and one full store past the last kept word.
    out.reserve(below.len() + 8);
    let base = out.len();
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u64>();
    let mut len = 0;
    for chunk in below.chunks(8) {
        let live = ((1u16 << chunk.len()) - 1) as u8;
        // SAFETY: the masked load reads only the chunk's words.
        let q = unsafe { _mm512_maskz_loadu_epi64(live, chunk.as_ptr().cast()) };
        let qdr = _mm512_sll_epi64(_mm512_and_si512(q, half), to_dr);
        let qdl = _mm512_sll_epi64(_mm512_srli_epi64::<32>(q), to_dl);
        let clash = _mm512_or_si512(_mm512_and_si512(qdr, a), _mm512_and_si512(qdl, b));
        let kept = _mm512_testn_epi64_mask(clash, clash) & live;
        let dr = _mm512_and_si512(_mm512_srl_epi64(_mm512_or_si512(qdr, pdr), low), mask);
        let dl = _mm512_and_si512(_mm512_srl_epi64(_mm512_or_si512(qdl, pdl), low), mask);
        let word = _mm512_rolv_epi64(_mm512_or_si512(dr, _mm512_slli_epi64::<32>(dl)), turn);
        // SAFETY: `len <= below.len()` words are kept so far, so the eight words stored at
        // `dst + len` lie within the capacity reserved above.
        unsafe {
            _mm512_storeu_si512(dst.add(len).cast(), _mm512_maskz_compress_epi64(kept, word))
        };
        len += kept.count_ones() as usize;
    }
    // SAFETY: the first `len` words past `base` were written above (each store wrote its
    // kept words first), and the capacity holds them.
    unsafe { out.set_len(base + len) };
}

/// For each set of four 64-bit lanes kept, the 32-bit indices that move them to the front
/// in order (AVX2 has no compress; `vpermd` with one of these does it).
#[cfg(target_arch = "x86_64")]
const PACK: [[i32; 8]; 16] = {
    let mut table = [[0i32; 8]; 16];
    let mut kept = 0;
    while kept < 16 {
        let (mut lane, mut at) = (0i32, 0usize);
        while lane < 4 {
            if kept >> lane & 1 == 1 {
                table[kept][2 * at] = 2 * lane;
                table[kept][2 * at + 1] = 2 * lane + 1;
                at += 1;
            }
            lane += 1;
        }
        kept += 1;
    }
    table
};

/// [`pairs`] with AVX2: four bottom pieces a step, the kept words moved to the front by
/// `vpermd` ([`PACK`]) and all four stored, the next step overwriting past the kept ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pairs256(south: &Quadrant, p: Lines, below: &[u64], shape: &Shape, out: &mut Vec<Word>) {
    use std::arch::x86_64::*;
    let [to_dr, to_dl, low] = shape.counts(south).map(|x| _mm_cvtsi64_si128(x as i64));
    let half = _mm256_set1_epi64x(0xffff_ffff);
    let [a, b, pdr, pdl, mask] = shape.words(p).map(|x| _mm256_set1_epi64x(x as i64));
    let mirrored = shape.turn != 0;
    // Room for every pair and one full store past the last kept word.
    out.reserve(below.len() + 4);
    let base = out.len();
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u64>();
    let mut len = 0;
    for chunk in below.chunks(4) {
        let live = (1i32 << chunk.len()) - 1;
        let lanes = _mm256_setr_epi64x(
            -i64::from(live & 1 != 0),
            -i64::from(live & 2 != 0),
            -i64::from(live & 4 != 0),
            -i64::from(live & 8 != 0),
        );
        // SAFETY: the masked load reads only the chunk's words.
        let q = unsafe { _mm256_maskload_epi64(chunk.as_ptr().cast(), lanes) };
        let qdr = _mm256_sll_epi64(_mm256_and_si256(q, half), to_dr);
        let qdl = _mm256_sll_epi64(_mm256_srli_epi64::<32>(q), to_dl);
        let clash = _mm256_or_si256(_mm256_and_si256(qdr, a), _mm256_and_si256(qdl, b));
        let none = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
        let kept = _mm256_movemask_pd(_mm256_castsi256_pd(none)) & live;
        let dr = _mm256_and_si256(_mm256_srl_epi64(_mm256_or_si256(qdr, pdr), low), mask);
        let dl = _mm256_and_si256(_mm256_srl_epi64(_mm256_or_si256(qdl, pdl), low), mask);
        let (dr, dl) = if mirrored { (dl, dr) } else { (dr, dl) };
        let word = _mm256_or_si256(dr, _mm256_slli_epi64::<32>(dl));
        // SAFETY: `PACK[kept]` is eight indices below 8; the load is unaligned.
        let pack = unsafe { _mm256_loadu_si256(PACK[kept as usize].as_ptr().cast()) };
        let packed = _mm256_permutevar8x32_epi32(word, pack);
        // SAFETY: `len <= below.len()` words are kept so far, so the four words stored at
        // `dst + len` lie within the capacity reserved above.
        unsafe { _mm256_storeu_si256(dst.add(len).cast(), packed) };
        len += kept.count_ones() as usize;
    }
    // SAFETY: the first `len` words past `base` were written above (each store wrote its
    // kept words first), and the capacity holds them.
    unsafe { out.set_len(base + len) };
}

/// A thread's buffers, reused from key to key.
#[derive(Default)]
struct Scratch {
    left: Vec<Word>,
    /// The right half-boards of each middle row, one group after another.
    right: Vec<Word>,
    /// One middle row's right half-boards.
    group: Vec<Word>,
    /// The left half-boards one middle queen leaves.
    kept: Vec<Word>,
    /// Where each group of `right` ends.
    ends: Vec<usize>,
    /// Each middle row's numbers of left and right half-boards.
    sizes: Vec<(u64, u64)>,
    /// The pairs that meet, per group.
    meets: Vec<u64>,
    sets: Vec<u64>,
    tables: Vec<u64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Bytes a table of `words` words per entry takes, with its sets (at most 64 diagonals in
/// play, eight bytes of them).
fn table_bytes(words: usize) -> usize {
    (64 + 8 * 256) * words * 8
}

/// The most words a table slice holds (2048 half-boards): its entries, 256 per eight ranks of
/// 256 bytes each (320 KB for the usual five), stay in a core's L2 cache. On Zen 4 (1 MB of
/// L2) `count 18 -j 1` took 2.8-3.2 s with slices of 32 words against 3.2-3.5 with 16 or 24,
/// 3.5-3.9 with 40 to 128 and 3.5-3.7 unsliced; n = 19 on 2 threads 11.2-11.5 s against
/// 12.8-13.1 unsliced.
const SLICE_WORDS: usize = 32;

/// The least a key's matching needs: a table slice of eight words (512 half-boards).
pub const MIN_BYTES: usize = 8 * (64 + 8 * 256) * 8;

/// Pairs of `table` and `probe` words that share a bit, for each group of the probe words
/// (group `g` ends at `ends[g]`) added to `out[g]`; the table built a slice at a time
/// within `budget` bytes.
#[allow(clippy::too_many_arguments)]
fn meets(
    table: &[Word],
    probe: &mut [Word],
    ends: &[usize],
    out: &mut [u64],
    budget: usize,
    lanes: Lanes,
    sets: &mut Vec<u64>,
    tables: &mut Vec<u64>,
) {
    let union = table.iter().fold(0, |u, &w| u | w);
    let ranks = union.count_ones() as usize;
    let groups = || (0..ends.len()).map(|g| g.checked_sub(1).map_or(0, |f| ends[f])..ends[g]);
    if ranks == 0 {
        return;
    }
    // Small keys: every pair tested is cheaper than a table.
    if (table.len() * probe.len()) < 256 * 8 * ranks.div_ceil(8) {
        for (g, range) in groups().enumerate() {
            out[g] += table
                .iter()
                .map(|&t| probe[range.clone()].iter().filter(|&&p| p & t != 0).count() as u64)
                .sum::<u64>();
        }
        return;
    }
    // Each probe word's diagonals as ranks among the table's (what `pext` computes).
    for p in probe.iter_mut() {
        *p = ranked(*p, union);
    }
    let most = (budget / table_bytes(1)).clamp(8, SLICE_WORDS) / 8 * 8;
    for slice in table.chunks(64 * most) {
        let words = slice.len().div_ceil(64).next_multiple_of(8);
        let mut t = Tables {
            union,
            words,
            sets: &mut *sets,
            entries: &mut *tables,
        };
        match lanes {
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512 => {
                // SAFETY: `Lanes::of` picked these only where the CPU has their features.
                unsafe { t.fill512(slice) };
                for (g, range) in groups().enumerate() {
                    // SAFETY: as above.
                    out[g] += unsafe { t.matched512(&probe[range]) };
                }
            }
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => {
                // SAFETY: as above.
                unsafe { t.fill256(slice) };
                for (g, range) in groups().enumerate() {
                    // SAFETY: as above.
                    out[g] += unsafe { t.matched256(&probe[range]) };
                }
            }
            Lanes::Scalar => {
                t.fill(slice, |w| ranked(w, union), columns);
                for (g, range) in groups().enumerate() {
                    out[g] += t.matched_scalar(&probe[range]);
                }
            }
        }
    }
}

/// Each rank's bits of a block of 64 ranked words, as one word per rank (plain words).
fn columns(block: &[u64; 64], ranks: usize, out: &mut [u64; 64]) {
    for (r, o) in out.iter_mut().enumerate().take(ranks) {
        *o = block
            .iter()
            .enumerate()
            .fold(0, |m, (j, &x)| m | ((x >> r) & 1) << j);
    }
}

/// The instructions a key's matching runs in.
#[derive(Clone, Copy)]
enum Lanes {
    /// AVX-512 with `vpopcntq` and BMI2 (`--kernel avx512` or `auto` on such a CPU).
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX2 and BMI2 (`--kernel avx2`, or `avx512` on a CPU without `vpopcntq`).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Plain 64-bit words (`--kernel scalar`, or a CPU with neither).
    Scalar,
}

impl Lanes {
    fn of(kernel: Kernel) -> Lanes {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let bmi2 = has!("bmi2");
            match kernel.resolve() {
                Ok(Kernel::Avx512) if bmi2 && has!("avx512f") && has!("avx512vpopcntdq") => {
                    return Lanes::Avx512;
                }
                Ok(Kernel::Avx512 | Kernel::Avx2) if bmi2 && has!("avx2") => return Lanes::Avx2,
                _ => {}
            }
        }
        let _ = kernel;
        Lanes::Scalar
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
        let bytes = ranks.div_ceil(8);
        let tables = &mut *self.entries;
        tables.clear();
        tables.resize(bytes * 256 * words, 0);
        for j in 0..bytes {
            for v in 1..256usize {
                let r = 8 * j + v.trailing_zeros() as usize;
                let (to, from) = ((j * 256 + v) * words, (j * 256 + (v & (v - 1))) * words);
                let (done, rest) = tables.split_at_mut(to);
                let (entry, smaller) = (&mut rest[..words], &done[from..from + words]);
                match sets.get(r * words..(r + 1) * words) {
                    Some(set) => {
                        for ((e, a), b) in entry.iter_mut().zip(smaller).zip(set) {
                            *e = a | b;
                        }
                    }
                    None => entry.copy_from_slice(smaller),
                }
            }
        }
    }

    /// The offsets of the entries a ranked probe word selects, one per nonzero byte. Each
    /// is `words` words inside `entries`: a ranked word has bits below the union's count
    /// only, so its bytes `j` stay below the tables' count.
    #[inline(always)]
    fn select(&self, ranked: u64, at: &mut [usize; 8]) -> usize {
        let mut k = 0;
        for j in 0..8 {
            let v = (ranked >> (8 * j)) as usize & 255;
            if v != 0 {
                at[k] = (j * 256 + v) * self.words;
                k += 1;
            }
        }
        k
    }

    /// The table members each probe word meets, summed: the OR of its entries, counted.
    fn matched_scalar(&self, probe: &[Word]) -> u64 {
        let (mut meets, mut at, mut acc) = (0, [0usize; 8], [0u64; 8]);
        for &p in probe {
            let k = self.select(p, &mut at);
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
        match $tables.union.count_ones().div_ceil(8) {
            1 => $tables.$loop::<1>($probe),
            2 => $tables.$loop::<2>($probe),
            3 => $tables.$loop::<3>($probe),
            4 => $tables.$loop::<4>($probe),
            5 => $tables.$loop::<5>($probe),
            6 => $tables.$loop::<6>($probe),
            7 => $tables.$loop::<7>($probe),
            _ => $tables.$loop::<8>($probe),
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

    /// [`Tables::fill`] compiled for AVX2, each rank's bits of four words taken at once by
    /// `vmovmskpd` (the rank's bit shifted to the sign).
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn fill256(&mut self, slice: &[Word]) {
        use std::arch::x86_64::*;
        let union = self.union;
        let columns = |block: &[u64; 64], ranks: usize, out: &mut [u64; 64]| {
            // SAFETY: each load reads four of the block's 64 words; unaligned.
            let v: [__m256i; 16] = std::array::from_fn(|k| unsafe {
                _mm256_loadu_si256(block[4 * k..].as_ptr().cast())
            });
            for (r, o) in out.iter_mut().enumerate().take(ranks) {
                let to_sign = _mm_cvtsi32_si128(63 - r as i32);
                *o = v.iter().enumerate().fold(0u64, |m, (k, &x)| {
                    let signs = _mm256_castsi256_pd(_mm256_sll_epi64(x, to_sign));
                    m | (_mm256_movemask_pd(signs) as u64) << (4 * k)
                });
            }
        };
        self.fill(slice, |w| _pext_u64(w, union), columns);
    }

    /// The table entries a ranked probe word selects, all `K` of them (a zero byte selects
    /// entry 0 of its eight ranks, the empty union), so that the loops below run a fixed
    /// number of loads per step. Each is `words` words inside `entries`: a ranked word has
    /// bits below the union's count only, and `K` is the tables' count of bytes.
    #[inline(always)]
    fn every<const K: usize>(&self, ranked: u64) -> [usize; K] {
        std::array::from_fn(|j| (j * 256 + ((ranked >> (8 * j)) & 255) as usize) * self.words)
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
        debug_assert!(K * 256 * self.words <= self.entries.len());
        let (entries, words) = (self.entries.as_ptr(), self.words);
        let mut sum = _mm512_setzero_si512();
        for &p in probe {
            let at = self.every::<K>(p);
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
    /// (`vpshufb`) summed per word (`vpsadbw`), one loop per count of bytes.
    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256(&self, probe: &[Word]) -> u64 {
        per_bytes!(self, matched256k, probe)
    }

    #[target_feature(enable = "avx2,bmi2,popcnt")]
    fn matched256k<const K: usize>(&self, probe: &[Word]) -> u64 {
        use std::arch::x86_64::*;
        debug_assert!(K * 256 * self.words <= self.entries.len());
        let (entries, words) = (self.entries.as_ptr(), self.words);
        let nibbles = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        let mut sum = _mm256_setzero_si256();
        for &p in probe {
            let at = self.every::<K>(p);
            for c in (0..words).step_by(4) {
                // SAFETY: `o + c + 4 <= o + words <= entries.len()` for every `o` of `at`
                // (see `every`; `c` steps by 4 below `words`, a multiple of 8); unaligned.
                let load = |o: usize| unsafe { _mm256_loadu_si256(entries.add(o + c).cast()) };
                let acc = at[1..]
                    .iter()
                    .fold(load(at[0]), |acc, &o| _mm256_or_si256(acc, load(o)));
                let lo = _mm256_shuffle_epi8(nibbles, _mm256_and_si256(acc, low));
                let hi =
                    _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(acc, 4), low));
                let bytes = _mm256_add_epi8(lo, hi);
                sum = _mm256_add_epi64(sum, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
            }
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().sum()
    }
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

/// The solutions of the keys of `key`, each weighed by its orbit's size, counted by
/// searching (an oracle for the join, part by part): the board turned a quarter, its first
/// `h` rows closed outside the key's rows (and the middle row outside the middle queen's),
/// searched with `kernel`'s loop.
pub fn search(n: u32, key: &Key, kernel: Kernel) -> u128 {
    let h = n as usize / 2;
    let mut forbid = [0u32; MAX_N as usize];
    for f in forbid.iter_mut().take(h) {
        *f = mask_of(n) & !key.rows;
    }
    key.middles
        .iter()
        .map(|&(m, weight)| {
            if let Some(m) = m {
                forbid[h] = mask_of(n) & !(1 << m);
            }
            let s = Schedule::new(n, &[], &forbid);
            u128::from(weight) * kernel.count(&s, s.start())
        })
        .sum()
}

/// The solutions of an `n`-board that each of the seven symmetries other than the identity
/// maps to itself, summed (Burnside's lemma: with the total, eight times the number of
/// fundamental solutions). Each symmetry's are counted by a search that places a queen's
/// whole orbit at once, the first row's choices in parallel.
pub fn fixed_by_symmetries(n: u32) -> u128 {
    let n = n as usize;
    if n == 0 {
        return 7;
    }
    let maps: [Symmetric; 7] = [
        |n, r, c| (c, n - 1 - r),         // quarter turn
        |n, r, c| (n - 1 - r, n - 1 - c), // half turn
        |n, r, c| (n - 1 - c, r),         // three-quarter turn
        |n, r, c| (r, n - 1 - c),         // mirror
        |n, r, c| (n - 1 - r, c),         // upside down
        |_, r, c| (c, r),                 // main diagonal
        |n, r, c| (n - 1 - c, n - 1 - r), // other diagonal
    ];
    maps.iter()
        .map(|&g| {
            (0..n)
                .into_par_iter()
                .map(|c| {
                    Fixed::default()
                        .place(n, g, 0, c)
                        .map_or(0, |b| b.complete(n, g))
                })
                .sum::<u128>()
        })
        .sum()
}

/// A symmetry of the `n`-square: where it takes square `(r, c)`.
type Symmetric = fn(usize, usize, usize) -> (usize, usize);

/// A partial board closed under one symmetry: rows, columns and diagonals taken.
#[derive(Clone, Copy, Default)]
struct Fixed {
    rows: u64,
    cols: u64,
    down_right: u64,
    down_left: u64,
}

impl Fixed {
    /// The board with the queen `(r, c)` and its images under `g` added, if none attacks
    /// another queen.
    fn place(mut self, n: usize, g: Symmetric, r: usize, c: usize) -> Option<Fixed> {
        let (mut rr, mut cc) = (r, c);
        loop {
            let (dr, dl) = (1u64 << (rr + n - 1 - cc), 1u64 << (rr + cc));
            if self.rows >> rr & 1 == 1
                || self.cols >> cc & 1 == 1
                || self.down_right & dr != 0
                || self.down_left & dl != 0
            {
                return None;
            }
            self.rows |= 1 << rr;
            self.cols |= 1 << cc;
            self.down_right |= dr;
            self.down_left |= dl;
            (rr, cc) = g(n, rr, cc);
            if (rr, cc) == (r, c) {
                return Some(self);
            }
        }
    }

    /// Number of ways to fill the free rows keeping the board closed under `g`.
    fn complete(self, n: usize, g: Symmetric) -> u128 {
        let r = (!self.rows).trailing_zeros() as usize;
        if r >= n {
            return 1;
        }
        (0..n)
            .filter_map(|c| self.place(n, g, r, c))
            .map(|b| b.complete(n, g))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published;

    fn total(n: u32, symmetry: Symmetry, kernel: Kernel) -> u128 {
        let cut = Cut::new(n, usize::MAX).unwrap();
        keys(n, symmetry)
            .iter()
            .map(|k| cut.count(k, 1 << 20, kernel))
            .sum()
    }

    #[test]
    fn totals_match_the_table_in_every_mode_and_kernel() {
        for n in 0..=12 {
            for symmetry in Symmetry::ALL {
                for kernel in [Kernel::Scalar, Kernel::Auto] {
                    assert_eq!(Some(total(n, symmetry, kernel)), published::all(n), "n={n}");
                }
            }
        }
    }

    #[test]
    fn burnside_gives_the_fundamental_counts() {
        for n in 1..=12u32 {
            let all = published::all(n).unwrap();
            assert_eq!(
                Some((all + fixed_by_symmetries(n)) / 8),
                published::fundamental(n),
                "n={n}"
            );
        }
    }

    #[test]
    fn a_small_budget_slices_the_table_and_keeps_the_count() {
        let cut = Cut::new(14, usize::MAX).unwrap();
        for k in keys(14, Symmetry::Full).iter().step_by(37) {
            assert_eq!(
                cut.count(k, 0, Kernel::Scalar),
                search(14, k, Kernel::Scalar)
            );
        }
    }
}
