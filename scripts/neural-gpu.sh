#!/usr/bin/env bash
# The neural parser's epoch on a GPU (docs/neural.md, "Time"): a few epochs of
# en_ewt with the command's defaults and with the best configuration of the
# en_ewt runs, and of el_gdt with Attardi's oracle, each with `--device cuda`
# and the dev file scored after every epoch; then the test file parsed on the
# GPU and on the CPU (words per second after the model is loaded, the second of
# two passes) and scored. Logs and parses go to OUT; the epoch lines (time,
# share of the oracle and the minibatch API) are printed at the end.
# Usage: scripts/neural-gpu.sh   (from the repo root, on a machine with CUDA)
# Environment: UD (directory of the xz treebanks, ../shared/ud/v2.2), OUT
# (target/neural-gpu), EPOCHS (2), DEVICE (cuda), THREADS (PyTorch's CPU
# threads, 2), PYTHON (python3 with torch and tabula_parsing), BIN
# (target/release/tabula), CPU_BASELINE (1: also one en_ewt epoch on the CPU).
set -euo pipefail
UD=${UD:-../shared/ud/v2.2}
OUT=${OUT:-target/neural-gpu}
EPOCHS=${EPOCHS:-2}
DEVICE=${DEVICE:-cuda}
THREADS=${THREADS:-2}
PYTHON=${PYTHON:-python3}
BIN=${BIN:-target/release/tabula}
CPU_BASELINE=${CPU_BASELINE:-1}
mkdir -p "$OUT"
"$PYTHON" - "$DEVICE" <<'EOF'
import sys
import torch
device = sys.argv[1]
name = torch.cuda.get_device_name(device) if device.startswith("cuda") else "cpu"
print("torch", torch.__version__, "on", name)
EOF

# NAME TREEBANK DEVICE EPOCHS OPTIONS...
run() {
  local name=$1 tb=$2 device=$3 epochs=$4
  shift 4
  local m="$OUT/$name.pt"
  "$PYTHON" -m tabula_parsing.neural train "$UD/$tb-ud-train.conllu.xz" -o "$m" \
    --dev "$UD/$tb-ud-dev.conllu.xz" --epochs "$epochs" --seed 1 --threads "$THREADS" \
    --device "$device" "$@" 2> "$OUT/$name.log" || { cat "$OUT/$name.log"; return 1; }
  "$PYTHON" - "$m" "$UD/$tb-ud-test.conllu.xz" "$OUT/$name.conllu" "$device" >> "$OUT/$name.log" <<'EOF'
import lzma, sys, time
import torch
from tabula_parsing import neural
model, test, out, device = sys.argv[1:]
words = sum(1 for line in lzma.open(test, "rt") if line.split("\t", 1)[0].isdigit())
parser = neural.load(model)
for device in dict.fromkeys([device, "cpu"]):
    for _ in range(2):
        wall, cpu = time.perf_counter(), time.process_time()
        parser.parse_file(test, out, device=device)
        if device != "cpu":
            torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"parse on {device}: {words} words in {wall:.2f} s wall ({words / wall:.0f} words/s), {cpu:.2f} s CPU")
EOF
  "$BIN" eval "$UD/$tb-ud-test.conllu.xz" "$OUT/$name.conllu" >> "$OUT/$name.log"
}

run en_ewt-ah en_ewt "$DEVICE" "$EPOCHS" --system arc-hybrid
run en_ewt-ah-big-avg en_ewt "$DEVICE" "$EPOCHS" --system arc-hybrid --lstm-dim 200 --mlp-dim 200 \
  --learning-rate 2e-3 --average 0.999
run el_gdt-attardi el_gdt "$DEVICE" "$EPOCHS" --system attardi --projectivize none
[ "$CPU_BASELINE" = 1 ] && run en_ewt-ah-cpu en_ewt cpu 1 --system arc-hybrid
for log in "$OUT"/*.log; do
  echo "== ${log##*/}"
  grep -E "^epoch|^parse|UAS|LAS" "$log" || cat "$log"
done
