"""One board, two players: a restart never drops a game, and every ply reaches the other side.

Through real processes: a side killed after saving its last ply (or its resignation) but before
sending it offers the game again when it starts (G6, H5).
"""
import signal
import subprocess
import time
from contextlib import contextmanager

from comm.lease import Lease
from engine import Game, Shape
from peer.record import Records

from peertools import board_folder, file_hashes, final_line, finish, output, player, plies, wait_for

RANDOM = ["--ai", "random", "--time", "0.05"]


def record(board):
    return Records(board).current()


def state_of(board, colour):
    """The ``state`` in ``colour``'s alive record ('' when there is none)."""
    text = (board / "box" / colour / "alive")
    try:
        lines = text.read_text().splitlines()
    except OSError:
        return ""
    return next((line[7:].strip() for line in lines if line.startswith("state: ")), "")


def collect(proc):
    """The lines ``proc`` prints, gathered as they come (a list that grows)."""
    return output(proc).lines


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
    pace = ["--pace", "0.8"]
    board = tmp_path / "b"
    b, w = seeded_pair(board, 6, *(pace if victim == "black" else ()),
                       extra_white=pace if victim == "white" else ())
    procs = {"black": b, "white": w}
    try:
        # the victim has applied ply n-1 and thinks about ply n: hold the lock, so that its send waits
        # (its state is no proof: "thinking" lags its change and may be the one about ply n-2)
        said = collect(procs[victim])
        theirs = sum(1 for p in game.positions[:n - 1] if p.turn != game.positions[-2].turn)

        def applied():
            # (the other side is --ai random, and so named)
            return sum(1 for line in said if line.startswith(("random played ", "random has no legal move")))
        wait_for(lambda: applied() == theirs, 240, f"{victim} applying ply {n - 1}")
        with board_lock(board):
            wait_for(lambda: record(board).status == "over", 30, "the last ply saved")
            procs[victim].kill()
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
            b.stdin.write("resign\nyes\n")
            b.stdin.flush()
            wait_for(lambda: record(board).status == "resigned", 30, "the resignation saved")
            b.kill()
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


# -- item 1: a restart never drops a game silently ---------------------------------------------------

def board_state(board):
    """Every file of the board but the heartbeats and scratch: what a refused start must not change."""
    return {k: v for k, v in file_hashes(board).items()
            if not k.endswith("alive") and not k.startswith(("tmp", "lock", "trash"))}


def mid_game(board, plies_at_least=6, **kw):
    """black and white (random, paced) on an 8x8 board, until the record holds some plies."""
    b = player("black", board, *RANDOM, "--seed", 1, "--pace", "0.3", *kw.get("black", ()))
    w = player("white", board, *RANDOM, "--seed", 2, "--pace", "0.3", *kw.get("white", ()))
    wait_for(lambda: plies(board) >= plies_at_least, 60, f"{plies_at_least} plies")
    return b, w


def kill(p):
    p.kill()
    p.wait()


def test_another_size_on_an_unfinished_game_is_refused_and_another_name_resumes_it(tmp_path):
    board = tmp_path / "b"
    b, w = mid_game(board)
    try:
        kill(b)
        # white finishes what it was doing (its move to the dead black), then only waits
        wait_for(lambda: state_of(board, "white") == "waiting", 30, "white waiting")
        time.sleep(1.0)
        rec = record(board)
        before = board_state(board)
        rb, ob = finish(player("black", board, *RANDOM, "--size", 6))
        assert rb == 2, ob
        assert f"An unfinished game is on this board: {rec.id}, 8x8" in ob and "next move" in ob, ob
        assert "without --size" in ob and "--new" in ob and "Traceback" not in ob
        assert board_state(board) == before         # nothing on the board changed
        assert record(board).status == "playing" and w.poll() is None
        b = player("black", board, *RANDOM, "--seed", 3, "--name", "Zed")
        rb, ob = finish(b)
        rw, ow = finish(w)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Resuming game {rec.id}" in ob and "8x8, white: random" in ob and "comes from the board's record" in ob
    assert "Your name in this game is now Zed (it was random)" in ob    # (--ai random's default name)
    assert "black is now called Zed (it was random)" in ow
    assert "Cannot play" not in ow and final_line(ob) == final_line(ow) is not None
    done = record(board)
    assert done.id == rec.id and done.status == "over" and done.size == 8 and done.black == "Zed"


def test_new_closes_the_unfinished_game_and_the_other_side_follows(tmp_path):
    board = tmp_path / "b"
    b, w = mid_game(board)
    try:
        kill(b)
        old = record(board)
        n = plies(board)
        b = player("black", board, *RANDOM, "--seed", 3, "--new", "--size", 6)
        rb, ob = finish(b)
        rw, ow = finish(w)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Game {old.id} (8x8, next move {n + 1}) is closed as abandoned; a new game starts." in ob
    assert f"black started a new game: game {old.id} (8x8, next move {n + 1}) is closed as abandoned." in ow
    closed = Records(board).load(old.id)
    assert closed.status == "abandoned" and closed.result == "abandoned by black"
    assert len(Game.from_transcript(closed.moves).moves) == n       # its plies are kept
    new = record(board)
    assert new.id != old.id and new.size == 6 and new.status == "over"
    assert final_line(ob) == final_line(ow) is not None


def test_white_new_asks_black_for_a_new_game(tmp_path):
    board = tmp_path / "b"
    b, w = mid_game(board)
    try:
        kill(w)
        old = record(board)
        w = player("white", board, *RANDOM, "--seed", 4, "--new")
        rw, ow = finish(w)
        rb, ob = finish(b)
    finally:
        for p in (b, w):
            if p.poll() is None:
                p.kill()
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Game {old.id} (8x8, next move" in ow and "is closed as abandoned; a new game starts." in ow
    assert "white asked for a new game (--new)." in ob
    assert Records(board).load(old.id).status == "abandoned"
    new = record(board)
    assert new.id != old.id and new.status == "over" and final_line(ob) == final_line(ow) is not None


def test_watch_and_replay_show_an_abandoned_game(tmp_path):
    import sys
    board = board_folder(tmp_path / "b")
    from peer.record import Record
    Records(board).save(Record(id="g-1", size=8, moves="f5d6", status="abandoned", result="abandoned by black"))
    r = subprocess.run([sys.executable, "-m", "peer", "replay", str(Records(board).path("g-1")), "--no-color",
                        "--lang", "en"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "abandoned (by black)" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-m", "peer", "replay", str(Records(board).path("g-1")), "--ggf"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("(;GM[Othello]"), r.stdout


# -- item 3: a refused game is recorded as refused, never resumed ------------------------------------

def test_a_game_refused_over_its_size_is_recorded_refused_and_not_resumed(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, *RANDOM, "--size", 6)
    w = player("white", board, *RANDOM, "--size", 8)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 3, (ob, ow)
    refused = record(board)
    assert refused.status == "refused" and "6x6" in refused.result, refused
    b, w = player("black", board, *RANDOM), player("white", board, *RANDOM)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0, (ob[-600:], ow[-600:])
    assert "Resuming" not in ob + ow
    assert record(board).id != refused.id and record(board).status == "over"
    assert Records(board).load(refused.id).status == "refused"


def test_which_refusals_close_a_game(tmp_path):
    """D1: a refused game is closed as refused, but one with plies refused for a reason about the
    programs (the secret, the version), or refused by the other side, stays resumable."""
    from engine import BLACK
    from peerfakes import session
    cases = [("f5", "other_secret", "playing"), ("f5", "bad_version", "playing"), ("f5", None, "playing"),
             ("f5", "records_differ", "refused"), ("f5", "size_wanted", "refused"),
             ("", "other_secret", "refused"), ("", None, "refused"), ("", "size_proposed", "refused")]
    for i, (moves, key, status) in enumerate(cases):
        s, b, out = session(tmp_path / f"b{i}", BLACK)
        s.keeper.start_game(f"g-{i}", Shape.square(8), moves)
        s.keeper.close_refused(key, "why")
        rec = Records(tmp_path / f"b{i}").load(f"g-{i}")
        assert rec.status == status, (moves, key, rec.status)
        assert rec.result == ("refused: why" if status == "refused" else "")


# -- item 7: one live run per colour ------------------------------------------------------------------

def test_one_live_run_per_colour_and_take_over(tmp_path):
    board = tmp_path / "b"
    b, w = mid_game(board)
    b2 = None
    try:
        wait_for(lambda: state_of(board, "white") == "waiting", 30, "white waiting")
        member = (board / "box" / "black" / "member").read_bytes()
        rs, os_ = finish(player("black", board, *RANDOM))
        assert rs == 2, os_
        assert f"black is already playing on this board: pid {b.pid} on " in os_ and "--take-over" in os_, os_
        assert (board / "box" / "black" / "member").read_bytes() == member      # nothing changed
        b2 = player("black", board, *RANDOM, "--seed", 5, "--take-over")
        rb, ob = finish(b, timeout=60)
        assert rb == 6, ob[-800:]
        assert f"Another run of black has joined this board and taken over (pid {b2.pid} on " in ob, ob[-800:]
        assert ob.count("has joined this board") == 1 and "Traceback" not in ob       # said once, not nested
        rb2, ob2 = finish(b2)
        rw, ow = finish(w)
    finally:
        for p in (b, w, b2):
            if p is not None and p.poll() is None:
                p.kill()
    assert rb2 == rw == 0, (ob2[-800:], ow[-800:])
    assert "Resuming game" in ob2 and final_line(ob2) == final_line(ow) is not None
    assert record(board).status == "over"
