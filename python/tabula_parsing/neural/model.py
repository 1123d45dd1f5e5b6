"""The networks. Both read a sentence (the root token first) with one
:class:`Encoder`: embeddings of FORM, UPOS (and FEATS) and a character
encoder of the form, and a BiLSTM over the sentence (Kiperwasser & Goldberg
2016). On it,

* :class:`Network`, the transition parser's: an MLP over the BiLSTM vectors
  of the positions the oracle batch gathers (``OracleBatch.POSITIONS``)
  scoring the steps and, per step, the labels;
* :class:`BiaffineNetwork`, the graph-based parser's (Dozat & Manning
  2017): two MLPs per word (as a head, as a dependent) and a biaffine
  product scoring every arc h → d, and two more with a biaffine classifier
  scoring the labels of given arcs.

No data handling, no transition system and no tree search here: the models
map ids to vectors, and vectors to scores."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, NamedTuple, Optional

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

POSITIONS = 11


@dataclass
class Dimensions:
    """The sizes of the network (saved with the model)."""

    word: int = 100
    upos: int = 32
    feats: int = 0  # 0: FEATS not read
    char: int = 32  # 0: no character encoder
    char_filters: int = 64
    lstm: int = 125  # per direction
    layers: int = 2
    mlp: int = 100  # the transition parser's MLP; the biaffine parser's label MLPs
    arc_mlp: int = 500  # the biaffine parser's arc MLPs
    dropout: float = 0.33
    pretrained: int = 0  # the size of --embeddings' vectors; 0: none

    def state(self) -> dict[str, Any]:
        return asdict(self)


class CharEncoder(nn.Module):
    """A word's characters → one vector: embeddings, a convolution of width
    3 and max-pooling over the positions (padding masked)."""

    def __init__(self, chars: int, dim: int, filters: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(chars, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, filters, kernel_size=3, padding=1)
        self.out = filters

    def forward(self, chars: torch.Tensor) -> torch.Tensor:  # (N, C) → (N, filters)
        x = self.embed(chars).transpose(1, 2)
        h = torch.relu(self.conv(x))
        h = h.masked_fill((chars == 0).unsqueeze(1), 0.0)
        return h.max(dim=2).values


class Inputs(NamedTuple):
    """A batch's ids, padded (the root token first): (B, T) each, the
    characters (B, T, C), the lengths (B), and the ids of ``--embeddings``'
    words (B, T; None without them)."""

    forms: torch.Tensor
    upos: torch.Tensor
    feats: torch.Tensor
    chars: torch.Tensor
    lengths: torch.Tensor
    pretrained: Optional[torch.Tensor] = None


class Encoder(nn.Module):
    """Ids → BiLSTM vectors: the part of the network both parsers share.
    ``pretrained``: the number of pre-trained word vectors (their size is
    ``dims.pretrained``), kept fixed and read beside the trained word
    embeddings (:meth:`set_pretrained` gives their values)."""

    def __init__(self, dims: Dimensions, forms: int, upos: int, feats: int, chars: int, pretrained: int = 0) -> None:
        super().__init__()
        self.dims = dims
        self.word = nn.Embedding(forms, dims.word, padding_idx=0)
        self.upos = nn.Embedding(upos, dims.upos, padding_idx=0)
        self.feats = nn.Embedding(feats, dims.feats, padding_idx=0) if dims.feats else None
        self.chars = CharEncoder(chars, dims.char, dims.char_filters) if dims.char else None
        width = dims.word + dims.upos + dims.feats + (dims.char_filters if dims.char else 0) + dims.pretrained
        self.lstm = nn.LSTM(
            width, dims.lstm, num_layers=dims.layers, bidirectional=True, batch_first=True, dropout=dims.dropout
        )
        self.drop = nn.Dropout(dims.dropout)
        self.pretrained: Optional[nn.Embedding] = None
        if dims.pretrained:
            self.pretrained = nn.Embedding(pretrained + 1, dims.pretrained, padding_idx=0)
            self.pretrained.weight.requires_grad_(False)

    def set_pretrained(self, vectors: Any) -> None:
        """The pre-trained vectors (a float32 array, one row per word; row 0
        of the table, no vector, stays 0)."""
        assert self.pretrained is not None
        with torch.no_grad():
            self.pretrained.weight[1:] = torch.as_tensor(vectors)

    def vectors(self, x: Inputs) -> torch.Tensor:
        """The BiLSTM's vector of every position, dropout applied: (B, T, 2 · lstm)."""
        parts = [self.word(x.forms), self.upos(x.upos)]
        if self.feats is not None:
            parts.append(self.feats(x.feats))
        if self.chars is not None:
            b, t, c = x.chars.shape
            parts.append(self.chars(x.chars.view(b * t, c)).view(b, t, -1))
        if self.pretrained is not None:
            assert x.pretrained is not None, "the ids of the pre-trained vectors' words"
            parts.append(self.pretrained(x.pretrained))
        joined = self.drop(torch.cat(parts, dim=2))
        packed = pack_padded_sequence(joined, x.lengths.cpu(), batch_first=True, enforce_sorted=False)
        h, _ = self.lstm(packed)
        h, _ = pad_packed_sequence(h, batch_first=True, total_length=x.forms.shape[1])
        out: torch.Tensor = self.drop(h)
        return out


class Network(Encoder):
    """The transition parser's encoder and scorer. ``steps``: the system's
    step columns; ``labels``: the label classes."""

    def __init__(
        self,
        dims: Dimensions,
        forms: int,
        upos: int,
        feats: int,
        chars: int,
        steps: int,
        labels: int,
        pretrained: int = 0,
    ):
        super().__init__(dims, forms, upos, feats, chars, pretrained)
        self.steps, self.labels = steps, labels
        out = 2 * dims.lstm
        # The vector of an absent position (−1).
        self.absent = nn.Parameter(torch.zeros(out))
        # The first MLP layer, split by position: its product with every
        # word's vector is computed once per sentence, and a step only sums
        # the rows of its positions (the same function as the concatenation).
        self.hidden = nn.Linear(out, POSITIONS * 2 * dims.mlp, bias=False)
        self.hidden_bias = nn.Parameter(torch.zeros(2 * dims.mlp))
        self.step_out = nn.Linear(dims.mlp, steps)
        self.label_out = nn.Linear(dims.mlp, steps * labels)

    def encode(self, x: Inputs) -> torch.Tensor:
        """The first MLP layer's terms for every word (and the absent
        vector last): (B, T + 1, POSITIONS, 2 · mlp)."""
        h = self.vectors(x)
        h = torch.cat([h, self.absent.expand(h.shape[0], 1, -1)], dim=1)
        terms: torch.Tensor = self.hidden(h).view(h.shape[0], h.shape[1], POSITIONS, -1)
        return terms

    def score(
        self, terms: torch.Tensor, positions: torch.Tensor, dropout: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Step scores (B, steps) and label scores (B, steps, labels) at the
        gathered positions (B, POSITIONS; −1 → the absent vector), one row
        per sentence; ``dropout=False``: none in the MLP even in training."""
        rows = torch.arange(terms.shape[0], device=terms.device)
        return self.score_rows(terms, rows, positions, dropout)

    def score_rows(
        self, terms: torch.Tensor, rows: torch.Tensor, positions: torch.Tensor, dropout: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``score`` of N configurations at once: configuration k reads
        sentence ``rows[k]`` at ``positions[k]`` (N, POSITIONS). The
        training loop scores every configuration of a batch in one call, so
        that the backward pass gathers once, not once per step."""
        n, t = positions.shape[0], terms.shape[1]
        idx = torch.where(positions < 0, torch.full_like(positions, t - 1), positions)
        cols = torch.arange(POSITIONS, device=terms.device).unsqueeze(0)
        pre = terms[rows.unsqueeze(1), idx, cols].sum(dim=1) + self.hidden_bias
        h = torch.tanh(pre)
        m = self.dims.mlp
        hs, hl = h[:, :m], h[:, m:]
        if dropout:
            hs, hl = self.drop(hs), self.drop(hl)
        return self.step_out(hs), self.label_out(hl).view(n, self.steps, self.labels)


class MLP(nn.Module):
    """One layer: linear, leaky ReLU (Dozat & Manning 2017), dropout."""

    def __init__(self, width: int, out: int, dropout: float) -> None:
        super().__init__()
        self.linear = nn.Linear(width, out)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.drop(nn.functional.leaky_relu(self.linear(x), 0.1))
        return out


class BiaffineNetwork(Encoder):
    """The graph-based parser's encoder and scorers (Dozat & Manning 2017):
    arc scores s(h, d) = a_h · (W a'_d) + a_h · u for the head vector a_h
    and the dependent vector a'_d of the arc MLPs, and label scores of an
    arc by a biaffine classifier of the label MLPs' vectors. ``labels``:
    the label classes."""

    def __init__(
        self, dims: Dimensions, forms: int, upos: int, feats: int, chars: int, labels: int, pretrained: int = 0
    ):
        super().__init__(dims, forms, upos, feats, chars, pretrained)
        self.labels = labels
        out = 2 * dims.lstm
        self.arc_head = MLP(out, dims.arc_mlp, dims.dropout)
        self.arc_dep = MLP(out, dims.arc_mlp, dims.dropout)
        self.label_head = MLP(out, dims.mlp, dims.dropout)
        self.label_dep = MLP(out, dims.mlp, dims.dropout)
        # Zero at the start: every tree equally likely (Dozat & Manning).
        self.arc_weight = nn.Parameter(torch.zeros(dims.arc_mlp, dims.arc_mlp))
        self.arc_bias = nn.Parameter(torch.zeros(dims.arc_mlp))
        # The label classifier's biaffine form (the bilinear term as one
        # matrix product, since nn.Bilinear's is several times slower on CPU).
        bound = dims.mlp**-0.5
        self.label_weight = nn.Parameter(torch.empty(dims.mlp, labels * dims.mlp).uniform_(-bound, bound))
        self.label_linear = nn.Linear(2 * dims.mlp, labels)

    def forward(self, x: Inputs) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Arc scores (B, T, T; row = head, column = dependent, in
        tabula's layout) and the label MLPs' vectors (B, T, mlp) as heads
        and as dependents, for :meth:`label_scores`."""
        h = self.vectors(x)
        head, dep = self.arc_head(h), self.arc_dep(h)
        arcs = (head @ self.arc_weight) @ dep.transpose(1, 2) + (head @ self.arc_bias)[:, :, None]
        return arcs, self.label_head(h), self.label_dep(h)

    def label_scores(self, heads_of: torch.Tensor, label_head: torch.Tensor, label_dep: torch.Tensor) -> torch.Tensor:
        """Label scores (B, T, labels) of the arcs heads_of[b, d] → d
        (B, T; any valid position where there is no arc)."""
        b, t, m = label_dep.shape
        head = label_head.gather(1, heads_of[:, :, None].expand(-1, -1, m))
        # head_i U_l dep_j for every label l: (B·T, L, m) × (B·T, m, 1).
        left = (head.reshape(b * t, m) @ self.label_weight).view(b * t, self.labels, m)
        bilinear = torch.bmm(left, label_dep.reshape(b * t, m, 1)).view(b, t, self.labels)
        out: torch.Tensor = bilinear + self.label_linear(torch.cat([head, label_dep], dim=2))
        return out
