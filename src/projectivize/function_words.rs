//! The UD rule on the dependents of function words, as an arc predicate:
//! [`FunctionWords::forbids`]`(h, d)` says whether the arc from h to d hangs
//! a word under a function word that may not take it (the UD guidelines,
//! "function word modifiers"; the UD validator's level-3 `leaf-*` tests,
//! checked against udtools 0.2.9 by `.ci/checks/validate.sh`).
//!
//! A word's class as a head comes from the universal part of its DEPREL
//! (and, for `det`, the feature `Poss=Yes`); what may hang under each class
//! depends on the dependent's universal DEPREL (and, for negation, its UPOS
//! and `Polarity=Neg`):
//!
//! | head relation | dependents allowed (universal DEPREL) |
//! |---|---|
//! | `mark`, `case`, `clf` | advmod, obl, goeswith, fixed, reparandum, conj, cc, punct |
//! | `aux`, `cop` | goeswith, fixed, reparandum, conj, cc, punct |
//! | `det` | det, case, advmod, obl, clf, goeswith, fixed, flat, compound, reparandum, discourse, parataxis, conj, cc, punct; with `Poss=Yes` also appos, acl, nmod |
//! | `cc` | goeswith, fixed, reparandum, conj, punct |
//! | `fixed` | goeswith, reparandum, conj, punct |
//! | `goeswith` | none |
//! | `punct` | punct |
//!
//! Negation (`advmod` with UPOS PART or ADV and `Polarity=Neg`) may modify
//! every function word but punctuation. Words of any other relation take
//! any dependent.
//!
//! The predicate looks at nothing but the two words, so a tree's count of
//! such arcs is a sum over its arcs: the `leaf` rule of
//! [`Weights`](super::Weights) makes the engine minimise it exactly among
//! the optimal trees. (The validator also lets a punctuation mark hang
//! from a function word that is itself attached non-projectively; in a
//! projective tree no word is.)

use super::WordLabels;
use crate::tree::DepTree;

/// Head classes, as bit positions of [`FunctionWords::allowed`].
const MARK_CASE_CLF: u16 = 0;
const AUX_COP: u16 = 1;
const DET: u16 = 2;
const DET_POSS: u16 = 3;
const CC: u16 = 4;
const FIXED: u16 = 5;
const GOESWITH: u16 = 6;
const PUNCT: u16 = 7;
/// Not a function word: takes any dependent.
const OPEN: u16 = 15;

/// Per word of a sentence: its class as a head and the classes it may
/// hang under. Reused between sentences.
#[derive(Clone, Debug, Default)]
pub struct FunctionWords {
    class: Vec<u16>,
    allowed: Vec<u16>,
}

impl FunctionWords {
    /// Classifies the words 1 … n of `labels`. O(n); reuses its buffers.
    pub fn read(&mut self, labels: &WordLabels) {
        self.class.clear();
        self.allowed.clear();
        // Index 0: the root position, not a function word and never a dependent.
        self.class.push(OPEN);
        self.allowed.push(u16::MAX);
        for i in 1..=labels.len() {
            let (upos, deprel) = labels.get(i);
            let feats = labels.feats(i);
            let deprel = universal(deprel);
            self.class.push(head_class(deprel, feats));
            self.allowed.push(allowed_under(deprel, upos, feats));
        }
    }

    /// Whether the arc h → d (h ≥ 1, both words of the sentence read last)
    /// puts d under a function word that may not take it. O(1).
    #[inline]
    pub fn forbids(&self, h: usize, d: usize) -> bool {
        let class = self.class[h];
        class != OPEN && self.allowed[d] & (1 << class) == 0
    }

    /// The number of arcs of `tree` that [`forbids`](Self::forbids): the
    /// validator's `leaf-*` errors of the tree if it is projective. The tree
    /// has as many words as the labels read last. O(n).
    pub fn violations(&self, tree: &DepTree) -> usize {
        tree.arcs().filter(|&(h, d)| h >= 1 && self.forbids(h, d)).count()
    }
}

/// The universal part of a DEPREL (before `:`).
fn universal(deprel: &[u8]) -> &[u8] {
    deprel.split(|&b| b == b':').next().unwrap_or(deprel)
}

/// Whether FEATS (`Name=Value|…`) contains `feature`.
fn has_feature(feats: &[u8], feature: &[u8]) -> bool {
    feats.split(|&b| b == b'|').any(|f| f == feature)
}

fn head_class(deprel: &[u8], feats: &[u8]) -> u16 {
    match deprel {
        b"mark" | b"case" | b"clf" => MARK_CASE_CLF,
        b"aux" | b"cop" => AUX_COP,
        b"det" if has_feature(feats, b"Poss=Yes") => DET_POSS,
        b"det" => DET,
        b"cc" => CC,
        b"fixed" => FIXED,
        b"goeswith" => GOESWITH,
        b"punct" => PUNCT,
        _ => OPEN,
    }
}

/// The head classes a word with this universal DEPREL, UPOS and FEATS may
/// hang under, as a bit set (the table of the module docs).
fn allowed_under(deprel: &[u8], upos: &[u8], feats: &[u8]) -> u16 {
    let bits = |classes: &[u16]| classes.iter().fold(1 << OPEN, |acc, &c| acc | (1 << c));
    let det_only = [DET, DET_POSS];
    let mut allowed = match deprel {
        b"advmod" | b"obl" => bits(&[MARK_CASE_CLF, DET, DET_POSS]),
        b"goeswith" | b"reparandum" | b"conj" => bits(&[MARK_CASE_CLF, AUX_COP, DET, DET_POSS, CC, FIXED]),
        b"fixed" => bits(&[MARK_CASE_CLF, AUX_COP, DET, DET_POSS, CC]),
        b"cc" => bits(&[MARK_CASE_CLF, AUX_COP, DET, DET_POSS]),
        b"punct" => bits(&[MARK_CASE_CLF, AUX_COP, DET, DET_POSS, CC, FIXED, PUNCT]),
        b"det" | b"case" | b"clf" | b"flat" | b"compound" | b"discourse" | b"parataxis" => bits(&det_only),
        b"appos" | b"acl" | b"nmod" => bits(&[DET_POSS]),
        _ => bits(&[]),
    };
    let negation = deprel == b"advmod" && matches!(upos, b"PART" | b"ADV") && has_feature(feats, b"Polarity=Neg");
    if negation {
        allowed |= bits(&[MARK_CASE_CLF, AUX_COP, DET, DET_POSS, CC, FIXED, GOESWITH]);
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forbids(head: (&str, &str, &str), dep: (&str, &str, &str)) -> bool {
        let labels = WordLabels::from_columns([head, dep]);
        let mut f = FunctionWords::default();
        f.read(&labels);
        f.forbids(1, 2)
    }

    #[test]
    fn the_table_row_by_row() {
        let punct = ("PUNCT", "_", "punct");
        let nsubj = ("NOUN", "_", "nsubj");
        let obl = ("NOUN", "_", "obl:tmod");
        assert!(!forbids(("VERB", "_", "root"), nsubj), "open heads take anything");
        assert!(forbids(("ADP", "_", "case"), nsubj));
        assert!(!forbids(("ADP", "_", "case"), obl), "subtypes count by their universal part");
        assert!(forbids(("AUX", "_", "aux:pass"), obl));
        assert!(!forbids(("AUX", "_", "cop"), punct));
        assert!(forbids(("DET", "_", "det"), ("NOUN", "_", "nmod")));
        assert!(!forbids(("DET", "Poss=Yes|Person=1", "det:poss"), ("NOUN", "_", "nmod")));
        assert!(!forbids(("DET", "_", "det"), ("PROPN", "_", "flat")));
        assert!(forbids(("CCONJ", "_", "cc"), ("CCONJ", "_", "cc")));
        assert!(!forbids(("CCONJ", "_", "cc"), ("CCONJ", "_", "conj")));
        assert!(forbids(("ADP", "_", "fixed"), ("ADP", "_", "fixed")), "no chains of fixed");
        assert!(forbids(("X", "_", "goeswith"), ("X", "_", "goeswith")));
        assert!(!forbids(("PUNCT", "_", "punct"), punct));
        assert!(forbids(("PUNCT", "_", "punct"), ("ADV", "_", "advmod")));
    }

    #[test]
    fn negation_modifies_function_words_but_not_punctuation() {
        let not = ("PART", "Polarity=Neg", "advmod");
        assert!(!forbids(("AUX", "_", "aux"), not));
        assert!(!forbids(("X", "_", "goeswith"), not));
        assert!(forbids(("PUNCT", "_", "punct"), not));
        assert!(forbids(("AUX", "_", "aux"), ("PART", "_", "advmod")), "without Polarity=Neg");
        assert!(forbids(("AUX", "_", "aux"), ("NOUN", "Polarity=Neg", "advmod")), "not PART or ADV");
    }
}
