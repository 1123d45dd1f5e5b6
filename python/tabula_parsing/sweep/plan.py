"""The plan file: which treebanks, which configurations, which seeds.

A plan is a small TOML file; every key is checked, and an unknown or
misplaced key is an error naming the key and the file (with the line where
the key is written)::

    [sweep]
    release = "ud-treebanks-v2.0"   # the folder the release unpacks to
    treebanks = ["UD_*"]            # globs over its UD_* folders
    exclude = []                    # globs of folders to leave out
    seeds = [1]
    results = "results/table2"      # one JSON file per job
    scheduler = "local"             # or "slurm"
    workers = 2
    max_memory = "4G"               # per job

    [sweep.slurm]                   # keyword arguments of dask-jobqueue's SLURMCluster
    queue = "normal"
    walltime = "02:00:00"

    [configurations.eager-static-first]   # options of `tabula train`
    system = "arc-eager"
    oracle = "static"
    root = "first"
    parse = { beam = 1 }                  # options of `tabula parse`

    [configurations.bilstm-dynamic]       # the neural parser (PyTorch)
    parser = "neural"                     # python -m tabula_parsing.neural train / parse
    system = "arc-hybrid"
    epochs = 30

    [configurations.biaffine-crf]         # the neural graph-based parser
    parser = "biaffine"                   # … neural train --parser biaffine / parse
    trees = "nonprojective-single-root"

Relative paths (``release``, ``results``) are taken from the current
directory. One job is one (treebank, configuration, seed): train on the
treebank's training file (with its development file, when it has one and
``dev`` is true), parse its test file, score the parse. A job's result file
is named after the job and a hash of its inputs (:attr:`Job.stem`), so a
job whose result exists is never run again.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    import tomli as tomllib

Value = Union[str, int, float, bool]

#: Keys of the ``[sweep]`` table, with what each must be.
SWEEP_KEYS = {
    "release": "a path",
    "treebanks": "a list of globs",
    "exclude": "a list of globs",
    "seeds": "a list of integers",
    "results": "a path",
    "scheduler": '"local" or "slurm"',
    "workers": "a positive integer",
    "max_memory": 'a size such as "4G"',
    "dev": "true or false",
    "keep_models": "true or false",
    "slurm": "a table (keyword arguments of SLURMCluster)",
}

#: Options a configuration cannot set: the sweep sets them for every job.
RESERVED = {
    "output": "the sweep names the model file",
    "o": "the sweep names the model file",
    "dev": "set `dev` in [sweep]",
    "seed": "set `seeds` in [sweep]",
    "max-memory": "set `max_memory` in [sweep] or --max-memory",
    "model": "the sweep passes the model it trained",
    "init": "a job trains from scratch",
}

SCHEDULERS = ("local", "slurm")
PARSERS = ("tabula", "neural", "biaffine")

#: How the neural parsers choose their epochs when none are given (as
#: ``tabula_parsing.neural.train.default_epochs`` does): part of the inputs
#: of a job whose configuration names no ``epochs``, so that a result
#: trained under an earlier default is not taken for one under this one.
NEURAL_DEFAULT_EPOCHS = "20; transition 40, biaffine 60 below 500 training sentences"
PARTS = ("train", "dev", "test")
SUFFIXES = (".conllu", ".conllu.xz", ".conllu.gz")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
OPTION = re.compile(r"^[a-z][a-z0-9_-]*$")
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)


class PlanError(ValueError):
    """A plan that cannot be run: the message names the file (and line)."""


@dataclass(frozen=True)
class Configuration:
    """A named set of training and parsing options, for `tabula train` and
    `tabula parse` or, with ``parser = "neural"``, for ``python -m
    tabula_parsing.neural train`` and ``parse`` (the BiLSTM transition
    parser), with ``parser = "biaffine"`` for the same with ``--parser
    biaffine`` (the graph-based parser)."""

    name: str
    train: dict[str, Value]
    parse: dict[str, Value] = field(default_factory=dict)
    parser: str = "tabula"


@dataclass(frozen=True)
class Treebank:
    """A treebank folder of the release and its files (``dev`` may be absent)."""

    name: str
    code: str
    train: Path
    test: Path
    dev: Path | None = None


@dataclass(frozen=True)
class Job:
    """One (treebank, configuration, seed): a pure function of these inputs."""

    treebank: Treebank
    configuration: Configuration
    seed: int
    release: Path
    use_dev: bool = True

    def inputs(self) -> dict[str, Any]:
        """What the result depends on: the files (relative to the release,
        with their sizes), the options, the seed."""

        def describe(path: Path | None) -> list[Any] | None:
            if path is None:
                return None
            try:
                rel = str(path.relative_to(self.release))
            except ValueError:
                rel = str(path)
            return [rel, path.stat().st_size]

        inputs: dict[str, Any] = {
            "treebank": self.treebank.name,
            "train": describe(self.treebank.train),
            "dev": describe(self.treebank.dev) if self.use_dev else None,
            "test": describe(self.treebank.test),
            "train_options": self.configuration.train,
            "parse_options": self.configuration.parse,
            "seed": self.seed,
        }
        if self.configuration.parser != "tabula":
            inputs["parser"] = self.configuration.parser
            if "epochs" not in self.configuration.train:
                inputs["default_epochs"] = NEURAL_DEFAULT_EPOCHS
        return inputs

    @property
    def digest(self) -> str:
        """12 hex digits of the SHA-256 of :meth:`inputs` (canonical JSON)."""
        text = json.dumps(self.inputs(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def stem(self) -> str:
        """The result file's name without ``.json``: readable, then the hash."""
        return f"{self.treebank.name}.{self.configuration.name}.s{self.seed}.{self.digest}"


@dataclass(frozen=True)
class Plan:
    """A checked plan file."""

    path: Path
    release: Path
    results: Path
    treebanks: tuple[str, ...] = ("UD_*",)
    exclude: tuple[str, ...] = ()
    seeds: tuple[int, ...] = (1,)
    configurations: tuple[Configuration, ...] = ()
    scheduler: str = "local"
    workers: int = 2
    max_memory: str = "4G"
    dev: bool = True
    keep_models: bool = False
    slurm: dict[str, Any] = field(default_factory=dict)


def parse_size(text: str) -> int:
    """Bytes of a size such as ``500M``, ``4G``, ``2GiB`` or ``1000000``."""
    m = SIZE.match(text)
    if not m:
        raise ValueError(f"`{text}` is not a size (e.g. 500M, 4G)")
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    return int(float(m.group(1)) * scale)


def _line_of(text: str, key: str, table: str | None = None) -> int | None:
    """The line (1-based) where `key` is written in the TOML text, inside
    `[table]` when given: a best guess for error messages."""
    current = None
    header = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+")
    assign = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        h = header.match(line)
        if h:
            current = h.group(1).replace('"', "").replace("'", "")
            if table is None and current.split(".")[-1] == key:
                return number
            continue
        if assign.match(line) and (table is None or current == table):
            return number
        if table is not None and current == table and re.search(rf"[{{,]\s*{re.escape(key)}\s*=", line):
            return number
    if table is not None and table.endswith(".parse"):  # parse = { ... } inline
        return _line_of(text, key, table[: -len(".parse")])
    return None


def where(path: Path, key: str, table: str | None = None) -> str:
    """`path:line` of a key of a plan file (`path` alone if not found)."""
    try:
        line = _line_of(path.read_text(encoding="utf-8"), key, table)
    except OSError:
        line = None
    return f"{path}:{line}" if line is not None else str(path)


class _Checker:
    """Reports errors as `file:line: message`."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def error(self, message: str, key: str | None = None, table: str | None = None) -> PlanError:
        line = _line_of(self.text, key, table) if key is not None else None
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        return PlanError(f"{where}: {message}")

    def strings(self, value: Any, key: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(f"`sweep.{key}` must be {SWEEP_KEYS[key]}", key, "sweep")
        return tuple(value)


def load_plan(path: str | Path) -> Plan:
    """Reads and checks a plan file (see the module's documentation).

    Raises :class:`PlanError` naming the file, the line and the key for an
    unknown key, a value of the wrong kind or a plan without configurations.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PlanError(f"{path}: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path}: {e}") from None
    check = _Checker(path, text)
    for key in data:
        if key not in ("sweep", "configurations"):
            raise check.error(f"unknown table or key `{key}` (a plan has [sweep] and [configurations.NAME])", key)
    sweep = data.get("sweep", {})
    if not isinstance(sweep, dict):
        raise check.error("`sweep` must be a table", "sweep")
    for key in sweep:
        if key not in SWEEP_KEYS:
            known = ", ".join(SWEEP_KEYS)
            raise check.error(f"unknown key `sweep.{key}` (known: {known})", key, "sweep")

    def boolean(key: str, default: bool) -> bool:
        value = sweep.get(key, default)
        if not isinstance(value, bool):
            raise check.error(f"`sweep.{key}` must be {SWEEP_KEYS[key]}", key, "sweep")
        return value

    def text_value(key: str, default: str) -> str:
        value = sweep.get(key, default)
        if not isinstance(value, str) or not value:
            raise check.error(f"`sweep.{key}` must be {SWEEP_KEYS[key]}", key, "sweep")
        return value

    release = text_value("release", "ud-treebanks-v2.0")
    results = text_value("results", f"results/{path.stem}")
    scheduler = text_value("scheduler", "local")
    if scheduler not in SCHEDULERS:
        raise check.error(f"`sweep.scheduler` must be {SWEEP_KEYS['scheduler']}, not `{scheduler}`", "scheduler", "sweep")
    workers = sweep.get("workers", 2)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise check.error(f"`sweep.workers` must be {SWEEP_KEYS['workers']}", "workers", "sweep")
    max_memory = text_value("max_memory", "4G")
    try:
        parse_size(max_memory)
    except ValueError as e:
        raise check.error(f"`sweep.max_memory`: {e}", "max_memory", "sweep") from None
    seeds = sweep.get("seeds", [1])
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
    ):
        raise check.error(f"`sweep.seeds` must be {SWEEP_KEYS['seeds']} (0 or more)", "seeds", "sweep")
    slurm = sweep.get("slurm", {})
    if not isinstance(slurm, dict):
        raise check.error(f"`sweep.slurm` must be {SWEEP_KEYS['slurm']}", "slurm", "sweep")

    raw = data.get("configurations")
    if not isinstance(raw, dict) or not raw:
        raise check.error("the plan has no configurations: add a table [configurations.NAME] of `tabula train` options")
    configurations = []
    for name, options in raw.items():
        table = f"configurations.{name}"
        if not NAME.match(name):
            raise check.error(
                f"configuration name `{name}`: use letters, digits and `_.+-` (it is part of file names)", name
            )
        if not isinstance(options, dict):
            raise check.error(f"`{table}` must be a table of `tabula train` options", name)
        configurations.append(
            Configuration(
                name=name,
                train=_options(check, options, table, allow_parse=True),
                parse=_options(check, options.get("parse", {}), f"{table}.parse", allow_parse=False),
                parser=_parser(check, options, table),
            )
        )
    return Plan(
        path=path,
        release=Path(release),
        results=Path(results),
        treebanks=check.strings(sweep.get("treebanks", ["UD_*"]), "treebanks"),
        exclude=check.strings(sweep.get("exclude", []), "exclude"),
        seeds=tuple(dict.fromkeys(seeds)),
        configurations=tuple(configurations),
        scheduler=scheduler,
        workers=workers,
        max_memory=max_memory,
        dev=boolean("dev", True),
        keep_models=boolean("keep_models", False),
        slurm=dict(slurm),
    )


def _parser(check: _Checker, options: dict[str, Any], table: str) -> str:
    """A configuration's `parser`: "tabula" (the default), "neural" or "biaffine"."""
    parser = options.get("parser", "tabula")
    if parser not in PARSERS:
        raise check.error(
            f"`{table}.parser` must be \"tabula\", \"neural\" or \"biaffine\", not `{parser}`", "parser", table
        )
    return str(parser)


def _options(check: _Checker, options: Any, table: str, allow_parse: bool) -> dict[str, Value]:
    """The command-line options of one table, keys in `--kebab-case` form
    (`step_bits` and `step-bits` alike), values checked."""
    if not isinstance(options, dict):
        raise check.error(f"`{table}` must be a table of `tabula parse` options", table.rsplit(".", 1)[-1])
    out: dict[str, Value] = {}
    for key, value in options.items():
        if key in ("parse", "parser") and allow_parse:
            continue
        if not OPTION.match(key):
            raise check.error(f"`{table}`: `{key}` is not an option name", key, table)
        option = key.replace("_", "-")
        if option in RESERVED:
            raise check.error(f"`{table}`: `{key}` cannot be set here ({RESERVED[option]})", key, table)
        if isinstance(value, dict) or isinstance(value, list):
            raise check.error(f"`{table}.{key}` must be a string, a number or a boolean", key, table)
        if option in out:
            raise check.error(f"`{table}`: `{key}` is given twice", key, table)
        out[option] = value
    return out


def option_args(options: dict[str, Value]) -> list[str]:
    """Command-line arguments of an option table: ``--name value``, a flag
    for ``true``, nothing for ``false``."""
    args: list[str] = []
    for key, value in options.items():
        if value is True:
            args.append(f"--{key}")
        elif value is False:
            continue
        else:
            args += [f"--{key}", str(value)]
    return args


def _part(folder: Path, part: str) -> Path | None:
    """The folder's `*-ud-PART.conllu` file (plain, .xz or .gz), if any."""
    found = sorted(p for s in SUFFIXES for p in folder.glob(f"*-ud-{part}{s}"))
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise PlanError(f"{folder}: several {part} files ({names}); keep one")
    return found[0] if found else None


def find_treebanks(plan: Plan) -> tuple[list[Treebank], list[str]]:
    """The release's treebank folders that the plan's globs match and that
    have a training and a test file; and why each other matched folder was
    left out."""
    if not plan.release.is_dir():
        raise PlanError(
            f"{plan.path}: the release folder `{plan.release}` does not exist "
            "(set `release` in [sweep] or pass --release; scripts/fetch-ud-2.0.sh makes one)"
        )
    treebanks: list[Treebank] = []
    skipped: list[str] = []
    for folder in sorted(p for p in plan.release.iterdir() if p.is_dir()):
        if not any(fnmatch.fnmatchcase(folder.name, g) for g in plan.treebanks):
            continue
        if any(fnmatch.fnmatchcase(folder.name, g) for g in plan.exclude):
            continue
        files = {part: _part(folder, part) for part in PARTS}
        missing = [part for part in ("train", "test") if files[part] is None]
        train, test = files["train"], files["test"]
        if missing or train is None or test is None:
            skipped.append(f"{folder.name}: no {' and no '.join(missing)} file")
            continue
        code = train.name.split("-ud-")[0]
        treebanks.append(Treebank(folder.name, code, train=train, test=test, dev=files["dev"]))
    return treebanks, skipped


def jobs(plan: Plan, treebanks: list[Treebank]) -> list[Job]:
    """Every (treebank, configuration, seed) of the plan."""
    return [
        Job(tb, c, seed, plan.release, use_dev=plan.dev and tb.dev is not None)
        for tb in treebanks
        for c in plan.configurations
        for seed in plan.seeds
    ]
