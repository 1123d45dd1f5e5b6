//! Drawing derivations from a filled chart with probability proportional to
//! their weight (forward filtering, backward sampling: the inside pass
//! first, then the sampling): top-down from the whole input, each item
//! picks one summand of its recurrence with probability equal to the
//! summand's share of the item's value ([`Sampling::share`]). In
//! [`LogSumExp`](crate::semiring::LogSumExp) that draws a derivation t with
//! probability ∏ exp w / Z; in [`MaxCount`](crate::semiring::MaxCount), an
//! optimal derivation uniformly. O(n²) per sample after the parse.

use super::{Derivation, EngineError, Parser, WordDerivation};
use crate::semiring::Sampling;
use crate::tree::DepTree;
use rand::Rng;

impl<S: Sampling> Parser<'_, S> {
    /// One derivation of the last [`parse`](Parser::parse), drawn with
    /// probability proportional to its weight (see the module documentation).
    ///
    /// # Errors
    /// [`EngineError::NotParsed`] before the first parse;
    /// [`EngineError::NoDerivation`] if W = 𝟘.
    ///
    /// # Complexity
    /// O(n² · (|left combos| + |right combos|)) time per sample.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Derivation, EngineError> {
        let size = self.parsed_size();
        if size == 0 {
            return Err(EngineError::NotParsed);
        }
        let mut s = Sampler {
            parser: self,
            rng,
            heads: vec![DepTree::NO_HEAD; size],
            words: vec![None; size],
            shares: Vec::new(),
            choices: Vec::new(),
        };
        s.start()?;
        let words = s.words.into_iter().map(|w| w.expect("every word is decorated")).collect();
        let tree = DepTree::from_heads(&s.heads[1..]).expect("a derivation builds a tree");
        Ok(Derivation { tree, words })
    }
}

struct Sampler<'p, 'g, S, R: ?Sized> {
    parser: &'p Parser<'g, S>,
    rng: &'p mut R,
    heads: Vec<usize>,
    words: Vec<Option<WordDerivation>>,
    shares: Vec<f64>,
    choices: Vec<(usize, usize)>,
}

impl<S: Sampling, R: Rng + ?Sized> Sampler<'_, '_, S, R> {
    /// Draws one of the candidates with probability proportional to its
    /// share of `total` (never one of share 0).
    fn pick(&mut self, total: &S, candidates: impl Iterator<Item = (S, (usize, usize))>) -> (usize, usize) {
        self.shares.clear();
        self.choices.clear();
        let mut sum = 0.0;
        for (v, c) in candidates {
            let share = v.share(total);
            if share > 0.0 {
                sum += share;
                self.shares.push(sum);
                self.choices.push(c);
            }
        }
        assert!(!self.choices.is_empty(), "no summand of a non-zero item has a positive share");
        let u = self.rng.gen::<f64>() * sum;
        let i = self.shares.partition_point(|&cumulative| cumulative <= u).min(self.choices.len() - 1);
        self.choices[i]
    }

    fn start(&mut self) -> Result<(), EngineError> {
        let p = self.parser;
        let c = &p.chart;
        let n = c.size() - 1;
        let total = p.start_value();
        if total.is_zero() {
            return Err(EngineError::NoDerivation);
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
        Ok(())
    }

    /// Samples below Wr(state, i, j).
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
        self.adjacent(p.plan.right[idx].0, i, k, true);
    }

    /// Samples below Wl(state, i, j).
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
        self.adjacent(p.plan.left[idx].1, k, j, false);
    }

    /// Samples below the arc item over Z(pair, i, j): `rightward` is i → j.
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
