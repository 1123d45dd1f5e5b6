"""Oracle, Configuration, Session and the batch calls against `tabula oracle`
(JSON mode) on the same configurations: every system, strategy and
algorithm, answers and error messages alike."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import tabula
from conftest import SMALL, oracle_lines, random_tree

STRATEGIES = ["none", "lbr", "strict-lbr", "rbl"]
ALGORITHMS = ["cubic", "quadratic", "linear", "auto"]


def gold_trees() -> list[list[int]]:
    """The trees of the small treebank and random ones (projective or not)."""
    rng = random.Random(9)
    trees = [s.heads for s in tabula.read_conllu(SMALL)]
    trees += [random_tree(n, rng) for n in (2, 3, 5, 8, 10, 12)]
    return trees


def walk(heads: list[int], system: str, rng: random.Random) -> list[tabula.Configuration]:
    """The configurations of one computation taking random applicable steps."""
    c = tabula.Configuration.initial(len(heads), system)
    out = [c.copy()]
    while not c.is_final:
        c.apply(rng.choice(c.applicable_steps()))
        out.append(c.copy())
    return out


def cases(system: str) -> list[tuple[tabula.Configuration, list[int]]]:
    rng = random.Random(tabula.systems().index(system))
    return [(c, g) for g in gold_trees() for _ in range(2) for c in walk(g, system, rng)]


def json_line(c: tabula.Configuration, gold: list[int], strategy: str) -> dict:
    return {
        "stack": c.stack,
        "buffer": c.buffer,
        "gold": [-1, *gold],
        "system": c.system,
        "strategy": strategy,
        "arcs": [list(a) for a in c.arcs],
    }


@pytest.mark.parametrize("system", tabula.systems())
def test_every_setting_matches_the_cli(cli, system):
    configs = cases(system)
    compared = 0
    for strategy, algorithm in itertools.product(STRATEGIES, ALGORITHMS):
        lines = [json_line(c, g, strategy) for c, g in configs]
        answers = oracle_lines(cli, lines, "--system", system, "--algorithm", algorithm)
        try:
            oracle = tabula.Oracle(system=system, strategy=strategy, algorithm=algorithm)
        except ValueError as e:
            # The CLI refuses the same setting on every line, with the same message.
            assert {err for _, err in answers} == {str(e)}, (strategy, algorithm)
            continue
        for (c, g), (answer, error) in zip(configs, answers):
            if error is not None:
                with pytest.raises(ValueError) as e:
                    oracle.scores(c.stack, c.buffer, g, c.arcs)
                assert str(e.value) == error
                continue
            assert oracle.scores(c.stack, c.buffer, g, c.arcs) == answer["steps"]
            assert oracle.optimal(c.stack, c.buffer, g, c.arcs) == answer["optimal"]
            assert oracle.scores_at(c, g) == answer["steps"]
            assert oracle.optimal_at(c, g) == answer["optimal"]
            compared += 1
    # Attardi offers one setting of the sixteen (strategy none, auto = tabular).
    assert compared > (300 if system == "attardi" else 1000)


@pytest.mark.parametrize("system", tabula.systems())
def test_scores_batch_equals_one_call_at_a_time(system):
    configs = cases(system)
    # The any-tree algorithm of each system (Attardi: its tabular oracle).
    oracle = tabula.Oracle(system=system, algorithm="tabular" if system == "attardi" else "cubic")
    trees = {}
    golds = [trees.setdefault(tuple(g), tabula.Tree(g)) for _, g in configs]
    got = oracle.scores_batch([c for c, _ in configs], golds)
    assert got.shape == (len(configs), len(oracle.steps)) and got.dtype == np.int64
    for row, (c, g) in zip(got, configs):
        expected = [-1 if v is None else v for v in oracle.scores_at(c, g).values()]
        assert row.tolist() == expected
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
        if algorithm in ("quadratic", "linear") and not tabula.Tree(gold).is_projective:
            continue
        s = tabula.Session(gold, system=system, strategy=strategy, algorithm=algorithm)
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


@pytest.mark.parametrize("system", tabula.systems())
def test_linear_sessions_where_the_library_has_them(cli, system):
    """Every algorithm the library offers a system is reachable; where it has
    a linear one, linear sessions equal the CLI along walks."""
    try:
        tabula.Oracle(system, algorithm="linear")
    except ValueError:
        pytest.skip(f"no linear algorithm for {system} in this library")
    test_session_follows_walks_like_the_cli(cli, system, "lbr", "linear")


def test_incremental_session_is_used_for_projective_gold():
    s = tabula.Session([2, 0, 2])
    assert s.algorithm == "linear" and s.is_incremental
    s = tabula.Session([3, 0, 2, 2, 3], algorithm="auto")  # 1 <- 3 crosses 0 -> 2
    assert not tabula.Tree([3, 0, 2, 2, 3]).is_projective
    assert s.algorithm == "cubic" and not s.is_incremental


def test_sessions_in_batch():
    rng = random.Random(3)
    golds = [random_tree(n, rng) for n in range(1, 40)]
    sessions = [tabula.Session(g) for g in golds]
    oracle = tabula.Oracle()
    while any(not s.is_final for s in sessions):
        live = [s for s in sessions if not s.is_final]
        got = tabula.scores_batch(live)
        for row, s in zip(got, live):
            assert row.tolist() == [-1 if v is None else v for v in s.scores().values()]
            assert s.scores() == oracle.scores_at(s.configuration, s.gold)
        steps = [rng.choice(s.optimal() or s.applicable_steps()) for s in live]
        tabula.apply_batch(live, steps)


def test_configuration_from_a_session_starts_a_session():
    gold = [2, 0, 2, 5, 3]
    s = tabula.Session(gold)
    for step in ["shift", "shift", "reduce_left"]:
        s.apply(step)
    t = tabula.Session(gold, configuration=s.configuration)
    assert t.scores() == s.scores() and t.stack == s.stack and t.buffer == s.buffer


def test_arc_eager_needs_arcs(cli):
    gold = [2, 0, 2]
    with pytest.raises(ValueError) as e:
        tabula.Oracle("arc-eager").scores([0, 1], [2, 3], gold)
    [(_, error)] = oracle_lines(cli, [{"stack": [0, 1], "buffer": [2, 3], "gold": [-1, *gold]}], "--system", "arc-eager")
    assert str(e.value) == error
    line = {"stack": [0, 1], "buffer": [2, 3], "gold": [-1, *gold], "arcs": []}
    [(answer, _)] = oracle_lines(cli, [line], "--system", "arc-eager")
    assert tabula.Oracle("arc-eager").scores([0, 1], [2, 3], gold, arcs=[]) == answer["steps"]


def test_systems_and_per_system_default_strategies():
    """`systems()` lists every system but LR-spine (its spine steps have no
    batch column); with no strategy given, LR-spine and Attardi use `none`,
    the others `lbr`; LR-spine still answers by name, spine steps included."""
    assert "attardi" in tabula.systems() and "lr-spine" not in tabula.systems()
    for system in tabula.systems():
        expected = "none" if system == "attardi" else "lbr"
        assert tabula.Oracle(system).strategy == expected
        assert tabula.Session([2, 0, 2], system=system).strategy == expected
    s = tabula.Session([0, 3, 1, 3], system="lr-spine")
    assert s.strategy == "none"
    for step in ["shift", "shift", "shift", "right_arc_1", "shift"]:
        s.apply(step)
    assert "right_arc_2" in s.scores()
