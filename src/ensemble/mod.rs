//! Parser ensembles by reparsing (Sagae & Lavie 2006): the trees that K
//! parsers predict for a sentence vote, with a weight per parser, for every
//! arc; the output is the tree of the highest total vote — projective,
//! through the engine with the single-root projective grammar in max-plus
//! (Eisner's algorithm as Table 2 of Nederhof 2019 runs it), or any tree,
//! through the maximum spanning arborescence ([`arborescence`]). Each arc
//! of the output takes the DEPREL with the most weight among the parsers
//! that predicted it (a parser's own DEPREL for the word if none did).
//!
//! Weights are decimal; votes are summed in integer millionths, so equal
//! weights never lose a tie to rounding. O(K n + n³) per sentence.
//!
//! ```
//! use tabula::ensemble::{Reparser, Shape};
//! let votes = [(vec![2, 0, 2], 1.0), (vec![2, 0, 2], 1.0), (vec![0, 1, 2], 1.5)];
//! let mut r = Reparser::new(Shape::Projective).unwrap();
//! let trees: Vec<(&[usize], f64)> = votes.iter().map(|(h, w)| (h.as_slice(), *w)).collect();
//! assert_eq!(r.reparse(&trees).unwrap(), vec![2, 0, 2]);
//! ```

pub mod arborescence;

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

/// A weight as an integer number of millionths.
pub fn units(weight: f64) -> i64 {
    (weight * 1e6).round() as i64
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
    /// voting its weight for each of its arcs. O(K n + n³).
    ///
    /// # Panics
    /// If the trees have different lengths or a head is beyond n.
    pub fn reparse(&mut self, trees: &[(&[usize], f64)]) -> Result<Vec<usize>, ProjectivizeError> {
        let n = trees.first().map_or(0, |t| t.0.len());
        self.votes.clear();
        self.votes.resize((n + 1) * (n + 1), 0);
        for (heads, w) in trees {
            assert_eq!(heads.len(), n, "trees of one sentence");
            let w = units(*w);
            for (i, &h) in heads.iter().enumerate() {
                self.votes[h * (n + 1) + i + 1] += w;
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
                let w = self.parser.parse(&self.input, |h, d| MaxPlus::new(votes[h * (n + 1) + d]))?;
                w.finite().ok_or(ProjectivizeError::NoTree(n))?;
                let tree = self.parser.best_derivation().ok_or(ProjectivizeError::NoTree(n))?.tree;
                Ok(tree.heads().to_vec())
            }
        }
    }
}

/// The DEPREL of each word of `heads`: among the `predictions` (heads,
/// DEPRELs and weight of each parser) that have the word's arc, the DEPREL
/// of the most total weight (the first on ties); if none has it, that of
/// the parser of the most weight (the first on ties). O(K² n).
pub fn labels<'a>(heads: &[usize], predictions: &[(&[usize], &[&'a str], f64)]) -> Vec<&'a str> {
    let heaviest = (0..predictions.len()).fold(0, |b, k| if predictions[k].2 > predictions[b].2 { k } else { b });
    let mut out = Vec::with_capacity(heads.len());
    for (i, &h) in heads.iter().enumerate() {
        let mut best: Option<(&str, i64)> = None;
        for (_, ls, _) in predictions.iter().filter(|(hs, _, _)| hs[i] == h) {
            let label = ls[i];
            let total: i64 =
                predictions.iter().filter(|(h2, l2, _)| h2[i] == h && l2[i] == label).map(|p| units(p.2)).sum();
            if best.is_none_or(|(_, b)| total > b) {
                best = Some((label, total));
            }
        }
        out.push(best.map_or(predictions[heaviest].1[i], |(l, _)| l));
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
                let view: Vec<(&[usize], f64)> = trees.iter().map(|(h, w)| (h.as_slice(), *w)).collect();
                let p = projective.reparse(&view).unwrap();
                let votes = projective.votes().to_vec();
                let tree = DepTree::from_heads(&p).unwrap();
                assert!(tree.is_projective() && p.iter().filter(|&&h| h == 0).count() == 1, "{p:?}");
                let best_projective = all.iter().filter(|t| t.1).map(|t| score(&votes, n, &t.0)).max().unwrap();
                assert_eq!(score(&votes, n, &p), best_projective);
                let a = any.reparse(&view).unwrap();
                let best = all.iter().map(|t| score(&votes, n, &t.0)).max().unwrap();
                assert_eq!(score(&votes, n, &a), best);
                // Unanimity: the tree itself (if single-rooted, and projective for the engine).
                let one = &trees[0].0;
                if one.iter().filter(|&&h| h == 0).count() == 1 {
                    let same: Vec<(&[usize], f64)> = vec![(one.as_slice(), 1.0); 3];
                    assert_eq!(&any.reparse(&same).unwrap(), one);
                    if DepTree::from_heads(one).unwrap().is_projective() {
                        assert_eq!(&projective.reparse(&same).unwrap(), one);
                    }
                }
            }
        }
    }

    #[test]
    fn labels_follow_the_weighted_vote() {
        let (a, b, c) = ([2usize, 0], [2usize, 0], [0usize, 1]);
        let (la, lb, lc) = (["nsubj", "root"], ["obj", "root"], ["root", "dep"]);
        let p: Vec<(&[usize], &[&str], f64)> = vec![(&a, &la, 1.0), (&b, &lb, 2.0), (&c, &lc, 1.5)];
        assert_eq!(labels(&[2, 0], &p), ["obj", "root"]);
        // An arc nobody predicted takes the heaviest parser's label.
        assert_eq!(labels(&[0, 1], &p[..2]), ["obj", "root"]);
    }
}
