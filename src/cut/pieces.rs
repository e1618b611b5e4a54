//! The placements inside each quadrant of the left half, enumerated once per board and
//! stored by the rows and columns they use.

use super::halves::Lines;

/// The placements inside one quadrant of the left half (rows `first..first + rows`,
/// columns `0..width`), by the rows and columns they use: the pieces of index
/// `rows_used << width | cols_used` are `pieces[offsets[i]..offsets[i + 1]]`. A piece is
/// stored as its diagonals relative to the quadrant's lowest ones, down-right in the low
/// half of the word, down-left in the high half ([`Quadrant::lines`] restores them).
pub(super) struct Quadrant {
    pub(super) width: usize,
    /// Down-right and down-left index of bit 0 of each half.
    pub(super) low: (usize, usize),
    pub(super) offsets: Vec<u32>,
    pub(super) pieces: Vec<u64>,
}

impl Quadrant {
    /// The quadrant's offsets, its pieces counted but not stored.
    pub(super) fn counted(n: usize, first: usize, rows: usize, width: usize) -> Quadrant {
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
    pub(super) fn fill(&mut self, n: usize, first: usize, rows: usize) {
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
    pub(super) fn pieces(&self, rows: usize, cols: usize) -> &[u64] {
        let i = rows << self.width | cols;
        &self.pieces[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// A stored piece's lines on the board.
    #[inline(always)]
    pub(super) fn lines(&self, piece: u64) -> Lines {
        Lines {
            down_right: (piece & 0xffff_ffff) << self.low.0,
            down_left: (piece >> 32) << self.low.1,
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.offsets.len() * 4 + self.pieces.len() * 8
    }
}
