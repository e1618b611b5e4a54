//! A measuring probe, not part of `nqueens`: the total of an even n-board counted by a
//! vertical cut, to size the join method issue 11 points at before building it into the
//! engine. Built and run by `scripts/vertical-cut.sh`; one thread, no crates.
//!
//! Every solution puts a queen in each of the `h = n / 2` left columns; the rows those take
//! are its key `E` (h of the n rows), and the right columns take the other rows. A left
//! half-board (queens on the rows of `E`, one in each left column, no two attacking) and a
//! right half-board on the other rows make a solution exactly when no diagonal holds a queen
//! of each. The left half-boards of a key are built from the north-west and south-west
//! quadrants' pieces (placements in a quadrant keyed by their rows and columns) that share no
//! column and no diagonal. A right half-board is the mirror image of a left one, and the
//! board's mirror and flip map keys to keys with the same count, so one key per orbit is
//! counted. Matching: for each diagonal, the set of left half-boards on it, as a bitset, and
//! for each eight consecutive diagonals the unions of every subset of their sets (a table of
//! 256); a right half-board meets the union of its diagonals' sets, one table entry per eight
//! diagonals, and completes the rest.
//!
//! Usage: `vertical_cut N [THREADS]` (THREADS, default 1, take the keys in turn).
//! Output: `n,total,half_boards,build_s,match_s,seconds` (building and matching in CPU
//! seconds summed over the threads; `seconds` is wall time).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A placement's diagonals: `r - c + n - 1` (down-right) and `r + c` (down-left) as bits.
#[derive(Clone, Copy)]
struct Lines {
    down_right: u64,
    down_left: u64,
}

/// The pieces of the quadrant of rows `first..first + h` and the left `h` columns:
/// `out[rows][cols]`, each a set of bits over the quadrant's rows and the columns.
fn quadrant(n: usize, h: usize, first: usize) -> Vec<Vec<Vec<Lines>>> {
    fn place(
        (n, h, first): (usize, usize, usize),
        i: usize,
        (rows, cols): (usize, usize),
        lines: Lines,
        out: &mut Vec<Vec<Vec<Lines>>>,
    ) {
        if i == h {
            out[rows][cols].push(lines);
            return;
        }
        place((n, h, first), i + 1, (rows, cols), lines, out);
        let r = first + i;
        for c in (0..h).filter(|c| cols >> c & 1 == 0) {
            let (a, b) = (1u64 << (r + n - 1 - c), 1u64 << (r + c));
            if lines.down_right & a == 0 && lines.down_left & b == 0 {
                let next = Lines {
                    down_right: lines.down_right | a,
                    down_left: lines.down_left | b,
                };
                place(
                    (n, h, first),
                    i + 1,
                    (rows | 1 << i, cols | 1 << c),
                    next,
                    out,
                );
            }
        }
    }
    let mut out = vec![vec![Vec::new(); 1 << h]; 1 << h];
    let none = Lines {
        down_right: 0,
        down_left: 0,
    };
    place((n, h, first), 0, (0, 0), none, &mut out);
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = match args.first().map(|a| a.parse()) {
        Some(Ok(n)) if n % 2 == 0 && (4..=22).contains(&n) => n,
        _ => usage(),
    };
    let threads: usize = match args.get(1).map(|a| a.parse()) {
        None => 1,
        Some(Ok(t)) if (1..=1024).contains(&t) => t,
        _ => usage(),
    };
    let h = n / 2;
    let start = Instant::now();
    let north = quadrant(n, h, 0);
    let south = quadrant(n, h, h);
    let left_cols = (1usize << h) - 1;
    // The diagonals a left and a right queen can share: n - 1 of each direction.
    let shared = (1u64 << (n - 1)) - 1;
    // The left half-boards of key `e` (bits over the n rows), each as the word of its
    // diagonals seen from the left, or (`mirrored`) the word its mirror image has as a right
    // half-board.
    let build = |e: usize, mirrored: bool, out: &mut Vec<u64>| {
        out.clear();
        let (en, es) = (e & left_cols, e >> h);
        let k = en.count_ones();
        for cols in (0..=left_cols).filter(|c| c.count_ones() == k) {
            let south = &south[es][left_cols & !cols];
            for p in &north[en][cols] {
                // Every pair is written and the clashing ones overwritten: no branch to miss.
                let mut len = out.len();
                out.resize(len + south.len(), 0);
                for q in south {
                    let clash = p.down_right & q.down_right | p.down_left & q.down_left;
                    let (dr, dl) = (p.down_right | q.down_right, p.down_left | q.down_left);
                    // The mirror swaps the two directions.
                    let (dr, dl) = if mirrored { (dl, dr) } else { (dr, dl) };
                    out[len] = (dr >> (n - h)) & shared | ((dl >> h) & shared) << 32;
                    len += usize::from(clash == 0);
                }
                out.truncate(len);
            }
        }
    };
    let all = (1usize << n) - 1;
    let flip = |x: usize| ((x as u32).reverse_bits() >> (32 - n)) as usize;
    // One key per orbit of the mirror (`e` -> its complement) and the flip, with the orbit's
    // size.
    let keys: Vec<(usize, u64)> = (0..=all)
        .filter(|e| e.count_ones() as usize == h)
        .filter(|&e| ![all ^ e, flip(e), flip(all ^ e)].iter().any(|&o| o < e))
        .map(|e| {
            let f = flip(e);
            (e, if f == e || f == all ^ e { 2 } else { 4 })
        })
        .collect();
    let next = AtomicUsize::new(0);
    // Per thread: total, half-boards, build and match seconds.
    let work = || {
        let (mut left, mut right, mut sets, mut tables) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut sum = (0u64, 0u64, 0.0, 0.0);
        while let Some(&(e, orbit)) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
            let t = Instant::now();
            build(e, false, &mut left);
            build(all ^ e, true, &mut right);
            sum.2 += t.elapsed().as_secs_f64();
            sum.1 += (left.len() + right.len()) as u64;
            let t = Instant::now();
            let union = left.iter().fold(0, |u, &l| u | l);
            let words = left.len().div_ceil(64).next_multiple_of(8);
            sets.clear();
            sets.resize(union.count_ones() as usize * words, 0u64);
            for (j, &l) in left.iter().enumerate() {
                let mut bits = l;
                while bits != 0 {
                    let rank = (union & ((1u64 << bits.trailing_zeros()) - 1)).count_ones();
                    sets[rank as usize * words + j / 64] |= 1 << (j % 64);
                    bits &= bits - 1;
                }
            }
            // tables[(j * 256 + v) * words..]: the union of the sets of ranks 8j + (bits of v).
            let bytes = (union.count_ones() as usize).div_ceil(8);
            tables.clear();
            tables.resize(bytes * 256 * words, 0u64);
            for j in 0..bytes {
                for v in 1..256usize {
                    let rank = 8 * j + v.trailing_zeros() as usize;
                    let (to, from) = ((j * 256 + v) * words, (j * 256 + (v & (v - 1))) * words);
                    let (done, rest) = tables.split_at_mut(to);
                    let (entry, smaller) = (&mut rest[..words], &done[from..from + words]);
                    match sets.get(rank * words..(rank + 1) * words) {
                        Some(set) => {
                            for ((e, a), b) in entry.iter_mut().zip(smaller).zip(set) {
                                *e = a | b;
                            }
                        }
                        None => entry.copy_from_slice(smaller),
                    }
                }
            }
            let meets = matched(&tables, words, union, &right);
            sum.0 += orbit * (left.len() as u64 * right.len() as u64 - meets);
            sum.3 += t.elapsed().as_secs_f64();
        }
        sum
    };
    let sums: Vec<(u64, u64, f64, f64)> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        running.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let total: u64 = sums.iter().map(|s| s.0).sum();
    let half_boards: u64 = sums.iter().map(|s| s.1).sum();
    let build_s: f64 = sums.iter().map(|s| s.2).sum();
    let match_s: f64 = sums.iter().map(|s| s.3).sum();
    let seconds = start.elapsed().as_secs_f64();
    println!("{n},{total},{half_boards},{build_s:.3},{match_s:.3},{seconds:.3}");
}

fn usage() -> ! {
    eprintln!("usage: vertical_cut N [THREADS]   (N even, 4..=22; THREADS 1..=1024, default 1)");
    std::process::exit(2);
}

/// The ranks among `union`'s bits of `r`'s bits, as bits (what BMI2's `pext` computes).
fn ranked(r: u64, union: u64) -> u64 {
    let (mut ranked, mut bits) = (0u64, r & union);
    while bits != 0 {
        ranked |= 1 << (union & ((1u64 << bits.trailing_zeros()) - 1)).count_ones();
        bits &= bits - 1;
    }
    ranked
}

/// The table entries that `ranked` (a right half-board's diagonals, ranked) selects: the
/// offsets of the unions of their sets, one per byte of ranks.
#[inline(always)]
fn entries(ranked: u64, words: usize, at: &mut [usize; 8]) -> usize {
    let mut k = 0;
    for j in 0..8 {
        let v = (ranked >> (8 * j)) as usize & 255;
        if v != 0 {
            at[k] = (j * 256 + v) * words;
            k += 1;
        }
    }
    k
}

/// How many (left, right) pairs share a diagonal: each right half-board ORs its table
/// entries (`words` each, a multiple of 8) and counts the members.
fn matched(tables: &[u64], words: usize, union: u64, right: &[u64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vpopcntdq")
        && is_x86_feature_detected!("bmi2")
    {
        // SAFETY: the CPU has the three features, checked just above.
        return unsafe { matched512(tables, words, union, right) };
    }
    let (mut meets, mut at) = (0, [0usize; 8]);
    let mut acc = vec![0u64; words];
    for &r in right {
        acc.fill(0);
        let k = entries(ranked(r, union), words, &mut at);
        for &o in &at[..k] {
            for (a, t) in acc.iter_mut().zip(&tables[o..o + words]) {
                *a |= t;
            }
        }
        meets += acc.iter().map(|a| u64::from(a.count_ones())).sum::<u64>();
    }
    meets
}

/// [`matched`] with AVX-512: eight words of the entries a step.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,bmi2,popcnt")]
fn matched512(tables: &[u64], words: usize, union: u64, right: &[u64]) -> u64 {
    use std::arch::x86_64::*;
    let (mut meets, mut at) = (0, [0usize; 8]);
    for &r in right {
        let k = entries(_pext_u64(r, union), words, &mut at);
        let mut sum = _mm512_setzero_si512();
        for c in (0..words).step_by(8) {
            let mut acc = _mm512_setzero_si512();
            for &o in &at[..k] {
                // SAFETY: `o + c + 8 <= tables.len()`: `o` starts an entry of `words` words
                // and `c + 8 <= words` (a multiple of 8); the load is unaligned.
                acc = _mm512_or_si512(acc, unsafe {
                    _mm512_loadu_si512(tables[o + c..].as_ptr().cast())
                });
            }
            sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(acc));
        }
        meets += _mm512_reduce_add_epi64(sum) as u64;
    }
    meets
}
