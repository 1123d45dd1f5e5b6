//! `tabula deprojectivize`: undoes the pseudo-projective encoding of
//! `tabula projectivize --encode` (Nivre & Nilsson 2005) on any CoNLL-U
//! file, a parser's output included.

use super::projectivize::open_input;
use super::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::output::Output;
use tabula::parser::deprojectivize::deprojectivize;

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
    let totals = deprojectivize(reader, &file, output.writer())?;
    output.commit()?;
    if totals.malformed > 0 {
        super::say!(
            "warning: {file}: {} DEPREL(s) contain `|` or `%` but not in the encoding's forms (d|h, d|, p%): \
             kept as they are",
            totals.malformed
        );
    }
    if args.stats {
        super::say!("sentences: {}", totals.sentences);
        super::say!("moved words: {}", totals.moved);
        super::say!("reattached: {}", totals.reattached);
        super::say!("not found (head kept): {}", totals.moved - totals.reattached);
        super::say!("labels with stray marks: {}", totals.malformed);
    }
    Ok(ExitCode::SUCCESS)
}
