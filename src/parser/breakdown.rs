//! Error analysis: attachment scores broken down by properties of the gold
//! words, and the CoNLL 2018 shared task's MLAS and BLEX (Zeman et al.
//! 2018), for `tabula eval --breakdown`.
//!
//! Every word is counted once in each breakdown, by its gold UPOS, its gold
//! relation (the universal part of DEPREL), the length of its gold arc
//! (|head − word|; the root arc apart), the arc's direction, its depth in
//! the gold tree (1: a child of the root), its position in the sentence
//! and, given a training file, how often its FORM occurs there.
//!
//! MLAS and BLEX score the *content words* (every relation but the
//! functional `aux`, `case`, `cc`, `clf`, `cop`, `det`, `mark` and `punct`):
//! a content word is right when its head and relation are, and (MLAS) its
//! UPOS, its universal features (the UD inventory: `PronType`, `NumType`,
//! `Poss`, `Reflex`, `Foreign`, `Abbr`, `Gender`, `Animacy`, `Number`,
//! `Case`, `Definite`, `Degree`, `VerbForm`, `Mood`, `Tense`, `Aspect`,
//! `Voice`, `Evident`, `Polarity`, `Person`, `Polite`) and its functional
//! children (each with its relation, UPOS and universal features) are, or
//! (BLEX) its lemma is. Both are F1 scores: precision over the predicted
//! content words, recall over the gold ones (the words align one to one
//! here, so the two differ only where the relations make a word content in
//! one file and functional in the other).

use super::columns::universal;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The relations whose dependents are function words (MLAS, BLEX).
const FUNCTIONAL: [&[u8]; 8] = [b"aux", b"case", b"cc", b"clf", b"cop", b"det", b"mark", b"punct"];

/// The universal features MLAS compares.
const UNIVERSAL_FEATURES: [&[u8]; 21] = [
    b"PronType",
    b"NumType",
    b"Poss",
    b"Reflex",
    b"Foreign",
    b"Abbr",
    b"Gender",
    b"Animacy",
    b"Number",
    b"Case",
    b"Definite",
    b"Degree",
    b"VerbForm",
    b"Mood",
    b"Tense",
    b"Aspect",
    b"Voice",
    b"Evident",
    b"Polarity",
    b"Person",
    b"Polite",
];

/// A function-word child as MLAS compares it: position, relation, UPOS,
/// universal features.
type FunctionWord = (usize, Vec<u8>, Vec<u8>, Vec<u8>);

/// One word of a sentence as the breakdown reads it (gold or predicted).
#[derive(Clone, Debug, Default)]
pub struct WordView<'a> {
    pub form: &'a [u8],
    pub lemma: &'a [u8],
    pub upos: &'a [u8],
    pub feats: &'a [u8],
    pub head: usize,
    pub deprel: &'a [u8],
}

/// Words, right heads and right labelled arcs of one group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub words: u64,
    pub heads: u64,
    pub labelled: u64,
}

/// F1 counts: right, predicted, gold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct F1Counts {
    pub right: u64,
    pub predicted: u64,
    pub gold: u64,
}

impl F1Counts {
    /// 2PR / (P + R) in percent (0 with nothing to score).
    pub fn f1(&self) -> f64 {
        if self.predicted + self.gold == 0 {
            0.0
        } else {
            200.0 * self.right as f64 / (self.predicted + self.gold) as f64
        }
    }
}

/// The breakdowns of a whole file.
#[derive(Clone, Debug, Default)]
pub struct Breakdown {
    /// By name, the groups in their order, each with its tally.
    pub tables: Vec<(&'static str, BTreeMap<GroupKey, Tally>)>,
    pub mlas: F1Counts,
    pub blex: F1Counts,
    /// Training-file FORM counts (`--train`), if given.
    frequency: Option<HashMap<Vec<u8>, u64>>,
}

/// A group's key: an order (for numeric bins) and its name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct GroupKey {
    pub order: u64,
    pub name: String,
}

fn key(order: u64, name: impl Into<String>) -> GroupKey {
    GroupKey { order, name: name.into() }
}

/// The bin of `x` among upper bounds `bounds` (the last bin open): its
/// index and its name (`3`, `6-7`, `16+`).
fn bin(x: usize, bounds: &[usize]) -> GroupKey {
    let mut low = 1;
    for (i, &b) in bounds.iter().enumerate() {
        if x <= b {
            let name = if low == b { b.to_string() } else { format!("{low}-{b}") };
            return key(i as u64, name);
        }
        low = b + 1;
    }
    key(bounds.len() as u64, format!("{low}+"))
}

const LENGTHS: [usize; 8] = [1, 2, 3, 4, 5, 7, 10, 15];
const DEPTHS: [usize; 6] = [1, 2, 3, 4, 5, 6];
const POSITIONS: [usize; 6] = [5, 10, 20, 30, 40, 60];
const FREQUENCIES: [u64; 5] = [0, 1, 5, 20, 100];

impl Breakdown {
    /// An empty breakdown; with `frequency`, FORM counts of a training file.
    pub fn new(frequency: Option<HashMap<Vec<u8>, u64>>) -> Breakdown {
        let mut names = vec!["upos", "deprel", "length", "direction", "depth", "position"];
        if frequency.is_some() {
            names.push("frequency");
        }
        Breakdown {
            tables: names.into_iter().map(|n| (n, BTreeMap::new())).collect(),
            frequency,
            ..Breakdown::default()
        }
    }

    /// Adds one aligned sentence (`gold[i]` and `pred[i]`: word i + 1).
    /// O(n) (depths with a guard against gold heads that cycle).
    pub fn add(&mut self, gold: &[WordView<'_>], pred: &[WordView<'_>]) {
        let n = gold.len();
        let depth = |d: usize| {
            let (mut v, mut k) = (d, 0);
            while v != 0 && k <= n {
                v = gold.get(v - 1).map_or(0, |w| w.head);
                k += 1;
            }
            k
        };
        for (i, (g, p)) in gold.iter().zip(pred).enumerate() {
            let d = i + 1;
            let head = g.head == p.head;
            let label = head && universal(g.deprel) == universal(p.deprel);
            let length = if g.head == 0 {
                key(0, "root")
            } else {
                let b = bin(g.head.abs_diff(d), &LENGTHS);
                key(b.order + 1, b.name)
            };
            let direction = match g.head {
                0 => key(0, "root"),
                h if h < d => key(1, "right (head before)"),
                _ => key(2, "left (head after)"),
            };
            let mut groups = vec![
                key(0, String::from_utf8_lossy(g.upos)),
                key(0, String::from_utf8_lossy(universal(g.deprel))),
                length,
                direction,
                bin(depth(d), &DEPTHS),
                bin(d, &POSITIONS),
            ];
            if let Some(counts) = &self.frequency {
                let c = counts.get(g.form).copied().unwrap_or(0);
                let i = FREQUENCIES.iter().position(|&b| c <= b).unwrap_or(FREQUENCIES.len());
                let name = match i {
                    0 => "unseen".to_owned(),
                    i if i == FREQUENCIES.len() => format!("{}+", FREQUENCIES[i - 1] + 1),
                    i if FREQUENCIES[i - 1] + 1 == FREQUENCIES[i] => FREQUENCIES[i].to_string(),
                    i => format!("{}-{}", FREQUENCIES[i - 1] + 1, FREQUENCIES[i]),
                };
                groups.push(key(i as u64, name));
            }
            for ((_, table), g) in self.tables.iter_mut().zip(groups) {
                let t = table.entry(g).or_default();
                t.words += 1;
                t.heads += u64::from(head);
                t.labelled += u64::from(label);
            }
        }
        let content = |w: &WordView<'_>| !FUNCTIONAL.contains(&universal(w.deprel));
        let children = |words: &[WordView<'_>], h: usize| -> Vec<FunctionWord> {
            (1..=words.len())
                .filter(|&c| words[c - 1].head == h && !content(&words[c - 1]))
                .map(|c| {
                    let w = &words[c - 1];
                    (c, universal(w.deprel).to_vec(), w.upos.to_vec(), universal_features(w.feats))
                })
                .collect()
        };
        for (i, (g, p)) in gold.iter().zip(pred).enumerate() {
            let (gc, pc) = (content(g), content(p));
            self.mlas.gold += u64::from(gc);
            self.mlas.predicted += u64::from(pc);
            self.blex.gold += u64::from(gc);
            self.blex.predicted += u64::from(pc);
            if !(gc && pc && g.head == p.head && universal(g.deprel) == universal(p.deprel)) {
                continue;
            }
            let d = i + 1;
            let morphology = g.upos == p.upos && universal_features(g.feats) == universal_features(p.feats);
            self.mlas.right += u64::from(morphology && children(gold, d) == children(pred, d));
            self.blex.right += u64::from(g.lemma == p.lemma);
        }
    }
}

fn percent(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

impl Breakdown {
    /// The report as text: MLAS and BLEX, then a table per breakdown (LAS
    /// `-` without gold labels).
    pub fn to_text(&self, gold_labels: bool) -> String {
        let mut s = format!(
            "MLAS {:6.2}  BLEX {:6.2}  (content words: {} gold, {} predicted)\n",
            self.mlas.f1(),
            self.blex.f1(),
            self.mlas.gold,
            self.mlas.predicted
        );
        for (name, table) in &self.tables {
            s.push_str(&format!("\nby {name:<22} {:>8} {:>7} {:>7}\n", "words", "UAS", "LAS"));
            for (k, t) in table {
                let las =
                    if gold_labels { format!("{:7.2}", percent(t.labelled, t.words)) } else { format!("{:>7}", "-") };
                let name = crate::shown::shown(&k.name);
                s.push_str(&format!("   {name:<22} {:>8} {:7.2} {las}\n", t.words, percent(t.heads, t.words)));
            }
        }
        s
    }

    /// The report as JSON: `mlas`, `blex` (F1 and counts), and per
    /// breakdown the groups in order with `words`, `uas`, `las`.
    pub fn to_json(&self, gold_labels: bool) -> serde_json::Value {
        let f1 = |c: &F1Counts| serde_json::json!({"f1": c.f1(), "right": c.right, "predicted": c.predicted, "gold": c.gold});
        let mut out = serde_json::Map::new();
        out.insert("mlas".into(), f1(&self.mlas));
        out.insert("blex".into(), f1(&self.blex));
        for (name, table) in &self.tables {
            let rows: Vec<_> = table
                .iter()
                .map(|(k, t)| {
                    serde_json::json!({
                        "group": k.name, "words": t.words, "uas": percent(t.heads, t.words),
                        "las": gold_labels.then(|| percent(t.labelled, t.words)),
                    })
                })
                .collect();
            out.insert((*name).into(), rows.into());
        }
        out.into()
    }
}

/// The universal features of a FEATS field, sorted (`_`: none).
fn universal_features(feats: &[u8]) -> Vec<u8> {
    if feats == b"_" {
        return Vec::new();
    }
    let mut kept: Vec<&[u8]> = feats
        .split(|&b| b == b'|')
        .filter(|f| f.split(|&b| b == b'=').next().is_some_and(|name| UNIVERSAL_FEATURES.contains(&name)))
        .collect();
    kept.sort_unstable();
    kept.join(&b'|')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w<'a>(lemma: &'a str, upos: &'a str, feats: &'a str, head: usize, deprel: &'a str) -> WordView<'a> {
        WordView {
            form: lemma.as_bytes(),
            lemma: lemma.as_bytes(),
            upos: upos.as_bytes(),
            feats: feats.as_bytes(),
            head,
            deprel: deprel.as_bytes(),
        }
    }

    /// "the dog barks": det, nsubj, root.
    fn gold() -> Vec<WordView<'static>> {
        vec![
            w("the", "DET", "Definite=Def|PronType=Art", 2, "det"),
            w("dog", "NOUN", "Number=Sing", 3, "nsubj"),
            w("bark", "VERB", "Mood=Ind|Typo=Yes", 0, "root"),
        ]
    }

    #[test]
    fn a_perfect_parse_scores_everything_right() {
        let mut b = Breakdown::new(None);
        b.add(&gold(), &gold());
        assert_eq!(b.mlas, F1Counts { right: 2, predicted: 2, gold: 2 });
        assert_eq!(b.blex, b.mlas);
        let (name, upos) = &b.tables[0];
        assert_eq!(*name, "upos");
        assert!(upos.values().all(|t| t.words == 1 && t.heads == 1 && t.labelled == 1));
        let depth = &b.tables[4].1;
        assert_eq!(depth.keys().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["1", "2", "3"]);
        let length = &b.tables[2].1;
        assert_eq!(length.keys().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["root", "1"]);
    }

    #[test]
    fn mlas_and_blex_count_morphology_function_words_and_lemmas() {
        // A wrong feature of the determiner (a function word): MLAS loses
        // the noun it hangs on; BLEX does not care.
        let mut pred = gold();
        pred[0].feats = b"Definite=Ind|PronType=Art";
        let mut b = Breakdown::new(None);
        b.add(&gold(), &pred);
        assert_eq!(b.mlas.right, 1);
        assert_eq!(b.blex.right, 2);
        // A feature outside the universal inventory does not count; a lemma does.
        let mut pred = gold();
        pred[2].feats = b"Mood=Ind";
        pred[2].lemma = b"barks";
        let mut b = Breakdown::new(None);
        b.add(&gold(), &pred);
        assert_eq!((b.mlas.right, b.blex.right), (2, 1));
        // The noun made a function word: one content word fewer predicted,
        // and the verb gains a function word child (MLAS, not BLEX).
        let mut pred = gold();
        pred[1].deprel = b"case";
        let mut b = Breakdown::new(None);
        b.add(&gold(), &pred);
        assert_eq!(b.mlas, F1Counts { right: 0, predicted: 1, gold: 2 });
        assert_eq!(b.blex, F1Counts { right: 1, predicted: 1, gold: 2 });
        assert!((b.blex.f1() - 200.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn frequencies_and_bins_are_named_by_their_range() {
        let counts: HashMap<Vec<u8>, u64> = [(b"dog".to_vec(), 3), (b"the".to_vec(), 500)].into_iter().collect();
        let mut b = Breakdown::new(Some(counts));
        b.add(&gold(), &gold());
        let freq = &b.tables[6].1;
        assert_eq!(freq.keys().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["unseen", "2-5", "101+"]);
        assert_eq!(bin(6, &LENGTHS).name, "6-7");
        assert_eq!(bin(16, &LENGTHS).name, "16+");
    }
}
