//! A transition-based dependency parser that learns with tabula's oracles,
//! greedy or with beam search and global training — an application on the
//! [oracle](crate::oracle) layer, generic over the registered
//! [`System`](crate::oracle::System)s.
//!
//! * [`columns`] — FORM, UPOS, HEAD and DEPREL of a CoNLL-U block, as byte
//!   ranges (reading, and writing back with new HEAD and DEPREL only);
//! * [`features`] — the Zhang & Nivre (2011) feature templates (seed 001,
//!   Sec. 3), hashed;
//! * [`perceptron`] — hashed weight tables and the averaged perceptron;
//! * [`model`] — the model (labelled steps: a step that builds an arc
//!   carries a DEPREL), the greedy [`Parser`], the versioned model file;
//! * [`train`] — the static and dynamic (error-exploring, Goldberg & Nivre
//!   2013) training regimes over an [`OracleSession`](crate::oracle::session::OracleSession);
//! * [`beam`] — beam search ([`beam::BeamParser`]) and the beam that
//!   global training decodes with;
//! * [`global`] — global training with the exact global dynamic oracle
//!   (early update, max-violation, full update, restart);
//! * [`run`] — a training run as `tabula train` and Python start it: the
//!   options checked once, the epochs, the model of the best dev LAS;
//! * [`eval`] — UAS and LAS (CoNLL 2018: the universal part of DEPREL).
//!
//! ```
//! use tabula::parser::{train::{read_gold, Trainer, TrainOptions}, Parser};
//! let text = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n";
//! let gold = read_gold(text.as_bytes(), "mem").unwrap();
//! let options = TrainOptions { step_bits: 10, label_bits: 8, ..TrainOptions::default() };
//! let mut trainer = Trainer::new(options, gold.clone(), "mem").unwrap();
//! for _ in 0..3 {
//!     trainer.epoch(&mut |_| {}).unwrap();
//! }
//! let model = trainer.model();
//! let mut parser = Parser::new(&model);
//! parser.parse(&gold[0].tokens);
//! assert_eq!(parser.heads, vec![2, 0]);
//! ```

mod any_parser;
pub mod beam;
pub mod breakdown;
pub mod columns;
pub mod deprojectivize;
pub mod ensemble;
pub mod eval;
pub mod features;
pub mod global;
pub mod job;
mod learner;
pub mod model;
pub mod perceptron;
pub mod run;
#[cfg(target_arch = "x86_64")]
mod simd;
pub mod train;
mod weight;

pub use any_parser::AnyParser;
pub use model::{Model, Parser};

use crate::oracle::OracleError;

/// Errors of reading treebanks, training, parsing and model files.
#[derive(Debug, thiserror::Error)]
pub enum ParserError {
    /// The computation was interrupted ([`crate::interrupt`]: Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
    /// A malformed CoNLL-U line or sentence.
    #[error("{file}:{line}: {reason}")]
    Conllu { file: String, line: usize, reason: String },
    /// `tabula parse --constraints` with a model of another system.
    #[error("--constraints needs a model of arc-standard, arc-hybrid or arc-eager (their oracles keep a partial tree's arcs); this model is for {0}")]
    ConstraintsNotOffered(crate::oracle::System),
    /// The gold and predicted files do not align.
    #[error("the files do not align at {gold} and {pred}: {reason}")]
    Misaligned { gold: String, pred: String, reason: String },
    /// `tabula eval` of files without words.
    #[error("{gold} and {pred} have no words: nothing to score")]
    NothingToScore { gold: String, pred: String },
    /// `tabula ensemble` of files with other sentences (the first line of
    /// the sentence in each).
    #[error("the files do not align: {first} and {other} have other words")]
    OtherWords { first: String, other: String },
    /// `tabula ensemble` of files with fewer sentences than the others.
    #[error("{file} ends before the other files (after {sentences} sentences)")]
    EndsEarly { file: String, sentences: u64 },
    /// A sentence longer than the limit of a cubic computation; `limit`:
    /// the option and its value as the caller writes it.
    #[error("{file}:{line}: a sentence of {words} words, longer than {limit}")]
    TooLong { file: String, line: usize, words: usize, limit: String },
    /// A dev file none of whose words has a gold HEAD: its scores would
    /// choose the epoch to keep blindly.
    #[error("{file}: no word has a gold HEAD (every HEAD is `_`): the dev file scores the epochs to choose the model to keep; give a treebank with trees, or leave {option} out")]
    DevWithoutTrees { file: String, option: String },
    /// Options that do not fit together, or a bad value.
    #[error("{0}")]
    Options(String),
    /// An I/O error, with the path.
    #[error("{0}")]
    Io(String),
    /// A model file that is not one (no header line).
    #[error("not a tabula parser model: {what}")]
    ModelForeign {
        /// What the file is instead, or that its first line is not the header.
        what: String,
    },
    /// A model file of another version.
    #[error("model file version {found}, but this build reads version {expected}")]
    ModelVersion { found: String, expected: u32 },
    /// A model file with another feature set.
    #[error("the model uses feature set `{found}`, but this build has `{expected}`")]
    ModelFeatures { found: String, expected: &'static str },
    /// An LR-spine model file with another number of spine classes.
    #[error("the model scores spine steps up to K = {found}, but this build has K = {expected} (MODEL_SPINE_DEPTH)")]
    ModelSpineDepth { found: String, expected: u32 },
    /// A model file whose header ends early.
    #[error("the model file is truncated (within its header)")]
    ModelTruncated,
    /// A model file whose size is not the one its header states: truncated,
    /// longer, or with a header edited to another system (`sized_for`: the
    /// systems whose tables have the file's size).
    #[error("{}", model_size_message(*system, *expected, *found, sized_for))]
    ModelSize { system: crate::oracle::System, expected: u64, found: u64, sized_for: Vec<crate::oracle::System> },
    /// A model file whose header or checksum is wrong.
    #[error("the model file is corrupt: {0}")]
    ModelCorrupt(String),
    /// A model error, with the path.
    #[error("{path}: {source}")]
    Model { path: String, source: Box<ParserError> },
    /// The oracle failed on a training sentence.
    #[error("training sentence at line {line}: {source}")]
    Training { line: usize, source: OracleError },
    /// The oracle has no optimal step at a non-final configuration (never
    /// expected: every reachable configuration can be completed).
    #[error("training sentence at line {line}: the oracle has no optimal step")]
    NoOptimalStep { line: usize },
    /// The regime needs projective training trees.
    /// `needs`: what needs them; `fix`: what the user can do.
    #[error("{file}:{line}: a non-projective tree, but {needs} needs projective trees (use {fix})")]
    NeedsProjective { file: String, line: usize, needs: String, fix: String },
    /// `--root last` for a system that does not offer it.
    #[error("the root in last position is offered for arc-hybrid and arc-eager, not {0}")]
    RootNotOffered(crate::oracle::System),
    /// A model to continue from does not fit the training options or data.
    #[error("cannot continue from the model: {0}")]
    InitMismatch(String),
    /// A column the features were asked to read is `_` on every word.
    #[error("{file}: every {column} is `_`, but the features were asked to read {column}: leave that option out")]
    BlankColumn { file: String, column: &'static str },
    /// Training sentences none of whose words has a gold HEAD (every HEAD
    /// `_`, or none kept by `--subsample`): nothing to learn from.
    #[error("{file}: no word has a gold HEAD ({why}): nothing to train on")]
    NoGoldHeads { file: String, why: String },
    /// No training sentence left; `why` says where they went (may be empty).
    #[error("{file}: no training sentence{why}")]
    EmptyTreebank { file: String, why: String },
    #[error(transparent)]
    Oracle(#[from] OracleError),
    #[error(transparent)]
    Projectivize(#[from] crate::projectivize::ProjectivizeError),
    /// The tables would need more memory than the limit.
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}

impl From<crate::conllu::ConlluError> for ParserError {
    fn from(e: crate::conllu::ConlluError) -> Self {
        match e.kind {
            crate::conllu::ErrorKind::Stream(_) => ParserError::Io(e.to_string()),
            _ => ParserError::Conllu { file: e.file.to_string(), line: e.line, reason: e.kind.to_string() },
        }
    }
}

/// How option names are written in messages: `--explore-p 2` on the
/// command line, `explore_p=2` from Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OptionStyle {
    #[default]
    CommandLine,
    Python,
}

impl OptionStyle {
    /// The option `name` (written with `-`): `--name` or `name`.
    pub fn name(self, name: &str) -> String {
        match self {
            OptionStyle::CommandLine => format!("--{name}"),
            OptionStyle::Python => name.replace('-', "_"),
        }
    }

    /// The option `name` given `value` (a number, or a word in `quoted`
    /// form): `--name value` or `name=value` (`name="value"`).
    pub fn given(self, name: &str, value: &str, quoted: bool) -> String {
        match self {
            OptionStyle::CommandLine => format!("--{name} {value}"),
            OptionStyle::Python if quoted => format!("{}=\"{value}\"", name.replace('-', "_")),
            OptionStyle::Python => format!("{}={value}", name.replace('-', "_")),
        }
    }

    /// A flag that was given: `--name` or `name=True`.
    pub fn flag(self, name: &str) -> String {
        match self {
            OptionStyle::CommandLine => format!("--{name}"),
            OptionStyle::Python => format!("{}=True", name.replace('-', "_")),
        }
    }
}

/// The text of [`ParserError::ModelSize`].
fn model_size_message(
    system: crate::oracle::System,
    expected: u64,
    found: u64,
    sized_for: &[crate::oracle::System],
) -> String {
    match sized_for {
        [first, rest @ ..] => {
            let others: String = rest.iter().map(|s| format!(" or {s}")).collect();
            format!(
                "the model file is corrupt: its header says `system {system}`, but its tables have the size of an {first}{others} model (the header was changed)"
            )
        }
        [] if found < expected => {
            format!("the model file is truncated: its header states {expected} bytes, the file has {found}")
        }
        [] => format!(
            "the model file is corrupt: its header states {expected} bytes, the file has {found} (trailing bytes after the checksum)"
        ),
    }
}

impl ParserError {
    /// [`ParserError::NeedsProjective`] for `system` trained with the
    /// static oracle (`static_oracle`) or with `algorithm`: what needs
    /// projective trees, and only the remedies that apply to it.
    pub(crate) fn needs_projective(
        file: &str,
        line: usize,
        system: crate::oracle::System,
        static_oracle: bool,
        algorithm: crate::oracle::Algorithm,
        style: OptionStyle,
    ) -> ParserError {
        let projectivize =
            format!("{} or {}", style.given("projectivize", "optimal|lift", true), style.flag("skip-nonprojective"));
        let cubic = style.given("algorithm", "cubic|auto", true);
        let (needs, fix) = if system == crate::oracle::System::LrSpine {
            (format!("{system}'s oracle"), projectivize)
        } else if static_oracle {
            ("the static oracle".to_owned(), format!("{projectivize}, or the dynamic oracle with {cubic}"))
        } else {
            (format!("the {} algorithm", algorithm.name()), format!("{projectivize}, or {cubic}"))
        };
        ParserError::NeedsProjective { file: file.to_owned(), line, needs, fix }
    }
}
