//! A naive N-Queens solver written apart from the engine: it checks rows, columns and both
//! diagonals square by square, and finds symmetry classes by comparing all eight images.

#![allow(dead_code)]

/// Every solution of an `n`-board, as the column of the queen in each row, in
/// lexicographic order.
pub fn solutions(n: usize) -> Vec<Vec<u8>> {
    fn safe(board: &[u8], col: usize) -> bool {
        let row = board.len();
        board.iter().enumerate().all(|(r, &c)| {
            let c = c as usize;
            c != col && row - r != c.abs_diff(col)
        })
    }
    fn place(n: usize, board: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if board.len() == n {
            out.push(board.clone());
            return;
        }
        for col in 0..n {
            if safe(board, col) {
                board.push(col as u8);
                place(n, board, out);
                board.pop();
            }
        }
    }
    let mut out = Vec::new();
    place(n, &mut Vec::new(), &mut out);
    out
}

/// A symmetry of the square: `(n, row, col)` to the image square.
type Map = fn(usize, usize, usize) -> (usize, usize);

/// The eight images of a solution under the symmetries of the square.
pub fn images(x: &[u8]) -> Vec<Vec<u8>> {
    let n = x.len();
    // Each image as a set of squares, turned back into a column-per-row vector.
    let maps: [Map; 8] = [
        |_, r, c| (r, c),
        |n, r, c| (c, n - 1 - r),
        |n, r, c| (n - 1 - r, n - 1 - c),
        |n, r, c| (n - 1 - c, r),
        |n, r, c| (r, n - 1 - c),
        |n, r, c| (n - 1 - r, c),
        |_, r, c| (c, r),
        |n, r, c| (n - 1 - c, n - 1 - r),
    ];
    maps.iter()
        .map(|f| {
            let mut y = vec![0u8; n];
            for (r, &c) in x.iter().enumerate() {
                let (r2, c2) = f(n, r, c as usize);
                y[r2] = c2 as u8;
            }
            y
        })
        .collect()
}

/// Number of symmetry classes among the solutions, and the sum of the classes' sizes.
pub fn classes(n: usize) -> (usize, usize) {
    let all = solutions(n);
    let mut reps: Vec<Vec<u8>> = all
        .iter()
        .map(|x| images(x).into_iter().min().unwrap())
        .collect();
    reps.sort();
    reps.dedup();
    let orbit_sizes: usize = reps
        .iter()
        .map(|r| {
            let mut im = images(r);
            im.sort();
            im.dedup();
            im.len()
        })
        .sum();
    (reps.len(), orbit_sizes)
}

/// The published table as OEIS and the Q27 project give it (`tests/data/published.tsv`), the
/// source the compiled-in copy in `src/published.rs` is checked against.
pub fn published_tsv() -> Vec<(u32, u128, Option<u128>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/published.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].trim().parse().ok(),
            )
        })
        .collect()
}

/// Says on the test run's own stderr (not the captured output a passing test hides) that a
/// case was not tested here, and why: `cargo test` shows it even when everything passes.
pub fn untested(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "NOT TESTED HERE: {why}");
}

/// The first `k` solutions of an `n`-board in lexicographic order, found square by square
/// (a depth-first search that stops at the `k`-th), apart from the engine.
pub fn first_solutions(n: usize, k: usize) -> Vec<Vec<u8>> {
    fn place(n: usize, k: usize, board: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if out.len() == k {
            return;
        }
        if board.len() == n {
            out.push(board.clone());
            return;
        }
        let row = board.len();
        for col in 0..n {
            let safe = board.iter().enumerate().all(|(r, &c)| {
                let c = c as usize;
                c != col && row - r != c.abs_diff(col)
            });
            if safe {
                board.push(col as u8);
                place(n, k, board, out);
                board.pop();
            }
        }
    }
    let mut out = Vec::new();
    place(n, k, &mut Vec::new(), &mut out);
    out
}
