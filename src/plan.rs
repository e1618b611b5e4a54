//! The plan of a board: its subproblems in a fixed order, what each costs, and how one is
//! counted.
//!
//! A subproblem's index in [`Plan::subproblems`] is its identity in checkpoints and shard
//! results; [`Plan::fingerprint`] guards against a list that changed between runs.

use std::sync::OnceLock;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::schedule::Schedule;
use crate::split::{self, Root, Subproblem};
use crate::types::{
    Counts, DEFAULT_MEMORY, Error, Kernel, MAX_SUBPROBLEMS, Method, Symmetry, Tally, validate,
};
use crate::{join, symmetry};

/// The boards `auto` joins: measured on Zen 4 with 2 threads (results/README.md), the join
/// at its default split depth took 0.04-0.05 s at n = 15 against 0.06 s searching, 0.24 s
/// against 0.30 s at n = 16, 1.07 s against 2.03 s at n = 17, 7.5 s against 16 s at
/// n = 18, 69 s against 129 s at n = 19 and 701 s against 1515 s at n = 20 (916 MB). Below
/// 14 both take milliseconds; larger boards are searched until the join is measured there
/// within the default memory.
pub const JOIN_FASTER: std::ops::RangeInclusive<u32> = 14..=20;

/// The cost model of [`Plan::costs`] (it decides which subproblems a shard gets), named so
/// that files made under another one are refused: it goes into [`Plan::fingerprint`].
pub const COST_MODEL: &str = "nodes-4-levels-below";

/// What a plan is, as checkpoints and shard results record it: equal for equal plans.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// The nqueens version that made the file (files of other versions are refused).
    pub nqueens: String,
    /// The counting method (`search` or `join`).
    pub method: String,
    /// Board size.
    pub n: u32,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Split depth.
    pub split_depth: usize,
    /// Number of subproblems in the whole plan.
    pub subproblems: usize,
    /// [`Plan::fingerprint`] of the plan.
    pub fingerprint: u32,
}

impl Config {
    /// The configuration in words, for messages.
    pub fn describe(&self) -> String {
        format!(
            "n = {}, symmetry {}, split depth {}, {} subproblems (fingerprint {:08x}; nqueens {}, method {})",
            self.n,
            self.symmetry,
            self.split_depth,
            self.subproblems,
            self.fingerprint,
            self.nqueens,
            self.method
        )
    }
}

/// The subproblems of one board, mode and split depth, in a fixed order.
pub struct Plan {
    /// Board size.
    pub n: u32,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Rows placed before the split (depths 0 and 1 cut the same subproblems; at 0 they run
    /// one after another on one thread).
    pub split_depth: usize,
    /// The roots the subproblems come from.
    pub roots: Vec<Root>,
    /// The subproblems, in order.
    pub subproblems: Vec<Subproblem>,
    /// How each subproblem is counted (`Search` or `Join`, resolved for `n`).
    pub method: Method,
    /// Bytes one subproblem's join may use (one thread's share of the budget).
    pub join_budget: usize,
    /// [`Plan::costs`], computed once when first asked for.
    costs: OnceLock<Vec<u64>>,
}

impl Plan {
    /// The plan of an `n`-board; errors when `n` or the depth is out of range, or when the
    /// depth would cut more than [`MAX_SUBPROBLEMS`] subproblems.
    pub fn new(n: u32, symmetry: Symmetry, split_depth: usize) -> Result<Plan, Error> {
        validate(n, split_depth)?;
        let roots = split::roots(n, symmetry);
        let subproblems: Vec<Subproblem> =
            split::Subproblems::new(n, &roots, split_depth.saturating_sub(1))
                .take(MAX_SUBPROBLEMS + 1)
                .collect();
        if subproblems.len() > MAX_SUBPROBLEMS {
            return Err(Error::TooManySubproblems {
                depth: split_depth,
                n,
                limit: MAX_SUBPROBLEMS,
            });
        }
        Ok(Plan {
            n,
            symmetry,
            split_depth,
            roots,
            subproblems,
            method: Method::Search,
            join_budget: DEFAULT_MEMORY,
            costs: OnceLock::new(),
        })
    }

    /// The same plan counted with `method` (`Auto` resolved for the board: `Join` where it
    /// was measured faster, [`JOIN_FASTER`], `Search` otherwise).
    pub fn with_method(mut self, method: Method) -> Plan {
        self.method = match method {
            Method::Auto if JOIN_FASTER.contains(&self.n) => Method::Join,
            Method::Auto => Method::Search,
            m => m,
        };
        self
    }

    /// The same plan with `bytes` for each subproblem's join.
    pub fn with_join_budget(mut self, bytes: usize) -> Plan {
        self.join_budget = bytes;
        self
    }

    /// Number of independent subproblems reported for the plan: 1 when not split.
    pub fn reported_subproblems(&self) -> u64 {
        if self.split_depth == 0 {
            1
        } else {
            self.subproblems.len() as u64
        }
    }

    /// A checksum of what the plan counts and how it is cut: the board, the mode, each root
    /// (the queens it fixes, the squares it closes, its weight), the cost model and the
    /// subproblem list. Equal plans have equal fingerprints.
    pub fn fingerprint(&self) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.n.to_le_bytes());
        h.update(self.symmetry.name().as_bytes());
        h.update(COST_MODEL.as_bytes());
        for root in &self.roots {
            let (queens, forbid) = root.layout(self.n);
            h.update(&[root.weight, queens.len() as u8]);
            for (r, c) in queens {
                h.update(&[r, c]);
            }
            for row in forbid {
                h.update(&row.to_le_bytes());
            }
        }
        for t in &self.subproblems {
            let st = t.state;
            h.update(&t.root.to_le_bytes());
            h.update(&(st.level as u32).to_le_bytes());
            for x in [st.cols, st.ld, st.rd] {
                h.update(&x.to_le_bytes());
            }
        }
        h.finalize()
    }

    /// What the plan is, as files record it.
    pub fn config(&self) -> Config {
        Config {
            nqueens: env!("CARGO_PKG_VERSION").to_string(),
            method: self.method.name().to_string(),
            n: self.n,
            symmetry: self.symmetry,
            split_depth: self.split_depth,
            subproblems: self.subproblems.len(),
            fingerprint: self.fingerprint(),
        }
    }

    /// Counts subproblem `i` with the plan's method and `kernel` (the loop of the search,
    /// and of the join where it searches). Subproblems whose boards are classified one by
    /// one are always searched.
    pub fn count(&self, i: usize, kernel: Kernel) -> Tally {
        let sub = &self.subproblems[i];
        let root = &self.roots[sub.root as usize];
        let s = root.schedule(self.n);
        if !root.classifies() {
            let c = match self.method {
                Method::Join => join::count(&s, sub.state, self.join_budget, kernel),
                _ => kernel.count(&s, sub.state),
            };
            return Tally {
                solutions: u128::from(root.weight) * c,
                unique8: 8 * c,
            };
        }
        // Each completion is weighed by its own constellation's symmetry.
        let mut tally = Tally::default();
        kernel.walk(&s, sub.state, &sub.prefix, &mut |board| {
            if let Some((weight, fixed)) = symmetry::classify(board) {
                tally.solutions += u128::from(weight);
                tally.unique8 += u128::from(weight * fixed);
            }
            true
        });
        tally
    }

    /// A relative estimate of each subproblem's cost: the number of nodes a few levels below
    /// it. Subtree sizes vary by orders of magnitude; this tracks them well enough to order
    /// the subproblems, weight an ETA and balance shards. Computed once per plan.
    pub fn costs(&self) -> &[u64] {
        self.costs.get_or_init(|| {
            let schedules: Vec<Schedule> = self.roots.iter().map(|r| r.schedule(self.n)).collect();
            self.subproblems
                .par_iter()
                .map(|t| {
                    let s = &schedules[t.root as usize];
                    1 + s.nodes_below(t.state, (t.state.level + 4).min(s.levels))
                })
                .collect()
        })
    }

    /// The counts of the whole board from the sum over all its subproblems.
    pub fn counts(&self, tally: Tally, threads: usize, elapsed_s: f64) -> Counts {
        let unique = (self.symmetry == Symmetry::Full).then(|| {
            debug_assert_eq!(tally.unique8 % 8, 0, "Burnside sums are multiples of 8");
            tally.unique8 / 8
        });
        Counts {
            n: self.n,
            solutions: tally.solutions,
            unique,
            threads,
            split_depth: self.split_depth,
            symmetry: self.symmetry,
            subproblems: self.reported_subproblems(),
            elapsed_s,
        }
    }
}
