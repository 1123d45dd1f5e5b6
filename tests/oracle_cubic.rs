//! The cubic oracle (Sec. 4) against the brute force: every reachable
//! configuration of every gold tree with n ≤ 5, all strategies; random
//! configurations up to n = 9.

use proptest::prelude::*;
use tabula::oracle::cubic::CubicOracle;
use tabula::oracle::{exhaustive, Configuration, Oracle, Step, Strategy};
use tabula::tree::DepTree;

const STRATEGIES: [Strategy; 4] = [Strategy::None, Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl];

/// Every tree over positions 0 … n (all head vectors without cycles).
fn all_trees(n: usize) -> Vec<DepTree> {
    let mut out = Vec::new();
    let mut heads = vec![0usize; n];
    loop {
        if let Ok(t) = DepTree::from_heads(&heads) {
            out.push(t);
        }
        // Next head vector in lexicographic order over 0..=n.
        let mut i = 0;
        loop {
            if i == n {
                return out;
            }
            heads[i] += 1;
            if heads[i] <= n {
                break;
            }
            heads[i] = 0;
            i += 1;
        }
    }
}

/// Every configuration reachable from the initial one (any steps).
fn all_configurations(n: usize) -> Vec<Configuration> {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![Configuration::initial(n)];
    while let Some(c) = todo.pop() {
        if !seen.insert(c.clone()) {
            continue;
        }
        for step in Step::ALL {
            let mut d = c.clone();
            if d.apply(step).is_ok() {
                todo.push(d);
            }
        }
    }
    let mut v: Vec<_> = seen.into_iter().filter(|c| !c.is_final()).collect();
    v.sort_by(|a, b| (a.stack(), a.next_input()).cmp(&(b.stack(), b.next_input())));
    v
}

#[test]
fn tree_and_configuration_enumeration_is_complete() {
    // (n + 1)^(n − 1) trees over n + 1 labelled nodes rooted at 0 (Cayley).
    assert_eq!(all_trees(3).len(), 16);
    assert_eq!(all_trees(4).len(), 125);
    // Stacks are subsequences 0 … of the shifted prefix, ending at its last node.
    assert_eq!(all_configurations(1).len(), 2);
}

#[test]
fn cubic_equals_the_brute_force_on_all_small_trees() {
    let mut oracle = CubicOracle::embedded();
    let mut checked = 0usize;
    for n in 1..=5 {
        let configs = all_configurations(n);
        for gold in all_trees(n) {
            for c in &configs {
                for strategy in STRATEGIES {
                    let want = exhaustive::step_scores(c, &gold, strategy).unwrap();
                    let got = oracle.scores(c, &gold, strategy).unwrap();
                    assert_eq!(got, want, "gold {gold:?}, stack {:?}, buffer {:?}, {strategy}", c.stack(), c.buffer());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "only {checked} cases");
}
