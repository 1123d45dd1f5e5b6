"""Type stubs of the Rust extension ``tabula_parsing._tabula``.

``tabula_parsing`` re-exports every name of ``__all__`` but the four
``nonprojective_*`` functions, which :mod:`tabula_parsing.nonprojective`
wraps (``log_partition``, ``marginals`` and their ``_batch`` forms); CI
runs mypy's stubtest on the package and on this module.

Paper references are to Nederhof (2019), *Calculating the Optimal Step in
Shift-Reduce Dependency Parsing: From Cubic to Linear Time*.
"""

import os
from typing import Any, Iterator, Optional, Sequence, Union, final, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "Configuration",
    "Grammar",
    "GrammarError",
    "Oracle",
    "OracleBatch",
    "Parser",
    "Sentence",
    "Session",
    "Tagger",
    "Tree",
    "__version__",
    "apply_batch",
    "check_input",
    "check_output",
    "count",
    "count_batch",
    "deprojectivize",
    "ensemble",
    "evaluate",
    "file_kind",
    "max_memory",
    "crf_kbest",
    "crf_partition",
    "crf_sample",
    "crf_tree_log_derivations",
    "nonprojective_log_partition",
    "nonprojective_log_partition_batch",
    "nonprojective_marginals",
    "nonprojective_marginals_batch",
    "parse_conllu",
    "projectivize",
    "projectivize_batch",
    "pseudo_projective_decode",
    "pseudo_projective_encode",
    "read_conllu",
    "scores_batch",
    "set_max_memory",
    "shown",
    "steps",
    "systems",
    "write_conllu",
    "write_file",
]

__version__: str

#: _Heads of words 1..n (0 = the root): a sequence of ints, a 1-D NumPy
#: integer array, a checked :class:`Tree`, or a CoNLL-U :class:`Sentence`
#: (its gold tree); the last two are used without copying. A leading -1
#: (the root's slot, ``[-1, h1, ..., hn]``) is dropped.
_Heads = Union["Tree", "Sentence", Sequence[int], npt.NDArray[np.integer[Any]]]
#: Node numbers (a stack or a buffer).
_Nodes = Union[Sequence[int], npt.NDArray[np.integer[Any]]]
#: _Arcs built so far, as (head, dependent) pairs.
_Arcs = Sequence[Sequence[int]]
#: _Terminals a0 a1 .. an of a grammar input: a whitespace-separated string or names.
_Terminals = Union[str, Sequence[str]]
_PathLike = Union[str, "os.PathLike[str]"]
#: _Scores: an (n+1)x(n+1) matrix of real arc scores (log-potentials), row =
#: head, column = dependent; -inf forbids an arc; converted to float64.
_Scores = Union[npt.ArrayLike, npt.NDArray[Any]]
#: Many score matrices: a sequence of them (of any sizes), or one 3-D array
#: of B matrices of the same size.
_ScoresBatch = Union[Sequence[_Scores], npt.NDArray[Any]]

class GrammarError(ValueError):
    """A grammar text with errors. ``str(e)`` is the command line's diagnostic
    text (``path:line:col: error: ...``, the line, a caret, for every error);
    ``diagnostics`` lists ``(severity, line, column, message)``."""

    diagnostics: list[tuple[str, int, int, str]]

@final
class Tree:
    """A dependency tree over words 1..n (position 0 is the root), checked once
    (heads in range, no cycle) and then passed without copying. Immutable,
    hashable, picklable."""

    def __new__(cls, heads: Union[_Nodes, "Tree"]) -> "Tree":
        """``ValueError`` (``\\`heads\\` is not a tree: ...``) if the heads do not form a tree. O(n)."""
    @property
    def heads(self) -> list[int]:
        """The heads of words 1..n."""
    @property
    def is_projective(self) -> bool:
        """Whether no two arcs cross, arcs from the root included. O(n)."""
    def arcs(self) -> list[tuple[int, int]]:
        """The arcs (head, dependent), by dependent."""
    def __len__(self) -> int: ...
    def __getitem__(self, key: int, /) -> int:
        """The head of word ``i + 1`` (``tree[i] == tree.heads[i]``)."""
    def __iter__(self) -> Iterator[int]:
        """The heads of words 1..n."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Configuration:
    """A configuration of a transition system (Sec. 2): the stack a0..ak
    (a0 = 0, increasing), the remaining input b1..bm (a suffix of 1..n) and the
    arcs built so far. Mutable (:meth:`apply`); picklable."""

    def __new__(
        cls,
        stack: _Nodes,
        buffer: _Nodes,
        n: int,
        system: str = "arc-standard",
        arcs: Optional[_Arcs] = None,
        unshifted: Optional[int] = None,
    ) -> "Configuration":
        """Checked as the command line checks a JSON configuration; arc-eager
        needs ``arcs`` for a stack of more than the root; arc-eager-nm right
        after an unshift: ``buffer=[]`` and ``unshifted`` the word moved back.
        ``ValueError`` otherwise."""
    @staticmethod
    def initial(n: int, system: str = "arc-standard") -> "Configuration":
        """The initial configuration (0, 1 2 .. n), no arcs."""
    @property
    def system(self) -> str: ...
    @property
    def stack(self) -> list[int]: ...
    @property
    def buffer(self) -> list[int]: ...
    @property
    def unshifted(self) -> Optional[int]:
        """arc-eager-nm: the word an unshift moved back onto the empty input."""
    @property
    def n(self) -> int: ...
    @property
    def arcs(self) -> list[tuple[int, int]]: ...
    @property
    def is_final(self) -> bool: ...
    def head(self, d: int) -> Optional[int]:
        """The head given to word ``d`` so far, if any."""
    def applicable_steps(self) -> list[str]: ...
    def is_applicable(self, step: str) -> bool: ...
    def apply(self, step: str) -> Optional[tuple[int, int]]:
        """Takes ``step``; returns the arc it builds, if any. ``ValueError`` if it does not apply."""
    def copy(self) -> "Configuration": ...
    def __copy__(self) -> "Configuration": ...
    def __deepcopy__(self, memo: Any) -> "Configuration": ...

@final
class Oracle:
    """Optimal steps for configurations given one at a time. Each applicable
    step is scored by the most gold arcs that computations starting with it
    (and respecting the strategy, Sec. 2) can still build; arcs built before
    do not count. Arc-standard: ``cubic`` (Sec. 4, Table 4; any gold tree),
    ``quadratic`` and ``linear`` (Sec. 5, 6; projective gold trees), ``auto``
    (linear for a projective gold tree, cubic otherwise). Arc-hybrid and
    arc-eager: ``cubic`` (the grammar oracle, any gold tree), ``linear`` (the
    closed forms, projective gold trees), ``auto``. Picklable (its settings)."""

    def __new__(cls, system: str = "arc-standard", strategy: Optional[str] = None, algorithm: str = "auto") -> "Oracle":
        """Systems: see :func:`systems`; strategies (default: ``lbr``, or
        ``none`` for ``lr-spine``, ``attardi`` and ``arc-eager-nm``) ``none``, ``lbr``,
        ``strict-lbr``, ``rbl``; algorithms ``cubic``, ``quadratic``,
        ``linear``, ``auto``. ``ValueError`` if the system does not offer them."""
    @property
    def system(self) -> str: ...
    @property
    def strategy(self) -> str: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def steps(self) -> list[str]:
        """The system's steps: the keys of :meth:`scores`, the columns of :meth:`scores_batch`."""
    def scores(
        self,
        stack: _Nodes,
        buffer: _Nodes,
        gold: _Heads,
        arcs: Optional[_Arcs] = None,
        unshifted: Optional[int] = None,
    ) -> dict[str, Optional[int]]:
        """The score of every step of the system, ``None`` where it does not apply."""
    def optimal(
        self,
        stack: _Nodes,
        buffer: _Nodes,
        gold: _Heads,
        arcs: Optional[_Arcs] = None,
        unshifted: Optional[int] = None,
    ) -> list[str]:
        """The steps with the highest score, in the system's order."""
    def scores_at(self, configuration: Configuration, gold: _Heads) -> dict[str, Optional[int]]: ...
    def optimal_at(self, configuration: Configuration, gold: _Heads) -> list[str]: ...
    def scores_batch(
        self, configurations: Sequence[Configuration], golds: Sequence[_Heads]
    ) -> npt.NDArray[np.int64]:
        """Scores of many configurations (one gold tree each; a repeated object
        is converted once), on several threads with the GIL released: shape
        ``(len(configurations), len(steps))``, -1 where a step does not apply."""

@final
class Session:
    """The optimal steps along one computation for one gold tree (Sec. 7):
    told each step (:meth:`apply`), it answers :meth:`scores` for the current
    configuration. With the linear algorithm on a projective gold tree it is
    incremental (arc-standard: O(log n) per step along gold computations;
    arc-hybrid and arc-eager: the closed forms, O(1) per step); otherwise each
    :meth:`scores` is a one-shot call. Same answers as :class:`Oracle`.
    Picklable (gold, settings, configuration)."""

    def __new__(
        cls,
        gold: _Heads,
        system: str = "arc-standard",
        strategy: Optional[str] = None,
        algorithm: str = "auto",
        configuration: Optional[Configuration] = None,
    ) -> "Session": ...
    def scores(self) -> dict[str, Optional[int]]: ...
    def optimal(self) -> list[str]: ...
    def apply(self, step: str) -> Optional[tuple[int, int]]:
        """Takes ``step``; returns the arc it builds, if any. ``ValueError`` if it does not apply."""
    def applicable_steps(self) -> list[str]: ...
    @property
    def configuration(self) -> Configuration:
        """A copy of the current configuration."""
    @property
    def is_final(self) -> bool: ...
    @property
    def stack(self) -> list[int]: ...
    @property
    def buffer(self) -> list[int]: ...
    @property
    def gold(self) -> Tree: ...
    @property
    def system(self) -> str: ...
    @property
    def steps(self) -> list[str]: ...
    @property
    def strategy(self) -> str: ...
    @property
    def algorithm(self) -> str:
        """The algorithm in use, ``auto`` resolved."""
    @property
    def is_incremental(self) -> bool: ...

@final
class OracleBatch:
    """The oracle of a minibatch, for a neural parser's training loop: B
    sentences followed at once, each query one NumPy array over the batch
    (computed with the GIL released), one step per sentence by
    :meth:`apply`. ``golds``: heads of words 1..n (None: no gold head),
    ``Tree`` or ``Sentence`` objects; ``labels``: optional gold label ids per
    word (-1: none). ``abandon=True``: a sentence whose configuration the
    oracle refuses is marked abandoned (and finished) instead of raising.
    ``max_gamma`` (Attardi only): the limit of its table on the stack and
    reduced buffer (default 48), as ``tabula train --max-gamma``;
    ``max_pairs`` (Attardi only): the budget of one call of its table in
    pairs of items combined (default none), past which the call raises, or
    with ``abandon=True`` the sentence is abandoned."""

    POSITIONS: list[str]
    def __new__(
        cls,
        golds: Sequence[Any],
        system: str = "arc-standard",
        strategy: Optional[str] = None,
        algorithm: str = "auto",
        labels: Optional[Sequence[Any]] = None,
        abandon: bool = False,
        max_gamma: Optional[int] = None,
        max_pairs: Optional[int] = None,
    ) -> "OracleBatch": ...
    @staticmethod
    def without_gold(lengths: Sequence[int], system: str = "arc-standard") -> "OracleBatch":
        """A batch of sentences of these lengths without gold trees (for parsing)."""
    def reset(self, golds: Sequence[Any], labels: Optional[Sequence[Any]] = None) -> None:
        """Starts a new batch in this object, reusing its buffers."""
    def reset_lengths(self, lengths: Sequence[int]) -> None: ...
    @property
    def steps(self) -> list[str]: ...
    @property
    def system(self) -> str: ...
    @property
    def strategy(self) -> str: ...
    @property
    def algorithm(self) -> str: ...
    def __len__(self) -> int: ...
    @property
    def lengths(self) -> npt.NDArray[np.int64]: ...
    @property
    def finished(self) -> npt.NDArray[np.bool_]: ...
    @property
    def abandoned(self) -> npt.NDArray[np.bool_]: ...
    @property
    def done(self) -> bool: ...
    def scores(self, out: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.int64]:
        """Every step's score (B x steps), -1 where not applicable or finished."""
    def optimal(self, out: Optional[npt.NDArray[np.bool_]] = None) -> npt.NDArray[np.bool_]: ...
    def static_steps(self, out: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.int64]: ...
    def applicable(self, out: Optional[npt.NDArray[np.bool_]] = None) -> npt.NDArray[np.bool_]: ...
    def positions(self, out: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.int64]:
        """s0 s1 s2 b0 b1 and the outer children of s0, s1, b0 (B x 11), -1 where absent."""
    def gold_labels(self, out: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.int64]: ...
    def arc_heads(self, out: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.int64]: ...
    def apply(self, steps: npt.ArrayLike, labels: Optional[npt.ArrayLike] = None) -> None:
        """One step per sentence (a column index, -1: none); all checked before any is taken.
        Any 1-D integer array or sequence (an int64 array is read without a copy)."""
    def heads(self) -> list[npt.NDArray[np.int64]]: ...
    def labels(self) -> list[npt.NDArray[np.int64]]: ...

def scores_batch(sessions: Sequence[Session]) -> npt.NDArray[np.int64]:
    """The current scores of many sessions (one system; each session once), on
    several threads with the GIL released: shape ``(len(sessions), len(steps))``,
    -1 where a step does not apply."""

def apply_batch(sessions: Sequence[Session], steps: Sequence[str]) -> list[Optional[tuple[int, int]]]:
    """``sessions[i].apply(steps[i])`` for every i; the arcs built."""

@overload
def projectivize(
    heads: _Heads,
    method: str = "optimal",
    *,
    single_root: bool = False,
    sample: Optional[int] = None,
    stream: Optional[int] = None,
    prefer: Optional[_PathLike] = None,
    grammar: Optional[_PathLike] = None,
    objective: str = "gold-first",
    encode: None = None,
) -> Tree: ...
@overload
def projectivize(
    heads: Sentence,
    method: str = "optimal",
    *,
    single_root: bool = False,
    sample: Optional[int] = None,
    stream: Optional[int] = None,
    prefer: Optional[_PathLike] = None,
    grammar: Optional[_PathLike] = None,
    objective: str = "gold-first",
    encode: str,
) -> Sentence:
    """A projective tree keeping the most gold arcs (Sec. 3, Sec. 8.1), or
    pseudo-projective lifting (``method="lift"``), as ``tabula projectivize``;
    the options are its options. ``grammar``: a grammar file instead of the
    built-in Table 3 grammar. Ties among optimal trees: with
    ``prefer="default"`` or a weights file (``heads`` must then be a
    :class:`Sentence`, whose UPOS, FEATS and DEPREL the weights read) the tree with
    the best secondary score; ``prefer=None`` (not given) as ``tabula projectivize``
    without ``--prefer``: the built-in weights for a :class:`Sentence` (the tree the
    command line writes), ties broken as ``"none"`` for heads and trees;
    ``"none"`` as ``tabula projectivize --prefer none``.
    ``objective="valid-first"``: first the fewest words under function words
    that may not take them (a :class:`Sentence`, with ``prefer`` not ``"none"``).
    With ``sample=SEED``: an optimal tree drawn uniformly, as ``tabula projectivize
    --sample SEED`` draws for sentence number ``stream`` (from 0).
    Returns a :class:`Tree` (the given one if it is projective); with
    ``encode="head"``, ``"path"`` or ``"head+path"``, the :class:`Sentence`
    with the new heads and the pseudo-projective labels (Nivre & Nilsson
    2005) in its DEPREL column, as ``--encode`` writes it (:func:`deprojectivize`
    undoes it). O(n) for a projective tree, O(n^3) otherwise."""

@overload
def projectivize_batch(
    trees: Sequence[_Heads],
    method: str = "optimal",
    *,
    single_root: bool = False,
    sample: Optional[int] = None,
    prefer: Optional[_PathLike] = None,
    grammar: Optional[_PathLike] = None,
    objective: str = "gold-first",
    encode: None = None,
) -> list[Tree]: ...
@overload
def projectivize_batch(
    trees: Sequence[Sentence],
    method: str = "optimal",
    *,
    single_root: bool = False,
    sample: Optional[int] = None,
    prefer: Optional[_PathLike] = None,
    grammar: Optional[_PathLike] = None,
    objective: str = "gold-first",
    encode: str,
) -> list[Sentence]:
    """:func:`projectivize` for many trees, on several threads with the GIL
    released; with ``sample=SEED`` tree i is drawn with stream i, as the command
    line does; the other options as for :func:`projectivize` (``prefer`` and
    ``encode``: every item a :class:`Sentence`). Returns what :func:`projectivize`
    returns, one per tree; a given :class:`Tree` (or, with ``encode``,
    :class:`Sentence`) that is unchanged comes back as the same object."""

def pseudo_projective_encode(original: _Heads, projective: _Heads, labels: Sequence[str], scheme: str) -> list[str]:
    """Pseudo-projective labels (Nivre & Nilsson 2005), as ``tabula projectivize --encode``."""

def pseudo_projective_decode(heads: _Heads, labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Undoes :func:`pseudo_projective_encode` (``tabula deprojectivize``): heads and plain labels."""

def count(heads: _Heads, *, with_best: bool = False, single_root: bool = False) -> Any:
    """The exact number of optimal projective trees (end of Sec. 3, Fig. 8), an
    ``int``; with ``with_best=True`` the pair ``(best score, count)``."""

def count_batch(trees: Sequence[_Heads], *, with_best: bool = False, single_root: bool = False) -> list[Any]:
    """:func:`count` for many trees, on several threads with the GIL released."""

@final
class Sentence:
    """One sentence of a CoNLL-U file: its lines as read, its gold tree (if
    its HEAD column is not ``_``) and the columns of its syntactic words."""

    @property
    def heads(self) -> Optional[list[int]]:
        """The heads of words 1..n; ``None`` for a sentence without a tree."""
    @property
    def tree(self) -> Tree:
        """``ValueError`` for a sentence without a tree."""
    @property
    def has_tree(self) -> bool: ...
    @property
    def forms(self) -> list[str]: ...
    @property
    def lemmas(self) -> list[str]: ...
    @property
    def upos(self) -> list[str]: ...
    @property
    def xpos(self) -> list[str]: ...
    @property
    def feats(self) -> list[str]: ...
    @property
    def deprels(self) -> list[str]: ...
    @property
    def deps(self) -> list[str]: ...
    @property
    def misc(self) -> list[str]: ...
    @property
    def sent_id(self) -> Optional[str]:
        """The value of ``# sent_id = ...``."""
    @property
    def text(self) -> Optional[str]:
        """The value of ``# text = ...``."""
    @property
    def first_line(self) -> int: ...
    @property
    def file(self) -> str:
        """The file the sentence was read from, as messages name it."""
    def to_conllu(self) -> str:
        """The sentence's lines exactly as read, with its trailing blank line."""
    def __len__(self) -> int: ...
    def _repr_svg_(self) -> str:
        """The tree as an SVG arc diagram (what Jupyter shows); see :func:`draw`."""

def read_conllu(path: _PathLike) -> list[Sentence]:
    """Every sentence of a CoNLL-U file (plain, xz or gzip); a sentence whose
    every HEAD is ``_`` has no tree (text to parse). ``ValueError``
    ``file:line: message`` if malformed."""

def parse_conllu(text: str, name: str = "<string>") -> list[Sentence]:
    """Every sentence of CoNLL-U text; ``name`` stands for the file in messages."""

def write_conllu(
    path: _PathLike, sentences: Sequence[Sentence], heads: Optional[Sequence[Optional[_Heads]]] = None
) -> None:
    """Writes the sentences byte for byte, with new heads where given (only the
    changed HEAD fields are rewritten), as :func:`write_file` writes."""

def file_kind(data: bytes) -> Optional[tuple[int, str]]:
    """What kind of file ``data`` (a file's first bytes) is, if tabula knows
    it: ``(line, what)``, e.g. ``(4, "a CoNLL-U treebank")``; ``None``
    otherwise."""

def shown(text: str) -> str:
    """``text`` as a terminal or a message should show it: control characters
    and U+FFFE/U+FFFF written visibly (``\\x1b``), as the command line does."""

def write_file(path: _PathLike, data: Union[bytes, str], *, inputs: Sequence[_PathLike] = ()) -> None:
    """Writes ``data`` (text as UTF-8) as the command line's ``-o`` does: a
    regular file (or a new one) through a temporary file renamed over it at
    the end, so that a failed write leaves the old file whole and nothing
    behind; a device or FIFO (``/dev/stdout``, ``/dev/null``) in place, never
    replaced; ``-``: standard output. A missing directory raises
    FileNotFoundError; a directory or a read-only file OSError; so does a
    ``path`` that is the same file as one of ``inputs`` (``-``: standard
    input), or a hard or symbolic link to it, which would be replaced."""

def check_output(path: _PathLike, inputs: Sequence[_PathLike] = ()) -> None:
    """Checks that :func:`write_file` could write ``path`` with these
    ``inputs``, and writes nothing: the same errors, raised before a long
    computation rather than after it."""

@final
class Grammar:
    """A split bilexical grammar (Sec. 3), checked and compiled; the engine of
    Table 2 runs it over the counting, Boolean and max-plus semirings, and with
    real arc scores over the log-space ones (log-partition, marginals by the
    outside pass, entropy, k best, samples). Picklable (as its text)."""

    @staticmethod
    def from_file(path: _PathLike) -> "Grammar":
        """``GrammarError`` with every error of the file, or with one line for
        a file of another kind (a CoNLL-U treebank, JSON, compressed data, a
        tabula model: ``PATH:LINE: this is …, not a grammar file``);
        ``OSError`` if unreadable."""
    @staticmethod
    def from_string(text: str, path: str = "<string>") -> "Grammar": ...
    @property
    def terminals(self) -> list[str]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def path(self) -> str: ...
    def count(self, terminals: _Terminals) -> int:
        """The exact number of derivations of a0 a1 .. an (a0 the root). O(n^3)."""
    def recognizes(self, terminals: _Terminals) -> bool: ...
    def max(
        self, terminals: _Terminals, weights: Optional[Union[npt.ArrayLike, npt.NDArray[Any]]] = None
    ) -> Optional[int]:
        """The best total weight (max-plus); ``weights`` is (n+1)x(n+1), row = head,
        column = dependent, 32-bit integers or -inf. ``None`` if no derivation."""
    def best(
        self, terminals: _Terminals, weights: Optional[Union[npt.ArrayLike, npt.NDArray[Any]]] = None
    ) -> list[int]:
        """A best tree: the heads of positions 1..n. ``ValueError`` if no derivation."""
    @staticmethod
    def shipped(name: str) -> "Grammar":
        """A grammar shipped with tabula: ``"projective"`` (Table 3),
        ``"projective-single-root"``, ``"shift-reduce"``, ``"shift-reduce-strict"``,
        ``"arc-hybrid"``, ``"arc-eager"``."""
    def log_partition(self, terminals: _Terminals, scores: _Scores) -> float:
        """ln Z, the log of the sum over derivations of exp(sum of their arcs'
        scores); -inf if the grammar derives no tree. O(n^3)."""
    def marginals(self, terminals: _Terminals, scores: _Scores) -> npt.NDArray[np.float64]:
        """Arc marginals P(h -> d), the gradient of :meth:`log_partition`: an
        (n+1)x(n+1) array, row = head, column = dependent (outside pass). O(n^3)."""
    def entropy(self, terminals: _Terminals, scores: _Scores) -> float:
        """The entropy in nats of the distribution over derivations
        (ln Z minus the expected score, from the marginals). O(n^3)."""
    def expected_gold_arcs(self, terminals: _Terminals, scores: _Scores, gold: _Heads) -> float:
        """The expected number of arcs of ``gold`` in a tree of the distribution. O(n^3)."""
    def kbest(self, terminals: _Terminals, scores: _Scores, k: int) -> list[tuple[float, list[int]]]:
        """The k best trees, best first: (total score, heads of words 1..n)."""
    def sample(
        self, terminals: _Terminals, scores: _Scores, count: int, seed: Optional[int] = None
    ) -> npt.NDArray[np.int64]:
        """``count`` trees drawn from the distribution: shape (count, n), heads of words 1..n."""
    @property
    def rules(self) -> dict[str, list[str]]:
        """The finish and attachment rules in the file format: keys ``"finish"``
        (``A -> (B, C)``), ``"left"`` (``(B', _) -> A (B, _)``), ``"right"``
        (``(_, C') -> (_, C) A``), each in file order."""
    def rule_marginals(self, terminals: _Terminals, scores: _Scores) -> dict[str, npt.NDArray[np.float64]]:
        """The expected number of uses of every rule of :attr:`rules` in a
        derivation (a start rule's use counts for its finish rule), by the
        outside pass; ``ValueError`` if the grammar derives no tree."""
    def rule_marginals_batch(
        self, terminals: Sequence[_Terminals], scores: _ScoresBatch
    ) -> list[dict[str, npt.NDArray[np.float64]]]:
        """:meth:`rule_marginals` of many sentences on threads, the GIL released."""
    def kbest_batch(
        self, terminals: Sequence[_Terminals], scores: _ScoresBatch, k: int
    ) -> list[list[tuple[float, list[int]]]]:
        """:meth:`kbest` of many sentences on threads, the GIL released."""
    def sample_batch(
        self, terminals: Sequence[_Terminals], scores: _ScoresBatch, count: int, seed: Optional[int] = None
    ) -> list[npt.NDArray[np.int64]]:
        """:meth:`sample` of many sentences on threads, the GIL released; with
        ``seed``, sentence i draws what ``sample(..., seed=seed + i)`` draws."""
    def log_partition_batch(
        self, terminals: Sequence[_Terminals], scores: _ScoresBatch
    ) -> npt.NDArray[np.float64]:
        """:meth:`log_partition` of many sentences on threads, the GIL released."""
    def marginals_batch(
        self, terminals: Sequence[_Terminals], scores: _ScoresBatch
    ) -> list[npt.NDArray[np.float64]]:
        """:meth:`marginals` of many sentences on threads, the GIL released."""
    def entropy_batch(self, terminals: Sequence[_Terminals], scores: _ScoresBatch) -> npt.NDArray[np.float64]:
        """:meth:`entropy` of many sentences on threads, the GIL released."""

_Treebank = Union[_PathLike, Sequence[Sentence]]

@final
class Parser:
    """A trained transition-based dependency parser (averaged perceptron,
    Zhang & Nivre 2011 features), as ``tabula train`` writes it and
    ``tabula parse`` applies it. Picklable (as its model file's bytes)."""

    @staticmethod
    def train(
        train: _Treebank,
        dev: Optional[_Treebank] = None,
        *,
        system: str = "arc-hybrid",
        oracle: str = "dynamic",
        algorithm: Optional[str] = None,
        strategy: Optional[str] = None,
        max_gamma: Optional[int] = None,
        max_pairs: Optional[int] = None,
        max_words: Optional[int] = None,
        projectivize: Optional[str] = None,
        skip_nonprojective: bool = False,
        pseudo_projective: Optional[str] = None,
        tagger: Optional[Union["Tagger", _PathLike]] = None,
        jackknife: Optional[int] = None,
        feats: bool = False,
        lemma: bool = False,
        xpos: bool = False,
        epochs: int = 10,
        beam: int = 1,
        root: Optional[str] = None,
        update: Optional[str] = None,
        restart: bool = False,
        beam_labels: Optional[int] = None,
        explore_from: Optional[int] = None,
        explore_p: Optional[float] = None,
        seed: int = 1,
        subsample: Optional[float] = None,
        init: Optional[Union["Parser", _PathLike]] = None,
        step_bits: int = 20,
        label_bits: int = 18,
        threads: Optional[int] = None,
        verbose: bool = False,
    ) -> "Parser":
        """Trains as ``tabula train`` with the same options (an option without
        effect in the mode chosen is a ``ValueError``); the same model, byte for
        byte, from the same data and seed."""
    @staticmethod
    def load(path: _PathLike) -> "Parser": ...
    def save(self, path: _PathLike) -> None: ...
    def to_bytes(self) -> bytes:
        """The bytes of the model file."""
    @staticmethod
    def from_bytes(data: bytes) -> "Parser": ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    def parse(
        self,
        sentences: Sequence[Sentence],
        *,
        tagger: Optional[Union["Tagger", _PathLike]] = None,
        beam: Optional[int] = None,
        constraints: bool = False,
        constraint_kind: str = "arcs",
        threads: int = 1,
        max_words: int = 10000,
    ) -> list[Sentence]:
        """New sentences with HEAD and DEPREL filled, as ``tabula parse`` writes them
        (with ``tagger``: UPOS, and FEATS, predicted first; with ``constraints``: the
        input's arcs, or with ``constraint_kind="direction"`` their directions, kept).
        A sentence longer than ``max_words`` words is a ``ValueError`` naming its line."""
    @property
    def system(self) -> str: ...
    @property
    def labels(self) -> list[str]: ...
    @property
    def beam(self) -> int: ...
    @property
    def beam_labels(self) -> Optional[int]: ...
    @property
    def feats(self) -> bool: ...
    @property
    def lemma(self) -> bool: ...
    @property
    def xpos(self) -> bool: ...
    @property
    def epoch(self) -> Optional[int]:
        """The epoch whose model was kept, for a parser trained in this
        process; ``None`` for a loaded one (the model file keeps no history)."""
    @property
    def history(self) -> list[dict[str, Any]]:
        """One dict per training epoch; empty for a loaded parser."""

@final
class Tagger:
    """A trained part-of-speech tagger (UPOS, and FEATS if trained with
    ``feats=True``), as ``tabula train-tagger`` writes it and ``tabula tag``
    applies it. Picklable (as its file's bytes)."""

    @staticmethod
    def train(
        train: _Treebank,
        dev: Optional[_Treebank] = None,
        *,
        feats: bool = False,
        decode: str = "greedy",
        passes: int = 1,
        epochs: int = 10,
        seed: int = 1,
        bits: int = 19,
        dictionary_min_count: Optional[int] = None,
        dictionary_min_share: float = 0.97,
        direction: str = "left-to-right",
        ensemble: int = 1,
        threads: Optional[int] = None,
        verbose: bool = False,
    ) -> "Tagger":
        """Trains as ``tabula train-tagger`` with the same options; the same
        tagger, byte for byte, from the same data and seed."""
    @staticmethod
    def load(path: _PathLike) -> "Tagger": ...
    def save(self, path: _PathLike) -> None: ...
    def tag(
        self, sentences: Sequence[Sentence], *, decode: Optional[str] = None, threads: int = 1
    ) -> list[Sentence]:
        """New sentences with UPOS (and FEATS) filled, as ``tabula tag`` writes them."""
    def jackknife(self, sentences: Sequence[Sentence], k: int) -> list[Sentence]:
        """K-fold tagging: each fold tagged by a tagger trained like this one
        on the other folds, as ``tabula train --tagger T --jackknife K``."""
    def accuracy(
        self, gold: _Treebank, *, decode: Optional[str] = None, threads: int = 1
    ) -> dict[str, Any]:
        """``words``, ``upos`` and ``feats`` (percent; ``None`` without FEATS), as ``tabula tag --eval``."""
    def to_bytes(self) -> bytes:
        """The bytes of the tagger file."""
    @staticmethod
    def from_bytes(data: bytes) -> "Tagger": ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def feats(self) -> bool: ...
    @property
    def decode(self) -> str: ...
    @property
    def passes(self) -> int: ...
    @property
    def dictionary_words(self) -> int: ...
    @property
    def epoch(self) -> Optional[int]: ...
    @property
    def history(self) -> list[dict[str, Any]]: ...

def evaluate(
    gold: _Treebank,
    pred: _Treebank,
    *,
    nonprojective: bool = False,
    breakdown: bool = False,
    train: Optional[_Treebank] = None,
) -> dict[str, Any]:
    """UAS and LAS as ``tabula eval --json`` prints them; with ``nonprojective``
    and ``breakdown`` (``train``: the word frequencies of the breakdown) the
    keys ``nonprojective`` and ``breakdown`` that ``--nonprojective``,
    ``--breakdown`` and ``--train`` add."""

@overload
def deprojectivize(sentences: Sentence) -> Sentence: ...
@overload
def deprojectivize(sentences: _Treebank) -> list[Sentence]:
    """Undoes the pseudo-projective encoding of ``projectivize(..., encode=...)``
    (Nivre & Nilsson 2005), as ``tabula deprojectivize``: a :class:`Sentence`
    gives a :class:`Sentence`; a CoNLL-U file or a list of sentences, a list."""

def ensemble(
    predictions: Sequence[_Treebank],
    *,
    weights: Optional[Sequence[float]] = None,
    max_words: int = 2000,
    projective: bool = False,
) -> list[Sentence]:
    """The weighted vote of several parsers' trees, reparsed, as ``tabula
    ensemble``: the first prediction's sentences with HEAD and DEPREL replaced."""

def check_input(
    sentences: Sequence[Sentence],
    *,
    feats: bool = False,
    lemma: bool = False,
    xpos: bool = False,
    file: Optional[str] = None,
    model_name: str = "the model",
    command_line: bool = False,
) -> list[str]:
    """Checks sentences to parse as every parser of tabula checks its input:
    ``ValueError`` (file and line) for a sentence none of whose words has a
    UPOS; returns the warnings of the sentences as a whole (words without
    UPOS, a column the model reads that is ``_`` everywhere)."""

def set_max_memory(size: Union[int, str]) -> None:
    """The process-wide memory limit of one computation, as ``--max-memory``."""

def max_memory() -> int: ...

def nonprojective_log_partition(scores: _Scores, single_root: bool = False) -> float:
    """See :func:`tabula_parsing.nonprojective.log_partition`."""
def nonprojective_marginals(scores: _Scores, single_root: bool = False) -> npt.NDArray[np.float64]:
    """See :func:`tabula_parsing.nonprojective.marginals`."""
def nonprojective_log_partition_batch(
    scores: _ScoresBatch, single_root: bool = False
) -> npt.NDArray[np.float64]:
    """See :func:`tabula_parsing.nonprojective.log_partition_batch`."""
def nonprojective_marginals_batch(
    scores: _ScoresBatch, single_root: bool = False
) -> list[npt.NDArray[np.float64]]:
    """See :func:`tabula_parsing.nonprojective.marginals_batch`."""
def systems() -> list[str]:
    """Every transition system: oracles, sessions, batch arrays and the parser."""

def steps(system: str) -> list[str]:
    """A system's steps, in the order of the batch columns (LR-spine: ``shift``,
    ``left_arc_1`` .. ``left_arc_32``, ``right_arc_1`` .. ``right_arc_32``)."""

# Pictures of trees (``tabula draw``).
__all__ += ["draw"]

_Sentences = Union[Sentence, Sequence[Sentence]]

def draw(
    sentences: _Sentences,
    *others: _Sentences,
    format: str = "svg",
    names: Optional[Sequence[str]] = None,
    ids: Optional[Sequence[str]] = None,
    differences: bool = False,
    nonprojective: bool = False,
    max_words: Optional[int] = None,
) -> str:
    """SVG, a self-contained HTML page or text trees of ``sentences``, with
    where ``others`` (the same sentences with other trees) differ marked."""
def crf_partition(
    scores: npt.NDArray[Any],
    lengths: npt.NDArray[np.int64],
    grammar: Optional[Grammar] = None,
    terminals: Optional[Sequence[Sequence[str]]] = None,
    single_root: bool = False,
    marginals: bool = True,
) -> list[npt.NDArray[Any]]:
    """See :class:`tabula_parsing.crf.TreeCRF`: [log Z] or [log Z, marginals]."""
def crf_kbest(
    scores: npt.NDArray[Any],
    lengths: npt.NDArray[np.int64],
    k: int,
    grammar: Optional[Grammar] = None,
    terminals: Optional[Sequence[Sequence[str]]] = None,
    single_root: bool = False,
) -> list[npt.NDArray[Any]]:
    """See :meth:`tabula_parsing.crf.TreeCRF.kbest`: [scores, heads]."""
def crf_sample(
    scores: npt.NDArray[Any],
    lengths: npt.NDArray[np.int64],
    count: int,
    seed: Optional[int] = None,
    grammar: Optional[Grammar] = None,
    terminals: Optional[Sequence[Sequence[str]]] = None,
    single_root: bool = False,
) -> list[npt.NDArray[np.int64]]:
    """See :meth:`tabula_parsing.crf.TreeCRF.sample`: [heads]."""
def crf_tree_log_derivations(
    scores: npt.NDArray[Any],
    lengths: npt.NDArray[np.int64],
    heads: npt.NDArray[np.int64],
    grammar: Optional[Grammar] = None,
    terminals: Optional[Sequence[Sequence[str]]] = None,
    single_root: bool = False,
) -> list[npt.NDArray[np.float64]]:
    """See :meth:`tabula_parsing.crf.TreeCRF.log_prob`: [ln derivations]."""
