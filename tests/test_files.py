"""engine/files.py: a file is written whole or not at all, under any name the system takes, and a
replaced file keeps its permissions; cliargs.output_file refuses what could not be written."""
import argparse
import os
import stat
import sys

import pytest

from engine import cliargs, files


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_long_name_is_written_and_no_scratch_is_left(tmp_path):
    target = tmp_path / ("x" * 250)                 # its scratch name must still fit in 255
    files.write_whole(target, b"one")
    files.write_whole(target, lambda f: f.write(b"two"))
    assert target.read_bytes() == b"two" and leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_tells_the_first_error(tmp_path, monkeypatch):
    target = tmp_path / "w.bin"
    target.write_bytes(b"old")

    def broken(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match="No space left"):
        files.write_whole(target, broken)
    assert target.read_bytes() == b"old" and leftovers(tmp_path) == []
    monkeypatch.setattr(os, "replace", lambda a, b: (_ for _ in ()).throw(OSError(13, "Permission denied")))
    monkeypatch.setattr(type(target), "unlink", lambda self, missing_ok=False: (_ for _ in ()).throw(OSError(5, "I/O")))
    with pytest.raises(OSError, match="Permission denied"):     # not the cleanup's own error
        files.write_whole(target, b"new")


def test_the_scratch_of_a_killed_write_is_removed_by_the_next_one_once_it_is_old(tmp_path):
    """A writer killed mid-write leaves its scratch; the next write of the same file removes it
    once it is over an hour old, and leaves young ones (a write in progress) and others alone."""
    import time
    target = tmp_path / "book.bin.gz"
    old, young = tmp_path / ".book.bin.gz.4242.tmp", tmp_path / ".book.bin.gz.4343.tmp"
    other, notes = tmp_path / ".other.bin.gz.4242.tmp", tmp_path / ".book.bin.gz.notes.tmp"
    for p in (old, young, other, notes):
        p.write_bytes(b"half")
    hour_ago = time.time() - files.LEFTOVER_AGE - 60
    for p in (old, other, notes):
        os.utime(p, (hour_ago, hour_ago))
    files.write_whole(target, b"new")
    assert target.read_bytes() == b"new"
    assert leftovers(tmp_path) == sorted(p.name for p in (young, other, notes))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_replaced_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "private.bin"
    target.write_bytes(b"old")
    target.chmod(0o600)
    files.write_whole(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_bytes() == b"new"


def test_output_names_that_cannot_be_written_are_refused_before_any_work(tmp_path, monkeypatch):
    for name in ("y" * 256, "z" * 300 + "/x"):
        with pytest.raises(argparse.ArgumentTypeError, match="cannot write"):
            cliargs.output_file(str(tmp_path / name))
    cliargs.output_file(str(tmp_path / ("y" * 255)))
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "w.bin").write_bytes(b"")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) == str(ro) else real(p, mode))
    with pytest.raises(argparse.ArgumentTypeError, match="permission denied"):
        cliargs.output_file(str(ro / "w.bin"))          # the file may be written, its folder may not
