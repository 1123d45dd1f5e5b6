"""The tree CRF layer (tabula_parsing.crf.TreeCRF) beside torch-struct's
DependencyCRF (Rush 2020): forward and backward of log Z on batches of real
sentence lengths, in float32 and float64, on the same scores.

Batches are cut as the neural parser's training cuts them (sentences
sorted by length, 32 per batch), from the lengths of a CoNLL-U file; a
sample of them is timed in interleaved rounds (each round runs every
contender on every batch in turn) and the median of the rounds is printed,
per batch and per sentence. ``tabula`` takes torch-struct's layout
(``TreeCRF.from_torch_struct``, its copies timed); ``tabula-layout`` the
same scores already in tabula's (root row 0), as a graph-based parser's
scorer gives them. Both sides get the same number of threads
(``--threads``: rayon's for tabula, PyTorch's for torch-struct). Before
timing, the two are checked to agree on log Z and its gradient.

    python python/bench/crf_layer.py en_ewt-ud-train.conllu [--batches 20]
        [--rounds 5] [--threads 1] [--device cpu|cuda] [--trees projective]
        [--per-batch]

``--trees``: ``projective`` (torch-struct's multiroot=True) or
``projective-single-root`` (multiroot=False); ``nonprojective`` and
``nonprojective-single-root`` time tabula's Matrix-Tree layer beside
torch-struct's NonProjectiveDependencyCRF (multiroot=True, False).
Needs torch and torch-struct (``pip install torch torch-struct``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any, Callable

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("treebank")
parser.add_argument("--batches", type=int, default=20, help="batches timed [default: 20]")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--device", default="cpu")
parser.add_argument("--trees", default="projective")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--per-batch", action="store_true", help="also the median of each batch alone, longest sentence first")
args = parser.parse_args()
os.environ["RAYON_NUM_THREADS"] = str(args.threads)

import torch  # noqa: E402
import torch_struct  # noqa: E402

import tabula_parsing as tp  # noqa: E402
from tabula_parsing.crf import TreeCRF  # noqa: E402

torch.set_num_threads(args.threads)
rng = random.Random(args.seed)
lengths = sorted(len(s) for s in tp.read_conllu(args.treebank))
cut = [lengths[k : k + args.batch_size] for k in range(0, len(lengths), args.batch_size)]
chosen = rng.sample(cut, min(args.batches, len(cut)))
device = torch.device(args.device)


def torch_struct_crf(phi: torch.Tensor, n: torch.Tensor) -> Any:
    multiroot = args.trees in ("projective", "nonprojective")
    if args.trees.startswith("nonprojective"):
        return torch_struct.NonProjectiveDependencyCRF(phi, n, multiroot=multiroot)
    return torch_struct.DependencyCRF(phi, n, multiroot=multiroot)


def ours(phi: torch.Tensor, scores: torch.Tensor, n: torch.Tensor) -> None:
    crf = TreeCRF.from_torch_struct(phi, n, trees=args.trees)
    crf.partition.sum().backward()


def ours_own_layout(phi: torch.Tensor, scores: torch.Tensor, n: torch.Tensor) -> None:
    TreeCRF(scores, n, trees=args.trees).partition.sum().backward()


def theirs(phi: torch.Tensor, scores: torch.Tensor, n: torch.Tensor) -> None:
    torch_struct_crf(phi, n).partition.sum().backward()


def own_layout(phi: torch.Tensor) -> torch.Tensor:
    """The same scores in tabula's layout (root row 0), as a graph-based
    parser's scorer gives them: a leaf of its own, converted untimed."""
    with torch.no_grad():
        scores = TreeCRF.from_torch_struct(phi, None).scores
    return scores.clone().requires_grad_(True)


def batch(ns: list[int], dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(sum(ns))
    phi = torch.randn(len(ns), max(ns), max(ns), generator=g, dtype=dtype).to(device).requires_grad_(True)
    return phi, torch.tensor(ns, device=device)


def check() -> None:
    """log Z and its gradient agree (float64, the first batch; for all
    trees, every sentence at the batch's full length, since torch-struct's
    Matrix-Tree masks padding with finite scores, which leave it about 1e-4
    from the exact value on shorter sentences)."""
    phi, n = batch(chosen[0], torch.float64)
    if args.trees.startswith("nonprojective"):
        n = torch.full_like(n, int(n.max()))
    a = TreeCRF.from_torch_struct(phi, n, trees=args.trees).partition
    (ga,) = torch.autograd.grad(a.sum(), phi)
    b = torch_struct_crf(phi, n).partition
    (gb,) = torch.autograd.grad(b.sum(), phi)
    mask = torch.zeros_like(ga, dtype=torch.bool)
    for i, k in enumerate(n.tolist()):
        mask[i, :k, :k] = True
    dz, dg = float((a - b).detach().abs().max()), float((ga - gb)[mask].abs().max())
    print(f"agreement on batch 1 (float64): |log Z difference| {dz:.1e}, |gradient difference| {dg:.1e}")
    # torch-struct's Matrix-Tree layer works on a perturbed Laplacian (about
    # 1e-5 off, where tabula's is exact to 1e-9 against enumeration).
    tolerance = 1e-3 if args.trees.startswith("nonprojective") else 1e-6
    if dz > tolerance or dg > tolerance:
        sys.exit("the two layers disagree")


def sync() -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


check()
words = sum(sum(ns) for ns in chosen)
print(
    f"{len(chosen)} batches of {args.batch_size} sentences ({words} words, lengths {min(map(min, chosen))}-"
    f"{max(map(max, chosen))}), {args.trees}, {args.threads} thread(s), {args.device}, torch {torch.__version__}"
)
for dtype in (torch.float32, torch.float64):
    data = [(phi, own_layout(phi), n) for phi, n in (batch(ns, dtype) for ns in chosen)]
    contenders: dict[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], None]] = {
        "tabula": ours,
        "tabula-layout": ours_own_layout,
        "torch-struct": theirs,
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for f in contenders.values():
        f(*data[0])  # warm-up
    for _ in range(args.rounds):
        for name, f in contenders.items():
            sync()
            start = time.perf_counter()
            for phi, scores, n in data:
                phi.grad = scores.grad = None
                f(phi, scores, n)
            sync()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, t in median.items():
        print(
            f"{str(dtype):14} {name:13} {1e3 * t / len(data):8.2f} ms per batch  "
            f"{len(data) * args.batch_size / t:8.0f} sentences/s  (rounds: "
            + " ".join(f"{1e3 * x / len(data):.1f}" for x in times[name])
            + ")"
        )
    print(
        f"{str(dtype):14} tabula / torch-struct throughput: {median['torch-struct'] / median['tabula']:.2f}x "
        f"(from torch-struct's layout), {median['torch-struct'] / median['tabula-layout']:.2f}x (tabula's layout)"
    )
    if args.per_batch:
        for phi, scores, n in sorted(data, key=lambda x: -int(x[2].max())):
            each: dict[str, list[float]] = {name: [] for name in contenders}
            for _ in range(args.rounds):
                for name, f in contenders.items():
                    phi.grad = scores.grad = None
                    sync()
                    start = time.perf_counter()
                    f(phi, scores, n)
                    sync()
                    each[name].append(time.perf_counter() - start)
            print(
                f"{str(dtype):14} lengths {int(n.min())}-{int(n.max())}: "
                + ", ".join(f"{name} {1e3 * statistics.median(t):.2f} ms" for name, t in each.items())
            )
