"""A game: a start position and the moves played, with undo, transcripts and GGF."""
import re
from typing import TYPE_CHECKING, Optional

from . import notation
from .notation import PASS
from .position import IllegalMove, Move, Position

if TYPE_CHECKING:
    from .shape import Shape

HOLES_TAG = "HO"   # GGF has no holes: ours go in a tag of our own (see Game.to_ggf)


class Game:
    """Moves played from a start position.

    >>> g = Game.from_transcript('f5d6c3d3c4')
    >>> g.transcript()
    'f5d6c3d3c4'
    >>> notation.square_name(g.undo())
    'c4'
    >>> g.transcript()
    'f5d6c3d3'

    On a shaped board (``engine.Shape``):

    >>> from engine import Shape
    >>> g = Game.on(Shape.named("Heart"))
    >>> g.from_transcript('d3c3', start=g.start).position.discs()
    (3, 3)
    """

    def __init__(self, size: int = 8, start: Optional[Position] = None) -> None:
        self.start = start or Position.start(size)
        self.positions = [self.start]
        self.moves: list[int] = []

    @classmethod
    def on(cls, shape: "Shape") -> "Game":
        """A new game on ``shape``'s board, from its start."""
        return cls(shape.size, shape.start())

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def size(self) -> int:
        return self.start.size

    def play(self, move: Move) -> Position:
        """Play a move (or ``'pass'`` when forced); raises ``IllegalMove`` and changes nothing if illegal."""
        nxt = self.position.play(move)
        sq = self.position._square(move)
        self.positions.append(nxt)
        self.moves.append(sq)
        return nxt

    def undo(self) -> int:
        """Take back the last move (a pass counts as one); returns it."""
        if not self.moves:
            raise IndexError("no move to undo")
        self.positions.pop()
        return self.moves.pop()

    def transcript(self, passes: bool = False) -> str:
        """``'f5d6c3...'``; passes are left out unless ``passes=True``."""
        return "".join(notation.square_name(m, self.size) for m in self.moves if passes or m != PASS)

    @classmethod
    def from_transcript(cls, text: str, size: int = 8, start: Optional[Position] = None) -> "Game":
        """Replay ``text`` (``'f5d6c3'``) from ``start`` (a shaped board's: ``shape.start()``) or
        the plain board of ``size``; forced passes may be written or left out."""
        game = cls(size, start)
        for i, token in enumerate(notation.split_transcript(text), 1):
            sq = notation.parse_square(token, game.size)
            if sq != PASS and game.position.must_pass():
                game.play(PASS)
            try:
                game.play(sq)
            except IllegalMove as e:
                raise IllegalMove(f"move {i} ({token}): {e}") from None
        return game

    def to_ggf(self, black: str = "", white: str = "", result: str = "", place: str = "cardstand",
               date: str = "") -> str:
        """The game in GGF, the format of the Generic Game Server, NBoard and most Othello tools.

        ``result`` is GGF's RE value (e.g. ``"+12.000"``, ``"-64.000:r"``); empty leaves RE out.

        GGF cannot say that a square is missing.  On a shaped board the start
        discs go in ``BO`` as always and the holes in a tag of our own,
        ``HO[a1 b1 ...]`` (the holes' names, a1 first), which ``from_ggf``
        reads back.  A program that skips tags it does not know sees the game
        on the plain board with the holes as squares that stay empty: every
        move replays to the same discs there (a hole and an empty square both
        stop a line of flips), but a pass the holes forced, or an end of game
        they caused, may look wrong to it.
        """
        n = self.size
        cells: dict[Optional[int], str] = {0: "*", 1: "O", None: "-"}
        rows = " ".join("".join(cells[self.start.colour_at(y * n + x)] for x in range(n)) for y in range(n))
        out = [f"(;GM[Othello]PC[{place}]"]
        if date:
            out.append(f"DT[{date}]")
        out.append(f"PB[{black}]PW[{white}]")
        if result:
            out.append(f"RE[{result}]")
        out.append(f"TY[{n}]BO[{n} {rows} {'*' if self.start.turn == 0 else 'O'}]")
        if self.start.holes:
            holes = " ".join(notation.square_name(sq, n) for sq in range(n * n) if self.start.holes >> sq & 1)
            out.append(f"{HOLES_TAG}[{holes}]")
        for pos, m in zip(self.positions, self.moves):
            name = "PA" if m == PASS else notation.square_name(m, n).upper()
            out.append(f"{'B' if pos.turn == 0 else 'W'}[{name}]")
        out.append(";)")
        return "".join(out)

    @classmethod
    def from_ggf(cls, text: str) -> "Game":
        """A game from GGF text (the first game in it); ValueError with the reason if it is not one.

        Reads TY/BO (the start position; ``TY[8]`` when absent), the holes of a
        shaped board (``HO``, see ``to_ggf``) and the B[...]/W[...] moves
        (``F5``, ``f5//1.2``, ``PA``); other tags are ignored.
        """
        t = str(text)
        start_at = t.find("(;")
        end_at = t.find(";)", start_at + 2)
        if start_at < 0 or end_at < 0:
            raise ValueError("not a GGF game: expected (; ... ;)")
        body = t[start_at + 2:end_at]
        tags = re.findall(r"([A-Z]{1,2})\[([^\]]*)\]", body)
        start: Optional[Position] = None
        holes_text: Optional[str] = None
        for key, value in tags:
            if key == HOLES_TAG:
                holes_text = value
            if key == "BO":
                fields = value.split()
                if not fields or not fields[0].isdigit():
                    raise ValueError(f"bad GGF board BO[{value}]")
                n = int(fields[0])
                size, black, white, to_move_black = notation.parse_text("".join(fields[1:]))
                if size != n:
                    raise ValueError(f"bad GGF board BO[{value}]: {size}x{size} cells for size {n}")
                start = Position.from_colours(n, black, white, 0 if to_move_black else 1)
        if start is None:
            size = int(dict(tags).get("TY", "8").rstrip("r") or 8)
            start = Position.start(size)
        if holes_text is not None:
            start = Position(start.size, start.player, start.opponent, start.turn,
                             _parse_holes(holes_text, start.size))
        game = cls(start.size, start)
        for key, value in tags:
            if key in ("B", "W"):
                token = value.split("/")[0].strip()
                sq = notation.parse_square(token, game.size)
                want = 0 if key == "B" else 1
                if sq != PASS and game.position.turn != want and game.position.must_pass():
                    game.play(PASS)
                if game.position.turn != want and sq != PASS:
                    raise IllegalMove(f"GGF move {key}[{value}]: it is not {'black' if want == 0 else 'white'}'s turn")
                try:
                    game.play(sq)
                except IllegalMove as e:
                    raise IllegalMove(f"GGF move {key}[{value}]: {e}") from None
        return game


def _parse_holes(text: str, size: int) -> int:
    """The mask of ``HO[...]``'s square names; ValueError with the reason."""
    holes = 0
    for token in text.split():
        sq = notation.parse_square(token, size)
        if sq == PASS:
            raise ValueError(f"bad GGF holes {HOLES_TAG}[{text}]: {token} is not a square")
        holes |= 1 << sq
    return holes
