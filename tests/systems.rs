//! The transition-system layer and the grammar oracles of arc-hybrid and
//! arc-eager against brute force:
//!
//! * the shipped grammars' parse counts (over the arcs that are not
//!   forbidden) equal the number of distinct arc sets reachable by
//!   simulation, from every reachable configuration with n ≤ 7 (so each
//!   reachable arc set is exactly one tree of the grammar);
//! * the grammar oracle equals the brute force on every reachable
//!   configuration of every gold tree with n ≤ 6, projective or not, and on
//!   random configurations up to n = 9 (proptest);
//! * `Configuration::with_arcs` accepts exactly the reachable
//!   configurations (n ≤ 4, every stack, input and arc set; Attardi: every
//!   reachable one, and some unreachable ones, see `docs/systems.md`);
//! * lbr and strict-lbr change nothing for arc-hybrid and arc-eager.

mod common;

use common::{
    against_brute_force, all_trees, follow_choices, full_or, live_key, reachable_configurations_of,
    reachable_with_arcs, sampled, tree_from_picks, LiveKey,
};
use hashbrown::{HashMap, HashSet};
use proptest::prelude::*;
use std::rc::Rc;
use tabula::engine::Parser;
use tabula::grammar::{text, Grammar};
use tabula::oracle::arc_eager::grammar::EagerMapping;
use tabula::oracle::arc_hybrid::grammar::HybridMapping;
use tabula::oracle::exhaustive;
use tabula::oracle::grammar_oracle::{ArcKind, Encoding, GrammarOracle, TerminalMapping};
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Step, Strategy, System};
use tabula::semiring::{Count, Semiring};
use tabula::tree::DepTree;

const GRAMMAR_SYSTEMS: [(System, &dyn TerminalMapping); 2] =
    [(System::ArcHybrid, &HybridMapping), (System::ArcEager, &EagerMapping)];

/// Arc sets over at most 8 nodes as bit masks: bit 8h + d for the arc h → d.
fn bit(h: usize, d: usize) -> u64 {
    1 << (8 * h + d)
}

/// Every distinct set of arcs that complete computations from `c` build
/// (arcs built before `c` not included), memoised on the [`live_key`].
fn arc_sets(c: &Configuration, memo: &mut HashMap<LiveKey, Rc<HashSet<u64>>>) -> Rc<HashSet<u64>> {
    if c.is_final() {
        return Rc::new(HashSet::from([0]));
    }
    let key = live_key(c);
    if let Some(s) = memo.get(&key) {
        return s.clone();
    }
    let mut out = HashSet::new();
    for step in c.applicable_steps().collect::<Vec<_>>() {
        let mut d = c.clone();
        let arc = d.apply(step).unwrap().map_or(0, |(h, d)| bit(h, d));
        out.extend(arc_sets(&d, memo).iter().map(|s| s | arc));
    }
    let out = Rc::new(out);
    memo.insert(key, out.clone());
    out
}

#[test]
fn the_shipped_grammars_load_without_warnings() {
    for (name, src) in
        [("arc-hybrid.grammar", tabula::grammars::ARC_HYBRID), ("arc-eager.grammar", tabula::grammars::ARC_EAGER)]
    {
        let parsed = text::parse_str(name, src).unwrap();
        assert!(parsed.warnings.is_empty(), "{name}: {}", text::render(&parsed.warnings));
    }
}

#[test]
fn grammar_parses_are_exactly_the_reachable_arc_sets() {
    let mut enc = Encoding::default();
    let mut checked = 0;
    for (system, mapping) in GRAMMAR_SYSTEMS {
        let grammar: &Grammar = mapping.embedded_grammar();
        let terminals: Vec<_> = mapping.terminals().iter().map(|t| grammar.terminal(t).unwrap()).collect();
        let mut parser = Parser::<Count>::new(grammar);
        for n in 0..=7 {
            let mut memo = HashMap::new();
            for c in reachable_configurations_of(system, n) {
                let want = arc_sets(&c, &mut memo).len();
                mapping.encode(&c, &mut enc);
                let input: Vec<_> = enc.roles.iter().map(|&r| terminals[r as usize]).collect();
                let got = parser
                    .parse(&input, |h, d| match mapping.arc(&enc, h, d) {
                        ArcKind::Forbidden => Count::zero(),
                        ArcKind::Free | ArcKind::Scored => Count::one(),
                    })
                    .unwrap();
                assert_eq!(got, Count::new(want as u64), "{system} n = {n} at {c:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 2_000, "only {checked} configurations");
}

/// Every reachable configuration of every gold tree with n ≤ `max_n`:
/// grammar oracle (through [`Oracle::scores`], cubic and auto) == brute force.
fn grammar_oracle_equals_brute_force(system: System, max_n: usize) -> usize {
    let configs = |n| reachable_configurations_of(system, n);
    // The largest size: every fourth tree unless TABULA_TEST_FULL=1.
    let trees = |n| if n == max_n { sampled(all_trees(n), 4) } else { all_trees(n) };
    against_brute_force(1..=max_n, configs, trees, |oracle, gold, c, want| {
        let got = oracle.scores(c, gold, Strategy::None, Algorithm::Cubic).unwrap();
        assert_eq!(got, want, "{system}: gold {gold:?}, {c:?}");
    })
}

#[test]
fn arc_hybrid_grammar_oracle_equals_the_brute_force_on_all_trees_up_to_6() {
    let checked = grammar_oracle_equals_brute_force(System::ArcHybrid, 6);
    assert!(checked > full_or(250_000, 1_000_000), "only {checked}");
}

#[test]
fn arc_eager_grammar_oracle_equals_the_brute_force_on_all_trees_up_to_6() {
    let checked = grammar_oracle_equals_brute_force(System::ArcEager, 6);
    assert!(checked > full_or(250_000, 1_000_000), "only {checked}");
}

#[test]
fn left_before_right_strategies_change_nothing_for_hybrid_and_eager() {
    let mut oracle = Oracle::new();
    for system in [System::ArcHybrid, System::ArcEager] {
        for n in 1..=4 {
            let configs = reachable_configurations_of(system, n);
            for gold in all_trees(n) {
                for c in &configs {
                    let none = exhaustive::step_scores(c, &gold, Strategy::None).unwrap();
                    for strategy in [Strategy::Lbr, Strategy::StrictLbr] {
                        assert_eq!(exhaustive::step_scores(c, &gold, strategy).unwrap(), none, "{system} {strategy}");
                        assert_eq!(oracle.scores(c, &gold, strategy, Algorithm::Cubic).unwrap(), none);
                    }
                }
            }
        }
        let gold = DepTree::from_heads(&[0]).unwrap();
        let c = Configuration::initial(system, 1);
        let err = oracle.scores(&c, &gold, Strategy::Rbl, Algorithm::Cubic).unwrap_err();
        assert!(matches!(err, OracleError::UnsupportedStrategy { .. }), "{err}");
        let err = oracle.scores(&c, &gold, Strategy::None, Algorithm::Quadratic).unwrap_err();
        assert!(matches!(err, OracleError::UnsupportedAlgorithm { .. }), "{err}");
    }
}

/// All head assignments of words 1 … `last` (each: no head, or a head 0 … `last`).
fn all_arc_sets(last: usize) -> Vec<Vec<(usize, usize)>> {
    let mut out = vec![Vec::new()];
    for d in 1..=last {
        let mut next = Vec::new();
        for arcs in &out {
            next.push(arcs.clone());
            for h in (0..=last).filter(|&h| h != d) {
                let mut a = arcs.clone();
                a.push((h, d));
                next.push(a);
            }
        }
        out = next;
    }
    out
}

#[test]
fn arcs_are_accepted_exactly_for_reachable_configurations() {
    for system in System::ALL {
        for n in 0..=4 {
            // Arc-eager-nm's configurations after an unshift: tests/arc_eager_nm.rs.
            let reachable: HashSet<Configuration> =
                reachable_with_arcs(system, n).into_iter().filter(|c| c.unshifted().is_none()).collect();
            let mut accepted = 0;
            for next in 1..=n + 1 {
                let buffer: Vec<usize> = (next..=n).collect();
                for mask in 0..(1u32 << (next - 1)) {
                    let stack: Vec<usize> =
                        std::iter::once(0).chain((1..next).filter(|&w| mask & (1 << (w - 1)) != 0)).collect();
                    for arcs in all_arc_sets(next.min(n)) {
                        let result = Configuration::with_arcs(system, &stack, &buffer, &arcs, n);
                        let is_reachable = result.as_ref().is_ok_and(|c| reachable.contains(c));
                        match &result {
                            // Attardi: only necessary conditions are checked
                            // (docs/systems.md; tests/attardi.rs).
                            Ok(c) => assert!(
                                is_reachable || system == System::Attardi,
                                "{system}: accepted unreachable {c:?}"
                            ),
                            Err(e) => assert!(
                                matches!(e, OracleError::InconsistentArcs { .. }),
                                "{system}: {stack:?} {buffer:?} {arcs:?}: {e}"
                            ),
                        }
                        accepted += result.is_ok() as usize;
                    }
                }
            }
            let accepted_reachable = if system == System::Attardi {
                reachable
                    .iter()
                    .filter(|c| {
                        let arcs: Vec<_> = c.arcs().collect();
                        let buffer: Vec<_> = c.buffer().collect();
                        Configuration::with_arcs(system, c.stack(), &buffer, &arcs, n).is_ok()
                    })
                    .count()
            } else {
                accepted
            };
            assert_eq!(
                accepted_reachable,
                reachable.len(),
                "{system} n = {n}: some reachable configurations were refused"
            );
        }
    }
}

#[test]
fn arc_eager_without_arcs_is_an_error_beyond_the_root() {
    assert!(matches!(
        Configuration::new(System::ArcEager, &[0, 1], &[2], 2),
        Err(OracleError::ArcsNeeded(System::ArcEager))
    ));
    assert!(Configuration::new(System::ArcEager, &[0], &[2], 2).is_ok());
    let e = Configuration::with_arcs(System::ArcEager, &[0, 2], &[3], &[(0, 2)], 3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the arcs are inconsistent with this arc-eager configuration: word 1 has left the stack but has no head"
    );
}

#[test]
fn a_user_grammar_without_the_terminals_is_refused() {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let e = GrammarOracle::new(&EagerMapping, &g).err().unwrap();
    assert_eq!(e.to_string(), "the arc-eager grammar has no terminal `r`; it must have the terminals r, h, u, b");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_grammar_oracle_equals_the_brute_force_on_random_configurations(
        n in 1usize..=9,
        order_seed in proptest::collection::vec(0usize..1000, 9),
        picks in proptest::collection::vec(0usize..100, 9),
        choices in proptest::collection::vec(0usize..12, 0..20),
        which in 0usize..2,
    ) {
        let mut order: Vec<usize> = (1..=n).collect();
        order.sort_by_key(|&v| (order_seed[v - 1], v));
        let gold = tree_from_picks(&order, &picks[..n]);
        let system = GRAMMAR_SYSTEMS[which].0;
        let c = follow_choices(system, n, &choices);
        let want = exhaustive::step_scores(&c, &gold, Strategy::None).unwrap();
        let mut oracle = Oracle::new();
        prop_assert_eq!(oracle.scores(&c, &gold, Strategy::None, Algorithm::Cubic).unwrap(), want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// One grammar oracle kept along a walk (its chart reused from step to
    /// step) equals a fresh oracle at every configuration, on trees of up to
    /// 24 words, and the brute force up to 8.
    #[test]
    fn the_grammar_oracle_reusing_its_chart_along_a_walk_equals_a_fresh_one(
        n in 1usize..=24,
        order_seed in proptest::collection::vec(0usize..1000, 24),
        picks in proptest::collection::vec(0usize..100, 24),
        choices in proptest::collection::vec(0usize..12, 0..60),
        which in 0usize..2,
    ) {
        let mut order: Vec<usize> = (1..=n).collect();
        order.sort_by_key(|&v| (order_seed[v - 1], v));
        let gold = tree_from_picks(&order, &picks[..n]);
        let system = GRAMMAR_SYSTEMS[which].0;
        let mut reused = Oracle::new();
        let mut c = Configuration::initial(system, n);
        for &x in &choices {
            if c.is_final() {
                break;
            }
            let got = reused.scores(&c, &gold, Strategy::None, Algorithm::Cubic).unwrap();
            prop_assert_eq!(got, Oracle::new().scores(&c, &gold, Strategy::None, Algorithm::Cubic).unwrap());
            if n <= 8 {
                prop_assert_eq!(got, exhaustive::step_scores(&c, &gold, Strategy::None).unwrap());
            }
            let steps: Vec<Step> = c.applicable_steps().collect();
            c.apply(steps[x % steps.len()]).unwrap();
        }
    }
}

/// `Configuration::arc` names the arc `apply` then builds (and gives its
/// dependent a head it did not have), for every step of every reachable
/// configuration (n ≤ 5), and `None` for steps that do not apply. (Which
/// arcs the steps build is checked against the grammars above.)
#[test]
fn arc_predicts_the_arc_apply_builds() {
    for system in System::ALL {
        for n in 0..=5 {
            for c in reachable_with_arcs(system, n) {
                for step in c.steps().chain(Step::ALL) {
                    let mut d = c.clone();
                    let predicted = c.arc(step);
                    let built = if c.is_applicable(step) { d.apply(step).unwrap() } else { None };
                    assert_eq!(predicted, built, "{system}: {step} at {c:?}");
                    if let Some((h, dep)) = built {
                        // Arc-eager-nm's `left_arc` may replace a head.
                        let before = if system.definition().is_monotonic() { None } else { c.head(dep) };
                        assert_eq!((c.head(dep), d.head(dep)), (before, Some(h)), "{system}: {step} at {c:?}");
                    }
                }
            }
        }
    }
}

/// Regression: arc-eager offered `reduce` in a final configuration (empty
/// input), so a loop that applied steps until none applied went on past the
/// end. In every system, a reachable configuration is final exactly when no
/// step applies.
#[test]
fn a_configuration_is_final_exactly_when_no_step_applies() {
    for system in tabula::oracle::System::ALL {
        for n in 1..=4 {
            for c in common::reachable_with_arcs(system, n) {
                assert_eq!(c.is_final(), c.applicable_steps().next().is_none(), "{system}, n = {n}: {c:?}");
            }
        }
    }
}
