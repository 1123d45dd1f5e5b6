#!/usr/bin/env bash
# The Python package (python/: tabula-parsing), from the repository root: a venv in
# target/venv with maturin, pytest, numpy, mpmath and mypy from PyPI; clippy on the
# extension crate (rustfmt covers it through the workspace); `pip install
# ./python` (the venv's maturin builds the wheel); mypy's stubtest on the type
# stubs; mypy --strict on the package and the docs' Python examples; then
# pytest, which checks every call against target/release/tabula.
# Needs no ../shared/ud (the real-data test skips without it). Budget: about
# three minutes on a fresh machine, most of it the release build.
set -euo pipefail
VENV=${TABULA_VENV:-target/venv}
PYTHON=${PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
VENV=$(cd "$VENV" && pwd)
# The same interpreter for clippy and maturin, so pyo3's build script is not re-run.
export VIRTUAL_ENV="$VENV" PYO3_PYTHON="$VENV/bin/python" PATH="$VENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check maturin pytest numpy mpmath mypy==2.4.1
cargo clippy -p tabula-python --all-targets --release -- -D warnings
[ -x target/release/tabula ] || cargo build --release --bin tabula
python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps --no-build-isolation ./python
# The stubs match the module; the package and the example type-check strictly.
# The package and every submodule (the extension's stubs among them); the modules that
# need PyTorch are allowlisted, and importable where a venv already has it.
python -m mypy.stubtest --mypy-config-file .ci/checks/stubtest.ini --allowlist .ci/checks/stubtest-allowlist.txt --ignore-unused-allowlist tabula_parsing
# The ```python blocks of README.md, python/README.md and docs/ too (a few
# seconds): a stub narrower than the call, such as a batch call's scores
# without 3-D arrays, fails here.
rm -rf target/doc-python
python .ci/checks/doc_python.py target/doc-python
python -m mypy --strict --cache-dir target/mypy-cache --exclude "python/tabula_parsing/(neural/|crf\.py)" python/tabula_parsing examples/python/training_loop.py target/doc-python/*.py
python -m pytest -q python/tests
# OracleBatch from arbitrary arrays: 20 s of fuzz/oracle_batch.py.
python fuzz/oracle_batch.py 20
