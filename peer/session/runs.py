"""H7 H8 H9: the opponent's runs on the board: which one is its current run (its ``member``
record), whether it has ended, and whether it speaks control lines.

A classic program (the tutorial's: ``Init``, ``Quiet``, bare coordinates through ``Talk``)
takes whatever it receives for the opponent's move: a control line would eat one of its
``Talk`` calls.  So a control line goes only to an opponent that has shown that it speaks them
(H9): by a greeting from its current run, or by its ``alive`` record carrying that run and a
non-empty ``state`` (P2; comm beats an empty state for every member, game peers set one).
"""
import logging
from typing import Optional

from comm.text import visible

from ..protocol import Msg
from .state import State
from .telling import Teller

log = logging.getLogger("peer")

SHOWN_PER_RUN = 5           # messages from a foreign run shown on screen (the rest only logged)


class Runs:
    """What the board shows of the opponent's runs (the game is bound to one: ``them.bound_run``)."""

    def __init__(self, st: State, tell: Teller) -> None:
        self.st = st
        self.tell = tell

    def shown(self) -> bool:
        """Whether the opponent's current run has shown that it speaks control lines (H9)."""
        try:
            run = self.st.board.member_run(self.st.other)
        except OSError:
            return False
        if run is None:
            return False
        if run in self.st.them.greeted_runs:
            return True
        rec = self.st.board.alive(self.st.other) or {}
        return rec.get("run") == run and bool(rec.get("state", "").strip())

    def note_greeting(self, msg: Msg) -> None:
        """A greeting (even one refused) shows that its run speaks control lines."""
        self.st.them.greeted_runs.add(msg.run)

    def member_joined(self) -> bool:
        """The opponent has joined and has not left (a run that ended is not waited for, H6)."""
        try:
            run = self.st.board.member_run(self.st.other)
            return run is not None and not self._run_ended(run)
        except OSError:
            return False

    def member_run(self) -> Optional[str]:
        try:
            return self.st.board.member_run(self.st.other)
        except OSError:
            return None

    def _run_ended(self, run: str) -> bool:
        """Whether the opponent's current ``run`` is known to have ended (I6).  A run whose process
        runs here but that no ``alive`` record was seen naming either closed at once or is a
        program that keeps none and wrongly names this computer in its member record (I1a): the
        second is said once (what is wrong with its record), and both are taken as ended."""
        alive = self.st.board.alive(self.st.other) or {}
        if alive.get("run") == run:
            self.st.them.alive_runs.add(run)
        how = self.st.board.left_how(self.st.other)
        if how == "closed" and run not in self.st.them.alive_runs and run not in self.st.them.no_alive_told:
            self.st.them.no_alive_told.add(run)
            self.tell.say("no_alive_record", colour=1 - self.st.colour)
        return bool(how)

    def came_and_went(self, before: Optional[str], seen: bool) -> Optional[str]:
        """The run of the opponent that joined and has left since the handshake began (one that
        joined after it began, or that it saw joined), or None.  A run that was on the board before
        and had ended (an earlier game's) is not one: an opponent not yet come is waited for."""
        run = self.member_run()
        if run is None or not (seen or run != before):
            return None
        try:
            return run if self._run_ended(run) else None
        except OSError:
            return None

    def is_member_run(self, run: str) -> bool:
        """Is ``run`` the opponent's current run on the board (its ``member`` record)?"""
        try:
            current = self.st.board.member_run(self.st.other)
        except OSError as e:
            log.info("cannot read %s's member record (%s): taken as its run", self.st.other, e)
            return True     # a share's passing error is no news; a later greeting checks again
        return current is not None and current == run

    def greeting_run(self, run: str) -> bool:
        """A message from ``run`` is part of a handshake: the first one, or the opponent's restart."""
        return (self.st.them.bound_run is None or run != self.st.them.bound_run) and self.is_member_run(run)

    def other_run(self, msg: Msg) -> None:
        """A message from a run this game is not bound to: shown (a few), logged, not applied."""
        what = visible(msg.text, 80)
        log.warning("ignored %r from run %s of %s (the game is bound to run %s)",
                    what, visible(msg.run, 40), self.st.other, self.st.them.bound_run)
        n = self.st.them.foreign_shown.get(msg.run, 0)
        if n < SHOWN_PER_RUN:
            self.st.them.foreign_shown[msg.run] = n + 1
            self.tell.say("other_run", what=what, colour=1 - self.st.colour)
