//! [`PyOracleBatch`]: the oracle of a minibatch, made for a neural parser's
//! training loop. One object follows B computations at once (one per
//! sentence, each an [`OracleSession`]); every query answers for the whole
//! batch as one NumPy array, computed with the GIL released, and `apply`
//! takes one step per sentence. No Python loop over sentences, and no
//! allocation per step once warm: the sessions' oracles keep their buffers,
//! `reset` starts the next batch in them, and every query can write into an
//! array given as `out`.
//!
//! The answers are the sessions' (the same numbers as `Session.scores` step
//! for step: `python/tests/test_batch.py` checks it on random batches of
//! every system and algorithm).

use crate::convert::{self, value_error};
use crate::oracle::{columns, session_algorithm, settings, step_names, Live};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tabula::oracle::attardi::tabular::DEFAULT_MAX_GAMMA;
use tabula::oracle::features::{fill_positions, POSITIONS};
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, OracleError, Step, StepScores, Strategy, System};
use tabula::parser::train::arc_standard_static;
use tabula::tree::DepTree;

/// One sentence of the batch.
struct Item {
    /// The session (with its oracle).
    live: Live,
    /// Gold label of each word 1 … n at `labels[d]` (−1: none given).
    labels: Vec<i64>,
    /// The label given with the arc each word received last (−1: none).
    given: Vec<i64>,
    /// Left out after an oracle error (`abandon=True`).
    abandoned: bool,
    /// The gold tree (arc-standard's static step reads it).
    gold: DepTree,
    /// Arc-standard's static step: gold children of each word not yet attached.
    missing: Vec<u32>,
}

impl Item {
    fn config(&self) -> &Configuration {
        self.live.borrow_session().configuration()
    }
    fn is_done(&self) -> bool {
        self.abandoned || self.config().is_final()
    }
    fn scores(&mut self) -> Result<StepScores, OracleError> {
        self.live.with_session_mut(|s| s.scores())
    }
    /// The scores of the optimal steps only (cheaper for Attardi).
    fn optimal(&mut self) -> Result<StepScores, OracleError> {
        self.live.with_session_mut(|s| s.optimal())
    }
    /// The static oracle's step. Arc-standard, which has none in the
    /// oracle layer: the canonical step of `tabula train`
    /// ([`arc_standard_static`]), for a complete projective gold tree.
    fn static_step(&mut self) -> Result<Step, OracleError> {
        let Item { live, gold, missing, .. } = self;
        if live.borrow_session().configuration().system() != System::ArcStandard {
            return live.with_session_mut(|s| s.static_step());
        }
        let c = live.borrow_session().configuration();
        if gold.is_partial() || !gold.is_projective() {
            return Err(OracleError::NonProjectiveGold(Algorithm::Linear));
        }
        if c.is_final() {
            return Err(OracleError::Final);
        }
        missing.clear();
        missing.resize(gold.len() + 1, 0);
        for d in 1..=gold.len() {
            if c.head(d) != Some(gold.head(d)) {
                missing[gold.head(d)] += 1;
            }
        }
        Ok(arc_standard_static(c, gold, missing))
    }
}

/// The oracle of a minibatch of B sentences, for a neural parser's training
/// loop: each query is one array over the batch.
///
/// `golds`: B gold trees (heads of words 1 … n, 0 the root, `None` for a
/// word without a gold head in a partial tree; or `Tree` / `Sentence`
/// objects). `labels`: optionally, B integer arrays, the gold
/// label id of each word 1 … n (−1: none), answered by `gold_labels`.
/// `system`, `strategy` and `algorithm` as for `Session` (`auto`: linear
/// for a projective gold tree where the system has it, else the system's
/// exact algorithm). `abandon=True`: a sentence at which the oracle refuses
/// a configuration (Attardi's table past `max_gamma`, an LR-spine spine
/// past the columns) is marked `abandoned` and finished instead of raising.
/// `max_gamma` (Attardi only): the limit of its table on the stack and the
/// reduced buffer (default 48), as `tabula train --max-gamma`. `max_pairs`
/// (Attardi only): the budget of one call of its table, in pairs of items
/// combined (default none; about 10–20 ns a pair): past it the call stops
/// with `ValueError`, or, with `abandon=True`, the sentence is abandoned.
#[pyclass(module = "tabula_parsing", name = "OracleBatch")]
pub struct PyOracleBatch {
    system: System,
    strategy: Strategy,
    algorithm: Algorithm,
    columns: &'static [Step],
    items: Vec<Item>,
    /// Whether the batch was made without gold trees (`without_gold`).
    gold: bool,
    abandon: bool,
    /// The limit of Attardi's table (its oracles are pooled, so every
    /// oracle taken is given it).
    max_gamma: usize,
    /// The budget of one call of Attardi's table (given likewise).
    max_pairs: Option<u64>,
    /// Oracles of sentences dropped by a smaller `reset`, for the next one.
    spare: Vec<Live>,
    /// `optimal`'s scores, reused.
    scratch: Vec<i64>,
}

/// A 2-D output: `out` (checked for its type and shape) or a new array.
fn output_2d<'py, T: numpy::Element>(
    py: Python<'py>,
    out: Option<Bound<'py, PyAny>>,
    rows: usize,
    width: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let Some(out) = out else { return Ok(PyArray2::zeros(py, [rows, width], false)) };
    // The message is made only on an error: a warm loop's `out=` allocates nothing.
    let fail = |out: &Bound<'py, PyAny>| {
        let wanted = format!("a writeable C-contiguous {} array of shape ({rows}, {width})", T::get_dtype(py));
        format!("`out` must be {wanted}, found {}", describe(out))
    };
    match out.cast::<PyArray2<T>>() {
        Ok(a) if a.shape() == [rows, width] && a.is_c_contiguous() && writeable(a.as_any()) => Ok(a.clone()),
        Ok(_) => Err(PyValueError::new_err(fail(&out))),
        Err(_) => Err(PyTypeError::new_err(fail(&out))),
    }
}

/// A 1-D output of `len` int64 values: `out` (checked) or a new array.
fn output_1d<'py>(py: Python<'py>, out: Option<Bound<'py, PyAny>>, len: usize) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let Some(out) = out else { return Ok(PyArray1::zeros(py, len, false)) };
    let fail = |out: &Bound<'py, PyAny>| {
        format!("`out` must be a writeable contiguous int64 array of length {len}, found {}", describe(out))
    };
    match out.cast::<PyArray1<i64>>() {
        Ok(a) if a.len() == len && a.is_contiguous() && writeable(a.as_any()) => Ok(a.clone()),
        Ok(_) => Err(PyValueError::new_err(fail(&out))),
        Err(_) => Err(PyTypeError::new_err(fail(&out))),
    }
}

/// What a value is, for messages: an array's dtype and shape, else its type.
fn describe(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<PyUntypedArray>() {
        Ok(a) => {
            let dims: Vec<String> = a.shape().iter().map(usize::to_string).collect();
            let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
            let layout = if a.is_c_contiguous() { "" } else { ", not C-contiguous" };
            let access = if writeable(a.as_any()) { "" } else { ", read-only" };
            format!("an array of {}, shape {shape}{layout}{access}", a.dtype())
        }
        Err(_) => obj.get_type().name().map_or_else(|_| "another type".into(), |n| format!("a {n}")),
    }
}

/// One integer per sentence as an int64 array: an int64 array as it is (no
/// copy), any other integer array or sequence (a list, an int32 array, a
/// CPU tensor) converted; floats, booleans or another shape refused.
fn int64_vector<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if let Ok(a) = obj.cast::<PyArray1<i64>>() {
        if a.is_contiguous() {
            return Ok(a.clone());
        }
    }
    let numpy = obj.py().import("numpy")?;
    let a = numpy.call_method1("asarray", (obj,))?;
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    let (ndim, size): (usize, usize) = (a.getattr("ndim")?.extract()?, a.getattr("size")?.extract()?);
    if ndim != 1 || !(kind == "i" || kind == "u" || size == 0) {
        return Err(PyTypeError::new_err(format!(
            "`{what}` must be a 1-D array of integers, one per sentence, found {}",
            describe(&a)
        )));
    }
    if kind == "u" && size > 0 {
        // Unsigned values past int64 would wrap to negative ones (−1: no step).
        let largest: u64 = a.call_method0("max")?.extract()?;
        if largest > i64::MAX as u64 {
            return Err(PyValueError::new_err(format!("`{what}` holds {largest}, beyond the int64 range")));
        }
    }
    let a = numpy.call_method1("ascontiguousarray", (a, "int64"))?;
    Ok(a.cast_into::<PyArray1<i64>>()?)
}

/// Whether a NumPy array may be written (`out=` of a read-only view is an
/// error, not a panic).
fn writeable(a: &Bound<'_, PyAny>) -> bool {
    a.getattr("flags").and_then(|f| f.getattr("writeable")).and_then(|w| w.extract()).unwrap_or(false)
}

/// The label ids of one sentence of n words, at 1 … n (slot 0 unused).
fn read_labels(obj: &Bound<'_, PyAny>, n: usize, i: usize) -> PyResult<Vec<i64>> {
    let raw: Vec<i64> =
        obj.extract().map_err(|_| PyValueError::new_err(format!("labels[{i}]: expected a sequence of integers")))?;
    if raw.len() != n {
        return Err(PyValueError::new_err(format!("labels[{i}]: {} labels for a sentence of {n} words", raw.len())));
    }
    if let Some(&x) = raw.iter().find(|&&x| x < -1) {
        return Err(PyValueError::new_err(format!("labels[{i}]: label ids are ≥ 0 (or −1 for none), found {x}")));
    }
    Ok(std::iter::once(-1).chain(raw).collect())
}

impl PyOracleBatch {
    /// Starts the sessions of a new batch, reusing the oracles of the old.
    fn start(&mut self, trees: Vec<DepTree>, labels: Vec<Vec<i64>>) -> PyResult<()> {
        let (system, strategy, algorithm) = (self.system, self.strategy, self.algorithm);
        self.spare.extend(self.items.drain(..).map(|item| item.live));
        for (i, (tree, labels)) in trees.into_iter().zip(labels).enumerate() {
            let n = tree.len();
            let mut oracle = match self.spare.pop() {
                Some(live) => live.into_heads().oracle,
                None => crate::oracle::pooled_oracle(),
            };
            oracle.attardi_mut().set_max_gamma(self.max_gamma);
            oracle.attardi_mut().set_max_pairs(self.max_pairs);
            let config = Configuration::initial(system, n);
            let gold = tree.clone();
            let live = Live::try_new(oracle, |o| OracleSession::at(o, tree, config, strategy, algorithm))
                .map_err(|e| value_error(format!("sentence {i}: {e}")))?;
            self.items.push(Item { live, labels, given: vec![-1; n + 1], abandoned: false, gold, missing: Vec::new() });
        }
        Ok(())
    }

    /// A B × `width` array (`out`, or a new one) whose row i `fill` writes
    /// from sentence i.
    fn table<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
        width: usize,
        fill: impl Fn(&Item, &mut [T]),
    ) -> PyResult<Bound<'py, PyArray2<T>>> {
        let out = output_2d(py, out, self.items.len(), width)?;
        {
            let mut rw = out.readwrite();
            let data = rw.as_slice_mut().map_err(|_| PyValueError::new_err("`out` must be C-contiguous"))?;
            for (item, row) in self.items.iter().zip(data.chunks_mut(width.max(1))) {
                fill(item, row);
            }
        }
        Ok(out)
    }

    /// A B × steps table of `value(item, head, dependent)` for the arc each
    /// step would build; −1 where none (or the sentence is finished).
    fn arc_table<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
        value: impl Fn(&Item, usize, usize) -> i64,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        self.table(py, out, self.columns.len(), |item, row| {
            let done = item.is_done();
            let c = item.config();
            for (cell, &s) in row.iter_mut().zip(self.columns) {
                *cell = match c.arc(s) {
                    Some((h, d)) if !done => value(item, h, d),
                    _ => -1,
                };
            }
        })
    }

    /// The scores of every sentence into `data` (B × steps, −1 where none);
    /// with `only_optimal`, those of the optimal steps alone.
    fn fill_scores(&mut self, py: Python<'_>, data: &mut [i64], only_optimal: bool) -> PyResult<()> {
        self.check_gold()?;
        let columns = self.columns;
        self.each_row(py, data, columns.len(), -1, |item, row| {
            let s = if only_optimal { item.optimal()? } else { item.scores()? };
            for (cell, &step) in row.iter_mut().zip(columns) {
                *cell = s.get(step).map_or(-1, i64::from);
            }
            Ok(())
        })
    }

    fn check_gold(&self) -> PyResult<()> {
        if !self.gold {
            return Err(PyValueError::new_err("this batch was made without gold trees (OracleBatch.without_gold)"));
        }
        Ok(())
    }

    /// Runs `f` on every unfinished sentence with its row of `out` (width
    /// `width`), one after the other; the first error is raised (or,
    /// with `abandon`, the sentence abandoned and its row left as `fill`).
    fn each_row(
        &mut self,
        py: Python<'_>,
        out: &mut [i64],
        width: usize,
        fill: i64,
        f: impl Fn(&mut Item, &mut [i64]) -> Result<(), OracleError> + Sync,
    ) -> PyResult<()> {
        let abandon = self.abandon;
        let run = |(item, row): (&mut Item, &mut [i64])| -> Option<OracleError> {
            row.fill(fill);
            if item.is_done() {
                return None;
            }
            match f(item, row) {
                Ok(()) => None,
                Err(_) if abandon => {
                    item.abandoned = true;
                    row.fill(fill);
                    None
                }
                Err(e) => Some(e),
            }
        };
        let items = &mut self.items;
        let width = width.max(1);
        // On this thread, the lock released, Ctrl-C honoured between
        // sentences: a step of a batch takes microseconds (closed forms) to
        // milliseconds (tables), and a thread woken per call would wait for
        // a core on a busy machine. A query leaves the batch as it was; an
        // interrupted call answers nothing.
        let (errors, signals): (Vec<(usize, OracleError)>, _) = py.detach(|| {
            let mut signals = crate::interrupt::Signals::new();
            let pairs = items.iter_mut().zip(out.chunks_mut(width));
            let errors = pairs
                .map_while(|pair| (!signals.interrupted()).then(|| run(pair)))
                .enumerate()
                .filter_map(|(i, e)| e.map(|e| (i, e)))
                .collect();
            (errors, signals)
        });
        signals.result()?;
        match errors.into_iter().next() {
            Some((i, e)) => Err(value_error(format!("sentence {i}: {e}"))),
            None => Ok(()),
        }
    }
}

impl Drop for PyOracleBatch {
    fn drop(&mut self) {
        for live in self.items.drain(..).map(|item| item.live).chain(self.spare.drain(..)) {
            crate::oracle::return_oracle(live.into_heads().oracle);
        }
    }
}

#[pymethods]
impl PyOracleBatch {
    #[new]
    #[pyo3(signature = (golds, system = "arc-standard", strategy = None, algorithm = "auto", labels = None, abandon = false, max_gamma = None, max_pairs = None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords
    fn new(
        golds: Vec<Bound<'_, PyAny>>,
        system: &str,
        strategy: Option<&str>,
        algorithm: &str,
        labels: Option<Vec<Bound<'_, PyAny>>>,
        abandon: bool,
        max_gamma: Option<usize>,
        max_pairs: Option<u64>,
    ) -> PyResult<Self> {
        let (system, strategy, algorithm) = settings(system, strategy, algorithm)?;
        for (name, given) in [("max_gamma", max_gamma.is_some()), ("max_pairs", max_pairs.is_some())] {
            if given && system != System::Attardi {
                return Err(value_error(format!(
                    "{name} applies to system attardi only (its tabular oracle), not {system}"
                )));
            }
        }
        if max_pairs == Some(0) {
            return Err(value_error("max_pairs must be at least 1 (None: no budget)"));
        }
        let algorithm = session_algorithm(system, algorithm);
        let mut batch = PyOracleBatch {
            system,
            strategy,
            algorithm,
            columns: columns(system),
            items: Vec::new(),
            gold: true,
            abandon,
            max_gamma: max_gamma.unwrap_or(DEFAULT_MAX_GAMMA),
            max_pairs,
            spare: Vec::new(),
            scratch: Vec::new(),
        };
        batch.reset(golds, labels)?;
        Ok(batch)
    }

    /// A batch for parsing: B sentences of the given lengths and no gold
    /// trees. `positions`, `applicable`, `apply`, `heads` and `labels`
    /// work; the oracle's queries (`scores`, `optimal`, `static_steps`,
    /// `gold_labels`) raise `ValueError`.
    #[staticmethod]
    #[pyo3(signature = (lengths, system = "arc-standard"))]
    fn without_gold(lengths: Vec<i64>, system: &str) -> PyResult<Self> {
        let system: System = system.parse().map_err(value_error)?;
        // Any tree serves: its answers are never given. The flat tree is
        // projective, so a closed-form system's session is O(1) per step.
        let (strategy, algorithm) = match system {
            System::LrSpine | System::Attardi | System::ArcEagerNm => {
                (Strategy::None, session_algorithm(system, Algorithm::Auto))
            }
            _ => (Strategy::Lbr, Algorithm::Linear),
        };
        let mut batch = PyOracleBatch {
            system,
            strategy,
            algorithm,
            columns: columns(system),
            items: Vec::new(),
            gold: false,
            abandon: false,
            max_gamma: DEFAULT_MAX_GAMMA,
            max_pairs: None,
            spare: Vec::new(),
            scratch: Vec::new(),
        };
        batch.reset_lengths(lengths)?;
        Ok(batch)
    }

    /// Starts a new batch of gold trees (and labels) in this object,
    /// reusing its oracles' buffers: the loop's way to allocate nothing
    /// once warm.
    #[pyo3(signature = (golds, labels = None))]
    fn reset(&mut self, golds: Vec<Bound<'_, PyAny>>, labels: Option<Vec<Bound<'_, PyAny>>>) -> PyResult<()> {
        self.check_gold()?;
        if let Some(l) = &labels {
            if l.len() != golds.len() {
                return Err(PyValueError::new_err(format!("{} gold trees but {} label arrays", golds.len(), l.len())));
            }
        }
        let mut trees = Vec::with_capacity(golds.len());
        let mut all_labels = Vec::with_capacity(golds.len());
        for (i, g) in golds.iter().enumerate() {
            let tree = convert::tree(g, "gold")
                .map(std::borrow::Cow::into_owned)
                .map_err(|e| crate::tree::index_error(e, "gold", i))?;
            let n = tree.len();
            all_labels.push(match &labels {
                Some(l) => read_labels(&l[i], n, i)?,
                None => vec![-1; n + 1],
            });
            trees.push(tree);
        }
        self.start(trees, all_labels)
    }

    /// `reset` of a batch made by `without_gold`: new sentence lengths.
    fn reset_lengths(&mut self, lengths: Vec<i64>) -> PyResult<()> {
        if self.gold {
            return Err(PyValueError::new_err("reset_lengths is for batches made by OracleBatch.without_gold"));
        }
        let lengths = lengths
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                usize::try_from(n).map_err(|_| PyValueError::new_err(format!("lengths[{i}]: a length of {n} words")))
            })
            .collect::<PyResult<Vec<usize>>>()?;
        let mut trees = Vec::with_capacity(lengths.len());
        for &n in &lengths {
            crate::oracle::check_length(n)?;
            trees.push(DepTree::from_heads(&vec![0; n]).map_err(value_error)?);
        }
        let labels = lengths.iter().map(|&n| vec![-1; n + 1]).collect();
        self.start(trees, labels)
    }

    /// The step names: the columns of `scores`, `optimal`, `applicable`
    /// and `gold_labels`, and the values `apply` takes (as column indices).
    #[getter]
    fn steps(&self) -> Vec<&'static str> {
        step_names(self.system)
    }
    /// The names of the columns of `positions`.
    #[classattr]
    #[allow(non_snake_case)]
    fn POSITIONS() -> Vec<&'static str> {
        POSITIONS.to_vec()
    }
    /// The system's name.
    #[getter]
    fn system(&self) -> &'static str {
        self.system.name()
    }
    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.strategy.name()
    }
    /// The algorithm asked for (`auto` is resolved per sentence).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm.name()
    }
    /// The number of sentences B.
    fn __len__(&self) -> usize {
        self.items.len()
    }
    /// The sentence lengths (int64, B).
    #[getter]
    fn lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(py, self.items.iter().map(|item| item.config().sentence_len() as i64))
    }
    /// Which sentences are finished (bool, B): a final configuration, or
    /// abandoned.
    #[getter]
    fn finished<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_iter(py, self.items.iter().map(Item::is_done))
    }
    /// Which sentences were abandoned after an oracle error (bool, B;
    /// only with `abandon=True`).
    #[getter]
    fn abandoned<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_iter(py, self.items.iter().map(|item| item.abandoned))
    }
    /// Whether every sentence is finished.
    #[getter]
    fn done(&self) -> bool {
        self.items.iter().all(Item::is_done)
    }

    /// The oracle's score of every step for every sentence (int64, B ×
    /// steps): the most gold arcs still reachable after the step, −1 where
    /// the step does not apply or the sentence is finished. Equal to
    /// `Session.scores` at the same configuration.
    #[pyo3(signature = (out = None))]
    fn scores<'py>(&mut self, py: Python<'py>, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let out = output_2d(py, out, self.items.len(), self.columns.len())?;
        {
            let mut rw = out.readwrite();
            let data = rw.as_slice_mut().map_err(|_| PyValueError::new_err("`out` must be C-contiguous"))?;
            self.fill_scores(py, data, false)?;
        }
        Ok(out)
    }

    /// The optimal steps (bool, B × steps): those with the best score of
    /// their row (none in a finished sentence's row).
    #[pyo3(signature = (out = None))]
    fn optimal<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let width = self.columns.len();
        let out = output_2d(py, out, self.items.len(), width)?;
        let mut scores = std::mem::take(&mut self.scratch);
        scores.resize(self.items.len() * width, 0);
        let filled = self.fill_scores(py, &mut scores, true);
        {
            let mut rw = out.readwrite();
            let data = rw.as_slice_mut().map_err(|_| PyValueError::new_err("`out` must be C-contiguous"))?;
            for (row, cells) in scores.chunks(width.max(1)).zip(data.chunks_mut(width.max(1))) {
                let best = row.iter().copied().max().unwrap_or(-1);
                for (cell, &v) in cells.iter_mut().zip(row) {
                    *cell = v >= 0 && v == best;
                }
            }
        }
        self.scratch = scores;
        filled?;
        Ok(out)
    }

    /// The static oracle's step for every sentence, as a column index of
    /// `steps` (int64, B; −1 for a finished sentence): the step of the
    /// canonical computation of the gold tree, as `tabula train --oracle
    /// static` follows it (complete gold trees; arc-standard, arc-hybrid,
    /// arc-eager: projective ones).
    #[pyo3(signature = (out = None))]
    fn static_steps<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.check_gold()?;
        let columns = self.columns;
        let b = self.items.len();
        let out = output_1d(py, out, b)?;
        {
            let mut rw = out.readwrite();
            let data = rw.as_slice_mut().map_err(|_| PyValueError::new_err("`out` must be contiguous"))?;
            self.each_row(py, data, 1, -1, |item, cell| {
                let step = item.static_step()?;
                cell[0] = columns.iter().position(|&s| s == step).map_or(-1, |i| i as i64);
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Which steps apply (bool, B × steps; none in a finished sentence's row).
    #[pyo3(signature = (out = None))]
    fn applicable<'py>(&self, py: Python<'py>, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        self.table(py, out, self.columns.len(), |item, row| {
            let done = item.is_done();
            let c = item.config();
            for (cell, &s) in row.iter_mut().zip(self.columns) {
                *cell = !done && c.is_applicable(s);
            }
        })
    }

    /// The word positions a feature extractor gathers (int64, B × 11, the
    /// columns of `POSITIONS`): s0, s1, s2 (the stack's top three), b0, b1
    /// (the first two input words), then the leftmost child left of the
    /// word and the rightmost child right of it, for s0, s1 and b0. 0 is
    /// the root, −1 where there is no such word.
    #[pyo3(signature = (out = None))]
    fn positions<'py>(&self, py: Python<'py>, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        self.table(py, out, POSITIONS.len(), |item, row| fill_positions(item.config(), row))
    }

    /// The gold label of the dependent of the arc each step would build
    /// (int64, B × steps): −1 where the step builds no arc, does not
    /// apply, the word has no gold label, or the sentence is finished.
    #[pyo3(signature = (out = None))]
    fn gold_labels<'py>(&self, py: Python<'py>, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        self.check_gold()?;
        self.arc_table(py, out, |item, _, d| item.labels[d])
    }

    /// The head of the arc each step would build (int64, B × steps): −1
    /// where the step builds none, does not apply, or the sentence is
    /// finished (0 is the root). A parser's labeller reads it to give
    /// `root` exactly to the arcs from the root.
    #[pyo3(signature = (out = None))]
    fn arc_heads<'py>(&self, py: Python<'py>, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        self.arc_table(py, out, |_, h, _| h as i64)
    }

    /// Takes one step in each sentence: `steps[i]` a column index of
    /// `steps` (−1: no step for that sentence, e.g. a finished one), right
    /// or wrong (exploration). `labels[i]` (optional) is the label id given
    /// to the arc the step builds (see `labels()`). Every step is checked
    /// before any is taken: on a `ValueError` nothing changed. A step given
    /// to a sentence abandoned by the last query (`abandon=True`) is
    /// ignored, so that a loop may apply the steps it chose before it saw
    /// `abandoned`.
    #[pyo3(signature = (steps, labels = None))]
    fn apply(&mut self, steps: &Bound<'_, PyAny>, labels: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let steps = int64_vector(steps, "steps")?;
        let steps = steps.readonly();
        let steps = steps.as_slice()?;
        let labels = labels.map(|l| int64_vector(l, "labels")).transpose()?;
        let labels = labels.as_ref().map(|l| l.readonly());
        let b = self.items.len();
        if steps.len() != b {
            return Err(PyValueError::new_err(format!("{} steps for a batch of {b} sentences", steps.len())));
        }
        let labels = labels.as_ref().map(|l| l.as_slice()).transpose()?;
        if let Some((i, &x)) = labels.and_then(|l| l.iter().enumerate().find(|&(_, &x)| x < -1)) {
            return Err(PyValueError::new_err(format!("labels[{i}]: label ids are ≥ 0 (or −1 for none), found {x}")));
        }
        if let Some(l) = labels {
            if l.len() != b {
                return Err(PyValueError::new_err(format!("{} labels for a batch of {b} sentences", l.len())));
            }
        }
        for (i, (&k, item)) in steps.iter().zip(&self.items).enumerate() {
            if k == -1 {
                continue;
            }
            let step = usize::try_from(k).ok().and_then(|k| self.columns.get(k)).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "sentence {i}: step {k} is not a column of steps (0 … {})",
                    self.columns.len() - 1
                ))
            })?;
            if item.abandoned {
                continue;
            }
            if item.is_done() {
                return Err(PyValueError::new_err(format!("sentence {i}: the sentence is finished (give -1)")));
            }
            if !item.config().is_applicable(*step) {
                return Err(value_error(format!("sentence {i}: {}", OracleError::NotApplicable(*step, self.system))));
            }
        }
        for (i, (&k, item)) in steps.iter().zip(&mut self.items).enumerate() {
            if k == -1 || item.abandoned {
                continue;
            }
            let step = self.columns[k as usize];
            let arc =
                item.live.with_session_mut(|s| s.apply(step)).map_err(|e| value_error(format!("sentence {i}: {e}")))?;
            if let (Some((_, d)), Some(l)) = (arc, labels) {
                item.given[d] = l[i];
            }
        }
        Ok(())
    }

    /// The heads built so far (a list of B int64 arrays, words 1 … n; 0 the
    /// root, −1 where a word has no head yet).
    fn heads<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyArray1<i64>>> {
        self.items
            .iter()
            .map(|item| {
                let c = item.config();
                PyArray1::from_iter(py, (1..=c.sentence_len()).map(|d| c.head(d).map_or(-1, |h| h as i64)))
            })
            .collect()
    }

    /// The labels given with the arcs (a list of B int64 arrays, words
    /// 1 … n; −1 where none was given).
    fn labels<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyArray1<i64>>> {
        self.items.iter().map(|item| PyArray1::from_slice(py, &item.given[1..])).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "OracleBatch({} sentences, system='{}', strategy='{}', algorithm='{}'{})",
            self.items.len(),
            self.system,
            self.strategy,
            self.algorithm,
            if self.gold { "" } else { ", without gold" }
        )
    }
}
