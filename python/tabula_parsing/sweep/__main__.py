"""The command line: ``python -m tabula_parsing.sweep PLAN [options]`` runs a
plan; ``python -m tabula_parsing.sweep report RESULTS`` aggregates a results
folder. Exit status: 0 when every job is ok, 1 when a job failed or
another sweep is running on the results folder, 2 for a bad plan or
option, 130 when interrupted."""

from __future__ import annotations

import argparse
import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .engine import EngineError, run_sweep
from .job import Settings
from .lock import SweepLocked
from .plan import Plan, PlanError, find_treebanks, jobs, load_plan, parse_size, where
from .report import ReportError, write_report

RUN_HELP = """\
Runs every (treebank, configuration, seed) of PLAN: `tabula train` on the
treebank's training file (with its dev file), `tabula parse` on its test
file, `tabula eval --json --nonprojective`; one JSON result per job in the
results folder. Jobs with a result are not run again: the same command
continues an interrupted sweep. Options given here override the plan's.
"""

REPORT_HELP = """\
Aggregates a results folder: RESULTS/report/rows.csv (every job, every
option), report.md (mean UAS/LAS per configuration, small and large
treebanks, per treebank, failed jobs; also printed) and uas.svg (with
matplotlib).
"""


def run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tabula_parsing.sweep", description=RUN_HELP,
                                epilog="Aggregate with: python -m tabula_parsing.sweep report RESULTS")
    p.add_argument("plan", type=Path, help="the plan (TOML)")
    p.add_argument("--release", type=Path, help="the UD release folder (plan: release)")
    p.add_argument("--results", type=Path, help="the results folder (plan: results)")
    p.add_argument("--tabula", help="the tabula binary (default: `tabula` on PATH)")
    p.add_argument("--scheduler", choices=["local", "slurm"], help="local processes or Slurm jobs (plan: scheduler)")
    p.add_argument("--workers", type=int, help="workers: local processes or Slurm jobs (plan: workers)")
    p.add_argument("--max-memory", help="memory bound per job, e.g. 4G (plan: max_memory)")
    p.add_argument("--retry-failed", action="store_true", help="run again the jobs whose result is a failure")
    p.add_argument("--dry-run", action="store_true", help="list the jobs and whether each has a result; run none")
    return p


def report_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tabula_parsing.sweep report", description=REPORT_HELP)
    p.add_argument("results", type=Path, help="the results folder of a sweep")
    p.add_argument("--out", type=Path, help="where to write the report (default: RESULTS/report)")
    return p


def known_options(program: list[str], command: str) -> set[str]:
    """The long options `PROGRAM COMMAND --help` lists."""
    p = subprocess.run([*program, command, "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise PlanError(f"`{' '.join(program)} {command} --help` failed: {why}")
    return set(re.findall(r"--([a-z][a-z0-9-]*)", p.stdout))


def check_options(plan: Plan, tabula: str, neural: tuple[str, ...] = Settings.neural) -> None:
    """Every configuration's options are options of its parser's `train` /
    `parse` (`tabula`, or the neural parser's, which needs PyTorch)."""
    programs = {"tabula": [tabula], "neural": list(neural), "biaffine": list(neural)}
    cache: dict[tuple[str, str], set[str]] = {}
    for c in plan.configurations:
        for command in ("train", "parse"):
            try:
                if (c.parser, command) not in cache:
                    cache[(c.parser, command)] = known_options(programs[c.parser], command)
                known = cache[(c.parser, command)]
            except PlanError as e:
                raise PlanError(f"{where(plan.path, 'parser', f'configurations.{c.name}')}: {e}") from None
            for option in getattr(c, command):
                if option not in known:
                    table = f"configurations.{c.name}" + (".parse" if command == "parse" else "")
                    key = next((k for k in (option, option.replace("-", "_")) if where(plan.path, k, table) != str(plan.path)), option)
                    program = "tabula" if c.parser == "tabula" else "python -m tabula_parsing.neural"
                    raise PlanError(
                        f"{where(plan.path, key, table)}: `{table}`: `{option}` is not an option of `{program} {command}`"
                    )


def main_run(argv: list[str]) -> int:
    args = run_parser().parse_args(argv)
    plan = load_plan(args.plan)
    tabula = args.tabula or shutil.which("tabula")
    if tabula is None or shutil.which(tabula) is None:
        raise PlanError(f"no tabula binary: `{args.tabula or 'tabula'}` is not an executable (give --tabula PATH)")
    tabula = str(Path(shutil.which(tabula) or tabula).resolve())
    check_options(plan, tabula)
    max_memory = args.max_memory or plan.max_memory
    try:
        parse_size(max_memory)
    except ValueError as e:
        raise PlanError(f"--max-memory: {e}") from None
    if args.workers is not None and args.workers < 1:
        raise PlanError("--workers must be 1 or more")
    release = (args.release or plan.release).resolve()
    results = (args.results or plan.results).resolve()
    if results.exists() and not results.is_dir():
        given = "--results" if args.results else where(plan.path, "results", "sweep")
        raise PlanError(f"{given}: the results folder {results} is a file, not a folder")
    plan = dataclasses.replace(plan, release=release, results=results)
    treebanks, skipped = find_treebanks(plan)
    for why in skipped:
        print(f"left out {why}", file=sys.stderr)
    if not treebanks:
        raise PlanError(f"{plan.path}: no treebank of {release} matches {list(plan.treebanks)} with train and test files")
    todo = jobs(plan, treebanks)
    settings = Settings(tabula=tabula, results=results, max_memory=max_memory, keep_models=plan.keep_models)
    if args.dry_run:
        for job in todo:
            state = "done" if (results / f"{job.stem}.json").exists() else "todo"
            print(f"{state} {job.stem}")
        return 0
    summary = run_sweep(
        todo,
        settings,
        scheduler=args.scheduler or plan.scheduler,
        workers=args.workers or plan.workers,
        slurm=plan.slurm,
        retry_failed=args.retry_failed,
    )
    print(summary.text(), flush=True)
    if summary.interrupted:
        return 130
    return 1 if summary.failed else 0


def main_report(argv: list[str]) -> int:
    args = report_parser().parse_args(argv)
    text, written = write_report(args.results, args.out)
    print(text, end="")
    if not any(p.suffix == ".svg" for p in written):
        print("(no plot: install matplotlib for uas.svg)", file=sys.stderr)
    print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv and argv[0] == "report":
            return main_report(argv[1:])
        return main_run(argv)
    except SweepLocked as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (PlanError, ReportError, EngineError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        # An OSError of Python's own names the file after the reason: put it first.
        message = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else e
        print(f"error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
