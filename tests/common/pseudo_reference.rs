//! The pseudo-projective decoder before its searches were answered in O(1)
//! where they cannot succeed (and its children lists rebuilt only after a
//! change): kept as the reference `tests/pseudo_decode.rs` compares with.

use std::collections::VecDeque;
use tabula::projectivize::pseudo::{Decoded, Mark, PseudoError};
use tabula::tree::DepTree;

/// The decoder as it was: `tabula::projectivize::pseudo::decode`'s
/// reference.
pub fn reference_decode<S: AsRef<str>>(tree: &DepTree, labels: &[S]) -> Result<Decoded, PseudoError> {
    let n = tree.len();
    if labels.len() != n {
        return Err(PseudoError::Labels { words: n, labels: labels.len() });
    }
    let marks: Vec<Mark<'_>> = labels.iter().map(|l| Mark::parse(l.as_ref())).collect();
    let malformed = marks.iter().filter(|m| m.malformed).count();
    let moved = marks.iter().filter(|m| m.moved.is_some()).count();
    let mut search = Search::new(tree, &marks);
    let mut pending: Vec<bool> = std::iter::once(false).chain(marks.iter().map(|m| m.moved.is_some())).collect();
    let mut reattached = 0;
    let mut order = Vec::with_capacity(n + 1);
    loop {
        let before = reattached;
        search.preorder(&mut order);
        for &d in &order {
            if !pending[d] {
                continue;
            }
            if let Some(h) = search.find(d) {
                search.heads[d] = h;
                pending[d] = false;
                reattached += 1;
            }
        }
        if reattached == before || !pending.contains(&true) {
            break;
        }
    }
    let tree = DepTree::from_positions(&search.heads).expect("decoding never attaches a word inside its own subtree");
    let labels = marks.iter().map(|m| m.plain.to_owned()).collect();
    Ok(Decoded { tree, labels, moved, reattached, malformed })
}

/// The decoder's working state: the current heads and scratch space.
struct Search<'m, 'a> {
    /// Head of every position (position 0: [`DepTree::NO_HEAD`]).
    heads: Vec<usize>,
    marks: &'m [Mark<'a>],
    /// Whether some moved word names its head's relation (`d|h`): then the
    /// sentence was encoded with a head scheme, and `d|` means the root.
    named: bool,
    children: Vec<Vec<usize>>,
    /// `inside[v] == stamp`: v is in the moved word's subtree.
    inside: Vec<u32>,
    stamp: u32,
    queue: VecDeque<usize>,
    buf: Vec<usize>,
}

/// What a level of the search looks for.
#[derive(Clone, Copy)]
enum Want<'a> {
    /// The first word of relation `h`.
    Relation(&'a str),
    /// Along marked words: the first without marked children (of relation
    /// `h`, if given; else, the first of relation `h` at all).
    Path(Option<&'a str>),
}

impl<'m, 'a> Search<'m, 'a> {
    fn new(tree: &DepTree, marks: &'m [Mark<'a>]) -> Self {
        let n = tree.len();
        let mut heads = Vec::with_capacity(n + 1);
        heads.push(DepTree::NO_HEAD);
        heads.extend_from_slice(tree.heads());
        Search {
            heads,
            marks,
            named: marks.iter().any(|m| m.moved.is_some_and(|h| !h.is_empty())),
            children: vec![Vec::new(); n + 1],
            inside: vec![0; n + 1],
            stamp: 0,
            queue: VecDeque::new(),
            buf: Vec::new(),
        }
    }

    fn rebuild_children(&mut self) {
        for c in &mut self.children {
            c.clear();
        }
        for d in 1..self.heads.len() {
            self.children[self.heads[d]].push(d);
        }
    }

    /// The positions in preorder (children left to right) of the current tree.
    fn preorder(&mut self, order: &mut Vec<usize>) {
        self.rebuild_children();
        order.clear();
        let mut stack = vec![0usize];
        while let Some(v) = stack.pop() {
            order.push(v);
            stack.extend(self.children[v].iter().rev());
        }
    }

    fn relation(&self, v: usize) -> Option<&'a str> {
        (v >= 1).then(|| self.marks[v - 1].plain)
    }

    fn marked(&self, v: usize) -> bool {
        v >= 1 && self.marks[v - 1].path
    }

    /// The original head of the moved word `d`, if the search finds one.
    fn find(&mut self, d: usize) -> Option<usize> {
        let moved = self.marks[d - 1].moved?;
        self.rebuild_children();
        // Mark d's subtree: never searched.
        self.stamp += 1;
        let mut stack = vec![d];
        while let Some(v) = stack.pop() {
            self.inside[v] = self.stamp;
            stack.extend_from_slice(&self.children[v]);
        }
        if moved.is_empty() {
            if self.named {
                return Some(0);
            }
            return self.climb(d, Want::Path(None)).or(Some(0));
        }
        self.climb(d, Want::Path(Some(moved))).or_else(|| self.climb(d, Want::Relation(moved)))
    }

    /// Level by level from d's head up to the root (module documentation).
    fn climb(&mut self, d: usize, want: Want<'a>) -> Option<usize> {
        let mut top = self.heads[d];
        let mut below: Option<usize> = None;
        loop {
            if let Some(found) = self.level(d, top, below, want) {
                return Some(found);
            }
            if top == 0 {
                return None;
            }
            below = Some(top);
            top = self.heads[top];
        }
    }

    /// The children of `v` that may be searched (not d's subtree, not the
    /// level below), nearest to `d` first, into `self.buf`.
    fn searchable_children(&mut self, v: usize, d: usize, below: Option<usize>, marked_only: bool) {
        self.buf.clear();
        for &c in &self.children[v] {
            if self.inside[c] != self.stamp && Some(c) != below && (!marked_only || self.marked(c)) {
                self.buf.push(c);
            }
        }
        self.buf.sort_by_key(|&c| (c.abs_diff(d), c));
    }

    fn level(&mut self, d: usize, top: usize, below: Option<usize>, want: Want<'a>) -> Option<usize> {
        self.queue.clear();
        match want {
            Want::Relation(h) => {
                if below.is_some() && self.relation(top) == Some(h) {
                    return Some(top);
                }
                self.searchable_children(top, d, below, false);
                self.queue.extend(self.buf.iter().copied());
                while let Some(v) = self.queue.pop_front() {
                    if self.relation(v) == Some(h) {
                        return Some(v);
                    }
                    self.searchable_children(v, d, None, false);
                    self.queue.extend(self.buf.iter().copied());
                }
                None
            }
            Want::Path(h) => {
                let mut second = None;
                self.searchable_children(top, d, below, true);
                self.queue.extend(self.buf.iter().copied());
                while let Some(v) = self.queue.pop_front() {
                    self.searchable_children(v, d, None, true);
                    let fits = h.is_none_or(|h| self.relation(v) == Some(h));
                    if fits && self.buf.is_empty() {
                        return Some(v);
                    }
                    if fits && second.is_none() {
                        second = Some(v);
                    }
                    self.queue.extend(self.buf.iter().copied());
                }
                second.filter(|_| h.is_some())
            }
        }
    }
}
