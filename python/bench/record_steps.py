"""Records the computations the neural parser's training loop follows in its
last epoch: one JSON object per sentence and line, ``{"heads": [...],
"steps": [...]}`` (the gold heads of words 1…n and the names of the steps
applied), for ``examples/05_attardi_profile.rs --replay``, which replays
them through Attardi's oracle in Rust and says where its time goes.

    python python/bench/record_steps.py TRAIN.conllu STEPS.jsonl [--system attardi] [--epochs 2] [--seed 1]

Run from the repository root with the ``torch`` extra installed. The
training is the command's (``python -m tabula_parsing.neural train``) with
``--projectivize none`` and one PyTorch thread; the model is not kept. A
measurement script: it wraps the trainer's methods to see the steps.
"""

from __future__ import annotations

import argparse
import importlib
import json
from typing import Any

import numpy as np

import tabula_parsing as tp
from tabula_parsing import neural

# The module (the package's `train` is the function).
neural_train = importlib.import_module("tabula_parsing.neural.train")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("train")
    p.add_argument("output")
    p.add_argument("--system", default="attardi")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    names = tp.steps(args.system)
    # index → (heads, steps) of the current epoch; a sentence seen again
    # starts the next epoch.
    epoch: dict[int, tuple[list[int], list[str]]] = {}
    trainer_class = neural_train.Trainer
    train_batch = trainer_class.train_batch
    batch_of = trainer_class._batch

    def recording_train_batch(self: Any, batch: Any, *rest: Any) -> Any:
        if any(e.index in epoch for e in batch):
            epoch.clear()
        self._recorded = [(e.index, list(e.heads)) for e in batch]
        for index, heads in self._recorded:
            epoch[index] = (heads, [])
        return train_batch(self, batch, *rest)

    def recording_batch(self: Any, golds: Any, labels: Any) -> Any:
        oracle = batch_of(self, golds, labels)
        recorded = self._recorded

        class Recording:
            def apply(self, steps: np.ndarray, *rest: Any) -> Any:
                for (index, _), k in zip(recorded, steps):
                    if k >= 0:
                        epoch[index][1].append(names[int(k)])
                return oracle.apply(steps, *rest)

            def __getattr__(self, name: str) -> Any:
                return getattr(oracle, name)

        return Recording()

    trainer_class.train_batch = recording_train_batch  # type: ignore[method-assign]
    trainer_class._batch = recording_batch  # type: ignore[method-assign]
    neural.train(
        args.train,
        system=args.system,
        projectivize="none",
        epochs=args.epochs,
        seed=args.seed,
        threads=1,
    )
    with open(args.output, "w") as out:
        for index in sorted(epoch):
            heads, steps = epoch[index]
            out.write(json.dumps({"heads": heads, "steps": steps}) + "\n")
    print(f"{args.output}: {len(epoch)} computations")


if __name__ == "__main__":
    main()
