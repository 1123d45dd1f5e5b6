//! The Sec. 5 and Sec. 6 algorithms against the brute force.

//!
//! * `*_matches_brute_force_nN`: every projective gold tree over N words ×
//!   every reachable non-final configuration × every strategy (N ≤ 6; for
//!   N = 6 every fourth tree unless `TABULA_TEST_FULL=1`; N = 7 for quadratic
//!   is `#[ignore]`d, about 4 minutes).
//! * `random_walks_match_brute_force`: random projective trees up to 9 words,
//!   every configuration along random computations.
//! * `linear_matches_quadratic_on_long_walks`: up to 60 words.
//! * `linear_computes_linearly_many_values`: the Sec. 6 pruning really prunes.

mod common;

use common::{projective_trees, random_projective, reachable_configurations as reachable, sampled};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula::oracle::arc_standard::linear::LinearOracle;
use tabula::oracle::arc_standard::quadratic::QuadraticOracle;
use tabula::oracle::arc_standard::{linear, quadratic};
use tabula::oracle::{exhaustive, Algorithm, Configuration, OracleError, Step, StepScores, Strategy, System};
use tabula::tree::DepTree;

const STRATEGIES: [Strategy; 4] = [Strategy::None, Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl];

type Scorer = fn(&Configuration, &DepTree, Strategy) -> Result<StepScores, OracleError>;

fn check_all(n: usize, f: Scorer) {
    let configs = reachable(n);
    let mut failures = 0;
    // Six words and more: every fourth tree unless TABULA_TEST_FULL=1.
    let trees = projective_trees(n).to_vec();
    let trees = if n >= 6 { sampled(trees, 4) } else { trees };
    for gold in &trees {
        for c in &configs {
            for s in STRATEGIES {
                let want = exhaustive::step_scores(c, gold, s).unwrap();
                let got = f(c, gold, s).unwrap();
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
#[test]
fn linear_matches_brute_force_n6() {
    check_all(6, linear::scores);
}

/// The non-final configurations of a random computation, biased towards
/// shifting when `bias` is large.
fn random_walk(n: usize, rng: &mut ChaCha8Rng) -> Vec<Configuration> {
    let mut c = Configuration::initial(System::ArcStandard, n);
    let mut out = Vec::new();
    let shift_bias = rng.gen_range(0.2..0.8);
    while !c.is_final() {
        out.push(c.clone());
        let steps: Vec<Step> = c.applicable_steps().collect();
        let step = if c.is_applicable(Step::Shift) && rng.gen_bool(shift_bias) {
            Step::Shift
        } else {
            steps[rng.gen_range(0..steps.len())]
        };
        c.apply(step).unwrap();
    }
    out
}

/// Proptest cases: 200, or `ORACLE_FAST_CASES`.
fn cases() -> u32 {
    std::env::var("ORACLE_FAST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_walks_match_brute_force(n in 1usize..=9, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let gold = random_projective(n, &mut rng);
        let mut quad = QuadraticOracle::new();
        let mut lin = LinearOracle::new();
        for c in random_walk(n, &mut rng) {
            for s in STRATEGIES {
                let want = exhaustive::step_scores(&c, &gold, s).unwrap();
                prop_assert_eq!(quad.scores(&c, &gold, s).unwrap(), want, "quadratic {} {:?} {:?} {:?}", s, gold, c.stack(), c.buffer());
                prop_assert_eq!(lin.scores(&c, &gold, s).unwrap(), want, "linear {} {:?} {:?} {:?}", s, gold, c.stack(), c.buffer());
            }
        }
    }

    #[test]
    fn linear_matches_quadratic_on_long_walks(n in 1usize..=60, seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let gold = random_projective(n, &mut rng);
        let mut quad = QuadraticOracle::new();
        let mut lin = LinearOracle::new();
        for c in random_walk(n, &mut rng) {
            for s in STRATEGIES {
                let want = quad.scores(&c, &gold, s).unwrap();
                prop_assert_eq!(lin.scores(&c, &gold, s).unwrap(), want, "{} {:?} {:?} {:?}", s, gold, c.stack(), c.buffer());
            }
        }
    }
}

/// Counts the memo entries of both algorithms on configurations whose stack
/// holds half of a long sentence; the quadratic one grows with the square.
#[test]
fn linear_computes_linearly_many_values() {
    let n = 400;
    // Shapes: a right chain, a left chain, a flat tree, and random trees.
    let mut golds = vec![
        DepTree::from_heads(&(0..n).collect::<Vec<_>>()).unwrap(),
        DepTree::from_heads(&(0..n).map(|i| if i + 1 == n { 0 } else { i + 2 }).collect::<Vec<_>>()).unwrap(),
        DepTree::from_heads(&vec![0; n]).unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    golds.extend((0..20).map(|_| random_projective(n, &mut rng)));
    let mut lin = LinearOracle::new();
    let mut quad = QuadraticOracle::new();
    let mut max_quad = 0;
    let mut max_lin_ratio = 0.0f64;
    for gold in &golds {
        for stack_len in [n / 4, n / 2, n] {
            // Every other word on the stack, so the stack is far from the gold tree.
            let stack: Vec<usize> =
                std::iter::once(0).chain((1..=stack_len).filter(|v| v % 2 == 1 || *v == stack_len)).collect();
            let buffer: Vec<usize> = (stack_len + 1..=n).collect();
            let c = Configuration::new(System::ArcStandard, &stack, &buffer, n).unwrap();
            for s in STRATEGIES {
                let a = lin.scores(&c, gold, s).unwrap();
                let km = stack.len() + buffer.len();
                max_lin_ratio = max_lin_ratio.max(lin.computed() as f64 / km as f64);
                assert!(lin.computed() <= 3 * 8 * km, "linear computed {} values for k + m = {km}", lin.computed());
                let b = quad.scores(&c, gold, s).unwrap();
                assert_eq!(a, b);
                max_quad = max_quad.max(quad.computed());
            }
        }
    }
    eprintln!("linear: at most {max_lin_ratio:.2} values per stack/input node; quadratic: up to {max_quad} values");
    // The count discriminates: the unpruned recursion is quadratic here.
    assert!(max_quad > 3 * 8 * (n + 1), "quadratic computed only {max_quad}");
}

#[test]
fn non_projective_gold_is_an_error() {
    // 1 -> 3 crosses 0 -> 2.
    let gold = DepTree::from_heads(&[0, 0, 1]).unwrap();
    let c = Configuration::initial(System::ArcStandard, 3);
    assert_eq!(quadratic::scores(&c, &gold, Strategy::Lbr), Err(OracleError::NonProjectiveGold(Algorithm::Quadratic)));
    assert_eq!(linear::scores(&c, &gold, Strategy::Lbr), Err(OracleError::NonProjectiveGold(Algorithm::Linear)));
    let short = DepTree::from_heads(&[0, 1]).unwrap();
    assert!(matches!(linear::scores(&c, &short, Strategy::Lbr), Err(OracleError::LengthMismatch { .. })));
    assert!(matches!(quadratic::scores(&c, &short, Strategy::Lbr), Err(OracleError::LengthMismatch { .. })));
}

/// Worked by hand. Gold 1 <- 2 -> 3, 0 -> 2; stack [0 1 2], input [3].
/// reduce_right builds 2 -> 1, then 2 -> 3 and 0 -> 2: 3. reduce_left builds
/// the wrong 1 -> 2 and loses 2: 0. A shift puts 3 above 2, so under lbr 2
/// can no longer take its left child 1 once it has the right child 3; then 1
/// must become 2's head or 2's sibling under 0 can't be reached: only 2 -> 3
/// counts, 1. With no strategy 2 takes 1 after 3: 3; under rbl that order is
/// the required one: 3.
#[test]
fn hand_worked_example() {
    let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
    let c = Configuration::new(System::ArcStandard, &[0, 1, 2], &[3], 3).unwrap();
    for f in [quadratic::scores as Scorer, linear::scores] {
        let s = |st| f(&c, &gold, st).unwrap();
        assert_eq!(
            s(Strategy::Lbr),
            StepScores::new(&[(Step::Shift, Some(1)), (Step::ReduceLeft, Some(0)), (Step::ReduceRight, Some(3))])
        );
        assert_eq!(s(Strategy::None).get(Step::Shift), Some(3));
        assert_eq!(s(Strategy::Rbl).get(Step::Shift), Some(3));
        assert_eq!(s(Strategy::StrictLbr).get(Step::Shift), Some(1));
    }
}
