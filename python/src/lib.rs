//! `tabula_parsing._tabula`: the Python extension of tabula (PyO3),
//! re-exported by the pure-Python package `tabula_parsing`
//! (`python/tabula_parsing/__init__.py`).
//!
//! Layers, each only calling the library's public API:
//!
//! * [`convert`] — Python values to node lists and gold trees, library
//!   errors to Python exceptions (the command line's messages);
//! * [`tree`] — [`tree::Tree`], optimal projectivization and counting
//!   (Nederhof 2019, Sec. 3, 8.1);
//! * [`oracle`] — configurations, one-shot oracles (Sec. 4–6), sessions
//!   (Sec. 7) and batch calls on rayon's threads with the GIL released;
//! * [`batch`] — [`batch::PyOracleBatch`], the oracle of a minibatch for a
//!   neural parser's training loop (one array per query);
//! * [`conllu`] — reading and writing CoNLL-U;
//! * [`parser`] — the trained parser (`Parser.train`, `load`, `save`,
//!   `parse`) and `evaluate`, as `tabula train`, `parse` and `eval`;
//! * [`tagger`] — the built-in tagger (`Tagger.train`, `load`, `save`,
//!   `tag`, `accuracy`), as `tabula train-tagger` and `tag`;
//! * [`draw`] — pictures of trees (SVG, HTML, text), as `tabula draw`;
//! * [`grammar`] — grammar files and the engine (Sec. 3, Table 2);
//! * [`distribution`] — real scores in, NumPy out: log-partition, marginals,
//!   entropy, k best and samples of a grammar's trees, and over all trees
//!   by the Matrix-Tree theorem (`tabula_parsing.nonprojective`).
//!
//! No call panics across the boundary: every library error becomes a
//! Python exception (`ValueError`, `GrammarError`, `OSError`, `MemoryError`).

mod batch;
mod conllu;
mod convert;
mod crf;
mod distribution;
mod draw;
mod grammar;
mod interrupt;
mod oracle;
mod parser;
mod tagger;
mod tree;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _tabula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<tree::Tree>()?;
    m.add_class::<oracle::PyConfiguration>()?;
    m.add_class::<oracle::PyOracle>()?;
    m.add_class::<oracle::PySession>()?;
    m.add_class::<batch::PyOracleBatch>()?;
    m.add_class::<conllu::Sentence>()?;
    m.add_class::<grammar::PyGrammar>()?;
    m.add_class::<parser::PyParser>()?;
    m.add_class::<tagger::PyTagger>()?;
    m.add("GrammarError", m.py().get_type::<grammar::GrammarError>())?;
    m.add_function(wrap_pyfunction!(tree::projectivize, m)?)?;
    m.add_function(wrap_pyfunction!(tree::projectivize_batch, m)?)?;
    m.add_function(wrap_pyfunction!(tree::count, m)?)?;
    m.add_function(wrap_pyfunction!(tree::pseudo_projective_encode, m)?)?;
    m.add_function(wrap_pyfunction!(tree::pseudo_projective_decode, m)?)?;
    m.add_function(wrap_pyfunction!(tree::count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(oracle::scores_batch, m)?)?;
    m.add_function(wrap_pyfunction!(oracle::apply_batch, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::read_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::parse_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::write_file, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::check_output, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::file_kind, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::shown, m)?)?;
    m.add_function(wrap_pyfunction!(conllu::write_conllu, m)?)?;
    m.add_function(wrap_pyfunction!(parser::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(parser::deprojectivize, m)?)?;
    m.add_function(wrap_pyfunction!(parser::check_input, m)?)?;
    m.add_function(wrap_pyfunction!(parser::ensemble, m)?)?;
    m.add_function(wrap_pyfunction!(parser::set_max_memory, m)?)?;
    m.add_function(wrap_pyfunction!(parser::max_memory, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::nonprojective_log_partition, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::nonprojective_marginals, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::nonprojective_log_partition_batch, m)?)?;
    m.add_function(wrap_pyfunction!(distribution::nonprojective_marginals_batch, m)?)?;
    m.add_function(wrap_pyfunction!(crf::crf_partition, m)?)?;
    m.add_function(wrap_pyfunction!(crf::crf_kbest, m)?)?;
    m.add_function(wrap_pyfunction!(crf::crf_sample, m)?)?;
    m.add_function(wrap_pyfunction!(crf::crf_tree_log_derivations, m)?)?;
    m.add_function(wrap_pyfunction!(draw::draw, m)?)?;
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(steps, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The names of the transition systems: every one the oracles, sessions,
/// batch calls and the parser serve. LR-spine's spine steps `left_arc_K` /
/// `right_arc_K` have a column for every K its oracle scores (1 … 32),
/// see `steps`.
#[pyfunction]
fn systems() -> Vec<&'static str> {
    tabula::oracle::System::ALL.iter().map(|s| s.name()).collect()
}

/// The names of a system's steps, in the order of `scores` and of the
/// columns of the batch arrays (LR-spine: `shift`, `left_arc_1` …
/// `left_arc_32`, `right_arc_1` … `right_arc_32`).
#[pyfunction]
fn steps(system: &str) -> PyResult<Vec<&'static str>> {
    let s: tabula::oracle::System = system.parse().map_err(convert::value_error)?;
    Ok(oracle::step_names(s))
}
