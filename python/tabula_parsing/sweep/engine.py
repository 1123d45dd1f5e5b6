"""Running the jobs on Dask: a local cluster, or Slurm through dask-jobqueue.

The engine only distributes :func:`~tabula_parsing.sweep.job.run_job`
calls: a job whose result file exists is not submitted (and the job itself
checks again before running), so the sweep resumes where it stopped. Jobs
are submitted largest training file first, so that the long jobs do not
start last and leave the other workers idle at the end. Each finished job
prints one line; the end prints the sweep's wall time, the jobs' own time,
their share of workers × wall time, and where the rest went: the cluster's
start, the engine's gaps before and between jobs on each worker, idle
workers at the end. The same summary is appended to
``RESULTS/sweeps.jsonl``.
"""

from __future__ import annotations

import importlib
import json
import logging
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, Callable, Iterator, TextIO

from .job import Interrupted, Settings, result_path, run_job
from .lock import hold
from .plan import Job, parse_size


class EngineError(RuntimeError):
    """The engine cannot start (Dask missing, a bad cluster setting)."""


@dataclass
class Summary:
    """What one sweep did."""

    total: int
    reused: int
    ran: int = 0
    ok: int = 0
    failed: int = 0
    interrupted: bool = False
    wall_s: float = 0.0
    start_s: float = 0.0
    jobs_s: float = 0.0
    workers: int = 1
    gaps_s: float = 0.0
    tail_s: float = 0.0

    def utilization(self) -> float | None:
        """The jobs' own time over workers × wall time (after the cluster started)."""
        busy = self.workers * (self.wall_s - self.start_s)
        return self.jobs_s / busy if busy > 0 and self.ran else None

    def text(self) -> str:
        done = f"{self.ran} jobs run ({self.ok} ok, {self.failed} failed), {self.reused} had results"
        line = f"{done}; {self.wall_s:.1f} s on {self.workers} workers (cluster start {self.start_s:.1f} s)"
        u = self.utilization()
        if u is not None:
            line += (
                f"; the jobs' own time {self.jobs_s:.1f} s = {100 * u:.1f} % of workers × the time after the start;"
                f" the engine's gaps before and between jobs {self.gaps_s:.1f} s"
                f" ({100 * self.gaps_s / max(self.jobs_s, 1e-9):.2f} % of the jobs' time),"
                f" idle workers at the end {self.tail_s:.1f} s"
            )
        return line

    def record(self) -> dict[str, Any]:
        """The summary as a JSON object (a line of RESULTS/sweeps.jsonl)."""
        return {k: v for k, v in self.__dict__.items()} | {"utilization": self.utilization()}


def gaps(rows: list[dict[str, Any]], ready: float, end: float) -> tuple[float, float]:
    """The engine's time on each worker: from the cluster being ready to the
    worker's first job and between its jobs (the jobs' `started_at` and
    `ended_at`); and the idle time from each worker's last job to `end`."""
    by_worker: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        if "started_at" in r and "ended_at" in r and "worker" in r:
            by_worker.setdefault(r["worker"], []).append((r["started_at"], r["ended_at"]))
    between = tail = 0.0
    for spans in by_worker.values():
        spans.sort()
        previous = ready
        for start, stop in spans:
            between += max(0.0, start - previous)
            previous = stop
        tail += max(0.0, end - previous)
    return between, tail


def _import(name: str) -> ModuleType:
    """A module of the `sweep` extra, or a clear error."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise EngineError(
            f"the sweep runs on Dask and needs `{name}`: pip install 'tabula-parsing[sweep]' "
            "(or: pip install 'dask[distributed]' dask-jobqueue)"
        ) from None


def slurm_options(max_memory: str, slurm: dict[str, Any]) -> dict[str, Any]:
    """SLURMCluster's keywords: one core and one worker process per Slurm
    job, `max_memory` plus 1 GiB (the worker itself), a scheduler with no
    dashboard (as the local cluster's: no pages, a free port of localhost,
    not 8787 on every interface of the login node), then the plan's
    `[sweep.slurm]` table, which may override any of them."""
    return {
        "cores": 1,
        "processes": 1,
        "memory": f"{(parse_size(max_memory) >> 20) + 1024}MiB",
        "scheduler_options": {"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        **slurm,
    }


#: Dask settings that leave the local cluster's HTTP servers without pages.
NO_HTTP: dict[str, list[str]] = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


def make_cluster(scheduler: str, workers: int, max_memory: str, slurm: dict[str, Any]) -> Any:
    """A Dask cluster: `workers` one-thread worker processes on this machine,
    or `workers` Slurm jobs of one core each with `max_memory` plus 1 GiB
    for the worker itself (any keyword of SLURMCluster in `slurm`)."""
    if scheduler == "local":
        distributed = _import("distributed")
        dask = _import("dask")

        # No dashboard and no HTTP pages: Dask's scheduler and workers always
        # listen for HTTP, so they get no routes, on a free port of localhost.
        with dask.config.set(NO_HTTP):
            return distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=0,  # each job's child process is bounded instead
                dashboard_address="127.0.0.1:0",
                scheduler_kwargs={"dashboard": False},
                silence_logs=logging.ERROR,
            )
    if scheduler == "slurm":
        jobqueue = _import("dask_jobqueue")
        dask = _import("dask")

        with dask.config.set(NO_HTTP):
            cluster = jobqueue.SLURMCluster(**slurm_options(max_memory, slurm))
        cluster.scale(jobs=workers)
        return cluster
    raise EngineError(f"unknown scheduler `{scheduler}` (local or slurm)")


def progress_line(done: int, total: int, row: dict[str, Any]) -> str:
    """One finished job, as the sweep prints it."""
    width = len(str(total))
    head = f"[{done:>{width}}/{total}] {row['status']:<6} {row['treebank']} {row['configuration']} s{row['seed']}"
    if row["status"] == "ok":
        peaks = [row.get(f"{s}_maxrss_mb") for s in ("train", "parse")]
        peak = max((p for p in peaks if p is not None), default=None)
        memory = "" if peak is None else f", {peak:.0f} MB"
        return f"{head}: UAS {row['uas']:.2f} LAS {row['las']:.2f}, {row['wall_s']:.1f} s{memory}"
    first = str(row.get("error", "")).splitlines()[0] if row.get("error") else ""
    return f"{head}: {first[:300]}"


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


#: Seconds with no worker (after there were some) before the sweep stops.
LOST_WORKERS_S = 20.0


class WorkersLost(Exception):
    """Every worker left the cluster and none came back: their Slurm jobs
    were cancelled (scancel), reached their walltime or were preempted."""


def completed(futures: list[Any], client: Any, lost_workers_s: float = LOST_WORKERS_S, poll_s: float = 1.0) -> Iterator[Any]:
    """The futures as they finish, as `distributed.as_completed` gives them;
    :class:`WorkersLost` once the cluster has had workers and then none for
    `lost_workers_s` (Dask would wait for workers for ever: SLURMCluster
    does not submit new jobs for those that ended)."""
    distributed = _import("distributed")
    pending = distributed.as_completed(futures)
    seen = False
    lost_at: float | None = None
    checked = float("-inf")
    while not pending.is_empty():
        batch = pending.next_batch(block=False)
        if batch:
            yield from batch
            continue
        now = time.monotonic()
        if now - checked >= poll_s:
            checked = now
            if client.nthreads():
                seen, lost_at = True, None
            elif seen:
                lost_at = now if lost_at is None else lost_at
                if now - lost_at >= lost_workers_s:
                    raise WorkersLost(f"no worker for {lost_workers_s:.0f} s")
        time.sleep(0.05)


def run_sweep(
    jobs: list[Job],
    settings: Settings,
    *,
    scheduler: str = "local",
    workers: int = 2,
    slurm: dict[str, Any] | None = None,
    retry_failed: bool = False,
    out: TextIO = sys.stdout,
    cluster_factory: Callable[[], Any] | None = None,
    lost_workers_s: float = LOST_WORKERS_S,
) -> Summary:
    """Runs the jobs that have no result yet (and, with `retry_failed`,
    those whose result says they failed) and prints a line per finished job.

    An interruption (Ctrl-C, SIGTERM) stops the sweep: finished jobs keep
    their results, running ones leave none, and the same command continues.
    So does a cluster left without workers for `lost_workers_s` (their Slurm
    jobs cancelled or out of walltime): the sweep is interrupted.
    `cluster_factory` makes the Dask cluster instead of `scheduler` (any
    cluster object: a `PBSCluster`, one already configured, …).

    The sweep holds the results folder's lock (:mod:`.lock`) from start to
    end: another sweep running on it raises :class:`~.lock.SweepLocked`.
    """
    started = time.perf_counter()
    try:
        settings.results.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EngineError(f"cannot make the results folder {settings.results}: {e.strerror or e}") from None
    if not settings.results.is_dir():
        raise EngineError(f"the results folder {settings.results} is not a folder")
    with hold(settings.results):
        return _run(jobs, settings, started, scheduler, workers, slurm, retry_failed, out, cluster_factory, lost_workers_s)


def _run(
    jobs: list[Job],
    settings: Settings,
    started: float,
    scheduler: str,
    workers: int,
    slurm: dict[str, Any] | None,
    retry_failed: bool,
    out: TextIO,
    cluster_factory: Callable[[], Any] | None,
    lost_workers_s: float,
) -> Summary:
    """:func:`run_sweep` once the results folder is held."""
    pending = []
    for job in jobs:
        path = result_path(settings.results, job)
        if path.exists():
            if not retry_failed or json.loads(path.read_text(encoding="utf-8")).get("status") == "ok":
                continue
            path.unlink()
        pending.append(job)
    summary = Summary(total=len(jobs), reused=len(jobs) - len(pending), workers=workers)
    print(
        f"{len(jobs)} jobs: {summary.reused} have results, {len(pending)} to run on {workers} {scheduler} workers",
        file=out,
        flush=True,
    )
    if not pending:
        summary.wall_s = time.perf_counter() - started
        return summary
    distributed = _import("distributed")
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    # Largest training file first: the long jobs start early.
    pending.sort(key=lambda j: j.treebank.train.stat().st_size, reverse=True)
    try:
        cluster = (cluster_factory or (lambda: make_cluster(scheduler, workers, settings.max_memory, slurm or {})))()
        with cluster, distributed.Client(cluster) as client:
            summary.start_s = time.perf_counter() - started
            ready = time.time()
            finished: list[dict[str, Any]] = []
            futures = [
                client.submit(run_job, job, settings, key=job.stem, pure=False, priority=len(pending) - i)
                for i, job in enumerate(pending)
            ]
            names = {f.key: job for f, job in zip(futures, pending)}
            try:
                for future in completed(futures, client, lost_workers_s):
                    try:
                        # Bounded: a job stopped as its worker leaves can be
                        # queued again, and then no result would ever come.
                        row = future.result(timeout=lost_workers_s)
                    except Interrupted as e:
                        print(f"stopped: {e}; no result, the next sweep runs it", file=out, flush=True)
                        continue
                    except TimeoutError:
                        job = names[future.key]
                        print(f"stopped: {job.stem} left with its worker; no result, the next sweep runs it",
                              file=out, flush=True)
                        continue
                    except Exception as e:  # noqa: BLE001 - a lost worker: say so, go on
                        job = names[future.key]
                        row = {"treebank": job.treebank.name, "configuration": job.configuration.name,
                               "seed": job.seed, "status": "failed", "error": f"{type(e).__name__}: {e}"}
                    if row.get("reused"):
                        # Its result was written after the sweep began (by hand,
                        # or a sweep on another folder): read, not run here, so
                        # neither its time nor its worker counts as this sweep's.
                        summary.reused += 1
                        line = progress_line(summary.reused + summary.ran, summary.total, row)
                        print(f"{line} (its result was there)", file=out, flush=True)
                        continue
                    summary.ran += 1
                    if row["status"] == "ok":
                        summary.ok += 1
                    else:
                        summary.failed += 1
                    summary.jobs_s += float(row.get("wall_s", 0.0))
                    finished.append(row)
                    print(progress_line(summary.reused + summary.ran, summary.total, row), file=out, flush=True)
            except (KeyboardInterrupt, WorkersLost) as e:
                if isinstance(e, WorkersLost):
                    print(
                        f"stopped: every worker left the cluster ({e}; on Slurm: their jobs were cancelled, "
                        "reached their walltime or were preempted)",
                        file=out,
                        flush=True,
                    )
                summary.interrupted = True
                left = summary.total - summary.reused - summary.ran
                print(
                    f"interrupted: {summary.reused + summary.ran} of {summary.total} jobs have results, {left} left; "
                    "the same command continues",
                    file=out,
                    flush=True,
                )
                client.cancel(futures)
            summary.gaps_s, summary.tail_s = gaps(finished, ready, time.time())
    finally:
        signal.signal(signal.SIGTERM, previous)
    summary.wall_s = time.perf_counter() - started
    with open(settings.results / "sweeps.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"finished_at": time.time(), "scheduler": scheduler, **summary.record()}) + "\n")
    return summary
