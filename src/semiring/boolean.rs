//! Boolean: {false, true} with ⊕ = ∨, ⊗ = ∧, 𝟘 = false, 𝟙 = true (recognition).

use super::{Selective, Semiring};
use std::fmt;

/// Whether any derivation exists.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Boolean(pub bool);

impl Semiring for Boolean {
    #[inline]
    fn zero() -> Self {
        Boolean(false)
    }
    #[inline]
    fn one() -> Self {
        Boolean(true)
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        self.0 |= other.0;
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        Boolean(self.0 && other.0)
    }
}

impl Selective for Boolean {
    fn attains(&self, total: &Self) -> bool {
        self.0 && total.0
    }
}

impl fmt::Display for Boolean {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl super::Commutative for Boolean {}
