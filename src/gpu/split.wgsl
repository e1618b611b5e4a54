// The split levels of a matching, every level of a submission encoded by the host at once:
// the GPU writes each next dispatch's workgroup count itself (indirect dispatch), so no level
// waits on the host.
//
// A level is two dispatches. `scatter`: a workgroup a slice of a task's table or probe span
// partitions its table words on the task's diagonal into the other table buffer (those without
// it from the front, those with it from the back) or compacts its probe words without it into
// the room the task reserved, each workgroup reserving its run with one atomic add per task
// counter and each subgroup its slots within it with one more (a word's rank in its subgroup a
// prefix sum). `children`: a workgroup a split task takes its two children (the table words
// without the diagonal against every probe word, those with it against the probe words without
// it); a child whose table span is at most a tile, or that no diagonal splits, is cut into the
// leaves' items (pooled for the submission's one leaf dispatch); any other picks its diagonal
// from samples of both spans, reserves room for its probe words, and is appended to the next
// level with its slices. Every append reserves its slots with an atomic add on the list's count
// and keeps the list's dispatch arguments (`x` workgroups a row of at most ROW, `y` rows) equal
// to it, so a dispatch of the list has one workgroup an entry. The host prepends the constants
// (WG invocations a workgroup, ROW, TILE, LEAF_SLICE probe words a leaf item, SAMPLES, SPREAD,
// SLICE_LEAST, SLICE_MOST).

struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

// A split task: its spans, its diagonal, where its probe room starts, and the words its
// scatter counted without the diagonal and with it, and the probe words it kept.
struct Node {
    task: Task,
    pick: u32,
    base: u32,
    low: atomic<u32>,
    high: atomic<u32>,
    kept: atomic<u32>,
}

struct NodeR {
    task: Task,
    pick: u32,
    base: u32,
    low: u32,
    high: u32,
    kept: u32,
}

// A list's header: its dispatch arguments, its count, the words of its tasks (t_len + p_len,
// for the next level's slice size) and the table buffer its tasks' children's words are in
// (set by the host, kept by the clears).
struct Head {
    x: atomic<u32>,
    y: atomic<u32>,
    z: atomic<u32>,
    count: atomic<u32>,
    words: atomic<u32>,
    parity: u32,
    unused0: u32,
    unused1: u32,
}

struct HeadR {
    x: u32,
    y: u32,
    z: u32,
    count: u32,
    words: u32,
    parity: u32,
    unused0: u32,
    unused1: u32,
}

struct Nodes {
    head: Head,
    list: array<Node>,
}

struct NodesR {
    head: HeadR,
    list: array<NodeR>,
}

// A slice: its task's index in the level's list, where it starts in the task's span, its
// words, and whether it is of the probe span (1) or the table's (0).
struct Slice {
    task: u32,
    start: u32,
    len: u32,
    probe: u32,
}

struct Slices {
    head: Head,
    list: array<Slice>,
}

struct SlicesR {
    head: HeadR,
    list: array<Slice>,
}

// The leaves' items: a tile of table words (its t_len's top bit the table buffer it is in)
// against a run of probe words.
struct Items {
    head: Head,
    list: array<Task>,
}

// Words of `control`: the probe words used, why the descent stopped (OVERFLOW_*), then
// counters of two words each (low, high).
const BUMP: u32 = 0u;
const OVERFLOW: u32 = 1u;
const MOVED: u32 = 6u;
const OVERFLOW_PROBE: u32 = 1u;
const OVERFLOW_NODES: u32 = 2u;
const OVERFLOW_SLICES: u32 = 4u;
const OVERFLOW_ITEMS: u32 = 8u;

// scatter's bindings
@group(0) @binding(0) var<storage, read> tin: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> tout: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> probe: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> nodes: Nodes;
@group(0) @binding(4) var<storage, read> cut: SlicesR;
@group(0) @binding(5) var<storage, read_write> control: array<atomic<u32>>;
// children's bindings (and control)
@group(0) @binding(6) var<storage, read> kin: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read> probe_in: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read> parents: NodesR;
@group(0) @binding(9) var<storage, read_write> next: Nodes;
@group(0) @binding(10) var<storage, read_write> slices: Slices;
@group(0) @binding(11) var<storage, read_write> items: Items;

const NONE: u32 = 0xffffffffu;
// A parent whose one child is itself: the matching's whole task, at its first level.
const ROOT: u32 = 0xfffffffeu;

var<workgroup> t_bits: array<u32, 64>;
var<workgroup> p_bits: array<u32, 64>;
var<workgroup> low: atomic<u32>;
var<workgroup> high: atomic<u32>;
var<workgroup> slot_low: atomic<u32>;
var<workgroup> slot_high: atomic<u32>;
var<workgroup> at_low: u32;
var<workgroup> at_high: u32;
var<workgroup> w_count: u32;
var<workgroup> w_kids: array<Task, 2>;
var<workgroup> w_pick: u32;
var<workgroup> w_slot: u32;
var<workgroup> w_first: u32;

fn has(w: vec2<u32>, d: u32) -> bool {
    if d >= 64u {
        return false;
    }
    if d < 32u {
        return ((w.x >> d) & 1u) == 1u;
    }
    return ((w.y >> (d - 32u)) & 1u) == 1u;
}

fn add64(at: u32, v: u32) {
    let old = atomicAdd(&control[at], v);
    if old + v < old {
        atomicAdd(&control[at + 1u], 1u);
    }
}

// Rows of ROW workgroups that `n` entries take.
fn rows(n: u32) -> u32 {
    return n / ROW + u32(n % ROW != 0u);
}

// What a list's dispatch arguments (`x`, `y`) grow by where it grows from `old` entries by
// `k`.
fn grown(old: u32, k: u32) -> vec2<u32> {
    let grown = old + k;
    return vec2<u32>(min(grown, ROW) - min(old, ROW), rows(grown) - rows(old));
}

@compute @workgroup_size(WG)
fn scatter(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let id = wid.x + wid.y * ROW;
    if li == 0u {
        var count = min(cut.head.count, arrayLength(&cut.list));
        if atomicLoad(&control[OVERFLOW]) != 0u {
            count = 0u;
        }
        w_count = count;
        atomicStore(&low, 0u);
        atomicStore(&high, 0u);
        atomicStore(&slot_low, 0u);
        atomicStore(&slot_high, 0u);
    }
    let count = workgroupUniformLoad(&w_count);
    if id >= count {
        return;
    }
    let slice = cut.list[id];
    let task = nodes.list[slice.task].task;
    let d = nodes.list[slice.task].pick;
    let at = nodes.list[slice.task].base;
    // A probe slice of a task with no room (the descent is overflowing) moves nothing.
    var len = slice.len;
    if slice.probe == 1u && at == NONE {
        len = 0u;
    }
    // First the slice's words counted: table words with and without d, probe words
    // without it (as `low`).
    var first = task.t_off + slice.start;
    if slice.probe == 1u {
        first = task.p_off + slice.start;
    }
    var mine_low = 0u;
    var mine_high = 0u;
    for (var i = li; i < len; i += WG) {
        var w: vec2<u32>;
        if slice.probe == 1u {
            w = probe[first + i];
        } else {
            w = tin[first + i];
        }
        if has(w, d) {
            mine_high += 1u;
        } else {
            mine_low += 1u;
        }
    }
    atomicAdd(&low, mine_low);
    atomicAdd(&high, mine_high);
    workgroupBarrier();
    // One reservation per counter for the whole workgroup.
    if li == 0u {
        if slice.probe == 1u {
            at_low = atomicAdd(&nodes.list[slice.task].kept, atomicLoad(&low));
        } else {
            at_low = atomicAdd(&nodes.list[slice.task].low, atomicLoad(&low));
            at_high = atomicAdd(&nodes.list[slice.task].high, atomicLoad(&high));
        }
    }
    let base_low = workgroupUniformLoad(&at_low);
    let base_high = workgroupUniformLoad(&at_high);
    // Rounds of WG words, every invocation in each (the subgroup operations need all of a
    // subgroup): a word's slot is its subgroup's run, reserved by the subgroup's first
    // active lane with one atomic add, plus its rank among the subgroup's words that go the
    // same way (a prefix sum over the subgroup).
    let rounds = (len + WG - 1u) / WG;
    for (var r = 0u; r < rounds; r += 1u) {
        let i = r * WG + li;
        let live = i < len;
        var w = vec2<u32>(0u, 0u);
        if live && slice.probe == 1u {
            w = probe[first + i];
        } else if live {
            w = tin[first + i];
        }
        let with_d = live && has(w, d);
        let go_low = u32(live && !with_d);
        let go_high = u32(with_d && slice.probe == 0u);
        let rank_low = subgroupExclusiveAdd(go_low);
        let rank_high = subgroupExclusiveAdd(go_high);
        let run_low = subgroupAdd(go_low);
        let run_high = subgroupAdd(go_high);
        var run_at = vec2<u32>(0u, 0u);
        if subgroupBroadcastFirst(lane) == lane {
            run_at = vec2<u32>(atomicAdd(&slot_low, run_low), atomicAdd(&slot_high, run_high));
        }
        run_at = subgroupBroadcastFirst(run_at);
        if go_low == 1u && slice.probe == 1u {
            probe[at + base_low + run_at.x + rank_low] = w;
        } else if go_low == 1u {
            tout[task.t_off + base_low + run_at.x + rank_low] = w;
        } else if go_high == 1u {
            tout[task.t_off + task.t_len - 1u - (base_high + run_at.y + rank_high)] = w;
        }
    }
}

// The diagonal minimising p * sqrt(t0) + p0 * sqrt(t1), where t0 and t1 are the table words
// without and with it and p0 the probe words without it (the CPU split's model), among those
// that split the table's sample of `ts` words and that some word of the probe's sample has
// (a split on a diagonal no probe word has hands both halves the whole probe); NONE where
// none does.
fn best(task: Task, ts: u32, ps: u32) -> u32 {
    let t = f32(task.t_len);
    let p = f32(task.p_len);
    var best = 3.0e38;
    var d = NONE;
    for (var b = 0u; b < 64u; b++) {
        let tc = t_bits[b];
        if tc == 0u || tc == ts || p_bits[b] == 0u {
            continue;
        }
        let t1 = t * f32(tc) / f32(ts);
        let p0 = p - p * f32(p_bits[b]) / f32(max(ps, 1u));
        let cost = p * sqrt(t - t1) + p0 * sqrt(t1);
        if cost < best {
            best = cost;
            d = b;
        }
    }
    return d;
}

// Each of the first 64 invocations counts one bit in samples of both of `task`'s spans.
fn sample(task: Task, li: u32) {
    let ts = min(task.t_len, SAMPLES);
    let ps = min(task.p_len, SAMPLES);
    if li < 64u {
        var tc = 0u;
        var pc = 0u;
        let t_step = max(task.t_len / max(ts, 1u), 1u);
        let p_step = max(task.p_len / max(ps, 1u), 1u);
        for (var i = 0u; i < ts; i++) {
            tc += u32(has(kin[task.t_off + i * t_step], li));
        }
        for (var i = 0u; i < ps; i++) {
            pc += u32(has(probe_in[task.p_off + i * p_step], li));
        }
        t_bits[li] = tc;
        p_bits[li] = pc;
    }
}

// `task` cut into the leaves' items: tiles of its table span against runs of its probe
// span, appended to the pooled list.
fn leaves(task: Task, parity: u32, li: u32) {
    let across = task.t_len / TILE + u32(task.t_len % TILE != 0u);
    let down = task.p_len / LEAF_SLICE + u32(task.p_len % LEAF_SLICE != 0u);
    let k = across * down;
    if li == 0u {
        let old = atomicAdd(&items.head.count, k);
        let g = grown(old, k);
        atomicAdd(&items.head.x, g.x);
        atomicAdd(&items.head.y, g.y);
        atomicStore(&items.head.z, 1u);
        if old + k > arrayLength(&items.list) {
            atomicOr(&control[OVERFLOW], OVERFLOW_ITEMS);
        }
        w_first = old;
    }
    let first = workgroupUniformLoad(&w_first);
    for (var i = li; i < k; i += WG) {
        if first + i < arrayLength(&items.list) {
            let a = (i % across) * TILE;
            let b = (i / across) * LEAF_SLICE;
            let t_len = min(TILE, task.t_len - a) | (parity << 31u);
            items.list[first + i] = Task(task.t_off + a, t_len, task.p_off + b, min(LEAF_SLICE, task.p_len - b));
        }
    }
}

// `task`, split on `d`, appended to the next level with its slices of `size` words.
fn append(task: Task, d: u32, size: u32, li: u32) {
    let nt = task.t_len / size + u32(task.t_len % size != 0u);
    let k = nt + task.p_len / size + u32(task.p_len % size != 0u);
    if li == 0u {
        // Room for every probe word: how many are kept is known once they are scattered.
        var at = NONE;
        let b = atomicAdd(&control[BUMP], task.p_len);
        let cap = arrayLength(&probe_in);
        if b <= cap && task.p_len <= cap - b {
            at = b;
        } else {
            atomicOr(&control[OVERFLOW], OVERFLOW_PROBE);
        }
        let j = atomicAdd(&next.head.count, 1u);
        let g = grown(j, 1u);
        atomicAdd(&next.head.x, g.x);
        atomicAdd(&next.head.y, g.y);
        atomicStore(&next.head.z, 1u);
        atomicAdd(&next.head.words, task.t_len + task.p_len);
        if j < arrayLength(&next.list) {
            next.list[j].task = task;
            next.list[j].pick = d;
            next.list[j].base = at;
            atomicStore(&next.list[j].low, 0u);
            atomicStore(&next.list[j].high, 0u);
            atomicStore(&next.list[j].kept, 0u);
        } else {
            atomicOr(&control[OVERFLOW], OVERFLOW_NODES);
        }
        let s = atomicAdd(&slices.head.count, k);
        let h = grown(s, k);
        atomicAdd(&slices.head.x, h.x);
        atomicAdd(&slices.head.y, h.y);
        atomicStore(&slices.head.z, 1u);
        if s + k > arrayLength(&slices.list) {
            atomicOr(&control[OVERFLOW], OVERFLOW_SLICES);
        }
        w_slot = j;
        w_first = s;
    }
    let j = workgroupUniformLoad(&w_slot);
    let first = workgroupUniformLoad(&w_first);
    for (var i = li; i < k; i += WG) {
        if first + i < arrayLength(&slices.list) {
            if i < nt {
                slices.list[first + i] = Slice(j, i * size, min(size, task.t_len - i * size), 0u);
            } else {
                let q = (i - nt) * size;
                slices.list[first + i] = Slice(j, q, min(size, task.p_len - q), 1u);
            }
        }
    }
}

@compute @workgroup_size(WG)
fn children(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = wid.x + wid.y * ROW;
    if li == 0u {
        var count = min(parents.head.count, arrayLength(&parents.list));
        if atomicLoad(&control[OVERFLOW]) != 0u {
            count = 0u;
        }
        w_count = count;
        if id < count {
            let parent = parents.list[id];
            if parent.pick == ROOT {
                w_kids[0] = parent.task;
                w_kids[1] = Task(0u, 0u, 0u, 0u);
            } else {
                let t = parent.task;
                w_kids[0] = Task(t.t_off, parent.low, t.p_off, t.p_len);
                var p1 = 0u;
                if parent.base != NONE {
                    p1 = parent.kept;
                }
                w_kids[1] = Task(t.t_off + parent.low, t.t_len - parent.low, parent.base, p1);
                add64(MOVED, t.t_len + parent.kept);
            }
        }
    }
    let count = workgroupUniformLoad(&w_count);
    if id >= count {
        return;
    }
    let kids = workgroupUniformLoad(&w_kids);
    // The next level's slices: its parents' words over SPREAD workgroups.
    let size = clamp(parents.head.words / SPREAD + 1u, SLICE_LEAST, SLICE_MOST);
    let parity = parents.head.parity;
    for (var k = 0u; k < 2u; k++) {
        let task = kids[k];
        if task.t_len == 0u || task.p_len == 0u {
            continue;
        }
        var d = NONE;
        if task.t_len > TILE {
            sample(task, li);
            workgroupBarrier();
            if li == 0u {
                w_pick = best(task, min(task.t_len, SAMPLES), min(task.p_len, SAMPLES));
            }
            d = workgroupUniformLoad(&w_pick);
        }
        if d == NONE {
            leaves(task, parity, li);
        } else {
            append(task, d, size, li);
        }
        // The workgroup's shared words are written again for the second child.
        workgroupBarrier();
    }
}
