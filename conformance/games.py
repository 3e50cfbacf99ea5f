"""Game scenarios: whole games, greetings, control lines, passes, runs, secrets, classic programs."""
import re
import subprocess
import time
import uuid
from functools import partial
from pathlib import Path

from comm import Board, fsops
from engine import Game, PASS, Shape, parse_square, square_name
from peer import protocol
from peer.record import Record, Records

from .common import _secret, check, Fail, Skip, other_view, side_by_side
from .decoder import _check_r1, _kit_frame, _kit_record, _place, _run_of, KitBoard
from .play import (
    _both, _check_own_record, _check_result, _expect, _expect_from, _kit_board, _kit_game, _kit_handshake,
    _kit_hello, _kit_play, _kit_resigns, _our_play, _our_player_has_secret, _ours, _quiet_for, _result_of,
    _send_until, _theirs)
from .process import _exit_code, _Player, _reap


def _game(play_cmd: str, d: Path, colour: str) -> None:
    """A whole game: the implementation as ``colour`` against our random player."""
    other = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    ours = _ours(other, other_view(d), "--patience", "15")
    deadline = time.monotonic() + 300
    while ours.poll() is None and time.monotonic() < deadline:
        if theirs.poll() not in (None, 0):
            ours.kill()
            raise Fail(f"their {colour} exited {theirs.returncode}: {theirs.output()[-300:]}")
        time.sleep(0.2)
    if ours.poll() is None:
        theirs.kill()
        ours.kill()
        raise Fail("the game did not finish within 300 s")
    out_ours = ours.output()
    try:
        theirs.wait(120)
        out_theirs = theirs.output()
    except subprocess.TimeoutExpired:
        theirs.kill()
        theirs.wait()
        out_theirs = theirs.output()
        raise Fail(f"their side did not stop within 120 s after the game; ours said: "
                   f"{out_ours.strip()[-200:]!r}; theirs said: {out_theirs.strip()[-300:]!r}") from None
    check(ours.returncode == 0, f"our {other} exited {ours.returncode}: {out_ours[-300:]}")
    check(theirs.returncode == 0, f"their {colour} exited {theirs.returncode}: {out_theirs[-300:]}")
    rec = Records(d).current()
    if rec is None or rec.status != "over":
        raise Fail("the game record is not finished")
    check(rec.mode == "full", "the game fell back to classic mode: no handshake (H1-H3)")
    g = Game.from_transcript(rec.moves)
    check(g.position.is_game_over(), "the recorded game is not over")


def _recorded_game(play_cmd: str, d: Path, colour: str) -> None:
    """A whole game against the kit, which writes no record: what is in records/ is the
    implementation's own.  After each of its plies (saved before sent, G1) its record must hold
    it; at the end it must be over, and the kit's ``result`` acknowledged (D3)."""
    kit_colour = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    try:
        kit = _kit_board(other_view(d), kit_colour)
        game = Game(8)
        gid, _ = _kit_handshake(kit, kit_colour, theirs)
        _kit_play(kit, kit_colour, theirs, game,
                  on_theirs=lambda: _check_own_record(d, gid, game, colour, f"after its ply {len(game.moves)}",
                                                     ended=game.position.is_game_over()))
        res = _expect_from(kit, "result", theirs, what=" at the end")
        _check_result(res, game, "at the end")
        kit.send(colour, _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"their {colour} exited {code} after the acknowledged end")
        _check_own_record(d, gid, game, colour, "after the end", ended=True)
        check(Records(d).acknowledged(gid, colour), f"no records/{gid}.ack-{colour} after the kit's result (D3)")
        _check_r1(d / "records" / f"{gid}.ack-{colour}", f"records/{gid}.ack-{colour}")
    finally:
        _reap(theirs, timeout=1)


def s_game_black(cmd: str, d: Path, play_cmd: str) -> None:
    """P1-P5 H1-H3 G1-G4 D1-D3: a whole game as black against our white, and one against the kit checking its own record."""
    (d / "ours").mkdir()
    (d / "kit").mkdir()
    _game(play_cmd, d / "ours", "black")
    _recorded_game(play_cmd, d / "kit", "black")


def s_game_white(cmd: str, d: Path, play_cmd: str) -> None:
    """P1-P5 H1-H3 G1-G4 D1-D3: a whole game as white against our black, and one against the kit checking its own record."""
    (d / "ours").mkdir()
    (d / "kit").mkdir()
    _game(play_cmd, d / "ours", "white")
    _recorded_game(play_cmd, d / "kit", "white")


def s_shape(cmd: str, d: Path, play_cmd: str) -> None:
    """H2a H4 D1 D4 G1-G4: on black's v=2 hello for the Heart board (holes, shape= beside size=) white plays the whole game from that board's start, never on a hole, its record carrying the shape line; a version-1 implementation refuses it instead (refuse naming version 2, exit 3)."""
    heart = Shape.named("Heart")
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        gid = f"conf-{uuid.uuid4().hex[:8]}"
        hello = protocol.control("hello", v=2, role="black", name="kit", size=8, shape=heart.code(), game=gid,
                                 moves="")
        _send_until(kit, "white", hello, theirs)
        answer = _first_answer(kit, theirs, hello, gid)
        if answer.kind == "refuse":
            check("version 2" in answer.get("reason", ""), f"the shaped game was refused, but not by its version: "
                                                            f"{answer.get('reason')!r} (H2a, H4)")
            code = _exit_code(theirs)
            check(code == 3, f"the refused shaped game exited {code}, not 3 (G7)")
            raise Skip("a version-1 implementation: it refused the shaped game cleanly (H4)")
        game = Game(8, heart.start())

        def its_record(what: str, ended: bool = False) -> None:
            _check_own_record(d, gid, game, "white", what, ended=ended)
            f = _kit_record(d, gid) or {}
            check(f.get("shape") == heart.code(), f"{what}: its record's shape line is {f.get('shape')!r}, not the "
                                                   f"Heart's picture (H2a D1)")
        _kit_play(kit, "black", theirs, game,
                  on_theirs=lambda: its_record(f"after its ply {len(game.moves)}", game.position.is_game_over()))
        res = _expect_from(kit, "result", theirs, what=" at the end")
        _check_result(res, game, "at the end")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"white exited {code} after the acknowledged end of the shaped game")
        its_record("after the end", ended=True)
    finally:
        _reap(theirs, timeout=1)


def _first_answer(kit: Board, proc: _Player, hello: str, gid: str, within: float = 30) -> protocol.Msg:
    """White's ``welcome`` for ``gid`` or its ``refuse`` (the kit's ``hello`` sent again as H1 says)."""
    deadline = time.monotonic() + within
    next_hello = time.monotonic() + 2
    while time.monotonic() < deadline:
        m = kit.wait(timeout=0.2)
        if m is None:
            check(proc.poll() is None or proc.returncode == 3,
                  f"the implementation exited {proc.returncode} during the handshake")
            if time.monotonic() > next_hello:
                kit.send("white", hello)
                next_hello = time.monotonic() + 2
            continue
        msg = protocol.parse(m.body)
        if msg.kind == "hello":
            kit.send("white", hello)
        elif msg.kind == "refuse" or (msg.kind == "welcome" and msg.get("game") == gid):
            return msg
    raise Fail(f"neither a welcome nor a refuse within {within} s of the shaped game's hello (H2a, H4)")


def s_refused_move(cmd: str, d: Path, play_cmd: str) -> None:
    """G2 H5a H8 P5: an illegal move is refused with a reason and not applied; a move sent before the handshake is never applied; a repeated hello is welcomed again."""
    theirs = _theirs(play_cmd, d, "white")
    kit = _kit_board(other_view(d), "black")
    try:
        _send_until(kit, "white", "d3 #1", theirs)          # before the handshake: dropped (H8)
        hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-1")   # no moves (P5)
        kit.send("white", hello)
        w = _expect_from(kit, "welcome", theirs, what=" to a hello without moves (P5: like moves=, no plies)")
        check(w.get("game") == "conf-1", "welcome for another game (H3)")
        check(not w.get("moves"), f"the welcome to a new game carries moves {w.get('moves')!r}: 'd3 #1', sent "
                                  "before the handshake, was applied (H8)")
        kit.send("white", "a1 #1")
        deadline = time.monotonic() + 15                   # an answer, not a move: no thinking time
        while True:
            m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
            if m is None:
                raise Fail("no 'refused' message within 15 s")
            r = protocol.parse(m.body)
            check(r.kind != "move", f"it moved {m.body[:40]!r} before black's first move: 'd3 #1', sent before the "
                                    "handshake, was applied after it (H8: dropped, not kept for later)")
            if r.kind == "refused":
                break
        check(r.get("reason"), "refused without a reason (G2)")
        kit.send("white", "f5 #1")
        reply = _expect(kit, "move")
        g = Game.from_transcript("f5")
        check(reply.get("n") == 2 and g.position.is_legal(reply.get("square")),
              f"after f5 the reply was {reply.text!r}: the refused move changed its board")
        g.play(parse_square(reply.get("square"), 8))
        kit.send("white", _kit_hello("black", "conf-1", g.transcript(passes=True)))     # repeated (H5a)
        w = _expect_from(kit, "welcome", theirs, what=" to a repeated hello for the game it plays (H5a)", timeout=10)
        check(w.get("game") == "conf-1", f"the repeated hello was answered {w.text[:100]!r} (H5a)")
        kit.send("white", "#cardstand resign")
        kit.send("white", protocol.control("result", black=2, white=2))     # G4: the resigner's result
    finally:
        _reap(theirs)


# A game of 58 plies after which black must pass (ply 59), white has one move (ply 60), black
# must pass again (ply 61) and white has a move (ply 62, the last): found by a random search
PASS_GAME = ("e6d6c4f6d7c3d3e3c2b5c5d8f7b2c6c7b3e7b7c8e2a8b8f3b6d2a2f8g6f1a6f5g2a7e1h7g7g3g1a3g8a1h5h1g4"
             "a5f2h6h8h2e8d1a4b4b1h3g5c1")


def _pass_left_out() -> str:
    """PASS_GAME to ply 60 (white's only move) with black's pass, ply 59, left out: it does not replay (H2)."""
    g = Game.from_transcript(PASS_GAME)
    check(g.position.must_pass() and g.position.turn == 0, "the kit's own bookkeeping: PASS_GAME")
    g.play(PASS)
    only = g.position.legal_moves()
    check(len(only) == 1, "the kit's own bookkeeping: PASS_GAME")
    return PASS_GAME + square_name(only[0], 8)


def _expect_refuse(kit: Board, proc: _Player, what: str, timeout: float = 15) -> protocol.Msg:
    """The ``refuse`` that answers ``what``; fails at once on a welcome or a move instead."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=min(1.0, max(0.01, deadline - time.monotonic())))
        if m is None:
            if proc.poll() is not None and kit.receive() is None:
                raise Fail(f"{what}: the implementation exited {proc.returncode} without sending 'refuse'")
            continue
        msg = protocol.parse(m.body)
        if msg.kind == "refuse":
            return msg
        check(msg.kind not in ("welcome", "move", "refused"), f"{what} was answered {m.body[:100]!r}, not 'refuse' (H4)")
    raise Fail(f"{what}: no 'refuse' message within {timeout} s (H4)")


def s_version(cmd: str, d: Path, play_cmd: str) -> None:
    """H2 H4 G7: a greeting of another version, without v, with an empty v, or whose transcript leaves out a pass is refused (refuse, nothing more, exit 3)."""
    cases: list[tuple[str, dict[str, object], str | None]] = [("a hello with v=3", dict(v=3), "version"),
             ("a hello without v", {}, "version"),
             ("a hello with an empty v", dict(v=""), "version"),
             ("a hello whose transcript leaves out a pass", dict(v=1, moves=_pass_left_out()), None)]
    started = []
    try:
        for i, (what, fields, _) in enumerate(cases):          # all at once: they wait for the kit
            sub = d / f"case-{i}"
            sub.mkdir()
            started.append((_theirs(play_cmd, sub, "white"), sub))
        for (what, fields, word), (theirs, sub) in zip(cases, started):
            kit = _kit_board(other_view(sub), "black")
            fields = dict(dict(role="black", name="kit", size=8, game=f"v{uuid.uuid4().hex[:6]}", moves=""), **fields)
            _send_until(kit, "white", protocol.control("hello", **fields), theirs)
            r = _expect_refuse(kit, theirs, what)
            if word:
                check(word in r.get("reason", ""), f"{what}: refuse without the {word}: {r.get('reason')!r} (H4)")
            try:
                code = theirs.wait(timeout=20)
            except subprocess.TimeoutExpired:
                raise Fail(f"{what}: the implementation kept running after refusing (H4: it stops)") from None
            check(code == 3, f"{what}: the refused game exited {code}, not 3 (G7)")
            for m in iter(kit.receive, None):
                raise Fail(f"{what}: after its refuse it sent {m.body[:80]!r} (H4: nothing more)")
            kit.close()
    finally:
        for theirs, _ in started:
            _reap(theirs, timeout=1)


def s_control_lines(cmd: str, d: Path, play_cmd: str) -> None:
    """P4 P5 H4 D1: a greeting written as P4 allows (bytes encoded without need, lower-case hex, raw UTF-8, an = and a + inside a value, a lone %, an empty value, a key given twice, an unknown key, an unexpected role) is read as meant."""
    gid, name = "g-p4-test", "Kit 日本🀄=x+y%"
    raw = ("#cardstand hello v=1 size=6 role=observer name=Ki%74%20日本%f0%9f%80%84=x+y% size=%38 "
           "game=g-p4%2dtest moves= x-future=yes%20please")
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        got, welcome = _kit_handshake(kit, "black", theirs, gid=gid, hello=raw, within=10)
        check(got == gid, f"it welcomed game {got!r}, not {gid!r} (P4: %2d is '-')")
        deadline = time.monotonic() + 10
        while (rec := Records(d).load(gid)) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if rec is None:
            raise Fail(f"no record of game {gid} after the handshake (D1)")
        check(rec.black == name, f"its record names black {rec.black!r}, not {name!r} (P4: percent-decoded "
                                 "as UTF-8, raw UTF-8 kept, an '=' after the first is part of the value, '+' "
                                 "is a plus, a '%' without two hex digits stays)")
        check(rec.size == 8, f"its record says size {rec.size}, not 8 (P4: size=%38; P5: a key given twice "
                             "counts with its last value)")
        game = Game(8)
        _kit_resigns(kit, "white", game, gid)
        code = _exit_code(theirs)
        check(code == 0, f"after the kit resigned it exited {code}: {theirs.output().strip()[-300:]!r}")
    finally:
        _reap(theirs, timeout=1)


def _answer_move(kit: Board, proc: _Player, sent: str, game: Game) -> None:
    """The implementation's move answering the kit's ``sent``, checked legal and played on ``game``
    (10 s: white has one legal move, nothing to think about)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        m = kit.wait(timeout=0.5)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} after {sent!r}")
            continue
        msg = protocol.parse(m.body)
        check(msg.kind != "refused", f"{sent!r} was refused: {m.body[:120]!r} (P3: a pass is spelt pass, PASS or Pass)")
        if msg.kind == "move":
            n = len(game.moves) + 1
            check(msg.get("n") == n, f"after {sent!r} it sent {m.body[:80]!r}, not move {n}")
            sq = parse_square(msg.get("square"), 8) if msg.get("square") != "pass" else PASS
            check(sq != PASS and game.position.is_legal(sq), f"after {sent!r} its move {m.body[:80]!r} is illegal "
                                                            "(the pass was not applied)")
            game.play(sq)
            return
    raise Fail(f"no move within 10 s after {sent!r} (P3: a pass is spelt pass, PASS or Pass)")


def s_passes(cmd: str, d: Path, play_cmd: str) -> None:
    """G3 P3 P5: in the numbered form white waits for black's pass #n; pAss is junk; PASS and Pass are passes."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game.from_transcript(PASS_GAME)          # black must pass at ply 59, and again at 61
        gid, _ = _kit_handshake(kit, "black", theirs, game=game)
        _quiet_for(kit, 1.0, "black must pass (ply 59), and before its 'pass #59' arrived "
                             "(G3: the other side waits for it, it never applies it itself)")
        kit.send("white", "pAss #59")
        _quiet_for(kit, 1.0, "after 'pAss #59' (P5: junk, ignored, not answered)")
        for spelt in ("PASS", "Pass"):
            sent = f"{spelt} #{len(game.moves) + 1}"
            game.play(PASS)
            kit.send("white", sent)
            _answer_move(kit, theirs, sent, game)
        check(game.position.is_game_over(), "the kit's own bookkeeping: PASS_GAME does not end at ply 62")
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
    finally:
        _reap(theirs, timeout=1)


def _secret_with_our_player(play_cmd: str, d: Path, secret: str) -> None:
    """H7 against our Python player: the same secret plays; a secret against none: both exit 3."""
    side_by_side(*(partial(_secret_against_ours, play_cmd, d, colour, theirs, ours)
                   for colour, theirs, ours in (("white", secret, secret), ("black", secret, None),
                                                ("white", None, secret))))


def _secret_against_ours(play_cmd: str, d: Path, colour: str, theirs_secret: str | None,
                         ours_secret: str | None) -> None:
    other = "black" if colour == "white" else "white"
    sub = d / f"ours-{colour}-{'s' if theirs_secret else 'n'}{'s' if ours_secret else 'n'}"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, colour, secret=theirs_secret)
    ours = _our_play(other_view(sub), other, secret=ours_secret)
    code_t, out_t, code_o, out_o = _both(theirs, ours)
    want = 0 if theirs_secret == ours_secret else 3
    what = "the same secret" if want == 0 else ("a secret on their side only" if theirs_secret else
                                                "a secret on our side only")
    check(code_t == want, f"{what}: their {colour} exited {code_t}, not {want}: {out_t.strip()[-300:]!r}")
    check(code_o == want, f"{what}: our {other} exited {code_o}, not {want}: {out_o.strip()[-300:]!r}")
    if want == 0:
        rec = Records(sub).current()
        if rec is None or rec.status != "over":
            raise Fail(f"{what}: the game record is not finished")


def s_game_secret(cmd: str, d: Path, play_cmd: str) -> None:
    """A1 H7: with the same secret both sides play; a side with a secret and a side without refuse (exit 3)."""
    # The kit plays the other side itself through comm.Board(secret=...); then, when our Python
    # player knows --secret-file, against it as well (both sides must exit 3 when one has no secret).
    # Each case on a board of its own, all at once.
    secret = _secret()
    parts = [partial(_secret_game, play_cmd, d, secret, colour) for colour in ("white", "black")]
    parts += [partial(_secret_mixed, play_cmd, d, secret, colour, theirs_secret)
              for colour, theirs_secret in (("white", True), ("black", True), ("white", False), ("black", False))]
    if _our_player_has_secret():
        parts.append(partial(_secret_with_our_player, play_cmd, d, secret))
    side_by_side(*parts)


def _secret_game(play_cmd: str, d: Path, secret: str, colour: str) -> None:
    """The same secret: a whole game."""
    sub = d / f"same-{colour}"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, colour, secret=secret)
    try:
        kit = _kit_board(other_view(sub), "black" if colour == "white" else "white", secret=secret.encode("utf-8"))
        _kit_game(kit, "black" if colour == "white" else "white", theirs)
        code = _exit_code(theirs)
        out = theirs.output()
        check(code == 0, f"their {colour} with the secret exited {code}: {out[-300:]!r}")
        check(not kit.take_rejected(), "the kit refused messages signed by the implementation")
    finally:
        if theirs.poll() is None:
            theirs.kill()


def _secret_mixed(play_cmd: str, d: Path, secret: str, colour: str, theirs_secret: bool) -> None:
    """A secret on one side only: both refuse."""
    key = secret.encode("utf-8")
    sub = d / f"mixed-{colour}-{'theirs' if theirs_secret else 'kits'}"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, colour, secret=secret if theirs_secret else None)
    kit_colour = "black" if colour == "white" else "white"
    try:
        kit = _kit_board(other_view(sub), kit_colour, secret=None if theirs_secret else key)
        if kit_colour == "black":
            hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-mixed", moves="")
        else:
            hello = protocol.control("hello", v=1, role="white", name="kit")
        _send_until(kit, colour, hello, theirs)
        deadline = time.monotonic() + 30
        refused = None
        while refused is None and time.monotonic() < deadline and theirs.poll() is None:
            m = kit.wait(timeout=0.5)
            if m is not None and protocol.parse(m.body).kind == "refuse":
                refused = protocol.parse(m.body).get("reason")
            elif m is None:
                kit.send(colour, hello)
        code = _exit_code(theirs)
        out = theirs.output()
        who = "their side has the secret, the kit's has none" if theirs_secret else \
            "the kit's side has the secret, theirs has none"
        check(code == 3, f"{who}: their {colour} exited {code}, not 3: {out[-300:]!r}")
        if theirs_secret:
            # its refuse reaches the kit (which has no secret); A4 makes it say why
            m = refused or next((protocol.parse(x.body).get("reason") for x in iter(lambda: kit.wait(timeout=2), None)
                                 if protocol.parse(x.body).kind == "refuse"), None)
            if m is None:
                raise Fail(f"{who}: their {colour} sent no refuse (H7)")
        else:
            # its unsigned messages are refused by the kit's board (A3): not a game
            check(not any(protocol.parse(x.body).kind in ("welcome", "move")
                          for x in iter(lambda: kit.wait(timeout=0.5), None)),
                  f"{who}: an unsigned welcome or move was accepted")
    finally:
        if theirs.poll() is None:
            theirs.kill()


def s_runs(cmd: str, d: Path, play_cmd: str) -> None:
    """H8: after the handshake, a move from another run of the opponent is neither applied nor answered."""
    theirs = _theirs(play_cmd, d, "white")
    kit = _kit_board(other_view(d), "black")
    try:
        hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-runs", moves="")
        _send_until(kit, "white", hello, theirs)
        check(_expect(kit, "welcome").get("game") == "conf-runs", "welcome for another game (H3)")
        kit.send("white", "f5 #1")
        g = Game.from_transcript("f5")
        reply = _expect(kit, "move")
        check(reply.get("n") == 2, f"the reply to f5 #1 was {reply.text!r}")
        g.play(parse_square(reply.get("square"), 8))
        legal = g.position.legal_moves()
        forged, real = legal[-1], legal[0]
        # another run of black, which never joined: its message written as M1-M3 say, under the lock
        white_box = other_view(d) / "box" / "white"
        forger_run, white_run = fsops.new_token(), _run_of(white_box)
        _place(kit, white_box, lambda k: _kit_frame("black", forger_run, "white", white_run, k,
                                                    f"{square_name(forged, 8)} #3"))
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
            if m is not None:
                k = protocol.parse(m.body).kind
                check(k not in ("move", "refused"), f"after a move from another run of black it sent {m.body!r} (H8)")
        kit.send("white", f"{square_name(real, 8)} #3")
        g.play(real)
        reply = _expect(kit, "move")
        check(reply.get("n") == 4 and g.position.is_legal(parse_square(reply.get("square"), 8)),
              f"after the real move 3 the reply was {reply.text!r}: the forged move was applied")
        kit.send("white", "#cardstand resign")
        kit.send("white", protocol.control("result", black=2, white=2))     # G4: the resigner's result
    finally:
        _reap(theirs)


def _kit_classic_game(kit: Board, colour: str, proc: _Player, timeout: float = 150) -> None:
    """The kit plays a classic program (H6) as ``colour``: bare squares, passes not sent, no state in
    its alive record, never a greeting.  Everything the implementation sends must be a bare square."""
    other = "white" if colour == "black" else "black"
    me = 0 if colour == "black" else 1
    game = Game(8)
    deadline = time.monotonic() + timeout
    while not game.position.is_game_over():
        check(time.monotonic() < deadline, f"the classic game did not finish within {timeout} s")
        pos = game.position
        if pos.turn == me:
            if pos.must_pass():
                game.play(PASS)             # G3: a classic program does not send its pass
                continue
            move = pos.legal_moves()[0]
            game.play(move)
            _send_until(kit, other, square_name(move, 8), proc)
            continue
        if pos.must_pass():
            game.play(PASS)                 # the implementation's pass, applied here
            continue
        m = kit.wait(timeout=1)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} in the middle of the game")
            continue
        check(not m.body.startswith("#"), f"a classic program was sent a control line: {m.body[:80]!r} (H9)")
        msg = protocol.parse(m.body)
        check(msg.kind == "move" and "n" not in msg.fields and msg.get("square") != "pass",
              f"a classic program was sent {m.body[:80]!r}, not a bare square (H6)")
        sq = parse_square(msg.get("square"), 8)
        check(pos.is_legal(sq), f"illegal move {m.body!r}")
        game.play(sq)
    code = _exit_code(proc, timeout=30)
    check(code == 0, f"the implementation exited {code} after the classic game")
    for m in iter(lambda: kit.receive(), None):
        check(not m.body.startswith("#"), f"a classic program was sent a control line after the game: {m.body[:80]!r} (H9)")


def s_classic_white(cmd: str, d: Path, play_cmd: str) -> None:
    """H6 H9 G3: against a classic black (no greeting, no state) the implementation sends no control line, only bare squares."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = KitBoard(other_view(d), "black").join()   # a classic program: Init, Quiet, Talk
        deadline = time.monotonic() + 30
        while kit.member_run("white") is None:
            check(time.monotonic() < deadline and theirs.poll() is None, "the implementation never joined as white")
            time.sleep(0.1)
        time.sleep(1.5)         # it has seen us join: still it must send nothing
        first = kit.receive()
        check(first is None, f"before black's first move a classic program was sent {first and first.body[:80]!r} (H9)")
        _kit_classic_game(kit, "black", theirs)
    finally:
        _reap(theirs, timeout=1)


def s_classic_black(cmd: str, d: Path, play_cmd: str) -> None:
    """H6 H9 G3: against a classic white the implementation sends no greeting and plays bare squares (after H6's 10 s if it can greet; a black that never greets may move at once, H6a)."""
    kit = KitBoard(other_view(d), "white").join()       # a classic program: Init, Quiet, Talk
    theirs = _theirs(play_cmd, d, "black")
    try:
        _kit_classic_game(kit, "white", theirs)
    finally:
        _reap(theirs, timeout=1)


def s_classic_again(cmd: str, d: Path, play_cmd: str) -> None:
    """H6b H9: a classic black killed after three plies each and started again plays a new game from the start; the implementation (white) follows it to the end, never sending its last move again."""
    theirs = _theirs(play_cmd, d, "white")
    kit = KitBoard(other_view(d), "black").join()       # a classic program: Init, Quiet, Talk
    try:
        game = Game(8)
        for _ in range(3):
            move = game.position.legal_moves()[0]
            game.play(move)
            _send_until(kit, "white", square_name(move, 8), theirs)
            deadline = time.monotonic() + 30
            while (m := kit.wait(timeout=1)) is None:
                check(time.monotonic() < deadline and theirs.poll() is None,
                      f"no answer within 30 s to {square_name(move, 8)!r} in a classic game")
            msg = protocol.parse(m.body)
            check(msg.kind == "move" and "n" not in msg.fields, f"a classic program was sent {m.body[:80]!r} (H6)")
            game.play(parse_square(msg.get("square"), 8))
        kit.close()         # killed; its next run knows nothing of that game
        kit = KitBoard(other_view(d), "black").join()
        kit.quiet()
        time.sleep(1.5)     # the implementation has seen the new run: still it must send nothing
        first = kit.receive()
        check(first is None, f"a classic program that started again was sent {first and first.body[:80]!r} "
                             "before its first move (H6b: the last move is never sent again)")
        _kit_classic_game(kit, "black", theirs)
    finally:
        kit.close()
        _reap(theirs, timeout=1)


def s_classic_size(cmd: str, d: Path, play_cmd: str) -> None:
    """H6c H9: asked for a 6x6 game, the implementation (black) facing a classic white refuses (exit 3) and sends it nothing: a classic program knows only the plain 8x8 board."""
    kit = KitBoard(other_view(d), "white").join()       # a classic program: Init, Quiet, Talk
    theirs = _theirs(play_cmd, d, "black", extra=["--size", "6"])
    try:
        deadline = time.monotonic() + 40
        m = None
        while m is None and theirs.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
            m = kit.receive()       # (a message fails it at once: no waiting out the 40 s)
        m = m or kit.receive()
        check(m is None, f"a classic white was sent {m and m.body[:80]!r} for a 6x6 game (H6c: nothing is sent)")
        code = theirs.poll()
        check(code == 3, f"black asked for 6x6 against a classic white "
                         f"{'still ran after 40 s' if code is None else f'exited {code}'}, not exit code 3 (H6c): "
                         f"{theirs.output().strip()[-300:]!r}")
    finally:
        kit.close()
        _reap(theirs, timeout=1)


def s_record_trust(cmd: str, d: Path, play_cmd: str) -> None:
    """D4 D5 D6 D6a: a record whose end its moves do not give, or (with a secret) one not signed with it, is set aside and none of it offered; with a secret the records written are signed."""
    for name, secret, rec, why in (
            ("forged-end", None, Record(id="g-forged", size=8, black="impl", white="kit", moves="f5d6c3",
                                        status="over", result="64-0"),
             "a record saying 'over' / '64-0' after 3 plies (D5)"),
            ("unsigned", _secret(), Record(id="g-unsigned", size=8, black="impl", white="kit", moves="f5d6c3"),
             "with a secret, a record without a mac line (D4)")):
        sub = d / name
        sub.mkdir()
        key = secret.encode("utf-8") if secret else None
        kit = _kit_board(other_view(sub), "white", secret=key)
        Records(other_view(sub)).save(rec)          # written without the secret
        theirs = _theirs(play_cmd, sub, "black", secret=secret)
        try:
            hello = _expect_from(kit, "hello", theirs, what=f" with {why} on the board")
            check(not hello.get("moves"), f"with {why}, black offered {hello.text[:120]!r}: nothing of such a "
                                          "record may be used (D6: the game goes on from no plies)")
            if secret:      # D6a: it may wait for a message signed with its secret before setting it aside
                kit.send("black", protocol.control("welcome", v=1, role="white", name="kit",
                                                   game=hello.get("game"), moves=hello.get("moves")))
            pattern = rf"{re.escape(rec.id)}\.set-aside-[0-9a-f]{{16}}"
            deadline = time.monotonic() + 10
            while True:
                names = sorted(p.name for p in (sub / "records").iterdir())
                if any(re.fullmatch(pattern, n) for n in names) or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            check(len([n for n in names if re.fullmatch(pattern, n)]) == 1,
                  f"with {why}, the record was not set aside as records/{rec.id}.set-aside-<token> (D6): "
                  f"records/ holds {names}")
        finally:
            _reap(theirs, timeout=0.5)
    # D4: what an implementation with a secret writes is signed
    secret = _secret()
    key = secret.encode("utf-8")
    sub = d / "signed"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, "white", secret=secret)
    try:
        kit = _kit_board(other_view(sub), "black", secret=key)
        gid, _ = _kit_handshake(kit, "black", theirs)
        deadline = time.monotonic() + 10
        text = None
        while time.monotonic() < deadline and not text:
            try:
                text = (sub / "records" / f"{gid}.game").read_text(encoding="utf-8")
            except OSError:
                time.sleep(0.1)
        if text is None:
            raise Fail(f"no records/{gid}.game after the handshake (D2)")
        try:
            Record.parse(text).check_mac(key)
        except ValueError as e:
            check(False, f"with a secret, the record written is not signed as D4 says: {e}")
    finally:
        _reap(theirs, timeout=0.5)
