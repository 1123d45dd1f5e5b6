//! Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013; Honnibal &
//! Johnson 2015) against brute force:
//!
//! * every step lowers the potential Φ of `docs/systems.md`, so every
//!   computation ends (every reachable configuration, n ≤ 6);
//! * the brute force's scores equal the gold arcs of the final trees of an
//!   unmemoised enumeration of every computation (n ≤ 4; partial gold
//!   trees, whose unannotated words score nothing, n ≤ 3), so that arcs
//!   built and then replaced do not count;
//! * the tabular oracle equals the brute force on every reachable
//!   configuration of every gold tree with n ≤ 5 and every projective one
//!   with n = 6 (every tree of n words by hand: the ignored test with
//!   `TABULA_NM_N=n`), and on random configurations of random trees up to
//!   n = 10;
//! * the tabular oracle that keeps its input rows between calls equals one
//!   that fills every table from scratch, at every configuration of random
//!   computations over random (and partial) trees up to n = 40, two
//!   sentences interleaved on one oracle;
//! * `Configuration::with_arcs` / `with_unshifted` accept every reachable
//!   configuration (n ≤ 5).

mod common;

use common::{
    against_brute_force, all_trees, projective_trees, random_tree, reachable_configurations_by, reachable_with_arcs,
};
use rand::{Rng, SeedableRng};
use tabula::oracle::arc_eager_nm::potential;
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

const NM: System = System::ArcEagerNm;

/// What the future of a configuration depends on: the stack with which
/// words have a head, b₁ and whether it is an unshifted word.
type Key = (Vec<(usize, bool)>, Option<usize>, bool);

fn key(c: &Configuration) -> Key {
    (c.stack().iter().map(|&a| (a, c.head(a).is_some())).collect(), c.next_input(), c.unshifted().is_some())
}

fn configurations(n: usize) -> Vec<Configuration> {
    reachable_configurations_by(NM, n, key)
}

#[test]
fn every_step_lowers_the_potential_so_every_computation_ends() {
    for n in 0..=6 {
        for c in configurations(n) {
            assert!(potential(&c) <= 7 * n + 3);
            for step in c.applicable_steps() {
                let mut d = c.clone();
                d.apply(step).unwrap();
                assert!(potential(&d) < potential(&c), "{step} at {c:?}");
            }
            assert!(c.applicable_steps().next().is_some(), "a non-final configuration without a step: {c:?}");
        }
        assert_eq!(potential(&Configuration::initial(NM, n)), 4 * n + 1);
    }
}

/// The most gold arcs into words still on the stack or in the input of any
/// final tree, by following every computation (no memo).
fn best_final(c: &Configuration, gold: &DepTree, live: &[usize]) -> u32 {
    if c.is_final() {
        return live.iter().filter(|&&d| c.head(d).is_some_and(|h| gold.has_arc(h, d))).count() as u32;
    }
    c.applicable_steps()
        .map(|step| {
            let mut d = c.clone();
            d.apply(step).unwrap();
            best_final(&d, gold, live)
        })
        .max()
        .expect("a non-final configuration has a step")
}

/// Every tree of n words, and for n ≤ 3 also every partial tree (each
/// tree with each proper subset of its words annotated).
fn trees_and_partial_trees(n: usize) -> Vec<DepTree> {
    let mut out = all_trees(n);
    if n <= 3 {
        for t in all_trees(n) {
            for mask in 0..(1u32 << n) - 1 {
                let heads: Vec<Option<usize>> =
                    (1..=n).map(|d| (mask >> (d - 1) & 1 == 1).then(|| t.head(d))).collect();
                out.push(DepTree::from_partial_heads(&heads).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_brute_force_counts_the_gold_arcs_of_the_final_tree() {
    let mut checked = 0;
    for n in 1..=4 {
        let configs = configurations(n);
        for gold in trees_and_partial_trees(n) {
            let mut brute = Exhaustive::new(&gold, Strategy::None);
            for c in &configs {
                let live: Vec<usize> = c.stack()[1..].iter().copied().chain(c.buffer()).collect();
                let scores = brute.step_scores(c).unwrap();
                for step in c.applicable_steps() {
                    let mut d = c.clone();
                    d.apply(step).unwrap();
                    assert_eq!(scores.get(step), Some(best_final(&d, &gold, &live)), "{step}, gold {gold:?}, {c:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked}");
}

fn tabular_equals_brute_force(max_n: usize, trees: impl Fn(usize) -> Vec<DepTree>) -> usize {
    tabular_equals_brute_force_with(1..=max_n, trees)
}

fn tabular_equals_brute_force_with(
    sizes: std::ops::RangeInclusive<usize>,
    trees: impl Fn(usize) -> Vec<DepTree>,
) -> usize {
    against_brute_force(sizes, configurations, trees, |oracle, gold, c, want| {
        let got = oracle.scores(c, gold, Strategy::None, Algorithm::Tabular).unwrap();
        assert_eq!(got, want, "gold {gold:?}, {c:?}");
        // `right_arc` never scores above `shift` (TabularOracle::optimal's shortcut).
        if let (Some(ra), Some(sh)) = (want.get(Step::RightArc), want.get(Step::Shift)) {
            assert!(ra <= sh, "right_arc above shift: gold {gold:?}, {c:?}");
        }
    })
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_all_trees_up_to_5() {
    assert!(tabular_equals_brute_force(5, all_trees) > 600_000);
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_all_projective_trees_of_6() {
    let projective = |n| projective_trees(n).to_vec();
    let checked = against_brute_force(6..=6, configurations, projective, |oracle, gold, c, want| {
        let got = oracle.scores(c, gold, Strategy::None, Algorithm::Tabular).unwrap();
        assert_eq!(got, want, "gold {gold:?}, {c:?}");
    });
    assert!(checked > 1_000_000, "only {checked}");
}

/// By hand (about 2 minutes for n = 6 on two busy cores; see
/// `docs/systems.md` for n = 7): every tree of `TABULA_NM_N` words
/// (or a part of them, see below).
#[test]
#[ignore]
fn by_hand_the_tabular_oracle_equals_the_brute_force_on_all_trees_of_n() {
    let n = std::env::var("TABULA_NM_N").ok().and_then(|v| v.parse().ok()).unwrap_or(6);
    // TABULA_NM_PROJECTIVE: the projective trees only; TABULA_NM_SAMPLE=k: every
    // (len / k)-th non-projective tree in the order of `all_trees`.
    let trees = |n| {
        if std::env::var("TABULA_NM_PROJECTIVE").is_ok() {
            return projective_trees(n).to_vec();
        }
        match std::env::var("TABULA_NM_SAMPLE").ok().and_then(|v| v.parse::<usize>().ok()) {
            Some(k) => {
                let all: Vec<DepTree> = all_trees(n).into_iter().filter(|t| !t.is_projective()).collect();
                let stride = (all.len() / k.max(1)).max(1);
                all.into_iter().step_by(stride).collect()
            }
            None => all_trees(n),
        }
    };
    let start = std::time::Instant::now();
    let checked = tabular_equals_brute_force_with(n..=n, trees);
    eprintln!(
        "n = {n}: {} configurations, {checked} (tree, configuration) pairs in {:.1?}",
        configurations(n).len(),
        start.elapsed()
    );
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_random_trees_up_to_10() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(20);
    let mut oracle = Oracle::new();
    let mut checked = 0;
    for _ in 0..100 {
        let n = rng.gen_range(7..=10);
        let gold = random_tree(n, 0.2, &mut rng);
        let mut brute = Exhaustive::new(&gold, Strategy::None);
        let mut c = Configuration::initial(NM, n);
        while !c.is_final() {
            let want = brute.step_scores(&c).unwrap();
            let got = oracle.scores(&c, &gold, Strategy::None, Algorithm::Auto).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
            checked += 1;
            // Mostly optimal steps, sometimes any: the walk visits repaired and unshifted configurations.
            let steps: Vec<Step> = if rng.gen_bool(0.6) { want.optimal() } else { c.applicable_steps().collect() };
            c.apply(steps[rng.gen_range(0..steps.len())]).unwrap();
        }
    }
    assert!(checked > 1_000, "only {checked}");
}

#[test]
fn the_checked_constructors_accept_every_reachable_configuration() {
    for n in 0..=5 {
        for c in reachable_with_arcs(NM, n) {
            let arcs: Vec<(usize, usize)> = c.arcs().collect();
            let rebuilt = match c.unshifted() {
                Some(w) => Configuration::with_unshifted(NM, c.stack(), w, &arcs, n),
                None => {
                    let buffer: Vec<usize> = c.buffer().collect();
                    Configuration::with_arcs(NM, c.stack(), &buffer, &arcs, n)
                }
            };
            assert_eq!(rebuilt.as_ref(), Ok(&c), "{c:?}");
        }
    }
}

#[test]
fn the_oracle_command_reads_an_unshifted_word_and_answers_as_the_library() {
    // Gold 1 <- 0, 2 <- 3, 3 <- 1. After an unshift of 3 (which took 2 as a left dependent),
    // `right_arc` 1 -> 3 keeps both reachable gold arcs; `shift` is not applicable.
    let line = r#"{"system":"arc-eager-nm","stack":[0,1],"buffer":[],"unshifted":3,"arcs":[[3,2]],"gold":[0,3,1]}"#;
    let o = common::tabula_with_stdin(&["oracle"], line);
    assert!(o.status.success(), "{}", common::stderr_of(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains(r#""steps":{"shift":null,"left_arc":0,"right_arc":2,"reduce":1},"optimal":["right_arc"]"#),
        "{out}"
    );
    let c = Configuration::with_unshifted(NM, &[0, 1], 3, &[(3, 2)], 3).unwrap();
    let gold = DepTree::from_heads(&[0, 3, 1]).unwrap();
    assert_eq!(Oracle::new().scores(&c, &gold, Strategy::None, Algorithm::Auto).unwrap().optimal(), [Step::RightArc]);

    for (line, message) in [
        (
            r#"{"system":"arc-eager-nm","stack":[0,1],"buffer":[3],"unshifted":3,"arcs":[[3,2]],"gold":[0,3,1]}"#,
            "`unshifted` is the whole remaining input: `buffer` must then be []",
        ),
        (
            r#"{"system":"arc-eager","stack":[0,1],"buffer":[],"unshifted":3,"arcs":[[3,2]],"gold":[0,3,1]}"#,
            "the arcs are inconsistent with this arc-eager configuration: only arc-eager-nm moves a word back onto the input (unshift)",
        ),
        (
            r#"{"system":"arc-eager-nm","stack":[0,1],"buffer":[],"unshifted":3,"arcs":[[3,2],[1,3]],"gold":[0,3,1]}"#,
            "the arcs are inconsistent with this arc-eager-nm configuration: arc 1 -> 3: the first remaining word has no head yet",
        ),
        (
            r#"{"system":"arc-eager-nm","stack":[0],"buffer":[1,2,3],"gold":[0,3,1],"strategy":"lbr"}"#,
            "strategy lbr is not available for arc-eager-nm: its oracle scores every computation (use --strategy none)",
        ),
    ] {
        let o = common::tabula_with_stdin(&["oracle"], line);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(common::stderr_of(&o), format!("line 1: {message}\nerror: 1 bad line\n"), "{line}");
    }
}

#[test]
fn a_parser_trains_and_parses_with_arc_eager_nm() {
    let dir = common::scratch_in("arc_eager_nm", "train");
    // Two sentences, the second non-projective (2 -> 4 crosses 1 -> 3).
    let text = "1\tThe\t_\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\t_\tNOUN\t_\t_\t3\tnsubj\t_\t_\n\
                3\tbarks\t_\tVERB\t_\t_\t0\troot\t_\t_\n4\t.\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n\
                1\tSaw\t_\tVERB\t_\t_\t0\troot\t_\t_\n2\tdogs\t_\tNOUN\t_\t_\t1\tobj\t_\t_\n\
                3\tyesterday\t_\tADV\t_\t_\t1\tadvmod\t_\t_\n4\tbarking\t_\tVERB\t_\t_\t2\tacl\t_\t_\n\n";
    std::fs::write(dir.join("data.conllu"), text).unwrap();
    let data = "data.conllu";
    for oracle in ["static", "dynamic"] {
        let o = common::tabula_in(
            &dir,
            &["train", data, "-o", "m.bin", "--system", "arc-eager-nm", "--oracle", oracle, "--epochs", "2"],
        );
        assert!(o.status.success(), "{oracle}: {}", common::stderr_of(&o));
        let o = common::tabula_in(&dir, &["parse", "--model", "m.bin", data, "-o", "out.conllu"]);
        assert!(o.status.success(), "{oracle}: {}", common::stderr_of(&o));
        let parsed = std::fs::read_to_string(dir.join("out.conllu")).unwrap();
        assert_eq!(parsed.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).count(), 8, "{parsed}");
    }
}

/// The reusing oracle (input rows kept between calls, `reduce` sharing `left_arc`'s table)
/// against one that fills every table from scratch, at every configuration of random walks
/// (optimal steps and random ones) over random trees up to 40 words, partial ones included,
/// two sentences interleaved on the same oracle, and restarts within a sentence.
#[test]
fn the_reusing_tabular_oracle_equals_a_fresh_one_along_random_walks() {
    use tabula::oracle::arc_eager_nm::tabular::TabularOracle;
    let mut rng = rand::rngs::StdRng::seed_from_u64(41);
    let mut reusing = TabularOracle::new();
    let mut fresh = TabularOracle::without_reuse();
    let (mut checked, mut unshifted) = (0, 0);
    for round in 0..60 {
        // Two sentences at a time, stepped in turns; sometimes of the same length, sometimes
        // the same tree with one head changed, sometimes partial.
        let n = rng.gen_range(1..=40);
        let first = random_tree(n, 0.2, &mut rng);
        let second = match round % 4 {
            0 => random_tree(n, 0.2, &mut rng),
            1 => {
                // The same tree with one word moved under the root (still a tree).
                let mut heads: Vec<usize> = first.heads().to_vec();
                match (1..=n).filter(|&d| heads[d - 1] != 0).collect::<Vec<_>>().as_slice() {
                    [] => random_tree(n, 0.2, &mut rng),
                    moved => {
                        heads[moved[rng.gen_range(0..moved.len())] - 1] = 0;
                        DepTree::from_heads(&heads).unwrap()
                    }
                }
            }
            2 => {
                let heads: Vec<Option<usize>> = (1..=n).map(|d| rng.gen_bool(0.7).then(|| first.head(d))).collect();
                DepTree::from_partial_heads(&heads).unwrap()
            }
            _ => random_tree(rng.gen_range(1..=40), 0.2, &mut rng),
        };
        let golds = [first, second];
        let mut configs: Vec<Configuration> = golds.iter().map(|g| Configuration::initial(NM, g.len())).collect();
        let mut visited: Vec<Vec<Configuration>> = vec![Vec::new(), Vec::new()];
        while configs.iter().any(|c| !c.is_final()) {
            let s = rng.gen_range(0..2);
            if configs[s].is_final() {
                continue;
            }
            // Now and then, go back to an earlier configuration of the same walk (the input grows).
            if rng.gen_bool(0.05) && !visited[s].is_empty() {
                let k = rng.gen_range(0..visited[s].len());
                configs[s] = visited[s][k].clone();
            }
            let (c, gold) = (&configs[s], &golds[s]);
            let got = reusing.scores(c, gold).unwrap();
            let want = fresh.scores(c, gold).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
            checked += 1;
            unshifted += c.unshifted().is_some() as usize;
            visited[s].push(c.clone());
            let steps: Vec<Step> = if rng.gen_bool(0.7) && !want.optimal().is_empty() {
                want.optimal()
            } else {
                c.applicable_steps().collect()
            };
            let step = steps[rng.gen_range(0..steps.len())];
            configs[s].apply(step).unwrap();
        }
    }
    assert!(checked > 5_000 && unshifted > 20, "only {checked} configurations, {unshifted} with an unshifted word");
}

/// `optimal` along random walks driven by it (as a training loop does: a
/// random step with probability 0.2, else an optimal one), two sentences
/// interleaved on one oracle, partial trees among them: at every
/// configuration the optimal steps of a table filled from scratch, and
/// `scores` asked after it at the same configuration the fresh scores. The
/// shortcuts are taken: the best known from the step before, with fewer
/// tables than the steps scored.
#[test]
fn optimal_equals_the_best_steps_of_a_fresh_oracle_along_random_walks() {
    use tabula::oracle::arc_eager_nm::tabular::TabularOracle;
    let mut rng = rand::rngs::StdRng::seed_from_u64(43);
    let mut reusing = TabularOracle::new();
    let mut fresh = TabularOracle::without_reuse();
    let (mut checked, mut known, mut fewer) = (0, 0, 0);
    for round in 0..60 {
        let n = rng.gen_range(1..=30);
        let first = random_tree(n, 0.2, &mut rng);
        let second = if round % 3 == 0 {
            let heads: Vec<Option<usize>> = (1..=n).map(|d| rng.gen_bool(0.7).then(|| first.head(d))).collect();
            DepTree::from_partial_heads(&heads).unwrap()
        } else {
            random_tree(rng.gen_range(1..=30), 0.2, &mut rng)
        };
        let golds = [first, second];
        let mut configs: Vec<Configuration> = golds.iter().map(|g| Configuration::initial(NM, g.len())).collect();
        while configs.iter().any(|c| !c.is_final()) {
            // Mostly the same sentence as before, as a loop over one sentence does.
            let s = if rng.gen_bool(0.9) { round % 2 } else { 1 - round % 2 };
            let s = if configs[s].is_final() { 1 - s } else { s };
            let (c, gold) = (&configs[s], &golds[s]);
            let want = fresh.scores(c, gold).unwrap();
            let got = reusing.optimal(c, gold).unwrap();
            assert_eq!(got, want.only_optimal(), "gold {gold:?}, {c:?}");
            let stats = reusing.last_stats();
            known += stats.best_known as usize;
            let steps: Vec<Step> = c.applicable_steps().collect();
            let full = steps.len() - (steps.contains(&Step::LeftArc) && steps.contains(&Step::Reduce)) as usize;
            fewer += (stats.best_known && (stats.tables as usize) < full) as usize;
            if checked % 5 == 4 {
                assert_eq!(reusing.scores(c, gold).unwrap(), want, "scores after optimal: gold {gold:?}, {c:?}");
            }
            checked += 1;
            let optimal: Vec<Step> = got.iter().map(|(step, _)| step).collect();
            let step = if rng.gen_bool(0.2) {
                steps[rng.gen_range(0..steps.len())]
            } else {
                optimal[rng.gen_range(0..optimal.len())]
            };
            configs[s].apply(step).unwrap();
        }
    }
    assert!(
        checked > 2_000 && known > checked / 2 && fewer > checked / 4,
        "{checked} configurations, {known} with the best known, {fewer} with fewer tables"
    );
}
