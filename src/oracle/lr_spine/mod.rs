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
use crate::tree::DepTree;

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

/// The static oracle's step at a configuration of the canonical computation
/// of a projective `gold` tree: the step [`canonical_step`](super::canonical_step)
/// takes among the dynamic oracle's optimal ones ([`table`]), found without
/// the table. O(|ls(s₀)| + |rs(s₁)|).
///
/// On the canonical computation every arc built is gold and every remaining
/// gold arc can still be built (each step taken is optimal from the initial
/// configuration, from which the whole projective tree can be built). There
/// an arc step is optimal exactly when the arc it builds is gold:
///
/// * a wrong arc gives its dependent a wrong head, a gold arc lost;
/// * `left_arc_K` with ls(s₀)[K] the gold head h of s₁ loses nothing: s₁
///   stays on the new left spine (ls(s₀)[..K] ⊕ ls(s₁)), so it and its left
///   spine can still take left dependents from further down the stack; a word
///   of rs(s₁) (or s₁) with a gold right dependent still to come would make
///   that arc cover h, which is inside s₀'s span, and projectivity would put
///   h under the word, below s₁, whose head h is; and a word x of ls(s₀)
///   deeper than h, which leaves the spine, has no left dependent to come:
///   the words of s₁'s span are attached, and an arc from x to a word left
///   of it would cover s₁, putting s₁ under x, which lies under h;
/// * `right_arc_K` with rs(s₁)[K] the gold head h of s₀, symmetrically: s₀
///   stays on the new right spine (rs(s₁)[..K] ⊕ rs(s₀)); a word of ls(s₀)
///   (or s₀) with a left dependent to come, or a word of rs(s₁) deeper than
///   h with a right dependent to come in the input, would need an arc over
///   s₁ or s₀ that projectivity forbids, as above.
///
/// At most one `left_arc_K` and one `right_arc_K` build a gold arc (a word
/// has one head); `canonical_step` takes the one of smaller K, the left one
/// on a tie, and `shift` when neither builds one. Checked against the
/// table's optimal steps and `canonical_step` at every configuration of the
/// canonical computation of every projective tree of up to 7 words and of
/// random projective trees of up to 120 (`tests/lr_spine.rs`). At other
/// configurations the answer means nothing: use the table there.
pub fn canonical_static_step(c: &Configuration, gold: &DepTree) -> Step {
    let k = c.stack.len();
    let left = if k >= 3 {
        let h = gold.head(c.stack[k - 2]);
        c.left_spine(c.stack[k - 1]).position(|x| x == h)
    } else {
        None
    };
    let right = if k >= 2 {
        let h = gold.head(c.stack[k - 1]);
        c.right_spine(c.stack[k - 2]).position(|x| x == h)
    } else {
        None
    };
    match (left, right) {
        (Some(l), Some(r)) if r < l => Step::RightArcAt(r as u32 + 1),
        (Some(l), _) => Step::LeftArcAt(l as u32 + 1),
        (None, Some(r)) => Step::RightArcAt(r as u32 + 1),
        (None, None) => Step::Shift,
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
