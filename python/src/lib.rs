//! `tabula._tabula`: the Python extension of tabula (PyO3), re-exported by
//! the pure-Python package `tabula` (`python/tabula/__init__.py`).
//!
//! Layers, each only calling the library's public API:
//!
//! * [`convert`] — Python values to node lists and gold trees, library
//!   errors to Python exceptions (the command line's messages);
//! * [`tree`] — [`tree::Tree`], optimal projectivization and counting
//!   (Nederhof 2019, Sec. 3, 8.1);
//! * [`oracle`] — configurations, one-shot oracles (Sec. 4–6), sessions
//!   (Sec. 7) and batch calls on rayon's threads with the GIL released;
//! * [`conllu`] — reading and writing CoNLL-U;
//! * [`grammar`] — grammar files and the engine (Sec. 3, Table 2).
//!
//! No call panics across the boundary: every library error becomes a
//! Python exception (`ValueError`, `GrammarError`, `OSError`).

mod conllu;
mod convert;
mod grammar;
mod oracle;
mod tree;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _tabula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tree::Tree>()?;
    m.add_class::<oracle::PyConfiguration>()?;
    m.add_class::<oracle::PyOracle>()?;
    m.add_class::<oracle::PySession>()?;
    m.add_class::<conllu::Sentence>()?;
    m.add_class::<grammar::PyGrammar>()?;
    m.add("GrammarError", m.py().get_type::<grammar::GrammarError>())?;
    m.add_function(wrap_pyfunction!(tree::projectivize, m)?)?;
    m.add_function(wrap_pyfunction!(tree::projectivize_batch, m)?)?;
    m.add_function(wrap_pyfunction!(tree::count, m)?)?;
    m.add_function(wrap_pyfunction!(tree::count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(oracle::scores_batch, m)?)?;
    m.add_function(wrap_pyfunction!(oracle::apply_batch, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::read_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::parse_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::write_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(steps, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The names of the transition systems the whole Python API serves
/// (scores, sessions, batch arrays with one column per step): every
/// registered system but `lr-spine`. Attardi is listed: its five steps are
/// fixed, and with no strategy given `Oracle` and `Session` use `none`, the
/// only one its tabular oracle scores. LR-spine is accepted by name
/// (`Oracle("lr-spine").scores(...)`, sessions, spine steps `left_arc_K` /
/// `right_arc_K` of every K included in the dicts) but not listed: its
/// steps are unbounded, and the batch arrays (`scores_batch`, columns =
/// `steps(system)`) have columns for K = 1 only, so they would drop the
/// scores of deeper spine steps.
#[pyfunction]
fn systems() -> Vec<&'static str> {
    use tabula::oracle::System;
    System::ALL.iter().filter(|&&s| s != System::LrSpine).map(|s| s.name()).collect()
}

/// The names of a system's steps, in the order of `scores` and of the
/// columns of the batch arrays.
#[pyfunction]
fn steps(system: &str) -> PyResult<Vec<&'static str>> {
    let s: tabula::oracle::System = system.parse().map_err(convert::value_error)?;
    Ok(s.steps().iter().map(|s| s.name()).collect())
}
