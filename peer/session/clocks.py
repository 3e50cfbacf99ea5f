"""How long each side has thought in this game, and how long the side to move has had its turn.

The time used is counted in whole milliseconds, the unit of a move's ``t=`` (P3): each side adds
the same figures (its own, as it sends them; the opponent's, as they arrive), so the two sides
agree to the millisecond, and a count written to the board (D7) is read back exactly.
"""
import time
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass
class Clocks:
    turn_since: Optional[float] = None      # monotonic time the side to move got its turn (None: no game yet)
    ms: Tuple[int, int] = (0, 0)            # milliseconds each colour thought in this game (D7: across restarts)

    @property
    def used(self) -> Tuple[float, float]:
        """Seconds each colour thought in this game."""
        return self.ms[0] / 1000, self.ms[1] / 1000

    def start(self) -> None:
        """The game is on: the side to move has its turn from now."""
        self.turn_since = time.monotonic()

    def thinking(self) -> float:
        """Seconds since the side to move got its turn (0 before the game is on)."""
        return time.monotonic() - self.turn_since if self.turn_since is not None else 0.0

    def thinking_ms(self) -> int:
        """``thinking()`` in whole milliseconds (what a move's ``t=`` says, P3)."""
        return int(self.thinking() * 1000)

    def passed(self, mover: int, ms: int) -> None:
        """A ply by ``mover`` that took ``ms`` milliseconds (its own figure, or measured here)."""
        self.set(mover, self.ms[mover] + max(0, ms))
        self.turn_since = time.monotonic()

    def set(self, colour: int, ms: int) -> None:
        """``colour`` has used ``ms`` milliseconds in this game so far (D7: a count kept across a
        restart, ours from the board, the opponent's from its greeting)."""
        both = list(self.ms)
        both[colour] = max(0, ms)
        self.ms = (both[0], both[1])
