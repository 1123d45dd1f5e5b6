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

mod boolean;
mod counting;
mod lexicographic;
mod log_sum_exp;
mod max_count;
mod max_plus;

pub use boolean::Boolean;
pub use counting::{CheckedCount, Count};
pub use lexicographic::Lexicographic;
pub use log_sum_exp::LogSumExp;
pub use max_count::MaxCount;
pub use max_plus::MaxPlus;

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
