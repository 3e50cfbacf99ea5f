"""The record is evidence, not authority (D4-D6, H5b): attacks on the game record through real processes.

A classmate who can write the board folder edits ``records/<game>.game`` while the players are
away (or while one of them is): a forged end, a rewritten history, a ply nobody sent.  With a
shared secret a record written without it is set aside and never resumed; without one, what the
moves give is checked, and plies taken from the other side's greeting are announced.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from engine import BLACK, Game
from peer.record import Record, Records

from peertools import ROOT, board_folder, final_line, finish, player
from test_peer_restart import RANDOM, collect, plies, record, wait_for

SECRET = {"CARDSTAND_SECRET": "class 3-B"}


def paced(colour, board, seed, env=None, *extra):
    return player(colour, board, *RANDOM, "--seed", seed, "--pace", "0.3", *extra, env=env)


# what the other side says once a player has left (on Windows: has been killed, see ``leave``)
TOLD_AWAY = "shows no sign of life" if os.name == "nt" else "left the game"


def leave(proc):
    """SIGTERM: the player leaves as ``quit`` does (bye sent, exit 0).  Windows has no SIGTERM
    (``send_signal`` ends the process at once) and Wine gives no console for Ctrl+Break: there
    the player is killed, which leaves the record as it was too."""
    if os.name == "nt":
        proc.kill()
        proc.wait(timeout=30)
        return
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def edit(board, **values):
    """Change lines of the current record as a person with a text editor would (a ``mac`` line,
    if any, is left as it was)."""
    path = Records(board).path(Records(board).current_id())
    text = path.read_text(encoding="utf-8")
    for key, value in values.items():
        text, n = re.subn(rf"^{key}: .*$", f"{key}: {value}", text, count=1, flags=re.M)
        assert n == 1, key
    path.write_text(text, encoding="utf-8")
    return path


def set_aside(board, gid):
    return sorted((board / "records").glob(f"{gid}.set-aside-*"))


def other_history(moves, size=8):
    """Another legal transcript of the same length as ``moves`` (a different first move, then the
    first legal move each time)."""
    g = Game(size)
    first = Game.from_transcript(moves, size=size).moves[0]
    for _ in Game.from_transcript(moves, size=size).moves:
        pos = g.position
        legal = list(pos.legal_moves())
        if not legal:
            g.play(-1)
            continue
        choice = next((m for m in legal if not g.moves and m != first), legal[0])
        g.play(choice)
    return g.transcript(passes=True)


def finish_all(*procs):
    """``finish`` each process in turn (codes and outputs, flattened); any still running at the end,
    after a failure, is killed."""
    try:
        return [x for p in procs for x in finish(p)]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def run_pair(board, env=None, seeds=(3, 4)):
    rb, ob, rw, ow = finish_all(player("black", board, *RANDOM, "--seed", seeds[0], env=env),
                                player("white", board, *RANDOM, "--seed", seeds[1], env=env))
    return rb, ob, rw, ow


def both_leave(board, enough, what, env=None):
    """A paced game until ``enough()``; then both sides leave (SIGTERM, as quit)."""
    b, w = paced("black", board, 1, env), paced("white", board, 2, env)
    try:
        wait_for(enough, 60, what)
        leave(b)
        leave(w)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()


def forged_while_black_away(board, restart, env=None):
    """A paced game until white has answered a black ply; black leaves and, while white waits, a
    legal black ply is appended to the record; then ``restart()`` starts black again.  Returns
    (black's code, its output, white's code, white's output, the genuine moves, the forged ones, the
    game id)."""
    b, w = paced("black", board, 1, env), paced("white", board, 2, env)
    try:
        seen_w = collect(w)
        wait_for(lambda: plies(board) >= 4 and plies(board) % 2 == 0, 60, "white's answer")
        leave(b)
        # (black may have played one more ply before it left: then white answers it first)
        wait_for(lambda: any(TOLD_AWAY in line for line in seen_w)
                 and Game.from_transcript(raw_moves(board)).position.turn == BLACK, 30, "white told, black to move")
        genuine, forged = forged_ply(board)
        edit(board, moves=forged)
        gid = Records(board).current_id()
        b = restart()
        rb, ob, rw, _ = finish_all(b, w)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    return rb, ob, rw, "".join(seen_w), genuine, forged, gid


def test_a_forged_end_is_not_believed(tmp_path):
    """Without a secret: ``status: over`` / ``result: 64-0`` on an unfinished game is damage; the
    record is set aside (kept), both sides say so, and a real game is played to its real end."""
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 3, "3 plies")
    gid = Records(board).current_id()
    forged = edit(board, status="over", result="64-0").read_text(encoding="utf-8")
    # the tools refuse it too: replay and its GGF export
    for extra in ([], ["--ggf"], ["--moves"]):
        r = subprocess.run([sys.executable, "-m", "peer", "replay", str(Records(board).path(gid)), *extra],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert r.returncode == 2 and "says the game is over, but after" in r.stderr, (extra, r.stdout, r.stderr)
        assert "RE[" not in r.stdout
    rb, ob, rw, ow = run_pair(board)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    said = ob + ow
    assert f"The record of game {gid} on the board is damaged: it says the game is over" in said
    assert "64-0" not in (final_line(ob) or "") and final_line(ob) == final_line(ow) is not None
    kept = set_aside(board, gid)
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == forged
    rec = record(board)
    assert rec is not None and rec.status == "over" and Game.from_transcript(rec.moves).position.is_game_over()


def test_a_rewritten_history_is_not_resumed_with_a_secret(tmp_path):
    """Both sides share a secret and leave mid-game; someone without it replaces ``moves`` with
    another legal history of the same length: neither side resumes it."""
    board = tmp_path / "b"
    both_leave(board, lambda: len(Game.from_transcript(raw_moves(board)).moves) >= 8, "8 plies", SECRET)
    gid = Records(board).current_id()
    genuine = raw_moves(board)
    forged_moves = other_history(genuine)
    assert forged_moves != genuine
    edit(board, moves=forged_moves)
    assert Records(board).current() is not None          # without the secret it looks sound
    assert Records(board, b"class 3-B").current() is None
    rb, ob, rw, ow = run_pair(board, env=SECRET)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    said = ob + ow
    assert f"The record of game {gid} on the board cannot be trusted: its signature does not match" in said
    assert "Resuming game" not in said
    assert len(set_aside(board, gid)) == 1
    rec = Records(board, b"class 3-B").current()
    assert rec is not None and rec.status == "over" and not rec.moves.startswith(forged_moves)
    assert final_line(ob) == final_line(ow) is not None


def raw_moves(board):
    """The ``moves`` of the current record, read without checking it (a test's eye on the file)."""
    path = Records(board).path(Records(board).current_id()) if Records(board).current_id() else None
    if path is None or not path.exists():
        return ""
    m = re.search(r"^moves: (.*)$", path.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else ""


def forged_ply(board):
    """A legal next ply appended to the current record's moves (as a text editor would)."""
    moves = raw_moves(board)
    g = Game.from_transcript(moves)
    pos = g.position
    legal = list(pos.legal_moves())
    g.play(legal[-1])
    return moves, g.transcript(passes=True)


def test_a_ply_nobody_sent_is_not_applied_with_a_secret(tmp_path):
    """Secret on; black leaves with white to wait for its move; someone appends a black ply to the
    record.  Black, restarted, sets the record aside and takes the game from white's greeting
    (announced); white never applies the forged ply."""
    board = tmp_path / "b"
    rb, ob, rw, ow, genuine, forged, gid = forged_while_black_away(
        board, lambda: player("black", board, *RANDOM, "--seed", 3, env=SECRET), SECRET)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    # black leaves the forged record alone until white's signed greeting shows the secret is
    # shared (D6a); by then white may have saved the genuine game over it: then nothing is set aside
    told = f"The record of game {gid} on the board cannot be trusted: its signature does not match" in ob
    assert told == (len(set_aside(board, gid)) == 1), ob[-1500:]
    n = len(Game.from_transcript(genuine).moves)
    assert f"{n} move(s) from random's copy of the game, from move 1" in ob, ob[-1500:]   # (white: --ai random)
    assert "'s copy of the game" not in ow
    rec = Records(board, b"class 3-B").current()
    assert rec.id == gid and rec.moves.startswith(genuine) and final_line(ob) == final_line(ow) is not None


def test_plies_taken_from_a_greeting_are_announced_without_a_secret(tmp_path):
    """Without a secret the appended ply cannot be told from a real one: black resumes it, and
    white, which takes it from black's greeting (H5), shows it as a move."""
    board = tmp_path / "b"
    rb, ob, rw, ow, genuine, forged, _ = forged_while_black_away(
        board, lambda: player("black", board, *RANDOM, "--seed", 3))
    square = forged[len(genuine):]
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    n = len(Game.from_transcript(genuine).moves)
    assert f"1 move(s) from random's copy of the game, from move {n + 1}" in ow, ow[-1500:]
    assert f"random played {square}." in ow      # (black is --ai random, and so named)


def test_records_are_signed_and_checked(tmp_path):
    board = board_folder(tmp_path / "b")
    key = b"k"
    r = Record(id="g-1", size=8, black="Ann", white="Bob", moves="f5d6", date="2026-11-25T00:00:00Z")
    Records(board, key).save(r)
    text = Records(board).path("g-1").read_text(encoding="utf-8")
    assert text.splitlines()[-1].startswith("mac: ") and len(text.splitlines()[-1]) == 5 + 64
    assert Records(board, key).load("g-1") == r
    assert Records(board).load("g-1") == r                  # a side without a secret ignores it
    for wrong in (b"other", b"k "):
        try:
            Records(board, wrong).load("g-1")
        except ValueError as e:
            assert "signature does not match" in str(e)
        else:
            raise AssertionError("a record signed with another secret was trusted")
    # any change of a value, even of the date or a name, breaks the signature
    for old, new in (("date: 2026-11-25T00:00:00Z", "date: 2026-11-25T00:00:01Z"), ("black: Ann", "black: Anne")):
        Records(board).path("g-1").write_text(text.replace(old, new), encoding="utf-8")
        try:
            Records(board, key).load("g-1")
        except ValueError as e:
            assert "signature does not match" in str(e)
        else:
            raise AssertionError(f"{new} was trusted")
    Records(board).path("g-1").write_text("\n".join(text.splitlines()[:-1]) + "\n", encoding="utf-8")
    try:
        Records(board, key).load("g-1")
    except ValueError as e:
        assert "not signed" in str(e)
    else:
        raise AssertionError("an unsigned record was trusted")


def test_the_end_must_be_what_the_moves_give(tmp_path):
    board = board_folder(tmp_path / "b")
    over = "f5d6c3d3c4"   # not over: 5 plies
    cases = [(Record(id="g-1", moves=over, status="over", result="64-0"), "says the game is over"),
             (Record(id="g-1", moves="f5", status="resigned", result="nobody resigned"), "says a side resigned"),
             (Record(id="g-1", moves="f5z9"), "moves do not replay")]
    for rec, why in cases:
        Records(board).save(rec)
        try:
            Records(board).load("g-1")
        except ValueError as e:
            assert why in str(e), (why, e)
        else:
            raise AssertionError(why)
    # a finished game with the wrong disc counts
    g = Game()
    while not g.position.is_game_over():
        pos = g.position
        legal = list(pos.legal_moves())
        g.play(legal[0] if legal else -1)
    b, w = g.position.discs()
    Records(board).save(Record(id="g-2", moves=g.transcript(passes=True), status="over", result=f"{w + 1}-{b}"))
    try:
        Records(board).load("g-2")
    except ValueError as e:
        assert f"is not what its moves give ({b}-{w})" in str(e)
    else:
        raise AssertionError("a wrong result was believed")
    Records(board).save(Record(id="g-2", moves=g.transcript(passes=True), status="over", result=f"{b}-{w}"))
    assert Records(board).load("g-2").result == f"{b}-{w}"


# -- the same attacks on the JavaScript peer (interop/js) ---------------------------------------------

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def js_player(colour, board, env=None):
    base = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
    return subprocess.Popen(["node", str(ROOT / "interop" / "js" / "peer.js"), "play", "--board", str(board),
                             "--color", colour], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            encoding="utf-8", env=dict(base, **(env or {})), cwd=ROOT)


@needs_node
def test_javascript_black_sets_aside_a_record_with_a_forged_ply(tmp_path):
    board = tmp_path / "b"
    rb, ob, rw, ow, genuine, _, gid = forged_while_black_away(board, lambda: js_player("black", board, SECRET), SECRET)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    # D6a: the forged record is left alone until white's signed greeting; white, which kept the game,
    # may have written the genuine record by then (judged again: sound), else it is set aside
    assert (f"the record of game {gid} on the board cannot be trusted: its signature does not match" in ob
            or f"the record of game {gid} is not signed with this side's secret" in ob), ob[-1500:]
    n = len(Game.from_transcript(genuine).moves)
    assert f"{n} move(s) from random's copy of the game, from move 1" in ob, ob[-1500:]   # (white: --ai random)
    assert "'s copy of the game" not in ow
    rec = Records(board, b"class 3-B").current()
    assert rec.id == gid and rec.moves.startswith(genuine) and rec.status == "over"
    assert len(set_aside(board, gid)) <= 1


@needs_node
def test_javascript_white_does_not_believe_a_forged_end(tmp_path):
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 3, "3 plies")
    gid = Records(board).current_id()
    edit(board, status="over", result="64-0")
    w = js_player("white", board)
    b = player("black", board, *RANDOM, "--seed", 3)
    try:
        rw, ow = finish(w)
        rb, ob = finish(b)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert "is damaged: it says the game is over" in ob + ow, (ob[-800:], ow[-800:])
    assert len(set_aside(board, gid)) == 1
    rec = record(board)
    assert rec is not None and rec.status == "over" and rec.result != "64-0"


def test_a_wrong_or_missing_secret_on_one_side_changes_no_record(tmp_path):
    """D6a: a side whose secret is not the other's cannot tell a forged record from its own mistake:
    it leaves the record alone, the game is refused (exit 3), and once both have the same secret the
    game resumes where it was.  A side without a secret writes a signed record only once the
    opponent shows it has none either."""
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 5, "5 plies", SECRET)
    gid = Records(board).current_id()
    path = Records(board).path(gid)
    genuine = path.read_bytes()
    n = Records(board, b"class 3-B").current().moves_played()
    rb, ob, rw, ow = finish_all(player("black", board, *RANDOM, "--seed", 3, env=SECRET),
                                player("white", board, *RANDOM, "--seed", 4, env={"CARDSTAND_SECRET": "other"}))
    assert rb == rw == 3, (ob[-800:], ow[-800:])
    assert path.read_bytes() == genuine and not set_aside(board, gid), ow[-1500:]
    rb, ob, rw, ow = finish_all(player("black", board, *RANDOM, "--seed", 3, env=SECRET),
                                player("white", board, *RANDOM, "--seed", 4))       # no secret at all
    assert rb == rw == 3, (ob[-800:], ow[-800:])
    assert path.read_bytes() == genuine and not set_aside(board, gid)
    rb, ob, rw, ow = run_pair(board, env=SECRET)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Resuming game {gid}" in ob and f"at move {n + 1}" in ob, ob[-1500:]
    assert final_line(ob) == final_line(ow) is not None


@pytest.mark.skipif(sys.platform == "win32", reason="a FIFO is POSIX")
@pytest.mark.parametrize("what", ["folder", "fifo"])
def test_a_record_that_is_not_a_file_is_said_and_set_aside(tmp_path, what):
    """A record made a folder or a FIFO is damaged (D6): both sides say so, it is set aside (moved,
    never opened), and a game is played under the same id."""
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 3, "3 plies")
    gid = Records(board).current_id()
    path = Records(board).path(gid)
    path.unlink()
    path.mkdir() if what == "folder" else os.mkfifo(path)
    rb, ob, rw, ow = run_pair(board)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"The record of game {gid} on the board is damaged: it is a {'folder' if what == 'folder' else 'FIFO'}" \
        in ob + ow, (ob[-800:], ow[-800:])
    kept = set_aside(board, gid)
    assert len(kept) == 1 and (kept[0].is_dir() if what == "folder" else kept[0].is_fifo())
    rec = Records(board).current()
    assert rec.id == gid and rec.status == "over" and final_line(ob) == final_line(ow) is not None


def test_a_record_the_other_side_set_aside_first_keeps_its_id(tmp_path):
    """D6: a side that finds ``records/current`` naming a game whose record is already set aside
    (the other side got there first) goes on under the same id, not a new game."""
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 3, "3 plies")
    gid = Records(board).current_id()
    path = Records(board).path(gid)
    path.rename(path.with_name(f"{gid}.set-aside-0123456789abcdef"))
    rb, ob, rw, ow = run_pair(board)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    rec = Records(board).current()
    assert rec.id == gid and rec.status == "over" and final_line(ob) == final_line(ow) is not None


def test_a_signed_record_is_played_on_when_neither_side_has_the_secret(tmp_path):
    """D6a: neither side has a secret now: the game of a signed record resumes (its first
    unsigned message releases the record) and is played to its end."""
    board = tmp_path / "b"
    both_leave(board, lambda: plies(board) >= 5, "5 plies", SECRET)
    gid = Records(board).current_id()
    rb, ob, rw, ow = run_pair(board)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Resuming game {gid}" in ob and final_line(ob) == final_line(ow) is not None
    rec = Records(board).current()
    assert rec.id == gid and rec.status == "over" and not rec.mac
