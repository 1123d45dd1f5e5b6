//! `tabula eval`: UAS and LAS of a predicted CoNLL-U file against the gold one.

use super::CliError;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::compressed::decompress;
use tabula::parser::breakdown::Breakdown;
use tabula::parser::eval::evaluate_with;

/// Arguments of `tabula eval`.
///
/// LAS compares the universal part of DEPREL (before `:`), as in the
/// CoNLL 2018 shared task; "without punctuation" leaves out the words whose
/// gold UPOS is PUNCT. The files must have the same sentences, words and
/// FORMs; the first difference is an error naming the line of each.
#[derive(clap::Args)]
pub struct Args {
    /// The gold CoNLL-U file (`-`: standard input).
    gold: PathBuf,
    /// The predicted CoNLL-U file (`-`: standard input).
    pred: PathBuf,
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
    if args.gold == Path::new("-") && args.pred == Path::new("-") {
        return Err("only one of GOLD and PRED can be standard input".into());
    }
    let (gold, gold_name) = open(&args.gold)?;
    let (pred, pred_name) = open(&args.pred)?;
    if args.train.is_some() && !args.breakdown {
        return Err("--train gives the word frequencies of --breakdown; add --breakdown".into());
    }
    let mut breakdown = match (&args.train, args.breakdown) {
        (_, false) => None,
        (None, true) => Some(Breakdown::new(None)),
        (Some(train), true) => Some(Breakdown::new(Some(form_counts(train)?))),
    };
    let e = evaluate_with(gold, &gold_name, pred, &pred_name, breakdown.as_mut())?;
    if !e.gold_labels && e.all.words > 0 {
        eprintln!("warning: every DEPREL of {gold_name} is `_`: LAS is not reported");
    }
    let np = if args.nonprojective { Some(nonprojective(&args.gold, &args.pred)?) } else { None };
    let share = |a: u64, b: u64| if b == 0 { None } else { Some(100.0 * a as f64 / b as f64) };
    let mut out = io::stdout().lock();
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
        if let (Some(b), Some(map)) = (&breakdown, json.as_object_mut()) {
            map.insert("breakdown".into(), b.to_json(e.gold_labels));
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    } else {
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
        if let Some(b) = &breakdown {
            write!(out, "\n{}", b.to_text(e.gold_labels))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
