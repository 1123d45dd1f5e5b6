#!/usr/bin/env bash
# Real-data checks of Goldberg, Sartorio and Satta (2014)'s tables,
# run from the repo root after `cargo test --release`:
#  1. arc-standard walks over projectivized de_gsd-ud-test, stray 0.3, with
#     --algorithm goldberg --strategy none --check-agreement: goldberg must
#     equal linear (and quadratic and cubic) at every configuration;
#  2. lr-spine walks over projectivized de_gsd-ud-test (stray 0.3 and 0.9)
#     must run clean (every configuration scored, each step applicable).
# Skips when ../shared/ud is absent. Budget: < 1 minute.
set -euo pipefail
UD=../shared/ud/v2.2
if [ ! -d "$UD" ]; then
  echo "goldberg.sh: $UD absent, skipping"
  exit 0
fi
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
summary() { tail -1 | cut -c1-300; echo; }
xz -dc "$UD/de_gsd-ud-test.conllu.xz" > "$TMP/de.conllu"
echo "-- arc-standard: goldberg = linear (strategy none) along walks, projectivized de_gsd-ud-test, stray 0.3"
timeout 50 "$BIN" oracle --walk "$TMP/de.conllu" --projectivize --algorithm goldberg --strategy none --check-agreement --stray 0.3 --seed 11 --json | summary
for stray in 0.3 0.9; do
  echo "-- lr-spine: walks, projectivized de_gsd-ud-test, stray $stray"
  timeout 30 "$BIN" oracle --walk "$TMP/de.conllu" --system lr-spine --projectivize --stray "$stray" --seed 12 --json | summary
done
