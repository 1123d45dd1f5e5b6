#!/usr/bin/env bash
# The sweep (python -m tabula_parsing.sweep) end to end on a local Dask
# cluster, from the repository root:
#  - three small treebanks laid out as a UD release (UD_*/CODE-ud-PART.conllu):
#    the first sentences of ../shared/ud/v2.2's en_ewt, el_gdt (xz) and
#    la_perseus (no dev file), or data/sample.conllu three times without it;
#    two configurations, 2 epochs, small tables; tabula through a wrapper that
#    sleeps 1 s per command and logs it, so the sweep is still running when
#  - it is interrupted (SIGTERM, as Slurm's scancel sends) once the first
#    result exists: exit status 130, some results, not all;
#  - the same command then continues: it says how many jobs had results, runs
#    only the others (no finished job's command in the wrapper's log again,
#    their result files untouched), and all six jobs are ok;
#  - `report` writes the CSV (six rows), the tables and the plot;
#  - a plan with a failing configuration: that job's result says why, the
#    other job is ok, exit status 1;
#  - python/tests/test_sweep.py whole: python.sh, without Dask and
#    dask-jobqueue, skipped its tests that need them (the Slurm workers' job
#    script, the local cluster, a sweep without workers, a result written
#    meanwhile).
# Installs Dask, dask-jobqueue and matplotlib into target/venv (and the
# package, as python.sh does, if it is not there). Budget: about 2 minutes.
set -euo pipefail
VENV=${TABULA_VENV:-target/venv}
PYTHON=${PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
VENV=$(cd "$VENV" && pwd)
export VIRTUAL_ENV="$VENV" PYO3_PYTHON="$VENV/bin/python" PATH="$VENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check 'dask[distributed]' dask-jobqueue matplotlib
[ -x target/release/tabula ] || cargo build --release --bin tabula
if ! python -c 'import tabula_parsing.sweep' 2> /dev/null; then
  python -m pip install --quiet --disable-pip-version-check maturin numpy
  python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps --no-build-isolation ./python
fi
BIN=$(pwd)/target/release/tabula
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
REL=$TMP/ud-treebanks-v2.0
UD=../shared/ud/v2.2

# first N sentences of a CoNLL-U file (plain or xz) to a file, plain or xz
head_sentences() { awk -v n="$2" 'BEGIN{RS=""; ORS="\n\n"} NR<=n'; }
if [ -d "$UD" ]; then
  mkdir -p "$REL/UD_English-EWT" "$REL/UD_Greek-GDT" "$REL/UD_Latin-Perseus"
  for part in train:150 dev:30 test:40; do
    xz -dc "$UD/en_ewt-ud-${part%:*}.conllu.xz" | head_sentences - "${part#*:}" > "$REL/UD_English-EWT/en_ewt-ud-${part%:*}.conllu"
    xz -dc "$UD/el_gdt-ud-${part%:*}.conllu.xz" | head_sentences - "${part#*:}" | xz > "$REL/UD_Greek-GDT/el_gdt-ud-${part%:*}.conllu.xz"
  done
  xz -dc "$UD/la_perseus-ud-train.conllu.xz" | head_sentences - 100 > "$REL/UD_Latin-Perseus/la_perseus-ud-train.conllu"
  xz -dc "$UD/la_perseus-ud-test.conllu.xz" | head_sentences - 40 > "$REL/UD_Latin-Perseus/la_perseus-ud-test.conllu"
else
  echo "sweep.sh: $UD absent, using data/sample.conllu"
  for tb in UD_A:aa UD_B:bb UD_C:cc; do
    mkdir -p "$REL/${tb%:*}"
    for part in train dev test; do cp data/sample.conllu "$REL/${tb%:*}/${tb#*:}-ud-$part.conllu"; done
  done
fi

cat > "$TMP/slow-tabula" << EOF
#!/bin/sh
echo "\$*" >> "$TMP/calls.log"
sleep 1
exec "$BIN" "\$@"
EOF
chmod +x "$TMP/slow-tabula"
cat > "$TMP/plan.toml" << EOF
[sweep]
release = "$REL"
results = "$TMP/results"
workers = 1

[configurations.eager-static]
system = "arc-eager"
oracle = "static"
root = "last"
epochs = 2
step_bits = 14
label_bits = 12

[configurations.hybrid-dynamic]
system = "arc-hybrid"
oracle = "dynamic"
epochs = 2
step_bits = 14
label_bits = 12
EOF
RES=$TMP/results

echo "-- a sweep of 6 jobs, interrupted after the first result"
python -m tabula_parsing.sweep "$TMP/plan.toml" --tabula "$TMP/slow-tabula" > "$TMP/run1.log" 2>&1 &
PID=$!
for _ in $(seq 600); do
  compgen -G "$RES/*.json" > /dev/null && break
  kill -0 "$PID" 2> /dev/null || break
  sleep 0.2
done
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
cat "$TMP/run1.log"
[ "$rc" = 130 ] || { echo "sweep.sh: the interrupted sweep exited $rc, not 130"; exit 1; }
grep -q '^interrupted: ' "$TMP/run1.log"
first=$(find "$RES" -maxdepth 1 -name '*.json' | sort)
n1=$(echo "$first" | wc -l)
[ "$n1" -ge 1 ] && [ "$n1" -lt 6 ] || { echo "sweep.sh: $n1 results after the interruption, expected 1 to 5"; exit 1; }
stat -c '%n %.9Y' $first > "$TMP/mtimes-before"
: > "$TMP/calls.log"

echo "-- the same command continues"
python -m tabula_parsing.sweep "$TMP/plan.toml" --tabula "$TMP/slow-tabula" --workers 2 | tee "$TMP/run2.log"
grep -qx "6 jobs: $n1 have results, $((6 - n1)) to run on 2 local workers" "$TMP/run2.log"
stat -c '%n %.9Y' $first | diff "$TMP/mtimes-before" -
for f in $first; do
  if grep -q "work/$(basename "$f" .json)/" "$TMP/calls.log"; then
    echo "sweep.sh: $(basename "$f") had a result and was run again"
    exit 1
  fi
done
[ "$(grep -c ' train ' "$TMP/calls.log")" = $((6 - n1)) ]
[ "$(find "$RES" -maxdepth 1 -name '*.json' | wc -l)" = 6 ]
[ "$(grep -l '"status": "ok"' "$RES"/*.json | wc -l)" = 6 ]

echo "-- a third run has nothing to do"
python -m tabula_parsing.sweep "$TMP/plan.toml" --tabula "$BIN" > "$TMP/run-nothing.log"
grep -qx "6 jobs: 6 have results, 0 to run on 1 local workers" "$TMP/run-nothing.log"

echo "-- report"
python -m tabula_parsing.sweep report "$RES"
[ "$(python -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$RES/report/rows.csv")" = 6 ]
grep -q '^| eager-static | ' "$RES/report/report.md"
grep -q '^| hybrid-dynamic | ' "$RES/report/report.md"
grep -q '<svg' "$RES/report/uas.svg"

echo "-- a failing configuration: its result says why, the other job is ok"
sed -e "s|$TMP/results|$TMP/results-failing|" -e 's/system = "arc-hybrid"/system = "arc-nope"/' \
  -e 's/^treebanks.*//' "$TMP/plan.toml" > "$TMP/failing.toml"
sed -i "s|^release = .*|&\ntreebanks = [\"$(basename "$(find "$REL" -mindepth 1 -maxdepth 1 | sort | head -1)")\"]|" "$TMP/failing.toml"
rc=0
python -m tabula_parsing.sweep "$TMP/failing.toml" --tabula "$BIN" > "$TMP/run3.log" 2>&1 || rc=$?
cat "$TMP/run3.log"
[ "$rc" = 1 ]
grep -q '^\[./2\] failed .* hybrid-dynamic s1: tabula train: exit status 1: .*arc-nope' "$TMP/run3.log"
grep -q '^\[./2\] ok .* eager-static s1: UAS' "$TMP/run3.log"
echo "-- the sweep's tests that need Dask or dask-jobqueue (installed now; python.sh skipped them)"
python -m pytest -q -p no:cacheprovider python/tests/test_sweep.py
echo "sweep.sh: ok"
