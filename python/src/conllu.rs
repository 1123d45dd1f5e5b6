//! CoNLL-U treebanks from Python: `read_conllu`, `parse_conllu`,
//! `write_conllu` and [`Sentence`], over the library's byte-exact reader
//! and writer (only changed HEAD fields are rewritten).

use crate::convert::{self, heads_of, value_error};
use crate::tree::Tree;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tabula::conllu::fields::field_lines;
use tabula::conllu::{ConlluError, ErrorKind, InvalidSentence, RawSentence, Reader, Sentence as RawParsed};
use tabula::output::Output;
use tabula::parser::columns::Columns;
use tabula::tree::DepTree;

/// One sentence of a CoNLL-U file: its lines exactly as read, its gold
/// tree (the HEAD column of the syntactic words) if it has one, and the
/// columns of its words. Immutable.
#[pyclass(module = "tabula_parsing", frozen)]
pub struct Sentence {
    inner: Inner,
    /// The file (or `name`) it was read from, for messages.
    pub(crate) file: Arc<str>,
}

/// A sentence with a tree, or one whose every HEAD is `_` (text to parse).
enum Inner {
    Tree(RawParsed),
    NoTree(RawSentence),
}

impl Sentence {
    /// A sentence from a block: with its tree, or without one if every
    /// HEAD is `_` (the block is then checked as the parser reads it).
    pub(crate) fn from_block(raw: RawSentence, file: &Arc<str>) -> Result<Sentence, ConlluError> {
        match RawParsed::parse(raw, file) {
            Ok(parsed) => Ok(Sentence { inner: Inner::Tree(parsed), file: file.clone() }),
            Err(bad) => {
                let InvalidSentence { error, raw } = *bad;
                let no_heads = matches!(&error.kind, ErrorKind::BadHead { head } if head == "_")
                    && Columns::scan(&raw, file)
                        .is_ok_and(|c| !c.is_empty() && c.words.iter().all(|w| &raw.text[w.head.clone()] == b"_"));
                if no_heads {
                    Ok(Sentence { inner: Inner::NoTree(raw), file: file.clone() })
                } else {
                    Err(error)
                }
            }
        }
    }

    /// The gold tree, borrowed; `ValueError` for a sentence without one.
    pub(crate) fn tree_ref(&self) -> PyResult<&DepTree> {
        self.parsed().map(RawParsed::tree)
    }

    /// The sentence with its tree, borrowed; `ValueError` for one without.
    pub(crate) fn parsed(&self) -> PyResult<&RawParsed> {
        match &self.inner {
            Inner::Tree(p) => Ok(p),
            Inner::NoTree(raw) => Err(PyValueError::new_err(format!(
                "{}:{}: the sentence has no tree (its HEAD column is `_`)",
                self.file, raw.first_line
            ))),
        }
    }

    /// The sentence's block as read, borrowed.
    pub(crate) fn raw(&self) -> &RawSentence {
        match &self.inner {
            Inner::Tree(p) => p.raw(),
            Inner::NoTree(raw) => raw,
        }
    }

    /// The sentence's lines as read, borrowed.
    pub(crate) fn raw_text(&self) -> &[u8] {
        &self.raw().text
    }

    /// Column `column` (0-based) of each syntactic word.
    fn column(&self, column: usize) -> Vec<String> {
        let text = self.raw_text();
        field_lines(text)
            .filter(|l| l.is_word(text))
            .map(|l| l.field(column).map_or_else(String::new, |r| String::from_utf8_lossy(&text[r]).into_owned()))
            .collect()
    }

    /// The value of the first comment `# key = value`.
    fn comment(&self, key: &str) -> Option<String> {
        let text = std::str::from_utf8(self.raw_text()).ok()?;
        text.lines().filter_map(|l| l.strip_prefix('#')).find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_owned())
        })
    }
}

#[pymethods]
impl Sentence {
    /// The heads of words 1 … n (0 = the root); `None` for a sentence
    /// without a tree (every HEAD `_`).
    #[getter]
    fn heads(&self) -> Option<Vec<usize>> {
        self.tree_ref().ok().map(heads_of)
    }
    /// The gold tree as a `Tree`; `ValueError` for a sentence without one.
    #[getter]
    fn tree(&self) -> PyResult<Tree> {
        Ok(Tree { tree: self.tree_ref()?.clone() })
    }
    /// Whether the sentence has a tree (its HEAD column is not `_`).
    #[getter]
    fn has_tree(&self) -> bool {
        matches!(self.inner, Inner::Tree(_))
    }
    /// FORM of each word (syntactic words: not multiword tokens or empty nodes).
    #[getter]
    fn forms(&self) -> Vec<String> {
        self.column(1)
    }
    /// LEMMA of each word.
    #[getter]
    fn lemmas(&self) -> Vec<String> {
        self.column(2)
    }
    /// UPOS of each word.
    #[getter]
    fn upos(&self) -> Vec<String> {
        self.column(3)
    }
    /// XPOS of each word.
    #[getter]
    fn xpos(&self) -> Vec<String> {
        self.column(4)
    }
    /// FEATS of each word.
    #[getter]
    fn feats(&self) -> Vec<String> {
        self.column(5)
    }
    /// DEPREL of each word.
    #[getter]
    fn deprels(&self) -> Vec<String> {
        self.column(7)
    }
    /// DEPS of each word.
    #[getter]
    fn deps(&self) -> Vec<String> {
        self.column(8)
    }
    /// MISC of each word.
    #[getter]
    fn misc(&self) -> Vec<String> {
        self.column(9)
    }
    /// The value of `# sent_id = …`, if any.
    #[getter]
    fn sent_id(&self) -> Option<String> {
        match &self.inner {
            Inner::Tree(p) => p.sent_id().map(str::to_owned),
            Inner::NoTree(_) => self.comment("sent_id"),
        }
    }
    /// The value of `# text = …` (the sentence's text), if any.
    #[getter]
    fn text(&self) -> Option<String> {
        self.comment("text")
    }
    /// The 1-based line the sentence starts on.
    #[getter]
    fn first_line(&self) -> usize {
        self.raw().first_line
    }
    /// The file the sentence was read from (`<stdin>` for standard input,
    /// or the `name` given to `parse_conllu`), as messages name it.
    #[getter]
    fn file(&self) -> &str {
        &self.file
    }
    /// The sentence's lines exactly as read (with its trailing blank line):
    /// what `write_conllu` writes.
    fn to_conllu(&self) -> String {
        String::from_utf8_lossy(self.raw_text()).into_owned()
    }
    /// The number of syntactic words n.
    fn __len__(&self) -> usize {
        match &self.inner {
            Inner::Tree(p) => p.len(),
            Inner::NoTree(raw) => field_lines(&raw.text).filter(|l| l.is_word(&raw.text)).count(),
        }
    }

    /// The tree as an SVG arc diagram (what Jupyter shows); see `draw`.
    fn _repr_svg_(&self) -> PyResult<String> {
        crate::draw::sentence_svg(self)
    }

    fn __repr__(&self) -> String {
        format!("Sentence(sent_id={:?}, line={}, heads={:?})", self.sent_id(), self.first_line(), self.heads())
    }
}

pub(crate) fn os_error(path: &Path, e: std::io::Error) -> PyErr {
    let msg = format!("{}: {e}", path.display());
    if e.kind() == std::io::ErrorKind::NotFound {
        PyFileNotFoundError::new_err(msg)
    } else {
        PyOSError::new_err(msg)
    }
}

/// Parses every sentence of a stream; errors name the file and line.
pub(crate) fn parse_all(input: impl std::io::BufRead, name: &str) -> PyResult<Vec<Sentence>> {
    let mut reader = Reader::new(input, name);
    let file = reader.file().clone();
    let mut out = Vec::new();
    while let Some(block) = reader.next_raw() {
        out.push(Sentence::from_block(block.map_err(value_error)?, &file).map_err(value_error)?);
    }
    Ok(out)
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
        let parsed: Vec<_> = blocks.into_par_iter().with_min_len(64).map(|b| Sentence::from_block(b, &name)).collect();
        parsed.into_iter().map(|p| p.map_err(value_error)).collect()
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
/// Written as [`write_file`] writes: a regular file through a temporary
/// file renamed over it at the end, a device or FIFO in place.
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
                if !s.get().has_tree() {
                    return Err(PyValueError::new_err(format!(
                        "sentence {i}: new heads for a sentence without a tree (its HEAD column is `_`): \
                         give it heads with Parser.parse"
                    )));
                }
                let n = s.get().__len__();
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
    let items: Vec<(&Sentence, Option<&DepTree>)> =
        sentences.iter().zip(&trees).map(|(s, t)| (s.get(), t.as_deref())).collect();
    py.detach(|| write_atomically(&path, &items))
}

fn write_atomically(path: &Path, items: &[(&Sentence, Option<&DepTree>)]) -> PyResult<()> {
    write_output(path, |out| {
        for (s, t) in items {
            match (&s.inner, t) {
                (Inner::Tree(p), Some(t)) => p.write_with_heads(t, out)?,
                _ => out.write_all(s.raw_text())?,
            }
        }
        Ok(())
    })
}

/// Writes `path` as the command line's `-o` does ([`Output`]): a regular
/// file through a temporary file renamed at the end (none left behind if
/// `fill` fails), a device or FIFO in place, `-` to standard output.
pub(crate) fn write_output(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> PyResult<()> {
    write_output_apart(path, &[], fill)
}

/// [`write_output`], refusing first an output that is the same file as one
/// of `inputs` ([`Output::create_apart`]).
fn write_output_apart(
    path: &Path,
    inputs: &[PathBuf],
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> PyResult<()> {
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let mut out = Output::create_apart(Some(path), &inputs).map_err(output_error)?;
    fill(out.writer()).map_err(output_error)?;
    out.commit().map_err(output_error)
}

/// An output's error (its message names the path) as Python's: missing
/// directory → FileNotFoundError, no permission → PermissionError, else
/// OSError.
fn output_error(e: std::io::Error) -> PyErr {
    match e.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(e.to_string()),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(e.to_string()),
        _ => PyOSError::new_err(e.to_string()),
    }
}

/// Writes `data` (bytes or text, written as UTF-8) to `path` as the command
/// line's `-o` does: a regular file (or a new one) through a temporary file
/// in its directory, renamed over it at the end, so that a failed write
/// leaves the old file whole and no temporary file behind (symbolic links
/// followed); a device or FIFO (`/dev/stdout`, `/dev/null`) written in
/// place, never replaced; `-`: standard output. A missing directory, a
/// directory or a read-only file is refused (FileNotFoundError, OSError);
/// so is a path that is the same file as one of `inputs` (a hard or
/// symbolic link to it too), which would be replaced (OSError).
#[pyfunction]
#[pyo3(signature = (path, data, *, inputs = Vec::new()), text_signature = "(path, data, *, inputs=())")]
pub fn write_file(py: Python<'_>, path: PathBuf, data: &Bound<'_, PyAny>, inputs: Vec<PathBuf>) -> PyResult<()> {
    let bytes: Vec<u8> = if let Ok(text) = data.extract::<String>() {
        text.into_bytes()
    } else {
        data.extract::<Vec<u8>>().map_err(|_| PyTypeError::new_err("data must be bytes or str"))?
    };
    py.detach(|| write_output_apart(&path, &inputs, |out| out.write_all(&bytes)))
}

/// Checks that [`write_file`] could write `path` with these `inputs`, and
/// writes nothing: the same refusals with the same errors, before a long
/// computation rather than after it.
///
/// >>> check_output(SAMPLE, inputs=[SAMPLE])
/// Traceback (most recent call last):
/// OSError: cannot write ...sample.conllu: it is the same file as the input ...sample.conllu, which would be replaced
#[pyfunction]
#[pyo3(signature = (path, inputs = Vec::new()), text_signature = "(path, inputs=())")]
pub fn check_output(py: Python<'_>, path: PathBuf, inputs: Vec<PathBuf>) -> PyResult<()> {
    py.detach(|| {
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        Output::check(Some(&path), &inputs).map_err(output_error)
    })
}

/// What kind of file `data` (a file's first bytes) is, if it is one tabula
/// knows but was not asked for: `(line, what)`, e.g. `(4, "a CoNLL-U
/// treebank")` — for messages about a file given in the wrong place.
///
/// >>> file_kind(open(SAMPLE, "rb").read())
/// (4, 'a CoNLL-U treebank')
#[pyfunction]
pub fn file_kind(data: &[u8]) -> Option<(usize, &'static str)> {
    tabula::file_kind::other_kind(data)
}

/// Text from a file as a terminal or a message should show it: control
/// characters (C0, DEL, C1) and U+FFFE/U+FFFF written visibly (`\x1b`,
/// `\u{fffe}`), as the command line's messages and pictures write them.
///
/// >>> shown("a\x1b[2Jb")
/// 'a\\x1b[2Jb'
#[pyfunction]
pub fn shown(text: &str) -> String {
    tabula::shown::shown(text).into_owned()
}
