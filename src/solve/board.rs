//! A solution as a column-per-row vector, and its renderings.
//!
//! Each renderer appends one solution to a byte buffer; separators between solutions
//! (a blank line between boards, commas in the `leetcode` array) belong to the caller.
//! [`svg`] draws many solutions at once, as one picture.

use std::fmt::Write as _;

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

/// Side of a square in an SVG drawing, in user units (pixels at 100%): an 8-board is 192
/// wide, a 12-board 288.
pub const SVG_SQUARE: usize = 24;

/// The light and dark squares, the board's edge, the labels' ink.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const INK: &str = "#333333";

/// A queen on a square of side 24: a crown of five points (three with a ball) on a base,
/// black with a white edge so that it stands out on both colours of square.
const QUEEN: &str = "<g fill=\"#1a1a1a\" stroke=\"#ffffff\" stroke-width=\"0.9\" \
    stroke-linejoin=\"round\"><path d=\"M5 17 L3.5 8 L8.2 12.2 L9.6 6.5 L12 11 L14.4 6.5 \
    L15.8 12.2 L20.5 8 L19 17 Z\"/><rect x=\"4.5\" y=\"17.5\" width=\"15\" height=\"3\" \
    rx=\"1\"/><circle cx=\"3.5\" cy=\"7\" r=\"1.7\"/><circle cx=\"12\" cy=\"5.2\" \
    r=\"1.7\"/><circle cx=\"20.5\" cy=\"7\" r=\"1.7\"/></g>";

/// A grid of `n`-boards as one SVG document, for a slide or a page: `boards` holds
/// `boards.len() / n` solutions one after another (the column of the queen in each row),
/// each drawn with light and dark squares, its queens as crowns and its number (1, 2, ...)
/// below it; `title` heads the picture. The grid is about 4:3 (12 boards: 4 columns of 3).
///
/// The squares are drawn once (`<g id="board">` in `<defs>`, `n * n` `<rect>`s over one
/// background) and each board is a `<use>` of them, so a grid of boards costs each board
/// only its `n` queens (`<use xlink:href="#q">` elements) and its label. Row 0 is the top
/// row; the queen of row `r` in column `c` sits at `(c, r) * SVG_SQUARE` from its board's
/// corner.
pub fn svg(n: usize, boards: &[u8], title: &str) -> String {
    const GAP: usize = 24; // between boards, and around the grid
    const LABEL: usize = 24; // the band below a board that holds its number
    const HEAD: usize = 44; // the band above the grid that holds the title
    // The empty board (n = 0) has one solution, with no queens.
    let count = boards.len().checked_div(n).unwrap_or(1);
    let side = n.max(1) * SVG_SQUARE;
    let across = grid_columns(count);
    let down = count.div_ceil(across);
    let grid_width = across * side + across.saturating_sub(1) * GAP;
    // About 10 units a character at the title's size, so a short grid does not cut it.
    let width = (grid_width + 2 * GAP).max(title.len() * 10 + 2 * GAP);
    let height = HEAD + down * (side + LABEL) + down.saturating_sub(1) * GAP + GAP;
    let left = (width - grid_width) / 2;
    let mut out = String::with_capacity(400 + count * (40 + 60 * n));
    let title = escape(title);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
         version=\"1.1\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n\
         <title>{title}</title>\n<defs>\n<symbol id=\"q\" viewBox=\"0 0 24 24\">{QUEEN}</symbol>\n\
         <g id=\"board\">\n<rect width=\"{b}\" height=\"{b}\" fill=\"{LIGHT}\"/>\n",
        b = n * SVG_SQUARE,
    );
    for r in 0..n {
        for c in (0..n).filter(|c| (r + c) % 2 == 1) {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{SVG_SQUARE}\" height=\"{SVG_SQUARE}\" fill=\"{DARK}\"/>",
                c * SVG_SQUARE,
                r * SVG_SQUARE
            );
        }
    }
    let _ = write!(
        out,
        "<rect width=\"{b}\" height=\"{b}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1\"/>\n</g>\n</defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n\
         <text x=\"{x}\" y=\"30\" text-anchor=\"middle\" font-family=\"Helvetica, Arial, sans-serif\" \
         font-size=\"18\" fill=\"{INK}\">{title}</text>\n",
        b = n * SVG_SQUARE,
        x = width / 2,
    );
    for i in 0..count {
        let (x, y) = (
            left + (i % across) * (side + GAP),
            HEAD + (i / across) * (side + LABEL + GAP),
        );
        let _ = writeln!(
            out,
            "<g class=\"solution\"><use xlink:href=\"#board\" x=\"{x}\" y=\"{y}\"/>"
        );
        for (r, &c) in boards[i * n..(i + 1) * n].iter().enumerate() {
            let _ = writeln!(
                out,
                "<use xlink:href=\"#q\" x=\"{}\" y=\"{}\" width=\"{SVG_SQUARE}\" height=\"{SVG_SQUARE}\"/>",
                x + usize::from(c) * SVG_SQUARE,
                y + r * SVG_SQUARE
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-family=\"Helvetica, Arial, sans-serif\" \
             font-size=\"14\" fill=\"{INK}\">{}</text></g>",
            x + side / 2,
            y + n * SVG_SQUARE + 17,
            i + 1
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Columns of a grid of `count` boards: about 4:3, the shape of a slide, so 12 boards stand
/// 4 across and 3 down, 92 stand 12 across and 8 down.
fn grid_columns(count: usize) -> usize {
    ((count as f64 * 4.0 / 3.0).sqrt().ceil() as usize).clamp(1, count.max(1))
}

/// `text` with XML's special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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
    fn svg_grids_are_about_four_by_three() {
        let shape = |k: usize| (grid_columns(k), k.div_ceil(grid_columns(k)));
        assert_eq!(shape(0), (1, 0));
        assert_eq!(shape(1), (1, 1));
        assert_eq!(shape(2), (2, 1));
        assert_eq!(shape(12), (4, 3));
        assert_eq!(shape(92), (12, 8));
    }

    #[test]
    fn svg_draws_each_queen_once_on_its_square() {
        let text = svg(4, &[1, 3, 0, 2, 2, 0, 3, 1], "4 & <more>");
        assert_eq!(text.matches("xlink:href=\"#q\"").count(), 8);
        assert_eq!(text.matches("xlink:href=\"#board\"").count(), 2);
        // Half the 16 squares are dark, drawn once over one light square the board's size.
        assert_eq!(text.matches(&format!("fill=\"{DARK}\"")).count(), 8);
        assert_eq!(text.matches(&format!("fill=\"{LIGHT}\"")).count(), 1);
        assert!(text.contains("<title>4 &amp; &lt;more&gt;</title>"));
        assert!(text.trim_end().ends_with("</svg>"));
        // The second board's queen of row 0 sits in column 2.
        let second_board_x = 24 + 4 * SVG_SQUARE + 24;
        let y = 44;
        assert!(text.contains(&format!(
            "<use xlink:href=\"#q\" x=\"{}\" y=\"{y}\"",
            second_board_x + 2 * SVG_SQUARE
        )));
    }

    #[test]
    fn solutions_are_recognised() {
        assert!(is_solution(&[1, 3, 0, 2]));
        assert!(is_solution(&[]));
        assert!(!is_solution(&[0, 2, 1, 3]));
        assert!(!is_solution(&[1, 1, 0, 2]));
    }
}
