//! Training and parsing runs as users start them, shared by `tabula train`
//! / `tabula parse` and the Python package: the options as given
//! ([`TrainSettings`], checked once into [`TrainOptions`]: an option that
//! has no effect in the mode chosen is an error), the epochs with the
//! choice of the model to keep ([`train`]: the best dev LAS, else the last
//! epoch), and the parsing of one CoNLL-U block ([`BlockParser`]: HEAD and
//! DEPREL filled, every other byte kept).
//!
//! ```
//! use tabula::parser::run::{train, OptionStyle, TrainSettings};
//! use tabula::parser::train::read_gold;
//! let text = "1\tDogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n";
//! let gold = read_gold(text.as_bytes(), "mem").unwrap();
//! let settings = TrainSettings { epochs: 3, step_bits: 10, label_bits: 8, ..TrainSettings::default() };
//! let options = settings.resolve(OptionStyle::CommandLine).unwrap();
//! let trained = train(options, settings.epochs, gold, "mem", None, None, &mut ()).unwrap();
//! assert_eq!(trained.epoch, 3);
//!
//! let bad = TrainSettings { beam: 1, restart: true, ..TrainSettings::default() };
//! assert!(bad.resolve(OptionStyle::Python).unwrap_err().to_string().starts_with("restart=True: "));
//! ```

use super::beam::{BeamParser, Constraints};
use super::columns::{Columns, Word};
use super::eval::{counted, Counts};
use super::features::{FeatureColumns, Tokens};
use super::global::{Search, Update};
use super::train::{attachment, EpochStats, GoldSentence, OracleKind, Prepared, Projectivize, TrainOptions, Trainer};
pub use super::OptionStyle;
use super::{AnyParser, Model, ParserError};
use crate::conllu::RawSentence;
use crate::oracle::direction::Direction;
use crate::oracle::{Algorithm, Root, Strategy, System};
use crate::projectivize::pseudo;
use crate::tree::DepTree;

/// A training option that is out of range, or has no effect in the mode
/// chosen. The message names the options as the user wrote them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(pub String);

/// The largest beam width.
pub const MAX_BEAM: u32 = 1024;
/// The range of `step_bits`.
pub const STEP_BITS: std::ops::RangeInclusive<u32> = 4..=28;
/// The range of `label_bits`.
pub const LABEL_BITS: std::ops::RangeInclusive<u32> = 4..=26;

/// Training options as given, before they are checked: `None` is "not
/// given" (the default of the mode applies). The defaults are those of
/// `tabula train`.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainSettings {
    pub system: System,
    pub oracle: OracleKind,
    /// The dynamic oracle's algorithm (default: auto).
    pub algorithm: Option<Algorithm>,
    /// The dynamic oracle's strategy (default: lbr; none for lr-spine and attardi).
    pub strategy: Option<Strategy>,
    /// Attardi: the tabular oracle's limit on |γ|.
    pub max_gamma: Option<usize>,
    /// Attardi: the tabular oracle's budget of one call, in pairs of items.
    pub max_pairs: Option<u64>,
    /// What to do with non-projective trees (default: optimal).
    pub projectivize: Option<Projectivize>,
    pub skip_nonprojective: bool,
    /// The columns the features read beyond FORM and UPOS.
    pub columns: FeatureColumns,
    pub epochs: usize,
    /// 1: greedy, local updates; 2 or more: beam search, global updates.
    pub beam: u32,
    /// Beam: the global update (default: early).
    pub update: Option<Update>,
    pub restart: bool,
    pub beam_labels: Option<u32>,
    /// Greedy dynamic training: epochs before exploration (default 1).
    pub explore_from: Option<usize>,
    /// Greedy dynamic training: probability of exploring (default 0.9).
    pub explore_p: Option<f64>,
    pub seed: u64,
    pub step_bits: u32,
    pub label_bits: u32,
    /// Where the root is (default: first; last: arc-hybrid and arc-eager).
    pub root: Option<Root>,
    /// Keep each gold arc with this probability (`None`: all; partial
    /// trees, [`TrainOptions::subsample`]).
    pub subsample: Option<f64>,
    /// Sentences longer than this are left out (default:
    /// [`DEFAULT_MAX_WORDS`](super::train::DEFAULT_MAX_WORDS), and
    /// [`DEFAULT_MAX_WORDS_TABLE`](super::train::DEFAULT_MAX_WORDS_TABLE)
    /// where the oracle builds a table at every configuration).
    pub max_words: Option<usize>,
    /// Pseudo-projective labels (Nivre & Nilsson 2005): the DEPRELs of the
    /// words that `projectivize` moves encode the move
    /// ([`encode_pseudo_projective`](super::train::encode_pseudo_projective)).
    pub pseudo_projective: Option<pseudo::Scheme>,
    /// K-fold tagging of the training file with taggers trained like the
    /// job's tagger ([`TrainJob`](super::job::TrainJob)); 2 to [`MAX_FOLDS`].
    pub jackknife: Option<u32>,
}

/// The most folds of `jackknife`.
pub const MAX_FOLDS: u32 = 100;

impl Default for TrainSettings {
    fn default() -> Self {
        let o = TrainOptions::default();
        TrainSettings {
            system: o.system,
            oracle: o.oracle,
            algorithm: None,
            strategy: None,
            max_gamma: None,
            max_pairs: None,
            projectivize: None,
            skip_nonprojective: false,
            columns: FeatureColumns::NONE,
            epochs: 10,
            beam: 1,
            update: None,
            restart: false,
            beam_labels: None,
            explore_from: None,
            explore_p: None,
            seed: o.seed,
            step_bits: o.step_bits,
            label_bits: o.label_bits,
            root: None,
            max_words: None,
            subsample: None,
            pseudo_projective: None,
            jackknife: None,
        }
    }
}

/// The name of a projectivization mode, as the options write it.
pub fn projectivize_name(p: Projectivize) -> &'static str {
    match p {
        Projectivize::None => "none",
        Projectivize::Optimal => "optimal",
        Projectivize::Lift => "lift",
    }
}

impl TrainSettings {
    /// Checks the settings and gives the options of the trainer: ranges
    /// (beam width, table sizes, probabilities), and every option that has
    /// no effect in the mode chosen is an error (`--algorithm` with the
    /// static oracle, `--update` with a beam of 1, …). Messages name the
    /// options in `style`. O(1).
    pub fn resolve(&self, style: OptionStyle) -> Result<TrainOptions, SettingsError> {
        let fail = |m: String| Err(SettingsError(m));
        if !(1..=MAX_BEAM).contains(&self.beam) {
            return fail(format!(
                "{}: the beam width is 1 to {MAX_BEAM}",
                style.given("beam", &self.beam.to_string(), false)
            ));
        }
        for (name, value, range) in
            [("step-bits", self.step_bits, STEP_BITS), ("label-bits", self.label_bits, LABEL_BITS)]
        {
            if !range.contains(&value) {
                return fail(format!(
                    "{}: log2 of the table's rows is {} to {}",
                    style.given(name, &value.to_string(), false),
                    range.start(),
                    range.end()
                ));
            }
        }
        if let Some(m) = self.beam_labels {
            let limit = super::beam::MAX_BEAM_LABELS as u32;
            if !(1..=limit).contains(&m) {
                return fail(format!(
                    "{}: 1 to {limit} labels per step",
                    style.given("beam-labels", &m.to_string(), false)
                ));
            }
        }
        if self.epochs == 0 {
            return fail(format!("{}: nothing trained", style.given("epochs", "0", false)));
        }
        if self.oracle == OracleKind::Static {
            for (given, name) in [(self.algorithm.is_some(), "algorithm"), (self.strategy.is_some(), "strategy")] {
                if given {
                    return fail(format!(
                        "{} applies to the dynamic oracle ({}); the static oracle follows the canonical computation",
                        style.name(name),
                        style.given("oracle", "dynamic", true)
                    ));
                }
            }
        }
        if self.skip_nonprojective {
            if let Some(p) = self.projectivize {
                return fail(format!(
                    "{}: with {} no tree is left to projectivize",
                    style.given("projectivize", projectivize_name(p), true),
                    style.flag("skip-nonprojective")
                ));
            }
        }
        let explores = self.oracle == OracleKind::Dynamic && self.beam == 1;
        for (given, name) in [(self.explore_from.is_some(), "explore-from"), (self.explore_p.is_some(), "explore-p")] {
            if given && !explores {
                return fail(format!(
                    "{}: exploration is part of greedy training with the dynamic oracle ({} {}); {}",
                    style.name(name),
                    style.given("oracle", "dynamic", true),
                    style.given("beam", "1", false),
                    if self.beam > 1 {
                        "a beam explores by keeping the wrong hypotheses it scores best"
                    } else {
                        "the static oracle follows the gold computation"
                    }
                ));
            }
        }
        let explore_from = self.explore_from.unwrap_or(1);
        let explore_p = self.explore_p.unwrap_or(0.9);
        if !(0.0..=1.0).contains(&explore_p) {
            return fail(format!("{} {explore_p} is not a probability", style.name("explore-p")));
        }
        if explores && explore_from >= self.epochs {
            // Epochs after the first `explore_from` explore: none of these.
            if let Some(name) = [(self.explore_p.is_some(), "explore-p"), (self.explore_from.is_some(), "explore-from")]
                .into_iter()
                .find_map(|(given, name)| given.then_some(name))
            {
                return fail(format!(
                    "{}: no epoch explores: exploration starts after epoch {explore_from} and {} stops before",
                    style.name(name),
                    style.given("epochs", &self.epochs.to_string(), false)
                ));
            }
        }
        let two = style.given("beam", "2", false);
        let search = if self.beam == 1 {
            if let Some(u) = self.update {
                return fail(format!(
                    "{}: with {} training is local (an update at every wrong step); global updates need {two} or more",
                    style.given("update", u.name(), true),
                    style.given("beam", "1", false),
                ));
            }
            if self.restart {
                return fail(format!(
                    "{}: with {} training restarts after every update already; it needs {two} or more",
                    style.flag("restart"),
                    style.given("beam", "1", false),
                ));
            }
            if let Some(m) = self.beam_labels {
                return fail(format!(
                    "{}: with {} no labels compete for a beam; it needs {two} or more",
                    style.given("beam-labels", &m.to_string(), false),
                    style.given("beam", "1", false),
                ));
            }
            Search::Greedy
        } else {
            if self.restart && self.update == Some(Update::Full) {
                return fail(format!(
                    "{}: {} updates on the whole computations, so there is nothing to restart from; \
                     restart applies to early and max-violation updates",
                    style.flag("restart"),
                    style.given("update", "full", true),
                ));
            }
            Search::Beam {
                width: self.beam as usize,
                update: self.update.unwrap_or_default(),
                restart: self.restart,
                labels: self.beam_labels.map(|m| m as usize),
            }
        };
        if let Some(scheme) = self.pseudo_projective {
            let moves_none = match self.projectivize {
                _ if self.skip_nonprojective => Some(style.flag("skip-nonprojective")),
                Some(Projectivize::None) => Some(style.given("projectivize", "none", true)),
                _ => None,
            };
            if let Some(other) = moves_none {
                return fail(format!(
                    "{} encodes the moves of {} optimal or lift; {other} moves no word",
                    style.given("pseudo-projective", &scheme.to_string(), true),
                    style.name("projectivize")
                ));
            }
        }
        if let Some(k) = self.jackknife {
            if !(2..=MAX_FOLDS).contains(&k) {
                return fail(format!(
                    "{}: K-fold tagging needs 2 to {MAX_FOLDS} folds",
                    style.given("jackknife", &k.to_string(), false)
                ));
            }
        }
        if self.max_words == Some(0) {
            return fail(format!("{}: no sentence is that short", style.given("max-words", "0", false)));
        }
        let system = self.system;
        let root = self.root.unwrap_or(Root::First);
        if !root.offered(system) {
            return fail(format!(
                "{}: the root in last position is offered for arc-hybrid and arc-eager, not {system}",
                style.given("root", root.name(), true)
            ));
        }
        if let Some(p) = self.subsample {
            if !(p > 0.0 && p <= 1.0) {
                return fail(format!(
                    "{} must be in (0, 1], the share of gold arcs kept",
                    style.given("subsample", &p.to_string(), false)
                ));
            }
            let exact = match system {
                System::ArcStandard | System::ArcHybrid | System::ArcEager => {
                    matches!(self.algorithm, None | Some(Algorithm::Auto | Algorithm::Cubic))
                }
                System::ArcEagerNm => matches!(self.algorithm, None | Some(Algorithm::Auto | Algorithm::Tabular)),
                System::LrSpine | System::Attardi => false,
            };
            if self.oracle == OracleKind::Static || !exact {
                return fail(format!(
                    "{} makes partial trees, which only the dynamic oracles of arc-standard, arc-hybrid and arc-eager (their cubic oracles) and of arc-eager-nm (its table) score",
                    style.name("subsample")
                ));
            }
        }
        for (name, given) in [("max-gamma", self.max_gamma.is_some()), ("max-pairs", self.max_pairs.is_some())] {
            if given && system != System::Attardi {
                return fail(format!(
                    "{} applies to {} only (its tabular oracle), not {system}",
                    style.name(name),
                    style.given("system", "attardi", true)
                ));
            }
        }
        if self.max_pairs == Some(0) {
            return fail(format!("{} must be at least 1", style.name("max-pairs")));
        }
        if let (Some(s), System::ArcHybrid | System::ArcEager) = (self.strategy, system) {
            return fail(format!(
                "{}: {system}'s computations give every word its left children before its right ones, \
                 so its strategies are all one; the option would do nothing",
                style.given("strategy", s.name(), true)
            ));
        }
        let strategy = match self.strategy {
            Some(s) => s,
            None if matches!(system, System::LrSpine | System::Attardi | System::ArcEagerNm) => Strategy::None,
            None => Strategy::Lbr,
        };
        Ok(TrainOptions {
            system,
            oracle: self.oracle,
            algorithm: self.algorithm.unwrap_or(Algorithm::Auto),
            strategy,
            projectivize: self.projectivize.unwrap_or_default(),
            skip_nonprojective: self.skip_nonprojective,
            columns: self.columns,
            explore_from,
            explore_p,
            seed: self.seed,
            step_bits: self.step_bits,
            label_bits: self.label_bits,
            max_gamma: self.max_gamma.unwrap_or(crate::oracle::attardi::tabular::DEFAULT_MAX_GAMMA),
            max_pairs: self.max_pairs,
            search,
            root,
            pseudo_projective: self.pseudo_projective,
            style,
            max_words: self.max_words,
            subsample: self.subsample,
        })
    }
}

/// What [`train`] reports after each epoch.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub stats: EpochStats,
    /// The dev scores of the averaged model after the epoch (with a dev set).
    pub dev: Option<Counts>,
    /// Whether this epoch's model is the best so far (the one kept, if no
    /// later one is better).
    pub best: bool,
    /// The line `tabula train` prints for the epoch (Python's `verbose=True` too).
    pub text: String,
}

/// The line of an epoch of `epochs`: its figures, and the dev scores.
fn epoch_text(stats: &EpochStats, dev: Option<Counts>, best: bool, epochs: usize, search: Search) -> String {
    let mut line = format!(
        "epoch {}/{epochs}: {} tokens in {:.2} s ({:.0} tokens/s), ",
        stats.epoch,
        stats.tokens,
        stats.seconds,
        stats.tokens as f64 / stats.seconds.max(1e-9),
    );
    match search {
        Search::Greedy => line.push_str(&format!(
            "step errors {:.2}%, label errors {}, explored {}",
            100.0 * stats.step_errors as f64 / (stats.configurations.max(1)) as f64,
            stats.label_errors,
            stats.explored
        )),
        Search::Beam { .. } => line.push_str(&format!(
            "{} updates ({:.2} per sentence), {} hypotheses expanded",
            stats.updates,
            stats.updates as f64 / stats.sentences.max(1) as f64,
            stats.configurations
        )),
    }
    if stats.beyond_depth > 0 {
        line.push_str(&format!(", beyond spine depth {}", stats.beyond_depth));
    }
    if stats.abandoned > 0 {
        line.push_str(&format!(", abandoned {} (oracle size limits)", stats.abandoned));
    }
    if let Some(c) = dev {
        line.push_str(&format!("; dev UAS {:.2} LAS {:.2}", c.uas(), c.las()));
        if best {
            line.push_str(" (best)");
        }
    }
    line
}

/// What was done to the training data of `file` and how it trains, in
/// lines: sentences left out, the data, the regime.
fn describe(file: &str, o: &TrainOptions, trainer: &Trainer) -> Vec<String> {
    let (system, oracle, algorithm, explore_p) = (o.system, o.oracle, o.algorithm, o.explore_p);
    let p = trainer.prepared();
    let mut lines = Vec::new();
    if p.too_long > 0 {
        lines.push(format!(
            "{file}: left out {} {} longer than {} ({})",
            p.too_long,
            if p.too_long == 1 { "sentence" } else { "sentences" },
            match o.max_words {
                Some(n) => format!("{n} words"),
                None => format!(
                    "{} words, or {} where the oracle builds a table at every configuration",
                    super::train::DEFAULT_MAX_WORDS,
                    super::train::DEFAULT_MAX_WORDS_TABLE
                ),
            },
            o.style.name("max-words")
        ));
    }
    if p.outside_class + p.too_large > 0 {
        lines.push(format!(
            "{file}: left out {} {system} cannot build and {} beyond the tabular oracle's limit ({})",
            if p.outside_class == 1 { "1 tree".to_string() } else { format!("{} trees", p.outside_class) },
            p.too_large,
            o.style.given("max-gamma", &o.max_gamma.to_string(), false)
        ));
    }
    if let (true, Some(limit)) = (p.over_budget > 0, o.max_pairs) {
        lines.push(format!(
            "{file}: left out {} past the tabular oracle's budget ({})",
            if p.over_budget == 1 { "1 tree".to_string() } else { format!("{} trees", p.over_budget) },
            o.style.given("max-pairs", &limit.to_string(), false)
        ));
    }
    let partial = match p.partial {
        0 => String::new(),
        k => format!("{k} partial ({} of their words annotated); ", p.annotated),
    };
    lines.push(format!(
        "{file}: {}, {}, {}; {partial}{} non-projective ({} skipped, {} heads changed); {system}, {}",
        counted(p.sentences as u64, "sentence"),
        counted(p.tokens, "token"),
        counted(trainer.labels().len() as u64, "label"),
        p.nonprojective,
        p.skipped,
        p.changed_heads,
        match (oracle, o.search) {
            (OracleKind::Static, Search::Greedy) => "static oracle, greedy".to_owned(),
            (OracleKind::Dynamic, Search::Greedy) => format!(
                "dynamic oracle ({algorithm}), greedy, exploring from epoch {} with p = {explore_p}",
                o.explore_from + 1
            ),
            (_, Search::Beam { width, update, restart, labels }) => format!(
                "{} oracle{}, beam {width}{}, {} update{}",
                if oracle == OracleKind::Static { "static" } else { "global dynamic" },
                if oracle == OracleKind::Dynamic { format!(" ({algorithm})") } else { String::new() },
                labels.map_or(String::new(), |m| format!(" ({m} labels per step)")),
                update.name(),
                if restart { " with restart" } else { "" }
            ),
        }
    ));
    lines
}

/// The result of [`train`].
#[derive(Clone, Debug)]
pub struct Trained {
    pub model: Model,
    /// The epoch of the model kept (1-based).
    pub epoch: usize,
    /// Its dev scores (with a dev set).
    pub dev: Option<Counts>,
    /// What was done to the training data.
    pub prepared: Prepared,
}

/// What [`train`] tells its caller as it goes; every method does nothing
/// by default (`&mut ()` observes nothing).
pub trait Observer {
    /// The training data is ready (projectivized, labels collected): before the first epoch.
    fn prepared(&mut self, _trainer: &Trainer) {}
    /// A line about the work under way, in words (the data read, the folds
    /// of jackknifing, the labels encoded); the command line prints it on
    /// standard error, Python with `verbose=True`.
    fn note(&mut self, _text: &str) {}
    /// A training sentence of `tokens` tokens was done in epoch `epoch` (1-based).
    fn progress(&mut self, _epoch: usize, _tokens: u64) {}
    /// An epoch ended.
    fn epoch(&mut self, _report: &EpochReport) {}
}

impl Observer for () {}

/// Trains for `epochs` epochs from a zero model, or continues from `init`
/// ([`Trainer::from_model`]), and keeps the model of the best dev LAS
/// (UAS breaks ties; the earliest epoch wins a tie), or of the last epoch
/// without `dev` (0 epochs: the starting model). `file` names the
/// training data in errors. The dev set is parsed on rayon's current
/// pool; the model does not depend on its size. Errors as
/// [`Trainer::new`]. O(epochs × training).
pub fn train(
    options: TrainOptions,
    epochs: usize,
    data: Vec<GoldSentence>,
    file: &str,
    dev: Option<&[GoldSentence]>,
    init: Option<Model>,
    observer: &mut dyn Observer,
) -> Result<Trained, ParserError> {
    let given = options.clone();
    let mut trainer = match init {
        Some(model) => Trainer::from_model(options, data, file, model)?,
        None => Trainer::new(options, data, file)?,
    };
    observer.prepared(&trainer);
    for line in describe(file, &given, &trainer) {
        observer.note(&line);
    }
    let mut best: Option<(f64, f64, usize, Option<Counts>, Model)> = None;
    for e in 1..=epochs {
        let stats = trainer.epoch(&mut |t| observer.progress(e, t))?;
        let model = trainer.model();
        let counts = dev.map(|d| attachment(&model, d)).transpose()?;
        let (uas, las) = counts.map_or((0.0, e as f64), |c| (c.uas(), c.las()));
        let better = best.as_ref().is_none_or(|b| (las, uas) > (b.1, b.0));
        let text = epoch_text(&stats, counts, better, epochs, given.search);
        observer.epoch(&EpochReport { stats, dev: counts, best: better, text });
        if better {
            best = Some((uas, las, e, counts, model));
        }
    }
    let (epoch, dev, model) = match best {
        Some((_, _, epoch, dev, model)) => (epoch, dev, model),
        None => (0, dev.map(|d| attachment(&trainer.model(), d)).transpose()?, trainer.model()),
    };
    Ok(Trained { model, epoch, dev, prepared: trainer.prepared().clone() })
}

/// The constraints of a block's HEAD and DEPREL columns: `_` leaves a
/// head or a label free; a DEPREL must be one of the model's labels.
fn read_constraints(model: &Model, cols: &Columns, text: &[u8], file: &str) -> Result<Constraints, ParserError> {
    let tree = cols.partial_heads(text, file)?;
    let labels = cols
        .words
        .iter()
        .map(|w| match &text[w.deprel.clone()] {
            b"_" => Ok(None),
            l => match model.labels.binary_search_by(|x| x.as_bytes().cmp(l)) {
                Ok(i) => Ok(Some(i as u32)),
                Err(_) => Err(ParserError::Conllu {
                    file: file.to_owned(),
                    line: w.line,
                    reason: format!(
                        "DEPREL `{}` is not a label of the model (write `_` to leave the label free)",
                        String::from_utf8_lossy(l)
                    ),
                }),
            },
        })
        .collect::<Result<_, _>>()?;
    Ok(Constraints { tree, labels })
}

/// The direction constraints of a block's words into `out`: from each
/// word's HEAD, the root (0), a word before it or a word after it; `_`
/// leaves the word free. Errors name `file` and the line. O(n).
fn read_directions(
    cols: &Columns,
    text: &[u8],
    file: &str,
    out: &mut Vec<Option<Direction>>,
) -> Result<(), ParserError> {
    let n = cols.words.len();
    out.clear();
    for (i, w) in cols.words.iter().enumerate() {
        let field = &text[w.head.clone()];
        let head = std::str::from_utf8(field).ok().and_then(|s| s.parse::<usize>().ok());
        let d = i + 1;
        out.push(match head {
            _ if field == b"_" => None,
            Some(h) if h <= n && h != d => Some(Direction::of(h, d, 0)),
            _ => {
                return Err(ParserError::Conllu {
                    file: file.to_owned(),
                    line: w.line,
                    reason: format!(
                    "HEAD `{}`: a direction constraint is a HEAD in 0..={n} other than the word itself (0: the root, \
                         before it: a head before it, after it: a head after it), or `_`",
                    String::from_utf8_lossy(field)
                ),
                })
            }
        });
    }
    Ok(())
}

/// What [`BlockParser::parse`] gives for one block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedBlock {
    /// The block with HEAD and DEPREL of its words filled.
    pub bytes: Vec<u8>,
    /// What it had of the columns the models read.
    pub input: InputCounts,
}

/// A block to parse, counted: its syntactic words, and how many of them
/// lack a column the models may read. Every parser of tabula checks its
/// input with it ([`BlockParser::parse`], and the neural parser in Python),
/// and [`super::job::ParseTotals`] turns the sums into the input's warnings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputCounts {
    /// Its syntactic words.
    pub words: usize,
    /// Words whose UPOS is `_`.
    pub no_upos: usize,
    /// Words whose FEATS, LEMMA and XPOS are `_` (in the order of
    /// [`FeatureColumns::named`]).
    pub blank: [usize; 3],
}

impl InputCounts {
    /// The counts of a block to parse. A sentence none of whose words has
    /// a UPOS is an error naming `file` and its first word's line: the
    /// models read UPOS, and a parser does not tag (`can_tag`: the parser
    /// takes a tagger, `tabula parse --tagger`, which the message then
    /// offers). A block without words counts nothing. O(bytes).
    pub fn check(raw: &RawSentence, file: &str, can_tag: bool) -> Result<InputCounts, ParserError> {
        Self::of(raw, &Columns::scan(raw, file)?, file, can_tag)
    }

    fn of(raw: &RawSentence, cols: &Columns, file: &str, can_tag: bool) -> Result<InputCounts, ParserError> {
        let missing = |range: fn(&Word) -> &std::ops::Range<usize>| {
            cols.words.iter().filter(|w| &raw.text[range(w).clone()] == b"_").count()
        };
        let counts = InputCounts {
            words: cols.len(),
            no_upos: missing(|w| &w.upos),
            blank: [missing(|w| &w.feats), missing(|w| &w.lemma), missing(|w| &w.xpos)],
        };
        if counts.words > 0 && counts.no_upos == counts.words {
            let how = if can_tag { "`tabula parse --tagger TAGGER`, or `tabula tag`" } else { "`tabula tag`" };
            return Err(ParserError::Conllu {
                file: file.to_owned(),
                line: cols.words[0].line,
                reason: format!(
                    "no word of this sentence has a UPOS (the column is `_`): the model reads UPOS; tag first ({how})"
                ),
            });
        }
        Ok(counts)
    }
}

/// Parses CoNLL-U blocks with a model, as `tabula parse` does: one per
/// thread, reused from block to block.
pub struct BlockParser<'m> {
    model: &'m Model,
    parser: AnyParser<'m>,
    /// Constrained parsing ([`BlockParser::constrained`]): the beam parser
    /// that keeps the input's arcs.
    constrained: Option<BeamParser<'m>>,
    /// What the constrained parser keeps of the input's arcs.
    kind: ConstraintKind,
    tokens: Tokens,
    labels: Vec<&'m str>,
    directions: Vec<Option<Direction>>,
}

/// What `tabula parse --constraints` keeps of the input's arcs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConstraintKind {
    /// The arcs: a word's HEAD, and its DEPREL unless `_`.
    #[default]
    Arcs,
    /// The direction of each arc only: whether the word's head is a word
    /// before it, a word after it, or the root (DEPREL is not read).
    Direction,
}

impl<'m> BlockParser<'m> {
    /// A parser of `model` with a beam of `width` (1: greedy).
    pub fn new(model: &'m Model, width: usize) -> Self {
        BlockParser {
            model,
            parser: AnyParser::new(model, width),
            constrained: None,
            kind: ConstraintKind::Arcs,
            tokens: Tokens::default(),
            labels: Vec::new(),
            directions: Vec::new(),
        }
    }

    /// A parser of `model` with a beam of `width` that keeps the arcs the
    /// input already has (`tabula parse --constraints`): a word's HEAD, and
    /// its DEPREL unless `_`, where the model's system can keep them
    /// together with the others ([`BeamParser::parse_constrained`]); a HEAD
    /// `_` leaves the word to the parser. Arc-standard, arc-hybrid and
    /// arc-eager only ([`ParserError::ConstraintsNotOffered`] otherwise).
    pub fn constrained(model: &'m Model, width: usize) -> Result<Self, ParserError> {
        Self::constrained_by(model, width, ConstraintKind::Arcs)
    }

    /// [`BlockParser::constrained`], keeping what `kind` says: the arcs, or
    /// only their directions ([`BeamParser::parse_directed`]: a word whose
    /// HEAD is 0 gets the root, one whose HEAD is before it a head before
    /// it, and so on, wherever the system can satisfy them together).
    pub fn constrained_by(model: &'m Model, width: usize, kind: ConstraintKind) -> Result<Self, ParserError> {
        if !matches!(model.system, System::ArcStandard | System::ArcHybrid | System::ArcEager) {
            return Err(ParserError::ConstraintsNotOffered(model.system));
        }
        if kind == ConstraintKind::Direction && model.root == Root::Last {
            return Err(ParserError::Io(format!(
                "--constraint-kind direction: {}",
                crate::oracle::OracleError::TargetRootLast
            )));
        }
        Ok(BlockParser { constrained: Some(BeamParser::new(model, width)), kind, ..Self::new(model, width) })
    }

    /// The block with the HEAD and DEPREL of its syntactic words replaced
    /// by the parser's (every other byte is copied; a block without words
    /// comes back unchanged), and how many of its words have no UPOS and
    /// no FEATS. A sentence none of whose words has a UPOS is an error
    /// naming `file` and the line: the model reads UPOS, and tabula does
    /// not tag. O(bytes + parsing).
    pub fn parse(&mut self, raw: &RawSentence, file: &str) -> Result<ParsedBlock, ParserError> {
        let cols = Columns::scan(raw, file)?;
        if cols.is_empty() {
            return Ok(ParsedBlock { bytes: raw.text.clone(), ..ParsedBlock::default() });
        }
        let input = InputCounts::of(raw, &cols, file, true)?;
        self.tokens.fill(&raw.text, &cols);
        let (heads, labels) = match self.constrained.as_mut() {
            None => self.parser.parse(&self.tokens)?,
            Some(parser) => {
                let result = match self.kind {
                    ConstraintKind::Arcs => {
                        let constraints = read_constraints(self.model, &cols, &raw.text, file)?;
                        parser.parse_constrained(&self.tokens, &constraints)
                    }
                    ConstraintKind::Direction => {
                        read_directions(&cols, &raw.text, file, &mut self.directions)?;
                        parser.parse_directed(&self.tokens, &self.directions)
                    }
                };
                result.map_err(|e| ParserError::Conllu {
                    file: file.to_owned(),
                    line: raw.first_line,
                    reason: format!("the constraints: {e}"),
                })?;
                (&parser.heads[..], &parser.labels[..])
            }
        };
        let model = self.model;
        self.labels.clear();
        self.labels.extend(labels.iter().map(|&l| model.labels.get(l as usize).map_or("_", String::as_str)));
        let bytes = write_parsed(raw, &cols, heads, &self.labels, model.pseudo_projective.is_some(), file)?;
        Ok(ParsedBlock { bytes, input })
    }
}

/// The block `raw` (read from `file`) with the parsed HEAD and DEPREL
/// columns; a pseudo-projective model's output decoded first (Nivre &
/// Nilsson 2005).
pub fn write_parsed(
    raw: &RawSentence,
    cols: &Columns,
    heads: &[usize],
    labels: &[&str],
    pseudo_projective: bool,
    file: &str,
) -> Result<Vec<u8>, ParserError> {
    let mut bytes = Vec::with_capacity(raw.text.len() + 16);
    let decoded = match pseudo_projective {
        true => match DepTree::from_heads(heads) {
            Ok(tree) => Some(pseudo::decode(&tree, labels).map_err(|e| ParserError::Conllu {
                file: file.to_owned(),
                line: raw.first_line,
                reason: format!("pseudo-projective decoding: {e}"),
            })?),
            Err(_) => None,
        },
        false => None,
    };
    match decoded {
        Some(d) => {
            let plain: Vec<&str> = d.labels.iter().map(String::as_str).collect();
            cols.write_with(&raw.text, d.tree.heads(), &plain, &mut bytes)
        }
        None => cols.write_with(&raw.text, heads, labels, &mut bytes),
    }
    .map_err(|e| ParserError::Io(e.to_string()))?;
    Ok(bytes)
}
