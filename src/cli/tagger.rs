//! `tabula train-tagger` and `tabula tag`: the built-in UPOS (and FEATS) tagger.

use super::batches::in_batches;
use super::eval::open;
use super::CliError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tabula::conllu::{RawSentence, Reader};
use tabula::output::Output;
use tabula::parser::OptionStyle;
use tabula::tagger::settings::TaggerSettings;
use tabula::tagger::train::{compare, read_blocks, sentences, train, Accuracy};
use tabula::tagger::{Decode, Direction, Tagger, TaggerError, TaggerModel, TaggerOptions};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DecodeArg {
    /// Left to right, each word's best tag after the tags chosen before it.
    Greedy,
    /// The best tag sequence (second-order Viterbi): slower.
    Viterbi,
}

impl From<DecodeArg> for Decode {
    fn from(d: DecodeArg) -> Decode {
        match d {
            DecodeArg::Greedy => Decode::Greedy,
            DecodeArg::Viterbi => Decode::Viterbi,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DirectionArg {
    /// The tags of the two previous words are the history.
    LeftToRight,
    /// The same features on the reversed sentence: the tags of the two following words are the history.
    RightToLeft,
    /// A table for each direction, each greedy with its own history; the sum of their scores picks each tag (greedy only; the right-to-left table trains for --epochs as well; training takes about twice as long, tagging about 1.5 times).
    Both,
}

impl From<DirectionArg> for Direction {
    fn from(d: DirectionArg) -> Direction {
        match d {
            DirectionArg::LeftToRight => Direction::LeftToRight,
            DirectionArg::RightToLeft => Direction::RightToLeft,
            DirectionArg::Both => Direction::Both,
        }
    }
}

/// Arguments of `tabula train-tagger`.
///
/// Each epoch visits the training sentences in a random order (from
/// --seed) and prints the training errors and, with --dev, the dev
/// accuracy of the averaged model; the model of the best dev UPOS accuracy
/// (else the last epoch) is written, atomically, to --output.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// Training treebank (CoNLL-U with gold UPOS, and FEATS with --feats; `-`: standard input).
    train: PathBuf,
    /// Where to write the tagger.
    #[arg(short, long)]
    output: PathBuf,
    /// Development treebank, scored after every epoch.
    #[arg(long)]
    dev: Option<PathBuf>,
    /// How training decodes, and `tabula tag`'s default.
    #[arg(long, value_enum, default_value_t = DecodeArg::Greedy)]
    decode: DecodeArg,
    /// Also predict the FEATS column (one choice per attribute).
    #[arg(long)]
    feats: bool,
    /// Training epochs (at most 1000)
    #[arg(long, default_value_t = 10, value_parser = tabula::limits::parse_epochs::<u32>)]
    epochs: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// 2: a second left-to-right pass that also reads the first pass's tags
    /// of the word and the two after it (trained on the first pass's
    /// 5-fold jackknifed tags, for --epochs as well; tagging takes twice as long).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=2))]
    passes: u32,
    /// The order in which the (first) pass reads a sentence.
    #[arg(long, value_enum, default_value_t = DirectionArg::LeftToRight)]
    direction: DirectionArg,
    /// Each weight table the sum of N averaged perceptrons trained alike on
    /// N sentence orders (seeds --seed, --seed + 1, …): training takes N times
    /// as long, tagging as long as with one.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    ensemble: u32,
    /// log2 of the rows of the weight table.
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(u32).range(4..=26))]
    bits: u32,
    /// The tag dictionary takes the words seen at least N times [default: 20] …
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    dictionary_min_count: Option<u32>,
    /// … with one tag at least this share of the times (above 0.5, at most 1;
    /// a value above 1 turns the dictionary off).
    #[arg(long, value_name = "SHARE", default_value_t = 0.97)]
    dictionary_min_share: f64,
    /// Worker threads for the dev scores (at most 4 per core; with --dev) [default: 1].
    #[arg(long, value_parser = tabula::limits::parse_threads::<u32>)]
    threads: Option<u32>,
}

/// The training options of a `tabula train-tagger` command line, checked
/// by the library (as `Tagger.train`'s from Python).
fn options(a: &TrainArgs) -> Result<TaggerOptions, CliError> {
    let settings = TaggerSettings {
        epochs: a.epochs,
        seed: a.seed,
        bits: a.bits,
        decode: a.decode.into(),
        feats: a.feats,
        passes: a.passes,
        dictionary_min_count: a.dictionary_min_count,
        dictionary_min_share: a.dictionary_min_share,
        direction: a.direction.into(),
        ensemble: a.ensemble,
    };
    Ok(settings.resolve(OptionStyle::CommandLine)?)
}

/// Reads the sentences of a CoNLL-U file.
fn read(path: &Path) -> Result<(Vec<tabula::tagger::train::TaggedSentence>, String), CliError> {
    let (input, name) = open(path)?;
    let blocks = read_blocks(input, &name)?;
    Ok((sentences(&blocks, &name)?, name))
}

pub fn run_train(args: TrainArgs) -> Result<ExitCode, CliError> {
    let options = options(&args)?;
    if let (Some(t), None) = (args.threads, &args.dev) {
        return Err(format!("--threads {t}: the threads score the dev file (--dev DEV), and none is given").into());
    }
    if args.train == Path::new("-") && args.dev.as_deref() == Some(Path::new("-")) {
        return Err("only one of TRAIN and --dev can be standard input".into());
    }
    let inputs = [Some(&args.train), args.dev.as_ref()];
    let mut output =
        Output::create_apart(Some(&args.output), &inputs.iter().flatten().map(|p| p.as_path()).collect::<Vec<_>>())?;
    let (data, name) = read(&args.train)?;
    let dev = args.dev.as_deref().map(read).transpose()?;
    let words: usize = data.iter().map(|s| s.forms.len()).sum();
    super::say!(
        "{name}: {}, {}; {} decoding, 2^{} rows{}",
        super::plural(data.len(), "sentence"),
        super::plural(words, "word"),
        options.decode,
        options.bits,
        if options.feats { ", UPOS and FEATS" } else { ", UPOS" }
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(1) as usize).build()?;
    let feats = options.feats;
    let start = Instant::now();
    let trained = pool.install(|| {
        train(&options, &data, &name, dev.as_ref().map(|(d, _)| d.as_slice()), &mut |r| {
            super::say!("{} ({:.1} s)", r.text(feats), start.elapsed().as_secs_f64());
        })
    })?;
    output.writer().write_all(&trained.model.to_bytes())?;
    output.commit()?;
    let dev = trained.dev.map_or(String::new(), |a| format!(": dev {}", a.text(feats)));
    super::say!(
        "wrote {} (epoch {}{}{}{dev}; {} tags, {} words in the tag dictionary)",
        args.output.display(),
        trained.epoch,
        if trained.model.backward().is_some() {
            format!(", right-to-left epoch {}", trained.model.options.backward_epochs)
        } else {
            String::new()
        },
        trained.model.options.second_pass.map_or(String::new(), |e| format!(", second pass epoch {e}")),
        trained.model.tags.len(),
        trained.dictionary
    );
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `tabula tag`.
///
/// Only the UPOS column (and FEATS, for a tagger trained with --feats) of
/// syntactic words changes; every other byte is copied. The output is the
/// same for every --threads.
#[derive(clap::Args)]
pub struct TagArgs {
    /// The tagger written by `tabula train-tagger`.
    #[arg(long)]
    tagger: PathBuf,
    /// Input CoNLL-U file (FORM is read); `-` or nothing: standard input.
    input: Option<PathBuf>,
    /// Output file; `-` or nothing: standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Decoding [default: the tagger's, as trained].
    #[arg(long, value_enum)]
    decode: Option<DecodeArg>,
    /// The input has gold UPOS (and FEATS): print the accuracy of the
    /// predicted tags against them to standard error.
    #[arg(long)]
    eval: bool,
    /// Worker threads (at most 4 per core).
    #[arg(long, default_value_t = 1, value_parser = tabula::limits::parse_threads::<u32>)]
    threads: u32,
    /// Print sentences, tokens and tokens/s to standard error.
    #[arg(long)]
    stats: bool,
}

/// Sentences per parallel batch.
const BATCH: usize = 4096;

/// Loads a tagger, naming the file in errors.
pub fn load(path: &Path) -> Result<TaggerModel, CliError> {
    Ok(TaggerModel::load(path)?)
}

pub fn run_tag(args: TagArgs) -> Result<ExitCode, CliError> {
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let mut sink = Output::create_apart(args.output.as_deref(), &[input, &args.tagger])?;
    let model = load(&args.tagger)?;
    let decode = args.decode.map_or(model.options.decode, Decode::from);
    model.check_decode(decode, OptionStyle::CommandLine).map_err(|e| format!("{}: {e}", args.tagger.display()))?;
    let (reader_input, file) = open(input)?;
    let mut reader = Reader::new(reader_input, file.as_str());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads as usize).build()?;
    let start = Instant::now();
    let (mut sentences, mut tokens) = (0u64, 0u64);
    let mut total = Accuracy::default();
    let tag = |batch: &[RawSentence]| -> Vec<Result<(Vec<u8>, usize), TaggerError>> {
        batch
            .par_iter()
            .map_init(
                || Tagger::new(&model, decode),
                |t, raw| {
                    let mut out = Vec::with_capacity(raw.text.len() + 16);
                    t.tag_block(raw, &file, &mut out).map(|n| (out, n))
                },
            )
            .collect()
    };
    in_batches(&pool, &mut reader, BATCH, tag, |batch, outputs| {
        if args.eval {
            let gold = tabula::tagger::train::sentences(&batch, &file)?;
            let tagged: Vec<RawSentence> = outputs
                .iter()
                .zip(&batch)
                .filter_map(|(o, raw)| {
                    o.as_ref().ok().map(|(t, _)| RawSentence { text: t.clone(), first_line: raw.first_line })
                })
                .collect();
            let predicted = tabula::tagger::train::sentences(&tagged, &file)?;
            total = total + compare(&gold, &predicted, model.feats.is_some());
        }
        for o in outputs {
            let (bytes, words) = o?;
            sink.writer().write_all(&bytes)?;
            if words > 0 {
                sentences += 1;
                tokens += words as u64;
            }
        }
        Ok(())
    })?;
    sink.commit()?;
    let seconds = start.elapsed().as_secs_f64();
    if args.eval {
        super::say!("{file}: {}: {}", super::plural(total.words, "word"), total.text(model.feats.is_some()));
    }
    if args.stats {
        super::say!(
            "{}, {} in {seconds:.2} s ({:.0} tokens/s, {} threads, {decode})",
            super::plural(sentences, "sentence"),
            super::plural(tokens, "token"),
            tokens as f64 / seconds.max(1e-9),
            args.threads
        );
    }
    Ok(ExitCode::SUCCESS)
}
