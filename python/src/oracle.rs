//! Optimal steps ("dynamic oracles") from Python: [`PyConfiguration`],
//! [`PyOracle`] (one-shot calls, Nederhof 2019, Sec. 4–6, and the grammar
//! oracles of arc-hybrid and arc-eager), [`PySession`] (the incremental
//! engine of Sec. 7 following one computation) and the batch calls.
//!
//! Systems, strategies and algorithms are chosen by name through the
//! library's `FromStr` impls, so every system the library registers is
//! reachable, with the library's own checks ([`Oracle::check_support`]).
//!
//! # Ownership
//!
//! A library [`OracleSession`] borrows an [`Oracle`] mutably (the oracle holds
//! the incremental engine's buffers). A Python session must own both: the
//! pair lives in a self-referencing cell ([`Live`], built with `ouroboros`,
//! no `unsafe` here). When a session is dropped its oracle goes back to a
//! small process-wide pool, so that the next session reuses its warm
//! buffers instead of building an oracle.

use crate::convert::{self, value_error};
use crate::tree::{index_error, Tree};
use numpy::{PyArray1, PyArrayMethods};
use ouroboros::self_referencing;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Mutex;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy, System};
use tabula::tree::DepTree;

/// The settings of an oracle, parsed by the library and checked for the
/// system. No strategy: the system's default, [`default_strategy`].
pub(crate) fn settings(
    system: &str,
    strategy: Option<&str>,
    algorithm: &str,
) -> PyResult<(System, Strategy, Algorithm)> {
    let system: System = system.parse().map_err(value_error)?;
    let strategy: Strategy = match strategy {
        Some(s) => s.parse().map_err(value_error)?,
        None => default_strategy(system),
    };
    let algorithm: Algorithm = algorithm.parse().map_err(value_error)?;
    Oracle::check_support(system, strategy, algorithm).map_err(value_error)?;
    Ok((system, strategy, algorithm))
}

/// The strategy used when none is given: `none` for the systems whose
/// oracles score every computation (LR-spine, Attardi), else `lbr` (as
/// `tabula train`).
fn default_strategy(system: System) -> Strategy {
    match system {
        System::LrSpine | System::Attardi | System::ArcEagerNm => Strategy::None,
        _ => Strategy::Lbr,
    }
}

/// The step named `name`, which must be a step of `system`.
fn step(system: System, name: &str) -> Result<Step, OracleError> {
    system.parse_step(name).ok_or_else(|| OracleError::UnknownStep {
        step: name.to_owned(),
        system,
        expected: system.steps().iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
    })
}

pub(crate) use tabula::oracle::features::step_columns as columns;

/// The names of `system`'s steps, in the order of [`columns`].
pub(crate) fn step_names(system: System) -> Vec<&'static str> {
    columns(system).iter().map(|s| s.name()).collect()
}

/// `{step: score or None}` for every step of `system`, in the system's order
/// (the command line's `steps`).
fn scores_dict<'py>(py: Python<'py>, system: System, scores: &StepScores) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for &s in system.steps() {
        d.set_item(PyString::intern(py, s.name()), scores.get(s))?;
    }
    // LR-spine: `left_arc_K` / `right_arc_K` for K ≥ 2 where scored.
    for (s, v) in scores.iter().filter(|(s, _)| s.spine().is_some() && !system.steps().contains(s)) {
        d.set_item(PyString::intern(py, s.name()), v)?;
    }
    Ok(d)
}

/// The optimal steps' names, in the system's order.
fn optimal_list<'py>(py: Python<'py>, scores: &StepScores) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, scores.optimal().into_iter().map(|s| PyString::intern(py, s.name())))
}

/// Writes one row of a batch answer: the score of each step of
/// [`columns`], −1 where none.
fn fill_row(row: &mut [i64], system: System, scores: &StepScores) {
    for (cell, &s) in row.iter_mut().zip(columns(system)) {
        *cell = scores.get(s).map_or(-1, i64::from);
    }
}

/// A 2-D int64 array of `rows` rows from row-major `data`.
fn matrix<'py>(py: Python<'py>, data: Vec<i64>, rows: usize, width: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, data).reshape([rows, width])?.into_any())
}

/// A configuration of a transition system (Nederhof 2019, Sec. 2): the stack
/// (starting with the root 0), the remaining input (a suffix of 1 … n) and
/// the arcs built so far. Mutable: `apply` takes a step.
#[pyclass(module = "tabula_parsing", name = "Configuration")]
#[derive(Clone)]
pub struct PyConfiguration {
    pub(crate) inner: Configuration,
}

/// The longest sentence a configuration may be made for from a bare length
/// (a guard against allocating for an absurd `n`; gold trees bound n otherwise).
const MAX_WORDS: usize = 1 << 24;

/// Refuses a sentence length above [`MAX_WORDS`].
pub(crate) fn check_length(n: usize) -> PyResult<()> {
    if n > MAX_WORDS {
        return Err(PyValueError::new_err(format!("a sentence of {n} words is too long (at most {MAX_WORDS})")));
    }
    Ok(())
}

/// Builds a checked configuration, as the command line does for a JSON line
/// (`unshifted`: arc-eager-nm's word moved back onto the empty input).
fn configuration(
    system: System,
    stack: &[usize],
    buffer: &[usize],
    n: usize,
    arcs: Option<&[(usize, usize)]>,
    unshifted: Option<usize>,
) -> PyResult<Configuration> {
    match (unshifted, arcs) {
        (Some(_), _) if !buffer.is_empty() => {
            Err(PyValueError::new_err("`unshifted` is the whole remaining input: `buffer` must then be []"))
        }
        (Some(w), a) => Configuration::with_unshifted(system, stack, w, a.unwrap_or_default(), n).map_err(value_error),
        (None, None) => Configuration::new(system, stack, buffer, n).map_err(value_error),
        (None, Some(a)) => Configuration::with_arcs(system, stack, buffer, a, n).map_err(value_error),
    }
}

#[pymethods]
impl PyConfiguration {
    /// A configuration of `system` for a sentence of `n` words, checked:
    /// the stack starts with 0 and increases, the buffer is a suffix of
    /// 1 … n after it, and the arcs (if given) are consistent with the
    /// system. Arc-eager needs `arcs` for a stack of more than the root.
    /// Arc-eager-nm right after an unshift: `buffer` is `[]` and
    /// `unshifted` the word moved back onto the input.
    #[new]
    #[pyo3(signature = (stack, buffer, n, system = "arc-standard", arcs = None, unshifted = None))]
    fn new(
        stack: &Bound<'_, PyAny>,
        buffer: &Bound<'_, PyAny>,
        n: usize,
        system: &str,
        arcs: Option<&Bound<'_, PyAny>>,
        unshifted: Option<usize>,
    ) -> PyResult<Self> {
        let system: System = system.parse().map_err(value_error)?;
        check_length(n)?;
        let stack = convert::nodes(stack, "stack")?;
        let buffer = convert::nodes(buffer, "buffer")?;
        let arcs = arcs.map(convert::arcs).transpose()?;
        let inner = configuration(system, &stack, &buffer, n, arcs.as_deref(), unshifted)?;
        Ok(PyConfiguration { inner })
    }

    /// The initial configuration (0, 1 2 … n) of `system`.
    #[staticmethod]
    #[pyo3(signature = (n, system = "arc-standard"))]
    fn initial(n: usize, system: &str) -> PyResult<Self> {
        let system: System = system.parse().map_err(value_error)?;
        check_length(n)?;
        Ok(PyConfiguration { inner: Configuration::initial(system, n) })
    }

    /// The transition system's name.
    #[getter]
    fn system(&self) -> &'static str {
        self.inner.system().name()
    }
    /// The stack, bottom (the root 0) first.
    #[getter]
    fn stack(&self) -> Vec<usize> {
        self.inner.stack().to_vec()
    }
    /// The remaining input b₁ … b_m (after an unshift: `[]`, see `unshifted`).
    #[getter]
    fn buffer(&self) -> Vec<usize> {
        if self.inner.unshifted().is_some() {
            return Vec::new();
        }
        self.inner.buffer().collect()
    }
    /// Arc-eager-nm: the word an unshift moved back onto the empty input
    /// (then the whole remaining input, b₁), else `None`.
    #[getter]
    fn unshifted(&self) -> Option<usize> {
        self.inner.unshifted()
    }
    /// The sentence length n.
    #[getter]
    fn n(&self) -> usize {
        self.inner.sentence_len()
    }
    /// The arcs (head, dependent) built so far, by dependent (as far as known).
    #[getter]
    fn arcs(&self) -> Vec<(usize, usize)> {
        self.inner.arcs().collect()
    }
    /// Whether the computation has ended.
    #[getter]
    fn is_final(&self) -> bool {
        self.inner.is_final()
    }
    /// The head given to word `d` so far, if any.
    fn head(&self, d: usize) -> Option<usize> {
        self.inner.head(d)
    }
    /// The names of the applicable steps, in the system's order.
    fn applicable_steps(&self) -> Vec<&'static str> {
        self.inner.applicable_steps().map(|s| s.name()).collect()
    }
    /// Whether `step` applies (`ValueError` if it is not a step of the system).
    fn is_applicable(&self, step: &str) -> PyResult<bool> {
        Ok(self.inner.is_applicable(self::step(self.inner.system(), step).map_err(value_error)?))
    }
    /// Takes `step`; returns the arc (head, dependent) it builds, if any.
    /// `ValueError` if it does not apply. O(1).
    fn apply(&mut self, step: &str) -> PyResult<Option<(usize, usize)>> {
        let s = self::step(self.inner.system(), step).map_err(value_error)?;
        self.inner.apply(s).map_err(value_error)
    }
    /// A copy.
    fn copy(&self) -> Self {
        self.clone()
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyConfiguration>().is_ok_and(|o| o.borrow().inner == self.inner)
    }
    fn __repr__(&self) -> String {
        let unshifted = self.inner.unshifted().map_or(String::new(), |w| format!(", unshifted={w}"));
        format!(
            "Configuration(stack={:?}, buffer={:?}, n={}, system='{}', arcs={:?}{unshifted})",
            self.inner.stack(),
            self.buffer(),
            self.inner.sentence_len(),
            self.inner.system(),
            self.inner.arcs().collect::<Vec<_>>()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let c = slf.borrow();
        // The arcs, unless the configuration was made without them (words
        // that left the stack have no recorded head): then none, as it was made.
        let (stack, buffer, n, unshifted) = (c.stack(), c.buffer(), c.n(), c.unshifted());
        let system = c.inner.system();
        let arcs = Some(c.arcs()).filter(|a| configuration(system, &stack, &buffer, n, Some(a), unshifted).is_ok());
        let args = (stack, buffer, n, c.system(), arcs, unshifted).into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }
}

thread_local! {
    /// The oracle of each thread that answers batch calls.
    static BATCH_ORACLE: RefCell<Option<Oracle<'static>>> = const { RefCell::new(None) };
}

/// Optimal steps for configurations given one at a time (Nederhof 2019):
/// each applicable step is scored by the most gold arcs that computations
/// starting with it (and respecting the strategy, Sec. 2) can still build.
/// Arc-standard: `cubic` (Sec. 4, Table 4; any gold tree), `quadratic` and
/// `linear` (Sec. 5, 6; projective gold trees), `auto` (linear when the gold
/// tree is projective, else cubic). Arc-hybrid and arc-eager: `cubic`, the
/// grammar oracle (any gold tree), and `linear`, the closed forms
/// (projective gold trees); `auto` as above. Whatever algorithms the library
/// offers a system are reachable by name. Keeps its engines' buffers
/// between calls. Safe to share between threads: a call that finds the
/// oracle's buffers in use by another thread takes a pooled oracle instead
/// (the calls then run at the same time, the same answers).
#[pyclass(module = "tabula_parsing", name = "Oracle", frozen)]
pub struct PyOracle {
    oracle: Mutex<Oracle<'static>>,
    system: System,
    strategy: Strategy,
    algorithm: Algorithm,
}

impl PyOracle {
    /// The scores of a configuration for `gold`, checking its system. The
    /// linear algorithm answers with the GIL held (microseconds); the others
    /// (cubic, quadratic, a system's grammar oracle) release it.
    fn answer(&self, py: Python<'_>, config: &Configuration, gold: &DepTree) -> PyResult<StepScores> {
        let system = config.system();
        if system != self.system {
            return Err(value_error(OracleError::WrongSystem { expected: self.system, found: system }));
        }
        let (strategy, algorithm) = (self.strategy, self.algorithm);
        let fast = Oracle::resolve(algorithm, gold) == Algorithm::Linear
            && Oracle::algorithms(system).contains(&Algorithm::Linear);
        let run = || self.with_oracle(|oracle| oracle.scores(config, gold, strategy, algorithm));
        let scores = if fast { run() } else { py.detach(run) };
        scores.map_err(value_error)
    }

    /// Runs `f` on this object's oracle, or on a pooled one while another
    /// thread uses it (never waits, so never holds the GIL waiting).
    fn with_oracle<R>(&self, f: impl FnOnce(&mut Oracle<'static>) -> R) -> R {
        match self.oracle.try_lock() {
            Ok(mut own) => f(&mut own),
            Err(std::sync::TryLockError::Poisoned(e)) => f(&mut e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                let mut other = pooled_oracle();
                let r = f(&mut other);
                return_oracle(other);
                r
            }
        }
    }

    /// Reads a configuration given as stack, buffer, gold and arcs, in the
    /// command line's order (stack, buffer, gold, arcs).
    fn read<'a>(
        &self,
        stack: &Bound<'_, PyAny>,
        buffer: &Bound<'_, PyAny>,
        gold: &'a Bound<'_, PyAny>,
        arcs: Option<&Bound<'_, PyAny>>,
        unshifted: Option<usize>,
    ) -> PyResult<(Configuration, Cow<'a, DepTree>)> {
        let stack = convert::nodes(stack, "stack")?;
        let buffer = convert::nodes(buffer, "buffer")?;
        let gold = convert::tree(gold, "gold")?;
        let arcs = arcs.map(convert::arcs).transpose()?;
        let config = configuration(self.system, &stack, &buffer, gold.len(), arcs.as_deref(), unshifted)?;
        Ok((config, gold))
    }
}

#[pymethods]
impl PyOracle {
    /// An oracle for `system` with `strategy` and `algorithm` (names as on
    /// the command line; no strategy: `lbr`, or `none` for lr-spine and
    /// attardi); `ValueError` if the system does not offer them.
    #[new]
    #[pyo3(signature = (system = "arc-standard", strategy = None, algorithm = "auto"))]
    fn new(system: &str, strategy: Option<&str>, algorithm: &str) -> PyResult<Self> {
        let (system, strategy, algorithm) = settings(system, strategy, algorithm)?;
        Ok(PyOracle { oracle: Mutex::new(Oracle::new()), system, strategy, algorithm })
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
    /// The algorithm's name (as given: `auto` is resolved per gold tree).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm.name()
    }
    /// The system's steps: the keys of `scores` and the columns of `scores_batch`.
    #[getter]
    fn steps(&self) -> Vec<&'static str> {
        step_names(self.system)
    }

    /// The score of every step of the system at the configuration (stack,
    /// buffer) for the gold tree (heads of words 1 … n, or a `Tree`), `None`
    /// where the step does not apply; `arcs` are the arcs built so far
    /// (arc-eager needs them for a stack of more than the root). O(k + m) for
    /// `linear`, O((k + m)³) for `cubic`.
    #[pyo3(signature = (stack, buffer, gold, arcs = None, unshifted = None))]
    fn scores<'py>(
        &self,
        py: Python<'py>,
        stack: &Bound<'py, PyAny>,
        buffer: &Bound<'py, PyAny>,
        gold: &Bound<'py, PyAny>,
        arcs: Option<&Bound<'py, PyAny>>,
        unshifted: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (config, gold) = self.read(stack, buffer, gold, arcs, unshifted)?;
        let s = self.answer(py, &config, &gold)?;
        scores_dict(py, self.system, &s)
    }

    /// The steps with the highest score (see `scores`), in the system's order.
    #[pyo3(signature = (stack, buffer, gold, arcs = None, unshifted = None))]
    fn optimal<'py>(
        &self,
        py: Python<'py>,
        stack: &Bound<'py, PyAny>,
        buffer: &Bound<'py, PyAny>,
        gold: &Bound<'py, PyAny>,
        arcs: Option<&Bound<'py, PyAny>>,
        unshifted: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (config, gold) = self.read(stack, buffer, gold, arcs, unshifted)?;
        let s = self.answer(py, &config, &gold)?;
        optimal_list(py, &s)
    }

    /// `scores` of a `Configuration`.
    fn scores_at<'py>(
        &self,
        py: Python<'py>,
        configuration: PyRef<'py, PyConfiguration>,
        gold: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let gold = convert::tree(gold, "gold")?;
        configuration.inner.check_gold(gold.as_ref()).map_err(value_error)?;
        let s = self.answer(py, &configuration.inner, &gold)?;
        scores_dict(py, self.system, &s)
    }

    /// `optimal` of a `Configuration`.
    fn optimal_at<'py>(
        &self,
        py: Python<'py>,
        configuration: PyRef<'py, PyConfiguration>,
        gold: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let gold = convert::tree(gold, "gold")?;
        configuration.inner.check_gold(gold.as_ref()).map_err(value_error)?;
        let s = self.answer(py, &configuration.inner, &gold)?;
        optimal_list(py, &s)
    }

    /// The scores of many configurations, each with its gold tree (the same
    /// object may be repeated: it is converted once), computed on rayon's
    /// threads with the GIL released. Returns an int64 array of shape
    /// (len(configurations), len(steps)), −1 where a step does not apply.
    fn scores_batch<'py>(
        &self,
        py: Python<'py>,
        configurations: Vec<Bound<'py, PyAny>>,
        golds: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if configurations.len() != golds.len() {
            return Err(PyValueError::new_err(format!(
                "{} configurations but {} gold trees",
                configurations.len(),
                golds.len()
            )));
        }
        let guards: Vec<PyRef<'py, PyConfiguration>> = configurations
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let c = c.cast::<PyConfiguration>().map_err(|e| index_error(e.into(), "configuration", i))?;
                c.try_borrow().map_err(|e| index_error(e.into(), "configuration", i))
            })
            .collect::<PyResult<_>>()?;
        let mut trees: Vec<Cow<'_, DepTree>> = Vec::with_capacity(golds.len());
        let mut index: Vec<usize> = Vec::with_capacity(golds.len());
        for (i, g) in golds.iter().enumerate() {
            if i > 0 && g.is(&golds[i - 1]) {
                index.push(trees.len() - 1);
                continue;
            }
            trees.push(convert::tree(g, "gold").map_err(|e| index_error(e, "configuration", i))?);
            index.push(trees.len() - 1);
        }
        let items: Vec<(&Configuration, &DepTree)> =
            guards.iter().zip(&index).map(|(c, &t)| (&c.inner, trees[t].as_ref())).collect();
        let (system, strategy, algorithm) = (self.system, self.strategy, self.algorithm);
        let width = columns(system).len();
        let mut out = vec![0i64; items.len() * width];
        let errors: Vec<Option<OracleError>> = crate::interrupt::interruptible(py, |watch| {
            out.par_chunks_mut(width.max(1))
                .zip(items.par_iter())
                .with_min_len(32)
                .map(|(row, &(config, gold))| {
                    if watch.interrupted() {
                        return None;
                    }
                    let answer = if config.system() != system {
                        Err(OracleError::WrongSystem { expected: system, found: config.system() })
                    } else {
                        config.check_gold(gold).and_then(|()| {
                            BATCH_ORACLE.with(|o| {
                                let mut o = o.borrow_mut();
                                o.get_or_insert_with(Oracle::new).scores(config, gold, strategy, algorithm)
                            })
                        })
                    };
                    match answer {
                        Ok(s) => {
                            fill_row(row, system, &s);
                            None
                        }
                        Err(e) => Some(e),
                    }
                })
                .collect()
        })?;
        if let Some((i, e)) = errors.iter().enumerate().find_map(|(i, e)| e.as_ref().map(|e| (i, e))) {
            return Err(value_error(format!("configuration {i}: {e}")));
        }
        matrix(py, out, items.len(), width)
    }

    fn __repr__(&self) -> String {
        format!("Oracle(system='{}', strategy='{}', algorithm='{}')", self.system, self.strategy, self.algorithm)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let o = slf.borrow();
        let args = (o.system.name(), o.strategy.name(), o.algorithm.name()).into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }
}

/// The algorithm a session runs when asked for `algorithm`: `auto` means
/// linear for a projective gold tree only where the system has a linear
/// algorithm; elsewhere it is the system's first (cubic; Attardi and
/// arc-eager-nm: tabular).
pub(crate) fn session_algorithm(system: System, algorithm: Algorithm) -> Algorithm {
    if algorithm == Algorithm::Auto && !Oracle::algorithms(system).contains(&Algorithm::Linear) {
        return Oracle::algorithms(system)[0];
    }
    algorithm
}

/// Oracles of dropped sessions, kept for the next sessions' reuse.
static POOL: Mutex<Vec<Oracle<'static>>> = Mutex::new(Vec::new());
/// At most this many oracles wait in [`POOL`].
const POOL_SIZE: usize = 64;

pub(crate) fn pooled_oracle() -> Oracle<'static> {
    POOL.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
}

pub(crate) fn return_oracle(mut oracle: Oracle<'static>) {
    // Back to the defaults: the next session may be another kind.
    oracle.attardi_mut().set_max_gamma(tabula::oracle::attardi::tabular::DEFAULT_MAX_GAMMA);
    oracle.attardi_mut().set_max_pairs(None);
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if pool.len() < POOL_SIZE {
        pool.push(oracle);
    }
}

/// An oracle and the library session that borrows it.
#[self_referencing(pub_extras)]
pub(crate) struct Live {
    pub(crate) oracle: Oracle<'static>,
    #[borrows(mut oracle)]
    #[covariant]
    pub(crate) session: OracleSession<'this, 'static>,
}

/// The optimal steps along one computation for one gold tree (Nederhof
/// 2019, Sec. 7): told each step taken (`apply`), it answers `scores` for
/// the current configuration. With the linear algorithm on a projective
/// gold tree the session is incremental (arc-standard: the Sec. 7 engine,
/// O(log n) per step along gold computations; arc-hybrid and arc-eager: the
/// closed forms, O(1) per step); otherwise each `scores` is one call of the
/// one-shot algorithm. Same answers as `Oracle`.
#[pyclass(module = "tabula_parsing", name = "Session")]
pub struct PySession {
    live: Option<Live>,
    gold: Py<Tree>,
    strategy: Strategy,
}

impl PySession {
    fn session(&self) -> &OracleSession<'_, 'static> {
        self.live.as_ref().expect("a live session").borrow_session()
    }

    fn with_session<R>(&mut self, f: impl FnOnce(&mut OracleSession<'_, 'static>) -> R) -> R {
        self.live.as_mut().expect("a live session").with_session_mut(f)
    }

    fn system(&self) -> System {
        self.session().configuration().system()
    }

    /// The scores of the current configuration: with the GIL held in the
    /// incremental mode (microseconds), released for one-shot calls.
    fn current(&mut self, py: Python<'_>) -> PyResult<StepScores> {
        let scores = if self.session().is_incremental() {
            self.with_session(|s| s.scores())
        } else {
            py.detach(|| self.with_session(|s| s.scores()))
        };
        scores.map_err(value_error)
    }
}

impl Drop for PySession {
    fn drop(&mut self) {
        if let Some(live) = self.live.take() {
            return_oracle(live.into_heads().oracle);
        }
    }
}

#[pymethods]
impl PySession {
    /// A session at the initial configuration for `gold` (heads of words
    /// 1 … n, a `Tree` or a `Sentence`), or at `configuration`. `algorithm` is resolved
    /// here (`auto`: linear for a projective gold tree, cubic otherwise).
    /// O(n log n).
    #[new]
    #[pyo3(signature = (gold, system = "arc-standard", strategy = None, algorithm = "auto", configuration = None))]
    fn new(
        py: Python<'_>,
        gold: &Bound<'_, PyAny>,
        system: &str,
        strategy: Option<&str>,
        algorithm: &str,
        configuration: Option<PyRef<'_, PyConfiguration>>,
    ) -> PyResult<Self> {
        let (system, strategy, algorithm) = settings(system, strategy, algorithm)?;
        let algorithm = session_algorithm(system, algorithm);
        let gold: Py<Tree> = match gold.cast::<Tree>() {
            Ok(t) => t.clone().unbind(),
            Err(_) => Py::new(py, Tree { tree: convert::tree(gold, "gold")?.into_owned() })?,
        };
        let tree = gold.get().tree.clone();
        let config = match configuration {
            Some(c) if c.inner.system() != system => {
                return Err(value_error(OracleError::WrongSystem { expected: system, found: c.inner.system() }))
            }
            Some(c) => c.inner.clone(),
            None => Configuration::initial(system, tree.len()),
        };
        let live =
            Live::try_new(pooled_oracle(), |oracle| OracleSession::at(oracle, tree, config, strategy, algorithm))
                .map_err(value_error)?;
        Ok(PySession { live: Some(live), gold, strategy })
    }

    /// The scores of the current configuration (`Oracle.scores`'s answer).
    fn scores<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.current(py)?;
        scores_dict(py, self.system(), &s)
    }

    /// The optimal steps at the current configuration.
    fn optimal<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let s = self.current(py)?;
        optimal_list(py, &s)
    }

    /// Takes `step` (a name of `steps`); returns the arc (head, dependent) it
    /// builds, if any. `ValueError` if it does not apply.
    fn apply(&mut self, step: &str) -> PyResult<Option<(usize, usize)>> {
        let s = self::step(self.system(), step).map_err(value_error)?;
        self.with_session(|session| session.apply(s)).map_err(value_error)
    }

    /// A copy of the current configuration.
    #[getter]
    fn configuration(&self) -> PyConfiguration {
        PyConfiguration { inner: self.session().configuration().clone() }
    }
    /// Whether the computation has ended.
    #[getter]
    fn is_final(&self) -> bool {
        self.session().configuration().is_final()
    }
    /// The current stack.
    #[getter]
    fn stack(&self) -> Vec<usize> {
        self.session().configuration().stack().to_vec()
    }
    /// The current remaining input.
    #[getter]
    fn buffer(&self) -> Vec<usize> {
        self.session().configuration().buffer().collect()
    }
    /// The names of the steps that apply now.
    fn applicable_steps(&self) -> Vec<&'static str> {
        self.session().configuration().applicable_steps().map(|s| s.name()).collect()
    }
    /// The gold tree.
    #[getter]
    fn gold(&self, py: Python<'_>) -> Py<Tree> {
        self.gold.clone_ref(py)
    }
    /// The system's name.
    #[getter(system)]
    fn system_name(&self) -> &'static str {
        self.system().name()
    }
    /// The system's steps (the keys of `scores`).
    #[getter]
    fn steps(&self) -> Vec<&'static str> {
        step_names(self.system())
    }
    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.strategy.name()
    }
    /// The algorithm in use, after resolving `auto`.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.session().algorithm().name()
    }
    /// Whether the incremental engine (Sec. 7) answers.
    #[getter]
    fn is_incremental(&self) -> bool {
        self.session().is_incremental()
    }

    fn __repr__(&self) -> String {
        let c = self.session().configuration();
        format!(
            "Session(system='{}', strategy='{}', algorithm='{}', stack={:?}, buffer={:?})",
            c.system(),
            self.strategy,
            self.session().algorithm(),
            c.stack(),
            c.buffer().collect::<Vec<_>>()
        )
    }

    /// Pickles as (gold, settings, current configuration); unpickling starts
    /// a session there (O(n log n)).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let s = slf.borrow();
        let args = (
            s.gold.clone_ref(py),
            s.system().name(),
            s.strategy.name(),
            s.session().algorithm().name(),
            s.configuration(),
        )
            .into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }
}

/// Borrows every session mutably (`ValueError` if one appears twice or is in use).
fn borrow_sessions<'py>(sessions: &[Bound<'py, PyAny>]) -> PyResult<Vec<PyRefMut<'py, PySession>>> {
    sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let s = s.cast::<PySession>().map_err(|e| index_error(e.into(), "session", i))?;
            s.try_borrow_mut().map_err(|_| {
                PyValueError::new_err(format!("session {i}: already in use (a session may appear only once)"))
            })
        })
        .collect()
}

/// The scores of many sessions' current configurations, on rayon's threads
/// with the GIL released: an int64 array of shape (len(sessions),
/// len(steps)), −1 where a step does not apply. All sessions must be of one
/// system; each appears once.
#[pyfunction]
pub fn scores_batch<'py>(py: Python<'py>, sessions: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let mut guards = borrow_sessions(&sessions)?;
    let system = guards.first().map_or(System::ArcStandard, |s| s.system());
    if let Some(i) = guards.iter().position(|s| s.system() != system) {
        return Err(value_error(format!(
            "session {i}: {}",
            OracleError::WrongSystem { expected: system, found: guards[i].system() }
        )));
    }
    let width = columns(system).len();
    let mut out = vec![0i64; guards.len() * width];
    let mut lives: Vec<&mut PySession> = guards.iter_mut().map(|g| &mut **g).collect();
    let errors: Vec<Option<OracleError>> = crate::interrupt::interruptible(py, |watch| {
        out.par_chunks_mut(width.max(1))
            .zip(lives.par_iter_mut())
            .with_min_len(32)
            .map(|(row, s)| {
                if watch.interrupted() {
                    return None;
                }
                match s.with_session(|s| s.scores()) {
                    Ok(scores) => {
                        fill_row(row, system, &scores);
                        None
                    }
                    Err(e) => Some(e),
                }
            })
            .collect()
    })?;
    if let Some((i, e)) = errors.iter().enumerate().find_map(|(i, e)| e.as_ref().map(|e| (i, e))) {
        return Err(value_error(format!("session {i}: {e}")));
    }
    matrix(py, out, guards.len(), width)
}

/// Applies one step to each session (`steps[i]` to `sessions[i]`); returns
/// the arcs built (None where a step builds none). Stops at the first step
/// that does not apply (`ValueError` naming the session; the earlier ones
/// have been taken).
#[pyfunction]
pub fn apply_batch(sessions: Vec<Bound<'_, PyAny>>, steps: Vec<String>) -> PyResult<Vec<Option<(usize, usize)>>> {
    if sessions.len() != steps.len() {
        return Err(PyValueError::new_err(format!("{} sessions but {} steps", sessions.len(), steps.len())));
    }
    let mut guards = borrow_sessions(&sessions)?;
    guards
        .iter_mut()
        .zip(&steps)
        .enumerate()
        .map(|(i, (s, step))| s.apply(step).map_err(|e| index_error(e, "session", i)))
        .collect()
}
