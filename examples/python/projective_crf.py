"""A dependency CRF trained through tabula's engine: a bilinear arc scorer
fitted with the negative log-likelihood of gold trees under
``tabula_parsing.crf.TreeCRF``, whose log Z has the engine's arc marginals
as its gradient.

Any tree class works: ``--trees projective`` (Nederhof 2019, Table 3),
``projective-single-root``, ``nonprojective`` or
``nonprojective-single-root`` (the Matrix-Tree theorem), or a grammar file
of your own. Needs PyTorch (not a dependency of tabula-parsing):

    python examples/python/projective_crf.py [--trees projective]

It checks the gradient against finite differences (torch.autograd.gradcheck),
then fits the scorer to trees drawn from a hidden one and prints the loss
falling and the share of heads the fitted scorer's best trees get right.
"""

from __future__ import annotations

import argparse

import torch

from tabula_parsing.crf import TreeCRF


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="projective", help="a tree class or a grammar file [default: projective]")
    args = parser.parse_args()
    torch.manual_seed(0)
    n, batch, dim = 8, 32, 12
    lengths = torch.randint(2, n + 1, (batch,))

    # The gradient of log Z is the marginals: finite differences agree.
    small = torch.randn(2, n + 1, n + 1, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: TreeCRF(s, [n, 5], trees=args.trees).partition, (small,))
    print("gradcheck: the marginals are the gradient of log Z")

    # Random "sentences" (word vectors) and gold trees drawn from a hidden scorer.
    words = torch.randn(batch, n + 1, dim)
    hidden = torch.randn(dim, dim)
    gold = TreeCRF(words @ hidden @ words.transpose(1, 2), lengths, trees=args.trees).sample(1, seed=1)[0]

    weights = torch.zeros(dim, dim, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=0.1)
    for step in range(41):
        crf = TreeCRF(words @ weights @ words.transpose(1, 2), lengths, trees=args.trees)
        loss = -crf.log_prob(gold).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            best = crf.best_heads
            right = ((best == gold) & (gold >= 0)).sum().item() / lengths.sum().item()
            print(f"step {step:2}: loss {loss.item():.3f}, heads of the best trees right {100 * right:.1f} %")


if __name__ == "__main__":
    main()
