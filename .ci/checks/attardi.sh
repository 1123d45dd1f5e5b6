#!/usr/bin/env bash
# Real-data checks of Attardi's parser and its tabular oracle (seed 002),
# run from the repo root after `cargo build --release`:
#  1. walks (stray 0.3 and 0.9) over the unprojectivized de_gsd-ud-test
#     sentences of at most 10 words with --check-agreement: the tabular
#     oracle must equal the brute force at every configuration;
#  2. a timed walk (stray 0.3) over every third unprojectivized
#     de_gsd-ud-test sentence: every configuration must be answered (no
#     error, no size limit hit).
# Skips when ../shared/ud is absent. Budget: < 2 minutes on 2 cores.
set -euo pipefail
UD=../shared/ud/v2.2
if [ ! -d "$UD" ]; then
  echo "attardi.sh: $UD absent, skipping"
  exit 0
fi
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
xz -dc "$UD/de_gsd-ud-test.conllu.xz" > "$TMP/de.conllu"
# Sentences (blank-line separated blocks) by number of words.
awk 'BEGIN { RS = ""; ORS = "\n\n"; FS = "\n" }
     { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\t/) n++; if (n <= 10) print }' "$TMP/de.conllu" > "$TMP/short.conllu"
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR % 3 == 1' "$TMP/de.conllu" > "$TMP/third.conllu"
field() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
for stray in 0.3 0.9; do
  echo "-- attardi: tabular oracle = brute force, de_gsd-ud-test sentences of <= 10 words, stray $stray"
  out=$(timeout 100 "$BIN" oracle --walk "$TMP/short.conllu" --system attardi --check-agreement --stray "$stray" --seed 5 --json | tail -1)
  compared=$(echo "$out" | field agreement_checked)
  echo "compared at $compared configurations"
  [ "${compared:-0}" -gt 500 ] || { echo "attardi.sh: too few configurations compared: $out"; exit 1; }
done
echo "-- attardi: tabular oracle, every third de_gsd-ud-test sentence, stray 0.3 (timed)"
out=$(timeout 100 "$BIN" oracle --walk "$TMP/third.conllu" --system attardi --stray 0.3 --seed 1 --json | tail -1)
echo "$out" | cut -c1-200
configurations=$(echo "$out" | field configurations)
[ "${configurations:-0}" -gt 5000 ] || { echo "attardi.sh: too few configurations: $out"; exit 1; }
