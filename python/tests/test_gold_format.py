"""One gold-tree format in the command line and in Python: the heads of
words 1..n; the layout with the root's slot first, [-1, h1, ..., hn], is read
by both (a leading -1 is dropped), so a line written for one is read by the
other."""

from __future__ import annotations

import random

import pytest

import tabula_parsing as tp
from conftest import oracle_lines, random_tree


def test_both_layouts_give_the_same_answers_in_python_and_on_the_command_line(cli):
    rng = random.Random(3)
    lines, golds = [], []
    for n in (1, 2, 4, 7, 9):
        gold = random_tree(n, rng)
        c = tp.Configuration.initial(n, "arc-hybrid")
        while not c.is_final:
            for layout in (gold, [-1, *gold]):
                lines.append({"stack": c.stack, "buffer": c.buffer, "gold": layout, "system": "arc-hybrid"})
                golds.append(layout)
            c.apply(rng.choice(c.applicable_steps()))
    answers = oracle_lines(cli, lines)
    oracle = tp.Oracle("arc-hybrid")
    for line, gold, (answer, error) in zip(lines, golds, answers):
        assert error is None, error
        assert oracle.scores(line["stack"], line["buffer"], gold) == answer["steps"]
    # The two layouts of one configuration get one answer.
    for a, b in zip(answers[::2], answers[1::2]):
        assert a[0]["steps"] == b[0]["steps"] and a[0]["optimal"] == b[0]["optimal"]


def test_trees_and_sessions_read_both_layouts():
    assert tp.Tree([-1, 2, 0, 2]) == tp.Tree([2, 0, 2])
    a, b = tp.Session([2, 0, 2], system="arc-eager"), tp.Session([-1, 2, 0, 2], system="arc-eager")
    assert a.gold == b.gold and a.scores() == b.scores()
    assert tp.projectivize([-1, 3, 4, 0, 3, 2]) == tp.projectivize([3, 4, 0, 3, 2])


def test_a_negative_head_elsewhere_is_an_error_in_both_places(cli):
    for gold, message in [
        ([-1, -1, 0], "`gold` is not a tree: head -1 of word 1 is out of range 0 to 2"),
        ([2, -1], "`gold` is not a tree: head -1 of word 2 is out of range 0 to 2"),
        ([-1, 2, 0, 9], "`gold` is not a tree: head 9 of word 3 is out of range 0 to 3"),
    ]:
        [(answer, error)] = oracle_lines(cli, [{"stack": [0], "buffer": [1, 2], "gold": gold}])
        assert answer is None and error == message
        with pytest.raises(ValueError) as e:
            tp.Oracle().scores([0], [1, 2], gold)
        assert str(e.value) == message
