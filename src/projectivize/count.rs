//! Counting optimal projective trees (Nederhof 2019, end of Sec. 3, Fig. 8).

use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{Count, MaxCount, Semiring};
use crate::tree::DepTree;
use num_bigint::BigUint;

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
    big: Parser<'g, MaxCount<Count>>,
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
        Ok(Counted { best, count: w.count.0 })
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
