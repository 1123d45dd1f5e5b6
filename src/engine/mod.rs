//! The Eisner–Satta engine: weighted parsing of split bilexical grammars over
//! any semiring (Nederhof 2019, Sec. 3, Table 2; Eisner & Satta 1999).
//!
//! Input: a terminal string a₀ a₁ … aₙ (a₀ is the prospective root) and a
//! weight w(i, j) ∈ 𝕂 for every potential arc from head i to dependent j.
//! Output: W, the ⊕-sum over all derivations of the ⊗-product of the weights
//! of their arcs. Items (Table 2, 0 ≤ i ≤ j ≤ n):
//!
//! * `Wl(B, i, j)` — head j with left state B, its left children (and their
//!   subtrees) spanning i … j;
//! * `Wr(C, i, j)` — head i with right state C, its right children spanning i … j;
//! * `Z(B, C, i, j) = ⊕ₖ Wr(B, i, k) ⊗ Wl(C, k+1, j)` — two adjacent heads, the
//!   left one in right state B, the right one in left state C; with the arc
//!   weight w(j, i) it is Table 2's `Wl(B, C, i, j)` (i becomes a left child
//!   of j), with w(i, j) its `Wr(B, C, i, j)` (j becomes a right child of i);
//! * `W = ⊕_{S → (B, C)} Wl(B, 0, 0) ⊗ Wr(C, 0, n)`.
//!
//! Complexity: O(n³ · (|left combos| + |right combos| + |state pairs|)) time and
//! O(n² · (|N_ℓ| + |N_r| + |state pairs|)) space, where the combos are the
//! pairs of a finish rule and an attachment rule ([`crate::grammar::LeftCombo`]).
//!
//! The [`Parser`] keeps its chart between calls: once it has seen a sentence
//! of length n, parsing sentences of length ≤ n allocates nothing (for
//! semirings whose values own no memory).

mod backtrace;
mod chart;
mod count_best;
mod kbest;
mod outside;
pub mod progress;
mod sample;
mod walk;

pub use backtrace::{Derivation, FirstChoice, TieBreak, WordDerivation};
pub use outside::ComboSums;

use crate::grammar::{Grammar, LeftState, RightState, Terminal};
use crate::semiring::Semiring;
use chart::Chart;

/// Errors of [`Parser::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The input must contain at least a₀.
    #[error("the input is empty: it needs at least the root terminal a0")]
    EmptyInput,
    /// A terminal id that the grammar does not have.
    #[error("terminal id {id} at position {position} is not a terminal of this grammar")]
    UnknownTerminal { position: usize, id: u16 },
    /// A call that reads the chart ([`Parser::arc_sums`], [`Parser::sample`])
    /// before any [`Parser::parse`].
    #[error("nothing was parsed yet: call parse first")]
    NotParsed,
    /// The grammar derives no tree for the input with these weights (W = 𝟘),
    /// so marginals and samples are undefined.
    #[error("no derivation: the grammar derives no tree for this input with these weights")]
    NoDerivation,
    /// The chart would exceed the memory limit ([`crate::memory`]).
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}

/// The attachment rules regrouped for the inner loops: which (left state,
/// right state) pairs of adjacent heads are ever combined, and for each
/// group of combos the chart rows they read and the states they update.
#[derive(Clone, Debug)]
struct Plan {
    /// Distinct pairs (B, C): right state B of the left head, left state C
    /// of the right head, as combined in `Z`.
    pairs: Vec<(RightState, LeftState)>,
    /// Whether pair p is needed with a left arc (w(j, i)) / a right arc (w(i, j)).
    pair_left: Vec<bool>,
    pair_right: Vec<bool>,
    /// Left attachment: (child left state D, pair p, new left state C').
    left: Vec<(LeftState, usize, LeftState)>,
    /// Right attachment: (pair p, child right state D, new right state B').
    right: Vec<(usize, RightState, RightState)>,
    /// `left` grouped by the new left state: `left_into[C']` lists (D, p)
    /// for every combo with `to == C'`, so each item is summed in place.
    left_into: Vec<Vec<(usize, usize)>>,
    /// `right` grouped by the new right state: `right_into[B']` lists (p, D).
    right_into: Vec<Vec<(usize, usize)>>,
    /// Start rules: (B, C) for each `S -> (B, C)`.
    start: Vec<(LeftState, RightState)>,
    // For the outside pass (`outside.rs`): the same rules indexed by what
    // an item is used as.
    /// `left_by_child[D]`: (p, C') for every left combo (D, p, C').
    left_by_child: Vec<Vec<(usize, usize)>>,
    /// `right_by_child[D]`: (p, B') for every right combo (p, D, B').
    right_by_child: Vec<Vec<(usize, usize)>>,
    /// `left_by_pair[p]`: (D, C') for every left combo (D, p, C').
    left_by_pair: Vec<Vec<(usize, usize)>>,
    /// `right_by_pair[p]`: (D, B') for every right combo (p, D, B').
    right_by_pair: Vec<Vec<(usize, usize)>>,
    /// `pairs_by_right[B]`: the pairs p = (B, _).
    pairs_by_right: Vec<Vec<usize>>,
    /// `pairs_by_left[C]`: the pairs p = (_, C).
    pairs_by_left: Vec<Vec<usize>>,
    /// `start_by_right[C]`: the left states B of the start rules (B, C).
    start_by_right: Vec<Vec<usize>>,
}

impl Plan {
    fn new(g: &Grammar) -> Plan {
        let mut pairs: Vec<(RightState, LeftState)> = Vec::new();
        let pair_of = |p: (RightState, LeftState), pairs: &mut Vec<_>| {
            pairs.iter().position(|&q| q == p).unwrap_or_else(|| {
                pairs.push(p);
                pairs.len() - 1
            })
        };
        let left: Vec<_> = g
            .left_combos()
            .iter()
            .map(|c| (c.child_left, pair_of((c.child_right, c.from), &mut pairs), c.to))
            .collect();
        let right: Vec<_> = g
            .right_combos()
            .iter()
            .map(|c| (pair_of((c.from, c.child_left), &mut pairs), c.child_right, c.to))
            .collect();
        let mut pair_left = vec![false; pairs.len()];
        let mut pair_right = vec![false; pairs.len()];
        for &(_, p, _) in &left {
            pair_left[p] = true;
        }
        for &(p, _, _) in &right {
            pair_right[p] = true;
        }
        let mut left_into = vec![Vec::new(); g.num_left_states()];
        for &(d, p, to) in &left {
            left_into[to.index()].push((d.index(), p));
        }
        let mut right_into = vec![Vec::new(); g.num_right_states()];
        for &(p, d, to) in &right {
            right_into[to.index()].push((p, d.index()));
        }
        let start: Vec<_> =
            g.finish_rules().iter().filter(|f| f.category == g.start()).map(|f| (f.left, f.right)).collect();
        let mut left_by_child = vec![Vec::new(); g.num_left_states()];
        let mut left_by_pair = vec![Vec::new(); pairs.len()];
        for &(d, p, to) in &left {
            left_by_child[d.index()].push((p, to.index()));
            left_by_pair[p].push((d.index(), to.index()));
        }
        let mut right_by_child = vec![Vec::new(); g.num_right_states()];
        let mut right_by_pair = vec![Vec::new(); pairs.len()];
        for &(p, d, to) in &right {
            right_by_child[d.index()].push((p, to.index()));
            right_by_pair[p].push((d.index(), to.index()));
        }
        let mut pairs_by_right = vec![Vec::new(); g.num_right_states()];
        let mut pairs_by_left = vec![Vec::new(); g.num_left_states()];
        for (p, &(b, cs)) in pairs.iter().enumerate() {
            pairs_by_right[b.index()].push(p);
            pairs_by_left[cs.index()].push(p);
        }
        let mut start_by_right = vec![Vec::new(); g.num_right_states()];
        for &(l, r) in &start {
            start_by_right[r.index()].push(l.index());
        }
        Plan {
            pairs,
            pair_left,
            pair_right,
            left,
            right,
            left_into,
            right_into,
            start,
            left_by_child,
            right_by_child,
            left_by_pair,
            right_by_pair,
            pairs_by_right,
            pairs_by_left,
            start_by_right,
        }
    }
}

/// A parser for one grammar, with a chart reused across calls.
///
/// ```
/// use tabula::grammar::text;
/// use tabula::engine::Parser;
/// use tabula::semiring::{Count, Semiring};
///
/// let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
/// let a = g.terminal("a").unwrap();
/// let mut parser = Parser::<Count>::new(&g);
/// // Projective trees over root + 3 words: 12.
/// let w = parser.parse(&[a; 4], |_, _| Count::one()).unwrap();
/// assert_eq!(w, Count::new(12));
/// ```
pub struct Parser<'g, S> {
    grammar: &'g Grammar,
    plan: Plan,
    chart: Chart<S>,
    /// The outside pass's tables, allocated on its first use.
    outside: outside::OutsideChart<S>,
    /// What the chart holds after [`Parser::parse_framed`]: the input it
    /// was filled for, so that the next framed parse recomputes only the
    /// spans that see a change.
    framed: Framed,
}

/// The input of the last [`Parser::parse_framed`], in frame positions.
#[derive(Clone, Debug, Default)]
struct Framed {
    /// The frame size, 0 if the chart does not hold a framed parse.
    frame: usize,
    /// The first position of the last input; its spans are in the chart.
    lo: usize,
    /// The terminal at each frame position (from `lo` on).
    terminals: Vec<Terminal>,
    /// Spans filled by framed parses so far (a work counter for tests).
    spans: u64,
}

impl<'g, S: Semiring> Parser<'g, S> {
    /// A parser for `grammar` with an empty chart. O(|rules|²) preparation.
    pub fn new(grammar: &'g Grammar) -> Self {
        let plan = Plan::new(grammar);
        Parser {
            grammar,
            plan,
            chart: Chart::default(),
            outside: outside::OutsideChart::default(),
            framed: Framed::default(),
        }
    }

    /// The grammar this parser runs.
    pub fn grammar(&self) -> &'g Grammar {
        self.grammar
    }

    /// The bytes of the chart for `size` terminals (`None`: beyond `usize`):
    /// the tables of size² cells of `Chart::reset`. O(1).
    pub fn chart_bytes(&self, size: usize) -> Option<usize> {
        let g = self.grammar;
        let tables = 2 * (g.num_left_states() + g.num_right_states() + self.plan.pairs.len()) + 1;
        size.checked_mul(size)?.checked_mul(tables)?.checked_mul(std::mem::size_of::<S>())
    }

    /// Runs Table 2 on `input` = a₀ … aₙ with arc weights `weight(head, dependent)`
    /// (called once for each ordered pair of distinct positions) and returns W.
    /// O(n³) time; the chart stays available for [`Parser::best_derivation`].
    /// Reports its progress to the callback of [`progress::with_progress`], if any.
    pub fn parse(&mut self, input: &[Terminal], weight: impl Fn(usize, usize) -> S) -> Result<S, EngineError> {
        if input.is_empty() {
            return Err(EngineError::EmptyInput);
        }
        let num_terminals = self.grammar.num_terminals();
        if let Some((position, t)) = input.iter().enumerate().find(|(_, t)| t.index() >= num_terminals) {
            return Err(EngineError::UnknownTerminal { position, id: t.0 });
        }
        let size = input.len();
        // Refuse before allocating.
        crate::memory::check(self.chart_bytes(size), 1, || format!("the chart for {size} terminals"))?;
        self.framed.frame = 0;
        let g = self.grammar;
        let plan = &self.plan;
        let c = &mut self.chart;
        c.reset(size, g.num_left_states(), g.num_right_states(), plan.pairs.len());
        for h in 0..size {
            for d in 0..size {
                if h != d {
                    *c.weight_mut(h, d) = weight(h, d);
                }
            }
        }
        for (i, &t) in input.iter().enumerate() {
            set_lexical(g, c, i, t);
        }
        let (progress, total, mut done) = (progress::current(), progress::total(size), 0u64);
        for width in 1..size {
            for i in 0..size - width {
                let j = i + width;
                fill_span(plan, c, i, j);
            }
            if let Some(report) = &progress {
                done += ((size - width) * width) as u64;
                report(done, total);
            }
        }
        Ok(self.start_value())
    }

    /// [`Parser::parse`] for a sequence of related inputs, reusing the chart
    /// of the previous call: the input is placed at the end of a frame of
    /// `frame` positions (`input.len() ≤ frame`), so that inputs sharing a
    /// suffix share its positions, and only the spans [i, j] that start at
    /// or before the last position where the input or a weight differs from
    /// the previous framed call are recomputed. A span's items depend on
    /// the terminals and weights inside it only, so the result is the value
    /// `parse` returns, whatever the previous input was. Made for oracles
    /// that follow a computation (the remaining input loses a word at its
    /// left end, the stack changes at its right end: the chart over the
    /// remaining input survives a step).
    ///
    /// # Complexity
    ///
    /// O(frame²) to compare the weights, plus O(K · frame²) for the K
    /// positions from the input's first to the last one that changed:
    /// O(frame³) at worst, as `parse`. No allocation once the chart has
    /// grown to the frame.
    pub fn parse_framed(
        &mut self,
        frame: usize,
        input: &[Terminal],
        weight: impl Fn(usize, usize) -> S,
    ) -> Result<S, EngineError>
    where
        S: PartialEq,
    {
        self.parse_framed_from(frame, input, None, weight)
    }

    /// [`Parser::parse_framed`] with the caller's word on the weights:
    /// `unchanged_from = Some(p)` promises that every weight between input
    /// positions at or after p is the one the previous framed call had at
    /// the same frame positions (e.g. because the words there are the same
    /// and the weights are a function of the words). Only the weights that
    /// touch an earlier position are then asked for and compared: O(K ·
    /// frame) instead of O(frame²). A broken promise gives wrong values;
    /// `None` is `parse_framed`.
    pub fn parse_framed_from(
        &mut self,
        frame: usize,
        input: &[Terminal],
        unchanged_from: Option<usize>,
        weight: impl Fn(usize, usize) -> S,
    ) -> Result<S, EngineError>
    where
        S: PartialEq,
    {
        if input.is_empty() {
            return Err(EngineError::EmptyInput);
        }
        let num_terminals = self.grammar.num_terminals();
        if let Some((position, t)) = input.iter().enumerate().find(|(_, t)| t.index() >= num_terminals) {
            return Err(EngineError::UnknownTerminal { position, id: t.0 });
        }
        let frame = frame.max(input.len());
        crate::memory::check(self.chart_bytes(frame), 1, || format!("the chart for {frame} terminals"))?;
        let g = self.grammar;
        let plan = &self.plan;
        let c = &mut self.chart;
        let f = &mut self.framed;
        let lo = frame - input.len();
        // `dirty`: one past the last position whose spans must be recomputed.
        let mut dirty = lo;
        if f.frame != frame {
            c.reset(frame, g.num_left_states(), g.num_right_states(), plan.pairs.len());
            f.frame = frame;
            f.terminals.clear();
            f.terminals.resize(frame, Terminal(u16::MAX));
            dirty = frame;
        } else {
            // Positions the previous input did not have, or with another terminal.
            for p in (lo..frame).rev() {
                if p < f.lo || f.terminals[p] != input[p - lo] {
                    dirty = p + 1;
                    break;
                }
            }
        }
        // Weights: a changed w(h, d) dirties the spans starting at or before
        // min(h, d). With a promise, only the pairs touching a position
        // before the promised or dirty ones are asked for.
        match unchanged_from {
            None => {
                for h in lo..frame {
                    for d in lo..frame {
                        if h != d {
                            let w = weight(h - lo, d - lo);
                            let cell = c.weight_mut(h, d);
                            if *cell != w {
                                dirty = dirty.max(h.min(d) + 1);
                                *cell = w;
                            }
                        }
                    }
                }
            }
            Some(p) => {
                dirty = dirty.max((lo + p).min(frame));
                for a in lo..dirty {
                    for b in a + 1..frame {
                        *c.weight_mut(a, b) = weight(a - lo, b - lo);
                        *c.weight_mut(b, a) = weight(b - lo, a - lo);
                    }
                }
            }
        }
        f.lo = lo;
        f.terminals[lo..].copy_from_slice(input);
        for i in (lo..dirty).rev() {
            set_lexical(g, c, i, input[i - lo]);
            f.spans += (frame - i) as u64;
            for j in i + 1..frame {
                fill_span(plan, c, i, j);
            }
        }
        let mut total = S::zero();
        for &(l, r) in &plan.start {
            total.plus_assign(&c.left(l.index(), lo, lo).times(c.right(r.index(), lo, frame - 1)));
        }
        Ok(total)
    }

    /// The size of the input of the last [`Parser::parse`], 0 if there was
    /// none or a [`Parser::parse_framed`] came after it (the chart then
    /// holds framed spans, which the backtrace, outside pass, k-best and
    /// sampling do not read: they answer as before any parse).
    pub(crate) fn parsed_size(&self) -> usize {
        if self.framed.frame != 0 {
            0
        } else {
            self.chart.size()
        }
    }

    /// The number of spans [`Parser::parse_framed`] has filled so far
    /// (a span counts once per fill; reused spans do not count).
    pub fn framed_spans(&self) -> u64 {
        self.framed.spans
    }

    /// The value of the whole input in the filled chart: ⊕ over the start
    /// rules of (left state at position 0) ⊗ (right state over 0 … n). O(start rules).
    fn start_value(&self) -> S {
        let c = &self.chart;
        let n = c.size() - 1;
        let mut total = S::zero();
        for &(l, r) in &self.plan.start {
            total.plus_assign(&c.left(l.index(), 0, 0).times(c.right(r.index(), 0, n)));
        }
        total
    }
}

/// The one-word items of position `i`, terminal `t`: 𝟙 for the lexical
/// rule's left and right states, 𝟘 for the others. O(states).
fn set_lexical<S: Semiring>(g: &Grammar, c: &mut Chart<S>, i: usize, t: Terminal) {
    let (l, r) = g.lexical(t);
    for b in 0..g.num_left_states() {
        let v = if b == l.index() { S::one() } else { S::zero() };
        c.set_left(b, i, i, v);
    }
    for b in 0..g.num_right_states() {
        let v = if b == r.index() { S::one() } else { S::zero() };
        c.set_right(b, i, i, v);
    }
}

/// Fills the items of span [i, j] (Table 2) from the shorter spans inside
/// it: those starting after i, and [i, k] for k < j. O((j − i) · rules).
#[inline(always)]
fn fill_span<S: Semiring>(plan: &Plan, c: &mut Chart<S>, i: usize, j: usize) {
    // Z(B, C, i, j) and the two arc-weighted items built from it.
    for (p, &(b, cs)) in plan.pairs.iter().enumerate() {
        let z = dot(c.right_row(b.index(), i, i, j - 1), c.left_col(cs.index(), j, i + 1, j));
        if plan.pair_left[p] {
            let v = z.times(c.weight(j, i));
            c.set_incomplete_left(p, i, j, v);
        }
        if plan.pair_right[p] {
            let v = z.times(c.weight(i, j));
            c.set_incomplete_right(p, i, j, v);
        }
    }
    // Wl(C', i, j) = ⊕ Wl(D, i, k) ⊗ IL(B, C, k, j), i ≤ k < j.
    for (to, combos) in plan.left_into.iter().enumerate() {
        let v = sum_of_dots(combos, |&(d, p)| dot(c.left_row(d, i, i, j - 1), c.incomplete_left_col(p, j, i, j - 1)));
        c.set_left(to, i, j, v);
    }
    // Wr(B', i, j) = ⊕ IR(B, C, i, k) ⊗ Wr(D, k, j), i < k ≤ j.
    for (to, combos) in plan.right_into.iter().enumerate() {
        let v = sum_of_dots(combos, |&(p, d)| dot(c.incomplete_right_row(p, i, i + 1, j), c.right_col(d, j, i + 1, j)));
        c.set_right(to, i, j, v);
    }
}

/// ⊕ of `term(x)` over `xs` (𝟘 if empty), without a ⊕ with 𝟘 for the first term.
#[inline]
fn sum_of_dots<T, S: Semiring>(xs: &[T], term: impl Fn(&T) -> S) -> S {
    match xs.split_first() {
        None => S::zero(),
        Some((first, rest)) => {
            let mut acc = term(first);
            for x in rest {
                acc.plus_assign(&term(x));
            }
            acc
        }
    }
}

/// ⊕ᵢ aᵢ ⊗ bᵢ: the inner sum of every recurrence of Table 2, as the
/// semiring computes it ([`Semiring::dot`]). O(len).
#[inline(always)]
fn dot<S: Semiring>(a: &[S], b: &[S]) -> S {
    S::dot(a, b)
}

#[cfg(test)]
mod tests;
