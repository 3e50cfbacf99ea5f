"""G7: messages in and out through trouble on the board: the folder gone (T1), a full disk (T2),
a disk or share that refuses writes (T5), a share disconnected (T4), another board in its place
(T6), this run replaced (I6).

A board operation that fails leaves its reason in ``board.problem``.  Each is told to the person
at once in its own words and handled here, in one place: a board away (``AWAY``) is waited for,
a board that refuses writes (``UNWRITABLE``) is written to again less and less often, both given
up after the patience (exit code 5); a replaced run stops (exit code 6).
"""
import logging
import time
from typing import Callable, NoReturn

import comm
from comm.text import visible

from .. import protocol
from ..garbage import Garbage
from ..protocol import NAME_LIMIT, Msg
from .leave import Leave
from .problems import AWAY, UNWRITABLE
from .recording import Keeper
from .state import State
from .telling import Teller

log = logging.getLogger("peer")

FIRST_PAUSE = 1.0           # T3: a failed send is tried again after 1 s, then 2, 4, 8, 16 s
LONGEST_PAUSE = 16.0
LOOK_EVERY = 0.5            # how often a gone board is looked at again


class Wire:
    """Sends and receives the game's messages (``State.board``).  While it waits, ``idle`` reads
    what the person types (``quit`` works; ``every``: all of it); each message read is preceded by
    ``rejected``, which reports what comm refused (H7)."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, *, idle: Callable[[bool], None],
                 rejected: Callable[[], None]) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.idle = idle
        self.rejected = rejected
        self.garbage = Garbage(tell.say)    # what comm set aside, told
        self._unwritable_since = 0.0        # when the board was first found refusing writes (monotonic)
        self._unwritable_last = 0.0         # when it was last found so

    def next_message(self, timeout: float) -> Msg | None:
        """The next message for this side (one read but not handled first), waiting up to
        ``timeout`` s; None when none came."""
        if self.st.pending:
            return self.st.pending.pop(0)
        m = self.st.board.wait(timeout=timeout)
        self.rejected()
        self.garbage.tell(*self.st.board.take_set_aside())
        self.tell.tell_noise()
        if m is None:
            self.check_board()     # G7: a gone board returns at once, a replaced run stops
            return None
        return self._as_msg(m)

    def send(self, body: str) -> None:
        """Send until delivered (nothing we decided to send is dropped), backing off in seconds;
        a person may quit meanwhile, a computer leaves after ``patience`` (exit code 5).  A board
        away is waited for (G7), a replaced run stops."""
        pause = FIRST_PAUSE
        told = None
        started = time.monotonic()
        while not self.st.board.send(self.st.other, body):
            problem = self.st.board.problem
            if problem in AWAY or problem == "replaced":
                self.check_board()
                continue
            if told != problem:
                told = problem
                if problem == "full":
                    self.tell.say("send_full", board=self.st.board.folder)
                elif problem in UNWRITABLE:
                    self.tell.say("send_blocked", cause=UNWRITABLE[problem], board=self.st.board.folder)
                else:
                    self.tell.say("send_retry", reason=self.st.board.last_error)
            if self.st.patience is not None and time.monotonic() - started > self.st.patience:
                if problem in UNWRITABLE:
                    self._say_unwritable_leave(problem, self.st.patience)
                else:
                    self.tell.say("send_leave", secs=int(self.st.patience), reason=self.st.board.last_error,
                                  **self._game_so_far())
                raise Leave(5)
            self._pause(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
        if told is not None:
            self.tell.say("sent_again")

    def _pause(self, secs: float) -> None:
        """Wait ``secs`` seconds, reading what the person types (``quit`` works)."""
        end = time.monotonic() + secs
        while True:
            self.idle(False)
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.1, left))

    def check_board(self) -> None:
        """After a board operation or read: act on a lasting problem (a board away, a replaced
        run, a board that refuses writes while we wait: T5)."""
        problem = self.st.board.problem
        if problem in AWAY:
            self._board_gone()
        elif problem == "replaced":
            self._replaced()
        elif problem in UNWRITABLE and problem != "full":   # (a full disk still lets us receive)
            self.board_unwritable(probe=False)

    def _say_unwritable_leave(self, problem: str, patience: float) -> None:
        if problem == "full":
            self.tell.say("full_leave", secs=int(patience), **self._game_so_far())
        else:
            self.tell.say("unwritable_leave", secs=int(patience), cause=UNWRITABLE[problem],
                          board=self.st.board.folder, **self._game_so_far())

    def board_unwritable(self, probe: bool = True, since: float | None = None) -> bool:
        """T2, T5: whether nothing can be written on the board (our own heartbeat, written now
        when ``probe``, tells).  Said once for each cause; after ``patience`` counted from
        ``since`` (None: from when it was first seen) we leave (exit code 5)."""
        if probe:
            self.st.board.beat()
        problem = self.st.board.problem
        if problem not in UNWRITABLE:
            return False
        now = time.monotonic()
        if self.st.full_told != problem or now - self._unwritable_last > 2 * LONGEST_PAUSE:
            self.st.full_told = problem        # (a new cause, or the same again after a good while)
            self._unwritable_since = now
            if problem == "full":
                self.tell.say("disk_full", board=self.st.board.folder, name=self.st.them.name)
            else:
                self.tell.say("board_unwritable", cause=UNWRITABLE[problem], board=self.st.board.folder)
        self._unwritable_last = now
        start = self._unwritable_since if since is None else since
        if self.st.patience is not None and now - start > self.st.patience:
            self._say_unwritable_leave(problem, self.st.patience)
            raise Leave(5)
        return True

    def _board_gone(self) -> None:
        """T1, T4, T6: the board folder went away, its share is disconnected, or another board
        is in its place.  Said at once in its own words; the game stays in memory; the folder is
        looked at again every half second, up to ``patience`` (None: until the person quits);
        when it is back the record is written again, else exit code 5.  Nothing is made or
        written there meanwhile (comm checks the board's identity before every write)."""
        kind = self.st.board.problem
        self.tell.say(AWAY[kind][0], board=self.st.board.folder)
        started = time.monotonic()
        while True:
            self._pause(LOOK_EVERY)
            m = self.st.board.receive()
            if self.st.board.problem == "replaced":
                self._replaced()
            if self.st.board.problem not in AWAY:
                break
            if self.st.board.problem != kind:
                kind = self.st.board.problem
                self.tell.say(AWAY[kind][0], board=self.st.board.folder)
            if self.st.patience is not None and time.monotonic() - started > self.st.patience:
                self.tell.say(AWAY[kind][1], secs=int(self.st.patience), board=self.st.board.folder,
                              **self._game_so_far())
                raise Leave(5)
        self.tell.say("board_back", board=self.st.board.folder)
        if m is not None:
            self.st.pending.append(self._as_msg(m))
        if self.st.game is not None:
            self.keeper.save()            # what was played meanwhile, or could not be written
            if self.st.save_failed is None:
                log.info("the game record was written again")

    def busy(self, e: comm.MemberBusy) -> None:
        """I6, P1: a run of our colour is alive on this board: who, where, and what to do."""
        self.tell.say("busy", colour=self.st.colour, pid=e.pid or "?", host=e.host or "?",
                      machine=e.machine, seen=e.seen)

    def _replaced(self) -> NoReturn:
        """I6: another run of our colour joined and took the name over: this run stops, sending
        nothing (its messages would be taken for the new run's)."""
        by = self.st.board.replaced_by
        self.tell.say("replaced", colour=self.st.colour, pid=visible(by.get("pid") or "?", 20),
                      host=visible(by.get("host") or "?", 64))
        self.st.sending_stopped = True
        raise Leave(6)

    def _game_so_far(self) -> dict[str, str]:
        if self.st.game is None:
            return {"moves": "-", "id": "-"}
        return {"moves": self.st.game_now.transcript(passes=True) or "-", "id": self.st.gid or "-"}

    def _as_msg(self, m: comm.Message) -> Msg:
        """A comm ``Message`` from the opponent as a parsed game message (``protocol.Msg``)."""
        if m.sender.lower() != self.st.other:
            log.info("ignored a message from %s", visible(m.sender, NAME_LIMIT))
            return protocol.Msg("junk", text="")
        msg = protocol.parse(m.body)
        msg.run = m.sender_run or ""
        msg.signed = m.signed
        if self.st.secret and m.signed:    # comm checked its MAC with our secret
            self.keeper.secret_shared()
        elif not self.st.secret and not m.signed:
            self.keeper.nobody_signs()
        return msg
