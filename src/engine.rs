//! Runs the tasks of a board on a rayon pool and reduces their counts into totals.

use std::num::NonZeroUsize;

use rayon::prelude::*;

use crate::kernel;
use crate::split::{self, Root, Task};
use crate::symmetry;
use crate::{Error, Symmetry};

/// Sums over tasks: solutions, and eight times the fundamental solutions in full mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// All solutions.
    pub solutions: u128,
    /// Eight times the fundamental solutions (meaningful in full mode only).
    pub unique8: u128,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            solutions: self.solutions + o.solutions,
            unique8: self.unique8 + o.unique8,
        }
    }
}

/// The outcome of one board: totals and how many tasks the work was cut into.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// The reduced counts.
    pub tally: Tally,
    /// Number of independent tasks (1 when not split).
    pub subproblems: u64,
}

/// Builds a pool of `threads` workers.
pub fn pool(threads: NonZeroUsize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.get())
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// Counts an `n`-board, split after `split_depth` rows (0: one sequential task), on `pool`.
pub fn run(n: u32, symmetry: Symmetry, split_depth: usize, pool: &rayon::ThreadPool) -> Run {
    let roots = split::roots(n, symmetry);
    if split_depth == 0 {
        let tally = split::tasks(n, &roots, 0)
            .iter()
            .map(|t| solve(n, &roots[t.root as usize], t))
            .fold(Tally::default(), |a, b| a + b);
        return Run {
            tally,
            subproblems: 1,
        };
    }
    let tasks = split::tasks(n, &roots, split_depth - 1);
    let tally = pool.install(|| {
        tasks
            .par_iter()
            .map(|t| solve(n, &roots[t.root as usize], t))
            .reduce(Tally::default, |a, b| a + b)
    });
    Run {
        tally,
        subproblems: tasks.len() as u64,
    }
}

/// Counts one task.
pub fn solve(n: u32, root: &Root, task: &Task) -> Tally {
    let s = root.schedule(n);
    if !root.classifies() {
        let c = u128::from(kernel::count(&s, task.state));
        return Tally {
            solutions: u128::from(root.weight) * c,
            unique8: 8 * c,
        };
    }
    // Each completion is weighed by its own constellation's symmetry.
    let mut tally = Tally::default();
    kernel::walk(&s, task.state, &task.prefix, &mut |board| {
        if let Some((weight, fixed)) = symmetry::classify(board) {
            tally.solutions += u128::from(weight);
            tally.unique8 += u128::from(weight * fixed);
        }
        true
    });
    tally
}
