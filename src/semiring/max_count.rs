//! The (max, count) product: pairs (score, count) where ⊕ keeps the higher
//! score and adds the counts of equal scores, and ⊗ adds scores and multiplies
//! counts. 𝟘 = (−∞, 0), 𝟙 = (0, 1).
//!
//! One pass gives the best score and the number of derivations reaching it
//! (Nederhof 2019, end of Sec. 3 and Fig. 8: the number of optimal
//! projectivizations).

use super::{Count, MaxPlus, Selective, Semiring};
use std::fmt;

/// A best score together with the number of derivations that reach it.
/// The count is any counting semiring: exact [`Count`] (the default) or
/// [`super::CheckedCount`].
#[derive(Clone, PartialEq)]
pub struct MaxCount<C = Count> {
    /// The best score (−∞ when there is no derivation).
    pub score: MaxPlus<i64>,
    /// How many derivations reach `score`.
    pub count: C,
}

impl<C: Semiring> MaxCount<C> {
    /// A single derivation with the given score (a weight).
    pub fn new(score: i64) -> Self {
        MaxCount { score: MaxPlus::new(score), count: C::one() }
    }
}

impl<C: Semiring> Semiring for MaxCount<C> {
    fn zero() -> Self {
        MaxCount { score: MaxPlus::zero(), count: C::zero() }
    }
    fn one() -> Self {
        MaxCount { score: MaxPlus::one(), count: C::one() }
    }
    fn plus_assign(&mut self, other: &Self) {
        if other.score.is_zero() {
            return;
        }
        if other.score > self.score {
            self.score = other.score;
            self.count = other.count.clone();
        } else if other.score == self.score {
            self.count.plus_assign(&other.count);
        }
    }
    fn times(&self, other: &Self) -> Self {
        let score = self.score.times(&other.score);
        if score.is_zero() {
            return Self::zero();
        }
        MaxCount { score, count: self.count.times(&other.count) }
    }
    fn is_zero(&self) -> bool {
        self.score.is_zero()
    }
    /// Two passes: the best score of the pairs, then the sum of the count
    /// products of the pairs reaching it. Products of counts that ⊕ would
    /// discard (lower scores) are never computed: with arbitrary-precision
    /// counts these are most of the work. O(len) score operations, and
    /// count operations only for the pairs of best score.
    fn dot(a: &[Self], b: &[Self]) -> Self {
        let mut best = MaxPlus::zero();
        for (x, y) in a.iter().zip(b) {
            let s = x.score.times(&y.score);
            if s > best {
                best = s;
            }
        }
        if best.is_zero() {
            return Self::zero();
        }
        let mut count = C::zero();
        for (x, y) in a.iter().zip(b) {
            if x.score.times(&y.score) == best {
                count.plus_assign(&x.count.times(&y.count));
            }
        }
        MaxCount { score: best, count }
    }
}

impl<C: Semiring> Selective for MaxCount<C> {
    fn attains(&self, total: &Self) -> bool {
        !self.score.is_zero() && self.score == total.score
    }
}

impl<C: fmt::Display> fmt::Display for MaxCount<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.score, self.count)
    }
}

impl<C: fmt::Debug> fmt::Debug for MaxCount<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {:?})", self.score, self.count)
    }
}

impl<C: super::Commutative> super::Commutative for MaxCount<C> {}

/// Uniform over the optimal derivations: a summand's share is its count over
/// the total count if it reaches the best score, otherwise 0.
impl super::Sampling for MaxCount<Count> {
    fn share(&self, total: &Self) -> f64 {
        if self.score.is_zero() || self.score != total.score || total.count.0 == num_bigint::BigUint::ZERO {
            return 0.0;
        }
        ratio(&self.count.0, &total.count.0)
    }
}

/// a / b as f64 for a ≤ b of any size: both shifted right so that b keeps
/// 64 significant bits. O(size of b).
fn ratio(a: &num_bigint::BigUint, b: &num_bigint::BigUint) -> f64 {
    let shift = b.bits().saturating_sub(64);
    let (a, b) = (a >> shift, b >> shift);
    let to_f64 = |x: num_bigint::BigUint| {
        x.iter_u64_digits().rev().fold(0.0f64, |acc, d| acc * 18446744073709551616.0 + d as f64)
    };
    to_f64(a) / to_f64(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_add_counts_and_higher_scores_win() {
        let a = MaxCount::<Count>::new(2);
        let b = MaxCount::<Count>::new(2);
        let c = MaxCount::<Count>::new(1);
        let s = a.clone().plus(&b).plus(&c);
        assert_eq!(s.score, MaxPlus::new(2));
        assert_eq!(s.count, Count::new(2));
        assert_eq!(s.times(&s).count, Count::new(4));
        assert!(s.times(&MaxCount::zero()).is_zero());
        assert_eq!(MaxCount::<Count>::zero().plus(&c), c);
    }
}
