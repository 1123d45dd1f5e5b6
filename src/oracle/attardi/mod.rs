//! Attardi's non-projective parser of degree 2 (Attardi 2006, restricted as
//! in Kuhlmann and Nivre 2010 and Cohen et al. 2011; seed 002, Fig. 1) and
//! its tabular dynamic oracle ([`tabular`], seed 002, Sec. 4–5).
//!
//! Steps (s₀ the top of the stack, s₁ below it, s₂ below that):
//!
//! | step | seed 002 | effect |
//! |---|---|---|
//! | `shift` | `sh` | (σ, bβ) ⊢ (σb, β) |
//! | `left_arc` | `la` | (σ s₁ s₀, β) ⊢ (σ s₀, β), arc s₀ → s₁; s₁ ≠ 0 |
//! | `right_arc` | `ra` | (σ s₁ s₀, β) ⊢ (σ s₁, β), arc s₁ → s₀ |
//! | `left_arc_2` | `la₂` | (σ s₂ s₁ s₀, β) ⊢ (σ s₁ s₀, β), arc s₀ → s₂; s₂ ≠ 0 |
//! | `right_arc_2` | `ra₂` | (σ s₂ s₁ s₀, β) ⊢ (σ s₂ s₁, β), arc s₂ → s₀ |
//!
//! `left_arc` and `right_arc` are the [`Step`]s of arc-hybrid with the same
//! names, but here both link the two topmost stack words (as arc-standard's
//! `reduce_right` / `reduce_left` do). The root 0 starts on the stack (the
//! seed shifts it first, from an empty stack) and never becomes a
//! dependent: `left_arc` needs s₁ ≠ 0 and `left_arc_2` s₂ ≠ 0 (otherwise the
//! final configuration, stack 0 and no input, could not be reached).
//!
//! The stack stays increasing (steps remove words, never reorder them), so
//! [`Configuration`] holds it as for the other systems; arcs may cross one
//! another and pass over stack words ([`TransitionSystem::arcs_may_cross`]).

pub mod tabular;

use super::system::{Configuration, Step, System, TransitionSystem};

/// The Attardi system.
#[derive(Clone, Copy, Debug, Default)]
pub struct Attardi;

impl TransitionSystem for Attardi {
    fn system(&self) -> System {
        System::Attardi
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::LeftArc, Step::RightArc, Step::LeftArc2, Step::RightArc2]
    }
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        let k = c.stack.len();
        match step {
            Step::Shift => c.next <= c.n,
            Step::LeftArc => k >= 3,
            Step::RightArc => k >= 2,
            Step::LeftArc2 => k >= 4,
            Step::RightArc2 => k >= 3,
            _ => false,
        }
    }
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        let s = |i: usize| c.below_top(i);
        match step {
            Step::Shift => None,
            Step::LeftArc => Some((s(0), s(1))),
            Step::RightArc => Some((s(1), s(0))),
            Step::LeftArc2 => Some((s(0), s(2))),
            Step::RightArc2 => Some((s(2), s(0))),
            _ => unreachable!("not an Attardi step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        let k = c.stack.len();
        match step {
            Step::Shift => c.push_next(),
            // The dependent leaves the stack.
            Step::LeftArc => {
                c.stack.remove(k - 2);
            }
            Step::LeftArc2 => {
                c.stack.remove(k - 3);
            }
            Step::RightArc | Step::RightArc2 => {
                c.stack.pop();
            }
            _ => unreachable!("not an Attardi step: {step}"),
        }
    }
    fn arcs_may_cross(&self) -> bool {
        true
    }
}
