//! The geometry of an arc diagram, a pure function of the words and arcs.
//!
//! Words stand on one line, each in a column as wide as its FORM or UPOS
//! (monospace widths, wide East Asian characters counting twice), from left
//! to right, or from right to left for a right-to-left script
//! ([`is_right_to_left`](super::is_right_to_left)). Each arc rises from its
//! head, runs level at its height and comes down over its dependent with an
//! arrowhead; a root arc is a vertical line from above all others.
//!
//! Levels nest arcs by length: arcs are placed from the shortest, each at the
//! lowest level above every arc already placed inside its span, and higher
//! still while its level segment would run along another arc's at that level
//! or its label box (centred on the level segment) would meet another label
//! there. Levels are `LEVEL` pixels apart and a label is shorter than that,
//! so labels of different levels never meet: no two label boxes overlap
//! ([`Geometry::overlapping_labels`] checks it), and every arc ends over its
//! two words ([`Geometry::stray_ends`]). O(a log² a) for a arcs in trees
//! ([`super::levels`] says what the climb past clashes adds).

use super::levels::{Contained, Shelves};
use super::{DrawnArc, Word};
use unicode_width::UnicodeWidthStr;

/// Width of a FORM character (13 px monospace), of a UPOS or label
/// character (11 px monospace), in pixels.
pub const FORM_CHAR: i32 = 8;
pub const SMALL_CHAR: i32 = 7;
/// Space between two word columns.
pub const GAP: i32 = 18;
/// Vertical distance between two levels; height of a label box.
pub const LEVEL: i32 = 22;
pub const LABEL_HEIGHT: i32 = 15;
/// Margin around the picture.
pub const MARGIN: i32 = 10;
/// Horizontal padding inside a label box.
const LABEL_PAD: i32 = 3;
/// Minimum gap between two label boxes on one level.
pub const LABEL_GAP: i32 = 4;
/// How far from its word's centre an arc leaves its head.
const HEAD_OFFSET: i32 = 5;

/// A rectangle: top-left corner, width, height (pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    /// Whether the two rectangles share an interior point.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }
}

/// Where a word stands: the centre of its column and the extent of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordPlace {
    pub x: i32,
    pub left: i32,
    pub right: i32,
}

/// Where an arc runs: from `from` (over the head) up to `top`, level to
/// `to` (over the dependent) and down to the baseline. A root arc has
/// `from == to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArcPlace {
    pub from: i32,
    pub to: i32,
    pub level: i32,
    pub top: i32,
    pub label: Rect,
}

/// The geometry of one sentence; `arcs[i]` is that of the i-th arc given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    pub width: i32,
    pub height: i32,
    /// The y where arcs end, just above the words.
    pub baseline: i32,
    /// The y of the FORM and UPOS text baselines.
    pub form_y: i32,
    pub upos_y: i32,
    pub right_to_left: bool,
    pub words: Vec<WordPlace>,
    pub arcs: Vec<ArcPlace>,
}

/// The display width of `s` in pixels for characters `char_width` wide,
/// as the writers show it (control characters as `\x01`).
pub fn text_width(s: &str, char_width: i32) -> i32 {
    (crate::shown::shown(s).width().max(1) as i32) * char_width
}

/// The width of an arc's label box.
pub fn label_width(label: &str) -> i32 {
    text_width(label, SMALL_CHAR) + 2 * LABEL_PAD
}

/// Lays out `words` and `arcs` (heads and dependents in 1 … n, head 0 for
/// the root). O(n + a log² a) (see [`super::levels`]).
pub fn layout(words: &[Word], arcs: &[DrawnArc]) -> Geometry {
    let right_to_left = super::is_right_to_left(words);
    let n = words.len();
    // Columns in reading order, then placed left to right.
    let mut places = vec![WordPlace { x: 0, left: 0, right: 0 }; n];
    let mut x = MARGIN;
    let order: Box<dyn Iterator<Item = usize>> = if right_to_left { Box::new((0..n).rev()) } else { Box::new(0..n) };
    for i in order {
        let w = text_width(&words[i].form, FORM_CHAR).max(text_width(&words[i].upos, SMALL_CHAR));
        let column = w + GAP;
        let centre = x + column / 2;
        places[i] = WordPlace { x: centre, left: centre - w / 2, right: centre - w / 2 + w };
        x += column;
    }
    // Position on the page of word d (1-based), for spans.
    let slot = |d: usize| if right_to_left { n - d } else { d - 1 };
    // Arcs by length, root arcs last.
    let mut by_length: Vec<usize> = (0..arcs.len()).collect();
    let span = |a: &DrawnArc| {
        if a.head == 0 {
            (slot(a.dependent), slot(a.dependent))
        } else {
            let (p, q) = (slot(a.head), slot(a.dependent));
            (p.min(q), p.max(q))
        }
    };
    by_length.sort_by_key(|&i| {
        let (lo, hi) = span(&arcs[i]);
        (arcs[i].head == 0, hi - lo, lo)
    });
    let mut level = vec![0i32; arcs.len()];
    let mut label_x = vec![(0i32, 0i32); arcs.len()];
    let mut ends = vec![(0i32, 0i32); arcs.len()];
    // The spans of the arcs below which an arc must go, and at each level
    // the level segments (kind 0) and label boxes with their gap (kind 1).
    let spans: Vec<(usize, usize)> = arcs.iter().filter(|a| a.head != 0).map(span).collect();
    let mut inside = Contained::new(&spans);
    let mut shelves = Shelves::<2>::default();
    let mut highest = 0;
    for &i in &by_length {
        let a = &arcs[i];
        let (lo, hi) = span(a);
        let to = places[a.dependent - 1].x;
        let from = if a.head == 0 {
            to
        } else {
            let h = &places[a.head - 1];
            let offset = HEAD_OFFSET.min((h.right - h.left) / 2);
            if to > h.x {
                h.x + offset
            } else {
                h.x - offset
            }
        };
        ends[i] = (from, to);
        let lw = label_width(&a.label);
        let lx = (from + to) / 2 - lw / 2;
        label_x[i] = (lx, lw);
        let mut at = if a.head == 0 { highest + 1 } else { inside.max_inside(lo, hi) + 1 };
        let segment = (lo as i64, hi as i64);
        let label = (i64::from(lx), i64::from(lx) + i64::from(lw + LABEL_GAP));
        let clashes = |at: i32| {
            let at = at as usize;
            (a.head != 0 && shelves.meets(at, 0, segment.0, segment.1)) || shelves.meets(at, 1, label.0, label.1)
        };
        while clashes(at) {
            at += 1;
        }
        level[i] = at;
        highest = highest.max(at);
        if a.head != 0 {
            shelves.put(at as usize, 0, segment.0, segment.1);
            inside.set((lo, hi), at);
        }
        shelves.put(at as usize, 1, label.0, label.1);
    }
    let baseline = MARGIN + highest * LEVEL + LABEL_HEIGHT / 2 + 4;
    let mut geometry = Geometry {
        width: x + MARGIN,
        height: baseline + 44,
        baseline,
        form_y: baseline + 20,
        upos_y: baseline + 36,
        right_to_left,
        words: places,
        arcs: (0..arcs.len())
            .map(|i| {
                let top = baseline - level[i] * LEVEL;
                let (lx, lw) = label_x[i];
                ArcPlace {
                    from: ends[i].0,
                    to: ends[i].1,
                    level: level[i],
                    top,
                    label: Rect { x: lx, y: top - LABEL_HEIGHT / 2, w: lw, h: LABEL_HEIGHT },
                }
            })
            .collect(),
    };
    // Labels wider than the sentence's ends widen the picture.
    let left = geometry.arcs.iter().map(|a| a.label.x).min().unwrap_or(MARGIN).min(MARGIN);
    let shift = MARGIN - left;
    if shift > 0 {
        for w in &mut geometry.words {
            w.x += shift;
            w.left += shift;
            w.right += shift;
        }
        for a in &mut geometry.arcs {
            a.from += shift;
            a.to += shift;
            a.label.x += shift;
        }
    }
    let right = geometry.arcs.iter().map(|a| a.label.x + a.label.w).max().unwrap_or(0);
    geometry.width = (x + shift).max(right) + MARGIN;
    geometry
}

impl Geometry {
    /// Pairs of arcs (indices) whose label boxes overlap. O(a²).
    pub fn overlapping_labels(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..self.arcs.len() {
            for j in i + 1..self.arcs.len() {
                if self.arcs[i].label.overlaps(&self.arcs[j].label) {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// Arcs (indices) that do not end over their head's and dependent's
    /// text, or run below the top of a label, or leave the picture. O(a).
    pub fn stray_ends(&self, arcs: &[DrawnArc]) -> Vec<usize> {
        let over = |x: i32, d: usize| self.words.get(d - 1).is_some_and(|w| w.left <= x && x <= w.right);
        (0..arcs.len())
            .filter(|&i| {
                let (a, p) = (&arcs[i], &self.arcs[i]);
                let head_ok = if a.head == 0 { p.from == p.to } else { over(p.from, a.head) };
                let inside =
                    [p.from, p.to, p.label.x, p.label.x + p.label.w].iter().all(|&x| 0 <= x && x <= self.width)
                        && p.label.y >= 0
                        && p.top < self.baseline;
                !(head_ok && over(p.to, a.dependent) && inside)
            })
            .collect()
    }
}
