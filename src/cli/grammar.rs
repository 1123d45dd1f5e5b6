//! `tabula grammar check FILE` and `tabula grammar parse FILE --input …`.
//!
//! Grammar errors and warnings go to stderr in the diagnostic format of
//! [`tabula::grammar::text`]; results go to stdout, the value alone on the
//! last line.

use super::output::Output;
use super::CliError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::engine::Parser;
use tabula::grammar::text::{self, GrammarFileError};
use tabula::grammar::Grammar;
use tabula::semiring::{Boolean, Count, MaxPlus, Semiring};

/// The subcommands of `tabula grammar`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Check a grammar file: a one-line summary on stdout (warnings on
    /// stderr) and exit 0, or every error on stderr and exit 1.
    Check {
        /// The grammar file.
        file: PathBuf,
    },
    /// Parse a terminal string with a grammar; the value is printed alone on
    /// the last line of stdout.
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
    #[arg(long, value_name = "MATRIX", verbatim_doc_comment)]
    weights: Option<PathBuf>,
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

/// Errors of reading a weight matrix.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read.
    #[error("cannot read weight matrix {path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Wrong number of rows.
    #[error("{path}: expected {expected} rows (one per input terminal), found {found}")]
    Rows {
        /// The path as given.
        path: String,
        /// n + 1.
        expected: usize,
        /// Rows in the file.
        found: usize,
    },
    /// A row with the wrong number of entries.
    #[error("{path}:{line}: expected {expected} entries, found {found}")]
    Entries {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// n + 1.
        expected: usize,
        /// Entries on the line.
        found: usize,
    },
    /// An entry that is neither an integer nor `-inf`.
    #[error("{path}:{line}: not an integer or -inf: {token:?}")]
    NotANumber {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// The entry.
        token: String,
    },
    /// An integer that does not fit in 32 bits.
    #[error("{path}:{line}: weight out of range (it must fit in 32 bits): {token:?}")]
    OutOfRange {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// The entry.
        token: String,
    },
}

/// Runs a `tabula grammar` subcommand.
pub fn run(c: Command) -> Result<ExitCode, CliError> {
    match c {
        Command::Check { file } => check(&file),
        Command::Parse(args) => parse(&args),
    }
}

/// Loads a grammar, printing warnings or errors to stderr; `None` if it has errors.
fn load(path: &Path) -> Result<Option<(Grammar, usize)>, CliError> {
    match text::parse_file(path) {
        Ok(p) => {
            if !p.warnings.is_empty() {
                eprintln!("{}", text::render(&p.warnings));
            }
            Ok(Some((p.grammar, p.warnings.len())))
        }
        Err(GrammarFileError::Invalid(e)) => {
            eprintln!("{e}");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// `1 rule`, `2 rules`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else if let Some(stem) = what.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {what}s")
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
    let Some((g, _)) = load(&args.file)? else {
        return Ok(ExitCode::FAILURE);
    };
    let input = terminals(&g, &args.input)?;
    let weights = match &args.weights {
        Some(path) => Some(read_weights(path, input.len())?),
        None => None,
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

/// Reads an `size`×`size` matrix of integers or `-inf` (see `--weights`).
fn read_weights(path: &Path, size: usize) -> Result<Vec<Vec<MaxPlus>>, WeightsError> {
    let shown = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|source| WeightsError::Io { path: shown.clone(), source })?;
    parse_weights(&shown, &src, size)
}

/// Parses a weight matrix; `path` is used in messages only.
fn parse_weights(path: &str, src: &str, size: usize) -> Result<Vec<Vec<MaxPlus>>, WeightsError> {
    let mut rows = Vec::with_capacity(size);
    for (idx, line) in src.lines().enumerate() {
        let line_no = idx + 1;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let row = tokens
            .iter()
            .map(|&t| {
                if t == "-inf" {
                    return Ok(MaxPlus::neg_inf());
                }
                match t.parse::<i64>() {
                    Ok(v) if i32::try_from(v).is_ok() => Ok(MaxPlus::new(v)),
                    Ok(_) => {
                        Err(WeightsError::OutOfRange { path: path.to_owned(), line: line_no, token: t.to_owned() })
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
                        ) =>
                    {
                        Err(WeightsError::OutOfRange { path: path.to_owned(), line: line_no, token: t.to_owned() })
                    }
                    Err(_) => {
                        Err(WeightsError::NotANumber { path: path.to_owned(), line: line_no, token: t.to_owned() })
                    }
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        if row.len() != size {
            return Err(WeightsError::Entries {
                path: path.to_owned(),
                line: line_no,
                expected: size,
                found: row.len(),
            });
        }
        rows.push(row);
    }
    if rows.len() != size {
        return Err(WeightsError::Rows { path: path.to_owned(), expected: size, found: rows.len() });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_matrices() {
        let m = parse_weights("w", "0 -inf\n\n 3 0 \n", 2).unwrap();
        assert_eq!(m, [[MaxPlus::new(0), MaxPlus::neg_inf()], [MaxPlus::new(3), MaxPlus::new(0)]]);
        let e = |src: &str| parse_weights("w", src, 2).unwrap_err().to_string();
        assert_eq!(e("0 0\n0\n"), "w:2: expected 2 entries, found 1");
        assert_eq!(e("0 x\n0 0\n"), "w:1: not an integer or -inf: \"x\"");
        assert_eq!(e("0 0\n0 0\n0 0\n"), "w: expected 2 rows (one per input terminal), found 3");
        assert_eq!(e("0 0\n0 4294967296\n"), "w:2: weight out of range (it must fit in 32 bits): \"4294967296\"");
        assert_eq!(e("0 0\n0 99999999999999999999999\n"), e("0 0\n0 99999999999999999999999\n"));
        assert!(e("0 0\n0 99999999999999999999999\n").contains("out of range"));
        assert_eq!(e("0 0\n0 inf\n"), "w:2: not an integer or -inf: \"inf\"");
    }
}
