//! Neural parsers exported to ONNX (`python -m tabula_parsing.neural
//! export`), run without Python by [tract](https://crates.io/crates/tract-onnx),
//! a pure-Rust runtime (the cargo feature `onnx`).
//!
//! The pipeline of one sentence, as the Python parser's (`tabula_parsing.neural`):
//! CoNLL-U block → FORM, UPOS (FEATS) and characters as the ids of the
//! model's vocabularies (the root token first) → the network (sentences of
//! one length run together, so its BiLSTM reads no padding) → the decoder:
//! for a graph-based (biaffine) model, the best tree of the model's class
//! under its arc scores and each arc's best label ([`graph`]); for a
//! transition model, greedy steps of its transition system
//! ([`transition`]) → HEAD and DEPREL written, every other byte kept
//! ([`Columns::write_with`]).
//!
//! An exported model is one file: the graph, and the vocabularies and
//! options as JSON in its `metadata_props` under the key `tabula`
//! ([`Meta`]).

mod graph;
mod math;
mod transition;

use crate::conllu::RawSentence;
use crate::distribution::TreeDistribution;
use crate::parser::columns::Columns;
use crate::parser::features::FeatureColumns;
use crate::parser::run::{InputCounts, ParsedBlock};
use crate::parser::ParserError;
use crate::projectivize::pseudo;
use crate::tagger::{Tagger, TaggerError, TaggerModel};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use tract_onnx::prelude::*;

/// The format of the metadata this module reads.
pub const FORMAT: &str = "tabula-onnx-3";
/// The graph's outputs, for both parsers (see `tabula_parsing.neural.export`).
const OUTPUTS: usize = 6;
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
    /// `biaffine` or `transition`.
    pub parser: String,
    /// A biaffine model's trees: `projective`, `projective-single-root`,
    /// `nonprojective`, `nonprojective-single-root` or `grammar` (the text
    /// in `grammar`).
    pub trees: Option<String>,
    pub grammar: Option<String>,
    /// A transition model's system, the names of its step columns and of
    /// the positions its steps read.
    pub system: Option<String>,
    pub steps: Option<Vec<String>>,
    pub positions: Option<Vec<String>>,
    pub pseudo_projective: Option<String>,
    /// The model reads FEATS.
    pub feats: bool,
    pub max_chars: usize,
    /// The graph's inputs, in order (`forms`, `upos`, `feats`, `chars`,
    /// `pretrained`, `lengths`, `states`).
    pub inputs: Vec<String>,
    /// The shape of the LSTMs' initial states (the input `states`, zeros)
    /// but for the batch: 1 and the units per direction.
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

/// How the network's outputs become a tree.
enum Decoder {
    /// The best tree of a class, and each arc's best label; the label
    /// classifier's bilinear weight U (m × labels · m, row-major).
    Graph { trees: graph::Trees, root_label: Option<usize>, label_weight: Vec<f32> },
    /// Greedy steps.
    Transition(transition::Scorer),
}

/// A loaded model: the optimised graph (shared by all threads), the
/// vocabularies and the decoder. Immutable; each thread parses with its
/// share of [`OnnxModel::parse_batch`].
pub struct OnnxModel {
    /// The graph as read, from which each plan is made.
    inference: InferenceModel,
    /// The optimised graph for each of [`PLAN_SIZES`] sentences at once,
    /// made when first used (by whichever thread needs it first).
    plans: Vec<(usize, OnceLock<Result<Plan, String>>)>,
    pub meta: Meta,
    forms: HashMap<String, i64>,
    upos: HashMap<String, i64>,
    feats: HashMap<String, i64>,
    chars: HashMap<String, i64>,
    pretrained: Option<HashMap<String, i64>>,
    decoder: Decoder,
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
            return Err(fail(format!(
                "format `{}`, this tabula reads `{FORMAT}` (export the model again with this version)",
                meta.format
            )));
        }
        let trees = match meta.parser.as_str() {
            "biaffine" => Some(graph::Trees::of(&meta).map_err(fail)?),
            "transition" => None,
            other => return Err(fail(format!("a `{other}` parser; biaffine and transition models run here"))),
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
        // fixes the batch size before the graph is typed, the padded length
        // left free.
        let mut proto = proto;
        for node in proto.graph.iter_mut().flat_map(|g| g.node.iter_mut()).filter(|n| n.op_type == "LSTM") {
            node.input.truncate(5);
        }
        let inference = onnx.model_for_proto_model(&proto).map_err(|e| fail(format!("its graph: {e:#}")))?;
        // The plan of one sentence now (it checks the graph), the others
        // when first used.
        let plans: Vec<(usize, OnceLock<Result<Plan, String>>)> =
            PLAN_SIZES.iter().map(|&size| (size, OnceLock::new())).collect();
        let one = plan(&inference, &meta, 1).map_err(|e| fail(format!("its graph: {e:#}")))?;
        let _ = plans.last().expect("a plan of 1").1.set(Ok(one.clone()));
        let root_label = meta.labels.iter().position(|l| l == "root");
        let decoder = match trees {
            Some(trees) => {
                let [label_weight] =
                    fixed_outputs(&meta, &one).map_err(|e| fail(format!("its label classifier: {e:#}")))?;
                Decoder::Graph { trees, root_label, label_weight }
            }
            None => {
                let weights = fixed_outputs(&meta, &one).map_err(|e| fail(format!("its step scorer: {e:#}")))?;
                let missing = || fail("a transition model without its system, steps or positions".into());
                let (system, steps, positions) = (
                    meta.system.as_deref().ok_or_else(missing)?,
                    meta.steps.as_deref().ok_or_else(missing)?,
                    meta.positions.as_deref().ok_or_else(missing)?,
                );
                Decoder::Transition(
                    transition::Scorer::new(system, steps, positions, &meta.labels, weights).map_err(fail)?,
                )
            }
        };
        Ok(OnnxModel {
            inference,
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
            decoder,
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
        // Sentences of similar lengths together: a run takes the largest
        // plan its sentences fill within the bound on positions.
        ready.sort_by_key(|&(i, e)| (e.size, i));
        let mut groups: Vec<&[(usize, &Encoded)]> = Vec::new();
        let mut rest = &ready[..];
        while !rest.is_empty() {
            let fits = |&b: &usize| b <= rest.len() && b * rest[b - 1].1.size <= GROUP_POSITIONS;
            let b = PLAN_SIZES.iter().copied().find(fits).unwrap_or(1);
            let (group, tail) = rest.split_at(b);
            groups.push(group);
            rest = tail;
        }
        let parsed: Vec<Vec<(usize, Result<ParsedBlock, NeuralError>)>> = groups
            .par_iter()
            .map_init(
                || match &self.decoder {
                    Decoder::Graph { trees, .. } => Work { engine: trees.engine(), ..Work::default() },
                    Decoder::Transition(s) => Work { scratch: Some(s.scratch()), ..Work::default() },
                },
                |work, group| self.run_chunk(group, file, work),
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
                "states" | "lengths" => Vec::new(),
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

    /// The graph's inputs for the sentences of `group`, each padded with
    /// 0 to the longest one's `size` positions; their lengths; zeros for
    /// the LSTMs' states.
    fn inputs(&self, group: &[(usize, &Encoded)], size: usize) -> TVec<TValue> {
        let b = group.len();
        let mut inputs: TVec<TValue> = TVec::new();
        for (k, name) in self.meta.inputs.iter().enumerate() {
            let tensor = match name.as_str() {
                "states" => {
                    let [layers, units] = self.meta.states;
                    tract_ndarray::Array3::<f32>::zeros((layers, b, units)).into_tensor()
                }
                "lengths" => tract_ndarray::Array1::from_iter(group.iter().map(|(_, e)| e.size as i64)).into_tensor(),
                other => {
                    let width = if other == "chars" { self.meta.max_chars } else { 1 };
                    let mut data = vec![PAD; b * size * width];
                    for (row, (_, e)) in data.chunks_mut(size * width).zip(group) {
                        row[..e.ids[k].len()].copy_from_slice(&e.ids[k]);
                    }
                    let shaped = if other == "chars" {
                        tract_ndarray::Array3::from_shape_vec((b, size, width), data).map(|a| a.into_tensor())
                    } else {
                        tract_ndarray::Array2::from_shape_vec((b, size), data).map(|a| a.into_tensor())
                    };
                    shaped.expect("the ids fill the shape")
                }
            };
            inputs.push(tensor.into());
        }
        inputs
    }

    /// Sentences through the network together (padded to the longest),
    /// each decoded and written; an error of the runtime is every
    /// sentence's.
    fn run_chunk(
        &self,
        group: &[(usize, &Encoded)],
        file: &str,
        work: &mut Work<'_>,
    ) -> Vec<(usize, Result<ParsedBlock, NeuralError>)> {
        let (_, cell) = self.plans.iter().find(|(b, _)| *b == group.len()).expect("a plan of each group's size");
        let plan = match cell
            .get_or_init(|| plan(&self.inference, &self.meta, group.len()).map_err(|e| format!("{e:#}")))
        {
            Ok(plan) => plan,
            Err(e) => {
                let why = format!("the graph for {} sentences at once: {e}", group.len());
                return group
                    .iter()
                    .map(|&(i, e)| {
                        (i, Err(NeuralError::Run { file: file.to_owned(), line: e.raw.first_line, why: why.clone() }))
                    })
                    .collect();
            }
        };
        let size = group.iter().map(|(_, e)| e.size).max().unwrap_or(1);
        let inputs = self.inputs(group, size);
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
        // The outputs the decoder reads (a biaffine model's sixth, its
        // label weight, was read once at loading).
        let wanted = match self.decoder {
            Decoder::Graph { .. } => 5,
            Decoder::Transition(_) => 1,
        };
        let slices: Option<Vec<&[f32]>> = match &views {
            Ok(v) if v.len() == OUTPUTS => v[..wanted].iter().map(|v| v.as_slice()).collect(),
            Ok(v) => return failed(format!("{} outputs, the model has {OUTPUTS}", v.len())),
            Err(e) => return failed(format!("{e:#}")),
        };
        let Some(slices) = slices else { return failed("the network's outputs are not contiguous".into()) };
        let decoded: Vec<Result<Decoded, String>> = match &self.decoder {
            Decoder::Graph { trees, root_label, label_weight } => {
                let graph =
                    GraphDecoder { trees, labels: self.meta.labels.len(), root_label: *root_label, label_weight };
                graph.decode(group, &slices, size, work)
            }
            Decoder::Transition(scorer) => {
                let scratch = work.scratch.as_mut().expect("a transition model's thread has its buffers");
                let each = slices[0].len() / group.len();
                group
                    .iter()
                    .enumerate()
                    .map(|(k, (_, e))| scorer.parse(&slices[0][k * each..][..each], e.size - 1, size, scratch))
                    .collect()
            }
        };
        group
            .iter()
            .zip(decoded)
            .map(|(&(i, e), decoded)| {
                let fail = |why: String| NeuralError::Run { file: file.to_owned(), line: e.raw.first_line, why };
                (i, decoded.map_err(fail).and_then(|(heads, labels)| self.write(e, &heads, &labels, file)))
            })
            .collect()
    }

    /// The block of `e` with the parsed heads and labels (indices of the
    /// model's labels; `None`: `root`).
    fn write(
        &self,
        e: &Encoded,
        heads: &[usize],
        labels: &[Option<usize>],
        file: &str,
    ) -> Result<ParsedBlock, NeuralError> {
        let labels: Vec<&str> = labels
            .iter()
            .map(|l| match l {
                Some(l) => self.meta.labels.get(*l).map_or("_", String::as_str),
                None => "root",
            })
            .collect();
        let bytes =
            crate::parser::run::write_parsed(&e.raw, &e.cols, heads, &labels, self.pseudo_projective.is_some(), file)?;
        Ok(ParsedBlock { bytes, input: e.input })
    }
}

/// A sentence's heads (of words 1 … n) and labels (indices of the model's
/// labels; `None`: `root`).
type Decoded = (Vec<usize>, Vec<Option<usize>>);

/// A thread's decoding buffers: the arc scores widened to `f64`, the
/// engine for a grammar's trees and the label forms of a run's heads
/// (their vectors, the forms, each position's row), or a transition
/// model's configuration.
#[derive(Default)]
struct Work<'a> {
    scores: Vec<f64>,
    engine: Option<TreeDistribution<'a>>,
    heads: Vec<f32>,
    forms: Vec<f32>,
    row_of: Vec<usize>,
    scratch: Option<transition::Scratch>,
}

/// A biaffine model's decoder for a run of sentences.
struct GraphDecoder<'m> {
    trees: &'m graph::Trees,
    labels: usize,
    root_label: Option<usize>,
    /// U, m × labels · m.
    label_weight: &'m [f32],
}

impl GraphDecoder<'_> {
    /// The sentences of a run (padded to `t` positions) decoded from the
    /// network's outputs (`arcs`, the label head vectors, the linear
    /// terms `head` and `dep`, the label dependent vectors): each
    /// sentence's best tree, then the label forms of the heads those
    /// trees use (one product for the run; a head's forms serve all its
    /// dependents, and leaves need none), then each arc's best label.
    fn decode(
        &self,
        group: &[(usize, &Encoded)],
        outputs: &[&[f32]],
        t: usize,
        work: &mut Work<'_>,
    ) -> Vec<Result<Decoded, String>> {
        let &[arcs, head_vectors, head, dep, vectors] = outputs else { unreachable!("five outputs") };
        let (b, labels) = (group.len(), self.labels);
        let m = vectors.len() / (b * t);
        if self.label_weight.len() != m * labels * m {
            let why = format!("the label weight holds {} numbers, not {m} × {labels} × {m}", self.label_weight.len());
            return group.iter().map(|_| Err(why.clone())).collect();
        }
        let trees: Vec<Result<Vec<usize>, String>> = group
            .iter()
            .enumerate()
            .map(|(k, (_, e))| {
                graph::best_tree(
                    self.trees,
                    &arcs[k * t * t..][..t * t],
                    t,
                    e.size,
                    &mut work.scores,
                    work.engine.as_mut(),
                )
            })
            .collect();
        // The distinct heads of the trees, one row each.
        work.row_of.clear();
        work.row_of.resize(b * t, usize::MAX);
        work.heads.clear();
        let mut rows = 0;
        for (k, heads) in trees.iter().enumerate() {
            for &h in heads.iter().flatten() {
                let at = k * t + h;
                if work.row_of[at] == usize::MAX {
                    work.row_of[at] = rows;
                    rows += 1;
                    work.heads.extend_from_slice(&head_vectors[at * m..][..m]);
                }
            }
        }
        let width = labels * m;
        work.forms.clear();
        work.forms.resize(rows * width, 0.0);
        if rows > 0 && width > 0 {
            use tract_ndarray::{ArrayView2, ArrayViewMut2};
            let a = ArrayView2::from_shape((rows, m), &work.heads).expect("rows × m");
            let u = ArrayView2::from_shape((m, width), self.label_weight).expect("m × labels · m");
            let mut c = ArrayViewMut2::from_shape((rows, width), &mut work.forms).expect("rows × labels · m");
            tract_ndarray::linalg::general_mat_mul(1.0, &a, &u, 0.0, &mut c);
        }
        let (forms, row_of) = (&work.forms, &work.row_of);
        trees
            .into_iter()
            .enumerate()
            .map(|(k, tree)| {
                let heads = tree?;
                let form = |h: usize| &forms[row_of[k * t + h] * width..][..width];
                let (at, at_m) = (k * t * labels, k * t * m);
                let terms = [&head[at..][..t * labels], &dep[at..][..t * labels], &vectors[at_m..][..t * m]];
                let chosen = graph::best_labels(&heads, form, terms, [labels, m], self.root_label);
                Ok((heads, chosen.into_iter().map(Some).collect()))
            })
            .collect()
    }
}

/// The graph's last `N` outputs, those that are the same for every input
/// (a transition model's step scorer, a biaffine model's label weight),
/// read from a run of one sentence of one word.
fn fixed_outputs<const N: usize>(meta: &Meta, plan: &Plan) -> TractResult<[Vec<f32>; N]> {
    let mut inputs: TVec<TValue> = TVec::new();
    for name in &meta.inputs {
        let tensor = match name.as_str() {
            "states" => tract_ndarray::Array3::<f32>::zeros((meta.states[0], 1, meta.states[1])).into_tensor(),
            "chars" => tract_ndarray::Array3::<i64>::zeros((1, 2, meta.max_chars)).into_tensor(),
            "pretrained" => tract_ndarray::Array2::<i64>::zeros((1, 2)).into_tensor(),
            "lengths" => tract_ndarray::arr1(&[2i64]).into_tensor(),
            _ => tract_ndarray::Array2::from_shape_vec((1, 2), vec![ROOT, UNK])?.into_tensor(),
        };
        inputs.push(tensor.into());
    }
    let got = plan.run(inputs)?;
    if got.len() != OUTPUTS {
        return Err(tract_onnx::prelude::TractError::msg(format!(
            "{} outputs, a {} model has {OUTPUTS}",
            got.len(),
            meta.parser
        )));
    }
    let fixed: Vec<Vec<f32>> = got[OUTPUTS - N..]
        .iter()
        .map(|o| Ok(o.to_plain_array_view::<f32>()?.iter().copied().collect()))
        .collect::<TractResult<_>>()?;
    Ok(fixed.try_into().expect("N outputs"))
}

/// An optimised graph for a number of sentences at once.
type Plan = Arc<TypedRunnableModel>;

/// The plan of `inference` for `size` sentences at once: the batch size
/// fixed before the graph is typed, the padded length left free.
fn plan(inference: &InferenceModel, meta: &Meta, size: usize) -> TractResult<Plan> {
    let mut model = inference.clone();
    let length = model.symbols.sym("T");
    for (ix, name) in meta.inputs.iter().enumerate() {
        let [layers, units] = meta.states;
        let fact = match name.as_str() {
            "states" => {
                InferenceFact::dt_shape(f32::datum_type(), tvec![layers.to_dim(), size.to_dim(), units.to_dim()])
            }
            "lengths" => InferenceFact::dt_shape(i64::datum_type(), tvec![size.to_dim()]),
            "chars" => InferenceFact::dt_shape(
                i64::datum_type(),
                tvec![size.to_dim(), length.to_dim(), meta.max_chars.to_dim()],
            ),
            _ => InferenceFact::dt_shape(i64::datum_type(), tvec![size.to_dim(), length.to_dim()]),
        };
        model.set_input_fact(ix, fact)?;
    }
    // Decluttered as tract does but for one pass: a product whose input
    // is a concatenation (the embeddings, the two directions of a BiLSTM)
    // stays one product, rather than one per part summed (the sums cost
    // more than the product saves).
    let mut typed = model.into_typed()?;
    let mut declutter = tract_onnx::tract_core::optim::Optimizer::declutter();
    declutter.passes.retain(|pass| !format!("{pass:?}").starts_with("ConcatThenEinsum"));
    declutter.optimize(&mut typed)?;
    typed.optimize()?;
    typed.into_runnable()
}

/// The most positions (sentences × the longest one's length + 1) run
/// together: a bound on a run's memory (a transition model's terms take
/// 11 × 2 MLP widths of floats per position).
const GROUP_POSITIONS: usize = 512;
/// The batch sizes of the plans, largest first (ending with 1): the
/// sentences, sorted by length, run through the largest plan they fill
/// within [`GROUP_POSITIONS`]. Few sizes: each plan takes about a tenth of a
/// second of CPU to make.
const PLAN_SIZES: [usize; 3] = [64, 8, 1];

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
