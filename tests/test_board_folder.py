"""A mistyped --board (a folder of one's own files, the root, an empty name, a file) is refused by
the players and the demo before anything is written: Init would make it a board and its clean-up
would remove old ``*.tmp`` files from the folder's ``tmp/`` (F2c)."""
import os
import subprocess
import sys
import time

import pytest

from comm.adopt import unfit_for_a_board
from peertools import ROOT, file_hashes, finish, player


def old_user_folder(top):
    """A folder of someone's own files, two days old, with a ``tmp/`` S1 would clean."""
    (top / "tmp").mkdir(parents=True)
    (top / "tmp" / "thesis.tmp").write_text("draft")
    (top / "notes.txt").write_text("mine")
    past = time.time() - 2 * 86400
    for p in (top / "tmp" / "thesis.tmp", top / "notes.txt"):
        os.utime(p, (past, past))
    return top


def test_what_may_be_made_a_board(tmp_path):
    assert unfit_for_a_board(tmp_path / "missing") == ""
    assert unfit_for_a_board(tmp_path) == ""                                  # empty
    (tmp_path / ".gitignore").write_text("*")
    (tmp_path / "README.md").write_text("the board")
    assert unfit_for_a_board(tmp_path) == ""                                  # like ./cardstand in a clone
    for name in ("box", "records", "tmp", "trash"):                           # a board that lost its marker
        (tmp_path / name).mkdir()
    assert unfit_for_a_board(tmp_path) == ""
    (tmp_path / "notes.txt").write_text("mine")
    why = unfit_for_a_board(tmp_path)
    assert "not a board" in why and "notes.txt" in why
    (tmp_path / "cardstand.board").write_text("cardstand-board 1\n")         # a board keeps what it holds
    assert unfit_for_a_board(tmp_path) == ""
    assert "is a file" in unfit_for_a_board(tmp_path / "notes.txt")
    assert unfit_for_a_board(tmp_path / "notes.txt" / "x").startswith(f"{tmp_path / 'notes.txt'} is a file")
    assert "empty" in unfit_for_a_board("")
    odd = "\u202e" if os.name == "nt" else "\x1b"      # (Windows allows no control character in a name)
    for i in range(5):
        (tmp_path.parent / f"f{i}{odd}").write_text("x")
    why = unfit_for_a_board(tmp_path.parent)
    assert "..." in why and odd not in why                                    # three names shown, escaped


def test_a_player_refuses_a_folder_of_other_files_and_changes_nothing(tmp_path):
    mine = old_user_folder(tmp_path / "mine")
    before = file_hashes(mine)
    code, out = finish(player("black", mine, "--ai", "greedy"))
    assert code == 2 and "is not a board" in out and "notes.txt" in out, out
    assert "Traceback" not in out
    assert file_hashes(mine) == before and sorted(p.name for p in mine.iterdir()) == ["notes.txt", "tmp"]
    code, out = finish(player("white", mine / "notes.txt", "--ai", "greedy"))
    assert code == 2 and "is a file, not a folder" in out, out
    code, out = finish(player("white", "", "--ai", "greedy"))
    assert code == 2 and "name is empty" in out, out
    assert not (ROOT / "box").exists()


def test_the_demo_refuses_it_too(tmp_path):
    mine = old_user_folder(tmp_path / "mine")
    before = file_hashes(mine)
    out = subprocess.run([sys.executable, "-m", "peer", "demo", "--board", str(mine), "--lang", "en"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT,
                         env=dict(os.environ, NO_COLOR="1"))
    assert out.returncode == 2 and "is not a board" in out.stdout + out.stderr
    assert file_hashes(mine) == before


def test_an_empty_ai_name_and_two_time_options_are_refused(tmp_path):
    code, out = finish(player("black", tmp_path / "b", "--ai", ""))
    assert code == 2 and "unknown AI ''" in out, out
    code, out = finish(player("black", tmp_path / "b", "--ai", "greedy", "--time", "1", "--game-time", "3"))
    assert code == 2 and "give one" in out, out
    assert not (tmp_path / "b").exists()


def test_the_demo_says_why_its_players_stopped(tmp_path):
    """Players that cannot start (a folder whose marker is somebody else's) are not watched for
    ever: their reasons are shown and the demo exits 1."""
    board = tmp_path / "theirs"
    board.mkdir()
    (board / "cardstand.board").write_text("somebody else's file")
    (tmp_path / "tmp").mkdir()
    out = subprocess.run([sys.executable, "-m", "peer", "demo", "--board", str(board), "--lang", "en"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT,
                         env=dict(os.environ, NO_COLOR="1", TMPDIR=str(tmp_path / "tmp")))
    said = out.stdout + out.stderr
    assert out.returncode == 1, said
    for colour in ("black", "white"):
        assert f"The {colour} player stopped with exit code 2: Cannot play:" in said and "not a cardstand" in said
    assert not list((tmp_path / "tmp").glob("cardstand-demo-*"))       # the players' logs: removed


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child is POSIX")
def test_a_stopped_demo_stops_its_players(tmp_path):
    import signal
    (tmp_path / "tmp").mkdir()
    p = subprocess.Popen([sys.executable, "-m", "peer", "demo", "--time", "0.3", "--pace", "0.5", "--board",
                          str(tmp_path / "b")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         cwd=ROOT, env=dict(os.environ, NO_COLOR="1", TMPDIR=str(tmp_path / "tmp")))
    players = [tmp_path / "b" / "box" / colour for colour in ("black", "white")]
    deadline = time.monotonic() + 30
    while not all((m / "alive").exists() for m in players):     # both players run
        assert time.monotonic() < deadline and p.poll() is None, "the players never joined"
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=30)
    assert p.returncode == 143
    deadline = time.monotonic() + 10
    while any((m / "alive").exists() for m in players) and time.monotonic() < deadline:
        time.sleep(0.1)             # (a player that leaves removes its alive record, I6)
    assert not any((m / "alive").exists() for m in players)
    assert not list((tmp_path / "tmp").glob("cardstand-demo-*"))       # the players' logs: removed


def test_a_folder_another_init_is_making_a_board_may_be_joined(tmp_path):
    """Two players started at once on a new folder: one sees the other's marker scratch (and the
    board's folders) before the marker is in place."""
    (tmp_path / "box").mkdir()
    (tmp_path / "vm-4242-0123456789abcdef.tmp").write_bytes(b"cardstand-board 1\n")
    assert unfit_for_a_board(tmp_path) == ""


def test_a_folder_that_cannot_be_looked_into_is_left_for_init_to_report(tmp_path, monkeypatch):
    """No traceback when neither the folder nor the ones above it may be looked at (a folder of
    another user's): Init then says why it cannot be used."""
    import pathlib

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "scandir", refused)
    monkeypatch.setattr(pathlib.Path, "stat", refused)
    assert unfit_for_a_board(tmp_path / "theirs" / "board") == ""
