//! Counting optimal projective trees (Nederhof 2019, end of Sec. 3, Fig. 8).

use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{MaxPlus, Semiring};
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

/// Counts optimal projectivizations: a max-plus parse (as for
/// projectivization), then the optimal derivations counted top-down over
/// the items that some optimal derivation uses ([`Parser::count_best`]),
/// with exact arbitrary-precision integers.
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
    parser: Parser<'g, MaxPlus<i64>>,
    terminals: SentenceTerminals,
    class: TreeClass,
    input: Vec<Terminal>,
}

impl<'g> Counter<'g> {
    /// A counter for `grammar`; `class` as for
    /// [`OptimalProjectivizer::new`](super::OptimalProjectivizer::new).
    pub fn new(grammar: &'g Grammar, class: TreeClass) -> Result<Self, ProjectivizeError> {
        let terminals = SentenceTerminals::for_grammar(grammar)?;
        Ok(Counter { parser: Parser::new(grammar), terminals, class, input: Vec::new() })
    }

    /// Best score and exact count for `gold`. O(n) if `gold` is in the
    /// grammar's class (it is then the only tree keeping all n arcs), else
    /// O(n³) max-plus operations, then O(u · n) for the u chart items used
    /// by optimal derivations, and one big-integer product per optimal
    /// split of those items.
    pub fn count(&mut self, gold: &DepTree) -> Result<Counted, ProjectivizeError> {
        let n = gold.len();
        if self.class.contains(gold) {
            return Ok(Counted { best: n, count: BigUint::from(1u32) });
        }
        self.terminals.fill(n, &mut self.input);
        let w = self.parser.parse(&self.input, |h, d| MaxPlus::new(i64::from(d >= 1 && gold.head(d) == h)))?;
        if w.is_zero() {
            return Err(ProjectivizeError::NoTree(n));
        }
        let best = w.finite().expect("not zero") as usize;
        let count = self.parser.count_best().map_err(crate::engine::EngineError::from)?;
        Ok(Counted { best, count })
    }
}
