//! The outside pass over a filled chart, for commutative semirings: for
//! every item, the ⊕-sum over the derivations of the whole input that contain
//! it of the ⊗-product of everything but the item (Goodman 1999;
//! Eisner 2016, *Inside-Outside and Forward-Backward Algorithms Are Just
//! Backprop*). For every arc h → d, inside ⊗ outside of its arc items is the
//! ⊕-sum over the derivations that contain the arc.
//!
//! The recurrences are those of Table 2 read backwards. Writing β for the
//! outside value, `IL(p, i, j) = Z(p, i, j) ⊗ w(j, i)`,
//! `IR(p, i, j) = Z(p, i, j) ⊗ w(i, j)` and (B_p, C_p) for the states of
//! pair p:
//!
//! * β Wr(s, i, j) = ⊕ start rules (l, s) Wl(l, 0, 0) if (i, j) = (0, n)
//!   ⊕ ⊕_{combos (p, s, to)} ⊕_{i' < i} β Wr(to, i', j) ⊗ IR(p, i', i)
//!   ⊕ ⊕_{p : B_p = s} ⊕_{j' > j} β Z(p, i, j') ⊗ Wl(C_p, j + 1, j');
//! * β Wl(s, i, j) = ⊕_{combos (s, p, to)} ⊕_{j' > j} β Wl(to, i, j') ⊗ IL(p, j, j')
//!   ⊕ ⊕_{p : C_p = s} ⊕_{i' < i} β Z(p, i', j) ⊗ Wr(B_p, i', i − 1);
//! * β IL(p, i, j) = ⊕_{combos (d, p, to)} ⊕_{i' ≤ i} β Wl(to, i', j) ⊗ Wl(d, i', i);
//! * β IR(p, i, j) = ⊕_{combos (p, d, to)} ⊕_{j' ≥ j} β Wr(to, i, j') ⊗ Wr(d, j, j');
//! * β Z(p, i, j) = β IL(p, i, j) ⊗ w(j, i) ⊕ β IR(p, i, j) ⊗ w(i, j).
//!
//! Complete items of a span are used only by items of longer spans and arc
//! items only by complete items of their own span or longer ones, so spans
//! are visited from the longest down, complete items before arc items. Each
//! inner sum is a dot product of two contiguous slices, as in the inside
//! pass. O(n³) time, like the inside pass; O(n²) more space.

use super::{EngineError, Parser};
use crate::semiring::{Commutative, Semifield};

/// Outside values, in row and column layout as the inner sums read them,
/// and transposed copies of the inside arc items. Index (state, a, b) ↦
/// (state·size + a)·size + b, as in [`super::chart::Chart`].
#[derive(Debug)]
pub(super) struct OutsideChart<S> {
    size: usize,
    square: usize,
    left_row: Vec<S>,
    left_col: Vec<S>,
    right_row: Vec<S>,
    right_col: Vec<S>,
    z_row: Vec<S>,
    z_col: Vec<S>,
    /// Inside IL(p, i, j) at (p, i, j): the inside chart keeps it by column.
    inside_left_row: Vec<S>,
    /// Inside IR(p, i, j) at (p, j, i): the inside chart keeps it by row.
    inside_right_col: Vec<S>,
}

impl<S> Default for OutsideChart<S> {
    fn default() -> Self {
        OutsideChart {
            size: 0,
            square: 0,
            left_row: Vec::new(),
            left_col: Vec::new(),
            right_row: Vec::new(),
            right_col: Vec::new(),
            z_row: Vec::new(),
            z_col: Vec::new(),
            inside_left_row: Vec::new(),
            inside_right_col: Vec::new(),
        }
    }
}

fn ensure<S: Commutative>(v: &mut Vec<S>, len: usize) {
    if v.len() < len {
        v.resize(len, S::zero());
    }
}

impl<S: Commutative> OutsideChart<S> {
    fn reset(&mut self, size: usize, left_states: usize, right_states: usize, pairs: usize) {
        self.size = size;
        let sq = size * size;
        self.square = sq;
        ensure(&mut self.left_row, left_states * sq);
        ensure(&mut self.left_col, left_states * sq);
        ensure(&mut self.right_row, right_states * sq);
        ensure(&mut self.right_col, right_states * sq);
        ensure(&mut self.z_row, pairs * sq);
        ensure(&mut self.z_col, pairs * sq);
        ensure(&mut self.inside_left_row, pairs * sq);
        ensure(&mut self.inside_right_col, pairs * sq);
    }

    #[inline]
    fn at(&self, state: usize, a: usize, b: usize) -> usize {
        state * self.square + a * self.size + b
    }

    #[inline]
    fn span(&self, state: usize, fixed: usize, from: usize, to: usize) -> std::ops::Range<usize> {
        let base = self.at(state, fixed, 0);
        base + from..base + to + 1
    }
}

/// Tables (row, column) written together.
fn set_both<S: Clone>(row: &mut [S], col: &mut [S], r: usize, c: usize, v: S) {
    col[c] = v.clone();
    row[r] = v;
}

impl<S: Commutative> Parser<'_, S> {
    /// The bytes the outside pass needs beside the chart for `size`
    /// terminals (`None`: beyond `usize`). O(1).
    pub fn outside_bytes(&self, size: usize) -> Option<usize> {
        let g = self.grammar;
        let tables = 2 * (g.num_left_states() + g.num_right_states()) + 4 * self.plan.pairs.len() + 1;
        size.checked_mul(size)?.checked_mul(tables)?.checked_mul(std::mem::size_of::<S>())
    }

    /// For every arc h → d, the ⊕-sum over the derivations of the last
    /// [`parse`](Parser::parse) that contain the arc of their ⊗-products,
    /// by an outside pass over the chart (Goodman 1999). Written to
    /// `out` as an (n+1)×(n+1) matrix in row-major order, row = head,
    /// column = dependent (the diagonal is 𝟘).
    ///
    /// In [`Count`](crate::semiring::Count) with unit weights these are the
    /// numbers of derivations containing each arc; in
    /// [`MaxPlus`](crate::semiring::MaxPlus) the best score of a derivation
    /// containing it (max-marginals); in [`LogSumExp`](crate::semiring::LogSumExp)
    /// the log of the total weight of the derivations containing it.
    ///
    /// # Errors
    /// [`EngineError::NotParsed`] before the first parse;
    /// [`EngineError::TooMuchMemory`] beyond the memory limit.
    ///
    /// # Complexity
    /// O(n³ · (|left combos| + |right combos|)) time, like the parse itself;
    /// allocates nothing for sentences no longer than one seen before.
    pub fn arc_sums_into(&mut self, out: &mut Vec<S>) -> Result<(), EngineError> {
        let size = self.parsed_size();
        if size == 0 {
            return Err(EngineError::NotParsed);
        }
        crate::memory::check(self.outside_bytes(size), 1, || format!("the outside chart for {size} terminals"))?;
        let g = self.grammar;
        let plan = &self.plan;
        let c = &self.chart;
        let o = &mut self.outside;
        o.reset(size, g.num_left_states(), g.num_right_states(), plan.pairs.len());
        out.clear();
        out.resize(size * size, S::zero());
        let n = size - 1;

        // Transposed copies of the inside arc items.
        for p in 0..plan.pairs.len() {
            for i in 0..size {
                for j in i + 1..size {
                    if plan.pair_left[p] {
                        let at = o.at(p, i, j);
                        o.inside_left_row[at] = c.incomplete_left(p, i, j).clone();
                    }
                    if plan.pair_right[p] {
                        let at = o.at(p, j, i);
                        o.inside_right_col[at] = c.incomplete_right(p, i, j).clone();
                    }
                }
            }
        }

        for width in (1..size).rev() {
            for i in 0..size - width {
                let j = i + width;
                // β Wr(s, i, j).
                for s in 0..g.num_right_states() {
                    let mut v = S::zero();
                    if i == 0 && j == n {
                        for &l in &plan.start_by_right[s] {
                            v.plus_assign(c.left(l, 0, 0));
                        }
                    }
                    if i > 0 {
                        for &(p, to) in &plan.right_by_child[s] {
                            let a = &o.right_col[o.span(to, j, 0, i - 1)];
                            let b = &o.inside_right_col[o.span(p, i, 0, i - 1)];
                            v.plus_assign(&S::dot(a, b));
                        }
                    }
                    if j < n {
                        for &p in &plan.pairs_by_right[s] {
                            let cs = plan.pairs[p].1.index();
                            let a = &o.z_row[o.span(p, i, j + 1, n)];
                            v.plus_assign(&S::dot(a, c.left_row(cs, j + 1, j + 1, n)));
                        }
                    }
                    let (r, col) = (o.at(s, i, j), o.at(s, j, i));
                    set_both(&mut o.right_row, &mut o.right_col, r, col, v);
                }
                // β Wl(s, i, j).
                for s in 0..g.num_left_states() {
                    let mut v = S::zero();
                    if j < n {
                        for &(p, to) in &plan.left_by_child[s] {
                            let a = &o.left_row[o.span(to, i, j + 1, n)];
                            let b = &o.inside_left_row[o.span(p, j, j + 1, n)];
                            v.plus_assign(&S::dot(a, b));
                        }
                    }
                    if i > 0 {
                        for &p in &plan.pairs_by_left[s] {
                            let b = plan.pairs[p].0.index();
                            let a = &o.z_col[o.span(p, j, 0, i - 1)];
                            v.plus_assign(&S::dot(a, c.right_col(b, i - 1, 0, i - 1)));
                        }
                    }
                    let (r, col) = (o.at(s, i, j), o.at(s, j, i));
                    set_both(&mut o.left_row, &mut o.left_col, r, col, v);
                }
                // β IL, β IR, β Z and the arc sums.
                for p in 0..plan.pairs.len() {
                    let mut z = S::zero();
                    if plan.pair_left[p] {
                        let mut beta = S::zero();
                        for &(d, to) in &plan.left_by_pair[p] {
                            let a = &o.left_col[o.span(to, j, 0, i)];
                            beta.plus_assign(&S::dot(a, c.left_col(d, i, 0, i)));
                        }
                        out[j * size + i].plus_assign(&beta.times(c.incomplete_left(p, i, j)));
                        z.plus_assign(&beta.times(c.weight(j, i)));
                    }
                    if plan.pair_right[p] {
                        let mut beta = S::zero();
                        for &(d, to) in &plan.right_by_pair[p] {
                            let a = &o.right_row[o.span(to, i, j, n)];
                            beta.plus_assign(&S::dot(a, c.right_row(d, j, j, n)));
                        }
                        out[i * size + j].plus_assign(&beta.times(c.incomplete_right(p, i, j)));
                        z.plus_assign(&beta.times(c.weight(i, j)));
                    }
                    let (r, col) = (o.at(p, i, j), o.at(p, j, i));
                    set_both(&mut o.z_row, &mut o.z_col, r, col, z);
                }
            }
        }
        Ok(())
    }

    /// [`arc_sums_into`](Parser::arc_sums_into) into a new vector.
    pub fn arc_sums(&mut self) -> Result<Vec<S>, EngineError> {
        let mut out = Vec::new();
        self.arc_sums_into(&mut out)?;
        Ok(out)
    }
}

impl<S: Semifield> Parser<'_, S> {
    /// Arc marginals of the last [`parse`](Parser::parse): for every arc
    /// h → d, [`arc_sums`](Parser::arc_sums) ⊘ W, in `out` as an
    /// (n+1)×(n+1) row-major matrix (row = head, column = dependent). In
    /// [`LogSumExp`](crate::semiring::LogSumExp) with log-potentials as
    /// weights: ln P(h → d ∈ t) under p(t) ∝ ∏_{arcs} exp w, the gradient
    /// of log Z with respect to w(h, d); −∞ on the diagonal and for arcs in
    /// no derivation.
    ///
    /// # Errors
    /// [`EngineError::NotParsed`] before the first parse;
    /// [`EngineError::NoDerivation`] if W = 𝟘 (the grammar derives nothing
    /// with these weights); [`EngineError::TooMuchMemory`].
    ///
    /// # Complexity
    /// As [`arc_sums_into`](Parser::arc_sums_into).
    pub fn marginals_into(&mut self, out: &mut Vec<S>) -> Result<(), EngineError> {
        if self.parsed_size() == 0 {
            return Err(EngineError::NotParsed);
        }
        let total = self.start_value();
        if total.is_zero() {
            return Err(EngineError::NoDerivation);
        }
        self.arc_sums_into(out)?;
        for v in out.iter_mut() {
            *v = v.divide(&total);
        }
        Ok(())
    }

    /// [`marginals_into`](Parser::marginals_into) into a new vector.
    pub fn marginals(&mut self) -> Result<Vec<S>, EngineError> {
        let mut out = Vec::new();
        self.marginals_into(&mut out)?;
        Ok(out)
    }
}

/// For every rule combination, the ⊕-sum over the derivations that use it
/// of their ⊗-products, once per use ([`Parser::combo_sums`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ComboSums<S> {
    /// Per left attachment combination, indexed as [`crate::grammar::Grammar::left_combos`].
    pub left: Vec<S>,
    /// Per right attachment combination, indexed as [`crate::grammar::Grammar::right_combos`].
    pub right: Vec<S>,
    /// Per start rule: the finish rules of the start category, in file order.
    pub start: Vec<S>,
}

impl<S: Commutative> Parser<'_, S> {
    /// Rule marginals of the last [`parse`](Parser::parse): for every way to
    /// attach a child (a finish rule of the child with an attachment rule,
    /// [`crate::grammar::LeftCombo`], [`crate::grammar::RightCombo`]) and
    /// every start rule, the ⊕-sum over the derivations of their ⊗-products,
    /// counted once per use: in [`Count`](crate::semiring::Count) with unit
    /// weights the total number of uses; divided by W in
    /// [`LogSumExp`](crate::semiring::LogSumExp), the log of the expected
    /// number of uses. Each use of a combination is one summand of a
    /// complete item, so this is Σ over complete items of β(item) ⊗ (the
    /// summands of that combination), after the outside pass.
    ///
    /// # Errors
    /// As [`arc_sums_into`](Parser::arc_sums_into).
    ///
    /// # Complexity
    /// O(n³ · (|left combos| + |right combos|)), twice the outside pass's
    /// own work for these rules.
    pub fn combo_sums(&mut self) -> Result<ComboSums<S>, EngineError> {
        let mut scratch = Vec::new();
        self.arc_sums_into(&mut scratch)?;
        let plan = &self.plan;
        let c = &self.chart;
        let o = &self.outside;
        let size = c.size();
        let n = size - 1;
        let mut sums = ComboSums {
            left: vec![S::zero(); plan.left.len()],
            right: vec![S::zero(); plan.right.len()],
            start: plan.start.iter().map(|&(l, r)| c.left(l.index(), 0, 0).times(c.right(r.index(), 0, n))).collect(),
        };
        for width in 1..size {
            for i in 0..size - width {
                let j = i + width;
                for (idx, &(d, p, to)) in plan.left.iter().enumerate() {
                    let beta = &o.left_row[o.at(to.index(), i, j)];
                    let inside = S::dot(c.left_row(d.index(), i, i, j - 1), c.incomplete_left_col(p, j, i, j - 1));
                    sums.left[idx].plus_assign(&beta.times(&inside));
                }
                for (idx, &(p, d, to)) in plan.right.iter().enumerate() {
                    let beta = &o.right_row[o.at(to.index(), i, j)];
                    let inside = S::dot(c.incomplete_right_row(p, i, i + 1, j), c.right_col(d.index(), j, i + 1, j));
                    sums.right[idx].plus_assign(&beta.times(&inside));
                }
            }
        }
        Ok(sums)
    }
}
