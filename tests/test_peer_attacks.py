"""A hostile board through real processes: forged moves, hostile control lines, paths from the board."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from comm import Board, fsops
from comm.board import frame, msg_name
from engine import WHITE, Game, square_name, strategies
from peer import protocol
from conformance.play import _expect as expect
from peer.record import Record, Records

from peertools import ROOT, file_hashes, final_line, finish, game_board, player

RAW_ESC = "\x1b"


def forge(board, to, body, sender="white", run="f" * 16, key=None):
    """Post ``body`` into ``to``'s mailbox claiming to be ``sender`` (run ``run``; "real": the sender's
    own run), the way a classmate with write access to the folder would: a message file written
    directly, under the board lock; signed with ``key`` if given (a guessed secret)."""
    me = Board(board, "forger").join()     # only its lock is used: joining as "white" would replace white
    box = Path(board) / "box" / to
    try:
        with me.lease.hold(10):
            k = max(fsops.read_int(box / "head"), fsops.read_int(box / "tail")) + 1
            while (box / msg_name(k)).exists():
                k += 1
            if run == "real":
                run = me.member_run(sender)
            data = frame(sender, run, to, me.member_run(to), k, body.encode("utf-8"), key)
            scratch = Path(board) / "tmp" / f"forged-{k}.tmp"
            scratch.write_bytes(data)
            os.rename(scratch, box / msg_name(k))
            fsops.replace_with(Path(board) / "tmp", box / "head", fsops.record(str(k)), durable=False)
    finally:
        me.close()
    return k


def forge_a_white_move(board, deadline=60, **forge_kw):
    """When white is to move, post a legal move for white that white's greedy AI would not play.

    Returns (ply number, the forged square, the square greedy plays)."""
    greedy = strategies.get("greedy")
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        rec = Records(board).current()
        if rec and rec.moves:
            try:
                g = Game.from_transcript(rec.moves, size=rec.size)
            except ValueError:
                g = None
            pos = g and g.position
            if pos and pos.turn == WHITE and len(pos.legal_moves()) >= 2:
                real = greedy.next_move(pos)
                fake = next(m for m in pos.legal_moves() if m != real)
                n = len(g.moves) + 1
                forge(board, "black", protocol.move(square_name(fake), n, 5), **forge_kw)
                return n, square_name(fake), square_name(real)
        time.sleep(0.005)
    raise AssertionError("white never came to move")


def test_a_forged_move_from_another_run_is_not_applied(tmp_path):
    """The attack: a move posted as "white" by a third process.  It is shown and ignored,
    the real white's move is applied, and the game ends the same on both sides (before: the forged move
    was applied, the real one dropped as a duplicate, and both sides waited forever)."""
    board = tmp_path / "b"
    b = player("black", board, "--ai", "greedy", "--time", "0.05")
    w = player("white", board, "--ai", "greedy", "--time", "0.05", "--pace", "0.4")
    n, fake, real = forge_a_white_move(board)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"'{fake} #{n} t=5' from another run of white, not the one that joined this game, was ignored" in ob
    assert final_line(ob) == final_line(ow) is not None
    g = Game.from_transcript(Records(board).current().moves)
    assert square_name(g.moves[n - 1]) == real and g.position.is_game_over()


EVIL_NAME = "Script\x1b]0;title\x07\nmoves: a1\nstatus: over"


def handshake_as_white(board):
    me = game_board(board, "white")
    hello = expect(me, "hello")
    me.send("black", protocol.control("welcome", v=1, role="white", name=EVIL_NAME, game=hello.get("game"),
                                      moves=""))
    return me, hello


def handshake_as_black(board, game="g-1"):
    me = Board(board, "black").join()
    hello = protocol.control("hello", v=1, role="black", name=EVIL_NAME, size=8, game=game, moves="")
    deadline = time.monotonic() + 30
    while not me.send("white", hello):
        assert time.monotonic() < deadline, "white never joined"
        time.sleep(0.05)
    expect(me, "welcome")
    return me


MALFORMED = [   # hostile lines; {gid} is the game's id, {me} the script's colour
    "#cardstand welcome v=1 role={me} name=S game={gid} moves=zz",
    "#cardstand welcome v=1 role={me} name=S game={gid} moves=a1",
    "#cardstand hello v=1 role={me} name=S game={gid} moves=zz",
    "#cardstand hello v=1 role={me} name=S game={gid} moves=a1",
    "#cardstand hello v=1 role={me} name=S game=a%00b moves=",
    "#cardstand hello v=1 role={me} name=S game=" + "a" * 261 + " moves=",
    "#cardstand hello v=1 role={me} name=S game=..%2F..%2Fx moves=",
    "#cardstand hello v=1 role={me} name=S game=%2Ftmp%2Fcardstand-x moves=",
    "#cardstand hello v=1 role={me} name=S size=abc game={gid} moves=",
    "#cardstand hello v=x role={me} name=S game={gid}",
    "#cardstand hello", "#cardstand welcome", "#cardstand refused", "#cardstand result black=abc",
    "#cardstand say text=%1B%5D0%3Bowned%07%1B%5B2J", "#cardstand refused move=%1B%5B31m reason=%1B%5D0%3Bx%07",
    "d3 #99999999999999999999", "z99 #9", "#cardstand nonsense", "\x1b]0;title\x07",
]
N_REFUSED = 10      # the greetings above that are answered with `refused`


@pytest.mark.parametrize("victim", ["black", "white"])
def test_malformed_control_lines_are_never_fatal(tmp_path, victim):
    """Each malformed line is refused or ignored; the player keeps running and the game goes on."""
    board = tmp_path / "b"
    p = player(victim, board, "--ai", "greedy", "--time", "0.05", "--name", "Victim")
    if victim == "black":
        me, hello = handshake_as_white(board)
        gid, script = hello.get("game"), "white"
        g = Game()
        m = expect(me, "move")
        g.play(m.get("square"))
    else:
        me = handshake_as_black(board)
        gid, script = "g-1", "black"
        g = Game()
    for line in MALFORMED:
        assert me.send(victim, line.format(gid=gid, me=script))
    refused = [expect(me, "refused") for _ in range(N_REFUSED)]
    assert sum("bad game id" in r.get("reason") for r in refused) == 4
    for _ in range(3):                          # the game goes on: three more plies each
        mv = square_name(g.position.legal_moves()[0])
        me.send(victim, protocol.move(mv, len(g.moves) + 1, 0))
        g.play(mv)
        m = expect(me, "move")
        assert m.get("n") == len(g.moves) + 1
        g.play(m.get("square"))
    me.send(victim, protocol.control("resign"))
    me.send(victim, protocol.control("result", black=2, white=2, game=gid))     # G4: the resigner's result
    code, out = finish(p)
    assert code == 0, out[-1500:]
    assert "Traceback" not in out and RAW_ESC not in out and "\x07" not in out
    assert "Script\\x1b]0;title\\x07\\nmoves: a1\\nstatus: over resigned" in out and "Cannot play" not in out
    assert "\\x1b]0;owned\\x07\\x1b[2J" in out            # the chat line, controls made visible
    rec = Records(board).current()
    assert getattr(rec, script) == EVIL_NAME and rec.status == "resigned"   # kept exactly, on one line
    raw = (board / "records" / f"{gid}.game").read_text(encoding="utf-8").split("\n")
    assert [line.partition(": ")[0] for line in raw[1:-1]] == [
        "id", "size", "black", "white", "date", "mode", "moves", "status", "result"]
    assert rec.id == gid and rec.result == f"{script} resigned" and Game.from_transcript(rec.moves).moves == g.moves
    assert set(os.listdir(board / "records")) - {f"{gid}.clock-{victim}"} == {"current", f"{gid}.game",
                                                                         f"{gid}.ack-{victim}"}   # (D7: its time used)
    assert not Path("/tmp/cardstand-x.game").exists()


@pytest.mark.parametrize("gid", ["..%2F..%2Fx", "ABS"])
def test_a_hello_with_a_path_for_game_id_writes_nothing_outside(tmp_path, gid):
    """A forged hello: white refuses it ("bad game id") and writes nothing anywhere."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    board = tmp_path / "area" / "b"
    board.parent.mkdir()
    if gid == "ABS":
        gid = protocol.quote(str(victim / "x"), safe="") if hasattr(protocol, "quote") else \
            str(victim / "x").replace("/", "%2F")
    before = file_hashes(tmp_path, skip=board)
    w = player("white", board, "--ai", "random")
    evil = Board(board, "black").join()
    deadline = time.monotonic() + 30
    while not evil.send("white", f"#cardstand hello v=1 role=black name=Eve size=8 game={gid} moves="):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    r = expect(evil, "refuse")
    assert r.get("reason").startswith("bad game id")
    code, out = finish(w)
    assert code == 3 and "Cannot play: bad game id" in out
    assert file_hashes(tmp_path, skip=board) == before
    assert not (board / "records").exists() or os.listdir(board / "records") == []


def test_watch_never_follows_records_current_outside_the_board(tmp_path):
    board = tmp_path / "b"
    (board / "records").mkdir(parents=True)
    (board / "tmp").mkdir()
    (board / "cardstand.board").write_text("cardstand-board 1\n")
    planted = Record(id="x", black="PLANTED", white="PLANTED", moves="f5", status="over", result="1-0")
    (tmp_path / "x.game").write_text(planted.text())
    fsops.replace_with(board / "tmp", board / "records" / "current", fsops.record("../../x"), durable=False)
    try:
        r = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(board), "--until-over",
                            "--no-color"], capture_output=True, text=True, timeout=4, cwd=ROOT)
        out = r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    assert "PLANTED" not in out and "No game on this board yet" in out


def test_a_records_folder_that_is_a_link_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "current").write_text("keep me")
    (victim / "keep.game").write_text("keep me too")
    board = tmp_path / "b"
    board.mkdir()
    os.symlink(victim, board / "records")
    before = file_hashes(victim)
    b = player("black", board, "--ai", "greedy", "--size", "6", "--time", "0.05")
    w = player("white", board, "--ai", "random", "--time", "0.05")
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0 and final_line(ob) == final_line(ow) is not None
    assert file_hashes(victim) == before
    # the link was set aside and a real records folder made: the game has its record (F2)
    assert not (board / "records").is_symlink() and Records(board).current().status == "over"
    assert "Game record:" in ob and "could not be saved" not in ob


# -- the shared secret -------------------------------------------------------------------------------

def test_with_the_same_secret_the_game_is_played_and_forgeries_are_refused(tmp_path):
    """Both sides have the secret (one from --secret-file, one from CARDSTAND_SECRET): the game is
    played; a forged move without a MAC and one with a wrong MAC (even with white's real run) are
    refused, reported and not applied."""
    board = tmp_path / "b"
    secret = tmp_path / "secret.txt"
    secret.write_text("  correct horse battery staple\n")
    b = player("black", board, "--ai", "greedy", "--time", "0.05", "--secret-file", secret)
    w = player("white", board, "--ai", "greedy", "--time", "0.05", "--pace", "0.4",
               env={"CARDSTAND_SECRET": "correct horse battery staple"})
    n, fake, real = forge_a_white_move(board)
    forge(board, "black", protocol.move(fake, n, 5), run="real", key=b"a guess")
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert "A message claiming to be from white was refused: no MAC" in ob
    assert "A message claiming to be from white was refused: wrong MAC" in ob
    assert final_line(ob) == final_line(ow) is not None
    g = Game.from_transcript(Records(board).current().moves)
    assert square_name(g.moves[n - 1]) == real and g.position.is_game_over()
    assert len(os.listdir(board / "trash")) >= 2


@pytest.mark.parametrize("case", ["black-only", "white-only", "different"])
def test_a_secret_mismatch_is_refused_on_both_sides(tmp_path, case):
    board = tmp_path / "b"
    envs = {"black-only": ({"CARDSTAND_SECRET": "s1"}, {}), "white-only": ({}, {"CARDSTAND_SECRET": "s1"}),
            "different": ({"CARDSTAND_SECRET": "s1"}, {"CARDSTAND_SECRET": "s2"})}[case]
    b = player("black", board, "--ai", "random", env=envs[0])
    w = player("white", board, "--ai", "random", env=envs[1])
    rb, ob = finish(b, timeout=60)
    rw, ow = finish(w, timeout=60)
    assert rb == 3 and rw == 3, (ob, ow)
    assert "Cannot play" in ob and "Cannot play" in ow
    both = ob + ow
    if case == "different":
        assert "plays with a different shared secret" in both
    else:
        has, hasnt = ("black", "white") if case == "black-only" else ("white", "black")
        assert f"{has} plays with a shared secret and this side has none" in both \
            or f"{hasnt} plays without the shared secret" in both
    assert "CARDSTAND_SECRET or --secret-file" in ob and "CARDSTAND_SECRET or --secret-file" in ow


def test_an_unusable_secret_is_a_clear_error(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text(" \n\t\n")
    for args, env, want in [(["--secret-file", tmp_path / "missing"], {}, "cannot read the secret file"),
                            (["--secret-file", empty], {}, "is empty"),
                            ([], {"CARDSTAND_SECRET": "  "}, "CARDSTAND_SECRET is empty")]:
        code, out = finish(player("black", tmp_path / "b", "--ai", "random", *args, env=env), timeout=60)
        assert code == 2 and "Cannot use the shared secret" in out and want in out, out
    assert not (tmp_path / "b").exists()


def test_a_forger_cannot_stop_a_secret_game_by_planting_a_member_run(tmp_path):
    """Member records are not signed: a forger without the secret writes a new run into white's
    member record and posts an unsigned message from it.  Before the game was bound that would
    read as "white has no secret"; once it is bound it is only reported, and the game goes on."""
    board = tmp_path / "b"
    env = {"CARDSTAND_SECRET": "s3cret"}
    b = player("black", board, "--ai", "greedy", "--time", "0.05", env=env)
    w = player("white", board, "--ai", "greedy", "--time", "0.05", "--pace", "0.4", env=env)
    end = time.monotonic() + 60
    while not (Records(board).current() and len(Records(board).current().moves) >= 3):
        assert time.monotonic() < end, "the game did not start"
        time.sleep(0.05)
    me = Board(board, "forger").join()
    try:
        with me.lease.hold(10):
            fsops.replace_with(board / "tmp", board / "box" / "white" / "member",
                               fsops.record("cardstand-member 1\nname: white\nrun: deadbeefdeadbeef\nhost: x\npid: 1"))
    finally:
        me.close()
    forge(board, "black", "#cardstand hello v=1 role=white name=mallory", run="deadbeefdeadbeef")
    forge(board, "black", "c4 #99", run="deadbeefdeadbeef")
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert "was refused: no MAC" in ob
    assert final_line(ob) == final_line(ow) is not None
