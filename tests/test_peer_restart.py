"""One board, two players: a restart never drops a game, and every ply reaches the other side.

Through real processes: a side killed after saving its last ply (or its resignation) but before
sending it offers the game again when it starts (G6, H5).
"""
import signal
import subprocess
import time
from contextlib import contextmanager

from comm.lease import Lease
from engine import Game
from peer.record import Records

from peertools import board_folder, final_line, finish, player

RANDOM = ["--ai", "random", "--time", "0.05"]


def wait_for(cond, timeout=60, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def record(board):
    return Records(board).current()


def plies(board):
    rec = record(board)
    return len(Game.from_transcript(rec.moves, size=rec.size).moves) if rec and rec.moves else 0


def state_of(board, colour):
    """The ``state`` in ``colour``'s alive record ('' when there is none)."""
    text = (board / "box" / colour / "alive")
    try:
        lines = text.read_text().splitlines()
    except OSError:
        return ""
    return next((line[7:].strip() for line in lines if line.startswith("state: ")), "")


@contextmanager
def board_lock(board):
    """Hold the board's lock (heartbeating): nobody delivers or takes a message meanwhile."""
    lease = Lease(board, board / "tmp", stale_after=10.0, who="test")
    assert lease.acquire(30), "the test could not take the board lock"
    try:
        yield
    finally:
        lease.release()
        lease.close()


def seeded_pair(board, size, *extra_black, extra_white=()):
    b = player("black", board, *RANDOM, "--seed", 1, "--size", size, *extra_black)
    w = player("white", board, *RANDOM, "--seed", 2, *extra_white)
    return b, w


def test_the_last_ply_reaches_the_other_side_after_a_kill(tmp_path):
    """The mover of the last ply is killed after saving it (status over) and before sending it:
    restarted, it offers the game again; the other side adopts the last ply and sees the end."""
    # the same seeds play the same game: learn who makes the last ply
    first = tmp_path / "first"
    rb, ob = finish(seeded_pair(first, 6)[0])
    game = Game.from_transcript(record(first).moves, size=6)
    n = len(game.moves)
    victim = "black" if game.positions[-2].turn == 0 else "white"
    other = "white" if victim == "black" else "black"
    pace = ["--pace", "1.5"]
    board = tmp_path / "b"
    b, w = seeded_pair(board, 6, *(pace if victim == "black" else ()),
                       extra_white=pace if victim == "white" else ())
    procs = {"black": b, "white": w}
    try:
        # the victim has applied ply n-1 and thinks about ply n: hold the lock, so that its send waits
        wait_for(lambda: plies(board) == n - 1 and state_of(board, victim) == "thinking", 120,
                 f"{victim} thinking about ply {n}")
        with board_lock(board):
            wait_for(lambda: record(board).status == "over", 30, "the last ply saved")
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].wait()
        assert Records(board).acknowledged(record(board).id, other) is False
        time.sleep(0.5)
        procs[victim] = player(victim, board, *RANDOM, "--seed", 3)
        rv, ov = finish(procs[victim], timeout=120)
        ro, oo = finish(procs[other], timeout=120)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    assert rv == 0 and ro == 0, (ov[-800:], oo[-800:])
    assert "has not confirmed the end yet" in ov, ov[-800:]
    assert final_line(ov) == final_line(oo) is not None, (ov[-500:], oo[-500:])
    rec = record(board)
    assert rec.status == "over" and Game.from_transcript(rec.moves, size=6).moves == game.moves
    assert Records(board).acknowledged(rec.id, "black") and Records(board).acknowledged(rec.id, "white")
    # finished on both sides: the next start is a new game, not the old one again
    b, w = seeded_pair(board, 6)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0 and "offering the game again" not in ob + ow
    assert record(board).id != rec.id


def test_a_resignation_reaches_the_other_side_after_a_kill(tmp_path):
    board = tmp_path / "b"
    w = player("white", board, *RANDOM, "--seed", 2)
    b = player("black", board, "--name", "Ann", stdin=subprocess.PIPE)
    procs = {"black": b, "white": w}
    try:
        wait_for(lambda: record(board) and state_of(board, "black") == "thinking", 60, "black's first turn")
        with board_lock(board):
            b.stdin.write("resign\n")
            b.stdin.flush()
            wait_for(lambda: record(board).status == "resigned", 30, "the resignation saved")
            b.send_signal(signal.SIGKILL)
            b.wait()
        procs["black"] = b = player("black", board, stdin=subprocess.PIPE)    # a person: stdin stays open
        rw, ow = finish(w, timeout=120)
        rb, ob = finish(b, timeout=60)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    assert rw == 0 and rb == 0, (ob[-800:], ow[-800:])
    assert "Ann resigned" in ow, ow[-800:]
    assert "has not confirmed the end yet" in ob, ob[-800:]
    rec = record(board)
    assert rec.status == "resigned" and rec.result == "black resigned"
    assert Records(board).acknowledged(rec.id, "black") and Records(board).acknowledged(rec.id, "white")


def test_an_acknowledgement_is_read_as_untrusted(tmp_path):
    """D3: only a sound ``records/<id>.ack-<colour>`` for that very game counts."""
    board = board_folder(tmp_path / "b")
    records = Records(board)
    records.acknowledge("g-1", "white")
    assert records.acknowledged("g-1", "white") and not records.acknowledged("g-1", "black")
    ack = board / "records" / "g-1.ack-white"
    assert len(ack.read_bytes()) == 256
    for forged in ("cardstand-ack 1\ngame: someone-else\n", "garbage", "", "cardstand-ack 2\ngame: g-1\n"):
        ack.write_text(forged)
        assert not records.acknowledged("g-1", "white"), forged
    ack.unlink()
    ack.mkdir()                 # not a regular file: not read
    assert not records.acknowledged("g-1", "white")
    assert not records.acknowledged("../x", "white")
