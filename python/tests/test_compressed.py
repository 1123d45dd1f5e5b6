"""`read_conllu` reads xz- and gzip-compressed treebanks, recognised by their
first bytes (not their names), as the command line does."""

from __future__ import annotations

import gzip
import lzma
from pathlib import Path

import tabula_parsing as tp

from conftest import SMALL


def test_compressed_files_read_like_the_plain_one(tmp_path: Path) -> None:
    plain = SMALL.read_bytes()
    want = [(s.heads, s.to_conllu()) for s in tp.read_conllu(SMALL)]
    for name, data in [("a.conllu", lzma.compress(plain)), ("b.txt", gzip.compress(plain))]:
        path = tmp_path / name
        path.write_bytes(data)
        assert [(s.heads, s.to_conllu()) for s in tp.read_conllu(path)] == want
