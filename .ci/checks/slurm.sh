#!/usr/bin/env bash
# The sweep on a real Slurm cluster of one node, this machine, from the
# repository root:
#  - Debian's slurmctld, slurmd, slurm-client and munge, installed with apt
#    when absent (skipped, with a message, without apt, network or root);
#  - munged with a fresh key and slurmctld/slurmd with a generated
#    slurm.conf, everything (key, socket, state, spool, logs, free ports) in
#    a temporary folder; shut down and removed at the end;
#  - a plan with scheduler = "slurm" (two treebanks of data/toy-release, two
#    configurations, 2 epochs, 2 workers: two Slurm jobs through
#    dask-jobqueue, their logs in the [sweep.slurm] log_directory): all four
#    jobs ok;
#  - the same on a fresh results folder, tabula through a wrapper that sleeps
#    2 s per command, its workers' Slurm jobs cancelled (scancel) once the
#    first result exists: the sweep stops by itself (exit status 130, "every
#    worker left the cluster"), some results, not all;
#  - the same command then continues on new Slurm jobs: it says how many jobs
#    had results, the finished ones are untouched, all four are ok.
# Uses target/venv (TABULA_VENV) with dask-jobqueue, installed as sweep.sh
# does when missing, and target/release/tabula (TABULA_BIN). About a minute
# and a half, most of it the workers' start and the 20 s the sweep waits for
# lost workers to come back.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "slurm.sh: skipped: starting slurmd and munged needs root"
  exit 0
fi
need=()
for tool in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${tool%:*}" > /dev/null || need+=("${tool#*:}")
done
if [ "${#need[@]}" -gt 0 ]; then
  if ! command -v apt-get > /dev/null \
    || ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } > /dev/null 2>&1; then
    echo "slurm.sh: skipped: cannot install ${need[*]} with apt-get (no apt or no network)"
    exit 0
  fi
fi

VENV=${TABULA_VENV:-target/venv}
PYTHON=${PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
VENV=$(cd "$VENV" && pwd)
export VIRTUAL_ENV="$VENV" PYO3_PYTHON="$VENV/bin/python" PATH="$VENV/bin:$PATH"
if ! python -c 'import distributed, dask_jobqueue' 2> /dev/null; then
  python -m pip install --quiet --disable-pip-version-check 'dask[distributed]' dask-jobqueue
fi
BIN=${TABULA_BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --bin tabula
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
if ! python -c 'import tabula_parsing.sweep' 2> /dev/null; then
  python -m pip install --quiet --disable-pip-version-check maturin numpy
  python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps --no-build-isolation ./python
fi
RELEASE=$(pwd)/data/toy-release

TMP=$(mktemp -d)
chmod 755 "$TMP"
export SLURM_CONF=$TMP/slurm.conf
stop_pid() { # the daemon whose pid file is $1, if it runs: TERM, then KILL after 10 s
  [ -s "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  kill -TERM "$pid" 2> /dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2> /dev/null || true
}
cleanup() {
  if [ -s "$TMP/slurmctld.pid" ]; then
    scancel --full --quiet $(squeue -h -o %i 2> /dev/null) 2> /dev/null || true
    for _ in $(seq 100); do [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break; sleep 0.1; done
  fi
  stop_pid "$TMP/slurmd.pid"
  stop_pid "$TMP/slurmctld.pid"
  stop_pid "$TMP/munge/munged.pid"
  rm -rf "$TMP"
}
trap cleanup EXIT

echo "-- a one-node Slurm cluster"
install -d -m 711 "$TMP/munge"
dd if=/dev/urandom of="$TMP/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$TMP/munge/munge.key"
munged --force --key-file="$TMP/munge/munge.key" --socket="$TMP/munge/socket" --pid-file="$TMP/munge/munged.pid" \
  --seed-file="$TMP/munge/munged.seed" --log-file="$TMP/munge/munged.log"
mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log"
read -r CTLD_PORT SLURMD_PORT < <(python -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')
NODE=$(hostname -s)
MEMORY=$(awk '/^MemTotal:/ { print int($2 / 1024) - 512 }' /proc/meminfo)
cat > "$SLURM_CONF" << EOF
ClusterName=tabulaci
SlurmctldHost=$NODE
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge/socket
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=5
MinJobAge=10
NodeName=$NODE CPUs=$(nproc) RealMemory=$MEMORY State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
state=
for _ in $(seq 120); do
  state=$(sinfo -h -N -o %T 2> /dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  echo "slurm.sh: the node is '$state', not idle, after 60 s"
  tail -n 20 "$TMP/log/slurmctld.log" "$TMP/log/slurmd.log" "$TMP/munge/munged.log" || true
  exit 1
fi
sinfo

plan() { # the plan with results folder $1
  cat << EOF
[sweep]
release = "$RELEASE"
treebanks = ["UD_Toy_Alpha", "UD_Toy_Beta"]
results = "$1"
scheduler = "slurm"
workers = 2
max_memory = "1G"

[sweep.slurm]
queue = "debug"
walltime = "00:10:00"
python = "$VENV/bin/python"
log_directory = "$TMP/worker-logs"
local_directory = "$TMP/dask"
job_extra_directives = ["--job-name=tabula-sweep"]

[configurations.eager-static]
system = "arc-eager"
oracle = "static"
epochs = 2

[configurations.hybrid-dynamic]
system = "arc-hybrid"
oracle = "dynamic"
epochs = 2
EOF
}
ok_results() { grep -l '"status": "ok"' "$1"/*.json 2> /dev/null | wc -l; }
fail() {
  echo "slurm.sh: $*"
  tail -n 20 "$TMP/log/slurmctld.log" "$TMP/log/slurmd.log" "$TMP"/worker-logs/*.err 2> /dev/null || true
  exit 1
}

echo "-- a sweep of 4 jobs on 2 Slurm workers"
plan "$TMP/results" > "$TMP/plan.toml"
python -m tabula_parsing.sweep "$TMP/plan.toml" --tabula "$BIN" 2>&1 | tee "$TMP/run1.log"
grep -qx "4 jobs: 0 have results, 4 to run on 2 slurm workers" "$TMP/run1.log" || fail "no first line"
[ "$(ok_results "$TMP/results")" = 4 ] || fail "$(ok_results "$TMP/results") jobs ok, not 4"
workers=$(find "$TMP/worker-logs" -name 'dask-worker-*.err' | wc -l)
[ "$workers" = 2 ] || fail "$workers Slurm job logs, not 2"
grep -q 'Registered to: *tcp://' "$TMP"/worker-logs/*.err || fail "no worker registered"

echo "-- a sweep whose workers' Slurm jobs are cancelled after the first result"
cat > "$TMP/slow-tabula" << EOF
#!/bin/sh
sleep 2
exec "$BIN" "\$@"
EOF
chmod +x "$TMP/slow-tabula"
RES=$TMP/results-cancelled
plan "$RES" > "$TMP/plan2.toml"
python -m tabula_parsing.sweep "$TMP/plan2.toml" --tabula "$TMP/slow-tabula" > "$TMP/run2.log" 2>&1 &
PID=$!
for _ in $(seq 600); do
  compgen -G "$RES/*.json" > /dev/null && break
  kill -0 "$PID" 2> /dev/null || break
  sleep 0.2
done
jobs_running=$(squeue -h -o %i)
echo "scancel" $jobs_running
# shellcheck disable=SC2086
scancel $jobs_running
rc=0
wait "$PID" || rc=$?
cat "$TMP/run2.log"
[ "$rc" = 130 ] || fail "the sweep without workers exited $rc, not 130"
grep -q '^stopped: every worker left the cluster' "$TMP/run2.log" || fail "no 'stopped' line"
first=$(find "$RES" -maxdepth 1 -name '*.json' | sort)
n1=$(echo "$first" | wc -l)
[ "$n1" -ge 1 ] && [ "$n1" -lt 4 ] || fail "$n1 results after the scancel, expected 1 to 3"
# shellcheck disable=SC2086
stat -c '%n %.9Y' $first > "$TMP/mtimes-before"

echo "-- the same command continues on new Slurm jobs"
python -m tabula_parsing.sweep "$TMP/plan2.toml" --tabula "$TMP/slow-tabula" 2>&1 | tee "$TMP/run3.log"
grep -qx "4 jobs: $n1 have results, $((4 - n1)) to run on 2 slurm workers" "$TMP/run3.log" || fail "no first line"
# shellcheck disable=SC2086
stat -c '%n %.9Y' $first | diff "$TMP/mtimes-before" - || fail "a finished job's result changed"
[ "$(ok_results "$RES")" = 4 ] || fail "$(ok_results "$RES") jobs ok, not 4"
echo "slurm.sh: ok"
