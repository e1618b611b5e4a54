//! The join method: the board cut down the middle into a left and a right half, each half's
//! placements enumerated once per key, and the compatible pairs counted with bitsets.
//!
//! Every solution puts one queen in each of the `h = n / 2` left columns; the rows those
//! take are its *key* `E`. On an odd board the middle column's queen (row `m`) is part of
//! the key too, and the right `h` columns take the other rows. A *left half-board* (one
//! queen in each left column, on the rows of `E`, no two attacking, none attacking the
//! middle queen) and a right half-board on the other rows make a solution exactly when no
//! diagonal holds a queen of each: the key already gives every row and column one queen.
//! So the count of a key is `L * R` minus the pairs that share a diagonal:
//!
//! ```text
//! count(key):
//!     pieces = each quadrant's placements on the key's rows            (pieces)
//!     cut each side's half-boards into chunks within the thread's budget
//!     for each chunk of one side, each chunk of the other:
//!         build both chunks' words                                      (halves)
//!         add the pairs whose words share no bit                        (matching)
//!     weigh the sum by the key's orbit (and, from n = 21, the quarter turn's weights)
//! ```
//!
//! Half-boards are built from *pieces*: the placements inside one quadrant (the top or
//! bottom rows of a half), stored by the rows and the columns they use, enumerated once per
//! board. A left half-board of key `E` is a top piece on `E`'s top rows and a bottom piece
//! on its bottom rows whose columns complete each other and whose diagonals do not meet.
//!
//! A half-board is stored as one word: the `2h - 1` diagonals of each direction that both
//! halves can reach. Matching (the hot part): one half of a key goes into a table (the
//! one a model of the matching's work picks, `matching::Matcher::either`).
//! Its words' union names the diagonals in play; for each of them the set of half-boards
//! on it is a bitset, and for each eight consecutive diagonals the union of every subset
//! of their sets is precomputed (256 entries). A half-board of the other side then finds
//! everything it meets by ORing one entry per eight of its diagonals (at most six at
//! n = 22) and counting the bits: with AVX-512, eight words a step and `vpopcntq`; with
//! AVX2 four, sixteen vectors summed by carry-save adders before a nibble table counts
//! them (Harley-Seal), and an entry of one vector where the slice has at most 256
//! half-boards; a plain loop elsewhere. The split brings a table down to leaves of at most
//! 512 half-boards (`matching::LEAF`); where it runs out of diagonals first, the table is
//! matched in slices of at most 2048 (so that a slice stays in L2 cache). On an odd board
//! the left half-boards of one row set go into one table for all its middle rows (see
//! [`Join::count_until`]).
//!
//! Symmetry: the mirror image maps key `(E, m)` to `(rest, m)`, the upside-down image to
//! the flipped rows; keys in one orbit have the same count, so one key per orbit is counted
//! with the orbit's size as its weight. The quarter and half turns and the diagonal
//! reflections do not map keys to keys; fundamental solutions come by Burnside's lemma
//! from the total and the solutions each of the seven other symmetries fixes, which a small
//! search of its own counts ([`fixed_by_symmetries`]).
//!
//! One file per stage: [`pieces`] (the placements inside each quadrant), [`keys`](mod@keys)
//! (the parts and their symmetry, and a key searched as an oracle), [`halves`] (half-boards
//! built from pieces), [`matching`] (the pairs of half-boards that share no diagonal: the
//! split, and `leaf`, the bitset tables written once over each ISA's steps, and `short`,
//! the split's words held in 32 bits once the diagonals in play fit them), [`weights`]
//! (the quarter turn's weights) and [`symmetric`] (the solutions the other symmetries fix,
//! for Burnside's count).
//!
//! Imports go one way, from this file down: `word` (a half-board's word, the plain-word
//! loops, the buffers, the instructions a key runs in) imports nothing of the join; `pack`
//! (each ISA's vector steps on words) and `short` only `word`; `leaf` those; `matching`
//! `leaf`, `short`, `pack` and `word`; [`weights`] nothing; [`pieces`] `weights` and `word`;
//! [`halves`] `pieces`, `pack` and `word`; [`keys`](mod@keys) `weights`; [`symmetric`]
//! `word`; and this file, the [`Join`] driver, all of them.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::search::schedule::mask_of;
use crate::types::{Kernel, Symmetry};

pub mod halves;
pub mod keys;
mod leaf;
pub mod matching;
#[cfg(target_arch = "x86_64")]
mod pack;
pub mod pieces;
mod short;
pub mod symmetric;
pub mod weights;
mod word;

pub use crate::types::MAX_CUT_N;
pub use keys::{Key, cost, keys, search};
pub use leaf::MIN_BYTES;
#[cfg(feature = "instruments")]
pub use matching::{Matched, matched};
pub use pieces::{Enumerated, enumerated};
#[cfg(test)]
pub use symmetric::fixed_by_symmetries;
pub use symmetric::fixed_by_symmetries_until;
pub use word::NEVER;

use halves::{Shape, Sizes};
use leaf::MAX_GROUPS;
use matching::{LEAF, Matcher, Within};

use pieces::{Cache, Lines, MakeRoom, Pieces, RowSet, Store};
use word::{Isa, Word, grows, held, hold, leaves, narrowed, resize_exact};

/// A matching done outside this CPU's split (a GPU's): the pairs of a word of `table` and a
/// word of `probe` that share no bit, either side reordered or not. A key counted
/// through one (`Join::count_on`) builds its half-boards here, in the same chunks, blocks
/// and layouts, and hands every matching to it: the count is the same, only where its pairs
/// are matched differs.
pub trait Pairs: Sync {
    /// The pairs of `table` and `probe` words whose AND is zero.
    fn disjoint(&self, table: &[u64], probe: &[u64]) -> u64;

    /// [`Pairs::disjoint`] of each of a key's `matchings` (a table and a probe each), into
    /// `found` (one a matching): handed over together, so that they may be counted together
    /// (a GPU fills itself with a key's small matchings). By default, one at a time.
    fn disjoint_each(&self, matchings: &[(&[u64], &[u64])], found: &mut [u64]) {
        for (found, &(table, probe)) in found.iter_mut().zip(matchings) {
            *found = self.disjoint(table, probe);
        }
    }

    /// Why the matchings so far cannot be trusted, where they cannot (a device's error: a
    /// GPU lost or refusing a call); once `Some`, a key counted through it is no count. By
    /// default, never.
    fn failed(&self) -> Option<String> {
        None
    }
}

/// How an `n`-board is cut: its left half (`h = n / 2` columns) into a top quadrant (rows
/// `0..top`) and a bottom one; the right half's half-boards are the mirror images of left
/// ones. The pieces of each key's rows are enumerated when it is counted.
pub struct Join {
    n: usize,
    h: usize,
    top: usize,
    symmetry: Symmetry,
    /// Whether each solution counts 0, 1 or 2 times by the quarter turn ([`weights`]).
    weighted: bool,
    /// The pieces of the row sets used so far, shared by the threads.
    store: Store,
}

/// Bytes a thread's buffers hold: its chunks' (`words`) and its matcher's.
fn thread_bytes(words: [&Vec<Word>; 4], matcher: &Matcher) -> usize {
    held(words) + matcher.bytes()
}

impl Join {
    /// The cut of an `n`-board (`n <= MAX_CUT_N`) whose keys stand for their orbits under
    /// the symmetries `symmetry` uses, keeping the pieces it enumerates for all threads up
    /// to `pieces` bytes.
    pub fn new(n: u32, symmetry: Symmetry, pieces: usize) -> Join {
        debug_assert!(n <= MAX_CUT_N);
        let n = n as usize;
        Join {
            n,
            h: n / 2,
            top: n / 2,
            symmetry,
            weighted: weights::weighted(n as u32, symmetry),
            store: Store::new(pieces),
        }
    }

    /// Whether the keys count their solutions weighed by the quarter turn ([`weights`]):
    /// each key's count is then not its solutions, but the keys' counts sum to the board's.
    pub fn weighted(&self) -> bool {
        self.weighted
    }

    /// The blocks of pairs an even board's key counts, each the column sets it takes of
    /// the left side and of the right (all, where `None`) and its weight: all pairs once, or
    /// where the key is weighed, the blocks [`weights::blocks`] picks (those with no
    /// half-boards left out).
    #[allow(clippy::type_complexity)]
    fn blocks(
        &self,
        key: Key,
        left: &Sizes,
        right: &Sizes,
    ) -> Vec<(Option<Vec<bool>>, Option<Vec<bool>>, u64)> {
        if !self.weighted {
            return vec![(None, None, 1)];
        }
        let c = weights::psi(self.n, key.rows);
        let classes = |side: &Sizes| -> (Vec<u32>, [u64; 3]) {
            let classes: Vec<u32> = side.ups().map(|up| weights::class(self.h, up)).collect();
            let mut sizes = [0u64; 3];
            for (&a, boards) in classes.iter().zip(side.each_set()) {
                sizes[weights::weigh(a, c) as usize] += boards;
            }
            (classes, sizes)
        };
        let ((l_classes, l_sizes), (r_classes, r_sizes)) = (classes(left), classes(right));
        let keep = |classes: &[u32], part: weights::Part| {
            Some(classes.iter().map(|&a| part.takes(a, c)).collect())
        };
        weights::blocks(l_sizes, r_sizes, matching::either_work)
            .into_iter()
            .map(|(l, r, weight)| (keep(&l_classes, l), keep(&r_classes, r), weight))
            .filter(|(l, r, _)| {
                let any = |k: &Option<Vec<bool>>, side: &Sizes| side.boards_of(k.as_deref()) > 0;
                any(l, left) && any(r, right)
            })
            .collect()
    }

    /// The row sets of quadrants whose pieces `keys` use: what a run that keeps them all
    /// enumerates.
    pub fn row_sets(&self, keys: &[Key]) -> usize {
        let (n, top) = (self.n as u32, self.top);
        let mut seen = [vec![false; 1 << top], vec![false; 1 << (self.n - top)]];
        let mut mark = |rows: u32| {
            seen[0][(rows & ((1 << top) - 1)) as usize] = true;
            seen[1][(rows >> top) as usize] = true;
        };
        for &key in keys {
            mark(key.rows);
            for (m, _) in key.entries(n, self.symmetry) {
                mark(self.right_rows(key.rows, m));
            }
        }
        seen.iter().map(|s| s.iter().filter(|&&x| x).count()).sum()
    }

    /// Bytes of pieces the threads may keep together.
    pub fn pieces_budget(&self) -> usize {
        self.store.budget()
    }

    /// Bytes of pieces kept for all threads so far.
    #[cfg(test)]
    pub fn pieces_bytes(&self) -> usize {
        self.store.bytes()
    }

    /// The pieces of a side on `rows`, its top quadrant's and its bottom one's (found in
    /// or added to `cache`; none where `stop` cut their enumeration short).
    fn pieces(
        &self,
        cache: &mut Cache,
        rows: u32,
        stop: &AtomicBool,
        room: MakeRoom,
    ) -> SidePieces {
        let (n, top, h, store) = (self.n, self.top, self.h, &self.store);
        // An odd board's bottom quadrant starts on the middle row, whose queen's class a
        // weighed join needs.
        let tagged = self.weighted && n % 2 == 1;
        let north = RowSet {
            n,
            first: 0,
            rows: rows & ((1 << top) - 1),
            width: h,
            tagged: false,
        };
        let south = RowSet {
            n,
            first: top,
            rows: rows >> top,
            width: h,
            tagged,
        };
        let north = cache.find(store, north, stop, room);
        let south = cache.find(store, south, stop, room);
        (north, south)
    }

    /// The side `north` and `south` make, and its sizes: each north piece's half-boards
    /// that do not meet `forbid` (a middle queen's lines, or none) counted where their
    /// pairs pass `bound` ([`halves::boards`]: counted in `isa`'s vectors, not built).
    fn sized(&self, (north, south): SidePieces, forbid: Lines, bound: u64, isa: Isa) -> Sized {
        let sizes = Sizes::of(&north, &south, self.h, bound, |set, counts| {
            halves::boards(self.h, (&north, &south), set, forbid, isa, counts)
        });
        Sized {
            north,
            south,
            sizes,
        }
    }

    /// Fills `out` with chunk `c` of `side`'s half-boards, those `shape` makes and as it
    /// writes them (see [`halves::build`]).
    fn build_chunk(&self, side: &Side, c: usize, shape: &Shape, isa: Isa, out: &mut Vec<Word>) {
        let pieces = (&*side.north, &*side.south);
        let chunk = &side.chunks[c];
        halves::build(
            self.h,
            pieces,
            (&chunk.spans, chunk.boards),
            shape,
            isa,
            out,
        );
    }

    /// The diagonals both halves reach: `2h - 1` of each direction from index `n - h`.
    fn shared(&self) -> (usize, usize) {
        (self.n - self.h, (2 * self.h).saturating_sub(1))
    }

    /// The rows the right half's queens take, the middle queen on `middle`.
    fn right_rows(&self, rows: u32, middle: Option<u8>) -> u32 {
        let mid = middle.map_or(0, |m| 1 << m);
        mask_of(self.n as u32) ^ rows ^ mid
    }

    /// [`Join::count_until`] never abandoned.
    #[cfg(test)]
    pub fn count(&self, key: Key, budget: usize, kernel: Kernel) -> u128 {
        self.count_until(key, budget, kernel, NEVER)
    }

    /// Number of solutions of the keys of `key`, each weighed by its orbit's size, within
    /// `budget` bytes of this thread's and matched in `kernel`'s instructions
    /// (`matching::Matcher::disjoint`).
    ///
    /// Each side's half-boards are built a chunk at a time where they would not fit the
    /// budget (`halves::Sizes` counts them where their pairs of pieces might not fit; on an
    /// even board the larger side stays whole where it fits beside chunks of the other,
    /// `even_chunks`, and on an odd board a middle row's larger right side, `odd_chunks`):
    /// every chunk of one side is matched with every chunk of the other, as
    /// the table the side `matching::Matcher::either` picks. On an odd board the middle
    /// queen joins the right half: the left half-boards are built once for all the part's
    /// middle rows (where they fit one chunk), with one more diagonal each side (indices
    /// `n - h - 1` to
    /// `n + h - 1`, where the middle queen on row `m` is bit `m` of both halves). Where they
    /// fit one table leaf (`matching::LEAF`) they are the table for every middle row at
    /// once, each middle row's right half-boards (with the middle queen's bits) a group of
    /// probe words; otherwise each middle row is matched on its own, against the left
    /// half-boards its queen leaves, which takes less time than one table for every middle
    /// row (measured: results/zen3/2026-11-26-odd-sides-per-row/). Both sides of a middle row are counted by the
    /// half-boards its queen leaves (about two in five); where the left side does not fit
    /// one chunk whole, each middle row builds those of its own, in the right half's layout
    /// and in chunks of their own: fewer chunks, in less time and memory, than the whole
    /// left side's (measured: results/zen3/2026-11-26-odd-sides-per-row/).
    ///
    /// Abandoned as soon as `stop` is set: the matching's split stops going
    /// down, so the count returns early with too few solutions, and the caller must drop
    /// every count that ended after it set `stop` (`estimate` keeps `--seconds` a bound so,
    /// where one key of n = 26 takes minutes). The pieces' enumeration stops too, and what
    /// it cut short is kept for no other key.
    pub fn count_until(&self, key: Key, budget: usize, kernel: Kernel, stop: &AtomicBool) -> u128 {
        self.count_in(key, budget, kernel, u64::MAX, stop)
    }

    /// [`Join::count_until`] with every matching handed to `pairs` (a GPU's): the key's
    /// half-boards are built here, in `kernel`'s instructions, and its count is the same.
    pub fn count_on(
        &self,
        key: Key,
        budget: usize,
        (kernel, pairs): (Kernel, &dyn Pairs),
        stop: &AtomicBool,
    ) -> u128 {
        self.count_by(key, budget, (kernel, Some(pairs)), u64::MAX, stop)
    }

    /// [`Join::count_until`] with chunks of at most `most` half-boards (and at most what
    /// the budget holds).
    ///
    /// The key's pieces are found first: those the store does not keep are this thread's
    /// and count against `budget` (idle ones kept for the keys after it, [`IDLE_PIECES`]).
    /// What they leave, less a margin for what the matching's own count leaves out
    /// ([`UNCOUNTED`]), bounds its chunks, tables and room (the buffers kept from the keys
    /// before are let go where they hold more); where they leave nothing, the count goes on
    /// in the least chunks. A row set being found holds only the pieces it keeps (it is
    /// walked twice: [`Pieces::fill`]); the buffers of the key before are let go first where
    /// both would not fit ([`pieces::MakeRoom`]). At n = 28 a row set's pieces take over
    /// 100 MB and a key's four half a gigabyte: pieces kept with no bound, or not counted,
    /// take a run past the memory it is given.
    fn count_in(
        &self,
        key: Key,
        budget: usize,
        kernel: Kernel,
        most: u64,
        stop: &AtomicBool,
    ) -> u128 {
        self.count_by(key, budget, (kernel, None), most, stop)
    }

    /// [`Join::count_in`], each matching handed to `pairs` where one is given.
    fn count_by(
        &self,
        key: Key,
        budget: usize,
        (kernel, pairs): (Kernel, Option<&dyn Pairs>),
        most: u64,
        stop: &AtomicBool,
    ) -> u128 {
        let entries: Vec<(Option<u8>, u8)> = key.entries(self.n as u32, self.symmetry).collect();
        SCRATCH.with_borrow_mut(|s| {
            let pieces = self.key_pieces(key, &entries, budget, stop, s);
            let odd = self.n % 2 == 1;
            let free = budget.saturating_sub(s.pieces.own() + budget / UNCOUNTED);
            // An odd board's left sizes are held while it is counted (an even board's
            // sides' are taken from its chunks' share below, once known): a few percent of
            // a small thread's share.
            let free = if odd {
                free.saturating_sub(Sizes::most_bytes(&pieces.left.0))
            } else {
                free
            };
            release_buffers_past(
                free,
                [&mut s.left, &mut s.right, &mut s.group, &mut s.kept],
                &mut s.matcher,
            );
            let mut limits = self.limits(free, most, kernel, stop);
            limits.pairs = pairs;
            if odd {
                return self.count_odd(key, &entries, pieces, &limits, s);
            }
            let KeyPieces { left, rights } = pieces;
            let (left_pieces, right_pieces) = (left, rights.into_iter().next());
            let right_pieces = right_pieces.expect("an even board's key has one right side");
            let weighed = self.count_even(key, left_pieces, right_pieces, &limits, s);
            u128::from(entries[0].1) * weighed
        })
    }

    /// The pieces of `key`'s left side and of each entry's right side (`entries`, a middle
    /// row each on an odd board), found in the thread's cache, the store or enumerated; then
    /// the thread's idle pieces let go past its share of `budget` ([`IDLE_PIECES`]).
    fn key_pieces(
        &self,
        key: Key,
        entries: &[(Option<u8>, u8)],
        budget: usize,
        stop: &AtomicBool,
        s: &mut Scratch,
    ) -> KeyPieces {
        let Scratch {
            left,
            right,
            group,
            kept,
            matcher,
            pieces: cache,
            ..
        } = s;
        // Pieces to enumerate are put beside what the keys before left only where the
        // thread's budget holds both: else its idle pieces go, then its buffers (they
        // would go below anyway, and held beside the new pieces they could pass the
        // budget).
        let counted = budget - budget / UNCOUNTED;
        let mut room = |cache: &mut Cache, bytes: usize| {
            let buffers = thread_bytes([left, right, group, kept], matcher);
            if cache.own() + bytes + buffers > counted {
                cache.trim(counted.saturating_sub(buffers + bytes));
                let rest = counted.saturating_sub(cache.own() + bytes);
                release_buffers_past(rest, [left, right, group, kept], matcher);
            }
        };
        let left_pieces = self.pieces(cache, key.rows, stop, &mut room);
        let right_pieces: Vec<_> = entries
            .iter()
            .map(|&(m, _)| self.pieces(cache, self.right_rows(key.rows, m), stop, &mut room))
            .collect();
        cache.trim(budget / IDLE_PIECES);
        KeyPieces {
            left: left_pieces,
            rights: right_pieces,
        }
    }

    /// What a key's count may take once its pieces are found (`free` bytes, chunks of at
    /// most `asked` half-boards) and the instructions it runs in, `kernel`'s.
    fn limits<'a>(
        &self,
        free: usize,
        asked: u64,
        kernel: Kernel,
        stop: &'a AtomicBool,
    ) -> Limits<'a> {
        let odd = self.n % 2 == 1;
        let (low, width) = self.shared();
        let mut limits = Limits {
            free,
            asked,
            most: 0,
            shared: (low, width),
            wide: if odd {
                (low - 1, width + 2)
            } else {
                (low, width)
            },
            isa: Isa::of(kernel),
            pairs: None,
            within: Within {
                bytes: free,
                stop,
                isa: Isa::of(kernel),
                least: if odd { matching::LEVELS } else { 0 },
                held: 0,
            },
        };
        limits.most = limits.chunk(free);
        limits
    }

    /// The pairs of an even board's key that share no diagonal, weighed: its left side (the
    /// pieces `left_pieces`) against its right one, block by block ([`Join::blocks`]), the
    /// sides of each block in the chunks [`even_chunks`] fits within `limits`.
    fn count_even(
        &self,
        key: Key,
        left_pieces: SidePieces,
        right_pieces: SidePieces,
        limits: &Limits,
        s: &mut Scratch,
    ) -> u128 {
        let none = Lines::default();
        // An even board's sides take four fifths of what the pieces leave (an odd
        // board's chunks, probe and room fill it): the room and the words a split moves
        // aside take the rest.
        let cap = limits.most.saturating_mul(EVEN_WORDS) / 5;
        // Sides counted where they may be cut: an even board's chunks are at least an
        // eighth of its words (`even_chunks`).
        let lefts = self.sized(left_pieces, none, cap / 8, limits.isa);
        let rights = self.sized(right_pieces, none, cap / 8, limits.isa);
        let blocks = self.blocks(key, &lefts.sizes, &rights.sizes);
        // The sides' sizes are held while they are counted: the chunks take four
        // fifths of what they leave, the room the rest.
        let sizes = lefts.sizes.bytes() + rights.sizes.bytes();
        let free = limits.free.saturating_sub(sizes);
        let cap = cap.min(limits.chunk(free) * EVEN_WORDS / 5);
        let within = Within {
            bytes: free,
            ..limits.within
        };
        let mut weighed = 0u128;
        // Blocks whole in one chunk a side go to a GPU together, within half the words
        // one block's chunks may take (the buffers kept from before take the rest).
        let mut together = Together::new(cap / 2);
        for (keep_left, keep_right, weight) in blocks {
            let (keep_left, keep_right) = (keep_left.as_deref(), keep_right.as_deref());
            let (l_most, r_most) = even_chunks(
                lefts.sizes.boards_of(keep_left),
                rights.sizes.boards_of(keep_right),
                cap,
            );
            let sides = (lefts.cut(l_most, keep_left), rights.cut(r_most, keep_right));
            if let Some(pairs) = limits.pairs {
                let words = whole_words(&sides);
                if words.is_none_or(|w| !together.fits(w)) {
                    weighed += together.count(pairs);
                }
                if words.is_some_and(|w| together.fits(w)) {
                    let (as_left, as_right) = block_shapes(limits);
                    let (mut left, mut right) = (Vec::new(), Vec::new());
                    self.build_chunk(&sides.0, 0, &as_left, limits.isa, &mut left);
                    self.build_chunk(&sides.1, 0, &as_right, limits.isa, &mut right);
                    together.add(BuiltBlock {
                        left,
                        right,
                        weight,
                    });
                    continue;
                }
            }
            let found = self.count_block(&sides, within, limits, s);
            weighed += u128::from(weight) * u128::from(found);
        }
        if let Some(pairs) = limits.pairs {
            weighed += together.count(pairs);
        }
        weighed
    }

    /// The pairs of one block of an even board's key that share no diagonal: every chunk of
    /// its right side against every chunk of its left one (built once where it is whole),
    /// within `within`'s bytes.
    fn count_block(
        &self,
        (lefts, rights): &(Side, Side),
        within: Within,
        limits: &Limits,
        s: &mut Scratch,
    ) -> u64 {
        let Scratch {
            left,
            right,
            group,
            kept,
            matcher,
            ..
        } = s;
        let (free, isa) = (within.bytes, limits.isa);
        // A block before may have grown the buffers past this one's chunks, or one of
        // them past what this block grows the other to (a large left side kept where
        // this block needs a small one, beside a right side grown).
        let (l_need, r_need) = (lefts.largest(), rights.largest());
        let grows = grows(left, l_need) + grows(group, r_need);
        if thread_bytes([left, right, group, kept], matcher) + grows > free {
            hold(left, l_need, free);
            hold(group, r_need, free);
        }
        let whole = lefts.chunks.len() == 1;
        let (as_left, as_right) = block_shapes(limits);
        if whole {
            self.build_chunk(lefts, 0, &as_left, isa, left);
        }
        let mut found = [0u64];
        for r in 0..rights.chunks.len() {
            self.build_chunk(rights, r, &as_right, isa, group);
            for l in 0..lefts.chunks.len() {
                if !whole {
                    self.build_chunk(lefts, l, &as_left, isa, left);
                }
                if let Some(pairs) = limits.pairs {
                    found[0] += pairs.disjoint(left, group);
                    continue;
                }
                let held = held([left, right, group, kept]);
                let within = Within { held, ..within };
                matcher.fit((left.len(), group.len()), within);
                matcher.pivoted(left, group, &mut found, within);
            }
        }
        found[0]
    }

    /// The solutions of an odd board's key, each entry (middle row) weighed by its orbit's
    /// size: the left side (the pieces `pieces.left`) built whole where it fits one chunk,
    /// and matched with each middle row's right side (`pieces.rights`, one an entry) in one
    /// table for them all ([`Join::one_table`]) where it is small, else one middle row at a
    /// time ([`Join::each_middle_row`]).
    fn count_odd(
        &self,
        key: Key,
        entries: &[(Option<u8>, u8)],
        pieces: KeyPieces,
        limits: &Limits,
        s: &mut Scratch,
    ) -> u128 {
        let KeyPieces {
            left: left_pieces,
            rights: right_pieces,
        } = pieces;
        let none = (Lines::default(), None);
        let sized = self.sized(left_pieces, none.0, limits.most, limits.isa);
        let lefts = sized.cut(limits.most, None);
        let whole = lefts.chunks.len() == 1;
        if whole {
            self.build_chunk(
                &lefts,
                0,
                &Shape::new(none, false, limits.wide),
                limits.isa,
                &mut s.left,
            );
        }
        let rows = self.middle_rows(entries, right_pieces, &sized, whole, limits);
        // Where the join weighs its solutions, the side with the middle row's queen has
        // their classes: the left one where the key has the middle row, else each middle
        // row's right side but the middle row's own (whose solutions weigh 1). A
        // half-board of the key's own class has no solution: its middle row's queen is
        // as far from the middle column as the middle column's is from the middle row,
        // on one diagonal with it (the build's `forbid`, `narrow`'s `mid`). So a side
        // with classes keeps those above the key's, each pair weighing 2, and no ties.
        let left_classes = self.weighted && key.rows >> self.h & 1 == 1;
        let single = rows
            .iter()
            .all(|row| row.right.chunks.len() == 1 && !row.table);
        let weighed = if whole && single && s.left.len() <= LEAF && !left_classes {
            self.one_table(&rows, limits, s)
        } else {
            self.each_middle_row(&rows, whole, left_classes, limits, s)
        };
        entries
            .iter()
            .zip(weighed)
            .map(|(&(_, weight), found)| u128::from(weight) * u128::from(found))
            .sum()
    }

    /// Each middle row's right side (of `entries`, from `right_pieces`), the half-boards its
    /// queen leaves; whether it is kept whole past the chunks' bound as the table
    /// ([`odd_chunks`]); and, unless the left side (`sized`) is `whole`, the left half-boards
    /// that queen leaves, in chunks of their own: about two in five of the side's, built in
    /// the right half's layout, so one word each.
    fn middle_rows(
        &self,
        entries: &[(Option<u8>, u8)],
        right_pieces: Vec<SidePieces>,
        sized: &Sized,
        whole: bool,
        limits: &Limits,
    ) -> Vec<MiddleRow> {
        let (most, isa) = (limits.most, limits.isa);
        let l_boards = sized.sizes.boards_of(None);
        entries
            .iter()
            .zip(right_pieces)
            .map(|(&(m, _), pieces)| {
                let m = m.expect("an odd board's keys have a middle row");
                let forbid = Lines::of(self.n, m as usize, self.h);
                let right = self.sized(pieces, forbid, most, isa);
                let r_boards = right.sizes.boards_of(None);
                if whole {
                    // A left side built whole for every middle row stays as it is.
                    return match odd_chunks(l_boards, r_boards, most, WIDE_LEFT) {
                        Some(rest) if rest >= l_boards => MiddleRow {
                            m,
                            right: right.cut(u64::MAX, None),
                            table: true,
                            own: None,
                        },
                        _ => MiddleRow {
                            m,
                            right: right.cut(most, None),
                            table: false,
                            own: None,
                        },
                    };
                }
                let pieces = (Arc::clone(&sized.north), Arc::clone(&sized.south));
                // Counted wherever a quarter of `most` might not hold them.
                let own = self.sized(pieces, forbid, most / 4, isa);
                match odd_chunks(own.sizes.boards_of(None), r_boards, most, NARROW_LEFT) {
                    Some(rest) => MiddleRow {
                        m,
                        right: right.cut(u64::MAX, None),
                        table: true,
                        own: Some(own.cut(rest, None)),
                    },
                    None => MiddleRow {
                        m,
                        right: right.cut(most, None),
                        table: false,
                        own: Some(own.cut(most, None)),
                    },
                }
            })
            .collect()
    }

    /// Each middle row's weighed pairs where the left side is small: one table for every
    /// middle row, each middle row's right side a group (of those above its class, where it
    /// has classes), widened to the left half-boards' layout with the middle queen's bits.
    fn one_table(&self, rows: &[MiddleRow], limits: &Limits, s: &mut Scratch) -> [u64; MAX_GROUPS] {
        let Scratch {
            left,
            right,
            group,
            kept,
            ends,
            matcher,
            ..
        } = s;
        let mask = (1u64 << limits.shared.1) - 1;
        right.clear();
        ends.clear();
        let total = rows
            .iter()
            .map(|row| row.right.chunks[0].boards)
            .sum::<u64>() as usize;
        right.reserve_exact(total);
        let mut groups = Vec::with_capacity(rows.len());
        for (e, MiddleRow { m, right: side, .. }) in rows.iter().enumerate() {
            let forbid = Lines::of(self.n, *m as usize, self.h);
            let class = self.class_of(*m);
            let keep = (forbid, class);
            self.build_chunk(
                side,
                0,
                &Shape::new(keep, true, limits.shared),
                limits.isa,
                group,
            );
            // The right half-board's bits in the wide layout, with the middle queen's.
            let mid = 1u64 << m | 1 << (m + 32);
            let widen = |&w: &Word| (w & mask) << 1 | ((w >> 32) & mask) << 33 | mid;
            right.extend(group.iter().map(widen));
            groups.push((e, weight_of(class)));
            ends.push(right.len());
        }
        let held = held([left, right, group, kept]);
        let within = Within {
            held,
            ..limits.within
        };
        let mut found = [0u64; MAX_GROUPS];
        if let Some(pairs) = limits.pairs {
            let starts = std::iter::once(0).chain(ends.iter().copied());
            let groups: Vec<(&[u64], &[u64])> = starts
                .zip(ends.iter().copied())
                .map(|(from, to)| (&left[..], &right[from..to]))
                .collect();
            pairs.disjoint_each(&groups, &mut found[..groups.len()]);
        } else {
            matcher.fit_table((left.len(), right.len()), within);
            matcher.disjoint(left, right, ends, &mut found, within);
        }
        let mut weighed = [0u64; MAX_GROUPS];
        for (&(e, weight), found) in groups.iter().zip(found) {
            weighed[e] += weight * found;
        }
        weighed
    }

    /// Each middle row's weighed pairs, one middle row at a time ([`Join::count_row`]): the
    /// left half-boards its queen leaves, narrowed (most others would meet every right
    /// one), against its right half-boards. A right side kept whole past the chunks' bound
    /// is the table: its room is the left's. The chunks and room take all the limits have:
    /// `right` holds nothing of this key's, nor `left` where the left side is not `whole`
    /// (it is built per middle row, into `kept`): held beside this key's chunks, they
    /// would pass its budget.
    fn each_middle_row(
        &self,
        rows: &[MiddleRow],
        whole: bool,
        left_classes: bool,
        limits: &Limits,
        s: &mut Scratch,
    ) -> [u64; MAX_GROUPS] {
        let binds = !whole || rows.iter().any(|r| r.table || r.right.chunks.len() > 1);
        hold(&mut s.right, 0, limits.free);
        if !whole {
            hold(&mut s.left, 0, limits.free);
        }
        let mut weighed = [0u64; MAX_GROUPS];
        for (e, row) in rows.iter().enumerate() {
            weighed[e] = self.count_row(row, binds, left_classes, limits, s);
        }
        weighed
    }

    /// One middle row's weighed pairs ([`Join::each_middle_row`]): each chunk of its right
    /// side against the left half-boards its queen leaves, narrowed from the whole left
    /// side or built in chunks of their own; the buffers held to this row's chunks where the
    /// budget `binds`, and the classes on the left side where `left_classes`.
    fn count_row(
        &self,
        row: &MiddleRow,
        binds: bool,
        left_classes: bool,
        limits: &Limits,
        s: &mut Scratch,
    ) -> u64 {
        let Scratch {
            left,
            right,
            group,
            kept,
            matcher,
            ..
        } = s;
        let (free, isa, shared) = (limits.free, limits.isa, limits.shared);
        let MiddleRow {
            m,
            right: side,
            table,
            own,
        } = row;
        let forbid = Lines::of(self.n, *m as usize, self.h);
        let mid = 1u64 << m | 1 << (m + 32);
        let mask = (1u64 << shared.1) - 1;
        let class = self.class_of(*m);
        let weight = weight_of(class);
        let left_class = class.filter(|_| left_classes);
        // The left half-boards the queen leaves, where they are one list, are
        // made for the first right chunk and kept for the others: a matching
        // only reorders its sides.
        let once = own.as_ref().is_none_or(|own| own.chunks.len() == 1);
        // A middle row before may have grown the buffers past this one's chunks, where
        // the budget binds: a side is cut, or kept whole past `most`.
        if binds {
            hold(group, side.largest(), free);
            if let Some(own) = own {
                hold(kept, own.largest(), free);
            }
        }
        let pairs = |matcher: &mut Matcher, a: &mut Vec<Word>, b: &mut Vec<Word>| {
            if let Some(pairs) = limits.pairs {
                return if *table {
                    pairs.disjoint(b, a)
                } else {
                    pairs.disjoint(a, b)
                };
            }
            let mut found = [0u64];
            let within = Within {
                held: held([left, right, a, b]),
                ..limits.within
            };
            if *table {
                matcher.fit_table((b.len(), a.len()), within);
                let ends = [a.len()];
                matcher.disjoint(b, a, &ends, &mut found, within);
            } else {
                matcher.fit((a.len(), b.len()), within);
                matcher.either(a, b, &mut found, within);
            }
            found[0]
        };
        let right_classes = class.filter(|_| !left_classes);
        let mut weighed = 0;
        for r in 0..side.chunks.len() {
            self.build_chunk(
                side,
                r,
                &Shape::new((forbid, right_classes), true, shared),
                isa,
                group,
            );
            let Some(own) = own else {
                // The whole left side, built once: the half-boards the queen leaves.
                if r == 0 {
                    narrow(left, (mid, mask), left_class, kept, isa);
                }
                weighed += weight * pairs(matcher, kept, group);
                continue;
            };
            for l in 0..own.chunks.len() {
                if r == 0 || !once {
                    let keep = (forbid, left_class);
                    self.build_chunk(own, l, &Shape::new(keep, false, shared), isa, kept);
                }
                weighed += weight * pairs(matcher, kept, group);
            }
        }
        weighed
    }

    /// The class of middle row `m`'s queen on an odd board whose join weighs its solutions
    /// (its distance from the middle column, [`weights::from_middle`]); none where the join
    /// does not weigh, or `m` is the middle row (its solutions weigh 1).
    fn class_of(&self, m: u8) -> Option<u64> {
        let m = usize::from(m);
        (self.weighted && m != self.h).then(|| u64::from(weights::from_middle(self.h, m)))
    }
}

/// The layouts of an even board's block: its left side's words in the wide layout, its
/// right side's in the shared one.
fn block_shapes(limits: &Limits) -> (Shape, Shape) {
    let none = (Lines::default(), None);
    (
        Shape::new(none, false, limits.wide),
        Shape::new(none, true, limits.shared),
    )
}

/// The half-boards of a block's two sides where each is one chunk, else `None`.
fn whole_words((lefts, rights): &(Side, Side)) -> Option<u64> {
    match (&lefts.chunks[..], &rights.chunks[..]) {
        ([l], [r]) => Some(l.boards + r.boards),
        _ => None,
    }
}

/// A block of an even board's key built whole: its two sides' words and its weight.
struct BuiltBlock {
    left: Vec<Word>,
    right: Vec<Word>,
    weight: u64,
}

/// An even board's blocks built whole and held to be handed to a GPU together
/// ([`Pairs::disjoint_each`]), up to a bound on their words.
struct Together {
    blocks: Vec<BuiltBlock>,
    /// The words held, and the most they may be.
    words: u64,
    most: u64,
}

impl Together {
    fn new(most: u64) -> Together {
        Together {
            blocks: Vec::new(),
            words: 0,
            most,
        }
    }

    /// Whether a block of `words` half-boards fits beside those held.
    fn fits(&self, words: u64) -> bool {
        self.words + words <= self.most
    }

    fn add(&mut self, block: BuiltBlock) {
        self.words += (block.left.len() + block.right.len()) as u64;
        self.blocks.push(block);
    }

    /// The weighed pairs of the blocks held, counted by `pairs` together; then none held.
    fn count(&mut self, pairs: &dyn Pairs) -> u128 {
        let matchings: Vec<(&[u64], &[u64])> = self
            .blocks
            .iter()
            .map(|b| (&b.left[..], &b.right[..]))
            .collect();
        let mut found = vec![0; matchings.len()];
        pairs.disjoint_each(&matchings, &mut found);
        let weighed = self
            .blocks
            .iter()
            .zip(found)
            .map(|(b, found)| u128::from(b.weight) * u128::from(found))
            .sum();
        self.blocks.clear();
        self.words = 0;
        weighed
    }
}

/// The weight of every pair of a side with classes (`class`, [`Join::class_of`]): 2, else 1.
fn weight_of(class: Option<u64>) -> u64 {
    if class.is_some() { 2 } else { 1 }
}

/// What a key's count may take once its pieces are found, and how its words are laid out.
#[derive(Clone, Copy)]
struct Limits<'a> {
    /// Bytes its chunks, tables and room may take.
    free: usize,
    /// The most half-boards a chunk may hold, as the caller asked.
    asked: u64,
    /// The most half-boards a chunk holds within `free` ([`Limits::chunk`]).
    most: u64,
    /// The diagonals both halves reach ([`Join::shared`]): a right half-board's word.
    shared: (usize, usize),
    /// A left half-board's: `shared`, and on an odd board one more diagonal each side
    /// (the middle queen's).
    wide: (usize, usize),
    isa: Isa,
    /// Where every matching goes instead of this thread's split, if anywhere.
    pairs: Option<&'a dyn Pairs>,
    /// What a matching may use: `free` bytes, the flag that abandons it.
    within: Within<'a>,
}

impl Limits<'_> {
    /// The most half-boards a chunk holds where `free` bytes are left for the chunks:
    /// [`least_chunk`]'s, and at most what the caller asked.
    fn chunk(&self, free: usize) -> u64 {
        self.asked.min(least_chunk(free / BYTES_PER_BOARD) as u64)
    }
}

/// A side's pieces: its top quadrant's and its bottom one's.
type SidePieces = (Arc<Pieces>, Arc<Pieces>);

/// A key's pieces: its left side's, and each entry's right side's (a middle row each on an
/// odd board).
struct KeyPieces {
    left: SidePieces,
    rights: Vec<SidePieces>,
}

/// Sets `kept` to the left half-boards of `left` that a middle queen on `mid` leaves and,
/// where `above` is given (a weighed key's), whose class ([`word::TAG`]) is above it,
/// narrowed to the right half's layout (`mask` wide, the class dropped), in `isa`'s
/// vectors where the CPU has them (`pack::narrow512`). About half of them have a queen on the
/// middle row, so a filter's branch is a coin toss: every word is written, and only the
/// kept ones advance the end (no branch to mispredict).
fn narrow(
    left: &[Word],
    (mid, mask): (u64, u64),
    above: Option<u64>,
    kept: &mut Vec<Word>,
    isa: Isa,
) {
    #[cfg(target_arch = "x86_64")]
    match isa {
        // SAFETY: `Isa::of` picked these only where the CPU has their features.
        Isa::Avx512 => return unsafe { pack::narrow512(left, (mid, mask), above, kept) },
        // SAFETY: as above.
        Isa::Avx2 => return unsafe { pack::narrow256(left, (mid, mask), above, kept) },
        Isa::Scalar => {}
    }
    let _ = isa;
    kept.clear();
    resize_exact(kept, left.len());
    let mut end = 0;
    for &w in left {
        kept[end] = narrowed(w, mask);
        // At most the words seen so far: the next write is in bounds.
        end += usize::from(leaves(w, mid, above));
    }
    kept.truncate(end);
}

/// A side of a key: the pieces of its rows in each quadrant, and its chunks.
struct Side {
    north: Arc<Pieces>,
    south: Arc<Pieces>,
    chunks: Vec<halves::Chunk>,
}

/// How an odd board's key counts one middle row: its right side (the half-boards the middle
/// queen leaves, in chunks), whether that side is kept whole as the table (`odd_chunks`),
/// and the left half-boards the queen leaves, in chunks of their own, where the left side
/// is not built whole for every middle row.
struct MiddleRow {
    m: u8,
    right: Side,
    table: bool,
    own: Option<Side>,
}

/// A side of a key before it is cut: its pieces and their sizes.
struct Sized {
    north: Arc<Pieces>,
    south: Arc<Pieces>,
    sizes: Sizes,
}

impl Side {
    /// The half-boards of its largest chunk.
    fn largest(&self) -> usize {
        self.chunks.iter().map(|c| c.boards).max().unwrap_or(0) as usize
    }
}

impl Sized {
    /// The side in chunks of at most `most` half-boards ([`Sizes::chunks`]), of the
    /// column sets `keep` takes where it is given.
    fn cut(&self, most: u64, keep: Option<&[bool]>) -> Side {
        Side {
            chunks: self.sizes.chunks(most, keep),
            north: Arc::clone(&self.north),
            south: Arc::clone(&self.south),
        }
    }
}

/// Bytes a thread holds per half-board of a chunk, at most, on an odd board: its word on
/// each side (as built, and a middle queen's kept ones), the words a split's partition
/// moves aside, and the probe side's filtered at the split levels (`matching::LEVELS` probe
/// sides; the levels past them partition the probe in place). A chunk of `budget /
/// BYTES_PER_BOARD` half-boards is a sixth of the budget's words.
const BYTES_PER_BOARD: usize = 8 * (4 + matching::LEVELS);

/// An even board's sides and the words a partition moves aside take at most
/// `EVEN_WORDS / 5` chunks' words: four fifths of the words the key's pieces and sides'
/// sizes leave of its budget (less the part kept for what is not counted): about what they
/// and two probe sides of room take where each side is cut on its own (five chunks at
/// most).
/// The room is what half the budget leaves beyond them (`matching::room`), and the split
/// partitions the probe in place past it.
const EVEN_WORDS: u64 = 24;

/// The chunks' bounds, in half-boards, of an even board's sides of `left` and `right`
/// half-boards (or bounds on them), their words and the words a partition moves aside (as
/// many as the larger side's) within `cap` words: both sides whole where they fit; else the
/// larger one whole (the matching's table, usually) where at least `cap / 8` words are left
/// for chunks of the other, which the table is matched with one by one; else both in chunks
/// of a third. Bounding the two together keeps whole the sides that fit (most keys' larger
/// side at n = 26), which a bound on each side alone, a sixth of the budget's words, cuts
/// in two.
fn even_chunks(left: u64, right: u64, cap: u64) -> (u64, u64) {
    let big = left.max(right);
    if left.saturating_add(right).saturating_add(big) <= cap {
        return (left, right);
    }
    if big.saturating_mul(2).saturating_add(cap / 8) <= cap {
        let rest = cap - 2 * big;
        return if left >= right {
            (left, rest)
        } else {
            (rest, right)
        };
    }
    (cap / 3, cap / 3)
}

/// The left side's chunks, in half-boards, where an odd board's middle row keeps its right
/// side of `right` half-boards whole, past the `most` each side's chunks take otherwise
/// (`None` where it does not): where the right side is the larger and more than `most`, its
/// word and the words a partition moves aside (it is the table) take two words a
/// half-board of the six that `most` half-boards have (`BYTES_PER_BOARD`), and the `left`
/// side's chunks take what is left at `words` a half-board ([`WIDE_LEFT`] or
/// [`NARROW_LEFT`]); only where that leaves a quarter of `most` at least. Cut at `most`, a
/// table in `k` chunks costs about `k^0.415` times the whole one (the split's model: a
/// probe word meets `(t / LEAF)^0.585` leaves of `t` words), and each chunk of one side is
/// built again for each chunk of the other.
fn odd_chunks(left: u64, right: u64, most: u64, words: u64) -> Option<u64> {
    if right <= most || right < left {
        return None;
    }
    let rest = most
        .saturating_mul(6)
        .saturating_sub(right.saturating_mul(2))
        / words;
    (rest >= most / 4).then_some(rest)
}

/// The words a left half-board takes, as the probe, on an odd board whose left side is
/// built whole for every middle row: its word in the wide layout, a middle queen's narrowed
/// copy and two probe sides of room.
const WIDE_LEFT: u64 = 4;

/// The words a left half-board takes, as the probe, on an odd board whose left side is
/// built for each middle row: the half-boards its queen leaves, in the right half's layout,
/// and two probe sides of room.
const NARROW_LEFT: u64 = 3;

/// The half-boards of the chunk [`THREAD_FLOOR`] gives every thread room for (3 MB of
/// words), beside the pieces it shares.
const MIN_BOARDS: usize = 1 << 16;

/// The fewest half-boards a chunk holds where a key's own pieces leave less than
/// [`MIN_BOARDS`] (a small share: [`THREAD_FLOOR`] does not count them): with
/// `MIN_BOARDS` there the thread passes its share, and much smaller chunks take many times
/// the time where the pieces pass it anyway (measured: results/xeon/2026-11-27-small-share/).
const FEWEST_BOARDS: usize = MIN_BOARDS / 4;

/// A chunk's half-boards where `fit` fit what a key's pieces leave: all of them, at least
/// [`FEWEST_BOARDS`]; but [`MIN_BOARDS`] where fewer fit, since there the pieces alone
/// nearly fill the share, and chunks small enough to fit beside them would cost many times
/// the time and pass it anyway.
fn least_chunk(fit: usize) -> usize {
    if fit < FEWEST_BOARDS { MIN_BOARDS } else { fit }
}

/// The least share of a join's memory a thread is given: room for a chunk of `MIN_BOARDS`
/// half-boards and the least table. A thread given no more than this loses nothing that the
/// pieces kept in its place would not give back: chunks this small take the time larger
/// ones do, while pieces let go cost time to enumerate again (measured:
/// results/xeon/2026-11-27-small-share/). The pieces a key holds on its own come out of it too: where they
/// leave less, its chunks are smaller (down to `FEWEST_BOARDS`).
pub const THREAD_FLOOR: usize = MIN_BOARDS * BYTES_PER_BOARD + MIN_BYTES;

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
    matcher: Matcher,
    /// The pieces of the last few row sets.
    pieces: Cache,
}

/// Lets go of a thread's buffers, the keys before left them, where they hold more than
/// `bytes` (what this key's budget leaves once its pieces are counted): they grow again to
/// what this key's chunks, tables and room need.
fn release_buffers_past(bytes: usize, words: [&mut Vec<Word>; 4], matcher: &mut Matcher) {
    let [a, b, c, d] = &words;
    if thread_bytes([a, b, c, d], matcher) > bytes {
        for v in words {
            *v = Vec::new();
        }
        matcher.release();
    }
}

/// The share of a thread's budget (one part in this many) within which the pieces it
/// holds on its own, those a key uses included, may keep idle ones for the keys after it
/// (the least recently used go first; at n = 27 and 28 a key's own often fill it, and
/// none is kept). Every own piece counts against the budget: the chunks, tables and room
/// take what they leave.
const IDLE_PIECES: usize = 16;

/// One part in this many of a thread's budget is kept for what the chunks, tables and room
/// leave out of their count: each north piece's size (`halves::Sizes`), the chunks' spans,
/// a leaf's tables, what the allocator adds to each allocation, what each buffer keeps past
/// its need ([`hold`]). With none kept, a long run's threads pass their budget.
const UNCOUNTED: usize = 16;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Lets go of this thread's buffers and the pieces it keeps (where no count is using them):
/// a new plan's keys grow their own. Else a plan counted before holds its thread's share
/// until the next plan's first key on that thread, beside that plan's (`verify`, or a
/// library's caller counting one board after another).
pub(crate) fn release_scratch() {
    SCRATCH.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            *s = Scratch::default();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published;
    use word::TAG;

    /// The row set `rows` of an `n`-board's top quadrant, `width` columns wide, untagged.
    fn top_rows(n: usize, rows: u32, width: usize) -> RowSet {
        RowSet {
            n,
            first: 0,
            rows,
            width,
            tagged: false,
        }
    }

    /// A row set's pieces found by `cache` (else the store, else enumerated), never cut
    /// short and with no room asked.
    fn found(cache: &mut Cache, store: &Store, set: RowSet) -> Arc<Pieces> {
        cache.find(store, set, NEVER, &mut |_, _| {})
    }

    fn total(n: u32, symmetry: Symmetry, kernel: Kernel) -> u128 {
        let cut = Join::new(n, symmetry, 1 << 30);
        keys(n, symmetry)
            .into_iter()
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

    /// Half-boards built a few at a time, one column set cut between its
    /// pieces, give every key the same count, even and odd boards, in every mode.
    #[test]
    fn chunked_sides_keep_every_count() {
        for n in [10, 11, 13, 14] {
            for symmetry in Symmetry::ALL {
                let cut = Join::new(n, symmetry, 1 << 20);
                for k in keys(n, symmetry).into_iter().step_by(7) {
                    let whole = cut.count(k, 1 << 20, Kernel::Auto);
                    for most in [1, 7, 50, 300] {
                        let chunked = cut.count_in(k, 1 << 20, Kernel::Auto, most, NEVER);
                        assert_eq!(chunked, whole, "n={n} {symmetry} {k:?} {most}");
                    }
                }
            }
        }
    }

    /// The quarter turn's weights (forced below the boards that use them): every key's
    /// blocks, whole and in chunks, in each loop, count what the oracle's search weighs,
    /// and the keys' weights sum to the board's solutions.
    #[test]
    fn weighted_keys_count_what_the_oracle_weighs() {
        for n in [7u32, 8, 9, 10, 11, 12, 13, 14, 15, 16] {
            let mut cut = Join::new(n, Symmetry::Full, 1 << 20);
            assert!(!cut.weighted(), "n={n} is below the weighted boards");
            cut.weighted = true;
            // Every key up to 13 (their sum checked), a sample of the larger boards'; the
            // chunked counts on a sample of those.
            let (every, step) = (n <= 13, if n >= 12 { 7 } else { 1 });
            let mut sum = 0u128;
            let keys = keys(n, Symmetry::Full);
            for (i, k) in keys
                .into_iter()
                .enumerate()
                .filter(|(i, _)| every || i % 23 == 0)
            {
                let want = weights::tests::weighed(n, k);
                let got = cut.count(k, 1 << 20, Kernel::Auto);
                assert_eq!(got, want, "n={n} {k:?}");
                sum += got;
                if i % step == 0 {
                    // AVX2's loops too where the CPU has AVX-512 (Auto's), else the same as
                    // Auto's or the plain ones.
                    for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Auto] {
                        for most in [1, 7, 50, 300] {
                            let chunked = cut.count_in(k, 1 << 20, kernel, most, NEVER);
                            assert_eq!(chunked, want, "n={n} {k:?} {kernel} {most}");
                        }
                    }
                }
            }
            if every {
                assert_eq!(Some(sum), published::all(n), "n={n}");
            }
        }
    }

    /// Both sides whole where they and a partition's words fit; else the larger whole where
    /// an eighth of the words is left for the other's chunks; else both in thirds.
    #[test]
    fn even_sides_are_chunked_by_what_fits() {
        assert_eq!(even_chunks(100, 300, 800), (100, 300));
        assert_eq!(even_chunks(200, 300, 800), (200, 300));
        assert_eq!(even_chunks(250, 300, 800), (200, 300));
        assert_eq!(even_chunks(300, 250, 800), (300, 200));
        assert_eq!(even_chunks(100, 380, 800), (266, 266));
        assert_eq!(even_chunks(5, 7, u64::MAX), (5, 7));
    }

    /// An odd board's right side is kept whole as the table where it is the larger and past
    /// `most`, and its two words a half-board leave a quarter of `most` at least for the left
    /// side's chunks, at four words a half-board where the left side is built whole for every
    /// middle row, at three where it is built per middle row.
    #[test]
    fn odd_sides_keep_the_larger_right_side_whole_where_the_left_chunks_fit() {
        assert_eq!(odd_chunks(10, 100, 100, WIDE_LEFT), None, "not past most");
        assert_eq!(odd_chunks(200, 150, 100, WIDE_LEFT), None, "not the larger");
        assert_eq!(odd_chunks(100, 150, 100, WIDE_LEFT), Some(75));
        assert_eq!(odd_chunks(100, 150, 100, NARROW_LEFT), Some(100));
        assert_eq!(odd_chunks(100, 260, 100, NARROW_LEFT), Some(26));
        assert_eq!(
            odd_chunks(100, 260, 100, WIDE_LEFT),
            None,
            "20 left: under a quarter"
        );
        assert_eq!(odd_chunks(5, u64::MAX, 100, WIDE_LEFT), None);
    }

    /// A stored piece meets a queen set's lines exactly where it shares a bit with
    /// `Pieces::meeting`'s mask (which the sizes' count and the build's sieve use), its class
    /// bits set or not: against each middle queen and each top piece of real keys.
    #[test]
    fn a_piece_meets_the_lines_its_mask_says() {
        for n in [13usize, 14] {
            let (cut, h) = (Join::new(n as u32, Symmetry::Full, 1 << 20), n / 2);
            let mut cache = Cache::default();
            let (mut met, mut missed) = (0, 0);
            for k in keys(n as u32, Symmetry::Full).into_iter().step_by(7) {
                let (north, south) = cut.pieces(&mut cache, k.rows, NEVER, &mut |_, _| {});
                let every = |p: &Pieces| -> Vec<u64> {
                    p.sets()
                        .iter()
                        .flat_map(|&s| p.on(s as usize).to_vec())
                        .collect()
                };
                let mut lines: Vec<Lines> = (0..n).map(|m| Lines::of(n, m, h)).collect();
                lines.extend(every(&north).iter().step_by(5).map(|&p| north.lines(p)));
                for &l in &lines {
                    let mask = south.meeting(l);
                    for &q in every(&south).iter().step_by(3) {
                        let meets = south.lines(q).meets(l) != 0;
                        assert_eq!(q & mask != 0, meets, "n={n} {k:?} {q:#x} {l:?}");
                        assert_eq!((q | TAG) & mask != 0, meets, "n={n} {k:?} {q:#x} {l:?}");
                        (met, missed) = (met + usize::from(meets), missed + usize::from(!meets));
                    }
                }
            }
            assert!(
                met > 1000 && missed > 1000,
                "n={n}: {met} met, {missed} missed"
            );
        }
    }

    /// A chunk holds at most `most` half-boards (or one north piece's, where those alone
    /// are more), and the chunks together hold every half-board of the side once: with no
    /// middle queen, and counting only those a middle queen leaves (an odd board's sides
    /// for one middle row). Each chunk holds as many as its sizes counted (`halves::boards`)
    /// where the side was cut, in every loop this CPU has (the build's sieve for a middle
    /// queen takes blocks of a few bottom pieces in tests, `MISSING`, so a span takes many).
    #[test]
    fn chunks_hold_at_most_their_half_boards() {
        for (n, kernel) in [14, 15].into_iter().flat_map(|n| {
            [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512]
                .into_iter()
                .filter(|k| k.resolve().is_ok())
                .map(move |k| (n, k))
        }) {
            let cut = Join::new(n, Symmetry::Full, 1 << 20);
            let mut cache = Cache::default();
            let mut out = Vec::new();
            let isa = Isa::of(kernel);
            let forbids: Vec<Lines> = if n % 2 == 1 {
                let h = n as usize / 2;
                (0..n as usize)
                    .map(|m| Lines::of(n as usize, m, h))
                    .collect()
            } else {
                vec![Lines::default()]
            };
            for k in keys(n, Symmetry::Full).into_iter().step_by(11) {
                for &forbid in &forbids {
                    let side = |cache: &mut Cache, most| {
                        let pieces = cut.pieces(cache, k.rows, NEVER, &mut |_, _| {});
                        cut.sized(pieces, forbid, most, isa).cut(most, None)
                    };
                    let all = side(&mut cache, u64::MAX);
                    assert_eq!(all.chunks.len(), 1);
                    let shape = Shape::new((forbid, None), false, cut.shared());
                    cut.build_chunk(&all, 0, &shape, isa, &mut out);
                    let mut whole = out.clone();
                    whole.sort_unstable();
                    for most in [1, 40, 300] {
                        let side = side(&mut cache, most);
                        let mut built = Vec::new();
                        for c in 0..side.chunks.len() {
                            cut.build_chunk(&side, c, &shape, isa, &mut out);
                            let chunk = &side.chunks[c];
                            let pieces = chunk.spans.iter().map(|s| s.to - s.from).sum::<u32>();
                            assert!(out.len() as u64 <= most || pieces == 1, "{k:?} {most}");
                            // What the budget charged for the chunk: what it holds where
                            // the side was cut (counted), else the pairs' bound.
                            let held = out.len() as u64;
                            assert!(held <= chunk.boards, "{k:?} {most}");
                            assert!(side.chunks.len() == 1 || held == chunk.boards);
                            built.extend_from_slice(&out);
                        }
                        built.sort_unstable();
                        assert_eq!(built, whole, "n={n} {kernel:?} {k:?} {forbid:?} {most}");
                    }
                }
            }
        }
    }

    /// Pieces whose enumeration a set flag cut short are kept nowhere: the next key on the
    /// same rows enumerates them whole.
    #[test]
    fn pieces_cut_short_are_not_kept() {
        let cut = Join::new(22, Symmetry::Full, 1 << 30);
        let mut cache = Cache::default();
        let stop = AtomicBool::new(true);
        let rows = 0b111_1111_0001;
        let short = cache.find(&cut.store, top_rows(22, rows, 11), &stop, &mut |_, _| {});
        let whole = found(&mut cache, &cut.store, top_rows(22, rows, 11));
        let fresh = {
            let mut p = Pieces::default();
            assert!(p.fill(top_rows(22, rows, 11), NEVER, &mut |_| {}));
            p
        };
        let all = |p: &Pieces| {
            (0..1 << 11)
                .flat_map(|c| p.on(c).to_vec())
                .collect::<Vec<_>>()
        };
        assert!(all(&short).len() < all(&fresh).len());
        assert_eq!(all(&whole), all(&fresh));
        assert!(cut.pieces_bytes() > 0);
    }

    /// A row set's pieces are asked room for once, before they are kept and at their size
    /// at least, so that a thread lets go of what it no longer needs first; pieces found
    /// again ask none.
    #[test]
    fn room_is_asked_before_pieces_are_kept() {
        let (store, mut cache) = (Store::new(0), Cache::default());
        let set = top_rows(14, 0b111_0001, 7);
        let mut asked = Vec::new();
        let p = cache.find(&store, set, NEVER, &mut |c: &mut Cache, bytes| {
            asked.push((c.own(), bytes))
        });
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].0, 0, "asked before they were kept");
        assert!(
            asked[0].1 >= p.bytes(),
            "{:?} for {} bytes",
            asked,
            p.bytes()
        );
        let again = cache.find(&store, set, NEVER, &mut |_, _| panic!("found again"));
        assert!(Arc::ptr_eq(&p, &again));
    }

    /// A thread's own pieces (the store keeps none here) are let go least recently used
    /// first, down to the bound; those a count is using are kept whatever it.
    #[test]
    fn a_cache_lets_go_of_idle_pieces_past_its_bound() {
        let store = Store::new(0);
        let mut cache = Cache::default();
        let a = found(&mut cache, &store, top_rows(14, 0b111_0001, 7));
        let b = found(&mut cache, &store, top_rows(14, 0b101_0101, 7));
        let c = found(&mut cache, &store, top_rows(14, 0b110_0011, 7));
        let (a_bytes, b_bytes, c_bytes) = (a.bytes(), b.bytes(), c.bytes());
        assert!(a_bytes > 0 && b_bytes > 0 && c_bytes > 0);
        assert_eq!(cache.own(), a_bytes + b_bytes + c_bytes);
        assert_eq!(store.bytes(), 0);
        drop(b);
        cache.trim(0);
        assert_eq!(cache.own(), a_bytes + c_bytes, "only b was idle");
        drop((a, c));
        cache.trim(c_bytes);
        assert_eq!(cache.own(), c_bytes, "a, the older, goes first");
        let again = found(&mut cache, &store, top_rows(14, 0b110_0011, 7));
        assert_eq!(again.bytes(), c_bytes, "c is still found here");
        assert_eq!(cache.own(), c_bytes);
        drop(again);
        // Pieces the store keeps are not the thread's, until the store is gone.
        let kept = Store::new(1 << 30);
        let d = found(&mut cache, &kept, top_rows(14, 0b100_0111, 7));
        assert_eq!((kept.bytes(), cache.own()), (d.bytes(), c_bytes));
        let d_bytes = d.bytes();
        drop((d, kept));
        assert_eq!(cache.own(), c_bytes + d_bytes);
        cache.trim(0);
        assert_eq!(cache.own(), 0);
    }

    #[test]
    fn a_small_budget_slices_the_table_and_keeps_the_count() {
        let cut = Join::new(14, Symmetry::Full, 0);
        for k in keys(14, Symmetry::Full).into_iter().step_by(37) {
            assert_eq!(
                cut.count(k, 0, Kernel::Scalar),
                search(14, Symmetry::Full, k, Kernel::Scalar)
            );
        }
    }
}
