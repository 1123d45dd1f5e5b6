//! The closed-form oracles of arc-hybrid for projective gold trees: the
//! dynamic oracle's exact scores in O(1) per step along a computation (O(n)
//! from scratch), and the static oracle (the canonical computation).
//!
//! Arc-hybrid is arc-decomposable (Goldberg and Nivre 2013): with a
//! projective gold tree, the score of a step is R − lost
//! ([`decomposable`](crate::oracle::decomposable)). A gold arc h → d, not yet
//! built, with d on the stack or in the remaining input, can still be built
//! exactly when
//!
//! * d is a stack word (it has no head yet) and h is the stack word right
//!   below it (`right_arc`) or in the remaining input (`left_arc`);
//! * d is in the remaining input and h is on the stack or in the remaining
//!   input.
//!
//! What each step loses (s₀, s₁, b as usual; g the gold heads):
//!
//! | step | lost |
//! |---|---|
//! | `shift` | b's gold head if it is a stack word other than s₀; b's gold children on the stack |
//! | `left_arc` (b → s₀) | s₀'s gold head if it is s₁ or in the input after b; s₀'s gold children in the input |
//! | `right_arc` (s₁ → s₀) | s₀'s gold head if it is in the input; s₀'s gold children in the input |
//!
//! These are the arc-hybrid costs of Goldberg and Nivre (2013), counted
//! rather than tested for zero. Checked against brute force on every
//! reachable configuration of every projective tree with n ≤ 7
//! (`tests/closed_form.rs`) and against the grammar oracle on real walks
//! (`.ci/checks/systems.sh`).
//!
//! The static oracle: `left_arc` if g(s₀) = b; `right_arc` if g(s₀) = s₁
//! and s₀ has no gold children left in the input; `shift` otherwise.

use crate::oracle::decomposable::{Decomposable, GoldBook, Loss};
use crate::oracle::system::{Configuration, Step};

/// The arc-hybrid formulas of the module documentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct HybridFormulas;

impl Decomposable for HybridFormulas {
    fn reachable(&self, book: &GoldBook, c: &Configuration) -> u32 {
        let stack = c.stack();
        let on_stack = stack.windows(2).filter(|w| {
            let g = book.gold(w[1]);
            g == w[0] || book.in_input(g)
        });
        let in_input = c.buffer().filter(|&d| book.is_live(book.gold(d)));
        (on_stack.count() + in_input.count()) as u32
    }

    fn lost(&self, book: &GoldBook, c: &Configuration, step: Step) -> Loss {
        let (s0, b) = (c.top(), c.next);
        match step {
            Step::Shift => {
                let g = book.gold(b);
                let lost = (book.on_stack(g) && g != s0) as u32 + book.headless_kids(b);
                Loss { lost, builds_gold: false }
            }
            Step::LeftArc => {
                let (g, s1) = (book.gold(s0), c.stack[c.stack.len() - 2]);
                let lost = (g != b && (g == s1 || book.in_input(g))) as u32 + book.input_kids(s0);
                Loss { lost, builds_gold: g == b }
            }
            Step::RightArc => {
                let (g, s1) = (book.gold(s0), c.stack[c.stack.len() - 2]);
                Loss { lost: book.in_input(g) as u32 + book.input_kids(s0), builds_gold: g == s1 }
            }
            _ => unreachable!("not an arc-hybrid step: {step}"),
        }
    }

    fn advance(&self, book: &mut GoldBook, c: &Configuration, step: Step) {
        match step {
            Step::Shift => book.push_next(true),
            Step::LeftArc | Step::RightArc => book.pop(c.top(), true),
            _ => unreachable!("not an arc-hybrid step: {step}"),
        }
    }

    fn static_step(&self, book: &GoldBook, c: &Configuration) -> Step {
        let has_input = c.next <= c.n;
        if c.stack.len() >= 2 {
            let (s0, s1) = (c.top(), c.stack[c.stack.len() - 2]);
            let g = book.gold(s0);
            if has_input && g == c.next {
                return Step::LeftArc;
            }
            if !has_input || (g == s1 && book.input_kids(s0) == 0) {
                return Step::RightArc;
            }
        }
        Step::Shift
    }
}
