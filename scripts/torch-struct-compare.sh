#!/usr/bin/env bash
# tabula's projective CRF beside torch-struct's DependencyCRF (Rush 2020) on
# CPU: the same random scores, float64, one thread. Checks that the two agree
# (log-partition, arc marginals and the best tree's score to 1e-9, multi-root
# and single-root), then times a batch (default 32 sentences of n = 40).
# scripts/torch_struct_compare.py documents the two libraries' conventions.
#
# Installs torch, torch-struct, numpy and maturin from PyPI into a venv of
# its own (TORCH_VENV, default /tmp/torch-venv; the first run only: the
# PyPI torch wheel brings CUDA libraries, several GB), then builds and
# installs tabula-parsing from ./python into it. Not part of CI.
#
# Usage: scripts/torch-struct-compare.sh [--batch 32] [--n 40] [--rounds 11] [--seed 1]
# (from the repository root). Environment: TORCH_VENV, NICE (default 19:
# the build and the run), SKIP_BUILD=1 (reuse the installed tabula-parsing).
set -euo pipefail
VENV=${TORCH_VENV:-/tmp/torch-venv}
NICE=${NICE:-19}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c "import torch, torch_struct, numpy, maturin" 2>/dev/null; then
    nice -n "$NICE" "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check torch torch-struct numpy maturin
fi
if [ -z "${SKIP_BUILD:-}" ]; then
    PATH="$VENV/bin:$PATH" VIRTUAL_ENV="$VENV" nice -n "$NICE" "$VENV/bin/python" -m pip install --quiet \
        --disable-pip-version-check --force-reinstall --no-deps --no-build-isolation ./python
fi
uptime
RAYON_NUM_THREADS=1 OMP_NUM_THREADS=1 nice -n "$NICE" "$VENV/bin/python" scripts/torch_struct_compare.py "$@"
uptime
