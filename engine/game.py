"""A game: a start position and the moves played, with undo and transcripts."""
from . import notation
from .notation import PASS
from .position import IllegalMove, Position


class Game:
    """Moves played from a start position.

    >>> g = Game.from_transcript('f5d6c3d3c4')
    >>> g.transcript()
    'f5d6c3d3c4'
    >>> notation.square_name(g.undo())
    'c4'
    >>> g.transcript()
    'f5d6c3d3'
    """

    def __init__(self, size=8, start=None):
        self.start = start or Position.start(size)
        self.positions = [self.start]
        self.moves = []

    @property
    def position(self):
        return self.positions[-1]

    @property
    def size(self):
        return self.start.size

    def play(self, move):
        """Play a move (or ``'pass'`` when forced); raises ``IllegalMove`` and changes nothing if illegal."""
        nxt = self.position.play(move)
        sq = self.position._square(move)
        self.positions.append(nxt)
        self.moves.append(sq)
        return nxt

    def undo(self):
        """Take back the last move (a pass counts as one); returns it."""
        if not self.moves:
            raise IndexError("no move to undo")
        self.positions.pop()
        return self.moves.pop()

    def transcript(self, passes=False):
        """``'f5d6c3...'``; passes are left out unless ``passes=True``."""
        return "".join(notation.square_name(m, self.size) for m in self.moves if passes or m != PASS)

    @classmethod
    def from_transcript(cls, text, size=8, start=None):
        """Replay ``text`` (``'f5d6c3'``); forced passes may be written or left out."""
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
