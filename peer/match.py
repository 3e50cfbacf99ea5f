"""One game between two sides, with no I/O: the order of plies, the clocks, the end, and which
plies a transcript from the other side may bring (docs/PROTOCOL.md G1-G6, H5, D7).

``Match`` is what one side knows of the game it plays.  Everything it is told arrives as values:
a ply and the time its mover says it took, a transcript already replayed, the time now (a
monotonic clock's reading in seconds; ``Match`` never reads a clock).  It judges each ply once
(``judge``), applies it (``play``), and has one definition of the end (``outcome``).  The session
(``peer.session``) drives it: it reads the board, saves the records, tells the faces.
"""
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Optional, Tuple

from engine import BLACK, PASS, WHITE, Game, IllegalMove, Position, Shape, notation

from .reasons import Reason

COLOURS = ("black", "white")


class Termination(Enum):
    """How a game ended: the record's status (D1)."""

    NO_MOVES = "over"           # neither side can move (G4)
    RESIGNATION = "resigned"    # a side resigned (G4)


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how, who won (None: a draw), and the discs on the board then."""

    termination: Termination
    winner: Optional[int]
    discs: Tuple[int, int]

    @property
    def status(self) -> str:
        """The record's ``status`` (D1)."""
        return self.termination.value

    @property
    def result(self) -> str:
        """The record's ``result`` (D1): ``36-28``, or ``black resigned``."""
        if self.termination is Termination.RESIGNATION:
            assert self.winner is not None
            return f"{COLOURS[1 - self.winner]} resigned"
        return f"{self.discs[0]}-{self.discs[1]}"

    @classmethod
    def of(cls, position: Position, resigned: Optional[int] = None) -> "Optional[Outcome]":
        """The outcome of ``position`` when ``resigned`` (a colour, or None) resigned in it; None
        while the game goes on."""
        discs = position.discs()
        if resigned is not None:
            return cls(Termination.RESIGNATION, 1 - resigned, discs)
        if position.is_game_over():
            return cls(Termination.NO_MOVES, position.winner(), discs)
        return None


def resigner(result: str) -> Optional[int]:
    """The colour a record's ``result`` says resigned (``black resigned``), else None."""
    for colour, name in enumerate(COLOURS):
        if result == f"{name} resigned":
            return colour
    return None


class Clocks:
    """How long each side has thought in this game (whole milliseconds, the unit of a move's
    ``t=``, P3), and since when the side to move has had its turn.  Each side adds the same
    figures (its own as it sends them, the opponent's as they arrive), so both agree to the
    millisecond (D7).  Times ``now`` are a monotonic clock's seconds, given by the caller."""

    def __init__(self) -> None:
        self.ms: Tuple[int, int] = (0, 0)
        self.turn_since: Optional[float] = None      # None: the game is not on yet

    @property
    def used(self) -> Tuple[float, float]:
        """Seconds each colour thought in this game."""
        return self.ms[0] / 1000, self.ms[1] / 1000

    def start(self, now: float) -> None:
        """The side to move has had its turn since ``now`` (the game is on, or goes on again)."""
        self.turn_since = now

    def thinking_ms(self, now: float) -> int:
        """Milliseconds since the side to move got its turn (0 before the game is on)."""
        return max(0, int((now - self.turn_since) * 1000)) if self.turn_since is not None else 0

    def add(self, colour: int, ms: int) -> None:
        """``colour`` thought ``ms`` more milliseconds."""
        self.set(colour, self.ms[colour] + max(0, ms))

    def set(self, colour: int, ms: int) -> None:
        """``colour`` has used ``ms`` milliseconds so far (D7: a count kept across a restart)."""
        both = list(self.ms)
        both[colour] = max(0, ms)
        self.ms = (both[0], both[1])


class Verdict(NamedTuple):
    """A ply judged (G2): its square (``PASS`` for a pass) when it may be played; ``duplicate``
    when it is one already played (dropped without a word); else ``reason`` it is refused."""

    square: Optional[int] = None
    duplicate: bool = False
    reason: Optional[Reason] = None


class Adoption(NamedTuple):
    """What the other side's transcript did to the game (H5): ``taken`` plies added, or ``reason``
    it cannot be used (its key in ``peer.reasons.REASONS`` and the fields)."""

    taken: int = 0
    reason: Optional[Reason] = None


class Match:
    """The game ``colour``'s side plays on ``board``: ``game`` so far (plies it made or agreed to),
    ``resigned`` (the colour that resigned, if one did), ``recovering``: this side knows none of
    the plies played (its record was lost or set aside, D6), so the other side's transcript may
    bring plies of this side too, once; ``spare``: how many plies of this side the first
    transcript may bring beyond ``game`` (a side that has just started from the record: both
    sides write it, and the last writer's copy may be a ply behind the other's, D2)."""

    def __init__(self, colour: int, board: Shape, game: Optional[Game] = None, *,
                 resigned: Optional[int] = None, recovering: bool = False, spare: int = 0) -> None:
        self.colour = colour
        self.board = board
        self.game = game if game is not None else Game(board.size, board.start())
        self.resigned = resigned
        self.recovering = recovering and not self.game.moves
        self.spare = spare
        self.resign_ms: Optional[int] = None   # the time of the resigner's turn under way, counted (D7)
        self.clocks = Clocks()

    # -- what the game is now --------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def plies(self) -> int:
        return len(self.game.moves)

    @property
    def outcome(self) -> Optional[Outcome]:
        """How the game ended, or None while it goes on: the one definition of the end (G4)."""
        return Outcome.of(self.position, self.resigned)

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    def to_move(self) -> Optional[int]:
        """The colour to move, or None once the game has ended."""
        return None if self.ended else self.position.turn

    def my_turn(self) -> bool:
        return self.to_move() == self.colour

    def must_pass(self) -> bool:
        """This side is to move and has no legal move (G3)."""
        return self.my_turn() and self.position.must_pass()

    def transcript(self) -> str:
        """The plies so far with every pass written out (H2)."""
        return self.game.transcript(passes=True)

    # -- plies -----------------------------------------------------------------------------
    def judge(self, text: str, mover: int, n: Optional[int] = None) -> Verdict:
        """G2: may ``mover`` play ``text`` (a square name or ``pass``) as ply ``n`` (None: the
        classic form, the next ply)?  The checks in G2's order: the number, the turn, the square."""
        expected = self.plies + 1
        if n is not None and n < expected:
            return Verdict(duplicate=True)
        if n is not None and n > expected:
            return Verdict(reason=Reason.own("missing", n=n, expected=expected))
        # (a ply of the side that did not resign may still come after the resignation: the two
        # crossed, G6; it is applied as usual, so the two records stay alike)
        if self.position.is_game_over() or self.position.turn != mover or self.resigned == mover:
            return Verdict(reason=Reason.own("out_of_turn"))
        pos = self.position
        try:
            pos.play(text)
            return Verdict(square=notation.parse_square(text, pos.size))
        except IllegalMove as e:
            return Verdict(reason=Reason.illegal(e, text, pos.size))

    def play(self, square: int, ms: int, now: float) -> None:
        """The side to move plays ``square`` (judged already, ``judge``), having thought ``ms``
        milliseconds; its opponent's turn begins at ``now``."""
        mover = self.position.turn
        self.game.play(square)
        self.recovering, self.spare = False, 0
        self.clocks.add(mover, ms)
        self.clocks.start(now)

    def resign(self, colour: int, ms: Optional[int], now: float) -> bool:
        """``colour`` resigns; ``ms``: the time of its turn under way, counted when it is to move
        (D7: the resigner sends it, so both sides count the same).  False when the game had
        ended already (nothing changes)."""
        if self.ended:
            return False
        counted = ms is not None and self.position.turn == colour
        if counted:
            self.clocks.add(colour, ms or 0)
            self.clocks.start(now)
        self.resigned = colour
        self.resign_ms = ms if counted else None
        return True

    def leave(self, colour: int, ms: Optional[int], now: float) -> None:
        """``colour`` leaves the game unfinished (``bye``); ``ms``: the time of its turn under way,
        counted when it is to move (D7), and its turn counted again from ``now``.  On the other
        side's turn nothing changes: that side goes on thinking.  (A side says ``bye`` once a
        leaving: the session takes one until the leaver is back.)"""
        if not self.ended and self.position.turn == colour:
            if ms is not None:
                self.clocks.add(colour, ms)
            self.clocks.start(now)      # (its next turn counts from its return: ``Clocks.start``)

    # -- transcripts (H5) ------------------------------------------------------------------
    def adoption(self, theirs: Game) -> Adoption:
        """What ``adopt`` would do with ``theirs``; nothing changes."""
        ours = self.game.moves
        if theirs.moves[:len(ours)] != ours:
            if ours[:len(theirs.moves)] == theirs.moves:
                return Adoption()
            return Adoption(reason=Reason.own("records_differ"))
        if len(theirs.moves) == len(ours):
            return Adoption()
        if not self.recovering:
            spare = self.spare
            for i in range(len(ours), len(theirs.moves)):
                pos, move = theirs.positions[i], theirs.moves[i]
                if pos.turn == self.colour and not (move == PASS and pos.must_pass()):
                    if spare > 0:
                        spare -= 1
                        continue
                    square = notation.square_name(move, pos.size) if move != PASS else "pass"
                    return Adoption(reason=Reason.own("not_my_ply", colour=COLOURS[self.colour],
                                                      square=square, n=i + 1))
        return Adoption(taken=len(theirs.moves) - len(ours))

    def adopt(self, theirs: Game) -> Adoption:
        """The other side's transcript (replayed on this board): taken when it continues ours (its
        extra plies added), nothing when ours continues it, else the records differ.  A ply of
        this side's colour is never taken from it (only a forced pass is), unless this side
        ``recovering`` knows none of the game (then only the first transcript, which may be
        empty)."""
        verdict = self.adoption(theirs)
        if verdict.taken:
            self.game = theirs
        if verdict.reason is None:
            self.recovering, self.spare = False, 0     # (the first transcript taken: this side knows the game)
        return verdict


__all__ = ["BLACK", "WHITE", "Adoption", "Clocks", "Match", "Outcome", "Termination", "Verdict", "resigner"]
