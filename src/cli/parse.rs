//! `tabula parse`: fills HEAD and DEPREL of a CoNLL-U file with a trained model.

use super::batches::in_batches;
use super::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tabula::conllu::{RawSentence, Reader};
use tabula::output::Output;
use tabula::parser::features::FeatureColumns;
#[cfg(feature = "onnx")]
use tabula::parser::job::tagger_notices;
use tabula::parser::job::{open, ParseJob, ParseSettings, ParseTotals};
use tabula::parser::run::{ConstraintKind, ParsedBlock};
use tabula::parser::{Model, OptionStyle};

/// Arguments of `tabula parse`.
///
/// Only the HEAD and DEPREL columns of syntactic words change; comments,
/// multiword-token and empty-node lines and every other column are copied
/// byte for byte. The output is the same for every --threads.
#[derive(clap::Args)]
pub struct Args {
    /// The model written by `tabula train`, or a neural model exported to
    /// ONNX (`python -m tabula_parsing.neural export`; a name ending in
    /// `.onnx`), run without Python.
    #[arg(long)]
    model: PathBuf,
    /// Input CoNLL-U file (FORM and UPOS are read); `-` or nothing: standard input.
    input: Option<PathBuf>,
    /// Output file (a regular file is written to a temporary file renamed at the end; devices
    /// and FIFOs are written in place); `-` or nothing: standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Tag first with this tagger (written by `tabula train-tagger`): UPOS
    /// (and FEATS, for a tagger trained with --feats) are replaced by its
    /// tags before parsing, so the input needs FORM only; the output keeps
    /// the predicted tags.
    #[arg(long)]
    tagger: Option<PathBuf>,
    /// Beam width (1: greedy). Default: the width the model was trained
    /// with; another width is allowed and noted on standard error.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    beam: Option<u32>,
    /// Keep the arcs the input already has: a word's HEAD, and its DEPREL
    /// unless `_`, wherever the model's system can build them together
    /// (as many of them as any of its trees can keep); a HEAD `_` is left
    /// to the parser. Arc-standard, arc-hybrid and arc-eager models.
    #[arg(long)]
    constraints: bool,
    /// What --constraints keeps: `arcs` (HEAD and DEPREL), or `direction`:
    /// only whether each word's head is before it, after it or the root
    /// (HEAD 0), whichever word it is, as many as the system can satisfy
    /// together; DEPREL is not read.
    #[arg(long, value_enum, requires = "constraints", default_value_t = KindArg::Arcs)]
    constraint_kind: KindArg,
    /// Worker threads (at most 4 per core).
    #[arg(long, default_value_t = 1, value_parser = tabula::limits::parse_threads::<u32>)]
    threads: u32,
    /// Refuse sentences longer than N words (an error naming the line, as
    /// `ensemble` does): a bound on the time and memory of one sentence.
    #[arg(long, value_name = "N", default_value_t = tabula::parser::job::DEFAULT_PARSE_MAX_WORDS)]
    max_words: usize,
    /// Print sentences, tokens and tokens/s to standard error.
    #[arg(long)]
    stats: bool,
}

/// Sentences per parallel batch.
const BATCH: usize = 2048;

/// `--constraint-kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// Each word's HEAD, and its DEPREL unless `_`.
    Arcs,
    /// Only the side of each word's head (before, after, the root).
    Direction,
}

impl From<KindArg> for ConstraintKind {
    fn from(k: KindArg) -> ConstraintKind {
        match k {
            KindArg::Arcs => ConstraintKind::Arcs,
            KindArg::Direction => ConstraintKind::Direction,
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // The output is checked (and opened) before any input is read.
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let mut inputs = vec![input, args.model.as_path()];
    inputs.extend(args.tagger.as_deref());
    #[cfg(feature = "onnx")]
    if tabula::neural::is_onnx(&args.model) {
        return run_onnx(&args, input, &inputs);
    }
    #[cfg(not(feature = "onnx"))]
    if args.model.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx")) {
        return Err(format!(
            "{}: a neural model in ONNX is parsed by a tabula built with the `onnx` feature \
             (cargo build --release --features onnx), which this one was not",
            tabula::shown::shown(&args.model.display().to_string())
        )
        .into());
    }
    let sink = Output::create_apart(args.output.as_deref(), &inputs)?;
    let model = Model::load(&args.model)?;
    let tagger = args.tagger.as_deref().map(super::tagger::load).transpose()?;
    let settings = settings(&args);
    let model_name = args.model.display().to_string();
    let tagger_name = args.tagger.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
    let (job, notices) = ParseJob::new(
        &settings,
        &model,
        &model_name,
        tagger.as_ref().map(|t| (t, tagger_name.as_str())),
        OptionStyle::CommandLine,
    )?;
    for n in notices {
        super::say!("{}{}", if n.warning { "warning: " } else { "" }, n.text);
    }
    let start = Instant::now();
    let (totals, file) = parse_all(input, args.threads, sink, |batch, file| job.parse_batch(batch, file))?;
    report(&totals, &file, model.columns, &model_name, &args, start);
    Ok(ExitCode::SUCCESS)
}

/// `input` read in batches and parsed by `parse` on `threads` threads, the
/// blocks written to `sink` in input order and committed; the totals and
/// the input's name.
fn parse_all<E>(
    input: &Path,
    threads: u32,
    mut sink: Output,
    parse: impl Fn(&[RawSentence], &str) -> Vec<Result<ParsedBlock, E>> + Sync,
) -> Result<(ParseTotals, String), CliError>
where
    E: Send,
    CliError: From<E>,
{
    let (input, file) = open(input)?;
    let mut reader = Reader::new(input, file.as_str());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads as usize).build()?;
    let mut totals = ParseTotals::default();
    in_batches(
        &pool,
        &mut reader,
        BATCH,
        |batch| parse(batch, &file),
        |_, outputs| {
            for o in outputs {
                let parsed = o?;
                sink.writer().write_all(&parsed.bytes)?;
                totals.add(&parsed);
            }
            Ok(())
        },
    )?;
    sink.commit()?;
    Ok((totals, file))
}

/// The parsing settings the options give.
fn settings(args: &Args) -> ParseSettings {
    ParseSettings {
        beam: args.beam,
        constraints: args.constraints,
        constraint_kind: args.constraint_kind.into(),
        threads: args.threads,
        max_words: args.max_words,
    }
}

/// After the output is complete: the input's warnings, and with `--stats`
/// the speed.
fn report(totals: &ParseTotals, file: &str, columns: FeatureColumns, model_name: &str, args: &Args, start: Instant) {
    for w in totals.warnings(Some(file), columns, model_name, OptionStyle::CommandLine) {
        super::say!("warning: {w}");
    }
    if args.stats {
        let s = start.elapsed().as_secs_f64();
        super::say!(
            "{} sentences, {} tokens in {s:.2} s ({:.0} tokens/s, {} threads)",
            totals.sentences,
            totals.tokens,
            totals.tokens as f64 / s.max(1e-9),
            args.threads
        );
    }
}

/// `tabula parse` with a neural model exported to ONNX: the options of the
/// perceptron's search are refused, the others as for any model.
#[cfg(feature = "onnx")]
fn run_onnx(args: &Args, input: &Path, inputs: &[&Path]) -> Result<ExitCode, CliError> {
    use tabula::neural::OnnxModel;
    let name = args.model.display().to_string();
    let refuse = |option: &str, why: &str| -> Result<ExitCode, CliError> {
        Err(format!("{option} has no effect with a neural model ({name}): {why}").into())
    };
    if let Some(b) = args.beam {
        return refuse(
            &format!("--beam {b}"),
            "it decodes as the Python parser does: the best tree of its class (biaffine), or greedy steps (transition)",
        );
    }
    if args.constraints {
        return refuse("--constraints", "the neural parser keeps no arcs of the input");
    }
    settings(args).check(OptionStyle::CommandLine)?;
    let sink = Output::create_apart(args.output.as_deref(), inputs)?;
    let model = OnnxModel::load(&args.model)?;
    let tagger = args.tagger.as_deref().map(super::tagger::load).transpose()?;
    if let Some(t) = &tagger {
        let tagger_name = args.tagger.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
        for n in tagger_notices(model.columns(), &name, t, &tagger_name, OptionStyle::CommandLine) {
            super::say!("warning: {}", n.text);
        }
    }
    let start = Instant::now();
    let (tagger, max_words) = (tagger.as_ref(), args.max_words);
    let (totals, file) =
        parse_all(input, args.threads, sink, |batch, file| model.parse_batch(batch, file, tagger, max_words))?;
    report(&totals, &file, model.columns(), &name, args, start);
    Ok(ExitCode::SUCCESS)
}
