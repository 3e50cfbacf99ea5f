"""When things go wrong: a vanished opponent, an unusable board; and watching a game."""
import signal
import subprocess
import sys
import time

import pytest

from conformance.restarts import _Filler as KeptFull     # the kit's: keeps a small disk full

from commtools import Clock
from peertools import ROOT, final_line, finish, player
from test_comm_trouble import small_disk  # noqa: F401  (the fixture: a small tmpfs, root only)


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
    assert rb == 2 and "Cannot play: " in ob and "is a file, not a folder" in ob, ob
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "cardstand.board").write_text("somebody else's file")
    rb, ob = finish(player("white", tmp_path / "foreign", "--ai", "random"))
    assert rb == 2 and "not a cardstand board" in ob


def test_bad_options_are_refused_with_help(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "black.py"), "--size", "7"], capture_output=True, text=True)
    assert r.returncode == 2 and "even, from 4 to 26" in r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "white.py"), "--ai", "nosuch", "--board", str(tmp_path / "b")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "unknown AI 'nosuch'" in r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "white.py"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--engine CMD" in r.stdout and "examples:" in r.stdout


def test_watch_shows_a_live_game_read_only(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "greedy", "--pace", "0.05", "--size", "6")
    w = player("white", board, "--ai", "random", "--pace", "0.05")
    deadline = time.monotonic() + 30
    while not (board / "cardstand.board").exists() and time.monotonic() < deadline:
        time.sleep(0.02)            # watch refuses a folder that is no board (yet)
    watcher = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(board), "--until-over",
                              "--no-color"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    finish(b)
    finish(w)
    assert watcher.returncode == 0
    assert " over " in watcher.stdout and "a b c d e f" in watcher.stdout
    # read-only: the watcher joined no mailbox and left no message
    assert sorted(p.name for p in (board / "box").iterdir()) == ["black", "white"]


# -- G7: the board folder goes away ---------------------------------------------------------------

def _mid_game(board, *extra):
    from peer.record import Records
    b = player("black", board, "--ai", "random", "--pace", "0.3", "--seed", 1, *extra)
    w = player("white", board, "--ai", "random", "--pace", "0.3", "--seed", 2, *extra)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rec = Records(board).current()
        if rec and len(rec.moves) >= 12:
            return b, w
        time.sleep(0.05)
    raise AssertionError("no game in progress after 60 s")


def _remove(folder):
    """Delete ``folder`` although players may be writing scratch files in it meanwhile."""
    import shutil
    deadline = time.monotonic() + 30
    while folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
        assert time.monotonic() < deadline, "the board folder could not be deleted"


def test_a_board_deleted_mid_game_is_told_and_left_cleanly(tmp_path):
    board = tmp_path / "b"
    b, w = _mid_game(board, "--patience", "3")
    _remove(board)
    t = time.monotonic()
    rb, ob = finish(b, timeout=90)
    rw, ow = finish(w, timeout=90)
    for code, out in ((rb, ob), (rw, ow)):
        assert code == 5, out[-800:]
        assert "is gone (deleted, moved, or a share no longer mounted)" in out, out[-800:]
        assert "did not come back within 3 s: leaving. The game so far" in out, out[-800:]
        assert "Traceback" not in out
    assert time.monotonic() - t < 60
    assert not board.exists(), "a player made the board folder again"


def test_a_board_moved_away_and_back_mid_game_goes_on(tmp_path):
    from peer.record import Records
    board = tmp_path / "b"
    b, w = _mid_game(board, "--patience", "60", "--size", "6")
    aside = tmp_path / "aside"
    board.rename(aside)
    time.sleep(4)
    assert not board.exists(), "a player made the board folder again"
    aside.rename(board)
    rb, ob = finish(b, timeout=180)
    rw, ow = finish(w, timeout=180)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    for out in (ob, ow):
        assert "is gone" in out and "is back: the game goes on" in out, out[-1500:]
        assert "Traceback" not in out
    assert final_line(ob) == final_line(ow) is not None
    rec = Records(board).current()
    assert rec.status == "over" and Records(board).acknowledged(rec.id, "black") \
        and Records(board).acknowledged(rec.id, "white")


# -- G7: a full disk ------------------------------------------------------------------------------


def test_a_failed_send_is_tried_again_less_and_less_often(tmp_path, monkeypatch):
    """T3: the pauses between tries grow (1, 2, 4, 8, 16 s, then 16), not a fixed half second; the
    person is told once; a computer leaves after its patience (exit code 5)."""
    import pytest
    from engine import BLACK
    from peer.session import Leave, trouble
    from peerfakes import session
    clock = Clock()
    monkeypatch.setattr(trouble, "time", clock)
    s, b, out = session(tmp_path / "b", BLACK)
    attempts_at = []
    real_send = b.send

    def send(to, body):
        attempts_at.append(clock.now)
        return real_send(to, body)

    b.send = send
    full = ("full", "no space left on the board's disk (b)")
    b.failing = [full] * 7
    s.wire.send("d3 #1")
    gaps = [round(t2 - t1, 6) for t1, t2 in zip(attempts_at, attempts_at[1:])]
    assert gaps == [1, 2, 4, 8, 16, 16, 16], gaps
    assert b.sent == [("white", "d3 #1")]
    text = out.getvalue()
    assert text.count("is full: nothing can be sent until space is freed") == 1 and "Sent." in text
    b.failing = [full] * 100
    s.st.patience = 20.0
    with pytest.raises(Leave) as left:
        s.wire.send("d3 #1")
    assert left.value.code == 5 and "stayed full for 20 s: leaving. The game so far" in out.getvalue()


@pytest.mark.parametrize("lang, says", [("en", "The board folder b is read-only now"),
                                         ("ja", "伝言台のフォルダ bが読み取り専用になりました")])
def test_a_send_refused_by_a_read_only_board_says_why_in_the_screens_language(tmp_path, monkeypatch, lang, says):
    """T5: the cause of a refused write reaches the screen as a cause, put in the screen's words."""
    import io
    from engine import BLACK
    from peer.faces.plain import Screen
    from peer.session import Session, trouble
    from peerfakes import FakeBoard, FirstLegal
    monkeypatch.setattr(trouble, "time", Clock())
    b = FakeBoard(tmp_path / "b")
    b.folder = "b"
    out = io.StringIO()
    s = Session(tmp_path / "b", BLACK, FirstLegal(), Screen(lang, stream=out), board=b)
    b.failing = [("readonly", "read-only file system")] * 3
    s.wire.send("d3 #1")
    assert says in out.getvalue(), out.getvalue()
    assert b.sent == [("white", "d3 #1")]


def test_a_person_can_quit_while_a_send_is_retried(tmp_path, monkeypatch):
    import io
    import pytest
    from engine import BLACK
    from peer.players import Human
    from peer.session import Leave, Session, trouble
    from peer.faces.plain import Screen
    from peerfakes import FakeBoard

    class Lines:
        def __init__(self, lines):
            self.lines = list(lines)

        def get(self, timeout=0.0):
            return self.lines.pop(0) if self.lines else None

    clock = Clock()
    monkeypatch.setattr(trouble, "time", clock)
    b = FakeBoard(tmp_path / "b")
    out = io.StringIO()
    s = Session(tmp_path / "b", BLACK, Human(Lines([None] * 25 + ["quit"])), Screen("en", stream=out), board=b)
    b.failing = [("full", "no space left")] * 1000
    with pytest.raises(Leave) as left:
        s.wire.send("d3 #1")
    assert left.value.code == 0 and "You left the game" in out.getvalue()
    assert len(b.attempts) < 10      # it was not hammering the board meanwhile


def test_a_full_disk_mid_game_is_told_and_the_game_goes_on(small_disk):
    board = small_disk / "board"
    b, w = _mid_game(board, "--patience", "120", "--size", "6")
    try:
        full = KeptFull(small_disk)
        time.sleep(9)
        full.end()
        rb, ob = finish(b, timeout=180)
        rw, ow = finish(w, timeout=180)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert "is full" in ob + ow and "Traceback" not in ob + ow, (ob[-1500:], ow[-1500:])
    assert final_line(ob) == final_line(ow) is not None


def test_a_disk_that_stays_full_is_left_after_the_patience(small_disk):
    board = small_disk / "board"
    b, w = _mid_game(board, "--patience", "3")
    full = KeptFull(small_disk)
    try:
        rb, ob = finish(b, timeout=120)
        rw, ow = finish(w, timeout=120)
    finally:
        full.end()
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    for code, out in ((rb, ob), (rw, ow)):
        assert code == 5, out[-1500:]
        assert "stayed full for 3 s: leaving. The game so far" in out and "Traceback" not in out, out[-1500:]
