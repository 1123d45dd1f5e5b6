//! The grammar engine from Python (Nederhof 2019, Sec. 3, Table 2): a split
//! bilexical grammar read from a file ([`PyGrammar`]) and parsed over the
//! counting, Boolean and max-plus semirings, with a NumPy weight matrix; and
//! with real scores, the distribution over its trees (log-partition,
//! marginals, entropy, k best, samples: [`tabula::distribution`]), one
//! sentence or a batch on rayon's threads.
//!
//! A grammar with errors raises [`GrammarError`] (a `ValueError`) whose
//! message is the command line's diagnostic text (`path:line:col: error: …`,
//! the line, a caret) and whose `diagnostics` attribute lists
//! (severity, line, column, message) for each diagnostic.

use crate::convert::value_error;
use crate::distribution::{error, item_error, matrix, scores};
use numpy::{PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tabula::distribution::{DistributionError, RuleMarginals, TreeDistribution};
use tabula::engine::Parser;
use tabula::grammar::text::{self, Severity};
use tabula::grammar::{Grammar, Terminal};
use tabula::semiring::{Boolean, Count, MaxPlus, Semiring};

pyo3::create_exception!(
    tabula,
    GrammarError,
    PyValueError,
    "A grammar file with errors; the message is the diagnostic text (path:line:col, the line, a caret), \
     `diagnostics` lists (severity, line, column, message)."
);

/// A split bilexical grammar (Nederhof 2019, Sec. 3), checked and compiled;
/// the engine runs it over the counting, Boolean and max-plus semirings, and
/// with real arc scores gives log-partition, marginals, entropy, k best trees
/// and samples. Immutable; pickles as its text.
#[pyclass(module = "tabula_parsing", name = "Grammar", frozen)]
pub struct PyGrammar {
    grammar: Grammar,
    /// The name used in messages (the path as given).
    path: String,
    /// The text the grammar was read from.
    source: String,
    /// Rendered warnings.
    warnings: Vec<String>,
}

impl PyGrammar {
    /// The compiled grammar.
    pub(crate) fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    fn parse(py: Python<'_>, path: &str, source: String) -> PyResult<Self> {
        match text::parse_str(path, &source) {
            Ok(p) => Ok(PyGrammar {
                grammar: p.grammar,
                path: path.to_owned(),
                warnings: p.warnings.iter().map(|w| w.to_string()).collect(),
                source,
            }),
            Err(errors) => {
                let err = GrammarError::new_err(errors.to_string());
                let diagnostics: Vec<(&str, usize, usize, String)> = errors
                    .diagnostics
                    .iter()
                    .map(|d| {
                        let severity = match d.severity {
                            Severity::Error => "error",
                            Severity::Warning => "warning",
                        };
                        (severity, d.line, d.column, d.message.clone())
                    })
                    .collect();
                err.value(py).setattr("diagnostics", diagnostics)?;
                Err(err)
            }
        }
    }

    /// The terminals of an input: a whitespace-separated string or a
    /// sequence of names, a₀ (the root) first.
    pub(crate) fn input(&self, input: &Bound<'_, PyAny>) -> PyResult<Vec<Terminal>> {
        let words: Vec<String> = match input.cast::<PyString>() {
            Ok(s) => s.to_cow()?.split_whitespace().map(str::to_owned).collect(),
            Err(_) => input.extract()?,
        };
        if words.is_empty() {
            return Err(PyValueError::new_err("the input is empty: it needs at least the root terminal a0"));
        }
        let g = &self.grammar;
        words
            .iter()
            .enumerate()
            .map(|(position, w)| {
                g.terminal(w).ok_or_else(|| {
                    let known = g.terminals().map(|t| format!("`{}`", g.terminal_name(t))).collect::<Vec<_>>();
                    PyValueError::new_err(format!(
                        "unknown terminal `{w}` at position {position} of the input (the grammar's terminals: {})",
                        known.join(", ")
                    ))
                })
            })
            .collect()
    }
}

impl PyGrammar {
    /// Converts (with the GIL) one input and its scores per sentence, then
    /// runs `f` on each on rayon's threads with the GIL released, one
    /// [`TreeDistribution`] per thread (with a pool of one thread, on the
    /// calling thread).
    fn batch<T: Send>(
        &self,
        py: Python<'_>,
        terminals: &[Bound<'_, PyAny>],
        score_matrices: &[Bound<'_, PyAny>],
        f: impl Fn(&mut TreeDistribution<'_>, &[Terminal], &[f64]) -> Result<T, DistributionError> + Sync,
    ) -> PyResult<Vec<T>> {
        self.batch_indexed(py, terminals, score_matrices, |_, d, input, s| f(d, input, s))
    }

    /// [`batch`](Self::batch) with the sentence's index passed to `f`.
    fn batch_indexed<T: Send>(
        &self,
        py: Python<'_>,
        terminals: &[Bound<'_, PyAny>],
        score_matrices: &[Bound<'_, PyAny>],
        f: impl Fn(usize, &mut TreeDistribution<'_>, &[Terminal], &[f64]) -> Result<T, DistributionError> + Sync,
    ) -> PyResult<Vec<T>> {
        if terminals.len() != score_matrices.len() {
            return Err(PyValueError::new_err(format!(
                "{} inputs but {} score matrices",
                terminals.len(),
                score_matrices.len()
            )));
        }
        let inputs: Vec<(Vec<Terminal>, Vec<f64>)> = terminals
            .iter()
            .zip(score_matrices)
            .enumerate()
            .map(|(i, (t, s))| {
                let input = self.input(t).map_err(|e| item_error(i, e, py))?;
                let s = scores(s, input.len()).map_err(|e| item_error(i, e, py))?;
                Ok((input, s))
            })
            .collect::<PyResult<_>>()?;
        let g = &self.grammar;
        // Ctrl-C is honoured between sentences (a sentence not started is None).
        let results: Vec<Option<Result<T, DistributionError>>> = crate::interrupt::interruptible(py, |watch| {
            let one = |i: usize, dist: &mut TreeDistribution<'_>, (input, s): &(Vec<Terminal>, Vec<f64>)| {
                (!watch.interrupted()).then(|| f(i, dist, input, s))
            };
            if rayon::current_num_threads() == 1 {
                // One thread: one distribution for all, without handing
                // the work to the pool's thread and waiting.
                let mut dist = TreeDistribution::new(g);
                return inputs.iter().enumerate().map(|(i, x)| one(i, &mut dist, x)).collect();
            }
            inputs
                .par_iter()
                .enumerate()
                .map_init(|| TreeDistribution::new(g), |dist, (i, x)| one(i, dist, x))
                .collect()
        })?;
        let results = crate::interrupt::all_run(results)?;
        results.into_iter().enumerate().map(|(i, r)| r.map_err(|e| item_error(i, error(e), py))).collect()
    }

    /// One input and its scores, then `f` with the GIL released.
    fn one<T: Send>(
        &self,
        py: Python<'_>,
        terminals: &Bound<'_, PyAny>,
        score_matrix: &Bound<'_, PyAny>,
        f: impl FnOnce(&mut TreeDistribution<'_>, &[Terminal], &[f64]) -> Result<T, DistributionError> + Send,
    ) -> PyResult<T> {
        let input = self.input(terminals)?;
        let s = scores(score_matrix, input.len())?;
        let g = &self.grammar;
        py.detach(|| f(&mut TreeDistribution::new(g), &input, &s)).map_err(error)
    }
}

/// A tree's total score and the heads of its words 1..n.
type ScoredHeads = (f64, Vec<usize>);

/// Rule marginals as a dict of float64 arrays (see `rule_marginals`).
fn rule_dict(py: Python<'_>, r: RuleMarginals) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("finish", PyArray1::from_vec(py, r.finish))?;
    d.set_item("left", PyArray1::from_vec(py, r.left))?;
    d.set_item("right", PyArray1::from_vec(py, r.right))?;
    Ok(d)
}

/// A weight matrix: `size`×`size`, row = head, column = dependent; integers
/// (32 bits) or −inf; the diagonal is ignored.
fn weights(w: &Bound<'_, PyAny>, size: usize) -> PyResult<Vec<MaxPlus>> {
    let np = w.py().import("numpy")?;
    let array = np.call_method1("asarray", (w,))?;
    let array = array.cast::<PyUntypedArray>()?;
    let shape = array.shape().to_vec();
    if shape != [size, size] {
        return Err(PyValueError::new_err(format!(
            "the weight matrix must be {size}×{size} (one row and one column per input terminal), found shape {shape:?}"
        )));
    }
    let kind = array.dtype().kind();
    let too_big =
        |v: &dyn std::fmt::Display| PyValueError::new_err(format!("weight out of range (it must fit in 32 bits): {v}"));
    match kind {
        b'i' | b'u' | b'b' => {
            let a = array.call_method1("astype", ("int64",))?;
            let a = a.cast::<PyArray2<i64>>()?.readonly();
            a.as_array()
                .iter()
                .map(|&v| if i32::try_from(v).is_ok() { Ok(MaxPlus::new(v)) } else { Err(too_big(&v)) })
                .collect()
        }
        b'f' => {
            let a = array.call_method1("astype", ("float64",))?;
            let a = a.cast::<PyArray2<f64>>()?.readonly();
            a.as_array()
                .iter()
                .map(|&v| {
                    if v == f64::NEG_INFINITY {
                        Ok(MaxPlus::neg_inf())
                    } else if !v.is_finite() || v.fract() != 0.0 {
                        Err(PyValueError::new_err(format!("not an integer or -inf: {v}")))
                    } else if v < f64::from(i32::MIN) || v > f64::from(i32::MAX) {
                        Err(too_big(&v))
                    } else {
                        Ok(MaxPlus::new(v as i64))
                    }
                })
                .collect()
        }
        _ => Err(PyTypeError::new_err("the weight matrix must hold integers or floats (-inf for no arc)")),
    }
}

#[pymethods]
impl PyGrammar {
    /// Reads, checks and compiles a grammar file. `GrammarError` with every
    /// error of the file, or with one line for a file of another kind (a
    /// CoNLL-U treebank, JSON, compressed data, a tabula model), as the
    /// command line says it; `OSError` if it cannot be read.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        let shown = path.display().to_string();
        let bytes =
            std::fs::read(&path).map_err(|e| PyOSError::new_err(format!("cannot read grammar file {shown}: {e}")))?;
        if let Some((line, what)) = tabula::file_kind::other_kind(&bytes) {
            // One line, as the command line says it, not a diagnostic per line.
            let e = text::GrammarFileError::OtherKind { path: shown, line, what };
            let err = GrammarError::new_err(e.to_string());
            err.value(py).setattr("diagnostics", vec![("error", line, 1usize, e.to_string())])?;
            return Err(err);
        }
        let source = String::from_utf8(bytes)
            .map_err(|e| PyOSError::new_err(format!("cannot read grammar file {shown}: {}", e.utf8_error())))?;
        Self::parse(py, &shown, source)
    }

    /// A grammar shipped with tabula (`grammars/NAME.grammar`): "projective"
    /// (Nederhof 2019, Table 3), "projective-single-root", "shift-reduce",
    /// "shift-reduce-strict", "arc-hybrid", "arc-eager".
    #[staticmethod]
    fn shipped(py: Python<'_>, name: &str) -> PyResult<Self> {
        let text = tabula::grammars::by_name(name).ok_or_else(|| {
            let names: Vec<String> = tabula::grammars::ALL.iter().map(|(n, _)| format!("`{n}`")).collect();
            PyValueError::new_err(format!("no shipped grammar `{name}` (the shipped grammars: {})", names.join(", ")))
        })?;
        Self::parse(py, &format!("grammars/{name}.grammar"), text.to_owned())
    }

    /// A grammar from text; `path` names it in messages.
    #[staticmethod]
    #[pyo3(signature = (text, path = "<string>"))]
    fn from_string(py: Python<'_>, text: String, path: &str) -> PyResult<Self> {
        Self::parse(py, path, text)
    }

    /// The terminal names, in order of first appearance.
    #[getter]
    fn terminals(&self) -> Vec<String> {
        self.grammar.terminals().map(|t| self.grammar.terminal_name(t).to_owned()).collect()
    }
    /// Warnings (useless symbols, repeated rules), rendered as diagnostics.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    /// The name the grammar was read under.
    #[getter]
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The number of derivations of the input (terminals a₀ … aₙ, a₀ the
    /// root; a whitespace-separated string or a list of names), exact:
    /// Table 2 in the counting semiring. O(n³).
    fn count(&self, py: Python<'_>, terminals: &Bound<'_, PyAny>) -> PyResult<num_bigint::BigUint> {
        let input = self.input(terminals)?;
        let g = &self.grammar;
        let w = py.detach(|| Parser::<Count>::new(g).parse(&input, |_, _| Count::one())).map_err(value_error)?;
        Ok(w.0)
    }

    /// Whether the grammar derives a tree for the input (Boolean semiring).
    fn recognizes(&self, py: Python<'_>, terminals: &Bound<'_, PyAny>) -> PyResult<bool> {
        let input = self.input(terminals)?;
        let g = &self.grammar;
        let w = py.detach(|| Parser::<Boolean>::new(g).parse(&input, |_, _| Boolean::one())).map_err(value_error)?;
        Ok(w.0)
    }

    /// The best total arc weight of a derivation (max-plus), `None` if there
    /// is none. `weights`: an (n+1)×(n+1) matrix (NumPy array or nested
    /// lists; row = head, column = dependent; integers of 32 bits, or −inf
    /// for a forbidden arc); without it every arc weighs 0.
    #[pyo3(signature = (terminals, weights = None))]
    fn max(
        &self,
        py: Python<'_>,
        terminals: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<i64>> {
        let input = self.input(terminals)?;
        let size = input.len();
        let w = weights.map(|w| self::weights(w, size)).transpose()?;
        let g = &self.grammar;
        let weight = |h: usize, d: usize| w.as_ref().map_or(MaxPlus::one(), |w| w[h * size + d]);
        let v = py.detach(|| Parser::<MaxPlus>::new(g).parse(&input, weight)).map_err(value_error)?;
        Ok(v.finite())
    }

    /// A best tree (heads of positions 1 … n) under the weights (see `max`;
    /// ties broken as the command line's `grammar parse --semiring best`).
    /// `ValueError` if the grammar derives no tree.
    #[pyo3(signature = (terminals, weights = None))]
    fn best(
        &self,
        py: Python<'_>,
        terminals: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<usize>> {
        let input = self.input(terminals)?;
        let size = input.len();
        let w = weights.map(|w| self::weights(w, size)).transpose()?;
        let weighted = w.is_some();
        let g = &self.grammar;
        let weight = |h: usize, d: usize| w.as_ref().map_or(MaxPlus::one(), |w| w[h * size + d]);
        let tree = py
            .detach(|| {
                let mut parser = Parser::<MaxPlus>::new(g);
                parser.parse(&input, weight).map(|_| parser.best_derivation().map(|d| d.tree))
            })
            .map_err(value_error)?;
        match tree {
            Some(t) => Ok(t.heads().to_vec()),
            None => Err(PyValueError::new_err(format!(
                "no derivation: the grammar derives no tree for this input{}",
                if weighted { " with these weights" } else { "" }
            ))),
        }
    }

    /// ln Z = ln Σ over derivations of exp(Σ of their arcs' scores); `scores`
    /// an (n+1)×(n+1) float array, row = head, column = dependent, −inf for
    /// a forbidden arc. −inf if the grammar derives no tree. O(n³).
    fn log_partition(&self, py: Python<'_>, terminals: &Bound<'_, PyAny>, scores: &Bound<'_, PyAny>) -> PyResult<f64> {
        self.one(py, terminals, scores, |d, input, s| d.log_partition(input, s))
    }

    /// Arc marginals P(h → d in the tree), the gradient of `log_partition`:
    /// an (n+1)×(n+1) float64 array, row = head, column = dependent, by the
    /// outside pass. `ValueError` if the grammar derives no tree. O(n³).
    fn marginals<'py>(
        &self,
        py: Python<'py>,
        terminals: &Bound<'py, PyAny>,
        scores: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let size = self.input(terminals)?.len();
        let m = self.one(py, terminals, scores, |d, input, s| {
            let mut out = Vec::new();
            d.marginals(input, s, &mut out).map(|_| out)
        })?;
        matrix(py, m, size)
    }

    /// The entropy (in nats) of the distribution over derivations, p ∝ exp
    /// of the summed scores: ln Z − Σ P(h → d) s(h, d), from the marginals. O(n³).
    fn entropy(&self, py: Python<'_>, terminals: &Bound<'_, PyAny>, scores: &Bound<'_, PyAny>) -> PyResult<f64> {
        self.one(py, terminals, scores, |d, input, s| d.entropy(input, s))
    }

    /// The expected number of arcs of `gold` (heads of words 1..n) in a tree
    /// of the distribution: the sum of their marginals. O(n³).
    fn expected_gold_arcs(
        &self,
        py: Python<'_>,
        terminals: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
        gold: &Bound<'_, PyAny>,
    ) -> PyResult<f64> {
        let gold = crate::convert::tree(gold, "gold")?.into_owned();
        self.one(py, terminals, scores, |d, input, s| d.expected_gold_arcs(input, s, &gold))
    }

    /// The k best trees with their total scores, best first: a list of
    /// (score, heads of words 1..n); fewer if the grammar derives fewer.
    /// Lazy k-best (Huang & Chiang 2005).
    fn kbest(
        &self,
        py: Python<'_>,
        terminals: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
        k: usize,
    ) -> PyResult<Vec<(f64, Vec<usize>)>> {
        let best = self.one(py, terminals, scores, |d, input, s| d.k_best(input, s, k))?;
        Ok(best.into_iter().map(|(v, t)| (v, t.heads().to_vec())).collect())
    }

    /// `count` trees drawn independently from the distribution: an int64
    /// array of shape (count, n), one row of heads of words 1..n per tree.
    /// `seed` makes the draw reproducible (default: from the OS).
    #[pyo3(signature = (terminals, scores, count, seed = None))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        terminals: &Bound<'py, PyAny>,
        scores: &Bound<'py, PyAny>,
        count: usize,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seed = crate::convert::seed_opt(seed, "seed")?;
        let n = self.input(terminals)?.len() - 1;
        let trees = self.one(py, terminals, scores, |d, input, s| {
            let mut rng = match seed {
                Some(seed) => ChaCha8Rng::seed_from_u64(seed),
                None => ChaCha8Rng::from_entropy(),
            };
            d.sample(input, s, count, &mut rng)
        })?;
        let heads: Vec<i64> = trees.iter().flat_map(|t| t.heads().iter().map(|&h| h as i64)).collect();
        Ok(numpy::PyArray1::from_vec(py, heads).reshape([count, n])?.into_any())
    }

    /// The grammar's finish and attachment rules in the file format, by
    /// form: a dict with keys "finish" (`A -> (B, C)`), "left"
    /// (`(B', _) -> A (B, _)`) and "right" (`(_, C') -> (_, C) A`), each a
    /// list in file order; `rule_marginals` indexes its arrays the same way.
    #[getter]
    fn rules(&self) -> std::collections::BTreeMap<&'static str, Vec<String>> {
        let g = &self.grammar;
        let finish = g.finish_rules().iter().map(|r| g.finish_rule_text(r)).collect();
        let left = g.left_rules().iter().map(|r| g.left_rule_text(r)).collect();
        let right = g.right_rules().iter().map(|r| g.right_rule_text(r)).collect();
        [("finish", finish), ("left", left), ("right", right)].into_iter().collect()
    }

    /// Rule marginals: the expected number of uses of every finish and
    /// attachment rule in a derivation of the distribution (a start rule's
    /// use counts for its finish rule), by the outside pass: a dict with
    /// keys "finish", "left", "right" of float64 arrays indexed as `rules`.
    /// `ValueError` if the grammar derives no tree. O(n³).
    fn rule_marginals<'py>(
        &self,
        py: Python<'py>,
        terminals: &Bound<'py, PyAny>,
        scores: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let r = self.one(py, terminals, scores, |d, input, s| d.rule_marginals(input, s))?;
        rule_dict(py, r)
    }

    /// `rule_marginals` of many sentences, on threads with the GIL
    /// released: a list of dicts.
    fn rule_marginals_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let v = self.batch(py, &terminals, &scores, |d, input, s| d.rule_marginals(input, s))?;
        v.into_iter().map(|r| rule_dict(py, r)).collect()
    }

    /// `kbest` of many sentences, on threads with the GIL released: one
    /// list of (score, heads of words 1..n) per sentence.
    fn kbest_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
        k: usize,
    ) -> PyResult<Vec<Vec<ScoredHeads>>> {
        let v = self.batch(py, &terminals, &scores, |d, input, s| d.k_best(input, s, k))?;
        Ok(v.into_iter().map(|best| best.into_iter().map(|(v, t)| (v, t.heads().to_vec())).collect()).collect())
    }

    /// `sample` of many sentences, on threads with the GIL released: one
    /// int64 array of shape (count, n) per sentence. With `seed`, sentence
    /// i draws what `sample(..., seed=seed + i)` draws (wrapping at 2⁶⁴).
    #[pyo3(signature = (terminals, scores, count, seed = None))]
    fn sample_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
        count: usize,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let seed = crate::convert::seed_opt(seed, "seed")?;
        // Seeded by the sentence's index, whichever thread draws it.
        let v = self.batch_indexed(py, &terminals, &scores, |i, d, input, s| {
            let mut rng = match seed {
                Some(seed) => ChaCha8Rng::seed_from_u64(seed.wrapping_add(i as u64)),
                None => ChaCha8Rng::from_entropy(),
            };
            d.sample(input, s, count, &mut rng).map(|trees| (input.len() - 1, trees))
        })?;
        v.into_iter()
            .map(|(n, trees)| {
                let heads: Vec<i64> = trees.iter().flat_map(|t| t.heads().iter().map(|&h| h as i64)).collect();
                Ok(numpy::PyArray1::from_vec(py, heads).reshape([count, n])?.into_any())
            })
            .collect()
    }

    /// `log_partition` of many sentences (a list of inputs and a list of
    /// score matrices, or a 3-D array of equal-sized ones), on threads with
    /// the GIL released: a float64 array.
    fn log_partition_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.batch(py, &terminals, &scores, |d, input, s| d.log_partition(input, s))?;
        Ok(numpy::PyArray1::from_vec(py, v).into_any())
    }

    /// `marginals` of many sentences, on threads with the GIL released: a
    /// list of (n+1)×(n+1) float64 arrays.
    fn marginals_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let v = self.batch(py, &terminals, &scores, |d, input, s| {
            let mut out = Vec::new();
            d.marginals(input, s, &mut out).map(|_| out)
        })?;
        v.into_iter()
            .map(|m| {
                let side = (m.len() as f64).sqrt().round() as usize;
                matrix(py, m, side)
            })
            .collect()
    }

    /// `entropy` of many sentences, on threads with the GIL released: a
    /// float64 array.
    fn entropy_batch<'py>(
        &self,
        py: Python<'py>,
        terminals: Vec<Bound<'py, PyAny>>,
        scores: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.batch(py, &terminals, &scores, |d, input, s| d.entropy(input, s))?;
        Ok(numpy::PyArray1::from_vec(py, v).into_any())
    }

    fn __repr__(&self) -> String {
        let g = &self.grammar;
        format!(
            "Grammar({:?}: {} terminals, {} categories, {} left states, {} right states)",
            self.path,
            g.num_terminals(),
            g.num_categories(),
            g.num_left_states(),
            g.num_right_states()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let g = slf.get();
        let from_string = slf.get_type().getattr("from_string")?;
        let args = (g.source.clone(), g.path.clone()).into_pyobject(py)?;
        Ok((from_string, args))
    }
}
