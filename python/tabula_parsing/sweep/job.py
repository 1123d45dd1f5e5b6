"""One job: train on a treebank, parse its test file, score the parse.

Training and parsing run the ``tabula`` binary (``tabula train``, ``tabula
parse``), or the neural parser for a configuration with ``parser =
"neural"`` (``python -m tabula_parsing.neural train`` and ``parse``, which
take the same option names); scoring is always ``tabula eval``.

:func:`run_job` is what every worker runs. It is a function of the job's
inputs alone and writes one JSON file, ``RESULTS/<job stem>.json``,
atomically (a temporary file renamed), so an interrupted job leaves no
result and is run again by the next sweep, and a finished one is never run
again. A job that fails writes its result too, with ``"status": "failed"``,
the stage that failed and why (the end of the command's standard error).

Each command runs in a child process bounded to ``max_memory`` plus
:data:`HEADROOM` of address space (``RLIMIT_AS``; of data, ``RLIMIT_DATA``,
for the neural parser: PyTorch maps far more than it uses); tabula also gets
``--max-memory`` so that it refuses oversized computations with a clear
message first. The child is killed if its worker dies (Linux). Times are
wall-clock and CPU seconds of each command; peak memory is the child's
maximum resident set size (:func:`run_command`).
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Sequence

from .. import _tabula as tp
from .plan import Job, option_args, parse_size

#: How much of a failed command's standard error a result keeps.
ERROR_TAIL = 2000

#: Signals that mean "stop" rather than "this job failed": a job killed by
#: one writes no result, so the next sweep runs it again.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: The exit statuses of a command stopped by one of them: killed by it, or
#: exiting as a shell does (128 + the signal), or as tabula and the neural
#: parser do when they catch it and say so (130).
STOPPED = {-s for s in STOP_SIGNALS} | {128 + s for s in STOP_SIGNALS}


class Interrupted(Exception):
    """A command of the job was stopped (Ctrl-C, SIGTERM): no result is written."""


@dataclass(frozen=True)
class Settings:
    """What every job of a sweep shares."""

    tabula: str
    results: Path
    max_memory: str = "4G"
    keep_models: bool = False
    #: How the neural parsers are started (configurations with `parser =
    #: "neural"` or `"biaffine"`).
    neural: tuple[str, ...] = (sys.executable, "-m", "tabula_parsing.neural")


@dataclass
class Run:
    """One finished command."""

    returncode: int
    wall_s: float
    user_s: float
    sys_s: float
    maxrss_mb: float | None
    stdout: str
    stderr: str


def result_path(results: Path, job: Job) -> Path:
    """Where the job's result is written."""
    return results / f"{job.stem}.json"


def open_text(path: Path) -> IO[str]:
    """A CoNLL-U file, plain, xz or gzip, as text."""
    if path.name.endswith(".xz"):
        return lzma.open(path, "rt", encoding="utf-8")
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def count_treebank(path: Path) -> tuple[int, int]:
    """Sentences and syntactic words of a CoNLL-U file (multiword-token and
    empty-node lines are not words)."""
    sentences = words = 0
    in_sentence = False
    with open_text(path) as f:
        for line in f:
            if not line.strip():
                in_sentence = False
                continue
            if line.startswith("#"):
                continue
            if not in_sentence:
                sentences += 1
                in_sentence = True
            word_id = line.split("\t", 1)[0]
            if word_id.isdigit():
                words += 1
    return sentences, words


def _prctl() -> Callable[..., int] | None:
    """libc's `prctl` on Linux, looked up once (not in the forked child)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


prctl = _prctl()

#: Address space allowed beyond --max-memory: the binary, its stacks, the
#: allocator's slack. tabula's own check refuses a computation larger than
#: --max-memory first, with a message; the bound catches everything else.
HEADROOM = 512 << 20


def _limit(max_bytes: int, kind: int) -> Callable[[], None]:
    """Runs in the child before `exec`: the memory bound (`kind`:
    `RLIMIT_AS`, or `RLIMIT_DATA` for PyTorch, which maps far more address
    space than it uses), and death with the parent (Linux
    `PR_SET_PDEATHSIG`)."""

    def apply() -> None:
        if prctl is not None:
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        resource.setrlimit(kind, (max_bytes, max_bytes))

    return apply


def _peak_kb(pid: int) -> int | None:
    """The process's peak resident set so far (`VmHWM`, kB), Linux only."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_command(args: list[str], workdir: Path, max_bytes: int, kind: int = resource.RLIMIT_AS) -> Run:
    """Runs one command with the memory bound; its own wall time and peak
    resident memory.

    The peak is the child's ``VmHWM`` read from ``/proc`` while it runs
    (every 10 ms at first, then every 0.25 s: what it reaches in its last
    moments is missed), since ``wait4``'s ``ru_maxrss`` also counts the
    worker's own size at the fork. None when no reading was made (a command
    done before the first one, or no ``/proc``).
    """
    out_path, err_path = workdir / "stdout.txt", workdir / "stderr.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=_limit(max_bytes, kind))
        peak: int | None = None
        pause = 0.01
        try:
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid == child.pid:
                    break
                hwm = _peak_kb(child.pid)
                if hwm is not None:
                    peak = max(peak or 0, hwm)
                time.sleep(pause)
                pause = min(0.25, pause * 1.5)
        except BaseException:
            child.kill()
            child.wait()
            raise
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return Run(
        returncode=child.returncode,
        wall_s=wall,
        user_s=usage.ru_utime,
        sys_s=usage.ru_stime,
        maxrss_mb=None if peak is None else peak / 1024,
        stdout=out_path.read_text(encoding="utf-8", errors="replace"),
        stderr=err_path.read_text(encoding="utf-8", errors="replace"),
    )


def _why(stage: str, run: Run, max_memory: str) -> str:
    """A failed command's reason (`stage`: "tabula train", …): its exit
    status and the end of its standard error."""
    """A failed command's reason: its exit status and the end of its standard error."""
    tail = run.stderr.strip()[-ERROR_TAIL:]
    if run.returncode < 0:
        name = signal.Signals(-run.returncode).name
        status = f"killed by {name}"
        if name in ("SIGABRT", "SIGSEGV", "SIGKILL", "SIGBUS"):
            status += f" (the memory bound is {max_memory}: an allocation beyond it aborts)"
    else:
        status = f"exit status {run.returncode}"
    if "memory allocation of" in tail:
        status += f" (out of memory under the bound of {max_memory})"
    return f"{stage}: {status}" + (f": {tail}" if tail else "")


def write_json(path: Path, row: dict[str, Any], inputs: Sequence[Path] = ()) -> None:
    """Writes a result as the command line writes its outputs
    (:func:`tabula_parsing.write_file`): atomically, and never over one of
    the job's ``inputs`` (a result file that is a link to a treebank)."""
    tp.write_file(path, json.dumps(row, indent=1, sort_keys=True) + "\n", inputs=[str(p) for p in inputs])


def describe(job: Job) -> dict[str, Any]:
    """The row's fields that come from the job alone."""
    tb = job.treebank
    return {
        "job": job.stem,
        "hash": job.digest,
        "treebank": tb.name,
        "code": tb.code,
        "configuration": job.configuration.name,
        "seed": job.seed,
        "train_file": str(tb.train),
        "dev_file": str(tb.dev) if job.use_dev and tb.dev is not None else None,
        "test_file": str(tb.test),
        "train_options": dict(job.configuration.train),
        "parse_options": dict(job.configuration.parse),
    }


def run_job(job: Job, settings: Settings) -> dict[str, Any]:
    """Runs one job unless its result exists, and returns its row.

    The row (also the result file) has the job's inputs (treebank, files,
    every option, seed), ``status`` (``ok`` or ``failed``, with ``stage``
    and ``error``), the training set's size, UAS and LAS (all words, and
    without punctuation), the recall of the gold non-projective arcs, the
    time and peak memory of each command, the tabula version, the worker
    (host and process) and when the job started and ended (Unix time).
    A row read back from an existing file has ``"reused": true`` added.
    A neural job's training keeps a checkpoint until the job ends
    (:func:`checkpoint_path`); a job whose training continued from one has
    ``train_continued_after_epoch`` (its times are the continuation's, so
    the report leaves them out of its time columns).
    """
    path = result_path(settings.results, job)
    if path.exists():
        row: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        row["reused"] = True
        return row
    workdir = settings.results / "work" / job.stem
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    row = describe(job)
    row["host"] = os.uname().nodename
    row["worker"] = f"{row['host']}:{os.getpid()}"
    row["max_memory"] = settings.max_memory
    row["started_at"] = time.time()
    started = time.perf_counter()
    try:
        row.update(_stages(job, settings, workdir))
    except Interrupted:
        raise
    except Exception as e:  # noqa: BLE001 - any failure is recorded, and the sweep goes on
        row.update(status="failed", stage="sweep", error=f"{type(e).__name__}: {e}")
    row["wall_s"] = time.perf_counter() - started
    row["ended_at"] = time.time()
    tb = job.treebank
    write_json(path, row, [p for p in (tb.train, tb.dev, tb.test) if p is not None])
    # Kept only while the job is unfinished (stopped, not failed).
    checkpoint_path(settings.results, job).unlink(missing_ok=True)
    if row["status"] == "ok" and not settings.keep_models:
        shutil.rmtree(workdir, ignore_errors=True)
    return row


def checkpoint_path(results: Path, job: Job) -> Path:
    """Where a neural job's training keeps its checkpoint (``--checkpoint``)
    until the job ends: beside its work folder, which a job's start clears,
    so that a job stopped mid-training (Ctrl-C, a killed worker, a cancelled
    Slurm job) continues from its last finished epoch when the sweep runs
    again."""
    return results / "work" / f"{job.stem}.checkpoint"


#: The neural command's line when training continues from a checkpoint.
CONTINUED = re.compile(r": continuing after epoch (\d+) of \d+$", re.MULTILINE)
#: Its error for a checkpoint of another run (another tabula version, since
#: the job's name holds everything else the run depends on).
OTHER_RUN = "the checkpoint is of another training run"


def _stages(job: Job, settings: Settings, workdir: Path) -> dict[str, Any]:
    """Train, parse, eval; the row's measured fields."""
    limit = parse_size(settings.max_memory)
    tabula = [settings.tabula, "--max-memory", settings.max_memory]
    tb = job.treebank
    out: dict[str, Any] = {}
    out["train_sentences"], out["train_words"] = count_treebank(tb.train)
    try:
        version = subprocess.run([settings.tabula, "--version"], capture_output=True, text=True, check=True)
    except subprocess.CalledProcessError as e:
        if e.returncode in STOPPED:
            raise Interrupted(f"tabula --version of {job.stem} was stopped") from None
        raise
    out["tabula_version"] = version.stdout.strip()
    neural = job.configuration.parser in ("neural", "biaffine")
    parser, name = (list(settings.neural), job.configuration.parser) if neural else (tabula, "tabula")
    kind = resource.RLIMIT_DATA if neural else resource.RLIMIT_AS
    model, parsed = workdir / ("model.pt" if neural else "model"), workdir / "test.parsed.conllu"
    train = [*parser, "train", str(tb.train), "-o", str(model), "--seed", str(job.seed)]
    if job.configuration.parser == "biaffine":
        train += ["--parser", "biaffine"]
    if job.use_dev and tb.dev is not None:
        train += ["--dev", str(tb.dev)]
    checkpoint = checkpoint_path(settings.results, job) if neural else None
    if checkpoint is not None:
        train += ["--checkpoint", str(checkpoint)]
    stages = [
        ("train", train + option_args(job.configuration.train), kind),
        ("parse", [*parser, "parse", "--model", str(model), str(tb.test), "-o", str(parsed)]
         + option_args(job.configuration.parse), kind),
        ("eval", [settings.tabula, "eval", "--json", "--nonprojective", str(tb.test), str(parsed)], resource.RLIMIT_AS),
    ]
    for stage, args, bound in stages:
        run = run_command(args, workdir, limit + HEADROOM, bound)
        if stage == "train" and checkpoint is not None and run.returncode == 1 and OTHER_RUN in run.stderr:
            # Left by another version of tabula: trained anew.
            out["train_checkpoint_discarded"] = run.stderr.strip().splitlines()[-1]
            checkpoint.unlink(missing_ok=True)
            run = run_command(args, workdir, limit + HEADROOM, bound)
        label = f"{'tabula' if stage == 'eval' else name} {stage}"
        if run.returncode in STOPPED:
            raise Interrupted(f"{label} of {job.stem} was stopped")
        out[f"{stage}_s"] = run.wall_s
        out[f"{stage}_user_s"] = run.user_s
        out[f"{stage}_sys_s"] = run.sys_s
        out[f"{stage}_maxrss_mb"] = run.maxrss_mb
        if run.returncode != 0:
            out.update(status="failed", stage=stage, error=_why(label, run, settings.max_memory))
            return out
        if stage == "train":
            out["train_log"] = run.stderr.strip().splitlines()[-3:]
            if (continued := CONTINUED.search(run.stderr)) is not None:
                out["train_continued_after_epoch"] = int(continued.group(1))
    scores = json.loads(run.stdout)
    np = scores.get("nonprojective", {})
    out.update(
        status="ok",
        test_sentences=scores["sentences"],
        test_words=scores["all"]["words"],
        uas=scores["all"]["uas"],
        las=scores["all"]["las"],
        uas_no_punct=scores["no_punct"]["uas"],
        las_no_punct=scores["no_punct"]["las"],
        nonprojective_gold=np.get("gold"),
        nonprojective_recall=np.get("recall"),
        nonprojective_precision=np.get("precision"),
    )
    return out
