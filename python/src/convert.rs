//! From Python values to the library's types, and from the library's errors
//! to Python exceptions.
//!
//! Node lists (a stack, a buffer, heads) are accepted as any sequence of
//! integers or as a one-dimensional NumPy integer array; gold trees also as
//! a [`Tree`](crate::tree::Tree), which was checked once when it was made.
//! Messages follow the command line's (`tabula oracle` in JSON mode):
//! a negative node is "`stack` must contain non-negative integers, found -1",
//! a bad gold tree "`gold` is not a tree: …".

use crate::conllu::Sentence;
use crate::tree::Tree;
use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use std::borrow::Cow;
use tabula::tree::DepTree;

/// A `ValueError` with `e`'s message (the command line's text).
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The integers of a Python sequence or one-dimensional NumPy integer array,
/// as `i64`, in order. `key` names the argument in messages.
fn integers(obj: &Bound<'_, PyAny>, key: &str, out: &mut Vec<i64>) -> PyResult<()> {
    out.clear();
    if let Ok(list) = obj.cast::<PyList>() {
        out.reserve(list.len());
        for item in list.iter() {
            out.push(integer(&item, key)?);
        }
        return Ok(());
    }
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return array_integers(array, key, out);
    }
    if obj.is_instance_of::<PyString>() {
        return Err(not_nodes(key));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        for item in tuple.iter() {
            out.push(integer(&item, key)?);
        }
        return Ok(());
    }
    let iter = obj.try_iter().map_err(|_| not_nodes(key))?;
    for item in iter {
        out.push(integer(&item?, key)?);
    }
    Ok(())
}

fn not_nodes(key: &str) -> PyErr {
    PyTypeError::new_err(format!("`{key}` must be an array of node numbers"))
}

/// One Python integer (NumPy integer scalars included).
fn integer(item: &Bound<'_, PyAny>, key: &str) -> PyResult<i64> {
    item.extract::<i64>().map_err(|_| {
        let shown = item.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("`{key}` must contain non-negative integers, found {shown}"))
    })
}

/// The entries of a one-dimensional NumPy integer array.
fn array_integers(array: &Bound<'_, PyUntypedArray>, key: &str, out: &mut Vec<i64>) -> PyResult<()> {
    if array.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "`{key}` must be one-dimensional, found an array of shape {:?}",
            array.shape()
        )));
    }
    if let Ok(a) = array.cast::<PyArray1<i64>>() {
        let r = a.readonly();
        match r.as_slice() {
            Ok(s) => out.extend_from_slice(s),
            Err(_) => out.extend(r.as_array().iter().copied()),
        }
        return Ok(());
    }
    if let Ok(a) = array.cast::<PyArray1<i32>>() {
        out.extend(a.readonly().as_array().iter().map(|&x| i64::from(x)));
        return Ok(());
    }
    let kind = array.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyTypeError::new_err(format!(
            "`{key}` must be an integer array, found dtype {}",
            array.dtype().str().map(|s| s.to_string()).unwrap_or_default()
        )));
    }
    // Other integer widths: converted by NumPy (checked, with the usual casting rules).
    let converted = array.call_method1("astype", ("int64",))?;
    let a = converted.cast::<PyArray1<i64>>()?;
    out.extend(a.readonly().as_array().iter().copied());
    Ok(())
}

/// Node numbers (non-negative integers): a stack or a buffer.
pub(crate) fn nodes(obj: &Bound<'_, PyAny>, key: &str) -> PyResult<Vec<usize>> {
    let mut raw = Vec::new();
    integers(obj, key, &mut raw)?;
    raw.iter()
        .map(|&x| {
            usize::try_from(x)
                .map_err(|_| PyValueError::new_err(format!("`{key}` must contain non-negative integers, found {x}")))
        })
        .collect()
}

/// Arcs built so far: a sequence of (head, dependent) pairs.
pub(crate) fn arcs(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, usize)>> {
    let bad = || {
        let shown = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
        PyValueError::new_err(format!(
            "`arcs` must be an array of [head, dependent] pairs of node numbers, found {shown}"
        ))
    };
    if obj.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let mut out = Vec::new();
    for pair in obj.try_iter().map_err(|_| bad())? {
        let pair = pair?;
        let p = nodes(&pair, "arcs").map_err(|_| bad())?;
        match p[..] {
            [h, d] => out.push((h, d)),
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// A gold tree: a [`Tree`] or a [`Sentence`] (borrowed, no copy) or heads of words 1 … n
/// (0 = the root; a leading -1 is dropped), checked as [`DepTree::from_gold`]. `key` names the
/// argument in messages: "`gold` is not a tree: …".
pub(crate) fn tree<'a>(obj: &'a Bound<'_, PyAny>, key: &str) -> PyResult<Cow<'a, DepTree>> {
    if let Ok(t) = obj.cast::<Tree>() {
        return Ok(Cow::Borrowed(&t.get().tree));
    }
    if let Ok(s) = obj.cast::<Sentence>() {
        return Ok(Cow::Borrowed(s.get().tree_ref()?));
    }
    heads_tree(obj, key).map(Cow::Owned)
}

/// A new [`DepTree`] from heads of words 1 … n; a leading -1 (the root's
/// slot, as `tabula oracle`'s JSON may write it) is dropped
/// ([`DepTree::from_gold`]).
/// `None` for a word makes a partial tree (that word has no gold head;
/// [`DepTree::from_partial_gold`]).
pub(crate) fn heads_tree(obj: &Bound<'_, PyAny>, key: &str) -> PyResult<DepTree> {
    let mut raw = Vec::new();
    let not_a_tree = |e: tabula::tree::GoldError| PyValueError::new_err(format!("`{key}` is not a tree: {e}"));
    if let Err(e) = integers(obj, key, &mut raw) {
        return match obj.extract::<Vec<Option<i64>>>() {
            Ok(values) if values.contains(&None) => DepTree::from_partial_gold(&values).map_err(not_a_tree),
            _ => Err(e),
        };
    }
    DepTree::from_gold(&raw).map_err(not_a_tree)
}

/// The heads of words 1 … n of `tree` (0 = the root).
pub(crate) fn heads_of(tree: &DepTree) -> Vec<usize> {
    tree.heads().to_vec()
}
