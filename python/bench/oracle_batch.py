"""Speed of the minibatch oracle (``OracleBatch``) along computations of a
treebank, per sentence-step, for every system.

    python python/bench/oracle_batch.py TREEBANK.conllu [--systems S,...] [--batch 32]
        [--explore 0.0] [--runs 3] [--limit N]

Run from the repository root after ``pip install ./python``. Batches of
``--batch`` sentences (in file order) are followed to the end: at every
configuration the loop asks ``finished``, ``positions``, ``applicable``,
``optimal`` (the scores) and ``gold_labels``, then applies one step per
sentence: the optimal step with the lowest column, or with probability
``--explore`` a random applicable one (a model's wrong step). Training trees
as the neural parser's default takes them: projectivized optimally for
arc-standard, arc-hybrid, arc-eager and LR-spine, as they are for Attardi
and arc-eager-nm. Prints, per system, the median over ``--runs`` of the time
per sentence-step (every call of the loop counted, NumPy's included), wall
and CPU (all threads; the steadier figure on a shared machine), and the
share of the wall time in each call.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

import tabula_parsing as tp

NONPROJECTIVE = ("attardi", "arc-eager-nm")


def golds(path: str, system: str, limit: int | None) -> list[list[int]]:
    sentences = [s for s in tp.read_conllu(path) if s.has_tree][:limit]
    if system in NONPROJECTIVE:
        return [list(s.heads) for s in sentences]
    return [t.heads for t in tp.projectivize_batch(sentences, "optimal", prefer="default")]


def run(
    trees: list[list[int]], system: str, batch: int, explore: float, seed: int
) -> tuple[float, float, int, dict[str, float]]:
    rng = random.Random(seed)
    calls = {"finished": 0.0, "positions": 0.0, "applicable": 0.0, "scores": 0.0, "gold_labels": 0.0, "apply": 0.0}
    steps = 0
    ob = None
    start, cpu_start = time.perf_counter(), time.process_time()
    for k in range(0, len(trees), batch):
        chunk = trees[k : k + batch]
        labels = [[1] * len(t) for t in chunk]
        if ob is None:
            ob = tp.OracleBatch(chunk, system=system, labels=labels, abandon=True)
        else:
            ob.reset(chunk, labels)
        while True:
            t0 = time.perf_counter()
            finished = ob.finished
            t1 = time.perf_counter()
            if finished.all():
                calls["finished"] += t1 - t0
                break
            ob.positions()
            t2 = time.perf_counter()
            applicable = ob.applicable()
            t3 = time.perf_counter()
            optimal = ob.optimal()
            t4 = time.perf_counter()
            ob.gold_labels()
            t5 = time.perf_counter()
            follow = np.where(finished, -1, optimal.argmax(axis=1))
            if explore > 0:
                for i in np.nonzero(~finished)[0]:
                    if rng.random() < explore:
                        follow[i] = rng.choice(np.nonzero(applicable[i])[0])
            t6 = time.perf_counter()
            ob.apply(follow.astype(np.int64))
            t7 = time.perf_counter()
            steps += int((~finished).sum())
            for name, d in [
                ("finished", t1 - t0),
                ("positions", t2 - t1),
                ("applicable", t3 - t2),
                ("scores", t4 - t3),
                ("gold_labels", t5 - t4),
                ("apply", t7 - t6),
            ]:
                calls[name] += d
    total, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return total, cpu, steps, calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("treebank")
    p.add_argument("--systems", default=",".join(tp.systems()))
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--explore", type=float, default=0.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--limit", type=int)
    args = p.parse_args()
    print(
        f"{'system':<14} {'sentence-steps':>14} {'µs/step':>9} {'CPU µs/step':>12}"
        "  shares (finished positions applicable scores gold_labels apply)"
    )
    for system in args.systems.split(","):
        trees = golds(args.treebank, system, args.limit)
        results = [run(trees, system, args.batch, args.explore, seed) for seed in range(args.runs)]
        per_step = statistics.median(total / steps * 1e6 for total, _, steps, _ in results)
        cpu_per_step = statistics.median(cpu / steps * 1e6 for _, cpu, steps, _ in results)
        total, _, steps, calls = results[0]
        shares = " ".join(f"{100 * calls[k] / total:5.1f}" for k in calls)
        print(f"{system:<14} {steps:>14} {per_step:9.2f} {cpu_per_step:12.2f}  {shares}")


if __name__ == "__main__":
    main()
