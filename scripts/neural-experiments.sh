#!/usr/bin/env bash
# The neural parser's experiments (docs/neural.md): for each treebank,
# variant and seed, `python -m tabula_parsing.neural train` (the epoch of the
# best dev LAS kept; the last epoch where the treebank has no dev file),
# `parse` of the test file, then `tabula eval --json --nonprojective`. One
# TSV row per run: test UAS, LAS, recall of the gold non-projective arcs, the
# epoch kept, the mean CPU time of an epoch and the share of the wall time in
# the oracle and the minibatch API. tabula's perceptron is trained, parsed and
# scored beside it on the same files and seeds (PERCEPTRON variants, `tabula
# train` options). scripts/neural-table.py turns the rows into the tables of
# docs/neural.md (mean and spread over the seeds).
# Usage: scripts/neural-experiments.sh [TREEBANK...]   (default en_ewt el_gdt la_perseus; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/neural-experiments),
# SEEDS ("1 2 3"), EPOCHS (20), NICE (10), THREADS (PyTorch's, default 2),
# PYTHON (python3 with tabula_parsing[torch] installed), VARIANTS
# (NAME=OPTIONS separated by `;`, default below; empty: none), PERCEPTRON (the same for
# `tabula train`; empty: none).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/neural-experiments}
NICE=${NICE:-10}
SEEDS=${SEEDS:-1 2 3}
EPOCHS=${EPOCHS:-20}
THREADS=${THREADS:-2}
PYTHON=${PYTHON:-python3}
VARIANTS=${VARIANTS-"ah-static=--system arc-hybrid --oracle static;ah-dynamic=--system arc-hybrid;ae-dynamic=--system arc-eager;nm=--system arc-eager-nm --projectivize none;attardi=--system attardi --projectivize none;ah-pseudo=--system arc-hybrid --pseudo-projective head"}
PERCEPTRON=${PERCEPTRON-"perceptron-greedy=--epochs 15;perceptron-beam8=--beam 8 --update max-violation --restart --epochs 15"}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
mkdir -p "$OUT"
variants=()
[ -n "$VARIANTS" ] && IFS=';' read -r -a variants <<< "$VARIANTS"
perceptrons=()
[ -n "$PERCEPTRON" ] && IFS=';' read -r -a perceptrons <<< "$PERCEPTRON"
ROWS="$OUT/results.tsv"
[ -f "$ROWS" ] || printf 'treebank\tvariant\tseed\tepoch\tuas\tlas\tnp_recall\tepoch_cpu_s\toracle_pct\n' > "$ROWS"
for TB in ${@:-en_ewt el_gdt la_perseus}; do
  D="$OUT/$TB"
  mkdir -p "$D"
  for part in train dev test; do
    f="$UD/$TB-ud-$part.conllu.xz"
    [ -f "$f" ] && { [ -f "$D/$part.conllu" ] || xz -dc "$f" > "$D/$part.conllu"; }
  done
  dev=()
  [ -f "$D/dev.conllu" ] && dev=(--dev "$D/dev.conllu")
  for seed in $SEEDS; do
    for v in ${variants[@]+"${variants[@]}"}; do
      name=${v%%=*}
      read -r -a opts <<< "${v#*=}"
      m="$D/$name.s$seed.pt"
      log="$D/$name.s$seed.log"
      if ! grep -q "^$TB	$name	$seed	" "$ROWS"; then
        nice -n "$NICE" "$PYTHON" -m tabula_parsing.neural train "$D/train.conllu" -o "$m" ${dev[@]+"${dev[@]}"} \
          --epochs "$EPOCHS" --seed "$seed" --threads "$THREADS" ${opts[@]+"${opts[@]}"} 2> "$log"
        nice -n "$NICE" "$PYTHON" -m tabula_parsing.neural parse --model "$m" "$D/test.conllu" -o "$D/$name.s$seed.conllu"
        "$BIN" eval "$D/test.conllu" "$D/$name.s$seed.conllu" --json --nonprojective > "$D/$name.s$seed.json"
        "$PYTHON" - "$TB" "$name" "$seed" "$log" "$D/$name.s$seed.json" >> "$ROWS" <<'EOF'
import json, re, sys
tb, name, seed, log, scores = sys.argv[1:]
d = json.load(open(scores))
lines = open(log).read()
epochs = re.findall(r"epoch \d+: loss [0-9.]+, ([0-9.]+) s \(oracle and batch API ([0-9.]+) %, CPU ([0-9.]+) s(?:, [^)]*)?\)", lines)
kept = re.search(r"epoch (\d+) kept", lines).group(1)
secs = sum(float(c) for _, _, c in epochs) / len(epochs)
share = sum(float(p) for _, p, _ in epochs) / len(epochs)
print(f"{tb}\t{name}\t{seed}\t{kept}\t{d['all']['uas']:.2f}\t{d['all']['las']:.2f}\t{d['nonprojective']['recall']:.2f}\t{secs:.1f}\t{share:.1f}")
EOF
      fi
      tail -1 "$ROWS"
    done
    for v in ${perceptrons[@]+"${perceptrons[@]}"}; do
      name=${v%%=*}
      read -r -a opts <<< "${v#*=}"
      m="$D/$name.s$seed.model"
      if ! grep -q "^$TB	$name	$seed	" "$ROWS"; then
        nice -n "$NICE" "$BIN" train "$D/train.conllu" -o "$m" ${dev[@]+"${dev[@]}"} --seed "$seed" \
          ${opts[@]+"${opts[@]}"} 2> "$D/$name.s$seed.log"
        nice -n "$NICE" "$BIN" parse --model "$m" "$D/test.conllu" -o "$D/$name.s$seed.conllu" 2>> "$D/$name.s$seed.log"
        "$BIN" eval "$D/test.conllu" "$D/$name.s$seed.conllu" --json --nonprojective > "$D/$name.s$seed.json"
        "$PYTHON" - "$TB" "$name" "$seed" "$D/$name.s$seed.json" >> "$ROWS" <<'EOF'
import json, sys
tb, name, seed, scores = sys.argv[1:]
d = json.load(open(scores))
print(f"{tb}\t{name}\t{seed}\t-\t{d['all']['uas']:.2f}\t{d['all']['las']:.2f}\t{d['nonprojective']['recall']:.2f}\t-\t-")
EOF
      fi
      tail -1 "$ROWS"
    done
  done
done
