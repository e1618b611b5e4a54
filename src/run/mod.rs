//! One run of the engine: which subproblems of a [`Plan`] to count, on which [`Engine`], and
//! who hears about each as it finishes.
//!
//! Every way of counting goes through here: [`crate::count`], and on the command line
//! `count` (with its progress, checkpoint and shard output as [`Observer`]s), `verify`,
//! `merge --audit` (a run over a random sample of the plan), and the benches. An
//! [`Engine`] holds what is decided once for a whole command: the worker threads and the
//! counting loop.
//!
//! ```
//! use nqueens_engine::{Engine, Observer, Options, Run, Tally};
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! /// Counts the subproblems as they finish.
//! struct Finished(AtomicU64);
//! impl Observer for Finished {
//!     fn finished(&self, _: usize, _: Tally) {
//!         self.0.fetch_add(1, Ordering::Relaxed);
//!     }
//! }
//!
//! let engine = Engine::new(&Options::default()).unwrap();
//! let plan = engine.plan(12).unwrap();
//! let seen = Finished(AtomicU64::new(0));
//! let outcome = Run::new(&plan).observe(&seen).execute(&engine);
//! assert_eq!(outcome.counts(&plan).solutions, 14200);
//! assert_eq!(seen.0.into_inner(), plan.len() as u64);
//! ```

pub mod checkpoint;
pub(crate) mod durable;
pub mod estimate;
pub mod plan;
pub mod quorum;
pub mod shard;

// What the command line needs of the long-run files: their errors, a result's output file,
// the checks made on a path before a run, the host a result names, and the folders that
// rescue files are kept in.
pub use durable::{
    Ended, FileError, Output, PrivateDir, Written, file_to_write, host, remove_temporaries,
    same_file,
};

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::types::{
    Counts, DEFAULT_MEMORY, Error, Kernel, Loops, MAX_THREADS, Method, Options, Symmetry, Tally,
};
use plan::Plan;

/// The worker threads and the counting loop, decided once.
pub struct Engine {
    pool: rayon::ThreadPool,
    kernel: Kernel,
    split_depth: Option<usize>,
    symmetry: Symmetry,
    method: Method,
    memory: usize,
}

impl Engine {
    /// Starts `options.threads` workers (one per logical CPU when `None`, at most
    /// [`MAX_THREADS`]) and resolves `options.kernel` for this CPU. The engine counts in
    /// `options.symmetry` and method, splits each board as `options.split_depth` says and
    /// keeps within `options.memory`. These workers are all the threads its work runs on: planning,
    /// counting, costs, estimates and audits run inside its pool ([`Engine::install`]),
    /// never on rayon's global pool, so `RAYON_NUM_THREADS` changes nothing.
    pub fn new(options: &Options) -> Result<Engine, Error> {
        let kernel = options.kernel.resolve()?;
        let threads = worker_threads(options.threads)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("nqueens-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Engine {
            pool,
            kernel,
            split_depth: options.split_depth,
            symmetry: options.symmetry,
            method: options.method,
            memory: options.memory,
        })
    }

    /// The engine's loop where a run `counted` some part, else [`Loops::Resumed`].
    fn counted(&self, counted: bool) -> Loops {
        if counted {
            Loops::One(self.kernel)
        } else {
            Loops::Resumed
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The counting loop that runs, resolved for this CPU (`Scalar`, `Avx2` or `Avx512`).
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The worker pool (listing runs its own batches on it).
    pub fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// Runs `work` on this engine's workers: whatever rayon parallelism it uses (a plan's
    /// costs, say) stays within the engine's threads.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        self.pool.install(work)
    }

    /// The same workers with another counting loop (`merge --audit` recounts with the loop
    /// the shards did not use, on the pool that planned them).
    pub fn with_kernel(self, kernel: Kernel) -> Result<Engine, Error> {
        Ok(Engine {
            kernel: kernel.resolve()?,
            ..self
        })
    }

    /// The plan of an `n`-board, split as the engine's options say
    /// ([`Options::split_depth_for`]; a join's parts are its keys at any depth), in this
    /// engine's mode and method within its memory budget. Where the join cannot keep within
    /// the budget, `auto` searches instead and an explicit `join` is an error.
    pub fn plan(&self, n: u32) -> Result<Plan, Error> {
        self.plan_at(n, self.split_depth_for(n)?)
    }

    /// The plan of an `n`-board split `depth` rows down rather than as the engine's options
    /// say: for a command that picks a depth per board (the command line clamps one depth to
    /// each board of a range), or a file's plan rebuilt at its recorded depth.
    pub fn plan_at(&self, n: u32, depth: usize) -> Result<Plan, Error> {
        // The keys and their costs are found in parallel: on these workers.
        self.install(|| {
            Plan::build(
                n,
                self.symmetry,
                depth,
                self.method,
                self.memory,
                self.threads(),
            )
        })
    }

    /// The split depth an `n`-board gets ([`Options::split_depth_for`]).
    pub fn split_depth_for(&self, n: u32) -> Result<usize, Error> {
        Options {
            split_depth: self.split_depth,
            ..Options::default()
        }
        .split_depth_for(n)
    }

    /// The symmetry mode the engine counts in.
    pub fn symmetry(&self) -> Symmetry {
        self.symmetry
    }

    /// How each subproblem is counted, as asked (`Auto` is resolved per board).
    pub fn method(&self) -> Method {
        self.method
    }

    /// Counts a whole `n`-board.
    pub fn count(&self, n: u32) -> Result<Counts, Error> {
        let start = Instant::now();
        let plan = self.plan(n)?;
        let outcome = Run::new(&plan).started(start).execute(self);
        Ok(outcome.counts(&plan))
    }
}

/// The worker threads an engine of `asked` threads starts: `asked`, or one per logical CPU
/// when `None` (at most [`MAX_THREADS`]); more than [`MAX_THREADS`] asked is refused.
pub fn worker_threads(asked: Option<NonZeroUsize>) -> Result<usize, Error> {
    match asked {
        Some(t) if t.get() > MAX_THREADS => Err(Error::Threads(t.get())),
        Some(t) => Ok(t.get()),
        None => Ok(num_cpus::get().clamp(1, MAX_THREADS)),
    }
}

/// Memory a join gets per worker thread by default ([`default_memory`]): a share that keeps
/// a thread's chunks of half-boards whole at the boards a cluster counts.
pub const MEMORY_PER_THREAD: usize = 128 << 20;

/// The `--memory` a command of `threads` workers gets when none is asked for: the larger of
/// [`DEFAULT_MEMORY`] and [`MEMORY_PER_THREAD`] per thread, the latter at most half of what
/// this machine (or its cgroup: a Slurm job's `--mem`) holds. It bounds what the join may
/// hold; the join takes only what its pieces and chunks need (n = 19 peaks near 40 MB).
pub fn default_memory(threads: usize) -> usize {
    let wanted = threads.saturating_mul(MEMORY_PER_THREAD);
    let room = machine_memory().map_or(usize::MAX, |m| m / 2);
    wanted.min(room).max(DEFAULT_MEMORY)
}

/// The least of the machine's memory and its cgroup's limit, in bytes, where Linux says.
pub fn machine_memory() -> Option<usize> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let total = read("/proc/meminfo").and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?.to_owned();
        let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb.saturating_mul(1024))
    });
    let limits = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ];
    limits
        .iter()
        .filter_map(|p| read(p)?.trim().parse::<usize>().ok())
        .chain(total)
        .min()
}

/// Hears about each subproblem of a [`Run`] as it finishes, on the worker that counted it.
pub trait Observer: Sync {
    /// Subproblem `index` of the plan finished with `tally`.
    fn finished(&self, index: usize, tally: Tally);

    /// Subproblem `index` finished with `tally`, counted on a GPU ([`Run::on_gpu`]): by
    /// default as [`Observer::finished`]; a checkpoint's record names the GPU.
    fn finished_on_gpu(&self, index: usize, tally: Tally) {
        self.finished(index, tally);
    }
}

/// What a run counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The sum over the run's subproblems, those resumed from earlier runs included.
    pub tally: Tally,
    /// Worker threads this run counted on (1 where the parts ran one after another: a
    /// search at split depth 0, or an engine of one thread); `None` where it counted no
    /// part (every one resumed).
    pub threads: Option<usize>,
    /// Wall-clock seconds of this run.
    pub elapsed_s: f64,
    /// The counting loop that ran, resolved for the CPU ([`Engine::kernel`]):
    /// [`Loops::Mixed`] where shards counted with different loops were merged,
    /// [`Loops::Resumed`] where this run counted no part.
    pub kernel: Loops,
    /// Each selected subproblem's counts (those resumed included), when the run was asked
    /// to keep them ([`Run::keep_each`]); empty otherwise.
    pub each: Vec<(usize, Tally)>,
    /// The parts counted on a GPU ([`Run::on_gpu`]), those resumed as such included
    /// ([`Run::resumed_on_gpu`]).
    pub gpu_parts: u64,
    /// Which parts those are, in increasing order, when the run was asked to keep each
    /// part's counts ([`Run::keep_each`]); empty otherwise.
    pub gpu_each: Vec<usize>,
    /// Why the GPU stopped counting, where a device error stopped it: the parts it counted
    /// before are kept (their observers heard of them), the part it was counting is not,
    /// and no part starts after (the run is incomplete, its tally partial).
    pub gpu_failed: Option<String>,
}

impl Outcome {
    /// The counts of the whole board, for a run over every subproblem of `plan`.
    pub fn counts(&self, plan: &Plan) -> Counts {
        plan.counts(self.tally, self.kernel, self.threads, self.elapsed_s)
    }
}

/// A part counted on the CPU (and its observers told), by its index in the plan.
type CountPart<'a> = dyn Fn(&usize) -> Tally + Sync + 'a;

/// The observers told of a part counted elsewhere (a GPU's).
type RecordPart<'a> = dyn Fn(usize, Tally) + Sync + 'a;

/// What stops a run with a GPU beside its workers: the caller's stop, the flag a GPU's
/// failure sets, and the count of parts either left uncounted.
type Halt<'a> = (&'a AtomicBool, &'a AtomicBool, &'a AtomicUsize);

/// Some or all subproblems of a plan, some perhaps counted already, and their observers.
pub struct Run<'a> {
    plan: &'a Plan,
    start: Instant,
    selected: Vec<usize>,
    done: HashMap<usize, Tally>,
    observers: Vec<&'a dyn Observer>,
    keep_each: bool,
    method: Option<Method>,
    gpu: Option<(&'a dyn crate::join::Pairs, bool)>,
    resumed_on_gpu: Vec<usize>,
}

impl<'a> Run<'a> {
    /// A run over every subproblem of `plan`.
    pub fn new(plan: &'a Plan) -> Run<'a> {
        Run {
            plan,
            start: Instant::now(),
            selected: (0..plan.len()).collect(),
            done: HashMap::new(),
            observers: Vec::new(),
            keep_each: false,
            method: None,
            gpu: None,
            resumed_on_gpu: Vec::new(),
        }
    }

    /// Measures the run's time from `start` (say, from before the plan was built) rather
    /// than from [`Run::new`].
    pub fn started(mut self, start: Instant) -> Run<'a> {
        self.start = start;
        self
    }

    /// Counts only the subproblems in `selected` (indices into the plan, e.g. a shard's).
    pub fn only(mut self, selected: Vec<usize>) -> Run<'a> {
        self.selected = selected;
        self
    }

    /// Takes the counts of subproblems finished by an earlier run (from a checkpoint): they
    /// are added to the total and not counted again. Those outside the selection are ignored.
    pub fn resume(mut self, done: HashMap<usize, Tally>) -> Run<'a> {
        self.done = done;
        self
    }

    /// Of the parts given to [`Run::resume`], those a GPU counted
    /// ([`checkpoint::Checkpoint::resumed_on_gpu`]): the outcome counts them among the GPU's.
    pub fn resumed_on_gpu(mut self, parts: Vec<usize>) -> Run<'a> {
        self.resumed_on_gpu = parts;
        self
    }

    /// Counts each part with `method` rather than the plan's (`merge --audit` searches a
    /// joined plan's keys).
    pub fn counted_by(mut self, method: Method) -> Run<'a> {
        self.method = Some(method);
        self
    }

    /// Counts the join's keys on `gpu` too (a [`crate::Pairs`]: a GPU's matching), from a
    /// thread of its own that takes the costliest parts left as the workers do; where
    /// `only`, every key goes to the GPU, each worker building the keys it takes and handing
    /// them to it once the parts that are no key (full mode's symmetric solutions) are
    /// counted.
    pub fn on_gpu(mut self, gpu: &'a dyn crate::join::Pairs, only: bool) -> Run<'a> {
        self.gpu = Some((gpu, only));
        self
    }

    /// Keeps each subproblem's counts in the [`Outcome`] (a shard result lists them).
    pub fn keep_each(mut self) -> Run<'a> {
        self.keep_each = true;
        self
    }

    /// Tells `observer` of each subproblem as it finishes.
    pub fn observe(mut self, observer: &'a dyn Observer) -> Run<'a> {
        self.observers.push(observer);
        self
    }

    /// The plan this run counts.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// The selected subproblems, in increasing order of index.
    pub fn selected(&self) -> &[usize] {
        &self.selected
    }

    /// The selected subproblems finished by an earlier run.
    pub fn already_done(&self) -> Vec<usize> {
        let done = &self.done;
        self.selected
            .iter()
            .copied()
            .filter(|i| done.contains_key(i))
            .collect()
    }

    /// Counts the selected subproblems not done yet on `engine`, telling the observers of
    /// each as it finishes, and sums them with the ones done before.
    ///
    /// With more than one thread the subproblems start costliest first (by
    /// [`Plan::costs`]), so the run does not end with one thread on a large subproblem while
    /// the others wait: rayon hands out the front of the list first and the small ones at
    /// the back fill the gaps. At split depth 0 a search's subproblems run one after
    /// another on this thread (a join's keys ignore the depth).
    pub fn execute(self, engine: &Engine) -> Outcome {
        self.counted(engine, &AtomicBool::new(false)).0
    }

    /// As [`Run::execute`], but once `stop` is set (from another thread: a signal handler,
    /// a deadline, a user's button) no further part starts: the parts in flight finish and
    /// their observers hear of them (a checkpoint keeps them), and the run returns
    /// [`Error::Stopped`] with how many parts were counted, unless every part was.
    ///
    /// ```
    /// use nqueens_engine::{Engine, Error, Options, Run};
    /// use std::sync::atomic::AtomicBool;
    ///
    /// let engine = Engine::new(&Options::default()).unwrap();
    /// let plan = engine.plan(14).unwrap();
    /// let stop = AtomicBool::new(true);
    /// let stopped = Run::new(&plan).execute_until(&engine, &stop);
    /// assert!(matches!(stopped, Err(Error::Stopped { finished: 0, .. })));
    /// ```
    pub fn execute_until(self, engine: &Engine, stop: &AtomicBool) -> Result<Outcome, Error> {
        match self.counted(engine, stop) {
            (outcome, 0, _) => Ok(outcome),
            (_, skipped, parts) => Err(Error::Stopped {
                finished: parts - skipped,
                parts,
            }),
        }
    }

    /// The run's outcome, the parts `stop` (or a GPU's failure) left uncounted and the
    /// parts selected.
    fn counted(mut self, engine: &Engine, stop: &AtomicBool) -> (Outcome, usize, usize) {
        let plan = self.plan;
        let method = self.method.unwrap_or(plan.method);
        // The selection becomes the parts to count, in place: one list of them, the eight
        // bytes a part the plan sets aside for a run's order (`Plan::build`).
        let mut todo = std::mem::take(&mut self.selected);
        let prior: Vec<usize> = todo
            .iter()
            .copied()
            .filter(|i| self.done.contains_key(i))
            .collect();
        todo.retain(|i| !self.done.contains_key(i));
        let kept = Mutex::new(Vec::new());
        if self.keep_each {
            kept.lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(prior.iter().map(|&i| (i, self.done[&i])));
        }
        let prior_parts = prior.len();
        let prior_gpu = self.prior_on_gpu(&prior);
        let prior: Tally = prior.iter().map(|i| self.done[i]).sum();
        let (parts, skipped) = (prior_parts + todo.len(), AtomicUsize::new(0));
        // Set where the GPU failed: no part starts after, on the CPU either.
        let halted = AtomicBool::new(false);
        let record = |i: usize, t: Tally| {
            for o in &self.observers {
                o.finished(i, t);
            }
            if self.keep_each {
                kept.lock().unwrap_or_else(|e| e.into_inner()).push((i, t));
            }
        };
        let one = |&i: &usize| {
            if stop.load(Ordering::Relaxed) || halted.load(Ordering::Relaxed) {
                skipped.fetch_add(1, Ordering::Relaxed);
                return Tally::default();
            }
            let t = plan.count_by(i, method, engine.kernel);
            record(i, t);
            t
        };
        // Every selected part resumed (at least one): this run counted none.
        let counted = !todo.is_empty() || prior_parts == 0;
        let mut outcome = Outcome {
            tally: prior,
            threads: counted.then(|| engine.threads()),
            elapsed_s: 0.0,
            kernel: engine.counted(counted),
            each: Vec::new(),
            gpu_parts: 0,
            gpu_each: Vec::new(),
            gpu_failed: None,
        };
        let gpu_kept = Mutex::new(prior_gpu);
        if let Some(gpu) = self.gpu {
            let on_gpu = |i: usize, t: Tally| {
                for o in &self.observers {
                    o.finished_on_gpu(i, t);
                }
                if self.keep_each {
                    kept.lock().unwrap_or_else(|e| e.into_inner()).push((i, t));
                }
                gpu_kept.lock().unwrap_or_else(|e| e.into_inner()).push(i);
            };
            let halt = (stop, &halted, &skipped);
            let (tally, failed) = self.beside(engine, gpu, todo, (&one, &on_gpu, halt));
            outcome.tally = prior + tally;
            outcome.gpu_failed = failed;
        } else {
            let one_thread = plan.sequential() || engine.threads() == 1;
            // On the engine's workers even on one thread: a part's own parallel steps (the
            // symmetric solutions' searches) then use them, not rayon's global pool.
            let tally: Tally = engine.install(|| {
                if one_thread {
                    return todo.iter().map(one).sum();
                }
                let costs = plan.costs();
                todo.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
                todo.par_iter()
                    .with_max_len(1)
                    .map(one)
                    .reduce(Tally::default, |a, b| a + b)
            });
            outcome.tally = prior + tally;
            if one_thread && counted {
                outcome.threads = Some(1);
            }
        }
        let mut gpu_each = gpu_kept.into_inner().unwrap_or_else(|e| e.into_inner());
        gpu_each.sort_unstable();
        outcome.gpu_parts = gpu_each.len() as u64;
        if self.keep_each {
            outcome.gpu_each = gpu_each;
        }
        outcome.elapsed_s = self.start.elapsed().as_secs_f64();
        outcome.each = kept.into_inner().unwrap_or_else(|e| e.into_inner());
        (outcome, skipped.into_inner(), parts)
    }

    /// Of the resumed parts `prior`, those a GPU counted ([`Run::resumed_on_gpu`]).
    fn prior_on_gpu(&self, prior: &[usize]) -> Vec<usize> {
        if self.resumed_on_gpu.is_empty() {
            return Vec::new();
        }
        let prior: std::collections::HashSet<usize> = prior.iter().copied().collect();
        let mut on_gpu: Vec<usize> = self
            .resumed_on_gpu
            .iter()
            .copied()
            .filter(|i| prior.contains(i))
            .collect();
        on_gpu.sort_unstable();
        on_gpu.dedup();
        on_gpu
    }

    /// Counts `todo` on the engine's workers (`cpu`, each part; `on_gpu` tells the
    /// observers of a part the GPU counted) and on a GPU, costliest first. With `--gpu`
    /// (`only` false) one thread beside the workers feeds the GPU keys, and the workers take
    /// the parts that are none first, then keys from the same queue. With `--gpu-only` every
    /// worker, once the parts that are no key are taken, feeds the GPU keys: each builds its
    /// key's half-boards while another's matching holds the device, so the device waits on
    /// no one thread's building. No part starts once `halt`'s stop is set, nor once the GPU
    /// fails (`halt`'s halted then set, and each part left counted in its skipped). Returns
    /// the sum, and why the GPU failed where it did.
    fn beside(
        &self,
        engine: &Engine,
        (gpu, only): (&dyn crate::join::Pairs, bool),
        mut todo: Vec<usize>,
        (cpu, on_gpu, halt): (&CountPart, &RecordPart, Halt),
    ) -> (Tally, Option<String>) {
        let plan = self.plan;
        let (stop, halted, skipped) = halt;
        let costs = engine.install(|| plan.costs().to_vec());
        todo.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
        let (keys, others): (Vec<usize>, Vec<usize>) =
            todo.into_iter().partition(|&i| plan.is_key_part(i));
        let (next_key, next_other) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let take = |queue: &[usize], next: &AtomicUsize| {
            queue.get(next.fetch_add(1, Ordering::Relaxed)).copied()
        };
        let never = AtomicBool::new(false);
        let kernel = engine.kernel;
        // Feeds the GPU keys from the queue until it is empty: the keys' sum, and why the
        // GPU failed where it did.
        let feed = || {
            let (mut sum, mut failed) = (Tally::default(), None);
            while let Some(i) = take(&keys, &next_key) {
                if stop.load(Ordering::Relaxed) || halted.load(Ordering::Relaxed) {
                    skipped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let counted = plan.count_on(i, (kernel, gpu), &never);
                // A count the device failed in is no count: it is dropped, and the run stops.
                if let Some(why) = gpu.failed() {
                    halted.store(true, Ordering::Relaxed);
                    skipped.fetch_add(1, Ordering::Relaxed);
                    failed.get_or_insert(why);
                    continue;
                }
                match counted {
                    Some(t) => {
                        on_gpu(i, t);
                        sum = sum + t;
                    }
                    None => sum = sum + cpu(&i),
                }
            }
            (sum, failed)
        };
        let workers = || {
            engine.install(|| {
                (0..engine.threads())
                    .into_par_iter()
                    .with_max_len(1)
                    .map(|_| {
                        let mut sum = Tally::default();
                        while let Some(i) = take(&others, &next_other) {
                            sum = sum + cpu(&i);
                        }
                        if only {
                            let (fed, failed) = feed();
                            return (sum + fed, failed);
                        }
                        while let Some(i) = take(&keys, &next_key) {
                            sum = sum + cpu(&i);
                        }
                        (sum, None)
                    })
                    .reduce(
                        || (Tally::default(), None),
                        |(a, why_a), (b, why_b)| (a + b, why_a.or(why_b)),
                    )
            })
        };
        if only {
            return workers();
        }
        let (a, b) = std::thread::scope(|s| {
            let g = s.spawn(feed);
            let w = workers();
            (g.join(), w)
        });
        let (a, failed) = a.unwrap_or_else(|e| std::panic::resume_unwind(e));
        (a + b.0, failed)
    }
}
