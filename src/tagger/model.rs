//! A trained tagger (tags, FEATS attributes, tag dictionary, one hashed
//! weight table), the [`Tagger`] that applies it, and the tagger file.
//!
//! # Scoring
//!
//! The table has one row per hashed feature and one weight per UPOS tag,
//! followed (with FEATS) by one block per FEATS attribute: a weight for
//! "absent" and one per value. The score of tag t at position i is the sum
//! of the t weights of the emission and context features
//! ([`super::features`]). Once the tag is chosen, each attribute that
//! training saw with that tag takes its best value (or none) from the
//! emission features and the features of the tag itself
//! ([`own_tag_features`]); the other attributes are absent.
//!
//! Words of the tag dictionary (frequent words that training saw with one
//! tag only, PanParser Sec. 3.5) get that tag without scoring.
//!
//! # Directions
//!
//! The first pass reads a sentence left to right, or right to left (the
//! same features and decoding on the reversed sentence: the tags of the two
//! *following* words are its history), or both ways ([`Direction::Both`]):
//! a left-to-right and a right-to-left table, each decoding greedily with
//! its own history, and each word takes the tag of the best sum of the two
//! tables' scores (a product of experts; Toutanova et al. 2003 and Shen et
//! al. 2007 on bidirectional context).
//!
//! # The tagger file
//!
//! ```text
//! TABULA-TAGGER-MODEL
//! version 4                     (version 3: no direction line, left to right;
//!                               versions 1 and 2, with other features: refused)
//! features tagger-v2
//! decode greedy                 (or viterbi: how `tabula tag` decodes by default)
//! direction left-to-right       (or right-to-left, or `both E`: a right-to-left
//!                               table as well, trained for E epochs)
//! passes 1                      (or `passes 2 E`: a second pass, trained for E epochs)
//! bits 19                       (the table has 2^bits rows)
//! epochs 10                     (the epochs of the model kept, and the other training
//!                               settings: what `tabula train --jackknife` trains with)
//! seed 1
//! ensemble 1                    (each table the sum of this many perceptrons)
//! dictionary-min-count 20
//! dictionary-min-share 0.97
//! tags 17                       (then one UPOS tag per line)
//! attributes 2                  (FEATS attributes: name TAB value TAB value …)
//! allowed                       (one line per tag: the attribute numbers seen with it)
//! dictionary 120                (then FORM TAB tag number per line)
//! lexicon 9000                  (then lowercased FORM TAB tag set, hexadecimal bits)
//! end
//! <2^bits × (tags + Σ (values + 1)) f32, little-endian>
//! <with direction both: 2^bits × tags f32 (the right-to-left table)>
//! <with a second pass: 2^bits × tags f32> <checksum u64>
//! ```
//!
//! A file without the first line is foreign; another version or feature
//! set is refused by name; a short file is truncated; a bad checksum or
//! trailing bytes are corruption. Never a panic.

use super::features::{
    context_features, emission_features, end_tag, lexical_context, own_tag_features, previous_tag, previous_tags,
    right_context, start_tag, Scratch, WordHashes, FEATURE_SET,
};
use super::viterbi::{viterbi, Chart, SequenceScores};
use super::TaggerError;
use crate::conllu::RawSentence;
use crate::parser::columns::Columns;
use crate::parser::features::hash_bytes;
use crate::parser::perceptron::{CompactWeights, Rows, Weights};
use hashbrown::HashMap;
use std::path::Path;
use std::sync::OnceLock;

const MAGIC: &str = "TABULA-TAGGER-MODEL\n";
/// The tagger file version written by this build.
pub const TAGGER_VERSION: u32 = 4;

/// The oldest tagger file version this build reads (version 3: the same
/// features, no direction line, left to right).
pub const OLDEST_TAGGER_VERSION: u32 = 3;

/// The order in which the first pass reads a sentence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Left to right: the tags of the two previous words are the history.
    #[default]
    LeftToRight,
    /// Right to left: the same features on the reversed sentence; the tags
    /// of the two following words are the history.
    RightToLeft,
    /// Both: a table for each direction, each greedy with its own history,
    /// the sum of their scores chooses each word's tag (greedy decoding only).
    Both,
}

impl Direction {
    /// The name, as options and files write it.
    pub fn name(self) -> &'static str {
        match self {
            Direction::LeftToRight => "left-to-right",
            Direction::RightToLeft => "right-to-left",
            Direction::Both => "both",
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Direction {
    type Err = String;
    fn from_str(s: &str) -> Result<Direction, String> {
        match s {
            "left-to-right" => Ok(Direction::LeftToRight),
            "right-to-left" => Ok(Direction::RightToLeft),
            "both" => Ok(Direction::Both),
            _ => Err(format!("unknown direction `{s}` (left-to-right, right-to-left or both)")),
        }
    }
}

/// How a tag sequence is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decode {
    /// Left to right, each word's best tag given the tags chosen before it.
    #[default]
    Greedy,
    /// The best sequence under the same scores ([`super::viterbi`]).
    Viterbi,
}

impl Decode {
    /// The name, as options and files write it.
    pub fn name(self) -> &'static str {
        match self {
            Decode::Greedy => "greedy",
            Decode::Viterbi => "viterbi",
        }
    }
}

impl std::fmt::Display for Decode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Decode {
    type Err = String;
    fn from_str(s: &str) -> Result<Decode, String> {
        match s {
            "greedy" => Ok(Decode::Greedy),
            "viterbi" => Ok(Decode::Viterbi),
            _ => Err(format!("unknown decoding `{s}` (greedy or viterbi)")),
        }
    }
}

/// How a tagger was trained (kept in the file, so that `tabula train
/// --jackknife` trains its fold taggers the same way).
#[derive(Clone, Debug, PartialEq)]
pub struct TaggerOptions {
    pub epochs: usize,
    pub seed: u64,
    /// log2 of the table's rows.
    pub bits: u32,
    pub decode: Decode,
    /// Also predict FEATS.
    pub feats: bool,
    /// A word enters the tag dictionary if seen at least this often …
    pub dictionary_min_count: u32,
    /// … with one tag this share of the times or more.
    pub dictionary_min_share: f64,
    /// A second, left-to-right pass that also reads the first pass's tags
    /// of the word and of the two words after it, trained for this many
    /// epochs (at most) on jackknifed first-pass tags; `None`: one pass.
    pub second_pass: Option<usize>,
    /// The order in which the first pass reads a sentence.
    pub direction: Direction,
    /// With [`Direction::Both`]: the right-to-left table's epochs (at most,
    /// in training; the epochs of the table kept, in a file). Else unused
    /// (0 in a trained or read model).
    pub backward_epochs: usize,
    /// Each table is the sum of this many averaged perceptrons, trained
    /// alike on as many sentence orders (seeds seed, seed + 1, …).
    pub ensemble: usize,
}

impl Default for TaggerOptions {
    fn default() -> Self {
        TaggerOptions {
            epochs: 10,
            seed: 1,
            bits: 19,
            decode: Decode::Greedy,
            feats: false,
            dictionary_min_count: 20,
            dictionary_min_share: 0.97,
            second_pass: None,
            direction: Direction::LeftToRight,
            backward_epochs: 10,
            ensemble: 1,
        }
    }
}

/// The rows of the table: 4 to 26 bits.
pub const BITS: std::ops::RangeInclusive<u32> = 4..=26;

/// A FEATS attribute and its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub name: String,
    pub values: Vec<String>,
}

/// The FEATS attributes of a tagger, in output order (UD's: by name,
/// case-insensitively), with where their blocks start in a row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatsSet {
    pub attributes: Vec<Attribute>,
    /// For each UPOS tag, the attributes (indices) training saw with it.
    pub allowed: Vec<Vec<u16>>,
}

impl FeatsSet {
    /// The weights of the FEATS blocks: Σ (values + 1).
    pub fn width(&self) -> usize {
        self.attributes.iter().map(|a| a.values.len() + 1).sum()
    }

    /// Where the block of each attribute starts, after the `tags` UPOS weights.
    pub fn offsets(&self, tags: usize) -> Vec<usize> {
        let mut at = tags;
        self.attributes
            .iter()
            .map(|a| {
                let o = at;
                at += a.values.len() + 1;
                o
            })
            .collect()
    }

    /// A FEATS value as classes, one per attribute (0: absent, v + 1: the
    /// value v); `None` if it names an attribute or value not in the set.
    pub fn classes(&self, feats: &str, out: &mut Vec<u32>) -> Option<()> {
        out.clear();
        out.resize(self.attributes.len(), 0);
        if feats == "_" {
            return Some(());
        }
        for pair in feats.split('|') {
            let (name, value) = pair.split_once('=')?;
            let a = self.attributes.iter().position(|a| a.name == name)?;
            out[a] = self.attributes[a].values.iter().position(|v| v == value)? as u32 + 1;
        }
        Some(())
    }

    /// The FEATS text of `classes` (one per attribute): `_` if all absent.
    pub fn write(&self, classes: &[u32], out: &mut Vec<u8>) {
        let mut any = false;
        for (a, &c) in self.attributes.iter().zip(classes) {
            if c == 0 {
                continue;
            }
            if any {
                out.push(b'|');
            }
            any = true;
            out.extend_from_slice(a.name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(a.values[c as usize - 1].as_bytes());
        }
        if !any {
            out.push(b'_');
        }
    }
}

/// A trained tagger.
#[derive(Clone, Debug)]
pub struct TaggerModel {
    /// The UPOS tags, sorted; a tag is its index.
    pub tags: Vec<String>,
    /// With FEATS: the attributes.
    pub feats: Option<FeatsSet>,
    /// The tag dictionary: FORM and tag, sorted by FORM.
    pub dictionary: Vec<(String, u32)>,
    /// The lexicon: each lowercased FORM seen 3 times or more in training and
    /// the set of its tags (bit t: tag t, modulo 64), sorted by FORM; the
    /// "ambiguity class" features read it ([`super::features`]).
    pub lexicon: Vec<(String, u64)>,
    classes: HashMap<u64, u64>,
    pub options: TaggerOptions,
    weights: Weights,
    /// The second pass's table (UPOS weights only), with a second pass.
    second: Option<Weights>,
    /// The right-to-left table (UPOS weights only), with [`Direction::Both`].
    backward: Option<Weights>,
    lookup: HashMap<u64, u32>,
    compact: OnceLock<CompactWeights>,
    second_compact: OnceLock<CompactWeights>,
    backward_compact: OnceLock<CompactWeights>,
}

impl PartialEq for TaggerModel {
    fn eq(&self, other: &TaggerModel) -> bool {
        (&self.tags, &self.feats, &self.dictionary, &self.lexicon, &self.options)
            == (&other.tags, &other.feats, &other.dictionary, &other.lexicon, &other.options)
            && (&self.weights, &self.backward, &self.second) == (&other.weights, &other.backward, &other.second)
    }
}

impl TaggerModel {
    /// Whether this tagger can decode with `decode`: one that reads both
    /// ways decodes greedily only. The error names the option as `style`
    /// writes it. O(1).
    pub fn check_decode(&self, decode: Decode, style: crate::parser::OptionStyle) -> Result<(), TaggerError> {
        if self.options.direction == Direction::Both && decode != Decode::Greedy {
            return Err(TaggerError::Options(format!(
                "{}: a tagger that reads both ways decodes greedily",
                style.given("decode", decode.name(), true)
            )));
        }
        Ok(())
    }

    /// A tagger from its parts; `None` if the table's width is not the
    /// tags' and attributes'.
    pub fn new(
        tags: Vec<String>,
        feats: Option<FeatsSet>,
        dictionary: Vec<(String, u32)>,
        lexicon: Vec<(String, u64)>,
        options: TaggerOptions,
        weights: Weights,
    ) -> Option<TaggerModel> {
        let width = tags.len() + feats.as_ref().map_or(0, FeatsSet::width);
        if weights.width() != width || dictionary.iter().any(|&(_, t)| t as usize >= tags.len()) {
            return None;
        }
        let lookup = dictionary.iter().map(|(f, t)| (hash_bytes(f.as_bytes()), *t)).collect();
        let classes = lexicon.iter().map(|(f, c)| (hash_bytes(f.as_bytes()), *c)).collect();
        Some(TaggerModel {
            tags,
            feats,
            dictionary,
            lexicon,
            classes,
            options,
            weights,
            second: None,
            backward: None,
            lookup,
            compact: OnceLock::new(),
            second_compact: OnceLock::new(),
            backward_compact: OnceLock::new(),
        })
    }

    /// The model with `second` as its second pass's table; `None` if the
    /// table's width is not the number of tags or its size not the first's.
    pub fn with_second(mut self, second: Weights) -> Option<TaggerModel> {
        if second.width() != self.tags.len() || second.bits() != self.weights.bits() {
            return None;
        }
        self.second = Some(second);
        self.second_compact = OnceLock::new();
        Some(self)
    }

    /// The model with `backward` as its right-to-left table
    /// ([`Direction::Both`]); `None` if the table's width is not the number
    /// of tags or its size not the first's.
    pub fn with_backward(mut self, backward: Weights) -> Option<TaggerModel> {
        if backward.width() != self.tags.len() || backward.bits() != self.weights.bits() {
            return None;
        }
        self.backward = Some(backward);
        self.backward_compact = OnceLock::new();
        Some(self)
    }

    /// The right-to-left table of a [`Direction::Both`] model.
    pub fn backward(&self) -> Option<&Weights> {
        self.backward.as_ref()
    }

    /// The bfloat16 copy of the right-to-left table, made once.
    pub fn backward_compact(&self) -> Option<&CompactWeights> {
        let backward = self.backward.as_ref()?;
        Some(self.backward_compact.get_or_init(|| CompactWeights::new(backward)))
    }

    /// The second pass's table, if the model has one.
    pub fn second(&self) -> Option<&Weights> {
        self.second.as_ref()
    }

    /// The bfloat16 copy of the second pass's table, made once.
    pub fn second_compact(&self) -> Option<&CompactWeights> {
        let second = self.second.as_ref()?;
        Some(self.second_compact.get_or_init(|| CompactWeights::new(second)))
    }

    /// The weight table.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The width of a row: the tags and the FEATS blocks.
    pub fn width(&self) -> usize {
        self.weights.width()
    }

    /// The dictionary's tag of the word whose FORM hashes to `form`. O(1).
    #[inline]
    pub fn dictionary_tag(&self, form: u64) -> Option<u32> {
        self.lookup.get(&form).copied()
    }

    /// The ambiguity class of the word whose lowercased FORM hashes to
    /// `lower` (0: not in the lexicon). O(1).
    #[inline]
    pub fn ambiguity_class(&self, lower: u64) -> u64 {
        self.classes.get(&lower).copied().unwrap_or(0)
    }

    /// The bfloat16 copy of the table that tagging reads, made once.
    pub fn compact(&self) -> &CompactWeights {
        self.compact.get_or_init(|| CompactWeights::new(&self.weights))
    }

    /// The bytes of the tagger file. O(size).
    pub fn to_bytes(&self) -> Vec<u8> {
        let o = &self.options;
        let mut h = format!(
            "version {TAGGER_VERSION}\nfeatures {FEATURE_SET}\ndecode {}\ndirection {}\npasses {}\nbits {}\nepochs {}\n\
             seed {}\nensemble {}\ndictionary-min-count {}\ndictionary-min-share {}\ntags {}\n",
            o.decode,
            match (&self.backward, o.direction) {
                (Some(_), Direction::Both) => format!("both {}", o.backward_epochs),
                _ => o.direction.to_string(),
            },
            match (&self.second, o.second_pass) {
                (Some(_), Some(e)) => format!("2 {e}"),
                _ => "1".to_owned(),
            },
            self.weights.bits(),
            o.epochs,
            o.seed,
            o.ensemble,
            o.dictionary_min_count,
            o.dictionary_min_share,
            self.tags.len()
        );
        for t in &self.tags {
            h.push_str(t);
            h.push('\n');
        }
        match &self.feats {
            None => h.push_str("attributes none\n"),
            Some(f) => {
                h.push_str(&format!("attributes {}\n", f.attributes.len()));
                for a in &f.attributes {
                    h.push_str(&a.name);
                    for v in &a.values {
                        h.push('\t');
                        h.push_str(v);
                    }
                    h.push('\n');
                }
                h.push_str("allowed\n");
                for list in &f.allowed {
                    let l: Vec<String> = list.iter().map(u16::to_string).collect();
                    h.push_str(&l.join(" "));
                    h.push('\n');
                }
            }
        }
        h.push_str(&format!("dictionary {}\n", self.dictionary.len()));
        for (form, t) in &self.dictionary {
            h.push_str(&format!("{form}\t{t}\n"));
        }
        h.push_str(&format!("lexicon {}\n", self.lexicon.len()));
        for (form, c) in &self.lexicon {
            h.push_str(&format!("{form}\t{c:x}\n"));
        }
        h.push_str("end\n");
        let more = self.backward.iter().chain(&self.second).map(|s| s.w.len()).sum::<usize>();
        let mut out = Vec::with_capacity(MAGIC.len() + h.len() + 4 * (self.weights.w.len() + more) + 8);
        out.extend_from_slice(MAGIC.as_bytes());
        out.extend_from_slice(h.as_bytes());
        let tables = std::iter::once(&self.weights).chain(&self.backward).chain(&self.second);
        for w in tables.flat_map(|t| t.w.iter()) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let sum = crate::parser::model::checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a tagger file's bytes (see the module documentation). O(size).
    pub fn from_bytes(bytes: &[u8]) -> Result<TaggerModel, TaggerError> {
        let corrupt = |r: String| TaggerError::Corrupt(r);
        let Some(mut rest) = bytes.strip_prefix(MAGIC.as_bytes()) else {
            return Err(TaggerError::Foreign { what: crate::file_kind::not_the_header(bytes, MAGIC.trim_end()) });
        };
        let mut line = || -> Result<&str, TaggerError> {
            let end = memchr::memchr(b'\n', rest).ok_or(TaggerError::Truncated)?;
            let l = std::str::from_utf8(&rest[..end]).map_err(|_| corrupt("a header line is not UTF-8".into()))?;
            rest = &rest[end + 1..];
            Ok(l)
        };
        fn value<'a>(l: &'a str, name: &str) -> Result<&'a str, TaggerError> {
            l.strip_prefix(name)
                .and_then(|v| v.strip_prefix(' '))
                .ok_or_else(|| TaggerError::Corrupt(format!("expected `{name} …` in the header, found `{l}`")))
        }
        fn number<T: std::str::FromStr>(l: &str, name: &str) -> Result<T, TaggerError> {
            let v = value(l, name)?;
            v.parse().map_err(|_| TaggerError::Corrupt(format!("bad {name} `{v}`")))
        }
        let version = value(line()?, "version")?.to_owned();
        // Versions before 3 have other features: refused, with a word to
        // retrain. Version 3 has no direction line.
        let number_of_version = version.parse::<u32>().ok();
        if !number_of_version.is_some_and(|v| (OLDEST_TAGGER_VERSION..=TAGGER_VERSION).contains(&v)) {
            return Err(TaggerError::Version { found: version, expected: TAGGER_VERSION });
        }
        let features = value(line()?, "features")?.to_owned();
        if features != FEATURE_SET {
            return Err(TaggerError::Features { found: features, expected: FEATURE_SET });
        }
        let decode: Decode = value(line()?, "decode")?.parse().map_err(corrupt)?;
        let (direction, backward_epochs) = if number_of_version == Some(3) {
            (Direction::LeftToRight, 0)
        } else {
            let v = value(line()?, "direction")?;
            match v.split_once(' ') {
                Some(("both", e)) => (Direction::Both, e.parse().map_err(|_| corrupt(format!("bad direction `{v}`")))?),
                None if v != "both" => (v.parse().map_err(corrupt)?, 0),
                _ => return Err(corrupt(format!("bad direction `{v}` (left-to-right, right-to-left or both E)"))),
            }
        };
        if direction == Direction::Both && decode != Decode::Greedy {
            return Err(corrupt("direction both with Viterbi decoding".into()));
        }
        let second_pass: Option<usize> = {
            let l = line()?;
            let v = value(l, "passes")?;
            match v.split_once(' ') {
                None if v == "1" => None,
                Some(("2", e)) => Some(e.parse().map_err(|_| corrupt(format!("bad passes `{v}`")))?),
                _ => return Err(corrupt(format!("bad passes `{v}` (1, or 2 and the second pass's epochs)"))),
            }
        };
        let bits: u32 = number(line()?, "bits")?;
        if !BITS.contains(&bits) {
            return Err(corrupt(format!("bad table size `bits {bits}`")));
        }
        let epochs = number(line()?, "epochs")?;
        let seed = number(line()?, "seed")?;
        let ensemble = if number_of_version == Some(3) { 1 } else { number(line()?, "ensemble")? };
        let dictionary_min_count = number(line()?, "dictionary-min-count")?;
        let dictionary_min_share: f64 = number(line()?, "dictionary-min-share")?;
        let n_tags: usize = number(line()?, "tags")?;
        if n_tags == 0 || n_tags > 4096 {
            return Err(corrupt(format!("bad tag count {n_tags}")));
        }
        let mut tags = Vec::with_capacity(n_tags);
        for _ in 0..n_tags {
            tags.push(line()?.to_owned());
        }
        let attributes = value(line()?, "attributes")?.to_owned();
        let feats = if attributes == "none" {
            None
        } else {
            let count: usize =
                attributes.parse().map_err(|_| corrupt(format!("bad attribute count `{attributes}`")))?;
            let mut set = FeatsSet::default();
            for _ in 0..count {
                let mut parts = line()?.split('\t');
                let name = parts.next().unwrap_or_default().to_owned();
                set.attributes.push(Attribute { name, values: parts.map(str::to_owned).collect() });
            }
            if line()? != "allowed" {
                return Err(corrupt("expected `allowed` in the header".into()));
            }
            for _ in 0..n_tags {
                let l = line()?;
                let list: Result<Vec<u16>, _> = l.split_ascii_whitespace().map(str::parse::<u16>).collect();
                let list = list
                    .ok()
                    .filter(|v| v.iter().all(|&a| (a as usize) < count))
                    .ok_or_else(|| corrupt(format!("bad attribute list `{l}`")))?;
                set.allowed.push(list);
            }
            Some(set)
        };
        let n_dict: usize = number(line()?, "dictionary")?;
        let mut dictionary = Vec::with_capacity(n_dict.min(1 << 20));
        for _ in 0..n_dict {
            let l = line()?;
            let (form, t) = l.split_once('\t').ok_or_else(|| corrupt(format!("bad dictionary line `{l}`")))?;
            let t: u32 = t
                .parse()
                .ok()
                .filter(|&t| (t as usize) < n_tags)
                .ok_or_else(|| corrupt(format!("bad dictionary line `{l}`")))?;
            dictionary.push((form.to_owned(), t));
        }
        let n_lexicon: usize = number(line()?, "lexicon")?;
        let mut lexicon = Vec::with_capacity(n_lexicon.min(1 << 20));
        for _ in 0..n_lexicon {
            let l = line()?;
            let entry = l.split_once('\t').and_then(|(f, c)| Some((f.to_owned(), u64::from_str_radix(c, 16).ok()?)));
            lexicon.push(entry.ok_or_else(|| corrupt(format!("bad lexicon line `{l}`")))?);
        }
        if line()? != "end" {
            return Err(corrupt("expected `end` after the lexicon".into()));
        }
        let width = n_tags + feats.as_ref().map_or(0, FeatsSet::width);
        let header_len = bytes.len() - rest.len();
        let floats = (1usize << bits)
            .checked_mul(width)
            .filter(|f| f.checked_mul(4).is_some())
            .ok_or_else(|| corrupt(format!("a table of 2^{bits} rows of {width} weights")))?;
        let backward_floats = if direction == Direction::Both { (1usize << bits) * n_tags } else { 0 };
        let second_floats = if second_pass.is_some() { (1usize << bits) * n_tags } else { 0 };
        let expected = header_len as u64 + 4 * (floats + backward_floats + second_floats) as u64 + 8;
        if (bytes.len() as u64) < expected {
            return Err(TaggerError::Truncated);
        }
        if bytes.len() as u64 > expected {
            return Err(corrupt(format!(
                "its header states {expected} bytes, the file has {} (trailing bytes after the checksum)",
                bytes.len()
            )));
        }
        let body = header_len + 4 * (floats + backward_floats + second_floats);
        let stored = u64::from_le_bytes(bytes[body..body + 8].try_into().expect("8 bytes"));
        if crate::parser::model::checksum(&bytes[..body]) != stored {
            return Err(corrupt("checksum mismatch".into()));
        }
        let floats_of =
            |b: &[u8]| b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        let weights = Weights::from_vec(bits, width, floats_of(&rest[..4 * floats])).expect("sized");
        let after = floats + backward_floats;
        let backward = (direction == Direction::Both)
            .then(|| Weights::from_vec(bits, n_tags, floats_of(&rest[4 * floats..4 * after])))
            .map(|w| w.expect("sized"));
        let second = (second_pass.is_some())
            .then(|| Weights::from_vec(bits, n_tags, floats_of(&rest[4 * after..4 * (after + second_floats)])))
            .map(|w| w.expect("sized"));
        let options = TaggerOptions {
            epochs,
            seed,
            bits,
            decode,
            feats: feats.is_some(),
            dictionary_min_count,
            dictionary_min_share,
            second_pass,
            direction,
            backward_epochs,
            ensemble,
        };
        let mut model = TaggerModel::new(tags, feats, dictionary, lexicon, options, weights)
            .ok_or_else(|| corrupt("inconsistent header".into()))?;
        if let Some(b) = backward {
            model = model.with_backward(b).ok_or_else(|| corrupt("inconsistent header".into()))?;
        }
        match second {
            None => Ok(model),
            Some(s) => model.with_second(s).ok_or_else(|| corrupt("inconsistent header".into())),
        }
    }

    /// Reads a tagger file, a regular file only; its size is checked
    /// against the memory limit ([`crate::memory`]) before it is read. O(size).
    pub fn load(path: &Path) -> Result<TaggerModel, TaggerError> {
        let shown = path.display().to_string();
        let io = |e: std::io::Error| TaggerError::Io(format!("{shown}: {e}"));
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(TaggerError::Io(format!(
                "{shown}: not a regular file (a tagger is a file written by `tabula train-tagger`)"
            )));
        }
        let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        // The file, the f32 table and its bfloat16 copy.
        crate::memory::check(len.checked_mul(5).map(|b| b / 2), 1, || format!("reading the tagger {shown}"))?;
        let bytes = std::fs::read(path).map_err(io)?;
        TaggerModel::from_bytes(&bytes).map_err(|e| TaggerError::Model { path: shown, source: Box::new(e) })
    }
}

/// Argmax of `scores` (the first on ties). O(len).
#[inline]
pub(crate) fn best(scores: &[f32]) -> u32 {
    let mut b = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[b] {
            b = i;
        }
    }
    b as u32
}

/// Scores the tags of position `i` (after `t1`, `t2`) with `table` into
/// `scores` (the tags' weights), with `features` as scratch: the features
/// listed there afterwards are the ones scored. O(features × tags).
pub(crate) fn score_tags(
    table: &impl Rows,
    words: &[WordHashes],
    i: usize,
    (t1, t2): (u32, u32),
    features: &mut Vec<u64>,
    scores: &mut [f32],
) {
    emission_features(words, i, features);
    features.extend_from_slice(&context_features(words, i, t1, t2));
    scores.iter_mut().for_each(|s| *s = 0.0);
    table.add_scores(features, 0, scores);
}

/// Scores the tags of position `i` in the second pass (after `t1`, `t2`,
/// the second pass's tags of the two previous words; `first`: the first
/// pass's tags of the sentence) with `table` into `scores`, with
/// `features` as scratch. O(features × tags).
pub(crate) fn score_second(
    table: &impl Rows,
    words: &[WordHashes],
    i: usize,
    (t1, t2): (u32, u32),
    first: &[u32],
    features: &mut Vec<u64>,
    scores: &mut [f32],
) {
    emission_features(words, i, features);
    features.extend_from_slice(&context_features(words, i, t1, t2));
    features.extend_from_slice(&right_context(words, i, first, t1, end_tag(scores.len())));
    scores.iter_mut().for_each(|s| *s = 0.0);
    table.add_scores(features, 0, scores);
}

/// Scores FEATS at position `i` for its tag `t` with `table` (the emission
/// features of `i` are in `emission`), and puts the best class of every
/// attribute in `out` (0 for the attributes not allowed with `t`).
/// `features` and `scores` are scratch. O(features × FEATS width).
#[allow(clippy::too_many_arguments)]
pub(crate) fn choose_feats(
    table: &impl Rows,
    set: &FeatsSet,
    offsets: &[usize],
    word: &WordHashes,
    t: u32,
    emission: &[u64],
    features: &mut Vec<u64>,
    scores: &mut Vec<f32>,
    out: &mut [u32],
) {
    features.clear();
    features.extend_from_slice(emission);
    features.extend_from_slice(&own_tag_features(word, t));
    let first = offsets.first().copied().unwrap_or(0);
    scores.clear();
    scores.resize(set.width(), 0.0);
    table.add_scores(features, first, scores);
    out.iter_mut().for_each(|c| *c = 0);
    for &a in &set.allowed[t as usize] {
        let a = a as usize;
        let start = offsets[a] - first;
        out[a] = best(&scores[start..start + set.attributes[a].values.len() + 1]);
    }
}

/// Dense context weights of a table: t₋₁ → t and t₋₂ t₋₁ → t, read once
/// (what Viterbi decoding needs at every position). O(T² × T).
pub(crate) fn dense_context(table: &impl Rows, tags: usize, scores: &mut SequenceScores) {
    let k = tags;
    scores.tags = k;
    scores.first.clear();
    scores.first.resize((k + 1) * k, 0.0);
    scores.second.clear();
    scores.second.resize((k + 1) * (k + 1) * k, 0.0);
    for t1 in 0..=k {
        table.add_scores(&[previous_tag(t1 as u32)], 0, &mut scores.first[t1 * k..(t1 + 1) * k]);
        for t2 in 0..=k {
            let at = (t2 * (k + 1) + t1) * k;
            table.add_scores(&[previous_tags(t2 as u32, t1 as u32)], 0, &mut scores.second[at..at + k]);
        }
    }
}

/// The buffers of one sentence's decoding.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decoder {
    pub features: Vec<u64>,
    pub scores: Vec<f32>,
    pub sequence: SequenceScores,
    pub chart: Chart,
    /// Whether `sequence` holds the dense context of the table (Viterbi).
    pub dense_ready: bool,
    /// The first pass's tags (with a second pass).
    pub first: Vec<u32>,
}

impl Decoder {
    /// Tags `words` (with `fixed` tags for the dictionary words) with
    /// `table` into `out`. Greedy: each word's best tag after those chosen
    /// before it; Viterbi: the best sequence. Viterbi needs the dense
    /// context of `table` in `self.sequence` ([`dense_context`]).
    pub fn decode(
        &mut self,
        table: &impl Rows,
        tags: usize,
        decode: Decode,
        words: &[WordHashes],
        fixed: &[Option<u32>],
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let start = start_tag(tags);
        match decode {
            Decode::Greedy => {
                self.scores.clear();
                self.scores.resize(tags, 0.0);
                let (features, scores) = (&mut self.features, &mut self.scores);
                left_to_right(fixed, start, out, |i, previous| {
                    score_tags(table, words, i, previous, features, scores);
                    best(scores)
                });
            }
            Decode::Viterbi => {
                debug_assert!(self.dense_ready);
                let (k, n) = (tags, words.len());
                let seq = &mut self.sequence;
                seq.fixed.clear();
                seq.fixed.extend_from_slice(fixed);
                seq.emission.clear();
                seq.emission.resize(n * k, 0.0);
                seq.lexical.clear();
                seq.lexical.resize(n * (k + 1) * k, 0.0);
                for i in 0..n {
                    emission_features(words, i, &mut self.features);
                    let row = &mut seq.emission[i * k..(i + 1) * k];
                    // A fixed position's emission is the same for every
                    // sequence: not read.
                    if fixed[i].is_none() {
                        table.add_scores(&self.features, 0, row);
                    }
                    // The tags the previous word can have: the start, its
                    // dictionary tag, or any.
                    let previous = match i.checked_sub(1).map(|j| fixed[j]) {
                        None => k..k + 1,
                        Some(Some(t)) => t as usize..t as usize + 1,
                        Some(None) => 0..k,
                    };
                    for t1 in previous {
                        let at = (i * (k + 1) + t1) * k;
                        let f = lexical_context(words, i, t1 as u32);
                        table.add_scores(&f, 0, &mut seq.lexical[at..at + k]);
                    }
                }
                viterbi(seq, &mut self.chart, out);
            }
        }
    }

    /// Greedy decoding of `words` with `table` into `out`, as
    /// [`Decoder::decode`] does, adding the scores of every position that
    /// is not fixed into `sums` (n × tags; position i's row is i, or n − 1 − i
    /// if `reversed`: `words` is the sentence read right to left).
    /// O(n × features × tags).
    #[allow(clippy::too_many_arguments)]
    pub fn greedy_sums(
        &mut self,
        table: &impl Rows,
        tags: usize,
        words: &[WordHashes],
        fixed: &[Option<u32>],
        out: &mut Vec<u32>,
        sums: &mut [f32],
        reversed: bool,
    ) {
        let n = words.len();
        self.scores.clear();
        self.scores.resize(tags, 0.0);
        let (features, scores) = (&mut self.features, &mut self.scores);
        left_to_right(fixed, start_tag(tags), out, |i, previous| {
            score_tags(table, words, i, previous, features, scores);
            let row = if reversed { n - 1 - i } else { i };
            sums[row * tags..(row + 1) * tags].iter_mut().zip(scores.iter()).for_each(|(s, x)| *s += x);
            best(scores)
        });
    }

    /// The second pass: re-tags `words` left to right, greedily, with
    /// `table` (the second pass's), reading the first pass's tags in
    /// `out`, which receives the new ones. O(n × features × tags).
    pub fn second_pass(
        &mut self,
        table: &impl Rows,
        tags: usize,
        words: &[WordHashes],
        fixed: &[Option<u32>],
        out: &mut Vec<u32>,
    ) {
        std::mem::swap(&mut self.first, out);
        let start = start_tag(tags);
        self.scores.clear();
        self.scores.resize(tags, 0.0);
        let (first, features, scores) = (&self.first, &mut self.features, &mut self.scores);
        left_to_right(fixed, start, out, |i, previous| {
            score_second(table, words, i, previous, first, features, scores);
            best(scores)
        });
    }
}

/// Tags left to right into `out` (cleared first): each word gets its
/// `fixed` tag, or `pick(i, (t₋₁, t₋₂))` given the two tags before it (the
/// `start` tag before the first word). O(n) calls of `pick`.
fn left_to_right(
    fixed: &[Option<u32>],
    start: u32,
    out: &mut Vec<u32>,
    mut pick: impl FnMut(usize, (u32, u32)) -> u32,
) {
    out.clear();
    for (i, &f) in fixed.iter().enumerate() {
        let t = match f {
            Some(t) => t,
            None => {
                let t1 = if i >= 1 { out[i - 1] } else { start };
                let t2 = if i >= 2 { out[i - 2] } else { start };
                pick(i, (t1, t2))
            }
        };
        out.push(t);
    }
}

/// Applies a [`TaggerModel`]: one per thread, reused for every sentence
/// (no allocation once warm). Greedy: O(n × features × tags) per sentence;
/// Viterbi: O(n × (features × tags + tags³)).
pub struct Tagger<'m> {
    model: &'m TaggerModel,
    decode: Decode,
    scratch: Scratch,
    words: Vec<WordHashes>,
    fixed: Vec<Option<u32>>,
    /// The sentence read right to left (the right-to-left directions).
    reversed: Vec<WordHashes>,
    reversed_fixed: Vec<Option<u32>>,
    /// The two directions' summed scores, n × tags ([`Direction::Both`]).
    sums: Vec<f32>,
    backward_tags: Vec<u32>,
    decoder: Decoder,
    offsets: Vec<usize>,
    feats_features: Vec<u64>,
    feats_scores: Vec<f32>,
    /// The tags of the last sentence tagged.
    pub tags: Vec<u32>,
    /// With FEATS: the class of every attribute of every word of the last
    /// sentence, word after word.
    pub feats: Vec<u32>,
    buffer: Vec<u8>,
}

impl<'m> Tagger<'m> {
    /// A tagger applying `model` with `decode`.
    pub fn new(model: &'m TaggerModel, decode: Decode) -> Self {
        let mut decoder = Decoder::default();
        if decode == Decode::Viterbi {
            dense_context(model.compact(), model.tags.len(), &mut decoder.sequence);
            decoder.dense_ready = true;
        }
        Tagger {
            model,
            decode,
            scratch: Scratch::default(),
            words: Vec::new(),
            fixed: Vec::new(),
            reversed: Vec::new(),
            reversed_fixed: Vec::new(),
            sums: Vec::new(),
            backward_tags: Vec::new(),
            decoder,
            offsets: model.feats.as_ref().map_or(Vec::new(), |f| f.offsets(model.tags.len())),
            feats_features: Vec::new(),
            feats_scores: Vec::new(),
            tags: Vec::new(),
            feats: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// Tags the words `forms`: fills [`Tagger::tags`] (and [`Tagger::feats`]).
    pub fn tag<'a>(&mut self, forms: impl IntoIterator<Item = &'a [u8]>) {
        let model = self.model;
        self.words.clear();
        self.fixed.clear();
        for form in forms {
            let mut w = WordHashes::of(form, &mut self.scratch);
            w.class = model.ambiguity_class(w.lower);
            self.fixed.push(model.dictionary_tag(w.form));
            self.words.push(w);
        }
        let table = model.compact();
        let (k, n) = (model.tags.len(), self.words.len());
        let right_to_left = model.options.direction == Direction::RightToLeft;
        if right_to_left || model.options.direction == Direction::Both {
            self.reversed.clear();
            self.reversed.extend(self.words.iter().rev());
            self.reversed_fixed.clear();
            self.reversed_fixed.extend(self.fixed.iter().rev());
        }
        match (model.options.direction, model.backward_compact()) {
            (Direction::RightToLeft, _) => {
                self.decoder.decode(table, k, self.decode, &self.reversed, &self.reversed_fixed, &mut self.tags);
                self.tags.reverse();
            }
            (Direction::Both, Some(backward)) => {
                self.sums.clear();
                self.sums.resize(n * k, 0.0);
                let d = &mut self.decoder;
                d.greedy_sums(table, k, &self.words, &self.fixed, &mut self.tags, &mut self.sums, false);
                let (words, fixed) = (&self.reversed, &self.reversed_fixed);
                d.greedy_sums(backward, k, words, fixed, &mut self.backward_tags, &mut self.sums, true);
                for (i, t) in self.tags.iter_mut().enumerate() {
                    if self.fixed[i].is_none() {
                        *t = best(&self.sums[i * k..(i + 1) * k]);
                    }
                }
            }
            // Left to right (and a two-way model whose right-to-left table
            // is not trained yet).
            _ => self.decoder.decode(table, k, self.decode, &self.words, &self.fixed, &mut self.tags),
        }
        if let Some(second) = model.second_compact() {
            self.decoder.second_pass(second, model.tags.len(), &self.words, &self.fixed, &mut self.tags);
        }
        if let Some(set) = &model.feats {
            let a = set.attributes.len();
            self.feats.clear();
            self.feats.resize(self.words.len() * a, 0);
            for i in 0..n {
                // The features as the first table was trained on them.
                if right_to_left {
                    emission_features(&self.reversed, n - 1 - i, &mut self.decoder.features);
                } else {
                    emission_features(&self.words, i, &mut self.decoder.features);
                }
                choose_feats(
                    table,
                    set,
                    &self.offsets,
                    &self.words[i],
                    self.tags[i],
                    &self.decoder.features,
                    &mut self.feats_features,
                    &mut self.feats_scores,
                    &mut self.feats[i * a..(i + 1) * a],
                );
            }
        }
    }

    /// The block `raw` with the UPOS (and, for a tagger with FEATS, the
    /// FEATS) of its syntactic words replaced by the tagger's, every other
    /// byte copied, appended to `out`; the number of words. Errors name
    /// `file` and the line. O(bytes + tagging).
    pub fn tag_block(&mut self, raw: &RawSentence, file: &str, out: &mut Vec<u8>) -> Result<usize, TaggerError> {
        let cols = Columns::scan(raw, file)?;
        let text = &raw.text;
        self.tag(cols.words.iter().map(|w| &text[w.form.clone()]));
        let model = self.model;
        let mut done = 0;
        let a = model.feats.as_ref().map_or(0, |f| f.attributes.len());
        for (i, w) in cols.words.iter().enumerate() {
            out.extend_from_slice(&text[done..w.upos.start]);
            out.extend_from_slice(model.tags[self.tags[i] as usize].as_bytes());
            done = w.upos.end;
            if let Some(set) = &model.feats {
                out.extend_from_slice(&text[done..w.feats.start]);
                self.buffer.clear();
                set.write(&self.feats[i * a..(i + 1) * a], &mut self.buffer);
                out.extend_from_slice(&self.buffer);
                done = w.feats.end;
            }
        }
        out.extend_from_slice(&text[done..]);
        Ok(cols.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of `model`'s file rewritten as version 3 wrote them: no
    /// direction line, and the checksum of that.
    fn as_version_3(model: &TaggerModel) -> Vec<u8> {
        let bytes = model.to_bytes();
        let body = &bytes[..bytes.len() - 8];
        let end = memchr::memmem::find(body, b"\nend\n").expect("a header") + 5;
        let header = String::from_utf8(body[..end].to_vec()).unwrap();
        let line = format!("direction {}\n", model.options.direction);
        assert!(header.contains(&line));
        assert!(header.contains("\nensemble 1\n"));
        let header = header.replacen("version 4\n", "version 3\n", 1).replacen(&line, "", 1);
        let mut out = header.replacen("\nensemble 1\n", "\n", 1).into_bytes();
        out.extend_from_slice(&body[end..]);
        let sum = crate::parser::model::checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Version 3 files (the same features, left to right, no direction
    /// line) are still read, as left-to-right taggers.
    #[test]
    fn version_3_files_are_read_as_left_to_right() {
        let tags: Vec<String> = ["NOUN", "VERB"].iter().map(|t| t.to_string()).collect();
        let w: Vec<f32> = (0..(1 << 6) * 2).map(|i| (i % 7) as f32 - 3.0).collect();
        let weights = Weights::from_vec(6, 2, w).unwrap();
        let lexicon = vec![("dogs".to_owned(), 1), ("run".to_owned(), 3)];
        let options = TaggerOptions { bits: 6, backward_epochs: 0, ..TaggerOptions::default() };
        let model =
            TaggerModel::new(tags.clone(), None, vec![], lexicon.clone(), options.clone(), weights.clone()).unwrap();
        let old = as_version_3(&model);
        assert_eq!(TaggerModel::from_bytes(&old).unwrap(), model);
        // A version 3 file has no direction: a right-to-left tagger's table
        // read from one is a left-to-right tagger's.
        let o = TaggerOptions { direction: Direction::RightToLeft, ..options };
        let rtl = TaggerModel::new(tags, None, vec![], lexicon, o, weights).unwrap();
        assert_eq!(TaggerModel::from_bytes(&as_version_3(&rtl)).unwrap(), model);
        // A version 3 file with a direction line is corrupt.
        let mut text = model.to_bytes();
        let at = memchr::memmem::find(&text, b"version 4").unwrap();
        text[at + 8] = b'3';
        assert!(matches!(TaggerModel::from_bytes(&text), Err(TaggerError::Corrupt(m)) if m.contains("passes")));
    }
}
