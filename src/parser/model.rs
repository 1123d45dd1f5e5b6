//! A trained model (system, label set, two weight tables), the greedy
//! [`Parser`] that applies it, and the model file.
//!
//! # Scoring (labelled steps)
//!
//! A step that builds an arc carries a DEPREL. The score of a labelled step
//! (s, l) is the sum of two weights: the step table's for s (one class per
//! step, [`classes`]) and the label table's for (s, l) (one class per arc-building step
//! and label). The parser takes the best applicable *labelled* step, i.e.
//! the step s maximising its weight plus the weight of its best label
//! ([`LabelledScores`]): the labels take part in choosing the step, as in
//! the labelled transitions of Zhang & Nivre (2011) and PanParser (seed 001).
//! (Version 1 models chose the step first and its label after; on en_ewt
//! the joint choice gains about 1.2 UAS and 1.3 LAS, docs/training.md.)
//!
//! # LR-spine: spine steps up to a fixed depth
//!
//! LR-spine's `left_arc_K` / `right_arc_K` (Goldberg et al. 2014, Sec. 6.1)
//! exist for every K up to the length of a spine. The model has a class for
//! K = 1 … [`MODEL_SPINE_DEPTH`] per direction; deeper spine steps have no
//! class and are never predicted (a computation can always go on with K = 1
//! steps and `shift`, which are arc-standard's). The label table has one
//! block per direction (`left_arc_K` for every K shares one, `right_arc_K`
//! the other), so deep steps taken in training still learn their labels.
//! What training does where the oracle's optimal steps are all deeper: see
//! [`super::train`].
//!
//! # The model file
//!
//! A text header, then the two tables, then a 64-bit checksum of
//! everything before it. Only the weights that are not zero are stored
//! (most are: the label table of an en_ewt model is 87 % zeros): each table
//! is a bitmap of its non-zero weights (bit i of byte k for weight 8k + i),
//! then those weights in order, little-endian, f32 for the step table and
//! bfloat16 for the label table — the precision the parser reads, so a
//! model parses the same after a round trip through its file. The header
//! counts the non-zero weights of each table (`weights`), so the file's size
//! is known before the tables are read:
//!
//! ```text
//! TABULA-PARSER-MODEL
//! version 3
//! system arc-hybrid
//! features zn2011-v3
//! spine-depth 8          (LR-spine models only: MODEL_SPINE_DEPTH)
//! step-bits 20
//! label-bits 18
//! weights 2031234 3398765  (non-zero step weights, non-zero label weights)
//! root last              (only with the root in last position: `tabula train --root last`)
//! beam 8                 (beam-trained models only: the training beam width)
//! beam-labels 2          (only if trained with --beam-labels)
//! pseudo-projective head+path  (only if trained with --pseudo-projective: `tabula parse` decodes)
//! labels 3
//! nsubj
//! obj
//! root
//! end
//! <step bitmap> <step weights f32> <label bitmap> <label weights bfloat16> <checksum u64>
//! ```
//!
//! Files of version 2 (every weight as f32, no `weights` line) are read
//! too, their label weights rounded to bfloat16 as the parser always did.
//! A file without the first line is foreign; another version, system name,
//! feature set or (LR-spine) spine depth is refused by name; a short file is truncated; a bad
//! checksum or trailing bytes are corruption. Never a panic.

use super::features::{hash_bytes, laid_out, mix, ArcState, Extractor, FeatureColumns, Tokens, FEATURE_SET};
use super::perceptron::{check_tables, to_bf16, CompactWeights, Rows, Weights, LOADING_BYTES_PER_WEIGHT};
use super::ParserError;

/// The most labels per arc step that a beam can be limited to (`tabula
/// train --beam-labels`, [`offer_successors`](super::beam::offer_successors)),
/// as a model file may state it.
pub const MAX_BEAM_LABELS: usize = 16;
use crate::oracle::{Configuration, Root, Step, System};
use crate::projectivize::pseudo::Scheme;
use std::path::Path;

const MAGIC: &str = "TABULA-PARSER-MODEL\n";
/// The model file version written by this build (3: non-zero weights only,
/// the label table in bfloat16; 2, every weight as f32, is read too;
/// version 1 models, scored step first, are refused by name).
pub const MODEL_VERSION: u32 = 3;

/// The deepest spine position K of LR-spine's `left_arc_K` / `right_arc_K`
/// that has a class in the model (per direction; see the module
/// documentation). Chosen from the canonical (static-oracle) computations
/// of the training sets: with the tie-break of
/// [`canonical_step`](crate::oracle::canonical_step), every `left_arc_K`
/// has K = 1 and `right_arc_K` goes to K = 13 on el_gdt-ud-train and K = 16
/// on en_ewt-ud-train, but steps with K > 8 are 0.32% (el) and 0.08% (en)
/// of all gold steps (`docs/training.md`, *LR-spine and Attardi*). Written
/// in LR-spine model files (`spine-depth`); a file with another depth is
/// refused ([`ParserError::ModelSpineDepth`]).
pub const MODEL_SPINE_DEPTH: u32 = 8;

/// LR-spine's classes: `shift`, `left_arc_1` … `left_arc_D`, `right_arc_1`
/// … `right_arc_D` (D = [`MODEL_SPINE_DEPTH`]).
const LR_SPINE_CLASSES: [Step; 1 + 2 * MODEL_SPINE_DEPTH as usize] = {
    let d = MODEL_SPINE_DEPTH as usize;
    let mut out = [Step::Shift; 1 + 2 * MODEL_SPINE_DEPTH as usize];
    let mut k = 0;
    while k < d {
        out[1 + k] = Step::LeftArcAt(k as u32 + 1);
        out[1 + d + k] = Step::RightArcAt(k as u32 + 1);
        k += 1;
    }
    out
};

/// The steps the model scores for `system`, in class order: the system's
/// steps ([`System::steps`], in the order of [`Step::ALL`]); LR-spine:
/// `shift`, then `left_arc_K` and `right_arc_K` for K = 1 …
/// [`MODEL_SPINE_DEPTH`]. O(1).
pub fn classes(system: System) -> &'static [Step] {
    match system {
        System::LrSpine => &LR_SPINE_CLASSES,
        _ => system.steps(),
    }
}

/// The label blocks of `system`: its steps that build an arc (in the order
/// of [`Step::ALL`]); LR-spine: `left_arc_1` and `right_arc_1`, standing
/// for `left_arc_K` and `right_arc_K` of every K; arc-eager-nm: `reduce`
/// too (it attaches a word without a head to the stack word below it).
pub fn arc_steps(system: System) -> impl Iterator<Item = Step> {
    let labelled_reduce = system == System::ArcEagerNm;
    system.steps().iter().copied().filter(move |&s| s != Step::Shift && (labelled_reduce || s != Step::Reduce))
}

/// The class of `step` in the step table of `system` (`None`: not a step of
/// the system, or a spine step deeper than [`MODEL_SPINE_DEPTH`]). O(classes).
pub fn step_class(system: System, step: Step) -> Option<usize> {
    classes(system).iter().position(|&s| s == step)
}

/// The block of `step` in the label table of `system` (if it builds arcs;
/// LR-spine: one block per direction, for every K). O(steps).
pub fn arc_class(system: System, step: Step) -> Option<usize> {
    let block = match step {
        Step::LeftArcAt(_) => Step::LeftArcAt(1),
        Step::RightArcAt(_) => Step::RightArcAt(1),
        s => s,
    };
    arc_steps(system).position(|s| s == block)
}

/// A trained parser model: the step table (f32) and the label table in
/// bfloat16 ([`CompactWeights`]: half the memory traffic of the widest
/// rows), as the [`Parser`] reads and the model file stores them.
#[derive(Clone, Debug)]
pub struct Model {
    pub system: System,
    /// Where the root is in the system's configurations.
    pub root: Root,
    /// The DEPRELs, sorted; a label is its index.
    pub labels: Vec<String>,
    steps: Weights,
    arcs: CompactWeights,
    /// The columns the features read beyond FORM and UPOS.
    pub columns: FeatureColumns,
    /// The beam width the model was trained with (1: greedy); the width
    /// `tabula parse` uses by default.
    pub beam: u32,
    /// The most labels per arc step that compete for the beam (`None`:
    /// all; `tabula train --beam-labels`).
    pub beam_labels: Option<u32>,
    /// The pseudo-projective scheme of the training labels (Nivre & Nilsson
    /// 2005; `tabula train --pseudo-projective`): the parser's output is to
    /// be decoded with [`crate::projectivize::pseudo::decode`].
    pub pseudo_projective: Option<Scheme>,
}

impl PartialEq for Model {
    /// Equal system, labels, tables and feature set.
    fn eq(&self, other: &Model) -> bool {
        (self.system, self.root, &self.labels, &self.steps, &self.arcs, self.columns, self.beam, self.beam_labels)
            == (
                other.system,
                other.root,
                &other.labels,
                &other.steps,
                &other.arcs,
                other.columns,
                other.beam,
                other.beam_labels,
            )
            && self.pseudo_projective == other.pseudo_projective
    }
}

impl Model {
    /// A model from its tables: `steps` with a class per step ([`classes`]),
    /// `arcs` with a block of `labels.len()` classes per arc step
    /// ([`arc_steps`]), rounded to bfloat16. `None` if the widths do not fit.
    pub fn new(
        system: System,
        labels: Vec<String>,
        steps: Weights,
        arcs: Weights,
        columns: FeatureColumns,
    ) -> Option<Model> {
        Model::with_compact(system, labels, steps, CompactWeights::new(&arcs), columns)
    }

    /// [`Model::new`] with the label table in bfloat16 already.
    pub fn with_compact(
        system: System,
        labels: Vec<String>,
        steps: Weights,
        arcs: CompactWeights,
        columns: FeatureColumns,
    ) -> Option<Model> {
        let fits =
            steps.width() == classes(system).len() && arcs.width() == arc_steps(system).count() * labels.len().max(1);
        fits.then_some(Model {
            system,
            root: Root::First,
            labels,
            steps,
            arcs,
            columns,
            beam: 1,
            beam_labels: None,
            pseudo_projective: None,
        })
    }

    /// A zero model (every step scores 0).
    pub fn zeros(system: System, labels: Vec<String>, step_bits: u32, label_bits: u32) -> Model {
        let steps = Weights::zeros(step_bits, classes(system).len());
        let arcs = CompactWeights::zeros(label_bits, arc_steps(system).count() * labels.len().max(1));
        Model::with_compact(system, labels, steps, arcs, FeatureColumns::NONE).expect("sized for the system")
    }

    /// The step table (one class per step, [`classes`]).
    pub fn steps(&self) -> &Weights {
        &self.steps
    }

    /// The label table (a block of labels per arc step, [`arc_class`]), in bfloat16.
    pub fn arcs(&self) -> &CompactWeights {
        &self.arcs
    }

    /// The two tables as f32, to continue training from them. O(tables).
    pub fn into_tables(self) -> (Weights, Weights) {
        let arcs = self.arcs.to_weights();
        (self.steps, arcs)
    }

    /// The label table, as the parser reads it (the same as [`Model::arcs`]).
    pub fn compact_arcs(&self) -> &CompactWeights {
        &self.arcs
    }

    /// The label given to words left without a head at the end (attached to
    /// the root): `root` if known, else the first label.
    pub fn root_label(&self) -> u32 {
        self.labels.iter().position(|l| l == "root").unwrap_or(0) as u32
    }

    /// The label `root`, if the model has it.
    pub fn known_root_label(&self) -> Option<u32> {
        self.labels.iter().position(|l| l == "root").map(|l| l as u32)
    }

    /// The label of an arc by the rule of Universal Dependencies: DEPREL
    /// `root` exactly on the arcs from the root (for a model that knows the
    /// label `root`; otherwise `label` unchanged). An arc from the root gets
    /// `root`; another arc labelled `root` gets `other()` (the best other
    /// label where the scores are at hand), or `dep`, or the first other
    /// label. O(labels).
    pub fn ud_label(&self, to_root: bool, label: u32, other: impl FnOnce() -> Option<u32>) -> u32 {
        let Some(root) = self.known_root_label() else { return label };
        if to_root {
            return root;
        }
        if label != root {
            return label;
        }
        other()
            .filter(|&l| l != root)
            .or_else(|| self.labels.iter().position(|l| l == "dep").map(|l| l as u32))
            .or_else(|| (0..self.labels.len() as u32).find(|&l| l != root))
            .unwrap_or(label)
    }

    /// The bytes of the model file. O(size).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (steps, arcs) = (&self.steps.w[..], self.arcs.values());
        let nonzero = (steps.iter().filter(|w| w.to_bits() != 0).count(), arcs.iter().filter(|&&w| w != 0).count());
        let mut out =
            Vec::with_capacity(sparse_bytes(steps.len(), nonzero.0, 4) + sparse_bytes(arcs.len(), nonzero.1, 2) + 1024);
        out.extend_from_slice(MAGIC.as_bytes());
        // Only LR-spine models have the spine-depth line: the files of the
        // other systems stay as they were (and old ones stay readable).
        let spine = if self.system.definition().has_spine_steps() {
            format!("spine-depth {MODEL_SPINE_DEPTH}\n")
        } else {
            String::new()
        };
        // Only beam-trained models have the beam line: greedy models are
        // the same bytes as before it existed.
        let mut beam = if self.beam > 1 { format!("beam {}\n", self.beam) } else { String::new() };
        if let Some(m) = self.beam_labels {
            beam.push_str(&format!("beam-labels {m}\n"));
        }
        // Only pseudo-projective models have this line.
        if let Some(scheme) = self.pseudo_projective {
            beam.push_str(&format!("pseudo-projective {scheme}\n"));
        }
        // Only root-last models have the root line.
        let root = if self.root == Root::Last { "root last\n" } else { "" };
        let header = format!(
            "version {MODEL_VERSION}\nsystem {}\nfeatures {}\n{spine}step-bits {}\nlabel-bits {}\nweights {} {}\n{root}{beam}labels {}\n",
            self.system,
            self.columns.feature_set(),
            self.steps.bits(),
            self.arcs.bits(),
            nonzero.0,
            nonzero.1,
            self.labels.len()
        );
        out.extend_from_slice(header.as_bytes());
        for l in &self.labels {
            out.extend_from_slice(l.as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(b"end\n");
        write_sparse(&mut out, steps, |w| w.to_bits() != 0, |out, w| out.extend_from_slice(&w.to_le_bytes()));
        write_sparse(&mut out, arcs, |&w| w != 0, |out, w| out.extend_from_slice(&w.to_le_bytes()));
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a model file's bytes (see the module documentation). O(size).
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ParserError> {
        Model::decode(bytes, bytes.len())?.ok_or(ParserError::ModelTruncated)
    }

    /// [`Model::from_bytes`] on the first bytes of a file of `file_len`
    /// bytes: `Ok(None)` if they hold the whole header and the file has the
    /// size it states, but not yet all of the tables.
    fn decode(bytes: &[u8], file_len: usize) -> Result<Option<Model>, ParserError> {
        let corrupt = |r: &str| ParserError::ModelCorrupt(r.to_owned());
        let Some(mut rest) = bytes.strip_prefix(MAGIC.as_bytes()) else {
            return Err(ParserError::ModelForeign { what: crate::file_kind::not_the_header(bytes, MAGIC.trim_end()) });
        };
        let mut line = || -> Result<&str, ParserError> {
            let end = memchr::memchr(b'\n', rest).ok_or(ParserError::ModelTruncated)?;
            let l = std::str::from_utf8(&rest[..end]).map_err(|_| corrupt("a header line is not UTF-8"))?;
            rest = &rest[end + 1..];
            Ok(l)
        };
        let mut field = |name: &str| -> Result<String, ParserError> {
            let l = line()?;
            l.strip_prefix(name)
                .and_then(|v| v.strip_prefix(' '))
                .map(str::to_owned)
                .ok_or_else(|| corrupt(&format!("expected `{name} …` in the header, found `{l}`")))
        };
        let version = field("version")?;
        let sparse = match version.as_str() {
            "2" => false,
            "3" => true,
            _ => return Err(ParserError::ModelVersion { found: version, expected: MODEL_VERSION }),
        };
        let system: System =
            field("system")?.parse().map_err(|e: crate::oracle::OracleError| corrupt(&e.to_string()))?;
        let features = field("features")?;
        let Some(columns) = FeatureColumns::from_feature_set(&features) else {
            return Err(ParserError::ModelFeatures { found: features, expected: FEATURE_SET });
        };
        if system.definition().has_spine_steps() {
            let depth = field("spine-depth")?;
            if depth != MODEL_SPINE_DEPTH.to_string() {
                return Err(ParserError::ModelSpineDepth { found: depth, expected: MODEL_SPINE_DEPTH });
            }
        }
        let bits = |s: String| -> Result<u32, ParserError> {
            s.parse::<u32>().ok().filter(|&b| b <= 30).ok_or_else(|| corrupt(&format!("bad table size `{s}`")))
        };
        let step_bits = bits(field("step-bits")?)?;
        let label_bits = bits(field("label-bits")?)?;
        let nonzero = if sparse {
            let counts = field("weights")?;
            let mut counts = counts.split(' ').map(|c| c.parse::<u64>().ok());
            match (counts.next().flatten(), counts.next().flatten(), counts.next()) {
                (Some(a), Some(b), None) => Some((a, b)),
                _ => return Err(corrupt("bad `weights` line")),
            }
        } else {
            None
        };
        let mut next = line()?;
        let mut root = Root::First;
        if let Some(r) = next.strip_prefix("root ") {
            root = r
                .parse::<Root>()
                .ok()
                .filter(|&r| r == Root::Last && r.offered(system))
                .ok_or_else(|| corrupt(&format!("bad root line `root {r}` for {system}")))?;
            next = line()?;
        }
        let mut beam = 1;
        if let Some(k) = next.strip_prefix("beam ") {
            beam = k.parse::<u32>().ok().filter(|&k| k > 1).ok_or_else(|| corrupt(&format!("bad beam width `{k}`")))?;
            next = line()?;
        }
        let mut beam_labels = None;
        if let Some(m) = next.strip_prefix("beam-labels ") {
            let limit = MAX_BEAM_LABELS as u32;
            let m = m.parse::<u32>().ok().filter(|m| (1..=limit).contains(m));
            beam_labels = Some(m.ok_or_else(|| corrupt("bad beam-labels line"))?);
            next = line()?;
        }
        let mut pseudo_projective = None;
        if let Some(name) = next.strip_prefix("pseudo-projective ") {
            let scheme = Scheme::from_name(name);
            pseudo_projective = Some(scheme.ok_or_else(|| corrupt(&format!("bad pseudo-projective scheme `{name}`")))?);
            next = line()?;
        }
        let count: usize = next
            .strip_prefix("labels ")
            .ok_or_else(|| corrupt(&format!("expected `labels …` in the header, found `{next}`")))?
            .parse()
            .map_err(|_| corrupt("bad label count"))?;
        if count > 100_000 {
            return Err(corrupt("bad label count"));
        }
        let mut labels = Vec::with_capacity(count);
        for _ in 0..count {
            labels.push(field_line(&mut rest)?);
        }
        if field_line(&mut rest)? != "end" {
            return Err(corrupt("the header does not end with `end`"));
        }
        // Sizes from the header, checked against the file before allocating.
        let steps = (1usize << step_bits) * classes(system).len();
        let arcs = (1usize << label_bits) * arc_steps(system).count() * labels.len().max(1);
        if nonzero.is_some_and(|(a, b)| a > steps as u64 || b > arcs as u64) {
            return Err(corrupt("more non-zero weights than the tables have"));
        }
        let header_len = bytes.len() - rest.len();
        let shape = Shape { header_len, bits: (step_bits, label_bits), labels: labels.len(), nonzero };
        if shape.file_len(system) != file_len as u64 {
            return Err(size_mismatch(system, &shape, file_len));
        }
        let widths = (classes(system).len(), arc_steps(system).count() * labels.len().max(1));
        check_tables((step_bits, widths.0), (label_bits, widths.1), LOADING_BYTES_PER_WEIGHT, "reading the model")?;
        if bytes.len() < file_len {
            return Ok(None);
        }
        let body = file_len - 8;
        let stored = u64::from_le_bytes(bytes[body..body + 8].try_into().expect("8 bytes"));
        if checksum(&bytes[..body]) != stored {
            return Err(corrupt("checksum mismatch"));
        }
        let mut model = Model::zeros(system, labels, step_bits, label_bits);
        model.columns = columns;
        model.root = root;
        model.beam = beam;
        model.beam_labels = beam_labels;
        model.pseudo_projective = pseudo_projective;
        let tables = &rest[..body - header_len];
        let f32_of = |c: &[u8]| f32::from_le_bytes(c.try_into().expect("4 bytes"));
        let u16_of = |c: &[u8]| u16::from_le_bytes(c.try_into().expect("2 bytes"));
        if nonzero.is_some() {
            let tables = read_sparse(tables, &mut model.steps.w, 4, f32_of, |w| w.to_bits() != 0)?;
            read_sparse(tables, model.arcs.values_mut(), 2, u16_of, |&w| w != 0)?;
        } else {
            let (step_bytes, arc_bytes) = tables.split_at(4 * steps);
            for (w, c) in model.steps.w.iter_mut().zip(step_bytes.chunks_exact(4)) {
                *w = f32_of(c);
            }
            for (w, c) in model.arcs.values_mut().iter_mut().zip(arc_bytes.chunks_exact(4)) {
                *w = to_bf16(f32_of(c));
            }
        }
        Ok(Some(model))
    }

    /// Reads a model file (see [`Model::from_bytes`]), a regular file only.
    /// The header is read first (at most [`MAX_MODEL_HEADER`] bytes) and the
    /// file's size checked against the one it states, and against the memory
    /// limit ([`crate::memory`]), before the tables are read. O(size).
    pub fn load(path: &Path) -> Result<Model, ParserError> {
        use std::io::Read;
        let shown = path.display().to_string();
        let io = |e: std::io::Error| ParserError::Io(format!("{shown}: {e}"));
        let named = |e: ParserError| ParserError::Model { path: shown.clone(), source: Box::new(e) };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(ParserError::Io(format!(
                "{shown}: not a regular file (a model is a file written by `tabula train`)"
            )));
        }
        let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        // Never more than the size found now, whatever the file becomes.
        let mut reader = file.take(len as u64);
        let mut bytes = Vec::new();
        let mut want = len.min(64 << 10);
        loop {
            let missing = (want - bytes.len()) as u64;
            (&mut reader).take(missing).read_to_end(&mut bytes).map_err(io)?;
            if bytes.len() < want {
                // The file shrank while being read.
                return Model::from_bytes(&bytes).map_err(named);
            }
            match Model::decode(&bytes, len) {
                Ok(Some(model)) => return Ok(model),
                // The header is read and states the file's size.
                Ok(None) => {
                    let needed = len.checked_mul(5).map(|b| b / 2);
                    crate::memory::check(needed, 1, || format!("reading the model {shown}"))?;
                    bytes.reserve_exact(len - bytes.len());
                    reader.read_to_end(&mut bytes).map_err(io)?;
                    return Model::from_bytes(&bytes).map_err(named);
                }
                Err(ParserError::ModelTruncated) if want < len => {
                    if want as u64 >= MAX_MODEL_HEADER {
                        return Err(named(ParserError::ModelCorrupt(format!(
                            "no end of the header in its first {MAX_MODEL_HEADER} bytes"
                        ))));
                    }
                    want = len.min(want.saturating_mul(4)).min(MAX_MODEL_HEADER as usize);
                }
                Err(e) => return Err(named(e)),
            }
        }
    }
}

/// The largest model header [`Model::load`] reads (the label lines
/// included): 64 MiB.
pub const MAX_MODEL_HEADER: u64 = 64 << 20;

/// What a model header says of the file's size: its own length, the bits
/// of the two tables, the number of labels, and (version 3) the non-zero
/// weights of each table.
struct Shape {
    header_len: usize,
    bits: (u32, u32),
    labels: usize,
    nonzero: Option<(u64, u64)>,
}

impl Shape {
    /// The size of the file if its tables are `system`'s. O(1).
    fn file_len(&self, system: System) -> u64 {
        let steps = (1u64 << self.bits.0) * classes(system).len() as u64;
        let arcs = (1u64 << self.bits.1) * arc_steps(system).count() as u64 * self.labels.max(1) as u64;
        let tables = match self.nonzero {
            None => 4 * (steps + arcs),
            Some((s, a)) => steps.div_ceil(8) + 4 * s + arcs.div_ceil(8) + 2 * a,
        };
        self.header_len as u64 + tables + 8
    }
}

/// The error for a model file of `found` bytes whose header (`shape`, for
/// `system`) states another size, with the other systems whose tables it
/// has (an edited header). O(systems).
fn size_mismatch(system: System, shape: &Shape, found: usize) -> ParserError {
    let spine = system.definition().has_spine_steps();
    let sized_for = System::ALL
        .into_iter()
        .filter(|&s| s != system && s.definition().has_spine_steps() == spine && shape.file_len(s) == found as u64)
        .collect();
    ParserError::ModelSize { system, expected: shape.file_len(system), found: found as u64, sized_for }
}

/// Bytes of a table of `len` weights of which `nonzero` are stored, `size` bytes each.
fn sparse_bytes(len: usize, nonzero: usize, size: usize) -> usize {
    len.div_ceil(8) + nonzero * size
}

/// Appends `values` as a bitmap of those that are `stored`, then those values
/// (`write`), in order. O(len).
fn write_sparse<T: Copy>(
    out: &mut Vec<u8>,
    values: &[T],
    stored: impl Fn(&T) -> bool,
    write: impl Fn(&mut Vec<u8>, T),
) {
    for chunk in values.chunks(8) {
        out.push(chunk.iter().enumerate().fold(0u8, |b, (i, w)| b | (u8::from(stored(w)) << i)));
    }
    for &w in values.iter().filter(|w| stored(w)) {
        write(out, w);
    }
}

/// Reads what [`write_sparse`] wrote of a table the size of `values`
/// (zeros), values of `size` bytes (`value`), and returns the bytes after
/// it. An error if the bitmap has bits past the table's end or is not
/// followed by as many values as it has bits set, or if a stored value is
/// not `stored` (a zero: the writer never stores one). O(len).
fn read_sparse<'a, T>(
    bytes: &'a [u8],
    values: &mut [T],
    size: usize,
    value: impl Fn(&[u8]) -> T,
    stored: impl Fn(&T) -> bool,
) -> Result<&'a [u8], ParserError> {
    let corrupt = |r: &str| ParserError::ModelCorrupt(r.to_owned());
    let map_len = values.len().div_ceil(8);
    let (map, rest) = bytes.split_at_checked(map_len).ok_or_else(|| corrupt("a table's bitmap is cut short"))?;
    let past_end = values.len() % 8;
    if past_end != 0 && map.last().is_some_and(|&b| b >> past_end != 0) {
        return Err(corrupt("a table's bitmap marks weights past its end"));
    }
    let count = map.iter().map(|b| b.count_ones() as usize).sum::<usize>();
    let (values_bytes, rest) = rest
        .split_at_checked(count * size)
        .ok_or_else(|| corrupt("a table has fewer weights than its bitmap marks"))?;
    let mut next = values_bytes.chunks_exact(size);
    for (k, &byte) in map.iter().enumerate() {
        let mut b = byte;
        while b != 0 {
            let i = b.trailing_zeros() as usize;
            let v = value(next.next().expect("counted"));
            if !stored(&v) {
                return Err(corrupt("a table stores a zero weight (only non-zero weights are stored)"));
            }
            values[8 * k + i] = v;
            b &= b - 1;
        }
    }
    Ok(rest)
}

fn field_line(rest: &mut &[u8]) -> Result<String, ParserError> {
    let end = memchr::memchr(b'\n', rest).ok_or(ParserError::ModelTruncated)?;
    let l = std::str::from_utf8(&rest[..end]).map_err(|_| ParserError::ModelCorrupt("a label is not UTF-8".into()))?;
    *rest = &rest[end + 1..];
    Ok(l.to_owned())
}

/// A 64-bit checksum: [`mix`] over 8-byte words. O(bytes).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = hash_bytes(b"tabula-model");
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h ^ u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    mix(h ^ hash_bytes(chunks.remainder()) ^ bytes.len() as u64)
}

/// Picks the best of `scores` among the classes where `allowed` holds
/// (the first on ties). O(classes).
pub(crate) fn argmax(scores: &[f32], mut allowed: impl FnMut(usize) -> bool) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, &s) in scores.iter().enumerate() {
        if allowed(i) && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

/// The scores of the labelled steps at one configuration: each step's
/// weight, and for each arc-building step the weights of its labels. Reused
/// from configuration to configuration (no allocation once built).
#[derive(Clone, Debug)]
pub struct LabelledScores {
    system: System,
    labels: usize,
    /// The label block of each step of the system (`None`: no arc).
    blocks: Vec<Option<usize>>,
    steps: Vec<f32>,
    /// Block after block (arc step by arc step), one weight per label.
    arcs: Vec<f32>,
}

impl LabelledScores {
    /// Buffers for `system` with `labels` labels.
    pub fn new(system: System, labels: usize) -> Self {
        let blocks: Vec<_> = classes(system).iter().map(|&s| arc_class(system, s)).collect();
        let arcs = arc_steps(system).count() * labels.max(1);
        LabelledScores {
            system,
            labels: labels.max(1),
            blocks,
            steps: vec![0.0; classes(system).len()],
            arcs: vec![0.0; arcs],
        }
    }

    /// Scores the labelled steps for `features` with the tables `steps`
    /// and `arcs` (a model's, or a trainer's current weights): every step,
    /// and the labels of the arc steps (by class) where `needed` holds; the
    /// label blocks of the others are not read (their labels score 0: ask
    /// [`LabelledScores::best`] only among needed steps).
    /// O(features × (steps + needed arc steps × labels)).
    pub fn fill(&mut self, steps: &impl Rows, arcs: &impl Rows, features: &[u64], needed: impl Fn(usize) -> bool) {
        self.steps.iter_mut().for_each(|s| *s = 0.0);
        steps.add_scores(features, 0, &mut self.steps);
        self.arcs.iter_mut().for_each(|s| *s = 0.0);
        let mut blocks = 0u64;
        for (i, b) in self.blocks.iter().enumerate() {
            if let Some(b) = *b {
                if needed(i) {
                    blocks |= 1 << b;
                }
            }
        }
        let all = self.arcs.len() / self.labels;
        if blocks.count_ones() as usize == all {
            // One pass over whole rows.
            arcs.add_scores(features, 0, &mut self.arcs);
        } else {
            for b in (0..all).filter(|b| blocks & (1 << b) != 0) {
                let block = b * self.labels..(b + 1) * self.labels;
                arcs.add_scores(features, block.start, &mut self.arcs[block]);
            }
        }
    }

    /// The number of label slots of each block (the labels, at least one).
    pub fn label_count(&self) -> usize {
        self.labels
    }

    /// The label block of the step with class `step` (if it builds arcs).
    pub fn block(&self, step: usize) -> Option<usize> {
        self.blocks[step]
    }

    /// The weight of label `label` for the step with class `step` (if it builds arcs).
    pub fn label_weight(&self, step: usize, label: u32) -> Option<f32> {
        self.blocks[step].map(|b| self.arcs[b * self.labels + label as usize])
    }

    /// The best label of the step with class `step` and its weight (if it builds arcs).
    pub fn best_label(&self, step: usize) -> Option<(u32, f32)> {
        let b = self.blocks[step]?;
        let row = &self.arcs[b * self.labels..(b + 1) * self.labels];
        argmax(row, |_| true).map(|l| (l as u32, row[l]))
    }

    /// The best labelled step among the steps (by class) where `allowed`
    /// holds: its class and label (`None` for a step without an arc). O(steps × labels).
    pub fn best(&self, mut allowed: impl FnMut(usize) -> bool) -> Option<(usize, Option<u32>)> {
        let mut best: Option<(usize, Option<u32>, f32)> = None;
        for i in 0..self.steps.len() {
            if !allowed(i) {
                continue;
            }
            let (label, w) = self.best_label(i).map_or((None, 0.0), |(l, w)| (Some(l), w));
            let score = self.steps[i] + w;
            if best.is_none_or(|(_, _, b)| score > b) {
                best = Some((i, label, score));
            }
        }
        best.map(|(i, l, _)| (i, l))
    }

    /// The step of class `i` ([`classes`]).
    pub fn step(&self, i: usize) -> Step {
        classes(self.system)[i]
    }

    /// The weight of the step of class `i` (without a label).
    pub fn step_weight(&self, i: usize) -> f32 {
        self.steps[i]
    }
}

/// The greedy parser: one per thread, reused for every sentence (no
/// allocation once warm). O(n × features × (steps + arc steps × labels)) per sentence.
pub struct Parser<'m> {
    model: &'m Model,
    /// The tokens laid out for the model's root position ([`laid_out`]).
    laid: Tokens,
    arcs: ArcState,
    extractor: Extractor,
    scores: LabelledScores,
    /// The heads found by the last [`Parser::parse`], for words 1 … n.
    pub heads: Vec<usize>,
    /// The label indices found by the last [`Parser::parse`], for words 1 … n.
    pub labels: Vec<u32>,
}

impl<'m> Parser<'m> {
    /// A parser applying `model`.
    pub fn new(model: &'m Model) -> Self {
        Parser {
            model,
            laid: Tokens::default(),
            arcs: ArcState::default(),
            extractor: Extractor { columns: model.columns, ..Extractor::default() },
            scores: LabelledScores::new(model.system, model.labels.len()),
            heads: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Parses a sentence greedily: from the initial configuration, the best
    /// applicable labelled step until the configuration is final; words left without
    /// a head (arc-eager) go to the root with [`Model::root_label`]. Fills
    /// [`Parser::heads`] and [`Parser::labels`].
    pub fn parse(&mut self, tokens: &Tokens) {
        let model = self.model;
        let system = model.system;
        let tokens = laid_out(tokens, model.root, &mut self.laid);
        let n = tokens.len();
        let mut config = Configuration::initial_at(system, n, model.root);
        self.arcs.reset(n);
        while !config.is_final() {
            self.extractor.extract(&config, &self.arcs, tokens);
            let steps = classes(system);
            let applicable = |i: usize| config.is_applicable(steps[i]);
            self.scores.fill(&model.steps, model.compact_arcs(), &self.extractor.features, applicable);
            let Some((i, label)) = self.scores.best(|i| config.is_applicable(steps[i])) else {
                // Never: every non-final configuration of every system has an
                // applicable step with a class (`shift`, or with a stack of
                // two or more LR-spine's `right_arc_1`, Attardi's `right_arc`, …).
                break;
            };
            match config.apply(steps[i]) {
                Ok(Some((h, d))) => {
                    // DEPREL `root` exactly under the root: otherwise the
                    // best other label of this step.
                    let to_root = config.root().head_in_sentence(h, n) == 0;
                    let scores = &self.scores;
                    let other = || {
                        (0..scores.label_count() as u32)
                            .filter(|&l| Some(l) != model.known_root_label())
                            .filter_map(|l| scores.label_weight(i, l).map(|w| (l, w)))
                            .fold(
                                None,
                                |b: Option<(u32, f32)>, (l, w)| {
                                    if b.is_none_or(|(_, bw)| w > bw) {
                                        Some((l, w))
                                    } else {
                                        b
                                    }
                                },
                            )
                            .map(|(l, _)| l)
                    };
                    self.arcs.add(h, d, model.ud_label(to_root, label.unwrap_or(0), other))
                }
                Ok(None) => {}
                // Never: the step is applicable. Stop rather than loop.
                Err(_) => break,
            }
        }
        read_tree(model, &config, &self.arcs, &mut self.heads, &mut self.labels);
    }
}

/// The heads and labels of words 1 … n from a final configuration and its
/// labels, in the sentence's numbering (with the root last, position n is
/// the root); words left without a head (arc-eager) go to the root with
/// [`Model::root_label`]; DEPREL `root` only under the root
/// ([`Model::ud_label`]). O(n).
pub(super) fn read_tree(
    model: &Model,
    config: &Configuration,
    arcs: &ArcState,
    heads: &mut Vec<usize>,
    labels: &mut Vec<u32>,
) {
    heads.clear();
    labels.clear();
    let root = model.root_label();
    let n = config.sentence_len();
    let words = n - usize::from(config.root() == Root::Last);
    for d in 1..=words {
        match config.head(d) {
            Some(h) => {
                let head = config.root().head_in_sentence(h, n);
                heads.push(head);
                labels.push(model.ud_label(head == 0, arcs.label(d).unwrap_or(root), || None));
            }
            None => {
                heads.push(0);
                labels.push(root);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small arc-hybrid model with a few weights set, some of them not
    /// bfloat16 numbers.
    fn model() -> Model {
        let labels = vec!["nsubj".to_owned(), "obj".to_owned(), "root".to_owned()];
        let mut steps = Weights::zeros(5, classes(System::ArcHybrid).len());
        let mut arcs = Weights::zeros(4, arc_steps(System::ArcHybrid).count() * labels.len());
        for (i, w) in steps.w.iter_mut().enumerate().filter(|(i, _)| i % 7 == 3) {
            *w = i as f32 * 0.123_456_7 - 4.0;
        }
        for (i, w) in arcs.w.iter_mut().enumerate().filter(|(i, _)| i % 5 == 1) {
            *w = 1.0 / (i as f32 + 0.5);
        }
        Model::new(System::ArcHybrid, labels, steps, arcs, FeatureColumns::NONE).unwrap()
    }

    /// The model as a file of version 2: every weight as f32.
    fn version_2(model: &Model, arcs: &Weights) -> Vec<u8> {
        let mut out = format!(
            "{MAGIC}version 2\nsystem arc-hybrid\nfeatures {FEATURE_SET}\nstep-bits 5\nlabel-bits 4\nlabels 3\nnsubj\nobj\nroot\nend\n"
        )
        .into_bytes();
        for w in model.steps().w.iter().chain(&arcs.w) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    #[test]
    fn only_non_zero_weights_are_stored_and_they_come_back() {
        let m = model();
        let bytes = m.to_bytes();
        let (steps, arcs) = (m.steps().w.len(), m.arcs().values().len());
        let stored = ((0..steps).filter(|i| i % 7 == 3).count(), (0..arcs).filter(|i| i % 5 == 1).count());
        let header = String::from_utf8_lossy(&bytes[..200]).into_owned();
        assert!(header.contains(&format!("\nweights {} {}\n", stored.0, stored.1)), "{header}");
        let tables = steps.div_ceil(8) + 4 * stored.0 + arcs.div_ceil(8) + 2 * stored.1;
        assert_eq!(bytes.len(), header.find("end\n").unwrap() + 4 + tables + 8);
        assert_eq!(Model::from_bytes(&bytes).unwrap(), m);
    }

    #[test]
    fn version_2_files_read_with_their_label_weights_in_bfloat16() {
        let m = model();
        let f32_arcs = {
            let mut a = Weights::zeros(4, arc_steps(System::ArcHybrid).count() * 3);
            for (i, w) in a.w.iter_mut().enumerate().filter(|(i, _)| i % 5 == 1) {
                *w = 1.0 / (i as f32 + 0.5);
            }
            a
        };
        let read = Model::from_bytes(&version_2(&m, &f32_arcs)).unwrap();
        assert_eq!(read, m);
        assert_ne!(read.arcs().to_weights(), f32_arcs, "the test's weights are not all bfloat16 numbers");
    }

    #[test]
    fn a_sparse_table_that_disagrees_with_its_header_is_an_error() {
        let m = model();
        let bytes = m.to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let line = text.lines().find(|l| l.starts_with("weights ")).unwrap().to_owned();
        let edit = |new: &str| {
            let at = bytes.windows(line.len()).position(|w| w == line.as_bytes()).unwrap();
            let mut b = bytes[..at].to_vec();
            b.extend_from_slice(new.as_bytes());
            b.extend_from_slice(&bytes[at + line.len()..]);
            Model::from_bytes(&b).unwrap_err()
        };
        let (s, a): (usize, usize) = {
            let mut it = line[8..].split(' ').map(|c| c.parse().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        };
        // More stored weights than the table has, or a malformed line: corrupt.
        assert!(matches!(edit(&format!("weights {} {a}", 1 + 32 * 3)), ParserError::ModelCorrupt(_)));
        assert!(matches!(edit(&format!("weights {s}")), ParserError::ModelCorrupt(_)));
        assert!(matches!(edit(&format!("weights {s} {a} 1")), ParserError::ModelCorrupt(_)));
        // Another count: the file has another size than the header states.
        assert!(matches!(edit(&format!("weights {s} {}", a + 1)), ParserError::ModelSize { .. }));
        // A bitmap with one bit more (and one fewer elsewhere) is caught by the checksum;
        // read_sparse itself refuses bits past the end and missing values.
        let mut values = [0u16; 10];
        let stored = |&w: &u16| w != 0;
        assert!(read_sparse(&[0xff, 0b100], &mut values, 2, |_| 1, stored).is_err());
        assert!(read_sparse(&[0b1, 0b1, 7, 0], &mut values, 2, |_| 1, stored).is_err());
        assert!(read_sparse(&[0b1, 0, 0, 0], &mut values, 2, |c| c[0].into(), stored).is_err(), "a stored zero");
        let rest =
            read_sparse(&[0b1000_0001, 0b10, 1, 0, 2, 0, 3, 0, 9], &mut values, 2, |c| c[0].into(), stored).unwrap();
        assert_eq!((values, rest), ([1, 0, 0, 0, 0, 0, 0, 2, 0, 3], &[9u8][..]));
    }
}
