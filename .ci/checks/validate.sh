#!/usr/bin/env bash
# The official UD validator (udtools, `validate.py --level 3`) on the outputs of
# `tabula projectivize` for every shared UD file: the optimal output
# (--prefer default) and the lifted one, with for each the number of `leaf-*`
# errors and of L3 syntax errors. With VALIDATE_TABLE=1 it also validates the
# original file and the optimal output with --prefer none (the table in
# docs/projectivize.md; twice the time).
#
# What it asserts, per file:
#  * --prefer default keeps exactly as many gold heads as --prefer none (the optimum);
#  * tabula's `leaf` rule is the validator's leaf-* test: for the optimal and the
#    lifted output (projective trees), `tabula projectivize --stats` counts as many words under
#    function words that may not take them as the validator reports leaf-* errors;
#  * so `--prefer` with the single rule `leaf -1` gives the fewest leaf-* errors of
#    any optimal tree (the minimum, "min" below; a default output above it is a NOTE);
#  * the optimal output has no more leaf-* errors than lifting, unless even the
#    minimum has more (then no optimal tree can match lifting: `NOTE proven`);
#  * --objective valid-first (the fewest leaf-* errors of any projective tree, then the
#    most gold heads) has no more leaf-* errors than the minimum above and than lifting
#    (lifting's trees are projective trees), and tabula's count is the validator's;
#  * on the sentences where lifting keeps as many gold heads as the optimum (so
#    lifting's tree is itself one of the optimal trees --prefer chooses among), the
#    optimal output has no more leaf-* errors and no more L3 syntax errors than lifting.
# Whole-file L3 syntax counts above lifting's are printed as NOTE (docs/projectivize.md
# explains the cases).
#
# Every file is validated whole (about 2.5 minutes for all shared files on a loaded
# 2-core machine); nothing is sampled. Run from the repository root. Installs
# udtools from PyPI into target/udtools-venv (once). Skips with a message when
# ../shared/ud is absent.
set -euo pipefail
UD=../shared/ud
if [ ! -d "$UD" ]; then
  echo "validate.sh: $UD is absent, skipping the validator check"
  exit 0
fi
VENV=target/udtools-venv
if [ ! -x "$VENV/bin/udvalidate" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet udtools
fi
VALIDATE=$PWD/$VENV/bin/udvalidate # the console entry point of udtools' validate.py
SPLIT=$PWD/.ci/checks/validate_by_sentence.py
[ -x target/release/tabula ] || cargo build --release
TABULA=$PWD/target/release/tabula
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# counts <conllu> <lang>: "<leaf-* errors> <L3 syntax errors>"; keeps <conllu>.val.
counts() {
  "$VALIDATE" --lang "$2" --level 3 --max-err 0 "$1" > "$1.val" 2>&1 || true
  local leaf syntax
  leaf=$(grep -c '\[L3 SYNTAX leaf-' "$1.val" || true)
  syntax=$(sed -n 's/^SYNTAX errors: //p' "$1.val")
  echo "${leaf:-0} ${syntax:-0}"
}
# stats_leaf <tabula projectivize args...>: tabula's count of arcs under function words
# that may not take them, as "<input> <output>".
stats_leaf() {
  "$TABULA" projectivize "$@" --stats 2>&1 >/dev/null | sed -n 's/^words under a function word.*: input \([0-9]*\), output \([0-9]*\)$/\1 \2/p'
}
printf 'leaf -1\n' > "$TMP/leaf-only.weights"
# kept <gold> <output>: the number of words whose HEAD is unchanged.
kept() { paste <(cut -s -f1,7 "$1") <(cut -s -f7 "$2") | awk -F'\t' '$1 ~ /^[0-9]+$/ && $2 == $3 { k++ } END { print k + 0 }'; }

fail=0
table=${VALIDATE_TABLE:-0}
echo "leaf-* errors (L3 syntax errors); 'lift optimal' = sentences where lifting keeps as many gold heads as the optimum"
if [ "$table" = 1 ]; then
  printf '%-22s %12s %12s %12s %6s %12s %12s %14s | %-25s\n' file original "opt. none" optimal min lift \
    "valid-first" "heads lost" "lift optimal: opt. / lift"
else
  printf '%-22s %12s %6s %12s %12s | %-25s\n' file optimal min lift "valid-first" "lift optimal: opt. / lift"
fi
for xz in "$UD"/*/*.conllu.xz; do
  name=$(basename "$xz" .conllu.xz)
  lang=${name%%_*}
  in=$TMP/$name.conllu
  xz -dc "$xz" > "$in"
  "$TABULA" projectivize "$in" -o "$TMP/$name.none.conllu" --prefer none
  "$TABULA" projectivize "$in" -o "$TMP/$name.optimal.conllu"
  "$TABULA" projectivize "$in" -o "$TMP/$name.lift.conllu" --method lift
  if [ "$(kept "$in" "$TMP/$name.none.conllu")" != "$(kept "$in" "$TMP/$name.optimal.conllu")" ]; then
    echo "FAIL $name: --prefer default keeps a different number of gold heads than --prefer none"; fail=1
  fi
  read -r p_leaf p_syn < <(counts "$TMP/$name.optimal.conllu" "$lang")
  read -r l_leaf l_syn < <(counts "$TMP/$name.lift.conllu" "$lang")
  read -r _ s_opt < <(stats_leaf "$in" -o /dev/null)
  read -r _ s_lift < <(stats_leaf "$in" -o /dev/null --method lift)
  read -r _ min_leaf < <(stats_leaf "$in" -o "$TMP/$name.min.conllu" --prefer "$TMP/leaf-only.weights")
  read -r v_min _ < <(counts "$TMP/$name.min.conllu" "$lang")
  read -r _ s_valid < <(stats_leaf "$in" -o "$TMP/$name.valid.conllu" --objective valid-first)
  read -r vf_leaf vf_syn < <(counts "$TMP/$name.valid.conllu" "$lang")
  for pair in "optimal $s_opt $p_leaf" "lift $s_lift $l_leaf" "min $min_leaf $v_min" "valid-first $s_valid $vf_leaf"; do
    read -r what ours theirs <<< "$pair"
    if [ "$ours" != "$theirs" ]; then
      echo "FAIL $name ($what): tabula counts $ours words under function words, the validator $theirs leaf-* errors"; fail=1
    fi
  done
  if [ "$vf_leaf" -gt "$min_leaf" ] || [ "$vf_leaf" -gt "$l_leaf" ]; then
    echo "FAIL $name: valid-first has $vf_leaf leaf-* errors, more than the optimum's minimum $min_leaf or lift's $l_leaf"; fail=1
  fi
  if [ "$p_leaf" -gt "$min_leaf" ]; then
    echo "NOTE $name: the default output has $p_leaf leaf-* errors, the fewest of any optimal tree is $min_leaf"
  fi
  read -r _ _ _ _ t_p_leaf t_p_syn t_l_leaf t_l_syn _ < <(python3 "$SPLIT" "$in" "$TMP/$name.optimal.conllu" \
    "$TMP/$name.lift.conllu" "$TMP/$name.optimal.conllu.val" "$TMP/$name.lift.conllu.val")
  note=""
  if [ "$p_leaf" -gt "$l_leaf" ]; then
    if [ "$min_leaf" -gt "$l_leaf" ]; then
      note="  NOTE proven: every optimal tree has more leaf-* errors than lift"
    else
      echo "FAIL $name: $p_leaf leaf-* errors, lift $l_leaf, yet an optimal output has $min_leaf"; fail=1
    fi
  elif [ "$p_syn" -gt "$l_syn" ]; then
    note="  NOTE: more L3 syntax errors than lift over the whole file"
  fi
  if [ "$table" = 1 ]; then
    read -r o_leaf o_syn < <(counts "$in" "$lang")
    read -r n_leaf n_syn < <(counts "$TMP/$name.none.conllu" "$lang")
    # Gold heads lost: by the optimal output, by valid-first.
    total=$(cut -s -f1 "$in" | grep -c '^[0-9]*$' || true)
    lost="$((total - $(kept "$in" "$TMP/$name.optimal.conllu"))) / $((total - $(kept "$in" "$TMP/$name.valid.conllu")))"
    printf '%-22s %12s %12s %12s %6s %12s %12s %14s | %s / %s%s\n' "$name" "$o_leaf ($o_syn)" "$n_leaf ($n_syn)" \
      "$p_leaf ($p_syn)" "$min_leaf" "$l_leaf ($l_syn)" "$vf_leaf ($vf_syn)" "$lost" \
      "$t_p_leaf ($t_p_syn)" "$t_l_leaf ($t_l_syn)" "$note"
  else
    printf '%-22s %12s %6s %12s %12s | %s / %s%s\n' "$name" "$p_leaf ($p_syn)" "$min_leaf" "$l_leaf ($l_syn)" \
      "$vf_leaf ($vf_syn)" "$t_p_leaf ($t_p_syn)" "$t_l_leaf ($t_l_syn)" "$note"
  fi
  if [ "$t_p_leaf" -gt "$t_l_leaf" ]; then
    echo "FAIL $name: where lifting is optimal, optimal has $t_p_leaf leaf-* errors, lift $t_l_leaf"; fail=1
  fi
  if [ "$t_p_syn" -gt "$t_l_syn" ]; then
    echo "FAIL $name: where lifting is optimal, optimal has $t_p_syn L3 syntax errors, lift $t_l_syn"; fail=1
  fi
  rm -f "$TMP/$name".*
done
exit $fail
