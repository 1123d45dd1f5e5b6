"""Every keyword of the Python API acts, or is refused.

The command-line rule (`test_options_act.py`) holds for the package too: a
keyword argument that changes nothing in the call where it is given must be
a `ValueError`. The keywords are found with `inspect.signature` (the Rust
functions' `__text_signature__`, the neural parser's Python signatures and
the fields of `neural.Options`) on the callables of `WALKED` and
`walked_neural()`; a keyword is a parameter with a default.

For each `(callable, keyword)`, `MATRIX` holds a `Case`: the keywords of a
call without it (`base`), the keyword with a value other than the default
(`value`, added to the base), and the surroundings the call needs (`mode`:
the input file, the system of an `Oracle` whose method is called ...). A
runner of `RUNNERS` makes the call, in an empty directory, on the inputs that
the `workspace` fixture generates, and turns what comes back into plain data
(a trained parser: its model's bytes and its history without timings; a
`Session`: the scores along a computation; ...). The keyword acts when the
two calls differ: in that data, in the `ValueError` raised, in the files
written in the directory, in the warnings, and in what is written to
standard error where the case says so (`stderr`, numbers masked). A case may instead expect the call
with the keyword to be refused (`refused`: a text of the message), where
refusing is what the keyword is for, or a refusal of the base to be lifted
(`base_refused`).

`MODES` checks a keyword once more in another mode, where it is refused
(the options of the other neural parser, for instance). `EXCEPTIONS` lists
the pairs that change nothing by design, with the reason; they are run too
and must give the same results. `KNOWN_FAULTS` holds keywords seen doing
nothing where the rule asks for an effect or an error, with the call and
what it gave: strict xfail, until the package makes them act or refuses them.
`test_pair_count` prints the number of checks (`pytest -s`).

Adding a keyword: `test_every_keyword_has_an_entry` fails and names the
missing `callable:keyword`. Add a `Case` to `MATRIX` (or to `NEURAL_MATRIX`
for the neural parser) with a base and a value that change the result on the
workspace's inputs (add an input there if none shows it); only if no input
can, and a user would agree that none should, add the pair to `EXCEPTIONS`
with the reason. The neural parser's checks need torch (skipped without it);
the others do not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import random
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import tabula_parsing as tp
from conftest import random_tree


@dataclass(frozen=True)
class Case:
    """How to make one keyword act: `base` and `value` are keywords of the
    walked callable; `mode` what its runner needs around the call. A string
    starting with `@` names a file of the workspace."""

    base: dict = field(default_factory=dict)
    value: dict = field(default_factory=dict)
    mode: dict = field(default_factory=dict)
    refused: str | None = None
    base_refused: str | None = None
    stderr: bool = False


def K(value: dict, base: dict | None = None, mode: dict | None = None, **kw) -> Case:
    return Case(base or {}, value, mode or {}, **kw)


# ---------------------------------------------------------------- the walk

WALKED: dict[str, Callable] = {
    "Parser.train": tp.Parser.train,
    "Parser.parse": tp.Parser.parse,
    "projectivize": tp.projectivize,
    "count": tp.count,
    "Oracle": tp.Oracle,
    "Session": tp.Session,
    "OracleBatch": tp.OracleBatch,
}
# The methods of these classes that take keywords are walked too.
for _cls in (tp.Oracle, tp.Session):
    for _name, _member in vars(_cls).items():
        if not _name.startswith("_") and callable(_member):
            WALKED[f"{_cls.__name__}.{_name}"] = _member


def keywords(f: Callable) -> set[str]:
    """The parameters with a default (not `self`, not `*args`/`**kw`)."""
    try:
        sig = inspect.signature(f)
    except ValueError:
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in sig.parameters.values() if p.kind in kinds and p.default is not inspect.Parameter.empty}


def walked_neural() -> dict[str, set[str]]:
    """The neural parser's keywords: `train`'s own and the fields of
    `Options` (its `**settings`), `NeuralParser.parse` and `parse_file`."""
    from tabula_parsing import neural

    return {
        "neural.train": keywords(neural.train) | {f.name for f in dataclasses.fields(neural.Options)},
        "NeuralParser.parse": keywords(neural.NeuralParser.parse),
        "NeuralParser.parse_file": keywords(neural.NeuralParser.parse_file),
    }


def existing(neural: bool) -> set[tuple[str, str]]:
    if neural:
        return {(c, k) for c, ks in walked_neural().items() for k in ks}
    return {(c, k) for c, f in WALKED.items() for k in keywords(f)}


# ---------------------------------------------------------------- inputs

# FORM, LEMMA, UPOS, XPOS, FEATS; some forms with two tags, for the tagger.
LEXICON = [
    ("the", "the", "DET", "DT", "Definite=Def"),
    ("a", "a", "DET", "DT", "Definite=Ind"),
    ("dog", "dog", "NOUN", "NN", "Number=Sing"),
    ("dogs", "dog", "NOUN", "NNS", "Number=Plur"),
    ("saw", "see", "VERB", "VBD", "Tense=Past"),
    ("saw", "saw", "NOUN", "NN", "Number=Sing"),
    ("runs", "run", "VERB", "VBZ", "Tense=Pres"),
    ("runs", "run", "NOUN", "NNS", "Number=Plur"),
    ("that", "that", "PRON", "WDT", "PronType=Rel"),
    ("that", "that", "SCONJ", "IN", "_"),
    ("in", "in", "ADP", "IN", "_"),
    ("big", "big", "ADJ", "JJ", "Degree=Pos"),
    ("Kim", "Kim", "PROPN", "NNP", "Number=Sing"),
    (".", ".", "PUNCT", ".", "_"),
]
DEPREL = {"DET": "det", "NOUN": "obj", "VERB": "ccomp", "PRON": "nsubj", "SCONJ": "mark", "ADP": "case",
          "ADJ": "amod", "PROPN": "nsubj", "PUNCT": "punct"}


def single_rooted(heads: list[int]) -> list[int]:
    """The tree with every child of the root but the first moved under it."""
    first = heads.index(0) + 1
    return [first if h == 0 and d != first else h for d, h in enumerate(heads, 1)]


def treebank(name: str, count: int, seed: int, multi: bool = False) -> str:
    """CoNLL-U of random sentences (4-9 words) with random trees (mostly
    non-projective; single-rooted unless `multi`)."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        n = rng.randint(4, 9)
        words = [rng.choice(LEXICON) for _ in range(n)]
        heads = random_tree(n, rng)
        if not multi:
            heads = single_rooted(heads)
        elif heads.count(0) == 1:
            heads[next(i for i, h in enumerate(heads) if h != 0)] = 0
        out.append(f"# sent_id = {name}-{k + 1}\n")
        for i, ((form, lemma, upos, xpos, feats), h) in enumerate(zip(words, heads), 1):
            rel = "root" if h == 0 else DEPREL[upos]
            out.append(f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{h}\t{rel}\t_\t_\n")
        out.append("\n")
    return "".join(out)


# Small settings every training here starts from.
SMALL = dict(epochs=1, step_bits=10, label_bits=8)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The generated inputs (paths, sentences, a tagger, parsers) that cases
    name with `@`."""
    d = tmp_path_factory.mktemp("keyword-inputs")
    w: dict[str, Any] = {}
    for name, text in {
        "train": treebank("t", 40, 1),
        "dev": treebank("d", 12, 2),
        "multi": treebank("m", 12, 3, multi=True),
        "few": treebank("f", 8, 5),
    }.items():
        (d / f"{name}.conllu").write_text(text)
        w[name] = str(d / f"{name}.conllu")
        w[name + "-sentences"] = tp.read_conllu(d / f"{name}.conllu")
    # Only rightward arcs: a grammar other than the built-in one.
    (d / "right.grammar").write_text("start S\n(S, S) -> a\nS -> (S, S)\n(_, S) -> (_, S) S\n")
    w["right.grammar"] = str(d / "right.grammar")
    w["tagger"] = tp.Tagger.train(w["train"], epochs=1, bits=12)
    w["tagger"].save(d / "t.tagger")
    w["t.tagger"] = str(d / "t.tagger")
    w["parser"] = tp.Parser.train(w["train"], **SMALL)
    w["other-parser"] = tp.Parser.train(w["dev"], **SMALL)
    # Pre-trained vectors for the neural parser (word2vec's text format).
    rng = random.Random(6)
    vectors = "".join(f"{form} {' '.join(f'{rng.uniform(-1, 1):.3f}' for _ in range(4))}\n"
                      for form in sorted({x[0] for x in LEXICON}))
    (d / "vectors.txt").write_text(vectors)
    w["vectors.txt"] = str(d / "vectors.txt")
    w["dir"] = d
    return w


def resolve(x: Any, w: dict[str, Any]) -> Any:
    if isinstance(x, str) and x.startswith("@"):
        return w[x[1:]]
    return x


# ---------------------------------------------------------------- runners
# Each runner makes the call with `kw` (the walked callable's keywords) in
# `mode`, and returns plain data to compare.


def trees_of(results) -> list:
    return [r.to_conllu() if isinstance(r, tp.Sentence) else list(r) for r in results]


def history(h: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "seconds"} for e in h]


def run_parser_train(w, mode, kw):
    p = tp.Parser.train(resolve(mode.get("train", "@train"), w), **{**SMALL, **kw})
    return p.to_bytes(), history(p.history)


def run_parser_parse(w, mode, kw):
    parser = w[mode.get("parser", "parser")]
    return trees_of(parser.parse(w[mode.get("input", "dev") + "-sentences"], **kw))


def run_projectivize(w, mode, kw):
    sentences = w[mode.get("input", "train") + "-sentences"]
    items = sentences if mode.get("sentences") else [s.tree for s in sentences]
    return trees_of(tp.projectivize(x, **kw) for x in items)


def run_count(w, mode, kw):
    return [tp.count(s.tree, **kw) for s in w[mode.get("input", "train") + "-sentences"]]


def golds(w, mode) -> list[list[int]]:
    return [s.heads for s in w[mode.get("input", "few") + "-sentences"]]


def walk_oracle(oracle, gold: list[int], system: str) -> list:
    """The scores along the computation that takes the first optimal step."""
    c = tp.Configuration.initial(len(gold), system)
    out = []
    while not c.is_final:
        out.append(oracle.scores_at(c, gold))
        c.apply(oracle.optimal_at(c, gold)[0])
    return out


def run_oracle(w, mode, kw):
    o = tp.Oracle(**kw)
    return [walk_oracle(o, g, o.system) for g in golds(w, mode)]


def run_oracle_method(name):
    def run(w, mode, kw):
        o = tp.Oracle(mode.get("system", "arc-standard"))
        return getattr(o, name)(mode["stack"], mode["buffer"], mode["gold"], **kw)

    return run


def run_session(w, mode, kw):
    out = []
    for g in golds(w, mode):
        kw2 = {k: (v(len(g)) if callable(v) else v) for k, v in kw.items()}
        s = tp.Session(g, **kw2)
        trace = []
        while not s.is_final:
            trace.append(s.scores())
            s.apply(s.optimal()[0])
        out.append(trace)
    return out


def run_oracle_batch(w, mode, kw):
    gs = golds(w, mode)
    if "labels" in kw:
        kw = {**kw, "labels": [[(3 * i) % 5 for i in range(len(g))] for g in gs]}
    b = tp.OracleBatch(gs, **kw)
    out = []
    while not b.done:
        optimal = b.optimal()
        out.append((b.scores().tolist(), b.gold_labels().tolist(), b.abandoned.tolist()))
        steps = np.where(b.finished | ~optimal.any(axis=1), -1, optimal.argmax(axis=1))
        b.apply(steps.astype(np.int64))
    return out, [h.tolist() for h in b.heads()], [x.tolist() for x in b.labels()], b.abandoned.tolist()


RUNNERS: dict[str, Callable] = {
    "Parser.train": run_parser_train,
    "Parser.parse": run_parser_parse,
    "projectivize": run_projectivize,
    "count": run_count,
    "Oracle": run_oracle,
    "Oracle.scores": run_oracle_method("scores"),
    "Oracle.optimal": run_oracle_method("optimal"),
    "Session": run_session,
    "OracleBatch": run_oracle_batch,
}

# ---------------------------------------------------------------- matrix

# An arc-eager configuration (stack 0 2, input 3 4, word 1 reduced): the
# oracle needs to know whether 2 has a head; arc-eager-nm after an unshift.
EAGER = dict(system="arc-eager", stack=[0, 2], buffer=[3, 4], gold=[2, 0, 2, 3])
NM = dict(system="arc-eager-nm", stack=[0, 2, 3], buffer=[], gold=[2, 0, 2, 3])
ATTARDI = dict(system="attardi", abandon=True)

MATRIX: dict[tuple[str, str], Case] = {
    # Parser.train: the model's bytes and the history
    ("Parser.train", "dev"): K(dict(dev="@dev")),
    ("Parser.train", "system"): K(dict(system="arc-eager")),
    ("Parser.train", "oracle"): K(dict(oracle="static")),
    ("Parser.train", "strategy"): K(dict(strategy="none"), dict(system="arc-standard")),
    ("Parser.train", "max_gamma"): K(dict(max_gamma=4), dict(system="attardi")),
    ("Parser.train", "max_pairs"): K(dict(max_pairs=10), dict(system="attardi")),
    ("Parser.train", "max_words"): K(dict(max_words=5)),
    ("Parser.train", "projectivize"): K(dict(projectivize="lift")),
    ("Parser.train", "skip_nonprojective"): K(dict(skip_nonprojective=True)),
    ("Parser.train", "pseudo_projective"): K(dict(pseudo_projective="head")),
    ("Parser.train", "tagger"): K(dict(tagger="@tagger")),
    ("Parser.train", "jackknife"): K(dict(jackknife=2), dict(tagger="@tagger")),
    ("Parser.train", "feats"): K(dict(feats=True)),
    ("Parser.train", "lemma"): K(dict(lemma=True)),
    ("Parser.train", "xpos"): K(dict(xpos=True)),
    ("Parser.train", "epochs"): K(dict(epochs=2)),
    ("Parser.train", "beam"): K(dict(beam=2)),
    ("Parser.train", "root"): K(dict(root="last")),
    ("Parser.train", "update"): K(dict(update="full"), dict(beam=2)),
    ("Parser.train", "restart"): K(dict(restart=True), dict(beam=2)),
    ("Parser.train", "beam_labels"): K(dict(beam_labels=1), dict(beam=2)),
    ("Parser.train", "explore_from"): K(dict(explore_from=0)),
    ("Parser.train", "explore_p"): K(dict(explore_p=0.3), dict(explore_from=0)),
    ("Parser.train", "seed"): K(dict(seed=2)),
    ("Parser.train", "subsample"): K(dict(subsample=0.5)),
    ("Parser.train", "init"): K(dict(init="@other-parser")),
    ("Parser.train", "step_bits"): K(dict(step_bits=11)),
    ("Parser.train", "label_bits"): K(dict(label_bits=9)),
    ("Parser.train", "verbose"): K(dict(verbose=True), stderr=True),
    # Parser.parse: the parsed sentences
    ("Parser.parse", "tagger"): K(dict(tagger="@tagger")),
    ("Parser.parse", "beam"): K(dict(beam=8)),
    ("Parser.parse", "constraints"): K(dict(constraints=True)),
    ("Parser.parse", "constraint_kind"): K(
        dict(constraint_kind="direction"), dict(constraints=True)
    ),
    ("Parser.parse", "max_words"): K(dict(max_words=5), refused="longer than max_words=5"),
    # projectivize: the trees of every sentence
    ("projectivize", "method"): K(dict(method="lift")),
    ("projectivize", "single_root"): K(dict(single_root=True), mode=dict(input="multi")),
    ("projectivize", "sample"): K(dict(sample=3)),
    ("projectivize", "stream"): K(dict(stream=1), dict(sample=3)),
    ("projectivize", "prefer"): K(dict(prefer="none"), mode=dict(sentences=True)),
    ("projectivize", "grammar"): K(dict(grammar="@right.grammar")),
    ("projectivize", "objective"): K(dict(objective="valid-first"), dict(prefer="default"), mode=dict(sentences=True)),
    ("projectivize", "encode"): K(dict(encode="head"), mode=dict(sentences=True)),
    # count
    ("count", "with_best"): K(dict(with_best=True)),
    ("count", "single_root"): K(dict(single_root=True), mode=dict(input="multi")),
    # Oracle: the scores along a computation for each gold tree
    ("Oracle", "system"): K(dict(system="arc-hybrid")),
    ("Oracle", "strategy"): K(dict(strategy="none")),
    ("Oracle.scores", "arcs"): K(dict(arcs=[(2, 1)]), mode=EAGER, base_refused="needs the arcs built so far"),
    ("Oracle.optimal", "arcs"): K(dict(arcs=[(2, 1)]), mode=EAGER, base_refused="needs the arcs built so far"),
    ("Oracle.scores", "unshifted"): K(dict(unshifted=4), dict(arcs=[(2, 1), (2, 3)]), mode=NM,
                                      base_refused="has left the stack but has no head"),
    ("Oracle.optimal", "unshifted"): K(dict(unshifted=4), dict(arcs=[(2, 1), (2, 3)]), mode=NM,
                                       base_refused="has left the stack but has no head"),
    # Session: the scores along a computation (a callable value: of n)
    ("Session", "system"): K(dict(system="arc-hybrid")),
    ("Session", "strategy"): K(dict(strategy="none")),
    ("Session", "configuration"): K(dict(configuration=lambda n: tp.Configuration([0, 1], list(range(2, n + 1)), n))),
    # OracleBatch: scores, gold labels, trees and abandoned sentences
    ("OracleBatch", "system"): K(dict(system="arc-hybrid")),
    ("OracleBatch", "strategy"): K(dict(strategy="none")),
    ("OracleBatch", "labels"): K(dict(labels=True)),
    ("OracleBatch", "abandon"): K(dict(abandon=True), dict(system="attardi", max_gamma=4),
                                  base_refused="more than the limit of 4"),
    ("OracleBatch", "max_gamma"): K(dict(max_gamma=4), ATTARDI),
    ("OracleBatch", "max_pairs"): K(dict(max_pairs=1), ATTARDI),
}

# Pairs that change nothing by design (run all the same: the results must be
# equal).
EXCEPTIONS: dict[tuple, tuple[str, Case]] = {
    ("Parser.train", "algorithm"): (
        "every algorithm gives the same optimal steps, so the same model; it decides the time taken only",
        K(dict(algorithm="cubic"), dict(projectivize="none")),
    ),
    ("Parser.train", "threads"): (
        "the threads share out the dev scoring and the jackknife; the model and the scores are the same",
        K(dict(threads=3), dict(dev="@dev")),
    ),
    ("Parser.parse", "threads"): (
        "a sentence's parse does not depend on the thread that parses it", K(dict(threads=3))
    ),
    ("Oracle", "algorithm"): ("every algorithm gives the same exact scores; it decides the time taken only",
                              K(dict(algorithm="cubic"))),
    ("Session", "algorithm"): ("every algorithm gives the same exact scores; it decides the time taken only",
                               K(dict(algorithm="cubic"))),
    ("OracleBatch", "algorithm"): ("every algorithm gives the same exact scores; it decides the time taken only",
                                   K(dict(algorithm="cubic"))),
    # arcs describe the configuration; where the system's steps do not read
    # them they are checked (inconsistent ones are refused) but the scores
    # cannot depend on them: words off the stack keep their heads, and arcs
    # built before do not count.
    ("Oracle.scores", "arcs", "arc-standard"): (
        "arc-standard's steps do not depend on the heads of reduced words; the arcs are checked, not used",
        K(dict(arcs=[(0, 1)]), mode=dict(EAGER, system="arc-standard")),
    ),
    ("Oracle.optimal", "arcs", "arc-standard"): (
        "arc-standard's steps do not depend on the heads of reduced words; the arcs are checked, not used",
        K(dict(arcs=[(0, 1)]), mode=dict(EAGER, system="arc-standard")),
    ),
}

# Keywords checked again in another mode, where they are refused.
MODES: dict[tuple[str, str, str], Case] = {
    ("Oracle.scores", "unshifted", "arc-standard"): K(
        dict(unshifted=3), mode=dict(stack=[0, 2], buffer=[], gold=[2, 0, 2]), refused="only arc-eager-nm moves a word"
    ),
    ("OracleBatch", "max_gamma", "arc-standard"): K(dict(max_gamma=4), refused="applies to system attardi only"),
    ("OracleBatch", "max_pairs", "arc-standard"): K(dict(max_pairs=4), refused="applies to system attardi only"),
    ("Parser.train", "algorithm", "static"): K(dict(algorithm="cubic"), dict(oracle="static"),
                                               refused="algorithm applies to the dynamic oracle"),
    ("Parser.train", "max_gamma", "arc-hybrid"): K(dict(max_gamma=4), refused="applies to system=\"attardi\" only"),
    ("Parser.train", "update", "greedy"): K(dict(update="full"), refused="beam"),
    ("Parser.train", "root", "arc-standard"): K(dict(root="last"), dict(system="arc-standard"),
                                                refused="not arc-standard"),
    ("Parser.train", "jackknife", "no tagger"): K(dict(jackknife=2), refused="tagger"),
    ("Parser.train", "strategy", "static"): K(dict(strategy="none"), dict(oracle="static", system="arc-standard"),
                                              refused="strategy applies to the dynamic oracle"),
    ("Parser.train", "explore_p", "static"): K(dict(explore_p=0.5), dict(oracle="static"),
                                               refused="exploration is part of greedy training with the dynamic"),
    # arc-hybrid's and arc-eager's strategies are all one.
    ("Parser.train", "strategy", "arc-hybrid"): K(dict(strategy="none"), refused="its strategies are all one"),
    ("Parser.train", "strategy", "arc-eager"): K(dict(strategy="lbr"), dict(system="arc-eager"),
                                                 refused="its strategies are all one"),
    ("Parser.parse", "constraint_kind", "no constraints"): K(
        dict(constraint_kind="direction"), refused="says what constraints keeps"
    ),
}

# Keywords seen doing nothing where the rule asks for an effect or an error:
# (callable, keyword, mode) -> the case and what it gave. Strict xfail: when
# one acts or is refused, move it to MATRIX or MODES.
# Keywords once seen doing nothing, now refused (checked as MODES are).
MODES.update({
    ("projectivize", "stream", "without sample"): K(dict(stream=1), refused="without sample it does nothing"),
    ("projectivize", "prefer", "trees"): K(dict(prefer="none"), refused="pass Sentences"),
})
KNOWN_FAULTS: dict[tuple, tuple[Case, str]] = {
    (c, "strategy", system): (
        K(dict(strategy="none"), dict(system=system)),
        f"{c}(system={system!r}, strategy='none') is accepted and gives the answers of the default (lbr): "
        f"{system}'s strategies are all one, which train, the oracle command and the neural parser refuse",
    )
    for c in ("Oracle", "Session", "OracleBatch")
    for system in ("arc-hybrid", "arc-eager")
}

# ---------------------------------------------------------------- neural

TINY: dict[str, Any] = {}  # filled on first use (needs torch)


def tiny() -> dict[str, Any]:
    if not TINY:
        from tabula_parsing import neural

        TINY.update(epochs=1, dims=neural.Dimensions(word=8, upos=4, char=0, lstm=8, mlp=8, arc_mlp=8, dropout=0.0))
    return TINY


def neural_result(p) -> tuple:
    """A trained network as data: its weights, vocabularies and history
    (without timings); not its options, which are only recorded."""
    state = p.net.state_dict()
    weights = {k: v.detach().cpu().numpy().tobytes() for k, v in state.items()}
    reports = [(r.epoch, r.loss, r.sentences, r.steps, r.abandoned, r.dev_uas, r.dev_las) for r in p.history]
    return weights, p.vocab.state(), reports, p.epoch


@contextlib.contextmanager
def one_thread():
    """PyTorch on one CPU thread (many threads on a loaded machine are slow),
    set back after the call (`threads=` of `neural.train` sets it for the
    process)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_neural_train(w, mode, kw):
    from tabula_parsing import neural

    with one_thread():
        return neural_result(neural.train(resolve(mode.get("train", "@few"), w), **{**tiny(), **kw}))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def neural_model(w) -> Any:
    if "neural" not in w:
        from tabula_parsing import neural

        # Trained enough that its trees follow the UPOS it reads.
        w["neural"] = neural.train(w["train"], **{**tiny(), "epochs": 2, "seed": 3, "learning_rate": 0.03})
    return w["neural"]


def run_neural_parse(w, mode, kw):
    with one_thread():
        return neural_model(w).parse(w["dev-sentences"], **kw)


def run_neural_parse_file(w, mode, kw):
    """The text, and standard error as a terminal would show it."""
    saved, sys.stderr = sys.stderr, Terminal()
    try:
        with one_thread():
            text = neural_model(w).parse_file(w["dev"], **kw)
        return text, sys.stderr.getvalue()
    finally:
        sys.stderr = saved


RUNNERS.update({
    "neural.train": run_neural_train,
    "NeuralParser.parse": run_neural_parse,
    "NeuralParser.parse_file": run_neural_parse_file,
})

BIAFFINE = dict(parser="biaffine")
# Cases train on `few` (8 sentences) unless their mode says `train` (40).
ON_TRAIN = dict(train="@train")
TRANSITION_ONLY = ["system", "oracle", "algorithm", "strategy", "explore_from", "explore_p", "loss", "max_gamma",
                   "max_pairs"]
OTHER_VALUES = dict(system="arc-eager", oracle="static", algorithm="cubic", strategy="none", explore_from=0,
                    explore_p=0.5, loss="hinge", max_gamma=4, max_pairs=10, arc_loss="local", trees="projective")

NEURAL_MATRIX: dict[tuple[str, str], Case] = {
    ("neural.train", "output"): K(dict(output="model.pt")),
    ("neural.train", "dev"): K(dict(dev="@dev")),
    ("neural.train", "verbose"): K(dict(verbose=True), stderr=True),
    ("neural.train", "checkpoint"): K(dict(checkpoint="run.ckpt")),
    ("neural.train", "parser"): K(dict(parser="biaffine")),
    ("neural.train", "arc_loss"): K(dict(arc_loss="local"), BIAFFINE),
    ("neural.train", "trees"): K(dict(trees="projective"), BIAFFINE),
    ("neural.train", "system"): K(dict(system="arc-eager")),
    ("neural.train", "oracle"): K(dict(oracle="static")),
    ("neural.train", "strategy"): K(dict(strategy="none"), dict(system="arc-standard")),
    ("neural.train", "projectivize"): K(dict(projectivize="lift"), mode=ON_TRAIN),  # few: the same trees
    ("neural.train", "pseudo_projective"): K(dict(pseudo_projective="head")),
    ("neural.train", "feats"): K(dict(feats=True)),
    ("neural.train", "epochs"): K(dict(epochs=2)),
    ("neural.train", "batch_size"): K(dict(batch_size=2)),
    ("neural.train", "seed"): K(dict(seed=2)),
    ("neural.train", "explore_from"): K(dict(explore_from=0)),
    ("neural.train", "explore_p"): K(dict(explore_p=0.2), dict(explore_from=0)),
    ("neural.train", "loss"): K(dict(loss="hinge")),
    ("neural.train", "learning_rate"): K(dict(learning_rate=0.01)),
    ("neural.train", "average"): K(dict(average=0.5), dict(batch_size=2)),  # the average of one update is it
    ("neural.train", "word_dropout"): K(dict(word_dropout=0.0)),
    ("neural.train", "max_words"): K(dict(max_words=5)),
    ("neural.train", "embeddings"): K(dict(embeddings="@vectors.txt")),
    # Attardi's table: on non-projective trees, in some configurations only
    # (one sentence of `train` is abandoned, none of `few`).
    ("neural.train", "max_gamma"): K(dict(max_gamma=3), dict(system="attardi", projectivize="none"), ON_TRAIN),
    ("neural.train", "max_pairs"): K(dict(max_pairs=5), dict(system="attardi", projectivize="none"), ON_TRAIN),
    ("neural.train", "tagger"): K(dict(tagger="@t.tagger")),
    ("neural.train", "jackknife"): K(dict(jackknife=2), dict(tagger="@t.tagger")),
    ("neural.train", "device"): K(dict(device="cuda:99"), refused="cuda:99"),
    ("neural.train", "dims"): K(dict(dims="@dims")),
    ("NeuralParser.parse", "device"): K(dict(device="cuda:99"), refused="cuda:99"),
    ("NeuralParser.parse", "tagger"): K(dict(tagger="@tagger")),
    ("NeuralParser.parse_file", "output"): K(dict(output="parsed.conllu")),
    ("NeuralParser.parse_file", "device"): K(dict(device="cuda:99"), refused="cuda:99"),
    ("NeuralParser.parse_file", "progress"): K(dict(progress=True)),
    ("NeuralParser.parse_file", "tagger"): K(dict(tagger="@t.tagger")),
}

NEURAL_EXCEPTIONS: dict[tuple, tuple[str, Case]] = {
    ("neural.train", "algorithm"): (
        "every algorithm gives the same optimal steps, so the same network; it decides the time taken only",
        K(dict(algorithm="cubic")),
    ),
    ("neural.train", "threads"): (
        "PyTorch's CPU threads decide the speed; checked where the count is the one in use (1): other counts sum "
        "in another order, so the weights differ in their last bits, and not reproducibly",
        K(dict(threads=1)),
    ),
    ("NeuralParser.parse", "batch_size"): (
        "sentences are packed, so padding does not reach them: the same trees in any batch",
        K(dict(batch_size=1)),
    ),
    ("NeuralParser.parse", "threads"): ("PyTorch's CPU threads give the same trees", K(dict(threads=2))),
    ("NeuralParser.parse_file", "batch_size"): (
        "sentences are packed, so padding does not reach them: the same trees in any batch",
        K(dict(batch_size=1)),
    ),
    ("NeuralParser.parse_file", "threads"): ("PyTorch's CPU threads give the same trees", K(dict(threads=2))),
}

# The options of one neural parser given to the other are refused.
NEURAL_MODES: dict[tuple[str, str, str], Case] = {
    **{
        ("neural.train", k, "biaffine"): K(
            {k: OTHER_VALUES[k]}, BIAFFINE, refused="has no effect with --parser biaffine"
        )
        for k in TRANSITION_ONLY
    },
    **{("neural.train", k, "transition"): K({k: OTHER_VALUES[k]}, refused="has no effect with --parser transition")
       for k in ("arc_loss", "trees")},
    ("neural.train", "explore_from", "static"): K(dict(explore_from=0), dict(oracle="static"),
                                                  refused="--explore-from has no effect with --oracle static"),
    ("neural.train", "explore_p", "no epoch explores"): K(dict(explore_p=0.5), refused="no epoch explores"),
    ("neural.train", "jackknife", "no tagger"): K(dict(jackknife=2), refused="give --tagger"),
    ("neural.train", "pseudo_projective", "projectivize none"): K(
        dict(pseudo_projective="head"), dict(projectivize="none"), refused="needs --projectivize optimal or lift"
    ),
    ("neural.train", "max_gamma", "arc-hybrid"): K(dict(max_gamma=4), refused="--max-gamma is for --system attardi"),
    ("neural.train", "strategy", "arc-hybrid"): K(dict(strategy="none"), refused="its strategies are all one"),
}
# The static oracle follows the canonical computation: these were accepted
# and trained the same network; now refused, as Parser.train refuses them.
NEURAL_MODES.update({
    ("neural.train", "explore_p", "static"): K(
        dict(explore_p=0.5), dict(oracle="static", epochs=2), refused="--explore-p has no effect with --oracle static"
    ),
    ("neural.train", "strategy", "static"): K(
        dict(strategy="none"), dict(oracle="static", system="arc-standard"),
        refused="--strategy has no effect with --oracle static",
    ),
    ("neural.train", "algorithm", "static"): K(
        dict(algorithm="cubic"), dict(oracle="static"), refused="--algorithm has no effect with --oracle static"
    ),
})
NEURAL_KNOWN_FAULTS: dict[tuple, tuple[Case, str]] = {}

# ---------------------------------------------------------------- running


@dataclass
class Outcome:
    value: Any
    error: str | None
    files: dict[str, bytes]
    stderr: str
    warnings: list[str]


NUMBER = re.compile(r"\d+(\.\d+)?")


def outcome(name: str, case: Case, kw: dict, w: dict, directory: Path, capfd, monkeypatch) -> Outcome:
    """The call in an empty directory: what it returned or the ValueError,
    the files it wrote there, standard error (numbers masked), the warnings."""
    directory.mkdir()
    monkeypatch.chdir(directory)
    if name == "neural.train" and kw.get("dims") == "@dims":
        from tabula_parsing import neural

        kw = {**kw, "dims": neural.Dimensions(word=6, upos=4, char=0, lstm=6, mlp=8, arc_mlp=8, dropout=0.0)}
    kw = {k: resolve(v, w) for k, v in kw.items()}
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value, error = RUNNERS[name](w, case.mode, kw), None
        except ValueError as e:
            value, error = None, str(e)
    err = capfd.readouterr().err
    files = {f.name: f.read_bytes() for f in sorted(directory.iterdir())}
    return Outcome(value, error, files, NUMBER.sub("#", err) if case.stderr else "", [str(x.message) for x in seen])


def shown(name: str, case: Case) -> str:
    def call(kw):
        return f"{name}({', '.join(f'{k}={v!r}' for k, v in kw.items())})" + (f" in {case.mode}" if case.mode else "")

    return f"\n  without: {call(case.base)}\n  with:    {call({**case.base, **case.value})}"


def check_acts(name: str, case: Case, w, tmp_path, capfd, monkeypatch, any_refusal: bool = False) -> None:
    """The keyword acts: the two calls differ, or the call with it is
    refused as the case expects (`any_refusal`: any refusal, the fix of a
    known fault)."""
    base = outcome(name, case, case.base, w, tmp_path / "without", capfd, monkeypatch)
    other = outcome(name, case, {**case.base, **case.value}, w, tmp_path / "with", capfd, monkeypatch)
    text = shown(name, case)
    if case.base_refused:
        assert base.error and case.base_refused in base.error, f"the base should be refused{text}\n{base.error}"
    else:
        assert base.error is None, f"the base call was refused{text}\n{base.error}"
    if any_refusal and other.error is not None:
        return
    if case.refused:
        assert other.error is not None, f"expected a refusal{text}"
        assert case.refused in other.error, f"refused, but not for the expected reason{text}\n{other.error}"
        return
    assert other.error is None, f"the keyword was refused{text}\n{other.error}"
    if base == other:
        pytest.fail(f"the keyword changed nothing{text}", pytrace=False)


def check_same(name: str, reason: str, case: Case, w, tmp_path, capfd, monkeypatch) -> None:
    base = outcome(name, case, case.base, w, tmp_path / "without", capfd, monkeypatch)
    other = outcome(name, case, {**case.base, **case.value}, w, tmp_path / "with", capfd, monkeypatch)
    assert base.error is None and other.error is None, other.error or base.error
    assert base == other, f"listed as the same by design ({reason}), but it differs{shown(name, case)}"


def ids(keys) -> list[str]:
    return [f"{k[0]}:{k[1]}" + "".join(f"[{x}]" for x in k[2:]) for k in keys]


def faults(table: dict) -> list:
    return [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=table[k][1])) for k in table]


# ---------------------------------------------------------------- coverage


def uncovered(found: set[tuple[str, str]], neural: bool) -> tuple[list, list]:
    """The keywords without an entry, and the entries of no keyword."""
    if neural:
        tables = [NEURAL_MATRIX, NEURAL_EXCEPTIONS, NEURAL_MODES, NEURAL_KNOWN_FAULTS]
    else:
        tables = [MATRIX, EXCEPTIONS, MODES, KNOWN_FAULTS]
    covered = {k[:2] for t in tables for k in t}
    plain = {k[:2] for t in tables[:2] for k in t} | {k[:2] for k in tables[-1]}
    return sorted(found - plain), sorted(covered - found)


def test_every_keyword_has_an_entry() -> None:
    """Each keyword of the walked callables is in MATRIX, EXCEPTIONS or
    KNOWN_FAULTS; each entry names an existing keyword."""
    assert not set(MATRIX) & set(EXCEPTIONS)
    missing, stale = uncovered(existing(False), False)
    assert not missing, "keywords without an entry in MATRIX or EXCEPTIONS: " + ", ".join(ids(missing))
    assert not stale, "entries for keywords that no longer exist: " + ", ".join(ids(stale))


def test_every_neural_keyword_has_an_entry() -> None:
    pytest.importorskip("torch")
    assert not set(NEURAL_MATRIX) & set(NEURAL_EXCEPTIONS)
    missing, stale = uncovered(existing(True), True)
    assert not missing, "keywords without an entry in NEURAL_MATRIX or NEURAL_EXCEPTIONS: " + ", ".join(ids(missing))
    assert not stale, "entries for keywords that no longer exist: " + ", ".join(ids(stale))


def test_a_new_or_removed_keyword_is_named() -> None:
    found = existing(False)
    assert uncovered(found | {("count", "new_keyword")}, False) == ([("count", "new_keyword")], [])
    assert uncovered(found - {("count", "with_best")}, False) == ([], [("count", "with_best")])


def test_the_walk_sees_the_rust_signatures() -> None:
    assert {"system", "beam", "threads", "verbose", "dev"} <= keywords(tp.Parser.train)
    assert keywords(tp.Oracle.scores) == {"arcs", "unshifted"}
    assert "train" not in keywords(tp.Parser.train) and "self" not in keywords(tp.Parser.parse)


def test_a_keyword_without_effect_fails(workspace, tmp_path, capfd, monkeypatch) -> None:
    with pytest.raises(pytest.fail.Exception, match="changed nothing"):
        check_acts("count", K(dict(with_best=False)), workspace, tmp_path, capfd, monkeypatch)


def test_pair_count() -> None:
    """How many checks this file runs (printed with `pytest -s`)."""
    tables = dict(MATRIX=MATRIX, EXCEPTIONS=EXCEPTIONS, MODES=MODES, KNOWN_FAULTS=KNOWN_FAULTS,
                  NEURAL_MATRIX=NEURAL_MATRIX, NEURAL_EXCEPTIONS=NEURAL_EXCEPTIONS, NEURAL_MODES=NEURAL_MODES,
                  NEURAL_KNOWN_FAULTS=NEURAL_KNOWN_FAULTS)
    per: dict[str, int] = {}
    for t in tables.values():
        for k in t:
            per[k[0]] = per.get(k[0], 0) + 1
    print(f"\nkeyword checks: {sum(len(t) for t in tables.values())} ("
          + ", ".join(f"{len(t)} {n}" for n, t in tables.items()) + ")")
    print("per callable: " + ", ".join(f"{c} {n}" for c, n in sorted(per.items())))
    assert len(MATRIX) + len(EXCEPTIONS) >= len(existing(False)) - len(KNOWN_FAULTS)


# ---------------------------------------------------------------- checks


@pytest.mark.parametrize("pair", list(MATRIX), ids=ids(MATRIX))
def test_keyword_acts(pair, workspace, tmp_path, capfd, monkeypatch) -> None:
    check_acts(pair[0], MATRIX[pair], workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("pair", list(EXCEPTIONS), ids=ids(EXCEPTIONS))
def test_exception_gives_the_same_result(pair, workspace, tmp_path, capfd, monkeypatch) -> None:
    reason, case = EXCEPTIONS[pair]
    check_same(pair[0], reason, case, workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("mode", list(MODES), ids=ids(MODES))
def test_keyword_refused_in_another_mode(mode, workspace, tmp_path, capfd, monkeypatch) -> None:
    check_acts(mode[0], MODES[mode], workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("fault", faults(KNOWN_FAULTS), ids=ids(KNOWN_FAULTS))
def test_known_fault(fault, workspace, tmp_path, capfd, monkeypatch) -> None:
    check_acts(fault[0], KNOWN_FAULTS[fault][0], workspace, tmp_path, capfd, monkeypatch, any_refusal=True)


@pytest.mark.parametrize("pair", list(NEURAL_MATRIX), ids=ids(NEURAL_MATRIX))
def test_neural_keyword_acts(pair, workspace, tmp_path, capfd, monkeypatch) -> None:
    pytest.importorskip("torch")
    check_acts(pair[0], NEURAL_MATRIX[pair], workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("pair", list(NEURAL_EXCEPTIONS), ids=ids(NEURAL_EXCEPTIONS))
def test_neural_exception_gives_the_same_result(pair, workspace, tmp_path, capfd, monkeypatch) -> None:
    pytest.importorskip("torch")
    reason, case = NEURAL_EXCEPTIONS[pair]
    check_same(pair[0], reason, case, workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("mode", list(NEURAL_MODES), ids=ids(NEURAL_MODES))
def test_neural_keyword_refused_in_another_mode(mode, workspace, tmp_path, capfd, monkeypatch) -> None:
    pytest.importorskip("torch")
    check_acts(mode[0], NEURAL_MODES[mode], workspace, tmp_path, capfd, monkeypatch)


@pytest.mark.parametrize("fault", faults(NEURAL_KNOWN_FAULTS), ids=ids(NEURAL_KNOWN_FAULTS))
def test_neural_known_fault(fault, workspace, tmp_path, capfd, monkeypatch) -> None:
    pytest.importorskip("torch")
    check_acts(fault[0], NEURAL_KNOWN_FAULTS[fault][0], workspace, tmp_path, capfd, monkeypatch, any_refusal=True)
