"""The training and parsing loops of the graph-based parser, around
:class:`~.model.BiaffineNetwork` and the tree CRF layer
(:class:`tabula_parsing.crf.TreeCRF`).

The arc loss is either local — each word's head chosen among all positions
by a cross-entropy (Dozat & Manning 2017) — or the tree CRF's: the negative
log-probability of the gold tree among the trees of ``--trees`` (a grammar
file's, through tabula's engine, or all trees, through the Matrix-Tree
theorem), whose gradient is the engine's arc marginals. The label loss is
the cross-entropy of each word's gold label on its gold arc. Parsing takes
the best tree of ``--trees`` (the engine in max-plus, or Chu–Liu–Edmonds),
then each arc's best label (``root`` exactly on the arcs from the root when
the training labels have it)."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional, Sequence, cast

import numpy as np
import torch

from ..crf import TREES, TreeCRF
from .data import Encoded, Vocabularies, batches
from .model import BiaffineNetwork
from .train import Options, averaged_model, pretrained_count, set_pretrained, tensors, update


def trees_argument(options: Options) -> Any:
    """The ``trees=`` of :class:`TreeCRF` that ``--trees`` names (a grammar
    file's path read once)."""
    from .._tabula import Grammar

    name = options.trees
    if name in TREES:
        return name
    return Grammar.from_file(name)


def network(options: Options, vocab: Vocabularies) -> BiaffineNetwork:
    net = BiaffineNetwork(
        options.dims,
        len(vocab.forms),
        len(vocab.upos),
        len(vocab.feats),
        len(vocab.chars),
        len(vocab.labels),
        pretrained_count(vocab),
    )
    set_pretrained(net, vocab)
    return net


def _gold(batch: Sequence[Encoded], t: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Gold heads and label ids (B, T; −1 at 0, past a sentence and where
    the gold has none)."""
    heads = np.full((len(batch), t), -1, dtype=np.int64)
    labels = np.full((len(batch), t), -1, dtype=np.int64)
    for i, e in enumerate(batch):
        assert e.heads is not None and e.labels is not None
        heads[i, 1 : len(e) + 1] = e.heads
        labels[i, 1 : len(e) + 1] = e.labels
    return torch.from_numpy(heads).to(device), torch.from_numpy(labels).to(device)


class GraphTrainer:
    """One training run of the biaffine parser: the network, the optimiser
    and the tree class, reused from batch to batch. ``engine_seconds``: the
    time spent in the tree CRF layer (log Z and its gradient)."""

    def __init__(self, options: Options, vocab: Vocabularies, device: torch.device) -> None:
        self.options, self.vocab, self.device = options, vocab, device
        self.net = network(options, vocab).to(device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=options.learning_rate, betas=(0.9, 0.9))
        self.averaged = averaged_model(self.net, options.average)
        self.trees = trees_argument(options)
        self.engine_seconds = 0.0
        self.engine_cpu_seconds = 0.0

    @property
    def model(self) -> BiaffineNetwork:
        if self.averaged is None:
            return self.net
        return cast(BiaffineNetwork, self.averaged.module)

    def train_batch(self, batch: Sequence[Encoded], nrng: np.random.Generator) -> tuple[float, int]:
        """One update on a batch; returns (loss per word, words)."""
        o = self.options
        self.net.train()
        inputs = tensors(batch, self.device, o.word_dropout, nrng)
        arcs, label_head, label_dep = self.net(inputs)
        lengths = inputs.lengths
        t = inputs.forms.shape[1]
        heads, labels = _gold(batch, t, self.device)
        words = lengths - 1
        has_head = heads >= 0
        if o.arc_loss == "local":
            # Each word's head among the positions of its sentence (not itself).
            positions = torch.arange(t, device=self.device)
            allowed = (positions[None, :, None] < lengths.to(self.device)[:, None, None]) & (
                positions[:, None] != positions[None, :]
            )[None]
            logits = arcs.masked_fill(~allowed, float("-inf")).transpose(1, 2)  # (B, dependent, head)
            arc_loss = torch.nn.functional.cross_entropy(logits[has_head], heads[has_head], reduction="sum")
        else:
            start, cpu = time.perf_counter(), time.process_time()
            crf = TreeCRF(arcs, words, trees=self.trees)
            positions = torch.arange(t, device=self.device)
            inside = (positions[None, :] >= 1) & (positions[None, :] < lengths.to(self.device)[:, None])
            if (inside & ~has_head).any():
                # Partial gold trees: −ln of the weight of the trees that
                # complete them, log Z − log Z(the gold arcs forced).
                other = has_head[:, None, :] & (positions[None, :, None] != heads[:, None, :])
                forced = TreeCRF(arcs.masked_fill(other, float("-inf")), words, trees=self.trees)
                arc_loss = (crf.partition - forced.partition).sum()
            else:
                arc_loss = -crf.log_prob(heads.clamp(min=0)).sum()
            self.engine_seconds += time.perf_counter() - start
            self.engine_cpu_seconds += time.process_time() - cpu
        label_scores = self.net.label_scores(heads.clamp(min=0), label_head, label_dep)
        has_label = labels >= 0
        label_loss = torch.nn.functional.cross_entropy(label_scores[has_label], labels[has_label], reduction="sum")
        n = int(words.sum())
        loss = (arc_loss + label_loss) / max(n, 1)
        update(self.net, self.optimizer, self.averaged, loss)
        return float(loss.detach()), n


def parse_graph_batches(
    net: BiaffineNetwork,
    trees: Any,
    items: Sequence[Encoded],
    vocab: Vocabularies,
    device: torch.device,
    batch_size: int,
    progress: Optional[Callable[[int], None]] = None,
) -> list[tuple[list[int], list[str]]]:
    """(heads, labels) of every sentence, in input order: the best tree of
    ``trees`` under the arc scores, then each arc's best label."""
    net.eval()
    out: list[Optional[tuple[list[int], list[str]]]] = [None] * len(items)
    root = vocab.labels.root()
    with torch.no_grad():
        for batch in batches(items, batch_size, None):
            inputs = tensors(batch, device, 0.0, None)
            arcs, label_head, label_dep = net(inputs)
            best = TreeCRF(arcs, inputs.lengths - 1, trees=trees).best_heads.to(device)
            scores = net.label_scores(best.clamp(min=0), label_head, label_dep)
            if root is not None:
                from_root = best == 0
                low = torch.finfo(scores.dtype).min
                keep = scores[:, :, root].clone()
                scores = scores.masked_fill(from_root[:, :, None], low)
                scores[:, :, root] = torch.where(from_root, keep, torch.full_like(keep, low))
            labels = scores.argmax(dim=2).cpu().numpy()
            heads = best.cpu().numpy()
            for i, e in enumerate(batch):
                n = len(e)
                out[e.index] = (
                    [int(h) for h in heads[i, 1 : n + 1]],
                    [vocab.labels.strings[int(x)] for x in labels[i, 1 : n + 1]],
                )
            if progress is not None:
                progress(len(batch))
    return [x for x in out if x is not None]
