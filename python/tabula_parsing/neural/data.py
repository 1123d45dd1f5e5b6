"""CoNLL-U to tensors and back: vocabularies, encoded sentences, batches, and
the writer that fills HEAD and DEPREL of parsed sentences (nothing else
changes).

Nothing here knows a transition system: the oracle (``OracleBatch``) is the
loop's only source of supervision (see :mod:`.train`)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional, Sequence

import numpy as np

from .._tabula import Sentence, check_input, shown

PAD, UNK, ROOT = 0, 1, 2
SPECIALS = ["<pad>", "<unk>", "<root>"]
MAX_CHARS = 24


class Vocab:
    """Strings to ids: 0 padding, 1 unknown, 2 the root token, then the
    strings seen in training (with their counts)."""

    def __init__(self, counts: Optional[Counter[str]] = None, min_count: int = 1) -> None:
        self.strings: list[str] = list(SPECIALS)
        self.counts: list[int] = [0, 0, 0]
        for s, c in sorted((counts or Counter()).items(), key=lambda x: (-x[1], x[0])):
            if c >= min_count:
                self.strings.append(s)
                self.counts.append(c)
        self.index = {s: i for i, s in enumerate(self.strings)}

    def __len__(self) -> int:
        return len(self.strings)

    def __call__(self, s: str) -> int:
        return self.index.get(s, UNK)

    def state(self) -> dict[str, Any]:
        return {"strings": self.strings, "counts": self.counts}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Vocab":
        v = cls()
        v.strings, v.counts = list(state["strings"]), list(state["counts"])
        v.index = {s: i for i, s in enumerate(v.strings)}
        return v


class Labels:
    """DEPREL strings to ids 0 … L−1 (no specials: every label is a class)."""

    def __init__(self, labels: Iterable[str]) -> None:
        self.strings = sorted(set(labels))
        self.index = {s: i for i, s in enumerate(self.strings)}

    def __len__(self) -> int:
        return len(self.strings)

    def root(self) -> Optional[int]:
        """The id of the label `root`, if the training file has it."""
        return self.index.get("root")


class Pretrained:
    """Pre-trained word vectors (``--embeddings``): their words, and the
    vectors (float32, one row per word) when read from a file; a model keeps
    the words here and the vectors in its network. A form is looked up as it
    is, then lowercased (GloVe's words are lowercase); 0 is no vector."""

    def __init__(self, words: list[str], vectors: Optional[np.ndarray] = None) -> None:
        self.words = words
        self.vectors = vectors
        self.index: dict[str, int] = {}
        for i, w in enumerate(words):
            self.index.setdefault(w, i + 1)

    def __call__(self, form: str) -> int:
        return self.index.get(form) or self.index.get(form.lower(), 0)

    @property
    def dim(self) -> int:
        return 0 if self.vectors is None else int(self.vectors.shape[1])

    @classmethod
    def read(cls, path: str) -> "Pretrained":
        """Vectors from a text file in word2vec's or GloVe's format (a word
        and its numbers per line, separated by spaces; word2vec's first line
        "count dimension" is skipped), or from a NumPy ``.npz`` archive with
        the arrays ``words`` (strings) and ``vectors`` (one row per word).
        Errors name the file and line."""
        if path.endswith(".npz"):
            with np.load(path, allow_pickle=False) as archive:
                missing = {"words", "vectors"} - set(archive.files)
                if missing:
                    raise ValueError(f"{path}: the archive needs the arrays `words` and `vectors` (no {sorted(missing)})")
                words, vectors = [str(w) for w in archive["words"]], np.asarray(archive["vectors"], dtype=np.float32)
            if vectors.ndim != 2 or len(words) != vectors.shape[0]:
                raise ValueError(
                    f"{path}: `vectors` must have one row per word ({len(words)}), found shape {vectors.shape}"
                )
        else:
            words, rows = [], []
            dim = None
            with open(path, encoding="utf-8", errors="strict") as f:
                for number, line in enumerate(f, 1):
                    fields = line.rstrip("\n").rstrip(" ").split(" ")
                    if number == 1 and len(fields) == 2 and all(x.isdigit() for x in fields):
                        continue  # word2vec's header
                    if fields == [""]:
                        continue
                    if dim is None:
                        dim = len(fields) - 1
                        if dim < 1:
                            raise ValueError(f"{path}:{number}: a word without numbers")
                    if len(fields) - 1 != dim:
                        raise ValueError(
                            f"{path}:{number}: {len(fields) - 1} numbers after `{shown(fields[0])}`, the first line has {dim}"
                        )
                    try:
                        rows.append([float(x) for x in fields[1:]])
                    except ValueError:
                        raise ValueError(f"{path}:{number}: a field after `{shown(fields[0])}` is not a number") from None
                    words.append(fields[0])
            if not words:
                raise ValueError(f"{path}: no vectors")
            vectors = np.asarray(rows, dtype=np.float32)
        if not np.isfinite(vectors).all():
            raise ValueError(f"{path}: a vector holds NaN or an infinity")
        return cls(words, vectors)


@dataclass
class Vocabularies:
    """Every vocabulary a model needs; saved with it."""

    forms: Vocab
    upos: Vocab
    feats: Vocab
    chars: Vocab
    labels: Labels
    pretrained: Optional[Pretrained] = None

    @classmethod
    def build(cls, sentences: Sequence[Sentence], labels: Sequence[Sequence[str]]) -> "Vocabularies":
        forms: Counter[str] = Counter()
        upos: Counter[str] = Counter()
        feats: Counter[str] = Counter()
        chars: Counter[str] = Counter()
        for s in sentences:
            forms.update(s.forms)
            upos.update(s.upos)
            feats.update(s.feats)
            for f in s.forms:
                chars.update(f[:MAX_CHARS])
        return cls(
            Vocab(forms), Vocab(upos), Vocab(feats), Vocab(chars), Labels(x for ls in labels for x in ls)
        )

    def state(self) -> dict[str, Any]:
        state = {
            "forms": self.forms.state(),
            "upos": self.upos.state(),
            "feats": self.feats.state(),
            "chars": self.chars.state(),
            "labels": self.labels.strings,
        }
        if self.pretrained is not None:
            state["pretrained"] = self.pretrained.words
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Vocabularies":
        words = state.get("pretrained")
        return cls(
            Vocab.from_state(state["forms"]),
            Vocab.from_state(state["upos"]),
            Vocab.from_state(state["feats"]),
            Vocab.from_state(state["chars"]),
            Labels(state["labels"]),
            Pretrained(list(words)) if words is not None else None,
        )


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


@dataclass
class Encoded:
    """One sentence as ids, the root token first (position 0)."""

    forms: np.ndarray  # int64, n + 1
    upos: np.ndarray
    feats: np.ndarray
    chars: np.ndarray  # int64, (n + 1) × MAX_CHARS
    heads: Optional[list[int]] = None  # gold heads of words 1 … n (−1: none)
    labels: Optional[list[int]] = None  # gold label ids of words 1 … n (−1: none)
    index: int = 0  # its position in the file
    counts: np.ndarray = field(default_factory=_empty)
    pretrained: np.ndarray = field(default_factory=_empty)  # int64, n + 1: ids of --embeddings' words (0: none)

    def __len__(self) -> int:
        return len(self.forms) - 1


def check_columns(sentences: Sequence[Sentence], path: str, feats: bool) -> None:
    """Refuses a file whose UPOS (or, with ``feats``, FEATS) column is empty
    everywhere: the model reads it."""
    for name in ["UPOS"] + (["FEATS"] if feats else []):
        column = "upos" if name == "UPOS" else "feats"
        if sentences and all(x == "_" for s in sentences for x in getattr(s, column)):
            raise ValueError(f"{path}: the {name} column is empty (`_`) in every word; the model reads it")


def input_warnings(sentences: Sequence[Sentence], file: Optional[str], feats: bool) -> list[str]:
    """Checks text to parse as ``tabula parse`` does (:func:`tabula_parsing.check_input`,
    the library's check): a sentence none of whose words has a UPOS is an
    error naming its file and line (the model reads UPOS, and the parser
    does not tag); returns the warnings of the input as a whole (``file``:
    its name for them, or none): words without UPOS, FEATS ``_`` everywhere
    for a model that reads it. The options are named as the command line's,
    as every message of this package names them. O(words)."""
    return check_input(sentences, feats=feats, file=file, command_line=True)


def encode(
    sentence: Sentence,
    vocab: Vocabularies,
    index: int,
    heads: Optional[Sequence[int]] = None,
    labels: Optional[Sequence[str]] = None,
) -> Encoded:
    """The ids of one sentence (and its gold tree, if given)."""
    forms = [ROOT] + [vocab.forms(f) for f in sentence.forms]
    upos = [ROOT] + [vocab.upos(u) for u in sentence.upos]
    feats = [ROOT] + [vocab.feats(f) for f in sentence.feats]
    chars = np.zeros((len(forms), MAX_CHARS), dtype=np.int64)
    chars[0, 0] = ROOT
    for i, f in enumerate(sentence.forms, 1):
        ids = [vocab.chars(c) for c in f[:MAX_CHARS]]
        chars[i, : len(ids)] = ids
    counts = np.array([0] + [vocab.forms.counts[i] for i in forms[1:]], dtype=np.int64)
    pre = vocab.pretrained
    pretrained = np.array([0] + [pre(f) for f in sentence.forms] if pre is not None else [], dtype=np.int64)
    label_ids = None
    if labels is not None:
        label_ids = [vocab.labels.index.get(x, -1) if x != "_" else -1 for x in labels]
    return Encoded(
        np.array(forms, dtype=np.int64),
        np.array(upos, dtype=np.int64),
        np.array(feats, dtype=np.int64),
        chars,
        None if heads is None else list(heads),
        label_ids,
        index,
        counts,
        pretrained,
    )


def batches(items: Sequence[Encoded], size: int, rng: Optional[random.Random]) -> Iterator[list[Encoded]]:
    """Batches of about ``size`` sentences of similar lengths: sorted by
    length (ties in file order), cut, and the batches shuffled with ``rng``
    (kept in order without one)."""
    order = sorted(range(len(items)), key=lambda i: (len(items[i]), i))
    if rng is not None:
        # Shuffle within equal lengths too, so that batches differ per epoch.
        keys = {i: (len(items[i]), rng.random()) for i in order}
        order.sort(key=lambda i: keys[i])
    chunks = [order[k : k + size] for k in range(0, len(order), size)]
    if rng is not None:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield [items[i] for i in chunk]


def with_tree(sentence: Sentence, heads: Sequence[int], labels: Sequence[str]) -> str:
    """The sentence's CoNLL-U text with HEAD and DEPREL of its words replaced
    (columns 7 and 8; every other byte as read)."""
    out = []
    word = 0
    for line in sentence.to_conllu().split("\n"):
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            fields[6] = str(heads[word])
            fields[7] = labels[word]
            word += 1
            line = "\t".join(fields)
        out.append(line)
    return "\n".join(out)
