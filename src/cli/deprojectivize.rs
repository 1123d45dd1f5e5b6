//! `tabula deprojectivize`: undoes the pseudo-projective encoding of
//! `tabula projectivize --encode` (Nivre & Nilsson 2005) on any CoNLL-U
//! file, a parser's output included.

use super::output::Output;
use super::projectivize::open_input;
use super::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::Reader;
use tabula::parser::columns::Columns;
use tabula::projectivize::pseudo;

/// Arguments of `tabula deprojectivize`.
///
/// Every word whose DEPREL marks it as moved (`d|h` or `d|`) is reattached
/// to the head the marks lead to (the search of docs/projectivize.md,
/// "Pseudo-projective parsing"); every DEPREL is written back plain (`d`).
/// Only HEAD and DEPREL of syntactic words change; all other bytes are
/// copied. Which scheme encoded the file need not be given: the labels say.
#[derive(clap::Args)]
pub struct Args {
    /// Input CoNLL-U file (plain, xz or gzip); `-` or nothing: standard input.
    input: Option<PathBuf>,
    /// Output file; `-` or nothing writes standard output. A regular file is
    /// replaced only when the run succeeds.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print sentences, moved words, how many were reattached, and labels
    /// with stray marks (kept as they are) to standard error.
    #[arg(long)]
    stats: bool,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let mut output = Output::create_apart(args.output.as_deref(), &[input])?;
    let (reader, file, _) = open_input(args.input.as_deref())?;
    let mut reader = Reader::new(reader, file.clone());
    let (mut sentences, mut moved, mut reattached, mut malformed) = (0u64, 0u64, 0u64, 0u64);
    while let Some(raw) = reader.next_raw() {
        let raw = raw?;
        let cols = Columns::scan(&raw, &file)?;
        if cols.is_empty() {
            output.writer().write_all(&raw.text)?;
            continue;
        }
        let tree = cols.heads(&raw.text, &file)?;
        // Columns::scan checked that every field is UTF-8.
        let labels: Vec<&str> =
            cols.words.iter().map(|w| std::str::from_utf8(&raw.text[w.deprel.clone()]).unwrap_or("_")).collect();
        let decoded = pseudo::decode(&tree, &labels)?;
        sentences += 1;
        moved += decoded.moved as u64;
        reattached += decoded.reattached as u64;
        malformed += decoded.malformed as u64;
        let plain: Vec<&str> = decoded.labels.iter().map(String::as_str).collect();
        let mut bytes = Vec::with_capacity(raw.text.len());
        cols.write_with(&raw.text, decoded.tree.heads(), &plain, &mut bytes)?;
        output.writer().write_all(&bytes)?;
    }
    output.commit()?;
    if malformed > 0 {
        eprintln!(
            "warning: {file}: {malformed} DEPREL(s) contain `|` or `%` but not in the encoding's forms (d|h, d|, p%): \
             kept as they are"
        );
    }
    if args.stats {
        eprintln!("sentences: {sentences}");
        eprintln!("moved words: {moved}");
        eprintln!("reattached: {reattached}");
        eprintln!("not found (head kept): {}", moved - reattached);
        eprintln!("labels with stray marks: {malformed}");
    }
    Ok(ExitCode::SUCCESS)
}
