#!/usr/bin/env bash
# The seeds' training experiments: trains, parses and
# evaluates every (treebank, system, column, seed) and prints mean and spread
# (min–max) of test UAS / LAS over the seeds.
#
# Columns (Nederhof 2019, Sec. 8.3, Table 7; the first pass follows gold
# computations, the second uses the dynamic oracle with exploration):
#   1  static, projective subset                        (E1+E2 epochs)
#   2  static, all trees optimally projectivized        (E1+E2 epochs)
#   3  = 1 for E1 epochs, then dynamic (linear) on optimally projectivized trees (E2 epochs)
#   4  = 2 for E1 epochs, then dynamic (linear) on optimally projectivized trees
#   5  = 2 for E1 epochs, then dynamic (cubic) on the original trees
#   6  = static on lifted trees for E1 epochs, then dynamic (linear) on lifted trees
#   7  dynamic (linear) with exploration, optimally projectivized, single pass (E1+E2 epochs):
#      with column 2, static vs dynamic (seed 000, PanParser)
# The model of the last epoch is evaluated (no dev set: la_perseus has none).
# arc-eager-nm has one dynamic oracle, its exact table: "linear" and "cubic"
# above stand for --algorithm tabular there (on the same gold trees).
#
# Usage: scripts/training-table.sh  (from the repo root; needs ../shared/ud)
# Environment: TREEBANKS (default "el_gdt"), SYSTEMS (default all three),
# COLUMNS (default "1 2 3 4 5 6 7"), SEEDS (default "1 2 3"), E1 (8), E2 (4),
# EXPLORE_P (0.9), EXTRA (more `train` options for every pass, e.g. table
# sizes "--step-bits 18 --label-bits 16"), OUT (a directory for models and
# logs; default a temp dir; results.tsv there is appended to).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
TREEBANKS=${TREEBANKS:-el_gdt}
SYSTEMS=${SYSTEMS:-arc-standard arc-hybrid arc-eager}
COLUMNS=${COLUMNS:-1 2 3 4 5 6 7}
SEEDS=${SEEDS:-1 2 3}
E1=${E1:-8}
E2=${E2:-4}
EXPLORE_P=${EXPLORE_P:-0.9}
read -r -a EXTRA <<< "${EXTRA:-}"
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
RESULTS="$OUT/results.tsv"
touch "$RESULTS"
for tb in $TREEBANKS; do
  for part in train test; do
    [ -f "$OUT/$tb-$part.conllu" ] || xz -dc "$UD/$tb-ud-$part.conllu.xz" > "$OUT/$tb-$part.conllu"
  done
  TRAIN="$OUT/$tb-train.conllu"
  for sys in $SYSTEMS; do
    for col in $COLUMNS; do
      for seed in $SEEDS; do
        m="$OUT/$tb-$sys-$col-$seed"
        common=(--system "$sys" --seed "$seed" "${EXTRA[@]}")
        linear=linear cubic=cubic
        [ "$sys" = arc-eager-nm ] && linear=tabular cubic=tabular
        both=$((E1 + E2))
        start=$(date +%s.%N)
        case $col in
          1) "$BIN" train "$TRAIN" -o "$m.model" "${common[@]}" --oracle static --skip-nonprojective --epochs $both ;;
          2) "$BIN" train "$TRAIN" -o "$m.model" "${common[@]}" --oracle static --projectivize optimal --epochs $both ;;
          3|4|5|6)
            case $col in
              3) first=(--skip-nonprojective); second=(--projectivize optimal --algorithm $linear) ;;
              4) first=(--projectivize optimal); second=(--projectivize optimal --algorithm $linear) ;;
              5) first=(--projectivize optimal); second=(--projectivize none --algorithm $cubic) ;;
              6) first=(--projectivize lift); second=(--projectivize lift --algorithm $linear) ;;
            esac
            "$BIN" train "$TRAIN" -o "$m.pass1.model" "${common[@]}" --oracle static "${first[@]}" --epochs "$E1"
            "$BIN" train "$TRAIN" -o "$m.model" "${common[@]}" --init "$m.pass1.model" --oracle dynamic \
              --explore-from 0 --explore-p "$EXPLORE_P" "${second[@]}" --epochs "$E2" ;;
          7) "$BIN" train "$TRAIN" -o "$m.model" "${common[@]}" --oracle dynamic --algorithm $linear \
               --projectivize optimal --explore-from 1 --explore-p "$EXPLORE_P" --epochs $both ;;
        esac 2> "$m.log"
        end=$(date +%s.%N)
        "$BIN" parse --model "$m.model" "$OUT/$tb-test.conllu" -o "$m.test.conllu"
        "$BIN" eval "$OUT/$tb-test.conllu" "$m.test.conllu" --json > "$m.eval.json"
        python3 - "$m.eval.json" "$tb" "$sys" "$col" "$seed" "$start" "$end" >> "$RESULTS" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("\t".join(sys.argv[2:6] + ["%.2f" % j["all"]["uas"], "%.2f" % j["all"]["las"], "%.1f" % (float(sys.argv[7]) - float(sys.argv[6]))]))
PY
        tail -n 1 "$RESULTS" >&2
      done
    done
  done
done
python3 - "$RESULTS" <<'PY'
import sys, collections
rows = collections.defaultdict(list)
cols = []
for line in open(sys.argv[1]):
    tb, sys_, col, seed, uas, las, secs = line.split("\t")
    rows[(tb, sys_)].append((col, float(uas), float(las), float(secs)))
    if col not in cols:
        cols.append(col)
def cell(vals):
    m = sum(vals) / len(vals)
    return "%.2f (%.2f–%.2f)" % (m, min(vals), max(vals)) if len(vals) > 1 else "%.2f" % m
print("test UAS / LAS: mean (min–max) over seeds; training seconds (mean, wall clock)")
print("| treebank | system | " + " | ".join("col %s" % c for c in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for (tb, s), vals in rows.items():
    out = []
    for c in cols:
        v = [x for x in vals if x[0] == c]
        if not v:
            out.append("")
            continue
        out.append("UAS %s<br>LAS %s<br>%.0f s" % (cell([x[1] for x in v]), cell([x[2] for x in v]), sum(x[3] for x in v) / len(v)))
    print("| %s | %s | %s |" % (tb, s, " | ".join(out)))
PY
