//! Dependency trees over positions 0 … n, position 0 being the artificial root.

use std::fmt;

/// Why a list of heads is not a dependency tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// A head outside 0 … n.
    #[error("head {head} of word {dependent} is out of range 0 to {n}")]
    HeadOutOfRange { dependent: usize, head: usize, n: usize },
    /// A word that heads itself.
    #[error("word {0} is its own head")]
    SelfLoop(usize),
    /// Following heads from `0`'s descendants never reaches the root.
    #[error("the heads form a cycle through word {0}")]
    Cycle(usize),
}

/// Why a gold tree given as numbers is not one ([`DepTree::from_gold`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoldError {
    /// A negative head (other than a leading -1).
    #[error("head {head} of word {dependent} is out of range 0 to {n}")]
    Negative { dependent: usize, head: i64, n: usize },
    #[error(transparent)]
    Tree(#[from] TreeError),
}

/// A dependency tree: the head of every position 1 … n; position 0 is the root.
/// Any tree is allowed, projective or not.
///
/// A *partial* tree ([`DepTree::from_partial_heads`]: a treebank with holes,
/// a sentence with some arcs fixed) leaves some words without a head
/// ([`DepTree::NO_HEAD`]): its arcs are the annotated ones, and a word
/// without a head may go anywhere. Only the oracles that score through
/// [`DepTree::has_arc`] accept one (see `Oracle::scores`); a partial tree
/// is never projective ([`DepTree::is_projective`]), so the
/// projective-only algorithms refuse it.
/// The arcs an exact oracle counts: those of a gold tree ([`DepTree`]), or
/// any arc another target accepts (e.g. every arc whose direction a
/// constraint allows, `crate::oracle::direction::Directions`). The
/// grammar-based oracles take any target, as an arc weight of 1 or 0.
pub trait ArcTarget {
    /// The number of words (positions 1 … n).
    fn words(&self) -> usize;
    /// Whether the arc (h, d) counts.
    fn has_arc(&self, h: usize, d: usize) -> bool;
    /// Writes into `out` (cleared first) a sequence that determines
    /// [`ArcTarget::has_arc`] for every pair and differs between targets
    /// that count different arcs (so that an oracle can tell whether its
    /// target changed since its last call). O(n).
    fn fingerprint(&self, out: &mut Vec<usize>);
}

impl ArcTarget for DepTree {
    fn words(&self) -> usize {
        self.len()
    }
    fn fingerprint(&self, out: &mut Vec<usize>) {
        out.clear();
        out.push(0);
        out.extend_from_slice(&self.heads);
    }
    #[inline]
    fn has_arc(&self, h: usize, d: usize) -> bool {
        DepTree::has_arc(self, h, d)
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DepTree {
    /// `heads[d]` is the head of position `d`; `heads[0]` is [`DepTree::NO_HEAD`],
    /// and so is that of an unannotated word of a partial tree.
    heads: Vec<usize>,
    /// Whether some word has no head.
    partial: bool,
}

impl DepTree {
    /// The "head" stored for position 0.
    pub const NO_HEAD: usize = usize::MAX;

    /// A tree from the heads of positions 1 … n (`heads[i]` is the head of
    /// position i + 1). Checks range and acyclicity in O(n).
    pub fn from_heads(heads: &[usize]) -> Result<Self, TreeError> {
        let n = heads.len();
        let mut all = Vec::with_capacity(n + 1);
        all.push(Self::NO_HEAD);
        for (i, &h) in heads.iter().enumerate() {
            let d = i + 1;
            if h > n {
                return Err(TreeError::HeadOutOfRange { dependent: d, head: h, n });
            }
            if h == d {
                return Err(TreeError::SelfLoop(d));
            }
            all.push(h);
        }
        let tree = DepTree { heads: all, partial: false };
        tree.check_acyclic()?;
        Ok(tree)
    }

    /// A partial tree from the heads of positions 1 … n, `None` for a word
    /// whose head is not annotated. Checks range and acyclicity of the
    /// annotated arcs in O(n). With every head given, the same tree as
    /// [`DepTree::from_heads`].
    pub fn from_partial_heads(heads: &[Option<usize>]) -> Result<Self, TreeError> {
        let n = heads.len();
        let mut all = Vec::with_capacity(n + 1);
        all.push(Self::NO_HEAD);
        for (i, &h) in heads.iter().enumerate() {
            let d = i + 1;
            match h {
                Some(h) if h > n => return Err(TreeError::HeadOutOfRange { dependent: d, head: h, n }),
                Some(h) if h == d => return Err(TreeError::SelfLoop(d)),
                Some(h) => all.push(h),
                None => all.push(Self::NO_HEAD),
            }
        }
        let tree = DepTree { heads: all, partial: heads.iter().any(Option::is_none) };
        tree.check_acyclic()?;
        Ok(tree)
    }

    /// Whether some word has no head (a partial tree).
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// Whether word `d` has a head (always, in a complete tree).
    pub fn is_annotated(&self, d: usize) -> bool {
        self.heads.get(d).is_some_and(|&h| h != Self::NO_HEAD)
    }

    /// The number of annotated words (n in a complete tree). O(n).
    pub fn annotated(&self) -> usize {
        (1..self.heads.len()).filter(|&d| self.is_annotated(d)).count()
    }

    /// A tree from a head vector indexed by position, including position 0
    /// (whose entry is ignored): the layout of the oracle's JSON `gold`.
    pub fn from_positions(heads: &[usize]) -> Result<Self, TreeError> {
        Self::from_heads(heads.get(1..).unwrap_or(&[]))
    }

    /// A gold tree as users write it (`tabula oracle`'s JSON `gold`, Python):
    /// the heads of words 1 … n, 0 being the root, `[h1, …, hn]`; a leading
    /// -1 is the root's slot of the layout indexed by position,
    /// `[-1, h1, …, hn]`, and is dropped (no head is negative, so the two
    /// cannot be confused). Checked as [`DepTree::from_heads`]. O(n).
    pub fn from_gold(values: &[i64]) -> Result<Self, GoldError> {
        let values: Vec<Option<i64>> = values.iter().copied().map(Some).collect();
        let tree = Self::from_partial_gold(&values)?;
        Ok(tree)
    }

    /// [`DepTree::from_gold`] where a word's head may be missing (`None`:
    /// JSON `null`), making a partial tree ([`DepTree::from_partial_heads`]).
    /// O(n).
    pub fn from_partial_gold(values: &[Option<i64>]) -> Result<Self, GoldError> {
        let heads = match values {
            [Some(-1), rest @ ..] => rest,
            all => all,
        };
        let n = heads.len();
        let mut out = Vec::with_capacity(n);
        for (i, &h) in heads.iter().enumerate() {
            match h.map(usize::try_from) {
                None => out.push(None),
                Some(Ok(h)) => out.push(Some(h)),
                Some(Err(_)) => return Err(GoldError::Negative { dependent: i + 1, head: h.unwrap_or_default(), n }),
            }
        }
        Ok(Self::from_partial_heads(&out)?)
    }

    fn check_acyclic(&self) -> Result<(), TreeError> {
        // 0 = unvisited, 1 = on the current path, 2 = known to reach the root.
        let mut mark = vec![0u8; self.heads.len()];
        mark[0] = 2;
        let mut path = Vec::new();
        for start in 1..self.heads.len() {
            let mut v = start;
            while mark[v] == 0 {
                mark[v] = 1;
                path.push(v);
                // A word without a head (partial tree) ends its path as the root does.
                v = match self.heads[v] {
                    Self::NO_HEAD => 0,
                    h => h,
                };
            }
            if mark[v] == 1 {
                return Err(TreeError::Cycle(v));
            }
            for &u in &path {
                mark[u] = 2;
            }
            path.clear();
        }
        Ok(())
    }

    /// Number of words n (positions 1 … n).
    pub fn len(&self) -> usize {
        self.heads.len() - 1
    }
    /// Whether the sentence is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The head of position `d` (1 ≤ d ≤ n); [`DepTree::NO_HEAD`] for an
    /// unannotated word of a partial tree.
    pub fn head(&self, d: usize) -> usize {
        self.heads[d]
    }
    /// Whether (h, d) is an arc.
    pub fn has_arc(&self, h: usize, d: usize) -> bool {
        d >= 1 && d < self.heads.len() && self.heads[d] == h
    }
    /// The heads of positions 1 … n.
    pub fn heads(&self) -> &[usize] {
        &self.heads[1..]
    }
    /// Arcs (head, dependent), by dependent.
    pub fn arcs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (1..self.heads.len()).map(|d| (self.heads[d], d))
    }
    /// How many arcs the two trees share (the score of Sec. 2). Panics if the
    /// lengths differ.
    pub fn common_arcs(&self, other: &DepTree) -> usize {
        assert_eq!(self.len(), other.len(), "trees of different lengths");
        (1..self.heads.len()).filter(|&d| self.heads[d] == other.heads[d]).count()
    }

    /// Whether every node's descendants form a contiguous interval
    /// (equivalently, no two arcs cross, arcs from 0 included); false for
    /// a partial tree. O(n).
    pub fn is_projective(&self) -> bool {
        if self.partial {
            return false;
        }
        let n1 = self.heads.len();
        // Yield bounds and sizes, accumulated children-first: process nodes
        // in reverse BFS order from the root.
        let mut children_start = vec![0usize; n1 + 1];
        for d in 1..n1 {
            children_start[self.heads[d] + 1] += 1;
        }
        for i in 0..n1 {
            children_start[i + 1] += children_start[i];
        }
        let mut fill = children_start.clone();
        let mut children = vec![0usize; n1.saturating_sub(1)];
        for d in 1..n1 {
            let h = self.heads[d];
            children[fill[h]] = d;
            fill[h] += 1;
        }
        let mut order = Vec::with_capacity(n1);
        order.push(0);
        let mut i = 0;
        while i < order.len() {
            let v = order[i];
            order.extend_from_slice(&children[children_start[v]..children_start[v + 1]]);
            i += 1;
        }
        let mut lo: Vec<usize> = (0..n1).collect();
        let mut hi: Vec<usize> = (0..n1).collect();
        let mut size = vec![1usize; n1];
        for &v in order.iter().rev() {
            if hi[v] - lo[v] + 1 != size[v] {
                return false;
            }
            if v != 0 {
                let h = self.heads[v];
                lo[h] = lo[h].min(lo[v]);
                hi[h] = hi[h].max(hi[v]);
                size[h] += size[v];
            }
        }
        true
    }
}

impl fmt::Debug for DepTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DepTree{:?}", self.heads())
    }
}

/// Space-separated heads of positions 1 … n (`_` where a partial tree has none).
impl fmt::Display for DepTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &h) in self.heads().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if h == Self::NO_HEAD {
                f.write_str("_")?;
            } else {
                write!(f, "{h}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_trees_keep_the_annotated_arcs_only() {
        let t = DepTree::from_partial_heads(&[Some(2), None, Some(2)]).unwrap();
        assert!(t.is_partial() && !t.is_projective());
        assert!(t.has_arc(2, 1) && t.has_arc(2, 3));
        assert!((0..=3).all(|h| !t.has_arc(h, 2)));
        assert_eq!((t.is_annotated(2), t.annotated()), (false, 2));
        assert_eq!(t.to_string(), "2 _ 2");
        let full = DepTree::from_partial_heads(&[Some(2), Some(0), Some(2)]).unwrap();
        assert_eq!(full, DepTree::from_heads(&[2, 0, 2]).unwrap());
        assert_eq!(DepTree::from_partial_heads(&[Some(2), Some(1), None]), Err(TreeError::Cycle(1)));
        assert_eq!(DepTree::from_partial_heads(&[Some(1)]), Err(TreeError::SelfLoop(1)));
        assert!(matches!(DepTree::from_partial_heads(&[Some(5)]), Err(TreeError::HeadOutOfRange { .. })));
    }

    #[test]
    fn gold_trees_are_read_with_or_without_the_root_slot() {
        let tree = DepTree::from_heads(&[2, 0, 2]).unwrap();
        assert_eq!(DepTree::from_gold(&[2, 0, 2]), Ok(tree.clone()));
        assert_eq!(DepTree::from_gold(&[-1, 2, 0, 2]), Ok(tree));
        assert_eq!(DepTree::from_gold(&[-1]), Ok(DepTree::from_heads(&[]).unwrap()));
        assert_eq!(
            DepTree::from_gold(&[-1, -1, 0]).unwrap_err().to_string(),
            "head -1 of word 1 is out of range 0 to 2"
        );
        assert_eq!(DepTree::from_gold(&[2, 0, 9]).unwrap_err().to_string(), "head 9 of word 3 is out of range 0 to 3");
    }

    #[test]
    fn rejects_cycles_and_bad_heads() {
        assert_eq!(DepTree::from_heads(&[2, 1]), Err(TreeError::Cycle(1)));
        assert_eq!(DepTree::from_heads(&[1]), Err(TreeError::SelfLoop(1)));
        assert!(matches!(DepTree::from_heads(&[3]), Err(TreeError::HeadOutOfRange { .. })));
        assert!(DepTree::from_heads(&[]).unwrap().is_empty());
    }

    #[test]
    fn projectivity() {
        assert!(DepTree::from_heads(&[0, 1, 2]).unwrap().is_projective());
        assert!(DepTree::from_heads(&[2, 0, 2]).unwrap().is_projective());
        // 1 -> 3 crosses 0 -> 2.
        assert!(!DepTree::from_heads(&[0, 0, 1]).unwrap().is_projective());
        // 3 <- 1 spans 2 whose head is 0.
        assert!(!DepTree::from_heads(&[0, 0, 1, 1]).unwrap().is_projective());
        assert!(DepTree::from_heads(&[0, 0, 0]).unwrap().is_projective());
    }
}
