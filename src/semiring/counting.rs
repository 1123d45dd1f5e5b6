//! Counting: the natural numbers with ⊕ = +, ⊗ = ×, 𝟘 = 0, 𝟙 = 1.
//!
//! With every weight 𝟙 the engine's value is the number of derivations.
//! [`Count`] is exact (arbitrary precision); [`CheckedCount`] is a 64-bit
//! count that turns into a sticky "overflow" value instead of wrapping.

use super::Semiring;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use std::fmt;

/// An exact count of arbitrary size.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Count(pub BigUint);

impl Count {
    /// A count from a machine integer.
    pub fn new(n: u64) -> Self {
        Count(BigUint::from(n))
    }
}

impl Semiring for Count {
    fn zero() -> Self {
        Count(BigUint::zero())
    }
    fn one() -> Self {
        Count(BigUint::one())
    }
    fn plus_assign(&mut self, other: &Self) {
        if !other.0.is_zero() {
            self.0 += &other.0;
        }
    }
    fn times(&self, other: &Self) -> Self {
        if self.0.is_zero() || other.0.is_zero() {
            return Count::zero();
        }
        if self.0.is_one() {
            return other.clone();
        }
        if other.0.is_one() {
            return self.clone();
        }
        Count(&self.0 * &other.0)
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A 64-bit count that reports overflow instead of wrapping.
///
/// `CheckedCount(None)` is "overflowed": a true count of at least 2⁶⁴. It is
/// sticky under ⊕ and under ⊗ with anything but 0 (an overflowed count times
/// zero derivations is still zero). [`CheckedCount::get`] turns it into an error.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CheckedCount(pub Option<u64>);

/// The error of a [`CheckedCount`] that overflowed 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("count overflowed 64 bits (use the arbitrary-precision count)")]
pub struct CountOverflow;

impl CheckedCount {
    /// A count from a machine integer.
    pub fn new(n: u64) -> Self {
        CheckedCount(Some(n))
    }
    /// The count, or an error if it overflowed.
    pub fn get(self) -> Result<u64, CountOverflow> {
        self.0.ok_or(CountOverflow)
    }
}

impl Semiring for CheckedCount {
    #[inline]
    fn zero() -> Self {
        CheckedCount(Some(0))
    }
    #[inline]
    fn one() -> Self {
        CheckedCount(Some(1))
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        self.0 = match (self.0, other.0) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        CheckedCount(match (self.0, other.0) {
            (Some(0), _) | (_, Some(0)) => Some(0),
            (Some(a), Some(b)) => a.checked_mul(b),
            _ => None,
        })
    }
}

impl fmt::Display for CheckedCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("overflow"),
        }
    }
}

impl fmt::Debug for CheckedCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl super::Commutative for Count {}
impl super::Commutative for CheckedCount {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_count_overflow_is_sticky_but_annihilated_by_zero() {
        let big = CheckedCount::new(u64::MAX);
        let over = big.plus(&CheckedCount::one());
        assert_eq!(over.get(), Err(CountOverflow));
        assert_eq!(over.times(&CheckedCount::new(2)).get(), Err(CountOverflow));
        assert_eq!(over.times(&CheckedCount::zero()).get(), Ok(0));
        assert_eq!(big.times(&CheckedCount::new(2)).get(), Err(CountOverflow));
        assert_eq!(CheckedCount::new(6).times(&CheckedCount::new(7)).get(), Ok(42));
    }

    #[test]
    fn exact_count_grows_past_64_bits() {
        let mut c = Count::new(u64::MAX);
        c.plus_assign(&Count::one());
        assert_eq!(c.to_string(), "18446744073709551616");
        assert_eq!(c.times(&Count::zero()), Count::zero());
    }
}
