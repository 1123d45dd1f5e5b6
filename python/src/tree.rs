//! Gold trees, optimal projectivization and counting (Nederhof 2019, Sec. 3
//! and 8.1, Fig. 8): [`Tree`], `projectivize`, `count` and their batch forms.
//!
//! The grammars are the embedded Table 3 grammar (`projective.grammar`) and
//! its single-root variant, parsed once per process. Each thread keeps its
//! own projectivizer and counter (engine charts reused across calls), so
//! that the batch functions, which release the GIL and run on rayon's
//! threads, allocate nothing per tree once warm beyond the answer.

use crate::conllu::Sentence;
use crate::convert::{self, heads_of, value_error};
use num_bigint::BigUint;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tabula::grammar::{text, Grammar};
use tabula::projectivize::{
    lift, Counter, OptimalProjectivizer, OptimalSampler, PreferringProjectivizer, ProjectivizeError, TreeClass,
    Weights, WordLabels,
};
use tabula::tree::DepTree;

/// A dependency tree over words 1 … n, position 0 being the root: checked
/// once (heads in range, no cycle), then passed to the oracles and
/// projectivizers without copying. Immutable.
#[pyclass(module = "tabula_parsing", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Tree {
    pub(crate) tree: DepTree,
}

#[pymethods]
impl Tree {
    /// A tree from the heads of words 1 … n (0 = the root); `ValueError`
    /// if they do not form a tree. O(n).
    #[new]
    fn new(heads: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Tree { tree: convert::heads_tree(heads, "heads")? })
    }

    /// The heads of words 1 … n.
    #[getter]
    fn heads(&self) -> Vec<usize> {
        heads_of(&self.tree)
    }

    /// The arcs (head, dependent), by dependent.
    fn arcs(&self) -> Vec<(usize, usize)> {
        self.tree.arcs().collect()
    }

    /// Whether no two arcs cross (arcs from the root included). O(n).
    #[getter]
    fn is_projective(&self) -> bool {
        self.tree.is_projective()
    }

    /// The number of words n.
    fn __len__(&self) -> usize {
        self.tree.len()
    }

    /// The head of word `i + 1` (`tree[i]` is `tree.heads[i]`; negative
    /// indices count from the end); `IndexError` outside.
    fn __getitem__(&self, i: isize) -> PyResult<usize> {
        let n = self.tree.len() as isize;
        let at = if i < 0 { i + n } else { i };
        if !(0..n).contains(&at) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!("index {i} out of a tree of {n} words")));
        }
        Ok(self.tree.head(at as usize + 1))
    }

    /// The heads of words 1 … n, in order (as `heads`).
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let heads = pyo3::types::PyList::new(py, self.tree.heads())?;
        Ok(heads.try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> String {
        format!("Tree({:?})", self.tree.heads())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let args = PyTuple::new(py, [slf.get().tree.heads().to_vec()])?;
        Ok((slf.get_type().into_any(), args))
    }
}

/// The embedded grammars, parsed once.
fn grammar(single_root: bool) -> &'static Grammar {
    static PROJECTIVE: OnceLock<Grammar> = OnceLock::new();
    static SINGLE_ROOT: OnceLock<Grammar> = OnceLock::new();
    let parse = |name: &str, src: &str| match text::parse_str(name, src) {
        Ok(p) => p.grammar,
        Err(e) => unreachable!("the embedded grammar {name} is valid: {e}"),
    };
    if single_root {
        SINGLE_ROOT.get_or_init(|| parse("projective-single-root.grammar", tabula::grammars::PROJECTIVE_SINGLE_ROOT))
    } else {
        PROJECTIVE.get_or_init(|| parse("projective.grammar", tabula::grammars::PROJECTIVE))
    }
}

fn class(single_root: bool) -> TreeClass {
    if single_root {
        TreeClass::ProjectiveSingleRoot
    } else {
        TreeClass::Projective
    }
}

/// Per-thread engines for the two embedded grammars.
#[derive(Default)]
struct Engines {
    projectivizers: [Option<OptimalProjectivizer<'static>>; 2],
    samplers: [Option<OptimalSampler<'static>>; 2],
    counters: [Option<Counter<'static>>; 2],
    preferring: [Option<PreferringProjectivizer<'static>>; 2],
    labels: WordLabels,
}

thread_local! {
    static ENGINES: RefCell<Engines> = RefCell::new(Engines::default());
}

fn projectivizer<'a>(
    slot: &'a mut Option<OptimalProjectivizer<'static>>,
    single_root: bool,
) -> &'a mut OptimalProjectivizer<'static> {
    slot.get_or_insert_with(|| match OptimalProjectivizer::new(grammar(single_root), class(single_root)) {
        Ok(p) => p,
        Err(e) => unreachable!("the embedded grammars have the terminal a: {e}"),
    })
}

fn sampler<'a>(slot: &'a mut Option<OptimalSampler<'static>>, single_root: bool) -> &'a mut OptimalSampler<'static> {
    slot.get_or_insert_with(|| match OptimalSampler::new(grammar(single_root), class(single_root)) {
        Ok(s) => s,
        Err(e) => unreachable!("the embedded grammars have the terminal a: {e}"),
    })
}

fn counter<'a>(slot: &'a mut Option<Counter<'static>>, single_root: bool) -> &'a mut Counter<'static> {
    slot.get_or_insert_with(|| match Counter::new(grammar(single_root), class(single_root)) {
        Ok(c) => c,
        Err(e) => unreachable!("the embedded grammars have the terminal a: {e}"),
    })
}

/// A preferring projectivizer for `weights` (the thread's own, rebuilt when
/// the weights change).
fn preferring<'a>(
    slot: &'a mut Option<PreferringProjectivizer<'static>>,
    single_root: bool,
    weights: &Weights,
) -> &'a mut PreferringProjectivizer<'static> {
    if slot.as_ref().is_some_and(|p| p.weights() != weights) {
        *slot = None;
    }
    slot.get_or_insert_with(|| {
        match PreferringProjectivizer::new(grammar(single_root), class(single_root), weights.clone()) {
            Ok(p) => p,
            Err(e) => unreachable!("the embedded grammars have the terminal a: {e}"),
        }
    })
}

/// The weights of `prefer`: `None` for no preference (`None` or `"none"`),
/// the built-in ones for `"default"`, else a weights file (`ValueError` with
/// every error as `path:line: message`; `OSError` if unreadable).
fn load_weights(prefer: Option<&Path>) -> PyResult<Option<Weights>> {
    match prefer {
        None => Ok(None),
        Some(p) if p == Path::new("none") => Ok(None),
        Some(p) if p == Path::new("default") => Ok(Some(Weights::default())),
        Some(p) => {
            let text = tabula::projectivize::read_weights_file(p)
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", p.display())))?;
            let weights = Weights::parse(&text).map_err(|errors| {
                let lines: Vec<String> =
                    errors.0.iter().map(|e| format!("{}:{}: {}", p.display(), e.line, e.kind)).collect();
                value_error(lines.join("\n"))
            })?;
            Ok(Some(weights))
        }
    }
}

/// The CoNLL-U text of a `Sentence` (its labels, for `prefer`), or `None`.
fn sentence_text<'a>(obj: &'a Bound<'_, PyAny>) -> Option<&'a [u8]> {
    obj.cast::<Sentence>().ok().map(|s| s.get().raw_text())
}

/// The weights of `prefer` as `tabula projectivize --prefer` takes them:
/// not given, the built-in ones (`default`) where they apply — `method`
/// optimal without `sample`, on Sentences (`labelled`; heads and Trees have
/// no labels to prefer by, so their ties are broken as with `none`).
fn weights_of(prefer: Option<&Path>, method: &str, sample: Option<u64>, labelled: bool) -> PyResult<Option<Weights>> {
    match prefer {
        None if method == "optimal" && sample.is_none() && labelled => Ok(Some(Weights::default())),
        None => Ok(None),
        Some(p) => load_weights(Some(p)),
    }
}

const PREFER_NEEDS_LABELS: &str =
    "prefer weighs arcs by UPOS, FEATS and DEPREL: pass Sentences (from read_conllu), not heads or Trees";

/// How to projectivize.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method<'w> {
    /// The first optimal tree (deterministic ties).
    Optimal,
    /// The optimal tree with the best secondary score for these weights.
    Prefer(&'w Weights),
    /// An optimal tree drawn uniformly, from this seed (tree i: stream i).
    Sample(u64),
    /// Pseudo-projective lifting.
    Lift,
}

fn method<'w>(
    name: &str,
    single_root: bool,
    sample: Option<u64>,
    weights: Option<&'w Weights>,
) -> PyResult<Method<'w>> {
    if weights.is_some() && (name != "optimal" || sample.is_some()) {
        return Err(PyValueError::new_err(
            "prefer applies to method optimal without sample (sample draws among all optimal trees)",
        ));
    }
    let m = match (name, sample) {
        ("optimal", None) => weights.map_or(Method::Optimal, Method::Prefer),
        ("optimal", Some(seed)) => Method::Sample(seed),
        ("lift", None) => Method::Lift,
        ("lift", Some(_)) => return Err(PyValueError::new_err("sample applies to method optimal only")),
        _ => return Err(PyValueError::new_err(format!("unknown method `{name}` (expected optimal or lift)"))),
    };
    if m == Method::Lift && single_root {
        return Err(PyValueError::new_err("single_root applies to method optimal only"));
    }
    Ok(m)
}

/// The projectivization of tree number `index` on the calling thread;
/// `text`: the sentence's CoNLL-U lines, which `Method::Prefer` needs.
fn project(
    gold: &DepTree,
    text: Option<&[u8]>,
    method: Method<'_>,
    single_root: bool,
    index: u64,
) -> Result<DepTree, ProjectivizeError> {
    let slot = usize::from(single_root);
    match method {
        Method::Prefer(weights) => ENGINES.with(|e| {
            let mut e = e.borrow_mut();
            let e = &mut *e;
            e.labels.read_conllu(text.unwrap_or_default());
            preferring(&mut e.preferring[slot], single_root, weights).projectivize(gold, &e.labels).map(|p| p.tree)
        }),
        Method::Lift => Ok(lift(gold)),
        Method::Optimal => ENGINES.with(|e| {
            let mut e = e.borrow_mut();
            projectivizer(&mut e.projectivizers[slot], single_root).projectivize(gold).map(|p| p.tree)
        }),
        Method::Sample(seed) => ENGINES.with(|e| {
            let mut e = e.borrow_mut();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(index);
            sampler(&mut e.samplers[slot], single_root).sample(gold, &mut rng).map(|p| p.tree)
        }),
    }
}

/// The best score and count of one tree on the calling thread.
fn count_one(gold: &DepTree, single_root: bool) -> Result<(usize, BigUint), ProjectivizeError> {
    ENGINES.with(|e| {
        let mut e = e.borrow_mut();
        counter(&mut e.counters[usize::from(single_root)], single_root).count(gold).map(|c| (c.best, c.count))
    })
}

/// Trees from a sequence of [`Tree`]s or head lists (converted while the GIL is held).
fn trees<'a>(items: &'a [Bound<'_, PyAny>], key: &str) -> PyResult<Vec<Cow<'a, DepTree>>> {
    items.iter().enumerate().map(|(i, t)| convert::tree(t, key).map_err(|e| index_error(e, key, i))).collect()
}

/// Prefixes an error's message with the index of the item it is about.
pub(crate) fn index_error(e: PyErr, what: &str, i: usize) -> PyErr {
    Python::attach(|py| {
        let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
        let ty = e.get_type(py);
        PyErr::from_type(ty, format!("{what} {i}: {msg}"))
    })
}

/// The most gold arcs a projective tree keeps, and such a tree (Nederhof 2019,
/// Sec. 3; Sec. 8.1): `method="optimal"` runs the Table 3 grammar in the
/// max-plus semiring (ties broken as the command line does), `"lift"` is
/// pseudo-projective lifting (Nivre & Nilsson 2005). With `sample=SEED`, an
/// optimal tree drawn uniformly ((max, count) semiring), as `tabula
/// projectivize --sample SEED` draws for the sentence numbered `stream`
/// (from 0). With `prefer="default"` or a weights file (a `Sentence`
/// only: the weights read its UPOS, FEATS and DEPREL), among the optimal
/// trees one with the best secondary score (`--prefer`); `prefer=None`
/// (not given) is what `tabula projectivize` does without `--prefer`: the
/// built-in weights for a `Sentence` with `method="optimal"` and no
/// `sample`, so the same call gives the tree the command line writes (heads
/// and Trees have no labels: ties broken as with `"none"`); `"none"`: ties
/// broken as `--prefer none`. Returns the heads of words 1 … n. O(n) for a projective
/// tree, O(n³) otherwise.
#[pyfunction]
#[pyo3(signature = (heads, method = "optimal", *, single_root = false, sample = None, stream = 0, prefer = None))]
pub fn projectivize(
    heads: &Bound<'_, PyAny>,
    method: &str,
    single_root: bool,
    sample: Option<&Bound<'_, PyAny>>,
    stream: i128,
    prefer: Option<PathBuf>,
) -> PyResult<Vec<usize>> {
    let (sample, stream) = (convert::seed_opt(sample, "sample")?, convert::seed_in_range(stream, "stream")?);
    let gold = convert::tree(heads, "heads")?;
    let text = sentence_text(heads);
    let weights = weights_of(prefer.as_deref(), method, sample, text.is_some())?;
    let m = self::method(method, single_root, sample, weights.as_ref())?;
    if matches!(m, Method::Prefer(_)) && text.is_none() {
        return Err(value_error(PREFER_NEEDS_LABELS));
    }
    project(&gold, text, m, single_root, stream).map(|t| heads_of(&t)).map_err(value_error)
}

/// [`projectivize`] for many trees (heads, `Tree`s or `Sentence`s), on
/// rayon's threads with the GIL released; with `sample=SEED`, tree i is drawn
/// with stream i, as the command line does. Returns `Tree`s, which every call
/// takes without conversion; a `Tree` given that is already projective comes
/// back as the same object. `prefer` as for [`projectivize`] (every item a
/// `Sentence`).
#[pyfunction]
#[pyo3(signature = (trees, method = "optimal", *, single_root = false, sample = None, prefer = None))]
pub fn projectivize_batch<'py>(
    py: Python<'py>,
    trees: Vec<Bound<'py, PyAny>>,
    method: &str,
    single_root: bool,
    sample: Option<&Bound<'py, PyAny>>,
    prefer: Option<PathBuf>,
) -> PyResult<Vec<Py<Tree>>> {
    let sample = convert::seed_opt(sample, "sample")?;
    let golds = self::trees(&trees, "tree")?;
    let texts: Vec<Option<&[u8]>> = trees.iter().map(sentence_text).collect();
    let weights = weights_of(prefer.as_deref(), method, sample, texts.iter().all(Option::is_some))?;
    let m = self::method(method, single_root, sample, weights.as_ref())?;
    if matches!(m, Method::Prefer(_)) {
        if let Some(i) = texts.iter().position(Option::is_none) {
            return Err(value_error(format!("tree {i}: {PREFER_NEEDS_LABELS}")));
        }
    }
    let class = if m == Method::Lift { TreeClass::Projective } else { class(single_root) };
    // `None`: the tree is its own projectivization.
    // Ctrl-C stops the batch between trees (KeyboardInterrupt).
    let results: Vec<Result<Option<DepTree>, ProjectivizeError>> = crate::interrupt::interruptible(py, |watch| {
        golds
            .par_iter()
            .enumerate()
            .with_min_len(16)
            .map(|(i, g)| {
                if watch.interrupted() || class.contains(g) {
                    Ok(None)
                } else {
                    project(g, texts[i], m, single_root, i as u64).map(Some)
                }
            })
            .collect()
    })?;
    results
        .into_iter()
        .zip(&trees)
        .zip(&golds)
        .enumerate()
        .map(|(i, ((r, given), gold))| match r.map_err(|e| value_error(format!("tree {i}: {e}")))? {
            Some(tree) => Py::new(py, Tree { tree }),
            None => match given.cast::<Tree>() {
                Ok(t) => Ok(t.clone().unbind()),
                Err(_) => Py::new(py, Tree { tree: gold.as_ref().clone() }),
            },
        })
        .collect()
}

/// The number of optimal projective trees of a gold tree, as an exact
/// Python int (Nederhof 2019, end of Sec. 3, Fig. 8: the (max, count)
/// semiring over Table 3); with `with_best=True`, the pair (best score,
/// count), the best score being the most gold arcs a projective tree keeps.
/// O(n) for a projective tree (count 1), O(n³) otherwise.
#[pyfunction]
#[pyo3(signature = (heads, *, with_best = false, single_root = false))]
pub fn count<'py>(
    py: Python<'py>,
    heads: &Bound<'py, PyAny>,
    with_best: bool,
    single_root: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let gold = convert::tree(heads, "heads")?;
    let (best, count) = count_one(&gold, single_root).map_err(value_error)?;
    counted(py, best, count, with_best)
}

fn counted<'py>(py: Python<'py>, best: usize, count: BigUint, with_best: bool) -> PyResult<Bound<'py, PyAny>> {
    if with_best {
        Ok((best, count).into_pyobject(py)?.into_any())
    } else {
        Ok(count.into_pyobject(py)?.into_any())
    }
}

/// [`count`] for many trees, on rayon's threads with the GIL released.
#[pyfunction]
#[pyo3(signature = (trees, *, with_best = false, single_root = false))]
pub fn count_batch<'py>(
    py: Python<'py>,
    trees: Vec<Bound<'py, PyAny>>,
    with_best: bool,
    single_root: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let golds = self::trees(&trees, "tree")?;
    let results: Vec<Result<(usize, BigUint), ProjectivizeError>> = crate::interrupt::interruptible(py, |watch| {
        // Ctrl-C stops the batch between trees (KeyboardInterrupt; the rest are not counted).
        let one = |g: &std::borrow::Cow<'_, DepTree>| {
            if watch.interrupted() {
                Ok((0, BigUint::default()))
            } else {
                count_one(g, single_root)
            }
        };
        golds.par_iter().with_min_len(16).map(one).collect()
    })?;
    results
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let (best, count) = r.map_err(|e| value_error(format!("tree {i}: {e}")))?;
            counted(py, best, count, with_best)
        })
        .collect()
}

/// Pseudo-projective encoding (Nivre & Nilsson 2005), as `tabula
/// projectivize --encode` writes it: the DEPRELs `labels` of the tree
/// `original`, with each word that `projective` (normally its optimal
/// projectivization or its lifting, over the same words) moved marked with
/// how to find its original head. `scheme`: `head`, `path` or `head+path`.
/// Returns the new labels. O(n + Σ path lengths).
///
/// >>> pseudo_projective_encode([0, 1, 5, 2, 1], [0, 1, 1, 1, 1], ["root", "acl", "obj", "obl", "conj"], "head+path")
/// ['root', 'acl%', 'obj|conj', 'obl|acl', 'conj%']
#[pyfunction]
pub fn pseudo_projective_encode(
    original: &Bound<'_, PyAny>,
    projective: &Bound<'_, PyAny>,
    labels: Vec<String>,
    scheme: &str,
) -> PyResult<Vec<String>> {
    let scheme = tabula::projectivize::pseudo::Scheme::from_name(scheme)
        .ok_or_else(|| PyValueError::new_err(format!("unknown scheme `{scheme}` (head, path or head+path)")))?;
    let original = convert::tree(original, "original")?;
    let projective = convert::tree(projective, "projective")?;
    let encoded = tabula::projectivize::pseudo::encode(&original, &projective, &labels, scheme).map_err(value_error)?;
    Ok(encoded.labels)
}

/// Undoes `pseudo_projective_encode` on any tree with encoded labels (a
/// parser's output included), as `tabula deprojectivize` does: returns the
/// heads (words 1 … n) with the moved words reattached, and the plain labels.
///
/// >>> pseudo_projective_decode([0, 1, 1, 1, 1], ['root', 'acl%', 'obj|conj', 'obl|acl', 'conj%'])
/// ([0, 1, 5, 2, 1], ['root', 'acl', 'obj', 'obl', 'conj'])
#[pyfunction]
pub fn pseudo_projective_decode(heads: &Bound<'_, PyAny>, labels: Vec<String>) -> PyResult<(Vec<usize>, Vec<String>)> {
    let tree = convert::tree(heads, "heads")?;
    let decoded = tabula::projectivize::pseudo::decode(&tree, &labels).map_err(value_error)?;
    Ok((heads_of(&decoded.tree), decoded.labels))
}
