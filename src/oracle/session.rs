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
//! * **Incremental** — the linear algorithm on a projective gold tree
//!   ([`Algorithm::Linear`], or [`Algorithm::Auto`] resolving to it).
//!   Arc-hybrid and arc-eager: the closed form's counts
//!   ([`decomposable`](super::decomposable)) follow the session, O(1) per
//!   step and per scoring. Arc-standard (Sec. 6):
//!   the oracle's incremental engine follows the session: it keeps the
//!   stack's tables, counters for the remaining input and a memo of the
//!   Sec. 6 recursion from step to step, so that a step costs O(1) memo
//!   values and O(log n) time along gold computations, whatever the length
//!   of the sentence, the depth of the stack or the number of critical
//!   nodes. How, and why the answers are the one-shot ones: see
//!   [`incremental`](super::incremental).
//! * **One-shot** — every other case (cubic, quadratic, a non-projective
//!   gold tree): each [`scores`](OracleSession::scores) after a step is one
//!   call of [`Oracle::scores`], as before, with its errors (e.g.
//!   [`OracleError::NonProjectiveGold`] for `linear` on a non-projective
//!   tree). Never a different answer. The cubic oracles keep their chart
//!   over the remaining input from one call to the next (see
//!   [`cubic`](super::arc_standard::cubic), *Reuse between steps*), so a
//!   session along a computation refills only the spans that start on the
//!   stack.
//!
//! # Checked
//!
//! `tests/oracle_session.rs`: the session equals the one-shot oracle and the
//! brute force ([`exhaustive`](super::exhaustive)) on every walk of every
//! projective tree with n ≤ 6, all four strategies (over a million
//! configurations), and the one-shot oracle on random walks up to n = 60;
//! its work per step is constant from 200 to 400 words on balanced trees,
//! chains (both directions) and flat trees, and on walks that stray from
//! the gold path. `.ci/checks/oracle.sh` compares it with the cubic,
//! quadratic and linear algorithms at every configuration of walks over
//! real treebanks.
//!
//! # Complexity
//!
//! O(n log n) to start. Per step, along gold computations: O(1) memo values
//! and cells, O(log n) for the component root of b₁'s parent, plus the gold
//! children of b₁ once. Off the gold path a shift renews the stack's cells
//! from the lowest gold neighbour of b₁ up (see
//! [`incremental`](super::incremental)). The buffers and the memo live in
//! the [`Oracle`] and are reused by the next session: no allocation once
//! warm.

use super::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy, System};
use crate::tree::DepTree;

/// The optimal steps along one computation for one gold tree.
pub struct OracleSession<'o, 'g> {
    oracle: &'o mut Oracle<'g>,
    gold: DepTree,
    config: Configuration,
    strategy: Strategy,
    algorithm: Algorithm,
    cached: Option<StepScores>,
    /// The optimal steps of the current configuration, if asked
    /// ([`OracleSession::optimal`]) before the scores.
    cached_optimal: Option<StepScores>,
    mode: Mode,
    /// LR-spine: the session has followed the canonical computation of its
    /// projective gold tree from the initial configuration, so the static
    /// oracle's step has a closed form ([`lr_spine::canonical_static_step`](super::lr_spine::canonical_static_step)).
    canonical: bool,
}

/// Which engine of the [`Oracle`] follows the session.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// None: every scoring is a one-shot call.
    OneShot,
    /// The arc-standard incremental engine (Sec. 7).
    ArcStandard,
    /// The closed form of arc-hybrid or arc-eager.
    ClosedForm,
}

impl<'o, 'g> OracleSession<'o, 'g> {
    /// A session of `system` at the initial configuration for `gold`;
    /// `algorithm` is resolved once ([`Algorithm::Auto`] looks at
    /// projectivity here). Errors if the system does not offer the strategy
    /// or algorithm ([`Oracle::check_support`]). O(n).
    pub fn new(
        oracle: &'o mut Oracle<'g>,
        system: System,
        gold: DepTree,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<Self, OracleError> {
        let config = Configuration::initial(system, gold.len());
        Self::at(oracle, gold, config, strategy, algorithm)
    }

    /// A session starting at `config`. O(n log n) (the projectivity check
    /// and the index of the gold tree).
    pub fn at(
        oracle: &'o mut Oracle<'g>,
        gold: DepTree,
        config: Configuration,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<Self, OracleError> {
        config.check_gold(&gold)?;
        Oracle::check_support(config.system(), strategy, algorithm)?;
        let algorithm = oracle.algorithm_for(config.system(), strategy, algorithm, &gold)?;
        // The algorithms for projective gold trees refuse another at the
        // start, not at the first scoring.
        if matches!(algorithm, Algorithm::Linear | Algorithm::Quadratic | Algorithm::Goldberg)
            && !gold.is_partial()
            && !gold.is_projective()
        {
            // LR-spine has no other algorithm to suggest.
            return Err(match config.system() {
                System::LrSpine => OracleError::ProjectiveOnly(System::LrSpine),
                _ => OracleError::NonProjectiveGold(algorithm),
            });
        }
        let mode = match Oracle::formulas(config.system()) {
            _ if algorithm != Algorithm::Linear || !gold.is_projective() => Mode::OneShot,
            None => {
                oracle.incremental.reset(&gold, &config, strategy);
                Mode::ArcStandard
            }
            Some(formulas) => {
                oracle.closed_form.start(formulas, &gold, &config)?;
                Mode::ClosedForm
            }
        };
        let canonical = config.system() == System::LrSpine
            && gold.is_projective()
            && config == Configuration::initial(System::LrSpine, gold.len());
        Ok(OracleSession {
            oracle,
            gold,
            config,
            strategy,
            algorithm,
            cached: None,
            cached_optimal: None,
            mode,
            canonical,
        })
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
        self.mode != Mode::OneShot
    }

    /// The work done so far, in elementary units: in the incremental mode,
    /// the memo values computed, the cells built, the children of b₁
    /// scanned, the lifting steps and the steps taken, plus n for the start
    /// (arc-standard); 0 otherwise.
    pub fn work(&self) -> usize {
        match self.mode {
            Mode::ArcStandard => self.oracle.incremental.work,
            _ => 0,
        }
    }

    /// Takes `step`, returning the arc it builds. O(1), except an
    /// arc-standard shift in the incremental mode, which prepares the
    /// engine for the next input node (amortised O(log n) along gold
    /// computations; see [`incremental`](super::incremental)).
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        if self.mode == Mode::ClosedForm {
            if !self.config.is_applicable(step) {
                return Err(OracleError::NotApplicable(step, self.config.system()));
            }
            self.oracle.closed_form.apply(&self.config, step);
        }
        if self.canonical && step != super::lr_spine::canonical_static_step(&self.config, &self.gold) {
            self.canonical = false;
        }
        let arc = self.config.apply(step)?;
        if self.mode == Mode::ArcStandard {
            self.oracle.incremental.apply(step);
        }
        self.cached = None;
        self.cached_optimal = None;
        Ok(arc)
    }

    /// The scores of the current configuration (equal to [`Oracle::scores`]
    /// with the session's algorithm): in the incremental mode O(1) for
    /// arc-hybrid and arc-eager, O(log n) for arc-standard along gold
    /// computations (module doc), one call of the algorithm otherwise; free
    /// when asked again.
    pub fn scores(&mut self) -> Result<StepScores, OracleError> {
        if let Some(s) = self.cached {
            return Ok(s);
        }
        let s = match self.mode {
            Mode::ArcStandard => super::restrict_to_layout(&self.config, self.oracle.incremental.scores()),
            Mode::ClosedForm => super::restrict_to_layout(&self.config, self.oracle.closed_form.scores(&self.config)),
            Mode::OneShot => self.oracle.scores(&self.config, &self.gold, self.strategy, self.algorithm)?,
        };
        self.cached = Some(s);
        Ok(s)
    }

    /// The optimal steps of the current configuration with their score
    /// (the best; the other steps get none): the best steps of
    /// [`OracleSession::scores`], found for less by Attardi's tabular
    /// oracle along a computation ([`Oracle::optimal`]); free when asked
    /// again, or after the scores.
    pub fn optimal(&mut self) -> Result<StepScores, OracleError> {
        if let Some(s) = self.cached {
            return Ok(s.only_optimal());
        }
        if let Some(s) = self.cached_optimal {
            return Ok(s);
        }
        let s = match self.mode {
            Mode::OneShot => self.oracle.optimal(&self.config, &self.gold, self.strategy, self.algorithm)?,
            _ => self.scores()?.only_optimal(),
        };
        self.cached_optimal = Some(s);
        Ok(s)
    }

    /// The static oracle's step at the current configuration (arc-hybrid,
    /// arc-eager, LR-spine, Attardi, arc-eager-nm; see [`Oracle::static_step`]):
    /// O(1) in the incremental mode, O(n) otherwise; LR-spine, Attardi and
    /// arc-eager-nm: the [`canonical_step_of`](super::canonical_step_of) of
    /// [`OracleSession::scores`] (the same step as [`Oracle::static_step`])
    /// (shared with it: asking both costs one oracle call), except that
    /// LR-spine, along the canonical computation from the initial
    /// configuration (every step applied so far the static one), finds the
    /// same step in closed form, O(spine length), without the table
    /// ([`canonical_static_step`](super::lr_spine::canonical_static_step)):
    /// a static computation costs O(n × spine length), not one table per step.
    pub fn static_step(&mut self) -> Result<Step, OracleError> {
        if self.config.is_final() {
            return Err(OracleError::Final);
        }
        match self.mode {
            Mode::ClosedForm => Ok(self.oracle.closed_form.static_step(&self.config)),
            _ if self.canonical => Ok(super::lr_spine::canonical_static_step(&self.config, &self.gold)),
            _ if Oracle::has_canonical_tie_break(self.config.system()) => {
                let scores = self.scores()?;
                super::canonical_step_of(&self.config, &self.gold, &scores).ok_or(OracleError::Final)
            }
            _ => self.oracle.static_step(&self.config, &self.gold),
        }
    }
}
