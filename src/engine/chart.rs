//! The chart of [`super::Parser`]: flat buffers reused across sentences.
//!
//! Every item table is stored so that the inner sums of Table 2 read two
//! contiguous slices: complete items in both row (fixed left end) and column
//! (fixed right end) layout, left-arc items by column, right-arc items by row.

use crate::semiring::Semiring;

/// Item tables over positions 0 … size−1. Index (state, a, b) ↦ (state·size + a)·size + b.
#[derive(Debug)]
pub(super) struct Chart<S> {
    size: usize,
    /// size², the stride between the tables of two states.
    square: usize,
    left_row: Vec<S>,
    left_col: Vec<S>,
    right_row: Vec<S>,
    right_col: Vec<S>,
    incomplete_left_col: Vec<S>,
    incomplete_right_row: Vec<S>,
    weights: Vec<S>,
}

impl<S> Default for Chart<S> {
    fn default() -> Self {
        Chart {
            size: 0,
            square: 0,
            left_row: Vec::new(),
            left_col: Vec::new(),
            right_row: Vec::new(),
            right_col: Vec::new(),
            incomplete_left_col: Vec::new(),
            incomplete_right_row: Vec::new(),
            weights: Vec::new(),
        }
    }
}

/// Grows `v` to at least `len` entries; never shrinks, never clears (every
/// cell the engine reads is written first in the same parse).
fn ensure<S: Semiring>(v: &mut Vec<S>, len: usize) {
    if v.len() < len {
        v.resize(len, S::zero());
    }
}

impl<S: Semiring> Chart<S> {
    pub(super) fn reset(&mut self, size: usize, left_states: usize, right_states: usize, pairs: usize) {
        self.size = size;
        let sq = size * size;
        self.square = sq;
        ensure(&mut self.left_row, left_states * sq);
        ensure(&mut self.left_col, left_states * sq);
        ensure(&mut self.right_row, right_states * sq);
        ensure(&mut self.right_col, right_states * sq);
        ensure(&mut self.incomplete_left_col, pairs * sq);
        ensure(&mut self.incomplete_right_row, pairs * sq);
        ensure(&mut self.weights, sq);
    }

    pub(super) fn size(&self) -> usize {
        self.size
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

    #[inline]
    pub(super) fn weight(&self, head: usize, dependent: usize) -> &S {
        &self.weights[head * self.size + dependent]
    }
    #[inline]
    pub(super) fn weight_mut(&mut self, head: usize, dependent: usize) -> &mut S {
        let s = self.size;
        &mut self.weights[head * s + dependent]
    }

    /// Wl(state, i, j).
    #[inline]
    pub(super) fn left(&self, state: usize, i: usize, j: usize) -> &S {
        &self.left_row[self.at(state, i, j)]
    }
    /// Wr(state, i, j).
    #[inline]
    pub(super) fn right(&self, state: usize, i: usize, j: usize) -> &S {
        &self.right_row[self.at(state, i, j)]
    }
    /// The weighted left-arc item Z(pair, i, j) ⊗ w(j, i).
    #[inline]
    pub(super) fn incomplete_left(&self, pair: usize, i: usize, j: usize) -> &S {
        &self.incomplete_left_col[self.at(pair, j, i)]
    }
    /// The weighted right-arc item Z(pair, i, j) ⊗ w(i, j).
    #[inline]
    pub(super) fn incomplete_right(&self, pair: usize, i: usize, j: usize) -> &S {
        &self.incomplete_right_row[self.at(pair, i, j)]
    }

    pub(super) fn set_left(&mut self, state: usize, i: usize, j: usize, v: S) {
        let (r, c) = (self.at(state, i, j), self.at(state, j, i));
        self.left_col[c] = v.clone();
        self.left_row[r] = v;
    }
    pub(super) fn set_right(&mut self, state: usize, i: usize, j: usize, v: S) {
        let (r, c) = (self.at(state, i, j), self.at(state, j, i));
        self.right_col[c] = v.clone();
        self.right_row[r] = v;
    }
    pub(super) fn set_incomplete_left(&mut self, pair: usize, i: usize, j: usize, v: S) {
        let c = self.at(pair, j, i);
        self.incomplete_left_col[c] = v;
    }
    pub(super) fn set_incomplete_right(&mut self, pair: usize, i: usize, j: usize, v: S) {
        let r = self.at(pair, i, j);
        self.incomplete_right_row[r] = v;
    }

    /// Wl(state, i, k) for k in from ..= to.
    #[inline]
    pub(super) fn left_row(&self, state: usize, i: usize, from: usize, to: usize) -> &[S] {
        &self.left_row[self.span(state, i, from, to)]
    }
    /// Wl(state, k, j) for k in from ..= to.
    #[inline]
    pub(super) fn left_col(&self, state: usize, j: usize, from: usize, to: usize) -> &[S] {
        &self.left_col[self.span(state, j, from, to)]
    }
    /// Wr(state, i, k) for k in from ..= to.
    #[inline]
    pub(super) fn right_row(&self, state: usize, i: usize, from: usize, to: usize) -> &[S] {
        &self.right_row[self.span(state, i, from, to)]
    }
    /// Wr(state, k, j) for k in from ..= to.
    #[inline]
    pub(super) fn right_col(&self, state: usize, j: usize, from: usize, to: usize) -> &[S] {
        &self.right_col[self.span(state, j, from, to)]
    }
    /// IL(pair, k, j) for k in from ..= to.
    #[inline]
    pub(super) fn incomplete_left_col(&self, pair: usize, j: usize, from: usize, to: usize) -> &[S] {
        &self.incomplete_left_col[self.span(pair, j, from, to)]
    }
    /// IR(pair, i, k) for k in from ..= to.
    #[inline]
    pub(super) fn incomplete_right_row(&self, pair: usize, i: usize, from: usize, to: usize) -> &[S] {
        &self.incomplete_right_row[self.span(pair, i, from, to)]
    }
}
