#!/usr/bin/env bash
# End to end: train small parsers (greedy and beam), parse, evaluate. Run from the
# repo root after `cargo test --release`.
#  - with ../shared/ud: 2 epochs of arc-hybrid with the dynamic oracle on the
#    first 2,000 sentences of el_gdt-ud-train, dev = el_gdt-ud-dev; parse
#    el_gdt-ud-test with 1 and 2 threads (identical output), evaluate, and
#    require UAS >= 70;
#  - without it: the embedded data/sample.conllu, trained and evaluated on
#    itself (the commands work; no accuracy threshold).
#  - then LR-spine and Attardi on a 300-sentence sample (see below).
# Budget: well under 2 minutes.
set -euo pipefail
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
UD=../shared/ud/v2.2
if [ -d "$UD" ]; then
  xz -dc "$UD/el_gdt-ud-train.conllu.xz" | awk 'BEGIN{RS=""; ORS="\n\n"} NR<=2000' > "$TMP/train.conllu"
  xz -dc "$UD/el_gdt-ud-dev.conllu.xz" > "$TMP/dev.conllu"
  xz -dc "$UD/el_gdt-ud-test.conllu.xz" > "$TMP/test.conllu"
else
  echo "train.sh: $UD absent, using data/sample.conllu"
  cp data/sample.conllu "$TMP/train.conllu"
  cp data/sample.conllu "$TMP/dev.conllu"
  cp data/sample.conllu "$TMP/test.conllu"
fi
echo "-- train: arc-hybrid, dynamic oracle, 2 epochs"
timeout 100 "$BIN" train "$TMP/train.conllu" -o "$TMP/m.model" --dev "$TMP/dev.conllu" \
  --system arc-hybrid --oracle dynamic --epochs 2 --seed 1 --step-bits 18 --label-bits 16
echo "-- parse (1 and 2 threads) and eval"
timeout 60 "$BIN" parse --model "$TMP/m.model" "$TMP/test.conllu" -o "$TMP/p1.conllu" --stats
timeout 60 "$BIN" parse --model "$TMP/m.model" "$TMP/test.conllu" -o "$TMP/p2.conllu" --threads 2
cmp "$TMP/p1.conllu" "$TMP/p2.conllu"
"$BIN" eval "$TMP/test.conllu" "$TMP/p1.conllu"
uas=$("$BIN" eval "$TMP/test.conllu" "$TMP/p1.conllu" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["all"]["uas"])')
if [ -d "$UD" ]; then
  python3 -c "import sys; sys.exit(0 if $uas >= 70 else 1)" || { echo "train.sh: UAS $uas < 70"; exit 1; }
fi
# LR-spine (spine-step classes) and Attardi (its tabular oracle, non-projective
# trees kept): 2 epochs each on the first 300 training sentences (the
# tabular oracle is slow on long sentences: --max-gamma 32 leaves out, and
# counts, the few it would spend seconds on), parse, evaluate; dev UAS
# of the LR-spine model only as a sanity floor (>= 60 with the treebank).
awk 'BEGIN{RS=""; ORS="\n\n"} NR<=300' "$TMP/train.conllu" > "$TMP/small.conllu"
for run in "lr-spine dynamic optimal" "attardi static none" "attardi dynamic none"; do
  set -- $run
  echo "-- train: $1, $2 oracle, --projectivize $3, 2 epochs on $(grep -c '^1\s' "$TMP/small.conllu") sentences"
  gamma=(); [ "$1" = attardi ] && gamma=(--max-gamma 32)  # attardi only: others refuse it
  timeout 60 "$BIN" train "$TMP/small.conllu" -o "$TMP/$1.model" --system "$1" --oracle "$2" --projectivize "$3" \
    "${gamma[@]}" --epochs 2 --seed 1 --step-bits 16 --label-bits 14
  timeout 60 "$BIN" parse --model "$TMP/$1.model" "$TMP/test.conllu" -o "$TMP/$1.conllu"
  u=$("$BIN" eval "$TMP/test.conllu" "$TMP/$1.conllu" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["all"]["uas"])')
  echo "$1 $2: test UAS $u"
  if [ -d "$UD" ]; then
    python3 -c "import sys; sys.exit(0 if $u >= 60 else 1)" || { echo "train.sh: $1 $2 UAS $u < 60"; exit 1; }
  fi
done
# Beam search and global training: a beam-4 arc-hybrid model (max-violation
# with restart, the global dynamic oracle) on the 2,000 sentences; parsed
# with its own beam on 1 and 2 threads (identical output) and with --beam 1
# (allowed, noted on stderr); then every other system with a beam of 4 for
# one epoch on the 300-sentence sample (Attardi: its first 100 sentences;
# the tabular oracle runs at up to K hypotheses per step), and arc-eager and
# arc-hybrid with the root last (non-projective gold trees kept for arc-eager).
awk 'BEGIN{RS=""; ORS="\n\n"} NR<=100' "$TMP/small.conllu" > "$TMP/tiny.conllu"
echo "-- train: arc-hybrid, beam 4, max-violation with restart, 2 epochs"
timeout 150 "$BIN" train "$TMP/train.conllu" -o "$TMP/b.model" --dev "$TMP/dev.conllu" --beam 4 \
  --update max-violation --restart --epochs 2 --seed 1 --step-bits 18 --label-bits 16
grep -a -q '^beam 4$' "$TMP/b.model" || { echo "train.sh: the model does not name its beam"; exit 1; }
timeout 60 "$BIN" parse --model "$TMP/b.model" "$TMP/test.conllu" -o "$TMP/b1.conllu" --stats
timeout 60 "$BIN" parse --model "$TMP/b.model" "$TMP/test.conllu" -o "$TMP/b2.conllu" --threads 2
cmp "$TMP/b1.conllu" "$TMP/b2.conllu"
"$BIN" parse --model "$TMP/b.model" "$TMP/test.conllu" -o "$TMP/g.conllu" --beam 1 2> "$TMP/note"
grep -q "trained with a beam of 4, parsing with a beam of 1" "$TMP/note"
ub=$("$BIN" eval "$TMP/test.conllu" "$TMP/b1.conllu" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["all"]["uas"])')
echo "arc-hybrid beam 4: test UAS $ub"
if [ -d "$UD" ]; then
  python3 -c "import sys; sys.exit(0 if $ub >= 70 else 1)" || { echo "train.sh: beam UAS $ub < 70"; exit 1; }
fi
for run in "arc-standard dynamic optimal early" "arc-eager dynamic optimal full" "lr-spine static optimal early" \
  "attardi dynamic none max-violation" "arc-eager dynamic none max-violation last" "arc-hybrid static optimal early last"; do
  set -- $run
  root=(); [ -n "${5:-}" ] && root=(--root "$5")
  data="$TMP/small.conllu"
  [ "$1" = attardi ] && data="$TMP/tiny.conllu"
  echo "-- train: $1, $2 oracle, beam 4, $4 update, 1 epoch${5:+, root $5}"
  gamma=(); [ "$1" = attardi ] && gamma=(--max-gamma 32)
  # Restart applies to early and max-violation updates (a full update has nothing to restart).
  restart=(--restart); [ "$4" = full ] && restart=()
  # Arc-standard also reads every column the treebank has (the sample has no FEATS).
  cols=(); [ "$1" = arc-standard ] && [ -d "$UD" ] && cols=(--feats --lemma --xpos)
  timeout 120 "$BIN" train "$data" -o "$TMP/$1.b.model" --system "$1" --oracle "$2" --projectivize "$3" \
    --beam 4 --update "$4" "${restart[@]}" "${gamma[@]}" "${root[@]}" "${cols[@]}" --epochs 1 --seed 1 --step-bits 16 --label-bits 14
  if [ ${#cols[@]} -gt 0 ]; then
    grep -a -q '^features zn2011-v3+feats+lemma+xpos$' "$TMP/$1.b.model" || { echo "train.sh: the model does not name its columns"; exit 1; }
  fi
  timeout 60 "$BIN" parse --model "$TMP/$1.b.model" "$TMP/test.conllu" -o "$TMP/$1.b.conllu"
  "$BIN" eval "$TMP/test.conllu" "$TMP/$1.b.conllu" | head -2
done
echo "train.sh: ok (UAS $uas, beam 4: $ub)"
