//! Viterbi backtrace: a best derivation from a filled chart, for selective
//! semirings (max-plus, max-count). Items are re-expanded top-down by the
//! walk of [`super::walk`]: at each item the summands of its recurrence that
//! attain its value are the candidates, and a [`TieBreak`] picks one. O(n²)
//! time after parsing.

use super::walk::{walk, Pick};
use super::Parser;
use crate::grammar::{Category, LeftState, RightState};
use crate::semiring::Selective;
use crate::tree::DepTree;

/// Picks one of several summands that all attain an item's value.
pub trait TieBreak<S> {
    /// Returns an index into `candidates` (non-empty, in the enumeration order
    /// documented at [`Parser::best_derivation`]).
    fn choose(&mut self, candidates: &[S]) -> usize;
}

/// Always the first candidate: the deterministic choice.
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstChoice;

impl<S> TieBreak<S> for FirstChoice {
    fn choose(&mut self, _: &[S]) -> usize {
        0
    }
}

impl<S, F: FnMut(&[S]) -> usize> TieBreak<S> for F {
    fn choose(&mut self, candidates: &[S]) -> usize {
        self(candidates)
    }
}

/// How a word is decorated in a derivation: the category it finished with and
/// its final left and right states (the rule `category -> (left, right)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordDerivation {
    pub category: Category,
    pub left: LeftState,
    pub right: RightState,
}

/// A derivation: the dependency tree it builds and the decoration of each position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    pub tree: DepTree,
    /// `words[i]` decorates position i (position 0 has the start category).
    pub words: Vec<WordDerivation>,
}

impl<S: Selective> Parser<'_, S> {
    /// A best derivation of the last [`parse`](Parser::parse), or `None` if
    /// nothing was parsed or W = 𝟘. Ties are broken by [`FirstChoice`]:
    /// start rules in file order; for an item, attachment rules in the
    /// grammar's order (finish rules of the child in file order), then the
    /// split point from left to right.
    pub fn best_derivation(&self) -> Option<Derivation> {
        self.best_derivation_with(&mut FirstChoice)
    }

    /// Like [`best_derivation`](Parser::best_derivation) with a caller's tie-break,
    /// e.g. a random choice weighted by counts to sample among optimal trees.
    pub fn best_derivation_with(&self, tie: &mut impl TieBreak<S>) -> Option<Derivation> {
        if self.parsed_size() == 0 {
            return None;
        }
        walk(self, &mut Attaining { tie, values: Vec::new(), choices: Vec::new() })
    }
}

/// The backtrace's [`Pick`]: among the summands that attain the item's
/// value, the one the [`TieBreak`] chooses.
struct Attaining<'t, S, T> {
    tie: &'t mut T,
    values: Vec<S>,
    choices: Vec<(usize, usize)>,
}

impl<S: Selective, T: TieBreak<S>> Pick<S> for Attaining<'_, S, T> {
    /// Keeps the candidates that attain `total` and lets the tie-break pick one.
    fn pick(&mut self, total: &S, candidates: impl Iterator<Item = (S, (usize, usize))>) -> (usize, usize) {
        self.values.clear();
        self.choices.clear();
        for (v, c) in candidates {
            if v.attains(total) {
                self.values.push(v);
                self.choices.push(c);
            }
        }
        assert!(!self.values.is_empty(), "no summand attains a non-zero item");
        let i = self.tie.choose(&self.values);
        self.choices[i]
    }
}
