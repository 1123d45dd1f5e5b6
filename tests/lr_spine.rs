//! Goldberg, Sartorio and Satta (2014) against brute force:
//!
//! * the arc-standard table (`--algorithm goldberg`, Sec. 4) equals the brute
//!   force and the linear algorithm (strategy none) on every reachable
//!   configuration of every projective tree with n ≤ 6, and on random
//!   configurations of random projective trees up to n = 8 (proptest);
//! * the LR-spine system builds exactly projective trees, and its table
//!   (Sec. 6) equals the brute force on every reachable configuration (every
//!   distinct set of spines) of every projective tree with n ≤ 6, and on
//!   random configurations up to n = 8 (proptest);
//! * the corrections: the printed first restriction of Sec. 6.3 misses gold
//!   arcs (a counterexample is found), the printed initialisation of
//!   Algorithm 1 counts a loss twice;
//! * errors: non-projective gold trees, strategies, algorithms, systems.

mod common;

use common::{
    against_brute_force, all_trees, projective_trees, random_projective, reachable_configurations,
    reachable_configurations_by, reachable_with_arcs, tabula_with_stdin,
};
use hashbrown::HashSet;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::lr_spine::table::SpineTable;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Step, Strategy, System};
use tabula::tree::DepTree;

/// What the future of an LR-spine configuration depends on: stack, next
/// input word and the spines of the stack elements.
fn spine_key(c: &Configuration) -> (Vec<Vec<usize>>, Option<usize>) {
    let spines =
        c.stack().iter().map(|&a| c.left_spine(a).chain([usize::MAX]).chain(c.right_spine(a)).collect()).collect();
    (spines, c.next_input())
}

/// Every non-final LR-spine configuration reachable for n words, one per
/// [`spine_key`], in a fixed order.
fn spine_configurations(n: usize) -> Vec<Configuration> {
    reachable_configurations_by(System::LrSpine, n, spine_key)
}

#[test]
fn goldberg_equals_the_brute_force_and_linear_on_all_projective_trees_up_to_6() {
    let checked = against_brute_force(
        0..=6,
        reachable_configurations,
        |n| projective_trees(n).to_vec(),
        |oracle, gold, c, want| {
            let got = oracle.scores(c, gold, Strategy::None, Algorithm::Goldberg).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
            assert_eq!(oracle.scores(c, gold, Strategy::None, Algorithm::Linear).unwrap(), got);
        },
    );
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn lr_spine_builds_exactly_the_projective_trees() {
    for n in 0..=6 {
        // Every final arc set reachable from the initial configuration.
        let finals: HashSet<Vec<usize>> = reachable_with_arcs(System::LrSpine, n)
            .into_iter()
            .filter(|c| c.is_final())
            .map(|c| {
                let mut heads = vec![0; n];
                for (h, d) in c.arcs() {
                    heads[d - 1] = h;
                }
                heads
            })
            .collect();
        let projective: HashSet<Vec<usize>> = projective_trees(n).iter().map(|t| t.heads().to_vec()).collect();
        assert_eq!(finals, projective, "n = {n}");
    }
}

#[test]
fn lr_spine_table_equals_the_brute_force_on_all_projective_trees_up_to_6() {
    let checked = against_brute_force(
        0..=6,
        spine_configurations,
        |n| projective_trees(n).to_vec(),
        |oracle, gold, c, want| {
            let got = oracle.scores(c, gold, Strategy::None, Algorithm::Auto).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
        },
    );
    assert!(checked > 100_000, "{checked}");
}

/// A random configuration of `system` after `steps` random steps.
fn random_configuration(system: System, n: usize, steps: usize, rng: &mut ChaCha8Rng) -> Configuration {
    let mut c = Configuration::initial(system, n);
    for _ in 0..steps {
        let applicable: Vec<Step> = c.applicable_steps().collect();
        let Some(&step) = applicable.choose(rng) else { break };
        c.apply(step).unwrap();
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn both_tables_equal_the_brute_force_on_random_configurations(seed in any::<u64>(), n in 0usize..=8, steps in 0usize..=16) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let gold = random_projective(n, &mut rng);
        let mut oracle = Oracle::new();
        for system in [System::ArcStandard, System::LrSpine] {
            let c = random_configuration(system, n, steps.min(2 * n), &mut rng);
            if c.is_final() {
                continue;
            }
            let want = Exhaustive::new(&gold, Strategy::None).step_scores(&c).unwrap();
            let got = oracle.scores(&c, &gold, Strategy::None, Algorithm::Goldberg).unwrap();
            prop_assert_eq!(got, want, "{} gold {:?}, {:?}", system, gold, c);
        }
    }
}

/// The first configuration (n ≤ 6) where the printed first restriction of
/// Sec. 6.3 gives other scores than the brute force.
fn printed_restriction_counterexample() -> Option<(DepTree, Configuration)> {
    for n in 0..=6 {
        let configs = spine_configurations(n);
        for gold in projective_trees(n).iter() {
            let mut brute = Exhaustive::new(gold, Strategy::None);
            let mut printed = SpineTable::with_printed_restriction();
            for c in &configs {
                if printed.scores(c, gold).unwrap() != brute.step_scores(c).unwrap() {
                    return Some((gold.clone(), c.clone()));
                }
            }
        }
    }
    None
}

#[test]
fn the_printed_spine_restriction_is_wrong() {
    let (gold, c) = printed_restriction_counterexample().expect("the printed restriction fails somewhere");
    let want = Exhaustive::new(&gold, Strategy::None).step_scores(&c).unwrap();
    let printed = SpineTable::with_printed_restriction().scores(&c, &gold).unwrap();
    eprintln!("gold {:?}, {:?}: brute force {want:?}, printed {printed:?}", gold.heads(), c);
    assert_ne!(printed, want);
    assert_eq!(SpineTable::new().scores(&c, &gold).unwrap(), want);
}

#[test]
fn the_documented_counterexamples() {
    // Algorithm 1's initialisation: gold 2 → 1, 0 → 2; stack [0, 1] with the
    // wrong arc 1 → 2, no input. Only 0 → 1 can follow: loss 2 (the printed
    // algorithm: 3), no gold arc left to build.
    let gold = DepTree::from_heads(&[2, 0]).unwrap();
    let c = Configuration::with_arcs(System::ArcStandard, &[0, 1], &[], &[(1, 2)], 2).unwrap();
    let s = Oracle::new().scores(&c, &gold, Strategy::None, Algorithm::Goldberg).unwrap();
    assert_eq!(s.get(Step::ReduceLeft), Some(0));
    // The printed restriction (Sec. 6.3): gold 0 → 3, 3 → 1, 3 → 2 … see docs/systems.md.
    let (gold, c) = printed_restriction_counterexample().unwrap();
    eprintln!("restriction: gold {:?}, stack {:?}, arcs {:?}", gold.heads(), c.stack(), c.arcs().collect::<Vec<_>>());
}

#[test]
fn errors_are_typed() {
    let mut oracle = Oracle::new();
    let nonprojective = all_trees(4).into_iter().find(|t| !t.is_projective()).unwrap();
    for (system, error) in [
        (System::ArcStandard, OracleError::NonProjectiveGold(Algorithm::Goldberg)),
        (System::LrSpine, OracleError::ProjectiveOnly(System::LrSpine)),
    ] {
        let c = Configuration::initial(system, 4);
        assert_eq!(oracle.scores(&c, &nonprojective, Strategy::None, Algorithm::Goldberg), Err(error));
        assert_eq!(
            oracle.scores(&c, &nonprojective, Strategy::Lbr, Algorithm::Goldberg),
            Err(OracleError::StrategyNotOffered { algorithm: Algorithm::Goldberg, strategy: Strategy::Lbr })
        );
    }
    let gold = DepTree::from_heads(&[0, 1]).unwrap();
    let c = Configuration::initial(System::LrSpine, 2);
    assert!(matches!(
        oracle.scores(&c, &gold, Strategy::None, Algorithm::Linear),
        Err(OracleError::UnsupportedAlgorithm { .. })
    ));
    let c = Configuration::initial(System::ArcHybrid, 2);
    assert!(matches!(
        oracle.scores(&c, &gold, Strategy::None, Algorithm::Goldberg),
        Err(OracleError::UnsupportedAlgorithm { .. })
    ));
    // Without arcs, the spines are unknown once a word has left the stack.
    assert_eq!(Configuration::new(System::LrSpine, &[0, 2], &[3], 3), Err(OracleError::SpinesNeeded(System::LrSpine)));
    assert!(Configuration::new(System::LrSpine, &[0, 1, 2], &[3], 3).is_ok());
    assert_eq!(System::LrSpine.parse_step("left_arc_3"), Some(Step::LeftArcAt(3)));
    assert_eq!(System::LrSpine.parse_step("left_arc_0"), None);
    assert_eq!(System::LrSpine.parse_step("shift"), Some(Step::Shift));
    assert_eq!(System::ArcStandard.parse_step("left_arc_1"), None);
    assert_eq!(Step::RightArcAt(12).name(), "right_arc_12");
}

#[test]
fn a_long_random_walk_stays_consistent() {
    // Sessions follow the table along long random computations without error.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut oracle = Oracle::new();
    for _ in 0..20 {
        let n = rng.gen_range(10..40);
        let gold = random_projective(n, &mut rng);
        let mut c = Configuration::initial(System::LrSpine, n);
        while !c.is_final() {
            let s = oracle.scores(&c, &gold, Strategy::None, Algorithm::Auto).unwrap();
            let applicable: Vec<Step> = c.applicable_steps().collect();
            for &step in &applicable {
                assert!(s.get(step).is_some(), "{step} unscored at {c:?}");
            }
            let step = if rng.gen_bool(0.3) { *applicable.choose(&mut rng).unwrap() } else { s.optimal()[0] };
            c.apply(step).unwrap();
        }
    }
}

#[test]
fn the_command_line_answers_lr_spine_lines_as_the_brute_force() {
    // Every reachable configuration (distinct spines) of one projective tree, with its arcs.
    let heads = [2, 0, 4, 2, 2, 5];
    let gold = DepTree::from_heads(&heads).unwrap();
    let gold_json = "[-1,2,0,4,2,2,5]";
    let configs = spine_configurations(heads.len());
    let lines: String = configs
        .iter()
        .map(|c| {
            let arcs: Vec<[usize; 2]> = c.arcs().map(|(h, d)| [h, d]).collect();
            format!(
                "{{\"stack\":{:?},\"buffer\":{:?},\"gold\":{gold_json},\"arcs\":{arcs:?}}}\n",
                c.stack(),
                c.buffer().collect::<Vec<_>>()
            )
        })
        .collect();
    let out = tabula_with_stdin(&["oracle", "--system", "lr-spine"], &lines);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), configs.len());
    let mut spine_steps = 0;
    for (c, line) in configs.iter().zip(stdout.lines()) {
        let s = Exhaustive::new(&gold, Strategy::None).step_scores(c).unwrap();
        let steps: Vec<String> = c
            .steps()
            .map(|st| format!("\"{st}\":{}", s.get(st).map_or("null".to_owned(), |v| v.to_string())))
            .collect();
        spine_steps += c.steps().filter(|st| matches!(st, Step::LeftArcAt(k) | Step::RightArcAt(k) if *k >= 2)).count();
        assert!(line.contains(&format!("\"steps\":{{{}}}", steps.join(","))), "{line} vs {s:?}");
        let optimal: Vec<String> = s.optimal().iter().map(|st| format!("\"{st}\"")).collect();
        assert!(line.ends_with(&format!("\"optimal\":[{}]}}", optimal.join(","))), "{line}");
    }
    assert!(spine_steps > 100, "{spine_steps}");
}

#[test]
fn misuse_is_an_error_naming_the_line() {
    let lines = concat!(
        "{\"system\":\"lr-spine\",\"stack\":[0,1,2],\"buffer\":[3],\"gold\":[-1,2,0,2],\"arcs\":[]}\n",
        "{\"system\":\"lr-spine\",\"strategy\":\"lbr\",\"stack\":[0],\"buffer\":[1,2],\"gold\":[-1,2,0]}\n",
        "{\"system\":\"lr-spine\",\"stack\":[0],\"buffer\":[1,2,3,4],\"gold\":[-1,3,4,0,3]}\n",
        "{\"system\":\"lr-spine\",\"stack\":[0,2],\"buffer\":[3],\"gold\":[-1,2,0,2],\"arcs\":[[1,2]]}\n",
        "{\"stack\":[0,1],\"buffer\":[2],\"gold\":[-1,2,0],\"strategy\":\"rbl\"}\n",
    );
    let out = tabula_with_stdin(&["oracle", "--algorithm", "goldberg"], lines);
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("\"left_arc_1\":3,\"right_arc_1\":1"), "{stdout}");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        concat!(
            "line 2: the goldberg algorithm scores every computation (strategy none); strategy lbr is not available with it\n",
            "line 3: lr-spine has an oracle for projective gold trees only (projectivize the gold tree first, e.g. `--projectivize` in walks)\n",
            "line 4: the arcs are inconsistent with this lr-spine configuration: word 1 has left the stack but has no head\n",
            "line 5: the goldberg algorithm scores every computation (strategy none); strategy rbl is not available with it\n",
            "error: 4 bad lines\n",
        )
    );
    let out = tabula_with_stdin(&["oracle", "--system", "lr-spine", "--algorithm", "linear"], "");
    assert!(!out.status.success() || out.stdout.is_empty());
}

#[test]
fn walks_run_for_lr_spine_and_goldberg() {
    let conllu = "1\ta\t_\t_\t_\t_\t2\t_\t_\t_\n2\tb\t_\t_\t_\t_\t0\t_\t_\t_\n3\tc\t_\t_\t_\t_\t2\t_\t_\t_\n4\td\t_\t_\t_\t_\t3\t_\t_\t_\n\n";
    let dir = std::env::temp_dir().join(format!("tabula-lr-spine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.conllu");
    std::fs::write(&path, conllu.repeat(5)).unwrap();
    let file = path.to_str().unwrap();
    for args in [
        &["--system", "lr-spine", "--stray", "0.5"][..],
        &["--algorithm", "goldberg", "--check-agreement", "--stray", "0.5"][..],
    ] {
        let out = tabula_with_stdin(&[&["oracle", "--walk", file, "--json"][..], args].concat(), "");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("\"strategy\":\"none\""), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Follows the canonical computation of `gold` with a session (whose static
/// step is the closed form along it) and checks each step against the table:
/// the one-shot [`Oracle::static_step`] (the canonical step among the table's
/// optimal ones). Returns the steps checked.
fn static_steps_agree(oracle: &mut Oracle<'static>, table: &mut Oracle<'static>, gold: &DepTree) -> usize {
    let mut session =
        OracleSession::new(oracle, System::LrSpine, gold.clone(), Strategy::None, Algorithm::Auto).unwrap();
    let mut steps = 0;
    while !session.configuration().is_final() {
        let closed = session.static_step().unwrap();
        let want = table.static_step(session.configuration(), gold).unwrap();
        assert_eq!(closed, want, "gold {gold:?} at {:?}", session.configuration());
        session.apply(closed).unwrap();
        steps += 1;
    }
    // The whole gold tree is built.
    for d in 1..=gold.len() {
        assert_eq!(session.configuration().head(d), Some(gold.head(d)), "gold {gold:?}");
    }
    steps
}

#[test]
fn the_closed_form_static_step_is_the_tables_on_all_projective_trees_up_to_7() {
    // The static oracle of LR-spine used to run the table at every step of
    // the canonical computation: training grew as n⁴ on long sentences
    // (400 words 7 s, 800 words 115 s for one static epoch). The closed form
    // must give the same step everywhere on that computation.
    let (mut oracle, mut table) = (Oracle::new(), Oracle::new());
    let mut steps = 0;
    for n in 0..=7 {
        for gold in projective_trees(n).iter() {
            steps += static_steps_agree(&mut oracle, &mut table, gold);
        }
    }
    assert!(steps > 100_000, "{steps}");
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for n in [20, 40, 60, 90, 120] {
        for _ in 0..3 {
            static_steps_agree(&mut oracle, &mut table, &random_projective(n, &mut rng));
        }
    }
}

#[test]
fn a_session_off_the_canonical_computation_uses_the_table() {
    // After a step that is not the static one, the closed form no longer
    // applies: the session's static step is the table's again.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut oracle, mut table) = (Oracle::new(), Oracle::new());
    for _ in 0..30 {
        let n = rng.gen_range(4..14);
        let gold = random_projective(n, &mut rng);
        let mut session =
            OracleSession::new(&mut oracle, System::LrSpine, gold.clone(), Strategy::None, Algorithm::Auto).unwrap();
        while !session.configuration().is_final() {
            let got = session.static_step().unwrap();
            assert_eq!(got, table.static_step(session.configuration(), &gold).unwrap());
            let applicable: Vec<Step> = session.configuration().applicable_steps().collect();
            let step = if rng.gen_bool(0.3) { *applicable.choose(&mut rng).unwrap() } else { got };
            session.apply(step).unwrap();
        }
    }
}
