"""Speed of the Python package against the Rust command line (issue 9, item 4).

    python python/bench/bench.py [--ud ../shared/ud/v2.2] [--runs 5]

Run from the repository root after `cargo build --release` and `pip install
./python`. Three measurements, each the median of --runs runs:

1. per step: a walk over de_gsd-ud-test (projectivized) with one Session per
   sentence, `scores()` at every configuration whose stack has two or more
   elements and `apply(step)` at every step (the steps recorded beforehand,
   so that only the package's calls are timed), per timed configuration,
   against `tabula oracle --walk ... --projectivize --session --json`, whose
   `mean_us` counts the same things (set-up, every `apply`, every `scores`);
2. a batch: `Oracle.scores_batch` over all configurations of that walk
   against the one-shot walk `tabula oracle --walk ... --projectivize --json`
   (mean_us × configurations), with the default thread count and with one
   thread (RAYON_NUM_THREADS=1);
3. `read_conllu` + `projectivize_batch` + `write_conllu` over en_ewt-ud-train
   against `tabula projectivize FILE -o OUT --threads T` (wall-clock time of the
   process), with one thread and with as many as the machine has cores.

Each Python measurement runs in a fresh interpreter (so that
RAYON_NUM_THREADS applies), after one untimed warm-up call; Rust and Python
runs alternate, so that both see the same load on a shared machine. The
treebanks are decompressed into a temporary folder and never written elsewhere.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "tabula"


def walk_steps(trees, system: str):
    """For each tree, the steps of one computation along optimal steps (a
    seeded choice among them) and, per step, whether scores were asked
    (stack of two or more, as the Rust walk times them)."""
    import tabula_parsing as tp

    rng = random.Random(1)
    plans = []
    for tree in trees:
        s = tp.Session(tree, system=system)
        plan = []
        while not s.is_final:
            timed = len(s.stack) >= 2
            step = rng.choice(s.optimal()) if timed else "shift"
            plan.append((timed, step))
            s.apply(step)
        plans.append(plan)
    return plans


def python_per_step(path: str, runs: int) -> dict:
    import tabula_parsing as tp

    sentences = tp.read_conllu(path)
    trees = tp.projectivize_batch(sentences)
    plans = walk_steps(trees, "arc-standard")
    configurations = sum(t for plan in plans for t, _ in plan)
    times = []
    for _ in range(runs + 1):  # the first run warms up (oracle pool, caches) and is dropped
        t0 = time.perf_counter()
        for tree, plan in zip(trees, plans):
            s = tp.Session(tree)
            for timed, step in plan:
                if timed:
                    s.scores()
                s.apply(step)
        times.append(time.perf_counter() - t0)
    return {"configurations": configurations, "seconds": times[1:]}


def python_batch(path: str, runs: int) -> dict:
    import tabula_parsing as tp

    sentences = tp.read_conllu(path)
    trees = tp.projectivize_batch(sentences)
    plans = walk_steps(trees, "arc-standard")
    configs, golds = [], []
    for tree, plan in zip(trees, plans):
        c = tp.Configuration.initial(len(tree))
        for timed, step in plan:
            if timed:
                configs.append(c.copy())
                golds.append(tree)
            c.apply(step)
    oracle = tp.Oracle()
    oracle.scores_batch(configs, golds)  # warm-up: the threads' oracles
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        oracle.scores_batch(configs, golds)
        times.append(time.perf_counter() - t0)
    return {"configurations": len(configs), "seconds": times}


def python_projectivize(path: str, runs: int) -> dict:
    import tabula_parsing as tp

    out = Path(path).with_name("py.out.conllu")
    tp.projectivize_batch([[2, 0, 1]])  # warm-up: the threads' engines
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sentences = tp.read_conllu(path)
        trees = tp.projectivize_batch(sentences)
        tp.write_conllu(out, sentences, trees)
        times.append(time.perf_counter() - t0)
    return {"seconds": times}


def in_subprocess(what: str, path: Path, runs: int, threads: int | None) -> dict:
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    p = subprocess.run(
        [sys.executable, __file__, "--inner", what, str(path), "--runs", str(runs)],
        env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(p.stdout)


def cli_walk(path: Path, *extra: str) -> dict:
    p = subprocess.run(
        [str(CLI), "oracle", "--walk", str(path), "--projectivize", "--json", *extra],
        capture_output=True, text=True, check=True,
    )
    return json.loads(p.stdout.splitlines()[-1])


def median(xs) -> float:
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ud", default=str(ROOT.parent / "shared" / "ud" / "v2.2"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--inner", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        what, path = args.inner
        fn = {"step": python_per_step, "batch": python_batch, "projectivize": python_projectivize}[what]
        print(json.dumps(fn(path, args.runs)))
        return

    ud = Path(args.ud)
    with tempfile.TemporaryDirectory() as tmp:
        de = Path(tmp) / "de_gsd-ud-test.conllu"
        de.write_bytes(lzma.decompress((ud / "de_gsd-ud-test.conllu.xz").read_bytes()))
        en = Path(tmp) / "en_ewt-ud-train.conllu"
        en.write_bytes(lzma.decompress((ud / "en_ewt-ud-train.conllu.xz").read_bytes()))

        print(f"# machine: {os.cpu_count()} cores; medians of {args.runs} runs")

        # Rust and Python runs alternate, so that both see the same load.
        # 1. Per step.
        rust_us, py_us = [], []
        for i in range(args.runs):
            rust_us.append(cli_walk(de, "--session", "--algorithm", "linear", "--seed", str(i))["mean_us"])
            py = in_subprocess("step", de, 1, None)
            py_us.append(py["seconds"][0] * 1e6 / py["configurations"])
        r, p = median(rust_us), median(py_us)
        print(f"per configuration, session walk over de_gsd test ({py['configurations']} configurations): "
              f"Rust {r:.3f} µs, Python {p:.3f} µs, overhead {p - r:+.3f} µs")

        # 2. Batch over all configurations of the walk.
        for threads in (1, None):
            rust_s, py_s = [], []
            for i in range(args.runs):
                w = cli_walk(de, "--seed", str(i))
                rust_s.append(w["mean_us"] * w["configurations"] / 1e6)
                py = in_subprocess("batch", de, 1, threads)
                py_s.append(py["seconds"][0])
            r, p = median(rust_s), median(py_s)
            label = "default threads" if threads is None else f"{threads} thread"
            print(f"batch of {py['configurations']} configurations (de_gsd test walk), {label}: "
                  f"Rust walk {r * 1e3:.1f} ms, Python scores_batch {p * 1e3:.1f} ms, ratio {p / r:.2f}")

        # 3. Projectivize en_ewt train.
        out = Path(tmp) / "cli.out.conllu"
        for threads in (1, os.cpu_count() or 1):
            cli_s, py_s = [], []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                subprocess.run([str(CLI), "projectivize", str(en), "-o", str(out), "--threads", str(threads)], check=True)
                cli_s.append(time.perf_counter() - t0)
                py_s.append(in_subprocess("projectivize", en, 1, threads)["seconds"][0])
            c, p = median(cli_s), median(py_s)
            same = (Path(tmp) / "py.out.conllu").read_bytes() == out.read_bytes()
            print(f"projectivize en_ewt train, {threads} thread(s): CLI {c * 1e3:.0f} ms, "
                  f"Python {p * 1e3:.0f} ms, ratio {p / c:.2f}, same output: {same}")


if __name__ == "__main__":
    main()
