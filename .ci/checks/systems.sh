#!/usr/bin/env bash
# Real-data checks of the arc-hybrid and arc-eager oracles, run from the repo
# root after `cargo test --release`:
#  1. walks over projectivized de_gsd-ud-test and en_ewt-ud-dev with
#     --check-agreement: the grammar oracle (cubic) and the closed form
#     (linear) must agree at every configuration, on walks that stray with
#     probability 0.3 and 0.9;
#  2. the same with a session answering (incremental closed form);
#  3. the grammar oracle on unprojectivized de_gsd-ud-test (timed).
# Skips when ../shared/ud is absent. Budget: < 3 minutes.
set -euo pipefail
UD=../shared/ud/v2.2
if [ ! -d "$UD" ]; then
  echo "systems.sh: $UD absent, skipping"
  exit 0
fi
BIN=target/release/tabula
[ -x "$BIN" ] || cargo build --release --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
summary() { tail -1 | cut -c1-260; echo; }
for f in de_gsd-ud-test en_ewt-ud-dev; do
  xz -dc "$UD/$f.conllu.xz" > "$TMP/$f.conllu"
done
for system in arc-hybrid arc-eager; do
  for stray in 0.3 0.9; do
    for f in de_gsd-ud-test en_ewt-ud-dev; do
      echo "-- $system: agreement of cubic and linear, projectivized $f, stray $stray"
      timeout 120 "$BIN" oracle --walk "$TMP/$f.conllu" --system "$system" --projectivize --check-agreement --stray "$stray" --seed 7 --json | summary
    done
  done
  echo "-- $system: agreement of the session with cubic and linear, projectivized de_gsd-ud-test, stray 0.3"
  timeout 120 "$BIN" oracle --walk "$TMP/de_gsd-ud-test.conllu" --system "$system" --projectivize --check-agreement --session --stray 0.3 --seed 8 --json | summary
  echo "-- $system: grammar oracle, unprojectivized de_gsd-ud-test"
  timeout 120 "$BIN" oracle --walk "$TMP/de_gsd-ud-test.conllu" --system "$system" --algorithm cubic --stray 0.3 --seed 1 --json | summary
done
