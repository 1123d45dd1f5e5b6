//! Neural parsers exported to ONNX (`python -m tabula_parsing.neural
//! export`), run without Python by [tract](https://crates.io/crates/tract-onnx),
//! a pure-Rust runtime (the cargo feature `onnx`).
//!
//! The pipeline of one sentence, as the Python parser's (`tabula_parsing.neural`):
//! CoNLL-U block → FORM, UPOS (FEATS) and characters as the ids of the
//! model's vocabularies (the root token first) → the network (one run of
//! the graph per sentence: its BiLSTM reads no padding) → arc scores
//! widened to `f64` → the best tree of the model's class (Chu–Liu–Edmonds,
//! [`crate::nonprojective::best_tree`], or a grammar's in max-plus,
//! [`TreeDistribution::k_best`]) → each arc's best label (`root` exactly on
//! the arcs from the root when the labels have it) → HEAD and DEPREL
//! written, every other byte kept ([`Columns::write_with`]).
//!
//! An exported model is one file: the graph, and the vocabularies and
//! options as JSON in its `metadata_props` under the key `tabula`
//! ([`Meta`]). Only graph-based (biaffine) models are exported so far.

use crate::conllu::RawSentence;
use crate::distribution::TreeDistribution;
use crate::grammar::{Grammar, Terminal};
use crate::nonprojective::{self, Roots};
use crate::parser::columns::Columns;
use crate::parser::features::FeatureColumns;
use crate::parser::run::{InputCounts, ParsedBlock};
use crate::parser::ParserError;
use crate::projectivize::pseudo;
use crate::tagger::{Tagger, TaggerError, TaggerModel};
use crate::tree::DepTree;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tract_onnx::prelude::*;

/// The format of the metadata this module reads.
pub const FORMAT: &str = "tabula-onnx-1";
/// Ids every vocabulary shares: padding, unknown, the root token.
const PAD: i64 = 0;
const UNK: i64 = 1;
const ROOT: i64 = 2;

/// Errors of loading or running an exported model.
#[derive(Debug, thiserror::Error)]
pub enum NeuralError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// Not an ONNX model of tabula's, or a damaged one.
    #[error("{path}: not a tabula neural model in ONNX: {why}")]
    NotAModel { path: String, why: String },
    /// The runtime failed on a sentence.
    #[error("{file}:{line}: the network failed: {why}")]
    Run { file: String, line: usize, why: String },
    #[error(transparent)]
    Parser(#[from] ParserError),
    #[error(transparent)]
    Tagger(#[from] TaggerError),
}

/// The metadata of an exported model (`tabula_parsing.neural.export`).
#[derive(Debug, serde::Deserialize)]
pub struct Meta {
    pub format: String,
    pub parser: String,
    /// `projective`, `projective-single-root`, `nonprojective`,
    /// `nonprojective-single-root` or `grammar` (the text in `grammar`).
    pub trees: String,
    pub grammar: Option<String>,
    pub pseudo_projective: Option<String>,
    /// The model reads FEATS.
    pub feats: bool,
    pub max_chars: usize,
    /// The graph's inputs, in order (`forms`, `upos`, `feats`, `chars`, `pretrained`).
    pub inputs: Vec<String>,
    pub forms: Vec<String>,
    pub upos: Vec<String>,
    pub feats_vocab: Vec<String>,
    pub chars: Vec<String>,
    pub labels: Vec<String>,
    pub pretrained: Option<Vec<String>>,
}

/// Whether `path` is to be read as an ONNX model: its name ends in `.onnx`.
pub fn is_onnx(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

/// Strings to ids, as `tabula_parsing.neural.data.Vocab` (unknown: 1).
fn index(strings: &[String]) -> HashMap<String, i64> {
    let mut map = HashMap::with_capacity(strings.len());
    for (i, s) in strings.iter().enumerate() {
        map.entry(s.clone()).or_insert(i as i64);
    }
    map
}

/// Which trees the model parses into.
enum Trees {
    All(Roots),
    Grammar { grammar: Box<Grammar>, root: Terminal, word: Terminal },
}

/// A loaded model: the optimised graph (shared by all threads), the
/// vocabularies and the tree class. Immutable; each thread parses with its
/// own [`OnnxWorker`].
pub struct OnnxModel {
    plan: Arc<TypedRunnableModel>,
    pub meta: Meta,
    forms: HashMap<String, i64>,
    upos: HashMap<String, i64>,
    feats: HashMap<String, i64>,
    chars: HashMap<String, i64>,
    pretrained: Option<HashMap<String, i64>>,
    trees: Trees,
    root_label: Option<usize>,
    pseudo_projective: Option<pseudo::Scheme>,
}

impl OnnxModel {
    /// Reads and optimises an exported model; its metadata checked.
    pub fn load(path: &Path) -> Result<OnnxModel, NeuralError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| NeuralError::Io { path: name.clone(), source })?;
        Self::from_bytes(&bytes, &name)
    }

    /// [`OnnxModel::load`] of a file's bytes; `name` names it in messages.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<OnnxModel, NeuralError> {
        let fail = |why: String| NeuralError::NotAModel { path: name.to_owned(), why };
        if let Some((line, what)) = crate::file_kind::other_kind(bytes) {
            return Err(fail(format!("line {line} shows {what}")));
        }
        let onnx = tract_onnx::onnx();
        let proto = onnx.proto_model_for_read(&mut &bytes[..]).map_err(|e| fail(format!("not ONNX ({e})")))?;
        let json = proto.metadata_props.iter().find(|p| p.key == "tabula").ok_or_else(|| {
            fail("no `tabula` entry in its metadata (export it with `python -m tabula_parsing.neural export`)".into())
        })?;
        let meta: Meta = serde_json::from_str(&json.value).map_err(|e| fail(format!("its metadata: {e}")))?;
        if meta.format != FORMAT {
            return Err(fail(format!("format `{}`, this tabula reads `{FORMAT}`", meta.format)));
        }
        if meta.parser != "biaffine" {
            return Err(fail(format!("a `{}` parser; only biaffine models run here", meta.parser)));
        }
        let trees = match meta.trees.as_str() {
            "nonprojective" => Trees::All(Roots::Multi),
            "nonprojective-single-root" => Trees::All(Roots::Single),
            other => {
                let (path, text) = match other {
                    "grammar" => ("<the model's grammar>".to_owned(), meta.grammar.clone().unwrap_or_default()),
                    shipped => (
                        format!("grammars/{shipped}.grammar"),
                        crate::grammars::by_name(shipped)
                            .ok_or_else(|| fail(format!("unknown trees `{shipped}`")))?
                            .to_owned(),
                    ),
                };
                let grammar = crate::grammar::text::parse_str(&path, &text)
                    .map_err(|e| fail(format!("its grammar: {e}")))?
                    .grammar;
                let all: Vec<Terminal> = grammar.terminals().collect();
                let (root, word) = match all.as_slice() {
                    [one] => (*one, *one),
                    [a, b] if grammar.terminal_name(*a) == "root" => (*a, *b),
                    [a, b] if grammar.terminal_name(*b) == "root" => (*b, *a),
                    _ => return Err(fail("its grammar needs one terminal, or two of which one is `root`".into())),
                };
                Trees::Grammar { grammar: Box::new(grammar), root, word }
            }
        };
        let pseudo_projective = match meta.pseudo_projective.as_deref() {
            None => None,
            Some(s) => {
                Some(pseudo::Scheme::from_name(s).ok_or_else(|| fail(format!("pseudo-projective scheme `{s}`")))?)
            }
        };
        let model = onnx
            .model_for_proto_model(&proto)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| fail(format!("its graph: {e:#}")))?;
        let root_label = meta.labels.iter().position(|l| l == "root");
        Ok(OnnxModel {
            plan: model,
            forms: index(&meta.forms),
            upos: index(&meta.upos),
            feats: index(&meta.feats_vocab),
            chars: index(&meta.chars),
            pretrained: meta.pretrained.as_ref().map(|w| {
                let mut map = HashMap::with_capacity(w.len());
                for (i, s) in w.iter().enumerate() {
                    map.entry(s.clone()).or_insert(i as i64 + 1);
                }
                map
            }),
            trees,
            root_label,
            pseudo_projective,
            meta,
        })
    }

    /// The columns the model reads besides FORM and UPOS (for the input's warnings).
    pub fn columns(&self) -> FeatureColumns {
        FeatureColumns { feats: self.meta.feats, ..FeatureColumns::NONE }
    }

    /// A parser for one thread (with `tagger`, UPOS and FEATS tagged first).
    pub fn worker<'m>(&'m self, tagger: Option<&'m TaggerModel>, max_words: usize) -> OnnxWorker<'m> {
        let engine = match &self.trees {
            Trees::Grammar { grammar, .. } => Some(Box::new(TreeDistribution::new(grammar))),
            Trees::All(_) => None,
        };
        OnnxWorker {
            model: self,
            engine,
            tagger: tagger.map(|t| Tagger::new(t, t.options.decode)),
            max_words,
            scores: Vec::new(),
        }
    }
}

/// One thread's parser of an [`OnnxModel`], reused from block to block.
pub struct OnnxWorker<'m> {
    model: &'m OnnxModel,
    engine: Option<Box<TreeDistribution<'m>>>,
    tagger: Option<Tagger<'m>>,
    max_words: usize,
    scores: Vec<f64>,
}

impl OnnxWorker<'_> {
    /// The block (tagged first with a tagger) with HEAD and DEPREL of its
    /// words filled; a block without words is copied.
    pub fn parse(&mut self, raw: &RawSentence, file: &str) -> Result<ParsedBlock, NeuralError> {
        match &mut self.tagger {
            Some(t) => {
                let mut text = Vec::with_capacity(raw.text.len() + 16);
                t.tag_block(raw, file, &mut text)?;
                self.parse_tagged(&RawSentence { text, first_line: raw.first_line }, file)
            }
            None => self.parse_tagged(raw, file),
        }
    }

    fn parse_tagged(&mut self, raw: &RawSentence, file: &str) -> Result<ParsedBlock, NeuralError> {
        let cols = Columns::scan(raw, file)?;
        if cols.is_empty() {
            return Ok(ParsedBlock { bytes: raw.text.clone(), ..ParsedBlock::default() });
        }
        if cols.len() > self.max_words {
            return Err(ParserError::Conllu {
                file: file.to_owned(),
                line: raw.first_line,
                reason: format!("a sentence of {} words, longer than --max-words {}", cols.len(), self.max_words),
            }
            .into());
        }
        let input = InputCounts::check(raw, file, true)?;
        let m = self.model;
        let text = &raw.text;
        let field = |r: &std::ops::Range<usize>| std::str::from_utf8(&text[r.clone()]).unwrap_or("");
        let n = cols.len();
        let size = n + 1;
        let lookup = |map: &HashMap<String, i64>, s: &str| map.get(s).copied().unwrap_or(UNK);
        let mut inputs: TVec<TValue> = TVec::new();
        for name in &m.meta.inputs {
            let tensor = match name.as_str() {
                "forms" | "upos" | "feats" | "pretrained" => {
                    let mut ids = Vec::with_capacity(size);
                    ids.push(if name == "pretrained" { PAD } else { ROOT });
                    for w in &cols.words {
                        ids.push(match name.as_str() {
                            "forms" => lookup(&m.forms, field(&w.form)),
                            "upos" => lookup(&m.upos, field(&w.upos)),
                            "feats" => lookup(&m.feats, field(&w.feats)),
                            _ => {
                                let map = m.pretrained.as_ref().expect("pretrained words");
                                let f = field(&w.form);
                                map.get(f).or_else(|| map.get(&f.to_lowercase())).copied().unwrap_or(PAD)
                            }
                        });
                    }
                    tract_ndarray::Array2::from_shape_vec((1, size), ids).expect("shape").into_tensor()
                }
                "chars" => {
                    let c = m.meta.max_chars;
                    let mut ids = vec![PAD; size * c];
                    ids[0] = ROOT;
                    let mut buf = [0u8; 4];
                    for (i, w) in cols.words.iter().enumerate() {
                        for (j, ch) in field(&w.form).chars().take(c).enumerate() {
                            ids[(i + 1) * c + j] = lookup(&m.chars, ch.encode_utf8(&mut buf));
                        }
                    }
                    tract_ndarray::Array3::from_shape_vec((1, size, c), ids).expect("shape").into_tensor()
                }
                other => {
                    return Err(NeuralError::Run {
                        file: file.to_owned(),
                        line: raw.first_line,
                        why: format!("unknown input `{other}`"),
                    })
                }
            };
            inputs.push(tensor.into());
        }
        let run_error =
            |e: TractError| NeuralError::Run { file: file.to_owned(), line: raw.first_line, why: format!("{e:#}") };
        let outputs = m.plan.run(inputs).map_err(run_error)?;
        let view = |i: usize| outputs[i].to_plain_array_view::<f32>().map_err(run_error);
        let (arcs, left, label_head, label_dep, vectors) = (view(0)?, view(1)?, view(2)?, view(3)?, view(4)?);
        self.scores.clear();
        self.scores.extend(arcs.iter().map(|&x| f64::from(x)));
        let decode_error = |why: String| NeuralError::Run { file: file.to_owned(), line: raw.first_line, why };
        let heads: Vec<usize> = match (&m.trees, &mut self.engine) {
            (Trees::All(roots), _) => {
                nonprojective::best_tree(&self.scores, size, *roots).map_err(|e| decode_error(e.to_string()))?.1
            }
            (Trees::Grammar { root, word, .. }, Some(engine)) => {
                let input: Vec<Terminal> = std::iter::once(*root).chain(std::iter::repeat_n(*word, n)).collect();
                let best = engine.k_best(&input, &self.scores, 1).map_err(|e| decode_error(e.to_string()))?;
                let (_, tree) =
                    best.into_iter().next().ok_or_else(|| decode_error("the grammar derives no tree".into()))?;
                tree.heads().to_vec()
            }
            (Trees::Grammar { .. }, None) => unreachable!("a grammar's worker has its engine"),
        };
        // Each arc's best label: bilinear + the head's and the dependent's linear terms.
        let labels_n = m.meta.labels.len();
        let mut labels: Vec<&str> = Vec::with_capacity(n);
        for d in 1..=n {
            let h = heads[d - 1];
            let dep = vectors.slice(tract_ndarray::s![d, ..]);
            let mut best: Option<(usize, f32)> = None;
            for l in 0..labels_n {
                if let Some(root) = m.root_label {
                    if (h == 0) != (l == root) {
                        continue;
                    }
                }
                let row = left.slice(tract_ndarray::s![h, l, ..]);
                let mut s = 0f32;
                for (a, b) in row.iter().zip(dep.iter()) {
                    s += a * b;
                }
                let s = s + label_head[[h, l]] + label_dep[[d, l]];
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((l, s));
                }
            }
            labels.push(best.map_or("_", |(l, _)| m.meta.labels[l].as_str()));
        }
        let mut bytes = Vec::with_capacity(raw.text.len() + 16);
        let decoded = match m.pseudo_projective {
            Some(_) => match DepTree::from_heads(&heads) {
                Ok(tree) => Some(pseudo::decode(&tree, &labels).map_err(|e| ParserError::Conllu {
                    file: file.to_owned(),
                    line: raw.first_line,
                    reason: format!("pseudo-projective decoding: {e}"),
                })?),
                Err(_) => None,
            },
            None => None,
        };
        match decoded {
            Some(d) => {
                let plain: Vec<&str> = d.labels.iter().map(String::as_str).collect();
                cols.write_with(text, d.tree.heads(), &plain, &mut bytes)
            }
            None => cols.write_with(text, &heads, &labels, &mut bytes),
        }
        .map_err(|e| ParserError::Io(e.to_string()))?;
        Ok(ParsedBlock { bytes, input })
    }
}
