"""Every `>>>` example in the package's docstrings (the extension's
functions, classes and methods, and the Python modules beside it) runs as
written from a directory that holds no file of the repository: examples
read `tabula_parsing.SAMPLE`, the treebank shipped with the package."""

from __future__ import annotations

import doctest
import inspect
from pathlib import Path
from typing import Any

import tabula_parsing as tp
from tabula_parsing import nonprojective


def documented() -> list[Any]:
    """The package's public objects and their methods that have examples."""
    found: list[Any] = []
    for name in tp.__all__:
        obj = getattr(tp, name)
        members = [obj] + ([m for _, m in inspect.getmembers(obj) if callable(m) or isinstance(m, property)] if inspect.isclass(obj) else [])
        found += [m for m in members if ">>>" in (getattr(m, "__doc__", None) or "")]
    return list({id(o): o for o in found}.values())


def test_every_docstring_example_runs_from_any_directory(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    objects = documented()
    assert tp.Parser.train in objects and tp.evaluate in objects, "the search finds the examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for obj in objects:
        name = getattr(obj, "__qualname__", repr(obj))
        runner.run(doctest.DocTestParser().get_doctest(obj.__doc__, dict(vars(tp)), name, None, 0))
    for test in doctest.DocTestFinder().find(nonprojective):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted > 10


def test_the_sample_is_the_repositorys() -> None:
    """The package's copy of data/sample.conllu, which docs and tests use."""
    root = Path(__file__).resolve().parents[2]
    assert Path(tp.SAMPLE).read_bytes() == (root / "data" / "sample.conllu").read_bytes()
