//! Max-plus over f64: ⊕ = max, ⊗ = +, 𝟘 = −∞, 𝟙 = 0 (Viterbi with real scores).

use super::{Commutative, Monotone, Selective, Semiring};
use std::cmp::Ordering;
use std::fmt;

/// A best real score, −∞ for no derivation. Unlike the integer
/// [`MaxPlus`](super::MaxPlus) it takes scores of any size; sums are rounded
/// as f64 additions are.
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug)]
pub struct RealMaxPlus(pub f64);

impl Semiring for RealMaxPlus {
    #[inline]
    fn zero() -> Self {
        RealMaxPlus(f64::NEG_INFINITY)
    }
    #[inline]
    fn one() -> Self {
        RealMaxPlus(0.0)
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        self.0 = self.0.max(other.0);
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        RealMaxPlus(self.0 + other.0)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.0 == f64::NEG_INFINITY
    }
}

impl Selective for RealMaxPlus {
    #[inline]
    fn attains(&self, total: &Self) -> bool {
        !self.is_zero() && self.0 == total.0
    }
}

impl Commutative for RealMaxPlus {}

impl Monotone for RealMaxPlus {
    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl fmt::Display for RealMaxPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_on_samples() {
        let samples =
            [RealMaxPlus::zero(), RealMaxPlus::one(), RealMaxPlus(2.5), RealMaxPlus(-1e300), RealMaxPlus(-0.5)];
        for a in samples {
            assert_eq!(a.times(&RealMaxPlus::one()), a);
            assert_eq!(a.plus(&RealMaxPlus::zero()), a);
            assert!(a.times(&RealMaxPlus::zero()).is_zero());
            for b in samples {
                assert_eq!(a.plus(&b), b.plus(&a));
                assert_eq!(a.times(&b), b.times(&a));
                for c in samples {
                    assert_eq!(a.times(&b.plus(&c)), a.times(&b).plus(&a.times(&c)));
                    assert_eq!(a.plus(&b).plus(&c), a.plus(&b.plus(&c)));
                    // Monotone: a ≤ b ⇒ a ⊗ c ≤ b ⊗ c.
                    if a.order(&b).is_le() {
                        assert!(a.times(&c).order(&b.times(&c)).is_le());
                    }
                }
            }
        }
    }
}
