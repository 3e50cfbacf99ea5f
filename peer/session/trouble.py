"""G7: trouble on the board: the folder gone (T1), a full disk (T2), this run replaced (I6).

A board operation that fails leaves its reason in ``board.problem``: ``gone`` (the folder or
its marker missing, a share unmounted), ``full`` (no space), ``replaced`` (another run took
our name).  Each is told to the person at once and handled here, in one place.
"""
import logging
import time

from comm.text import visible

from .. import protocol
from ..protocol import NAME_LIMIT
from .leave import Leave

log = logging.getLogger("peer")

FIRST_PAUSE = 1.0           # T3: a failed send is tried again after 1 s, then 2, 4, 8, 16 s
LONGEST_PAUSE = 16.0
LOOK_EVERY = 0.5            # how often a gone board is looked at again


class Trouble:
    """Mixed into ``Session``: sending through trouble, and what a lasting problem means."""

    def send(self, body):
        """Send until delivered (nothing we decided to send is dropped), backing off in seconds;
        a person may quit meanwhile, a computer leaves after ``patience`` (exit code 5).  A gone
        board is waited for (G7), a replaced run stops."""
        pause = FIRST_PAUSE
        told = None
        started = time.monotonic()
        while not self.board.send(self.other, body):
            problem = self.board.problem
            if problem in ("gone", "replaced"):
                self._check_board()
                continue
            if told != problem:
                told = problem
                key = "send_full" if problem == "full" else "send_retry"
                self.say(key, reason=self.board.last_error, board=self.board.folder)
            if self.patience is not None and time.monotonic() - started > self.patience:
                if problem == "full":
                    self.say("full_leave", secs=int(self.patience), **self._game_so_far())
                else:
                    self.say("send_leave", secs=int(self.patience), reason=self.board.last_error,
                             **self._game_so_far())
                raise Leave(5)
            self._pause(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
        if told is not None:
            self.say("sent_again")

    def _pause(self, secs):
        """Wait ``secs`` seconds, reading what the person types (``quit`` works)."""
        end = time.monotonic() + secs
        while True:
            self._check_input_only()
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.1, left))

    def _check_board(self):
        """After a board operation or read: act on a lasting problem (a gone board, a replaced run)."""
        problem = self.board.problem
        if problem == "gone":
            self._board_gone()
        elif problem == "replaced":
            self._replaced()

    def _board_gone(self):
        """T1: the board folder went away.  Said at once; the game stays in memory; the folder is
        looked at again every half second, up to ``patience`` (None: until the person quits);
        when it is back the record is written again, else exit code 5.  Nothing is made there."""
        self.say("board_gone", board=self.board.folder)
        started = time.monotonic()
        while True:
            self._pause(LOOK_EVERY)
            m = self.board.receive()
            if self.board.problem == "replaced":
                self._replaced()
            if self.board.problem != "gone":
                break
            if self.patience is not None and time.monotonic() - started > self.patience:
                self.say("board_gone_leave", secs=int(self.patience), **self._game_so_far())
                raise Leave(5)
        self.say("board_back", board=self.board.folder)
        if m is not None:
            self.pending.append(self._as_msg(m))
        if self.game is not None:
            self._save()            # what was played meanwhile, or could not be written
            if self.save_failed is None:
                log.info("the game record was written again")

    def _busy(self, e):
        """I6, P1: a run of our colour is alive on this board: who, where, and what to do."""
        seen = self.screen.t("busy_here") if e.seen is None else self.screen.t("busy_seen", secs=f"{e.seen:.0f}")
        machine = self.screen.t("busy_machine", m=e.machine) if e.machine else ""
        self.say("busy", colour=self.screen.colour_name(self.colour), pid=e.pid or "?", host=e.host or "?",
                 machine=machine, seen=seen)

    def _replaced(self):
        """I6: another run of our colour joined and took the name over: this run stops, sending
        nothing (its messages would be taken for the new run's)."""
        self.say("replaced", colour=self.screen.colour_name(self.colour), reason=self.board.last_error)
        self.sending_stopped = True
        raise Leave(6)

    def _game_so_far(self):
        if self.game is None:
            return {"moves": "-", "id": "-"}
        return {"moves": self.game.transcript(passes=True) or "-", "id": self.gid}

    def _as_msg(self, m):
        """A comm ``Message`` from the opponent as a parsed game message (``protocol.Msg``)."""
        if m.sender.lower() != self.other:
            log.info("ignored a message from %s", visible(m.sender, NAME_LIMIT))
            return protocol.Msg("junk", text="")
        msg = protocol.parse(m.body)
        msg.run = m.sender_run or ""
        msg.signed = m.signed
        return msg
