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

/// One sentence's outputs of the network.
pub(super) struct Scores<'a> {
    pub arcs: tract_onnx::prelude::tract_ndarray::ArrayViewD<'a, f32>,
    pub left: tract_onnx::prelude::tract_ndarray::ArrayViewD<'a, f32>,
    pub label_head: tract_onnx::prelude::tract_ndarray::ArrayViewD<'a, f32>,
    pub label_dep: tract_onnx::prelude::tract_ndarray::ArrayViewD<'a, f32>,
    pub vectors: tract_onnx::prelude::tract_ndarray::ArrayViewD<'a, f32>,
}

/// The best tree of a sentence of `size` positions (n + 1) under its
/// scores (those of its padding left out), and each arc's best label (an index of `labels`): the heads of
/// words 1 … n and their labels. `scores`: a buffer for the arc scores
/// widened to `f64`; `engine`: the thread's, for a grammar's trees.
pub(super) fn decode(
    trees: &Trees,
    out: &Scores<'_>,
    size: usize,
    labels: usize,
    root_label: Option<usize>,
    scores: &mut Vec<f64>,
    engine: Option<&mut TreeDistribution<'_>>,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let n = size - 1;
    let slices = (out.arcs.as_slice(), out.left.as_slice(), out.label_head.as_slice(), out.label_dep.as_slice());
    let (Some(arcs), Some(left), Some(label_head), Some(label_dep), Some(vectors)) =
        (slices.0, slices.1, slices.2, slices.3, out.vectors.as_slice())
    else {
        return Err("the network's outputs are not contiguous".into());
    };
    // The batch's padded length t, and the label MLP's width m.
    let t = out.arcs.shape()[0];
    let m = vectors.len() / t;
    scores.clear();
    for row in arcs.chunks_exact(t).take(size) {
        scores.extend(row[..size].iter().map(|&x| f64::from(x)));
    }
    let heads: Vec<usize> = match (trees, engine) {
        (Trees::All(roots), _) => nonprojective::best_tree(scores, size, *roots).map_err(|x| x.to_string())?.1,
        (Trees::Grammar { root, word, .. }, Some(engine)) => {
            let input: Vec<Terminal> = std::iter::once(*root).chain(std::iter::repeat_n(*word, n)).collect();
            let best = engine.k_best(&input, scores, 1).map_err(|x| x.to_string())?;
            let (_, tree) = best.into_iter().next().ok_or("the grammar derives no tree")?;
            tree.heads().to_vec()
        }
        (Trees::Grammar { .. }, None) => unreachable!("a grammar's thread has its engine"),
    };
    // Each arc's best label (the first of equal scores, as argmax):
    // bilinear + the head's and the dependent's linear terms; with a
    // label `root`, exactly the arcs from the root have it.
    let mut chosen = Vec::with_capacity(n);
    for d in 1..=n {
        let h = heads[d - 1];
        let dep = &vectors[d * m..][..m];
        let best = best_label(labels, root_label, h == 0, |l| {
            dot(&left[(h * labels + l) * m..][..m], dep) + label_head[h * labels + l] + label_dep[d * labels + l]
        });
        chosen.push(best.unwrap_or(usize::MAX));
    }
    Ok((heads, chosen))
}
