//! Counting the best derivations from a filled chart of a selective
//! semiring (max-plus), top-down: the number of derivations reaching W.
//!
//! The forward (max, count) semiring counts, for every item, the derivations
//! reaching that item's own best score, and so multiplies big integers at
//! items that no best derivation of the whole input uses. Here the scores come
//! from a plain max-plus parse (as fast as projectivization), and counts are
//! computed only for the items that some best derivation uses, going down from
//! the start exactly as the Viterbi backtrace does ([`super::backtrace`]), but
//! following every summand that attains an item's value instead of one:
//!
//! ```text
//! count(item) = Σ over summands s of item's recurrence with s attaining item's value:
//!               Π count(sub-items of s)        (1 for an item of width 0)
//! ```
//!
//! An attaining summand has every sub-item at its own best value (a sum of
//! maxima reaches the maximum only through maxima), so this is the number of
//! best derivations. Each item is counted once (memo).
//!
//! # Complexity
//!
//! O(u · n) score operations for the u items used by some best derivation
//! (u ≤ the chart size; scanning an item's summands is O(n)), plus one
//! big-integer product per attaining summand of such an item.

use super::Parser;
use crate::memory::TooMuchMemory;
use crate::semiring::Selective;
use num_bigint::BigUint;
use num_traits::One;

/// The kinds of item: Wl(state, i, j), Wr(state, i, j), and the arc items
/// over Z(pair, i, j), rightward (i → j) or leftward (j → i).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Left,
    Right,
    ArcRight,
    ArcLeft,
}

type Item = (Kind, u32, u32, u32);

impl<S: Selective> Parser<'_, S> {
    /// The number of derivations of the last [`parse`](Parser::parse) that
    /// reach its value W (0 if W = 𝟘 or nothing was parsed). For a grammar
    /// with one derivation per tree and max-plus arc weights: the number of
    /// best trees. See the [module documentation](self).
    ///
    /// Fails only if its memo (4 bytes per chart item) would exceed the
    /// memory limit ([`crate::memory`]).
    pub fn count_best(&self) -> Result<BigUint, TooMuchMemory> {
        let size = self.parsed_size();
        if size == 0 {
            return Ok(BigUint::ZERO);
        }
        let g = self.grammar;
        let (left, right, pairs) = (g.num_left_states(), g.num_right_states(), self.plan.pairs.len());
        let tables = left + right + 2 * pairs;
        let cells = size.checked_mul(size).and_then(|sq| sq.checked_mul(tables));
        crate::memory::check(cells, std::mem::size_of::<u32>(), || format!("the count memo for {size} terminals"))?;
        let offsets = [0, left, left + right, left + right + pairs];
        let memo = vec![UNSET; cells.expect("checked")];
        let mut counter = Counter { parser: self, memo, offsets, size, values: Vec::new() };
        Ok(counter.start())
    }
}

struct Counter<'p, 'g, S> {
    parser: &'p Parser<'g, S>,
    /// Item → index into `values`, or [`UNSET`]: dense, one slot per item,
    /// at ((offset of the kind + state) · size + i) · size + j.
    memo: Vec<u32>,
    /// The first table of each [`Kind`], in declaration order.
    offsets: [usize; 4],
    size: usize,
    values: Vec<BigUint>,
}

/// A memo slot not computed yet.
const UNSET: u32 = u32::MAX;

/// The recursion depth between two checks of the room left on the stack.
const RED_ZONE: usize = 256 << 10;
const STACK_GROWTH: usize = 16 << 20;

impl<S: Selective> Counter<'_, '_, S> {
    fn start(&mut self) -> BigUint {
        let p = self.parser;
        let c = &p.chart;
        let n = c.size() - 1;
        let total = p.start_value();
        if total.is_zero() {
            return BigUint::ZERO;
        }
        let mut count = BigUint::ZERO;
        for &(l, r) in &p.plan.start {
            if c.left(l.index(), 0, 0).times(c.right(r.index(), 0, n)).attains(&total) {
                let v = self.count((Kind::Right, r.index() as u32, 0, n as u32));
                count += &self.values[v];
            }
        }
        count
    }

    /// The index in `values` of the count of `item` (an item attaining its
    /// value in some best derivation, hence not 𝟘).
    fn count(&mut self, item: Item) -> usize {
        let (kind, state, i, j) = item;
        let slot = ((self.offsets[kind as usize] + state as usize) * self.size + i as usize) * self.size + j as usize;
        if self.memo[slot] != UNSET {
            return self.memo[slot] as usize;
        }
        let value = stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.expand(item));
        let index = self.values.len();
        self.values.push(value);
        self.memo[slot] = u32::try_from(index).expect("fewer items than 2^32");
        index
    }

    /// Adds count(a) · count(b) to `sum`.
    fn add_product(&mut self, sum: &mut BigUint, a: Item, b: Item) {
        let a = self.count(a);
        let b = self.count(b);
        let (a, b) = (&self.values[a], &self.values[b]);
        // Most items of width 0 or 1 count one derivation: skip the product.
        if a.is_one() {
            *sum += b;
        } else if b.is_one() {
            *sum += a;
        } else {
            *sum += a * b;
        }
    }

    fn expand(&mut self, (kind, state, i, j): Item) -> BigUint {
        let p = self.parser;
        let c = &p.chart;
        let (state, i, j) = (state as usize, i as usize, j as usize);
        let mut sum = BigUint::ZERO;
        match kind {
            Kind::Right => {
                if i == j {
                    return BigUint::from(1u8);
                }
                let total = c.right(state, i, j);
                for &(pair, d, to) in &p.plan.right {
                    if to.index() != state {
                        continue;
                    }
                    // Contiguous slices over k = i+1 ..= j, as in the forward pass.
                    let arcs = c.incomplete_right_row(pair, i, i + 1, j);
                    let rights = c.right_col(d.index(), j, i + 1, j);
                    for (offset, (x, y)) in arcs.iter().zip(rights).enumerate() {
                        if x.times(y).attains(total) {
                            let k = i + 1 + offset;
                            let arc = (Kind::ArcRight, pair as u32, i as u32, k as u32);
                            self.add_product(&mut sum, arc, (Kind::Right, d.index() as u32, k as u32, j as u32));
                        }
                    }
                }
            }
            Kind::Left => {
                if i == j {
                    return BigUint::from(1u8);
                }
                let total = c.left(state, i, j);
                for &(d, pair, to) in &p.plan.left {
                    if to.index() != state {
                        continue;
                    }
                    // k = i ..= j−1.
                    let lefts = c.left_row(d.index(), i, i, j - 1);
                    let arcs = c.incomplete_left_col(pair, j, i, j - 1);
                    for (offset, (x, y)) in lefts.iter().zip(arcs).enumerate() {
                        if x.times(y).attains(total) {
                            let k = i + offset;
                            let arc = (Kind::ArcLeft, pair as u32, k as u32, j as u32);
                            self.add_product(&mut sum, (Kind::Left, d.index() as u32, i as u32, k as u32), arc);
                        }
                    }
                }
            }
            Kind::ArcRight | Kind::ArcLeft => {
                let pair = state;
                let (b, cs) = p.plan.pairs[pair];
                let (total, w) = if kind == Kind::ArcRight {
                    (c.incomplete_right(pair, i, j), c.weight(i, j))
                } else {
                    (c.incomplete_left(pair, i, j), c.weight(j, i))
                };
                // m = i ..= j−1.
                let rights = c.right_row(b.index(), i, i, j - 1);
                let lefts = c.left_col(cs.index(), j, i + 1, j);
                for (offset, (x, y)) in rights.iter().zip(lefts).enumerate() {
                    let m = i + offset;
                    if x.times(y).times(w).attains(total) {
                        let right = (Kind::Right, b.index() as u32, i as u32, m as u32);
                        self.add_product(&mut sum, right, (Kind::Left, cs.index() as u32, (m + 1) as u32, j as u32));
                    }
                }
            }
        }
        sum
    }
}
