#!/usr/bin/env bash
# Pictures of trees (`tabula draw`): the layout property (no two label boxes
# overlap, every arc ends over its two words) computed on every sentence of
# the shared treebanks, alone and against its lifted projectivization; then
# the HTML page of a parser's output against gold in headless Chromium
# (installed from Debian if absent): the sentence list, the search, the
# filters, lazy drawing, label boxes as rendered; a screenshot in
# target/draw/; then the SVG and the page of a sentence whose fields hold
# control characters and XML specials (they must open, and show them
# visibly). The parser: a tiny model trained on 300 sentences of en_ewt
# (data/sample.conllu when ../shared/ud is absent). A minute or two.
# Run from the repository root after `cargo test --release`.
set -euo pipefail
cargo test --release --test cli_draw -- --ignored --nocapture 2>&1 | grep -E "layout checked|absent|test result|panicked|FAILED"
[ -x target/release/tabula ] || cargo build --release
TABULA=$PWD/target/release/tabula
if ! command -v chromium > /dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
fi
OUT=target/draw
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ud=../shared/ud/v2.2
if [ -e "$ud/en_ewt-ud-train.conllu.xz" ]; then
  xz -dc "$ud/en_ewt-ud-train.conllu.xz" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 300' > "$TMP/train.conllu"
  xz -dc "$ud/en_ewt-ud-test.conllu.xz" > "$TMP/gold.conllu"
else
  echo "draw.sh: $ud is absent: the browser test runs on data/sample.conllu"
  cp data/sample.conllu "$TMP/train.conllu"
  cp data/sample.conllu "$TMP/gold.conllu"
fi
"$TABULA" train "$TMP/train.conllu" -o "$TMP/tiny.model" --epochs 2 2> /dev/null
"$TABULA" parse --model "$TMP/tiny.model" "$TMP/gold.conllu" -o "$TMP/parsed.conllu"
start=$(date +%s.%N)
"$TABULA" draw "$TMP/gold.conllu" "$TMP/parsed.conllu" -o "$OUT/parsed.html"
echo "draw: $(wc -l < "$TMP/gold.conllu") lines drawn in $(echo "$(date +%s.%N) - $start" | bc) s"
python3 .ci/checks/draw_browser.py chromium "$OUT/parsed.html" "$TMP/gold.conllu" "$TMP/parsed.conllu" "$OUT/browser.png"
# Fields with control characters (a terminal escape in sent_id, U+0001 in a
# FORM, a backspace in UPOS, U+009B, `<&"'>` in DEPREL): the pictures open.
printf '# sent_id = s\033]0;t\007\n1\tK\001m\t_\tX\010\t_\t_\t2\t<&"\047>\t_\t_\n2\t\302\2332J\t_\tVERB\t_\t_\t0\troot\033[2J\t_\t_\n\n' > "$TMP/fields.conllu"
"$TABULA" draw "$TMP/fields.conllu" -o "$OUT/fields.svg"
"$TABULA" draw "$TMP/fields.conllu" -o "$OUT/fields.html"
python3 .ci/checks/draw_fields.py chromium "$OUT/fields.svg" "$OUT/fields.html"
