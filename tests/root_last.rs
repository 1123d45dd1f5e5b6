//! The root in last position (Ballesteros & Nivre 2013) for arc-hybrid and
//! arc-eager: the layout's computations build exactly the projective trees,
//! and every oracle (grammar, closed form, sessions, static) equals the
//! brute force over the root-last system itself on every configuration of
//! every tree of up to 5 words (random ones of 6 and 7).

mod common;

use common::{all_trees, live_key, random_tree, reachable_configurations_from};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, Root, Step, Strategy, System};
use tabula::tree::DepTree;

const SYSTEMS: [System; 2] = [System::ArcHybrid, System::ArcEager];

/// Every non-final configuration reachable with the root last, for `words` words.
fn configurations(system: System, words: usize) -> Vec<Configuration> {
    reachable_configurations_from(Configuration::initial_at(system, words + 1, Root::Last), live_key)
}

/// The trees built by every complete computation, in the sentence's numbering.
fn final_trees(system: System, words: usize) -> HashSet<Vec<usize>> {
    let mut out = HashSet::new();
    let mut todo = vec![Configuration::initial_at(system, words + 1, Root::Last)];
    while let Some(c) = todo.pop() {
        let steps: Vec<Step> = c.applicable_steps().collect();
        assert_eq!(steps.is_empty(), c.is_final(), "{system}: {c:?}");
        if c.is_final() {
            let n = c.sentence_len();
            assert_eq!(c.head(n), None, "{system}: the root has no head");
            out.insert((1..n).map(|d| Root::Last.head_in_sentence(c.head(d).expect("every word"), n)).collect());
        }
        for step in steps {
            let mut d = c.clone();
            let arc = d.apply(step).unwrap();
            assert!(arc.is_none_or(|(h, d)| h != 0 && d != n_of(&c)), "{system}: {step} at {c:?}");
            todo.push(d);
        }
    }
    out
}

fn n_of(c: &Configuration) -> usize {
    c.sentence_len()
}

#[test]
fn the_root_last_computations_build_exactly_the_projective_trees() {
    for system in SYSTEMS {
        for words in 1..=6 {
            let want: HashSet<Vec<usize>> =
                all_trees(words).iter().filter(|t| t.is_projective()).map(|t| t.heads().to_vec()).collect();
            assert_eq!(final_trees(system, words), want, "{system}, {words} words");
        }
    }
}

#[test]
fn extended_trees_keep_projectivity_and_map_back() {
    for words in 1..=6 {
        for t in all_trees(words) {
            let e = Root::Last.extend_tree(&t);
            assert_eq!(e.len(), words + 1);
            assert_eq!(e.is_projective(), t.is_projective(), "{t:?}");
            assert_eq!(e.head(words + 1), 0);
            for d in 1..=words {
                assert_eq!(Root::Last.head_in_sentence(e.head(d), words + 1), t.head(d));
            }
        }
    }
}

/// Every configuration of every tree of `words` words: the oracle's scores
/// with `algorithm` equal the brute force's. Returns the pairs checked.
fn oracle_equals_brute_force(system: System, words: usize, trees: &[DepTree], algorithm: Algorithm) -> usize {
    let configs = configurations(system, words);
    let mut oracle = Oracle::new();
    let mut checked = 0;
    for t in trees {
        let gold = Root::Last.extend_tree(t);
        let mut brute = Exhaustive::new(&gold, Strategy::None);
        for c in &configs {
            let want = brute.step_scores(c).unwrap();
            let got = oracle.scores(c, &gold, Strategy::None, algorithm).unwrap();
            assert_eq!(got, want, "{system} {algorithm:?}: gold {t:?}, {c:?}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn grammar_oracles_equal_the_brute_force_with_the_root_last_on_all_trees_up_to_5_words() {
    for system in SYSTEMS {
        let mut checked = 0;
        for words in 1..=5 {
            checked += oracle_equals_brute_force(system, words, &all_trees(words), Algorithm::Cubic);
        }
        assert!(checked > 50_000, "{system}: {checked}");
    }
}

#[test]
fn closed_forms_equal_the_brute_force_with_the_root_last_on_all_projective_trees_up_to_6_words() {
    for system in SYSTEMS {
        let mut checked = 0;
        for words in 1..=6 {
            let trees: Vec<DepTree> = all_trees(words).into_iter().filter(|t| t.is_projective()).collect();
            checked += oracle_equals_brute_force(system, words, &trees, Algorithm::Linear);
        }
        assert!(checked > 50_000, "{system}: {checked}");
    }
}

#[test]
fn random_trees_of_6_and_7_words_with_the_root_last() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for system in SYSTEMS {
        for words in 6..=7 {
            let configs = configurations(system, words);
            let mut oracle = Oracle::new();
            for _ in 0..6 {
                let t = random_tree(words, 0.3, &mut rng);
                let gold = Root::Last.extend_tree(&t);
                let mut brute = Exhaustive::new(&gold, Strategy::None);
                for c in configs.iter().filter(|_| rng.gen_bool(0.2)) {
                    let want = brute.step_scores(c).unwrap();
                    assert_eq!(oracle.scores(c, &gold, Strategy::None, Algorithm::Auto).unwrap(), want, "{t:?} {c:?}");
                }
            }
        }
    }
}

#[test]
fn sessions_and_the_static_oracle_follow_the_root_last() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for system in SYSTEMS {
        for words in 1..=6 {
            for t in all_trees(words) {
                let gold = Root::Last.extend_tree(&t);
                let mut brute = Exhaustive::new(&gold, Strategy::None);
                let mut oracle = Oracle::new();
                // A random computation: the session's scores are the brute force's.
                let start = Configuration::initial_at(system, words + 1, Root::Last);
                let mut session =
                    OracleSession::at(&mut oracle, gold.clone(), start.clone(), Strategy::None, Algorithm::Auto)
                        .unwrap();
                while !session.configuration().is_final() {
                    let want = brute.step_scores(session.configuration()).unwrap();
                    assert_eq!(session.scores().unwrap(), want, "{system} {t:?}");
                    let steps: Vec<Step> = session.configuration().applicable_steps().collect();
                    session.apply(steps[rng.gen_range(0..steps.len())]).unwrap();
                }
                if !t.is_projective() {
                    continue;
                }
                // The static oracle rebuilds a projective gold tree.
                let mut c = start;
                while !c.is_final() {
                    let step = oracle.static_step(&c, &gold).unwrap();
                    assert!(c.is_applicable(step), "{system} {t:?}: {step} at {c:?}");
                    c.apply(step).unwrap();
                }
                let n = words + 1;
                let built: Vec<usize> = (1..n).map(|d| Root::Last.head_in_sentence(c.head(d).unwrap(), n)).collect();
                assert_eq!(built, t.heads().to_vec(), "{system}");
            }
        }
    }
}

#[test]
fn root_last_is_offered_for_arc_hybrid_and_arc_eager_only() {
    for system in System::ALL {
        assert_eq!(Root::Last.offered(system), SYSTEMS.contains(&system), "{system}");
        assert!(Root::First.offered(system));
    }
    assert_eq!("last".parse::<Root>(), Ok(Root::Last));
    assert!("middle".parse::<Root>().unwrap_err().contains("first or last"));
}

#[test]
fn train_and_parse_with_the_root_last_from_the_command_line() {
    use common::{fails_in, scratch_in, stderr_of, tabula_in};
    let dir = scratch_in("root_last", "cli");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");
    for (system, beam) in [("arc-hybrid", "1"), ("arc-eager", "4")] {
        let args = ["train", sample, "-o", "m.model", "--system", system, "--root", "last", "--epochs", "8"];
        let o = tabula_in(&dir, &[&args[..], &["--beam", beam, "--step-bits", "12", "--label-bits", "10"]].concat());
        assert!(o.status.success(), "{}", stderr_of(&o));
        let model = std::fs::read(dir.join("m.model")).unwrap();
        assert!(model.windows(10).any(|w| w == b"root last\n"), "the model names its root position");
        let o = tabula_in(&dir, &["parse", "--model", "m.model", sample, "-o", "p.conllu"]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        let o = tabula_in(&dir, &["eval", sample, "p.conllu"]);
        let report = String::from_utf8(o.stdout).unwrap();
        let line = report.lines().find(|l| l.starts_with("all words:")).unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        let uas: f64 = words[words.iter().position(|&w| w == "UAS").unwrap() + 1].parse().unwrap();
        assert!(uas > 75.0, "{system}: the sample is learnt: {report}");
    }
    let base = ["train", sample, "-o", "x.model", "--root", "last", "--system"];
    fails_in(
        &dir,
        &[&base[..], &["arc-standard"]].concat(),
        "--root last: the root in last position is offered for arc-hybrid and arc-eager, not arc-standard",
    );
    let o = tabula_in(&dir, &["train", sample, "-o", "x.model", "--root", "middle"]);
    assert_eq!(stderr_of(&o), "error: unknown root position `middle` (first or last)\n");
    assert!(!dir.join("x.model").exists());
}
