"""What a face shows: one snapshot of a game (``Session.view()``, a record watched or replayed),
the same for the terminal screen and a window.  Faces draw a ``View``; they never reach into the
session."""
from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence, Tuple

from comm.text import visible
from engine import PASS, Game, Position

from .protocol import NAME_LIMIT
from .record import PLAYING, Record


def played(game: Game, ply: int | None = None) -> tuple[tuple[int, ...], Position, int]:
    """``game`` after ``ply`` plies (None: all of them) as a face draws it: (moves, position, the
    discs the last ply flipped).  The one place that works out what the last move turned."""
    ply = len(game.moves) if ply is None else max(0, min(ply, len(game.moves)))
    moves = tuple(game.moves[:ply])
    last = moves[-1] if moves else PASS
    flipped = game.positions[ply - 1].flips(last) if last != PASS else 0
    return moves, game.positions[ply], flipped


def last_square(moves: Sequence[int]) -> int | None:
    """The square of the last ply that was not a pass (the move to highlight), or None."""
    for m in reversed(moves):
        if m != PASS:
            return m
    return None


@dataclass(frozen=True)
class Side:
    """One player as a face shows it."""
    name: str                   # as given (made visible; a face shows the default names in its language)
    kind: str                   # "human", "computer", or "" (not told)
    me: bool                    # the side of this program
    state: str                  # "thinking", "waiting", "gone", "left", "absent" (not joined yet)
    since: Optional[float]      # seconds in that state, when known
    used: float                 # seconds thought in this game (its moves' times; D7: across restarts)
    left: Optional[float] = None    # seconds left of a budget for the whole game (ours, --game-time)
    per_move: Optional[float] = None    # seconds a move, when a computer has a limit per move


class Hint(NamedTuple):
    """A move a hint shows: the disc difference it leads to, solved to the end (``exact``) or not."""
    square: int
    value: int
    exact: bool


@dataclass(frozen=True)
class View:
    """The game as a face draws it; ``position`` is None until the game starts."""
    colour: Optional[int]       # the side this face plays (None: watching)
    size: int
    position: Optional[Position]
    moves: Tuple[int, ...]      # every ply, passes as PASS
    flipped: int                # discs the last move turned
    sides: Tuple[Side, Side]    # black, white
    show_legal: bool            # legal moves marked (a person's turn)
    result: str = ""            # the record's result (D1) once the game has ended
    hints: Tuple[Hint, ...] = ()   # asked for this position, best first

    @property
    def last(self) -> int | None:
        """The last ply (PASS for a pass), or None before the first."""
        return self.moves[-1] if self.moves else None

    @property
    def last_square(self) -> int | None:
        """The square of the last move that was not a pass (to highlight), or None."""
        return last_square(self.moves)

    @property
    def last_mover(self) -> int | None:
        """The colour that played the last ply, or None before the first (every ply, a pass
        too, gives the turn to the other side)."""
        return 1 - self.position.turn if self.moves and self.position is not None else None

    @property
    def ended(self) -> bool:
        return bool(self.result) or (self.position is not None and self.position.is_game_over())


def record_view(rec: Record, game: Game, ply: int | None = None,
                used: tuple[float, float] = (0.0, 0.0)) -> View:
    """A record (D1) and its replayed ``game`` as a face draws it, for watching or replaying: the
    game after ``ply`` plies (None: all of them); ``used``: the seconds each side has thought, as
    its clock file says (D7; a watcher reads them)."""
    moves, pos, flipped = played(game, ply)
    ply = len(moves)
    live = rec.status == PLAYING and ply == len(game.moves) and not pos.is_game_over()
    black, white = (Side(name=visible(name, NAME_LIMIT), kind="", me=False,
                         state="thinking" if live and pos.turn == colour else "waiting", since=None,
                         used=used[colour])
                    for colour, name in enumerate((rec.black, rec.white)))
    result = rec.result if ply == len(game.moves) and rec.status != PLAYING else ""
    return View(colour=None, size=rec.size, position=pos, moves=moves, flipped=flipped,
                sides=(black, white), show_legal=False, result=result)


def empty_view(size: int = 8) -> View:
    """No game yet (watching a board where none has started)."""
    black, white = (Side(name=name, kind="", me=False, state="absent", since=None, used=0.0)
                    for name in ("black", "white"))
    return View(colour=None, size=size, position=None, moves=(), flipped=0, sides=(black, white),
                show_legal=False)
