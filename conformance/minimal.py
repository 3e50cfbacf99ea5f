"""Scenarios of the minimal profile (PROTOCOL.md, "Profiles"): what a peer with only a ``play``
command must do to play our players safely, in the order docs/FIRST-PEER.md builds it: the folder
and its member record, the lock, Quiet, a move each way, whole games.  (The classic scenarios of
``games`` belong to this profile too.)"""
import contextvars
import os
import threading
import time
from pathlib import Path
from typing import Callable

from comm import Board, fsops
from engine import PASS, Game, Position, parse_square, square_name
from peer import protocol
from peer.record import Records

from .common import check, Fail, other_view, run_of
from .decoder import _check_r1, _kit_frame, _place, KitBoard, msg_name
from .hostile import _snapshot
from .play import _ours, _send_until, _theirs
from .process import _exit_code, _Player, _reap


def _wait_for(cond: Callable[[], object], proc: _Player, timeout: float, what: str) -> float:
    """Poll ``cond()`` until true; the seconds it took.  Fails when ``proc`` exits or time runs out."""
    t = time.monotonic()
    while not cond():
        check(proc.poll() is None, f"the implementation exited {proc.returncode} before {what}: "
                                   f"{proc.output()[-300:]!r}")
        check(time.monotonic() - t < timeout, f"{what} did not happen within {timeout:.0f} s")
        time.sleep(0.1)
    return time.monotonic() - t


def _member(box: Path) -> dict[str, str]:
    """The key: value lines of a member record (R1's reading, first value of a key)."""
    out: dict[str, str] = {}
    for line in _check_r1(box / "member", f"{box.name}'s member record").split("\n")[1:]:
        k, s, v = line.partition(": ")
        if s and k not in out:
            out[k] = v.strip(" \t")
    return out


def s_minimal_board(cmd: str, d: Path, play_cmd: str) -> None:
    """F2 R1 I1 I1a: a wrong marker is refused; an empty folder is made a board; the member record is a record whose machine is empty (or there is an alive record)."""
    wrong = d / "wrong"
    wrong.mkdir()
    (wrong / "cardstand.board").write_bytes(b"cardstand-board 2\n")
    before = _snapshot(wrong)
    theirs = _theirs(play_cmd, wrong, "black")
    code = _exit_code(theirs, timeout=30)
    check(code != 0, "a folder whose marker says version 2 was played on (F2: refuse it)")
    check(_snapshot(wrong) == before, "a folder whose marker says version 2 was changed (F2: refuse it, changing "
                                      "nothing)")
    fresh = d / "fresh"
    fresh.mkdir()
    theirs = _theirs(play_cmd, fresh, "black")
    try:
        _wait_for(lambda: (fresh / "box" / "black" / "member").exists(), theirs, 30, "joining as black")
        marker = (fresh / "cardstand.board").read_bytes()
        check(marker == b"cardstand-board 1\n", f"the marker it wrote is {marker[:40]!r} (F2)")
        time.sleep(1.5)     # I6: an alive record comes right after the member record
        member = _member(fresh / "box" / "black")
        check(member.get("run"), "its member record has no run (I1)")
        alive = fresh / "box" / "black" / "alive"
        named = alive.exists() and f"run: {member['run']}" in alive.read_text("utf-8", "replace")
        check(not member.get("machine") or named,
              f"its member record says machine {member.get('machine')!r} and it keeps no alive record: our black.py "
              "would judge it ended and wait for ever (I1a: machine empty without an alive record)")
    finally:
        _reap(theirs, timeout=1)


def s_minimal_quiet(cmd: str, d: Path, play_cmd: str) -> None:
    """I2 M4 M5: a move sent to an earlier run of white is dropped at start (Quiet), never taken for black's."""
    kit = KitBoard(other_view(d), "black").join()       # a classic black: Init, Quiet, Talk
    box = d / "box" / "white"
    box.mkdir(parents=True)
    old = _place(kit, box, lambda k: _kit_frame("black", run_of(kit), "white", "0123456789abcdef", k, "f5"))
    theirs = _theirs(play_cmd, d, "white")
    try:
        _wait_for(lambda: kit.member_run("white") is not None, theirs, 30, "joining as white")
        time.sleep(1.5)
        got = kit.receive()
        check(got is None, f"after a move 'f5' sent to an earlier run of white, it sent {got and got.body[:40]!r}: "
                           "it took that move as black's (I2: Quiet drops what was sent to earlier runs)")
        check(not (box / msg_name(old)).exists(), "the message to an earlier run is still in its mailbox (I2)")
    finally:
        _reap(theirs, timeout=1)
        kit.close()


def s_minimal_stale(cmd: str, d: Path, play_cmd: str) -> None:
    """L1 L3 L4 L5 L6: a silent lock of another computer is broken after L (10 s), not sooner; the lock is released after joining."""
    (d / "cardstand.board").write_bytes(b"cardstand-board 1\n")     # a board (F2c: a program people start
    lock = d / "lock"                                               # refuses a folder of other things)
    lock.mkdir()
    (lock / "owner").write_bytes(fsops.record(
        "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\nmachine: elsewhere/boot\npid: 1"))
    theirs = _theirs(play_cmd, d, "white")      # white: after joining it waits, taking no lock
    try:
        took = _wait_for(lambda: (d / "box" / "white" / "member").exists(), theirs, 40,
                         "joining as white past a silent lock (L4 L5: broken after L, 10 s)")
        check(took >= 8.5, f"it broke a lock that had been silent for only {took:.1f} s (L4: L is 10 s; a shorter "
                           "L breaks the locks of our players, which beat every L/5)")
        _wait_for(lambda: not (d / "lock").exists(), theirs, 3, "releasing the lock after joining (L6)")
    finally:
        _reap(theirs, timeout=1)


def _bare_move(kit: Board, game: Game, timeout: float, what: str) -> int:
    """The next message to the kit, which must be a legal bare square (P3) in ``game``; its square."""
    m = kit.wait(timeout=timeout)
    if m is None:
        raise Fail(f"no message: {what}")
    msg = protocol.parse(m.body)
    ok = msg.kind == "move" and "n" not in msg.fields and msg.get("square") not in (None, "pass")
    try:
        sq = parse_square(msg.get("square") or "", 8) if ok else None
    except ValueError:
        sq = None       # a square off the board: i1 on 8x8
    if sq is None or not game.position.is_legal(sq):
        raise Fail(f"{what}: {m.body[:40]!r} is not a legal bare square (P3, G2)")
    return sq


# Bodies from white that are no move of a classic white: each is shown (made visible) and ignored (P5)
JUNK = ["pass", "i9", "e3x", "# hello v=1", "\x1b[2J\x07\u202e not a move", "y" * 60_000]


def _mailboxes(d: Path) -> dict[str, bytes]:
    """Every file in the board's mailboxes and what it holds: what only a holder of the lock changes (an
    ``alive`` record is rewritten without it, I6)."""
    return {str(f.relative_to(d)): f.read_bytes() for f in sorted((d / "box").glob("*/*"))
            if f.is_file() and f.name != "alive"}


def s_minimal_lock(cmd: str, d: Path, play_cmd: str) -> None:
    """L1 L2 L3 M1 M1a M2 M3 M4 P3 P5: a move each way, junk and damaged files first; while the kit holds the lock, beating, for 12 s the implementation waits, changing no mailbox, and then moves; its messages are judged by the kit's own decoder."""
    kit = KitBoard(other_view(d), "white").join()           # a classic white
    theirs = _theirs(play_cmd, d, "black")
    try:
        _wait_for(lambda: kit.member_run("black") is not None, theirs, 30, "joining as black")
        game = Game(8)
        game.play(_bare_move(kit, game, 30, "black's first move, within 30 s of joining"))
        box = d / "box" / "black"
        to = kit.member_run("black") or ""
        placed = [_place(kit, box, lambda k: _kit_frame("white", run_of(kit), "black", to, k, junk)) for junk in JUNK]
        placed += [_place(kit, box, lambda k: damaged)
                   for damaged in (b"garbage\x00\xff" * 8, b"cardstand-msg 1\n" + b"x" * 100_000)]
        _wait_for(lambda: not any((box / msg_name(k)).exists() for k in placed), theirs, 30,
                  "taking junk and damaged files out of its mailbox (P5: ignored, never a stop; M4: set aside)")
        reply = game.position.legal_moves()[0]
        game.play(reply)
        with kit.lease.hold(10):            # our move delivered, then the lock held, beating, for 12 s
            k = max(fsops.read_int(box / "head"), fsops.read_int(box / "tail")) + 1
            data = _kit_frame("white", run_of(kit), "black", kit.member_run("black") or "", k, square_name(reply, 8))
            os.replace(fsops.write_scratch(kit.tmp, data), box / msg_name(k))
            fsops.replace_with(kit.tmp, box / "head", fsops.record(str(k)), durable=False)
            owner = (d / "lock" / "owner").read_bytes()
            boxes = _mailboxes(d)
            until = time.monotonic() + 12
            while time.monotonic() < until:
                check((d / "lock" / "owner").read_bytes() == owner,
                      "it broke a lock that was held and beating (L3 L4: only a silent lock is stale)")
                check(_mailboxes(d) == boxes, "it changed a mailbox (took our move or sent its own) while the kit "
                                              "held the lock (L1 L3: every change to a mailbox is made holding it)")
                check(theirs.poll() is None, f"the implementation exited {theirs.returncode} while it waited (P5: "
                                             f"junk, a damaged file or a held lock must not stop it): "
                                             f"{theirs.output()[-200:]!r}")
                time.sleep(0.5)
        _bare_move(kit, game, 20, "black's second move, within 20 s after the lock was released (L3: it waits "
                                  "and takes it)")
    finally:
        _reap(theirs, timeout=1)
        kit.close()


def s_minimal_turns(cmd: str, d: Path, play_cmd: str) -> None:
    """G2 G2a G3a H6a P3 P5: moves waiting when the implementation's turn begins (a second white move delivered with white's, a numbered and a timed one) are out of turn: read before it moves and ignored, never applied after its move; it plays on to the end with legal bare squares."""
    kit = KitBoard(other_view(d), "white").join()           # a classic white that misbehaves
    theirs = _theirs(play_cmd, d, "black")
    try:
        _wait_for(lambda: kit.member_run("black") is not None, theirs, 30, "joining as black")
        game = Game(8)
        game.play(_bare_move(kit, game, 30, "black's first move, within 30 s of joining"))
        for round_ in range(3):
            reply = game.position.legal_moves()[0]
            game.play(reply)
            pos = game.position
            # what white could play if it were its turn again: a move a careless peer would apply
            as_white = Position(pos.size, pos.opponent, pos.player, 1 - pos.turn, pos.holes)
            extra = [m for m in as_white.legal_moves() if not pos.is_legal(m)] or as_white.legal_moves()
            check(bool(extra), "the kit's own bookkeeping: no out-of-turn move to send")
            second = square_name(extra[0], 8)
            bodies = [square_name(reply, 8), second, f"{second} #{len(game.moves) + 1}", f"{second} t=5"]
            _deliver_at_once(kit, d / "box" / "black", bodies)     # the last three wait on black's own turn
            sq = _bare_move(kit, game, 30, f"black's move after {bodies!r} (the moves after the first arrived "
                                           "on black's turn: G2, ignored)")
            game.play(sq)
        _play_on(kit, game, theirs)
    finally:
        _reap(theirs, timeout=1)
        kit.close()


def _deliver_at_once(kit: Board, box: Path, bodies: list[str]) -> None:
    """Deliver ``bodies`` from white to black in one hold of the lock (M2 M3): black finds them all
    waiting when it reads the first."""
    to = kit.member_run("black") or ""
    with kit.lease.hold(10):
        k = max(fsops.read_int(box / "head"), fsops.read_int(box / "tail"))
        for body in bodies:
            k += 1
            data = _kit_frame("white", run_of(kit), "black", to, k, body)
            os.replace(fsops.write_scratch(kit.tmp, data), box / msg_name(k))
        fsops.replace_with(kit.tmp, box / "head", fsops.record(str(k)), durable=False)


def _play_on(kit: Board, game: Game, proc: _Player, timeout: float = 150) -> None:
    """The kit plays white's moves of ``game`` on to its end, each of black's a legal bare square."""
    deadline = time.monotonic() + timeout
    while not game.position.is_game_over():
        check(time.monotonic() < deadline, f"the game did not finish within {timeout} s")
        pos = game.position
        if pos.must_pass():
            game.play(PASS)             # G3: passes are not sent
            continue
        if pos.turn == 1:
            move = pos.legal_moves()[0]
            game.play(move)
            _send_until(kit, "black", square_name(move, 8), proc)
            continue
        game.play(_bare_move(kit, game, 30, f"black's move {len(game.moves) + 1}"))
    code = _exit_code(proc, timeout=30)
    check(code == 0, f"the implementation exited {code} after the game")


def _against_ours(play_cmd: str, d: Path, colour: str) -> None:
    other = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    ours = _ours(other, other_view(d), "--patience", "15")
    try:
        deadline = time.monotonic() + 240
        while ours.poll() is None or theirs.poll() is None:
            if theirs.poll() not in (None, 0):
                raise Fail(f"their {colour} exited {theirs.returncode}: {theirs.output()[-300:]!r}")
            check(time.monotonic() < deadline, f"the game against our {other}.py did not finish within 240 s")
            time.sleep(0.2)
        check(ours.returncode == 0, f"our {other}.py exited {ours.returncode}: {ours.output()[-300:]!r}")
        check(theirs.returncode == 0, f"their {colour} exited {theirs.returncode}")
        rec = Records(d).current()
        check(rec is not None and rec.status == "over", f"our {other}.py's record of the game is not over")
        if rec is not None:
            check(Game.from_transcript(rec.moves).position.is_game_over(), "the recorded game is not over")
    finally:
        _reap(theirs, timeout=1)
        _reap(ours, timeout=1)


def s_ours(cmd: str, d: Path, play_cmd: str) -> None:
    """P1 P3 H6 G1 G2 G3 G4: a whole game against our white.py and one against our black.py (which waits 10 s for a greeting, then plays classic)."""
    failed: list[BaseException] = []

    def game(colour: str) -> None:
        try:
            _against_ours(play_cmd, d / colour, colour)
        except BaseException as e:      # noqa: BLE001 - raised again below, in this thread
            failed.append(e)

    for colour in ("black", "white"):
        (d / colour).mkdir()
    # each in a copy of this scenario's context: its programs and its view of the board (process.PROGRAMS)
    side_by_side = [threading.Thread(target=contextvars.copy_context().run, args=(game, c), name=f"kit-{c}")
                    for c in ("black", "white")]
    for t in side_by_side:          # two boards, two games at once: a black.py waits 10 s for a greeting
        t.start()
    for t in side_by_side:
        t.join()
    if failed:
        raise failed[0]

