"""Makes the exported models tests/cli_onnx.rs parses: tiny-biaffine.onnx
(a biaffine model, sizes 8–16, two epochs on data/sample.conllu, trees
nonprojective-single-root) and tiny-arc-eager.onnx (a transition model,
arc-eager, sizes 4–8, two epochs), each with its .expected.conllu, the
Python parser's output for the sample. Run from the repository root, with
PyTorch and onnx installed, after a change to the exported format:

    python scripts/onnx-fixtures.py
"""

from pathlib import Path

from tabula_parsing import neural
from tabula_parsing.neural.export import export

SAMPLE = Path("data/sample.conllu")
OUT = Path("tests/data")
MODELS = {
    "tiny-biaffine": dict(
        parser="biaffine",
        trees="nonprojective-single-root",
        dims=neural.Dimensions(word=16, upos=8, char=8, char_filters=8, lstm=16, mlp=16, arc_mlp=16, dropout=0.0),
    ),
    "tiny-arc-eager": dict(
        system="arc-eager", dims=neural.Dimensions(word=8, upos=4, char=4, char_filters=4, lstm=8, mlp=8, dropout=0.0)
    ),
}

for name, options in MODELS.items():
    model = neural.train(str(SAMPLE), epochs=2, seed=1, **options)
    export(model, OUT / f"{name}.onnx")
    model.parse_file(str(SAMPLE), str(OUT / f"{name}.expected.conllu"))
    print(f"wrote {OUT / name}.onnx and .expected.conllu")
