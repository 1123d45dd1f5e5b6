//! The Sec. 5 and Sec. 6 algorithms against the brute force.

use tabula::oracle::{exhaustive, linear, quadratic, Configuration, Step, Strategy};
use tabula::tree::DepTree;

const STRATEGIES: [Strategy; 4] = [Strategy::None, Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl];

/// Every projective tree over n words.
fn projective_trees(n: usize) -> Vec<DepTree> {
    let mut out = Vec::new();
    let mut heads = vec![0usize; n];
    loop {
        if let Ok(t) = DepTree::from_heads(&heads) {
            if t.is_projective() {
                out.push(t);
            }
        }
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

/// Every configuration reachable from the initial one.
fn reachable(n: usize) -> Vec<Configuration> {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![Configuration::initial(n)];
    let mut out = Vec::new();
    while let Some(c) = todo.pop() {
        if !seen.insert(c.clone()) {
            continue;
        }
        for s in Step::ALL {
            if c.is_applicable(s) {
                let mut d = c.clone();
                d.apply(s).unwrap();
                todo.push(d);
            }
        }
        if !c.is_final() {
            out.push(c);
        }
    }
    out
}

fn check_all(
    n: usize,
    f: fn(&Configuration, &DepTree, Strategy) -> Result<tabula::oracle::StepScores, tabula::oracle::OracleError>,
) {
    let configs = reachable(n);
    let mut failures = 0;
    for gold in projective_trees(n) {
        for c in &configs {
            for s in STRATEGIES {
                let want = exhaustive::step_scores(c, &gold, s).unwrap();
                let got = f(c, &gold, s).unwrap();
                if want != got {
                    failures += 1;
                    if failures <= 10 {
                        eprintln!(
                            "MISMATCH {s} gold={gold:?} stack={:?} buffer={:?}\n  want {want:?}\n  got  {got:?}",
                            c.stack(),
                            c.buffer()
                        );
                    }
                }
            }
        }
    }
    assert_eq!(failures, 0);
}

#[test]
fn quadratic_matches_brute_force_n3() {
    check_all(3, quadratic::scores);
}
#[test]
fn quadratic_matches_brute_force_n4() {
    check_all(4, quadratic::scores);
}
#[test]
fn quadratic_matches_brute_force_n5() {
    check_all(5, quadratic::scores);
}
#[test]
fn linear_matches_brute_force_n5() {
    check_all(5, linear::scores);
}
#[test]
fn quadratic_matches_brute_force_n6() {
    check_all(6, quadratic::scores);
}
#[test]
#[ignore = "slow: about 4 min"]
fn quadratic_matches_brute_force_n7() {
    check_all(7, quadratic::scores);
}
