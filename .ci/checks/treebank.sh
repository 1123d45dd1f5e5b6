#!/usr/bin/env bash
# Real data: projectivize every shared UD file (optimal and lift) and check
# the outputs; count optimal projectivizations of la_perseus (TSV + plot).
# Run from the repository root after `cargo test --release`.
set -euo pipefail
UD=../shared/ud
if [ ! -d "$UD" ]; then
  echo "treebank.sh: $UD is absent, skipping the real-data checks"
  exit 0
fi
[ -x target/release/tabula ] || cargo build --release
TABULA=$PWD/target/release/tabula
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# kept <stats-file>: the number of tokens whose head was kept.
kept() { sed -n 's/^tokens whose head was kept: //p' "$1"; }

fail=0
for xz in "$UD"/*/*.conllu.xz; do
  name=$(basename "$(dirname "$xz")")-$(basename "$xz" .conllu.xz)
  in=$TMP/$name.conllu
  xz -dc "$xz" > "$in"
  for method in optimal lift; do
    out=$TMP/$name.$method.conllu
    "$TABULA" projectivize "$in" -o "$out" --method "$method" --stats 2> "$TMP/$name.$method.stats"
    # Every output tree is projective: it keeps all its own arcs.
    if ! "$TABULA" count "$out" | awk -F'\t' 'NR > 1 && ($5 != $3 || $4 != 0) { bad = 1 } END { exit bad }'; then
      echo "FAIL $name $method: a non-projective output tree"; fail=1
    fi
    # Everything but HEAD (comments, tokens, other columns) is unchanged.
    if ! cmp -s <(cut -f1-6,8- "$in") <(cut -f1-6,8- "$out"); then
      echo "FAIL $name $method: output differs outside the HEAD column"; fail=1
    fi
  done
  opt=$(kept "$TMP/$name.optimal.stats")
  lift=$(kept "$TMP/$name.lift.stats")
  if [ "$opt" -lt "$lift" ]; then
    echo "FAIL $name: optimal keeps $opt heads, lifting $lift"; fail=1
  fi
  if ! cmp -s <(grep '^tokens:' "$TMP/$name.optimal.stats") <(grep '^tokens:' "$TMP/$name.lift.stats"); then
    echo "FAIL $name: token counts differ"; fail=1
  fi
  printf '%-32s %s  optimal %s  lift %s\n' "$name" "$(grep '^tokens:' "$TMP/$name.optimal.stats")" \
    "$(sed -n 's/^attachment score: //p' "$TMP/$name.optimal.stats")" \
    "$(sed -n 's/^attachment score: //p' "$TMP/$name.lift.stats")"
done

la=$UD/v2.2/la_perseus-ud-train.conllu.xz
if [ -e "$la" ]; then
  xz -dc "$la" > "$TMP/la.conllu"
  "$TABULA" count "$TMP/la.conllu" --tsv "$TMP/la.tsv" --plot "$TMP/la.svg"
  rows=$(($(wc -l < "$TMP/la.tsv") - 1))
  nonproj=$(awk -F'\t' 'NR > 1 { s += $4 } END { print s }' "$TMP/la.tsv")
  [ "$(head -1 "$TMP/la.tsv")" = "$(printf 'index\tsent_id\tlength\tnonprojective\tbest\tcount')" ] || { echo "FAIL la_perseus: TSV header"; fail=1; }
  grep -q '^<svg' "$TMP/la.svg" || { echo "FAIL la_perseus: no SVG"; fail=1; }
  echo "la_perseus count: $rows trees, $nonproj non-projective"
fi
exit $fail
