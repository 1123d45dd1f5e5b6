//! Pictures of dependency trees: arc diagrams in SVG and HTML, box-drawing
//! trees for the terminal, and the comparison of several annotations of the
//! same words (a parser against the gold tree, a treebank against its
//! projectivization).
//!
//! The pipeline:
//!
//! 1. a CoNLL-U block becomes an [`Annotated`] sentence (its words with FORM
//!    and UPOS, its tree with HEAD and DEPREL), read with the library's
//!    [`conllu`](crate::conllu) reader, so every error names `file:line`;
//! 2. one or more annotations of the same words make a [`Picture`]: the
//!    first annotation's tree, the arcs where another one differs, the count
//!    of differences and the non-projective arcs ([`Picture::arcs`]);
//! 3. [`layout::layout`] turns the words and arcs into geometry, a pure
//!    function: word positions, arc levels nested by length, label boxes
//!    that never overlap, right to left for right-to-left scripts;
//! 4. writers turn geometry into text: [`svg`] (one SVG), [`html`] (one
//!    self-contained page that draws sentences as they scroll into view) and
//!    [`text`] (box-drawing trees for the terminal).
//!
//! Colours are Okabe & Ito's (2008) colour-blind-safe palette, and every
//! kind of arc also differs in line width or dash pattern, so that the
//! pictures read in grey.
//!
//! ```
//! use tabula::draw::{Annotated, Picture};
//! let gold = "1\tShe\t_\tPRON\t_\t_\t2\tnsubj\t_\t_\n2\truns\t_\tVERB\t_\t_\t0\troot\t_\t_\n\n";
//! let parsed = gold.replace("nsubj", "obj");
//! let read = |text: &str, name: &str| {
//!     let raw = tabula::conllu::Reader::new(text.as_bytes(), name).next_raw().unwrap().unwrap();
//!     Annotated::from_block(&raw, &name.into(), 1).unwrap()
//! };
//! let picture = Picture::new(vec![read(gold, "gold"), read(&parsed, "parsed")]).unwrap();
//! assert_eq!(picture.differences(), 1);
//! let svg = tabula::draw::svg::picture_svg(&picture);
//! assert!(svg.starts_with("<svg") && svg.contains("nsubj/obj"));
//! ```

pub mod html;
pub mod layout;
pub mod levels;
pub mod svg;
pub mod text;

use crate::conllu::fields::field_lines;
use crate::conllu::{ConlluError, RawSentence, Sentence};
use crate::shown::shown;
use crate::tree::DepTree;
use std::sync::Arc;

/// Why sentences cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// A block that is not a sentence with a tree.
    #[error(transparent)]
    Conllu(#[from] ConlluError),
    /// A field that is not UTF-8.
    #[error("{}:{line}: the {column} field is not valid UTF-8", shown(.file))]
    NotUtf8 { file: Arc<str>, line: usize, column: &'static str },
    /// Two annotations of one sentence with different numbers of words.
    #[error("{}:{line}: sentence {} has {found} words, but {}:{first_line} has {expected}: the files must have the same words", shown(.file), shown(.id), shown(.first_file))]
    WordCount {
        file: Arc<str>,
        line: usize,
        id: String,
        found: usize,
        first_file: Arc<str>,
        first_line: usize,
        expected: usize,
    },
    /// Two annotations of one sentence with a different FORM.
    #[error("{}:{line}: word {word} is `{}`, but {}:{first_line} has `{}`: the files must have the same words", shown(.file), shown(.found), shown(.first_file), shown(.expected))]
    Form {
        file: Arc<str>,
        line: usize,
        word: usize,
        found: String,
        first_file: Arc<str>,
        first_line: usize,
        expected: String,
    },
    /// No annotation at all.
    #[error("a picture needs at least one annotation")]
    Empty,
}

/// One syntactic word: what is written under its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub form: String,
    pub upos: String,
}

/// One annotation of a sentence: the head (0: the root) and the relation
/// of words 1 … n (`heads[i]` and `labels[i]` are word i + 1's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The file (or other source) it was read from.
    pub file: Arc<str>,
    /// 1-based line of the sentence's first line, and of each word.
    pub first_line: usize,
    pub word_lines: Vec<usize>,
    pub tree: DepTree,
    pub labels: Vec<String>,
}

/// A sentence as one file annotates it.
#[derive(Debug, Clone)]
pub struct Annotated {
    /// `# sent_id`, or the sentence's 1-based number in its file.
    pub id: String,
    pub words: Vec<Word>,
    pub annotation: Annotation,
}

impl Annotated {
    /// Reads a block: its tree (checked as [`Sentence::parse`] checks it),
    /// FORM, UPOS and DEPREL of its syntactic words. `number` is the
    /// sentence's 1-based number in its file, its id when it has no
    /// `# sent_id`. O(bytes).
    pub fn from_block(raw: &RawSentence, file: &Arc<str>, number: usize) -> Result<Annotated, DrawError> {
        let sentence = Sentence::parse(raw.clone(), file).map_err(|bad| bad.error)?;
        Self::from_sentence(&sentence, file, number)
    }

    /// As [`Annotated::from_block`], from a parsed sentence.
    pub fn from_sentence(sentence: &Sentence, file: &Arc<str>, number: usize) -> Result<Annotated, DrawError> {
        let raw = sentence.raw();
        let text = &raw.text;
        let n = sentence.len();
        let mut words = Vec::with_capacity(n);
        let mut labels = Vec::with_capacity(n);
        let mut word_lines = Vec::with_capacity(n);
        for line in field_lines(text).filter(|l| l.is_word(text)) {
            let at = raw.first_line + line.index;
            let field = |i: usize, column: &'static str| -> Result<String, DrawError> {
                let range = line.field(i).unwrap_or(0..0);
                std::str::from_utf8(&text[range]).map(str::to_owned).map_err(|_| DrawError::NotUtf8 {
                    file: file.clone(),
                    line: at,
                    column,
                })
            };
            words.push(Word { form: field(1, "FORM")?, upos: field(3, "UPOS")? });
            labels.push(field(7, "DEPREL")?);
            word_lines.push(at);
        }
        let id = sentence.sent_id().map_or_else(|| number.to_string(), str::to_owned);
        let annotation = Annotation {
            file: file.clone(),
            first_line: raw.first_line,
            word_lines,
            tree: sentence.tree().clone(),
            labels,
        };
        Ok(Annotated { id, words, annotation })
    }
}

/// What an arc is in a picture, for its colour and line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArcKind {
    /// An arc of the first annotation that every other one has too.
    Plain,
    /// An arc of the first annotation that another annotation replaces by
    /// another head (drawn dashed).
    Replaced,
    /// The arc of annotation k (1, 2, …) where it has another head than the
    /// first one (drawn in annotation k's colour).
    Other(usize),
}

/// One arc to draw: `head` 0 is the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnArc {
    pub head: usize,
    pub dependent: usize,
    pub label: String,
    pub kind: ArcKind,
    /// Whether the arc is non-projective in its annotation's tree.
    pub nonprojective: bool,
    /// Whether another annotation gives the same arc another relation
    /// (the label then shows both: `first/other`).
    pub label_differs: bool,
    /// The annotations (indices) that have the arc: the first one alone
    /// for its arcs, the others with this head for theirs.
    pub annotations: Vec<usize>,
}

/// One sentence in one or more annotations of the same words: the first
/// annotation's tree, and where the others differ.
#[derive(Debug, Clone)]
pub struct Picture {
    pub id: String,
    pub words: Vec<Word>,
    /// The first annotation, then the others, in the order given.
    pub annotations: Vec<Annotation>,
}

impl Picture {
    /// Checks that every annotation has the first one's words (count and
    /// FORM), naming the line of each where they differ. O(n × annotations).
    pub fn new(annotated: Vec<Annotated>) -> Result<Picture, DrawError> {
        let mut all = annotated.into_iter();
        let first = all.next().ok_or(DrawError::Empty)?;
        let mut annotations = vec![first.annotation];
        for other in all {
            let a = &annotations[0];
            let b = &other.annotation;
            if other.words.len() != first.words.len() {
                return Err(DrawError::WordCount {
                    file: b.file.clone(),
                    line: b.first_line,
                    id: first.id.clone(),
                    found: other.words.len(),
                    first_file: a.file.clone(),
                    first_line: a.first_line,
                    expected: first.words.len(),
                });
            }
            if let Some(i) = (0..first.words.len()).find(|&i| other.words[i].form != first.words[i].form) {
                return Err(DrawError::Form {
                    file: b.file.clone(),
                    line: b.word_lines[i],
                    word: i + 1,
                    found: other.words[i].form.clone(),
                    first_file: a.file.clone(),
                    first_line: a.word_lines[i],
                    expected: first.words[i].form.clone(),
                });
            }
            annotations.push(other.annotation);
        }
        Ok(Picture { id: first.id, words: first.words, annotations })
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the sentence has no words (never, for a picture read from CoNLL-U).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Words whose head or relation differs between the first annotation
    /// and some other one. O(n × annotations).
    pub fn differences(&self) -> usize {
        let first = &self.annotations[0];
        (1..=self.len())
            .filter(|&d| {
                self.annotations[1..]
                    .iter()
                    .any(|a| a.tree.head(d) != first.tree.head(d) || a.labels[d - 1] != first.labels[d - 1])
            })
            .count()
    }

    /// Whether any annotation's tree is non-projective (what the
    /// `nonprojective` filter keeps). O(n × annotations).
    pub fn is_nonprojective(&self) -> bool {
        self.annotations.iter().any(|a| !a.tree.is_projective())
    }

    /// The annotations (indices; 0 is the tree drawn) whose tree is
    /// non-projective, for marks that say which tree they mean.
    /// O(n × annotations).
    pub fn nonprojective_annotations(&self) -> Vec<usize> {
        (0..self.annotations.len()).filter(|&k| !self.annotations[k].tree.is_projective()).collect()
    }

    /// The arcs to draw: every arc of the first annotation, and each arc of
    /// another annotation that has another head (once per distinct arc,
    /// in the first annotation that has it). O(n × annotations).
    pub fn arcs(&self) -> Vec<DrawnArc> {
        let first = &self.annotations[0];
        let nonprojective: Vec<Vec<bool>> = self
            .annotations
            .iter()
            .map(|a| {
                let mut np = vec![false; self.len() + 1];
                for d in crate::projectivize::pseudo::nonprojective_words(&a.tree) {
                    np[d] = true;
                }
                np
            })
            .collect();
        let is_np = |k: usize, d: usize| nonprojective[k][d];
        let mut arcs = Vec::with_capacity(self.len());
        for d in 1..=self.len() {
            let h = first.tree.head(d);
            let label = &first.labels[d - 1];
            let mut replaced = false;
            let mut other_labels: Vec<&str> = Vec::new();
            let start = arcs.len();
            for (k, a) in self.annotations.iter().enumerate().skip(1) {
                let (oh, ol) = (a.tree.head(d), &a.labels[d - 1]);
                if oh == h {
                    if ol != label && !other_labels.contains(&ol.as_str()) {
                        other_labels.push(ol);
                    }
                    continue;
                }
                replaced = true;
                let others: &mut [DrawnArc] = &mut arcs[start..];
                if let Some(seen) = others.iter_mut().find(|o| o.head == oh && o.label == *ol) {
                    seen.annotations.push(k);
                    continue;
                }
                arcs.push(DrawnArc {
                    head: oh,
                    dependent: d,
                    label: ol.clone(),
                    kind: ArcKind::Other(k),
                    nonprojective: is_np(k, d),
                    label_differs: false,
                    annotations: vec![k],
                });
            }
            let shown =
                if other_labels.is_empty() { label.clone() } else { format!("{label}/{}", other_labels.join("/")) };
            arcs.insert(
                start,
                DrawnArc {
                    head: h,
                    dependent: d,
                    label: shown,
                    kind: if replaced { ArcKind::Replaced } else { ArcKind::Plain },
                    nonprojective: is_np(0, d),
                    label_differs: !other_labels.is_empty(),
                    annotations: vec![0],
                },
            );
        }
        arcs
    }
}

impl Picture {
    /// What a reader is told on hovering over an arc: `head → dependent:
    /// relation in FILE, …`.
    pub fn arc_title(&self, arc: &DrawnArc) -> String {
        let head = if arc.head == 0 { "root" } else { &self.words[arc.head - 1].form };
        let d = arc.dependent;
        let mut t = format!("{head} → {}: ", self.words[d - 1].form);
        if self.annotations.len() == 1 {
            t.push_str(&arc.label);
            return t;
        }
        // Each relation with the annotations that give it to this arc.
        let mut by_label: Vec<(&str, Vec<&str>)> = Vec::new();
        for &k in &arc.annotations {
            let ks: Vec<usize> = if k == 0 {
                (0..self.annotations.len()).filter(|&j| self.annotations[j].tree.head(d) == arc.head).collect()
            } else {
                vec![k]
            };
            for j in ks {
                let label = self.annotations[j].labels[d - 1].as_str();
                match by_label.iter_mut().find(|(l, _)| *l == label) {
                    Some((_, files)) => files.push(&self.annotations[j].file),
                    None => by_label.push((label, vec![&self.annotations[j].file])),
                }
            }
        }
        let parts: Vec<String> = by_label.iter().map(|(l, files)| format!("{l} in {}", files.join(", "))).collect();
        t.push_str(&parts.join("; "));
        t
    }
}

/// Which sentences to draw: the command line's and Python's filters.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these ids (`# sent_id`, or the number of a sentence without one).
    pub ids: Option<Vec<String>>,
    /// Only sentences where the annotations differ.
    pub differences: bool,
    /// Only sentences with a non-projective tree.
    pub nonprojective: bool,
    /// Only sentences of at most this many words.
    pub max_words: Option<usize>,
}

impl Filter {
    /// Whether `picture` (sentence `number`, 1-based) is drawn.
    pub fn keeps(&self, picture: &Picture, number: usize) -> bool {
        if let Some(ids) = &self.ids {
            let n = number.to_string();
            if !ids.iter().any(|id| *id == picture.id || *id == n) {
                return false;
            }
        }
        (!self.differences || picture.differences() > 0)
            && (!self.nonprojective || picture.is_nonprojective())
            && self.max_words.is_none_or(|m| picture.len() <= m)
    }
}

/// Whether most letters of `words` are of a right-to-left script (Hebrew,
/// Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their presentation
/// forms): then the sentence is laid out right to left. O(characters).
pub fn is_right_to_left(words: &[Word]) -> bool {
    let (mut rtl, mut ltr) = (0usize, 0usize);
    for c in words.iter().flat_map(|w| w.form.chars()) {
        if is_rtl_letter(c) {
            rtl += 1;
        } else if c.is_alphabetic() {
            ltr += 1;
        }
    }
    rtl > ltr
}

fn is_rtl_letter(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
        && c.is_alphabetic()
}

#[cfg(test)]
mod tests;
