//! `tabula ensemble`: the weighted vote of several parsers' trees, reparsed.

use super::eval::open;
use super::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::output::Output;
use tabula::parser::ensemble::{ensemble, weights, EnsembleSettings};
use tabula::parser::OptionStyle;

/// Arguments of `tabula ensemble`.
///
/// The files must have the same sentences and words (FORMs) in the same
/// order; the first difference is an error naming the line of each. The
/// output is the first file with HEAD and DEPREL replaced.
#[derive(clap::Args)]
pub struct Args {
    /// Two or more parsed CoNLL-U files of the same text (plain, xz or gzip).
    #[arg(required = true, num_args = 2..)]
    predictions: Vec<PathBuf>,
    /// A weight per file, comma-separated (default: 1 each), e.g. 1,1,1.5:
    /// any positive numbers, summed exactly.
    #[arg(long, value_delimiter = ',', value_name = "W1,W2,…")]
    weights: Option<Vec<f64>>,
    /// Refuse sentences longer than N words (an error naming the line):
    /// reparsing costs n³ time and n² memory.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    max_words: u64,
    /// Output projective trees (the engine with the single-root projective
    /// grammar in max-plus) instead of any tree (the maximum spanning
    /// arborescence, Chu–Liu–Edmonds).
    #[arg(long)]
    projective: bool,
    /// Output file; `-` or nothing: standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let k = args.predictions.len();
    let settings =
        EnsembleSettings { weights: args.weights.clone(), max_words: args.max_words, projective: args.projective };
    // The options first: a bad weight is reported before any file is opened.
    weights(&settings, k, OptionStyle::CommandLine)?;
    if args.predictions.iter().any(|p| p == Path::new("-")) {
        return Err("ensemble reads files, not standard input".into());
    }
    let inputs: Vec<&Path> = args.predictions.iter().map(PathBuf::as_path).collect();
    let mut sink = Output::create_apart(args.output.as_deref(), &inputs)?;
    let mut predictions = Vec::with_capacity(k);
    for p in &args.predictions {
        predictions.push(open(p)?);
    }
    let totals = ensemble(predictions, &settings, OptionStyle::CommandLine, sink.writer())?;
    sink.commit()?;
    let given = args.weights.unwrap_or_else(|| vec![1.0; k]);
    super::say!(
        "{}, {}: {k} files, weights {}, {} trees",
        super::plural(totals.sentences, "sentence"),
        super::plural(totals.words, "word"),
        given.iter().map(f64::to_string).collect::<Vec<_>>().join(","),
        if args.projective { "projective" } else { "any" }
    );
    Ok(ExitCode::SUCCESS)
}
