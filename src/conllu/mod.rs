//! CoNLL-U treebanks: streaming reading and byte-exact writing.
//!
//! A treebank is read as a sequence of blocks ([`RawSentence`]): the lines of
//! one sentence (comments, tokens, multiword-token lines `3-4`, empty nodes
//! `5.1`) together with the blank line that ends it and any further blank
//! lines. A block is then checked and parsed into a [`Sentence`]: its bytes,
//! untouched, plus the gold [`DepTree`] of its syntactic words and the byte
//! range of each word's HEAD column. Writing a sentence with new heads
//! rewrites only the HEAD fields that changed; everything else — all other
//! columns, comments, line endings (LF or CRLF), trailing blank lines, a
//! missing final newline — comes back byte for byte.
//!
//! Errors ([`ConlluError`]) name the file and the 1-based line; bad input
//! never panics. Reading a block is O(bytes); parsing it is O(bytes + n).
//!
//! ```
//! use tabula::conllu::Reader;
//! let text = "# sent_id = 1\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
//! let mut reader = Reader::new(text.as_bytes(), "mem.conllu");
//! let s = reader.next().unwrap().unwrap();
//! assert_eq!(s.len(), 1);
//! assert_eq!(s.sent_id(), Some("1"));
//! let mut out = Vec::new();
//! s.write(&mut out).unwrap();
//! assert_eq!(out, text.as_bytes());
//! ```

pub mod compressed;
pub mod fields;

use crate::tree::{DepTree, TreeError};
use std::io::{self, BufRead, Write};
use std::sync::Arc;

/// What is wrong with a line or a sentence of a CoNLL-U file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A non-blank, non-comment line without exactly ten tab-separated columns.
    #[error("expected 10 tab-separated columns, found {found}")]
    ColumnCount { found: usize },
    /// An ID that is not an integer, a range `n-m` or an empty node `n.k`.
    #[error("ID `{id}` is not an integer, a range n-m or an empty node n.k")]
    BadId { id: String },
    /// Word IDs must be 1, 2, …, n in order.
    #[error("word ID {id} out of order: expected {expected}")]
    IdOutOfOrder { id: String, expected: usize },
    /// A HEAD that is not a non-negative integer.
    #[error("HEAD `{head}` is not a non-negative integer")]
    BadHead { head: String },
    /// A HEAD beyond the last word.
    #[error("HEAD {head} of word {word} is out of range 0 to {n}")]
    HeadOutOfRange { word: usize, head: usize, n: usize },
    /// A HEAD of more digits than any word number has (shown elided).
    #[error("HEAD {head} of word {word} is out of range (larger than any word number)")]
    HeadTooLarge { word: usize, head: String },
    /// A number with a leading zero (`01`) as a word ID.
    #[error("ID `{id}` has a leading zero")]
    LeadingZero { id: String },
    /// A multiword-token range `a-b` with a ≥ b, or not starting at the next word.
    #[error("multiword range `{id}` must be a-b with a < b starting at the next word {expected}")]
    BadRange { id: String, expected: usize },
    /// A multiword-token range ending after the last word.
    #[error("multiword range `{id}` ends after the last word {n}")]
    DanglingRange { id: String, n: usize },
    /// The file starts with a UTF-8 byte-order mark.
    #[error("the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which CoNLL-U does not allow: remove it")]
    ByteOrderMark,
    /// An empty field (CoNLL-U writes `_` for no value).
    #[error("empty {column} field (CoNLL-U writes `_` for no value)")]
    EmptyField { column: &'static str },
    /// An empty node `k.m` with m = 0.
    #[error("empty node `{id}`: the part after the dot must be 1 or more")]
    EmptyNodeZero { id: String },
    /// An empty node given twice.
    #[error("empty node `{id}` already given on line {first}")]
    EmptyNodeTwice { id: String, first: usize },
    /// An empty node `k.m` with k beyond the last word.
    #[error("empty node `{id}` comes after word {k}, but the last word is {n}")]
    EmptyNodeAfterEnd { id: String, k: usize, n: usize },
    /// A carriage return not followed by a line feed.
    #[error("carriage return inside a line: CoNLL-U lines end with LF or CR LF, not CR alone")]
    CarriageReturn,
    /// The file is JSON (its first line starts with `{` or `[`), not CoNLL-U.
    #[error("this is JSON, not CoNLL-U (JSON configurations, one per line, are the input of `tabula oracle` without --walk)")]
    Json,
    /// The file is one tabula writes or reads elsewhere (a parser model, a
    /// tagger, a grammar) or an image, not CoNLL-U.
    #[error("this is {what}, not CoNLL-U")]
    OtherFile { what: &'static str },
    /// The file is compressed in a format that is not read (or, from the
    /// library, was not passed through [`compressed::decompress`]).
    #[error("the file is {format}-compressed: decompress it first (xz and gzip files are read directly)")]
    Compressed { format: &'static str },
    /// A block of comments only.
    #[error("the sentence has no words (only comment lines)")]
    NoWords,
    /// The heads form a cycle (a word heading itself included); the line is
    /// that of a word on it.
    #[error("the heads form a cycle through word {word}")]
    Cycle { word: usize },
    /// No word has HEAD 0 (this includes a block without words); the line is
    /// the first of the sentence.
    #[error("the sentence has no root (no word with HEAD 0)")]
    NoRoot,
    /// A later stage rejected the sentence (e.g. the grammar derives no
    /// tree of its length).
    #[error("{0}")]
    Rejected(String),
    /// Reading failed (including a line that is not UTF-8 where text is needed).
    #[error("{0}")]
    Io(String),
    /// A compressed file that is truncated or corrupt
    /// ([`compressed::StreamError`]): an error of the file, not of a line.
    #[error("{0}")]
    Stream(String),
}

/// An error in a CoNLL-U file, with the file name and the 1-based line.
/// Displays as `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", place(.file, *.line, .kind))]
pub struct ConlluError {
    /// The name the reader was given (a path, or `-` / `<stdin>`).
    pub file: Arc<str>,
    /// 1-based line number.
    pub line: usize,
    pub kind: ErrorKind,
}

/// `file:line: message`, or `file: message` for an error of the whole file
/// ([`ErrorKind::Stream`]).
fn place(file: &str, line: usize, kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::Stream(_) => format!("{file}: {kind}"),
        _ => format!("{file}:{line}: {kind}"),
    }
}

/// The unparsed lines of one sentence, with the trailing blank line(s).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawSentence {
    /// The bytes exactly as read.
    pub text: Vec<u8>,
    /// 1-based line number of the first line of `text`.
    pub first_line: usize,
}

/// A sentence whose block could not be parsed: the error, and the block
/// (to be copied unchanged with `--keep-going`).
#[derive(Debug, Clone)]
pub struct InvalidSentence {
    pub error: ConlluError,
    pub raw: RawSentence,
}

/// What [`Sentence::parse_fields`] reads of a block.
struct Fields {
    heads: Vec<usize>,
    head_fields: Vec<(u32, u32)>,
    head_lines: Vec<usize>,
    sent_id: Option<(u32, u32)>,
    /// The multiword range ending last: (line, end, ID).
    last_range: Option<(usize, usize, String)>,
    /// The empty node of the largest k: (line, k, ID).
    last_empty_node: Option<(usize, usize, String)>,
}

/// The names of the ten columns, for messages.
pub(crate) const COLUMN_NAMES: [&str; 10] =
    ["ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"];

/// A parsed sentence: its bytes and its gold tree.
#[derive(Clone, Debug)]
pub struct Sentence {
    raw: RawSentence,
    tree: DepTree,
    /// Byte range of the HEAD field of word i + 1 in `raw.text`.
    head_fields: Vec<(u32, u32)>,
    /// Byte range of the value of `# sent_id = …`, if any.
    sent_id: Option<(u32, u32)>,
}

/// Splits `text` into lines without their terminators (`\n` or `\r\n`),
/// with each line's start offset.
fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i + 1);
        let line = strip_newline(&text[start..end]);
        let at = start;
        start = end;
        Some((at, line))
    })
}

fn strip_newline(mut line: &[u8]) -> &[u8] {
    if let [rest @ .., b'\n'] = line {
        line = rest;
    }
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    line
}

fn is_blank(line: &[u8]) -> bool {
    strip_newline(line).is_empty()
}

fn parse_usize(s: &[u8]) -> Option<usize> {
    if s.is_empty() || s.len() > 18 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |acc, &b| acc * 10 + (b - b'0') as usize))
}

/// `s` for a message: lossily decoded, and elided in the middle beyond 60
/// characters (a 100,000-byte field is not echoed whole).
fn lossy(s: &[u8]) -> String {
    elide(&String::from_utf8_lossy(s))
}

/// `s` elided in the middle beyond 60 characters: `first 40…last 10 (N bytes)`.
pub(crate) fn elide(s: &str) -> String {
    let count = s.chars().count();
    if count <= 60 {
        return s.to_owned();
    }
    let head: String = s.chars().take(40).collect();
    let tail: String = s.chars().skip(count - 10).collect();
    format!("{head}…{tail} ({} bytes)", s.len())
}

impl Sentence {
    /// Checks and parses a block: exactly ten columns on every non-comment
    /// line, word IDs 1 … n in order, integer HEADs in 0 … n, no cycle, at
    /// least one word with HEAD 0. O(bytes + n).
    ///
    /// `file` is the name used in errors. On error the block is handed back.
    pub fn parse(raw: RawSentence, file: &Arc<str>) -> Result<Sentence, Box<InvalidSentence>> {
        match Self::parse_fields(&raw) {
            Ok(Fields { heads, head_fields, head_lines, sent_id, last_range, last_empty_node }) => {
                let fail = |line: usize, kind: ErrorKind| ConlluError { file: file.clone(), line, kind };
                let n = heads.len();
                let mut error = None;
                if let Some((line, k, id)) = last_empty_node {
                    if k > n {
                        error = Some(fail(line, ErrorKind::EmptyNodeAfterEnd { id, k, n }));
                    }
                }
                if let Some((line, end, id)) = last_range {
                    if end > n {
                        error = Some(fail(line, ErrorKind::DanglingRange { id, n }));
                    }
                }
                for (i, &h) in heads.iter().enumerate() {
                    if h > n {
                        error = Some(fail(head_lines[i], ErrorKind::HeadOutOfRange { word: i + 1, head: h, n }));
                        break;
                    }
                }
                if error.is_none() && heads.is_empty() {
                    error = Some(fail(raw.first_line, ErrorKind::NoWords));
                }
                if error.is_none() && !heads.contains(&0) {
                    error = Some(fail(raw.first_line, ErrorKind::NoRoot));
                }
                if let Some(error) = error {
                    return Err(Box::new(InvalidSentence { error, raw }));
                }
                match DepTree::from_heads(&heads) {
                    Ok(tree) => Ok(Sentence { raw, tree, head_fields, sent_id }),
                    Err(e) => {
                        let word = match e {
                            TreeError::Cycle(w) | TreeError::SelfLoop(w) => w,
                            TreeError::HeadOutOfRange { dependent, .. } => dependent,
                        };
                        let error = fail(head_lines[word - 1], ErrorKind::Cycle { word });
                        Err(Box::new(InvalidSentence { error, raw }))
                    }
                }
            }
            Err((line, kind)) => {
                let error = ConlluError { file: file.clone(), line, kind };
                Err(Box::new(InvalidSentence { error, raw }))
            }
        }
    }

    fn parse_fields(raw: &RawSentence) -> Result<Fields, (usize, ErrorKind)> {
        let mut heads = Vec::new();
        let mut head_fields = Vec::new();
        let mut head_lines = Vec::new();
        let mut sent_id = None;
        let mut last_range = None;
        let mut last_empty_node: Option<(usize, usize, String)> = None;
        // Empty nodes seen: (k, m, line).
        let mut empty_nodes: Vec<(usize, usize, usize)> = Vec::new();
        for (number, (at, line)) in lines(&raw.text).enumerate() {
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
                        let rest_trim = rest.trim_ascii_start();
                        if let Some(value) = rest_trim.strip_prefix(b"=") {
                            let value = value.trim_ascii();
                            let start = at + (value.as_ptr() as usize - line.as_ptr() as usize);
                            sent_id = Some((start as u32, (start + value.len()) as u32));
                        }
                    }
                }
                continue;
            }
            // The ten fields: ID is the 1st, HEAD the 7th.
            let mut tabs = [0usize; 9];
            let mut columns = 1;
            for k in memchr::memchr_iter(b'\t', line) {
                if columns <= 9 {
                    tabs[columns - 1] = k;
                }
                columns += 1;
            }
            if columns != 10 {
                return Err((line_no, ErrorKind::ColumnCount { found: columns }));
            }
            let start = |i: usize| if i == 0 { 0 } else { tabs[i - 1] + 1 };
            let end = |i: usize| if i == 9 { line.len() } else { tabs[i] };
            if let Some(i) = (0..10).find(|&i| start(i) == end(i)) {
                return Err((line_no, ErrorKind::EmptyField { column: COLUMN_NAMES[i] }));
            }
            let id = &line[..tabs[0]];
            let head = (tabs[5] + 1, tabs[6]);
            let expected = heads.len() + 1;
            if let Some(word) = parse_usize(id) {
                if id.len() > 1 && id[0] == b'0' {
                    return Err((line_no, ErrorKind::LeadingZero { id: lossy(id) }));
                }
                if word != expected {
                    return Err((line_no, ErrorKind::IdOutOfOrder { id: lossy(id), expected }));
                }
                let field = &line[head.0..head.1];
                let Some(h) = parse_usize(field) else {
                    if !field.is_empty() && field.iter().all(u8::is_ascii_digit) {
                        return Err((line_no, ErrorKind::HeadTooLarge { word, head: lossy(field) }));
                    }
                    return Err((line_no, ErrorKind::BadHead { head: lossy(field) }));
                };
                heads.push(h);
                head_fields.push(((at + head.0) as u32, (at + head.1) as u32));
                head_lines.push(line_no);
            } else {
                let ok = |sep: u8| {
                    let mut parts = id.splitn(2, |&b| b == sep);
                    matches!((parts.next(), parts.next()), (Some(a), Some(b)) if parse_usize(a).is_some() && parse_usize(b).is_some())
                };
                if ok(b'-') {
                    let (a, b) = id.split_at(id.iter().position(|&c| c == b'-').expect("has a dash"));
                    let (a, b) = (parse_usize(a).expect("checked"), parse_usize(&b[1..]).expect("checked"));
                    if a >= b || a != expected {
                        return Err((line_no, ErrorKind::BadRange { id: lossy(id), expected }));
                    }
                    if last_range.as_ref().is_none_or(|&(_, end, _)| b > end) {
                        last_range = Some((line_no, b, lossy(id)));
                    }
                } else if ok(b'.') {
                    let dot = id.iter().position(|&c| c == b'.').expect("has a dot");
                    let (k, m) =
                        (parse_usize(&id[..dot]).expect("checked"), parse_usize(&id[dot + 1..]).expect("checked"));
                    if m == 0 {
                        return Err((line_no, ErrorKind::EmptyNodeZero { id: lossy(id) }));
                    }
                    if let Some(&(_, _, first)) = empty_nodes.iter().find(|&&(a, b, _)| (a, b) == (k, m)) {
                        return Err((line_no, ErrorKind::EmptyNodeTwice { id: lossy(id), first }));
                    }
                    empty_nodes.push((k, m, line_no));
                    if last_empty_node.as_ref().is_none_or(|&(_, last, _)| k > last) {
                        last_empty_node = Some((line_no, k, lossy(id)));
                    }
                } else {
                    return Err((line_no, ErrorKind::BadId { id: lossy(id) }));
                }
            }
        }
        Ok(Fields { heads, head_fields, head_lines, sent_id, last_range, last_empty_node })
    }

    /// The gold tree.
    pub fn tree(&self) -> &DepTree {
        &self.tree
    }
    /// Number of syntactic words n.
    pub fn len(&self) -> usize {
        self.tree.len()
    }
    /// Whether the sentence has no words (never true for a parsed sentence).
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }
    /// The value of the first `# sent_id = …` comment, if any (and valid UTF-8).
    pub fn sent_id(&self) -> Option<&str> {
        let (a, b) = self.sent_id?;
        std::str::from_utf8(&self.raw.text[a as usize..b as usize]).ok()
    }
    /// 1-based line number of the sentence's first line.
    pub fn first_line(&self) -> usize {
        self.raw.first_line
    }
    /// The sentence's bytes as read.
    pub fn raw(&self) -> &RawSentence {
        &self.raw
    }
    /// Gives back the bytes.
    pub fn into_raw(self) -> RawSentence {
        self.raw
    }

    /// Writes the sentence unchanged. O(bytes).
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(&self.raw.text)
    }

    /// Writes the sentence with the heads of `tree` (which must have the same
    /// length): only the HEAD fields of words whose head differs from the
    /// gold tree are rewritten; DEPREL and all other bytes stay. O(bytes).
    ///
    /// # Panics
    /// If `tree` has a different number of words.
    pub fn write_with_heads<W: Write + ?Sized>(&self, tree: &DepTree, out: &mut W) -> io::Result<()> {
        assert_eq!(tree.len(), self.len(), "tree of a different length");
        let text = &self.raw.text;
        let mut done = 0;
        let mut buf = itoa_buf();
        for (i, (&old, &new)) in self.tree.heads().iter().zip(tree.heads()).enumerate() {
            if old != new {
                let (a, b) = self.head_fields[i];
                out.write_all(&text[done..a as usize])?;
                out.write_all(format_usize(new, &mut buf))?;
                done = b as usize;
            }
        }
        out.write_all(&text[done..])
    }
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

fn format_usize(mut v: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Reads a CoNLL-U stream block by block. As an iterator it yields parsed
/// sentences; [`Reader::next_raw`] gives the unparsed blocks (to parse them
/// elsewhere, e.g. in parallel, or to copy bad ones). Memory: one sentence.
pub struct Reader<R> {
    input: R,
    file: Arc<str>,
    /// The next line number to be read (1-based).
    line: usize,
    /// A line read ahead (the first line of the next block), if any.
    pending: Vec<u8>,
    done: bool,
    /// Whether the first block has been checked for a file of another kind.
    checked_kind: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader over `input`; `file` names it in errors.
    pub fn new(input: R, file: impl Into<Arc<str>>) -> Self {
        Reader { input, file: file.into(), line: 1, pending: Vec::new(), done: false, checked_kind: false }
    }

    /// The file name used in errors.
    pub fn file(&self) -> &Arc<str> {
        &self.file
    }

    /// The next block: leading blank lines (at the start of the file only),
    /// the sentence's lines, then every blank line up to the next sentence
    /// or the end of the input. O(bytes of the block).
    pub fn next_raw(&mut self) -> Option<Result<RawSentence, ConlluError>> {
        if self.done {
            return None;
        }
        let mut raw = RawSentence { text: std::mem::take(&mut self.pending), first_line: self.line };
        if !raw.text.is_empty() {
            self.line += 1;
        }
        let mut seen_content = !raw.text.is_empty() && !is_blank(&raw.text);
        let mut ended = false;
        loop {
            let start = raw.text.len();
            match self.input.read_until(b'\n', &mut raw.text) {
                Err(e) => {
                    self.done = true;
                    let kind = match compressed::StreamError::of(&e) {
                        Some(stream) => ErrorKind::Stream(stream.to_string()),
                        None => ErrorKind::Io(e.to_string()),
                    };
                    return Some(Err(ConlluError { file: self.file.clone(), line: self.line, kind }));
                }
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {}
            }
            let line = &raw.text[start..];
            // A model or a picture (binary, with stray CRs) is named by its
            // first line before anything else is said of it.
            if !self.checked_kind {
                if let Some(what) = magic_kind(line) {
                    self.done = true;
                    let kind = ErrorKind::OtherFile { what };
                    return Some(Err(ConlluError { file: self.file.clone(), line: self.line, kind }));
                }
            }
            // A CR alone (old Mac line ends) would make the whole file one
            // line: every command refuses it here, at its line.
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if memchr::memchr(b'\r', body).is_some_and(|i| i + 1 != body.len()) {
                self.done = true;
                return Some(Err(ConlluError {
                    file: self.file.clone(),
                    line: self.line,
                    kind: ErrorKind::CarriageReturn,
                }));
            }
            let blank = is_blank(line);
            if ended && !blank {
                // First line of the next sentence: keep it for later.
                self.pending.extend_from_slice(&raw.text[start..]);
                raw.text.truncate(start);
                break;
            }
            self.line += 1;
            if blank && seen_content {
                ended = true;
            }
            seen_content |= !blank;
        }
        if raw.text.is_empty() {
            return None;
        }
        if !self.checked_kind {
            self.checked_kind = true;
            if let Some((line, kind)) = other_kind(&raw) {
                // One error for the whole file, not one per line.
                self.done = true;
                return Some(Err(ConlluError { file: self.file.clone(), line, kind }));
            }
        }
        Some(Ok(raw))
    }
}

/// What a line that starts a file of tabula's or an image shows it to be.
fn magic_kind(line: &[u8]) -> Option<&'static str> {
    let head = line.trim_ascii_start();
    [
        (&b"TABULA-PARSER-MODEL"[..], "a tabula parser model (written by tabula train)"),
        (b"TABULA-TAGGER-MODEL", "a tabula tagger (written by tabula train-tagger)"),
        (b"<svg", "an SVG image"),
        (b"<?xml", "XML"),
        (b"<!DOCTYPE", "HTML"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
    ]
    .into_iter()
    .find(|(magic, _)| head.starts_with(magic))
    .map(|(_, what)| what)
}

/// Whether the first block of a file shows a file of another kind: JSON,
/// compressed data, or a grammar (its first line that is not a `#`
/// comment has no tab and is a `start` line or a rule with `->`). Returns
/// the line and the error. O(bytes of the block).
fn other_kind(raw: &RawSentence) -> Option<(usize, ErrorKind)> {
    let compression = compressed::Compression::detect(&raw.text);
    if compression != compressed::Compression::None {
        return Some((raw.first_line, ErrorKind::Compressed { format: compression.name() }));
    }
    let mut lines = raw.text.split(|&b| b == b'\n').enumerate().filter(|(_, l)| !is_blank(l));
    let (index, first) = lines.next()?;
    let first = first.trim_ascii_start();
    if first.starts_with(b"{") || first.starts_with(b"[") {
        return Some((raw.first_line + index, ErrorKind::Json));
    }
    let (index, rule) =
        std::iter::once((index, first)).chain(lines).find(|(_, l)| !l.trim_ascii_start().starts_with(b"#"))?;
    let rule = rule.trim_ascii();
    let grammar = !rule.contains(&b'\t') && (rule.starts_with(b"start ") || rule.windows(2).any(|w| w == b"->"));
    let what = "a grammar file";
    grammar.then_some((raw.first_line + index, ErrorKind::OtherFile { what }))
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Sentence, ConlluError>;

    fn next(&mut self) -> Option<Self::Item> {
        let raw = match self.next_raw()? {
            Ok(raw) => raw,
            Err(e) => return Some(Err(e)),
        };
        Some(Sentence::parse(raw, &self.file).map_err(|e| e.error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &str) -> Vec<String> {
        let mut r = Reader::new(text.as_bytes(), "t");
        std::iter::from_fn(|| r.next_raw()).map(|b| String::from_utf8(b.unwrap().text).unwrap()).collect()
    }

    #[test]
    fn blocks_keep_every_byte() {
        let t = "\n1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n\n\n# c\r\n1\tb\t_\t_\t_\t_\t0\t_\t_\t_\r\n";
        let b = blocks(t);
        assert_eq!(b.len(), 2);
        assert_eq!(b.concat(), t);
        assert!(b[1].starts_with("# c"));
    }

    /// Regression: a file with CR-only line ends was one comment line to
    /// `parse`, `tag`, `deprojectivize`, `ensemble` and `eval` ("0
    /// sentences", exit 0): the reader refuses it at the line of the CR.
    #[test]
    fn a_lone_carriage_return_is_an_error() {
        for (text, line) in
            [("# a\r1\tx\t_\t_\t_\t_\t0\troot\t_\t_\r\r", 1), ("# a\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\r\n# b\rc\n", 3)]
        {
            let mut r = Reader::new(text.as_bytes(), "cr.conllu");
            let e = std::iter::from_fn(|| r.next_raw()).find_map(Result::err).expect("an error");
            assert_eq!(e.kind, ErrorKind::CarriageReturn);
            assert_eq!(e.line, line, "{text:?}");
        }
        // CR LF and a final CR without LF (the end of a CR LF file cut short) stay fine.
        assert_eq!(blocks("# a\r\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\r").len(), 1);
    }

    #[test]
    fn formats_numbers() {
        let mut buf = itoa_buf();
        assert_eq!(format_usize(0, &mut buf), b"0");
        assert_eq!(format_usize(1203, &mut buf), b"1203");
    }
}
