"""write_file, and the writes that go through it (models, CoNLL-U files):
the command line's -o rules: a regular file replaced only once it is whole,
a device or FIFO written in place and never replaced, links followed."""

import os
import stat
import threading
from pathlib import Path

import pytest

import tabula_parsing as tp

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample.conllu"


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if "tabula" in p.name and p.name.endswith("tmp")]


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.txt"
    tp.write_file(target, "first\n")
    assert target.read_text() == "first\n"
    os.chmod(target, 0o640)
    tp.write_file(target, b"second\n")
    assert target.read_bytes() == b"second\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_symbolic_link_is_followed_not_replaced(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    tp.write_file(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    tp.write_conllu(fifo, tp.read_conllu(SAMPLE))
    reader.join(timeout=30)
    assert got == [SAMPLE.read_bytes()]
    assert stat.S_ISFIFO(fifo.stat().st_mode), "still a FIFO, not replaced by a file"
    assert leftovers(tmp_path) == []


def test_errors_name_the_path_and_leave_nothing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"cannot write .*missing.*out\.txt: directory .* does not exist"):
        tp.write_file(tmp_path / "missing" / "out.txt", "x")
    with pytest.raises(OSError, match="it is a directory"):
        tp.write_file(tmp_path, "x")
    locked = tmp_path / "locked.txt"
    locked.write_text("keep\n")
    os.chmod(locked, 0o444)
    with pytest.raises(OSError, match="read-only"):
        tp.write_file(locked, "x")
    assert locked.read_text() == "keep\n"
    with pytest.raises(TypeError, match="bytes or str"):
        tp.write_file(tmp_path / "n.txt", 3)
    assert leftovers(tmp_path) == []
    parser = tp.Parser.train(SAMPLE, epochs=1, step_bits=12, label_bits=10)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        parser.save(tmp_path / "no-such-dir" / "m.model")


def test_an_output_that_is_an_input_is_refused_with_its_links(tmp_path):
    """`inputs=`: a path that is the same file as an input (itself, a
    symbolic or a hard link to it) is refused before anything is written,
    as the command line refuses `-o` over its input; check_output says so
    without writing anything."""
    source = tmp_path / "in.conllu"
    source.write_bytes(SAMPLE.read_bytes())
    symlink, hardlink = tmp_path / "sym.pt", tmp_path / "hard.pt"
    symlink.symlink_to(source)
    os.link(source, hardlink)
    for path in (source, symlink, hardlink, f"{tmp_path}/./in.conllu"):
        with pytest.raises(OSError, match=r"cannot write .*: it is the same file as the input .*in\.conllu, which would be replaced"):
            tp.check_output(path, [source])
        with pytest.raises(OSError, match="is the same file as the input"):
            tp.write_file(path, "x", inputs=[str(source)])
    assert source.read_bytes() == SAMPLE.read_bytes() and symlink.is_symlink()
    # Another file, a new one or a device: allowed; check_output writes nothing.
    tp.check_output(tmp_path / "new.txt", inputs=[source])
    tp.check_output("/dev/null", inputs=["/dev/null"])
    assert not (tmp_path / "new.txt").exists() and leftovers(tmp_path) == []
    tp.write_file(tmp_path / "new.txt", "x", inputs=[source])
    assert (tmp_path / "new.txt").read_text() == "x"
    # The same refusals as write_file, before any work.
    with pytest.raises(FileNotFoundError, match="does not exist"):
        tp.check_output(tmp_path / "missing" / "m.pt")
    with pytest.raises(OSError, match="it is a directory"):
        tp.check_output(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tp.check_output(fifo)  # written in place: not opened (no reader to wait for)
