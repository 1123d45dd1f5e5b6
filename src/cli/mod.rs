//! One module per subcommand; each has its clap arguments and a `run`.

pub mod batches;
pub mod count;
pub mod demo;
pub mod deprojectivize;
pub mod draw;
pub mod ensemble;
pub mod eval;
pub mod grammar;
pub mod options;
pub mod oracle;
pub mod parse;
pub mod plot;
pub mod progress;
pub mod projectivize;
pub mod tagger;
pub mod train;

/// A message as the terminal shows it: every control character of
/// what it quotes (a file name, a field, an option's value) written
/// visibly (`\x1b`, as [`tabula::shown::shown`] writes it), so that none
/// acts on the terminal; its own line breaks and tabs kept.
pub fn shown_message(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c != '\n' && c != '\t' && tabula::shown::is_hidden(c);
    if !text.contains(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            tabula::shown::push_shown(&mut out, c);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `eprintln!` with the message [`shown_message`]: what the command line
/// writes to standard error quotes file names and fields, and none of
/// their control characters may act on the terminal.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::cli::shown_message(&format!($($arg)*)))
    };
}
pub(crate) use say;

/// The error of a subcommand; printed as `error: …` with exit status 1.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

/// `1 rule`, `2 rules`, `1 entry`, `2 entries`: a count and its noun.
pub fn plural<N: std::fmt::Display + PartialEq + From<u8>>(n: N, what: &str) -> String {
    if n == N::from(1) {
        format!("{n} {what}")
    } else if let Some(stem) = what.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {what}s")
    }
}

/// Whether `e`, or an error it wraps, is a write to a closed pipe.
pub fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) {
            return true;
        }
        next = e.source();
    }
    false
}
