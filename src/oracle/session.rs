//! Following a computation step by step (Nederhof 2019, Sec. 7: "between one
//! configuration and the next, the stack differs at most in the two
//! rightmost elements and the remaining input differs at most in that it
//! loses its leftmost element").
//!
//! An [`OracleSession`] holds a gold tree, the current configuration and an
//! [`Oracle`]; it is told each step taken ([`OracleSession::apply`]) and
//! answers [`OracleSession::scores`].
//!
//! # Two modes
//!
//! * **Incremental** — the linear algorithm (Sec. 6) on a projective gold
//!   tree ([`Algorithm::Linear`], or [`Algorithm::Auto`] resolving to it).
//!   The session keeps its own engine and maintains, across steps, the set
//!   of *exposed* remaining-input nodes (below), so that preparing a
//!   configuration never scans the remaining input.
//! * **One-shot** — every other case (cubic, quadratic, a non-projective
//!   gold tree): each [`scores`](OracleSession::scores) after a step is one
//!   call of [`Oracle::scores`], as before, with its errors (e.g.
//!   [`OracleError::NonProjectiveGold`] for `linear` on a non-projective
//!   tree). Never a different answer.
//!
//! # What is reused, and why it is sound
//!
//! The one-shot preparation ([`Prepared::prepare`](super::critical::Prepared::prepare))
//! scans the whole remaining input B = b₁ … b_m three times per
//! configuration (once per successor) to find the critical nodes and
//! M = |T_g ∩ (B × B)|: Θ(m) even when the stack is shallow and only a few
//! nodes of B are critical, which is the common case (Sec. 8.2 notes that
//! this preparation dominates the running time). The session avoids it.
//!
//! Call a node v ∈ B *exposed* if its gold parent is not in B. Then
//!
//! 1. the critical nodes are the exposed nodes together with the
//!    B-ancestors (through B) of stack nodes (the definition in
//!    [`critical`](super::critical)); the latter are found by walking up from
//!    the stack, in time proportional to k plus their number;
//! 2. M = |B| − |exposed|, since each node of B has exactly one gold parent
//!    (the root 0 is never in B);
//! 3. the exposed set E depends on B only, and B changes only by a shift,
//!    which removes b₁: E' = E \ {b₁} ∪ {right gold children of b₁} (a node
//!    stays exposed while it is in B, since B only shrinks; a node becomes
//!    exposed exactly when its parent leaves B, and the only node leaving B
//!    is b₁, whose children still in B are its right children). Reductions
//!    leave B, hence E, unchanged.
//! 4. For a projective gold tree, every right child c of b₁ precedes every
//!    other node v of E': v's parent h lies before b₁ (h ∉ B, h < v), so
//!    the arc (h, v) spans b₁, and projectivity forbids b₁ < v < c. Hence
//!    the increasing list E' is the right children of b₁ (increasing)
//!    followed by E without b₁: no sorting.
//!
//! So the session keeps E as an increasing list, updated on each shift in
//! O(|E|) (amortised O(1) insertions: each node enters E at most once), and
//! [`Prepared::prepare_sparse`](super::critical::Prepared::prepare_sparse)
//! builds, from E and the stack, exactly the critical nodes, M and the
//! tables (R, p, p≥, c, nchildren, κ, λ …) that the dense preparation
//! builds; the memoised recursion of Table 5 with the Sec. 6 pruning then
//! runs unchanged. The answers are therefore the one-shot ones; the tests in
//! `tests/oracle_session.rs` check this on every walk of every projective
//! tree with n ≤ 6 (all four strategies, also against the brute force) and
//! on random walks up to n = 60.
//!
//! # What is not reused (yet)
//!
//! The memo tables of score(i, j, q) and score'(i, j) are rebuilt for each
//! configuration. Reusing them soundly needs more than Sec. 7's remark:
//! beside the strategy constraints (which change only at the top, and in
//! the old top after an lbr shift), a value score(i, j, q) reads p≥(i) and
//! P≥(i), which depend on the stack *above* i (p≥ looks up to the first
//! stack node with a critical parent), nchildren(i), which changes for a
//! deep stack node when its child b₁ is shifted, and the components R,
//! which split when b₁ leaves B. An entry is thus not a function of the
//! stack prefix a₀ … a_i alone, and a keying that captures these
//! dependencies was left for later. Hence:
//!
//! # Complexity
//!
//! Per configuration O(k + m' log m') for the k + 1 stack nodes and m'
//! critical nodes (preparation plus the O(k + m') values of the Sec. 6
//! recursion) instead of O(k + m); per shift O(|E|) ≤ O(m') to update E.
//! That is O(1) per step whenever the stack and the set of critical nodes
//! stay bounded (gold computations of most sentences; the
//! `work_per_step` test), and O(k) when the stack grows (e.g. a
//! right-branching chain shifted to the end).

use super::linear::LinearOracle;
use super::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy};
use crate::tree::DepTree;

/// The optimal steps along one computation for one gold tree.
pub struct OracleSession<'o, 'g> {
    oracle: &'o mut Oracle<'g>,
    gold: DepTree,
    config: Configuration,
    strategy: Strategy,
    algorithm: Algorithm,
    cached: Option<StepScores>,
    /// The incremental state, for the linear algorithm on a projective tree.
    incremental: Option<Incremental>,
    /// Work done by [`OracleSession::scores`] and [`OracleSession::apply`]
    /// since the session started (see [`OracleSession::work`]).
    work: usize,
}

/// State of the incremental mode (see the module doc).
struct Incremental {
    engine: LinearOracle,
    /// The exposed remaining-input nodes E, increasing.
    exposed: Vec<usize>,
    /// E after a shift (scratch, rebuilt per call).
    exposed_shifted: Vec<usize>,
    /// Right gold children, increasing, of node v at
    /// `right_children[right_start[v]..right_start[v + 1]]`.
    right_start: Vec<usize>,
    right_children: Vec<usize>,
}

impl Incremental {
    /// The state for `config` (which fits `gold`). O(n).
    fn new(gold: &DepTree, config: &Configuration) -> Self {
        let n = gold.len();
        let mut right_start = vec![0usize; n + 2];
        for d in 1..=n {
            let h = gold.head(d);
            if h < d {
                right_start[h + 1] += 1;
            }
        }
        for v in 1..n + 2 {
            right_start[v] += right_start[v - 1];
        }
        let mut fill = right_start.clone();
        let mut right_children = vec![0usize; right_start[n + 1]];
        for d in 1..=n {
            let h = gold.head(d);
            if h < d {
                right_children[fill[h]] = d;
                fill[h] += 1;
            }
        }
        let b = config.buffer();
        let exposed = b.clone().filter(|&v| !b.contains(&gold.head(v))).collect();
        Incremental { engine: LinearOracle::new(), exposed, exposed_shifted: Vec::new(), right_start, right_children }
    }

    fn right_children(&self, v: usize) -> &[usize] {
        &self.right_children[self.right_start[v]..self.right_start[v + 1]]
    }

    /// E after shifting `b1` (module doc, points 3 and 4). O(|E| + children).
    fn shifted(&self, b1: usize, out: &mut Vec<usize>) {
        out.clear();
        out.extend_from_slice(self.right_children(b1));
        out.extend(self.exposed.iter().copied().filter(|&v| v != b1));
    }
}

impl<'o, 'g> OracleSession<'o, 'g> {
    /// A session at the initial configuration for `gold`; `algorithm` is
    /// resolved once ([`Algorithm::Auto`] looks at projectivity here). O(n).
    pub fn new(oracle: &'o mut Oracle<'g>, gold: DepTree, strategy: Strategy, algorithm: Algorithm) -> Self {
        let config = Configuration::initial(gold.len());
        Self::at(oracle, gold, config, strategy, algorithm)
            .unwrap_or_else(|_| unreachable!("the initial configuration fits its gold tree"))
    }

    /// A session starting at `config`. O(n log n) (the projectivity check).
    pub fn at(
        oracle: &'o mut Oracle<'g>,
        gold: DepTree,
        config: Configuration,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<Self, OracleError> {
        config.check_gold(&gold)?;
        let algorithm = Oracle::resolve(algorithm, &gold);
        let incremental =
            (algorithm == Algorithm::Linear && gold.is_projective()).then(|| Incremental::new(&gold, &config));
        let work = if incremental.is_some() { gold.len() } else { 0 };
        Ok(OracleSession { oracle, gold, config, strategy, algorithm, cached: None, incremental, work })
    }

    /// The current configuration.
    pub fn configuration(&self) -> &Configuration {
        &self.config
    }

    /// The algorithm in use (after resolving `auto`).
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The oracle the session falls back to (e.g. to compare algorithms at
    /// the current configuration); using it leaves the session's state valid.
    pub fn oracle(&mut self) -> &mut Oracle<'g> {
        self.oracle
    }

    /// Whether the session runs incrementally (the linear algorithm on a
    /// projective gold tree; see the module doc).
    pub fn is_incremental(&self) -> bool {
        self.incremental.is_some()
    }

    /// The work done so far, in elementary units: in the incremental mode,
    /// the memo values computed, the preparation work
    /// ([`Prepared::work`](super::critical::Prepared::work)) and the updates
    /// of the exposed nodes, plus n for the start; in the one-shot mode, 0.
    pub fn work(&self) -> usize {
        self.work
    }

    /// Takes `step`, returning the arc it builds. O(1), plus O(|E|) for a
    /// shift in the incremental mode.
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        let b1 = self.config.next_input();
        let arc = self.config.apply(step)?;
        if let (Step::Shift, Some(b1), Some(inc)) = (step, b1, self.incremental.as_mut()) {
            let mut out = std::mem::take(&mut inc.exposed_shifted);
            inc.shifted(b1, &mut out);
            self.work += out.len() + 1;
            inc.exposed_shifted = std::mem::replace(&mut inc.exposed, out);
        }
        self.cached = None;
        Ok(arc)
    }

    /// The scores of the current configuration (equal to [`Oracle::scores`]
    /// with the session's algorithm): O(k + m' log m') the first time after
    /// a step in the incremental mode, one call of the algorithm otherwise;
    /// free when asked again.
    pub fn scores(&mut self) -> Result<StepScores, OracleError> {
        if let Some(s) = self.cached {
            return Ok(s);
        }
        let s = match self.incremental.as_mut() {
            Some(inc) => {
                let mut shifted = std::mem::take(&mut inc.exposed_shifted);
                if let Some(b1) = self.config.next_input() {
                    inc.shifted(b1, &mut shifted);
                }
                let s = inc.engine.scores_sparse(&self.config, &self.gold, self.strategy, &inc.exposed, &shifted);
                self.work += inc.engine.computed + inc.engine.prep_work + shifted.len();
                inc.exposed_shifted = shifted;
                s
            }
            None => self.oracle.scores(&self.config, &self.gold, self.strategy, self.algorithm)?,
        };
        self.cached = Some(s);
        Ok(s)
    }
}
