//! The join's matching on a GPU, through wgpu on Vulkan (`--features gpu`).
//!
//! A key's half-boards are built on the CPU exactly as [`crate::join`] builds them (its
//! chunks, blocks and layouts); every matching of a table side against a probe side is
//! handed to a [`Gpu`] ([`crate::join::Pairs`]), which counts the pairs of words that share
//! no bit. On the GPU the matching is the join's split, breadth-first: each level takes a
//! list of tasks (a table span against a probe span) that picked a diagonal from samples of
//! both spans, partitions the table spans on it and compacts the probe words without it, a
//! workgroup a slice, then writes the next level's list, a workgroup a task (`split.wgsl`),
//! many levels to a submission with the GPU writing each dispatch's size; a task whose table
//! span is at most a tile (or that no diagonal splits) goes to the leaves, where a workgroup
//! holds a tile of table words in workgroup memory and counts a slice of probe words against
//! it (`leaf.wgsl`). Counts are per-workgroup `u32` partials, each at most a tile times a
//! slice, added on the GPU to two-word counters and summed here. `docs/gpu.md` gives the
//! design and its limits.
//!
//! Nothing of this module is imported by the join: it stands on [`crate::join::Pairs`].

use std::sync::{Arc, Mutex};

mod descent;

pub use descent::Work;

/// The most table words a leaf's workgroup holds: the join's leaf ([`crate::join`]'s 512),
/// so that the leaves test no more pairs than the CPU's do, where the workgroup memory
/// holds them.
pub const TILE_MOST: u32 = 512;

/// Probe words a leaf's workgroup counts against its tile: its partial count is at most
/// `TILE_MOST * SLICE` (2^22), far below 2^32.
pub const SLICE: u32 = 8192;

/// The least words a split level's workgroup takes on a GPU ([`Sizes::slice_least`]).
pub const SLICE_LEAST: u32 = 32;

/// Words of each side a split's workgroup samples to pick its diagonal (the CPU's split
/// samples about as many).
pub const SAMPLES: u32 = 128;

/// Why no GPU could be used.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No Vulkan adapter at all.
    #[error(
        "no GPU adapter found through Vulkan: install a Vulkan driver (on Debian or Ubuntu, \
         `apt-get install mesa-vulkan-drivers libvulkan1` gives the software one, lavapipe; \
         a GPU's vendor driver gives its own)"
    )]
    NoAdapter,
    /// An index past the adapters found.
    #[error("GPU device {index} does not exist: {found} adapter(s) found (0 to {last})", last = found.saturating_sub(1))]
    NoSuchDevice {
        /// The index asked for.
        index: usize,
        /// The adapters found.
        found: usize,
    },
    /// The adapter lacks what the shaders need.
    #[error("GPU adapter {name} cannot run the matching: {why}")]
    Unfit {
        /// The adapter's name.
        name: String,
        /// What it lacks.
        why: String,
    },
    /// The device could not be opened.
    #[error("GPU adapter {name} could not be opened: {why}")]
    Open {
        /// The adapter's name.
        name: String,
        /// wgpu's message.
        why: String,
    },
    /// The device failed while it counted (lost, or it refused a call): nothing it counted
    /// since the last good matching is a count.
    #[error("GPU {name} failed: {why}")]
    Failed {
        /// The adapter's name.
        name: String,
        /// The device's message.
        why: String,
    },
}

/// How a GPU is opened.
#[derive(Clone, Copy, Debug)]
pub struct GpuOptions {
    /// The adapter's index among the Vulkan adapters found ([`adapters`]).
    pub device: usize,
    /// Workgroup memory the shaders may use, at most: the adapter's limit, or less where
    /// asked (the tests cap it at 16 and 32 KiB).
    pub workgroup_bytes: Option<u32>,
    /// Bytes the GPU's buffers may take together (on a software adapter they are the
    /// host's memory; staging copies of uploads are host memory on every adapter).
    pub buffer_bytes: u64,
    /// The least words a split level's workgroup takes ([`Sizes::slice_least`]): the
    /// adapter's choice where `None`.
    pub slice_least: Option<u32>,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            device: 0,
            workgroup_bytes: None,
            buffer_bytes: 1 << 30,
            slice_least: None,
        }
    }
}

/// A Vulkan adapter as found: its name and whether it is a software one (a CPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adapter {
    /// The driver's name for it (`llvmpipe (LLVM 15.0.6, 256 bits)` for lavapipe).
    pub name: String,
    /// Whether it runs on the CPU (lavapipe): counted, but at a CPU's speed.
    pub software: bool,
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    wgpu::Instance::new(desc)
}

fn describe(a: &wgpu::Adapter) -> Adapter {
    let info = a.get_info();
    Adapter {
        name: info.name,
        software: info.device_type == wgpu::DeviceType::Cpu,
    }
}

/// The Vulkan adapters this process can use, in the order `--gpu-device` numbers them.
pub fn adapters() -> Vec<Adapter> {
    let found = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::VULKAN));
    found.iter().map(describe).collect()
}

/// The sizes the shaders and buffers take on one adapter, read from its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Invocations a workgroup: 256, or fewer where the adapter allows fewer (at least 64).
    pub workgroup: u32,
    /// Table words a leaf's workgroup holds: [`TILE_MOST`], or less where the workgroup
    /// memory allowed holds less.
    pub tile: u32,
    /// Workgroup memory the shaders may use.
    pub workgroup_bytes: u32,
    /// The most workgroups a dispatch's dimension holds.
    pub max_dimension: u32,
    /// The most words one buffer binding holds (table and probe buffers).
    pub binding_words: u64,
    /// The least words a split level's workgroup takes: [`SLICE_LEAST`] on a GPU, so that
    /// one key's level spreads over thousands of workgroups; one an invocation on a
    /// software adapter, whose workgroups run one after another at about the same cost
    /// whatever they hold.
    pub slice_least: u32,
}

impl Sizes {
    /// The sizes for an adapter of `limits`, its workgroup memory capped at `cap`.
    pub fn of(limits: &wgpu::Limits, cap: Option<u32>) -> Result<Sizes, String> {
        let workgroup = 256
            .min(limits.max_compute_invocations_per_workgroup)
            .min(limits.max_compute_workgroup_size_x);
        if workgroup < 64 {
            return Err(format!(
                "{workgroup} invocations a workgroup, 64 needed (one a diagonal)"
            ));
        }
        let bytes = cap.map_or(limits.max_compute_workgroup_storage_size, |c| {
            c.min(limits.max_compute_workgroup_storage_size)
        });
        // A leaf holds its tile's 64 bitsets (as many bytes as the tile's words take) and
        // four words; half the memory at most, so that a second workgroup may share a
        // compute unit.
        let tile = TILE_MOST.min(bytes / 16).next_power_of_two();
        let tile = if tile * 16 > bytes { tile / 2 } else { tile };
        if tile < 32 || Self::split_bytes() > bytes {
            return Err(format!(
                "{bytes} bytes of workgroup memory, {} needed",
                Self::split_bytes().max(32 * 16)
            ));
        }
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        Ok(Sizes {
            workgroup,
            tile,
            workgroup_bytes: bytes,
            max_dimension: limits.max_compute_workgroups_per_dimension,
            // Indices are u32 in the shaders.
            binding_words: (binding / 8).min(1 << 31),
            slice_least: SLICE_LEAST,
        })
    }

    /// Workgroup memory the split shader declares: two tables of 64 counts, ten words and
    /// two tasks.
    fn split_bytes() -> u32 {
        2 * 64 * 4 + 10 * 4 + 2 * 16
    }

    /// Words of one diagonal's bitset of a tile in the leaf shader (a bit a table word).
    pub fn set_words(&self) -> u32 {
        self.tile.div_ceil(32)
    }

    /// Workgroup memory the leaf shader declares: a bitset of the tile for each of the 64
    /// diagonals and four words.
    pub fn leaf_bytes(&self) -> u32 {
        64 * 4 * self.set_words() + 16
    }
}

/// An open GPU: its device, its two pipelines and its buffers, one matching at a time.
pub struct Gpu {
    adapter: Adapter,
    sizes: Sizes,
    inner: Mutex<descent::Device>,
    /// The device's first error (uncaptured, lost, or a failed read-back), once there is
    /// one: every matching from then on is refused.
    fault: Fault,
    /// The device, to lose it on purpose ([`Gpu::lose`]).
    device: wgpu::Device,
}

/// Where a device's error handlers leave its first error.
type Fault = Arc<Mutex<Option<String>>>;

/// Keeps `why` in `fault` where it holds no error yet.
fn note(fault: &Fault, why: String) {
    fault
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert(why);
}

impl Gpu {
    /// Opens adapter `options.device` with the limits it has (or the workgroup memory
    /// asked for, if less) and compiles the shaders for them.
    pub fn open(options: GpuOptions) -> Result<Gpu, GpuError> {
        let instance = instance();
        let found = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        if found.is_empty() {
            return Err(GpuError::NoAdapter);
        }
        let count = found.len();
        let Some(raw) = found.into_iter().nth(options.device) else {
            return Err(GpuError::NoSuchDevice {
                index: options.device,
                found: count,
            });
        };
        let adapter = describe(&raw);
        let limits = raw.limits();
        let unfit = |why: String| GpuError::Unfit {
            name: adapter.name.clone(),
            why,
        };
        // The split's compaction ranks words with subgroup prefix sums.
        if !raw.features().contains(wgpu::Features::SUBGROUP) {
            return Err(unfit("it has no subgroup operations".into()));
        }
        let mut sizes = Sizes::of(&limits, options.workgroup_bytes).map_err(unfit)?;
        let own = if adapter.software {
            sizes.workgroup
        } else {
            SLICE_LEAST
        };
        sizes.slice_least = options.slice_least.unwrap_or(own).max(1);
        let (device, queue) = pollster::block_on(raw.request_device(&wgpu::DeviceDescriptor {
            label: Some("nqueens"),
            required_features: wgpu::Features::SUBGROUP,
            required_limits: limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: memory_hints(options.buffer_bytes),
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Open {
            name: adapter.name.clone(),
            why: e.to_string(),
        })?;
        // wgpu's own handlers panic: these keep the error, and the count fails with it.
        let fault: Fault = Arc::default();
        let f = Arc::clone(&fault);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| note(&f, e.to_string())));
        let f = Arc::clone(&fault);
        // A lost device explains the errors before it: its message replaces theirs.
        device.set_device_lost_callback(move |reason, why| {
            let mut fault = f.lock().unwrap_or_else(|e| e.into_inner());
            *fault = Some(
                format!("the device was lost ({reason:?}) {why}")
                    .trim()
                    .to_string(),
            );
        });
        // The shaders compiled for these sizes: an error here refuses the adapter.
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let compiled = descent::Device::new(device.clone(), queue, sizes, options.buffer_bytes);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Open {
                name: adapter.name.clone(),
                why: e.to_string(),
            });
        }
        if let Some(why) = fault.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(GpuError::Open {
                name: adapter.name.clone(),
                why,
            });
        }
        Ok(Gpu {
            adapter,
            sizes,
            inner: Mutex::new(compiled),
            fault,
            device,
        })
    }

    /// Loses the device on purpose, as a driver's reset would (`wgpu::Device::destroy`):
    /// every matching after fails ([`GpuError::Failed`]). For tests of what a run does when
    /// its GPU fails.
    pub fn lose(&self) {
        self.device.destroy();
    }

    /// The device's first error, where it had one: what it counted since is no count.
    pub fn fault(&self) -> Option<GpuError> {
        let fault = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        fault.as_ref().map(|why| GpuError::Failed {
            name: self.adapter.name.clone(),
            why: why.clone(),
        })
    }

    /// The bytes of device memory its buffers hold now, blocks reserved and not yet used
    /// included, where wgpu says (on a software adapter they are the host's memory).
    pub fn reserved_bytes(&self) -> Option<u64> {
        let report = self.device.generate_allocator_report()?;
        Some(report.total_reserved_bytes)
    }

    /// The adapter this GPU is.
    pub fn adapter(&self) -> &Adapter {
        &self.adapter
    }

    /// The sizes its shaders and buffers take.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }

    /// What the GPU has done since it was opened or last [`Gpu::take_work`]: pairs tested
    /// at the leaves, probe words visiting leaves, words the levels moved, dispatches,
    /// submissions and the workgroups of each.
    pub fn take_work(&self) -> Work {
        let mut d = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut d.work)
    }

    /// The pairs of `a` and `b` words that share no bit, counted on the GPU; an error where
    /// the device failed, in this matching or before ([`Gpu::fault`]).
    pub fn count_disjoint(&self, a: &[u64], b: &[u64]) -> Result<u64, GpuError> {
        self.count_disjoint_each(&[(a, b)]).map(|found| found[0])
    }

    /// [`Gpu::count_disjoint`] of each matching of `matchings` (its two sides), those that
    /// fit the buffers together counted in one descent.
    pub fn count_disjoint_each(
        &self,
        matchings: &[(&[u64], &[u64])],
    ) -> Result<Vec<u64>, GpuError> {
        let mut found = vec![0; matchings.len()];
        self.matched(matchings, &mut found);
        match self.fault() {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }

    /// The pairs the device counted of each matching, into `found`; 0 once it has failed. A
    /// read-back the device could not give is kept as the fault; so is a panic of wgpu's
    /// inside the descent, where panics unwind (the tests' builds; the release build aborts
    /// on one).
    fn matched(&self, matchings: &[(&[u64], &[u64])], found: &mut [u64]) {
        found.fill(0);
        if self.fault().is_some() {
            return;
        }
        let mut d = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let run = std::panic::AssertUnwindSafe(|| d.disjoint_each(matchings, found));
        let failed = match std::panic::catch_unwind(run) {
            Ok(Ok(())) => return,
            Ok(Err(why)) => why,
            Err(panic) => panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("the descent stopped")
                .to_string(),
        };
        found.fill(0);
        note(&self.fault, failed);
    }
}

impl crate::join::Pairs for Gpu {
    fn disjoint(&self, table: &[u64], probe: &[u64]) -> u64 {
        let mut found = [0];
        self.matched(&[(table, probe)], &mut found);
        found[0]
    }

    fn disjoint_each(&self, matchings: &[(&[u64], &[u64])], found: &mut [u64]) {
        self.matched(matchings, found);
    }

    fn failed(&self) -> Option<String> {
        self.fault().map(|e| e.to_string())
    }
}

/// The blocks device memory is taken in for buffers of `buffer_bytes` in all: an eighth of
/// them, from 4 MiB (the least wgpu takes) to 256 MiB. wgpu's own choice takes 128 MiB at
/// least, which a small budget then passes (on a software adapter, in the host's memory);
/// a buffer larger than a block gets memory of its own, of its size.
fn memory_hints(buffer_bytes: u64) -> wgpu::MemoryHints {
    let block = (buffer_bytes / 8).clamp(4 << 20, 256 << 20);
    wgpu::MemoryHints::Manual {
        suballocated_device_memory_block_size: block..block,
    }
}

/// A compute pipeline from `source` (its `WG`, `TILE` and `SAMPLES` replaced by `sizes`').
fn pipeline(
    device: &wgpu::Device,
    source: &str,
    entry: &str,
    sizes: Sizes,
) -> wgpu::ComputePipeline {
    let code = source
        .replace("WG", &sizes.workgroup.to_string())
        .replace("TILE", &sizes.tile.to_string())
        .replace("SAMPLES", &SAMPLES.to_string());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(code.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A buffer of `bytes` (at least 16) for `usage`.
fn buffer(device: &wgpu::Device, bytes: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes.max(16).next_multiple_of(16),
        usage,
        mapped_at_creation: false,
    })
}
