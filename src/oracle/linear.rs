//! The O(n) algorithm of Sec. 6 (Nederhof 2019), for projective gold trees.

use super::quadratic::Engine;
use super::{Algorithm, Configuration, OracleError, StepScores, Strategy};
use crate::tree::DepTree;

/// Reusable state of the linear algorithm (Sec. 6). Allocation-free once warm.
#[derive(Clone, Debug, Default)]
pub struct LinearOracle {
    engine: Engine<true>,
}

impl LinearOracle {
    /// A fresh oracle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores every applicable step of `config` (Sec. 6). O(k + m) time.
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
    ) -> Result<StepScores, OracleError> {
        self.engine.scores(config, gold, strategy, Algorithm::Linear)
    }

    /// How many values score(i, j, q) and score'(i, j) the last call computed.
    pub fn computed(&self) -> usize {
        self.engine.computed
    }
}

/// Scores every applicable step of `config` by the linear algorithm
/// (Sec. 6); projective gold trees only. O(k + m) time.
pub fn scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    LinearOracle::new().scores(config, gold, strategy)
}
