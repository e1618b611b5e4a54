//! Pieces: the placements inside one quadrant of the left half on a given set of its rows,
//! one queen on each of those rows, grouped by the columns they use. A key's half-boards
//! are built from the pieces on its own rows, enumerated when the key is counted (and kept
//! in a small cache for the keys after it), so that nothing is built for the whole board up
//! front: a process holds only the pieces of the keys it is counting.
//!
//! ```text
//! pieces(rows):
//!     if the cache or the store holds them: return them
//!     walk the quadrant's rows in order, one queen a row on a free column and diagonal
//!     group the placements by the column set they use, each with its diagonals (Lines)
//! ```

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::word::{TAG, TAG_BITS, TAG_SHIFT};

/// A queen set's diagonals as bits: `r - c + n - 1` (down-right) and `r + c` (down-left).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(super) struct Lines {
    pub(super) down_right: u64,
    pub(super) down_left: u64,
}

impl Lines {
    /// The lines of a queen on row `r`, column `c` of an `n`-board.
    pub(super) fn of(n: usize, r: usize, c: usize) -> Lines {
        Lines {
            down_right: 1 << (r + n - 1 - c),
            down_left: 1 << (r + c),
        }
    }

    /// The diagonals both sets take (any bit set: they meet).
    pub(super) fn meets(self, o: Lines) -> u64 {
        self.down_right & o.down_right | self.down_left & o.down_left
    }

    /// The diagonals either set takes.
    pub(super) fn with(self, o: Lines) -> Lines {
        Lines {
            down_right: self.down_right | o.down_right,
            down_left: self.down_left | o.down_left,
        }
    }
}

/// The placements of one queen on each row of `rows` (bit `i`: row `first + i`) in columns
/// `0..width`, none attacking another, grouped by the columns they use: those on column set
/// `cols` are `pieces[offsets[cols]..offsets[cols + 1]]`. A piece is stored as its
/// diagonals relative to the quadrant's lowest ones, down-right in the low half of the
/// word, down-left in the high half ([`Pieces::lines`] restores them).
#[derive(Default)]
pub(super) struct Pieces {
    /// The board, the quadrant's first row and the rows (relative to it) these pieces
    /// cover: what they are, for the cache.
    n: usize,
    first: usize,
    rows: u32,
    width: usize,
    /// Whether each piece on the quadrant's first row carries that queen's class ([`TAG`]).
    tagged: bool,
    /// Down-right and down-left index of bit 0 of each half.
    pub(super) low: (usize, usize),
    offsets: Vec<u32>,
    pieces: Vec<u64>,
    /// The column sets that have pieces, in increasing order.
    sets: Vec<u32>,
}

/// A row set of a quadrant: the rows `rows` (relative to `first`) of an `n`-board's quadrant
/// whose rows start at `first`, in columns `0..width`, its pieces `tagged` with their
/// classes or not ([`Pieces::fill`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RowSet {
    pub n: usize,
    pub first: usize,
    pub rows: u32,
    pub width: usize,
    pub tagged: bool,
}

impl Pieces {
    /// Enumerates the pieces of row set `set`: an `n`-board's quadrant whose rows start at
    /// `first`, on its rows `rows` (relative to `first`), in columns `0..width`; or, where `stop` is set
    /// before the end, none, and returns false: they must be neither kept nor used
    /// for a count that stands (at n = 27 a row set takes seconds, which would run
    /// `estimate` past its `--seconds`).
    ///
    /// Where `tagged` (an odd board's bottom quadrant, whose first row is the middle one, in
    /// a join that weighs its solutions), a piece with a queen on that row carries its
    /// class in its top bits ([`TAG`]): the queen's distance from the middle column
    /// (`weights::from_middle`).
    ///
    /// Once counted, and before they are put in place, `room` is told the bytes they will
    /// take, so that the thread can let go of what it no longer needs first.
    pub(super) fn fill(
        &mut self,
        set: RowSet,
        stop: &AtomicBool,
        room: &mut dyn FnMut(usize),
    ) -> bool {
        let RowSet {
            n,
            first,
            rows,
            width,
            tagged,
        } = set;
        debug_assert!(width < 1 << TAG_BITS && rows < 1 << 16);
        self.n = n;
        self.first = first;
        self.rows = rows;
        self.width = width;
        self.tagged = tagged;
        self.low = ((first + n).saturating_sub(width), first);
        let on: Vec<usize> = (0..16).filter(|i| rows >> i & 1 == 1).collect();
        let walk = Walk {
            n,
            first,
            width,
            low: self.low,
            on: &on,
            tag_first: tagged && rows & 1 == 1,
            stop,
        };
        // Twice: the pieces on each column set counted, then each put in its place (a
        // counting sort, each column set's pieces in the order found), so that they take
        // only what they are kept in: found once, they would take a word and a column set
        // each grown by doubling, then the sorted copy (at n = 28 about 500 MB for a row set
        // of 21 million pieces). The second walk costs about 1% of a large count.
        self.offsets.clear();
        self.offsets.resize((1 << width) + 1, 0);
        let offsets = &mut self.offsets;
        let counted = walk.each(|cols, _| offsets[cols + 1] += 1);
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let total = offsets[offsets.len() - 1] as usize;
        if counted {
            // Their words, the copy of the offsets the placing walk moves and the column sets.
            room(total * 8 + offsets.len() * 8);
        }
        let mut pieces = vec![0; total];
        let mut at = offsets.clone();
        let placed = counted
            && walk.each(|cols, word| {
                pieces[at[cols] as usize] = word;
                at[cols] += 1;
            });
        if !placed {
            // None at all, on every column set.
            self.pieces = Vec::new();
            self.offsets.clear();
            self.offsets.resize((1 << width) + 1, 0);
            self.sets.clear();
            return false;
        }
        self.pieces = pieces;
        self.sets = (0..1u32 << width)
            .filter(|&c| self.offsets[c as usize + 1] > self.offsets[c as usize])
            .collect();
        true
    }

    /// Whether these are the pieces of an `n`-board on `rows` of the quadrant starting at
    /// `first`, in columns `0..width`.
    fn covers(&self, set: RowSet) -> bool {
        let what = RowSet {
            n: self.n,
            first: self.first,
            rows: self.rows,
            width: self.width,
            tagged: self.tagged,
        };
        !self.offsets.is_empty() && what == set
    }

    /// The pieces on column set `cols`.
    pub(super) fn on(&self, cols: usize) -> &[u64] {
        &self.pieces[self.offsets[cols] as usize..self.offsets[cols + 1] as usize]
    }

    /// A stored piece's lines on the board (its tag left out).
    #[inline(always)]
    pub(super) fn lines(&self, piece: u64) -> Lines {
        Lines {
            down_right: (piece & 0xffff_ffff) << self.low.0,
            down_left: ((piece & !TAG) >> 32) << self.low.1,
        }
    }

    /// The bits of a stored piece that would put it on one of `lines`' diagonals: piece `q`
    /// meets `lines` (`self.lines(q).meets(lines)`) exactly where `q & self.meeting(lines)`
    /// is not zero. One AND a piece, where [`Pieces::lines`] takes four shifts and masks.
    pub(super) fn meeting(&self, lines: Lines) -> u64 {
        let down_right = (lines.down_right >> self.low.0) & 0xffff_ffff;
        let down_left = ((lines.down_left >> self.low.1) << 32) & !TAG;
        down_right | down_left
    }

    /// How many pieces there are.
    pub(super) fn len(&self) -> usize {
        self.pieces.len()
    }

    /// The column sets that have pieces, in increasing order (a few of the `2^width`: the
    /// pieces of a row set all take as many columns as it has rows).
    pub(super) fn sets(&self) -> &[u32] {
        &self.sets
    }

    /// Bytes these pieces take: their buffers, and what holds them (this struct, the
    /// `Arc`'s counts and the store's map entry: at n = 23, 526 row sets' worth of them take
    /// about 90 KB, enough to take a small thread's share past its budget).
    pub(super) fn bytes(&self) -> usize {
        let buffers = (self.offsets.capacity() + self.sets.capacity()) * 4;
        buffers + self.pieces.capacity() * 8 + std::mem::size_of::<Pieces>() + HELD_BY
    }
}

/// Bytes beside a row set's [`Pieces`] that keeping them takes: an `Arc`'s two counts
/// (16) and the store's map entry (its key and the `Arc`, 24, and a control byte, in a table
/// whose load can be as low as 7/16 just after it grows).
const HELD_BY: usize = 16 + 64;

/// The walk [`Pieces::fill`] takes over a row set's placements.
struct Walk<'a> {
    n: usize,
    first: usize,
    width: usize,
    low: (usize, usize),
    /// The rows of the set, relative to `first`.
    on: &'a [usize],
    /// Whether a piece with a queen on the first row carries its class.
    tag_first: bool,
    stop: &'a AtomicBool,
}

impl Walk<'_> {
    /// Calls `found` with each piece's column set and word, depth first over the rows of
    /// the set (a queen on a free column of each, its diagonals clear of the queens above),
    /// in the same order every time; false where `stop` cut it short.
    fn each(&self, mut found: impl FnMut(usize, u64)) -> bool {
        let (n, width, low) = (self.n, self.width, self.low);
        let mut stack = vec![(0usize, 0u32, Lines::default(), 0u64)];
        let mut steps = 0u32;
        while let Some((i, cols, lines, tag)) = stack.pop() {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(STOP_STEPS) && self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let Some(&row) = self.on.get(i) else {
                let word = lines.down_right >> low.0 | (lines.down_left >> low.1) << 32;
                debug_assert_eq!(word & TAG, 0);
                found(cols as usize, word | tag);
                continue;
            };
            // The columns free of the queens above: a queen on column `c` of row `r` is on
            // down-left diagonal `r + c` and down-right diagonal `r + n - 1 - c` (bit
            // `width - 1 - c` of the lines shifted down by `r + n - width`, reversed).
            let r = self.first + row;
            let all = (1u64 << width) - 1;
            let left = lines.down_left >> r;
            let right = (lines.down_right >> (r + n - width) & all).reverse_bits() >> (64 - width);
            let mut free = all & !u64::from(cols) & !left & !right;
            while free != 0 {
                let c = free.trailing_zeros() as usize;
                free &= free - 1;
                let queen = Lines::of(n, r, c);
                debug_assert_eq!(lines.meets(queen), 0);
                let tag = if i == 0 && self.tag_first {
                    u64::from(super::weights::from_middle(width, c)) << TAG_SHIFT
                } else {
                    tag
                };
                stack.push((i + 1, cols | 1 << c, lines.with(queen), tag));
            }
        }
        true
    }
}

/// Steps of the enumeration between two reads of its stop flag (microseconds' worth).
const STOP_STEPS: u32 = 1 << 12;

/// The pieces of the row sets the run has used, shared by its threads, while they fit a
/// byte budget: each is enumerated once (up to n = 21 every row set's fit the default 2 GiB
/// budget's share; beyond, the first ones do and the rest are kept per thread by [`Cache`]).
pub(super) struct Store {
    kept: Mutex<HashMap<(usize, u32), Arc<Pieces>>>,
    bytes: AtomicUsize,
    budget: usize,
}

impl Store {
    /// An empty store that keeps pieces up to `budget` bytes.
    pub(super) fn new(budget: usize) -> Store {
        Store {
            kept: Mutex::new(HashMap::new()),
            bytes: AtomicUsize::new(0),
            budget,
        }
    }

    /// Bytes the kept pieces take.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Bytes the store may keep.
    pub(super) fn budget(&self) -> usize {
        self.budget
    }
}

/// Pieces a thread enumerated: how many row sets' worth, the seconds it took and the bytes
/// they take ([`enumerated`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Enumerated {
    /// Row sets enumerated.
    pub row_sets: u64,
    /// Seconds spent enumerating them.
    pub seconds: f64,
    /// Bytes their pieces take.
    pub bytes: u64,
}

impl std::ops::Sub for Enumerated {
    type Output = Enumerated;
    fn sub(self, o: Enumerated) -> Enumerated {
        Enumerated {
            row_sets: self.row_sets - o.row_sets,
            seconds: self.seconds - o.seconds,
            bytes: self.bytes - o.bytes,
        }
    }
}

thread_local! {
    static ENUMERATED: std::cell::Cell<Enumerated> = const {
        std::cell::Cell::new(Enumerated { row_sets: 0, seconds: 0.0, bytes: 0 })
    };
}

/// The pieces this thread has enumerated so far (the estimate counts them apart: a run
/// that keeps every row set's pieces enumerates each once, however many keys use it).
pub fn enumerated() -> Enumerated {
    ENUMERATED.with(|e| e.get())
}

/// The pieces a thread used last, in front of the [`Store`]: consecutive keys share most
/// of theirs (a key's middle rows, its neighbours). Those the store does not keep are the
/// thread's own, and count against its share of the memory: [`Cache::trim`] lets go of
/// the least recently used where they pass a bound (at n = 28 a row set's pieces take
/// over 100 MB).
#[derive(Default)]
pub(super) struct Cache {
    slots: Vec<Slot>,
    clock: u64,
}

/// A row set's pieces in a [`Cache`], when they were last asked for, and whether the
/// store keeps them too.
struct Slot {
    used: u64,
    pieces: Arc<Pieces>,
    shared: bool,
}

impl Slot {
    /// Whether these pieces are the thread's own: the store does not keep them, or no
    /// longer (a thread's cache outlives the cut whose store it was: nothing but the
    /// cache holds them then).
    fn own(&self) -> bool {
        !self.shared || Arc::strong_count(&self.pieces) == 1
    }
}

/// What [`Cache::find`] asks before it puts a row set's enumerated pieces in place: room for
/// that many bytes more in the thread's budget.
pub(super) type MakeRoom<'a> = &'a mut dyn FnMut(&mut Cache, usize);

/// Row sets a thread's cache keeps at most: more than one key asks for (its two sides'
/// two quadrants, and on an odd board one right side per middle row), so that the
/// pieces a count is using are always in it, where [`Cache::own`] counts them.
const SLOTS: usize = 40;

impl Cache {
    /// The pieces of row set `set` (an `n`-board's `rows` of the quadrant starting at
    /// `first`, in columns `0..width`, `tagged` as [`Pieces::fill`] says): from this cache, else from `store`,
    /// else enumerated (and kept in the store where its budget allows). Where `stop` cut
    /// the enumeration short, none of them, kept nowhere: the count they go into is
    /// dropped. Before enumerated pieces are put in place, `room` is given this cache and
    /// the bytes they will take ([`Pieces::fill`]): it may let go of idle pieces
    /// ([`Cache::trim`]) and of the thread's other buffers.
    pub(super) fn find(
        &mut self,
        store: &Store,
        set: RowSet,
        stop: &AtomicBool,
        room: MakeRoom,
    ) -> Arc<Pieces> {
        let (first, rows) = (set.first, set.rows);
        self.clock += 1;
        if let Some(slot) = self.slots.iter_mut().find(|s| s.pieces.covers(set)) {
            slot.used = self.clock;
            return slot.pieces.clone();
        }
        let kept = |s: &Store| {
            let map = s.kept.lock().unwrap_or_else(|e| e.into_inner());
            map.get(&(first, rows)).cloned()
        };
        let (pieces, shared) = match kept(store) {
            Some(p) => (p, true),
            None => {
                let start = Instant::now();
                let mut p = Pieces::default();
                let whole = p.fill(set, stop, &mut |bytes| room(self, bytes));
                let p = Arc::new(p);
                let size = p.bytes();
                ENUMERATED.with(|e| {
                    let mut t = e.get();
                    t.row_sets += 1;
                    t.seconds += start.elapsed().as_secs_f64();
                    t.bytes += size as u64;
                    e.set(t);
                });
                if !whole {
                    // Cut short by `stop`: kept neither here nor in the store.
                    return p;
                }
                if store.bytes.fetch_add(size, Ordering::Relaxed) + size <= store.budget {
                    let mut map = store.kept.lock().unwrap_or_else(|e| e.into_inner());
                    match map.entry((first, rows)) {
                        // Another thread enumerated them meanwhile: its copy is the kept
                        // one, and this one's bytes were never the store's.
                        Entry::Occupied(kept) => {
                            store.bytes.fetch_sub(size, Ordering::Relaxed);
                            (kept.get().clone(), true)
                        }
                        Entry::Vacant(place) => {
                            place.insert(p.clone());
                            (p, true)
                        }
                    }
                } else {
                    store.bytes.fetch_sub(size, Ordering::Relaxed);
                    (p, false)
                }
            }
        };
        let slot = Slot {
            used: self.clock,
            pieces: pieces.clone(),
            shared,
        };
        if self.slots.len() < SLOTS {
            self.slots.push(slot);
        } else if let Some(oldest) = self.slots.iter_mut().min_by_key(|s| s.used) {
            *oldest = slot;
        }
        pieces
    }

    /// Bytes of the pieces this cache holds that the store does not: the thread's own.
    pub(super) fn own(&self) -> usize {
        let own = self.slots.iter().filter(|s| s.own());
        own.map(|s| s.pieces.bytes()).sum()
    }

    /// Lets go of the least recently used of the thread's own pieces that no count is
    /// using (nothing but this cache holds them) until they take at most `most` bytes, or
    /// none is left to let go of.
    pub(super) fn trim(&mut self, most: usize) {
        let mut own = self.own();
        while own > most {
            let idle = self
                .slots
                .iter()
                .enumerate()
                // Held by nothing else: neither the store nor a count.
                .filter(|(_, s)| Arc::strong_count(&s.pieces) == 1)
                .min_by_key(|(_, s)| s.used);
            let Some((i, _)) = idle else { return };
            own -= self.slots.swap_remove(i).pieces.bytes();
        }
    }
}
