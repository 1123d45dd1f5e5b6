#!/usr/bin/env bash
# Runs the fuzz targets, each for SECONDS (default 20) and as many at once as
# there are CPUs, after seeding their corpora from tests/data. Needs a nightly
# toolchain (cargo-fuzz builds with sanitizer flags); without one it says so
# and exits 0, so CI can call it unconditionally. Installs cargo-fuzz from the
# registry if missing.
#
#   fuzz/run.sh [SECONDS] [TARGET ...]
#
# Crashes are saved under fuzz/artifacts/TARGET/ (and the script fails);
# replay one with `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-…`.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-20}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(conllu_roundtrip conllu_lines grammar_text oracle_json weights model_read eval_align draw)

if ! command -v rustup >/dev/null || ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz/run.sh: no nightly toolchain installed (rustup toolchain install nightly); skipping the fuzz smoke"
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# Seeds: every file of tests/data that the target reads, one input per file.
seed() {
  local dir=corpus/$1
  mkdir -p "$dir"
  case $1 in
    conllu_roundtrip) cp ../tests/data/conllu/*.conllu ../tests/data/oracle/*.conllu ../data/*.conllu "$dir"/ ;;
    conllu_lines)
      # Bytes that build lines (see the target): words, ranges, empty nodes, comments, line ends.
      printf '\x00\x00\x06' > "$dir/seed-two-words"
      printf '\x0b\x00\x00\x04\x06\x00' > "$dir/seed-range-empty-node"
      printf '\x85\x80\x80\x86' > "$dir/seed-crlf"
      printf '\xc0\xc0\xc6' > "$dir/seed-cr"
      printf '\x05\x06\x00\x06' > "$dir/seed-comment-block"
      cp ../data/*.conllu "$dir"/ ;;
    grammar_text) cp ../grammars/*.grammar ../tests/data/grammars/*.grammar "$dir"/ ;;
    oracle_json)
      local i=0
      while IFS= read -r line; do
        i=$((i + 1))
        printf '%s' "$line" > "$dir/seed-$i.json"
      done < ../tests/data/oracle/configurations.jsonl
      # Every system, with arcs (arc-eager needs them beyond the root).
      printf '%s' '{"system":"arc-hybrid","stack":[0,1],"buffer":[3,4],"gold":[-1,2,0,2,3],"arcs":[[1,2]]}' > "$dir/seed-hybrid.json"
      printf '%s' '{"system":"arc-eager","stack":[0,3,5],"buffer":[6,7],"gold":[-1,2,0,2,5,3,5,5],"arcs":[[3,1],[3,2],[3,5],[5,4]]}' > "$dir/seed-eager.json"
      printf '%s' '{"system":"arc-eager","stack":[0],"buffer":[1,2,3],"gold":[-1,2,0,2],"strategy":"none"}' > "$dir/seed-eager-initial.json" ;;
    model_read)
      # Small models (greedy and beam) from the release binary, if built.
      if [ -x ../target/release/tabula ]; then
        ../target/release/tabula train ../data/sample.conllu -o "$dir/seed-greedy.model" \
          --step-bits 4 --label-bits 4 --epochs 1 2>/dev/null || true
        ../target/release/tabula train ../data/sample.conllu -o "$dir/seed-beam.model" \
          --step-bits 4 --label-bits 4 --epochs 1 --beam 2 --beam-labels 1 2>/dev/null || true
      fi ;;
    eval_align)
      # The first byte splits the input: gold before, prediction after (about half way here).
      { printf '\x80'; cat ../data/sample.conllu ../data/sample.conllu; } > "$dir/seed-sample" ;;
    draw)
      # Built sentences (first byte: words; then heads; fields split at 0xFE) with
      # control characters and XML specials, and (high bit) the sample file as it is.
      printf '\x02\x00\x01s\xfet\xfeK\x01m\xfe_\xfeX\xferoot\xfe_\xfe\x1b[2J\xfe_\xfe\xc2\x9b31m\xfe\x08' > "$dir/seed-controls"
      printf '\x01\x00\x01<&>\xfe"\xfe\xef\xbf\xbe\xfe_\xfeX\xferoot' > "$dir/seed-xml"
      { printf '\x80'; cat ../data/sample.conllu; } > "$dir/seed-sample" ;;
    weights)
      # The first byte is the matrix size (mod 16).
      { printf '\x04'; cat ../tests/data/grammars/weights-4.txt; } > "$dir/seed-weights-4"
      printf '\x02%s' $'0 -inf\n3 0\n' > "$dir/seed-2" ;;
  esac
}

# One target's run: its summary in $work/$t.out, its status in $work/$t.status.
fuzz_one() {
  local t=$1 status=0
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 >"$work/$t.log" 2>&1 || status=$?
  {
    echo "== fuzz $t for ${secs}s"
    grep -E '^(#[0-9]+.*DONE|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))' "$work/$t.log" || true
    if [ "$status" -ne 0 ]; then
      grep -E 'panicked|ERROR|Test unit written' -A3 "$work/$t.log" | head -n 20 || true
      echo "fuzz $t: FAILED (status $status), input saved under fuzz/artifacts/$t/"
    fi
  } >"$work/$t.out"
  echo "$status" >"$work/$t.status"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do seed "$t"; done
# Every target built once, then as many run side by side as there are CPUs
# (each libFuzzer run is one process on one core), each for the whole SECONDS.
for t in "${targets[@]}"; do cargo +nightly fuzz build -O "$t"; done
jobs=$(nproc 2>/dev/null || echo 1)
failed=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  for t in "${batch[@]}"; do fuzz_one "$t" & done
  wait
  for t in "${batch[@]}"; do
    cat "$work/$t.out"
    [ "$(cat "$work/$t.status")" -eq 0 ] || failed=1
  done
done
exit "$failed"
