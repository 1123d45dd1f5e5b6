//! Attardi's parser (seed 002) and its tabular oracle against brute force:
//!
//! * the oracle (through [`Oracle::scores`], `tabular` and `auto`) equals
//!   the brute force ([`Exhaustive`]) on every reachable configuration of
//!   every gold tree with n ≤ 6, projective or not, and on random
//!   configurations of random trees up to n = 8 (proptest);
//! * each part of the printed Algorithm 1 / Sec. 5.2 that was corrected
//!   fails somewhere with n ≤ 5 when restored ([`Rules`]), and gives the
//!   documented wrong score on its counterexample (`docs/systems.md`);
//! * `Configuration::with_arcs` accepts every reachable configuration;
//! * the size limit and the budget of pairs are typed errors (a budget
//!   changes no answer); strategies other than none are refused.

mod common;

use common::{
    against_brute_force, all_trees, follow_choices, reachable_configurations_of, reachable_with_arcs, sampled,
    tabula_with_stdin, tree_from_picks,
};
use proptest::prelude::*;
use rayon::prelude::*;
use tabula::oracle::attardi::tabular::{Filter, Reduction, Rules, TabularOracle};
use tabula::oracle::exhaustive::{self, Exhaustive};
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy, System};
use tabula::tree::DepTree;

/// The first configuration (of every gold tree with n ≤ `max_n`, every
/// reachable configuration) where the oracle with `rules` differs from brute force.
fn first_mismatch(rules: Rules, max_n: usize) -> Option<(DepTree, Configuration, StepScores, StepScores)> {
    (1..=max_n).find_map(|n| {
        let configs = reachable_configurations_of(System::Attardi, n);
        all_trees(n).par_iter().find_map_first(|gold| {
            let mut oracle = TabularOracle::with_rules(rules);
            let mut brute = Exhaustive::new(gold, Strategy::None);
            configs.iter().find_map(|c| {
                let want = brute.step_scores(c).unwrap();
                let got = oracle.scores(c, gold).unwrap();
                (got != want).then(|| (gold.clone(), c.clone(), got, want))
            })
        })
    })
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_all_trees_up_to_6() {
    let configs = |n| reachable_configurations_of(System::Attardi, n);
    let checked = against_brute_force(1..=6, configs, all_trees, |oracle, gold, c, want| {
        for algorithm in [Algorithm::Tabular, Algorithm::Auto] {
            let got = oracle.scores(c, gold, Strategy::None, algorithm).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
        }
    });
    assert!(checked > 2_000_000, "only {checked} configurations");
}

#[test]
fn one_table_and_two_tables_both_equal_the_brute_force_up_to_6() {
    for choice in [false, true] {
        for n in 1..=6 {
            let configs = reachable_configurations_of(System::Attardi, n);
            // Six words: every third tree unless TABULA_TEST_FULL=1.
            let trees = if n == 6 { sampled(all_trees(n), 3) } else { all_trees(n) };
            trees.par_iter().for_each(|gold| {
                let mut oracle = TabularOracle::new();
                oracle.force_two_tables(Some(choice));
                let mut brute = Exhaustive::new(gold, Strategy::None);
                for c in &configs {
                    assert_eq!(
                        oracle.scores(c, gold).unwrap(),
                        brute.step_scores(c).unwrap(),
                        "{choice} {gold:?} {c:?}"
                    );
                }
            });
        }
    }
}

#[test]
fn every_printed_part_restored_fails_somewhere_up_to_5() {
    // The plain table (no filter, no reduction) is exact: the corrections
    // are in the shortcuts.
    assert!(first_mismatch(Rules::plain(), 5).is_none());
    assert!(first_mismatch(Rules::default(), 5).is_none());
    for rules in [
        Rules::printed(),
        Rules { filter: Filter::Printed, reduction: Reduction::Sound },
        Rules { filter: Filter::Prose, reduction: Reduction::Sound },
        Rules { filter: Filter::None, reduction: Reduction::Printed },
        Rules { filter: Filter::None, reduction: Reduction::Closed },
        Rules { filter: Filter::None, reduction: Reduction::ClosedProjective },
    ] {
        assert!(first_mismatch(rules, 5).is_some(), "{rules:?} agrees with brute force");
    }
}

/// The scores of `rules` and of brute force at (stack, next) for the gold
/// heads of words 1 … n.
fn both(rules: Rules, heads: &[usize], stack: &[usize], next: usize) -> (StepScores, StepScores) {
    let gold = DepTree::from_heads(heads).unwrap();
    let n = heads.len();
    let buffer: Vec<usize> = (next..=n).collect();
    let c = Configuration::new(System::Attardi, stack, &buffer, n).unwrap();
    let got = TabularOracle::with_rules(rules).scores(&c, &gold).unwrap();
    let want = exhaustive::step_scores(&c, &gold, Strategy::None).unwrap();
    assert_eq!(TabularOracle::new().scores(&c, &gold).unwrap(), want);
    (got, want)
}

#[test]
fn the_printed_filter_keeps_only_gold_arcs_in_the_buffer() {
    // Gold 0 → 1, 4 → 2, 1 → 3, 1 → 4; stack [0, 1], input 2 3 4.
    // Printed "h ∉ γ" never holds: 4 → 2 … 1 → 4 must all be gold, but after
    // right_arc (0 → 1) the buffer's 3 and 4 lose their head 1 and need a
    // wrong one: right_arc scores 2 (0 → 1, 4 → 2), the printed filter 1.
    let rules = Rules { filter: Filter::Printed, reduction: Reduction::None };
    let (got, want) = both(rules, &[0, 4, 1, 1], &[0, 1], 2);
    assert_eq!((got.get(Step::RightArc), want.get(Step::RightArc)), (Some(1), Some(2)));
}

#[test]
fn the_prose_filter_fails_on_trees_attardi_cannot_build() {
    // Gold 3 → 1, 1 → 2, 0 → 3, 2 → 4, 1 → 5 is not buildable (at most 4 of
    // its 5 arcs); in the buffer the filter allows only gold arcs while the
    // heads are present, so every computation it keeps has a dead end but
    // one with 3 arcs.
    let rules = Rules { filter: Filter::Prose, reduction: Reduction::None };
    let (got, want) = both(rules, &[3, 1, 0, 2, 1], &[0], 1);
    assert_eq!((got.get(Step::Shift), want.get(Step::Shift)), (Some(3), Some(4)));
}

#[test]
fn the_printed_reduction_counts_arcs_from_the_stack() {
    // Gold 3 → 1, 1 → 2, 0 → 3; stack [0, 1], input 2 3. The subtree of 3
    // meets both printed conditions, so 2 3 is reduced to 3 as if 1 → 2 were
    // built; after right_arc (0 → 1, wrong) it no longer can be: right_arc
    // scores 1 (3 is lost too), the printed reduction 2.
    let rules = Rules { filter: Filter::None, reduction: Reduction::Printed };
    let (got, want) = both(rules, &[3, 1, 0], &[0, 1], 2);
    assert_eq!((got.get(Step::RightArc), want.get(Step::RightArc)), (Some(2), Some(1)));
}

#[test]
fn a_closed_subtree_may_not_be_buildable_on_its_own() {
    // Gold 0 → 1, 3 → 2, 4 → 3, 0 → 4, 2 → 5: the subtree of 4 (words 2 … 5)
    // is closed and contiguous, but not buildable (2 needs 5 before 3 takes
    // it, and 5 comes after 3 and 4): reducing it claims all 5 arcs, brute
    // force finds 4. Requiring a projective subtree avoids it.
    let rules = Rules { filter: Filter::None, reduction: Reduction::Closed };
    let (got, want) = both(rules, &[0, 3, 4, 0, 2], &[0], 1);
    assert_eq!((got.get(Step::Shift), want.get(Step::Shift)), (Some(5), Some(4)));
}

#[test]
fn reducing_the_first_input_word_restricts_the_shift() {
    // Gold 5 → 1, 1 → 2, 1 → 3, 5 → 4, 0 → 5; stack [0, 1, 2, 3], input 4 5.
    // 4 5 reduces to 5 (a projective closed subtree); the best score (5, by
    // right_arc_2) survives, but `shift` then means "build 5 → 4 first":
    // 3 instead of 4.
    let rules = Rules { filter: Filter::None, reduction: Reduction::ClosedProjective };
    let (got, want) = both(rules, &[5, 1, 1, 5, 0], &[0, 1, 2, 3], 4);
    assert_eq!((got.get(Step::Shift), want.get(Step::Shift)), (Some(3), Some(4)));
    assert_eq!(got.best(), want.best());
}

#[test]
fn too_large_a_table_is_a_typed_error() {
    let gold = DepTree::from_heads(&[2, 0, 2, 3, 4, 5]).unwrap();
    // Stack 0 … 5: nothing to reduce, |γ| = 7.
    let c = Configuration::new(System::Attardi, &[0, 1, 2, 3, 4, 5], &[6], 6).unwrap();
    // Without pruning, the table must run; with it, a greedy computation
    // reaches every step's upper bound here and no table runs.
    let mut oracle = TabularOracle::new();
    oracle.set_pruning(false);
    oracle.set_max_gamma(6);
    let e = oracle.scores(&c, &gold).unwrap_err();
    assert_eq!(e, OracleError::TooLarge { gamma: 7, limit: 6 });
    assert!(e.to_string().contains("|γ| = 7"), "{e}");
    oracle.set_max_gamma(7);
    let want = oracle.scores(&c, &gold).unwrap();
    oracle.set_pruning(true);
    oracle.set_max_gamma(6);
    assert_eq!(oracle.scores(&c, &gold).unwrap(), want);
    assert_eq!(oracle.last_stats().tables, 0);
}

#[test]
fn strategies_and_algorithms_other_than_none_and_tabular_are_refused() {
    let gold = DepTree::from_heads(&[0]).unwrap();
    let c = Configuration::initial(System::Attardi, 1);
    let mut oracle = Oracle::new();
    for strategy in [Strategy::Lbr, Strategy::StrictLbr, Strategy::Rbl] {
        let e = oracle.scores(&c, &gold, strategy, Algorithm::Auto).unwrap_err();
        assert!(matches!(e, OracleError::OnlyStrategyNone { .. }), "{e}");
    }
    for algorithm in [Algorithm::Cubic, Algorithm::Quadratic, Algorithm::Linear] {
        let e = oracle.scores(&c, &gold, Strategy::None, algorithm).unwrap_err();
        assert!(matches!(e, OracleError::UnsupportedAlgorithm { .. }), "{e}");
    }
    let other = Configuration::initial(System::ArcStandard, 1);
    let e = oracle.scores(&other, &gold, Strategy::None, Algorithm::Tabular).unwrap_err();
    assert!(matches!(e, OracleError::UnsupportedAlgorithm { .. }), "{e}");
}

#[test]
fn every_reachable_configuration_passes_with_arcs() {
    for n in 0..=6 {
        for c in reachable_with_arcs(System::Attardi, n) {
            let arcs: Vec<(usize, usize)> = c.arcs().collect();
            let buffer: Vec<usize> = c.buffer().collect();
            let d = Configuration::with_arcs(System::Attardi, c.stack(), &buffer, &arcs, n)
                .unwrap_or_else(|e| panic!("{c:?}: {e}"));
            assert_eq!(d, c);
        }
    }
    // An arc over a stack word is accepted (0 → 3 over 2: left_arc, then
    // right_arc_2 from stack 0 2 3); a stack word with a head is not.
    assert!(Configuration::with_arcs(System::Attardi, &[0, 2], &[4], &[(2, 1), (0, 3)], 4).is_ok());
    let e = Configuration::with_arcs(System::Attardi, &[0, 1, 2], &[3], &[(2, 1)], 3).unwrap_err();
    assert!(e.to_string().contains("stack word 1 has head 2"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_tabular_oracle_equals_the_brute_force_on_random_configurations(
        n in 1usize..=8,
        order_seed in proptest::collection::vec(0usize..1000, 8),
        picks in proptest::collection::vec(0usize..100, 8),
        choices in proptest::collection::vec(0usize..12, 0..24),
    ) {
        let mut order: Vec<usize> = (1..=n).collect();
        order.sort_by_key(|&v| (order_seed[v - 1], v));
        let gold = tree_from_picks(&order, &picks[..n]);
        let c = follow_choices(System::Attardi, n, &choices);
        let want = exhaustive::step_scores(&c, &gold, Strategy::None).unwrap();
        let mut oracle = Oracle::new();
        prop_assert_eq!(oracle.scores(&c, &gold, Strategy::None, Algorithm::Tabular).unwrap(), want);
    }
}

#[test]
fn the_command_line_answers_json_lines_and_names_bad_lines() {
    // Gold 0 → 1, 4 → 2, 1 → 3, 1 → 4 (non-projective); strategy none is the default for attardi.
    let lines = "{\"stack\":[0,1],\"buffer\":[2,3,4],\"gold\":[-1,0,4,1,1]}\n\
                 {\"stack\":[0,1],\"buffer\":[2,3,4],\"gold\":[-1,0,4,1,1],\"strategy\":\"lbr\"}\n\
                 {\"stack\":[0,2],\"buffer\":[4],\"gold\":[-1,0,4,1,1],\"arcs\":[[2,1],[0,3]]}\n";
    let out = tabula_with_stdin(&["oracle", "--system", "attardi"], lines);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(got.len(), 2, "{stdout}");
    assert!(
        got[0].ends_with(
            "\"steps\":{\"shift\":4,\"left_arc\":null,\"right_arc\":2,\"left_arc_2\":null,\"right_arc_2\":null},\"optimal\":[\"shift\"]}"
        ),
        "{}",
        got[0]
    );
    assert!(got[1].contains("\"steps\":{\"shift\":"), "{}", got[1]);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "line 2: strategy lbr is not available for attardi: its oracle scores every computation (use --strategy none)\nerror: 1 bad line\n"
    );
}

#[test]
fn the_command_line_walks_with_the_brute_force_check() {
    let data = format!("{}/tests/data/oracle/small.conllu", env!("CARGO_MANIFEST_DIR"));
    let out = tabula_with_stdin(
        &["oracle", "--walk", &data, "--system", "attardi", "--stray", "0.5", "--check-agreement", "--json"],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // --json: one JSON line, nothing else on standard output.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.contains("\"system\":\"attardi\"") && last.contains("\"exhaustive\""), "{last}");
    let out = tabula_with_stdin(&["oracle", "--walk", &data, "--system", "attardi", "--algorithm", "cubic"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: the cubic algorithm is not available for attardi (use tabular or auto)\n"
    );
}

/// What a walk checked: configurations, those the pruned oracle answered
/// without a table, and those where it needed more than one pass.
#[derive(Default)]
struct Checked {
    configurations: usize,
    without_table: usize,
    several_passes: usize,
    best_known: usize,
}

/// One walk over `gold`: a random step with probability `stray`, else an
/// optimal one; at every configuration the pruned oracle (the default) must
/// equal the unpruned one (both with one table and with two), a fresh
/// oracle's (one call, nothing known from the configuration before) and,
/// for n ≤ 7, the brute force.
fn walk_pruned_against_unpruned(gold: &DepTree, stray: f64, rng: &mut impl rand::Rng) -> Checked {
    let n = gold.len();
    let mut pruned = TabularOracle::new();
    let mut unpruned = TabularOracle::new();
    unpruned.set_pruning(false);
    let mut brute = (n <= 7).then(|| Exhaustive::new(gold, Strategy::None));
    let mut c = Configuration::initial(System::Attardi, n);
    let mut checked = Checked::default();
    while !c.is_final() {
        let want = unpruned.scores(&c, gold).unwrap();
        if let Some(brute) = &mut brute {
            assert_eq!(want, brute.step_scores(&c).unwrap(), "unpruned: gold {gold:?}, {c:?}");
        }
        for two in [None, Some(false), Some(true)] {
            pruned.force_two_tables(two);
            assert_eq!(pruned.scores(&c, gold).unwrap(), want, "pruned ({two:?}): gold {gold:?}, {c:?}");
            if two.is_none() {
                let stats = pruned.last_stats();
                checked.without_table += (stats.tables == 0) as usize;
                checked.several_passes += (stats.tables > 2) as usize;
                checked.best_known += stats.best_known as usize;
            }
        }
        assert_eq!(TabularOracle::new().scores(&c, gold).unwrap(), want, "one call: gold {gold:?}, {c:?}");
        checked.configurations += 1;
        let steps: Vec<Step> = c.applicable_steps().collect();
        let best = want.best();
        let optimal: Vec<Step> = steps.iter().copied().filter(|&s| want.get(s) == best).collect();
        let step = if rng.gen_bool(stray) || optimal.is_empty() {
            steps[rng.gen_range(0..steps.len())]
        } else {
            optimal[rng.gen_range(0..optimal.len())]
        };
        c.apply(step).unwrap();
    }
    checked
}

#[test]
fn the_pruned_table_equals_the_unpruned_and_the_brute_force_along_random_walks() {
    use rand::SeedableRng;
    let checked: Vec<Checked> = (0..240u64)
        .into_par_iter()
        .map(|seed| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let n = 5 + (seed as usize % 10);
            let gold = common::random_tree(n, [0.1, 0.3][seed as usize / 10 % 2], &mut rng);
            walk_pruned_against_unpruned(&gold, [0.2, 0.5, 0.9][seed as usize % 3], &mut rng)
        })
        .collect();
    let sum = |f: fn(&Checked) -> usize| checked.iter().map(f).sum::<usize>();
    let (total, without, several, known) =
        (sum(|c| c.configurations), sum(|c| c.without_table), sum(|c| c.several_passes), sum(|c| c.best_known));
    assert!(total > 3_000, "only {total} configurations");
    // Every shortcut is exercised: answers from the bounds alone, tables
    // run more than twice (one per pass), the best known from the step before.
    assert!(
        without > 300 && several > 30 && known > total / 2,
        "{without} without a table, {several} with more than two tables, {known} with the best known"
    );
}

/// What an `optimal` walk saw: configurations, those answered with the best
/// known from the step before, those among them that ran a table (one pass
/// asking which steps reach the best), and those without the best known
/// that ran one (levels going down from the largest upper bound).
#[derive(Default)]
struct OptimalChecked {
    configurations: usize,
    best_known: usize,
    with_table: usize,
    descending: usize,
}

/// One walk over `gold` driven by `optimal` alone, as a training loop does:
/// a random step with probability `stray`, else an optimal one. At every
/// configuration `optimal` must give exactly the best steps of the unpruned
/// oracle's scores (and so of the brute force, for n ≤ 7), and, every
/// third configuration, `scores` asked after it at the same configuration
/// (with the best known from `optimal`) the unpruned scores.
fn walk_optimal_against_unpruned(gold: &DepTree, stray: f64, rng: &mut impl rand::Rng) -> OptimalChecked {
    let n = gold.len();
    let mut pruned = TabularOracle::new();
    let mut unpruned = TabularOracle::new();
    unpruned.set_pruning(false);
    let mut brute = (n <= 7).then(|| Exhaustive::new(gold, Strategy::None));
    let mut c = Configuration::initial(System::Attardi, n);
    let mut checked = OptimalChecked::default();
    while !c.is_final() {
        let want = unpruned.scores(&c, gold).unwrap();
        if let Some(brute) = &mut brute {
            assert_eq!(want, brute.step_scores(&c).unwrap(), "unpruned: gold {gold:?}, {c:?}");
        }
        let got = pruned.optimal(&c, gold).unwrap();
        assert_eq!(got, want.only_optimal(), "optimal: gold {gold:?}, {c:?}");
        let stats = pruned.last_stats();
        assert!(stats.optimal_only);
        checked.best_known += stats.best_known as usize;
        checked.with_table += (stats.best_known && stats.tables > 0) as usize;
        checked.descending += (!stats.best_known && stats.tables > 0) as usize;
        if checked.configurations % 3 == 2 {
            assert_eq!(pruned.scores(&c, gold).unwrap(), want, "scores after optimal: gold {gold:?}, {c:?}");
            assert!(pruned.last_stats().best_known, "the same configuration gives its best");
        }
        checked.configurations += 1;
        let steps: Vec<Step> = c.applicable_steps().collect();
        let optimal: Vec<Step> = got.iter().map(|(s, _)| s).collect();
        let step = if rng.gen_bool(stray) {
            steps[rng.gen_range(0..steps.len())]
        } else {
            optimal[rng.gen_range(0..optimal.len())]
        };
        c.apply(step).unwrap();
    }
    checked
}

#[test]
fn optimal_equals_the_best_steps_of_the_unpruned_table_along_random_walks() {
    use rand::SeedableRng;
    let checked: Vec<OptimalChecked> = (0..240u64)
        .into_par_iter()
        .map(|seed| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1000 + seed);
            let n = 5 + (seed as usize % 10);
            let gold = common::random_tree(n, [0.1, 0.3][seed as usize / 10 % 2], &mut rng);
            walk_optimal_against_unpruned(&gold, [0.1, 0.3, 0.6][seed as usize % 3], &mut rng)
        })
        .collect();
    let sum = |f: fn(&OptimalChecked) -> usize| checked.iter().map(f).sum::<usize>();
    let (total, known) = (sum(|c| c.configurations), sum(|c| c.best_known));
    let (with_table, descending) = (sum(|c| c.with_table), sum(|c| c.descending));
    assert!(total > 3_000, "only {total} configurations");
    // Both ways are taken, with tables.
    assert!(
        known > total / 2 && with_table > 100 && descending > 100,
        "{known} of {total} with the best known, {with_table} of them with a table, {descending} without it"
    );
}

#[test]
fn a_budget_of_pairs_stops_a_call_with_a_typed_error_and_changes_no_answer() {
    // Along random walks, an oracle with a small budget answers as one
    // without (having combined no more pairs than the budget) or stops with
    // TooMuchWork; after a stop it goes on answering right.
    use rand::{Rng, SeedableRng};
    let (mut answered, mut stopped) = (0, 0);
    for seed in 0..120u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3000 + seed);
        let gold = common::random_tree(8 + seed as usize % 7, 0.3, &mut rng);
        let (mut free, mut budgeted) = (TabularOracle::new(), TabularOracle::new());
        budgeted.set_max_pairs(Some(3000));
        assert_eq!(budgeted.max_pairs(), Some(3000));
        let mut c = Configuration::initial(System::Attardi, gold.len());
        while !c.is_final() {
            let want = free.optimal(&c, &gold).unwrap();
            match budgeted.optimal(&c, &gold) {
                Ok(got) => {
                    assert_eq!(got, want, "gold {gold:?}, {c:?}");
                    assert!(budgeted.last_stats().pairs <= 3000);
                    answered += (budgeted.last_stats().tables > 0) as usize;
                }
                Err(e) => {
                    assert_eq!(e, OracleError::TooMuchWork { limit: 3000 });
                    assert!(e.to_string().contains("more than 3000 pairs"), "{e}");
                    stopped += 1;
                }
            }
            let steps: Vec<Step> = c.applicable_steps().collect();
            let optimal: Vec<Step> = want.iter().map(|(s, _)| s).collect();
            let step = if rng.gen_bool(0.3) {
                steps[rng.gen_range(0..steps.len())]
            } else {
                optimal[rng.gen_range(0..optimal.len())]
            };
            c.apply(step).unwrap();
        }
    }
    assert!(answered > 50 && stopped > 50, "{answered} tables within the budget, {stopped} calls stopped");
}

#[test]
fn oracle_and_session_optimal_equal_the_best_of_the_scores() {
    use rand::{Rng, SeedableRng};
    use tabula::oracle::session::OracleSession;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut oracle = Oracle::new();
    let mut reference = Oracle::new();
    for n in [6, 9, 12] {
        let gold = common::random_tree(n, 0.3, &mut rng);
        let mut session =
            OracleSession::new(&mut oracle, System::Attardi, gold.clone(), Strategy::None, Algorithm::Auto).unwrap();
        while !session.configuration().is_final() {
            let c = session.configuration().clone();
            let want = reference.scores(&c, &gold, Strategy::None, Algorithm::Tabular).unwrap();
            assert_eq!(session.optimal().unwrap(), want.only_optimal(), "gold {gold:?}, {c:?}");
            assert_eq!(session.optimal().unwrap(), want.only_optimal(), "asked again");
            let step = want.optimal()[rng.gen_range(0..want.optimal().len())];
            session.apply(step).unwrap();
        }
    }
}
