//! Undoing the pseudo-projective encoding (Nivre & Nilsson 2005) of a
//! CoNLL-U stream, as `tabula deprojectivize` and Python's `deprojectivize`
//! run it: every word whose DEPREL marks it as moved (`d|h` or `d|`) is
//! reattached to the head the marks lead to, and every DEPREL is written
//! back plain (`d`). Only HEAD and DEPREL of syntactic words change; all
//! other bytes are copied. O(bytes), memory of one sentence.
//!
//! ```
//! use tabula::parser::deprojectivize::deprojectivize;
//! // Word 3 was lifted from word 2 to the root's child 1 (`obj|nmod`).
//! let text = "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tnmod\t_\t_\n3\tc\t_\tX\t_\t_\t1\tobj|nmod\t_\t_\n\n";
//! let mut out = Vec::new();
//! let totals = deprojectivize(text.as_bytes(), "mem", &mut out).unwrap();
//! assert_eq!((totals.sentences, totals.moved, totals.reattached), (1, 1, 1));
//! assert!(String::from_utf8(out).unwrap().contains("3\tc\t_\tX\t_\t_\t2\tobj\t_\t_"));
//! ```

use super::columns::Columns;
use super::ParserError;
use crate::conllu::{RawSentence, Reader};
use crate::projectivize::pseudo;
use std::io::{BufRead, Write};

/// What [`deprojectivize`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeprojectivizeTotals {
    /// Sentences with words.
    pub sentences: u64,
    /// Words marked as moved.
    pub moved: u64,
    /// Of those, the ones reattached (the others keep their head).
    pub reattached: u64,
    /// Labels with `|` or `%` not in the encoding's forms (kept as they are).
    pub malformed: u64,
}

impl DeprojectivizeTotals {
    fn add(&mut self, other: &DeprojectivizeTotals) {
        self.sentences += other.sentences;
        self.moved += other.moved;
        self.reattached += other.reattached;
        self.malformed += other.malformed;
    }
}

/// Decodes one block (`file` names it in errors): the block with the moved
/// words reattached and plain labels, and its counts (a block without words
/// is copied and counts nothing).
pub fn deprojectivize_block(raw: &RawSentence, file: &str) -> Result<(Vec<u8>, DeprojectivizeTotals), ParserError> {
    let cols = Columns::scan(raw, file)?;
    if cols.is_empty() {
        return Ok((raw.text.clone(), DeprojectivizeTotals::default()));
    }
    let tree = cols.heads(&raw.text, file)?;
    // Columns::scan checked that every field is UTF-8.
    let labels: Vec<&str> =
        cols.words.iter().map(|w| std::str::from_utf8(&raw.text[w.deprel.clone()]).unwrap_or("_")).collect();
    let decoded = pseudo::decode(&tree, &labels).map_err(|e| ParserError::Conllu {
        file: file.to_owned(),
        line: raw.first_line,
        reason: e.to_string(),
    })?;
    let plain: Vec<&str> = decoded.labels.iter().map(String::as_str).collect();
    let mut bytes = Vec::with_capacity(raw.text.len());
    cols.write_with(&raw.text, decoded.tree.heads(), &plain, &mut bytes).map_err(|e| ParserError::Io(e.to_string()))?;
    let totals = DeprojectivizeTotals {
        sentences: 1,
        moved: decoded.moved as u64,
        reattached: decoded.reattached as u64,
        malformed: decoded.malformed as u64,
    };
    Ok((bytes, totals))
}

/// Decodes every block of `input` (named `file` in errors) into `out`.
pub fn deprojectivize<R: BufRead, W: Write + ?Sized>(
    input: R,
    file: &str,
    out: &mut W,
) -> Result<DeprojectivizeTotals, ParserError> {
    let mut reader = Reader::new(input, file);
    let mut totals = DeprojectivizeTotals::default();
    while let Some(raw) = reader.next_raw() {
        let (bytes, counts) = deprojectivize_block(&raw?, file)?;
        out.write_all(&bytes).map_err(|e| ParserError::Io(e.to_string()))?;
        totals.add(&counts);
    }
    Ok(totals)
}
