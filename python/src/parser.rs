//! The trained parser from Python: [`PyParser`] (`Parser.train`, `load`,
//! `save`, `parse`) and [`evaluate`], over the library's
//! [`run`](tabula::parser::run) layer, which `tabula train` and `tabula
//! parse` use too: the same options checked by the same code, the same
//! models byte for byte, the same output.

use crate::conllu::{os_error, Sentence};
use crate::convert::value_error;
use pyo3::exceptions::{PyFileNotFoundError, PyMemoryError, PyOSError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tabula::conllu::RawSentence;
use tabula::parser::eval::{evaluate_report, form_counts, EvalOptions};
use tabula::parser::features::FeatureColumns;
use tabula::parser::global::Update;
use tabula::parser::job::{JobError, ParseJob, ParseSettings, ParseTotals, ParseWorker, TrainJob, Treebank};
use tabula::parser::run::{
    ConstraintKind, EpochReport, InputCounts, Observer, OptionStyle, ParsedBlock, TrainSettings,
};
use tabula::parser::train::{OracleKind, Projectivize};
use tabula::parser::{Model, ParserError};
use tabula::projectivize::pseudo::Scheme;

/// A library error as a Python exception: `OSError` for files that cannot
/// be read or written, `MemoryError` beyond the memory limit, else
/// `ValueError`; the text is the command line's.
pub(crate) fn parser_error(e: ParserError) -> PyErr {
    let mut inner = &e;
    while let ParserError::Model { source, .. } = inner {
        inner = source;
    }
    match inner {
        ParserError::Io(_) => PyOSError::new_err(e.to_string()),
        ParserError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"),
        ParserError::TooMuchMemory(m) => {
            // The command line's text names `--max-memory`; Python's, `set_max_memory`.
            let path = match &e {
                ParserError::Model { path, .. } => format!("{path}: "),
                _ => String::new(),
            };
            let human = tabula::memory::human;
            PyMemoryError::new_err(format!(
                "{path}{} would need about {} of memory, more than the limit of {} (raise it with set_max_memory)",
                m.what,
                human(m.needed),
                human(m.limit)
            ))
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A trained transition-based dependency parser (an averaged perceptron
/// over the Zhang & Nivre 2011 features), as `tabula train` writes it and
/// `tabula parse` applies it. Immutable; `parse` may be called from
/// several threads at once. Picklable (as its model file's bytes).
#[pyclass(module = "tabula_parsing", name = "Parser", frozen)]
pub struct PyParser {
    model: Arc<Model>,
    /// The epoch whose model was kept (trained here), else `None`.
    epoch: Option<usize>,
    /// One dict per epoch (trained here).
    history: Vec<EpochReport>,
}

/// A treebank for a job: a CoNLL-U file (plain, xz or gzip), opened
/// here, or Sentences, named as in messages.
fn treebank(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Treebank> {
    if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
        let path: PathBuf = obj.extract()?;
        let input = py.detach(|| tabula::conllu::compressed::open(&path)).map_err(|e| os_error(&path, e))?;
        return Ok(Treebank::Reader { name: path.display().to_string(), input });
    }
    let sentences = sentences_of(obj, what)?;
    let name = sentences.first().map_or_else(|| format!("<{what}>"), |s| s.get().file.to_string());
    Ok(Treebank::Blocks { name, blocks: sentences.iter().map(|s| s.get().raw().clone()).collect() })
}

/// A pseudo-projective scheme by name.
pub(crate) fn scheme(given: &str) -> PyResult<Scheme> {
    Scheme::from_name(given).ok_or_else(|| {
        PyValueError::new_err(format!(
            "pseudo_projective=\"{given}\": expected one of \"head\", \"path\", \"head+path\""
        ))
    })
}

/// A job's error as a Python exception (as [`parser_error`]; a setting: `ValueError`).
pub(crate) fn job_error(e: JobError) -> PyErr {
    match e {
        JobError::Parser(e) => parser_error(e),
        JobError::Tagger(e) => crate::tagger::tagger_error(e),
        JobError::Open { path, source } => os_error(Path::new(&path), source),
        JobError::Settings(e) => PyValueError::new_err(e.to_string()),
    }
}

/// A sequence of `Sentence`s; `TypeError` naming `what` otherwise.
pub(crate) fn sentences_of<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, Sentence>>> {
    let bad = || PyTypeError::new_err(format!("`{what}` must be a path or a list of Sentences (from read_conllu)"));
    if obj.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let mut out = Vec::new();
    for item in obj.try_iter().map_err(|_| bad())? {
        out.push(item?.cast_into::<Sentence>().map_err(|_| bad())?);
    }
    Ok(out)
}

/// A keyword's value among `names` (the command line's words).
pub(crate) fn choice<T: Copy>(key: &str, given: &str, names: &[(&str, T)]) -> PyResult<T> {
    names.iter().find(|(n, _)| *n == given).map(|&(_, v)| v).ok_or_else(|| {
        let all: Vec<String> = names.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        PyValueError::new_err(format!("{key}=\"{given}\": expected one of {}", all.join(", ")))
    })
}

/// `threads` as a rayon pool (`None`: the global pool).
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    match threads {
        None => Ok(None),
        Some(t) if tabula::limits::check_threads(t as u64).is_err() => {
            let reason = tabula::limits::check_threads(t as u64).unwrap_err();
            Err(PyValueError::new_err(format!("threads={t}: {reason}")))
        }
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t).build().map(Some).map_err(value_error),
    }
}

/// Prints the job's notes and a line per epoch on standard error
/// (`verbose=True`: the lines `tabula train` prints) and keeps the reports.
struct Reports {
    verbose: bool,
    kept: Vec<EpochReport>,
}

impl Observer for Reports {
    fn note(&mut self, text: &str) {
        if self.verbose {
            eprintln!("{text}");
        }
    }

    fn epoch(&mut self, report: &EpochReport) {
        if self.verbose {
            eprintln!("{}", report.text);
        }
        self.kept.push(report.clone());
    }
}

/// One epoch's figures as a dict.
fn report_dict<'py>(py: Python<'py>, r: &EpochReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let s = &r.stats;
    d.set_item("epoch", s.epoch)?;
    d.set_item("sentences", s.sentences)?;
    d.set_item("tokens", s.tokens)?;
    d.set_item("configurations", s.configurations)?;
    d.set_item("step_errors", s.step_errors)?;
    d.set_item("label_errors", s.label_errors)?;
    d.set_item("explored", s.explored)?;
    d.set_item("updates", s.updates)?;
    d.set_item("abandoned", s.abandoned)?;
    d.set_item("beyond_depth", s.beyond_depth)?;
    d.set_item("seconds", s.seconds)?;
    d.set_item("dev_uas", r.dev.map(|c| c.uas()))?;
    d.set_item("dev_las", r.dev.map(|c| c.las()))?;
    Ok(d)
}

#[pymethods]
impl PyParser {
    /// Trains a parser as `tabula train` does, with the same options (the
    /// same defaults; an option that has no effect in the mode chosen is a
    /// `ValueError`, e.g. `update` with `beam=1`) and, from the same data
    /// and seed, the same model byte for byte. `train` and `dev`: a CoNLL-U
    /// file (plain, xz or gzip) or a list of Sentences with gold UPOS, HEAD
    /// and DEPREL. The model kept is that of the best dev LAS, else the
    /// last epoch's. `init`: a Parser (or model file) to continue from.
    /// `threads`: the threads that score `dev` (the model does not depend
    /// on them). Quiet unless `verbose`. The GIL is released while training.
    ///
    /// >>> parser = Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10)
    /// >>> parser.system
    /// 'arc-hybrid'
    #[staticmethod]
    #[pyo3(signature = (train, dev = None, *, system = "arc-hybrid", oracle = "dynamic", algorithm = None,
        strategy = None, max_gamma = None, max_pairs = None, max_words = None, projectivize = None, skip_nonprojective = false,
        pseudo_projective = None, tagger = None, jackknife = None, feats = false, lemma = false, xpos = false,
        epochs = 10, beam = 1, root = None, update = None, restart = false, beam_labels = None,
        explore_from = None, explore_p = None, seed = 1, subsample = None, init = None, step_bits = 20,
        label_bits = 18, threads = None, verbose = false))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        py: Python<'_>,
        train: &Bound<'_, PyAny>,
        dev: Option<&Bound<'_, PyAny>>,
        system: &str,
        oracle: &str,
        algorithm: Option<&str>,
        strategy: Option<&str>,
        max_gamma: Option<usize>,
        max_pairs: Option<u64>,
        max_words: Option<usize>,
        projectivize: Option<&str>,
        skip_nonprojective: bool,
        pseudo_projective: Option<&str>,
        tagger: Option<&Bound<'_, PyAny>>,
        jackknife: Option<u32>,
        feats: bool,
        lemma: bool,
        xpos: bool,
        epochs: usize,
        beam: u32,
        root: Option<&str>,
        update: Option<&str>,
        restart: bool,
        beam_labels: Option<u32>,
        explore_from: Option<usize>,
        explore_p: Option<f64>,
        seed: i128,
        subsample: Option<f64>,
        init: Option<&Bound<'_, PyAny>>,
        step_bits: u32,
        label_bits: u32,
        threads: Option<usize>,
        verbose: bool,
    ) -> PyResult<PyParser> {
        tabula::limits::check_epochs(epochs as u64)
            .map_err(|e| PyValueError::new_err(format!("epochs={epochs}: {e}")))?;
        let settings = TrainSettings {
            system: system.parse().map_err(value_error)?,
            oracle: choice("oracle", oracle, &[("static", OracleKind::Static), ("dynamic", OracleKind::Dynamic)])?,
            algorithm: algorithm.map(str::parse).transpose().map_err(value_error)?,
            strategy: strategy.map(str::parse).transpose().map_err(value_error)?,
            max_gamma,
            max_pairs,
            projectivize: projectivize
                .map(|p| {
                    let names = [
                        ("none", Projectivize::None),
                        ("optimal", Projectivize::Optimal),
                        ("lift", Projectivize::Lift),
                    ];
                    choice("projectivize", p, &names)
                })
                .transpose()?,
            skip_nonprojective,
            columns: FeatureColumns { feats, lemma, xpos },
            epochs,
            beam,
            update: update
                .map(|u| {
                    let names =
                        [("early", Update::Early), ("max-violation", Update::MaxViolation), ("full", Update::Full)];
                    choice("update", u, &names)
                })
                .transpose()?,
            restart,
            beam_labels,
            explore_from,
            explore_p,
            seed: crate::convert::seed_in_range(seed, "seed")?,
            step_bits,
            label_bits,
            root: root.map(str::parse).transpose().map_err(value_error)?,
            max_words,
            subsample,
            pseudo_projective: pseudo_projective.map(scheme).transpose()?,
            jackknife,
        };
        settings.resolve(OptionStyle::Python).map_err(value_error)?;
        let init = match init {
            None => None,
            Some(p) => match p.cast::<PyParser>() {
                Ok(p) => Some(((*p.get().model).clone(), "the init parser".to_owned())),
                Err(_) => {
                    let path: PathBuf = p.extract()?;
                    Some((py.detach(|| Model::load(&path)).map_err(parser_error)?, path.display().to_string()))
                }
            },
        };
        let tagger = tagger.map(|t| crate::tagger::tagger_of(py, t)).transpose()?;
        let pool = pool(threads)?;
        let train = treebank(py, train, "train")?;
        let dev = dev.map(|d| treebank(py, d, "dev")).transpose()?;
        let job = TrainJob { settings, tagger: tagger.as_ref().map(|(t, name)| (&**t, name.clone())), init };
        let mut reports = Reports { verbose, kept: Vec::new() };
        // Ctrl-C stops the training between sentences (KeyboardInterrupt).
        let trained = crate::interrupt::interruptible(py, |_| {
            let job = || job.run(train, dev, OptionStyle::Python, &mut reports);
            match &pool {
                Some(p) => p.install(job),
                None => job(),
            }
        })?;
        let trained = trained.map_err(job_error)?;
        Ok(PyParser { model: Arc::new(trained.model), epoch: Some(trained.epoch), history: reports.kept })
    }

    /// Reads a model file written by `tabula train` or `Parser.save`
    /// (`ValueError` for a file that is not one, corrupt or truncated;
    /// `OSError` if it cannot be read; `MemoryError` beyond the memory
    /// limit, `set_max_memory`).
    ///
    /// >>> Parser.load(SAMPLE)
    /// Traceback (most recent call last):
    /// ValueError: ...sample.conllu: not a tabula parser model: line 4 shows a CoNLL-U treebank
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyParser> {
        let model = py.detach(|| Model::load(&path)).map_err(|e| match e {
            ParserError::Io(m) if matches!(path.try_exists(), Ok(false)) => PyFileNotFoundError::new_err(m),
            e => parser_error(e),
        })?;
        Ok(PyParser { model: Arc::new(model), epoch: None, history: Vec::new() })
    }

    /// Writes the model file (the bytes `tabula train` writes), to a
    /// temporary file beside `path` renamed over it at the end.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let model = Arc::clone(&self.model);
        py.detach(move || write_atomically(&path, &model.to_bytes()))
    }

    /// Parses sentences as `tabula parse` does: new Sentences whose HEAD and
    /// DEPREL columns are the parser's, every other byte as read (so
    /// `write_conllu` writes what `tabula parse` writes). The input needs
    /// FORM and UPOS (and FEATS, LEMMA, XPOS for a model trained with
    /// `feats`, `lemma`, `xpos`); its
    /// HEAD and DEPREL may be `_`. `beam`: the beam width (default: the
    /// model's training width). `threads`: worker threads (the output does
    /// not depend on them). The GIL is released while parsing. A sentence
    /// without any UPOS is a `ValueError`, and so is one longer than
    /// `max_words` words; some words without UPOS, or no
    /// FEATS (LEMMA, XPOS) at all for a model that reads them, a
    /// `UserWarning`.
    ///
    /// >>> parser = Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10)
    /// >>> parsed = parser.parse(read_conllu(SAMPLE), threads=2)
    /// >>> len(parsed), parsed[0].forms[:2], len(parsed[0].heads)
    /// (6, ['Kim', 'saw'], 8)
    #[pyo3(signature = (sentences, *, tagger = None, beam = None, constraints = false, constraint_kind = "arcs",
        threads = 1, max_words = 10000))] // max_words: DEFAULT_PARSE_MAX_WORDS (test_parity checks)
    #[allow(clippy::too_many_arguments)]
    fn parse<'py>(
        &self,
        py: Python<'py>,
        sentences: &Bound<'py, PyAny>,
        tagger: Option<&Bound<'py, PyAny>>,
        beam: Option<u32>,
        constraints: bool,
        constraint_kind: &str,
        threads: u32,
        max_words: usize,
    ) -> PyResult<Vec<Sentence>> {
        let sentences = sentences_of(sentences, "sentences")?;
        let kinds = [("arcs", ConstraintKind::Arcs), ("direction", ConstraintKind::Direction)];
        let settings = ParseSettings {
            beam,
            constraints,
            constraint_kind: choice("constraint_kind", constraint_kind, &kinds)?,
            threads,
            max_words,
        };
        let tagger = tagger.map(|t| crate::tagger::tagger_of(py, t)).transpose()?;
        let model = &*self.model;
        let (job, notices) = ParseJob::new(
            &settings,
            model,
            "the model",
            tagger.as_ref().map(|(t, name)| (&**t, name.as_str())),
            OptionStyle::Python,
        )
        .map_err(job_error)?;
        for n in notices {
            warn(py, &n.text)?;
        }
        // One thread: this one (no pool to start).
        let pool = if threads == 1 { None } else { pool(Some(threads as usize))? };
        let blocks: Vec<(&RawSentence, &Arc<str>)> = sentences.iter().map(|s| (s.get().raw(), &s.get().file)).collect();
        let watch = tabula::interrupt::Watch::start();
        let one =
            |w: &mut ParseWorker<'_>, &(raw, file): &(&RawSentence, &Arc<str>)| -> PyResult<(ParsedBlock, Sentence)> {
                if watch.interrupted() {
                    return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"));
                }
                let block = w.parse(raw, file).map_err(job_error)?;
                let out = RawSentence { text: block.bytes.clone(), first_line: raw.first_line };
                let sentence = Sentence::from_block(out, file).map_err(value_error)?;
                Ok((block, sentence))
            };
        // Ctrl-C stops the parse between sentences (KeyboardInterrupt).
        let parsed: Vec<PyResult<(ParsedBlock, Sentence)>> = crate::interrupt::interruptible(py, |_| match &pool {
            Some(pool) => pool.install(|| blocks.par_iter().map_init(|| job.worker(), one).collect()),
            None => {
                let mut w = job.worker();
                blocks.iter().map(|b| one(&mut w, b)).collect()
            }
        })?;
        let mut totals = ParseTotals::default();
        let mut out = Vec::with_capacity(parsed.len());
        for p in parsed {
            let (block, sentence) = p?;
            totals.add(&block);
            out.push(sentence);
        }
        for w in totals.warnings(None, model.columns, "the model", OptionStyle::Python) {
            warn(py, &w)?;
        }
        Ok(out)
    }

    /// The bytes of the model file (what `save` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.model.to_bytes())
    }

    /// A parser from the bytes of a model file (`ValueError` if they are
    /// not one, as `load`).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyParser> {
        let model = py.detach(|| Model::from_bytes(data)).map_err(parser_error)?;
        Ok(PyParser { model: Arc::new(model), epoch: None, history: Vec::new() })
    }

    /// Pickling: the model file's bytes (`epoch` and `history` are not kept).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        Ok((py.get_type::<PyParser>().getattr("from_bytes")?, (self.to_bytes(py),)))
    }

    /// The transition system.
    #[getter]
    fn system(&self) -> &'static str {
        self.model.system.name()
    }
    /// The DEPRELs the model assigns, sorted.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.model.labels.clone()
    }
    /// The beam width the model was trained with (1: greedy), the default of `parse`.
    #[getter]
    fn beam(&self) -> u32 {
        self.model.beam
    }
    /// The most labels per arc step competing for the beam (`None`: all).
    #[getter]
    fn beam_labels(&self) -> Option<u32> {
        self.model.beam_labels
    }
    /// Whether the model reads the FEATS column.
    #[getter]
    fn feats(&self) -> bool {
        self.model.columns.feats
    }
    /// Whether the model reads the LEMMA column.
    #[getter]
    fn lemma(&self) -> bool {
        self.model.columns.lemma
    }
    /// Whether the model reads the XPOS column.
    #[getter]
    fn xpos(&self) -> bool {
        self.model.columns.xpos
    }
    /// The epoch whose model was kept (best dev LAS, else the last), for a
    /// parser trained in this process; `None` for a loaded one.
    #[getter]
    fn epoch(&self) -> Option<usize> {
        self.epoch
    }
    /// One dict per training epoch (`epoch`, `sentences`, `tokens`,
    /// `configurations`, `step_errors`, `label_errors`, `explored`,
    /// `updates`, `abandoned`, `beyond_depth`, `seconds`, `dev_uas`,
    /// `dev_las`); empty for a loaded parser.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.history.iter().map(|r| report_dict(py, r)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }
    fn __repr__(&self) -> String {
        format!(
            "Parser(system={:?}, labels={}, beam={}, feats={}, lemma={}, xpos={})",
            self.model.system.name(),
            self.model.labels.len(),
            self.model.beam,
            py_bool(self.model.columns.feats),
            py_bool(self.model.columns.lemma),
            py_bool(self.model.columns.xpos)
        )
    }
}

/// Writes `bytes` to `path` as the command line's `-o` does
/// ([`crate::conllu::write_output`]).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> PyResult<()> {
    crate::conllu::write_output(path, |out| out.write_all(bytes))
}

/// A CoNLL-U stream for [`evaluate`]: a file, or the Sentences' lines.
fn conllu_input(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Box<dyn std::io::BufRead + Send>, String)> {
    if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
        let path: PathBuf = obj.extract()?;
        let input = tabula::conllu::compressed::open(&path).map_err(|e| os_error(&path, e))?;
        return Ok((input, path.display().to_string()));
    }
    let mut text = Vec::new();
    for s in sentences_of(obj, what)? {
        text.extend_from_slice(s.get().raw_text());
    }
    Ok((Box::new(std::io::Cursor::new(text)), format!("<{what} sentences>")))
}

/// UAS and LAS of `pred` against `gold` (each a CoNLL-U file or a list of
/// Sentences), as `tabula eval --json` prints them: a dict with
/// `sentences`, `all`, `no_punct` (words whose gold UPOS is not PUNCT)
/// and `by_length`, each score with `words`, `uas`, `las`, `heads`,
/// `labelled` (`las` and `labelled` are `None` when every gold DEPREL is
/// `_`). LAS compares the universal part of DEPREL (before `:`), as in the
/// CoNLL 2018 shared task. The files must have the same sentences, words
/// and FORMs (`ValueError` naming the first difference). With
/// `nonprojective=True`, also the key `nonprojective` (the gold tree's
/// non-projective arcs found, and the predicted ones that are gold); with
/// `breakdown=True`, the key `breakdown` (UAS and LAS by gold UPOS,
/// relation, arc length, direction, depth and position, and by the FORM's
/// frequency in `train`, a CoNLL-U file or list of Sentences; MLAS and
/// BLEX), as `--nonprojective`, `--breakdown` and `--train` add them.
///
/// >>> scores = evaluate(SAMPLE, read_conllu(SAMPLE))
/// >>> scores["sentences"], scores["all"]["uas"], scores["all"]["las"]
/// (6, 100.0, 100.0)
#[pyfunction]
#[pyo3(signature = (gold, pred, *, nonprojective = false, breakdown = false, train = None))]
pub fn evaluate<'py>(
    py: Python<'py>,
    gold: &Bound<'py, PyAny>,
    pred: &Bound<'py, PyAny>,
    nonprojective: bool,
    breakdown: bool,
    train: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if train.is_some() && !breakdown {
        return Err(PyValueError::new_err("train gives the word frequencies of breakdown; add breakdown=True"));
    }
    let train = train.map(|t| conllu_input(t, "train")).transpose()?;
    let (g, g_name) = conllu_input(gold, "gold")?;
    let (p, p_name) = conllu_input(pred, "pred")?;
    let json = py.detach(|| {
        let forms = train.map(|(t, name)| form_counts(t, &name)).transpose().map_err(parser_error)?;
        let options = EvalOptions { nonprojective, breakdown, forms, collect_breakdown: false };
        let report = evaluate_report(g, &g_name, p, &p_name, &options).map_err(parser_error)?;
        Ok::<_, PyErr>(report.to_json().to_string())
    })?;
    py.import("json")?.call_method1("loads", (json,))
}

/// Undoes the pseudo-projective encoding (Nivre & Nilsson 2005) of
/// `projectivize(..., encode=...)` and `tabula projectivize --encode`, as
/// `tabula deprojectivize` does: every word whose DEPREL marks it as moved
/// (`d|h` or `d|`) is reattached to the head the marks lead to, and every
/// DEPREL is written back plain. `sentences`: a `Sentence` (returns a
/// `Sentence`), or a CoNLL-U file or a list of Sentences (returns a list).
/// Only HEAD and DEPREL change. O(n) per moved word.
#[pyfunction]
pub fn deprojectivize<'py>(py: Python<'py>, sentences: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(s) = sentences.cast::<Sentence>() {
        let s = s.get();
        let (text, _) = tabula::parser::deprojectivize::deprojectivize_block(s.raw(), &s.file).map_err(parser_error)?;
        let raw = RawSentence { text, first_line: s.raw().first_line };
        let decoded = Sentence::from_block(raw, &s.file).map_err(value_error)?;
        return Ok(Bound::new(py, decoded)?.into_any());
    }
    let (input, name) = conllu_input(sentences, "encoded")?;
    let text = py.detach(|| {
        let mut out = Vec::new();
        tabula::parser::deprojectivize::deprojectivize(input, &name, &mut out).map(|_| out)
    });
    let decoded = crate::conllu::parse_all(text.map_err(parser_error)?.as_slice(), &name)?;
    Ok(PyList::new(py, decoded)?.into_any())
}

/// The weighted vote of several parsers' trees, reparsed, as `tabula
/// ensemble` computes it: `predictions`, two or more CoNLL-U files or lists
/// of Sentences of the same text (the same sentences and FORMs, else
/// `ValueError` naming the line of each); `weights`, one positive number
/// per prediction (default 1 each), summed exactly; a sentence longer than
/// `max_words` is a `ValueError` (reparsing costs n³ time and n² memory);
/// `projective=True`: projective trees (the engine's best projective tree)
/// instead of any tree (the maximum spanning arborescence). Each word takes
/// the label with the most weight among the predictions that chose its new
/// head. Returns the first prediction's sentences with HEAD and DEPREL
/// replaced.
#[pyfunction]
#[pyo3(signature = (predictions, *, weights = None, max_words = 2000, projective = false))]
pub fn ensemble<'py>(
    py: Python<'py>,
    predictions: Vec<Bound<'py, PyAny>>,
    weights: Option<Vec<f64>>,
    max_words: u64,
    projective: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use tabula::parser::ensemble::{EnsembleSettings, Prediction};
    let settings = EnsembleSettings { weights, max_words, projective };
    tabula::parser::ensemble::weights(&settings, predictions.len(), OptionStyle::Python).map_err(parser_error)?;
    let inputs: Vec<Prediction> = predictions
        .iter()
        .enumerate()
        .map(|(i, p)| conllu_input(p, &format!("prediction {i}")))
        .collect::<PyResult<_>>()?;
    let name = inputs[0].1.clone();
    let text = py.detach(|| {
        let mut out = Vec::new();
        tabula::parser::ensemble::ensemble(inputs, &settings, OptionStyle::Python, &mut out).map(|_| out)
    });
    let voted = crate::conllu::parse_all(text.map_err(parser_error)?.as_slice(), &name)?;
    Ok(PyList::new(py, voted)?.into_any())
}

/// Checks sentences to parse as every parser of tabula checks its input
/// (`tabula parse`, `Parser.parse`, the neural parser), for a parser of
/// your own too: a sentence none of whose words has a UPOS raises
/// `ValueError` naming its file and first word's line (the models read
/// UPOS); returns the warnings of the sentences as a whole — words without
/// UPOS, and a column the model reads (`feats`, `lemma`, `xpos`) that is
/// `_` everywhere. `file` names the input in the warnings, `model_name` the
/// model; `command_line`: the options written as the command line's
/// (`--feats`) rather than Python's (`feats=True`). O(bytes).
#[pyfunction]
#[pyo3(signature = (sentences, *, feats = false, lemma = false, xpos = false, file = None, model_name = "the model", command_line = false))]
pub fn check_input(
    sentences: &Bound<'_, PyAny>,
    feats: bool,
    lemma: bool,
    xpos: bool,
    file: Option<&str>,
    model_name: &str,
    command_line: bool,
) -> PyResult<Vec<String>> {
    let bad = || PyTypeError::new_err("`sentences` must be a list of Sentences (from read_conllu)");
    if sentences.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let mut totals = ParseTotals::default();
    for s in sentences.try_iter().map_err(|_| bad())? {
        let s = s?.cast_into::<Sentence>().map_err(|_| bad())?;
        let s = s.get();
        totals.count(&InputCounts::check(s.raw(), &s.file, false).map_err(parser_error)?);
    }
    let style = if command_line { OptionStyle::CommandLine } else { OptionStyle::Python };
    Ok(totals.warnings(file, FeatureColumns { feats, lemma, xpos }, model_name, style))
}

/// Sets the process-wide limit on the memory of one computation (a chart,
/// an oracle call, a model's tables), as the command line's
/// `--max-memory`: bytes, or a size such as `"500M"`, `"8G"`. A call that
/// would need more raises `MemoryError`.
#[pyfunction]
pub fn set_max_memory(size: &Bound<'_, PyAny>) -> PyResult<()> {
    let bytes = match size.extract::<u64>() {
        Ok(b) => b,
        Err(_) => {
            let text: String = size
                .extract()
                .map_err(|_| PyTypeError::new_err("the size must be a number of bytes or a string such as \"8G\""))?;
            tabula::memory::parse_size(&text).map_err(PyValueError::new_err)?
        }
    };
    tabula::memory::set_max_memory(bytes);
    Ok(())
}

/// The process-wide memory limit, in bytes (8 GiB unless set).
#[pyfunction]
pub fn max_memory() -> u64 {
    tabula::memory::max_memory()
}

/// A `UserWarning` with `text`.
fn warn(py: Python<'_>, text: &str) -> PyResult<()> {
    PyErr::warn(py, py.get_type::<PyUserWarning>().as_any(), &std::ffi::CString::new(text)?, 1)
}

/// `True` or `False`, as Python writes them.
pub(crate) fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
