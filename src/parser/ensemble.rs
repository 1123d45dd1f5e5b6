//! The ensemble of parsed CoNLL-U files, as `tabula ensemble` and Python's
//! `ensemble` run it: each sentence's trees vote with their files'
//! weights, the vote is reparsed into one tree ([`crate::ensemble`]: the
//! maximum spanning arborescence, or the engine's best projective tree),
//! each word takes the label with the most weight among the files that
//! chose its new head. The output is the first file with HEAD and DEPREL
//! replaced. The files must have the same sentences and FORMs in the same
//! order; the first difference is an error naming the line of each.
//! O(n³) time and O(n²) memory per sentence for the projective shape,
//! O(n²) for any tree.

use super::columns::Columns;
use super::{OptionStyle, ParserError};
use crate::conllu::{RawSentence, Reader};
use crate::ensemble::{labels, Reparser, Shape, Weights};
use std::io::{BufRead, Write};

/// The options of `tabula ensemble`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnsembleSettings {
    /// A weight per file (`None`: 1 each).
    pub weights: Option<Vec<f64>>,
    /// Refuse sentences longer than this.
    pub max_words: u64,
    /// Projective output trees instead of any tree.
    pub projective: bool,
}

impl Default for EnsembleSettings {
    fn default() -> Self {
        EnsembleSettings { weights: None, max_words: 2000, projective: false }
    }
}

/// What [`ensemble`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnsembleTotals {
    pub sentences: u64,
    pub words: u64,
}

/// A parsed CoNLL-U stream and its name for errors.
pub type Prediction = (Box<dyn BufRead + Send>, String);

/// The weights of `settings` for `k` files, checked (messages name the
/// option as `style` writes it).
pub fn weights(settings: &EnsembleSettings, k: usize, style: OptionStyle) -> Result<Weights, ParserError> {
    if k < 2 {
        return Err(ParserError::Options(format!("an ensemble needs two or more predictions, not {k}")));
    }
    if settings.max_words == 0 {
        return Err(ParserError::Options(format!("{} must be at least 1", style.name("max-words"))));
    }
    let given = settings.weights.clone().unwrap_or_else(|| vec![1.0; k]);
    if given.len() != k {
        return Err(ParserError::Options(format!(
            "{} gives {} weights for {k} files: one per file",
            style.name("weights"),
            given.len()
        )));
    }
    Weights::new(&given).map_err(|e| ParserError::Options(format!("{}: {e}", style.name("weights"))))
}

/// Votes over `predictions` sentence by sentence and writes the first file
/// with the chosen heads and labels to `out`.
pub fn ensemble<W: Write + ?Sized>(
    predictions: Vec<Prediction>,
    settings: &EnsembleSettings,
    style: OptionStyle,
    out: &mut W,
) -> Result<EnsembleTotals, ParserError> {
    let k = predictions.len();
    let weights = weights(settings, k, style)?;
    let io = |e: std::io::Error| ParserError::Io(e.to_string());
    let mut readers: Vec<(Reader<Box<dyn BufRead + Send>>, String)> =
        predictions.into_iter().map(|(input, name)| (Reader::new(input, name.as_str()), name)).collect();
    let shape = if settings.projective { Shape::Projective } else { Shape::Any };
    let mut reparser = Reparser::new(shape)?;
    let mut totals = EnsembleTotals::default();
    loop {
        let mut blocks: Vec<(Option<RawSentence>, &str)> = Vec::with_capacity(k);
        for (reader, name) in &mut readers {
            blocks.push((reader.next_raw().transpose()?, name.as_str()));
        }
        let ended = blocks.iter().filter(|(b, _)| b.is_none()).count();
        if ended == k {
            break;
        }
        if let Some((_, short)) = blocks.iter().find(|(b, _)| b.is_none()) {
            return Err(ParserError::EndsEarly { file: (*short).to_owned(), sentences: totals.sentences });
        }
        let blocks: Vec<(RawSentence, &str)> = blocks.into_iter().filter_map(|(b, n)| Some((b?, n))).collect();
        let mut cols = Vec::with_capacity(k);
        for (b, name) in &blocks {
            cols.push(Columns::scan(b, name)?);
        }
        let (first, first_name) = (&blocks[0].0, blocks[0].1);
        let forms = |c: &Columns, text: &[u8]| -> Vec<Vec<u8>> {
            c.words.iter().map(|w| text[w.form.clone()].to_vec()).collect()
        };
        for ((b, name), c) in blocks.iter().zip(&cols).skip(1) {
            if forms(c, &b.text) != forms(&cols[0], &first.text) {
                return Err(ParserError::OtherWords {
                    first: format!("{first_name}:{}", first.first_line),
                    other: format!("{name}:{}", b.first_line),
                });
            }
        }
        if cols[0].is_empty() {
            out.write_all(&first.text).map_err(io)?;
            continue;
        }
        if cols[0].words.len() as u64 > settings.max_words {
            return Err(ParserError::TooLong {
                file: first_name.to_owned(),
                line: first.first_line,
                words: cols[0].words.len(),
                limit: style.given("max-words", &settings.max_words.to_string(), false),
            });
        }
        let mut heads = Vec::with_capacity(k);
        let mut deprels: Vec<Vec<&str>> = Vec::with_capacity(k);
        for ((b, name), c) in blocks.iter().zip(&cols) {
            heads.push(c.heads(&b.text, name)?.heads().to_vec());
            // Columns::scan checked that every field is UTF-8.
            deprels
                .push(c.words.iter().map(|w| std::str::from_utf8(&b.text[w.deprel.clone()]).unwrap_or("_")).collect());
        }
        let votes: Vec<&[usize]> = heads.iter().map(Vec::as_slice).collect();
        let tree = reparser.reparse(&votes, &weights).map_err(|e| ParserError::Conllu {
            file: first_name.to_owned(),
            line: first.first_line,
            reason: e.to_string(),
        })?;
        let predictions: Vec<(&[usize], &[&str])> =
            heads.iter().zip(&deprels).map(|(h, l)| (h.as_slice(), l.as_slice())).collect();
        let chosen = labels(&tree, &predictions, &weights);
        cols[0].write_with(&first.text, &tree, &chosen, out).map_err(io)?;
        totals.sentences += 1;
        totals.words += tree.len() as u64;
    }
    Ok(totals)
}
