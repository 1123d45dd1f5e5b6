//! The training options of a tagger as a user gives them — `tabula
//! train-tagger`'s flags or `Tagger.train`'s keywords from Python — checked
//! and turned into [`TaggerOptions`] by one function, so that both refuse
//! the same values with the same message (naming the option as that user
//! wrote it, [`OptionStyle`]).
//!
//! ```
//! use tabula::parser::OptionStyle;
//! use tabula::tagger::settings::TaggerSettings;
//! let settings = TaggerSettings { passes: 2, ..TaggerSettings::default() };
//! assert_eq!(settings.resolve(OptionStyle::CommandLine).unwrap().second_pass, Some(10));
//! let bad = TaggerSettings { dictionary_min_share: 0.4, ..TaggerSettings::default() };
//! assert!(bad.resolve(OptionStyle::Python).unwrap_err().to_string().starts_with("dictionary_min_share=0.4: "));
//! ```

use super::model::{Decode, Direction, TaggerOptions, BITS};
use super::TaggerError;
use crate::parser::OptionStyle;

/// The most epochs a tagger trains for.
pub const MAX_EPOCHS: u32 = 1000;

/// The most perceptrons summed into one table (`ensemble`).
pub const MAX_ENSEMBLE: u32 = 16;

/// The options of `tabula train-tagger`, unchecked; the defaults are the
/// command line's.
#[derive(Clone, Debug, PartialEq)]
pub struct TaggerSettings {
    /// Epochs (of each pass), 1 to [`MAX_EPOCHS`].
    pub epochs: u32,
    pub seed: u64,
    /// log2 of the table's rows ([`BITS`]).
    pub bits: u32,
    pub decode: Decode,
    /// Also predict FEATS.
    pub feats: bool,
    /// 1, or 2 for a second pass (trained for `epochs` as well).
    pub passes: u32,
    /// The tag dictionary takes the words seen at least this often (≥ 1;
    /// `None`: 20) …
    pub dictionary_min_count: Option<u32>,
    /// … with one tag at least this share of the times (above 0.5, at most
    /// 1; above 1: no dictionary).
    pub dictionary_min_share: f64,
    /// The order in which the first pass reads a sentence (both ways:
    /// greedy decoding only; the right-to-left table trains for `epochs`
    /// as well).
    pub direction: Direction,
    /// Each table the sum of this many perceptrons, 1 to [`MAX_ENSEMBLE`].
    pub ensemble: u32,
}

impl Default for TaggerSettings {
    fn default() -> Self {
        let o = TaggerOptions::default();
        TaggerSettings {
            epochs: o.epochs as u32,
            seed: o.seed,
            bits: o.bits,
            decode: o.decode,
            feats: o.feats,
            passes: 1,
            dictionary_min_count: None,
            dictionary_min_share: o.dictionary_min_share,
            direction: o.direction,
            ensemble: o.ensemble as u32,
        }
    }
}

impl TaggerSettings {
    /// The options to train with, or the first value out of range, named
    /// as `style` writes options. O(1).
    pub fn resolve(&self, style: OptionStyle) -> Result<TaggerOptions, TaggerError> {
        let fail = |m: String| Err(TaggerError::Options(m));
        let given = |name: &str, value: &dyn std::fmt::Display| style.given(name, &value.to_string(), false);
        if !(1..=MAX_EPOCHS).contains(&self.epochs) {
            return fail(format!("{}: 1 to {MAX_EPOCHS} epochs", given("epochs", &self.epochs)));
        }
        if !BITS.contains(&self.bits) {
            return fail(format!(
                "{}: log2 of the table's rows is {} to {}",
                given("bits", &self.bits),
                BITS.start(),
                BITS.end()
            ));
        }
        if !(1..=2).contains(&self.passes) {
            return fail(format!("{}: one pass or two", given("passes", &self.passes)));
        }
        if !(1..=MAX_ENSEMBLE).contains(&self.ensemble) {
            return fail(format!("{}: 1 to {MAX_ENSEMBLE} perceptrons a table", given("ensemble", &self.ensemble)));
        }
        if self.direction == Direction::Both && self.decode != Decode::Greedy {
            return fail(format!(
                "{}: both directions sum the scores of two greedy ones, not with {}",
                style.given("direction", self.direction.name(), true),
                style.given("decode", self.decode.name(), true)
            ));
        }
        if self.dictionary_min_count == Some(0) {
            return fail(format!("{}: a dictionary word is seen at least once", given("dictionary-min-count", &0)));
        }
        let share = self.dictionary_min_share;
        if share.is_nan() || share <= 0.5 || !share.is_finite() {
            return fail(format!(
                "{}: a share above 0.5 (a dictionary word has one tag most of the time), or above 1 for no dictionary",
                given("dictionary-min-share", &share)
            ));
        }
        if let (Some(count), true) = (self.dictionary_min_count, share > 1.0) {
            return fail(format!(
                "{}: {} turns the dictionary off, so no count applies",
                given("dictionary-min-count", &count),
                given("dictionary-min-share", &share)
            ));
        }
        Ok(TaggerOptions {
            epochs: self.epochs as usize,
            seed: self.seed,
            bits: self.bits,
            decode: self.decode,
            feats: self.feats,
            // A share above 1 admits no word: no dictionary.
            dictionary_min_count: if share > 1.0 {
                u32::MAX
            } else {
                self.dictionary_min_count.unwrap_or(TaggerOptions::default().dictionary_min_count)
            },
            dictionary_min_share: share.min(1.0),
            second_pass: (self.passes == 2).then_some(self.epochs as usize),
            direction: self.direction,
            backward_epochs: self.epochs as usize,
            ensemble: self.ensemble as usize,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every check, in both styles, and the values that pass.
    #[test]
    fn resolve_refuses_each_value_out_of_range_by_name() {
        let d = TaggerSettings::default();
        let cases: [(TaggerSettings, &str, &str); 11] = [
            (TaggerSettings { ensemble: 0, ..d.clone() }, "--ensemble 0: ", "ensemble=0: "),
            (TaggerSettings { ensemble: 17, ..d.clone() }, "--ensemble 17: ", "ensemble=17: "),
            (
                TaggerSettings { direction: Direction::Both, decode: Decode::Viterbi, ..d.clone() },
                "--direction both: ",
                "direction=\"both\": ",
            ),
            (TaggerSettings { epochs: 0, ..d.clone() }, "--epochs 0: ", "epochs=0: "),
            (TaggerSettings { epochs: 1001, ..d.clone() }, "--epochs 1001: ", "epochs=1001: "),
            (TaggerSettings { bits: 3, ..d.clone() }, "--bits 3: ", "bits=3: "),
            (TaggerSettings { passes: 3, ..d.clone() }, "--passes 3: ", "passes=3: "),
            (
                TaggerSettings { dictionary_min_count: Some(0), ..d.clone() },
                "--dictionary-min-count 0: ",
                "dictionary_min_count=0: ",
            ),
            (
                TaggerSettings { dictionary_min_share: 0.5, ..d.clone() },
                "--dictionary-min-share 0.5: ",
                "dictionary_min_share=0.5: ",
            ),
            (
                TaggerSettings { dictionary_min_share: f64::NAN, ..d.clone() },
                "--dictionary-min-share NaN: ",
                "dictionary_min_share=NaN: ",
            ),
            // A count for a dictionary that is off does nothing.
            (
                TaggerSettings { dictionary_min_count: Some(5), dictionary_min_share: 1.5, ..d.clone() },
                "--dictionary-min-count 5: --dictionary-min-share 1.5 turns the dictionary off",
                "dictionary_min_count=5: dictionary_min_share=1.5 turns the dictionary off",
            ),
        ];
        for (s, cli, python) in cases {
            assert!(s.resolve(OptionStyle::CommandLine).unwrap_err().to_string().starts_with(cli), "{s:?}");
            assert!(s.resolve(OptionStyle::Python).unwrap_err().to_string().starts_with(python), "{s:?}");
        }
        assert_eq!(d.resolve(OptionStyle::Python).unwrap(), TaggerOptions::default());
        let off = TaggerSettings { dictionary_min_share: 1.5, passes: 2, epochs: 4, ..d }
            .resolve(OptionStyle::Python)
            .unwrap();
        assert_eq!((off.dictionary_min_count, off.dictionary_min_share, off.second_pass), (u32::MAX, 1.0, Some(4)));
        let both = TaggerSettings { direction: Direction::Both, ensemble: 3, epochs: 5, ..d }
            .resolve(OptionStyle::CommandLine)
            .unwrap();
        assert_eq!((both.direction, both.backward_epochs, both.ensemble), (Direction::Both, 5, 3));
    }
}
