"""Oracle, Configuration, Session and the batch calls against `tabula oracle`
(JSON mode) on the same configurations: every system, strategy and
algorithm, answers and error messages alike."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import SMALL, oracle_lines, random_tree

STRATEGIES = ["none", "lbr", "strict-lbr", "rbl"]
ALGORITHMS = ["cubic", "quadratic", "linear", "auto"]


def gold_trees() -> list[list[int]]:
    """The trees of the small treebank and random ones (projective or not)."""
    rng = random.Random(9)
    trees = [s.heads for s in tp.read_conllu(SMALL)]
    trees += [random_tree(n, rng) for n in (2, 3, 5, 8, 10, 12)]
    return trees


def walk(heads: list[int], system: str, rng: random.Random) -> list[tp.Configuration]:
    """The configurations of one computation taking random applicable steps."""
    c = tp.Configuration.initial(len(heads), system)
    out = [c.copy()]
    while not c.is_final:
        c.apply(rng.choice(c.applicable_steps()))
        out.append(c.copy())
    return out


def cases(system: str) -> list[tuple[tp.Configuration, list[int]]]:
    rng = random.Random(tp.systems().index(system))
    return [(c, g) for g in gold_trees() for _ in range(2) for c in walk(g, system, rng)]


def json_line(c: tp.Configuration, gold: list[int], strategy: str) -> dict:
    line = {
        "stack": c.stack,
        "buffer": c.buffer,
        "gold": [-1, *gold],
        "system": c.system,
        "strategy": strategy,
        "arcs": [list(a) for a in c.arcs],
    }
    if c.unshifted is not None:  # arc-eager-nm right after an unshift
        line["unshifted"] = c.unshifted
    return line


@pytest.mark.parametrize("system", tp.systems())
def test_every_setting_matches_the_cli(cli, system):
    configs = cases(system)
    compared = 0
    # LR-spine's own algorithm is Goldberg et al. (2014)'s tables.
    algorithms = ALGORITHMS + ["goldberg"] if system == "lr-spine" else ALGORITHMS
    for strategy, algorithm in itertools.product(STRATEGIES, algorithms):
        lines = [json_line(c, g, strategy) for c, g in configs]
        answers = oracle_lines(cli, lines, "--system", system, "--algorithm", algorithm)
        try:
            oracle = tp.Oracle(system=system, strategy=strategy, algorithm=algorithm)
        except ValueError as e:
            # The CLI refuses the same setting on every line, with the same message.
            assert {err for _, err in answers} == {str(e)}, (strategy, algorithm)
            continue
        for (c, g), (answer, error) in zip(configs, answers):
            if error is not None:
                with pytest.raises(ValueError) as e:
                    oracle.scores(c.stack, c.buffer, g, c.arcs, c.unshifted)
                assert str(e.value) == error
                continue
            assert oracle.scores(c.stack, c.buffer, g, c.arcs, c.unshifted) == answer["steps"]
            assert oracle.optimal(c.stack, c.buffer, g, c.arcs, c.unshifted) == answer["optimal"]
            assert oracle.scores_at(c, g) == answer["steps"]
            assert oracle.optimal_at(c, g) == answer["optimal"]
            compared += 1
    # Attardi and arc-eager-nm offer one setting of the sixteen (strategy
    # none, auto = tabular); LR-spine two (strategy none, auto = goldberg),
    # on projective gold trees only.
    assert compared > {"attardi": 300, "arc-eager-nm": 300, "lr-spine": 100}.get(system, 1000)


@pytest.mark.parametrize("system", tp.systems())
def test_scores_batch_equals_one_call_at_a_time(system):
    configs = cases(system)
    # The any-tree algorithm of each system (Attardi: its tabular oracle;
    # LR-spine: Goldberg et al.'s, projective gold trees only).
    algorithm = {"attardi": "tabular", "arc-eager-nm": "tabular", "lr-spine": "goldberg"}.get(system, "cubic")
    oracle = tp.Oracle(system=system, algorithm=algorithm)
    if system == "lr-spine":
        configs = [(c, g) for c, g in configs if tp.Tree(g).is_projective]
    trees = {}
    golds = [trees.setdefault(tuple(g), tp.Tree(g)) for _, g in configs]
    got = oracle.scores_batch([c for c, _ in configs], golds)
    assert got.shape == (len(configs), len(oracle.steps)) and got.dtype == np.int64
    for row, (c, g) in zip(got, configs):
        # One column per step of `steps` (LR-spine: every K), -1 = none.
        scores = oracle.scores_at(c, g)
        expected = [scores.get(step) for step in oracle.steps]
        assert row.tolist() == [-1 if v is None else v for v in expected]
        assert {k for k, v in scores.items() if v is not None} <= set(oracle.steps)
    # Heads as lists and NumPy arrays give the same answers.
    as_arrays = oracle.scores_batch([c for c, _ in configs], [np.array(g, dtype=np.int32) for _, g in configs])
    assert (as_arrays == got).all()


@pytest.mark.parametrize(
    "system,strategy,algorithm",
    [("arc-standard", s, a) for s in STRATEGIES for a in ALGORITHMS]
    + [(s, st, a) for s in ("arc-hybrid", "arc-eager") for st in ("none", "lbr", "strict-lbr") for a in ("auto", "cubic")],
)
def test_session_follows_walks_like_the_cli(cli, system, strategy, algorithm):
    """A session along walks that mostly follow its optimal steps equals the
    CLI's one-shot answers at every configuration."""
    rng = random.Random(5)
    lines, answers, configs = [], [], []
    for gold in gold_trees():
        if algorithm in ("quadratic", "linear") and not tp.Tree(gold).is_projective:
            continue
        s = tp.Session(gold, system=system, strategy=strategy, algorithm=algorithm)
        assert s.gold.heads == gold
        while not s.is_final:
            scores = s.scores()
            configs.append(s.configuration)
            lines.append(json_line(s.configuration, gold, strategy))
            answers.append((scores, s.optimal()))
            optimal = s.optimal()
            step = rng.choice(s.applicable_steps()) if rng.random() < 0.3 or not optimal else rng.choice(optimal)
            s.apply(step)
    cli_answers = oracle_lines(cli, lines, "--system", system, "--algorithm", algorithm)
    for (scores, optimal), (answer, error) in zip(answers, cli_answers):
        assert error is None
        assert scores == answer["steps"]
        assert optimal == answer["optimal"]


@pytest.mark.parametrize("system", tp.systems())
def test_linear_sessions_where_the_library_has_them(cli, system):
    """Every algorithm the library offers a system is reachable; where it has
    a linear one, linear sessions equal the CLI along walks."""
    try:
        tp.Oracle(system, algorithm="linear")
    except ValueError:
        pytest.skip(f"no linear algorithm for {system} in this library")
    test_session_follows_walks_like_the_cli(cli, system, "lbr", "linear")


def test_incremental_session_is_used_for_projective_gold():
    s = tp.Session([2, 0, 2])
    assert s.algorithm == "linear" and s.is_incremental
    s = tp.Session([3, 0, 2, 2, 3], algorithm="auto")  # 1 <- 3 crosses 0 -> 2
    assert not tp.Tree([3, 0, 2, 2, 3]).is_projective
    assert s.algorithm == "cubic" and not s.is_incremental


def test_sessions_in_batch():
    rng = random.Random(3)
    golds = [random_tree(n, rng) for n in range(1, 40)]
    sessions = [tp.Session(g) for g in golds]
    oracle = tp.Oracle()
    while any(not s.is_final for s in sessions):
        live = [s for s in sessions if not s.is_final]
        got = tp.scores_batch(live)
        for row, s in zip(got, live):
            assert row.tolist() == [-1 if v is None else v for v in s.scores().values()]
            assert s.scores() == oracle.scores_at(s.configuration, s.gold)
        steps = [rng.choice(s.optimal() or s.applicable_steps()) for s in live]
        tp.apply_batch(live, steps)


def test_configuration_from_a_session_starts_a_session():
    gold = [2, 0, 2, 5, 3]
    s = tp.Session(gold)
    for step in ["shift", "shift", "reduce_left"]:
        s.apply(step)
    t = tp.Session(gold, configuration=s.configuration)
    assert t.scores() == s.scores() and t.stack == s.stack and t.buffer == s.buffer


def test_arc_eager_needs_arcs(cli):
    gold = [2, 0, 2]
    with pytest.raises(ValueError) as e:
        tp.Oracle("arc-eager").scores([0, 1], [2, 3], gold)
    [(_, error)] = oracle_lines(cli, [{"stack": [0, 1], "buffer": [2, 3], "gold": [-1, *gold]}], "--system", "arc-eager")
    assert str(e.value) == error
    line = {"stack": [0, 1], "buffer": [2, 3], "gold": [-1, *gold], "arcs": []}
    [(answer, _)] = oracle_lines(cli, [line], "--system", "arc-eager")
    assert tp.Oracle("arc-eager").scores([0, 1], [2, 3], gold, arcs=[]) == answer["steps"]


def test_systems_and_per_system_default_strategies():
    """`systems()` lists every system, LR-spine included (its batch columns
    are `shift` and the spine steps of every K its oracle scores); with no
    strategy given, LR-spine and Attardi use `none`, the others `lbr`."""
    assert tp.systems() == ["arc-standard", "arc-hybrid", "arc-eager", "lr-spine", "attardi", "arc-eager-nm"]
    assert tp.steps("lr-spine") == ["shift"] + [f"left_arc_{k}" for k in range(1, 33)] + [
        f"right_arc_{k}" for k in range(1, 33)
    ]
    for system in tp.systems():
        expected = "none" if system in ("attardi", "lr-spine", "arc-eager-nm") else "lbr"
        assert tp.Oracle(system).strategy == expected
        assert tp.Session([2, 0, 2], system=system).strategy == expected
    s = tp.Session([0, 3, 1, 3], system="lr-spine")
    assert s.strategy == "none"
    for step in ["shift", "shift", "shift", "right_arc_1", "shift"]:
        s.apply(step)
    assert "right_arc_2" in s.scores()


def test_arc_eager_nm_configuration_after_an_unshift():
    """Non-monotonic arc-eager (Honnibal & Johnson 2015): after an unshift the
    word moved back is the whole input (`buffer` is []); it is checked,
    scored and pickled with it."""
    import pickle

    c = tp.Configuration([0, 1], [], 3, system="arc-eager-nm", arcs=[(3, 2)], unshifted=3)
    assert (c.buffer, c.unshifted) == ([], 3)
    assert c.applicable_steps() == ["left_arc", "right_arc", "reduce"]
    assert pickle.loads(pickle.dumps(c)) == c
    assert "unshifted=3" in repr(c)
    oracle = tp.Oracle("arc-eager-nm")
    assert oracle.strategy == "none"
    gold = [0, 3, 1]
    assert oracle.scores([0, 1], [], gold, [(3, 2)], unshifted=3) == {
        "shift": None,
        "left_arc": 0,
        "right_arc": 2,
        "reduce": 1,
    }
    assert oracle.optimal_at(c, gold) == ["right_arc"]
    with pytest.raises(ValueError, match="`buffer` must then be"):
        tp.Configuration([0, 1], [3], 3, system="arc-eager-nm", arcs=[(3, 2)], unshifted=3)
    # Reached by steps: shift 1, shift 2, left_arc 3 -> 2, shift 3, then reduce unshifts 3.
    d = tp.Configuration.initial(3, "arc-eager-nm")
    for step in ["shift", "shift", "left_arc", "shift"]:
        d.apply(step)
    d.apply("reduce")  # 3 has no head and the input is empty: unshift
    assert (d.stack, d.buffer, d.unshifted) == ([0, 1], [], 3)


def test_a_linear_session_refuses_a_nonprojective_tree_at_construction():
    """Regression: the error came at the first call; it comes at once, as
    the library's linear and quadratic sessions refuse the tree."""
    with pytest.raises(ValueError, match="the linear algorithm needs a projective gold tree"):
        tp.Session([3, 4, 0, 3], algorithm="linear")
    assert tp.Session([3, 4, 0, 3], algorithm="auto").algorithm == "cubic"
