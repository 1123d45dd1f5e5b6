//! Counting optimal projective trees (Nederhof 2019, end of Sec. 3, Fig. 8).

use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{CheckedCount, Count, MaxCount};
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
/// It first runs with 64-bit checked counts and, only if a count overflows,
/// again with arbitrary-precision counts, so results are always exact and the
/// common case allocates nothing per item.
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
    small: Parser<'g, MaxCount<CheckedCount>>,
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
        let w = self.small.parse(&self.input, |h, d| MaxCount::new(weight(h, d)))?;
        let best = w.score.finite().ok_or(ProjectivizeError::NoTree(n))? as usize;
        if let Ok(c) = w.count.get() {
            return Ok(Counted { best, count: BigUint::from(c) });
        }
        let w = self.big.parse(&self.input, |h, d| MaxCount::new(weight(h, d)))?;
        Ok(Counted { best, count: w.count.0 })
    }
}
