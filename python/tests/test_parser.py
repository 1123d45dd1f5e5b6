"""Parser.train / save / load / parse and evaluate against `tabula train`,
`tabula parse` and `tabula eval --json` on the same files: the same model
bytes, the same output bytes, the same scores, the same error messages."""

from __future__ import annotations

import json
import pickle
import random
import re
import threading
from pathlib import Path

import pytest

import tabula_parsing as tp
from conftest import ROOT, random_tree, run, run_docstring_examples

SAMPLE = ROOT / "data" / "sample.conllu"
TAGS = ["NOUN", "VERB", "DET", "ADJ", "ADP", "PRON", "PUNCT"]
LABELS = ["nsubj", "obj", "det", "amod", "case", "obl", "punct", "acl:relcl"]
SMALL_TABLES = ["--step-bits", "12", "--label-bits", "10"]


def treebank(path: Path, sentences: int, seed: int, feats: bool = True) -> Path:
    """A random tagged treebank (projective and non-projective trees), with
    comments, a multiword token and FEATS."""
    rng = random.Random(seed)
    blocks = []
    for i in range(sentences):
        n = rng.randint(1, 14)
        heads = random_tree(n, rng)
        lines = [f"# sent_id = r-{i}", f"# text = sentence {i}"]
        if n >= 2 and i % 5 == 0:
            lines.append("1-2\tw12\t_\t_\t_\t_\t_\t_\t_\t_")
        for d, h in enumerate(heads, 1):
            form = rng.choice(["a", "b", "cc", "ddd", "e", "ff"]) + str(rng.randint(0, 3))
            tag = rng.choice(TAGS)
            feat = f"Case={rng.choice(['Nom', 'Acc'])}" if feats and rng.random() < 0.7 else "_"
            label = "root" if h == 0 else rng.choice(LABELS)
            lines.append(f"{d}\t{form}\t{form}\t{tag}\tX{tag}\t{feat}\t{h}\t{label}\t_\tSpaceAfter=No")
        blocks.append("\n".join(lines) + "\n\n")
    path.write_text("".join(blocks))
    return path


def cli_model(cli: Path, tmp_path: Path, train: Path, *options: str, dev: Path | None = None) -> bytes:
    out = tmp_path / "cli.model"
    args = ["train", str(train), "-o", str(out), *options]
    if dev is not None:
        args += ["--dev", str(dev)]
    run(cli, *args)
    return out.read_bytes()


def python_model(tmp_path: Path, parser: tp.Parser) -> bytes:
    out = tmp_path / "py.model"
    parser.save(out)
    return out.read_bytes()


# (command-line options, the same as Python keywords)
SETTINGS = [
    (["--epochs", "2"], dict(epochs=2)),
    (["--epochs", "3", "--seed", "7", "--explore-p", "0.5"], dict(epochs=3, seed=7, explore_p=0.5)),
    (["--system", "arc-standard", "--oracle", "static", "--epochs", "2"], dict(system="arc-standard", oracle="static", epochs=2)),
    (["--system", "arc-eager", "--projectivize", "lift", "--feats"], dict(system="arc-eager", projectivize="lift", feats=True)),
    (
        ["--system", "arc-hybrid", "--projectivize", "none", "--algorithm", "cubic", "--epochs", "2"],
        dict(system="arc-hybrid", projectivize="none", algorithm="cubic", epochs=2),
    ),
    (["--system", "lr-spine", "--epochs", "2"], dict(system="lr-spine", epochs=2)),
    (["--system", "attardi", "--projectivize", "none", "--epochs", "2"], dict(system="attardi", projectivize="none", epochs=2)),
    (
        ["--beam", "3", "--update", "max-violation", "--restart", "--beam-labels", "2", "--epochs", "2"],
        dict(beam=3, update="max-violation", restart=True, beam_labels=2, epochs=2),
    ),
    (["--feats", "--lemma", "--xpos", "--epochs", "2"], dict(feats=True, lemma=True, xpos=True, epochs=2)),
    (["--skip-nonprojective", "--epochs", "2", "--seed", "11"], dict(skip_nonprojective=True, epochs=2, seed=11)),
    (["--system", "arc-eager", "--root", "last", "--epochs", "2"], dict(system="arc-eager", root="last", epochs=2)),
    (
        ["--root", "last", "--beam", "2", "--oracle", "static", "--epochs", "2"],
        dict(root="last", beam=2, oracle="static", epochs=2),
    ),
]


@pytest.mark.parametrize("options,keywords", SETTINGS, ids=[" ".join(o) for o, _ in SETTINGS])
def test_a_model_trained_from_python_is_the_command_lines_byte_for_byte(cli, tmp_path, options, keywords):
    train = treebank(tmp_path / "train.conllu", 40, seed=1)
    dev = treebank(tmp_path / "dev.conllu", 12, seed=2)
    expected = cli_model(cli, tmp_path, train, *options, *SMALL_TABLES, dev=dev)
    parser = tp.Parser.train(train, dev, step_bits=12, label_bits=10, **keywords)
    assert python_model(tmp_path, parser) == expected
    # From Sentences rather than files: the same model.
    again = tp.Parser.train(tp.read_conllu(train), tp.read_conllu(dev), step_bits=12, label_bits=10, **keywords)
    assert python_model(tmp_path, again) == expected
    # Loading gives the same parser.
    assert python_model(tmp_path, tp.Parser.load(tmp_path / "cli.model")) == expected


def test_continuing_from_a_model_matches_init(cli, tmp_path):
    train = treebank(tmp_path / "train.conllu", 30, seed=3)
    first = tmp_path / "first.model"
    run(cli, "train", str(train), "-o", str(first), "--oracle", "static", "--epochs", "1", *SMALL_TABLES)
    expected = cli_model(cli, tmp_path, train, "--init", str(first), "--epochs", "2", *SMALL_TABLES)
    start = tp.Parser.load(first)
    for init in (start, first, str(first)):
        parser = tp.Parser.train(train, init=init, epochs=2, step_bits=12, label_bits=10)
        assert python_model(tmp_path, parser) == expected


def test_the_kept_epoch_and_the_history():
    parser = tp.Parser.train(SAMPLE, SAMPLE, epochs=3, step_bits=12, label_bits=10)
    assert parser.epoch in (1, 2, 3) and len(parser.history) == 3
    best = max(parser.history, key=lambda h: (h["dev_las"], h["dev_uas"], -h["epoch"]))
    assert best["epoch"] == parser.epoch
    assert [h["epoch"] for h in parser.history] == [1, 2, 3]
    assert parser.system == "arc-hybrid" and parser.beam == 1 and not parser.feats
    assert "root" in parser.labels and parser.labels == sorted(parser.labels)


def test_training_is_quiet_unless_verbose(cli, capfd, tmp_path):
    """Verbose, Python prints what `tabula train` prints (but the timings
    and the file written): both are the library's job and its reporter."""
    tp.Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10)
    assert capfd.readouterr().err == ""
    tp.Parser.train(SAMPLE, SAMPLE, epochs=2, step_bits=12, label_bits=10, verbose=True)
    err = capfd.readouterr().err.splitlines()
    assert err[0].startswith(f"{SAMPLE}: 6 sentences, 41 tokens")
    assert err[1].startswith("epoch 1/2: 41 tokens") and "dev UAS" in err[1]
    args = ["train", str(SAMPLE), "--dev", str(SAMPLE), "-o", str(tmp_path / "m"), "--epochs", "2", *SMALL_TABLES]
    printed = run(cli, *args).stderr.splitlines()
    untimed = lambda lines: [re.sub(r"in [0-9.]+ s \([0-9]+ tokens/s\)", "", l) for l in lines]
    assert untimed(err) == untimed(printed[:-1]) and printed[-1].startswith("wrote ")


@pytest.mark.parametrize("beam,threads,root", [(None, 1, "first"), (None, 3, "first"), (2, 2, "first"), (1, 1, "first"), (None, 2, "last"), (1, 1, "last")])
def test_parse_writes_what_the_command_line_writes(cli, tmp_path, beam, threads, root):
    train = treebank(tmp_path / "train.conllu", 40, seed=4)
    test = treebank(tmp_path / "test.conllu", 25, seed=5)
    model = tmp_path / "m.model"
    run(cli, "train", str(train), "-o", str(model), "--beam", "2", "--epochs", "2", "--root", root, *SMALL_TABLES)
    args = ["parse", "--model", str(model), str(test), "-o", str(tmp_path / "cli.conllu"), "--threads", str(threads)]
    if beam is not None:
        args += ["--beam", str(beam)]
    noted = run(cli, *args).stderr
    if beam is not None and beam != 2:
        # Another width than the training one: noted on stderr, a UserWarning in Python.
        assert f"trained with a beam of 2, parsing with a beam of {beam}" in noted
        with pytest.warns(UserWarning, match=f"trained with a beam of 2, parsing with a beam of {beam}"):
            parsed = tp.Parser.load(model).parse(tp.read_conllu(test), beam=beam, threads=threads)
    else:
        parsed = tp.Parser.load(model).parse(tp.read_conllu(test), beam=beam, threads=threads)
    tp.write_conllu(tmp_path / "py.conllu", parsed)
    assert (tmp_path / "py.conllu").read_bytes() == (tmp_path / "cli.conllu").read_bytes()
    assert "".join(s.to_conllu() for s in parsed) == (tmp_path / "cli.conllu").read_text()


def test_parse_fills_sentences_without_a_tree(cli, tmp_path):
    """Text to parse: HEAD and DEPREL `_`. Read as sentences without a tree,
    parsed as `tabula parse` parses them."""
    model = tmp_path / "m.model"
    run(cli, "train", str(SAMPLE), "-o", str(model), "--epochs", "2", *SMALL_TABLES)
    lines = []
    for line in SAMPLE.read_text().splitlines(keepends=True):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[6] = cols[7] = "_"
        lines.append("\t".join(cols))
    bare = tmp_path / "bare.conllu"
    bare.write_text("".join(lines))
    sentences = tp.read_conllu(bare)
    assert all(s.heads is None and not s.has_tree for s in sentences)
    with pytest.raises(ValueError, match="has no tree"):
        tp.Session(sentences[0])
    # Written as read; new heads need a tree to rewrite.
    tp.write_conllu(tmp_path / "copy.conllu", sentences)
    assert (tmp_path / "copy.conllu").read_bytes() == bare.read_bytes()
    with pytest.raises(ValueError, match="sentence 0: new heads for a sentence without a tree"):
        tp.write_conllu(tmp_path / "copy.conllu", sentences[:1], [[0] * len(sentences[0])])
    expected = run(cli, "parse", "--model", str(model), str(bare)).stdout
    parsed = tp.Parser.load(model).parse(sentences)
    assert "".join(s.to_conllu() for s in parsed) == expected
    assert all(s.has_tree for s in parsed)
    assert [s.heads for s in parsed] == [s.heads for s in tp.parse_conllu(expected)]


def test_parse_releases_the_gil_and_threads_agree(tmp_path):
    parser = tp.Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10)
    sentences = tp.read_conllu(treebank(tmp_path / "t.conllu", 200, seed=6)) + tp.read_conllu(SAMPLE)
    expected = [s.to_conllu() for s in parser.parse(sentences)]
    results: list[list[str]] = []

    def work() -> None:
        results.append([s.to_conllu() for s in parser.parse(sentences, threads=2)])

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert results == [expected] * 4


def test_parse_warnings_and_errors_are_the_command_lines(cli, tmp_path):
    # The sample has no FEATS: training on it with feats=True is an error,
    # parsing it with a model that reads FEATS a warning.
    with pytest.raises(ValueError, match="every FEATS is `_`, but the features were asked to read FEATS"):
        tp.Parser.train(SAMPLE, epochs=1, step_bits=12, label_bits=10, feats=True)
    lines = [l.split("\t") for l in SAMPLE.read_text().splitlines()]
    with_feats = "\n".join("\t".join(f[:5] + ["Case=Nom"] + f[6:]) if len(f) == 10 else "\t".join(f) for f in lines)
    parser = tp.Parser.train(tp.parse_conllu(with_feats + "\n"), epochs=1, step_bits=12, label_bits=10, feats=True)
    with pytest.warns(UserWarning, match="every FEATS is `_`"):
        parser.parse(tp.read_conllu(SAMPLE))
    one = SAMPLE.read_text().replace("\tPROPN\t", "\t_\t", 1)
    with pytest.warns(UserWarning) as record:
        parser.parse(tp.parse_conllu(one))
    assert [str(w.message).split(";")[0] for w in record] == [
        "1 of 41 words have no UPOS (`_`)",
        "every FEATS is `_`, but the model was trained with feats=True: if the treebank has morphological features, add them first (accuracy suffers without them)",
    ]
    untagged = tp.parse_conllu("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "untagged.conllu")
    with pytest.raises(ValueError, match="untagged.conllu:1: no word of this sentence has a UPOS"):
        parser.parse(untagged)
    with pytest.raises(ValueError, match="beam=0"):
        parser.parse(tp.read_conllu(SAMPLE), beam=0)
    with pytest.raises(ValueError, match="threads=0"):
        parser.parse(tp.read_conllu(SAMPLE), threads=0)
    # max_words: as `tabula parse --max-words`, a longer sentence is an error naming its line.
    with pytest.raises(ValueError, match="sample.conllu:1: a sentence of 8 words, longer than max_words=7"):
        parser.parse(tp.read_conllu(SAMPLE), max_words=7)
    with pytest.raises(ValueError, match="max_words=0: no sentence is that short"):
        parser.parse(tp.read_conllu(SAMPLE), max_words=0)
    with pytest.raises(TypeError, match="list of Sentences"):
        parser.parse("not sentences")  # type: ignore[arg-type]


def test_check_input_is_the_parsers_check():
    # A parser of your own gets Parser.parse's checks and messages.
    lines = [l.split("\t") for l in SAMPLE.read_text().splitlines()]
    with_feats = "\n".join("\t".join(f[:5] + ["Case=Nom"] + f[6:]) if len(f) == 10 else "\t".join(f) for f in lines)
    parser = tp.Parser.train(tp.parse_conllu(with_feats + "\n"), epochs=1, step_bits=12, label_bits=10, feats=True)
    assert tp.check_input(tp.read_conllu(SAMPLE)) == []
    one = tp.parse_conllu(SAMPLE.read_text().replace("\tPROPN\t", "\t_\t", 1))
    with pytest.warns(UserWarning) as record:
        parser.parse(one)
    assert tp.check_input(one, feats=True) == [str(w.message) for w in record]
    assert tp.check_input(one, file="in.conllu", command_line=True, model_name="m.pt") == [
        "in.conllu: 1 of 41 words have no UPOS (`_`); the model reads UPOS"
    ]
    assert "m.pt was trained with --feats" in tp.check_input(one, feats=True, model_name="m.pt", command_line=True)[1]
    assert tp.check_input(tp.parse_conllu(with_feats + "\n"), feats=True) == []
    # The error names the first word's line, after comments.
    untagged = tp.parse_conllu("# text = Hi\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "untagged.conllu")
    with pytest.raises(ValueError, match=r"untagged.conllu:2: no word of this sentence has a UPOS .*tag first \(`tabula tag`\)"):
        tp.check_input(untagged)
    with pytest.raises(TypeError, match="`sentences` must be a list of Sentences"):
        tp.check_input("in.conllu")  # type: ignore[arg-type]

def test_evaluate_is_eval_json(cli, tmp_path):
    model = tmp_path / "m.model"
    train = treebank(tmp_path / "train.conllu", 40, seed=7)
    test = treebank(tmp_path / "test.conllu", 30, seed=8)
    run(cli, "train", str(train), "-o", str(model), "--epochs", "2", *SMALL_TABLES)
    pred = tmp_path / "pred.conllu"
    run(cli, "parse", "--model", str(model), str(test), "-o", str(pred))
    expected = json.loads(run(cli, "eval", str(test), str(pred), "--json").stdout)
    assert tp.evaluate(test, pred) == expected
    assert tp.evaluate(str(test), str(pred)) == expected
    parsed = tp.Parser.load(model).parse(tp.read_conllu(test))
    assert tp.evaluate(tp.read_conllu(test), parsed) == expected
    assert tp.evaluate(test, parsed) == expected
    # Without gold labels: LAS is None, as the command line's null.
    bare = tmp_path / "bare.conllu"
    bare.write_text("\n".join(
        "\t".join(c[:7] + ["_"] + c[8:]) if len(c := line.split("\t")) == 10 else line
        for line in test.read_text().split("\n")
    ))
    expected = json.loads(run(cli, "eval", str(bare), str(pred), "--json").stdout)
    got = tp.evaluate(bare, pred)
    assert got == expected and got["all"]["las"] is None


def test_evaluate_errors_name_the_lines(tmp_path):
    gold = tp.read_conllu(SAMPLE)
    with pytest.raises(ValueError, match="the predicted file has fewer sentences"):
        tp.evaluate(gold, gold[:-1])
    with pytest.raises(FileNotFoundError):
        tp.evaluate(tmp_path / "missing.conllu", SAMPLE)


# Options that have no effect in the mode chosen, and out-of-range values:
# the command line's messages, in Python's spelling.
REFUSED = [
    (["--oracle", "static", "--algorithm", "cubic"], dict(oracle="static", algorithm="cubic"),
     "algorithm applies to the dynamic oracle (oracle=\"dynamic\"); the static oracle follows the canonical computation"),
    (["--oracle", "static", "--strategy", "lbr"], dict(oracle="static", strategy="lbr"), None),
    (["--max-gamma", "10"], dict(max_gamma=10),
     "max_gamma applies to system=\"attardi\" only (its tabular oracle), not arc-hybrid"),
    (["--max-pairs", "10"], dict(max_pairs=10),
     "max_pairs applies to system=\"attardi\" only (its tabular oracle), not arc-hybrid"),
    (["--system", "attardi", "--max-pairs", "0"], dict(system="attardi", max_pairs=0), "max_pairs must be at least 1"),
    (["--skip-nonprojective", "--projectivize", "lift"], dict(skip_nonprojective=True, projectivize="lift"),
     "projectivize=\"lift\": with skip_nonprojective=True no tree is left to projectivize"),
    (["--update", "full"], dict(update="full"), None),
    (["--restart"], dict(restart=True), None),
    (["--beam-labels", "2"], dict(beam_labels=2), None),
    (["--beam", "2", "--explore-p", "0.5"], dict(beam=2, explore_p=0.5), None),
    (["--oracle", "static", "--explore-from", "2"], dict(oracle="static", explore_from=2), None),
    (["--explore-p", "1.5"], dict(explore_p=1.5), "explore_p 1.5 is not a probability"),
    (["--epochs", "0"], dict(epochs=0), "epochs=0: nothing trained"),
    (["--system", "arc-standard", "--root", "last"], dict(system="arc-standard", root="last"),
     'root="last": the root in last position is offered for arc-hybrid and arc-eager, not arc-standard'),
]


@pytest.mark.parametrize("options,keywords,message", REFUSED, ids=[" ".join(o) for o, _, _ in REFUSED])
def test_options_without_effect_are_errors_as_on_the_command_line(cli, tmp_path, options, keywords, message):
    p = run(cli, "train", str(SAMPLE), "-o", str(tmp_path / "m"), *options, check=False)
    assert p.returncode == 1
    cli_message = p.stderr.strip().removeprefix("error: ")
    with pytest.raises(ValueError) as e:
        tp.Parser.train(SAMPLE, **keywords)
    if message is not None:
        assert str(e.value) == message
    # The same text, but for the spelling of the options.
    def words(text: str) -> list[str]:
        return [w for w in re.findall(r"[A-Za-z0-9.|]+", text.replace("_", " ").replace("-", " ")) if w != "True"]

    assert words(str(e.value)) == words(cli_message)


def test_bad_option_values_are_errors():
    with pytest.raises(TypeError):
        tp.Parser.train(SAMPLE, epoch=3)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match='oracle="greedy": expected one of "static", "dynamic"'):
        tp.Parser.train(SAMPLE, oracle="greedy")
    with pytest.raises(ValueError, match="unknown"):
        tp.Parser.train(SAMPLE, system="arc-swift")
    with pytest.raises(ValueError, match="beam=0: the beam width is 1 to 1024"):
        tp.Parser.train(SAMPLE, beam=0)
    with pytest.raises(ValueError, match="step_bits=3: log2 of the table's rows is 4 to 28"):
        tp.Parser.train(SAMPLE, step_bits=3)
    with pytest.raises(ValueError, match="threads=0"):
        tp.Parser.train(SAMPLE, threads=0)
    with pytest.raises(ValueError) as e:
        tp.Parser.train(SAMPLE, oracle="static", projectivize="none")
    assert str(e.value).endswith(
        'a non-projective tree, but the static oracle needs projective trees (use projectivize="optimal|lift" '
        'or skip_nonprojective=True, or the dynamic oracle with algorithm="cubic|auto")'
    )
    with pytest.raises(ValueError, match=r"no training sentence: every tree was left out: \d+ non-projective skipped \(skip_nonprojective=True\)"):
        tp.Parser.train(tp.read_conllu(SAMPLE)[:1], skip_nonprojective=True)
    with pytest.raises(TypeError, match="path or a list of Sentences"):
        tp.Parser.train(42)  # type: ignore[arg-type]


def test_parsers_pickle_as_their_model_bytes(tmp_path):
    parser = tp.Parser.train(SAMPLE, epochs=1, step_bits=12, label_bits=10, beam=2)
    parser.save(tmp_path / "m.model")
    data = (tmp_path / "m.model").read_bytes()
    assert parser.to_bytes() == data
    again = pickle.loads(pickle.dumps(parser))
    assert again.to_bytes() == data and again.beam == 2
    assert tp.Parser.from_bytes(data).to_bytes() == data
    with pytest.raises(ValueError, match="truncated"):
        tp.Parser.from_bytes(data[:-1])
    sentences = tp.read_conllu(SAMPLE)
    assert [s.to_conllu() for s in again.parse(sentences)] == [s.to_conllu() for s in parser.parse(sentences)]


def test_model_files_errors_are_typed(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.model"):
        tp.Parser.load(tmp_path / "missing.model")
    with pytest.raises(OSError, match="not a regular file"):
        tp.Parser.load(tmp_path)
    (tmp_path / "foreign.model").write_text("hello\n")
    with pytest.raises(ValueError, match="not a tabula parser model"):
        tp.Parser.load(tmp_path / "foreign.model")
    parser = tp.Parser.train(SAMPLE, epochs=1, step_bits=12, label_bits=10)
    parser.save(tmp_path / "m.model")
    data = (tmp_path / "m.model").read_bytes()
    (tmp_path / "short.model").write_bytes(data[:-100])
    with pytest.raises(ValueError, match="truncated"):
        tp.Parser.load(tmp_path / "short.model")
    with pytest.raises(OSError):
        parser.save(tmp_path / "no-such-dir" / "m.model")


def test_the_memory_limit_is_a_memory_error(cli, tmp_path):
    limit = tp.max_memory()
    try:
        tp.set_max_memory("1M")
        assert tp.max_memory() == 1 << 20
        with pytest.raises(MemoryError, match=r"^training the model tables .* would need about .*, more than the limit of 1\.0 MiB \(raise it with set_max_memory\)$"):
            tp.Parser.train(SAMPLE, epochs=1)
        tp.set_max_memory(limit)
        parser = tp.Parser.train(SAMPLE, epochs=1, step_bits=16, label_bits=14)
        parser.save(tmp_path / "m.model")
        tp.set_max_memory(100 << 10)
        with pytest.raises(MemoryError):
            tp.Parser.load(tmp_path / "m.model")
        with pytest.raises(ValueError):
            tp.set_max_memory("lots")
    finally:
        tp.set_max_memory(limit)
    assert tp.max_memory() == limit


def test_sentence_columns(tmp_path):
    path = treebank(tmp_path / "t.conllu", 6, seed=9)
    for s in tp.read_conllu(path):
        words = [line.split("\t") for line in s.to_conllu().splitlines() if line[:1].isdigit() and "-" not in line.split("\t")[0]]
        assert len(s) == len(words)
        assert s.forms == [w[1] for w in words] and s.lemmas == [w[2] for w in words]
        assert s.upos == [w[3] for w in words] and s.xpos == [w[4] for w in words]
        assert s.feats == [w[5] for w in words] and s.heads == [int(w[6]) for w in words]
        assert s.deprels == [w[7] for w in words] and s.deps == [w[8] for w in words]
        assert s.misc == [w[9] for w in words]
        assert s.text == f"sentence {s.sent_id.split('-')[1]}"
    assert tp.parse_conllu("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n")[0].text is None


def test_the_docstring_examples_run(monkeypatch, tmp_path):
    """The examples in the parser's docstrings, run from any directory (they
    read the package's `SAMPLE`)."""
    monkeypatch.chdir(tmp_path)
    documented = [tp.Parser.train, tp.Parser.load, tp.Parser.parse, tp.evaluate]
    run_docstring_examples(documented)


@pytest.mark.parametrize(
    "cli_args,kwargs",
    [
        (["--pseudo-projective", "head"], {"pseudo_projective": "head"}),
        (["--subsample", "0.5", "--max-words", "30"], {"subsample": 0.5, "max_words": 30}),
        (["--tagger", "{tagger}"], {"tagger": "{tagger}"}),
        (["--tagger", "{tagger}", "--jackknife", "2"], {"tagger": "{tagger}", "jackknife": 2}),
        (["--beam", "3", "--update", "max-violation"], {"beam": 3, "update": "max-violation"}),
    ],
    ids=["pseudo-projective", "subsample", "tagger", "jackknife", "beam"],
)
def test_train_options_give_the_command_lines_model(cli, tmp_path, cli_args, kwargs):
    """Every option of `tabula train` in Parser.train, the same model byte for
    byte: both run the library's training job."""
    tagger = tmp_path / "t.tagger"
    run(cli, "train-tagger", str(SAMPLE), "-o", str(tagger), "--epochs", "2", "--bits", "12")
    cli_args = [a.replace("{tagger}", str(tagger)) for a in cli_args]
    kwargs = {k: (v.replace("{tagger}", str(tagger)) if isinstance(v, str) else v) for k, v in kwargs.items()}
    model = tmp_path / "m.model"
    run(cli, "train", str(SAMPLE), "-o", str(model), "--epochs", "2", *cli_args, *SMALL_TABLES)
    parser = tp.Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10, **kwargs)
    assert parser.to_bytes() == model.read_bytes()
    if "tagger" in kwargs:
        # A Tagger object works as its file does.
        again = tp.Parser.train(SAMPLE, epochs=2, step_bits=12, label_bits=10, **{**kwargs, "tagger": tp.Tagger.load(tagger)})
        assert again.to_bytes() == model.read_bytes()


def test_train_option_checks_name_python_keywords():
    with pytest.raises(ValueError, match=r"^jackknife=K tags the training file with taggers trained like tagger=TAGGER: give tagger$"):
        tp.Parser.train(SAMPLE, jackknife=2)
    with pytest.raises(ValueError, match=r"^jackknife=1: K-fold tagging needs 2 to 100 folds$"):
        tp.Parser.train(SAMPLE, jackknife=1)
    with pytest.raises(ValueError, match=r'^pseudo_projective="head" encodes the moves of projectivize optimal or lift; skip_nonprojective=True moves no word$'):
        tp.Parser.train(SAMPLE, pseudo_projective="head", skip_nonprojective=True)
    with pytest.raises(ValueError, match=r"^subsample=1.5 must be in \(0, 1\]"):
        tp.Parser.train(SAMPLE, subsample=1.5)
    with pytest.raises(ValueError, match=r'^pseudo_projective="up": expected one of'):
        tp.Parser.train(SAMPLE, pseudo_projective="up")


@pytest.mark.parametrize("flags,kwargs", [(["--constraints"], {"constraints": True}),
                                          (["--constraints", "--constraint-kind", "direction"], {"constraints": True, "constraint_kind": "direction"}),
                                          (["--tagger", "{tagger}"], {"tagger": "{tagger}"})], ids=["arcs", "direction", "tagger"])
def test_parse_options_write_what_the_command_line_writes(cli, tmp_path, flags, kwargs):
    tagger = tmp_path / "t.tagger"
    run(cli, "train-tagger", str(SAMPLE), "-o", str(tagger), "--epochs", "2", "--bits", "12")
    flags = [f.replace("{tagger}", str(tagger)) for f in flags]
    kwargs = {k: (v.replace("{tagger}", str(tagger)) if isinstance(v, str) else v) for k, v in kwargs.items()}
    model = tmp_path / "m.model"
    run(cli, "train", str(SAMPLE), "-o", str(model), "--epochs", "2", *SMALL_TABLES)
    expected = run(cli, "parse", "--model", str(model), str(SAMPLE), *flags).stdout
    parsed = tp.Parser.load(model).parse(tp.read_conllu(SAMPLE), **kwargs)
    assert "".join(s.to_conllu() for s in parsed) == expected
    with pytest.raises(ValueError, match=r'^constraint_kind="direction" says what constraints keeps; add constraints=True$'):
        tp.Parser.load(model).parse(tp.read_conllu(SAMPLE), constraint_kind="direction")


def test_a_loaded_parser_has_no_epoch_or_history(tmp_path):
    """The model file keeps the weights, not the training's history: a
    loaded parser says so (`None`, `[]`, as documented), it does not make
    one up."""
    parser = tp.Parser.train(SAMPLE, SAMPLE, epochs=2, step_bits=12, label_bits=10)
    assert parser.epoch in (1, 2) and len(parser.history) == 2
    parser.save(tmp_path / "p.model")
    loaded = tp.Parser.load(tmp_path / "p.model")
    assert loaded.epoch is None and loaded.history == []
    assert "None" in tp.Parser.epoch.__doc__ and "loaded" in tp.Parser.history.__doc__


def test_exploration_options_without_an_exploring_epoch_are_refused() -> None:
    with pytest.raises(ValueError, match="explore_p: no epoch explores: exploration starts after epoch 1 and epochs=1 stops before"):
        tp.Parser.train(tp.SAMPLE, epochs=1, explore_p=0.5)
    with pytest.raises(ValueError, match="restart=True: .*update=\"full\" updates on the whole computations"):
        tp.Parser.train(tp.SAMPLE, epochs=2, beam=2, update="full", restart=True)
