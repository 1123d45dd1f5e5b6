//! The outside pass, arc marginals, the log-expectation and scaled-real
//! semirings and sampling (`src/engine/outside.rs`, `src/engine/sample.rs`,
//! `src/semiring/log_expectation.rs`, `src/semiring/scaled_real.rs`) against brute force over all trees
//! (`tests/common`): random split grammars in every commutative semiring,
//! the projective grammars with real weights from tiny to huge, finite
//! differences of log Z, and the frequencies of drawn trees.

mod common;

use common::random_grammar::case;
use common::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use tabula::engine::{EngineError, Parser};
use tabula::grammar::{text, Grammar, Terminal};
use tabula::semiring::{Boolean, Count, LogExpectation, LogSumExp, MaxCount, MaxPlus, ScaledReal, Semiring};
use tabula::tree::DepTree;

fn load(name: &str, src: &str) -> Grammar {
    text::parse_str(name, src).expect("shipped grammar parses").grammar
}

fn projective() -> Grammar {
    load("projective.grammar", tabula::grammars::PROJECTIVE)
}

fn single_root() -> Grammar {
    load("projective-single-root.grammar", tabula::grammars::PROJECTIVE_SINGLE_ROOT)
}

/// `root a … a` for the single-root grammar, `a … a` for Table 3.
fn words(g: &Grammar, n: usize) -> Vec<Terminal> {
    let a = g.terminal("a").unwrap();
    let root = g.terminal("root").unwrap_or(a);
    std::iter::once(root).chain(std::iter::repeat_n(a, n)).collect()
}

/// Equal in log space: both −∞, or within 1e-9 relative to the larger of
/// the two magnitudes and 1.
fn near(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn near_le(a: LogExpectation, b: LogExpectation) -> bool {
    near(a.log, b.log) && near(a.mean, b.mean)
}

fn log_sum_exp(w: Option<u8>) -> LogSumExp {
    w.map_or(LogSumExp::zero(), |v| LogSumExp(v as f64 * 0.7 - 0.5))
}

fn scaled_real(w: Option<u8>) -> ScaledReal {
    w.map_or(ScaledReal::zero(), |v| ScaledReal::from_ln(v as f64 * 0.7 - 0.5))
}

fn log_expectation(w: Option<u8>) -> LogExpectation {
    w.map_or(LogExpectation::zero(), |v| LogExpectation::new(v as f64 * 0.7 - 0.5, v as f64 - 1.0))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// For every arc, inside ⊗ outside equals the sum over the derivations
    /// containing it, in every commutative semiring, on random grammars
    /// (ambiguous ones included: a tree counts once per derivation).
    #[test]
    fn arc_sums_match_brute_force_on_random_grammars(case in case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);

        let count = |v: Option<u8>| Count::new(v.map_or(0, |v| v as u64 + 1));
        let mut p = Parser::<Count>::new(&g);
        p.parse(&input, |h, d| count(w(h, d))).unwrap();
        prop_assert_eq!(p.arc_sums().unwrap(), brute_force_arc_sums(&g, &input, |h, d| count(w(h, d))));

        let max_plus = |v: Option<u8>| v.map_or(MaxPlus::neg_inf(), |v| MaxPlus::new(v as i64));
        let mut p = Parser::<MaxPlus>::new(&g);
        p.parse(&input, |h, d| max_plus(w(h, d))).unwrap();
        prop_assert_eq!(p.arc_sums().unwrap(), brute_force_arc_sums(&g, &input, |h, d| max_plus(w(h, d))));

        let mut p = Parser::<Boolean>::new(&g);
        p.parse(&input, |h, d| Boolean(w(h, d).is_some())).unwrap();
        prop_assert_eq!(p.arc_sums().unwrap(), brute_force_arc_sums(&g, &input, |h, d| Boolean(w(h, d).is_some())));

        let mut p = Parser::<LogSumExp>::new(&g);
        let total = p.parse(&input, |h, d| log_sum_exp(w(h, d))).unwrap();
        let sums = p.arc_sums().unwrap();
        let reference = brute_force_arc_sums(&g, &input, |h, d| log_sum_exp(w(h, d)));
        for (i, (a, b)) in sums.iter().zip(&reference).enumerate() {
            prop_assert!(near(a.0, b.0), "arc {}: engine {} brute force {}", i, a.0, b.0);
        }
        match p.marginals() {
            Err(e) => prop_assert!(total.is_zero() && e == EngineError::NoDerivation),
            Ok(m) => for (i, (a, b)) in m.iter().zip(&reference).enumerate() {
                prop_assert!(near(a.0, b.0 - total.0), "arc {}: {} vs {}", i, a.0, b.0 - total.0);
            },
        }

        let mut p = Parser::<ScaledReal>::new(&g);
        let total = p.parse(&input, |h, d| scaled_real(w(h, d))).unwrap();
        prop_assert!(near(total.ln(), brute_force(&g, &input, |h, d| log_sum_exp(w(h, d))).0));
        let sums = p.arc_sums().unwrap();
        let reference = brute_force_arc_sums(&g, &input, |h, d| log_sum_exp(w(h, d)));
        for (i, (a, b)) in sums.iter().zip(&reference).enumerate() {
            prop_assert!(near(a.ln(), b.0), "arc {}: engine {} brute force {}", i, a, b.0);
        }
        match p.marginals() {
            Err(e) => prop_assert!(total.is_zero() && e == EngineError::NoDerivation),
            Ok(m) => for (i, (a, b)) in m.iter().zip(&reference).enumerate() {
                prop_assert!(near(a.ln(), b.0 - total.ln()), "arc {}: {} vs {}", i, a, b.0 - total.ln());
            },
        }

        let mut p = Parser::<LogExpectation>::new(&g);
        let value = p.parse(&input, |h, d| log_expectation(w(h, d))).unwrap();
        let reference = brute_force(&g, &input, |h, d| log_expectation(w(h, d)));
        prop_assert!(near_le(value, reference), "{} vs {}", value, reference);
        let sums = p.arc_sums().unwrap();
        let reference = brute_force_arc_sums(&g, &input, |h, d| log_expectation(w(h, d)));
        for (a, b) in sums.iter().zip(&reference) {
            prop_assert!(near_le(*a, *b), "{} vs {}", a, b);
        }
    }

    /// Rule marginals: for every combination of a finish rule and an
    /// attachment rule, and every start rule, the sum over the derivations
    /// that use it (once per use), against derivations listed one by one.
    #[test]
    fn combo_sums_match_brute_force_on_random_grammars(case in case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);
        let count = |v: Option<u8>| Count::new(v.map_or(0, |v| v as u64 + 1));
        let mut p = Parser::<Count>::new(&g);
        p.parse(&input, |h, d| count(w(h, d))).unwrap();
        let sums = p.combo_sums().unwrap();
        let (left, right, start) = brute_force_combo_sums(&g, &input, |h, d| count(w(h, d)));
        prop_assert_eq!(&sums.left, &left);
        prop_assert_eq!(&sums.right, &right);
        prop_assert_eq!(&sums.start, &start);

        let mut p = Parser::<LogSumExp>::new(&g);
        p.parse(&input, |h, d| log_sum_exp(w(h, d))).unwrap();
        let sums = p.combo_sums().unwrap();
        let (left, right, start) = brute_force_combo_sums(&g, &input, |h, d| log_sum_exp(w(h, d)));
        for (a, b) in sums.left.iter().chain(&sums.right).chain(&sums.start).zip(left.iter().chain(&right).chain(&start)) {
            prop_assert!(near(a.0, b.0), "{} vs {}", a.0, b.0);
        }
    }

    /// Max-count: the sampler draws only optimal derivations, and every
    /// sample of the log-sum-exp chart is a derivation with weights.
    #[test]
    fn samples_are_derivations(case in case(), seed in any::<u64>()) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);

        let mut p = Parser::<LogSumExp>::new(&g);
        let total = p.parse(&input, |h, d| log_sum_exp(w(h, d))).unwrap();
        for _ in 0..5 {
            match p.sample(&mut rng) {
                Err(e) => prop_assert!(total.is_zero() && e == EngineError::NoDerivation),
                Ok(d) => {
                    let words: Vec<_> = d.words.iter().map(|w| (w.category, w.left, w.right)).collect();
                    prop_assert!(is_derivation(&g, &input, &d.tree, &words));
                    prop_assert!(d.tree.arcs().all(|(h, dep)| w(h, dep).is_some()));
                }
            }
        }

        let mut p = Parser::<MaxCount>::new(&g);
        let best = p.parse(&input, |h, d| w(h, d).map_or(MaxCount::zero(), |v| MaxCount::new(v as i64))).unwrap();
        if !best.is_zero() {
            for _ in 0..5 {
                let d = p.sample(&mut rng).unwrap();
                let score: i64 = d.tree.arcs().map(|(h, dep)| w(h, dep).unwrap() as i64).sum();
                prop_assert_eq!(Some(score), best.score.finite());
            }
        }
    }

    /// Table 3 and the single-root grammar with real weights of every
    /// magnitude: log Z and the log-marginals stay finite and match brute
    /// force in log space, in `LogSumExp` and in `ScaledReal`; the marginals of each sentence sum to n; the
    /// entropy and the expected number of gold arcs match their definitions.
    #[test]
    fn projective_marginals_match_brute_force(
        n in 0..=7usize,
        single in any::<bool>(),
        scale in prop::sample::select(vec![1e-6, 1.0, 40.0, 1e4]),
        offset in prop::sample::select(vec![0.0, 1e5, -1e5]),
        seed in any::<u64>(),
    ) {
        let g = if single { single_root() } else { projective() };
        // The single-root grammar derives nothing without a word.
        let n = if single { n.max(1) } else { n };
        let input = words(&g, n);
        let size = n + 1;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let scores: Vec<f64> = (0..size * size).map(|_| rng.gen_range(-1.0..1.0) * scale + offset).collect();
        let s = |h: usize, d: usize| scores[h * size + d];
        let gold = random_projective(n, &mut rng);

        let mut p = Parser::<LogSumExp>::new(&g);
        let log_z = p.parse(&input, |h, d| LogSumExp(s(h, d))).unwrap();
        prop_assert!(log_z.0.is_finite());
        let reference = brute_force(&g, &input, |h, d| LogSumExp(s(h, d)));
        prop_assert!(near(log_z.0, reference.0), "{} vs {}", log_z.0, reference.0);
        let m = p.marginals().unwrap();
        let reference = brute_force_arc_sums(&g, &input, |h, d| LogSumExp(s(h, d)));
        // A log-marginal is a difference of two numbers of the size of
        // log Z: its rounding error grows with |log Z| (1e5 per arc here).
        let tolerance = 1e-9 + 1e-13 * log_z.0.abs();
        for (a, b) in m.iter().zip(&reference) {
            prop_assert!(a.0 <= tolerance && (a.0.is_finite() || b.0 == f64::NEG_INFINITY));
            prop_assert!(a.0 == b.0 - log_z.0 || (a.0 - (b.0 - log_z.0)).abs() <= tolerance, "{} vs {}", a.0, b.0 - log_z.0);
        }
        let total: f64 = m.iter().map(|v| v.0.exp()).sum();
        prop_assert!((total - n as f64).abs() <= tolerance * n.max(1) as f64, "marginals sum to {}", total);

        // The same in probability space with scales, unshifted: log Z and
        // every log-marginal as in log space.
        let mut q = Parser::<ScaledReal>::new(&g);
        let z = q.parse(&input, |h, d| ScaledReal::from_ln(s(h, d))).unwrap();
        prop_assert!(near(z.ln(), log_z.0), "{} vs {}", z.ln(), log_z.0);
        for (a, b) in q.marginals().unwrap().iter().zip(&m) {
            prop_assert!(a.ln() == b.0 || (a.ln() - b.0).abs() <= 2.0 * tolerance, "{} vs {}", a.ln(), b.0);
        }

        // Entropy −Σ p log p and E[|t ∩ gold|], over the trees of the grammar
        // (each derived once).
        let trees: Vec<(DepTree, f64)> = projective_trees(n)
            .iter()
            .filter(|t| count_decorations(&g, &input, t) == 1)
            .map(|t| (t.clone(), t.arcs().map(|(h, d)| s(h, d)).sum::<f64>() - log_z.0))
            .collect();
        let entropy: f64 = trees.iter().map(|(_, lp)| -lp.exp() * lp).sum();
        let gold_arcs: f64 = trees.iter().map(|(t, lp)| lp.exp() * t.common_arcs(&gold) as f64).sum();
        let mut e = Parser::<LogExpectation>::new(&g);
        let v = e.parse(&input, |h, d| LogExpectation::new(s(h, d), s(h, d))).unwrap();
        prop_assert!((v.log - v.mean - entropy).abs() <= tolerance, "entropy {} vs {}", v.log - v.mean, entropy);
        let v = e.parse(&input, |h, d| LogExpectation::new(s(h, d), gold.has_arc(h, d) as u8 as f64)).unwrap();
        prop_assert!((v.mean - gold_arcs).abs() <= tolerance * n.max(1) as f64, "gold arcs {} vs {}", v.mean, gold_arcs);
    }
}

/// ∂ log Z / ∂ w(h, d) by central differences equals the marginal of h → d.
#[test]
fn marginals_are_the_gradient_of_log_partition() {
    for (g, n, seed) in [(projective(), 5, 1u64), (projective(), 8, 2), (single_root(), 6, 3)] {
        let input = words(&g, n);
        let size = n + 1;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let scores: Vec<f64> = (0..size * size).map(|_| rng.gen_range(-2.0..2.0)).collect();
        let mut p = Parser::<LogSumExp>::new(&g);
        let mut log_z = |shift: (usize, f64)| {
            p.parse(&input, |h, d| {
                LogSumExp(scores[h * size + d] + if h * size + d == shift.0 { shift.1 } else { 0.0 })
            })
            .unwrap()
            .0
        };
        let eps = 1e-5;
        let grads: Vec<f64> = (0..size * size).map(|i| (log_z((i, eps)) - log_z((i, -eps))) / (2.0 * eps)).collect();
        let mut p = Parser::<LogSumExp>::new(&g);
        p.parse(&input, |h, d| LogSumExp(scores[h * size + d])).unwrap();
        let m = p.marginals().unwrap();
        for (i, (grad, m)) in grads.iter().zip(&m).enumerate() {
            assert!((grad - m.0.exp()).abs() < 1e-7, "n = {n}, arc {i}: {grad} vs {}", m.0.exp());
        }
    }
}

/// Draws `count` trees and returns their frequencies by head vector.
fn frequencies(p: &Parser<'_, impl tabula::semiring::Sampling>, count: usize, seed: u64) -> HashMap<Vec<usize>, f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashMap::new();
    for _ in 0..count {
        *seen.entry(p.sample(&mut rng).unwrap().tree.heads().to_vec()).or_insert(0.0) += 1.0 / count as f64;
    }
    seen
}

/// The frequency of every tree is within 5 standard deviations of its
/// probability (and trees of probability 0 are never drawn).
#[test]
fn sampled_trees_follow_the_gibbs_distribution() {
    let g = projective();
    let n = 4;
    let input = words(&g, n);
    let size = n + 1;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let scores: Vec<f64> = (0..size * size).map(|_| rng.gen_range(-1.5..1.5)).collect();
    let mut p = Parser::<LogSumExp>::new(&g);
    let log_z = p.parse(&input, |h, d| LogSumExp(scores[h * size + d])).unwrap().0;
    let draws = 60_000;
    // The same draws in probability space with scales.
    let mut q = Parser::<ScaledReal>::new(&g);
    q.parse(&input, |h, d| ScaledReal::from_ln(scores[h * size + d])).unwrap();
    let trees = projective_trees(n);
    assert_eq!(trees.len(), 55);
    for seen in [frequencies(&p, draws, 11), frequencies(&q, draws, 12)] {
        for t in trees.iter() {
            let prob = (t.arcs().map(|(h, d)| scores[h * size + d]).sum::<f64>() - log_z).exp();
            let freq = seen.get(t.heads()).copied().unwrap_or(0.0);
            let sd = (prob * (1.0 - prob) / draws as f64).sqrt();
            assert!((freq - prob).abs() <= 5.0 * sd + 1e-4, "{:?}: frequency {freq}, probability {prob}", t.heads());
        }
        assert!(seen.keys().all(|h| trees.iter().any(|t| t.heads() == &h[..])));
    }
}

/// In max-count the sampler draws the optimal trees uniformly: the
/// uniform sampler of optimal trees is the special case of weighted sampling.
#[test]
fn max_count_samples_optimal_trees_uniformly() {
    let g = projective();
    let n = 5;
    let input = words(&g, n);
    // Rightward arcs score 1, leftward 0: the optimal trees are the 42
    // projective trees without a left arc.
    let w = |h: usize, d: usize| (h < d) as i64;
    let mut p = Parser::<MaxCount>::new(&g);
    let best = p.parse(&input, |h, d| MaxCount::new(w(h, d))).unwrap();
    let trees = projective_trees(n);
    let optimal: Vec<&DepTree> = trees
        .iter()
        .filter(|t| Some(t.arcs().map(|(h, d)| w(h, d)).sum::<i64>()) == best.score.finite())
        .collect::<Vec<_>>();
    assert_eq!(best.count, Count::new(optimal.len() as u64));
    assert_eq!(optimal.len(), 42);
    let draws = 30_000;
    let seen = frequencies(&p, draws, 5);
    let prob = 1.0 / optimal.len() as f64;
    let sd = (prob * (1.0 - prob) / draws as f64).sqrt();
    for t in &optimal {
        let freq = seen.get(t.heads()).copied().unwrap_or(0.0);
        assert!((freq - prob).abs() <= 5.0 * sd, "{:?}: frequency {freq}, expected {prob}", t.heads());
    }
    assert_eq!(seen.len(), optimal.len());
}

#[test]
fn reading_the_chart_before_parsing_is_an_error() {
    let g = projective();
    let mut p = Parser::<LogSumExp>::new(&g);
    assert_eq!(p.arc_sums().unwrap_err(), EngineError::NotParsed);
    assert_eq!(p.marginals().unwrap_err(), EngineError::NotParsed);
    assert_eq!(p.sample(&mut ChaCha8Rng::seed_from_u64(0)).unwrap_err(), EngineError::NotParsed);
    // Every arc forbidden: no derivation, so no marginals.
    p.parse(&words(&g, 3), |_, _| LogSumExp::zero()).unwrap();
    assert_eq!(p.marginals().unwrap_err(), EngineError::NoDerivation);
    assert_eq!(p.sample(&mut ChaCha8Rng::seed_from_u64(0)).unwrap_err(), EngineError::NoDerivation);
}

/// A chart reused for a shorter sentence gives the same marginals as a
/// fresh parser (the outside tables are not cleared between calls).
#[test]
fn reused_outside_tables_give_identical_marginals() {
    let g = single_root();
    let scores = |h: usize, d: usize| ((h * 7 + d * 3) % 5) as f64 * 0.3;
    let mut reused = Parser::<LogSumExp>::new(&g);
    reused.parse(&words(&g, 12), |h, d| LogSumExp(scores(h, d))).unwrap();
    reused.marginals().unwrap();
    reused.parse(&words(&g, 6), |h, d| LogSumExp(scores(h, d + 1))).unwrap();
    let mut fresh = Parser::<LogSumExp>::new(&g);
    fresh.parse(&words(&g, 6), |h, d| LogSumExp(scores(h, d + 1))).unwrap();
    assert_eq!(reused.marginals().unwrap(), fresh.marginals().unwrap());
}
