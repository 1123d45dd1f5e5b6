//! The closed-form oracles of arc-eager for projective gold trees: the
//! dynamic oracle of Goldberg and Nivre (seed 004, Eqs. 2–5) as exact scores
//! in O(1) per step along a computation (O(n) from scratch), and the static
//! oracle (seed 004, Eq. 1).
//!
//! Arc-eager is arc-decomposable (seed 004, Sec. 2.3): with a projective
//! gold tree, the score of a step is R − lost
//! ([`decomposable`](crate::oracle::decomposable)). A gold arc h → d, not yet
//! built, with d on the stack or in the remaining input, can still be built
//! exactly when
//!
//! * d is a stack word *without a head* and h is in the remaining input
//!   (`left_arc`);
//! * d is in the remaining input and h is on the stack (`right_arc`) or in
//!   the remaining input.
//!
//! What each step loses (s₀, b as usual; g the gold heads):
//!
//! | step | lost | seed 004 |
//! |---|---|---|
//! | `left_arc` (b → s₀) | s₀'s gold head if it is in the input after b; s₀'s gold children in the input | Eq. 2 |
//! | `right_arc` (s₀ → b) | b's gold head if it is not s₀ and on the stack or in the input; b's gold children among the stack words *without a head* | Eq. 3 |
//! | `reduce` | s₀'s gold children in the input | Eq. 4 |
//! | `shift` | b's gold head if it is on the stack; b's gold children among the stack words *without a head* | Eq. 5 |
//!
//! # The correction to seed 004
//!
//! Eqs. 3 and 5 as printed call `right_arc` and `shift` non-optimal whenever
//! a stack word w has the gold arc w ← b ("∃w ∈ σ|i, w ← j", and w ↔ j in
//! Eq. 5). That arc is lost only if w has no head yet: a stack word that an
//! earlier (wrong) `right_arc` attached can never take b as its head,
//! whatever the step. Counterexample: gold heads 2, 3, 0 for words 1, 2, 3;
//! after a wrong `right_arc` 0 → 1 the configuration is stack [0, 1] (1 with
//! a head), input [2, 3]. The gold arc 2 → 1 is already lost; `shift` keeps
//! both remaining gold arcs (3 → 2 and 0 → 3) within reach, so it is
//! optimal, but Eq. 5 rejects it. On every reachable configuration of every
//! projective tree with n ≤ 6 this is the only way the printed equations
//! differ from brute force (`tests/closed_form.rs`). As printed, the
//! equations also only say optimal or not; here each step gets its exact
//! score.
//!
//! Checked against brute force on every reachable configuration of every
//! projective tree with n ≤ 7 (`tests/closed_form.rs`) and against the
//! grammar oracle on real walks (`.ci/checks/systems.sh`).
//!
//! # The static oracle (Eq. 1)
//!
//! `left_arc` if g(s₀) = b; `right_arc` if g(b) = s₀; `reduce` if s₀ has a
//! head and b has a gold neighbour (head or child) on the stack below s₀;
//! `shift` otherwise. Eq. 1 asks for a gold neighbour v < s₀ anywhere; on the
//! canonical computation such a v is on the stack, and asking it there keeps
//! the test O(1).

use crate::oracle::decomposable::{Decomposable, GoldBook, Loss};
use crate::oracle::system::{Configuration, Step};

/// The arc-eager formulas of the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct EagerFormulas;

impl Decomposable for EagerFormulas {
    fn reachable(&self, book: &GoldBook, c: &Configuration) -> u32 {
        let on_stack = c.stack()[1..].iter().filter(|&&d| c.head(d).is_none() && book.in_input(book.gold(d)));
        let in_input = c.buffer().filter(|&d| book.is_live(book.gold(d)));
        (on_stack.count() + in_input.count()) as u32
    }

    fn lost(&self, book: &GoldBook, c: &Configuration, step: Step) -> Loss {
        let (s0, b) = (c.top(), c.next);
        match step {
            Step::LeftArc => {
                let g = book.gold(s0);
                Loss { lost: (g != b && book.in_input(g)) as u32 + book.input_kids(s0), builds_gold: g == b }
            }
            Step::RightArc => {
                let g = book.gold(b);
                Loss { lost: (g != s0 && book.is_live(g)) as u32 + book.headless_kids(b), builds_gold: g == s0 }
            }
            Step::Reduce => Loss { lost: book.input_kids(s0), builds_gold: false },
            Step::Shift => {
                let g = book.gold(b);
                Loss { lost: book.on_stack(g) as u32 + book.headless_kids(b), builds_gold: false }
            }
            _ => unreachable!("not an arc-eager step: {step}"),
        }
    }

    fn advance(&self, book: &mut GoldBook, c: &Configuration, step: Step) {
        match step {
            Step::Shift => book.push_next(true),
            Step::RightArc => book.push_next(false),
            Step::LeftArc => book.pop(c.top(), true),
            Step::Reduce => book.pop(c.top(), false),
            _ => unreachable!("not an arc-eager step: {step}"),
        }
    }

    fn static_step(&self, book: &GoldBook, c: &Configuration) -> Step {
        let (s0, b) = (c.top(), c.next);
        let headless = c.head(s0).is_none();
        if b > c.n {
            return Step::Reduce;
        }
        if s0 != 0 && headless && book.gold(s0) == b {
            return Step::LeftArc;
        }
        let g = book.gold(b);
        if g == s0 {
            return Step::RightArc;
        }
        if !headless && s0 != 0 && ((book.on_stack(g) && g < s0) || book.headless_kids(b) > 0) {
            return Step::Reduce;
        }
        Step::Shift
    }
}
