//! The tagger's features: word shape, affixes and a window of words around
//! the word tagged (emission features, which do not depend on the tags
//! chosen), and the tags chosen before it (context features).
//!
//! Each word is hashed once ([`WordHashes`]: its form, lowercased form,
//! prefixes of 1–4 and suffixes of 1–5 characters, shape); a feature is a
//! hash of its template number and values, mapped to a row of a hashed
//! weight table as the parser's features are ([`crate::parser::perceptron`]).
//!
//! Emission templates at position i (w: lowercased word; shape: Latin
//! letters, other letters, digits and other characters as `A`/`a`,
//! `X`/`x`, `d`, `-`, runs collapsed):
//! bias; form of w₀; w₀; w₋₁; w₋₂; w₊₁; w₊₂; prefixes 1–4 and suffixes 1–5
//! of w₀; shape of w₀; shape of w₀ at the sentence start; the 3-suffix of
//! w₋₁ and w₊₁; shape of w₋₁ and w₊₁; w₋₁ w₀; w₀ w₊₁; the length of w₀ (up
//! to 10); the ambiguity classes (the set of tags the training data has
//! for the word, [`WordHashes::class`]) of w₀, w₊₁, w₊₂ and w₋₁; those of
//! w₀ and w₊₁ together; that of w₀ with its 3-suffix; the shapes of w₋₁,
//! w₀ and w₊₁ together; the 3-suffix of w₀ with w₊₁; and for a word not in
//! the lexicon (Ratnaparkhi 1996's rare words), its suffixes of 1–4 and
//! prefixes of 1–2 characters and its shape (with the sentence start), each
//! with weights of its own. Context templates
//! (t₋₁ and t₋₂: the tags of the two previous words; a sentence start has
//! its own tag value): t₋₁; t₋₂ t₋₁; t₋₁ w₀; t₋₁ and the ambiguity class of
//! w₀; t₋₁ w₊₁.
//!
//! O(bytes) per word to hash, O(1) per position to list the features; no
//! allocation once the buffers are warm.

use crate::parser::features::{hash_bytes, mix};

/// The name of this feature set, stored in tagger files: a tagger is only
/// read back by the same templates.
pub const FEATURE_SET: &str = "tagger-v2";

/// The most emission features of one position: 34, and 7 more for a
/// word the lexicon does not have.
pub const EMISSION_FEATURES: usize = 41;

/// A word enters the lexicon (its ambiguity class, [`WordHashes::class`])
/// if training has it this many times or more: the rarer words stand for
/// the unknown words of new text.
pub const LEXICON_MIN_COUNT: u32 = 3;

/// Number of context features ([`context_features`]).
pub const CONTEXT_FEATURES: usize = 2 + LEXICAL_CONTEXT;

/// Number of context features that read words ([`lexical_context`]).
pub const LEXICAL_CONTEXT: usize = 3;

/// The hashes of one word that the templates read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordHashes {
    pub form: u64,
    pub lower: u64,
    pub prefixes: [u64; 4],
    pub suffixes: [u64; 5],
    pub shape: u64,
    /// The length in characters (at most 10).
    pub length: u8,
    /// The ambiguity class: the tags the lexicon has for the word (bit t:
    /// tag t), 0 for a word not in it. Set by the caller.
    pub class: u64,
}

/// A template's feature for `value`. O(1).
#[inline]
fn feature(template: u64, value: u64) -> u64 {
    mix(value ^ template.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The hashes of the padding words before the sentence (`which` = 1, 2)
/// and after it (3, 4).
fn padding(which: u8) -> WordHashes {
    let h = hash_bytes(&[b'<', b'P', b'A', b'D', which, b'>']);
    WordHashes { form: h, lower: h, prefixes: [h; 4], suffixes: [h; 5], shape: h, length: 0, class: h }
}

/// Lowercases `form` into `buffer` (ASCII fast path; otherwise Unicode's
/// lowercase mapping; bytes that are not UTF-8 are kept). O(bytes).
pub fn lowercase_into(form: &[u8], buffer: &mut Vec<u8>) {
    buffer.clear();
    if form.is_ascii() {
        buffer.extend(form.iter().map(u8::to_ascii_lowercase));
        return;
    }
    match std::str::from_utf8(form) {
        Ok(s) => {
            let mut tmp = [0u8; 4];
            for c in s.chars().flat_map(char::to_lowercase) {
                buffer.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
        }
        Err(_) => buffer.extend_from_slice(form),
    }
}

/// The byte offsets where the characters of `s` start (UTF-8; any byte
/// that is not a continuation byte), pushed into `starts`. O(bytes).
fn char_starts(s: &[u8], starts: &mut Vec<usize>) {
    starts.clear();
    starts.extend(s.iter().enumerate().filter(|(_, &b)| b & 0xc0 != 0x80).map(|(i, _)| i));
}

/// The shape class of one character: `A` and `a` Latin letters (upper,
/// lower or other), `X` and `x` other letters, `d` digit, `-` anything
/// else (Latin script sets foreign words apart in a Greek text).
fn shape_class(c: char) -> u8 {
    let latin = c.is_ascii_alphabetic() || ('\u{c0}'..='\u{24f}').contains(&c);
    if c.is_uppercase() {
        if latin {
            b'A'
        } else {
            b'X'
        }
    } else if c.is_alphabetic() {
        if latin {
            b'a'
        } else {
            b'x'
        }
    } else if c.is_numeric() {
        b'd'
    } else {
        b'-'
    }
}

/// Reusable buffers for [`WordHashes::of`].
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    lower: Vec<u8>,
    starts: Vec<usize>,
    shape: Vec<u8>,
}

impl WordHashes {
    /// The hashes of the word `form`. O(bytes).
    pub fn of(form: &[u8], scratch: &mut Scratch) -> WordHashes {
        lowercase_into(form, &mut scratch.lower);
        let lower = &scratch.lower;
        char_starts(lower, &mut scratch.starts);
        let chars = scratch.starts.len();
        let mut prefixes = [0; 4];
        for (k, p) in prefixes.iter_mut().enumerate() {
            let end = scratch.starts.get(k + 1).copied().unwrap_or(lower.len());
            *p = hash_bytes(&lower[..end]) ^ (k as u64 + 1);
        }
        let mut suffixes = [0; 5];
        for (k, s) in suffixes.iter_mut().enumerate() {
            let start = if k + 1 >= chars { 0 } else { scratch.starts[chars - k - 1] };
            *s = hash_bytes(&lower[start..]) ^ ((k as u64 + 1) << 8);
        }
        scratch.shape.clear();
        match std::str::from_utf8(form) {
            Ok(s) => {
                for c in s.chars() {
                    let class = shape_class(c);
                    // Runs of more than two of a class collapse to two.
                    let n = scratch.shape.len();
                    if n >= 2 && scratch.shape[n - 1] == class && scratch.shape[n - 2] == class {
                        continue;
                    }
                    scratch.shape.push(class);
                }
            }
            Err(_) => scratch.shape.push(b'?'),
        }
        WordHashes {
            form: hash_bytes(form),
            lower: hash_bytes(lower),
            prefixes,
            suffixes,
            shape: hash_bytes(&scratch.shape) ^ 0x5ea9e,
            length: chars.min(10) as u8,
            class: 0,
        }
    }
}

/// The emission features of position `i` of `words` into `out` (cleared
/// first): [`EMISSION_FEATURES`] of them for a word not in the lexicon
/// (`class` 0), 7 fewer for the others. O(1).
pub fn emission_features(words: &[WordHashes], i: usize, out: &mut Vec<u64>) {
    let at = |j: isize| -> WordHashes {
        let k = i as isize + j;
        if k < 0 {
            padding(if k == -1 { 1 } else { 2 })
        } else if k as usize >= words.len() {
            padding(if k as usize == words.len() { 3 } else { 4 })
        } else {
            words[k as usize]
        }
    };
    let (w0, p1, p2, n1, n2) = (words[i], at(-1), at(-2), at(1), at(2));
    out.clear();
    out.extend_from_slice(&[
        feature(1, 0),
        feature(2, w0.form),
        feature(3, w0.lower),
        feature(4, p1.lower),
        feature(5, p2.lower),
        feature(6, n1.lower),
        feature(7, n2.lower),
        feature(8, w0.prefixes[0]),
        feature(8, w0.prefixes[1]),
        feature(8, w0.prefixes[2]),
        feature(53, w0.prefixes[3]),
        feature(9, w0.suffixes[0]),
        feature(9, w0.suffixes[1]),
        feature(9, w0.suffixes[2]),
        feature(9, w0.suffixes[3]),
        feature(9, w0.suffixes[4]),
        feature(10, w0.shape),
        feature(11, w0.shape ^ u64::from(i == 0)),
        feature(12, p1.suffixes[2]),
        feature(13, n1.suffixes[2]),
        feature(14, p1.shape),
        feature(15, n1.shape),
        feature(16, mix(p1.lower) ^ w0.lower),
        feature(17, mix(w0.lower) ^ n1.lower),
        feature(18, u64::from(w0.length)),
        feature(19, mix(w0.suffixes[1]) ^ p1.lower),
        feature(26, w0.class),
        feature(27, n1.class),
        feature(28, n2.class),
        feature(29, p1.class),
        feature(30, mix(w0.class) ^ n1.class),
        feature(31, mix(w0.class) ^ w0.suffixes[2]),
        feature(34, mix(mix(p1.shape) ^ w0.shape) ^ n1.shape),
        feature(35, mix(w0.suffixes[2]) ^ n1.lower),
    ]);
    if w0.class == 0 {
        // A word the lexicon does not have (seen fewer than
        // [`LEXICON_MIN_COUNT`] times in training): weights of its own for
        // its affixes and shape (Ratnaparkhi 1996's rare-word features).
        out.extend_from_slice(&[
            feature(50, w0.suffixes[0]),
            feature(50, w0.suffixes[1]),
            feature(50, w0.suffixes[2]),
            feature(50, w0.suffixes[3]),
            feature(51, w0.prefixes[0]),
            feature(51, w0.prefixes[1]),
            feature(52, w0.shape ^ u64::from(i == 0)),
        ]);
    }
    debug_assert!(out.len() <= EMISSION_FEATURES);
}

/// The context features of position `i` of `words` when the two previous
/// words have the tags `t1` (the previous word) and `t2` (tag indices;
/// [`start_tag`] at the sentence start): [`previous_tag`],
/// [`previous_tags`], then [`lexical_context`]. O(1).
#[inline]
pub fn context_features(words: &[WordHashes], i: usize, t1: u32, t2: u32) -> [u64; CONTEXT_FEATURES] {
    let [a, b, c] = lexical_context(words, i, t1);
    [previous_tag(t1), previous_tags(t2, t1), a, b, c]
}

/// The context features of position `i` that read words as well as the
/// previous tag `t1`: t₋₁ w₀; t₋₁ and the ambiguity class of w₀; t₋₁ w₊₁. O(1).
#[inline]
pub fn lexical_context(words: &[WordHashes], i: usize, t1: u32) -> [u64; LEXICAL_CONTEXT] {
    let w = &words[i];
    let next = words.get(i + 1).map_or_else(|| padding(3).lower, |n| n.lower);
    let t = mix(u64::from(t1) + 1);
    [previous_tag_word(w, t1), feature(32, w.class ^ t), feature(33, next ^ t)]
}

/// Number of right-context features of the second pass ([`right_context`]).
pub const RIGHT_CONTEXT: usize = 8;

/// The features of position `i` that read the first pass's tags (the
/// second pass, [`super::model`]): r₀, r₊₁ and r₊₂ are the tags the first
/// pass gave to the word and the two after it (`end` past the sentence),
/// `t1` the tag the second pass chose for the previous word. Templates:
/// r₀; r₊₁; r₊₁ r₊₂; r₀ r₊₁; t₋₁ r₊₁; r₊₁ w₀; r₊₁ and the ambiguity class
/// of w₀; r₊₁ and the 3-suffix of w₀. O(1).
#[inline]
pub fn right_context(words: &[WordHashes], i: usize, first: &[u32], t1: u32, end: u32) -> [u64; RIGHT_CONTEXT] {
    let w = &words[i];
    let r0 = u64::from(first[i]);
    let r1 = u64::from(first.get(i + 1).copied().unwrap_or(end));
    let r2 = u64::from(first.get(i + 2).copied().unwrap_or(end));
    let m1 = mix(r1 + 1);
    [
        feature(40, r0),
        feature(41, r1),
        feature(42, (r1 << 32) | r2),
        feature(43, (r0 << 32) | r1),
        feature(44, (u64::from(t1) << 32) | r1),
        feature(45, w.lower ^ m1),
        feature(46, w.class ^ mix(m1)),
        feature(47, w.suffixes[2] ^ mix(mix(m1))),
    ]
}

/// The feature t₋₁. O(1).
#[inline]
pub fn previous_tag(t1: u32) -> u64 {
    feature(20, u64::from(t1))
}

/// The feature t₋₂ t₋₁. O(1).
#[inline]
pub fn previous_tags(t2: u32, t1: u32) -> u64 {
    feature(21, (u64::from(t2) << 32) | u64::from(t1))
}

/// The feature t₋₁ w₀. O(1).
#[inline]
pub fn previous_tag_word(w: &WordHashes, t1: u32) -> u64 {
    feature(22, w.lower ^ mix(u64::from(t1) + 1))
}

/// The features that condition FEATS on the word's own tag `t`: t; t and
/// the 2-suffix; t and w₀ (FEATS is predicted after the tag). O(1).
#[inline]
pub fn own_tag_features(w: &WordHashes, t: u32) -> [u64; 3] {
    let t = u64::from(t) + 1;
    [feature(23, t), feature(24, w.suffixes[1] ^ mix(t)), feature(25, w.lower ^ mix(t << 8))]
}

/// The tag value that stands for "before the sentence" in the context
/// features of a tagger with `tags` tags.
pub fn start_tag(tags: usize) -> u32 {
    tags as u32
}

/// The tag value that stands for "after the sentence" in the right-context
/// features ([`right_context`]) of a tagger with `tags` tags.
pub fn end_tag(tags: usize) -> u32 {
    tags as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affixes_count_characters_not_bytes() {
        let mut s = Scratch::default();
        let greek = WordHashes::of("Λόγος".as_bytes(), &mut s);
        let lower = WordHashes::of("λόγος".as_bytes(), &mut s);
        assert_eq!(greek.lower, lower.lower);
        assert_ne!(greek.form, lower.form);
        assert_eq!(greek.suffixes, lower.suffixes);
        assert_eq!(greek.length, 5);
        // "ος" is the 2-suffix of both words.
        let other = WordHashes::of("νόμος".as_bytes(), &mut s);
        assert_eq!(other.suffixes[1], lower.suffixes[1]);
        assert_ne!(other.suffixes[2], lower.suffixes[2]);
        // A short word: suffixes beyond its length are the whole word.
        let a = WordHashes::of(b"a", &mut s);
        assert_eq!(a.suffixes[3] ^ (4 << 8), a.suffixes[0] ^ (1 << 8));
    }

    #[test]
    fn shapes_collapse_runs() {
        let mut s = Scratch::default();
        let a = WordHashes::of(b"Abcdef", &mut s);
        let b = WordHashes::of(b"Xyz", &mut s);
        let c = WordHashes::of(b"1999", &mut s);
        let d = WordHashes::of(b"20", &mut s);
        assert_eq!(a.shape, b.shape);
        assert_eq!(c.shape, d.shape);
        assert_ne!(a.shape, c.shape);
    }

    #[test]
    fn features_are_distinct_and_fixed_in_number() {
        let mut s = Scratch::default();
        let mut words: Vec<WordHashes> =
            ["The", "dog", "barks", "."].iter().map(|w| WordHashes::of(w.as_bytes(), &mut s)).collect();
        // "dog" is in the lexicon; the other words are not, and get the
        // rare-word features as well.
        words[1].class = 0b101;
        let mut out = Vec::new();
        for i in 0..words.len() {
            emission_features(&words, i, &mut out);
            let expected = if i == 1 { EMISSION_FEATURES - 7 } else { EMISSION_FEATURES };
            assert_eq!(out.len(), expected, "position {i}");
            let mut sorted = out.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), out.len(), "position {i}");
        }
        let c = context_features(&words, 1, 0, start_tag(3));
        assert_ne!(c, context_features(&words, 1, 1, start_tag(3)));
        assert_ne!(c, context_features(&words, 1, 0, 0));
    }
}
