"""The training and parsing loops of the neural transition parser, around
:class:`~.model.Network` and the minibatch oracle
(:class:`tabula_parsing.OracleBatch`), which is the loop's only source of
supervision: its ``scores`` say which steps are optimal (the dynamic oracle,
exact for any gold tree), its ``static_steps`` the canonical step (the static
oracle), its ``gold_labels`` the label each arc step should give, and its
``positions`` which words the network reads.

A step's loss is the cross-entropy of the optimal set (−log of the
probability mass the network gives the optimal steps, among the applicable
ones) or the hinge between the best optimal and the best non-optimal step;
the label's loss is the cross-entropy of the gold label of the arc the
followed step builds. With the dynamic oracle and exploration the loop
follows the network's step with probability ``explore_p`` when it is wrong
(Kiperwasser & Goldberg 2016; Goldberg & Nivre 2013), else the optimal step
the network likes best."""

from __future__ import annotations

import math
import os
import random
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional, Sequence, cast

import numpy as np
import torch
from torch.optim.swa_utils import AveragedModel

from .. import _tabula as tp
from .data import PAD, UNK, Encoded, Vocabularies, batches
from .model import Dimensions, Inputs, Network

SYSTEMS = ["arc-standard", "arc-hybrid", "arc-eager", "lr-spine", "attardi", "arc-eager-nm"]


@dataclass
class Options:
    """Every training option (saved with the model); names as the command's.
    ``parser``: ``transition`` (the oracles' options apply) or ``biaffine``
    (``arc_loss`` and ``trees`` apply)."""

    parser: str = "transition"  # transition | biaffine
    arc_loss: str = "crf"  # biaffine: local | crf
    trees: str = "nonprojective-single-root"  # biaffine: a tree class or a grammar file
    system: str = "arc-hybrid"
    oracle: str = "dynamic"  # static | dynamic
    algorithm: str = "auto"
    strategy: Optional[str] = None
    projectivize: Optional[str] = None  # none | optimal | lift (default: optimal, none for attardi/arc-eager-nm)
    pseudo_projective: Optional[str] = None  # head | path | head+path
    feats: bool = False
    epochs: Optional[int] = None  # None: default_epochs(parser, the training sentences)
    batch_size: int = 32
    seed: int = 1
    explore_from: int = 1
    explore_p: float = 0.9
    loss: str = "ce"  # ce | hinge
    learning_rate: float = 1e-3
    average: float = 0.0  # decay of the weights' moving average per update; 0: none
    word_dropout: float = 0.25
    max_words: Optional[int] = None
    embeddings: Optional[str] = None  # pre-trained word vectors (a file)
    max_gamma: Optional[int] = None
    max_pairs: Optional[int] = None  # Attardi: budget of one oracle call, pairs of items
    tagger: Optional[str] = None  # train on this tagger's UPOS (and FEATS); a tagger file
    jackknife: Optional[int] = None  # with tagger: K-fold tagging of the training file
    device: str = "cpu"
    threads: Optional[int] = None
    dims: Dimensions = field(default_factory=Dimensions)

    def state(self) -> dict[str, Any]:
        d = asdict(self)
        d["dims"] = self.dims.state()
        return d

    @classmethod
    def from_state(cls, d: dict[str, Any]) -> "Options":
        d = dict(d)
        dims = Dimensions(**d.pop("dims"))
        return cls(dims=dims, **d)


@dataclass
class EpochReport:
    """What one epoch did, and the dev scores if a dev file was given."""

    epoch: int
    loss: float
    seconds: float
    oracle_seconds: float
    sentences: int
    steps: int
    abandoned: int
    cpu_seconds: float = 0.0
    oracle_cpu_seconds: float = 0.0
    dev_uas: Optional[float] = None
    dev_las: Optional[float] = None
    #: What ``oracle_seconds`` timed: the transition parser's oracle, or the
    #: biaffine parser's tree CRF layer ("": nothing, with its local loss).
    layer: str = "oracle and batch API"

    def text(self) -> str:
        dev = "" if self.dev_uas is None else f", dev UAS {self.dev_uas:.2f} LAS {self.dev_las:.2f}"
        share = 100 * self.oracle_seconds / max(self.seconds, 1e-9)
        cpu_share = 100 * self.oracle_cpu_seconds / max(self.cpu_seconds, 1e-9)
        ab = f", {self.abandoned} abandoned" if self.abandoned else ""
        if not self.layer:  # nothing of tabula's in the loop (the biaffine parser's local loss)
            return f"epoch {self.epoch}: loss {self.loss:.4f}, {self.seconds:.1f} s (CPU {self.cpu_seconds:.1f} s){ab}{dev}"
        return (
            f"epoch {self.epoch}: loss {self.loss:.4f}, {self.seconds:.1f} s "
            f"({self.layer} {share:.1f} %, CPU {self.cpu_seconds:.1f} s, "
            f"of it {self.layer} {cpu_share:.1f} %){ab}{dev}"
        )


class Progress:
    """A progress line on standard error: redrawn in place on a terminal,
    silent elsewhere (a log gets the epoch lines only)."""

    def __init__(self, total: int, what: str, enabled: bool) -> None:
        self.total, self.what, self.done = total, what, 0
        self.enabled = enabled and sys.stderr.isatty()
        self.last = 0.0

    def step(self, k: int = 1) -> None:
        self.done += k
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.2 or self.done == self.total):
            self.last = now
            sys.stderr.write(f"\r{self.what}: {self.done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * (len(self.what) + 24) + "\r")
            sys.stderr.flush()


def _tensor(a: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(a).to(device)


def tensors(
    batch: Sequence[Encoded], device: torch.device, word_dropout: float, rng: Optional[np.random.Generator]
) -> Inputs:
    """Padded id tensors of a batch (the root token first); with
    ``word_dropout`` and ``rng``, a word seen c times in training is
    replaced by the unknown word with probability α / (α + c)
    (Kiperwasser & Goldberg 2016)."""
    t = max(len(e.forms) for e in batch)
    b = len(batch)
    forms = np.zeros((b, t), dtype=np.int64)
    upos = np.zeros((b, t), dtype=np.int64)
    feats = np.zeros((b, t), dtype=np.int64)
    chars = np.zeros((b, t, batch[0].chars.shape[1]), dtype=np.int64)
    pretrained = np.zeros((b, t), dtype=np.int64) if len(batch[0].pretrained) else None
    for i, e in enumerate(batch):
        m = len(e.forms)
        f = e.forms.copy()
        if rng is not None and word_dropout > 0:
            drop = rng.random(m) < word_dropout / (word_dropout + e.counts)
            drop[0] = False
            f[drop] = UNK
        forms[i, :m], upos[i, :m], feats[i, :m], chars[i, :m] = f, e.upos, e.feats, e.chars
        if pretrained is not None:
            pretrained[i, :m] = e.pretrained
    lengths = torch.tensor([len(e.forms) for e in batch])
    t_ = [_tensor(a, device) for a in (forms, upos, feats, chars)]
    return Inputs(t_[0], t_[1], t_[2], t_[3], lengths, None if pretrained is None else _tensor(pretrained, device))


def step_loss(scores: torch.Tensor, applicable: torch.Tensor, target: torch.Tensor, kind: str) -> torch.Tensor:
    """The loss of the rows' decisions: ``target`` marks the steps counted
    right (the optimal set, or the static step), ``applicable`` the others
    the network may take."""
    neg = torch.finfo(scores.dtype).min
    if kind == "ce":
        total = torch.logsumexp(scores.masked_fill(~applicable, neg), dim=1)
        good = torch.logsumexp(scores.masked_fill(~target, neg), dim=1)
        return (total - good).sum()
    best_good = scores.masked_fill(~target, neg).max(dim=1).values
    wrong = applicable & ~target
    best_bad = scores.masked_fill(~wrong, neg).max(dim=1).values
    has_bad = wrong.any(dim=1)
    return torch.clamp(1 - best_good + best_bad, min=0)[has_bad].sum()


def pretrained_count(vocab: Vocabularies) -> int:
    """The number of pre-trained vectors (``--embeddings``), 0 without."""
    return 0 if vocab.pretrained is None else len(vocab.pretrained.words)


def set_pretrained(net: Any, vocab: Vocabularies) -> None:
    """Copies the vectors read from ``--embeddings`` into a new network."""
    if vocab.pretrained is not None and vocab.pretrained.vectors is not None:
        net.set_pretrained(vocab.pretrained.vectors)


def update(
    net: torch.nn.Module, optimizer: torch.optim.Optimizer, averaged: Optional[AveragedModel], loss: torch.Tensor
) -> None:
    """One step of the optimiser on `loss` (gradients clipped to norm 5),
    then the moving average of the weights, if kept."""
    optimizer.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
    optimizer.step()
    if averaged is not None:
        averaged.update_parameters(net)


def averaged_model(net: torch.nn.Module, decay: float) -> Optional[AveragedModel]:
    """The moving average of the weights that dev scoring and the saved
    model use (``--average``; None for 0); its decay warms up as
    (1 + k) / (10 + k) over the first updates, so early averages do not
    lean on the random initial weights."""
    if decay <= 0:
        return None
    averaged = AveragedModel(net, avg_fn=lambda avg, new, k: avg + (1 - min(decay, (1 + k) / (10 + k))) * (new - avg))
    # The copy's LSTM weights are separate tensors; cuDNN wants them in one
    # block, or it packs them again at every call (PyTorch warns "RNN module
    # weights are not part of single contiguous chunk of memory"). A no-op
    # on the CPU.
    for module in averaged.module.modules():
        if isinstance(module, torch.nn.RNNBase):
            module.flatten_parameters()
    return averaged


class Trainer:
    """One training run: the network, the optimiser and the oracle batch,
    reused from batch to batch."""

    def __init__(self, options: Options, vocab: Vocabularies) -> None:
        self.options, self.vocab = options, vocab
        self.device = device_of(options.device)
        self.steps = tp.steps(options.system)
        self.net = Network(
            options.dims,
            len(vocab.forms),
            len(vocab.upos),
            len(vocab.feats),
            len(vocab.chars),
            len(self.steps),
            len(vocab.labels),
            pretrained_count(vocab),
        )
        set_pretrained(self.net, vocab)
        self.net.to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=options.learning_rate, betas=(0.9, 0.9))
        self.averaged = averaged_model(self.net, options.average)
        self.oracle: Optional[Any] = None
        self.oracle_seconds = 0.0
        self.oracle_cpu_seconds = 0.0

    @property
    def model(self) -> Network:
        """The network that parses: the moving average of the weights with
        ``--average``, else the trained one."""
        if self.averaged is None:
            return self.net
        return cast(Network, self.averaged.module)

    def _count(self, t: float, c: float) -> None:
        """Adds the wall and CPU time since (t, c) to the oracle's."""
        self.oracle_seconds += time.perf_counter() - t
        self.oracle_cpu_seconds += time.process_time() - c

    def _batch(self, golds: list[Any], labels: list[Any]) -> Any:
        """The oracle batch for these sentences (one object, reset per batch)."""
        o = self.options
        t, c = time.perf_counter(), time.process_time()
        if self.oracle is None:
            self.oracle = tp.OracleBatch(
                golds,
                system=o.system,
                strategy=o.strategy,
                algorithm=o.algorithm,
                labels=labels,
                abandon=True,
                max_gamma=o.max_gamma,
                max_pairs=o.max_pairs,
            )
        else:
            self.oracle.reset(golds, labels)
        self._count(t, c)
        return self.oracle

    def train_batch(
        self, batch: Sequence[Encoded], explore: bool, rng: random.Random, nrng: np.random.Generator
    ) -> tuple[float, int, int]:
        """One update on a batch; returns (loss, decisions, abandoned).

        The computations are followed with the network's scores computed
        without gradients (they only choose the steps); every configuration
        met is recorded (its sentence, positions, applicable and target
        steps, the label of the followed arc) and scored again, all at once
        and with gradients, for the loss."""
        o = self.options
        self.net.train()
        terms = self.net.encode(tensors(batch, self.device, o.word_dropout, nrng))
        ob = self._batch([e.heads for e in batch], [e.labels for e in batch])
        b = len(batch)
        every = np.arange(b)
        seen_rows: list[np.ndarray] = []
        seen_pos: list[np.ndarray] = []
        seen_app: list[np.ndarray] = []
        seen_tgt: list[np.ndarray] = []
        seen_follow: list[np.ndarray] = []
        seen_label: list[np.ndarray] = []
        fixed = terms.detach()
        while True:
            t, c = time.perf_counter(), time.process_time()
            finished = ob.finished
            if finished.all():
                self._count(t, c)
                break
            positions = ob.positions()
            applicable = ob.applicable()
            if o.oracle == "static":
                static = ob.static_steps()
                target = np.zeros_like(applicable)
                on = static >= 0
                target[np.nonzero(on)[0], static[on]] = True
            else:
                target = ob.optimal()
            gold_labels = ob.gold_labels()
            self._count(t, c)
            # A sentence the oracle abandoned at this configuration (Attardi's
            # table past its limit) has no target: it is finished from now on.
            live = ~finished & target.any(axis=1)
            with torch.no_grad():
                scored, _ = self.net.score(fixed, torch.from_numpy(positions).to(self.device), dropout=False)
                scores = scored.cpu().numpy()
            # The step each sentence follows: the optimal step the network
            # likes best, or (exploring) its own wrong step.
            low = np.finfo(np.float32).min
            follow = np.where(target, scores, low).argmax(axis=1)
            if explore:
                predicted = np.where(applicable, scores, low).argmax(axis=1)
                wrong = ~target[every, predicted]
                draws = np.array([rng.random() for _ in range(b)])
                follow = np.where(wrong & (draws < o.explore_p), predicted, follow)
            follow = np.where(live, follow, -1)
            rows = np.nonzero(live)[0]
            seen_rows.append(rows)
            seen_pos.append(positions[rows])
            seen_app.append(applicable[rows])
            seen_tgt.append(target[rows])
            seen_follow.append(follow[rows])
            seen_label.append(gold_labels[rows, follow[rows]])
            t, c = time.perf_counter(), time.process_time()
            ob.apply(follow.astype(np.int64))
            self._count(t, c)
        dev = self.device
        rows_t, pos_t, app_t, tgt_t, follow_t, label_t = (
            _tensor(np.concatenate(parts), dev)
            for parts in (seen_rows, seen_pos, seen_app, seen_tgt, seen_follow, seen_label)
        )
        decisions = len(rows_t)
        scores_t, label_scores = self.net.score_rows(terms, rows_t, pos_t)
        loss = step_loss(scores_t, app_t, tgt_t, o.loss)
        has = torch.nonzero(label_t >= 0).squeeze(1)
        if len(has):
            logits = label_scores[has, follow_t[has]]
            loss = loss + torch.nn.functional.cross_entropy(logits, label_t[has], reduction="sum")
        loss = loss / max(decisions, 1)
        update(self.net, self.optimizer, self.averaged, loss)
        return float(loss.detach()), decisions, int(ob.abandoned.sum())


def parse_batches(
    net: Network,
    system: str,
    items: Sequence[Encoded],
    vocab: Vocabularies,
    device: torch.device,
    batch_size: int,
    progress: Optional[Callable[[int], None]] = None,
) -> list[tuple[list[int], list[str]]]:
    """Greedy parsing: (heads, labels) of every sentence, in input order.
    The label of an arc from the root is `root` and no other arc gets
    `root` (when the training labels had it)."""
    net.eval()
    out: list[Optional[tuple[list[int], list[str]]]] = [None] * len(items)
    root = vocab.labels.root()
    ob = None
    with torch.no_grad():
        for batch in batches(items, batch_size, None):
            terms = net.encode(tensors(batch, device, 0.0, None))
            if ob is None:
                ob = tp.OracleBatch.without_gold([len(e) for e in batch], system=system)
            else:
                ob.reset_lengths([len(e) for e in batch])
            every = np.arange(len(batch))
            low = np.finfo(np.float32).min
            while not ob.done:
                finished = ob.finished
                positions = ob.positions()
                scored, label_scored = net.score(terms, torch.from_numpy(positions).to(device))
                scores, label_scores = scored.cpu().numpy(), label_scored.cpu().numpy()
                step = np.where(ob.applicable(), scores, low).argmax(axis=1)
                labels = label_scores[every, step]
                if root is not None:
                    # `root` exactly on the arcs from the root.
                    from_root = ob.arc_heads()[every, step] == 0
                    keep = labels[:, root].copy()
                    labels[from_root] = low
                    labels[from_root, root] = keep[from_root]
                    labels[~from_root, root] = low
                ob.apply(np.where(finished, -1, step).astype(np.int64), labels.argmax(axis=1).astype(np.int64))
            for e, h, lab in zip(batch, ob.heads(), ob.labels()):
                heads_list = [int(x) if x >= 0 else 0 for x in h]
                # A word left without a head (arc-eager) hangs from the root.
                labels_list = [
                    "root" if hd == 0 and (x < 0 or root is not None) else vocab.labels.strings[int(x)]
                    for x, hd in zip(lab, heads_list)
                ]
                out[e.index] = (heads_list, labels_list)
            if progress is not None:
                progress(len(batch))
    return [x for x in out if x is not None]


def seed_everything(seed: int) -> tuple[random.Random, np.random.Generator]:
    torch.manual_seed(seed)
    return random.Random(seed), np.random.default_rng(seed)


#: The most epochs a training run takes, as ``tabula train --epochs``.
MAX_EPOCHS = 1000


#: Epochs when none are given: 20, and on fewer than ``SMALL_TRAINING``
#: training sentences the parser's ``SMALL_EPOCHS`` (the transition parser 40,
#: the biaffine parser 60), where 20 epochs give the network too few updates
#: (docs/ud-wide.md, "The neural parsers on the small treebanks").
DEFAULT_EPOCHS, SMALL_TRAINING = 20, 500
SMALL_EPOCHS = {"transition": 40, "biaffine": 60}


def default_epochs(parser: str, sentences: int) -> int:
    """The epochs of a run that names none: ``parser``'s, for this many
    training sentences."""
    return SMALL_EPOCHS[parser] if sentences < SMALL_TRAINING else DEFAULT_EPOCHS


def epochs_of(epochs: int) -> int:
    """``--epochs``, checked."""
    if not 1 <= epochs <= MAX_EPOCHS:
        raise ValueError(f"--epochs must be between 1 and {MAX_EPOCHS}, found {epochs}")
    return epochs


def device_of(name: str) -> torch.device:
    """``--device``, checked: cpu, cuda or cuda:N, the CUDA device one that
    PyTorch sees here."""
    m = re.fullmatch(r"cpu|cuda(?::(\d+))?", name)
    if m is None:
        raise ValueError(f"--device must be cpu, cuda or cuda:N, found `{name}`")
    if name != "cpu":
        if not torch.cuda.is_available():
            raise ValueError(f"--device {name}: no CUDA device is available to PyTorch here")
        seen = torch.cuda.device_count()
        if int(m.group(1) or 0) >= seen:
            raise ValueError(f"--device {name}: PyTorch sees {seen} CUDA device(s) here, numbered from 0")
    return torch.device(name)


def threads_of(t: Optional[int]) -> Optional[int]:
    """``--threads``, checked: at least 1 and at most 4 per core of this
    machine, as ``tabula parse --threads``."""
    if t is None:
        return None
    most = 4 * (os.cpu_count() or 1)
    if not 1 <= t <= most:
        raise ValueError(f"--threads must be between 1 and {most} (4 per core of this machine), found {t}")
    return t


def learning_curve_text(history: Sequence[EpochReport]) -> str:
    return "\n".join(r.text() for r in history)


def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan
