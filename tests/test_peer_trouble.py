"""When things go wrong: a vanished opponent, an unusable board; and watching a game."""
import signal
import subprocess
import sys
import time

from peertools import ROOT, finish, player


def test_vanished_opponent_is_noticed_within_seconds(tmp_path):
    board = tmp_path / "b"
    common = ["--ai", "random", "--pace", "0.2"]
    b = player("black", board, *common, "--patience", "2")
    w = player("white", board, *common)
    time.sleep(3)
    w.send_signal(signal.SIGKILL)
    w.wait()
    t = time.monotonic()
    rb, ob = finish(b, timeout=60)
    assert "shows no sign of life" in ob
    assert rb == 4 and "did not come back" in ob
    assert time.monotonic() - t < 20


def test_unusable_board_folder_gives_a_clear_message(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("not a folder")
    rb, ob = finish(player("black", f, "--ai", "random"))
    assert rb == 2 and "Cannot play: " in ob and "cannot use" in ob
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "cardstand.board").write_text("somebody else's file")
    rb, ob = finish(player("white", tmp_path / "foreign", "--ai", "random"))
    assert rb == 2 and "not a cardstand board" in ob


def test_bad_options_are_refused_with_help(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "black.py"), "--size", "7"], capture_output=True, text=True)
    assert r.returncode == 2 and "even, from 4 to 26" in r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "white.py"), "--ai", "nosuch", "--board", str(tmp_path / "b")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "unknown AI 'nosuch'" in r.stdout
    r = subprocess.run([sys.executable, str(ROOT / "white.py"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--engine CMD" in r.stdout and "examples:" in r.stdout


def test_watch_shows_a_live_game_read_only(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "greedy", "--pace", "0.05", "--size", "6")
    w = player("white", board, "--ai", "random", "--pace", "0.05")
    watcher = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(board), "--until-over",
                              "--no-color"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    finish(b)
    finish(w)
    assert watcher.returncode == 0
    assert " over " in watcher.stdout and "a b c d e f" in watcher.stdout
    # read-only: the watcher joined no mailbox and left no message
    assert sorted(p.name for p in (board / "box").iterdir()) == ["black", "white"]
