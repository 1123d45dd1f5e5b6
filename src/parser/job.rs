//! The training and parsing jobs: everything between the input files and
//! the model or the output, as `tabula train` / `tabula parse` and Python's
//! `Parser.train` / `Parser.parse` run it. The command line only parses
//! its arguments and prints; Python only converts its arguments and
//! releases the GIL; neither assembles steps.
//!
//! * [`TrainJob`] — [`TrainSettings`] (every option of `tabula train`,
//!   checked once with one message per bad value, named `--x` or `x=`), a
//!   tagger and a model to continue from: read the treebanks, tag them (or
//!   jackknife the training file), encode pseudo-projective labels, train
//!   ([`super::run::train`]: subsampling and projectivization happen in the
//!   trainer), reporting through an [`Observer`];
//! * [`ParseJob`] — [`ParseSettings`] (every option of `tabula parse`), a
//!   model and a tagger: tag, constrain, parse, decode pseudo-projective
//!   labels, write each block ([`ParseJob::parse_batch`]), and the warnings
//!   the totals call for ([`ParseTotals::warnings`]).
//!
//! ```
//! use tabula::parser::job::{ParseJob, ParseSettings, TrainJob, Treebank};
//! use tabula::parser::run::{OptionStyle, TrainSettings};
//! let text = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n";
//! let train = Treebank::from_reader("mem", text.as_bytes());
//! let settings = TrainSettings { epochs: 3, step_bits: 10, label_bits: 8, ..TrainSettings::default() };
//! let job = TrainJob { settings, tagger: None, init: None };
//! let trained = job.run(train, None, OptionStyle::CommandLine, &mut ()).unwrap();
//! assert_eq!(trained.epoch, 3);
//!
//! let (job, notices) =
//!     ParseJob::new(&ParseSettings::default(), &trained.model, "model", None, OptionStyle::CommandLine).unwrap();
//! assert!(notices.is_empty());
//! let blocks = Treebank::from_reader("mem", text.as_bytes()).blocks().unwrap().1;
//! let parsed = job.parse_batch(&blocks, "mem");
//! assert_eq!(parsed[0].as_ref().unwrap().bytes, text.as_bytes());
//! ```

use super::features::FeatureColumns;
use super::run::{
    train, BlockParser, ConstraintKind, InputCounts, Observer, ParsedBlock, SettingsError, TrainSettings, Trained,
};
use super::train::{encode_pseudo_projective, read_gold, GoldSentence};
use super::{Model, OptionStyle, ParserError};
use crate::conllu::RawSentence;
use crate::tagger::{Tagger, TaggerError, TaggerModel};
use rayon::prelude::*;
use std::io::BufRead;
use std::path::Path;

/// Errors of a job: an option, the parser's and the tagger's errors, a
/// file that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Parser(#[from] ParserError),
    #[error(transparent)]
    Tagger(#[from] TaggerError),
    /// A file that cannot be opened or decompressed.
    #[error("{path}: {source}")]
    Open { path: String, source: std::io::Error },
}

/// Opens `path` (`-`: standard input, named `<stdin>`), decompressing xz
/// and gzip; the stream and its name in messages.
pub fn open(path: &Path) -> Result<(Box<dyn BufRead + Send>, String), JobError> {
    if path == Path::new("-") {
        let stdin = std::io::BufReader::new(std::io::stdin());
        let input = crate::conllu::compressed::decompress(stdin)
            .map_err(|source| JobError::Open { path: "<stdin>".into(), source })?;
        return Ok((input, "<stdin>".into()));
    }
    let name = path.display().to_string();
    match crate::conllu::compressed::open(path) {
        Ok(input) => Ok((input, name)),
        Err(source) => Err(JobError::Open { path: name, source }),
    }
}

/// A CoNLL-U input of a job and its name in messages: a stream (a file,
/// standard input) or blocks already read.
pub enum Treebank {
    Reader { name: String, input: Box<dyn BufRead + Send> },
    Blocks { name: String, blocks: Vec<RawSentence> },
}

impl Treebank {
    /// Opens `path` (`-`: standard input, named `<stdin>`), decompressing
    /// xz and gzip.
    pub fn open(path: &Path) -> Result<Treebank, JobError> {
        let (input, name) = open(path)?;
        Ok(Treebank::Reader { name, input })
    }

    /// A stream named `name`.
    pub fn from_reader(name: &str, input: impl BufRead + Send + 'static) -> Treebank {
        Treebank::Reader { name: name.to_owned(), input: Box::new(input) }
    }

    /// The name in messages.
    pub fn name(&self) -> &str {
        match self {
            Treebank::Reader { name, .. } | Treebank::Blocks { name, .. } => name,
        }
    }

    /// The name and every block. O(bytes).
    pub fn blocks(self) -> Result<(String, Vec<RawSentence>), JobError> {
        match self {
            Treebank::Blocks { name, blocks } => Ok((name, blocks)),
            Treebank::Reader { name, input } => {
                let blocks = crate::tagger::train::read_blocks(input, &name)?;
                Ok((name, blocks))
            }
        }
    }

    /// The gold sentences (blocks without words left out), their UPOS (and
    /// FEATS) replaced by `tagger`'s. O(bytes + tagging).
    fn gold(self, tagger: Option<&TaggerModel>) -> Result<(String, Vec<GoldSentence>), JobError> {
        match (self, tagger) {
            (Treebank::Reader { name, input }, None) => {
                let gold = read_gold(input, &name)?;
                Ok((name, gold))
            }
            (treebank, tagger) => {
                let (name, mut blocks) = treebank.blocks()?;
                if let Some(t) = tagger {
                    blocks = tag_blocks(t, &blocks, &name)?;
                }
                let gold = gold_of(&blocks, &name)?;
                Ok((name, gold))
            }
        }
    }
}

/// `blocks` tagged by `tagger` (in parallel on rayon's current pool; the
/// same for any number of threads).
pub fn tag_blocks(tagger: &TaggerModel, blocks: &[RawSentence], file: &str) -> Result<Vec<RawSentence>, TaggerError> {
    blocks
        .par_iter()
        .map_init(
            || Tagger::new(tagger, tagger.options.decode),
            |t, raw| {
                let mut text = Vec::with_capacity(raw.text.len() + 16);
                t.tag_block(raw, file, &mut text)?;
                Ok(RawSentence { text, first_line: raw.first_line })
            },
        )
        .collect()
}

/// The gold sentences of `blocks` (blocks without words left out).
fn gold_of(blocks: &[RawSentence], file: &str) -> Result<Vec<GoldSentence>, ParserError> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        out.extend(GoldSentence::from_raw(b, file)?);
    }
    Ok(out)
}

/// A training job: `tabula train` and Python's `Parser.train`.
pub struct TrainJob<'a> {
    /// Every option of `tabula train`.
    pub settings: TrainSettings,
    /// The tagger whose tags replace the gold UPOS (and FEATS) of the
    /// training and dev data (`--tagger`), and its name in messages.
    pub tagger: Option<(&'a TaggerModel, String)>,
    /// The model to continue from (`--init`), and its name in messages.
    pub init: Option<(Model, String)>,
}

impl TrainJob<'_> {
    /// Checks the settings (messages in `style`), reads `train` and `dev`,
    /// tags them with the tagger (the training file K-fold with
    /// `jackknife`), encodes the pseudo-projective labels, and trains,
    /// telling `observer` as it goes ([`Observer::note`]: the steps in
    /// words). The model kept is that of the best dev LAS, else the last
    /// epoch's. O(epochs × training).
    pub fn run(
        self,
        train_data: Treebank,
        dev: Option<Treebank>,
        style: OptionStyle,
        observer: &mut dyn Observer,
    ) -> Result<Trained, JobError> {
        let settings = &self.settings;
        let options = settings.resolve(style)?;
        if let (Some(_), None) = (settings.jackknife, &self.tagger) {
            return Err(SettingsError(format!(
                "{} tags the training file with taggers trained like {}: give {}",
                style.given("jackknife", "K", false),
                style.given("tagger", "TAGGER", false),
                style.name("tagger")
            ))
            .into());
        }
        if let Some((init, name)) = &self.init {
            if init.pseudo_projective != settings.pseudo_projective {
                let scheme =
                    |s: Option<crate::projectivize::pseudo::Scheme>| s.map_or("none".into(), |s| s.to_string());
                return Err(SettingsError(format!(
                    "{} {name}: the model was trained with pseudo-projective labels {}, this training asks for {}",
                    style.name("init"),
                    scheme(init.pseudo_projective),
                    scheme(settings.pseudo_projective)
                ))
                .into());
            }
        }
        let tagger = self.tagger.as_ref().map(|(t, _)| *t);
        let (name, mut gold) = match (settings.jackknife, &self.tagger) {
            (Some(k), Some((t, tagger_name))) => {
                let (name, blocks) = train_data.blocks()?;
                observer.note(&format!(
                    "{name}: {k}-fold tagging with taggers trained like {tagger_name} ({} epochs, {} decoding)",
                    t.options.epochs, t.options.decode
                ));
                let tagged =
                    crate::tagger::train::jackknife(&blocks, &name, k as usize, &t.options, &mut |f, trained| {
                        observer.note(&format!("  fold {f}/{k}: tagger trained ({} epochs)", trained.epoch))
                    })?;
                let gold = gold_of(&tagged, &name)?;
                (name, gold)
            }
            _ => train_data.gold(tagger)?,
        };
        let dev = dev.map(|d| d.gold(tagger)).transpose()?;
        if let Some((dev_name, d)) = &dev {
            // Scores over no word would pick the epoch to keep blindly.
            if d.iter().all(|s| s.tree.annotated() == 0) {
                return Err(ParserError::DevWithoutTrees { file: dev_name.clone(), option: style.name("dev") }.into());
            }
        }
        if let Some(scheme) = settings.pseudo_projective {
            let moved = encode_pseudo_projective(&mut gold, options.projectivize, scheme, &name)?;
            observer
                .note(&format!("{name}: pseudo-projective ({scheme}): {moved} moved words encoded in their DEPREL"));
        }
        let dev = dev.as_ref().map(|(_, d)| d.as_slice());
        Ok(train(options, settings.epochs, gold, &name, dev, self.init.map(|(m, _)| m), observer)?)
    }
}

/// The options of `tabula parse` (Python's `Parser.parse`) as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSettings {
    /// Beam width (1: greedy; `None`: the model's training width).
    pub beam: Option<u32>,
    /// Keep the arcs the input already has ([`BlockParser::constrained_by`]).
    pub constraints: bool,
    /// What `constraints` keeps.
    pub constraint_kind: ConstraintKind,
    /// Worker threads (the output does not depend on them).
    pub threads: u32,
    /// The longest sentence parsed: a longer one is an error naming its
    /// line ([`DEFAULT_PARSE_MAX_WORDS`]).
    pub max_words: usize,
}

/// The default of `tabula parse --max-words` (Python's `max_words`): far
/// beyond any sentence of a treebank, and a bound on the time and memory of
/// one sentence (the beam's per-sentence tables grow with it).
pub const DEFAULT_PARSE_MAX_WORDS: usize = 10_000;

impl Default for ParseSettings {
    fn default() -> Self {
        ParseSettings {
            beam: None,
            constraints: false,
            constraint_kind: ConstraintKind::Arcs,
            threads: 1,
            max_words: DEFAULT_PARSE_MAX_WORDS,
        }
    }
}

/// A line a job tells its user before any work: a warning (the command
/// line prefixes `warning: `; Python raises a `UserWarning` for every
/// notice), or a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub warning: bool,
    pub text: String,
}

impl ParseSettings {
    /// The settings' own ranges: the beam width, at least one thread and
    /// one word, `constraint_kind` only with `constraints`.
    pub fn check(&self, style: OptionStyle) -> Result<(), JobError> {
        if let Some(b) = self.beam.filter(|b| !(1..=super::run::MAX_BEAM).contains(b)) {
            return Err(SettingsError(format!(
                "{}: the beam width is 1 to {}",
                style.given("beam", &b.to_string(), false),
                super::run::MAX_BEAM
            ))
            .into());
        }
        if self.threads == 0 {
            return Err(SettingsError(format!("{}: at least one thread", style.given("threads", "0", false))).into());
        }
        if self.max_words == 0 {
            return Err(
                SettingsError(format!("{}: no sentence is that short", style.given("max-words", "0", false))).into()
            );
        }
        if self.constraint_kind != ConstraintKind::Arcs && !self.constraints {
            return Err(SettingsError(format!(
                "{} says what {} keeps; add {}",
                style.given("constraint-kind", self.constraint_kind.name(), true),
                style.name("constraints"),
                style.flag("constraints")
            ))
            .into());
        }
        Ok(())
    }
}

/// The notices of parsing with `tagger`'s tags a model that reads
/// `columns`: each column the model reads and the tagger does not predict.
pub fn tagger_notices(
    columns: FeatureColumns,
    model_name: &str,
    t: &TaggerModel,
    tagger_name: &str,
    style: OptionStyle,
) -> Vec<Notice> {
    let mut notices = Vec::new();
    if columns.feats && t.feats.is_none() {
        notices.push(Notice {
                warning: true,
                text: format!(
                    "{model_name} was trained with {}, {tagger_name} predicts UPOS only: the input's FEATS are used as they are",
                    style.flag("feats")
                ),
            });
    }
    for (read, column) in columns.named().into_iter().skip(1) {
        if read {
            notices.push(Notice {
                    warning: true,
                    text: format!(
                        "{model_name} was trained with {}, which the tagger does not predict: the input's {column} is used as it is",
                        style.flag(&column.to_ascii_lowercase())
                    ),
                });
        }
    }
    notices
}

/// A parsing job: `tabula parse` and Python's `Parser.parse`. Cheap to
/// share between threads; each thread parses with its own [`ParseWorker`].
pub struct ParseJob<'a> {
    model: &'a Model,
    tagger: Option<&'a TaggerModel>,
    width: usize,
    constraints: Option<ConstraintKind>,
    max_words: usize,
    style: OptionStyle,
}

impl<'a> ParseJob<'a> {
    /// Checks `settings` against `model` (messages in `style`): the beam
    /// width and threads in range, the constraints offered for the model's
    /// system; and the notices: a beam other than the training one, columns
    /// the model reads that `tagger` does not predict. `model_name` and the
    /// tagger's name are those of the messages. O(1).
    pub fn new(
        settings: &ParseSettings,
        model: &'a Model,
        model_name: &str,
        tagger: Option<(&'a TaggerModel, &str)>,
        style: OptionStyle,
    ) -> Result<(ParseJob<'a>, Vec<Notice>), JobError> {
        settings.check(style)?;
        let mut notices = tagger
            .map_or_else(Vec::new, |(t, tagger_name)| tagger_notices(model.columns, model_name, t, tagger_name, style));
        let width = settings.beam.unwrap_or(model.beam) as usize;
        if width != model.beam as usize {
            notices.push(Notice {
                warning: false,
                text: format!("{model_name}: trained with a beam of {}, parsing with a beam of {width}", model.beam),
            });
        }
        let constraints = settings.constraints.then_some(settings.constraint_kind);
        if let Some(kind) = constraints {
            // A model of a system without a partial-tree oracle: said before any input is read.
            BlockParser::constrained_by(model, width, kind)?;
        }
        let max_words = settings.max_words;
        Ok((ParseJob { model, tagger: tagger.map(|(t, _)| t), width, constraints, max_words, style }, notices))
    }

    /// The beam width parsed with.
    pub fn width(&self) -> usize {
        self.width
    }

    /// A parser for one thread.
    pub fn worker(&self) -> ParseWorker<'a> {
        let parser = match self.constraints {
            // Checked in `new`.
            Some(kind) => BlockParser::constrained_by(self.model, self.width, kind)
                .unwrap_or_else(|_| BlockParser::new(self.model, self.width)),
            None => BlockParser::new(self.model, self.width),
        };
        ParseWorker {
            parser,
            tagger: self.tagger.map(|t| Tagger::new(t, t.options.decode)),
            max_words: self.max_words,
            style: self.style,
        }
    }

    /// Each block of `blocks` (read from `file`) parsed, in parallel on
    /// rayon's current pool, in input order; the output does not depend on
    /// the number of threads.
    pub fn parse_batch(&self, blocks: &[RawSentence], file: &str) -> Vec<Result<ParsedBlock, JobError>> {
        blocks.par_iter().map_init(|| self.worker(), |w, raw| w.parse(raw, file)).collect()
    }
}

/// One thread's parser of a [`ParseJob`] (and its tagger).
pub struct ParseWorker<'a> {
    parser: BlockParser<'a>,
    tagger: Option<Tagger<'a>>,
    max_words: usize,
    style: OptionStyle,
}

impl ParseWorker<'_> {
    /// The block tagged (with a tagger), parsed under the constraints, its
    /// labels decoded, written ([`BlockParser::parse`]).
    /// A sentence longer than the job's `max_words` is an error naming its
    /// first line (nothing of it is written).
    pub fn parse(&mut self, raw: &RawSentence, file: &str) -> Result<ParsedBlock, JobError> {
        let text = &raw.text;
        let words = crate::conllu::fields::field_lines(text).filter(|l| l.is_word(text)).count();
        if words > self.max_words {
            return Err(ParserError::Conllu {
                file: file.to_owned(),
                line: raw.first_line,
                reason: format!(
                    "a sentence of {words} words, longer than {}",
                    self.style.given("max-words", &self.max_words.to_string(), false)
                ),
            }
            .into());
        }
        match &mut self.tagger {
            Some(t) => {
                let mut text = Vec::with_capacity(raw.text.len() + 16);
                t.tag_block(raw, file, &mut text)?;
                Ok(self.parser.parse(&RawSentence { text, first_line: raw.first_line }, file)?)
            }
            None => Ok(self.parser.parse(raw, file)?),
        }
    }
}

/// What a parsing job read, for its summary and warnings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseTotals {
    pub sentences: u64,
    pub tokens: u64,
    /// Words without UPOS.
    pub no_upos: u64,
    /// Words whose FEATS, LEMMA, XPOS are `_` ([`FeatureColumns::named`]'s order).
    pub blank: [u64; 3],
}

impl ParseTotals {
    /// Counts one parsed block (blocks without words count nothing).
    pub fn add(&mut self, parsed: &ParsedBlock) {
        self.count(&parsed.input);
    }

    /// Counts one block's input (blocks without words count nothing).
    pub fn count(&mut self, input: &InputCounts) {
        if input.words > 0 {
            self.sentences += 1;
            self.tokens += input.words as u64;
            self.no_upos += input.no_upos as u64;
            for (sum, b) in self.blank.iter_mut().zip(input.blank) {
                *sum += b as u64;
            }
        }
    }

    /// The warnings of the input as a whole (`file`: its name, or none):
    /// words without UPOS, a column the model reads (`columns`, besides
    /// FORM and UPOS) that is `_` everywhere; `model_name` and `style` say
    /// the model and its option in the message.
    pub fn warnings(
        &self,
        file: Option<&str>,
        columns: FeatureColumns,
        model_name: &str,
        style: OptionStyle,
    ) -> Vec<String> {
        let prefix = file.map_or(String::new(), |f| format!("{f}: "));
        let mut out = Vec::new();
        if self.no_upos > 0 {
            out.push(format!(
                "{prefix}{} of {} words have no UPOS (`_`); the model reads UPOS",
                self.no_upos, self.tokens
            ));
        }
        for ((read, column), blank) in columns.named().into_iter().zip(self.blank) {
            // Some treebanks have no features (or lemmas) at all: a warning, not an error.
            if read && self.tokens > 0 && blank == self.tokens {
                out.push(format!(
                    "{prefix}every {column} is `_`, but {model_name} was trained with {}: if the treebank has \
                     {}, add them first (accuracy suffers without them)",
                    style.flag(&column.to_ascii_lowercase()),
                    FeatureColumns::content(column)
                ));
            }
        }
        out
    }
}

impl ConstraintKind {
    /// The name `--constraint-kind` takes.
    pub fn name(self) -> &'static str {
        match self {
            ConstraintKind::Arcs => "arcs",
            ConstraintKind::Direction => "direction",
        }
    }
}

impl std::str::FromStr for ConstraintKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "arcs" => Ok(ConstraintKind::Arcs),
            "direction" => Ok(ConstraintKind::Direction),
            _ => Err(format!("unknown constraint kind `{s}` (arcs or direction)")),
        }
    }
}
