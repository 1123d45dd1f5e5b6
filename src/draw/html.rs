//! One self-contained HTML page of many pictures: no network access, no
//! framework. The geometry of every sentence is computed here
//! ([`super::layout`]) and embedded as JSON; a small script builds each
//! sentence's SVG (the markup of [`super::svg::diagram`]) when it scrolls
//! into view (`IntersectionObserver`), so a whole treebank opens at once.
//! The page has a sentence list, a search by id and filters (only
//! sentences where the annotations differ, only non-projective ones);
//! the address's fragment keeps them (`#search=ID&differences&nonprojective`),
//! so a link opens the same view.
//!
//! The data comes in chunks of sentences, each read by the script as soon
//! as the browser reaches it, so the first screen shows before the rest
//! of the file is read. Per sentence the JSON holds `[id, differences,
//! [the annotations whose tree is non-projective, 0 the one drawn], width,
//! height, baseline, words, arcs]`, words flat as `x, FORM, UPOS` and arcs
//! flat as `from, to, top, class, label, label x, label width,
//! head, dependent, annotation`.
//!
//! The text of the files (ids, FORM, UPOS, DEPREL, file names) comes with
//! its control characters shown ([`crate::shown`]: `\x01`), in the data as
//! in the markup, so that no field can hide itself or break the page.

use super::layout::layout;
use super::svg::{arc_class, style};
use super::{ArcKind, Picture};
use crate::shown::shown;
use std::io::{self, Write};

/// The page's script.
const SCRIPT: &str = include_str!("page.js");
/// The page's own style (the pictures' is [`style`]).
const PAGE_STYLE: &str = include_str!("page.css");

/// Sentences per chunk of data: the page draws its first screen once the
/// first chunk is read.
const CHUNK: usize = 100;
const END_CHUNK: &str = "]</script><script>tabula.add()</script>\n";

/// A page being written: [`Page::add`] each picture, then [`Page::finish`].
pub struct Page<W: Write> {
    out: W,
    count: usize,
}

impl<W: Write> Page<W> {
    /// Starts a page comparing the annotations of `files` (their names, the
    /// first one's tree drawn); `title` heads it.
    pub fn new(mut out: W, files: &[String], title: &str) -> io::Result<Self> {
        let esc = |s: &str| super::svg::escape(s).into_owned();
        write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<title>{}</title>\n<style>\n{PAGE_STYLE}{}</style></head>\n<body>\n<header><h1>{}</h1>\n<div id=\"legend\">{}</div>\n<div id=\"controls\"><input id=\"search\" type=\"search\" placeholder=\"sentence id\" aria-label=\"search by sentence id\">\n<label{}><input id=\"differences\" type=\"checkbox\"> differences only</label>\n<label><input id=\"nonprojective\" type=\"checkbox\"> non-projective only</label>\n<span id=\"count\"></span></div></header>\n<div id=\"row\"><nav id=\"list\"></nav>\n<main id=\"pictures\"></main></div>\n<script type=\"application/json\" id=\"files\">",
            esc(title),
            style(),
            esc(title),
            legend(files),
            if files.len() > 1 { "" } else { " hidden" },
        )?;
        let files: Vec<_> = files.iter().map(|f| shown(f)).collect();
        let files = serde_json::to_string(&files).map_err(io::Error::other)?;
        out.write_all(files.replace('<', "\\u003c").as_bytes())?;
        write!(out, "</script>\n<script>\n{SCRIPT}</script>\n")?;
        Ok(Page { out, count: 0 })
    }

    /// Lays out and adds one picture. O(its arcs²).
    pub fn add(&mut self, p: &Picture) -> io::Result<()> {
        self.add_entry(&entry(p))
    }

    /// Adds a picture's [`entry`] (computed beforehand, e.g. on other threads).
    pub fn add_entry(&mut self, entry: &str) -> io::Result<()> {
        if self.count.is_multiple_of(CHUNK) {
            if self.count > 0 {
                self.out.write_all(END_CHUNK.as_bytes())?;
            }
            self.out.write_all(b"<script type=\"application/json\">[")?;
        } else {
            self.out.write_all(b",\n")?;
        }
        self.count += 1;
        self.out.write_all(entry.as_bytes())
    }

    /// Ends the page (the script after the data) and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.count > 0 {
            self.out.write_all(END_CHUNK.as_bytes())?;
        }
        self.out.write_all(b"<script>tabula.finish()</script>\n</body></html>\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The page's JSON of one picture: its layout. O(its arcs²).
pub fn entry(p: &Picture) -> String {
    use std::fmt::Write as _;
    let arcs = p.arcs();
    let g = layout(&p.words, &arcs);
    let mut b = String::with_capacity(64 + 24 * p.len() + 48 * arcs.len());
    let json = |b: &mut String, s: &str| {
        // Serialising a string cannot fail.
        b.push_str(&serde_json::to_string(&shown(s)).unwrap_or_default());
    };
    b.push('[');
    json(&mut b, &p.id);
    let np: Vec<String> = p.nonprojective_annotations().iter().map(usize::to_string).collect();
    let _ = write!(b, ",{},[{}],{},{},{},[", p.differences(), np.join(","), g.width, g.height, g.baseline);
    for (i, (w, place)) in p.words.iter().zip(&g.words).enumerate() {
        if i > 0 {
            b.push(',');
        }
        let _ = write!(b, "{},", place.x);
        json(&mut b, &w.form);
        b.push(',');
        json(&mut b, &w.upos);
    }
    b.push_str("],[");
    for (i, (a, place)) in arcs.iter().zip(&g.arcs).enumerate() {
        if i > 0 {
            b.push(',');
        }
        let k = match a.kind {
            ArcKind::Other(k) => k,
            _ => 0,
        };
        let _ = write!(b, "{},{},{},\"{}\",", place.from, place.to, place.top, arc_class(a));
        json(&mut b, &a.label);
        let _ = write!(b, ",{},{},{},{},{k}", place.label.x, place.label.w, a.head, a.dependent);
    }
    b.push_str("]]");
    // `<` only occurs inside JSON strings: escaped, `</script>` cannot end the data.
    if b.contains('<') {
        b = b.replace('<', "\\u003c");
    }
    b
}

/// The legend: what each line means, with a small sample of each.
fn legend(files: &[String]) -> String {
    let esc = |s: &str| super::svg::escape(s).into_owned();
    let sample = |class: &str| {
        format!("<svg class=\"tree\" width=\"36\" height=\"10\"><g class=\"a{class}\"><path d=\"M2 5H34\"/></g></svg>")
    };
    let mut s = String::new();
    let first = files.first().map_or("", String::as_str);
    s.push_str(&format!("<span>{} {}</span>", sample(""), esc(first)));
    s.push_str(&format!("<span>{} non-projective</span>", sample(" np")));
    if files.len() > 1 {
        s.push_str(&format!("<span>{} {} where another file has another head</span>", sample(" rep"), esc(first)));
        for (k, f) in files.iter().enumerate().skip(1) {
            let class = format!(" o{}", (k - 1) % super::svg::OTHER_COLOURS.len());
            s.push_str(&format!("<span>{} {}</span>", sample(&class), esc(f)));
        }
        s.push_str("<span><svg class=\"tree\" width=\"36\" height=\"14\"><g class=\"l ld\"><rect x=\"2\" y=\"1\" width=\"32\" height=\"12\" rx=\"3\"/></g></svg> same head, another relation (first/other)</span>");
    }
    s
}

/// The whole page of `pictures` in a string.
pub fn document(pictures: &[Picture], files: &[String], title: &str) -> String {
    let mut page = Page::new(Vec::new(), files, title).expect("writing to memory");
    for p in pictures {
        page.add(p).expect("writing to memory");
    }
    String::from_utf8(page.finish().expect("writing to memory")).expect("UTF-8 throughout")
}
