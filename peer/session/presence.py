"""P2 Presence: our ``alive`` record, and the opponent's signs of life (gone, back, patience)."""
import time
from typing import TYPE_CHECKING

from .leave import Leave
from .state import State

SILENT_AFTER = 60.0     # s an opponent without a heartbeat may think before this side says it cannot be judged

if TYPE_CHECKING:
    from .core import Session


class Presence(State):
    """Mixed into ``Session``: writes our ``alive`` record, judges the opponent's."""

    _silent: tuple[int, float] | None = None    # (plies, since when) while a peer without a heartbeat is to move
    _silent_told = -1                           # the ply at which its silence was said

    def _presence_loop(self: "Session") -> None:
        """Our state (P2) as it changes; comm beats the record itself every second (I6)."""
        told = None
        while not self.stop.wait(0.2):
            match = self.match     # (read once: the main thread may replace it)
            mine = match is not None and self.mode is not None and match.my_turn()
            state = "thinking" if mine else "waiting"
            if state != told:
                told = state
                self.board.beat(state)

    def _check_presence(self: "Session") -> None:
        """About once a second: is the opponent still there?  Leaves (code 4) after ``patience``."""
        self._follow_classic_run()
        rec = self.board.alive(self.other)
        self._check_board()     # G7: a read that found the board gone
        now = time.monotonic()
        if rec is None:
            if self.them.alive_seen is None:
                self._check_silent()    # a program written without I6 has no alive record: never judged gone
                return
            key = self.them.alive_seen[0]    # G5: one that disappeared shows no more life (a run that closed)
        else:
            key = (rec.get("run"), rec.get("beat"))
        if self.them.alive_seen is None or self.them.alive_seen[0] != key:
            if self.them.gone:
                self.them.gone = False
                self.say("back", name=self.them.name)
            self.full_told = False
            self.them.alive_seen = (key, now)
        elif not self.them.gone and not self.them.left_at and now - self.them.alive_seen[1] > self.gone_after:
            # (one that said bye, G5, has left: not "gone"; _check_left waits for it)
            if self._disk_full():
                return      # nobody can write on the board: not the opponent's fault
            self.them.gone = True
            self.say("gone", name=self.them.name, secs=int(self.gone_after))
        if self.them.gone and self.patience is not None and now - self.them.alive_seen[1] > self.patience:
            self.say("giving_up_wait", name=self.them.name, secs=int(self.patience))
            raise Leave(4)

    def _check_silent(self: "Session") -> None:
        """An opponent without a heartbeat (a minimal peer, PR2) that has not moved for
        ``SILENT_AFTER`` s: said once a move, since it cannot be judged gone; we go on waiting."""
        game = self.game
        if game is None or self.mode is None or game.position.turn == self.colour or game.position.is_game_over():
            self._silent = None
            return
        now, plies = time.monotonic(), len(game.moves)
        if self._silent is None or self._silent[0] != plies:
            self._silent = (plies, now)
        elif self._silent_told != plies and now - self._silent[1] > SILENT_AFTER:
            self._silent_told = plies
            self.say("silent", name=self.them.name, secs=int(SILENT_AFTER))

    def _disk_full(self: "Session") -> bool:
        """T2, T5: a silent opponent on a full (or read-only...) disk cannot write its heartbeat, nor
        can we: our own heartbeat, written now, tells (``Trouble._board_unwritable``)."""
        seen = self.them.alive_seen
        return self._board_unwritable(since=seen[1] if seen is not None else None)
