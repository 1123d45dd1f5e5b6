#!/usr/bin/env bash
# Lays out Universal Dependencies 2.0 as the release did:
#
#   DEST/UD_Hungarian/hu-ud-train.conllu, hu-ud-dev.conllu, hu-ud-test.conllu, LICENSE.txt, README*
#
# from the treebanks' repositories at their release tags: the training and
# development files at tag r2.0, the test files at tag r2.0-test (UD 2.0's
# test data was published later, after the CoNLL 2017 shared task). Files
# keep the names of then (language code, no treebank name for a language's
# first treebank: `hu-ud-train.conllu`, `en_partut-ud-train.conllu`). A
# training file committed in parts (UD_Czech: cs-ud-train-c.conllu, -l, -m,
# -v) is also joined into one `CODE-ud-train.conllu`, in the parts' order.
#
# Usage: scripts/fetch-ud-2.0.sh [DEST [UD_NAME ...]]
#   DEST     default: ud-treebanks-v2.0
#   UD_NAME  repositories to fetch (default: every treebank of UD 2.0, below)
# Environment: UD_GIT_BASE, where the repositories are
#   (default https://github.com/UniversalDependencies; a local mirror:
#   file:///path/to/mirrors, holding UD_NAME.git).
#   A mirror must hold the repositories by the names above: UD_Portuguese is
#   now UD_Portuguese-Bosque on GitHub (which redirects the old name).
# A file the repository does not hold at the tag (UD_English's training file,
# 11.8 MB, is missing from some mirrors) is taken from UD_FILES (default
# ../shared/ud/v2.0 beside the repository, when there), laid out as the
# release (UD_FILES/UD_NAME/FILE, or FILE.xz), and used only if its git blob
# id is the one the tag records.
# Only the release's files are downloaded (a shallow clone without file
# contents, then the top-level CoNLL-U, LICENSE and README files), never a
# repository's sources (not-to-release/). A treebank already laid out (its
# folder has a test file) is skipped, so an interrupted run continues. A
# repository without the tag r2.0, or whose files cannot be had there, is
# reported and skipped; one without a test file at r2.0-test is laid out
# without it (and the sweep leaves it out). Network and git 2.25 or later
# needed.
set -euo pipefail
DEST=${1:-ud-treebanks-v2.0}
[ $# -gt 0 ] && shift
BASE=${UD_GIT_BASE:-https://github.com/UniversalDependencies}
UD_FILES=${UD_FILES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/ud/v2.0}

# The treebanks of UD 2.0 (March 2017), by the repository names of then.
UD20=(
  UD_Ancient_Greek UD_Ancient_Greek-PROIEL UD_Arabic UD_Basque UD_Belarusian
  UD_Bulgarian UD_Catalan UD_Chinese UD_Coptic UD_Croatian UD_Czech UD_Czech-CAC
  UD_Czech-CLTT UD_Danish UD_Dutch UD_Dutch-LassySmall UD_English UD_English-LinES
  UD_English-ParTUT UD_Estonian UD_Finnish UD_Finnish-FTB UD_French
  UD_French-ParTUT UD_French-Sequoia UD_Galician UD_Galician-TreeGal UD_German
  UD_Gothic UD_Greek UD_Hebrew UD_Hindi UD_Hungarian UD_Indonesian UD_Irish
  UD_Italian UD_Italian-ParTUT UD_Japanese UD_Kazakh UD_Korean UD_Latin
  UD_Latin-ITTB UD_Latin-PROIEL UD_Latvian UD_Lithuanian UD_Norwegian-Bokmaal
  UD_Norwegian-Nynorsk UD_Old_Church_Slavonic UD_Persian UD_Polish UD_Portuguese
  UD_Portuguese-BR UD_Romanian UD_Russian UD_Russian-SynTagRus UD_Sanskrit
  UD_Slovak UD_Slovenian UD_Slovenian-SST UD_Spanish UD_Spanish-AnCora
  UD_Swedish UD_Swedish-LinES UD_Swedish_Sign_Language UD_Tamil UD_Turkish
  UD_Ukrainian UD_Urdu UD_Uyghur UD_Vietnamese
)
[ $# -gt 0 ] && UD20=("$@")

mkdir -p "$DEST"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# tag_files TAG DIR: the top-level CoNLL-U, LICENSE and README files of
# $BASE/$repo.git at TAG, in DIR. A shallow clone without file contents
# (`--filter=blob:none`, which a local mirror is told to allow) and then only
# those files: the rest of a repository (not-to-release/ sources, in some
# repositories hundreds of megabytes) is never downloaded.
LOCAL=()
case $BASE in file://* | /*) LOCAL=(--upload-pack 'git -c uploadpack.allowFilter=true upload-pack') ;; esac
tag_files() {
  local tag=$1 dir=$2 files f
  git clone --quiet --depth 1 --filter=blob:none --no-checkout --branch "$tag" \
    "${LOCAL[@]}" "$BASE/$repo.git" "$dir" || return 1
  mapfile -t files < <(git -C "$dir" ls-tree --name-only HEAD |
    grep -E '^([^/]*-ud-(train|dev|test)[^/]*\.conllu|LICENSE[^/]*|README[^/]*)$')
  for f in "${files[@]}"; do
    git -C "$dir" checkout --quiet HEAD -- "$f" 2> /dev/null || from_ud_files "$dir" "$f" || return 1
  done
}
# from_ud_files DIR FILE: FILE of the tag cloned in DIR, from UD_FILES,
# if its blob id is the one the tag records.
from_ud_files() {
  local dir=$1 f=$2 want got
  want=$(git -C "$dir" rev-parse "HEAD:$f")
  if [ -f "$UD_FILES/$repo/$f.xz" ]; then
    xz -dc "$UD_FILES/$repo/$f.xz" > "$dir/$f"
  elif [ -f "$UD_FILES/$repo/$f" ]; then
    cp "$UD_FILES/$repo/$f" "$dir/$f"
  else
    echo "fatal: $f (blob $want) is not in the repository, nor in UD_FILES ($UD_FILES/$repo)" >&2
    return 1
  fi
  got=$(git hash-object "$dir/$f")
  if [ "$got" != "$want" ]; then
    rm -f "$dir/$f"
    echo "fatal: $UD_FILES/$repo/$f has blob id $got, the tag records $want" >&2
    return 1
  fi
  echo "$repo: $f taken from $UD_FILES/$repo (blob id checked)"
}

laid=0 skipped=()
for repo in "${UD20[@]}"; do
  out="$DEST/$repo"
  if compgen -G "$out/*-ud-test.conllu" > /dev/null; then
    echo "$repo: already laid out"
    laid=$((laid + 1))
    continue
  fi
  rm -rf "$TMP/r2.0" "$TMP/r2.0-test" "$out"
  if ! tag_files r2.0 "$TMP/r2.0" 2> "$TMP/err"; then
    echo "$repo: cannot fetch its files at tag r2.0, left out: $(grep -m1 -E 'fatal|error' "$TMP/err" || tail -1 "$TMP/err")" >&2
    skipped+=("$repo")
    continue
  fi
  mkdir -p "$out"
  cp "$TMP"/r2.0/*-ud-train*.conllu "$TMP"/r2.0/*-ud-dev.conllu "$out"/ 2> /dev/null || true
  cp "$TMP"/r2.0/LICENSE* "$TMP"/r2.0/README* "$out"/ 2> /dev/null || true
  # A training file in parts (CODE-ud-train-X.conllu): joined, as the shared task used it.
  parts=("$out"/*-ud-train-*.conllu)
  if [ -e "${parts[0]}" ]; then
    code=$(basename "${parts[0]}" | sed 's/-ud-train-.*//')
    cat "${parts[@]}" > "$out/$code-ud-train.conllu"
  fi
  if tag_files r2.0-test "$TMP/r2.0-test" 2> "$TMP/err" \
    && compgen -G "$TMP/r2.0-test/*-ud-test.conllu" > /dev/null; then
    cp "$TMP"/r2.0-test/*-ud-test.conllu "$out"/
  else
    echo "$repo: no test file at tag r2.0-test" >&2
  fi
  echo "$repo: $(cd "$out" && ls -- *.conllu | tr '\n' ' ')"
  laid=$((laid + 1))
done
echo "$laid treebanks in $DEST${skipped[*]:+; left out: ${skipped[*]}}"
