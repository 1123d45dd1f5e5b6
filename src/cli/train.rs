//! `tabula train`: trains the greedy parser with a static or dynamic oracle.

use super::CliError;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use tabula::output::Output;
use tabula::parser::features::FeatureColumns;
use tabula::parser::global::Update;
use tabula::parser::job::{TrainJob, Treebank};
use tabula::parser::run::{EpochReport, Observer, OptionStyle, TrainSettings};
use tabula::parser::train::{OracleKind, Projectivize, Trainer};
use tabula::parser::Model;

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
    /// attardi: the tabular oracle's budget of one call, in pairs of items
    /// its table combines (about 10-20 ns each): a tree whose check at the
    /// start goes past it is left out, a sentence past it later is
    /// abandoned for the epoch (both counted) [default: none].
    #[arg(long)]
    max_pairs: Option<u64>,
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
    /// Training epochs (at most 1000)
    #[arg(long, default_value_t = 10, value_parser = tabula::limits::parse_epochs::<usize>)]
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
        max_pairs: args.max_pairs,
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
        pseudo_projective: args.pseudo_projective,
        jackknife: args.jackknife,
    };
    // Checked, and the output opened, before any input is read: an unwritable path fails at once.
    settings.resolve(OptionStyle::CommandLine)?;
    let inputs = [Some(&args.train), args.dev.as_ref(), args.init.as_ref(), args.tagger.as_ref()];
    let mut output =
        Output::create_apart(Some(&args.output), &inputs.iter().flatten().map(|p| p.as_path()).collect::<Vec<_>>())?;
    let tagger = args.tagger.as_deref().map(super::tagger::load).transpose()?;
    let init =
        args.init.as_deref().map(|p| Ok::<_, CliError>((Model::load(p)?, p.display().to_string()))).transpose()?;
    let job = TrainJob {
        settings,
        tagger: tagger.as_ref().zip(args.tagger.as_deref()).map(|(t, p)| (t, p.display().to_string())),
        init,
    };
    let train = Treebank::open(&args.train)?;
    let dev = args.dev.as_deref().map(Treebank::open).transpose()?;
    let mut printer = Printer { epochs: args.epochs, tokens: None, bar: None };
    let trained = job.run(train, dev, OptionStyle::CommandLine, &mut printer)?;
    output.writer().write_all(&trained.model.to_bytes())?;
    output.commit()?;
    match trained.dev {
        Some(c) => super::say!(
            "wrote {} (epoch {}: dev UAS {:.2} LAS {:.2})",
            args.output.display(),
            trained.epoch,
            c.uas(),
            c.las()
        ),
        None => super::say!("wrote {} (epoch {})", args.output.display(), trained.epoch),
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the training on standard error: the job's notes, a progress bar
/// per epoch (on a terminal), a line per epoch.
struct Printer {
    epochs: usize,
    /// The tokens of an epoch, on a terminal (else no progress bar).
    tokens: Option<u64>,
    /// The bar of the epoch under way.
    bar: Option<(usize, indicatif::ProgressBar)>,
}

impl Observer for Printer {
    fn prepared(&mut self, trainer: &Trainer) {
        self.tokens = std::io::stderr().is_terminal().then_some(trainer.prepared().tokens);
    }

    fn note(&mut self, text: &str) {
        super::say!("{text}");
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
        super::say!("{}", report.text);
    }
}
