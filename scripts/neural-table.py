#!/usr/bin/env python3
"""The tables of docs/neural.md from scripts/neural-experiments.sh's rows:
per treebank and variant, the mean over the seeds and, in parentheses, the
standard deviation (n − 1) of test UAS, LAS and the recall of the gold
non-projective arcs, with the number of seeds, the epochs kept, an epoch's
CPU seconds and the oracle's share of it.

Usage: scripts/neural-table.py [RESULTS.tsv]   (default target/neural-experiments/results.tsv)
"""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict


def spread(values: list[float]) -> str:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.2f}"
    return f"{mean:.2f} ({statistics.stdev(values):.2f})"


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "target/neural-experiments/results.tsv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    groups: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        groups[row["treebank"]][row["variant"]].append(row)
    for treebank, variants in groups.items():
        print(f"\n{treebank}\n")
        print("| variant | seeds | test UAS | test LAS | non-projective recall | epochs kept | epoch CPU s | oracle % |")
        print("|---|---|---|---|---|---|---|---|")
        for variant, runs in variants.items():
            cells = [spread([float(r[k]) for r in runs]) for k in ("uas", "las", "np_recall")]
            kept = ", ".join(r["epoch"] for r in runs)
            timed = [r for r in runs if r["epoch_cpu_s"] != "-"]
            cpu = f"{statistics.fmean(float(r['epoch_cpu_s']) for r in timed):.1f}" if timed else "-"
            share = f"{statistics.fmean(float(r['oracle_pct']) for r in timed):.1f}" if timed else "-"
            print(f"| {variant} | {len(runs)} | {' | '.join(cells)} | {kept} | {cpu} | {share} |")


if __name__ == "__main__":
    main()
