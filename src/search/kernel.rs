//! The one interface over the counting loops: which loop runs ([`Kernel`], resolved once
//! per run) and what it does below a node of a [`Schedule`]: count the completions, or walk
//! them in lexicographic order.
//!
//! The engine ([`crate::run::plan`]) and listing ([`crate::solve`]) call only these. Each loop's
//! own feeding, how it is handed subtrees, lives beside it: [`crate::search::scalar`] searches one
//! subtree at a time, [`crate::search::simd`] cuts a subtree into batches for its lanes (sixteen
//! with AVX-512, eight with AVX2) and declines (the scalar loop then runs) where the CPU or
//! the subtree does not suit them.

use crate::search::schedule::{Schedule, State};
use crate::search::simd::Lanes;
use crate::search::{scalar, simd};
use crate::types::{Error, Kernel};

impl Kernel {
    /// The loop that will actually run: `Auto` resolved for this CPU; a SIMD loop on a CPU
    /// without its instructions is an error.
    pub fn resolve(self) -> Result<Kernel, Error> {
        match self {
            // Widest first: more lanes a step count faster (results/zen4/2026-11-22-search-loops/).
            Kernel::Auto if Lanes::Avx512.available() => Ok(Kernel::Avx512),
            Kernel::Auto if Lanes::Avx2.available() => Ok(Kernel::Avx2),
            Kernel::Auto => Ok(Kernel::Scalar),
            k => match k.lanes() {
                Some(lanes) if !lanes.available() => Err(Error::Kernel {
                    asked: k,
                    has: Kernel::available(),
                }),
                _ => Ok(k),
            },
        }
    }

    /// The loops this CPU can run, widest first, then `Auto`.
    pub fn available() -> Vec<Kernel> {
        [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar, Kernel::Auto]
            .into_iter()
            .filter(|k| k.lanes().is_none_or(|lanes| lanes.available()))
            .collect()
    }

    /// The SIMD lanes this choice runs, if any (`Auto` as [`Kernel::resolve`] picks).
    pub fn lanes(self) -> Option<Lanes> {
        match self {
            Kernel::Avx512 => Some(Lanes::Avx512),
            Kernel::Avx2 => Some(Lanes::Avx2),
            Kernel::Scalar => None,
            Kernel::Auto => self.resolve().ok().and_then(Kernel::lanes),
        }
    }

    /// Number of ways to complete the board below `start`, exact at any size.
    pub fn count(self, s: &Schedule, start: State) -> u128 {
        self.lanes()
            .and_then(|lanes| simd::count_below(s, start, lanes))
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
        let in_lanes = self
            .lanes()
            .is_some_and(|lanes| simd::walk_below(s, start, prefix, visit, lanes));
        if !in_lanes {
            scalar::walk(s, start, prefix, visit);
        }
    }
}
