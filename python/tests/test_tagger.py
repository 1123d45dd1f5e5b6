"""Tagger.train / save / load / tag / accuracy against `tabula train-tagger`
and `tabula tag` on the same files: the same tagger bytes, the same output
bytes, the same accuracy, the same error messages."""

from __future__ import annotations

import pickle
import random
import re
from pathlib import Path

import pytest

import tabula_parsing as tp
from conftest import ROOT, random_tree, run, run_docstring_examples

SAMPLE = ROOT / "data" / "sample.conllu"
WORDS = {"NOUN": ["dog", "cat", "tree", "idea"], "VERB": ["runs", "sees", "likes"], "DET": ["the", "a"],
         "ADJ": ["big", "red"], "ADP": ["in", "on"], "PRON": ["it", "she"], "PUNCT": ["."]}


def treebank(path: Path, sentences: int, seed: int) -> Path:
    """A random treebank whose words mostly predict their UPOS (and FEATS),
    with comments, a multiword token and some ambiguous or unseen words."""
    rng = random.Random(seed)
    blocks = []
    for i in range(sentences):
        n = rng.randint(1, 12)
        heads = random_tree(n, rng)
        lines = [f"# sent_id = t-{i}"]
        if n >= 2 and i % 7 == 0:
            lines.append("1-2\tw12\t_\t_\t_\t_\t_\t_\t_\t_")
        for d, h in enumerate(heads, 1):
            tag = rng.choice(sorted(WORDS))
            form = rng.choice(WORDS[tag]) if rng.random() < 0.85 else rng.choice(["xyz", "runs", "big"]) + str(rng.randint(0, 9))
            feat = f"Number={'Plur' if form.endswith('s') else 'Sing'}" if tag in ("NOUN", "VERB") else "_"
            label = "root" if h == 0 else "dep"
            lines.append(f"{d}\t{form}\t_\t{tag}\t_\t{feat}\t{h}\t{label}\t_\t_")
        blocks.append("\n".join(lines) + "\n\n")
    path.write_text("".join(blocks))
    return path


# (command-line options, the same as Python keywords)
SETTINGS = [
    ([], {}),
    (["--epochs", "3", "--seed", "7"], dict(epochs=3, seed=7)),
    (["--feats", "--epochs", "2"], dict(feats=True, epochs=2)),
    (["--decode", "viterbi", "--epochs", "2"], dict(decode="viterbi", epochs=2)),
    (["--passes", "2", "--epochs", "2"], dict(passes=2, epochs=2)),
    (["--dictionary-min-count", "2", "--dictionary-min-share", "0.9"], dict(dictionary_min_count=2, dictionary_min_share=0.9)),
    (["--dictionary-min-share", "1.5", "--epochs", "2"], dict(dictionary_min_share=1.5, epochs=2)),
    (["--direction", "right-to-left", "--feats", "--epochs", "2"], dict(direction="right-to-left", feats=True, epochs=2)),
    (["--direction", "both", "--ensemble", "2", "--passes", "2", "--epochs", "2"],
     dict(direction="both", ensemble=2, passes=2, epochs=2)),
]


@pytest.mark.parametrize("options,keywords", SETTINGS, ids=[" ".join(o) or "defaults" for o, _ in SETTINGS])
def test_a_tagger_trained_from_python_is_the_command_lines_byte_for_byte(cli, tmp_path, options, keywords):
    train = treebank(tmp_path / "train.conllu", 60, seed=1)
    dev = treebank(tmp_path / "dev.conllu", 15, seed=2)
    out = tmp_path / "cli.tagger"
    run(cli, "train-tagger", str(train), "-o", str(out), "--dev", str(dev), "--bits", "12", *options)
    expected = out.read_bytes()
    tagger = tp.Tagger.train(train, dev, bits=12, **keywords)
    assert tagger.to_bytes() == expected
    # From Sentences rather than files: the same tagger.
    again = tp.Tagger.train(tp.read_conllu(train), tp.read_conllu(dev), bits=12, **keywords)
    assert again.to_bytes() == expected
    assert tp.Tagger.load(out).to_bytes() == expected
    tagger.save(tmp_path / "py.tagger")
    assert (tmp_path / "py.tagger").read_bytes() == expected


@pytest.mark.parametrize("feats,decode,threads", [(False, None, 1), (True, None, 3), (False, "viterbi", 2), (True, "greedy", 1)])
def test_tag_writes_what_the_command_line_writes(cli, tmp_path, feats, decode, threads):
    train = treebank(tmp_path / "train.conllu", 60, seed=3)
    test = treebank(tmp_path / "test.conllu", 20, seed=4)
    tagger = tp.Tagger.train(train, bits=12, epochs=3, feats=feats)
    tagger.save(tmp_path / "t.tagger")
    args = ["tag", "--tagger", str(tmp_path / "t.tagger"), str(test), "-o", str(tmp_path / "cli.conllu")]
    if decode:
        args += ["--decode", decode]
    run(cli, *args)
    tagged = tagger.tag(tp.read_conllu(test), decode=decode, threads=threads)
    tp.write_conllu(tmp_path / "py.conllu", tagged)
    assert (tmp_path / "py.conllu").read_bytes() == (tmp_path / "cli.conllu").read_bytes()


def test_accuracy_is_tag_eval(cli, tmp_path):
    train = treebank(tmp_path / "train.conllu", 60, seed=5)
    test = treebank(tmp_path / "test.conllu", 20, seed=6)
    for feats in (False, True):
        tagger = tp.Tagger.train(train, bits=12, epochs=3, feats=feats)
        tagger.save(tmp_path / "t.tagger")
        err = run(cli, "tag", "--tagger", str(tmp_path / "t.tagger"), str(test), "-o", str(tmp_path / "x.conllu"), "--eval").stderr
        words, rest = re.search(r": (\d+) words: (.*)", err).groups()
        a = tagger.accuracy(test, threads=2)
        assert a["words"] == int(words)
        expected = f"UPOS {a['upos']:.2f}%" + (f" FEATS {a['feats']:.2f}%" if feats else "")
        assert rest.strip() == expected
        assert (a["feats"] is None) == (not feats)
        assert tagger.accuracy(tp.read_conllu(test)) == a


def test_tagging_untagged_text_then_parsing(tmp_path):
    """A file without UPOS: the parser refuses it, the tagger fills it."""
    train = treebank(tmp_path / "train.conllu", 60, seed=7)
    text = "".join(
        "\n".join(
            f"{d}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_" for d, w in enumerate(sentence.split(), 1)
        ) + "\n\n"
        for sentence in ["the dog sees a cat .", "she likes it", "xyz runs"]
    )
    untagged = tp.parse_conllu(text)
    assert all(u == "_" for s in untagged for u in s.upos)
    parser = tp.Parser.train(train, epochs=2, step_bits=12, label_bits=10)
    with pytest.raises(ValueError, match="UPOS"):
        parser.parse(untagged)
    tagger = tp.Tagger.train(train, bits=12, epochs=3)
    tagged = tagger.tag(untagged)
    assert [s.upos for s in tagged][0] == ["DET", "NOUN", "VERB", "DET", "NOUN", "PUNCT"]
    assert [s.forms for s in tagged] == [s.forms for s in untagged]
    parsed = parser.parse(tagged)
    assert all(s.has_tree and len(s.heads) == len(s.forms) for s in parsed)


def test_the_kept_epoch_and_the_history(tmp_path):
    train = treebank(tmp_path / "train.conllu", 40, seed=8)
    tagger = tp.Tagger.train(train, train, bits=12, epochs=3, passes=2)
    first = [h for h in tagger.history if h["pass"] == 1]
    second = [h for h in tagger.history if h["pass"] == 2]
    assert [h["epoch"] for h in first] == [1, 2, 3] and [h["epoch"] for h in second] == [1, 2, 3]
    best = max(first, key=lambda h: (h["dev"]["upos"], -h["epoch"]))
    assert best["epoch"] == tagger.epoch and best["best"]
    assert all(0 <= h["errors"] <= h["words"] for h in tagger.history)
    assert not any(h["backward"] for h in tagger.history)
    both = tp.Tagger.train(train, train, bits=12, epochs=2, direction="both")
    assert [(h["epoch"], h["backward"]) for h in both.history] == [(1, False), (2, False), (1, True), (2, True)]
    assert tagger.passes == 2 and tagger.decode == "greedy" and not tagger.feats
    assert tagger.tags == sorted(WORDS) and tagger.dictionary_words >= 0
    assert repr(tagger) == f'Tagger(tags={len(WORDS)}, feats=False, decode="greedy", passes=2)'


def test_training_is_quiet_unless_verbose(capfd):
    tp.Tagger.train(SAMPLE, epochs=2, bits=12)
    assert capfd.readouterr().err == ""
    tp.Tagger.train(SAMPLE, SAMPLE, epochs=2, bits=12, verbose=True)
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith("epoch 1: ") and "dev UPOS" in err[0]


def test_bad_option_values_are_the_command_lines_errors(cli, tmp_path):
    for keywords, flags in [
        (dict(epochs=0), ["--epochs", "0"]),
        (dict(bits=3), ["--bits", "3"]),
        (dict(passes=3), ["--passes", "3"]),
        (dict(dictionary_min_share=0.4), ["--dictionary-min-share", "0.4"]),
        (dict(ensemble=0), ["--ensemble", "0"]),
    ]:
        with pytest.raises(ValueError) as e:
            tp.Tagger.train(SAMPLE, **keywords)
        name, value = flags[0][2:].replace("-", "_"), flags[1]
        assert str(e.value).startswith(f"{name}={value}: ")
        if name == "dictionary_min_share":
            cli_error = run(cli, "train-tagger", str(SAMPLE), "-o", str(tmp_path / "x"), *flags, check=False).stderr
            assert cli_error.strip() == "error: " + str(e.value).replace(f"{name}={value}", " ".join(flags))
    with pytest.raises(ValueError, match='decode="beam": expected one of "greedy", "viterbi"'):
        tp.Tagger.train(SAMPLE, decode="beam")
    with pytest.raises(ValueError, match='direction="up": expected one of "left-to-right", "right-to-left", "both"'):
        tp.Tagger.train(SAMPLE, direction="up")
    with pytest.raises(ValueError, match='direction="both": both directions sum the scores of two greedy ones'):
        tp.Tagger.train(SAMPLE, direction="both", decode="viterbi")
    both = tp.Tagger.train(SAMPLE, direction="both", epochs=1, bits=12)
    with pytest.raises(ValueError, match="a tagger that reads both ways decodes greedily"):
        both.tag(tp.read_conllu(SAMPLE), decode="viterbi")
    with pytest.raises(ValueError, match="threads=0"):
        tp.Tagger.train(SAMPLE, threads=0)
    with pytest.raises(TypeError, match="path or a list of Sentences"):
        tp.Tagger.train(42)  # type: ignore[arg-type]
    untagged = tp.parse_conllu("1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n", "mem.conllu")
    with pytest.raises(ValueError, match=r"mem\.conllu:1: "):
        tp.Tagger.train(untagged)


def test_taggers_pickle_as_their_bytes_and_file_errors_are_typed(tmp_path):
    tagger = tp.Tagger.train(SAMPLE, epochs=2, bits=12, feats=True)
    data = tagger.to_bytes()
    again = pickle.loads(pickle.dumps(tagger))
    assert again.to_bytes() == data and again.feats and again.epoch is None and again.history == []
    sentences = tp.read_conllu(SAMPLE)
    assert [s.to_conllu() for s in again.tag(sentences)] == [s.to_conllu() for s in tagger.tag(sentences)]
    with pytest.raises(ValueError):
        tp.Tagger.from_bytes(data[:-1])
    with pytest.raises(FileNotFoundError, match="missing.tagger"):
        tp.Tagger.load(tmp_path / "missing.tagger")
    (tmp_path / "foreign.tagger").write_text("hello\n")
    with pytest.raises(ValueError, match="not a tabula tagger"):
        tp.Tagger.load(tmp_path / "foreign.tagger")
    parser = tp.Parser.train(SAMPLE, epochs=1, step_bits=12, label_bits=10)
    parser.save(tmp_path / "m.model")
    with pytest.raises(ValueError, match="not a tabula tagger"):
        tp.Tagger.load(tmp_path / "m.model")
    with pytest.raises(OSError):
        tagger.save(tmp_path / "no-such-dir" / "t.tagger")


def test_the_docstring_examples_run(monkeypatch, tmp_path):
    """The examples in the tagger's docstrings, run from any directory (they
    read the package's `SAMPLE`)."""
    monkeypatch.chdir(tmp_path)
    documented = [tp.Tagger.train, tp.Tagger.load, tp.Tagger.tag, tp.Tagger.accuracy]
    run_docstring_examples(documented)


def test_options_that_would_do_nothing_are_refused() -> None:
    """As `tabula train-tagger` refuses them: a dictionary count with the
    dictionary off, threads without a dev file to score."""
    with pytest.raises(ValueError, match="dictionary_min_count=3: dictionary_min_share=1.5 turns the dictionary off"):
        tp.Tagger.train(tp.SAMPLE, epochs=1, bits=12, dictionary_min_count=3, dictionary_min_share=1.5)
    with pytest.raises(ValueError, match=r"threads=2: the threads score the dev file \(dev=…\), and none is given"):
        tp.Tagger.train(tp.SAMPLE, epochs=1, bits=12, threads=2)
    tp.Tagger.train(tp.SAMPLE, tp.SAMPLE, epochs=1, bits=12, threads=2, dictionary_min_share=1.5)
