"""Real arc scores in, NumPy out: Grammar.log_partition / marginals / entropy /
expected_gold_arcs / rule_marginals / kbest / sample and their batch forms, and
tabula_parsing.nonprojective, against enumeration of every tree in Python
(n <= 6) and, for the Matrix-Tree theorem, a determinant at high precision
(mpmath), with scores from tiny to huge and spread up to 10^4."""

from __future__ import annotations

import doctest
import itertools
import math
import re
import threading

import mpmath
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
    # A tree with a forbidden arc (-inf) has p = 0 and adds nothing.
    live = np.isfinite(scores)
    entropy = float(-(p[live] * (scores[live] - log_z)).sum())
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


def det_and_inverse(a: mpmath.matrix) -> tuple[mpmath.mpf, mpmath.matrix]:
    """The determinant and inverse by Gauss-Jordan elimination with partial
    pivoting at the current precision, with no tolerance (mpmath's own
    treats pivots below its epsilon times the norm as zero)."""
    n = a.rows
    a, inv = a.copy(), mpmath.eye(n)
    det = mpmath.mpf(1)
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(a[i, k]))
        if a[p, k] == 0:
            return mpmath.mpf(0), inv
        if p != k:
            for j in range(n):
                a[k, j], a[p, j] = a[p, j], a[k, j]
                inv[k, j], inv[p, j] = inv[p, j], inv[k, j]
            det = -det
        pivot = a[k, k]
        det *= pivot
        for j in range(n):
            a[k, j] /= pivot
            inv[k, j] /= pivot
        for i in range(n):
            if i != k and a[i, k] != 0:
                f = a[i, k]
                for j in range(n):
                    a[i, j] -= f * a[k, j]
                    inv[i, j] -= f * inv[k, j]
    return det, inv


def matrix_tree_reference(s: np.ndarray, single_root: bool) -> tuple[float, np.ndarray]:
    """ln Z and marginals from the Laplacian's determinant and inverse (Koo
    et al. 2007) in mpmath, with 200 digits plus the scores' spread in
    decimal digits, more than any cancellation can cost (the pivoted
    elimination is the one that cancels in float64)."""
    n = s.shape[0] - 1
    spread = 0.0
    for d in range(1, n + 1):
        column = [s[h, d] for h in range(n + 1) if h != d and np.isfinite(s[h, d])]
        spread += max(column) - min(column) if column else 0.0
    with mpmath.workdps(200 + int(spread / math.log(10))):

        def theta(h: int, d: int) -> mpmath.mpf:
            return mpmath.mpf(0) if s[h, d] == -np.inf else mpmath.exp(mpmath.mpf(float(s[h, d])))

        lap = mpmath.zeros(n, n)
        for d in range(1, n + 1):
            for h in range(1, n + 1):
                if h != d:
                    lap[h - 1, d - 1] = -theta(h, d)
                    lap[d - 1, d - 1] += theta(h, d)
            if single_root:
                lap[0, d - 1] = theta(0, d)
            else:
                lap[d - 1, d - 1] += theta(0, d)
        det, inv = det_and_inverse(lap)
        assert det > 0
        m = np.zeros((n + 1, n + 1))
        for d in range(1, n + 1):
            k = d - 1
            for h in range(n + 1):
                if h == d:
                    continue
                if h == 0:
                    grad = inv[k, 0] if single_root else inv[k, k]
                elif single_root:
                    grad = (inv[k, k] if d != 1 else 0) - (inv[k, h - 1] if h != 1 else 0)
                else:
                    grad = inv[k, k] - inv[k, h - 1]
                m[h, d] = float(theta(h, d) * grad)
        return float(mpmath.log(det)), m


@pytest.mark.parametrize("single_root", [False, True])
# The reference needs about spread x n / 2.3 digits: 10^4 only for small n.
@pytest.mark.parametrize("n,scale", [(2, 20.0), (4, 20.0), (6, 20.0), (2, 1e3), (4, 1e3), (6, 1e3), (2, 1e4), (3, 1e4)])
@pytest.mark.parametrize("forbid", [False, True])
def test_nonprojective_is_exact_for_any_spread(single_root, n, scale, forbid):
    """Scores spread up to 10^4, where the heaviest arcs' cycles outweigh
    every tree by up to e^(10^4 n): ln Z within 1e-9 relative and the
    marginals within 1e-9 of a high-precision determinant, single and batch,
    and of enumeration."""
    rng = np.random.default_rng(int(scale) + n + 100 * forbid)
    s = rng.uniform(-1, 1, size=(n + 1, n + 1)) * scale
    if forbid:
        s[rng.random(s.shape) < 0.3] = -np.inf
        s[0, 1:] = rng.uniform(-1, 1, size=n) * scale  # a tree always exists
    log_z, m = matrix_tree_reference(s, single_root)
    enumerated, m_enumerated, _ = brute(trees(n, single_root), s)
    assert abs(enumerated - log_z) <= 1e-9 * max(1.0, abs(log_z))
    np.testing.assert_allclose(m_enumerated, m, atol=1e-9)
    for got in [
        nonprojective.log_partition(s, single_root=single_root),
        nonprojective.log_partition_batch([s, s[:2, :2]], single_root=single_root)[0],
    ]:
        assert abs(got - log_z) <= 1e-9 * max(1.0, abs(log_z))
    np.testing.assert_allclose(nonprojective.marginals(s, single_root=single_root), m, atol=1e-9)
    np.testing.assert_allclose(nonprojective.marginals_batch([s], single_root=single_root)[0], m, atol=1e-9)


@pytest.mark.parametrize("w", [17.0, 19.0, 300.0])
def test_a_heavy_cycle_does_not_cancel(w):
    """Regression: a cycle 1 <-> 2 at w over root arcs 0 and -w made the
    log-partition -inf (w = 19) or 0.7289 with marginals 0.482 (w = 17)
    instead of ln(2 + e^(-2w)) and 1/(2 + e^(-2w))."""
    s = np.array([[0.0, -w, -w], [0.0, 0.0, w], [0.0, w, 0.0]])
    tiny = math.exp(-2 * w)
    assert abs(nonprojective.log_partition(s) - math.log(2 + tiny)) < 1e-12
    m = nonprojective.marginals(s)
    assert abs(m[1, 2] - 1 / (2 + tiny)) < 1e-12 and abs(m[2, 1] - 1 / (2 + tiny)) < 1e-12
    assert abs(nonprojective.log_partition(s, single_root=True) - math.log(2)) < 1e-12


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


@pytest.mark.parametrize("name", ["projective", "projective-single-root"])
@pytest.mark.parametrize("n", [1, 3, 5])
@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_rule_marginals_match_enumeration(name, n, offset):
    """Each projective tree has one derivation in these grammars, so the
    expected uses of each rule follow from the enumerated trees: the left
    rule once per left arc, the right rule once per right arc of a word (and
    of the root in Table 3), the single-root grammar's root rules once per
    tree, the finish rule of a word once per word."""
    g = tp.Grammar.shipped(name)
    single = name.endswith("single-root")
    rng = np.random.default_rng(n + 31)
    s = rng.normal(size=(n + 1, n + 1)) * 2 + offset
    ts = projective_trees(n, single)
    log_z, _, _ = brute(ts, s)
    expected = {"finish": np.zeros(2 if single else 1), "left": np.zeros(1), "right": np.zeros(2 if single else 1)}
    for t in ts:
        p = math.exp(sum(s[h, d + 1] for d, h in enumerate(t)) - log_z)
        expected["finish"] += p * (np.array([n, 1]) if single else np.array([n + 1]))
        expected["left"][0] += p * sum(1 for d, h in enumerate(t, start=1) if d < h)
        word_right = sum(1 for d, h in enumerate(t, start=1) if d > h and h > 0)
        root = sum(1 for h in t if h == 0)
        expected["right"] += p * (np.array([word_right, root]) if single else np.array([word_right + root]))
    assert g.rules["left"] == ["(S, _) -> S (S, _)"]
    got = g.rule_marginals(words(g, n), s)
    assert sorted(got) == ["finish", "left", "right"]
    for kind, values in got.items():
        assert values.dtype == np.float64 and values.shape == (len(g.rules[kind]),)
        np.testing.assert_allclose(values, expected[kind], atol=1e-9, err_msg=kind)


def test_rule_marginals_of_an_ambiguous_grammar_count_derivations():
    """Two derivations for every tree (a word finishes as X or Y): with all
    scores 0 each finish rule is used by half of the derivations, per word."""
    g = tp.Grammar.from_string(
        "start X\n(L, R) -> a\nX -> (L, R)\nY -> (L, R)\n"
        "(_, R) -> (_, R) X\n(_, R) -> (_, R) Y\n(L, _) -> X (L, _)\n(L, _) -> Y (L, _)\n"
    )
    n = 3
    r = g.rule_marginals(["a"] * (n + 1), np.zeros((n + 1, n + 1)))
    # The root finishes as X; each of the n words as X or Y, equally often.
    np.testing.assert_allclose(r["finish"], [1 + n / 2, n / 2], atol=1e-12)
    assert abs(r["left"].sum() + r["right"].sum() - n) < 1e-12
    assert g.rules["finish"] == ["X -> (L, R)", "Y -> (L, R)"]


def test_new_batches_equal_single_calls():
    g = tp.Grammar.shipped("projective")
    rng = np.random.default_rng(12)
    sizes = [2, 6, 1, 4]
    texts = [["a"] * (n + 1) for n in sizes]
    scores = [rng.normal(size=(n + 1, n + 1)) for n in sizes]
    assert g.kbest_batch(texts, scores, 4) == [g.kbest(t, s, 4) for t, s in zip(texts, scores)]
    # The k best of each sentence are its k best trees by enumeration.
    for best, n, s in zip(g.kbest_batch(texts, scores, 6), sizes, scores):
        scored = sorted((sum(s[h, d + 1] for d, h in enumerate(t)), list(t)) for t in projective_trees(n, False))[::-1]
        assert [h for _, h in best] == [h for _, h in scored[:6]]
    drawn = g.sample_batch(texts, scores, 50, seed=7)
    assert [d.shape for d in drawn] == [(50, n) for n in sizes]
    for i, (d, t, s) in enumerate(zip(drawn, texts, scores)):
        assert d.dtype == np.int64 and (d == g.sample(t, s, 50, seed=7 + i)).all()
    assert all(d.shape == (3, n) for d, n in zip(g.sample_batch(texts, scores, 3), sizes))
    rules = g.rule_marginals_batch(texts, scores)
    for r, t, s in zip(rules, texts, scores):
        single = g.rule_marginals(t, s)
        assert all((r[k] == single[k]).all() for k in single)
    with pytest.raises(ValueError, match="sentence 1: .*must be 7×7"):
        g.kbest_batch(texts, [scores[0], scores[0]] + scores[2:], 2)
    forbidden = [np.full((n + 1, n + 1), -np.inf) for n in sizes]
    assert g.kbest_batch(texts, forbidden, 2) == [[]] * 4
    with pytest.raises(ValueError, match="sentence 0: no derivation"):
        g.sample_batch(texts, forbidden, 2)
    with pytest.raises(ValueError, match="sentence 0: no derivation"):
        g.rule_marginals_batch(texts, forbidden)


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
        for batch in (
            g.marginals_batch,
            g.log_partition_batch,
            g.entropy_batch,
            g.rule_marginals_batch,
            lambda t, s: g.kbest_batch(t, s, 50),
            lambda t, s: g.sample_batch(t, s, 50),
        ):
            before = ticks
            batch(texts, scores)
            assert ticks - before > 1000, batch
        before = ticks
        nonprojective.marginals_batch([np.zeros((300, 300))] * 4)
        assert ticks - before > 1000
    finally:
        done.set()
        counter.join()
