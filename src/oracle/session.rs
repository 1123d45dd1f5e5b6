//! Following a computation step by step (Nederhof 2019, Sec. 7 asks for
//! optimal steps along a whole computation).
//!
//! An [`OracleSession`] holds a gold tree, the current configuration and an
//! [`Oracle`] (with its reusable chart); it is told each step taken
//! ([`OracleSession::apply`], O(1)) and answers [`OracleSession::scores`].
//!
//! # What is reused, and the cost
//!
//! * The oracle's chart and buffers: no allocation after the first
//!   configuration of the longest sentence.
//! * The answer for the current configuration: asking twice costs nothing.
//! * Projectivity of the gold tree (for [`Algorithm::Auto`]): computed once.
//!
//! The scores of a configuration cannot be derived soundly from those of its
//! predecessor: the strategies constrain the nodes *of the configuration
//! asked about* (a_k and the remaining input), so the best continuation after
//! a step, as seen from the previous configuration, is scored under other
//! constraints. Each call to [`scores`](OracleSession::scores) after a step
//! therefore costs one call of the chosen algorithm: O((k + m)³) amortised
//! per step for cubic. Its answers equal the one-shot ones by construction,
//! and `tests/oracle_cubic.rs` checks this on all walks of all trees n ≤ 5.

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
}

impl<'o, 'g> OracleSession<'o, 'g> {
    /// A session at the initial configuration for `gold`; `algorithm` is
    /// resolved once ([`Algorithm::Auto`] looks at projectivity here). O(n).
    pub fn new(oracle: &'o mut Oracle<'g>, gold: DepTree, strategy: Strategy, algorithm: Algorithm) -> Self {
        let config = Configuration::initial(gold.len());
        Self::at(oracle, gold, config, strategy, algorithm)
            .unwrap_or_else(|_| unreachable!("the initial configuration fits its gold tree"))
    }

    /// A session starting at `config`. O(n).
    pub fn at(
        oracle: &'o mut Oracle<'g>,
        gold: DepTree,
        config: Configuration,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<Self, OracleError> {
        config.check_gold(&gold)?;
        let algorithm = Oracle::resolve(algorithm, &gold);
        Ok(OracleSession { oracle, gold, config, strategy, algorithm, cached: None })
    }

    /// The current configuration.
    pub fn configuration(&self) -> &Configuration {
        &self.config
    }

    /// The algorithm in use (after resolving `auto`).
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Takes `step`, returning the arc it builds. O(1) (amortised).
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        let arc = self.config.apply(step)?;
        self.cached = None;
        Ok(arc)
    }

    /// The scores of the current configuration: one call of the algorithm
    /// the first time after a step, free afterwards.
    pub fn scores(&mut self) -> Result<StepScores, OracleError> {
        if let Some(s) = self.cached {
            return Ok(s);
        }
        let s = self.oracle.scores(&self.config, &self.gold, self.strategy, self.algorithm)?;
        self.cached = Some(s);
        Ok(s)
    }
}
