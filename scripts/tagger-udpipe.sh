#!/usr/bin/env bash
# UDPipe 1's tagger on the same files as `tabula train-tagger`: installs PyPI `ufal.udpipe` into target/udpipe/venv (first run
# only), trains UDPipe's tagger alone (tokenizer=none, parser=none; tagger
# options "models=1;use_lemma=0;provide_lemma=0": one model for UPOS, XPOS
# and FEATS jointly, no lemmas; DEV as its heldout set), tags TEST, and
# prints UPOS and FEATS accuracy against the gold file with the training and
# tagging seconds (without model loading) and `uptime`.
# Usage: scripts/tagger-udpipe.sh [TREEBANK]   (default el_gdt; from the repo root)
# Environment: UD (../shared/ud/v2.2), OUT (target/udpipe/tagger),
# UDPIPE_OPTS (more tagger options, e.g. "iterations=1"), SKIP_UDPIPE=1
# (reuse an existing model in OUT), NICE (default 10).
set -euo pipefail
TB=${1:-el_gdt}
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/udpipe/tagger}
NICE=${NICE:-10}
OPTS="models=1;use_lemma=0;provide_lemma=0${UDPIPE_OPTS:+;$UDPIPE_OPTS}"
# shellcheck source=scripts/udpipe-env.sh
source "$(dirname "$0")/udpipe-env.sh"
udpipe_venv
udpipe_data "$UD" "$TB" "$OUT" "$TB-"
PY=$UDPIPE_PY
echo "load before: $(uptime)"
if [ "${SKIP_UDPIPE:-0}" != 1 ] || [ ! -f "$OUT/$TB.model" ]; then
  nice -n "$NICE" "$VENV/bin/python" "$PY" train-tagger "$OUT/$TB-train.conllu" "$OUT/$TB-dev.conllu" "$OUT/$TB.model" "$OPTS" \
    > "$OUT/$TB.train.json" 2> "$OUT/$TB.train.log"
fi
nice -n "$NICE" "$VENV/bin/python" "$PY" tag "$OUT/$TB.model" "$OUT/$TB-test.conllu" "$OUT/$TB.test.conllu" \
  > "$OUT/$TB.tag.json"
echo "load after: $(uptime)"
python3 - "$OUT/$TB-test.conllu" "$OUT/$TB.test.conllu" "$OUT/$TB.train.json" "$OUT/$TB.tag.json" <<'PY'
import json, sys
def words(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l[:1].isdigit() and l.split("\t", 1)[0].isdigit()]
gold, pred = words(sys.argv[1]), words(sys.argv[2])
assert [g[1] for g in gold] == [p[1] for p in pred], "the files do not align"
feats = lambda f: set() if f == "_" else set(f.split("|"))
upos = sum(g[3] == p[3] for g, p in zip(gold, pred)) / len(gold)
ufeats = sum(feats(g[5]) == feats(p[5]) for g, p in zip(gold, pred)) / len(gold)
train, tag = (json.load(open(p)) for p in sys.argv[3:5])
print(f"UDPipe 1 tagger: {len(gold)} words: UPOS {100 * upos:.2f}% FEATS {100 * ufeats:.2f}%; "
      f"training {train['train_seconds']:.0f} s ({train['train_cpu_seconds']:.0f} s CPU); "
      f"tagging {tag['words_per_second']:.0f} words/s")
PY
