//! The `tabula` command line: a thin layer over the library.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Semiring tabular parsing for split bilexical grammars: optimal
/// projectivization, counting, and optimal steps for shift-reduce parsing.
#[derive(Parser)]
#[command(name = "tabula", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Refuse, with an error, any single computation (one sentence's chart,
    /// one oracle call) estimated to need more memory than this, instead of
    /// letting the allocation abort the process: e.g. 500M, 8G, 2T.
    #[arg(long, global = true, value_name = "SIZE", default_value = "8G", value_parser = tabula::memory::parse_size)]
    max_memory: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Check a grammar file, or parse a terminal string with it.
    #[command(subcommand)]
    Grammar(cli::grammar::Command),
    /// Projectivize a CoNLL-U treebank (optimally, or by lifting).
    Projectivize(cli::projectivize::Args),
    /// Count the optimal projectivizations of every tree of a CoNLL-U treebank.
    Count(cli::count::Args),
    /// Optimal steps of a shift-reduce parser (dynamic oracle).
    Oracle(cli::oracle::Args),
    /// The main job on an embedded sample treebank: projectivize, count, oracle.
    Demo(cli::demo::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tabula::memory::set_max_memory(cli.max_memory);
    let result = match cli.command {
        Command::Grammar(c) => cli::grammar::run(c),
        Command::Projectivize(a) => cli::projectivize::run(a),
        Command::Count(a) => cli::count::run(a),
        Command::Oracle(a) => cli::oracle::run(a),
        Command::Demo(a) => cli::demo::run(a),
    };
    match result {
        Ok(code) => code,
        // A reader such as `head` closed standard output: end quietly, as
        // command-line tools do.
        Err(e) if cli::is_broken_pipe(&*e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
