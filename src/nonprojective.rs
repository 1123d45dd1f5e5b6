//! Log-partition and arc marginals over *all* dependency trees, projective
//! or not, by the Matrix-Tree theorem (Koo, Globerson, Carreras & Collins
//! 2007, *Structured Prediction Models via the Matrix-Tree Theorem*; Smith &
//! Smith 2007), beside the grammar-based projective ones of
//! [`crate::distribution`], so that the two tree classes can be compared on
//! the same scores.
//!
//! Scores are an (n+1)×(n+1) row-major matrix of log-potentials, row = head,
//! column = dependent, position 0 the artificial root: s(h, d) for the arc
//! h → d (the diagonal and column 0 are ignored; −∞ forbids an arc). A tree
//! t has weight ∏_{(h,d) ∈ t} exp s(h, d) and Z = Σₜ weight(t), over
//!
//! * [`Roots::Multi`]: every tree rooted at 0 (the root may have any number
//!   of children) — Z = det L with the Laplacian
//!   L[m][m] = Σ_{h ≠ m} θ(h, m), L[h][m] = −θ(h, m) over the words 1 … n,
//!   θ = exp s (Koo et al. 2007);
//! * [`Roots::Single`]: the trees in which the root has exactly one child —
//!   the first row of L, without the root's potentials on the diagonal,
//!   replaced by the root potentials θ(0, m) (Koo et al. 2007).
//!
//! The marginal of h → d is θ(h, d) · ∂ log Z / ∂ θ(h, d), read off L⁻¹
//! since ∂ log det L / ∂ L[a][b] = L⁻¹[b][a].
//!
//! # Numerical range
//! Every tree has exactly one arc into each word, so subtracting from the
//! scores of each column d its maximum c_d changes Z by the factor
//! exp Σ c_d and leaves the marginals unchanged: the matrix is built from
//! exp(s − c) ≤ 1, and log Z = log det + Σ c_d, so scores of any size
//! (±10⁶ and beyond) give a finite, correct log Z. What remains is
//! floating-point cancellation inside the determinant when the heaviest
//! arcs of each column form cycles and the trees weigh e^-Δ less than those
//! cycles: the relative error grows like 10⁻¹⁶ · e^Δ.
//!
//! # Complexity
//! O(n³) time (an LU factorisation and, for marginals, an inverse; nalgebra),
//! O(n²) space.

use nalgebra::DMatrix;

/// Which trees are summed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Roots {
    /// The root may have any number of children.
    Multi,
    /// The root has exactly one child (Universal Dependencies' convention).
    Single,
}

/// Errors of [`log_partition`] and [`marginals`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NonProjectiveError {
    /// The scores are not a square matrix with at least the root.
    #[error("the scores must be an (n+1)×(n+1) matrix with n ≥ 0, found {len} entries for size {size}")]
    Shape { len: usize, size: usize },
    /// A score that is NaN or +∞ (−∞ forbids the arc).
    #[error("the score of arc {head} -> {dependent} is {value}: scores must be finite or -inf")]
    NotFinite { head: usize, dependent: usize, value: f64 },
    /// No tree has positive weight (for marginals, which are then undefined).
    #[error("no tree: every tree has weight 0 under these scores (or the root cannot have exactly one child)")]
    NoTree,
    /// The matrices would exceed the memory limit ([`crate::memory`]).
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}

/// The Laplacian built from column-shifted potentials, and Σ c_d.
struct Laplacian {
    matrix: DMatrix<f64>,
    /// θ(h, d) = exp(s(h, d) − c_d), row-major (n+1)×(n+1).
    theta: Vec<f64>,
    shift: f64,
}

fn laplacian(scores: &[f64], size: usize, roots: Roots) -> Result<Option<Laplacian>, NonProjectiveError> {
    if size == 0 || scores.len() != size * size {
        return Err(NonProjectiveError::Shape { len: scores.len(), size });
    }
    let n = size - 1;
    // θ, the Laplacian, its LU factors and inverse: about four size² matrices.
    crate::memory::check(size.checked_mul(size).and_then(|c| c.checked_mul(4)), std::mem::size_of::<f64>(), || {
        format!("the Matrix-Tree matrices for {size} positions")
    })?;
    let mut theta = vec![0.0; size * size];
    let mut shift = 0.0;
    for d in 1..size {
        let mut max = f64::NEG_INFINITY;
        for h in (0..size).filter(|&h| h != d) {
            let s = scores[h * size + d];
            if s.is_nan() || s == f64::INFINITY {
                return Err(NonProjectiveError::NotFinite { head: h, dependent: d, value: s });
            }
            max = max.max(s);
        }
        if max == f64::NEG_INFINITY {
            return Ok(None);
        }
        shift += max;
        for h in (0..size).filter(|&h| h != d) {
            theta[h * size + d] = (scores[h * size + d] - max).exp();
        }
    }
    // Words 1 … n at indices 0 … n−1.
    let mut matrix = DMatrix::<f64>::zeros(n, n);
    for d in 1..size {
        let mut diagonal = 0.0;
        for h in 1..size {
            if h != d {
                let t = theta[h * size + d];
                matrix[(h - 1, d - 1)] = -t;
                diagonal += t;
            }
        }
        if roots == Roots::Multi {
            diagonal += theta[d];
        }
        matrix[(d - 1, d - 1)] = diagonal;
    }
    if roots == Roots::Single {
        for d in 1..size {
            matrix[(0, d - 1)] = theta[d];
        }
    }
    Ok(Some(Laplacian { matrix, theta, shift }))
}

/// ln |det| and the LU factors, or `None` if the determinant is not
/// positive (singular in floating point: no tree of positive weight).
fn log_det(matrix: DMatrix<f64>) -> (Option<f64>, nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>) {
    let lu = matrix.lu();
    let mut sign: f64 = lu.p().determinant();
    let mut log = 0.0;
    for v in lu.u().diagonal().iter() {
        if *v == 0.0 || !v.is_finite() {
            return (None, lu);
        }
        sign *= v.signum();
        log += v.abs().ln();
    }
    ((sign > 0.0).then_some(log), lu)
}

/// ln Z over the non-projective trees of `roots` for an (n+1)×(n+1)
/// row-major score matrix of `size` = n + 1 rows (see the module
/// documentation); −∞ if no tree has positive weight. n = 0: ln Z = 0 with
/// [`Roots::Multi`] (the empty tree), −∞ with [`Roots::Single`].
///
/// # Errors
/// [`NonProjectiveError::Shape`], [`NonProjectiveError::NotFinite`],
/// [`NonProjectiveError::TooMuchMemory`].
///
/// # Complexity
/// O(n³).
///
/// # Example
/// ```
/// use tabula::nonprojective::{log_partition, Roots};
/// // Two words, every score 0: 3 trees (0→1→2, 0→2→1, 0→1 and 0→2).
/// let z = log_partition(&[0.0; 9], 3, Roots::Multi).unwrap();
/// assert!((z - 3f64.ln()).abs() < 1e-12);
/// // With a single root child: 2 trees.
/// let z = log_partition(&[0.0; 9], 3, Roots::Single).unwrap();
/// assert!((z - 2f64.ln()).abs() < 1e-12);
/// ```
pub fn log_partition(scores: &[f64], size: usize, roots: Roots) -> Result<f64, NonProjectiveError> {
    if size == 1 {
        laplacian(scores, size, roots)?;
        return Ok(if roots == Roots::Multi { 0.0 } else { f64::NEG_INFINITY });
    }
    let Some(l) = laplacian(scores, size, roots)? else {
        return Ok(f64::NEG_INFINITY);
    };
    Ok(log_det(l.matrix).0.map_or(f64::NEG_INFINITY, |log| log + l.shift))
}

/// Arc marginals P(h → d ∈ t) over the non-projective trees of `roots`,
/// written to `out` as an (n+1)×(n+1) row-major matrix (row = head,
/// column = dependent; 0 on the diagonal and in column 0); returns ln Z.
/// Each column d ≥ 1 sums to 1, so the matrix sums to n.
///
/// # Errors
/// [`NonProjectiveError::Shape`], [`NonProjectiveError::NotFinite`],
/// [`NonProjectiveError::NoTree`] if Z = 0, [`NonProjectiveError::TooMuchMemory`].
///
/// # Complexity
/// O(n³).
pub fn marginals(scores: &[f64], size: usize, roots: Roots, out: &mut Vec<f64>) -> Result<f64, NonProjectiveError> {
    let l = laplacian(scores, size, roots)?;
    out.clear();
    out.resize(size * size, 0.0);
    if size == 1 {
        return if roots == Roots::Multi { Ok(0.0) } else { Err(NonProjectiveError::NoTree) };
    }
    let Some(l) = l else {
        return Err(NonProjectiveError::NoTree);
    };
    let (log, lu) = log_det(l.matrix);
    let Some(log) = log else {
        return Err(NonProjectiveError::NoTree);
    };
    let inv = lu.try_inverse().ok_or(NonProjectiveError::NoTree)?;
    let theta = &l.theta;
    for d in 1..size {
        let m = d - 1;
        for h in 0..size {
            if h == d {
                continue;
            }
            let t = theta[h * size + d];
            if t == 0.0 {
                continue;
            }
            let grad = match (roots, h) {
                (Roots::Multi, 0) => inv[(m, m)],
                (Roots::Multi, _) => inv[(m, m)] - inv[(m, h - 1)],
                (Roots::Single, 0) => inv[(m, 0)],
                (Roots::Single, _) => {
                    let diagonal = if d != 1 { inv[(m, m)] } else { 0.0 };
                    let off = if h != 1 { inv[(m, h - 1)] } else { 0.0 };
                    diagonal - off
                }
            };
            out[h * size + d] = t * grad;
        }
    }
    Ok(log + l.shift)
}
