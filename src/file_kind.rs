//! What kind of file a path given as a grammar or a model holds, so that a
//! treebank, JSON or another of tabula's files given in the wrong place is
//! named in one line instead of failing on its first bytes.

/// What a file given as a grammar or a model is, if it is of a kind tabula
/// knows, and the line that shows
/// it: compressed data, a CoNLL-U treebank (a line of ten tab-separated
/// columns starting with a word number), or JSON (a first line starting with
/// `{` or `[`). O(size).
pub fn other_kind(bytes: &[u8]) -> Option<(usize, &'static str)> {
    if crate::conllu::compressed::Compression::detect(bytes) != crate::conllu::compressed::Compression::None {
        return Some((1, "compressed data"));
    }
    // Files tabula writes, and images: by their first bytes.
    let head = bytes.trim_ascii_start();
    for (magic, what) in [
        (&b"TABULA-PARSER-MODEL"[..], "a tabula parser model (tabula train)"),
        (b"TABULA-TAGGER-MODEL", "a tabula tagger (tabula train-tagger)"),
        (b"<svg", "an SVG image"),
        (b"<?xml", "XML"),
        (b"<!DOCTYPE", "HTML"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
    ] {
        if head.starts_with(magic) {
            let line = bytes.len() - head.len();
            return Some((bytes[..line].iter().filter(|&&b| b == b'\n').count() + 1, what));
        }
    }
    let mut first = true;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let columns: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        if columns.len() == 10 && columns[0].first().is_some_and(u8::is_ascii_digit) {
            return Some((i + 1, "a CoNLL-U treebank"));
        }
        let trimmed = line.trim_ascii();
        if first && !trimmed.is_empty() {
            first = false;
            if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
                return Some((i + 1, "JSON"));
            }
        }
    }
    None
}

/// Why a file is not of the kind wanted, whose first line would be `magic`:
/// what it is, with the line that shows it, or that its first line is not
/// `magic`. For the errors of files read as models.
pub fn not_the_header(bytes: &[u8], magic: &str) -> String {
    match other_kind(bytes) {
        Some((line, what)) => format!("line {line} shows {what}"),
        None => format!("its first line is not {magic}"),
    }
}
