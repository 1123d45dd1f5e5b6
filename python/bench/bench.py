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
   against `tabula projectivize FILE -o OUT` (wall-clock time of the process),
   with one thread and the default.

Each Python measurement runs in a fresh interpreter (so that
RAYON_NUM_THREADS applies). The treebanks are decompressed into a temporary
folder and never written elsewhere.
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
    import tabula

    rng = random.Random(1)
    plans = []
    for tree in trees:
        s = tabula.Session(tree, system=system)
        plan = []
        while not s.is_final:
            timed = len(s.stack) >= 2
            step = rng.choice(s.optimal()) if timed else "shift"
            plan.append((timed, step))
            s.apply(step)
        plans.append(plan)
    return plans


def python_per_step(path: str, runs: int) -> dict:
    import tabula

    sentences = tabula.read_conllu(path)
    trees = tabula.projectivize_batch(sentences)
    plans = walk_steps(trees, "arc-standard")
    configurations = sum(t for plan in plans for t, _ in plan)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for tree, plan in zip(trees, plans):
            s = tabula.Session(tree)
            for timed, step in plan:
                if timed:
                    s.scores()
                s.apply(step)
        times.append(time.perf_counter() - t0)
    return {"configurations": configurations, "seconds": times}


def python_batch(path: str, runs: int) -> dict:
    import tabula

    sentences = tabula.read_conllu(path)
    trees = tabula.projectivize_batch(sentences)
    plans = walk_steps(trees, "arc-standard")
    configs, golds = [], []
    for tree, plan in zip(trees, plans):
        c = tabula.Configuration.initial(len(tree))
        for timed, step in plan:
            if timed:
                configs.append(c.copy())
                golds.append(tree)
            c.apply(step)
    oracle = tabula.Oracle()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        oracle.scores_batch(configs, golds)
        times.append(time.perf_counter() - t0)
    return {"configurations": len(configs), "seconds": times}


def python_projectivize(path: str, runs: int) -> dict:
    import tabula

    out = Path(path).with_name("py.out.conllu")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sentences = tabula.read_conllu(path)
        trees = tabula.projectivize_batch(sentences)
        tabula.write_conllu(out, sentences, trees)
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

        # 1. Per step.
        rust = [cli_walk(de, "--session", "--algorithm", "linear", "--seed", str(i)) for i in range(args.runs)]
        rust_us = median(r["mean_us"] for r in rust)
        py = in_subprocess("step", de, args.runs, None)
        py_us = median(py["seconds"]) * 1e6 / py["configurations"]
        print(f"per configuration, session walk over de_gsd test: Rust {rust_us:.3f} µs, "
              f"Python {py_us:.3f} µs, overhead {py_us - rust_us:+.3f} µs "
              f"({py['configurations']} configurations)")

        # 2. Batch over all configurations of the walk.
        rust = [cli_walk(de, "--seed", str(i)) for i in range(args.runs)]
        rust_s = median(r["mean_us"] * r["configurations"] for r in rust) / 1e6
        for threads in (None, 1):
            py = in_subprocess("batch", de, args.runs, threads)
            py_s = median(py["seconds"])
            label = "default threads" if threads is None else f"{threads} thread"
            print(f"batch of {py['configurations']} configurations (de_gsd test walk), {label}: "
                  f"Rust walk {rust_s * 1e3:.1f} ms, Python scores_batch {py_s * 1e3:.1f} ms, "
                  f"ratio {py_s / rust_s:.2f}")

        # 3. Projectivize en_ewt train.
        out = Path(tmp) / "cli.out.conllu"
        for threads in (1, os.cpu_count() or 1):
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                subprocess.run([str(CLI), "projectivize", str(en), "-o", str(out), "--threads", str(threads)], check=True)
                times.append(time.perf_counter() - t0)
            cli_s = median(times)
            py = in_subprocess("projectivize", en, args.runs, threads)
            py_s = median(py["seconds"])
            same = (Path(tmp) / "py.out.conllu").read_bytes() == out.read_bytes()
            print(f"projectivize en_ewt train, {threads} thread(s): CLI {cli_s * 1e3:.0f} ms, "
                  f"Python {py_s * 1e3:.0f} ms, ratio {py_s / cli_s:.2f}, same output: {same}")


if __name__ == "__main__":
    main()
