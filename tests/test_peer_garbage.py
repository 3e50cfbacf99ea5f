"""Garbage a classmate drops on the board is told on the player's screen: a line for each thing comm
set aside into trash/, a few a minute, the rest counted; shown harmlessly, never blocking the game."""
import io
import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from comm.aside import SetAside
from comm.board import frame, msg_name
from peer.faces import texts
from peer.faces.plain import Screen
from peer.garbage import ASIDE_EVERY, ASIDE_SHOWN, PATH_LIMIT

from peerfakes import session
from peertools import finish, player

NOTICE = {"en": "Something on the board that this program cannot use was moved to trash/",
          "ja": "伝言台にあった使えないものを trash/ に移しました"}
MORE = {"en": "more moved to trash/: things on the board that this program cannot use",
        "ja": "ほかにも使えないものを"}


def _until(check, timeout=60.0):
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def _waiting_black(board, lang):
    """Black (a computer) joined and waiting for white, its screen in ``lang``: it reads its mailbox
    every 0.2 s while it waits."""
    b = player("black", board, "--ai", "greedy", "--lang", lang)
    _until(lambda: (Path(board) / "box" / "black" / "member").exists())
    return b


def _stopped(proc, board, items):
    """The screen of ``proc`` once ``items`` things are in the board's trash/ (and a moment to tell them)."""
    _until(lambda: len(os.listdir(Path(board) / "trash")) >= items)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)    # as Ctrl+C: it leaves (exit code 0)
    code, out = finish(proc, timeout=60)
    return out


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_damaged_message_is_told_on_the_screen(tmp_path, lang):
    board = tmp_path / "b"
    b = _waiting_black(board, lang)
    good = frame("white", "w" * 16, "black", "b" * 16, 1, b"hello")
    (board / "box" / "black" / msg_name(1)).write_bytes(good.replace(b"hello", b"jello"))
    out = _stopped(b, board, 1)
    lines = [l for l in out.splitlines() if NOTICE[lang] in l]
    assert len(lines) == 1, out
    assert "box/black/000000000001.msg" in lines[0]
    assert ("damaged: checksum mismatch" if lang == "en" else "壊れています: checksum mismatch") in lines[0]
    assert "Traceback" not in out


def test_a_thousand_junk_files_give_a_few_lines(tmp_path):
    """The classmate who writes 1000 junk messages: three told one by one, the others counted in one
    line; the player goes on reading its mailbox."""
    board = tmp_path / "b"
    b = _waiting_black(board, "en")
    box = board / "box" / "black"
    for k in (*range(2, 1001), 1):      # number 1 last: black finds the thousand at once
        (box / msg_name(k)).write_bytes(b"junk %d\n" % k)
    out = _stopped(b, board, 1000)
    told = [l for l in out.splitlines() if "trash/" in l]
    assert len(told) == ASIDE_SHOWN + 1, out
    assert sum(NOTICE["en"] in l for l in told) == ASIDE_SHOWN
    assert told[-1].startswith(f"{1000 - ASIDE_SHOWN} {MORE['en']}"), told
    assert not any((box / msg_name(k)).exists() for k in range(1, 1001))


def test_escape_sequences_in_junk_are_shown_harmlessly(tmp_path):
    """A damaged message whose text would change the terminal's title and clear it: shown escaped."""
    board = tmp_path / "b"
    b = _waiting_black(board, "en")
    (board / "box" / "black" / msg_name(1)).write_bytes(b"\x1b]0;pwned\x07\x1b[2J" + b"A" * 60 + b"\n\n")
    out = _stopped(b, board, 1)
    (line,) = [l for l in out.splitlines() if NOTICE["en"] in l]
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in line and len(line) < 400, line


# -- the session's rule, in process -------------------------------------------------------------------

def _told(out):
    return [l for l in out.getvalue().splitlines() if "trash/" in l]


def test_a_name_anyone_chose_is_escaped_and_cut(tmp_path):
    s, board, out = session(tmp_path / "b", 0)
    evil = "box/\x1b]0;pwned\x07\u202e\udcff" + "x" * 500
    board.set_aside = [SetAside(evil, "not_folder", "a file\x1b[2J")]
    s.wire.garbage.tell(*board.take_set_aside())
    (line,) = _told(out)
    assert "\x1b" not in line and "\u202e" not in line and "\x07" not in line
    assert "box/\\x1b]0;pwned\\x07\\u202e\\udcff" in line and "not a folder: a file\\x1b[2J" in line
    shown_path = line.split(": ", 1)[1].rsplit(" (", 1)[0]
    assert len(shown_path) == PATH_LIMIT and shown_path.endswith("…")
    line.encode("utf-8")        # printable on any terminal that takes UTF-8


def test_a_steady_flood_is_a_few_lines_a_minute(tmp_path, monkeypatch):
    """Junk all the time: at most ASIDE_SHOWN lines and one count a minute, each item said once."""
    s, board, out = session(tmp_path / "b", 0)
    now = [1000.0]
    monkeypatch.setattr("peer.garbage.time", SimpleNamespace(monotonic=lambda: now[0]))
    n = 0
    for second in range(180):
        board.set_aside = [SetAside(msg_name(n + i), "damaged", "junk") for i in range(5)]
        n += 5
        s.wire.garbage.tell(*board.take_set_aside())
        now[0] += 1.0
        if second == 59:
            assert len(_told(out)) == ASIDE_SHOWN + 1, _told(out)
    told = _told(out)
    assert len(told) <= 3 * (ASIDE_SHOWN + 1) + 1, told
    now[0] += ASIDE_EVERY
    s.wire.garbage.tell(*board.take_set_aside())        # the last count is said, late, even when nothing more comes
    told = _told(out)
    counted = sum(int(l.split()[0]) for l in told if "more moved" in l)
    assert counted + sum("Something on the board" in l for l in told) == n


def test_a_screen_in_japanese_says_each_kind(tmp_path):
    s, board, _ = session(tmp_path / "b", 0)
    out = io.StringIO()
    s.st.screen = Screen("ja", colour=False, stream=out)
    for kind in ("refused", "damaged", "not_message", "not_file", "not_folder"):
        board.set_aside = [SetAside(f"box/black/{kind}", kind, "x")]
        s.wire.garbage.since = -ASIDE_EVERY      # (a new minute for each: all told one by one)
        s.wire.garbage.tell(*board.take_set_aside())
        (line,) = _told(out)[-1:]
        assert line == NOTICE["ja"] + f": box/black/{kind}（" + texts.text("ja", f"aside_{kind}", detail="x") + "）"
    assert len(_told(out)) == 5


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_watcher_sets_nothing_aside(tmp_path, lang):
    """``python -m peer watch`` only looks: a file where the records folder belongs is left where it
    is (a player sets it aside), and the watcher says there is no game yet."""
    import subprocess
    import sys
    from peertools import ROOT, board_folder
    board = board_folder(tmp_path / "b")
    (board / "records").write_text("junk where a folder belongs")
    try:
        r = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(board), "--lang", lang,
                            "--no-color"], capture_output=True, text=True, encoding="utf-8", timeout=5, cwd=ROOT,
                           env=dict(os.environ, PYTHONIOENCODING="utf-8"))
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = "".join(s.decode("utf-8") if isinstance(s, bytes) else (s or "") for s in (e.stdout, e.stderr))
    assert texts.text(lang, "no_game") in out and NOTICE[lang] not in out, out
    assert (board / "records").read_text() == "junk where a folder belongs"
    assert sorted(os.listdir(board)) == ["cardstand.board", "records", "tmp"]
