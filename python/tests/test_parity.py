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
import random
from pathlib import Path
from typing import Any, Callable

import pytest
import tabula_parsing as tp

from conftest import ROOT, random_tree, run

# Each command and the Python call that does what it does.
CALLS: dict[str, Callable[..., Any]] = {
    "train": tp.Parser.train,
    "parse": tp.Parser.parse,
    "train-tagger": tp.Tagger.train,
    "tag": tp.Tagger.tag,
    "projectivize": tp.projectivize,
    "count": tp.count,
    "eval": tp.evaluate,
    "deprojectivize": tp.deprojectivize,
    "ensemble": tp.ensemble,
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
    ("count", "inputs", "cli"): "`heads`: one tree (count_batch: many)",
    ("count", "heads", "python"): "the command line's INPUTS",
    ("count", "tsv", "cli"): "Python returns the count",
    ("count", "plot", "cli"): "a plot of a file",
    ("count", "max_words", "cli"): "a file's long sentences; Python counts the tree it is given",
    ("count", "keep_going", "cli"): "a file's bad sentences; Python raises per tree",
    ("count", "grammar", "cli"): "another grammar: Grammar.count",
    ("count", "with_best", "python"): "the command line prints both",
    ("eval", "json", "cli"): "Python returns the dict --json prints",
    ("eval", "plot", "cli"): "an SVG drawn with the command line's plotting library; the dict's `breakdown` has its numbers",
    ("deprojectivize", "input", "cli"): "`sentences`",
    ("deprojectivize", "sentences", "python"): "the command line's INPUT",
    ("deprojectivize", "output", "cli"): "Python returns Sentences",
    ("deprojectivize", "stats", "cli"): "file totals on standard error; Python has the sentences",
    ("ensemble", "output", "cli"): "Python returns Sentences",
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
    assert set(CALLS) <= set(options)


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


# Generated data: random trees (many non-projective) with labels and UPOS
# that the preference weights and the valid-first objective read.
UPOS = ["NOUN", "VERB", "ADP", "DET", "PUNCT", "ADJ", "CCONJ", "AUX"]
DEPRELS = {"ADP": "case", "DET": "det", "PUNCT": "punct", "CCONJ": "cc", "AUX": "aux"}


def treebank(path: Path, seed: int, sentences: int = 40, heads_of: Callable[[list[int], random.Random], list[int]] | None = None) -> Path:
    """A CoNLL-U file of random trees over 3..14 words (the same words for a
    given seed; `heads_of` changes the heads, for predictions)."""
    rng = random.Random(seed)
    blocks = []
    for i in range(sentences):
        n = rng.randint(3, 14)
        heads = random_tree(n, rng)
        if heads_of is not None:
            heads = heads_of(heads, random.Random(seed * 1000 + i))
        upos = [UPOS[(i + d) % len(UPOS)] for d in range(n)]
        lines = [f"# sent_id = s{i}"]
        for d in range(1, n + 1):
            rel = "root" if heads[d - 1] == 0 else DEPRELS.get(upos[d - 1], ["nsubj", "obj", "obl", "nmod"][d % 4])
            lines.append(f"{d}\tw{i}_{d}\t_\t{upos[d - 1]}\t_\t_\t{heads[d - 1]}\t{rel}\t_\t_")
        blocks.append("\n".join(lines) + "\n\n")
    path.write_text("".join(blocks))
    return path


def columns(sentences: list[tp.Sentence]) -> list[tuple[list[int] | None, list[str]]]:
    return [(s.heads, s.deprels) for s in sentences]


def test_projectivize_returns_what_projectivize_batch_returns(tmp_path: Path) -> None:
    """One type for both, a Tree (the given one when unchanged), which
    still equals the list of heads `projectivize` used to return."""
    sentences = tp.read_conllu(treebank(tmp_path / "t.conllu", 1))
    one = [tp.projectivize(s) for s in sentences]
    many = tp.projectivize_batch(sentences)
    assert all(type(a) is tp.Tree and type(b) is tp.Tree for a, b in zip(one, many))
    assert one == many
    assert one[0] == one[0].heads and one[0] != one[0].heads + [0]
    tree = tp.Tree([2, 0, 2])
    assert tp.projectivize(tree) is tree and tp.projectivize_batch([tree])[0] is tree


@pytest.mark.parametrize(
    "cli_args,kwargs",
    [
        (["--encode", "head+path"], {"encode": "head+path"}),
        (["--method", "lift", "--encode", "head"], {"method": "lift", "encode": "head"}),
        (["--objective", "valid-first", "--encode", "path"], {"objective": "valid-first", "encode": "path"}),
        (["--objective", "valid-first"], {"objective": "valid-first"}),
        (["--grammar", "grammars/projective-single-root.grammar"], {"grammar": "grammars/projective-single-root.grammar"}),
        (["--prefer", "none"], {"prefer": "none"}),
    ],
)
def test_projectivize_options_give_the_command_lines_file(cli: Path, tmp_path: Path, cli_args: list[str], kwargs: dict[str, Any]) -> None:
    """`grammar`, `objective` and `encode` as the command line's options:
    the same heads and, with `encode`, the same DEPRELs, one by one and in
    a batch; `deprojectivize` then gives back what `tabula deprojectivize`
    writes (the gold trees, for what decoding restores)."""
    source = treebank(tmp_path / "t.conllu", 2)
    out = tmp_path / "p.conllu"
    run(cli, "projectivize", str(source), "-o", str(out), *cli_args)
    if "grammar" in kwargs:
        kwargs = {**kwargs, "grammar": str(ROOT / kwargs["grammar"])}
    sentences, written = tp.read_conllu(source), tp.read_conllu(out)
    assert any(not s.tree.is_projective for s in sentences)
    one = [tp.projectivize(s, **kwargs) for s in sentences]
    many = tp.projectivize_batch(sentences, **kwargs)
    if "encode" in kwargs:
        assert columns(one) == columns(many) == columns(written)
        assert all(type(x) is tp.Sentence for x in one)
        decoded = tmp_path / "d.conllu"
        run(cli, "deprojectivize", str(out), "-o", str(decoded))
        expected = columns(tp.read_conllu(decoded))
        assert columns(tp.deprojectivize(written)) == expected
        assert columns(tp.deprojectivize(str(out))) == expected
        assert columns([tp.deprojectivize(w) for w in written]) == expected
    else:
        assert [t.heads for t in one] == [t.heads for t in many] == [w.heads for w in written]


def test_projectivize_refuses_what_the_command_line_refuses() -> None:
    s = tp.read_conllu(tp.SAMPLE)[0]
    cases = [
        ({"objective": "valid-first", "method": "lift"}, "lifting has no objective"),
        ({"objective": "valid-first", "sample": 1}, "deterministic choice"),
        ({"objective": "valid-first", "prefer": "none"}, "not \"none\""),
        ({"objective": "best"}, "gold-first or valid-first"),
        ({"encode": "up"}, "expected head, path or head+path"),
        ({"grammar": str(ROOT / "grammars" / "projective.grammar"), "single_root": True}, "do not go together"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError) as e:
            tp.projectivize(s, **kwargs)
        assert message in str(e.value)
    with pytest.raises(ValueError, match="encode writes the DEPREL column"):
        tp.projectivize(s.heads, encode="head")


def test_ensemble_gives_the_command_lines_file(cli: Path, tmp_path: Path) -> None:
    """`ensemble(predictions, weights=..., projective=...)` is `tabula
    ensemble`, for files and for lists of Sentences."""

    def noisy(heads: list[int], rng: random.Random) -> list[int]:
        return random_tree(len(heads), rng) if rng.random() < 0.5 else heads

    files = [treebank(tmp_path / f"p{k}.conllu", 3, heads_of=noisy if k else None) for k in range(3)]
    for extra, kwargs in [([], {}), (["--weights", "1,2,1.5", "--projective"], {"weights": [1, 2, 1.5], "projective": True})]:
        out = tmp_path / "e.conllu"
        run(cli, "ensemble", *map(str, files), "-o", str(out), *extra)
        expected = columns(tp.read_conllu(out))
        assert columns(tp.ensemble([str(f) for f in files], **kwargs)) == expected
        assert columns(tp.ensemble([tp.read_conllu(f) for f in files], **kwargs)) == expected
    with pytest.raises(ValueError, match="weights gives 2 weights for 3 files"):
        tp.ensemble(files, weights=[1, 2])
    with pytest.raises(ValueError, match="two or more predictions"):
        tp.ensemble(files[:1])
    with pytest.raises(ValueError, match="longer than max_words=2"):
        tp.ensemble(files, max_words=2)


def test_evaluate_options_give_the_command_lines_json(cli: Path, tmp_path: Path) -> None:
    """`nonprojective`, `breakdown` and `train` add the keys `tabula eval
    --json` prints with the same options."""
    gold = treebank(tmp_path / "g.conllu", 4)
    pred = treebank(tmp_path / "p.conllu", 4, heads_of=lambda h, rng: random_tree(len(h), rng))
    train = treebank(tmp_path / "t.conllu", 5)
    for extra, kwargs in [
        (["--nonprojective"], {"nonprojective": True}),
        (["--breakdown"], {"breakdown": True}),
        (["--breakdown", "--train", str(train), "--nonprojective"], {"breakdown": True, "train": str(train), "nonprojective": True}),
    ]:
        expected = json.loads(run(cli, "eval", str(gold), str(pred), "--json", *extra).stdout)
        assert tp.evaluate(str(gold), str(pred), **kwargs) == expected
    assert tp.evaluate(str(gold), str(pred), nonprojective=True)["nonprojective"]["gold"] > 0
    with pytest.raises(ValueError, match="add breakdown=True"):
        tp.evaluate(str(gold), str(pred), train=str(train))


def test_evaluate_of_files_without_words_is_an_error(tmp_path: Path) -> None:
    """As `tabula eval`: nothing to score is an error, not a table of zeros."""
    empty = tmp_path / "empty.conllu"
    empty.write_text("")
    with pytest.raises(ValueError, match="have no words: nothing to score"):
        tp.evaluate(empty, empty)
