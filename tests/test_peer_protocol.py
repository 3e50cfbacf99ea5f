"""The game protocol against scripted opponents: classic programs, bad messages, versions, restarts."""
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import Game
from peer import protocol
from conformance.play import _expect as expect
from peer.record import Records

from peertools import final_line, finish, game_board, player

HERE = Path(__file__).parent


def fake(board, name):
    return game_board(board, name)


def test_against_a_classic_tutorial_program(tmp_path):
    board = tmp_path / "b"
    classic = subprocess.Popen([sys.executable, str(HERE / "classic_white.py"), str(board)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(0.5)
    b = player("black", board, "--ai", "greedy", "--classic-after", "1.5")
    rb, ob = finish(b, timeout=180)
    out, _ = classic.communicate(timeout=60)
    assert rb == 0, ob[-800:]
    assert "classic mode" in ob
    line = final_line(ob)
    expect_counts = out.strip().splitlines()[-1].replace("classic result: ", "")
    assert expect_counts in line, (line, out[-300:])
    ignored = [l for l in out.splitlines() if l.startswith("ignored")]
    assert not ignored, ignored         # H9: not even a control line reached it
    rec = Records(board).current()
    assert rec.mode == "classic" and rec.status == "over"


@pytest.mark.parametrize("first", ["classic", "ours"])
def test_a_classic_tutorial_black_never_sees_a_control_line(tmp_path, first):
    """H9: our white sends nothing until black shows it speaks control lines; a classic black shows
    nothing, so the first thing it receives is white's first move, and never a line starting '#'."""
    board = tmp_path / "b"
    w = None
    if first == "ours":
        w = player("white", board, "--ai", "greedy")
        time.sleep(1.0)
    classic = subprocess.Popen([sys.executable, str(HERE / "classic_black.py"), str(board)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if w is None:
        time.sleep(0.5)
        w = player("white", board, "--ai", "greedy")
    rw, ow = finish(w, timeout=180)
    out, _ = classic.communicate(timeout=60)
    assert rw == 0, ow[-800:]
    assert "classic mode" in ow
    assert "not a move" not in out, out[-800:]
    counts = out.strip().splitlines()[-1].replace("classic result: ", "")
    assert counts in final_line(ow), (final_line(ow), out[-300:])
    rec = Records(board).current()
    assert rec.mode == "classic" and rec.status == "over"


def handshake_as_white(board, **extra):
    me = fake(board, "white")
    hello = expect(me, "hello")
    fields = dict(v=1, role="white", name="Script", game=hello.get("game"), moves=hello.get("moves"))
    fields.update(extra)
    me.send("black", protocol.control("welcome", **fields))
    return me, hello


def test_illegal_duplicate_out_of_turn_and_garbage_are_refused(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "greedy", "--time", "0.05")
    me, hello = handshake_as_white(board)
    g = Game()
    m = expect(me, "move")
    assert m.get("n") == 1
    g.play(m.get("square"))
    me.send("black", "a1 #2")                                       # illegal
    r = expect(me, "refused")
    assert r.get("move") == "a1 #2" and "flips nothing" in r.get("reason")
    me.send("black", "#cardstand nonsense here")                    # garbage: ignored
    me.send("black", "zzz")                                          # garbage: ignored
    me.send("black", "d3 #5")                                        # a gap: refused
    assert "expected" in expect(me, "refused").get("reason")
    legal = g.position.legal_moves()
    from engine import square_name
    mv = square_name(legal[0])
    me.send("black", f"{mv} #2")
    g.play(mv)
    me.send("black", f"{mv} #2")                                     # duplicate: ignored silently
    m = expect(me, "move")
    assert m.get("n") == 3
    g.play(m.get("square"))
    mv2 = square_name(g.position.legal_moves()[0])
    me.send("black", f"{mv2} #3")                                    # stale number for a new move: dropped
    me.send("black", "#cardstand say text=%E3%81%AF%E3%81%84")
    me.send("black", "#cardstand resign")
    me.send("black", protocol.control("result", black=2, white=2))
    rb, ob = finish(b)
    assert rb == 0
    assert "white resigned" in Records(board).current().result
    assert "refused" in ob and "Script says: はい" in ob
    rec = Records(board).current()
    assert Game.from_transcript(rec.moves).transcript() == g.transcript()


def test_version_mismatch_is_refused_on_both_sides(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random")
    me = fake(board, "white")
    expect(me, "hello")
    me.send("black", protocol.control("welcome", v=3, role="white", name="future", game="x"))
    r = expect(me, "refuse")
    assert "version 3" in r.get("reason")
    rb, ob = finish(b)
    assert rb == 3 and "protocol version 3 is not supported" in ob

    w = player("white", board / "2", "--ai", "random")
    me2 = fake(board / "2", "black")
    deadline = time.monotonic() + 30
    while not me2.send("white", protocol.control("hello", v=9, role="black", size=8, game="g1", moves="")):
        assert time.monotonic() < deadline, "white never joined"
        time.sleep(0.1)
    assert "version 9" in expect(me2, "refuse").get("reason")
    rw, ow = finish(w)
    assert rw == 3 and "Cannot play" in ow


@pytest.mark.parametrize("victim", ["black", "white"])
def test_kill_and_restart_either_side_mid_game(tmp_path, victim):
    board = tmp_path / "b"
    common = ["--ai", "random", "--time", "0.05", "--pace", "0.15"]
    procs = {"black": player("black", board, *common, "--seed", 1),
             "white": player("white", board, *common, "--seed", 2)}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rec = Records(board).current()
        if rec and len(Game.from_transcript(rec.moves).moves) >= 10:
            break
        time.sleep(0.05)
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].wait()
    time.sleep(0.5)
    procs[victim] = player(victim, board, *common, "--seed", 3)
    rb, ob = finish(procs["black"], timeout=180)
    rw, ow = finish(procs["white"], timeout=180)
    assert rb == 0 and rw == 0, (ob[-600:], ow[-600:])
    assert "Resuming game" in (ob if victim == "black" else ow)
    assert final_line(ob) == final_line(ow) is not None
    rec = Records(board).current()
    g = Game.from_transcript(rec.moves)
    assert g.position.is_game_over() and rec.status == "over"


def test_external_engines_that_fail_are_handled(tmp_path):
    board = tmp_path / "b"
    slow = f'{sys.executable} -c "import time; time.sleep(5)"'
    b = player("black", board, "--engine", slow, "--time", "0.3")
    w = player("white", board, "--engine", f'{sys.executable} -c "print(\'hello\')"')
    rb, ob = finish(b, timeout=240)
    rw, ow = finish(w, timeout=240)
    assert rb == 0 and rw == 0
    assert "no answer within 0.3 s" in ob
    assert "expected 'x y'" in ow
    assert final_line(ob) == final_line(ow) is not None


def test_external_engine_in_the_one_shot_format(tmp_path):
    board = tmp_path / "b"
    good = f"{sys.executable} -m engine move --ai greedy --time 0.05"
    b = player("black", board, "--engine", good)
    w = player("white", board, "--ai", "random")
    rb, ob = finish(b, timeout=240)
    rw, _ = finish(w, timeout=240)
    assert rb == 0 and rw == 0
    assert "external engine failed" not in ob
    assert "Game on: computer (black X) vs random (white O)" in ob    # (the default names)


@pytest.mark.parametrize("colour", ["black", "white"])
def test_no_control_line_before_the_opponent_shows_it_speaks_them(tmp_path, colour):
    """H9 in-process: an opponent whose alive record has no state (or that has none) gets nothing
    from us; one that sets a state, or greets, gets our hello; a classic game sends no control line."""
    from peerfakes import Exhausted, session
    from engine import BLACK, WHITE
    other = "white" if colour == "black" else "black"
    for state in (None, ""):
        s, b, out = session(tmp_path / f"{colour}-{state}", BLACK if colour == "black" else WHITE)
        b.states[other] = state
        with pytest.raises(Exhausted):
            s.run()
        assert b.sent == [], b.sent
    s, b, out = session(tmp_path / f"{colour}-waiting", BLACK if colour == "black" else WHITE)
    b.states[other] = "waiting"
    with pytest.raises(Exhausted):
        s.run()
    assert b.sent and b.sent[0][1].startswith("#cardstand hello"), b.sent
    if colour == "white":       # a classic black's bare move: classic mode, only bare moves back
        s, b, out = session(tmp_path / "classic", WHITE)
        b.states["black"] = ""
        b.push("black", "f5")
        b.push("black", "a1")       # illegal: shown, not answered with a control line
        with pytest.raises(Exhausted):
            s.run()
        assert s.st.mode == "classic" and b.sent and not any(body.startswith("#") for _, body in b.sent), b.sent
        assert "refused: not your turn" in out.getvalue()    # shown here, not sent (H6)


def test_black_does_not_start_a_classic_game_with_a_white_that_left(tmp_path):
    """H6: a white whose run ended (comm.Board.left) is not 'joined': black waits, never goes classic."""
    from peerfakes import Exhausted, session
    from engine import BLACK
    for ended in (True, False):
        s, b, out = session(tmp_path / str(ended), BLACK)
        s.st.classic_after = 0.0
        b.states["white"] = ""
        if ended:
            b.ended.add("white")
        with pytest.raises(Exhausted):
            s.run()
        assert (s.st.mode == "classic") != ended, (ended, s.st.mode, out.getvalue())


def test_an_opponent_gone_before_confirming_the_end_does_not_turn_the_end_into_a_failure(tmp_path):
    """G6: after the last ply, a side waits for the opponent's result; an opponent that vanishes
    meanwhile ends the wait after --patience, and the game counts as played (exit 0, record over)."""
    from engine import BLACK, PASS, square_name
    from peerfakes import session
    from test_peer_hostile import _greet_black, _hello_sent
    game = Game(size=4)
    while not game.position.is_game_over():
        game.play(game.position.legal_moves()[0] if not game.position.must_pass() else PASS)
    s, b, out = session(tmp_path / "b", BLACK, size=4, patience=1.0, gone_after=0.5)
    b.idle = True                                # the opponent simply stops
    b.push("white", _greet_black, after=_hello_sent)
    black_plies = 0
    for i, mv in enumerate(game.moves):
        if i % 2 == 0:
            black_plies += 1
            continue
        b.push("white", protocol.move(square_name(mv, 4), i + 1), after=lambda b, k=black_plies: b.moves_sent() >= k)
    assert s.run() == 0, out.getvalue()
    text = out.getvalue()
    assert "shows no sign of life" in text, text
    assert s.st.record.status == "over" and len(s.st.game.moves) == len(game.moves)
    assert any(body.startswith("#cardstand result") for _, body in b.sent)


def test_how_to_leave_is_told_as_the_side_can_leave():
    """A person types 'quit'; a computer side reads no commands and is left with Ctrl+C."""
    import io
    from types import SimpleNamespace
    from peer.session.telling import Teller
    from peer.players import Human, Player
    from peer.faces.plain import Screen
    for kind, lang, expect in (("human", "en", "type 'quit'"), ("computer", "en", "Ctrl+C"),
                               ("human", "ja", "quit"), ("computer", "ja", "Ctrl+C")):
        st = SimpleNamespace(player=Human(False) if kind == "human" else Player(),
                             screen=Screen(lang, stream=io.StringIO()))
        Teller(st).say("gone", name="W", secs=6)
        text = st.screen.stream.getvalue()
        assert expect in text and "{" not in text, text
        assert ("Ctrl+C" in text) == (kind == "computer")


def test_an_opponent_that_said_bye_is_waited_for_and_never_called_gone(tmp_path):
    """G5: after ``bye`` the opponent has left (and is waited for ``patience``), it is not "gone":
    its silence is no news, and "no sign of life" is not said on top of "left the game"."""
    from engine import BLACK
    from peerfakes import session
    from test_peer_hostile import _greet_black, _hello_sent
    s, b, out = session(tmp_path / "b", BLACK, size=4, patience=1.5, gone_after=0.3)
    b.idle = True                                # no heartbeat after it left
    b.push("white", _greet_black, after=_hello_sent)
    b.push("white", protocol.control("bye"), after=lambda b: b.moves_sent() >= 1)
    assert s.run() == 4, out.getvalue()
    text = out.getvalue()
    assert "left the game" in text and "did not come back within 1 s" in text, text
    assert "no sign of life" not in text, text


def test_a_quit_typed_while_the_computer_thinks_sends_no_move(tmp_path):
    """A computer side at a terminal: 'quit' typed while it chose its move leaves before the move
    is applied or sent (the person asked to leave; the move would reach the opponent after)."""
    from engine import BLACK
    from peer.players import Lines
    from peerfakes import session
    from test_peer_hostile import _greet_black, _hello_sent
    s, b, out = session(tmp_path / "b", BLACK, size=4)
    lines = Lines()
    chosen = []

    def choose(position):
        lines.put("quit\n")         # typed meanwhile
        chosen.append(position.legal_moves()[0])
        return chosen[-1], ""
    s.st.player.lines, s.st.player.choose = lines, choose
    b.idle = True
    b.push("white", _greet_black, after=_hello_sent)
    assert s.run() == 0, out.getvalue()
    assert chosen and b.moves_sent() == 0 and not s.st.game.moves, b.sent
    assert "You left the game" in out.getvalue()
    assert any(body.startswith("#cardstand bye") for _, body in b.sent)


def test_the_view_shows_names_from_the_board_made_visible(tmp_path):
    """Session.view(): a name is untrusted text (P5): control and bidi characters are escaped."""
    from engine import BLACK, WHITE
    from peerfakes import session
    s, b, out = session(tmp_path / "b", BLACK, size=4)
    s.st.them.name = "A\nB\x1b[31m\u202eC\x9b2J"
    v = s.view()
    assert v.sides[WHITE].name == "A\\nB\\x1b[31m\\u202eC\\x9b2J", v.sides[WHITE].name
    assert v.sides[BLACK].name == "computer" and v.sides[BLACK].me and v.sides[WHITE].state == "absent"


def test_an_opponent_without_a_heartbeat_that_stops_moving_is_said_once_and_waited_for(tmp_path, monkeypatch):
    """A minimal peer (PR2) writes no alive record, so it is never judged gone (P2): when it has not
    moved for a while (a minute) the person is told why nothing can be judged, once a move, and the
    game waits on."""
    from engine import BLACK
    from peer.session import presence
    from peerfakes import Exhausted, session
    monkeypatch.setattr(presence, "SILENT_AFTER", 0.5)
    s, b, out = session(tmp_path / "b", BLACK, patience=1.0, gone_after=0.3)     # (classic: 8x8 only, H6c)
    s.st.classic_after = 0.0
    b.idle = True
    b.states["white"] = None                     # no alive record: it keeps no heartbeat
    told_at = []

    def three_seconds_after_it_was_told(b):
        if "has not moved" in out.getvalue() and not told_at:
            told_at.append(time.monotonic())
        if told_at and time.monotonic() - told_at[0] > 3:
            b.idle = False                       # the board runs dry: the session stops (Exhausted)
        return False

    b.push("white", "never delivered", after=three_seconds_after_it_was_told)
    with pytest.raises(Exhausted):
        s.run()
    text = out.getvalue()
    assert s.st.mode == "classic" and len(s.st.game.moves) == 1, text
    assert text.count("white has not moved for 0 s and keeps no sign of life") == 1, text
    assert "no sign of life for" not in text and "leaving" not in text, text     # never judged gone


def _classic(colour, board, started=None):
    p = subprocess.Popen([sys.executable, str(HERE / f"classic_{colour}.py"), str(board)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if started is not None:
        started.append(p)   # (killed by the test whatever happens: a classic program waits for ever)
    return p


def _kill_all(started):
    for p in started:
        if p.poll() is None:
            p.kill()
        p.wait()


def _same_end(out, classic_out):
    """Our side's last "Game over" line gives the classic program's final count."""
    counts = classic_out.strip().splitlines()[-1].replace("classic result: ", "")
    assert counts in (final_line(out) or ""), (final_line(out), classic_out[-300:])


def _until_plies(board, n, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while _plies(board) < n:
        assert time.monotonic() < deadline and proc.poll() is None, f"the game did not reach ply {n}"
        time.sleep(0.02)


def _plies(board):
    rec = Records(board).current()
    return len(Game.from_transcript(rec.moves).moves) if rec is not None and rec.moves else 0


@pytest.mark.parametrize("ours", ["black", "white"])
def test_a_classic_program_killed_and_started_again_plays_a_new_game(tmp_path, ours):
    """H6b: a classic program keeps no record; killed mid-game and started again, it plays a new game.
    Our side closes the old one, says so and plays the new one to the end with it (before: it sent
    its last move again, illegal in the new game, and both sides waited for ever)."""
    board = tmp_path / "b"
    theirs = "white" if ours == "black" else "black"
    started = []
    first = _classic(theirs, board, started)
    time.sleep(0.5)
    ours_p = player(ours, board, "--ai", "greedy", "--classic-after", "1", "--pace", "0.3")
    started.append(ours_p)
    try:
        _until_plies(board, 8, ours_p)
        old = Records(board).current_id()
        first.kill()
        first.wait()
        again = _classic(theirs, board, started)
        rc, out = finish(ours_p, timeout=90)
        theirs_out, _ = again.communicate(timeout=30)
    finally:
        _kill_all(started)
    assert rc == 0, out[-1500:]
    assert f"{theirs} started again. A classic program keeps no record, so it plays a new game: game {old}" in out
    assert Records(board).load(old).status == "abandoned"
    _same_end(out, theirs_out)
    assert Records(board).current().status == "over" and Records(board).current_id() != old


@pytest.mark.parametrize("ours", ["black", "white"])
def test_another_board_against_a_classic_program_is_refused_with_the_reason(tmp_path, ours):
    """H6c: a classic program cannot be told a size: our side never offers it one, says why and stops
    (before: black announced a 6x6 game and played c2; the classic white found it illegal, and both
    waited until killed)."""
    board = tmp_path / "b"
    theirs = "white" if ours == "black" else "black"
    started = []
    classic = _classic(theirs, board, started)
    try:
        time.sleep(0.5)
        started.append(player(ours, board, "--ai", "greedy", "--size", "6", "--classic-after", "1"))
        rc, out = finish(started[-1], timeout=60)
    finally:
        _kill_all(started)
        classic_out, _ = classic.communicate(timeout=10)
    assert rc == 3, out[-800:]
    assert (f"Cannot play: {theirs} shows no greeting, so it plays the classic protocol, which knows only the "
            f"plain 8x8 board; this game is on 6x6") in out, out[-800:]
    assert "not a move" not in classic_out and "illegal" not in classic_out.lower(), classic_out[-400:]


@pytest.mark.parametrize("ours", ["black", "white"])
def test_both_sides_killed_and_started_again_against_a_classic_program_play_a_new_game(tmp_path, ours):
    """H6b: our side resumes its game from the record, but the classic program started again knows
    nothing of it: our side sees that its run is not the one the game was played with, closes the
    game and plays a new one (before: "Resuming game ... at move 18" against a program at move 1,
    and both waited for ever)."""
    board = tmp_path / "b"
    theirs = "white" if ours == "black" else "black"
    args = ("--ai", "greedy", "--classic-after", "1", "--pace", "0.3")
    started = []
    first = _classic(theirs, board, started)
    try:
        time.sleep(0.5)
        ours_p = player(ours, board, *args)
        started.append(ours_p)
        _until_plies(board, 8, ours_p)
        old = Records(board).current_id()
        for p in (first, ours_p):
            p.kill()
            p.wait()
        restarted = player(ours, board, *args)     # (ours first: a classic black's first move to a run
        started.append(restarted)                   # that ended is dropped by the next run's Quiet, I2)
        time.sleep(1.0)
        again = _classic(theirs, board, started)
        rc, out = finish(restarted, timeout=90)
        theirs_out, _ = again.communicate(timeout=30)
    finally:
        _kill_all(started)
    assert rc == 0, out[-1500:]
    assert f"A classic program keeps no record, so it plays a new game: game {old}" in out, out[-1500:]
    _same_end(out, theirs_out)
    assert Records(board).load(old).status == "abandoned"


def test_a_classic_black_started_before_our_white_is_told_to_start_again_and_then_plays(tmp_path):
    """I2: a classic black started first sends its first move to white's earlier run, which our new
    white's Quiet drops; a classic program never sends it again.  Our white says so at once and the
    game begins as soon as black is started again (before: both waited for ever, in silence)."""
    board = tmp_path / "b"
    args = ("--ai", "greedy", "--pace", "0.3")
    started = []
    first = _classic("black", board, started)
    try:
        time.sleep(0.5)
        ours = player("white", board, *args)
        started.append(ours)
        _until_plies(board, 6, ours)
        for p in (first, ours):
            p.kill()
            p.wait()
        early = _classic("black", board, started)   # its first move goes to the white that was killed
        time.sleep(1.5)
        ours = player("white", board, *args)
        started.append(ours)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(iter(ours.stdout.readline, "")), daemon=True)
        reader.start()
        deadline = time.monotonic() + 30
        while not any("to an earlier run of this side" in line for line in lines):
            assert time.monotonic() < deadline and ours.poll() is None, "".join(lines)
            time.sleep(0.1)
        early.kill()
        early.wait()
        again = _classic("black", board, started)
        rc = ours.wait(timeout=90)
        reader.join(10)
        theirs_out, _ = again.communicate(timeout=30)
    finally:
        _kill_all(started)
    out = "".join(lines)
    assert rc == 0, out[-1500:]
    assert re.search(r"black sent '[a-h][1-8]' to an earlier run of this side, before this one started", out), out
    assert "start black again and the game begins" in out and "has sent nothing" not in out
    _same_end(out, theirs_out)


def test_a_computer_white_whose_classic_blacks_move_was_lost_leaves_after_its_patience(tmp_path):
    """The same lost first move, black not started again: a computer white waits its patience for it
    and leaves with the reason (exit code 4), never waiting for ever."""
    board = tmp_path / "b"
    started = []
    try:
        _classic("black", board, started)
        time.sleep(0.5)
        started.append(player("white", board, "--ai", "greedy", "--pace", "0.3"))
        deadline = time.monotonic() + 60
        while _plies(board) < 4:
            assert time.monotonic() < deadline, "the game did not start"
            time.sleep(0.05)
        for p in started:
            p.kill()
            p.wait()
        _classic("black", board, started)           # its first move goes to the white that was killed
        time.sleep(1.5)
        white = player("white", board, "--ai", "greedy", "--patience", "3")
        started.append(white)
        rc, out = finish(white, timeout=60)
    finally:
        _kill_all(started)
    assert rc == 4, out[-1500:]
    assert "to an earlier run of this side" in out and "was not started again within 3 s" in out, out[-1500:]


def test_our_white_killed_on_its_turn_goes_on_with_the_same_classic_black_at_once(tmp_path):
    """Our white killed after it applied black's move and before it answered, then started again: the
    classic black that played with it is still there, waiting for white's move.  White goes on in
    classic mode at once and the game is played to the end (before: white waited for a greeting that
    a classic program never sends, for ever, after telling to start black again, which would have
    lost the game)."""
    board = tmp_path / "b"
    started = []
    try:
        black = _classic("black", board, started)
        time.sleep(0.5)
        slow = player("white", board, "--ai", "greedy", "--pace", "5")
        started.append(slow)
        deadline = time.monotonic() + 30
        while _plies(board) < 1:
            assert time.monotonic() < deadline and slow.poll() is None, "black's first move never came"
            time.sleep(0.02)
        slow.kill()
        slow.wait()
        white = player("white", board, "--ai", "greedy")
        started.append(white)
        rc, out = finish(white, timeout=90)
        black_out, _ = black.communicate(timeout=30)
    finally:
        _kill_all(started)
    assert rc == 0, out[-1500:]
    assert "to an earlier run of this side" not in out and "started again" not in out, out[-1500:]
    _same_end(out, black_out)
    assert Records(board).current().status == "over"
