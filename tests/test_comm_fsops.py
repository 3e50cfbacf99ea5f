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


def _held_open(path):
    """Whether a descriptor of this process names ``path``, where the system says (Linux); else
    False.  (Under Wine, /proc is Linux's: it shows the descriptors of Wine's own workings.)"""
    if os.name == "nt" or not os.path.isdir("/proc/self/fd"):
        return False
    target = os.path.realpath(path)
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                return True
        except OSError:
            pass
    return False


@pytest.mark.parametrize("op", ["create", "read", "present", "overwrite"])
@pytest.mark.parametrize("cls", CLASSES)
def test_an_interrupt_as_a_file_is_opened_loses_no_descriptor(tmp_path, monkeypatch, cls, op):
    """Ctrl+C landing just after a file was opened rises once the descriptor is in hand, and
    the file is closed.  On Windows a file this process still had open could be neither
    removed nor renamed: a lock folder would stay on the board until the process ends."""
    import _thread
    from comm import fsroot

    if cls is fsops.DirFdRoot and not fsops.USE_DIR_FD:
        pytest.skip("no dir_fd on this platform")
    monkeypatch.setattr(fsroot, "HOLD_INTERRUPTS", True)   # (held on Windows only, where it matters)
    root = cls(tmp_path)
    (tmp_path / "f").write_bytes(b"1234")
    for name in ("_open_file_at", "_open_existing_at", "_open_new_at"):
        def opening(self, *args, _real=getattr(cls, name)):
            got = _real(self, *args)
            _thread.interrupt_main()    # the interrupt lands here, before the caller has the file
            return got
        monkeypatch.setattr(cls, name, opening)
    run = {"create": lambda: root.create("g", b"new"), "read": lambda: root.read("f"),
           "present": lambda: root.present("f"), "overwrite": lambda: root.overwrite("f", b"abcd")}[op]
    with pytest.raises(KeyboardInterrupt):
        run()
    target = tmp_path / ("g" if op == "create" else "f")
    assert not _held_open(target)
    target.rename(tmp_path / "h")    # refused on Windows while the file is open
    (tmp_path / "h").unlink()


@pytest.mark.skipif(not hasattr(os, "kill") or os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("at", range(6))
def test_a_signal_while_interrupts_are_held_or_given_back_is_delivered_once_and_no_handler_is_lost(
        tmp_path, monkeypatch, at):
    """SIGTERM (raised as KeyboardInterrupt, as the players do) coming while the handlers are being
    swapped or put back (Python runs a pending signal's handler inside ``signal.signal``): it
    rises once, the file is closed, and every handler is the program's own again."""
    import signal

    from comm import fsroot

    def stop(signum, frame):
        raise KeyboardInterrupt

    monkeypatch.setattr(fsroot, "HOLD_INTERRUPTS", True)
    monkeypatch.setattr(fsroot, "_INTERRUPTS", (signal.SIGINT, signal.SIGTERM, signal.SIGHUP))
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        for s in old:
            signal.signal(s, stop)
        mine = {s: signal.getsignal(s) for s in fsroot._INTERRUPTS}
        calls = []
        real = signal.signal

        def swapping(sig, handler):
            calls.append(sig)
            if len(calls) == at + 1:        # a SIGTERM pending as this handler is set
                signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
            return real(sig, handler)

        root = fsops.make_root(tmp_path)
        (tmp_path / "f").write_bytes(b"1234")
        monkeypatch.setattr(fsroot.signal, "signal", swapping)
        with pytest.raises(KeyboardInterrupt):
            root.read("f")
        monkeypatch.setattr(fsroot.signal, "signal", real)
        assert {s: signal.getsignal(s) for s in fsroot._INTERRUPTS} == mine
        assert not _held_open(tmp_path / "f")
    finally:
        for s, h in old.items():
            signal.signal(s, h)
