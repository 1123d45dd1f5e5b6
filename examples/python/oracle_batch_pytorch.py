"""Your own PyTorch transition parser, trained with tabula's minibatch oracle.

A template for the loop people write: a BiLSTM over the words, an MLP over the
vectors of the positions the oracle gathers, and for every configuration of a
minibatch the loss of the optimal set (cross-entropy: −log of the probability
the network gives the optimal steps). After the first epoch the loop follows the
network's own step when it is wrong, with probability ``--explore`` (error
exploration, Kiperwasser & Goldberg 2016); the dynamic oracle then says which
steps are optimal from wherever the computation went. The oracle is exact for any
gold tree, non-projective ones included, so the treebank needs no preprocessing.
Unlabelled, to stay short: ``tabula_parsing.neural`` is the whole parser
(labels, characters, averaging, a command line).

    python examples/python/oracle_batch_pytorch.py data/sample.conllu --epochs 30

Prints the loss and the unlabelled attachment score per epoch, on ``--test`` if
given, else on the training file itself (the example shows the loop, not a
result). Needs PyTorch (``pip install "./python[torch]"``).
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch
from torch import nn

import tabula_parsing as tp


class Net(nn.Module):
    """Word and tag embeddings, a BiLSTM, and an MLP over the gathered positions."""

    def __init__(self, words: int, tags: int, positions: int, steps: int, dim: int = 64) -> None:
        super().__init__()
        self.word, self.tag = nn.Embedding(words, dim), nn.Embedding(tags, 16)
        self.lstm = nn.LSTM(dim + 16, dim, num_layers=2, bidirectional=True, batch_first=True)
        self.absent = nn.Parameter(torch.zeros(2 * dim))  # the vector of a position −1
        self.mlp = nn.Sequential(nn.Linear(positions * 2 * dim, dim), nn.Tanh(), nn.Linear(dim, steps))

    def encode(self, words: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
        """(B, T, 2·dim) with one more vector per sentence, the absent one, at T."""
        h, _ = self.lstm(torch.cat([self.word(words), self.tag(tags)], dim=2))
        return torch.cat([h, self.absent.expand(h.shape[0], 1, -1)], dim=1)

    def score(self, h: torch.Tensor, positions: np.ndarray) -> torch.Tensor:
        """Step scores (B, steps) from the vectors at the gathered positions."""
        p = torch.from_numpy(positions)
        p = torch.where(p < 0, h.shape[1] - 1, p)  # −1: the absent vector
        gathered = h[torch.arange(h.shape[0]).unsqueeze(1), p]  # (B, positions, 2·dim)
        return self.mlp(gathered.flatten(1))


def ids(vocab: dict[str, int], items: list[str], grow: bool) -> list[int]:
    """Ids of the root (1) and the items; unknown ones 0 unless ``grow``."""
    return [1] + [vocab.setdefault(x, len(vocab)) if grow else vocab.get(x, 0) for x in items]


def tensors(
    sentences: list[tp.Sentence], words: dict[str, int], tags: dict[str, int], grow: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded (B, T) word and tag ids, root first."""
    w = [ids(words, [f.lower() for f in s.forms], grow) for s in sentences]
    t = [ids(tags, list(s.upos), grow) for s in sentences]
    pad = max(len(x) for x in w)
    padded = [torch.tensor([x + [0] * (pad - len(x)) for x in rows]) for rows in (w, t)]
    return padded[0], padded[1]


def uas(net: Net, sentences: list[tp.Sentence], words: dict[str, int], tags: dict[str, int], system: str) -> float:
    """Greedy parsing with the network; the share of words given their gold head."""
    net.eval()
    right = total = 0
    with torch.no_grad():
        for k in range(0, len(sentences), 32):
            chunk = sentences[k : k + 32]
            h = net.encode(*tensors(chunk, words, tags, grow=False))
            batch = tp.OracleBatch.without_gold([len(s) for s in chunk], system=system)
            while not batch.done:
                scores = net.score(h, batch.positions()).masked_fill(~torch.from_numpy(batch.applicable()), -1e9)
                batch.apply(np.where(batch.finished, -1, scores.argmax(1).numpy()))
            for s, heads in zip(chunk, batch.heads()):
                right += sum(int(a == b) for a, b in zip(heads.tolist(), s.heads))
                total += len(s)
    return 100.0 * right / total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("train")
    ap.add_argument("--test")
    ap.add_argument("--system", default="arc-hybrid")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--explore", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    train = [s for s in tp.read_conllu(args.train) if s.heads is not None]
    test = [s for s in tp.read_conllu(args.test) if s.heads is not None] if args.test else train
    words: dict[str, int] = {"<unk>": 0, "<root>": 1}
    tags: dict[str, int] = {"<unk>": 0, "<root>": 1}
    tensors(train, words, tags, grow=True)  # the vocabularies
    batch = tp.OracleBatch([train[0].heads], system=args.system)  # one object, reset per minibatch
    net = Net(len(words), len(tags), len(tp.OracleBatch.POSITIONS), len(batch.steps))
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    for epoch in range(1, args.epochs + 1):
        random.shuffle(train)
        net.train()
        total = 0.0
        for k in range(0, len(train), 32):
            chunk = train[k : k + 32]
            batch.reset([s.heads for s in chunk])
            h = net.encode(*tensors(chunk, words, tags, grow=False))
            losses = []
            while not batch.done:
                live = torch.from_numpy(~batch.finished)
                scores = net.score(h, batch.positions())
                applicable = torch.from_numpy(batch.applicable())
                optimal = torch.from_numpy(batch.optimal())
                # −log P(optimal set | applicable steps), for the sentences not finished.
                all_ = torch.logsumexp(scores.masked_fill(~applicable, -1e9), 1)
                good = torch.logsumexp(scores.masked_fill(~optimal, -1e9), 1)
                losses.append((all_ - good)[live])
                # Follow the best optimal step, or (exploring) the network's own wrong one.
                with torch.no_grad():
                    follow = scores.masked_fill(~optimal, -1e9).argmax(1)
                    own = scores.masked_fill(~applicable, -1e9).argmax(1)
                    wrong = ~optimal[torch.arange(len(chunk)), own]
                    explore = torch.rand(len(chunk)) < (args.explore if epoch > 1 else 0.0)
                    follow = torch.where(wrong & explore, own, follow)
                batch.apply(np.where(batch.finished, -1, follow.numpy()))
            loss = torch.cat(losses).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(chunk)
        print(f"epoch {epoch}: loss {total / len(train):.4f}, UAS {uas(net, test, words, tags, args.system):.2f}")


if __name__ == "__main__":
    main()
