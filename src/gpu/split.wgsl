// One split level in three dispatches. `pick`: a workgroup a task (a table span against a
// probe span) picks the diagonal its samples price lowest and reserves room for the probe
// words without it. `scatter`: a workgroup a slice of a task's table or probe span
// partitions its table words on the diagonal into the other buffer (those without it from
// the front, those with it from the back) or compacts its probe words without it into the
// reserved room, each workgroup reserving its run with one atomic add per task counter.
// `kids`: an invocation a task writes its two children. A task no diagonal splits goes
// back whole, flagged, to be counted at the leaves. The host replaces WG with the
// workgroup's size (at least 64, within the adapter's limits) and SAMPLES with the words
// sampled of each side.

struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

// A slice: its task, where it starts in the task's span, its words, and whether it is of
// the probe span (1) or the table's (0).
struct Slice {
    task: u32,
    start: u32,
    len: u32,
    probe: u32,
}

struct Shape {
    // Tasks or slices in this dispatch, the dispatch's width in workgroups, the probe
    // buffer's words.
    count: u32,
    width: u32,
    probe_cap: u32,
    unused: u32,
}

struct State {
    bump: atomic<u32>,
    overflow: atomic<u32>,
}

@group(0) @binding(0) var<storage, read> tin: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> tout: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> probe: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> tasks: array<Task>;
@group(0) @binding(4) var<storage, read_write> kids: array<Task>;
@group(0) @binding(5) var<storage, read_write> state: State;
@group(0) @binding(6) var<uniform> shape: Shape;
// Per task, eight words: the diagonal picked, the probe room's start, and the words
// without the diagonal, with it, and the probe words kept so far.
@group(0) @binding(7) var<storage, read_write> info: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> slices: array<Slice>;

const NONE: u32 = 0xffffffffu;
const PICK: u32 = 0u;
const BASE: u32 = 1u;
const LOW: u32 = 2u;
const HIGH: u32 = 3u;
const KEPT: u32 = 4u;

var<workgroup> t_bits: array<u32, 64>;
var<workgroup> p_bits: array<u32, 64>;
var<workgroup> low: atomic<u32>;
var<workgroup> high: atomic<u32>;
var<workgroup> slot_low: atomic<u32>;
var<workgroup> slot_high: atomic<u32>;
var<workgroup> at_low: u32;
var<workgroup> at_high: u32;

fn has(w: vec2<u32>, d: u32) -> bool {
    if d >= 64u {
        return false;
    }
    if d < 32u {
        return ((w.x >> d) & 1u) == 1u;
    }
    return ((w.y >> (d - 32u)) & 1u) == 1u;
}

fn index(wid: vec3<u32>) -> u32 {
    return wid.x + wid.y * shape.width;
}

@compute @workgroup_size(WG)
fn pick(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = index(wid);
    var task = Task(0u, 0u, 0u, 0u);
    if id < shape.count {
        task = tasks[id];
    }
    let ts = min(task.t_len, SAMPLESu);
    let ps = min(task.p_len, SAMPLESu);
    // Each of the first 64 invocations counts one bit in both sides' samples.
    if li < 64u {
        var tc = 0u;
        var pc = 0u;
        let t_step = max(task.t_len / max(ts, 1u), 1u);
        let p_step = max(task.p_len / max(ps, 1u), 1u);
        for (var i = 0u; i < ts; i++) {
            tc += u32(has(tin[task.t_off + i * t_step], li));
        }
        for (var i = 0u; i < ps; i++) {
            pc += u32(has(probe[task.p_off + i * p_step], li));
        }
        t_bits[li] = tc;
        p_bits[li] = pc;
    }
    workgroupBarrier();
    // The diagonal minimising p * sqrt(t0) + p0 * sqrt(t1), where t0 and t1 are the table
    // words without and with it and p0 the probe words without it (the CPU split's model),
    // among those that split the table's sample; none sends the task to the leaves whole.
    if li == 0u && id < shape.count {
        let t = f32(task.t_len);
        let p = f32(task.p_len);
        var best = 3.0e38;
        var d = NONE;
        for (var b = 0u; b < 64u; b++) {
            let tc = t_bits[b];
            if tc == 0u || tc == ts {
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
        // Room for every probe word: how many are kept is known once they are scattered.
        var at = NONE;
        if d != NONE {
            let b = atomicAdd(&state.bump, task.p_len);
            if b <= shape.probe_cap && task.p_len <= shape.probe_cap - b {
                at = b;
            } else {
                atomicStore(&state.overflow, 1u);
            }
        }
        atomicStore(&info[8u * id + PICK], d);
        atomicStore(&info[8u * id + BASE], at);
        atomicStore(&info[8u * id + LOW], 0u);
        atomicStore(&info[8u * id + HIGH], 0u);
        atomicStore(&info[8u * id + KEPT], 0u);
    }
}

@compute @workgroup_size(WG)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = index(wid);
    var slice = Slice(0u, 0u, 0u, 0u);
    if id < shape.count {
        slice = slices[id];
    }
    let task = tasks[slice.task];
    let m = 8u * slice.task;
    let d = atomicLoad(&info[m + PICK]);
    let at = atomicLoad(&info[m + BASE]);
    // A probe slice of a task with no diagonal, or no room, moves nothing.
    let idle = slice.probe == 1u && (d == NONE || at == NONE);
    var len = slice.len;
    if idle {
        len = 0u;
    }
    if li == 0u {
        atomicStore(&low, 0u);
        atomicStore(&high, 0u);
        atomicStore(&slot_low, 0u);
        atomicStore(&slot_high, 0u);
    }
    workgroupBarrier();
    // First the slice's words counted: table words with and without d, probe words
    // without it (as `low`).
    var first = task.t_off + slice.start;
    if slice.probe == 1u {
        first = task.p_off + slice.start;
    }
    var mine_low = 0u;
    var mine_high = 0u;
    for (var i = li; i < len; i += WGu) {
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
    if li == 0u && id < shape.count {
        if slice.probe == 1u {
            at_low = atomicAdd(&info[m + KEPT], atomicLoad(&low));
        } else {
            at_low = atomicAdd(&info[m + LOW], atomicLoad(&low));
            at_high = atomicAdd(&info[m + HIGH], atomicLoad(&high));
        }
    }
    let base_low = workgroupUniformLoad(&at_low);
    let base_high = workgroupUniformLoad(&at_high);
    for (var i = li; i < len; i += WGu) {
        if slice.probe == 1u {
            let w = probe[first + i];
            if !has(w, d) {
                let s = atomicAdd(&slot_low, 1u);
                probe[at + base_low + s] = w;
            }
        } else {
            let w = tin[first + i];
            if has(w, d) {
                let s = atomicAdd(&slot_high, 1u);
                tout[task.t_off + task.t_len - 1u - (base_high + s)] = w;
            } else {
                let s = atomicAdd(&slot_low, 1u);
                tout[task.t_off + base_low + s] = w;
            }
        }
    }
}

@compute @workgroup_size(64)
fn children(@builtin(global_invocation_id) gid: vec3<u32>) {
    let id = gid.x + gid.y * shape.width * 64u;
    if id >= shape.count {
        return;
    }
    let task = tasks[id];
    let m = 8u * id;
    let d = atomicLoad(&info[m + PICK]);
    let at = atomicLoad(&info[m + BASE]);
    let t0 = atomicLoad(&info[m + LOW]);
    let k = atomicLoad(&info[m + KEPT]);
    if d == NONE {
        kids[2u * id] = task;
        kids[2u * id + 1u] = Task(0u, 0u, 0u, NONE);
        return;
    }
    kids[2u * id] = Task(task.t_off, t0, task.p_off, task.p_len);
    var p1 = Task(task.t_off + t0, task.t_len - t0, 0u, 0u);
    if at != NONE {
        p1.p_off = at;
        p1.p_len = k;
    }
    kids[2u * id + 1u] = p1;
}
