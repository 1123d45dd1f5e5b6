//! `tabula parse`: fills HEAD and DEPREL of a CoNLL-U file with a trained model.

use super::eval::open;
use super::CliError;
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tabula::conllu::{RawSentence, Reader};
use tabula::parser::columns::Columns;
use tabula::parser::features::Tokens;
use tabula::parser::{Model, Parser, ParserError};

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
    /// Output file (written to a temporary file renamed at the end); `-` or nothing: standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    threads: u32,
    /// Print sentences, tokens and tokens/s to standard error.
    #[arg(long)]
    stats: bool,
}

/// Sentences per parallel batch.
const BATCH: usize = 2048;

/// A file written under a temporary name and renamed at the end (deleted if
/// dropped before), or standard output.
enum Sink {
    Stdout(BufWriter<io::Stdout>),
    File { writer: Option<BufWriter<File>>, temp: PathBuf, target: PathBuf },
}

impl Sink {
    fn create(path: Option<&Path>) -> Result<Sink, CliError> {
        match path {
            Some(p) if p != Path::new("-") => {
                let name = p.file_name().ok_or_else(|| format!("{}: not a file name", p.display()))?;
                let mut temp_name = std::ffi::OsString::from(".");
                temp_name.push(name);
                temp_name.push(format!(".tabula-{}.tmp", std::process::id()));
                let temp = p.with_file_name(temp_name);
                let f = File::create(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
                Ok(Sink::File { writer: Some(BufWriter::with_capacity(1 << 16, f)), temp, target: p.to_path_buf() })
            }
            _ => Ok(Sink::Stdout(BufWriter::with_capacity(1 << 16, io::stdout()))),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Stdout(w) => w,
            Sink::File { writer, .. } => writer.as_mut().expect("open"),
        }
    }

    fn commit(mut self) -> Result<(), CliError> {
        match &mut self {
            Sink::Stdout(w) => w.flush()?,
            Sink::File { writer, temp, target } => {
                let w = writer.take().expect("open");
                w.into_inner().map_err(|e| format!("{}: {}", temp.display(), e.error()))?;
                std::fs::rename(&*temp, &*target).map_err(|e| format!("{}: {e}", target.display()))?;
            }
        }
        Ok(())
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::File { writer: Some(_), temp, .. } = self {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Per-thread state.
struct Worker<'m> {
    parser: Parser<'m>,
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
        self.parser.parse(&self.tokens);
        self.labels.clear();
        self.labels
            .extend(self.parser.labels.iter().map(|&l| model.labels.get(l as usize).map_or("_", String::as_str)));
        let mut out = Vec::with_capacity(raw.text.len() + 16);
        cols.write_with(&raw.text, &self.parser.heads, &self.labels, &mut out)
            .map_err(|e| ParserError::Io(e.to_string()))?;
        Ok((out, cols.len()))
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let model = Model::load(&args.model)?;
    let (input, file) = match &args.input {
        Some(p) => open(p)?,
        None => open(Path::new("-"))?,
    };
    let mut reader = Reader::new(input, file.as_str());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads as usize).build()?;
    let mut sink = Sink::create(args.output.as_deref())?;
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
                    || Worker { parser: Parser::new(&model), tokens: Tokens::default(), labels: Vec::new() },
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
