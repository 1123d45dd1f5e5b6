//! `tabula train`: trains the greedy parser with a static or dynamic oracle.

use super::eval::open;
use super::output::Output;
use super::CliError;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use tabula::oracle::{Algorithm, Root, Strategy, System};
use tabula::parser::global::{Search, Update};
use tabula::parser::train::{attachment, read_gold, OracleKind, Projectivize, TrainOptions, Trainer};

fn update_name(u: UpdateArg) -> &'static str {
    match u {
        UpdateArg::Early => "early",
        UpdateArg::MaxViolation => "max-violation",
        UpdateArg::Full => "full",
    }
}

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
    /// K = 8 have a class; projective trees) or attardi (its tabular oracle:
    /// any tree it can build, see --max-gamma).
    #[arg(long, default_value = "arc-hybrid")]
    system: String,
    #[arg(long, value_enum, default_value_t = OracleArg::Dynamic)]
    oracle: OracleArg,
    /// The dynamic oracle's algorithm: auto (linear for projective trees,
    /// cubic otherwise; lr-spine: goldberg; attardi: tabular), linear,
    /// quadratic (arc-standard), cubic, goldberg, tabular [default: auto].
    #[arg(long)]
    algorithm: Option<String>,
    /// The dynamic oracle's strategy (arc-standard): none, lbr, strict-lbr,
    /// rbl. Default: lbr; none for lr-spine and attardi (their oracles score
    /// every computation).
    #[arg(long)]
    strategy: Option<String>,
    /// attardi: the tabular oracle's limit on |γ| (stack and reduced
    /// input); a tree beyond it at the start is left out, a sentence that
    /// goes beyond it later is abandoned for the epoch (both counted)
    /// [default: 48].
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
    /// Also use the FEATS column (morphological features) as features
    /// (off by default: FORM and UPOS only).
    #[arg(long)]
    feats: bool,
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
    if args.oracle == OracleArg::Static {
        for (given, name) in [(args.algorithm.is_some(), "--algorithm"), (args.strategy.is_some(), "--strategy")] {
            if given {
                return Err(format!(
                    "{name} applies to the dynamic oracle (--oracle dynamic); the static oracle follows the canonical computation"
                )
                .into());
            }
        }
    }
    if args.skip_nonprojective {
        if let Some(p) = args.projectivize {
            return Err(format!(
                "--projectivize {}: with --skip-nonprojective no tree is left to projectivize",
                clap::ValueEnum::to_possible_value(&p).map_or(String::new(), |v| v.get_name().to_owned())
            )
            .into());
        }
    }
    let explores = args.oracle == OracleArg::Dynamic && args.beam == 1;
    for (given, name) in [(args.explore_from.is_some(), "--explore-from"), (args.explore_p.is_some(), "--explore-p")] {
        if given && !explores {
            return Err(format!(
                "{name}: exploration is part of greedy training with the dynamic oracle (--oracle dynamic --beam 1); {}",
                if args.beam > 1 { "a beam explores by keeping the wrong hypotheses it scores best" } else { "the static oracle follows the gold computation" }
            )
            .into());
        }
    }
    let explore_from = args.explore_from.unwrap_or(1);
    let explore_p = args.explore_p.unwrap_or(0.9);
    if !(0.0..=1.0).contains(&explore_p) {
        return Err(format!("--explore-p {explore_p} is not a probability").into());
    }
    let search = if args.beam == 1 {
        if let Some(u) = args.update {
            return Err(format!(
                "--update {}: with --beam 1 training is local (an update at every wrong step); global updates need --beam 2 or more",
                update_name(u)
            )
            .into());
        }
        if args.restart {
            return Err(
                "--restart: with --beam 1 training restarts after every update already; it needs --beam 2 or more"
                    .into(),
            );
        }
        Search::Greedy
    } else {
        let update = match args.update.unwrap_or(UpdateArg::Early) {
            UpdateArg::Early => Update::Early,
            UpdateArg::MaxViolation => Update::MaxViolation,
            UpdateArg::Full => Update::Full,
        };
        Search::Beam {
            width: args.beam as usize,
            update,
            restart: args.restart,
            labels: args.beam_labels.map(|m| m as usize),
        }
    };
    let system: System = args.system.parse()?;
    let root: Root = args.root.as_deref().unwrap_or("first").parse()?;
    if !root.offered(system) {
        return Err(format!(
            "--root last: the root in last position is offered for arc-hybrid and arc-eager, not {system}"
        )
        .into());
    }
    if args.max_gamma.is_some() && system != System::Attardi {
        return Err(format!("--max-gamma applies to --system attardi only (its tabular oracle), not {system}").into());
    }
    let max_gamma = args.max_gamma.unwrap_or(tabula::oracle::attardi::tabular::DEFAULT_MAX_GAMMA);
    let algorithm: Algorithm = args.algorithm.as_deref().unwrap_or("auto").parse()?;
    let strategy: Strategy = match &args.strategy {
        Some(s) => s.parse()?,
        None if matches!(system, System::LrSpine | System::Attardi) => Strategy::None,
        None => Strategy::Lbr,
    };
    let oracle = match args.oracle {
        OracleArg::Static => OracleKind::Static,
        OracleArg::Dynamic => OracleKind::Dynamic,
    };
    let projectivize = match args.projectivize.unwrap_or(ProjectivizeArg::Optimal) {
        ProjectivizeArg::None => Projectivize::None,
        ProjectivizeArg::Optimal => Projectivize::Optimal,
        ProjectivizeArg::Lift => Projectivize::Lift,
    };
    let options = TrainOptions {
        system,
        oracle,
        algorithm,
        strategy,
        projectivize,
        skip_nonprojective: args.skip_nonprojective,
        feats: args.feats,
        explore_from,
        explore_p,
        seed: args.seed,
        step_bits: args.step_bits,
        label_bits: args.label_bits,
        max_gamma,
        search,
        root,
        max_words: args.max_words.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    // Opened before any input is read: an unwritable path fails at once.
    let inputs = [Some(&args.train), args.dev.as_ref(), args.init.as_ref()];
    let mut output =
        Output::create_apart(Some(&args.output), &inputs.iter().flatten().map(|p| p.as_path()).collect::<Vec<_>>())?;
    let (input, name) = open(&args.train)?;
    let gold = read_gold(input, &name)?;
    let dev = match &args.dev {
        Some(p) => {
            let (input, name) = open(p)?;
            Some(read_gold(input, &name)?)
        }
        None => None,
    };
    let mut trainer = match &args.init {
        Some(p) => Trainer::from_model(options, gold, &name, tabula::parser::Model::load(p)?)?,
        None => Trainer::new(options, gold, &name)?,
    };
    let p = trainer.prepared().clone();
    if p.too_long > 0 {
        eprintln!(
            "{name}: left out {} sentences longer than {} (--max-words)",
            p.too_long,
            match args.max_words {
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
            p.outside_class, p.too_large, max_gamma
        );
    }
    eprintln!(
        "{name}: {} sentences, {} tokens, {} labels; {} non-projective ({} skipped, {} heads changed); {system}, {}",
        p.sentences,
        p.tokens,
        trainer.labels().len(),
        p.nonprojective,
        p.skipped,
        p.changed_heads,
        match (oracle, search) {
            (OracleKind::Static, Search::Greedy) => "static oracle, greedy".to_owned(),
            (OracleKind::Dynamic, Search::Greedy) => format!(
                "dynamic oracle ({algorithm}), greedy, exploring from epoch {} with p = {explore_p}",
                explore_from + 1
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
    let mut best: Option<(f64, f64, usize, tabula::parser::Model)> = None;
    for e in 1..=args.epochs {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(p.tokens);
            if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
                "epoch {e}/{} {{bar:40}} {{pos}}/{{len}} tokens {{elapsed}} eta {{eta}}",
                args.epochs
            )) {
                b.set_style(style);
            }
            b
        });
        let stats = trainer.epoch(&mut |t| {
            if let Some(b) = &bar {
                b.inc(t);
            }
        })?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let mut line = format!(
            "epoch {e}/{}: {} tokens in {:.2} s ({:.0} tokens/s), ",
            args.epochs,
            stats.tokens,
            stats.seconds,
            stats.tokens as f64 / stats.seconds.max(1e-9),
        );
        match search {
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
        let model = trainer.model();
        let (uas, las) = match &dev {
            Some(d) => {
                let c = attachment(&model, d);
                line.push_str(&format!("; dev UAS {:.2} LAS {:.2}", c.uas(), c.las()));
                (c.uas(), c.las())
            }
            None => (0.0, e as f64),
        };
        let better = best.as_ref().is_none_or(|b| (las, uas) > (b.1, b.0));
        if better {
            if dev.is_some() {
                line.push_str(" (best)");
            }
            best = Some((uas, las, e, model));
        }
        eprintln!("{line}");
    }
    let Some((uas, las, epoch, model)) = best else {
        return Err("--epochs 0: nothing trained".into());
    };
    output.writer().write_all(&model.to_bytes())?;
    output.commit()?;
    if dev.is_some() {
        eprintln!("wrote {} (epoch {epoch}: dev UAS {uas:.2} LAS {las:.2})", args.output.display());
    } else {
        eprintln!("wrote {} (epoch {epoch})", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}
