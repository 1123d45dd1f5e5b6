//! Partial gold trees (words without a head): the oracles that accept them
//! score the annotated arcs only, equal to the brute force on every
//! configuration of every partial tree of up to 5 words (every tree, every
//! set of annotated words) and of random ones of 5 to 7 words, for
//! arc-standard, arc-hybrid and arc-eager, root first and last, and for
//! non-monotonic arc-eager (its table); the others refuse them with a clear
//! error, and so does every static oracle.

mod common;

use common::{all_trees, live_key, random_tree, reachable_configurations_from};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Root, Strategy, System};
use tabula::tree::DepTree;

/// The systems with an oracle for partial trees, with their root positions.
const LAYOUTS: [(System, Root); 6] = [
    (System::ArcStandard, Root::First),
    (System::ArcHybrid, Root::First),
    (System::ArcHybrid, Root::Last),
    (System::ArcEager, Root::First),
    (System::ArcEager, Root::Last),
    (System::ArcEagerNm, Root::First),
];

/// `tree` with the heads of the words outside `mask` (bit d − 1 for word d) removed.
fn keep(tree: &DepTree, mask: u32) -> DepTree {
    let heads: Vec<Option<usize>> =
        (1..=tree.len()).map(|d| (mask >> (d - 1) & 1 == 1).then(|| tree.head(d))).collect();
    DepTree::from_partial_heads(&heads).unwrap()
}

/// Every partial tree of `words` words (each tree, each proper subset of annotated words).
fn all_partial_trees(words: usize) -> Vec<DepTree> {
    let full = (1u32 << words) - 1;
    let set: BTreeSet<Vec<usize>> =
        all_trees(words).iter().flat_map(|t| (0..full).map(move |m| keep(t, m).heads().to_vec())).collect();
    set.into_iter()
        .map(|h| {
            let heads: Vec<Option<usize>> = h.iter().map(|&x| (x != DepTree::NO_HEAD).then_some(x)).collect();
            DepTree::from_partial_heads(&heads).unwrap()
        })
        .collect()
}

/// Every reachable configuration, one per future (for arc-eager-nm the
/// future also depends on whether b₁ is an unshifted word).
fn configurations(system: System, root: Root, words: usize) -> Vec<Configuration> {
    let n = if root == Root::Last { words + 1 } else { words };
    let key = |c: &Configuration| (live_key(c), c.unshifted().is_some());
    reachable_configurations_from(Configuration::initial_at(system, n, root), key)
}

/// The oracle (`algorithm`, `strategy`) against the brute force on every
/// configuration in `configs` (or a sample of `share` of them) for every
/// tree; returns the pairs checked.
fn check(
    (system, root): (System, Root),
    trees: &[DepTree],
    configs: &[Configuration],
    (strategy, algorithm): (Strategy, Algorithm),
    share: f64,
    rng: &mut ChaCha8Rng,
) -> usize {
    let mut oracle = Oracle::new();
    let mut checked = 0;
    for t in trees {
        let gold = root.extend_tree(t);
        assert!(gold.is_partial());
        let mut brute = Exhaustive::new(&gold, strategy);
        for c in configs.iter().filter(|_| share >= 1.0 || rng.gen_bool(share)) {
            let want = brute.step_scores(c).unwrap();
            let got = oracle.scores(c, &gold, strategy, algorithm).unwrap();
            assert_eq!(got, want, "{system} {root:?} {strategy} {algorithm}: gold {t}, {c:?}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn oracles_equal_the_brute_force_on_every_partial_tree_of_up_to_4_words() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (system, root) in LAYOUTS {
        let mut checked = 0;
        for words in 1..=4 {
            let trees = all_partial_trees(words);
            let configs = configurations(system, root, words);
            let exact = if system == System::ArcEagerNm { Algorithm::Tabular } else { Algorithm::Cubic };
            for algorithm in [exact, Algorithm::Auto] {
                checked += check((system, root), &trees, &configs, (Strategy::None, algorithm), 1.0, &mut rng);
            }
            if system == System::ArcStandard {
                for strategy in [Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl] {
                    checked += check((system, root), &trees, &configs, (strategy, Algorithm::Cubic), 1.0, &mut rng);
                }
            }
        }
        assert!(checked > 10_000, "{system} {root:?}: {checked}");
    }
}

#[test]
fn oracles_equal_the_brute_force_on_every_partial_tree_of_5_words() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let trees = all_partial_trees(5);
    for (system, root) in LAYOUTS {
        let configs = configurations(system, root, 5);
        let checked = check((system, root), &trees, &configs, (Strategy::None, Algorithm::Auto), 1.0, &mut rng);
        assert!(checked > 100_000, "{system} {root:?}: {checked}");
    }
}

#[test]
fn oracles_equal_the_brute_force_on_random_partial_trees_of_5_to_7_words() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for (system, root) in LAYOUTS {
        for words in 5..=7 {
            let configs = configurations(system, root, words);
            let trees: Vec<DepTree> = (0..8)
                .map(|_| {
                    let t = random_tree(words, 0.3, &mut rng);
                    let mask = rng.gen_range(0..(1u32 << words) - 1);
                    keep(&t, mask)
                })
                .collect();
            let share = if words == 7 { 0.05 } else { 0.2 };
            let checked = check((system, root), &trees, &configs, (Strategy::None, Algorithm::Auto), share, &mut rng);
            assert!(checked > 50, "{system} {root:?} {words}: {checked}");
        }
    }
}

#[test]
fn no_annotated_arc_scores_zero_everywhere() {
    for (system, root) in LAYOUTS {
        let gold = root.extend_tree(&DepTree::from_partial_heads(&[None; 4]).unwrap());
        let mut oracle = Oracle::new();
        for c in configurations(system, root, 4) {
            let scores = oracle.scores(&c, &gold, Strategy::None, Algorithm::Auto).unwrap();
            let extra = u32::from(root == Root::Last); // the arc 0 → root position, dropped by the layout
            assert!(scores.iter().all(|(_, s)| s + extra <= 1), "{system}: {c:?} {scores:?}");
        }
    }
}

#[test]
fn the_other_oracles_refuse_partial_trees() {
    let gold = DepTree::from_partial_heads(&[Some(2), None, Some(2)]).unwrap();
    let mut oracle = Oracle::new();
    let refused = [
        (System::ArcStandard, Algorithm::Linear),
        (System::ArcStandard, Algorithm::Quadratic),
        (System::ArcStandard, Algorithm::Goldberg),
        (System::ArcHybrid, Algorithm::Linear),
        (System::ArcEager, Algorithm::Linear),
        (System::LrSpine, Algorithm::Auto),
        (System::Attardi, Algorithm::Auto),
    ];
    for (system, algorithm) in refused {
        let c = Configuration::initial(system, 3);
        let err = oracle.scores(&c, &gold, Strategy::None, algorithm).unwrap_err();
        assert!(matches!(err, OracleError::PartialGold { .. }), "{system} {algorithm}: {err}");
        assert!(err.to_string().contains("partial"), "{err}");
    }
    for system in [System::ArcHybrid, System::ArcEager, System::LrSpine, System::ArcEagerNm] {
        let c = Configuration::initial(system, 3);
        let err = oracle.static_step(&c, &gold).unwrap_err();
        assert!(matches!(err, OracleError::PartialGold { .. }), "{system}: {err}");
    }
}
