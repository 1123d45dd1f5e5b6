//! The O(n²) algorithm of Sec. 5 (Nederhof 2019), for projective gold trees.
//! (Module docs: see the end of the file's development.)

use super::critical::{Prepared, BOT};
use super::{Algorithm, Configuration, OracleError, Step, StepScores, Strategy};
use crate::tree::DepTree;

/// −∞ of the max-plus semiring (any value ≤ this is −∞).
const NEG: i32 = i32::MIN / 4;
const UNSET: i32 = i32::MIN;

/// States of Sec. 5.
const N: usize = 0;
const C: usize = 1;
const F: usize = 2;

/// Reusable state of the quadratic algorithm: the preprocessed
/// configuration and the memo tables. Allocation-free once warm.
#[derive(Clone, Debug, Default)]
pub struct QuadraticOracle {
    prep: Prepared,
    /// score(i, j, q) at ((i + 1) * (k + 1) + j) * 3 + q.
    memo: Vec<i32>,
    /// score'(i, j) at (i + 1) * (m + 1) + j.
    memo2: Vec<i32>,
    /// Number of memo entries computed by the last call (for tests).
    pub computed: usize,
}

impl QuadraticOracle {
    /// A fresh oracle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores every applicable step of `config` (Sec. 5). O((k + m)²).
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
    ) -> Result<StepScores, OracleError> {
        config.check_gold(gold)?;
        if !gold.is_projective() {
            return Err(OracleError::NonProjectiveGold(Algorithm::Quadratic));
        }
        self.computed = 0;
        let mut out = StepScores::default();
        for step in Step::ALL {
            if config.is_applicable(step) {
                let gained = self.prep.prepare(config, gold, strategy, step);
                let s = self.sigma_max(gold);
                out.set(step, (s > NEG).then(|| s as u32 + gained));
            }
        }
        Ok(out)
    }

    /// σ_max of the prepared configuration.
    fn sigma_max(&mut self, gold: &DepTree) -> i32 {
        let k = self.prep.k();
        let m = self.prep.m();
        self.memo.clear();
        self.memo.resize((k + 1) * (k + 1) * 3, UNSET);
        self.memo2.clear();
        self.memo2.resize((k + 1) * (m + 1), UNSET);
        let top = if k == 0 { 0 } else { self.score(k as isize - 1, k, N, gold) };
        if top <= NEG {
            return NEG;
        }
        self.prep.m_internal as i32 + top + self.prep.nchildren[k] as i32
    }

    fn tau(&self, i: usize, j: usize, q: usize) -> usize {
        let p = &self.prep;
        if q == N || p.big_p_ge(i) != p.big_p_ge(j) {
            N
        } else if p.p_ge[i] != p.p_ge[j] {
            F
        } else {
            q
        }
    }

    fn tau2(&self, i: usize, j: usize) -> usize {
        let p = &self.prep;
        if p.big_p_ge(i) != p.r[j] {
            N
        } else if p.p_ge[i] != j {
            F
        } else {
            C
        }
    }

    fn score(&mut self, i: isize, j: usize, q: usize, gold: &DepTree) -> i32 {
        if i < 0 {
            return 0;
        }
        let k = self.prep.k();
        let idx = (((i + 1) as usize) * (k + 1) + j) * 3 + q;
        if self.memo[idx] != UNSET {
            return self.memo[idx];
        }
        self.computed += 1;
        let iu = i as usize;
        let mut best = NEG;
        // a_j becomes a right child of a_i.
        if let Some(w) = self.prep.w_stack(iu, j, gold) {
            let delta = (self.prep.c[iu] != BOT && self.prep.c[iu] == self.prep.big_p_ge(j) && q != N) as i32;
            let t = self.tau(iu, j, q);
            let rest = self.score(i - 1, iu, t, gold);
            if rest > NEG {
                best = best.max(self.prep.nchildren[iu] as i32 - delta + w as i32 + rest);
            }
        }
        // a_i becomes a left child of a_j.
        if let Some(w) = self.prep.w_stack(j, iu, gold) {
            let rest = self.score(i - 1, j, q, gold);
            if rest > NEG {
                best = best.max(w as i32 + rest);
            }
        }
        // a_j is reduced into its parent b_p(j), after a_i … in between.
        let pj = self.prep.p[j];
        if pj != BOT && q != C {
            let rest = self.score2(i, pj, gold);
            if rest > NEG {
                best = best.max((q == N) as i32 + rest);
            }
        }
        self.memo[idx] = best;
        best
    }

    fn score2(&mut self, i: isize, j: usize, gold: &DepTree) -> i32 {
        if i < 0 {
            return 0;
        }
        let m = self.prep.m();
        let idx = ((i + 1) as usize) * (m + 1) + j;
        if self.memo2[idx] != UNSET {
            return self.memo2[idx];
        }
        self.computed += 1;
        let iu = i as usize;
        let mut best = NEG;
        // a_i is reduced into b_j (non-gold) or into its parent, an ancestor of b_j.
        if iu > 0 {
            let pp = self.prep.p_prime(iu, j);
            let v = if pp == BOT { self.score2(i - 1, j, gold) } else { add(1, self.score2(i - 1, pp, gold)) };
            best = best.max(v);
        }
        // b_j becomes a right child of a_i.
        if !(self.prep.forbidden.no_right_top && iu == self.prep.k()) {
            let t = self.tau2(iu, j);
            let rest = self.score(i - 1, iu, t, gold);
            best = best.max(add(self.prep.nchildren[iu] as i32, rest));
        }
        self.memo2[idx] = best;
        best
    }
}

fn add(a: i32, b: i32) -> i32 {
    if b <= NEG {
        NEG
    } else {
        a + b
    }
}

/// Scores every applicable step of `config` by the quadratic algorithm
/// (Sec. 5); projective gold trees only. O((k + m)²) time.
pub fn scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    QuadraticOracle::new().scores(config, gold, strategy)
}
