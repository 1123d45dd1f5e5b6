"""Pictures of trees from Python: `draw` gives what `tabula draw` writes
(the same SVG, page and text for the same sentences), `Sentence` shows
itself as an SVG, and bad calls raise ValueError with a clear message."""

from __future__ import annotations

import re

import pytest

import tabula_parsing as tp
from conftest import ROOT, run, run_docstring_examples

SAMPLE = ROOT / "data" / "sample.conllu"


def test_the_docstring_example_runs() -> None:
    run_docstring_examples([tp.draw])


def moved(text: str, sentence: int, word: str, head: str) -> str:
    """`text` with the HEAD of word `word` of sentence `sentence` (1-based) replaced."""
    blocks = text.split("\n\n")
    lines = blocks[sentence - 1].split("\n")
    for k, line in enumerate(lines):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0] == word:
            cols[6] = head
            lines[k] = "\t".join(cols)
    blocks[sentence - 1] = "\n".join(lines)
    return "\n\n".join(blocks)


def test_the_same_pictures_as_the_command_line(cli, tmp_path) -> None:
    gold = SAMPLE.read_text()
    parsed_text = moved(gold, 2, "3", "1")
    (tmp_path / "parsed.conllu").write_text(parsed_text)
    g = tp.read_conllu(SAMPLE)
    p = tp.parse_conllu(parsed_text, "parsed.conllu")
    names = [str(SAMPLE), str(tmp_path / "parsed.conllu")]
    for fmt, args in [("text", ["--text"]), ("svg", ["-o", str(tmp_path / "x.svg")])]:
        out = run(cli, "draw", *names, *args, "--differences").stdout
        if fmt == "svg":
            out = (tmp_path / "x.svg").read_text()
        assert tp.draw(g, p, format=fmt, names=names, differences=True) == out
    page = tp.draw(g, p, format="html")
    assert page.startswith("<!DOCTYPE html>") and "https://" not in page
    assert "parsed.conllu" in page


def test_a_sentence_shows_itself_as_svg() -> None:
    s = tp.read_conllu(SAMPLE)[0]
    svg = s._repr_svg_()
    assert svg.startswith("<svg") and svg == tp.draw(s)
    assert ">demo-1 · non-projective<" in svg
    assert svg.count('<g class="l') == len(s)


def test_filters_and_text() -> None:
    g = tp.read_conllu(SAMPLE)
    text = tp.draw(g, format="text", nonprojective=True, max_words=8)
    headings = re.findall(r"^# (\S+)", text, re.M)
    assert headings and all(h.startswith("demo-") for h in headings)
    assert len(tp.draw(g, format="text", ids=["demo-2", "1"]).split("\n\n")) == 2


def test_text_trees_too_wide_are_refused() -> None:
    star = "".join(f"{i}\tw{i}\t_\tX\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t_\n" for i in range(1, 1003))
    wide = tp.parse_conllu("# sent_id = star\n" + star + "\n")
    with pytest.raises(ValueError, match=r"sentence star: its text tree would be 2005 columns wide .* max_words="):
        tp.draw(wide, format="text")
    assert tp.draw(wide, format="svg").startswith("<svg")


def test_bad_calls_raise_value_error() -> None:
    g = tp.read_conllu(SAMPLE)
    with pytest.raises(ValueError, match='format must be "svg", "html" or "text"'):
        tp.draw(g, format="png")
    with pytest.raises(ValueError, match="no sentence has the id nope"):
        tp.draw(g, ids=["nope"])
    with pytest.raises(ValueError, match="give other lists"):
        tp.draw(g, differences=True)
    with pytest.raises(ValueError, match="list 2 has 1 sentence, but the first one has"):
        tp.draw(g, g[:1])
    other = tp.parse_conllu(SAMPLE.read_text().replace("\tcat\t", "\tdog\t", 1), "other.conllu")
    with pytest.raises(ValueError, match=r"other.conllu:7: word 4 is `dog`, but .*sample.conllu:7 has `cat`"):
        tp.draw(g, other)
    no_tree = tp.parse_conllu("1\tHi\t_\tINTJ\t_\t_\t_\t_\t_\t_\n\n")
    with pytest.raises(ValueError, match="HEAD `_`"):
        tp.draw(no_tree)


def test_terminal_escapes_in_fields_are_shown_not_sent() -> None:
    # Regression: FORM, DEPREL and sent_id reached the terminal as they were.
    s = tp.parse_conllu("# sent_id = s\x1b]52;c;aGk=\x07\n1\t\x1b[2J\t_\tX\x08\t_\t_\t0\t\x9b31m\t_\t_\n\n")
    text = tp.draw(s, format="text")
    assert not any((c < " " and c != "\n") or "\x7f" <= c < "\xa0" for c in text), repr(text)
    for shown in ["s\\x1b]52;c;aGk=\\x07", "\\x1b[2J X\\x08 \\x9b31m"]:
        assert shown in text, text
    other = tp.parse_conllu("1\tK\x01m\t_\tX\t_\t_\t0\troot\t_\t_\n\n", "other.conllu")
    with pytest.raises(ValueError, match=r"word 1 is `K\\x01m`, but .* has `\\x1b\[2J`"):
        tp.draw(s, other)
    assert "K\\x01m" in tp.draw(other, format="svg") and "\x01" not in tp.draw(other, format="html")
