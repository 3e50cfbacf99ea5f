"""H7 H8: who sent a message (the opponent's member run, the bound run, a refused MAC)."""
import logging
from typing import TYPE_CHECKING

from comm.text import visible

from ..protocol import NAME_LIMIT, Msg
from .state import State

if TYPE_CHECKING:
    from .core import Session

log = logging.getLogger("peer")

SHOWN_PER_RUN = 5           # messages from a foreign run shown on screen (the rest only logged)


class Runs(State):
    """Mixed into ``Session``: the game is bound to one run of the opponent (``bound_run``)."""

    def _is_member_run(self: "Session", run: str) -> bool:
        """Is ``run`` the opponent's current run on the board (its ``member`` record)?"""
        try:
            current = self.board.member_run(self.other)
        except OSError as e:
            log.info("cannot read %s's member record (%s): taken as its run", self.other, e)
            return True     # a share's passing error is no news; a later greeting checks again
        return current is not None and current == run

    def _greeting_run(self: "Session", run: str) -> bool:
        """A message from ``run`` is part of a handshake: the first one, or the opponent's restart."""
        return (self.them.bound_run is None or run != self.them.bound_run) and self._is_member_run(run)

    def _check_rejected(self: "Session") -> None:
        """Messages comm refused (a missing or wrong MAC): reported, never applied (H7)."""
        for r in self.board.take_rejected():
            who = visible(r.sender, NAME_LIMIT)
            log.warning("refused a message claiming to be from %s (run %s, #%s): %s",
                        who, visible(r.sender_run, 40), r.seq, visible(r.reason))
            if r.sender.lower() != self.other:
                continue
            if self.secret and self.them.bound_run is None and self._greeting_run(r.sender_run):
                # The opponent itself (its current run) during the handshake: the secrets differ.
                # Once the game is bound, nobody can stop it this way: member records are not
                # signed, so "its current run" is only a claim (A6).
                if r.reason.startswith("no MAC"):
                    self._refuse_game("no_secret_there", other=self.other)
                if r.reason.startswith("wrong MAC"):
                    self._refuse_game("other_secret", other=self.other)
            self.say("mac_refused", name=who, reason=r.reason)

    def _other_run(self: "Session", msg: Msg) -> None:
        """A message from a run this game is not bound to: shown (a few), logged, not applied."""
        what = visible(msg.text, 80)
        log.warning("ignored %r from run %s of %s (the game is bound to run %s)",
                    what, visible(msg.run, 40), self.other, self.them.bound_run)
        n = self.them.foreign_shown.get(msg.run, 0)
        if n < SHOWN_PER_RUN:
            self.them.foreign_shown[msg.run] = n + 1
            self.say("other_run", what=what, colour=1 - self.colour)

    def _from_bound_run(self: "Session", msg: Msg) -> bool:
        """H8 during the game: True when ``msg`` may be applied.  A greeting from the opponent's
        new run is a restart (handled here); anything else from another run is not applied."""
        if self.them.bound_run is not None and msg.run != self.them.bound_run:
            if not self._is_member_run(msg.run):
                self._other_run(msg)
                return False
            # The opponent's current run, not the bound one: it restarted.
            if msg.kind == "hello":
                self._restart(msg)
                return False
            if msg.kind == "welcome" and self.role.takes_welcome:
                self._note_greeting(msg)
                self.role.greeting(self, msg, strict=True)
                return False
            if self.mode != "classic":
                self._other_run(msg)
                return False
            self._classic_started_again(msg.run)      # (its move is judged in the new game)
        elif self.them.bound_run is None and self.mode == "classic":
            if not self._is_member_run(msg.run):
                self._other_run(msg)
                return False
            self.them.bound_run = msg.run
        return True
