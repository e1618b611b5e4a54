//! The plan of a board: its parts (the search's subproblems or the join's keys) in a fixed
//! order, what each costs, and how one is counted.
//!
//! A part's index in the plan's parts is its identity in checkpoints and shard
//! results; [`Plan::fingerprint`] guards against a list that changed between runs.

use std::ops::ControlFlow;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::join::{self, Join, Key};
use crate::search::roots::{self, Root, Subproblem};
use crate::search::schedule::{Schedule, State};
use crate::search::symmetry;
use crate::types::{
    Counts, DEFAULT_MEMORY, Error, Kernel, Loops, MAX_SUBPROBLEMS, Method, Symmetry, Tally,
    validate,
};

/// The boards `auto` joins: from n = 10, where the join starts to beat the search, up to
/// [`join::MAX_CUT_N`]. The join's lead grows with n, and at n = 28 the search's parts
/// take hours each. Below 10 both take well under a millisecond
/// (results/zen4/2026-11-22-vertical-cut-join/).
pub const JOIN_FASTER: std::ops::RangeInclusive<u32> = 10..=join::MAX_CUT_N;

/// A thread's share of a join's memory below which the pieces get the most of it
/// ([`Plan::split_memory`]).
pub const SMALL_SHARE: usize = 64 << 20;

/// The cost model of [`Plan::costs`] (it decides which subproblems a shard gets), named so
/// that files made under another one are refused: it goes into [`Plan::fingerprint`].
pub const COST_MODEL: &str =
    "nodes-4-levels-below; cut estimated half-boards l + r + l * r / 512 per middle row";

impl Method {
    /// The method that counts an `n`-board: `Auto` joins the boards of [`JOIN_FASTER`] and
    /// searches the rest, whatever the machine; `Search` and `Join` are what they say.
    pub fn resolve(self, n: u32) -> Method {
        match self {
            Method::Auto if JOIN_FASTER.contains(&n) => Method::Join,
            Method::Auto => Method::Search,
            m => m,
        }
    }
}

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
    /// Whether files of `self` and `other` hold parts of one plan: the same configuration,
    /// but for the split depth where the join counts (its parts are its keys at any depth,
    /// so join shards and checkpoints made with different `--split-depth`s go together).
    pub fn same_plan(&self, other: &Config) -> bool {
        let joined = self.method == Method::Join.name();
        let depth = |c: &Config| if joined { 0 } else { c.split_depth };
        Config {
            split_depth: depth(self),
            ..self.clone()
        } == Config {
            split_depth: depth(other),
            ..other.clone()
        }
    }

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

/// How a plan cuts the board into parts.
pub(crate) enum Parts {
    /// The search's roots (queens fixed by the symmetry mode) and their subproblems (the
    /// first free rows filled).
    Rows {
        /// The roots the subproblems come from.
        roots: Vec<Root>,
        /// The subproblems, in order.
        subproblems: Vec<Subproblem>,
    },
    /// The join's keys (the rows of the left half's queens, one per orbit), and in full mode
    /// one more part last: the solutions the other symmetries fix, for Burnside's count.
    Columns {
        /// How the board is cut, and the pieces kept for the threads.
        cut: Join,
        /// The keys, in order.
        keys: Vec<Key>,
        /// Keys per part: consecutive keys are grouped where there are more than a plan's
        /// [`MAX_SUBPROBLEMS`] (2 at n = 27), else 1.
        group: usize,
        /// [`Plan::costs`] of the parts (and the symmetric part), estimated with the plan.
        costs: Vec<u64>,
    },
}

/// The parts of one board, mode and split depth, in a fixed order.
pub struct Plan {
    /// Board size.
    pub n: u32,
    /// Symmetry mode.
    pub symmetry: Symmetry,
    /// Rows placed before the split (depths 0 and 1 cut the same subproblems; at 0 they run
    /// one after another on one thread). The join's parts are its keys at any depth.
    pub split_depth: usize,
    /// The parts: the search's subproblems or the join's keys.
    pub(crate) parts: Parts,
    /// How each part is counted (`Search` or `Join`, resolved for `n`).
    pub method: Method,
    /// Bytes one part's join tables may use (one thread's share of what the pieces leave).
    pub join_budget: usize,
    /// [`Plan::costs`] of the search's subproblems, computed once when first asked for.
    costs: OnceLock<Vec<u64>>,
    /// [`Plan::fingerprint`], computed once when first asked for (it hashes every part).
    fingerprint: OnceLock<u32>,
}

/// The most queens [`Plan::new`] places to cut a board into subproblems: four for each of
/// the most subproblems a plan holds. A depth that fills the plan places about one and a
/// quarter per subproblem (each level has several times the nodes of the one above); one
/// near the board's size places millions per subproblem, and is refused within about a
/// second (a file that asks for it too: `merge` rebuilds the plan a shard names).
pub const MAX_CUT_PLACEMENTS: u64 = 4 * MAX_SUBPROBLEMS as u64;

impl Plan {
    /// The search plan of an `n`-board; errors when `n` or the depth is out of range, or
    /// when the depth would cut more than [`MAX_SUBPROBLEMS`] subproblems or place more than
    /// [`MAX_CUT_PLACEMENTS`] queens to cut them.
    pub fn new(n: u32, symmetry: Symmetry, split_depth: usize) -> Result<Plan, Error> {
        validate(n, split_depth)?;
        let roots = roots::roots(n, symmetry);
        let mut subproblems = Vec::new();
        Plan::cut(n, &roots, split_depth, |s| subproblems.push(s))?;
        Ok(Plan {
            n,
            symmetry,
            split_depth,
            parts: Parts::Rows { roots, subproblems },
            method: Method::Search,
            join_budget: DEFAULT_MEMORY,
            costs: OnceLock::new(),
            fingerprint: OnceLock::new(),
        })
    }

    /// Hands each subproblem of `roots` cut `split_depth` rows down to `each`, in order;
    /// refuses a depth that cuts more than [`MAX_SUBPROBLEMS`] or places more than
    /// [`MAX_CUT_PLACEMENTS`] queens to cut them (so a refusal takes a second at most).
    fn cut(
        n: u32,
        roots: &[roots::Root],
        split_depth: usize,
        mut each: impl FnMut(Subproblem),
    ) -> Result<(), Error> {
        let mut cut = roots::Subproblems::new(n, roots, split_depth.saturating_sub(1))
            .within(MAX_CUT_PLACEMENTS);
        let mut found = 0;
        for s in cut.by_ref().take(MAX_SUBPROBLEMS + 1) {
            found += 1;
            if found <= MAX_SUBPROBLEMS {
                each(s);
            }
        }
        if cut.over_budget() {
            return Err(Error::SplitTooDeep {
                depth: split_depth,
                n,
                limit: MAX_CUT_PLACEMENTS,
            });
        }
        if found > MAX_SUBPROBLEMS {
            return Err(Error::TooManySubproblems {
                depth: split_depth,
                n,
                limit: MAX_SUBPROBLEMS,
            });
        }
        Ok(())
    }

    /// Refuses a split depth the search could not cut an `n`-board at (see [`Plan::new`]),
    /// without keeping the subproblems: for a depth asked for explicitly, refused whatever
    /// method counts the board, within a second.
    pub fn check_split_depth(n: u32, symmetry: Symmetry, split_depth: usize) -> Result<(), Error> {
        validate(n, split_depth)?;
        Plan::cut(n, &roots::roots(n, symmetry), split_depth, |_| {})
    }

    /// Refuses, before anything is built or started, what the arguments alone rule out for
    /// [`Plan::build`]: a board or depth out of range, a join beyond [`join::MAX_CUT_N`], or
    /// a join whose threads and keys cannot fit `memory` (its keys counted at their fewest,
    /// `C(n, n / 2)` row sets over the symmetries' orbits of at most 1, 2 or 4 keys). What
    /// passes may still be refused by `build` once the keys are counted exactly.
    pub fn precheck(
        n: u32,
        symmetry: Symmetry,
        split_depth: usize,
        method: Method,
        memory: usize,
        threads: usize,
    ) -> Result<(), Error> {
        validate(n, split_depth)?;
        if method.resolve(n) == Method::Search {
            return Ok(());
        }
        if n > join::MAX_CUT_N {
            return Err(Error::JoinSize(n));
        }
        let orbit = match symmetry {
            Symmetry::None => 1,
            Symmetry::Mirror => 2,
            Symmetry::Full => 4,
        };
        let fewest = binomial(n, n / 2) / orbit;
        let need = Plan::join_bytes(fewest as usize, threads.max(1));
        if need > memory {
            return Err(Error::Memory {
                n,
                need,
                limit: memory,
            });
        }
        Ok(())
    }

    /// The least a join of `keys` keys needs on `threads` threads: its keys, their costs and
    /// the run's order of them, and each thread's least table.
    fn join_bytes(keys: usize, threads: usize) -> usize {
        keys * (std::mem::size_of::<join::Key>() + 16) + threads * join::MIN_BYTES
    }

    /// The plan of an `n`-board counted with `method` (`Auto` resolved by [`Method::resolve`]:
    /// from `n` alone, so that every machine cuts the same parts); the join's keys and their
    /// costs depend only on `n` and `symmetry`. `memory` and `threads` only decide how much
    /// each thread's join may hold at once (its tables are sliced, its half-boards built a
    /// part at a time, to fit), or refuse where not even the least a thread needs fits.
    /// The split depth is checked against `n` and used by the search only.
    pub fn build(
        n: u32,
        symmetry: Symmetry,
        split_depth: usize,
        method: Method,
        memory: usize,
        threads: usize,
    ) -> Result<Plan, Error> {
        let threads = threads.max(1);
        Plan::precheck(n, symmetry, split_depth, method, memory, threads)?;
        // What the threads hold from a join's plan before goes first (a search's too: it
        // holds none of it). Only the current pool's threads and this one are reached.
        rayon::broadcast(|_| join::release_scratch());
        join::release_scratch();
        if method.resolve(n) == Method::Search {
            return Plan::new(n, symmetry, split_depth);
        }
        let keys = join::keys(n, symmetry);
        let need = Plan::join_bytes(keys.len(), threads);
        // The plan's own memory: each key, its cost and the run's order of the parts.
        let own = need - threads * join::MIN_BYTES;
        if need > memory {
            return Err(Error::Memory {
                n,
                need,
                limit: memory,
            });
        }
        // Consecutive keys grouped into parts where they would outnumber a plan's parts.
        let group = keys.len().div_ceil(MAX_SUBPROBLEMS).max(1);
        let mut costs: Vec<u64> = keys
            .par_chunks(group)
            .map(|g| g.iter().map(|&k| join::cost(n, k)).sum())
            .collect();
        if symmetry == Symmetry::Full {
            // The symmetric solutions' searches: a few rows' worth; start them first.
            costs.push(costs.iter().copied().max().unwrap_or(1));
        }
        let free = memory - own;
        let (pieces, per_thread) = Plan::split_memory(free, threads);
        Ok(Plan {
            n,
            symmetry,
            split_depth,
            parts: Parts::Columns {
                cut: Join::new(n, symmetry, pieces),
                keys,
                group,
                costs,
            },
            method: Method::Join,
            join_budget: per_thread,
            costs: OnceLock::new(),
            fingerprint: OnceLock::new(),
        })
    }

    /// How a join shares `free` bytes between the pieces kept for all `threads` and each
    /// thread's tables: `(pieces, per thread)`. A thread's fair share is three quarters of
    /// `free` over the threads; where that is at least [`SMALL_SHARE`] a thread gets it and
    /// the pieces the last quarter. A smaller share makes a thread no faster, while the
    /// pieces it takes from the others are enumerated again and again: a chunk of
    /// `join::THREAD_FLOOR` bytes counts as fast where the pieces leave it that much
    /// (results/xeon/2026-11-27-small-share/). There a thread gets a quarter of its fair share, at
    /// least the floor, and the pieces the rest. Memory only decides how a part is counted,
    /// never the plan.
    pub fn split_memory(free: usize, threads: usize) -> (usize, usize) {
        let threads = threads.max(1);
        let fair = (free - free / 4) / threads;
        let per_thread = if fair >= SMALL_SHARE {
            fair
        } else {
            (fair / 4).max(join::THREAD_FLOOR).min(free / threads)
        };
        (free - per_thread * threads, per_thread)
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        match &self.parts {
            Parts::Rows { subproblems, .. } => subproblems.len(),
            Parts::Columns { keys, group, .. } => {
                keys.len().div_ceil(*group) + usize::from(self.symmetry == Symmetry::Full)
            }
        }
    }

    /// Number of parts that are keys of a join (all but the symmetric solutions' part in
    /// full mode), or subproblems of a search (all).
    pub fn len_of_keys(&self) -> usize {
        match &self.parts {
            Parts::Rows { subproblems, .. } => subproblems.len(),
            Parts::Columns { keys, group, .. } => keys.len().div_ceil(*group),
        }
    }

    /// Whether part `i` is a join's keys (the parts a GPU counts): every part of a joined
    /// plan but full mode's last, the symmetric solutions'.
    pub fn is_key_part(&self, i: usize) -> bool {
        matches!(self.parts, Parts::Columns { .. }) && i < self.len_of_keys()
    }

    /// Whether the plan has no parts (never: every board has one at least).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The search's roots and subproblems (`None` for a join's keys).
    pub(crate) fn rows(&self) -> Option<(&[Root], &[Subproblem])> {
        match &self.parts {
            Parts::Rows { roots, subproblems } => Some((roots, subproblems)),
            Parts::Columns { .. } => None,
        }
    }

    /// Whether the parts run one after another on one thread: a search at split depth 0
    /// (a join's keys ignore the depth).
    pub fn sequential(&self) -> bool {
        self.split_depth == 0 && self.rows().is_some()
    }

    /// Number of independent subproblems reported for the plan: 1 when not split.
    pub fn reported_subproblems(&self) -> u64 {
        if self.sequential() {
            1
        } else {
            self.len() as u64
        }
    }

    /// A checksum of what the plan counts and how it is cut: the board, the mode, each root
    /// (the queens it fixes, the squares it closes, its weight), the cost model and the
    /// subproblem list. Equal plans have equal fingerprints.
    pub fn fingerprint(&self) -> u32 {
        *self.fingerprint.get_or_init(|| self.hash())
    }

    /// The checksum [`Plan::fingerprint`] keeps.
    fn hash(&self) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.n.to_le_bytes());
        h.update(self.symmetry.name().as_bytes());
        h.update(COST_MODEL.as_bytes());
        match &self.parts {
            Parts::Rows { roots, subproblems } => {
                for root in roots {
                    let (queens, forbid) = root.layout(self.n);
                    h.update(&[root.weight, queens.len() as u8]);
                    for (r, c) in queens {
                        h.update(&[r, c]);
                    }
                    for row in forbid {
                        h.update(&row.to_le_bytes());
                    }
                }
                for t in subproblems {
                    let st = t.state;
                    h.update(&t.root.to_le_bytes());
                    h.update(&(st.level as u32).to_le_bytes());
                    for x in [st.cols, st.ld, st.rd] {
                        h.update(&x.to_le_bytes());
                    }
                }
            }
            Parts::Columns {
                cut, keys, group, ..
            } => {
                h.update(b"cut");
                if cut.weighted() {
                    // Each part's count is a sum of weights, not its solutions.
                    h.update(b"quarter-turn weights 1");
                }
                h.update(&(*group as u64).to_le_bytes());
                for k in keys {
                    h.update(&k.rows.to_le_bytes());
                    for (m, weight) in k.entries(self.n, self.symmetry) {
                        h.update(&[m.unwrap_or(u8::MAX), weight]);
                    }
                }
                h.update(&[u8::from(self.symmetry == Symmetry::Full)]);
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
            subproblems: self.len(),
            fingerprint: self.fingerprint(),
        }
    }

    /// Counts part `i` with the plan's method and `kernel` (the loop of the search, and the
    /// instructions of the join's matching).
    pub fn count(&self, i: usize, kernel: Kernel) -> Tally {
        self.count_by(i, self.method, kernel)
    }

    /// Knuth's estimate of the nodes a search of part `i` visits (`Schedule::estimated_nodes`,
    /// `probes` walks picked from `seed`); `None` for a join's parts.
    pub fn estimated_nodes(&self, i: usize, probes: u32, seed: u64) -> Option<f64> {
        let Parts::Rows { roots, subproblems } = &self.parts else {
            return None;
        };
        let sub = subproblems.get(i)?;
        let schedule = roots[sub.root as usize].schedule(self.n);
        let mut random = crate::random::xorshift(seed);
        Some(schedule.estimated_nodes(sub.state, probes, &mut random))
    }

    /// Counts part `i` with `method`: a join's keys can also be searched, one by one, as an
    /// independent check (`merge --audit`, the tests); the search's subproblems are always
    /// searched.
    pub fn count_by(&self, i: usize, method: Method, kernel: Kernel) -> Tally {
        self.count_with(i, method, kernel, join::NEVER)
    }

    /// [`Plan::count`], abandoned once `stop` is set: a join's keys and its symmetric
    /// solutions' part (`Join::count_until`), and a search's subproblem of more than
    /// [`ABANDON_ROWS`] free rows between the subtrees it is then counted by. A count
    /// that ended after `stop` was set may be too small: the caller drops it (`estimate`,
    /// whose `--seconds` is a bound so).
    pub fn count_until(&self, i: usize, kernel: Kernel, stop: &AtomicBool) -> Tally {
        self.count_with(i, self.method, kernel, stop)
    }

    /// A join's part counted with its keys' matchings handed to `pairs` (a GPU's,
    /// [`crate::Pairs`]), abandoned once `stop` is set as [`Plan::count_until`] is; `None`
    /// where the part is no key's (a search's, the symmetric solutions'): the caller counts
    /// it on the CPU.
    pub fn count_on(
        &self,
        i: usize,
        (kernel, pairs): (Kernel, &dyn join::Pairs),
        stop: &AtomicBool,
    ) -> Option<Tally> {
        let Parts::Columns {
            cut, keys, group, ..
        } = &self.parts
        else {
            return None;
        };
        let part = keys.chunks(*group).nth(i)?;
        let solutions = part
            .iter()
            .map(|&key| cut.count_on(key, self.join_budget, (kernel, pairs), stop))
            .sum();
        Some(Tally {
            solutions,
            unique8: solutions,
        })
    }

    /// [`Plan::count_by`] with a flag that abandons the part.
    fn count_with(&self, i: usize, method: Method, kernel: Kernel, stop: &AtomicBool) -> Tally {
        let (cut, keys) = match &self.parts {
            Parts::Rows { roots, subproblems } => {
                let sub = &subproblems[i];
                let part = (&roots[sub.root as usize], sub);
                return search_until(self.n, part, kernel, stop, ABANDON_ROWS);
            }
            Parts::Columns {
                cut, keys, group, ..
            } => (cut, keys.chunks(*group)),
        };
        let Some(part) = keys.clone().nth(i) else {
            // The last part in full mode: what the seven other symmetries fix.
            return Tally {
                solutions: 0,
                unique8: join::fixed_by_symmetries_until(self.n, stop),
            };
        };
        let solutions = part
            .iter()
            .map(|&key| match method {
                Method::Join => cut.count_until(key, self.join_budget, kernel, stop),
                _ => join::search(self.n, self.symmetry, key, kernel),
            })
            .sum();
        Tally {
            solutions,
            unique8: solutions,
        }
    }

    /// A relative estimate of each part's cost: for a subproblem the number of nodes a few
    /// levels below it, for a join's part an estimate of its keys' half-boards on each side
    /// and the word steps of matching them (`join::cost`). Costs vary by orders of
    /// magnitude; this tracks them well enough to order the parts, weight an ETA and balance
    /// shards. Computed once per plan (a join's when the plan is built).
    pub fn costs(&self) -> &[u64] {
        // Never `None`: the flag is never set.
        self.costs_until(join::NEVER).unwrap_or_default()
    }

    /// [`Plan::costs`], given up once `stop` is set (`None`, and nothing kept). A search's
    /// costs walk four levels below each subproblem, tens of seconds at n = 26, and
    /// `estimate`'s bound must cover them too.
    pub fn costs_until(&self, stop: &AtomicBool) -> Option<&[u64]> {
        let (roots, subproblems) = match &self.parts {
            Parts::Rows { roots, subproblems } => (roots, subproblems),
            Parts::Columns { costs, .. } => return Some(costs),
        };
        if let Some(costs) = self.costs.get() {
            return Some(costs);
        }
        let schedules: Vec<Schedule> = roots.iter().map(|r| r.schedule(self.n)).collect();
        let costs: Option<Vec<u64>> = subproblems
            .par_iter()
            .map(|t| {
                let s = &schedules[t.root as usize];
                let depth = (t.state.level + 4).min(s.levels);
                (!stop.load(Ordering::Relaxed)).then(|| 1 + s.nodes_below(t.state, depth))
            })
            .collect();
        let costs = costs?;
        Some(self.costs.get_or_init(|| costs))
    }

    /// The counts of the whole board from the sum over all its subproblems, counted with
    /// `kernel` (a [`Kernel`], or `None` for shards counted with different loops, or a
    /// [`Loops`]) on `threads` threads (`None` with [`Loops::Resumed`]) in `elapsed_s`
    /// seconds. The method is the plan's; the split depth is reported only where the search
    /// ran.
    pub fn counts(
        &self,
        tally: Tally,
        kernel: impl Into<Loops>,
        threads: impl Into<Option<usize>>,
        elapsed_s: f64,
    ) -> Counts {
        let unique = (self.symmetry == Symmetry::Full).then(|| {
            debug_assert_eq!(tally.unique8 % 8, 0, "Burnside sums are multiples of 8");
            tally.unique8 / 8
        });
        Counts {
            n: self.n,
            solutions: tally.solutions,
            unique,
            method: self.method,
            kernel: kernel.into(),
            threads: threads.into(),
            split_depth: (self.method == Method::Search).then_some(self.split_depth),
            symmetry: self.symmetry,
            subproblems: self.reported_subproblems(),
            elapsed_s,
            gpu: None,
            gpu_parts: None,
            cpu_parts: None,
        }
    }
}

/// `C(n, k)`, exactly (n <= 32).
fn binomial(n: u32, k: u32) -> u64 {
    (0..u64::from(k)).fold(1, |c, i| c * (u64::from(n) - i) / (i + 1))
}

/// Free rows a subtree has at most when `search_until` cuts a subproblem for a stop flag.
/// A subproblem of the default depth has `n - 2` to `n - 5` free rows by its root's kind,
/// hours on a thread from n = 24; cut so, `estimate` ends within seconds of its bound. Up
/// to n = 20 at the default depth no subproblem has more. Smaller subtrees would stop
/// sooner but leave the lanes running part empty, so counts, which read no flag, never
/// cut (results/zen3/2026-11-26-search-bound/).
pub const ABANDON_ROWS: usize = 18;

/// Counts one subproblem of the search, abandoned once `stop` is set: with a flag that can
/// be set ([`join::NEVER`] cannot), a subproblem of more than `rows` free rows is counted as
/// the subtrees of its nodes that leave `rows`, and `stop` is read before each. What it
/// returns after `stop` was set may be too small; the same total as one search otherwise.
fn search_until(
    n: u32,
    (root, sub): (&Root, &Subproblem),
    kernel: Kernel,
    stop: &AtomicBool,
    rows: usize,
) -> Tally {
    let s = root.schedule(n);
    let floor = s.levels.saturating_sub(rows);
    if std::ptr::eq(stop, &**join::NEVER) || floor <= sub.state.level {
        return subtree(&s, root, (sub.state, &sub.prefix), kernel);
    }
    let mut tally = Tally::default();
    let mut board = s.board_above(sub.state.level, &sub.prefix);
    let _ = s.down_to(sub.state, floor, &mut board, &mut |state, board| {
        if stop.load(Ordering::Relaxed) {
            return ControlFlow::Break(());
        }
        let prefix = s.prefix_above(board, state.level);
        tally = tally + subtree(&s, root, (state, &prefix), kernel);
        ControlFlow::Continue(())
    });
    tally
}

/// Counts the subtree below `state` of `root`'s schedule `s` (`prefix`: the columns of the
/// queens above it, by level). Roots whose boards are classified one by one weigh each
/// completion by its own constellation's symmetry.
fn subtree(s: &Schedule, root: &Root, (state, prefix): (State, &[u8]), kernel: Kernel) -> Tally {
    if !root.classifies() {
        let c = kernel.count(s, state);
        return Tally {
            solutions: u128::from(root.weight) * c,
            unique8: 8 * c,
        };
    }
    let mut tally = Tally::default();
    kernel.walk(s, state, prefix, &mut |board| {
        if let Some((weight, fixed)) = symmetry::classify(board) {
            tally.solutions += u128::from(weight);
            tally.unique8 += u128::from(weight * fixed);
        }
        true
    });
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cut into subtrees of a few free rows, every subproblem of n = 12 counts what its
    /// one search counts, in each mode and loop (roots that classify their solutions
    /// included); with the flag set before it starts, a subproblem cut so counts nothing.
    #[test]
    fn a_search_cut_into_subtrees_counts_what_it_counts_whole() {
        let (unset, set) = (AtomicBool::new(false), AtomicBool::new(true));
        for symmetry in [Symmetry::None, Symmetry::Mirror, Symmetry::Full] {
            let plan = Plan::new(12, symmetry, 2).unwrap();
            let Parts::Rows { roots, subproblems } = &plan.parts else {
                panic!("a search was asked for");
            };
            let mut cut = [0, 0];
            for kernel in [Kernel::Scalar, Kernel::Auto] {
                for sub in subproblems {
                    let part = (&roots[sub.root as usize], sub);
                    let whole = search_until(12, part, kernel, join::NEVER, 1);
                    for rows in [1, 3, 6] {
                        let counted = search_until(12, part, kernel, &unset, rows);
                        assert_eq!(counted, whole, "{symmetry:?} {kernel:?} {rows}");
                    }
                    let s = part.0.schedule(12);
                    if s.levels > sub.state.level + 3 && whole.solutions > 0 {
                        let stopped = search_until(12, part, kernel, &set, 3);
                        assert_eq!(stopped, Tally::default(), "{symmetry:?} {kernel:?}");
                        cut[usize::from(part.0.classifies())] += 1;
                    }
                }
            }
            assert!(cut[0] > 0, "{symmetry:?}: no subproblem was cut short");
            if symmetry == Symmetry::Full {
                assert!(cut[1] > 0, "no classifying subproblem was cut short");
            }
        }
    }

    /// A subproblem of hours (n = 24, the most free rows) stops within seconds of its flag.
    #[test]
    fn a_long_search_stops_soon_after_its_flag() {
        let plan = Plan::new(24, Symmetry::Full, 2).unwrap();
        let Parts::Rows { roots, subproblems } = &plan.parts else {
            panic!("a search was asked for");
        };
        let free =
            |sub: &Subproblem| roots[sub.root as usize].schedule(24).levels - sub.state.level;
        let sub = subproblems.iter().max_by_key(|s| free(s)).unwrap();
        assert!(free(sub) > ABANDON_ROWS + 2, "{} free rows", free(sub));
        let stop = AtomicBool::new(false);
        let start = std::time::Instant::now();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(200));
                stop.store(true, Ordering::Relaxed);
            });
            let part = (&roots[sub.root as usize], sub);
            search_until(24, part, Kernel::Auto, &stop, ABANDON_ROWS);
        });
        let took = start.elapsed().as_secs_f64();
        assert!(took < 10.0, "took {took} s");
    }

    /// A small share per thread goes to the pieces kept for all threads, since enumerating
    /// them again and again is what slows a small `--memory`, while a thread's chunks count
    /// as fast at `join::THREAD_FLOOR`. At n = 19, 32 MiB on 2 threads keeps more than 20 MB
    /// of pieces; 2 GiB on 2 threads still gives each thread its fair three quarters; every
    /// split fits what it shares.
    #[test]
    fn small_shares_go_to_the_pieces() {
        use crate::join::{self, THREAD_FLOOR};
        let joined = |n, symmetry, memory| Plan::build(n, symmetry, 2, Method::Join, memory, 2);
        let pieces = |plan: &Plan| match &plan.parts {
            Parts::Columns { cut, .. } => cut.pieces_budget(),
            Parts::Rows { .. } => panic!("a join was asked for"),
        };
        let small = joined(19, Symmetry::Full, 32 << 20).unwrap();
        assert!(pieces(&small) > 20 << 20, "{}", pieces(&small));
        assert!(small.join_budget >= THREAD_FLOOR);
        let roomy = joined(19, Symmetry::Full, 2 << 30).unwrap();
        assert!(roomy.join_budget > 700 << 20, "{}", roomy.join_budget);
        assert_eq!(small.fingerprint(), roomy.fingerprint());
        for free in [join::MIN_BYTES, 1 << 20, 32 << 20, 1 << 30, 1 << 40] {
            for threads in [1, 2, 64, 1024] {
                if free < threads * join::MIN_BYTES {
                    continue;
                }
                let (pieces, each) = Plan::split_memory(free, threads);
                assert!(pieces + each * threads <= free, "{free} {threads}");
                assert!(each >= THREAD_FLOOR.min(free / threads), "{free} {threads}");
            }
        }
        // The default grows with the threads, from 2 GiB, within the machine's memory.
        let default = crate::run::default_memory;
        assert_eq!(default(1), crate::types::DEFAULT_MEMORY);
        assert!(default(1024) >= default(64) && default(64) >= default(2));
    }
}
