//! Counting optimal projective trees (Nederhof 2019, end of Sec. 3, Fig. 8).

use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{MaxCount, Semiring};
use crate::tree::DepTree;
use num_bigint::BigUint;
use std::sync::Arc;

/// The best score and how many trees reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The most gold arcs a tree of the grammar keeps.
    pub best: usize,
    /// The exact number of derivations (for an unambiguous grammar: trees)
    /// keeping `best` gold arcs.
    pub count: BigUint,
}

/// Counts optimal projectivizations with the (max, count) semiring.
///
/// It first runs in a compact (max, count) semiring (`ScoreCount`: a 32-bit
/// score and a saturating 64-bit count) and, only if a count saturates, again
/// with [`MaxCount`] over arbitrary-precision [`Count`], so results are always
/// exact and the common case allocates nothing per item.
///
/// ```
/// use tabula::grammar::text;
/// use tabula::projectivize::{Counter, TreeClass};
/// use tabula::tree::DepTree;
/// let g = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
/// let mut c = Counter::new(&g, TreeClass::Projective).unwrap();
/// let gold = DepTree::from_heads(&[0, 0, 1]).unwrap();
/// let r = c.count(&gold).unwrap();
/// assert_eq!((r.best, r.count), (2, 4u32.into()));
/// ```
pub struct Counter<'g> {
    small: Parser<'g, ScoreCount>,
    big: Parser<'g, MaxCount<HybridCount>>,
    terminals: SentenceTerminals,
    class: TreeClass,
    input: Vec<Terminal>,
}

impl<'g> Counter<'g> {
    /// A counter for `grammar`; `class` as for
    /// [`OptimalProjectivizer::new`](super::OptimalProjectivizer::new).
    pub fn new(grammar: &'g Grammar, class: TreeClass) -> Result<Self, ProjectivizeError> {
        let terminals = SentenceTerminals::for_grammar(grammar)?;
        Ok(Counter { small: Parser::new(grammar), big: Parser::new(grammar), terminals, class, input: Vec::new() })
    }

    /// Best score and exact count for `gold`. O(n) if `gold` is in the
    /// grammar's class (it is then the only tree keeping all n arcs), else
    /// O(n³) semiring operations.
    pub fn count(&mut self, gold: &DepTree) -> Result<Counted, ProjectivizeError> {
        let n = gold.len();
        if self.class.contains(gold) {
            return Ok(Counted { best: n, count: BigUint::from(1u32) });
        }
        self.terminals.fill(n, &mut self.input);
        let weight = |h: usize, d: usize| i64::from(d >= 1 && gold.head(d) == h);
        let w = self.small.parse(&self.input, |h, d| ScoreCount { score: weight(h, d) as i32, count: 1 })?;
        if w.is_zero() {
            return Err(ProjectivizeError::NoTree(n));
        }
        let best = w.score as usize;
        if w.count != SATURATED {
            return Ok(Counted { best, count: BigUint::from(w.count) });
        }
        let w = self.big.parse(&self.input, |h, d| MaxCount::new(weight(h, d)))?;
        Ok(Counted { best, count: w.count.into_biguint() })
    }
}

/// The count standing for "at least 2⁶⁴ − 1": sticky under ⊕ and ⊗.
const SATURATED: u64 = u64::MAX;

/// The (max, count) semiring in 16 bytes, for [`Counter`]'s first pass:
/// ⊕ keeps the higher score and adds the counts of equal scores, ⊗ adds
/// scores and multiplies counts; 𝟘 = (−∞ as `i32::MIN`, 0), 𝟙 = (0, 1).
/// Counts saturate at [`SATURATED`] (a finite score never has count 0, so
/// saturation is never undone). Scores are at most n, far below `i32::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ScoreCount {
    score: i32,
    count: u64,
}

impl Semiring for ScoreCount {
    #[inline]
    fn zero() -> Self {
        ScoreCount { score: i32::MIN, count: 0 }
    }
    #[inline]
    fn one() -> Self {
        ScoreCount { score: 0, count: 1 }
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        if other.score > self.score {
            *self = *other;
        } else if other.score == self.score && other.score != i32::MIN {
            self.count = self.count.saturating_add(other.count);
        }
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        if self.score == i32::MIN || other.score == i32::MIN {
            return Self::zero();
        }
        ScoreCount { score: self.score + other.score, count: self.count.saturating_mul(other.count) }
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.score == i32::MIN
    }
}

/// An exact count for [`Counter`]'s second pass: a machine word while it
/// fits, else an arbitrary-precision integer behind an [`Arc`], so that the
/// engine's copies of a chart cell (row and column layouts) share the
/// digits instead of copying them. Small and big values never compare equal
/// by value (a big value is never below 2⁶⁴, as counts only grow).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HybridCount {
    Small(u64),
    Big(Arc<BigUint>),
}

impl HybridCount {
    fn big(x: BigUint) -> Self {
        HybridCount::Big(Arc::new(x))
    }
    /// The value as a `BigUint`.
    pub(crate) fn into_biguint(self) -> BigUint {
        match self {
            HybridCount::Small(x) => BigUint::from(x),
            HybridCount::Big(x) => Arc::unwrap_or_clone(x),
        }
    }
}

impl Semiring for HybridCount {
    #[inline]
    fn zero() -> Self {
        HybridCount::Small(0)
    }
    #[inline]
    fn one() -> Self {
        HybridCount::Small(1)
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        match (&mut *self, other) {
            (HybridCount::Small(a), HybridCount::Small(b)) => match a.checked_add(*b) {
                Some(s) => *a = s,
                None => *self = Self::big(BigUint::from(*a) + *b),
            },
            (HybridCount::Big(a), HybridCount::Small(b)) => *Arc::make_mut(a) += *b,
            (HybridCount::Big(a), HybridCount::Big(b)) => *Arc::make_mut(a) += &**b,
            (HybridCount::Small(a), HybridCount::Big(b)) => {
                let sum = &**b + *a;
                *self = Self::big(sum);
            }
        }
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        match (self, other) {
            (HybridCount::Small(0), _) | (_, HybridCount::Small(0)) => HybridCount::Small(0),
            (HybridCount::Small(1), x) | (x, HybridCount::Small(1)) => x.clone(),
            (HybridCount::Small(a), HybridCount::Small(b)) => match a.checked_mul(*b) {
                Some(p) => HybridCount::Small(p),
                None => Self::big(BigUint::from(u128::from(*a) * u128::from(*b))),
            },
            (HybridCount::Small(a), HybridCount::Big(b)) | (HybridCount::Big(b), HybridCount::Small(a)) => {
                Self::big(&**b * *a)
            }
            (HybridCount::Big(a), HybridCount::Big(b)) => Self::big(&**a * &**b),
        }
    }
    #[inline]
    fn is_zero(&self) -> bool {
        matches!(self, HybridCount::Small(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hybrid_counts_are_exact_across_the_word_boundary() {
        let big = |x: u128| HybridCount::big(BigUint::from(x));
        let max = HybridCount::Small(u64::MAX);
        let mut s = max.clone();
        s.plus_assign(&HybridCount::Small(1));
        assert_eq!(s, big(1u128 << 64));
        assert_eq!(max.times(&HybridCount::Small(2)), big(u128::from(u64::MAX) * 2));
        assert_eq!(s.times(&s).into_biguint(), BigUint::from(1u8) << 128);
        let mut t = HybridCount::Small(5);
        t.plus_assign(&s);
        assert_eq!(t.into_biguint(), (BigUint::from(1u8) << 64) + 5u8);
        assert!(HybridCount::Small(0).times(&s).is_zero());
        assert_eq!(HybridCount::Small(1).times(&s), s);
    }
}
