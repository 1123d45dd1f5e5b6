//! Preferring among optimal projectivizations: a secondary arc weight and
//! the lexicographic (gold arcs, secondary score) objective.
//!
//! Nederhof (2019), Sec. 8.1, leaves open which of the many optimal trees
//! (Fig. 8) to output. [`PreferringProjectivizer`] runs the same grammar
//! and engine as [`OptimalProjectivizer`](super::OptimalProjectivizer), in
//! the [`Lexicographic`] semiring over two max-plus scores: the primary
//! weight of an arc is 1 for a gold arc, else 0 (Sec. 3), the secondary is
//! [`Weights`]' score of the arc. So W is (the most gold arcs a projective
//! tree keeps, the best secondary score among the trees keeping them), and the
//! backtrace returns a tree reaching both.
//!
//! [`Objective::ValidFirst`] puts the UD validator's `leaf-*` errors first:
//! the primary weight of an arc is then 1 for a gold arc minus n + 1 for an
//! arc under a function word that may not take it ([`FunctionWords`]), so
//! W's primary part orders trees by the fewest such arcs, then the most gold
//! arcs (a tree has at most n gold arcs), and the secondary score breaks
//! the remaining ties as before.

use super::function_words::FunctionWords;
use super::{ProjectivizeError, SentenceTerminals, TreeClass};
use crate::engine::Parser;
use crate::grammar::{Grammar, Terminal};
use crate::semiring::{Lexicographic, MaxPlus};
use crate::tree::DepTree;
use hashbrown::HashMap;
use std::fmt;

/// The text of the default weights (`--prefer default`), documented rule by
/// rule in the file itself.
pub const DEFAULT_WEIGHTS: &str = include_str!("default.weights");

/// The largest absolute value of one weight: keeps every sum over a
/// sentence far inside [`MaxPlus`]'s range.
pub const MAX_WEIGHT: i64 = 1_000_000_000;

/// The largest weights file [`read_weights_file`] reads: 16 MiB (the
/// default weights take 3 KiB).
pub const MAX_WEIGHTS_FILE: u64 = 16 << 20;

/// The text of a weights file, for [`Weights::parse`]: a regular file
/// (not a device, FIFO or directory) of at most [`MAX_WEIGHTS_FILE`] bytes,
/// in UTF-8. The error's message does not name the path. O(size).
pub fn read_weights_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file (a weights file is a text file of rules)"));
    }
    if meta.len() > MAX_WEIGHTS_FILE {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{} bytes, more than a weights file may have ({MAX_WEIGHTS_FILE})", meta.len()),
        ));
    }
    let mut text = String::new();
    // Never more than the limit, whatever the file becomes.
    file.take(MAX_WEIGHTS_FILE).read_to_string(&mut text)?;
    Ok(text)
}

/// A secondary weight function over arcs (h, d), by the positions of h and
/// d in the gold tree and their UPOS and DEPREL: w₂(h, d) is the sum of the
/// rules that match. The first four look at the head and the arc's
/// direction and apply to every arc, gold or not (so among equally many gold
/// arcs, those under leaves are the ones to drop); the others describe a
/// *new* head and apply only to arcs that are not gold arcs.
///
/// | rule | arcs | adds W when |
/// |---|---|---|
/// | `head-deprel REL W` | all | h's DEPREL is REL (h ≥ 1) |
/// | `head-upos UPOS W` | all | h's UPOS is UPOS (h ≥ 1) |
/// | `head-after REL W` | all | d's DEPREL is REL and h > d (the head follows the word) |
/// | `leaf W` | all | h is a function word that may not take d (UD's rule, [`FunctionWords`]) |
/// | `ancestor K W` | new | h is d's gold ancestor K ≥ 2 steps up (`K` = `*`: any K without a rule of its own) |
/// | `dep-deprel REL W` | new | d's DEPREL is REL (the cost of moving d) |
/// | `dep-upos UPOS W` | new | d's UPOS is UPOS |
/// | `root W` | new | h = 0 (the root position) |
/// | `same-side W` | new | h is on the same side of d as d's gold head |
///
/// A word's DEPREL matches REL if it equals REL, or if no rule of that kind
/// names the full DEPREL and its universal part (before `:`) equals REL.
/// Weights are integers within ±[`MAX_WEIGHT`]. Parse a file with
/// [`Weights::parse`]; [`Weights::default`] is [`DEFAULT_WEIGHTS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// `ancestor[k]` for k ≥ 2 (entries 0 and 1 unused).
    ancestor: Vec<i64>,
    ancestor_other: i64,
    head_deprel: HashMap<Box<[u8]>, i64>,
    head_upos: HashMap<Box<[u8]>, i64>,
    dep_deprel: HashMap<Box<[u8]>, i64>,
    dep_upos: HashMap<Box<[u8]>, i64>,
    head_after: HashMap<Box<[u8]>, i64>,
    leaf: i64,
    root: i64,
    same_side: i64,
}

/// One error in a weights file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsErrorKind {
    #[error("unknown rule `{0}` (expected ancestor, head-deprel, head-upos, dep-deprel, dep-upos, head-after, leaf, root or same-side)")]
    UnknownRule(String),
    #[error("`{rule}` takes {expected} field(s) after its name, found {found}")]
    Arity { rule: &'static str, expected: usize, found: usize },
    #[error("`{0}` is not an integer weight within ±1000000000")]
    BadWeight(String),
    #[error("`{0}` is not an ancestor distance (an integer from 2 to 10000, or `*`)")]
    BadDistance(String),
    #[error("a rule for `{key}` was already given on line {first}")]
    Duplicate { key: String, first: usize },
}

/// An error in a weights file, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct WeightsError {
    pub line: usize,
    pub kind: WeightsErrorKind,
}

/// All errors of a weights file (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightsErrors(pub Vec<WeightsError>);

impl fmt::Display for WeightsErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for WeightsErrors {}

impl Default for Weights {
    fn default() -> Self {
        Weights::parse(DEFAULT_WEIGHTS).expect("the default weights parse")
    }
}

impl Weights {
    /// No rule: every arc weighs 0 (the secondary score breaks no tie).
    pub fn empty() -> Self {
        Weights {
            ancestor: Vec::new(),
            ancestor_other: 0,
            head_deprel: HashMap::new(),
            head_upos: HashMap::new(),
            dep_deprel: HashMap::new(),
            dep_upos: HashMap::new(),
            head_after: HashMap::new(),
            leaf: 0,
            root: 0,
            same_side: 0,
        }
    }

    /// Parses a weights file: one rule per line (fields separated by
    /// whitespace), `#` starts a comment, blank lines are ignored; see the
    /// table in [`Weights`]. Each rule and key may be given once. Returns
    /// every error, each with its line. O(bytes).
    pub fn parse(text: &str) -> Result<Weights, WeightsErrors> {
        let mut w = Weights::empty();
        let mut errors = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let content = line.split('#').next().unwrap_or("");
            let fields: Vec<&str> = content.split_whitespace().collect();
            let Some((&rule, args)) = fields.split_first() else { continue };
            let mut fail = |kind| errors.push(WeightsError { line: line_no, kind });
            let (name, expected): (&'static str, usize) = match rule {
                "ancestor" => ("ancestor", 2),
                "head-deprel" => ("head-deprel", 2),
                "head-upos" => ("head-upos", 2),
                "dep-deprel" => ("dep-deprel", 2),
                "dep-upos" => ("dep-upos", 2),
                "head-after" => ("head-after", 2),
                "leaf" => ("leaf", 1),
                "root" => ("root", 1),
                "same-side" => ("same-side", 1),
                other => {
                    fail(WeightsErrorKind::UnknownRule(other.to_owned()));
                    continue;
                }
            };
            if args.len() != expected {
                fail(WeightsErrorKind::Arity { rule: name, expected, found: args.len() });
                continue;
            }
            let raw_weight = args[expected - 1];
            let weight = match raw_weight.parse::<i64>() {
                Ok(v) if v.abs() <= MAX_WEIGHT => v,
                _ => {
                    fail(WeightsErrorKind::BadWeight(raw_weight.to_owned()));
                    continue;
                }
            };
            let key = if expected == 2 { format!("{name} {}", args[0]) } else { name.to_owned() };
            if let Some(&first) = seen.get(&key) {
                fail(WeightsErrorKind::Duplicate { key, first });
                continue;
            }
            let label = || args[0].as_bytes().to_vec().into_boxed_slice();
            match name {
                "ancestor" if args[0] == "*" => w.ancestor_other = weight,
                "ancestor" => match args[0].parse::<usize>() {
                    Ok(k) if (2..=10_000).contains(&k) => {
                        if w.ancestor.len() <= k {
                            w.ancestor.resize(k + 1, i64::MIN);
                        }
                        w.ancestor[k] = weight;
                    }
                    _ => {
                        fail(WeightsErrorKind::BadDistance(args[0].to_owned()));
                        continue;
                    }
                },
                "head-deprel" => drop(w.head_deprel.insert(label(), weight)),
                "head-upos" => drop(w.head_upos.insert(label(), weight)),
                "dep-deprel" => drop(w.dep_deprel.insert(label(), weight)),
                "dep-upos" => drop(w.dep_upos.insert(label(), weight)),
                "head-after" => drop(w.head_after.insert(label(), weight)),
                "leaf" => w.leaf = weight,
                "root" => w.root = weight,
                _ => w.same_side = weight,
            }
            seen.insert(key, line_no);
        }
        if errors.is_empty() {
            Ok(w)
        } else {
            Err(WeightsErrors(errors))
        }
    }

    /// The weight of the ancestor k ≥ 2 steps up.
    #[inline]
    fn ancestor(&self, k: usize) -> i64 {
        match self.ancestor.get(k) {
            Some(&v) if v != i64::MIN => v,
            _ => self.ancestor_other,
        }
    }

    /// Prepares `arcs` for a sentence with gold tree `gold` and words
    /// `labels`, so that [`Weights::arc`] gives w₂ of any arc — the values
    /// [`Weights::fill`] writes into its matrix — in O(n) memory. O(n) time
    /// plus O(n) hash look-ups; `arcs` is reused (no allocation once grown).
    ///
    /// # Errors
    /// If `labels` does not have one entry per word.
    pub fn prepare(&self, gold: &DepTree, labels: &WordLabels, arcs: &mut ArcWeights) -> Result<(), ProjectivizeError> {
        let n = gold.len();
        if labels.len() != n {
            return Err(ProjectivizeError::Labels { words: n, labels: labels.len() });
        }
        let size = n + 1;
        arcs.leaf = self.leaf != 0;
        if arcs.leaf {
            arcs.function_words.read(labels);
        }
        for v in [&mut arcs.as_head, &mut arcs.as_dep, &mut arcs.after] {
            v.clear();
            v.resize(size, 0);
        }
        for v in [&mut arcs.head, &mut arcs.depth, &mut arcs.enter, &mut arcs.exit] {
            v.clear();
            v.resize(size, 0);
        }
        arcs.as_head[0] = self.root;
        for i in 1..size {
            let (upos, deprel) = labels.get(i);
            arcs.as_head[i] = relation(&self.head_deprel, deprel) + lookup(&self.head_upos, upos);
            arcs.as_dep[i] = relation(&self.dep_deprel, deprel) + lookup(&self.dep_upos, upos);
            arcs.after[i] = relation(&self.head_after, deprel);
            arcs.head[i] = gold.head(i) as u32;
        }
        // Children lists by counting sort, then an iterative Euler tour from 0.
        arcs.first_child.clear();
        arcs.first_child.resize(size + 1, 0);
        for d in 1..size {
            arcs.first_child[arcs.head[d] as usize + 1] += 1;
        }
        for i in 1..=size {
            arcs.first_child[i] += arcs.first_child[i - 1];
        }
        arcs.children.clear();
        arcs.children.resize(n, 0);
        arcs.cursor.clone_from(&arcs.first_child);
        for d in 1..size {
            let h = arcs.head[d] as usize;
            arcs.children[arcs.cursor[h] as usize] = d as u32;
            arcs.cursor[h] += 1;
        }
        let mut clock = 0u32;
        arcs.stack.clear();
        arcs.stack.push((0, arcs.first_child[0]));
        arcs.enter[0] = clock;
        while let Some(&mut (v, ref mut at)) = arcs.stack.last_mut() {
            if *at < arcs.first_child[v as usize + 1] {
                let c = arcs.children[*at as usize];
                *at += 1;
                clock += 1;
                arcs.enter[c as usize] = clock;
                arcs.depth[c as usize] = arcs.depth[v as usize] + 1;
                arcs.stack.push((c, arcs.first_child[c as usize]));
            } else {
                clock += 1;
                arcs.exit[v as usize] = clock;
                arcs.stack.pop();
            }
        }
        let largest = |v: &[i64]| v.iter().map(|x| x.unsigned_abs()).max().unwrap_or(0);
        let ancestor = self.ancestor.iter().filter(|&&v| v != i64::MIN).chain([&self.ancestor_other]);
        let ancestor = ancestor.map(|v| v.unsigned_abs()).max().unwrap_or(0);
        let per_dep = (1..size).map(|d| arcs.as_dep[d].unsigned_abs() + arcs.after[d].unsigned_abs()).max();
        arcs.bound = largest(&arcs.as_head)
            + per_dep.unwrap_or(0)
            + self.leaf.unsigned_abs()
            + self.same_side.unsigned_abs()
            + ancestor;
        Ok(())
    }

    /// w₂(h, d) for the sentence `arcs` was prepared for (0 for d = 0 and
    /// h = d, as in [`Weights::fill`]'s matrix). O(1).
    #[inline]
    pub fn arc(&self, arcs: &ArcWeights, h: usize, d: usize) -> i64 {
        if d == 0 || h == d {
            return 0;
        }
        let g = arcs.head[d] as usize;
        let leaf = if arcs.leaf && h >= 1 && arcs.function_words.forbids(h, d) { self.leaf } else { 0 };
        let after = if h > d { arcs.after[d] } else { 0 };
        if h == g {
            // A gold arc: only the rules about the head itself.
            return if g == 0 { 0 } else { arcs.as_head[g] } + after + leaf;
        }
        let mut v = arcs.as_head[h] + arcs.as_dep[d] + leaf + after;
        if (h < d) == (g < d) {
            v += self.same_side;
        }
        if arcs.is_ancestor(h, d) {
            // h ≠ d and h is not the gold head: k ≥ 2 steps up.
            v += self.ancestor((arcs.depth[d] - arcs.depth[h]) as usize);
        }
        v
    }

    /// Fills `matrix` ((n+1)², row = head, column = dependent) with w₂ for
    /// every arc of a sentence with gold tree `gold` and words `labels`
    /// (UPOS, FEATS and DEPREL of words 1 … n). The diagonal gets 0.
    /// O(n²) time plus O(n) hash look-ups; `matrix` and `buffers` are reused
    /// (no allocation once they have grown). The projectivizer uses the
    /// O(n)-memory form ([`Weights::prepare`], [`Weights::arc`]), which gives
    /// the same values; this dense one is its reference.
    ///
    /// # Errors
    /// If `labels` does not have one entry per word; if the matrix would need
    /// more memory than the limit ([`crate::memory`]), before allocating it.
    pub fn fill(
        &self,
        gold: &DepTree,
        labels: &WordLabels,
        matrix: &mut Vec<i64>,
        buffers: &mut FillBuffers,
    ) -> Result<(), ProjectivizeError> {
        let n = gold.len();
        if labels.len() != n {
            return Err(ProjectivizeError::Labels { words: n, labels: labels.len() });
        }
        let size = n + 1;
        crate::memory::check(size.checked_mul(size), std::mem::size_of::<i64>(), || {
            format!("the preference weights for {n} words")
        })?;
        // Per word: its weight as a head, as a dependent, and with a head after it.
        let FillBuffers { per_word: scratch, function_words } = buffers;
        let leaf = self.leaf != 0;
        if leaf {
            function_words.read(labels);
        }
        scratch.clear();
        scratch.resize(3 * size, 0);
        let (as_head, rest) = scratch.split_at_mut(size);
        let (as_dep, after) = rest.split_at_mut(size);
        as_head[0] = self.root;
        for i in 1..size {
            let (upos, deprel) = labels.get(i);
            as_head[i] = relation(&self.head_deprel, deprel) + lookup(&self.head_upos, upos);
            as_dep[i] = relation(&self.dep_deprel, deprel) + lookup(&self.dep_upos, upos);
            after[i] = relation(&self.head_after, deprel);
        }
        matrix.clear();
        matrix.resize(size * size, 0);
        for d in 1..size {
            let g = gold.head(d);
            // A gold arc: only the rules about the head itself.
            let leaf_weight = |h: usize| if leaf && h >= 1 && function_words.forbids(h, d) { self.leaf } else { 0 };
            matrix[g * size + d] =
                if g == 0 { 0 } else { as_head[g] } + if g > d { after[d] } else { 0 } + leaf_weight(g);
            for h in 0..size {
                if h == d || h == g {
                    continue;
                }
                let mut v = as_head[h] + as_dep[d] + leaf_weight(h);
                if h > d {
                    v += after[d];
                }
                if (h < d) == (g < d) {
                    v += self.same_side;
                }
                matrix[h * size + d] = v;
            }
            // Gold ancestors k ≥ 2 steps up. A tree has no cycle, so the
            // walk ends at 0 within n steps.
            let mut a = g;
            let mut k = 1;
            while a != 0 {
                a = gold.head(a);
                k += 1;
                matrix[a * size + d] += self.ancestor(k);
            }
        }
        Ok(())
    }
}

/// Reusable buffers of [`Weights::fill`].
#[derive(Clone, Debug, Default)]
pub struct FillBuffers {
    per_word: Vec<i64>,
    function_words: FunctionWords,
}

/// The weights w₂ of one sentence in O(n) memory: what [`Weights::fill`]
/// writes into an (n+1)² matrix, computed per arc on demand
/// ([`Weights::arc`], O(1)) from a few numbers per word. w₂ is a function of
/// the gold tree and the words' labels: a term for the head, one for the
/// dependent, one for the direction, one for the side of the gold head,
/// the leaf rule (per pair of word classes) and, for a gold ancestor, its
/// distance, which the depths and an Euler tour of the gold tree give in
/// O(1). Filled by [`Weights::prepare`]; reused between sentences.
#[derive(Clone, Debug, Default)]
pub struct ArcWeights {
    /// Per position 0 … n: weight as a head (position 0: the `root` rule),
    /// as a dependent, with a head after it; gold head, depth, and the
    /// interval of its subtree in an Euler tour.
    as_head: Vec<i64>,
    as_dep: Vec<i64>,
    after: Vec<i64>,
    head: Vec<u32>,
    depth: Vec<u32>,
    enter: Vec<u32>,
    exit: Vec<u32>,
    /// Scratch of the Euler tour: children lists (counting sort) and a stack.
    first_child: Vec<u32>,
    cursor: Vec<u32>,
    children: Vec<u32>,
    stack: Vec<(u32, u32)>,
    function_words: FunctionWords,
    leaf: bool,
    /// A bound on |w₂(h, d)| over all arcs.
    bound: u64,
}

impl ArcWeights {
    /// The number of positions (n + 1; 0 before the first
    /// [`Weights::prepare`]).
    pub fn positions(&self) -> usize {
        self.as_head.len()
    }

    /// An upper bound on |w₂(h, d)| over every arc of the sentence: the sum
    /// of the largest absolute value of each term. O(1).
    pub fn bound(&self) -> u64 {
        self.bound
    }

    /// The bytes [`Weights::prepare`] needs for `n` words (for
    /// [`crate::memory`]): a few numbers per word. O(1).
    pub fn bytes_for(n: usize) -> Option<usize> {
        // Three i64, four u32 for the tree and the tour, three u32 of
        // children lists, two u16 of word classes, and the stack of the tour.
        (n + 1).checked_mul(3 * 8 + 4 * 4 + 3 * 4 + 2 * 2 + 8)
    }

    /// Whether `a` is a (proper or not) ancestor of `d` in the gold tree. O(1).
    #[inline]
    fn is_ancestor(&self, a: usize, d: usize) -> bool {
        self.enter[a] <= self.enter[d] && self.exit[d] <= self.exit[a]
    }
}

/// The weight for a DEPREL: its full value, else its universal part.
#[inline]
fn relation(map: &HashMap<Box<[u8]>, i64>, deprel: &[u8]) -> i64 {
    if map.is_empty() {
        return 0;
    }
    if let Some(&v) = map.get(deprel) {
        return v;
    }
    match deprel.iter().position(|&b| b == b':') {
        Some(colon) => map.get(&deprel[..colon]).copied().unwrap_or(0),
        None => 0,
    }
}

#[inline]
fn lookup(map: &HashMap<Box<[u8]>, i64>, key: &[u8]) -> i64 {
    if map.is_empty() {
        0
    } else {
        map.get(key).copied().unwrap_or(0)
    }
}

/// UPOS, FEATS and DEPREL of each word of a sentence, as byte ranges into
/// the sentence's CoNLL-U text (reused between sentences).
#[derive(Clone, Debug, Default)]
pub struct WordLabels {
    text: Vec<u8>,
    /// (UPOS start, end, DEPREL start, end) for words 1 … n.
    ranges: Vec<(u32, u32, u32, u32)>,
    /// (FEATS start, end) for words 1 … n.
    feats: Vec<(u32, u32)>,
}

impl WordLabels {
    /// Reads the UPOS (4th), FEATS (6th) and DEPREL (8th) columns of the word lines
    /// (integer ID) of one CoNLL-U sentence block; comment lines, ranges
    /// (`1-2`) and empty nodes (`1.1`) are skipped. A word line with fewer
    /// than eight columns gets empty labels. O(bytes); reuses its buffers.
    pub fn read_conllu(&mut self, block: &[u8]) {
        self.text.clear();
        self.text.extend_from_slice(block);
        self.ranges.clear();
        self.feats.clear();
        for l in crate::conllu::fields::field_lines(block) {
            if l.is_word(block) {
                let range = |i: usize| l.field(i).map_or((0, 0), |r| (r.start as u32, r.end as u32));
                let (upos, feats, deprel) = (range(3), range(5), range(7));
                self.ranges.push((upos.0, upos.1, deprel.0, deprel.1));
                self.feats.push(feats);
            }
        }
    }

    /// Labels from (UPOS, DEPREL) pairs of words 1 … n (FEATS empty).
    pub fn from_pairs<'a>(words: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self::from_columns(words.into_iter().map(|(upos, deprel)| (upos, "_", deprel)))
    }

    /// Labels from (UPOS, FEATS, DEPREL) triples of words 1 … n.
    pub fn from_columns<'a>(words: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> Self {
        let mut l = WordLabels::default();
        for (upos, feats, deprel) in words {
            let a = l.text.len() as u32;
            l.text.extend_from_slice(upos.as_bytes());
            let b = l.text.len() as u32;
            l.text.extend_from_slice(deprel.as_bytes());
            let c = l.text.len() as u32;
            l.text.extend_from_slice(feats.as_bytes());
            let d = l.text.len() as u32;
            l.ranges.push((a, b, b, c));
            l.feats.push((c, d));
        }
        l
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// (UPOS, DEPREL) of word i (1-based).
    #[inline]
    pub fn get(&self, i: usize) -> (&[u8], &[u8]) {
        let (a, b, c, d) = self.ranges[i - 1];
        (&self.text[a as usize..b as usize], &self.text[c as usize..d as usize])
    }

    /// FEATS of word i (1-based), as written (`_` or `Name=Value|…`).
    #[inline]
    pub fn feats(&self, i: usize) -> &[u8] {
        let (a, b) = self.feats[i - 1];
        &self.text[a as usize..b as usize]
    }
}

/// What a [`PreferringProjectivizer`] maximises first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// The most gold arcs (Nederhof 2019, Sec. 3), then the best secondary
    /// score.
    #[default]
    GoldFirst,
    /// The fewest arcs under a function word that may not take them (the UD
    /// validator's `leaf-*` errors, [`FunctionWords`]), then the most gold
    /// arcs, then the best secondary score.
    ValidFirst,
}

impl Objective {
    /// `gold-first` or `valid-first`.
    pub fn name(self) -> &'static str {
        match self {
            Objective::GoldFirst => "gold-first",
            Objective::ValidFirst => "valid-first",
        }
    }
}

/// A projective tree, the gold arcs it keeps, and its secondary score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preferred {
    pub tree: DepTree,
    /// Number of words whose gold head was kept: the optimum with
    /// [`Objective::GoldFirst`]; with [`Objective::ValidFirst`], the most
    /// among the trees with the fewest `leaf-*` errors.
    pub score: usize,
    /// Sum of the [`Weights`] of the tree's arcs: the best among the trees
    /// that are optimal for the objective.
    pub secondary: i64,
}

/// The packed key's multiplier of the gold-arc count: 2³².
const PACKED_SHIFT: i64 = 1 << 32;
/// Packing is exact while (n + 1) · max |w₂| stays below this (2³¹).
const PACKED_SECONDARY_BOUND: u64 = 1 << 31;
/// … and n below this, so that keys stay within ±2⁶¹ ([`MaxPlus`]'s range).
const PACKED_PRIMARY_BOUND: u64 = 1 << 28;

/// The engine's value: (gold arcs, secondary score), compared in that order.
pub type GoldThenPreference = Lexicographic<MaxPlus<i64>, MaxPlus<i64>>;

/// Optimal projectivization with a preference among the optimal trees.
///
/// ```
/// use tabula::grammar::text;
/// use tabula::projectivize::{PreferringProjectivizer, TreeClass, Weights, WordLabels};
/// use tabula::tree::DepTree;
/// let g = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
/// let mut p = PreferringProjectivizer::new(&g, TreeClass::Projective, Weights::default()).unwrap();
/// // 1 -> 3 crosses 0 -> 2: one of them goes. Word 3 may not hang from the comma 2
/// // (rule `leaf`) nor from the root (rule `root`), so it keeps its head and
/// // the comma moves to 1, on the same side as its gold head (rule `same-side`).
/// let gold = DepTree::from_heads(&[0, 0, 1]).unwrap();
/// let labels = WordLabels::from_pairs([("VERB", "root"), ("PUNCT", "punct"), ("ADV", "advmod")]);
/// let best = p.projectivize(&gold, &labels).unwrap();
/// assert_eq!(best.score, 2);
/// assert_eq!(best.tree.heads(), &[0, 1, 1]);
/// assert_eq!(best.secondary, 1);
/// ```
pub struct PreferringProjectivizer<'g> {
    parser: Parser<'g, GoldThenPreference>,
    packed: Parser<'g, MaxPlus<i64>>,
    terminals: SentenceTerminals,
    class: TreeClass,
    weights: Weights,
    objective: Objective,
    input: Vec<Terminal>,
    arcs: ArcWeights,
}

impl<'g> PreferringProjectivizer<'g> {
    /// A projectivizer for `grammar` preferring by `weights`; `class` as for
    /// [`OptimalProjectivizer::new`](super::OptimalProjectivizer::new).
    pub fn new(grammar: &'g Grammar, class: TreeClass, weights: Weights) -> Result<Self, ProjectivizeError> {
        let terminals = SentenceTerminals::for_grammar(grammar)?;
        Ok(PreferringProjectivizer {
            parser: Parser::new(grammar),
            packed: Parser::new(grammar),
            terminals,
            class,
            weights,
            objective: Objective::GoldFirst,
            input: Vec::new(),
            arcs: ArcWeights::default(),
        })
    }

    /// The same projectivizer maximising `objective` first (default
    /// [`Objective::GoldFirst`]).
    pub fn with_objective(mut self, objective: Objective) -> Self {
        self.objective = objective;
        self
    }

    /// The weights in use.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The objective in use.
    pub fn objective(&self) -> Objective {
        self.objective
    }

    /// A projective tree keeping the most gold arcs and, among those, with the
    /// highest secondary score (with [`Objective::ValidFirst`]: with the
    /// fewest `leaf-*` errors, then the most gold arcs, then the highest
    /// secondary score); remaining ties are broken like
    /// [`OptimalProjectivizer`](super::OptimalProjectivizer) breaks them
    /// ([module docs](super#ties)). A tree in the grammar's class is returned
    /// unchanged in O(n) (secondary 0: it keeps every gold arc); otherwise
    /// O(n³) time (Table 2) and the chart's O(n²) memory; the weights take
    /// O(n) ([`ArcWeights`]).
    pub fn projectivize(&mut self, gold: &DepTree, labels: &WordLabels) -> Result<Preferred, ProjectivizeError> {
        if self.class.contains(gold) {
            if labels.len() != gold.len() {
                return Err(ProjectivizeError::Labels { words: gold.len(), labels: labels.len() });
            }
            return Ok(Preferred { tree: gold.clone(), score: gold.len(), secondary: 0 });
        }
        self.projectivize_with_engine(gold, labels)
    }

    /// Like [`projectivize`](Self::projectivize) without the fast path. O(n³).
    ///
    /// The engine runs in [`GoldThenPreference`] or, when the sentence's
    /// scores are small enough (every partial secondary sum within ±2³¹,
    /// always so for the default weights and n < 10⁶), in plain max-plus on
    /// the packed key 2³² · gold + secondary, which orders derivations
    /// exactly as the lexicographic pair does (an isomorphism on that range),
    /// so both give the same tree, ties included; the packed form is about
    /// twice as fast (16 → 8 bytes, no three-way comparison). With
    /// [`Objective::ValidFirst`] the primary part ranges over ±(n + 1)², so
    /// the packed form needs (n + 1)² below 2²⁸.
    pub fn projectivize_with_engine(
        &mut self,
        gold: &DepTree,
        labels: &WordLabels,
    ) -> Result<Preferred, ProjectivizeError> {
        let n = gold.len();
        self.check_memory(n)?;
        self.prepare(gold, labels)?;
        let largest = self.arcs.bound();
        let primary = match self.objective {
            Objective::GoldFirst => n as u64,
            Objective::ValidFirst => (n as u64 + 1).saturating_mul(n as u64 + 1),
        };
        if largest.saturating_mul(n as u64 + 1) < PACKED_SECONDARY_BOUND && primary < PACKED_PRIMARY_BOUND {
            return self.parse_packed(gold);
        }
        self.parse_lexicographic(gold)
    }

    /// The weights of a sentence, and with [`Objective::ValidFirst`] its
    /// function words (whatever the `leaf` rule's weight). O(n).
    fn prepare(&mut self, gold: &DepTree, labels: &WordLabels) -> Result<(), ProjectivizeError> {
        self.weights.prepare(gold, labels, &mut self.arcs)?;
        if self.objective == Objective::ValidFirst && !self.arcs.leaf {
            self.arcs.function_words.read(labels);
        }
        Ok(())
    }

    /// The primary weight of the arc (h, d) of a sentence of n words (d ≥ 1):
    /// 1 for a gold arc, minus n + 1 for a `leaf-*` error with
    /// [`Objective::ValidFirst`]. O(1).
    #[inline]
    fn primary(objective: Objective, arcs: &ArcWeights, gold: &DepTree, h: usize, d: usize) -> i64 {
        let gold_arc = i64::from(d >= 1 && gold.head(d) == h);
        match objective {
            Objective::GoldFirst => gold_arc,
            Objective::ValidFirst => {
                let error = d >= 1 && h >= 1 && h != d && arcs.function_words.forbids(h, d);
                gold_arc - i64::from(error) * (gold.len() as i64 + 1)
            }
        }
    }

    /// The gold arcs kept, from the primary part of W. O(1).
    fn gold_arcs(&self, n: usize, primary: i64) -> usize {
        match self.objective {
            Objective::GoldFirst => primary as usize,
            // primary = gold − (n + 1) · errors with 0 ≤ gold ≤ n.
            Objective::ValidFirst => primary.rem_euclid(n as i64 + 1) as usize,
        }
    }

    /// [`projectivize_with_engine`](Self::projectivize_with_engine) in the
    /// [`Lexicographic`] semiring whatever the sizes (the reference the
    /// packed form is tested against). O(n³).
    pub fn projectivize_lexicographic(
        &mut self,
        gold: &DepTree,
        labels: &WordLabels,
    ) -> Result<Preferred, ProjectivizeError> {
        self.check_memory(gold.len())?;
        self.prepare(gold, labels)?;
        self.parse_lexicographic(gold)
    }

    /// Refuses, before allocating anything, a sentence of `n` words whose
    /// weights and chart together would need more memory than the limit
    /// ([`crate::memory`]). O(1).
    fn check_memory(&self, n: usize) -> Result<(), crate::memory::TooMuchMemory> {
        let size = n + 1;
        let weights = ArcWeights::bytes_for(n);
        // The lexicographic chart is the larger of the two the engine may use.
        let chart = self.parser.chart_bytes(size);
        let total = weights.zip(chart).and_then(|(m, c)| m.checked_add(c));
        crate::memory::check(total, 1, || format!("the preference weights and the chart for {n} words"))
    }

    /// The engine in max-plus over 2³² · gold + secondary (weights filled).
    fn parse_packed(&mut self, gold: &DepTree) -> Result<Preferred, ProjectivizeError> {
        let n = gold.len();
        self.terminals.fill(n, &mut self.input);
        let (weights, arcs, objective) = (&self.weights, &self.arcs, self.objective);
        let w = self.packed.parse(&self.input, |h, d| {
            MaxPlus::new(Self::primary(objective, arcs, gold, h, d) * PACKED_SHIFT + weights.arc(arcs, h, d))
        })?;
        let key = w.finite().ok_or(ProjectivizeError::NoTree(n))?;
        // |secondary| < 2³¹ = PACKED_SHIFT / 2: round to the nearest multiple.
        let primary = (key + PACKED_SHIFT / 2).div_euclid(PACKED_SHIFT);
        let secondary = key - primary * PACKED_SHIFT;
        let tree = self.packed.best_derivation().ok_or(ProjectivizeError::NoTree(n))?.tree;
        Ok(Preferred { tree, score: self.gold_arcs(n, primary), secondary })
    }

    /// The engine in [`GoldThenPreference`] (weights filled).
    fn parse_lexicographic(&mut self, gold: &DepTree) -> Result<Preferred, ProjectivizeError> {
        let n = gold.len();
        self.terminals.fill(n, &mut self.input);
        let (weights, arcs, objective) = (&self.weights, &self.arcs, self.objective);
        let w = self.parser.parse(&self.input, |h, d| {
            Lexicographic::new(
                MaxPlus::new(Self::primary(objective, arcs, gold, h, d)),
                MaxPlus::new(weights.arc(arcs, h, d)),
            )
        })?;
        let (Some(primary), Some(secondary)) = (w.primary().finite(), w.secondary().finite()) else {
            return Err(ProjectivizeError::NoTree(n));
        };
        let tree = self.parser.best_derivation().ok_or(ProjectivizeError::NoTree(n))?.tree;
        Ok(Preferred { tree, score: self.gold_arcs(n, primary), secondary })
    }

    /// The secondary score of `tree` for gold tree `gold`: Σ w₂ over its arcs.
    /// O(n).
    pub fn secondary_score(
        &mut self,
        gold: &DepTree,
        labels: &WordLabels,
        tree: &DepTree,
    ) -> Result<i64, ProjectivizeError> {
        self.weights.prepare(gold, labels, &mut self.arcs)?;
        Ok(tree.arcs().map(|(h, d)| self.weights.arc(&self.arcs, h, d)).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_weights_parse() {
        let w = Weights::default();
        assert_eq!(w.ancestor(2), 30);
        assert_eq!(w.ancestor(9), 5);
        assert_eq!(w.root, -1000);
        assert_eq!(w.leaf, -100);
        assert!(w.head_deprel.is_empty());
    }

    #[test]
    fn errors_name_their_lines() {
        let text = "# c\nancestor 1 3\nfoo 2\nhead-deprel punct\nroot x\nroot 1\nroot 2\nsame-side 99999999999\n";
        let e = Weights::parse(text).unwrap_err();
        let lines: Vec<String> = e.0.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "line 2: `1` is not an ancestor distance (an integer from 2 to 10000, or `*`)",
                "line 3: unknown rule `foo` (expected ancestor, head-deprel, head-upos, dep-deprel, dep-upos, head-after, leaf, root or same-side)",
                "line 4: `head-deprel` takes 2 field(s) after its name, found 1",
                "line 5: `x` is not an integer weight within ±1000000000",
                "line 7: a rule for `root` was already given on line 6",
                "line 8: `99999999999` is not an integer weight within ±1000000000",
            ]
        );
    }

    #[test]
    fn labels_from_conllu_skip_comments_ranges_and_empty_nodes() {
        let block = b"# sent_id = 1\n1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n1\tde\tde\tADP\t_\t_\t2\tcase\t_\t_\n2\tle\tle\tDET\t_\t_\t0\troot\t_\t_\n2.1\tx\tx\tX\t_\t_\t_\t_\t_\t_\r\n\n";
        let mut l = WordLabels::default();
        l.read_conllu(block);
        assert_eq!(l.len(), 2);
        assert_eq!(l.get(1), (&b"ADP"[..], &b"case"[..]));
        assert_eq!(l.get(2), (&b"DET"[..], &b"root"[..]));
    }

    #[test]
    fn the_sparse_weights_are_the_matrix() {
        // Random trees and labels, the default weights and weights with
        // every rule: Weights::arc equals the dense matrix at every cell.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let upos = ["VERB", "NOUN", "PUNCT", "ADP", "CCONJ", "DET", "AUX"];
        let deprel = ["root", "punct", "case", "cc", "nsubj", "obl:tmod", "det", "conj", "fixed"];
        let every = Weights::parse(
            "ancestor 2 7\nancestor 3 -5\nancestor * 11\nhead-deprel conj -3\nhead-upos NOUN 2\n\
             dep-deprel obl -13\ndep-upos DET 17\nhead-after punct 19\nleaf -23\nroot -29\nsame-side 31\n",
        )
        .unwrap();
        let (mut matrix, mut buffers, mut arcs) = (Vec::new(), FillBuffers::default(), ArcWeights::default());
        for weights in [Weights::default(), every, Weights::empty()] {
            for _ in 0..200 {
                let n = rng.gen_range(1..25);
                // A random tree: each word hangs from 0 or an earlier-numbered word of a random order.
                let mut order: Vec<usize> = (1..=n).collect();
                for i in (1..n).rev() {
                    order.swap(i, rng.gen_range(0..=i));
                }
                let mut heads = vec![0; n];
                for (i, &d) in order.iter().enumerate() {
                    heads[d - 1] = if i == 0 || rng.gen_bool(0.1) { 0 } else { order[rng.gen_range(0..i)] };
                }
                let gold = DepTree::from_heads(&heads).unwrap();
                let words: Vec<(&str, &str, &str)> = (0..n)
                    .map(|_| (upos[rng.gen_range(0..upos.len())], "_", deprel[rng.gen_range(0..deprel.len())]))
                    .collect();
                let labels = WordLabels::from_columns(words.iter().copied());
                weights.fill(&gold, &labels, &mut matrix, &mut buffers).unwrap();
                weights.prepare(&gold, &labels, &mut arcs).unwrap();
                let size = n + 1;
                let mut largest = 0;
                for h in 0..size {
                    for d in 0..size {
                        assert_eq!(weights.arc(&arcs, h, d), matrix[h * size + d], "{heads:?} {words:?} ({h}, {d})");
                        largest = largest.max(matrix[h * size + d].unsigned_abs());
                    }
                }
                assert!(arcs.bound() >= largest);
            }
        }
    }

    #[test]
    fn matrix_adds_the_matching_rules() {
        // 0 -> 1 (root), 1 -> 2 (punct), 2 -> 3 (conj): all to the right.
        let gold = DepTree::from_heads(&[0, 1, 2]).unwrap();
        let labels = WordLabels::from_pairs([("VERB", "root"), ("PUNCT", "punct"), ("NOUN", "conj")]);
        let w = Weights::default();
        let (mut m, mut s) = (Vec::new(), FillBuffers::default());
        w.fill(&gold, &labels, &mut m, &mut s).unwrap();
        let at = |h: usize, d: usize| m[h * 4 + d];
        assert_eq!(at(1, 2), 0, "gold arc under the root word");
        assert_eq!(at(2, 3), -100, "gold arc under the punct");
        assert_eq!(at(1, 3), 30 + 1, "grandparent, same side");
        assert_eq!(at(0, 3), -1000 + 20 + 1, "root, 3 steps up, same side");
        assert_eq!(at(2, 1), -100, "under a punct, opposite side");
        assert_eq!(at(3, 2), 0, "no rule matches, opposite side");
    }
}
