//! The greedy parser (issue 13, item 6): learning a synthetic treebank,
//! static computations, exploration, model files, eval, and the `train`,
//! `parse` and `eval` commands end to end. Data: small CoNLL-U texts
//! generated here.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::parser::eval::evaluate;
use tabula::parser::features::{FeatureColumns, FEATURE_SET, FEATURE_SET_FEATS};
use tabula::parser::model::{arc_class, classes, step_class, LabelledScores, Model, MODEL_SPINE_DEPTH, MODEL_VERSION};
use tabula::parser::perceptron::{Rows, Weights};
use tabula::parser::train::{
    arc_standard_static, attachment, read_gold, GoldSentence, OracleKind, Projectivize, TrainOptions, Trainer,
};
use tabula::parser::{Parser, ParserError};
use tabula::tree::DepTree;

/// The systems the trainer is tested with: every system.
const TRAINED_SYSTEMS: [System; 6] = System::ALL;

/// The strategy training uses for `system`: none where the oracle scores
/// every computation (LR-spine, Attardi), else the default (lbr).
fn strategy_for(system: System) -> Strategy {
    match system {
        System::LrSpine | System::Attardi | System::ArcEagerNm => Strategy::None,
        _ => Strategy::Lbr,
    }
}

/// Default options for `system` and `oracle`, with its strategy.
fn options_for(system: System, oracle: OracleKind) -> TrainOptions {
    TrainOptions { system, oracle, strategy: strategy_for(system), ..TrainOptions::default() }
}

/// A synthetic language: `NP VERB NP (ADP NP)* PUNCT`, NP = `(DET) (ADJ)* NOUN`,
/// every attachment determined by the tags (PPs attach to the verb).
fn synthetic(count: usize, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::new();
    for s in 0..count {
        // (form, upos, head index in words or usize::MAX for root, deprel)
        let mut words: Vec<(String, &str, usize, &str)> = Vec::new();
        let np = |rng: &mut ChaCha8Rng, words: &mut Vec<(String, &str, usize, &str)>, role: &'static str| {
            let start = words.len();
            let det = rng.gen_bool(0.6);
            let adjs = rng.gen_range(0..3);
            let noun = start + usize::from(det) + adjs;
            if det {
                words.push((format!("the{}", rng.gen_range(0..3)), "DET", noun, "det"));
            }
            for _ in 0..adjs {
                words.push((format!("adj{}", rng.gen_range(0..20)), "ADJ", noun, "amod"));
            }
            words.push((format!("noun{}", rng.gen_range(0..50)), "NOUN", usize::MAX - 1, role));
            noun
        };
        let subj = np(&mut rng, &mut words, "nsubj");
        let verb = words.len();
        words.push((format!("verb{}", rng.gen_range(0..20)), "VERB", usize::MAX, "root"));
        words[subj].2 = verb;
        let obj = np(&mut rng, &mut words, "obj");
        words[obj].2 = verb;
        for _ in 0..rng.gen_range(0..3) {
            let case = words.len();
            words.push((format!("prep{}", rng.gen_range(0..5)), "ADP", usize::MAX - 1, "case"));
            let noun = np(&mut rng, &mut words, "obl");
            words[case].2 = noun;
            words[noun].2 = verb;
        }
        words.push((".".into(), "PUNCT", verb, "punct"));
        text.push_str(&format!("# sent_id = syn-{s}\n"));
        for (i, (form, upos, head, rel)) in words.iter().enumerate() {
            let head = if *head == usize::MAX { 0 } else { head + 1 };
            text.push_str(&format!("{}\t{form}\t_\t{upos}\t_\t_\t{head}\t{rel}\t_\t_\n", i + 1));
        }
        text.push('\n');
    }
    text
}

fn small(options: TrainOptions) -> TrainOptions {
    TrainOptions { step_bits: 14, label_bits: 13, ..options }
}

#[test]
fn the_perceptron_learns_a_synthetic_treebank_perfectly() {
    let gold = read_gold(synthetic(150, 1).as_bytes(), "syn").unwrap();
    for system in TRAINED_SYSTEMS {
        for oracle in [OracleKind::Static, OracleKind::Dynamic] {
            let options = small(options_for(system, oracle));
            let mut trainer = Trainer::new(options, gold.clone(), "syn").unwrap();
            for _ in 0..8 {
                trainer.epoch(&mut |_| {}).unwrap();
            }
            let c = attachment(&trainer.model(), &gold).unwrap();
            assert_eq!((c.heads, c.labelled), (c.words, c.words), "{system} {oracle:?}");
        }
    }
}

/// Partial trees (`--subsample`): half the arcs of the synthetic treebank
/// are enough to learn it (every system with an oracle for partial trees,
/// greedy), and with P = 1 the model is the one trained on the full trees.
#[test]
fn the_perceptron_learns_the_synthetic_treebank_from_half_its_arcs() {
    let gold = read_gold(synthetic(150, 1).as_bytes(), "syn").unwrap();
    for system in [System::ArcStandard, System::ArcHybrid, System::ArcEager, System::ArcEagerNm] {
        let options = small(options_for(system, OracleKind::Dynamic));
        let train = |subsample| {
            let mut trainer = Trainer::new(TrainOptions { subsample, ..options.clone() }, gold.clone(), "syn").unwrap();
            for _ in 0..8 {
                trainer.epoch(&mut |_| {}).unwrap();
            }
            (trainer.prepared().partial, trainer.model())
        };
        let (partial, model) = train(Some(0.5));
        assert!(partial > 140, "{system}: {partial} partial trees");
        let c = attachment(&model, &gold).unwrap();
        assert!(c.heads * 100 >= c.words * 98 && c.labelled * 100 >= c.words * 97, "{system}: {c:?}");
        let (none, full) = train(Some(1.0));
        assert_eq!(none, 0);
        assert!(full == train(None).1, "{system}: P = 1 trains the full trees");
    }
}

/// A HEAD `_` leaves a word unannotated; a DEPREL `_` leaves its label
/// unannotated, unless every DEPREL is `_` (an unlabelled treebank).
#[test]
fn holes_in_the_treebank_are_partial_trees() {
    let text = "1\ta\t_\tX\t_\t_\t2\tdep\t_\t_\n2\tb\t_\tY\t_\t_\t0\troot\t_\t_\n3\tc\t_\tZ\t_\t_\t_\t_\t_\t_\n\n\
                1\ta\t_\tX\t_\t_\t2\t_\t_\t_\n2\tb\t_\tY\t_\t_\t0\troot\t_\t_\n\n";
    let gold = read_gold(text.as_bytes(), "holes").unwrap();
    assert!(gold[0].tree.is_partial() && !gold[1].tree.is_partial());
    let options = small(options_for(System::ArcHybrid, OracleKind::Dynamic));
    let trainer = Trainer::new(options.clone(), gold.clone(), "holes").unwrap();
    assert_eq!(trainer.labels(), ["dep", "root"]);
    assert_eq!(trainer.prepared().partial, 1);
    let unlabelled = "1\ta\t_\tX\t_\t_\t2\t_\t_\t_\n2\tb\t_\tY\t_\t_\t0\t_\t_\t_\n\n";
    let trainer = Trainer::new(options.clone(), read_gold(unlabelled.as_bytes(), "u").unwrap(), "u").unwrap();
    assert_eq!(trainer.labels(), ["_"]);
    for (oracle, algorithm) in [(OracleKind::Static, Algorithm::Auto), (OracleKind::Dynamic, Algorithm::Linear)] {
        let o = TrainOptions { oracle, algorithm, ..options.clone() };
        let err = Trainer::new(o, gold.clone(), "holes").err().expect("refused").to_string();
        assert!(err.contains("line 1") && err.contains("partial"), "{err}");
    }
}

/// The tree built by following the static oracle from the initial
/// configuration (LR-spine and Attardi: the dynamic oracle's optimal step
/// under `canonical_step`'s tie-break; every step taken must be optimal).
fn static_computation(system: System, gold: &DepTree, oracle: &mut Oracle<'static>) -> Vec<usize> {
    let n = gold.len();
    if system == System::ArcStandard {
        let mut missing = vec![0u32; n + 1];
        for d in 1..=n {
            missing[gold.head(d)] += 1;
        }
        let mut c = Configuration::initial(system, n);
        while !c.is_final() {
            let step = arc_standard_static(&c, gold, &missing);
            if let Some((h, d)) = c.apply(step).unwrap() {
                assert_eq!(gold.head(d), h, "a non-gold arc on {gold:?}");
                missing[h] -= 1;
            }
        }
        (1..=n).map(|d| c.head(d).unwrap_or(0)).collect()
    } else {
        let (strategy, algorithm) = match system {
            System::LrSpine | System::Attardi | System::ArcEagerNm => (Strategy::None, Algorithm::Auto),
            _ => (Strategy::Lbr, Algorithm::Linear),
        };
        let mut s = OracleSession::new(oracle, system, gold.clone(), strategy, algorithm).unwrap();
        while !s.configuration().is_final() {
            let step = s.static_step().unwrap();
            if Oracle::has_canonical_tie_break(system) {
                let scores = s.scores().unwrap();
                assert_eq!(scores.get(step), scores.best(), "{system}: {step} is not optimal on {gold:?}");
            }
            s.apply(step).unwrap();
        }
        (1..=n).map(|d| s.configuration().head(d).unwrap_or(0)).collect()
    }
}

/// Attardi's static computation builds exactly as many gold arcs as its
/// oracle promises at the initial configuration, on every tree (projective
/// or not) of up to 6 words: all of them for the trees of its class, and
/// it never builds a non-gold arc then.
#[test]
fn attardi_static_computations_build_every_tree_its_oracle_can() {
    let mut oracle = Oracle::new();
    let (mut complete, mut partial) = (0, 0);
    for n in 1..=6 {
        for gold in common::all_trees(n) {
            let initial = Configuration::initial(System::Attardi, n);
            let promised = oracle.scores(&initial, &gold, Strategy::None, Algorithm::Tabular).unwrap().best().unwrap();
            let built = static_computation(System::Attardi, &gold, &mut oracle);
            let correct = built.iter().zip(gold.heads()).filter(|(a, b)| a == b).count() as u32;
            assert_eq!(correct, promised, "{gold:?}: built {built:?}");
            if promised == n as u32 {
                complete += 1;
            } else {
                partial += 1;
            }
        }
    }
    assert!(complete > 0 && partial > 0, "{complete} trees built completely, {partial} not");
}

/// LR-spine's canonical computation uses spine steps beyond K = 1 (it is
/// not arc-standard's), and steps deeper than the model's classes on long
/// right-branching chains: training follows them and counts them.
#[test]
fn lr_spine_spine_steps_beyond_the_model_depth_are_counted_not_fatal() {
    let n = MODEL_SPINE_DEPTH as usize + 4;
    // A right-branching chain 0 → 1 → 2 → … → n.
    let chain = DepTree::from_heads(&(0..n).collect::<Vec<_>>()).unwrap();
    let mut oracle = Oracle::new();
    let mut s =
        OracleSession::new(&mut oracle, System::LrSpine, chain.clone(), Strategy::None, Algorithm::Auto).unwrap();
    let mut deepest = 0;
    while !s.configuration().is_final() {
        let step = s.static_step().unwrap();
        if let Some((_, k)) = step.spine() {
            deepest = deepest.max(k);
        }
        assert_eq!(
            step_class(System::LrSpine, step).is_some(),
            step.spine().is_none_or(|(_, k)| k <= MODEL_SPINE_DEPTH)
        );
        s.apply(step).unwrap();
    }
    assert!(deepest > MODEL_SPINE_DEPTH, "deepest spine step {deepest}");
    let text: String = (1..=n)
        .map(|w| format!("{w}\tw{w}\t_\tNOUN\t_\t_\t{}\tdep\t_\t_\n", w - 1))
        .chain(std::iter::once("\n".to_owned()))
        .collect::<String>()
        .repeat(5);
    let data = read_gold(text.as_bytes(), "chain").unwrap();
    for oracle in [OracleKind::Static, OracleKind::Dynamic] {
        let options = small(TrainOptions { explore_from: 0, ..options_for(System::LrSpine, oracle) });
        let mut t = Trainer::new(options, data.clone(), "chain").unwrap();
        let stats = t.epoch(&mut |_| {}).unwrap();
        // Static: the canonical steps beyond the depth are followed without
        // an update. Dynamic: `shift` stays optimal on a chain, so the model
        // learns that instead (counted only where every optimal step is deeper).
        if oracle == OracleKind::Static {
            assert!(stats.beyond_depth > 0, "{stats:?}");
        }
        let model = t.model();
        let mut parser = Parser::new(&model);
        parser.parse(&data[0].tokens);
        assert!(DepTree::from_heads(&parser.heads).is_ok());
    }
    // The model never offers a step deeper than its classes.
    assert!(classes(System::LrSpine).iter().all(|s| s.spine().is_none_or(|(_, k)| k <= MODEL_SPINE_DEPTH)));
    assert!(classes(System::LrSpine).contains(&Step::RightArcAt(MODEL_SPINE_DEPTH)));
}

#[test]
fn static_computations_rebuild_every_projective_tree() {
    let mut oracle = Oracle::new();
    for system in TRAINED_SYSTEMS {
        for n in 1..=6 {
            for gold in common::projective_trees(n).iter() {
                assert_eq!(static_computation(system, gold, &mut oracle), gold.heads(), "{system} {gold:?}");
            }
        }
    }
}

/// Random trees of up to `max` words, projective or not, as CoNLL-U.
fn random_treebank(count: usize, max: usize, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::new();
    for _ in 0..count {
        let n = rng.gen_range(1..=max);
        let tree = common::random_tree(n, 0.0, &mut rng);
        for (w, head) in tree.heads().iter().enumerate().map(|(i, h)| (i + 1, h)) {
            let tag = ["NOUN", "VERB", "ADJ"][rng.gen_range(0..3)];
            let form = rng.gen_range(0..9);
            text.push_str(&format!("{w}\tw{form}\t_\t{tag}\t_\t_\t{head}\tdep{}\t_\t_\n", w % 3));
        }
        text.push('\n');
    }
    text
}

#[test]
fn exploration_always_has_an_optimal_step() {
    // The model's step is followed everywhere (p = 1 from the first epoch);
    // a configuration without an optimal step would be an error.
    let data = read_gold(random_treebank(60, 9, 3).as_bytes(), "random").unwrap();
    assert!(data.iter().any(|s| !s.tree.is_projective()));
    for system in TRAINED_SYSTEMS {
        let runs: &[(Projectivize, Algorithm)] = match system {
            // Goldberg's table: projective gold trees only.
            System::LrSpine => &[(Projectivize::Optimal, Algorithm::Auto), (Projectivize::Lift, Algorithm::Goldberg)],
            System::Attardi | System::ArcEagerNm => {
                &[(Projectivize::Optimal, Algorithm::Tabular), (Projectivize::None, Algorithm::Auto)]
            }
            _ => &[(Projectivize::Optimal, Algorithm::Linear), (Projectivize::None, Algorithm::Auto)],
        };
        for &(projectivize, algorithm) in runs {
            let options = small(TrainOptions {
                algorithm,
                projectivize,
                explore_from: 0,
                explore_p: 1.0,
                ..options_for(system, OracleKind::Dynamic)
            });
            let mut trainer = Trainer::new(options, data.clone(), "random").unwrap();
            for _ in 0..3 {
                let stats = trainer.epoch(&mut |_| {}).unwrap();
                assert!(stats.explored > 0);
                assert_eq!(stats.abandoned, 0, "{system}: no sentence beyond the default max_gamma");
            }
        }
    }
}

/// Attardi with `Projectivize::None`: a non-projective tree its
/// computations cannot build is left out and counted (as the oracle says,
/// checked here on its own), and so is a tree beyond a small `max_gamma`
/// or `max_pairs`;
/// the static regime takes the others.
#[test]
fn attardi_leaves_out_and_counts_trees_outside_its_class() {
    let data = read_gold(random_treebank(80, 9, 3).as_bytes(), "random").unwrap();
    let mut oracle = Oracle::new();
    let outside = data
        .iter()
        .filter(|s| {
            let initial = Configuration::initial(System::Attardi, s.tree.len());
            let best = oracle.scores(&initial, &s.tree, Strategy::None, Algorithm::Tabular).unwrap().best();
            best != Some(s.tree.len() as u32)
        })
        .count();
    assert!(outside > 0, "the sample has trees outside Attardi's class");
    for oracle in [OracleKind::Static, OracleKind::Dynamic] {
        let options = small(TrainOptions { projectivize: Projectivize::None, ..options_for(System::Attardi, oracle) });
        let mut t = Trainer::new(options.clone(), data.clone(), "random").unwrap();
        let p = t.prepared().clone();
        assert_eq!((p.outside_class, p.too_large), (outside, 0), "{oracle:?}");
        assert_eq!(p.sentences + p.outside_class, data.len());
        let stats = t.epoch(&mut |_| {}).unwrap();
        assert_eq!(stats.sentences as usize, p.sentences);
        // A tiny limit: trees refused at the start are counted, later refusals abandon the sentence.
        let tiny = TrainOptions { max_gamma: 4, explore_from: 0, explore_p: 1.0, ..options.clone() };
        let mut t = Trainer::new(tiny, data.clone(), "random").unwrap();
        let stats = t.epoch(&mut |_| {}).unwrap();
        assert!(t.prepared().too_large + stats.abandoned as usize > 0, "{oracle:?}: {:?} {stats:?}", t.prepared());
        // A tiny budget of pairs likewise.
        let budget = TrainOptions { max_pairs: Some(20), explore_from: 0, explore_p: 1.0, ..options };
        let mut t = Trainer::new(budget, data.clone(), "random").unwrap();
        let stats = t.epoch(&mut |_| {}).unwrap();
        let p = t.prepared();
        assert!(p.over_budget + stats.abandoned as usize > 0, "{oracle:?}: {p:?} {stats:?}");
        assert_eq!(p.sentences + p.outside_class + p.over_budget, data.len());
    }
}

/// LR-spine and Attardi models: files round-trip (the LR-spine header
/// records its spine depth, and another depth or a missing line is refused
/// by name, never misread), every truncation is an error, and the parser
/// builds a tree for every length.
#[test]
fn lr_spine_and_attardi_model_files_round_trip_and_parse_every_length() {
    let gold = read_gold(synthetic(20, 5).as_bytes(), "syn").unwrap();
    let random = read_gold(random_treebank(30, 40, 9).as_bytes(), "r").unwrap();
    for system in [System::LrSpine, System::Attardi] {
        let options = TrainOptions { step_bits: 8, label_bits: 6, ..options_for(system, OracleKind::Dynamic) };
        let mut t = Trainer::new(options, gold.clone(), "syn").unwrap();
        t.epoch(&mut |_| {}).unwrap();
        let model = t.model();
        assert_eq!(model.steps().width(), classes(system).len());
        let bytes = model.to_bytes();
        assert_eq!(Model::from_bytes(&bytes).unwrap(), model, "{system}");
        for len in 0..bytes.len() {
            assert!(Model::from_bytes(&bytes[..len]).is_err(), "{system}: prefix of {len} bytes accepted");
        }
        assert!(matches!(Model::from_bytes(&bytes[..bytes.len() - 5]), Err(ParserError::ModelSize { .. })));
        let header = String::from_utf8_lossy(&bytes[..100]).into_owned();
        let depth_line = format!("spine-depth {MODEL_SPINE_DEPTH}\n");
        assert_eq!(header.contains(&depth_line), system == System::LrSpine, "{header}");
        if system == System::LrSpine {
            let at = bytes.windows(depth_line.len()).position(|w| w == depth_line.as_bytes()).unwrap();
            let mut other = bytes[..at].to_vec();
            other.extend_from_slice(b"spine-depth 3\n");
            other.extend_from_slice(&bytes[at + depth_line.len()..]);
            let e = Model::from_bytes(&other).unwrap_err();
            assert!(matches!(e, ParserError::ModelSpineDepth { .. }), "{e}");
            let mut missing = bytes[..at].to_vec();
            missing.extend_from_slice(&bytes[at + depth_line.len()..]);
            let e = Model::from_bytes(&missing).unwrap_err();
            assert!(matches!(e, ParserError::ModelCorrupt(_)), "{e}");
        }
        let mut parser = Parser::new(&model);
        for s in &random {
            parser.parse(&s.tokens);
            assert!(DepTree::from_heads(&parser.heads).is_ok(), "{system}");
            assert_eq!(parser.labels.len(), s.tree.len());
        }
    }
}

#[test]
fn training_is_reproducible_and_seeded() {
    let data = read_gold(synthetic(40, 2).as_bytes(), "syn").unwrap();
    let run = |seed| {
        let options = small(TrainOptions { seed, explore_from: 0, explore_p: 0.5, ..TrainOptions::default() });
        let mut t = Trainer::new(options, data.clone(), "syn").unwrap();
        t.epoch(&mut |_| {}).unwrap();
        t.epoch(&mut |_| {}).unwrap();
        t.model().to_bytes()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

#[test]
fn static_regime_refuses_non_projective_trees_it_cannot_use() {
    let data = read_gold(random_treebank(30, 8, 4).as_bytes(), "random").unwrap();
    let options =
        small(TrainOptions { oracle: OracleKind::Static, projectivize: Projectivize::None, ..TrainOptions::default() });
    let e = Trainer::new(options, data.clone(), "random").err().expect("an error");
    assert!(matches!(e, ParserError::NeedsProjective { .. }), "{e}");
    let options = small(TrainOptions {
        oracle: OracleKind::Static,
        projectivize: Projectivize::None,
        skip_nonprojective: true,
        ..TrainOptions::default()
    });
    let t = Trainer::new(options, data, "random").unwrap();
    assert!(t.prepared().skipped > 0);
}

fn trained_model() -> Model {
    let gold = read_gold(synthetic(20, 5).as_bytes(), "syn").unwrap();
    let mut t = Trainer::new(small(TrainOptions::default()), gold, "syn").unwrap();
    t.epoch(&mut |_| {}).unwrap();
    t.model()
}

#[test]
fn model_files_round_trip_and_bad_ones_are_errors() {
    let model = TrainOptions { step_bits: 8, label_bits: 6, ..TrainOptions::default() };
    let gold = read_gold(synthetic(10, 6).as_bytes(), "syn").unwrap();
    let mut t = Trainer::new(model, gold, "syn").unwrap();
    t.epoch(&mut |_| {}).unwrap();
    let model = t.model();
    let bytes = model.to_bytes();
    assert_eq!(Model::from_bytes(&bytes).unwrap(), model);
    // Every truncation is an error, never a panic.
    for len in 0..bytes.len() {
        assert!(Model::from_bytes(&bytes[..len]).is_err(), "prefix of {len} bytes accepted");
    }
    assert!(matches!(Model::from_bytes(&bytes[..bytes.len() - 3]), Err(ParserError::ModelSize { .. })));
    let mut flipped = bytes.clone();
    let last = flipped.len() - 20;
    flipped[last] ^= 1;
    assert!(matches!(Model::from_bytes(&flipped), Err(ParserError::ModelCorrupt(_))));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Model::from_bytes(&longer), Err(ParserError::ModelSize { .. })));
    assert!(matches!(Model::from_bytes(b"1\tHi\t_\n"), Err(ParserError::ModelForeign { .. })));
    // A header announcing huge tables is checked against the file size before any allocation.
    for weights in ["weights 1 1\n", ""] {
        let version = if weights.is_empty() { 2 } else { MODEL_VERSION };
        let huge = format!(
            "TABULA-PARSER-MODEL\nversion {version}\nsystem arc-eager\nfeatures {FEATURE_SET}\nstep-bits 30\nlabel-bits 30\n{weights}labels 1\nx\nend\n0000"
        );
        assert!(matches!(Model::from_bytes(huge.as_bytes()), Err(ParserError::ModelSize { .. })));
    }
    let text = String::from_utf8_lossy(&bytes[..60]).replace(&format!("version {MODEL_VERSION}"), "version 9");
    let mut other = text.into_bytes();
    other.extend_from_slice(&bytes[60..]);
    assert!(matches!(Model::from_bytes(&other), Err(ParserError::ModelVersion { .. })));
    let features = String::from_utf8_lossy(&bytes[..80]).replace(FEATURE_SET, "zn2011-v0");
    let mut other = features.into_bytes();
    other.extend_from_slice(&bytes[80..]);
    assert!(matches!(Model::from_bytes(&other), Err(ParserError::ModelFeatures { .. })));
}

const GOLD: &str = "# sent_id = a\n1\tThe\t_\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\t_\tNOUN\t_\t_\t3\tnsubj\t_\t_\n3\tbarks\t_\tVERB\t_\t_\t0\troot\t_\t_\n4\t.\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n1\tGo\t_\tVERB\t_\t_\t0\troot\t_\t_\n2\thome\t_\tADV\t_\t_\t1\tadvmod\t_\t_\n\n";
// Word by word: The (head ok, det ok), dog (head 1 wrong), barks (ok,
// root), . (head ok, label wrong); Go (ok), home (head ok, obl:tmod vs
// advmod: universal obl ≠ advmod → wrong label).
const PRED: &str = "# sent_id = a\n1\tThe\t_\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\t_\tNOUN\t_\t_\t1\tnsubj\t_\t_\n3\tbarks\t_\tVERB\t_\t_\t0\troot\t_\t_\n4\t.\t_\tPUNCT\t_\t_\t3\tdet\t_\t_\n\n1\tGo\t_\tVERB\t_\t_\t0\troot:x\t_\t_\n2\thome\t_\tADV\t_\t_\t1\tobl:tmod\t_\t_\n\n";

#[test]
fn eval_agrees_with_a_hand_computed_case() {
    let e = evaluate(GOLD.as_bytes(), "gold", PRED.as_bytes(), "pred").unwrap();
    assert_eq!(e.sentences, 2);
    // 6 words: heads right for 5 (all but dog); labels right among those: The, barks, Go (root:x → root).
    assert_eq!((e.all.words, e.all.heads, e.all.labelled), (6, 5, 3));
    // Without the PUNCT word: 5 words, 4 heads, 3 labelled.
    assert_eq!((e.no_punct.words, e.no_punct.heads, e.no_punct.labelled), (5, 4, 3));
    assert_eq!(e.by_length[0].sentences, 2);
    assert!((e.all.uas() - 500.0 / 6.0).abs() < 1e-9);
    assert!((e.all.las() - 50.0).abs() < 1e-9);
}

#[test]
fn eval_refuses_misaligned_files_naming_the_line() {
    let fewer = PRED.replace("4\t.\t_\tPUNCT\t_\t_\t3\tdet\t_\t_\n", "");
    let e = evaluate(GOLD.as_bytes(), "gold", fewer.as_bytes(), "pred").unwrap_err().to_string();
    assert!(e.contains("gold:1") && e.contains("pred:1") && e.contains("4 words"), "{e}");
    let other = PRED.replace("home", "away");
    let e = evaluate(GOLD.as_bytes(), "gold", other.as_bytes(), "pred").unwrap_err().to_string();
    assert!(e.contains("gold:8") && e.contains("pred:8") && e.contains("`home`"), "{e}");
    let shorter = PRED.split("\n\n").next().unwrap().to_owned() + "\n\n";
    let e = evaluate(GOLD.as_bytes(), "gold", shorter.as_bytes(), "pred").unwrap_err().to_string();
    assert!(e.contains("fewer sentences") && e.contains("gold:7"), "{e}");
}

#[test]
fn the_parser_handles_every_length() {
    let model = trained_model();
    let mut parser = Parser::new(&model);
    let data: Vec<GoldSentence> = read_gold(random_treebank(30, 40, 9).as_bytes(), "r").unwrap();
    for s in &data {
        parser.parse(&s.tokens);
        assert!(DepTree::from_heads(&parser.heads).is_ok());
        assert_eq!(parser.labels.len(), s.tree.len());
    }
}

// --- The commands end to end.

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("parser").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn train_parse_eval_round_trip_every_other_column() {
    let dir = scratch("round_trip");
    let train = dir.join("train.conllu");
    fs::write(&train, synthetic(60, 11)).unwrap();
    let model = dir.join("m.model");
    let out = tabula(&[
        "train",
        s(&train),
        "-o",
        s(&model),
        "--dev",
        s(&train),
        "--epochs",
        "3",
        "--step-bits",
        "12",
        "--label-bits",
        "10",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("epoch 3/3") && log.contains("dev UAS"), "{log}");
    // Input with comments, a multiword token, an empty node, CRLF lines, HEAD `_`.
    let input = "# text = the dog's noun3\r\n1\tthe0\tx\tDET\tDT\tA=B\t_\t_\t_\tSpaceAfter=No\r\n2-3\tdog's\t_\t_\t_\t_\t_\t_\t_\t_\r\n2\tnoun1\tdog\tNOUN\tNN\t_\t_\t_\t_\t_\r\n3\tverb2\t's\tVERB\tVBZ\t_\t_\t_\t_\t_\r\n3.1\tgap\t_\t_\t_\t_\t_\t_\t2:x\t_\r\n4\tnoun3\t_\tNOUN\t_\t_\t_\t_\t_\t_\r\n5\t.\t_\tPUNCT\t_\t_\t_\t_\t_\t_\r\n\r\n\n";
    let inp = dir.join("in.conllu");
    fs::write(&inp, input).unwrap();
    let parsed1 = dir.join("p1.conllu");
    let out = tabula(&["parse", "--model", s(&model), s(&inp), "-o", s(&parsed1)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = fs::read_to_string(&parsed1).unwrap();
    let (a, b): (Vec<&str>, Vec<&str>) = (input.split('\n').collect(), got.split('\n').collect());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        let (fx, fy): (Vec<&str>, Vec<&str>) = (x.split('\t').collect(), y.split('\t').collect());
        let word = fx.len() == 10 && fx[0].bytes().all(|c| c.is_ascii_digit());
        if word {
            assert_eq!((&fx[..6], &fx[8..]), (&fy[..6], &fy[8..]), "{x} / {y}");
            assert!(fy[6].parse::<usize>().is_ok() && !fy[7].is_empty() && fy[7] != "_", "{y}");
        } else {
            assert_eq!(x, y);
        }
    }
    // Any thread count gives the same bytes.
    let many = dir.join("many.conllu");
    let text: String = synthetic(300, 12).replace("\t0\troot", "\t_\t_");
    fs::write(&many, &text).unwrap();
    let outs: Vec<Vec<u8>> = ["1", "3"]
        .iter()
        .map(|t| {
            let o = tabula(&["parse", "--model", s(&model), s(&many), "--threads", t]);
            assert!(o.status.success());
            o.stdout
        })
        .collect();
    assert_eq!(outs[0], outs[1]);
    // eval of the parse against the gold text.
    let gold = dir.join("gold.conllu");
    fs::write(&gold, synthetic(300, 12)).unwrap();
    let pred = dir.join("pred.conllu");
    fs::write(&pred, &outs[0]).unwrap();
    let o = tabula(&["eval", s(&gold), s(&pred), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(j["all"]["uas"].as_f64().unwrap() > 80.0, "{j}");
    assert_eq!(j["sentences"], 300);
}

/// `tabula parse --constraints` keeps the HEAD and DEPREL the input has
/// (here: the gold ones of every third word, with the labels of half of
/// them), parses the rest, and refuses a DEPREL the model lacks and a
/// model of a system without a partial-tree oracle.
#[test]
fn parse_with_constraints_keeps_the_arcs_given() {
    let dir = scratch("constraints");
    let (train, model) = (dir.join("train.conllu"), dir.join("m.model"));
    fs::write(&train, synthetic(40, 21)).unwrap();
    let bits = ["--epochs", "1", "--step-bits", "10", "--label-bits", "8"];
    let o = tabula(&[&["train", s(&train), "-o", s(&model)][..], &bits].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Constraints that no parser would guess: every third word attached to
    // the word before it (or the root), labelled `det` on every other one.
    let text = synthetic(30, 22);
    let mut want = Vec::new();
    let input: String = text
        .lines()
        .map(|line| {
            let mut f: Vec<String> = line.split('\t').map(str::to_owned).collect();
            if f.len() == 10 {
                let id: usize = f[0].parse().unwrap();
                if id.is_multiple_of(3) {
                    f[6] = (id - 1).to_string();
                    f[7] = if id.is_multiple_of(2) { "det".into() } else { "_".into() };
                    want.push((id, f[6].clone(), f[7].clone()));
                } else {
                    f[6] = "_".into();
                    f[7] = "_".into();
                }
            }
            f.join("\t") + "\n"
        })
        .collect();
    let inp = dir.join("in.conllu");
    fs::write(&inp, &input).unwrap();
    for beam in ["1", "4"] {
        let o = tabula(&["parse", "--model", s(&model), s(&inp), "--constraints", "--beam", beam]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: Vec<(usize, String, String)> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|f| f.len() == 10 && f[0].parse::<usize>().is_ok_and(|id| id.is_multiple_of(3)))
            .map(|f| (f[0].parse().unwrap(), f[6].to_owned(), f[7].to_owned()))
            .collect();
        assert_eq!(got.len(), want.len());
        // A chain of arcs to the previous word is projective: all kept.
        for ((id, head, label), (_, want_head, want_label)) in got.iter().zip(&want) {
            assert_eq!(head, want_head, "word {id}, beam {beam}");
            if want_label != "_" {
                assert_eq!(label, want_label, "word {id}, beam {beam}");
            }
        }
    }
    // Directions only: every third word's head somewhere before it (all
    // can hold together, so all do), whichever word it is.
    for beam in ["1", "4"] {
        let o = tabula(&[
            "parse",
            "--model",
            s(&model),
            s(&inp),
            "--constraints",
            "--constraint-kind",
            "direction",
            "--beam",
            beam,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        let mut checked = 0;
        for f in out.lines().map(|l| l.split('\t').collect::<Vec<_>>()).filter(|f| f.len() == 10) {
            let (id, head): (usize, usize) = (f[0].parse().unwrap(), f[6].parse().unwrap());
            if id.is_multiple_of(3) {
                assert!(head >= 1 && head < id, "word {id}: head {head}, beam {beam}");
                checked += 1;
            }
        }
        assert_eq!(checked, want.len());
    }
    let selfish = dir.join("self.conllu");
    fs::write(&selfish, "1\tx\t_\tNOUN\t_\t_\t1\t_\t_\t_\n\n").unwrap();
    let o = tabula(&["parse", "--model", s(&model), s(&selfish), "--constraints", "--constraint-kind", "direction"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("self.conllu:1: HEAD `1`: a direction constraint is a HEAD in 0..=1 other than the word"),
        "{err}"
    );
    let o = tabula(&["parse", "--model", s(&model), s(&inp), "--constraint-kind", "direction"]);
    assert_eq!(o.status.code(), Some(2), "--constraint-kind needs --constraints");
    let bad = dir.join("bad.conllu");
    fs::write(&bad, "1\tx\t_\tNOUN\t_\t_\t0\tnolabel\t_\t_\n\n").unwrap();
    let o = tabula(&["parse", "--model", s(&model), s(&bad), "--constraints"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.conllu:1: DEPREL `nolabel` is not a label of the model"), "{err}");
    let attardi = dir.join("a.model");
    let o = tabula(&[&["train", s(&train), "-o", s(&attardi), "--system", "attardi"][..], &bits].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tabula(&["parse", "--model", s(&attardi), s(&inp), "--constraints"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--constraints needs a model of arc-standard, arc-hybrid or arc-eager"), "{err}");
}

/// `tabula eval --breakdown`: every breakdown counts every word once, the
/// JSON and text carry MLAS and BLEX; --train adds the frequency table and
/// needs --breakdown.
#[test]
fn eval_breaks_the_scores_down() {
    let dir = scratch("breakdown");
    let gold = dir.join("gold.conllu");
    fs::write(&gold, synthetic(50, 31)).unwrap();
    let pred = dir.join("pred.conllu");
    // Every NOUN attached to the root: wrong for most of them.
    let text: String = synthetic(50, 31)
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split('\t').collect();
            if f.len() == 10 && f[3] == "NOUN" {
                f[6] = "0";
            }
            f.join("\t") + "\n"
        })
        .collect();
    fs::write(&pred, text).unwrap();
    let o = tabula(&["eval", s(&gold), s(&pred), "--breakdown", "--json", "--train", s(&gold)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let words = j["all"]["words"].as_u64().unwrap();
    let b = &j["breakdown"];
    for table in ["upos", "deprel", "length", "direction", "depth", "position", "frequency"] {
        let rows = b[table].as_array().unwrap_or_else(|| panic!("{table}: {b}"));
        assert_eq!(rows.iter().map(|r| r["words"].as_u64().unwrap()).sum::<u64>(), words, "{table}");
    }
    let noun = b["upos"].as_array().unwrap().iter().find(|r| r["group"] == "NOUN").unwrap();
    let verb = b["upos"].as_array().unwrap().iter().find(|r| r["group"] == "VERB").unwrap();
    assert!(noun["uas"].as_f64().unwrap() < 50.0 && verb["uas"] == 100.0, "{noun} {verb}");
    assert!(b["mlas"]["f1"].as_f64().unwrap() < b["blex"]["f1"].as_f64().unwrap() + 1e-9);
    let bins = ["unseen", "1", "2-5", "6-20", "21-100", "101+"];
    let groups: Vec<&str> = b["frequency"].as_array().unwrap().iter().map(|r| r["group"].as_str().unwrap()).collect();
    assert!(groups.windows(2).all(|w| bins.iter().position(|&x| x == w[0]) < bins.iter().position(|&x| x == w[1])));
    assert!(groups.iter().all(|g| bins.contains(g)) && !groups.contains(&"unseen"), "{groups:?}");
    let o = tabula(&["eval", s(&gold), s(&pred), "--breakdown"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("MLAS") && text.contains("by deprel") && !text.contains("by frequency"), "{text}");
    let o = tabula(&["eval", s(&gold), s(&pred), "--train", s(&gold)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("add --breakdown"));
}

#[test]
fn bad_models_and_misaligned_files_are_errors() {
    let dir = scratch("bad");
    let inp = dir.join("in.conllu");
    fs::write(&inp, GOLD).unwrap();
    let foreign = dir.join("foreign.model");
    fs::write(&foreign, GOLD).unwrap();
    let o = tabula(&["parse", "--model", s(&foreign), s(&inp)]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("foreign.model") && e.contains("not a tabula parser model"), "{e}");
    let model = trained_model().to_bytes();
    let truncated = dir.join("truncated.model");
    fs::write(&truncated, &model[..model.len() / 2]).unwrap();
    let o = tabula(&["parse", "--model", s(&truncated), s(&inp)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated") && !o.status.success());
    let pred = dir.join("pred.conllu");
    fs::write(&pred, PRED.replace("barks", "bark")).unwrap();
    let o = tabula(&["eval", s(&inp), s(&pred)]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("in.conllu:4") && e.contains("pred.conllu:4"), "{e}");
}

#[test]
fn a_second_pass_continues_from_a_model() {
    let gold = read_gold(synthetic(60, 13).as_bytes(), "syn").unwrap();
    let first = small(TrainOptions { oracle: OracleKind::Static, ..TrainOptions::default() });
    let mut t = Trainer::new(first.clone(), gold.clone(), "syn").unwrap();
    t.epoch(&mut |_| {}).unwrap();
    let model = t.model();
    let before = attachment(&model, &gold).unwrap();
    let second = TrainOptions { oracle: OracleKind::Dynamic, explore_from: 0, ..first.clone() };
    let mut t = Trainer::from_model(second.clone(), gold.clone(), "syn", model.clone()).unwrap();
    // Before any update the model is unchanged.
    assert_eq!(t.model(), model);
    for _ in 0..4 {
        t.epoch(&mut |_| {}).unwrap();
    }
    assert!(attachment(&t.model(), &gold).unwrap().heads >= before.heads);
    let other = TrainOptions { system: System::ArcEager, ..second.clone() };
    assert!(matches!(
        Trainer::from_model(other, gold.clone(), "syn", model.clone()),
        Err(ParserError::InitMismatch(_))
    ));
    let with_feats = TrainOptions { columns: FeatureColumns { feats: true, ..FeatureColumns::NONE }, ..second.clone() };
    assert!(matches!(
        Trainer::from_model(with_feats, gold.clone(), "syn", model.clone()),
        Err(ParserError::InitMismatch(_))
    ));
    let unknown = read_gold(GOLD.as_bytes(), "g").unwrap();
    assert!(matches!(Trainer::from_model(second, unknown, "g", model), Err(ParserError::InitMismatch(_))));
}

/// `--feats`, `--lemma`, `--xpos`: each column adds features; the model
/// file says so (its feature set), reads back with the columns, and parses
/// with the same features; a column that is `_` everywhere is refused.
#[test]
fn models_with_more_columns_name_their_feature_set_and_round_trip() {
    let text = synthetic(40, 21);
    // Give every word a FEATS, LEMMA and XPOS value that depends on its UPOS
    // and FORM.
    let with_columns = |blank: Option<usize>| -> String {
        text.lines()
            .map(|l| {
                let mut f: Vec<String> = l.split('\t').map(str::to_owned).collect();
                if f.len() == 10 {
                    f[2] = format!("{}-l", f[1].to_lowercase());
                    f[4] = format!("X{}", f[3]);
                    f[5] = format!("Tag={}", f[3]);
                    if let Some(b) = blank {
                        f[b] = "_".to_owned();
                    }
                }
                f.join("\t") + "\n"
            })
            .collect()
    };
    let gold = read_gold(with_columns(None).as_bytes(), "syn").unwrap();
    let mut plain_tables = None;
    for bits in 0..8 {
        let columns = FeatureColumns { feats: bits & 1 != 0, lemma: bits & 2 != 0, xpos: bits & 4 != 0 };
        let options = small(TrainOptions { columns, ..TrainOptions::default() });
        let mut t = Trainer::new(options.clone(), gold.clone(), "syn").unwrap();
        for _ in 0..3 {
            t.epoch(&mut |_| {}).unwrap();
        }
        let model = t.model();
        assert_eq!(model.columns, columns);
        let bytes = model.to_bytes();
        let name = columns.feature_set();
        assert!(String::from_utf8_lossy(&bytes[..120]).contains(&format!("features {name}\n")), "{name}");
        assert_eq!(FeatureColumns::from_feature_set(&name), Some(columns));
        let back = Model::from_bytes(&bytes).unwrap();
        assert_eq!(back, model);
        assert_eq!(attachment(&back, &gold).unwrap(), attachment(&model, &gold).unwrap());
        // The extra templates change what is learnt.
        match &plain_tables {
            None => plain_tables = Some(model.steps().clone()),
            Some(plain) => assert_ne!(model.steps(), plain, "{name}"),
        }
        // A column asked for but blank on every word is an error naming it.
        for (b, column) in [(5, "FEATS"), (2, "LEMMA"), (4, "XPOS")] {
            let blank = read_gold(with_columns(Some(b)).as_bytes(), "blank").unwrap();
            let refused = column == "FEATS" && columns.feats
                || column == "LEMMA" && columns.lemma
                || column == "XPOS" && columns.xpos;
            match Trainer::new(options.clone(), blank, "blank") {
                Err(ParserError::BlankColumn { file, column: c }) => {
                    assert!(refused && file == "blank" && c == column, "{name}: {c}")
                }
                Err(e) => panic!("{name}: {e}"),
                Ok(_) => assert!(!refused, "{name}: a blank {column} was accepted"),
            }
        }
    }
    assert_eq!(
        FeatureColumns::from_feature_set(FEATURE_SET_FEATS),
        Some(FeatureColumns { feats: true, ..FeatureColumns::NONE })
    );
    for wrong in ["zn2011-v3+xpos+feats", "zn2011-v3+feats+feats", "zn2011-v3+upos", "zn2011-v2", "zn2011-v3+"] {
        assert_eq!(FeatureColumns::from_feature_set(wrong), None, "{wrong}");
    }
}

/// Model files never replace a device or a symbolic link (issue 10's rule
/// for every output): `tabula train -o` writes through the CLI's shared
/// output code, like every other command.
#[test]
fn model_files_keep_devices_and_follow_symbolic_links() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("model_output");
    let train = dir.join("train.conllu");
    fs::write(&train, synthetic(20, 5)).unwrap();
    let target = dir.join("m.model");
    let link = dir.join("link.model");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let args = |out: &Path| {
        tabula(&["train", s(&train), "-o", s(out), "--epochs", "1", "--step-bits", "8", "--label-bits", "6"])
    };
    for _ in 0..2 {
        let out = args(&link);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
        assert!(Model::load(&target).is_ok(), "the target holds the model");
    }
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 3, "no temporary file left");
    let null = Path::new("/dev/null");
    if fs::metadata(null).is_ok_and(|m| m.file_type().is_char_device()) {
        let out = args(null);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(fs::metadata(null).unwrap().file_type().is_char_device(), "/dev/null stays a device");
    }
    // An unwritable output is reported before the training starts.
    let out = args(&dir.join("missing").join("m.model"));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist") && !err.contains("epoch"), "{err}");
}

/// The parser's choice is the best *labelled* step: its step weight plus
/// the weight of its label, maximised over every applicable (step, label)
/// pair — checked against the enumeration of all pairs, with random weights
/// and features, for every system and random sets of allowed steps.
#[test]
fn labelled_scores_pick_the_best_step_and_label_pair() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for system in System::ALL {
        let steps = classes(system);
        let blocks = tabula::parser::model::arc_steps(system).count();
        for labels in [1usize, 2, 5] {
            let random = |rng: &mut ChaCha8Rng, len: usize| (0..len).map(|_| rng.gen_range(-4..=4) as f32).collect();
            let step_table = Weights::from_vec(3, steps.len(), random(&mut rng, 8 * steps.len())).unwrap();
            let label_table = Weights::from_vec(3, blocks * labels, random(&mut rng, 8 * blocks * labels)).unwrap();
            let mut scores = LabelledScores::new(system, labels);
            for _ in 0..50 {
                let features: Vec<u64> = (0..rng.gen_range(0..6)).map(|_| rng.gen()).collect();
                let allowed: Vec<bool> = (0..steps.len()).map(|_| rng.gen_bool(0.7)).collect();
                scores.fill(&step_table, &label_table, &features, |i| allowed[i]);
                // One class's weight over the features, read class by class.
                let weight = |table: &Weights, class: usize| {
                    let mut w = [0.0f32];
                    table.add_scores(&features, class, &mut w);
                    w[0]
                };
                let mut pairs = Vec::new();
                for i in (0..steps.len()).filter(|&i| allowed[i]) {
                    match arc_class(system, steps[i]) {
                        None => pairs.push((weight(&step_table, i), i, None)),
                        Some(b) => pairs.extend((0..labels).map(|l| {
                            (weight(&step_table, i) + weight(&label_table, b * labels + l), i, Some(l as u32))
                        })),
                    }
                }
                let top = pairs.iter().map(|p| p.0).fold(f32::NEG_INFINITY, f32::max);
                let best = scores.best(|i| allowed[i]);
                match best {
                    None => assert!(pairs.is_empty(), "{system}"),
                    Some((i, l)) => {
                        let found = pairs.iter().find(|p| (p.1, p.2) == (i, l)).expect("an allowed pair");
                        assert_eq!(found.0, top, "{system}: {i} {l:?} among {pairs:?}");
                    }
                }
            }
        }
    }
}
