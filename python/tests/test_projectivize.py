"""projectivize, count, read_conllu and write_conllu against `tabula
projectivize` and `tabula count` on the same treebanks."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import ROOT, SMALL, random_tree, run

TREEBANKS = [SMALL, ROOT / "data" / "sample.conllu"]


@pytest.mark.parametrize("path", TREEBANKS, ids=lambda p: p.name)
@pytest.mark.parametrize("args", [("optimal", False), ("lift", False), ("optimal", True)], ids=str)
def test_projectivize_writes_what_the_cli_writes(cli, tmp_path, path, args):
    method, single_root = args
    # Without `prefer`, Sentences are projectivized as the command line does
    # without `--prefer`; heads and Trees (no labels) as with `--prefer none`.
    flags = ["--method", method] + (["--single-root"] if single_root else [])
    expected = run(cli, "projectivize", str(path), *flags).stdout
    unlabelled = run(cli, "projectivize", str(path), *flags, *(["--prefer", "none"] if method == "optimal" else [])).stdout
    sentences = tp.read_conllu(path)
    trees = tp.projectivize_batch(sentences, method, single_root=single_root)
    heads = [t.heads for t in trees]
    assert heads == [tp.projectivize(s, method, single_root=single_root) for s in sentences]
    plain = tp.projectivize_batch([s.tree for s in sentences], method, single_root=single_root)
    assert [t.heads for t in plain] == [tp.projectivize(s.heads, method, single_root=single_root) for s in sentences]
    out = tmp_path / "plain.conllu"
    tp.write_conllu(out, sentences, plain)
    assert out.read_text() == unlabelled
    out = tmp_path / "out.conllu"
    tp.write_conllu(out, sentences, heads)
    assert out.read_text() == expected
    tp.write_conllu(out, sentences, trees)
    assert out.read_text() == expected
    assert all(t.is_projective for t in trees)


@pytest.mark.parametrize("path", TREEBANKS, ids=lambda p: p.name)
@pytest.mark.parametrize("prefer", ["default", "file"])
def test_prefer_writes_what_the_cli_writes(cli, tmp_path, path, prefer):
    if prefer == "file":
        weights = tmp_path / "w.txt"
        weights.write_text("# mine\nleaf -7\nsame-side 3\nroot -100\nhead-upos NOUN 2\n")
        prefer_arg: object = weights
        flag = str(weights)
    else:
        prefer_arg = flag = "default"
    expected = run(cli, "projectivize", str(path), "--prefer", flag).stdout
    sentences = tp.read_conllu(path)
    trees = tp.projectivize_batch(sentences, prefer=prefer_arg)
    assert [t.heads for t in trees] == [tp.projectivize(s, prefer=prefer_arg) for s in sentences]
    out = tmp_path / "out.conllu"
    tp.write_conllu(out, sentences, trees)
    assert out.read_text() == expected


def test_prefer_errors(tmp_path):
    sentence = tp.parse_conllu("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n\n")[0]
    with pytest.raises(ValueError, match="pass Sentences"):
        tp.projectivize([0], prefer="default")
    with pytest.raises(ValueError, match="tree 1: .*pass Sentences"):
        tp.projectivize_batch([sentence, [0]], prefer="default")
    with pytest.raises(ValueError, match="prefer applies to method optimal without sample"):
        tp.projectivize(sentence, "lift", prefer="default")
    with pytest.raises(ValueError, match="prefer applies to method optimal without sample"):
        tp.projectivize(sentence, sample=3, prefer="default")
    bad = tmp_path / "bad.txt"
    bad.write_text("leaf\nbogus 1\n")
    with pytest.raises(ValueError, match=r"bad.txt:1: `leaf` takes 1 field\(s\).*\n.*bad.txt:2: unknown rule `bogus`"):
        tp.projectivize(sentence, prefer=bad)
    with pytest.raises(OSError, match="missing.txt"):
        tp.projectivize(sentence, prefer=tmp_path / "missing.txt")
    assert tp.projectivize(sentence, prefer="none") == [0]


@pytest.mark.parametrize("seed", [1, 7])
def test_sampling_draws_what_the_cli_draws(cli, tmp_path, seed):
    expected = run(cli, "projectivize", str(SMALL), "--sample", str(seed)).stdout
    sentences = tp.read_conllu(SMALL)
    trees = tp.projectivize_batch(sentences, sample=seed)
    out = tmp_path / "out.conllu"
    tp.write_conllu(out, sentences, trees)
    assert out.read_text() == expected
    for i, (s, t) in enumerate(zip(sentences, trees)):
        assert tp.projectivize(s, sample=seed, stream=i) == t.heads
        assert tp.count(t.heads) == 1 and tp.count(s, with_best=True)[0] == sum(
            a == b for a, b in zip(t.heads, s.heads)
        )
    with pytest.raises(ValueError, match="sample applies to method optimal only"):
        tp.projectivize([0], "lift", sample=seed)


@pytest.mark.parametrize("path", TREEBANKS, ids=lambda p: p.name)
def test_count_matches_the_cli(cli, path):
    rows = [line.split("\t") for line in run(cli, "count", str(path)).stdout.splitlines()[1:]]
    sentences = tp.read_conllu(path)
    assert len(rows) == len(sentences)
    batch = tp.count_batch([s.heads for s in sentences], with_best=True)
    for row, s, pair in zip(rows, sentences, batch):
        best, count = int(row[4]), int(row[5])
        assert tp.count(s.heads) == count
        assert tp.count(s.tree, with_best=True) == (best, count) == pair
        assert s.sent_id == (row[1] or None)


def test_counts_beyond_64_bits_are_exact(cli, tmp_path):
    # A random tree of 60 words: about 3e24 optimal projective trees, beyond 64 bits.
    rng = random.Random(1)
    heads = random_tree(60, rng)
    text = "".join(f"{i}\tw\tw\t_\t_\t_\t{h}\tdep\t_\t_\n" for i, h in enumerate(heads, 1)) + "\n"
    path = tmp_path / "one.conllu"
    path.write_text(text)
    row = run(cli, "count", str(path)).stdout.splitlines()[1].split("\t")
    assert tp.count(heads, with_best=True) == (int(row[4]), int(row[5]))
    assert tp.count(heads) > 2**64


def test_projective_trees_come_back_as_the_same_object():
    t = tp.Tree([2, 0, 2])
    assert tp.projectivize_batch([t])[0] is t


def test_numpy_heads_and_trees_agree():
    heads = [3, 0, 2, 2, 3]
    for h in (heads, tuple(heads), np.array(heads), np.array(heads, dtype=np.uint8), tp.Tree(heads)):
        assert tp.projectivize(h) == tp.projectivize(heads)
        assert tp.count(h) == tp.count(heads)


def test_conllu_round_trip_is_byte_exact(tmp_path):
    sentences = tp.read_conllu(SMALL)
    out = tmp_path / "copy.conllu"
    tp.write_conllu(out, sentences)
    assert out.read_bytes() == SMALL.read_bytes()
    assert tp.parse_conllu(SMALL.read_text())[1].heads == sentences[1].heads
    assert "".join(s.to_conllu() for s in sentences).endswith(SMALL.read_text()[-200:])
    assert [len(s) for s in sentences] == [len(s.heads) for s in sentences]
    # Each sentence says where it was read, as messages name it.
    assert {s.file for s in sentences} == {str(SMALL)}
    assert tp.parse_conllu(SMALL.read_text(), "mine")[0].file == "mine"
    lines = SMALL.read_text().split("\n")
    assert all(lines[s.first_line - 1] == s.to_conllu().split("\n")[0] for s in sentences)


def test_memory_limit_and_special_weights_files_are_errors(tmp_path):
    """A sentence whose preference weights and chart exceed the memory limit
    raises ValueError before anything is allocated (it used to abort the
    interpreter), and `prefer=` a device is an OSError, not an endless read."""
    n = 100_000
    lines = []
    for i in range(1, n + 1):
        head = {1: 0, 3: 5, 4: 1, 5: 1}.get(i, i - 1)
        lines.append(f"{i}\tw\t_\tX\t_\t_\t{head}\tdep\t_\t_")
    (sentence,) = tp.parse_conllu("\n".join(lines) + "\n\n", "long.conllu")
    with pytest.raises(ValueError, match="the preference weights and the chart for 100000 words would need about"):
        tp.projectivize(sentence, prefer="default")
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(OSError, match="not a regular file"):
        tp.projectivize(sentence, prefer=str(zero))


def test_a_tree_is_a_sequence_of_heads():
    tree = tp.Tree([2, 0, 2])
    assert list(tree) == tree.heads == [tree[0], tree[1], tree[2]] == [2, 0, 2]
    assert tree[-1] == 2
    with pytest.raises(IndexError):
        tree[3]
    # projectivize and projectivize_batch answer alike, element for element.
    assert list(tp.projectivize_batch([[3, 4, 0, 3]])[0]) == tp.projectivize([3, 4, 0, 3])


def test_bad_numbers_are_value_errors():
    """Regression: a negative seed was an OverflowError, a huge head a TypeError."""
    with pytest.raises(ValueError, match=r"^sample=-1: a seed is an integer from 0 to 2\*\*64 - 1$"):
        tp.projectivize([2, 0], sample=-1)
    with pytest.raises(ValueError, match=r"^stream=-2: "):
        tp.projectivize([2, 0], sample=1, stream=-2)
    with pytest.raises(ValueError, match=r"^sample=-1: "):
        tp.projectivize_batch([[2, 0]], sample=-1)
    with pytest.raises(ValueError, match=r"^seed=-1: "):
        tp.Parser.train(ROOT / "data" / "sample.conllu", seed=-1)
    with pytest.raises(ValueError, match="too large"):
        tp.Tree([2**70, 0])


def test_pseudo_projective_encode_and_decode_round_trip():
    import random

    from conftest import random_tree, run_docstring_examples

    run_docstring_examples([tp.pseudo_projective_encode, tp.pseudo_projective_decode])
    rng = random.Random(3)
    for _ in range(200):
        gold = random_tree(rng.randint(1, 12), rng)
        # Pairwise distinct relations: then head and head+path are exact.
        labels = [f"rel{d}" for d in range(1, len(gold) + 1)]
        for method in ("optimal", "lift"):
            projective = list(tp.projectivize(gold, method))
            for scheme in ("head", "path", "head+path"):
                encoded = tp.pseudo_projective_encode(gold, projective, labels, scheme)
                heads, plain = tp.pseudo_projective_decode(projective, encoded)
                assert plain == labels
                if scheme != "path":
                    assert heads == gold, (gold, method, scheme)
    with pytest.raises(ValueError, match="unknown scheme"):
        tp.pseudo_projective_encode([0], [0], ["root"], "both")


def test_prefer_none_with_sample_or_lift_is_refused() -> None:
    """`none` would do nothing where no preference is read: sampling and
    lifting (as `tabula projectivize --sample N --prefer none` refuses)."""
    sentence = tp.read_conllu(tp.SAMPLE)[0]
    for options in (dict(sample=1), dict(method="lift")):
        with pytest.raises(ValueError, match="prefer applies to method optimal without sample"):
            tp.projectivize(sentence, prefer="none", **options)
