"""The tree CRF layer (tabula_parsing.crf) against enumeration of all trees,
finite differences and torch-struct (torch is an optional extra: skipped
without it)."""

import itertools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tabula_parsing as tp  # noqa: E402
from tabula_parsing.crf import TreeCRF  # noqa: E402

# Trees in which every word has at most one left child: a class that no
# shipped grammar describes, written as a user would.
ONE_LEFT = """
start S
(L0, R) -> a           # a word starts with no left child
S -> (L0, R)           # finished with no left child
S -> (L1, R)           # or with one
(L1, _) -> S (L0, _)   # the one left child
(_, R) -> (_, R) S     # any number of right children
"""

CLASSES = ["projective", "projective-single-root", "one-left", "nonprojective", "nonprojective-single-root"]


def trees_of(name: str):
    """The ``trees=`` argument of a class."""
    return tp.Grammar.from_string(ONE_LEFT, "one-left.grammar") if name == "one-left" else name


def is_tree(heads: tuple[int, ...]) -> bool:
    """heads[i] is the head of word i + 1: every word reaches 0 without a cycle."""
    for start in range(1, len(heads) + 1):
        seen, v = set(), start
        while v != 0:
            if v in seen:
                return False
            seen.add(v)
            v = heads[v - 1]
    return True


def is_projective(heads: tuple[int, ...]) -> bool:
    """No arc crosses another (arcs from the root included)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, start=1)]
    return not any(a < c < b < e for a, b in arcs for c, e in arcs)


def member(name: str, heads: tuple[int, ...]) -> bool:
    """Whether a tree belongs to the class, by its definition."""
    if not is_tree(heads):
        return False
    roots = sum(h == 0 for h in heads)
    if name == "nonprojective":
        return True
    if name == "nonprojective-single-root":
        return roots == 1
    if not is_projective(heads):
        return False
    if name == "projective-single-root":
        return roots == 1
    if name == "one-left":
        return all(sum(h == v and d < v for d, h in enumerate(heads, start=1)) <= 1 for v in range(len(heads) + 1))
    return True


def all_trees(name: str, n: int) -> list[tuple[int, ...]]:
    return [h for h in itertools.product(range(n + 1), repeat=n) if member(name, h)]


def padded(heads: tuple[int, ...], side: int) -> torch.Tensor:
    return torch.tensor([-1, *heads] + [-1] * (side - 1 - len(heads)))


def tree_score(s: torch.Tensor, heads: tuple[int, ...]) -> float:
    return sum(float(s[h, d]) for d, h in enumerate(heads, start=1))


@pytest.mark.parametrize("name", CLASSES)
def test_the_gradient_of_log_z_is_its_finite_differences(name: str) -> None:
    """gradcheck in float64 on a padded batch of up to 8 words (the padding
    gets no gradient); the gradient is the marginals."""
    torch.manual_seed(3)
    lengths = [8, 5, 1, 3]
    scores = torch.randn(4, 9, 9, dtype=torch.float64, requires_grad=True)

    def log_z(s: torch.Tensor) -> torch.Tensor:
        return TreeCRF(s, lengths, trees=trees_of(name)).partition

    assert torch.autograd.gradcheck(log_z, (scores,), eps=1e-6, atol=1e-6)
    crf = TreeCRF(scores, lengths, trees=trees_of(name))
    (grad,) = torch.autograd.grad(crf.partition.sum(), scores)
    assert torch.allclose(grad, crf.marginals, atol=1e-12)
    assert grad[1, 6:, :].abs().sum() == 0 and grad[1, :, 6:].abs().sum() == 0


@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_every_quantity_matches_enumeration(name: str, dtype: torch.dtype) -> None:
    """For n ≤ 5 (padded in one batch): the probabilities of all trees of
    the class sum to 1, trees outside it get -inf, log Z, marginals and
    entropy equal enumeration, and the best tree and the k best are the
    enumerated best."""
    rng = np.random.default_rng(11)
    lengths = [5, 4, 2, 1]
    side = 6
    scores = torch.tensor(rng.normal(size=(4, side, side)) * 2, dtype=dtype)
    crf = TreeCRF(scores, lengths, trees=trees_of(name))
    tolerance = 1e-9 if dtype == torch.float64 else 1e-4
    s64 = scores.to(torch.float64)
    for b, n in enumerate(lengths):
        inside = all_trees(name, n)
        scored = sorted(((tree_score(s64[b], t), t) for t in inside), reverse=True)
        log_z = math.log(sum(math.exp(v) for v, _ in scored))
        assert abs(float(crf.partition[b]) - log_z) <= tolerance * max(1.0, abs(log_z))
        # log_prob of every candidate head sequence: the class's sum to 1.
        candidates = list(itertools.product(range(n + 1), repeat=n))
        batch = torch.stack([padded(t, side) for t in candidates])
        many = TreeCRF(s64[b : b + 1].expand(len(candidates), side, side), [n] * len(candidates), trees=trees_of(name))
        lp = many.log_prob(batch)
        members = torch.tensor([member(name, t) for t in candidates])
        assert torch.isinf(lp[~members]).all()
        assert abs(float(lp[members].exp().sum()) - 1.0) <= 1e-9
        expected = np.zeros((side, side))
        entropy = 0.0
        for v, t in scored:
            p = math.exp(v - log_z)
            entropy -= p * (v - log_z)
            for d, h in enumerate(t, start=1):
                expected[h, d] += p
        assert np.abs(crf.marginals[b].to(torch.float64).numpy() - expected).max() <= tolerance
        assert abs(float(crf.entropy[b]) - entropy) <= (1e-3 if dtype == torch.float32 else 1e-9)
        assert abs(float(crf.max[b]) - scored[0][0]) <= tolerance
        best = tuple(int(h) for h in crf.best_heads[b, 1 : n + 1])
        assert member(name, best) and abs(tree_score(s64[b], best) - scored[0][0]) <= tolerance
        assert crf.argmax[b].sum() == n
    if not name.startswith("nonprojective"):
        values, heads = crf.kbest(4)
        for b, n in enumerate(lengths):
            best_values = sorted((tree_score(s64[b], t) for t in all_trees(name, n)), reverse=True)[:4]
            got = [float(v) for v in values[b] if v > float("-inf")]
            assert np.allclose(got, best_values, atol=tolerance)
            for j in range(len(got)):
                assert member(name, tuple(int(h) for h in heads[b, j, 1 : n + 1]))


@pytest.mark.parametrize("name", CLASSES)
def test_samples_stay_in_the_class_and_follow_the_distribution(name: str) -> None:
    """4,000 draws of 3 words: every draw is a tree of the class and each
    tree's frequency is within 5 standard deviations of its probability; a
    seed repeats the draws."""
    rng = np.random.default_rng(5)
    scores = torch.tensor(rng.normal(size=(1, 4, 4)), dtype=torch.float64)
    crf = TreeCRF(scores, trees=trees_of(name))
    drawn = crf.sample(4000, seed=9)
    assert drawn.shape == (4000, 1, 4)
    assert torch.equal(drawn[:10], crf.sample(10, seed=9))
    counts: dict[tuple[int, ...], int] = {}
    for row in drawn[:, 0, 1:].tolist():
        counts[tuple(row)] = counts.get(tuple(row), 0) + 1
    assert all(member(name, t) for t in counts)
    log_z = float(crf.partition[0])
    for t in all_trees(name, 3):
        p = math.exp(tree_score(scores[0], t) - log_z)
        f = counts.get(t, 0) / 4000
        assert abs(f - p) <= 5 * math.sqrt(p * (1 - p) / 4000) + 1e-12, (t, f, p)


def test_a_crf_trains_through_the_layer() -> None:
    """A bilinear arc scorer fitted with the CRF loss of a user's grammar:
    the loss falls and the decoded trees reach the gold ones, all inside
    the grammar's class."""
    torch.manual_seed(0)
    grammar = tp.Grammar.from_string(ONE_LEFT, "one-left.grammar")
    b, n, dim = 16, 6, 10
    words = torch.randn(b, n + 1, dim, dtype=torch.float64)
    hidden = torch.randn(dim, dim, dtype=torch.float64)
    gold = TreeCRF(torch.einsum("bhi,ij,bdj->bhd", words, hidden, words), trees=grammar).best_heads
    weights = torch.zeros(dim, dim, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=0.1)
    losses = []
    for _ in range(60):
        crf = TreeCRF(torch.einsum("bhi,ij,bdj->bhd", words, weights, words), trees=grammar)
        loss = -crf.log_prob(gold).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]
    decoded = crf.best_heads
    assert (decoded[:, 1:] == gold[:, 1:]).float().mean() > 0.9
    assert all(member("one-left", tuple(h[1:].tolist())) for h in decoded)


def test_torch_struct_agrees_where_both_apply() -> None:
    """torch-struct's DependencyCRF (multi- and single-root projective):
    the same log Z, marginals and best score; its layout read by
    TreeCRF.from_torch_struct."""
    torch_struct = pytest.importorskip("torch_struct")
    rng = np.random.default_rng(2)
    phi = torch.tensor(rng.normal(size=(3, 7, 7)), dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([7, 4, 6])
    for name, multiroot in [("projective", True), ("projective-single-root", False)]:
        ours = TreeCRF.from_torch_struct(phi, lengths, trees=name)
        theirs = torch_struct.DependencyCRF(phi, lengths, multiroot=multiroot)
        assert torch.allclose(ours.partition, theirs.partition, atol=1e-9)
        their_m = torch_struct.DependencyCRF(phi, lengths, multiroot=multiroot).marginals
        ours_m = ours.marginals
        for b, n in enumerate(lengths.tolist()):
            words = ours_m[b, 1 : n + 1, 1 : n + 1].clone()
            words.diagonal().copy_(ours_m[b, 0, 1 : n + 1])
            assert torch.allclose(words, their_m[b, :n, :n], atol=1e-9)
        their_max = torch_struct.DependencyCRF(phi, lengths, multiroot=multiroot).max
        assert torch.allclose(ours.max, their_max, atol=1e-9)


def test_torch_structs_layout_passes_the_gradient_back() -> None:
    """``from_torch_struct``'s conversion and its gradient, against finite
    differences and enumeration (float64), for a grammar and for all trees; a
    bad shape is named."""
    rng = np.random.default_rng(3)
    phi = torch.tensor(rng.normal(size=(2, 5, 5)), dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([5, 3])
    for trees in ("projective", "nonprojective-single-root"):
        assert torch.autograd.gradcheck(lambda p: TreeCRF.from_torch_struct(p, lengths, trees=trees).partition, (phi,))
        # The gradient is each arc's probability, by enumeration, in
        # torch-struct's layout: arc h → d at [h − 1, d − 1], the root's at [d − 1, d − 1].
        (grad,) = torch.autograd.grad(TreeCRF.from_torch_struct(phi, lengths, trees=trees).partition.sum(), phi)
        for b, n in enumerate(lengths.tolist()):
            cells = [[((h or d) - 1, d - 1) for d, h in enumerate(t, start=1)] for t in all_trees(trees, n)]
            p = torch.tensor([sum(float(phi[b, i, j]) for i, j in c) for c in cells], dtype=torch.float64).softmax(0)
            expected = torch.zeros(5, 5, dtype=torch.float64)
            for weight, c in zip(p, cells):
                for i, j in c:
                    expected[i, j] += weight
            assert torch.allclose(grad[b], expected, atol=1e-9), (trees, b)
    scores = TreeCRF.from_torch_struct(phi).scores
    assert torch.equal(scores[:, 1:, 1:], phi) and torch.equal(scores[:, 0, 1:], torch.diagonal(phi, dim1=1, dim2=2))
    assert bool((scores[:, :, 0] == float("-inf")).all())
    with pytest.raises(ValueError, match="B × n × n tensor"):
        TreeCRF.from_torch_struct(phi[:, :, :4])


def test_bad_input_gets_clear_errors() -> None:
    s = torch.zeros(2, 4, 4)
    with pytest.raises(ValueError, match="B × N × N"):
        TreeCRF(torch.zeros(4, 4))
    with pytest.raises(TypeError, match="float32 or float64"):
        TreeCRF(torch.zeros(1, 3, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match="length 4 does not fit"):
        _ = TreeCRF(s, [4, 1]).partition
    with pytest.raises(ValueError, match="2 integers"):
        TreeCRF(s, [1, 2, 3])
    with pytest.raises(ValueError, match="trees must be one of"):
        TreeCRF(s, trees="projectiv")
    bad = s.clone()
    bad[1, 0, 2] = float("nan")
    with pytest.raises(ValueError, match="sentence 1: the score of arc 0 -> 2 is NaN"):
        _ = TreeCRF(bad, trees="nonprojective").partition
    with pytest.raises(ValueError, match="k best trees are computed over a grammar"):
        TreeCRF(s, trees="nonprojective").kbest(2)
    two = tp.Grammar.from_string(
        "start S\n(S, S) -> a\n(S, S) -> b\nS -> (S, S)\n(_, S) -> (_, S) S\n(S, _) -> S (S, _)\n", "two.grammar"
    )
    with pytest.raises(ValueError, match="terminals="):
        _ = TreeCRF(s, trees=two).partition
    ok = TreeCRF(s, [3, 1], trees=two, terminals=[["a", "b", "a", "b"], ["a", "b"]])
    assert torch.isfinite(ok.partition).all()
    forbidden = torch.full((1, 3, 3), float("-inf"))
    with pytest.raises(ValueError, match="sentence 0"):
        _ = TreeCRF(forbidden, trees="nonprojective").marginals


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_come_back_on_their_device() -> None:
    scores = torch.randn(2, 5, 5, device="cuda", requires_grad=True)
    crf = TreeCRF(scores, trees="nonprojective")
    crf.partition.sum().backward()
    assert scores.grad is not None and scores.grad.device == scores.device
    assert crf.best_heads.device == scores.device


def test_the_example_fits_a_crf() -> None:
    """examples/python/projective_crf.py as a user runs it: the fitted
    scorer's best trees get every head right, projective and not."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "python" / "projective_crf.py"
    for trees in ["projective", "nonprojective-single-root"]:
        out = subprocess.run([sys.executable, str(example), "--trees", trees], capture_output=True, text=True, check=True)
        assert out.stdout.splitlines()[-1].endswith("heads of the best trees right 100.0 %"), out.stdout


def test_the_modules_examples_run() -> None:
    import doctest

    import tabula_parsing.crf

    result = doctest.testmod(tabula_parsing.crf)
    assert result.failed == 0 and result.attempted >= 5
