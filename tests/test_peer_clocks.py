"""D7: the time each side has used goes on across a restart of either side or both, and both sides
show the same figures; a clock file from the board is untrusted (anything odd counts as 0).

Through real processes (paced computer games left with SIGTERM, as quit), read from what the
players print: ``Time used: black M:SS, white M:SS`` on leaving, on resuming and at the end.
"""
import io
import os
import re
import signal
import sys
import time

import pytest

from engine import BLACK, Shape
from peer.players import Clock, Computer
from peer.record import Records

from peer.faces.plain import Screen
from peer.session import Session
from peerfakes import FakeBoard
from peertools import ROOT, board_folder, final_line, finish, player, plies, wait_for

TIMES = re.compile(r"^Time used: black (\d+):(\d\d), white (\d+):(\d\d)$", re.M)
PACED = ["--ai", "random", "--time", "0.05", "--pace", "0.5"]
FAST = ["--ai", "random", "--time", "0.05"]


def times(out):
    """Every ``Time used`` line ``out`` holds, as (black, white) in seconds."""
    return [(int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])) for m in TIMES.finditer(out)]


def leave(proc):
    """SIGTERM: the player leaves as quit does (exit 0); what it printed."""
    proc.send_signal(signal.SIGTERM)
    code, out = finish(proc, timeout=60)
    assert code == 0, out[-800:]
    return out


def paced_until(board, n):
    """black and white (random, paced: about half a second a ply) until the record has ``n`` plies."""
    procs = [player("black", board, *PACED, "--seed", 1), player("white", board, *PACED, "--seed", 2)]
    try:
        wait_for(lambda: plies(board) >= n, 120, f"{n} plies")
    except BaseException:
        for p in procs:
            p.kill()
        raise
    return procs


def close(a, b):
    """Two figures in whole seconds for the same count of milliseconds, read at two moments a
    SIGTERM may fall between (the count noted on the board may then be a ply behind)."""
    return abs(a - b) <= 1


def test_both_sides_restart_and_their_clocks_go_on(tmp_path):
    board = tmp_path / "b"
    b, w = paced_until(board, 16)
    left_b, left_w = times(leave(b))[-1], times(leave(w))[-1]
    # each side's own time: eight plies of half a second
    assert left_b[0] >= 3 and left_w[1] >= 3, (left_b, left_w)
    b, w = player("black", board, *FAST, "--seed", 3), player("white", board, *FAST, "--seed", 4)
    rb, ob = finish(b, timeout=120)
    rw, ow = finish(w, timeout=120)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert final_line(ob) == final_line(ow) is not None
    (resumed_b, *_, end_b), (resumed_w, *_, end_w) = times(ob), times(ow)
    # on resuming each side shows its own time (from its file) and the other's (from its greeting)
    assert close(resumed_b[0], left_b[0]) and close(resumed_b[1], left_w[1]), (resumed_b, left_b, left_w)
    assert resumed_w == resumed_b, (resumed_w, resumed_b)
    # at the end both sides show the same clocks, which went on from there
    assert end_b == end_w and end_b[0] >= resumed_b[0] and end_b[1] >= resumed_b[1], (end_b, end_w)


def test_one_side_restarts_and_both_show_the_same_clocks(tmp_path):
    board = tmp_path / "b"
    b, w = paced_until(board, 16)
    try:
        left_b = times(leave(b))[-1]
        assert left_b[0] >= 3 and left_b[1] >= 3, left_b
        b = player("black", board, *FAST, "--seed", 3)
        rb, ob = finish(b, timeout=180)
        rw, ow = finish(w, timeout=180)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    resumed, *_, end_b = times(ob)
    end_w = times(ow)[-1]
    assert close(resumed[0], left_b[0]) and close(resumed[1], left_b[1]), (resumed, left_b)
    assert end_b == end_w and end_b[0] >= resumed[0] and end_b[1] >= resumed[1], (end_b, end_w)


def forged_clock_game(board, forged):
    """A paced game left by white after 10 plies, white's clock file made ``forged``, white started
    again and the game finished: (what white showed on leaving, black's and white's exit codes and output)."""
    b, w = paced_until(board, 10)
    try:
        left_w = times(leave(w))[-1]
        clock = board / "records" / f"{Records(board).current().id}.clock-white"
        assert Records(board).clock(Records(board).current().id, "white") > 0
        clock.unlink()
        if forged == "garbage":
            clock.write_bytes(os.urandom(3000))
        elif forged == "huge":
            clock.write_text("cardstand-clock 1\ngame: " + Records(board).current().id + "\nused: "
                             + "9" * 1_000_000 + "\n")
        elif forged == "negative":
            clock.write_text(f"cardstand-clock 1\ngame: {Records(board).current().id}\nused: -5000\n")
        else:
            clock.mkdir()
        w = player("white", board, *FAST, "--seed", 4)
        rw, ow = finish(w, timeout=180)
        rb, ob = finish(b, timeout=180)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    return left_w, (rb, ob), (rw, ow)


def test_a_forged_clock_file_counts_as_nothing_and_the_game_goes_on(tmp_path):
    """White's clock file made odd while white is away (garbage, a huge count, a negative one, a
    folder; the four games at once, on boards of their own): it counts as 0, and white's time comes
    back from black's greeting (black's count of it, the larger); both finish the game showing the
    same clocks."""
    from concurrent.futures import ThreadPoolExecutor
    kinds = ["garbage", "huge", "negative", "folder"]
    with ThreadPoolExecutor(len(kinds)) as pool:
        games = {kind: pool.submit(forged_clock_game, tmp_path / kind, kind) for kind in kinds}
        results = {kind: game.result() for kind, game in games.items()}
    for forged, (left_w, (rb, ob), (rw, ow)) in results.items():
        board = tmp_path / forged
        assert rb == rw == 0, (forged, ob[-800:], ow[-800:])
        assert "Traceback" not in ob + ow, forged
        resumed = times(ow)[0]
        assert close(resumed[1], left_w[1]) and resumed[0] >= 2, (forged, resumed, left_w)   # both from black's greeting
        assert times(ob)[-1] == times(ow)[-1], (forged, times(ob), times(ow))
        gid = Records(board).current().id
        assert Records(board).clock(gid, "white") >= 1000 * left_w[1], forged              # noted again


def test_a_game_set_aside_starts_its_clocks_again(tmp_path):
    """D6, D7: a game whose record is set aside goes on from no plies: its clocks start from 0
    (the old clock files do not count) and each side writes its file anew."""
    from peer.record import Record
    board = board_folder(tmp_path / "b")
    records = Records(board)
    records.save(Record(id="g-1", moves="f5d6", status="over", result="3-2"))     # damaged (D5)
    records.save_clock("g-1", "black", 500_000)
    records.save_clock("g-1", "white", 400_000)
    b, w = player("black", board, *FAST, "--seed", 3), player("white", board, *FAST, "--seed", 4)
    rb, ob = finish(b, timeout=120)
    rw, ow = finish(w, timeout=120)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert records.current().id == "g-1" and records.current().status == "over"
    end_b, end_w = times(ob)[-1], times(ow)[-1]
    assert end_b == end_w and max(end_b) < 60, (times(ob), times(ow))
    assert records.clock("g-1", "black") < 60_000 and records.clock("g-1", "white") < 60_000


def test_clock_files_are_read_strictly(tmp_path):
    """D7: only ``cardstand-clock 1``, ``game: <this game>`` and 1 to 9 digits of ``used`` count."""
    board = board_folder(tmp_path / "b")
    records = Records(board)
    assert records.clock("g-1", "black") == 0              # none yet
    records.save_clock("g-1", "black", 52318)
    assert records.clock("g-1", "black") == 52318 and records.clock("g-1", "white") == 0
    path = board / "records" / "g-1.clock-black"
    assert len(path.read_bytes()) == 256
    for text, ms in [("cardstand-clock 1\ngame: g-1\nused: 7\n", 7),
                     ("cardstand-clock 1\r\ngame: g-1 \r\nused: 007\r\n", 7),
                     ("cardstand-clock 1\ngame: g-1\nused: 1\nused: 2\n", 1),     # R1: the first one
                     ("cardstand-clock 1\ngame: g-2\nused: 7\n", 0), ("cardstand-clock 2\ngame: g-1\nused: 7\n", 0),
                     ("cardstand-clock 1\ngame: g-1\nused: -7\n", 0), ("cardstand-clock 1\ngame: g-1\nused: 7.5\n", 0),
                     ("cardstand-clock 1\ngame: g-1\nused: 1e9\n", 0), ("cardstand-clock 1\ngame: g-1\nused: \n", 0),
                     ("cardstand-clock 1\ngame: g-1\nused: 1234567890\n", 0), ("cardstand-clock 1\ngame: g-1\n", 0),
                     ("cardstand-clock 1\ngame: g-1\nused: \u0667\n", 0), ("", 0), ("garbage", 0),
                     (" " * 5000 + "cardstand-clock 1\ngame: g-1\nused: 7\n", 0)]:
        path.write_text(text, encoding="utf-8")
        assert records.clock("g-1", "black") == ms, text
    path.unlink()
    path.mkdir()
    assert records.clock("g-1", "black") == 0
    path.rmdir()
    path.symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_text("cardstand-clock 1\ngame: g-1\nused: 7\n")
    assert records.clock("g-1", "black") == 0                  # never through a link
    assert records.clock("../g-1", "black") == 0               # not a game id: no file named


def test_a_game_time_budget_goes_on_from_the_time_used(tmp_path):
    """--game-time 60 with 50 s used before a restart: 10 s left, in the player and in the View."""
    c = Clock(per_game=60.0)
    c.used(50.0)
    assert c.left == 10.0
    c.used(75.0)
    assert c.left == 0.0
    board = FakeBoard(tmp_path / "b")
    Records(board.folder).save_clock("g-1", "black", 50_000)
    me = Computer("random", game_time=60.0)
    s = Session(board.folder, BLACK, me, Screen("en", stream=io.StringIO()), board=board)
    s.keeper.start_game("g-1", Shape.square(8), "f5d6")     # (a game with plies: one without starts its clocks at 0)
    s.st.mode = "full"
    assert me.clock.left == 10.0
    assert s.view().sides[BLACK].used == 50.0 and s.view().sides[BLACK].left == 10.0
    s.moves.commit(s.st.game.position.legal_moves()[0], 2500)      # a ply of 2.5 s
    assert me.clock.left == 7.5 and Records(board.folder).clock("g-1", "black") == 52_500
    assert board.moves_sent() == 1 and board.sent[-1][1].endswith(" t=2500")
    Records(board.folder).save_clock("g-2", "black", 50_000)
    s.keeper.start_game("g-2", Shape.square(8))             # no plies: the time starts again, and is noted so
    assert me.clock.left == 60.0 and s.view().sides[BLACK].used == 0 and Records(board.folder).clock("g-2", "black") == 0


def pexpect_eof():
    import pexpect
    return pexpect.EOF


USED = re.compile(r"used (\d+):(\d\d)")


def used_shown(text):
    """The ``used M:SS`` a face shows for each player, black's first, in seconds."""
    return [int(m[1]) * 60 + int(m[2]) for m in USED.finditer(text)]


@pytest.mark.parametrize("face", ["live", "window"])
def test_the_live_screen_and_the_window_show_the_clocks_restored(tmp_path, face):
    """Black leaves a paced game and comes back as a person (its clock then stands still) on the
    live screen or in the window: both players' time used is what it was."""
    board = tmp_path / "b"
    b, w = paced_until(board, 16)
    try:
        left = times(leave(b))[-1]
        assert left[0] >= 3 and left[1] >= 3, left
        if face == "live":
            from test_peer_screen import Terminal
            t = Terminal("black", board, "--lang", "en")
            lines = t.wait_for(lambda lines: len(used_shown("\n".join(lines))) == 2
                               and "black to play" in "\n".join(lines), seconds=60)
            shown = used_shown("\n".join(lines))
            t.proc.send("quit\r")
            t.proc.expect(pexpect_eof(), timeout=30)
        else:
            from windowtools import Driven, start_display
            display, name = start_display()
            try:
                me = Driven(name, [ROOT / "black.py", "--board", board, "--lang", "en"], tmp_path / "b.json",
                            tmp_path / "b.out")
                s = me.wait("our turn, the clocks shown", lambda s: "*" in s["squares"]
                            and len(used_shown(" ".join(p[2] for p in s["players"]))) == 2, timeout=60)
                shown = used_shown(" ".join(p[2] for p in s["players"]))
                me.click_button("quit")
                code, out = me.finish()
                assert code == 0, out
            finally:
                display.terminate()
                display.wait()
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    # black's from its file, white's from white's greeting (white may have played one more ply)
    assert close(shown[0], left[0]) and close(shown[1], left[1]), (shown, left)


@pytest.mark.skipif(sys.platform == "win32", reason="pexpect's pseudo-terminal is POSIX")
@pytest.mark.parametrize("how", ["quit", "resign"])
def test_the_turn_a_person_leaves_or_resigns_on_is_counted(tmp_path, how):
    """Leaving (or resigning) on one's own turn: the time that turn took is counted and noted."""
    import pexpect
    from peertools import human
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.05", "--patience", "5")
    h = human("black", board, "--lang", "en")
    try:
        h.expect("Your move")
        time.sleep(2.0)                 # thinking about the first move...
        h.sendline(how)
        if how == "resign":
            h.expect(r"\?")
            h.sendline("yes")
        h.expect(r"Time used: black (\d+):(\d\d), white (\d+):(\d\d)")
        mine = [int(h.match.group(i)) * 60 + int(h.match.group(i + 1)) for i in (1, 3)]
        assert mine[0] >= 2
        h.expect(pexpect.EOF)
    finally:
        h.close(force=True)
        rw, ow = finish(w)
    gid = Records(board).current_id()
    assert Records(board).clock(gid, "black") >= 2000
    # the other screen counts the same turn: resign and bye carry its time (D7)
    theirs = re.findall(r"Time used: black (\d+):(\d\d), white (\d+):(\d\d)", ow)
    assert theirs, ow[-800:]
    b_m, b_s, w_m, w_s = (int(x) for x in theirs[-1])
    assert abs(b_m * 60 + b_s - mine[0]) <= 1 and abs(w_m * 60 + w_s - mine[1]) <= 1, (mine, theirs, ow[-800:])


def test_a_watcher_shows_the_clocks_of_the_clock_files(tmp_path):
    """D7: watch (the live screen, the window) and the demo show each side's time used from its
    clock file, not 0:00."""
    from peer.faces.records import watch_window
    from peer.record import Record
    board = board_folder(tmp_path / "b")
    records = Records(board)
    rec = Record(id="g-1", size=8, black="a", white="b", moves="f5d6")
    records.save(rec)
    records.save_clock("g-1", "black", 3530)
    records.save_clock("g-1", "white", 2718)

    class Window:
        closed = False

        def say(self, *args, **kw):
            pass

        def tell(self, event):
            pass

        def run(self, work, view):
            code = work()
            self.view = view()
            return code

    w = Window()
    assert watch_window(board, w, until_over=True, alive=lambda: False) == 1    # (one look: "the players are gone")
    assert [side.used for side in w.view.sides] == [3.53, 2.718]
