"""The neural parser's files: outputs that would replace an input are
refused before any work (a symbolic or hard link to it too), Ctrl-C and
out-of-memory end with a message instead of a traceback, and a model file
that is damaged or crafted is refused before any network is built."""

import hashlib
import io
import os
import subprocess
import sys
from typing import Any
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import tabula_parsing as tp  # noqa: E402
from tabula_parsing import neural  # noqa: E402
from tabula_parsing.neural import __main__ as command  # noqa: E402
from tabula_parsing.neural import parser as neural_parser  # noqa: E402
from tabula_parsing.neural import sealed as neural_sealed  # noqa: E402
from conftest import interrupt_after_first_epoch  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample.conllu"
TINY = ["--word-dim", "8", "--upos-dim", "4", "--char-dim", "0", "--lstm-dim", "8", "--mlp-dim", "8"]
NEURAL = [sys.executable, "-m", "tabula_parsing.neural"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NEURAL, *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "m.pt"
    neural.train(str(SAMPLE), path, epochs=1, dims=neural.Dimensions(word=8, upos=4, char=0, lstm=8, mlp=8))
    return path


def test_parse_refuses_to_write_over_its_input(tmp_path: Path, model: Path) -> None:
    # Regression: `parse --model m.pt in.conllu -o in.conllu` replaced the gold trees (exit 0).
    gold = tmp_path / "in.conllu"
    gold.write_bytes(SAMPLE.read_bytes())
    link = tmp_path / "link.conllu"
    link.symlink_to(gold)
    for out in (gold, link):
        r = run("parse", "--model", str(model), str(gold), "-o", str(out))
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.strip().splitlines() == [
            f"error: cannot write {out}: it is the same file as the input {gold}, which would be replaced"
        ]
    # The model is an input too.
    kept = model.read_bytes()
    r = run("parse", "--model", str(model), str(gold), "-o", str(model))
    assert r.returncode == 1 and "same file as the input" in r.stderr, r.stderr
    assert gold.read_bytes() == SAMPLE.read_bytes() and model.read_bytes() == kept
    with pytest.raises(OSError, match="same file as the input"):
        neural.load(model).parse_file(gold, gold)


def test_train_refuses_a_model_path_linked_to_an_input_before_the_first_epoch(tmp_path: Path) -> None:
    # Regression: `train TRAIN -o link.pt`, link.pt a link to TRAIN, turned the treebank into a model.
    treebank = tmp_path / "train.conllu"
    treebank.write_bytes(SAMPLE.read_bytes())
    symlink, hardlink = tmp_path / "sym.pt", tmp_path / "hard.pt"
    symlink.symlink_to(treebank)
    os.link(treebank, hardlink)
    dev = tmp_path / "dev.conllu"
    dev.write_bytes(SAMPLE.read_bytes())
    for out, extra in ((symlink, []), (hardlink, []), (dev, ["--dev", str(dev)])):
        r = run("train", str(treebank), "-o", str(out), "--epochs", "20", *TINY, *extra)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "epoch" not in r.stderr, "refused before training"
        assert f"error: cannot write {out}: it is the same file as the input" in r.stderr, r.stderr
    assert treebank.read_bytes() == SAMPLE.read_bytes() and dev.read_bytes() == SAMPLE.read_bytes()
    with pytest.raises(OSError, match="same file as the input"):
        neural.train(str(treebank), hardlink, epochs=1)


def test_ctrl_c_while_training_says_which_epoch_the_model_file_holds(tmp_path: Path) -> None:
    # Regression: a KeyboardInterrupt traceback; the model of the best epoch was there but unnamed.
    out = tmp_path / "m.pt"
    status, rest = interrupt_after_first_epoch([*NEURAL, "train", str(SAMPLE), "-o", str(out), "--epochs", "1000", *TINY])
    assert status == 130, rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest, rest
    last = rest.strip().splitlines()[-1]
    assert last.startswith(f"interrupted: {out} holds the model of epoch "), rest
    epoch = int(last.split("epoch ")[1].split(" ")[0])
    assert epoch >= 1 and neural.load(out).epoch == epoch


def test_out_of_memory_is_a_message(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def fail(*args: object, **kw: object) -> None:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")

    monkeypatch.setattr(command, "train", fail)
    assert command.main(["train", str(SAMPLE), "-o", "/dev/null"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: out of memory on cpu: CUDA out of memory.") and "--batch-size" in err, err

    class Fails:
        def parse_file(self, *args: object, **kw: object) -> None:
            raise RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory")

    monkeypatch.setattr(command, "load", lambda path: Fails())
    assert command.main(["parse", "--model", "m.pt", str(SAMPLE)]) == 1
    err = capsys.readouterr().err
    assert "out of memory" in err and "smaller --batch-size" in err and err.count("\n") == 1, err
    # Any other RuntimeError is a bug: not hidden.
    monkeypatch.setattr(command, "load", lambda path: (_ for _ in ()).throw(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        command.main(["parse", "--model", "m.pt", str(SAMPLE)])


def test_a_damaged_model_is_refused(tmp_path: Path, model: Path) -> None:
    # Regression: bytes flipped in the middle of the file loaded silently and parsed differently.
    data = bytearray(model.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 4] = bytes(b ^ 0xFF for b in data[middle : middle + 4])
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"damaged.pt: not a tabula neural model \(checksum mismatch: the file is damaged\)"):
        neural.load(damaged)
    r = run("parse", "--model", str(damaged), str(SAMPLE))
    assert r.returncode == 1 and r.stderr.strip().splitlines() == [
        f"error: {damaged}: not a tabula neural model (checksum mismatch: the file is damaged)"
    ], r.stderr


def inner_state(model: Path) -> dict:
    """The state a model file seals (its checksum checked)."""
    sealed = torch.load(model, weights_only=True)
    data = sealed["payload"].numpy().tobytes()
    assert hashlib.sha256(data).hexdigest() == sealed["sha256"]
    return torch.load(io.BytesIO(data), weights_only=True)


def test_a_model_without_checksum_still_loads(tmp_path: Path, model: Path) -> None:
    old = tmp_path / "old.pt"
    torch.save(inner_state(model), old)  # as models were written before the checksum
    loaded, reference = neural.load(old), neural.load(model)
    assert loaded.epoch == reference.epoch
    assert loaded.parse_file(SAMPLE) == reference.parse_file(SAMPLE)


def craft(state: dict, **changes: object) -> dict:
    out = dict(state)
    out.update(changes)
    return out


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: {k: v for k, v in s.items() if k != "options"}, "no `options` in it"),
        (lambda s: craft(s, options={**s["options"], "colour": "red"}), r"unknown options \['colour'\]"),
        (lambda s: craft(s, options={**s["options"], "dims": {**s["options"]["dims"], "width": 3}}), r"unknown network sizes \['width'\]"),
        (lambda s: craft(s, options={**s["options"], "dims": {**s["options"]["dims"], "lstm": 200_000}}), r"tensor `.*` has shape"),
        (lambda s: craft(s, options={**s["options"], "dims": {**s["options"]["dims"], "lstm": 10**9}}), r"network size `lstm` 1000000000"),
        (lambda s: craft(s, options={**s["options"], "dims": {**s["options"]["dims"], "layers": -1}}), r"network size `layers` -1"),
        (lambda s: craft(s, network={k: v[..., :1] if v.dim() else v for k, v in s["network"].items()}), r"tensor `.*` has shape"),
        (lambda s: craft(s, network={k: v for k, v in list(s["network"].items())[1:]}), r"its tensors are not the network's \(missing"),
        (lambda s: craft(s, vocab={}), "its vocabularies or history cannot be read"),
        (lambda s: craft(s, options={**s["options"], "parser": "magic"}), "unknown parser 'magic'"),
        (lambda s: craft(s, options={**s["options"], "system": "arc-nothing"}), "its options do not make a network"),
    ],
)
def test_a_crafted_model_is_refused_before_any_network_is_built(tmp_path: Path, model: Path, edit, message) -> None:
    crafted = tmp_path / "crafted.pt"
    torch.save(edit(inner_state(model)), crafted)
    with pytest.raises(ValueError, match=rf"crafted.pt: not a tabula neural model: {message}"):
        neural.load(crafted)
    # Sealed with a right checksum: the same checks.
    save_sealed(edit(inner_state(model)), crafted)
    with pytest.raises(ValueError, match=rf"not a tabula neural model: {message}"):
        neural.load(crafted)
    r = run("parse", "--model", str(crafted), str(SAMPLE))
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "not a tabula neural model: " in r.stderr


def save_sealed(state: Any, path: Path) -> int:
    """Saves `state` as the parser seals a model (its checksum right); the
    size of the sealed payload."""
    buf = io.BytesIO()
    torch.save(state, buf)
    payload = buf.getvalue()
    torch.save(
        {"format": neural_sealed.SEALED, "sha256": hashlib.sha256(payload).hexdigest(),
         "payload": torch.frombuffer(bytearray(payload), dtype=torch.uint8)},
        path,
    )
    return len(payload)


def test_a_file_of_another_kind_given_as_a_model_is_named(tmp_path: Path) -> None:
    p = run("parse", "--model", str(SAMPLE), str(SAMPLE))
    assert p.returncode != 0
    assert p.stderr.strip().splitlines()[-1] == f"error: {SAMPLE}: not a tabula neural model: line 4 shows a CoNLL-U treebank"
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x00\x01 not a model")
    p = run("parse", "--model", str(junk), str(SAMPLE))
    assert p.stderr.strip().splitlines()[-1].startswith(f"error: {junk}: not a tabula neural model (")


def test_tensors_that_hold_fewer_values_than_their_shape_are_refused(tmp_path: Path, model: Path) -> None:
    # An LSTM of 200,000 units whose tensors
    # had the right shapes over one stored value each (a stride of 0: a
    # 14 KB file, its checksum right) passed every check, and the parser
    # then built the network: an allocation of 640 GB.
    state = inner_state(model)
    options = {**state["options"], "dims": {**state["options"]["dims"], "lstm": 200_000}}
    vocab = neural_parser.Vocabularies.from_state(state["vocab"])
    with torch.device("meta"):
        shapes = neural_parser._network(neural_parser._options(options, "x"), vocab).state_dict()
    network = {k: torch.zeros(1, dtype=v.dtype).expand(*v.shape) if v.dim() else torch.zeros((), dtype=v.dtype) for k, v in shapes.items()}
    crafted = tmp_path / "crafted.pt"
    assert save_sealed(craft(state, options=options, network=network), crafted) < 1 << 20
    with pytest.raises(ValueError, match=r"crafted.pt: not a tabula neural model: tensor `.*` of shape .* does not hold its \d+ values in the file"):
        neural.load(crafted)
    r = run("parse", "--model", str(crafted), str(SAMPLE))
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "does not hold its" in r.stderr and "out of memory" not in r.stderr, r.stderr
