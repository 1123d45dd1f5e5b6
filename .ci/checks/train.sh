#!/usr/bin/env bash
# End to end: train a small parser, parse, evaluate (issue 13). Run from the
# repo root after `cargo test --release`.
#  - with ../shared/ud: 2 epochs of arc-hybrid with the dynamic oracle on the
#    first 2,000 sentences of el_gdt-ud-train, dev = el_gdt-ud-dev; parse
#    el_gdt-ud-test with 1 and 2 threads (identical output), evaluate, and
#    require UAS >= 70;
#  - without it: the embedded data/sample.conllu, trained and evaluated on
#    itself (the commands work; no accuracy threshold).
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
echo "train.sh: ok (UAS $uas)"
