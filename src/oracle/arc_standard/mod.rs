//! Arc-standard: the shift-reduce parser of Nederhof (2019), Sec. 2, Table 1,
//! and its oracles.
//!
//! Steps: `shift` (α, bβ) ⊢ (αb, β); `reduce_left` (α a₁ a₂, β) ⊢ (α a₁, β)
//! with the arc a₁ → a₂; `reduce_right` (α a₁ a₂, β) ⊢ (α a₂, β) with the
//! arc a₂ → a₁, needing |α| > 0. Final: (0, ε).
//!
//! Oracles: [`goldberg`] (Goldberg et al. 2014, Sec. 4: the right stack and
//! Algorithm 1, projective gold trees, strategy none), [`cubic`] (Sec. 4: the engine with the Table 4 grammar, any gold
//! tree, with the strategy masks), [`quadratic`] and [`linear`] (Sec. 5 and
//! 6: projective gold trees, over the critical nodes of [`critical`]), and
//! [`incremental`] (Sec. 7: the linear algorithm kept from step to step).

pub mod critical;
pub mod cubic;
pub mod goldberg;
pub mod incremental;
pub mod linear;
pub mod quadratic;

use super::system::{Configuration, Step, System, TransitionSystem};

/// The arc-standard system (Nederhof 2019, Table 1).
#[derive(Clone, Copy, Debug, Default)]
pub struct ArcStandard;

impl TransitionSystem for ArcStandard {
    fn system(&self) -> System {
        System::ArcStandard
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::ReduceLeft, Step::ReduceRight]
    }
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        match step {
            Step::Shift => c.next <= c.n,
            Step::ReduceLeft => c.stack.len() >= 2,
            Step::ReduceRight => c.stack.len() >= 3,
            _ => false,
        }
    }
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        match step {
            Step::Shift => None,
            Step::ReduceLeft => Some((c.below_top(1), c.below_top(0))),
            Step::ReduceRight => Some((c.below_top(0), c.below_top(1))),
            _ => unreachable!("not an arc-standard step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        match step {
            Step::Shift => c.push_next(),
            // The dependent leaves the stack: s₀, or s₁ (s₀ takes its place).
            Step::ReduceLeft => {
                c.stack.pop();
            }
            Step::ReduceRight => {
                let s0 = c.stack.pop().expect("applicable");
                *c.stack.last_mut().expect("applicable") = s0;
            }
            _ => unreachable!("not an arc-standard step: {step}"),
        }
    }
}
