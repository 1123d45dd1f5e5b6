#!/usr/bin/env python3
"""Splits UD validator counts (leaf-* and L3 syntax errors) of an optimal and a
lifted projectivization by whether lifting kept as many gold heads as the
optimum in that sentence. Used by validate.sh.

Usage: validate_by_sentence.py GOLD OPTIMAL LIFT OPTIMAL.val LIFT.val

Prints one line:
  <opt leaf> <opt syntax> <lift leaf> <lift syntax> <tie opt leaf> <tie opt syntax> <tie lift leaf> <tie lift syntax> <sentences where lift is optimal>
where "tie" counts only sentences in which the lifted tree keeps as many gold
heads as the optimal one, i.e. lifting's tree is itself one of the optimal trees
among which --prefer chooses. Elsewhere, lifting drops gold arcs that every
optimal tree keeps, and with them errors of the original annotation.
"""
import re
import sys


def heads(path):
    """sent_id -> list of HEAD fields of the word lines, in file order."""
    out, sid, cur = {}, None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# sent_id = "):
                sid = line[len("# sent_id = "):].strip()
            elif not line:
                if cur:
                    out[sid] = cur
                sid, cur = None, []
            elif not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    cur.append(cols[6])
    if cur:
        out[sid] = cur
    return out


def errors(path):
    """sent_id -> [leaf-* errors, L3 syntax errors]."""
    out = {}
    pat = re.compile(r"Sent ([^\]]+)\]: \[L3 SYNTAX ([a-z-]+)\]")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = pat.search(line)
            if m:
                c = out.setdefault(m.group(1), [0, 0])
                c[0] += m.group(2).startswith("leaf-")
                c[1] += 1
    return out


def main():
    gold, opt, lift = (heads(p) for p in sys.argv[1:4])
    eo, el = errors(sys.argv[4]), errors(sys.argv[5])
    total = [0] * 8
    ties = 0
    for sid, g in gold.items():
        ko = sum(a == b for a, b in zip(g, opt.get(sid, [])))
        kl = sum(a == b for a, b in zip(g, lift.get(sid, [])))
        o, l = eo.get(sid, [0, 0]), el.get(sid, [0, 0])
        total[0] += o[0]
        total[1] += o[1]
        total[2] += l[0]
        total[3] += l[1]
        if kl == ko:
            ties += 1
            total[4] += o[0]
            total[5] += o[1]
            total[6] += l[0]
            total[7] += l[1]
    print(*total, ties)


if __name__ == "__main__":
    main()
