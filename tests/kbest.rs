//! The lazy k-best derivations (`src/engine/kbest.rs`) against brute force
//! (`tests/common`): the sorted scores of all derivations of random
//! grammars, and the trees of the projective grammar under real scores.

mod common;

use common::random_grammar::case;
use common::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use tabula::engine::{EngineError, Parser};
use tabula::grammar::text;
use tabula::semiring::{MaxPlus, RealMaxPlus};

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The values of the k best derivations are the k largest of the
    /// multiset {score(t) repeated once per derivation of t}, and each
    /// returned derivation is a derivation of its tree with that score.
    #[test]
    fn k_best_values_match_brute_force(case in case(), k in 1..40usize) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);
        let mut all: Vec<i64> = Vec::new();
        for t in projective_trees(input.len() - 1).iter() {
            let Some(score) = t.arcs().map(|(h, d)| w(h, d).map(|v| v as i64)).sum::<Option<i64>>() else { continue };
            all.extend(std::iter::repeat_n(score, count_decorations(&g, &input, t) as usize));
        }
        all.sort_unstable_by(|a, b| b.cmp(a));
        all.truncate(k);

        let mut p = Parser::<MaxPlus>::new(&g);
        p.parse(&input, |h, d| w(h, d).map_or(MaxPlus::neg_inf(), |v| MaxPlus::new(v as i64))).unwrap();
        let best = p.k_best(k).unwrap();
        let values: Vec<i64> = best.iter().map(|(v, _)| v.finite().unwrap()).collect();
        prop_assert_eq!(&values, &all);
        for (v, d) in &best {
            let score: i64 = d.tree.arcs().map(|(h, dep)| w(h, dep).unwrap() as i64).sum();
            prop_assert_eq!(Some(score), v.finite());
            let words: Vec<_> = d.words.iter().map(|x| (x.category, x.left, x.right)).collect();
            prop_assert!(is_derivation(&g, &input, &d.tree, &words));
        }
    }

    /// Table 3 is unambiguous: the k best derivations are k distinct trees,
    /// the k best by brute force (up to ties), and all of them when k
    /// exceeds their number.
    #[test]
    fn k_best_trees_of_the_projective_grammar(n in 0..=7usize, k in 1..200usize, seed in any::<u64>()) {
        let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
        let input = vec![g.terminal("a").unwrap(); n + 1];
        let size = n + 1;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Few distinct values, so that ties are common.
        let scores: Vec<f64> = (0..size * size).map(|_| rng.gen_range(-3..3) as f64 * 0.5).collect();
        let trees = projective_trees(n);
        let mut all: Vec<f64> = trees.iter().map(|t| t.arcs().map(|(h, d)| scores[h * size + d]).sum()).collect();
        all.sort_unstable_by(|a, b| b.total_cmp(a));
        all.truncate(k);

        let mut p = Parser::<RealMaxPlus>::new(&g);
        p.parse(&input, |h, d| RealMaxPlus(scores[h * size + d])).unwrap();
        let best = p.k_best(k).unwrap();
        let values: Vec<f64> = best.iter().map(|(v, _)| v.0).collect();
        prop_assert_eq!(values.len(), all.len());
        for (a, b) in values.iter().zip(&all) {
            prop_assert!((a - b).abs() < 1e-9, "{:?} vs {:?}", values, all);
        }
        let distinct: HashSet<Vec<usize>> = best.iter().map(|(_, d)| d.tree.heads().to_vec()).collect();
        prop_assert_eq!(distinct.len(), best.len());
        for (v, d) in &best {
            let score: f64 = d.tree.arcs().map(|(h, dep)| scores[h * size + dep]).sum();
            prop_assert!((score - v.0).abs() < 1e-9);
        }
    }
}

#[test]
fn k_best_needs_a_parse_and_is_empty_without_derivations() {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let mut p = Parser::<RealMaxPlus>::new(&g);
    assert_eq!(p.k_best(3).unwrap_err(), EngineError::NotParsed);
    p.parse(&[g.terminal("a").unwrap(); 4], |_, _| RealMaxPlus(f64::NEG_INFINITY)).unwrap();
    assert!(p.k_best(3).unwrap().is_empty());
    p.parse(&[g.terminal("a").unwrap(); 4], |_, _| RealMaxPlus(0.0)).unwrap();
    assert_eq!(p.k_best(100).unwrap().len(), 12);
    assert!(p.k_best(0).unwrap().is_empty());
}
