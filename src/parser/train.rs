//! Training the greedy parser with tabula's oracles.
//!
//! Two regimes ([`OracleKind`]):
//!
//! * **static** — the canonical computation of the (projective) gold tree
//!   is followed; at each configuration the model's best step is compared
//!   with the canonical one, and the perceptron is updated when they differ.
//!   Arc-hybrid, arc-eager, LR-spine and Attardi take the canonical step
//!   from [`OracleSession::static_step`] (LR-spine and Attardi: the dynamic
//!   oracle's optimal step under the fixed tie-break of
//!   [`canonical_step`](crate::oracle::canonical_step)); arc-standard
//!   (which has none in the oracle layer) from [`arc_standard_static`] in
//!   this module: reduce as soon as a gold arc between s₀ and s₁ can be
//!   built and the dependent has all its gold children (this computation
//!   respects lbr).
//! * **dynamic** — Goldberg & Nivre (2013); seed 000, Algorithm 2: an
//!   [`OracleSession`] advances with the parser and scores every step
//!   exactly (the closed forms or arc-standard's linear algorithm for
//!   projective gold trees, the grammar oracles for any tree). In the first
//!   `explore_from` epochs the optimal step is followed; later, the model's
//!   step is followed with probability `explore_p` (error exploration).
//!
//! Labelled steps ([`LabelledScores`]): a step that builds an arc carries a
//! label. The *correct* labelled steps are the optimal steps, each with the
//! gold DEPREL if it builds a gold arc (else with the model's best label:
//! any label of a wrong arc is as good). When the model's best labelled step
//! (among the steps the oracle can complete) is not the correct one it
//! scores highest, the perceptron moves towards the latter: +1 / −1 on the
//! step table if the steps differ, and on the label table for the labels of
//! arc steps. The arc built carries the label of the labelled step taken.
//!
//! LR-spine (the model has classes for spine steps up to
//! [`MODEL_SPINE_DEPTH`](super::model::MODEL_SPINE_DEPTH), [`super::model`]): the model's step and the update
//! targets are taken among the steps with a class. Static: where the
//! canonical step is deeper, it is followed without a step update (the
//! label table still learns its label); dynamic: the optimal steps are those
//! with a class and the best oracle score among them (the steps the model
//! can take that lose the fewest gold arcs). Both cases are counted
//! ([`EpochStats::beyond_depth`]); the K = 1 steps always have a score, so
//! training always goes on.
//!
//! Attardi (any gold tree its oracle handles, strategy none, the tabular
//! oracle): with `Projectivize::None` a non-projective training tree is
//! checked once at the start — a tree its computations cannot build
//! completely is left out ([`Prepared::outside_class`]), and so is one at
//! which the tabular oracle refuses the initial configuration for its size
//! ([`Prepared::too_large`], limit [`TrainOptions::max_gamma`]). A later
//! configuration beyond the limit (exploration can grow the stack) ends the
//! training on that sentence for the epoch ([`EpochStats::abandoned`]; so
//! does an LR-spine configuration whose spine is longer than its oracle
//! scores, [`SPINE_CAPACITY`](crate::oracle::SPINE_CAPACITY)). All are
//! counted and reported by `tabula train`; none is an error.
//!
//!
//! Training data ([`Projectivize`]): non-projective trees can be kept, made
//! projective optimally (Nederhof 2019, Sec. 3) or by lifting, or skipped.
//! The static regime and the linear algorithm need projective trees.
//!
//! Everything is reproducible from the seed: the order of the sentences in
//! each epoch and the exploration draws come from one ChaCha8 stream.
//! Cost per configuration: O(features × (steps + labels)) for the model,
//! plus the oracle (O(1) for the closed forms, O(n³) for the grammar
//! oracles); no allocation per step.

use super::any_parser::AnyParser;
use super::columns::Columns;
use super::eval::{universal, Counts};
use super::features::{laid_out, ArcState, Extractor, Tokens};
use super::global::Global;
pub use super::learner::{arc_standard_static, EpochStats, OracleKind, Projectivize, TrainOptions, NO_LABEL};
use super::learner::{count_children, Item, Learner, Search};
use super::model::{arc_class, arc_steps, classes, step_class, LabelledScores, Model};
use super::perceptron::{check_tables, Averaged, SparseAveraged, TRAINING_BYTES_PER_WEIGHT};
use super::ParserError;
use crate::conllu::Reader;
use crate::oracle::session::OracleSession;
use crate::oracle::{Algorithm, Configuration, Oracle, OracleError, Root, Step, StepScores, Strategy, System};
use crate::projectivize::pseudo::{self, Scheme};
use crate::projectivize::{lift, OptimalProjectivizer, TreeClass};
use crate::tree::DepTree;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::io::BufRead;
use std::time::Instant;

/// A sentence with its gold annotation.
#[derive(Clone, Debug)]
pub struct GoldSentence {
    pub tokens: Tokens,
    pub tree: DepTree,
    /// DEPREL of words 1 … n.
    pub deprels: Vec<String>,
    /// 1-based line of the block in its file.
    pub first_line: usize,
}

/// Reads a CoNLL-U treebank with gold HEAD and DEPREL (blocks without
/// words are skipped). A HEAD `_` leaves the word unannotated: the tree is
/// partial ([`DepTree::from_partial_heads`]), and training learns from its
/// annotated arcs only. Errors name the file and line. O(bytes).
pub fn read_gold<R: BufRead>(input: R, file: &str) -> Result<Vec<GoldSentence>, ParserError> {
    let mut reader = Reader::new(input, file);
    let mut out = Vec::new();
    while let Some(raw) = reader.next_raw() {
        let raw = raw.map_err(ParserError::from)?;
        out.extend(GoldSentence::from_raw(&raw, file)?);
    }
    Ok(out)
}

impl GoldSentence {
    /// The gold sentence of one CoNLL-U block (`None`: a block without
    /// words), as [`read_gold`] reads it. O(bytes).
    pub fn from_raw(raw: &crate::conllu::RawSentence, file: &str) -> Result<Option<GoldSentence>, ParserError> {
        let cols = Columns::scan(raw, file)?;
        if cols.is_empty() {
            return Ok(None);
        }
        let tree = cols.partial_heads(&raw.text, file)?;
        let deprels =
            cols.words.iter().map(|w| String::from_utf8_lossy(&raw.text[w.deprel.clone()]).into_owned()).collect();
        Ok(Some(GoldSentence {
            tokens: Tokens::from_columns(&raw.text, &cols),
            tree,
            deprels,
            first_line: raw.first_line,
        }))
    }
}

/// UAS / LAS (universal labels) of `model` on `data`, parsed in parallel
/// (the sums do not depend on the thread count); a sentence too long for
/// the model's beam within the memory limit is an error
/// ([`super::beam::beam_memory`]). O(Σ n × cost per step).
pub fn attachment(model: &Model, data: &[GoldSentence]) -> Result<Counts, crate::memory::TooMuchMemory> {
    data.par_iter()
        .map_init(
            || AnyParser::new(model, model.beam as usize),
            |p, s| {
                let (heads, labels) = p.parse(&s.tokens)?;
                let decoded = model.pseudo_projective.and_then(|_| decode_parse(model, heads, labels));
                let (heads, labels) = match &decoded {
                    Some((h, l)) => (h.as_slice(), l.as_slice()),
                    None => (heads, labels),
                };
                let mut c = Counts::default();
                // A partial tree's unannotated words are not scored.
                for d in (1..=s.tree.len()).filter(|&d| s.tree.is_annotated(d)) {
                    let head = heads[d - 1] == s.tree.head(d);
                    let predicted = model.labels.get(labels[d - 1] as usize).map_or("_", String::as_str);
                    let label = universal(predicted.as_bytes()) == universal(s.deprels[d - 1].as_bytes());
                    c.words += 1;
                    c.heads += u64::from(head);
                    c.labelled += u64::from(head && label);
                }
                Ok(c)
            },
        )
        .try_reduce(Counts::default, |a, b| {
            Ok(Counts { words: a.words + b.words, heads: a.heads + b.heads, labelled: a.labelled + b.labelled })
        })
}

/// A pseudo-projective model's output decoded: the heads, and the label
/// ids of the plain relations (a relation the model lacks gets `u32::MAX`,
/// which scores as `_`). `None` if the heads are not a tree.
fn decode_parse(model: &Model, heads: &[usize], labels: &[u32]) -> Option<(Vec<usize>, Vec<u32>)> {
    let tree = DepTree::from_heads(heads).ok()?;
    let names: Vec<&str> = labels.iter().map(|&l| model.labels.get(l as usize).map_or("_", String::as_str)).collect();
    let decoded = pseudo::decode(&tree, &names).ok()?;
    let ids = decoded.labels.iter().map(|l| model.labels.binary_search(l).map_or(u32::MAX, |i| i as u32)).collect();
    Some((decoded.tree.heads().to_vec(), ids))
}

/// Pseudo-projective training data (Nivre & Nilsson 2005): the DEPRELs of
/// the words that `projectivize` moves (as [`Trainer::new`] will move them)
/// get the encoding of `scheme` ([`crate::projectivize::pseudo`]); the trees
/// stay the original ones. Returns the number of moved words. Errors (naming
/// the file and line) on a DEPREL that contains `|` or `%`. O(n³) per
/// non-projective tree with `Optimal`, as training itself.
pub fn encode_pseudo_projective(
    data: &mut [GoldSentence],
    projectivize: Projectivize,
    scheme: Scheme,
    file: &str,
) -> Result<u64, ParserError> {
    let grammar = crate::grammar::text::parse_str("projective.grammar", crate::grammars::PROJECTIVE)
        .map_err(|e| ParserError::Io(e.to_string()))?
        .grammar;
    let mut projectivizer = OptimalProjectivizer::new(&grammar, TreeClass::Projective)?;
    let mut moved = 0;
    for s in data {
        if s.tree.is_partial() {
            return Err(ParserError::Conllu {
                file: file.to_owned(),
                line: s.first_line,
                reason: "pseudo-projective training needs every HEAD (this tree is partial: a HEAD is `_`)".into(),
            });
        }
        let new = match projectivize {
            _ if s.tree.is_projective() => s.tree.clone(),
            Projectivize::None => s.tree.clone(),
            Projectivize::Optimal => projectivizer.projectivize(&s.tree)?.tree,
            Projectivize::Lift => lift(&s.tree),
        };
        let encoded = pseudo::encode(&s.tree, &new, &s.deprels, scheme).map_err(|e| ParserError::Conllu {
            file: file.to_owned(),
            line: s.first_line,
            reason: e.to_string(),
        })?;
        moved += encoded.moved as u64;
        s.deprels = encoded.labels;
    }
    Ok(moved)
}

/// The default limit on the words of a training sentence: the optimal
/// projectivization of a tree costs O(n³) (about 1 s for 1,000 words, 540 s
/// for 10,000), and a sentence that long is rarely one sentence.
pub const DEFAULT_MAX_WORDS: usize = 1000;

/// The default limit on the words of a training sentence whose oracle
/// builds a table at every configuration ([`oracle_builds_tables`]): O(n³)
/// or more per step, so O(n⁴) or more per sentence and epoch (the cubic
/// oracle spends about 6 s per epoch on a 200-word sentence, the LR-spine
/// table 1.5–10 s).
pub const DEFAULT_MAX_WORDS_TABLE: usize = 200;

/// Whether training with `options` scores the configurations of `tree` with
/// an oracle that builds a table at every configuration — the cubic grammar
/// oracles, Goldberg et al.'s tables (LR-spine's dynamic oracle), Attardi's
/// tabular oracle (its static oracle too) — rather than a closed form or
/// the linear or quadratic algorithms.
pub fn oracle_builds_tables(options: &TrainOptions, tree: &DepTree) -> bool {
    match options.oracle {
        // Arc-standard, arc-hybrid, arc-eager: closed forms; LR-spine: the
        // closed form along the canonical computation.
        OracleKind::Static => matches!(options.system, System::Attardi | System::ArcEagerNm),
        OracleKind::Dynamic => matches!(
            Oracle::resolve_for(options.system, options.algorithm, tree),
            Algorithm::Cubic | Algorithm::Goldberg | Algorithm::Tabular
        ),
    }
}

/// What [`Trainer::new`] did to the training data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    pub sentences: usize,
    pub tokens: u64,
    pub nonprojective: usize,
    pub skipped: usize,
    /// Tokens whose head projectivization changed.
    pub changed_heads: u64,
    /// Attardi, `Projectivize::None`: non-projective trees left out because
    /// no computation builds them completely (outside the system's class).
    pub outside_class: usize,
    /// Attardi: trees left out because the tabular oracle refused their
    /// initial configuration (|γ| above [`TrainOptions::max_gamma`]).
    pub too_large: usize,
    /// Attardi: trees left out because the check of their initial
    /// configuration went past the oracle's budget ([`TrainOptions::max_pairs`]).
    pub over_budget: usize,
    /// Sentences left out for their length ([`TrainOptions::max_words`]).
    pub too_long: usize,
    /// Partial trees (some word without a head), kept as they are.
    pub partial: usize,
    /// The annotated words of the partial trees.
    pub annotated: u64,
}

impl Prepared {
    /// Why no sentence is left, for [`ParserError::EmptyTreebank`]: the
    /// trees left out and the reason, or nothing if the file had none.
    fn why_empty(&self, max_gamma: usize, max_pairs: Option<u64>, style: super::OptionStyle) -> String {
        let mut parts = Vec::new();
        if self.too_long > 0 {
            parts.push(format!("{} longer than --max-words (raise it to keep them)", self.too_long));
        }
        if self.skipped > 0 {
            parts.push(format!("{} non-projective skipped ({})", self.skipped, style.flag("skip-nonprojective")));
        }
        if self.outside_class > 0 {
            parts.push(format!("{} outside the trees attardi can build", self.outside_class));
        }
        if self.too_large > 0 {
            parts.push(format!(
                "{} beyond the tabular oracle's limit on |γ| ({}; raise it to keep them)",
                self.too_large,
                style.given("max-gamma", &max_gamma.to_string(), false)
            ));
        }
        if let (true, Some(limit)) = (self.over_budget > 0, max_pairs) {
            parts.push(format!(
                "{} past the tabular oracle's budget ({}; raise it to keep them)",
                self.over_budget,
                style.given("max-pairs", &limit.to_string(), false)
            ));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(": every tree was left out: {}", parts.join(", "))
        }
    }
}

/// Trains a model epoch by epoch (see the module documentation).
pub struct Trainer {
    options: TrainOptions,
    labels: Vec<String>,
    data: Vec<Item>,
    learner: Learner,
    oracle: Oracle<'static>,
    epoch: usize,
    order: Vec<usize>,
    prepared: Prepared,
    /// Global training's buffers (a beam search).
    global: Option<Global>,
    /// Checked between sentences: an interrupt ([`crate::interrupt`]) since
    /// the trainer was made ends the epoch with [`ParserError::Interrupted`].
    watch: crate::interrupt::Watch,
}

impl Trainer {
    /// Prepares the training data (projectivization, label set: every
    /// DEPREL of `data`, sorted) and a zero model. Errors if no sentence is
    /// left, or if the regime needs projective trees and one is not.
    pub fn new(options: TrainOptions, data: Vec<GoldSentence>, file: &str) -> Result<Trainer, ParserError> {
        Self::build(options, data, file, None)
    }

    /// Continues training from `init` (a second pass, as in Nederhof 2019,
    /// Sec. 8.3, Table 7 columns 3–5): the current weights start at the
    /// model's, the average is taken over the new updates; the label set is
    /// the model's, and the system and table sizes of `options` must match
    /// it. Errors as [`Trainer::new`], and for a DEPREL the model lacks.
    pub fn from_model(
        options: TrainOptions,
        data: Vec<GoldSentence>,
        file: &str,
        init: Model,
    ) -> Result<Trainer, ParserError> {
        if init.system != options.system {
            return Err(ParserError::InitMismatch(format!(
                "the model is for {}, training is for {}",
                init.system, options.system
            )));
        }
        if init.root != options.root {
            return Err(ParserError::InitMismatch(format!(
                "the model has the root {}, training asks for the root {}",
                init.root, options.root
            )));
        }
        if init.steps().bits() != options.step_bits || init.arcs().bits() != options.label_bits {
            return Err(ParserError::InitMismatch(format!(
                "the model has tables of 2^{} and 2^{} rows, training asks for 2^{} and 2^{}",
                init.steps().bits(),
                init.arcs().bits(),
                options.step_bits,
                options.label_bits
            )));
        }
        for s in &data {
            let unknown = |d: &&String| d.as_str() != "_" && init.labels.binary_search(d).is_err();
            if let Some(d) = s.deprels.iter().find(unknown) {
                return Err(ParserError::InitMismatch(format!(
                    "DEPREL `{d}` (line {}) is not in the model's label set",
                    s.first_line
                )));
            }
        }
        if init.columns != options.columns {
            return Err(ParserError::InitMismatch(format!(
                "the model's features are `{}`, training's `{}` (--feats, --lemma, --xpos as the model was trained)",
                init.columns.feature_set(),
                options.columns.feature_set()
            )));
        }
        let mut t = Self::build(options, data, file, Some(init.labels.clone()))?;
        let (steps, arcs) = init.into_tables();
        t.learner.steps = Averaged::from_weights(steps);
        t.learner.arcs = SparseAveraged::from_weights(arcs);
        Ok(t)
    }

    fn build(
        options: TrainOptions,
        data: Vec<GoldSentence>,
        file: &str,
        labels: Option<Vec<String>>,
    ) -> Result<Trainer, ParserError> {
        Oracle::check_support(options.system, options.strategy, options.algorithm)?;
        if !options.root.offered(options.system) {
            return Err(ParserError::RootNotOffered(options.system));
        }
        if let Some(column) = options.columns.blank_in(data.iter().map(|s| &s.tokens)) {
            return Err(ParserError::BlankColumn { file: file.to_owned(), column });
        }
        let mut oracle = Oracle::new();
        oracle.attardi_mut().set_max_gamma(options.max_gamma);
        oracle.attardi_mut().set_max_pairs(options.max_pairs);
        let labels: Vec<String> = labels.unwrap_or_else(|| {
            let all: BTreeSet<&String> = data.iter().flat_map(|s| &s.deprels).collect();
            // `_` is an unannotated DEPREL, unless no word has another one
            // (an unlabelled treebank: `_` is then the one label).
            let unlabelled = all.len() == 1;
            all.into_iter().filter(|d| unlabelled || d.as_str() != "_").cloned().collect()
        });
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x5eed_5ab5);
        let grammar = crate::grammar::text::parse_str("projective.grammar", crate::grammars::PROJECTIVE)
            .map_err(|e| ParserError::Io(e.to_string()))?
            .grammar;
        let mut projectivizer = OptimalProjectivizer::new(&grammar, TreeClass::Projective)?;
        // Attardi's oracles (dynamic, and the static one built on it) take any
        // tree; LR-spine's oracle projective ones only.
        // Non-monotonic arc-eager's oracles take any tree too.
        let needs_projective = (options.oracle == OracleKind::Static
            && !matches!(options.system, System::Attardi | System::ArcEagerNm))
            || matches!(options.algorithm, Algorithm::Linear | Algorithm::Quadratic)
            || options.system == System::LrSpine;
        let mut prepared = Prepared::default();
        let mut items = Vec::with_capacity(data.len());
        let (general, table) = match options.max_words {
            Some(limit) => (limit, limit),
            None => (DEFAULT_MAX_WORDS, DEFAULT_MAX_WORDS_TABLE),
        };
        // Whether any word kept had a gold head before `subsample`.
        let mut given_heads = false;
        for s in data {
            let mut tree = s.tree;
            // Before projectivizing: that costs O(n³) too.
            if tree.len() > general {
                prepared.too_long += 1;
                continue;
            }
            given_heads |= tree.annotated() > 0;
            if let Some(p) = options.subsample {
                let heads: Vec<Option<usize>> =
                    (1..=tree.len()).map(|d| (tree.is_annotated(d) && rng.gen_bool(p)).then(|| tree.head(d))).collect();
                tree = DepTree::from_partial_heads(&heads).expect("fewer arcs of a tree");
            }
            if tree.is_partial() {
                // The annotated arcs as they are: only the cubic oracles and
                // arc-eager-nm's table score a partial tree, and they take any.
                prepared.partial += 1;
                prepared.annotated += tree.annotated() as u64;
                let algorithm = Oracle::resolve_for(options.system, options.algorithm, &tree);
                let scored = options.oracle == OracleKind::Dynamic
                    && match options.system {
                        System::ArcStandard | System::ArcHybrid | System::ArcEager => algorithm == Algorithm::Cubic,
                        System::ArcEagerNm => algorithm == Algorithm::Tabular,
                        System::LrSpine | System::Attardi => false,
                    };
                if !scored {
                    let algorithm = if options.oracle == OracleKind::Static { Algorithm::Linear } else { algorithm };
                    let source = OracleError::PartialGold { system: options.system, algorithm };
                    return Err(ParserError::Training { line: s.first_line, source });
                }
            } else if !tree.is_projective() {
                prepared.nonprojective += 1;
                if options.skip_nonprojective {
                    prepared.skipped += 1;
                    continue;
                }
                let new = match options.projectivize {
                    Projectivize::None => tree.clone(),
                    Projectivize::Optimal => projectivizer.projectivize(&tree)?.tree,
                    Projectivize::Lift => lift(&tree),
                };
                prepared.changed_heads += (tree.len() - tree.common_arcs(&new)) as u64;
                tree = new;
                if needs_projective && !tree.is_projective() {
                    let static_oracle = options.oracle == OracleKind::Static;
                    let (system, algorithm) = (options.system, options.algorithm);
                    return Err(ParserError::needs_projective(
                        file,
                        s.first_line,
                        system,
                        static_oracle,
                        algorithm,
                        options.style,
                    ));
                }
            }
            if tree.len() > table && oracle_builds_tables(&options, &tree) {
                prepared.too_long += 1;
                continue;
            }
            if options.system == System::Attardi && !tree.is_projective() {
                // Every projective tree is in Attardi's class (its
                // left_arc and right_arc are arc-standard's steps).
                let initial = Configuration::initial(System::Attardi, tree.len());
                match oracle.scores(&initial, &tree, Strategy::None, Algorithm::Tabular) {
                    Ok(scores) if scores.best() == Some(tree.len() as u32) => {}
                    Ok(_) => {
                        prepared.outside_class += 1;
                        continue;
                    }
                    Err(OracleError::TooLarge { .. }) => {
                        prepared.too_large += 1;
                        continue;
                    }
                    Err(OracleError::TooMuchWork { .. }) => {
                        prepared.over_budget += 1;
                        continue;
                    }
                    Err(source) => return Err(ParserError::Training { line: s.first_line, source }),
                }
            }
            // Unannotated: a word without a head, or a DEPREL `_` outside the label set.
            let mut ids: Vec<u32> = s
                .deprels
                .iter()
                .enumerate()
                .map(|(i, d)| match labels.binary_search(d) {
                    Ok(l) if tree.is_annotated(i + 1) => l as u32,
                    _ => NO_LABEL,
                })
                .collect();
            prepared.sentences += 1;
            prepared.tokens += tree.len() as u64;
            // Laid out for the root position: with the root last, one more
            // position, the root (its label is never asked for).
            let tokens = match options.root {
                Root::First => s.tokens,
                Root::Last => {
                    let mut laid = Tokens::default();
                    laid_out(&s.tokens, Root::Last, &mut laid);
                    laid
                }
            };
            let tree = options.root.extend_tree(&tree);
            ids.resize(tree.len(), 0);
            items.push(Item { tokens, tree, labels: ids, first_line: s.first_line });
        }
        if items.is_empty() {
            return Err(ParserError::EmptyTreebank {
                file: file.to_owned(),
                why: prepared.why_empty(options.max_gamma, options.max_pairs, options.style),
            });
        }
        if prepared.partial == prepared.sentences && prepared.annotated == 0 {
            let why = match options.subsample {
                Some(p) if given_heads => {
                    format!("{} kept none of the arcs", options.style.given("subsample", &p.to_string(), false))
                }
                _ => "every HEAD is `_`".to_owned(),
            };
            return Err(ParserError::NoGoldHeads { file: file.to_owned(), why });
        }
        // The tables' widths (as Model::zeros makes them), checked against the memory limit first.
        let widths = (classes(options.system).len(), arc_steps(options.system).count() * labels.len().max(1));
        check_tables(
            (options.step_bits, widths.0),
            (options.label_bits, widths.1),
            TRAINING_BYTES_PER_WEIGHT,
            "training the model tables",
        )?;
        let learner = Learner {
            system: options.system,
            root: options.root,
            labels: labels.len(),
            steps: Averaged::zeros(options.step_bits, widths.0),
            arcs: SparseAveraged::zeros(options.label_bits, widths.1),
            state: ArcState::default(),
            extractor: Extractor { columns: options.columns, ..Extractor::default() },
            scores: LabelledScores::new(options.system, labels.len()),
            missing: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            stats: EpochStats::default(),
        };
        let order = (0..items.len()).collect();
        let global = matches!(options.search, Search::Beam { .. }).then(|| Global::new(options.system));
        let watch = crate::interrupt::Watch::start();
        Ok(Trainer { options, labels, data: items, learner, oracle, epoch: 0, order, prepared, global, watch })
    }

    /// Calls `f(gold tree, c₀, hypothesis, correct)` for every hypothesis
    /// that global training makes (to check the global oracle against a
    /// brute force); greedy training makes none.
    pub fn observe(&mut self, f: super::global::Observer) {
        if let Some(g) = self.global.as_mut() {
            g.observer = Some(f);
        }
    }

    /// What was done to the training data.
    pub fn prepared(&self) -> &Prepared {
        &self.prepared
    }

    /// The label set.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// One pass over the training data in a fresh random order; `progress`
    /// is told the tokens done: greedy training one for each arc built, the
    /// rest of a sentence's tokens when it ends (so the sum is the epoch's
    /// tokens).
    pub fn epoch(&mut self, progress: &mut dyn FnMut(u64)) -> Result<EpochStats, ParserError> {
        let start = Instant::now();
        self.epoch += 1;
        let explore = self.options.oracle == OracleKind::Dynamic && self.epoch > self.options.explore_from;
        self.order.shuffle(&mut self.learner.rng);
        self.learner.stats = EpochStats { epoch: self.epoch, ..EpochStats::default() };
        for &i in &self.order {
            if self.watch.interrupted() {
                return Err(ParserError::Interrupted);
            }
            let item = &self.data[i];
            // Greedy training tells `progress` of each arc as it is built
            // (a long sentence moves the bar too), the rest at the end.
            let mut told = 0;
            match self.global.as_mut() {
                Some(g) => self.learner.learn_global(g, &mut self.oracle, item, &self.options, explore)?,
                None => {
                    let mut arc_built = || {
                        told += 1;
                        progress(1);
                    };
                    self.learner.learn(&mut self.oracle, item, &self.options, explore, &mut arc_built)?
                }
            }
            self.learner.stats.sentences += 1;
            self.learner.stats.tokens += item.tree.len() as u64;
            progress((item.tree.len() as u64).saturating_sub(told));
        }
        self.learner.stats.seconds = start.elapsed().as_secs_f64();
        Ok(self.learner.stats.clone())
    }

    /// The model with the averaged weights. O(tables).
    pub fn model(&self) -> Model {
        let (steps, arcs) = (self.learner.steps.averaged(), self.learner.arcs.averaged_compact());
        let mut model =
            Model::with_compact(self.options.system, self.labels.clone(), steps, arcs, self.options.columns)
                .expect("the trainer's tables are sized for its system and labels");
        model.root = self.options.root;
        model.beam = self.options.search.width() as u32;
        model.beam_labels = self.options.search.labels().map(|m| m as u32);
        model.pseudo_projective = self.options.pseudo_projective;
        model
    }
}

/// The training state at one configuration: which steps are allowed and optimal.
enum Guide<'a> {
    /// The one canonical step.
    Static(Step),
    /// The oracle's scores.
    Dynamic(&'a StepScores),
}

impl Learner {
    /// The initial configuration for `n` positions (the root laid out as trained).
    pub(super) fn initial(&self, n: usize) -> Configuration {
        Configuration::initial_at(self.system, n, self.root)
    }

    fn learn(
        &mut self,
        oracle: &mut Oracle<'static>,
        item: &Item,
        options: &TrainOptions,
        explore: bool,
        arc_built: &mut dyn FnMut(),
    ) -> Result<(), ParserError> {
        let n = item.tree.len();
        self.state.reset(n);
        let line = item.first_line;
        let fail = |e: crate::oracle::OracleError| ParserError::Training { line, source: e };
        let no_step = || ParserError::NoOptimalStep { line };
        // The static session of LR-spine and Attardi runs their dynamic
        // oracle, which scores strategy none with its own algorithm.
        let (static_strategy, static_algorithm) = if Oracle::has_canonical_tie_break(self.system) {
            (Strategy::None, Algorithm::Auto)
        } else {
            (options.strategy, Algorithm::Linear)
        };
        match options.oracle {
            OracleKind::Static if self.system == System::ArcStandard => {
                count_children(&item.tree, &mut self.missing);
                let mut config = self.initial(n);
                while !config.is_final() {
                    let gold = arc_standard_static(&config, &item.tree, &self.missing);
                    let (step, label) = self.decide(&config, item, Guide::Static(gold), false).ok_or_else(no_step)?;
                    let arc = config.apply(step).map_err(fail)?;
                    if let Some((h, d)) = arc {
                        if item.tree.head(d) == h {
                            self.missing[h] -= 1;
                        }
                    }
                    if arc.is_some() {
                        arc_built();
                    }
                    self.attach(arc, label);
                }
            }
            OracleKind::Static => {
                let start = self.initial(n);
                let mut session =
                    OracleSession::at(oracle, item.tree.clone(), start, static_strategy, static_algorithm)
                        .map_err(fail)?;
                while !session.configuration().is_final() {
                    let gold = match session.static_step() {
                        Err(
                            OracleError::TooLarge { .. }
                            | OracleError::TooMuchWork { .. }
                            | OracleError::SpineTooLong { .. },
                        ) => {
                            self.stats.abandoned += 1;
                            return Ok(());
                        }
                        other => other.map_err(fail)?,
                    };
                    let (step, label) =
                        self.decide(session.configuration(), item, Guide::Static(gold), false).ok_or_else(no_step)?;
                    let arc = session.apply(step).map_err(fail)?;
                    if arc.is_some() {
                        arc_built();
                    }
                    self.attach(arc, label);
                }
            }
            OracleKind::Dynamic => {
                let start = self.initial(n);
                let mut session =
                    OracleSession::at(oracle, item.tree.clone(), start, options.strategy, options.algorithm)
                        .map_err(fail)?;
                while !session.configuration().is_final() {
                    let scores = match session.scores() {
                        Err(
                            OracleError::TooLarge { .. }
                            | OracleError::TooMuchWork { .. }
                            | OracleError::SpineTooLong { .. },
                        ) => {
                            self.stats.abandoned += 1;
                            return Ok(());
                        }
                        other => other.map_err(fail)?,
                    };
                    let explore_now = explore && self.rng.gen_bool(options.explore_p);
                    let (step, label) = self
                        .decide(session.configuration(), item, Guide::Dynamic(&scores), explore_now)
                        .ok_or_else(no_step)?;
                    let arc = session.apply(step).map_err(fail)?;
                    if arc.is_some() {
                        arc_built();
                    }
                    self.attach(arc, label);
                }
            }
        }
        Ok(())
    }

    /// Extracts the features of `config`, scores the labelled steps with a
    /// class ([`classes`]), updates the tables if the model's best labelled
    /// step is not correct (module documentation), and returns the labelled
    /// step to take: the model's if `explore`, else the correct one it
    /// scores highest (static: the canonical step, even without a class).
    /// Dynamic: the optimal steps are those with a class and the best oracle
    /// score among them. `None` only if no step with a class is legal (never
    /// at a non-final configuration). O(features × (classes + arc steps ×
    /// labels)); no allocation.
    fn decide(
        &mut self,
        config: &Configuration,
        item: &Item,
        guide: Guide<'_>,
        explore: bool,
    ) -> Option<(Step, Option<u32>)> {
        self.extractor.extract(config, &self.state, &item.tokens);
        self.steps.tick();
        self.arcs.tick();
        self.stats.configurations += 1;
        let scores = &mut self.scores;
        let steps = classes(self.system);
        // The best oracle score among the steps with a class (dynamic).
        let target = match &guide {
            Guide::Static(_) => None,
            Guide::Dynamic(oracle) => {
                let best = steps.iter().filter_map(|&s| oracle.get(s)).max()?;
                if oracle.best() != Some(best) {
                    self.stats.beyond_depth += 1;
                }
                Some(best)
            }
        };
        let legal = |s: Step| match &guide {
            Guide::Static(_) => config.is_applicable(s),
            Guide::Dynamic(oracle) => oracle.get(s).is_some(),
        };
        scores.fill(self.steps.current(), self.arcs.current(), &self.extractor.features, |i| legal(steps[i]));
        let optimal = |s: Step| match &guide {
            Guide::Static(g) => s == *g,
            Guide::Dynamic(oracle) => oracle.get(s) == target,
        };
        // The gold label of the arc a step builds, if it is a gold arc.
        let gold_label = |s: Step| config.arc(s).and_then(|(h, d)| item.gold_label(h, d));
        if let Guide::Static(g) = guide {
            if step_class(self.system, g).is_none() {
                // A canonical step without a class (LR-spine, K >
                // MODEL_SPINE_DEPTH): no step to learn towards; follow it.
                // Its label block is the K = 1 step's of its direction: the
                // label is learnt there.
                self.stats.beyond_depth += 1;
                let label = gold_label(g);
                let block = arc_class(self.system, g);
                let shared = (0..steps.len()).find(|&i| block.is_some() && scores.block(i) == block);
                if let (Some(b), Some(i), Some(gold)) = (block, shared, label) {
                    if let Some((predicted, _)) = scores.best_label(i).filter(|&(l, _)| l != gold) {
                        let (f, labels) = (&self.extractor.features, self.labels.max(1));
                        self.arcs.update(f, b * labels + gold as usize, 1.0);
                        self.arcs.update(f, b * labels + predicted as usize, -1.0);
                    }
                }
                return Some((g, label));
            }
        }
        let (predicted, predicted_label) = scores.best(|i| legal(steps[i]))?;
        // The correct labelled steps: the optimal steps, with the gold label
        // where they build a gold arc.
        let mut correct: Option<(usize, Option<u32>, f32)> = None;
        for i in (0..steps.len()).filter(|&i| optimal(steps[i])) {
            let (label, w) = match gold_label(steps[i]) {
                Some(g) => (Some(g), scores.label_weight(i, g).unwrap_or(0.0)),
                None => scores.best_label(i).map_or((None, 0.0), |(l, w)| (Some(l), w)),
            };
            let score = scores.step_weight(i) + w;
            if correct.is_none_or(|(_, _, c)| score > c) {
                correct = Some((i, label, score));
            }
        }
        let (best, best_label, _) = correct?;
        if (predicted, predicted_label) != (best, best_label) {
            if predicted != best && !optimal(steps[predicted]) {
                self.stats.step_errors += 1;
                self.stats.explored += u64::from(explore);
            } else {
                self.stats.label_errors += 1;
            }
            let f = &self.extractor.features;
            if predicted != best {
                self.steps.update(f, best, 1.0);
                self.steps.update(f, predicted, -1.0);
            }
            let labels = self.labels.max(1);
            if let (Some(b), Some(l)) = (scores.block(best), best_label) {
                self.arcs.update(f, b * labels + l as usize, 1.0);
            }
            if let (Some(b), Some(l)) = (scores.block(predicted), predicted_label) {
                self.arcs.update(f, b * labels + l as usize, -1.0);
            }
        }
        Some(if explore { (steps[predicted], predicted_label) } else { (steps[best], best_label) })
    }

    /// Records the arc built by the step taken, with its label.
    fn attach(&mut self, arc: Option<(usize, usize)>, label: Option<u32>) {
        if let Some((h, d)) = arc {
            self.state.add(h, d, label.unwrap_or(0));
        }
    }
}
