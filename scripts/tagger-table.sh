#!/usr/bin/env bash
# The tagger's tables (docs/tagger.md): for each treebank,
# train-tagger (greedy; --feats; Viterbi) with dev selection, tagging
# accuracy on test (`tag --eval`), tagging speed (the training file tagged
# 3 times, `--stats` and the whole command's wall and user time: median of
# 3), then a parser trained on gold tags and one trained on 5-fold
# jackknifed tags (`train --tagger --jackknife 5`), each parsing test with
# gold tags and with predicted ones (`parse --tagger`).
# Usage: scripts/tagger-table.sh [TREEBANK...]   (default en_ewt el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/tagger-table), PARSER
# (train options; default the headline regime of docs/training.md with the
# default table sizes), NICE (default 10).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/tagger-table}
NICE=${NICE:-10}
PARSER=${PARSER:---system arc-standard --strategy none --oracle dynamic --epochs ${EPOCHS:-15} --seed 1}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
T="nice -n $NICE $BIN"
mkdir -p "$OUT"
median() { sort -n | sed -n 2p; }
for TB in "${@:-en_ewt el_gdt}"; do
  for TBi in $TB; do
    D="$OUT/$TBi"
    mkdir -p "$D"
    for part in train dev test; do
      [ -f "$D/$part.conllu" ] || xz -dc "$UD/$TBi-ud-$part.conllu.xz" > "$D/$part.conllu"
    done
    awk -F'\t' 'BEGIN{OFS="\t"} NF==10 {$4="_"; $6="_"} {print}' "$D/test.conllu" > "$D/raw.conllu"
    echo "== $TBi ($(uptime))"
    for variant in "greedy" "feats --feats" "viterbi --decode viterbi"; do
      set -- $variant
      name=$1
      shift
      $T train-tagger "$D/train.conllu" -o "$D/$name.tagger" --dev "$D/dev.conllu" --epochs "${EPOCHS:-15}" "$@" 2> "$D/$name.train.log"
      $T tag --tagger "$D/$name.tagger" "$D/test.conllu" --eval -o /dev/null 2> "$D/$name.eval"
      echo "$TBi $name: $(tail -1 "$D/$name.train.log" | sed 's/^wrote [^ ]* //'); test: $(sed 's/^.*words: //' "$D/$name.eval")"
      for i in 1 2 3; do
        /usr/bin/time -f "%e %U" -o "$D/$name.time.$i" $T tag --tagger "$D/$name.tagger" "$D/train.conllu" -o /dev/null --stats \
          2> "$D/$name.stats.$i"
      done
      rate=$(for i in 1 2 3; do grep -o '([0-9]* tokens/s' "$D/$name.stats.$i" | tr -dc 0-9; echo; done | median)
      wall=$(for i in 1 2 3; do cut -d' ' -f1 "$D/$name.time.$i"; done | median)
      user=$(for i in 1 2 3; do cut -d' ' -f2 "$D/$name.time.$i"; done | median)
      words=$(grep -o '[0-9]* tokens in' "$D/$name.stats.1" | cut -d' ' -f1)
      echo "$TBi $name speed: $rate tokens/s (--stats, median of 3); whole command incl. loading: $wall s wall, $user s user for $words tokens"
    done
    # Parsers: gold tags, and 5-fold jackknifed tags of the greedy tagger.
    # shellcheck disable=SC2086
    $T train "$D/train.conllu" -o "$D/gold.model" --dev "$D/dev.conllu" $PARSER 2> "$D/gold.train.log"
    # shellcheck disable=SC2086
    $T train "$D/train.conllu" -o "$D/jk.model" --dev "$D/dev.conllu" --tagger "$D/greedy.tagger" --jackknife 5 $PARSER \
      2> "$D/jk.train.log"
    for model in gold jk; do
      $T parse --model "$D/$model.model" "$D/test.conllu" -o "$D/$model.gold-tags.conllu"
      $T parse --model "$D/$model.model" --tagger "$D/greedy.tagger" "$D/raw.conllu" -o "$D/$model.predicted-tags.conllu"
      for tags in gold-tags predicted-tags; do
        echo "$TBi parser trained on $model tags, test with $tags: $($BIN eval "$D/test.conllu" "$D/$model.$tags.conllu" | sed -n 2p)"
      done
    done
  done
done
echo "load after: $(uptime)"
