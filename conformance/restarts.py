"""Game scenarios: ends, restarts and resumes, and what goes wrong around a game (the folder gone,
a name taken over, a full disk, an opponent gone)."""
import errno
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Sequence

from comm import Board
from engine import Game, PASS, parse_square
from peer import protocol
from peer.record import Record, Records

from .common import check, Fail, other_view, second_view, Skip
from .decoder import _run_of
from .play import (
    _check_own_record, _check_result, _expect, _expect_from, _kit_board, _kit_handshake, _kit_hello,
    _kit_play, _kit_resigns, _quiet_for, _result_of, _send_until, _theirs)
from .process import _exit_code, _kill, _reap, _traceback


def _check_finished(d: Path, gid: str, colour: str, game: Game, what: str) -> None:
    """D1 D3: the implementation's record of ``gid`` is over with the whole game, its end acknowledged."""
    rec = Records(d).load(gid)
    if rec is None:
        raise Fail(f"{what}: no record of game {gid} (D1)")
    check(rec.status == "over", f"{what}: its record says status {rec.status!r}, not 'over' (D1)")
    check(Game.from_transcript(rec.moves).moves == game.moves, f"{what}: its record holds other moves (D1)")
    check(Records(d).acknowledged(gid, colour),
          f"{what}: no records/{gid}.ack-{colour} after the kit's result (D3)")


def s_end_reoffer(cmd: str, d: Path, play_cmd: str) -> None:
    """G4 G6 H5: the last ply never sent (its mover died) reaches the implementation when the game is offered again."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        held = _kit_play(kit, "black", theirs, game, hold_last=True)
        if not held:        # the implementation made the last ply: its result, but the kit says nothing
            _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.close()
        # the kit "restarts": a new run of black offers the whole game, its last ply included
        kit = _kit_board(other_view(d), "black")
        hello = _kit_hello("black", gid, game.transcript(passes=True))
        _send_until(kit, "white", hello, theirs)
        w = _expect_from(kit, "welcome", theirs, what=" to the game offered again")
        check(w.get("game") == gid, f"welcome for game {w.get('game')!r}, not {gid} (H5)")
        _check_result(_expect_from(kit, "result", theirs, what=" after the game was offered again (G6)"),
                      game, "after the game was offered again")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
        _check_finished(d, gid, "white", game, "after the end")
    finally:
        _reap(theirs)


def s_end_restart(cmd: str, d: Path, play_cmd: str) -> None:
    """G6 H5 D3: an end the opponent never acknowledged is offered again by the implementation's next start."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        theirs.kill()                   # the kit never acknowledged the end
        theirs.wait()
        check(not Records(d).acknowledged(gid, "white"), f"records/{gid}.ack-white without the kit's result (D3)")
        theirs = _theirs(play_cmd, d, "white")
        hello = _expect_from(kit, "hello", theirs, what=" from the restarted implementation")
        check(hello.get("game") == gid and hello.get("moves").lower() == game.transcript(passes=True).lower(),
              f"the restarted implementation offered game {hello.get('game')!r} with moves "
              f"{hello.get('moves')[:40]!r}..., not the ended game {gid} whose end the kit never acknowledged (G6)")
        kit.send("white", _kit_hello("black", gid, game.transcript(passes=True)))
        _expect_from(kit, "welcome", theirs, what=" to the kit's hello")
        _check_result(_expect_from(kit, "result", theirs, what=" after the restart (G6)"), game, "after the restart")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
        _check_finished(d, gid, "white", game, "after the restart")
        theirs = _theirs(play_cmd, d, "white")      # finished now: its next start offers no old game
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started once more")
        check(not hello.get("game"), f"after the acknowledged end, the next start offered game {hello.get('game')!r} again")
    finally:
        _reap(theirs, timeout=1)


def _board_state(d: Path) -> dict[str, str]:
    """Every file of a board but heartbeats (``alive``) and scratch: what a refused start must leave alone."""
    out = {}
    for dirpath, _, files in os.walk(d):
        rel = Path(dirpath).relative_to(d)
        if rel.parts and rel.parts[0] in ("tmp", "trash", "lock"):
            continue
        for f in files:
            if f != "alive":
                p = Path(dirpath) / f
                out[str(p.relative_to(d))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _status(d: Path, gid: str, what: str) -> str:
    """The status in the implementation's record of ``gid`` (D1)."""
    rec = Records(d).load(gid)
    if rec is None:
        raise Fail(f"{what}: no record of game {gid} (D1)")
    return rec.status


def _mid_game(play_cmd: str, d: Path, colour: str, plies: int, extra: Sequence[str] = ()) -> tuple[Board, Game, str]:
    """The implementation plays ``colour`` against the kit until ``plies`` plies; then it is killed.
    Returns (kit, game, gid)."""
    kit_colour = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour, extra=extra)
    try:
        kit = _kit_board(other_view(d), kit_colour)
        game = Game(8)
        gid, _ = _kit_handshake(kit, kit_colour, theirs)
        _kit_play(kit, kit_colour, theirs, game, until=plies)
        check(_status(d, gid, "in the middle of the game") == "playing", "the unfinished game's record is not 'playing' (D1)")
    finally:
        _kill(theirs)
    return kit, game, gid


def s_restart_size(cmd: str, d: Path, play_cmd: str) -> None:
    """H5 H5a D1: another --size on an unfinished game is refused before anything changes; another --name resumes it, ignoring a welcome for another game."""
    kit, game, gid = _mid_game(play_cmd, d, "black", 3)        # ply 3 was the implementation's: saved, then sent
    before = _board_state(d)
    theirs = _theirs(play_cmd, d, "black", extra=["--size", "6"])
    try:
        code = _exit_code(theirs)
        out = theirs.output()
        check(code == 2, f"with an unfinished 8x8 game on the board, a start with --size 6 exited {code}, not 2 (H5)")
        check(gid in out, f"the refusal does not name the unfinished game {gid}: {out.strip()[-300:]!r}")
        check(_board_state(d) == before, "the refused start changed the board (H5: nothing changes)")
        m = kit.receive()
        check(m is None, f"the refused start sent {m and m.body[:80]!r}")
        theirs = _theirs(play_cmd, d, "black", extra=["--name", "Zed"])
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started with another --name")
        check(hello.get("game") == gid and hello.get("moves").lower() == game.transcript(passes=True),
              f"with another --name the implementation offered {hello.get('game')!r} {hello.get('moves')!r}, "
              f"not the unfinished game {gid} (H5)")
        check(hello.get("name") == "Zed", f"its hello says name={hello.get('name')!r}, not the new name Zed")
        older = _prefix(game, len(game.moves))                # H5a: a welcome for another game is ignored
        _kit_ply(older, 1)
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game="conf-older",
                                           moves=older.transcript(passes=True)))
        _quiet_for(kit, 1.0, "after a welcome for another game, with one ply more (H5a: ignored)")
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                           moves=game.transcript(passes=True)))
        _kit_resigns(kit, "black", game, gid)
        code = _exit_code(theirs)
        check(code == 0, f"the resumed game ended by the kit's resignation, but the implementation exited {code}")
        rec = Records(d).load(gid)
        if rec is None:
            raise Fail(f"no record of game {gid} (D1)")
        check(rec.status == "resigned" and rec.black == "Zed", f"its record says {rec.status!r}, black {rec.black!r}")
    finally:
        _reap(theirs, timeout=1)


def s_restart_new(cmd: str, d: Path, play_cmd: str) -> None:
    """H2 H5 D1: --new closes the unfinished game as abandoned and starts another (white asks with new=1); so does a greeting for a new game; a game of an unknown status is not resumed."""
    for colour in ("black", "white"):
        sub = d / f"new-{colour}"
        sub.mkdir()
        kit_colour = "white" if colour == "black" else "black"
        kit, game, gid = _mid_game(play_cmd, sub, colour, 3 if colour == "black" else 2)
        theirs = _theirs(play_cmd, sub, colour, extra=["--new"])
        try:
            hello = _expect_from(kit, "hello", theirs, what=f" from {colour} started with --new")
            if colour == "black":
                new = hello.get("game")
                check(new and new != gid and not hello.get("moves"),
                      f"black with --new offered game {new!r} with moves {hello.get('moves')!r}, not a new game (H5)")
                kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=new, moves=""))
            else:
                check(hello.get("new") == "1" and not hello.get("game"),
                      f"white with --new greeted with {hello.text[:120]!r}: no new=1, or a game (H2)")
                new = f"conf-{uuid.uuid4().hex[:8]}"
                kit.send("white", _kit_hello("black", new))
                _expect_from(kit, "welcome", theirs, what=" to the new game")
            check(_status(sub, gid, "after --new") == "abandoned",
                  f"after --new the unfinished game's record says {_status(sub, gid, '')!r}, not 'abandoned' (D1)")
            _kit_resigns(kit, colour, Game(8), new)
            code = _exit_code(theirs)
            check(code == 0, f"{colour} with --new: the new game ended by the kit's resignation, but it exited {code}")
        finally:
            _reap(theirs, timeout=1)
    # a greeting for a new game during a game closes the old one too (H5)
    sub = d / "switch"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, "white")
    try:
        kit = _kit_board(other_view(sub), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=2)
        kit.close()
        kit = _kit_board(other_view(sub), "black")          # black restarted with --new
        new = f"conf-{uuid.uuid4().hex[:8]}"
        _send_until(kit, "white", _kit_hello("black", new), theirs)
        w = _expect_from(kit, "welcome", theirs, what=" to a new game during a game")
        check(w.get("game") == new and not w.get("moves"), f"the welcome to a new game was {w.text[:120]!r} (H5)")
        check(_status(sub, gid, "after a new game") == "abandoned",
              f"the game left for a new one says {_status(sub, gid, '')!r}, not 'abandoned' (D1)")
        _kit_resigns(kit, "white", Game(8), new)
        check(_exit_code(theirs) == 0, "the new game ended by the kit's resignation, but the implementation did not exit 0")
    finally:
        _reap(theirs, timeout=1)
    # D1: a status this document does not name reads as closed: that game is not offered again
    sub = d / "unknown-status"
    sub.mkdir()
    kit = _kit_board(other_view(sub), "white")
    Records(other_view(sub)).save(Record(id="g-post", size=8, black="impl", white="kit", mode="full", moves="f5",
                                         status="postponed", result=""))
    theirs = _theirs(play_cmd, sub, "black")
    try:
        hello = _expect_from(kit, "hello", theirs, what=" with a game of status 'postponed' on the board")
        check(hello.get("game") != "g-post" and not hello.get("moves"),
              f"with the current game's status 'postponed', black offered {hello.text[:120]!r} (D1: an unknown "
              "status reads as closed: a new game)")
    finally:
        _reap(theirs, timeout=0.5)


def s_refused_record(cmd: str, d: Path, play_cmd: str) -> None:
    """H4 D1: a game refused over its size is recorded as refused and never offered again."""
    theirs = _theirs(play_cmd, d, "black", extra=["--size", "6"])
    try:
        kit = _kit_board(other_view(d), "white")
        _send_until(kit, "black", protocol.control("hello", v=1, role="white", name="kit", size=8), theirs)
        _expect(kit, "refuse")
        code = _exit_code(theirs)
        check(code != 0, "a refused game must not exit 0")
        rec = Records(d).current()
        if rec is None or rec.size != 6:
            raise Fail("no record of the refused 6x6 game (D1)")
        check(rec.status == "refused", f"the game refused over its size is recorded {rec.status!r}, not 'refused' (D1)")
        theirs = _theirs(play_cmd, d, "black")
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started again")
        check(hello.get("game") != rec.id, f"the refused game {rec.id} was offered again (D1: never resumed)")
    finally:
        _reap(theirs, timeout=1)


def _remove_folder(folder: Path) -> None:
    """Delete ``folder`` although the implementation may be writing in it meanwhile."""
    deadline = time.monotonic() + 30
    while folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
        check(time.monotonic() < deadline, f"{folder} could not be deleted")


def s_board_gone(cmd: str, d: Path, play_cmd: str) -> None:
    """T1 G7: the board moved away and back mid-game: the game goes on; deleted: the implementation leaves within its patience, never making the folder again."""
    board = d / "board"
    theirs = _theirs(play_cmd, board, "white", extra=["--patience", "60"])
    try:
        kit = _kit_board(other_view(board), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=5)      # ply 5 sent: the implementation's turn
        aside = d / "aside"
        try:
            board.rename(aside)
        except OSError as e:             # SMB refuses (EACCES, EBUSY) to rename a folder a client holds open
            if not isinstance(e, PermissionError) and e.errno != errno.EBUSY:
                raise
            raise Skip(f"this share will not move a board folder in use: {e.strerror}") from None
        time.sleep(3)
        check(not board.exists(), "the board folder was made again while it was away (T1)")
        check(theirs.poll() is None, f"the implementation exited {theirs.returncode} while the board was away "
                                     "for 3 s (its patience: 60 s)")
        aside.rename(board)
        _kit_play(kit, "black", theirs, game)
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs, timeout=60)
        check(code == 0, f"after the board came back and the game ended, the implementation exited {code}")
        check(_status(board, gid, "after the board came back") == "over", "its record of the game is not over (D1)")
    finally:
        _reap(theirs, timeout=1)
    board = d / "deleted"
    theirs = _theirs(play_cmd, board, "white", extra=["--patience", "3"])
    try:
        kit = _kit_board(other_view(board), "black")
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, Game(8), until=4)
        _remove_folder(board)
        code = _exit_code(theirs, timeout=60)
        out = theirs.output()
        check(code == 5, f"the board was deleted mid-game and stayed away; the implementation exited {code}, "
                         f"not 5 (G7): {out.strip()[-300:]!r}")
        check(not _traceback(out), f"the implementation showed a traceback when the board went away (G7): "
                                   f"{out.strip()[-300:]!r}")
        check(not board.exists(), "the deleted board folder was made again (T1)")
    finally:
        _reap(theirs, timeout=1)


def s_take_over(cmd: str, d: Path, play_cmd: str) -> None:
    """I6 P1 G7: a second run of a colour in play is refused (exit 2, nothing changed); --take-over replaces it, and the replaced run sends nothing more."""
    first = _theirs(play_cmd, d, "black")
    second = third = None
    try:
        kit = _kit_board(other_view(d), "white")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "white", first)
        _kit_play(kit, "white", first, game, until=3)        # the implementation's ply 3 received: the kit's turn
        old_run = _run_of(d / "box" / "black")
        member = (d / "box" / "black" / "member").read_bytes()
        second = _theirs(play_cmd, d, "black")
        code = _exit_code(second, timeout=60)
        check(code == 2, f"a second black while the first plays exited {code}, not 2 (I6)")
        check((d / "box" / "black" / "member").read_bytes() == member, "the refused second black changed black's member record")
        m = kit.receive()
        check(m is None, f"the refused second black sent {m and m.body[:80]!r}")
        third = _theirs(play_cmd, d, "black", extra=["--take-over"])
        deadline = time.monotonic() + 30
        hello = None
        while hello is None:
            check(time.monotonic() < deadline, "no hello from the black started with --take-over within 30 s")
            m = kit.wait(timeout=0.5)
            if m is not None and protocol.parse(m.body).kind == "hello" and m.sender_run != old_run:
                hello = protocol.parse(m.body)
        check(hello.get("game") == gid, f"the black that took over offered {hello.get('game')!r}, not the game {gid} (H5)")
        code = _exit_code(first, timeout=30)
        out = first.output()
        check(code == 6, f"the replaced black exited {code}, not 6 (I6): {out.strip()[-300:]!r}")
        check(not _traceback(out), f"the replaced black showed a traceback: {out.strip()[-300:]!r}")
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                           moves=game.transcript(passes=True)))
        _kit_resigns(kit, "black", game, gid)
        check(_exit_code(third) == 0, "the black that took over did not exit 0 after the kit resigned")
        for m in iter(lambda: kit.receive(), None):
            check(m.sender_run != old_run, f"the replaced run still sent {m.body[:80]!r} (I6)")
    finally:
        for p in (first, second, third):
            if p is not None:
                _reap(p, timeout=1)


def _prefix(game: Game, n: int) -> Game:
    """The first ``n`` plies of ``game`` as a new ``Game``."""
    g = Game(8)
    for m in game.moves[:n]:
        g.play(m)
    return g


def _kit_ply(game: Game, me: int) -> None:
    """The kit's next ply in ``game`` (it must be the kit's turn), played on ``game`` and not sent."""
    pos = game.position
    check(pos.turn == me, "the kit's own bookkeeping: not its turn")
    game.play(PASS if pos.must_pass() else pos.legal_moves()[0])


def s_gone(cmd: str, d: Path, play_cmd: str) -> None:
    """P2 G5 G7: an opponent that beats is never judged gone however long it thinks; one that stops beating is, and the implementation leaves (exit 4) after its patience."""
    theirs = _theirs(play_cmd, d, "white", extra=["--patience", "1"])
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=2)       # the kit's turn
        kit.beat("thinking")
        time.sleep(7.5)             # beating, silent: longer than 6 s (P2) plus the patience (1 s)
        check(theirs.poll() is None, f"the implementation exited {theirs.returncode} while the kit thought for 7.5 s "
                                     "with its heartbeat going on (P2: only a still heartbeat means gone)")
        _kit_play(kit, "black", theirs, game, until=4)       # it still plays
        kit.stop_heartbeat()         # the kit's program hangs: its alive record stays, unchanged
        stopped = time.monotonic()
        try:
            code = theirs.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise Fail("the kit's heartbeat stopped, yet the implementation (--patience 1) was still there "
                       "after 15 s (P2: unchanged for 6 s is gone; G7: it leaves after its patience)") from None
        took = time.monotonic() - stopped
        check(took >= 4.5, f"the implementation left {took:.1f} s after the kit's last beat (P2: gone after 6 s)")
        check(code == 4, f"the opponent stayed away, the implementation exited {code}, not 4 (G7)")
        check(_status(d, _kit_record_id(d), "after it left") == "playing",
              "the game left because the opponent was gone is not 'playing' in its record (G5: unfinished)")
    finally:
        _reap(theirs, timeout=1)


def _kit_record_id(d: Path) -> str:
    """The game id in ``records/current``, as written (D1)."""
    cur = d / "records" / "current"
    check(cur.exists(), "no records/current (D1)")
    return cur.read_text("utf-8", "replace").strip()


def s_result(cmd: str, d: Path, play_cmd: str) -> None:
    """G4 G6 D3: a result before the end or for another game is ignored; one whose counts differ from its board still acknowledges the end, and its record keeps its own count."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=4)
        kit.send("white", protocol.control("result", black=2, white=2, game=gid))      # before the end: ignored
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        ack = d / "records" / f"{gid}.ack-white"
        for what, msg in (("a result before the end", None),
                          ("a result for another game", protocol.control("result", black=2, white=2, game="conf-other"))):
            if msg is not None:
                kit.send("white", msg)
            time.sleep(1.5)
            check(theirs.poll() is None, f"after {what} the implementation exited {theirs.returncode} "
                                         "as if the end were acknowledged (G6: ignored)")
            check(not ack.exists(), f"after {what}, records/{gid}.ack-white was written (G6: ignored)")
        b, w = game.position.discs()
        kit.send("white", protocol.control("result", black=b + 1, white=w - 1, game=gid))
        deadline = time.monotonic() + 10
        while not Records(d).acknowledged(gid, "white") and time.monotonic() < deadline:
            time.sleep(0.1)
        check(Records(d).acknowledged(gid, "white"),
              f"a result for the ended game (counts {b + 1}-{w - 1}, its board {b}-{w}) was not taken as the "
              f"acknowledgement: no records/{gid}.ack-white within 10 s (G6)")
        code = _exit_code(theirs)
        check(code == 0, f"after a result for the game whose counts differ it exited {code}, not 0")
        _check_own_record(d, gid, game, "white", "after the end", ended=True)
    finally:
        _reap(theirs, timeout=1)


def s_resume(cmd: str, d: Path, play_cmd: str) -> None:
    """H5 H8 D1: killed as white mid-game, the implementation offers the game again; when the kit restarts with a shorter or longer transcript, both go on from the longer."""
    kit, game, gid = _mid_game(play_cmd, d, "white", 4)     # its ply 4 sent: the kit's turn
    theirs = _theirs(play_cmd, d, "white")
    try:
        want = game.transcript(passes=True).lower()
        hello = _expect_from(kit, "hello", theirs, what=" from the restarted white")
        check(hello.get("role") == "white" and hello.get("game") == gid and hello.get("moves").lower() == want,
              f"the restarted white greeted with {hello.text[:160]!r}, not game {gid} with moves {want} (H2 H5)")
        kit.send("white", _kit_hello("black", gid, want))
        w = _expect_from(kit, "welcome", theirs, what=" to the kit's hello after its restart")
        check(w.get("game") == gid, f"welcome for game {w.get('game')!r}, not {gid} (H5)")
        _kit_play(kit, "black", theirs, game, until=8)       # its ply 8 received: the kit's turn
        for shorter in (True, False):
            # the kit restarts: a new run, which lost the last ply it received or never sent its own
            if shorter:
                offer = _prefix(game, len(game.moves) - 1)
            else:
                _kit_ply(game, 0)
                offer = game
            kit.close()
            kit = _kit_board(other_view(d), "black")
            kit.quiet()
            _send_until(kit, "white", _kit_hello("black", gid, offer.transcript(passes=True)), theirs)
            w = _expect_from(kit, "welcome", theirs, what=" to the restarted kit's hello")
            # its own plies (H3), or the longer transcript it now goes on from
            longer = game.transcript(passes=True).lower()
            mine = longer if shorter else _prefix(game, len(game.moves) - 1).transcript(passes=True).lower()
            got = (w.get("moves") or "").lower()
            check(w.get("game") == gid and longer.startswith(got) and len(got) >= len(mine),
                  f"the welcome to a restarted black offering {len(offer.moves)} plies was {w.text[:160]!r}, "
                  f"not game {gid} with its own moves {mine} (H3 H5)")
            if not shorter:
                n = len(game.moves) + 1
                reply = _expect_from(kit, "move", theirs, what=" after the kit offered one ply more")
                check(reply.get("n") == n, f"after the kit offered one ply more the reply was {reply.text!r}, "
                                           f"not move {n} (H5: both go on from the longer)")
                sq = PASS if reply.get("square") == "pass" else parse_square(reply.get("square"), 8)
                check(sq == PASS and game.position.must_pass() or sq != PASS and game.position.is_legal(sq),
                      f"after the kit offered one ply more the reply {reply.text!r} is illegal: "
                      "the extra ply was not applied (H5)")
                game.play(sq)
            else:
                _kit_play(kit, "black", theirs, game, until=len(game.moves) + 2)
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the resumed game ended, but the implementation exited {code}")
        _check_own_record(d, gid, game, "white", "after the resumed game", ended=True)
    finally:
        _reap(theirs, timeout=1)


class _Filler:
    """Keeps a small disk full: a file grown whenever space is freed, until ``end``."""

    def __init__(self, disk: Path) -> None:
        self.path = disk / "filler"
        self.stop = threading.Event()
        self.f = open(self.path, "ab", buffering=0)
        self._fill()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _fill(self) -> None:
        try:
            while True:
                self.f.write(b"x" * 4096)
        except OSError:
            pass

    def _loop(self) -> None:
        while not self.stop.wait(0.02):
            self._fill()

    def end(self) -> None:
        self.stop.set()
        self.thread.join()
        self.f.close()
        self.path.unlink()


def s_full_disk(cmd: str, d: Path, play_cmd: str) -> None:
    """T2 T3 G7: a full disk mid-game is waited out and the game goes on; one that stays full is left within the patience."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or second_view():
        raise Skip("a small disk (tmpfs) can only be mounted by root on Linux, on one view of the board")
    disk = d / "disk"
    disk.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True, text=True)
    if r.returncode:
        raise Skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        for patience, stays in (("60", False), ("3", True)):
            board = disk / f"board-{patience}"
            theirs = _theirs(play_cmd, board, "white", extra=["--patience", patience])
            filler = None
            try:
                kit = _kit_board(board, "black")
                game = Game(8)
                gid, _ = _kit_handshake(kit, "black", theirs)
                _kit_play(kit, "black", theirs, game, until=5)      # the implementation's turn
                filler = _Filler(disk)
                if stays:
                    code = _exit_code(theirs, timeout=90)
                    check(code not in (0, None), "the disk stayed full, yet the implementation exited 0")
                    continue
                time.sleep(8)
                check(theirs.poll() is None, f"the implementation exited {theirs.returncode} on a full disk (patience 60 s)")
                filler.end()
                filler = None
                _kit_play(kit, "black", theirs, game)
                kit.send("white", _result_of(game, gid))
                code = _exit_code(theirs, timeout=60)
                check(code == 0, f"after space was freed and the game ended, the implementation exited {code}")
            finally:
                if filler is not None:
                    filler.end()
                _reap(theirs, timeout=1)
                shutil.rmtree(board, ignore_errors=True)
    finally:
        subprocess.run(["umount", "-l", str(disk)])
