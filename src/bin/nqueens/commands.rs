//! What each subcommand does, over the library: count (with its long-run observers),
//! verify, merge, solve, and the generated completions and man page.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use clap::CommandFactory;
use nqueens_engine::run::checkpoint::{self, Checkpoint};
use nqueens_engine::run::estimate;
use nqueens_engine::run::shard::{self, ShardResult};
use nqueens_engine::run::{FileError, Output};
use nqueens_engine::solve::board;
use nqueens_engine::solve::{self, ListOptions};
use nqueens_engine::{Counts, Engine, Error, Method, Observer, Outcome, Run, Tally, published};

use crate::cli::{
    BoardFormat, Cli, Command, CountArgs, EstimateArgs, LongRunArgs, SolveArgs, UnusedDepth,
    VerifyArgs,
};
use crate::memory::{self, Use};
use crate::output::{self, Check, Prediction, Printer, significant};
use crate::periodic::{Tick, while_running};
use crate::progress::{self, Progress};
use crate::signals::Interrupts;
use crate::{files, forecast, hooks};

/// What went wrong, and the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 2.
    Usage(anyhow::Error),
    /// A check failed or the work could not be done: exit 1.
    Failed(anyhow::Error),
    /// Results disagree with the published values: exit 1, already reported.
    Mismatch,
}

impl From<io::Error> for Failure {
    /// A command's own I/O errors are its writes to stdout (its files have [`FileError`]s).
    fn from(e: io::Error) -> Failure {
        Failure::Failed(anyhow::Error::new(e).context("cannot write to standard output"))
    }
}

impl From<FileError> for Failure {
    /// A path that cannot serve is the input's fault (exit 2); a file that cannot be read
    /// or written, or is wrong, fails the work (exit 1).
    fn from(e: FileError) -> Failure {
        if e.is_usage() {
            Failure::Usage(e.into())
        } else {
            Failure::Failed(e.into())
        }
    }
}

/// A file error about a path given with `flag`, as the command line says it: a path that
/// cannot serve is named with its flag (`--output x/: names a directory, ...`).
pub fn flagged_file(e: &FileError, flag: &str) -> String {
    match e {
        FileError::Unusable { .. } => format!("{flag} {e}"),
        _ => e.to_string(),
    }
}

impl Failure {
    /// [`Failure::from`] a file error about a path given with `flag`, its message
    /// [`flagged_file`].
    pub fn file(e: FileError, flag: &str) -> Failure {
        let text = anyhow::anyhow!("{}", flagged_file(&e, flag));
        if e.is_usage() {
            Failure::Usage(text)
        } else {
            Failure::Failed(text)
        }
    }
}

impl From<Error> for Failure {
    /// A library error, with the flag that gave its value: the input's fault (exit 2)
    /// unless the threads could not start or the count was stopped.
    fn from(e: Error) -> Failure {
        let text = anyhow::anyhow!("{}", flagged(&e));
        match e {
            Error::ThreadPool(_) | Error::Stopped { .. } => Failure::Failed(text),
            _ => Failure::Usage(text),
        }
    }
}

/// A library error's message as the command line says it: the value it names given the flag
/// it came from (`split depth 40 ...` is `--split-depth 40 ...`).
pub fn flagged(e: &Error) -> String {
    let text = e.to_string();
    let renamed = |words: &str, flag: &str| match text.strip_prefix(words) {
        Some(rest) => format!("{flag}{rest}"),
        None => format!("{flag}: {text}"),
    };
    match e {
        Error::SplitDepth { .. }
        | Error::TooManySubproblems { .. }
        | Error::SplitTooDeep { .. } => renamed("split depth", "--split-depth"),
        Error::Kernel { asked, has } => {
            // Each loop the CPU has, as the flag that asks for it.
            let flags: Vec<String> = has.iter().map(|k| format!("--kernel {k}")).collect();
            let choices = match flags.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            format!("--kernel {asked}: this CPU lacks its instructions; it has {choices}")
        }
        Error::Shards { .. } => renamed("shard", "--shard"),
        Error::Memory { .. } => format!("--memory: {text}"),
        Error::JoinSize(_) => format!("--method join: {text}"),
        Error::Threads(_) => format!("--threads {}", text.replacen(" threads", "", 1)),
        Error::ThreadPool(_) => format!("--threads: {text}"),
        Error::TooFewSamples { seconds, .. } | Error::Uncosted { seconds, .. } => {
            format!("--seconds {seconds}: {text}")
        }
        Error::TooLongToSample { .. } | Error::BoardSize(_) | Error::Stopped { .. } => text,
    }
}

/// Carries out a parsed command line.
pub fn dispatch(cli: Cli) -> Result<(), Failure> {
    // Count and verify catch the signals held back since the start; the rest let them
    // through as they are.
    if !matches!(cli.command, Command::Count(_) | Command::Verify(_)) {
        crate::signals::release();
    }
    if cli.command.prints() && crate::output::stdout_closed() {
        return Err(Failure::Failed(anyhow::anyhow!(
            "standard output is closed (>&-): the result would go nowhere; send it to a file, or to /dev/null to drop it"
        )));
    }
    match cli.command {
        Command::Count(args) => count(args),
        Command::Verify(args) => verify(args),
        Command::Solve(args) => solve(args),
        Command::Merge(args) => crate::merge::merge(args),
        Command::Estimate(args) => estimate(args),
        Command::Bench(args) => crate::bench::bench(args),
        Command::Completions(args) => {
            let mut cmd = Cli::command();
            clap_complete::generate(args.shell, &mut cmd, "nqueens", &mut io::stdout().lock());
            Ok(())
        }
        Command::Man => {
            let mut out = io::stdout().lock();
            out.write_all(crate::man::page(Cli::command())?.as_bytes())?;
            out.flush()?;
            Ok(())
        }
    }
}

fn count(args: CountArgs) -> Result<(), Failure> {
    // Signals are caught before anything else is done, planning included.
    let interrupts = Interrupts::install(args.long.checkpoint.clone());
    let largest = args.sizes.iter().map(|r| *r.end()).max().unwrap_or(0);
    let counting = args.engine.counting(largest)?;
    let counting = counting
        .with_gpu(args.gpu.asked())
        .map_err(Failure::Usage)?;
    one_board(&args)?;
    counting.precheck(args.sizes.iter().cloned().flatten())?;
    // The files' paths are checked (the output's temporary file made) before any planning.
    let mut output = files::prepare(&args.long)?;
    let memory = args.engine.memory();
    let gpu = crate::gpu::open(&args.gpu, crate::gpu::share(memory))?;
    let engine = Engine::new(&counting.options)?;
    let mut out = Printer::new(io::stdout().lock(), counting.format).on_terminal();
    let mut unused = UnusedDepth::new(&counting);
    for n in args.sizes.iter().cloned().flatten() {
        let files = (&args.long, output.take(), &interrupts, gpu.as_ref());
        if let Some(counts) = long_count(n, counting.split_depth(n), &engine, files)? {
            unused.check(&counts);
            out.print(&counts)?;
        }
    }
    hooks::report_threads();
    Ok(())
}

/// Refuses more than one board size where `--checkpoint` or `--shard` is given: a checkpoint
/// or a shard holds the parts of one board. The message names the flags given and the sizes.
fn one_board(args: &CountArgs) -> Result<(), Failure> {
    let sizes = &args.sizes;
    if sizes.len() == 1 && sizes[0].start() == sizes[0].end() {
        return Ok(());
    }
    let given = match (&args.long.checkpoint, &args.long.shard) {
        (Some(_), Some(_)) => "--checkpoint and --shard each take",
        (Some(_), None) => "--checkpoint takes",
        (None, Some(_)) => "--shard takes",
        (None, None) => return Ok(()),
    };
    let asked: Vec<String> = sizes
        .iter()
        .map(|r| match (r.start(), r.end()) {
            (a, b) if a == b => a.to_string(),
            (a, b) => format!("{a}-{b}"),
        })
        .collect();
    Err(Failure::Usage(anyhow::anyhow!(
        "{given} one board size N, not {}: run one command per board",
        asked.join(" ")
    )))
}

/// Test hook: abort the process (as a crash would) once this many results are synced to
/// the checkpoint.
const ABORT_AFTER: &str = "NQUEENS_TEST_ABORT_AFTER";

/// The test hook's observer: after `after` finished subproblems it syncs the checkpoint and
/// aborts.
struct AbortAfter {
    after: usize,
    seen: AtomicUsize,
    checkpoint: Arc<Checkpoint>,
}

impl Observer for AbortAfter {
    fn finished(&self, _: usize, _: Tally) {
        if self.seen.fetch_add(1, Ordering::SeqCst) + 1 >= self.after {
            let _ = self.checkpoint.flush();
            std::process::abort();
        }
    }
}

/// Counts one board with progress, checkpoint and shard as asked (the flags, the shard's
/// output made ready, and the signal handler that is told of the checkpoint once it is
/// open); `None` for a shard, whose partial counts go to its output file.
fn long_count(
    n: u32,
    split_depth: usize,
    engine: &Engine,
    (long, mut output, interrupts, gpu): (
        &LongRunArgs,
        Option<Output>,
        &Interrupts,
        Option<&crate::gpu::Opened>,
    ),
) -> Result<Option<Counts>, Failure> {
    let start = Instant::now();
    let modes = (engine.method(), engine.symmetry());
    let shards = long.shard.map_or(1, |s| s.count);
    let kept = (long.checkpoint.is_some(), shards);
    if let Some(warning) = forecast::long_count_warning(n, modes, engine.threads(), kept) {
        progress::say(&warning);
    }
    memory::allocating_for(Use::Plan);
    let mut progress = Progress::start(
        long.progress,
        format!("n={n}"),
        progress::planning(n, engine.method()),
    );
    if let Some(p) = &mut progress {
        p.predict(forecast::thread_seconds(n, modes.0, modes.1) / engine.threads() as f64);
    }
    hooks::pause_at("planning");
    let plan = Progress::during(&progress, || engine.plan_at(n, split_depth))?;
    let mut run = Run::new(&plan).started(start);
    if let Some(g) = gpu {
        run = run.on_gpu(g.pairs(), g.only());
    }
    if let Some(shard) = long.shard {
        shard.check(&plan)?;
        // Costs are estimated on the engine's threads, as -j asks, not rayon's global pool.
        let costs = engine.pool().install(|| plan.costs());
        run = run.only(shard::subproblems_of(costs, shard)).keep_each();
        // A result an earlier run could not write to the output, kept for this one.
        if let Some(out) = output.take() {
            match files::rescued(&plan, shard, run.selected(), out.path()) {
                Some(kept) => {
                    drop(progress);
                    return write_rescued(shard, kept, out).map(|()| None);
                }
                None => output = Some(out),
            }
        }
    }
    let (mut run, checkpoint) =
        memory::during(Use::Checkpoint, || open_checkpoint(run, long, engine))?;
    let abort = abort_hook(checkpoint.as_ref());
    if let Some(p) = &progress {
        // Costs are estimated on the engine's threads, as -j asks (planning still).
        let costs = Progress::during(&progress, || {
            engine.pool().install(|| plan.costs().to_vec())
        });
        p.counting(costs, run.selected(), &run.already_done(), engine.threads());
    }
    if let Some(c) = &checkpoint {
        run = run.observe(c.as_ref()).resumed_on_gpu(c.resumed_on_gpu());
        let parts = (run.already_done().len(), run.selected().len());
        interrupts.save(Arc::clone(c), parts);
    }
    if let Some(a) = &abort {
        run = run.observe(a);
    }
    if let Some(p) = &progress {
        run = run.observe(p);
    }
    let selected = run.selected().len();
    let (outcome, saved) = memory::during(Use::Counting, || {
        execute(run, engine, progress.as_ref(), checkpoint.as_deref())
    });
    if let Some(why) = &outcome.gpu_failed {
        return Err(gpu_failed(
            why,
            long.checkpoint.as_deref().filter(|_| saved),
        ));
    }
    match (long.shard, output) {
        (Some(shard), Some(output)) => {
            debug_assert_eq!(outcome.each.len(), selected);
            let kept = long.checkpoint.as_deref().filter(|_| saved);
            // A run without a GPU that resumed a GPU's records names the loop alone.
            let gpu = gpu
                .map(crate::gpu::Opened::name)
                .or_else(|| (!outcome.gpu_each.is_empty()).then_some("gpu"));
            memory::during(Use::Output, || {
                write_shard(&plan, (shard, engine, outcome, gpu), output, kept)
            })?;
            Ok(None)
        }
        _ => {
            let mut counts = whole_counts(&plan, &outcome, long)?;
            crate::gpu::name_in(&mut counts, gpu, outcome.gpu_parts);
            Ok(Some(counts))
        }
    }
}

/// The failure of a count whose GPU failed (`why`): the parts counted before it are in the
/// checkpoint at `kept`, where one holds them.
fn gpu_failed(why: &str, kept: Option<&Path>) -> Failure {
    let then = match kept {
        Some(path) => format!(
            "the parts counted before it are saved in {}: run the same command again to resume",
            path.display()
        ),
        None => "nothing was saved (no --checkpoint): run the same command again to count from the start".into(),
    };
    Failure::Failed(anyhow::anyhow!("{why}; the count stopped; {then}"))
}

/// Opens `--checkpoint` where one is given: its records audited ([`audit_resumed`]) and
/// resumed by `run`, damaged records skipped with a warning.
fn open_checkpoint<'a>(
    mut run: Run<'a>,
    long: &LongRunArgs,
    engine: &Engine,
) -> Result<(Run<'a>, Option<Arc<Checkpoint>>), Failure> {
    let Some(path) = &long.checkpoint else {
        return Ok((run, None));
    };
    let plan = run.plan();
    let (c, done, skipped) = Checkpoint::open(path, plan, long.shard)
        .map_err(|e| Failure::Failed(anyhow::Error::new(e).context("--checkpoint")))?;
    // Said above the spinner, which the next frame redraws below them.
    if let Some(skipped) = skipped {
        progress::say(&format!(
            "warning: checkpoint {}: {skipped}",
            path.display()
        ));
    }
    audit_resumed(plan, engine, path, &done, long.audit)?;
    run = run.resume(done);
    let already = run.already_done().len();
    if already > 0 {
        let selected = run.selected().len();
        // A checkpoint's records do not say which loop or threads made them: with none left,
        // the result names neither.
        let none_left = if already == selected {
            ", none left to count"
        } else {
            ""
        };
        progress::say(&format!(
            "resuming: {already} of {selected} parts done (from {}){none_left}",
            path.display()
        ));
    }
    Ok((run, Some(Arc::new(c))))
}

/// The test hook [`ABORT_AFTER`]'s observer, where the variable is set and a checkpoint open.
fn abort_hook(checkpoint: Option<&Arc<Checkpoint>>) -> Option<AbortAfter> {
    let after = std::env::var(ABORT_AFTER).ok()?.parse().ok()?;
    Some(AbortAfter {
        after,
        seen: AtomicUsize::new(0),
        checkpoint: Arc::clone(checkpoint?),
    })
}

/// Counts `run` while a helper thread brings the progress up to date (a plain line every
/// 2 s) and serializes the checkpoint's records as they come (off the workers), syncing
/// them every second even while no subproblem finishes; then ends the progress and the
/// checkpoint, and says whether the checkpoint holds every part (synced). The count is
/// complete whatever became of the checkpoint: one that could not keep up is only a
/// warning, given at its first failed write and again at the end.
fn execute(
    run: Run<'_>,
    engine: &Engine,
    progress: Option<&Progress>,
    checkpoint: Option<&Checkpoint>,
) -> (Outcome, bool) {
    let warned = &AtomicBool::new(false);
    let (line, stage, sync) = (
        progress.map(|p| move || p.tick()),
        checkpoint.map(|c| move || memory::within(Use::Records, || c.stage())),
        checkpoint.map(|c| {
            move || {
                if let Err(e) = memory::within(Use::Records, || c.flush())
                    && !warned.swap(true, Ordering::Relaxed)
                {
                    progress::say(&format!(
                        "warning: {e}; counting goes on, and the checkpoint is tried again every second"
                    ));
                }
            }
        }),
    );
    let mut ticks: Vec<Tick> = Vec::new();
    if let (Some(f), Some(p)) = (&line, progress) {
        ticks.push((p.period(), f));
    }
    if let (Some(stage), Some(sync)) = (&stage, &sync) {
        ticks.push((checkpoint::STAGE_EVERY, stage));
        ticks.push((checkpoint::SYNC_EVERY, sync));
    }
    let outcome = while_running(&ticks, || run.execute(engine));
    if let Some(p) = progress {
        p.finish();
    }
    let saved = checkpoint.map(Checkpoint::finish);
    if let Some(Err(e)) = &saved {
        let _ = writeln!(
            io::stderr(),
            "warning: {e}; the count is complete and does not depend on it"
        );
    }
    (outcome, saved.is_some_and(|s| s.is_ok()))
}

/// Writes a shard's partial counts to its output (synced, then renamed into place). Where
/// the output cannot take them, they are kept for the same command to write without
/// counting again: in the checkpoint where it holds them all (`kept`), else in a rescue
/// file ([`files::keep`]).
fn write_shard(
    plan: &nqueens_engine::Plan,
    (shard, engine, outcome, gpu): (shard::Shard, &Engine, Outcome, Option<&str>),
    output: Output,
    kept: Option<&Path>,
) -> Result<(), Failure> {
    let selected = outcome.each.len();
    // A shard result names a loop and a thread count (its format asks for both): where
    // every part was resumed, the engine's loop and one thread.
    let mut result = ShardResult::new(
        plan,
        shard,
        engine.kernel(),
        outcome.each,
        outcome.threads.unwrap_or(1),
        outcome.elapsed_s,
    );
    if let Some(adapter) = gpu {
        result = result.counted_on_gpu(adapter, outcome.gpu_each);
    }
    let dest = output.path().to_path_buf();
    let written = result.write(output).and_then(|written| {
        hooks::pause_at("output");
        written.publish()
    });
    if let Err(e) = written {
        let again = format!(
            "run the same command again to write {} from them without counting again",
            dest.display()
        );
        let kept = match kept {
            Some(checkpoint) => format!(
                "the shard's counts are all in checkpoint {}: {again}",
                checkpoint.display()
            ),
            None => match files::keep(&result, &dest) {
                Ok(file) => format!("the shard's counts are kept in {}: {again}", file.display()),
                Err(why) => match to_stdout(&result) {
                    Ok(()) => format!(
                        "nor could its counts be kept ({why}): the shard's result is written to standard output instead, whole: save it as {} (where a file can take it) to merge it",
                        dest.display()
                    ),
                    Err(e) => format!(
                        "nor could its counts be kept ({why}), nor written to standard output ({e}): the same command counts them again"
                    ),
                },
            },
        };
        let e = flagged_file(&e, "--output");
        return Err(Failure::Failed(anyhow::anyhow!("{e}; {kept}")));
    }
    let _ = writeln!(
        io::stderr(),
        "shard {shard}: {selected} of {} subproblems counted; partial counts written to {}",
        plan.len(),
        dest.display()
    );
    Ok(())
}

/// Writes a shard's result, which neither its output nor a rescue file could take, to
/// standard output, whole: the last place its counts can go (a file size limit, `ulimit -f`,
/// limits files, not a pipe).
fn to_stdout(result: &ShardResult) -> io::Result<()> {
    let bytes = result.text().map_err(io::Error::other)?;
    let mut out = io::stdout().lock();
    out.write_all(&bytes)?;
    out.flush()
}

/// Writes the result an earlier run of `shard` kept in a rescue file (`kept`: its place and
/// the result) to `output`, and removes the file.
fn write_rescued(
    shard: shard::Shard,
    (rescue, result): (files::Rescue, ShardResult),
    output: Output,
) -> Result<(), Failure> {
    let file = rescue.path();
    let dest = output.path().to_path_buf();
    if let Err(e) = result.write(output).and_then(|written| written.publish()) {
        return Err(Failure::Failed(anyhow::anyhow!(
            "{}; the shard's counts stay in {}: run the same command again to write {} from them without counting again",
            flagged_file(&e, "--output"),
            file.display(),
            dest.display()
        )));
    }
    rescue.remove();
    let _ = writeln!(
        io::stderr(),
        "shard {shard}: the counts an earlier run kept in {} written to {}; nothing counted again",
        file.display(),
        dest.display()
    );
    Ok(())
}

/// The counts of a whole board. As merge refuses shards whose fundamental counts are no
/// whole number (eight times a Burnside sum), a count whose resumed records make one is
/// refused.
fn whole_counts(
    plan: &nqueens_engine::Plan,
    outcome: &Outcome,
    long: &LongRunArgs,
) -> Result<Counts, Failure> {
    if plan.symmetry == nqueens_engine::Symmetry::Full && !outcome.tally.unique8.is_multiple_of(8) {
        let from = long.checkpoint.as_ref().map_or(String::new(), |p| {
            format!(" (records resumed from {})", p.display())
        });
        return Err(Failure::Failed(anyhow::anyhow!(
            "the fundamental counts add up to {} eighths, not a whole number of solutions{from}: a record was changed; remove the checkpoint to count afresh",
            outcome.tally.unique8
        )));
    }
    Ok(outcome.counts(plan))
}

/// Recounts `audit` of the parts a checkpoint at `path` holds (`done`), picked at random
/// (the map's order: its hashing is keyed at random in each process), on the engine's
/// threads, and refuses the checkpoint where one differs from its record: a record forged
/// with its checksums recomputed is as untrusted as a shard (`merge --audit`).
fn audit_resumed(
    plan: &nqueens_engine::Plan,
    engine: &Engine,
    path: &std::path::Path,
    done: &std::collections::HashMap<usize, Tally>,
    audit: usize,
) -> Result<(), Failure> {
    use rayon::prelude::*;
    let picked: Vec<(usize, Tally)> = done.iter().take(audit).map(|(&i, &t)| (i, t)).collect();
    if picked.is_empty() {
        return Ok(());
    }
    let again: Vec<Tally> = engine.pool().install(|| {
        picked
            .par_iter()
            .map(|&(i, _)| plan.count(i, engine.kernel()))
            .collect()
    });
    for (&(i, recorded), again) in picked.iter().zip(again) {
        if again != recorded {
            return Err(Failure::Failed(anyhow::anyhow!(
                "checkpoint {}: subproblem {i} recounts to {} solutions ({} x8 fundamental), but the checkpoint records {} ({}): the file was changed; remove it to count afresh",
                path.display(),
                again.solutions,
                again.unique8,
                recorded.solutions,
                recorded.unique8
            )));
        }
    }
    progress::say(&format!(
        "audit: {} of the checkpoint's {} records recounted, all equal",
        picked.len(),
        done.len()
    ));
    Ok(())
}

fn verify(args: VerifyArgs) -> Result<(), Failure> {
    // As `count`: progress for each board, Ctrl-C and the other signals reported.
    let interrupts = Interrupts::install(None);
    let counting = args.engine.counting(args.max_n)?;
    counting.precheck(0..=args.max_n)?;
    let engine = Engine::new(&counting.options)?;
    let long = LongRunArgs {
        progress: args.progress,
        checkpoint: None,
        shard: None,
        output: None,
        audit: 0,
    };
    let mut out = Printer::new(io::stdout().lock(), counting.format).on_terminal();
    let mut bad = Vec::new();
    // A reader that stops early (`verify | head`) does not stop the check: the exit code
    // still says whether every count matched.
    let mut closed = None;
    let mut unused = UnusedDepth::new(&counting);
    for n in 0..=args.max_n {
        let depth = counting.split_depth(n);
        let counts = long_count(n, depth, &engine, (&long, None, &interrupts, None))?
            .expect("a count without --shard prints its counts");
        unused.check(&counts);
        let published = published::all(n).expect("--max-n is within the published table");
        let check = Check::of(&counts, published, published::fundamental(n));
        if check.computed_unique.is_some() && check.published_unique.is_none() {
            let _ = writeln!(
                io::stderr(),
                "note: n = {n} has no published fundamental count (A002562 starts at n = 1)"
            );
        }
        if !check.ok {
            bad.push(n);
        }
        if closed.is_none() {
            match out.print(&check) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => closed = Some(e),
                other => other?,
            }
        }
    }
    hooks::report_threads();
    if bad.is_empty() {
        return closed.map_or(Ok(()), |e| Err(e.into()));
    }
    output::error(format_args!(
        "counts differ from the published values for n = {bad:?}"
    ));
    Err(Failure::Mismatch)
}

/// Predicts a count's cost from a timed sample of its parts: the prediction on stdout, each
/// sample and a summary on stderr.
fn estimate(args: EstimateArgs) -> Result<(), Failure> {
    let n = args.n;
    let counting = args.engine.counting(n)?;
    let counting = counting
        .with_gpu(args.gpu.asked())
        .map_err(Failure::Usage)?;
    counting.precheck([n])?;
    let gpu = crate::gpu::open(&args.gpu, crate::gpu::share(args.engine.memory()))?;
    let engine = Engine::new(&counting.options)?;
    let plan = engine.plan_at(n, counting.split_depth(n))?;
    if let Some(count) = args.shards {
        shard::Shard { index: 0, count }.check(&plan)?;
    }
    let settings = estimate::Settings {
        samples: args.samples,
        seconds: args.seconds,
        seed: args.seed,
        ..estimate::Settings::default()
    };
    let start = Instant::now();
    let e = sample(&engine, &plan, &settings, (start, gpu.as_ref()))?;
    let threads = engine.threads();
    let longest = args
        .shards
        .map(|count| longest_shard((&engine, threads), &plan, &e, count));
    let hours = |s: f64| s / 3600.0;
    let wall_s = e.wall(0..e.parts, threads);
    let prediction = Prediction {
        n,
        method: plan.method,
        kernel: crate::gpu::loop_name(gpu.as_ref(), engine.kernel()),
        threads,
        parts: e.parts,
        sampled: e.samples.len(),
        sampling_s: start.elapsed().as_secs_f64(),
        thread_hours: hours(e.core_seconds),
        thread_hours_low: e.interval.map(|i| hours(i.0)),
        thread_hours_high: e.interval.map(|i| hours(i.1)),
        strata: e.strata,
        abandoned: e.abandoned.len(),
        lean: e.lean,
        wall_s,
        memory_limit: (plan.method == Method::Join).then_some(counting.options.memory),
        memory_seen: peak_memory(),
        shards: args.shards,
        longest_shard_s: longest,
        gpu: gpu.as_ref().map(crate::gpu::Opened::name),
        // The threads feed the one GPU: the count's hours are the GPU's.
        gpu_hours: gpu.as_ref().map(|_| hours(wall_s)),
    };
    summarize(&prediction, &e, args.seconds);
    let mut out = Printer::new(io::stdout().lock(), counting.format).on_terminal();
    out.print(&prediction)?;
    hooks::report_threads();
    Ok(())
}

/// Times a sample of `plan`'s parts, each one said on stderr as it ends where stderr is a
/// terminal (`start`: when the command started).
fn sample(
    engine: &Engine,
    plan: &nqueens_engine::Plan,
    settings: &estimate::Settings,
    (start, gpu): (Instant, Option<&crate::gpu::Opened>),
) -> Result<estimate::Estimate, Failure> {
    let n = plan.n;
    let loud = std::io::IsTerminal::is_terminal(&io::stderr());
    let done = AtomicUsize::new(0);
    let bound = settings.seconds;
    let seen = |s: &estimate::Sample| {
        let k = done.fetch_add(1, Ordering::Relaxed) + 1;
        if loud {
            // The line is cleared to its end: a shorter one leaves nothing of the last.
            let _ = write!(
                io::stderr(),
                "\r\x1b[2Kestimate n={n}: {k} parts sampled, {:.0}/{} s (last: part {}, {:.3} s)",
                start.elapsed().as_secs_f64(),
                bound,
                s.part,
                s.seconds
            );
        }
    };
    let e = match gpu {
        Some(g) => estimate::estimate_on(engine, plan, settings, &seen, g.pairs()),
        None => estimate::estimate(engine, plan, settings, &seen),
    };
    // The line goes once the sampling ends: the summary takes its place.
    if loud && done.load(Ordering::Relaxed) > 0 {
        let _ = write!(io::stderr(), "\r\x1b[2K");
    }
    // A GPU that failed timed nothing that can be trusted.
    if let Some(failure) = gpu.and_then(crate::gpu::Opened::failure) {
        return Err(failure);
    }
    Ok(e?)
}

/// The predicted wall time of the longest of `count` shards, the plan dealt once.
fn longest_shard(
    (engine, threads): (&Engine, usize),
    plan: &nqueens_engine::Plan,
    e: &estimate::Estimate,
    count: usize,
) -> f64 {
    let costs = engine.pool().install(|| plan.costs());
    let mut shards = vec![Vec::new(); count];
    for (i, part) in shard::deal(costs, count).into_iter().enumerate() {
        shards[part].push(i);
    }
    shards
        .into_iter()
        .map(|parts| e.wall(parts, threads))
        .fold(0.0, f64::max)
}

/// Says on stderr what `estimate` predicts, and what the sample left out (`seconds`: the
/// bound it was taken in).
fn summarize(prediction: &Prediction, e: &estimate::Estimate, seconds: f64) {
    let n = prediction.n;
    let hours = |s: f64| s / 3600.0;
    let _ = writeln!(
        io::stderr(),
        "n = {n}: about {} thread-hours ({}), {} on {} threads, from {} of {} parts; pieces {}",
        significant(prediction.thread_hours),
        match e.interval {
            Some((low, high)) => format!(
                "95%: {} to {}, the sampling's spread over {} strata",
                significant(hours(low)),
                significant(hours(high)),
                e.strata
            ),
            None => "no interval: a stratum had one part in the time; a larger --seconds gives one"
                .to_string(),
        },
        duration(prediction.wall_s),
        prediction.threads,
        prediction.sampled,
        prediction.parts,
        if e.pieces_once {
            format!("{:.1} s, once per row set", e.pieces_seconds)
        } else {
            format!("about {:.0} s, with each part", e.pieces_seconds)
        }
    );
    if !e.abandoned.is_empty() {
        let ran: Vec<String> = e.abandoned.iter().map(|s| significant(s.seconds)).collect();
        let _ = writeln!(
            io::stderr(),
            "n = {n}: {} part{} still counting at the bound (after {} s) left out; the parts kept are likelier the short ones, so the figures lean low by {} (a larger --seconds, more parts a thread, leans less)",
            e.abandoned.len(),
            if e.abandoned.len() == 1 { "" } else { "s" },
            ran.join(", "),
            match e.lean {
                Some(l) => format!(
                    "about {}%, from the sample's spread",
                    significant(100.0 * l)
                ),
                None => "an amount not known: one fell in a stratum of a single sample".to_string(),
            }
        );
    }
    if !e.untimed.is_empty() {
        let _ = writeln!(
            io::stderr(),
            "n = {n}: the symmetric solutions' part (one search, counted once) did not finish within --seconds {seconds}: it is left out of the figures, which are short by its time (a search of the few solutions the square's other symmetries fix: small beside the keys)",
        );
    }
}

/// A duration for people: seconds, minutes, hours or days.
fn duration(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.1} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86400.0),
    }
}

/// The most memory this process has held (Linux's `VmHWM`), where the system says.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn solve(args: SolveArgs) -> Result<(), Failure> {
    let n = args.n;
    let kind = if args.unique {
        "fundamental solution"
    } else {
        "solution"
    };
    if args.format == BoardFormat::Svg {
        svg_fits(&args, kind)?;
    } else if args.limit.is_none() && n >= ENDLESS {
        let _ = writeln!(
            io::stderr(),
            "note: listing every {kind} for n = {n} will not end soon: from n = {ENDLESS} there are tens of millions or more, several times more with each size; --limit K lists the first K"
        );
    }
    // One instance per format, so each renderer is inlined into the search. Separators lead
    // each record; the first record's is dropped.
    let listed = match args.format {
        BoardFormat::Board => write_solutions(&args, with_lead(b'\n', board::board), (b"", b"")),
        BoardFormat::Leetcode => {
            write_solutions(&args, with_lead(b',', board::leetcode), (b"[", b"]\n"))
        }
        BoardFormat::Columns => write_solutions(&args, board::columns, (b"", b"")),
        BoardFormat::Json => write_solutions(&args, board::json, (b"", b"")),
        BoardFormat::Svg => write_svg(&args),
    }?;
    if listed == 0 && args.limit != Some(0) {
        let _ = writeln!(
            io::stderr(),
            "note: n = {n} has no solutions: {n} queens cannot be placed on a {n}x{n} board without two attacking each other"
        );
    }
    Ok(())
}

/// The smallest board `solve` warns of with no `--limit`: its solutions (its classes with
/// `--unique`) run to tens of millions, and the listing to hours and hundreds of gigabytes.
const ENDLESS: u32 = 18;

/// The most boards one SVG picture draws: the solutions are gathered before the picture is
/// written, and a picture of more is too large to draw or to view.
const SVG_MOST: u64 = 10_000;

/// The largest board whose every solution (`unique`: every class) an SVG picture draws: the
/// next has more than [`SVG_MOST`] (n = 12 has 14,200 solutions; n = 13, 9,233 classes).
fn svg_whole(unique: bool) -> u32 {
    if unique { 12 } else { 11 }
}

/// Refuses at once (exit 2) a picture of more than [`SVG_MOST`] boards, `kind` of solution,
/// rather than gathering them: one with no `--limit` of a board past [`svg_whole`], or one
/// whose `--limit` is past the bound.
fn svg_fits(args: &SolveArgs, kind: &str) -> Result<(), Failure> {
    let (n, whole) = (args.n, svg_whole(args.unique));
    if n <= whole {
        return Ok(());
    }
    match args.limit {
        Some(k) if k <= SVG_MOST => Ok(()),
        Some(k) => Err(Failure::Usage(anyhow::anyhow!(
            "--limit {k} is too many boards for one SVG picture: it draws at most {SVG_MOST}; --limit {SVG_MOST} draws the first {SVG_MOST}"
        ))),
        None => Err(Failure::Usage(anyhow::anyhow!(
            "n = {n} has too many {kind}s for one SVG picture (it draws at most {SVG_MOST} boards: every {kind} up to n = {whole}); --limit K draws the first K"
        ))),
    }
}

/// What `solve` lists, its loop checked against the CPU first.
fn list_options(args: &SolveArgs) -> Result<ListOptions, Failure> {
    args.kernel.resolve()?;
    Ok(ListOptions {
        threads: args.threads,
        unique: args.unique,
        limit: args.limit,
        kernel: args.kernel,
    })
}

/// Draws the solutions listed as one SVG picture, and returns how many it drew: they are
/// gathered first (the picture's size depends on their number), so `--limit` or `--unique`
/// keeps a large board's small ([`svg_fits`]).
fn write_svg(args: &SolveArgs) -> Result<u64, Failure> {
    let options = list_options(args)?;
    let mut boards = Vec::new();
    let listed = solve::for_each_solution(args.n, &options, |cols| {
        boards.extend_from_slice(cols);
        ControlFlow::Continue(())
    })?;
    let n = args.n;
    let title = format!(
        "{n} {}: {}",
        if n == 1 { "queen" } else { "queens" },
        svg_caption(listed, args.unique, args.limit == Some(listed))
    );
    let mut out = io::stdout().lock();
    out.write_all(board::svg(n as usize, &boards, &title).as_bytes())?;
    out.flush()?;
    Ok(listed)
}

/// A renderer that writes `lead` before each record.
fn with_lead(lead: u8, render: fn(&[u8], &mut Vec<u8>)) -> impl Fn(&[u8], &mut Vec<u8>) + Sync {
    move |cols, out| {
        out.push(lead);
        render(cols, out)
    }
}

/// What an SVG picture shows: `listed` solutions (one per class when `unique`; the first of
/// more when `cut` by the limit).
fn svg_caption(listed: u64, unique: bool, cut: bool) -> String {
    let kind = if unique { "fundamental " } else { "" };
    let noun = if listed == 1 { "solution" } else { "solutions" };
    let classes = if unique {
        " (one per class of rotations and reflections)"
    } else {
        ""
    };
    match listed {
        0 => "no solutions".to_string(),
        1 if cut => format!("the first {kind}solution"),
        1 => format!("the one {kind}solution{classes}"),
        k if cut => format!("the first {k} {kind}{noun}"),
        k if unique => format!("the {k} {kind}{noun}{classes}"),
        k => format!("all {k} {noun}"),
    }
}

/// Writes every solution with `render` between `open` and `close` (from `frame`), and returns
/// how many it wrote; when the renderer leads each record with a separator, the first one is
/// dropped.
fn write_solutions<R>(args: &SolveArgs, render: R, frame: (&[u8], &[u8])) -> Result<u64, Failure>
where
    R: Fn(&[u8], &mut Vec<u8>) + Sync,
{
    let (open, close) = frame;
    let leads = matches!(args.format, BoardFormat::Board | BoardFormat::Leetcode);
    let options = list_options(args)?;
    let mut out = io::stdout().lock();
    out.write_all(open)?;
    let mut first = true;
    let mut failed = None;
    let listed = solve::render(args.n, &options, render, |run| {
        let mut bytes = run.bytes();
        if first && leads && !run.is_empty() {
            bytes = &bytes[1..];
        }
        first &= run.is_empty();
        match out.write_all(bytes) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    out.write_all(close)?;
    out.flush()?;
    Ok(listed)
}
