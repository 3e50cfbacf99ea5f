"""Both platform classes of ``fsops.Root`` on this machine, in this process: the same operations
give the same results, and a link planted below the folder is never followed by either.
(tests/test_comm_hostile.py runs whole members on each class, in other processes.)"""
import os

import pytest

from comm import fsops

CLASSES = [pytest.param(fsops.DirFdRoot, id="dirfd"), pytest.param(fsops.PortableRoot, id="portable")]


@pytest.mark.parametrize("cls", CLASSES)
def test_the_operations_give_the_same_results(tmp_path, cls):
    if cls is fsops.DirFdRoot and not fsops.USE_DIR_FD:
        pytest.skip("no dir_fd on this platform")
    root = cls(tmp_path)
    root.ensure_dir("tmp")
    root.ensure_dir("box/a")
    root.replace("box/a/head", fsops.record("7"))
    assert root.read_int("box/a/head") == 7
    assert root.read_text("box/a/missing") is None and not root.present("box/a/missing")
    root.create("box/a/note", b"hello")
    assert root.read("box/a/note") == b"hello" and root.present("box/a/note")
    root.overwrite("box/a/note", b"HELLO")
    assert (tmp_path / "box" / "a" / "note").read_bytes() == b"HELLO"
    root.rename("box/a/note", "box/a/moved")
    assert sorted(root.listdir("box/a")) == ["head", "moved"]
    assert [n for n, st in root.scan("box") if st is not None] == ["a"]
    assert root.remove("box/a/moved") and not root.remove("box/a/moved")
    root.fsync_dir("box/a")
    root.remove_tree("box")
    assert root.lstat("box") is None and not os.listdir(tmp_path / "tmp")


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="needs symbolic links")
@pytest.mark.parametrize("cls", CLASSES)
def test_a_planted_link_is_never_followed(tmp_path, cls):
    if cls is fsops.DirFdRoot and not fsops.USE_DIR_FD:
        pytest.skip("no dir_fd on this platform")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret").write_bytes(b"secret")
    board = tmp_path / "board"
    board.mkdir()
    root = cls(board)
    root.ensure_dir("trash")
    os.symlink(victim / "secret", board / "file-link")
    os.symlink(victim, board / "tmp")
    with pytest.raises(fsops.NotRegular):
        root.read("file-link", strict=True)
    assert root.read("file-link") is None
    with pytest.raises(fsops.NotRegular):
        root.overwrite("file-link", b"XXXXXX")
    root.ensure_dir("tmp")                         # the link set aside, a real folder made
    assert (board / "tmp").is_dir() and not (board / "tmp").is_symlink()
    root.remove_tree("trash")                      # takes the moved link, not what it points to
    assert root.remove("file-link")
    assert sorted(os.listdir(victim)) == ["secret"] and (victim / "secret").read_bytes() == b"secret"


def test_make_root_follows_use_dir_fd(tmp_path, monkeypatch):
    monkeypatch.setattr(fsops, "USE_DIR_FD", False)
    assert type(fsops.make_root(tmp_path)) is fsops.PortableRoot
    monkeypatch.setattr(fsops, "USE_DIR_FD", True)
    assert type(fsops.make_root(tmp_path)) is fsops.DirFdRoot
