//! Preferring among optimal projectivizations (`--prefer`), against brute
//! force over all projective trees (n ≤ 7): the chosen tree keeps the most
//! gold arcs and, among the trees that do, has the highest secondary score,
//! computed here by a naive reading of the rule table (not the library's
//! weight matrix); the backtrace reaches the engine's (gold, secondary) pair.
//! With `--objective valid-first`: the fewest arcs under function words that
//! may not take them (a naive reading of UD's rule), then the most gold
//! arcs, then the highest secondary score.

mod common;

use common::random_tree;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use tabula::engine::Parser;
use tabula::grammar::{text, Grammar};
use tabula::projectivize::{Objective, OptimalProjectivizer, PreferringProjectivizer, TreeClass, Weights, WordLabels};
use tabula::semiring::{Count, Lexicographic, MaxCount, MaxPlus};
use tabula::tree::DepTree;

fn grammar(src: &str) -> Grammar {
    text::parse_str("test.grammar", src).unwrap().grammar
}

const DEPRELS: [&str; 11] =
    ["root", "nsubj", "obj", "punct", "cc", "conj", "aux:pass", "det", "flat:name", "advmod", "fixed"];
const UPOS: [&str; 4] = ["NOUN", "VERB", "PUNCT", "ADP"];

/// A rule of the weights file, kept for the naive reference.
#[derive(Clone, Debug)]
enum Rule {
    Ancestor(Option<usize>, i64),
    HeadDeprel(&'static str, i64),
    HeadUpos(&'static str, i64),
    DepDeprel(&'static str, i64),
    DepUpos(&'static str, i64),
    HeadAfter(&'static str, i64),
    Leaf(i64),
    Root(i64),
    SameSide(i64),
}

impl Rule {
    fn line(&self) -> String {
        match self {
            Rule::Ancestor(Some(k), w) => format!("ancestor {k} {w}"),
            Rule::Ancestor(None, w) => format!("ancestor * {w}"),
            Rule::HeadDeprel(r, w) => format!("head-deprel {r} {w}"),
            Rule::HeadUpos(u, w) => format!("head-upos {u} {w}"),
            Rule::DepDeprel(r, w) => format!("dep-deprel {r} {w}"),
            Rule::DepUpos(u, w) => format!("dep-upos {u} {w}"),
            Rule::HeadAfter(r, w) => format!("head-after {r} {w}"),
            Rule::Leaf(w) => format!("leaf {w}"),
            Rule::Root(w) => format!("root {w}"),
            Rule::SameSide(w) => format!("same-side {w}"),
        }
    }
}

/// A random weights file: each rule kind with probability ½, keys distinct.
/// One file in four has weights up to ±10⁹, too large for the packed
/// max-plus key, so the engine runs in the lexicographic semiring itself.
fn random_rules(seed: u64) -> Vec<Rule> {
    let mut rules = Vec::new();
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let scale = if r.gen_bool(0.25) { 200_000_000 } else { 1 };
    let w = |rng: &mut ChaCha8Rng| rng.gen_range(-5i64..=5) * scale;
    for k in 2..5 {
        if r.gen_bool(0.5) {
            rules.push(Rule::Ancestor(Some(k), w(&mut r)));
        }
    }
    if r.gen_bool(0.5) {
        rules.push(Rule::Ancestor(None, w(&mut r)));
    }
    // Universal parts and full values, to exercise the fallback.
    for rel in ["punct", "cc", "aux", "aux:pass", "flat", "conj"] {
        if r.gen_bool(0.3) {
            rules.push(Rule::HeadDeprel(rel, w(&mut r)));
        }
        if r.gen_bool(0.3) {
            rules.push(Rule::DepDeprel(rel, w(&mut r)));
        }
        if r.gen_bool(0.3) {
            rules.push(Rule::HeadAfter(rel, w(&mut r)));
        }
    }
    for u in UPOS {
        if r.gen_bool(0.3) {
            rules.push(Rule::HeadUpos(u, w(&mut r)));
        }
        if r.gen_bool(0.3) {
            rules.push(Rule::DepUpos(u, w(&mut r)));
        }
    }
    if r.gen_bool(0.5) {
        rules.push(Rule::Leaf(w(&mut r)));
    }
    if r.gen_bool(0.5) {
        rules.push(Rule::Root(w(&mut r)));
    }
    if r.gen_bool(0.5) {
        rules.push(Rule::SameSide(w(&mut r)));
    }
    rules
}

/// Whether a DEPREL matches a rule's REL among the rules of its kind `names`.
fn matches(rel: &str, deprel: &str, names: &[&str]) -> bool {
    deprel == rel || (!names.contains(&deprel) && deprel.split(':').next() == Some(rel))
}

/// Whether UD's rule on function-word modifiers forbids a word with DEPREL
/// `dep` under one with DEPREL `head` (the table of docs/projectivize.md;
/// no FEATS here, so no negation or `Poss=Yes` exceptions).
fn naive_leaf(head: &str, dep: &str) -> bool {
    let (head, dep) = (head.split(':').next().unwrap(), dep.split(':').next().unwrap());
    let allowed: &[&str] = match head {
        "mark" | "case" | "clf" => &["advmod", "obl", "goeswith", "fixed", "reparandum", "conj", "cc", "punct"],
        "aux" | "cop" => &["goeswith", "fixed", "reparandum", "conj", "cc", "punct"],
        "det" => &[
            "det",
            "case",
            "advmod",
            "obl",
            "clf",
            "goeswith",
            "fixed",
            "flat",
            "compound",
            "reparandum",
            "discourse",
            "parataxis",
            "conj",
            "cc",
            "punct",
        ],
        "cc" => &["goeswith", "fixed", "reparandum", "conj", "punct"],
        "fixed" => &["goeswith", "reparandum", "conj", "punct"],
        "goeswith" => &[],
        "punct" => &["punct"],
        _ => return false,
    };
    !allowed.contains(&dep)
}

/// The secondary score of `tree`, read off the rule table naively.
fn naive_secondary(rules: &[Rule], gold: &DepTree, labels: &[(&str, &str)], tree: &DepTree) -> i64 {
    let names = |f: fn(&Rule) -> Option<&'static str>| -> Vec<&'static str> { rules.iter().filter_map(f).collect() };
    let head_rels = names(|r| if let Rule::HeadDeprel(x, _) = r { Some(x) } else { None });
    let dep_rels = names(|r| if let Rule::DepDeprel(x, _) = r { Some(x) } else { None });
    let after_rels = names(|r| if let Rule::HeadAfter(x, _) = r { Some(x) } else { None });
    let mut total = 0;
    for (h, d) in tree.arcs() {
        let g = gold.head(d);
        let (hu, hr) = if h == 0 { ("", "") } else { labels[h - 1] };
        let (du, dr) = labels[d - 1];
        if h == g {
            // Gold arcs: only the rules about the head and the direction.
            for rule in rules {
                total += match *rule {
                    Rule::HeadDeprel(rel, w) if h != 0 && matches(rel, hr, &head_rels) => w,
                    Rule::HeadUpos(u, w) if h != 0 && hu == u => w,
                    Rule::HeadAfter(rel, w) if h > d && matches(rel, dr, &after_rels) => w,
                    Rule::Leaf(w) if h != 0 && naive_leaf(hr, dr) => w,
                    _ => 0,
                };
            }
            continue;
        }
        // Steps from d up to h in the gold tree, if h is an ancestor.
        let mut steps = None;
        let (mut a, mut k) = (d, 0);
        while a != 0 {
            a = gold.head(a);
            k += 1;
            if a == h {
                steps = Some(k);
                break;
            }
        }
        let listed = |k: usize| rules.iter().any(|r| matches!(r, Rule::Ancestor(Some(j), _) if *j == k));
        for rule in rules {
            total += match *rule {
                Rule::Ancestor(Some(j), w) if steps == Some(j) => w,
                Rule::Ancestor(None, w) if steps.is_some_and(|k| !listed(k)) => w,
                Rule::HeadDeprel(rel, w) if h != 0 && matches(rel, hr, &head_rels) => w,
                Rule::HeadUpos(u, w) if h != 0 && hu == u => w,
                Rule::DepDeprel(rel, w) if matches(rel, dr, &dep_rels) => w,
                Rule::DepUpos(u, w) if du == u => w,
                Rule::HeadAfter(rel, w) if h > d && matches(rel, dr, &after_rels) => w,
                Rule::Leaf(w) if h != 0 && naive_leaf(hr, dr) => w,
                Rule::Root(w) if h == 0 => w,
                Rule::SameSide(w) if (h < d) == (g < d) => w,
                _ => 0,
            };
        }
    }
    total
}

/// A random tree (projective or not) with random labels.
fn arb_case(max_n: usize) -> impl Strategy<Value = (DepTree, Vec<(&'static str, &'static str)>, u64)> {
    (1..=max_n, any::<u64>()).prop_map(|(n, seed)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let tree = random_tree(n, 0.1, &mut rng);
        let labels =
            (0..n).map(|_| (UPOS[rng.gen_range(0..UPOS.len())], DEPRELS[rng.gen_range(0..DEPRELS.len())])).collect();
        (tree, labels, rng.gen())
    })
}

/// The default weights as rules, for the naive reference (mirrors
/// `src/projectivize/default.weights`; a test below checks they agree).
fn default_rules() -> Vec<Rule> {
    let mut rules = vec![
        Rule::Ancestor(Some(2), 30),
        Rule::Ancestor(Some(3), 20),
        Rule::Ancestor(Some(4), 10),
        Rule::Ancestor(None, 5),
        Rule::Leaf(-100),
        Rule::Root(-1000),
        Rule::SameSide(1),
    ];
    for rel in ["conj", "flat", "fixed", "goeswith", "appos"] {
        rules.push(Rule::HeadAfter(rel, -50));
    }
    rules
}

fn weights_of(rules: &[Rule]) -> Weights {
    let text: String = rules.iter().map(|r| r.line() + "\n").collect();
    Weights::parse(&text).unwrap()
}

/// Checks the preferring projectivizer on one case against brute force.
fn check(gold: &DepTree, labels: &[(&'static str, &'static str)], rules: &[Rule]) -> Result<(), TestCaseError> {
    let g = grammar(tabula::grammars::PROJECTIVE);
    let trees = common::projective_trees(gold.len());
    let best_gold = trees.iter().map(|t| t.common_arcs(gold)).max().unwrap();
    let best_secondary = trees
        .iter()
        .filter(|t| t.common_arcs(gold) == best_gold)
        .map(|t| naive_secondary(rules, gold, labels, t))
        .max()
        .unwrap();
    let word_labels = WordLabels::from_pairs(labels.iter().copied());
    let mut p = PreferringProjectivizer::new(&g, TreeClass::Projective, weights_of(rules)).unwrap();
    let outs = [
        p.projectivize(gold, &word_labels).unwrap(),
        p.projectivize_with_engine(gold, &word_labels).unwrap(),
        p.projectivize_lexicographic(gold, &word_labels).unwrap(),
    ];
    // The packed max-plus key and the lexicographic semiring pick the same tree.
    prop_assert_eq!(&outs[1], &outs[2]);
    for out in outs {
        prop_assert!(out.tree.is_projective());
        prop_assert_eq!(out.score, best_gold);
        prop_assert_eq!(out.tree.common_arcs(gold), best_gold);
        if gold.is_projective() {
            prop_assert_eq!(&out.tree, gold);
        } else {
            // The backtrace reaches the engine's pair (W's secondary part).
            prop_assert_eq!(out.secondary, best_secondary);
            prop_assert_eq!(naive_secondary(rules, gold, labels, &out.tree), best_secondary);
            prop_assert_eq!(p.secondary_score(gold, &word_labels, &out.tree).unwrap(), best_secondary);
        }
    }
    Ok(())
}

/// The arcs of `tree` under a function word that may not take them.
fn naive_errors(labels: &[(&str, &str)], tree: &DepTree) -> usize {
    tree.arcs().filter(|&(h, d)| h != 0 && naive_leaf(labels[h - 1].1, labels[d - 1].1)).count()
}

/// Checks valid-first on one case against brute force over all projective trees.
fn check_valid_first(
    gold: &DepTree,
    labels: &[(&'static str, &'static str)],
    rules: &[Rule],
) -> Result<(), TestCaseError> {
    let g = grammar(tabula::grammars::PROJECTIVE);
    let trees = common::projective_trees(gold.len());
    // Fewest errors, then most gold arcs, then the best secondary score.
    let key = |t: &DepTree| (-(naive_errors(labels, t) as i64), t.common_arcs(gold));
    let best = trees.iter().map(key).max().unwrap();
    let best_secondary =
        trees.iter().filter(|t| key(t) == best).map(|t| naive_secondary(rules, gold, labels, t)).max().unwrap();
    let word_labels = WordLabels::from_pairs(labels.iter().copied());
    let mut p = PreferringProjectivizer::new(&g, TreeClass::Projective, weights_of(rules))
        .unwrap()
        .with_objective(Objective::ValidFirst);
    let fast = p.projectivize(gold, &word_labels).unwrap();
    if gold.is_projective() {
        // Projective trees are left as they are.
        prop_assert_eq!(&fast.tree, gold);
    } else {
        prop_assert_eq!(&fast, &p.projectivize_with_engine(gold, &word_labels).unwrap());
    }
    let outs = [
        p.projectivize_with_engine(gold, &word_labels).unwrap(),
        p.projectivize_lexicographic(gold, &word_labels).unwrap(),
    ];
    prop_assert_eq!(&outs[0], &outs[1]);
    for out in outs {
        prop_assert!(out.tree.is_projective());
        prop_assert_eq!(key(&out.tree), best);
        prop_assert_eq!(out.score, best.1);
        prop_assert_eq!(out.secondary, best_secondary);
        prop_assert_eq!(naive_secondary(rules, gold, labels, &out.tree), best_secondary);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn valid_first_with_the_default_weights_picks_a_best_tree((gold, labels, _) in arb_case(7)) {
        check_valid_first(&gold, &labels, &default_rules())?;
    }

    #[test]
    fn valid_first_with_random_weights_picks_a_best_tree((gold, labels, seed) in arb_case(7)) {
        check_valid_first(&gold, &labels, &random_rules(seed))?;
    }

    #[test]
    fn default_weights_pick_a_lexicographically_best_tree((gold, labels, _) in arb_case(7)) {
        check(&gold, &labels, &default_rules())?;
    }

    #[test]
    fn random_weights_pick_a_lexicographically_best_tree((gold, labels, seed) in arb_case(7)) {
        let rules = random_rules(seed);
        check(&gold, &labels, &rules)?;
    }

    #[test]
    fn no_preference_is_the_plain_optimal_tie_break((gold, labels, _) in arb_case(7)) {
        let g = grammar(tabula::grammars::PROJECTIVE);
        let mut plain = OptimalProjectivizer::new(&g, TreeClass::Projective).unwrap();
        let mut none = PreferringProjectivizer::new(&g, TreeClass::Projective, Weights::empty()).unwrap();
        let labels = WordLabels::from_pairs(labels.iter().copied());
        let a = plain.projectivize_with_engine(&gold).unwrap();
        let b = none.projectivize_with_engine(&gold, &labels).unwrap();
        prop_assert_eq!((a.tree, a.score), (b.tree, b.score));
        prop_assert_eq!(b.secondary, 0);
    }

    #[test]
    fn lexicographic_counts_match_brute_force((gold, labels, _) in arb_case(6)) {
        // (gold arcs, (secondary, count)): the number of trees optimal in both.
        let g = grammar(tabula::grammars::PROJECTIVE);
        let rules = default_rules();
        let trees = common::projective_trees(gold.len());
        let key = |t: &DepTree| (t.common_arcs(&gold), naive_secondary(&rules, &gold, &labels, t));
        let best = trees.iter().map(key).max().unwrap();
        let count = trees.iter().filter(|t| key(t) == best).count() as u64;
        let mut matrix = Vec::new();
        let word_labels = WordLabels::from_pairs(labels.iter().copied());
        weights_of(&rules).fill(&gold, &word_labels, &mut matrix, &mut Default::default()).unwrap();
        let size = gold.len() + 1;
        let a = g.terminal("a").unwrap();
        let mut parser = Parser::<Lexicographic<MaxPlus<i64>, MaxCount<Count>>>::new(&g);
        let w = parser
            .parse(&vec![a; size], |h, d| {
                Lexicographic::new(MaxPlus::new(i64::from(gold.head(d) == h)), MaxCount::new(matrix[h * size + d]))
            })
            .unwrap();
        prop_assert_eq!(*w.primary(), MaxPlus::new(best.0 as i64));
        prop_assert_eq!(w.secondary().score, MaxPlus::new(best.1));
        prop_assert_eq!(&w.secondary().count, &Count::new(count));
    }
}

#[test]
fn the_default_rules_here_are_the_shipped_defaults() {
    assert_eq!(weights_of(&default_rules()), Weights::default());
}

// ---- The command line on small CoNLL-U files ----

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().unwrap()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prefer").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// "He left , and she stayed ." with the `cc` "and" attached
/// non-projectively (to "stayed" across a crossing arc), so some word must
/// move: without preference it lands under the comma, with the default
/// weights it does not.
const CROSSING: &str = "\
# sent_id = crossing
# text = He left , and she stayed .
1\tHe\the\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tleft\tleave\tVERB\t_\t_\t0\troot\t_\t_
3\t,\t,\tPUNCT\t_\t_\t6\tpunct\t_\t_
4\tand\tand\tCCONJ\t_\t_\t6\tcc\t_\t_
5\tshe\tshe\tPRON\t_\t_\t6\tnsubj\t_\t_
6\tstayed\tstay\tVERB\t_\t_\t2\tconj\t_\t_
7\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

";

fn heads_of(conllu: &str) -> Vec<usize> {
    conllu
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split('\t').nth(6).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn default_preference_keeps_words_off_leaves_on_the_command_line() {
    // Make 5 cross: "she" hangs from "left" (2) while "and" (4) hangs from 6.
    let input = CROSSING.replace("5\tshe\tshe\tPRON\t_\t_\t6\t", "5\tshe\tshe\tPRON\t_\t_\t2\t");
    let input = input.replace("4\tand\tand\tCCONJ\t_\t_\t6\t", "4\tand\tand\tCCONJ\t_\t_\t1\t");
    let dir = scratch("cli");
    let path = dir.join("in.conllu");
    fs::write(&path, &input).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["projectivize", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = tabula(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let gold = heads_of(&input);
    let plain = run(&["--prefer", "none"]);
    let default = run(&[]);
    assert_eq!(run(&["--prefer", "default"]), default);
    let common = |heads: &[usize]| heads.iter().zip(&gold).filter(|(a, b)| a == b).count();
    let (p, d) = (heads_of(&plain), heads_of(&default));
    assert_eq!(common(&p), common(&d), "both optimal");
    // Under the default weights nothing new hangs from a punct or cc word.
    let leaf = |i: usize| matches!(i, 3 | 4 | 7);
    for (k, (&h, &g)) in d.iter().zip(&gold).enumerate() {
        assert!(h == g || !leaf(h), "word {} moved under leaf {h}: {d:?}", k + 1);
    }
    // Everything but HEAD is unchanged.
    let strip = |s: &str| -> Vec<String> {
        s.lines().map(|l| l.split('\t').enumerate().filter(|&(i, _)| i != 6).map(|(_, f)| f).collect()).collect()
    };
    assert_eq!(strip(&default), strip(&input));
    assert_eq!(strip(&plain), strip(&input));
}

#[test]
fn a_weights_file_with_errors_names_the_file_and_every_line() {
    let dir = scratch("errors");
    let input = dir.join("in.conllu");
    fs::write(&input, CROSSING).unwrap();
    let weights = dir.join("w.txt");
    fs::write(&weights, "# mine\nroot -5\nhead-deprel punct\nbogus 1\nroot 3\n").unwrap();
    let o = tabula(&["projectivize", input.to_str().unwrap(), "--prefer", weights.to_str().unwrap()]);
    assert!(!o.status.success());
    let w = weights.display();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "error: {w}:3: `head-deprel` takes 2 field(s) after its name, found 1\n\
             {w}:4: unknown rule `bogus` (expected ancestor, head-deprel, head-upos, dep-deprel, dep-upos, head-after, leaf, root or same-side)\n\
             {w}:5: a rule for `root` was already given on line 2\n"
        )
    );
    // A good file is used; --sample goes with no --prefer at all (`none`
    // would do nothing there: sampling never reads the preferences).
    fs::write(&weights, "head-deprel punct -7 # no words under commas\n").unwrap();
    assert!(tabula(&["projectivize", input.to_str().unwrap(), "--prefer", weights.to_str().unwrap()]).status.success());
    assert!(tabula(&["projectivize", input.to_str().unwrap(), "--sample", "1"]).status.success());
    for prefer in ["none", "default"] {
        let o = tabula(&["projectivize", input.to_str().unwrap(), "--prefer", prefer, "--sample", "1"]);
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("--sample draws among all optimal trees"));
    }
    let o = tabula(&["projectivize", input.to_str().unwrap(), "--method", "lift", "--prefer", "none"]);
    assert!(!o.status.success());
}

#[test]
fn stats_count_words_under_function_words() {
    // Sentence 1 (projective) hangs an advmod from a comma: a violation in the input,
    // kept. Sentence 2: the comma 2 → 4 crosses 1 → 3; `--prefer none` moves the
    // comma under the case word 3 or 4, the default (rule `leaf`) does not.
    let input = "1\tgo\tgo\tVERB\t_\t_\t0\troot\t_\t_\n2\t,\t,\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\
                 3\tnow\tnow\tADV\t_\t_\t2\tadvmod\t_\t_\n\n\
                 1\ta\ta\tVERB\t_\t_\t0\troot\t_\t_\n2\t,\t,\tPUNCT\t_\t_\t4\tpunct\t_\t_\n\
                 3\tb\tb\tADP\t_\t_\t1\tcase\t_\t_\n4\tc\tc\tADP\t_\t_\t1\tcase\t_\t_\n\n";
    let dir = scratch("stats");
    let path = dir.join("in.conllu");
    fs::write(&path, input).unwrap();
    let count = |prefer: &str| {
        let o = tabula(&["projectivize", path.to_str().unwrap(), "--prefer", prefer, "--stats", "-o", "-"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let e = String::from_utf8(o.stderr).unwrap();
        let line = e.lines().find(|l| l.starts_with("words under a function word")).unwrap_or_else(|| panic!("{e}"));
        line.rsplit(": ").next().unwrap().to_owned()
    };
    assert_eq!(count("none"), "input 1, output 2");
    assert_eq!(count("default"), "input 1, output 1");
}

#[test]
fn valid_first_drops_a_gold_arc_under_a_function_word_on_the_command_line() {
    // Non-projective (1 → 5 crosses 6 → 4), and the gold arc 2 → 3 hangs an
    // advmod from a comma. Gold-first keeps it (every gold arc but one is
    // kept); valid-first moves "now" off the comma, one gold arc fewer.
    let input = "1\tgo\tgo\tVERB\t_\t_\t0\troot\t_\t_\n2\t,\t,\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\
                 3\tnow\tnow\tADV\t_\t_\t2\tadvmod\t_\t_\n4\ta\ta\tNOUN\t_\t_\t6\tobj\t_\t_\n\
                 5\tb\tb\tNOUN\t_\t_\t1\tnsubj\t_\t_\n6\tc\tc\tVERB\t_\t_\t1\tconj\t_\t_\n\n";
    let dir = scratch("valid-first");
    let path = dir.join("in.conllu");
    fs::write(&path, input).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["projectivize", path.to_str().unwrap(), "--stats", "-o", "-"];
        args.extend_from_slice(extra);
        let o = tabula(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let e = String::from_utf8(o.stderr).unwrap();
        let line = e.lines().find(|l| l.starts_with("words under a function word")).unwrap_or_else(|| panic!("{e}"));
        (heads_of(&String::from_utf8(o.stdout).unwrap()), line.rsplit(": ").next().unwrap().to_owned())
    };
    let (gold_first, errors) = run(&[]);
    assert_eq!(run(&["--objective", "gold-first"]), (gold_first.clone(), errors.clone()));
    assert_eq!(errors, "input 1, output 1");
    assert_eq!(gold_first[2], 2, "{gold_first:?}");
    let (valid_first, errors) = run(&["--objective", "valid-first"]);
    assert_eq!(errors, "input 1, output 0");
    assert_ne!(valid_first[2], 2, "{valid_first:?}");
    let kept = |heads: &[usize]| heads.iter().zip(heads_of(input)).filter(|&(a, b)| *a == b).count();
    assert_eq!(kept(&valid_first) + 1, kept(&gold_first));
    // A weights file without the leaf rule: valid-first still counts the errors.
    let weights = dir.join("root.weights");
    fs::write(&weights, "root -5\n").unwrap();
    assert_eq!(run(&["--objective", "valid-first", "--prefer", weights.to_str().unwrap()]).1, "input 1, output 0");
    // Where it would do nothing, it is refused.
    for (extra, message) in [
        (&["--method", "lift"][..], "applies to --method optimal only"),
        (&["--prefer", "none"][..], "does nothing with --prefer none"),
        (&["--sample", "1"][..], "applies to the deterministic choice"),
    ] {
        let mut args = vec!["projectivize", path.to_str().unwrap(), "--objective", "valid-first"];
        args.extend_from_slice(extra);
        let o = tabula(&args);
        assert!(!o.status.success(), "{extra:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("--objective valid-first") && e.contains(message), "{extra:?}: {e}");
    }
}
