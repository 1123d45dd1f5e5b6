#!/usr/bin/env bash
# UDPipe 1's greedy parser beside ours on the same files (issue 13, item 4):
# installs PyPI `ufal.udpipe` into a venv under target/udpipe (first run
# only), trains UDPipe's parser alone (gold tags: tokenizer=none,
# tagger=none, parser defaults, DEV as its heldout set) and ours (the
# regime in OURS, dev selection on DEV), parses TEST with both (one thread),
# evaluates both with `tabula eval`, and prints a table row per parser:
# test UAS / LAS, training seconds, parsing words/s (without model loading
# for UDPipe; `tabula parse --stats` for ours) and `uptime`.
#
# Usage: scripts/udpipe-compare.sh [TREEBANK]   (default el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/udpipe/TREEBANK),
# OURS (train options; default the headline regime), SKIP_UDPIPE=1 (reuse
# an existing UDPipe model in OUT), NICE (default 10).
set -euo pipefail
TB=${1:-el_gdt}
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/udpipe/$TB}
OURS=${OURS:---system arc-standard --oracle dynamic --epochs 15 --seed 1}
NICE=${NICE:-10}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
VENV=target/udpipe/venv
if ! "$VENV/bin/python" -c 'import ufal.udpipe' 2> /dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet ufal.udpipe
fi
mkdir -p "$OUT"
for part in train dev test; do
  [ -f "$OUT/$part.conllu" ] || xz -dc "$UD/$TB-ud-$part.conllu.xz" > "$OUT/$part.conllu"
done
PY="$(dirname "$0")/udpipe_compare.py"
echo "load before: $(uptime)" | tee "$OUT/load.txt"
if [ "${SKIP_UDPIPE:-0}" != 1 ] || [ ! -f "$OUT/udpipe.model" ]; then
  nice -n "$NICE" "$VENV/bin/python" "$PY" train "$OUT/train.conllu" "$OUT/dev.conllu" "$OUT/udpipe.model" \
    > "$OUT/udpipe.train.json" 2> "$OUT/udpipe.train.log"
fi
nice -n "$NICE" "$VENV/bin/python" "$PY" parse "$OUT/udpipe.model" "$OUT/test.conllu" "$OUT/udpipe.test.conllu" \
  > "$OUT/udpipe.parse.json"
start=$(date +%s.%N)
# shellcheck disable=SC2086
nice -n "$NICE" "$BIN" train "$OUT/train.conllu" -o "$OUT/tabula.model" --dev "$OUT/dev.conllu" $OURS 2> "$OUT/tabula.train.log"
end=$(date +%s.%N)
echo "{\"train_seconds\": $(echo "$end - $start" | bc)}" > "$OUT/tabula.train.json"
nice -n "$NICE" "$BIN" parse --model "$OUT/tabula.model" "$OUT/test.conllu" -o "$OUT/tabula.test.conllu" --stats \
  2> "$OUT/tabula.parse.log"
for p in udpipe tabula; do
  "$BIN" eval "$OUT/test.conllu" "$OUT/$p.test.conllu" --json > "$OUT/$p.eval.json"
done
echo "load after: $(uptime)" | tee -a "$OUT/load.txt"
python3 - "$OUT" "$TB" "$OURS" <<'PY'
import json, re, sys
out, tb, ours = sys.argv[1:4]
def j(name):
    with open(f"{out}/{name}") as f:
        return json.load(f)
print(f"| treebank | parser | test UAS / LAS | without PUNCT | training | parsing (words/s, 1 thread) |")
print("|---|---|---|---|---|---|")
for p in ("udpipe", "tabula"):
    e, t = j(f"{p}.eval.json"), j(f"{p}.train.json")
    if p == "udpipe":
        speed = "%.0f" % j("udpipe.parse.json")["words_per_second"]
        name = "UDPipe 1 (parser defaults)"
    else:
        log = open(f"{out}/tabula.parse.log").read()
        m = re.findall(r"([\d,]+) tokens/s", log)
        speed = m[-1].replace(",", "") if m else "?"
        name = f"tabula `{ours}`"
    print("| %s | %s | %.2f / %.2f | %.2f / %.2f | %.0f s | %s |" % (
        tb, name, e["all"]["uas"], e["all"]["las"], e["no_punct"]["uas"], e["no_punct"]["las"],
        t["train_seconds"], speed))
PY
