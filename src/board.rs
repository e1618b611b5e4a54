//! A solution as a column-per-row vector, and its renderings.
//!
//! Each renderer appends one solution to a byte buffer; separators between solutions
//! (a blank line between boards, commas in the `leetcode` array) belong to the caller.

use crate::MAX_N;

/// Appends `n` lines of 'Q' and '.', one per row.
pub fn board(cols: &[u8], out: &mut Vec<u8>) {
    for &c in cols {
        row(cols.len(), c, out);
        out.push(b'\n');
    }
}

/// Appends the usual programming-puzzle form: a JSON array of `n` strings, `[".Q..","...Q"]`.
pub fn leetcode(cols: &[u8], out: &mut Vec<u8>) {
    out.push(b'[');
    for (r, &c) in cols.iter().enumerate() {
        if r > 0 {
            out.push(b',');
        }
        out.push(b'"');
        row(cols.len(), c, out);
        out.push(b'"');
    }
    out.push(b']');
}

/// Appends the 0-based columns separated by spaces, and a newline: `1 3 0 2`.
pub fn columns(cols: &[u8], out: &mut Vec<u8>) {
    joined(cols, b' ', out);
    out.push(b'\n');
}

/// Appends one JSON Lines object: `{"n":4,"columns":[1,3,0,2]}`.
pub fn json(cols: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"n\":");
    number(cols.len() as u8, out);
    out.extend_from_slice(b",\"columns\":[");
    joined(cols, b',', out);
    out.extend_from_slice(b"]}\n");
}

/// Appends the columns as decimal numbers with `sep` between them.
///
/// Each column is one 4-byte copy from a table (separator, digits, length), the buffer
/// advancing by the length; the lot is appended at once. Pushing byte by byte, and
/// branching on whether a column has two digits (a coin toss on large boards), cost more
/// than the search does for each solution.
fn joined(cols: &[u8], sep: u8, out: &mut Vec<u8>) {
    const fn table(sep: u8) -> [[u8; 4]; 100] {
        let mut t = [[0; 4]; 100];
        let mut c = 0;
        while c < 100 {
            t[c] = if c < 10 {
                [sep, b'0' + c as u8, 0, 2]
            } else {
                [sep, b'0' + (c / 10) as u8, b'0' + (c % 10) as u8, 3]
            };
            c += 1;
        }
        t
    }
    const SPACE: [[u8; 4]; 100] = table(b' ');
    const COMMA: [[u8; 4]; 100] = table(b',');
    let t = if sep == b' ' { &SPACE } else { &COMMA };
    debug_assert!(sep == b' ' || sep == b',');
    let mut buf = [0u8; 4 * MAX_N as usize + 4];
    let mut len = 0;
    for &c in cols.iter().take(MAX_N as usize) {
        let record = t[c as usize % 100];
        buf[len..len + 4].copy_from_slice(&record);
        // The last byte is the record's length; what lies past it is overwritten next.
        len += usize::from(record[3]);
    }
    out.extend_from_slice(&buf[1.min(len)..len]);
}

/// Appends a number below 100 in decimal (board sizes are at most 32).
fn number(x: u8, out: &mut Vec<u8>) {
    debug_assert!(x < 100);
    if x >= 10 {
        out.push(b'0' + x / 10);
    }
    out.push(b'0' + x % 10);
}

/// Appends a row of `n` squares with the queen on column `queen`.
fn row(n: usize, queen: u8, out: &mut Vec<u8>) {
    const DOTS: [u8; MAX_N as usize] = [b'.'; MAX_N as usize];
    let at = out.len();
    out.extend_from_slice(&DOTS[..n]);
    out[at + queen as usize] = b'Q';
}

/// Whether `cols` is a solution: one queen per row, no two sharing a column or diagonal.
pub fn is_solution(cols: &[u8]) -> bool {
    let n = cols.len();
    cols.iter().enumerate().all(|(r, &c)| {
        (c as usize) < n
            && cols[r + 1..]
                .iter()
                .enumerate()
                .all(|(d, &c2)| c2 != c && (c2 as usize).abs_diff(c as usize) != d + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: fn(&[u8], &mut Vec<u8>), cols: &[u8]) -> String {
        let mut out = Vec::new();
        f(cols, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn renderings_of_a_4_board() {
        let x = [1, 3, 0, 2];
        assert_eq!(text(board, &x), ".Q..\n...Q\nQ...\n..Q.\n");
        assert_eq!(text(leetcode, &x), r#"[".Q..","...Q","Q...","..Q."]"#);
        assert_eq!(text(columns, &x), "1 3 0 2\n");
        assert_eq!(text(json, &x), "{\"n\":4,\"columns\":[1,3,0,2]}\n");
    }

    #[test]
    fn solutions_are_recognised() {
        assert!(is_solution(&[1, 3, 0, 2]));
        assert!(is_solution(&[]));
        assert!(!is_solution(&[0, 2, 1, 3]));
        assert!(!is_solution(&[1, 1, 0, 2]));
    }
}
