//! The incremental [`OracleSession`] (Sec. 7) against the one-shot linear
//! oracle (Sec. 6) and the brute force: every walk of every projective gold
//! tree with n ≤ 6 and all four strategies; random walks of random projective
//! trees up to n = 60; and the work per step on 400-word sentences.

mod common;

use common::{full_or, projective_trees, random_projective, reachable_configurations, sampled};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{
    arc_standard::linear::LinearOracle, exhaustive, Algorithm, Configuration, Oracle, OracleError, Step, StepScores,
    Strategy, System,
};
use tabula::tree::DepTree;

const STRATEGIES: [Strategy; 4] = [Strategy::None, Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl];

/// Every complete computation (step sequence from the initial configuration
/// to the final one) for n words; every walk is a prefix of one of them.
fn all_computations(n: usize) -> Vec<Vec<Step>> {
    fn go(c: &Configuration, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        if c.is_final() {
            out.push(path.clone());
            return;
        }
        for step in Step::ALL {
            let mut d = c.clone();
            if d.apply(step).is_ok() {
                path.push(step);
                go(&d, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(&Configuration::initial(System::ArcStandard, n), &mut Vec::new(), &mut out);
    out
}

#[test]
fn the_session_equals_the_one_shot_oracle_and_the_brute_force_on_every_walk_of_small_trees() {
    let mut one_shot = LinearOracle::new();
    let mut inner = Oracle::new();
    let mut checked = 0usize;
    for n in 1..=6 {
        let computations = all_computations(n);
        // Six words: every eighth tree unless TABULA_TEST_FULL=1.
        let trees = projective_trees(n).to_vec();
        let trees = if n == 6 { sampled(trees, 8) } else { trees };
        for gold in &trees {
            for strategy in STRATEGIES {
                // The expected answers depend on the configuration only.
                let mut want: HashMap<Configuration, StepScores> = HashMap::new();
                for computation in &computations {
                    let mut session =
                        OracleSession::new(&mut inner, System::ArcStandard, gold.clone(), strategy, Algorithm::Linear)
                            .unwrap();
                    assert!(session.is_incremental());
                    for &step in computation {
                        let c = session.configuration().clone();
                        let expected = *want.entry(c.clone()).or_insert_with(|| {
                            let brute = exhaustive::step_scores(&c, gold, strategy).unwrap();
                            assert_eq!(one_shot.scores(&c, gold, strategy).unwrap(), brute, "one-shot {gold:?} {c:?}");
                            brute
                        });
                        let got = session.scores().unwrap();
                        assert_eq!(got, expected, "gold {gold:?}, {strategy}, {c:?} after {computation:?}");
                        session.apply(step).unwrap();
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > full_or(200_000, 1_000_000), "only {checked} cases");
}

/// A session started mid-computation ([`OracleSession::at`]) builds its
/// state from the configuration alone: at every reachable configuration of
/// every projective tree with n ≤ 6, and after each step from there, it
/// answers as the one-shot oracle.
#[test]
fn a_session_started_anywhere_equals_the_one_shot_oracle() {
    let mut one_shot = LinearOracle::new();
    let mut inner = Oracle::new();
    let mut checked = 0usize;
    for n in 1..=6 {
        let configurations = reachable_configurations(n);
        for gold in projective_trees(n).iter() {
            for strategy in STRATEGIES {
                for c in &configurations {
                    for step in Step::ALL.into_iter().filter(|&s| c.is_applicable(s)) {
                        let mut session =
                            OracleSession::at(&mut inner, gold.clone(), c.clone(), strategy, Algorithm::Linear)
                                .unwrap();
                        assert!(session.is_incremental());
                        let want = one_shot.scores(c, gold, strategy).unwrap();
                        assert_eq!(session.scores().unwrap(), want, "gold {gold:?}, {strategy}, at {c:?}");
                        session.apply(step).unwrap();
                        let after = session.configuration().clone();
                        let want = one_shot.scores(&after, gold, strategy).unwrap();
                        assert_eq!(session.scores().unwrap(), want, "gold {gold:?}, {strategy}, {c:?} then {step:?}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100_000, "only {checked} cases");
}

/// Non-projective gold trees and the other algorithms fall back to one-shot
/// calls; an algorithm for projective trees refuses a non-projective one
/// when the session starts.
#[test]
fn the_session_falls_back_to_one_shot_calls() {
    let crossing = DepTree::from_heads(&[3, 4, 0, 3]).unwrap();
    assert!(!crossing.is_projective());
    let mut inner = Oracle::new();
    for algorithm in [Algorithm::Linear, Algorithm::Quadratic] {
        let refused = OracleSession::new(&mut inner, System::ArcStandard, crossing.clone(), Strategy::Lbr, algorithm);
        assert!(matches!(refused, Err(OracleError::NonProjectiveGold(a)) if a == algorithm), "{algorithm}");
    }
    let mut session =
        OracleSession::new(&mut inner, System::ArcStandard, crossing.clone(), Strategy::Lbr, Algorithm::Auto).unwrap();
    assert_eq!(session.algorithm(), Algorithm::Cubic);
    assert!(!session.is_incremental());
    let want =
        exhaustive::step_scores(&Configuration::initial(System::ArcStandard, 4), &crossing, Strategy::Lbr).unwrap();
    assert_eq!(session.scores().unwrap(), want);
    let chain = DepTree::from_heads(&[0, 1, 2]).unwrap();
    for algorithm in [Algorithm::Cubic, Algorithm::Quadratic] {
        assert!(!OracleSession::new(&mut inner, System::ArcStandard, chain.clone(), Strategy::Lbr, algorithm)
            .unwrap()
            .is_incremental());
    }
    assert!(OracleSession::new(&mut inner, System::ArcStandard, chain, Strategy::Lbr, Algorithm::Auto)
        .unwrap()
        .is_incremental());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_session_equals_the_one_shot_linear_oracle_on_random_walks(
        n in 1usize..=60, seed in any::<u64>(), choices in proptest::collection::vec(0usize..6, 0..240), s in 0usize..4,
    ) {
        let gold = random_projective(n, &mut ChaCha8Rng::seed_from_u64(seed));
        let strategy = STRATEGIES[s];
        let mut one_shot = LinearOracle::new();
        let mut inner = Oracle::new();
        let mut session = OracleSession::new(&mut inner, System::ArcStandard, gold.clone(), strategy, Algorithm::Linear).unwrap();
        prop_assert!(session.is_incremental());
        for &x in &choices {
            if session.configuration().is_final() {
                break;
            }
            let want = one_shot.scores(session.configuration(), &gold, strategy).unwrap();
            prop_assert_eq!(session.scores().unwrap(), want);
            prop_assert_eq!(session.scores().unwrap(), want);
            let steps: Vec<Step> =
                session.configuration().applicable_steps().collect();
            session.apply(steps[x % steps.len()]).unwrap();
        }
    }
}

/// Total work along the computation that always takes the first optimal
/// step (a gold computation): (session work, one-shot memo values +
/// preparation work, steps, largest stack).
fn work_along_gold(gold: &DepTree, strategy: Strategy) -> (usize, usize, usize, usize) {
    let mut one_shot = LinearOracle::new();
    let mut inner = Oracle::new();
    let mut session =
        OracleSession::new(&mut inner, System::ArcStandard, gold.clone(), strategy, Algorithm::Linear).unwrap();
    let (mut one_shot_work, mut steps, mut depth) = (0, 0, 0);
    while !session.configuration().is_final() {
        let s = session.scores().unwrap();
        assert_eq!(s, one_shot.scores(session.configuration(), gold, strategy).unwrap());
        one_shot_work += one_shot.computed() + one_shot.prep_work();
        depth = depth.max(session.configuration().stack().len());
        session.apply(s.optimal()[0]).unwrap();
        steps += 1;
    }
    (session.work(), one_shot_work, steps, depth)
}

/// Balanced projective binary tree over lo..=hi headed by `head`: the root
/// in the middle (in-order) or first (pre-order). Depth ⌈log₂(n + 1)⌉.
fn balanced(lo: usize, hi: usize, head: usize, pre_order: bool, heads: &mut [usize]) {
    if lo > hi {
        return;
    }
    if pre_order {
        heads[lo - 1] = head;
        let mid = lo + 1 + (hi - lo) / 2;
        balanced(lo + 1, mid - 1, lo, true, heads);
        balanced(mid, hi, lo, true, heads);
    } else {
        let mid = (lo + hi) / 2;
        heads[mid - 1] = head;
        balanced(lo, mid - 1, mid, false, heads);
        balanced(mid + 1, hi, mid, false, heads);
    }
}

/// Word 1 under the root with two right-branching chains under it, 2 … h
/// and h + 1 … n (h = n / 2): the gold computation shifts the first chain,
/// then reduces it while h + 1, whose parent is deep in the stack, waits.
fn two_right_chains(n: usize) -> Vec<usize> {
    let h = n / 2;
    (1..=n)
        .map(|v| {
            if v == 1 {
                0
            } else if v == h + 1 {
                1
            } else {
                v - 1
            }
        })
        .collect()
}

/// The test shapes over n words, with the largest stack along their gold
/// computations: O(log n) for the balanced trees, at most 3 for the left
/// chain and the flat tree, n + 1 for the right chain, n / 2 + 1 for the
/// two right chains.
fn shapes(n: usize) -> Vec<(&'static str, DepTree)> {
    let mut in_order = vec![0; n];
    balanced(1, n, 0, false, &mut in_order);
    let mut pre_order = vec![0; n];
    balanced(1, n, 0, true, &mut pre_order);
    let tree = |heads: &[usize]| DepTree::from_heads(heads).unwrap();
    vec![
        ("balanced in-order", tree(&in_order)),
        ("balanced pre-order", tree(&pre_order)),
        ("left chain", tree(&(1..=n).map(|v| if v == n { 0 } else { v + 1 }).collect::<Vec<_>>())),
        ("right chain", tree(&(1..=n).map(|v| v - 1).collect::<Vec<_>>())),
        ("flat", tree(&vec![0; n])),
        ("two right chains", tree(&two_right_chains(n))),
    ]
}

/// The session's work per step along a whole gold computation does not grow
/// with the sentence: doubling it from 200 to 400 words adds at most a
/// logarithmic term (binary lifting), where the one-shot oracle's work per
/// step doubles (it scans the remaining input and rebuilds the stack's
/// tables). This holds on balanced trees, left chains (Θ(n) critical
/// nodes), flat trees (Θ(n) exposed nodes), right chains (the gold
/// computation shifts every word first: a stack of n + 1 nodes) and two
/// right chains (n / 2 reductions while the next input's parent lies at the
/// bottom of the stack).
#[test]
fn work_per_step() {
    let per_step = |n: usize| -> Vec<(Strategy, &'static str, f64, f64)> {
        let mut out = Vec::new();
        for strategy in STRATEGIES {
            for (name, gold) in shapes(n) {
                let (session, one_shot, steps, depth) = work_along_gold(&gold, strategy);
                assert_eq!(steps, 2 * n);
                let (s, o) = (session as f64 / steps as f64, one_shot as f64 / steps as f64);
                eprintln!(
                    "n {n} {name:18} {strategy:10} max stack {depth:3}  session {s:7.1}/step  one-shot {o:7.1}/step"
                );
                out.push((strategy, name, s, o));
            }
        }
        out
    };
    let (small, large) = (per_step(200), per_step(400));
    for (&(strategy, name, s200, o200), &(_, _, s400, o400)) in small.iter().zip(&large) {
        assert!(o400 > 1.8 * o200, "{name} {strategy}: one-shot {o200} → {o400}");
        assert!(s400 < 1.25 * s200, "{name} {strategy}: session {s200} → {s400}");
        assert!(s400 * 10.0 < o400, "{name} {strategy}: session {s400}, one-shot {o400}");
    }
}

/// Off the gold path the session can renew many cells per step (a shift
/// changes the tables of b₁'s parent and children wherever they are on the
/// stack); on walks that stray with probability 0.3, or always, from random
/// projective trees its work per step still stays far below the one-shot
/// oracle's and grows far slower with n.
#[test]
fn work_per_step_on_stray_walks() {
    let per_step = |n: usize, stray: f64| -> (f64, f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let (mut session_work, mut one_shot_work, mut steps) = (0, 0, 0);
        for _ in 0..20 {
            let gold = random_projective(n, &mut rng);
            let mut one_shot = LinearOracle::new();
            let mut inner = Oracle::new();
            let mut session =
                OracleSession::new(&mut inner, System::ArcStandard, gold.clone(), Strategy::Lbr, Algorithm::Linear)
                    .unwrap();
            while !session.configuration().is_final() {
                let s = session.scores().unwrap();
                assert_eq!(s, one_shot.scores(session.configuration(), &gold, Strategy::Lbr).unwrap());
                one_shot_work += one_shot.computed() + one_shot.prep_work();
                let applicable: Vec<Step> = session.configuration().applicable_steps().collect();
                let step =
                    if rng.gen_bool(stray) { applicable[rng.gen_range(0..applicable.len())] } else { s.optimal()[0] };
                session.apply(step).unwrap();
                steps += 1;
            }
            session_work += session.work();
        }
        (session_work as f64 / steps as f64, one_shot_work as f64 / steps as f64)
    };
    for stray in [0.3, 1.0] {
        let ((s100, o100), (s400, o400)) = (per_step(100, stray), per_step(400, stray));
        eprintln!("stray {stray}: n 100 session {s100:.1}/step one-shot {o100:.1}/step; n 400 session {s400:.1}/step one-shot {o400:.1}/step");
        assert!(s400 * 10.0 < o400, "stray {stray}: session {s400}, one-shot {o400}");
        assert!(s400 / s100 < 0.5 * o400 / o100, "stray {stray}: session {s100} → {s400}, one-shot {o100} → {o400}");
    }
}
