# Sourced by scripts/udpipe-compare.sh and scripts/tagger-udpipe.sh: the
# Python environment with PyPI `ufal.udpipe` (installed into
# target/udpipe/venv on first use) and the UD files of a treebank.

VENV=target/udpipe/venv
UDPIPE_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/udpipe_compare.py"

# Installs ufal.udpipe into $VENV unless it is there.
udpipe_venv() {
  if ! "$VENV/bin/python" -c 'import ufal.udpipe' 2> /dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet ufal.udpipe
  fi
}

# udpipe_data UD TREEBANK DIR PREFIX: decompresses UD/TREEBANK-ud-PART.conllu.xz
# into DIR/PREFIXPART.conllu for the train, dev and test parts, unless there.
udpipe_data() {
  mkdir -p "$3"
  local part
  for part in train dev test; do
    [ -f "$3/$4$part.conllu" ] || xz -dc "$1/$2-ud-$part.conllu.xz" > "$3/$4$part.conllu"
  done
}
