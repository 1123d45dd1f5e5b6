"""A greedy transition-based parser trained with a dynamic oracle: no PyTorch,
just an averaged perceptron over a few word and tag features.

Training follows Goldberg & Nivre's error exploration (Goldberg, Sartorio and
Satta 2014, Algorithm 2): at every configuration the oracle's optimal steps
(Nederhof 2019, Sec. 2-7, for arc-standard; for arc-hybrid and arc-eager the
closed forms, or the grammar oracle for non-projective gold trees) are the
targets; the model is updated when its best step is not among them, and
after the first epoch the parser follows the model's own step (explores)
rather than an optimal one. Non-projective gold trees need no
preprocessing: the oracles are exact for them (but LR-spine's, whose gold
trees are projectivized first). For the parser tabula trains itself (the
same oracles, richer features), see ``tp.Parser.train``.

    python examples/python/training_loop.py data/sample.conllu --epochs 5 --system arc-hybrid

Prints the training loss per epoch and the unlabeled attachment score on the
same file (the example has no held-out data: it shows the loop, not a result).
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

import tabula_parsing as tp


def columns(sentence: tp.Sentence) -> list[tuple[str, str]]:
    """(form, universal tag) of the root and of each syntactic word."""
    return [("<root>", "ROOT"), *((form.lower(), tag) for form, tag in zip(sentence.forms, sentence.upos))]


def features(words: list[tuple[str, str]], stack: list[int], buffer: list[int]) -> list[str]:
    """Forms and tags of the top three stack words and the first two input words."""
    def at(prefix: str, position: int | None) -> list[str]:
        if position is None:
            return [f"{prefix}:none"]
        form, tag = words[position]
        return [f"{prefix}f:{form}", f"{prefix}t:{tag}"]

    s = [stack[-i] if len(stack) >= i else None for i in (1, 2, 3)]
    b = [buffer[i] if len(buffer) > i else None for i in (0, 1)]
    feats = ["bias"]
    for name, pos in zip(("s0", "s1", "s2", "b0", "b1"), (*s, *b)):
        feats += at(name, pos)

    def tag(p: int | None) -> str:
        return words[p][1] if p is not None else "-"

    feats += [f"s0s1:{tag(s[0])}/{tag(s[1])}", f"s0b0:{tag(s[0])}/{tag(b[0])}", f"s1s0b0:{tag(s[1])}/{tag(s[0])}/{tag(b[0])}"]
    return feats


class Perceptron:
    """A multi-class averaged perceptron over string features."""

    def __init__(self, classes: list[str]) -> None:
        self.classes = classes
        self.weights: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.totals: dict[tuple[str, str], float] = defaultdict(float)
        self.stamps: dict[tuple[str, str], int] = defaultdict(int)
        self.time = 0

    def score(self, feats: list[str]) -> dict[str, float]:
        scores = dict.fromkeys(self.classes, 0.0)
        for f in feats:
            for c, w in self.weights.get(f, {}).items():
                scores[c] += w
        return scores

    def best(self, feats: list[str], allowed: list[str]) -> str:
        scores = self.score(feats)
        return max(allowed, key=lambda c: (scores[c], c))

    def update(self, feats: list[str], good: str, bad: str) -> None:
        self.time += 1
        for f in feats:
            for c, delta in ((good, 1.0), (bad, -1.0)):
                key = (f, c)
                self.totals[key] += (self.time - self.stamps[key]) * self.weights[f][c]
                self.stamps[key] = self.time
                self.weights[f][c] += delta

    def average(self) -> None:
        """Replaces each weight by its average over all updates."""
        for (f, c), total in self.totals.items():
            total += (self.time - self.stamps[(f, c)]) * self.weights[f][c]
            self.weights[f][c] = total / max(self.time, 1)


def train(sentences: list[tp.Sentence], system: str, epochs: int, seed: int) -> Perceptron:
    rng = random.Random(seed)
    model = Perceptron(tp.steps(system))
    # LR-spine's oracle (Goldberg et al. 2014) needs projective gold trees.
    data = [(tp.projectivize(s) if system == "lr-spine" else s.tree, columns(s)) for s in sentences]
    for epoch in range(epochs):
        rng.shuffle(data)
        loss = 0
        for gold, words in data:
            session = tp.Session(gold, system=system)
            while not session.is_final:
                targets = session.optimal()  # the oracle: steps that lose no more gold arcs
                feats = features(words, session.stack, session.buffer)
                predicted = model.best(feats, session.applicable_steps())
                if predicted not in targets:
                    loss += 1
                    model.update(feats, model.best(feats, targets), predicted)
                # Explore after the first epoch: follow the model, mistakes included.
                session.apply(predicted if epoch > 0 and rng.random() < 0.9 else rng.choice(targets))
        print(f"epoch {epoch + 1}: {loss} steps not optimal")
    model.average()
    return model


def parse(model: Perceptron, sentence: tp.Sentence, system: str) -> list[int]:
    """Greedy parsing: the heads the model's steps build."""
    words = columns(sentence)
    c = tp.Configuration.initial(len(sentence), system)
    while not c.is_final:
        c.apply(model.best(features(words, c.stack, c.buffer), c.applicable_steps()))
    heads = dict((d, h) for h, d in c.arcs)
    return [heads.get(d, 0) for d in range(1, len(sentence) + 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("treebank", help="a CoNLL-U file")
    ap.add_argument("--system", default="arc-hybrid", choices=tp.systems())
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sentences = tp.read_conllu(args.treebank)
    model = train(sentences, args.system, args.epochs, args.seed)
    correct = total = 0
    for s in sentences:
        predicted = parse(model, s, args.system)
        correct += sum(p == g for p, g in zip(predicted, s.tree.heads))
        total += len(s)
    print(f"UAS on the training file: {100 * correct / max(total, 1):.1f} % of {total} words")


if __name__ == "__main__":
    main()
