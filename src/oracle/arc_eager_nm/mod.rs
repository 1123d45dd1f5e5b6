//! Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013; Honnibal &
//! Johnson 2015; the system of spaCy's parser) and its oracles.
//!
//! Steps (s₀ the top of the stack, s₁ the word below it, b the first
//! remaining word):
//!
//! * `shift` (σ, bβ) ⊢ (σb, β), unless b was moved back by an unshift;
//! * `right_arc` (σ s₀, bβ) ⊢ (σ s₀ b, β) with the arc s₀ → b;
//! * `left_arc` (σ s₀, bβ) ⊢ (σ, bβ) with the arc b → s₀, s₀ ≠ 0; if s₀
//!   already has a head (given by `right_arc`, always s₁), b *replaces* it
//!   (2013);
//! * `reduce` (σ s₁ s₀, β) ⊢ (σ s₁, β), s₀ ≠ 0: if s₀ has a head, a plain
//!   pop; if it has none and the input is not empty, the arc s₁ → s₀
//!   (2013); if it has none and the input is empty, *unshift* (2015): s₀
//!   goes back onto the input, where it cannot be shifted again (it leaves
//!   by `right_arc`, after taking left dependents by `left_arc`).
//!
//! The root 0 never becomes a dependent. A computation ends when the stack
//! is [0] and the input empty; every word then has a head.
//!
//! Termination: Φ = 4·|input| + 2·[an unshifted word] + |stack| +
//! 2·|stack words without a head| (input without the unshifted word)
//! decreases by at least one with every step, so a computation from c has
//! at most Φ(c) ≤ 7n + 3 steps (4n + 1 from the initial configuration);
//! in particular a word is unshifted at most once.
//!
//! Oracles: [`tabular`], exact for any gold tree, O(n³) per configuration,
//! O(k·n²) for k stack words along a computation (it keeps the table's
//! rows over the input between calls).

pub mod tabular;

use super::system::{Configuration, Step, System, TransitionSystem};
use crate::tree::DepTree;

/// The non-monotonic arc-eager system.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArcEagerNm;

/// The potential Φ of the module documentation: every step lowers it by at
/// least one. O(k).
pub fn potential(c: &Configuration) -> usize {
    let input = if c.unshifted().is_some() { 0 } else { c.buffer().count() };
    let headless = c.stack()[1..].iter().filter(|&&a| c.head(a).is_none()).count();
    4 * input + 2 * c.unshifted().is_some() as usize + c.stack().len() + 2 * headless
}

impl TransitionSystem for ArcEagerNm {
    fn system(&self) -> System {
        System::ArcEagerNm
    }
    fn steps(&self) -> &'static [Step] {
        &[Step::Shift, Step::LeftArc, Step::RightArc, Step::Reduce]
    }
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool {
        let input = c.next_input().is_some();
        match step {
            Step::Shift => input && c.unshifted == DepTree::NO_HEAD,
            Step::RightArc => input,
            Step::LeftArc => input && c.top() != 0,
            Step::Reduce => c.top() != 0,
            _ => false,
        }
    }
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        let s0 = c.top();
        match step {
            Step::Shift => None,
            Step::LeftArc => Some((c.next_input().expect("applicable"), s0)),
            Step::RightArc => Some((s0, c.next_input().expect("applicable"))),
            Step::Reduce => (c.heads[s0] == DepTree::NO_HEAD && c.next_input().is_some()).then(|| (c.below_top(1), s0)),
            _ => unreachable!("not an arc-eager-nm step: {step}"),
        }
    }
    fn apply(&self, c: &mut Configuration, step: Step) {
        let s0 = c.top();
        match step {
            Step::Shift => c.push_next(),
            Step::RightArc => match c.unshifted() {
                Some(w) => {
                    c.stack.push(w);
                    c.unshifted = DepTree::NO_HEAD;
                }
                None => c.push_next(),
            },
            Step::LeftArc => {
                let old = c.heads[s0];
                if old != DepTree::NO_HEAD {
                    // The head that `right_arc` gave is replaced: forget the
                    // arc. It was old's last: old had no arc while s0 was
                    // above it, and its dependents right of s0 would cross
                    // over s0; so old's outer dependents go back to what
                    // they were before s0 was attached. O(1).
                    c.heads[s0] = DepTree::NO_HEAD;
                    debug_assert_eq!(c.outer[old][1], s0);
                    c.outer[old] = c.before[s0];
                }
                c.stack.pop();
            }
            Step::Reduce => {
                c.stack.pop();
                if c.heads[s0] == DepTree::NO_HEAD && c.next_input().is_none() {
                    c.unshifted = s0;
                }
            }
            _ => unreachable!("not an arc-eager-nm step: {step}"),
        }
    }
    fn is_final(&self, c: &Configuration) -> bool {
        c.stack.len() == 1 && c.next_input().is_none()
    }
    fn front_has_children(&self) -> bool {
        true
    }
    fn stack_words_have_heads(&self) -> bool {
        true
    }
    fn settled_arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        let s0 = c.top();
        match step {
            Step::Shift | Step::RightArc => None,
            Step::LeftArc => self.arc(c, step),
            Step::Reduce => match c.head(s0) {
                Some(h) => Some((h, s0)),
                None => self.arc(c, step),
            },
            _ => unreachable!("not an arc-eager-nm step: {step}"),
        }
    }
    fn is_monotonic(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The outer dependents of every word, from the arcs. O(n).
    fn outer_from_arcs(c: &Configuration) -> Vec<[usize; 2]> {
        let mut want = vec![[DepTree::NO_HEAD; 2]; c.n + 1];
        for (h, d) in c.arcs() {
            let o = &mut want[h];
            o[0] = if o[0] == DepTree::NO_HEAD { d } else { o[0].min(d) };
            o[1] = if o[1] == DepTree::NO_HEAD { d } else { o[1].max(d) };
        }
        want
    }

    /// The outer dependents kept step by step (a head-replacing `left_arc`
    /// restores its head's in O(1), from `before`) equal those recomputed
    /// from the arcs, along random computations with many replaced heads;
    /// half way, each computation goes on from its configuration rebuilt by
    /// the checked constructors (whose `before` comes from the arcs alone).
    /// Both root positions.
    #[test]
    fn the_outer_dependents_equal_the_arcs_along_random_computations() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut replaced = 0;
        for _ in 0..3000 {
            let n = rng.gen_range(1..=30);
            let root = if rng.gen_bool(0.5) { crate::oracle::Root::First } else { crate::oracle::Root::Last };
            let mut c = Configuration::initial_at(System::ArcEagerNm, n, root);
            let mut steps = 0;
            while !c.is_final() {
                if steps == n && root == crate::oracle::Root::First {
                    let arcs: Vec<(usize, usize)> = c.arcs().collect();
                    c = match c.unshifted() {
                        Some(u) => Configuration::with_unshifted(System::ArcEagerNm, c.stack(), u, &arcs, n),
                        None => {
                            let buffer: Vec<usize> = c.buffer().collect();
                            Configuration::with_arcs(System::ArcEagerNm, c.stack(), &buffer, &arcs, n)
                        }
                    }
                    .expect("a reachable configuration");
                }
                let applicable: Vec<Step> = c.applicable_steps().collect();
                let step = applicable[rng.gen_range(0..applicable.len())];
                if step == Step::LeftArc && c.heads[c.top()] != DepTree::NO_HEAD {
                    replaced += 1;
                }
                c.apply(step).expect("applicable");
                steps += 1;
                assert_eq!(c.outer, outer_from_arcs(&c), "after {step} at step {steps}");
            }
        }
        assert!(replaced > 1000, "only {replaced} replaced heads");
    }
}
