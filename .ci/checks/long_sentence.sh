#!/usr/bin/env bash
# Long sentences on a terminal: `tabula projectivize` and `tabula count`, run
# under a pseudo-terminal (util-linux `script`), show a progress bar of their own
# for a sentence of 1,000 words or more, and write the same output as without a
# terminal. Generated data only (scripts/long-sentence.py); a few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=target/release/tabula
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! command -v script > /dev/null; then
  echo "SKIP: no \`script\` (util-linux) to give the commands a terminal"
  exit 0
fi
python3 scripts/long-sentence.py 1200 --sentences 1 --seed 7 > "$TMP/long.conllu"
"$BIN" projectivize "$TMP/long.conllu" -o "$TMP/plain.conllu"
"$BIN" count "$TMP/long.conllu" --tsv "$TMP/plain.tsv"
# Up to three tries each: on a heavily loaded machine the terminal `script`
# gives can miss the first frames; each miss is shown.
for run in "projectivize $TMP/long.conllu -o $TMP/tty.conllu" "count $TMP/long.conllu --tsv $TMP/tty.tsv"; do
  shown=no
  for try in 1 2 3; do
    script -qfc "$BIN $run" "$TMP/typescript" < /dev/null > /dev/null
    if tr '\r' '\n' < "$TMP/typescript" | grep -aq "% of $TMP/long.conllu:1 (1200 words)"; then
      shown=yes
      break
    fi
    echo "try $try: tabula $run showed no progress bar; the terminal held:" >&2
    head -c 2000 "$TMP/typescript" | cat -v >&2
    echo >&2
  done
  if [ $shown = no ]; then
    echo "FAIL: tabula $run showed no progress bar for the 1,200-word sentence" >&2
    exit 1
  fi
done
cmp "$TMP/plain.conllu" "$TMP/tty.conllu"
cmp "$TMP/plain.tsv" "$TMP/tty.tsv"
echo "long sentences: progress bars shown on a terminal, outputs identical"
