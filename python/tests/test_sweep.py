"""The sweep: plan files, job names, one job run with the command line, and
the report, on small files written here (the engine itself, on a local Dask
cluster with an interruption and a resume, is .ci/checks/sweep.sh)."""

from __future__ import annotations

import csv
import dataclasses
import json
import lzma
import shutil
import sys
import time
from pathlib import Path

import pytest

from tabula_parsing.sweep import PlanError, find_treebanks, jobs, load_plan, summarize, write_report
from tabula_parsing.sweep.__main__ import main
from tabula_parsing.sweep.engine import Summary, gaps, progress_line
from tabula_parsing.sweep.job import Settings, count_treebank, result_path, run_job
from tabula_parsing.sweep.plan import NEURAL_DEFAULT_EPOCHS, Job, option_args, parse_size
from tabula_parsing.sweep.report import load_rows

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample.conllu"

PLAN = """\
[sweep]
release = "{release}"
treebanks = ["UD_*"]
exclude = ["UD_Skip*"]
seeds = [1, 2]
workers = 3
max_memory = "1G"

[configurations.eager-static]
system = "arc-eager"
oracle = "static"
epochs = 2
step_bits = 12
label_bits = 10

[configurations.hybrid-dynamic]
system = "arc-hybrid"
epochs = 2
step-bits = 12
label-bits = 10
feats = true
lemma = false
parse = {{ beam = 1 }}
"""


def sentences(path: Path) -> list[str]:
    return [s + "\n\n" for s in path.read_text().strip().split("\n\n")]


@pytest.fixture()
def release(tmp_path: Path) -> Path:
    """UD_A (plain train/dev/test), UD_B (xz train and test, no dev),
    UD_C (no training file), UD_SkipMe (excluded)."""
    root = tmp_path / "ud-treebanks-v2.0"
    text = "".join(sentences(SAMPLE))
    for name, code in (("UD_A", "aa"), ("UD_SkipMe", "sk")):
        (root / name).mkdir(parents=True)
        for part in ("train", "dev", "test"):
            (root / name / f"{code}-ud-{part}.conllu").write_text(text)
    (root / "UD_B").mkdir()
    for part in ("train", "test"):
        with lzma.open(root / "UD_B" / f"bb_x-ud-{part}.conllu.xz", "wt") as f:
            f.write(text)
    (root / "UD_C").mkdir()
    (root / "UD_C" / "cc-ud-test.conllu").write_text(text)
    (root / "not-a-treebank.txt").write_text("")
    return root


def write_plan(tmp_path: Path, release: Path, text: str = PLAN) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(text.format(release=release))
    return path


def test_plan_is_read_and_checked(tmp_path: Path, release: Path) -> None:
    plan = load_plan(write_plan(tmp_path, release))
    assert plan.release == release and plan.seeds == (1, 2) and plan.workers == 3
    assert plan.scheduler == "local" and plan.max_memory == "1G" and plan.dev
    assert plan.results == Path("results/plan")
    eager, hybrid = plan.configurations
    assert eager.name == "eager-static"
    assert eager.train == {"system": "arc-eager", "oracle": "static", "epochs": 2, "step-bits": 12, "label-bits": 10}
    assert hybrid.parse == {"beam": 1}
    assert option_args(hybrid.train) == [
        "--system", "arc-hybrid", "--epochs", "2", "--step-bits", "12", "--label-bits", "10", "--feats"
    ]  # fmt: skip
    treebanks, skipped = find_treebanks(plan)
    assert [(t.name, t.code) for t in treebanks] == [("UD_A", "aa"), ("UD_B", "bb_x")]
    assert treebanks[0].dev is not None and treebanks[1].dev is None
    assert treebanks[1].train.name == "bb_x-ud-train.conllu.xz"
    assert skipped == ["UD_C: no train file"]
    todo = jobs(plan, treebanks)
    assert len(todo) == 2 * 2 * 2
    assert [j.use_dev for j in todo] == [True] * 4 + [False] * 4


@pytest.mark.parametrize(
    "edit, message",
    [
        (("workers = 3", "wrokers = 3"), "plan.toml:6: unknown key `sweep.wrokers` (known: release,"),
        (("[sweep]", "[sweeep]"), "plan.toml:1: unknown table or key `sweeep`"),
        (("epochs = 2\nstep_bits", "seed = 3\nstep_bits"), "plan.toml:12: `configurations.eager-static`: `seed` cannot be set here (set `seeds` in [sweep])"),
        (("feats = true", "feats = [1]"), "plan.toml:21: `configurations.hybrid-dynamic.feats` must be a string, a number or a boolean"),
        (("workers = 3", "workers = 0"), "plan.toml:6: `sweep.workers` must be a positive integer"),
        (("workers = 3", 'scheduler = "pbs"'), "plan.toml:6: `sweep.scheduler` must be \"local\" or \"slurm\", not `pbs`"),
        (("seeds = [1, 2]", "seeds = []"), "plan.toml:5: `sweep.seeds` must be a list of integers"),
        (('max_memory = "1G"', 'max_memory = "lots"'), "plan.toml:7: `sweep.max_memory`: `lots` is not a size"),
        (("[configurations.eager-static]", "[configurations.'eager static']"), "`eager static`: use letters, digits"),
        (("parse = {{ beam = 1 }}", "parse = 1"), "`configurations.hybrid-dynamic.parse` must be a table"),
        (("beam = 1", "beam = [1]"), "plan.toml:23: `configurations.hybrid-dynamic.parse.beam` must be a string"),
        (('release = "{release}"', "release = 1"), "plan.toml:2: `sweep.release` must be a path"),
        (("step_bits = 12", "step_bits = 12\nstep-bits = 12"), "`step-bits` is given twice"),
        (('system = "arc-hybrid"', 'parser = "udpipe"'), "plan.toml:17: `configurations.hybrid-dynamic.parser` must be \"tabula\", \"neural\" or \"biaffine\", not `udpipe`"),
    ],
)
def test_plan_errors_name_the_key_and_the_file(
    tmp_path: Path, release: Path, edit: tuple[str, str], message: str
) -> None:
    path = write_plan(tmp_path, release, PLAN.replace(*edit, 1))
    with pytest.raises(PlanError) as e:
        load_plan(path)
    assert str(e.value).startswith(str(tmp_path)), e.value
    assert message in str(e.value), e.value


def test_plan_without_configurations_or_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text("[sweep]\nseeds = [1]\n")
    with pytest.raises(PlanError, match=r"p.toml: the plan has no configurations"):
        load_plan(path)
    path.write_text("[sweep\n")
    with pytest.raises(PlanError, match=r"p.toml: .*line 1"):
        load_plan(path)
    with pytest.raises(PlanError, match=r"missing.toml: "):
        load_plan(tmp_path / "missing.toml")


def test_missing_release_is_an_error(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path, tmp_path / "nowhere"))
    with pytest.raises(PlanError, match=r"the release folder .*nowhere` does not exist"):
        find_treebanks(plan)


def test_job_names_are_a_function_of_the_inputs(tmp_path: Path, release: Path) -> None:
    plan = load_plan(write_plan(tmp_path, release))
    todo = jobs(plan, find_treebanks(plan)[0])
    stems = [j.stem for j in todo]
    assert len(set(stems)) == len(stems)
    assert stems[0].startswith("UD_A.eager-static.s1.") and len(stems[0].split(".")[-1]) == 12
    # The same plan, options in another order, the release elsewhere: the same names.
    moved = tmp_path / "elsewhere"
    shutil.copytree(release, moved)
    other = PLAN.replace("system = \"arc-eager\"\noracle = \"static\"", "oracle = \"static\"\nsystem = \"arc-eager\"")
    (tmp_path / "b").mkdir()
    plan2 = load_plan(write_plan(tmp_path / "b", moved, other))
    assert [j.stem for j in jobs(plan2, find_treebanks(plan2)[0])] == stems
    # Another option value, or another training file: another name.
    plan3 = load_plan(write_plan(tmp_path / "b", release, PLAN.replace("epochs = 2", "epochs = 3", 1)))
    assert [j.stem for j in jobs(plan3, find_treebanks(plan3)[0])][0] != stems[0]
    with open(release / "UD_A" / "aa-ud-train.conllu", "a") as f:
        f.write(sentences(SAMPLE)[0])
    assert jobs(plan, find_treebanks(plan)[0])[0].stem != stems[0]


def test_sizes_and_counts(tmp_path: Path) -> None:
    assert parse_size("4G") == 4 << 30 and parse_size("500M") == 500 << 20 and parse_size("2GiB") == 2 << 30
    assert parse_size("1000") == 1000
    with pytest.raises(ValueError, match="not a size"):
        parse_size("4 gigs")
    path = tmp_path / "t.conllu"
    path.write_text("# c\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n"
                    "2.1\te\t_\tX\t_\t_\t_\t_\t_\t_\n\n1\tc\t_\tX\t_\t_\t0\troot\t_\t_\n\n")
    assert count_treebank(path) == (2, 3)


def test_one_job_with_the_command_line(tmp_path: Path, release: Path, cli: Path) -> None:
    plan = load_plan(write_plan(tmp_path, release))
    todo = jobs(plan, find_treebanks(plan)[0])
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G")
    settings.results.mkdir()
    row = run_job(todo[0], settings)
    assert row["status"] == "ok", row.get("error")
    assert row["train_sentences"] == len(sentences(SAMPLE))
    assert row["train_options"]["system"] == "arc-eager" and row["seed"] == 1
    assert 0 <= row["uas"] <= 100 and row["las"] <= row["uas"]
    assert row["nonprojective_gold"] > 0 and row["nonprojective_recall"] is not None
    assert row["train_user_s"] + row["train_sys_s"] > 0 and 0 < row["train_maxrss_mb"] < 40 and row["train_s"] > 0 and row["wall_s"] >= row["train_s"]
    assert row["dev_file"].endswith("aa-ud-dev.conllu")
    path = result_path(settings.results, todo[0])
    assert json.loads(path.read_text()) == row
    assert not (settings.results / "work" / todo[0].stem).exists()
    # A job with a result is not run again.
    mtime = path.stat().st_mtime_ns
    again = run_job(todo[0], settings)
    assert again.pop("reused") is True and again == row and path.stat().st_mtime_ns == mtime
    # The same training gives the same scores (a pure function of the inputs).
    other = Settings(tabula=str(cli), results=tmp_path / "results2", max_memory="1G")
    other.results.mkdir()
    assert run_job(todo[0], other)["uas"] == row["uas"]
    # An xz treebank without dev.
    xz = run_job(todo[4], settings)
    assert xz["status"] == "ok", xz.get("error")
    assert xz["dev_file"] is None and xz["treebank"] == "UD_B"


def test_a_result_written_meanwhile_counts_as_had(
    tmp_path: Path, release: Path, cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job whose result file appears after the sweep began (written by
    hand) is read, not run: it counts among the results the sweep had, and
    its time and worker stay out of the summary's figures."""
    import io

    distributed = pytest.importorskip("distributed")
    from tabula_parsing.sweep import engine

    plan = load_plan(write_plan(tmp_path, release))
    todo = jobs(plan, find_treebanks(plan)[0])[:1]
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G")
    settings.results.mkdir()
    elsewhere = {"treebank": "UD_A", "configuration": todo[0].configuration.name, "seed": 1, "status": "ok",
                 "uas": 50.0, "las": 40.0, "wall_s": 1000.0, "started_at": 1.0, "ended_at": 1001.0, "worker": "other:1"}

    def written_meanwhile(job: Job, s: Settings) -> dict[str, object]:
        result_path(s.results, job).write_text(json.dumps(elsewhere))
        return run_job(job, s)

    def cluster() -> object:
        return distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0")

    monkeypatch.setattr(engine, "run_job", written_meanwhile)
    out = io.StringIO()
    summary = engine.run_sweep(todo, settings, workers=1, out=out, cluster_factory=cluster)
    assert (summary.reused, summary.ran, summary.jobs_s, summary.gaps_s) == (1, 0, 0.0, 0.0), out.getvalue()
    assert "(its result was there)" in out.getvalue() and "1 had results" in summary.text()
    assert summary.utilization() is None


def test_a_failed_job_says_why(tmp_path: Path, release: Path, cli: Path) -> None:
    bad = PLAN.replace('system = "arc-hybrid"', 'system = "arc-nope"')
    plan = load_plan(write_plan(tmp_path, release, bad))
    job = [j for j in jobs(plan, find_treebanks(plan)[0]) if j.configuration.name == "hybrid-dynamic"][0]
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G")
    settings.results.mkdir()
    row = run_job(job, settings)
    assert row["status"] == "failed" and row["stage"] == "train"
    assert row["error"].startswith("tabula train: exit status") and "arc-nope" in row["error"], row["error"]
    assert json.loads(result_path(settings.results, job).read_text())["status"] == "failed"
    # The memory bound: tabula refuses the model's tables beyond it.
    big = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="16K")
    row = run_job(jobs(plan, find_treebanks(plan)[0])[0], big)
    assert row["status"] == "failed" and "more than the limit of 16.0 KiB" in row["error"], row["error"]


@pytest.mark.parametrize(
    ("stage", "stop"),
    [("train", "kill -TERM $$"), ("train", "exit 130"), ("train", "exit 143"), ("--version", "exit 143")],
)
def test_a_stopped_command_writes_no_result(tmp_path: Path, release: Path, cli: Path, stage: str, stop: str) -> None:
    """A command stopped by a signal (killed by it, or exiting 128 + its
    number, as tabula does on Ctrl-C or SIGTERM: the cluster cancelling a
    worker) is no failure of the job: no result, so the next sweep runs it."""
    from tabula_parsing.sweep.job import Interrupted

    plan = load_plan(write_plan(tmp_path, release))
    job = jobs(plan, find_treebanks(plan)[0])[0]
    stopped = tmp_path / "stopped-tabula"
    stopped.write_text(f'#!/bin/sh\ncase " $* " in *" {stage} "*) {stop} ;; esac\nexec {cli} "$@"\n')
    stopped.chmod(0o755)
    settings = Settings(tabula=str(stopped), results=tmp_path / "results", max_memory="1G")
    settings.results.mkdir()
    with pytest.raises(Interrupted, match=f"{stage} of .* was stopped"):
        run_job(job, settings)
    assert not result_path(settings.results, job).exists()


def test_unknown_tabula_option_is_named(tmp_path: Path, release: Path, cli: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_plan(tmp_path, release, PLAN.replace("feats = true", "featz = true"))
    assert main([str(path), "--tabula", str(cli), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:21: `configurations.hybrid-dynamic`: `featz` is not an option of `tabula train`" in err
    path = write_plan(tmp_path, release, PLAN.replace("beam = 1", "beam = 1, bem = 2"))
    assert main([str(path), "--tabula", str(cli), "--dry-run"]) == 2
    assert f"{path}:23: `configurations.hybrid-dynamic.parse`: `bem` is not an option of `tabula parse`" in capsys.readouterr().err
    path = write_plan(tmp_path, release)
    assert main([str(path), "--tabula", str(cli), "--dry-run", "--results", str(tmp_path / "r")]) == 0
    out = capsys.readouterr()
    assert out.out.count("todo UD_") == 8 and "left out UD_C: no train file" in out.err
    assert main([str(path), "--tabula", str(tmp_path / "no-tabula")]) == 2
    assert "no tabula binary" in capsys.readouterr().err


def row(treebank: str, configuration: str, seed: int, uas: float, size: int, status: str = "ok") -> dict[str, object]:
    r: dict[str, object] = {
        "job": f"{treebank}.{configuration}.s{seed}.000000000000", "treebank": treebank, "code": "xx",
        "configuration": configuration, "seed": seed, "status": status, "train_sentences": size,
        "train_options": {"system": "arc-eager", "epochs": 2}, "parse_options": {},
        "wall_s": 2.0, "train_maxrss_mb": 50.0, "parse_maxrss_mb": 20.0,
    }  # fmt: skip
    if status == "ok":
        r.update(uas=uas, las=uas - 10, nonprojective_recall=None if size < 100 else 50.0)
    else:
        r.update(stage="train", error="tabula train: exit status 1: boom\nmore")
    return r


def test_report_on_hand_made_results(tmp_path: Path) -> None:
    rows = [
        row("UD_Small", "a", 1, 60.0, 100), row("UD_Small", "a", 2, 62.0, 100),
        row("UD_Small", "b", 1, 70.0, 100),
        row("UD_Large", "a", 1, 80.0, 5000), row("UD_Large", "b", 1, 90.0, 5000),
        row("UD_Only_a", "a", 1, 10.0, 50),  # no result for b: left out of the means
        row("UD_Broken", "b", 1, 0.0, 50, status="failed"),
    ]  # fmt: skip
    results = tmp_path / "results"
    results.mkdir()
    for r in rows:
        (results / f"{r['job']}.json").write_text(json.dumps(r))
    (results / "sweeps.jsonl").write_text("{}\n")
    (results / "other.json").write_text("[1, 2]")
    assert len(load_rows(results)) == len(rows)
    s = summarize(load_rows(results))
    assert s.configurations == ["a", "b"] and s.common == ["UD_Large", "UD_Small"]
    assert s.small() == ["UD_Small"] and s.large() == ["UD_Large"]
    assert s.mean("a", s.common) == pytest.approx((61.0 + 80.0) / 2)  # seeds averaged first
    assert s.mean("b", s.common) == pytest.approx(80.0)
    assert s.mean("a", s.common, "las") == pytest.approx((51.0 + 70.0) / 2)
    assert s.cells[("UD_Small", "a")].seeds == 2
    assert [r["treebank"] for r in s.failed] == ["UD_Broken"]
    text, written = write_report(results)
    assert "| a | 70.50 | 60.50 | 61.00 | 80.00 | 50.00 | 2.0 | – | 50 |" in text
    assert "| UD_Only_a (50) | 10.00 | – |" in text
    assert "- UD_Broken b s1: tabula train: exit status 1: boom" in text
    with open(results / "report" / "rows.csv") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows) and table[0]["train.system"] == "arc-eager" and table[0]["train.epochs"] == "2"
    assert (results / "report" / "report.md").read_text() == text
    if any(p.suffix == ".svg" for p in written):
        assert (results / "report" / "uas.svg").read_text().startswith("<?xml")
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_progress_line() -> None:
    r = row("UD_A", "a", 1, 61.234, 100)
    r.update(uas=61.234, las=50.0)
    assert progress_line(3, 12, r) == "[ 3/12] ok     UD_A a s1: UAS 61.23 LAS 50.00, 2.0 s, 50 MB"
    f = row("UD_B", "b", 2, 0, 100, status="failed")
    assert progress_line(12, 12, f) == "[12/12] failed UD_B b s2: tabula train: exit status 1: boom"


def test_engine_gaps_per_worker() -> None:
    rows = [
        {"worker": "a:1", "started_at": 11.0, "ended_at": 20.0},
        {"worker": "a:1", "started_at": 20.5, "ended_at": 30.0},
        {"worker": "b:2", "started_at": 10.0, "ended_at": 25.0},
        {"treebank": "no times"},
    ]
    between, tail = gaps(rows, ready=10.0, end=31.0)
    assert between == pytest.approx(1.0 + 0.5 + 0.0) and tail == pytest.approx(1.0 + 6.0)
    s = Summary(total=3, reused=1, ran=2, ok=2, wall_s=12.0, start_s=2.0, jobs_s=15.0, workers=2, gaps_s=0.3, tail_s=4.0)
    assert s.utilization() == pytest.approx(0.75)
    assert s.text() == (
        "2 jobs run (2 ok, 0 failed), 1 had results; 12.0 s on 2 workers (cluster start 2.0 s); the jobs' own time"
        " 15.0 s = 75.0 % of workers × the time after the start; the engine's gaps before and between jobs 0.3 s"
        " (2.00 % of the jobs' time), idle workers at the end 4.0 s"
    )


def test_slurm_job_script() -> None:
    """The Slurm workers' batch script (dask-jobqueue installed: CI's sweep check)."""
    jobqueue = pytest.importorskip("dask_jobqueue")
    from tabula_parsing.sweep.engine import slurm_options

    options = slurm_options("2G", {"queue": "cpu", "walltime": "01:00:00", "python": "/opt/venv/bin/python"})
    no_dashboard = {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
    assert options == {"cores": 1, "processes": 1, "memory": "3072MiB", "scheduler_options": no_dashboard,
                       "queue": "cpu", "walltime": "01:00:00", "python": "/opt/venv/bin/python"}
    assert slurm_options("2G", {"memory": "10G"})["memory"] == "10G"
    assert slurm_options("2G", {"scheduler_options": {"dashboard_address": ":8787"}})["scheduler_options"] == {"dashboard_address": ":8787"}
    import urllib.error
    import urllib.request

    from tabula_parsing.sweep.engine import make_cluster

    with make_cluster("slurm", 0, "2G", {"queue": "cpu", "walltime": "01:00:00", "python": "/opt/venv/bin/python"}) as cluster:
        assert isinstance(cluster, jobqueue.SLURMCluster)
        script = cluster.job_script()
        # Regression: the scheduler on the login node served Dask's dashboard on port 8787 of every interface.
        port = cluster.scheduler.http_server.port
        assert port != 8787
        for path in ("/", "/status"):
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10)
            assert e.value.code == 404, path
    assert "#SBATCH -p cpu" in script and "#SBATCH -t 01:00:00" in script and "#SBATCH --mem=3G" in script
    assert "/opt/venv/bin/python -m distributed.cli.dask_worker tcp://" in script


def test_a_sweep_without_workers_stops() -> None:
    """Regression: when every worker's Slurm job ended (scancel, walltime),
    the sweep waited for ever; it now stops once the cluster has had no
    worker for a while, and the same command continues."""
    distributed = pytest.importorskip("distributed")
    from tabula_parsing.sweep.engine import WorkersLost, completed

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0") as cluster:
        with distributed.Client(cluster) as client:
            quick = client.submit(sum, [1, 2], pure=False)
            never = client.submit(sum, [3], pure=False, resources={"NONE": 1})  # no worker can run it
            finished = completed([quick, never], client, lost_workers_s=0.5, poll_s=0.1)
            assert next(finished) is quick and quick.result() == 3
            cluster.scale(0)
            for _ in range(100):
                if not client.nthreads():
                    break
                time.sleep(0.1)
            started = time.monotonic()
            with pytest.raises(WorkersLost, match="no worker for 0 s"):
                next(finished)
            assert time.monotonic() - started < 5


def test_cpu_seconds_add_every_command() -> None:
    from tabula_parsing.sweep.report import cpu_seconds

    r = {f"{stage}_{kind}_s": 0.5 for stage in ("train", "parse", "eval") for kind in ("user", "sys")}
    assert cpu_seconds(r) == 3.0
    del r["eval_sys_s"]
    assert cpu_seconds(r) is None


@pytest.mark.parametrize("path", sorted((ROOT / "scripts" / "plans").glob("*.toml")), ids=lambda p: p.name)
def test_shipped_plans_are_valid(path: Path, cli: Path) -> None:
    from tabula_parsing.sweep.__main__ import check_options

    plan = load_plan(path)
    if any(c.parser != "tabula" for c in plan.configurations):
        pytest.importorskip("torch", reason="the neural parsers' options are read from their --help, which needs PyTorch")
    release = Path("data/toy-release") if path.stem == "quickstart" else Path("ud-treebanks-v2.0")
    assert plan.configurations and plan.release == release
    assert plan.results == Path("results") / path.stem
    check_options(plan, str(cli))
    if path.stem == "quickstart":
        found, left_out = find_treebanks(dataclasses.replace(plan, release=ROOT / release))
        assert len(found) == 3 and not left_out


FAKE_NEURAL = """\
import argparse, os, shutil, sys
command = sys.argv[1]
p = argparse.ArgumentParser()
if command == "train":
    for option in ("train", "-o", "--dev", "--seed", "--system", "--epochs", "--parser", "--trees", "--checkpoint"):
        p.add_argument(option)
else:
    for option in ("input", "--model", "-o", "--batch-size"):
        p.add_argument(option)
a = p.parse_args(sys.argv[2:])
if command == "train":
    if a.trees is not None and a.parser != "biaffine":
        sys.exit("--trees has no effect with --parser transition")
    # The checkpoint: "epoch 1" after the first epoch; with FAKE_STOP, the
    # run is stopped (Ctrl-C) there; another text is another run's.
    if a.checkpoint is not None and os.path.exists(a.checkpoint):
        if open(a.checkpoint).read() != "epoch 1":
            sys.exit(f"error: {a.checkpoint}: the checkpoint is of another training run: another version")
        print(f"{a.checkpoint}: continuing after epoch 1 of 2", file=sys.stderr)
    elif a.checkpoint is not None:
        open(a.checkpoint, "w").write("epoch 1")
        if os.environ.get("FAKE_STOP"):
            sys.exit(130)
    open(a.o, "w").write(a.train)
else:
    assert a.model.endswith("model.pt"), a.model
    shutil.copy(a.input, a.o)  # a perfect parser
"""


def test_neural_configurations(tmp_path: Path, release: Path, cli: Path) -> None:
    """`parser = "neural"`: the neural parser's train and parse (here a stand-in
    with the same command line that parses perfectly), tabula's eval."""
    from tabula_parsing.sweep.__main__ import check_options

    fake = tmp_path / "fake_neural.py"
    fake.write_text(FAKE_NEURAL)
    text = PLAN + '\n[configurations.bilstm]\nparser = "neural"\nsystem = "arc-hybrid"\nepochs = 2\nparse = {{ batch_size = 8 }}\n'
    plan = load_plan(write_plan(tmp_path, release, text))
    bilstm = plan.configurations[-1]
    assert bilstm.parser == "neural" and bilstm.train == {"system": "arc-hybrid", "epochs": 2}
    neural = (sys.executable, str(fake))
    check_options(plan, str(cli), neural)
    todo = [j for j in jobs(plan, find_treebanks(plan)[0]) if j.configuration.name == "bilstm"]
    assert "parser" in todo[0].inputs() and "parser" not in jobs(plan, find_treebanks(plan)[0])[0].inputs()
    # A neural configuration without `epochs` names the default's policy in
    # its inputs: a result trained under another default is not reused.
    assert "default_epochs" not in todo[0].inputs()
    unsaid = load_plan(write_plan(tmp_path, release, text.replace("epochs = 2\nparse", "parse")))
    (job,) = [j for j in jobs(unsaid, find_treebanks(unsaid)[0]) if j.configuration.name == "bilstm"][:1]
    assert job.inputs()["default_epochs"] == NEURAL_DEFAULT_EPOCHS
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G", neural=neural)
    settings.results.mkdir()
    row = run_job(todo[0], settings)
    assert row["status"] == "ok", row.get("error")
    assert row["uas"] == 100.0 and row["las"] == 100.0 and row["nonprojective_recall"] == 100.0
    bad = load_plan(write_plan(tmp_path, release, text.replace("epochs = 2\nparse = {{ b", "epoks = 2\nparse = {{ b")))
    with pytest.raises(PlanError, match=r"plan.toml:28: `configurations.bilstm`: `epoks` is not an option of `python -m tabula_parsing.neural train`"):
        check_options(bad, str(cli), neural)
    with pytest.raises(PlanError, match=r"plan.toml:26: `.* train --help` failed: no torch here"):
        check_options(plan, str(cli), (sys.executable, "-c", "import sys; sys.exit('no torch here')"))
    # A failing neural training says which program failed.
    broken = Settings(tabula=str(cli), results=tmp_path / "results2", max_memory="1G", neural=(sys.executable, "-c", "import sys; sys.exit('boom')"))
    broken.results.mkdir()
    row = run_job(todo[0], broken)
    assert row["status"] == "failed" and row["error"] == "neural train: exit status 1: boom"


def test_a_stopped_neural_job_continues_from_its_checkpoint(
    tmp_path: Path, release: Path, cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A neural job stopped mid-training leaves its checkpoint; the next run
    of the job continues from it (its times left out of the report's), and
    the checkpoint is removed once the job ends. A checkpoint of another
    version is discarded, and the job trained anew."""
    from tabula_parsing.sweep.job import Interrupted, checkpoint_path
    from tabula_parsing.sweep.report import cpu_seconds, wall_seconds

    fake = tmp_path / "fake_neural.py"
    fake.write_text(FAKE_NEURAL)
    plan = load_plan(write_plan(tmp_path, release, PLAN + '\n[configurations.bilstm]\nparser = "neural"\n'))
    job = [j for j in jobs(plan, find_treebanks(plan)[0]) if j.configuration.name == "bilstm"][0]
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G", neural=(sys.executable, str(fake)))
    settings.results.mkdir()
    checkpoint = checkpoint_path(settings.results, job)
    monkeypatch.setenv("FAKE_STOP", "1")
    with pytest.raises(Interrupted, match="neural train of .* was stopped"):
        run_job(job, settings)
    assert checkpoint.read_text() == "epoch 1" and not result_path(settings.results, job).exists()
    monkeypatch.delenv("FAKE_STOP")
    row = run_job(job, settings)
    assert row["status"] == "ok" and row["train_continued_after_epoch"] == 1, row
    assert cpu_seconds(row) is None and wall_seconds(row) is None
    assert not checkpoint.exists()
    result_path(settings.results, job).unlink()
    checkpoint.write_text("epoch 7 of another version")
    row = run_job(job, settings)
    assert row["status"] == "ok" and "train_continued_after_epoch" not in row, row
    assert row["train_checkpoint_discarded"].endswith("the checkpoint is of another training run: another version")
    assert cpu_seconds(row) is not None and not checkpoint.exists()


def test_biaffine_configurations(tmp_path: Path, release: Path, cli: Path) -> None:
    """`parser = "biaffine"`: the neural command's train with `--parser
    biaffine` and the configuration's options (its own, such as `trees`),
    in a job of its own."""
    from tabula_parsing.sweep.__main__ import check_options

    fake = tmp_path / "fake_neural.py"
    fake.write_text(FAKE_NEURAL)
    text = PLAN + '\n[configurations.graph]\nparser = "biaffine"\ntrees = "projective"\n'
    plan = load_plan(write_plan(tmp_path, release, text))
    graph = plan.configurations[-1]
    assert graph.parser == "biaffine" and graph.train == {"trees": "projective"}
    neural = (sys.executable, str(fake))
    check_options(plan, str(cli), neural)
    todo = [j for j in jobs(plan, find_treebanks(plan)[0]) if j.configuration.name == "graph"]
    assert todo[0].inputs()["parser"] == "biaffine"
    settings = Settings(tabula=str(cli), results=tmp_path / "results", max_memory="1G", neural=neural)
    settings.results.mkdir()
    row = run_job(todo[0], settings)
    assert row["status"] == "ok", row.get("error")  # the stand-in refuses --trees without --parser biaffine
    with pytest.raises(PlanError, match=r"must be \"tabula\", \"neural\" or \"biaffine\", not `graph`"):
        load_plan(write_plan(tmp_path, release, text.replace('parser = "biaffine"', 'parser = "graph"')))


def test_job_hash_is_stable() -> None:
    """Result names must not change between versions: a changed hash would
    run every finished job of a sweep again."""
    from tabula_parsing.sweep.plan import Configuration, Job, Treebank

    root = ROOT / "data"
    tb = Treebank("UD_Sample", "sample", train=SAMPLE, test=SAMPLE, dev=None)
    job = Job(tb, Configuration("c", {"system": "arc-eager", "epochs": 2}), 1, root, use_dev=False)
    assert job.inputs() == {
        "treebank": "UD_Sample", "train": ["sample.conllu", SAMPLE.stat().st_size], "dev": None,
        "test": ["sample.conllu", SAMPLE.stat().st_size], "train_options": {"system": "arc-eager", "epochs": 2},
        "parse_options": {}, "seed": 1,
    }  # fmt: skip
    import hashlib

    canonical = json.dumps(job.inputs(), sort_keys=True, separators=(",", ":"))
    assert job.digest == hashlib.sha256(canonical.encode()).hexdigest()[:12]
    assert job.stem == f"UD_Sample.c.s1.{job.digest}"


def test_peak_memory_of_a_command(tmp_path: Path) -> None:
    """VmHWM read while the command runs: a child that touches 64 MB shows
    at least that, a quick one not the worker's own size."""
    from tabula_parsing.sweep.job import run_command

    grow = run_command([sys.executable, "-c", "import time; b = bytearray(64 << 20); time.sleep(0.3)"], tmp_path, 1 << 30)
    assert grow.returncode == 0 and grow.maxrss_mb is not None and grow.maxrss_mb >= 64
    quick = run_command(["true"], tmp_path, 1 << 30)
    assert quick.returncode == 0 and (quick.maxrss_mb is None or quick.maxrss_mb < 10)
    over = run_command([sys.executable, "-c", "b = bytearray(1200 << 20)"], tmp_path, 1 << 30)
    assert over.returncode != 0, "the address-space bound holds"


def test_a_second_sweep_on_the_same_results_is_refused(
    tmp_path: Path, release: Path, cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: two sweeps started at once ran the same jobs in the same work folders.
    import fcntl
    import os

    from tabula_parsing.sweep.lock import LOCK_NAME, SweepLocked, hold

    results = tmp_path / "results"
    results.mkdir()
    path = write_plan(tmp_path, release)
    with hold(results):
        # Another holder (here: this process, through another descriptor) is refused at once.
        with pytest.raises(SweepLocked, match=rf"another sweep is running on this results folder \(process {os.getpid()} on "):
            with hold(results):
                pass
        assert main([str(path), "--tabula", str(cli), "--results", str(results)]) == 1
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert lines[-1].startswith(f"error: {results}: another sweep is running on this results folder (process {os.getpid()} on ")
        assert "started at" in lines[-1] and "--results" in lines[-1]
        assert not (results / "work").exists() and not list(results.glob("*.json")), "no job ran"
    # Released at the end of the block: the next sweep takes it.
    with hold(results):
        pass
    fd = os.open(results / LOCK_NAME, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def test_a_results_path_that_is_a_file_is_a_message(
    tmp_path: Path, release: Path, cli: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: a NotADirectoryError traceback.
    path = write_plan(tmp_path, release)
    afile = tmp_path / "results.txt"
    afile.write_text("notes\n")
    for results in (afile, afile / "sub"):
        status = main([str(path), "--tabula", str(cli), "--results", str(results)])
        err = capsys.readouterr().err
        assert status == 2 and "Traceback" not in err, err
        assert err.strip().splitlines()[-1].startswith("error: "), err
        assert str(afile) in err
    assert afile.read_text() == "notes\n"
    assert main(["report", str(afile)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {afile}: not a folder"


def test_report_outputs_never_replace_a_result(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    r = row("UD_A", "a", 1, 60.0, 100)
    result = results / f"{r['job']}.json"
    result.write_text(json.dumps(r))
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.md").symlink_to(result)
    with pytest.raises(OSError, match=r"report.md: it is the same file as the input .*\.json, which would be replaced"):
        write_report(results, out)
    assert json.loads(result.read_text()) == r
    assert main(["report", str(results), "--out", str(out)]) == 2


def test_the_local_cluster_serves_no_pages() -> None:
    """Regression: the local cluster served Dask's dashboard on localhost
    (port 8787) though the sweep asks for none; its HTTP servers, which Dask
    always starts, now have no pages, on a free port."""
    pytest.importorskip("distributed")
    import urllib.error
    import urllib.request

    from tabula_parsing.sweep.engine import make_cluster

    cluster = make_cluster("local", 1, "1G", {})
    try:
        ports = [cluster.scheduler.http_server.port]
        info = cluster.scheduler_info["workers"].values()
        ports += [w["services"]["dashboard"] for w in info if "dashboard" in w.get("services", {})]
        assert 8787 not in ports
        for port in ports:
            for path in ("/", "/status", "/health", "/metrics"):
                with pytest.raises(urllib.error.HTTPError) as e:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10)
                assert e.value.code == 404, (port, path)
    finally:
        cluster.close()
