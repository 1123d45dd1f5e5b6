//! Feature extraction: the Zhang & Nivre (2011) templates, as PanParser uses
//! them (seed 001, Sec. 3): words and UPOS of s0–s2 and b0–b2, the leftmost
//! and rightmost children (and second ones) of s0, s1 and b0 with their
//! labels, valency (number of left / right children) and distance, in
//! single, pair and triple conjunctions.
//!
//! A feature is a 64-bit hash of its template number and values; the
//! [perceptron](super::perceptron) maps it to a row of a fixed table.
//! [`ArcState`] keeps what the [`Configuration`] does not: the labels and
//! the outer children of every word. Extraction is O(1) per configuration
//! (about a hundred features) and allocates nothing once the buffers are
//! warm.

use super::columns::Columns;
use crate::oracle::{Configuration, Root};

/// The name of this feature set, stored in model files: a model is only
/// read back by the same templates. Models that read more columns
/// ([`FeatureColumns`]) add `+feats`, `+lemma` and `+xpos` to it.
pub const FEATURE_SET: &str = "zn2011-v3";

/// The same templates and a few on the FEATS column (`tabula train --feats`).
pub const FEATURE_SET_FEATS: &str = "zn2011-v3+feats";

/// The CoNLL-U columns the features read beyond FORM and UPOS (`tabula
/// train --feats --lemma --xpos`), each with a few templates of its own.
/// A model file names them after [`FEATURE_SET`]: `zn2011-v3+feats+xpos`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeatureColumns {
    /// FEATS (morphological features), hashed whole.
    pub feats: bool,
    /// LEMMA.
    pub lemma: bool,
    /// XPOS (the treebank's own tags).
    pub xpos: bool,
}

impl FeatureColumns {
    /// FORM and UPOS only.
    pub const NONE: FeatureColumns = FeatureColumns { feats: false, lemma: false, xpos: false };

    /// The columns in the order of their names, each with its CoNLL-U name.
    pub fn named(self) -> [(bool, &'static str); 3] {
        [(self.feats, "FEATS"), (self.lemma, "LEMMA"), (self.xpos, "XPOS")]
    }

    /// What a column holds, for messages: "morphological features", ….
    pub fn content(column: &str) -> &'static str {
        match column {
            "FEATS" => "morphological features",
            "LEMMA" => "lemmas",
            _ => "treebank-specific tags (XPOS)",
        }
    }

    /// The feature set's name in a model file: [`FEATURE_SET`] and a
    /// `+column` for each column read.
    pub fn feature_set(self) -> String {
        let mut name = FEATURE_SET.to_owned();
        for (on, column) in self.named() {
            if on {
                name.push('+');
                name.push_str(&column.to_ascii_lowercase());
            }
        }
        name
    }

    /// The columns a feature set's name reads, or `None` for another
    /// feature set (or the columns out of order).
    pub fn from_feature_set(name: &str) -> Option<FeatureColumns> {
        let mut rest = name.strip_prefix(FEATURE_SET)?;
        let mut take = |column: &str| match rest.strip_prefix(column) {
            Some(r) => {
                rest = r;
                true
            }
            None => false,
        };
        let columns = FeatureColumns { feats: take("+feats"), lemma: take("+lemma"), xpos: take("+xpos") };
        rest.is_empty().then_some(columns)
    }

    /// The first of these columns that is `_` for every word of
    /// `sentences` (none if there are no words): features that would
    /// never fire. O(words).
    pub fn blank_in<'a>(self, sentences: impl Iterator<Item = &'a Tokens> + Clone) -> Option<&'static str> {
        let mut words = sentences.clone().filter(|t| !t.is_empty()).peekable();
        words.peek()?;
        self.named()
            .into_iter()
            .filter(|&(on, _)| on)
            .map(|(_, column)| column)
            .find(|column| sentences.clone().all(|t| t.blank(column)))
    }
}

const NONE: u32 = u32::MAX;

/// What the hashes of FEATS, LEMMA and XPOS values are mixed with, to keep
/// them apart from FORMs.
const FEATS_SALT: u64 = 0x27d4_eb2f;
const LEMMA_SALT: u64 = 0x1234_5678;
const XPOS_SALT: u64 = 0x8765_4321;

/// A 64-bit mixer (the finalizer of MurmurHash3). O(1).
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A hash of a byte string (FNV-1a, then [`mix`]). O(bytes).
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(h)
}

/// The hashed FORM and UPOS of positions 0 … n (0: the root).
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    pub words: Vec<u64>,
    pub tags: Vec<u64>,
    /// The last three characters of the FORM (the whole FORM if shorter):
    /// what generalises to unknown words.
    pub suffixes: Vec<u64>,
    /// The FEATS column (morphological features), hashed whole.
    pub feats: Vec<u64>,
    /// The LEMMA column.
    pub lemmas: Vec<u64>,
    /// The XPOS column.
    pub xpos: Vec<u64>,
}

impl Tokens {
    /// From the FORM, UPOS, FEATS, LEMMA and XPOS columns of a block. O(bytes of the words).
    pub fn from_columns(text: &[u8], cols: &Columns) -> Tokens {
        let mut t = Tokens::default();
        t.fill(text, cols);
        t
    }

    /// Refills from a block, reusing the buffers.
    pub fn fill(&mut self, text: &[u8], cols: &Columns) {
        self.words.clear();
        self.tags.clear();
        self.suffixes.clear();
        self.feats.clear();
        self.lemmas.clear();
        self.xpos.clear();
        self.lemmas.push(hash_bytes(b"<ROOT>"));
        self.xpos.push(hash_bytes(b"<ROOT>"));
        self.feats.push(hash_bytes(b"<ROOT>"));
        self.words.push(hash_bytes(b"<ROOT>"));
        self.tags.push(hash_bytes(b"<ROOT>"));
        self.suffixes.push(hash_bytes(b"<ROOT>"));
        for w in &cols.words {
            let form = &text[w.form.clone()];
            self.words.push(hash_bytes(form));
            self.tags.push(hash_bytes(&text[w.upos.clone()]));
            self.suffixes.push(hash_bytes(suffix(form, 3)) ^ 0x5bd1_e995);
            self.feats.push(hash_bytes(&text[w.feats.clone()]) ^ FEATS_SALT);
            self.lemmas.push(hash_bytes(&text[w.lemma.clone()]) ^ LEMMA_SALT);
            self.xpos.push(hash_bytes(&text[w.xpos.clone()]) ^ XPOS_SALT);
        }
    }

    /// Whether `column` (FEATS, LEMMA or XPOS) is `_` for every word.
    /// O(n).
    fn blank(&self, column: &str) -> bool {
        let (values, salt) = match column {
            "FEATS" => (&self.feats, FEATS_SALT),
            "LEMMA" => (&self.lemmas, LEMMA_SALT),
            _ => (&self.xpos, XPOS_SALT),
        };
        let blank = hash_bytes(b"_") ^ salt;
        values.iter().skip(1).all(|&v| v == blank)
    }

    /// Number of words n.
    pub fn len(&self) -> usize {
        self.words.len().saturating_sub(1)
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `tokens` laid out for the root at `root`: themselves (first), or copied
/// into `buffer` as position 0 the bottom of the stack (`<BOTTOM>`), the
/// words, then the root (`<ROOT>`) as the last position
/// ([`Root::Last`](crate::oracle::Root::Last)). O(1) or O(n), no allocation
/// once `buffer` is warm.
pub fn laid_out<'a>(tokens: &'a Tokens, root: Root, buffer: &'a mut Tokens) -> &'a Tokens {
    if root == Root::First {
        return tokens;
    }
    // A column left empty (Tokens made by hand, without it) stays empty.
    let lay = |to: &mut Vec<u64>, from: &[u64]| {
        to.clear();
        if from.is_empty() {
            return;
        }
        to.push(hash_bytes(b"<BOTTOM>"));
        to.extend_from_slice(&from[1..]);
        to.push(from[0]);
    };
    lay(&mut buffer.words, &tokens.words);
    lay(&mut buffer.tags, &tokens.tags);
    lay(&mut buffer.suffixes, &tokens.suffixes);
    lay(&mut buffer.feats, &tokens.feats);
    lay(&mut buffer.lemmas, &tokens.lemmas);
    lay(&mut buffer.xpos, &tokens.xpos);
    buffer
}

/// The last `chars` UTF-8 characters of `form` (all of it if shorter).
/// O(chars).
fn suffix(form: &[u8], chars: usize) -> &[u8] {
    let mut start = form.len();
    let mut seen = 0;
    while start > 0 && seen < chars {
        start -= 1;
        // A character starts at a byte that is not a continuation byte.
        if form[start] & 0xc0 != 0x80 {
            seen += 1;
        }
    }
    &form[start..]
}

/// Labels and outer children of every position, updated arc by arc.
#[derive(Clone, Debug, Default)]
pub struct ArcState {
    label: Vec<u32>,
    /// Leftmost and second leftmost child.
    left: Vec<[u32; 2]>,
    /// Rightmost and second rightmost child.
    right: Vec<[u32; 2]>,
    nleft: Vec<u16>,
    nright: Vec<u16>,
    /// The labels of the left / right children, as a set (bit `label % 64`).
    lset: Vec<u64>,
    rset: Vec<u64>,
}

impl ArcState {
    /// Clears for a sentence of `n` words, reusing the buffers. O(n).
    pub fn reset(&mut self, n: usize) {
        self.label.clear();
        self.label.resize(n + 1, NONE);
        self.left.clear();
        self.left.resize(n + 1, [NONE; 2]);
        self.right.clear();
        self.right.resize(n + 1, [NONE; 2]);
        self.nleft.clear();
        self.nleft.resize(n + 1, 0);
        self.nright.clear();
        self.nright.resize(n + 1, 0);
        self.lset.clear();
        self.lset.resize(n + 1, 0);
        self.rset.clear();
        self.rset.resize(n + 1, 0);
    }

    /// Makes `self` a copy of `other`, reusing `self`'s buffers (no
    /// allocation once they are as large as `other`'s). O(n).
    pub fn assign(&mut self, other: &ArcState) {
        self.label.clone_from(&other.label);
        self.left.clone_from(&other.left);
        self.right.clone_from(&other.right);
        self.nleft.clone_from(&other.nleft);
        self.nright.clone_from(&other.nright);
        self.lset.clone_from(&other.lset);
        self.rset.clone_from(&other.rset);
    }

    /// Copies what `other` holds for word `w` (its label, outer children,
    /// valency and label sets) into `self`, of the same length. O(1).
    pub(crate) fn copy_word(&mut self, other: &ArcState, w: usize) {
        self.label[w] = other.label[w];
        self.left[w] = other.left[w];
        self.right[w] = other.right[w];
        self.nleft[w] = other.nleft[w];
        self.nright[w] = other.nright[w];
        self.lset[w] = other.lset[w];
        self.rset[w] = other.rset[w];
    }

    /// Number of positions (n + 1 for a sentence of n words).
    pub(crate) fn positions(&self) -> usize {
        self.label.len()
    }

    /// Records the arc head → dep with label index `label`. O(1).
    pub fn add(&mut self, head: usize, dep: usize, label: u32) {
        self.label[dep] = label;
        let d = dep as u32;
        if dep < head {
            let l = &mut self.left[head];
            if l[0] == NONE || d < l[0] {
                l[1] = l[0];
                l[0] = d;
            } else if l[1] == NONE || d < l[1] {
                l[1] = d;
            }
            self.nleft[head] = self.nleft[head].saturating_add(1);
            self.lset[head] |= 1 << (label % 64);
        } else {
            let r = &mut self.right[head];
            if r[0] == NONE || d > r[0] {
                r[1] = r[0];
                r[0] = d;
            } else if r[1] == NONE || d > r[1] {
                r[1] = d;
            }
            self.nright[head] = self.nright[head].saturating_add(1);
            self.rset[head] |= 1 << (label % 64);
        }
    }

    /// The label index given to `dep`, if it has a head.
    pub fn label(&self, dep: usize) -> Option<u32> {
        self.label.get(dep).copied().filter(|&l| l != NONE)
    }
}

/// Fills feature vectors; holds no state between configurations.
#[derive(Clone, Debug, Default)]
pub struct Extractor {
    /// The features of the last configuration extracted.
    pub features: Vec<u64>,
    /// The columns beyond FORM and UPOS whose templates are added.
    pub columns: FeatureColumns,
}

const W_NONE: u64 = 0x9e37_79b9_7f4a_7c15;
const T_NONE: u64 = 0x3c6e_f372_fe94_f82a;

impl Extractor {
    #[inline]
    fn push(&mut self, template: u64, a: u64, b: u64, c: u64) {
        let h = mix(template.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ a);
        let h = mix(h ^ b.rotate_left(17));
        self.features.push(mix(h ^ c.rotate_left(31)));
    }

    /// The features of `c` (with the labels and children in `arcs`) for the
    /// sentence `tokens`, into [`Extractor::features`]. O(1), no allocation
    /// once warm.
    ///
    /// Templates that are constant for the configuration's system are left
    /// out: those on b₀'s children where b₀ never has any (arc-standard,
    /// LR-spine, Attardi: [`TransitionSystem::front_has_children`]), and
    /// those on the heads and labels of stack words where they never have
    /// one (all but arc-eager: [`TransitionSystem::stack_words_have_heads`]).
    ///
    /// [`TransitionSystem::front_has_children`]: crate::oracle::TransitionSystem::front_has_children
    /// [`TransitionSystem::stack_words_have_heads`]: crate::oracle::TransitionSystem::stack_words_have_heads
    pub fn extract(&mut self, c: &Configuration, arcs: &ArcState, tokens: &Tokens) {
        self.features.clear();
        let system = c.system().definition();
        let (front, heads) = (system.front_has_children(), system.stack_words_have_heads());
        let n = c.sentence_len();
        let stack = c.stack();
        let k = stack.len();
        let at = |i: usize| if i < k { stack[k - 1 - i] as u32 } else { NONE };
        let (s0, s1, s2) = (at(0), at(1), at(2));
        let next = c.next_input().unwrap_or(n + 1);
        // After an unshift (arc-eager-nm) the unshifted word is the whole input.
        let alone = c.unshifted().is_some();
        let buf = |i: usize| if next + i <= n && (i == 0 || !alone) { (next + i) as u32 } else { NONE };
        let (b0, b1, b2) = (buf(0), buf(1), buf(2));
        let w = |p: u32| if p == NONE { W_NONE } else { tokens.words[p as usize] };
        let t = |p: u32| if p == NONE { T_NONE } else { tokens.tags[p as usize] };
        let l = |p: u32| if p == NONE { 1 } else { arcs.label[p as usize] as u64 + 2 };
        let lc = |p: u32, i: usize| if p == NONE { NONE } else { arcs.left[p as usize][i] };
        let rc = |p: u32, i: usize| if p == NONE { NONE } else { arcs.right[p as usize][i] };
        let vl = |p: u32| if p == NONE { 0 } else { arcs.nleft[p as usize] as u64 + 1 };
        let vr = |p: u32| if p == NONE { 0 } else { arcs.nright[p as usize] as u64 + 1 };
        let dist = |a: u32, b: u32| if a == NONE || b == NONE { 0 } else { (b.abs_diff(a) as u64).min(6) + 1 };
        let wt = |p: u32| mix(w(p) ^ t(p).rotate_left(7));

        let (s0w, s0t, s1w, s1t, b0w, b0t) = (w(s0), t(s0), w(s1), t(s1), w(b0), t(b0));
        let (s0wt, s1wt, b0wt) = (wt(s0), wt(s1), wt(b0));
        let (s0l, s0r, s1l, s1r, b0l) = (lc(s0, 0), rc(s0, 0), lc(s1, 0), rc(s1, 0), lc(b0, 0));
        let (s0l2, s0r2, s1l2, s1r2, b0l2) = (lc(s0, 1), rc(s0, 1), lc(s1, 1), rc(s1, 1), lc(b0, 1));
        let d1 = dist(s0, b0);
        let d2 = dist(s1, s0);

        self.push(0, 0, 0, 0);
        // Single words.
        self.push(1, s0w, 0, 0);
        self.push(2, s0t, 0, 0);
        self.push(3, s0wt, 0, 0);
        self.push(4, s1w, 0, 0);
        self.push(5, s1t, 0, 0);
        self.push(6, s1wt, 0, 0);
        self.push(7, b0w, 0, 0);
        self.push(8, b0t, 0, 0);
        self.push(9, b0wt, 0, 0);
        self.push(10, w(b1), 0, 0);
        self.push(11, t(b1), 0, 0);
        self.push(12, wt(b1), 0, 0);
        self.push(13, w(b2), 0, 0);
        self.push(14, t(b2), 0, 0);
        self.push(15, t(s2), 0, 0);
        self.push(16, w(s2), 0, 0);
        // Pairs.
        self.push(20, s0wt, b0wt, 0);
        self.push(21, s0wt, b0w, 0);
        self.push(22, s0w, b0wt, 0);
        self.push(23, s0wt, b0t, 0);
        self.push(24, s0t, b0wt, 0);
        self.push(25, s0w, b0w, 0);
        self.push(26, s0t, b0t, 0);
        self.push(27, b0t, t(b1), 0);
        self.push(28, s0wt, s1wt, 0);
        self.push(29, s0w, s1w, 0);
        self.push(30, s0t, s1t, 0);
        self.push(31, s0wt, s1t, 0);
        self.push(32, s0t, s1wt, 0);
        self.push(33, s1t, b0t, 0);
        self.push(34, s1w, b0w, 0);
        // Triples of tags.
        self.push(40, b0t, t(b1), t(b2));
        self.push(41, s0t, b0t, t(b1));
        self.push(42, s1t, s0t, b0t);
        self.push(43, s0t, t(s0l), b0t);
        self.push(44, s0t, t(s0r), b0t);
        if front {
            self.push(45, s0t, b0t, t(b0l));
        }
        self.push(46, s1t, s0t, t(s0l));
        self.push(47, s1t, s0t, t(s0r));
        self.push(48, s1t, t(s1l), s0t);
        self.push(49, s1t, t(s1r), s0t);
        self.push(50, t(s2), s1t, s0t);
        // Distance.
        self.push(60, s0w, d1, 0);
        self.push(61, s0t, d1, 0);
        self.push(62, b0w, d1, 0);
        self.push(63, b0t, d1, 0);
        self.push(64, s0w, b0w, d1);
        self.push(65, s0t, b0t, d1);
        self.push(66, s0w, d2, 0);
        self.push(67, s0t, d2, 0);
        self.push(68, s1w, d2, 0);
        self.push(69, s1t, d2, 0);
        self.push(70, s0t, s1t, d2);
        self.push(71, s0w, s1w, d2);
        // Valency.
        self.push(72, s0w, vr(s0), 0);
        self.push(73, s0t, vr(s0), 0);
        self.push(74, s0w, vl(s0), 0);
        self.push(75, s0t, vl(s0), 0);
        self.push(76, s1w, vl(s1), 0);
        self.push(77, s1t, vl(s1), 0);
        self.push(78, s1w, vr(s1), 0);
        self.push(79, s1t, vr(s1), 0);
        if front {
            self.push(80, b0w, vl(b0), 0);
            self.push(81, b0t, vl(b0), 0);
        }
        // Children: word, tag, label.
        let mut id = 90;
        for (p, of_front) in
            [s0l, s0r, s1l, s1r, b0l, s0l2, s0r2, s1l2, s1r2, b0l2].into_iter().zip((0..10).map(|i| i % 5 == 4))
        {
            if front || !of_front {
                self.push(id, w(p), 0, 0);
                self.push(id + 1, t(p), 0, 0);
                self.push(id + 2, l(p), 0, 0);
            }
            id += 3;
        }
        // Third order: labels of the two outer children.
        self.push(130, s0t, l(s0l), l(s0l2));
        self.push(131, s0t, l(s0r), l(s0r2));
        if front {
            self.push(132, b0t, l(b0l), l(b0l2));
        }
        self.push(133, s1t, l(s1l), l(s1l2));
        self.push(134, s1t, l(s1r), l(s1r2));
        // Labels of the stack words themselves (arc-eager: s0 may have a head).
        if heads {
            self.push(135, l(s0), s0t, 0);
            self.push(136, l(s1), s1t, 0);
        }
        // Label sets of the left / right children (Zhang & Nivre 2011).
        let ls = |p: u32| if p == NONE { 1 } else { arcs.lset[p as usize] ^ 0x100 };
        let rs = |p: u32| if p == NONE { 1 } else { arcs.rset[p as usize] ^ 0x100 };
        self.push(140, s0w, rs(s0), 0);
        self.push(141, s0t, rs(s0), 0);
        self.push(142, s0w, ls(s0), 0);
        self.push(143, s0t, ls(s0), 0);
        self.push(144, s1w, rs(s1), 0);
        self.push(145, s1t, rs(s1), 0);
        self.push(146, s1w, ls(s1), 0);
        self.push(147, s1t, ls(s1), 0);
        if front {
            self.push(148, b0w, ls(b0), 0);
            self.push(149, b0t, ls(b0), 0);
        }
        // Heads (arc-eager: s0 may have one) and heads' heads.
        if heads {
            let h = |p: u32| if p == NONE { NONE } else { c.head(p as usize).map_or(NONE, |h| h as u32) };
            let (s0h, s1h) = (h(s0), h(s1));
            let s0hh = h(s0h);
            self.push(150, w(s0h), 0, 0);
            self.push(151, t(s0h), 0, 0);
            self.push(152, t(s0h), s0t, b0t);
            self.push(153, t(s0hh), l(s0h), 0);
            self.push(154, w(s1h), t(s1h), 0);
        }
        // Tags of the two outer children.
        self.push(155, s0t, t(s0l), t(s0l2));
        self.push(156, s0t, t(s0r), t(s0r2));
        self.push(157, s1t, t(s1l), t(s1l2));
        self.push(158, s1t, t(s1r), t(s1r2));
        if front {
            self.push(159, b0t, t(b0l), t(b0l2));
        }
        // Suffixes (unknown words).
        let sf = |p: u32| if p == NONE { W_NONE } else { tokens.suffixes[p as usize] };
        self.push(160, sf(s0), 0, 0);
        self.push(161, sf(s0), s0t, 0);
        self.push(162, sf(b0), 0, 0);
        self.push(163, sf(b0), b0t, 0);
        self.push(164, sf(s1), s1t, 0);
        self.push(165, sf(b1), t(b1), 0);
        self.push(166, sf(s0), sf(b0), 0);
        // Word of one with the tag of the other, s1 and b0.
        self.push(167, s1w, b0t, 0);
        self.push(168, s1t, b0w, 0);
        // The tags of the words next to s0 and s1 in the sentence (whether
        // or not they are still on the stack or in the input): what
        // surrounds a phrase tells where it ends (punctuation, coordination).
        let beside = |p: u32, right: bool| match p {
            NONE | 0 => NONE,
            _ if right && (p as usize) < n => p + 1,
            _ if !right && p > 1 => p - 1,
            _ => NONE,
        };
        let (s0p, s0n, s1p, s1n) = (beside(s0, false), beside(s0, true), beside(s1, false), beside(s1, true));
        self.push(180, s0t, t(s0p), 0);
        self.push(181, s0t, t(s0n), 0);
        self.push(182, s1t, t(s1p), 0);
        self.push(183, s1t, t(s1n), 0);
        self.push(184, s0t, t(s0p), t(s0n));
        self.push(185, s1t, t(s1n), s0t);
        self.push(186, s0t, t(s0p), s1t);
        if self.columns.lemma {
            let m = |p: u32| if p == NONE { W_NONE } else { tokens.lemmas[p as usize] };
            self.push(190, m(s0), 0, 0);
            self.push(191, m(s1), 0, 0);
            self.push(192, m(b0), 0, 0);
            self.push(193, m(b1), 0, 0);
            self.push(194, m(s0), m(b0), 0);
            self.push(195, m(s1), m(s0), 0);
            self.push(196, m(s0), s0t, b0t);
            self.push(197, m(b0), b0t, s0t);
        }
        if self.columns.xpos {
            let x = |p: u32| if p == NONE { T_NONE } else { tokens.xpos[p as usize] };
            self.push(200, x(s0), 0, 0);
            self.push(201, x(s1), 0, 0);
            self.push(202, x(b0), 0, 0);
            self.push(203, x(b1), 0, 0);
            self.push(204, x(s0), x(b0), 0);
            self.push(205, x(s1), x(s0), 0);
            self.push(206, x(s0), x(b0), x(b1));
            self.push(207, x(s1), x(s0), x(b0));
        }
        if self.columns.feats {
            let f = |p: u32| if p == NONE { T_NONE } else { tokens.feats[p as usize] };
            self.push(170, f(s0), 0, 0);
            self.push(171, f(s1), 0, 0);
            self.push(172, f(b0), 0, 0);
            self.push(173, f(b1), 0, 0);
            self.push(174, f(s0), f(b0), 0);
            self.push(175, f(s1), f(s0), 0);
            self.push(176, f(s0), s0t, b0t);
            self.push(177, f(s1), s1t, s0t);
            self.push(178, f(b0), b0t, s0t);
        }
    }
}
