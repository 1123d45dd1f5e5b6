//! Progress bars on standard error, shown only when it is a terminal: one
//! over the input, and one of its own for each long sentence while the
//! engine works on it (its O(n³) chart, reported width by width through
//! [`tabula::engine::progress`]).

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::{self, IsTerminal};

/// Sentences of at least this many words get a bar of their own: about a
/// second of optimal projectivization or counting.
pub(crate) const LONG_SENTENCE: usize = 1000;

/// A progress bar over `len` units (e.g. "words"), shown only when standard error is a terminal.
pub(crate) fn progress_bar(len: u64, unit: &str) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let style =
        ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed}} eta {{eta}}")).ok()?;
    Some(ProgressBar::new(len).with_style(style))
}

/// The bar over the input bytes (a spinner when their number is not known)
/// and the bars of long sentences below it.
pub(crate) struct Bars {
    multi: MultiProgress,
    input: ProgressBar,
}

impl Bars {
    /// The bars for an input of `len` bytes; `None` when standard error is not a terminal.
    pub(crate) fn new(len: Option<u64>) -> Option<Bars> {
        if !io::stderr().is_terminal() {
            return None;
        }
        let input = match len {
            Some(n) => ProgressBar::new(n)
                .with_style(ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {elapsed} eta {eta}").ok()?),
            None => ProgressBar::new_spinner(),
        };
        let multi = MultiProgress::new();
        let input = multi.add(input);
        Some(Bars { multi, input })
    }

    /// Counts `bytes` more of the input done.
    pub(crate) fn inc(&self, bytes: u64) {
        self.input.inc(bytes);
    }

    /// Removes the bars.
    pub(crate) fn finish(self) {
        self.input.finish_and_clear();
    }
}

/// Runs `work` on a sentence of `words` words (from `place()`, e.g.
/// `file:line`, made only for a bar), with a bar of its own under `bars`
/// while the engine fills its chart if the sentence is long
/// ([`LONG_SENTENCE`]); just `work` otherwise.
pub(crate) fn for_sentence<R>(
    bars: Option<&Bars>,
    words: usize,
    place: impl FnOnce() -> String,
    work: impl FnOnce() -> R,
) -> R {
    let Some(bars) = bars.filter(|_| words >= LONG_SENTENCE) else { return work() };
    let place = place();
    let Ok(style) = ProgressStyle::with_template(&format!(
        "{{bar:40}} {{percent}} % of {place} ({words} words) {{elapsed}} eta {{eta}}"
    )) else {
        return work();
    };
    let bar = bars.multi.add(ProgressBar::new(1).with_style(style));
    // Drawn at once and then on a clock, not only when the chart reports
    // (reports can be rarer than the rate limiter's draws on a busy machine).
    bar.tick();
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let shown = bar.clone();
    let result = tabula::engine::progress::with_progress(
        move |done, total| {
            shown.set_length(total);
            shown.set_position(done);
        },
        work,
    );
    bar.finish_and_clear();
    bars.multi.remove(&bar);
    result
}
