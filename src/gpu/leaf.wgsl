// The leaves, pooled: one dispatch a submission takes every item its levels cut, a workgroup
// an item (at most TILE table words, in the table buffer its t_len's top bit names, against
// at most LEAF_SLICE probe words). The workgroup holds the table words in workgroup memory
// and counts the pairs that share no bit, one probe word an invocation at a time. Its count
// (at most TILE times LEAF_SLICE, below 2^32) is added to one of FOUND two-word counters
// (low word, then high, carried by whoever wraps the low), as are the pairs it tested and
// its probe words; the host sums the counters. The host prepends the constants (WG
// invocations a workgroup, ROW workgroups a row, TILE, LEAF_SLICE, FOUND).

struct Task {
    t_off: u32,
    t_len: u32,
    p_off: u32,
    p_len: u32,
}

struct Head {
    x: u32,
    y: u32,
    z: u32,
    count: u32,
    words: u32,
    parity: u32,
    unused0: u32,
    unused1: u32,
}

struct Items {
    head: Head,
    list: array<Task>,
}

// Words of `control` (split.wgsl's layout): why the descent stopped, the pairs tested, the
// probe words visiting a tile, then the FOUND counters, two words each.
const OVERFLOW: u32 = 1u;
const TESTED: u32 = 2u;
const VISITS: u32 = 4u;
const COUNTS: u32 = 16u;

@group(0) @binding(0) var<storage, read> table0: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> table1: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> probe: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> items: Items;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>>;

var<workgroup> tile: array<vec2<u32>, TILE>;
var<workgroup> sum: atomic<u32>;
var<workgroup> w_count: u32;

fn add64(at: u32, v: u32) {
    let old = atomicAdd(&control[at], v);
    if old + v < old {
        atomicAdd(&control[at + 1u], 1u);
    }
}

@compute @workgroup_size(WG)
fn leaf(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let id = wid.x + wid.y * ROW;
    if li == 0u {
        var count = min(items.head.count, arrayLength(&items.list));
        if atomicLoad(&control[OVERFLOW]) != 0u {
            count = 0u;
        }
        w_count = count;
        atomicStore(&sum, 0u);
    }
    let count = workgroupUniformLoad(&w_count);
    if id >= count {
        return;
    }
    let item = items.list[id];
    let t_len = item.t_len & 0x7fffffffu;
    let upper = (item.t_len >> 31u) == 1u;
    for (var i = li; i < t_len; i += WG) {
        if upper {
            tile[i] = table1[item.t_off + i];
        } else {
            tile[i] = table0[item.t_off + i];
        }
    }
    workgroupBarrier();
    var c = 0u;
    for (var j = li; j < item.p_len; j += WG) {
        let p = probe[item.p_off + j];
        for (var i = 0u; i < t_len; i++) {
            let w = tile[i];
            c += u32(((w.x & p.x) | (w.y & p.y)) == 0u);
        }
    }
    atomicAdd(&sum, c);
    workgroupBarrier();
    if li == 0u {
        add64(COUNTS + 2u * (id % FOUND), atomicLoad(&sum));
        add64(TESTED, t_len * item.p_len);
        add64(VISITS, item.p_len);
    }
}
