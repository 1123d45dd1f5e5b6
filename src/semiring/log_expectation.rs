//! The expectation semiring in log space: pairs (ℓ, m) standing for
//! (p, r) = (eˡ, eˡ·m) of Eisner's (2002) first-order expectation semiring,
//! ⊕: (p₁ + p₂, r₁ + r₂), ⊗: (p₁p₂, p₁r₂ + p₂r₁), 𝟘 = (0, 0), 𝟙 = (1, 0).
//!
//! Kept as ℓ = ln p and m = r / p (the mean of the additive function under
//! the derivations summed so far), the operations become
//!
//! * ⊗: (ℓ₁ + ℓ₂, m₁ + m₂);
//! * ⊕: ℓ = ln(eˡ¹ + eˡ²), m = m₁·eˡ¹⁻ˡ + m₂·eˡ²⁻ˡ (a convex combination);
//! * 𝟘 = (−∞, 0), 𝟙 = (0, 0),
//!
//! so no value overflows or underflows however large or small the weights:
//! ℓ is a log-sum-exp and m a weighted mean. With arc weights
//! (s(h, d), f(h, d)) the engine's value is (log Z, E[f]) where
//! Z = Σₜ ∏ exp s and E[f] = Σₜ p(t) Σ_{arcs of t} f under
//! p(t) ∝ ∏ exp s: with f = s, the entropy of p is log Z − E[s]; with
//! f = [arc in gold tree], E[f] is the expected number of gold arcs
//! (Li & Eisner 2009). The laws hold up to floating-point rounding.

use super::{Commutative, Sampling, Semifield, Semiring};
use std::fmt;

/// A log-weight and the mean of an additive function over the derivations
/// it sums.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct LogExpectation {
    /// ln of the total weight (−∞: no derivation).
    pub log: f64,
    /// The weighted mean of the additive function (0 for 𝟘).
    pub mean: f64,
}

impl LogExpectation {
    /// One arc (or derivation) of weight exp(`log`) on which the additive
    /// function is `value`. 𝟘 if `log` is −∞.
    #[inline]
    pub fn new(log: f64, value: f64) -> Self {
        if log == f64::NEG_INFINITY {
            Self::zero()
        } else {
            LogExpectation { log, mean: value }
        }
    }
    /// ln Z, the log of the total weight.
    pub fn log_partition(&self) -> f64 {
        self.log
    }
    /// E[f] under the distribution proportional to the weights.
    pub fn expectation(&self) -> f64 {
        self.mean
    }
}

impl Semiring for LogExpectation {
    #[inline]
    fn zero() -> Self {
        LogExpectation { log: f64::NEG_INFINITY, mean: 0.0 }
    }
    #[inline]
    fn one() -> Self {
        LogExpectation { log: 0.0, mean: 0.0 }
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        if other.log == f64::NEG_INFINITY {
            return;
        }
        if self.log == f64::NEG_INFINITY {
            *self = *other;
            return;
        }
        let (hi, lo) = if self.log >= other.log { (*self, *other) } else { (*other, *self) };
        // The lighter side's weight relative to the heavier one, in (0, 1].
        let rel = (lo.log - hi.log).exp();
        let total = 1.0 + rel;
        self.log = hi.log + rel.ln_1p();
        self.mean = (hi.mean + lo.mean * rel) / total;
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        if self.log == f64::NEG_INFINITY || other.log == f64::NEG_INFINITY {
            return Self::zero();
        }
        LogExpectation { log: self.log + other.log, mean: self.mean + other.mean }
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.log == f64::NEG_INFINITY
    }
    /// ⊕ᵢ aᵢ ⊗ bᵢ in two passes, as [`LogSumExp`](super::LogSumExp) does:
    /// the largest log-weight m, then the weights eᵢ = exp(ℓᵢ − m) ≤ 1 and
    /// the result (m + ln Σ eᵢ, Σ eᵢ·meanᵢ / Σ eᵢ): one `exp` per term.
    #[inline]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        let len = a.len().min(b.len());
        let (a, b) = (&a[..len], &b[..len]);
        let mut max = f64::NEG_INFINITY;
        for (x, y) in a.iter().zip(b) {
            max = max.max(x.log + y.log);
        }
        if max == f64::NEG_INFINITY {
            return Self::zero();
        }
        let (mut weight, mut mean) = (0.0, 0.0);
        for (x, y) in a.iter().zip(b) {
            let e = (x.log + y.log - max).exp();
            if e > 0.0 {
                weight += e;
                mean += e * (x.mean + y.mean);
            }
        }
        LogExpectation { log: max + weight.ln(), mean: mean / weight }
    }
}

impl Commutative for LogExpectation {}

impl Semifield for LogExpectation {
    #[inline]
    fn divide(&self, by: &Self) -> Self {
        if self.is_zero() {
            return Self::zero();
        }
        LogExpectation { log: self.log - by.log, mean: self.mean - by.mean }
    }
}

impl Sampling for LogExpectation {
    #[inline]
    fn share(&self, total: &Self) -> f64 {
        if self.is_zero() {
            0.0
        } else {
            (self.log - total.log).exp()
        }
    }
}

impl fmt::Display for LogExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(log {}, mean {})", self.log, self.mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: LogExpectation, b: LogExpectation) -> bool {
        let near = |x: f64, y: f64| x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0);
        near(a.log, b.log) && near(a.mean, b.mean)
    }

    fn samples() -> [LogExpectation; 6] {
        [
            LogExpectation::zero(),
            LogExpectation::one(),
            LogExpectation::new(0.3, 2.0),
            LogExpectation::new(-1.5, -0.5),
            LogExpectation::new(700.0, 1.0),
            LogExpectation::new(-800.0, 3.0),
        ]
    }

    #[test]
    fn laws_on_samples() {
        crate::semiring::check_semifield_laws(&samples(), close);
    }

    #[test]
    fn dot_equals_the_sum_of_products() {
        let xs = samples();
        for a in xs {
            for b in xs {
                let (u, v) = ([a, b, LogExpectation::new(1.0, 2.0), a], [b, a, a, LogExpectation::new(-3.0, 0.5)]);
                let plain = u.iter().zip(&v).fold(LogExpectation::zero(), |acc, (x, y)| acc.plus(&x.times(y)));
                assert!(close(LogExpectation::dot(&u, &v), plain), "{a} {b}");
            }
        }
        assert!(LogExpectation::dot(&[], &[]).is_zero());
    }

    #[test]
    fn matches_the_real_expectation_semiring() {
        // (p, r) = (e^l, e^l m): two derivations of weights 2 and 6 with
        // values 1 and 5 give p = 8, r = 2 + 30, mean 4.
        let a = LogExpectation::new(2f64.ln(), 1.0);
        let b = LogExpectation::new(6f64.ln(), 5.0);
        let s = a.plus(&b);
        assert!((s.log - 8f64.ln()).abs() < 1e-12);
        assert!((s.mean - 4.0).abs() < 1e-12);
        // ⊗: p = 12, r = 2·30 + 6·2 = 72, so the mean is 72 / 12 = 1 + 5.
        let t = a.times(&b);
        assert!((t.log - 12f64.ln()).abs() < 1e-12 && (t.mean - 6.0).abs() < 1e-12);
    }
}
