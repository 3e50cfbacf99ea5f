"""G7: trouble on the board: the folder gone (T1), a full disk (T2), a disk or share that refuses
writes (T5), a share disconnected (T4), another board in its place (T6), this run replaced (I6).

A board operation that fails leaves its reason in ``board.problem``.  Each is told to the person
at once in its own words and handled here, in one place: a board away (``AWAY``) is waited for,
a board that refuses writes (``UNWRITABLE``) is written to again less and less often, both given
up after the patience (exit code 5); a replaced run stops (exit code 6).
"""
import logging
import time
from typing import TYPE_CHECKING, NoReturn

import comm
from comm.text import visible

from .. import protocol
from ..protocol import NAME_LIMIT, Msg
from .leave import Leave
from .state import State

if TYPE_CHECKING:
    from .core import Session

log = logging.getLogger("peer")

FIRST_PAUSE = 1.0           # T3: a failed send is tried again after 1 s, then 2, 4, 8, 16 s
LONGEST_PAUSE = 16.0
LOOK_EVERY = 0.5            # how often a gone board is looked at again

# the board cannot be used at all (T1, T4, T6): waited for, looked at again every LOOK_EVERY s;
# with the texts that say it and that leave
AWAY = {"gone": ("board_gone", "board_gone_leave"),
        "disconnected": ("board_disconnected", "board_gone_leave"),
        "swapped": ("board_swapped", "board_swapped_leave")}
# nothing can be written on the board (T2, T5): what was not sent is sent again, backing off;
# the words for the cause ("full" has texts of its own)
UNWRITABLE = {"full": None, "readonly": "cause_readonly", "denied": "cause_denied", "io": "cause_io"}


class Trouble(State):
    """Mixed into ``Session``: sending through trouble, and what a lasting problem means."""

    _unwritable_since = 0.0     # when the board was first found refusing writes (monotonic)
    _unwritable_last = 0.0      # when it was last found so

    def send(self: "Session", body: str) -> None:
        """Send until delivered (nothing we decided to send is dropped), backing off in seconds;
        a person may quit meanwhile, a computer leaves after ``patience`` (exit code 5).  A board
        away is waited for (G7), a replaced run stops."""
        pause = FIRST_PAUSE
        told = None
        started = time.monotonic()
        while not self.board.send(self.other, body):
            problem = self.board.problem
            if problem in AWAY or problem == "replaced":
                self._check_board()
                continue
            if told != problem:
                told = problem
                if problem == "full":
                    self.say("send_full", board=self.board.folder)
                elif problem in UNWRITABLE:
                    self.say("send_blocked", cause=UNWRITABLE[problem], board=self.board.folder)
                else:
                    self.say("send_retry", reason=self.board.last_error)
            if self.patience is not None and time.monotonic() - started > self.patience:
                if problem in UNWRITABLE:
                    self._say_unwritable_leave(problem, self.patience)
                else:
                    self.say("send_leave", secs=int(self.patience), reason=self.board.last_error,
                             **self._game_so_far())
                raise Leave(5)
            self._pause(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
        if told is not None:
            self.say("sent_again")

    def _pause(self: "Session", secs: float) -> None:
        """Wait ``secs`` seconds, reading what the person types (``quit`` works)."""
        end = time.monotonic() + secs
        while True:
            self._check_input_only()
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.1, left))

    def _check_board(self: "Session") -> None:
        """After a board operation or read: act on a lasting problem (a board away, a replaced
        run, a board that refuses writes while we wait: T5)."""
        problem = self.board.problem
        if problem in AWAY:
            self._board_gone()
        elif problem == "replaced":
            self._replaced()
        elif problem in UNWRITABLE and problem != "full":   # (a full disk still lets us receive)
            self._board_unwritable(probe=False)

    def _say_unwritable_leave(self: "Session", problem: str, patience: float) -> None:
        if problem == "full":
            self.say("full_leave", secs=int(patience), **self._game_so_far())
        else:
            self.say("unwritable_leave", secs=int(patience), cause=UNWRITABLE[problem],
                     board=self.board.folder, **self._game_so_far())

    def _board_unwritable(self: "Session", probe: bool = True, since: float | None = None) -> bool:
        """T2, T5: whether nothing can be written on the board (our own heartbeat, written now
        when ``probe``, tells).  Said once for each cause; after ``patience`` counted from
        ``since`` (None: from when it was first seen) we leave (exit code 5)."""
        if probe:
            self.board.beat()
        problem = self.board.problem
        if problem not in UNWRITABLE:
            return False
        now = time.monotonic()
        if self.full_told != problem or now - self._unwritable_last > 2 * LONGEST_PAUSE:
            self.full_told = problem        # (a new cause, or the same again after a good while)
            self._unwritable_since = now
            if problem == "full":
                self.say("disk_full", board=self.board.folder, name=self.them.name)
            else:
                self.say("board_unwritable", cause=UNWRITABLE[problem], board=self.board.folder)
        self._unwritable_last = now
        start = self._unwritable_since if since is None else since
        if self.patience is not None and now - start > self.patience:
            self._say_unwritable_leave(problem, self.patience)
            raise Leave(5)
        return True

    def _board_gone(self: "Session") -> None:
        """T1, T4, T6: the board folder went away, its share is disconnected, or another board
        is in its place.  Said at once in its own words; the game stays in memory; the folder is
        looked at again every half second, up to ``patience`` (None: until the person quits);
        when it is back the record is written again, else exit code 5.  Nothing is made or
        written there meanwhile (comm checks the board's identity before every write)."""
        kind = self.board.problem
        self.say(AWAY[kind][0], board=self.board.folder)
        started = time.monotonic()
        while True:
            self._pause(LOOK_EVERY)
            m = self.board.receive()
            if self.board.problem == "replaced":
                self._replaced()
            if self.board.problem not in AWAY:
                break
            if self.board.problem != kind:
                kind = self.board.problem
                self.say(AWAY[kind][0], board=self.board.folder)
            if self.patience is not None and time.monotonic() - started > self.patience:
                self.say(AWAY[kind][1], secs=int(self.patience), board=self.board.folder, **self._game_so_far())
                raise Leave(5)
        self.say("board_back", board=self.board.folder)
        if m is not None:
            self.pending.append(self._as_msg(m))
        if self.game is not None:
            self._save()            # what was played meanwhile, or could not be written
            if self.save_failed is None:
                log.info("the game record was written again")

    def _busy(self: "Session", e: comm.MemberBusy) -> None:
        """I6, P1: a run of our colour is alive on this board: who, where, and what to do."""
        self.say("busy", colour=self.colour, pid=e.pid or "?", host=e.host or "?",
                 machine=e.machine, seen=e.seen)

    def _replaced(self: "Session") -> NoReturn:
        """I6: another run of our colour joined and took the name over: this run stops, sending
        nothing (its messages would be taken for the new run's)."""
        by = self.board.replaced_by
        self.say("replaced", colour=self.colour, pid=visible(by.get("pid") or "?", 20),
                 host=visible(by.get("host") or "?", 64))
        self.sending_stopped = True
        raise Leave(6)

    def _game_so_far(self: "Session") -> dict[str, str]:
        if self.game is None:
            return {"moves": "-", "id": "-"}
        return {"moves": self.game_now.transcript(passes=True) or "-", "id": self.gid or "-"}

    def _as_msg(self: "Session", m: comm.Message) -> Msg:
        """A comm ``Message`` from the opponent as a parsed game message (``protocol.Msg``)."""
        if m.sender.lower() != self.other:
            log.info("ignored a message from %s", visible(m.sender, NAME_LIMIT))
            return protocol.Msg("junk", text="")
        msg = protocol.parse(m.body)
        msg.run = m.sender_run or ""
        msg.signed = m.signed
        if self.secret and m.signed:    # comm checked its MAC with our secret
            self._secret_shared()
        elif not self.secret and not m.signed:
            self._nobody_signs()
        return msg
