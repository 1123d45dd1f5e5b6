//! Goldberg, Sartorio and Satta (2014), *A Tabular Method for Dynamic
//! Oracles in Transition-Based Parsing*, Sec. 4: the first dynamic oracle
//! for arc-standard, for projective gold trees and strategy none.
//!
//! Two phases (Sec. 4.1):
//!
//! 1. **The right stack** (Sec. 4.2, [`GoldIndex::right_stack`]): the
//!    remaining input is cut into the largest gold subtrees that are
//!    bottom-up complete (no word but the root has a gold dependent on the
//!    stack); their roots, left to right, form σ_R. Scanning b₁ … b_m left
//!    to right, a word is a root if its gold head is not in the input, or a
//!    gold dependent of it is a stack word or an earlier root. Every other
//!    input word gets its gold head inside its fragment: one gold arc each.
//! 2. **Algorithm 1** (Sec. 4.3): a table T[i, j](h), i ≤ ℓ_L rows for the
//!    stack read from the top (σ_L[1] = s₀ … σ_L[ℓ_L] = 0), j ≤ ℓ_R columns
//!    for σ_R behind s₀ (σ_R[1] = s₀): the best tree with root h over
//!    σ_L[1 … i] and σ_R[1 … j] that contains s₀ (a "linear tree", Sec. 5.1),
//!    grown one neighbour at a time, on the left by the next stack word,
//!    on the right by the next right-stack root, each time with either
//!    word as the head.
//!
//! Here T holds gold arcs gained (max) rather than the loss (min), so that
//! the answer is the score of this crate (gold arcs still buildable) with
//! no need for the arcs built before; the score of a step τ is its own gold
//! arc plus the value at τ(c), T[ℓ_L, ℓ_R](0) plus one arc per input word
//! inside a fragment.
//!
//! **Correction.** The printed initialisation (line 1) sets
//! T[1, 1](σ_L[1]) to the loss of the tree of σ_L[1], and line 13 adds the
//! losses of all stack trees, σ_L[1]'s included: that loss is counted twice.
//! T[1, 1](σ_L[1]) must start at 0. Counterexample (`docs/systems.md`):
//! gold 2 → 1, 0 → 2; after shift, shift, reduce_left (the wrong arc 1 → 2)
//! the stack is [0, 1] with no input; the only completion adds 0 → 1, loss
//! 2, but the printed algorithm returns 1 + 1 + 1 = 3.
//!
//! # Complexity
//!
//! O(n) for the right stack, O(ℓ_L · ℓ_R · (ℓ_L + ℓ_R)) for the table
//! (Sec. 5.3), run once per applicable step (at most three). The table is
//! kept two rows at a time; every buffer lives in [`GoldbergOracle`] and is
//! reused: no allocation once warm.

use crate::oracle::{Algorithm, Configuration, OracleError, Step, StepScores, Strategy, System};
use crate::tree::DepTree;

/// The gold tree indexed for the right stack: heads, left dependents, and
/// whether it is projective (computed once per tree, kept while the same
/// tree is asked about; its buffers are reused for the next tree).
#[derive(Debug, Default)]
pub struct GoldIndex {
    heads: Vec<usize>,
    projective: bool,
    /// Gold left dependents of v at `left[left_start[v] .. left_start[v + 1]]`.
    left_start: Vec<usize>,
    left: Vec<usize>,
    /// Scratch for filling `left`.
    fill: Vec<usize>,
}

impl GoldIndex {
    /// Prepares for `gold` (free if it is the tree of the last call). O(n).
    pub fn prepare(&mut self, gold: &DepTree) {
        if self.heads.len() == gold.len() + 1 && self.heads[1..] == *gold.heads() {
            return;
        }
        let n = gold.len();
        self.heads.clear();
        self.heads.push(DepTree::NO_HEAD);
        self.heads.extend_from_slice(gold.heads());
        self.projective = gold.is_projective();
        self.left_start.clear();
        self.left_start.resize(n + 2, 0);
        for d in 1..=n {
            if self.heads[d] > d {
                self.left_start[self.heads[d] + 1] += 1;
            }
        }
        for v in 0..=n {
            self.left_start[v + 1] += self.left_start[v];
        }
        self.left.clear();
        self.left.resize(self.left_start[n + 1], 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.left_start);
        for d in 1..=n {
            let h = self.heads[d];
            if h > d {
                self.left[self.fill[h]] = d;
                self.fill[h] += 1;
            }
        }
    }

    /// Whether the prepared tree is projective.
    pub fn is_projective(&self) -> bool {
        self.projective
    }

    /// The gold head of `d` ([`DepTree::NO_HEAD`] for 0).
    pub fn head(&self, d: usize) -> usize {
        self.heads[d]
    }

    /// Sec. 4.2: the roots of the right stack for the input `next` … n and
    /// the stack words marked in `on_stack`, left to right, into `roots`;
    /// `is_root` is scratch (n + 1 entries, left all false). Returns how
    /// many input words are not roots (each gets its gold arc). O(n).
    pub fn right_stack(&self, on_stack: &[bool], next: usize, roots: &mut Vec<usize>, is_root: &mut [bool]) -> u32 {
        let n = self.heads.len() - 1;
        roots.clear();
        for i in next..=n {
            let dependents = &self.left[self.left_start[i]..self.left_start[i + 1]];
            let root = self.heads[i] < next || dependents.iter().any(|&c| on_stack[c] || (c >= next && is_root[c]));
            if root {
                is_root[i] = true;
                roots.push(i);
            }
        }
        for &r in roots.iter() {
            is_root[r] = false;
        }
        (n + 1 - next.min(n + 1) - roots.len()) as u32
    }
}

/// Goldberg et al.'s Algorithm 1 with its reusable buffers (create once,
/// call [`GoldbergOracle::scores`] for every configuration).
#[derive(Debug, Default)]
pub struct GoldbergOracle {
    gold: GoldIndex,
    /// σ_L from the top (σ_L[1] = s₀ at index 0) for the configuration scored.
    left: Vec<usize>,
    on_stack: Vec<bool>,
    is_root: Vec<bool>,
    right: Vec<usize>,
    /// Two rows of T: cell j of a row holds one value per candidate root
    /// (index u < ℓ_L: σ_L[u + 1]; u ≥ ℓ_L: σ_R[u − ℓ_L + 2]).
    row: Vec<i32>,
    next_row: Vec<i32>,
}

/// An unreachable entry of T.
const NONE: i32 = i32::MIN / 2;

impl GoldbergOracle {
    /// A new oracle (no buffers yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores every applicable step of `config` (arc-standard) for `gold`
    /// under [`Strategy::None`]: Sec. 4 for each successor. Projective gold
    /// trees only ([`OracleError::NonProjectiveGold`]); other strategies
    /// are refused. O(n + ℓ_L · ℓ_R · (ℓ_L + ℓ_R)) with ℓ_L the stack and ℓ_R
    /// the right stack; no allocation once warm.
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
    ) -> Result<StepScores, OracleError> {
        if config.system() != System::ArcStandard {
            return Err(OracleError::WrongSystem { expected: System::ArcStandard, found: config.system() });
        }
        if strategy != Strategy::None {
            return Err(OracleError::StrategyNotOffered { algorithm: Algorithm::Goldberg, strategy });
        }
        config.check_gold(gold)?;
        self.gold.prepare(gold);
        if !self.gold.is_projective() {
            return Err(OracleError::NonProjectiveGold(Algorithm::Goldberg));
        }
        let n = config.sentence_len();
        self.on_stack.clear();
        self.on_stack.resize(n + 1, false);
        self.is_root.clear();
        self.is_root.resize(n + 1, false);
        let stack = config.stack();
        for &a in stack {
            self.on_stack[a] = true;
        }
        let next = config.next_input().unwrap_or(n + 1);
        let k = stack.len();
        let mut scores = StepScores::default();
        if next <= n {
            // shift: b₁ becomes s₀.
            self.on_stack[next] = true;
            self.left.clear();
            self.left.push(next);
            self.left.extend(stack.iter().rev());
            scores.set(Step::Shift, Some(self.value(next + 1)));
            self.on_stack[next] = false;
        }
        if k >= 2 {
            // reduce_left: s₁ → s₀, pop s₀.
            let (s1, s0) = (stack[k - 2], stack[k - 1]);
            self.on_stack[s0] = false;
            self.left.clear();
            self.left.extend(stack[..k - 1].iter().rev());
            let v = self.value(next) + self.gold.head(s0).eq(&s1) as u32;
            scores.set(Step::ReduceLeft, Some(v));
            self.on_stack[s0] = true;
            if k >= 3 {
                // reduce_right: s₀ → s₁, remove s₁.
                self.on_stack[s1] = false;
                self.left.clear();
                self.left.push(s0);
                self.left.extend(stack[..k - 2].iter().rev());
                let v = self.value(next) + self.gold.head(s1).eq(&s0) as u32;
                scores.set(Step::ReduceRight, Some(v));
                self.on_stack[s1] = true;
            }
        }
        Ok(scores)
    }

    /// The most gold arcs that complete computations build from the
    /// configuration with stack `self.left` (top first, marked in
    /// `on_stack`) and input `next` … n: the right stack, then Algorithm 1.
    fn value(&mut self, next: usize) -> u32 {
        let inside = self.gold.right_stack(&self.on_stack, next, &mut self.right, &mut self.is_root);
        let (ll, lr) = (self.left.len(), self.right.len() + 1);
        let width = ll + lr - 1;
        let node = |left: &[usize], right: &[usize], u: usize| if u < ll { left[u] } else { right[u - ll] };
        let gold = &self.gold;
        // Row i (1-based) lives in `row`, cells j = 1 … ℓ_R of `width` values each.
        self.row.clear();
        self.row.resize(lr * width, NONE);
        self.row[0] = 0; // T[1, 1](σ_L[1]) = 0 (the printed text counts σ_L[1]'s loss here too).
        for i in 1..=ll {
            self.next_row.clear();
            if i < ll {
                self.next_row.resize(lr * width, NONE);
            }
            for j in 1..=lr {
                // Candidate roots of T[i, j]: σ_L[1 … i] (u < i) and σ_R[2 … j] (ℓ_L ≤ u < ℓ_L + j − 1).
                let cell = (j - 1) * width;
                let candidates = (0..i).chain(ll..ll + j - 1);
                for u in candidates {
                    let v = self.row[cell + u];
                    if v == NONE {
                        continue;
                    }
                    let h = node(&self.left, &self.right, u);
                    if i < ll {
                        // Expand to the left with b = σ_L[i + 1], the stack word below.
                        let b = self.left[i];
                        let out = &mut self.next_row[cell..cell + width];
                        if b != 0 {
                            let x = v + gold.head(b).eq(&h) as i32; // h → b (reduce_right)
                            out[u] = out[u].max(x);
                        }
                        let x = v + gold.head(h).eq(&b) as i32; // b → h (reduce_left)
                        out[i] = out[i].max(x);
                    }
                    if j < lr {
                        // Expand to the right with c = σ_R[j + 1], the next input root.
                        let c = self.right[j - 1];
                        let cu = ll + j - 1;
                        let out = &mut self.row[cell + width..cell + 2 * width];
                        let x = v + gold.head(c).eq(&h) as i32; // h → c (reduce_left)
                        out[u] = out[u].max(x);
                        if h != 0 {
                            let x = v + gold.head(h).eq(&c) as i32; // c → h (reduce_right)
                            out[cu] = out[cu].max(x);
                        }
                    }
                }
            }
            if i < ll {
                std::mem::swap(&mut self.row, &mut self.next_row);
            }
        }
        // T[ℓ_L, ℓ_R](0): 0 is σ_L[ℓ_L], index ℓ_L − 1.
        let best = self.row[(lr - 1) * width + ll - 1];
        debug_assert!(best >= 0, "every configuration completes");
        best.max(0) as u32 + inside
    }
}

/// Scores every applicable step of `config` by Goldberg et al.'s
/// Algorithm 1 (see the module doc); projective gold trees, strategy none.
pub fn scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    GoldbergOracle::new().scores(config, gold, strategy)
}
