"""One sweep at a time per results folder.

Two sweeps on the same folder would run the same jobs in the same work
folders (each removing the other's files, the last result written winning),
so a sweep holds an exclusive lock (``flock``) on ``RESULTS/sweep.lock`` for
its whole life, and writes in it who holds it: the process id, the host and
when it started. A second sweep is refused at once with those, and never
waits. The lock goes with the process: a sweep killed outright leaves the
file but not the lock, and the next sweep takes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import Iterator

#: The lock file's name inside the results folder.
LOCK_NAME = "sweep.lock"


class SweepLocked(RuntimeError):
    """Another sweep holds the results folder (the message says which)."""


def _holder(text: str) -> str:
    """Who holds the lock, as its file says (``pid P on HOST, started at T``)."""
    try:
        who = json.loads(text)
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(who["started_at"])))
        return f"process {int(who['pid'])} on {who['host']}, started at {started}"
    except (ValueError, KeyError, TypeError):
        return "a process that has not yet written its name"


@contextlib.contextmanager
def hold(results: Path) -> Iterator[None]:
    """Holds the lock of the results folder (which exists) while the block
    runs; :class:`SweepLocked` at once if another sweep has it."""
    path = results / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace")
            raise SweepLocked(
                f"{results}: another sweep is running on this results folder ({_holder(text)}; "
                f"its lock: {path}); wait for it to end, or give another --results"
            ) from None
        who = {"pid": os.getpid(), "host": os.uname().nodename, "started_at": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(who) + "\n").encode("utf-8"), 0)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock
