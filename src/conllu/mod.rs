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

pub mod block;
pub mod compressed;
pub mod fields;

use crate::tree::{DepTree, TreeError};
use std::io::{self, BufRead, Read, Write};
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
    /// A multiword range starting inside the previous one.
    #[error("multiword range `{id}` overlaps the range `{previous}` on line {line}")]
    RangeOverlap { id: String, previous: String, line: usize },
    /// An empty node `0.m`: an empty node follows a word.
    #[error("empty node `{id}`: an empty node k.m comes after word k, so k must be 1 or more")]
    EmptyNodeBeforeWords { id: String },
    /// An empty node `k.m` not between word k and word k + 1.
    #[error("empty node `{id}` must come right after word {k}, but it follows word {after}")]
    EmptyNodeOutOfPlace { id: String, k: usize, after: usize },
    /// Empty nodes after a word not numbered k.1, k.2, … in order.
    #[error("empty node `{id}` comes after `{previous}`: empty nodes after a word are numbered k.1, k.2, … in order")]
    EmptyNodeOrder { id: String, previous: String },
    /// A line longer than [`MAX_LINE_BYTES`] (no CoNLL-U line is: the
    /// input is binary data, `/dev/zero`, or a file without line ends).
    #[error("a line longer than {} without a line end: this is not CoNLL-U", crate::memory::human(MAX_LINE_BYTES as u64))]
    LineTooLong,
    /// A sentence's block larger than the memory limit allows.
    #[error("a sentence of more than {} (a quarter of the memory limit, --max-memory): this is not CoNLL-U, or raise the limit", crate::memory::human(*limit))]
    SentenceTooLarge { limit: u64 },
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
/// ([`ErrorKind::Stream`]); the file name's control characters shown
/// ([`crate::shown`]).
fn place(file: &str, line: usize, kind: &ErrorKind) -> String {
    let file = crate::shown::shown(file);
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

/// `s` for a message: lossily decoded, elided in the middle beyond 60
/// characters (a 100,000-byte field is not echoed whole), and its control
/// characters written visibly ([`crate::shown`]).
fn lossy(s: &[u8]) -> String {
    crate::shown::shown(&elide(&String::from_utf8_lossy(s))).into_owned()
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
    /// Checks and parses a block: its lines as every reader checks them
    /// ([`block::check_block`]: ten columns, word IDs 1 … n in order, valid
    /// multiword ranges and empty nodes, at least one word), then integer
    /// HEADs in 0 … n, no cycle, at least one word with HEAD 0. O(bytes + n).
    ///
    /// `file` is the name used in errors. On error the block is handed back.
    pub fn parse(raw: RawSentence, file: &Arc<str>) -> Result<Sentence, Box<InvalidSentence>> {
        let fail = |line: usize, kind: ErrorKind| ConlluError { file: file.clone(), line, kind };
        let block = match block::check_block(&raw) {
            Ok(block) => block,
            Err((line, kind)) => return Err(Box::new(InvalidSentence { error: fail(line, kind), raw })),
        };
        let n = block.words.len();
        let mut heads = Vec::with_capacity(n);
        let mut head_fields = Vec::with_capacity(n);
        for (i, w) in block.words.iter().enumerate() {
            let range = w.field(6);
            let field = &raw.text[range.clone()];
            let error = match parse_usize(field) {
                Some(h) if h <= n => {
                    heads.push(h);
                    head_fields.push((range.start as u32, range.end as u32));
                    continue;
                }
                Some(h) => ErrorKind::HeadOutOfRange { word: i + 1, head: h, n },
                None if field.iter().all(u8::is_ascii_digit) => {
                    ErrorKind::HeadTooLarge { word: i + 1, head: lossy(field) }
                }
                None => ErrorKind::BadHead { head: lossy(field) },
            };
            return Err(Box::new(InvalidSentence { error: fail(w.line, error), raw }));
        }
        if !heads.contains(&0) {
            return Err(Box::new(InvalidSentence { error: fail(raw.first_line, ErrorKind::NoRoot), raw }));
        }
        let sent_id = block.sent_id.map(|r| (r.start as u32, r.end as u32));
        match DepTree::from_heads(&heads) {
            Ok(tree) => Ok(Sentence { raw, tree, head_fields, sent_id }),
            Err(e) => {
                let word = match e {
                    TreeError::Cycle(w) | TreeError::SelfLoop(w) => w,
                    TreeError::HeadOutOfRange { dependent, .. } => dependent,
                };
                let error = fail(block.words[word - 1].line, ErrorKind::Cycle { word });
                Err(Box::new(InvalidSentence { error, raw }))
            }
        }
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

/// The longest line a reader reads: 64 MiB. No CoNLL-U line comes near
/// it; a longer one (binary data, `/dev/zero`, a file without line ends)
/// is an error at its line instead of an allocation that aborts.
pub const MAX_LINE_BYTES: usize = 64 << 20;

impl<R: BufRead> Reader<R> {
    /// Ends the reading with an error at the current line.
    fn stop(&mut self, kind: ErrorKind) -> ConlluError {
        self.done = true;
        ConlluError { file: self.file.clone(), line: self.line, kind }
    }

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
        let block_limit = (crate::memory::max_memory() / 4).max(MAX_LINE_BYTES as u64);
        loop {
            let start = raw.text.len();
            // At most one byte past the longest line: `/dev/zero` or a file
            // without line ends is an error here, not an allocation abort.
            match (&mut self.input).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut raw.text) {
                Err(e) => {
                    let kind = match compressed::StreamError::of(&e) {
                        Some(stream) => ErrorKind::Stream(stream.to_string()),
                        None => ErrorKind::Io(e.to_string()),
                    };
                    return Some(Err(self.stop(kind)));
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
                    return Some(Err(self.stop(ErrorKind::OtherFile { what })));
                }
            }
            if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") {
                return Some(Err(self.stop(ErrorKind::LineTooLong)));
            }
            if raw.text.len() as u64 > block_limit {
                return Some(Err(self.stop(ErrorKind::SentenceTooLarge { limit: block_limit })));
            }
            // A CR alone (old Mac line ends) would make the whole file one
            // line: every command refuses it here, at its line.
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if memchr::memchr(b'\r', body).is_some_and(|i| i + 1 != body.len()) {
                return Some(Err(self.stop(ErrorKind::CarriageReturn)));
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
        (b"PK\x03\x04", "a zip archive (a PyTorch model?)"),
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
