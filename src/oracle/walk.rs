//! Walks over a treebank (Nederhof 2019, Sec. 8.2, Fig. 9): for each gold
//! tree, a computation from the initial configuration that takes an optimal
//! step (or, with probability `stray`, a random applicable one), timing the
//! optimal-step computation at every configuration whose stack has two or
//! more elements, and optionally checking that all algorithms agree.
//!
//! Also here, until `crate::conllu` lands: a minimal CoNLL-U reader of the
//! HEAD column ([`read_heads`]), and optimal projectivization of a gold tree
//! with the engine and Table 3 ([`projectivize`]).

use super::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy};
use crate::engine::Parser;
use crate::grammar::{text, Grammar};
use crate::semiring::MaxPlus;
use crate::tree::DepTree;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::OnceLock;
use std::time::Instant;

/// Errors of reading a treebank or walking it.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("cannot read the treebank: {0}")]
    Io(#[from] std::io::Error),
    #[error("line {line}: {message}")]
    Conllu { line: usize, message: String },
    #[error("sentence {sentence} (ending at line {line}): {source}")]
    Oracle { sentence: usize, line: usize, source: OracleError },
    #[error("sentence {sentence}: the algorithms disagree at stack {stack:?}, input {next}..={n}: {answers}")]
    Disagreement { sentence: usize, stack: Vec<usize>, next: usize, n: usize, answers: String },
}

/// One gold tree of a treebank and the line its sentence ends on.
#[derive(Clone, Debug)]
pub struct GoldSentence {
    pub tree: DepTree,
    pub line: usize,
}

/// Reads the HEAD column of every sentence of a CoNLL-U text: lines with an
/// integer ID; comments, multiword tokens (`n-m`) and empty nodes (`n.k`)
/// are skipped. Errors name the line. O(size of the text).
///
/// Minimal on purpose; to be replaced by `crate::conllu` when it lands.
pub fn read_heads(input: impl BufRead) -> Result<Vec<GoldSentence>, WalkError> {
    let mut out = Vec::new();
    let mut heads: Vec<usize> = Vec::new();
    let mut start = 0;
    let mut last = 0;
    let finish =
        |heads: &mut Vec<usize>, start: usize, line: usize, out: &mut Vec<GoldSentence>| -> Result<(), WalkError> {
            if heads.is_empty() {
                return Ok(());
            }
            let tree = DepTree::from_heads(heads)
                .map_err(|e| WalkError::Conllu { line: start, message: format!("sentence starting here: {e}") })?;
            heads.clear();
            out.push(GoldSentence { tree, line });
            Ok(())
        };
    for (i, line) in input.lines().enumerate() {
        let line_no = i + 1;
        let line = line?;
        last = line_no;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            finish(&mut heads, start, line_no - 1, &mut out)?;
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != 10 {
            return Err(WalkError::Conllu {
                line: line_no,
                message: format!("expected 10 tab-separated columns, found {}", cols.len()),
            });
        }
        if cols[0].contains('-') || cols[0].contains('.') {
            continue;
        }
        let bad = |what: &str| WalkError::Conllu { line: line_no, message: what.to_string() };
        let id: usize = cols[0].parse().map_err(|_| bad(&format!("ID `{}` is not an integer", cols[0])))?;
        if heads.is_empty() {
            start = line_no;
        }
        if id != heads.len() + 1 {
            return Err(bad(&format!("expected word ID {}, found {id}", heads.len() + 1)));
        }
        let head: usize = cols[6].parse().map_err(|_| bad(&format!("HEAD `{}` is not an integer", cols[6])))?;
        heads.push(head);
    }
    finish(&mut heads, start, last, &mut out)?;
    Ok(out)
}

/// A most accurate projective tree for `gold` (Sec. 3: the engine with the
/// Table 3 grammar, max-plus, w = 1 for gold arcs), first best derivation.
/// O(n³).
pub fn projectivize(gold: &DepTree) -> DepTree {
    static G: OnceLock<Grammar> = OnceLock::new();
    let g = G.get_or_init(|| match text::parse_str("projective.grammar", crate::grammars::PROJECTIVE) {
        Ok(p) => p.grammar,
        Err(e) => unreachable!("embedded grammar: {e}"),
    });
    if gold.is_projective() {
        return gold.clone();
    }
    let Some(a) = g.terminal("a") else { unreachable!("projective.grammar has the terminal a") };
    let mut parser = Parser::<MaxPlus<i64>>::new(g);
    let input = vec![a; gold.len() + 1];
    match parser.parse(&input, |h, d| MaxPlus(gold.has_arc(h, d) as i64)) {
        Ok(_) => parser.best_derivation().map(|d| d.tree).unwrap_or_else(|| gold.clone()),
        Err(_) => gold.clone(),
    }
}

/// How to walk.
#[derive(Clone, Copy, Debug)]
pub struct WalkOptions {
    pub strategy: Strategy,
    /// The algorithm timed (and whose steps are followed).
    pub algorithm: Algorithm,
    /// Probability of a random applicable step instead of an optimal one.
    pub stray: f64,
    /// Compare the answers of all available algorithms at every configuration.
    pub check_agreement: bool,
}

/// Timing totals for one stack + input length k + m.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bucket {
    pub configurations: u64,
    pub nanos: u128,
}

impl Bucket {
    /// Mean microseconds per configuration.
    pub fn mean_us(&self) -> f64 {
        if self.configurations == 0 {
            0.0
        } else {
            self.nanos as f64 / 1000.0 / self.configurations as f64
        }
    }
}

/// Timings of one algorithm by k + m (Fig. 9's x axis).
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub buckets: BTreeMap<usize, Bucket>,
}

impl Timings {
    fn add(&mut self, length: usize, nanos: u128) {
        let b = self.buckets.entry(length).or_default();
        b.configurations += 1;
        b.nanos += nanos;
    }
    /// All configurations together.
    pub fn total(&self) -> Bucket {
        self.buckets.values().fold(Bucket::default(), |a, b| Bucket {
            configurations: a.configurations + b.configurations,
            nanos: a.nanos + b.nanos,
        })
    }
}

/// The result of a walk over a treebank.
#[derive(Clone, Debug, Default)]
pub struct WalkStats {
    pub trees: usize,
    /// Steps taken in total.
    pub steps: u64,
    /// Per algorithm: the timed configurations.
    pub timings: BTreeMap<&'static str, Timings>,
    /// Configurations where the algorithms were compared.
    pub compared: u64,
}

/// Walks one computation per tree (see the [module documentation](self)).
/// Cost: the oracle's cost at each of the 2n steps of each tree.
pub fn walk<R: Rng>(
    oracle: &mut Oracle<'_>,
    sentences: &[GoldSentence],
    opts: &WalkOptions,
    rng: &mut R,
) -> Result<WalkStats, WalkError> {
    let mut stats = WalkStats::default();
    let others: Vec<Algorithm> = [Algorithm::Cubic, Algorithm::Quadratic, Algorithm::Linear]
        .into_iter()
        .filter(|&a| Oracle::is_available(a))
        .collect();
    for (index, sentence) in sentences.iter().enumerate() {
        let gold = &sentence.tree;
        let main = Oracle::resolve(opts.algorithm, gold);
        let err = |source| WalkError::Oracle { sentence: index + 1, line: sentence.line, source };
        let mut config = Configuration::initial(gold.len());
        stats.trees += 1;
        while !config.is_final() {
            let step = if config.stack().len() < 2 {
                Step::Shift
            } else {
                let t0 = Instant::now();
                let scores = oracle.scores(&config, gold, opts.strategy, main).map_err(err)?;
                let nanos = t0.elapsed().as_nanos();
                let length = config.stack().len() - 1 + config.buffer().count();
                stats.timings.entry(main.name()).or_default().add(length, nanos);
                if opts.check_agreement {
                    check(oracle, &config, gold, opts.strategy, main, &scores, &others, index, &mut stats)?;
                }
                choose(&config, &scores, opts.stray, rng)
            };
            config.apply(step).map_err(err)?;
            stats.steps += 1;
        }
    }
    Ok(stats)
}

#[allow(clippy::too_many_arguments)]
fn check(
    oracle: &mut Oracle<'_>,
    config: &Configuration,
    gold: &DepTree,
    strategy: Strategy,
    main: Algorithm,
    scores: &StepScores,
    others: &[Algorithm],
    index: usize,
    stats: &mut WalkStats,
) -> Result<(), WalkError> {
    let projective = gold.is_projective();
    let mut answers = vec![(main, *scores)];
    for &a in others {
        if a == main || (a != Algorithm::Cubic && !projective) {
            continue;
        }
        let t0 = Instant::now();
        let s = oracle.scores(config, gold, strategy, a).map_err(|source| WalkError::Oracle {
            sentence: index + 1,
            line: 0,
            source,
        })?;
        let length = config.stack().len() - 1 + config.buffer().count();
        stats.timings.entry(a.name()).or_default().add(length, t0.elapsed().as_nanos());
        answers.push((a, s));
    }
    stats.compared += 1;
    if answers.iter().any(|(_, s)| s != scores) {
        let answers = answers.iter().map(|(a, s)| format!("{a} {s:?}")).collect::<Vec<_>>().join("; ");
        return Err(WalkError::Disagreement {
            sentence: index + 1,
            stack: config.stack().to_vec(),
            next: *config.buffer().start(),
            n: config.sentence_len(),
            answers,
        });
    }
    Ok(())
}

/// An optimal step chosen uniformly among the optimal ones, or with
/// probability `stray` a uniformly random applicable step.
fn choose<R: Rng>(config: &Configuration, scores: &StepScores, stray: f64, rng: &mut R) -> Step {
    let applicable: Vec<Step> = Step::ALL.iter().copied().filter(|&s| config.is_applicable(s)).collect();
    let optimal = scores.optimal();
    let pool =
        if optimal.is_empty() || (stray > 0.0 && rng.gen_bool(stray.clamp(0.0, 1.0))) { &applicable } else { &optimal };
    *pool.choose(rng).unwrap_or(&Step::Shift)
}

/// Draws Fig. 9: mean µs per configuration against k + m, one line per
/// algorithm, logarithmic y axis, as SVG at `path`. O(buckets).
pub fn plot(stats: &WalkStats, path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let points = || stats.timings.values().flat_map(|t| t.buckets.iter().map(|(&l, b)| (l, b.mean_us())));
    let max_len = points().map(|(l, _)| l).max().unwrap_or(1).max(1);
    let (lo, hi) = points().fold((f64::INFINITY, 0f64), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
    let (lo, hi) = if hi > 0.0 { ((lo.max(1e-3) / 2.0), hi * 2.0) } else { (0.1, 10.0) };
    let mut chart = ChartBuilder::on(&root)
        .caption("Mean time per configuration (Nederhof 2019, Fig. 9)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..max_len + 1, (lo..hi).log_scale())?;
    chart.configure_mesh().x_desc("k + m").y_desc("mean µs").draw()?;
    let colors = [RED, BLUE, GREEN, BLACK];
    for (i, (name, t)) in stats.timings.iter().enumerate() {
        let color = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(t.buckets.iter().map(|(&l, b)| (l, b.mean_us())), color))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_heads_and_skips_multiword_and_empty_nodes() {
        let text = "# sent_id = 1\n1-2\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n1\tzu\t_\t_\t_\t_\t0\t_\t_\t_\n2\tdem\t_\t_\t_\t_\t1\t_\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n\n1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n";
        let s = read_heads(text.as_bytes()).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].tree.heads(), &[0, 1]);
        assert_eq!(s[1].tree.heads(), &[0]);
    }

    #[test]
    fn a_bad_head_names_its_line() {
        let text = "1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n2\tb\t_\t_\t_\t_\tx\t_\t_\t_\n";
        let e = read_heads(text.as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "line 2: HEAD `x` is not an integer");
    }

    #[test]
    fn projectivize_keeps_projective_trees_and_fixes_crossing_ones() {
        let t = DepTree::from_heads(&[0, 0, 1]).unwrap();
        let p = projectivize(&t);
        assert!(p.is_projective());
        assert_eq!(p.common_arcs(&t), 2);
    }
}
