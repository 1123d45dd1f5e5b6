//! Attachment scores of a predicted treebank against a gold one.
//!
//! UAS: the share of words whose HEAD is the gold one; LAS: HEAD and the
//! universal part of DEPREL (before any `:`) both right, as in the CoNLL
//! 2018 shared task. Both over all words, and over the words whose gold
//! UPOS is not `PUNCT`; and per sentence length (bins of ten words).
//! The two files must align: the same sentences with the same number of
//! words and the same FORMs; the first difference is an error naming the
//! line of each file. HEADs must be numbers in 0 … n; the predicted heads
//! need not form a tree. O(bytes of both files), memory of one sentence.

use super::breakdown::{Breakdown, WordView};
pub use super::columns::universal;
use super::columns::Columns;
use super::ParserError;
use crate::conllu::Reader;
use crate::projectivize::pseudo::nonprojective_words;
use crate::tree::DepTree;
use serde::Serialize;
use std::collections::HashMap;
use std::io::BufRead;

/// Words, heads right, heads and universal labels right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub words: u64,
    pub heads: u64,
    pub labelled: u64,
}

impl Counts {
    /// Unlabelled attachment score in percent (0 for no words).
    pub fn uas(&self) -> f64 {
        percent(self.heads, self.words)
    }
    /// Labelled attachment score in percent (0 for no words).
    pub fn las(&self) -> f64 {
        percent(self.labelled, self.words)
    }
    fn add(&mut self, head: bool, label: bool) {
        self.words += 1;
        self.heads += u64::from(head);
        self.labelled += u64::from(head && label);
    }
}

fn percent(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// One bin of the per-length table: sentences of `min` … `max` words
/// (`max` = `None`: no upper bound).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LengthBin {
    pub min: usize,
    pub max: Option<usize>,
    pub sentences: u64,
    pub counts: Counts,
}

/// The result of [`evaluate`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    pub sentences: u64,
    /// Every word.
    pub all: Counts,
    /// Words whose gold UPOS is not `PUNCT`.
    pub no_punct: Counts,
    /// Bins 1–10, 11–20, …, 41–50, 51+ (every word).
    pub by_length: Vec<LengthBin>,
    /// Whether the gold file has labels: false when every gold DEPREL is
    /// `_`, and then LAS is absent from the reports, not 0.
    pub gold_labels: bool,
}

/// Upper bounds of the length bins; the last bin is open.
const BINS: [usize; 5] = [10, 20, 30, 40, 50];

/// Compares `pred` with `gold` (CoNLL-U streams named `gold_name`,
/// `pred_name` in errors). See the module documentation.
pub fn evaluate<G: BufRead, P: BufRead>(
    gold: G,
    gold_name: &str,
    pred: P,
    pred_name: &str,
) -> Result<Evaluation, ParserError> {
    evaluate_with(gold, gold_name, pred, pred_name, None)
}

/// [`evaluate`], also adding every sentence to `breakdown` (`tabula eval
/// --breakdown`).
pub fn evaluate_with<G: BufRead, P: BufRead>(
    gold: G,
    gold_name: &str,
    pred: P,
    pred_name: &str,
    breakdown: Option<&mut Breakdown>,
) -> Result<Evaluation, ParserError> {
    evaluate_counting(gold, gold_name, pred, pred_name, breakdown, None)
}

/// What `tabula eval` and Python's `evaluate` add to the scores.
#[derive(Debug, Default, Clone)]
pub struct EvalOptions {
    /// Score the gold tree's non-projective arcs (`--nonprojective`).
    pub nonprojective: bool,
    /// The error analysis (`--breakdown`).
    pub breakdown: bool,
    /// How often each FORM occurs in a training file ([`form_counts`]):
    /// the breakdown also scores words by it (`--train`).
    pub forms: Option<HashMap<Vec<u8>, u64>>,
    /// Collect the breakdown even without `breakdown` (for a plot of it);
    /// it is then left out of [`Report::to_json`] and [`Report::to_text`].
    pub collect_breakdown: bool,
}

/// The scores of one predicted file, with what [`EvalOptions`] asked for.
#[derive(Debug)]
pub struct Report {
    pub evaluation: Evaluation,
    /// With [`EvalOptions::nonprojective`].
    pub nonprojective: Option<NonProjective>,
    /// With [`EvalOptions::breakdown`] or [`EvalOptions::collect_breakdown`].
    pub breakdown: Option<Breakdown>,
    /// Whether the breakdown is reported.
    show_breakdown: bool,
}

/// Non-projective arcs: gold ones, predicted ones, and both.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct NonProjective {
    /// Non-projective arcs of the gold trees.
    pub gold: u64,
    /// Non-projective arcs of the predicted trees (a predicted sentence
    /// whose heads are not a tree counts none).
    pub predicted: u64,
    /// Gold non-projective arcs predicted.
    pub gold_found: u64,
    /// Predicted non-projective arcs that are gold arcs.
    pub predicted_gold: u64,
}

impl NonProjective {
    /// `100 a / b`, `None` for `b = 0`.
    fn share(a: u64, b: u64) -> Option<f64> {
        (b > 0).then(|| 100.0 * a as f64 / b as f64)
    }

    /// The share of gold non-projective arcs predicted, in percent.
    pub fn recall(&self) -> Option<f64> {
        Self::share(self.gold_found, self.gold)
    }

    /// The share of predicted non-projective arcs that are gold, in percent.
    pub fn precision(&self) -> Option<f64> {
        Self::share(self.predicted_gold, self.predicted)
    }

    /// The key `nonprojective` of `tabula eval --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "gold": self.gold,
            "predicted": self.predicted,
            "gold_arcs_found": self.gold_found,
            "recall": self.recall(),
            "predicted_gold": self.predicted_gold,
            "precision": self.precision(),
        })
    }

    /// The line `tabula eval --nonprojective` prints.
    pub fn to_text(&self) -> String {
        let pct = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.2}"));
        format!(
            "non-projective arcs: gold {}, found {} (recall {} %); predicted {}, gold {} (precision {} %)\n",
            self.gold,
            self.gold_found,
            pct(self.recall()),
            self.predicted,
            self.predicted_gold,
            pct(self.precision())
        )
    }

    /// Adds one aligned sentence: the gold tree and the predicted heads.
    fn add(&mut self, gold: &DepTree, pred: &[usize]) {
        let gold_np = nonprojective_words(gold);
        self.gold += gold_np.len() as u64;
        self.gold_found += gold_np.iter().filter(|&&d| pred[d - 1] == gold.head(d)).count() as u64;
        if let Ok(pred_tree) = DepTree::from_heads(pred) {
            let pred_np = nonprojective_words(&pred_tree);
            self.predicted += pred_np.len() as u64;
            self.predicted_gold += pred_np.iter().filter(|&&d| pred[d - 1] == gold.head(d)).count() as u64;
        }
    }
}

/// [`evaluate`] with [`EvalOptions`]: what `tabula eval` and Python's
/// `evaluate` compute for one predicted file.
pub fn evaluate_report<G: BufRead, P: BufRead>(
    gold: G,
    gold_name: &str,
    pred: P,
    pred_name: &str,
    options: &EvalOptions,
) -> Result<Report, ParserError> {
    let mut breakdown = (options.breakdown || options.collect_breakdown).then(|| Breakdown::new(options.forms.clone()));
    let mut nonprojective = options.nonprojective.then(NonProjective::default);
    let evaluation = evaluate_counting(gold, gold_name, pred, pred_name, breakdown.as_mut(), nonprojective.as_mut())?;
    Ok(Report { evaluation, nonprojective, breakdown, show_breakdown: options.breakdown })
}

impl Report {
    /// `tabula eval --json`'s object: [`Evaluation::to_json`] with the keys
    /// `nonprojective` and `breakdown` when asked for.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = self.evaluation.to_json();
        if let Some(map) = json.as_object_mut() {
            if let Some(np) = &self.nonprojective {
                map.insert("nonprojective".into(), np.to_json());
            }
            if let (Some(b), true) = (&self.breakdown, self.show_breakdown) {
                map.insert("breakdown".into(), b.to_json(self.evaluation.gold_labels));
            }
        }
        json
    }

    /// `tabula eval`'s text: the scores, the non-projective arcs' line and
    /// the breakdown's tables when asked for.
    pub fn to_text(&self) -> String {
        let mut s = self.evaluation.to_text();
        if let Some(np) = &self.nonprojective {
            s.push_str(&np.to_text());
        }
        if let (Some(b), true) = (&self.breakdown, self.show_breakdown) {
            s.push('\n');
            s.push_str(&b.to_text(self.evaluation.gold_labels));
        }
        s
    }
}

/// How often each FORM occurs in the syntactic words of a CoNLL-U stream
/// (`tabula eval --train`).
pub fn form_counts<R: BufRead>(input: R, name: &str) -> Result<HashMap<Vec<u8>, u64>, ParserError> {
    let mut reader = Reader::new(input, name);
    let mut counts = HashMap::new();
    while let Some((text, cols)) = next_block(&mut reader, name)? {
        for w in &cols.words {
            *counts.entry(text[w.form.clone()].to_vec()).or_insert(0) += 1;
        }
    }
    Ok(counts)
}

fn evaluate_counting<G: BufRead, P: BufRead>(
    gold: G,
    gold_name: &str,
    pred: P,
    pred_name: &str,
    mut breakdown: Option<&mut Breakdown>,
    mut nonprojective: Option<&mut NonProjective>,
) -> Result<Evaluation, ParserError> {
    let mut g = Reader::new(gold, gold_name);
    let mut p = Reader::new(pred, pred_name);
    let mut by_length: Vec<LengthBin> = BINS
        .iter()
        .enumerate()
        .map(|(i, &max)| LengthBin {
            min: if i == 0 { 1 } else { BINS[i - 1] + 1 },
            max: Some(max),
            sentences: 0,
            counts: Counts::default(),
        })
        .collect();
    by_length.push(LengthBin { min: BINS[BINS.len() - 1] + 1, max: None, sentences: 0, counts: Counts::default() });
    let mut eval =
        Evaluation { sentences: 0, all: Counts::default(), no_punct: Counts::default(), by_length, gold_labels: false };
    let misaligned = |gl: usize, pl: usize, reason: String| ParserError::Misaligned {
        gold: format!("{gold_name}:{gl}"),
        pred: format!("{pred_name}:{pl}"),
        reason,
    };
    let ended =
        |gold: String, pred: String, reason: &str| ParserError::Misaligned { gold, pred, reason: reason.into() };
    loop {
        let (gb, pb) = (next_block(&mut g, gold_name)?, next_block(&mut p, pred_name)?);
        let (gb, pb) = match (gb, pb) {
            (None, None) => break,
            (Some((graw, gcols)), Some((praw, pcols))) => ((graw, gcols), (praw, pcols)),
            (Some((_, gcols)), None) => {
                return Err(ended(
                    format!("{gold_name}:{}", gcols.first_line),
                    format!("the end of {pred_name}"),
                    "the predicted file has fewer sentences",
                ))
            }
            (None, Some((_, pcols))) => {
                return Err(ended(
                    format!("the end of {gold_name}"),
                    format!("{pred_name}:{}", pcols.first_line),
                    "the predicted file has more sentences",
                ))
            }
        };
        let ((gtext, gcols), (ptext, pcols)) = (gb, pb);
        if gcols.len() != pcols.len() {
            return Err(misaligned(
                gcols.first_line,
                pcols.first_line,
                format!("a sentence of {} words in the gold file, {} in the predicted one", gcols.len(), pcols.len()),
            ));
        }
        for (gw, pw) in gcols.words.iter().zip(&pcols.words) {
            if gtext[gw.form.clone()] != ptext[pw.form.clone()] {
                return Err(misaligned(
                    gw.line,
                    pw.line,
                    format!(
                        "FORM `{}` in the gold file, `{}` in the predicted one",
                        crate::shown::shown_bytes(&gtext[gw.form.clone()]),
                        crate::shown::shown_bytes(&ptext[pw.form.clone()])
                    ),
                ));
            }
        }
        let gheads = gcols.head_numbers(&gtext, gold_name)?;
        let pheads = pcols.head_numbers(&ptext, pred_name)?;
        let n = gcols.len();
        let bin = BINS.iter().position(|&b| n <= b).unwrap_or(BINS.len());
        eval.sentences += 1;
        eval.by_length[bin].sentences += 1;
        for (i, (gw, pw)) in gcols.words.iter().zip(&pcols.words).enumerate() {
            let head = gheads[i] == pheads[i];
            let gold_label = &gtext[gw.deprel.clone()];
            eval.gold_labels |= gold_label != b"_";
            let label = universal(gold_label) == universal(&ptext[pw.deprel.clone()]);
            eval.all.add(head, label);
            eval.by_length[bin].counts.add(head, label);
            if &gtext[gw.upos.clone()] != b"PUNCT" {
                eval.no_punct.add(head, label);
            }
        }
        if let Some(b) = breakdown.as_deref_mut() {
            b.add(&views(&gtext, &gcols, &gheads), &views(&ptext, &pcols, &pheads));
        }
        if let Some(np) = nonprojective.as_deref_mut() {
            np.add(&gcols.heads(&gtext, gold_name)?, &pheads);
        }
    }
    if eval.all.words == 0 {
        return Err(ParserError::NothingToScore { gold: gold_name.to_owned(), pred: pred_name.to_owned() });
    }
    Ok(eval)
}

/// The words of a block as the breakdown reads them, with `heads`.
fn views<'a>(text: &'a [u8], cols: &Columns, heads: &[usize]) -> Vec<WordView<'a>> {
    cols.words
        .iter()
        .zip(heads)
        .map(|(w, &head)| WordView {
            form: &text[w.form.clone()],
            lemma: &text[w.lemma.clone()],
            upos: &text[w.upos.clone()],
            feats: &text[w.feats.clone()],
            head,
            deprel: &text[w.deprel.clone()],
        })
        .collect()
}

/// The next block with at least one word (comment-only blocks are skipped),
/// with its columns.
fn next_block<R: BufRead>(r: &mut Reader<R>, name: &str) -> Result<Option<(Vec<u8>, Columns)>, ParserError> {
    while let Some(raw) = r.next_raw() {
        let raw = raw.map_err(ParserError::from)?;
        let cols = Columns::scan(&raw, name)?;
        if !cols.is_empty() {
            return Ok(Some((raw.text, cols)));
        }
    }
    Ok(None)
}

impl Evaluation {
    /// LAS as text in `width` columns: `-` without gold labels or words.
    fn las_text(&self, c: &Counts, width: usize) -> String {
        if self.gold_labels && c.words > 0 {
            format!("{:width$.2}", c.las())
        } else {
            format!("{:>width$}", "-")
        }
    }

    /// UAS as text in `width` columns: `-` without words (an empty length
    /// bin has no score, not a score of 0).
    fn uas_text(c: &Counts, width: usize) -> String {
        if c.words > 0 {
            format!("{:width$.2}", c.uas())
        } else {
            format!("{:>width$}", "-")
        }
    }

    /// The report as text: the two lines of scores and the per-length table
    /// (LAS `-` without gold labels).
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "sentences {}  words {}\nall words:          UAS {}  LAS {}\nwithout punctuation: UAS {}  LAS {}  ({})\n\nlength   sentences    words     UAS     LAS\n",
            self.sentences,
            self.all.words,
            Self::uas_text(&self.all, 6),
            self.las_text(&self.all, 6),
            Self::uas_text(&self.no_punct, 6),
            self.las_text(&self.no_punct, 6),
            counted(self.no_punct.words, "word")
        );
        for b in &self.by_length {
            let range = match b.max {
                Some(m) => format!("{}-{}", b.min, m),
                None => format!("{}+", b.min),
            };
            s.push_str(&format!(
                "{range:<8} {:>9} {:>8} {} {}\n",
                b.sentences,
                b.counts.words,
                Self::uas_text(&b.counts, 7),
                self.las_text(&b.counts, 7)
            ));
        }
        s
    }

    /// The report as JSON, with the percentages next to the counts (`las`
    /// and `labelled` null without gold labels; `uas` and `las` null
    /// without words).
    pub fn to_json(&self) -> serde_json::Value {
        let labels = self.gold_labels;
        let c = |c: &Counts| {
            let scored = c.words > 0;
            serde_json::json!({"words": c.words, "uas": scored.then(|| c.uas()), "las": (labels && scored).then(|| c.las()), "heads": c.heads, "labelled": labels.then_some(c.labelled)})
        };
        serde_json::json!({
            "sentences": self.sentences,
            "all": c(&self.all),
            "no_punct": c(&self.no_punct),
            "by_length": self.by_length.iter().map(|b| serde_json::json!({
                "min": b.min, "max": b.max, "sentences": b.sentences, "scores": c(&b.counts)
            })).collect::<Vec<_>>(),
        })
    }
}

/// "1 word", "2 words": a count and its noun, in the plural where it takes one.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
