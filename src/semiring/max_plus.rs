//! Max-plus over integers with −∞: ⊕ = max, ⊗ = +, 𝟘 = −∞, 𝟙 = 0 (the "tropical" semiring of best scores).

use super::{Selective, Semiring};
use num_traits::{Bounded, PrimInt, Signed};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A best score: an integer, or −∞ (no derivation). Nederhof (2019), Sec. 3,
/// is this semiring over the non-negative integers.
///
/// # Representation
///
/// So that ⊗ and ⊕ are a plain `+` and `max` (branch-free; the engine's inner
/// sums vectorise), −∞ is not a single value but every value at or below
/// `T::MIN / 4`, and ⊗ clamps its result at `T::MIN / 2`:
/// `a ⊗ b = max(a + b, MIN/2)`. Stored values therefore never go below
/// MIN/2, so a sum of two never overflows, and −∞ ⊗ f stays at or below
/// MIN/2 + f, which is still −∞ as long as f < MAX/4. Hence the one
/// condition: **finite scores, and the scores of all partial derivations,
/// lie strictly between `T::MIN / 4` and `T::MAX / 4`** (for `i32`, ±2²⁹;
/// for `i64`, ±2⁶¹); scores bounded by (number of arcs) × (largest weight)
/// easily do. Equality, order and hashing treat all −∞ values as one.
#[derive(Clone, Copy)]
pub struct MaxPlus<T = i64>(T);

impl<T: PrimInt + Signed> MaxPlus<T> {
    /// max(MIN/2, maxᵢ (aᵢ + bᵢ)) in four independent chains, for
    /// [`Semiring::dot`] over 64-bit scores. Out of line: inlined into the
    /// engine's span loop three times per span, it made that loop 5–8 %
    /// slower at n = 20–40 (register pressure; `benches/README.md`). O(len).
    #[inline(never)]
    fn dot4(a: &[Self], b: &[Self]) -> Self {
        let len = a.len().min(b.len());
        let (a, b) = (&a[..len], &b[..len]);
        let split = len - len % 4;
        let mut s = [Self::floor(); 4];
        for (x, y) in a[..split].chunks_exact(4).zip(b[..split].chunks_exact(4)) {
            for k in 0..4 {
                s[k] = s[k].max(x[k].0 + y[k].0);
            }
        }
        for (x, y) in a[split..].iter().zip(&b[split..]) {
            s[0] = s[0].max(x.0 + y.0);
        }
        MaxPlus(s[0].max(s[1]).max(s[2].max(s[3])))
    }
    /// The canonical −∞ that ⊗ clamps to: `T::MIN / 2`.
    #[inline]
    fn floor() -> T {
        <T as Bounded>::min_value() / (T::one() + T::one())
    }
    /// Values at or below this are −∞: `T::MIN / 4`.
    #[inline]
    fn threshold() -> T {
        let two = T::one() + T::one();
        <T as Bounded>::min_value() / (two + two)
    }
    /// −∞, the semiring's 𝟘.
    #[inline]
    pub fn neg_inf() -> Self {
        MaxPlus(Self::floor())
    }
    /// A finite score; it must lie strictly within ±`T::MAX / 4` (checked
    /// in debug builds).
    #[inline]
    pub fn new(score: T) -> Self {
        debug_assert!(score > Self::threshold() && score < -Self::threshold(), "max-plus score out of range");
        MaxPlus(score)
    }
    /// The score, or `None` for −∞.
    #[inline]
    pub fn finite(self) -> Option<T> {
        (self.0 > Self::threshold()).then_some(self.0)
    }
    /// The canonical representative (−∞ as `T::MIN / 2`).
    #[inline]
    fn canonical(self) -> T {
        if self.0 > Self::threshold() {
            self.0
        } else {
            Self::floor()
        }
    }
}

impl<T: PrimInt + Signed + fmt::Display> Semiring for MaxPlus<T> {
    #[inline]
    fn zero() -> Self {
        Self::neg_inf()
    }
    #[inline]
    fn one() -> Self {
        MaxPlus(T::zero())
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        self.0 = self.0.max(other.0);
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        MaxPlus((self.0 + other.0).max(Self::floor()))
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.0 <= Self::threshold()
    }
    /// max(MIN/2, maxᵢ (aᵢ + bᵢ)): the clamp of ⊗ taken once, by starting
    /// the maximum at MIN/2 (stored values are ≥ MIN/2, so no sum
    /// overflows), leaving a plain max-reduction of sums. For scores of 32
    /// bits or fewer one chain, which the compiler vectorises; for 64-bit
    /// scores, from four terms on, four independent chains (the CPU
    /// overlaps them; 64-bit maxima are not vectorised on the default
    /// target; [`MaxPlus::dot4`]): 5–12 % faster than four chains of
    /// clamped ⊗ on sentences of 10–160 words (`benches/README.md`).
    #[inline(always)]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        debug_assert_eq!(a.len(), b.len());
        if std::mem::size_of::<T>() >= 8 && a.len() >= 4 {
            return Self::dot4(a, b);
        }
        MaxPlus(a.iter().zip(b).fold(Self::floor(), |acc, (x, y)| acc.max(x.0 + y.0)))
    }
}

impl<T: PrimInt + Signed + fmt::Display> Selective for MaxPlus<T> {
    #[inline]
    fn attains(&self, total: &Self) -> bool {
        !self.is_zero() && self.0 == total.0
    }
}

impl<T: PrimInt + Signed> PartialEq for MaxPlus<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.canonical() == other.canonical()
    }
}

impl<T: PrimInt + Signed> Eq for MaxPlus<T> {}

impl<T: PrimInt + Signed> PartialOrd for MaxPlus<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: PrimInt + Signed> Ord for MaxPlus<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.canonical().cmp(&other.canonical())
    }
}

impl<T: PrimInt + Signed + Hash> Hash for MaxPlus<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.canonical().hash(state);
    }
}

impl<T: PrimInt + Signed + fmt::Display> fmt::Display for MaxPlus<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.finite() {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("-inf"),
        }
    }
}

impl<T: PrimInt + Signed + fmt::Display> fmt::Debug for MaxPlus<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<T: PrimInt + Signed + fmt::Display> super::Commutative for MaxPlus<T> {}

impl<T: PrimInt + Signed + fmt::Display> super::Monotone for MaxPlus<T> {
    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        self.cmp(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> [MaxPlus<i64>; 5] {
        [
            MaxPlus::neg_inf(),
            MaxPlus::new(0),
            MaxPlus::new(3),
            MaxPlus::new(-2),
            MaxPlus::neg_inf().times(&MaxPlus::new(7)),
        ]
    }

    #[test]
    fn laws_on_samples() {
        for a in samples() {
            assert_eq!(a.times(&MaxPlus::one()), a);
            assert_eq!(a.plus(&MaxPlus::zero()), a);
            assert!(a.times(&MaxPlus::zero()).is_zero());
            for b in samples() {
                assert_eq!(a.plus(&b), b.plus(&a));
                assert_eq!(a.times(&b), b.times(&a));
                for c in samples() {
                    assert_eq!(a.times(&b.plus(&c)), a.times(&b).plus(&a.times(&c)));
                    assert_eq!(a.times(&b).times(&c), a.times(&b.times(&c)));
                    assert_eq!(a.plus(&b).plus(&c), a.plus(&b.plus(&c)));
                }
            }
        }
        assert_eq!(MaxPlus::new(2i64).times(&MaxPlus::new(3)), MaxPlus::new(5));
        assert_eq!(format!("{}", MaxPlus::<i64>::neg_inf()), "-inf");
    }

    #[test]
    fn neg_inf_absorbs_long_products_of_finite_scores() {
        // −∞ times a million ones is still −∞, in i32 too.
        let mut v = MaxPlus::<i32>::neg_inf();
        for _ in 0..1_000_000 {
            v = v.times(&MaxPlus::new(1));
        }
        assert!(v.is_zero());
        assert_eq!(v, MaxPlus::neg_inf());
        assert_eq!(v.finite(), None);
        let both = MaxPlus::<i32>::neg_inf().times(&MaxPlus::neg_inf());
        assert!(both.is_zero());
        assert_eq!(MaxPlus::new(5).plus(&v), MaxPlus::new(5));
    }

    /// The ⊕ of the ⊗ products, one term at a time: what `dot` must equal.
    fn plain_dot<T: PrimInt + Signed + fmt::Display>(a: &[MaxPlus<T>], b: &[MaxPlus<T>]) -> MaxPlus<T> {
        a.iter().zip(b).fold(MaxPlus::zero(), |acc, (x, y)| acc.plus(&x.times(y)))
    }

    proptest::proptest! {
        /// `dot` (four chains for 64 bits, one clamped chain below) equals the
        /// term-by-term sum, −∞ operands and products included, at every
        /// length around the four-term split.
        #[test]
        fn dot_equals_the_plain_sum(
            pairs in proptest::collection::vec((proptest::option::weighted(0.8, -1000i64..1000), proptest::option::weighted(0.8, -1000i64..1000)), 0..23),
        ) {
            let value = |x: Option<i64>| x.map_or(MaxPlus::neg_inf(), MaxPlus::new);
            let (a, b): (Vec<_>, Vec<_>) = pairs.iter().map(|&(x, y)| (value(x), value(y))).unzip();
            let d = MaxPlus::dot(&a, &b);
            proptest::prop_assert_eq!(d, plain_dot(&a, &b));
            proptest::prop_assert!(d.0 >= MaxPlus::<i64>::floor());
            let narrow = |v: &[MaxPlus<i64>]| -> Vec<MaxPlus<i32>> {
                v.iter().map(|x| x.finite().map_or(MaxPlus::neg_inf(), |f| MaxPlus::new(f as i32))).collect()
            };
            let (a32, b32) = (narrow(&a), narrow(&b));
            proptest::prop_assert_eq!(MaxPlus::dot(&a32, &b32), plain_dot(&a32, &b32));
        }
    }
}
