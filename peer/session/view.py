"""``Session.view()``: the session now as a face draws it (``peer.view.View``)."""
import time
from typing import TYPE_CHECKING

from comm.text import visible

from ..protocol import NAME_LIMIT
from ..view import Side, View, played
from .state import State

if TYPE_CHECKING:
    from .core import Session


class Viewing(State):
    """Mixed into ``Session``: the snapshot faces draw."""

    def view(self: "Session") -> View:
        """The session now, for a face (safe to call from another thread)."""
        match = self.match      # (read once: the main thread may replace it)
        game = match.game if match is not None else None
        outcome = match.outcome if match is not None else None
        now = time.monotonic()
        moves, pos, flipped = played(game) if game is not None and self.mode is not None else ((), None, 0)
        sides: list[Side] = []
        mine_kind, clock = self.player.kind, self.player.clock
        clocks = match.clocks if match is not None else None
        turn_since = clocks.turn_since if clocks is not None else None
        since = now - turn_since if turn_since is not None else None
        on_turn = match.to_move() if match is not None and pos is not None else None
        for colour in (0, 1):
            me = colour == self.colour
            name = self.my_name if me else self.them.name
            state, secs = "waiting", None
            if on_turn == colour:
                state, secs = "thinking", since
            if not me:
                if pos is None and not self.them.joined:
                    state, secs = "absent", None
                elif self.them.gone and self.them.alive_seen is not None:
                    state, secs = "gone", now - self.them.alive_seen[1]
                elif self.them.left_at:
                    state, secs = "left", now - self.them.left_at
            sides.append(Side(
                name=visible(name, NAME_LIMIT), kind=mine_kind if me else self.them.kind, me=me, state=state,
                since=secs, used=clocks.used[colour] if clocks is not None else 0.0,
                left=clock.left if me and clock is not None else None,
                per_move=clock.per_move if me and clock is not None and clock.left is None else None))
        gid, ply, hints = self.hints
        return View(colour=self.colour, size=self.size or 8, position=pos, moves=moves,
                    flipped=flipped, sides=(sides[0], sides[1]),
                    show_legal=on_turn == self.colour and mine_kind == "human",
                    result=outcome.result if outcome is not None and pos is not None else "",
                    hints=hints if pos is not None and (gid, ply) == (self.gid, len(moves)) else ())
