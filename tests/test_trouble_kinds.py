"""Trouble named for what it is: a read-only, forbidden, disconnected or failing board
(T2-T5) and a board folder swapped for another (F2b, T6), in comm and in a game."""
import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from comm import Board, fsops
from comm.lease import Lease

from peertools import final_line, finish, player

L = 1.0
linux_root = pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                                reason="a read-only bind mount needs root on Linux")


# -- the one table: errno and winerror to a kind ---------------------------------------------------
@pytest.mark.parametrize("err, kind", [
    (errno.ENOSPC, "full"), (errno.EROFS, "readonly"), (errno.EACCES, "denied"), (errno.EPERM, "denied"),
    (errno.ENOTCONN, "disconnected"), (errno.ESTALE, "disconnected"), (errno.EHOSTDOWN, "disconnected"),
    (errno.ENXIO, "disconnected"), (errno.EIO, "io"), (errno.ENOENT, None), (errno.EEXIST, None)])
def test_an_error_is_named_by_its_errno(err, kind):
    assert fsops.trouble(OSError(err, os.strerror(err))) == kind


def test_windows_errors_are_named_by_their_winerror():
    def win(code, mapped=errno.EACCES):
        e = OSError(mapped, "x")
        e.winerror = code
        return e
    assert fsops.trouble(win(19)) == "readonly"          # ERROR_WRITE_PROTECT (errno EACCES)
    assert fsops.trouble(win(64, errno.EINVAL)) == "disconnected"    # ERROR_NETNAME_DELETED
    assert fsops.trouble(win(112, errno.ENOSPC)) == "full"
    assert fsops.trouble(win(32)) is None                # a sharing violation: a file in use, no trouble


def test_a_name_that_is_not_a_file_is_no_board_trouble():
    assert fsops.trouble(fsops.NotRegular(errno.ENXIO, "not a regular file", "x")) is None   # a socket
    assert fsops.trouble(fsops.NotRegular(errno.EACCES, "cannot be opened (permission denied)", "x")) == "denied"


# -- each kind said in its words, at once, naming the folder ----------------------------------------
KINDS = [(errno.EROFS, "readonly", "read-only"), (errno.EACCES, "denied", "permission denied"),
         (errno.ENOTCONN, "disconnected", "disconnected or stale"), (errno.ESTALE, "disconnected", "stale"),
         (errno.EIO, "io", "input/output error"), (errno.ENOSPC, "full", "no space left")]


@pytest.mark.parametrize("err, kind, words", KINDS)
def test_a_failing_board_is_named_at_once(tmp_path, monkeypatch, err, kind, words):
    """Every write below the board fails with ``err`` (as a remount, a dead sshfs, a bad disk
    make them): sending says so at once, not after the lock's wait (T2-T5)."""
    folder = tmp_path / "board"
    a = Board(folder, "a", stale_after=L, lock_timeout=10).join()
    Board(folder, "b", stale_after=L).join().close()
    assert a.send("b", "before")

    def refuse(*args, **kw):
        raise OSError(err, os.strerror(err))
    for name in ("_rename_at", "_create_at", "_mkdir_at"):
        monkeypatch.setattr(type(a.root), name, refuse)
    t = time.monotonic()
    assert not a.send("b", "x")
    assert a.problem == kind and words in a.last_error and str(folder) in a.last_error, a.last_error
    assert "changing hands" not in a.last_error
    assert time.monotonic() - t < 5, "told after the lock's wait"
    monkeypatch.undo()
    assert a.send("b", "after") and a.problem == ""


def test_a_disconnected_share_fails_every_operation_at_once(tmp_path, monkeypatch):
    """ENOTCONN (an sshfs whose process died) from every call: wait returns at once (T4)."""
    folder = tmp_path / "board"
    a = Board(folder, "a", stale_after=L, lock_timeout=10).join()

    def dead(*args, **kw):
        raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN))
    monkeypatch.setattr(type(a.root), "_open_dir", dead)
    t = time.monotonic()
    assert a.receive() is None and a.problem == "disconnected", a.last_error
    assert a.wait(timeout=30) is None and a.problem == "disconnected"
    assert not a.send("a", "x") and a.problem == "disconnected"
    assert time.monotonic() - t < 5


@linux_root
def test_a_board_remounted_read_only_is_named_at_once(tmp_path):
    """A real read-only filesystem (a read-only bind mount over the board), in another process."""
    folder = tmp_path / "board"
    a = Board(folder, "a", stale_after=L).join()
    a.send("a", "x")
    a.close()
    if subprocess.run(["mount", "--bind", str(folder), str(folder)]).returncode:
        pytest.skip("cannot bind-mount")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)]).returncode:
            pytest.skip("cannot remount read-only")
        code = ("import comm,sys,time\n"
                "b=comm.Board(sys.argv[1],'b',stale_after=1.0,lock_timeout=10)\n"
                "t=time.monotonic()\n"
                "try:\n b.join()\nexcept comm.BoardError as e:\n print('join', b.problem, e)\n"
                "print('%.1f' % (time.monotonic()-t))\n")
        r = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=60,
                           cwd=Path(__file__).resolve().parents[1])
        assert "Traceback" not in r.stderr, r.stderr
        first, secs = r.stdout.splitlines()
        assert first.startswith("join readonly") and "read-only" in first and str(folder) in first, first
        assert float(secs) < 5
    finally:
        subprocess.run(["umount", "-l", str(folder)])


# -- the lock says what it saw ---------------------------------------------------------------------
def test_a_lock_never_seen_held_is_not_said_to_change_hands(tmp_path, monkeypatch):
    """Taking the lock fails with no holder there, for a reason that is no trouble kind."""
    folder = tmp_path / "board"
    Board(folder, "a").join().close()
    lease = Lease(folder, folder / "tmp", stale_after=L)
    platform = type(lease.root)        # DirFdRoot, or PortableRoot
    real = platform._rename_at

    def refuse(self, sh, sname, dh, dname, replace):
        if dname == "lock":
            raise OSError(errno.EXDEV, "made-up refusal")
        return real(self, sh, sname, dh, dname, replace)
    monkeypatch.setattr(platform, "_rename_at", refuse)
    assert not lease.acquire(0.3, patient=False)
    why = lease.timeout_reason()
    assert "changing hands" not in why and "no holder was seen" in why and "made-up refusal" in why, why


def test_an_unreadable_owner_record_is_said_so(tmp_path, monkeypatch):
    folder = tmp_path / "board"
    Board(folder, "a").join().close()
    (folder / "lock").mkdir()
    (folder / "lock" / "owner").write_bytes(b"cardstand-lock 1\ntoken: x\n")
    lease = Lease(folder, folder / "tmp", stale_after=30)
    real = fsops.Root.read

    def failing(self, rel, *a, **kw):
        if rel == "lock/owner":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(self, rel, *a, **kw)
    monkeypatch.setattr(fsops.Root, "read", failing)
    assert not lease.acquire(0.3, patient=False)
    why = lease.timeout_reason()
    assert "unreadable" in why and os.strerror(errno.EIO) in why and "changing hands" not in why, why


# -- F2b, T6: the board's identity ---------------------------------------------------------------------
def swap(a, b):
    aside = a.with_name(a.name + "-swapping")
    a.rename(aside)
    b.rename(a)
    aside.rename(b)


def test_a_board_gets_an_identity_once_and_old_boards_get_one(tmp_path):
    folder = tmp_path / "board"
    Board(folder, "a").join().close()
    first = (folder / "cardstand.id").read_bytes()
    Board(folder, "b").join().close()
    assert (folder / "cardstand.id").read_bytes() == first
    (folder / "cardstand.id").unlink()          # a board made before identities
    Board(folder, "a").join().close()
    assert (folder / "cardstand.id").read_bytes() != first
    (folder / "cardstand.id").write_bytes(b"\xff garbage")   # damaged: set aside, a new one
    Board(folder, "a").join().close()
    assert fsops.record_fields((folder / "cardstand.id").read_text()).get("id")
    assert any(p.name.endswith("cardstand.id") for p in (folder / "trash").iterdir())


def mtimes(folder):
    """Every path under ``folder`` with its modification time (one on its way out is left out)."""
    out = {}
    for p in folder.rglob("*"):
        try:
            out[p] = p.stat().st_mtime_ns
        except FileNotFoundError:
            pass
    return out


def test_a_swapped_folder_is_said_so_and_never_written(tmp_path):
    """Two boards swapped under their members: no take-over, nothing written in the other."""
    one, two = tmp_path / "one", tmp_path / "two"
    a1, b1 = Board(one, "black", stale_after=L).join(), Board(one, "white", stale_after=L).join()
    a2 = Board(two, "black", stale_after=L).join()
    Board(two, "white", stale_after=L).join()
    assert a1.send("white", "hi")
    swap(one, two)
    before = mtimes(tmp_path)
    for board in (a1, a2):
        assert not board.send("white", "x") and board.problem == "swapped", board.last_error
        assert "swapped or replaced" in board.last_error and "taken" not in board.last_error
    assert b1.wait(timeout=5) is None and b1.problem == "swapped"
    a1.beat("here")
    assert a1.problem == "swapped"
    time.sleep(1.5)         # the members' heartbeats write nothing there either
    after = mtimes(tmp_path)

    def lasting(paths):     # a lock holder's beat (its file, and the scratch copy on its way)
        return {p for p in paths if p.name != "beat" and not (p.parent.name == "tmp" and p.suffix == ".tmp")}
    assert lasting(after) == lasting(before)
    changed = [p for p in after if p in before and after[p] != before[p] and p.name == "alive"]
    assert not changed, changed         # nobody's heartbeat ran (everyone is on the other board)
    swap(one, two)          # back: everything works again, nobody was replaced
    assert a1.send("white", "again") and a1.problem == ""
    assert [m.body for m in iter(b1.receive, None)] == ["hi", "again"]


def test_a_board_made_anew_at_the_same_path_is_not_the_one_joined(tmp_path):
    folder = tmp_path / "board"
    a = Board(folder, "a", stale_after=L).join()
    folder.rename(tmp_path / "old")
    Board(folder, "b", stale_after=L).join()        # someone makes a new board there
    assert not a.send("b", "x") and a.problem == "swapped"
    assert not (folder / "box" / "a").exists()


# -- in a game ---------------------------------------------------------------------------------
def _records(folder):
    return {p.name.split(".")[0] for p in (folder / "records").iterdir() if p.name != "current"}


def _game_ids(folder):
    from peer.record import Records
    rec = Records(folder).current()
    return rec.id if rec else None, len(rec.moves) if rec else 0


def test_two_games_whose_folders_are_swapped_say_so_and_go_on_when_swapped_back(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    args = ("--ai", "random", "--pace", "0.2", "--size", "6", "--patience", "60")
    procs = [player("black", one, *args, "--seed", 1), player("white", one, *args, "--seed", 2),
             player("black", two, *args, "--seed", 3), player("white", two, *args, "--seed", 4)]
    try:
        deadline = time.monotonic() + 60
        while not all(_game_ids(f)[1] >= 4 for f in (one, two)):
            assert time.monotonic() < deadline, "no games in progress after 60 s"
            time.sleep(0.05)
        ids = {one: _game_ids(one)[0], two: _game_ids(two)[0]}
        swap(one, two)
        time.sleep(3)
        for mine, now in ((one, two), (two, one)):      # each game's folder is now at the other path
            assert _records(now) == {ids[mine]}, "a stray record was written into the other board"
            assert sorted(p.name for p in (now / "box").iterdir()) == ["black", "white"]
        swap(one, two)
        results = [finish(p, timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for code, out in results:
        assert code == 0, out[-1500:]
        assert "is not the board this game started on" in out, out[-1500:]
        assert "taken over" not in out and "Traceback" not in out, out[-1500:]
        assert "is back: the game goes on" in out, out[-1500:]
    assert final_line(results[0][1]) == final_line(results[1][1]) is not None
    assert final_line(results[2][1]) == final_line(results[3][1]) is not None
    for folder in (one, two):
        assert _records(folder) == {ids[folder]}


@linux_root
def test_a_board_made_read_only_mid_game_is_told_and_left_after_the_patience(tmp_path):
    """Both players say "read-only" (not a lock held by someone), keep the game, and leave with
    exit code 5 after their patience."""
    board = tmp_path / "b"
    args = ("--ai", "random", "--pace", "0.2", "--size", "6", "--patience", "3")
    procs = [player("black", board, *args, "--seed", 1), player("white", board, *args, "--seed", 2)]
    mounted = False
    try:
        deadline = time.monotonic() + 60
        while _game_ids(board)[1] < 4:
            assert time.monotonic() < deadline, "no game in progress after 60 s"
            time.sleep(0.05)
        if subprocess.run(["mount", "--bind", str(board), str(board)]).returncode:
            pytest.skip("cannot bind-mount")
        mounted = True
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(board)]).returncode:
            pytest.skip("cannot remount read-only")
        results = [finish(p, timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        if mounted:
            subprocess.run(["umount", "-l", str(board)])
    for code, out in results:
        assert code == 5, out[-1500:]
        assert f"The board folder {board} is read-only now" in out, out[-1500:]
        assert "Nothing could be written on the board for 3 s: leaving" in out, out[-1500:]
        assert "changing hands" not in out and "Traceback" not in out, out[-1500:]
