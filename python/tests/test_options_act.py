"""Every command-line option acts, or is refused.

The project's rule: an option that does nothing in the mode used is an error.
This file checks it for every option clap knows (`tabula options`, the hidden
command that prints each subcommand's options as JSON), plus the global
`--max-memory` on every command (not required of a new command).

For each (command, option) pair that is not positional, `MATRIX` holds a
`Case`: a command line without the option (`base`) and the arguments that give
it a value other than its default (`extra`, appended; or `changed`, a whole
other command line, for options that every run needs, such as `--model`).
Both are run, each in an empty directory, on small inputs generated here, and
the option acts when the two results differ: exit status, standard output, the
bytes of every file written in the directory (`-o`, `--tsv`, `--plot`,
`--draw` ...), and standard error where the case says so (options that only
report there; timings are masked). A run with the option may also be refused,
when refusing is what the option is for (`refused`: a text its message must
hold); and some options lift a refusal of the base (`base_refused`).

`EXCEPTIONS` lists the few pairs whose output is the same by design, each with
its reason; they are run too and must give identical results. `KNOWN_FAULTS`
holds options seen doing nothing in some mode (the key names the mode), where
the rule asks for an effect or an error: those cases are expected to fail
(strict xfail) until the command makes the option act or refuses it.
`test_pair_count` prints how many cases run (`pytest -s`).

Adding an option to a command: `test_every_option_has_an_entry` fails and names
the missing pair. Add a `Case` to `MATRIX` under `(command, name)` (the name as
`tabula options` prints it, `_` for `-`): pick inputs from `workspace` (or add
one there) where the option changes what the command writes. Only when no input
can show a difference, and a user would agree that none should, add the pair to
`EXCEPTIONS` with the reason.

The binary is `target/release/tabula` of the repository, or the file named by
the environment variable `TABULA`.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import ROOT, TABULA as BINARY, run

# Options that belong to `tabula` itself rather than to one subcommand (they
# are not in `tabula options`, which lists subcommands' own options).
GLOBAL_OPTIONS = {"max_memory"}


@dataclass(frozen=True)
class Case:
    """How to make one option act. Arguments starting with `@` name a file of
    the generated workspace; any other file name is written in the run's own
    (empty) directory and compared."""

    base: tuple[str, ...]
    extra: tuple[str, ...] = ()
    changed: tuple[str, ...] | None = None
    stdin: str | None = None
    stderr: bool = False
    refused: str | None = None
    base_refused: str | None = None
    normalize: Callable[[str], str] | None = None

    def variant(self) -> tuple[str, ...]:
        return self.changed if self.changed is not None else self.base + self.extra


def C(base: str, extra: str = "", **kw) -> Case:
    """A case from command lines written as in a shell (after `tabula`)."""
    if "changed" in kw:
        kw["changed"] = tuple(shlex.split(kw["changed"]))
    return Case(tuple(shlex.split(base)), tuple(shlex.split(extra)), **kw)


# Keys of `oracle --walk --json` that vary from run to run (`mean_us`) or
# only repeat an option's value: an option must change the walk itself.
WALK_KEYS_IGNORED = {"mean_us", "system", "algorithm", "strategy", "stray", "seed", "projectivized", "session"}


def walk_output(text: str) -> str:
    """`oracle --walk` output without its timings and without the echo of its
    options: JSON without `WALK_KEYS_IGNORED`, tables with their time column
    masked, no `# slow` lines."""

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in WALK_KEYS_IGNORED}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            lines.append(json.dumps(strip(json.loads(line)), sort_keys=True))
        elif not line.startswith("# slow"):
            lines.append(re.sub(r"\d+\.\d+", "#", line))
    return "\n".join(lines)


TIMING = re.compile(r"\d+(\.\d+)?\s*(s|ms|µs|us|ns|[a-z]+/s)\b")


def mask_timings(text: str) -> str:
    return TIMING.sub("#", text)


# Arguments shared by many cases.
TRAIN = "train @train.conllu -o m.model --epochs 1 --step-bits 10 --label-bits 8"
TAGGER = "train-tagger @train.conllu -o t.tagger --epochs 1 --bits 12"
PARSE = "parse --model @arc-hybrid.model @dev.conllu"
TAG = "tag --tagger @t.tagger @dev.conllu"
WALK = "oracle --walk @train.conllu --json"
GRAMMAR_PARSE = "grammar parse @projective.grammar --input 'a a a a'"

MATRIX: dict[tuple[str, str], Case] = {
    # count
    ("count", "tsv"): C("count @train.conllu", "--tsv counts.tsv"),
    ("count", "plot"): C("count @train.conllu", "--plot counts.svg"),
    ("count", "grammar"): C("count @train.conllu", "--grammar @right.grammar"),
    ("count", "single_root"): C("count @multi.conllu", "--single-root"),
    ("count", "max_words"): C("count @train.conllu", "--max-words 5", stderr=True),
    ("count", "max_memory"): C("count @train.conllu", "--max-memory 1K", refused="more than the limit"),
    ("count", "keep_going"): C("count @bad.conllu", "--keep-going", base_refused="no root"),
    # deprojectivize
    ("deprojectivize", "output"): C("deprojectivize @encoded.conllu", "-o out.conllu"),
    ("deprojectivize", "stats"): C("deprojectivize @encoded.conllu", "--stats", stderr=True),
    ("deprojectivize", "max_memory"): C("deprojectivize @encoded.conllu", "--max-memory 1G", refused="would do nothing"),
    # demo, grammar check: --max-memory only
    ("demo", "max_memory"): C("demo", "--max-memory 1K", refused="more than the limit"),
    ("grammar check", "max_memory"): C("grammar check @right.grammar", "--max-memory 1G", refused="would do nothing"),
    # draw
    ("draw", "output"): C("draw @gold.conllu --text", "-o trees.txt"),
    ("draw", "text"): C("draw @gold.conllu", "--text", base_refused="nothing to write to"),
    ("draw", "sentences"): C("draw @gold.conllu --text", "--sentences s2-1,3"),
    ("draw", "differences"): C("draw @gold.conllu @pred-a.conllu --text", "--differences"),
    ("draw", "nonprojective"): C("draw @mixed.conllu --text", "--nonprojective"),
    ("draw", "max_words"): C("draw @gold.conllu --text", "--max-words 5"),
    ("draw", "max_memory"): C("draw @gold.conllu --text", "--max-memory 1G", refused="would do nothing"),
    # ensemble
    ("ensemble", "weights"): C("ensemble @pred-a.conllu @pred-b.conllu @pred-c.conllu", "--weights 1,1,5"),
    ("ensemble", "max_words"): C(
        "ensemble @pred-a.conllu @pred-b.conllu @pred-c.conllu", "--max-words 5", refused="longer than"
    ),
    ("ensemble", "projective"): C("ensemble @pred-a.conllu @pred-b.conllu @pred-c.conllu", "--projective"),
    ("ensemble", "output"): C("ensemble @pred-a.conllu @pred-b.conllu", "-o vote.conllu"),
    ("ensemble", "max_memory"): C("ensemble @pred-a.conllu @pred-b.conllu", "--max-memory 1K", refused="more than the limit"),
    # eval
    ("eval", "json"): C("eval @gold.conllu @pred-a.conllu", "--json"),
    ("eval", "nonprojective"): C("eval @gold.conllu @pred-a.conllu", "--nonprojective"),
    ("eval", "breakdown"): C("eval @gold.conllu @pred-a.conllu", "--breakdown"),
    ("eval", "train"): C("eval @gold.conllu @pred-a.conllu --breakdown", "--train @train.conllu"),
    ("eval", "plot"): C("eval @gold.conllu @pred-a.conllu", "--plot eval.svg"),
    ("eval", "max_memory"): C("eval @gold.conllu @pred-a.conllu", "--max-memory 1G", refused="would do nothing"),
    # grammar parse
    ("grammar parse", "input"): C(GRAMMAR_PARSE, changed="grammar parse @projective.grammar --input 'a a a a a'"),
    ("grammar parse", "semiring"): C(GRAMMAR_PARSE, "--semiring max"),
    ("grammar parse", "weights"): C(GRAMMAR_PARSE + " --semiring best", "--weights @weights.txt"),
    ("grammar parse", "k"): C(GRAMMAR_PARSE + " --semiring kbest", "--k 3"),
    ("grammar parse", "count"): C(GRAMMAR_PARSE + " --semiring sample", "--count 3"),
    ("grammar parse", "seed"): C(GRAMMAR_PARSE + " --semiring sample --count 8", "--seed 12345"),
    ("grammar parse", "max_memory"): C(GRAMMAR_PARSE, "--max-memory 1K", refused="more than the limit"),
    # oracle: configurations on standard input
    ("oracle", "system"): C("oracle", "--system arc-hybrid", stdin="configs.jsonl"),
    ("oracle", "strategy"): C("oracle", "--strategy none", stdin="configs.jsonl"),
    ("oracle", "grammar"): C("oracle --algorithm cubic", "--grammar @shift-reduce-changed.grammar", stdin="configs.jsonl"),
    ("oracle", "strict_grammar"): C(
        "oracle --strategy strict-lbr", "--strict-grammar @shift-reduce.grammar", stdin="configs.jsonl"
    ),
    ("oracle", "max_memory"): C("oracle", "--max-memory 1K", stdin="configs.jsonl", refused="more than the limit"),
    ("oracle", "max_gamma"): C("oracle --system attardi", "--max-gamma 3", stdin="configs.jsonl", refused="more than the limit of 3"),
    # oracle --walk: timings removed before comparing
    ("oracle", "walk"): C("oracle", changed=WALK, stdin="configs.jsonl", normalize=walk_output),
    ("oracle", "algorithm"): C(WALK, "--algorithm cubic", normalize=walk_output),
    ("oracle", "stray"): C(WALK, "--stray 0.3", normalize=walk_output),
    ("oracle", "seed"): C(WALK + " --stray 0.3", "--seed 7", normalize=walk_output),
    ("oracle", "projectivize"): C(WALK, "--projectivize", normalize=walk_output),
    ("oracle", "check_agreement"): C(WALK, "--check-agreement", normalize=walk_output),
    ("oracle", "session"): C(WALK, "--session", normalize=walk_output),
    ("oracle", "max_words"): C(WALK, "--max-words 5", normalize=walk_output),
    ("oracle", "json"): C("oracle --walk @train.conllu", "--json", normalize=walk_output),
    ("oracle", "plot"): C(WALK, "--plot walk.svg", normalize=walk_output),
    # parse
    ("parse", "model"): C(PARSE, changed="parse --model @arc-eager.model @dev.conllu"),
    ("parse", "output"): C(PARSE, "-o parsed.conllu"),
    ("parse", "tagger"): C(PARSE, "--tagger @t.tagger"),
    ("parse", "beam"): C(PARSE, "--beam 8"),
    ("parse", "constraints"): C("parse --model @arc-hybrid.model @partial.conllu", "--constraints"),
    ("parse", "constraint_kind"): C(
        "parse --model @arc-hybrid.model @partial.conllu --constraints", "--constraint-kind direction"
    ),
    ("parse", "max_words"): C(PARSE, "--max-words 5", refused="longer than"),
    ("parse", "stats"): C(PARSE, "--stats", stderr=True),
    ("parse", "max_memory"): C(PARSE, "--max-memory 1K", refused="more than the limit"),
    # projectivize
    ("projectivize", "output"): C("projectivize @train.conllu", "-o proj.conllu"),
    ("projectivize", "method"): C("projectivize @train.conllu", "--method lift"),
    ("projectivize", "stats"): C("projectivize @train.conllu", "--stats", stderr=True),
    ("projectivize", "grammar"): C("projectivize @train.conllu", "--grammar @right.grammar"),
    ("projectivize", "single_root"): C("projectivize @multi.conllu", "--single-root"),
    ("projectivize", "keep_going"): C("projectivize @bad.conllu", "--keep-going", base_refused="no root"),
    ("projectivize", "sample"): C("projectivize @train.conllu", "--sample 3"),
    ("projectivize", "prefer"): C("projectivize @train.conllu", "--prefer none"),
    ("projectivize", "objective"): C("projectivize @train.conllu --prefer default", "--objective valid-first"),
    ("projectivize", "encode"): C("projectivize @train.conllu", "--encode head"),
    ("projectivize", "max_words"): C("projectivize @train.conllu --allow-long", "--max-words 5"),
    ("projectivize", "allow_long"): C("projectivize @train.conllu --max-words 5", "--allow-long", base_refused="max-words"),
    ("projectivize", "draw"): C("projectivize @train.conllu", "--draw moved.html"),
    ("projectivize", "max_memory"): C("projectivize @train.conllu", "--max-memory 1K", refused="more than the limit"),
    # tag
    ("tag", "tagger"): C(TAG, changed="tag --tagger @t2.tagger @dev.conllu"),
    ("tag", "output"): C(TAG, "-o tagged.conllu"),
    ("tag", "decode"): C(TAG, "--decode viterbi"),
    ("tag", "eval"): C(TAG, "--eval", stderr=True),
    ("tag", "stats"): C(TAG, "--stats", stderr=True),
    ("tag", "max_memory"): C(TAG, "--max-memory 1K", refused="more than the limit"),
    # train (the model file is the output)
    ("train", "output"): C(TRAIN, changed=TRAIN.replace("m.model", "other.model")),
    ("train", "dev"): C(TRAIN, "--dev @dev.conllu", stderr=True, normalize=mask_timings),
    ("train", "system"): C(TRAIN, "--system arc-eager"),
    ("train", "oracle"): C(TRAIN, "--oracle static"),
    ("train", "strategy"): C(TRAIN + " --system arc-standard", "--strategy none"),
    ("train", "max_gamma"): C(TRAIN + " --system attardi", "--max-gamma 4"),
    ("train", "max_pairs"): C(TRAIN + " --system attardi", "--max-pairs 10"),
    ("train", "max_words"): C(TRAIN, "--max-words 5"),
    ("train", "projectivize"): C(TRAIN, "--projectivize lift"),
    ("train", "skip_nonprojective"): C(TRAIN, "--skip-nonprojective"),
    ("train", "pseudo_projective"): C(TRAIN, "--pseudo-projective head"),
    ("train", "tagger"): C(TRAIN, "--tagger @t.tagger"),
    ("train", "jackknife"): C(TRAIN + " --tagger @t.tagger", "--jackknife 2"),
    ("train", "feats"): C(TRAIN, "--feats"),
    ("train", "lemma"): C(TRAIN, "--lemma"),
    ("train", "xpos"): C(TRAIN, "--xpos"),
    ("train", "epochs"): C(TRAIN, changed=TRAIN.replace("--epochs 1", "--epochs 2")),
    ("train", "beam"): C(TRAIN, "--beam 2"),
    ("train", "root"): C(TRAIN, "--root last"),
    ("train", "update"): C(TRAIN + " --beam 2", "--update full"),
    ("train", "restart"): C(TRAIN + " --beam 2", "--restart"),
    ("train", "beam_labels"): C(TRAIN + " --beam 2", "--beam-labels 1"),
    ("train", "explore_from"): C(TRAIN, "--explore-from 0"),
    ("train", "explore_p"): C(TRAIN + " --explore-from 0", "--explore-p 0.3"),
    ("train", "seed"): C(TRAIN, "--seed 2"),
    ("train", "subsample"): C(TRAIN, "--subsample 0.5"),
    ("train", "init"): C(TRAIN, "--init @arc-hybrid.model"),
    ("train", "step_bits"): C(TRAIN, changed=TRAIN.replace("--step-bits 10", "--step-bits 11")),
    ("train", "label_bits"): C(TRAIN, changed=TRAIN.replace("--label-bits 8", "--label-bits 9")),
    ("train", "max_memory"): C(TRAIN, "--max-memory 1K", refused="more than the limit"),
    # train-tagger (the tagger file is the output)
    ("train-tagger", "output"): C(TAGGER, changed=TAGGER.replace("t.tagger", "other.tagger")),
    ("train-tagger", "dev"): C(TAGGER, "--dev @dev.conllu", stderr=True, normalize=mask_timings),
    ("train-tagger", "decode"): C(TAGGER, "--decode viterbi"),
    ("train-tagger", "feats"): C(TAGGER, "--feats"),
    ("train-tagger", "epochs"): C(TAGGER, changed=TAGGER.replace("--epochs 1", "--epochs 2")),
    ("train-tagger", "seed"): C(TAGGER, "--seed 2"),
    ("train-tagger", "passes"): C(TAGGER, "--passes 2"),
    ("train-tagger", "direction"): C(TAGGER, "--direction right-to-left"),
    ("train-tagger", "ensemble"): C(TAGGER, "--ensemble 2"),
    ("train-tagger", "bits"): C(TAGGER, changed=TAGGER.replace("--bits 12", "--bits 13")),
    ("train-tagger", "dictionary_min_count"): C(TAGGER, "--dictionary-min-count 1"),
    ("train-tagger", "max_memory"): C(TAGGER, "--max-memory 1K", refused="more than the limit"),
    ("train-tagger", "dictionary_min_share"): C(TAGGER + " --dictionary-min-count 1", "--dictionary-min-share 0.6"),
}

# Pairs whose output is the same by design. They are run all the same, and
# must give identical results: the reason is checked, not only stated.
EXCEPTIONS: dict[tuple[str, str], tuple[str, Case]] = {
    ("parse", "threads"): ("the parse of a sentence does not depend on the thread that parses it", C(PARSE, "--threads 3")),
    ("projectivize", "threads"): (
        "each sentence's tree does not depend on the thread; --help promises identical output",
        C("projectivize @train.conllu", "--threads 3"),
    ),
    ("train", "algorithm"): (
        "every algorithm gives the same exact optimal steps, so the same model: it decides the training time only",
        C(TRAIN + " --projectivize none", "--algorithm cubic"),
    ),
    ("tag", "threads"): ("the tags of a sentence do not depend on the thread that tags it", C(TAG, "--threads 3")),
    ("train-tagger", "threads"): (
        "the threads only share out the dev scoring; the scores and the tagger are the same",
        C(TAGGER + " --dev @dev.conllu", "--threads 3", stderr=True, normalize=mask_timings),
    ),
}

# Options checked in a second mode where they once did nothing, and now are
# refused: (command, name, mode) -> the case (with the refusal's text). A
# fault found later goes here first as a case without `refused`, marked
# `xfail(strict=True)` in KNOWN_FAULTS, until the command makes the option
# act or refuses it.
MODES: dict[tuple[str, str, str], Case] = {
    # arc-hybrid's and arc-eager's strategies are all one: the model and the
    # answers were the same with none, lbr or strict-lbr.
    ("train", "strategy", "arc-hybrid"): C(
        TRAIN + " --system arc-hybrid", "--strategy none", refused="its strategies are all one"
    ),
    ("train", "strategy", "arc-eager"): C(
        TRAIN + " --system arc-eager", "--strategy lbr", refused="its strategies are all one"
    ),
    ("oracle", "strategy", "arc-hybrid"): C(
        "oracle --system arc-hybrid", "--strategy none", stdin="configs.jsonl", refused="no line was one"
    ),
    ("oracle", "strategy", "arc-hybrid walk"): C(
        WALK + " --system arc-hybrid", "--strategy strict-lbr", refused="its strategies are all one"
    ),
}

KNOWN_FAULTS: dict[tuple[str, str, str], tuple[Case, str]] = {}


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


# ---------------------------------------------------------------- inputs

LEXICON = [  # FORM, LEMMA, UPOS, XPOS, FEATS
    ("the", "the", "DET", "DT", "Definite=Def|PronType=Art"),
    ("a", "a", "DET", "DT", "Definite=Ind|PronType=Art"),
    ("dog", "dog", "NOUN", "NN", "Number=Sing"),
    ("dogs", "dog", "NOUN", "NNS", "Number=Plur"),
    ("cat", "cat", "NOUN", "NN", "Number=Sing"),
    ("cats", "cat", "NOUN", "NNS", "Number=Plur"),
    ("saw", "see", "VERB", "VBD", "Tense=Past|VerbForm=Fin"),
    ("saw", "saw", "NOUN", "NN", "Number=Sing"),  # ambiguous words: a tagger has choices to make
    ("that", "that", "PRON", "WDT", "PronType=Rel"),
    ("that", "that", "DET", "DT", "PronType=Dem"),
    ("run", "run", "VERB", "VB", "VerbForm=Inf"),
    ("sees", "see", "VERB", "VBZ", "Number=Sing|Person=3|Tense=Pres"),
    ("runs", "run", "VERB", "VBZ", "Number=Sing|Person=3|Tense=Pres"),
    ("run", "run", "NOUN", "NN", "Number=Sing"),
    ("in", "in", "ADP", "IN", "_"),
    ("on", "on", "ADP", "IN", "_"),
    ("and", "and", "CCONJ", "CC", "_"),
    ("big", "big", "ADJ", "JJ", "Degree=Pos"),
    ("old", "old", "ADJ", "JJ", "Degree=Pos"),
    ("Kim", "Kim", "PROPN", "NNP", "Number=Sing"),
    ("yesterday", "yesterday", "ADV", "RB", "_"),
    ("that", "that", "SCONJ", "IN", "_"),
    ("it", "it", "PRON", "PRP", "Case=Nom|Number=Sing|Person=3"),
    (".", ".", "PUNCT", ".", "_"),
]
RELATION = {
    "DET": "det", "NOUN": "obj", "VERB": "ccomp", "ADP": "case", "CCONJ": "cc", "ADJ": "amod",
    "PROPN": "nsubj", "ADV": "advmod", "SCONJ": "mark", "PRON": "nsubj", "PUNCT": "punct",
}


def random_heads(n: int, rng: random.Random, roots: int = 1) -> list[int]:
    """Heads of words 1..n of a random tree with `roots` children of the root
    (mostly non-projective)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [0] * n
    for i, d in enumerate(order):
        heads[d - 1] = 0 if i < roots else rng.choice(order[:i])
    return heads


def conllu(sentences: list[tuple[str, list[tuple], list]]) -> str:
    """CoNLL-U text of (sent_id, words, heads); a head `None` is written `_`
    (with DEPREL `_`)."""
    out = []
    for sid, words, heads in sentences:
        out.append(f"# sent_id = {sid}\n# text = {' '.join(w[0] for w in words)}\n")
        for i, ((form, lemma, upos, xpos, feats), h) in enumerate(zip(words, heads), 1):
            rel = "_" if h is None else "root" if h == 0 else RELATION[upos]
            out.append(f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{'_' if h is None else h}\t{rel}\t_\t_\n")
        out.append("\n")
    return "".join(out)


def treebank(name: str, count: int, seed: int, roots: int = 1) -> list[tuple[str, list[tuple], list]]:
    rng = random.Random(seed)
    out = []
    for k in range(count):
        n = rng.randint(4, 10)
        words = [rng.choice(LEXICON) for _ in range(n)]
        out.append((f"{name}-{k + 1}", words, random_heads(n, rng, rng.randint(1, roots))))
    return out


def configurations(count: int, seed: int) -> str:
    """JSON lines of random arc-standard configurations (increasing stack,
    buffer a suffix of the words) with random, mostly non-projective, gold trees."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        n = rng.randint(5, 9)
        start = rng.randint(2, n)
        stack = [0] + sorted(rng.sample(range(1, start), rng.randint(1, start - 1)))
        line = {"stack": stack, "buffer": list(range(start, n + 1)), "gold": random_heads(n, rng)}
        lines.append(json.dumps(line) + "\n")
    return "".join(lines)


def tabula_in(directory: Path, *args: str) -> None:
    p = subprocess.run([str(BINARY), *args], cwd=directory, capture_output=True, text=True)
    assert p.returncode == 0, f"tabula {' '.join(args)}: {p.stderr}"


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated inputs every case names with `@`."""
    w = tmp_path_factory.mktemp("options-inputs")
    train = treebank("s1", 40, 1)
    gold = treebank("s2", 12, 2)
    (w / "train.conllu").write_text(conllu(train))
    (w / "dev.conllu").write_text(conllu(gold))
    (w / "gold.conllu").write_text(conllu(gold))
    (w / "multi.conllu").write_text(conllu(treebank("s3", 12, 3, roots=3)))
    # Projective and non-projective trees together.
    (w / "mixed.conllu").write_text((ROOT / "data" / "sample.conllu").read_text() + conllu(gold[:4]))
    # The same words with other trees: what several parsers might say.
    for k, name in enumerate(["a", "b", "c"]):
        rng = random.Random(10 + k)
        other = [(sid, words, [h if rng.random() < 0.5 else None for h in heads]) for sid, words, heads in gold]
        other = [(sid, words, random_heads(len(words), rng) if None in hs else list(hs)) for sid, words, hs in other]
        (w / f"pred-{name}.conllu").write_text(conllu(other))
    # Half the heads left to the parser.
    rng = random.Random(20)
    (w / "partial.conllu").write_text(
        conllu([(sid, words, [h if rng.random() < 0.5 else None for h in heads]) for sid, words, heads in gold])
    )
    (w / "bad.conllu").write_text(
        conllu(train[:5]) + "# sent_id = cycle\n1\tx\tx\tNOUN\t_\t_\t2\tdep\t_\t_\n2\ty\ty\tNOUN\t_\t_\t1\tdep\t_\t_\n\n"
    )
    (w / "configs.jsonl").write_text(configurations(30, 4))
    for grammar in ["projective", "shift-reduce"]:
        shutil.copy(ROOT / "grammars" / f"{grammar}.grammar", w)
    # Only rightward arcs: a grammar other than the built-in Table 3 one.
    (w / "right.grammar").write_text("start S\n(S, S) -> a\nS -> (S, S)\n(_, S) -> (_, S) S\n")
    # Arc-standard's grammar without "a top-of-stack word takes another right child".
    text = (ROOT / "grammars" / "shift-reduce.grammar").read_text()
    (w / "shift-reduce-changed.grammar").write_text(
        "\n".join(x for x in text.splitlines() if not x.startswith("(_, S) -> (_, S) S"))
    )
    (w / "weights.txt").write_text("\n".join(" ".join(str((3 * h + 5 * d) % 7) for d in range(4)) for h in range(4)))
    tabula_in(w, "projectivize", "train.conllu", "--encode", "head+path", "-o", "encoded.conllu")
    small = ["--epochs", "1", "--step-bits", "10", "--label-bits", "8"]
    tabula_in(w, "train", "train.conllu", "-o", "arc-hybrid.model", *small)
    tabula_in(w, "train", "train.conllu", "-o", "arc-eager.model", "--system", "arc-eager", *small)
    tabula_in(w, "train-tagger", "train.conllu", "-o", "t.tagger", "--epochs", "1", "--bits", "12")
    tabula_in(w, "train-tagger", "train.conllu", "-o", "t2.tagger", "--epochs", "2", "--bits", "12", "--seed", "5")
    return w


# ---------------------------------------------------------------- running


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    files: dict[str, bytes]


def execute(case: Case, args: tuple[str, ...], workspace: Path, directory: Path) -> Result:
    """Runs `tabula ARGS` in an empty `directory`; the files it leaves there
    are its output files."""
    directory.mkdir()
    argv = [str(workspace / a[1:]) if a.startswith("@") else a for a in args]
    stdin = (workspace / case.stdin).read_text() if case.stdin else None
    p = subprocess.run([str(BINARY), *argv], cwd=directory, input=stdin, capture_output=True, text=True, timeout=60)
    files = {f.name: f.read_bytes() for f in sorted(directory.iterdir())}
    return Result(p.returncode, p.stdout, p.stderr, files)


def compared(case: Case, r: Result) -> tuple:
    """What must differ: the exit status, standard output, the files (their
    names and bytes), standard error where the case says so."""
    norm = case.normalize or (lambda s: s)
    return (r.returncode, norm(r.stdout), r.files, mask_timings(norm(r.stderr)) if case.stderr else None)


def command_line(args: tuple[str, ...], case: Case) -> str:
    text = "tabula " + shlex.join(args)
    return text + (f" < {case.stdin}" if case.stdin else "")


def check_acts(case: Case, workspace: Path, tmp_path: Path, any_refusal: bool = False) -> None:
    """The option acts: the two runs differ, or the run with it is refused as
    the case expects (`any_refusal`: any refusal, the fix of a known fault)."""
    base = execute(case, case.base, workspace, tmp_path / "without")
    other = execute(case, case.variant(), workspace, tmp_path / "with")
    shown = f"\n  without: {command_line(case.base, case)}\n  with:    {command_line(case.variant(), case)}"
    if case.base_refused:
        assert base.returncode != 0 and case.base_refused in base.stderr, f"the base should be refused{shown}\n{base.stderr}"
    else:
        assert base.returncode == 0, f"the base command failed{shown}\n{base.stderr}"
    if any_refusal and other.returncode != 0:
        return
    if case.refused:
        assert other.returncode != 0, f"expected a refusal{shown}"
        assert case.refused in other.stderr, f"refused, but not for the expected reason{shown}\n{other.stderr}"
        return
    assert other.returncode == 0, f"the option was refused{shown}\n{other.stderr}"
    if compared(case, base) == compared(case, other):
        pytest.fail(f"the option changed nothing{shown}", pytrace=False)


def ids(keys) -> list[str]:
    return [f"{key[0]}:{flag(key[1])}" + "".join(f"[{x}]" for x in key[2:]) for key in keys]


# ---------------------------------------------------------------- tests


def existing_options() -> set[tuple[str, str]]:
    """(command, name) of every non-positional option, and of the global ones
    on every command."""
    listed = json.loads(run(BINARY, "options").stdout)
    existing = {(c, o["name"]) for c, opts in listed.items() for o in opts if o["kind"] != "positional"}
    top_level = run(BINARY, "--help").stdout
    return existing | {(c, g) for c in listed for g in GLOBAL_OPTIONS if flag(g) in top_level}


def uncovered(existing: set[tuple[str, str]]) -> tuple[list, list]:
    """The options without an entry (global ones need none), and the entries
    whose option is gone."""
    covered = {*MATRIX, *EXCEPTIONS} | {(c, n) for c, n, _ in [*KNOWN_FAULTS, *MODES]}
    missing = sorted({(c, n) for c, n in existing if n not in GLOBAL_OPTIONS} - covered)
    return missing, sorted(covered - existing)


def test_every_option_has_an_entry() -> None:
    """Each non-positional option of `tabula options` is in MATRIX,
    EXCEPTIONS or KNOWN_FAULTS, and each entry names an existing option."""
    assert not set(MATRIX) & set(EXCEPTIONS), "a pair is both in MATRIX and in EXCEPTIONS"
    missing, stale = uncovered(existing_options())
    assert not missing, "options without an entry in MATRIX or EXCEPTIONS: " + ", ".join(ids(missing))
    assert not stale, "entries for options that no longer exist: " + ", ".join(ids(stale))


def test_a_new_or_removed_option_is_named() -> None:
    existing = existing_options()
    assert uncovered(existing | {("parse", "new_option")}) == ([("parse", "new_option")], [])
    assert uncovered(existing - {("tag", "decode")}) == ([], [("tag", "decode")])


def test_an_option_without_effect_fails(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="changed nothing"):
        check_acts(C(TAG, "--decode greedy"), workspace, tmp_path)


def test_pair_count() -> None:
    """How many pairs this file runs (printed with `pytest -s`)."""
    runs = len(MATRIX) + len(EXCEPTIONS) + len(MODES) + len(KNOWN_FAULTS)
    print(
        f"\noption checks: {runs} ({len(MATRIX)} in MATRIX, {len(EXCEPTIONS)} EXCEPTIONS, {len(MODES)} MODES, "
        f"{len(KNOWN_FAULTS)} KNOWN_FAULTS)"
    )
    assert runs >= len({(c, n) for c, n in existing_options() if n not in GLOBAL_OPTIONS})


@pytest.mark.parametrize("pair", list(MATRIX), ids=ids(MATRIX))
def test_option_acts(pair: tuple[str, str], workspace: Path, tmp_path: Path) -> None:
    check_acts(MATRIX[pair], workspace, tmp_path)


@pytest.mark.parametrize("pair", list(EXCEPTIONS), ids=ids(EXCEPTIONS))
def test_exception_gives_the_same_output(pair: tuple[str, str], workspace: Path, tmp_path: Path) -> None:
    reason, case = EXCEPTIONS[pair]
    base = execute(case, case.base, workspace, tmp_path / "without")
    other = execute(case, case.variant(), workspace, tmp_path / "with")
    assert base.returncode == 0 and other.returncode == 0, other.stderr or base.stderr
    assert compared(case, base) == compared(case, other), f"listed as the same by design ({reason}), but it differs"


@pytest.mark.parametrize("mode", list(MODES), ids=ids(MODES))
def test_option_acts_in_another_mode(mode: tuple[str, str, str], workspace: Path, tmp_path: Path) -> None:
    check_acts(MODES[mode], workspace, tmp_path)


@pytest.mark.parametrize(
    "fault",
    [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAULTS[k][1])) for k in KNOWN_FAULTS],
    ids=ids(KNOWN_FAULTS),
)
def test_known_fault(fault: tuple[str, str, str], workspace: Path, tmp_path: Path) -> None:
    check_acts(KNOWN_FAULTS[fault][0], workspace, tmp_path, any_refusal=True)
