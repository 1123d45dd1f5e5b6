//! Box-drawing trees for the terminal, one word a line in sentence order
//! (as udapi's `write.TextModeTrees` prints them): each arc is a vertical
//! line left of the words, from its head's line to its dependent's, ending
//! in `▶`; the first line stands for the root. Arcs nest by length as in
//! the diagrams ([`super::layout`]): the shortest next to the words. After
//! each word its UPOS and relation, then what the other annotations give
//! it where they differ (`≠ FILE: head 3 (word) obj`), and
//! `(non-projective)` after a word whose arc is. With `colour`, the
//! non-projective arcs and the differences are in colour (ANSI escapes).
//! The text of the file (FORM, UPOS, DEPREL, ids, file names) is written
//! with its control characters shown ([`crate::shown`]), so that only the
//! colours reach the terminal as escapes.

use super::Picture;
use crate::shown::shown;
use std::fmt::Write;

/// Connection bits of a cell.
const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

fn cell_char(mask: u8) -> char {
    match mask {
        0 => ' ',
        m if m == UP | DOWN => '│',
        m if m == LEFT | RIGHT => '─',
        m if m == DOWN | RIGHT => '╭',
        m if m == UP | RIGHT => '╰',
        m if m == UP | DOWN | RIGHT => '├',
        m if m == DOWN | LEFT | RIGHT => '┬',
        m if m == UP | LEFT | RIGHT => '┴',
        m if m == UP | DOWN | LEFT | RIGHT => '┼',
        m if m == UP | DOWN | LEFT => '┤',
        m if m == DOWN | LEFT => '╮',
        m if m == UP | LEFT => '╯',
        m if m & (LEFT | RIGHT) != 0 => '─',
        _ => '│',
    }
}

const VERMILLION: &str = "\x1b[1;38;5;166m";
const BLUE: &str = "\x1b[38;5;25m";
const RESET: &str = "\x1b[0m";

/// The text tree of one picture under a `# heading` line.
pub fn picture_text(p: &Picture, colour: bool) -> String {
    let first = &p.annotations[0];
    let n = p.len();
    // Arcs (lo, hi, dependent) by length; levels as in the diagrams.
    let mut arcs: Vec<(usize, usize, usize)> = (1..=n)
        .map(|d| {
            let h = first.tree.head(d);
            (h.min(d), h.max(d), d)
        })
        .collect();
    arcs.sort_by_key(|&(lo, hi, _)| (hi - lo, lo));
    let mut level = vec![0usize; arcs.len()];
    for i in 0..arcs.len() {
        let (lo, hi, _) = arcs[i];
        let mut at = 1;
        for j in 0..i {
            if lo <= arcs[j].0 && arcs[j].1 <= hi {
                at = at.max(level[j] + 1);
            }
        }
        while (0..i).any(|j| level[j] == at && arcs[j].0.max(lo) <= arcs[j].1.min(hi)) {
            at += 1;
        }
        level[i] = at;
    }
    let top = level.iter().copied().max().unwrap_or(0);
    let width = 2 * top + 1;
    let mut grid = vec![vec![0u8; width]; n + 1];
    let mut hot = vec![vec![false; width]; n + 1];
    let np = crate::projectivize::pseudo::nonprojective_words(&first.tree);
    for (i, &(lo, hi, d)) in arcs.iter().enumerate() {
        let c = width - 1 - 2 * level[i];
        let is_np = np.contains(&d);
        for r in lo..=hi {
            let m = if r == lo {
                DOWN | RIGHT
            } else if r == hi {
                UP | RIGHT
            } else {
                UP | DOWN
            };
            if r == lo || r == hi {
                for x in c + 1..width {
                    grid[r][x] |= LEFT | RIGHT;
                    if is_np {
                        hot[r][x] = true;
                    }
                }
            }
            grid[r][c] |= m;
            if is_np {
                hot[r][c] = true;
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "# {}", shown(&super::svg::heading(p)));
    let paint = |out: &mut String, s: &str, code: &str| {
        if colour {
            let _ = write!(out, "{code}{s}{RESET}");
        } else {
            out.push_str(s);
        }
    };
    for r in 0..=n {
        for x in 0..width {
            let c = cell_char(grid[r][x]);
            if hot[r][x] && colour {
                let _ = write!(out, "{VERMILLION}{c}{RESET}");
            } else {
                out.push(c);
            }
        }
        if r == 0 {
            out.push_str("─ (root)\n");
            continue;
        }
        let w = &p.words[r - 1];
        let arrow = if np.contains(&r) && colour { format!("{VERMILLION}▶{RESET}") } else { "▶".into() };
        let _ = write!(out, "{arrow} {} {} {}", shown(&w.form), shown(&w.upos), shown(&first.labels[r - 1]));
        if np.contains(&r) {
            paint(&mut out, " (non-projective)", VERMILLION);
        }
        for a in &p.annotations[1..] {
            let (h, l) = (a.tree.head(r), &a.labels[r - 1]);
            if h != first.tree.head(r) {
                let word = if h == 0 { "root" } else { &p.words[h - 1].form };
                let (file, word, l) = (shown(&a.file), shown(word), shown(l));
                paint(&mut out, &format!("  ≠ {file}: head {h} ({word}) {l}"), BLUE);
            } else if *l != first.labels[r - 1] {
                paint(&mut out, &format!("  ≠ {}: {}", shown(&a.file), shown(l)), BLUE);
            }
        }
        out.push('\n');
    }
    out
}

/// The text trees of several pictures, a blank line between them.
pub fn document(pictures: &[Picture], colour: bool) -> String {
    let mut out = String::new();
    for (i, p) in pictures.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&picture_text(p, colour));
    }
    out
}
