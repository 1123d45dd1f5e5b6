#!/usr/bin/env python3
"""Fuzzes ``tabula_parsing.OracleBatch`` from Python: batches built from
arbitrary arrays and sequences (gold heads of any integers, cycles, wrong
lengths, None, trees of any size; labels of any integers and dtypes), then
random calls of every member with arbitrary ``out=`` arrays (wrong shape,
dtype, read-only, non-contiguous) and arbitrary steps. Every call must return
or raise ``ValueError``, ``TypeError``, ``IndexError`` or ``OverflowError``
with a message; anything else (a ``PanicException``, ``SystemError``, a crash
of the process) is a failure, saved with its seed.

The oracle's answers themselves are checked against brute force by
python/tests/test_batch*.py; this looks for crashes and bad errors only.

    python fuzz/oracle_batch.py [SECONDS] [--seed S]     (default 20 s)

Prints the number of batches and calls; exit 1 on the first failure, with
the seed that reproduces it (``--seed S --once``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from typing import Any, Callable

import numpy as np

import tabula_parsing as tp

ALLOWED = (ValueError, TypeError, IndexError, OverflowError)
SYSTEMS = tp.systems()
INTS = [0, 1, 2, 3, -1, -2, -5, 2**31, 2**62, 2**63 - 1, -(2**63), 7, 100]


def some_int(rng: random.Random, n: int) -> int:
    if rng.random() < 0.8:
        return rng.randint(0, max(n, 0))
    return rng.choice(INTS)


def gold(rng: random.Random) -> Any:
    """A gold tree's heads: mostly valid trees, often broken ones."""
    n = rng.choice([0, 1, 2, 3, 4, 5, 8, 13])
    kind = rng.random()
    if kind < 0.85:
        heads: list[Any] = [0] * n
        for d in range(1, n):
            heads[d] = rng.randint(0, d)  # a tree: every head earlier
        rng.shuffle(heads)
        return heads if rng.random() < 0.5 else np.asarray(heads, dtype=rng.choice([np.int64, np.int32, np.uint64, np.int8]))
    if kind < 0.9:
        return [None if rng.random() < 0.3 else some_int(rng, n) for _ in range(n)]
    if kind < 0.94:
        heads = [int(h) for h in np.random.default_rng(rng.randrange(2**32)).integers(0, n + 1, n)]
        return call(tp.Tree, heads)
    if kind < 0.95:
        return "not a tree"
    return [some_int(rng, n) for _ in range(n)]


def labels_for(rng: random.Random, golds: list[Any]) -> Any:
    if rng.random() < 0.5:
        return None
    out = []
    for g in golds:
        n = len(g) if hasattr(g, "__len__") else rng.randint(0, 4)
        n += 0 if rng.random() < 0.9 else rng.choice([1, -1])
        out.append([rng.choice([-1, 0, 1, 2]) if rng.random() < 0.95 else rng.choice([-2, 2**62]) for _ in range(max(n, 0))])
    return out


def out_array(rng: random.Random, shape: tuple[int, ...], dtype: Any) -> Any:
    """An ``out=`` argument: often right, often wrong in one way."""
    k = rng.random()
    if k < 0.4:
        return None
    shape = list(shape)
    if k < 0.55 and shape:
        shape[rng.randrange(len(shape))] += rng.choice([-1, 1])
    if k < 0.65:
        dtype = rng.choice([np.int32, np.float64, np.bool_, np.int64, np.uint64])
    a = np.zeros([max(s, 0) for s in shape], dtype=dtype)
    if k > 0.85:
        a.setflags(write=False)
    elif k > 0.75 and a.ndim == 2 and a.shape[1] > 0:
        a = np.zeros((a.shape[0], a.shape[1] * 2), dtype=a.dtype)[:, ::2]  # not contiguous
    return a


#: Calls that returned and that raised an allowed error, for the summary.
COUNTS = {"returned": 0, "refused": 0}


def call(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        result = f(*args, **kwargs)
        COUNTS["returned"] += 1
        return result
    except ALLOWED as e:
        COUNTS["refused"] += 1
        if not str(e):
            raise AssertionError(f"{type(e).__name__} without a message from {f}") from e
        return None


def one_batch(rng: random.Random) -> int:
    """One batch and up to 40 calls on it; the number of calls."""
    system = rng.choice(SYSTEMS) if rng.random() < 0.95 else "no-such-system"
    golds = [gold(rng) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.15:
        batch = call(tp.OracleBatch.without_gold, [some_int(rng, 9) for _ in range(rng.randint(0, 4))], system=system)
    else:
        batch = call(
            tp.OracleBatch,
            golds,
            system=system,
            algorithm="auto" if rng.random() < 0.6 else rng.choice(["cubic", "linear", "quadratic", "goldberg", "tabular", "bogus"]),
            labels=labels_for(rng, golds),
            abandon=rng.random() < 0.5,
            max_gamma=None if rng.random() < 0.8 else rng.choice([0, 1, 8, 48]),
        )
    if batch is None:
        return 1
    COUNTS["batches"] = COUNTS.get("batches", 0) + 1
    calls = 1
    b, s = len(batch), len(batch.steps)
    for _ in range(rng.randint(1, 40)):
        calls += 1
        what = rng.random()
        if what < 0.35:
            steps: Any = [rng.choice([-1, 0, 1, 2, 3, s, s + 1, -2, 2**63 - 1]) for _ in range(b + rng.choice([0, 0, 0, 1, -1]))]
            if rng.random() < 0.5:
                dtype = rng.choice([np.int64, np.int32, np.uint64, np.float64])
                bits = 32 if dtype == np.int32 else 64
                wrapped = [x % 2**64 if dtype == np.uint64 else (x + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1) for x in steps]
                steps = np.asarray(wrapped, dtype=dtype)
            scores = call(batch.scores)
            if scores is not None and rng.random() < 0.6:
                steps = [int(np.argmax(row)) if row.max() >= 0 else -1 for row in scores]
            labels = None
            if rng.random() < 0.3:
                labels = [rng.choice([-1, 0, 1, 5, -5, 2**62]) for _ in range(b + rng.choice([0, 0, 1]))]
            call(batch.apply, steps, labels=labels)
        elif what < 0.75:
            name, width, dtype = rng.choice(
                [
                    ("scores", s, np.int64),
                    ("optimal", s, np.bool_),
                    ("static_steps", 1, np.int64),
                    ("applicable", s, np.bool_),
                    ("positions", len(tp.OracleBatch.POSITIONS), np.int64),
                    ("gold_labels", s, np.int64),
                    ("arc_heads", s, np.int64),
                ]
            )
            shape = (b,) if name == "static_steps" else (b, width)
            call(getattr(batch, name), out=out_array(rng, shape, dtype))
        elif what < 0.85:
            call(rng.choice([batch.heads, batch.labels]))
            _ = (batch.finished, batch.abandoned, batch.done, batch.lengths, batch.system, batch.algorithm)
        elif what < 0.95:
            new = [gold(rng) for _ in range(rng.randint(0, 4))]
            call(batch.reset, new, labels=labels_for(rng, new))
            b = len(batch)
        else:
            call(batch.reset_lengths, [some_int(rng, 9) for _ in range(rng.randint(0, 4))])
            b = len(batch)
    return calls


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seconds", nargs="?", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--once", action="store_true", help="run the one batch of --seed")
    args = ap.parse_args()
    tp.set_max_memory("1G")
    first = args.seed if args.seed is not None else random.randrange(2**32)
    end = time.monotonic() + args.seconds
    batches = calls = 0
    seed = first
    while True:
        try:
            calls += one_batch(random.Random(seed))
        except BaseException as e:  # noqa: BLE001 - the point: anything not allowed
            if isinstance(e, KeyboardInterrupt):
                raise
            traceback.print_exc()
            print(f"FAILED at batch seed {seed}: python fuzz/oracle_batch.py --seed {seed} --once", file=sys.stderr)
            return 1
        batches += 1
        if args.once or time.monotonic() > end:
            break
        seed = (seed + 1) % 2**32
    print(
        f"oracle_batch: {batches} batches ({COUNTS.get('batches', 0)} built), {calls} calls "
        f"({COUNTS['returned']} returned, {COUNTS['refused']} refused), seeds {first}..{seed}, no failure"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
