//! `tabula count`: per tree, the best score and the exact number of optimal
//! projective trees (Nederhof 2019, end of Sec. 3, Fig. 8).

use super::progress::{self, Bars};
use super::projectivize::{load_grammar, open_input, Output};
use super::CliError;
use num_bigint::BigUint;
use plotters::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::{ConlluError, Reader, Sentence};
use tabula::projectivize::{Counter, ProjectivizeError};

/// Arguments of `tabula count`.
///
/// The TSV has the header `index sent_id length nonprojective best count`
/// (tab-separated): `index` counts trees from 1 across all inputs in order
/// (one TSV per run; run once per file for one TSV per file), `sent_id` is the
/// value of `# sent_id =` or empty, `length` the number of syntactic words,
/// `nonprojective` 0/1 for the gold tree, `best` the most gold arcs a tree of
/// the grammar keeps, `count` the exact number of such trees (both `-` for a
/// tree longer than --max-words, which is not counted, and for a sentence
/// the grammar derives no tree for; with --keep-going, a bad sentence's row
/// is all `-` after its index).
#[derive(clap::Args)]
pub struct Args {
    /// Input CoNLL-U files; `-` or nothing reads standard input.
    inputs: Vec<PathBuf>,
    /// Write the TSV here (atomically) instead of standard output.
    #[arg(long, value_name = "OUT")]
    tsv: Option<PathBuf>,
    /// Plot the geometric mean of the count against sentence length (one
    /// series per input file, all trees of each length) as SVG.
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
    /// A grammar file instead of the built-in Table 3 grammar.
    #[arg(long, conflicts_with = "single_root")]
    grammar: Option<PathBuf>,
    /// Use grammars/projective-single-root.grammar: the root gets exactly one child.
    #[arg(long)]
    single_root: bool,
    /// Do not count non-projective trees longer than N words (their row
    /// says `-`; a warning names each): counting costs n³ time and n²
    /// memory (about 10 s for 2,000 words, 540 s and about 5.5 GB for
    /// 10,000). A projective tree (single-rooted, with --single-root) is
    /// counted at once, whatever its length: its count is 1.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    max_words: u64,
    /// Give a bad sentence (one the reader refuses) a row of `-` and list it
    /// at the end instead of stopping.
    #[arg(long)]
    keep_going: bool,
}

/// Per length: the number of trees and the sum of ln(count).
type Series = (String, Vec<(u64, f64)>);

/// ln x for an arbitrary-precision x ≥ 1: from its top 64 bits. O(digits).
pub(crate) fn ln_big(x: &BigUint) -> f64 {
    let bits = x.bits();
    if bits <= 64 {
        return (x.iter_u64_digits().next().unwrap_or(0) as f64).ln();
    }
    let shift = bits - 64;
    let top = (x >> shift).iter_u64_digits().next().unwrap_or(0) as f64;
    top.ln() + shift as f64 * std::f64::consts::LN_2
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let (grammar, class) = load_grammar(args.grammar.as_deref(), args.single_root)?;
    let mut counter = Counter::new(&grammar, class)?;
    let inputs: Vec<Option<&Path>> =
        if args.inputs.is_empty() { vec![None] } else { args.inputs.iter().map(|p| Some(p.as_path())).collect() };
    // Outputs first: an unwritable path is reported before any work.
    let mut read: Vec<&Path> = inputs.iter().map(|p| p.unwrap_or(Path::new("-"))).collect();
    read.extend(args.grammar.as_deref());
    if let (Some(tsv), Some(plot)) = (&args.tsv, &args.plot) {
        if tabula::output::same_target(tsv, plot) {
            return Err(format!("--tsv {} and --plot {} are the same file", tsv.display(), plot.display()).into());
        }
    }
    let mut output = Output::create_apart(args.tsv.as_deref(), &read)?;
    let plot_output = args.plot.as_deref().map(|p| Output::create_apart(Some(p), &read)).transpose()?;
    let out = output.writer();
    writeln!(out, "index\tsent_id\tlength\tnonprojective\tbest\tcount")?;
    let mut index = 0u64;
    let mut series: Vec<Series> = Vec::new();
    // Trees longer than --max-words: (file, first line, words).
    let mut too_long: Vec<(String, usize, usize)> = Vec::new();
    // Sentences the grammar derives no tree for: the same.
    let mut underivable: Vec<(String, usize, usize)> = Vec::new();
    // Bad sentences given a row with --keep-going.
    let mut bad: Vec<ConlluError> = Vec::new();
    for path in inputs {
        let (input, file, len) = open_input(path)?;
        let bar = Bars::new(len);
        let mut by_length: Vec<(u64, f64)> = Vec::new();
        let mut reader = Reader::new(input, file.clone());
        while let Some(raw) = reader.next_raw() {
            let raw = raw?;
            let size = raw.text.len() as u64;
            let sentence = match Sentence::parse(raw, &file) {
                Ok(sentence) => sentence,
                Err(invalid) if args.keep_going => {
                    index += 1;
                    writeln!(out, "{index}\t\t-\t-\t-\t-")?;
                    bad.push(invalid.error);
                    if let Some(b) = &bar {
                        b.inc(size);
                    }
                    continue;
                }
                Err(invalid) => return Err(invalid.error.into()),
            };
            let gold = sentence.tree();
            // A tree of the grammar's class is counted at once (the only tree
            // keeping all its arcs: count 1), whatever its length.
            if gold.len() as u64 > args.max_words && !class.contains(gold) {
                index += 1;
                too_long.push((file.to_string(), sentence.first_line(), gold.len()));
                uncounted_row(out, index, &sentence)?;
                if let Some(b) = &bar {
                    b.inc(size);
                }
                continue;
            }
            let place = || format!("{file}:{}", sentence.first_line());
            let counted = progress::for_sentence(bar.as_ref(), gold.len(), place, || counter.count(gold));
            index += 1;
            let r = match counted {
                Ok(r) => r,
                Err(ProjectivizeError::NoTree(_)) => {
                    underivable.push((file.to_string(), sentence.first_line(), gold.len()));
                    uncounted_row(out, index, &sentence)?;
                    if let Some(b) = &bar {
                        b.inc(size);
                    }
                    continue;
                }
                Err(e) => return Err(format!("{}: {e}", place()).into()),
            };
            let n = gold.len();
            writeln!(
                out,
                "{index}\t{}\t{n}\t{}\t{}\t{}",
                sentence.sent_id().unwrap_or(""),
                u8::from(!gold.is_projective()),
                r.best,
                r.count
            )?;
            if by_length.len() <= n {
                by_length.resize(n + 1, (0, 0.0));
            }
            by_length[n].0 += 1;
            by_length[n].1 += ln_big(&r.count);
            if let Some(b) = &bar {
                b.inc(size);
            }
        }
        if let Some(b) = bar {
            b.finish();
        }
        series.push((file.to_string(), by_length));
    }
    output.commit()?;
    if !too_long.is_empty() {
        super::say!(
            "warning: {} tree(s) longer than {} words not counted (`-` in their rows; --max-words {}):",
            too_long.len(),
            args.max_words,
            args.max_words
        );
        for (file, line, words) in &too_long {
            super::say!("  {file}:{line}: {words} words");
        }
    }
    if !underivable.is_empty() {
        super::say!("warning: {} sentence(s) the grammar derives no tree for (`-` in their rows):", underivable.len());
        for (file, line, words) in &underivable {
            super::say!("  {file}:{line}: {words} words");
        }
    }
    if !bad.is_empty() {
        super::say!("warning: {} bad sentence(s) given a row of `-` (--keep-going):", bad.len());
        for e in &bad {
            super::say!("  {e}");
        }
    }
    if let Some(mut plot) = plot_output {
        let svg = draw(&series)?;
        plot.write_all(svg.as_bytes())?;
        plot.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The row of a tree that is not counted: `best` and `count` are `-`.
fn uncounted_row(out: &mut dyn Write, index: u64, sentence: &Sentence) -> std::io::Result<()> {
    let gold = sentence.tree();
    writeln!(
        out,
        "{index}\t{}\t{}\t{}\t-\t-",
        sentence.sent_id().unwrap_or(""),
        gold.len(),
        u8::from(!gold.is_projective())
    )
}

/// Geometric mean of the count against length, one line per input (Fig. 8), as SVG.
fn draw(series: &[Series]) -> Result<String, CliError> {
    let points: Vec<Vec<(u32, f64)>> = series
        .iter()
        .map(|(_, by)| {
            by.iter()
                .enumerate()
                .filter(|(_, &(k, _))| k > 0)
                .map(|(n, &(k, sum))| (n as u32, (sum / k as f64).exp()))
                .collect()
        })
        .collect();
    let max_len = points.iter().flatten().map(|p| p.0).max().unwrap_or(1).max(1);
    let max_y = points.iter().flatten().map(|p| p.1).fold(10.0f64, f64::max) * 2.0;
    let mut svg = String::new();
    let backend = SVGBackend::with_string(&mut svg, (800, 500));
    let root = backend.into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("cannot draw the plot: {e}");
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let names: Vec<String> = series
        .iter()
        .map(|(name, _)| {
            let path = std::path::Path::new(name);
            path.file_name().map_or_else(|| name.clone(), |f| f.to_string_lossy().into_owned())
        })
        .collect();
    let title = format!("Optimal projective trees, geometric mean of their number: {}", names.join(", "));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0u32..max_len + 1, (1f64..max_y).log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("sentence length (words)")
        .y_desc("geometric mean of count")
        .y_label_formatter(&super::plot::number)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, ((name, _), pts)) in series.iter().zip(&points).enumerate() {
        let color = super::plot::color(i);
        // One line per run of consecutive lengths: no line across lengths without trees.
        for (k, run) in super::plot::runs(pts).into_iter().enumerate() {
            let drawn =
                chart.draw_series(LineSeries::new(run, color.stroke_width(2)).point_size(2)).map_err(|e| err(&e))?;
            if k == 0 {
                drawn.label(name.clone()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    drop(chart);
    drop(root);
    Ok(svg)
}
