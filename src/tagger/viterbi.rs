//! Exact decoding of a tag sequence under the tagger's second-order scores
//! (the Viterbi algorithm over pairs of adjacent tags).
//!
//! The score of tag t at position i, after the tags t₂ t₁ of positions
//! i − 2 and i − 1 (the start value S before the sentence), is
//!
//! ```text
//! emission[i][t] + lexical[i][t₁][t] + first[t₁][t] + second[t₂][t₁][t]
//! ```
//!
//! and the score of a sequence is the sum over its positions. A position
//! may be fixed to one tag (the tag dictionary). [`viterbi`] finds a
//! sequence of the highest score: δᵢ(t₁, t) = max over t₂ of δᵢ₋₁(t₂, t₁) +
//! score(i, t | t₁, t₂). O(n × T³) time and O(n × T²) space for T tags (a
//! fixed position counts 1 instead of T).

/// The scores of one sentence (see the module documentation); T tags, and
/// the start value S = T in `first`, `second` and `lexical`.
#[derive(Clone, Debug, Default)]
pub struct SequenceScores {
    /// Number of tags T.
    pub tags: usize,
    /// n × T: the emission score of each tag at each position.
    pub emission: Vec<f32>,
    /// n × (T + 1) × T: the score of tag t at position i after t₁.
    pub lexical: Vec<f32>,
    /// (T + 1) × T.
    pub first: Vec<f32>,
    /// (T + 1) × (T + 1) × T.
    pub second: Vec<f32>,
    /// The tag of each fixed position (`None`: any tag).
    pub fixed: Vec<Option<u32>>,
}

impl SequenceScores {
    /// Number of positions n.
    pub fn len(&self) -> usize {
        self.fixed.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.fixed.is_empty()
    }

    /// The score of tag `t` at position `i` after `t1` and `t2` (T: the
    /// start). O(1).
    #[inline]
    pub fn score(&self, i: usize, t2: usize, t1: usize, t: usize) -> f32 {
        let k = self.tags;
        self.emission[i * k + t]
            + self.lexical[(i * (k + 1) + t1) * k + t]
            + self.first[t1 * k + t]
            + self.second[(t2 * (k + 1) + t1) * k + t]
    }

    /// The score of the sequence `tags`. O(n).
    pub fn sequence_score(&self, tags: &[u32]) -> f32 {
        let start = self.tags;
        let mut total = 0.0;
        for (i, &t) in tags.iter().enumerate() {
            let t1 = if i >= 1 { tags[i - 1] as usize } else { start };
            let t2 = if i >= 2 { tags[i - 2] as usize } else { start };
            total += self.score(i, t2, t1, t as usize);
        }
        total
    }
}

/// Reusable buffers of [`viterbi`].
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// δ of the previous and current positions: (T + 1) × T each.
    previous: Vec<f32>,
    current: Vec<f32>,
    /// n × (T + 1) × T back-pointers: the best t₂ of each state.
    back: Vec<u32>,
    all: Vec<u32>,
}

/// A highest-scoring tag sequence of `scores` into `out` (ties: the
/// smallest tags first met). Fixed positions get their tag. O(n × T³).
pub fn viterbi(scores: &SequenceScores, chart: &mut Chart, out: &mut Vec<u32>) {
    let (k, n) = (scores.tags, scores.len());
    out.clear();
    if n == 0 || k == 0 {
        return;
    }
    let start = k as u32;
    let width = (k + 1) * k;
    chart.all.clear();
    chart.all.extend(0..k as u32);
    let all = std::mem::take(&mut chart.all);
    let single: Vec<[u32; 1]> = scores.fixed.iter().map(|f| [f.unwrap_or(0)]).collect();
    let candidates = |i: usize| -> &[u32] {
        match scores.fixed[i] {
            Some(_) => &single[i],
            None => &all,
        }
    };
    chart.previous.clear();
    chart.previous.resize(width, f32::NEG_INFINITY);
    chart.current.clear();
    chart.current.resize(width, f32::NEG_INFINITY);
    chart.back.clear();
    chart.back.resize(n * width, start);
    // Position 0: states (S, t).
    for &t in candidates(0) {
        chart.previous[k * k + t as usize] = scores.score(0, k, k, t as usize);
    }
    for i in 1..n {
        chart.current.iter_mut().for_each(|d| *d = f32::NEG_INFINITY);
        let before: &[u32] = if i >= 2 { candidates(i - 2) } else { std::slice::from_ref(&start) };
        for &t1 in candidates(i - 1) {
            for &t in candidates(i) {
                let mut best = (f32::NEG_INFINITY, start);
                for &t2 in before {
                    let d = chart.previous[t2 as usize * k + t1 as usize];
                    if d == f32::NEG_INFINITY {
                        continue;
                    }
                    let s = d + scores.score(i, t2 as usize, t1 as usize, t as usize);
                    if s > best.0 {
                        best = (s, t2);
                    }
                }
                chart.current[t1 as usize * k + t as usize] = best.0;
                chart.back[i * width + t1 as usize * k + t as usize] = best.1;
            }
        }
        std::mem::swap(&mut chart.previous, &mut chart.current);
    }
    // The best final state (t₁, t).
    let mut best = (f32::NEG_INFINITY, start, 0u32);
    let firsts: &[u32] = if n >= 2 { candidates(n - 2) } else { std::slice::from_ref(&start) };
    for &t1 in firsts {
        for &t in candidates(n - 1) {
            let d = chart.previous[t1 as usize * k + t as usize];
            if d > best.0 {
                best = (d, t1, t);
            }
        }
    }
    out.resize(n, 0);
    let (mut t1, mut t) = (best.1, best.2);
    for i in (0..n).rev() {
        out[i] = t;
        if i == 0 {
            break;
        }
        let t2 = chart.back[i * width + t1 as usize * k + t as usize];
        t = t1;
        t1 = t2;
    }
    chart.all = all;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The best score over all tag sequences (fixed positions respected), by enumeration.
    fn brute_force(scores: &SequenceScores) -> f32 {
        let (k, n) = (scores.tags, scores.len());
        let mut best = f32::NEG_INFINITY;
        let mut tags = vec![0u32; n];
        for code in 0..k.pow(n as u32) {
            let mut c = code;
            for t in tags.iter_mut() {
                *t = (c % k) as u32;
                c /= k;
            }
            if tags.iter().zip(&scores.fixed).any(|(&t, f)| f.is_some_and(|f| f != t)) {
                continue;
            }
            best = best.max(scores.sequence_score(&tags));
        }
        best
    }

    fn random_scores(rng: &mut ChaCha8Rng, k: usize, n: usize) -> SequenceScores {
        let mut v = |len: usize| -> Vec<f32> { (0..len).map(|_| rng.gen_range(-3.0f32..3.0)).collect() };
        let (emission, lexical, first, second) =
            (v(n * k), v(n * (k + 1) * k), v((k + 1) * k), v((k + 1) * (k + 1) * k));
        let fixed = (0..n).map(|_| if rng.gen_bool(0.25) { Some(rng.gen_range(0..k as u32)) } else { None }).collect();
        SequenceScores { tags: k, emission, lexical, first, second, fixed }
    }

    /// On every small case (1–3 tags, 1–5 words, random scores, random
    /// fixed positions), the Viterbi sequence respects the fixed tags and
    /// scores as much as the best of all sequences.
    #[test]
    fn viterbi_finds_the_best_of_all_sequences() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let mut chart = Chart::default();
        let mut out = Vec::new();
        for _ in 0..600 {
            let k = rng.gen_range(1..=3);
            let n = rng.gen_range(1..=5);
            let scores = random_scores(&mut rng, k, n);
            viterbi(&scores, &mut chart, &mut out);
            assert_eq!(out.len(), n);
            for (&t, f) in out.iter().zip(&scores.fixed) {
                assert!((t as usize) < k);
                if let Some(f) = f {
                    assert_eq!(t, *f);
                }
            }
            let got = scores.sequence_score(&out);
            let want = brute_force(&scores);
            assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "k {k} n {n}: {got} vs {want}");
        }
    }

    #[test]
    fn empty_input_gives_no_tags() {
        let mut out = vec![3];
        viterbi(&SequenceScores { tags: 2, ..SequenceScores::default() }, &mut Chart::default(), &mut out);
        assert!(out.is_empty());
    }
}
