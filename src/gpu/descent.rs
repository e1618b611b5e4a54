//! One matching on the GPU: its split levels encoded many to a submission, each dispatch
//! sized by the GPU itself (the level before writes its indirect arguments), its leaves
//! pooled into one dispatch at the submission's end; the host reads back once a
//! submission, a few hundred words, and the words never leave the GPU.

use wgpu::BufferUsages as U;

use super::{SLICE, Sizes, buffer, pipeline};

/// Bytes of a list's header: its dispatch arguments, count, words and table buffer.
const HEAD: u64 = 32;
/// Bytes of a split task as the shaders store it (a task and five words).
const NODE: u64 = 36;
/// Bytes of a leaf item (a task).
const ITEM: u64 = 16;
/// Bytes of a slice.
const SLICE_BYTES: u64 = 16;
/// Words of a header the clears zero (its dispatch arguments, count and words), keeping the
/// table buffer it names.
const CLEARED: u64 = 20;

/// A parent whose one child is itself: a matching's whole task, at its first level.
const ROOT: u32 = 0xffff_fffe;

/// The most matchings a descent takes at once ([`Device::disjoint_each`]): each has a
/// two-word counter the leaves add its count to.
const FOUND: u32 = 64;
/// Words of the control buffer: the probe bump, the overflow flags, the pairs tested, the
/// probe visits, the words moved (two words each), the matchings of the descent (word 15),
/// the [`FOUND`] counters, then where each matching's table starts.
const CONTROL: u64 = 16 + 3 * FOUND as u64;
/// The control word holding the matchings of a descent, and the first of their tables'
/// starts.
const MATCHINGS: usize = 15;
const STARTS: usize = 16 + 2 * FOUND as usize;

/// The most levels a matching has: a path through the split picks each of the 64
/// diagonals once at most, and its first level is the matching's root.
const LEVELS_MOST: u32 = 66;

/// Workgroups a level's scatter aims at: more than an H200 holds at once (about 2,000) many
/// times over, so that one key's level fills the chip.
const SPREAD: u32 = 16_384;
/// The most words a scatter's workgroup takes (the least: [`Sizes::slice_least`]).
const SLICE_MOST: u32 = 4096;

/// Why a descent stopped short ([`Overflow::Probe`]'s bit, or a list's).
const OVERFLOW_PROBE: u32 = 1;

/// What the GPU path did: the speed proof that needs no device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Matchings handed to the GPU.
    pub matchings: u64,
    /// Pairs of words tested at the leaves (tile words times item words).
    pub tested: u128,
    /// Probe words visiting a leaf tile.
    pub visits: u128,
    /// Words the split levels wrote (table words partitioned, probe words compacted).
    pub moved: u128,
    /// Words uploaded.
    pub uploaded: u128,
    /// Compute dispatches encoded.
    pub dispatches: u64,
    /// Dispatches that found no work (levels encoded past a matching's last).
    pub idle: u64,
    /// The fewest workgroups of a dispatch that had any.
    pub fewest: Option<u64>,
    /// Submissions: each one command buffer of a matching's levels and its leaves, handed
    /// to the queue at once and read back once.
    pub submissions: u64,
    /// Workgroups each submission ran, in order, each given a non-empty task (a slice, a
    /// split task, a leaf item).
    pub workgroups: Vec<u64>,
    /// Descents started again, a list or the probe buffer having run out.
    pub restarts: u64,
    /// The deepest level a matching reached.
    pub depth: u32,
}

impl Work {
    /// The fewest workgroups of any submission but the last (`None` where there was one):
    /// taken after each key, the submissions but the key's last.
    pub fn min_workgroups(&self) -> Option<u64> {
        let (_, rest) = self.workgroups.split_last()?;
        rest.iter().copied().min()
    }
}

/// An opened device with its pipelines and the buffers grown so far.
pub(super) struct Device {
    device: wgpu::Device,
    queue: wgpu::Queue,
    scatter: wgpu::ComputePipeline,
    children: wgpu::ComputePipeline,
    leaf: wgpu::ComputePipeline,
    sizes: Sizes,
    /// Bytes all buffers may take.
    budget: u64,
    /// Probe words the probe buffer holds at least (grown where a descent ran out).
    room: u64,
    /// Leaf items and slices the lists hold at least (grown where a descent ran out).
    items: u64,
    slices: u64,
    buffers: Option<Buffers>,
    pub(super) work: Work,
}

/// The buffers of a matching: two table buffers (a level reads one, writes the other), the
/// probe buffer (the probe, then each level's compacted spans), the split tasks of two
/// levels (one level's parents, the next's), the slices, the leaves' items, the control
/// words (counters and flags), the read-back copy, and the bind groups of all of them.
struct Buffers {
    table: [wgpu::Buffer; 2],
    probe: wgpu::Buffer,
    nodes: [wgpu::Buffer; 2],
    slices: wgpu::Buffer,
    items: wgpu::Buffer,
    control: wgpu::Buffer,
    back: wgpu::Buffer,
    /// Per level parity: the scatter's and the children's bind groups; then the leaves'.
    scatter: [wgpu::BindGroup; 2],
    children: [wgpu::BindGroup; 2],
    leaf: wgpu::BindGroup,
    /// Words each table buffer and the probe buffer hold; entries each list holds.
    table_words: u64,
    probe_words: u64,
    node_slots: u64,
    slice_slots: u64,
    item_slots: u64,
}

/// Sides too large for the buffers: a part is matched at a time.
enum Overflow {
    /// The probe buffer ran out of room for the levels' compacted spans.
    Probe,
    /// A submission's leaf items (or slices) passed their list.
    Lists,
    /// The device failed (its read-back did not map): no count of it stands.
    Device(String),
}

/// What one submission's read-back says.
struct Report {
    /// Overflow flags (none: 0).
    overflow: u32,
    /// The control words: counters, flags, counts.
    control: Vec<u32>,
    /// Split tasks left for the next level.
    left: u32,
}

impl Device {
    pub(super) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        sizes: Sizes,
        budget: u64,
    ) -> Device {
        let consts = format!(
            "const ROW: u32 = {}u;\nconst SET: u32 = {}u;\nconst LEAF_SLICE: u32 = \
             {SLICE}u;\nconst FOUND: u32 = {FOUND}u;\nconst SPREAD: u32 = {SPREAD}u;\nconst \
             SLICE_LEAST: u32 = {}u;\nconst SLICE_MOST: u32 = {SLICE_MOST}u;\n",
            sizes.max_dimension,
            sizes.set_words(),
            sizes.slice_least,
        );
        let split = format!("{consts}{}", include_str!("split.wgsl"));
        let leaf = format!("{consts}{}", include_str!("leaf.wgsl"));
        Device {
            scatter: pipeline(&device, &split, "scatter", sizes),
            children: pipeline(&device, &split, "children", sizes),
            leaf: pipeline(&device, &leaf, "leaf", sizes),
            device,
            queue,
            sizes,
            budget,
            room: 0,
            items: 0,
            slices: 0,
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
    /// probe room; the device's message where it failed.
    pub(super) fn disjoint(&mut self, a: &[u64], b: &[u64]) -> Result<u64, String> {
        if a.is_empty() || b.is_empty() {
            return Ok(0);
        }
        let (table, probe) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        let most = self.most_table() as usize;
        let mut found = 0;
        for t in table.chunks(most) {
            for p in probe.chunks(most) {
                found += self.each(t, p)?;
            }
        }
        Ok(found)
    }

    /// [`Device::disjoint`] of each matching of `matchings` (its two sides, either one the
    /// table), into `found`: matchings that fit the buffers together, up to [`FOUND`] of
    /// them, descend together, a submission taking all their levels, so that a key's small
    /// matchings fill the GPU as one; a larger one alone.
    pub(super) fn disjoint_each(
        &mut self,
        matchings: &[(&[u64], &[u64])],
        found: &mut [u64],
    ) -> Result<(), String> {
        let most = self.most_table();
        let oriented: Vec<(&[u64], &[u64])> = matchings
            .iter()
            .map(|&(a, b)| if a.len() >= b.len() { (a, b) } else { (b, a) })
            .collect();
        let mut batch: Vec<usize> = Vec::new();
        let mut words = (0, 0);
        for (i, &(table, probe)) in oriented.iter().enumerate() {
            found[i] = 0;
            if probe.is_empty() {
                continue;
            }
            let (t, p) = (table.len() as u64, probe.len() as u64);
            if t > most / 2 || p > most / 2 {
                found[i] = self.disjoint(table, probe)?;
                continue;
            }
            if words.0 + t > most || words.1 + p > most || batch.len() == FOUND as usize {
                self.together(&oriented, &batch, found)?;
                (batch, words) = (Vec::new(), (0, 0));
            }
            batch.push(i);
            words = (words.0 + t, words.1 + p);
        }
        self.together(&oriented, &batch, found)
    }

    /// The matchings `batch` of `matchings` (each its table first) in one descent, their
    /// counts into `found`; where the buffers ran out, one at a time.
    fn together(
        &mut self,
        matchings: &[(&[u64], &[u64])],
        batch: &[usize],
        found: &mut [u64],
    ) -> Result<(), String> {
        if batch.is_empty() {
            return Ok(());
        }
        let sides: Vec<(&[u64], &[u64])> = batch.iter().map(|&i| matchings[i]).collect();
        match self.descend(&sides) {
            Ok(counts) => {
                for (&i, count) in batch.iter().zip(counts) {
                    found[i] = count;
                }
                Ok(())
            }
            Err(Overflow::Device(why)) => Err(why),
            Err(_) => {
                self.work.restarts += 1;
                for (&i, &(table, probe)) in batch.iter().zip(&sides) {
                    found[i] = self.each(table, probe)?;
                }
                Ok(())
            }
        }
    }

    /// [`Device::disjoint`] of one table and probe that fit the buffers.
    fn each(&mut self, table: &[u64], probe: &[u64]) -> Result<u64, String> {
        match self.descend(&[(table, probe)]).map(|counts| counts[0]) {
            Ok(found) => Ok(found),
            Err(Overflow::Device(why)) => Err(why),
            Err(Overflow::Lists) => {
                self.work.restarts += 1;
                let (items, slices) = self
                    .buffers
                    .as_ref()
                    .map_or((0, 0), |b| (b.item_slots, b.slice_slots));
                (self.items, self.slices) = (4 * items, 4 * slices);
                self.each(table, probe)
            }
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
                Ok(self.each(a, probe)? + self.each(b, probe)?)
            }
        }
    }

    /// Grows the buffers to hold tables of `t` words in all, probes of `p`, room for the
    /// levels' compacted spans (eight probes' words where the budget holds them) and the
    /// lists `roots` matchings of `t` table words take, within the budget; kept where they
    /// are as large.
    fn grow(&mut self, t: u64, p: u64, roots: u64) {
        let tile = u64::from(self.sizes.tile);
        // A level's split tasks have disjoint table spans of more than a tile each, but
        // the first level's, one a matching.
        let nodes = t / tile + 2 + roots;
        let items = self.items.max(4 * nodes + 1024);
        let fits = self.buffers.as_ref().is_some_and(|b| {
            b.table_words >= t
                && b.probe_words >= (2 * p).min(self.sizes.binding_words).max(p)
                && b.probe_words >= self.room
                && b.node_slots >= nodes
                && b.slice_slots >= slices_for(b.table_words + b.probe_words, nodes)
                && b.slice_slots >= self.slices
                && b.item_slots >= items
        });
        if fits {
            return;
        }
        let old = self.buffers.take();
        let (t0, n0, s0, i0) = old.as_ref().map_or((0, 0, 0, 0), |b| {
            (b.table_words, b.node_slots, b.slice_slots, b.item_slots)
        });
        let table_words = t.next_power_of_two().max(t0);
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
        let slices = slices_for(table_words + probe_words, nodes).max(self.slices);
        let slots = [
            nodes.next_power_of_two().max(n0),
            slices.next_power_of_two().max(s0),
            items.next_power_of_two().max(i0),
        ];
        self.buffers = Some(self.make(table_words, probe_words, slots));
    }

    /// New buffers of `table_words` and `probe_words`, lists of `slots` (split tasks,
    /// slices, items) entries, and their bind groups.
    fn make(&self, table_words: u64, probe_words: u64, slots: [u64; 3]) -> Buffers {
        let d = &self.device;
        let words = U::STORAGE | U::COPY_DST;
        let list = U::STORAGE | U::COPY_DST | U::COPY_SRC | U::INDIRECT;
        let [node_slots, slice_slots, item_slots] = slots;
        let table = [
            buffer(d, 8 * table_words, words),
            buffer(d, 8 * table_words, words),
        ];
        let probe = buffer(d, 8 * probe_words, words);
        let nodes = [
            buffer(d, HEAD + NODE * node_slots, list),
            buffer(d, HEAD + NODE * node_slots, list),
        ];
        let slices = buffer(d, HEAD + SLICE_BYTES * slice_slots, list);
        let items = buffer(d, HEAD + ITEM * item_slots, list);
        let control = buffer(d, 4 * CONTROL, words | U::COPY_SRC);
        let back = buffer(d, back_bytes(LEVELS_MOST), U::MAP_READ | U::COPY_DST);
        let group = |pipeline: &wgpu::ComputePipeline, bound: &[(u32, &wgpu::Buffer)]| {
            d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries(bound),
            })
        };
        let scatter = |c: usize| {
            let bound = [
                (0, &table[c]),
                (1, &table[1 - c]),
                (2, &probe),
                (3, &nodes[c]),
                (4, &slices),
                (5, &control),
            ];
            group(&self.scatter, &bound)
        };
        let children = |c: usize| {
            let bound = [
                (5, &control),
                (6, &table[1 - c]),
                (7, &probe),
                (8, &nodes[c]),
                (9, &nodes[1 - c]),
                (10, &slices),
                (11, &items),
            ];
            group(&self.children, &bound)
        };
        let leafs = [
            (0, &table[0]),
            (1, &table[1]),
            (2, &probe),
            (3, &items),
            (4, &control),
        ];
        Buffers {
            scatter: [scatter(0), scatter(1)],
            children: [children(0), children(1)],
            leaf: group(&self.leaf, &leafs),
            table,
            probe,
            nodes,
            slices,
            items,
            control,
            back,
            table_words,
            probe_words,
            node_slots,
            slice_slots,
            item_slots,
        }
    }

    /// The descent of matchings (each a table and a probe, neither empty, that fit the
    /// buffers together): their tables uploaded one after another to table buffer 1 (their
    /// roots' children are read there), their probes to the probe buffer, their roots as
    /// the first level's parents, and where each table starts, so that a leaf adds its count
    /// to its matching's counter; then submissions of many levels each until no split task
    /// is left. Each matching's count, in order.
    fn descend(&mut self, matchings: &[(&[u64], &[u64])]) -> Result<Vec<u64>, Overflow> {
        let total =
            |side: fn(&(&[u64], &[u64])) -> usize| matchings.iter().map(side).sum::<usize>() as u64;
        let (t, p) = (total(|m| m.0.len()), total(|m| m.1.len()));
        let largest = matchings.iter().map(|m| m.0.len()).max().unwrap_or(0) as u32;
        self.grow(t, p, matchings.len() as u64);
        self.work.matchings += matchings.len() as u64;
        self.work.uploaded += u128::from(t + p);
        let b = self.buffers.as_ref().expect("grown");
        let q = &self.queue;
        let mut control = vec![0u32; CONTROL as usize];
        control[0] = p as u32;
        control[MATCHINGS] = matchings.len() as u32;
        // The first level's header and its parents (the roots), whose children's words are
        // in table buffer 1; the second level's, whose are in table buffer 0.
        let count = matchings.len() as u32;
        let mut roots: Vec<u32> = vec![count, 1, 1, count, (t + p) as u32, 1, 0, 0];
        let (mut t_off, mut p_off) = (0u32, 0u32);
        for (m, &(table, probe)) in matchings.iter().enumerate() {
            let (t_len, p_len) = (table.len() as u32, probe.len() as u32);
            q.write_buffer(
                &b.table[1],
                8 * u64::from(t_off),
                bytemuck::cast_slice(table),
            );
            q.write_buffer(&b.probe, 8 * u64::from(p_off), bytemuck::cast_slice(probe));
            control[STARTS + m] = t_off;
            roots.extend([t_off, t_len, p_off, p_len, ROOT, 0, 0, 0, 0]);
            (t_off, p_off) = (t_off + t_len, p_off + p_len);
        }
        q.write_buffer(&b.control, 0, bytemuck::cast_slice(&control));
        q.write_buffer(&b.nodes[0], 0, bytemuck::cast_slice(&roots));
        q.write_buffer(&b.nodes[1], 0, bytemuck::cast_slice(&[0u32; 8]));
        q.write_buffer(&b.slices, 0, bytemuck::cast_slice(&[0u32; 8]));
        q.write_buffer(&b.items, 0, bytemuck::cast_slice(&[0u32; 8]));
        // Levels a submission takes: about twice the halvings from the largest table to a
        // tile (the splits are uneven), none past the roots where every table is a tile.
        let tile = self.sizes.tile;
        let halvings = (largest.div_ceil(tile))
            .next_power_of_two()
            .trailing_zeros();
        let mut first = 0;
        loop {
            let last = if largest <= tile {
                0
            } else {
                first + (2 * halvings + 4).min(LEVELS_MOST)
            };
            let report = self.submit(first, last).map_err(Overflow::Device)?;
            if report.overflow != 0 {
                self.add_counts(&report.control);
                return Err(if report.overflow & OVERFLOW_PROBE != 0 {
                    Overflow::Probe
                } else {
                    Overflow::Lists
                });
            }
            // A path picks each diagonal once at most: the levels end.
            if report.left == 0 {
                self.add_counts(&report.control);
                return Ok(found(&report.control, matchings.len()));
            }
            first = last + 1;
        }
    }

    /// Adds a descent's counters (`control`'s) to the work.
    fn add_counts(&mut self, control: &[u32]) {
        let wide =
            |at: usize| u128::from(u64::from(control[at]) | u64::from(control[at + 1]) << 32);
        self.work.tested += wide(2);
        self.work.visits += wide(4);
        self.work.moved += wide(6);
    }

    /// One submission: levels `first..=last` (each a scatter of its slices, but the root's,
    /// and its split tasks' children), then the leaves of every item they cut, in one
    /// command buffer; each dispatch's workgroups, the split tasks left and the control words
    /// read back once.
    fn submit(&mut self, first: u32, last: u32) -> Result<Report, String> {
        let d = &self.device;
        let b = self.buffers.as_ref().expect("grown");
        let mut encoder = d.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        // Each dispatch's arguments are copied out once it has run, then cleared for the
        // level after next; slot 0 of the copies is the split tasks left.
        let mut records = 0u64;
        let mut children = Vec::new();
        let mut run = |encoder: &mut wgpu::CommandEncoder,
                       (pipeline, group): (&wgpu::ComputePipeline, &wgpu::BindGroup),
                       list: &wgpu::Buffer| {
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups_indirect(list, 0);
            }
            records += 1;
            encoder.copy_buffer_to_buffer(list, 0, &b.back, 4 * CONTROL + 16 * records, 16);
            encoder.clear_buffer(list, 0, Some(CLEARED));
            records as usize - 1
        };
        for g in first..=last {
            let c = (g % 2) as usize;
            if g > 0 {
                run(&mut encoder, (&self.scatter, &b.scatter[c]), &b.slices);
            }
            let at = run(&mut encoder, (&self.children, &b.children[c]), &b.nodes[c]);
            children.push((g, at));
        }
        run(&mut encoder, (&self.leaf, &b.leaf), &b.items);
        let left = &b.nodes[((last + 1) % 2) as usize];
        encoder.copy_buffer_to_buffer(left, 0, &b.back, 4 * CONTROL, 16);
        encoder.copy_buffer_to_buffer(&b.control, 0, &b.back, 0, 4 * CONTROL);
        self.queue.submit([encoder.finish()]);
        let back: Vec<u32> = read(d, &b.back, 4 * CONTROL + 16 * (records + 1))?;
        let control = back[..CONTROL as usize].to_vec();
        let counts: Vec<u64> = back[CONTROL as usize..]
            .chunks_exact(4)
            .map(|r| u64::from(r[3]))
            .collect();
        let (left, done) = (counts[0], &counts[1..]);
        let w = &mut self.work;
        w.submissions += 1;
        w.dispatches += done.len() as u64;
        w.idle += done.iter().filter(|&&c| c == 0).count() as u64;
        let busy = done.iter().copied().filter(|&c| c > 0);
        w.fewest = busy.chain(w.fewest).min();
        w.workgroups.push(done.iter().sum());
        if let Some(&(g, _)) = children.iter().rev().find(|&&(_, at)| done[at] > 0) {
            w.depth = w.depth.max(g);
        }
        Ok(Report {
            overflow: control[1],
            control,
            left: left as u32,
        })
    }
}

/// Slices a level of a matching of `words` words (table and probe buffers) and at most
/// `nodes` split tasks takes at most: its words (at most twice its parents') in slices of
/// its parents' words over [`SPREAD`] (at most [`SLICE_MOST`] words), and one
/// more a span.
fn slices_for(words: u64, nodes: u64) -> u64 {
    4 * u64::from(SPREAD) + 2 * words / u64::from(SLICE_MOST) + 4 * nodes
}

/// Bytes of a submission's read-back of `levels` levels at most: the control words, the
/// split tasks left, a record of each dispatch's arguments.
fn back_bytes(levels: u32) -> u64 {
    4 * CONTROL + 16 * (2 * u64::from(levels) + 8)
}

/// The pairs the leaves found for each of `matchings` matchings: their counters in
/// `control`.
fn found(control: &[u32], matchings: usize) -> Vec<u64> {
    control[16..STARTS]
        .chunks_exact(2)
        .take(matchings)
        .map(|c| u64::from(c[0]) | u64::from(c[1]) << 32)
        .collect()
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

/// The first `bytes` of the mappable `buffer`, once the GPU has written them; the device's
/// message where it could not give them (lost, or the map refused). It never panics: the
/// release build aborts on a panic, and a failed device must end the count with its error.
fn read<T: bytemuck::Pod>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<T>, String> {
    let slice = buffer.slice(..bytes);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("the GPU did not finish its work: {e}"))?;
    rx.recv()
        .map_err(|_| "the GPU's read-back was dropped unmapped".to_string())?
        .map_err(|e| format!("the GPU's read-back did not map: {e}"))?;
    let out = match slice.get_mapped_range() {
        Ok(range) => Ok(bytemuck::cast_slice(&range).to_vec()),
        Err(e) => Err(format!("the GPU's read-back did not map: {e}")),
    };
    buffer.unmap();
    out
}
