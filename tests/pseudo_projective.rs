//! Pseudo-projective encoding and decoding (`tabula::projectivize::pseudo`),
//! checked against brute force: every tree of up to 7 words, under lifting
//! and optimal projectivization, with distinct and with repeated relations;
//! random trees of up to 30 words and random labels (proptest).

mod common;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula::grammar::text;
use tabula::projectivize::pseudo::{decode, encode, Mark, Scheme};
use tabula::projectivize::{lift, OptimalProjectivizer, TreeClass};
use tabula::tree::DepTree;

/// Relations: word i's is `r{i}` (distinct) or `r{i % k}` (k kinds).
fn labels(n: usize, kinds: Option<usize>) -> Vec<String> {
    (1..=n).map(|i| format!("r{}", kinds.map_or(i, |k| i % k))).collect()
}

/// The round trip of one tree: encode the move to `projective`, decode.
fn round_trip(gold: &DepTree, projective: &DepTree, labels: &[String], scheme: Scheme) -> DepTree {
    let e = encode(gold, projective, labels, scheme).unwrap();
    let d = decode(projective, &e.labels).unwrap();
    assert_eq!(d.labels, labels, "labels come back plain");
    assert_eq!(d.malformed, 0);
    d.tree
}

/// Naive reference for the encoding's path marks: the words on the tree
/// path from the original head g to the new head h′ (by ancestor lists),
/// below their lowest common ancestor.
fn reference_path(projective: &DepTree, g: usize, new: usize) -> Vec<usize> {
    let ancestors = |mut v: usize| {
        let mut a = vec![v];
        while v != 0 {
            v = projective.head(v);
            a.push(v);
        }
        a
    };
    let (up_g, up_new) = (ancestors(g), ancestors(new));
    up_g.into_iter().take_while(|v| !up_new.contains(v)).collect()
}

#[test]
fn marks_match_the_naive_path() {
    let grammar = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let mut optimal = OptimalProjectivizer::new(&grammar, TreeClass::Projective).unwrap();
    for n in 1..=6 {
        for gold in common::all_trees(n) {
            let l = labels(n, None);
            for projective in [lift(&gold), optimal.projectivize(&gold).unwrap().tree] {
                let e = encode(&gold, &projective, &l, Scheme::HeadPath).unwrap();
                let mut want = vec![false; n + 1];
                for d in 1..=n {
                    let (g, h) = (gold.head(d), projective.head(d));
                    if g != h && g != 0 {
                        for v in reference_path(&projective, g, h) {
                            want[v] = true;
                        }
                    }
                }
                for (d, &marked) in want.iter().enumerate().skip(1) {
                    let m = Mark::parse(&e.labels[d - 1]);
                    assert_eq!(m.path, marked, "{gold:?} -> {projective:?}: {:?}", e.labels);
                    let moved = gold.head(d) != projective.head(d);
                    assert_eq!(m.moved.is_some(), moved);
                    if moved {
                        let g = gold.head(d);
                        assert_eq!(m.moved, Some(if g == 0 { "" } else { l[g - 1].as_str() }));
                    }
                }
            }
        }
    }
}

/// Counts over all trees of n words: (non-projective trees, restored).
fn restored(n: usize, kinds: Option<usize>, scheme: Scheme, optimal: bool, single_root: bool) -> (usize, usize) {
    let grammar = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let mut p = OptimalProjectivizer::new(&grammar, TreeClass::Projective).unwrap();
    let l = labels(n, kinds);
    let (mut total, mut ok) = (0, 0);
    for gold in common::all_trees(n) {
        if gold.is_projective() {
            assert_eq!(round_trip(&gold, &gold, &l, scheme), gold);
            continue;
        }
        if single_root && gold.heads().iter().filter(|&&h| h == 0).count() != 1 {
            continue;
        }
        let projective = if optimal { p.projectivize(&gold).unwrap().tree } else { lift(&gold) };
        total += 1;
        ok += usize::from(round_trip(&gold, &projective, &l, scheme) == gold);
    }
    (total, ok)
}

#[test]
fn head_schemes_restore_every_tree_with_distinct_relations() {
    for optimal in [false, true] {
        for scheme in [Scheme::Head, Scheme::HeadPath] {
            for n in 1..=6 {
                let (total, ok) = restored(n, None, scheme, optimal, false);
                assert_eq!(ok, total, "{scheme}, n = {n}, optimal: {optimal}");
            }
        }
    }
}

#[test]
#[ignore = "prints the table of docs/projectivize.md; run with --ignored --nocapture"]
fn print_exhaustive_table() {
    for single_root in [true, false] {
        for optimal in [false, true] {
            for kinds in [None, Some(2), Some(1)] {
                for scheme in Scheme::ALL {
                    for n in 3..=7 {
                        let (t, ok) = restored(n, kinds, scheme, optimal, single_root);
                        println!(
                            "{} {} {:?} {} n={n}: {ok}/{t}",
                            if single_root { "single-root" } else { "all" },
                            if optimal { "optimal" } else { "lift" },
                            kinds,
                            scheme
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn decoding_always_gives_a_tree_and_plain_labels() {
    // Arbitrary labels on every tree of up to 5 words: any mix of marks.
    let pool = ["a", "a|b", "b|a", "a|", "a%", "b%", "a|b%", "|", "%", "a|b|c", "|%", "b|a%"];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for n in 1..=5 {
        for tree in common::all_trees(n) {
            for _ in 0..4 {
                let l: Vec<&str> = (0..n).map(|_| pool[rand::Rng::gen_range(&mut rng, 0..pool.len())]).collect();
                let d = decode(&tree, &l).unwrap();
                assert_eq!(d.tree.len(), n);
                for (i, label) in l.iter().enumerate() {
                    let m = Mark::parse(label);
                    assert_eq!(d.labels[i], m.plain);
                    if m.moved.is_none() {
                        assert_eq!(d.tree.head(i + 1), tree.head(i + 1), "unmarked words stay");
                    }
                }
            }
        }
    }
}

fn arb_tree(max_n: usize) -> impl Strategy<Value = DepTree> {
    (1..=max_n, any::<u64>()).prop_map(|(n, seed)| common::random_tree(n, 0.1, &mut ChaCha8Rng::seed_from_u64(seed)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn decode_never_fails_on_any_label(
        tree in arb_tree(30),
        raw in prop::collection::vec(prop_oneof![".{0,6}", "[ab|%:↑]{0,6}"], 30),
    ) {
        let n = tree.len();
        let d = decode(&tree, &raw[..n]).unwrap();
        prop_assert_eq!(d.tree.len(), n);
        prop_assert!(d.reattached <= d.moved);
    }

    #[test]
    fn round_trips_with_distinct_relations(
        gold in arb_tree(30),
        seed in any::<u64>(),
        scheme in prop::sample::select(Scheme::ALL.to_vec()),
        kinds in prop::option::of(1usize..4),
    ) {
        let n = gold.len();
        let l = labels(n, kinds);
        let grammar = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
        let mut p = OptimalProjectivizer::new(&grammar, TreeClass::Projective).unwrap();
        // Lifting, the optimum, and any tree at all over the same words.
        let any = common::random_tree(n, 0.2, &mut ChaCha8Rng::seed_from_u64(seed));
        for moved in [lift(&gold), p.projectivize(&gold).unwrap().tree, any] {
            let back = round_trip(&gold, &moved, &l, scheme);
            // Only moved words may differ.
            for d in 1..=n {
                if moved.head(d) == gold.head(d) {
                    prop_assert_eq!(back.head(d), gold.head(d));
                }
            }
            if scheme != Scheme::Path && kinds.is_none() {
                prop_assert_eq!(&back, &gold);
            }
        }
    }
}

#[test]
fn errors_are_typed() {
    use tabula::projectivize::pseudo::PseudoError;
    let t = DepTree::from_heads(&[0, 0, 1]).unwrap();
    let l = lift(&t);
    assert!(matches!(encode(&t, &l, &["a", "b|c", "d"], Scheme::Head), Err(PseudoError::Reserved { word: 2, .. })));
    assert!(matches!(encode(&t, &l, &["a", "b", "c%"], Scheme::Head), Err(PseudoError::Reserved { word: 3, .. })));
    assert!(matches!(encode(&t, &l, &["a", "", "c"], Scheme::Head), Err(PseudoError::Empty { word: 2 })));
    assert!(matches!(encode(&t, &l, &["a"], Scheme::Head), Err(PseudoError::Labels { words: 3, labels: 1 })));
    let short = DepTree::from_heads(&[0]).unwrap();
    assert!(matches!(encode(&t, &short, &["a", "b", "c"], Scheme::Head), Err(PseudoError::Lengths { .. })));
    assert!(matches!(decode(&t, &["a"]), Err(PseudoError::Labels { .. })));
}
