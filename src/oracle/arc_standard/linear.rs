//! The O(n) algorithm of Sec. 6 (Nederhof 2019), for projective gold trees.
//!
//! The recursion of [`quadratic`](super::quadratic) with two prunings that
//! keep, for each i, only O(1) values of j (Sec. 6):
//!
//! ```text
//! in score:  w(j, i) + score(i−1, j, q)  becomes
//!              if w(j, i) = 1 then 1 + score(i−1, j, q)
//!              else if w(j, i) = 0 ∧ λ(i, j) then score(κ(i), j, q) else −∞
//! in score': score'(i−1, j') (the p'(i, j') = ⊥ case)  becomes
//!              if λ'(i, j') then score'(κ(i), j') else −∞
//! λ(i, j)   ⟺ ∃ ℓ < i: a gold arc between a_ℓ and a_j
//! λ'(i, j') ⟺ ∃ ℓ < i: a gold arc between a_ℓ and some b_j'' with R(j'') = R(j')
//! κ(i)      = the smallest ℓ' < i with a gold arc between a_ℓ' and a_i, else i − 1
//! ```
//!
//! λ, λ' and κ are O(1) lookups in tables built with the others in O(k + m)
//! ([`Prepared::left_nb`](super::critical::Prepared::left_nb),
//! [`Prepared::comp_left`](super::critical::Prepared::comp_left)).
//!
//! The pruning is real: `tests/oracle_fast.rs`
//! (`linear_computes_linearly_many_values`) counts the memo entries
//! computed on 400-word sentences and asserts they stay within a constant
//! times k + m, while the same count for the quadratic algorithm exceeds it.
//!
//! # Complexity
//!
//! O(k + m) time per call. The memo tables are dense (O(k²) cells, allocated
//! once and reused) but invalidated in O(1) by a stamp, so only the O(k + m)
//! entries touched cost time.

use super::quadratic::TableOracle;
use crate::oracle::{Configuration, OracleError, StepScores, Strategy};
use crate::tree::DepTree;

/// The linear algorithm (Sec. 6) with its reusable state: the quadratic
/// recursion with the pruning above.
pub type LinearOracle = TableOracle<true>;

/// Scores every applicable step of `config` by the linear algorithm
/// (Sec. 6); projective gold trees only. O(k + m) time.
pub fn scores(config: &Configuration, gold: &DepTree, strategy: Strategy) -> Result<StepScores, OracleError> {
    LinearOracle::new().scores(config, gold, strategy)
}
