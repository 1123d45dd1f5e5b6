//! LR-spine: the parser of Sartorio, Satta and Nivre (2013) as defined by
//! Goldberg, Sartorio and Satta (2014), Sec. 6.1, and its tabular oracle
//! ([`table`], Sec. 6.2–6.3).
//!
//! A stack element is the tree built so far under a stack word; its *left
//! spine* ls is the chain root, its leftmost left dependent, that one's
//! leftmost left dependent, …, and its *right spine* rs the same with
//! rightmost right dependents (K = 1 is the root). Steps:
//!
//! * `shift` (σ, bβ) ⊢ (σb, β);
//! * `left_arc_K` builds ls(s₀)[K] → root(s₁) and removes s₁ (K = 1 …
//!   |ls(s₀)|; s₁ ≠ 0);
//! * `right_arc_K` builds rs(s₁)[K] → root(s₀) and pops s₀ (K = 1 … |rs(s₁)|).
//!
//! K = 1 is arc-standard's step (`left_arc_1` = `reduce_right`,
//! `right_arc_1` = `reduce_left`). Initial: ([0], 1 … n); final: ([0], ε).
//!
//! The paper's spines take the leftmost / rightmost *child* at each step,
//! of either side; a spine node reached through a child on the other side
//! (a node whose only children are right children, on a left spine) would
//! give `left_arc_K` an arc that passes over its own head, a non-projective
//! tree (`docs/systems.md` has the example). Keeping left dependents on
//! the left spine and right ones on the right spine makes every computation
//! build a projective tree, and every projective tree is built by
//! arc-standard's steps alone.

pub mod table;

use super::system::{Configuration, Step, System, TransitionSystem};

/// The LR-spine system (Goldberg et al. 2014, Sec. 6.1).
#[derive(Clone, Copy, Debug, Default)]
pub struct LrSpine;

impl LrSpine {
    /// |ls(s₀)| for `left_arc_K` (0 if it does not apply: a stack of fewer
    /// than three) and |rs(s₁)| for `right_arc_K` (0 for a stack of one).
    /// O(spine lengths).
    pub fn spine_lengths(c: &Configuration) -> (usize, usize) {
        let k = c.stack.len();
        let left = if k >= 3 { c.left_spine(c.stack[k - 1]).count() } else { 0 };
        let right = if k >= 2 { c.right_spine(c.stack[k - 2]).count() } else { 0 };
        (left, right)
    }
}

impl TransitionSystem for LrSpine {
    fn system(&self) -> System {
        System::LrSpine
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::LeftArcAt(1), Step::RightArcAt(1)]
    }
    /// O(K).
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        let k = c.stack.len();
        match step {
            Step::Shift => c.next <= c.n,
            Step::LeftArcAt(j) => k >= 3 && j >= 1 && c.left_spine(c.stack[k - 1]).nth(j as usize - 1).is_some(),
            Step::RightArcAt(j) => k >= 2 && j >= 1 && c.right_spine(c.stack[k - 2]).nth(j as usize - 1).is_some(),
            _ => false,
        }
    }
    /// O(K).
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        let s = |i: usize| c.below_top(i);
        match step {
            Step::Shift => None,
            Step::LeftArcAt(j) => Some((c.left_spine(s(0)).nth(j as usize - 1).expect("applicable"), s(1))),
            Step::RightArcAt(j) => Some((c.right_spine(s(1)).nth(j as usize - 1).expect("applicable"), s(0))),
            _ => unreachable!("not an LR-spine step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        match step {
            Step::Shift => c.push_next(),
            // The dependent leaves the stack: s₁ (s₀ takes its place), or s₀.
            Step::LeftArcAt(_) => {
                let s0 = c.stack.pop().expect("applicable");
                *c.stack.last_mut().expect("applicable") = s0;
            }
            Step::RightArcAt(_) => {
                c.stack.pop();
            }
            _ => unreachable!("not an LR-spine step: {step}"),
        }
    }
    fn has_spine_steps(&self) -> bool {
        true
    }
    fn spine_steps(&self, c: &Configuration) -> (usize, usize) {
        Self::spine_lengths(c)
    }
}
