//! Drawing derivations from a filled chart with probability proportional to
//! their weight (forward filtering, backward sampling: the inside pass
//! first, then the sampling): top-down from the whole input by the walk of
//! [`super::walk`], each item picks one summand of its recurrence with
//! probability equal to the summand's share of the item's value
//! ([`Sampling::share`]). In
//! [`LogSumExp`](crate::semiring::LogSumExp) that draws a derivation t with
//! probability ∏ exp w / Z; in [`MaxCount`](crate::semiring::MaxCount), an
//! optimal derivation uniformly. O(n²) per sample after the parse.

use super::walk::{walk, Pick};
use super::{Derivation, EngineError, Parser};
use crate::semiring::Sampling;
use rand::Rng;

impl<S: Sampling> Parser<'_, S> {
    /// One derivation of the last [`parse`](Parser::parse), drawn with
    /// probability proportional to its weight (see the module documentation).
    ///
    /// # Errors
    /// [`EngineError::NotParsed`] before the first parse;
    /// [`EngineError::NoDerivation`] if W = 𝟘.
    ///
    /// # Complexity
    /// O(n² · (|left combos| + |right combos|)) time per sample.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Derivation, EngineError> {
        let size = self.parsed_size();
        if size == 0 {
            return Err(EngineError::NotParsed);
        }
        walk(self, &mut Weighted { rng, shares: Vec::new(), choices: Vec::new() }).ok_or(EngineError::NoDerivation)
    }
}

/// The sampler's [`Pick`]: a draw proportional to the candidates' shares.
struct Weighted<'r, R: ?Sized> {
    rng: &'r mut R,
    shares: Vec<f64>,
    choices: Vec<(usize, usize)>,
}

impl<S: Sampling, R: Rng + ?Sized> Pick<S> for Weighted<'_, R> {
    /// Draws one of the candidates with probability proportional to its
    /// share of `total` (never one of share 0).
    fn pick(&mut self, total: &S, candidates: impl Iterator<Item = (S, (usize, usize))>) -> (usize, usize) {
        self.shares.clear();
        self.choices.clear();
        let mut sum = 0.0;
        for (v, c) in candidates {
            let share = v.share(total);
            if share > 0.0 {
                sum += share;
                self.shares.push(sum);
                self.choices.push(c);
            }
        }
        assert!(!self.choices.is_empty(), "no summand of a non-zero item has a positive share");
        let u = self.rng.gen::<f64>() * sum;
        let i = self.shares.partition_point(|&cumulative| cumulative <= u).min(self.choices.len() - 1);
        self.choices[i]
    }
}
