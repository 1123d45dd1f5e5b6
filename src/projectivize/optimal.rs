//! Optimal projectivization (Nederhof 2019, end of Sec. 3, Sec. 8.1).

use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{Count, MaxCount, MaxPlus, Semiring};
use crate::tree::DepTree;
use num_bigint::BigUint;
use rand::RngCore;

/// A projective tree and the number of gold arcs it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projectivized {
    pub tree: DepTree,
    /// Number of words whose gold head was kept (the best score W).
    pub score: usize,
}

/// The arc weights of Sec. 3: 1 for a gold arc, 0 otherwise.
#[inline]
fn gold_weight(gold: &DepTree, head: usize, dependent: usize) -> i64 {
    i64::from(dependent >= 1 && gold.head(dependent) == head)
}

/// Optimal projectivization with one reusable engine chart.
///
/// ```
/// use tabula::grammar::text;
/// use tabula::projectivize::{OptimalProjectivizer, TreeClass};
/// use tabula::tree::DepTree;
/// let g = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
/// let mut p = OptimalProjectivizer::new(&g, TreeClass::Projective).unwrap();
/// let gold = DepTree::from_heads(&[0, 0, 1]).unwrap(); // 1 -> 3 crosses 0 -> 2
/// let best = p.projectivize(&gold).unwrap();
/// assert_eq!(best.score, 2);
/// assert!(best.tree.is_projective());
/// ```
pub struct OptimalProjectivizer<'g> {
    parser: Parser<'g, MaxPlus<i64>>,
    terminals: SentenceTerminals,
    class: TreeClass,
    input: Vec<Terminal>,
}

impl<'g> OptimalProjectivizer<'g> {
    /// A projectivizer for `grammar` (see [`SentenceTerminals`]); `class`
    /// enables the fast path for trees the grammar is known to derive
    /// ([`TreeClass::Unknown`] disables it).
    pub fn new(grammar: &'g Grammar, class: TreeClass) -> Result<Self, ProjectivizeError> {
        let terminals = SentenceTerminals::for_grammar(grammar)?;
        Ok(OptimalProjectivizer { parser: Parser::new(grammar), terminals, class, input: Vec::new() })
    }

    /// A best projective tree for `gold`, ties broken by the documented
    /// deterministic rule ([module docs](super#ties)). O(n) if `gold` is in
    /// the grammar's class, else O(n³) (Table 2).
    pub fn projectivize(&mut self, gold: &DepTree) -> Result<Projectivized, ProjectivizeError> {
        if self.class.contains(gold) {
            return Ok(Projectivized { tree: gold.clone(), score: gold.len() });
        }
        self.projectivize_with_engine(gold)
    }

    /// Like [`projectivize`](Self::projectivize) without the fast path: every
    /// tree goes through the engine. O(n³).
    pub fn projectivize_with_engine(&mut self, gold: &DepTree) -> Result<Projectivized, ProjectivizeError> {
        let n = gold.len();
        self.terminals.fill(n, &mut self.input);
        let w = self.parser.parse(&self.input, |h, d| MaxPlus::new(gold_weight(gold, h, d)))?;
        let score = w.finite().ok_or(ProjectivizeError::NoTree(n))?;
        let tree = self.parser.best_derivation().ok_or(ProjectivizeError::NoTree(n))?.tree;
        Ok(Projectivized { tree, score: score as usize })
    }

    /// The best score only (no backtrace), without the fast path. O(n³).
    pub fn best_score(&mut self, gold: &DepTree) -> Result<usize, ProjectivizeError> {
        let n = gold.len();
        self.terminals.fill(n, &mut self.input);
        let w = self.parser.parse(&self.input, |h, d| MaxPlus::new(gold_weight(gold, h, d)))?;
        Ok(w.finite().ok_or(ProjectivizeError::NoTree(n))? as usize)
    }
}

/// Uniform sampling among all optimal projective trees: the (max, count)
/// semiring with exact counts, and a backtrace that picks each candidate
/// with probability (its count) / (sum of the candidates' counts). For an
/// unambiguous grammar (Table 3) each optimal tree is drawn with probability
/// 1 / (number of optimal trees). O(n³) big-integer operations per tree.
pub struct OptimalSampler<'g> {
    parser: Parser<'g, MaxCount<Count>>,
    terminals: SentenceTerminals,
    class: TreeClass,
    input: Vec<Terminal>,
}

impl<'g> OptimalSampler<'g> {
    /// A sampler for `grammar`; `class` as for [`OptimalProjectivizer::new`].
    pub fn new(grammar: &'g Grammar, class: TreeClass) -> Result<Self, ProjectivizeError> {
        let terminals = SentenceTerminals::for_grammar(grammar)?;
        Ok(OptimalSampler { parser: Parser::new(grammar), terminals, class, input: Vec::new() })
    }

    /// Draws an optimal projective tree for `gold` using `rng`. Trees in the
    /// grammar's class are their own unique optimum and use no randomness.
    pub fn sample(&mut self, gold: &DepTree, rng: &mut impl RngCore) -> Result<Projectivized, ProjectivizeError> {
        if self.class.contains(gold) {
            return Ok(Projectivized { tree: gold.clone(), score: gold.len() });
        }
        let n = gold.len();
        self.terminals.fill(n, &mut self.input);
        let w = self.parser.parse(&self.input, |h, d| MaxCount::new(gold_weight(gold, h, d)))?;
        let score = w.score.finite().ok_or(ProjectivizeError::NoTree(n))?;
        let mut choose = |candidates: &[MaxCount<Count>]| weighted_choice(candidates, rng);
        let tree = self.parser.best_derivation_with(&mut choose).ok_or(ProjectivizeError::NoTree(n))?.tree;
        Ok(Projectivized { tree, score: score as usize })
    }
}

/// Index i with probability count_i / Σ count, exactly.
fn weighted_choice(candidates: &[MaxCount<Count>], rng: &mut impl RngCore) -> usize {
    if candidates.len() == 1 {
        return 0;
    }
    let mut total = Count::zero();
    for c in candidates {
        total.plus_assign(&c.count);
    }
    let mut r = uniform_below(&total.0, rng);
    for (i, c) in candidates.iter().enumerate() {
        if r < c.count.0 {
            return i;
        }
        r -= &c.count.0;
    }
    candidates.len() - 1
}

/// A uniform integer in 0 … bound − 1 (bound > 0), by rejection sampling on
/// ⌈log₂ bound⌉ random bits: expected fewer than two draws.
pub(crate) fn uniform_below(bound: &BigUint, rng: &mut impl RngCore) -> BigUint {
    let bits = bound.bits();
    if bits == 0 {
        return BigUint::default();
    }
    let words = bits.div_ceil(32) as usize;
    let top_bits = bits - 32 * (words as u64 - 1);
    let mask = if top_bits == 32 { u32::MAX } else { (1u32 << top_bits) - 1 };
    let mut digits = vec![0u32; words];
    loop {
        for d in digits.iter_mut() {
            *d = rng.next_u32();
        }
        digits[words - 1] &= mask;
        let v = BigUint::new(digits.clone());
        if &v < bound {
            return v;
        }
    }
}
