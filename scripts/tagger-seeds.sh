#!/usr/bin/env bash
# The tagger's accuracy over seeds (docs/tagger.md, "One pass or two"):
# for each treebank and seed, train-tagger with one pass and with
# `--passes 2` (15 epochs at most, the epoch of the best dev accuracy kept),
# UPOS accuracy on dev and test; then the tagging speed of both taggers of
# seed 1 (the training file tagged 3 times; `--stats` and the whole
# command's user CPU time, medians).
# Usage: scripts/tagger-seeds.sh [TREEBANK...]   (default en_ewt el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/tagger-seeds), SEEDS
# ("1 2 3"), EPOCHS (15), NICE (default 10).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/tagger-seeds}
NICE=${NICE:-10}
SEEDS=${SEEDS:-1 2 3}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
T="nice -n $NICE $BIN"
mkdir -p "$OUT"
median() { sort -n | sed -n 2p; }
for TB in ${@:-en_ewt el_gdt}; do
  D="$OUT/$TB"
  mkdir -p "$D"
  for part in train dev test; do
    [ -f "$D/$part.conllu" ] || xz -dc "$UD/$TB-ud-$part.conllu.xz" > "$D/$part.conllu"
  done
  echo "== $TB ($(uptime))"
  for seed in $SEEDS; do
    for passes in 1 2; do
      m="$D/p$passes.s$seed.tagger"
      $T train-tagger "$D/train.conllu" -o "$m" --dev "$D/dev.conllu" --epochs "${EPOCHS:-15}" --seed "$seed" --passes "$passes" \
        2> "$D/p$passes.s$seed.log"
      test=$($T tag --tagger "$m" "$D/test.conllu" --eval -o /dev/null 2>&1 | grep -o 'UPOS [0-9.]*%')
      echo "$TB seed $seed passes $passes: $(tail -1 "$D/p$passes.s$seed.log" | sed 's/^wrote [^ ]* //'); test $test"
    done
  done
  for passes in 1 2; do
    m="$D/p$passes.s1.tagger"
    for i in 1 2 3; do
      /usr/bin/time -f "%U" -o "$D/p$passes.time.$i" $T tag --tagger "$m" "$D/train.conllu" -o /dev/null --stats \
        2> "$D/p$passes.stats.$i"
    done
    rate=$(for i in 1 2 3; do grep -o '([0-9]* tokens/s' "$D/p$passes.stats.$i" | tr -dc 0-9; echo; done | median)
    user=$(for i in 1 2 3; do cat "$D/p$passes.time.$i"; done | median)
    words=$(grep -o '[0-9]* tokens in' "$D/p$passes.stats.1" | cut -d' ' -f1)
    echo "$TB passes $passes speed: $rate tokens/s (--stats, wall, median of 3); whole command: $user s user CPU for $words tokens"
  done
done
echo "load after: $(uptime)"
