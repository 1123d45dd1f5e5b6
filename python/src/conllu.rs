//! CoNLL-U treebanks from Python: `read_conllu`, `parse_conllu`,
//! `write_conllu` and [`Sentence`], over the library's byte-exact reader
//! and writer (only changed HEAD fields are rewritten).

use crate::convert::{self, heads_of, value_error};
use crate::tree::Tree;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use tabula::conllu::{Reader, Sentence as RawParsed};
use tabula::tree::DepTree;

/// One sentence of a CoNLL-U file: its lines exactly as read and its gold
/// tree (the HEAD column of the syntactic words). Immutable.
#[pyclass(module = "tabula", frozen)]
pub struct Sentence {
    inner: RawParsed,
}

impl Sentence {
    /// The gold tree, borrowed.
    pub(crate) fn tree_ref(&self) -> &DepTree {
        self.inner.tree()
    }
    /// The sentence's lines as read, borrowed.
    pub(crate) fn raw_text(&self) -> &[u8] {
        &self.inner.raw().text
    }
}

#[pymethods]
impl Sentence {
    /// The heads of words 1 … n.
    #[getter]
    fn heads(&self) -> Vec<usize> {
        heads_of(self.inner.tree())
    }
    /// The gold tree as a `Tree`.
    #[getter]
    fn tree(&self) -> Tree {
        Tree { tree: self.inner.tree().clone() }
    }
    /// The value of `# sent_id = …`, if any.
    #[getter]
    fn sent_id(&self) -> Option<&str> {
        self.inner.sent_id()
    }
    /// The 1-based line the sentence starts on.
    #[getter]
    fn first_line(&self) -> usize {
        self.inner.first_line()
    }
    /// The sentence's lines as read (with its trailing blank lines).
    #[getter]
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.inner.raw().text).into_owned()
    }
    /// The number of syntactic words n.
    fn __len__(&self) -> usize {
        self.inner.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Sentence(sent_id={:?}, line={}, heads={:?})",
            self.inner.sent_id(),
            self.inner.first_line(),
            self.inner.tree().heads()
        )
    }
}

fn os_error(path: &Path, e: std::io::Error) -> PyErr {
    let msg = format!("{}: {e}", path.display());
    if e.kind() == std::io::ErrorKind::NotFound {
        PyFileNotFoundError::new_err(msg)
    } else {
        PyOSError::new_err(msg)
    }
}

/// Parses every sentence of a stream; errors name the file and line.
fn parse_all(input: impl std::io::BufRead, name: &str) -> PyResult<Vec<Sentence>> {
    Reader::new(input, name).map(|s| s.map(|inner| Sentence { inner }).map_err(value_error)).collect()
}

/// Reads every sentence of a CoNLL-U file with the GIL released: the blocks
/// in order, then their parsing on rayon's threads. `ValueError` as
/// `file:line: message` for the first malformed sentence; `OSError` if the
/// file cannot be read. O(size).
#[pyfunction]
pub fn read_conllu(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Sentence>> {
    py.detach(|| {
        // xz and gzip files are decompressed (recognised by their first bytes).
        let file = tabula::conllu::compressed::open(&path).map_err(|e| os_error(&path, e))?;
        let mut reader = Reader::new(file, path.display().to_string());
        let mut blocks = Vec::new();
        while let Some(block) = reader.next_raw() {
            blocks.push(block.map_err(value_error)?);
        }
        let name = reader.file().clone();
        let parsed: Vec<_> = blocks.into_par_iter().with_min_len(64).map(|b| RawParsed::parse(b, &name)).collect();
        parsed.into_iter().map(|p| p.map(|inner| Sentence { inner }).map_err(|bad| value_error(bad.error))).collect()
    })
}

/// Parses CoNLL-U text; `name` stands for the file in error messages.
#[pyfunction]
#[pyo3(signature = (text, name = "<string>"))]
pub fn parse_conllu(text: &str, name: &str) -> PyResult<Vec<Sentence>> {
    parse_all(text.as_bytes(), name)
}

/// Writes sentences to a CoNLL-U file, byte for byte as read, except that
/// where `heads[i]` is given (heads of words 1 … n or a `Tree`; `None`
/// keeps the gold ones) only the HEAD fields that change are rewritten.
/// The file is written beside the target and renamed over it at the end.
#[pyfunction]
#[pyo3(signature = (path, sentences, heads = None))]
pub fn write_conllu(
    py: Python<'_>,
    path: PathBuf,
    sentences: Vec<Bound<'_, Sentence>>,
    heads: Option<Vec<Option<Bound<'_, PyAny>>>>,
) -> PyResult<()> {
    if let Some(h) = &heads {
        if h.len() != sentences.len() {
            return Err(PyValueError::new_err(format!("{} sentences but {} head lists", sentences.len(), h.len())));
        }
    }
    let mut trees: Vec<Option<Cow<'_, DepTree>>> = Vec::with_capacity(sentences.len());
    for (i, s) in sentences.iter().enumerate() {
        let t = match heads.as_ref().and_then(|h| h[i].as_ref()) {
            None => None,
            Some(h) => {
                let t = convert::tree(h, "heads").map_err(|e| crate::tree::index_error(e, "sentence", i))?;
                let n = s.get().inner.len();
                if t.len() != n {
                    return Err(PyValueError::new_err(format!(
                        "sentence {i}: the new heads are for {} words but the sentence has {n}",
                        t.len()
                    )));
                }
                Some(t)
            }
        };
        trees.push(t);
    }
    let items: Vec<(&RawParsed, Option<&DepTree>)> =
        sentences.iter().zip(&trees).map(|(s, t)| (&s.get().inner, t.as_deref())).collect();
    py.detach(|| write_atomically(&path, &items))
}

fn write_atomically(path: &Path, items: &[(&RawParsed, Option<&DepTree>)]) -> PyResult<()> {
    let name = path.file_name().ok_or_else(|| PyValueError::new_err(format!("{}: not a file name", path.display())))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".tabula-{}.tmp", std::process::id()));
    let temp = path.with_file_name(temp_name);
    let result = (|| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&temp)?);
        for (s, t) in items {
            match t {
                Some(t) => s.write_with_heads(t, &mut out)?,
                None => s.write(&mut out)?,
            }
        }
        out.flush()?;
        std::fs::rename(&temp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        os_error(path, e)
    })
}
