// The leaves: each workgroup takes one item (at most TILE table words, at most the host's
// slice of probe words), holds the table words in workgroup memory and counts the pairs
// that share no bit, one probe word an invocation at a time. Its count (at most TILE times
// the slice, below 2^32) goes to its own slot; the host sums the slots. The host replaces WG
// with the workgroup's size and TILE with the table words a workgroup holds (from the
// workgroup memory the adapter has, or the cap asked for).

struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

struct Shape {
    count: u32,
    width: u32,
    unused: u32,
    first: u32,
}

@group(0) @binding(0) var<storage, read> table: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> probe: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> items: array<Task>;
@group(0) @binding(3) var<storage, read_write> found: array<u32>;
@group(0) @binding(4) var<uniform> shape: Shape;

var<workgroup> tile: array<vec2<u32>, TILE>;
var<workgroup> sum: atomic<u32>;

@compute @workgroup_size(WG)
fn leaf(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = shape.first + wid.x + wid.y * shape.width;
    var item = Task(0u, 0u, 0u, 0u);
    if id < shape.count {
        item = items[id];
    }
    for (var i = li; i < item.t_len; i += WGu) {
        tile[i] = table[item.t_off + i];
    }
    if li == 0u {
        atomicStore(&sum, 0u);
    }
    workgroupBarrier();
    var c = 0u;
    for (var j = li; j < item.p_len; j += WGu) {
        let p = probe[item.p_off + j];
        for (var i = 0u; i < item.t_len; i++) {
            let w = tile[i];
            c += u32(((w.x & p.x) | (w.y & p.y)) == 0u);
        }
    }
    atomicAdd(&sum, c);
    workgroupBarrier();
    if li == 0u && id < shape.count {
        found[id] = atomicLoad(&sum);
    }
}
