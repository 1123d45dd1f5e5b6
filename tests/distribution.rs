//! Log-partition, marginals and entropy over real arc scores against
//! brute-force enumeration of every tree (`tests/common`, n ≤ 7): all trees
//! by the Matrix-Tree theorem (`src/nonprojective.rs`), single- and
//! multi-root, and the projective trees of the shipped grammars
//! (`src/distribution.rs`), with scores from 10⁻⁶ to 10⁶ in size.

mod common;

use common::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;
use tabula::distribution::{DistributionError, TreeDistribution};
use tabula::engine::EngineError;
use tabula::grammar::{text, Grammar, Terminal};
use tabula::nonprojective::{self, NonProjectiveError, Roots};
use tabula::semiring::LogSumExp;
use tabula::tree::DepTree;

/// Every tree over 0 … n, projective or not, computed once per n ≤ 7.
fn every_tree(n: usize) -> &'static [DepTree] {
    static CACHE: [OnceLock<Vec<DepTree>>; 8] = [const { OnceLock::new() }; 8];
    CACHE[n].get_or_init(|| all_trees(n))
}

fn root_children(t: &DepTree) -> usize {
    t.arcs().filter(|&(h, _)| h == 0).count()
}

/// ln Σ exp over `xs` in log space (−∞ for none).
fn log_sum(xs: impl Iterator<Item = f64>) -> f64 {
    let xs: Vec<f64> = xs.collect();
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return max;
    }
    max + xs.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

/// (ln Z, marginals, entropy) over `trees` by enumeration.
fn brute(trees: &[&DepTree], scores: &[f64], size: usize) -> (f64, Vec<f64>, f64) {
    let score = |t: &DepTree| t.arcs().map(|(h, d)| scores[h * size + d]).sum::<f64>();
    let log_z = log_sum(trees.iter().map(|t| score(t)));
    let mut m = vec![0.0; size * size];
    let mut entropy = 0.0;
    for t in trees {
        let lp = score(t) - log_z;
        if lp == f64::NEG_INFINITY {
            continue;
        }
        for (h, d) in t.arcs() {
            m[h * size + d] += lp.exp();
        }
        entropy -= lp.exp() * lp;
    }
    (log_z, m, entropy)
}

fn scores(size: usize, scale: f64, offset: f64, forbid: f64, rng: &mut impl Rng) -> Vec<f64> {
    (0..size * size)
        .map(|_| if rng.gen_bool(forbid) { f64::NEG_INFINITY } else { rng.gen_range(-1.0..1.0) * scale + offset })
        .collect()
}

fn near(a: f64, b: f64, tolerance: f64) -> bool {
    a == b || (a - b).abs() <= tolerance
}

fn load(name: &str, src: &str) -> Grammar {
    text::parse_str(name, src).unwrap().grammar
}

fn words(g: &Grammar, n: usize) -> Vec<Terminal> {
    let a = g.terminal("a").unwrap();
    std::iter::once(g.terminal("root").unwrap_or(a)).chain(std::iter::repeat_n(a, n)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Matrix-Tree: ln Z and every marginal equal enumeration over all
    /// trees (single root: those with one root child), for scores from
    /// 10⁻⁶ to 10⁶ with forbidden arcs; each column of marginals sums to 1.
    #[test]
    fn matrix_tree_matches_enumeration(
        n in 0..=6usize,
        single in any::<bool>(),
        scale in prop::sample::select(vec![1e-6, 1.0, 5.0]),
        offset in prop::sample::select(vec![0.0, 1e6, -1e6, 700.0]),
        forbid in prop::sample::select(vec![0.0, 0.2]),
        seed in any::<u64>(),
    ) {
        let size = n + 1;
        let roots = if single { Roots::Single } else { Roots::Multi };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = scores(size, scale, offset, forbid, &mut rng);
        let trees: Vec<&DepTree> = every_tree(n).iter().filter(|t| !single || root_children(t) == 1).collect();
        let (log_z, m, _) = brute(&trees, &s, size);
        // ln Z is a sum of n scores: its rounding grows with their size.
        let tolerance = 1e-9 + 1e-15 * offset.abs() * n as f64;
        let z = nonprojective::log_partition(&s, size, roots).unwrap();
        prop_assert!(near(z, log_z, tolerance), "ln Z {} vs {}", z, log_z);
        let mut out = Vec::new();
        match nonprojective::marginals(&s, size, roots, &mut out) {
            Err(e) => prop_assert!(log_z == f64::NEG_INFINITY && e == NonProjectiveError::NoTree, "{}", e),
            Ok(z) => {
                prop_assert!(near(z, log_z, tolerance));
                for (i, (a, b)) in out.iter().zip(&m).enumerate() {
                    prop_assert!((a - b).abs() <= 1e-8, "arc {} -> {}: {} vs {}", i / size, i % size, a, b);
                }
                for d in 1..size {
                    let column: f64 = (0..size).map(|h| out[h * size + d]).sum();
                    prop_assert!((column - 1.0).abs() <= 1e-8);
                }
            }
        }
    }

    /// Matrix-Tree for scores spread up to 10⁴ (the heaviest arcs of each
    /// column forming cycles that outweigh every tree by up to e^(10⁴·n)):
    /// ln Z within 10⁻⁹ relative and every marginal within 10⁻⁹ of
    /// enumeration in log space.
    #[test]
    fn matrix_tree_is_exact_for_any_spread(
        n in 1..=6usize,
        single in any::<bool>(),
        scale in prop::sample::select(vec![20.0, 300.0, 1e3, 1e4]),
        offset in prop::sample::select(vec![0.0, 1e4, -3e5]),
        forbid in prop::sample::select(vec![0.0, 0.3]),
        seed in any::<u64>(),
    ) {
        let size = n + 1;
        let roots = if single { Roots::Single } else { Roots::Multi };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = scores(size, scale, offset, forbid, &mut rng);
        let trees: Vec<&DepTree> = every_tree(n).iter().filter(|t| !single || root_children(t) == 1).collect();
        let (log_z, m, _) = brute(&trees, &s, size);
        let z = nonprojective::log_partition(&s, size, roots).unwrap();
        prop_assert!(near(z, log_z, 1e-9 * log_z.abs().max(1.0)), "ln Z {} vs {}", z, log_z);
        let mut out = Vec::new();
        match nonprojective::marginals(&s, size, roots, &mut out) {
            Err(e) => prop_assert!(log_z == f64::NEG_INFINITY && e == NonProjectiveError::NoTree, "{}", e),
            Ok(z) => {
                prop_assert!(near(z, log_z, 1e-9 * log_z.abs().max(1.0)));
                for (i, (a, b)) in out.iter().zip(&m).enumerate() {
                    prop_assert!((a - b).abs() <= 1e-9, "arc {} -> {}: {} vs {}", i / size, i % size, a, b);
                }
            }
        }
    }

    /// The projective distribution of the shipped grammars: ln Z, marginals
    /// and entropy equal enumeration over the projective trees (single
    /// root: one root child), from tiny to huge scores.
    #[test]
    fn projective_distribution_matches_enumeration(
        n in 0..=7usize,
        single in any::<bool>(),
        scale in prop::sample::select(vec![1e-6, 1.0, 30.0]),
        offset in prop::sample::select(vec![0.0, 1e6, -1e6]),
        forbid in prop::sample::select(vec![0.0, 0.2]),
        seed in any::<u64>(),
    ) {
        let g = if single {
            load("projective-single-root.grammar", tabula::grammars::PROJECTIVE_SINGLE_ROOT)
        } else {
            load("projective.grammar", tabula::grammars::PROJECTIVE)
        };
        let size = n + 1;
        let input = words(&g, n);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = scores(size, scale, offset, forbid, &mut rng);
        let all = projective_trees(n);
        let trees: Vec<&DepTree> = all.iter().filter(|t| !single || root_children(t) == 1).collect();
        let (log_z, m, entropy) = brute(&trees, &s, size);
        let tolerance = 1e-9 + 1e-15 * offset.abs() * n as f64;
        let mut dist = TreeDistribution::new(&g);
        let z = dist.log_partition(&input, &s).unwrap();
        prop_assert!(near(z, log_z, tolerance), "ln Z {} vs {}", z, log_z);
        let mut out = Vec::new();
        match dist.marginals(&input, &s, &mut out) {
            Err(e) => prop_assert!(log_z == f64::NEG_INFINITY && e == DistributionError::Engine(EngineError::NoDerivation)),
            Ok(z) => {
                prop_assert!(near(z, log_z, tolerance));
                for (i, (a, b)) in out.iter().zip(&m).enumerate() {
                    prop_assert!((a - b).abs() <= tolerance, "arc {} -> {}: {} vs {}", i / size, i % size, a, b);
                }
                prop_assert!((out.iter().sum::<f64>() - n as f64).abs() <= 1e-9 * size as f64);
                // (The enumeration's tree scores carry the rounding of the offset.)
                let h = dist.entropy(&input, &s).unwrap();
                prop_assert!((h - entropy).abs() <= tolerance, "entropy {} vs {}", h, entropy);
                // E[|t ∩ gold|] = Σ over the gold arcs of their marginals.
                let gold = random_projective(n, &mut rng);
                let expected: f64 = gold.arcs().map(|(h, d)| m[h * size + d]).sum();
                let e = dist.expected_gold_arcs(&input, &s, &gold).unwrap();
                prop_assert!((e - expected).abs() <= tolerance * size as f64, "{} vs {}", e, expected);
                // The 5 best trees: the 5 best scores of the enumeration.
                let score = |t: &DepTree| t.arcs().map(|(h, d)| s[h * size + d]).sum::<f64>();
                let mut all: Vec<f64> = trees.iter().map(|t| score(t)).filter(|v| v.is_finite()).collect();
                all.sort_unstable_by(|a, b| b.total_cmp(a));
                let best = dist.k_best(&input, &s, 5).unwrap();
                prop_assert_eq!(best.len(), all.len().min(5));
                for ((v, t), b) in best.iter().zip(&all) {
                    prop_assert!(near(*v, *b, tolerance) && near(score(t), *v, tolerance), "{} {} {}", v, b, score(t));
                }
                let drawn = dist.sample(&input, &s, 3, &mut rng).unwrap();
                prop_assert!(drawn.iter().all(|t| trees.contains(&t) && score(t).is_finite()));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// Rule marginals on random split grammars: the expected uses of every
    /// finish and attachment rule equal the derivations listed one by one
    /// (`brute_force_combo_sums`, summed per rule, divided by Z); a grammar
    /// that derives nothing is an error.
    #[test]
    fn rule_marginals_match_brute_force_on_random_grammars(case in random_grammar::case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let size = input.len();
        let score = |h: usize, d: usize| case.weight(h, d).map_or(f64::NEG_INFINITY, |v| v as f64 * 0.7 - 0.5);
        let s: Vec<f64> = (0..size * size).map(|i| score(i / size, i % size)).collect();
        let (left, right, start) = brute_force_combo_sums(&g, &input, |h, d| LogSumExp(score(h, d)));
        let log_z = log_sum(start.iter().map(|v| v.0));
        let got = TreeDistribution::new(&g).rule_marginals(&input, &s);
        if log_z == f64::NEG_INFINITY {
            prop_assert_eq!(got, Err(DistributionError::Engine(EngineError::NoDerivation)));
            return Ok(());
        }
        let got = got.unwrap();
        let mut finish = vec![0.0; g.finish_rules().len()];
        let mut attach_left = vec![0.0; g.left_rules().len()];
        let mut attach_right = vec![0.0; g.right_rules().len()];
        for (c, v) in g.left_combos().iter().zip(&left) {
            finish[c.finish as usize] += (v.0 - log_z).exp();
            attach_left[c.attach as usize] += (v.0 - log_z).exp();
        }
        for (c, v) in g.right_combos().iter().zip(&right) {
            finish[c.finish as usize] += (v.0 - log_z).exp();
            attach_right[c.attach as usize] += (v.0 - log_z).exp();
        }
        let starts = (0..g.finish_rules().len()).filter(|&f| g.finish_rules()[f].category == g.start());
        for (f, v) in starts.zip(&start) {
            finish[f] += (v.0 - log_z).exp();
        }
        for (what, a, b) in [("finish", &got.finish, &finish), ("left", &got.left, &attach_left), ("right", &got.right, &attach_right)] {
            prop_assert_eq!(a.len(), b.len());
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                prop_assert!((x - y).abs() <= 1e-9 * y.max(1.0), "{} rule {}: {} vs {}", what, i, x, y);
            }
        }
    }
}

/// The rule marginals of the two projective grammars follow from the arc
/// marginals (each tree has one derivation): the left rule is used once per
/// left arc, the right rules once per right arc (the single-root grammar's
/// root rule once per tree), the word's finish rule once per word; huge
/// scores are shifted like the arc marginals' own.
#[test]
fn rule_marginals_of_the_projective_grammars_follow_the_arcs() {
    for (single, offset) in [(false, 0.0), (true, 0.0), (false, 1e6), (true, -1e6)] {
        let g = if single {
            load("projective-single-root.grammar", tabula::grammars::PROJECTIVE_SINGLE_ROOT)
        } else {
            load("projective.grammar", tabula::grammars::PROJECTIVE)
        };
        let n = 6;
        let size = n + 1;
        let input = words(&g, n);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let s = scores(size, 3.0, offset, 0.1, &mut rng);
        let all = projective_trees(n);
        let trees: Vec<&DepTree> = all.iter().filter(|t| !single || root_children(t) == 1).collect();
        let (_, m, _) = brute(&trees, &s, size);
        let left: f64 = (0..size).flat_map(|h| (1..h).map(move |d| (h, d))).map(|(h, d)| m[h * size + d]).sum();
        let right_words: f64 =
            (1..size).flat_map(|h| (h + 1..size).map(move |d| (h, d))).map(|(h, d)| m[h * size + d]).sum();
        let root: f64 = (1..size).map(|d| m[d]).sum();
        let r = TreeDistribution::new(&g).rule_marginals(&input, &s).unwrap();
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.max(1.0);
        assert_eq!(r.left.len(), 1);
        assert!(near(r.left[0], left), "{single}: {} vs {left}", r.left[0]);
        if single {
            // S -> (S, S), TOP -> (RL, R1); (_, S) -> (_, S) S, (_, R1) -> (_, R0) S.
            assert!(near(r.finish[0], n as f64) && near(r.finish[1], 1.0), "{:?}", r.finish);
            assert!(near(r.right[0], right_words) && near(r.right[1], 1.0), "{:?} vs {right_words}", r.right);
        } else {
            assert!(near(r.finish[0], size as f64), "{:?}", r.finish);
            assert!(near(r.right[0], right_words + root), "{:?} vs {}", r.right, right_words + root);
        }
    }
}

/// n = 7, the largest size of the enumeration (262144 trees), both classes.
#[test]
fn seven_words_match_enumeration() {
    let n = 7;
    let size = n + 1;
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let s = scores(size, 2.0, 0.0, 0.1, &mut rng);
    for roots in [Roots::Multi, Roots::Single] {
        let trees: Vec<&DepTree> =
            every_tree(n).iter().filter(|t| roots == Roots::Multi || root_children(t) == 1).collect();
        let (log_z, m, _) = brute(&trees, &s, size);
        let mut out = Vec::new();
        let z = nonprojective::marginals(&s, size, roots, &mut out).unwrap();
        assert!(near(z, log_z, 1e-9), "{roots:?}: {z} vs {log_z}");
        for (a, b) in out.iter().zip(&m) {
            assert!((a - b).abs() <= 1e-9, "{roots:?}: {a} vs {b}");
        }
    }
}

/// Regression: the Laplacian's determinant by a pivoted LU cancelled when
/// the heaviest arcs of each column form a cycle that outweighs every tree
/// by e^Δ: with the cycle 1 ⇄ 2 at 19 and the root arcs at 0 and −19
/// (Δ = 38), ln Z was −∞ instead of ln(2 + e⁻³⁸); at 17 it was 0.7289 and
/// the marginals 0.482 instead of ½. Now exact to rounding up to 10⁴.
#[test]
fn a_heavy_cycle_does_not_cancel() {
    for w in [17.0f64, 19.0, 300.0, 1e4] {
        let s = [0.0, -w, -w, 0.0, 0.0, w, 0.0, w, 0.0];
        // Rounding relative to the scores: numbers as large as e^(±2w) are
        // kept as their logarithms beyond the f64 range.
        let tolerance = 1e-15 * (10.0 + 2.0 * w);
        // Trees: 0→1→2 and 0→2→1 weigh 1 each, 0→1 & 0→2 weighs e^(−2w).
        let expected = 2f64.ln() + (0.5 * (-2.0 * w).exp()).ln_1p();
        let z = nonprojective::log_partition(&s, 3, Roots::Multi).unwrap();
        assert!(near(z, expected, tolerance), "w = {w}: ln Z = {z}, expected {expected}");
        let mut out = Vec::new();
        nonprojective::marginals(&s, 3, Roots::Multi, &mut out).unwrap();
        let tiny = (-2.0 * w).exp() / (2.0 + (-2.0 * w).exp());
        let half = 0.5 * (1.0 - tiny);
        // P(1 → 2) = P(2 → 1) = ½(1 − tiny), P(0 → d) = ½ + ½ tiny.
        for (arc, p) in [(5, half), (7, half), (1, 1.0 - half), (2, 1.0 - half)] {
            assert!((out[arc] - p).abs() <= tolerance, "w = {w}: arc {arc}: {} vs {p}", out[arc]);
        }
        // Single root: the two chains, each ½.
        let z = nonprojective::log_partition(&s, 3, Roots::Single).unwrap();
        assert!(near(z, 2f64.ln(), tolerance), "w = {w}: single-root ln Z = {z}");
        nonprojective::marginals(&s, 3, Roots::Single, &mut out).unwrap();
        for arc in [1, 2, 5, 7] {
            assert!((out[arc] - 0.5).abs() <= tolerance, "w = {w}: single root, arc {arc}: {}", out[arc]);
        }
    }
}

/// Scores spread by more than the f64 range within a column (root arcs
/// e^(−10⁴) below a cycle 1 ⇄ 2 ⇄ 3): the log-space path gives ln Z and
/// marginals equal to enumeration.
#[test]
fn scores_beyond_the_f64_range() {
    let n = 3;
    let size = n + 1;
    let mut s = vec![f64::NEG_INFINITY; size * size];
    for d in 1..size {
        s[d] = -1e4 + d as f64;
        for h in (1..size).filter(|&h| h != d) {
            s[h * size + d] = 1e4 * ((h + d) % 3) as f64;
        }
    }
    for roots in [Roots::Multi, Roots::Single] {
        let trees: Vec<&DepTree> =
            every_tree(n).iter().filter(|t| roots == Roots::Multi || root_children(t) == 1).collect();
        let (log_z, m, _) = brute(&trees, &s, size);
        let mut out = Vec::new();
        let z = nonprojective::marginals(&s, size, roots, &mut out).unwrap();
        assert!(near(z, log_z, 1e-9 * log_z.abs()), "{roots:?}: {z} vs {log_z}");
        assert!(near(nonprojective::log_partition(&s, size, roots).unwrap(), log_z, 1e-9 * log_z.abs()));
        for (a, b) in out.iter().zip(&m) {
            assert!((a - b).abs() <= 1e-9, "{roots:?}: {a} vs {b}");
        }
    }
}

/// Beyond enumeration (n = 30, 57): the f64 path and the log-space path
/// agree. One forbidden arc per column, allowed at −5000 below the rest,
/// sends the same distribution (to e^-4990) down the log-space path.
#[test]
fn the_f64_and_log_space_paths_agree() {
    for (n, seed) in [(30, 5u64), (57, 6)] {
        let size = n + 1;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut s = scores(size, 5.0, 0.0, 0.0, &mut rng);
        for d in 1..size {
            s[((d + 1) % size) * size + d] = f64::NEG_INFINITY;
        }
        let mut wide = s.clone();
        for d in 1..size {
            wide[((d + 1) % size) * size + d] = -5000.0;
        }
        for roots in [Roots::Multi, Roots::Single] {
            let (mut plain, mut logs) = (Vec::new(), Vec::new());
            let z = nonprojective::marginals(&s, size, roots, &mut plain).unwrap();
            let z_wide = nonprojective::marginals(&wide, size, roots, &mut logs).unwrap();
            assert!(near(z, z_wide, 1e-10), "{roots:?} n = {n}: {z} vs {z_wide}");
            assert!(near(nonprojective::log_partition(&wide, size, roots).unwrap(), z, 1e-10));
            for (a, b) in plain.iter().zip(&logs) {
                assert!((a - b).abs() <= 1e-10, "{roots:?} n = {n}: {a} vs {b}");
            }
            for d in 1..size {
                let column: f64 = (0..size).map(|h| plain[h * size + d]).sum();
                assert!((column - 1.0).abs() <= 1e-12);
            }
        }
    }
}

/// ∂ ln Z / ∂ s(h, d) by central differences equals the marginal, for the
/// Matrix-Tree theorem and the projective grammar.
#[test]
fn marginals_are_the_gradient_of_log_partition() {
    let g = load("projective.grammar", tabula::grammars::PROJECTIVE);
    let mut dist = TreeDistribution::new(&g);
    for (n, seed) in [(3, 1u64), (6, 2), (9, 3)] {
        let size = n + 1;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = scores(size, 1.5, 0.0, 0.0, &mut rng);
        let eps = 1e-5;
        let input = words(&g, n);
        for roots in [Some(Roots::Multi), Some(Roots::Single), None] {
            let mut log_z = |s: &[f64]| match roots {
                Some(r) => nonprojective::log_partition(s, size, r).unwrap(),
                None => dist.log_partition(&input, s).unwrap(),
            };
            let grads: Vec<f64> = (0..size * size)
                .map(|i| {
                    let (mut up, mut down) = (s.clone(), s.clone());
                    up[i] += eps;
                    down[i] -= eps;
                    (log_z(&up) - log_z(&down)) / (2.0 * eps)
                })
                .collect();
            let mut out = Vec::new();
            match roots {
                Some(r) => nonprojective::marginals(&s, size, r, &mut out).map(|_| ()).unwrap(),
                None => dist.marginals(&input, &s, &mut out).map(|_| ()).unwrap(),
            }
            for (i, (g, m)) in grads.iter().zip(&out).enumerate() {
                assert!((g - m).abs() < 1e-7, "{roots:?} n = {n} arc {i}: {g} vs {m}");
            }
        }
    }
}

/// One `MatrixTree` reused across sentences of every size, both root
/// conventions, spreads that take the wider paths, sentences without a
/// tree and bad scores gives what a fresh one gives, bit for bit.
#[test]
fn a_reused_matrix_tree_forgets_the_previous_sentence() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut tree = nonprojective::MatrixTree::new();
    let (mut reused, mut fresh) = (Vec::new(), Vec::new());
    for round in 0..300 {
        let n = if round % 7 == 0 { rng.gen_range(30..70) } else { rng.gen_range(0..12) };
        let size = n + 1;
        let scale = [0.5, 3.0, 2000.0][round % 3];
        let mut s = scores(size, scale, 0.0, [0.0, 0.3, 0.9][round % 3], &mut rng);
        // A heavy diagonal (ignored) now and then, and a bad score.
        if round % 5 == 0 && n > 0 {
            s[size + 1] = 1e6;
        }
        if round % 11 == 0 && n > 1 {
            s[2 * size + 1] = f64::NAN;
        }
        let roots = if round % 2 == 0 { Roots::Multi } else { Roots::Single };
        let z = tree.marginals(&s, size, roots, &mut reused);
        let z_fresh = nonprojective::marginals(&s, size, roots, &mut fresh);
        assert_eq!(format!("{z:?}"), format!("{z_fresh:?}"), "round {round}, n = {n}");
        if z.is_ok() {
            assert!(reused.iter().zip(&fresh).all(|(a, b)| a.to_bits() == b.to_bits()), "round {round}");
        }
        let l = tree.log_partition(&s, size, roots);
        assert_eq!(format!("{l:?}"), format!("{:?}", nonprojective::log_partition(&s, size, roots)));
    }
}

#[test]
fn bad_scores_are_errors() {
    let mut out = Vec::new();
    assert_eq!(
        nonprojective::log_partition(&[0.0; 8], 3, Roots::Multi),
        Err(NonProjectiveError::Shape { len: 8, size: 3 })
    );
    let mut s = [0.0; 9];
    s[5] = f64::NAN;
    assert!(matches!(
        nonprojective::marginals(&s, 3, Roots::Single, &mut out),
        Err(NonProjectiveError::NotFinite { head: 1, dependent: 2, .. })
    ));
    // Word 2 has no allowed head: no tree.
    let s = [0.0, 0.0, f64::NEG_INFINITY, 0.0, 0.0, f64::NEG_INFINITY, 0.0, 0.0, 0.0];
    assert_eq!(nonprojective::log_partition(&s, 3, Roots::Multi), Ok(f64::NEG_INFINITY));
    assert_eq!(nonprojective::marginals(&s, 3, Roots::Multi, &mut out), Err(NonProjectiveError::NoTree));
    // The root alone: one (empty) tree with any number of root children, none with exactly one.
    assert_eq!(nonprojective::log_partition(&[0.0], 1, Roots::Multi), Ok(0.0));
    assert_eq!(nonprojective::log_partition(&[0.0], 1, Roots::Single), Ok(f64::NEG_INFINITY));

    let g = load("projective.grammar", tabula::grammars::PROJECTIVE);
    let mut dist = TreeDistribution::new(&g);
    let input = words(&g, 2);
    assert_eq!(dist.log_partition(&input, &[0.0; 4]), Err(DistributionError::Shape { len: 4, size: 3 }));
    // Beyond the memory limit: an error, before allocating.
    let huge = dist.sample(&input, &[0.0; 9], usize::MAX / 2, &mut ChaCha8Rng::seed_from_u64(0));
    assert!(matches!(huge, Err(DistributionError::Engine(EngineError::TooMuchMemory(_)))), "{huge:?}");
    assert!(matches!(
        dist.entropy(&input, &[0.0, 0.0, f64::INFINITY, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        Err(DistributionError::NotFinite { head: 0, dependent: 2, .. })
    ));
    assert_eq!(dist.log_partition(&[], &[]), Err(DistributionError::Engine(EngineError::EmptyInput)));
    let gold = DepTree::from_heads(&[0]).unwrap();
    assert_eq!(
        dist.expected_gold_arcs(&input, &[0.0; 9], &gold),
        Err(DistributionError::GoldLength { expected: 2, found: 1 })
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The best tree over all trees (Chu–Liu–Edmonds on real scores, −∞
    /// arcs forbidden): its score is the maximum over the enumerated trees
    /// of the class and its heads are such a tree scoring it; no tree
    /// exactly when every tree of the class uses a forbidden arc.
    #[test]
    fn the_best_tree_over_all_trees_matches_enumeration(
        n in 0..=6usize,
        single in any::<bool>(),
        scale in prop::sample::select(vec![1e-6, 1.0, 30.0]),
        forbid in prop::sample::select(vec![0.0, 0.3, 0.6]),
        seed in any::<u64>(),
    ) {
        let size = n + 1;
        let roots = if single { Roots::Single } else { Roots::Multi };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let s = scores(size, scale, 0.0, forbid, &mut rng);
        let score = |t: &DepTree| t.arcs().map(|(h, d)| s[h * size + d]).sum::<f64>();
        let best = every_tree(n)
            .iter()
            .filter(|t| !single || root_children(t) == 1)
            .map(score)
            .fold(f64::NEG_INFINITY, f64::max);
        match nonprojective::best_tree(&s, size, roots) {
            Err(e) => prop_assert!(best == f64::NEG_INFINITY && e == NonProjectiveError::NoTree, "{} (best {})", e, best),
            Ok((value, heads)) => {
                let t = DepTree::from_heads(&heads).unwrap();
                prop_assert!(!single || root_children(&t) == 1);
                prop_assert!(near(value, score(&t), 1e-12 * scale.max(1.0)));
                prop_assert!(near(value, best, 1e-9 * scale.max(1.0)), "{} vs the best {}", value, best);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The number of derivations of one tree: on random grammars, what
    /// the derivations listed one by one give, for every tree of the
    /// input's length (the grammar's and the others; a non-projective one
    /// has none, being no derivation's).
    #[test]
    fn tree_derivations_match_the_derivations_listed(case in random_grammar::case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let mut dist = TreeDistribution::new(&g);
        for t in every_tree(input.len() - 1) {
            let count = if is_projective(t) { count_decorations(&g, &input, t) } else { 0 };
            let got = dist.tree_log_derivations(&input, t.heads()).unwrap();
            prop_assert!(near(got, (count as f64).ln(), 1e-12), "{:?}: {} vs {} derivations", t.heads(), got, count);
        }
    }
}

/// Samples over all trees follow the distribution: 40,000 draws of the
/// trees of 3 words (16 trees, 9 with one root child) with skewed scores
/// and a forbidden arc, each tree's frequency within 4.5 standard
/// deviations of its probability by enumeration; a seed repeats its draws.
#[test]
fn samples_over_all_trees_follow_the_distribution() {
    let (n, size, draws) = (3, 4, 40_000);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut s = scores(size, 1.5, 0.0, 0.0, &mut rng);
    s[size + 2] = f64::NEG_INFINITY;
    for roots in [Roots::Multi, Roots::Single] {
        let trees: Vec<&DepTree> =
            every_tree(n).iter().filter(|t| roots == Roots::Multi || root_children(t) == 1).collect();
        let (log_z, _, _) = brute(&trees, &s, size);
        let drawn = nonprojective::sample(&s, size, roots, draws, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let again = nonprojective::sample(&s, size, roots, 5, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert_eq!(&drawn[..5], &again[..]);
        let mut seen = 0;
        for t in &trees {
            let p = (t.arcs().map(|(h, d)| s[h * size + d]).sum::<f64>() - log_z).exp();
            let count = drawn.iter().filter(|h| h.as_slice() == t.heads()).count();
            seen += count;
            let sd = (p * (1.0 - p) / draws as f64).sqrt();
            let f = count as f64 / draws as f64;
            assert!((f - p).abs() <= 4.5 * sd + 1e-12, "{:?} ({roots:?}): frequency {f} vs probability {p}", t.heads());
        }
        assert_eq!(seen, draws, "every draw is a tree of the class");
    }
}

/// A case the property test above found: one root child, scores spread to
/// 10³ with forbidden arcs, where the plain determinant's pivots underflow
/// to zero although trees of positive weight exist.
#[test]
fn matrix_tree_survives_pivots_that_underflow() {
    let (n, scale, offset, forbid, seed) = (3, 1e3, 0.0, 0.3, 4109214396065518933u64);
    let size = n + 1;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let s = scores(size, scale, offset, forbid, &mut rng);
    let trees: Vec<&DepTree> = every_tree(n).iter().filter(|t| root_children(t) == 1).collect();
    let (log_z, m, _) = brute(&trees, &s, size);
    let z = nonprojective::log_partition(&s, size, Roots::Single).unwrap();
    assert!(near(z, log_z, 1e-9 * log_z.abs().max(1.0)), "ln Z {z} vs {log_z}");
    let mut out = Vec::new();
    let z = nonprojective::marginals(&s, size, Roots::Single, &mut out).unwrap();
    assert!(near(z, log_z, 1e-9 * log_z.abs().max(1.0)), "ln Z {z} vs {log_z}");
    for (i, (a, b)) in out.iter().zip(&m).enumerate() {
        assert!((a - b).abs() <= 1e-9, "arc {} -> {}: {a} vs {b}", i / size, i % size);
    }
}
