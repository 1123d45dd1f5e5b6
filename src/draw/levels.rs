//! The two questions that place an arc at its level, answered in
//! O(log² a) and O(log a) instead of by a scan of every arc placed before
//! it (which made the layout of one long sentence quadratic):
//!
//! - [`Contained`]: the highest level of the arcs placed so far whose span
//!   lies inside a given span (the arc must go above them);
//! - [`Shelves`]: whether anything placed at a level (a span, a label box)
//!   meets a given interval there.
//!
//! [`super::layout`] and [`super::text`] place arcs from the shortest, each
//! at `1 +` [`Contained::max_inside`] of its span, then one level higher
//! while [`Shelves::meets`] says it would run along another arc or meet
//! another label there. The whole placement is O(a log² a + c log a) for a
//! arcs, c being the levels climbed past such clashes (a few per arc in
//! trees; the tests compare it with the scan it replaces).

use std::collections::BTreeMap;

/// Spans `(lo, hi)` known in advance, each given a value (its level) once
/// placed; answers the largest value among spans inside `[lo, hi]`. A 2-D
/// Fenwick tree: the outer one over `lo` (from the right), each of its
/// nodes a prefix-maximum Fenwick tree over the `hi` of the spans it
/// covers. O(s log s) to build for s spans, memory O(s log s).
#[derive(Debug, Clone)]
pub struct Contained {
    /// Largest `lo` given (positions are 0 … `top`).
    top: usize,
    /// Per outer node: the sorted distinct `hi` it covers, and the inner
    /// tree's maxima (1-based).
    his: Vec<Vec<usize>>,
    max: Vec<Vec<i32>>,
}

impl Contained {
    /// The structure over `spans` (`lo <= hi`), every value 0.
    pub fn new(spans: &[(usize, usize)]) -> Contained {
        let top = spans.iter().map(|s| s.0).max().unwrap_or(0);
        let mut his = vec![Vec::new(); top + 2];
        for &(lo, hi) in spans {
            let mut k = top - lo + 1;
            while k <= top + 1 {
                his[k].push(hi);
                k += k & k.wrapping_neg();
            }
        }
        for h in &mut his {
            h.sort_unstable();
            h.dedup();
        }
        let max = his.iter().map(|h| vec![0; h.len() + 1]).collect();
        Contained { top, his, max }
    }

    /// Raises the value of the span `(lo, hi)` (one given to [`Contained::new`]) to `value`.
    pub fn set(&mut self, (lo, hi): (usize, usize), value: i32) {
        if lo > self.top {
            return;
        }
        let mut k = self.top - lo + 1;
        while k <= self.top + 1 {
            if let Ok(p) = self.his[k].binary_search(&hi) {
                let inner = &mut self.max[k];
                let mut q = p + 1;
                while q < inner.len() {
                    inner[q] = inner[q].max(value);
                    q += q & q.wrapping_neg();
                }
            }
            k += k & k.wrapping_neg();
        }
    }

    /// The largest value of the spans `(l, h)` with `lo <= l` and `h <= hi`
    /// (0 if none).
    pub fn max_inside(&self, lo: usize, hi: usize) -> i32 {
        let mut best = 0;
        let mut k = (self.top + 1).saturating_sub(lo);
        while k > 0 {
            let mut q = self.his[k].partition_point(|&h| h <= hi);
            let inner = &self.max[k];
            while q > 0 {
                best = best.max(inner[q]);
                q -= q & q.wrapping_neg();
            }
            k -= k & k.wrapping_neg();
        }
        best
    }
}

/// Per level, disjoint half-open intervals `[start, end)` of `N` kinds
/// (e.g. spans and label boxes), each kind kept apart.
#[derive(Debug, Clone)]
pub struct Shelves<const N: usize> {
    levels: Vec<[BTreeMap<i64, i64>; N]>,
}

impl<const N: usize> Default for Shelves<N> {
    fn default() -> Self {
        Shelves { levels: Vec::new() }
    }
}

impl<const N: usize> Shelves<N> {
    /// Whether an interval of kind `kind` at `level` meets `[start, end)`. O(log a).
    pub fn meets(&self, level: usize, kind: usize, start: i64, end: i64) -> bool {
        let Some(shelf) = self.levels.get(level).and_then(|l| l.get(kind)) else {
            return false;
        };
        // The intervals are disjoint: the last one starting before `end` ends last.
        shelf.range(..end).next_back().is_some_and(|(_, &e)| e > start)
    }

    /// Puts `[start, end)` at `level` among those of kind `kind`; it must
    /// not meet them ([`Shelves::meets`]). O(log a).
    pub fn put(&mut self, level: usize, kind: usize, start: i64, end: i64) {
        if self.levels.len() <= level {
            self.levels.resize_with(level + 1, || std::array::from_fn(|_| BTreeMap::new()));
        }
        if let Some(shelf) = self.levels[level].get_mut(kind) {
            shelf.insert(start, end);
        }
    }
}
