"""Training checkpoints of the neural parsers (``train --checkpoint``): a run
continued from one ends exactly where the run without a stop ends."""

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tabula_parsing import neural  # noqa: E402
from conftest import interrupt_after_first_epoch  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample.conllu"
# Dropout on, so that PyTorch's generator matters.
DIMS = neural.Dimensions(word=16, upos=8, char=8, char_filters=8, lstm=16, mlp=16, arc_mlp=16, dropout=0.2)

# Each configuration uses every generator a run has: the batches' order
# (Python's), word dropout (NumPy's), dropout (PyTorch's); the transition
# parser's exploration (Python's); the moving average and the best epoch on
# a development file.
RUNS = {
    "transition, exploring, averaged": dict(explore_from=0, explore_p=0.5, average=0.9),
    "biaffine CRF": dict(parser="biaffine"),
    "biaffine local, averaged": dict(parser="biaffine", arc_loss="local", average=0.5),
}


def weights(model: "neural.NeuralParser") -> dict:
    return {k: v.clone() for k, v in model.net.state_dict().items()}


def same_run(a: "neural.NeuralParser", b: "neural.NeuralParser") -> None:
    """The same network bit for bit, the same epoch kept and the same losses
    and dev scores epoch by epoch."""
    wa, wb = weights(a), weights(b)
    assert wa.keys() == wb.keys()
    for k in wa:
        assert torch.equal(wa[k], wb[k]), k
    assert a.epoch == b.epoch
    assert [(r.epoch, r.loss, r.dev_uas, r.dev_las) for r in a.history] == [
        (r.epoch, r.loss, r.dev_uas, r.dev_las) for r in b.history
    ]


@pytest.mark.parametrize("settings", list(RUNS.values()), ids=list(RUNS))
def test_a_continued_run_ends_as_the_run_without_a_stop(tmp_path, settings):
    kw = dict(dev=str(SAMPLE), seed=3, dims=DIMS, batch_size=4, **settings)
    whole = neural.train(str(SAMPLE), tmp_path / "whole.pt", epochs=3, **kw)
    ckpt = tmp_path / "run.ckpt"
    first = neural.train(str(SAMPLE), tmp_path / "a.pt", epochs=1, checkpoint=ckpt, **kw)
    assert len(first.history) == 1 and ckpt.exists()
    second = neural.train(str(SAMPLE), tmp_path / "b.pt", epochs=2, checkpoint=ckpt, **kw)
    third = neural.train(str(SAMPLE), tmp_path / "c.pt", epochs=3, checkpoint=ckpt, **kw)
    same_run(third, whole)
    same_run(neural.load(tmp_path / "c.pt"), neural.load(tmp_path / "whole.pt"))
    assert len(second.history) == 2
    # Asked again for the epochs it has done, the run has nothing left to
    # train: the same model again.
    same_run(neural.train(str(SAMPLE), tmp_path / "d.pt", epochs=3, checkpoint=ckpt, **kw), whole)


def test_a_checkpoint_of_another_run_is_refused_naming_the_difference(tmp_path):
    kw = dict(seed=3, dims=DIMS, batch_size=4)
    ckpt = tmp_path / "run.ckpt"
    neural.train(str(SAMPLE), epochs=2, checkpoint=ckpt, **kw)
    before = ckpt.read_bytes()
    with pytest.raises(ValueError, match="another training run: --learning-rate was 0.001 in its run, here 0.01"):
        neural.train(str(SAMPLE), epochs=3, checkpoint=ckpt, learning_rate=0.01, **kw)
    with pytest.raises(ValueError, match="--lstm-dim was 16 in its run, here 20"):
        neural.train(str(SAMPLE), epochs=3, checkpoint=ckpt, seed=3, batch_size=4,
                     dims=neural.Dimensions(**{**vars(DIMS), "lstm": 20}))
    with pytest.raises(ValueError, match=r"the development file \(--dev\): none in its run, one here"):
        neural.train(str(SAMPLE), epochs=3, checkpoint=ckpt, dev=str(SAMPLE), **kw)
    changed = tmp_path / "train.conllu"
    changed.write_text(SAMPLE.read_text().replace("\tNOUN\t", "\tPROPN\t", 1))
    with pytest.raises(ValueError, match=r"the training file: not the file of its run \(the contents differ\)"):
        neural.train(str(changed), epochs=3, checkpoint=ckpt, **kw)
    moved = tmp_path / "sample.conllu"
    moved.write_bytes(SAMPLE.read_bytes())
    with pytest.raises(ValueError, match="its run is past epoch 2, --epochs 1 asks for fewer"):
        neural.train(str(moved), epochs=1, checkpoint=ckpt, **kw)
    assert ckpt.read_bytes() == before  # nothing refused touched it
    # The same file under another name, with another thread count: continued.
    assert len(neural.train(str(moved), epochs=3, checkpoint=ckpt, threads=1, **kw).history) == 3


def test_a_file_that_is_not_a_checkpoint_is_named(tmp_path):
    model = tmp_path / "m.pt"
    neural.train(str(SAMPLE), model, epochs=1, dims=DIMS)
    with pytest.raises(ValueError, match="m.pt: not a tabula training checkpoint"):
        neural.train(str(SAMPLE), epochs=1, dims=DIMS, checkpoint=model)
    with pytest.raises(ValueError, match="not a tabula training checkpoint: line 4 shows a CoNLL-U treebank"):
        neural.train(str(SAMPLE), epochs=1, dims=DIMS, checkpoint=_copy(tmp_path))
    with pytest.raises(ValueError, match="/dev/null: not a regular file"):
        neural.train(str(SAMPLE), epochs=1, dims=DIMS, checkpoint="/dev/null")
    with pytest.raises(ValueError, match="the model's own file"):
        neural.train(str(SAMPLE), model, epochs=1, dims=DIMS, checkpoint=model)
    with pytest.raises(OSError, match="sample.conllu: it is the same file as the input"):
        neural.train(str(SAMPLE), epochs=1, dims=DIMS, checkpoint=SAMPLE)  # an input: never overwritten


def _copy(tmp_path: Path) -> Path:
    p = tmp_path / "copy.conllu"
    p.write_bytes(SAMPLE.read_bytes())
    return p


def test_a_damaged_checkpoint_is_refused(tmp_path):
    ckpt = tmp_path / "run.ckpt"
    neural.train(str(SAMPLE), epochs=1, dims=DIMS, checkpoint=ckpt)
    data = bytearray(ckpt.read_bytes())
    data[len(data) // 2] ^= 0xFF
    ckpt.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="run.ckpt: not a tabula training checkpoint"):
        neural.train(str(SAMPLE), epochs=2, dims=DIMS, checkpoint=ckpt)


def test_the_command_continues_a_run_and_says_so(tmp_path):
    def train(epochs: int, out: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tabula_parsing.neural", "train", str(SAMPLE), "-o", str(tmp_path / out),
             "--checkpoint", str(tmp_path / "run.ckpt"), "--epochs", str(epochs), "--word-dim", "8",
             "--lstm-dim", "8", "--mlp-dim", "8", "--char-dim", "0"],
            capture_output=True, text=True,
        )

    r = train(1, "a.pt")
    assert r.returncode == 0, r.stderr
    r = train(2, "b.pt")
    assert r.returncode == 0, r.stderr
    assert "run.ckpt: continuing after epoch 1 of 2" in r.stderr
    assert r.stderr.count("epoch 2:") == 1 and "epoch 1:" not in r.stderr


def test_an_interruption_names_the_checkpoint(tmp_path):
    import argparse

    from tabula_parsing.neural.__main__ import _interrupted
    from tabula_parsing.neural.parser import TrainingInterrupted

    args = argparse.Namespace(command="train", output="m.pt", dev=None)
    text = _interrupted(args, TrainingInterrupted("m.pt", 3, "run.ckpt", 3))
    assert text == (
        "interrupted: m.pt holds the model of epoch 3 (the last finished); "
        "run.ckpt holds the run after epoch 3: the same command continues it"
    )
    assert _interrupted(args, TrainingInterrupted("m.pt", None, "run.ckpt", 0)) == (
        "interrupted before the first epoch ended: no model written to m.pt"
    )



def test_ctrl_c_leaves_a_checkpoint_that_the_same_command_continues(tmp_path):
    """Interrupted at any moment (a checkpoint being written included), the
    checkpoint holds a finished epoch, named in the message; continued to
    two more epochs, the run ends as the run that never stopped."""
    tiny = ["--word-dim", "8", "--lstm-dim", "8", "--mlp-dim", "8", "--char-dim", "0", "--seed", "2"]
    ckpt = tmp_path / "run.ckpt"

    def command(out: str, epochs: int, checkpoint: bool = True) -> list:
        return [sys.executable, "-m", "tabula_parsing.neural", "train", str(SAMPLE), "-o", str(tmp_path / out),
                "--epochs", str(epochs), *tiny, *(["--checkpoint", str(ckpt)] if checkpoint else [])]

    status, rest = interrupt_after_first_epoch(command("a.pt", 1000))
    assert status == 130 and "Traceback" not in rest, rest
    last = rest.strip().splitlines()[-1]
    assert f"; {ckpt} holds the run after epoch " in last and last.endswith(": the same command continues it"), last
    done = int(last.split("after epoch ")[1].split(":")[0])
    r = subprocess.run(command("b.pt", done + 2), capture_output=True, text=True)
    assert r.returncode == 0 and f"continuing after epoch {done} of {done + 2}" in r.stderr, r.stderr
    r = subprocess.run(command("whole.pt", done + 2, checkpoint=False), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    same_run(neural.load(tmp_path / "b.pt"), neural.load(tmp_path / "whole.pt"))
