use super::CliError;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Check a grammar file.
    Check {},
}

pub fn run(_c: Command) -> Result<ExitCode, CliError> {
    Err("not implemented yet".into())
}
