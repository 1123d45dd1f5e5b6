"""Thread safety of the batch calls, pickling, and the error paths (the
command line's messages)."""

from __future__ import annotations

import copy
import pickle
import random
import threading

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import SMALL, oracle_lines, random_tree


def run_threads(target, count: int = 4) -> list:
    results: list = [None] * count
    errors: list = []

    def work(i: int) -> None:
        try:
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_batch_calls_from_several_threads():
    rng = random.Random(2)
    golds = [random_tree(rng.randint(1, 30), rng) for _ in range(200)]
    configs, trees = [], []
    for g in golds:
        c = tp.Configuration.initial(len(g))
        while not c.is_final:
            configs.append(c.copy())
            trees.append(g)
            c.apply(rng.choice(c.applicable_steps()))
    oracle = tp.Oracle(algorithm="cubic")
    expected_scores = oracle.scores_batch(configs, trees)
    expected_proj = tp.projectivize_batch(golds)
    expected_count = tp.count_batch(golds)

    def work(i: int):
        o = tp.Oracle(algorithm="cubic")
        for _ in range(3):
            assert (o.scores_batch(configs, trees) == expected_scores).all()
            assert tp.projectivize_batch(golds) == expected_proj
            assert tp.count_batch(golds) == expected_count
            sessions = [tp.Session(g) for g in golds[:50]]
            tp.scores_batch(sessions)
        return True

    assert all(run_threads(work))
    # One shared oracle used by several threads at once: batch calls only read it.
    assert all(run_threads(lambda i: (oracle.scores_batch(configs, trees) == expected_scores).all()))


def test_one_shot_calls_from_several_threads():
    """Cubic calls release the GIL: one oracle per thread, the same answers."""
    rng = random.Random(8)
    golds = [random_tree(25, rng) for _ in range(8)]
    configs = []
    for g in golds:
        c = tp.Configuration.initial(len(g))
        while not c.is_final:
            configs.append((c.copy(), g))
            c.apply(rng.choice(c.applicable_steps()))
    expected = [tp.Oracle(algorithm="cubic").scores_at(c, g) for c, g in configs]

    def work(i: int):
        o = tp.Oracle(algorithm="cubic")
        sessions = [tp.Session(g, algorithm="cubic") for g in golds]
        assert all(not s.is_incremental for s in sessions)
        return [o.scores_at(c, g) for c, g in configs] == expected

    assert all(run_threads(work))


def test_one_oracle_shared_by_eight_threads():
    """One Oracle object, one-shot calls from 8 threads at once: no error
    (a thread that finds its buffers in use takes a pooled oracle), the
    answers of a lone oracle."""
    rng = random.Random(9)
    golds = [random_tree(20, rng) for _ in range(8)]
    configs = []
    for g in golds:
        c = tp.Configuration.initial(len(g))
        while not c.is_final:
            configs.append((c.copy(), g))
            c.apply(rng.choice(c.applicable_steps()))
    expected = [tp.Oracle(algorithm="cubic").scores_at(c, g) for c, g in configs]
    shared = tp.Oracle(algorithm="cubic")
    assert all(run_threads(lambda i: [shared.scores_at(c, g) for c, g in configs] == expected, count=8))


def test_a_session_in_use_is_refused_in_a_batch():
    s = tp.Session([2, 0])
    with pytest.raises(ValueError, match="session 1: already in use"):
        tp.scores_batch([s, s])


def test_pickling_and_copying():
    gold = tp.Tree([2, 0, 2, 5, 3])
    assert pickle.loads(pickle.dumps(gold)) == gold
    for system in tp.systems():
        c = tp.Configuration.initial(5, system)
        c.apply("shift")
        c.apply(c.applicable_steps()[-1])
        d = pickle.loads(pickle.dumps(c))
        assert d == c and d.arcs == c.arcs and d.system == system
        assert copy.deepcopy(c) == c and copy.copy(c) is not c
    c = tp.Configuration([0, 2], [3, 4, 5], 5)  # arcs unknown
    assert pickle.loads(pickle.dumps(c)) == c
    s = tp.Session([2, 0, 2, 5, 3], configuration=c)
    assert pickle.loads(pickle.dumps(s)).scores() == s.scores()
    o = pickle.loads(pickle.dumps(tp.Oracle("arc-eager", "none", "cubic")))
    assert (o.system, o.strategy, o.algorithm) == ("arc-eager", "none", "cubic")
    s = tp.Session(gold, strategy="rbl")
    s.apply("shift")
    s.apply("shift")
    t = pickle.loads(pickle.dumps(s))
    assert (t.stack, t.buffer, t.scores(), t.strategy, t.gold) == (s.stack, s.buffer, s.scores(), "rbl", gold)
    g = tp.Grammar.from_file(SMALL.parents[3] / "grammars" / "projective.grammar")
    assert pickle.loads(pickle.dumps(g)).count("a a a a") == 12


# Bad JSON-mode inputs and the Python calls that mirror them.
BAD = [
    ({"stack": [1, 2], "buffer": [3], "gold": [-1, 0, 1, 2]}, ([1, 2], [3], [0, 1, 2])),
    ({"stack": [0, 2, 1], "buffer": [3], "gold": [-1, 0, 1, 2]}, ([0, 2, 1], [3], [0, 1, 2])),
    ({"stack": [0, 1], "buffer": [3, 2], "gold": [-1, 0, 1, 2]}, ([0, 1], [3, 2], [0, 1, 2])),
    ({"stack": [0, 1], "buffer": [2, 3], "gold": [-1, 0, 1]}, ([0, 1], [2, 3], [0, 1])),
    ({"stack": [0, 1], "buffer": [2, 3], "gold": [-1, 2, 3, 1]}, ([0, 1], [2, 3], [2, 3, 1])),
    ({"stack": [0, 1], "buffer": [2, 3], "gold": [-1, 0, 9, 1]}, ([0, 1], [2, 3], [0, 9, 1])),
    ({"stack": [0, -1], "buffer": [2, 3], "gold": [-1, 0, 1, 1]}, ([0, -1], [2, 3], [0, 1, 1])),
    ({"stack": [0, 7], "buffer": [], "gold": [-1, 0, 1, 1]}, ([0, 7], [], [0, 1, 1])),
]


def test_errors_have_the_cli_messages(cli):
    answers = oracle_lines(cli, [line for line, _ in BAD])
    oracle = tp.Oracle()
    for (_, args), (_, error) in zip(BAD, answers):
        assert error is not None
        with pytest.raises(ValueError) as e:
            oracle.scores(*args)
        assert str(e.value) == error
    linear = oracle_lines(cli, [{"stack": [0, 1], "buffer": [2, 3], "gold": [-1, 3, 0, 2]}], "--algorithm", "linear")
    with pytest.raises(ValueError) as e:
        tp.Oracle(algorithm="linear").scores([0, 1], [2, 3], [3, 0, 2])
    assert str(e.value) == linear[0][1]


def test_more_error_paths():
    with pytest.raises(ValueError, match="unknown system `arc-foo`"):
        tp.Oracle("arc-foo")
    with pytest.raises(ValueError, match="unknown strategy"):
        tp.Session([0], strategy="bad")
    with pytest.raises(ValueError, match="unknown algorithm"):
        tp.Oracle(algorithm="fast")
    with pytest.raises(ValueError, match="strategy rbl is not available for arc-hybrid"):
        tp.Oracle("arc-hybrid", "rbl")
    s = tp.Session([0, 1])
    with pytest.raises(ValueError, match="unknown step `left_arc` for arc-standard"):
        s.apply("left_arc")
    with pytest.raises(ValueError, match="reduce_left is not applicable"):
        s.apply("reduce_left")
    with pytest.raises(ValueError, match="`gold` is not a tree: word 1 is its own head"):
        tp.Session([1])
    with pytest.raises(ValueError, match="`heads` is not a tree: the heads form a cycle"):
        tp.projectivize([2, 1, 0])
    with pytest.raises(TypeError, match="must be an array of node numbers"):
        tp.Oracle().scores("0 1", [2], [0, 1])
    with pytest.raises(TypeError, match="must be an integer array"):
        tp.count(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="too long"):
        tp.Configuration.initial(10**12)
    with pytest.raises(OverflowError):
        tp.Configuration.initial(-1)
    with pytest.raises(ValueError, match="unknown method"):
        tp.projectivize([0], "best")
    with pytest.raises(ValueError, match="an oracle for arc-standard was given a arc-eager configuration"):
        tp.Oracle().scores_at(tp.Configuration.initial(2, "arc-eager"), [0, 1])
    with pytest.raises(ValueError, match="configuration 1: "):
        tp.Oracle().scores_batch([tp.Configuration.initial(2)] * 2, [[0, 1], [0]])
    with pytest.raises(ValueError, match="tree 1: `tree` is not a tree"):
        tp.projectivize_batch([[0], [1]])
    with pytest.raises(ValueError, match=r"small.conllu:\d+: expected 10 tab-separated columns"):
        tp.parse_conllu(SMALL.read_text().replace("\tRain\t", " Rain\t"), str(SMALL))
    with pytest.raises(FileNotFoundError):
        tp.read_conllu(SMALL.with_name("missing.conllu"))
    sentences = tp.read_conllu(SMALL)
    with pytest.raises(ValueError, match="sentence 0: the new heads are for 1 words"):
        tp.write_conllu(SMALL.with_name("never.conllu"), sentences[:1], [[0]])
    assert not SMALL.with_name("never.conllu").exists()
