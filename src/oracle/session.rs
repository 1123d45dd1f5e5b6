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
//!   The session keeps its own engine, an index of the gold tree
//!   ([`GoldIndex`]) and the number of *exposed* remaining-input nodes
//!   (below), so that preparing a configuration never looks at the
//!   remaining input.
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
//! configuration (once per successor) to find the critical nodes, their
//! components and M = |T_g ∩ (B × B)|: Θ(m) per step even when the stack is
//! shallow (Sec. 8.2 notes that this preparation dominates the running
//! time). The session replaces it by three facts that need nothing of B but
//! its first position.
//!
//! 1. **M from a counter.** Call v ∈ B *exposed* if its gold parent is not
//!    in B. Each node of B has exactly one gold parent (the root 0 is never
//!    in B), so M = |B| − |E|. B changes only by a shift, which removes b₁:
//!    b₁ leaves E if it was in it (its parent precedes it), and its right
//!    children, whose parent has just left B, join E; no other node changes
//!    (a node becomes exposed exactly when its parent leaves B). Reductions
//!    leave B, hence E, unchanged. So |E| is updated in O(1) per shift.
//! 2. **Only the critical nodes the recursion reads.** The recursion of
//!    Table 5 with the Sec. 6 pruning reads, of the critical nodes, only the
//!    critical parents p(i) of stack nodes (score' follows p' = p), their
//!    component roots R(p(i)) (through P, P≥ and λ'), and the leftmost
//!    critical child c(i) of each stack node, plus the number nchildren(i)
//!    of its critical children; and it compares critical nodes only for
//!    equality. The children of a stack node in B are exactly its right
//!    gold children at positions ≥ b₁ (all exposed, hence critical): the
//!    first of them and their number come from a binary search in its sorted
//!    child list. The root of p(i)'s component is its topmost ancestor
//!    reached through B, i.e. through positions ≥ b₁ (B is a suffix of the
//!    sentence): binary lifting over ancestors, with the smallest position
//!    on each jump, finds it in O(log n). λ' needs, per root r, the lowest
//!    stack node with a gold arc to r's component: a stack node whose
//!    critical parent lies in it, or r's own parent (the only arcs from the
//!    stack into B go to the critical parents of stack nodes and to the
//!    exposed children of stack nodes, which are roots).
//!
//! [`Prepared::prepare_lazy`](super::critical::Prepared::prepare_lazy)
//! builds the tables from these, and the memoised recursion then runs
//! unchanged on them. The answers are therefore the one-shot ones; the tests
//! in `tests/oracle_session.rs` check this on every walk of every projective
//! tree with n ≤ 6 (all four strategies, also against the brute force) and
//! on random walks up to n = 60.
//!
//! # What is not reused
//!
//! The stack side: the tables of the k + 1 stack nodes (p, c, nchildren,
//! p≥, κ, λ …) and the memo of score(i, j, q) and score'(i, j) are rebuilt
//! for each configuration. Reusing memo entries across steps soundly needs
//! more than Sec. 7's remark: beside the strategy constraints (which change
//! only at the top, and in the old top after an lbr shift), a value
//! score(i, j, q) reads p≥(i) and P≥(i), which depend on the stack *above*
//! i (p≥ looks up to the first stack node with a critical parent);
//! nchildren(i) and c(i), which change for a stack node deep down when its
//! child b₁ is shifted; and the Sec. 6 pruning, which makes some branches
//! −∞ (score' when λ' fails) where the quadratic recursion evaluates them,
//! so that an intermediate value of the linear recursion need not equal the
//! quadratic one. An entry is thus not a function of the stack prefix
//! a₀ … a_i alone.
//!
//! # Complexity
//!
//! O(n log n) to start (the index). Per configuration O(k log n) for the
//! k + 1 stack nodes: the three preparations, and the O(k) values of the
//! Sec. 6 recursion; per step O(1) to update |E|. Nothing depends on the
//! length of the remaining input or on the number of critical nodes, so a
//! step costs O(log n) whenever the stack stays shallow — on chains and
//! flat trees as on balanced ones, and on real sentences (see
//! `docs/oracle.md`: on en_ewt the time per configuration stays flat at
//! ≈ 1 µs from 31 to 200 stack and input nodes, where the one-shot oracle
//! grows from 1.06 to 1.65 µs). A deep stack still costs O(k) per step (a
//! right-branching chain shifted to the end: ≈ 2,000 work units per step at
//! n = 400, as one-shot); the `work_per_step` test measures both.

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
    /// Whether the oracle's incremental engine follows this session (the
    /// linear algorithm on a projective tree).
    incremental: bool,
}

impl<'o, 'g> OracleSession<'o, 'g> {
    /// A session at the initial configuration for `gold`; `algorithm` is
    /// resolved once ([`Algorithm::Auto`] looks at projectivity here). O(n).
    pub fn new(oracle: &'o mut Oracle<'g>, gold: DepTree, strategy: Strategy, algorithm: Algorithm) -> Self {
        let config = Configuration::initial(gold.len());
        Self::at(oracle, gold, config, strategy, algorithm)
            .unwrap_or_else(|_| unreachable!("the initial configuration fits its gold tree"))
    }

    /// A session starting at `config`. O(n log n) (the projectivity check
    /// and the [`GoldIndex`]).
    pub fn at(
        oracle: &'o mut Oracle<'g>,
        gold: DepTree,
        config: Configuration,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<Self, OracleError> {
        config.check_gold(&gold)?;
        let algorithm = Oracle::resolve(algorithm, &gold);
        let incremental = algorithm == Algorithm::Linear && gold.is_projective();
        if incremental {
            oracle.incremental.reset(&gold, &config, strategy);
        }
        Ok(OracleSession { oracle, gold, config, strategy, algorithm, cached: None, incremental })
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
        self.incremental
    }

    /// The work done so far, in elementary units: in the incremental mode,
    /// the memo values computed, the preparation work
    /// ([`Prepared::work`](super::critical::Prepared::work): stack nodes,
    /// critical nodes kept, lifting steps) and the counter updates, plus n
    /// for the start; in the one-shot mode, 0.
    pub fn work(&self) -> usize {
        if self.incremental {
            self.oracle.incremental.work
        } else {
            0
        }
    }

    /// Takes `step`, returning the arc it builds. O(1).
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        let arc = self.config.apply(step)?;
        if self.incremental {
            self.oracle.incremental.apply(step);
        }
        self.cached = None;
        Ok(arc)
    }

    /// The scores of the current configuration (equal to [`Oracle::scores`]
    /// with the session's algorithm): O(k log n) the first time after
    /// a step in the incremental mode, one call of the algorithm otherwise;
    /// free when asked again.
    pub fn scores(&mut self) -> Result<StepScores, OracleError> {
        if let Some(s) = self.cached {
            return Ok(s);
        }
        let s = if self.incremental {
            self.oracle.incremental.scores()
        } else {
            self.oracle.scores(&self.config, &self.gold, self.strategy, self.algorithm)?
        };
        self.cached = Some(s);
        Ok(s)
    }
}
