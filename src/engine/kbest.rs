//! The k best derivations from a filled chart, lazily (Huang & Chiang 2005,
//! *Better k-best Parsing*, Algorithm 3): every item keeps the derivations
//! found so far, best first, and a heap of candidates — a way to build the
//! item (a summand of its recurrence) with a rank for each of its two parts.
//! The first candidates of an item take both parts' best derivations, whose
//! values the inside pass left in the chart; after the r-th best derivation
//! of an item is taken, its two successors (one part's rank + 1) join the
//! heap, asking the part for one more derivation only then. Only the items
//! that the k best derivations reach are expanded.
//!
//! Needs a [`Monotone`] semiring (max-plus), where the best derivations of
//! an item are built from best derivations of its parts. O(n³) for the
//! chart; then O(n · |combos|) to start the heap of each item reached, and
//! for each further derivation a heap operation on each of the O(n) items
//! below it whose next derivation it asks for, and O(n) to write its tree.

use super::{Derivation, EngineError, Parser, WordDerivation};
use crate::semiring::Monotone;
use crate::tree::DepTree;
use hashbrown::{HashMap, HashSet};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An item of Table 2 (the start item builds the whole input).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Item {
    Start,
    /// Wl(state, i, j).
    Left(u32, u32, u32),
    /// Wr(state, i, j).
    Right(u32, u32, u32),
    /// The arc item IL(pair, i, j): j → i.
    ArcLeft(u32, u32, u32),
    /// The arc item IR(pair, i, j): i → j.
    ArcRight(u32, u32, u32),
}

/// A way to build an item: which summand (rule or combo index, split point)
/// and the ranks of its two parts' derivations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Back {
    rule: u32,
    split: u32,
    ranks: [u32; 2],
}

struct Candidate<S> {
    value: S,
    back: Back,
}

impl<S: Monotone> PartialEq for Candidate<S> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<S: Monotone> Eq for Candidate<S> {}
impl<S: Monotone> PartialOrd for Candidate<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
/// Better value first; among equal values the earlier summand and lower
/// ranks, so that the result does not depend on the heap's internals.
impl<S: Monotone> Ord for Candidate<S> {
    fn cmp(&self, other: &Self) -> Ordering {
        let key = |b: &Back| (b.rule, b.split, b.ranks);
        self.value.order(&other.value).then_with(|| key(&other.back).cmp(&key(&self.back)))
    }
}

#[derive(Default)]
struct Node<S> {
    started: bool,
    found: Vec<(S, Back)>,
    heap: BinaryHeap<Candidate<S>>,
    seen: HashSet<Back>,
}

struct KBest<'p, 'g, S> {
    parser: &'p Parser<'g, S>,
    ids: HashMap<Item, usize>,
    nodes: Vec<Node<S>>,
}

/// The recursion depth between two checks of the room left on the stack.
const RED_ZONE: usize = 256 << 10;
const STACK_GROWTH: usize = 16 << 20;

impl<S: Monotone> Parser<'_, S> {
    /// The `k` best derivations of the last [`parse`](Parser::parse), best
    /// first, with their values (fewer if the grammar has fewer; none if
    /// W = 𝟘). For an unambiguous grammar these are the k best trees.
    /// Derivations of equal value come in a fixed order.
    ///
    /// # Errors
    /// [`EngineError::NotParsed`] before the first parse.
    ///
    /// # Complexity
    /// See the [module documentation](self): lazy, so far less than k
    /// times the work of one best derivation.
    pub fn k_best(&self, k: usize) -> Result<Vec<(S, Derivation)>, EngineError> {
        if self.parsed_size() == 0 {
            return Err(EngineError::NotParsed);
        }
        let mut kb = KBest { parser: self, ids: HashMap::new(), nodes: Vec::new() };
        let top = kb.id(Item::Start);
        let mut out = Vec::new();
        for rank in 0..k {
            if !kb.kth(Item::Start, top, rank) {
                break;
            }
            let size = self.parsed_size();
            let mut heads = vec![DepTree::NO_HEAD; size];
            let mut words = vec![None; size];
            kb.expand(Item::Start, rank, &mut heads, &mut words);
            let tree = DepTree::from_heads(&heads[1..]).expect("a derivation builds a tree");
            let words = words.into_iter().map(|w| w.expect("every word is decorated")).collect();
            out.push((kb.nodes[top].found[rank].0.clone(), Derivation { tree, words }));
        }
        Ok(out)
    }
}

impl<S: Monotone> KBest<'_, '_, S> {
    fn id(&mut self, item: Item) -> usize {
        let next = self.nodes.len();
        let id = *self.ids.entry(item).or_insert(next);
        if id == next {
            self.nodes.push(Node { started: false, found: Vec::new(), heap: BinaryHeap::new(), seen: HashSet::new() });
        }
        id
    }

    /// The value of an item in the chart (its best derivation).
    fn best(&self, item: Item) -> S {
        let p = self.parser;
        let c = &p.chart;
        match item {
            Item::Start => p.start_value(),
            Item::Left(s, i, j) => c.left(s as usize, i as usize, j as usize).clone(),
            Item::Right(s, i, j) => c.right(s as usize, i as usize, j as usize).clone(),
            Item::ArcLeft(q, i, j) => c.incomplete_left(q as usize, i as usize, j as usize).clone(),
            Item::ArcRight(q, i, j) => c.incomplete_right(q as usize, i as usize, j as usize).clone(),
        }
    }

    /// The two parts of summand (rule, split) of `item`, and the arc weight
    /// it multiplies in (arc items only).
    fn parts(&self, item: Item, rule: u32, split: u32) -> ([Item; 2], Option<S>) {
        let p = self.parser;
        let n = (p.chart.size() - 1) as u32;
        let (r, k) = (rule as usize, split);
        match item {
            Item::Start => {
                let (l, rs) = p.plan.start[r];
                ([Item::Left(l.0 as u32, 0, 0), Item::Right(rs.0 as u32, 0, n)], None)
            }
            Item::Right(_, i, j) => {
                let (pair, d, _) = p.plan.right[r];
                ([Item::ArcRight(pair as u32, i, k), Item::Right(d.0 as u32, k, j)], None)
            }
            Item::Left(_, i, j) => {
                let (d, pair, _) = p.plan.left[r];
                ([Item::Left(d.0 as u32, i, k), Item::ArcLeft(pair as u32, k, j)], None)
            }
            Item::ArcRight(q, i, j) | Item::ArcLeft(q, i, j) => {
                let (b, cs) = p.plan.pairs[q as usize];
                let w = if matches!(item, Item::ArcRight(..)) {
                    p.chart.weight(i as usize, j as usize)
                } else {
                    p.chart.weight(j as usize, i as usize)
                };
                ([Item::Right(b.0 as u32, i, k), Item::Left(cs.0 as u32, k + 1, j)], Some(w.clone()))
            }
        }
    }

    /// Every summand (rule, split) of `item`; none for the items of one position.
    fn summands(&self, item: Item) -> Vec<(u32, u32)> {
        let p = self.parser;
        match item {
            Item::Start => (0..p.plan.start.len() as u32).map(|s| (s, 0)).collect(),
            Item::Right(s, i, j) => p
                .plan
                .right
                .iter()
                .enumerate()
                .filter(|(_, c)| c.2 .0 as u32 == s)
                .flat_map(|(r, _)| (i + 1..=j).map(move |k| (r as u32, k)))
                .collect(),
            Item::Left(s, i, j) => p
                .plan
                .left
                .iter()
                .enumerate()
                .filter(|(_, c)| c.2 .0 as u32 == s)
                .flat_map(|(r, _)| (i..j).map(move |k| (r as u32, k)))
                .collect(),
            Item::ArcRight(_, i, j) | Item::ArcLeft(_, i, j) => (i..j).map(|m| (0, m)).collect(),
        }
    }

    fn combine(values: [&S; 2], weight: &Option<S>) -> S {
        let v = values[0].times(values[1]);
        match weight {
            Some(w) => v.times(w),
            None => v,
        }
    }

    /// Makes sure `item` (node `id`) has a derivation of rank `rank`
    /// (0 = best) if it has that many; returns whether it does (Huang &
    /// Chiang's LazyKthBest).
    fn kth(&mut self, item: Item, id: usize, rank: usize) -> bool {
        stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.kth_of(item, id, rank))
    }

    fn kth_of(&mut self, item: Item, id: usize, rank: usize) -> bool {
        if !self.nodes[id].started {
            self.start(item, id);
        }
        while self.nodes[id].found.len() <= rank {
            if let Some(&(_, last)) = self.nodes[id].found.last() {
                if !matches!(item, Item::Left(_, i, j) | Item::Right(_, i, j) if i == j) {
                    self.successors(item, id, last);
                }
            }
            match self.nodes[id].heap.pop() {
                Some(c) => self.nodes[id].found.push((c.value, c.back)),
                None => return false,
            }
        }
        true
    }

    /// The first candidates: every summand with both parts' best derivations.
    fn start(&mut self, item: Item, id: usize) {
        self.nodes[id].started = true;
        if let Item::Left(_, i, j) | Item::Right(_, i, j) = item {
            if i == j {
                // One derivation (the lexical rule) or none.
                let v = self.best(item);
                if !v.is_zero() {
                    let back = Back { rule: 0, split: 0, ranks: [0, 0] };
                    self.nodes[id].heap.push(Candidate { value: v, back });
                }
                return;
            }
        }
        for (rule, split) in self.summands(item) {
            let (parts, w) = self.parts(item, rule, split);
            let value = Self::combine([&self.best(parts[0]), &self.best(parts[1])], &w);
            if !value.is_zero() {
                let back = Back { rule, split, ranks: [0, 0] };
                self.nodes[id].seen.insert(back);
                self.nodes[id].heap.push(Candidate { value, back });
            }
        }
    }

    /// After `last` was taken: the candidates with one part's rank + 1
    /// (Huang & Chiang's LazyNext).
    fn successors(&mut self, item: Item, id: usize, last: Back) {
        let (parts, w) = self.parts(item, last.rule, last.split);
        let ids = [self.id(parts[0]), self.id(parts[1])];
        for side in 0..2 {
            let mut back = last;
            back.ranks[side] += 1;
            if self.nodes[id].seen.contains(&back) {
                continue;
            }
            let have = self.kth(parts[side], ids[side], back.ranks[side] as usize)
                && self.kth(parts[1 - side], ids[1 - side], back.ranks[1 - side] as usize);
            if !have {
                continue;
            }
            let value = Self::combine(
                [
                    &self.nodes[ids[0]].found[back.ranks[0] as usize].0,
                    &self.nodes[ids[1]].found[back.ranks[1] as usize].0,
                ],
                &w,
            );
            self.nodes[id].seen.insert(back);
            self.nodes[id].heap.push(Candidate { value, back });
        }
    }

    /// Writes the heads and decorations of derivation `rank` of `item`.
    fn expand(&mut self, item: Item, rank: usize, heads: &mut [usize], words: &mut [Option<WordDerivation>]) {
        if let Item::Left(_, i, j) | Item::Right(_, i, j) = item {
            if i == j {
                return;
            }
        }
        let id = self.id(item);
        assert!(self.kth(item, id, rank), "a derivation's parts have the ranks it names");
        let back = self.nodes[id].found[rank].1;
        let (parts, _) = self.parts(item, back.rule, back.split);
        let p = self.parser;
        let g = p.grammar;
        match item {
            Item::Start => {
                let (l, r) = p.plan.start[back.rule as usize];
                words[0] = Some(WordDerivation { category: g.start(), left: l, right: r });
            }
            Item::Right(_, i, _) => {
                let combo = g.right_combos()[back.rule as usize];
                let category = g.finish_rules()[combo.finish as usize].category;
                heads[back.split as usize] = i as usize;
                words[back.split as usize] =
                    Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
            }
            Item::Left(_, _, j) => {
                let combo = g.left_combos()[back.rule as usize];
                let category = g.finish_rules()[combo.finish as usize].category;
                heads[back.split as usize] = j as usize;
                words[back.split as usize] =
                    Some(WordDerivation { category, left: combo.child_left, right: combo.child_right });
            }
            Item::ArcLeft(..) | Item::ArcRight(..) => {}
        }
        for (part, rank) in parts.into_iter().zip(back.ranks) {
            stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.expand(part, rank as usize, heads, words));
        }
    }
}
