//! Neural parsers exported to ONNX (`python -m tabula_parsing.neural
//! export`), run without Python by [tract](https://crates.io/crates/tract-onnx),
//! a pure-Rust runtime (the cargo feature `onnx`).
//!
//! The pipeline of one sentence, as the Python parser's (`tabula_parsing.neural`):
//! CoNLL-U block → FORM, UPOS (FEATS) and characters as the ids of the
//! model's vocabularies (the root token first) → the network (sentences of
//! one length run together, so its BiLSTM reads no padding) → arc scores
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
use rayon::prelude::*;
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
    /// The graph's inputs, in order (`forms`, `upos`, `feats`, `chars`,
    /// `pretrained`, `states`).
    pub inputs: Vec<String>,
    /// The LSTM's initial states (the input `states`, zeros): 2 · layers
    /// and the units per direction.
    pub states: [usize; 2],
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
/// share of [`OnnxModel::parse_batch`].
pub struct OnnxModel {
    /// The optimised graph for each of [`PLAN_SIZES`] sentences at once.
    plans: Vec<(usize, Arc<TypedRunnableModel>)>,
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
        let onnx = tract_onnx::onnx();
        // Another kind of file is named only when the bytes are no ONNX:
        // a model's weights may look like lines of text.
        let proto =
            onnx.proto_model_for_read(&mut &bytes[..]).map_err(|e| match crate::file_kind::other_kind(bytes) {
                Some((line, what)) => fail(format!("line {line} shows {what}")),
                None => fail(format!("not ONNX ({e})")),
            })?;
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
        // tract (0.23) runs an LSTM over a batch above one only when its
        // initial states are not an input ("Clashing resolution" inside its
        // scan otherwise): they are zeros, ONNX's default, so the LSTM nodes
        // drop them (the graph input `states` stays, unread). Each plan then
        // fixes the batch size before the graph is typed, the sentence length
        // left free.
        let mut proto = proto;
        for node in proto.graph.iter_mut().flat_map(|g| g.node.iter_mut()).filter(|n| n.op_type == "LSTM") {
            node.input.truncate(5);
        }
        let inference = onnx.model_for_proto_model(&proto).map_err(|e| fail(format!("its graph: {e:#}")))?;
        let length = inference.symbols.sym("T");
        let plans = PLAN_SIZES
            .iter()
            .map(|&size| {
                let mut model = inference.clone();
                for (ix, name) in meta.inputs.iter().enumerate() {
                    let [layers, units] = meta.states;
                    let fact = match name.as_str() {
                        "states" => InferenceFact::dt_shape(
                            f32::datum_type(),
                            tvec![layers.to_dim(), size.to_dim(), units.to_dim()],
                        ),
                        "chars" => InferenceFact::dt_shape(
                            i64::datum_type(),
                            tvec![size.to_dim(), length.to_dim(), meta.max_chars.to_dim()],
                        ),
                        _ => InferenceFact::dt_shape(i64::datum_type(), tvec![size.to_dim(), length.to_dim()]),
                    };
                    model.set_input_fact(ix, fact)?;
                }
                let plan = model.into_typed()?.into_decluttered()?.into_optimized()?.into_runnable()?;
                Ok((size, plan))
            })
            .collect::<TractResult<Vec<_>>>()
            .map_err(|e| fail(format!("its graph: {e:#}")))?;
        let root_label = meta.labels.iter().position(|l| l == "root");
        Ok(OnnxModel {
            plans,
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

    /// Each block of `blocks` (read from `file`) parsed, in input order,
    /// in parallel on rayon's current pool: tagged first with `tagger`, read
    /// and encoded, then the sentences of one length run through the
    /// network together (a batch without padding, so the same numbers as
    /// one at a time), decoded and written. A sentence longer than
    /// `max_words` is an error naming its line. The output does not depend
    /// on the number of threads.
    pub fn parse_batch(
        &self,
        blocks: &[RawSentence],
        file: &str,
        tagger: Option<&TaggerModel>,
        max_words: usize,
    ) -> Vec<Result<ParsedBlock, NeuralError>> {
        let stages: Vec<Result<Stage, NeuralError>> = blocks
            .par_iter()
            .map_init(
                || tagger.map(|t| Tagger::new(t, t.options.decode)),
                |t, raw| self.prepare(t.as_mut(), raw, file, max_words),
            )
            .collect();
        let mut ready: Vec<(usize, &Encoded)> = stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Ok(Stage::Ready(e)) => Some((i, e)),
                _ => None,
            })
            .collect();
        ready.sort_by_key(|&(i, e)| (e.size, i));
        let mut groups: Vec<&[(usize, &Encoded)]> = Vec::new();
        let mut rest = &ready[..];
        while let Some(&(_, first)) = rest.first() {
            let most = (GROUP_POSITIONS / first.size).clamp(1, GROUP_SENTENCES);
            let same = rest.iter().take(most).take_while(|(_, e)| e.size == first.size).count();
            let (group, tail) = rest.split_at(same);
            groups.push(group);
            rest = tail;
        }
        let parsed: Vec<Vec<(usize, Result<ParsedBlock, NeuralError>)>> = groups
            .par_iter()
            .map_init(
                || match &self.trees {
                    Trees::Grammar { grammar, .. } => Some(TreeDistribution::new(grammar)),
                    Trees::All(_) => None,
                },
                |engine, group| self.run_group(group, file, engine.as_mut()),
            )
            .collect();
        let mut out: Vec<Option<Result<ParsedBlock, NeuralError>>> = stages
            .into_iter()
            .map(|s| match s {
                Ok(Stage::Done(p)) => Some(Ok(p)),
                Ok(Stage::Ready(_)) => None,
                Err(e) => Some(Err(e)),
            })
            .collect();
        for (i, r) in parsed.into_iter().flatten() {
            out[i] = Some(r);
        }
        out.into_iter().map(|r| r.expect("every block parsed")).collect()
    }

    /// A block tagged (with a tagger), checked and encoded; a block without
    /// words is copied as it is.
    fn prepare(
        &self,
        tagger: Option<&mut Tagger<'_>>,
        raw: &RawSentence,
        file: &str,
        max_words: usize,
    ) -> Result<Stage, NeuralError> {
        let raw = match tagger {
            Some(t) => {
                let mut text = Vec::with_capacity(raw.text.len() + 16);
                t.tag_block(raw, file, &mut text)?;
                RawSentence { text, first_line: raw.first_line }
            }
            None => raw.clone(),
        };
        let cols = Columns::scan(&raw, file)?;
        if cols.is_empty() {
            return Ok(Stage::Done(ParsedBlock { bytes: raw.text, ..ParsedBlock::default() }));
        }
        if cols.len() > max_words {
            return Err(ParserError::Conllu {
                file: file.to_owned(),
                line: raw.first_line,
                reason: format!("a sentence of {} words, longer than --max-words {max_words}", cols.len()),
            }
            .into());
        }
        let input = InputCounts::check(&raw, file, true)?;
        let text = &raw.text;
        let field = |r: &std::ops::Range<usize>| std::str::from_utf8(&text[r.clone()]).unwrap_or("");
        let size = cols.len() + 1;
        let lookup = |map: &HashMap<String, i64>, s: &str| map.get(s).copied().unwrap_or(UNK);
        let mut ids = Vec::with_capacity(self.meta.inputs.len());
        for name in &self.meta.inputs {
            let column: Vec<i64> = match name.as_str() {
                "forms" | "upos" | "feats" | "pretrained" => {
                    let mut column = Vec::with_capacity(size);
                    column.push(if name == "pretrained" { PAD } else { ROOT });
                    for w in &cols.words {
                        column.push(match name.as_str() {
                            "forms" => lookup(&self.forms, field(&w.form)),
                            "upos" => lookup(&self.upos, field(&w.upos)),
                            "feats" => lookup(&self.feats, field(&w.feats)),
                            _ => {
                                // As `Pretrained`: the form, then lowercased; 0: no vector.
                                let map = self.pretrained.as_ref().expect("the words of the pre-trained vectors");
                                let f = field(&w.form);
                                map.get(f).or_else(|| map.get(&f.to_lowercase())).copied().unwrap_or(PAD)
                            }
                        });
                    }
                    column
                }
                "states" => Vec::new(),
                "chars" => {
                    // The first MAX_CHARS characters (code points, as Python slices).
                    let c = self.meta.max_chars;
                    let mut column = vec![PAD; size * c];
                    column[0] = ROOT;
                    let mut buf = [0u8; 4];
                    for (i, w) in cols.words.iter().enumerate() {
                        for (j, ch) in field(&w.form).chars().take(c).enumerate() {
                            column[(i + 1) * c + j] = lookup(&self.chars, ch.encode_utf8(&mut buf));
                        }
                    }
                    column
                }
                other => {
                    return Err(NeuralError::Run {
                        file: file.to_owned(),
                        line: raw.first_line,
                        why: format!("the graph has an unknown input `{other}`"),
                    })
                }
            };
            ids.push(column);
        }
        Ok(Stage::Ready(Encoded { raw, cols, input, size, ids }))
    }

    /// Sentences of one length through the network together (in runs of
    /// the plans' sizes), each decoded and written.
    fn run_group(
        &self,
        group: &[(usize, &Encoded)],
        file: &str,
        mut engine: Option<&mut TreeDistribution<'_>>,
    ) -> Vec<(usize, Result<ParsedBlock, NeuralError>)> {
        let mut out = Vec::with_capacity(group.len());
        let mut rest = group;
        while !rest.is_empty() {
            let (size, plan) = self.plans.iter().find(|(size, _)| *size <= rest.len()).expect("a plan of 1");
            let (chunk, tail) = rest.split_at(*size);
            out.extend(self.run_chunk(plan, chunk, file, engine.as_deref_mut()));
            rest = tail;
        }
        out
    }

    /// [`OnnxModel::run_group`] of one run; an error of the runtime is
    /// every sentence's.
    fn run_chunk(
        &self,
        plan: &Arc<TypedRunnableModel>,
        group: &[(usize, &Encoded)],
        file: &str,
        mut engine: Option<&mut TreeDistribution<'_>>,
    ) -> Vec<(usize, Result<ParsedBlock, NeuralError>)> {
        let (b, size) = (group.len(), group[0].1.size);
        let mut inputs: TVec<TValue> = TVec::new();
        for (k, name) in self.meta.inputs.iter().enumerate() {
            if name == "states" {
                let [layers, units] = self.meta.states;
                inputs.push(tract_ndarray::Array3::<f32>::zeros((layers, b, units)).into_tensor().into());
                continue;
            }
            let data: Vec<i64> = group.iter().flat_map(|(_, e)| e.ids[k].iter().copied()).collect();
            let tensor = if name == "chars" {
                tract_ndarray::Array3::from_shape_vec((b, size, self.meta.max_chars), data).map(|a| a.into_tensor())
            } else {
                tract_ndarray::Array2::from_shape_vec((b, size), data).map(|a| a.into_tensor())
            };
            inputs.push(tensor.expect("the ids fill the shape").into());
        }
        let failed = |why: String| -> Vec<(usize, Result<ParsedBlock, NeuralError>)> {
            group
                .iter()
                .map(|&(i, e)| {
                    (i, Err(NeuralError::Run { file: file.to_owned(), line: e.raw.first_line, why: why.clone() }))
                })
                .collect()
        };
        let outputs = match plan.run(inputs) {
            Ok(o) => o,
            Err(e) => return failed(format!("{e:#}")),
        };
        let views: Result<Vec<_>, _> = outputs.iter().map(|o| o.to_plain_array_view::<f32>()).collect();
        let views = match views {
            Ok(v) if v.len() == 5 => v,
            Ok(v) => return failed(format!("{} outputs, the model has 5", v.len())),
            Err(e) => return failed(format!("{e:#}")),
        };
        let mut scores = Vec::with_capacity(size * size);
        group
            .iter()
            .enumerate()
            .map(|(k, &(i, e))| {
                let at = |v: usize| views[v].index_axis(tract_ndarray::Axis(0), k);
                let out = Scores { arcs: at(0), left: at(1), label_head: at(2), label_dep: at(3), vectors: at(4) };
                (i, self.finish(e, &out, &mut scores, engine.as_deref_mut(), file))
            })
            .collect()
    }

    /// The best tree of one sentence under its scores, each arc's best
    /// label, the block written.
    fn finish(
        &self,
        e: &Encoded,
        out: &Scores<'_>,
        scores: &mut Vec<f64>,
        engine: Option<&mut TreeDistribution<'_>>,
        file: &str,
    ) -> Result<ParsedBlock, NeuralError> {
        let (size, n) = (e.size, e.size - 1);
        let fail = |why: String| NeuralError::Run { file: file.to_owned(), line: e.raw.first_line, why };
        scores.clear();
        scores.extend(out.arcs.iter().map(|&x| f64::from(x)));
        let heads: Vec<usize> = match (&self.trees, engine) {
            (Trees::All(roots), _) => {
                nonprojective::best_tree(scores, size, *roots).map_err(|x| fail(x.to_string()))?.1
            }
            (Trees::Grammar { root, word, .. }, Some(engine)) => {
                let input: Vec<Terminal> = std::iter::once(*root).chain(std::iter::repeat_n(*word, n)).collect();
                let best = engine.k_best(&input, scores, 1).map_err(|x| fail(x.to_string()))?;
                let (_, tree) = best.into_iter().next().ok_or_else(|| fail("the grammar derives no tree".into()))?;
                tree.heads().to_vec()
            }
            (Trees::Grammar { .. }, None) => unreachable!("a grammar's thread has its engine"),
        };
        // Each arc's best label (the first of equal scores, as argmax):
        // bilinear + the head's and the dependent's linear terms; with a
        // label `root`, exactly the arcs from the root have it.
        let mut labels: Vec<&str> = Vec::with_capacity(n);
        for d in 1..=n {
            let h = heads[d - 1];
            let dep = out.vectors.index_axis(tract_ndarray::Axis(0), d);
            let mut best: Option<(usize, f32)> = None;
            for l in 0..self.meta.labels.len() {
                if self.root_label.is_some_and(|root| (h == 0) != (l == root)) {
                    continue;
                }
                let row = out.left.slice(tract_ndarray::s![h, l, ..]);
                let mut s = 0f32;
                for (a, b) in row.iter().zip(dep.iter()) {
                    s += a * b;
                }
                let s = s + out.label_head[[h, l]] + out.label_dep[[d, l]];
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((l, s));
                }
            }
            labels.push(best.map_or("_", |(l, _)| self.meta.labels[l].as_str()));
        }
        let bytes =
            crate::parser::run::write_parsed(&e.raw, &e.cols, &heads, &labels, self.pseudo_projective.is_some(), file)?;
        Ok(ParsedBlock { bytes, input: e.input })
    }
}

/// The most positions (sentences × their length + 1) run together, and
/// the most sentences: bounds on a run's memory (the label forms take
/// labels × label MLP floats per position).
const GROUP_POSITIONS: usize = 4096;
const GROUP_SENTENCES: usize = 64;
/// The batch sizes of the plans, largest first (ending with 1): a group of
/// sentences of one length runs through the largest plan it fills, the
/// rest through smaller ones.
const PLAN_SIZES: [usize; 7] = [64, 32, 16, 8, 4, 2, 1];

/// A block after reading: a block without words (copied), or one to parse.
enum Stage {
    Done(ParsedBlock),
    Ready(Encoded),
}

/// A block read and encoded, waiting for the network: its text (tagged,
/// with a tagger), words, counts, size n + 1 and the ids of each of the
/// graph's inputs (row-major).
struct Encoded {
    raw: RawSentence,
    cols: Columns,
    input: InputCounts,
    size: usize,
    ids: Vec<Vec<i64>>,
}

/// One sentence's outputs of the network.
struct Scores<'a> {
    arcs: tract_ndarray::ArrayViewD<'a, f32>,
    left: tract_ndarray::ArrayViewD<'a, f32>,
    label_head: tract_ndarray::ArrayViewD<'a, f32>,
    label_dep: tract_ndarray::ArrayViewD<'a, f32>,
    vectors: tract_ndarray::ArrayViewD<'a, f32>,
}
