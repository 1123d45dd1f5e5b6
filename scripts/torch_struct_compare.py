"""tabula's projective CRF against torch-struct's DependencyCRF (Rush 2020) on
CPU, on the same random scores, float64, one thread.

Run through scripts/torch-struct-compare.sh, which installs torch and
torch-struct into a venv of their own (never in CI). First checks that the
two libraries agree -- log-partition, arc marginals and the best tree's
score, to 1e-9, multi-root and single-root -- and exits with status 1 if
they do not; then times a batch in interleaved rounds (each round calls
every contender once, in turn) and prints the median of the rounds.

Conventions, tabula -> torch-struct:

* tabula's scores are an (n+1)x(n+1) matrix, row = head, column =
  dependent, position 0 the root, the diagonal ignored, -inf forbidding an
  arc. torch-struct's log-potentials are n x n (head, child), word i of
  1..n at index i-1, and the root's arc into word i on the diagonal
  (i-1, i-1) (`to_torch_struct`). Its marginals come back in that layout
  (`from_torch_struct`).
* Multi-root: `grammars/projective.grammar` (Nederhof 2019, Table 3), any
  number of root children, is `DependencyCRF(..., multiroot=True)` (the
  default). Single-root: `grammars/projective-single-root.grammar`, exactly
  one root child, is `multiroot=False`. In both, arcs from the root count
  for projectivity (no arc crosses a root arc), as in first-order Eisner.
* torch-struct 0.5 stores `multiroot` on its DepTree class, not on the
  distribution: the last DependencyCRF constructed sets it for all, so each
  call below constructs its own right before using it.
* torch-struct fills absent arcs with -1e9 (not -inf); with float64 and
  scores of order 1 this weighs exp(-1e9) = 0, as -inf does.
* torch-struct 0.5 fills views of its converted potentials in place, which
  recent torch refuses on a leaf tensor unless it requires a gradient:
  the potentials are created with `requires_grad=True`.

Contenders, the same batch (B sentences of n words, `--batch`, `--n`):
tabula `Grammar.marginals_batch` (inside and outside pass in ScaledReal),
`log_partition_batch` (the inside pass), `kbest_batch(k=1)` (the max-plus
inside pass over the same real scores, plus the best tree), `Grammar.max`
(integer max-plus, the scores times 1000 rounded, one call per sentence);
torch-struct `DependencyCRF(phi).marginals` (log semiring, forward and
backward), `.partition`, `.max` (max semiring).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch_struct import DependencyCRF  # noqa: E402

import tabula_parsing as tp  # noqa: E402

TOLERANCE = 1e-9


def to_torch_struct(s: np.ndarray) -> np.ndarray:
    """tabula's (n+1)x(n+1) scores (row = head, column = dependent, row 0
    the root) to torch-struct's n x n layout (head, child; the root arcs on
    the diagonal)."""
    phi = s[1:, 1:].copy()
    np.fill_diagonal(phi, s[0, 1:])
    return phi


def from_torch_struct(m: np.ndarray) -> np.ndarray:
    """The inverse of `to_torch_struct`, for marginals (0 on tabula's diagonal)."""
    n = m.shape[0]
    out = np.zeros((n + 1, n + 1))
    out[1:, 1:] = m
    out[0, 1:] = np.diag(m)
    np.fill_diagonal(out[1:, 1:], 0.0)
    return out


def crf(phi: torch.Tensor, multiroot: bool) -> DependencyCRF:
    """A DependencyCRF over `phi`, constructed right before use (see the
    module doc on `multiroot`)."""
    return DependencyCRF(phi, multiroot=multiroot)


def check(b: int, n: int, rng: np.random.Generator) -> bool:
    """The two libraries on the same scores, multi- and single-root: prints
    the largest differences; whether all are within TOLERANCE."""
    ok = True
    scores = rng.normal(size=(b, n + 1, n + 1))
    texts_multi = [["a"] * (n + 1)] * b
    texts_single = [["root"] + ["a"] * n] * b
    phi = torch.tensor(np.stack([to_torch_struct(s) for s in scores]), dtype=torch.float64, requires_grad=True)
    for name, multiroot, texts in [
        ("projective", True, texts_multi),
        ("projective-single-root", False, texts_single),
    ]:
        g = tp.Grammar.shipped(name)
        ours_z = g.log_partition_batch(texts, scores)
        ours_m = g.marginals_batch(texts, scores)
        ours_max = np.array([best[0][0] for best in g.kbest_batch(texts, scores, 1)])
        theirs_z = crf(phi, multiroot).partition.detach().numpy()
        theirs_m = crf(phi, multiroot).marginals.detach().numpy()
        theirs_max = crf(phi, multiroot).max.detach().numpy()
        diff_z = float(np.abs(ours_z - theirs_z).max())
        diff_m = max(float(np.abs(m - from_torch_struct(t)).max()) for m, t in zip(ours_m, theirs_m))
        diff_max = float(np.abs(ours_max - theirs_max).max())
        good = max(diff_z, diff_m, diff_max) <= TOLERANCE
        ok &= good
        print(
            f"{'agree' if good else 'DIFFER'}: {name} (multiroot={multiroot}), batch {b}, n = {n}: largest |difference| "
            f"log-partition {diff_z:.1e}, marginals {diff_m:.1e}, best score {diff_max:.1e}"
        )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=11, help="interleaved timing rounds (the median is printed)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    print(f"torch {torch.__version__}, one thread (torch threads {torch.get_num_threads()}, "
          f"RAYON_NUM_THREADS={os.environ['RAYON_NUM_THREADS']})")
    ok = all([check(3, 1, rng), check(8, 7, rng), check(args.batch, args.n, rng)])

    b, n = args.batch, args.n
    scores = rng.normal(size=(b, n + 1, n + 1))
    g = tp.Grammar.shipped("projective")
    texts = [["a"] * (n + 1)] * b
    phi = torch.tensor(np.stack([to_torch_struct(s) for s in scores]), dtype=torch.float64, requires_grad=True)
    integer = [np.round(s * 1000).astype(np.int64) for s in scores]
    contenders = {
        "tabula marginals_batch": lambda: g.marginals_batch(texts, scores),
        "tabula log_partition_batch": lambda: g.log_partition_batch(texts, scores),
        "tabula kbest_batch k=1 (real max-plus)": lambda: g.kbest_batch(texts, scores, 1),
        "tabula max (integer max-plus, per sentence)": lambda: [g.max(t, w) for t, w in zip(texts, integer)],
        "torch-struct marginals": lambda: crf(phi, True).marginals,
        "torch-struct partition": lambda: crf(phi, True).partition,
        "torch-struct max": lambda: crf(phi, True).max,
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for f in contenders.values():
        f()  # warm-up
    for _ in range(args.rounds):
        for name, f in contenders.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"\nbatch {b}, n = {n}, median of {args.rounds} interleaved rounds:")
    for name, t in median.items():
        print(f"{name:46} {t * 1e3:9.2f} ms  {b / t:9.0f} sentences/s")
    print(
        f"\nmarginals throughput, tabula / torch-struct: "
        f"{median['torch-struct marginals'] / median['tabula marginals_batch']:.1f}x"
    )
    print(
        f"log-partition throughput, tabula / torch-struct: "
        f"{median['torch-struct partition'] / median['tabula log_partition_batch']:.1f}x"
    )
    print(
        f"max throughput, tabula kbest_batch k=1 / torch-struct max: "
        f"{median['torch-struct max'] / median['tabula kbest_batch k=1 (real max-plus)']:.1f}x"
    )
    print(
        f"tabula marginals / max-plus time: "
        f"{median['tabula marginals_batch'] / median['tabula kbest_batch k=1 (real max-plus)']:.1f}x (kbest_batch k=1), "
        f"{median['tabula marginals_batch'] / median['tabula max (integer max-plus, per sentence)']:.1f}x (integer max)"
    )
    if not ok:
        print("the two libraries disagree beyond", TOLERANCE, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
