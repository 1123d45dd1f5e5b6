//! A part-of-speech tagger: UPOS and, optionally, FEATS, learnt with the
//! averaged perceptron — an application beside the [parser](crate::parser),
//! with its hashed weight tables ([`crate::parser::perceptron`]) and its
//! CoNLL-U columns ([`crate::parser::columns`]). What `tabula train-tagger`,
//! `tabula tag`, `tabula parse --tagger` and `tabula train --jackknife` use.
//!
//! * [`features`] — word shape, affixes and a window of words (emission
//!   features); the tags of the two previous words (context features);
//! * [`viterbi`] — the best tag sequence under second-order scores;
//! * [`model`] — the model, the file, the [`Tagger`] (greedy or Viterbi,
//!   the tag dictionary of PanParser Sec. 3.5 first);
//! * [`settings`] — the training options as a user gives them, checked;
//! * [`train`] — training, accuracy, and the K folds of jackknifing.
//!
//! ```
//! use tabula::tagger::{train::{sentences, read_blocks, train}, Decode, Tagger, TaggerOptions};
//! let text = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n";
//! let data = sentences(&read_blocks(text.as_bytes(), "mem").unwrap(), "mem").unwrap();
//! let options = TaggerOptions { bits: 10, epochs: 3, ..TaggerOptions::default() };
//! let trained = train(&options, &data, "mem", None, &mut |_| {}).unwrap();
//! let mut tagger = Tagger::new(&trained.model, Decode::Greedy);
//! tagger.tag([&b"Dogs"[..], b"bark"]);
//! let tags: Vec<&str> = tagger.tags.iter().map(|&t| trained.model.tags[t as usize].as_str()).collect();
//! assert_eq!(tags, ["NOUN", "VERB"]);
//! ```

pub mod features;
pub mod model;
pub mod settings;
pub mod train;
pub mod viterbi;

pub use model::{Decode, Direction, Tagger, TaggerModel, TaggerOptions};

use crate::parser::ParserError;

/// Errors of reading treebanks, training, tagging and tagger files.
#[derive(Debug, thiserror::Error)]
pub enum TaggerError {
    /// The computation was interrupted ([`crate::interrupt`]: Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
    /// A malformed CoNLL-U line or sentence, or a word a tagger cannot train on.
    #[error("{file}:{line}: {reason}")]
    Conllu { file: String, line: usize, reason: String },
    /// No training sentence.
    #[error("{file}: no training sentence")]
    Empty { file: String },
    /// Training options that do not fit.
    #[error("{0}")]
    Options(String),
    /// An I/O error, with the path.
    #[error("{0}")]
    Io(String),
    /// A file that is not a tagger (no header line).
    #[error("not a tabula tagger: {what}")]
    Foreign {
        /// What the file is instead, or that its first line is not the header.
        what: String,
    },
    /// A tagger file of another version.
    #[error("tagger file version {found}, but this build reads version {expected}: retrain the tagger (tabula train-tagger)")]
    Version { found: String, expected: u32 },
    /// A tagger file with another feature set.
    #[error("the tagger uses feature set `{found}`, but this build has `{expected}`: retrain the tagger (tabula train-tagger)")]
    Features { found: String, expected: &'static str },
    /// A tagger file shorter than its header states.
    #[error("the tagger file is truncated")]
    Truncated,
    /// A tagger file whose header or checksum is wrong.
    #[error("the tagger file is corrupt: {0}")]
    Corrupt(String),
    /// A tagger file error, with the path.
    #[error("{path}: {source}")]
    Model { path: String, source: Box<TaggerError> },
    /// Reading a block's columns failed.
    #[error(transparent)]
    Parser(#[from] ParserError),
    /// The table would need more memory than the limit.
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}
