"""`read_conllu` reads xz- and gzip-compressed treebanks, recognised by their
first bytes (not their names), as the command line does."""

from __future__ import annotations

import gzip
import lzma
import re
from pathlib import Path

import pytest
import tabula_parsing as tp

from conftest import SMALL


def test_compressed_files_read_like_the_plain_one(tmp_path: Path) -> None:
    plain = SMALL.read_bytes()
    want = [(s.heads, s.to_conllu()) for s in tp.read_conllu(SMALL)]
    for name, data in [("a.conllu", lzma.compress(plain)), ("b.txt", gzip.compress(plain))]:
        path = tmp_path / name
        path.write_bytes(data)
        assert [(s.heads, s.to_conllu()) for s in tp.read_conllu(path)] == want


def test_a_truncated_file_says_so(tmp_path: Path) -> None:
    """Regression: a truncated file failed with the decoder's words and a
    line number (`trunc.xz:401: failed to fill whole buffer`); it names the
    file and says the stream is truncated, as the command line does."""
    text = "".join(f"# sent_id = {i}\n1\tw\t_\tX\t_\t_\t0\troot\t_\t_\n\n" for i in range(300)).encode()
    for name, data, format in [("trunc.xz", lzma.compress(text), "xz"), ("trunc.gz", gzip.compress(text), "gzip")]:
        path = tmp_path / name
        path.write_bytes(data[: len(data) // 2])
        message = f"{path}: the {format} stream is truncated"
        calls = [
            lambda: tp.read_conllu(path),
            lambda: tp.evaluate(path, path),
            lambda: tp.Parser.train(path, epochs=1),
            lambda: tp.Tagger.train(path, epochs=1),
            lambda: tp.deprojectivize(path),
        ]
        for call in calls:
            with pytest.raises((ValueError, OSError)) as e:
                call()
            assert str(e.value) == message


def test_a_model_or_grammar_is_named_where_conllu_is_read(tmp_path: Path) -> None:
    """Regression: a parser model read as CoNLL-U failed with "carriage
    return inside a line" at its line 44; it is named as a model, as the
    command line names it."""
    model = tmp_path / "m.model"
    tp.Parser.train(tp.SAMPLE, epochs=1, step_bits=12, label_bits=10).save(model)
    grammar = Path(__file__).resolve().parents[2] / "grammars" / "projective.grammar"
    for path, line, what in [(model, 1, "a tabula parser model (written by tabula train)"), (grammar, 7, "a grammar file")]:
        for call in [lambda: tp.read_conllu(path), lambda: tp.evaluate(tp.SAMPLE, path), lambda: tp.Parser.train(path)]:
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value) == f"{path}:{line}: this is {what}, not CoNLL-U"


WORD = "\t_\t_\tNOUN\t_\t_\t0\troot\t_\t_"

# Each bad input and the message `read_conllu` raises, the command line's
# (tests/cli_one_reader.rs checks the commands).
BAD = [
    ("reversed.conllu", f"3-1\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n\n".encode(),
     "reversed.conllu:1: multiword range `3-1` must be a-b with a < b starting at the next word 1"),
    ("overlap.conllu", f"1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n2\tb\t_\tNOUN\t_\t_\t1\tdep\t_\t_\n\n".encode(),
     "overlap.conllu:2: multiword range `1-2` overlaps the range `1-2` on line 1"),
    ("empty0.conllu", f"1{WORD}\n0.1\te\t_\t_\t_\t_\t_\t_\t_\t_\n\n".encode(),
     "empty0.conllu:2: empty node `0.1`: an empty node k.m comes after word k, so k must be 1 or more"),
    ("comments.conllu", f"# only a comment\n\n1{WORD}\n\n".encode(),
     "comments.conllu:1: the sentence has no words \\(only comment lines\\)"),
    ("cr.conllu", f"# a\r1{WORD}\r\r".encode(),
     "cr.conllu:1: carriage return inside a line"),
    ("trunc.xz", lzma.compress(f"1{WORD}\n\n".encode())[:-10], "trunc.xz: the xz stream is truncated"),
    ("trunc.gz", gzip.compress(f"1{WORD}\n\n".encode())[:20], "trunc.gz: the gzip stream is truncated"),
    ("x.model", b"TABULA-PARSER-MODEL\nversion 3\n\x00\x01\r\x02", "x.model:1: this is a tabula parser model"),
    ("long.conllu", b"x" * (64 * 2**20 + 10), "long.conllu:1: a line longer than 64.0 MiB without a line end"),
]


@pytest.mark.parametrize("name,data,message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_value_error_naming_the_line(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError) as error:
        tp.read_conllu(path)
    assert re.fullmatch(re.escape(f"{tmp_path}/") + message + ".*", str(error.value)), str(error.value)


def test_a_line_without_end_is_an_error_not_an_abort() -> None:
    # /dev/zero never ends: the reader stops at 64 MiB.
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(ValueError, match="/dev/zero:1: a line longer than 64.0 MiB"):
        tp.read_conllu("/dev/zero")
