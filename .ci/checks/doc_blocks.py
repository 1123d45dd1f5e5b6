#!/usr/bin/env python3
"""Runs every ```sh block of README.md and docs/*.md as written, on small inputs.

Each block runs with bash (errexit, pipefail) in one scratch folder per file,
in order, so a block may use the files an earlier block of its page made. The
scratch folder stands where a user's working copy would: `data/`, `scripts/`,
`target/`, … are links to the repository, `tabula` is the release build, and
the treebanks the docs name exist in small form: `../shared/ud/v2.2/*.xz` as
the first sentences of the shared files (or of data/sample.conllu when
../shared/ud is absent), and their decompressed copies `NAME-ud-PART.conllu`
in the folder itself; `python` is target/venv's, where .ci/checks/python.sh
and python_neural.sh installed the package and PyTorch. The scripts run a small part of their tables: one seed
(SEEDS), few epochs (EPOCHS, E1, E2), one system (SYSTEMS), two regimes
(REGIMES) or columns (COLUMNS), one run (RUNS), one training iteration of
UDPipe (UDPIPE_OPTS). `cargo` runs in the repository (`cargo install` into
the scratch folder); `cargo test` is skipped, since CI runs it anyway.

A block whose lines start with `$ ` is a transcript: each command runs, and
its standard output must be the lines that follow it (when there are any).

Usage: .ci/checks/doc_blocks.py [FILE.md ...]   (from the repository root)
"""

import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path.cwd()
WORK = REPO / "target" / "doc-blocks"
SENTENCES = {"train": 100, "dev": 40, "test": 40}
TIMEOUT = 600


def blocks(path):
    """(line, text) of every ```sh block of `path`."""
    text = path.read_text()
    for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        yield text[: m.start()].count("\n") + 1, m.group(1)


def first_sentences(raw, count, longest=25):
    """The first `count` sentences of at most `longest` words."""
    out, n = [], 0
    for block in raw.split("\n\n"):
        words = sum(1 for l in block.splitlines() if l.split("\t", 1)[0].isdigit())
        if block.strip() and words <= longest:
            out.append(block.strip("\n") + "\n")
            n += 1
            if n == count:
                break
    return "\n".join(out) + "\n"


def filled(text):
    """`text` with every empty XPOS set to the word's UPOS and every empty
    FEATS to `Case=Nom`: a stand-in for a treebank has every column the
    docs' commands read (`--xpos`, `--feats`)."""
    out = []
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) == 10 and f[0].isdigit():
            f[4] = f[3] if f[4] == "_" else f[4]
            f[5] = "Case=Nom" if f[5] == "_" else f[5]
        out.append("\t".join(f))
    return "\n".join(out) + "\n"


def stand_ins(shared):
    """Small copies of the shared treebanks under `shared`/ud/v2.2."""
    v22 = shared / "ud" / "v2.2"
    v22.mkdir(parents=True, exist_ok=True)
    real = REPO.parent / "shared" / "ud" / "v2.2"
    names = sorted(p.name for p in real.glob("*.conllu.xz")) if real.is_dir() else []
    if not names:
        names = [f"{tb}-ud-{part}.conllu.xz" for tb in ("el_gdt", "en_ewt", "la_perseus", "de_gsd")
                 for part in ("train", "dev", "test")]
    sample = filled((REPO / "data" / "sample.conllu").read_text())
    for name in names:
        part = name.split("-ud-")[1].split(".")[0]
        raw = lzma.open(real / name, "rt").read() if (real / name).exists() else sample * 20
        small = first_sentences(raw, SENTENCES.get(part, 100))
        with lzma.open(v22 / name, "wt") as f:
            f.write(small)
    return v22


def scratch(name, v22):
    """A fresh folder standing where a working copy would."""
    d = WORK / "repo" / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for entry in REPO.iterdir():
        if entry.name not in (".git",):
            (d / entry.name).symlink_to(entry)
    for xz in v22.glob("*.conllu.xz"):
        (d / xz.name[: -len(".xz")]).write_text(lzma.open(xz, "rt").read())
    # ../shared from the folder: WORK/repo/shared.
    return d


def cargo_wrapper(bin_dir):
    real = shutil.which("cargo")
    bin_dir.mkdir(parents=True, exist_ok=True)
    w = bin_dir / "cargo"
    w.write_text(f"""#!/usr/bin/env bash
# cargo in the repository; `cargo test` is what CI runs anyway.
if [ "${{1:-}}" = test ]; then echo "(doc blocks: cargo test is run by .ci/run itself)"; exit 0; fi
cd {REPO} && CARGO_TARGET_DIR={REPO}/target exec {real} "$@"
""")
    w.chmod(0o755)


def run_transcript(body, env, cwd):
    """Runs the `$ ` commands of a transcript block; checks their output."""
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        cmd = lines[i][2:]
        expected = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=TIMEOUT)
        if r.returncode != 0:
            return f"`{cmd}` exited with {r.returncode}:\n{r.stderr}"
        if expected and r.stdout.splitlines() != expected:
            return f"`{cmd}` printed\n{r.stdout}instead of\n" + "\n".join(expected)
    return None


def main():
    files = [Path(f) for f in sys.argv[1:]] or [Path("README.md"), *sorted(Path("docs").glob("*.md"))]
    shutil.rmtree(WORK, ignore_errors=True)
    v22 = stand_ins(WORK / "repo" / "shared")
    cargo_wrapper(WORK / "bin")
    env = dict(os.environ)
    # The Python package (and PyTorch) as .ci/checks/python*.sh installed them.
    venv = REPO / "target" / "venv" / "bin"
    python_path = f"{venv}:" if venv.is_dir() else ""
    env.update(PATH=f"{WORK / 'bin'}:{REPO / 'target' / 'release'}:{python_path}{env['PATH']}",
               CARGO_INSTALL_ROOT=str(WORK / "cargo-home"), SEEDS="1", EPOCHS="2", E1="1", E2="1", RUNS="1",
               SYSTEMS="arc-hybrid", REGIMES="greedy-dynamic max-violation-restart", COLUMNS="1 7",
               UDPIPE_OPTS="iterations=1", NICE="0")
    failed = 0
    for f in files:
        cwd = None
        for line, body in blocks(f):
            if cwd is None:
                cwd = scratch(f.stem, v22)
            start = time.time()
            try:
                if all(l.startswith("$ ") or not l.startswith(" ") for l in body.splitlines()) and \
                        body.startswith("$ "):
                    error = run_transcript(body, env, cwd)
                else:
                    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=cwd, env=env,
                                       capture_output=True, text=True, timeout=TIMEOUT)
                    error = None if r.returncode == 0 else f"exit {r.returncode}:\n{r.stderr[-3000:]}"
            except subprocess.TimeoutExpired:
                error = f"did not finish in {TIMEOUT} s"
            took = time.time() - start
            if error:
                failed += 1
                print(f"FAIL {f}:{line} ({took:.1f} s): {error}")
            else:
                print(f"ok   {f}:{line} ({took:.1f} s)")
    if failed:
        sys.exit(f"{failed} doc block(s) failed")


if __name__ == "__main__":
    main()
