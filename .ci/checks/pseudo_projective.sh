#!/usr/bin/env bash
# Real data: the pseudo-projective round trip on la_perseus train (49 % of
# its trees non-projective): `projectivize --encode` then `deprojectivize`,
# both methods, every scheme. Checks that the encoded trees are projective,
# that decoding gives back every DEPREL and every column but HEAD byte for
# byte, that the command-line round trip agrees with the in-memory one of
# --stats, and that head+path restores at least 99 % (lift) and 98 %
# (optimal) of the non-projective arcs. A few seconds.
# Run from the repository root after `cargo test --release`.
set -euo pipefail
la=../shared/ud/v2.2/la_perseus-ud-train.conllu.xz
if [ ! -e "$la" ]; then
  echo "pseudo_projective.sh: $la is absent, skipping"
  exit 0
fi
[ -x target/release/tabula ] || cargo build --release
TABULA=$PWD/target/release/tabula
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
xz -dc "$la" > "$TMP/in.conllu"
fail=0
for method in lift optimal; do
  for scheme in head path head+path; do
    enc=$TMP/$method.$scheme.conllu
    back=$TMP/$method.$scheme.back.conllu
    "$TABULA" projectivize "$TMP/in.conllu" --method "$method" --encode "$scheme" -o "$enc" --stats 2> "$TMP/stats"
    "$TABULA" deprojectivize "$enc" -o "$back"
    # The encoded trees are projective (each keeps all its own arcs).
    if ! "$TABULA" count "$enc" | awk -F'\t' 'NR > 1 && ($5 != $3 || $4 != 0) { bad = 1 } END { exit bad }'; then
      echo "FAIL $method $scheme: a non-projective encoded tree"; fail=1
    fi
    # Decoding restores every DEPREL, and all but HEAD is unchanged.
    if ! cmp -s <(cut -f1-6,8- "$TMP/in.conllu") <(cut -f1-6,8- "$back"); then
      echo "FAIL $method $scheme: decoded output differs outside the HEAD column"; fail=1
    fi
    # Heads not restored on the command line = moved words not restored by --stats.
    moved=$(sed -n 's/^moved words (encoded, .*): //p' "$TMP/stats")
    restored=$(sed -n 's/^round trip (encode, decode): moved words restored \([0-9]*\) of.*/\1/p' "$TMP/stats")
    wrong=$(paste <(cut -f7 "$TMP/in.conllu") <(cut -f7 "$back") | awk -F'\t' '$1 != $2' | wc -l)
    if [ "$wrong" -ne $((moved - restored)) ]; then
      echo "FAIL $method $scheme: $wrong heads differ after deprojectivize, --stats says $((moved - restored))"; fail=1
    fi
    arcs=$(sed -n 's/^round trip: non-projective arcs restored //p' "$TMP/stats")
    printf 'la_perseus train %-8s %-10s non-projective arcs restored %s\n' "$method" "$scheme" "$arcs"
    if [ "$scheme" = head+path ]; then
      share=$(echo "$arcs" | sed -n 's/.*(\([0-9.]*\) %)/\1/p')
      floor=$([ "$method" = lift ] && echo 99 || echo 98)
      if awk -v s="$share" -v f="$floor" 'BEGIN { exit !(s < f) }'; then
        echo "FAIL $method head+path: $share % < $floor %"; fail=1
      fi
    fi
  done
done
exit $fail
