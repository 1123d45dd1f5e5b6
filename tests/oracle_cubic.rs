//! The cubic oracle (Sec. 4) against the brute force: every reachable
//! configuration of every gold tree with n ≤ 5, all strategies; random
//! configurations up to n = 9.

mod common;

use common::{all_trees, reachable_configurations as all_configurations};
use proptest::prelude::*;
use proptest::strategy::Strategy as PropStrategy;
use tabula::oracle::arc_standard::cubic::CubicOracle;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{exhaustive, Algorithm, Configuration, Oracle, OracleError, Step, Strategy, System};
use tabula::tree::DepTree;

const STRATEGIES: [Strategy; 4] = [Strategy::None, Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl];

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

/// n = 6, every gold tree and reachable configuration, no strategy (the
/// brute force keeps its memo across the configurations of a tree).
#[test]
fn cubic_equals_the_brute_force_on_all_trees_of_six_words() {
    use rayon::prelude::*;
    let configs = all_configurations(6);
    let checked: usize = all_trees(6)
        .par_iter()
        .map_init(CubicOracle::embedded, |oracle, gold| {
            let mut brute = exhaustive::Exhaustive::new(gold, Strategy::None);
            for c in &configs {
                assert_eq!(
                    oracle.scores(c, gold, Strategy::None).unwrap(),
                    brute.step_scores(c).unwrap(),
                    "{gold:?} {c:?}"
                );
            }
            configs.len()
        })
        .sum();
    assert!(checked > 1_000_000, "only {checked}");
}

/// A random tree over 0 … n: nodes in random order, each headed by 0 or a
/// node earlier in that order (so any tree, projective or not).
fn random_tree(order: &[usize], picks: &[usize]) -> DepTree {
    let n = order.len();
    let mut heads = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        let choice = picks[i] % (i + 1);
        heads[v - 1] = if choice == 0 { 0 } else { order[choice - 1] };
    }
    DepTree::from_heads(&heads).expect("built acyclic")
}

fn tree_strategy(max_n: usize) -> impl PropStrategy<Value = DepTree> {
    (1..=max_n)
        .prop_flat_map(|n| {
            (Just((1..=n).collect::<Vec<_>>()).prop_shuffle(), proptest::collection::vec(0usize..100, n))
        })
        .prop_map(|(order, picks)| random_tree(&order, &picks))
}

/// Follows `choices` (mod the applicable steps) from the initial configuration.
fn follow(n: usize, choices: &[usize]) -> Configuration {
    let mut c = Configuration::initial(System::ArcStandard, n);
    for &x in choices {
        let steps: Vec<Step> = c.applicable_steps().collect();
        if steps.is_empty() {
            break;
        }
        let mut d = c.clone();
        d.apply(steps[x % steps.len()]).unwrap();
        if d.is_final() {
            break;
        }
        c = d;
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn cubic_equals_the_brute_force_on_random_configurations(gold in tree_strategy(9), choices in proptest::collection::vec(0usize..6, 0..18), s in 0usize..4) {
        let c = follow(gold.len(), &choices);
        let strategy = STRATEGIES[s];
        let mut oracle = CubicOracle::embedded();
        let want = exhaustive::step_scores(&c, &gold, strategy).unwrap();
        prop_assert_eq!(oracle.scores(&c, &gold, strategy).unwrap(), want);
    }

    #[test]
    fn a_session_along_a_random_walk_equals_the_one_shot_oracle(gold in tree_strategy(12), choices in proptest::collection::vec(0usize..6, 0..24), s in 0usize..4) {
        let strategy = STRATEGIES[s];
        let mut one_shot = Oracle::new();
        let mut inner = Oracle::new();
        let mut session = OracleSession::new(&mut inner, System::ArcStandard, gold.clone(), strategy, Algorithm::Cubic).unwrap();
        for &x in &choices {
            if session.configuration().is_final() {
                break;
            }
            let want = one_shot.scores(session.configuration(), &gold, strategy, Algorithm::Cubic).unwrap();
            prop_assert_eq!(session.scores().unwrap(), want);
            prop_assert_eq!(session.scores().unwrap(), want);
            let steps: Vec<Step> = session.configuration().applicable_steps().collect();
            session.apply(steps[x % steps.len()]).unwrap();
        }
    }
}

/// Every edge (configuration, step) of every computation for every gold tree
/// with n ≤ 5: a session at the configuration, told the step, answers as the
/// one-shot oracle does at the successor. Together these cover all walks.
#[test]
fn a_session_equals_the_one_shot_oracle_on_all_walks_of_small_trees() {
    let mut one_shot = Oracle::new();
    let mut inner = Oracle::new();
    for n in 1..=5 {
        let configs = all_configurations(n);
        let trees = all_trees(n);
        for gold in &trees {
            for strategy in STRATEGIES {
                for c in &configs {
                    for step in Step::ALL.into_iter().filter(|&st| c.is_applicable(st)) {
                        let mut next = c.clone();
                        next.apply(step).unwrap();
                        let mut session =
                            OracleSession::at(&mut inner, gold.clone(), c.clone(), strategy, Algorithm::Cubic).unwrap();
                        session.apply(step).unwrap();
                        if next.is_final() {
                            continue;
                        }
                        let want = one_shot.scores(&next, gold, strategy, Algorithm::Cubic).unwrap();
                        assert_eq!(
                            session.scores().unwrap(),
                            want,
                            "gold {gold:?}, {strategy}, from {:?} by {step}",
                            c.stack()
                        );
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// One oracle kept along walks that alternate between two gold trees of
    /// the same length and switch strategies (so its chart is reused across
    /// steps, strategies, grammars and trees) equals a fresh oracle, which
    /// reuses nothing, at every configuration; and the brute force for n ≤ 8.
    #[test]
    fn an_oracle_reusing_its_chart_along_walks_equals_a_fresh_one(
        pair in (1usize..=24).prop_flat_map(|n| (tree_strategy_of(n), tree_strategy_of(n))),
        choices in proptest::collection::vec((0usize..6, 0usize..4, proptest::bool::ANY), 0..60),
    ) {
        let (a, b) = pair;
        let mut reused = CubicOracle::embedded();
        let mut configs = [Configuration::initial(System::ArcStandard, a.len()), Configuration::initial(System::ArcStandard, b.len())];
        for &(x, s, other) in &choices {
            let which = other as usize;
            let (c, gold) = (&mut configs[which], if other { &b } else { &a });
            if c.is_final() {
                continue;
            }
            let strategy = STRATEGIES[s];
            let got = reused.scores(c, gold, strategy).unwrap();
            prop_assert_eq!(got, CubicOracle::embedded().scores(c, gold, strategy).unwrap());
            if gold.len() <= 8 {
                prop_assert_eq!(got, exhaustive::step_scores(c, gold, strategy).unwrap());
            }
            let steps: Vec<Step> = c.applicable_steps().collect();
            c.apply(steps[x % steps.len()]).unwrap();
        }
    }
}

fn tree_strategy_of(n: usize) -> impl PropStrategy<Value = DepTree> {
    (Just((1..=n).collect::<Vec<_>>()).prop_shuffle(), proptest::collection::vec(0usize..100, n))
        .prop_map(|(order, picks)| random_tree(&order, &picks))
}

/// The spans the oracle fills along the optimal computation for `gold`
/// (lbr), and the spans a fresh chart per engine run would fill: L(L + 1)/2
/// for a string of L positions.
fn spans_along_a_computation(gold: &DepTree) -> (u64, u64) {
    let mut oracle = CubicOracle::embedded();
    let mut c = Configuration::initial(System::ArcStandard, gold.len());
    let mut fresh = 0u64;
    while !c.is_final() {
        let scores = oracle.scores(&c, gold, Strategy::Lbr).unwrap();
        let len = (c.stack().len() + c.buffer().count()) as u64;
        for step in c.applicable_steps() {
            let after = if step == Step::Shift { len } else { len - 1 };
            fresh += after * (after + 1) / 2;
        }
        c.apply(scores.optimal()[0]).unwrap();
    }
    (oracle.spans_filled(), fresh)
}

/// Along a computation the oracle fills only the spans that start on the
/// stack, not all spans of each engine run: on a left chain (the stack stays
/// short) a small fraction, on a random non-projective tree (deeper stacks)
/// still well under all. A version that refills the chart at every call
/// fills exactly as many as a fresh chart and fails both.
#[test]
fn the_chart_over_the_remaining_input_is_reused_along_a_computation() {
    let n = 40;
    let chain: Vec<usize> = (1..=n).map(|i| if i == n { 0 } else { i + 1 }).collect();
    let (filled, fresh) = spans_along_a_computation(&DepTree::from_heads(&chain).unwrap());
    eprintln!("left chain: {filled} spans filled, {fresh} with a fresh chart per run");
    assert!(filled * 5 < fresh, "left chain: {filled} spans filled, {fresh} without reuse");
    let picks: Vec<usize> = (0..n).map(|i| (i * 37 + 11) % 100).collect();
    let order: Vec<usize> = (1..=n).collect();
    let (filled, fresh) = spans_along_a_computation(&random_tree(&order, &picks));
    eprintln!("random tree: {filled} spans filled, {fresh} with a fresh chart per run");
    assert!(filled * 3 < fresh * 2, "random tree: {filled} spans filled, {fresh} without reuse");
}

#[test]
fn projective_only_algorithms_refuse_non_projective_gold_and_auto_falls_back() {
    let gold = DepTree::from_heads(&[0, 0, 1]).unwrap(); // non-projective
    let c = Configuration::initial(System::ArcStandard, 3);
    let mut o = Oracle::new();
    for a in [Algorithm::Quadratic, Algorithm::Linear] {
        assert_eq!(o.scores(&c, &gold, Strategy::Lbr, a), Err(OracleError::NonProjectiveGold(a)));
    }
    let cubic = o.scores(&c, &gold, Strategy::Lbr, Algorithm::Cubic).unwrap();
    assert_eq!(o.scores(&c, &gold, Strategy::Lbr, Algorithm::Auto).unwrap(), cubic);
    assert_eq!(cubic, exhaustive::step_scores(&c, &gold, Strategy::Lbr).unwrap());
    let short = DepTree::from_heads(&[0]).unwrap();
    assert!(o.scores(&c, &short, Strategy::Lbr, Algorithm::Cubic).is_err());
}
