//! The columns the parser reads and writes in a CoNLL-U block: FORM, UPOS,
//! HEAD and DEPREL of each syntactic word, as byte ranges into the block.
//!
//! Unlike [`crate::conllu::Sentence`], a HEAD need not be a number here
//! (text to be parsed usually has `_`); [`Columns::heads`] checks it when
//! a tree is needed. The lines are checked as every reader checks them
//! ([`check_block`]); multiword-token lines (`3-4`) and empty nodes (`5.1`)
//! are skipped and kept byte for byte by [`Columns::write_with`].
//! O(bytes) to scan, no copy of the text.

use super::ParserError;
use crate::conllu::block::check_block;
use crate::conllu::RawSentence;
use crate::conllu::COLUMN_NAMES;
use crate::tree::DepTree;
use std::io::{self, Write};
use std::ops::Range;

/// One syntactic word: the byte ranges of its columns in the block and its line.
#[derive(Clone, Debug)]
pub struct Word {
    pub form: Range<usize>,
    pub lemma: Range<usize>,
    pub upos: Range<usize>,
    pub xpos: Range<usize>,
    pub feats: Range<usize>,
    pub head: Range<usize>,
    pub deprel: Range<usize>,
    /// 1-based line number in the file.
    pub line: usize,
}

/// The words of one block.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    pub words: Vec<Word>,
    /// 1-based line number of the block's first line.
    pub first_line: usize,
}

fn parse_usize(s: &[u8]) -> Option<usize> {
    if s.is_empty() || s.len() > 18 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |acc, &b| acc * 10 + (b - b'0') as usize))
}

impl Columns {
    /// Scans a block: its lines as every reader checks them
    /// ([`check_block`]: ten columns, none empty, word IDs 1 … n in order,
    /// valid multiword ranges and empty nodes, at least one word), and the
    /// fields of its words in UTF-8. Ranges `a-b` and empty nodes `k.m` are
    /// skipped. Errors name `file` and the line. O(bytes).
    pub fn scan(raw: &RawSentence, file: &str) -> Result<Columns, ParserError> {
        let text = &raw.text;
        let fail = |line: usize, reason: String| ParserError::Conllu { file: file.to_owned(), line, reason };
        let block = check_block(raw).map_err(|(line, kind)| fail(line, kind.to_string()))?;
        let mut cols = Columns { words: Vec::with_capacity(block.words.len()), first_line: raw.first_line };
        for w in &block.words {
            let field = |i: usize| w.field(i);
            let line = &text[field(0).start..field(9).end];
            if let Err(e) = std::str::from_utf8(line) {
                let column = line[..e.valid_up_to()].iter().filter(|&&b| b == b'\t').count();
                return Err(fail(
                    w.line,
                    format!(
                        "the {} field is not valid UTF-8 (byte 0x{:02X})",
                        COLUMN_NAMES[column],
                        line[e.valid_up_to()]
                    ),
                ));
            }
            cols.words.push(Word {
                form: field(1),
                lemma: field(2),
                upos: field(3),
                xpos: field(4),
                feats: field(5),
                head: field(6),
                deprel: field(7),
                line: w.line,
            });
        }
        Ok(cols)
    }

    /// Number of syntactic words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the block has no syntactic word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The HEAD column as a tree; errors (naming the line) if a HEAD is not
    /// a number in 0 … n or the heads are not a tree. O(n).
    pub fn heads(&self, text: &[u8], file: &str) -> Result<DepTree, ParserError> {
        let heads = self.head_numbers(text, file)?;
        DepTree::from_heads(&heads).map_err(|e| ParserError::Conllu {
            file: file.to_owned(),
            line: self.first_line,
            reason: e.to_string(),
        })
    }

    /// The gold tree of the HEAD column, `_` leaving a word without a head
    /// (a partial tree, [`DepTree::from_partial_heads`]); errors name the
    /// line. O(n).
    pub fn partial_heads(&self, text: &[u8], file: &str) -> Result<DepTree, ParserError> {
        let n = self.words.len();
        let mut heads = Vec::with_capacity(n);
        for w in &self.words {
            let field = &text[w.head.clone()];
            match parse_usize(field) {
                Some(h) if h <= n => heads.push(Some(h)),
                _ if field == b"_" => heads.push(None),
                _ => {
                    return Err(ParserError::Conllu {
                        file: file.to_owned(),
                        line: w.line,
                        reason: format!(
                            "HEAD `{}` is neither a number in 0..={n} nor `_` (not annotated)",
                            crate::shown::shown_bytes(field)
                        ),
                    })
                }
            }
        }
        DepTree::from_partial_heads(&heads).map_err(|e| ParserError::Conllu {
            file: file.to_owned(),
            line: self.first_line,
            reason: e.to_string(),
        })
    }

    /// The HEAD column as numbers in 0 … n (not checked to form a tree:
    /// what evaluation needs); errors name the line. O(n).
    pub fn head_numbers(&self, text: &[u8], file: &str) -> Result<Vec<usize>, ParserError> {
        let n = self.words.len();
        let mut heads = Vec::with_capacity(n);
        for w in &self.words {
            let field = &text[w.head.clone()];
            match parse_usize(field) {
                Some(h) if h <= n => heads.push(h),
                _ => {
                    return Err(ParserError::Conllu {
                        file: file.to_owned(),
                        line: w.line,
                        reason: format!("HEAD `{}` is not a number in 0..={n}", crate::shown::shown_bytes(field)),
                    })
                }
            }
        }
        Ok(heads)
    }

    /// Writes the block with HEAD and DEPREL of word i + 1 replaced by
    /// `heads[i]` and `labels[i]`; every other byte is copied. O(bytes).
    pub fn write_with<W: Write + ?Sized>(
        &self,
        text: &[u8],
        heads: &[usize],
        labels: &[&str],
        out: &mut W,
    ) -> io::Result<()> {
        let mut done = 0;
        let mut buf = itoa::Buffer::default();
        for (i, w) in self.words.iter().enumerate() {
            out.write_all(&text[done..w.head.start])?;
            out.write_all(buf.format(heads[i]))?;
            out.write_all(b"\t")?;
            out.write_all(labels[i].as_bytes())?;
            done = w.deprel.end;
        }
        out.write_all(&text[done..])
    }
}

/// A tiny decimal formatter (no allocation).
mod itoa {
    #[derive(Default)]
    pub struct Buffer([u8; 20]);
    impl Buffer {
        pub fn format(&mut self, mut v: usize) -> &[u8] {
            let mut i = self.0.len();
            loop {
                i -= 1;
                self.0[i] = b'0' + (v % 10) as u8;
                v /= 10;
                if v == 0 {
                    break;
                }
            }
            &self.0[i..]
        }
    }
}

/// The universal part of a DEPREL: up to the first `:`.
pub fn universal(deprel: &[u8]) -> &[u8] {
    deprel.split(|&b| b == b':').next().unwrap_or(deprel)
}
