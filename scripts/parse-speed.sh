#!/usr/bin/env bash
# Parsing speed of a model: `tabula parse --threads 1` on a file,
# RUNS times (default 5); prints the median wall-clock and CPU-time (user +
# sys) tokens/s and the load (`uptime`) before and after, since the machine
# may be shared. Usage: scripts/parse-speed.sh MODEL FILE.conllu
set -euo pipefail
MODEL=$1
FILE=$2
RUNS=${RUNS:-5}
BIN=${BIN:-target/release/tabula}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "load before: $(uptime)"
tokens=$(awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/' "$FILE" | wc -l)
for _ in $(seq "$RUNS"); do
  /usr/bin/time -f "%e %U %S" -o "$TMP/t" "$BIN" parse --model "$MODEL" "$FILE" -o "$TMP/out.conllu" --threads 1 --stats 2>> "$TMP/stats"
  cat "$TMP/t" >> "$TMP/times"
done
echo "load after: $(uptime)"
python3 - "$TMP/times" "$TMP/stats" "$tokens" <<'PY'
import re, statistics, sys
times = [list(map(float, l.split())) for l in open(sys.argv[1])]
inner = [float(m) for m in re.findall(r"\((\d+) tokens/s", open(sys.argv[2]).read())]
n = int(sys.argv[3])
wall = statistics.median(t[0] for t in times)
cpu = statistics.median(t[1] + t[2] for t in times)
print(f"{n} tokens, {len(times)} runs: median wall {wall:.2f} s ({n / wall:,.0f} tokens/s, process incl. model loading), "
      f"median CPU {cpu:.2f} s ({n / cpu:,.0f} tokens/s), median --stats {statistics.median(inner):,.0f} tokens/s (parsing loop, wall)")
PY
