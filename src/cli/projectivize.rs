//! `tabula projectivize`: optimal projectivization (Nederhof 2019, Sec. 3 and
//! 8.1) or pseudo-projective lifting of a CoNLL-U treebank.

use super::progress::{self, Bars};
use super::CliError;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tabula::conllu::compressed::{decompress, Compression};
use tabula::conllu::{ConlluError, InvalidSentence, RawSentence, Reader, Sentence};
use tabula::grammar::{text, Grammar};
pub(crate) use tabula::output::Output;
use tabula::projectivize::pseudo::{encode_block, EncodedBlock, Scheme};
use tabula::projectivize::{
    lift, FunctionWords, Objective, OptimalProjectivizer, OptimalSampler, PreferringProjectivizer, ProjectivizeError,
    TreeClass, Weights, WordLabels,
};
use tabula::tree::DepTree;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// The projective tree keeping the most gold arcs (Nederhof 2019, Sec. 3).
    Optimal,
    /// Pseudo-projective lifting (Nivre & Nilsson 2005): lift the shortest
    /// non-projective arc to its head's head until the tree is projective.
    Lift,
}

/// What the optimal projectivization maximises first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ObjectiveArg {
    /// The most gold arcs (Nederhof 2019, Sec. 3), then --prefer's score.
    GoldFirst,
    /// The fewest words under function words that may not take them (the UD
    /// validator's leaf-* errors), then the most gold arcs, then --prefer's score.
    ValidFirst,
}

impl From<ObjectiveArg> for Objective {
    fn from(o: ObjectiveArg) -> Self {
        match o {
            ObjectiveArg::GoldFirst => Objective::GoldFirst,
            ObjectiveArg::ValidFirst => Objective::ValidFirst,
        }
    }
}

/// Arguments of `tabula projectivize`.
///
/// Among the optimal trees, `--prefer` picks one with the best secondary
/// score (default: the built-in weights); remaining ties are broken
/// deterministically (the engine's first-choice backtrace, see the library's
/// `projectivize` module); the output is the same for every `--threads`. Sentence positions map to
/// grammar terminals as: every word is `a`; the root is `root` if the grammar
/// has that terminal, else `a`.
#[derive(clap::Args)]
pub struct Args {
    /// Input CoNLL-U file; `-` or nothing reads standard input.
    input: Option<PathBuf>,
    /// Output file; `-` or nothing writes standard output. A regular file is
    /// replaced only when the run succeeds (written to a temporary file in its
    /// directory, then renamed); devices such as /dev/null are written in place.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Method::Optimal)]
    pub(crate) method: Method,
    /// Print trees, non-projective trees, tokens, tokens whose head was kept,
    /// that attachment score, the words under function words that may not take
    /// them (the UD validator's leaf-* errors) in the input and the output, and
    /// the time to standard error.
    #[arg(long)]
    stats: bool,
    /// Worker threads, at most 4 per core (output is identical for every value).
    #[arg(long, default_value_t = 1, value_parser = tabula::limits::parse_threads::<u32>)]
    threads: u32,
    /// A grammar file instead of the built-in Table 3 grammar (optimal only).
    #[arg(long, conflicts_with = "single_root")]
    grammar: Option<PathBuf>,
    /// Use grammars/projective-single-root.grammar: the root gets exactly one child.
    #[arg(long)]
    single_root: bool,
    /// Copy bad sentences unchanged and list them at the end instead of stopping.
    #[arg(long)]
    keep_going: bool,
    /// Draw uniformly among all optimal trees, reproducibly from this seed
    /// (sentence i uses ChaCha8 seeded with SEED, stream i).
    #[arg(long, value_name = "SEED")]
    sample: Option<u64>,
    /// Among the optimal trees, prefer by: `none` (the first-choice
    /// tie-break only), `default` (built-in weights: nearest gold ancestor,
    /// nothing under punct/cc/case/…, see docs/projectivize.md) or a weights
    /// FILE. Optimal only; not with --sample (which draws among all optimal trees).
    #[arg(long, value_name = "none|default|FILE")]
    prefer: Option<PathBuf>,
    /// What a non-projective tree's replacement maximises first: gold-first
    /// (the most gold arcs, then --prefer's score) or valid-first (the
    /// fewest words under function words that may not take them, the UD
    /// validator's leaf-* errors, then the most gold arcs, then --prefer's
    /// score). Projective trees are copied unchanged either way. valid-first
    /// needs --method optimal and --prefer default or a FILE.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::GoldFirst)]
    objective: ObjectiveArg,
    /// Pseudo-projective encoding (Nivre & Nilsson 2005): write into the
    /// DEPREL of every moved word how to find its original head again, in
    /// MaltParser's format (`d|h`: moved, the original head's relation is h;
    /// `d|`: moved; `p%`: on the path to an original head); `tabula
    /// deprojectivize` undoes it. With --stats, also the round trip (encode,
    /// decode) against the input. See docs/projectivize.md.
    #[arg(long, value_name = "head|path|head+path", value_parser = parse_scheme)]
    encode: Option<Scheme>,
    /// Copy sentences longer than N words unchanged (a warning names each,
    /// with its line) instead of projectivizing them: the optimal
    /// projectivization costs n³ time and n² memory (about 10 s for 2,000
    /// words, 540 s and about 5.5 GB for 10,000).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_WORDS, value_parser = clap::value_parser!(u64).range(1..))]
    max_words: u64,
    /// Exit with status 0 even when a non-projective sentence longer than
    /// --max-words was copied unchanged (the output then holds a
    /// non-projective tree); without it that exit status is 1, after the
    /// whole output is written.
    #[arg(long)]
    allow_long: bool,
    /// Also write an HTML page of every changed tree (as `tabula draw IN
    /// OUT` draws it): the input's arcs, dashed where a word moved, and the
    /// output's new arcs in colour.
    #[arg(long, value_name = "PICTURE.html")]
    draw: Option<PathBuf>,
}

/// `head`, `path` or `head+path`.
pub(crate) fn parse_scheme(s: &str) -> Result<Scheme, String> {
    Scheme::from_name(s).ok_or_else(|| format!("`{s}` is not a scheme: expected head, path or head+path"))
}

/// The default of `--max-words`.
const DEFAULT_MAX_WORDS: u64 = 2000;

/// The weights of `--prefer`: `None` for `none`.
pub(crate) fn load_weights(prefer: Option<&Path>) -> Result<Option<Weights>, CliError> {
    match prefer {
        None => Ok(Some(Weights::default())),
        Some(p) if p == Path::new("none") => Ok(None),
        Some(p) if p == Path::new("default") => Ok(Some(Weights::default())),
        Some(p) => {
            let text = tabula::projectivize::read_weights_file(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let weights = Weights::parse(&text).map_err(|errors| {
                errors
                    .0
                    .iter()
                    .map(|e| format!("{}:{}: {}", p.display(), e.line, e.kind))
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
            Ok(Some(weights))
        }
    }
}

/// The built-in or user grammar, and what the fast path may assume of it.
pub(crate) fn load_grammar(path: Option<&Path>, single_root: bool) -> Result<(Grammar, TreeClass), CliError> {
    let (parsed, class) = match path {
        Some(p) => (text::parse_file(p).map_err(|e| e.to_string())?, TreeClass::Unknown),
        None if single_root => (
            text::parse_str("projective-single-root.grammar", tabula::grammars::PROJECTIVE_SINGLE_ROOT)?,
            TreeClass::ProjectiveSingleRoot,
        ),
        None => (text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE)?, TreeClass::Projective),
    };
    for w in &parsed.warnings {
        super::say!("{w}");
    }
    tabula::projectivize::SentenceTerminals::for_grammar(&parsed.grammar)?;
    Ok((parsed.grammar, class))
}

/// An input stream, its name for messages and its size if known.
pub(crate) type Input = (Box<dyn BufRead + Send>, Arc<str>, Option<u64>);

/// Opens a file, or standard input for `-` / nothing, decompressing xz and gzip.
pub(crate) fn open_input(path: Option<&Path>) -> Result<Input, CliError> {
    match path {
        Some(p) if p != Path::new("-") => {
            let f = File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let len = f.metadata().ok().map(|m| m.len());
            let mut reader = BufReader::with_capacity(1 << 16, f);
            let plain = Compression::detect(reader.fill_buf().map_err(|e| format!("{}: {e}", p.display()))?)
                == Compression::None;
            let input = decompress(reader).map_err(|e| format!("{}: {e}", p.display()))?;
            // The progress bar counts decompressed bytes: no total for a compressed file.
            Ok((input, p.display().to_string().into(), len.filter(|_| plain)))
        }
        _ => {
            let input =
                decompress(BufReader::with_capacity(1 << 16, io::stdin())).map_err(|e| format!("<stdin>: {e}"))?;
            Ok((input, "<stdin>".into(), None))
        }
    }
}

/// Per-thread state: one engine chart reused for every sentence.
enum Worker<'g> {
    Optimal(OptimalProjectivizer<'g>),
    Sample(OptimalSampler<'g>, u64),
    Prefer(Box<(PreferringProjectivizer<'g>, WordLabels)>),
    Lift,
}

/// What became of a sentence's tree.
enum Done {
    /// Already in the class: unchanged.
    Kept,
    /// The new tree.
    New(DepTree),
    /// Longer than `--max-words`: copied unchanged.
    TooLong,
}

/// The result for one block: the parsed sentence, what became of its tree
/// and, with `--encode`, the encoded block (`None`: unchanged), or why it
/// could not be processed.
type Outcome = Result<(Sentence, Done, Option<EncodedBlock>), Box<InvalidSentence>>;

/// What every sentence of a run is processed with.
struct Run<'a> {
    file: &'a Arc<str>,
    class: TreeClass,
    encode: Option<Scheme>,
    max_words: u64,
    bars: Option<&'a Bars>,
}

impl Worker<'_> {
    fn process(&mut self, index: u64, raw: RawSentence, run: &Run<'_>) -> Outcome {
        let outcome = self.projectivize(index, raw, run)?;
        let Some(scheme) = run.encode else { return Ok(outcome) };
        let (sentence, done, _) = outcome;
        let tree = match &done {
            Done::New(t) => Some(t),
            Done::Kept => None,
            // Copied unchanged, labels included.
            Done::TooLong => return Ok((sentence, done, None)),
        };
        match encode_block(&sentence, tree, scheme, run.file) {
            Ok(encoded) => Ok((sentence, done, encoded)),
            Err(error) => Err(Box::new(InvalidSentence { error, raw: sentence.into_raw() })),
        }
    }

    fn projectivize(&mut self, index: u64, raw: RawSentence, run: &Run<'_>) -> Outcome {
        let (file, class) = (run.file, run.class);
        let sentence = Sentence::parse(raw, file)?;
        let gold = sentence.tree();
        if class.contains(gold) {
            return Ok((sentence, Done::Kept, None));
        }
        if gold.len() as u64 > run.max_words {
            return Ok((sentence, Done::TooLong, None));
        }
        let place = || format!("{file}:{}", sentence.first_line());
        let result = progress::for_sentence(run.bars, gold.len(), place, || match self {
            Worker::Optimal(p) => p.projectivize_with_engine(gold).map(|p| p.tree),
            Worker::Sample(s, seed) => {
                let mut rng = ChaCha8Rng::seed_from_u64(*seed);
                rng.set_stream(index);
                s.sample(gold, &mut rng).map(|p| p.tree)
            }
            Worker::Prefer(state) => {
                let (p, labels) = &mut **state;
                labels.read_conllu(&sentence.raw().text);
                p.projectivize_with_engine(gold, labels).map(|p| p.tree)
            }
            Worker::Lift => Ok(lift(gold)),
        });
        match result {
            Ok(tree) => Ok((sentence, Done::New(tree), None)),
            Err(e) => Err(engine_error(sentence, file, e)),
        }
    }
}

fn engine_error(sentence: Sentence, file: &Arc<str>, e: ProjectivizeError) -> Box<InvalidSentence> {
    let line = sentence.first_line();
    let error = ConlluError { file: file.clone(), line, kind: tabula::conllu::ErrorKind::Rejected(e.to_string()) };
    Box::new(InvalidSentence { error, raw: sentence.into_raw() })
}

#[derive(Default)]
struct Stats {
    trees: u64,
    nonprojective: u64,
    tokens: u64,
    kept: u64,
    /// Arcs under function words that may not take them, in the input and the output.
    leaf_before: u64,
    leaf_after: u64,
    /// With `--encode`: moved words, and the round trip's counts.
    moved: u64,
    restored: u64,
    nonprojective_arcs: u64,
    nonprojective_restored: u64,
    trees_changed: u64,
    trees_restored: u64,
    off_path: u64,
    off_path_restored: u64,
}

/// Sentences per parallel batch.
const BATCH: usize = 1024;

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let start = Instant::now();
    if args.method == Method::Lift
        && (args.grammar.is_some() || args.single_root || args.sample.is_some() || args.prefer.is_some())
    {
        return Err("--grammar, --single-root, --sample and --prefer apply to --method optimal only".into());
    }
    if args.sample.is_some() && args.prefer.is_some() {
        return Err("--sample draws among all optimal trees; --prefer applies to the deterministic choice".into());
    }
    if args.objective == ObjectiveArg::ValidFirst {
        if args.method == Method::Lift {
            return Err("--objective valid-first applies to --method optimal only: lifting has no objective".into());
        }
        if args.sample.is_some() {
            return Err("--sample draws among all trees keeping the most gold arcs; --objective valid-first applies to the deterministic choice".into());
        }
        if args.prefer.as_deref() == Some(Path::new("none")) {
            return Err("--objective valid-first does nothing with --prefer none (the plain optimal tree); use --prefer default or a weights FILE".into());
        }
    }
    let weights =
        if args.sample.is_some() || args.method == Method::Lift { None } else { load_weights(args.prefer.as_deref())? };
    let (grammar, class) = load_grammar(args.grammar.as_deref(), args.single_root)?;
    let class = if args.method == Method::Lift { TreeClass::Projective } else { class };
    let make_worker = || -> Result<Worker<'_>, CliError> {
        Ok(match (args.method, args.sample) {
            (Method::Lift, _) => Worker::Lift,
            (Method::Optimal, None) => match &weights {
                None => Worker::Optimal(OptimalProjectivizer::new(&grammar, class)?),
                Some(w) => Worker::Prefer(Box::new((
                    PreferringProjectivizer::new(&grammar, class, w.clone())?.with_objective(args.objective.into()),
                    WordLabels::default(),
                ))),
            },
            (Method::Optimal, Some(seed)) => Worker::Sample(OptimalSampler::new(&grammar, class)?, seed),
        })
    };
    make_worker()?; // reports a grammar without the needed terminals before reading
                    // The output first: an unwritable path is reported before any work.
    let inputs = [args.input.as_deref().unwrap_or(Path::new("-"))]
        .into_iter()
        .chain(args.prefer.as_deref().filter(|p| !matches!(p.to_str(), Some("none" | "default"))))
        .chain(args.grammar.as_deref())
        .collect::<Vec<_>>();
    let mut output = Output::create_apart(args.output.as_deref(), &inputs)?;
    let mut moved = match args.draw.as_deref() {
        Some(path) => {
            let mut apart = inputs.clone();
            apart.extend(args.output.as_deref());
            let names = super::draw::names(&[args.input.clone().unwrap_or_else(|| "-".into())]);
            let method = match args.method {
                Method::Optimal => "optimal projectivization",
                Method::Lift => "lifting",
            };
            Some(super::draw::MovedPage::create(path, &apart, names[0].clone(), method.into())?)
        }
        None => None,
    };
    let (input, file, len) = open_input(args.input.as_deref())?;
    let mut reader = Reader::new(input, file.clone());
    let bar = Bars::new(len);
    let mut stats = Stats::default();
    let mut bad: Vec<ConlluError> = Vec::new();
    // Sentences longer than --max-words: (first line, words).
    let mut too_long: Vec<(usize, usize)> = Vec::new();
    let (mut labels, mut function_words) = (WordLabels::default(), FunctionWords::default());

    let mut emit = |outcome: Outcome, out: &mut dyn Write| -> Result<(), CliError> {
        match outcome {
            Ok((sentence, tree, encoded)) => {
                let gold = sentence.tree();
                stats.trees += 1;
                stats.tokens += gold.len() as u64;
                if args.stats {
                    labels.read_conllu(&sentence.raw().text);
                    function_words.read(&labels);
                    let before = function_words.violations(gold) as u64;
                    stats.leaf_before += before;
                    stats.leaf_after += match &tree {
                        Done::New(t) => function_words.violations(t) as u64,
                        Done::Kept | Done::TooLong => before,
                    };
                }
                match tree {
                    Done::Kept => {
                        stats.kept += gold.len() as u64;
                        sentence.write(out)?;
                    }
                    Done::TooLong => {
                        // Not projectivized: neither its tokens nor their heads count.
                        stats.tokens -= gold.len() as u64;
                        too_long.push((sentence.first_line(), gold.len()));
                        sentence.write(out)?;
                    }
                    Done::New(t) => {
                        if let Some(page) = &mut moved {
                            let mut text = Vec::new();
                            match &encoded {
                                Some(e) => text.extend_from_slice(&e.bytes),
                                None => sentence.write_with_heads(&t, &mut text)?,
                            }
                            let changed = RawSentence { text, first_line: sentence.first_line() };
                            page.add(&sentence, stats.trees as usize, changed)?;
                        }
                        stats.kept += gold.common_arcs(&t) as u64;
                        stats.nonprojective += u64::from(!gold.is_projective());
                        match &encoded {
                            Some(e) => {
                                stats.moved += e.moved as u64;
                                stats.restored += e.restored as u64;
                                stats.nonprojective_arcs += e.nonprojective as u64;
                                stats.nonprojective_restored += e.nonprojective_restored as u64;
                                stats.off_path += e.off_path as u64;
                                stats.off_path_restored += e.off_path_restored as u64;
                                stats.trees_changed += u64::from(e.moved > 0);
                                stats.trees_restored += u64::from(e.moved > 0 && e.restored == e.moved);
                                out.write_all(&e.bytes)?;
                            }
                            None => sentence.write_with_heads(&t, out)?,
                        }
                    }
                }
                if let Some(b) = &bar {
                    b.inc(sentence.raw().text.len() as u64);
                }
            }
            Err(invalid) if args.keep_going => {
                out.write_all(&invalid.raw.text)?;
                bad.push(invalid.error);
            }
            Err(invalid) => return Err(invalid.error.into()),
        }
        Ok(())
    };

    let run = Run { file: &file, class, encode: args.encode, max_words: args.max_words, bars: bar.as_ref() };
    if args.threads == 1 {
        let mut worker = make_worker()?;
        let mut index = 0u64;
        while let Some(raw) = reader.next_raw() {
            let outcome = worker.process(index, raw?, &run);
            emit(outcome, output.writer())?;
            index += 1;
        }
    } else {
        // A pipeline over batches: while the pool processes batch i, the
        // next batch is read and the outcomes of batch i − 1 are written.
        // Each pool thread keeps its own worker (and engine chart).
        let threads = args.threads as usize;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        let workers: Vec<Mutex<Worker<'_>>> =
            (0..threads).map(|_| make_worker().map(Mutex::new)).collect::<Result<_, _>>()?;
        let read_batch = |reader: &mut Reader<_>| -> Result<Vec<RawSentence>, ConlluError> {
            let mut batch = Vec::with_capacity(BATCH);
            while batch.len() < BATCH {
                match reader.next_raw() {
                    Some(raw) => batch.push(raw?),
                    None => break,
                }
            }
            Ok(batch)
        };
        let mut batch = read_batch(&mut reader)?;
        let mut pending: Vec<Outcome> = Vec::new();
        let mut index = 0u64;
        while !batch.is_empty() || !pending.is_empty() {
            let base = index;
            index += batch.len() as u64;
            let (outcomes, (next, written)) = pool.install(|| {
                rayon::join(
                    || {
                        batch
                            .into_par_iter()
                            .enumerate()
                            .map(|(i, raw)| {
                                let slot = rayon::current_thread_index().unwrap_or(0) % threads;
                                let mut worker = workers[slot].lock().unwrap_or_else(|e| e.into_inner());
                                worker.process(base + i as u64, raw, &run)
                            })
                            .collect::<Vec<Outcome>>()
                    },
                    || {
                        rayon::join(
                            || read_batch(&mut reader),
                            || pending.drain(..).try_for_each(|o| emit(o, output.writer())),
                        )
                    },
                )
            });
            written?;
            batch = next?;
            pending = outcomes;
        }
    }
    output.commit()?;
    if let Some(page) = moved {
        page.finish()?;
    }
    if let Some(b) = bar {
        b.finish();
    }
    if !too_long.is_empty() {
        super::say!(
            "warning: {} non-projective sentence(s) longer than {} words copied unchanged, not projectivized (--max-words {}):",
            too_long.len(),
            args.max_words,
            args.max_words
        );
        for (line, words) in &too_long {
            super::say!("  {file}:{line}: {words} words");
        }
    }
    if !bad.is_empty() {
        super::say!("warning: {} bad sentence(s) copied unchanged (--keep-going):", bad.len());
        for e in &bad {
            super::say!("  {e}");
        }
    }
    if args.stats {
        super::say!("trees: {}", stats.trees);
        super::say!("non-projective trees: {}", stats.nonprojective + too_long.len() as u64);
        if !too_long.is_empty() {
            super::say!("of which longer than --max-words, copied unchanged: {}", too_long.len());
        }
        let beyond = match too_long.is_empty() {
            true => "",
            false => " (of the trees not copied unchanged)",
        };
        super::say!("tokens{beyond}: {}", stats.tokens);
        super::say!("tokens whose head was kept: {}", stats.kept);
        match stats.tokens {
            0 => super::say!("attachment score: - (no tokens)"),
            t => super::say!("attachment score: {:.4} %", 100.0 * stats.kept as f64 / t as f64),
        }
        super::say!(
            "words under a function word that may not take them (UD, leaf-*): input {}, output {}",
            stats.leaf_before,
            stats.leaf_after
        );
        if let Some(scheme) = args.encode {
            let share = |a: u64, b: u64| if b == 0 { 100.0 } else { 100.0 * a as f64 / b as f64 };
            super::say!("moved words (encoded, {scheme}): {}", stats.moved);
            let rows = [
                ("round trip (encode, decode): moved words restored", stats.restored, stats.moved),
                ("round trip: non-projective arcs restored", stats.nonprojective_restored, stats.nonprojective_arcs),
                (
                    "round trip: moved words whose new head is not an ancestor of the original one restored",
                    stats.off_path_restored,
                    stats.off_path,
                ),
                ("round trip: changed trees restored whole", stats.trees_restored, stats.trees_changed),
            ];
            for (what, restored, of) in rows {
                super::say!("{what} {restored} of {of} ({:.2} %)", share(restored, of));
            }
        }
        super::say!("time: {:.3} s", start.elapsed().as_secs_f64());
    }
    if !too_long.is_empty() && !args.allow_long {
        return Err(format!(
            "{file}: {} non-projective sentence(s) longer than --max-words {} copied unchanged: the output is not all \
             projective (raise --max-words, or accept them with --allow-long)",
            too_long.len(),
            args.max_words
        )
        .into());
    }
    Ok(ExitCode::SUCCESS)
}
