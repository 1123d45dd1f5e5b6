//! Max-plus over integers with −∞: ⊕ = max, ⊗ = +, 𝟘 = −∞, 𝟙 = 0 (the "tropical" semiring of best scores).

use super::{Selective, Semiring};
use num_traits::{Bounded, PrimInt, Signed, WrappingAdd};
use std::fmt;

/// A best score: an integer, or −∞ (no derivation). Nederhof (2019), Sec. 3,
/// is this semiring over the non-negative integers.
///
/// −∞ is stored as the type's minimum value; ⊗ of a −∞ with anything is −∞.
/// Finite sums are assumed not to overflow (scores are bounded by the
/// number of arcs times the largest weight).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaxPlus<T = i64>(pub T);

impl<T: PrimInt + Signed> MaxPlus<T> {
    /// −∞, the semiring's 𝟘.
    pub fn neg_inf() -> Self {
        MaxPlus(T::min_value())
    }
    /// A finite score.
    pub fn new(score: T) -> Self {
        debug_assert!(score != T::min_value(), "use MaxPlus::neg_inf for −∞");
        MaxPlus(score)
    }
    /// The score, or `None` for −∞.
    pub fn finite(self) -> Option<T> {
        (self.0 != T::min_value()).then_some(self.0)
    }
}

impl<T: PrimInt + Signed + WrappingAdd + fmt::Display> Semiring for MaxPlus<T> {
    #[inline]
    fn zero() -> Self {
        MaxPlus(<T as Bounded>::min_value())
    }
    #[inline]
    fn one() -> Self {
        MaxPlus(T::zero())
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        if other.0 > self.0 {
            self.0 = other.0;
        }
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        // Branch-free, so that the engine's inner sums vectorise: compute the
        // (possibly wrapped) sum and both −∞ tests, then select. A wrapped
        // sum only arises with a −∞ operand, and is then discarded.
        let min = <T as Bounded>::min_value();
        let sum = self.0.wrapping_add(&other.0);
        let neg_inf = (self.0 == min) | (other.0 == min);
        debug_assert!(neg_inf || self.0.checked_add(&other.0).is_some(), "max-plus score overflow");
        MaxPlus(if neg_inf { min } else { sum })
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.0 == <T as Bounded>::min_value()
    }
}

impl<T: PrimInt + Signed + WrappingAdd + fmt::Display> Selective for MaxPlus<T> {
    #[inline]
    fn attains(&self, total: &Self) -> bool {
        !self.is_zero() && self.0 == total.0
    }
}

impl<T: PrimInt + Signed + fmt::Display> fmt::Display for MaxPlus<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == T::min_value() {
            f.write_str("-inf")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl<T: PrimInt + Signed + fmt::Display> fmt::Debug for MaxPlus<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_on_samples() {
        let xs = [MaxPlus::neg_inf(), MaxPlus(0i64), MaxPlus(3), MaxPlus(-2)];
        for a in xs {
            assert_eq!(a.times(&MaxPlus::one()), a);
            assert_eq!(a.plus(&MaxPlus::zero()), a);
            assert!(a.times(&MaxPlus::zero()).is_zero());
            for b in xs {
                for c in xs {
                    assert_eq!(a.times(&b.plus(&c)), a.times(&b).plus(&a.times(&c)));
                }
            }
        }
        assert_eq!(MaxPlus(2i64).times(&MaxPlus(3)), MaxPlus(5));
        assert_eq!(format!("{}", MaxPlus::<i64>::neg_inf()), "-inf");
    }
}
