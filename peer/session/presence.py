"""P2 Presence: our ``alive`` state, and the opponent's signs of life (gone, back, left, patience)."""
import time

from .classic import Classic
from .leave import Leave
from .state import State
from .telling import Teller
from .trouble import Wire

SILENT_AFTER = 60.0     # s an opponent without a heartbeat may think before this side says it cannot be judged


class Presence:
    """Writes our ``alive`` state, judges the opponent's."""

    def __init__(self, st: State, tell: Teller, wire: Wire, classic: Classic) -> None:
        self.st = st
        self.tell = tell
        self.wire = wire
        self.classic = classic
        # (plies, since when) while a peer without a heartbeat is to move
        self._silent: tuple[int, float] | None = None
        self._silent_told = -1                          # the ply at which its silence was said

    def check_left(self) -> None:
        """G5: an opponent that said ``bye`` is waited for ``patience`` seconds (exit code 4)."""
        them, patience = self.st.them, self.st.patience
        if them.left_at and patience is not None and time.monotonic() - them.left_at > patience:
            self.tell.say("giving_up_wait", name=them.name, secs=int(patience))
            raise Leave(4)

    def presence_loop(self) -> None:
        """Our state (P2) as it changes; comm beats the record itself every second (I6)."""
        told = None
        while not self.st.stop.wait(0.2):
            match = self.st.match     # (read once: the main thread may replace it)
            mine = match is not None and self.st.mode is not None and match.my_turn()
            state = "thinking" if mine else "waiting"
            if state != told:
                told = state
                self.st.board.beat(state)

    def check_presence(self) -> None:
        """About once a second: is the opponent still there?  Leaves (code 4) after ``patience``."""
        self.classic.follow_classic_run()
        rec = self.st.board.alive(self.st.other)
        self.wire.check_board()     # G7: a read that found the board gone
        now = time.monotonic()
        if rec is None:
            if self.st.them.alive_seen is None:
                self._check_silent()    # a program written without I6 has no alive record: never judged gone
                return
            key = self.st.them.alive_seen[0]    # G5: one that disappeared shows no more life (a run that closed)
        else:
            key = (rec.get("run"), rec.get("beat"))
        if self.st.them.alive_seen is None or self.st.them.alive_seen[0] != key:
            if self.st.them.gone:
                self.st.them.gone = False
                self.tell.say("back", name=self.st.them.name)
            self.st.full_told = False
            self.st.them.alive_seen = (key, now)
        elif not self.st.them.gone and not self.st.them.left_at and now - self.st.them.alive_seen[1] > self.st.gone_after:
            # (one that said bye, G5, has left: not "gone"; check_left waits for it)
            if self._disk_full():
                return      # nobody can write on the board: not the opponent's fault
            self.st.them.gone = True
            self.tell.say("gone", name=self.st.them.name, secs=int(self.st.gone_after))
        if self.st.them.gone and self.st.patience is not None and now - self.st.them.alive_seen[1] > self.st.patience:
            self.tell.say("giving_up_wait", name=self.st.them.name, secs=int(self.st.patience))
            raise Leave(4)

    def _check_silent(self) -> None:
        """An opponent without a heartbeat (a minimal peer, PR2) that has not moved for
        ``SILENT_AFTER`` s: said once a move, since it cannot be judged gone; we go on waiting."""
        game = self.st.game
        if game is None or self.st.mode is None or game.position.turn == self.st.colour or game.position.is_game_over():
            self._silent = None
            return
        now, plies = time.monotonic(), len(game.moves)
        if self._silent is None or self._silent[0] != plies:
            self._silent = (plies, now)
        elif self._silent_told != plies and now - self._silent[1] > SILENT_AFTER:
            self._silent_told = plies
            self.tell.say("silent", name=self.st.them.name, secs=int(SILENT_AFTER))

    def _disk_full(self) -> bool:
        """T2, T5: a silent opponent on a full (or read-only...) disk cannot write its heartbeat, nor
        can we: our own heartbeat, written now, tells (``Wire.board_unwritable``)."""
        seen = self.st.them.alive_seen
        return self.wire.board_unwritable(since=seen[1] if seen is not None else None)
