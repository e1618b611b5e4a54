//! The one interface over the counting loops: which loop runs ([`Kernel`], resolved once
//! per run) and what it does below a node of a [`Schedule`]: count the completions, or walk
//! them in lexicographic order.
//!
//! The engine ([`crate::plan`]) and listing ([`crate::list`]) call only these. Each loop's
//! own feeding, how it is handed subtrees, lives beside it: [`crate::scalar`] searches one
//! subtree at a time, [`crate::simd`] cuts a subtree into batches for its sixteen lanes and
//! declines (the scalar loop then runs) where the CPU or the subtree does not suit them.

use crate::schedule::{Schedule, State};
use crate::types::{Error, Kernel};
use crate::{scalar, simd};

impl Kernel {
    /// The loop that will actually run: `Auto` resolved for this CPU; `Avx512` on a CPU
    /// without it is an error.
    pub fn resolve(self) -> Result<Kernel, Error> {
        match self {
            Kernel::Auto if simd::available() => Ok(Kernel::Avx512),
            Kernel::Auto => Ok(Kernel::Scalar),
            Kernel::Avx512 if !simd::available() => Err(Error::Kernel),
            k => Ok(k),
        }
    }

    /// Number of ways to complete the board below `start`, exact at any size.
    pub fn count(self, s: &Schedule, start: State) -> u128 {
        self.lanes()
            .and_then(|()| simd::count_below(s, start))
            .unwrap_or_else(|| scalar::count(s, start))
    }

    /// Calls `visit` with each completed board below `start` (`n` entries, the column of the
    /// queen in each row, the fixed queens included), in increasing lexicographic order,
    /// until `visit` returns false. `prefix[..start.level]` holds the columns already placed
    /// on the levels above `start`.
    pub fn walk<F: FnMut(&[u8]) -> bool>(
        self,
        s: &Schedule,
        start: State,
        prefix: &[u8],
        visit: &mut F,
    ) {
        let lanes = self.lanes().is_some() && simd::walk_below(s, start, prefix, visit);
        if !lanes {
            scalar::walk(s, start, prefix, visit);
        }
    }

    /// `Some` when this choice may run the SIMD lanes (they still decline where the CPU
    /// lacks them).
    fn lanes(self) -> Option<()> {
        matches!(self, Kernel::Avx512 | Kernel::Auto).then_some(())
    }
}
