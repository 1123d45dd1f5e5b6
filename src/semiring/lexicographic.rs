//! The lexicographic product A ⋉ B: pairs (a, b) where ⊕ keeps the pair with
//! the higher a and, when the a's are equal, ⊕-combines the b's; ⊗ is
//! componentwise. 𝟘 = (𝟘, 𝟘) (every pair with a 𝟘 component), 𝟙 = (𝟙, 𝟙).
//!
//! With A = B = [`MaxPlus`](super::MaxPlus) this maximises a primary score
//! and, among the derivations reaching it, a secondary one: optimal
//! projectivization that prefers, among the trees keeping the most gold
//! arcs (Nederhof 2019, Sec. 3), the one with the best secondary score
//! (Sec. 8.1 leaves the choice among optimal trees open). With B =
//! [`MaxCount`](super::MaxCount) it counts the derivations that are optimal
//! in both scores.

use super::{Selective, Semiring};
use std::cmp::Ordering;
use std::fmt;

/// A pair compared first by `primary`, then by `secondary`.
///
/// # Laws
///
/// This is a semiring when
///
/// * A is totally ordered (`Ord`), its ⊕ is the maximum of that order and
///   its 𝟘 the least element (max-plus: −∞), and
/// * A's ⊗ is *strictly* monotone on non-𝟘 values: a < a′ implies
///   a ⊗ c < a′ ⊗ c and c ⊗ a < c ⊗ a′ for every c ≠ 𝟘 (max-plus over the
///   integers is: adding c preserves strict order), and
/// * neither A nor B has zero divisors (a ⊗ b = 𝟘 only if a or b is 𝟘) and
///   B's ⊕ of non-𝟘 values is non-𝟘 (max-plus within its range, counts,
///   max-count all qualify).
///
/// Then ⊗ distributes over ⊕: if a > a′ both sides keep the products with
/// a; if a = a′ both sides reduce to B's distributivity. A pair with a 𝟘
/// component is 𝟘: [`new`](Self::new) turns it into (𝟘, 𝟘), and by the last
/// condition ⊕ and ⊗ keep "both components 𝟘 or neither", so the secondary
/// score never revives a pair that has no derivation. The tests check the
/// laws on random values (`proptest`).
///
/// # Cost
///
/// ⊗ is two componentwise ⊗ and ⊕ one comparison of primaries (plus B's ⊕
/// on ties), with no test for 𝟘: that invariant makes them unnecessary. For
/// two `MaxPlus<i64>` a value is 16 bytes and owns no memory, so the engine
/// allocates nothing.
#[derive(Clone, Copy)]
pub struct Lexicographic<A, B> {
    primary: A,
    secondary: B,
}

impl<A: Semiring, B: Semiring> Lexicographic<A, B> {
    /// The pair (a, b); 𝟘 if either is 𝟘.
    #[inline]
    pub fn new(primary: A, secondary: B) -> Self {
        if primary.is_zero() || secondary.is_zero() {
            return Lexicographic { primary: A::zero(), secondary: B::zero() };
        }
        Lexicographic { primary, secondary }
    }

    /// The primary component (compared first).
    #[inline]
    pub fn primary(&self) -> &A {
        &self.primary
    }

    /// The secondary component (⊕-combined only between equal primaries).
    #[inline]
    pub fn secondary(&self) -> &B {
        &self.secondary
    }
}

impl<A: Semiring + Ord, B: Semiring> Semiring for Lexicographic<A, B> {
    #[inline]
    fn zero() -> Self {
        Lexicographic { primary: A::zero(), secondary: B::zero() }
    }
    #[inline]
    fn one() -> Self {
        Lexicographic { primary: A::one(), secondary: B::one() }
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        // 𝟘 = (𝟘, 𝟘) is least in A, and 𝟘 ⊕ 𝟘 = 𝟘 in B: no special case.
        match other.primary.cmp(&self.primary) {
            Ordering::Greater => *self = other.clone(),
            Ordering::Equal => self.secondary.plus_assign(&other.secondary),
            Ordering::Less => {}
        }
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        // No zero divisors: the product is (𝟘, 𝟘)-like iff a factor is.
        Lexicographic { primary: self.primary.times(&other.primary), secondary: self.secondary.times(&other.secondary) }
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.primary.is_zero()
    }
}

impl<A: Selective + Ord, B: Selective> Selective for Lexicographic<A, B> {
    /// Same primary, and the secondary attains the total's secondary.
    #[inline]
    fn attains(&self, total: &Self) -> bool {
        !self.is_zero() && self.primary == total.primary && self.secondary.attains(&total.secondary)
    }
}

impl<A: Semiring, B: Semiring> PartialEq for Lexicographic<A, B> {
    fn eq(&self, other: &Self) -> bool {
        let (z, w) = (self.primary.is_zero(), other.primary.is_zero());
        (z && w) || (!z && !w && self.primary == other.primary && self.secondary == other.secondary)
    }
}

impl<A: fmt::Display, B: fmt::Display> fmt::Display for Lexicographic<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.primary, self.secondary)
    }
}

impl<A: fmt::Debug, B: fmt::Debug> fmt::Debug for Lexicographic<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({:?}, {:?})", self.primary, self.secondary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::{Count, MaxCount, MaxPlus};
    use proptest::prelude::*;

    type Lex = Lexicographic<MaxPlus<i64>, MaxPlus<i64>>;
    type LexCount = Lexicographic<MaxPlus<i64>, MaxCount<Count>>;

    /// Small values, so that equal primaries (the interesting case) are
    /// frequent; `None` stands for −∞ in that component.
    fn lex() -> impl Strategy<Value = Lex> {
        let component = prop_oneof![1 => Just(None), 6 => (-3i64..4).prop_map(Some)];
        (component.clone(), component).prop_map(|(a, b)| {
            let m = |x: Option<i64>| x.map_or_else(MaxPlus::neg_inf, MaxPlus::new);
            Lexicographic::new(m(a), m(b))
        })
    }

    fn lex_count() -> impl Strategy<Value = LexCount> {
        (prop_oneof![1 => Just(None), 6 => (-2i64..3).prop_map(Some)], -2i64..3, 1u64..4).prop_map(|(a, b, k)| {
            let secondary = MaxCount { score: MaxPlus::new(b), count: Count::new(k) };
            Lexicographic::new(a.map_or_else(MaxPlus::neg_inf, MaxPlus::new), secondary)
        })
    }

    fn laws<S: Semiring>(a: &S, b: &S, c: &S) {
        assert_eq!(a.clone().plus(b), b.clone().plus(a), "⊕ commutes");
        assert_eq!(a.clone().plus(b).plus(c), a.clone().plus(&b.clone().plus(c)), "⊕ associates");
        assert_eq!(a.times(b).times(c), a.times(&b.times(c)), "⊗ associates");
        assert_eq!(a.times(&b.clone().plus(c)), a.times(b).plus(&a.times(c)), "left distributivity");
        assert_eq!(b.clone().plus(c).times(a), b.times(a).plus(&c.times(a)), "right distributivity");
        assert_eq!(a.clone().plus(&S::zero()), *a, "𝟘 is the ⊕ identity");
        assert_eq!(S::zero().plus(a), *a, "𝟘 is the ⊕ identity");
        assert_eq!(a.times(&S::one()), *a, "𝟙 is the ⊗ identity");
        assert_eq!(S::one().times(a), *a, "𝟙 is the ⊗ identity");
        assert!(a.times(&S::zero()).is_zero() && S::zero().times(a).is_zero(), "𝟘 annihilates");
    }

    proptest! {
        #[test]
        fn max_plus_pairs_are_a_semiring(a in lex(), b in lex(), c in lex()) {
            laws(&a, &b, &c);
        }

        #[test]
        fn pairs_with_counts_are_a_semiring(a in lex_count(), b in lex_count(), c in lex_count()) {
            laws(&a, &b, &c);
        }

        #[test]
        fn plus_selects_the_lexicographic_maximum(a in lex(), b in lex()) {
            let s = a.plus(&b);
            prop_assert!(s == a || s == b);
            if !a.is_zero() && !b.is_zero() {
                let key = |x: &Lex| (x.primary, x.secondary);
                prop_assert_eq!(key(&s), key(&a).max(key(&b)));
                prop_assert!(a.attains(&s) || b.attains(&s));
            }
        }
    }

    #[test]
    fn primary_dominates_and_secondary_breaks_ties() {
        let p = |a, b| Lex::new(MaxPlus::new(a), MaxPlus::new(b));
        assert_eq!(p(2, -100).plus(&p(1, 100)), p(2, -100));
        assert_eq!(p(2, 3).plus(&p(2, 5)), p(2, 5));
        assert_eq!(p(2, 3).times(&p(1, -1)), p(3, 2));
        assert!(Lex::new(MaxPlus::neg_inf(), MaxPlus::new(5)).is_zero());
        assert_eq!(Lex::new(MaxPlus::new(1), MaxPlus::neg_inf()), Lex::zero());
        assert_eq!(format!("{}", p(2, 3)), "2 3");
    }

    #[test]
    fn counts_add_only_on_equal_pairs() {
        let p = |a, b| LexCount::new(MaxPlus::new(a), MaxCount::new(b));
        let s = p(1, 0).plus(&p(1, 0)).plus(&p(1, -1)).plus(&p(0, 9));
        assert_eq!(s.primary, MaxPlus::new(1));
        assert_eq!(s.secondary.score, MaxPlus::new(0));
        assert_eq!(s.secondary.count, Count::new(2));
    }
}
