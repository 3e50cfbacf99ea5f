"""Hostile text from the board, in-process: the decoder, the session handlers, ids, records, the screen.

The fuzz tests use hypothesis with a fixed, database-free profile: the same
examples on every run (``derandomize``), a bounded number of them.
"""
import io
import os
import re
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comm import fsops
from engine import BLACK, WHITE, Game
from peer import protocol
from peer.cli import follow
from peer.record import Damaged, Record, Records, escape, unescape
from peer.faces.plain import Screen

from peerfakes import Exhausted, session
from peertools import board_folder, file_hashes

FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=120,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# What must never reach a terminal: control characters (C0 but the line feeds we print ourselves,
# DEL, C1) and the bidi controls.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

HOSTILE_VALUES = [
    "zz", "a1", "f5d6c3", "passpass", "a\x00b", "a" * 261, "..", "../../x", "..%2F..%2Fx", "/etc/passwd",
    "C:\\Windows\\x", ".hidden", "abc", "-4", "0", "1", "2", "8", "08", "٨", "1" * 5000, "", " ",
    "\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\u202egnp.exe", "a\nmoves: a1\nstatus: over", "x\r\nresult: 64-0",
    "\\n\\x1b", "%", "%%", "%zz", "%E3%81", "=", "a=b", "\ud7ff", "🀄" * 100, "g1", "f5", "f5d6",
]
KEYS = ["v", "role", "name", "size", "game", "moves", "reason", "move", "text", "black", "white", "t", "n"]


def _value():
    return st.one_of(st.sampled_from(HOSTILE_VALUES), st.text(max_size=40))


@st.composite
def bodies(draw):
    """A body as a hostile opponent might write it: control lines, moves, or anything."""
    kind = draw(st.integers(0, 9))
    if kind <= 5:
        verb = draw(st.one_of(st.sampled_from(protocol.VERBS), st.text(max_size=8)))
        items = draw(st.lists(st.tuples(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), _value(),
                                        st.booleans()), max_size=7))
        parts = [f"{k}={quote(v, safe='') if enc else v}" for k, v, enc in items]
        return " ".join(["#cardstand", verb, *parts])
    if kind <= 8:
        col = draw(st.sampled_from("abcdefghz"))
        row = draw(st.integers(0, 99))
        sq = draw(st.sampled_from([f"{col}{row}", "pass", "PASS", f"{col.upper()}{row}"]))
        n = draw(st.one_of(st.none(), st.integers(0, 70), st.integers(0, 10 ** 30)))
        t = draw(st.one_of(st.none(), st.integers(0, 10 ** 12)))
        out = sq + (f" #{n}" if n is not None else "") + (f" t={t}" if n is not None and t is not None else "")
        return out
    return draw(st.text(max_size=80))


# -- the decoder --------------------------------------------------------------------------------------

@FUZZ
@given(st.one_of(bodies(), st.text(), st.binary().map(lambda b: b.decode("latin-1"))))
def test_parse_never_raises_and_classifies(body):
    m = protocol.parse(body)
    assert m.kind in ("move", "junk", *protocol.VERBS)
    if m.kind == "move":
        assert isinstance(m.fields["square"], str)
        assert all(isinstance(m.fields[k], int) and m.fields[k] < 10 ** 9 for k in ("n", "t") if k in m.fields)


def test_parse_rejects_absurd_numbers():
    assert protocol.parse("d3 #" + "9" * 5000).kind == "junk"
    assert protocol.parse("d3 #5 t=" + "9" * 20).kind == "junk"
    assert protocol.parse("d3 #5 t=120").fields == {"square": "d3", "n": 5, "t": 120}


@pytest.mark.parametrize("gid,ok", [
    ("20261122-045500-ab12cd", True), ("a", True), ("A.b_c-9", True), ("x" * 64, True),
    ("x" * 65, False), ("a" * 261, False), ("", False), (".", False), ("..", False), (".hidden", False),
    ("../../x", False), ("..%2F..%2Fx", False), ("/etc/passwd", False), ("C:x", False), ("a\x00b", False),
    ("a b", False), ("a/b", False), ("a\\b", False), ("ａ", False), ("a\n", False), (None, False), (5, False),
])
def test_game_ids(gid, ok):
    assert protocol.valid_game_id(gid) is ok
    assert bool(protocol.game_id_problem(gid)) is not ok


# -- records ----------------------------------------------------------------------------------------

@FUZZ
@given(st.text())
def test_escape_round_trips_on_one_line(s):
    e = escape(s)
    assert unescape(e) == s
    assert len(e.splitlines()) <= 1 and "\n" not in e and not RAW.search(e)


@FUZZ
@given(black=st.one_of(st.sampled_from(HOSTILE_VALUES), st.text()),
       white=st.one_of(st.sampled_from(HOSTILE_VALUES), st.text()), result=st.text(max_size=30))
def test_a_hostile_record_round_trips_exactly(black, white, result):
    with tempfile.TemporaryDirectory() as d:
        board_folder(d)
        r = Record(id="g-1", size=6, black=black, white=white, moves="b3", status="abandoned", result=result)
        Records(d).save(r)
        raw = (Path(d) / "records" / "g-1.game").read_bytes().decode("utf-8")
        assert raw.count("\n") == 10 and raw.endswith("\n")
        assert [line.partition(": ")[0] for line in raw.split("\n")[1:-1]] == [
            "id", "size", "black", "white", "date", "mode", "moves", "status", "result"]
        assert Records(d).current() == r


def test_a_name_with_newlines_does_not_inject_lines(tmp_path):
    board_folder(tmp_path)
    name = "Eve\nmoves: a1\nstatus: over\r\nresult: 64-0\\n\x1b]0;x\x07\u2028\x85"
    r = Record(id="g1", black="Bob", white=name, moves="f5")
    Records(tmp_path).save(r)
    raw = (tmp_path / "records" / "g1.game").read_text(encoding="utf-8")
    assert raw.split("\n") == [
        "cardstand-game 1", "id: g1", "size: 8", "black: Bob",
        "white: Eve\\nmoves: a1\\nstatus: over\\r\\nresult: 64-0\\\\n\\x1b]0;x\\x07\\u2028\\x85",
        f"date: {r.date}", "mode: full", "moves: f5", "status: playing", "result: ", ""]
    back = Records(tmp_path).load("g1")
    assert back == r and back.white == name and back.moves == "f5" and back.status == "playing"


def test_records_never_read_or_write_outside_the_board(tmp_path):
    board, victim = tmp_path / "board", tmp_path / "victim"
    board_folder(board)
    victim.mkdir()
    planted = Record(id="x", black="PLANTED", moves="f5").text()
    (victim / "x.game").write_text(planted)
    (board / "x.game").write_text(planted)
    (victim / "current").write_text("x")
    (board / "records").mkdir()
    recs = Records(board)
    for current in ("../x", "../../victim/x", str(victim / "x"), "..%2Fx", "a\x00b", "a" * 200, ""):
        fsops.replace_with(board / "tmp", board / "records" / "current", fsops.record(current), durable=False)
        assert recs.current() is None
        out = io.StringIO()
        assert follow(board, Screen("en", stream=out), until_over=False, timeout=0.3) == 1
        assert "PLANTED" not in out.getvalue()
    for gid in ("../x", "/x", "..", "a\x00b", "a" * 261):
        with pytest.raises(ValueError):
            recs.load(gid)
        with pytest.raises(ValueError):
            recs.save(Record(id=gid))
    # a record file that is a link is not read (damaged: a player sets the link itself aside, D6);
    # a records folder that is a link is not used
    os.symlink(victim / "x.game", board / "records" / "y.game")
    with pytest.raises(Damaged, match="symbolic link"):
        recs.load("y")
    before = file_hashes(victim)
    (board / "records" / "y.game").unlink()
    (board / "records" / "current").unlink()
    (board / "records").rmdir()
    os.symlink(victim, board / "records")
    assert recs.current() is None
    # saving sets the link aside (into trash/, as itself) and makes a real records folder (F2)
    recs.save(Record(id="x", black="Mallory"))
    assert file_hashes(victim) == before
    assert (board / "records").is_dir() and not (board / "records").is_symlink()
    assert recs.load("x").black == "Mallory"
    assert any(p.is_symlink() for p in (board / "trash").iterdir())


# -- the session: handshake and game, driven in-process ----------------------------------------------

def _hello_sent(b):
    """Black has sent its hello (once white showed it speaks control lines, H9)."""
    return bool(b.last_sent())


def _greet_black(b):
    """White's welcome to the hello black sent last."""
    hello = protocol.parse(b.last_sent())
    return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"), moves="")


def _run(s, b):
    try:
        return s.run()
    except Exhausted:
        return None


def _check_output(out, top, before):
    text = out.getvalue()
    assert not RAW.search(text), repr(RAW.search(text).group(0))
    assert "Traceback" not in text
    after = file_hashes(top)
    outside = {k for k in set(after) | set(before) if not k.startswith("b" + os.sep)}
    assert {k: after.get(k) for k in outside} == {k: before.get(k) for k in outside}
    for name in os.listdir(Path(top) / "b" / "records") if (Path(top) / "b" / "records").exists() else ():
        gid, _, kind = name.rpartition(".")
        assert name == "current" or (kind in ("game", "ack-black", "ack-white", "clock-black", "clock-white")
                                     and protocol.valid_game_id(gid)), name


RUNS = st.sampled_from(["bound", "bound", "bound", "member-new", "foreign"])


@FUZZ
@given(colour=st.sampled_from([BLACK, WHITE]), before=st.lists(st.tuples(bodies(), RUNS), max_size=4),
       after=st.lists(st.tuples(bodies(), RUNS), max_size=12), signed=st.booleans())
def test_session_survives_any_message_sequence(colour, before, after, signed):
    """Hostile messages before and after the handshake: the session ends with a code or keeps playing."""
    with tempfile.TemporaryDirectory() as top:
        (Path(top) / "outside.txt").write_text("keep")
        snap = file_hashes(top)
        s, b, out = session(Path(top) / "b", colour)
        other = "white" if colour == BLACK else "black"
        runs = {"bound": b.runs[other], "member-new": "n" * 16, "foreign": "f" * 16}

        def push(body, run):
            if run == "member-new":   # the opponent restarted: its member record changes first
                b.runs[other] = runs["member-new"]
            b.push(other, body, run=runs[run], signed=signed and "#cardstand" in body)

        for body, run in before:
            push(body, run)
        if colour == BLACK:
            b.push("white", _greet_black, after=_hello_sent)
        else:
            b.push("black", protocol.control("hello", v=1, role="black", name="B", size=8, game="g1", moves=""))
        for body, run in after:
            push(body, run)
        code = _run(s, b)
        assert code in (None, 0, 3)
        _check_output(out, top, snap)
        if code is None and s.st.game is not None:
            rec = Records(Path(top) / "b").current()
            assert rec is not None, "a game began and no record was written"
            assert Game.from_transcript(rec.moves, size=rec.size).transcript() == s.st.game.transcript()


MALFORMED = [
    "#cardstand welcome v=1 role=white name=S game={gid} moves=zz",
    "#cardstand welcome v=1 role=white name=S game={gid} moves=a1",
    "#cardstand hello v=1 role={other} name=S game=a%00b moves=",
    "#cardstand hello v=1 role={other} name=S game=" + "a" * 261 + " moves=",
    "#cardstand hello v=1 role={other} name=S size=abc game={gid}",
    "#cardstand hello v=1 role={other} name=S game=..%2F..%2Fx moves=",
    "#cardstand hello v=1 role={other} name=S game=%2Ftmp%2Fx moves=",
    "#cardstand hello v=1 role={other} name=S game={gid} moves=zz",
    "#cardstand hello v=1 role={other} name=S game={gid} moves=a1",
    "#cardstand hello v=x role={other} name=S game={gid}",
    "#cardstand refused", "#cardstand refused move=%1b%5B2J reason=%1b]0;x%07",
    "#cardstand say text=%1b]0;owned%07%1b%5B31m", "#cardstand say", "#cardstand result black=abc",
    "#cardstand bye extra", "#cardstand welcome", "#cardstand hello", "d3 #99999999999999999999",
    "z99 #2", "pass #2", "#cardstand nonsense", "#cardstand  hello v=1", "\x1b]0;x\x07",
]


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_malformed_lines_mid_game_are_refused_or_ignored(tmp_path, colour):
    s, b, out = session(tmp_path / "b", colour)
    other = "white" if colour == BLACK else "black"
    if colour == BLACK:
        b.push("white", _greet_black, after=_hello_sent)
    else:
        b.push("black", protocol.control("hello", v=1, role="black", name="B", size=8, game="g1", moves=""))
    for line in MALFORMED:
        b.push(other, lambda b, line=line: line.format(gid=s.st.gid, other=other))
    assert _run(s, b) is None           # still playing when the script ran out
    text = out.getvalue()
    assert not RAW.search(text) and "Cannot play" not in text
    assert text.count("refused: bad game id") >= 3 and "do not replay" in text and "bad board size" in text
    assert "\\x1b]0;owned\\x07" in text             # the chat line, shown with the controls visible
    refused = [protocol.parse(body) for _, body in b.sent if body.startswith("#cardstand refused")]
    assert len(refused) >= 9
    assert not any(body.startswith("#cardstand refuse ") for _, body in b.sent)
    assert os.listdir(tmp_path) == ["b"]


@pytest.mark.parametrize("gid", ["..%2F..%2Fx", "%2Ftmp%2Fx", "a%00b", "a" * 261, "", ".x"])
def test_a_hello_with_a_bad_game_id_is_refused_in_the_handshake(tmp_path, gid):
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", f"#cardstand hello v=1 role=black name=B size=8 game={gid} moves=")
    assert _run(s, b) == 3
    assert "Cannot play: bad game id" in out.getvalue()
    assert protocol.parse(b.sent[-1][1]).get("reason").startswith("bad game id")
    assert os.listdir(tmp_path) == ["b"] and not (tmp_path / "b" / "records").exists()


def test_messages_from_another_run_are_not_applied(tmp_path):
    from engine import square_name
    g = Game()
    g.play(g.position.legal_moves()[0])                  # what black (FirstLegal) plays
    forged, real = (square_name(m) for m in (g.position.legal_moves()[0], g.position.legal_moves()[-1]))
    s, b, out = session(tmp_path / "b", BLACK)
    b.push("white", _greet_black, after=_hello_sent)
    b.push("white", "#cardstand say text=hi", run="f" * 16, after=lambda b: b.moves_sent() == 1)
    b.push("white", f"{forged} #2", run="f" * 16)
    b.push("white", "#cardstand resign", run="f" * 16)
    b.push("white", "#cardstand refuse reason=go", run="f" * 16)
    b.push("white", "#cardstand hello v=1 role=white name=Evil", run="f" * 16)
    b.push("white", f"{real} #2")                                # the real white's move
    assert _run(s, b) is None
    text = out.getvalue()
    assert text.count("from another run of white, not the one that joined this game, was ignored") == 5
    assert f"'{forged} #2' from another run of white" in text and f"W played {real}" in text, text
    assert s.st.game.moves[1] == g.position.legal_moves()[-1] and s.st.record.status == "playing"


def test_a_restarted_opponent_rebinds_the_game(tmp_path):
    s, b, out = session(tmp_path / "b", WHITE)
    hello = protocol.control("hello", v=1, role="black", name="B", size=8, game="g1", moves="")
    b.push("black", hello)
    b.push("black", "f5 #1")
    b.runs["black"] = "2" * 16      # black restarted
    b.push("black", protocol.control("hello", v=1, role="black", name="B2", size=8, game="g1", moves="f5"),
           run="2" * 16)
    b.push("black", "c3 #3", run="b" * 16)                      # the old run: not applied
    assert _run(s, b) is None
    assert s.st.them.bound_run == "2" * 16 and s.st.them.name == "B2"
    assert "'c3 #3' from another run of black" in out.getvalue()
    assert len(s.st.game.moves) == 2


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_a_signed_greeting_without_a_secret_is_refused(tmp_path, colour):
    s, b, out = session(tmp_path / "b", colour)
    if colour == BLACK:
        b.push("white", _greet_black, signed=True, after=_hello_sent)
    else:
        b.push("black", protocol.control("hello", v=1, role="black", name="B", size=8, game="g1", moves=""),
               signed=True)
    assert _run(s, b) == 3
    other = "white" if colour == BLACK else "black"
    assert f"{other} plays with a shared secret and this side has none" in out.getvalue()
    assert protocol.parse(b.sent[-1][1]).kind == "refuse"


# -- the shared secret: what comm refused --------------------------------------------------------------

def _rejected(board, reason, run=None):
    from comm import Rejected
    board.rejected.append(Rejected("white", board.runs["white"] if run is None else run, 1, reason))


@pytest.mark.parametrize("reason,says", [("no MAC (the sender has no shared secret)", "plays without the shared secret"),
                                         ("wrong MAC (another secret, or a forged message)",
                                          "plays with a different shared secret")])
def test_a_refused_greeting_from_the_opponent_ends_the_handshake(tmp_path, reason, says):
    s, b, out = session(tmp_path / "b", BLACK, secret=b"k")
    b.push("white", "junk", after=lambda b: b.last_sent() and not _rejected(b, reason))  # after the hello
    assert _run(s, b) == 3
    assert f"Cannot play: white {says}" in out.getvalue()
    assert protocol.parse(b.sent[-1][1]).kind == "refuse"


def test_refused_messages_after_the_handshake_are_reported_and_ignored(tmp_path):
    s, b, out = session(tmp_path / "b", BLACK, secret=b"k")
    b.push("white", _greet_black, after=_hello_sent)
    b.push("white", "#cardstand say text=hi", after=lambda b: b.moves_sent() == 1 and not _rejected(b, "wrong MAC x")
           and not _rejected(b, "no MAC y", run="f" * 16))
    assert _run(s, b) is None
    text = out.getvalue()
    assert "claiming to be from white was refused: wrong MAC x" in text
    assert "claiming to be from white was refused: no MAC y" in text
    assert "W says: hi" in text and "Cannot play" not in text


def test_a_known_game_id_on_another_size_is_a_conflict_not_a_crash(tmp_path):
    s, b, out = session(tmp_path / "b", WHITE)
    Records(tmp_path / "b").save(Record(id="g1", size=8, moves="f5d6c3"))
    b.push("black", protocol.control("hello", v=1, role="black", name="B", size=6, game="g1", moves=""))
    assert _run(s, b) == 3
    assert "records differ" in out.getvalue()
    assert Records(tmp_path / "b").load("g1").moves == "f5d6c3"


def test_a_welcome_for_another_size_is_not_adopted(tmp_path):
    s, b, out = session(tmp_path / "b", BLACK, size=8)
    b.push("white", lambda b: _greet_black(b).replace("moves=", "size=6 moves=c4"), after=_hello_sent)
    assert _run(s, b) == 3
    assert s.st.game.size == 8 and "Cannot play" in out.getvalue()


def test_ggf_export_escapes_names():
    r = Record(id="g1", size=6, black="Ev]e\x1b]0;x\x07", white="W\\h", moves="b3", status="resigned", result="white resigned")
    ggf = r.ggf()
    assert "PB[Ev\\]e\\\\x1b\\]0;x\\\\x07]" in ggf and "PW[W\\\\h]" in ggf and not RAW.search(ggf)
