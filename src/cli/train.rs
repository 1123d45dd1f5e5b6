//! `tabula train`: trains the greedy parser with a static or dynamic oracle.

use super::eval::open;
use super::output::Output;
use super::CliError;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::parser::features::FeatureColumns;
use tabula::parser::global::{Search, Update};
use tabula::parser::run::{train, EpochReport, Observer, OptionStyle, TrainSettings};
use tabula::parser::train::{encode_pseudo_projective, read_gold, OracleKind, Projectivize, TrainOptions, Trainer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OracleArg {
    /// The canonical computation of the gold tree.
    Static,
    /// Exact optimal steps with error exploration (Goldberg & Nivre 2013).
    Dynamic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum UpdateArg {
    /// As soon as no hypothesis of the beam can reach the best tree (Collins & Roark 2004).
    Early,
    /// The prefix pair of largest violation (Huang, Fayong & Guo 2012).
    MaxViolation,
    /// The complete derivations.
    Full,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProjectivizeArg {
    /// Keep non-projective trees (dynamic oracle with --algorithm cubic or
    /// auto only; attardi: static or dynamic, trees outside its class are
    /// left out and counted).
    None,
    /// The projective tree keeping the most gold arcs (Nederhof 2019, Sec. 3).
    Optimal,
    /// Pseudo-projective lifting (Nivre & Nilsson 2005), labels unchanged.
    Lift,
}

/// Arguments of `tabula train`.
///
/// Each epoch visits the training sentences in a random order (from
/// --seed) and prints the training figures and, with --dev, the dev UAS and
/// LAS of the averaged model; the model of the best dev LAS (else the last
/// epoch) is written, atomically, to --output.
#[derive(clap::Args)]
pub struct Args {
    /// Training treebank (CoNLL-U with gold UPOS, HEAD, DEPREL; `-`: standard input).
    train: PathBuf,
    /// Where to write the model.
    #[arg(short, long)]
    output: PathBuf,
    /// Development treebank, scored after every epoch.
    #[arg(long)]
    dev: Option<PathBuf>,
    /// arc-standard, arc-hybrid, arc-eager, lr-spine (spine steps up to
    /// K = 8 have a class; projective trees), attardi (its tabular oracle:
    /// any tree it can build, see --max-gamma) or arc-eager-nm (non-monotonic
    /// arc-eager, Honnibal & Johnson 2015; its exact tabular oracle, any tree).
    #[arg(long, default_value = "arc-hybrid")]
    system: String,
    #[arg(long, value_enum, default_value_t = OracleArg::Dynamic)]
    oracle: OracleArg,
    /// The dynamic oracle's algorithm: auto (linear for projective trees,
    /// cubic otherwise; lr-spine: goldberg; attardi, arc-eager-nm: tabular), linear,
    /// quadratic (arc-standard), cubic, goldberg, tabular [default: auto].
    #[arg(long)]
    algorithm: Option<String>,
    /// The dynamic oracle's strategy (arc-standard): none, lbr, strict-lbr,
    /// rbl. Default: lbr; none for lr-spine and attardi (their oracles score
    /// every computation).
    #[arg(long)]
    strategy: Option<String>,
    /// attardi: the tabular oracle's limit on |γ| (stack and reduced
    /// input; configurations answered by the oracle's bounds run no table
    /// and are never refused); a tree whose check at the start needs a
    /// larger table is left out, a sentence that needs one later is
    /// abandoned for the epoch (both counted) [default: 48].
    #[arg(long)]
    max_gamma: Option<usize>,
    /// Leave out training sentences longer than N words, counted on stderr
    /// [default: 1000, and 200 for a tree whose oracle builds a table at
    /// every configuration: the cubic, goldberg and tabular algorithms,
    /// LR-spine's dynamic oracle, Attardi's oracles; their cost grows as n⁴
    /// or faster per sentence and epoch]. The optimal projectivization
    /// costs n³.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_words: Option<u64>,
    /// What to do with non-projective training trees [default: optimal].
    #[arg(long, value_enum)]
    projectivize: Option<ProjectivizeArg>,
    /// Leave out non-projective training trees (the seeds' "projective subset").
    #[arg(long)]
    skip_nonprojective: bool,
    /// Pseudo-projective parsing (Nivre & Nilsson 2005): the DEPRELs of the
    /// words that --projectivize (optimal or lift) moves encode the move,
    /// as `tabula projectivize --encode` writes them; the model records the
    /// scheme, and `tabula parse` (and the dev scores) decode its output
    /// into non-projective trees with plain DEPRELs.
    #[arg(long, value_name = "head|path|head+path", value_parser = super::projectivize::parse_scheme)]
    pseudo_projective: Option<tabula::projectivize::pseudo::Scheme>,
    /// Train on predicted tags: the UPOS (and, for a tagger trained with
    /// --feats, FEATS) of the training and dev files are replaced by this
    /// tagger's (`tabula train-tagger`), as at parse time with `tabula
    /// parse --tagger`. With --jackknife, the training file is tagged by K
    /// taggers trained the same way on the other folds.
    #[arg(long, value_name = "TAGGER")]
    tagger: Option<PathBuf>,
    /// With --tagger: K-fold tagging of the training file (jackknifing):
    /// each of K contiguous folds is tagged by a tagger trained, with
    /// TAGGER's settings, on the other K − 1, so that the parser trains on
    /// tags as good as those it will see.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(2..=100))]
    jackknife: Option<u32>,
    /// Also use the FEATS column (morphological features) as features
    /// (off by default: FORM and UPOS only).
    #[arg(long)]
    feats: bool,
    /// Also use the LEMMA column as features.
    #[arg(long)]
    lemma: bool,
    /// Also use the XPOS column (the treebank's own tags) as features.
    #[arg(long)]
    xpos: bool,
    #[arg(long, default_value_t = 10)]
    epochs: usize,
    /// Beam width: 1 trains the greedy parser with local updates; K > 1
    /// searches with a beam of K and updates globally, with the exact
    /// global dynamic oracle (or the static one) deciding which
    /// hypotheses can still reach the best tree. The model remembers K as
    /// its default parsing beam.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    beam: u32,
    /// Where the root is: first (before the first word, at the bottom of
    /// the stack) or last (after the last word, the last of the input;
    /// Ballesteros & Nivre 2013). Last: arc-hybrid and arc-eager only.
    #[arg(long, value_name = "first|last")]
    root: Option<String>,
    /// Global update (--beam 2 or more): early, max-violation or full.
    #[arg(long, value_enum)]
    update: Option<UpdateArg>,
    /// After each global update, search again from the positive
    /// hypothesis, so the whole sentence is used (Aufrant et al. 2017;
    /// --beam 2 or more: with --beam 1 every update restarts).
    #[arg(long)]
    restart: bool,
    /// At most M labels per arc step of a hypothesis compete for the beam:
    /// those the model scores highest (--beam 2 or more; default: all).
    /// The structures in the beam are then more varied. Parsing uses the
    /// same limit (it is stored in the model).
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..=tabula::parser::beam::MAX_BEAM_LABELS as i64))]
    beam_labels: Option<u32>,
    /// Epochs that follow the oracle before exploration starts (dynamic
    /// oracle, --beam 1; default 1).
    #[arg(long)]
    explore_from: Option<usize>,
    /// Probability of following the model's step when exploring (dynamic
    /// oracle, --beam 1; default 0.9).
    #[arg(long)]
    explore_p: Option<f64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Keep each gold arc with probability P (0 < P ≤ 1, drawn with
    /// --seed) and train on the partial trees that result, as a treebank
    /// with holes would be (a HEAD `_` in the input is such a hole too).
    /// Partial trees train with the dynamic oracle of arc-standard,
    /// arc-hybrid or arc-eager (their cubic oracles) or arc-eager-nm (its
    /// table).
    #[arg(long, value_name = "P")]
    subsample: Option<f64>,
    /// Continue from this model (a second pass: e.g. static first, then
    /// dynamic); --system and the table sizes must match it.
    #[arg(long, value_name = "MODEL")]
    init: Option<PathBuf>,
    /// log2 of the rows of the step weight table.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=28))]
    step_bits: u32,
    /// log2 of the rows of the label weight table.
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(u32).range(4..=26))]
    label_bits: u32,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let settings = TrainSettings {
        system: args.system.parse()?,
        oracle: match args.oracle {
            OracleArg::Static => OracleKind::Static,
            OracleArg::Dynamic => OracleKind::Dynamic,
        },
        algorithm: args.algorithm.as_deref().map(str::parse).transpose()?,
        strategy: args.strategy.as_deref().map(str::parse).transpose()?,
        max_gamma: args.max_gamma,
        projectivize: args.projectivize.map(|p| match p {
            ProjectivizeArg::None => Projectivize::None,
            ProjectivizeArg::Optimal => Projectivize::Optimal,
            ProjectivizeArg::Lift => Projectivize::Lift,
        }),
        skip_nonprojective: args.skip_nonprojective,
        columns: FeatureColumns { feats: args.feats, lemma: args.lemma, xpos: args.xpos },
        epochs: args.epochs,
        beam: args.beam,
        update: args.update.map(|u| match u {
            UpdateArg::Early => Update::Early,
            UpdateArg::MaxViolation => Update::MaxViolation,
            UpdateArg::Full => Update::Full,
        }),
        restart: args.restart,
        beam_labels: args.beam_labels,
        explore_from: args.explore_from,
        explore_p: args.explore_p,
        seed: args.seed,
        step_bits: args.step_bits,
        label_bits: args.label_bits,
        root: args.root.as_deref().map(str::parse).transpose()?,
        max_words: args.max_words.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        subsample: args.subsample,
    };
    if let Some(scheme) = args.pseudo_projective {
        if args.skip_nonprojective || args.projectivize == Some(ProjectivizeArg::None) {
            return Err(format!(
                "--pseudo-projective {scheme} encodes the moves of --projectivize optimal or lift; {} moves no word",
                if args.skip_nonprojective { "--skip-nonprojective" } else { "--projectivize none" }
            )
            .into());
        }
    }
    let mut options = settings.resolve(OptionStyle::CommandLine)?;
    options.pseudo_projective = args.pseudo_projective;
    // Opened before any input is read: an unwritable path fails at once.
    let inputs = [Some(&args.train), args.dev.as_ref(), args.init.as_ref(), args.tagger.as_ref()];
    let mut output =
        Output::create_apart(Some(&args.output), &inputs.iter().flatten().map(|p| p.as_path()).collect::<Vec<_>>())?;
    if args.jackknife.is_some() && args.tagger.is_none() {
        return Err(
            "--jackknife K tags the training file with taggers trained like --tagger TAGGER: give --tagger".into()
        );
    }
    let tagger = args.tagger.as_deref().map(super::tagger::load).transpose()?;
    let (input, name) = open(&args.train)?;
    let mut gold = match &tagger {
        None => read_gold(input, &name)?,
        Some(t) => {
            let blocks = tabula::tagger::train::read_blocks(input, &name)?;
            let tagged = match args.jackknife {
                Some(k) => {
                    eprintln!(
                        "{name}: {k}-fold tagging with taggers trained like {} ({} epochs, {} decoding)",
                        args.tagger.as_deref().unwrap_or(Path::new("")).display(),
                        t.options.epochs,
                        t.options.decode
                    );
                    tabula::tagger::train::jackknife(&blocks, &name, k as usize, &t.options, &mut |f, trained| {
                        eprintln!("  fold {f}/{k}: tagger trained ({} epochs)", trained.epoch);
                    })?
                }
                None => tag_blocks(t, &blocks, &name)?,
            };
            gold_of(&tagged, &name)?
        }
    };
    let dev = match &args.dev {
        Some(p) => {
            let (input, name) = open(p)?;
            Some(match &tagger {
                None => read_gold(input, &name)?,
                Some(t) => gold_of(&tag_blocks(t, &tabula::tagger::train::read_blocks(input, &name)?, &name)?, &name)?,
            })
        }
        None => None,
    };
    let init = args.init.as_deref().map(tabula::parser::Model::load).transpose()?;
    if let (Some(p), Some(init)) = (&args.init, &init) {
        if init.pseudo_projective != args.pseudo_projective {
            let name = |s: Option<tabula::projectivize::pseudo::Scheme>| s.map_or("none".to_owned(), |s| s.to_string());
            return Err(format!(
                "--init {}: the model was trained with pseudo-projective labels {}, this training asks for {}",
                p.display(),
                name(init.pseudo_projective),
                name(args.pseudo_projective)
            )
            .into());
        }
    }
    if let Some(scheme) = args.pseudo_projective {
        let moved = encode_pseudo_projective(&mut gold, options.projectivize, scheme, &name)?;
        eprintln!("{name}: pseudo-projective ({scheme}): {moved} moved words encoded in their DEPREL");
    }
    let mut printer = Printer { name: &name, epochs: args.epochs, options: options.clone(), tokens: None, bar: None };
    let trained = train(options, args.epochs, gold, &name, dev.as_deref(), init, &mut printer)?;
    output.writer().write_all(&trained.model.to_bytes())?;
    output.commit()?;
    match trained.dev {
        Some(c) => eprintln!(
            "wrote {} (epoch {}: dev UAS {:.2} LAS {:.2})",
            args.output.display(),
            trained.epoch,
            c.uas(),
            c.las()
        ),
        None => eprintln!("wrote {} (epoch {})", args.output.display(), trained.epoch),
    }
    Ok(ExitCode::SUCCESS)
}

/// `blocks` tagged by `tagger` (in parallel on rayon's pool; the same for any number of threads).
fn tag_blocks(
    tagger: &tabula::tagger::TaggerModel,
    blocks: &[tabula::conllu::RawSentence],
    file: &str,
) -> Result<Vec<tabula::conllu::RawSentence>, CliError> {
    use rayon::prelude::*;
    let tagged: Result<Vec<_>, tabula::tagger::TaggerError> = blocks
        .par_iter()
        .map_init(
            || tabula::tagger::Tagger::new(tagger, tagger.options.decode),
            |t, raw| {
                let mut text = Vec::with_capacity(raw.text.len() + 16);
                t.tag_block(raw, file, &mut text)?;
                Ok(tabula::conllu::RawSentence { text, first_line: raw.first_line })
            },
        )
        .collect();
    Ok(tagged?)
}

/// The gold sentences of `blocks` (blocks without words left out).
fn gold_of(
    blocks: &[tabula::conllu::RawSentence],
    file: &str,
) -> Result<Vec<tabula::parser::train::GoldSentence>, CliError> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        out.extend(tabula::parser::train::GoldSentence::from_raw(b, file)?);
    }
    Ok(out)
}

/// Prints the training on standard error: the data, a progress bar per
/// epoch (on a terminal), a line per epoch.
struct Printer<'a> {
    name: &'a str,
    epochs: usize,
    options: TrainOptions,
    /// The tokens of an epoch, on a terminal (else no progress bar).
    tokens: Option<u64>,
    /// The bar of the epoch under way.
    bar: Option<(usize, indicatif::ProgressBar)>,
}

impl Observer for Printer<'_> {
    fn prepared(&mut self, trainer: &Trainer) {
        let (name, o) = (self.name, &self.options);
        let (system, oracle, algorithm, explore_p) = (o.system, o.oracle, o.algorithm, o.explore_p);
        let p = trainer.prepared();
        if p.too_long > 0 {
            eprintln!(
                "{name}: left out {} sentences longer than {} (--max-words)",
                p.too_long,
                match o.max_words {
                    Some(n) => format!("{n} words"),
                    None => format!(
                        "{} words, or {} where the oracle builds a table at every configuration",
                        tabula::parser::train::DEFAULT_MAX_WORDS,
                        tabula::parser::train::DEFAULT_MAX_WORDS_TABLE
                    ),
                }
            );
        }
        if p.outside_class + p.too_large > 0 {
            eprintln!(
                "{name}: left out {} trees {system} cannot build and {} beyond the tabular oracle's limit (--max-gamma {})",
                p.outside_class, p.too_large, o.max_gamma
            );
        }
        let partial = match p.partial {
            0 => String::new(),
            k => format!("{k} partial ({} of their words annotated); ", p.annotated),
        };
        eprintln!(
            "{name}: {} sentences, {} tokens, {} labels; {partial}{} non-projective ({} skipped, {} heads changed); {system}, {}",
            p.sentences,
            p.tokens,
            trainer.labels().len(),
            p.nonprojective,
            p.skipped,
            p.changed_heads,
            match (oracle, o.search) {
                (OracleKind::Static, Search::Greedy) => "static oracle, greedy".to_owned(),
                (OracleKind::Dynamic, Search::Greedy) => format!(
                    "dynamic oracle ({algorithm}), greedy, exploring from epoch {} with p = {explore_p}",
                    o.explore_from + 1
                ),
                (_, Search::Beam { width, update, restart, labels }) => format!(
                    "{} oracle{}, beam {width}{}, {} update{}",
                    if oracle == OracleKind::Static { "static" } else { "global dynamic" },
                    if oracle == OracleKind::Dynamic { format!(" ({algorithm})") } else { String::new() },
                    labels.map_or(String::new(), |m| format!(" ({m} labels per step)")),
                    update.name(),
                    if restart { " with restart" } else { "" }
                ),
            }
        );
        self.tokens = std::io::stderr().is_terminal().then_some(p.tokens);
    }

    fn progress(&mut self, epoch: usize, tokens: u64) {
        let Some(total) = self.tokens else { return };
        if self.bar.as_ref().is_none_or(|(shown, _)| *shown != epoch) {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
                "epoch {epoch}/{} {{bar:40}} {{pos}}/{{len}} tokens {{elapsed}} eta {{eta}}",
                self.epochs
            )) {
                bar.set_style(style);
            }
            self.bar = Some((epoch, bar));
        }
        if let Some((_, bar)) = &self.bar {
            bar.inc(tokens);
        }
    }

    fn epoch(&mut self, report: &EpochReport) {
        if let Some((_, bar)) = self.bar.take() {
            bar.finish_and_clear();
        }
        let stats = &report.stats;
        let mut line = format!(
            "epoch {}/{}: {} tokens in {:.2} s ({:.0} tokens/s), ",
            stats.epoch,
            self.epochs,
            stats.tokens,
            stats.seconds,
            stats.tokens as f64 / stats.seconds.max(1e-9),
        );
        match self.options.search {
            Search::Greedy => line.push_str(&format!(
                "step errors {:.2}%, label errors {}, explored {}",
                100.0 * stats.step_errors as f64 / (stats.configurations.max(1)) as f64,
                stats.label_errors,
                stats.explored
            )),
            Search::Beam { .. } => line.push_str(&format!(
                "{} updates ({:.2} per sentence), {} hypotheses expanded",
                stats.updates,
                stats.updates as f64 / stats.sentences.max(1) as f64,
                stats.configurations
            )),
        }
        if stats.beyond_depth > 0 {
            line.push_str(&format!(", beyond spine depth {}", stats.beyond_depth));
        }
        if stats.abandoned > 0 {
            line.push_str(&format!(", abandoned {} (oracle size limits)", stats.abandoned));
        }
        if let Some(c) = report.dev {
            line.push_str(&format!("; dev UAS {:.2} LAS {:.2}", c.uas(), c.las()));
            if report.best {
                line.push_str(" (best)");
            }
        }
        eprintln!("{line}");
    }
}
