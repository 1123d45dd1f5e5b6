"""Training checkpoints (``train --checkpoint FILE``): everything a training
run holds after an epoch, so that a run that stopped (Ctrl-C, a killed job,
a machine taken back) continues from its last finished epoch and ends with
the same model, bit for bit, as a run that never stopped; and a finished
run continues for more epochs (a larger ``--epochs``) as if it had been
asked for them from the start.

A checkpoint holds the network, the optimiser's moments, the moving average
of the weights, the best epoch on the development file so far (its weights),
the epochs' history and the states of the three random generators (Python's,
NumPy's, PyTorch's). It also records what makes the run: its options, the
SHA-256 of every file training reads, the vocabularies built from them and
tabula's version. A run continues only from a checkpoint that agrees on all
of these but where it computes (``--device``, ``--threads``) and how long
(``--epochs``); the first difference found is the error."""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

import numpy as np
import torch

from .. import _tabula as tp
from ..crf import TREES
from .data import Vocabularies
from .sealed import seal, unseal
from .train import EpochReport, Options

CHECKPOINT = "tabula-neural-checkpoint-1"
WHAT = "tabula training checkpoint"
PathLike = Union[str, "os.PathLike[str]"]

#: Options that say where a run computes and how long, not what it learns:
#: they may change when a run continues.
FREE = ("device", "threads", "epochs")
#: Options that name files: compared by the files' SHA-256, not their paths.
FILES = ("tagger", "embeddings")


def training_files(train: Any, dev: Any, options: Options) -> dict[str, Any]:
    """Every file (or object) training reads, by role: ``train``, ``dev``,
    ``tagger``, ``embeddings`` and ``trees`` (a grammar file); the roles
    not given left out."""
    trees = options.trees if options.parser == "biaffine" and options.trees not in TREES else None
    roles = {"train": train, "dev": dev, "tagger": options.tagger, "embeddings": options.embeddings, "trees": trees}
    return {role: value for role, value in roles.items() if value is not None}


@dataclass
class Run:
    """What makes a training run, which a checkpoint must share to be
    continued: the options, the SHA-256 of each file read (by role:
    ``train``, ``dev``, ``tagger``, ``embeddings``, ``trees``), that of the
    vocabularies, and tabula's version."""

    options: dict[str, Any]
    files: dict[str, str]
    vocab: str
    version: str = tp.__version__

    @classmethod
    def of(cls, options: Options, files: dict[str, Any], vocab: Vocabularies) -> "Run":
        """The run of these options, files (:func:`training_files`) and
        vocabularies (``ValueError`` for a tagger given as an object: a
        checkpoint records its file)."""
        if options.tagger is not None and not os.path.exists(str(options.tagger)):
            raise ValueError("--checkpoint needs the tagger as a file (a Tagger object cannot be checked on resume)")
        canonical = json.dumps(vocab.state(), sort_keys=True, ensure_ascii=False).encode()
        digests = {role: _sha256(path) for role, path in files.items()}
        return cls(options.state(), digests, hashlib.sha256(canonical).hexdigest())

    def difference(self, saved: "Run") -> Optional[str]:
        """The first way ``saved`` (a checkpoint's) differs from this run,
        in words; None where it may be continued by it."""
        if saved.version != self.version:
            return f"it was written by tabula {saved.version}, this is {self.version}"
        for role in ("train", "dev", "tagger", "embeddings", "trees"):
            if saved.files.get(role) != self.files.get(role):
                if role not in saved.files:
                    return f"{_ROLE[role]}: none in its run, one here"
                if role not in self.files:
                    return f"{_ROLE[role]}: one in its run, none here"
                return f"{_ROLE[role]}: not the file of its run (the contents differ)"
        for key, value in _comparable(self.options).items():
            before = _comparable(saved.options).get(key)
            if before != value:
                return f"{_flag(key)} was {before!r} in its run, here {value!r}"
        if saved.vocab != self.vocab:
            return "the vocabularies built from the training file differ (its tags or sentences changed)"
        return None


_ROLE = {
    "train": "the training file",
    "dev": "the development file (--dev)",
    "tagger": "the tagger (--tagger)",
    "embeddings": "the vectors (--embeddings)",
    "trees": "the grammar file (--trees)",
}


#: The command's flag of each network size (``pretrained``: the vectors').
_DIM_FLAGS = {"char_filters": "--char-filters", "layers": "--layers", "dropout": "--dropout", "pretrained": "--embeddings' size"}


def _flag(key: str) -> str:
    if key.startswith("dims."):
        name = key[len("dims.") :]
        return _DIM_FLAGS.get(name, "--" + name.replace("_", "-") + "-dim")
    return "--" + key.replace("_", "-")


def _comparable(options: dict[str, Any]) -> dict[str, Any]:
    """The options that must agree, flattened (``dims.lstm``), without the
    free ones and the files' paths."""
    flat: dict[str, Any] = {}
    for key, value in options.items():
        if key in FREE or key in FILES:
            continue
        if key == "dims":
            flat.update({f"dims.{k}": v for k, v in value.items()})
        elif key == "trees" and value not in TREES:
            flat[key] = "a grammar file"  # its contents are compared by SHA-256
        else:
            flat[key] = value
    return flat


def _sha256(path: PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Progress:
    """Where a run stands after an epoch: the epochs finished, their
    history, and the best epoch on the development file so far (its LAS,
    number and weights; None without a development file)."""

    epoch: int = 0
    history: list[EpochReport] = field(default_factory=list)
    best: Optional[tuple[float, int, dict[str, torch.Tensor]]] = None


def save(
    path: PathLike,
    run: Run,
    trainer: Any,
    progress: Progress,
    generators: tuple[random.Random, np.random.Generator],
    inputs: Sequence[str],
) -> None:
    """Writes the checkpoint of ``trainer`` (a transition or graph trainer:
    its ``net``, ``optimizer`` and ``averaged``) after ``progress.epoch``
    (atomically, never over one of ``inputs``)."""
    rng, nrng = generators
    best = progress.best
    state: dict[str, Any] = {
        "format": CHECKPOINT,
        "run": {"options": run.options, "files": run.files, "vocab": run.vocab, "version": run.version},
        "epoch": progress.epoch,
        "history": [vars(r) for r in progress.history],
        "best": None if best is None else {"las": best[0], "epoch": best[1], "network": best[2]},
        "network": trainer.net.state_dict(),
        "optimizer": trainer.optimizer.state_dict(),
        "averaged": None if trainer.averaged is None else trainer.averaged.state_dict(),
        "random": {
            "python": rng.getstate(),
            "numpy": nrng.bit_generator.state,
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if trainer.device.type == "cuda" else None,
        },
    }
    tp.write_file(path, seal(state), inputs=list(inputs))


def resume(
    path: PathLike, run: Run, trainer: Any, generators: tuple[random.Random, np.random.Generator]
) -> Progress:
    """Restores the checkpoint at ``path`` into ``trainer`` and the
    generators, after checking that it is one of ``run`` (``ValueError``
    naming the first difference, or the damage)."""
    state = unseal(path, WHAT)
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT:
        raise ValueError(f"{path}: not a {WHAT}")
    try:
        saved = Run(**state["run"])
        why = run.difference(saved)
        if why is not None:
            raise ValueError(f"{path}: the checkpoint is of another training run: {why} (remove it to start anew)")
        trainer.net.load_state_dict(state["network"])
        trainer.optimizer.load_state_dict(state["optimizer"])
        if (trainer.averaged is None) != (state["averaged"] is None):
            raise ValueError("its moving average does not match --average")
        if trainer.averaged is not None:
            trainer.averaged.load_state_dict(state["averaged"])
        rng, nrng = generators
        rng.setstate(state["random"]["python"])
        nrng.bit_generator.state = state["random"]["numpy"]
        torch.set_rng_state(state["random"]["torch"])
        if state["random"]["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["random"]["cuda"])
        best = state["best"]
        return Progress(
            int(state["epoch"]),
            [EpochReport(**r) for r in state["history"]],
            None if best is None else (float(best["las"]), int(best["epoch"]), best["network"]),
        )
    except ValueError as e:
        if str(e).startswith(f"{path}: "):
            raise
        raise ValueError(f"{path}: not a {WHAT}: {e}") from None
    except (KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"{path}: not a {WHAT}: its state cannot be read ({type(e).__name__}: {e})") from None
