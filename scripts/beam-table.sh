#!/usr/bin/env bash
# Greedy vs beam search with global training (Aufrant & Wisniewski 2018,
# Table 2's columns): for each treebank, system and regime, 3 seeds, train
# on TREEBANK-ud-train (dev selection on TREEBANK-ud-dev when it exists,
# else the last epoch), parse TREEBANK-ud-test, and print one markdown row
# per (treebank, system, regime): test UAS / LAS, mean of the seeds and
# their spread (max − min), and the mean training seconds per epoch.
#
# Usage: scripts/beam-table.sh [TREEBANK ...]   (default: el_gdt la_perseus; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/beam-table), BIN
# (target/release/tabula), SYSTEMS (default "arc-eager arc-hybrid arc-standard"),
# ROOTS (default "first"; "first last" adds arc-eager and arc-hybrid with the root last),
# REGIMES (names below), SEEDS (default "1 2 3"), EPOCHS (default 10),
# BEAM (default 8), EXTRA (more train options, e.g. "--feats").
#
# Regimes: greedy-static, greedy-dynamic (error exploration), early,
# early-restart, max-violation, max-violation-restart (beam BEAM, global
# dynamic oracle).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/beam-table}
BIN=${BIN:-target/release/tabula}
SYSTEMS=${SYSTEMS:-arc-eager arc-hybrid arc-standard}
ROOTS=${ROOTS:-first}
REGIMES=${REGIMES:-greedy-static greedy-dynamic early early-restart max-violation max-violation-restart}
SEEDS=${SEEDS:-1 2 3}
EPOCHS=${EPOCHS:-10}
BEAM=${BEAM:-8}
EXTRA=${EXTRA:-}
[ -x "$BIN" ] || cargo build --release --quiet
[ $# -gt 0 ] || set -- el_gdt la_perseus
mkdir -p "$OUT"
regime_args() {
  case $1 in
    greedy-static) echo "--oracle static" ;;
    greedy-dynamic) echo "--oracle dynamic" ;;
    early) echo "--beam $BEAM --update early" ;;
    early-restart) echo "--beam $BEAM --update early --restart" ;;
    max-violation) echo "--beam $BEAM --update max-violation" ;;
    max-violation-restart) echo "--beam $BEAM --update max-violation --restart" ;;
    *) echo "unknown regime $1" >&2; exit 2 ;;
  esac
}
echo "| treebank | system | regime | test UAS (spread) | test LAS (spread) | s / epoch |"
echo "|---|---|---|---|---|---|"
for tb in "$@"; do
  for part in train dev test; do
    f="$UD/$tb-ud-$part.conllu.xz"
    [ -f "$f" ] && [ ! -f "$OUT/$tb-$part.conllu" ] && xz -dc "$f" > "$OUT/$tb-$part.conllu"
  done
  dev=()
  [ -f "$OUT/$tb-dev.conllu" ] && dev=(--dev "$OUT/$tb-dev.conllu")
  for sys in $SYSTEMS; do
   for root in $ROOTS; do
    [ "$root" = first ] || [ "$sys" = arc-eager ] || [ "$sys" = arc-hybrid ] || continue
    # Root-first runs keep the plain name; root-last ones are named `SYSTEM-root-last`.
    name=$sys
    [ "$root" = first ] || name="$sys-root-$root"
    for regime in $REGIMES; do
      for seed in $SEEDS; do
        m="$OUT/$tb.$name.$regime.$seed"
        [ -f "$m.eval.json" ] && continue
        # shellcheck disable=SC2046,SC2086
        "$BIN" train "$OUT/$tb-train.conllu" -o "$m.model" "${dev[@]}" --system "$sys" --root "$root" \
          --epochs "$EPOCHS" --seed "$seed" $(regime_args "$regime") $EXTRA 2> "$m.log"
        "$BIN" parse --model "$m.model" "$OUT/$tb-test.conllu" -o "$m.test.conllu" --stats 2>> "$m.log"
        "$BIN" eval "$OUT/$tb-test.conllu" "$m.test.conllu" --json > "$m.eval.json"
      done
      python3 - "$OUT" "$tb" "$name" "$regime" $SEEDS <<'PY'
import json, re, sys
out, tb, sys_, regime, *seeds = sys.argv[1:]
uas, las, secs = [], [], []
for s in seeds:
    m = f"{out}/{tb}.{sys_}.{regime}.{s}"
    e = json.load(open(f"{m}.eval.json"))["all"]
    uas.append(e["uas"]); las.append(e["las"])
    secs += [float(x) for x in re.findall(r"tokens in ([\d.]+) s", open(f"{m}.log").read())]
mean = lambda v: sum(v) / len(v)
print("| %s | %s | %s | %.2f (%.2f) | %.2f (%.2f) | %.1f |" % (
    tb, sys_, regime, mean(uas), max(uas) - min(uas), mean(las), max(las) - min(las), mean(secs)))
PY
    done
   done
  done
done
