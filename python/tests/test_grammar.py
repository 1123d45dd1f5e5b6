"""Grammar against `tabula grammar parse` / `tabula grammar check`."""

from __future__ import annotations

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import ROOT, run

GRAMMARS = ROOT / "grammars"


@pytest.mark.parametrize("name", ["projective.grammar", "projective-single-root.grammar"])
@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_count_and_recognize_match_the_cli(cli, name, n):
    path = GRAMMARS / name
    g = tp.Grammar.from_file(path)
    words = ["root" if "root" in g.terminals else "a"] + ["a"] * n
    text = " ".join(words)
    count = int(run(cli, "grammar", "parse", str(path), "--input", text).stdout.splitlines()[-1])
    assert g.count(text) == g.count(words) == count
    recognized = run(cli, "grammar", "parse", str(path), "--input", text, "--semiring", "bool").stdout.split()[-1]
    assert g.recognizes(words) == (recognized == "true")


def test_best_and_max_with_a_weight_matrix_match_the_cli(cli, tmp_path):
    path = GRAMMARS / "projective.grammar"
    g = tp.Grammar.from_file(path)
    rng = np.random.default_rng(4)
    for n in (1, 4, 7):
        weights = rng.integers(-5, 10, size=(n + 1, n + 1))
        weights = weights.astype(np.float64)
        weights[rng.random((n + 1, n + 1)) < 0.2] = -np.inf
        matrix = tmp_path / f"w{n}.txt"
        matrix.write_text("\n".join(" ".join("-inf" if np.isinf(v) else str(int(v)) for v in row) for row in weights))
        text = " ".join(["a"] * (n + 1))
        args = ["grammar", "parse", str(path), "--input", text, "--weights", str(matrix)]
        best_max = run(cli, *args, "--semiring", "max").stdout.splitlines()[-1]
        assert str(g.max(text, weights)) == best_max or (best_max == "-inf" and g.max(text, weights) is None)
        best = run(cli, *args, "--semiring", "best", check=False)
        if best.returncode == 0:
            assert " ".join(map(str, g.best(text, weights))) == best.stdout.splitlines()[-1]
            finite = np.where(np.isinf(weights), -(10**6), weights).astype(np.int64)
            assert g.best(text, weights.tolist()) == g.best(text, weights)
            assert isinstance(g.max(text, finite), int)
        else:
            with pytest.raises(ValueError, match="no derivation"):
                g.best(text, weights)


def test_grammar_errors_carry_the_cli_diagnostics(cli, tmp_path):
    bad = tmp_path / "bad.grammar"
    bad.write_text("start S\n(S, S) a\nS -> (S, S\nS -> (S, T)\n")
    p = run(cli, "grammar", "check", str(bad), check=False)
    assert p.returncode == 1
    with pytest.raises(tp.GrammarError) as e:
        tp.Grammar.from_file(bad)
    assert str(e.value) == p.stderr.rstrip("\n")
    assert isinstance(e.value, ValueError)
    assert f"{bad}:2:" in str(e.value)
    assert all(sev in ("error", "warning") for sev, *_ in e.value.diagnostics)
    assert e.value.diagnostics[0][1:3] == (2, 8)


def test_a_file_of_another_kind_is_one_line_as_the_cli_says(cli, tmp_path):
    for path in (ROOT / "data" / "sample.conllu", tmp_path / "lines.jsonl"):
        if path.suffix == ".jsonl":
            path.write_text('{"stack": [0]}\n')
        p = run(cli, "grammar", "check", str(path), check=False)
        assert p.returncode == 1
        with pytest.raises(tp.GrammarError) as e:
            tp.Grammar.from_file(path)
        assert "error: " + str(e.value) == p.stderr.rstrip("\n")
        assert "not a grammar file" in str(e.value) and "\n" not in str(e.value)
        assert len(e.value.diagnostics) == 1


def test_grammar_input_errors():
    g = tp.Grammar.from_file(GRAMMARS / "projective.grammar")
    with pytest.raises(ValueError, match=r"unknown terminal `b` at position 1"):
        g.count("a b")
    with pytest.raises(ValueError, match="the input is empty"):
        g.count("")
    with pytest.raises(ValueError, match=r"must be 3×3"):
        g.max("a a a", np.zeros((2, 2)))
    with pytest.raises(ValueError, match="out of range"):
        g.max("a a", np.full((2, 2), 2**40))
    with pytest.raises(ValueError, match="not an integer"):
        g.max("a a", np.full((2, 2), 0.5))
    with pytest.raises(OSError, match="cannot read grammar file"):
        tp.Grammar.from_file(GRAMMARS / "missing.grammar")


def test_a_start_symbol_that_derives_nothing_is_an_error():
    """Regression: it was a warning, and every count was then 0."""
    with pytest.raises(tp.GrammarError, match="start symbol `S` is unproductive: the grammar derives no string"):
        tp.Grammar.from_string("start S\n(L, R) -> a\nS -> (X, Y)\n")
