#!/usr/bin/env bash
# End to end, the built-in tagger: train a tagger on a
# sample of a shared treebank, tag the test file (1 and 2 threads: the same
# output; --eval against its gold tags), train a small parser on
# jackknifed tags, and parse the test file with its UPOS and FEATS blanked
# through `parse --tagger`; then an ensemble of three parses, any tree and
# projective. Run from the repo root after `cargo test --release`.
#  - with ../shared/ud: the first 1,000 sentences of el_gdt-ud-train, dev =
#    el_gdt-ud-dev, test = el_gdt-ud-test; requires UPOS >= 90 % and UAS >= 60;
#  - without it: data/sample.conllu for all three (the commands work).
# Budget: well under a minute.
set -euo pipefail
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
UD=${UD:-../shared/ud/v2.2}
if [ -d "$UD" ]; then
  xz -dc "$UD/el_gdt-ud-train.conllu.xz" | awk 'BEGIN{RS=""; ORS="\n\n"} NR<=1000' > "$TMP/train.conllu"
  xz -dc "$UD/el_gdt-ud-dev.conllu.xz" > "$TMP/dev.conllu"
  xz -dc "$UD/el_gdt-ud-test.conllu.xz" > "$TMP/test.conllu"
else
  echo "tagger.sh: $UD absent, using data/sample.conllu"
  for f in train dev test; do cp data/sample.conllu "$TMP/$f.conllu"; done
fi
# The test file without its tags.
awk -F'\t' 'BEGIN{OFS="\t"} NF==10 {$4="_"; $6="_"} {print}' "$TMP/test.conllu" > "$TMP/raw.conllu"
echo "-- train-tagger (UPOS and FEATS), 5 epochs"
timeout 60 "$BIN" train-tagger "$TMP/train.conllu" -o "$TMP/t.tagger" --dev "$TMP/dev.conllu" --feats --epochs 5 --bits 16
echo "-- tag (1 and 2 threads), --eval"
timeout 30 "$BIN" tag --tagger "$TMP/t.tagger" "$TMP/raw.conllu" -o "$TMP/t1.conllu" --stats
timeout 30 "$BIN" tag --tagger "$TMP/t.tagger" "$TMP/raw.conllu" -o "$TMP/t2.conllu" --threads 2
cmp "$TMP/t1.conllu" "$TMP/t2.conllu"
timeout 30 "$BIN" tag --tagger "$TMP/t.tagger" "$TMP/test.conllu" --eval -o /dev/null 2> "$TMP/eval"
cat "$TMP/eval"
upos=$(sed -n 's/.*UPOS \([0-9.]*\)%.*/\1/p' "$TMP/eval")
echo "-- train a parser on 4-fold jackknifed tags, 2 epochs; parse with --tagger"
timeout 60 "$BIN" train "$TMP/train.conllu" -o "$TMP/p.model" --dev "$TMP/dev.conllu" --tagger "$TMP/t.tagger" \
  --jackknife 4 --epochs 2 --step-bits 16 --label-bits 14
if "$BIN" parse --model "$TMP/p.model" "$TMP/raw.conllu" -o "$TMP/no.conllu" 2> "$TMP/err"; then
  echo "tagger.sh: a file without UPOS parsed without a tagger"; exit 1
fi
grep -q "no word of this sentence has a UPOS" "$TMP/err"
timeout 30 "$BIN" parse --model "$TMP/p.model" --tagger "$TMP/t.tagger" "$TMP/raw.conllu" -o "$TMP/parsed.conllu" --stats
uas=$("$BIN" eval "$TMP/test.conllu" "$TMP/parsed.conllu" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["all"]["uas"])')
echo "-- ensemble: the jackknife parser, one arc-eager parser (1 epoch) and the gold-tag parse of it"
timeout 60 "$BIN" train "$TMP/train.conllu" -o "$TMP/e.model" --system arc-eager --epochs 1 --step-bits 16 --label-bits 14
timeout 30 "$BIN" parse --model "$TMP/e.model" --tagger "$TMP/t.tagger" "$TMP/raw.conllu" -o "$TMP/e.conllu"
timeout 30 "$BIN" parse --model "$TMP/p.model" "$TMP/test.conllu" -o "$TMP/g.conllu"
for flag in "" --projective; do
  timeout 60 "$BIN" ensemble "$TMP/parsed.conllu" "$TMP/e.conllu" "$TMP/g.conllu" --weights 1,1,1.5 $flag -o "$TMP/vote.conllu"
  "$BIN" eval "$TMP/test.conllu" "$TMP/vote.conllu" | sed -n 2p
done
echo "predicted tags: UPOS $upos %, UAS $uas"
if [ -d "$UD" ]; then
  python3 -c "import sys; sys.exit(0 if $upos >= 90 and $uas >= 60 else 1)" || { echo "tagger.sh: UPOS $upos < 90 or UAS $uas < 60"; exit 1; }
fi
echo "tagger.sh: ok (UPOS $upos %, UAS $uas with predicted tags)"
