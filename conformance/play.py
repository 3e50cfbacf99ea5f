"""The kit's side of a game, and the players it starts: handshakes, plies, results, records."""
import functools
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, Sequence

from comm import Board
from engine import Game, PASS, parse_square, square_name
from peer import protocol
from comm.cliargs import command_words

from .common import check, Fail
from .decoder import _kit_record, KitBoard
from .process import _env, _Player, _start


ROOT = Path(__file__).resolve().parents[1]


def _ours(colour: str, board: Path, *extra: str) -> _Player:
    """Our player of ``colour`` (black.py, white.py), a random one."""
    env = _env(base=dict(os.environ, NO_COLOR="1"))
    return _start([sys.executable, str(ROOT / f"{colour}.py"), "--board", str(board), "--ai", "random",
                   "--lang", "en", *extra], env=env)


def _theirs(play_cmd: str, board: Path, colour: str, secret: str | None = None,
            extra: Sequence[str] = ()) -> _Player:
    """The implementation playing ``colour`` (its ``play`` command)."""
    return _start(command_words(play_cmd) + ["--board", str(board), "--color", colour, *extra], env=_env(secret))


def _check_own_record(d: Path, gid: str, game: Game, colour: str, what: str, ended: bool = False) -> None:
    """D1 D2 G1: the implementation's own record of ``gid`` (the kit writes none) holds the plies
    of ``game``; with ``ended``, the end too."""
    f = _kit_record(d, gid)
    if f is None:
        raise Fail(f"{what}: no records/{gid}.game: the implementation keeps no game record (D1)")
    check(f.get("id") == gid and f.get("size") == "8", f"{what}: its record says id {f.get('id')!r}, "
                                                         f"size {f.get('size')!r} (D1)")
    want = game.transcript(passes=True).lower()
    got = (f.get("moves") or "").lower()
    check(got == want, f"{what}: its record holds moves {got[-30:]!r}, not {want[-30:]!r} "
                       "(D1: written after every ply; G1: a mover saves before it sends)")
    check(f.get("mode") == "full", f"{what}: its record says mode {f.get('mode')!r}, not 'full' (D1)")
    kit_side = "white" if colour == "black" else "black"
    check(f.get(kit_side) == "kit", f"{what}: its record names {kit_side} {f.get(kit_side)!r}, not 'kit', "
                                    "the name in the kit's greeting (D1)")
    if ended:
        b, w = game.position.discs()
        check(f.get("status") == "over" and f.get("result") == f"{b}-{w}",
              f"{what}: its record says status {f.get('status')!r}, result {f.get('result')!r}, "
              f"not over {b}-{w} (D1)")
    else:
        check(f.get("status") == "playing", f"{what}: its record says status {f.get('status')!r}, not playing (D1)")


def _expect(kit: Board, kind: str, timeout: float = 30) -> protocol.Msg:
    """The next ``kind`` message (others are passed over)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
        if m is None:
            break
        msg = protocol.parse(m.body)
        if msg.kind == kind:
            return msg
    raise Fail(f"no {kind!r} message within {timeout} s")


def _quiet_for(kit: Board, secs: float, what: str) -> None:
    """Nothing but greetings from the implementation for ``secs`` seconds: no move, no ``refused``."""
    deadline = time.monotonic() + secs
    while True:
        m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
        if m is None:
            return
        msg = protocol.parse(m.body)
        check(msg.kind not in ("move", "refused", "refuse"), f"{what}: it sent {m.body[:80]!r}")


def _send_until(kit: Board, to: str, body: str, proc: _Player, timeout: float = 30) -> None:
    """Send ``body`` to ``to`` once it has joined (``proc``, the implementation, still running)."""
    deadline = time.monotonic() + timeout
    while not kit.send(to, body):
        check(proc.poll() is None, f"the implementation exited {proc.returncode} before joining")
        check(time.monotonic() < deadline, f"the implementation never joined as {to}")
        time.sleep(0.1)


def _kit_board(folder: Path, name: str, secret: bytes | None = None) -> Board:
    """The kit's side of a game: joined, and showing (P2 ``state``) that it speaks control lines (H9)."""
    kit = KitBoard(folder, name, secret=secret).join()
    kit.beat("waiting")
    return kit


def _kit_hello(colour: str, gid: str, moves: str = "", size: int = 8) -> str:
    """The kit's ``hello`` as ``colour``: black offers game ``gid`` with ``moves``."""
    if colour == "black":
        return protocol.control("hello", v=1, role="black", name="kit", size=size, game=gid, moves=moves)
    return protocol.control("hello", v=1, role="white", name="kit")


def _kit_handshake(kit: Board, colour: str, proc: _Player, gid: str | None = None, game: Game | None = None,
                   hello: str | None = None, within: float = 30) -> tuple[str, protocol.Msg]:
    """H1-H3 as ``colour`` against ``proc``; black offers ``game`` (a ``Game``, default a new one)
    as ``gid`` (``hello``: the greeting as written, instead of the kit's own).  Returns (gid, the
    other side's greeting)."""
    other = "white" if colour == "black" else "black"
    gid = gid or f"conf-{uuid.uuid4().hex[:8]}"
    moves = game.transcript(passes=True) if game is not None else ""
    hello = hello or _kit_hello(colour, gid, moves)
    _send_until(kit, other, hello, proc)
    next_hello = time.monotonic() + 2
    shake_by = time.monotonic() + within
    while True:
        check(time.monotonic() < shake_by, f"no handshake within {within} s")
        check(proc.poll() is None, f"the implementation exited {proc.returncode} during the handshake")
        m = kit.wait(timeout=0.2)
        if m is None:
            if time.monotonic() > next_hello:
                kit.send(other, hello)
                next_hello = time.monotonic() + 2
            continue
        msg = protocol.parse(m.body)
        if colour == "black" and msg.kind == "hello":
            kit.send(other, hello)
        elif colour == "black" and msg.kind == "welcome" and msg.get("game") == gid:
            return gid, msg
        elif colour == "white" and msg.kind == "hello" and msg.get("role") == "black":
            gid = msg.get("game")
            kit.send(other, protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                             moves=msg.get("moves")))
            return gid, msg
        elif msg.kind == "refuse":
            raise Fail(f"the implementation refused: {msg.get('reason')!r}")


def _kit_play(kit: Board, colour: str, proc: _Player, game: Game, timeout: float = 120, hold_last: bool = False,
              until: int | None = None, on_theirs: Callable[[], None] | None = None) -> bool:
    """The kit plays ``game`` on (the first legal move) as ``colour`` until it is over (or holds
    ``until`` plies).  With ``hold_last`` the kit's own last ply, if it makes it, is not sent.
    ``on_theirs()`` is called after each ply received from the implementation.
    Returns whether one was held."""
    other = "white" if colour == "black" else "black"
    me = 0 if colour == "black" else 1
    deadline = time.monotonic() + timeout
    while not game.position.is_game_over() and (until is None or len(game.moves) < until):     # G1-G4
        check(time.monotonic() < deadline, f"the game did not finish within {timeout} s")
        pos = game.position
        if pos.turn == me:
            move = PASS if pos.must_pass() else pos.legal_moves()[0]
            game.play(move)
            if hold_last and game.position.is_game_over():
                return True
            text = "pass" if move == PASS else square_name(move, 8)
            kit.send(other, protocol.move(text, len(game.moves), 0))
            continue
        m = kit.wait(timeout=1)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} in the middle of the game")
            continue
        msg = protocol.parse(m.body)
        if msg.kind == "move":
            n = msg.get("n")
            if n is not None and n < len(game.moves) + 1:
                continue
            sq = PASS if msg.get("square") == "pass" else parse_square(msg.get("square"), 8)
            check(sq == PASS and pos.must_pass() or sq != PASS and pos.is_legal(sq), f"illegal move {m.body!r}")
            game.play(sq)
            if on_theirs is not None:
                on_theirs()
        elif msg.kind in ("refuse", "refused", "resign"):
            raise Fail(f"the implementation sent {m.body[:100]!r}")
    return False


def _result_of(game: Game, gid: str | None = None) -> str:
    """The ``result`` of ``game`` as it stands (G4)."""
    b, w = game.position.discs()
    return protocol.control("result", black=b, white=w, game=gid)


def _kit_game(kit: Board, colour: str, proc: _Player, timeout: float = 120) -> None:
    """The kit plays a whole numbered game as ``colour`` (the first legal move) against ``proc``."""
    other = "white" if colour == "black" else "black"
    game = Game(8)
    gid, _ = _kit_handshake(kit, colour, proc)
    _kit_play(kit, colour, proc, game, timeout)
    kit.send(other, _result_of(game, gid))


# Our Python player (python -m peer play), when it knows the shared secret (H7)
OUR_PLAYER = [sys.executable, "-m", "peer", "play", "--ai", "random"]


@functools.cache
def _our_player_has_secret() -> bool:
    """Whether our player takes the shared secret (it has ``--secret-file``)."""
    try:
        r = subprocess.run(OUR_PLAYER[:4] + ["--help"], capture_output=True, text=True, timeout=60, cwd=ROOT,
                           env=_env())
    except (OSError, subprocess.SubprocessError):
        return False
    return "--secret-file" in r.stdout


def _our_play(board: Path, colour: str, secret: str | None = None) -> _Player:
    return _start(OUR_PLAYER + ["--board", str(board), "--color", colour], cwd=ROOT,
                  env=_env(secret, dict(os.environ, NO_COLOR="1")))


def _both(a: _Player, b: _Player, timeout: float = 120) -> tuple[int, str, int, str]:
    """Wait for two players; (code a, output a, code b, output b)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (a.poll() is None or b.poll() is None):
        time.sleep(0.1)
    for p in (a, b):
        if p.poll() is None:
            p.kill()
    out_a, out_b = a.output(), b.output()
    return a.wait(), out_a, b.wait(), out_b


def _expect_from(kit: Board, kind: str, proc: _Player, timeout: float = 30, what: str = "") -> protocol.Msg:
    """The next ``kind`` message; fails early when ``proc`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=0.5)
        if m is not None:
            msg = protocol.parse(m.body)
            if msg.kind == kind:
                return msg
            if msg.kind == "refuse":
                raise Fail(f"the implementation refused{what}: {msg.get('reason')!r}")
        elif proc.poll() is not None and kit.receive() is None:
            break
    raise Fail(f"no {kind!r} message{what} within {timeout} s (the implementation "
               f"{'exited ' + str(proc.returncode) if proc.poll() is not None else 'is still running'})")


def _check_result(msg: protocol.Msg, game: Game, what: str) -> None:
    """G4: ``msg``, a ``result``, carries the final count of ``game``."""
    b, w = game.position.discs()
    check((msg.get("black"), msg.get("white")) == (str(b), str(w)),
          f"{what}: result black={msg.get('black')} white={msg.get('white')}, the board says {b}-{w} (G4)")


def _kit_resigns(kit: Board, other: str, game: Game, gid: str) -> None:
    kit.send(other, protocol.control("resign"))
    kit.send(other, _result_of(game, gid))
