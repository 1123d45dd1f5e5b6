//! Arc-eager (Nivre 2003; seed 004, Sec. 2; the system of spaCy, Yara,
//! Redshift and PanParser) and its oracles.
//!
//! Steps: `shift` (σ, bβ) ⊢ (σb, β); `left_arc` (σ s₀, bβ) ⊢ (σ, bβ) with the
//! arc b → s₀, needing s₀ ≠ 0 without a head; `right_arc` (σ s₀, bβ) ⊢
//! (σ s₀ b, β) with the arc s₀ → b; `reduce` (σ s₀, β) ⊢ (σ, β), needing s₀
//! to have a head and the input not to be empty. A computation ends when the
//! input is empty (no step applies then: `reduce` would build no arc); words
//! left without a head keep none (the seed's convention).
//!
//! Oracles: the grammar oracle ([`crate::oracle::grammar_oracle`] with
//! [`grammar`]'s terminal mapping and `grammars/arc-eager.grammar`), any
//! gold tree, O(n³).

pub mod closed_form;
pub mod grammar;

use super::system::{Configuration, Step, System, TransitionSystem};
use crate::tree::DepTree;

/// The arc-eager system.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArcEager;

impl TransitionSystem for ArcEager {
    fn system(&self) -> System {
        System::ArcEager
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::LeftArc, Step::RightArc, Step::Reduce]
    }
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        let s0 = c.top();
        let has_head = c.heads[s0] != DepTree::NO_HEAD;
        match step {
            Step::Shift | Step::RightArc => c.next <= c.n,
            Step::LeftArc => c.next <= c.n && s0 != 0 && !has_head,
            // Not once the input is empty: that configuration is final, and
            // a final configuration offers no step (reducing would build no arc).
            Step::Reduce => has_head && c.next <= c.n,
            _ => false,
        }
    }
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        match step {
            Step::Shift | Step::Reduce => None,
            Step::LeftArc => Some((c.next, c.top())),
            Step::RightArc => Some((c.top(), c.next)),
            _ => unreachable!("not an arc-eager step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        match step {
            Step::Shift | Step::RightArc => c.push_next(),
            Step::LeftArc | Step::Reduce => {
                c.stack.pop();
            }
            _ => unreachable!("not an arc-eager step: {step}"),
        }
    }
    fn is_final(&self, c: &Configuration) -> bool {
        c.next > c.n
    }
    fn front_has_children(&self) -> bool {
        true
    }
    fn stack_words_have_heads(&self) -> bool {
        true
    }
}
