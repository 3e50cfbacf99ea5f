"""How long each side has thought in this run, and how long the side to move has had its turn."""
import time
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass
class Clocks:
    turn_since: Optional[float] = None      # monotonic time the side to move got its turn (None: no game yet)
    used: Tuple[float, float] = (0.0, 0.0)  # seconds each colour thought in this run

    def start(self) -> None:
        """The game is on: the side to move has its turn from now."""
        self.turn_since = time.monotonic()

    def thinking(self) -> float:
        """Seconds since the side to move got its turn (0 before the game is on)."""
        return time.monotonic() - self.turn_since if self.turn_since is not None else 0.0

    def passed(self, mover: int, seconds: float) -> None:
        """A ply by ``mover`` that took ``seconds`` (its own figure, or measured here)."""
        used = list(self.used)
        used[mover] += max(0.0, seconds)
        self.used = (used[0], used[1])
        self.turn_since = time.monotonic()
