//! The distribution over the trees a grammar derives, given real arc scores:
//! p(t) ∝ (number of derivations of t) · ∏_{(h,d) ∈ t} exp s(h, d) — for an
//! unambiguous grammar such as `grammars/projective.grammar` (Nederhof 2019,
//! Table 3), the projective CRF of dependency parsing. Log-partition, arc
//! marginals, entropy, the expected number of gold arcs and samples, all
//! exact, by the engine ([`crate::engine`]) in [`ScaledReal`] (probability
//! space with a power-of-two scale per value: one `exp` per arc score, then
//! plain products and sums); the entropy and expectations from the
//! marginals. [`LogSumExp`] and [`LogExpectation`] compute the same values
//! in log space with an `exp` per term; the tests use them as the reference.
//!
//! Scores are an (n+1)×(n+1) row-major matrix, row = head, column =
//! dependent (position 0 the root; the diagonal is ignored; −∞ forbids an
//! arc), as [`crate::nonprojective`] takes them for all trees.
//!
//! Every derivation has exactly one arc into each word, so the scores of
//! each column d are shifted by their maximum c_d before parsing and
//! log Z = log Z(s − c) + Σ c_d: values stay near 0 and keep their full
//! precision however large the scores (the marginals, entropy and samples
//! do not change under the shift).

use crate::engine::{EngineError, Parser};
use crate::grammar::{Grammar, Terminal};
#[cfg(doc)]
use crate::semiring::{LogExpectation, LogSumExp};
use crate::semiring::{RealMaxPlus, ScaledReal, Semifield, Semiring};
use crate::tree::DepTree;
use rand::Rng;

/// Errors of [`TreeDistribution`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DistributionError {
    /// The score matrix does not match the input.
    #[error("the scores must be {size}×{size} (one row and column per input terminal), found {len} entries")]
    Shape { len: usize, size: usize },
    /// A score that is NaN or +∞.
    #[error("the score of arc {head} -> {dependent} is {value}: scores must be finite or -inf")]
    NotFinite { head: usize, dependent: usize, value: f64 },
    /// A gold tree of another length than the input.
    #[error("the gold tree has {found} words, the input {expected}")]
    GoldLength { expected: usize, found: usize },
    /// An error of the engine (empty input, unknown terminal, no derivation, memory).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The expected number of uses of every rule in a derivation of the
/// distribution ([`TreeDistribution::rule_marginals`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleMarginals {
    /// Per finish rule `A -> (B, C)`, indexed as [`Grammar::finish_rules`].
    pub finish: Vec<f64>,
    /// Per left attachment rule `(B', _) -> A (B, _)`, indexed as [`Grammar::left_rules`].
    pub left: Vec<f64>,
    /// Per right attachment rule `(_, C') -> (_, C) A`, indexed as [`Grammar::right_rules`].
    pub right: Vec<f64>,
}

/// Parsers of one grammar in the semirings of the distribution, with their
/// charts reused across calls (see [`Parser`]).
///
/// ```
/// use tabula::distribution::TreeDistribution;
/// use tabula::grammar::text;
///
/// let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
/// let input = vec![g.terminal("a").unwrap(); 3]; // the root and two words
/// let mut dist = TreeDistribution::new(&g);
/// // All scores 0: the 3 projective trees are equally likely.
/// let scores = [0.0; 9];
/// assert!((dist.log_partition(&input, &scores).unwrap() - 3f64.ln()).abs() < 1e-12);
/// let mut m = Vec::new();
/// dist.marginals(&input, &scores, &mut m).unwrap();
/// assert!((m[0 * 3 + 1] - 2.0 / 3.0).abs() < 1e-12); // 0 → 1 in two trees of three
/// assert!((dist.entropy(&input, &scores).unwrap() - 3f64.ln()).abs() < 1e-12);
/// ```
pub struct TreeDistribution<'g> {
    scaled: Parser<'g, ScaledReal>,
    best: Parser<'g, RealMaxPlus>,
    shifted: Vec<f64>,
    buffer: Vec<ScaledReal>,
}

impl<'g> TreeDistribution<'g> {
    /// Parsers for `grammar`, charts empty. O(|rules|²).
    pub fn new(grammar: &'g Grammar) -> Self {
        TreeDistribution {
            scaled: Parser::new(grammar),
            best: Parser::new(grammar),
            shifted: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Checks the scores and keeps them shifted per column in `self.shifted`;
    /// returns Σ c_d, or −∞ if some word has no allowed head.
    fn shift(&mut self, size: usize, scores: &[f64]) -> Result<f64, DistributionError> {
        if size == 0 {
            return Err(EngineError::EmptyInput.into());
        }
        if scores.len() != size * size {
            return Err(DistributionError::Shape { len: scores.len(), size });
        }
        self.shifted.clear();
        self.shifted.extend_from_slice(scores);
        let mut total = 0.0;
        for d in 0..size {
            let mut max = f64::NEG_INFINITY;
            for h in (0..size).filter(|&h| h != d) {
                let s = scores[h * size + d];
                if s.is_nan() || s == f64::INFINITY {
                    return Err(DistributionError::NotFinite { head: h, dependent: d, value: s });
                }
                max = max.max(s);
            }
            if d == 0 || max == f64::NEG_INFINITY {
                continue;
            }
            total += max;
            for h in 0..size {
                self.shifted[h * size + d] -= max;
            }
        }
        Ok(total)
    }

    /// Runs the inside pass in [`ScaledReal`]; returns (ln Z of the shifted
    /// scores, Σ c_d).
    fn parse(&mut self, input: &[Terminal], scores: &[f64]) -> Result<(f64, f64), DistributionError> {
        let size = input.len();
        let shift = self.shift(size, scores)?;
        let s = &self.shifted;
        let z = self.scaled.parse(input, |h, d| ScaledReal::from_ln(s[h * size + d]))?;
        Ok((z.ln(), shift))
    }

    /// The inside and outside passes: the marginals in `self.buffer`;
    /// returns (ln Z of the shifted scores, Σ c_d).
    fn shifted_marginals(&mut self, input: &[Terminal], scores: &[f64]) -> Result<(f64, f64), DistributionError> {
        let (z, shift) = self.parse(input, scores)?;
        self.scaled.marginals_into(&mut self.buffer)?;
        Ok((z, shift))
    }

    /// ln Z, −∞ if the grammar derives no tree with these scores. O(n³).
    ///
    /// # Errors
    /// [`DistributionError::Shape`], [`DistributionError::NotFinite`] and the
    /// engine's errors for the input.
    pub fn log_partition(&mut self, input: &[Terminal], scores: &[f64]) -> Result<f64, DistributionError> {
        let (z, shift) = self.parse(input, scores)?;
        Ok(if z == f64::NEG_INFINITY { z } else { z + shift })
    }

    /// Arc marginals P(h → d ∈ t) in `out`, (n+1)×(n+1) row-major (row =
    /// head, column = dependent): the gradient of ln Z with respect to the
    /// scores, by the outside pass ([`Parser::marginals`]). Returns ln Z.
    /// O(n³).
    ///
    /// # Errors
    /// As [`log_partition`](Self::log_partition), and
    /// [`EngineError::NoDerivation`] if Z = 0.
    pub fn marginals(
        &mut self,
        input: &[Terminal],
        scores: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<f64, DistributionError> {
        let (z, shift) = self.shifted_marginals(input, scores)?;
        out.clear();
        out.extend(self.buffer.iter().map(ScaledReal::to_f64));
        Ok(z + shift)
    }

    /// The entropy −Σₜ p(t) ln p(t) of the distribution over derivations
    /// (over trees, for an unambiguous grammar), in nats: H = ln Z − E[s]
    /// with E[s] = Σ_{h,d} P(h → d) s(h, d) by linearity of expectation
    /// (Li & Eisner 2009 compute the same E[s] in the expectation semiring,
    /// [`LogExpectation`]), from the marginals. O(n³).
    ///
    /// # Errors
    /// As [`marginals`](Self::marginals).
    pub fn entropy(&mut self, input: &[Terminal], scores: &[f64]) -> Result<f64, DistributionError> {
        // On the shifted scores: the shift changes ln Z and E[s] alike.
        let (z, _) = self.shifted_marginals(input, scores)?;
        let mean: f64 =
            self.buffer.iter().zip(&self.shifted).filter(|(m, _)| !m.is_zero()).map(|(m, s)| m.to_f64() * s).sum();
        // Rounding can leave −1e-16 for a distribution on one tree.
        Ok((z - mean).max(0.0))
    }

    /// The expected number of arcs of `gold` in a tree of the distribution,
    /// Σ_{(h,d) ∈ gold} P(h → d), from the marginals. O(n³).
    ///
    /// # Errors
    /// As [`marginals`](Self::marginals), and [`DistributionError::GoldLength`].
    pub fn expected_gold_arcs(
        &mut self,
        input: &[Terminal],
        scores: &[f64],
        gold: &DepTree,
    ) -> Result<f64, DistributionError> {
        let size = input.len();
        self.shift(size, scores)?;
        if gold.len() + 1 != size {
            return Err(DistributionError::GoldLength { expected: size - 1, found: gold.len() });
        }
        self.shifted_marginals(input, scores)?;
        Ok(gold.arcs().map(|(h, d)| self.buffer[h * size + d].to_f64()).sum())
    }

    /// `count` trees drawn independently from the distribution (with
    /// replacement), by sampling top-down from the inside chart
    /// ([`Parser::sample`]). O(n³ + count · n²).
    ///
    /// # Errors
    /// As [`marginals`](Self::marginals); [`EngineError::TooMuchMemory`] if
    /// the trees would exceed the memory limit ([`crate::memory`]).
    pub fn sample<R: Rng + ?Sized>(
        &mut self,
        input: &[Terminal],
        scores: &[f64],
        count: usize,
        rng: &mut R,
    ) -> Result<Vec<DepTree>, DistributionError> {
        crate::memory::check(count.checked_mul(input.len()), std::mem::size_of::<usize>(), || {
            format!("{count} samples of {} terminals", input.len())
        })
        .map_err(EngineError::from)?;
        self.parse(input, scores)?;
        (0..count).map(|_| Ok(self.scaled.sample(rng)?.tree)).collect()
    }

    /// Rule marginals: the expected number of uses of every finish and
    /// attachment rule of the grammar in a derivation of the distribution,
    /// from the rule combinations' sums of the outside pass
    /// ([`Parser::combo_sums`]) divided by Z. A start rule's use counts as a
    /// use of its finish rule. (Each lexical rule is used once per
    /// occurrence of its terminal.) O(n³).
    ///
    /// # Errors
    /// As [`marginals`](Self::marginals).
    pub fn rule_marginals(&mut self, input: &[Terminal], scores: &[f64]) -> Result<RuleMarginals, DistributionError> {
        self.parse(input, scores)?;
        let sums = self.scaled.combo_sums()?;
        // Every derivation uses exactly one start rule: their sums add up to Z.
        let total = sums.start.iter().fold(ScaledReal::zero(), |acc, v| acc.plus(v));
        if total.is_zero() {
            return Err(EngineError::NoDerivation.into());
        }
        let g = self.scaled.grammar();
        let mut out = RuleMarginals {
            finish: vec![0.0; g.finish_rules().len()],
            left: vec![0.0; g.left_rules().len()],
            right: vec![0.0; g.right_rules().len()],
        };
        for (c, v) in g.left_combos().iter().zip(&sums.left) {
            let e = v.divide(&total).to_f64();
            out.finish[c.finish as usize] += e;
            out.left[c.attach as usize] += e;
        }
        for (c, v) in g.right_combos().iter().zip(&sums.right) {
            let e = v.divide(&total).to_f64();
            out.finish[c.finish as usize] += e;
            out.right[c.attach as usize] += e;
        }
        // `sums.start` follows the finish rules of the start category in file order.
        let starts = (0..g.finish_rules().len()).filter(|&f| g.finish_rules()[f].category == g.start());
        for (f, v) in starts.zip(&sums.start) {
            out.finish[f] += v.divide(&total).to_f64();
        }
        Ok(out)
    }

    /// ln of the number of derivations of the tree with heads `heads`
    /// (of words 1 … n; 0 the root): 0 for a tree of an unambiguous grammar
    /// (one derivation), −∞ for a tree the grammar does not derive. With
    /// it, ln p(t) = Σ_{(h,d) ∈ t} s(h, d) + this − ln Z for any grammar.
    /// The engine with weight 1 on the tree's arcs and 0 elsewhere. O(n³).
    ///
    /// # Errors
    /// [`DistributionError::GoldLength`] if `heads` has another length
    /// than the input's words; the engine's errors for the input.
    pub fn tree_log_derivations(&mut self, input: &[Terminal], heads: &[usize]) -> Result<f64, DistributionError> {
        if heads.len() + 1 != input.len() {
            return Err(DistributionError::GoldLength { expected: input.len().saturating_sub(1), found: heads.len() });
        }
        let on_tree = |h: usize, d: usize| d >= 1 && heads[d - 1] == h;
        let v = self.scaled.parse(input, |h, d| if on_tree(h, d) { ScaledReal::one() } else { ScaledReal::zero() })?;
        Ok(v.ln())
    }

    /// The `k` best trees (derivations, for an ambiguous grammar) with their
    /// total scores, best first; fewer if the grammar derives fewer. Lazy
    /// k-best in max-plus ([`Parser::k_best`]).
    ///
    /// # Errors
    /// As [`log_partition`](Self::log_partition).
    pub fn k_best(
        &mut self,
        input: &[Terminal],
        scores: &[f64],
        k: usize,
    ) -> Result<Vec<(f64, DepTree)>, DistributionError> {
        let size = input.len();
        let shift = self.shift(size, scores)?;
        let s = &self.shifted;
        self.best.parse(input, |h, d| RealMaxPlus(s[h * size + d]))?;
        Ok(self.best.k_best(k)?.into_iter().map(|(v, d)| (v.0 + shift, d.tree)).collect())
    }
}
