"""Sweeps: every (treebank, configuration, seed) of a plan as a job on Dask.

``python -m tabula_parsing.sweep PLAN`` trains, parses and scores with the
``tabula`` binary once per (treebank, configuration, seed) of a TOML plan
(:mod:`.plan`), each job on a worker of a Dask cluster (:mod:`.engine`:
local processes, or Slurm jobs through dask-jobqueue), each writing one
result file named after its inputs (:mod:`.job`), so that a finished job is
never run again and an interrupted sweep continues. ``python -m
tabula_parsing.sweep report RESULTS`` aggregates the results folder
(:mod:`.report`): a CSV of every row, tables per configuration (mean over
treebanks, small and large treebanks), per treebank, and a plot.

The engine needs the ``sweep`` extra: ``pip install 'tabula-parsing[sweep]'``.
"""

from .engine import EngineError, Summary, run_sweep
from .job import Settings, run_job
from .lock import SweepLocked
from .plan import Configuration, Job, Plan, PlanError, Treebank, find_treebanks, jobs, load_plan
from .report import ReportError, load_rows, summarize, write_report

__all__ = [
    "Configuration",
    "EngineError",
    "Job",
    "Plan",
    "PlanError",
    "ReportError",
    "Settings",
    "Summary",
    "SweepLocked",
    "Treebank",
    "find_treebanks",
    "jobs",
    "load_plan",
    "load_rows",
    "run_job",
    "run_sweep",
    "summarize",
    "write_report",
]
