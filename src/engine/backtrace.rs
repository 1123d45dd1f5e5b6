//! Viterbi backtrace: a best derivation from a filled chart, for selective
//! semirings (max-plus, max-count). Items are re-expanded top-down: at each
//! item the summands of its recurrence that attain its value are the
//! candidates, and a [`TieBreak`] picks one. O(n²) time after parsing.

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
        let size = self.parsed_size();
        if size == 0 {
            return None;
        }
        let mut t = Tracer {
            parser: self,
            tie,
            heads: vec![DepTree::NO_HEAD; size],
            words: vec![None; size],
            values: Vec::new(),
            choices: Vec::new(),
        };
        t.start()?;
        let heads = t.heads;
        let words = t.words.into_iter().map(|w| w.expect("every word is decorated")).collect();
        let tree = DepTree::from_heads(&heads[1..]).expect("a derivation builds a tree");
        Some(Derivation { tree, words })
    }
}

struct Tracer<'p, 'g, S, T> {
    parser: &'p Parser<'g, S>,
    tie: &'p mut T,
    heads: Vec<usize>,
    words: Vec<Option<WordDerivation>>,
    values: Vec<S>,
    choices: Vec<(usize, usize)>,
}

impl<S: Selective, T: TieBreak<S>> Tracer<'_, '_, S, T> {
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

    fn start(&mut self) -> Option<()> {
        let p = self.parser;
        let c = &p.chart;
        let n = c.size() - 1;
        let total = p.start_value();
        if total.is_zero() {
            return None;
        }
        let cands = p
            .plan
            .start
            .iter()
            .enumerate()
            .map(|(s, &(l, r))| (c.left(l.index(), 0, 0).times(c.right(r.index(), 0, n)), (s, 0)));
        let (s, _) = self.pick(&total, cands);
        let (l, r) = p.plan.start[s];
        self.words[0] = Some(WordDerivation { category: p.grammar.start(), left: l, right: r });
        self.right(r.index(), 0, n);
        Some(())
    }

    /// Expands Wr(state, i, j).
    fn right(&mut self, state: usize, i: usize, j: usize) {
        if i == j {
            return;
        }
        let p = self.parser;
        let c = &p.chart;
        let total = c.right(state, i, j).clone();
        let cands =
            p.plan.right.iter().enumerate().filter(|(_, r)| r.2.index() == state).flat_map(|(idx, &(pair, d, _))| {
                (i + 1..=j).map(move |k| (c.incomplete_right(pair, i, k).times(c.right(d.index(), k, j)), (idx, k)))
            });
        let (idx, k) = self.pick(&total, cands);
        let combo = p.grammar.right_combos()[idx];
        let category = p.grammar.finish_rules()[combo.finish as usize].category;
        self.heads[k] = i;
        self.words[k] = Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
        self.right(combo.child_right.index(), k, j);
        let pair = p.plan.right[idx].0;
        self.adjacent(pair, i, k, true);
    }

    /// Expands Wl(state, i, j).
    fn left(&mut self, state: usize, i: usize, j: usize) {
        if i == j {
            return;
        }
        let p = self.parser;
        let c = &p.chart;
        let total = c.left(state, i, j).clone();
        let cands =
            p.plan.left.iter().enumerate().filter(|(_, r)| r.2.index() == state).flat_map(|(idx, &(d, pair, _))| {
                (i..j).map(move |k| (c.left(d.index(), i, k).times(c.incomplete_left(pair, k, j)), (idx, k)))
            });
        let (idx, k) = self.pick(&total, cands);
        let combo = p.grammar.left_combos()[idx];
        let category = p.grammar.finish_rules()[combo.finish as usize].category;
        self.heads[k] = j;
        self.words[k] = Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
        self.left(combo.child_left.index(), i, k);
        let pair = p.plan.left[idx].1;
        self.adjacent(pair, k, j, false);
    }

    /// Expands the arc item over Z(pair, i, j): `rightward` is the arc i → j,
    /// otherwise j → i.
    fn adjacent(&mut self, pair: usize, i: usize, j: usize, rightward: bool) {
        let p = self.parser;
        let c = &p.chart;
        let (b, cs) = p.plan.pairs[pair];
        let (total, w) = if rightward {
            (c.incomplete_right(pair, i, j).clone(), c.weight(i, j))
        } else {
            (c.incomplete_left(pair, i, j).clone(), c.weight(j, i))
        };
        let cands = (i..j).map(|m| (c.right(b.index(), i, m).times(c.left(cs.index(), m + 1, j)).times(w), (m, 0)));
        let (m, _) = self.pick(&total, cands);
        self.right(b.index(), i, m);
        self.left(cs.index(), m + 1, j);
    }
}
