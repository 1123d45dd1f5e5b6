//! Shared preprocessing of the Sec. 5 and Sec. 6 algorithms (Nederhof 2019):
//! the configuration after a step, the strategy's forbidden pairs (w = −∞),
//! the critical nodes of the remaining input, their components, and the
//! tables p, p≥, c, R, P, P≥, nchildren, M (and κ, λ for Sec. 6).
//!
//! Everything here is O(k + m) per call and allocation-free once the
//! buffers of [`Prepared`] are warm.
//!
//! # Conventions
//!
//! * Stack indices 0 … k (a₀ … a_k) of the configuration *after* the step.
//! * Critical nodes are numbered 1 … m' (b₁ … b_m' in the paper's Sec. 5,
//!   where m is reused for their number); index 0 stands for ⊥.
//! * Gold arcs are only those between nodes of the configuration (stack or
//!   remaining input): arcs to nodes already reduced can no longer be built.
//! * A remaining-input node b is *critical* if its gold parent is not in the
//!   remaining input, or if it is a gold ancestor, through remaining-input
//!   nodes only, of a stack node. (The paper says "a descendant not in B";
//!   descendants already reduced make no difference to what can be built, and
//!   this choice keeps the critical nodes of a component connected.)

use crate::oracle::{Configuration, Step, Strategy};
use crate::tree::DepTree;

/// ⊥ for critical-node indices.
pub const BOT: usize = 0;

/// Which left/right children the strategy forbids after a step (Sec. 4):
/// the pairs with w(i, j) = −∞.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forbidden {
    /// Stack nodes with index `< no_left_below` get no new left children
    /// (strict lbr).
    pub no_left_below: usize,
    /// This stack index gets no new left children (lbr after a shift: the
    /// old top).
    pub no_left_at: Option<usize>,
    /// The top of the stack gets no new right children (rbl after
    /// reduce_right).
    pub no_right_top: bool,
}

impl Forbidden {
    /// The pairs forbidden in the configuration reached by `step`, whose top
    /// has index `k` (Sec. 4; checked against the brute force).
    pub fn after(step: Step, strategy: Strategy, k: usize) -> Self {
        let mut f = Forbidden::default();
        match (strategy, step) {
            (Strategy::None, _) => {}
            (Strategy::Lbr, Step::Shift) => f.no_left_at = Some(k - 1),
            (Strategy::Lbr, _) => {}
            (Strategy::StrictLbr, Step::Shift) => f.no_left_below = k,
            (Strategy::StrictLbr, Step::ReduceLeft) => f.no_left_below = k + 1,
            (Strategy::StrictLbr, Step::ReduceRight) => f.no_left_below = k,
            (Strategy::Rbl, Step::ReduceRight) => f.no_right_top = true,
            (Strategy::Rbl, _) => {}
            (_, step) => unreachable!("not an arc-standard step: {step}"),
        }
        f
    }
}

/// The preprocessed configuration (after a step), reusable across calls.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// Stack a₀ … a_k (sentence positions).
    pub a: Vec<usize>,
    /// Critical nodes, `b[0]` unused, b₁ … b_m' (sentence positions).
    pub b: Vec<usize>,
    /// First remaining input position (n + 1 if none).
    pub next: usize,
    /// Sentence length.
    pub n: usize,
    pub forbidden: Forbidden,
    /// M = |T_g ∩ (B × B)|.
    pub m_internal: u32,
    /// p(i): critical parent of a_i, or ⊥.
    pub p: Vec<usize>,
    /// p≥(i).
    pub p_ge: Vec<usize>,
    /// c(i): leftmost critical child of a_i, or ⊥.
    pub c: Vec<usize>,
    /// nchildren(i): critical children b_j of a_i with w(i, ·) ≠ −∞.
    pub nchildren: Vec<u32>,
    /// R(j): the root (rightmost critical node) of b_j's component; R(⊥) = ⊥.
    pub r: Vec<usize>,
    /// Stack index of the gold parent of a_i within the stack, or `usize::MAX`.
    pub stack_head: Vec<usize>,
    /// The smallest stack index ℓ < i with a gold arc between a_ℓ and a_i,
    /// or `usize::MAX` (Sec. 6: λ(i, j) = `left_nb[j] < i`, κ(i) =
    /// `left_nb[i]` or i − 1).
    pub left_nb: Vec<usize>,
    /// Per component root r: the smallest stack index with a gold arc to a
    /// critical node of the component, or `usize::MAX` (Sec. 6: λ'(i, j) =
    /// `comp_left[R(j)] < i`).
    pub comp_left: Vec<usize>,
    /// Scratch: critical index of each sentence position in B (0 = not critical).
    crit_of: Vec<usize>,
    /// Scratch: stack index + 1 of each sentence position (0 = not on the stack).
    stack_of: Vec<usize>,
    /// Scratch marks.
    mark: Vec<bool>,
    /// Scratch path for computing R.
    path: Vec<usize>,
    /// The gold tree whose projectivity was last checked, and the answer.
    checked_heads: Vec<usize>,
    checked_projective: Option<bool>,
    /// Scratch arcs for the projectivity check.
    arcs: Vec<(usize, usize)>,
    /// Elements touched by the last preparation (the work counter of
    /// `tests/oracle_session.rs`): stack, scanned input, cleared scratch cells.
    pub work: usize,
}

impl Prepared {
    /// Prepares the configuration reached from `config` by `step` (which must
    /// be applicable). Returns the gold arc built by the step (0 or 1).
    pub fn prepare(&mut self, config: &Configuration, gold: &DepTree, strategy: Strategy, step: Step) -> u32 {
        let gained = self.take_step(config, gold, strategy, step);
        self.analyse(gold);
        gained
    }

    /// The stack, first input position and forbidden pairs after `step`;
    /// returns the gold arc the step built. O(k).
    fn take_step(&mut self, config: &Configuration, gold: &DepTree, strategy: Strategy, step: Step) -> u32 {
        let n = config.sentence_len();
        self.n = n;
        self.a.clear();
        self.a.extend_from_slice(config.stack());
        self.next = *config.buffer().start();
        let mut gained = 0;
        match step {
            Step::Shift => {
                self.a.push(self.next);
                self.next += 1;
            }
            Step::ReduceLeft => {
                let a2 = self.a.pop().expect("applicable");
                gained = gold.has_arc(*self.a.last().expect("applicable"), a2) as u32;
            }
            Step::ReduceRight => {
                let a2 = self.a.pop().expect("applicable");
                let a1 = self.a.pop().expect("applicable");
                gained = gold.has_arc(a2, a1) as u32;
                self.a.push(a2);
            }
            _ => unreachable!("not an arc-standard step: {step}"),
        }
        let k = self.a.len() - 1;
        self.forbidden = Forbidden::after(step, strategy, k);
        gained
    }

    /// Whether `gold` is projective (no two arcs cross, arcs from the root 0
    /// included). O(n log n) when the tree differs from the last one checked,
    /// O(n) otherwise; allocation-free once warm.
    pub fn is_projective(&mut self, gold: &DepTree) -> bool {
        if let Some(known) = self.checked_projective.filter(|_| self.checked_heads.as_slice() == gold.heads()) {
            return known;
        }
        self.checked_heads.clear();
        self.checked_heads.extend_from_slice(gold.heads());
        self.arcs.clear();
        self.arcs.extend(gold.arcs().map(|(h, d)| (h.min(d), h.max(d))));
        // By left end, then outermost first; a crossing arc leaves a nested one.
        self.arcs.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        self.path.clear();
        let mut ok = true;
        for &(l, r) in &self.arcs {
            while self.path.last().is_some_and(|&top| top <= l) {
                self.path.pop();
            }
            if self.path.last().is_some_and(|&top| r > top) {
                ok = false;
                break;
            }
            self.path.push(r);
        }
        self.checked_projective = Some(ok);
        ok
    }

    /// Top index k.
    pub fn k(&self) -> usize {
        self.a.len() - 1
    }
    /// Number of critical nodes m'.
    pub fn m(&self) -> usize {
        self.b.len() - 1
    }

    /// w(i, j) for stack indices: the weight of making a_j a child of a_i;
    /// `None` for −∞.
    #[inline]
    pub fn w_stack(&self, i: usize, j: usize, gold: &DepTree) -> Option<u32> {
        if j == 0 {
            return None; // the root is never a child
        }
        if j < i && (i < self.forbidden.no_left_below || self.forbidden.no_left_at == Some(i)) {
            return None;
        }
        if i < j && self.forbidden.no_right_top && i == self.k() {
            return None;
        }
        Some(gold.has_arc(self.a[i], self.a[j]) as u32)
    }

    fn analyse(&mut self, gold: &DepTree) {
        let n = self.n;
        let next = self.next;
        let in_b = |v: usize| v >= next && v <= n;
        self.crit_of.clear();
        self.crit_of.resize(n + 2, 0);
        self.stack_of.clear();
        self.stack_of.resize(n + 2, 0);
        self.mark.clear();
        self.mark.resize(n + 2, false);
        for (i, &v) in self.a.iter().enumerate() {
            self.stack_of[v] = i + 1;
        }
        // Mark remaining-input ancestors (through B) of stack nodes.
        for &v in &self.a[1..] {
            let mut h = gold.head(v);
            while in_b(h) && !self.mark[h] {
                self.mark[h] = true;
                h = gold.head(h);
            }
        }
        self.b.clear();
        self.b.push(usize::MAX);
        let mut m_internal = 0;
        for v in next..=n {
            let h = gold.head(v);
            if in_b(h) {
                m_internal += 1;
            }
            if !in_b(h) || self.mark[v] {
                self.crit_of[v] = self.b.len();
                self.b.push(v);
            }
        }
        self.m_internal = m_internal;
        self.work = self.a.len() + (n + 2);
        self.tables(gold);
    }

    /// The tables after the critical nodes `b`, `crit_of` and `stack_of` are
    /// set: R, p, c, nchildren, stack heads, κ/λ tables, p≥. O(k + m').
    fn tables(&mut self, gold: &DepTree) {
        let n = self.n;
        let next = self.next;
        let k = self.k();
        let in_b = |v: usize| v >= next && v <= n;
        let m = self.b.len() - 1;
        // R: component roots. Parents of critical nodes in B are critical.
        self.r.clear();
        self.r.resize(m + 1, BOT);
        // Walk up to a node whose root is known, then fill the path: O(m) overall.
        for j in 1..=m {
            let mut v = self.b[j];
            self.path.clear();
            let root = loop {
                let jv = self.crit_of[v];
                if self.r[jv] != BOT {
                    break self.r[jv];
                }
                self.path.push(jv);
                let h = gold.head(v);
                if !in_b(h) {
                    break jv;
                }
                v = h;
            };
            for &x in &self.path {
                self.r[x] = root;
            }
        }
        // p, c, nchildren, stack heads.
        self.p.clear();
        self.c.clear();
        self.nchildren.clear();
        self.stack_head.clear();
        for &v in &self.a {
            let h = if v == 0 { usize::MAX } else { gold.head(v) };
            self.p.push(if h != usize::MAX && in_b(h) { self.crit_of[h] } else { BOT });
            self.stack_head.push(if h != usize::MAX && h < self.stack_of.len() && self.stack_of[h] > 0 {
                self.stack_of[h] - 1
            } else {
                usize::MAX
            });
            self.c.push(BOT);
            self.nchildren.push(0);
        }
        for j in 1..=m {
            let h = gold.head(self.b[j]);
            if self.stack_of[h] > 0 {
                let i = self.stack_of[h] - 1;
                if self.c[i] == BOT {
                    self.c[i] = j;
                }
                if !(self.forbidden.no_right_top && i == k) {
                    self.nchildren[i] += 1;
                }
            }
        }
        // Sec. 6 tables.
        self.left_nb.clear();
        self.left_nb.resize(k + 1, usize::MAX);
        self.comp_left.clear();
        self.comp_left.resize(m + 1, usize::MAX);
        for i in 0..=k {
            let h = self.stack_head[i];
            if h != usize::MAX {
                let (lo, hi) = if h < i { (h, i) } else { (i, h) };
                self.left_nb[hi] = self.left_nb[hi].min(lo);
            }
            if self.p[i] != BOT {
                let r = self.r[self.p[i]];
                self.comp_left[r] = self.comp_left[r].min(i);
            }
        }
        for j in 1..=m {
            let h = gold.head(self.b[j]);
            if self.stack_of[h] > 0 {
                let r = self.r[j];
                self.comp_left[r] = self.comp_left[r].min(self.stack_of[h] - 1);
            }
        }
        self.p_ge.clear();
        self.p_ge.resize(k + 1, BOT);
        self.p_ge[k] = self.p[k];
        for i in (0..k).rev() {
            self.p_ge[i] = if self.p[i] != BOT { self.p[i] } else { self.p_ge[i + 1] };
        }
    }

    /// P(i) = R(p(i)).
    #[inline]
    pub fn big_p(&self, i: usize) -> usize {
        self.r[self.p[i]]
    }
    /// P≥(i) = R(p≥(i)).
    #[inline]
    pub fn big_p_ge(&self, i: usize) -> usize {
        self.r[self.p_ge[i]]
    }
    /// p'(i, j): p(i) if P(i) = R(j), else ⊥.
    #[inline]
    pub fn p_prime(&self, i: usize, j: usize) -> usize {
        if self.p[i] != BOT && self.big_p(i) == self.r[j] {
            self.p[i]
        } else {
            BOT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocation-free check agrees with [`DepTree::is_projective`] on
    /// every tree of up to 6 words, also when reused across trees.
    #[test]
    fn projectivity_check_agrees_with_the_tree() {
        let mut prep = Prepared::default();
        for n in 0..=6 {
            let mut heads = vec![0usize; n];
            'all: loop {
                if let Ok(t) = DepTree::from_heads(&heads) {
                    assert_eq!(prep.is_projective(&t), t.is_projective(), "{t:?}");
                    assert_eq!(prep.is_projective(&t), t.is_projective(), "{t:?} (cached)");
                }
                let mut i = 0;
                loop {
                    if i == n {
                        break 'all;
                    }
                    heads[i] += 1;
                    if heads[i] <= n {
                        break;
                    }
                    heads[i] = 0;
                    i += 1;
                }
            }
        }
    }
}
