//! The brute-force reference: search over every computation from a
//! configuration that respects the strategy, for any [`TransitionSystem`](super::TransitionSystem)
//! (the definitions of Nederhof 2019, Sec. 2, applied literally).
//! Exponential in k + m; meant for tests with n ≤ 10.
//!
//! A strategy constrains the arcs built *after* the configuration, for the
//! nodes that are then the top of the stack or in the remaining input (the
//! "constrained" nodes): left-before-right (lbr) forbids a new left child of
//! a constrained node that already has a new right child; strict-lbr
//! moreover forbids new left children of every other node; right-before-left
//! (rbl) forbids a new right child of a constrained node that already has a
//! new left child. This is system-independent: for arc-hybrid and arc-eager
//! no computation ever breaks lbr or strict-lbr, so they equal none there
//! (`tests/systems.rs`).
//!
//! Memoised on (stack, remaining input, for each stack word and b₁ whether
//! it has a head and whether it obtained new left / right children, and for
//! LR-spine the spines of the stack elements, for non-monotonic arc-eager
//! whether b₁ is an unshifted word): the future score depends on nothing
//! else.
//!
//! A step gains a point when the arc it makes final
//! ([`TransitionSystem::settled_arc`](super::TransitionSystem::settled_arc))
//! is gold: for monotonic systems the arc it builds; for non-monotonic
//! arc-eager the head a word keeps when it leaves the stack for good, so
//! that the score counts the gold arcs of the *final* tree among the words
//! still on the stack or in the input, not arcs built and later replaced.
//! Its computations all end (see [`super::arc_eager_nm`]), so the search
//! does too.

use super::system::{Configuration, Step, System};
use super::{OracleError, StepScores, Strategy};
use crate::tree::DepTree;
use hashbrown::HashMap;

/// Scores every step of `config` by exhaustive search.
pub fn step_scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    Exhaustive::new(gold, strategy).step_scores(config)
}

/// The brute force for one gold tree and strategy, answering for many
/// configurations. Under [`Strategy::None`] the memo does not depend on the
/// starting configuration and is kept between calls, so that scoring every
/// configuration of a sentence explores each state once.
pub struct Exhaustive<'a> {
    search: Search<'a>,
}

impl<'a> Exhaustive<'a> {
    /// A search for `gold` under `strategy`.
    pub fn new(gold: &'a DepTree, strategy: Strategy) -> Self {
        Exhaustive { search: Search { gold, strategy, constrained: Vec::new(), memo: HashMap::new() } }
    }

    /// Scores every step of `config` (a configuration for the gold tree's length).
    pub fn step_scores(&mut self, config: &Configuration) -> Result<StepScores, OracleError> {
        let search = &mut self.search;
        config.check_gold(search.gold)?;
        let n = config.sentence_len();
        if search.strategy != Strategy::None {
            let top = *config.stack().last().expect("non-empty stack");
            search.constrained = (0..=n).map(|v| v == top || config.buffer().contains(&v)).collect();
            search.memo.clear();
        } else if search.constrained.len() != n + 1 {
            search.constrained = vec![false; n + 1];
        }
        let start = State { config: config.clone(), left: vec![false; n + 1], right: vec![false; n + 1] };
        let mut scores = StepScores::default();
        for step in config.applicable_steps() {
            scores.set(step, search.after(&start, step));
        }
        Ok(scores)
    }
}

/// The best score of any computation from `config` to a final configuration
/// (the maximum over its steps; 0 for a final configuration), `None` if no
/// computation respecting the strategy completes.
pub fn best_score(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<Option<u32>, OracleError> {
    if config.is_final() {
        config.check_gold(gold)?;
        return Ok(Some(0));
    }
    Ok(step_scores(config, gold, strategy)?.best())
}

#[derive(Clone)]
struct State {
    config: Configuration,
    /// Whether a node obtained a new left / right child since the start.
    left: Vec<bool>,
    right: Vec<bool>,
}

/// What the future of a [`State`] depends on.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    system: System,
    /// Stack words, then b₁ (if any), with their bits: head, new left, new right.
    live: Vec<(usize, u8)>,
    next: usize,
    /// Non-monotonic arc-eager: whether b₁ is an unshifted word.
    unshifted: bool,
    /// Systems with spine steps (LR-spine): the spines of the stack
    /// elements, each ended by `usize::MAX`.
    spines: Vec<usize>,
}

impl State {
    fn key(&self) -> Key {
        let c = &self.config;
        let bits = |v: usize| (c.head(v).is_some() as u8) | (self.left[v] as u8) << 1 | (self.right[v] as u8) << 2;
        let live = c.stack().iter().copied().chain(c.next_input()).map(|v| (v, bits(v))).collect();
        let mut spines = Vec::new();
        if c.system().definition().has_spine_steps() {
            for &a in c.stack() {
                spines.extend(c.left_spine(a).chain([usize::MAX]).chain(c.right_spine(a)).chain([usize::MAX]));
            }
        }
        let (next, unshifted) = (c.next_input().unwrap_or(c.sentence_len() + 1), c.unshifted().is_some());
        Key { system: c.system(), live, next, unshifted, spines }
    }
}

struct Search<'a> {
    gold: &'a DepTree,
    strategy: Strategy,
    constrained: Vec<bool>,
    memo: HashMap<Key, Option<u32>>,
}

impl Search<'_> {
    /// Whether the strategy allows `h` to take the new child `d` now.
    fn allows(&self, s: &State, h: usize, d: usize) -> bool {
        let constrained = self.constrained[h];
        if d < h {
            match self.strategy {
                Strategy::Lbr => !(constrained && s.right[h]),
                Strategy::StrictLbr => constrained && !s.right[h],
                Strategy::None | Strategy::Rbl => true,
            }
        } else {
            !(self.strategy == Strategy::Rbl && constrained && s.left[h])
        }
    }

    /// The best score of computations from `s` that start with `step` (an
    /// applicable step); `None` if the step breaks the strategy or no
    /// computation respecting the strategy completes.
    fn after(&mut self, s: &State, step: Step) -> Option<u32> {
        let mut t = s.clone();
        let settled = s.config.system().definition().settled_arc(&s.config, step);
        let arc = t.config.apply(step).expect("applicable");
        let gained = settled.map_or(0, |(h, d)| self.gold.has_arc(h, d) as u32);
        if let Some((h, d)) = arc {
            if !self.allows(s, h, d) {
                return None;
            }
            if self.strategy != Strategy::None {
                if d < h {
                    t.left[h] = true;
                } else {
                    t.right[h] = true;
                }
            }
        }
        self.best(t).map(|rest| rest + gained)
    }

    fn best(&mut self, s: State) -> Option<u32> {
        if s.config.is_final() {
            return Some(0);
        }
        let key = s.key();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let steps: Vec<Step> = s.config.applicable_steps().collect();
        let v = steps.into_iter().filter_map(|step| self.after(&s, step)).max();
        self.memo.insert(key, v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_configuration_of_a_projective_tree_reaches_every_arc() {
        let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
        for system in System::ALL {
            let c = Configuration::initial(system, 3);
            let s = step_scores(&c, &gold, Strategy::None).unwrap();
            assert_eq!(s.get(Step::Shift), Some(3), "{system}");
        }
    }

    #[test]
    fn a_wrong_reduction_loses_arcs() {
        // Gold: 1 <- 2 -> 3, 2 <- 0. Stack [0, 1, 2]: reduce_right builds 2 -> 1.
        let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
        let c = Configuration::new(System::ArcStandard, &[0, 1, 2], &[3], 3).unwrap();
        let s = step_scores(&c, &gold, Strategy::Lbr).unwrap();
        assert_eq!(s.get(Step::ReduceRight), Some(3));
        // 1 -> 2 is wrong, and 2 is then gone: neither 2 -> 3 nor 0 -> 2 can be built.
        assert_eq!(s.get(Step::ReduceLeft), Some(0));
        assert_eq!(s.optimal(), vec![Step::ReduceRight]);
    }

    #[test]
    fn arc_eager_leaves_words_without_a_head() {
        // Gold 0 -> 1 -> 2. Stack [0, 1] with 1 headless (shifted): 0 -> 1 is lost,
        // 1 -> 2 remains (right_arc).
        let gold = DepTree::from_heads(&[0, 1]).unwrap();
        let c = Configuration::with_arcs(System::ArcEager, &[0, 1], &[2], &[], 2).unwrap();
        let s = step_scores(&c, &gold, Strategy::None).unwrap();
        assert_eq!(s.get(Step::RightArc), Some(1));
        assert_eq!(s.get(Step::Shift), Some(0));
        assert_eq!(s.get(Step::LeftArc), Some(0));
        assert_eq!(s.get(Step::Reduce), None);
    }
}
