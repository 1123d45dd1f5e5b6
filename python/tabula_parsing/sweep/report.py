"""Aggregating a sweep: a function of the results folder alone.

:func:`load_rows` reads every job's result file; :func:`write_report`
writes, into ``RESULTS/report`` (or another folder):

* ``rows.csv``: one row per job, every field, each option of
  `tabula train` as a column ``train.OPTION`` and of `tabula parse` as
  ``parse.OPTION``;
* ``report.md``: per configuration, the mean UAS and LAS over the
  treebanks that every configuration has a result for (seeds averaged
  first), the same over the small (fewer than :data:`SMALL` training
  sentences) and the large ones, the recall of the gold non-projective arcs,
  time and peak memory per job; then UAS per treebank and configuration;
  then the failed jobs and why;
* ``uas.svg``: mean UAS per configuration, all, small and large treebanks
  (when matplotlib is installed; otherwise a message says it was skipped).
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .. import _tabula as tp

#: Treebanks with fewer training sentences than this are "small"
#: (Aufrant & Wisniewski 2018, Table 2).
SMALL = 500

FIRST_COLUMNS = [
    "job", "treebank", "code", "configuration", "seed", "status", "stage", "error",
    "train_sentences", "train_words", "test_sentences", "test_words",
    "uas", "las", "uas_no_punct", "las_no_punct",
    "nonprojective_gold", "nonprojective_recall", "nonprojective_precision",
    "wall_s", "train_s", "parse_s", "eval_s", "train_user_s", "train_sys_s", "parse_user_s", "parse_sys_s",
    "train_maxrss_mb", "parse_maxrss_mb", "eval_maxrss_mb", "max_memory",
    "train_file", "dev_file", "test_file", "tabula_version", "host", "hash",
]  # fmt: skip


class ReportError(ValueError):
    """A results folder that cannot be read."""


def result_files(results: Path) -> list[Path]:
    """The folder's result files (`*.json`), by name."""
    if not results.is_dir():
        raise ReportError(f"{results}: no such folder" if not results.exists() else f"{results}: not a folder")
    return sorted(results.glob("*.json"))


def load_rows(results: Path) -> list[dict[str, Any]]:
    """Every job's row in the folder (files `*.json` with a `job` field), by job name."""
    rows = []
    for path in result_files(results):
        try:
            row = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ReportError(f"{path}: {e}") from None
        if isinstance(row, dict) and "job" in row:
            rows.append(row)
    return rows


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if not isinstance(v, (dict, list))}
    for part in ("train", "parse"):
        for k, v in (row.get(f"{part}_options") or {}).items():
            out[f"{part}.{k}"] = v
    return out


def write_csv(rows: list[dict[str, Any]], path: Path, inputs: Sequence[Path] = ()) -> None:
    """All rows, the usual columns first, then any other field and the
    options; written as :func:`tabula_parsing.write_file` writes (never over
    one of ``inputs``)."""
    flat = [_flat(r) for r in rows]
    extra = sorted({k for r in flat for k in r} - set(FIRST_COLUMNS))
    columns = FIRST_COLUMNS + [k for k in extra if not k.startswith(("train.", "parse."))]
    columns += [k for k in extra if k.startswith(("train.", "parse."))]
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(flat)
    tp.write_file(path, text.getvalue(), inputs=[str(p) for p in inputs])


@dataclass
class Cell:
    """One (treebank, configuration): the means over its seeds."""

    uas: float
    las: float
    np_recall: float | None
    seeds: int
    wall_s: float | None
    cpu_s: float | None
    maxrss_mb: float | None


def cpu_seconds(row: dict[str, Any]) -> float | None:
    """User and system CPU time of the job's commands (None for rows without
    them, and for a job whose training continued from its checkpoint: its
    times are the continuation's only)."""
    keys = [f"{stage}_{kind}_s" for stage in ("train", "parse", "eval") for kind in ("user", "sys")]
    if not all(k in row for k in keys) or "train_continued_after_epoch" in row:
        return None
    return float(sum(row[k] for k in keys))


def wall_seconds(row: dict[str, Any]) -> float | None:
    """The job's wall time (None where its training continued from its
    checkpoint, as :func:`cpu_seconds`)."""
    return None if "train_continued_after_epoch" in row else float(row["wall_s"])


@dataclass
class Summary:
    """The aggregates of a results folder."""

    configurations: list[str]
    treebanks: list[str]
    sizes: dict[str, int]
    cells: dict[tuple[str, str], Cell]
    common: list[str]
    failed: list[dict[str, Any]] = field(default_factory=list)

    def mean(self, configuration: str, treebanks: list[str], key: str = "uas") -> float | None:
        values = [getattr(self.cells[(t, configuration)], key) for t in treebanks]
        values = [v for v in values if v is not None]
        return statistics.fmean(values) if values else None

    def small(self) -> list[str]:
        return [t for t in self.common if self.sizes[t] < SMALL]

    def large(self) -> list[str]:
        return [t for t in self.common if self.sizes[t] >= SMALL]


def summarize(rows: list[dict[str, Any]]) -> Summary:
    """Means over seeds per (treebank, configuration), and the treebanks
    that every configuration has (the averages are over those, so that each
    configuration is averaged over the same treebanks)."""
    ok = [r for r in rows if r.get("status") == "ok"]
    configurations = sorted({r["configuration"] for r in rows})
    treebanks = sorted({r["treebank"] for r in ok})
    sizes = {r["treebank"]: int(r["train_sentences"]) for r in ok}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in ok:
        groups.setdefault((r["treebank"], r["configuration"]), []).append(r)
    cells = {}
    for key, group in groups.items():
        recalls = [r["nonprojective_recall"] for r in group if r.get("nonprojective_recall") is not None]
        cells[key] = Cell(
            uas=statistics.fmean(r["uas"] for r in group),
            las=statistics.fmean(r["las"] for r in group),
            np_recall=statistics.fmean(recalls) if recalls else None,
            seeds=len(group),
            wall_s=statistics.fmean(w) if (w := [x for r in group if (x := wall_seconds(r)) is not None]) else None,
            cpu_s=statistics.fmean(c) if (c := [x for r in group if (x := cpu_seconds(r)) is not None]) else None,
            maxrss_mb=max(
                (m for r in group for k in ("train_maxrss_mb", "parse_maxrss_mb") if (m := r.get(k)) is not None),
                default=None,
            ),
        )
    common = [t for t in treebanks if all((t, c) in cells for c in configurations)]
    failed = [r for r in rows if r.get("status") != "ok"]
    return Summary(configurations, treebanks, sizes, cells, common, failed)


def _f(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def markdown(summary: Summary) -> str:
    """The report's tables, as Markdown."""
    s = summary
    small, large = s.small(), s.large()
    lines = [
        f"Mean over the {len(s.common)} treebanks that every configuration has "
        f"({len(small)} small, under {SMALL} training sentences; {len(large)} large); "
        "UAS and LAS on all words, seeds averaged first.",
        "",
        "| configuration | UAS | LAS | UAS small | UAS large | non-proj. recall | s per job | CPU s per job | peak MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in s.configurations:
        lines.append(
            f"| {c} | {_f(s.mean(c, s.common))} | {_f(s.mean(c, s.common, 'las'))} "
            f"| {_f(s.mean(c, small))} | {_f(s.mean(c, large))} "
            f"| {_f(s.mean(c, s.common, 'np_recall'))} | {_f(s.mean(c, s.common, 'wall_s'), 1)} "
            f"| {_f(s.mean(c, s.common, 'cpu_s'), 1)} "
            f"| {_f(max((m for t in s.common if (m := s.cells[(t, c)].maxrss_mb) is not None), default=None), 0)} |"
        )
    lines += ["", "UAS per treebank (training sentences in brackets):", ""]
    lines.append("| treebank | " + " | ".join(s.configurations) + " |")
    lines.append("|---|" + "---|" * len(s.configurations))
    for t in sorted(s.treebanks, key=lambda t: (s.sizes[t], t)):
        cells = [_f(s.cells[(t, c)].uas) if (t, c) in s.cells else "–" for c in s.configurations]
        lines.append(f"| {t} ({s.sizes[t]}) | " + " | ".join(cells) + " |")
    if s.failed:
        lines += ["", f"{len(s.failed)} failed jobs:", ""]
        for r in s.failed:
            error = str(r.get("error", "")).splitlines()[0][:200] if r.get("error") else ""
            lines.append(f"- {r['treebank']} {r['configuration']} s{r['seed']}: {error}")
    return "\n".join(lines) + "\n"


def plot(summary: Summary, path: Path, inputs: Sequence[Path] = ()) -> str | None:
    """Mean UAS per configuration (all, small, large treebanks) as SVG with
    matplotlib, written as :func:`tabula_parsing.write_file` writes (never
    over one of ``inputs``); None, and nothing written, when matplotlib is
    absent."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        return None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "tabula-sweep"
    pyplot = importlib.import_module("matplotlib.pyplot")
    s = summary
    groups = [("all", s.common), ("small", s.small()), ("large", s.large())]
    groups = [(name, tbs) for name, tbs in groups if tbs]
    fig, ax = pyplot.subplots(figsize=(max(6.0, 0.9 * len(s.configurations) + 2), 4.0))
    width = 0.8 / max(len(groups), 1)
    for i, (name, tbs) in enumerate(groups):
        xs = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(s.configurations))]
        ys = [s.mean(c, tbs) or 0.0 for c in s.configurations]
        ax.bar(xs, ys, width, label=f"{name} ({len(tbs)})")
    ax.set_xticks(range(len(s.configurations)))
    ax.set_xticklabels(s.configurations, rotation=30, ha="right")
    ax.set_ylabel("mean UAS")
    values = [s.mean(c, tbs) for c in s.configurations for _, tbs in groups]
    present = [v for v in values if v is not None]
    if present:
        ax.set_ylim(max(0.0, min(present) - 5), min(100.0, max(present) + 2))
    ax.legend()
    fig.tight_layout()
    svg = io.BytesIO()
    fig.savefig(svg, format="svg", metadata={"Date": None})
    pyplot.close(fig)
    tp.write_file(path, svg.getvalue(), inputs=[str(p) for p in inputs])
    return str(path)


def write_report(results: Path, out: Path | None = None) -> tuple[str, list[Path]]:
    """Writes rows.csv, report.md and uas.svg (see the module); returns the
    tables and the files written."""
    rows = load_rows(results)
    if not rows:
        raise ReportError(f"{results}: no job results (*.json) yet")
    # The result files are the report's inputs: no output replaces one.
    inputs = result_files(results)
    out = out or results / "report"
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: the report's folder is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ReportError(f"cannot make the report's folder {out}: {e.strerror or e}") from None
    written = [out / "rows.csv", out / "report.md"]
    write_csv(rows, written[0], inputs)
    summary = summarize(rows)
    text = markdown(summary)
    tp.write_file(written[1], text, inputs=[str(p) for p in inputs])
    svg = plot(summary, out / "uas.svg", inputs) if summary.common else None
    if svg is not None:
        written.append(Path(svg))
    return text, written
