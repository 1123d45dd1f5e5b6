#!/usr/bin/env bash
# Arc marginals of the projective CRF, tabula against torch-struct (CPU, one
# thread): python/bench/marginals.py in a venv of its own (target/bench-venv),
# with torch-struct and numpy from PyPI and tabula-parsing built from
# ./python. Not part of CI. torch from PyPI brings CUDA libraries (about
# 5 GB); to avoid them, install the CPU wheel into the venv first
# (pip install torch --index-url https://download.pytorch.org/whl/cpu).
# Arguments go to marginals.py (--batch, --n, --repeat, --seed).
set -euo pipefail
VENV=${TABULA_BENCH_VENV:-target/bench-venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check torch-struct numpy
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ./python
RAYON_NUM_THREADS=1 "$VENV/bin/python" python/bench/marginals.py "$@"
