#!/usr/bin/env bash
# The neural parser (tabula_parsing.neural) and the tree CRF layer
# (tabula_parsing.crf), after python.sh has installed the package in
# target/venv: PyTorch and torch-struct (the peer the layer is compared with)
# from the package registry (the build it serves; about a minute and 5 GB
# with its CUDA libraries), the neural and layer tests
# (the minibatch oracle's own tests run in python.sh), the shipped sweep
# plans that name a neural parser, mypy on the neural
# package, and a tiny model trained and used from the command line on
# data/sample.conllu.
set -euo pipefail
VENV=${TABULA_VENV:-target/venv}
VENV=$(cd "$VENV" && pwd)
export VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH"
python -c 'import tabula_parsing' # installed by python.sh
python -m pip install --quiet --disable-pip-version-check torch torch-struct onnx
python -c 'import torch; print("torch", torch.__version__, "cuda" if torch.cuda.is_available() else "cpu")'
python -m mypy --strict --cache-dir target/mypy-cache python/tabula_parsing/neural python/tabula_parsing/crf.py
# The command line with the cargo feature onnx (off by default): its Rust
# test, which also builds the target/release/tabula that test_onnx.py and the
# docs' ONNX example run (the checks after this one use it too; it does all
# the default build does). draw.sh, before this one, rebuilds the default.
cargo test --release --features onnx --test cli_onnx
# Every test that needs PyTorch (python.sh ran before it was installed, so
# skipped these): the neural parsers, their files and checkpoints, the layer,
# ONNX, the check over every neural keyword, the plans that name a neural parser.
TABULA_REQUIRE_ONNX=1 python -m pytest -q python/tests/test_neural.py python/tests/test_neural_files.py \
  python/tests/test_neural_checkpoint.py python/tests/test_crf.py python/tests/test_onnx.py \
  "python/tests/test_sweep.py::test_shipped_plans_are_valid"
python -m pytest -q python/tests/test_keywords_act.py -k neural
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python -m tabula_parsing.neural train data/sample.conllu -o "$out/model.pt" --dev data/sample.conllu \
  --epochs 2 --word-dim 16 --lstm-dim 16 --mlp-dim 16 --char-dim 8 --seed 1
python -m tabula_parsing.neural parse --model "$out/model.pt" data/sample.conllu -o "$out/parsed.conllu"
target/release/tabula eval data/sample.conllu "$out/parsed.conllu"
# The biaffine parser through the tree CRF layer (Matrix-Tree and a grammar's), tiny.
for trees in nonprojective-single-root projective-single-root; do
  python -m tabula_parsing.neural train data/sample.conllu -o "$out/biaffine.pt" --dev data/sample.conllu \
    --parser biaffine --trees "$trees" --epochs 2 --word-dim 16 --lstm-dim 16 --mlp-dim 16 --arc-mlp-dim 16 \
    --char-dim 8 --seed 1
  python -m tabula_parsing.neural parse --model "$out/biaffine.pt" data/sample.conllu -o "$out/biaffine.conllu"
  target/release/tabula eval data/sample.conllu "$out/biaffine.conllu"
done
