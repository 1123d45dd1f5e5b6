"""OracleBatch, the minibatch oracle, against the per-sentence Session API:
on random batches of every system, strategy and algorithm, driven along
random computations (gold steps and wrong ones), every array equals what the
sessions answer, step for step."""

import random
import zlib

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import random_tree

STRATEGIES = ["lbr", "lb", "lr", "none"]


def settings():
    """(system, strategy, algorithm) of every setting the oracles offer."""
    out = []
    for system in tp.systems():
        for strategy in STRATEGIES:
            for algorithm in ["auto", "cubic", "quadratic", "linear", "goldberg", "tabular"]:
                try:
                    tp.Oracle(system, strategy, algorithm)
                except ValueError:
                    continue
                out.append((system, strategy, algorithm))
    return out


def is_projective(heads):
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1) if h is not None]
    return not any(a < c < b < e for a, b in arcs for c, e in arcs)


def batch_golds(rng, size, projective, partial=False):
    golds = []
    while len(golds) < size:
        n = rng.randint(1, 9)
        heads = random_tree(n, rng)
        if projective and not is_projective(heads):
            continue
        if partial and n > 2 and rng.random() < 0.5:
            heads[rng.randrange(n)] = None
        golds.append(heads)
    return golds


def positions_of(config):
    """The POSITIONS of a Configuration, computed from its stack, buffer and arcs."""
    stack, buffer = config.stack, config.buffer if config.unshifted is None else [config.unshifted]
    s = [stack[-1 - i] if i < len(stack) else -1 for i in range(3)]
    b = [buffer[i] if i < len(buffer) else -1 for i in range(2)]
    deps = {}
    for h, d in config.arcs:
        deps.setdefault(h, []).append(d)
    out = s + b
    for v in (s[0], s[1], b[0]):
        left = [d for d in deps.get(v, []) if d < v] if v >= 0 else []
        right = [d for d in deps.get(v, []) if d > v] if v >= 0 else []
        out += [min(left) if left else -1, max(right) if right else -1]
    return out


@pytest.mark.parametrize("system,strategy,algorithm", settings())
def test_batch_equals_sessions_step_for_step(system, strategy, algorithm):
    rng = random.Random(zlib.crc32(f"{system} {strategy} {algorithm}".encode()))
    projective = algorithm in ("linear", "quadratic", "goldberg") or system == "lr-spine"
    partial = system == "arc-eager-nm" or (system in ("arc-standard", "arc-hybrid", "arc-eager") and not projective)
    golds = batch_golds(rng, 12, projective, partial=partial)
    labels = [[rng.randrange(5) if h is not None else -1 for h in g] for g in golds]
    batch = tp.OracleBatch(golds, system=system, strategy=strategy, algorithm=algorithm, labels=labels)
    sessions = [tp.Session(g, system=system, strategy=strategy, algorithm=algorithm) for g in golds]
    steps = batch.steps
    assert len(batch) == len(golds)
    compared = 0
    while not batch.done:
        scores, positions, gold_labels = batch.scores(), batch.positions(), batch.gold_labels()
        applicable, optimal = batch.applicable(), batch.optimal()
        assert scores.shape == (len(golds), len(steps)) and positions.shape == (len(golds), 11)
        chosen = np.full(len(golds), -1, dtype=np.int64)
        given = np.full(len(golds), -1, dtype=np.int64)
        for i, s in enumerate(sessions):
            if s.is_final:
                assert batch.finished[i] and (scores[i] == -1).all() and not applicable[i].any()
                continue
            expected = s.scores()
            row = [-1 if expected.get(name) is None else expected[name] for name in steps]
            assert scores[i].tolist() == row
            best = max(v for v in row)
            assert optimal[i].tolist() == [v >= 0 and v == best for v in row]
            assert applicable[i].tolist() == [name in s.applicable_steps() for name in steps]
            assert positions[i].tolist() == positions_of(s.configuration)
            for k, name in enumerate(steps):
                c = s.configuration
                if applicable[i][k]:
                    arc = c.copy().apply(name)
                    want = labels[i][arc[1] - 1] if arc else -1
                else:
                    want = -1
                assert gold_labels[i][k] == want, (i, name)
            compared += 1
            # Explore: mostly an optimal step, sometimes any applicable one.
            names = [n for n in steps if applicable[i][steps.index(n)]]
            if rng.random() < 0.7:
                names = [n for k, n in enumerate(steps) if optimal[i][k]]
            name = rng.choice(names)
            chosen[i] = steps.index(name)
            given[i] = rng.randrange(5)
            s.apply(name)
        batch.apply(chosen, given)
    assert compared > 25
    for heads, s in zip(batch.heads(), sessions):
        n = len(s.gold)
        built = dict((d, h) for h, d in s.configuration.arcs)
        assert heads.tolist() == [built.get(d, -1) for d in range(1, n + 1)]


@pytest.mark.parametrize("system", ["attardi", "arc-eager-nm", "arc-standard"])
def test_optimal_alone_equals_the_best_steps_of_the_sessions(system):
    """A training loop asks `optimal` alone: Attardi's and arc-eager-nm's
    oracles then use the best known from the step before (fewer tables);
    the answer is still the best steps of the sessions' scores."""
    rng = random.Random(zlib.crc32(f"optimal {system}".encode()))
    golds = batch_golds(rng, 12, False, partial=system == "arc-eager-nm")
    batch = tp.OracleBatch(golds, system=system)
    sessions = [tp.Session(g, system=system) for g in golds]
    steps = batch.steps
    compared = 0
    while not batch.done:
        optimal, applicable = batch.optimal(), batch.applicable()
        chosen = np.full(len(golds), -1, dtype=np.int64)
        for i, s in enumerate(sessions):
            if s.is_final:
                assert not optimal[i].any()
                continue
            expected = s.scores()
            row = [-1 if expected.get(name) is None else expected[name] for name in steps]
            best = max(row)
            assert optimal[i].tolist() == [v >= 0 and v == best for v in row]
            compared += 1
            names = [n for k, n in enumerate(steps) if optimal[i][k] or (applicable[i][k] and rng.random() < 0.1)]
            name = rng.choice(names)
            chosen[i] = steps.index(name)
            s.apply(name)
        batch.apply(chosen)
    assert compared > 100


@pytest.mark.parametrize("system", tp.systems())
def test_static_steps_build_the_gold_tree(system):
    """Along the static oracle's computation every step is optimal, and a
    projective gold tree is built whole."""
    rng = random.Random(7)
    golds = batch_golds(rng, 16, projective=True)
    batch = tp.OracleBatch(golds, system=system)
    while not batch.done:
        static, scores = batch.static_steps(), batch.scores()
        live = static >= 0
        assert (live == ~batch.finished).all()
        best = scores.max(axis=1)
        assert (scores[live, static[live]] == best[live]).all()
        batch.apply(static)
    assert [h.tolist() for h in batch.heads()] == golds


def test_labels_follow_the_arcs_built():
    batch = tp.OracleBatch([[2, 0]], system="arc-standard", labels=[[3, 4]])
    shift = batch.steps.index("shift")
    batch.apply(np.array([shift]))
    batch.apply(np.array([shift]))
    # The step that makes 2 the head of 1, then the one that makes 0 the head of 2.
    to_2 = int(np.nonzero(batch.arc_heads()[0] == 2)[0][0])
    assert batch.gold_labels()[0].tolist()[to_2] == 3
    batch.apply(np.array([to_2]), np.array([7]))
    to_0 = int(np.nonzero(batch.arc_heads()[0] == 0)[0][0])
    assert batch.gold_labels()[0].tolist()[to_0] == 4
    batch.apply(np.array([to_0]), np.array([9]))
    assert batch.done and batch.finished.tolist() == [True]
    assert [h.tolist() for h in batch.heads()] == [[2, 0]]
    assert [x.tolist() for x in batch.labels()] == [[7, 9]]
    assert (batch.arc_heads() == -1).all() and (batch.gold_labels() == -1).all()


def test_without_gold_parses_and_refuses_the_oracle():
    batch = tp.OracleBatch.without_gold([3, 1], system="arc-hybrid")
    with pytest.raises(ValueError, match="without gold"):
        batch.scores()
    with pytest.raises(ValueError, match="without gold"):
        batch.gold_labels()
    while not batch.done:
        mask = batch.applicable()
        batch.apply(np.where(mask.any(1), mask.argmax(1), -1))
    assert [len(h) for h in batch.heads()] == [3, 1]
    assert all((h >= 0).all() for h in batch.heads())
    batch.reset_lengths([2])
    assert len(batch) == 1 and not batch.done
    with pytest.raises(ValueError, match=r"lengths\[1\]: a length of -1 words"):
        batch.reset_lengths([2, -1])
    with pytest.raises(ValueError, match=r"lengths\[0\]: a length of -3 words"):
        tp.OracleBatch.without_gold([-3], system="arc-hybrid")


def test_reset_reuses_the_object_and_out_arrays_are_filled():
    batch = tp.OracleBatch([[0, 1]], system="arc-eager")
    batch.reset([[2, 0, 2], [0]])
    out = np.zeros((2, len(batch.steps)), dtype=np.int64)
    assert batch.scores(out=out) is not None
    assert (out == batch.scores()).all()
    pos = np.zeros((2, 11), dtype=np.int64)
    batch.positions(out=pos)
    assert pos[:, 3].tolist() == [1, 1]  # b0
    with pytest.raises(ValueError, match="shape"):
        batch.scores(out=np.zeros((3, 1), dtype=np.int64))
    mask = np.zeros((2, len(batch.steps)), dtype=bool)
    assert batch.optimal(out=mask) is not None and (mask == batch.optimal()).all()
    assert batch.applicable(out=mask) is not None and (mask == batch.applicable()).all()


def test_errors_name_the_sentence_and_change_nothing():
    batch = tp.OracleBatch([[0, 1], [0]], system="arc-standard")
    shift = batch.steps.index("shift")
    left = batch.steps.index("reduce_left")
    with pytest.raises(ValueError, match="sentence 1: .*reduce_left"):
        batch.apply(np.array([shift, left]))
    assert batch.positions()[0, 3] == 1, "the first sentence's shift was not taken"
    with pytest.raises(ValueError, match="2 steps for a batch of 2|3 steps"):
        batch.apply(np.array([shift, shift, shift]))
    with pytest.raises(ValueError, match="not a column"):
        batch.apply(np.array([99, -1]))
    with pytest.raises(ValueError, match="gold 1"):
        tp.OracleBatch([[0], [5]])
    with pytest.raises(ValueError, match=r"labels\[0\]: 1 labels for a sentence of 2 words"):
        tp.OracleBatch([[0, 1]], labels=[[1]])
    with pytest.raises(ValueError, match="linear"):
        tp.OracleBatch([[3, 4, 0, 3]], algorithm="linear")


def test_attardi_abandons_what_its_table_refuses_when_asked():
    gold = random_tree(60, random.Random(0))  # its first configuration needs the table
    with pytest.raises(ValueError, match="sentence 0"):
        tp.OracleBatch([gold], system="attardi").scores()
    batch = tp.OracleBatch([gold, [0]], system="attardi", abandon=True)
    scores = batch.scores()
    assert batch.abandoned.tolist() == [True, False] and (scores[0] == -1).all()
    assert batch.finished.tolist() == [True, False]
    batch.apply(np.array([0, 0]))  # the abandoned sentence's step is ignored
    assert batch.positions()[1, 0] == 1


def test_attardi_max_gamma_is_the_tables_limit():
    gold = random_tree(20, random.Random(0))  # its first table: γ of 21 words
    with pytest.raises(ValueError, match=r"\|γ\| = 21 words .* more than the limit of 20"):
        tp.OracleBatch([gold], system="attardi", max_gamma=20).scores()
    small = tp.OracleBatch([gold, [0]], system="attardi", abandon=True, max_gamma=20)
    small.scores()
    assert small.abandoned.tolist() == [True, False]
    default = tp.OracleBatch([gold], system="attardi").scores()
    assert (default[0] >= 0).any()
    assert (tp.OracleBatch([gold], system="attardi", max_gamma=21).scores() == default).all()
    del small  # its oracles go back to the pool, with the default limit again
    sessions = [tp.Session(gold, system="attardi") for _ in range(4)]
    assert all(max(v for v in s.scores().values() if v is not None) == default.max() for s in sessions)
    with pytest.raises(ValueError, match="max_gamma applies to system attardi only"):
        tp.OracleBatch([[0]], system="arc-hybrid", max_gamma=10)


def test_attardi_max_pairs_is_the_budget_of_a_call():
    # A tree no other test scores: a pooled oracle that remembers its last
    # call on the same tree may answer from its bounds, without a table.
    gold = random_tree(20, random.Random(20))
    with pytest.raises(ValueError, match="combined more than 10 pairs of items"):
        tp.OracleBatch([gold], system="attardi", max_pairs=10).scores()
    small = tp.OracleBatch([gold, [0]], system="attardi", abandon=True, max_pairs=10)
    small.scores()
    assert small.abandoned.tolist() == [True, False]
    default = tp.OracleBatch([gold], system="attardi").scores()
    assert (tp.OracleBatch([gold], system="attardi", max_pairs=10**12).scores() == default).all()
    del small  # its oracles go back to the pool without a budget
    sessions = [tp.Session(gold, system="attardi") for _ in range(4)]
    assert all(max(v for v in s.scores().values() if v is not None) == default.max() for s in sessions)
    with pytest.raises(ValueError, match="max_pairs applies to system attardi only"):
        tp.OracleBatch([[0]], system="arc-hybrid", max_pairs=10)
    with pytest.raises(ValueError, match="max_pairs must be at least 1"):
        tp.OracleBatch([[0]], system="attardi", max_pairs=0)


def test_steps_of_any_integer_array_and_outputs_checked():
    """`apply` takes any 1-D integer array or sequence (int32, a list, a CPU
    tensor through NumPy) and refuses floats; a wrong `out` says what it
    must be."""
    golds = [[0, 1], [2, 0]]
    batch, reference = tp.OracleBatch(golds, system="arc-hybrid"), tp.OracleBatch(golds, system="arc-hybrid")
    shift = batch.steps.index("shift")
    batch.apply(np.array([shift, shift], dtype=np.int32))
    reference.apply(np.array([shift, shift]))
    batch.apply([shift, -1], labels=(3, 4))
    reference.apply(np.array([shift, -1]), np.array([3, 4]))
    assert (batch.positions() == reference.positions()).all() and (batch.scores() == reference.scores()).all()
    with pytest.raises(TypeError, match=r"`steps` must be a 1-D array of integers, one per sentence, found an array of float64"):
        batch.apply(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match=r"`labels` must be a 1-D array of integers"):
        batch.apply(np.array([-1, -1]), labels=[0.5, 1.0])
    with pytest.raises(TypeError, match=r"found an array of int64, shape \(1, 2\)"):
        batch.apply(np.array([[0, 0]]))
    with pytest.raises(TypeError, match=r"`out` must be a writeable C-contiguous int64 array of shape \(2, 3\), found an array of int32"):
        batch.scores(out=np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(ValueError, match=r"found an array of int64, shape \(2, 3\), not C-contiguous"):
        batch.scores(out=np.zeros((3, 2), dtype=np.int64).T)
    with pytest.raises(ValueError, match=r"`out` must be a writeable contiguous int64 array of length 2, found an array of int64, shape \(5,\)"):
        batch.static_steps(out=np.zeros(5, dtype=np.int64))
    with pytest.raises(TypeError, match="found a list"):
        batch.positions(out=[[0]])


def test_edges_of_outputs_steps_and_labels_are_clear_errors() -> None:
    """A read-only `out=` array, unsigned steps past int64 (which would wrap
    to −1, "no step"), and predicted labels below −1 (which the constructor
    refuses for gold labels) are ValueErrors, not a panic or a silent step."""
    import numpy as np

    b = tp.OracleBatch([[2, 0, 2]], system="arc-hybrid", labels=[[0, 1, 0]])
    frozen = np.zeros((1, len(b.steps)), dtype=bool)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="`out` must be a writeable .*read-only"):
        b.optimal(out=frozen)
    with pytest.raises(ValueError, match=r"`steps` holds 18446744073709551615, beyond the int64 range"):
        b.apply(np.array([2**64 - 1], dtype=np.uint64))
    step = int(np.nonzero(b.optimal()[0])[0][0])
    with pytest.raises(ValueError, match=r"labels\[0\]: label ids are ≥ 0 \(or −1 for none\), found -5"):
        b.apply(np.array([step]), labels=np.array([-5]))
    b.apply(np.array([step]), labels=np.array([1]))  # and a good call goes through


def test_lr_spine_on_a_non_projective_tree_says_what_the_command_line_says() -> None:
    """No "use cubic (or auto)" where auto was used and cubic is not offered:
    LR-spine's oracle is for projective gold trees only."""
    nonprojective = [3, 4, 0, 3]  # 1 ← 3 crosses 2 ← 4
    assert not tp.Tree(nonprojective).is_projective
    message = "lr-spine has an oracle for projective gold trees only"
    with pytest.raises(ValueError, match=message):
        tp.OracleBatch([nonprojective], system="lr-spine").optimal()
    with pytest.raises(ValueError, match=message):
        tp.Session(nonprojective, system="lr-spine")
