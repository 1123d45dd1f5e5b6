//! The brute-force reference: search over every computation from a
//! configuration that respects the strategy (Sec. 2 definitions, applied
//! literally). Exponential in k + m; meant for tests with n ≤ 10.
//!
//! Memoised on (stack, remaining input, which stack nodes already obtained
//! new left / right children): the future score depends on nothing else.

use super::{Configuration, OracleError, Step, StepScores, Strategy};
use crate::tree::DepTree;
use hashbrown::HashMap;

/// Scores every step of `config` by exhaustive search.
pub fn step_scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    config.check_gold(gold)?;
    let top = *config.stack().last().expect("non-empty stack");
    let n = config.sentence_len();
    // Nodes that the non-strict strategies constrain: a_k and the remaining input.
    let constrained: Vec<bool> = (0..=n).map(|v| v == top || config.buffer().contains(&v)).collect();
    let mut search = Search { gold, strategy, constrained, n, memo: HashMap::new() };
    let start = State {
        stack: config.stack().iter().map(|&v| Node { v, left: false, right: false }).collect(),
        next: *config.buffer().start(),
    };
    let mut scores = StepScores::default();
    for step in Step::ALL {
        if config.is_applicable(step) {
            scores.set(step, search.after(&start, step));
        }
    }
    Ok(scores)
}

/// The best score of any computation from `config` to a final configuration
/// (the maximum over its steps; 0 for a final configuration).
pub fn best_score(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<u32, OracleError> {
    if config.is_final() {
        config.check_gold(gold)?;
        return Ok(0);
    }
    Ok(step_scores(config, gold, strategy)?.best().unwrap_or(0))
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Node {
    v: usize,
    /// Whether the node obtained a left / right child since the configuration.
    left: bool,
    right: bool,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    stack: Vec<Node>,
    next: usize,
}

struct Search<'a> {
    gold: &'a DepTree,
    strategy: Strategy,
    constrained: Vec<bool>,
    n: usize,
    memo: HashMap<State, Option<u32>>,
}

impl Search<'_> {
    /// The best score of computations from `s` that start with `step`;
    /// `None` if the step is not applicable or breaks the strategy, or no
    /// computation respecting the strategy completes.
    fn after(&mut self, s: &State, step: Step) -> Option<u32> {
        let k = s.stack.len();
        let mut t = s.clone();
        let gained = match step {
            Step::Shift => {
                if s.next > self.n {
                    return None;
                }
                t.stack.push(Node { v: s.next, left: false, right: false });
                t.next += 1;
                0
            }
            Step::ReduceLeft => {
                if k < 2 {
                    return None;
                }
                let (a1, a2) = (s.stack[k - 2], s.stack[k - 1]);
                // a2 becomes a right child of a1.
                if self.strategy == Strategy::Rbl && self.constrained[a1.v] && a1.left {
                    return None;
                }
                t.stack.pop();
                t.stack[k - 2].right = true;
                self.gold.has_arc(a1.v, a2.v) as u32
            }
            Step::ReduceRight => {
                if k < 3 {
                    return None;
                }
                let (a1, a2) = (s.stack[k - 2], s.stack[k - 1]);
                // a1 becomes a left child of a2.
                let lbr = matches!(self.strategy, Strategy::Lbr | Strategy::StrictLbr);
                if lbr && self.constrained[a2.v] && a2.right {
                    return None;
                }
                if self.strategy == Strategy::StrictLbr && !self.constrained[a2.v] {
                    return None;
                }
                t.stack.pop();
                t.stack[k - 2] = Node { left: true, ..a2 };
                self.gold.has_arc(a2.v, a1.v) as u32
            }
        };
        self.best(t).map(|rest| rest + gained)
    }

    fn best(&mut self, s: State) -> Option<u32> {
        if s.stack.len() == 1 && s.next > self.n {
            return Some(0);
        }
        if let Some(&v) = self.memo.get(&s) {
            return v;
        }
        let v = Step::ALL.iter().filter_map(|&step| self.after(&s, step)).max();
        self.memo.insert(s, v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_configuration_of_a_projective_tree_reaches_every_arc() {
        let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
        let c = Configuration::initial(3);
        let s = step_scores(&c, &gold, Strategy::Lbr).unwrap();
        assert_eq!(s, StepScores { shift: Some(3), reduce_left: None, reduce_right: None });
    }

    #[test]
    fn a_wrong_reduction_loses_arcs() {
        // Gold: 1 <- 2 -> 3, 2 <- 0. Stack [0, 1, 2]: reduce_right builds 2 -> 1.
        let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
        let c = Configuration::new(&[0, 1, 2], &[3], 3).unwrap();
        let s = step_scores(&c, &gold, Strategy::Lbr).unwrap();
        assert_eq!(s.reduce_right, Some(3));
        // 1 -> 2 is wrong, and 2 is then gone: neither 2 -> 3 nor 0 -> 2 can be built.
        assert_eq!(s.reduce_left, Some(0));
        assert_eq!(s.optimal(), vec![Step::ReduceRight]);
    }
}
