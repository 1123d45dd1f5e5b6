//! `tabula options` (hidden): every subcommand's options as JSON, read from
//! clap itself, for the test that keeps the Python package at parity with
//! the command line (python/tests/test_parity.py).

use super::CliError;
use std::io::Write;
use std::process::ExitCode;

/// One option or positional argument: its id (as Python names it, `-` →
/// `_`), whether it is positional, a flag or takes a value, its default
/// (`null` if none), and its choices (a value enum's names).
fn argument(arg: &clap::Arg) -> serde_json::Value {
    let kind = match arg.get_action() {
        clap::ArgAction::SetTrue | clap::ArgAction::SetFalse => "flag",
        _ if arg.is_positional() => "positional",
        _ => "value",
    };
    let defaults: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    let choices: Vec<String> = match kind {
        "flag" => Vec::new(),
        _ => arg.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect(),
    };
    serde_json::json!({
        "name": arg.get_id().as_str().replace('-', "_"),
        "kind": kind,
        "default": match defaults.as_slice() {
            [] => serde_json::Value::Null,
            [one] => serde_json::Value::String(one.clone()),
            many => serde_json::json!(many),
        },
        "choices": choices,
    })
}

/// Prints `{"command": [option, …], …}` for every subcommand of `cli`
/// (nested ones as `grammar check`), without `--help`, `--version` and the
/// global options.
pub fn run(cli: clap::Command) -> Result<ExitCode, CliError> {
    let mut out = serde_json::Map::new();
    let mut stack: Vec<(String, &clap::Command)> =
        cli.get_subcommands().map(|c| (c.get_name().to_owned(), c)).collect();
    while let Some((name, command)) = stack.pop() {
        if command.is_hide_set() {
            continue;
        }
        stack.extend(command.get_subcommands().map(|c| (format!("{name} {}", c.get_name()), c)));
        let args: Vec<_> = command
            .get_arguments()
            .filter(|a| !a.is_global_set() && !matches!(a.get_id().as_str(), "help" | "version"))
            .map(argument)
            .collect();
        out.insert(name, serde_json::Value::Array(args));
    }
    let mut sorted: Vec<_> = out.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    // Written, not printed: a reader that closes the pipe early (`| head`)
    // ends the command quietly, as main handles a broken pipe.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", serde_json::Value::Object(sorted.into_iter().collect()))?;
    Ok(ExitCode::SUCCESS)
}
