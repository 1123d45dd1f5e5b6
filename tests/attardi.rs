//! Attardi's parser (seed 002) and its tabular oracle against brute force.

mod common;

use common::{all_trees, reachable_configurations_of};
use rayon::prelude::*;
use tabula::oracle::attardi::tabular::{Filter, Reduction, Rules, TabularOracle};
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::{Configuration, StepScores, Strategy, System};
use tabula::tree::DepTree;

/// The first configuration (of every gold tree with n ≤ `max_n`) where the
/// oracle with `rules` differs from brute force.
fn first_mismatch(rules: Rules, max_n: usize) -> Option<(DepTree, Configuration, StepScores, StepScores)> {
    for n in 1..=max_n {
        let configs = reachable_configurations_of(System::Attardi, n);
        let found = all_trees(n).par_iter().find_map_first(|gold| {
            let mut oracle = TabularOracle::with_rules(rules);
            let mut brute = Exhaustive::new(gold, Strategy::None);
            for c in &configs {
                let want = brute.step_scores(c).unwrap();
                let got = oracle.scores(c, gold).unwrap();
                if got != want {
                    return Some((gold.clone(), c.clone(), got, want));
                }
            }
            None
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

#[test]
fn explore() {
    for (name, rules) in [
        ("plain", Rules::plain()),
        ("prose filter", Rules { filter: Filter::Prose, reduction: Reduction::None }),
        ("printed filter", Rules { filter: Filter::Printed, reduction: Reduction::None }),
        ("printed reduction", Rules { filter: Filter::None, reduction: Reduction::Printed }),
        ("closed reduction", Rules { filter: Filter::None, reduction: Reduction::Closed }),
        ("default", Rules::default()),
    ] {
        let m = first_mismatch(rules, 5);
        eprintln!("{name}: {m:?}");
    }
}

#[test]
fn n6() {
    let t = std::time::Instant::now();
    let m = first_mismatch(Rules::default(), 6);
    eprintln!("default n<=6: {m:?} in {:?}", t.elapsed());
}
