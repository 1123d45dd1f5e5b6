"""`read_conllu` reads xz- and gzip-compressed treebanks, recognised by their
first bytes (not their names), as the command line does."""

from __future__ import annotations

import gzip
import lzma
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
