#!/usr/bin/env bash
# Real-data checks of the oracle (Nederhof 2019, Sec. 8.2), run from the repo
# root after `cargo test --release`:
#  1. walks with --check-agreement on projectivized de_gsd-ud-test and
#     en_ewt-ud-dev (every available algorithm must agree at every configuration);
#  2. the same with an incremental session (Sec. 7) answering, checked
#     against one-shot cubic, quadratic and linear at every configuration
#     (all four strategies, and walks that mostly take random steps);
#  3. the walk on unprojectivized de_gsd-ud-test with the cubic algorithm.
# Skips when ../shared/ud is absent. Budget: < 3 minutes.
set -euo pipefail
UD=../shared/ud/v2.2
if [ ! -d "$UD" ]; then
  echo "oracle.sh: $UD absent, skipping"
  exit 0
fi
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The summary line is long (per-bucket timings): show its head only.
summary() { tail -1 | cut -c1-220; echo; }
for f in de_gsd-ud-test en_ewt-ud-dev; do
  xz -dc "$UD/$f.conllu.xz" > "$TMP/$f.conllu"
  echo "-- agreement of cubic, quadratic and linear, projectivized $f, lbr"
  timeout 80 "$BIN" oracle --walk "$TMP/$f.conllu" --projectivize --check-agreement --stray 0.3 --seed 1 --strategy lbr --json | summary
done
for f in de_gsd-ud-test en_ewt-ud-dev; do
  echo "-- agreement of the incremental session with the one-shot algorithms, projectivized $f, lbr"
  timeout 80 "$BIN" oracle --walk "$TMP/$f.conllu" --projectivize --check-agreement --session --algorithm linear --stray 0.3 --seed 3 --strategy lbr --json | summary
done
for s in none strict-lbr rbl; do
  echo "-- agreement of the incremental session, projectivized de_gsd-ud-test, $s"
  timeout 80 "$BIN" oracle --walk "$TMP/de_gsd-ud-test.conllu" --projectivize --check-agreement --session --algorithm linear --stray 0.3 --seed 4 --strategy "$s" --json | summary
done
echo "-- agreement of the incremental session on walks that mostly stray (0.9), projectivized en_ewt-ud-dev, lbr"
timeout 80 "$BIN" oracle --walk "$TMP/en_ewt-ud-dev.conllu" --projectivize --check-agreement --session --algorithm linear --stray 0.9 --seed 5 --strategy lbr --json | summary
for s in none strict-lbr rbl; do
  echo "-- agreement, projectivized de_gsd-ud-test, $s"
  timeout 80 "$BIN" oracle --walk "$TMP/de_gsd-ud-test.conllu" --projectivize --check-agreement --stray 0.3 --seed 2 --strategy "$s" --json | summary
done
echo "-- cubic, unprojectivized de_gsd-ud-test"
timeout 60 "$BIN" oracle --walk "$TMP/de_gsd-ud-test.conllu" --algorithm cubic --stray 0.3 --seed 1 --strategy lbr --json | summary
