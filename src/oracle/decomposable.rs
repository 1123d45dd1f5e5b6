//! What the closed-form oracles of arc-decomposable systems share: counts of
//! the gold arcs a configuration can still build, kept up to date step by
//! step.
//!
//! A system is *arc-decomposable* (Goldberg and Nivre 2013; seed 004,
//! Sec. 2.3) when, for a projective gold tree, the gold arcs that can each
//! be built from a configuration can all be built by one computation.
//! Arc-hybrid and arc-eager are (checked by brute force on every reachable
//! configuration of every projective tree with n ≤ 7, `tests/closed_form.rs`).
//! Then the score of a step is R − lost: R the number of gold arcs still
//! reachable one by one, lost those of them the step makes unreachable
//! without building them. Each system's `closed_form` module says which
//! arcs are reachable and what each step loses; both need only the counts
//! kept here, so a step costs O(1).
//!
//! The counts, for the current configuration and the gold heads g:
//!
//! * which words are on the stack;
//! * `headless_kids[h]`: the stack words without a head whose gold head is h;
//! * `input_kids[h]`: the remaining input words whose gold head is h.

use super::system::{Configuration, Step};
use super::{Algorithm, OracleError, StepScores};
use crate::tree::DepTree;

/// The formulas of one arc-decomposable system (implemented in its
/// `closed_form` module): which gold arcs are reachable, what each step
/// loses, how each step changes the counts.
pub trait Decomposable: Sync {
    /// The number of gold arcs not yet built that can each still be built
    /// from `c`. O(k + m).
    fn reachable(&self, book: &GoldBook, c: &Configuration) -> u32;
    /// How many of those `step` (applicable) makes unreachable without
    /// building them, and whether it builds one. O(1).
    fn lost(&self, book: &GoldBook, c: &Configuration, step: Step) -> Loss;
    /// Updates the counts for `step` applied to `c` (the configuration
    /// before the step). O(1).
    fn advance(&self, book: &mut GoldBook, c: &Configuration, step: Step);
    /// The static oracle: the one step of the canonical computation of the
    /// gold tree, meant for configurations on it. O(1).
    fn static_step(&self, book: &GoldBook, c: &Configuration) -> Step;
}

/// What a step does to the reachable gold arcs ([`Decomposable::lost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loss {
    /// Reachable gold arcs that become unreachable without being built.
    pub lost: u32,
    /// Whether the step builds a gold arc.
    pub builds_gold: bool,
}

/// A closed-form oracle for one gold tree: the counts and R, kept up to
/// date along a computation ([`ClosedForm::apply`]) or filled anew for any
/// configuration ([`ClosedForm::start`]).
pub struct ClosedForm {
    formulas: &'static dyn Decomposable,
    book: GoldBook,
    reachable: u32,
    /// Whether the book's gold tree is projective.
    projective: bool,
}

impl ClosedForm {
    /// A closed-form oracle with the given system's formulas (no tree yet).
    pub fn new(formulas: &'static dyn Decomposable) -> Self {
        ClosedForm { formulas, book: GoldBook::default(), reachable: 0, projective: true }
    }

    /// Starts over with `formulas` at `config` for `gold` (of the same
    /// length: the caller checks). O(n), and no allocation once warm: the
    /// projectivity of the tree is checked only when it differs from the
    /// previous call's.
    ///
    /// # Errors
    ///
    /// [`OracleError::NonProjectiveGold`]: the closed forms are exact only
    /// for projective gold trees.
    pub fn start(
        &mut self,
        formulas: &'static dyn Decomposable,
        gold: &DepTree,
        config: &Configuration,
    ) -> Result<(), OracleError> {
        self.formulas = formulas;
        if self.book.reset(gold, config) {
            self.projective = gold.is_projective();
        }
        if !self.projective {
            return Err(OracleError::NonProjectiveGold(Algorithm::Linear));
        }
        self.reachable = self.formulas.reachable(&self.book, config);
        Ok(())
    }

    /// The scores of the configuration `c` the counts are at: R − lost for
    /// every applicable step. O(1).
    pub fn scores(&self, c: &Configuration) -> StepScores {
        let mut scores = StepScores::default();
        for step in c.applicable_steps() {
            let loss = self.formulas.lost(&self.book, c, step);
            scores.set(step, Some(self.reachable - loss.lost));
        }
        scores
    }

    /// The static oracle's step at `c` (the configuration the counts are at). O(1).
    pub fn static_step(&self, c: &Configuration) -> Step {
        self.formulas.static_step(&self.book, c)
    }

    /// Follows `step` (applicable), about to be applied to `before`. O(1).
    pub fn apply(&mut self, before: &Configuration, step: Step) {
        let loss = self.formulas.lost(&self.book, before, step);
        self.reachable -= loss.lost + loss.builds_gold as u32;
        self.formulas.advance(&mut self.book, before, step);
    }
}

/// The counts of the module documentation, for one gold tree. Reused
/// between configurations and sessions: nothing is allocated once warm.
#[derive(Clone, Debug, Default)]
pub struct GoldBook {
    /// The gold head of each position; [`DepTree::NO_HEAD`] for 0.
    gold: Vec<usize>,
    on_stack: Vec<bool>,
    headless_kids: Vec<u32>,
    input_kids: Vec<u32>,
    /// The first remaining input word (n + 1 when none).
    next: usize,
}

impl GoldBook {
    /// Fills the counts for `config` and `gold` (of the same length);
    /// returns whether `gold` differs from the previous call's tree. O(n).
    pub fn reset(&mut self, gold: &DepTree, config: &Configuration) -> bool {
        let n = gold.len();
        let changed = self.gold.get(1..) != Some(gold.heads());
        if changed {
            self.gold.clear();
            self.gold.push(DepTree::NO_HEAD);
            self.gold.extend_from_slice(gold.heads());
        }
        for v in [&mut self.headless_kids, &mut self.input_kids] {
            v.clear();
            v.resize(n + 1, 0);
        }
        self.on_stack.clear();
        self.on_stack.resize(n + 1, false);
        for &a in config.stack() {
            self.on_stack[a] = true;
            if a != 0 && config.head(a).is_none() {
                self.headless_kids[self.gold[a]] += 1;
            }
        }
        self.next = *config.buffer().start();
        for d in config.buffer() {
            self.input_kids[self.gold[d]] += 1;
        }
        changed
    }

    /// The gold head of word `d` ≥ 1.
    pub fn gold(&self, d: usize) -> usize {
        self.gold[d]
    }
    /// Whether `v` (a position, or [`DepTree::NO_HEAD`]) is on the stack.
    pub fn on_stack(&self, v: usize) -> bool {
        self.on_stack.get(v).copied().unwrap_or(false)
    }
    /// Whether `v` (a position, or [`DepTree::NO_HEAD`]) is in the remaining input.
    pub fn in_input(&self, v: usize) -> bool {
        v != DepTree::NO_HEAD && v >= self.next && v < self.gold.len()
    }
    /// Whether `v` is on the stack or in the remaining input.
    pub fn is_live(&self, v: usize) -> bool {
        self.on_stack(v) || self.in_input(v)
    }
    /// The stack words without a head whose gold head is `h`.
    pub fn headless_kids(&self, h: usize) -> u32 {
        self.headless_kids[h]
    }
    /// The remaining input words whose gold head is `h`.
    pub fn input_kids(&self, h: usize) -> u32 {
        self.input_kids[h]
    }

    /// b₁ moves onto the stack, without a head (`headless`) or with one. O(1).
    pub fn push_next(&mut self, headless: bool) {
        let b = self.next;
        self.on_stack[b] = true;
        self.input_kids[self.gold[b]] -= 1;
        if headless {
            self.headless_kids[self.gold[b]] += 1;
        }
        self.next += 1;
    }
    /// The stack word `s` leaves the stack; `headless` says whether it had no head. O(1).
    pub fn pop(&mut self, s: usize, headless: bool) {
        self.on_stack[s] = false;
        if headless {
            self.headless_kids[self.gold[s]] -= 1;
        }
    }
}
