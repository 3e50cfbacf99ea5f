"""Game messages over the board (docs/PROTOCOL.md, part 2).

A move is a plain coordinate, so the tutorial's classic programs understand
it: ``d3``.  Between two programs that shook hands it carries its number and
the mover's thinking time: ``d3 #5 t=120``; a pass is ``pass #6``.
Everything else is a control line that a classic program ignores:
``#cardstand VERB key=value ...`` with percent-encoded values.

Everything here takes text from the board, which anyone who can write the
folder can put there: ``parse`` never raises, and ``game_id_problem`` is the one
check of a game id before it names a file.
"""
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import engine
from comm.board import is_device_name
from engine import Game, IllegalMove, Shape, ShapeError, notation
from engine.shape import builtin

VERSION = 1             # the greetings of a game on a plain square board
SHAPES_VERSION = 2      # the greetings of a game on a board with holes or its own start (H2)
VERSIONS = (str(VERSION), str(SHAPES_VERSION))      # what this side reads (H4)
PREFIX = "#cardstand"
VERBS = ("hello", "welcome", "refuse", "refused", "resign", "bye", "say", "result")

# Move numbers and times of more than 9 digits are junk (int() of 5,000 digits raises).
_MOVE = re.compile(r"\s*([A-Za-z][0-9]{1,2}|pass|PASS|Pass)\s*(?:#([0-9]{1,9}))?\s*(?:t=([0-9]{1,9}))?\s*")
_MS = re.compile(r"[0-9]{1,9}")     # a time used (D7), digits as a move's t= (P3)
_GAME_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_PLY = re.compile(r"pass|[a-z][0-9]{1,2}")
_TRANSCRIPT = re.compile(r"(?:pass|[a-z][0-9]{1,2})*")
NAME_LIMIT = 64             # characters of a name: --name is refused over it, a name from the board cut to it
SAY_LIMIT = 1000            # characters of one value in a message line (a name, a chat line, a reason)

from .reasons import REASONS  # noqa: F401  (what protocol.REASONS always meant)


@dataclass
class Msg:
    kind: str                       # "move", one of VERBS, or "junk"
    fields: dict[str, Any] = field(default_factory=dict)
    text: str = ""                  # the raw body
    run: str = ""                   # the sender's run (comm's Message.sender_run), when known
    signed: bool = False            # the message carried a MAC that this side did not check

    def get(self, key: str, default: Any = "") -> Any:
        return self.fields.get(key, default)


def game_id_problem(gid: object) -> str:
    """Why ``gid`` is not a usable game id, or '' when it is.

    A game id becomes a file name (``records/<id>.game``): 1 to 64 characters
    from ``A-Z a-z 0-9 . _ -``, not starting with ``.`` (no ``..``, no hidden
    files, no separators, no drive letters, nothing to escape).

    A Windows device name (``CON``, ``nul.x``, ``COM1``) is refused too.

    >>> game_id_problem("20261122-045500-ab12cd"), game_id_problem("../../x"), game_id_problem(".x")
    ('', 'bad game id', 'bad game id')
    >>> game_id_problem("CON"), game_id_problem("nul.1")
    ('bad game id', 'bad game id')
    """
    if not isinstance(gid, str) or not _GAME_ID.fullmatch(gid) or gid.startswith(".") or is_device_name(gid):
        return "bad game id"
    return ""


def valid_game_id(gid: object) -> bool:
    return not game_id_problem(gid)


def parse_size(text: object) -> int | None:
    """A board size field (H2, D1): an even number 4..26 in decimal, or None when it is anything else."""
    try:
        return engine.parse_size(text)
    except ValueError:
        return None


def parse_used(text: object) -> int | None:
    """A side's time used (D7: a greeting's ``used``, a clock file's ``used:``): milliseconds, 1 to
    9 ASCII digits; None for anything else (empty, signed, spaced, a fraction, longer).

    >>> parse_used("52318"), parse_used("-5"), parse_used("1e9"), parse_used("1234567890"), parse_used(None)
    (52318, None, None, None, None)
    """
    return int(text) if isinstance(text, str) and _MS.fullmatch(text) else None


def shape_code(board: Shape) -> str:
    """What a greeting's ``shape`` and a record's ``shape:`` line say of ``board`` (H2, D1): its
    picture's code, or '' for a plain board (which neither carries).

    >>> shape_code(Shape.square(8)), shape_code(Shape.named("x"))[:17]
    ('', '..####../...##...')
    """
    return "" if board.is_plain() else board.code()


def named_board(board: Shape) -> Shape:
    """``board`` with its built-in name when it is one of the built-in boards (a greeting and a
    record carry only the picture).

    >>> str(named_board(parse_board("8", Shape.named("heart").code())))
    'Heart'
    """
    if board.name or board.is_plain():
        return board
    return next((b for b in builtin().values() if b.same_board(board)), board)


def parse_board(size_text: object, shape_text: object = None) -> Shape:
    """The board of a greeting or a record: the plain board of ``size_text`` (H2, D1), or the
    picture ``shape_text`` (a code, version 2) when given, which must be that size; ``ValueError``
    saying why for anything else.

    >>> parse_board("8").is_plain(), parse_board("4", "#.../.OX./.XO./....").holes
    (True, 1)
    >>> parse_board("8", "..../.OX./.XO./....")
    Traceback (most recent call last):
    ...
    ValueError: the shape is 4x4, its size says 8
    """
    size = parse_size(size_text)
    if size is None:
        raise ValueError(f"bad board size {visible_text(size_text, 20)}")
    if shape_text is None:
        return Shape.square(size)
    if not isinstance(shape_text, str):
        raise ValueError("a shape is text")
    try:
        board = Shape.parse(shape_text)
    except ShapeError as e:
        raise ValueError(f"bad shape: {e}") from None
    if board.code() != shape_text:
        raise ValueError("bad shape: not rows of '#', 'X', 'O' and '.' joined by '/'")
    if board.size != size:
        raise ValueError(f"the shape is {board.size}x{board.size}, its size says {size}")
    return board


def visible_text(text: object, limit: int) -> str:
    s = repr(str(text))
    return s if len(s) <= limit else s[:limit - 4] + "...'"


def replay(moves: object, board: int | Shape) -> Game:
    """The game of a transcript from a greeting or a game record (H2, D1), replayed from the start
    of ``board`` (a ``Shape``, or a size: the plain board); ``ValueError`` (or ``IllegalMove``)
    saying why when it does not replay.

    A transcript is square names and ``pass`` (any case) with nothing between them, every pass
    written out, as interop/js reads it: the engine's lenient reader (passes left out, ``PA``,
    ``--``, spaces, commas) would let one side take a game the other refuses.

    >>> len(replay("f5D6c3", 8).moves), replay("", 4).moves
    (3, [])
    >>> replay("f5 d6", 8)
    Traceback (most recent call last):
    ...
    ValueError: not a transcript (square names and 'pass' with nothing between them)
    """
    text = moves.lower() if isinstance(moves, str) else None
    if text is None or not _TRANSCRIPT.fullmatch(text):
        raise ValueError("not a transcript (square names and 'pass' with nothing between them)")
    start = board.start() if isinstance(board, Shape) else engine.Position.start(board)
    game = Game(start.size, start)
    for i, token in enumerate(_PLY.findall(text), 1):
        try:
            game.play(notation.parse_square(token, start.size))
        except (IllegalMove, ValueError) as e:
            raise IllegalMove(f"move {i} ({token}): {e}") from None
    return game


def move(square_text: str, number: int | None = None, think_ms: float | None = None) -> str:
    """``move('d3') == 'd3'`` (classic); ``move('d3', 5, 120) == 'd3 #5 t=120'``."""
    out = square_text
    if number is not None:
        out += f" #{number}"
        if think_ms is not None:
            out += f" t={int(think_ms)}"
    return out


def control(verb: str, **fields: object) -> str:
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}")
    parts = [PREFIX, verb]
    parts += [f"{k}={quote(str(v), safe='')}" for k, v in fields.items() if v is not None]
    return " ".join(parts)


def parse(body: object) -> Msg:
    """Classify a body; never raises (unknown text is ``junk``)."""
    if not isinstance(body, str):
        return Msg("junk", text=repr(body))
    m = _MOVE.fullmatch(body)
    if m:
        f = {"square": m.group(1).lower()}
        if m.group(2):
            f["n"] = int(m.group(2))
        if m.group(3):
            f["t"] = int(m.group(3))
        return Msg("move", f, body)
    words = body.strip().split(" ")
    if len(words) >= 2 and words[0] == PREFIX and words[1] in VERBS:
        f = {}
        for w in words[2:]:
            k, sep, v = w.partition("=")
            if not sep or not k:
                return Msg("junk", text=body)
            f[k] = unquote(v, errors="replace")
        return Msg(words[1], f, body)
    return Msg("junk", text=body)
