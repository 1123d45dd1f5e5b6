//! Parser ensembles by reparsing (Sagae & Lavie 2006): the trees that K
//! parsers predict for a sentence vote, with a weight per parser, for every
//! arc; the output is the tree of the highest total vote — projective,
//! through the engine with the single-root projective grammar in max-plus
//! (Eisner's algorithm as Table 2 of Nederhof 2019 runs it), or any tree,
//! through the maximum spanning arborescence ([`crate::arborescence`]). Each arc
//! of the output takes the DEPREL with the most weight among the parsers
//! that predicted it (a parser's own DEPREL for the word if none did).
//!
//! Weights are exact ([`Weights`]): each positive finite weight, read as
//! its shortest decimal (1e-7, 2.5), becomes an integer on a common scale,
//! so votes are summed without rounding and equal weights never lose a tie;
//! weights too far apart for that (more than 18 decimal digits between
//! them) are an error. O(K n + n³) time, O(n²) memory per sentence.
//!
//! ```
//! use tabula::ensemble::{Reparser, Shape, Weights};
//! let trees = [vec![2, 0, 2], vec![2, 0, 2], vec![0, 1, 2]];
//! let weights = Weights::new(&[1.0, 1.0, 1.5]).unwrap();
//! let mut r = Reparser::new(Shape::Projective).unwrap();
//! let view: Vec<&[usize]> = trees.iter().map(Vec::as_slice).collect();
//! assert_eq!(r.reparse(&view, &weights).unwrap(), vec![2, 0, 2]);
//! ```

use crate::arborescence;
use crate::engine::Parser;
use crate::grammar::{text, Grammar, Terminal};
use crate::projectivize::{ProjectivizeError, SentenceTerminals};
use crate::semiring::MaxPlus;

/// What trees the ensemble outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Projective trees with one root child (the engine).
    Projective,
    /// Any tree with one root child (the maximum spanning arborescence).
    Any,
}

/// Errors of [`Weights`] and [`Reparser::reparse`].
#[derive(Debug, thiserror::Error)]
pub enum EnsembleError {
    /// A weight that is not a positive finite number.
    #[error("{0} is not a weight (a positive finite number)")]
    NotAWeight(f64),
    /// Two weights whose ratio needs more than 18 decimal digits.
    #[error(
        "the weights {small} and {large} are too far apart to add exactly (more than 18 decimal digits between them)"
    )]
    TooFarApart { small: String, large: String },
    /// The votes of a sentence this long could overflow.
    #[error("the weights {weights} sum to too much for exact votes on a sentence of {words} words")]
    TooLong { weights: String, words: usize },
    #[error(transparent)]
    Projectivize(#[from] ProjectivizeError),
    /// The vote table would exceed the memory limit ([`crate::memory`]).
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
}

/// The parsers' weights as integers on one scale: exact, so that sums and
/// ties are exact.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    given: Vec<f64>,
    units: Vec<i64>,
}

/// (m, e) with `x` = m · 10^e, m without trailing zeros, from the shortest
/// decimal that reads back as `x`.
fn decimal(x: f64) -> (u64, i32) {
    let text = format!("{x:e}");
    let (mantissa, exponent) = text.split_once('e').expect("{:e} writes an exponent");
    let mut e: i32 = exponent.parse().expect("an integer exponent");
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    e -= fraction.len() as i32;
    let mut m: u64 = format!("{whole}{fraction}").parse().expect("at most 17 digits");
    while m != 0 && m.is_multiple_of(10) {
        m /= 10;
        e += 1;
    }
    (m, e)
}

impl Weights {
    /// One weight per parser, each a positive finite number.
    ///
    /// # Errors
    /// [`EnsembleError::NotAWeight`], [`EnsembleError::TooFarApart`].
    pub fn new(weights: &[f64]) -> Result<Weights, EnsembleError> {
        if let Some(&w) = weights.iter().find(|w| !w.is_finite() || **w <= 0.0) {
            return Err(EnsembleError::NotAWeight(w));
        }
        let parts: Vec<(u64, i32)> = weights.iter().map(|&w| decimal(w)).collect();
        let low = parts.iter().map(|p| p.1).min().unwrap_or(0);
        let mut units = Vec::with_capacity(weights.len());
        for (i, &(m, e)) in parts.iter().enumerate() {
            let scaled = u32::try_from(e - low)
                .ok()
                .and_then(|p| 10i64.checked_pow(p))
                .and_then(|scale| i64::try_from(m).ok()?.checked_mul(scale))
                .filter(|&u| u < 1 << 60);
            let Some(u) = scaled else {
                let small = weights.iter().copied().fold(f64::INFINITY, f64::min);
                return Err(EnsembleError::TooFarApart { small: show(small), large: show(weights[i]) });
            };
            units.push(u);
        }
        let gcd = units.iter().fold(0, |a, &b| gcd(a, b)).max(1);
        units.iter_mut().for_each(|u| *u /= gcd);
        Ok(Weights { given: weights.to_vec(), units })
    }

    /// `k` parsers of weight 1.
    pub fn equal(k: usize) -> Weights {
        Weights { given: vec![1.0; k], units: vec![1; k] }
    }

    /// The weights as given.
    pub fn given(&self) -> &[f64] {
        &self.given
    }

    /// The weights as integers on one scale (divided by their greatest
    /// common divisor).
    pub fn units(&self) -> &[i64] {
        &self.units
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }
}

/// `x` as written by `{}`, or `{:e}` where that is long (1e-300).
fn show(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 12 {
        plain
    } else {
        format!("{x:e}")
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The single-root projective grammar, compiled once.
fn grammar() -> &'static Grammar {
    static G: std::sync::OnceLock<Grammar> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        text::parse_str("projective-single-root.grammar", crate::grammars::PROJECTIVE_SINGLE_ROOT)
            .expect("the embedded grammar is valid")
            .grammar
    })
}

/// Reparses the votes of several trees; one per thread, reused from
/// sentence to sentence.
pub struct Reparser {
    shape: Shape,
    parser: Parser<'static, MaxPlus<i64>>,
    terminals: SentenceTerminals,
    input: Vec<Terminal>,
    votes: Vec<i64>,
}

impl Reparser {
    /// A reparser giving trees of `shape`.
    pub fn new(shape: Shape) -> Result<Reparser, ProjectivizeError> {
        let g = grammar();
        Ok(Reparser {
            shape,
            parser: Parser::new(g),
            terminals: SentenceTerminals::for_grammar(g)?,
            input: Vec::new(),
            votes: Vec::new(),
        })
    }

    /// The total vote of each arc h → d, at `h * (n + 1) + d`, after the
    /// last [`Reparser::reparse`].
    pub fn votes(&self) -> &[i64] {
        &self.votes
    }

    /// The heads (words 1 … n) of the tree of `shape` with the highest total
    /// vote, each tree in `trees` (heads of words 1 … n, all of the same n)
    /// voting its weight for each of its arcs. O(K n + n³) time, O(n²)
    /// memory, checked against [`crate::memory`] first.
    ///
    /// # Errors
    /// [`EnsembleError::TooLong`] if the votes could overflow,
    /// [`EnsembleError::TooMuchMemory`], [`EnsembleError::Projectivize`].
    ///
    /// # Panics
    /// If the trees have different lengths, a head is beyond n, or there
    /// are not as many weights as trees.
    pub fn reparse(&mut self, trees: &[&[usize]], weights: &Weights) -> Result<Vec<usize>, EnsembleError> {
        assert_eq!(trees.len(), weights.len(), "a weight per tree");
        let n = trees.first().map_or(0, |t| t.len());
        let nodes = n + 1;
        // The single-root arborescence penalises root arcs by 2 (n+1) times
        // the largest vote: every sum stays below 4 (n+1)² Σ weights.
        let total: i64 = weights.units.iter().sum();
        if i64::try_from(nodes).ok().and_then(|m| m.checked_mul(m)?.checked_mul(4)?.checked_mul(total)).is_none() {
            let given = weights.given.iter().map(|&w| show(w)).collect::<Vec<_>>().join(",");
            return Err(EnsembleError::TooLong { weights: given, words: n });
        }
        // The vote table, the arborescence's two copies of it and its records
        // of contractions (at most 1.5 tables at worst): five (n+1)² i64s.
        crate::memory::check(nodes.checked_mul(nodes).and_then(|c| c.checked_mul(5)), 8, || {
            format!("the vote tables for a sentence of {n} words")
        })?;
        self.votes.clear();
        self.votes.resize(nodes * nodes, 0);
        for (heads, &w) in trees.iter().zip(&weights.units) {
            assert_eq!(heads.len(), n, "trees of one sentence");
            for (i, &h) in heads.iter().enumerate() {
                self.votes[h * nodes + i + 1] += w;
            }
        }
        if n == 0 {
            return Ok(Vec::new());
        }
        match self.shape {
            Shape::Any => Ok(arborescence::max_single_root_tree(n, &self.votes)),
            Shape::Projective => {
                self.terminals.fill(n, &mut self.input);
                let votes = &self.votes;
                let w = self
                    .parser
                    .parse(&self.input, |h, d| MaxPlus::new(votes[h * nodes + d]))
                    .map_err(ProjectivizeError::from)?;
                w.finite().ok_or(ProjectivizeError::NoTree(n))?;
                let tree = self.parser.best_derivation().ok_or(ProjectivizeError::NoTree(n))?.tree;
                Ok(tree.heads().to_vec())
            }
        }
    }
}

/// The DEPREL of each word of `heads`: among the `predictions` (heads and
/// DEPRELs of each parser, weighted by `weights`) that have the word's
/// arc, the DEPREL of the most total weight (the first on ties); if none
/// has it, that of the parser of the most weight (the first on ties).
/// DEPREL `root` is given exactly to the words under the root, as Universal
/// Dependencies requires: a vote for `root` under a word (or for another
/// label under the root) does not count, and where no vote is left the
/// word gets `root` under the root, else the heaviest parser's label or
/// `dep`. O(K² n).
pub fn labels<'a>(heads: &[usize], predictions: &[(&[usize], &[&'a str])], weights: &Weights) -> Vec<&'a str> {
    let w = &weights.units;
    let heaviest = (0..predictions.len()).fold(0, |b, k| if w[k] > w[b] { k } else { b });
    let mut out = Vec::with_capacity(heads.len());
    for (i, &h) in heads.iter().enumerate() {
        // Universal Dependencies: DEPREL `root` exactly under the root.
        let fits = |label: &str| (label == "root") == (h == 0);
        let mut best: Option<(&str, i64)> = None;
        for (_, ls) in predictions.iter().filter(|(hs, l)| hs[i] == h && fits(l[i])) {
            let label = ls[i];
            let total: i64 =
                predictions.iter().zip(w).filter(|((h2, l2), _)| h2[i] == h && l2[i] == label).map(|(_, &u)| u).sum();
            if best.is_none_or(|(_, b)| total > b) {
                best = Some((label, total));
            }
        }
        let fallback = || match predictions[heaviest].1[i] {
            l if fits(l) => l,
            _ if h == 0 => "root",
            _ => "dep",
        };
        out.push(best.map_or_else(fallback, |(l, _)| l));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::DepTree;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_tree(rng: &mut ChaCha8Rng, n: usize) -> Vec<usize> {
        loop {
            let h: Vec<usize> = (1..=n)
                .map(|d| loop {
                    let h = rng.gen_range(0..=n);
                    if h != d {
                        break h;
                    }
                })
                .collect();
            if DepTree::from_heads(&h).is_ok() {
                return h;
            }
        }
    }

    fn score(votes: &[i64], n: usize, heads: &[usize]) -> i64 {
        heads.iter().enumerate().map(|(i, &h)| votes[h * (n + 1) + i + 1]).sum()
    }

    /// Random votes of 1–5 random trees: the projective output is a
    /// projective single-root tree scoring as much as the best such tree
    /// (brute force); the other output is a single-root tree scoring at
    /// least as much; unanimous trees come back unchanged.
    #[test]
    fn reparsing_finds_the_best_tree_of_each_shape() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut projective = Reparser::new(Shape::Projective).unwrap();
        let mut any = Reparser::new(Shape::Any).unwrap();
        for n in 1..=5 {
            let mut all = Vec::new();
            let mut heads = vec![0usize; n];
            // Every head vector, as an odometer over {0 … n}ⁿ.
            loop {
                if let Ok(t) = DepTree::from_heads(&heads) {
                    if heads.iter().filter(|&&h| h == 0).count() == 1 {
                        all.push((heads.clone(), t.is_projective()));
                    }
                }
                let mut digit = heads.iter_mut();
                let carried = loop {
                    match digit.next() {
                        None => break true,
                        Some(h) if *h < n => {
                            *h += 1;
                            break false;
                        }
                        Some(h) => *h = 0,
                    }
                };
                if carried {
                    break;
                }
            }
            for _ in 0..40 {
                let k = rng.gen_range(1..=5);
                let trees: Vec<(Vec<usize>, f64)> =
                    (0..k).map(|_| (random_tree(&mut rng, n), f64::from(rng.gen_range(1..=4)) / 2.0)).collect();
                let view: Vec<&[usize]> = trees.iter().map(|(h, _)| h.as_slice()).collect();
                let weights = Weights::new(&trees.iter().map(|t| t.1).collect::<Vec<_>>()).unwrap();
                let p = projective.reparse(&view, &weights).unwrap();
                let votes = projective.votes().to_vec();
                let tree = DepTree::from_heads(&p).unwrap();
                assert!(tree.is_projective() && p.iter().filter(|&&h| h == 0).count() == 1, "{p:?}");
                let best_projective = all.iter().filter(|t| t.1).map(|t| score(&votes, n, &t.0)).max().unwrap();
                assert_eq!(score(&votes, n, &p), best_projective);
                let a = any.reparse(&view, &weights).unwrap();
                let best = all.iter().map(|t| score(&votes, n, &t.0)).max().unwrap();
                assert_eq!(score(&votes, n, &a), best);
                // Unanimity: the tree itself (if single-rooted, and projective for the engine).
                let one = &trees[0].0;
                if one.iter().filter(|&&h| h == 0).count() == 1 {
                    let same: Vec<&[usize]> = vec![one.as_slice(); 3];
                    assert_eq!(&any.reparse(&same, &Weights::equal(3)).unwrap(), one);
                    if DepTree::from_heads(one).unwrap().is_projective() {
                        assert_eq!(&projective.reparse(&same, &Weights::equal(3)).unwrap(), one);
                    }
                }
            }
        }
    }

    #[test]
    fn labels_follow_the_weighted_vote() {
        let (a, b, c) = ([2usize, 0], [2usize, 0], [0usize, 1]);
        let (la, lb, lc) = (["nsubj", "root"], ["obj", "root"], ["root", "dep"]);
        let p: Vec<(&[usize], &[&str])> = vec![(&a, &la), (&b, &lb), (&c, &lc)];
        let w = Weights::new(&[1.0, 2.0, 1.5]).unwrap();
        assert_eq!(labels(&[2, 0], &p, &w), ["obj", "root"]);
        // An arc nobody predicted takes the heaviest parser's label, unless
        // that breaks the rule of `root`: then `root` under the root, `dep` elsewhere.
        assert_eq!(labels(&[0, 1], &p[..2], &Weights::new(&[1.0, 2.0]).unwrap()), ["root", "dep"]);
        assert_eq!(labels(&[2, 1], &p[..2], &Weights::new(&[1.0, 2.0]).unwrap()), ["obj", "dep"]);
        // A vote for `root` under a word does not count; nor another label under the root.
        let (x, lx) = ([0usize, 1], ["nsubj", "root"]);
        let q: Vec<(&[usize], &[&str])> = vec![(&x, &lx), (&c, &lc)];
        assert_eq!(labels(&[0, 1], &q, &Weights::new(&[5.0, 1.0]).unwrap()), ["root", "dep"]);
    }

    /// Regression: weights were rounded to millionths, so 1e-7 became 0
    /// and every vote vanished. Any positive finite weight now counts
    /// exactly; equal weights are equal units; weights too far apart to
    /// add exactly, zero, negative or not finite, are errors.
    #[test]
    fn weights_are_exact() {
        assert_eq!(Weights::new(&[1e-7, 1e-7, 1e-7]).unwrap().units(), [1, 1, 1]);
        assert_eq!(Weights::new(&[1e-7, 2.5e-7]).unwrap().units(), [2, 5]);
        assert_eq!(Weights::new(&[0.1, 0.2, 0.3]).unwrap().units(), [1, 2, 3]);
        assert_eq!(Weights::new(&[1.0, 2.5, 1.0]).unwrap().units(), [2, 5, 2]);
        assert_eq!(Weights::new(&[1e300, 3e300]).unwrap().units(), [1, 3]);
        assert_eq!(Weights::new(&[1.0, 1e-17]).unwrap().units(), [100_000_000_000_000_000, 1]);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(Weights::new(&[1.0, bad]), Err(EnsembleError::NotAWeight(_))), "{bad}");
        }
        let e = Weights::new(&[1.0, 1e-300]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the weights 1e-300 and 1 are too far apart to add exactly (more than 18 decimal digits between them)"
        );
        // Three parsers of weight 1e-7: the majority wins, as with weight 1.
        let trees = [vec![2usize, 0, 2], vec![2, 0, 2], vec![0, 1, 2]];
        let view: Vec<&[usize]> = trees.iter().map(Vec::as_slice).collect();
        let mut r = Reparser::new(Shape::Any).unwrap();
        assert_eq!(r.reparse(&view, &Weights::new(&[1e-7; 3]).unwrap()).unwrap(), vec![2, 0, 2]);
    }
}
