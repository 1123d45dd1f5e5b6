//! The O(n²) algorithm of Sec. 5 (Nederhof 2019), for projective gold trees.
//!
//! For each applicable step, the configuration it reaches is prepared
//! ([`Prepared`]: critical nodes b₁ … b_m' of the
//! remaining input, components, p, p≥, c, R, P≥, nchildren, M, and the pairs
//! the strategy forbids), and σ_max of that configuration is computed by the
//! recursion of Table 5; the score of the step is σ_max plus the gold arc the
//! step built. Scores count only arcs built from the configuration on.
//!
//! # The recursion as implemented (Table 5, reconstructed)
//!
//! With −1 ≤ i < j ≤ k (stack a₀ … a_i a_j), 1 ≤ j' ≤ m' (stack a₀ … a_i b_j'),
//! states q ∈ {N, C, F}, and Δ the indicator:
//!
//! ```text
//! score(i, j, q) = 0                                             if i < 0
//!   = max( nchildren(i) − Δ(c(i) = P≥(j) ∧ q ≠ N) + w(i, j) + score(i−1, i, τ(i, j, q)),
//!          w(j, i) + score(i−1, j, q),
//!          if p(j) = ⊥ ∨ q = C then −∞ else Δ(q = N) + score'(i, p(j)) )
//! score'(i, j') = 0                                              if i < 0
//!   = max( if i = 0 then −∞
//!          else if p'(i, j') = ⊥ then score'(i−1, j') else 1 + score'(i−1, p'(i, j')),
//!          nchildren(i) + score(i−1, i, τ'(i, j')) )
//! τ(i, j, q) = N if q = N ∨ P≥(i) ≠ P≥(j); else F if p≥(i) ≠ p≥(j); else q
//! τ'(i, j')  = N if P≥(i) ≠ R(j');        else F if p≥(i) ≠ j';     else C
//! nchildren(i) = |{ j' : (a_i, b_j') ∈ T_g, w(i, b_j') ≠ −∞ }|
//! σ_max = M + score(k−1, k, N) + nchildren(k)      (score(−1, 0, N) = 0 when k = 0)
//! ```
//!
//! What was reconstructed, and how (all checked against
//! [`exhaustive`](crate::oracle::exhaustive) on every reachable configuration of
//! every projective gold tree with n ≤ 6 (n = 7 in an ignored test) and all
//! four strategies, and on random computations up to n = 9; see
//! `tests/oracle_fast.rs`):
//!
//! * **nchildren** is garbled in the extracted text ("|{j | w(i, j+k) = 1}|");
//!   read as the number of critical gold children of a_i that the strategy
//!   still allows (w indexes stack and critical nodes as one sequence, so
//!   j + k is b_j). Under rbl after reduce_right the top gets none.
//! * **The base case i < 0.** Read literally, w(j, 0) = δ_g(a_j, 0) = 0
//!   lets a₀ become a left child of a_j, and score'(0, j') reduces a₀ into
//!   b_j'; both are impossible moves, and they reach score(−1, j, q) = 0 with
//!   j > 0 (a stack a_j whose remaining critical nodes are then ignored),
//!   the case the brief flagged. Here w(·, 0) = −∞ and the first branch of
//!   score' is dropped for i = 0, so the base case is reached only as
//!   score(−1, 0, ·): the stack is a₀ alone, a₀'s critical children were just
//!   counted by nchildren(0), and every other gold arc between the stack and
//!   the input involves a stack node that is gone, so 0 is exact. (The
//!   literal reading turns out harmless: its fake branches are worth 0 plus
//!   what was gained so far, never more than the branch reducing a_j into a₀,
//!   worth nchildren(0) − Δ ≥ 0 more; the brute-force tests pass with either.)
//! * **Forbidden pairs** (w = −∞), in the configuration reached by the step
//!   (Sec. 4, and [`Forbidden::after`](super::critical::Forbidden::after)):
//!   lbr after shift — the old top gets no left children; strict lbr — every
//!   stack node below the new top gets no left children, and after
//!   reduce_left the new top neither; rbl after reduce_right — the top gets no
//!   right children; none — nothing.
//! * **Critical nodes**: a remaining-input node whose gold parent is not in
//!   the remaining input, or that is an ancestor of a stack node through
//!   remaining-input nodes. Gold arcs to nodes already reduced are ignored.
//!   R(j) is the root of b_j's component (its rightmost critical node).
//!
//! The states F and C are only distinguished by the third branch of score;
//! the brute-force tests (exhaustive up to n = 6, random walks to n = 9) pass also when F is replaced by the
//! inherited state in τ or by C in τ' (those branches then only add
//! dominated candidates), so these tests cannot pin down that detail.
//!
//! # Complexity
//!
//! O(k + m) preparation per step and O(k² + k·m') values of score and score'
//! (at most 3(k+1)² + (k+1)(m'+1)), each O(1): O((k + m)²) time. The memo
//! tables are reused across calls and invalidated in O(1) by a stamp.

use super::critical::{Prepared, BOT};
use crate::memory::TooMuchMemory;
use crate::oracle::{Algorithm, Configuration, OracleError, StepScores, Strategy, System};
use crate::tree::DepTree;

/// −∞ of the max-plus semiring (any value ≤ this is −∞).
const NEG: i32 = i32::MIN / 4;

/// The recursion checks the room left on the thread's stack every this many
/// stack positions; [`RED_ZONE`] bytes cover the frames in between (two per
/// position at most, about 200 bytes each), and the stack grows by
/// [`STACK_GROWTH`] bytes at a time.
const DEPTH_CHECK: isize = 64;
const RED_ZONE: usize = 256 << 10;
const STACK_GROWTH: usize = 16 << 20;

/// States of Sec. 5.
const N: usize = 0;
const C: usize = 1;
const F: usize = 2;

/// A memo table whose entries are invalidated in O(1) by bumping a stamp,
/// so that a call touching few entries costs no more than that. Beyond
/// [`StampedMemo::DENSE_MAX`] entries a sparse table may be used instead
/// (the linear algorithm touches O(k + m) of its O(k²) entries), so that
/// memory stays proportional to use.
#[derive(Clone, Debug, Default)]
pub(crate) struct StampedMemo {
    cells: Vec<(u32, i32)>,
    stamp: u32,
    sparse: Option<hashbrown::HashMap<usize, i32>>,
}

impl StampedMemo {
    /// The largest dense table used when a sparse one is allowed (8 MiB).
    const DENSE_MAX: usize = 1 << 20;

    /// Invalidates every entry and makes room for `len` entries: a dense
    /// table, or a sparse one when `sparse_ok` and `len` is large. A dense
    /// table beyond the memory limit ([`crate::memory`]) is refused before
    /// allocating.
    pub(crate) fn reset(&mut self, len: Option<usize>, sparse_ok: bool) -> Result<(), TooMuchMemory> {
        if sparse_ok && len.is_none_or(|l| l > Self::DENSE_MAX) {
            let map = self.sparse.get_or_insert_with(Default::default);
            map.clear();
            return Ok(());
        }
        self.sparse = None;
        crate::memory::check(len, std::mem::size_of::<(u32, i32)>(), || {
            format!("the quadratic oracle's table of {} entries", len.map_or("too many".into(), |l| l.to_string()))
        })?;
        let len = len.expect("checked");
        if self.cells.len() < len {
            self.cells.resize(len, (0, 0));
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.cells.iter_mut().for_each(|c| c.0 = 0);
            self.stamp = 1;
        }
        Ok(())
    }
    #[inline]
    pub(crate) fn get(&self, idx: usize) -> Option<i32> {
        if let Some(map) = &self.sparse {
            return map.get(&idx).copied();
        }
        let (s, v) = self.cells[idx];
        (s == self.stamp).then_some(v)
    }
    #[inline]
    pub(crate) fn set(&mut self, idx: usize, v: i32) {
        if let Some(map) = &mut self.sparse {
            map.insert(idx, v);
            return;
        }
        self.cells[idx] = (self.stamp, v);
    }
}

/// The recursion of Table 5 (Sec. 5), with the pruning of Sec. 6 when
/// `PRUNE` is true, and its reusable state: the preprocessed configuration
/// and the memo tables. Allocation-free once warm (the projectivity check of
/// a new gold tree sorts into a reused buffer). Use it as
/// [`QuadraticOracle`] (O((k + m)²) per call) or
/// [`LinearOracle`](super::linear::LinearOracle) (O(k + m) per call).
#[derive(Clone, Debug, Default)]
pub struct TableOracle<const PRUNE: bool> {
    pub(crate) prep: Prepared,
    /// score(i, j, q) at ((i + 1) · (k + 1) + j) · 3 + q.
    memo: StampedMemo,
    /// score'(i, j) at (i + 1) · (m + 1) + j.
    memo2: StampedMemo,
    /// Number of values score(i, j, q) and score'(i, j) computed since the
    /// last [`TableOracle::scores`] started.
    pub(crate) computed: usize,
    /// Preparation work ([`Prepared::work`]) summed over the steps scored by
    /// the last call.
    pub(crate) prep_work: usize,
}

impl<const PRUNE: bool> TableOracle<PRUNE> {
    /// The algorithm this is: linear when pruning, else quadratic.
    const ALGORITHM: Algorithm = if PRUNE { Algorithm::Linear } else { Algorithm::Quadratic };

    /// A fresh oracle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores every applicable step of `config` (Sec. 5, and Sec. 6 when
    /// pruning); a non-projective gold tree is an error.
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
    ) -> Result<StepScores, OracleError> {
        config.check_gold(gold)?;
        if config.system() != System::ArcStandard {
            return Err(OracleError::WrongSystem { expected: System::ArcStandard, found: config.system() });
        }
        if !self.prep.is_projective(gold) {
            return Err(OracleError::NonProjectiveGold(Self::ALGORITHM));
        }
        self.computed = 0;
        self.prep_work = 0;
        let mut out = StepScores::default();
        for step in System::ArcStandard.steps().iter().copied() {
            if config.is_applicable(step) {
                let gained = self.prep.prepare(config, gold, strategy, step);
                self.prep_work += self.prep.work;
                let s = self.sigma_max(gold)?;
                out.set(step, (s > NEG).then(|| s as u32 + gained));
            }
        }
        Ok(out)
    }

    /// σ_max = M ⊗ score(k − 1, k, N) ⊗ nchildren(k) of the prepared configuration.
    fn sigma_max(&mut self, gold: &DepTree) -> Result<i32, TooMuchMemory> {
        let k = self.prep.k();
        let m = self.prep.m();
        // Indices are computed with plain arithmetic below: they fit when the
        // table sizes do (checked here).
        let len = (k + 1).checked_mul(k + 1).and_then(|x| x.checked_mul(3));
        let len2 = (k + 1).checked_mul(m + 1);
        self.memo.reset(len, PRUNE)?;
        self.memo2.reset(len2, PRUNE)?;
        let top = if k == 0 { 0 } else { self.score(k as isize - 1, k, N, gold) };
        if top <= NEG {
            return Ok(NEG);
        }
        Ok(self.prep.m_internal as i32 + top + self.prep.nchildren[k] as i32)
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

    /// κ(i) (Sec. 6).
    #[inline]
    fn kappa(&self, i: usize) -> isize {
        let l = self.prep.left_nb[i];
        if l == usize::MAX {
            i as isize - 1
        } else {
            l as isize
        }
    }

    /// score(i, j, q). The recursion descends one stack position per call,
    /// so a stack of 10⁶ nodes would overflow the thread's stack: every
    /// [`DEPTH_CHECK`] positions it makes sure enough stack is left, growing
    /// it on the heap if not.
    fn score(&mut self, i: isize, j: usize, q: usize, gold: &DepTree) -> i32 {
        if i > 0 && i % DEPTH_CHECK == 0 {
            return stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.score_body(i, j, q, gold));
        }
        self.score_body(i, j, q, gold)
    }

    fn score_body(&mut self, i: isize, j: usize, q: usize, gold: &DepTree) -> i32 {
        if i < 0 {
            return 0;
        }
        let k = self.prep.k();
        let idx = (((i + 1) as usize) * (k + 1) + j) * 3 + q;
        if let Some(v) = self.memo.get(idx) {
            return v;
        }
        self.computed += 1;
        let iu = i as usize;
        let mut best = NEG;
        // a_j becomes a right child of a_i (after a_i took its critical children).
        if let Some(w) = self.prep.w_stack(iu, j, gold) {
            let delta = (self.prep.c[iu] != BOT && self.prep.c[iu] == self.prep.big_p_ge(j) && q != N) as i32;
            let t = self.tau(iu, j, q);
            let rest = self.score(i - 1, iu, t, gold);
            best = best.max(add(self.prep.nchildren[iu] as i32 - delta + w as i32, rest));
        }
        // a_i becomes a left child of a_j.
        match self.prep.w_stack(j, iu, gold) {
            Some(1) => best = best.max(add(1, self.score(i - 1, j, q, gold))),
            Some(_) if !PRUNE => best = best.max(self.score(i - 1, j, q, gold)),
            Some(_) if self.prep.left_nb[j] < iu => {
                let kappa = self.kappa(iu);
                best = best.max(self.score(kappa, j, q, gold));
            }
            _ => {}
        }
        // a_j is reduced into its parent b_p(j), which becomes the top above a_i.
        let pj = self.prep.p[j];
        if pj != BOT && q != C {
            best = best.max(add((q == N) as i32, self.score2(i, pj, gold)));
        }
        self.memo.set(idx, best);
        best
    }

    /// score'(i, j); deep recursion as in [`Self::score`].
    fn score2(&mut self, i: isize, j: usize, gold: &DepTree) -> i32 {
        if i > 0 && i % DEPTH_CHECK == 0 {
            return stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.score2_body(i, j, gold));
        }
        self.score2_body(i, j, gold)
    }

    fn score2_body(&mut self, i: isize, j: usize, gold: &DepTree) -> i32 {
        if i < 0 {
            return 0;
        }
        let m = self.prep.m();
        let idx = ((i + 1) as usize) * (m + 1) + j;
        if let Some(v) = self.memo2.get(idx) {
            return v;
        }
        self.computed += 1;
        let iu = i as usize;
        let mut best = NEG;
        // a_i is reduced into b_j (non-gold) or into its parent, an ancestor of b_j.
        if iu > 0 {
            let pp = self.prep.p_prime(iu, j);
            let v = if pp != BOT {
                add(1, self.score2(i - 1, pp, gold))
            } else if !PRUNE {
                self.score2(i - 1, j, gold)
            } else if self.prep.comp_left[self.prep.r[j]] < iu {
                let kappa = self.kappa(iu);
                self.score2(kappa, j, gold)
            } else {
                NEG
            };
            best = best.max(v);
        }
        // b_j becomes a right child of a_i (after a_i took its critical children).
        if !(self.prep.forbidden.no_right_top && iu == self.prep.k()) {
            let t = self.tau2(iu, j);
            let rest = self.score(i - 1, iu, t, gold);
            best = best.max(add(self.prep.nchildren[iu] as i32, rest));
        }
        self.memo2.set(idx, best);
        best
    }
}

/// The quadratic algorithm (Sec. 5) with its reusable state.
pub type QuadraticOracle = TableOracle<false>;

impl<const PRUNE: bool> TableOracle<PRUNE> {
    /// How many values score(i, j, q) and score'(i, j) the last call computed.
    pub fn computed(&self) -> usize {
        self.computed
    }

    /// The preparation work ([`Prepared::work`]) of the last call, summed
    /// over the steps scored: Θ(k + m) per step.
    pub fn prep_work(&self) -> usize {
        self.prep_work
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
