//! The top-down walk shared by Viterbi backtrace ([`super::backtrace`]) and
//! sampling ([`super::sample`]): from the whole input down to single words,
//! each item lists the summands of its recurrence (Table 2 read backwards)
//! and a [`Pick`] strategy chooses one — a summand attaining the item's value
//! for backtrace, a weighted draw for sampling. O(n² · (|left combos| +
//! |right combos|)) time per walk after the parse.

use super::{Derivation, Parser, WordDerivation};
use crate::semiring::Semiring;
use crate::tree::DepTree;

/// How the walk chooses one summand of an item's recurrence.
pub(super) trait Pick<S> {
    /// Returns the tag of the chosen candidate. `candidates` are the
    /// summands (value, tag) of `total`, in the enumeration order documented
    /// at [`Parser::best_derivation`]; `total` is not 𝟘.
    fn pick(&mut self, total: &S, candidates: impl Iterator<Item = (S, (usize, usize))>) -> (usize, usize);
}

/// Walks the filled chart of `parser` top-down with `picker`; `None` if W = 𝟘.
/// The chart must be non-empty (the caller checks that something was parsed).
pub(super) fn walk<S: Semiring>(parser: &Parser<'_, S>, picker: &mut impl Pick<S>) -> Option<Derivation> {
    let size = parser.chart.size();
    let mut w = Walker { parser, picker, heads: vec![DepTree::NO_HEAD; size], words: vec![None; size] };
    w.start()?;
    let words = w.words.into_iter().map(|w| w.expect("every word is decorated")).collect();
    let tree = DepTree::from_heads(&w.heads[1..]).expect("a derivation builds a tree");
    Some(Derivation { tree, words })
}

struct Walker<'p, 'g, S, P> {
    parser: &'p Parser<'g, S>,
    picker: &'p mut P,
    heads: Vec<usize>,
    words: Vec<Option<WordDerivation>>,
}

impl<S: Semiring, P: Pick<S>> Walker<'_, '_, S, P> {
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
        let (s, _) = self.picker.pick(&total, cands);
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
        let (idx, k) = self.picker.pick(&total, cands);
        let combo = p.grammar.right_combos()[idx];
        let category = p.grammar.finish_rules()[combo.finish as usize].category;
        self.heads[k] = i;
        self.words[k] = Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
        self.right(combo.child_right.index(), k, j);
        self.adjacent(p.plan.right[idx].0, i, k, true);
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
        let (idx, k) = self.picker.pick(&total, cands);
        let combo = p.grammar.left_combos()[idx];
        let category = p.grammar.finish_rules()[combo.finish as usize].category;
        self.heads[k] = j;
        self.words[k] = Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
        self.left(combo.child_left.index(), i, k);
        self.adjacent(p.plan.left[idx].1, k, j, false);
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
        let (m, _) = self.picker.pick(&total, cands);
        self.right(b.index(), i, m);
        self.left(cs.index(), m + 1, j);
    }
}
