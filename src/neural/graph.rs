//! The graph-based (biaffine) model's decoder: the best tree of the
//! model's class under the arc scores (Chu–Liu–Edmonds,
//! [`crate::nonprojective::best_tree`], or a grammar's in max-plus,
//! [`TreeDistribution::k_best`]), then each arc's best label.

use super::math::{best_label, dot};
use super::Meta;
use crate::distribution::TreeDistribution;
use crate::grammar::{Grammar, Terminal};
use crate::nonprojective::{self, Roots};

/// Which trees the model parses into.
pub(super) enum Trees {
    All(Roots),
    Grammar { grammar: Box<Grammar>, root: Terminal, word: Terminal },
}

impl Trees {
    /// The class named in the metadata (a shipped grammar's name, or
    /// `grammar` with the text beside it); `Err`: why not.
    pub(super) fn of(meta: &Meta) -> Result<Trees, String> {
        let trees = meta.trees.as_deref().ok_or("a biaffine model without its `trees`")?;
        match trees {
            "nonprojective" => return Ok(Trees::All(Roots::Multi)),
            "nonprojective-single-root" => return Ok(Trees::All(Roots::Single)),
            _ => {}
        }
        let (path, text) = match trees {
            "grammar" => ("<the model's grammar>".to_owned(), meta.grammar.clone().unwrap_or_default()),
            shipped => (
                format!("grammars/{shipped}.grammar"),
                crate::grammars::by_name(shipped).ok_or_else(|| format!("unknown trees `{shipped}`"))?.to_owned(),
            ),
        };
        let grammar = crate::grammar::text::parse_str(&path, &text).map_err(|e| format!("its grammar: {e}"))?.grammar;
        let all: Vec<Terminal> = grammar.terminals().collect();
        let (root, word) = match all.as_slice() {
            [one] => (*one, *one),
            [a, b] if grammar.terminal_name(*a) == "root" => (*a, *b),
            [a, b] if grammar.terminal_name(*b) == "root" => (*b, *a),
            _ => return Err("its grammar needs one terminal, or two of which one is `root`".into()),
        };
        Ok(Trees::Grammar { grammar: Box::new(grammar), root, word })
    }

    /// The engine a thread decodes a grammar's trees with.
    pub(super) fn engine(&self) -> Option<TreeDistribution<'_>> {
        match self {
            Trees::Grammar { grammar, .. } => Some(TreeDistribution::new(grammar)),
            Trees::All(_) => None,
        }
    }
}

/// The best tree of a sentence of `size` positions (n + 1) under its arc
/// scores `arcs` (t × t for the batch's padded length t, row = head; its
/// padding left out): the heads of words 1 … n. `scores`: a buffer for
/// the arc scores widened to `f64`; `engine`: the thread's, for a
/// grammar's trees.
pub(super) fn best_tree(
    trees: &Trees,
    arcs: &[f32],
    t: usize,
    size: usize,
    scores: &mut Vec<f64>,
    engine: Option<&mut TreeDistribution<'_>>,
) -> Result<Vec<usize>, String> {
    scores.clear();
    for row in arcs.chunks_exact(t).take(size) {
        scores.extend(row[..size].iter().map(|&x| f64::from(x)));
    }
    match (trees, engine) {
        (Trees::All(roots), _) => Ok(nonprojective::best_tree(scores, size, *roots).map_err(|x| x.to_string())?.1),
        (Trees::Grammar { root, word, .. }, Some(engine)) => {
            let input: Vec<Terminal> = std::iter::once(*root).chain(std::iter::repeat_n(*word, size - 1)).collect();
            let best = engine.k_best(&input, scores, 1).map_err(|x| x.to_string())?;
            let (_, tree) = best.into_iter().next().ok_or("the grammar derives no tree")?;
            Ok(tree.heads().to_vec())
        }
        (Trees::Grammar { .. }, None) => unreachable!("a grammar's thread has its engine"),
    }
}

/// Each arc's best label (an index of the model's `labels`; the first of
/// equal scores, as argmax): bilinear + the head's and the dependent's
/// linear terms; with a label `root` (`root_label`), exactly the arcs from
/// the root have it. `forms(h)`: the classifier's bilinear form applied to
/// head h (labels × m, row l being (vector_h · U)_l); `head` and `dep`
/// (t × labels): the linear terms, the bias in `dep`; `vectors` (t × m):
/// each position's vector as a dependent.
pub(super) fn best_labels<'a>(
    heads: &[usize],
    forms: impl Fn(usize) -> &'a [f32],
    [head, dep, vectors]: [&[f32]; 3],
    [labels, m]: [usize; 2],
    root_label: Option<usize>,
) -> Vec<usize> {
    let mut chosen = Vec::with_capacity(heads.len());
    for (i, &h) in heads.iter().enumerate() {
        let d = i + 1;
        let (form, vector) = (forms(h), &vectors[d * m..][..m]);
        let best = best_label(labels, root_label, h == 0, |l| {
            dot(&form[l * m..][..m], vector) + head[h * labels + l] + dep[d * labels + l]
        });
        chosen.push(best.unwrap_or(usize::MAX));
    }
    chosen
}
