"""Parsing speed of a neural model (``tabula_parsing.neural``): words per CPU
second and per second of wall time for each batch size, one PyTorch thread,
after the model is loaded; every size runs twice and the second pass is
reported (the first warms the allocator and the caches).

    python python/bench/neural_parse_speed.py MODEL.pt TEST.conllu [--batch-sizes 32,64,128] [--device cpu]

Run from the repository root with the ``torch`` extra installed; the parses
go to a temporary file.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tabula_parsing import neural


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("test")
    p.add_argument("--batch-sizes", default="32,64,128")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    sizes = [int(x) for x in args.batch_sizes.split(",")]
    with open(args.test, encoding="utf-8") as f:
        words = sum(1 for line in f if line.split("\t", 1)[0].isdigit())
    parser = neural.load(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "parsed.conllu")
        for rep in range(2):
            for size in sizes:
                cpu, wall = time.process_time(), time.perf_counter()
                parser.parse_file(args.test, out, batch_size=size, threads=1, device=args.device)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                if rep == 1:
                    print(f"batches of {size}: {words / cpu:.0f} words per CPU second, {words / wall:.0f} per second")


if __name__ == "__main__":
    main()
