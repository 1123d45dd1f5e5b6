"""Neural models exported to ONNX and parsed by the command line (tract, no
Python): the same CoNLL-U as the Python parser's, byte for byte, for the
biaffine parser and the transition parser of every system. Skipped
without torch or onnx (PyTorch's exporter needs the onnx package), and the
command line's part where `tabula` was built without the `onnx` feature
(a failure instead with TABULA_REQUIRE_ONNX=1, as CI sets)."""

import json
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

import tabula_parsing as tp  # noqa: E402
from tabula_parsing import neural  # noqa: E402
from tabula_parsing.neural.export import export  # noqa: E402
from conftest import run  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample.conllu"
TINY = neural.Dimensions(word=16, upos=8, char=8, char_filters=8, lstm=16, mlp=16, arc_mlp=16, dropout=0.0)


@pytest.fixture
def onnx_cli(cli):
    """The command line, if it parses ONNX models."""
    p = run(cli, "parse", "--model", str(REPO / "tests" / "data" / "tiny-biaffine.onnx"), str(SAMPLE), check=False)
    if "built with the `onnx` feature" in p.stderr:
        why = "tabula was built without the onnx feature (cargo build --release --features onnx)"
        if os.environ.get("TABULA_REQUIRE_ONNX"):
            pytest.fail(why)
        pytest.skip(why)
    return cli


@pytest.mark.parametrize("trees", ["nonprojective-single-root", "projective", "nonprojective", "grammar file"])
def test_the_command_line_parses_an_exported_model_as_python_does(tmp_path, onnx_cli, trees):
    if trees == "grammar file":
        # The grammar's text travels in the model (a user's file, here the shipped one).
        trees = str(tmp_path / "mine.grammar")
        Path(trees).write_text((REPO / "grammars" / "projective.grammar").read_text())
    model = neural.train(str(SAMPLE), parser="biaffine", trees=trees, epochs=2, seed=1, dims=TINY)
    _exported_parses_as_python(model, SAMPLE, tmp_path / "tiny.onnx", onnx_cli)


def _exported_parses_as_python(model, sample, onnx_path, cli):
    """The model exported (the check's scores close) and parsed by the
    command line on 1 and 3 threads: the Python parser's bytes."""
    worst = export(model, onnx_path, check=tp.read_conllu(sample))
    assert worst < 1e-5
    expected = model.parse_file(sample)
    for threads in ("1", "3"):
        out = run(cli, "parse", "--model", str(onnx_path), str(sample), "--threads", threads).stdout
        assert out == expected


@pytest.mark.parametrize("width", [24, 7, 3, 1])
def test_the_exported_character_encoder_is_the_network_s(width):
    """The export's character encoder (one product over windows, pairwise
    maxima) gives the network's numbers, padding and all-padding words
    included, for odd and even widths."""
    from tabula_parsing.neural.export import _chars
    from tabula_parsing.neural.model import CharEncoder

    torch.manual_seed(1)
    encoder = CharEncoder(40, 8, 6).eval()
    chars = torch.randint(1, 40, (50, width))
    chars[:, width // 2 + 1 :] = 0
    chars[3] = 0
    with torch.no_grad():
        assert torch.allclose(_chars(encoder, chars), encoder(chars), atol=1e-6)


def test_export_leaves_the_model_as_it_was(tmp_path):
    """Export works on a copy: the caller's network keeps its mode (a
    model exported in the middle of training goes on training) and its
    weights, and exporting it again writes the same file."""
    model = neural.train(str(SAMPLE), parser="biaffine", epochs=1, seed=1, dims=TINY)
    model.net.train()
    before = {k: v.clone() for k, v in model.net.state_dict().items()}
    export(model, tmp_path / "a.onnx")
    assert model.net.training
    assert all(torch.equal(before[k], v) for k, v in model.net.state_dict().items())
    export(model, tmp_path / "b.onnx")
    assert (tmp_path / "a.onnx").read_bytes() == (tmp_path / "b.onnx").read_bytes()


def test_an_exported_model_refuses_the_perceptrons_options(tmp_path, onnx_cli):
    model = neural.train(str(SAMPLE), parser="biaffine", epochs=1, seed=1, dims=TINY)
    onnx_path = tmp_path / "tiny.onnx"
    export(model, onnx_path)
    p = run(onnx_cli, "parse", "--model", str(onnx_path), str(SAMPLE), "--beam", "4", check=False)
    assert p.returncode != 0 and "--beam 4 has no effect with a neural model" in p.stderr
    p = run(onnx_cli, "parse", "--model", str(onnx_path), str(SAMPLE), "--constraints", check=False)
    assert p.returncode != 0 and "--constraints has no effect with a neural model" in p.stderr


def test_a_file_that_is_not_an_exported_model_is_named(tmp_path, onnx_cli):
    bogus = tmp_path / "bogus.onnx"
    bogus.write_bytes(b"\x08\x07garbage that is no protobuf \xff\xff\xff")
    p = run(onnx_cli, "parse", "--model", str(bogus), str(SAMPLE), check=False)
    assert p.returncode != 0
    assert f"{bogus}: not a tabula neural model in ONNX" in p.stderr
    conllu = tmp_path / "model.onnx"
    conllu.write_text(SAMPLE.read_text())
    p = run(onnx_cli, "parse", "--model", str(conllu), str(SAMPLE), check=False)
    assert p.returncode != 0 and "not a tabula neural model in ONNX: line 4 shows a CoNLL-U treebank" in p.stderr


@pytest.mark.parametrize(
    "system, extra",
    [
        ("arc-hybrid", {}),
        ("arc-standard", {"feats": True}),
        ("arc-eager", {}),
        ("arc-eager-nm", {}),
        ("lr-spine", {}),
        ("attardi", {}),
        ("arc-hybrid", {"pseudo_projective": "head+path"}),
    ],
)
def test_the_command_line_parses_an_exported_transition_model_as_python_does(tmp_path, onnx_cli, system, extra):
    sample = SAMPLE
    if extra.get("feats"):
        # The sample with a FEATS column to read (made from UPOS).
        sample = tmp_path / "feats.conllu"
        rows = [line.split("\t") for line in SAMPLE.read_text().splitlines()]
        sample.write_text("".join("\t".join(r[:5] + [f"Pos={r[3]}"] + r[6:]) + "\n" if len(r) == 10 else r[0] + "\n" for r in rows))
    dims = neural.Dimensions(word=16, upos=8, feats=8 if extra.get("feats") else 0, char=8, char_filters=8, lstm=16, mlp=16, dropout=0.0)
    model = neural.train(str(sample), system=system, epochs=2, seed=3, dims=dims, **extra)
    _exported_parses_as_python(model, sample, tmp_path / "tiny.onnx", onnx_cli)


def test_a_transition_model_of_other_steps_is_refused(tmp_path, onnx_cli):
    onnx = pytest.importorskip("onnx")
    model = neural.train(str(SAMPLE), epochs=1, seed=1, dims=neural.Dimensions(word=8, upos=4, char=0, lstm=8, mlp=8))
    path = tmp_path / "t.onnx"
    export(model, path)
    proto = onnx.load(str(path))
    entry = next(p for p in proto.metadata_props if p.key == "tabula")
    meta = json.loads(entry.value)
    meta["steps"] = list(reversed(meta["steps"]))
    entry.value = json.dumps(meta)
    onnx.save(proto, str(path))
    p = run(onnx_cli, "parse", "--model", str(path), str(SAMPLE), check=False)
    assert p.returncode != 0
    assert "not a tabula neural model in ONNX: its steps (right_arc left_arc shift) are not arc-hybrid's" in p.stderr


def test_the_command_line_tags_first_as_python_does(tmp_path, onnx_cli):
    tagger = tmp_path / "tagger.json"
    run(onnx_cli, "train-tagger", str(SAMPLE), "-o", str(tagger))
    model = neural.train(str(SAMPLE), parser="biaffine", epochs=1, seed=2, dims=TINY)
    onnx_path = tmp_path / "tiny.onnx"
    export(model, onnx_path)
    expected = model.parse_file(SAMPLE, tagger=str(tagger))
    out = run(onnx_cli, "parse", "--model", str(onnx_path), "--tagger", str(tagger), str(SAMPLE)).stdout
    assert out == expected
