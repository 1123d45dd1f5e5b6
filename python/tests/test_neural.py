"""The neural parser (torch is an optional extra: skipped without it)."""

import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import tabula_parsing as tp  # noqa: E402
from tabula_parsing import neural  # noqa: E402
from conftest import random_tree  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample.conllu"
TINY = neural.Dimensions(word=16, upos=8, char=8, char_filters=8, lstm=16, mlp=16, dropout=0.0)


def toy_treebank(path: Path, sentences: int, seed: int, nonprojective: bool = False) -> None:
    """A treebank a parser can learn perfectly: each word's head and label
    follow from its UPOS (a determiner or adjective before its noun, nouns on
    the verb, the verb on the root); with ``nonprojective``, a relative word
    after the verb that attaches across it to the first noun."""
    rng = random.Random(seed)
    lines = []
    for k in range(sentences):
        words = []  # (form, upos, head index in words or -1 for root, label)
        subj = rng.random() < 0.8
        if subj:
            if rng.random() < 0.5:
                words.append(("the", "DET", 1, "det"))
            words.append((rng.choice(["dog", "cat", "bird"]), "NOUN", None, "nsubj"))
        verb = len(words)
        words.append((rng.choice(["sees", "likes", "eats"]), "VERB", -1, "root"))
        words.append(("a", "DET", len(words) + 1, "det"))
        words.append((rng.choice(["fish", "seed", "mouse"]), "NOUN", verb, "obj"))
        if nonprojective and subj and rng.random() < 0.5:
            words.append(("that", "PRON", verb - 1, "acl"))
        words = [(f, u, verb if h is None else h, lab) for f, u, h, lab in words]
        lines.append(f"# sent_id = toy-{k}")
        for i, (form, upos, head, label) in enumerate(words, 1):
            lines.append(f"{i}\t{form}\t{form}\t{upos}\t_\t_\t{0 if head == -1 else head + 1}\t{label}\t_\t_")
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    "system,oracle,projectivize",
    [
        ("arc-hybrid", "dynamic", "optimal"),
        ("arc-eager", "static", "optimal"),
        ("arc-eager-nm", "dynamic", "none"),
        ("attardi", "dynamic", "none"),  # non-projective trees, learnt as they are
    ],
)
def test_learns_a_toy_treebank_perfectly(tmp_path, system, oracle, projectivize):
    nonprojective = system == "attardi"
    train = tmp_path / "train.conllu"
    toy_treebank(train, 80, 1, nonprojective=nonprojective)
    test = tmp_path / "test.conllu"
    toy_treebank(test, 30, 2, nonprojective=nonprojective)
    model = neural.train(
        str(train),
        dev=str(test),
        system=system,
        oracle=oracle,
        projectivize=projectivize,
        epochs=10,
        seed=3,
        dims=TINY,
        batch_size=8,
        learning_rate=5e-3,
    )
    scores = model.evaluate(tp.read_conllu(test))["all"]
    assert scores["uas"] == 100.0 and scores["las"] == 100.0, (system, scores, [r.text() for r in model.history])


def test_pseudo_projective_training_decodes_its_output(tmp_path):
    """--pseudo-projective: the training labels encode the moves; parsing
    decodes them, so no encoded label reaches the output."""
    train = tmp_path / "train.conllu"
    toy_treebank(train, 80, 4, nonprojective=True)
    model = neural.train(str(train), pseudo_projective="head", epochs=6, seed=1, dims=TINY, batch_size=8,
                         learning_rate=5e-3)
    assert any("|" in label for label in model.vocab.labels.strings), "some training label encodes a move"
    text = model.parse_file(train)
    labels = [line.split("\t")[7] for line in text.splitlines() if line and line[0].isdigit()]
    assert not any("|" in x or "%" in x for x in labels)
    scores = model.evaluate(tp.read_conllu(train))["all"]
    assert scores["uas"] > 90, scores


def test_the_default_epochs_follow_the_training_files_size(tmp_path):
    from tabula_parsing.neural.train import DEFAULT_EPOCHS, SMALL_EPOCHS, SMALL_TRAINING, default_epochs
    from tabula_parsing.sweep.plan import NEURAL_DEFAULT_EPOCHS

    assert [default_epochs("transition", n) for n in (1, 499, 500, 12543)] == [40, 40, 20, 20]
    assert [default_epochs("biaffine", n) for n in (1, 499, 500, 12543)] == [60, 60, 20, 20]
    # The sweep names the policy in a job's inputs without importing PyTorch.
    small = ", ".join(f"{parser} {epochs}" for parser, epochs in SMALL_EPOCHS.items())
    assert NEURAL_DEFAULT_EPOCHS == f"{DEFAULT_EPOCHS}; {small} below {SMALL_TRAINING} training sentences"
    # The sample's few sentences: 40 epochs unless told, recorded with the model.
    model = neural.train(str(SAMPLE), seed=1, dims=TINY)
    assert model.options.epochs == 40 and len(model.history) == 40
    model.save(tmp_path / "m.pt")
    assert neural.load(tmp_path / "m.pt").options.epochs == 40
    assert len(neural.train(str(SAMPLE), epochs=3, seed=1, dims=TINY).history) == 3
    # An exploration option that no epoch of the chosen default uses is refused.
    with pytest.raises(ValueError, match=r"--explore-from: no epoch explores: .*--epochs 40 \(the default"):
        neural.train(str(SAMPLE), seed=1, dims=TINY, explore_from=40)


def test_save_load_parses_identically_and_is_deterministic(tmp_path):
    a = neural.train(str(SAMPLE), epochs=2, seed=5, dims=TINY)
    b = neural.train(str(SAMPLE), epochs=2, seed=5, dims=TINY)
    sentences = tp.read_conllu(SAMPLE)
    assert a.parse(sentences) == b.parse(sentences), "the same seed gives the same model on CPU"
    a.save(tmp_path / "m.pt")
    c = neural.load(tmp_path / "m.pt")
    assert c.parse(sentences) == a.parse(sentences)
    assert c.epoch == a.epoch and [r.loss for r in c.history] == [r.loss for r in a.history]


def test_average_is_the_moving_average_of_the_updates():
    """--average: the first update copies the weights, each later one moves
    the average by 1 − min(decay, (1 + k) / (10 + k)) of the way to the new
    weights; the parsing model is the average, saved and reloaded as such."""
    from tabula_parsing.neural import data, parser
    from tabula_parsing.neural.train import Options, Trainer, seed_everything

    sentences = tp.read_conllu(SAMPLE)
    options = Options(dims=TINY, average=0.5, seed=2)
    golds, labels, _ = parser._training_trees(SAMPLE, sentences, options)
    vocab = data.Vocabularies.build(sentences, labels)
    items = [data.encode(s, vocab, k, golds[k], labels[k]) for k, s in enumerate(sentences)]
    trainer = Trainer(options, vocab)
    rng, nrng = seed_everything(2)
    before = None
    for k in range(3):
        trainer.train_batch(items[:4], False, rng, nrng)
        new = [p.detach().clone() for p in trainer.net.parameters()]
        avg = [p.detach().clone() for p in trainer.model.parameters()]
        if before is None:
            expected = new
        else:
            w = 1 - min(0.5, (1 + k) / (10 + k))  # k updates averaged before this one
            expected = [b + w * (n - b) for b, n in zip(before, new)]
        assert all(torch.allclose(a, e) for a, e in zip(avg, expected)), k
        assert k == 0 or any(not torch.equal(a, n) for a, n in zip(avg, new)), "the average is not the last weights"
        before = avg


def test_average_saves_and_reloads_the_averaged_model(tmp_path):
    a = neural.train(str(SAMPLE), epochs=2, seed=5, dims=TINY, average=0.9)
    plain = neural.train(str(SAMPLE), epochs=2, seed=5, dims=TINY)
    weights = lambda m: torch.cat([p.detach().flatten() for p in m.net.parameters()])  # noqa: E731
    assert not torch.equal(weights(a), weights(plain)), "the averaged model differs from the trained one"
    a.save(tmp_path / "m.pt")
    b = neural.load(tmp_path / "m.pt")
    assert torch.equal(weights(a), weights(b))
    sentences = tp.read_conllu(SAMPLE)
    assert a.parse(sentences) == b.parse(sentences)
    with pytest.raises(ValueError, match="--average must be"):
        neural.train(str(SAMPLE), epochs=1, dims=TINY, average=1.0)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_the_averaged_lstm_on_a_gpu_keeps_its_weights_in_one_block():
    # A copied LSTM's weights lie apart; cuDNN would pack them at every call.
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*contiguous chunk of memory.*")
        neural.train(str(SAMPLE), epochs=2, dims=TINY, average=0.9, device="cuda", dev=str(SAMPLE))


def random_treebank(path: Path, sentences: int, words: int, seed: int) -> None:
    """Sentences of random trees (``conftest.random_tree``: mostly
    non-projective), for a network that errs, so that Attardi's oracle
    needs its table."""
    rng = random.Random(seed)
    lines = []
    for k in range(sentences):
        lines.append(f"# sent_id = r{k}")
        for i, head in enumerate(random_tree(words, rng), 1):
            upos = rng.choice(["NOUN", "VERB", "ADJ"])
            label = "root" if head == 0 else "dep"
            lines.append(f"{i}\tw{rng.randrange(30)}\t_\t{upos}\t_\t_\t{head}\t{label}\t_\t_")
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_max_gamma_reaches_attardis_oracle(tmp_path):
    train = tmp_path / "train.conllu"
    random_treebank(train, 16, 12, 5)
    # Random trees: the table runs from the first epoch on (the toy
    # treebank's regular trees are decided by the oracle's bounds alone).
    kw = dict(system="attardi", projectivize="none", epochs=1, seed=1, dims=TINY, batch_size=8)

    def abandoned(**more):
        return sum(epoch.abandoned for epoch in neural.train(str(train), **kw, **more).history)

    assert abandoned() == 0
    assert abandoned(max_gamma=2) > 0, "a table past 2 words is refused"
    with pytest.raises(ValueError, match="--max-gamma is for --system attardi"):
        neural.train(str(train), epochs=1, dims=TINY, max_gamma=10)
    with pytest.raises(ValueError, match="--max-gamma must be at least 0"):
        neural.train(str(train), epochs=1, dims=TINY, system="attardi", projectivize="none", max_gamma=-1)
    # The budget of a call: a sentence past it is left for the epoch too.
    assert abandoned(max_pairs=1) > 0
    assert abandoned(max_pairs=10**12) == 0
    with pytest.raises(ValueError, match="--max-pairs is for --system attardi"):
        neural.train(str(train), epochs=1, dims=TINY, max_pairs=10)
    with pytest.raises(ValueError, match="--max-pairs must be at least 1"):
        neural.train(str(train), epochs=1, dims=TINY, system="attardi", projectivize="none", max_pairs=0)


def test_parse_fills_head_and_deprel_only(tmp_path):
    model = neural.train(str(SAMPLE), epochs=1, seed=1, dims=TINY)
    text = model.parse_file(SAMPLE)
    original = SAMPLE.read_text().split("\n")
    parsed = text.split("\n")
    assert len(parsed) == len(original)
    for a, b in zip(original, parsed):
        fa, fb = a.split("\t"), b.split("\t")
        if len(fa) == 10 and fa[0].isdigit():
            assert fa[:6] + fa[8:] == fb[:6] + fb[8:]
            assert (fb[6] == "0") == (fb[7] == "root"), "root exactly under the root"
        else:
            assert a == b


def test_command_trains_and_parses(tmp_path):
    model = tmp_path / "m.pt"
    out = tmp_path / "out.conllu"
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "tabula_parsing.neural", *args], capture_output=True, text=True
    )
    r = run("train", str(SAMPLE), "-o", str(model), "--epochs", "2", "--lstm-dim", "8", "--mlp-dim", "8",
            "--word-dim", "8", "--char-dim", "0", "--dev", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    assert "epoch 2:" in r.stderr and "dev UAS" in r.stderr
    r = run("parse", "--model", str(model), str(SAMPLE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert tp.evaluate(SAMPLE, out)["sentences"] == len(tp.read_conllu(SAMPLE))
    # `-o -` is standard output (not a file named `-`), as for tabula parse.
    r = run("parse", "--model", str(model), str(SAMPLE), "-o", "-")
    assert r.returncode == 0 and r.stdout == out.read_text(encoding="utf-8"), r.stderr
    assert not Path("-").exists()


def test_errors_are_the_command_lines(tmp_path):
    with pytest.raises(ValueError, match="unknown system"):
        neural.train(str(SAMPLE), system="arc-nothing", epochs=1)
    # A near miss gets the library's "did you mean", as `tabula train` says it.
    with pytest.raises(ValueError, match="unknown system `arc-hybird`: did you mean `arc-hybrid`?"):
        neural.train(str(SAMPLE), system="arc-hybird", epochs=1)
    with pytest.raises(ValueError, match="--explore-from has no effect"):
        neural.train(str(SAMPLE), oracle="static", explore_from=3, epochs=1)
    with pytest.raises(ValueError, match="--epochs"):
        neural.train(str(SAMPLE), epochs=0)
    with pytest.raises(ValueError, match="linear"):
        neural.train(str(SAMPLE), algorithm="linear", system="attardi", epochs=1)
    with pytest.raises(ValueError, match=r"sample.conllu:\d+: a non-projective tree, but the static oracle"):
        neural.train(str(SAMPLE), oracle="static", projectivize="none", epochs=1)
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    with pytest.raises(ValueError, match="not a tabula neural model"):
        neural.load(bad)
    notag = tmp_path / "notag.conllu"
    notag.write_text("1\ta\ta\t_\t_\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(ValueError, match="UPOS column is empty"):
        neural.train(str(notag), epochs=1)


def test_parse_checks_its_input_as_tabula_parse_does(tmp_path):
    model = neural.train(str(SAMPLE), epochs=1, dims=TINY)
    text = SAMPLE.read_text(encoding="utf-8")
    # A sentence none of whose words has a UPOS: an error naming its first word's line.
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(text + "# sent_id = x\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    line = len(text.splitlines()) + 2
    with pytest.raises(ValueError, match=rf"untagged.conllu:{line}: no word of this sentence has a UPOS"):
        model.parse_file(untagged)
    with pytest.raises(ValueError, match=rf"untagged.conllu:{line}: no word of this sentence has a UPOS"):
        model.parse(tp.read_conllu(untagged))
    # Some words without one: a warning with the count, and the file parsed.
    partial = tmp_path / "partial.conllu"
    partial.write_text(text + "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\tX\t_\t_\t_\t_\t_\t_\n\n")
    words = sum(len(s) for s in tp.read_conllu(partial))
    with pytest.warns(UserWarning, match=rf"partial.conllu: 1 of {words} words have no UPOS"):
        out = model.parse_file(partial)
    assert len(tp.parse_conllu(out, "out")) == len(tp.read_conllu(partial))
    # From the shell: `warning:` and `error:` lines, no traceback.
    run = [sys.executable, "-m", "tabula_parsing.neural", "parse", "--model"]
    saved = tmp_path / "m.pt"
    model.save(saved)
    r = subprocess.run(run + [str(saved), str(partial)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr.startswith("warning: ") and "no UPOS" in r.stderr, r.stderr
    r = subprocess.run(run + [str(saved), str(untagged)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stdout == "" and r.stderr.startswith(f"error: {untagged}:{line}: "), r.stderr


def test_a_dev_file_that_cannot_score_is_refused_before_training(tmp_path):
    out = tmp_path / "m.pt"
    bare = tmp_path / "bare.conllu"
    bare.write_text("1\ta\t_\tX\t_\t_\t_\t_\t_\t_\n2\tb\t_\tX\t_\t_\t_\t_\t_\t_\n\n")
    with pytest.raises(ValueError, match=r"bare.conllu: no sentence has a complete gold tree .* leave --dev out"):
        neural.train(str(SAMPLE), out, dev=str(bare), epochs=1, dims=TINY)
    text = SAMPLE.read_text(encoding="utf-8")
    partial = tmp_path / "partial.conllu"
    partial.write_text(text + "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t_\t_\t_\t_\n\n")
    with pytest.raises(ValueError, match=r"partial.conllu:\d+: .*HEAD `_`"):
        neural.train(str(SAMPLE), out, dev=str(partial), epochs=1, dims=TINY)
    treeless = tmp_path / "treeless.conllu"
    treeless.write_text(text + "1\ta\t_\tX\t_\t_\t_\t_\t_\t_\n\n")
    line = len(text.splitlines()) + 1
    with pytest.raises(ValueError, match=rf"treeless.conllu:{line}: a sentence without a gold tree"):
        neural.train(str(SAMPLE), out, dev=str(treeless), epochs=1, dims=TINY)
    assert not out.exists()


def test_evaluate_parses_where_the_network_is():
    # Training's dev scores must not move a network on a GPU to the CPU.
    model = neural.train(str(SAMPLE), epochs=1, dims=TINY)
    moved = []
    to = model.net.to
    model.net.to = lambda *a, **k: moved.append(a) or to(*a, **k)
    scores = model.evaluate(tp.read_conllu(SAMPLE))
    assert moved == [] and scores["sentences"] == len(tp.read_conllu(SAMPLE))


def test_device_batch_size_and_threads_are_checked(tmp_path):
    with pytest.raises(ValueError, match="--device must be cpu, cuda or cuda:N, found `tpu`"):
        neural.train(str(SAMPLE), device="tpu", epochs=1)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="--device cuda:1: no CUDA device"):
            neural.train(str(SAMPLE), device="cuda:1", epochs=1)
    model = neural.train(str(SAMPLE), epochs=1, dims=TINY)
    sentences = tp.read_conllu(SAMPLE)
    for bad in (0, -1):
        with pytest.raises(ValueError, match=f"--batch-size must be at least 1, found {bad}"):
            model.parse(sentences, batch_size=bad)
        with pytest.raises(ValueError, match=f"--batch-size must be at least 1, found {bad}"):
            model.parse_file(SAMPLE, batch_size=bad)
    with pytest.raises(ValueError, match="--device must be"):
        model.parse_file(SAMPLE, device="gpu")
    with pytest.raises(ValueError, match="--threads must be between 1 and"):
        model.parse_file(SAMPLE, threads=0)
    threads = torch.get_num_threads()
    assert model.parse_file(SAMPLE, threads=1, batch_size=1) == model.parse_file(SAMPLE)
    assert torch.get_num_threads() == threads, "set back after the call"
    # From the shell: an error line, no traceback, no output.
    out = tmp_path / "out.conllu"
    model.save(tmp_path / "m.pt")
    r = subprocess.run(
        [sys.executable, "-m", "tabula_parsing.neural", "parse", "--model", str(tmp_path / "m.pt"), str(SAMPLE),
         "-o", str(out), "--batch-size", "-1"],
        capture_output=True, text=True,
    )
    assert r.returncode == 1 and r.stderr.startswith("error: --batch-size must be at least 1")
    assert "Traceback" not in r.stderr and not out.exists()
    # A missing model: its name first, as tabula's errors say it.
    missing = tmp_path / "none.pt"
    r = subprocess.run(
        [sys.executable, "-m", "tabula_parsing.neural", "parse", "--model", str(missing), str(SAMPLE)],
        capture_output=True, text=True,
    )
    assert r.returncode == 1 and r.stderr == f"error: {missing}: No such file or directory\n", r.stderr


def test_the_networks_options_are_checked_before_training(tmp_path):
    """Each size and rate with the command's option name, before any epoch;
    an option that would do nothing is refused too."""
    for kw, message in [
        (dict(dims=neural.Dimensions(lstm=0)), "--lstm-dim must be at least 1, found 0"),
        (dict(dims=neural.Dimensions(mlp=-3)), "--mlp-dim must be at least 1, found -3"),
        (dict(dims=neural.Dimensions(layers=0)), "--layers must be at least 1, found 0"),
        (dict(dims=neural.Dimensions(dropout=1.0)), "--dropout must be at least 0 and below 1"),
        (dict(dims=neural.Dimensions(feats=8)), "--feats-dim 8 has no effect without --feats"),
        (dict(learning_rate=-1.0), "--learning-rate must be above 0"),
        (dict(word_dropout=-0.5), "--word-dropout must be at least 0"),
        (dict(explore_from=-1), "--explore-from must be at least 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            neural.train(str(SAMPLE), epochs=1, **kw)
    with pytest.raises(FileNotFoundError, match="directory .* does not exist"):
        neural.train(str(SAMPLE), tmp_path / "missing" / "m.pt", epochs=1)
    with_feats = tmp_path / "feats.conllu"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    cols = [line.split("\t") for line in lines]
    with_feats.write_text(
        "".join("\t".join(c[:5] + ["Number=Sing"] + c[6:]) + "\n" if len(c) == 10 else line + "\n"
                for c, line in zip(cols, lines)),
        encoding="utf-8",
    )
    model = neural.train(str(with_feats), epochs=1, feats=True, dims=TINY)
    assert model.options.dims.feats == 32, "--feats reads FEATS at the default size"
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "tabula_parsing.neural", "train", str(SAMPLE), "-o", str(tmp_path / "m.pt"), *args],
        capture_output=True, text=True,
    )
    for args, message in [
        (["--char-dim", "0", "--char-filters", "8"], "--char-filters has no effect with --char-dim 0"),
        (["--feats", "--feats-dim", "0"], "--feats-dim must be at least 1, found 0"),
        (["--feats-dim", "8"], "--feats-dim 8 has no effect without --feats"),
    ]:
        r = run(*args)
        assert r.returncode == 1 and message in r.stderr and "epoch" not in r.stderr, (args, r.stderr)


@pytest.mark.parametrize("system,epochs", [("arc-hybrid", 40), ("attardi", 80)])
def test_the_pytorch_template_example_learns_the_sample(system, epochs):
    """examples/python/oracle_batch_pytorch.py, the loop a parser builder
    would start from, fits data/sample.conllu: with Attardi's exact oracle
    every arc of its non-projective trees, with arc-hybrid's every arc a
    projective tree can keep (the optimal projectivizations' agreement) and
    never more. (Seeds 1-3 reach it by epoch 23 and 42.)"""
    script = REPO / "examples" / "python" / "oracle_batch_pytorch.py"
    r = subprocess.run(
        [sys.executable, str(script), str(SAMPLE), "--epochs", str(epochs), "--system", system],
        capture_output=True, text=True, cwd=REPO,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    scores = [float(line.rsplit(" ", 1)[1]) for line in r.stdout.strip().splitlines()]
    assert len(scores) == epochs
    sentences = tp.read_conllu(SAMPLE)
    words = sum(len(s) for s in sentences)
    if system == "attardi":
        best = words
    else:
        projective = tp.projectivize_batch(sentences)
        best = sum(sum(a == b for a, b in zip(t.heads, s.heads)) for t, s in zip(projective, sentences))
        assert best < words, "the sample has non-projective trees"
    assert max(scores) == round(100 * best / words, 2), r.stdout


# --- the biaffine parser ----------------------------------------------------

BIAFFINE_TINY = neural.Dimensions(word=16, upos=8, char=8, char_filters=8, lstm=16, mlp=16, arc_mlp=16, dropout=0.0)

# Trees whose root has exactly one child and every word at most one left
# child: a class of the user's own, as a grammar file.
ONE_LEFT = (REPO / "tests" / "data" / "one-left.grammar").read_text()


@pytest.mark.parametrize(
    "arc_loss,trees",
    [
        ("local", "nonprojective-single-root"),
        ("crf", "nonprojective-single-root"),
        ("crf", "nonprojective"),
        ("crf", "projective-single-root"),
        ("crf", "projective"),
    ],
)
def test_the_biaffine_parser_learns_a_toy_treebank_perfectly(tmp_path, arc_loss, trees):
    """Every loss and tree class learns the toy treebank (its non-projective
    variant for the classes of all trees) to 100 % on held-out sentences."""
    nonprojective = trees.startswith("nonprojective")
    train = tmp_path / "train.conllu"
    toy_treebank(train, 80, 1, nonprojective=nonprojective)
    test = tmp_path / "test.conllu"
    toy_treebank(test, 30, 2, nonprojective=nonprojective)
    model = neural.train(
        str(train), dev=str(test), parser="biaffine", arc_loss=arc_loss, trees=trees, epochs=12, seed=3,
        dims=BIAFFINE_TINY, batch_size=8, learning_rate=5e-3,
    )
    scores = model.evaluate(tp.read_conllu(test))["all"]
    assert scores["uas"] == 100.0 and scores["las"] == 100.0, (trees, scores, [r.text() for r in model.history])
    assert all(r.layer == ("tree CRF layer" if arc_loss == "crf" else "") for r in model.history)


def test_a_grammar_file_constrains_training_and_parsing(tmp_path, capsys):
    """--trees FILE: a user's grammar (one root child, at most one left
    child per word): every parsed tree is in its class, though the network
    is barely trained; gold trees outside it are left out of the CRF's
    training and counted."""
    grammar = tmp_path / "one-left.grammar"
    grammar.write_text(ONE_LEFT)
    train = tmp_path / "train.conllu"
    random_treebank(train, 40, 7, seed=2)
    model = neural.train(
        str(train), parser="biaffine", trees=str(grammar), epochs=1, seed=1, dims=BIAFFINE_TINY, verbose=True
    )
    left_out = re.search(r"left out (\d+) sentences whose gold tree is not among --trees", capsys.readouterr().err)
    assert left_out is not None and 0 < int(left_out.group(1)) < 40
    for heads, _ in model.parse(tp.read_conllu(train)):
        assert sum(h == 0 for h in heads) == 1
        assert all(sum(1 for d, h in enumerate(heads, 1) if h == v and d < v) <= 1 for v in range(len(heads) + 1))
        assert tp.Tree(heads).is_projective


def test_the_biaffine_parser_saves_loads_and_parses_from_the_command(tmp_path):
    model_path = tmp_path / "m.pt"
    out = tmp_path / "parsed.conllu"
    cmd = [sys.executable, "-m", "tabula_parsing.neural"]
    subprocess.run(
        cmd + ["train", str(SAMPLE), "-o", str(model_path), "--parser", "biaffine", "--trees", "projective",
               "--epochs", "2", "--word-dim", "8", "--lstm-dim", "8", "--mlp-dim", "8", "--arc-mlp-dim", "8",
               "--char-dim", "0", "--seed", "1", "--quiet"],
        check=True,
    )
    subprocess.run(cmd + ["parse", "--model", str(model_path), str(SAMPLE), "-o", str(out)], check=True)
    loaded = neural.load(model_path)
    assert loaded.options.parser == "biaffine" and loaded.options.trees == "projective"
    sentences = tp.read_conllu(SAMPLE)
    parsed = tp.read_conllu(out)
    assert [list(s.heads) for s in parsed] == [h for h, _ in loaded.parse(sentences)]
    assert all(tp.Tree(list(s.heads)).is_projective for s in parsed)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--parser", "biaffine", "--system", "arc-eager"], "--system has no effect with --parser biaffine"),
        (["--parser", "biaffine", "--oracle", "static"], "--oracle has no effect with --parser biaffine"),
        (["--parser", "biaffine", "--explore-p", "0.5"], "--explore-p has no effect with --parser biaffine"),
        (["--parser", "biaffine", "--max-pairs", "10"], "--max-pairs has no effect with --parser biaffine"),
        (["--trees", "projective"], "--trees has no effect with --parser transition"),
        (["--arc-loss", "local"], "--arc-loss has no effect with --parser transition"),
        (["--arc-mlp-dim", "8"], "--arc-mlp-dim has no effect with --parser transition"),
        (["--epochs", "1", "--explore-p", "0.5"],
         "--explore-p: no epoch explores: exploration starts after epoch 1 and --epochs 1 stops before"),
        (["--parser", "biaffine", "--trees", "projectiv"], "--trees must be one of projective"),
        (["--parser", "biaffine", "--arc-mlp-dim", "0"], "--arc-mlp-dim must be at least 1, found 0"),
        (["--parser", "biaffine", "--trees", "nonprojective", "--pseudo-projective", "head"],
         "--pseudo-projective needs --projectivize optimal or lift"),
    ],
)
def test_an_option_of_the_other_parser_is_refused(tmp_path, args, message):
    r = subprocess.run(
        [sys.executable, "-m", "tabula_parsing.neural", "train", str(SAMPLE), "-o", str(tmp_path / "m.pt"), *args],
        capture_output=True, text=True,
    )
    assert r.returncode == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "m.pt").exists()


# --- pre-trained vectors and predicted tags ---------------------------------


def write_vectors(path: Path, words: list[str], dim: int, seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    table = {w: [round(rng.uniform(-1, 1), 4) for _ in range(dim)] for w in words}
    path.write_text(f"{len(words)} {dim}\n" + "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in table.items()))
    return table


@pytest.mark.parametrize("parser", ["transition", "biaffine"])
def test_pretrained_vectors_are_read_kept_fixed_and_saved(tmp_path, parser):
    """--embeddings: word2vec's text format and a NumPy archive give the same
    model; the vectors are looked up as the form is, then lowercased; they
    stay as read through training, and are saved and loaded with the model."""
    import numpy as np

    sentences = tp.read_conllu(SAMPLE)
    words = sorted({f.lower() for s in sentences for f in s.forms}) + ["unseen"]
    table = write_vectors(tmp_path / "vectors.txt", words, 5, seed=1)
    np.savez(tmp_path / "vectors.npz", words=np.array(words), vectors=np.array([table[w] for w in words]))
    dims = BIAFFINE_TINY if parser == "biaffine" else TINY
    models = [
        neural.train(str(SAMPLE), parser=parser, embeddings=str(tmp_path / name), epochs=2, seed=4, dims=dims)
        for name in ("vectors.txt", "vectors.npz")
    ]
    assert models[0].parse(sentences) == models[1].parse(sentences)
    net = models[0].net
    assert net.pretrained is not None and models[0].options.dims.pretrained == 5
    vocab = models[0].vocab.pretrained
    assert vocab is not None and vocab("Kim") == vocab("kim") > 0 and vocab("nowhere") == 0
    for w in ("kim", "unseen"):
        assert torch.allclose(net.pretrained.weight[vocab(w)], torch.tensor(table[w]))
    assert net.pretrained.weight[0].abs().sum() == 0
    models[0].save(tmp_path / "m.pt")
    loaded = neural.load(tmp_path / "m.pt")
    assert loaded.parse(sentences) == models[0].parse(sentences)
    plain = neural.train(str(SAMPLE), parser=parser, epochs=2, seed=4, dims=dims)
    assert plain.net.pretrained is None


def test_pretrained_vectors_with_errors_name_the_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a 0.1 0.2 0.3\nb 0.1 0.2\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: 2 numbers after `b`, the first line has 3"):
        neural.train(str(SAMPLE), embeddings=str(bad), epochs=1, dims=TINY)
    bad.write_text("a 0.1 x\n")
    with pytest.raises(ValueError, match=r"bad.txt:1: a field after `a` is not a number"):
        neural.train(str(SAMPLE), embeddings=str(bad), epochs=1, dims=TINY)
    bad.write_text("\x1b]0;x\x07 0.1 x\n")  # a terminal escape as the word: shown, not sent
    with pytest.raises(ValueError, match=r"a field after `\\x1b\]0;x\\x07` is not a number"):
        neural.train(str(SAMPLE), embeddings=str(bad), epochs=1, dims=TINY)


def test_the_tagger_fills_upos_for_training_and_parsing(tmp_path):
    """--tagger: text without UPOS is refused without a tagger and parsed
    with one (UPOS filled as `tabula parse --tagger` fills it); training on
    jackknifed tags; --jackknife without --tagger is refused."""
    tagger = tp.Tagger.train(str(SAMPLE), epochs=2, bits=12)
    tagger_path = tmp_path / "tagger"
    tagger.save(tagger_path)
    bare = tmp_path / "bare.conllu"
    lines = []
    for line in SAMPLE.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            fields[3] = "_"
        lines.append("\t".join(fields))
    bare.write_text("\n".join(lines) + "\n")
    model = neural.train(str(SAMPLE), parser="biaffine", tagger=str(tagger_path), jackknife=3, epochs=1, seed=1,
                         dims=BIAFFINE_TINY)
    assert model.options.tagger == str(tagger_path) and model.options.jackknife == 3
    with pytest.raises(ValueError, match="none of whose words has a UPOS|no word has a UPOS|UPOS"):
        model.parse_file(bare)
    text = model.parse_file(bare, tagger=tagger_path)
    tagged = tagger.tag(tp.read_conllu(bare))
    assert [s.upos for s in tp.parse_conllu(text, "<parsed>")] == [s.upos for s in tagged]
    with pytest.raises(ValueError, match="--jackknife K tags the training file with taggers trained like --tagger"):
        neural.train(str(SAMPLE), jackknife=3, epochs=1, dims=TINY)
