"""What the face is told (``peer.events.Event``: raw fields, never words), within what the board
may put on a screen a minute (``peer.garbage.Noise``)."""
import logging
import time
from typing import Any

from ..events import Event
from ..garbage import Noise
from .state import State
from .view import view

log = logging.getLogger("peer")


class Teller:
    """Tells the face (``State.screen``) what happens, and draws the board."""

    def __init__(self, st: State) -> None:
        self.st = st
        self.noise = Noise()

    def say(self, what: str, /, **fields: Any) -> None:
        """Tell the face that ``what`` happened (an ``Event``: raw fields, the face's words)."""
        # (how this side is left, for the texts that say it: a computer side reads no commands)
        human, reads = self.st.player.kind == "human", self.st.player.lines is not None
        fields["leave_by"] = "human" if human else "terminal" if reads else "computer"
        if not self.noise.allow(what, time.monotonic()):
            log.info("not shown (too many from the board this minute): %s", what)
            return
        self.st.screen.tell(Event(what, fields))

    def tell_noise(self) -> None:
        """The count of what the board sent and the screen was spared, once a minute (``Noise``)."""
        n = self.noise.due(time.monotonic())
        if n:
            self.st.screen.tell(Event("noise_more", {"n": n}))

    def show(self) -> None:
        """Tell the face to draw the board as it is now."""
        self.st.screen.tell(Event("board", {"view": view(self.st)}))
        self.st.prompted = False
