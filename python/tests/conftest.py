"""Shared helpers: the command line built from this repository, which the
tests use as the reference (same inputs, same answers, same messages)."""

from __future__ import annotations

import doctest
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
SMALL = DATA / "small.conllu"
UD = ROOT.parent / "shared" / "ud" / "v2.2"
# The binary under test: `target/release/tabula`, or the file named by the
# environment variable TABULA (a build made elsewhere).
TABULA = Path(os.environ["TABULA"]) if os.environ.get("TABULA") else ROOT / "target" / "release" / "tabula"


@pytest.fixture(scope="session")
def cli() -> Path:
    """`target/release/tabula` (built if absent), or $TABULA."""
    path = TABULA
    if not path.exists() and not os.environ.get("TABULA"):
        subprocess.run(["cargo", "build", "--release", "--bin", "tabula"], cwd=ROOT, check=True)
    return path


def run(cli: Path, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs the command line; `check` asks for exit status 0."""
    p = subprocess.run([str(cli), *args], input=input, capture_output=True, text=True, cwd=ROOT)
    if check and p.returncode != 0:
        raise AssertionError(f"tabula {' '.join(args)} failed: {p.stderr}")
    return p


def oracle_lines(cli: Path, lines: list[dict], *args: str) -> list[tuple[dict | None, str | None]]:
    """Sends JSON configurations to `tabula oracle`; for each line, its
    answer object or its error message (the text after `line N: `)."""
    text = "".join(json.dumps(x) + "\n" for x in lines)
    p = run(cli, "oracle", *args, input=text, check=False)
    errors: dict[int, str] = {}
    for err in p.stderr.splitlines():
        if err.startswith("line "):
            number, message = err[len("line "):].split(": ", 1)
            errors[int(number) - 1] = message
    outputs = iter(json.loads(x) for x in p.stdout.splitlines())
    return [(None, errors[i]) if i in errors else (next(outputs), None) for i in range(len(lines))]


def random_tree(n: int, rng: random.Random) -> list[int]:
    """A uniformly shaped random tree over n words (heads of 1..n): attach the
    words in random order to a word already attached."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [0] * n
    attached = [0]
    for d in order:
        heads[d - 1] = rng.choice(attached)
        attached.append(d)
    return heads


def run_docstring_examples(documented: list) -> None:
    """Runs the `>>>` examples of each object's docstring (from the current
    directory) against the package's names; each object must have one."""
    import tabula_parsing as tp

    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for obj in documented:
        test = doctest.DocTestParser().get_doctest(obj.__doc__ or "", dict(vars(tp)), obj.__qualname__, None, 0)
        assert test.examples, f"{obj.__qualname__} has no example"
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def interrupt_after_first_epoch(command: list[str]) -> tuple[int, str]:
    """Runs a training command, sends it Ctrl-C (SIGINT) once its first
    epoch line is out, and returns its exit status and the rest of its
    standard error."""
    import signal

    child = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        # A shell running the tests in the background ignores SIGINT for its children.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stderr is not None
        first = child.stderr.readline()
        assert first.startswith("epoch 1:"), first
        child.send_signal(signal.SIGINT)
        rest = child.stderr.read()
        child.wait(timeout=60)
    finally:
        child.kill()
        child.wait()
    return child.returncode, rest
