//! Box-drawing trees for the terminal, one word a line in sentence order
//! (as udapi's `write.TextModeTrees` prints them): each arc is a vertical
//! line left of the words, from its head's line to its dependent's, ending
//! in `▶`; the first line stands for the root. Arcs nest by length as in
//! the diagrams ([`super::layout`]): the shortest next to the words. After
//! each word its UPOS and relation, then what the other annotations give
//! it where they differ (`≠ FILE: head 3 (word) obj`). A non-projective arc
//! of the drawn tree is drawn in heavy lines (`┃`, `━`, as the diagrams
//! draw it thick) and `(non-projective)` follows its word; an arc of
//! another annotation that is non-projective in that annotation's tree has
//! `(non-projective)` after its `≠` note. With `colour`, the non-projective
//! arcs and the differences are in colour too (ANSI escapes).
//! The text of the file (FORM, UPOS, DEPREL, ids, file names) is written
//! with its control characters shown ([`crate::shown`]), so that only the
//! colours reach the terminal as escapes.

use super::levels::{Contained, Shelves};
use super::Picture;
use crate::shown::shown;
use std::fmt::Write;

/// The widest text tree drawn, in columns left of the words (1,000 levels
/// of arcs): wider ones are refused, as no terminal or editor shows them
/// and their size grows as words × columns (a star of 50,000 words would
/// be 12 GB of text); pages and SVG draw any sentence.
pub const MAX_COLUMNS: usize = 2001;

/// A sentence whose text tree would be wider than [`MAX_COLUMNS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "sentence {id}: its text tree would be {columns} columns wide ({levels} levels of arcs over {words} words), \
     more than {max}",
    max = MAX_COLUMNS
)]
pub struct TooWide {
    /// The sentence's id, shown.
    pub id: String,
    pub words: usize,
    pub levels: usize,
    pub columns: usize,
}

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

/// The box-drawing character of a cell from the weight of each of its
/// four half-lines: `LIGHT_AND_HEAVY[up + 3 right + 9 down + 27 left]`,
/// 0 none, 1 light, 2 heavy (Unicode's box drawings U+2500–U+254B).
const LIGHT_AND_HEAVY: &str = " ╵╹╶└┖╺┕┗╷│╿┌├┞┍┝┡╻╽┃┎┟┠┏┢┣╴┘┚─┴┸╼┶┺┐┤┦┬┼╀┮┾╄┒┧┨┰╁╂┲╆╊╸┙┛╾┵┹━┷┻┑┥┩┭┽╃┯┿╇┓┪┫┱╅╉┳╈╋";

/// The character of a cell whose half-lines `lines` are drawn, those of
/// `heavy` (a subset) heavy: with no heavy one, [`cell_char`]'s (rounded
/// corners).
fn weighted_char(lines: u8, heavy: u8) -> char {
    if heavy == 0 {
        return cell_char(lines);
    }
    let weight = |bit: u8| usize::from(lines & bit != 0) + usize::from(heavy & bit != 0);
    let index = weight(UP) + 3 * weight(RIGHT) + 9 * weight(DOWN) + 27 * weight(LEFT);
    LIGHT_AND_HEAVY.chars().nth(index).unwrap_or('┃')
}

const VERMILLION: &str = "\x1b[1;38;5;166m";
const BLUE: &str = "\x1b[38;5;25m";
const RESET: &str = "\x1b[0m";

/// The text tree of one picture under a `# heading` line. O(n log² n +
/// the size of the drawing).
///
/// # Errors
/// [`TooWide`] if it would be wider than [`MAX_COLUMNS`], before any of it
/// is drawn.
pub fn picture_text(p: &Picture, colour: bool) -> Result<String, TooWide> {
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
    let spans: Vec<(usize, usize)> = arcs.iter().map(|&(lo, hi, _)| (lo, hi)).collect();
    let level = levels(&spans);
    let top = level.iter().copied().max().unwrap_or(0);
    let width = 2 * top + 1;
    if width > MAX_COLUMNS {
        return Err(TooWide { id: shown(&p.id).into_owned(), words: n, levels: top, columns: width });
    }
    // Per cell the half-lines drawn, and those of non-projective arcs.
    let mut grid = vec![vec![0u8; width]; n + 1];
    let mut heavy = vec![vec![0u8; width]; n + 1];
    let nonprojective = |a: &super::Annotation| {
        let mut np = vec![false; n + 1];
        for d in crate::projectivize::pseudo::nonprojective_words(&a.tree) {
            np[d] = true;
        }
        np
    };
    let np = nonprojective(first);
    for (i, &(lo, hi, d)) in arcs.iter().enumerate() {
        let c = width - 1 - 2 * level[i];
        for r in lo..=hi {
            let m = if r == lo {
                DOWN | RIGHT
            } else if r == hi {
                UP | RIGHT
            } else {
                UP | DOWN
            };
            let mut draw = |x: usize, m: u8| {
                grid[r][x] |= m;
                if np[d] {
                    heavy[r][x] |= m;
                }
            };
            if r == lo || r == hi {
                for x in c + 1..width {
                    draw(x, LEFT | RIGHT);
                }
            }
            draw(c, m);
        }
    }
    let others_np: Vec<Vec<bool>> = p.annotations[1..].iter().map(nonprojective).collect();
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
            let c = weighted_char(grid[r][x], heavy[r][x]);
            if heavy[r][x] != 0 && colour {
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
        let arrow = if np[r] && colour { format!("{VERMILLION}▶{RESET}") } else { "▶".into() };
        let _ = write!(out, "{arrow} {} {} {}", shown(&w.form), shown(&w.upos), shown(&first.labels[r - 1]));
        if np[r] {
            paint(&mut out, " (non-projective)", VERMILLION);
        }
        for (a, a_np) in p.annotations[1..].iter().zip(&others_np) {
            let (h, l) = (a.tree.head(r), &a.labels[r - 1]);
            if h != first.tree.head(r) {
                let word = if h == 0 { "root" } else { &p.words[h - 1].form };
                let (file, word, l) = (shown(&a.file), shown(word), shown(l));
                paint(&mut out, &format!("  ≠ {file}: head {h} ({word}) {l}"), BLUE);
                if a_np[r] {
                    paint(&mut out, " (non-projective)", VERMILLION);
                }
            } else if *l != first.labels[r - 1] {
                paint(&mut out, &format!("  ≠ {}: {}", shown(&a.file), shown(l)), BLUE);
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The levels (1, 2, …; 1 next to the words) of arcs spanning the rows
/// `spans[i]` (`lo < hi`), given by length: each arc goes above the arcs
/// inside its span, and higher while its vertical line would share a row
/// with another one at that level. O(a log² a + the levels climbed).
pub(crate) fn levels(spans: &[(usize, usize)]) -> Vec<usize> {
    let mut inside = Contained::new(spans);
    // The rows each level's vertical lines take, as [lo, hi + 1).
    let mut shelves = Shelves::<1>::default();
    let mut level = vec![0usize; spans.len()];
    for (i, &(lo, hi)) in spans.iter().enumerate() {
        let mut at = inside.max_inside(lo, hi).max(0) as usize + 1;
        let rows = (lo as i64, hi as i64 + 1);
        while shelves.meets(at, 0, rows.0, rows.1) {
            at += 1;
        }
        level[i] = at;
        shelves.put(at, 0, rows.0, rows.1);
        inside.set((lo, hi), at as i32);
    }
    level
}

/// The text trees of several pictures, a blank line between them.
///
/// # Errors
/// [`TooWide`] for the first picture too wide to draw as text.
pub fn document(pictures: &[Picture], colour: bool) -> Result<String, TooWide> {
    let mut out = String::new();
    for (i, p) in pictures.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&picture_text(p, colour)?);
    }
    Ok(out)
}
