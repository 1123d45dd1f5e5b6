#!/usr/bin/env bash
# UDPipe 1's parser beside ours on the same files:
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
# an existing UDPipe model in OUT), NICE (default 10), UDPIPE_OPTS (UDPipe
# parser options instead of its defaults, e.g. "embedding_feats=0": no FEATS),
# UDPIPE_PARSE_OPTS (UDPipe's parser options at parse time; its parser reads
# only "beam_search=N", the beam, 5 when not given: "beam_search=1" is greedy).
set -euo pipefail
TB=${1:-el_gdt}
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/udpipe/$TB}
OURS=${OURS:---system arc-standard --oracle dynamic --epochs 15 --seed 1}
NICE=${NICE:-10}
BIN=${BIN:-target/release/tabula}
[ -x "$BIN" ] || cargo build --release --quiet
# shellcheck source=scripts/udpipe-env.sh
source "$(dirname "$0")/udpipe-env.sh"
udpipe_venv
udpipe_data "$UD" "$TB" "$OUT" ""
PY=$UDPIPE_PY
echo "load before: $(uptime)" | tee "$OUT/load.txt"
if [ "${SKIP_UDPIPE:-0}" != 1 ] || [ ! -f "$OUT/udpipe.model" ]; then
  nice -n "$NICE" "$VENV/bin/python" "$PY" train "$OUT/train.conllu" "$OUT/dev.conllu" "$OUT/udpipe.model" \
    ${UDPIPE_OPTS:+"$UDPIPE_OPTS"} > "$OUT/udpipe.train.json" 2> "$OUT/udpipe.train.log"
fi
nice -n "$NICE" "$VENV/bin/python" "$PY" parse "$OUT/udpipe.model" "$OUT/test.conllu" "$OUT/udpipe.test.conllu" \
  ${UDPIPE_PARSE_OPTS:+"$UDPIPE_PARSE_OPTS"} > "$OUT/udpipe.parse.json"
# shellcheck disable=SC2086
nice -n "$NICE" /usr/bin/time -f "%e %U %S" -o "$OUT/tabula.train.time" \
  "$BIN" train "$OUT/train.conllu" -o "$OUT/tabula.model" --dev "$OUT/dev.conllu" $OURS 2> "$OUT/tabula.train.log"
read -r wall user sys < "$OUT/tabula.train.time"
# awk, not bc: bc writes 0.45 as ".45", which is not JSON.
awk -v w="$wall" -v u="$user" -v s="$sys" \
  'BEGIN { printf "{\"train_seconds\": %.2f, \"train_cpu_seconds\": %.2f}\n", w, u + s }' > "$OUT/tabula.train.json"
nice -n "$NICE" /usr/bin/time -f "%e %U %S" -o "$OUT/tabula.parse.time" \
  "$BIN" parse --model "$OUT/tabula.model" "$OUT/test.conllu" -o "$OUT/tabula.test.conllu" --stats \
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
print(f"| treebank | parser | test UAS / LAS | without PUNCT | training: wall (CPU) | parsing, 1 thread: words/s wall (CPU) |")
print("|---|---|---|---|---|---|")
for p in ("udpipe", "tabula"):
    e, t = j(f"{p}.eval.json"), j(f"{p}.train.json")
    if p == "udpipe":
        u = j("udpipe.parse.json")
        speed = "%.0f (%.0f)" % (u["words_per_second"], u["words_per_cpu_second"])
        opts = f", parse options `{u['parse_options']}`" if u.get("parse_options") else ""
        name = f"UDPipe 1 (parser defaults{opts}, beam {u.get('beam', 5)})"
    else:
        # The parsing loop's own figure (wall), and CPU time of the whole
        # process (which includes reading the model).
        log = open(f"{out}/tabula.parse.log").read()
        m = re.findall(r"([\d,]+) tokens/s", log)
        wall, user, sys_ = map(float, open(f"{out}/tabula.parse.time").read().split())
        words = e["all"]["words"]
        speed = "%s (%.0f incl. loading the model)" % (m[-1].replace(",", "") if m else "?", words / max(user + sys_, 1e-9))
        name = f"tabula `{ours}`"
    cpu = t.get("train_cpu_seconds")
    print("| %s | %s | %.2f / %.2f | %.2f / %.2f | %.0f s (%s) |  %s |" % (
        tb, name, e["all"]["uas"], e["all"]["las"], e["no_punct"]["uas"], e["no_punct"]["las"],
        t["train_seconds"], "%.0f s" % cpu if cpu is not None else "?", speed))
PY
