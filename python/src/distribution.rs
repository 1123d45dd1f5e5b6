//! Real arc scores in, NumPy out: the distribution over a grammar's trees
//! ([`tabula::distribution`], methods of `Grammar`) and over all trees by
//! the Matrix-Tree theorem ([`tabula::nonprojective`], the functions of
//! `tabula_parsing.nonprojective`). Batch calls run on rayon's threads with
//! the GIL released. Only conversion lives here.

use crate::convert::value_error;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use tabula::distribution::DistributionError;
use tabula::engine::EngineError;
use tabula::nonprojective::{self, NonProjectiveError, Roots};

/// A score matrix as a row-major `Vec<f64>` and its side: any array-like
/// NumPy converts to float64 of shape (m, m), m ≥ 1. `what` names it in
/// messages.
pub(crate) fn square(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Vec<f64>, usize)> {
    let np = obj.py().import("numpy")?;
    let array = np.call_method1("ascontiguousarray", (obj, "float64"))?;
    let untyped = array.cast::<PyUntypedArray>()?;
    let shape = untyped.shape().to_vec();
    if shape.len() != 2 || shape[0] != shape[1] || shape[0] == 0 {
        return Err(PyValueError::new_err(format!(
            "{what} must be a square (n+1)×(n+1) matrix (row = head, column = dependent), found shape {shape:?}"
        )));
    }
    let a = array.cast::<PyArray2<f64>>()?.readonly();
    let data = match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    };
    Ok((data, shape[0]))
}

/// The scores of an input of `size` terminals (see [`square`]).
pub(crate) fn scores(obj: &Bound<'_, PyAny>, size: usize) -> PyResult<Vec<f64>> {
    let (data, side) = square(obj, "the scores")?;
    if side != size {
        return Err(PyValueError::new_err(format!(
            "the scores must be {size}×{size} (one row and one column per input terminal), found {side}×{side}"
        )));
    }
    Ok(data)
}

/// A library error as the Python exception of its kind: `MemoryError`
/// beyond the memory limit, `ValueError` otherwise.
pub(crate) fn error(e: DistributionError) -> PyErr {
    match e {
        DistributionError::Engine(EngineError::TooMuchMemory(m)) => memory_error(&m),
        e => value_error(e),
    }
}

/// `MemoryError` naming Python's way to raise the limit.
pub(crate) fn memory_error(m: &tabula::memory::TooMuchMemory) -> PyErr {
    let human = tabula::memory::human;
    PyMemoryError::new_err(format!(
        "{} would need about {} of memory, more than the limit of {} (raise it with set_max_memory)",
        m.what,
        human(m.needed),
        human(m.limit)
    ))
}

/// An (m, m) float64 array from a row-major vector.
pub(crate) fn matrix<'py>(py: Python<'py>, data: Vec<f64>, side: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, data).reshape([side, side])?.into_any())
}

/// A batch's error for item `i`, as the exception of its kind.
pub(crate) fn item_error(i: usize, e: PyErr, py: Python<'_>) -> PyErr {
    let message = format!("sentence {i}: {}", e.value(py));
    if e.is_instance_of::<PyMemoryError>(py) {
        PyMemoryError::new_err(message)
    } else {
        PyValueError::new_err(message)
    }
}

/// `f` of every item on rayon's threads with the GIL released, Ctrl-C
/// honoured between items ([`crate::interrupt::map_interruptible`]).
fn on_threads<I: Sync, T: Send>(py: Python<'_>, items: &[I], f: impl Fn(&I) -> T + Sync + Send) -> PyResult<Vec<T>> {
    crate::interrupt::map_interruptible(py, items, |_, item| f(item))
}

fn roots(single_root: bool) -> Roots {
    if single_root {
        Roots::Single
    } else {
        Roots::Multi
    }
}

pub(crate) fn nonprojective_error(e: NonProjectiveError) -> PyErr {
    match e {
        NonProjectiveError::TooMuchMemory(m) => memory_error(&m),
        e => value_error(e),
    }
}

/// ln Z over all dependency trees, projective or not (Matrix-Tree theorem,
/// Koo et al. 2007); see `tabula_parsing.nonprojective.log_partition`.
#[pyfunction]
#[pyo3(signature = (scores, single_root = false))]
pub fn nonprojective_log_partition(py: Python<'_>, scores: &Bound<'_, PyAny>, single_root: bool) -> PyResult<f64> {
    let (s, side) = square(scores, "the scores")?;
    py.detach(|| nonprojective::log_partition(&s, side, roots(single_root))).map_err(nonprojective_error)
}

/// Arc marginals over all dependency trees (Matrix-Tree theorem); see
/// `tabula_parsing.nonprojective.marginals`.
#[pyfunction]
#[pyo3(signature = (scores, single_root = false))]
pub fn nonprojective_marginals<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    single_root: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (s, side) = square(scores, "the scores")?;
    let mut out = Vec::new();
    py.detach(|| nonprojective::marginals(&s, side, roots(single_root), &mut out)).map_err(nonprojective_error)?;
    matrix(py, out, side)
}

/// [`nonprojective_log_partition`] for many score matrices, on rayon's threads.
#[pyfunction]
#[pyo3(signature = (scores, single_root = false))]
pub fn nonprojective_log_partition_batch<'py>(
    py: Python<'py>,
    scores: Vec<Bound<'py, PyAny>>,
    single_root: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs: Vec<(Vec<f64>, usize)> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| square(s, "the scores").map_err(|e| item_error(i, e, py)))
        .collect::<PyResult<_>>()?;
    let one = |(s, side): &(Vec<f64>, usize)| nonprojective::log_partition(s, *side, roots(single_root));
    let results: Vec<Result<f64, NonProjectiveError>> = on_threads(py, &inputs, one)?;
    let values = results
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.map_err(|e| item_error(i, nonprojective_error(e), py)))
        .collect::<PyResult<Vec<f64>>>()?;
    Ok(PyArray1::from_vec(py, values).into_any())
}

/// [`nonprojective_marginals`] for many score matrices, on rayon's threads.
#[pyfunction]
#[pyo3(signature = (scores, single_root = false))]
pub fn nonprojective_marginals_batch<'py>(
    py: Python<'py>,
    scores: Vec<Bound<'py, PyAny>>,
    single_root: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let inputs: Vec<(Vec<f64>, usize)> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| square(s, "the scores").map_err(|e| item_error(i, e, py)))
        .collect::<PyResult<_>>()?;
    let one = |(s, side): &(Vec<f64>, usize)| {
        let mut out = Vec::new();
        nonprojective::marginals(s, *side, roots(single_root), &mut out).map(|_| out)
    };
    let results: Vec<Result<Vec<f64>, NonProjectiveError>> = on_threads(py, &inputs, one)?;
    results
        .into_iter()
        .zip(&inputs)
        .enumerate()
        .map(|(i, (r, (_, side)))| {
            let m = r.map_err(|e| item_error(i, nonprojective_error(e), py))?;
            matrix(py, m, *side)
        })
        .collect()
}
