//! The built-in tagger from Python: [`PyTagger`] (`Tagger.train`, `load`,
//! `save`, `tag`, `accuracy`), over the library's [`tabula::tagger`], which
//! `tabula train-tagger` and `tabula tag` use too: the same options checked
//! by the same code ([`TaggerSettings`]), the same taggers byte for byte,
//! the same output.

use crate::conllu::{os_error, Sentence};
use crate::convert::value_error;
use crate::parser::{choice, pool, py_bool, sentences_of, write_atomically};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use tabula::conllu::RawSentence;
use tabula::parser::OptionStyle;
use tabula::tagger::settings::TaggerSettings;
use tabula::tagger::train::{self, Accuracy, EpochReport, TaggedSentence};
use tabula::tagger::{Decode, Direction, Tagger, TaggerError, TaggerModel};

/// A library error as a Python exception: `OSError` for files that cannot
/// be read, `MemoryError` beyond the memory limit, else `ValueError`; the
/// text is the command line's.
pub(crate) fn tagger_error(e: TaggerError) -> PyErr {
    let mut inner = &e;
    while let TaggerError::Model { source, .. } = inner {
        inner = source;
    }
    match inner {
        TaggerError::Io(_) => PyOSError::new_err(e.to_string()),
        TaggerError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"),
        TaggerError::TooMuchMemory(m) => crate::distribution::memory_error(m),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A trained part-of-speech tagger (UPOS, and FEATS if trained with
/// `feats=True`): an averaged perceptron with a tag dictionary, as
/// `tabula train-tagger` writes it and `tabula tag` applies it. Immutable;
/// `tag` may be called from several threads at once. Picklable (as its
/// file's bytes).
#[pyclass(module = "tabula_parsing", name = "Tagger", frozen)]
pub struct PyTagger {
    model: Arc<TaggerModel>,
    /// The epoch whose model was kept (trained here), else `None`.
    epoch: Option<usize>,
    /// One report per epoch of each pass (trained here).
    history: Vec<EpochReport>,
}

/// A tagger given to another call (`tagger=`): a Tagger, or the path of a
/// tagger file (read here); its name in messages.
pub(crate) fn tagger_of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<(Arc<TaggerModel>, String)> {
    if let Ok(t) = obj.cast::<PyTagger>() {
        return Ok((Arc::clone(&t.get().model), "the tagger".to_owned()));
    }
    let path: PathBuf = obj.extract()?;
    let t = PyTagger::load(py, path.clone())?;
    Ok((t.model, path.display().to_string()))
}

/// Tagged sentences: a CoNLL-U file (plain, xz or gzip) or Sentences; the
/// name used in messages.
fn tagged_data(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Vec<TaggedSentence>, String)> {
    if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
        let path: PathBuf = obj.extract()?;
        return py.detach(|| {
            let input = tabula::conllu::compressed::open(&path).map_err(|e| os_error(&path, e))?;
            let name = path.display().to_string();
            let blocks = train::read_blocks(input, &name).map_err(tagger_error)?;
            Ok((train::sentences(&blocks, &name).map_err(tagger_error)?, name))
        });
    }
    let sentences = sentences_of(obj, what)?;
    let name = sentences.first().map_or_else(|| format!("<{what}>"), |s| s.get().file.to_string());
    let mut data = Vec::with_capacity(sentences.len());
    for s in &sentences {
        let s = s.get();
        data.extend(TaggedSentence::from_raw(s.raw(), &s.file).map_err(tagger_error)?);
    }
    Ok((data, name))
}

/// A decoding by name.
fn decoding(given: &str) -> PyResult<Decode> {
    choice("decode", given, &[("greedy", Decode::Greedy), ("viterbi", Decode::Viterbi)])
}

/// A direction by name (a `ValueError` naming the choices otherwise).
fn directions(given: &str) -> PyResult<Direction> {
    let all = [Direction::LeftToRight, Direction::RightToLeft, Direction::Both];
    choice("direction", given, &all.map(|d| (d.name(), d)))
}

/// An accuracy as a dict: `words`, `upos` (percent) and, for a tagger with
/// FEATS, `feats` (percent; `None` otherwise).
fn accuracy_dict<'py>(py: Python<'py>, a: &Accuracy, feats: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("words", a.words)?;
    d.set_item("upos", a.upos_percent())?;
    d.set_item("feats", feats.then(|| a.feats_percent()))?;
    Ok(d)
}

#[pymethods]
impl PyTagger {
    /// Trains a tagger as `tabula train-tagger` does, with the same options
    /// and defaults (a value out of range is a `ValueError` naming it) and,
    /// from the same data and seed, the same tagger byte for byte. `train`
    /// and `dev`: a CoNLL-U file (plain, xz or gzip) or a list of Sentences
    /// with gold UPOS (and FEATS, with `feats=True`). The tagger kept is
    /// that of the best dev UPOS accuracy, else the last epoch's.
    /// `decode`: `"greedy"` or `"viterbi"`; `passes=2`: a second pass that
    /// reads the first pass's tags of the next words; `direction`:
    /// `"left-to-right"`, `"right-to-left"` or `"both"` (a table for each
    /// direction, their scores summed; greedy only); `ensemble`: each table
    /// the sum of that many perceptrons (seeds `seed`, `seed` + 1, …); `bits`: log2 of the
    /// table's rows; the tag dictionary takes the words seen at least
    /// `dictionary_min_count` times (default 20) with one tag at least
    /// `dictionary_min_share` of the times (above 1: no dictionary, and then
    /// no count).
    /// `threads`: the threads that score `dev`. Quiet unless `verbose`. The
    /// GIL is released while training.
    ///
    /// >>> tagger = Tagger.train(SAMPLE, epochs=2, bits=12)
    /// >>> tagger.tags[:3]
    /// ['ADJ', 'ADP', 'ADV']
    #[staticmethod]
    #[pyo3(signature = (train, dev = None, *, feats = false, decode = "greedy", passes = 1, epochs = 10,
        seed = 1, bits = 19, dictionary_min_count = None, dictionary_min_share = 0.97, direction = "left-to-right",
        ensemble = 1, threads = None, verbose = false))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        py: Python<'_>,
        train: &Bound<'_, PyAny>,
        dev: Option<&Bound<'_, PyAny>>,
        feats: bool,
        decode: &str,
        passes: u32,
        epochs: u32,
        seed: u64,
        bits: u32,
        dictionary_min_count: Option<u32>,
        dictionary_min_share: f64,
        direction: &str,
        ensemble: u32,
        threads: Option<usize>,
        verbose: bool,
    ) -> PyResult<PyTagger> {
        tabula::limits::check_epochs(u64::from(epochs))
            .map_err(|e| PyValueError::new_err(format!("epochs={epochs}: {e}")))?;
        let settings = TaggerSettings {
            epochs,
            seed,
            bits,
            decode: decoding(decode)?,
            feats,
            passes,
            dictionary_min_count,
            dictionary_min_share,
            direction: directions(direction)?,
            ensemble,
        };
        let options = settings.resolve(OptionStyle::Python).map_err(tagger_error)?;
        let pool = pool(threads)?;
        if let (Some(t), None) = (threads, dev) {
            return Err(PyValueError::new_err(format!(
                "threads={t}: the threads score the dev file (dev=…), and none is given"
            )));
        }
        let (data, name) = tagged_data(py, train, "train")?;
        let dev = dev.map(|d| tagged_data(py, d, "dev")).transpose()?;
        let mut history = Vec::new();
        // Ctrl-C stops the training between sentences (KeyboardInterrupt).
        let trained = crate::interrupt::interruptible(py, |_| {
            let dev = dev.as_ref().map(|(d, _)| d.as_slice());
            let mut report = |r: &EpochReport| {
                if verbose {
                    eprintln!("{}", r.text(feats));
                }
                history.push(r.clone());
            };
            let mut job = || train::train(&options, &data, &name, dev, &mut report);
            match &pool {
                Some(p) => p.install(job),
                None => job(),
            }
        })?;
        let trained = trained.map_err(tagger_error)?;
        Ok(PyTagger { model: Arc::new(trained.model), epoch: Some(trained.epoch), history })
    }

    /// Reads a tagger file written by `tabula train-tagger` or `Tagger.save`
    /// (`ValueError` for a file that is not one, of another version,
    /// corrupt or truncated; `OSError` if it cannot be read).
    ///
    /// >>> Tagger.load(SAMPLE)
    /// Traceback (most recent call last):
    /// ValueError: ...sample.conllu: not a tabula tagger: line 4 shows a CoNLL-U treebank
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyTagger> {
        let model = py.detach(|| TaggerModel::load(&path)).map_err(|e| {
            if matches!(path.try_exists(), Ok(false)) {
                PyFileNotFoundError::new_err(e.to_string())
            } else {
                tagger_error(e)
            }
        })?;
        Ok(PyTagger { model: Arc::new(model), epoch: None, history: Vec::new() })
    }

    /// Writes the tagger file (the bytes `tabula train-tagger` writes), to
    /// a temporary file beside `path` renamed over it at the end.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let model = Arc::clone(&self.model);
        py.detach(move || write_atomically(&path, &model.to_bytes()))
    }

    /// Tags sentences as `tabula tag` does: new Sentences whose UPOS (and,
    /// for a tagger trained with `feats=True`, FEATS) columns are the
    /// tagger's, every other byte as read. Only FORM is read. `decode`:
    /// `"greedy"` or `"viterbi"` (default: as trained). `threads`: worker
    /// threads (the output does not depend on them). The GIL is released
    /// while tagging.
    ///
    /// >>> tagger = Tagger.train(SAMPLE, epochs=2, bits=12)
    /// >>> tagged = tagger.tag(read_conllu(SAMPLE), threads=2)
    /// >>> len(tagged), tagged[0].forms[:2], len(tagged[0].upos)
    /// (6, ['Kim', 'saw'], 8)
    #[pyo3(signature = (sentences, *, decode = None, threads = 1))]
    fn tag<'py>(
        &self,
        py: Python<'py>,
        sentences: &Bound<'py, PyAny>,
        decode: Option<&str>,
        threads: usize,
    ) -> PyResult<Vec<Sentence>> {
        let sentences = sentences_of(sentences, "sentences")?;
        let decode = decode.map(decoding).transpose()?.unwrap_or(self.model.options.decode);
        self.model.check_decode(decode, OptionStyle::Python).map_err(tagger_error)?;
        // One thread: this one (no pool to start).
        let pool = if threads == 1 { None } else { pool(Some(threads))? };
        let blocks: Vec<(&RawSentence, &Arc<str>)> = sentences.iter().map(|s| (s.get().raw(), &s.get().file)).collect();
        let model = &*self.model;
        let watch = tabula::interrupt::Watch::start();
        let one = |t: &mut Tagger<'_>, &(raw, file): &(&RawSentence, &Arc<str>)| -> PyResult<Sentence> {
            if watch.interrupted() {
                return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"));
            }
            let mut out = Vec::with_capacity(raw.text.len() + 16);
            t.tag_block(raw, file, &mut out).map_err(tagger_error)?;
            Sentence::from_block(RawSentence { text: out, first_line: raw.first_line }, file).map_err(value_error)
        };
        // Ctrl-C stops the tagging between sentences (KeyboardInterrupt).
        crate::interrupt::interruptible(py, |_| match &pool {
            Some(pool) => pool.install(|| blocks.par_iter().map_init(|| Tagger::new(model, decode), one).collect()),
            None => {
                let mut t = Tagger::new(model, decode);
                blocks.iter().map(|b| one(&mut t, b)).collect()
            }
        })?
    }

    /// K-fold tagging (jackknifing) of `sentences`, as `tabula train
    /// --tagger TAGGER --jackknife K` tags its training file: each of `k`
    /// contiguous folds is tagged by a tagger trained with this tagger's
    /// settings on the other K − 1 folds, so that a parser trains on tags as
    /// good as those it will see. New sentences, in order (UPOS, and FEATS
    /// for a tagger with FEATS, replaced). O(K × training).
    ///
    /// >>> tagger = Tagger.train(SAMPLE, epochs=2, bits=12)
    /// >>> [len(s) for s in tagger.jackknife(read_conllu(SAMPLE), 3)] == [len(s) for s in read_conllu(SAMPLE)]
    /// True
    fn jackknife<'py>(&self, py: Python<'py>, sentences: &Bound<'py, PyAny>, k: usize) -> PyResult<Vec<Sentence>> {
        let sentences = sentences_of(sentences, "sentences")?;
        let blocks: Vec<RawSentence> = sentences.iter().map(|s| s.get().raw().clone()).collect();
        let file: Arc<str> = sentences.first().map_or_else(|| Arc::from("<sentences>"), |s| Arc::clone(&s.get().file));
        let options = &self.model.options;
        let tagged =
            crate::interrupt::interruptible(py, |_| train::jackknife(&blocks, &file, k, options, &mut |_, _| {}))?
                .map_err(tagger_error)?;
        tagged.into_iter().map(|raw| Sentence::from_block(raw, &file).map_err(value_error)).collect()
    }

    /// The accuracy of the tagger on `gold` (a CoNLL-U file or a list of
    /// Sentences with gold UPOS, and FEATS for a tagger with FEATS), as
    /// `tabula tag --eval` prints it: a dict with `words`, `upos` and
    /// `feats` (percent; `feats` is `None` for a tagger without FEATS; FEATS
    /// compared as sets of pairs). `decode`: as in `tag`.
    ///
    /// >>> tagger = Tagger.train(SAMPLE, epochs=2, bits=12)
    /// >>> tagger.accuracy(SAMPLE)["words"]
    /// 41
    #[pyo3(signature = (gold, *, decode = None, threads = 1))]
    fn accuracy<'py>(
        &self,
        py: Python<'py>,
        gold: &Bound<'py, PyAny>,
        decode: Option<&str>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let decode = decode.map(decoding).transpose()?.unwrap_or(self.model.options.decode);
        self.model.check_decode(decode, OptionStyle::Python).map_err(tagger_error)?;
        let (data, _) = tagged_data(py, gold, "gold")?;
        let pool = pool(Some(threads))?.expect("a pool for Some");
        let model = &*self.model;
        let a = py.detach(|| pool.install(|| train::accuracy(model, decode, &data)));
        accuracy_dict(py, &a, model.feats.is_some())
    }

    /// The bytes of the tagger file (what `save` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.model.to_bytes())
    }

    /// A tagger from the bytes of a tagger file (`ValueError` if they are
    /// not one, as `load`).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyTagger> {
        let model = py.detach(|| TaggerModel::from_bytes(data)).map_err(tagger_error)?;
        Ok(PyTagger { model: Arc::new(model), epoch: None, history: Vec::new() })
    }

    /// Pickling: the tagger file's bytes (`epoch` and `history` are not kept).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        Ok((py.get_type::<PyTagger>().getattr("from_bytes")?, (self.to_bytes(py),)))
    }

    /// The UPOS tags the tagger assigns, sorted.
    #[getter]
    fn tags(&self) -> Vec<String> {
        self.model.tags.clone()
    }
    /// Whether it also predicts FEATS.
    #[getter]
    fn feats(&self) -> bool {
        self.model.feats.is_some()
    }
    /// The decoding it was trained with, the default of `tag`.
    #[getter]
    fn decode(&self) -> &'static str {
        self.model.options.decode.name()
    }
    /// 1, or 2 with a second pass.
    #[getter]
    fn passes(&self) -> u32 {
        if self.model.options.second_pass.is_some() {
            2
        } else {
            1
        }
    }
    /// The words of its tag dictionary (tagged without scoring).
    #[getter]
    fn dictionary_words(&self) -> usize {
        self.model.dictionary.len()
    }
    /// The epoch whose tagger was kept (first pass), if trained here.
    #[getter]
    fn epoch(&self) -> Option<usize> {
        self.epoch
    }
    /// One dict per epoch of each pass, if trained here: `pass`, `epoch`,
    /// `errors` and `words` (training words wrongly tagged before the
    /// update, and all), `dev` (the dev accuracy, as `accuracy` gives it,
    /// or `None`), `best` (the best so far) and `backward` (the epochs of
    /// the right-to-left table of `direction="both"`, trained after the
    /// left-to-right one).
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let feats = self.model.feats.is_some();
        let items = self
            .history
            .iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("pass", r.pass)?;
                d.set_item("epoch", r.epoch)?;
                d.set_item("errors", r.errors)?;
                d.set_item("words", r.words)?;
                d.set_item("dev", r.dev.as_ref().map(|a| accuracy_dict(py, a, feats)).transpose()?)?;
                d.set_item("best", r.best)?;
                d.set_item("backward", r.backward)?;
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    fn __repr__(&self) -> String {
        format!(
            "Tagger(tags={}, feats={}, decode=\"{}\", passes={})",
            self.model.tags.len(),
            py_bool(self.model.feats.is_some()),
            self.model.options.decode.name(),
            self.passes()
        )
    }
}
