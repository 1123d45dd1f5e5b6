//! Direction constraints: a word's head must lie to its left, to its right,
//! or be the root, whichever word it is (`tabula parse --constraints
//! --constraint-kind direction`).
//!
//! The exact oracles of arc-standard, arc-hybrid and arc-eager run the
//! system's grammar in max-plus with an arc weight of 1 for every arc they
//! count ([`ArcTarget`]). A direction constraint on word d is arc-factored
//! in the same way: the arc (h, d) counts iff h is on the constrained side
//! of d (or is the root, for "root"); at most one arc per word is in a tree,
//! so a tree's weight is the number of constraints it satisfies, and the
//! oracle's value is the most a computation from the configuration can
//! satisfy — exactly as for head constraints, with no new algorithm: the
//! weights change, not the grammar (Nederhof 2019, Sec. 4 and 9).

use crate::tree::ArcTarget;

/// Where a word's head is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A word before it (not the root).
    Left,
    /// A word after it (not the root).
    Right,
    /// The root.
    Root,
}

impl Direction {
    /// The direction of the arc from `h` to `d` in a sentence whose root
    /// is the position `root`. O(1).
    #[inline]
    pub fn of(h: usize, d: usize, root: usize) -> Direction {
        if h == root {
            Direction::Root
        } else if h < d {
            Direction::Left
        } else {
            Direction::Right
        }
    }
}

/// Direction constraints on the words of a sentence laid out with its root
/// at position `root` (0, or n + 1 for a root after the words), as an
/// [`ArcTarget`]: the arcs that satisfy one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directions {
    /// The constraint of position d at index d (index 0 unused); `None`: free.
    constraints: Vec<Option<Direction>>,
    root: usize,
}

impl Directions {
    /// Constraints on words 1 … n (`constraints[d - 1]` for word d) with
    /// the root at position 0. O(n).
    pub fn root_first(constraints: &[Option<Direction>]) -> Directions {
        Directions { constraints: [None].into_iter().chain(constraints.iter().copied()).collect(), root: 0 }
    }

    /// The same constraints laid out with the root after the words (at
    /// n + 1, itself a position without a constraint), as `Root::Last`
    /// lays a sentence out; an arc from position 0 (the stack's bottom)
    /// counts as an arc from the root, as the parser reads it. O(n).
    pub fn root_last(constraints: &[Option<Direction>]) -> Directions {
        let n = constraints.len();
        Directions {
            constraints: [None].into_iter().chain(constraints.iter().copied()).chain([None]).collect(),
            root: n + 1,
        }
    }

    /// The constraint of position `d` (1 ≤ d ≤ words).
    pub fn get(&self, d: usize) -> Option<Direction> {
        self.constraints.get(d).copied().flatten()
    }

    /// The position of the root.
    pub fn root(&self) -> usize {
        self.root
    }

    /// How many of the arcs of `heads` (the head of each position 1 …
    /// words, in this layout) satisfy their word's constraint. O(n).
    pub fn satisfied(&self, heads: &[usize]) -> usize {
        heads.iter().enumerate().filter(|&(i, &h)| self.has_arc(h, i + 1)).count()
    }
}

impl ArcTarget for Directions {
    fn words(&self) -> usize {
        self.constraints.len() - 1
    }
    #[inline]
    fn has_arc(&self, h: usize, d: usize) -> bool {
        // Position 0 heads a word as the root does: with the root after the
        // words, 0 is the stack's bottom, and a word it heads is read as a
        // child of the root.
        let root = if h == 0 { 0 } else { self.root };
        self.get(d).is_some_and(|c| c == Direction::of(h, d, root))
    }
    fn fingerprint(&self, out: &mut Vec<usize>) {
        out.clear();
        out.extend([1, self.root]);
        out.extend(self.constraints.iter().map(|c| match c {
            None => 0,
            Some(Direction::Left) => 1,
            Some(Direction::Right) => 2,
            Some(Direction::Root) => 3,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arc_counts_iff_its_direction_is_the_constrained_one() {
        use Direction::*;
        let first = Directions::root_first(&[Some(Root), Some(Left), Some(Right), None]);
        assert_eq!(first.words(), 4);
        assert!(first.has_arc(0, 1) && !first.has_arc(2, 1));
        // Word 2 after the root: its head is a word before it, not the root.
        assert!(first.has_arc(1, 2) && !first.has_arc(0, 2) && !first.has_arc(3, 2));
        assert!(first.has_arc(4, 3) && !first.has_arc(2, 3) && !first.has_arc(0, 3));
        assert!((0..=4).all(|h| !first.has_arc(h, 4)));
        let last = Directions::root_last(&[Some(Root), Some(Right), None]);
        assert_eq!((last.words(), last.root()), (4, 4));
        assert!(last.has_arc(4, 1) && last.has_arc(0, 1) && !last.has_arc(2, 1));
        assert!(last.has_arc(3, 2) && !last.has_arc(4, 2) && !last.has_arc(0, 2) && !last.has_arc(1, 2));
        assert_eq!(last.satisfied(&[4, 3, 4, 0]), 2);
    }
}
