//! The one check of a block's lines that every CoNLL-U reader applies:
//! [`Sentence::parse`](super::Sentence::parse) (projectivize, count, the
//! oracle's walk, draw, Python's `read_conllu`) and the parser's and the
//! tagger's [`Columns::scan`](crate::parser::columns::Columns::scan) (parse,
//! train, tag, train-tagger, ensemble, eval, deprojectivize). One rule, one
//! message, one line number, whichever command reads the file:
//!
//! - every non-blank line is a comment (`#`) or has ten tab-separated
//!   fields, none empty (`_` is "no value"); no carriage return except in a
//!   CR LF line end; no byte-order mark at the start of the file;
//! - word IDs are 1, 2, …, n in order, without leading zeros;
//! - a multiword token `a-b` has a < b, comes right before word a, does not
//!   overlap the previous one and ends at a word of the sentence;
//! - an empty node `k.m` has k ≥ 1 and m ≥ 1 and comes after word k and
//!   before word k + 1 (k.1, k.2, … in order, each once); empty nodes are
//!   kept byte for byte and are not words of the tree;
//! - a block has at least one word: a block of comments only is an error.
//!
//! O(bytes) time, O(n) memory for n words.

use super::fields::FieldLine;
use super::{lines, lossy, parse_usize, ErrorKind, RawSentence, COLUMN_NAMES};
use std::ops::Range;

/// One syntactic word's line in a checked block.
#[derive(Clone, Debug)]
pub struct WordLine {
    /// The line split at its tabs (ten fields, as byte ranges of the block).
    pub fields: FieldLine,
    /// 1-based line number in the file.
    pub line: usize,
}

impl WordLine {
    /// The byte range of field `i` (0-based, < 10) in the block.
    pub fn field(&self, i: usize) -> Range<usize> {
        self.fields.field(i).expect("a checked word line has ten fields")
    }
}

/// What [`check_block`] finds in a valid block.
#[derive(Clone, Debug)]
pub struct CheckedBlock {
    /// The syntactic words 1 … n.
    pub words: Vec<WordLine>,
    /// The byte range of the value of the first `# sent_id = …` comment.
    pub sent_id: Option<Range<usize>>,
}

/// An ID `a{sep}b` of two decimal numbers.
fn pair(id: &[u8], sep: u8) -> Option<(usize, usize)> {
    let at = memchr::memchr(sep, id)?;
    Some((parse_usize(&id[..at])?, parse_usize(&id[at + 1..])?))
}

/// Checks the lines of `raw` (the rules of the [module](self)); the error
/// is the 1-based line and what is wrong there. O(bytes).
pub fn check_block(raw: &RawSentence) -> Result<CheckedBlock, (usize, ErrorKind)> {
    let text = &raw.text;
    let mut words: Vec<WordLine> = Vec::new();
    let mut sent_id = None;
    // The last multiword range: (line, last word, ID).
    let mut last_range: Option<(usize, usize, String)> = None;
    // The last empty node: (k, m, line).
    let mut last_node: Option<(usize, usize, usize)> = None;
    // An empty node k.m seen before word k: (line, k, ID).
    let mut early_node: Option<(usize, usize, String)> = None;
    for (number, (at, line)) in lines(text).enumerate() {
        let line_no = raw.first_line + number;
        if line_no == 1 && at == 0 && line.starts_with(b"\xEF\xBB\xBF") {
            return Err((line_no, ErrorKind::ByteOrderMark));
        }
        if memchr::memchr(b'\r', line).is_some() {
            return Err((line_no, ErrorKind::CarriageReturn));
        }
        if line.is_empty() {
            continue;
        }
        if line[0] == b'#' {
            if sent_id.is_none() {
                if let Some(rest) = line.strip_prefix(b"# sent_id") {
                    if let Some(value) = rest.trim_ascii_start().strip_prefix(b"=") {
                        let value = value.trim_ascii();
                        let start = at + (value.as_ptr() as usize - line.as_ptr() as usize);
                        sent_id = Some(start..start + value.len());
                    }
                }
            }
            continue;
        }
        let fields = FieldLine::split(text, number, at..at + line.len());
        if fields.fields != 10 {
            return Err((line_no, ErrorKind::ColumnCount { found: fields.fields }));
        }
        if let Some(i) = (0..10).find(|&i| fields.field(i).is_some_and(|r| r.is_empty())) {
            return Err((line_no, ErrorKind::EmptyField { column: COLUMN_NAMES[i] }));
        }
        let id = &text[fields.field(0).expect("ten fields")];
        let expected = words.len() + 1;
        if let Some(word) = parse_usize(id) {
            if id.len() > 1 && id[0] == b'0' {
                return Err((line_no, ErrorKind::LeadingZero { id: lossy(id) }));
            }
            if word != expected {
                return Err((line_no, ErrorKind::IdOutOfOrder { id: lossy(id), expected }));
            }
            if let Some((line, k, id)) = early_node.take() {
                return Err((line, ErrorKind::EmptyNodeOutOfPlace { id, k, after: expected - 1 }));
            }
            words.push(WordLine { fields, line: line_no });
        } else if let Some((a, b)) = pair(id, b'-') {
            if a >= b || a != expected {
                return Err((line_no, ErrorKind::BadRange { id: lossy(id), expected }));
            }
            if let Some((line, end, previous)) = &last_range {
                if a <= *end {
                    return Err((
                        line_no,
                        ErrorKind::RangeOverlap { id: lossy(id), previous: previous.clone(), line: *line },
                    ));
                }
            }
            last_range = Some((line_no, b, lossy(id)));
        } else if let Some((k, m)) = pair(id, b'.') {
            if m == 0 {
                return Err((line_no, ErrorKind::EmptyNodeZero { id: lossy(id) }));
            }
            if k == 0 {
                return Err((line_no, ErrorKind::EmptyNodeBeforeWords { id: lossy(id) }));
            }
            if let Some((last_k, last_m, first)) = last_node {
                if last_k == k && m == last_m {
                    return Err((line_no, ErrorKind::EmptyNodeTwice { id: lossy(id), first }));
                }
                if last_k == k && m < last_m {
                    return Err((
                        line_no,
                        ErrorKind::EmptyNodeOrder { id: lossy(id), previous: format!("{k}.{last_m}") },
                    ));
                }
            }
            if k + 1 < expected {
                return Err((line_no, ErrorKind::EmptyNodeOutOfPlace { id: lossy(id), k, after: expected - 1 }));
            }
            if k + 1 > expected && early_node.is_none() {
                early_node = Some((line_no, k, lossy(id)));
            }
            last_node = Some((k, m, line_no));
        } else {
            return Err((line_no, ErrorKind::BadId { id: lossy(id) }));
        }
    }
    let n = words.len();
    if let Some((line, end, id)) = last_range {
        if end > n {
            return Err((line, ErrorKind::DanglingRange { id, n }));
        }
    }
    if let Some((line, k, id)) = early_node {
        return Err((line, ErrorKind::EmptyNodeAfterEnd { id, k, n }));
    }
    if words.is_empty() {
        return Err((raw.first_line, ErrorKind::NoWords));
    }
    Ok(CheckedBlock { words, sent_id })
}
