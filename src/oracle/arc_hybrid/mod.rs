//! Arc-hybrid (Kuhlmann, Gómez-Rodríguez and Satta 2011; the system of the
//! BIST parser and UUParser) and its oracles.
//!
//! Steps: `shift` (σ, bβ) ⊢ (σb, β); `left_arc` (σ s₀, bβ) ⊢ (σ, bβ) with the
//! arc b → s₀, needing s₀ ≠ 0; `right_arc` (σ s₁ s₀, β) ⊢ (σ s₁, β) with the
//! arc s₁ → s₀. Final: (0, ε).
//!
//! Oracles: the grammar oracle ([`crate::oracle::grammar_oracle`] with
//! [`grammar`]'s terminal mapping and `grammars/arc-hybrid.grammar`), any
//! gold tree, O(n³).

pub mod closed_form;
pub mod grammar;

use super::system::{Configuration, Step, System, TransitionSystem};

/// The arc-hybrid system.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArcHybrid;

impl TransitionSystem for ArcHybrid {
    fn system(&self) -> System {
        System::ArcHybrid
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::LeftArc, Step::RightArc]
    }
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        match step {
            Step::Shift => c.next <= c.n,
            Step::LeftArc => c.next <= c.n && c.stack.len() >= 2,
            Step::RightArc => c.stack.len() >= 2,
            _ => false,
        }
    }
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        match step {
            Step::Shift => None,
            Step::LeftArc => Some((c.next, c.below_top(0))),
            Step::RightArc => Some((c.below_top(1), c.below_top(0))),
            _ => unreachable!("not an arc-hybrid step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        match step {
            Step::Shift => c.push_next(),
            Step::LeftArc | Step::RightArc => {
                c.stack.pop();
            }
            _ => unreachable!("not an arc-hybrid step: {step}"),
        }
    }
    fn front_has_children(&self) -> bool {
        true
    }
}
