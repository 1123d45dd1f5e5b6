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
use tabula::projectivize::pseudo::Scheme;
use tabula::projectivize::{
    lift, Counter, Objective, OptimalProjectivizer, OptimalSampler, PreferringProjectivizer, ProjectivizeError,
    TreeClass, Weights, WordLabels,
};
use tabula::tree::DepTree;

/// A dependency tree over words 1 … n, position 0 being the root: checked
/// once (heads in range, no cycle), then passed to the oracles and
/// projectivizers without copying. Immutable.
#[pyclass(module = "tabula_parsing", frozen)]
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

    /// Equal to a Tree with the same heads, and to a list of the same heads
    /// (what `projectivize` returned before it returned Trees).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(t) = other.cast::<Tree>() {
            return t.get().tree == self.tree;
        }
        other.cast::<pyo3::types::PyList>().is_ok()
            && other.extract::<Vec<usize>>().is_ok_and(|heads| heads == self.tree.heads())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.tree.hash(&mut h);
        h.finish()
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

/// One thread's engines for one grammar: each built when first needed,
/// then reused (charts included) for every tree.
struct Engines<'g> {
    grammar: &'g Grammar,
    class: TreeClass,
    optimal: Option<OptimalProjectivizer<'g>>,
    sampler: Option<OptimalSampler<'g>>,
    counter: Option<Counter<'g>>,
    preferring: Option<PreferringProjectivizer<'g>>,
    labels: WordLabels,
}

impl<'g> Engines<'g> {
    /// Engines for `grammar`; an error if it lacks the terminals a sentence
    /// is read as (checked at once, before any tree).
    fn new(grammar: &'g Grammar, class: TreeClass) -> Result<Self, ProjectivizeError> {
        tabula::projectivize::SentenceTerminals::for_grammar(grammar)?;
        Ok(Engines {
            grammar,
            class,
            optimal: None,
            sampler: None,
            counter: None,
            preferring: None,
            labels: WordLabels::default(),
        })
    }

    /// The projectivization of tree number `index`; `text`: the sentence's
    /// CoNLL-U lines, which `Method::Prefer` reads.
    fn project(
        &mut self,
        gold: &DepTree,
        text: Option<&[u8]>,
        method: Method<'_>,
        index: u64,
    ) -> Result<DepTree, ProjectivizeError> {
        let (grammar, class) = (self.grammar, self.class);
        match method {
            Method::Lift => Ok(lift(gold)),
            Method::Optimal => {
                let p = match &mut self.optimal {
                    Some(p) => p,
                    slot => slot.insert(OptimalProjectivizer::new(grammar, class)?),
                };
                p.projectivize(gold).map(|p| p.tree)
            }
            Method::Sample(seed) => {
                let s = match &mut self.sampler {
                    Some(s) => s,
                    slot => slot.insert(OptimalSampler::new(grammar, class)?),
                };
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(index);
                s.sample(gold, &mut rng).map(|p| p.tree)
            }
            Method::Prefer(weights, objective) => {
                if self.preferring.as_ref().is_some_and(|p| p.weights() != weights || p.objective() != objective) {
                    self.preferring = None;
                }
                let p = match &mut self.preferring {
                    Some(p) => p,
                    slot => slot.insert(
                        PreferringProjectivizer::new(grammar, class, weights.clone())?.with_objective(objective),
                    ),
                };
                self.labels.read_conllu(text.unwrap_or_default());
                p.projectivize(gold, &self.labels).map(|p| p.tree)
            }
        }
    }

    /// The best score and count of one tree.
    fn count(&mut self, gold: &DepTree) -> Result<(usize, BigUint), ProjectivizeError> {
        let (grammar, class) = (self.grammar, self.class);
        let c = match &mut self.counter {
            Some(c) => c,
            slot => slot.insert(Counter::new(grammar, class)?),
        };
        c.count(gold).map(|c| (c.best, c.count))
    }
}

thread_local! {
    /// Each thread's engines for the two embedded grammars.
    static ENGINES: RefCell<[Option<Engines<'static>>; 2]> = const { RefCell::new([None, None]) };
}

/// Runs `f` with the calling thread's engines for an embedded grammar.
fn with_embedded<T>(single_root: bool, f: impl FnOnce(&mut Engines<'static>) -> T) -> T {
    ENGINES.with(|e| {
        let mut e = e.borrow_mut();
        let slot = &mut e[usize::from(single_root)];
        let engines = match slot {
            Some(engines) => engines,
            slot => slot.insert(match Engines::new(grammar(single_root), class(single_root)) {
                Ok(engines) => engines,
                Err(err) => unreachable!("the embedded grammars have the terminal a: {err}"),
            }),
        };
        f(engines)
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

/// The weights of `prefer` as `tabula projectivize --prefer` takes them:
/// not given, the built-in ones (`default`) where they apply — `method`
/// optimal without `sample`, on Sentences (`labelled`; heads and Trees have
/// no labels to prefer by, so their ties are broken as with `none`).
fn weights_of(prefer: Option<&Path>, method: &str, sample: Option<u64>, labelled: bool) -> PyResult<Option<Weights>> {
    match prefer {
        None if method == "optimal" && sample.is_none() && labelled => Ok(Some(Weights::default())),
        None => Ok(None),
        // Even `none`: sampling and lifting never read preferences.
        Some(_) if method != "optimal" || sample.is_some() => Err(PyValueError::new_err(
            "prefer applies to method optimal without sample (sample draws among all optimal trees)",
        )),
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
    /// The optimal tree (for the objective) with the best secondary score
    /// for these weights.
    Prefer(&'w Weights, Objective),
    /// An optimal tree drawn uniformly, from this seed (tree i: stream i).
    Sample(u64),
    /// Pseudo-projective lifting.
    Lift,
}

/// `objective`'s name, as `--objective` takes it.
fn objective_of(name: &str) -> PyResult<Objective> {
    match name {
        "gold-first" => Ok(Objective::GoldFirst),
        "valid-first" => Ok(Objective::ValidFirst),
        _ => Err(PyValueError::new_err(format!("unknown objective `{name}` (expected gold-first or valid-first)"))),
    }
}

fn method<'w>(
    name: &str,
    single_root: bool,
    sample: Option<u64>,
    weights: Option<&'w Weights>,
    objective: Objective,
) -> PyResult<Method<'w>> {
    if weights.is_some() && (name != "optimal" || sample.is_some()) {
        return Err(PyValueError::new_err(
            "prefer applies to method optimal without sample (sample draws among all optimal trees)",
        ));
    }
    if objective == Objective::ValidFirst {
        if name != "optimal" {
            return Err(PyValueError::new_err(
                "objective=\"valid-first\" applies to method optimal only: lifting has no objective",
            ));
        }
        if sample.is_some() {
            return Err(PyValueError::new_err(
                "sample draws among all trees keeping the most gold arcs; objective=\"valid-first\" applies to the deterministic choice",
            ));
        }
        if weights.is_none() {
            return Err(PyValueError::new_err(
                "objective=\"valid-first\" reads UPOS, FEATS and DEPREL: pass Sentences, with prefer=None, \"default\" or a weights file (not \"none\")",
            ));
        }
    }
    let m = match (name, sample) {
        ("optimal", None) => weights.map_or(Method::Optimal, |w| Method::Prefer(w, objective)),
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

/// A grammar file given as `grammar` (`ValueError` naming its errors).
fn grammar_file(path: &Path) -> PyResult<Grammar> {
    let parsed = text::parse_file(path).map_err(value_error)?;
    Ok(parsed.grammar)
}

/// Everything `projectivize` and `projectivize_batch` were given, checked.
struct Request<'w> {
    method: Method<'w>,
    single_root: bool,
    /// With `encode`: the scheme.
    encode: Option<Scheme>,
}

/// Checks the options shared by `projectivize` and `projectivize_batch`
/// (`labelled`: every item is a Sentence).
#[allow(clippy::too_many_arguments)]
fn request<'w>(
    method: &str,
    single_root: bool,
    sample: Option<u64>,
    weights: Option<&'w Weights>,
    objective: &str,
    grammar: Option<&Path>,
    encode: Option<&str>,
    labelled: bool,
) -> PyResult<Request<'w>> {
    let m = self::method(method, single_root, sample, weights, objective_of(objective)?)?;
    if grammar.is_some() && single_root {
        return Err(PyValueError::new_err(
            "grammar and single_root do not go together: single_root names the embedded single-root grammar",
        ));
    }
    if grammar.is_some() && m == Method::Lift {
        return Err(PyValueError::new_err("grammar applies to method optimal only"));
    }
    let encode = encode
        .map(|name| {
            Scheme::from_name(name).ok_or_else(|| {
                PyValueError::new_err(format!("`{name}` is not a scheme: expected head, path or head+path"))
            })
        })
        .transpose()?;
    if encode.is_some() && !labelled {
        return Err(PyValueError::new_err(
            "encode writes the DEPREL column: pass Sentences (from read_conllu), not heads or Trees",
        ));
    }
    Ok(Request { method: m, single_root, encode })
}

/// The sentence `s` with the move from its tree to `tree` (`None`: kept)
/// encoded in its DEPREL column; `None`: unchanged (`s` itself).
fn encoded(s: &Sentence, tree: Option<&DepTree>, scheme: Scheme) -> PyResult<Option<Sentence>> {
    let parsed = s.parsed()?;
    let Some(block) = tabula::projectivize::pseudo::encode_block(parsed, tree, scheme, &s.file).map_err(value_error)?
    else {
        return Ok(None);
    };
    let raw = tabula::conllu::RawSentence { text: block.bytes, first_line: parsed.first_line() };
    Sentence::from_block(raw, &s.file).map(Some).map_err(value_error)
}

/// What one tree became: a new tree or, with `encode`, a new block.
enum Projected {
    Kept,
    Tree(DepTree),
    Sentence(Sentence),
}

/// Projectivizes tree `index` (and encodes it with `request.encode`) on
/// the calling thread, with its engines for the embedded grammars or
/// `engines` for a grammar file.
fn project_one(
    engines: Option<&mut Engines<'_>>,
    request: &Request<'_>,
    gold: &DepTree,
    sentence: Option<&Sentence>,
    index: u64,
) -> PyResult<Projected> {
    let class = match (&engines, request.method) {
        (_, Method::Lift) => TreeClass::Projective,
        (Some(e), _) => e.class,
        (None, _) => class(request.single_root),
    };
    let text = sentence.map(Sentence::raw_text);
    let tree = if class.contains(gold) {
        None
    } else {
        let result = match engines {
            Some(e) => e.project(gold, text, request.method, index),
            None => with_embedded(request.single_root, |e| e.project(gold, text, request.method, index)),
        };
        Some(result.map_err(value_error)?)
    };
    match (request.encode, sentence) {
        (Some(scheme), Some(s)) => Ok(encoded(s, tree.as_ref(), scheme)?.map_or(Projected::Kept, Projected::Sentence)),
        _ => Ok(tree.map_or(Projected::Kept, Projected::Tree)),
    }
}

/// The best score and count of one tree on the calling thread.
fn count_one(gold: &DepTree, single_root: bool) -> Result<(usize, BigUint), ProjectivizeError> {
    with_embedded(single_root, |e| e.count(gold))
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

/// The Python object for what became of `given` (whose tree is `gold`):
/// unchanged, the given Tree (or, with `encode`, Sentence) itself.
fn answer(
    py: Python<'_>,
    projected: Projected,
    given: &Bound<'_, PyAny>,
    gold: &DepTree,
    encode: bool,
) -> PyResult<Py<PyAny>> {
    match projected {
        Projected::Tree(tree) => Ok(Py::new(py, Tree { tree })?.into_any()),
        Projected::Sentence(s) => Ok(Py::new(py, s)?.into_any()),
        Projected::Kept if given.cast::<Tree>().is_ok() || encode => Ok(given.clone().unbind()),
        Projected::Kept => Ok(Py::new(py, Tree { tree: gold.clone() })?.into_any()),
    }
}

/// The most gold arcs a projective tree keeps, and such a tree (Nederhof 2019,
/// Sec. 3; Sec. 8.1): `method="optimal"` runs the Table 3 grammar (or the
/// grammar file `grammar`) in the max-plus semiring (ties broken as the
/// command line does), `"lift"` is pseudo-projective lifting (Nivre &
/// Nilsson 2005). With `sample=SEED`, an optimal tree drawn uniformly
/// ((max, count) semiring), as `tabula projectivize --sample SEED` draws for
/// the sentence numbered `stream` (from 0). With `prefer="default"` or a
/// weights file (a `Sentence` only: the weights read its UPOS, FEATS and
/// DEPREL), among the optimal trees one with the best secondary score
/// (`--prefer`); `prefer=None` (not given) is what `tabula projectivize`
/// does without `--prefer`: the built-in weights for a `Sentence` with
/// `method="optimal"` and no `sample`, so the same call gives the tree the
/// command line writes (heads and Trees have no labels: ties broken as with
/// `"none"`); `"none"`: ties broken as `--prefer none`.
/// `objective="valid-first"`: the fewest words under function words that
/// may not take them first (`--objective`). Returns a `Tree` (the given one
/// if it is already projective); with `encode="head"`, `"path"` or
/// `"head+path"` (a `Sentence` only), the `Sentence` with the new heads and
/// the pseudo-projective labels in its DEPREL column, as `tabula
/// projectivize --encode` writes it (the given one if nothing moved).
/// O(n) for a projective tree, O(n³) otherwise.
#[pyfunction]
#[pyo3(signature = (heads, method = "optimal", *, single_root = false, sample = None, stream = None, prefer = None,
                    grammar = None, objective = "gold-first", encode = None))]
#[allow(clippy::too_many_arguments)]
pub fn projectivize(
    py: Python<'_>,
    heads: &Bound<'_, PyAny>,
    method: &str,
    single_root: bool,
    sample: Option<&Bound<'_, PyAny>>,
    stream: Option<i128>,
    prefer: Option<PathBuf>,
    grammar: Option<PathBuf>,
    objective: &str,
    encode: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let sample = convert::seed_opt(sample, "sample")?;
    if let (Some(k), None) = (stream, sample) {
        return Err(PyValueError::new_err(format!(
            "stream={k} numbers the sentence whose draw sample=SEED makes; without sample it does nothing"
        )));
    }
    let stream = convert::seed_in_range(stream.unwrap_or(0), "stream")?;
    let gold = convert::tree(heads, "heads")?;
    let sentence = heads.cast::<Sentence>().ok();
    let weights = weights_of(prefer.as_deref(), method, sample, sentence.is_some())?;
    let request = request(
        method,
        single_root,
        sample,
        weights.as_ref(),
        objective,
        grammar.as_deref(),
        encode,
        sentence.is_some(),
    )?;
    // `none` too: on heads and Trees it is what happens anyway.
    if (matches!(request.method, Method::Prefer(..)) || prefer.is_some()) && sentence.is_none() {
        return Err(value_error(PREFER_NEEDS_LABELS));
    }
    let file = grammar.as_deref().map(grammar_file).transpose()?;
    let mut engines = file.as_ref().map(|g| Engines::new(g, TreeClass::Unknown)).transpose().map_err(value_error)?;
    let projected = project_one(engines.as_mut(), &request, &gold, sentence.map(|s| s.get()), stream)?;
    answer(py, projected, heads, &gold, request.encode.is_some())
}

/// [`projectivize`] for many trees (heads, `Tree`s or `Sentence`s), on
/// rayon's threads with the GIL released; with `sample=SEED`, tree i is drawn
/// with stream i, as the command line does. Returns `Tree`s (with `encode`:
/// `Sentence`s), as [`projectivize`] does; a `Tree` or `Sentence` given that
/// is unchanged comes back as the same object. The other options as for
/// [`projectivize`] (`prefer` and `encode`: every item a `Sentence`).
#[pyfunction]
#[pyo3(signature = (trees, method = "optimal", *, single_root = false, sample = None, prefer = None,
                    grammar = None, objective = "gold-first", encode = None))]
#[allow(clippy::too_many_arguments)]
pub fn projectivize_batch<'py>(
    py: Python<'py>,
    trees: Vec<Bound<'py, PyAny>>,
    method: &str,
    single_root: bool,
    sample: Option<&Bound<'py, PyAny>>,
    prefer: Option<PathBuf>,
    grammar: Option<PathBuf>,
    objective: &str,
    encode: Option<&str>,
) -> PyResult<Vec<Py<PyAny>>> {
    let sample = convert::seed_opt(sample, "sample")?;
    let golds = self::trees(&trees, "tree")?;
    let sentences: Vec<Option<&Sentence>> = trees.iter().map(|t| t.cast::<Sentence>().ok().map(|s| s.get())).collect();
    let labelled = sentences.iter().all(Option::is_some);
    let weights = weights_of(prefer.as_deref(), method, sample, labelled)?;
    let request =
        request(method, single_root, sample, weights.as_ref(), objective, grammar.as_deref(), encode, labelled)?;
    if matches!(request.method, Method::Prefer(..)) || prefer.is_some() {
        if let Some(i) = sentences.iter().position(Option::is_none) {
            return Err(value_error(format!("tree {i}: {PREFER_NEEDS_LABELS}")));
        }
    }
    let file = grammar.as_deref().map(grammar_file).transpose()?;
    if let Some(g) = &file {
        Engines::new(g, TreeClass::Unknown).map_err(value_error)?;
    }
    // Ctrl-C stops the batch between trees (KeyboardInterrupt).
    let results: Vec<PyResult<Projected>> = crate::interrupt::interruptible(py, |watch| {
        let one = |engines: Option<&mut Engines<'_>>, i: usize| {
            if watch.interrupted() {
                return Ok(Projected::Kept);
            }
            project_one(engines, &request, &golds[i], sentences[i], i as u64)
        };
        match &file {
            None => (0..golds.len()).into_par_iter().with_min_len(16).map(|i| one(None, i)).collect(),
            Some(g) => (0..golds.len())
                .into_par_iter()
                .with_min_len(16)
                .map_init(
                    || Engines::new(g, TreeClass::Unknown).expect("checked above"),
                    |engines, i| one(Some(engines), i),
                )
                .collect(),
        }
    })?;
    let encode = request.encode.is_some();
    results
        .into_iter()
        .zip(&trees)
        .zip(&golds)
        .enumerate()
        .map(|(i, ((r, given), gold))| answer(py, r.map_err(|e| index_error(e, "tree", i))?, given, gold, encode))
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
