"""P2 Presence: our ``alive`` record, and the opponent's signs of life (gone, back, patience)."""
import time

from .leave import Leave


class Presence:
    """Mixed into ``Session``: writes our ``alive`` record, judges the opponent's."""

    def _presence_loop(self):
        while not self.stop.wait(1.0):
            mine = self.game is not None and self.game.position.turn == self.colour
            self.board.beat("thinking" if mine else "waiting")

    def _check_presence(self):
        """About once a second: is the opponent still there?  Leaves (code 4) after ``patience``."""
        self._follow_classic_run()
        rec = self.board.alive(self.other)
        if rec is None:
            return          # a classic program has no alive record: never judged gone
        now = time.monotonic()
        key = (rec.get("run"), rec.get("beat"))
        if self.alive_seen is None or self.alive_seen[0] != key:
            if self.gone:
                self.gone = False
                self.say("back", name=self.their_name)
            self.alive_seen = (key, now)
        elif not self.gone and now - self.alive_seen[1] > self.gone_after:
            self.gone = True
            self.say("gone", name=self.their_name, secs=int(self.gone_after))
        if self.gone and self.patience is not None and now - self.alive_seen[1] > self.patience:
            self.say("giving_up_wait", name=self.their_name, secs=int(self.patience))
            raise Leave(4)

    def _their_state(self):
        """The opponent's state for the status line: a ``texts`` key, or None."""
        if self.gone:
            return "gone_state"
        rec = self.board.alive(self.other)
        return {"thinking": "thinking", "waiting": "waiting"}.get((rec or {}).get("state"))
