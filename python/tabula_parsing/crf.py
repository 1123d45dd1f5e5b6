"""Tree CRFs as a differentiable PyTorch layer: the distribution over the
dependency trees of a batch, computed by tabula's engine for the trees of
any grammar file, or by the Matrix-Tree theorem for all trees.

Given arc scores s (a ``B × N × N`` tensor, row = head, column = dependent,
position 0 the root; sentence b uses its top-left ``(n_b + 1) × (n_b + 1)``
block, ``n_b = lengths[b]``), each sentence's trees t get
p(t) ∝ exp Σ_{(h,d) ∈ t} s(h, d), over

* the trees of a grammar: ``trees="projective"`` (all projective trees,
  Nederhof 2019 Table 3), ``"projective-single-root"`` (the root has one
  child, as in Universal Dependencies), a :class:`tabula_parsing.Grammar`
  of your own, or the path of a grammar file;
* all trees, projective or not: ``"nonprojective"`` or
  ``"nonprojective-single-root"`` (Koo et al. 2007; Smith & Smith 2007).

:attr:`TreeCRF.partition` (log Z per sentence) is differentiable: its
gradient is the arc marginals, computed in the same pass as log Z by the
engine's outside pass or the Matrix-Tree elimination, never by autograd
through a loop, so ``(crf.partition - gold_score).sum().backward()`` trains
a CRF parser. :meth:`TreeCRF.log_prob` of given trees is differentiable the
same way. Marginals, entropy, the best tree (the engine in max-plus, or
Chu–Liu–Edmonds for all trees), the k best trees (a grammar's) and samples
are computed exactly, without gradient. Every pass runs in Rust on rayon's
threads with the GIL released (``RAYON_NUM_THREADS`` sets how many), over
float32 or float64 CPU tensors read in place; CUDA tensors are copied to the
CPU and the results back. Ctrl-C stops a pass between sentences.

torch-struct users (Rush 2020) will recognise ``DependencyCRF``'s
properties; the scores differ in layout: here row and column 0 are the root
(torch-struct puts the root arcs on the diagonal of an ``n × n`` matrix),
and :meth:`TreeCRF.from_torch_struct` converts.

Needs PyTorch (``pip install "./python[torch]"``).

>>> import torch
>>> from tabula_parsing.crf import TreeCRF
>>> scores = torch.zeros(1, 3, 3, dtype=torch.float64, requires_grad=True)
>>> crf = TreeCRF(scores, trees="projective")  # two words: 3 projective trees
>>> round(float(crf.partition.exp()), 9)
3.0
>>> crf.partition.sum().backward()
>>> scores.grad[0].sum(dim=0).tolist()  # one head per word
[0.0, 1.0, 1.0]
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import numpy as np
import torch

from . import _tabula
from ._tabula import Grammar

__all__ = ["TreeCRF", "TREES"]

#: The tree classes named by a string (a grammar file's path is read too).
TREES = ("projective", "projective-single-root", "nonprojective", "nonprojective-single-root")

Trees = Union[str, "os.PathLike[str]", Grammar]


class _LogPartition(torch.autograd.Function):
    """log Z with the marginals as its gradient (saved by the forward pass)."""

    @staticmethod
    def forward(ctx: Any, scores: torch.Tensor, crf: TreeCRF) -> torch.Tensor:
        z, marginals = crf._partition_and_marginals()
        ctx.save_for_backward(marginals)
        return z.clone()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (marginals,) = ctx.saved_tensors
        return grad[:, None, None].to(marginals.dtype) * marginals, None


class _FromTorchStruct(torch.autograd.Function):
    """torch-struct's ``B × n × n`` layout (root arcs on the diagonal) to
    tabula's ``B × (n+1) × (n+1)``, and the gradient back, each in one pass
    over the batch (autograd through the slice assignments took several)."""

    @staticmethod
    def forward(ctx: Any, phi: torch.Tensor) -> torch.Tensor:
        b, n = phi.shape[0], phi.shape[1]
        scores = phi.new_empty((b, n + 1, n + 1))
        scores[:, :, 0] = float("-inf")
        scores[:, 0, 0] = float("-inf")
        scores[:, 1:, 1:] = phi
        scores[:, 0, 1:] = torch.diagonal(phi, dim1=1, dim2=2)
        return scores

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        out = grad[:, 1:, 1:].clone()
        torch.diagonal(out, dim1=1, dim2=2).add_(grad[:, 0, 1:])
        return out


class TreeCRF:
    """The distribution over the trees of each sentence of a batch.

    ``scores``: a float32 or float64 tensor ``B × N × N`` (row = head,
    column = dependent, 0 the root; the diagonal and column 0 are ignored,
    ``-inf`` forbids an arc). ``lengths``: the number of words of each
    sentence (an integer tensor or sequence of B values, each at most
    N − 1; default N − 1 for all). ``trees``: which trees (see the module
    documentation). ``terminals``: for a grammar with several terminals
    other than the root's, one list per sentence naming each position's
    terminal, the root's first; by default a grammar's one terminal stands
    everywhere, or ``root`` at 0 and its other terminal at every word.

    Results are per sentence, on the scores' device; ``partition`` and
    ``log_prob`` in the scores' dtype with gradient, ``marginals`` in the
    scores' dtype, ``entropy`` in float64. A sentence whose trees all have
    weight 0 (every tree uses a ``-inf`` arc, or the grammar derives none)
    raises ``ValueError`` naming it.
    """

    def __init__(
        self,
        scores: torch.Tensor,
        lengths: Optional[Union[torch.Tensor, Sequence[int]]] = None,
        trees: Trees = "projective",
        terminals: Optional[Sequence[Sequence[str]]] = None,
    ) -> None:
        if not isinstance(scores, torch.Tensor):
            raise TypeError(f"scores must be a torch.Tensor, found {type(scores).__name__}")
        if scores.dim() != 3 or scores.shape[1] != scores.shape[2] or scores.shape[1] == 0:
            raise ValueError(
                "scores must be a B × N × N tensor (row = head, column = dependent, 0 the root), "
                f"found shape {tuple(scores.shape)}"
            )
        if scores.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"scores must be float32 or float64, found {scores.dtype}")
        b, n = scores.shape[0], scores.shape[1]
        if lengths is None:
            lengths_np = np.full(b, n - 1, dtype=np.int64)
        else:
            lengths_np = np.asarray(
                lengths.detach().cpu().numpy() if isinstance(lengths, torch.Tensor) else lengths
            )
            if lengths_np.shape != (b,) or not np.issubdtype(lengths_np.dtype, np.integer):
                raise ValueError(f"lengths must be {b} integers (one per sentence), found {lengths_np!r}")
            lengths_np = lengths_np.astype(np.int64)
        self.scores = scores
        self.lengths = lengths_np
        self._grammar, self._single_root = _trees(trees)
        if terminals is not None and self._grammar is None:
            raise ValueError("terminals name a grammar's terminals: all trees (no grammar) have none")
        self._terminals = None if terminals is None else [list(t) for t in terminals]
        self._cache: dict[str, Any] = {}

    @classmethod
    def from_torch_struct(
        cls,
        log_potentials: torch.Tensor,
        lengths: Optional[Union[torch.Tensor, Sequence[int]]] = None,
        trees: Trees = "projective",
    ) -> TreeCRF:
        """The CRF of torch-struct's ``DependencyCRF(log_potentials, lengths)``
        layout: ``B × n × n`` with ``log_potentials[b, h, d]`` the arc from
        word h to word d (0-based) and the root arcs on the diagonal. The
        scores are copied into tabula's ``B × (n+1) × (n+1)`` layout, with
        the gradient flowing back."""
        if log_potentials.dim() != 3 or log_potentials.shape[1] != log_potentials.shape[2]:
            raise ValueError(
                f"log_potentials must be a B × n × n tensor (torch-struct's layout), found shape "
                f"{tuple(log_potentials.shape)}"
            )
        scores: torch.Tensor = _FromTorchStruct.apply(log_potentials)
        return cls(scores, lengths, trees)

    # --- the passes -------------------------------------------------------

    def _arguments(self) -> dict[str, Any]:
        return {"grammar": self._grammar, "terminals": self._terminals, "single_root": self._single_root}

    def _numpy_scores(self) -> np.ndarray[Any, Any]:
        """The scores as NumPy sees them: a view of a contiguous CPU tensor."""
        return self.scores.detach().to("cpu").contiguous().numpy()

    def _partition_and_marginals(self) -> tuple[torch.Tensor, torch.Tensor]:
        if "marginals" not in self._cache:
            z, m = _tabula.crf_partition(self._numpy_scores(), self.lengths, marginals=True, **self._arguments())
            device, dtype = self.scores.device, self.scores.dtype
            self._cache["log_z"] = torch.from_numpy(z).to(device=device, dtype=dtype)
            self._cache["marginals"] = torch.from_numpy(m).to(device)
        return self._cache["log_z"], self._cache["marginals"]

    @property
    def partition(self) -> torch.Tensor:
        """log Z per sentence (B): differentiable, its gradient the arc
        marginals. O(B n³)."""
        result: torch.Tensor = _LogPartition.apply(self.scores, self)
        return result

    @property
    def marginals(self) -> torch.Tensor:
        """P(h → d) per sentence (B × N × N, the scores' dtype; 0 outside a
        sentence's block and on forbidden arcs): each word's column sums to
        1. Computed with :attr:`partition` in one pass; no gradient."""
        return self._partition_and_marginals()[1]

    @property
    def entropy(self) -> torch.Tensor:
        """−Σ_t p(t) ln p(t) per sentence, in nats (float64, B; no
        gradient): log Z − Σ P(h → d) s(h, d). Over derivations for an
        ambiguous grammar."""
        z, m = self._partition_and_marginals()
        m64 = m.to(torch.float64)
        s64 = self.scores.detach().to(torch.float64).masked_fill(m64 == 0, 0.0)
        return (z.to(torch.float64) - (m64 * s64).sum(dim=(1, 2))).clamp(min=0.0)

    def _heads_of(self, trees: torch.Tensor) -> torch.Tensor:
        """Heads (B × N, long) from heads or one-hot arcs (B × N × N)."""
        b, n = self.scores.shape[0], self.scores.shape[1]
        if trees.dim() == 3 and tuple(trees.shape) == (b, n, n):
            return trees.detach().to(torch.float64).argmax(dim=1).to(torch.long)
        if trees.dim() == 2 and tuple(trees.shape) == (b, n):
            return trees.detach().to(torch.long)
        raise ValueError(
            f"trees must be heads (B × N = {b} × {n}, row d the head of word d) or arcs (B × N × N), "
            f"found shape {tuple(trees.shape)}"
        )

    def score(self, trees: torch.Tensor) -> torch.Tensor:
        """Σ s(h, d) over each tree's arcs (B, differentiable): ``trees``
        as heads (B × N; entry 0 and those past a sentence ignored) or as
        0/1 arcs (B × N × N)."""
        heads = self._heads_of(trees).to(self.scores.device)
        n = self.scores.shape[1]
        words = torch.arange(n, device=self.scores.device)
        inside = (words[None, :] >= 1) & (words[None, :] <= torch.as_tensor(self.lengths, device=heads.device)[:, None])
        safe = torch.where(inside, heads.clamp(0, n - 1), torch.zeros_like(heads))
        arc = self.scores.gather(1, safe[:, None, :]).squeeze(1)
        return arc.masked_fill(~inside, 0.0).sum(dim=1)

    def log_prob(self, trees: torch.Tensor) -> torch.Tensor:
        """ln p(t) per sentence (B, differentiable): score − log Z, plus ln
        of the tree's number of derivations for an ambiguous grammar; −inf
        for a tree outside the class (not a tree, or one the grammar does
        not derive). ``trees`` as in :meth:`score`."""
        heads = self._heads_of(trees)
        derivations = _tabula.crf_tree_log_derivations(
            self._numpy_scores(), self.lengths, heads.cpu().numpy(), **self._arguments()
        )[0]
        extra = torch.from_numpy(derivations).to(device=self.scores.device, dtype=self.scores.dtype)
        return self.score(heads) + extra - self.partition

    # --- trees --------------------------------------------------------------

    def kbest(self, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The k best trees per sentence, best first: their scores (B × k,
        float64; −inf where a sentence has fewer trees) and heads (B × k ×
        N, long; −1 at 0, past the sentence and for missing trees). k > 1
        needs a grammar (the engine's lazy k best, Huang & Chiang 2005)."""
        values, heads = _tabula.crf_kbest(self._numpy_scores(), self.lengths, k, **self._arguments())
        device = self.scores.device
        return torch.from_numpy(values).to(device), torch.from_numpy(heads).to(device)

    @property
    def best_heads(self) -> torch.Tensor:
        """The best tree's heads per sentence (B × N, long; −1 at 0 and past
        the sentence): the engine in max-plus for a grammar, Chu–Liu–Edmonds
        for all trees."""
        if "best" not in self._cache:
            values, heads = self.kbest(1)
            self._cache["best"] = (values[:, 0], heads[:, 0])
        result: torch.Tensor = self._cache["best"][1]
        return result

    @property
    def max(self) -> torch.Tensor:
        """The best tree's score per sentence (B, float64)."""
        self.best_heads
        result: torch.Tensor = self._cache["best"][0]
        return result

    @property
    def argmax(self) -> torch.Tensor:
        """The best tree as 0/1 arcs (B × N × N, the scores' dtype), as
        torch-struct gives it."""
        return self.arcs(self.best_heads)

    def arcs(self, heads: torch.Tensor) -> torch.Tensor:
        """0/1 arcs (… × N × N, the scores' dtype) of heads (… × N; −1
        ignored)."""
        n = self.scores.shape[1]
        out = torch.zeros(*heads.shape, n + 1, dtype=self.scores.dtype, device=heads.device)
        out.scatter_(-1, torch.where(heads >= 0, heads, n)[..., None], 1.0)
        return out[..., :n].transpose(-1, -2).contiguous()

    def sample(self, count: int, seed: Optional[int] = None) -> torch.Tensor:
        """``count`` trees per sentence drawn from the distribution: heads
        (count × B × N, long; −1 at 0 and past the sentence). With
        ``seed``, reproducible whatever the threads. For all trees each
        draw costs O(n⁴) (exact sequential conditioning)."""
        (heads,) = _tabula.crf_sample(self._numpy_scores(), self.lengths, count, seed, **self._arguments())
        return torch.from_numpy(heads).transpose(0, 1).contiguous().to(self.scores.device)


def _trees(trees: Trees) -> tuple[Optional[Grammar], bool]:
    """(the grammar or None for all trees, single root)."""
    if isinstance(trees, Grammar):
        return trees, False
    if trees == "nonprojective":
        return None, False
    if trees == "nonprojective-single-root":
        return None, True
    if trees in ("projective", "projective-single-root"):
        return Grammar.shipped(str(trees)), False
    if isinstance(trees, (str, os.PathLike)) and os.path.exists(trees):
        return Grammar.from_file(trees), False
    raise ValueError(
        f"trees must be one of {', '.join(TREES)}, a Grammar or a grammar file's path; found {trees!r}"
    )
