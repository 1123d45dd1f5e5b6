"""Real arc scores in, NumPy out: Grammar.log_partition / marginals / entropy /
expected_gold_arcs / kbest / sample and their batch forms, and
tabula_parsing.nonprojective, against enumeration of every tree in Python
(n <= 6), with scores from tiny to huge."""

from __future__ import annotations

import doctest
import itertools
import math
import re
import threading

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import ROOT
from tabula_parsing import nonprojective


def trees(n: int, single_root: bool) -> list[tuple[int, ...]]:
    """Every head vector of words 1..n that forms a tree rooted at 0
    (single root: with exactly one child of 0)."""
    out = []
    for heads in itertools.product(range(n + 1), repeat=n):
        h = (0,) + heads
        if all(reaches_root(h, d) for d in range(1, n + 1)):
            if not single_root or heads.count(0) == 1:
                out.append(heads)
    return out


def reaches_root(h: tuple[int, ...], d: int) -> bool:
    """Whether following heads from d reaches 0 without a cycle."""
    for _ in range(len(h)):
        if d == 0:
            return True
        d = h[d]
    return d == 0


def dominated(h: tuple[int, ...], k: int, head: int) -> bool:
    """Whether k descends from `head`."""
    while k != 0:
        k = h[k]
        if k == head:
            return True
    return head == 0


def projective_trees(n: int, single_root: bool) -> list[tuple[int, ...]]:
    """The trees in which every word between a head and its dependent
    descends from the head."""
    out = []
    for heads in trees(n, single_root):
        h = (0,) + heads
        if all(dominated(h, k, h[d]) for d in range(1, n + 1) for k in range(min(d, h[d]) + 1, max(d, h[d]))):
            out.append(heads)
    return out


def brute(ts: list[tuple[int, ...]], s: np.ndarray) -> tuple[float, np.ndarray, float]:
    """(ln Z, marginals, entropy) by enumeration, in log space."""
    size = s.shape[0]
    scores = np.array([sum(s[h, d + 1] for d, h in enumerate(t)) for t in ts])
    top = scores.max()
    log_z = top + math.log(np.exp(scores - top).sum())
    p = np.exp(scores - log_z)
    m = np.zeros((size, size))
    for t, pt in zip(ts, p):
        for d, h in enumerate(t):
            m[h, d + 1] += pt
    entropy = float(-(p * (scores - log_z)).sum())
    return log_z, m, entropy


def words(g: tp.Grammar, n: int) -> list[str]:
    return ["root" if "root" in g.terminals else "a"] + ["a"] * n


@pytest.mark.parametrize("name", ["projective", "projective-single-root"])
@pytest.mark.parametrize("n", [1, 2, 4, 6])
@pytest.mark.parametrize("scale,offset", [(1.0, 0.0), (1e-6, 0.0), (3.0, 1e5), (3.0, -1e5)])
def test_projective_distribution_matches_enumeration(name, n, scale, offset):
    g = tp.Grammar.shipped(name)
    rng = np.random.default_rng(n * 7 + int(scale))
    s = rng.uniform(-1, 1, size=(n + 1, n + 1)) * scale + offset
    log_z, m, entropy = brute(projective_trees(n, name.endswith("single-root")), s)
    text = words(g, n)
    tolerance = 1e-9 + 1e-15 * abs(offset) * n
    assert abs(g.log_partition(text, s) - log_z) <= tolerance
    marg = g.marginals(text, s)
    assert marg.shape == (n + 1, n + 1) and marg.dtype == np.float64
    np.testing.assert_allclose(marg, m, atol=1e-9)
    assert abs(marg.sum() - n) < 1e-9
    assert abs(g.entropy(text, s) - entropy) <= tolerance
    gold = [0] + [1] * (n - 1)
    expected = sum(marg[h, d] for d, h in enumerate(gold, start=1))
    assert abs(g.expected_gold_arcs(text, s, gold) - expected) < 1e-9


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("scale,offset", [(1.0, 0.0), (1e-6, 0.0), (2.0, 1e6)])
def test_nonprojective_matches_enumeration(single_root, n, scale, offset):
    rng = np.random.default_rng(n + 10 * single_root)
    s = rng.uniform(-1, 1, size=(n + 1, n + 1)) * scale + offset
    log_z, m, _ = brute(trees(n, single_root), s)
    tolerance = 1e-9 + 1e-15 * abs(offset) * n
    assert abs(nonprojective.log_partition(s, single_root=single_root) - log_z) <= tolerance
    np.testing.assert_allclose(nonprojective.marginals(s, single_root=single_root), m, atol=1e-9)
    batch = nonprojective.log_partition_batch([s, s[:2, :2]], single_root=single_root)
    assert batch.shape == (2,) and abs(batch[0] - log_z) <= tolerance
    np.testing.assert_allclose(nonprojective.marginals_batch([s], single_root=single_root)[0], m, atol=1e-9)


def test_the_two_tree_classes_on_the_same_scores():
    """Every projective tree is a tree: the projective log-partition is at
    most the non-projective one, equal for n <= 2 (no crossing arcs yet)."""
    g = tp.Grammar.shipped("projective")
    rng = np.random.default_rng(3)
    for n in (2, 5):
        s = rng.normal(size=(n + 1, n + 1))
        projective, every = g.log_partition(["a"] * (n + 1), s), nonprojective.log_partition(s)
        assert projective <= every + 1e-12
        assert (abs(projective - every) < 1e-12) == (n <= 2)


def test_marginals_are_the_gradient_of_log_partition():
    g = tp.Grammar.shipped("projective")
    rng = np.random.default_rng(5)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    text = "a " * (n + 1)
    eps = 1e-5
    for f, marg in [
        (lambda x: g.log_partition(text, x), g.marginals(text, s)),
        (nonprojective.log_partition, nonprojective.marginals(s)),
    ]:
        grad = np.zeros_like(s)
        for h in range(n + 1):
            for d in range(n + 1):
                up, down = s.copy(), s.copy()
                up[h, d] += eps
                down[h, d] -= eps
                grad[h, d] = (f(up) - f(down)) / (2 * eps)
        np.testing.assert_allclose(grad, marg, atol=1e-7)


def test_kbest_and_sample():
    g = tp.Grammar.shipped("projective")
    n = 4
    rng = np.random.default_rng(8)
    s = rng.normal(size=(n + 1, n + 1))
    text = ["a"] * (n + 1)
    ts = projective_trees(n, single_root=False)
    scored = sorted((sum(s[h, d + 1] for d, h in enumerate(t)), list(t)) for t in ts)[::-1]
    best = g.kbest(text, s, 7)
    assert [h for _, h in best] == [h for _, h in scored[:7]]
    np.testing.assert_allclose([v for v, _ in best], [v for v, _ in scored[:7]])
    assert best[0][1] == g.best(text, np.round(s * 1e6).astype(np.int64))
    assert len(g.kbest(text, s, 1000)) == len(ts) == 55

    drawn = g.sample(text, s, 5000, seed=1)
    assert drawn.shape == (5000, n) and drawn.dtype == np.int64
    assert (drawn == g.sample(text, s, 5000, seed=1)).all()
    allowed = {tuple(t) for t in ts}
    assert all(tuple(row) in allowed for row in drawn.tolist())
    # The sampled arc frequencies approach the marginals.
    freq = np.zeros((n + 1, n + 1))
    for row in drawn:
        for d, h in enumerate(row, start=1):
            freq[h, d] += 1 / len(drawn)
    assert np.abs(freq - g.marginals(text, s)).max() < 0.04
    assert g.sample(text, s, 0).shape == (0, n)


def test_batches_equal_single_calls():
    g = tp.Grammar.shipped("projective-single-root")
    rng = np.random.default_rng(9)
    sizes = [1, 3, 8, 5]
    texts = [["root"] + ["a"] * n for n in sizes]
    scores = [rng.normal(size=(n + 1, n + 1)) for n in sizes]
    z = g.log_partition_batch(texts, scores)
    assert z.dtype == np.float64 and z.shape == (4,)
    assert z.tolist() == [g.log_partition(t, s) for t, s in zip(texts, scores)]
    for m, t, s in zip(g.marginals_batch(texts, scores), texts, scores):
        assert (m == g.marginals(t, s)).all()
    assert g.entropy_batch(texts, scores).tolist() == [g.entropy(t, s) for t, s in zip(texts, scores)]
    # A 3-D array of equal-sized matrices.
    cube = rng.normal(size=(6, 4, 4))
    assert g.log_partition_batch(["root a a a"] * 6, cube).tolist() == [g.log_partition("root a a a", c) for c in cube]


def test_bad_input_raises_clear_errors():
    g = tp.Grammar.shipped("projective")
    with pytest.raises(ValueError, match="no shipped grammar `nope` .*`projective`"):
        tp.Grammar.shipped("nope")
    with pytest.raises(ValueError, match=r"must be 3×3 .* found 2×2"):
        g.log_partition("a a a", np.zeros((2, 2)))
    with pytest.raises(ValueError, match="square"):
        g.marginals("a a a", np.zeros((3, 2)))
    bad = np.zeros((3, 3))
    bad[0, 2] = np.nan
    with pytest.raises(ValueError, match="arc 0 -> 2 is NaN"):
        g.entropy("a a a", bad)
    with pytest.raises(ValueError, match="arc 0 -> 2 is NaN"):
        nonprojective.marginals(bad)
    with pytest.raises(ValueError, match="sentence 1: .*must be 2×2"):
        g.log_partition_batch(["a a", "a a"], [np.zeros((2, 2)), np.zeros((3, 3))])
    with pytest.raises(ValueError, match="2 inputs but 1 score matrices"):
        g.marginals_batch(["a a", "a a"], [np.zeros((2, 2))])
    forbidden = np.full((3, 3), -np.inf)
    assert g.log_partition("a a a", forbidden) == -np.inf
    with pytest.raises(ValueError, match="no derivation"):
        g.marginals("a a a", forbidden)
    with pytest.raises(ValueError, match="no tree"):
        nonprojective.marginals(forbidden)
    assert g.kbest("a a a", forbidden, 3) == []


def test_the_module_examples_run():
    failures, tried = doctest.testmod(nonprojective)
    assert tried >= 3 and failures == 0


def test_the_docs_example_runs_as_written(capsys):
    text = (ROOT / "docs" / "engine.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "docs/engine.md", "exec"), {})
    first, second = capsys.readouterr().out.splitlines()
    z_projective, z_all = map(float, first.split())
    assert z_projective <= z_all
    assert second.endswith("(1000, 6)")


def test_batches_release_the_gil():
    """A Python thread keeps counting while a batch runs."""
    g = tp.Grammar.shipped("projective")
    n = 100
    texts, scores = [["a"] * (n + 1)] * 4, [np.zeros((n + 1, n + 1))] * 4
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        for batch in (g.marginals_batch, g.log_partition_batch, g.entropy_batch):
            before = ticks
            batch(texts, scores)
            assert ticks - before > 1000, batch
        before = ticks
        nonprojective.marginals_batch([np.zeros((300, 300))] * 4)
        assert ticks - before > 1000
    finally:
        done.set()
        counter.join()
