#!/usr/bin/env python3
"""Writes CoNLL-U sentences with random trees of N words, to time commands on long
sentences (the cost of an oracle or of projectivization as N grows).

    scripts/long-sentence.py N [--sentences S] [--crossing P] [--shape near|uniform] [--seed X] > long.conllu

The tree is projective and of realistic shape (each word's head is near it: the
dependents of a head are drawn from spans beside it), then a share P of the words
(default 0.05; 0 keeps the tree projective) is re-attached to a random word within
ten positions that is not one of its descendants, which makes crossing arcs. FORM
is w1, w2, …; UPOS and DEPREL are drawn from small sets; the first word of a
sentence is not always the root. With --shape uniform the tree is drawn uniformly
among all trees of N words with one root word (heads anywhere: very non-projective).
"""
import argparse
import random
import sys

UPOS = ["NOUN", "VERB", "ADJ", "ADP", "DET", "PRON", "ADV", "PUNCT", "PROPN", "AUX"]
DEPREL = ["nsubj", "obj", "obl", "amod", "det", "case", "advmod", "punct", "nmod", "conj"]


def projective(n, rng):
    """heads[1..n] of a random projective tree (heads[0] unused)."""
    heads = [0] * (n + 1)
    # Iterative: (lo, hi, head) spans; choose a root in [lo, hi], attach it to head,
    # split the rest into the part left and right of it, each further split.
    todo = [(1, n, 0)]
    while todo:
        lo, hi, head = todo.pop()
        if lo > hi:
            continue
        # Heads near the edge of the span nearest their head make short arcs.
        width = hi - lo + 1
        if head == 0:
            r = rng.randint(lo, hi)
        elif head < lo:
            r = lo + min(width - 1, int(rng.expovariate(1 / 3)))
        else:
            r = hi - min(width - 1, int(rng.expovariate(1 / 3)))
        heads[r] = head
        # Several dependents per head: split each side into chunks.
        for a, b in ((lo, r - 1), (r + 1, hi)):
            while a <= b:
                size = 1 + min(b - a, int(rng.expovariate(1 / 4)))
                if a < r:  # left side: chunks from the head outwards
                    todo.append((b - size + 1, b, r))
                    b -= size
                else:
                    todo.append((a, a + size - 1, r))
                    a += size
    return heads


def uniform(n, rng):
    """heads[1..n] of a uniformly random tree over 0 … n rooted at 0 (Prüfer)."""
    if n == 1:
        return [0, 0]
    seq = [rng.randint(0, n) for _ in range(n - 1)]
    degree = [1] * (n + 1)
    for x in seq:
        degree[x] += 1
    import heapq
    leaves = [x for x in range(n + 1) if degree[x] == 1]
    heapq.heapify(leaves)
    edges = []
    for x in seq:
        leaf = heapq.heappop(leaves)
        edges.append((leaf, x))
        degree[x] -= 1
        if degree[x] == 1:
            heapq.heappush(leaves, x)
    edges.append((heapq.heappop(leaves), heapq.heappop(leaves)))
    adj = {x: [] for x in range(n + 1)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    heads = [0] * (n + 1)
    seen, todo = {0}, [0]
    while todo:
        x = todo.pop()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                heads[y] = x
                todo.append(y)
    # One root word: the others under 0 go under the first of them.
    under = [d for d in range(1, n + 1) if heads[d] == 0]
    for d in under[1:]:
        heads[d] = under[0]
    return heads


def descendants(heads, w):
    children = {}
    for d in range(1, len(heads)):
        children.setdefault(heads[d], []).append(d)
    out, todo = set(), [w]
    while todo:
        x = todo.pop()
        out.add(x)
        todo.extend(children.get(x, []))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--sentences", type=int, default=1)
    ap.add_argument("--crossing", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shape", choices=["near", "uniform"], default="near")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = sys.stdout
    for s in range(a.sentences):
        n = a.n
        heads = projective(n, rng) if a.shape == "near" else uniform(n, rng)
        moves = int(a.crossing * n) if a.shape == "near" else 0
        for _ in range(moves):
            d = rng.randint(1, n)
            if heads[d] == 0:
                continue
            below = descendants(heads, d)
            options = [h for h in range(max(1, d - 10), min(n, d + 10) + 1) if h not in below]
            if options:
                heads[d] = rng.choice(options)
        out.write(f"# sent_id = long-{n}-{s + 1}\n")
        for i in range(1, n + 1):
            rel = "root" if heads[i] == 0 else rng.choice(DEPREL)
            upos = rng.choice(UPOS)
            out.write(f"{i}\tw{i}\tw{i}\t{upos}\t_\t_\t{heads[i]}\t{rel}\t_\t_\n")
        out.write("\n")


if __name__ == "__main__":
    main()
