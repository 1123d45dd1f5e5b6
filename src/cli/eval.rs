//! `tabula eval`: UAS and LAS of a predicted CoNLL-U file against the gold one.

use super::CliError;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::compressed::decompress;
use tabula::parser::eval::evaluate;

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
    let e = evaluate(gold, &gold_name, pred, &pred_name)?;
    if !e.gold_labels && e.all.words > 0 {
        eprintln!("warning: every DEPREL of {gold_name} is `_`: LAS is not reported");
    }
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&e.to_json())?)?;
    } else {
        write!(out, "{}", e.to_text())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
