//! `tabula demo`: the main job on an embedded sample treebank, so a fresh
//! clone shows what tabula does without any data: optimal projectivization
//! against lifting, the number of optimal trees, and optimal steps.

use super::CliError;
use std::io::Write;
use std::process::ExitCode;
use tabula::conllu::Reader;
use tabula::grammar::text;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::output::Output;
use tabula::projectivize::{
    lift, Counter, OptimalProjectivizer, PreferringProjectivizer, TreeClass, Weights, WordLabels,
};

/// A small synthetic treebank written for tabula (not taken from any corpus).
const SAMPLE: &str = include_str!("../../data/sample.conllu");

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    let grammar = text::parse_str("grammars/projective.grammar", tabula::grammars::PROJECTIVE)?.grammar;
    let mut optimal = OptimalProjectivizer::new(&grammar, TreeClass::Projective)?;
    // What `tabula projectivize` does by default: among the optimal trees,
    // the one the built-in weights prefer (`--prefer default`).
    let mut preferring = PreferringProjectivizer::new(&grammar, TreeClass::Projective, Weights::default())?;
    let mut labels = WordLabels::default();
    let mut counter = Counter::new(&grammar, TreeClass::Projective)?;
    let mut out = Output::create(None)?;

    writeln!(out, "tabula demo: the embedded sample treebank (data/sample.conllu)")?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<8} {:>5} {:>9} {:>13} {:>10} {:>14}",
        "sentence", "words", "non-proj", "optimal kept", "lift kept", "optimal trees"
    )?;
    let (mut words, mut kept_optimal, mut kept_lift) = (0, 0, 0);
    let mut projectivized = Vec::new();
    let mut first = None;
    for sentence in Reader::new(SAMPLE.as_bytes(), "data/sample.conllu") {
        let sentence = sentence?;
        let gold = sentence.tree();
        let best = optimal.projectivize(gold)?;
        let lifted = lift(gold);
        let counted = counter.count(gold)?;
        let lift_score = lifted.common_arcs(gold);
        writeln!(
            out,
            "{:<8} {:>5} {:>9} {:>13} {:>10} {:>14}",
            sentence.sent_id().unwrap_or("-"),
            gold.len(),
            if gold.is_projective() { "no" } else { "yes" },
            best.score,
            lift_score,
            counted.count
        )?;
        words += gold.len();
        kept_optimal += best.score;
        kept_lift += lift_score;
        // The tree `tabula projectivize` writes (its default preference
        // among the optimal ones), shown below and used for LR-spine.
        let written = if gold.is_projective() {
            sentence.write(&mut projectivized)?;
            gold.clone()
        } else {
            labels.read_conllu(&sentence.raw().text);
            let tree = preferring.projectivize(gold, &labels)?.tree;
            sentence.write_with_heads(&tree, &mut projectivized)?;
            tree
        };
        first.get_or_insert_with(|| (gold.clone(), written));
    }
    let pct = |k: usize| 100.0 * k as f64 / words as f64;
    writeln!(out)?;
    writeln!(
        out,
        "attachment score kept (Table 6): optimal {:.2} %, lift {:.2} % of {words} words",
        pct(kept_optimal),
        pct(kept_lift)
    )?;
    writeln!(
        out,
        "(per sentence: `tabula count data/sample.conllu`; in all: `tabula projectivize data/sample.conllu --stats -o sample.proj.conllu`)"
    )?;
    if let Some((gold, projective)) = first {
        // Optimal steps after three shifts for demo-1, in every system (Sec. 4).
        writeln!(out)?;
        writeln!(
            out,
            "optimal steps (dynamic oracle) after three shifts for demo-1, gold heads {gold}, in every system:"
        )?;
        writeln!(
            out,
            "the gold arcs each step keeps reachable, as `tabula oracle --system S` answers (strategy: lbr; lr-spine, attardi: none)"
        )?;
        let mut oracle = Oracle::new();
        for system in System::ALL {
            let mut config = Configuration::initial(system, gold.len());
            for _ in 0..3 {
                config.apply(Step::Shift)?;
            }
            // LR-spine's oracle needs a projective gold tree: demo-1 as `tabula projectivize` writes it.
            let tree = if system == System::LrSpine { &projective } else { &gold };
            let scores = oracle.scores(&config, tree, default_strategy(system), Algorithm::Auto)?;
            let steps: Vec<String> = config
                .steps()
                .map(|s| format!("{s} {}", scores.get(s).map_or("n/a".to_owned(), |v| v.to_string())))
                .collect();
            writeln!(
                out,
                "  {system}: stack {:?}, input {} to {}: {} -> optimal {:?}{}",
                config.stack(),
                config.buffer().start(),
                config.buffer().end(),
                steps.join(", "),
                scores.optimal().iter().map(|s| s.name()).collect::<Vec<_>>(),
                if system == System::LrSpine {
                    format!(" (gold: demo-1 as `tabula projectivize data/sample.conllu` writes it, heads {projective}: its oracle needs a projective tree)")
                } else {
                    String::new()
                }
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "the optimally projectivized treebank (`tabula projectivize data/sample.conllu`):")?;
    writeln!(out)?;
    out.write_all(&projectivized)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The strategy `tabula oracle` uses for `system` by default: none for the
/// systems whose oracles score every computation, lbr otherwise.
fn default_strategy(system: System) -> Strategy {
    match system {
        System::Attardi | System::LrSpine | System::ArcEagerNm => Strategy::None,
        _ => Strategy::Lbr,
    }
}
