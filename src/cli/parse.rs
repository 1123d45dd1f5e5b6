//! `tabula parse`: fills HEAD and DEPREL of a CoNLL-U file with a trained model.

use super::eval::open;
use super::output::Output;
use super::CliError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tabula::conllu::{RawSentence, Reader};
use tabula::parser::columns::Columns;
use tabula::parser::features::Tokens;
use tabula::parser::{AnyParser, Model, ParserError};

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
    /// Beam width (1: greedy). Default: the width the model was trained
    /// with; another width is allowed and noted on standard error.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    beam: Option<u32>,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    threads: u32,
    /// Print sentences, tokens and tokens/s to standard error.
    #[arg(long)]
    stats: bool,
}

/// Sentences per parallel batch.
const BATCH: usize = 2048;

/// Per-thread state.
struct Worker<'m> {
    parser: AnyParser<'m>,
    tokens: Tokens,
    labels: Vec<&'m str>,
}

impl<'m> Worker<'m> {
    /// The output bytes of one block.
    fn process(&mut self, model: &'m Model, raw: &RawSentence, file: &str) -> Result<(Vec<u8>, usize), ParserError> {
        let cols = Columns::scan(raw, file)?;
        if cols.is_empty() {
            return Ok((raw.text.clone(), 0));
        }
        self.tokens.fill(&raw.text, &cols);
        let (heads, labels) = self.parser.parse(&self.tokens);
        self.labels.clear();
        self.labels.extend(labels.iter().map(|&l| model.labels.get(l as usize).map_or("_", String::as_str)));
        let mut out = Vec::with_capacity(raw.text.len() + 16);
        cols.write_with(&raw.text, heads, &self.labels, &mut out).map_err(|e| ParserError::Io(e.to_string()))?;
        Ok((out, cols.len()))
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // The output is checked (and opened) before any input is read.
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let mut sink = Output::create_apart(args.output.as_deref(), &[input, &args.model])?;
    let model = Model::load(&args.model)?;
    let beam = args.beam.unwrap_or(model.beam) as usize;
    if beam != model.beam as usize {
        eprintln!("{}: trained with a beam of {}, parsing with a beam of {beam}", args.model.display(), model.beam);
    }
    let (input, file) = match &args.input {
        Some(p) => open(p)?,
        None => open(Path::new("-"))?,
    };
    let mut reader = Reader::new(input, file.as_str());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads as usize).build()?;
    let start = Instant::now();
    let (mut sentences, mut tokens) = (0u64, 0u64);
    let mut batch: Vec<RawSentence> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        while batch.len() < BATCH {
            match reader.next_raw() {
                Some(Ok(raw)) => batch.push(raw),
                Some(Err(e)) => return Err(e.into()),
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let outputs: Vec<Result<(Vec<u8>, usize), ParserError>> = pool.install(|| {
            batch
                .par_iter()
                .map_init(
                    || Worker { parser: AnyParser::new(&model, beam), tokens: Tokens::default(), labels: Vec::new() },
                    |w, raw| w.process(&model, raw, &file),
                )
                .collect()
        });
        let out = sink.writer();
        for o in outputs {
            let (bytes, n) = o?;
            out.write_all(&bytes)?;
            if n > 0 {
                sentences += 1;
                tokens += n as u64;
            }
        }
    }
    sink.commit()?;
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
