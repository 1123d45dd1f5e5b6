"""Arc marginals of the projective CRF: tabula (the outside pass over
grammars/projective.grammar, Grammar.marginals_batch) against torch-struct's
DependencyCRF (Rush 2020) on CPU, on the same random scores, one thread.

Run through python/bench/torch_struct.sh, which installs torch-struct into a
separate venv (never in CI). Prints the times, the throughputs and the
largest differences between the two libraries' log-partitions and marginals.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch_struct import DependencyCRF  # noqa: E402

import tabula_parsing as tp  # noqa: E402


def best_time(f, repeat: int) -> float:
    """The minimum wall time of `repeat` calls, after one warm-up call."""
    f()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def to_torch_struct(s: np.ndarray) -> np.ndarray:
    """tabula's (n+1)x(n+1) scores (row = head, column = dependent, row 0 the
    root) to torch-struct's n x n layout (head, child; the root arcs on the
    diagonal)."""
    phi = s[1:, 1:].copy()
    np.fill_diagonal(phi, s[0, 1:])
    return phi


def from_torch_struct(m: np.ndarray) -> np.ndarray:
    """The inverse of `to_torch_struct` for marginals."""
    n = m.shape[0]
    out = np.zeros((n + 1, n + 1))
    out[1:, 1:] = m
    out[0, 1:] = np.diag(m)
    np.fill_diagonal(out[1:, 1:], 0.0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    b, n = args.batch, args.n
    rng = np.random.default_rng(args.seed)
    scores = rng.normal(size=(b, n + 1, n + 1))

    g = tp.Grammar.shipped("projective")
    texts = [["a"] * (n + 1)] * b
    # requires_grad: torch-struct 0.5 (2021) fills views of its converted
    # potentials in place, which recent torch refuses for a leaf tensor.
    phi = torch.tensor(np.stack([to_torch_struct(s) for s in scores]), dtype=torch.float64, requires_grad=True)

    ours = g.marginals_batch(texts, scores)
    ours_z = g.log_partition_batch(texts, scores)
    theirs = DependencyCRF(phi).marginals.detach().numpy()
    theirs_z = DependencyCRF(phi).partition.detach().numpy()
    diff_m = max(np.abs(m - from_torch_struct(t)).max() for m, t in zip(ours, theirs))
    diff_z = np.abs(ours_z - theirs_z).max()

    integer = [np.round(s * 1000).astype(np.int64) for s in scores]
    times = {
        "tabula marginals_batch": best_time(lambda: g.marginals_batch(texts, scores), args.repeat),
        "tabula log_partition_batch": best_time(lambda: g.log_partition_batch(texts, scores), args.repeat),
        "tabula max (max-plus, one call per sentence)": best_time(
            lambda: [g.max(t, w) for t, w in zip(texts, integer)], args.repeat
        ),
        "torch-struct DependencyCRF.marginals": best_time(lambda: DependencyCRF(phi).marginals, args.repeat),
        "torch-struct DependencyCRF.partition": best_time(lambda: DependencyCRF(phi).partition, args.repeat),
    }
    print(f"batch {b}, n = {n}, one thread (RAYON_NUM_THREADS={os.environ['RAYON_NUM_THREADS']}, torch threads 1)")
    print(f"torch {torch.__version__}; largest |difference|: log-partition {diff_z:.1e}, marginals {diff_m:.1e}")
    for name, t in times.items():
        print(f"{name:46} {t * 1e3:9.2f} ms  {b / t:9.0f} sentences/s")
    ratio = times["torch-struct DependencyCRF.marginals"] / times["tabula marginals_batch"]
    print(f"marginals: tabula {ratio:.1f}x torch-struct's throughput")


if __name__ == "__main__":
    main()
