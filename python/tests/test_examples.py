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

import tabula_parsing as tp
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


def test_the_python_readme_examples_run_as_written(monkeypatch, tmp_path, capsys):
    """The three examples (the parser, a training loop, a minibatch), in a scratch folder
    holding the sample treebank (the parser's example writes files)."""
    text = (ROOT / "python" / "README.md").read_text()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sample.conllu").write_bytes((ROOT / "data" / "sample.conllu").read_bytes())
    monkeypatch.chdir(tmp_path)
    examples = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(examples) == 3
    for code in examples:
        scope: dict = {}
        exec(compile(code, "python/README.md", "exec"), scope)
        if "OracleBatch" in code:
            assert scope["heads"] == [[2, 0, 2], [0, 1]]
    uas, las = map(float, capsys.readouterr().out.split())
    assert 0 <= las <= uas <= 100
    assert (tmp_path / "sample.model").exists() and (tmp_path / "parsed.conllu").exists()


@pytest.mark.parametrize("system", tp.systems())
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
        # LR-spine's oracle needs projective gold trees.
        gold = tp.Tree(tp.projectivize(s)) if system == "lr-spine" else s.tree
        session = tp.Session(gold, system=system)
        built = {}
        while not session.is_final:
            arc = session.apply(session.optimal()[0])
            steps += 1
            if arc:
                built[arc[1]] = arc[0]
        if gold.is_projective:
            assert [built.get(d, 0) for d in range(1, len(s) + 1)] == gold.heads
    return steps


@pytest.mark.parametrize("system", tp.systems())
def test_optimal_walks_over_whole_sentences(system):
    assert whole_walks(tp.read_conllu(SMALL), system) > 0


@pytest.mark.skipif(not (UD / "de_gsd-ud-test.conllu.xz").exists(), reason="../shared/ud absent")
def test_optimal_walks_over_a_real_treebank(tmp_path):
    path = tmp_path / "de_gsd-ud-test.conllu"
    path.write_bytes(lzma.decompress((UD / "de_gsd-ud-test.conllu.xz").read_bytes()))
    sentences = tp.read_conllu(path)[:300]
    projective = tp.projectivize_batch(sentences)
    for system in tp.systems():
        for tree in projective[:100]:
            session = tp.Session(tree, system=system)
            while not session.is_final:
                session.apply(session.optimal()[0])
    assert whole_walks(sentences, "arc-standard") > 1000


def test_run_as_module_entry_points_exist():
    ns = runpy.run_path(str(ROOT / "examples" / "python" / "training_loop.py"), run_name="not_main")
    assert callable(ns["train"]) and callable(ns["parse"])
