"""The Python package at parity with the command line: every option of the
commands below exists in Python under the same name (`-` -> `_`) with the
same default, and the other way round. The command line's options are read
from clap itself (`tabula options`, a hidden command that prints them as
JSON); Python's from `inspect.signature`. A difference that is not listed
below with its reason fails, so an option added to one side only fails
here until the other side has it too; a listed difference that is gone
fails too, so the list stays true."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Callable

import pytest
import tabula_parsing as tp

from conftest import run

# Each command and the Python call that does what it does.
CALLS: dict[str, Callable[..., Any]] = {
    "train": tp.Parser.train,
    "parse": tp.Parser.parse,
    "train-tagger": tp.Tagger.train,
    "tag": tp.Tagger.tag,
    "projectivize": tp.projectivize,
    "count": tp.count,
    "eval": tp.evaluate,
}

# Commands that have no Python call yet, and why.
NO_CALL = {
    "deprojectivize": "decodes pseudo-projective labels of a file; not yet in Python",
    "ensemble": "votes over parsed files; not yet in Python",
}

# Differences by design: (command, name) -> why. `cli` / `python`: the side
# that has the option; `default`: both have it, with other defaults.
BY_DESIGN: dict[tuple[str, str, str], str] = {
    ("train", "output", "cli"): "Python returns the Parser (Parser.save writes the file)",
    ("train", "threads", "python"): "the threads that score dev (tabula train uses all cores)",
    ("train", "verbose", "python"): "the command line always prints on standard error",
    ("parse", "model", "cli"): "the Parser itself",
    ("parse", "input", "cli"): "`sentences`",
    ("parse", "sentences", "python"): "the command line's INPUT",
    ("parse", "output", "cli"): "Python returns Sentences (write_conllu writes them)",
    ("parse", "stats", "cli"): "a rate on standard error; Python has the sentences",
    ("train-tagger", "output", "cli"): "Python returns the Tagger (Tagger.save writes the file)",
    ("train-tagger", "threads", "default"): "Python: rayon's pool of every core unless given",
    ("train-tagger", "verbose", "python"): "the command line always prints on standard error",
    ("tag", "tagger", "cli"): "the Tagger itself",
    ("tag", "input", "cli"): "`sentences`",
    ("tag", "sentences", "python"): "the command line's INPUT",
    ("tag", "output", "cli"): "Python returns Sentences",
    ("tag", "eval", "cli"): "Tagger.accuracy",
    ("tag", "stats", "cli"): "a rate on standard error",
    ("projectivize", "input", "cli"): "`heads`: one tree (projectivize_batch: many)",
    ("projectivize", "heads", "python"): "the command line's INPUT",
    ("projectivize", "output", "cli"): "Python returns the heads",
    ("projectivize", "stats", "cli"): "file totals; Python has the trees",
    ("projectivize", "threads", "cli"): "projectivize_batch runs on rayon's threads",
    ("projectivize", "keep_going", "cli"): "a file's bad sentences; Python raises per tree",
    ("projectivize", "max_words", "cli"): "a file's long sentences; Python projectivizes the tree it is given",
    ("projectivize", "allow_long", "cli"): "the exit status of a file with long sentences",
    ("projectivize", "draw", "cli"): "a page of the changed trees: tabula_parsing.draw",
    ("projectivize", "stream", "python"): "the sentence number of --sample, which the command line counts itself",
    ("projectivize", "grammar", "cli"): "another grammar: not yet in Python",
    ("projectivize", "objective", "cli"): "valid-first: not yet in Python",
    ("projectivize", "encode", "cli"): "pseudo-projective labels need the DEPRELs back: not yet in Python",
    ("count", "inputs", "cli"): "`heads`: one tree (count_batch: many)",
    ("count", "heads", "python"): "the command line's INPUTS",
    ("count", "tsv", "cli"): "Python returns the count",
    ("count", "plot", "cli"): "a plot of a file",
    ("count", "max_words", "cli"): "a file's long sentences; Python counts the tree it is given",
    ("count", "grammar", "cli"): "another grammar: Grammar.count",
    ("count", "with_best", "python"): "the command line prints both",
    ("eval", "json", "cli"): "Python returns the dict --json prints",
    ("eval", "nonprojective", "cli"): "not yet in Python",
    ("eval", "breakdown", "cli"): "not yet in Python",
    ("eval", "train", "cli"): "--breakdown's word frequencies: not yet in Python",
    ("eval", "plot", "cli"): "a plot of the scores",
}


def command_options(cli: Path) -> dict[str, list[dict[str, Any]]]:
    """Every subcommand's options as clap knows them."""
    options: dict[str, list[dict[str, Any]]] = json.loads(run(cli, "options").stdout)
    return options


def python_parameters(call: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The parameters of a Python call (without `self`)."""
    return {n: p for n, p in inspect.signature(call).parameters.items() if n != "self"}


def cli_default(option: dict[str, Any]) -> Any:
    """An option's default as Python writes it: `False` for a flag, the
    text of clap's default, `None` for none (a positional: no default)."""
    if option["kind"] == "flag":
        return False
    if option["kind"] == "positional" and option["default"] is None:
        return inspect.Parameter.empty
    return option["default"]


def same_default(cli: Any, python: Any) -> bool:
    if cli is inspect.Parameter.empty or cli is None or isinstance(cli, bool):
        return python is cli or (cli is None and python is None)
    if isinstance(python, bool) or python is None:
        return False
    if isinstance(python, float):
        return float(cli) == python
    return str(python) == str(cli)


def differences(command: str, options: list[dict[str, Any]], params: dict[str, inspect.Parameter]) -> set[tuple[str, str, str]]:
    """(command, name, side) for each option on one side only (`cli`,
    `python`) or with other defaults (`default`)."""
    cli = {o["name"]: o for o in options}
    out = {(command, n, "cli") for n in cli.keys() - params.keys()}
    out |= {(command, n, "python") for n in params.keys() - cli.keys()}
    for n in cli.keys() & params.keys():
        if not same_default(cli_default(cli[n]), params[n].default):
            out.add((command, n, "default"))
    return out


def test_every_command_is_checked(cli: Path) -> None:
    options = command_options(cli)
    # The commands of the engine, oracles and the demo have their own Python
    # API (Grammar, Oracle, Session); these are the pipeline commands.
    assert set(CALLS) | set(NO_CALL) <= set(options)


@pytest.mark.parametrize("command", sorted(CALLS))
def test_options_match(cli: Path, command: str) -> None:
    found = differences(command, command_options(cli)[command], python_parameters(CALLS[command]))
    listed = {k for k in BY_DESIGN if k[0] == command}
    assert found - listed == set(), f"options on one side only, or with other defaults: {sorted(found - listed)}"
    assert listed - found == set(), f"listed as different, but now the same (remove from BY_DESIGN): {sorted(listed - found)}"


def test_an_option_on_one_side_only_fails(cli: Path) -> None:
    """The check itself: a fake option added to either side is a difference."""
    options = command_options(cli)["parse"]
    params = python_parameters(tp.Parser.parse)
    base = differences("parse", options, params)
    fake = {"name": "fake_option", "kind": "flag", "default": None, "choices": []}
    assert differences("parse", [*options, fake], params) - base == {("parse", "fake_option", "cli")}
    extra = inspect.Parameter("fake_option", inspect.Parameter.KEYWORD_ONLY, default=False)
    assert differences("parse", options, {**params, "fake_option": extra}) - base == {("parse", "fake_option", "python")}
    changed = {**params, "threads": params["threads"].replace(default=2)}
    assert differences("parse", options, changed) - base == {("parse", "threads", "default")}


def test_projectivize_gives_the_tree_the_command_line_writes(cli: Path, tmp_path: Path) -> None:
    """`tp.projectivize(sentence)` without `prefer` is `tabula projectivize`
    without `--prefer` (it used to break ties as `--prefer none`)."""
    source = Path(__file__).resolve().parents[2] / "data" / "sample.conllu"
    out = tmp_path / "p.conllu"
    run(cli, "projectivize", str(source), "-o", str(out))
    sentences = tp.read_conllu(source)
    written = tp.read_conllu(out)
    assert any(not s.tree.is_projective for s in sentences)
    for s, w in zip(sentences, written):
        assert tp.projectivize(s) == w.heads
    assert [t.heads for t in tp.projectivize_batch(sentences)] == [w.heads for w in written]


def test_the_grammar_command_gives_the_distribution_python_gives(cli: Path, tmp_path: Path) -> None:
    """The other way round: `tabula grammar parse --semiring` log-partition,
    marginals, entropy, kbest and sample answer as Grammar's methods of the
    same names, number for number."""
    import numpy as np

    path = Path(__file__).resolve().parents[2] / "grammars" / "projective.grammar"
    words = ["a"] * 5
    scores = np.random.default_rng(7).normal(size=(5, 5)).round(3)
    matrix = tmp_path / "scores.txt"
    matrix.write_text("".join(" ".join(str(v) for v in row) + "\n" for row in scores))
    grammar = tp.Grammar.from_file(path)

    def answer(*args: str) -> str:
        given = ["grammar", "parse", str(path), "--input", " ".join(words), "--weights", str(matrix)]
        return run(cli, *given, "--semiring", *args).stdout

    assert float(answer("log-partition")) == grammar.log_partition(words, scores)
    assert float(answer("entropy")) == grammar.entropy(words, scores)
    rows = [[float(v) for v in line.split()] for line in answer("marginals").splitlines()]
    assert np.array_equal(np.array(rows), grammar.marginals(words, scores))
    best = [(float(s), [int(h) for h in heads.split()]) for s, heads in (l.split("\t") for l in answer("kbest", "--k", "4").splitlines())]
    assert best == grammar.kbest(words, scores, 4)
    drawn = [[int(h) for h in line.split()] for line in answer("sample", "--count", "6", "--seed", "3").splitlines()]
    assert drawn == grammar.sample(words, scores, 6, seed=3).tolist()
