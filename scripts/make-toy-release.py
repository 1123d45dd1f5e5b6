#!/usr/bin/env python3
"""Writes data/toy-release/: three small generated treebanks laid out as a
Universal Dependencies release (UD_NAME/CODE-ud-{train,dev,test}.conllu), so
that the sweep's quick start runs without the network.

Each toy language has its own word order — where subjects, objects,
determiners, adjectives and adpositions go relative to their heads — and its
own word forms; sentences are a verb with a subject, often an object, and
sometimes a prepositional phrase, an adverb and a final punctuation mark,
with now and then a non-projective arc (an extraposed relative clause) so
that the trees are not all projective. Deterministic: the same files every
run.

    python3 scripts/make-toy-release.py [DEST]     (default: data/toy-release)
"""

import random
import sys
from pathlib import Path

LANGUAGES = {
    # name: (code, seed, head-final verb, determiners before, adjectives before, prepositions)
    "UD_Toy_Alpha": ("toy_alpha", 1, False, True, True, True),
    "UD_Toy_Beta": ("toy_beta", 2, True, False, False, False),
    "UD_Toy_Gamma": ("toy_gamma", 3, True, True, False, True),
}
SIZES = {"train": 150, "dev": 40, "test": 40}


def lexicon(rng, stem_count, suffix):
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "gu"]
    words = set()
    while len(words) < stem_count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) + suffix)
    return sorted(words)


def sentence(rng, lex, verb_final, det_first, adj_first, prepositions):
    """(forms, upos, heads, deprels) of one sentence, 1-based heads."""
    words = []  # (form, upos, head index into words or -1 for root, deprel)

    def noun_phrase(head_of, rel):
        noun = len(words)
        words.append([rng.choice(lex["NOUN"]), "NOUN", head_of, rel])
        parts = []
        if rng.random() < 0.7:
            parts.append(("det", [rng.choice(lex["DET"]), "DET", noun, "det"], det_first))
        if rng.random() < 0.3:
            parts.append(("amod", [rng.choice(lex["ADJ"]), "ADJ", noun, "amod"], adj_first))
        return noun, parts

    order = []
    verb = len(words)
    words.append([rng.choice(lex["VERB"]), "VERB", -1, "root"])
    subj, subj_parts = noun_phrase(verb, "nsubj")
    phrases = [("subj", subj, subj_parts)]
    if rng.random() < 0.7:
        obj, obj_parts = noun_phrase(verb, "obj")
        phrases.append(("obj", obj, obj_parts))
    if rng.random() < 0.35:
        obl, obl_parts = noun_phrase(verb, "obl")
        case = [rng.choice(lex["ADP"]), "ADP", obl, "case"]
        obl_parts.append(("case", case, prepositions))
        phrases.append(("obl", obl, obl_parts))
    adverb = None
    if rng.random() < 0.3:
        adverb = len(words)
        words.append([rng.choice(lex["ADV"]), "ADV", verb, "advmod"])

    def linear(noun, parts):
        before = [p[1] for p in parts if p[2]]
        after = [p[1] for p in parts if not p[2]]
        # The case marker outermost.
        before.sort(key=lambda w: w[3] != "case")
        after.sort(key=lambda w: w[3] == "case")
        return before + [words[noun]] + after

    chunks = {name: linear(noun, parts) for name, noun, parts in phrases}
    order += chunks["subj"]
    middle = [chunks[n] for n in ("obj", "obl") if n in chunks]
    if verb_final:
        for c in middle:
            order += c
        if adverb is not None:
            order.append(words[adverb])
        order.append(words[verb])
    else:
        order.append(words[verb])
        if adverb is not None:
            order.append(words[adverb])
        for c in middle:
            order += c
    # Now and then a relative clause on the subject, extraposed to the end:
    # its arc from the subject crosses the verb's.
    if rng.random() < 0.15:
        rel_verb = [rng.choice(lex["VERB"]), "VERB", subj, "acl"]
        order.append(rel_verb)
        words.append(rel_verb)
    order.append([".", "PUNCT", verb, "punct"])
    words.append(order[-1])
    position = {id(w): i + 1 for i, w in enumerate(order)}
    forms = [w[0] for w in order]
    upos = [w[1] for w in order]
    heads = [0 if w[2] == -1 else position[id(words[w[2]])] for w in order]
    rels = [w[3] for w in order]
    return forms, upos, heads, rels


def main():
    dest = Path(sys.argv[1] if len(sys.argv) > 1 else "data/toy-release")
    for name, (code, seed, verb_final, det_first, adj_first, prepositions) in LANGUAGES.items():
        rng = random.Random(seed)
        suffix = code[4]
        lex = {
            "NOUN": lexicon(rng, 40, suffix + "n"),
            "VERB": lexicon(rng, 25, suffix + "v"),
            "ADJ": lexicon(rng, 15, suffix + "j"),
            "DET": lexicon(rng, 4, suffix),
            "ADP": lexicon(rng, 5, suffix + "p"),
            "ADV": lexicon(rng, 8, suffix + "d"),
        }
        (dest / name).mkdir(parents=True, exist_ok=True)
        for part, count in SIZES.items():
            lines = []
            for k in range(count):
                forms, upos, heads, rels = sentence(rng, lex, verb_final, det_first, adj_first, prepositions)
                lines.append(f"# sent_id = {code}-{part}-{k + 1}")
                lines.append(f"# text = {' '.join(forms)}")
                for i, (f, u, h, r) in enumerate(zip(forms, upos, heads, rels)):
                    lines.append(f"{i + 1}\t{f}\t{f}\t{u}\t_\t_\t{h}\t{r}\t_\t_")
                lines.append("")
            (dest / name / f"{code}-ud-{part}.conllu").write_text("\n".join(lines) + "\n")
    print(f"wrote {len(LANGUAGES)} treebanks to {dest}")


if __name__ == "__main__":
    main()
