//! Projectivization of dependency trees, and counting optimal projective trees.
//!
//! * [`OptimalProjectivizer`] (Nederhof 2019, end of Sec. 3 and Sec. 8.1): the
//!   grammar of Table 3 run through the [engine](crate::engine) in max-plus
//!   with w(h, d) = 1 iff (h, d) is a gold arc, so W is the largest number of
//!   gold arcs a projective tree keeps, and a backtrace gives such a tree.
//!   O(n³) per non-projective tree; projective trees are returned unchanged
//!   after an O(n) check (they are the unique optimum).
//! * [`OptimalSampler`]: the same, drawing uniformly among all optimal trees
//!   with the (max, count) semiring.
//! * [`Counter`] (Sec. 3, Fig. 8): the best score and the exact number of
//!   optimal projective trees, in the (max, count) semiring.
//! * [`PreferringProjectivizer`] (Sec. 8.1 leaves the choice among optimal
//!   trees open): among the trees keeping the most gold arcs, one with the
//!   highest secondary score under [`Weights`] (by default [`DEFAULT_WEIGHTS`]:
//!   reattach to the nearest gold ancestor, never under a leaf relation such
//!   as `punct`, keep the side of the gold head), in the
//!   [`Lexicographic`](crate::semiring::Lexicographic) semiring. O(n³).
//! * [`lift`] (Nivre & Nilsson 2005): pseudo-projective lifting, the usual
//!   baseline (Table 6): repeatedly lift the shortest non-projective arc.
//! * [`pseudo`] (Nivre & Nilsson 2005): pseudo-projective encoding of the
//!   moved words in their DEPREL ([`pseudo::encode`]), after lifting or
//!   optimal projectivization, and [`pseudo::decode`], which undoes it on
//!   any tree, a parser's output included.
//!
//! # Terminals
//!
//! Position i of a sentence (0 = the artificial root) becomes a grammar
//! terminal ([`SentenceTerminals`]): every word is `a`; the root is `root` if
//! the grammar has that terminal, otherwise `a` too. So
//! `grammars/projective.grammar` (Table 3) sees `a a … a`, and
//! `grammars/projective-single-root.grammar` sees `root a … a`, which lets the
//! root have states of its own. A grammar without `a` is an error.
//!
//! # Ties
//!
//! Several projective trees may keep the most gold arcs. The deterministic
//! choice is the engine's [`FirstChoice`](crate::engine::FirstChoice)
//! backtrace: top-down from W, at every item the first candidate in the
//! engine's enumeration order (rules in grammar-file order, then split points
//! from left to right). For Table 3 this means: when a head's rightmost
//! dependent in a span is chosen, the nearest candidate to the head wins;
//! for its leftmost dependent, the farthest; between two adjacent
//! heads the split point is the leftmost one. The rule depends only on the
//! tree, never on the thread count.

mod count;
mod function_words;
mod lift;
mod optimal;
mod prefer;
pub mod pseudo;

pub use count::{Counted, Counter};
pub use function_words::FunctionWords;
pub use lift::lift;
pub use optimal::{OptimalProjectivizer, OptimalSampler, Projectivized};
pub use prefer::{
    read_weights_file, ArcWeights, FillBuffers, GoldThenPreference, Objective, Preferred, PreferringProjectivizer,
    Weights, WeightsError, WeightsErrorKind, WeightsErrors, WordLabels, DEFAULT_WEIGHTS, MAX_WEIGHT, MAX_WEIGHTS_FILE,
};

use crate::engine::EngineError;
use crate::grammar::{Grammar, Terminal};

/// Errors of projectivization and counting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProjectivizeError {
    /// The grammar lacks a terminal that sentence positions map to.
    #[error("the grammar has no terminal `{0}` (words are terminal `a`; the root is `root` if present, else `a`)")]
    MissingTerminal(&'static str),
    /// The grammar derives no tree for a sentence of this length.
    #[error("the grammar derives no tree for a sentence of {0} words")]
    NoTree(usize),
    /// The labels given for a sentence do not have one entry per word.
    #[error("the sentence has {words} words but {labels} (UPOS, DEPREL) labels")]
    Labels { words: usize, labels: usize },
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The computation would need more memory than the limit.
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}

/// Which trees the grammar derives, as far as the fast path needs to know:
/// a gold tree in this class is its own unique optimal projectivization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeClass {
    /// All projective trees (Table 3, `grammars/projective.grammar`).
    Projective,
    /// Projective trees with exactly one child of the root
    /// (`grammars/projective-single-root.grammar`).
    ProjectiveSingleRoot,
    /// Unknown (a user grammar): every tree goes through the engine.
    Unknown,
}

impl TreeClass {
    /// Whether `tree` is derived by a grammar of this class. O(n).
    pub fn contains(self, tree: &crate::tree::DepTree) -> bool {
        match self {
            TreeClass::Projective => tree.is_projective(),
            TreeClass::ProjectiveSingleRoot => {
                tree.heads().iter().filter(|&&h| h == 0).count() == 1 && tree.is_projective()
            }
            TreeClass::Unknown => false,
        }
    }
}

/// The map from sentence positions to grammar terminals (see the
/// [module documentation](self#terminals)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentenceTerminals {
    pub root: Terminal,
    pub word: Terminal,
}

impl SentenceTerminals {
    /// `root` for position 0 if the grammar has it (else `a`), `a` for words.
    pub fn for_grammar(grammar: &Grammar) -> Result<Self, ProjectivizeError> {
        let word = grammar.terminal("a").ok_or(ProjectivizeError::MissingTerminal("a"))?;
        let root = grammar.terminal("root").unwrap_or(word);
        Ok(SentenceTerminals { root, word })
    }

    /// Fills `buf` with the terminals of a sentence of `n` words. O(n).
    pub fn fill(&self, n: usize, buf: &mut Vec<Terminal>) {
        buf.clear();
        buf.push(self.root);
        buf.resize(n + 1, self.word);
    }
}
