//! Semirings: the algebra the engine computes in.
//!
//! A semiring is a set with two operations, ⊕ ("plus", combining alternatives)
//! and ⊗ ("times", combining the parts of one derivation), such that
//!
//! * ⊕ is associative and commutative, with identity [`Semiring::zero`] (𝟘);
//! * ⊗ is associative, with identity [`Semiring::one`] (𝟙);
//! * ⊗ distributes over ⊕ on both sides: a ⊗ (b ⊕ c) = a ⊗ b ⊕ a ⊗ c;
//! * 𝟘 annihilates: 𝟘 ⊗ a = a ⊗ 𝟘 = 𝟘.
//!
//! The engine ([`crate::engine`]) only ever calls these operations, so the same
//! dynamic program yields the best score ([`MaxPlus`]), the number of derivations
//! ([`Count`], [`CheckedCount`]), both at once ([`MaxCount`]), recognition
//! ([`Boolean`]), the log of a sum of exponentials ([`LogSumExp`]), or a best
//! primary score with the best secondary score among its derivations
//! ([`Lexicographic`]).
//! (Nederhof 2019, Sec. 3: "This can be done for any semiring.")
//!
//! Semirings whose ⊕ always picks one of its arguments (up to ties) are
//! *selective*; for them the engine can trace back a best derivation, see
//! [`Selective`].
//!
//! Beyond the value of the whole input, what else the engine can compute
//! depends on further properties, each a trait with its law:
//!
//! * [`Commutative`] (a ⊗ b = b ⊗ a): the outside pass and, for every arc,
//!   the ⊕-sum over the derivations that contain it
//!   ([`crate::engine::Parser::arc_sums`]);
//! * [`Semifield`] (every non-𝟘 value has a ⊗-inverse): those sums divided by
//!   the total, arc marginals ([`crate::engine::Parser::marginals`]); in
//!   [`LogSumExp`] the log-probability that a tree contains the arc;
//! * [`Monotone`] (⊕ is the maximum of a total order that ⊗ preserves): the
//!   k best derivations ([`crate::engine::Parser::k_best`]);
//! * [`Sampling`] (values read as non-negative reals): drawing derivations
//!   with probability proportional to their weight
//!   ([`crate::engine::Parser::sample`]).
//!
//! [`ScaledReal`] computes the same sums as [`LogSumExp`] in probability
//! space, with a power-of-two scale beside each value: plain products and
//! sums, no `exp` per term, and still no overflow or underflow.
//!
//! [`LogExpectation`] is the first-order expectation semiring (Eisner 2002)
//! kept in log space: one pass gives log Z and the expectation of an
//! additive function of the tree, hence the entropy of the tree distribution.

mod boolean;
mod counting;
mod lexicographic;
mod log_expectation;
mod log_sum_exp;
mod max_count;
mod max_plus;
mod real_max_plus;
mod scaled_real;

pub use boolean::Boolean;
pub use counting::{CheckedCount, Count};
pub use lexicographic::Lexicographic;
pub use log_expectation::LogExpectation;
pub use log_sum_exp::LogSumExp;
pub use max_count::MaxCount;
pub use max_plus::MaxPlus;
pub use real_max_plus::RealMaxPlus;
pub use scaled_real::ScaledReal;

use std::fmt::Debug;

/// A semiring (𝕂, ⊕, ⊗, 𝟘, 𝟙); see the [module documentation](self) for the laws.
///
/// Both operations take their arguments by reference so that values that own
/// memory (arbitrary-precision counts) are not cloned needlessly; for `Copy`
/// values the compiler removes the indirection.
pub trait Semiring: Clone + Debug + PartialEq {
    /// 𝟘, the identity of ⊕ and the annihilator of ⊗ ("no derivation").
    fn zero() -> Self;
    /// 𝟙, the identity of ⊗ ("the empty derivation").
    fn one() -> Self;
    /// `self ⊕= other`.
    fn plus_assign(&mut self, other: &Self);
    /// `self ⊗ other`.
    fn times(&self, other: &Self) -> Self;
    /// Whether `self` is 𝟘. The engine may skip work on 𝟘 operands.
    fn is_zero(&self) -> bool {
        *self == Self::zero()
    }
    /// `self ⊕ other`, by value.
    fn plus(mut self, other: &Self) -> Self {
        self.plus_assign(other);
        self
    }
    /// ⊕ᵢ aᵢ ⊗ bᵢ over two slices of equal length: the engine's inner loop.
    /// The default ([`dot_all`]) computes every product; a semiring may skip
    /// products that cannot change the sum ([`MaxCount`] multiplies the
    /// counts only of the pairs reaching the best score). O(len) operations.
    #[inline(always)]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        dot_all(a, b)
    }
}

/// ⊕ᵢ aᵢ ⊗ bᵢ over two slices of equal length, every product computed: the
/// default [`Semiring::dot`], the inner sum of every recurrence of Table 2. O(len).
///
/// Long sums use four independent partial sums, combined at the end: ⊕ is
/// associative and commutative (a semiring law), so the order is free, and
/// the CPU overlaps four ⊕ chains instead of waiting on one. Only sums of
/// fewer than four terms run as one chain. (Measured: with a single chain up
/// to 16 terms, max-plus over `i64` was 1.85× the specialised Eisner at
/// n = 20; with four chains from 4 terms on, 1.17×; `benches/README.md`.)
#[inline(always)]
pub fn dot_all<S: Semiring>(a: &[S], b: &[S]) -> S {
    debug_assert_eq!(a.len(), b.len());
    if a.len() < 4 {
        let mut acc = S::zero();
        for (x, y) in a.iter().zip(b) {
            acc.plus_assign(&x.times(y));
        }
        return acc;
    }
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let split = len - len % 4;
    let [mut s0, mut s1, mut s2, mut s3] = [S::zero(), S::zero(), S::zero(), S::zero()];
    for (x, y) in a[..split].chunks_exact(4).zip(b[..split].chunks_exact(4)) {
        s0.plus_assign(&x[0].times(&y[0]));
        s1.plus_assign(&x[1].times(&y[1]));
        s2.plus_assign(&x[2].times(&y[2]));
        s3.plus_assign(&x[3].times(&y[3]));
    }
    for (x, y) in a[split..].iter().zip(&b[split..]) {
        s0.plus_assign(&x.times(y));
    }
    s0.plus_assign(&s1);
    s2.plus_assign(&s3);
    s0.plus_assign(&s2);
    s0
}

/// A semiring whose ⊕ selects: the sum of a set of values is attained by
/// (at least) one of them. Used for Viterbi backtrace: to rebuild a best
/// derivation, the engine looks for the summands that [`attains`](Selective::attains)
/// the value of the whole.
pub trait Selective: Semiring {
    /// Whether this summand attains `total`, the ⊕-sum it is part of
    /// (for max-plus: is equal to it; for max-count: has the same score).
    /// Never true when `self` is 𝟘.
    fn attains(&self, total: &Self) -> bool;
}

/// A semiring whose ⊗ commutes: a ⊗ b = b ⊗ a for all a, b.
///
/// This is what the outside pass needs: the outside value of an item is the
/// ⊕-sum, over the derivations of the whole input that contain it, of the
/// ⊗-product of everything *but* the item, and with a commutative ⊗ that
/// product can be formed in any order (Goodman 1999, *Semiring Parsing*).
/// Then inside ⊗ outside of an arc item is the ⊕-sum over the
/// derivations that contain the arc ([`crate::engine::Parser::arc_sums`]).
/// Every semiring of this module but [`Lexicographic`] implements it.
pub trait Commutative: Semiring {}

/// A commutative semiring in which every value but 𝟘 has a ⊗-inverse
/// (a semifield): `a.divide(b) ⊗ b = a` for b ≠ 𝟘.
///
/// Dividing the sum over the derivations that contain an arc by the sum over
/// all derivations gives the arc's marginal ([`crate::engine::Parser::marginals`]):
/// in [`LogSumExp`] the log of the probability, under the Gibbs distribution
/// p(t) ∝ ∏ exp(w(arc)), that the tree contains the arc.
pub trait Semifield: Commutative {
    /// `self ⊗ by⁻¹`, for `by` ≠ 𝟘.
    fn divide(&self, by: &Self) -> Self;
}

/// A selective semiring whose ⊕ is the maximum of a total order that ⊗
/// preserves: a ≤ b ⇒ a ⊗ c ≤ b ⊗ c (the monotonicity that the lazy k-best
/// algorithm of Huang & Chiang 2005, *Better k-best Parsing*, needs).
/// Then the k best derivations of an item are built from the best
/// derivations of its parts ([`crate::engine::Parser::k_best`]).
pub trait Monotone: Selective {
    /// The order: `Greater` when `self` is better than `other`.
    fn order(&self, other: &Self) -> std::cmp::Ordering;
}

/// A semiring whose values are proportional to non-negative reals, so that
/// the summands of a ⊕-sum can be drawn with probability proportional to
/// their value ([`crate::engine::Parser::sample`]).
///
/// Law: for summands x₁ … xₖ of `total` = x₁ ⊕ … ⊕ xₖ ≠ 𝟘, the shares
/// `xᵢ.share(total)` are ≥ 0 and sum to 1 (up to rounding). In [`LogSumExp`]
/// the share is exp(x − total); in [`MaxCount`] it is the fraction of the
/// optimal derivations that x holds (0 if x is not optimal), so sampling in
/// max-count draws an optimal derivation uniformly.
pub trait Sampling: Semiring {
    /// The fraction of `total` that `self` holds, in [0, 1].
    fn share(&self, total: &Self) -> f64;
}

/// The semifield laws on every pair and triple of `samples`, up to `close`:
/// units, annihilation, commutativity of ⊕ and ⊗, division undoing ⊗,
/// distributivity and associativity. For the law tests of each semiring.
#[cfg(test)]
pub(crate) fn check_semifield_laws<S: Semifield + Copy + std::fmt::Display>(
    samples: &[S],
    close: impl Fn(S, S) -> bool,
) {
    for &a in samples {
        assert!(close(a.times(&S::one()), a));
        assert!(close(a.plus(&S::zero()), a));
        assert!(a.times(&S::zero()).is_zero());
        for &b in samples {
            assert!(close(a.plus(&b), b.plus(&a)), "{a} {b}");
            assert!(close(a.times(&b), b.times(&a)));
            if !b.is_zero() {
                assert!(close(a.divide(&b).times(&b), a), "{a} / {b}");
            }
            for &c in samples {
                assert!(close(a.times(&b.plus(&c)), a.times(&b).plus(&a.times(&c))), "{a} {b} {c}");
                assert!(close(a.times(&b).times(&c), a.times(&b.times(&c))));
                assert!(close(a.plus(&b).plus(&c), a.plus(&b.plus(&c))), "{a} {b} {c}");
            }
        }
    }
}
