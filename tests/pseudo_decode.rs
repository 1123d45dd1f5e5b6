//! The pseudo-projective decoder answers the searches that cannot succeed
//! without searching, and rebuilds its children lists only after a change:
//! it decodes exactly as the decoder before (kept in
//! `common/pseudo_reference.rs`) on random trees with random, encoded and
//! malformed labels, and a crafted sentence that took 23 s (50,000 words
//! hanging off word 1, each `a|nowhere`) is decoded in one pass.
//!
//! Regression test: `tabula deprojectivize` on that sentence was quadratic.

mod common;
#[path = "common/pseudo_reference.rs"]
mod pseudo_reference;

use common::{random_projective, random_tree};
use pseudo_reference::reference_decode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula::projectivize::pseudo::{decode, search_budget, PseudoError};
use tabula::tree::DepTree;

/// A label drawn among plain relations, moved words (naming a relation,
/// one nobody has, or none), path marks and malformed ones.
fn label(rng: &mut ChaCha8Rng, marks: bool) -> String {
    let r = |rng: &mut ChaCha8Rng| format!("r{}", rng.gen_range(0..4));
    let plain = r(rng);
    let mut l = match rng.gen_range(0..10) {
        0..=4 => plain,
        5 | 6 => format!("{plain}|{}", r(rng)),
        7 => format!("{plain}|"),
        8 => format!("{plain}|nowhere"),
        _ => ["|", "a|b|c", "%x"][rng.gen_range(0..3)].to_owned(),
    };
    if marks && rng.gen_bool(0.2) && !l.contains('%') {
        l.push('%');
    }
    l
}

#[test]
fn decodes_as_the_reference_on_random_trees_and_labels() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for case in 0..3000 {
        let n = rng.gen_range(1..=40);
        let tree = if case % 2 == 0 { random_projective(n, &mut rng) } else { random_tree(n, 0.1, &mut rng) };
        // Some sentences without any path mark, some without any moved word naming a relation.
        let marks = case % 3 != 0;
        let labels: Vec<String> = (0..n).map(|_| label(&mut rng, marks)).collect();
        let want = reference_decode(&tree, &labels).unwrap();
        let got = decode(&tree, &labels).unwrap();
        assert_eq!(got, want, "{:?} {labels:?}", tree.heads());
    }
}

#[test]
fn crafted_labels_decode_in_one_pass() {
    // 50,000 words hanging off word 1, each naming a relation nobody has.
    let n = 50_000;
    let heads: Vec<usize> = (1..=n).map(|d| if d == 1 { 0 } else { 1 }).collect();
    let tree = DepTree::from_heads(&heads).unwrap();
    let mut labels = vec!["a|nowhere".to_owned(); n];
    labels[0] = "root".to_owned();
    let d = decode(&tree, &labels).unwrap();
    assert_eq!(d.tree, tree);
    assert_eq!((d.moved, d.reattached), (n - 1, 0));
    assert!(d.labels.iter().skip(1).all(|l| l == "a"));
    // The same with `a|` (no marks: the root): every word goes to the root.
    labels[1..].iter_mut().for_each(|l| *l = "a|".to_owned());
    let d = decode(&tree, &labels).unwrap();
    assert_eq!(d.reattached, n - 1);
    assert!(d.tree.heads().iter().all(|&h| h == 0));
    // And on a small one, the same as the reference.
    let small: Vec<usize> = (1..=300).map(|d| if d == 1 { 0 } else { 1 }).collect();
    let small = DepTree::from_heads(&small).unwrap();
    for l in ["a|nowhere", "a|", "a|root", "a|%", "a|a"] {
        let mut labels = vec![l.to_owned(); 300];
        labels[0] = "root".to_owned();
        assert_eq!(decode(&small, &labels).unwrap(), reference_decode(&small, &labels).unwrap(), "{l}");
    }
}

/// Labels that make every moved word search the whole tree (each names
/// the relation of the last word only) would cost n² and more: within
/// `search_budget` they are decoded as before (300 words, against the
/// reference), past it they are refused with `SearchBudget`, after looking
/// at no more words than the budget (20,000 words: n² = 4 · 10⁸).
#[test]
fn labels_that_search_the_whole_tree_are_refused_past_the_budget() {
    let star = |n: usize| {
        let heads: Vec<usize> = (1..=n).map(|d| if d == 1 { 0 } else { 1 }).collect();
        let mut labels = vec!["a|b".to_owned(); n];
        labels[0] = "root".to_owned();
        labels[n - 1] = "b".to_owned();
        (DepTree::from_heads(&heads).unwrap(), labels)
    };
    let (small, labels) = star(300);
    assert_eq!(decode(&small, &labels).unwrap(), reference_decode(&small, &labels).unwrap());
    let (big, labels) = star(20_000);
    match decode(&big, &labels) {
        Err(PseudoError::SearchBudget { words, moved, budget }) => {
            assert_eq!((words, moved, budget), (20_000, 19_998, search_budget(20_000)));
        }
        other => panic!("expected the search budget's error, got {other:?}"),
    }
}
