#!/usr/bin/env bash
# The ensemble table (docs/ensemble.md): five greedy
# parsers trained on TREEBANK (arc-standard with seeds 1–3, arc-hybrid and
# arc-eager, seed 1; gold tags), each parsing test, then `tabula ensemble`
# of the five (equal weights; any tree, and --projective) and of the three
# systems; every file scored by `tabula eval`.
# Usage: scripts/ensemble-table.sh [TREEBANK]   (default el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/ensemble-table/TREEBANK),
# EPOCHS (default 15), NICE (default 10).
set -euo pipefail
TB=${1:-el_gdt}
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/ensemble-table/$TB}
NICE=${NICE:-10}
EPOCHS=${EPOCHS:-15}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
mkdir -p "$OUT"
for part in train dev test; do
  [ -f "$OUT/$part.conllu" ] || xz -dc "$UD/$TB-ud-$part.conllu.xz" > "$OUT/$part.conllu"
done
echo "load before: $(uptime)"
score() { "$BIN" eval "$OUT/test.conllu" "$1" | sed -n 2p | sed 's/all words: *//'; }
runs=("arc-standard 1" "arc-standard 2" "arc-standard 3" "arc-hybrid 1" "arc-eager 1")
files=()
for run in "${runs[@]}"; do
  set -- $run
  name="$1-$2"
  strategy=()
  [ "$1" = arc-standard ] && strategy=(--strategy none)
  nice -n "$NICE" "$BIN" train "$OUT/train.conllu" -o "$OUT/$name.model" --dev "$OUT/dev.conllu" --system "$1" \
    "${strategy[@]}" --oracle dynamic --epochs "$EPOCHS" --seed "$2" 2> "$OUT/$name.train.log"
  nice -n "$NICE" "$BIN" parse --model "$OUT/$name.model" "$OUT/test.conllu" -o "$OUT/$name.conllu"
  files+=("$OUT/$name.conllu")
  echo "| $1, seed $2 | $(score "$OUT/$name.conllu") |"
done
for shape in any projective; do
  flag=()
  [ "$shape" = projective ] && flag=(--projective)
  "$BIN" ensemble "${files[@]}" "${flag[@]}" -o "$OUT/all.$shape.conllu" 2> /dev/null
  echo "| ensemble of the 5, $shape trees | $(score "$OUT/all.$shape.conllu") |"
  "$BIN" ensemble "${files[0]}" "${files[3]}" "${files[4]}" "${flag[@]}" -o "$OUT/systems.$shape.conllu" 2> /dev/null
  echo "| ensemble of the 3 systems (seed 1), $shape trees | $(score "$OUT/systems.$shape.conllu") |"
done
echo "load after: $(uptime)"
