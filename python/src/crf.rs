//! Tree CRFs of a padded batch, for deep-learning frameworks: a B × N × N
//! array of arc scores (float32 or float64, row = head, column = dependent,
//! 0 the root) and the sentences' lengths in, one pass per quantity over the
//! whole batch on rayon's threads with the GIL released. The trees are a
//! grammar's ([`tabula::distribution`], any grammar file) or all trees
//! ([`tabula::nonprojective`], the Matrix-Tree theorem and Chu–Liu–Edmonds).
//! `tabula_parsing.crf` builds PyTorch's layer on these functions; only
//! conversion lives here.
//!
//! Sentence i has n_i = `lengths[i]` words: its scores are the top-left
//! (n_i + 1) × (n_i + 1) block of its matrix, and every output beyond that
//! block is 0 (marginals) or −1 (heads). The scores are read in place
//! (no copy of the batch); each sentence's block is widened to float64 for
//! the computation, and the marginals are written in the scores' type.

use crate::convert::value_error;
use crate::distribution::{error as distribution_error, item_error, nonprojective_error};
use crate::grammar::PyGrammar;
use numpy::{
    Element, PyArray1, PyArray2, PyArray3, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use tabula::distribution::{DistributionError, TreeDistribution};
use tabula::grammar::{Grammar, Terminal};
use tabula::nonprojective::{self, MatrixTree, NonProjectiveError, Roots};

/// The element types of score arrays.
trait Real: Element + Copy + Send + Sync {
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// Which trees the distribution ranges over.
enum Trees<'a> {
    /// A grammar's, with each sentence's terminals.
    Grammar { grammar: &'a Grammar, inputs: Vec<Vec<Terminal>> },
    /// All trees (Matrix-Tree theorem).
    All(Roots),
}

/// An error of either computation.
enum Failure {
    Grammar(DistributionError),
    All(NonProjectiveError),
}

impl From<DistributionError> for Failure {
    fn from(e: DistributionError) -> Failure {
        Failure::Grammar(e)
    }
}

impl From<NonProjectiveError> for Failure {
    fn from(e: NonProjectiveError) -> Failure {
        Failure::All(e)
    }
}

impl Failure {
    fn into_py(self) -> PyErr {
        match self {
            Failure::Grammar(e) => distribution_error(e),
            Failure::All(e) => nonprojective_error(e),
        }
    }
}

/// What computes a thread's sentences: the grammar's parsers, or the
/// Matrix-Tree computations for these roots with their buffers.
enum Engine<'g> {
    Grammar(Box<TreeDistribution<'g>>),
    All(Roots, Box<MatrixTree>),
}

/// One thread's reusable state: its engine and the sentence's scores
/// widened to float64.
struct Scratch<'g> {
    engine: Engine<'g>,
    scores: Vec<f64>,
    out: Vec<f64>,
}

impl<'g> Scratch<'g> {
    fn new(trees: &Trees<'g>) -> Scratch<'g> {
        let engine = match trees {
            Trees::Grammar { grammar, .. } => Engine::Grammar(Box::new(TreeDistribution::new(grammar))),
            Trees::All(roots) => Engine::All(*roots, Box::new(MatrixTree::new())),
        };
        Scratch { engine, scores: Vec::new(), out: Vec::new() }
    }
}

/// A sentence as the computations see it: its index, terminals (for a
/// grammar) and size n + 1.
struct Sentence<'a> {
    index: usize,
    input: &'a [Terminal],
    size: usize,
}

/// The batch's scores, read in place.
struct Batch<'a, T> {
    data: &'a [T],
    /// N: the side of each matrix.
    side: usize,
    lengths: Vec<usize>,
}

impl<T: Real> Batch<'_, T> {
    /// Sentence i's block, widened into `out`.
    fn block(&self, i: usize, out: &mut Vec<f64>) {
        let (n, size) = (self.side, self.lengths[i] + 1);
        let m = &self.data[i * n * n..(i + 1) * n * n];
        out.clear();
        for h in 0..size {
            out.extend(m[h * n..h * n + size].iter().map(|x| x.to_f64()));
        }
    }

    /// `f` on each sentence with its block, on rayon's threads with the GIL
    /// released, one [`Scratch`] per thread; sentence i writes `out`'s i-th
    /// chunk of `chunk` values (`chunk` 0: no output). Ctrl-C is honoured
    /// between sentences. With one thread the sentences run on the calling
    /// thread: a layer's batch takes from a tenth of a millisecond, and a
    /// thread started and woken per call would add about 50 µs.
    fn run<O: Send, R: Send>(
        &self,
        py: Python<'_>,
        trees: &Trees<'_>,
        out: &mut [O],
        chunk: usize,
        f: impl Fn(&mut Scratch<'_>, &Sentence<'_>, &mut [O]) -> Result<R, Failure> + Sync,
    ) -> PyResult<Vec<R>> {
        let b = self.lengths.len();
        let slots: Vec<&mut [O]> =
            if chunk == 0 { (0..b).map(|_| &mut [][..]).collect() } else { out.chunks_mut(chunk).collect() };
        let input = |i: usize| match trees {
            Trees::Grammar { inputs, .. } => inputs[i].as_slice(),
            Trees::All(_) => &[],
        };
        let one = |scratch: &mut Scratch<'_>, (i, slot): (usize, &mut [O])| {
            let mut scores = std::mem::take(&mut scratch.scores);
            self.block(i, &mut scores);
            scratch.scores = scores;
            let sentence = Sentence { index: i, input: input(i), size: self.lengths[i] + 1 };
            f(scratch, &sentence, slot)
        };
        let results: Vec<Option<Result<R, Failure>>> = if rayon::current_num_threads() == 1 {
            let (results, signals) = py.detach(|| {
                let mut signals = crate::interrupt::Signals::new();
                let mut scratch = Scratch::new(trees);
                let results = slots
                    .into_iter()
                    .enumerate()
                    .map(|x| (!signals.interrupted()).then(|| one(&mut scratch, x)))
                    .collect();
                (results, signals)
            });
            signals.result()?;
            results
        } else {
            crate::interrupt::interruptible(py, |watch| {
                let one = |scratch: &mut Scratch<'_>, x| (!watch.interrupted()).then(|| one(scratch, x));
                slots.into_par_iter().enumerate().map_init(|| Scratch::new(trees), one).collect()
            })?
        };
        let results = crate::interrupt::all_run(results)?;
        results.into_iter().enumerate().map(|(i, r)| r.map_err(|e| item_error(i, e.into_py(), py))).collect()
    }
}

/// The scores as a C-contiguous B × N × N array (a view when they are one
/// already) and the lengths, checked: each length below N.
fn lengths(lengths: &PyReadonlyArray1<'_, i64>, b: usize, side: usize) -> PyResult<Vec<usize>> {
    let lengths = lengths.as_array();
    if lengths.len() != b {
        return Err(PyValueError::new_err(format!("{b} score matrices but {} lengths", lengths.len())));
    }
    lengths
        .iter()
        .enumerate()
        .map(|(i, &n)| match usize::try_from(n) {
            Ok(n) if n < side => Ok(n),
            _ => Err(PyValueError::new_err(format!(
                "sentence {i}: length {n} does not fit matrices of side {side} (0 ≤ length ≤ {})",
                side - 1
            ))),
        })
        .collect()
}

/// The trees: the grammar's (each sentence's terminals given, or the
/// grammar's default: its one terminal everywhere, or `root` at 0 and its
/// other terminal for every word), or all trees.
fn trees<'a>(
    grammar: Option<&'a PyGrammar>,
    terminals: Option<Vec<Bound<'_, PyAny>>>,
    single_root: bool,
    lengths: &[usize],
) -> PyResult<Trees<'a>> {
    let Some(pg) = grammar else {
        if terminals.is_some() {
            return Err(PyValueError::new_err(
                "terminals are the grammar's: without a grammar (all trees) they have no effect",
            ));
        }
        return Ok(Trees::All(if single_root { Roots::Single } else { Roots::Multi }));
    };
    if single_root {
        return Err(PyValueError::new_err(
            "single_root is for all trees (no grammar): with a grammar, its file says which trees \
             (projective-single-root gives the root one child)",
        ));
    }
    let g = pg.grammar();
    let inputs = match terminals {
        Some(t) => {
            if t.len() != lengths.len() {
                return Err(PyValueError::new_err(format!(
                    "{} sentences but {} lists of terminals",
                    lengths.len(),
                    t.len()
                )));
            }
            t.iter()
                .zip(lengths)
                .enumerate()
                .map(|(i, (t, &n))| {
                    let input = pg.input(t).map_err(|e| item_error(i, e, t.py()))?;
                    if input.len() != n + 1 {
                        return Err(PyValueError::new_err(format!(
                            "sentence {i}: {} terminals for length {n} (the root's first, then one per word)",
                            input.len()
                        )));
                    }
                    Ok(input)
                })
                .collect::<PyResult<_>>()?
        }
        None => {
            let all: Vec<Terminal> = g.terminals().collect();
            let (root, word) = match all.as_slice() {
                [one] => (*one, *one),
                [a, b] if g.terminal_name(*a) == "root" => (*a, *b),
                [a, b] if g.terminal_name(*b) == "root" => (*b, *a),
                _ => {
                    let names: Vec<String> = all.iter().map(|&t| format!("`{}`", g.terminal_name(t))).collect();
                    return Err(PyValueError::new_err(format!(
                        "the grammar {} has the terminals {}: say which stands where with terminals= \
                         (one list per sentence, the root's first); without it a grammar needs one \
                         terminal, or two of which one is `root`",
                        pg.path(),
                        names.join(", ")
                    )));
                }
            };
            lengths.iter().map(|&n| std::iter::once(root).chain(std::iter::repeat_n(word, n)).collect()).collect()
        }
    };
    Ok(Trees::Grammar { grammar: g, inputs })
}

/// The score array's element type.
enum Scores<'py> {
    F32(Bound<'py, PyArray3<f32>>),
    F64(Bound<'py, PyArray3<f64>>),
}

/// The scores as a C-contiguous float32 or float64 array of three
/// dimensions (NumPy's view of them when they are one already).
fn scores<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Scores<'py>> {
    let np = obj.py().import("numpy")?;
    let array = np.call_method1("ascontiguousarray", (obj,))?;
    let untyped = array.cast::<PyUntypedArray>()?;
    let shape = untyped.shape();
    if shape.len() != 3 || shape[1] != shape[2] || shape[1] == 0 {
        return Err(PyValueError::new_err(format!(
            "the scores must be a B × N × N array (row = head, column = dependent, 0 the root), found shape {shape:?}"
        )));
    }
    let dtype = untyped.dtype();
    if dtype.is_equiv_to(&numpy::dtype::<f32>(obj.py())) {
        Ok(Scores::F32(array.cast_into::<PyArray3<f32>>()?))
    } else if dtype.is_equiv_to(&numpy::dtype::<f64>(obj.py())) {
        Ok(Scores::F64(array.cast_into::<PyArray3<f64>>()?))
    } else {
        Err(PyTypeError::new_err(format!("the scores must be float32 or float64, found {dtype}")))
    }
}

/// What every computation is given: the lengths, which trees, and the
/// arguments some of them need beyond the scores.
struct Request<'py, 'g> {
    lengths: PyReadonlyArray1<'py, i64>,
    grammar: Option<&'g PyGrammar>,
    terminals: Option<Vec<Bound<'py, PyAny>>>,
    single_root: bool,
    marginals: bool,
    k: usize,
    count: usize,
    seed: Option<u64>,
    heads: Option<Bound<'py, PyAny>>,
}

impl<'py, 'g> Request<'py, 'g> {
    fn new(
        lengths: PyReadonlyArray1<'py, i64>,
        grammar: Option<&'g PyGrammar>,
        terminals: Option<Vec<Bound<'py, PyAny>>>,
        single_root: bool,
    ) -> Self {
        Request { lengths, grammar, terminals, single_root, marginals: false, k: 0, count: 0, seed: None, heads: None }
    }
}

/// What a computation returns to Python.
type Output<'py> = Vec<Bound<'py, PyAny>>;

/// A computation over a batch of scores of element type `T`.
type Computation<'py, T> = fn(Python<'py>, &Batch<'_, T>, &Trees<'_>, &Request<'py, '_>) -> PyResult<Output<'py>>;

/// `f` on the batch of `array` and the request's lengths and trees.
fn with_batch<'py, T: Real>(
    py: Python<'py>,
    array: &Bound<'py, PyArray3<T>>,
    mut request: Request<'py, '_>,
    f: Computation<'py, T>,
) -> PyResult<Output<'py>> {
    let readonly = array.readonly();
    let shape = array.shape();
    let (b, side) = (shape[0], shape[1]);
    let lengths = lengths(&request.lengths, b, side)?;
    let trees = trees(request.grammar, request.terminals.take(), request.single_root, &lengths)?;
    let data = readonly.as_slice().map_err(value_error)?;
    f(py, &Batch { data, side, lengths }, &trees, &request)
}

/// Runs the computation `$f` (generic over the element type) on the scores.
macro_rules! on_scores {
    ($py:expr, $scores:expr, $request:expr, $f:ident) => {
        match scores($scores)? {
            Scores::F32(a) => with_batch($py, &a, $request, $f::<f32>),
            Scores::F64(a) => with_batch($py, &a, $request, $f::<f64>),
        }
    };
}

/// ln Z per sentence (float64, B) and, with `marginals`, the arc marginals
/// (B × N × N, the scores' type): the gradient of ln Z, by the engine's
/// outside pass or the Matrix-Tree theorem's elimination. O(B n³).
#[pyfunction]
#[pyo3(signature = (scores, lengths, grammar = None, terminals = None, single_root = false, marginals = true))]
#[allow(clippy::too_many_arguments)]
pub fn crf_partition<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    lengths: PyReadonlyArray1<'py, i64>,
    grammar: Option<PyRef<'py, PyGrammar>>,
    terminals: Option<Vec<Bound<'py, PyAny>>>,
    single_root: bool,
    marginals: bool,
) -> PyResult<Output<'py>> {
    let request = Request { marginals, ..Request::new(lengths, grammar.as_deref(), terminals, single_root) };
    on_scores!(py, scores, request, partition)
}

fn partition<'py, T: Real>(
    py: Python<'py>,
    batch: &Batch<'_, T>,
    trees: &Trees<'_>,
    request: &Request<'py, '_>,
) -> PyResult<Output<'py>> {
    let (b, n) = (batch.lengths.len(), batch.side);
    if !request.marginals {
        let z = batch.run(py, trees, &mut [] as &mut [T], 0, |scratch, s, _| log_partition(scratch, s))?;
        return Ok(vec![PyArray1::from_vec(py, z).into_any()]);
    }
    let out = PyArray3::<T>::zeros(py, [b, n, n], false);
    let z = {
        let mut write = out.readwrite();
        let slice = write.as_slice_mut().map_err(value_error)?;
        batch.run(py, trees, slice, n * n, |scratch, s, slot| {
            let z = arc_marginals(scratch, s)?;
            for h in 0..s.size {
                for (o, &m) in slot[h * n..h * n + s.size].iter_mut().zip(&scratch.out[h * s.size..(h + 1) * s.size]) {
                    *o = T::from_f64(m);
                }
            }
            Ok(z)
        })?
    };
    Ok(vec![PyArray1::from_vec(py, z).into_any(), out.into_any()])
}

/// ln Z of one sentence.
fn log_partition(scratch: &mut Scratch<'_>, s: &Sentence<'_>) -> Result<f64, Failure> {
    Ok(match &mut scratch.engine {
        Engine::Grammar(dist) => dist.log_partition(s.input, &scratch.scores)?,
        Engine::All(roots, tree) => tree.log_partition(&scratch.scores, s.size, *roots)?,
    })
}

/// The marginals of one sentence into `scratch.out` ((n+1)², row-major); ln Z.
fn arc_marginals(scratch: &mut Scratch<'_>, s: &Sentence<'_>) -> Result<f64, Failure> {
    Ok(match &mut scratch.engine {
        Engine::Grammar(dist) => dist.marginals(s.input, &scratch.scores, &mut scratch.out)?,
        Engine::All(roots, tree) => tree.marginals(&scratch.scores, s.size, *roots, &mut scratch.out)?,
    })
}

/// Heads as int64 rows of N: −1 at 0 and beyond the sentence.
fn write_heads(slot: &mut [i64], heads: &[usize]) {
    slot.fill(-1);
    for (d, &h) in heads.iter().enumerate() {
        slot[d + 1] = h as i64;
    }
}

/// The `k` best trees per sentence (k = 1: the best, by the engine in
/// max-plus or Chu–Liu–Edmonds; k > 1: a grammar's lazy k best): their
/// scores (float64, B × k; −inf where a sentence has fewer trees) and heads
/// (int64, B × k × N: row d the head of word d, −1 at 0, beyond the
/// sentence and for missing trees).
#[pyfunction]
#[pyo3(signature = (scores, lengths, k, grammar = None, terminals = None, single_root = false))]
pub fn crf_kbest<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    lengths: PyReadonlyArray1<'py, i64>,
    k: usize,
    grammar: Option<PyRef<'py, PyGrammar>>,
    terminals: Option<Vec<Bound<'py, PyAny>>>,
    single_root: bool,
) -> PyResult<Output<'py>> {
    if k == 0 {
        return Err(PyValueError::new_err("k must be at least 1"));
    }
    if k > 1 && grammar.is_none() {
        return Err(PyValueError::new_err(
            "the k best trees are computed over a grammar's trees; over all trees only the best one (k = 1)",
        ));
    }
    let request = Request { k, ..Request::new(lengths, grammar.as_deref(), terminals, single_root) };
    on_scores!(py, scores, request, kbest)
}

fn kbest<'py, T: Real>(
    py: Python<'py>,
    batch: &Batch<'_, T>,
    trees: &Trees<'_>,
    request: &Request<'py, '_>,
) -> PyResult<Output<'py>> {
    let (b, n, k) = (batch.lengths.len(), batch.side, request.k);
    let heads = PyArray3::<i64>::zeros(py, [b, k, n], false);
    let values = {
        let mut write = heads.readwrite();
        let slice = write.as_slice_mut().map_err(value_error)?;
        batch.run(py, trees, slice, k * n, |scratch, s, slot| {
            let best: Vec<(f64, Vec<usize>)> = match &mut scratch.engine {
                Engine::Grammar(dist) => dist
                    .k_best(s.input, &scratch.scores, k)?
                    .into_iter()
                    .map(|(v, t)| (v, t.heads().to_vec()))
                    .collect(),
                Engine::All(roots, _) => vec![nonprojective::best_tree(&scratch.scores, s.size, *roots)?],
            };
            let mut values = vec![f64::NEG_INFINITY; k];
            slot.fill(-1);
            for (j, (v, h)) in best.iter().enumerate() {
                values[j] = *v;
                write_heads(&mut slot[j * n..(j + 1) * n], h);
            }
            Ok(values)
        })?
    };
    let values: Vec<f64> = values.into_iter().flatten().collect();
    Ok(vec![PyArray1::from_vec(py, values).reshape([b, k])?.into_any(), heads.into_any()])
}

/// `count` trees per sentence drawn from the distribution (int64, B ×
/// count × N heads, −1 at 0 and beyond the sentence). With `seed`,
/// sentence i draws from the seed `seed + i`, whatever the threads.
#[pyfunction]
#[pyo3(signature = (scores, lengths, count, seed = None, grammar = None, terminals = None, single_root = false))]
#[allow(clippy::too_many_arguments)]
pub fn crf_sample<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    lengths: PyReadonlyArray1<'py, i64>,
    count: usize,
    seed: Option<&Bound<'py, PyAny>>,
    grammar: Option<PyRef<'py, PyGrammar>>,
    terminals: Option<Vec<Bound<'py, PyAny>>>,
    single_root: bool,
) -> PyResult<Output<'py>> {
    let seed = crate::convert::seed_opt(seed, "seed")?;
    let request = Request { count, seed, ..Request::new(lengths, grammar.as_deref(), terminals, single_root) };
    on_scores!(py, scores, request, sample)
}

fn sample<'py, T: Real>(
    py: Python<'py>,
    batch: &Batch<'_, T>,
    trees: &Trees<'_>,
    request: &Request<'py, '_>,
) -> PyResult<Output<'py>> {
    let (b, n, count) = (batch.lengths.len(), batch.side, request.count);
    tabula::memory::check(b.checked_mul(count).and_then(|x| x.checked_mul(n)), 8, || {
        format!("{count} samples of {b} sentences")
    })
    .map_err(|m| crate::distribution::memory_error(&m))?;
    let (heads, seed) = (PyArray3::<i64>::zeros(py, [b, count, n], false), request.seed);
    {
        let mut write = heads.readwrite();
        let slice = write.as_slice_mut().map_err(value_error)?;
        batch.run(py, trees, slice, count * n, |scratch, s, slot| {
            let mut rng = match seed {
                Some(seed) => ChaCha8Rng::seed_from_u64(seed.wrapping_add(s.index as u64)),
                None => ChaCha8Rng::from_entropy(),
            };
            let drawn: Vec<Vec<usize>> = match &mut scratch.engine {
                Engine::Grammar(dist) => dist
                    .sample(s.input, &scratch.scores, count, &mut rng)?
                    .into_iter()
                    .map(|t| t.heads().to_vec())
                    .collect(),
                Engine::All(roots, _) => nonprojective::sample(&scratch.scores, s.size, *roots, count, &mut rng)?,
            };
            for (j, h) in drawn.iter().enumerate() {
                write_heads(&mut slot[j * n..(j + 1) * n], h);
            }
            Ok(())
        })?;
    }
    Ok(vec![heads.into_any()])
}

/// ln of the number of derivations of given trees (float64, B): 0 for a
/// tree of an unambiguous grammar or for any tree of all trees (single
/// root: one child of 0), −inf for a tree outside the class. `heads` is
/// int64 B × N, row d the head of word d (entry 0 and those beyond the
/// sentence ignored). The scores only give the shape here.
#[pyfunction]
#[pyo3(signature = (scores, lengths, heads, grammar = None, terminals = None, single_root = false))]
pub fn crf_tree_log_derivations<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    lengths: PyReadonlyArray1<'py, i64>,
    heads: &Bound<'py, PyAny>,
    grammar: Option<PyRef<'py, PyGrammar>>,
    terminals: Option<Vec<Bound<'py, PyAny>>>,
    single_root: bool,
) -> PyResult<Output<'py>> {
    let request =
        Request { heads: Some(heads.clone()), ..Request::new(lengths, grammar.as_deref(), terminals, single_root) };
    on_scores!(py, scores, request, derivations)
}

fn derivations<'py, T: Real>(
    py: Python<'py>,
    batch: &Batch<'_, T>,
    trees: &Trees<'_>,
    request: &Request<'py, '_>,
) -> PyResult<Output<'py>> {
    let (b, n) = (batch.lengths.len(), batch.side);
    let np = py.import("numpy")?;
    let heads = np.call_method1("ascontiguousarray", (request.heads.as_ref().expect("heads given"), "int64"))?;
    let heads = heads.cast_into::<PyArray2<i64>>().map_err(|_| {
        PyValueError::new_err(format!("the trees must be a B × N array of heads ({b} × {n}), one row per sentence"))
    })?;
    if heads.shape() != [b, n] {
        return Err(PyValueError::new_err(format!(
            "the trees must be a B × N array of heads ({b} × {n}), found shape {:?}",
            heads.shape()
        )));
    }
    let readonly = heads.readonly();
    let all = readonly.as_slice().map_err(value_error)?;
    let v = batch.run(py, trees, &mut [] as &mut [T], 0, |scratch, s, _| {
        let row = &all[s.index * n + 1..s.index * n + s.size];
        let Some(tree) =
            row.iter().map(|&h| usize::try_from(h).ok().filter(|&h| h < s.size)).collect::<Option<Vec<_>>>()
        else {
            return Ok(f64::NEG_INFINITY);
        };
        Ok(match &mut scratch.engine {
            Engine::Grammar(dist) => dist.tree_log_derivations(s.input, &tree)?,
            Engine::All(roots, _) => {
                let is_tree = tabula::tree::DepTree::from_heads(&tree).is_ok();
                let roots_ok = *roots == Roots::Multi || tree.iter().filter(|&&h| h == 0).count() == 1;
                if is_tree && roots_ok {
                    0.0
                } else {
                    f64::NEG_INFINITY
                }
            }
        })
    })?;
    Ok(vec![PyArray1::from_vec(py, v).into_any()])
}
