"""The README's "From Python" example runs as written, and the training-loop
example walks whole sentences of a treebank (the small one written for these
tests, and the real de_gsd one when ../shared/ud is there)."""

from __future__ import annotations

import lzma
import re
import runpy
import subprocess
import sys

import pytest

import tabula
from conftest import ROOT, SMALL, UD


def readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_as_written(monkeypatch, capsys):
    code = readme_example()
    assert 8 <= len(code.strip().splitlines()) <= 15
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    assert re.fullmatch(r"optimal steps taken: \d+\n", capsys.readouterr().out)


def test_the_python_readme_example_runs_as_written():
    text = (ROOT / "python" / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "python/README.md", "exec"), {})


@pytest.mark.parametrize("system", tabula.systems())
def test_the_training_loop_example(system):
    script = ROOT / "examples" / "python" / "training_loop.py"
    p = subprocess.run(
        [sys.executable, str(script), str(SMALL), "--epochs", "3", "--system", system],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = p.stdout.splitlines()
    assert lines[0].startswith("epoch 1: ") and lines[-1].startswith("UAS on the training file: ")


def whole_walks(sentences, system: str) -> int:
    """Follows an optimal step at every configuration of every sentence; the
    computation must build the gold tree when it is projective."""
    steps = 0
    for s in sentences:
        session = tabula.Session(s.tree, system=system)
        built = {}
        while not session.is_final:
            arc = session.apply(session.optimal()[0])
            steps += 1
            if arc:
                built[arc[1]] = arc[0]
        if s.tree.is_projective:
            assert [built.get(d, 0) for d in range(1, len(s) + 1)] == s.heads
    return steps


@pytest.mark.parametrize("system", tabula.systems())
def test_optimal_walks_over_whole_sentences(system):
    assert whole_walks(tabula.read_conllu(SMALL), system) > 0


@pytest.mark.skipif(not (UD / "de_gsd-ud-test.conllu.xz").exists(), reason="../shared/ud absent")
def test_optimal_walks_over_a_real_treebank(tmp_path):
    path = tmp_path / "de_gsd-ud-test.conllu"
    path.write_bytes(lzma.decompress((UD / "de_gsd-ud-test.conllu.xz").read_bytes()))
    sentences = tabula.read_conllu(path)[:300]
    projective = tabula.projectivize_batch(sentences)
    for system in tabula.systems():
        for tree in projective[:100]:
            session = tabula.Session(tree, system=system)
            while not session.is_final:
                session.apply(session.optimal()[0])
    assert whole_walks(sentences, "arc-standard") > 1000


def test_run_as_module_entry_points_exist():
    ns = runpy.run_path(str(ROOT / "examples" / "python" / "training_loop.py"), run_name="not_main")
    assert callable(ns["train"]) and callable(ns["parse"])
