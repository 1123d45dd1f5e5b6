"""A trained neural model as one ONNX file, for ``tabula parse --model
MODEL.onnx`` (tract, a pure-Rust runtime: no Python, no PyTorch).

The graph reads a batch of sentences, each padded at its end to the
batch's length T (B and T dynamic axes, the root token first): the ids
``forms``, ``upos`` (B × T), ``feats`` (with ``--feats``), ``chars``
(B × T × MAX_CHARS, with a character encoder) and ``pretrained`` (with
``--embeddings``), as :func:`.data.encode` makes them, padded with 0;
``lengths`` (B), each sentence's length with the root token; and
``states``, the LSTMs' initial states (zeros, 1 × B × lstm). The BiLSTM
runs as one forward LSTM per layer and direction, the backward one on each
sentence reversed within its length, so that no padding reaches a word's
vector (no packed sequence is needed, and a padded position's outputs are
never read).

A graph-based (biaffine) model's outputs, per sentence:

* ``arcs`` (B × T × T): s(h, d), row = head, column = dependent;
* ``label_head_vectors`` and ``label_vectors`` (B × T × m): the label
  MLPs' vectors of each position as a head and as a dependent;
* ``label_head`` (B × T × L) and ``label_dep`` (B × T × L): the linear term
  of the classifier split between the head's and the dependent's vector
  (the bias in ``label_dep``);
* ``label_weight`` (m × L · m): the classifier's bilinear weight U, the
  same for every batch,

so that the label scores of an arc h → d are
``(head_h · U)_l · dep_d + label_head[h, l] + label_dep[d, l]``: the
decoder computes them for the arcs of the best tree only, and the
bilinear forms head_h · U for the heads of those trees only.

A transition model's outputs: ``terms`` (B × (T + 1) × 11 × 2m), the first
MLP layer's terms of every word for each of the 11 positions a step reads
(``OracleBatch.POSITIONS``; row T the absent word's), as
``Network.encode`` gives them; and the rest of the step scorer, the same
for every batch: ``hidden_bias`` (2m), ``step_weight`` (steps × m),
``step_bias`` (steps), ``label_weight`` (steps · L × m) and ``label_bias``
(steps · L). The decoder sums a configuration's 11 rows of ``terms`` and
``hidden_bias``, applies tanh, scores the steps with the first half and
the chosen step's labels with the second, as the Python parser does.

The vocabularies, options and sizes are JSON in the model's
``metadata_props`` under the key ``tabula`` (:data:`FORMAT`), so one file
is the model; a ``--trees`` grammar file's text travels in it too."""

from __future__ import annotations

import copy
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np
import torch
from torch import nn

from .. import _tabula as tp
from .data import MAX_CHARS, encode
from .model import POSITIONS, BiaffineNetwork, CharEncoder, Encoder, Network
from .train import tensors

FORMAT = "tabula-onnx-3"
PathLike = Union[str, "os.PathLike[str]"]


class _Directions(nn.Module):
    """A bidirectional LSTM as one forward LSTM per layer and direction
    (the same weights), so that a batch may mix lengths without packing:
    each sentence is padded at its end, and the backward direction reads it
    reversed within its own length (padding still last), so no padding
    reaches a word's vector in either direction."""

    def __init__(self, lstm: nn.LSTM) -> None:
        super().__init__()
        self.ahead, self.behind = nn.ModuleList(), nn.ModuleList()
        for k in range(lstm.num_layers):
            for suffix, into in (("", self.ahead), ("_reverse", self.behind)):
                one = nn.LSTM(lstm.input_size if k == 0 else 2 * lstm.hidden_size, lstm.hidden_size, batch_first=True)
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    getattr(one, f"{name}_l0").data.copy_(getattr(lstm, f"{name}_l{k}{suffix}").data)
                into.append(one)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
        b, t = x.shape[0], x.shape[1]
        # Position i of each sentence of length n read from n − 1 − i (from
        # itself in the padding): a row index into the flattened batch.
        at = torch.arange(t).unsqueeze(0)
        n = lengths.unsqueeze(1)
        rows = (torch.where(at < n, n - 1 - at, at) + torch.arange(b).unsqueeze(1) * t).reshape(-1)

        def reverse(y: torch.Tensor) -> torch.Tensor:
            return y.reshape(b * t, -1)[rows].reshape(b, t, -1)

        for forward, backward in zip(self.ahead, self.behind):
            # The initial states (zeros) are an input: tract's LSTM takes a
            # batch above 1 only with states it cannot fold into a constant.
            ahead = forward(x, (states, states))[0]
            behind = reverse(backward(reverse(x), (states, states))[0])
            x = torch.cat([ahead, behind], dim=2)
        return x


def _chars(encoder: CharEncoder, chars: torch.Tensor) -> torch.Tensor:
    """``encoder(chars)`` with the characters along the middle axis
    (N × C × dim), so that a runtime does the convolution as one product
    and the pooling over a middle axis: each position's window of three
    embeddings (zeros beyond the ends) times the filters, relu, the
    padding zeroed (the filters' outputs are at least 0 there, as
    ``masked_fill`` leaves them), the largest over the positions."""
    x = encoder.embed(chars)
    n, c, dim = x.shape
    padded = torch.cat([x.new_zeros(n, 1, dim), x, x.new_zeros(n, 1, dim)], dim=1)
    windows = torch.cat([padded[:, k : k + c] for k in range(3)], dim=2)
    # conv.weight is filters × dim × 3: as (3 · dim) × filters, k major.
    weight = encoder.conv.weight.permute(2, 1, 0).reshape(3 * dim, -1)
    bias = encoder.conv.bias
    assert bias is not None  # nn.Conv1d's default
    h = torch.relu(windows @ weight + bias)
    h = h * (chars != 0).unsqueeze(2).to(h.dtype)
    # The largest by halving (pairwise maxima), not a reduction: tract
    # reduces over a middle axis one number at a time.
    while h.shape[1] > 1:
        half = h.shape[1] // 2
        top = torch.maximum(h[:, :half], h[:, half : 2 * half])
        h = torch.cat([top, h[:, 2 * half :]], dim=1) if h.shape[1] % 2 else top
    return h[:, 0]


def _vectors(net: Encoder, lstm: _Directions, x: dict[str, torch.Tensor]) -> torch.Tensor:
    """The BiLSTM's vectors of a batch of sentences padded at their ends
    (B × T × 2 · lstm; the padding's rows hold anything)."""
    forms = x["forms"]
    b, t = forms.shape
    parts = [net.word(forms), net.upos(x["upos"])]
    if net.feats is not None:
        parts.append(net.feats(x["feats"]))
    if net.chars is not None:
        chars = x["chars"]
        parts.append(_chars(net.chars, chars.reshape(b * t, chars.shape[2])).reshape(b, t, -1))
    if net.pretrained is not None:
        parts.append(net.pretrained(x["pretrained"]))
    h: torch.Tensor = lstm(torch.cat(parts, dim=2), x["lengths"], x["states"])
    return h


class _Exported(nn.Module):
    """A network on a batch of sentences padded at their ends: the inputs
    the model reads (``names``), in order."""

    def __init__(self, net: Encoder, names: Sequence[str]) -> None:
        super().__init__()
        self.names, self.lstm = list(names), _Directions(net.lstm)

    def vectors(self, net: Encoder, args: Sequence[torch.Tensor]) -> torch.Tensor:
        return _vectors(net, self.lstm, dict(zip(self.names, args)))


class _Graph(_Exported):
    """The biaffine network's arc scores and label terms."""

    def __init__(self, net: BiaffineNetwork, names: Sequence[str]) -> None:
        super().__init__(net, names)
        self.net = net

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        net = self.net
        h = self.vectors(net, args)
        head, dep = net.arc_head(h), net.arc_dep(h)
        arcs = (head @ net.arc_weight) @ dep.transpose(1, 2) + (head @ net.arc_bias)[:, :, None]
        lh, ld = net.label_head(h), net.label_dep(h)
        m = lh.shape[2]
        w = net.label_linear.weight
        # The weight as an output through a no-op, so that it is a node's
        # output and not a bare initializer.
        return arcs, lh, lh @ w[:, :m].t(), ld @ w[:, m:].t() + net.label_linear.bias, ld, net.label_weight * 1.0


class _TransitionGraph(_Exported):
    """The transition network's terms (``Network.encode``) and its step
    scorer's weights."""

    def __init__(self, net: Network, names: Sequence[str]) -> None:
        super().__init__(net, names)
        self.net = net

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        net = self.net
        h = self.vectors(net, args)
        h = torch.cat([h, net.absent.expand(h.shape[0], 1, -1)], dim=1)
        terms = net.hidden(h).reshape(h.shape[0], h.shape[1], POSITIONS, -1)
        # The weights as outputs (through a no-op, so that each is a node's
        # output and not a bare initializer).
        weights = (
            net.hidden_bias,
            net.step_out.weight,
            net.step_out.bias,
            net.label_out.weight,
            net.label_out.bias,
        )
        return (terms, *(w * 1.0 for w in weights))


def _names(net: Encoder) -> list[str]:
    names = ["forms", "upos"]
    if net.feats is not None:
        names.append("feats")
    if net.chars is not None:
        names.append("chars")
    if net.pretrained is not None:
        names.append("pretrained")
    names += ["lengths", "states"]
    return names


def _inputs(e: Any, names: Sequence[str], net: Encoder) -> tuple[torch.Tensor, ...]:
    """The graph's inputs of one encoded sentence (batch 1): its ids, its
    length and the LSTMs' initial states, zeros (1 × 1 × lstm)."""
    arrays = {"forms": e.forms, "upos": e.upos, "feats": e.feats, "chars": e.chars, "pretrained": e.pretrained}
    special = {"states": torch.zeros(1, 1, net.lstm.hidden_size), "lengths": torch.tensor([len(e.forms)])}
    return tuple(
        special[n] if n in special else torch.from_numpy(np.ascontiguousarray(arrays[n])).unsqueeze(0) for n in names
    )


def _metadata(parser: Any) -> dict[str, Any]:
    o, vocab, net = parser.options, parser.vocab, parser.net
    graph: dict[str, Any]
    if isinstance(net, Network):
        graph = {
            "parser": "transition",
            "system": o.system,
            "steps": tp.steps(o.system),
            "positions": list(tp.OracleBatch.POSITIONS),
            "trees": None,
            "grammar": None,
        }
    else:
        trees = o.trees
        grammar: Optional[str] = None
        if trees not in ("projective", "projective-single-root", "nonprojective", "nonprojective-single-root"):
            grammar = Path(trees).read_text(encoding="utf-8")
            trees = "grammar"
        graph = {"parser": "biaffine", "trees": trees, "grammar": grammar}
    return {
        "format": FORMAT,
        **graph,
        "pseudo_projective": o.pseudo_projective,
        "feats": o.feats,
        "max_chars": MAX_CHARS,
        "inputs": _names(net),
        "states": [1, net.lstm.hidden_size],
        "dims": net.dims.state(),
        "forms": vocab.forms.strings,
        "upos": vocab.upos.strings,
        "feats_vocab": vocab.feats.strings,
        "chars": vocab.chars.strings,
        "labels": vocab.labels.strings,
        "pretrained": vocab.pretrained.words if vocab.pretrained is not None else None,
        "epoch": parser.epoch,
    }


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def with_metadata(model: bytes, key: str, value: str) -> bytes:
    """An ONNX ModelProto with one more ``metadata_props`` entry (field 14,
    a StringStringEntryProto of key 1 and value 2): appended, as protobuf
    merges repeated fields, so no ``onnx`` package is needed."""
    entry = _field(1, key.encode()) + _field(2, value.encode())
    return model + _field(14, entry)


def export(model: PathLike, output: PathLike, check: Optional[Sequence[Any]] = None, opset: int = 17) -> float:
    """Writes the ONNX file of a model (a path or a loaded
    :class:`~.parser.NeuralParser`); with ``check`` (sentences), runs the
    exported file on them (the ``onnx`` package's reference evaluator) and
    returns the largest difference of its scores from the network's: the
    arc scores of a biaffine model, the first MLP layer's terms of a
    transition model (from which every step score follows)."""
    from .parser import load

    parser = load(model) if isinstance(model, (str, os.PathLike)) else model
    # A copy on the CPU in evaluation mode: the caller's network keeps its
    # device (a model trained on a GPU exports the same numbers) and mode.
    net = copy.deepcopy(parser.net).cpu().eval()
    names = _names(net)
    example = tp.parse_conllu("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n\n", "<example>")[0]
    axes: dict[str, dict[int, str]] = {n: {0: "B", 1: "T"} for n in names}
    axes["states"], axes["lengths"] = {1: "B"}, {0: "B"}
    graph: nn.Module
    if isinstance(net, Network):
        graph = _TransitionGraph(net, names).eval()
        outputs = ["terms", "hidden_bias", "step_weight", "step_bias", "label_weight", "label_bias"]
        axes["terms"] = {0: "B", 1: "T_absent"}
    else:
        assert isinstance(net, BiaffineNetwork)
        graph = _Graph(net, names).eval()
        outputs = ["arcs", "label_head_vectors", "label_head", "label_dep", "label_vectors", "label_weight"]
        for name in outputs[:-1]:
            axes[name] = {0: "B", 1: "T"}
        axes["arcs"] = {0: "B", 1: "T", 2: "T"}
    # A batch of two (the exporter then keeps the batch axis free).
    one = _inputs(encode(example, parser.vocab, 0), names, net)
    two = tuple(torch.cat([x, x], dim=1 if n == "states" else 0) for n, x in zip(names, one))
    with tempfile.TemporaryDirectory() as scratch, torch.no_grad(), warnings.catch_warnings():
        # The exporter warns of LSTMs over batches unless the initial states
        # are inputs, which they are here.
        warnings.filterwarnings("ignore", message=".*batch_size other than 1.*LSTM")
        # The character pooling's halving reads the character axis's width,
        # which the graph fixes (MAX_CHARS).
        warnings.filterwarnings("ignore", message="Converting a tensor to a Python boolean")
        graph_path = Path(scratch) / "graph.onnx"
        torch.onnx.export(
            graph,
            two,
            graph_path,
            input_names=names,
            output_names=outputs,
            dynamic_axes=axes,
            opset_version=opset,
            dynamo=False,
        )
        graph_bytes = graph_path.read_bytes()
    data = with_metadata(graph_bytes, "tabula", json.dumps(_metadata(parser), ensure_ascii=False))
    tp.write_file(output, data, inputs=[str(model)] if isinstance(model, (str, os.PathLike)) else [])
    worst = 0.0
    if check:
        from onnx.reference import ReferenceEvaluator

        exported = ReferenceEvaluator(graph_bytes)
        with torch.no_grad():
            for i, s in enumerate(check):
                e = encode(s, parser.vocab, i)
                feeds = {n: x.numpy() for n, x in zip(names, _inputs(e, names, net))}
                run: Any = exported.run(outputs[:1], feeds)  # the outputs asked for, in order
                ours = np.asarray(run[0])[0]
                x = tensors([e], torch.device("cpu"), 0.0, None)
                theirs = (net.encode(x) if isinstance(net, Network) else net(x)[0])[0].numpy()
                worst = max(worst, float(np.abs(ours - theirs).max()))
    return worst
