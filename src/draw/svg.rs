//! SVG arc diagrams: one sentence, or several stacked under their headings.
//!
//! The markup is the one the HTML page builds in the browser
//! ([`super::html`]): a `<g>` per arc (its line and arrowhead) and, drawn
//! after all lines, a `<g>` per label box, with classes that the style sheet
//! [`STYLE`] colours.

use super::layout::{layout, text_width, Geometry, FORM_CHAR, LABEL_HEIGHT, MARGIN};
use super::{ArcKind, DrawnArc, Picture};
use std::fmt::Write;

/// Okabe & Ito's (2008) colours of annotations 1, 2, … after the first
/// (blue, bluish green, reddish purple, orange, sky blue), and their dash
/// patterns, so that they differ in grey too.
pub const OTHER_COLOURS: [&str; 5] = ["#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"];
pub const OTHER_DASHES: [&str; 5] = ["none", "9 3 2 3", "2 2", "12 4", "6 2 2 2 2 2"];

/// The style sheet of the pictures: plain arcs black; non-projective ones
/// vermillion and thick; an arc another annotation replaces dashed; the
/// other annotations' arcs in their colours and dash patterns, thicker
/// still with a vermillion label border where they are non-projective in
/// their annotation's tree; a label two annotations disagree on on yellow
/// with a thick border.
pub fn style() -> String {
    let mut s = String::from(
        ".tree text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace}\
.tree .f{font-size:13px;fill:#000}.tree .u{font-size:11px;fill:#555}\
.tree .hd{font-size:13px;font-weight:bold;fill:#000}\
.tree .a path{fill:none;stroke:#000;stroke-width:1.2}.tree .a polygon{fill:#000}\
.tree .np path{stroke:#D55E00;stroke-width:2.6}.tree .np polygon{fill:#D55E00}\
.tree .rep path{stroke-dasharray:5 4}\
.tree .l rect{fill:#fff;stroke:#999;stroke-width:.8}.tree .l text{font-size:11px;fill:#000}\
.tree .l.np rect{stroke:#D55E00;stroke-width:1.6}\
.tree .l.ld rect{fill:#F0E442;stroke:#000;stroke-width:1.6}\n",
    );
    for (k, (colour, dash)) in OTHER_COLOURS.iter().zip(OTHER_DASHES).enumerate() {
        let _ = writeln!(
            s,
            ".tree .o{k} path{{stroke:{colour};stroke-width:2;stroke-dasharray:{dash}}}.tree .o{k} polygon{{fill:{colour}}}\
.tree .l.o{k} rect{{stroke:{colour};stroke-width:1.6}}.tree .l.o{k} text{{fill:{colour}}}\
.tree .o{k}.np path{{stroke-width:3.6}}.tree .l.o{k}.np rect{{stroke:#D55E00;stroke-width:2}}"
        );
    }
    s
}

/// The CSS class of an arc: `a` and its kind (`rep`, `oK` for annotation
/// k + 1 counted from 0 among the others), `np` if non-projective.
pub fn arc_class(a: &DrawnArc) -> String {
    let mut c = String::new();
    match a.kind {
        ArcKind::Plain => {}
        ArcKind::Replaced => c.push_str(" rep"),
        ArcKind::Other(k) => {
            let _ = write!(c, " o{}", (k - 1) % OTHER_COLOURS.len());
        }
    }
    if a.nonprojective {
        c.push_str(" np");
    }
    if a.label_differs {
        c.push_str(" ld");
    }
    c
}

/// `s` for XML text and attributes: `&`, `<`, `>`, `"` and `'` escaped,
/// and the characters XML forbids or a reader would not see (control
/// characters, U+FFFE, U+FFFF) written visibly as [`crate::shown`] writes
/// them (`\x01`), so that the document stays well-formed whatever a field
/// holds. O(bytes).
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    let special = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || crate::shown::is_hidden(c);
    if !s.contains(special) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => crate::shown::push_shown(&mut out, c),
        }
    }
    out.into()
}

/// The heading of a picture: its id, the number of words whose annotations
/// differ (with two or more), `non-projective` if the tree drawn (the
/// first annotation's) is, and `non-projective in FILE, …` naming the
/// other annotations whose tree is.
pub fn heading(p: &Picture) -> String {
    let mut h = p.id.clone();
    if p.annotations.len() > 1 {
        let d = p.differences();
        let _ = write!(h, " · {d} difference{}", if d == 1 { "" } else { "s" });
    }
    let np = p.nonprojective_annotations();
    if np.first() == Some(&0) {
        h.push_str(" · non-projective");
    }
    let others: Vec<&str> = np.iter().filter(|&&k| k > 0).map(|&k| &*p.annotations[k].file).collect();
    if !others.is_empty() {
        let _ = write!(h, " · non-projective in {}", others.join(", "));
    }
    h
}

/// Appends the elements of one diagram (no `<svg>` around them).
pub fn diagram(out: &mut String, picture: &Picture, arcs: &[DrawnArc], g: &Geometry) {
    for (w, place) in picture.words.iter().zip(&g.words) {
        let _ = write!(
            out,
            "<text class=\"f\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text><text class=\"u\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            place.x,
            g.form_y,
            escape(&w.form),
            place.x,
            g.upos_y,
            escape(&w.upos)
        );
    }
    let b = g.baseline;
    for (a, p) in arcs.iter().zip(&g.arcs) {
        let _ = write!(
            out,
            "<g class=\"a{}\"><path d=\"M{} {b}V{}H{}V{b}\"/><polygon points=\"{},{} {},{} {},{b}\"/></g>",
            arc_class(a),
            p.from,
            p.top,
            p.to,
            p.to - 4,
            b - 8,
            p.to + 4,
            b - 8,
            p.to
        );
    }
    for (a, p) in arcs.iter().zip(&g.arcs) {
        let r = p.label;
        let _ = write!(
            out,
            "<g class=\"l{}\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
            arc_class(a),
            escape(&picture.arc_title(a)),
            r.x,
            r.y,
            r.w,
            r.h,
            r.x + r.w / 2,
            r.y + LABEL_HEIGHT - 4,
            escape(&a.label)
        );
    }
}

/// Height of a heading line above a diagram.
pub const HEADING: i32 = 22;

/// One SVG of the pictures stacked, each under its heading, with the style
/// sheet inside. O(size of the output).
pub fn document(pictures: &[Picture]) -> String {
    let mut body = String::new();
    let (mut y, mut width) = (0, 0);
    for p in pictures {
        let arcs = p.arcs();
        let g = layout(&p.words, &arcs);
        let h = heading(p);
        let _ = write!(
            body,
            "<g transform=\"translate(0,{y})\"><text class=\"hd\" x=\"{MARGIN}\" y=\"16\">{}</text><g transform=\"translate(0,{HEADING})\">",
            escape(&h)
        );
        diagram(&mut body, p, &arcs, &g);
        body.push_str("</g></g>\n");
        y += HEADING + g.height;
        // The picture is as wide as its longest heading too: a long id is never cut.
        width = width.max(g.width).max(text_width(&h, FORM_CHAR) + 2 * MARGIN);
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tree\" width=\"{width}\" height=\"{y}\" viewBox=\"0 0 {width} {y}\">\n<style>{}</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{body}</svg>\n",
        style()
    )
}

/// The SVG of one picture.
pub fn picture_svg(p: &Picture) -> String {
    document(std::slice::from_ref(p))
}
