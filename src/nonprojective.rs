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
//! * [`Roots::Single`]: the trees in which the root has exactly one child.
//!
//! # Exact to rounding, whatever the scores
//! L is a column diagonally dominant M-matrix: each column's diagonal
//! exceeds the sum of its off-diagonal magnitudes by the root potential
//! θ(0, m) ≥ 0. Gaussian elimination in the manner of Grassmann, Taksar &
//! Heyman (1985) keeps it one: eliminating word k adds
//! θ(i, k) θ(k, j) / L[k][k] to the off-diagonal magnitudes and
//! θ(0, k) θ(k, j) / L[k][k] to the root potentials of the remaining
//! columns, and *recomputes* each pivot as its column's root potential plus
//! its off-diagonal magnitudes instead of subtracting. Every quantity is
//! then a sum of products and quotients of positive numbers, with no
//! subtraction, so each is correct to a few units of rounding per
//! operation relative to its own size, however much the cycles of the
//! heaviest arcs outweigh the trees (a determinant computed by a pivoted LU
//! loses about Δ / ln 10 digits when they outweigh them by e^Δ): log Z =
//! Σ ln(pivots) + Σ c_d (below) is correct to about
//! 10⁻¹⁶ · (n² + Σ_d |c_d|) absolute and each marginal to about
//! 10⁻¹⁶ · n² (times the largest |score| in log space). The tests hold
//! both to 10⁻⁹ against enumeration and a 200-digit determinant, for
//! scores spread up to 10⁴.
//!
//! Marginals use the same elimination. With word d made absorbing, let
//! q(h, d) be the probability that a walk from h, stepping from each word
//! to a head drawn in proportion to θ, reaches the root before d; then
//! P(h → d) = θ(h, d) q(h, d) / Σ_{h'} θ(h', d) q(h', d) (q(0, d) = 1), the
//! share of the forests rooted at 0 and d in which h hangs from 0. Each
//! eliminated word k records where the walk from it steps next (the root
//! with probability θ'(0, k) / L'[k][k], a remaining word i with
//! θ'(i, k) / L'[k][k]); once every word but d is eliminated, d's root
//! potential is the denominator, and q(k, d) = P(root) + Σᵢ P(i) q(i, d)
//! walks the steps back, again without subtraction. Eliminating one half
//! of the words and recursing into the other, for both halves, leaves each
//! word last once in O(n³) in total; the walks back run for all the words
//! of a half at once (rows of q, long vectors), and the eliminations that
//! keep the second half at every depth are those of the determinant, in
//! order, so log Z comes with them.
//!
//! Single root: the root potentials are multiplied by a formal t → 0, so
//! that Z(t) = t · Z_single + O(t²); every quantity is carried as its
//! leading term c · t^k (a product adds the orders, a sum keeps the lower
//! order, adding coefficients on a tie: still subtraction-free), and
//! Z_single and the single-root marginals are the coefficients of t¹ and
//! t⁰.
//!
//! Numbers are f64s after shifting each column's scores by its maximum
//! (every tree has exactly one arc into each word, so this scales Z by
//! exp Σ c_d and leaves the marginals unchanged); if a product or quotient
//! falls below the smallest normal f64 (scores spread by more than about
//! 700 within a column, or long chains of small ratios), the computation
//! is redone in log space (each number its logarithm, sums by
//! log-sum-exp), which has no range limit.
//!
//! # Complexity
//! O(n³) time, O(n²) space: log Z about n³/3 multiply-adds, marginals
//! about 1.3 n³ (the eliminations by halves, 7n³/9 with log Z among
//! them, and the walks back, n³/2), each a log-sum-exp in the log-space fallback (some ten to thirty
//! times slower); `benches/README.md` has timings.

use crate::arborescence;
use rand::Rng;
use std::cmp::Ordering;

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

/// The highest-scoring tree of `roots` — the heads of words 1 … n — and
/// its score: the maximum spanning arborescence (Chu & Liu 1965; Edmonds
/// 1967; [`crate::arborescence`]), the mode of the distribution whose
/// log-partition and marginals [`log_partition`] and [`marginals`] give.
/// Ties: any best tree.
///
/// ```
/// use tabula::nonprojective::{best_tree, Roots};
/// // Heavy arcs 0 → 2 → 1 and 0 → 1: any root count, or one root child.
/// let s = [0.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0];
/// assert_eq!(best_tree(&s, 3, Roots::Multi).unwrap(), (5.0, vec![0, 0]));
/// assert_eq!(best_tree(&s, 3, Roots::Single).unwrap(), (4.0, vec![2, 0]));
/// ```
///
/// # Errors
/// [`NonProjectiveError::Shape`], [`NonProjectiveError::NotFinite`],
/// [`NonProjectiveError::NoTree`] if no tree of `roots` avoids the −∞
/// arcs, [`NonProjectiveError::TooMuchMemory`].
///
/// # Complexity
/// O(n²) time and memory.
pub fn best_tree(scores: &[f64], size: usize, roots: Roots) -> Result<(f64, Vec<usize>), NonProjectiveError> {
    column_shifts(scores, size, &mut Vec::new())?;
    let n = size - 1;
    if !arborescence::has_tree(n, scores) {
        return Err(NonProjectiveError::NoTree);
    }
    let heads = match roots {
        Roots::Multi => arborescence::max_arborescence(n, scores),
        Roots::Single => arborescence::max_single_root_tree(n, scores),
    };
    if roots == Roots::Single && heads.iter().filter(|&&h| h == 0).count() != 1 {
        return Err(NonProjectiveError::NoTree);
    }
    let score = heads.iter().enumerate().map(|(i, &h)| scores[h * size + i + 1]).sum();
    Ok((score, heads))
}

/// `count` trees drawn independently from p(t) ∝ ∏_{(h,d) ∈ t} exp s(h, d)
/// over the trees of `roots` — the heads of words 1 … n each — by
/// sequential conditioning: word by word, a head drawn from the word's
/// column of the [`marginals`] given the heads drawn so far, then fixed
/// (the column's other arcs forbidden). Exact, and as robust as the
/// marginals whatever the scores' spread (a random walk such as Wilson's
/// 1996 algorithm can take time exponential in it).
///
/// # Errors
/// As [`marginals`]; [`NonProjectiveError::TooMuchMemory`] if the trees
/// would exceed the memory limit.
///
/// # Complexity
/// O(count · n⁴) time: n marginal computations per tree.
pub fn sample<R: Rng + ?Sized>(
    scores: &[f64],
    size: usize,
    roots: Roots,
    count: usize,
    rng: &mut R,
) -> Result<Vec<Vec<usize>>, NonProjectiveError> {
    let mut tree = MatrixTree::new();
    column_shifts(scores, size, &mut tree.shift)?;
    crate::memory::check(count.checked_mul(size), std::mem::size_of::<usize>(), || {
        format!("{count} samples of {size} positions")
    })?;
    let mut work = scores.to_vec();
    let mut m = Vec::new();
    let mut trees = Vec::with_capacity(count);
    for _ in 0..count {
        work.copy_from_slice(scores);
        let mut heads = vec![0; size - 1];
        for d in 1..size {
            tree.marginals(&work, size, roots, &mut m)?;
            let mut u = rng.gen::<f64>();
            // The last head with positive probability absorbs rounding.
            let mut head = (0..size).rev().find(|&h| m[h * size + d] > 0.0).ok_or(NonProjectiveError::NoTree)?;
            for h in 0..size {
                let p = m[h * size + d];
                if p > 0.0 && u < p {
                    head = h;
                    break;
                }
                u -= p;
            }
            heads[d - 1] = head;
            for h in (0..size).filter(|&h| h != head) {
                work[h * size + d] = f64::NEG_INFINITY;
            }
        }
        trees.push(heads);
    }
    Ok(trees)
}

/// Why an elimination stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// A number left the f64 range: redo in [`LogSpace`].
    Range,
    /// A pivot is zero: no tree has positive weight.
    NoTree,
}

/// A nonnegative number's leading term c · t^order in the formal root
/// factor t (always order 0 with [`Roots::Multi`]). Every operation is
/// subtraction-free. `mul` and `div` do not check their range: the caller
/// asks [`Weight::in_range`] of the results (or of a bound on them).
trait Weight: Copy {
    const ZERO: Self;
    /// exp(`log`) · t^`order`, or `Range` if a finite `log` does not give
    /// a normal number.
    fn from_log(log: f64, order: i32) -> Result<Self, Stop>;
    fn is_zero(self) -> bool;
    fn order(self) -> i32;
    /// ln c (−∞ for zero).
    fn ln(self) -> f64;
    /// c.
    fn value(self) -> f64;
    fn add(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    /// `self / other`, `other` nonzero.
    fn div(self, other: Self) -> Self;
    /// Zero or a normal number: its rounding is relative.
    fn in_range(self) -> bool;
    /// The one with the smaller coefficient (zero counts as the largest).
    fn smaller(self, other: Self) -> Self;
    /// The one with the larger coefficient.
    fn larger(self, other: Self) -> Self;
}

/// The leading term of `a + b`, given its coefficient on a tie of orders.
fn lead<W: Weight>(a: W, b: W, tie: impl FnOnce() -> W) -> W {
    if a.is_zero() {
        return b;
    }
    if b.is_zero() {
        return a;
    }
    match a.order().cmp(&b.order()) {
        Ordering::Less => a,
        Ordering::Greater => b,
        Ordering::Equal => tie(),
    }
}

/// A plain f64 of order 0 (multi-root): the fast path, which vectorises.
#[derive(Clone, Copy, Debug)]
struct Plain(f64);

impl Weight for Plain {
    const ZERO: Self = Plain(0.0);
    fn from_log(log: f64, _order: i32) -> Result<Self, Stop> {
        let x = Plain(log.exp());
        if log == f64::NEG_INFINITY || !x.is_zero() && x.in_range() {
            Ok(x)
        } else {
            Err(Stop::Range)
        }
    }
    fn is_zero(self) -> bool {
        self.0 == 0.0
    }
    fn order(self) -> i32 {
        0
    }
    fn ln(self) -> f64 {
        self.0.ln()
    }
    fn value(self) -> f64 {
        self.0
    }
    fn add(self, other: Self) -> Self {
        Plain(self.0 + other.0)
    }
    fn mul(self, other: Self) -> Self {
        Plain(self.0 * other.0)
    }
    fn div(self, other: Self) -> Self {
        Plain(self.0 / other.0)
    }
    fn in_range(self) -> bool {
        self.0 == 0.0 || self.0.is_normal()
    }
    fn smaller(self, other: Self) -> Self {
        if other.0 != 0.0 && (self.0 == 0.0 || other.0 < self.0) {
            other
        } else {
            self
        }
    }
    fn larger(self, other: Self) -> Self {
        if other.0 > self.0 {
            other
        } else {
            self
        }
    }
}

/// c as an f64 with its order (single root).
#[derive(Clone, Copy, Debug)]
struct Linear {
    order: i32,
    c: f64,
}

impl Weight for Linear {
    const ZERO: Self = Linear { order: 0, c: 0.0 };
    fn from_log(log: f64, order: i32) -> Result<Self, Stop> {
        let x = Linear { order, c: log.exp() };
        if log == f64::NEG_INFINITY || !x.is_zero() && x.in_range() {
            Ok(x)
        } else {
            Err(Stop::Range)
        }
    }
    fn is_zero(self) -> bool {
        self.c == 0.0
    }
    fn order(self) -> i32 {
        self.order
    }
    fn ln(self) -> f64 {
        self.c.ln()
    }
    fn value(self) -> f64 {
        self.c
    }
    fn add(self, other: Self) -> Self {
        lead(self, other, || Linear { order: self.order, c: self.c + other.c })
    }
    fn mul(self, other: Self) -> Self {
        Linear { order: self.order + other.order, c: self.c * other.c }
    }
    fn div(self, other: Self) -> Self {
        Linear { order: self.order - other.order, c: self.c / other.c }
    }
    fn in_range(self) -> bool {
        self.c == 0.0 || self.c.is_normal()
    }
    fn smaller(self, other: Self) -> Self {
        if other.c != 0.0 && (self.c == 0.0 || other.c < self.c) {
            other
        } else {
            self
        }
    }
    fn larger(self, other: Self) -> Self {
        if other.c > self.c {
            other
        } else {
            self
        }
    }
}

/// ln c with its order: no range limit, a log-sum-exp per sum.
#[derive(Clone, Copy, Debug)]
struct LogSpace {
    order: i32,
    ln: f64,
}

impl Weight for LogSpace {
    const ZERO: Self = LogSpace { order: 0, ln: f64::NEG_INFINITY };
    fn from_log(log: f64, order: i32) -> Result<Self, Stop> {
        Ok(LogSpace { order, ln: log })
    }
    fn is_zero(self) -> bool {
        self.ln == f64::NEG_INFINITY
    }
    fn order(self) -> i32 {
        self.order
    }
    fn ln(self) -> f64 {
        self.ln
    }
    fn value(self) -> f64 {
        self.ln.exp()
    }
    fn add(self, other: Self) -> Self {
        lead(self, other, || {
            let (hi, lo) = if self.ln >= other.ln { (self.ln, other.ln) } else { (other.ln, self.ln) };
            LogSpace { order: self.order, ln: hi + (lo - hi).exp().ln_1p() }
        })
    }
    fn mul(self, other: Self) -> Self {
        if self.is_zero() || other.is_zero() {
            return Self::ZERO;
        }
        LogSpace { order: self.order + other.order, ln: self.ln + other.ln }
    }
    fn div(self, other: Self) -> Self {
        if self.is_zero() {
            return Self::ZERO;
        }
        LogSpace { order: self.order - other.order, ln: self.ln - other.ln }
    }
    fn in_range(self) -> bool {
        true
    }
    fn smaller(self, _other: Self) -> Self {
        self
    }
    fn larger(self, _other: Self) -> Self {
        self
    }
}

fn checked<W: Weight>(x: W) -> Result<W, Stop> {
    if x.in_range() {
        Ok(x)
    } else {
        Err(Stop::Range)
    }
}

/// The Laplacian of some words as a chain: for each word j its head
/// potentials `heads[j * m + i]` = θ(i, j) (i ≠ j, a word; the diagonal
/// slot is scratch) and its root potential `root[j]` = θ(0, j); the
/// diagonal of L is implied (the column sum). `ids[j]` is j's word in the
/// sentence (0-based).
///
/// `lifted`: the single-root fast path in plain f64s. The root potentials
/// are the coefficients of t¹ (their order is implied) and every other
/// number has order 0, so that a pivot's leading term is its column's head
/// potentials alone while any are positive, and the root potential only
/// for the last word; a pivot without head potentials before the last word
/// stops with [`Stop::Range`], and [`Linear`] takes over.
#[derive(Clone)]
struct Chain<W> {
    m: usize,
    heads: Vec<W>,
    root: Vec<W>,
    ids: Vec<usize>,
    lifted: bool,
}

impl<W> Chain<W> {
    fn empty() -> Self {
        Chain { m: 0, heads: Vec::new(), root: Vec::new(), ids: Vec::new(), lifted: false }
    }
}

impl<W: Weight> Chain<W> {
    /// Makes `self` the chain of the sentence's scores, each column shifted.
    fn fill(&mut self, s: Sentence<'_>) -> Result<(), Stop> {
        let Sentence { scores, size, shift, lifted, .. } = s;
        let m = size - 1;
        let root_order = if lifted { 0 } else { s.order() };
        self.m = m;
        self.lifted = lifted;
        self.heads.clear();
        self.heads.resize(m * m, W::ZERO);
        self.root.clear();
        self.ids.clear();
        self.ids.extend(0..m);
        for j in 0..m {
            let c = shift[j + 1];
            self.root.push(W::from_log(scores[j + 1] - c, root_order)?);
            for i in (0..m).filter(|&i| i != j) {
                self.heads[j * m + i] = W::from_log(scores[(i + 1) * size + j + 1] - c, 0)?;
            }
        }
        Ok(())
    }

    /// θ(i, j) (i ≠ j).
    fn head(&self, i: usize, j: usize) -> W {
        self.heads[j * self.m + i]
    }

    /// The pivot of word `k` once words 0 … k−1 are eliminated (the column
    /// sum of k) and the order it adds to det L.
    fn pivot(&self, k: usize) -> Result<(W, i32), Stop> {
        let m = self.m;
        let heads = sum(&self.heads[k * m + k + 1..(k + 1) * m]);
        if !self.lifted {
            let pivot = heads.add(self.root[k]);
            return if pivot.is_zero() { Err(Stop::NoTree) } else { Ok((pivot, pivot.order())) };
        }
        if !heads.is_zero() {
            Ok((heads, 0))
        } else if k + 1 < m {
            Err(Stop::Range)
        } else if self.root[k].is_zero() {
            Err(Stop::NoTree)
        } else {
            Ok((self.root[k], 1))
        }
    }

    /// Eliminates word `k` when words 0 … k−1 are already eliminated: the
    /// Schur complement on the words k+1 …, subtraction-free. Returns the
    /// pivot and the order it adds to det L, and the probability that a walk
    /// from k steps to the root; `ratios[i]` (i > k) that it steps to word i.
    /// Eliminates word `k` (after words 0 … k−1), leaving the ratios of its
    /// column to its pivot in `ratios[k + 1..]`: its pivot, the pivot's
    /// order and the ratio of its root potential to the pivot.
    fn eliminate(&mut self, k: usize, ratios: &mut [W]) -> Result<(W, i32, W), Stop> {
        crate::wide::with_wide_vectors!(self.eliminate_here(k, ratios))
    }

    #[inline(always)]
    fn eliminate_here(&mut self, k: usize, ratios: &mut [W]) -> Result<(W, i32, W), Stop> {
        let m = self.m;
        let (pivot, order) = self.pivot(k)?;
        let ratios = &mut ratios[k + 1..m];
        for (r, &x) in ratios.iter_mut().zip(&self.heads[k * m + k + 1..(k + 1) * m]) {
            *r = x.div(pivot);
        }
        let ratios = &*ratios;
        if !ratios.iter().fold(true, |ok, r| ok & r.in_range()) {
            return Err(Stop::Range);
        }
        let least = ratios.iter().fold(W::ZERO, |a, &r| a.smaller(r));
        let root_ratio = checked(self.root[k].div(pivot))?;
        let (mut lightest, mut heaviest) = (W::ZERO, W::ZERO);
        for j in k + 1..m {
            let w = self.heads[j * m + k];
            if w.is_zero() {
                continue;
            }
            (lightest, heaviest) = (lightest.smaller(w), heaviest.larger(w));
            self.root[j] = self.root[j].add(root_ratio.mul(w));
            let column = &mut self.heads[j * m + k + 1..(j + 1) * m];
            for (x, &r) in column.iter_mut().zip(ratios) {
                *x = x.add(r.mul(w));
            }
        }
        // Every product is in range if the extreme ones are (a product is
        // monotone in each factor); the updates are redone from the start
        // in a wider representation if not.
        if !lightest.is_zero() {
            checked(least.mul(lightest))?;
            checked(root_ratio.mul(lightest))?;
            checked(root_ratio.mul(heaviest))?;
        }
        Ok((pivot, order, root_ratio))
    }

    fn log_det(&mut self, ratios: &mut [W]) -> Result<(i32, f64), Stop> {
        let (mut order, mut log) = (0, 0.0);
        for k in 0..self.m {
            let (pivot, o, _) = self.eliminate(k, ratios)?;
            order += o;
            log += pivot.ln();
        }
        Ok((order, log))
    }

    /// Makes `self` a copy of `from` with its words in the order `order`.
    fn reorder(&mut self, from: &Chain<W>, keep: std::ops::Range<usize>) {
        let m = from.m;
        self.m = m;
        self.lifted = from.lifted;
        // The words given up, in order, then those kept: three runs.
        let runs = [0..keep.start, keep.end..m, keep];
        self.heads.clear();
        for j in runs.iter().flat_map(|run| run.clone()) {
            for run in &runs {
                self.heads.extend_from_slice(&from.heads[j * m + run.start..j * m + run.end]);
            }
        }
        self.root.clear();
        self.ids.clear();
        for run in runs {
            self.root.extend_from_slice(&from.root[run.clone()]);
            self.ids.extend_from_slice(&from.ids[run]);
        }
    }

    /// Makes `self` the chain of `from`'s words from `first` on.
    fn tail(&mut self, from: &Chain<W>, first: usize) {
        let m = from.m;
        self.m = m - first;
        self.lifted = from.lifted;
        self.heads.clear();
        for j in first..m {
            self.heads.extend_from_slice(&from.heads[j * m + first..(j + 1) * m]);
        }
        self.root.clear();
        self.root.extend_from_slice(&from.root[first..]);
        self.ids.clear();
        self.ids.extend_from_slice(&from.ids[first..]);
    }
}

/// One level of the divide-and-conquer of [`leave_one_out`], its buffers
/// reused by the two halves and across sentences: the parent chain with the
/// words to eliminate first (`work`), the walk's steps recorded while
/// eliminating them — for the k-th eliminated word, `root_steps[k]` the
/// probability that the walk from it steps to the root and
/// `steps[k * m + i]` (i > k, m = `work.m`) that it steps to the i-th word
/// of `work` — the chain of the kept words (`child`), and q(h, d) for
/// every pair of the parent chain's words (`q[h * m + d]`, local indices).
struct Level<W> {
    work: Chain<W>,
    root_steps: Vec<W>,
    steps: Vec<W>,
    child: Chain<W>,
    q: Vec<W>,
    rows: Vec<W>,
}

impl<W> Level<W> {
    fn new() -> Self {
        Level {
            work: Chain::empty(),
            root_steps: Vec::new(),
            steps: Vec::new(),
            child: Chain::empty(),
            q: Vec::new(),
            rows: Vec::new(),
        }
    }
}

impl<W: Weight> Level<W> {
    /// The chain on `from`'s words at `keep` (a range of local indices) once
    /// all others are eliminated, into `child`, and the walk's steps from
    /// the eliminated ones into `root_steps` and `steps`; the sum of the
    /// eliminated pivots' orders and (if `logs`) logarithms.
    fn reduce(&mut self, from: &Chain<W>, keep: std::ops::Range<usize>, logs: bool) -> Result<(i32, f64), Stop> {
        let m = from.m;
        let gone = m - keep.len();
        self.work.reorder(from, keep);
        self.root_steps.clear();
        self.steps.clear();
        self.steps.resize(gone * m, W::ZERO);
        let (mut order, mut log) = (0, 0.0);
        for k in 0..gone {
            let (pivot, o, root_ratio) = self.work.eliminate(k, &mut self.steps[k * m..(k + 1) * m])?;
            self.root_steps.push(root_ratio);
            order += o;
            if logs {
                log += pivot.ln();
            }
        }
        self.child.tail(&self.work, gone);
        Ok((order, log))
    }

    /// q(h, d) for the parent chain's words h and the kept words d (local
    /// indices `keep`), from the kept words' own (`below`, kept × kept;
    /// q(d, d) = 0): the eliminated words' in reverse, q(k, ·) = P(root) +
    /// Σᵢ P(i) q(i, ·), each a sum of nonnegative terms, for all d at once.
    fn walk_back(&mut self, keep: std::ops::Range<usize>, below: &[W]) -> Result<(), Stop> {
        crate::wide::with_wide_vectors!(self.walk_back_here(keep, below))
    }

    #[inline(always)]
    fn walk_back_here(&mut self, keep: std::ops::Range<usize>, below: &[W]) -> Result<(), Stop> {
        let (m, kept) = (self.work.m, keep.len());
        let gone = m - kept;
        self.rows.clear();
        self.rows.resize(gone * kept, W::ZERO);
        self.rows.extend_from_slice(below);
        for k in (0..gone).rev() {
            let (done, later) = self.rows.split_at_mut((k + 1) * kept);
            let row = &mut done[k * kept..];
            row.fill(self.root_steps[k]);
            let steps = &self.steps[k * m + k + 1..(k + 1) * m];
            for (&step, next) in steps.iter().zip(later.chunks_exact(kept)) {
                if !step.is_zero() {
                    for (x, &y) in row.iter_mut().zip(next) {
                        *x = x.add(step.mul(y));
                    }
                }
            }
            // A sum is out of range, or zero although a term is not (it
            // underflowed): redo in a wider representation.
            if !row.iter().fold(true, |ok, x| ok & x.in_range()) {
                return Err(Stop::Range);
            }
            for (d, _) in row.iter().enumerate().filter(|(_, x)| x.is_zero()) {
                let nonzero = |(&step, next): (&W, &[W])| !step.is_zero() && !next[d].is_zero();
                if !self.root_steps[k].is_zero() || steps.iter().zip(later.chunks_exact(kept)).any(nonzero) {
                    return Err(Stop::Range);
                }
            }
        }
        // Back to the parent's local indices: the eliminated words were
        // 0 … keep.start − 1 and keep.end … m − 1, in order.
        let local = |i: usize| {
            if i < keep.start {
                i
            } else if i < gone {
                i + kept
            } else {
                i - gone + keep.start
            }
        };
        for (i, row) in self.rows.chunks_exact(kept).enumerate() {
            let h = local(i);
            self.q[h * m + keep.start..h * m + keep.end].copy_from_slice(row);
        }
        Ok(())
    }
}

#[inline(always)]
fn sum<W: Weight>(xs: &[W]) -> W {
    let mut acc = [W::ZERO; 4];
    let chunks = xs.chunks_exact(4);
    let rest = chunks.remainder().iter().fold(W::ZERO, |s, &x| s.add(x));
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = a.add(x);
        }
    }
    acc[0].add(acc[1]).add(acc[2].add(acc[3])).add(rest)
}

/// q(h, d) of every pair of words of the chain at `depth` (`top`, or the
/// `child` of the level above) into `levels[depth].q`, with each word's
/// denominator Σ θ q (its root potential once it alone is left) into
/// `denominators` (by id): eliminates the words by halves, recursing into
/// the other half, and walks back. `log_det`, on the chain eliminated in
/// order (the second half kept at every depth), gathers the pivots' orders
/// and logarithms: the determinant of `top`.
fn leave_one_out<W: Weight>(
    top: &Chain<W>,
    levels: &mut Vec<Level<W>>,
    depth: usize,
    denominators: &mut [W],
    log_det: &mut Option<(i32, f64)>,
) -> Result<(), Stop> {
    if levels.len() == depth {
        levels.push(Level::new());
    }
    let m = if depth == 0 { top.m } else { levels[depth - 1].child.m };
    levels[depth].q.clear();
    levels[depth].q.resize(m * m, W::ZERO);
    let half = m / 2;
    for keep in [0..half, half..m] {
        let in_order = keep.start > 0;
        let (above, below) = levels.split_at_mut(depth);
        let chain = if depth == 0 { top } else { &above[depth - 1].child };
        let mut det = log_det.filter(|_| in_order);
        let (order, log) = below[0].reduce(chain, keep.clone(), det.is_some())?;
        det = det.map(|(o, l)| (o + order, l + log));
        if keep.len() == 1 {
            let child = &below[0].child;
            denominators[child.ids[0]] = child.root[0];
            if let Some((o, l)) = det {
                let (pivot, last) = child.pivot(0)?;
                det = Some((o + last, l + pivot.ln()));
            }
            below[0].walk_back(keep, &[W::ZERO])?;
        } else {
            let mut inner = det;
            leave_one_out(top, levels, depth + 1, denominators, &mut inner)?;
            det = inner;
            let (this, next) = levels.split_at_mut(depth + 1);
            this[depth].walk_back(keep, &next[0].q)?;
        }
        if in_order {
            *log_det = det;
        }
    }
    Ok(())
}

/// Checks the shape and the scores, and writes the shift of each column
/// d ≥ 1 (its maximum) into `shift`: false if some word has no allowed
/// head.
fn column_shifts(scores: &[f64], size: usize, shift: &mut Vec<f64>) -> Result<bool, NonProjectiveError> {
    if size == 0 || scores.len() != size * size {
        return Err(NonProjectiveError::Shape { len: scores.len(), size });
    }
    // The chain, its copies down the divide-and-conquer (about 4/3 of it),
    // the pair table and the output: about five size² numbers of 16 bytes.
    crate::memory::check(size.checked_mul(size).and_then(|c| c.checked_mul(5)), 16, || {
        format!("the Matrix-Tree matrices for {size} positions")
    })?;
    // Row by row (contiguous), over the columns 1 … n but the diagonal.
    let bad = |s: f64| s.is_nan() || s == f64::INFINITY;
    shift.clear();
    shift.resize(size, f64::NEG_INFINITY);
    let mut finite = true;
    for (h, row) in scores.chunks_exact(size).enumerate() {
        for columns in [1..h.max(1), (h + 1).max(1)..size] {
            for (m, &s) in shift[columns.clone()].iter_mut().zip(&row[columns]) {
                finite &= !bad(s);
                *m = m.max(s);
            }
        }
    }
    if !finite {
        // The first bad score, column by column.
        for d in 1..size {
            if let Some(h) = (0..size).find(|&h| h != d && bad(scores[h * size + d])) {
                return Err(NonProjectiveError::NotFinite { head: h, dependent: d, value: scores[h * size + d] });
            }
        }
    }
    shift[0] = 0.0;
    Ok(shift[1..].iter().all(|&m| m > f64::NEG_INFINITY))
}

/// The buffers of the computation in one kind of number, kept between
/// sentences.
struct Buffers<W> {
    chain: Chain<W>,
    levels: Vec<Level<W>>,
    denominators: Vec<W>,
    ratios: Vec<W>,
}

impl<W: Weight> Buffers<W> {
    fn new() -> Self {
        Buffers { chain: Chain::empty(), levels: Vec::new(), denominators: Vec::new(), ratios: Vec::new() }
    }

    /// ln Z (−∞ if no tree).
    fn log_partition(&mut self, s: Sentence<'_>) -> Result<f64, Stop> {
        self.chain.fill(s)?;
        self.ratios.clear();
        self.ratios.resize(s.size, W::ZERO);
        match self.chain.log_det(&mut self.ratios) {
            Ok((order, log)) if order == s.order() => Ok(log + s.shift.iter().sum::<f64>()),
            Ok(_) | Err(Stop::NoTree) => Ok(f64::NEG_INFINITY),
            Err(Stop::Range) => Err(Stop::Range),
        }
    }

    /// The marginals into `out` and ln Z.
    fn marginals(&mut self, s: Sentence<'_>, out: &mut [f64]) -> Result<f64, Stop> {
        let (size, n) = (s.size, s.size - 1);
        let Buffers { chain, levels, denominators, .. } = self;
        chain.fill(s)?;
        denominators.clear();
        denominators.resize(n, W::ZERO);
        let (order, log) = if n == 1 {
            denominators[0] = chain.root[0];
            let (pivot, order) = chain.pivot(0)?;
            if levels.is_empty() {
                levels.push(Level::new());
            }
            levels[0].q.clear();
            levels[0].q.push(W::ZERO);
            (order, pivot.ln())
        } else {
            let mut log_det = Some((0, 0.0));
            leave_one_out(chain, levels, 0, denominators, &mut log_det)?;
            log_det.expect("the second halves eliminate the words in order")
        };
        if order != s.order() {
            return Err(Stop::NoTree);
        }
        // A marginal's leading term has order 0 (order > 0: it tends to 0).
        // Unchecked: the denominator is normal, so a subnormal θ·q costs at
        // most 2⁻¹⁰⁷⁴ / 2⁻¹⁰²² absolute.
        let probability = |p: W| if p.order() == 0 { p.value() } else { 0.0 };
        let q = &levels[0].q;
        for (d, &top) in denominators.iter().enumerate() {
            out[d + 1] = probability(chain.root[d].div(top));
            for h in (0..n).filter(|&h| h != d) {
                out[(h + 1) * size + d + 1] = probability(chain.head(h, d).mul(q[h * n + d]).div(top));
            }
        }
        Ok(log + s.shift.iter().sum::<f64>())
    }
}

/// A sentence's validated scores of `size` = n + 1 rows, each column d to
/// be shifted by its maximum `shift[d]`, and how to read them (`lifted`:
/// see [`Chain`]).
#[derive(Clone, Copy)]
struct Sentence<'a> {
    scores: &'a [f64],
    size: usize,
    shift: &'a [f64],
    roots: Roots,
    lifted: bool,
}

impl Sentence<'_> {
    /// The order of t in Z(t) (1 with a single root).
    fn order(self) -> i32 {
        if self.roots == Roots::Single {
            1
        } else {
            0
        }
    }
}

/// The Matrix-Tree computations with their memory kept from one sentence
/// to the next: [`MatrixTree::log_partition`] and
/// [`MatrixTree::marginals`] are [`log_partition`] and [`marginals`]
/// without allocating once the buffers have grown to the longest sentence.
/// One per thread.
///
/// ```
/// use tabula::nonprojective::{MatrixTree, Roots};
/// let mut tree = MatrixTree::new();
/// let mut marginals = Vec::new();
/// for n in 1..5 {
///     let size = n + 1;
///     let z = tree.marginals(&vec![0.0; size * size], size, Roots::Multi, &mut marginals).unwrap();
///     // Cayley: (n + 1)^(n − 1) trees rooted at 0.
///     assert!((z - ((n - 1) as f64) * (size as f64).ln()).abs() < 1e-12);
/// }
/// ```
pub struct MatrixTree {
    shift: Vec<f64>,
    plain: Buffers<Plain>,
    linear: Buffers<Linear>,
    logs: Buffers<LogSpace>,
}

impl Default for MatrixTree {
    fn default() -> Self {
        Self::new()
    }
}

impl MatrixTree {
    /// Empty buffers.
    pub fn new() -> Self {
        MatrixTree { shift: Vec::new(), plain: Buffers::new(), linear: Buffers::new(), logs: Buffers::new() }
    }

    /// [`log_partition`], with this value's buffers.
    ///
    /// # Errors
    /// As [`log_partition`].
    pub fn log_partition(&mut self, scores: &[f64], size: usize, roots: Roots) -> Result<f64, NonProjectiveError> {
        if !column_shifts(scores, size, &mut self.shift)? {
            return Ok(f64::NEG_INFINITY);
        }
        if size == 1 {
            return Ok(if roots == Roots::Multi { 0.0 } else { f64::NEG_INFINITY });
        }
        let s = Sentence { scores, size, shift: &self.shift, roots, lifted: roots == Roots::Single };
        let mut z = self.plain.log_partition(s);
        if roots == Roots::Single && z == Err(Stop::Range) {
            z = self.linear.log_partition(Sentence { lifted: false, ..s });
        }
        // A zero pivot in f64 may be an underflow (scores spread far apart):
        // "no tree" is only believed in log space.
        if z == Err(Stop::Range) || z == Ok(f64::NEG_INFINITY) {
            z = self.logs.log_partition(Sentence { lifted: false, ..s });
        }
        Ok(z.unwrap_or(f64::NEG_INFINITY))
    }

    /// [`marginals`], with this value's buffers.
    ///
    /// # Errors
    /// As [`marginals`].
    pub fn marginals(
        &mut self,
        scores: &[f64],
        size: usize,
        roots: Roots,
        out: &mut Vec<f64>,
    ) -> Result<f64, NonProjectiveError> {
        let all = column_shifts(scores, size, &mut self.shift)?;
        out.clear();
        out.resize(size * size, 0.0);
        if size == 1 {
            return if roots == Roots::Multi { Ok(0.0) } else { Err(NonProjectiveError::NoTree) };
        }
        if !all {
            return Err(NonProjectiveError::NoTree);
        }
        let s = Sentence { scores, size, shift: &self.shift, roots, lifted: roots == Roots::Single };
        let mut z = self.plain.marginals(s, out);
        if roots == Roots::Single && z == Err(Stop::Range) {
            z = self.linear.marginals(Sentence { lifted: false, ..s }, out);
        }
        // As in `log_partition`: a zero pivot is only believed in log space.
        if z.is_err() {
            z = self.logs.marginals(Sentence { lifted: false, ..s }, out);
        }
        z.map_err(|_| NonProjectiveError::NoTree)
    }
}

/// ln Z over the non-projective trees of `roots` for an (n+1)×(n+1)
/// row-major score matrix of `size` = n + 1 rows (see the module
/// documentation); −∞ if no tree has positive weight. n = 0: ln Z = 0 with
/// [`Roots::Multi`] (the empty tree), −∞ with [`Roots::Single`]. Exact to
/// rounding for scores of any size and spread (see the module
/// documentation).
///
/// # Errors
/// [`NonProjectiveError::Shape`], [`NonProjectiveError::NotFinite`],
/// [`NonProjectiveError::TooMuchMemory`].
///
/// # Complexity
/// O(n³): about n³/3 multiply-adds (each a log-sum-exp when the numbers
/// leave the f64 range).
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
/// // A heavy cycle 1 ⇄ 2 that no tree can use whole: ln(2 + e⁻³⁸).
/// let s = [0.0, -19.0, -19.0, 0.0, 0.0, 19.0, 0.0, 19.0, 0.0];
/// let z = log_partition(&s, 3, Roots::Multi).unwrap();
/// assert!((z - (2.0 + (-38f64).exp()).ln()).abs() < 1e-12);
/// ```
pub fn log_partition(scores: &[f64], size: usize, roots: Roots) -> Result<f64, NonProjectiveError> {
    MatrixTree::new().log_partition(scores, size, roots)
}

/// Arc marginals P(h → d ∈ t) over the non-projective trees of `roots`,
/// written to `out` as an (n+1)×(n+1) row-major matrix (row = head,
/// column = dependent; 0 on the diagonal and in column 0); returns ln Z.
/// Each column d ≥ 1 sums to 1, so the matrix sums to n. Exact to
/// rounding for scores of any size and spread (see the module
/// documentation).
///
/// # Errors
/// [`NonProjectiveError::Shape`], [`NonProjectiveError::NotFinite`],
/// [`NonProjectiveError::NoTree`] if Z = 0, [`NonProjectiveError::TooMuchMemory`].
///
/// # Complexity
/// O(n³): about 1.3 n³ multiply-adds (each a log-sum-exp when the numbers
/// leave the f64 range).
pub fn marginals(scores: &[f64], size: usize, roots: Roots, out: &mut Vec<f64>) -> Result<f64, NonProjectiveError> {
    MatrixTree::new().marginals(scores, size, roots, out)
}
