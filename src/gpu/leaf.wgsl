// The leaves, pooled: one dispatch a submission takes every item its levels cut, a workgroup
// an item (at most TILE table words, in the table buffer its t_len's top bit names, against
// at most LEAF_SLICE probe words). The workgroup ORs the table words into their union; a
// probe word that meets no diagonal of it is disjoint from every table word. Where the item
// has more probe words than its union has diagonals, the workgroup transposes the table into
// bitsets in workgroup memory, one set a diagonal (bit j of set d: table word j has bit d),
// and a probe word meets the table words of the OR of its diagonals' sets:
//
//     union = OR(table words)
//     sets[d] = the table words with bit d, for each diagonal d of union
//     for each probe word p: q = p & union
//         q == 0: every table word is disjoint from p
//         else:   disjoint = |table| - popcount(OR of sets[d] for each d of q)
//
// Where the probe words are fewer, each is tested against each table word. Its count (at
// most TILE times LEAF_SLICE, below 2^32) is added to the two-word counter (low word, then
// high, carried by whoever wraps the low) of the matching whose table holds the item's (a
// descent takes up to FOUND matchings, their tables one after another), as are the pairs it
// decided and its probe words to theirs. The host prepends the constants (WG invocations a
// workgroup, ROW workgroups a row, TILE, SET words a set, LEAF_SLICE, FOUND).

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
// probe words visiting a tile, the matchings of the descent, their FOUND counters of two
// words each, then where each matching's table starts.
const OVERFLOW: u32 = 1u;
const TESTED: u32 = 2u;
const VISITS: u32 = 4u;
const MATCHINGS: u32 = 15u;
const COUNTS: u32 = 16u;
const STARTS: u32 = COUNTS + 2u * FOUND;

@group(0) @binding(0) var<storage, read> table0: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> table1: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> probe: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> items: Items;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>>;

// The 64 diagonals' sets of table words, SET words each.
var<workgroup> sets: array<u32, 64u * SET>;
var<workgroup> w_union: array<atomic<u32>, 2>;
var<workgroup> sum: atomic<u32>;
var<workgroup> w_count: u32;

fn add64(at: u32, v: u32) {
    let old = atomicAdd(&control[at], v);
    if old + v < old {
        atomicAdd(&control[at + 1u], 1u);
    }
}

// The matching whose table holds table word `at`: the last whose table starts at or before
// it (the tables are not empty, so their starts rise).
fn matching_of(at: u32) -> u32 {
    var low = 0u;
    var high = atomicLoad(&control[MATCHINGS]);
    while high - low > 1u {
        let mid = (low + high) / 2u;
        if atomicLoad(&control[STARTS + mid]) <= at {
            low = mid;
        } else {
            high = mid;
        }
    }
    return low;
}

// Table word `at` of the buffer `upper` names.
fn table_word(upper: bool, at: u32) -> vec2<u32> {
    if upper {
        return table1[at];
    }
    return table0[at];
}

// Bit `d` (0..64) of `w`.
fn bit(w: vec2<u32>, d: u32) -> u32 {
    if d < 32u {
        return (w.x >> d) & 1u;
    }
    return (w.y >> (d - 32u)) & 1u;
}

// The OR of the sets of `q`'s diagonals, word `w` of them.
fn met(q: vec2<u32>, w: u32) -> u32 {
    var a = 0u;
    var m = q.x;
    while m != 0u {
        a |= sets[firstTrailingBit(m) * SET + w];
        m &= m - 1u;
    }
    m = q.y;
    while m != 0u {
        a |= sets[(firstTrailingBit(m) + 32u) * SET + w];
        m &= m - 1u;
    }
    return a;
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
        atomicStore(&w_union[0], 0u);
        atomicStore(&w_union[1], 0u);
    }
    let count = workgroupUniformLoad(&w_count);
    if id >= count {
        return;
    }
    let item = items.list[id];
    let t_len = item.t_len & 0x7fffffffu;
    let upper = (item.t_len >> 31u) == 1u;
    var u = vec2<u32>(0u, 0u);
    for (var i = li; i < t_len; i += WG) {
        u |= table_word(upper, item.t_off + i);
    }
    atomicOr(&w_union[0], u.x);
    atomicOr(&w_union[1], u.y);
    workgroupBarrier();
    let all = vec2<u32>(atomicLoad(&w_union[0]), atomicLoad(&w_union[1]));
    let words = (t_len + 31u) / 32u;
    let transposed = item.p_len > countOneBits(all.x) + countOneBits(all.y);
    if transposed {
        // Invocation j builds word j % SET of diagonal j / SET's set.
        for (var j = li; j < 64u * SET; j += WG) {
            let d = j / SET;
            let w = j % SET;
            var m = 0u;
            if w < words && bit(all, d) != 0u {
                let first = item.t_off + 32u * w;
                let n = min(32u, t_len - 32u * w);
                for (var b = 0u; b < n; b++) {
                    m |= bit(table_word(upper, first + b), d) << b;
                }
            }
            sets[j] = m;
        }
    }
    workgroupBarrier();
    var c = 0u;
    for (var j = li; j < item.p_len; j += WG) {
        let p = probe[item.p_off + j];
        let q = p & all;
        if (q.x | q.y) == 0u {
            c += t_len;
        } else if transposed {
            var meets = 0u;
            for (var w = 0u; w < words; w++) {
                meets += countOneBits(met(q, w));
            }
            c += t_len - meets;
        } else {
            for (var i = 0u; i < t_len; i++) {
                let w = table_word(upper, item.t_off + i);
                c += u32(((w.x & q.x) | (w.y & q.y)) == 0u);
            }
        }
    }
    atomicAdd(&sum, c);
    workgroupBarrier();
    if li == 0u {
        add64(COUNTS + 2u * matching_of(item.t_off), atomicLoad(&sum));
        add64(TESTED, t_len * item.p_len);
        add64(VISITS, item.p_len);
    }
}
