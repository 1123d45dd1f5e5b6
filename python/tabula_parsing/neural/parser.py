"""The trained neural parser: training from CoNLL-U files (the best epoch on
the dev file kept), saving and loading (network, vocabularies and options in
one file), and parsing (HEAD and DEPREL filled, nothing else changed)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np
import torch

from .. import _tabula as tp
from ..crf import TREES
from .data import Encoded, Pretrained, Vocabularies, batches, check_columns, encode, input_warnings, with_tree
from .graph import GraphTrainer, parse_graph_batches, trees_argument
from .graph import network as biaffine_network
from . import checkpoint as checkpoints
from .model import Dimensions, Encoder, Network
from .sealed import seal, unseal
from .train import (
    EpochReport,
    Options,
    Progress,
    Trainer,
    device_of,
    default_epochs,
    epochs_of,
    parse_batches,
    seed_everything,
    pretrained_count,
    threads_of,
)

FORMAT = "tabula-neural-1"
#: The largest size of any layer a model file may give (the network is
#: built only after its tensors are found to have the sizes its options say).
MAX_DIM = 1 << 20
# The size of the FEATS embeddings with --feats unless given.
FEATS_DIM = 32
# Sentences per batch when parsing (sorted by length, so little padding).
PARSE_BATCH = 128
PathLike = Union[str, "os.PathLike[str]"]

# The systems whose oracles score any gold tree without projectivizing it.
NONPROJECTIVE = ("attardi", "arc-eager-nm")


#: The options of the transition parser only, with their defaults: given
#: another value with ``--parser biaffine`` they are refused.
TRANSITION_ONLY = {
    "system": ("--system", "arc-hybrid"),
    "oracle": ("--oracle", "dynamic"),
    "algorithm": ("--algorithm", "auto"),
    "strategy": ("--strategy", None),
    "explore_from": ("--explore-from", 1),
    "explore_p": ("--explore-p", 0.9),
    "loss": ("--loss", "ce"),
    "max_gamma": ("--max-gamma", None),
    "max_pairs": ("--max-pairs", None),
}
#: The biaffine parser's own options, refused with the transition parser.
BIAFFINE_ONLY = {"arc_loss": ("--arc-loss", "crf"), "trees": ("--trees", "nonprojective-single-root")}


def _check(options: Options, given: Optional[set[str]] = None) -> None:
    """The option checks of ``tabula train``, with the same words; an option
    of the other parser is refused. ``given``: the options set by the caller
    (default: those that differ from their defaults)."""
    o = options
    if o.parser not in ("transition", "biaffine"):
        raise ValueError(f"--parser must be transition or biaffine, found `{o.parser}`")
    other = TRANSITION_ONLY if o.parser == "biaffine" else BIAFFINE_ONLY
    for key, (flag, default) in other.items():
        if (key in given) if given is not None else getattr(o, key) != default:
            raise ValueError(f"{flag} has no effect with --parser {o.parser}")
    if o.projectivize not in (None, "none", "optimal", "lift"):
        raise ValueError(f"--projectivize must be none, optimal or lift, found `{o.projectivize}`")
    if o.pseudo_projective is not None:
        if o.pseudo_projective not in ("head", "path", "head+path"):
            raise ValueError(f"--pseudo-projective must be head, path or head+path, found `{o.pseudo_projective}`")
        if _projectivization(o) == "none":
            raise ValueError("--pseudo-projective needs --projectivize optimal or lift (it encodes their moves)")
    if o.jackknife is not None and o.tagger is None:
        raise ValueError("--jackknife K tags the training file with taggers trained like --tagger TAGGER: give --tagger")
    if o.jackknife is not None and not 2 <= o.jackknife <= 100:
        raise ValueError(f"--jackknife must be between 2 and 100, found {o.jackknife}")
    if not o.learning_rate > 0.0:
        raise ValueError(f"--learning-rate must be above 0, found {o.learning_rate}")
    if not o.word_dropout >= 0.0:
        raise ValueError(f"--word-dropout must be at least 0, found {o.word_dropout}")
    _check_dims(o)
    if not 0.0 <= o.average < 1.0:
        raise ValueError(f"--average must be at least 0 and below 1, found {o.average}")
    if o.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, found {o.batch_size}")
    device_of(o.device)
    if o.epochs is not None:  # else chosen from the training file's size
        epochs_of(o.epochs)
    if o.parser == "biaffine":
        if o.arc_loss not in ("local", "crf"):
            raise ValueError(f"--arc-loss must be local or crf, found `{o.arc_loss}`")
        if o.trees not in TREES and not os.path.isfile(o.trees):
            raise ValueError(
                f"--trees must be one of {', '.join(TREES)} or a grammar file; `{o.trees}` is neither"
            )
        trees_argument(o)  # a grammar file with errors: its diagnostics now
        return
    if o.system not in tp.systems():
        # The library's message, with its "did you mean" for a near miss.
        try:
            tp.steps(o.system)
        except ValueError as e:
            raise ValueError(str(e)) from None
        raise ValueError(f"unknown system `{o.system}` (one of {', '.join(tp.systems())})")
    if o.oracle not in ("static", "dynamic"):
        raise ValueError(f"--oracle must be static or dynamic, found `{o.oracle}`")
    if o.loss not in ("ce", "hinge"):
        raise ValueError(f"--loss must be ce or hinge, found `{o.loss}`")
    if o.oracle == "static":
        # The static oracle follows the canonical computation: no strategy,
        # no algorithm, no exploration.
        for key in ("explore_from", "explore_p", "strategy", "algorithm"):
            flag, default = TRANSITION_ONLY[key]
            if (key in given) if given is not None else getattr(o, key) != default:
                raise ValueError(f"{flag} has no effect with --oracle static")
    if not 0.0 <= o.explore_p <= 1.0:
        raise ValueError(f"--explore-p must be between 0 and 1, found {o.explore_p}")
    if o.explore_from < 0:
        raise ValueError(f"--explore-from must be at least 0, found {o.explore_from}")
    _check_exploration(o, given)
    if o.max_gamma is not None and o.system != "attardi":
        raise ValueError("--max-gamma is for --system attardi")
    if o.max_gamma is not None and o.max_gamma < 0:
        raise ValueError(f"--max-gamma must be at least 0, found {o.max_gamma}")
    if o.max_pairs is not None and o.system != "attardi":
        raise ValueError("--max-pairs is for --system attardi")
    if o.max_pairs is not None and o.max_pairs < 1:
        raise ValueError(f"--max-pairs must be at least 1, found {o.max_pairs}")
    if o.strategy is not None and o.system in ("arc-hybrid", "arc-eager"):
        raise ValueError(
            f"--strategy {o.strategy}: {o.system}'s computations give every word its left children before its "
            "right ones, so its strategies are all one; the option would do nothing"
        )
    # The oracle settings, checked by the library (its messages).
    tp.Oracle(o.system, o.strategy, o.algorithm)


def _check_exploration(o: Options, given: Optional[set[str]]) -> None:
    """An exploration option given although no epoch explores, once the
    epochs are known (given, or chosen from the training file's size)."""
    if o.parser == "transition" and o.oracle == "dynamic" and o.epochs is not None and o.explore_from >= o.epochs:
        # Epochs after the first explore_from explore: none of these.
        for key, flag in (("explore_p", "--explore-p"), ("explore_from", "--explore-from")):
            if (key in given) if given is not None else getattr(o, key) != TRANSITION_ONLY[key][1]:
                chosen = "" if given is None or "epochs" in given else " (the default for this training file)"
                raise ValueError(
                    f"{flag}: no epoch explores: exploration starts after epoch {o.explore_from} and "
                    f"--epochs {o.epochs}{chosen} stops before"
                )


def _check_dims(o: Options) -> None:
    """The network's sizes: each at least 1 (the character encoder's 0: none;
    FEATS' 0 without ``--feats``)."""
    d = o.dims
    for name, value, least in [
        ("--word-dim", d.word, 1),
        ("--upos-dim", d.upos, 1),
        ("--char-dim", d.char, 0),
        ("--char-filters", d.char_filters, 1),
        ("--lstm-dim", d.lstm, 1),
        ("--layers", d.layers, 1),
        ("--mlp-dim", d.mlp, 1),
        ("--arc-mlp-dim", d.arc_mlp, 1),
        ("--feats-dim", d.feats, 1 if o.feats else 0),
    ]:
        if value < least:
            raise ValueError(f"{name} must be at least {least}, found {value}")
    if d.feats and not o.feats:
        raise ValueError(f"--feats-dim {d.feats} has no effect without --feats")
    if d.pretrained and o.embeddings is None:
        raise ValueError("the size of pre-trained vectors comes from --embeddings FILE (none given)")
    if not 0.0 <= d.dropout < 1.0:
        raise ValueError(f"--dropout must be at least 0 and below 1, found {d.dropout}")


def _inputs(*paths: Any) -> list[str]:
    """The files among a command's inputs (paths, not objects or ``None``):
    what its outputs must not replace (:func:`tabula_parsing.write_file`'s
    ``inputs``)."""
    return [str(p) for p in paths if isinstance(p, (str, os.PathLike))]


def _training_inputs(train: Any, dev: Any, options: Options) -> list[str]:
    """Every file training reads (:func:`.checkpoint.training_files`)."""
    return _inputs(*checkpoints.training_files(train, dev, options).values())


def _parse_settings(device: Optional[str], batch_size: Optional[int], threads: Optional[int]) -> tuple[torch.device, int]:
    """Parsing's ``--device`` and ``--batch-size`` (default ``PARSE_BATCH``),
    checked, and its ``--threads``."""
    dev = device_of(device or "cpu")
    if batch_size is not None and batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, found {batch_size}")
    threads_of(threads)
    return dev, batch_size or PARSE_BATCH


@contextlib.contextmanager
def _torch_threads(threads: Optional[int]) -> Iterator[None]:
    """PyTorch's CPU threads set to ``threads`` (if given) for a call, and
    set back after it."""
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _projectivization(options: Options) -> str:
    """``--projectivize`` or its default: ``optimal``, but ``none`` for the
    biaffine parser over all trees (non-projective trees are in its class)."""
    if options.projectivize is not None:
        return options.projectivize
    if options.parser == "biaffine" and options.trees.startswith("nonprojective"):
        return "none"
    return "optimal"


def _read(path: PathLike, what: str) -> list[Any]:
    sentences = tp.read_conllu(path)
    if not sentences:
        raise ValueError(f"{path}: no sentence to {what}")
    return sentences


def _tagger(tagger: Any) -> Any:
    """A :class:`tabula_parsing.Tagger`, or one read from a tagger file."""
    return tagger if isinstance(tagger, tp.Tagger) else tp.Tagger.load(tagger)


def _check_dev(sentences: Sequence[Any], dev: str) -> None:
    """Refuses a dev file that cannot score every epoch, before the first
    one: its every sentence needs a complete gold tree, as ``tabula eval``
    scores them."""
    if not any(s.has_tree for s in sentences):
        raise ValueError(
            f"{dev}: no sentence has a complete gold tree (HEAD `_`): the dev file scores the epochs to "
            "choose the model to keep; give a treebank with trees, or leave --dev out"
        )
    for s in sentences:
        if not s.has_tree:
            raise ValueError(
                f"{dev}:{s.first_line}: a sentence without a gold tree (HEAD `_`): the dev file is scored "
                "as `tabula eval` scores, on complete gold trees"
            )


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped by Ctrl-C: ``output`` holds the model of ``epoch``
    (the best on the dev file so far, else the last finished one), or, when
    ``epoch`` is None, nothing was written yet by this call; ``checkpoint``
    (if one was asked for) holds the run after epoch ``finished`` (0: none
    written)."""

    def __init__(
        self,
        output: Optional[PathLike],
        epoch: Optional[int],
        checkpoint: Optional[PathLike] = None,
        finished: int = 0,
    ) -> None:
        super().__init__()
        self.output, self.epoch = output, epoch
        self.checkpoint, self.finished = checkpoint, finished


class NeuralParser:
    """A trained network with its vocabularies and options; ``path``: the
    file it was loaded from (None: trained here)."""

    def __init__(self, net: Encoder, vocab: Vocabularies, options: Options, epoch: int, history: list[EpochReport]):
        self.net, self.vocab, self.options = net, vocab, options
        self.epoch, self.history = epoch, history
        self.path: Optional[str] = None
        self._trees: Any = trees_argument(options) if options.parser == "biaffine" else None

    @property
    def system(self) -> str:
        return self.options.system

    def _parse_items(
        self,
        items: Sequence[Encoded],
        device: torch.device,
        size: int,
        progress: Optional[Any] = None,
    ) -> list[tuple[list[int], list[str]]]:
        """(heads, DEPRELs) of encoded sentences: greedy transitions, or the
        best tree of the biaffine parser's ``--trees``."""
        if isinstance(self.net, Network):
            return parse_batches(self.net, self.system, items, self.vocab, device, size, progress)
        assert self.options.parser == "biaffine"
        return parse_graph_batches(self.net, self._trees, items, self.vocab, device, size, progress)  # type: ignore[arg-type]

    def _encode(self, sentences: Sequence[Any], file: Optional[str] = None) -> list[Encoded]:
        """The sentences' ids, checked as ``tabula parse`` checks its input
        (its warnings as :class:`UserWarning`)."""
        for text in input_warnings(sentences, file, self.options.feats):
            warnings.warn(text, UserWarning, stacklevel=3)
        return [encode(s, self.vocab, i) for i, s in enumerate(sentences)]

    def parse(
        self,
        sentences: Sequence[Any],
        device: Optional[str] = None,
        batch_size: Optional[int] = None,
        threads: Optional[int] = None,
        tagger: Optional[Any] = None,
    ) -> list[tuple[list[int], list[str]]]:
        """(heads, DEPRELs) of every sentence (``Sentence`` objects);
        ``threads``: PyTorch's CPU threads for this call (default: as they
        are); ``tagger``: a :class:`tabula_parsing.Tagger` or a tagger file
        whose UPOS (and FEATS) the parser reads instead of the input's."""
        dev, size = _parse_settings(device, batch_size, threads)
        self.net.to(dev)
        if tagger is not None:
            sentences = _tagger(tagger).tag(sentences)
        items = self._encode(sentences)
        with _torch_threads(threads):
            return self._parse_items(items, dev, size)

    def parse_file(
        self,
        path: PathLike,
        output: Optional[PathLike] = None,
        device: Optional[str] = None,
        batch_size: Optional[int] = None,
        progress: bool = False,
        threads: Optional[int] = None,
        tagger: Optional[Any] = None,
    ) -> str:
        """Parses a CoNLL-U file; writes (atomically) or returns the text
        with HEAD and DEPREL filled (and, with ``tagger``, UPOS and FEATS as
        ``tabula parse --tagger`` fills them). Options as :meth:`parse`."""
        dev, size = _parse_settings(device, batch_size, threads)
        inputs = _inputs(path, self.path, tagger)
        if output is not None:
            tp.check_output(output, inputs)
        sentences = _read(path, "parse")
        if tagger is not None:
            sentences = _tagger(tagger).tag(sentences)
        self.net.to(dev)
        items = self._encode(sentences, sentences[0].file)
        bar = Progress(len(items), "parsing", progress)
        with _torch_threads(threads):
            trees = self._parse_items(items, dev, size, bar.step)
        bar.close()
        if self.options.pseudo_projective:
            trees = _decode(sentences, trees)
        text = "".join(with_tree(s, h, lab) for s, (h, lab) in zip(sentences, trees))
        if output is not None:
            tp.write_file(output, text, inputs=inputs)
        return text

    def evaluate(self, sentences: Sequence[Any]) -> dict[str, Any]:
        """``tabula eval``'s scores of this parser's trees against the gold
        ones, parsed where the network is (training's dev scores: on its
        ``--device``)."""
        return self._evaluate(sentences, self._encode(sentences))

    def _evaluate(self, sentences: Sequence[Any], items: Sequence[Encoded]) -> dict[str, Any]:
        device = next(self.net.parameters()).device
        trees = self._parse_items(items, device, PARSE_BATCH)
        if self.options.pseudo_projective:
            trees = _decode(sentences, trees)
        text = "".join(with_tree(s, h, lab) for s, (h, lab) in zip(sentences, trees))
        return tp.evaluate(sentences, tp.parse_conllu(text, "<parsed>"))

    def save(self, path: PathLike, inputs: Sequence[PathLike] = ()) -> None:
        """Writes the model (atomically): network, vocabularies, options,
        the epoch kept and the history, with their SHA-256, which
        :func:`load` checks. ``inputs``: files the model must not replace
        (the training files), as :func:`tabula_parsing.write_file`'s."""
        state: dict[str, Any] = {
            "format": FORMAT,
            "network": self.net.state_dict(),
            "vocab": self.vocab.state(),
            "options": self.options.state(),
            "epoch": self.epoch,
            "history": [vars(r) for r in self.history],
        }
        tp.write_file(path, seal(state), inputs=_inputs(*inputs))


def _not_a_model(path: PathLike, why: str) -> ValueError:
    return ValueError(f"{path}: not a tabula neural model: {why}")


def load(path: PathLike) -> NeuralParser:
    """A model written by :meth:`NeuralParser.save` (``ValueError`` for
    another kind of file, a damaged one, or one whose contents do not make
    a network: its sizes are checked against its tensors before the network
    is built)."""
    state = unseal(path, "tabula neural model")
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{path}: not a tabula neural model")
    parser = _from_state(state, path)
    parser.path = str(path)
    return parser


def _options(d: Any, path: PathLike) -> Options:
    """The saved options, checked: known keys, and sizes that are integers
    between 0 and ``MAX_DIM``."""
    known = {f.name for f in dataclasses.fields(Options)}
    unknown = sorted(set(d) - known)
    if unknown:
        raise _not_a_model(path, f"unknown options {unknown}")
    dims = d.get("dims")
    if not isinstance(dims, dict):
        raise _not_a_model(path, "no network sizes in its options")
    dim_fields = {f.name for f in dataclasses.fields(Dimensions)}
    unknown = sorted(set(dims) - dim_fields)
    if unknown:
        raise _not_a_model(path, f"unknown network sizes {unknown}")
    for key, value in dims.items():
        if key == "dropout":
            if not isinstance(value, float) or not 0.0 <= value < 1.0:
                raise _not_a_model(path, f"dropout {value!r}")
        elif not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_DIM:
            raise _not_a_model(path, f"network size `{key}` {value!r} (an integer up to {MAX_DIM})")
    if d.get("parser", "transition") not in ("transition", "biaffine"):
        raise _not_a_model(path, f"unknown parser {d.get('parser')!r}")
    try:
        return Options.from_state(d)
    except (TypeError, ValueError) as e:
        raise _not_a_model(path, f"its options cannot be read ({e})") from None


def _from_state(state: dict[str, Any], path: PathLike) -> NeuralParser:
    """The parser of a saved state, every part checked before the network
    is built: an empty network of the saved sizes on PyTorch's ``meta``
    device (no memory) must have exactly the saved tensors' names and
    shapes."""
    for key, kind in (("options", dict), ("vocab", dict), ("network", dict), ("epoch", int), ("history", list)):
        if key not in state:
            raise _not_a_model(path, f"no `{key}` in it")
        if not isinstance(state[key], kind):
            raise _not_a_model(path, f"`{key}` is not a {kind.__name__}")
    options = _options(state["options"], path)
    try:
        vocab = Vocabularies.from_state(state["vocab"])
        history = [EpochReport(**r) for r in state["history"]]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise _not_a_model(path, f"its vocabularies or history cannot be read ({type(e).__name__}: {e})") from None
    try:
        with torch.device("meta"):
            shapes = {k: (tuple(v.shape), v.is_floating_point()) for k, v in _network(options, vocab).state_dict().items()}
    except Exception as e:  # noqa: BLE001 - whatever the sizes make the layers raise
        raise _not_a_model(path, f"its options do not make a network ({type(e).__name__}: {e})") from None
    saved = state["network"]
    missing, extra = sorted(set(shapes) - set(saved)), sorted(set(saved) - set(shapes))
    if missing or extra:
        raise _not_a_model(path, f"its tensors are not the network's (missing {missing[:3]}, unknown {extra[:3]})")
    for key, (shape, floating) in shapes.items():
        tensor = saved[key]
        if not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != shape or tensor.is_floating_point() != floating:
            found = tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else type(tensor).__name__
            raise _not_a_model(path, f"tensor `{key}` has shape {found}, its options say {shape}")
        # A tensor's shape is only its header: a crafted file can declare
        # any shape over one stored value (a stride of 0). The network is
        # as large as the tensors' shapes, so each must hold its values in
        # the file; then the network built is no larger than the file.
        if tensor.numel() > 0 and (
            not tensor.is_contiguous()
            or tensor.untyped_storage().nbytes()
            < (tensor.storage_offset() + tensor.numel()) * tensor.element_size()
        ):
            raise _not_a_model(
                path, f"tensor `{key}` of shape {shape} does not hold its {tensor.numel()} values in the file"
            )
    net = _network(options, vocab)
    net.load_state_dict(saved)
    return NeuralParser(net, vocab, options, state["epoch"], history)


def _network(options: Options, vocab: Vocabularies) -> Encoder:
    if options.parser == "biaffine":
        return biaffine_network(options, vocab)
    return Network(
        options.dims,
        len(vocab.forms),
        len(vocab.upos),
        len(vocab.feats),
        len(vocab.chars),
        len(tp.steps(options.system)),
        len(vocab.labels),
        pretrained_count(vocab),
    )


def _decode(sentences: Sequence[Any], trees: list[tuple[list[int], list[str]]]) -> list[tuple[list[int], list[str]]]:
    """Pseudo-projective decoding of parsed trees (``tabula deprojectivize``)."""
    return [
        (list(h), list(lab)) for h, lab in (tp.pseudo_projective_decode(heads, labels) for heads, labels in trees)
    ]


def _default_max_words(options: Options) -> int:
    """``tabula train``'s default for ``--max-words``: 200 where the oracle
    builds a table at every configuration (its cost grows as n⁴ or faster
    per sentence and epoch), else 1000."""
    tables = options.system in ("lr-spine", "attardi", "arc-eager-nm") or options.algorithm in (
        "cubic",
        "quadratic",
        "goldberg",
        "tabular",
    )
    return 200 if tables or (options.projectivize == "none" and options.oracle == "dynamic") else 1000


def _training_trees(
    path: PathLike, sentences: Sequence[Any], options: Options
) -> tuple[list[Optional[list[int]]], list[Optional[list[str]]], int]:
    """The gold trees and labels to train on: projectivized as asked (the
    original trees for ``none``), pseudo-projective labels when asked;
    sentences without a tree or longer than ``max_words`` left out (their
    count returned)."""
    method = _projectivization(options)
    max_words = options.max_words if options.max_words is not None else _default_max_words(options)
    heads: list[Optional[list[int]]] = []
    labels: list[Optional[list[str]]] = []
    left_out = 0
    encode_scheme = options.pseudo_projective
    for s in sentences:
        if not s.has_tree or len(s) > max_words:
            heads.append(None)
            labels.append(None)
            left_out += 1
            continue
        h = [x if x is not None else -1 for x in s.heads]
        deprels = list(s.deprels)
        if method != "none" and -1 not in h:
            original = h
            if method == "optimal":
                h = list(tp.projectivize(s, "optimal", prefer="default"))
            else:
                h = list(tp.projectivize(h, "lift"))
            if encode_scheme:
                deprels = tp.pseudo_projective_encode(original, h, deprels, encode_scheme)
        transition = options.parser == "transition"
        if transition and options.oracle == "static" and options.system not in NONPROJECTIVE and -1 not in h:
            if not tp.Tree(h).is_projective:
                raise ValueError(
                    f"{path}:{s.first_line}: a non-projective tree, but the static oracle needs projective trees "
                    "(use --projectivize optimal|lift, or the dynamic oracle)"
                )
        heads.append(h)
        labels.append(deprels)
    return heads, labels, left_out


def _outside_the_trees(golds: Sequence[Optional[list[int]]], options: Options) -> set[int]:
    """The sentences whose training tree the biaffine parser's CRF over a
    grammar's trees cannot learn: the grammar does not derive it (after
    projectivization), so its probability is 0 whatever the scores."""
    if options.parser != "biaffine" or options.arc_loss != "crf" or options.trees.startswith("nonprojective"):
        return set()
    trees = trees_argument(options)
    grammar = trees if isinstance(trees, tp.Grammar) else tp.Grammar.shipped(trees)
    outside = set()
    for i, h in enumerate(golds):
        if h is None or -1 in h:
            continue
        n = len(h)
        scores = np.zeros((1, n + 1, n + 1), dtype=np.float32)
        heads = np.array([[-1, *h]], dtype=np.int64)
        if tp.crf_tree_log_derivations(scores, np.array([n]), heads, grammar=grammar)[0][0] == -np.inf:
            outside.add(i)
    return outside


def train(
    train: PathLike,
    output: Optional[PathLike] = None,
    dev: Optional[PathLike] = None,
    verbose: bool = False,
    checkpoint: Optional[PathLike] = None,
    **settings: Any,
) -> NeuralParser:
    """Trains a parser on a CoNLL-U file (gold UPOS, HEAD, DEPREL), the
    options of :class:`Options` as keywords; with ``dev``, the epoch with
    the best dev LAS is kept (else the last). Writes it to ``output`` if
    given, after every epoch that changes the model kept (so that an
    interrupted run leaves the best model so far). ``checkpoint``: a file
    that holds the whole run after every epoch; where it exists, the run
    continues from it (:mod:`.checkpoint`: the same files and options, a
    larger ``epochs`` allowed). ``verbose``: an epoch line on standard
    error per epoch, and a progress line on a terminal."""
    options = Options(**settings)
    if options.feats and options.dims.feats == 0:
        # FEATS read at the command's default size.
        options.dims = replace(options.dims, feats=FEATS_DIM)
    _check(options, set(settings))
    inputs = _training_inputs(train, dev, options)
    if output is not None:
        tp.check_output(output, inputs)
    if checkpoint is not None:
        tp.check_output(checkpoint, inputs)
        if os.path.exists(checkpoint) and not os.path.isfile(checkpoint):
            raise ValueError(f"--checkpoint {checkpoint}: not a regular file (a checkpoint is read back to continue)")
        if output is not None and os.path.abspath(checkpoint) == os.path.abspath(output):
            raise ValueError(f"--checkpoint {checkpoint}: the model's own file (-o); give the checkpoint another")
    threads = threads_of(options.threads)
    if threads is not None:
        torch.set_num_threads(threads)
    rng, nrng = seed_everything(options.seed)
    sentences = _read(train, "train on")
    tagger = _tagger(options.tagger) if options.tagger is not None else None
    if tagger is not None and not isinstance(options.tagger, (str, os.PathLike)):
        options.tagger = "<a Tagger object>"  # saved with the model as a record only
    elif tagger is not None:
        options.tagger = str(options.tagger)
    if tagger is not None:
        if options.jackknife is not None:
            if verbose:
                print(f"{train}: {options.jackknife}-fold tagging with taggers trained like {options.tagger}",
                      file=sys.stderr)
            sentences = tagger.jackknife(sentences, options.jackknife)
        else:
            sentences = tagger.tag(sentences)
    check_columns(sentences, str(train), options.feats)
    golds, labels, left_out = _training_trees(train, sentences, options)
    outside = _outside_the_trees(golds, options)
    kept = [i for i, g in enumerate(golds) if g is not None and i not in outside]
    if not kept:
        raise ValueError(
            f"{train}: every sentence was left out (no tree, longer than --max-words, or outside --trees)"
        )
    if left_out and verbose:
        print(f"{train}: left out {left_out} sentences (no tree, or longer than --max-words)", file=sys.stderr)
    if outside and verbose:
        print(
            f"{train}: left out {len(outside)} sentences whose gold tree is not among --trees {options.trees} "
            "(the CRF gives it probability 0)",
            file=sys.stderr,
        )
    if options.epochs is None:
        options.epochs = default_epochs(options.parser, len(kept))
        _check_exploration(options, {key for key, value in settings.items() if value is not None})
        if verbose:
            print(f"{train}: {options.epochs} epochs for {len(kept)} training sentences", file=sys.stderr)
    epochs = epochs_of(options.epochs)
    kept_labels = [labels[i] or [] for i in kept]
    vocab = Vocabularies.build([sentences[i] for i in kept], kept_labels)
    if options.embeddings is not None:
        vocab.pretrained = Pretrained.read(str(options.embeddings))
        options.embeddings = str(options.embeddings)
        options.dims = replace(options.dims, pretrained=vocab.pretrained.dim)
    items = [encode(sentences[i], vocab, k, golds[i], kept_labels[k]) for k, i in enumerate(kept)]
    dev_sentences = _read(dev, "score") if dev is not None else None
    if dev_sentences is not None and tagger is not None:
        dev_sentences = tagger.tag(dev_sentences)
    if dev_sentences is not None:
        check_columns(dev_sentences, str(dev), options.feats)
        _check_dev(dev_sentences, str(dev))
        for text in input_warnings(dev_sentences, str(dev), options.feats):
            warnings.warn(text, UserWarning, stacklevel=2)
    dev_items = [encode(s, vocab, i) for i, s in enumerate(dev_sentences or [])]
    device = device_of(options.device)
    trainer: Any = Trainer(options, vocab) if options.parser == "transition" else GraphTrainer(options, vocab, device)
    progress = checkpoints.Progress()
    run = checkpoints.Run.of(options, checkpoints.training_files(train, dev, options), vocab) if checkpoint is not None else None
    if checkpoint is not None and run is not None and os.path.exists(checkpoint):
        progress = checkpoints.resume(checkpoint, run, trainer, (rng, nrng))
        if progress.epoch > epochs:
            raise ValueError(
                f"--checkpoint {checkpoint}: its run is past epoch {progress.epoch}, --epochs {epochs} asks for fewer"
            )
        if verbose:
            print(f"{checkpoint}: continuing after epoch {progress.epoch} of {epochs}", file=sys.stderr)
    history, best = progress.history, progress.best
    saved: Optional[int] = None  # the epoch whose model `output` holds
    try:
        for epoch in range(progress.epoch + 1, epochs + 1):
            start, cpu = time.perf_counter(), time.process_time()
            total, steps, abandoned = 0.0, 0, 0
            bar = Progress(len(items), f"epoch {epoch}", verbose)
            if isinstance(trainer, Trainer):
                trainer.oracle_seconds = trainer.oracle_cpu_seconds = 0.0
                explore = options.oracle == "dynamic" and epoch > options.explore_from
                for batch in batches(items, options.batch_size, rng):
                    loss, decisions, ab = trainer.train_batch(batch, explore, rng, nrng)
                    total += loss * decisions
                    steps += decisions
                    abandoned += ab
                    bar.step(len(batch))
                layer, layer_seconds, layer_cpu = "oracle and batch API", trainer.oracle_seconds, trainer.oracle_cpu_seconds
            else:
                trainer.engine_seconds = trainer.engine_cpu_seconds = 0.0
                for batch in batches(items, options.batch_size, rng):
                    loss, words = trainer.train_batch(batch, nrng)
                    total += loss * words
                    steps += words
                    bar.step(len(batch))
                layer = "tree CRF layer" if options.arc_loss == "crf" else ""
                layer_seconds, layer_cpu = trainer.engine_seconds, trainer.engine_cpu_seconds
            bar.close()
            seconds = time.perf_counter() - start
            report = EpochReport(
                epoch,
                total / max(steps, 1),
                seconds,
                layer_seconds,
                len(items),
                steps,
                abandoned,
                time.process_time() - cpu,
                layer_cpu,
                layer=layer,
            )
            parser = NeuralParser(trainer.model, vocab, options, epoch, history)
            if dev_sentences is not None:
                scores = parser._evaluate(dev_sentences, dev_items)["all"]
                report.dev_uas, report.dev_las = scores["uas"], scores["las"] or 0.0
                key = report.dev_las
                if best is None or key > best[0]:
                    best = (key, epoch, {k: v.detach().clone() for k, v in trainer.model.state_dict().items()})
            history.append(report)
            if output is not None and (best is None or best[1] == epoch):
                # The model kept so far is on disk after every epoch (before
                # its line is printed): an interrupted run leaves it.
                NeuralParser(trainer.model, vocab, options, epoch, history).save(output, inputs)
                saved = epoch
            if checkpoint is not None and run is not None:
                now = checkpoints.Progress(epoch, history, best)
                checkpoints.save(checkpoint, run, trainer, now, (rng, nrng), inputs)
                progress = now  # only once written: an interrupted write leaves the previous one
            if verbose:
                print(report.text(), file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        raise TrainingInterrupted(output, saved, checkpoint, progress.epoch) from None
    kept_epoch = len(history)
    if best is not None:
        trainer.model.load_state_dict(best[2])
        kept_epoch = best[1]
    parser = NeuralParser(trainer.model, vocab, options, kept_epoch, history)
    if output is not None:
        try:
            parser.save(output, inputs)
        except KeyboardInterrupt:
            raise TrainingInterrupted(output, saved, checkpoint, progress.epoch) from None
    return parser
