//! `tabula eval`: UAS and LAS of a predicted CoNLL-U file against the gold one.

use super::CliError;
use plotters::prelude::*;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::compressed::decompress;
use tabula::output::Output;
use tabula::parser::breakdown::{Breakdown, GroupKey};
use tabula::parser::eval::{evaluate_report, form_counts, EvalOptions};

/// Arguments of `tabula eval`.
///
/// LAS compares the universal part of DEPREL (before `:`), as in the
/// CoNLL 2018 shared task; "without punctuation" leaves out the words whose
/// gold UPOS is PUNCT. The files must have the same sentences, words and
/// FORMs; the first difference is an error naming the line of each.
/// Several predicted files are scored one after another (the text under a
/// `== FILE` line, JSON as a list of objects with the key `file`).
#[derive(clap::Args)]
pub struct Args {
    /// The gold CoNLL-U file (`-`: standard input, with one PRED only).
    gold: PathBuf,
    /// The predicted CoNLL-U file or files (`-`: standard input).
    #[arg(required = true, value_name = "PRED")]
    pred: Vec<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// Also score the gold tree's non-projective arcs: how many the
    /// prediction has (recall), and how many of the predicted non-projective
    /// arcs are gold (precision). JSON: the key `nonprojective`.
    #[arg(long)]
    nonprojective: bool,
    /// Error analysis: UAS and LAS by gold UPOS, relation, arc length,
    /// direction, depth in the gold tree and position in the sentence (and
    /// by the FORM's frequency in --train), and the CoNLL 2018 MLAS and BLEX
    /// scores. JSON: the key `breakdown`.
    #[arg(long)]
    breakdown: bool,
    /// A training file: --breakdown also scores words by how often their
    /// FORM occurs in it.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Draw UAS by gold dependency length and by distance to the root
    /// (depth in the gold tree) as SVG: two panels, one line per PRED.
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
}

/// Opens a file, or standard input for `-`, decompressing xz and gzip.
pub(crate) fn open(path: &Path) -> Result<(Box<dyn BufRead + Send>, String), CliError> {
    if path == Path::new("-") {
        let input = decompress(BufReader::new(io::stdin())).map_err(|e| format!("<stdin>: {e}"))?;
        return Ok((input, "<stdin>".into()));
    }
    let input = tabula::conllu::compressed::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((input, path.display().to_string()))
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let stdin = |p: &PathBuf| p == Path::new("-");
    if args.pred.iter().chain([&args.gold]).filter(|p| stdin(p)).count() > 1 {
        return Err("only one of GOLD and the PRED files can be standard input".into());
    }
    if args.pred.len() > 1 && stdin(&args.gold) {
        return Err(format!(
            "GOLD cannot be standard input with {} PRED files: it is read once per file",
            args.pred.len()
        )
        .into());
    }
    if args.train.is_some() && !args.breakdown {
        return Err("--train gives the word frequencies of --breakdown; add --breakdown".into());
    }
    // The plot's file first: an unwritable path is reported before any work.
    let plot = match &args.plot {
        None => None,
        Some(p) => {
            if p.extension().is_none_or(|e| !e.eq_ignore_ascii_case("svg")) {
                return Err(format!("--plot {}: the plot is SVG; name the file OUT.svg", p.display()).into());
            }
            let inputs: Vec<&Path> =
                args.pred.iter().chain([&args.gold]).chain(&args.train).map(|p| p.as_path()).collect();
            Some(Output::create_apart(Some(p), &inputs)?)
        }
    };
    let forms = match args.train.as_deref() {
        None => None,
        Some(path) => {
            let (input, name) = open(path)?;
            Some(form_counts(input, &name)?)
        }
    };
    let options = EvalOptions {
        nonprojective: args.nonprojective,
        breakdown: args.breakdown,
        forms,
        collect_breakdown: plot.is_some(),
    };
    let mut out = io::stdout().lock();
    let mut jsons = Vec::new();
    let mut series: Vec<(String, Breakdown)> = Vec::new();
    for (i, pred_path) in args.pred.iter().enumerate() {
        let (gold, gold_name) = open(&args.gold)?;
        let (pred, pred_name) = open(pred_path)?;
        let report = evaluate_report(gold, &gold_name, pred, &pred_name, &options)?;
        if !report.evaluation.gold_labels && report.evaluation.all.words > 0 && i == 0 {
            super::say!("warning: every DEPREL of {gold_name} is `_`: LAS is not reported");
        }
        if args.json {
            let mut json = report.to_json();
            if args.pred.len() > 1 {
                if let Some(map) = json.as_object_mut() {
                    map.insert("file".into(), pred_name.clone().into());
                }
            }
            jsons.push(json);
        } else {
            if args.pred.len() > 1 {
                writeln!(out, "{}== {pred_name}", if i == 0 { "" } else { "\n" })?;
            }
            write!(out, "{}", report.to_text())?;
        }
        if let Some(b) = report.breakdown {
            series.push((pred_name, b));
        }
    }
    if args.json {
        let json = if jsons.len() == 1 { jsons.pop().expect("one") } else { serde_json::Value::Array(jsons) };
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    }
    if let Some(mut plot) = plot {
        let svg = draw(&series)?;
        plot.write_all(svg.as_bytes())?;
        plot.commit()?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One panel's categories (the groups of `table` in any file, in order)
/// and, per file, its points: (category, UAS %) where the file has words.
#[allow(clippy::type_complexity)]
fn panel(series: &[(String, Breakdown)], table: &str) -> (Vec<String>, Vec<Vec<(u32, f64)>>) {
    let tally =
        |b: &Breakdown| b.tables.iter().find(|(name, _)| *name == table).map(|(_, t)| t.clone()).unwrap_or_default();
    let mut keys: Vec<GroupKey> = series.iter().flat_map(|(_, b)| tally(b).into_keys()).collect();
    keys.sort();
    keys.dedup();
    // Root arcs have no length: the length panel leaves them out (the
    // other panel has them at distance 1).
    keys.retain(|k| k.name != "root");
    let points = series
        .iter()
        .map(|(_, b)| {
            let t = tally(b);
            keys.iter()
                .enumerate()
                .filter_map(|(i, k)| {
                    let g = t.get(k).filter(|g| g.words > 0)?;
                    Some((i as u32, 100.0 * g.heads as f64 / g.words as f64))
                })
                .collect()
        })
        .collect();
    (keys.into_iter().map(|k| k.name).collect(), points)
}

/// UAS by gold dependency length and by distance to the root, one line
/// per predicted file, as SVG: two panels side by side.
fn draw(series: &[(String, Breakdown)]) -> Result<String, CliError> {
    let err = |e: &dyn std::fmt::Display| format!("cannot draw the plot: {e}");
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let panels = root.split_evenly((1, 2));
        let specs = [
            ("length", "UAS by dependency length", "gold dependency length (words)"),
            ("depth", "UAS by distance to the root", "gold distance to the root (arcs)"),
        ];
        for (area, (table, title, x_desc)) in panels.iter().zip(specs) {
            let (names, points) = panel(series, table);
            let low = points.iter().flatten().map(|p| p.1).fold(100.0f64, f64::min);
            let low = ((low / 10.0).floor() * 10.0).clamp(0.0, 90.0);
            let n = names.len().max(1) as u32;
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 18))
                .margin(15)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d((0u32..n - 1).into_segmented(), low..100.0)
                .map_err(|e| err(&e))?;
            let label = |v: &SegmentValue<u32>| match v {
                SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                    names.get(*i as usize).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            };
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc("UAS (%)")
                .x_labels(names.len().max(1))
                .x_label_formatter(&label)
                .y_label_formatter(&super::plot::number)
                .disable_x_mesh()
                .draw()
                .map_err(|e| err(&e))?;
            for (i, ((name, _), pts)) in series.iter().zip(&points).enumerate() {
                let color = super::plot::color(i);
                let centred: Vec<(SegmentValue<u32>, f64)> =
                    pts.iter().map(|&(x, y)| (SegmentValue::CenterOf(x), y)).collect();
                let drawn = chart
                    .draw_series(LineSeries::new(centred, color.stroke_width(2)).point_size(3))
                    .map_err(|e| err(&e))?;
                drawn.label(name.clone()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerLeft)
                .background_style(WHITE)
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}
