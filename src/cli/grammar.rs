//! `tabula grammar check FILE` and `tabula grammar parse FILE --input …`.
//!
//! Grammar errors and warnings go to stderr in the diagnostic format of
//! [`tabula::grammar::text`]; results go to stdout, the value alone on the
//! last line.

use super::plural;
use super::CliError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::engine::Parser;
use tabula::grammar::text::{self, GrammarFileError};
use tabula::grammar::weights::{read_weights, WeightsError};
use tabula::grammar::Grammar;
use tabula::output::Output;
use tabula::semiring::{Boolean, Count, MaxPlus, Semiring};

/// The subcommands of `tabula grammar`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Check a grammar file: a one-line summary on stdout (warnings on
    /// stderr) and exit 0, or every error on stderr and exit 1.
    #[command(after_help = "\
Input: a grammar file (format: README, \"Grammar files\"; examples in grammars/).
Errors are printed as FILE:LINE:COLUMN: error: message, with the line and a caret.

Example:
  $ tabula grammar check grammars/projective.grammar
  grammars/projective.grammar: ok — 1 terminal, 1 category, 1 left state, 1 right state, 4 rules")]
    Check {
        /// The grammar file.
        file: PathBuf,
    },
    /// Parse a terminal string with a grammar; the value is printed alone on
    /// the last line of stdout.
    #[command(after_help = "\
Output: one line: the count (an exact integer), the best score (an integer or -inf),
true/false, or for `best` the heads of positions 1 ... n separated by spaces.

Example:
  $ tabula grammar parse grammars/projective.grammar --input \"a a a\" --semiring count
  3")]
    Parse(ParseArgs),
}

/// Arguments of `tabula grammar parse`.
#[derive(clap::Args)]
pub struct ParseArgs {
    /// The grammar file.
    file: PathBuf,
    /// The terminals a0 a1 … an, separated by spaces; a0 is the root, e.g. "p p s s".
    #[arg(long)]
    input: String,
    /// What to compute.
    #[arg(long, value_enum, default_value_t = SemiringArg::Count)]
    semiring: SemiringArg,
    /// Arc weights, only with `--semiring max` or `best`.
    ///
    /// A file with an (n+1)×(n+1) matrix, n+1 being the number of input
    /// terminals: one row per line (blank lines are skipped), entries
    /// separated by whitespace, each an integer (32 bits) or `-inf`.
    /// Row = head, column = dependent, positions 0 … n as in --input; the
    /// diagonal is ignored but must be present. Without --weights every arc
    /// weighs 0, so `max` is 0 when there is a derivation. (`count` and `bool`
    /// take no weights: every arc has weight one.)
    /// With the distribution's semirings (log-partition, marginals,
    /// entropy, kbest, sample), the entries are real arc scores (or
    /// `-inf`) and a tree's probability is proportional to the exponential
    /// of its total score; without --weights every score is 0 (every
    /// derivation equally likely).
    #[arg(long, value_name = "MATRIX", verbatim_doc_comment)]
    weights: Option<PathBuf>,
    /// kbest: how many trees (best first, each as its score and heads).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    k: Option<u64>,
    /// sample: how many trees to draw (with replacement).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    count: Option<u64>,
    /// sample: the seed of the draws (ChaCha8), as Python's `Grammar.sample(seed=…)`.
    #[arg(long, value_name = "SEED")]
    seed: Option<u64>,
}

/// The semiring of `tabula grammar parse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SemiringArg {
    /// The number of derivations (exact, arbitrary precision).
    Count,
    /// The best score (max-plus; `-inf` if there is no derivation).
    Max,
    /// Whether there is a derivation: `true` or `false`.
    Bool,
    /// A best tree: the heads of positions 1 … n, separated by spaces.
    Best,
    /// ln Z, the log of the sum over derivations of exp(total score).
    LogPartition,
    /// The arc marginals P(h → d): (n+1)×(n+1) rows, row = head.
    Marginals,
    /// The entropy of the distribution over derivations, in nats.
    Entropy,
    /// The --k best trees, best first: the total score, a tab, the heads.
    #[value(name = "kbest")]
    KBest,
    /// --count trees drawn from the distribution (--seed), one per line.
    Sample,
}

/// Errors of `tabula grammar parse` other than grammar errors (which are
/// printed as diagnostics).
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// `--input` has no terminal.
    #[error("--input is empty: it needs at least the root terminal a0")]
    EmptyInput,
    /// A word of `--input` is not a terminal of the grammar.
    #[error("unknown terminal `{word}` at position {position} of --input (the grammar's terminals: {known})")]
    UnknownTerminal {
        /// The word.
        word: String,
        /// Its position, 0 = root.
        position: usize,
        /// The grammar's terminals, comma-separated.
        known: String,
    },
    /// `--weights` with a semiring that takes none.
    #[error("--weights needs --semiring max or best (count and bool give every arc weight one)")]
    WeightsNotAllowed,
    /// A malformed weight matrix.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// `best` found no derivation.
    #[error("no derivation: the grammar derives no tree for this input{}", if *.weighted { " with these weights" } else { "" })]
    NoDerivation {
        /// Whether a weight matrix was given.
        weighted: bool,
    },
    /// The engine refused the input.
    #[error(transparent)]
    Engine(#[from] tabula::engine::EngineError),
}

/// Runs a `tabula grammar` subcommand.
pub fn run(c: Command) -> Result<ExitCode, CliError> {
    match c {
        Command::Check { file } => check(&file),
        Command::Parse(args) => parse(&args),
    }
}

/// The most diagnostics of a grammar file printed.
const SHOWN_DIAGNOSTICS: usize = 10;

/// Loads a grammar, printing warnings or errors to stderr; `None` if it has errors.
fn load(path: &Path) -> Result<Option<(Grammar, usize)>, CliError> {
    match text::parse_file(path) {
        Ok(p) => {
            if !p.warnings.is_empty() {
                super::say!("{}", text::render(&p.warnings));
            }
            Ok(Some((p.grammar, p.warnings.len())))
        }
        Err(GrammarFileError::Invalid(e)) => {
            // A file that is not a grammar has an error on nearly every line:
            // the first few, then how many in all.
            let errors = e.error_count();
            match e.diagnostics.len() > SHOWN_DIAGNOSTICS {
                false => super::say!("{e}"),
                true => {
                    for d in &e.diagnostics[..SHOWN_DIAGNOSTICS] {
                        super::say!("{d}\n");
                    }
                    super::say!(
                        "{} errors in all, the first {SHOWN_DIAGNOSTICS} diagnostics shown: is {} a grammar file? (grammar files: see grammars/)",
                        errors,
                        path.display()
                    );
                }
            }
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

fn check(path: &Path) -> Result<ExitCode, CliError> {
    let Some((g, warnings)) = load(path)? else {
        return Ok(ExitCode::FAILURE);
    };
    let rules = g.num_terminals() + g.finish_rules().len() + g.left_rules().len() + g.right_rules().len();
    let status = if warnings == 0 { "ok".to_owned() } else { format!("ok with {}", plural(warnings, "warning")) };
    let mut out = Output::create(None)?;
    writeln!(
        out,
        "{}: {status} — {}, {}, {}, {}, {}",
        path.display(),
        plural(g.num_terminals(), "terminal"),
        plural(g.num_categories(), "category"),
        plural(g.num_left_states(), "left state"),
        plural(g.num_right_states(), "right state"),
        plural(rules, "rule"),
    )?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn parse(args: &ParseArgs) -> Result<ExitCode, CliError> {
    if args.weights.is_some() && matches!(args.semiring, SemiringArg::Count | SemiringArg::Bool) {
        return Err(ParseError::WeightsNotAllowed.into());
    }
    for (given, name, semiring) in [
        (args.k.is_some(), "--k", "kbest"),
        (args.count.is_some(), "--count", "sample"),
        (args.seed.is_some(), "--seed", "sample"),
    ] {
        let wanted = match semiring {
            "kbest" => args.semiring == SemiringArg::KBest,
            _ => args.semiring == SemiringArg::Sample,
        };
        if given && !wanted {
            return Err(format!("{name} applies to --semiring {semiring} only").into());
        }
    }
    let Some((g, _)) = load(&args.file)? else {
        return Ok(ExitCode::FAILURE);
    };
    let input = terminals(&g, &args.input)?;

    // Integer weights for max and best (the distribution reads real scores).
    let weights = match (&args.weights, args.semiring) {
        (Some(path), SemiringArg::Max | SemiringArg::Best) => Some(read_weights(path, input.len())?),
        _ => None,
    };
    let weight = |h: usize, d: usize| weights.as_ref().map_or(MaxPlus::one(), |w| w[h][d]);
    let mut out = Output::create(None)?;
    match args.semiring {
        SemiringArg::Count => {
            let w = Parser::<Count>::new(&g).parse(&input, |_, _| Count::one())?;
            writeln!(out, "{w}")?;
        }
        SemiringArg::Bool => {
            let w = Parser::<Boolean>::new(&g).parse(&input, |_, _| Boolean::one())?;
            writeln!(out, "{w}")?;
        }
        SemiringArg::Max => {
            let w = Parser::<MaxPlus>::new(&g).parse(&input, weight)?;
            writeln!(out, "{w}")?;
        }
        SemiringArg::LogPartition
        | SemiringArg::Marginals
        | SemiringArg::Entropy
        | SemiringArg::KBest
        | SemiringArg::Sample => return distribution(args, &g, &input),
        SemiringArg::Best => {
            let mut parser = Parser::<MaxPlus>::new(&g);
            parser.parse(&input, weight)?;
            let d = parser.best_derivation().ok_or(ParseError::NoDerivation { weighted: weights.is_some() })?;
            writeln!(out, "{}", d.tree)?;
        }
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The semirings of the distribution over trees (real scores): what
/// Python's `Grammar.log_partition`, `marginals`, `entropy`, `k_best` and
/// `sample` compute, with the same library calls.
fn distribution(args: &ParseArgs, g: &Grammar, input: &[tabula::grammar::Terminal]) -> Result<ExitCode, CliError> {
    use tabula::distribution::TreeDistribution;
    let size = input.len();
    let scores = match &args.weights {
        Some(path) => tabula::grammar::weights::read_scores(path, size)?,
        None => vec![0.0; size * size],
    };
    let mut d = TreeDistribution::new(g);
    let mut out = Output::create(None)?;
    match args.semiring {
        SemiringArg::LogPartition => writeln!(out, "{}", d.log_partition(input, &scores)?)?,
        SemiringArg::Entropy => writeln!(out, "{}", d.entropy(input, &scores)?)?,
        SemiringArg::Marginals => {
            let mut m = Vec::new();
            d.marginals(input, &scores, &mut m)?;
            for row in m.chunks(size) {
                writeln!(out, "{}", row.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" "))?;
            }
        }
        SemiringArg::KBest => {
            let k = usize::try_from(args.k.unwrap_or(1)).unwrap_or(usize::MAX);
            for (score, tree) in d.k_best(input, &scores, k)? {
                writeln!(out, "{score}\t{tree}")?;
            }
        }
        SemiringArg::Sample => {
            use rand::SeedableRng;
            let count = usize::try_from(args.count.unwrap_or(1)).unwrap_or(usize::MAX);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed.unwrap_or(0));
            for tree in d.sample(input, &scores, count, &mut rng)? {
                writeln!(out, "{tree}")?;
            }
        }
        // The engine's semirings: `parse`.
        SemiringArg::Count | SemiringArg::Max | SemiringArg::Bool | SemiringArg::Best => {}
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The terminals of `--input`.
fn terminals(g: &Grammar, input: &str) -> Result<Vec<tabula::grammar::Terminal>, ParseError> {
    let words: Vec<&str> = input.split_whitespace().collect();
    if words.is_empty() {
        return Err(ParseError::EmptyInput);
    }
    words
        .iter()
        .enumerate()
        .map(|(position, &w)| {
            g.terminal(w).ok_or_else(|| ParseError::UnknownTerminal {
                word: w.to_owned(),
                position,
                known: g.terminals().map(|t| format!("`{}`", g.terminal_name(t))).collect::<Vec<_>>().join(", "),
            })
        })
        .collect()
}
