//! What greedy training ([`super::train`]) and global training
//! ([`super::global`]) share, below both: the options ([`TrainOptions`],
//! the search and update kinds), a training sentence as the trainer holds
//! it ([`Item`]), the learner's weights and buffers ([`Learner`]), an
//! epoch's figures, and the canonical arc-standard step.

use super::features::{ArcState, Extractor, FeatureColumns, Tokens};
use super::model::LabelledScores;
use super::perceptron::{Averaged, SparseAveraged};
use crate::oracle::{Algorithm, Configuration, Root, Step, Strategy, System};
use crate::projectivize::pseudo::Scheme;
use crate::tree::DepTree;
use rand_chacha::ChaCha8Rng;

/// What to do with non-projective training trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Projectivize {
    /// Keep them (only oracles exact for any tree can be used: cubic / auto).
    None,
    /// The projective tree keeping the most gold arcs (Nederhof 2019, Sec. 3).
    #[default]
    Optimal,
    /// Pseudo-projective lifting (Nivre & Nilsson 2005), without label encoding.
    Lift,
}

/// The training regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OracleKind {
    /// The canonical computation (static oracle).
    Static,
    /// Exact optimal steps with error exploration (dynamic oracle).
    #[default]
    Dynamic,
}

/// Training options.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub system: System,
    pub oracle: OracleKind,
    /// The dynamic oracle's algorithm.
    pub algorithm: Algorithm,
    /// The dynamic oracle's strategy (arc-standard; the others ignore it).
    pub strategy: Strategy,
    pub projectivize: Projectivize,
    pub skip_nonprojective: bool,
    /// Epochs that follow the oracle before exploration starts.
    pub explore_from: usize,
    /// Probability of following the model's step once exploring.
    pub explore_p: f64,
    pub seed: u64,
    pub step_bits: u32,
    pub label_bits: u32,
    /// The columns the features read beyond FORM and UPOS.
    pub columns: FeatureColumns,
    /// Attardi: the tabular oracle's limit on |γ|
    /// ([`TabularOracle::set_max_gamma`](crate::oracle::attardi::tabular::TabularOracle::set_max_gamma)).
    pub max_gamma: usize,
    /// Attardi: the tabular oracle's budget of one call, in pairs of items
    /// ([`TabularOracle::set_max_pairs`](crate::oracle::attardi::tabular::TabularOracle::set_max_pairs)).
    pub max_pairs: Option<u64>,
    /// Greedy search with local updates, or a beam with global updates ([`super::global`]).
    pub search: Search,
    /// Where the root is (last: arc-hybrid and arc-eager; Ballesteros & Nivre 2013).
    pub root: Root,
    /// Pseudo-projective training (Nivre & Nilsson 2005): the data's labels
    /// were encoded by [`encode_pseudo_projective`](super::train::encode_pseudo_projective); the model records the
    /// scheme and its output is decoded (dev scores included).
    pub pseudo_projective: Option<Scheme>,
    /// How errors name the options (the command line's `--projectivize`,
    /// or Python's `projectivize=`).
    pub style: super::OptionStyle,
    /// Sentences longer than this many words are left out
    /// ([`Prepared::too_long`](super::train::Prepared::too_long)); `None`: [`DEFAULT_MAX_WORDS`](super::train::DEFAULT_MAX_WORDS), and
    /// [`DEFAULT_MAX_WORDS_TABLE`](super::train::DEFAULT_MAX_WORDS_TABLE) for a tree whose oracle builds a table at
    /// every configuration ([`oracle_builds_tables`](super::train::oracle_builds_tables)).
    pub max_words: Option<usize>,
    /// Keeps each annotated arc of the training trees with this probability
    /// (drawn with [`TrainOptions::seed`]), leaving the other words
    /// unannotated: the partial-annotation learning curve of PanParser
    /// (Sec. 3.3). `None`: every arc.
    pub subsample: Option<f64>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            system: System::ArcHybrid,
            oracle: OracleKind::Dynamic,
            algorithm: Algorithm::Auto,
            strategy: Strategy::Lbr,
            projectivize: Projectivize::Optimal,
            skip_nonprojective: false,
            explore_from: 1,
            explore_p: 0.9,
            seed: 1,
            step_bits: 20,
            label_bits: 18,
            columns: FeatureColumns::NONE,
            max_gamma: crate::oracle::attardi::tabular::DEFAULT_MAX_GAMMA,
            max_pairs: None,
            search: Search::Greedy,
            root: Root::First,
            pseudo_projective: None,
            style: super::OptionStyle::CommandLine,
            max_words: None,
            subsample: None,
        }
    }
}

/// The label id of a word whose DEPREL is not annotated: a HEAD `_`, or a
/// DEPREL `_` in a treebank that has other labels. Any label is correct
/// for it.
pub const NO_LABEL: u32 = u32::MAX;

/// The global update strategy (PanParser, Algorithms 2–3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Update {
    /// Collins & Roark (2004): as soon as the beam holds no correct hypothesis.
    #[default]
    Early,
    /// Huang, Fayong & Guo (2012): the prefix pair of largest violation.
    MaxViolation,
    /// The complete derivations.
    Full,
}

impl Update {
    /// `early`, `max-violation` or `full`.
    pub fn name(self) -> &'static str {
        match self {
            Update::Early => "early",
            Update::MaxViolation => "max-violation",
            Update::Full => "full",
        }
    }
}

/// How training searches: greedily (local training), or with a beam and
/// global updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Search {
    /// One step at a time, a local update at every error ([`super::train`]).
    #[default]
    Greedy,
    /// A beam of `width` hypotheses, global updates; `labels`: at most
    /// this many labels per arc step of a hypothesis compete for the beam
    /// (those of the highest label weights; `None`: all).
    Beam { width: usize, update: Update, restart: bool, labels: Option<usize> },
}

impl Search {
    /// The limit on labels per arc step (`None`: all).
    pub fn labels(self) -> Option<usize> {
        match self {
            Search::Greedy => None,
            Search::Beam { labels, .. } => labels,
        }
    }

    /// The beam width (1 for greedy).
    pub fn width(self) -> usize {
        match self {
            Search::Greedy => 1,
            Search::Beam { width, .. } => width.max(1),
        }
    }
}

/// Figures of one epoch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpochStats {
    pub epoch: usize,
    pub sentences: u64,
    pub tokens: u64,
    pub configurations: u64,
    /// Configurations where the model's step was not optimal.
    pub step_errors: u64,
    /// Configurations where the model's step was optimal and built a gold
    /// arc, but with another label.
    pub label_errors: u64,
    /// Configurations where the model's step was followed although not optimal.
    pub explored: u64,
    /// LR-spine: configurations where every optimal step is a spine step
    /// deeper than [`MODEL_SPINE_DEPTH`](super::model::MODEL_SPINE_DEPTH) (no class; see the module documentation).
    pub beyond_depth: u64,
    /// Sentences whose training stopped at a configuration the oracle
    /// refuses for its size: beyond Attardi's tabular limit
    /// ([`OracleError::TooLarge`](crate::oracle::OracleError::TooLarge)) or, LR-spine, a spine longer than the
    /// oracle scores ([`OracleError::SpineTooLong`](crate::oracle::OracleError::SpineTooLong), only after model steps
    /// far off the gold path).
    pub abandoned: u64,
    /// Global training: the updates made.
    pub updates: u64,
    pub seconds: f64,
}

/// A training sentence as the trainer holds it: hashed tokens, the gold
/// tree and label ids.
pub(super) struct Item {
    pub(super) tokens: Tokens,
    pub(super) tree: DepTree,
    pub(super) labels: Vec<u32>,
    pub(super) first_line: usize,
}

impl Item {
    /// The gold label of the arc h → d: `None` if it is not a gold arc, or
    /// its label is not annotated ([`NO_LABEL`]: any label is correct).
    pub(super) fn gold_label(&self, h: usize, d: usize) -> Option<u32> {
        Some(self.labels[d - 1]).filter(|&l| self.tree.head(d) == h && l != NO_LABEL)
    }
}

/// The learner's state: weights and reusable buffers.
pub(super) struct Learner {
    pub(super) system: System,
    pub(super) root: Root,
    pub(super) labels: usize,
    pub(super) steps: Averaged,
    /// The label table: most of its weights are never updated.
    pub(super) arcs: SparseAveraged,
    pub(super) state: ArcState,
    pub(super) extractor: Extractor,
    pub(super) scores: LabelledScores,
    /// Gold children not yet attached (static arc-standard).
    pub(super) missing: Vec<u32>,
    pub(super) rng: ChaCha8Rng,
    pub(super) stats: EpochStats,
}

/// The canonical (static) arc-standard step for a projective gold tree:
/// `reduce_right` if s₀ is the gold head of s₁ and s₁ has all its gold
/// children, else `reduce_left` if s₁ is the gold head of s₀ and s₀ has all
/// its children, else `shift`. `missing[w]`: gold children of w not yet
/// attached. O(1). Respects the lbr strategy: a word gets its left
/// children (by `reduce_right`) before it is pushed below a new s₀.
pub fn arc_standard_static(config: &Configuration, gold: &DepTree, missing: &[u32]) -> Step {
    let stack = config.stack();
    let k = stack.len();
    if k >= 3 {
        let (s1, s0) = (stack[k - 2], stack[k - 1]);
        if gold.head(s1) == s0 && missing[s1] == 0 {
            return Step::ReduceRight;
        }
    }
    if k >= 2 {
        let (s1, s0) = (stack[k - 2], stack[k - 1]);
        if gold.head(s0) == s1 && missing[s0] == 0 {
            return Step::ReduceLeft;
        }
    }
    Step::Shift
}

/// Sets `missing[w]` to the number of gold children of w (0 … n), the
/// start of [`arc_standard_static`]'s bookkeeping. O(n).
pub(super) fn count_children(gold: &DepTree, missing: &mut Vec<u32>) {
    missing.clear();
    missing.resize(gold.len() + 1, 0);
    for d in 1..=gold.len() {
        missing[gold.head(d)] += 1;
    }
}
