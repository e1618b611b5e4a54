//! `--gpu`, `--gpu-only` and `--gpu-device`: the join's keys counted on a GPU beside the
//! CPU threads. The flags exist in every build, so that a build without the GPU refuses
//! them by name rather than as unknown arguments.

use clap::Args;

use crate::commands::Failure;

/// The GPU flags of `count` and `estimate`.
#[derive(Clone, Copy, Debug, Args)]
pub struct GpuArgs {
    /// Count the join's keys on a GPU too, beside the CPU threads (Vulkan; a build with
    /// `--features gpu`)
    #[arg(long)]
    pub gpu: bool,
    /// Count every key on the GPU: the CPU threads count only the parts that are no key
    /// (full mode's symmetric solutions); implies --gpu
    #[arg(long)]
    pub gpu_only: bool,
    /// The GPU adapter to use, by index among the Vulkan adapters (one process per GPU, each
    /// counting its own --shard of one plan); implies --gpu [default: 0]
    #[arg(long, value_name = "I", value_parser = parse_device)]
    pub gpu_device: Option<usize>,
}

fn parse_device(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&i| i < 1 << 16)
        .ok_or_else(|| "the GPU device must be a whole number from 0 to 65535".to_string())
}

impl GpuArgs {
    /// Whether a GPU was asked for.
    pub fn asked(&self) -> bool {
        self.gpu || self.gpu_only || self.gpu_device.is_some()
    }
}

/// The GPU the flags ask for, opened, with whether it is to count every key; `None` where
/// none is asked for. Its buffers take at most `buffer_bytes`. Refused (exit 2) in a build
/// without the GPU, and where no adapter is found.
#[cfg(feature = "gpu")]
pub fn open(args: &GpuArgs, buffer_bytes: usize) -> Result<Option<Opened>, Failure> {
    use nqueens_engine::gpu::{Gpu, GpuOptions};
    use std::io::Write;
    if !args.asked() {
        return Ok(None);
    }
    let options = GpuOptions {
        device: args.gpu_device.unwrap_or(0),
        workgroup_bytes: workgroup_cap()?,
        buffer_bytes: buffer_bytes as u64,
        slice_least: None,
    };
    let gpu = Gpu::open(options).map_err(|e| {
        let e = anyhow::Error::new(e);
        Failure::Usage(match args.gpu_device {
            Some(i) => e.context(format!("--gpu-device {i}")),
            None => e.context("--gpu"),
        })
    })?;
    quiet_gpu_panics();
    let a = gpu.adapter();
    if a.software {
        let _ = writeln!(
            std::io::stderr(),
            "note: GPU {} is a software adapter (it runs on the CPU): exact, but no faster than the CPU threads",
            a.name
        );
    }
    // The name lives as long as the process: the counts name it.
    let name: &'static str = Box::leak(a.name.clone().into_boxed_str());
    Ok(Some(Opened {
        gpu,
        name,
        only: args.gpu_only,
        lose_after: lose_after(),
        matched: std::sync::atomic::AtomicU64::new(0),
    }))
}

std::thread_local! {
    /// Whether this thread is in a GPU's matching, whose failures (a panic of wgpu's included,
    /// which the library catches) become the device's error that the command ends with.
    #[cfg(feature = "gpu")]
    static IN_GPU: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Leaves the message of a panic inside a GPU's matching to the error the command ends with
/// ([`Opened::failure`]): the library catches it and keeps it as the device's fault. Any other
/// panic is reported as before.
#[cfg(feature = "gpu")]
fn quiet_gpu_panics() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !IN_GPU.get() {
            before(info);
        }
    }));
}

/// Test hook: lose the GPU (as a driver's reset would) once it has done this many
/// matchings, for the tests of a run whose GPU fails.
#[cfg(feature = "gpu")]
const LOSE_AFTER: &str = "NQUEENS_TEST_GPU_LOST_AFTER";

#[cfg(feature = "gpu")]
fn lose_after() -> Option<u64> {
    std::env::var(LOSE_AFTER).ok()?.parse().ok()
}

/// A GPU opened for a command: its name and whether it counts every key.
#[cfg(feature = "gpu")]
pub struct Opened {
    pub gpu: nqueens_engine::gpu::Gpu,
    pub name: &'static str,
    pub only: bool,
    /// [`LOSE_AFTER`]'s matchings, where it is set, and the matchings done.
    lose_after: Option<u64>,
    matched: std::sync::atomic::AtomicU64,
}

#[cfg(feature = "gpu")]
impl nqueens_engine::Pairs for Opened {
    fn disjoint(&self, table: &[u64], probe: &[u64]) -> u64 {
        let done = self
            .matched
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.lose_after == Some(done) {
            self.gpu.lose();
        }
        IN_GPU.set(true);
        let found = nqueens_engine::Pairs::disjoint(&self.gpu, table, probe);
        IN_GPU.set(false);
        found
    }

    fn failed(&self) -> Option<String> {
        nqueens_engine::Pairs::failed(&self.gpu)
    }
}

#[cfg(feature = "gpu")]
impl Opened {
    /// The GPU as the join's matching.
    pub fn pairs(&self) -> &dyn nqueens_engine::Pairs {
        self
    }

    /// Where the GPU failed: the error a command ends with (exit 1).
    pub fn failure(&self) -> Option<Failure> {
        self.gpu
            .fault()
            .map(|e| Failure::Failed(anyhow::Error::new(e)))
    }

    /// Whether it counts every key (`--gpu-only`).
    pub fn only(&self) -> bool {
        self.only
    }

    /// The adapter's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// Where `NQUEENS_GPU_WORKGROUP_BYTES` is set, the workgroup memory the GPU's shaders may
/// use at most (below the adapter's limit: to check that no shader assumes its size).
#[cfg(feature = "gpu")]
fn workgroup_cap() -> Result<Option<u32>, Failure> {
    let Ok(text) = std::env::var("NQUEENS_GPU_WORKGROUP_BYTES") else {
        return Ok(None);
    };
    text.parse::<u32>()
        .ok()
        .filter(|&b| b >= 1024)
        .map(Some)
        .ok_or_else(|| {
            Failure::Usage(anyhow::anyhow!(
                "NQUEENS_GPU_WORKGROUP_BYTES must be a whole number of bytes from 1024 to 4294967295, not {text:?}"
            ))
        })
}

/// A build without the GPU: asking for one is refused, naming the feature it needs.
#[cfg(not(feature = "gpu"))]
pub fn open(args: &GpuArgs, _buffer_bytes: usize) -> Result<Option<Opened>, Failure> {
    if !args.asked() {
        return Ok(None);
    }
    let flag = if args.gpu_only {
        "--gpu-only"
    } else if args.gpu_device.is_some() {
        "--gpu-device"
    } else {
        "--gpu"
    };
    Err(Failure::Usage(anyhow::anyhow!(
        "{flag}: this nqueens was built without the GPU; build it with `cargo build --release --features gpu`"
    )))
}

/// No GPU in this build: never made.
#[cfg(not(feature = "gpu"))]
pub enum Opened {}

#[cfg(not(feature = "gpu"))]
impl Opened {
    pub fn pairs(&self) -> &dyn nqueens_engine::Pairs {
        match *self {}
    }

    pub fn only(&self) -> bool {
        match *self {}
    }

    pub fn name(&self) -> &'static str {
        match *self {}
    }

    pub fn failure(&self) -> Option<Failure> {
        match *self {}
    }
}

/// The loop a prediction names: the GPU's name where it counted, else the CPU's loop.
pub fn loop_name(opened: Option<&Opened>, kernel: nqueens_engine::Kernel) -> &'static str {
    opened.map_or_else(
        || nqueens_engine::types::kernel_name(Some(kernel)),
        Opened::name,
    )
}

/// A GPU's share of `--memory`: its buffers (a quarter; on a software adapter they are
/// the host's memory, and every upload is staged in it on any adapter).
pub fn share(memory: usize) -> usize {
    memory / 4
}

/// The counts of a run that used `opened`, naming it and its parts.
pub fn name_in(counts: &mut nqueens_engine::Counts, opened: Option<&Opened>, gpu_parts: u64) {
    let Some(opened) = opened else { return };
    counts.gpu = Some(opened.name());
    counts.gpu_parts = Some(gpu_parts);
    counts.cpu_parts = Some(counts.subproblems.saturating_sub(gpu_parts));
}
