//! One module per subcommand; each has its clap arguments and a `run`.

pub mod count;
pub mod demo;
pub mod eval;
pub mod grammar;
pub mod oracle;
pub mod parse;
pub mod projectivize;
pub mod train;

/// The error of a subcommand; printed as `error: …` with exit status 1.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;
