//! The step scorer's arithmetic in forms the compiler vectorises: tanh of
//! a slice and the dot product. Both agree with the exact values to f32's
//! rounding (tanh: to 1 ulp, in practice correctly rounded), as libm's and
//! PyTorch's do.

/// `x[i] = tanh(x[i] + bias[i])` for each i (the lengths equal).
pub(super) fn tanh_biased(x: &mut [f32], bias: &[f32]) {
    for (v, b) in x.iter_mut().zip(bias) {
        *v = tanh(*v + b);
    }
}

/// tanh in f64, rounded to f32: the odd series x − x³/3 + 2x⁵/15 −
/// 17x⁷/315 below |x| = 0.01 (next term < 10⁻¹⁵ relative), else
/// 1 − 2 / (e^{2|x|} + 1) with e^y from a degree-13 Taylor polynomial
/// after a Cody–Waite reduction (error < 10⁻¹⁶); branch-free, so a loop of
/// it vectorises.
#[inline(always)]
fn tanh(x: f32) -> f32 {
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52: adding it rounds to an integer
    let x = f64::from(x);
    let a = x.abs();
    // e^y for y = 2|x| ≤ 40 (tanh(20) is 1 in f32 and f64 alike).
    let y = (2.0 * a).min(40.0);
    let shifted = y * std::f64::consts::LOG2_E + ROUND;
    let k = shifted - ROUND;
    let r = (y - k * LN2_HI) - k * LN2_LO;
    let mut p = 1.0 / 6_227_020_800.0;
    for c in [
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = p * r + c;
    }
    // 2^k from the bits of k + ROUND, whose low bits hold k (no
    // float-to-integer conversion, which would stop vectorisation).
    let two_k = f64::from_bits((shifted.to_bits().wrapping_sub(ROUND.to_bits()) + 1023) << 52);
    let e = p * two_k;
    let far = 1.0 - 2.0 / (e + 1.0);
    let x2 = a * a;
    let near = a * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * (17.0 / 315.0))));
    let t = if a < 0.01 { near } else { far };
    t.copysign(x) as f32
}

/// The first of the best-scoring labels 0 … `labels` − 1 of an arc whose
/// head is the root or not (`from_root`): with a label `root`
/// (`root_label`), exactly the arcs from the root have it. `None`: no label
/// to choose from.
pub(super) fn best_label(
    labels: usize,
    root_label: Option<usize>,
    from_root: bool,
    score: impl Fn(usize) -> f32,
) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for l in (0..labels).filter(|&l| root_label.is_none_or(|root| from_root == (l == root))) {
        let s = score(l);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((l, s));
        }
    }
    best.map(|(l, _)| l)
}

/// The dot product of two slices of one length, summed in 16 lanes.
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in ulps of two finite f32 of one sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn tanh_is_within_an_ulp_of_the_exact_value_and_mostly_equal() {
        // Every 97th f32 of [−12, 12] (about 10⁷ values), and the edges.
        let (mut differ, mut n) = (0u32, 0u32);
        let mut check = |x: f32| {
            let exact = (f64::from(x)).tanh() as f32;
            let mine = tanh(x);
            assert!(ulps(mine, exact) <= 1, "tanh({x:e}) = {mine:e}, exactly {exact:e}");
            differ += u32::from(mine != exact);
            n += 1;
        };
        let top = 12f32.to_bits();
        for bits in (0..top).step_by(97) {
            check(f32::from_bits(bits));
            check(-f32::from_bits(bits));
        }
        for x in [0.0, -0.0, 0.01, -0.01, 0.009_999_999, 20.0, 50.0, -1e30, f32::MIN_POSITIVE, 1e-40] {
            check(x);
        }
        assert!(differ * 100_000 < n, "{differ} of {n} not correctly rounded");
    }

    #[test]
    fn dot_sums_every_product() {
        for len in [0, 1, 15, 16, 17, 100, 250] {
            let a: Vec<f32> = (0..len).map(|i| (i % 7) as f32 - 3.0).collect();
            let b: Vec<f32> = (0..len).map(|i| (i % 5) as f32 * 0.5).collect();
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), exact, "length {len}");
        }
    }
}
