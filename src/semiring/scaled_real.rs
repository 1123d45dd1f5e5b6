//! Non-negative reals with a scale: ⊕ = +, ⊗ = ×, 𝟘 = 0, 𝟙 = 1, each value
//! kept as a mantissa m and a level q standing for m · 2^(512·q).
//!
//! The probability-space twin of [`LogSumExp`](super::LogSumExp): the same
//! sums, but ⊕ is an addition and ⊗ a multiplication instead of an `exp`
//! and a `ln` per term, and no value overflows or underflows however large
//! or small (the level is an `i64`; the mantissa stays in [2⁻²⁵⁶, 2²⁵⁶)).
//! Values of level 0 — all of them when the weights are within e^±170 of 1
//! and a sentence's totals within 2^±256 — add and multiply as plain f64s;
//! [`dot`](Semiring::dot) checks the levels with two integer ORs per term
//! and rescales only when some level is not 0. This is
//! the scaling of the forward algorithm (Rabiner 1989) kept per value, so
//! the engine, which never names a semiring, needs no change.
//!
//! Each value has one representation (zero is (0, 0)), so `==` compares
//! values. The laws hold up to floating-point rounding; [`ScaledReal::ln`]
//! and [`ScaledReal::from_ln`] convert from and to log space, the latter
//! with one `exp`.

use super::{Commutative, Sampling, Semifield, Semiring};
use std::fmt;

/// m · 2^(512·q), with m in [2⁻²⁵⁶, 2²⁵⁶) or zero (then q = 0).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ScaledReal {
    mantissa: f64,
    level: i64,
}

/// 2^512, the ratio between two levels.
const STEP: f64 = f64::from_bits((1023 + 512) << 52);
/// 2^-512.
const INV_STEP: f64 = f64::from_bits((1023 - 512) << 52);
/// 2^256: mantissas are below.
const HIGH: f64 = f64::from_bits((1023 + 256) << 52);
/// 2^-256: non-zero mantissas are at least this.
const LOW: f64 = f64::from_bits((1023 - 256) << 52);
/// 512 · ln 2, in two parts (Cody & Waite 1980): `LEVEL_LN_HI` has its low
/// 32 bits zero, so q · `LEVEL_LN_HI` is exact for |q| < 2²⁰.
const LEVEL_LN_HI: f64 = f64::from_bits((512.0 * std::f64::consts::LN_2).to_bits() & !0xffff_ffff);
const LEVEL_LN_LO: f64 = 512.0 * std::f64::consts::LN_2 - LEVEL_LN_HI;

impl ScaledReal {
    /// The value m · 2^(512·q), normalized. Inline for the common case of a
    /// mantissa already in range.
    #[inline(always)]
    fn normalized(mantissa: f64, level: i64) -> Self {
        if (LOW..HIGH).contains(&mantissa) {
            ScaledReal { mantissa, level }
        } else if mantissa == 0.0 {
            Self::zero()
        } else {
            Self::renormalized(mantissa, level)
        }
    }

    #[cold]
    #[inline(never)]
    fn renormalized(mut mantissa: f64, mut level: i64) -> Self {
        if mantissa == 0.0 {
            return Self::zero();
        }
        debug_assert!(mantissa.is_finite() && mantissa > 0.0, "mantissa {mantissa}");
        if !mantissa.is_finite() {
            return ScaledReal { mantissa, level };
        }
        while mantissa >= HIGH {
            mantissa *= INV_STEP;
            level += 1;
        }
        while mantissa < LOW {
            mantissa *= STEP;
            level -= 1;
        }
        ScaledReal { mantissa, level }
    }

    /// eˣ, with one `exp`; 𝟘 for x = −∞. `x` must not be NaN or +∞.
    #[inline]
    pub fn from_ln(x: f64) -> Self {
        if x == f64::NEG_INFINITY {
            return Self::zero();
        }
        let level = (x / (LEVEL_LN_HI + LEVEL_LN_LO)).round();
        let rest = (x - level * LEVEL_LN_HI) - level * LEVEL_LN_LO;
        Self::normalized(rest.exp(), level as i64)
    }

    /// The real number x ≥ 0 (finite).
    pub fn new(x: f64) -> Self {
        Self::normalized(x, 0)
    }

    /// ln of the value, −∞ for 𝟘.
    #[inline]
    pub fn ln(&self) -> f64 {
        if self.mantissa == 0.0 {
            return f64::NEG_INFINITY;
        }
        let level = self.level as f64;
        self.mantissa.ln() + level * LEVEL_LN_HI + level * LEVEL_LN_LO
    }

    /// The value as an f64: +∞ above f64::MAX, 0 below the smallest subnormal.
    #[inline]
    pub fn to_f64(&self) -> f64 {
        match self.level {
            0 => self.mantissa,
            1 => self.mantissa * STEP,
            -1 => self.mantissa * INV_STEP,
            -2 => self.mantissa * INV_STEP * INV_STEP,
            l if l > 0 => f64::INFINITY,
            _ => 0.0,
        }
    }

    /// ⊕ᵢ aᵢ ⊗ bᵢ when some level is not 0: each product is brought to the
    /// highest level of a non-zero product first. Products three or more levels
    /// below it are below 2⁻⁵¹² of the largest product and are dropped.
    #[cold]
    #[inline(never)]
    fn dot_rescaled(a: &[Self], b: &[Self]) -> Self {
        let top = a
            .iter()
            .zip(b)
            .filter(|(x, y)| x.mantissa != 0.0 && y.mantissa != 0.0)
            .map(|(x, y)| x.level + y.level)
            .max();
        let Some(top) = top else { return Self::zero() };
        let mut sum = 0.0;
        for (x, y) in a.iter().zip(b) {
            let product = x.mantissa * y.mantissa;
            sum += match top - (x.level + y.level) {
                0 => product,
                1 => product * INV_STEP,
                2 => product * INV_STEP * INV_STEP,
                _ => 0.0,
            };
        }
        Self::normalized(sum, top)
    }
}

impl Semiring for ScaledReal {
    #[inline]
    fn zero() -> Self {
        ScaledReal { mantissa: 0.0, level: 0 }
    }
    #[inline]
    fn one() -> Self {
        ScaledReal { mantissa: 1.0, level: 0 }
    }
    #[inline]
    fn plus_assign(&mut self, other: &Self) {
        if self.level == other.level {
            *self = Self::normalized(self.mantissa + other.mantissa, self.level);
        } else if self.mantissa == 0.0 {
            *self = *other;
        } else if other.mantissa != 0.0 {
            *self = Self::dot_rescaled(&[*self, *other], &[Self::one(), Self::one()]);
        }
    }
    #[inline]
    fn times(&self, other: &Self) -> Self {
        Self::normalized(self.mantissa * other.mantissa, self.level + other.level)
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.mantissa == 0.0
    }
    /// Σᵢ aᵢ·bᵢ as plain f64 products and sums in four chains when every
    /// level is 0 (checked with two integer ORs per term, off the chains),
    /// else with each product brought to the highest level. No `exp`, no `ln`.
    #[inline(always)]
    fn dot(a: &[Self], b: &[Self]) -> Self {
        let len = a.len().min(b.len());
        let (a, b) = (&a[..len], &b[..len]);
        let mut levels = 0i64;
        let mut sum = [0.0f64; 4];
        let split = len - len % 4;
        for (x, y) in a[..split].chunks_exact(4).zip(b[..split].chunks_exact(4)) {
            for k in 0..4 {
                sum[k] += x[k].mantissa * y[k].mantissa;
                levels |= x[k].level | y[k].level;
            }
        }
        for (x, y) in a[split..].iter().zip(&b[split..]) {
            sum[0] += x.mantissa * y.mantissa;
            levels |= x.level | y.level;
        }
        if levels != 0 {
            return Self::dot_rescaled(a, b);
        }
        Self::normalized((sum[0] + sum[1]) + (sum[2] + sum[3]), 0)
    }
}

impl fmt::Display for ScaledReal {
    /// The value as `exp(ln)`, e.g. `exp(-1000000)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exp({})", self.ln())
    }
}

impl Commutative for ScaledReal {}

impl Semifield for ScaledReal {
    #[inline]
    fn divide(&self, by: &Self) -> Self {
        Self::normalized(self.mantissa / by.mantissa, self.level - by.level)
    }
}

impl Sampling for ScaledReal {
    #[inline]
    fn share(&self, total: &Self) -> f64 {
        if self.is_zero() {
            0.0
        } else {
            self.divide(total).to_f64()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: ScaledReal, b: ScaledReal) -> bool {
        a == b || (a.ln() - b.ln()).abs() <= 1e-12 * a.ln().abs().max(1.0)
    }

    fn samples() -> [ScaledReal; 8] {
        [
            ScaledReal::zero(),
            ScaledReal::one(),
            ScaledReal::new(0.3),
            ScaledReal::from_ln(700.0),
            ScaledReal::from_ln(-800.0),
            ScaledReal::from_ln(1e6),
            ScaledReal::from_ln(-1e6),
            ScaledReal::from_ln(177.5),
        ]
    }

    #[test]
    fn laws_on_samples() {
        crate::semiring::check_semifield_laws(&samples(), close);
    }

    #[test]
    fn converts_from_and_to_log_space() {
        for x in [0.0, 1.0, -1.0, 177.4, 177.5, 354.9, -354.9, 709.0, 745.0, -745.0, 1e6, -1e6, 3e8, -3e8] {
            let v = ScaledReal::from_ln(x);
            assert!((v.ln() - x).abs() <= 1e-15 * x.abs().max(1.0), "{x}: {}", v.ln());
            assert!((LOW..HIGH).contains(&v.mantissa));
        }
        assert!(ScaledReal::from_ln(f64::NEG_INFINITY).is_zero());
        assert_eq!(ScaledReal::from_ln(f64::NEG_INFINITY), ScaledReal::new(0.0));
        assert_eq!(ScaledReal::new(2.5).to_f64(), 2.5);
        assert_eq!(ScaledReal::from_ln(800.0).to_f64(), f64::INFINITY);
        assert_eq!(ScaledReal::from_ln(-800.0).to_f64(), 0.0);
        assert!((ScaledReal::from_ln(-700.0).to_f64() / (-700f64).exp() - 1.0).abs() < 1e-13);
    }

    #[test]
    fn dot_equals_the_sum_of_products() {
        let xs = samples();
        for len in 0..9 {
            for shift in 0..8 {
                let a: Vec<_> = (0..len).map(|i| xs[(i + shift) % 8]).collect();
                let b: Vec<_> = (0..len).map(|i| xs[(i * 3 + 1) % 8]).collect();
                let plain = a.iter().zip(&b).fold(ScaledReal::zero(), |acc, (x, y)| acc.plus(&x.times(y)));
                let dot = ScaledReal::dot(&a, &b);
                assert!(close(dot, plain), "{dot} {plain}");
            }
        }
    }

    #[test]
    fn agrees_with_log_sum_exp() {
        use crate::semiring::LogSumExp;
        let logs = [-1e6, -800.0, -3.0, 0.0, 2.5, 177.0, 178.0, 700.0, 1e6];
        for &x in &logs {
            for &y in &logs {
                let s = ScaledReal::from_ln(x).plus(&ScaledReal::from_ln(y));
                let l = LogSumExp(x).plus(&LogSumExp(y));
                assert!((s.ln() - l.0).abs() <= 1e-15 * l.0.abs().max(1.0), "{x} {y}: {} vs {}", s.ln(), l.0);
                // The log-space share exp(x − l) carries the rounding of l.
                let share = ScaledReal::from_ln(x).share(&s);
                assert!((share - LogSumExp(x).share(&l)).abs() <= 1e-12 + 1e-15 * l.0.abs(), "{x} {y}");
            }
        }
    }
}
