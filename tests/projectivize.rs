//! Optimal projectivization, counting, sampling and lifting against
//! brute-force enumeration of all projective trees (n ≤ 7).

mod common;

use num_bigint::BigUint;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula::engine::Parser;
use tabula::grammar::{text, Grammar};
use tabula::projectivize::{lift, Counter, OptimalProjectivizer, OptimalSampler, ProjectivizeError, TreeClass};
use tabula::semiring::{Count, MaxCount, Semiring};
use tabula::tree::DepTree;

fn grammar(src: &str) -> Grammar {
    text::parse_str("test.grammar", src).unwrap().grammar
}

/// All ways to cover positions l..=r by consecutive subtrees whose roots
/// attach to `head`: lists of (dependent, head) assignments.
fn forests(l: usize, r: usize, head: usize) -> Vec<Vec<(usize, usize)>> {
    if l > r {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for e in l..=r {
        for (root, arcs) in subtrees(l, e) {
            for rest in forests(e + 1, r, head) {
                let mut v = arcs.clone();
                v.push((root, head));
                v.extend(rest);
                out.push(v);
            }
        }
    }
    out
}

/// All projective subtrees spanning exactly l..=e: (root, assignments).
fn subtrees(l: usize, e: usize) -> Vec<(usize, Vec<(usize, usize)>)> {
    let mut out = Vec::new();
    for m in l..=e {
        for left in forests(l, m - 1, m) {
            for right in forests(m + 1, e, m) {
                out.push((m, left.iter().chain(&right).copied().collect()));
            }
        }
    }
    out
}

/// Every projective tree over root 0 and words 1 … n (reference enumeration).
fn all_projective(n: usize) -> Vec<DepTree> {
    forests(1, n, 0)
        .into_iter()
        .map(|arcs| {
            let mut heads = vec![0; n];
            for (d, h) in arcs {
                heads[d - 1] = h;
            }
            DepTree::from_heads(&heads).unwrap()
        })
        .collect()
}

fn root_children(t: &DepTree) -> usize {
    t.heads().iter().filter(|&&h| h == 0).count()
}

/// Brute force: best score and number of trees attaining it.
fn brute(gold: &DepTree, single_root: bool) -> (usize, usize) {
    let scores: Vec<usize> = all_projective(gold.len())
        .iter()
        .filter(|t| !single_root || root_children(t) == 1)
        .map(|t| t.common_arcs(gold))
        .collect();
    let best = *scores.iter().max().unwrap();
    (best, scores.iter().filter(|&&s| s == best).count())
}

/// Any tree, projective or not: words in a random order, each attached to
/// the root or to a word earlier in that order.
fn arb_tree(max_n: usize) -> impl Strategy<Value = DepTree> {
    (1..=max_n, any::<u64>()).prop_map(|(n, seed)| common::random_tree(n, 0.15, &mut ChaCha8Rng::seed_from_u64(seed)))
}

#[test]
fn enumeration_matches_the_closed_form() {
    // Projective trees with root 0 over n words: C(3n, n) / (2n + 1).
    let counts: Vec<usize> = (1..=7).map(|n| all_projective(n).len()).collect();
    assert_eq!(counts, [1, 3, 12, 55, 273, 1428, 7752]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn best_and_count_match_brute_force(gold in arb_tree(7)) {
        let g = grammar(tabula::grammars::PROJECTIVE);
        let (best, count) = brute(&gold, false);
        for class in [TreeClass::Projective, TreeClass::Unknown] {
            let r = Counter::new(&g, class).unwrap().count(&gold).unwrap();
            prop_assert_eq!((r.best, r.count), (best, BigUint::from(count)));
        }
    }

    #[test]
    fn output_is_projective_and_optimal(gold in arb_tree(7)) {
        let g = grammar(tabula::grammars::PROJECTIVE);
        let (best, _) = brute(&gold, false);
        let mut p = OptimalProjectivizer::new(&g, TreeClass::Projective).unwrap();
        let out = p.projectivize(&gold).unwrap();
        prop_assert!(out.tree.is_projective());
        prop_assert_eq!(out.score, best);
        prop_assert_eq!(out.tree.common_arcs(&gold), best);
        let engine = p.projectivize_with_engine(&gold).unwrap();
        prop_assert_eq!(engine.score, best);
        prop_assert_eq!(engine.tree.common_arcs(&gold), best);
        prop_assert_eq!(p.best_score(&gold).unwrap(), best);
        if gold.is_projective() {
            prop_assert_eq!(&out.tree, &gold);
            prop_assert_eq!(&engine.tree, &gold);
        }
    }

    #[test]
    fn lifting_is_projective_and_never_beats_optimal(gold in arb_tree(7)) {
        let (best, _) = brute(&gold, false);
        let lifted = lift(&gold);
        prop_assert!(lifted.is_projective());
        prop_assert!(lifted.common_arcs(&gold) <= best);
        if gold.is_projective() {
            prop_assert_eq!(&lifted, &gold);
        }
    }

    #[test]
    fn samples_are_optimal_and_reproducible(gold in arb_tree(7), seed in any::<u64>()) {
        let g = grammar(tabula::grammars::PROJECTIVE);
        let (best, _) = brute(&gold, false);
        let mut s = OptimalSampler::new(&g, TreeClass::Projective).unwrap();
        let a = s.sample(&gold, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
        let b = s.sample(&gold, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert!(a.tree.is_projective());
        prop_assert_eq!(a.tree.common_arcs(&gold), best);
        prop_assert_eq!(a.score, best);
    }

    #[test]
    fn single_root_grammar_matches_brute_force(gold in arb_tree(6)) {
        let g = grammar(tabula::grammars::PROJECTIVE_SINGLE_ROOT);
        let (best, count) = brute(&gold, true);
        for class in [TreeClass::ProjectiveSingleRoot, TreeClass::Unknown] {
            let r = Counter::new(&g, class).unwrap().count(&gold).unwrap();
            prop_assert_eq!((r.best, r.count), (best, BigUint::from(count)));
            let out = OptimalProjectivizer::new(&g, class).unwrap().projectivize(&gold).unwrap();
            prop_assert_eq!(root_children(&out.tree), 1);
            prop_assert!(out.tree.is_projective());
            prop_assert_eq!(out.tree.common_arcs(&gold), best);
        }
    }
}

#[test]
fn single_root_grammar_derives_each_single_root_tree_once() {
    let g = grammar(tabula::grammars::PROJECTIVE_SINGLE_ROOT);
    let root = g.terminal("root").unwrap();
    let a = g.terminal("a").unwrap();
    let mut parser = Parser::<Count>::new(&g);
    for n in 1..=7 {
        let mut input = vec![a; n + 1];
        input[0] = root;
        let w = parser.parse(&input, |_, _| Count::one()).unwrap();
        let want = all_projective(n).iter().filter(|t| root_children(t) == 1).count();
        assert_eq!(w, Count::new(want as u64), "n = {n}");
    }
}

#[test]
fn uniform_sampling_hits_every_optimal_tree() {
    // 1 -> 3 crosses 0 -> 2: four optimal trees (keep 0 -> 1, 0 -> 2 and hang
    // 3 from 0 or 2; or keep 0 -> 1, 1 -> 3 and hang 2 from 1 or 3), each
    // drawn about a quarter of the time.
    let g = grammar(tabula::grammars::PROJECTIVE);
    let gold = DepTree::from_heads(&[0, 0, 1]).unwrap();
    let mut s = OptimalSampler::new(&g, TreeClass::Projective).unwrap();
    let mut seen = std::collections::HashMap::new();
    for seed in 0..600 {
        let t = s.sample(&gold, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap().tree;
        *seen.entry(t).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 4);
    assert!(seen.values().all(|&k| (100..=200).contains(&k)), "{seen:?}");
}

#[test]
fn counts_beyond_64_bits_are_exact() {
    // Gold: word 1 under the root, word d ≥ 2 under d + 3 (the last three
    // under word 1): three interleaved chains whose arcs cross; with n = 60
    // the number of optimal trees is about 3.1·10^19 > 2^64.
    let n = 60;
    let heads: Vec<usize> = (1..=n)
        .map(|d| {
            if d == 1 {
                0
            } else if d + 3 <= n {
                d + 3
            } else {
                1
            }
        })
        .collect();
    let gold = DepTree::from_heads(&heads).unwrap();
    let g = grammar(tabula::grammars::PROJECTIVE);
    let r = Counter::new(&g, TreeClass::Projective).unwrap().count(&gold).unwrap();
    let a = g.terminal("a").unwrap();
    let mut exact = Parser::<MaxCount<Count>>::new(&g);
    let w = exact.parse(&vec![a; n + 1], |h, d| MaxCount::new(i64::from(d >= 1 && gold.head(d) == h))).unwrap();
    assert_eq!(r.best as i64, w.score.finite().unwrap());
    assert_eq!(r.count, w.count.0);
    assert!(r.count > BigUint::from(u64::MAX), "count {} fits 64 bits", r.count);
}

#[test]
fn a_grammar_without_terminal_a_is_an_error() {
    let g = grammar("(S, S) -> b\nS -> (S, S)\n(_, S) -> (_, S) S\n(S, _) -> S (S, _)\n");
    let e = OptimalProjectivizer::new(&g, TreeClass::Unknown).err().unwrap();
    assert_eq!(e, ProjectivizeError::MissingTerminal("a"));
    assert!(e.to_string().contains("no terminal `a`"));
}

/// Random trees (any shape) of n words, deterministic from the seed.
fn random_tree(n: usize, seed: u64) -> DepTree {
    common::random_tree(n, 0.0, &mut ChaCha8Rng::seed_from_u64(seed))
}

/// The fast counter (machine words, then shared big integers only where
/// needed, counts multiplied only for pairs of best score) against plain
/// (max, count) over arbitrary-precision integers, on sentences whose counts
/// far exceed 2⁶⁴ (issue 10: counting had to get faster and stay exact).
#[test]
fn fast_counting_equals_big_integer_counting_beyond_64_bits() {
    let g = grammar(tabula::grammars::PROJECTIVE);
    let mut counter = Counter::new(&g, TreeClass::Projective).unwrap();
    let mut reference = Parser::<MaxCount<Count>>::new(&g);
    let a = g.terminal("a").unwrap();
    let mut beyond = 0;
    for (n, seed) in [(40, 1), (90, 2), (150, 3), (150, 4), (220, 5)] {
        let gold = random_tree(n, seed);
        let fast = counter.count(&gold).unwrap();
        let input = vec![a; n + 1];
        let want = reference.parse(&input, |h, d| MaxCount::new(i64::from(d >= 1 && gold.head(d) == h))).unwrap();
        assert_eq!(MaxCount::<Count>::new(fast.best as i64).score, want.score, "n = {n}");
        assert_eq!(fast.count, want.count.0, "n = {n}");
        beyond += usize::from(fast.count.bits() > 64);
    }
    assert!(beyond >= 3, "the big-integer path was exercised");
}
