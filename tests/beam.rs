//! Beam search and global training: K = 1 is the greedy parser and the
//! greedy trainer bit for bit; an unbounded beam finds the best derivation
//! (all derivations enumerated); the global dynamic oracle's correct
//! hypotheses are exactly those the brute force says can still reach the
//! best tree; global training learns a toy treebank. Every system, and
//! arc-hybrid and arc-eager with the root last too.

mod common;

use common::{all_trees, full_or, projective_trees, random_projective, random_tree, reachable_with_arcs_from, sampled};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tabula::oracle::direction::{Direction, Directions};
use tabula::oracle::exhaustive::{best_score, Exhaustive};
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Root, Step, Strategy, System};
use tabula::parser::beam::{BeamParser, Constraints};
use tabula::parser::features::{laid_out, ArcState, Extractor, FeatureColumns, Tokens};
use tabula::parser::global::{correct_steps, Observed, Search, Update};
use tabula::parser::model::{arc_steps, classes, LabelledScores};
use tabula::parser::perceptron::Weights;
use tabula::parser::train::{
    arc_standard_static, read_gold, GoldSentence, OracleKind, Projectivize, TrainOptions, Trainer,
};
use tabula::parser::{Model, Parser};
use tabula::tree::{ArcTarget, DepTree};

/// Every system with the root first, and those that offer it with the root last.
fn layouts() -> Vec<(System, Root)> {
    let last = System::ALL.into_iter().filter(|&s| Root::Last.offered(s)).map(|s| (s, Root::Last));
    System::ALL.into_iter().map(|s| (s, Root::First)).chain(last).collect()
}

/// A model of `system` with the root at `root`, `labels` labels and random weights.
fn random_model((system, root): (System, Root), labels: usize, rng: &mut ChaCha8Rng) -> Model {
    let (sb, lb) = (6, 6);
    let sw = classes(system).len();
    let lw = arc_steps(system).count() * labels.max(1);
    let mut draw = |len: usize| (0..len).map(|_| rng.gen_range(-4i32..=4) as f32 * 0.25).collect::<Vec<f32>>();
    let steps = Weights::from_vec(sb, sw, draw((1 << sb) * sw)).unwrap();
    let arcs = Weights::from_vec(lb, lw, draw((1 << lb) * lw)).unwrap();
    let names = (0..labels).map(|l| format!("l{l}")).collect();
    let mut model = Model::new(system, names, steps, arcs, FeatureColumns::NONE).unwrap();
    model.root = root;
    model
}

/// Random tokens over a small vocabulary (so that features repeat).
fn random_tokens(n: usize, rng: &mut ChaCha8Rng) -> Tokens {
    let mut t = Tokens::default();
    for i in 0..=n {
        let w = if i == 0 { 999 } else { rng.gen_range(0..4u64) };
        t.words.push(w * 7919 + 1);
        t.tags.push(w % 3 * 104_729 + 2);
        t.suffixes.push(w * 31 + 3);
        t.feats.push(5);
        t.lemmas.push(w * 17 + 4);
        t.xpos.push(w % 2 * 7 + 6);
    }
    t
}

#[test]
fn a_beam_of_one_parses_as_the_greedy_parser() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for (system, root) in layouts() {
        for _ in 0..60 {
            let labels = rng.gen_range(1..=5);
            let model = random_model((system, root), labels, &mut rng);
            let (mut greedy, mut beam) = (Parser::new(&model), BeamParser::new(&model, 1));
            for _ in 0..5 {
                let n = rng.gen_range(0..=14);
                let tokens = random_tokens(n, &mut rng);
                greedy.parse(&tokens);
                beam.parse(&tokens).unwrap();
                assert_eq!((&greedy.heads, &greedy.labels), (&beam.heads, &beam.labels), "{system} {root} n = {n}");
                assert_eq!(greedy.heads.len(), n);
            }
        }
    }
}

/// The beam copies a successor from its parent incrementally (the words
/// the steps between the two touched, the top of the stack): it parses
/// exactly as copying every hypothesis whole, for every system and root
/// position, beam widths from 2 to 64, sentences of up to 60 words, and a
/// parser reused from sentence to sentence.
#[test]
fn incremental_copies_parse_as_whole_copies() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for (system, root) in layouts() {
        for _ in 0..6 {
            let labels = rng.gen_range(1..=4);
            let model = random_model((system, root), labels, &mut rng);
            let width = [2, 3, 5, 16, 64][rng.gen_range(0..5)];
            let (mut fast, mut whole) = (BeamParser::new(&model, width), BeamParser::new(&model, width));
            whole.set_copy_whole(true);
            for _ in 0..6 {
                let n = rng.gen_range(0..=60);
                let tokens = random_tokens(n, &mut rng);
                let (a, b) = (fast.parse(&tokens).unwrap(), whole.parse(&tokens).unwrap());
                assert_eq!(a.to_bits(), b.to_bits(), "{system} {root} K = {width} n = {n}");
                assert_eq!((&fast.heads, &fast.labels), (&whole.heads, &whole.labels), "{system} {root} n = {n}");
            }
        }
    }
}

/// The copies between hypotheses are a small part of copying them whole:
/// the words and stack entries copied per word parsed, from 200 to 6,400
/// words with a beam of 8 and random weights (whose hypotheses stay apart
/// longer than a trained model's), grow far less than the sentence, and
/// at 6,400 words are under 1 % of whole copies (2 steps × 8 × n per word).
#[test]
fn the_copies_per_word_grow_far_less_than_the_sentence() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for (system, root) in
        [(System::ArcHybrid, Root::First), (System::ArcStandard, Root::First), (System::ArcEager, Root::Last)]
    {
        let model = random_model((system, root), 3, &mut rng);
        let per_word = |n: usize, rng: &mut ChaCha8Rng| {
            let mut parser = BeamParser::new(&model, 8);
            parser.parse(&random_tokens(n, rng)).unwrap();
            parser.copied() as f64 / n as f64
        };
        let (short, long) = (per_word(200, &mut rng), per_word(6400, &mut rng));
        let shown = format!("{system}: {short:.1} words copied per word at 200 words, {long:.1} at 6400");
        assert!(long < 8.0 * short, "{shown}");
        assert!(long < 0.01 * (2.0 * 8.0 * 6400.0), "{shown}");
    }
}

/// Every complete derivation's score (the sum of its labelled steps'
/// scores, added up as the beam does); the best.
fn best_derivation(model: &Model, tokens: &Tokens) -> f64 {
    best_derivation_among(model, tokens, None)
}

/// [`best_derivation`] among the derivations whose arc steps carry one of
/// the `labels` best labels of their step (by label weight, first label
/// first on ties).
fn best_derivation_among(model: &Model, tokens: &Tokens, labels: Option<usize>) -> f64 {
    #[allow(clippy::too_many_arguments)]
    fn go(
        model: &Model,
        tokens: &Tokens,
        config: &Configuration,
        arcs: &ArcState,
        score: f64,
        ex: &mut Extractor,
        best: &mut f64,
        limit: Option<usize>,
    ) {
        if config.is_final() {
            *best = best.max(score);
            return;
        }
        let steps = classes(model.system);
        ex.extract(config, arcs, tokens);
        let mut scores = LabelledScores::new(model.system, model.labels.len());
        scores.fill(model.steps(), model.compact_arcs(), &ex.features, |i| config.is_applicable(steps[i]));
        for (i, &step) in steps.iter().enumerate() {
            if !config.is_applicable(step) {
                continue;
            }
            let sw = scores.step_weight(i);
            let labels: Vec<Option<u32>> = match scores.block(i) {
                None => vec![None],
                Some(_) => {
                    let mut all: Vec<u32> = (0..scores.label_count() as u32).collect();
                    all.sort_by(|&a, &b| {
                        let (wa, wb) = (scores.label_weight(i, a).unwrap(), scores.label_weight(i, b).unwrap());
                        wb.total_cmp(&wa).then(a.cmp(&b))
                    });
                    all.truncate(limit.unwrap_or(usize::MAX));
                    all.into_iter().map(Some).collect()
                }
            };
            for l in labels {
                let local = sw + l.map_or(0.0, |l| scores.label_weight(i, l).unwrap());
                let (mut c, mut a) = (config.clone(), arcs.clone());
                if let Some((h, d)) = c.apply(step).unwrap() {
                    a.add(h, d, l.unwrap_or(0));
                }
                go(model, tokens, &c, &a, score + f64::from(local), ex, best, limit);
            }
        }
    }
    let mut laid = Tokens::default();
    let tokens = laid_out(tokens, model.root, &mut laid);
    let mut arcs = ArcState::default();
    arcs.reset(tokens.len());
    let mut best = f64::NEG_INFINITY;
    let config = Configuration::initial_at(model.system, tokens.len(), model.root);
    go(model, tokens, &config, &arcs, 0.0, &mut Extractor::default(), &mut best, labels);
    best
}

#[test]
fn an_unbounded_beam_returns_the_best_derivation() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut checked = 0;
    for (system, root) in layouts() {
        // Arc-eager-nm: unshifts and repairs multiply the derivations.
        // One word fewer unless TABULA_TEST_FULL=1.
        let max_n = match system {
            System::Attardi | System::LrSpine => 4,
            System::ArcEagerNm => 3,
            _ => 5,
        } - full_or(1, 0);
        for n in 0..=max_n {
            for _ in 0..4 {
                let model = random_model((system, root), 3, &mut rng);
                let tokens = random_tokens(n, &mut rng);
                let want = best_derivation(&model, &tokens);
                let got = BeamParser::new(&model, 1 << 20).parse(&tokens).unwrap();
                assert_eq!(got, want, "{system} {root} n = {n}");
                // A narrower beam never finds a better derivation.
                assert!(BeamParser::new(&model, 3).parse(&tokens).unwrap() <= want);
                // With the labels per step limited (--beam-labels), the best derivation among those.
                let mut limited = model.clone();
                limited.beam_labels = Some(2);
                let want2 = best_derivation_among(&model, &tokens, Some(2));
                assert_eq!(
                    BeamParser::new(&limited, 1 << 20).parse(&tokens).unwrap(),
                    want2,
                    "{system} n = {n}, 2 labels"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}

/// `count` random trees of 1 … `max_n` words, non-projective ones allowed or not.
fn random_trees(count: usize, max_n: usize, nonprojective: bool, rng: &mut ChaCha8Rng) -> Vec<DepTree> {
    (0..count)
        .map(|_| {
            let n = rng.gen_range(1..=max_n);
            if nonprojective {
                random_tree(n, 0.2, rng)
            } else {
                random_projective(n, rng)
            }
        })
        .collect()
}

/// The gold sentences of `trees`, with random tokens and labels.
fn sentences(trees: &[DepTree], labels: usize, rng: &mut ChaCha8Rng) -> Vec<GoldSentence> {
    trees
        .iter()
        .enumerate()
        .map(|(i, t)| GoldSentence {
            tokens: random_tokens(t.len(), rng),
            tree: t.clone(),
            deprels: (0..t.len()).map(|_| format!("l{}", rng.gen_range(0..labels))).collect(),
            first_line: i + 1,
        })
        .collect()
}

fn options(system: System, oracle: OracleKind, search: Search) -> TrainOptions {
    TrainOptions {
        system,
        oracle,
        search,
        strategy: if matches!(system, System::ArcStandard | System::ArcHybrid | System::ArcEager) {
            Strategy::Lbr
        } else {
            Strategy::None
        },
        step_bits: 10,
        label_bits: 10,
        explore_from: 1,
        explore_p: 0.7,
        ..TrainOptions::default()
    }
}

fn train(options: TrainOptions, data: Vec<GoldSentence>, epochs: usize) -> Model {
    let mut t = Trainer::new(options, data, "mem").unwrap();
    for _ in 0..epochs {
        t.epoch(&mut |_| {}).unwrap();
    }
    t.model()
}

#[test]
fn a_beam_of_one_with_early_update_and_restart_trains_as_the_greedy_trainer() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let beam1 = Search::Beam { width: 1, update: Update::Early, restart: true, labels: None };
    for (system, root) in layouts() {
        for oracle in [OracleKind::Static, OracleKind::Dynamic] {
            // Projective trees for the static oracle; any tree for the dynamic one where it is exact.
            let nonprojective = oracle == OracleKind::Dynamic && system != System::LrSpine;
            let trees = random_trees(40, 9, nonprojective, &mut rng);
            let data = sentences(&trees, 3, &mut rng);
            let mut o = options(system, oracle, Search::Greedy);
            o.root = root;
            if nonprojective {
                o.projectivize = Projectivize::None;
                o.algorithm = Algorithm::Auto;
            }
            let greedy = train(o.clone(), data.clone(), 4);
            let global = train(TrainOptions { search: beam1, ..o }, data, 4);
            assert!(greedy == global, "{system} {root} {oracle:?}: the models differ");
            assert_eq!(greedy.to_bytes(), global.to_bytes());
        }
    }
}

/// The number of gold arcs among the arcs of `c`.
fn gold_arcs(c: &Configuration, gold: &DepTree) -> u32 {
    c.arcs().filter(|&(h, d)| gold.head(d) == h).count() as u32
}

#[test]
fn correct_steps_are_the_brute_force_optimal_steps_on_every_configuration() {
    // All trees of up to 5 words (projective ones for LR-spine), every
    // configuration reachable with its arcs (for five words every fourth
    // configuration unless TABULA_TEST_FULL=1); random trees of 6 and 7 words.
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut checked = 0usize;
    for (system, root) in layouts() {
        let projective_only = system == System::LrSpine;
        let mut oracle = Oracle::new();
        for n in 1..=7 {
            let trees: Vec<DepTree> = match (n <= 5, projective_only) {
                (true, true) => projective_trees(n).to_vec(),
                (true, false) => all_trees(n),
                (false, true) => (0..6).map(|_| random_projective(n, &mut rng)).collect(),
                (false, false) => (0..6).map(|_| random_tree(n, 0.3, &mut rng)).collect(),
            };
            let trees: Vec<DepTree> = trees.iter().map(|t| root.extend_tree(t)).collect();
            let start = Configuration::initial_at(system, root.positions(n), root);
            let configs: Vec<Configuration> =
                reachable_with_arcs_from(start).into_iter().filter(|c| !c.is_final()).collect();
            let configs: Vec<Configuration> = if n <= 4 {
                configs
            } else if n == 5 {
                // Every configuration of all five-word trees with TABULA_TEST_FULL=1.
                sampled(configs, 4)
            } else {
                (0..400).map(|_| configs[rng.gen_range(0..configs.len())].clone()).collect()
            };
            for gold in &trees {
                let mut brute = Exhaustive::new(gold, Strategy::None);
                for c in &configs {
                    let scores = oracle.scores(c, gold, Strategy::None, Algorithm::Auto).unwrap();
                    let want_scores = brute.step_scores(c).unwrap();
                    let best = classes(system).iter().filter_map(|&s| want_scores.get(s)).max();
                    let want: HashSet<Step> = classes(system)
                        .iter()
                        .copied()
                        .filter(|&s| best.is_some() && want_scores.get(s) == best)
                        .collect();
                    let got: HashSet<Step> = correct_steps(system, &scores).collect();
                    assert_eq!(got, want, "{system} {root} gold {gold:?} at {c:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn every_hypothesis_of_global_training_is_correct_exactly_when_it_can_reach_the_best_tree() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for (system, root) in layouts() {
        for (oracle, update, restart, subsample) in [
            (OracleKind::Dynamic, Update::Early, true, None),
            (OracleKind::Dynamic, Update::MaxViolation, false, None),
            (OracleKind::Dynamic, Update::Full, true, None),
            (OracleKind::Static, Update::MaxViolation, true, None),
            // Partial trees: 60 % of the gold arcs kept.
            (OracleKind::Dynamic, Update::MaxViolation, true, Some(0.6)),
        ] {
            if subsample.is_some() && matches!(system, System::LrSpine | System::Attardi) {
                continue;
            }
            // The label limit of --beam-labels with the max-violation runs.
            let labels = (update == Update::MaxViolation).then_some(1);
            let nonprojective = oracle == OracleKind::Dynamic && system != System::LrSpine;
            let trees = random_trees(full_or(10, 25), 7, nonprojective, &mut rng);
            let data = sentences(&trees, 2, &mut rng);
            let mut o = options(system, oracle, Search::Beam { width: 4, update, restart, labels });
            o.strategy = Strategy::None;
            o.root = root;
            o.subsample = subsample;
            if nonprojective {
                o.projectivize = Projectivize::None;
            }
            let mut t = Trainer::new(o, data, "mem").unwrap();
            // (gold, gold labels, c0, its labels, hypothesis, its labels, correct)
            type Seen = Vec<(
                DepTree,
                Vec<u32>,
                Configuration,
                Vec<Option<u32>>,
                Configuration,
                Vec<Option<u32>>,
                (Vec<Step>, bool),
            )>;
            let seen: Arc<Mutex<Seen>> = Arc::default();
            let sink = seen.clone();
            t.observe(Box::new(move |o: &Observed<'_>| {
                let labels = |a: &ArcState, n: usize| (0..=n).map(|d| a.label(d)).collect::<Vec<_>>();
                let n = o.gold.len();
                sink.lock().unwrap().push((
                    o.gold.clone(),
                    o.labels.to_vec(),
                    o.start.0.clone(),
                    labels(o.start.1, n),
                    o.hyp.0.clone(),
                    labels(o.hyp.1, n),
                    (o.steps.to_vec(), o.correct),
                ));
                // Steps from the initial configuration: c0's depth, then the hypothesis's.
                let _ = o.start_depth;
            }));
            for _ in 0..3 {
                t.epoch(&mut |_| {}).unwrap();
            }
            let seen = std::mem::take(&mut *seen.lock().unwrap());
            let (mut right, mut wrong) = (0, 0);
            let mut done = HashSet::new();
            let mut session_oracle = Oracle::new();
            for (gold, gold_labels, c0, l0, c, l, (steps, correct)) in seen {
                if !done.insert((gold.clone(), c0.clone(), l0.clone(), c.clone(), l.clone(), steps.clone())) {
                    continue;
                }
                // Gold arcs with their gold label, plus the best number of arcs still reachable.
                let labelled = |x: &Configuration, l: &[Option<u32>]| {
                    x.arcs().filter(|&(h, d)| gold.head(d) == h && l[d] == Some(gold_labels[d - 1])).count() as u32
                };
                // Arc-eager-nm replaces arcs: only the final tree counts (`nm_reach`).
                let reach = |x: &Configuration, l: &[Option<u32>]| match system {
                    System::ArcEagerNm => nm_reach(x, l, &gold, &gold_labels),
                    _ => labelled(x, l) + best_score(x, &gold, Strategy::None).unwrap().unwrap(),
                };
                let want = match oracle {
                    OracleKind::Dynamic => reach(&c, &l) == reach(&c0, &l0),
                    // Static: the canonical computation so far (c0 is on it), with the gold labels.
                    OracleKind::Static => {
                        let (configs, path) = canonical((system, root), &gold, &mut session_oracle);
                        let depth = configs.iter().position(|x| *x == c0).expect("c0 is canonical");
                        path.get(depth..depth + steps.len()) == Some(&steps[..])
                            && labelled(&c, &l) == gold_arcs(&c, &gold)
                    }
                };
                assert_eq!(
                    correct, want,
                    "{system} {root} {oracle:?} {update:?} {subsample:?}: gold {gold}, c0 {c0:?}, hypothesis {c:?}"
                );
                if correct {
                    right += 1;
                } else {
                    wrong += 1;
                }
            }
            assert!(
                right > full_or(20, 50) && wrong > full_or(20, 50),
                "{system} {root} {oracle:?} {update:?}: {right} correct, {wrong} not"
            );
        }
    }
}

/// Arc-eager-nm: the most words that have their (annotated) gold head with
/// their gold label in a final tree reachable from `x`, whose words have
/// the labels `l`. An arc `x` already has and the final tree keeps counts
/// with its label in `l`; an arc built later may take any label, so it
/// counts when it is gold. A head, once replaced, never comes back (a
/// `left_arc` gives a head to the right and pops the word for good), so an
/// arc of the final tree is one of `x`'s exactly when `x` has it. Follows
/// every computation from `x` (its own search, not the brute force of
/// `tabula::oracle::exhaustive`): a word scores when it leaves the stack and
/// the input for good, memoised on the stack with the heads of its words
/// and the input; the words `x` has already settled score as they are.
fn nm_reach(x: &Configuration, l: &[Option<u32>], gold: &DepTree, gold_labels: &[u32]) -> u32 {
    type Key = (Vec<(usize, Option<usize>)>, Vec<usize>, bool);
    let live = |c: &Configuration| c.stack().iter().copied().chain(c.buffer()).collect::<HashSet<usize>>();
    let scores = |d: usize, h: Option<usize>| {
        gold.is_annotated(d) && h == Some(gold.head(d)) && (x.head(d) != h || l[d] == Some(gold_labels[d - 1]))
    };
    fn best(
        c: &Configuration,
        live: &dyn Fn(&Configuration) -> HashSet<usize>,
        scores: &dyn Fn(usize, Option<usize>) -> bool,
        memo: &mut std::collections::HashMap<Key, u32>,
    ) -> u32 {
        if c.is_final() {
            return 0;
        }
        let key: Key =
            (c.stack().iter().map(|&a| (a, c.head(a))).collect(), c.buffer().collect(), c.unshifted().is_some());
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let before = live(c);
        let v = c
            .applicable_steps()
            .map(|step| {
                let mut d = c.clone();
                d.apply(step).unwrap();
                let after = live(&d);
                let settled = before.iter().filter(|&&w| !after.contains(&w) && scores(w, d.head(w))).count();
                settled as u32 + best(&d, live, scores, memo)
            })
            .max()
            .expect("a non-final configuration has a step");
        memo.insert(key, v);
        v
    }
    let now = live(x);
    let settled = (1..=gold.len()).filter(|&d| !now.contains(&d) && scores(d, x.head(d))).count() as u32;
    settled + best(x, &live, &scores, &mut std::collections::HashMap::new())
}

/// The configurations of the canonical (static-oracle) computation of
/// `gold` (laid out for `root`), and its steps.
fn canonical(
    (system, root): (System, Root),
    gold: &DepTree,
    oracle: &mut Oracle<'static>,
) -> (Vec<Configuration>, Vec<Step>) {
    let n = gold.len();
    let mut c = Configuration::initial_at(system, n, root);
    let mut out = vec![c.clone()];
    let mut steps = Vec::new();
    let mut missing = vec![0u32; n + 1];
    for d in 1..=n {
        missing[gold.head(d)] += 1;
    }
    while !c.is_final() {
        let step = if system == System::ArcStandard {
            arc_standard_static(&c, gold, &missing)
        } else {
            oracle.static_step(&c, gold).unwrap()
        };
        if let Some((h, d)) = c.apply(step).unwrap() {
            if gold.head(d) == h {
                missing[h] -= 1;
            }
        }
        steps.push(step);
        out.push(c.clone());
    }
    (out, steps)
}

/// The toy language of `tests/parser.rs`, smaller: `DET? NOUN VERB DET? NOUN PUNCT`.
fn toy(count: usize, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::new();
    for _ in 0..count {
        let mut rows: Vec<(String, &str, usize, &str)> = Vec::new();
        let det1 = rng.gen_bool(0.5);
        if det1 {
            rows.push(("the".into(), "DET", 2, "det"));
        }
        let subj = rows.len() + 1;
        rows.push((format!("n{}", rng.gen_range(0..9)), "NOUN", 0, "nsubj"));
        let verb = rows.len() + 1;
        rows.push((format!("v{}", rng.gen_range(0..5)), "VERB", 0, "root"));
        rows[subj - 1].2 = verb;
        if rng.gen_bool(0.5) {
            let at = rows.len() + 2;
            rows.push(("a".into(), "DET", at, "det"));
        }
        rows.push((format!("n{}", rng.gen_range(0..9)), "NOUN", verb, "obj"));
        rows.push((".".into(), "PUNCT", verb, "punct"));
        for (i, (form, upos, head, rel)) in rows.iter().enumerate() {
            text.push_str(&format!("{}\t{form}\t_\t{upos}\t_\t_\t{head}\t{rel}\t_\t_\n", i + 1));
        }
        text.push('\n');
    }
    text
}

#[test]
fn early_update_learns_a_toy_treebank_perfectly_and_its_model_parses_greedily_too() {
    let gold = read_gold(toy(150, 3).as_bytes(), "toy").unwrap();
    let layouts = [System::ArcStandard, System::ArcHybrid, System::ArcEager]
        .map(|s| (s, Root::First))
        .into_iter()
        .chain([(System::ArcHybrid, Root::Last), (System::ArcEager, Root::Last)]);
    for (system, root) in layouts {
        for (oracle, restart) in [(OracleKind::Dynamic, false), (OracleKind::Static, true)] {
            let search = Search::Beam { width: 4, update: Update::Early, restart, labels: None };
            let model = train(TrainOptions { root, ..options(system, oracle, search) }, gold.clone(), 15);
            assert_eq!(model.root, root);
            assert_eq!(model.beam, 4);
            let back = Model::from_bytes(&model.to_bytes()).unwrap();
            assert!(back == model, "the beam width round-trips");
            let mut limited = model.clone();
            limited.beam_labels = Some(3);
            assert!(Model::from_bytes(&limited.to_bytes()).unwrap() == limited, "the label limit round-trips");
            let (mut beam, mut greedy) = (BeamParser::new(&model, 4), Parser::new(&model));
            let (mut right, mut right1, mut words) = (0, 0, 0);
            for s in &gold {
                beam.parse(&s.tokens).unwrap();
                greedy.parse(&s.tokens);
                for d in 1..=s.tree.len() {
                    right += usize::from(beam.heads[d - 1] == s.tree.head(d));
                    right1 += usize::from(greedy.heads[d - 1] == s.tree.head(d));
                    words += 1;
                }
                let tree = DepTree::from_heads(&greedy.heads);
                assert!(tree.is_ok(), "a beam model parses greedily into a tree");
            }
            assert_eq!(right, words, "{system} {root} {oracle:?}: beam 4 learns the toy treebank");
            // Globally trained weights are not locally calibrated: greedy parsing with them is worse, but works.
            assert!(right1 * 2 >= words, "{system} {oracle:?}: greedy with the beam model {right1}/{words}");
        }
    }
}

/// Constrained parsing (`tabula parse --constraints`): on random models,
/// sentences and partial constraints (labels fixed on some of their arcs),
/// the parse keeps as many constraint arcs as the best computation of the
/// system can (the brute force), with their fixed labels; complete
/// projective constraints come back exactly. Every system with an oracle
/// for partial trees, root first and last, beams of 1 and 3.
#[test]
fn constrained_parsing_keeps_as_many_constraints_as_the_system_can() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let systems = [System::ArcStandard, System::ArcHybrid, System::ArcEager];
    for (system, root) in layouts().into_iter().filter(|(s, _)| systems.contains(s)) {
        let (mut exact, mut complete) = (0, 0);
        for width in [1, 3] {
            for _ in 0..60 {
                let labels = rng.gen_range(1..=4u32);
                let model = random_model((system, root), labels as usize, &mut rng);
                let mut parser = BeamParser::new(&model, width);
                let n = rng.gen_range(1..=7);
                let tree = random_tree(n, 0.3, &mut rng);
                let full = (1u32 << n) - 1;
                let mask = if rng.gen_bool(0.2) { full } else { rng.gen_range(0..=full) };
                let heads: Vec<Option<usize>> =
                    (1..=n).map(|d| (mask >> (d - 1) & 1 == 1).then(|| tree.head(d))).collect();
                let fixed: Vec<Option<u32>> =
                    heads.iter().map(|h| h.filter(|_| rng.gen_bool(0.5)).map(|_| rng.gen_range(0..labels))).collect();
                let constraints =
                    Constraints { tree: DepTree::from_partial_heads(&heads).unwrap(), labels: fixed.clone() };
                let tokens = random_tokens(n, &mut rng);
                parser.parse_constrained(&tokens, &constraints).unwrap();
                let positions = if root == Root::Last { n + 1 } else { n };
                let gold = root.extend_tree(&constraints.tree);
                let start = Configuration::initial_at(system, positions, root);
                let best = best_score(&start, &gold, Strategy::None).unwrap().unwrap() as usize;
                let kept: Vec<usize> = (1..=n).filter(|&d| heads[d - 1] == Some(parser.heads[d - 1])).collect();
                let what =
                    format!("{system} {root} K = {width}: constraints {}, parse {:?}", constraints.tree, parser.heads);
                // Arc-eager attaches a word left without a head to the root at
                // the end, which may keep one more constraint than it built.
                if system == System::ArcEager {
                    assert!(kept.len() >= best, "{what}");
                } else {
                    assert_eq!(kept.len(), best, "{what}");
                }
                exact += usize::from(kept.len() == best);
                for &d in &kept {
                    if let Some(l) = fixed[d - 1].filter(|_| system != System::ArcEager || parser.heads[d - 1] != 0) {
                        assert_eq!(parser.labels[d - 1], l, "{what}: label of {d}");
                    }
                }
                assert!(DepTree::from_heads(&parser.heads).is_ok(), "{what}");
                if mask == full && tree.is_projective() {
                    assert_eq!(parser.heads, tree.heads(), "{what}");
                    complete += 1;
                }
            }
        }
        assert!(exact > 100 && complete > 5, "{system} {root}: {exact} exact, {complete} complete");
    }
}

/// The most direction constraints any computation from `config` satisfies
/// with the arcs it builds: every computation enumerated. `None` if none
/// completes.
fn most_directions(config: &Configuration, target: &Directions) -> Option<usize> {
    if config.is_final() {
        return Some(0);
    }
    let steps: Vec<Step> = config.applicable_steps().collect();
    steps
        .into_iter()
        .filter_map(|step| {
            let mut after = config.clone();
            let arc = after.apply(step).unwrap();
            let gained = usize::from(arc.is_some_and(|(h, d)| target.has_arc(h, d)));
            most_directions(&after, target).map(|rest| rest + gained)
        })
        .max()
}

/// Direction constraints (`tabula parse --constraints --constraint-kind
/// direction`): on random models, sentences and partial constraints (some
/// words' heads before them, after them or the root), the parse satisfies
/// as many as the best computation of the system does (all computations
/// enumerated). Arc-standard, arc-hybrid and arc-eager, root first (a
/// root-last model is refused), beams of 1 and 3.
#[test]
fn direction_constraints_are_satisfied_as_often_as_the_system_can() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let systems = [System::ArcStandard, System::ArcHybrid, System::ArcEager];
    let mut short = 0;
    for (system, root) in layouts().into_iter().filter(|(s, _)| systems.contains(s)) {
        if root == Root::Last {
            let model = random_model((system, root), 2, &mut rng);
            let refused = BeamParser::new(&model, 1).parse_directed(&random_tokens(2, &mut rng), &[None, None]);
            assert!(matches!(refused, Err(OracleError::TargetRootLast)), "{system} {root}");
            continue;
        }
        let mut exact = 0;
        for width in [1, 3] {
            for _ in 0..40 {
                let model = random_model((system, root), 2, &mut rng);
                let mut parser = BeamParser::new(&model, width);
                let n = rng.gen_range(1..=6);
                let directions: Vec<Option<Direction>> = (1..=n)
                    .map(|d| match rng.gen_range(0..6) {
                        0 => None,
                        1 | 2 if d > 1 => Some(Direction::Left),
                        3 | 4 if d < n => Some(Direction::Right),
                        _ => Some(Direction::Root),
                    })
                    .collect();
                let tokens = random_tokens(n, &mut rng);
                parser.parse_directed(&tokens, &directions).unwrap();
                let satisfied = (1..=n)
                    .filter(|&d| directions[d - 1].is_some_and(|c| c == Direction::of(parser.heads[d - 1], d, 0)))
                    .count();
                let (target, positions) = match root {
                    Root::First => (Directions::root_first(&directions), n),
                    Root::Last => (Directions::root_last(&directions), n + 1),
                };
                let start = Configuration::initial_at(system, positions, root);
                let best = most_directions(&start, &target).unwrap();
                let what = format!("{system} {root} K = {width}: directions {directions:?}, parse {:?}", parser.heads);
                // Arc-eager attaches a word left without a head to the root at
                // the end, which may satisfy one more constraint than it built.
                if system == System::ArcEager {
                    assert!(satisfied >= best, "{what}: {satisfied} < {best}");
                } else {
                    assert_eq!(satisfied, best, "{what}");
                }
                exact += usize::from(satisfied == best);
                short += usize::from(best < directions.iter().flatten().count());
                assert!(DepTree::from_heads(&parser.heads).is_ok(), "{what}");
            }
        }
        assert!(exact > 60, "{system} {root}: {exact} exact");
    }
    // Not every set of directions fits one tree of the system (word 1's
    // head after it and word 2's before it, in two words): the search then
    // satisfies the most, not all.
    assert!(short > 10, "{short} sets of constraints that no computation satisfies");
}
