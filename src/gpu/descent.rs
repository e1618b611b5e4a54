//! One matching on the GPU, level by level: the host keeps the queue of tasks between
//! levels (a few words each), the words never leave the GPU.

use wgpu::BufferUsages as U;

use super::{SLICE, Sizes, buffer, pipeline, uniform};

/// A run of a split task's table span or probe span that one workgroup scatters.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct Slice {
    task: u32,
    start: u32,
    len: u32,
    probe: u32,
}

/// A table span against a probe span, as the shaders read it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

/// A split's second child with this probe length says its first is its task, unsplit.
const UNSPLIT: u32 = u32::MAX;

/// What the GPU path did: the speed proof that needs no device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Matchings handed to the GPU.
    pub matchings: u64,
    /// Pairs of words tested at the leaves (tile words times slice words).
    pub tested: u128,
    /// Probe words visiting a leaf tile.
    pub visits: u128,
    /// Words the split levels wrote (table words partitioned, probe words compacted).
    pub moved: u128,
    /// Words uploaded.
    pub uploaded: u128,
    /// Compute dispatches.
    pub dispatches: u64,
    /// Submissions, each a level of one matching.
    pub submissions: u64,
    /// Non-empty workgroups of each submission, in order, each matching's last marked
    /// `true`.
    pub workgroups: Vec<(u64, bool)>,
    /// Matchings restarted with their table cut in two, the probe buffer having run out.
    pub restarts: u64,
}

impl Work {
    /// The fewest workgroups of any submission that is not its matching's last (`None`
    /// where every submission was one).
    pub fn min_workgroups(&self) -> Option<u64> {
        self.workgroups
            .iter()
            .filter(|(_, last)| !last)
            .map(|&(w, _)| w)
            .min()
    }
}

/// An opened device with its pipelines and the buffers grown so far.
pub(super) struct Device {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pick: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
    children: wgpu::ComputePipeline,
    leaf: wgpu::ComputePipeline,
    sizes: Sizes,
    /// Bytes all buffers may take.
    budget: u64,
    /// Probe words the probe buffer holds at least (grown where a descent ran out).
    room: u64,
    buffers: Option<Buffers>,
    pub(super) work: Work,
}

/// The buffers of a matching: two table buffers (a level reads one, writes the other), the
/// probe buffer (the probe, then each level's compacted spans), the queue's tasks and their
/// children, the leaves' items and counts, the bump counter, and their read-back copies.
struct Buffers {
    table: [wgpu::Buffer; 2],
    probe: wgpu::Buffer,
    tasks: wgpu::Buffer,
    kids: wgpu::Buffer,
    /// Per task: its diagonal, its probe room, its counters.
    meta: wgpu::Buffer,
    slices: wgpu::Buffer,
    items: wgpu::Buffer,
    found: wgpu::Buffer,
    state: wgpu::Buffer,
    kids_back: wgpu::Buffer,
    found_back: wgpu::Buffer,
    state_back: wgpu::Buffer,
    /// Words each table buffer and the probe buffer hold; tasks and items each holds.
    table_words: u64,
    probe_words: u64,
    task_slots: u64,
    slice_slots: u64,
    item_slots: u64,
}

/// Sides too large for the buffers: a part is matched at a time.
enum Overflow {
    /// The probe buffer ran out of room for the levels' compacted spans.
    Probe,
}

impl Device {
    pub(super) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        sizes: Sizes,
        budget: u64,
    ) -> Device {
        let split = include_str!("split.wgsl");
        let pick = pipeline(&device, split, "pick", sizes);
        let scatter = pipeline(&device, split, "scatter", sizes);
        let children = pipeline(&device, split, "children", sizes);
        let leaf = pipeline(&device, include_str!("leaf.wgsl"), "leaf", sizes);
        Device {
            device,
            queue,
            pick,
            scatter,
            children,
            leaf,
            sizes,
            budget,
            room: 0,
            buffers: None,
            work: Work::default(),
        }
    }

    /// The most probe words the probe buffer may hold: what the budget leaves beside the
    /// two table buffers, within a binding.
    fn most_probe(&self) -> u64 {
        let tables = self.buffers.as_ref().map_or(0, |b| 16 * b.table_words);
        (self.budget.saturating_sub(tables) / 8).min(self.sizes.binding_words)
    }

    /// The most table words a matching takes at once: within a binding, and within the
    /// budget with its probe room (three words of room a table word at least).
    fn most_table(&self) -> u64 {
        (self.budget / 64).min(self.sizes.binding_words).max(1)
    }

    /// The pairs of `a` and `b` words that share no bit: the larger side the table, each
    /// side cut where it passes the buffers, a part cut in two where its levels ran out of
    /// probe room.
    pub(super) fn disjoint(&mut self, a: &[u64], b: &[u64]) -> u64 {
        if a.is_empty() || b.is_empty() {
            return 0;
        }
        let (table, probe) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        let most = self.most_table() as usize;
        let mut found = 0;
        for t in table.chunks(most) {
            for p in probe.chunks(most) {
                found += self.each(t, p);
            }
        }
        found
    }

    /// [`Device::disjoint`] of one table and probe that fit the buffers.
    fn each(&mut self, table: &[u64], probe: &[u64]) -> u64 {
        match self.descend(table, probe) {
            Ok(found) => found,
            Err(Overflow::Probe) => {
                self.work.restarts += 1;
                // A probe buffer four times as large where the budget and a binding hold
                // it, else the table in halves.
                let now = self.buffers.as_ref().map_or(0, |b| b.probe_words);
                if now < self.most_probe() && self.room <= now {
                    self.room = 4 * now;
                    return self.each(table, probe);
                }
                let (a, b) = table.split_at(table.len() / 2);
                self.each(a, probe) + self.each(b, probe)
            }
        }
    }

    /// Grows the buffers to hold a table of `t` words, a probe of `p` and room for the
    /// levels' compacted spans (four probes' words where the budget holds them), within
    /// the budget; the queue's buffers kept where they are as large.
    fn grow(&mut self, t: u64, p: u64) {
        let fits = self.buffers.as_ref().is_some_and(|b| {
            b.table_words >= t
                && b.probe_words >= (2 * p).min(self.sizes.binding_words).max(p)
                && b.probe_words >= self.room
        });
        if fits {
            return;
        }
        let old = self.buffers.take();
        let (tasks, slices, items) = old
            .as_ref()
            .map_or((0, 0, 0), |b| (b.task_slots, b.slice_slots, b.item_slots));
        let table_words = t.next_power_of_two();
        let room = self.budget.saturating_sub(16 * table_words) / 8;
        // Eight probes' words of room: the levels' compacted spans at n = 20 reach four.
        let probe_words = p
            .saturating_mul(8)
            .max(self.room)
            .min(room)
            .max(p)
            .min(self.sizes.binding_words);
        drop(old);
        // What the budget could not give is not asked again.
        self.room = self.room.min(probe_words);
        let d = &self.device;
        let words = U::STORAGE | U::COPY_DST;
        let (table, probe) = (
            [
                buffer(d, 8 * table_words, words),
                buffer(d, 8 * table_words, words),
            ],
            buffer(d, 8 * probe_words, words),
        );
        let mut b = Buffers {
            table,
            probe,
            tasks: buffer(d, 16, words),
            kids: buffer(d, 16, words),
            meta: buffer(d, 16, words),
            slices: buffer(d, 16, words),
            items: buffer(d, 16, words),
            found: buffer(d, 16, words),
            state: buffer(d, 16, words | U::COPY_SRC),
            kids_back: buffer(d, 16, U::MAP_READ | U::COPY_DST),
            found_back: buffer(d, 16, U::MAP_READ | U::COPY_DST),
            state_back: buffer(d, 16, U::MAP_READ | U::COPY_DST),
            table_words,
            probe_words,
            task_slots: 0,
            slice_slots: 0,
            item_slots: 0,
        };
        slots(
            d,
            &mut b,
            (tasks.max(1024), slices.max(1024)),
            items.max(1024),
        );
        self.buffers = Some(b);
    }

    /// The descent of one matching: level by level, the leaves of the level counted and
    /// its other tasks split, until no task is left.
    fn descend(&mut self, table: &[u64], probe: &[u64]) -> Result<u64, Overflow> {
        let tile = self.sizes.tile;
        self.grow(table.len() as u64, probe.len() as u64);
        {
            let b = self.buffers.as_ref().expect("grown");
            self.queue
                .write_buffer(&b.table[0], 0, bytemuck::cast_slice(table));
            self.queue
                .write_buffer(&b.probe, 0, bytemuck::cast_slice(probe));
            let state = [probe.len() as u32, 0, 0, 0];
            self.queue
                .write_buffer(&b.state, 0, bytemuck::cast_slice(&state));
        }
        self.work.matchings += 1;
        self.work.uploaded += (table.len() + probe.len()) as u128;
        let mut queue = vec![(
            Task {
                t_off: 0,
                t_len: table.len() as u32,
                p_off: 0,
                p_len: probe.len() as u32,
            },
            false,
        )];
        let (mut found, mut cur) = (0u64, 0usize);
        while !queue.is_empty() {
            let (leaves, splits): (Vec<_>, Vec<_>) = queue
                .drain(..)
                .partition(|&(t, unsplit)| unsplit || t.t_len <= tile);
            let splits: Vec<Task> = splits.into_iter().map(|(t, _)| t).collect();
            let items = tiles(leaves.iter().map(|&(t, _)| t), tile);
            let last = splits.is_empty();
            let (count, kids, overflow, workgroups) = self.level(cur, &splits, &items)?;
            found += count;
            if overflow {
                return Err(Overflow::Probe);
            }
            self.work.workgroups.push((workgroups, last));
            for pair in kids.chunks_exact(2) {
                let (a, b) = (pair[0], pair[1]);
                if b.p_len == UNSPLIT {
                    queue.push((a, true));
                    continue;
                }
                self.work.moved += u128::from(a.t_len + b.t_len + b.p_len);
                for t in [a, b] {
                    if t.t_len > 0 && t.p_len > 0 {
                        queue.push((t, false));
                    }
                }
            }
            cur = 1 - cur;
        }
        Ok(found)
    }

    /// One level, one submission: `items` counted at the leaves from table buffer `cur`,
    /// `splits` split from it into the other (a diagonal picked a task, then every task's
    /// spans in slices, then its children); their count, the children of the splits and
    /// whether the probe buffer overflowed. Returns the workgroups it ran (none empty).
    fn level(
        &mut self,
        cur: usize,
        splits: &[Task],
        items: &[Task],
    ) -> Result<(u64, Vec<Task>, bool, u64), Overflow> {
        let cut = slices(splits);
        let d = &self.device;
        let b = self.buffers.as_mut().expect("grown");
        slots(
            d,
            b,
            (splits.len() as u64, cut.len() as u64),
            items.len() as u64,
        );
        let b = &*b;
        let mut encoder = d.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let max = self.sizes.max_dimension;
        let wide = |n: usize| -> (u32, u32) {
            let n = n as u32;
            let w = n.clamp(1, max);
            (w, n.div_ceil(w))
        };
        let mut workgroups = 0u64;
        let dispatch = |pipeline: &wgpu::ComputePipeline,
                        bound: &[(u32, &wgpu::Buffer)],
                        (count, per): (usize, usize),
                        encoder: &mut wgpu::CommandEncoder| {
            let groups = count.div_ceil(per);
            let (w, h) = wide(groups);
            let shape = uniform(d, [count as u32, w, b.probe_words as u32, 0]);
            let mut bound = bound.to_vec();
            bound.push((6, &shape));
            let group = d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries(&bound),
            });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(w, h, 1);
            groups as u64
        };
        if !items.is_empty() {
            self.queue
                .write_buffer(&b.items, 0, bytemuck::cast_slice(items));
            let bound = [
                (0, &b.table[cur]),
                (1, &b.probe),
                (2, &b.items),
                (3, &b.found),
            ];
            // The leaf shader's shape is its binding 4.
            workgroups += dispatch_leaf(d, &self.leaf, &bound, items.len(), &mut encoder, max);
            encoder.copy_buffer_to_buffer(&b.found, 0, &b.found_back, 0, 4 * items.len() as u64);
            self.work.dispatches += 1;
            for t in items {
                self.work.tested += u128::from(t.t_len) * u128::from(t.p_len);
                self.work.visits += u128::from(t.p_len);
            }
        }
        if !splits.is_empty() {
            self.queue
                .write_buffer(&b.tasks, 0, bytemuck::cast_slice(splits));
            self.queue
                .write_buffer(&b.slices, 0, bytemuck::cast_slice(&cut));
            let (tin, tout) = (&b.table[cur], &b.table[1 - cur]);
            let picked = [
                (0, tin),
                (2, &b.probe),
                (3, &b.tasks),
                (5, &b.state),
                (7, &b.meta),
            ];
            workgroups += dispatch(&self.pick, &picked, (splits.len(), 1), &mut encoder);
            let scattered = [
                (0, tin),
                (1, tout),
                (2, &b.probe),
                (3, &b.tasks),
                (7, &b.meta),
                (8, &b.slices),
            ];
            workgroups += dispatch(&self.scatter, &scattered, (cut.len(), 1), &mut encoder);
            let born = [(3, &b.tasks), (4, &b.kids), (7, &b.meta)];
            dispatch(&self.children, &born, (splits.len(), 64), &mut encoder);
            encoder.copy_buffer_to_buffer(&b.kids, 0, &b.kids_back, 0, 32 * splits.len() as u64);
            encoder.copy_buffer_to_buffer(&b.state, 0, &b.state_back, 0, 16);
            self.work.dispatches += 3;
        }
        self.queue.submit([encoder.finish()]);
        self.work.submissions += 1;
        let mut count = 0u64;
        if !items.is_empty() {
            let partials: Vec<u32> = read(d, &b.found_back, 4 * items.len() as u64);
            count = partials.iter().map(|&c| u64::from(c)).sum();
        }
        let (mut kids, mut overflow) = (Vec::new(), false);
        if !splits.is_empty() {
            kids = read(d, &b.kids_back, 32 * splits.len() as u64);
            let state: Vec<u32> = read(d, &b.state_back, 16);
            overflow = state[1] != 0;
        }
        Ok((count, kids, overflow, workgroups))
    }
}

/// Dispatches the leaves: a workgroup an item of `count`, `bound` its buffers (its shape
/// added as binding 4). Returns its workgroups.
fn dispatch_leaf(
    d: &wgpu::Device,
    leaf: &wgpu::ComputePipeline,
    bound: &[(u32, &wgpu::Buffer)],
    count: usize,
    encoder: &mut wgpu::CommandEncoder,
    max: u32,
) -> u64 {
    let n = count as u32;
    let w = n.clamp(1, max);
    let shape = uniform(d, [n, w, 0, 0]);
    let mut bound = bound.to_vec();
    bound.push((4, &shape));
    let group = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &leaf.get_bind_group_layout(0),
        entries: &entries(&bound),
    });
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
    pass.set_pipeline(leaf);
    pass.set_bind_group(0, &group, &[]);
    pass.dispatch_workgroups(w, n.div_ceil(w), 1);
    u64::from(n)
}

/// The least words a scatter's workgroup takes, and the most.
const SLICE_LEAST: u32 = 32;
const SLICE_MOST: u32 = 4096;

/// Workgroups a level's scatter aims at: more than an H200 holds at once (about 2,000) many
/// times over, so that one key's level fills the chip.
const SCATTER_WORKGROUPS: u64 = 16_384;

/// The slices a level's `splits` are scattered in: each task's table span and probe span
/// cut into runs of one size, the level's words over [`SCATTER_WORKGROUPS`] within
/// [`SLICE_LEAST`] and [`SLICE_MOST`].
fn slices(splits: &[Task]) -> Vec<Slice> {
    let words: u64 = splits
        .iter()
        .map(|t| u64::from(t.t_len) + u64::from(t.p_len))
        .sum();
    let size = words
        .div_ceil(SCATTER_WORKGROUPS)
        .clamp(u64::from(SLICE_LEAST), u64::from(SLICE_MOST)) as u32;
    let mut out = Vec::new();
    for (task, t) in splits.iter().enumerate() {
        for (len, probe) in [(t.t_len, 0), (t.p_len, 1)] {
            for start in (0..len).step_by(size as usize) {
                out.push(Slice {
                    task: task as u32,
                    start,
                    len: size.min(len - start),
                    probe,
                });
            }
        }
    }
    out
}

/// Grows `b`'s queue buffers (tasks, their children, items, their counts and the
/// read-back copies) to hold `tasks` tasks and `items` items, where they hold fewer.
fn slots(d: &wgpu::Device, b: &mut Buffers, (tasks, cut): (u64, u64), items: u64) {
    let words = U::STORAGE | U::COPY_DST;
    let back = U::MAP_READ | U::COPY_DST;
    if tasks > b.task_slots {
        let n = tasks.next_power_of_two();
        b.tasks = buffer(d, 16 * n, words);
        b.kids = buffer(d, 32 * n, words | U::COPY_SRC);
        b.kids_back = buffer(d, 32 * n, back);
        b.meta = buffer(d, 32 * n, words);
        b.task_slots = n;
    }
    if cut > b.slice_slots {
        let n = cut.next_power_of_two();
        b.slices = buffer(d, 16 * n, words);
        b.slice_slots = n;
    }
    if items > b.item_slots {
        let n = items.next_power_of_two();
        b.items = buffer(d, 16 * n, words);
        b.found = buffer(d, 4 * n, words | U::COPY_SRC);
        b.found_back = buffer(d, 4 * n, back);
        b.item_slots = n;
    }
}

/// The leaves' items of `tasks`: each task's table span in tiles of at most `tile` words,
/// each against its probe span in slices of at most [`SLICE`] words.
fn tiles(tasks: impl Iterator<Item = Task>, tile: u32) -> Vec<Task> {
    let mut items = Vec::new();
    for t in tasks {
        for t_at in (0..t.t_len).step_by(tile as usize) {
            for p_at in (0..t.p_len).step_by(SLICE as usize) {
                items.push(Task {
                    t_off: t.t_off + t_at,
                    t_len: tile.min(t.t_len - t_at),
                    p_off: t.p_off + p_at,
                    p_len: SLICE.min(t.p_len - p_at),
                });
            }
        }
    }
    items
}

/// Bind group entries for `bound`, each buffer whole at its binding.
fn entries<'a>(bound: &[(u32, &'a wgpu::Buffer)]) -> Vec<wgpu::BindGroupEntry<'a>> {
    bound
        .iter()
        .map(|&(binding, b)| wgpu::BindGroupEntry {
            binding,
            resource: b.as_entire_binding(),
        })
        .collect()
}

/// The first `bytes` of the mappable `buffer`, once the GPU has written them.
fn read<T: bytemuck::Pod>(device: &wgpu::Device, buffer: &wgpu::Buffer, bytes: u64) -> Vec<T> {
    let slice = buffer.slice(..bytes);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the GPU finished its work");
    rx.recv()
        .expect("the map's callback ran")
        .expect("the GPU's read-back buffer mapped");
    let out = bytemuck::cast_slice(&slice.get_mapped_range().expect("mapped")).to_vec();
    buffer.unmap();
    out
}
