//! `tabula parse`: fills HEAD and DEPREL of a CoNLL-U file with a trained model.

use super::batches::in_batches;
use super::eval::open;
use super::output::Output;
use super::CliError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tabula::conllu::{RawSentence, Reader};
use tabula::parser::features::FeatureColumns;
use tabula::parser::run::{BlockParser, ConstraintKind, ParsedBlock};
use tabula::parser::{Model, ParserError};
use tabula::tagger::Tagger;

/// Arguments of `tabula parse`.
///
/// Only the HEAD and DEPREL columns of syntactic words change; comments,
/// multiword-token and empty-node lines and every other column are copied
/// byte for byte. The output is the same for every --threads.
#[derive(clap::Args)]
pub struct Args {
    /// The model written by `tabula train`.
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
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    threads: u32,
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
    let mut sink = Output::create_apart(args.output.as_deref(), &inputs)?;
    let model = Model::load(&args.model)?;
    let tagger = args.tagger.as_deref().map(super::tagger::load).transpose()?;
    if let Some(t) = &tagger {
        if model.columns.feats && t.feats.is_none() {
            eprintln!(
                "warning: {} was trained with --feats, {} predicts UPOS only: the input's FEATS are used as they are",
                args.model.display(),
                args.tagger.as_deref().unwrap_or(Path::new("")).display()
            );
        }
        for (read, column) in model.columns.named().into_iter().skip(1) {
            if read {
                eprintln!(
                    "warning: {} was trained with --{}, which the tagger does not predict: the input's {column} is used as it is",
                    args.model.display(),
                    column.to_ascii_lowercase()
                );
            }
        }
    }
    let beam = args.beam.unwrap_or(model.beam) as usize;
    if beam != model.beam as usize {
        eprintln!("{}: trained with a beam of {}, parsing with a beam of {beam}", args.model.display(), model.beam);
    }
    if args.constraints {
        // A model of a system without a partial-tree oracle: said before any input is read.
        BlockParser::constrained_by(&model, beam, args.constraint_kind.into())?;
    }
    let (input, file) = match &args.input {
        Some(p) => open(p)?,
        None => open(Path::new("-"))?,
    };
    let mut reader = Reader::new(input, file.as_str());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads as usize).build()?;
    let start = Instant::now();
    let (mut sentences, mut tokens, mut no_upos, mut blank) = (0u64, 0u64, 0u64, [0u64; 3]);
    let parse = |batch: &[RawSentence]| -> Vec<Result<ParsedBlock, CliError>> {
        batch
            .par_iter()
            .map_init(
                || {
                    let parser = match args.constraints {
                        true => BlockParser::constrained_by(&model, beam, args.constraint_kind.into()),
                        false => Ok(BlockParser::new(&model, beam)),
                    };
                    (parser, tagger.as_ref().map(|t| Tagger::new(t, t.options.decode)))
                },
                |(p, t), raw| {
                    let p = p.as_mut().map_err(|e| ParserError::Io(e.to_string()))?;
                    match t {
                        Some(t) => {
                            let mut text = Vec::with_capacity(raw.text.len() + 16);
                            t.tag_block(raw, &file, &mut text)?;
                            Ok(p.parse(&RawSentence { text, first_line: raw.first_line }, &file)?)
                        }
                        None => Ok(p.parse(raw, &file)?),
                    }
                },
            )
            .collect()
    };
    in_batches(&pool, &mut reader, BATCH, parse, |_, outputs| {
        for o in outputs {
            let parsed = o?;
            sink.writer().write_all(&parsed.bytes)?;
            if parsed.words > 0 {
                sentences += 1;
                tokens += parsed.words as u64;
                no_upos += parsed.no_upos as u64;
                for (sum, b) in blank.iter_mut().zip(parsed.blank) {
                    *sum += b as u64;
                }
            }
        }
        Ok(())
    })?;
    sink.commit()?;
    if no_upos > 0 {
        eprintln!("warning: {file}: {no_upos} of {tokens} words have no UPOS (`_`); the model reads UPOS");
    }
    for ((read, column), blank) in model.columns.named().into_iter().zip(blank) {
        // Some treebanks have no features (or lemmas) at all: a warning, not an error.
        if read && tokens > 0 && blank == tokens {
            eprintln!(
                "warning: {file}: every {column} is `_`, but {} was trained with --{}: if the treebank has \
                 {}, add them first (accuracy suffers without them)",
                args.model.display(),
                column.to_ascii_lowercase(),
                FeatureColumns::content(column)
            );
        }
    }
    if args.stats {
        let s = start.elapsed().as_secs_f64();
        eprintln!(
            "{sentences} sentences, {tokens} tokens in {s:.2} s ({:.0} tokens/s, {} threads)",
            tokens as f64 / s.max(1e-9),
            args.threads
        );
    }
    Ok(ExitCode::SUCCESS)
}
