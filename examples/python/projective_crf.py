"""A projective dependency CRF loss for PyTorch users, with tabula computing
log Z and its gradient (the arc marginals) exactly over the trees of a
grammar file.

The loss of a sentence with arc scores s (row = head, column = dependent,
row 0 the root) and gold heads is  log Z(s) - sum of s over the gold arcs,
the negative log-likelihood of the gold tree under p(t) ∝ exp(sum of s over
t's arcs). ``LogPartition`` is a custom autograd function: its forward is
``Grammar.log_partition_batch``, its backward multiplies the incoming
gradient by ``Grammar.marginals_batch`` (d log Z / d s = the marginals). Any
grammar works: ``grammars/projective-single-root.grammar`` gives the
single-root CRF, a grammar of your own another tree class.

Needs PyTorch (not a dependency of tabula-parsing):

    python examples/python/projective_crf.py

It checks the gradient against finite differences (torch.autograd.gradcheck),
then fits a small bilinear arc scorer to random gold trees and prints the
loss falling.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import tabula_parsing as tp


class LogPartition(torch.autograd.Function):
    """log Z for a batch of score matrices of equal size (B, n+1, n+1), float64."""

    @staticmethod
    def forward(ctx: Any, scores: torch.Tensor, grammar: tp.Grammar, terminals: list[str]) -> torch.Tensor:
        s = list(scores.detach().cpu().numpy())
        texts = [terminals] * len(s)
        ctx.save_for_backward(torch.from_numpy(np.stack(grammar.marginals_batch(texts, s))))
        return torch.from_numpy(grammar.log_partition_batch(texts, s)).to(scores.device)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        (marginals,) = ctx.saved_tensors
        return grad[:, None, None] * marginals.to(grad.device), None, None


def crf_loss(scores: torch.Tensor, gold: torch.Tensor, grammar: tp.Grammar, terminals: list[str]) -> torch.Tensor:
    """Mean negative log-likelihood of the gold trees; ``gold`` holds the
    heads of words 1..n, shape (B, n)."""
    b, n = gold.shape
    words = torch.arange(1, n + 1).expand(b, n)
    gold_score = scores[torch.arange(b)[:, None], gold, words].sum(dim=1)
    return (LogPartition.apply(scores, grammar, terminals) - gold_score).mean()


def main() -> None:
    torch.manual_seed(0)
    grammar = tp.Grammar.shipped("projective")
    n, batch, dim = 8, 16, 12
    terminals = ["a"] * (n + 1)

    # The gradient is the marginals: finite differences agree.
    small = torch.randn(2, n + 1, n + 1, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: LogPartition.apply(s, grammar, terminals), (small,))
    print("gradcheck: the marginals are the gradient of log Z")

    # Random "sentences" (word vectors) and gold trees drawn from a hidden scorer.
    words = torch.randn(batch, n + 1, dim, dtype=torch.float64)
    hidden = torch.randn(dim, dim, dtype=torch.float64)
    hidden_scores = torch.einsum("bhi,ij,bdj->bhd", words, hidden, words)
    gold = torch.tensor(
        np.stack([grammar.kbest(terminals, s.numpy(), 1)[0][1] for s in hidden_scores]), dtype=torch.long
    )

    weights = torch.zeros(dim, dim, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=0.1)
    for step in range(31):
        scores = torch.einsum("bhi,ij,bdj->bhd", words, weights, words)
        loss = crf_loss(scores, gold, grammar, terminals)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step:2}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
