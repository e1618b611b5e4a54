// One split level: each workgroup takes one task (a table span and a probe span), picks the
// diagonal its samples price lowest, partitions the table span on it into the other buffer
// (the words without it from the front, those with it from the back) and compacts the probe
// words without it into a span of their own, then writes the task's two children. A
// workgroup that finds no diagonal worth splitting on sends its task back whole, flagged,
// to be counted at the leaves. The host replaces WG with the workgroup's size (at least 64,
// within the adapter's limits) and SAMPLES with the words sampled of each side.

struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

struct Shape {
    // Tasks in this dispatch, the dispatch's width in workgroups, the probe buffer's words.
    count: u32,
    width: u32,
    probe_cap: u32,
    first: u32,
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

const NONE: u32 = 0xffffffffu;

var<workgroup> t_bits: array<u32, 64>;
var<workgroup> p_bits: array<u32, 64>;
var<workgroup> pick: u32;
var<workgroup> low: atomic<u32>;
var<workgroup> high: atomic<u32>;
var<workgroup> kept: atomic<u32>;
var<workgroup> written: atomic<u32>;
var<workgroup> base: u32;

fn has(w: vec2<u32>, d: u32) -> bool {
    if d >= 64u {
        return false;
    }
    if d < 32u {
        return ((w.x >> d) & 1u) == 1u;
    }
    return ((w.y >> (d - 32u)) & 1u) == 1u;
}

@compute @workgroup_size(WG)
fn split(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = shape.first + wid.x + wid.y * shape.width;
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
    if li == 0u {
        atomicStore(&low, 0u);
        atomicStore(&high, 0u);
        atomicStore(&kept, 0u);
        atomicStore(&written, 0u);
    }
    workgroupBarrier();
    // The diagonal minimising p * sqrt(t0) + p0 * sqrt(t1), where t0 and t1 are the table
    // words without and with it and p0 the probe words without it; none that splits the
    // sample, or none cheaper than not splitting, sends the task to the leaves.
    if li == 0u {
        let t = f32(task.t_len);
        let p = f32(task.p_len);
        var best = p * sqrt(t);
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
        pick = d;
    }
    let d = workgroupUniformLoad(&pick);
    // The table span, partitioned on d into the other buffer.
    for (var i = li; i < task.t_len; i += WGu) {
        let w = tin[task.t_off + i];
        if has(w, d) {
            let s = atomicAdd(&high, 1u);
            tout[task.t_off + task.t_len - 1u - s] = w;
        } else {
            let s = atomicAdd(&low, 1u);
            tout[task.t_off + s] = w;
        }
    }
    // The probe words without d, counted, given a span, then written.
    var mine = 0u;
    if d != NONE {
        for (var j = li; j < task.p_len; j += WGu) {
            mine += u32(!has(probe[task.p_off + j], d));
        }
    }
    atomicAdd(&kept, mine);
    workgroupBarrier();
    if li == 0u {
        let k = atomicLoad(&kept);
        var at = NONE;
        if d != NONE && k > 0u && id < shape.count {
            let b = atomicAdd(&state.bump, k);
            if b <= shape.probe_cap && k <= shape.probe_cap - b {
                at = b;
            } else {
                atomicStore(&state.overflow, 1u);
            }
        }
        base = at;
    }
    let at = workgroupUniformLoad(&base);
    if at != NONE {
        for (var j = li; j < task.p_len; j += WGu) {
            let w = probe[task.p_off + j];
            if !has(w, d) {
                let s = atomicAdd(&written, 1u);
                probe[at + s] = w;
            }
        }
    }
    if li == 0u && id < shape.count {
        let t0 = atomicLoad(&low);
        let k = atomicLoad(&kept);
        if d == NONE {
            kids[2u * id] = task;
            kids[2u * id + 1u] = Task(0u, 0u, 0u, NONE);
        } else {
            kids[2u * id] = Task(task.t_off, t0, task.p_off, task.p_len);
            var p1 = Task(task.t_off + t0, task.t_len - t0, 0u, 0u);
            if at != NONE {
                p1.p_off = at;
                p1.p_len = k;
            }
            kids[2u * id + 1u] = p1;
        }
    }
}
