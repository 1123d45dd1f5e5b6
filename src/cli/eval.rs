//! `tabula eval`: UAS and LAS of a predicted CoNLL-U file against the gold one.

use super::output::Output;
use super::CliError;
use plotters::prelude::*;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::compressed::decompress;
use tabula::parser::breakdown::{Breakdown, GroupKey};
use tabula::parser::eval::evaluate_with;

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

/// Non-projective arcs: gold ones, predicted ones, and both.
#[derive(Default)]
struct NonProjective {
    gold: u64,
    predicted: u64,
    /// Gold non-projective arcs predicted.
    right: u64,
    /// Predicted non-projective arcs that are gold arcs.
    predicted_right: u64,
}

/// Counts the non-projective arcs of two aligned files (already checked by
/// `evaluate`). A predicted sentence whose heads are not a tree counts no
/// predicted non-projective arc.
fn nonprojective(gold: &Path, pred: &Path) -> Result<NonProjective, CliError> {
    use tabula::parser::columns::Columns;
    use tabula::projectivize::pseudo::nonprojective_words;
    let (g, g_name) = open(gold)?;
    let (p, p_name) = open(pred)?;
    let (mut g, mut p) =
        (tabula::conllu::Reader::new(g, g_name.as_str()), tabula::conllu::Reader::new(p, p_name.as_str()));
    let mut counts = NonProjective::default();
    while let (Some(gr), Some(pr)) = (g.next_raw(), p.next_raw()) {
        let (gr, pr) = (gr?, pr?);
        let (gc, pc) = (Columns::scan(&gr, &g_name)?, Columns::scan(&pr, &p_name)?);
        if gc.is_empty() {
            continue;
        }
        let gold_tree = gc.heads(&gr.text, &g_name)?;
        let pred_heads = pc.head_numbers(&pr.text, &p_name)?;
        let gold_np = nonprojective_words(&gold_tree);
        counts.gold += gold_np.len() as u64;
        counts.right += gold_np.iter().filter(|&&d| pred_heads[d - 1] == gold_tree.head(d)).count() as u64;
        if let Ok(pred_tree) = tabula::tree::DepTree::from_heads(&pred_heads) {
            let pred_np = nonprojective_words(&pred_tree);
            counts.predicted += pred_np.len() as u64;
            counts.predicted_right +=
                pred_np.iter().filter(|&&d| pred_heads[d - 1] == gold_tree.head(d)).count() as u64;
        }
    }
    Ok(counts)
}

/// How often each FORM occurs in the syntactic words of `path`.
fn form_counts(path: &Path) -> Result<HashMap<Vec<u8>, u64>, CliError> {
    let (input, name) = open(path)?;
    let mut reader = tabula::conllu::Reader::new(input, name.as_str());
    let mut counts = HashMap::new();
    while let Some(raw) = reader.next_raw() {
        let raw = raw?;
        let cols = tabula::parser::columns::Columns::scan(&raw, &name)?;
        for w in &cols.words {
            *counts.entry(raw.text[w.form.clone()].to_vec()).or_insert(0) += 1;
        }
    }
    Ok(counts)
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
    if args.nonprojective && args.pred.iter().chain([&args.gold]).any(stdin) {
        return Err("--nonprojective reads the files twice: give files, not standard input".into());
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
    let counts = args.train.as_deref().map(form_counts).transpose()?;
    let mut out = io::stdout().lock();
    let mut jsons = Vec::new();
    let mut series: Vec<(String, Breakdown)> = Vec::new();
    for pred_path in &args.pred {
        let (gold, gold_name) = open(&args.gold)?;
        let (pred, pred_name) = open(pred_path)?;
        let mut breakdown = (args.breakdown || plot.is_some())
            .then(|| Breakdown::new(if args.breakdown { counts.clone() } else { None }));
        let e = evaluate_with(gold, &gold_name, pred, &pred_name, breakdown.as_mut())?;
        if !e.gold_labels && e.all.words > 0 && series.is_empty() && jsons.is_empty() {
            eprintln!("warning: every DEPREL of {gold_name} is `_`: LAS is not reported");
        }
        let np = if args.nonprojective { Some(nonprojective(&args.gold, pred_path)?) } else { None };
        let share = |a: u64, b: u64| if b == 0 { None } else { Some(100.0 * a as f64 / b as f64) };
        if args.json {
            let mut json = e.to_json();
            if let (Some(np), Some(map)) = (&np, json.as_object_mut()) {
                map.insert(
                    "nonprojective".into(),
                    serde_json::json!({
                        "gold": np.gold,
                        "predicted": np.predicted,
                        "gold_arcs_found": np.right,
                        "recall": share(np.right, np.gold),
                        "predicted_gold": np.predicted_right,
                        "precision": share(np.predicted_right, np.predicted),
                    }),
                );
            }
            if let (Some(b), Some(map), true) = (&breakdown, json.as_object_mut(), args.breakdown) {
                map.insert("breakdown".into(), b.to_json(e.gold_labels));
            }
            if args.pred.len() > 1 {
                if let Some(map) = json.as_object_mut() {
                    map.insert("file".into(), pred_name.clone().into());
                }
            }
            jsons.push(json);
        } else {
            if args.pred.len() > 1 {
                writeln!(out, "{}== {pred_name}", if series.is_empty() && jsons.is_empty() { "" } else { "\n" })?;
            }
            write!(out, "{}", e.to_text())?;
            if let Some(np) = &np {
                let pct = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2}"));
                writeln!(
                    out,
                    "non-projective arcs: gold {}, found {} (recall {} %); predicted {}, gold {} (precision {} %)",
                    np.gold,
                    np.right,
                    pct(share(np.right, np.gold)),
                    np.predicted,
                    np.predicted_right,
                    pct(share(np.predicted_right, np.predicted))
                )?;
            }
            if let (Some(b), true) = (&breakdown, args.breakdown) {
                write!(out, "\n{}", b.to_text(e.gold_labels))?;
            }
        }
        if let Some(b) = breakdown {
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
