#!/usr/bin/env bash
# The tagger's accuracy over seeds (docs/tagger.md, "Directions and passes,
# over seeds"): for each treebank, variant and seed, train-tagger (15
# epochs at most, the epoch of the best dev accuracy kept), UPOS accuracy on
# dev and test; then the tagging speed of each variant's tagger of the
# first seed (the training file tagged 3 times; `--stats` and the whole
# command's user CPU time, medians).
# Usage: scripts/tagger-seeds.sh [TREEBANK...]   (default en_ewt el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/tagger-seeds), SEEDS
# ("1 2 3"), EPOCHS (15), NICE (default 10), VARIANTS (NAME=OPTIONS
# separated by `;`, default below).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/tagger-seeds}
NICE=${NICE:-10}
SEEDS=${SEEDS:-1 2 3}
VARIANTS=${VARIANTS:-"p1=;p2=--passes 2;both=--direction both;both-p2=--direction both --passes 2"}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
T="nice -n $NICE $BIN"
mkdir -p "$OUT"
median() { sort -n | sed -n 2p; }
IFS=';' read -r -a variants <<< "$VARIANTS"
for TB in ${@:-en_ewt el_gdt}; do
  D="$OUT/$TB"
  mkdir -p "$D"
  for part in train dev test; do
    [ -f "$D/$part.conllu" ] || xz -dc "$UD/$TB-ud-$part.conllu.xz" > "$D/$part.conllu"
  done
  echo "== $TB ($(uptime))"
  for seed in $SEEDS; do
    for v in "${variants[@]}"; do
      name=${v%%=*}
      read -r -a opts <<< "${v#*=}"
      m="$D/$name.s$seed.tagger"
      $T train-tagger "$D/train.conllu" -o "$m" --dev "$D/dev.conllu" --epochs "${EPOCHS:-15}" --seed "$seed" \
        ${opts[@]+"${opts[@]}"} 2> "$D/$name.s$seed.log"
      test=$($T tag --tagger "$m" "$D/test.conllu" --eval -o /dev/null 2>&1 | grep -o 'UPOS [0-9.]*%')
      echo "$TB seed $seed $name: $(tail -1 "$D/$name.s$seed.log" | sed 's/^wrote [^ ]* //'); test $test"
    done
  done
  first=${SEEDS%% *}
  for v in "${variants[@]}"; do
    name=${v%%=*}
    m="$D/$name.s$first.tagger"
    for i in 1 2 3; do
      /usr/bin/time -f "%U" -o "$D/$name.time.$i" $T tag --tagger "$m" "$D/train.conllu" -o /dev/null --stats \
        2> "$D/$name.stats.$i"
    done
    rate=$(for i in 1 2 3; do grep -o '([0-9]* tokens/s' "$D/$name.stats.$i" | tr -dc 0-9; echo; done | median)
    user=$(for i in 1 2 3; do cat "$D/$name.time.$i"; done | median)
    words=$(grep -o '[0-9]* tokens in' "$D/$name.stats.1" | cut -d' ' -f1)
    echo "$TB $name speed: $rate tokens/s (--stats, wall, median of 3); whole command: $user s user CPU for $words tokens"
  done
done
echo "load after: $(uptime)"
