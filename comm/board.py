"""A message board: named mailboxes in one shared folder, one lock over all of them.

Folder layout (see docs/PROTOCOL.md for the full specification)::

    BOARD/cardstand.board          marker: "cardstand-board 1"
    BOARD/cardstand.id             the board's identity, written once (F2b)
    BOARD/lock/                    the lease, present while someone holds it
    BOARD/box/<name>/member        who is reading this mailbox now (its run id)
    BOARD/box/<name>/head          last sequence number delivered here
    BOARD/box/<name>/tail          last sequence number consumed here
    BOARD/box/<name>/<seq>.msg     one waiting message, 12-digit sequence number
    BOARD/tmp/                     scratch files, renamed into place when complete
    BOARD/trash/                   damaged or foreign files moved out of the way

The parts of ``Board``, one concern each: the message format (message.py), the member's state
and failures (member.py), the mailbox (mailbox.py), joining, presence and leaving
(membership.py, heartbeat.py), clean-up (cleanup.py).  This module holds the API.
"""
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from .errors import BoardError, MemberBusy, Replaced
from .lease import LockTimeout
from .member import IDENTITY_EVERY, MAX_UNREAD
from .membership import CLOSE_WAIT, Membership
from .message import (MAX_BODY, VERSION, InvalidArgument, Message, Rejected, SecretProblem, check_name, encode_body,
                      frame, is_device_name, load_secret, mac, member_mac, msg_name, unframe)

__all__ = ["Board", "BoardError", "MemberBusy", "Replaced", "InvalidArgument", "SecretProblem", "Message", "Rejected",
           "TalkResult", "RECEIVED", "SENT", "FAILED", "NOTHING", "MAX_BODY", "MAX_UNREAD", "VERSION",
           "CLOSE_WAIT", "check_name", "is_device_name", "load_secret", "frame", "unframe", "mac",
           "member_mac", "msg_name"]

RECEIVED, SENT, FAILED, NOTHING = 2, 1, 0, -1


class TalkResult(NamedTuple):
    result: int
    sender: str
    body: str


QUIETED_KEPT = 16       # messages ``quiet`` keeps for its caller to look at (the rest only counted)


class Board(Membership):
    """One member's view of a board folder.

    >>> with Board("cardstand", "alice") as me:       # joins (Init) on entry
    ...     me.talk("bob", "hello")                   # doctest: +SKIP
    TalkResult(result=1, sender='', body='')

    With ``secret`` (bytes or str, see ``load_secret``) every message sent carries a MAC
    and every message received must carry the right one: others are refused (moved to
    ``trash/``, logged, listed by ``take_rejected``) and never returned.

    Everything set aside into ``trash/`` (damaged or refused messages, a link or a file where a
    folder belongs...) is logged and listed by ``take_set_aside`` (``comm.aside``), for a program
    that shows a person what happened.

    Failures that can happen in normal use (lock busy, recipient absent,
    share unreachable, disk full) return a failure value and set ``last_error``
    (a sentence for people) and ``problem`` (a short code for programs);
    invalid arguments raise ``InvalidArgument``.  ``problem`` is one of:

    * ``"gone"``: the board folder or its marker is missing or unreachable (deleted, or a
      share no longer mounted).  comm never creates it again (only ``join`` does); operations
      work again when it comes back.  ``wait`` returns None at once.
    * ``"disconnected"``: the share holding the board is disconnected or stale (ENOTCONN,
      ESTALE, EHOSTDOWN...: its server or mount program went away).  As "gone".
    * ``"swapped"``: the folder at the board's path is not the board joined (another identity,
      F2b: swapped or replaced).  Nothing is written there; as "gone" (``wait`` returns at
      once), and operations work again if the board joined comes back.
    * ``"full"``: no space left on the board's disk.  Receiving still works (it needs no
      space); retry sending with a growing pause (seconds, not milliseconds) or tell the user.
    * ``"readonly"``, ``"denied"``, ``"io"``: the board's disk or share was made read-only,
      permission to write there was taken away, or it reports input/output errors.  Nothing
      can be written; retry as for "full", or tell the user.
    * ``"replaced"``: another run has taken this member's name: this run must stop.
    * ``"locked"``: the lock was not obtained in time (``last_error`` names the holder), or
      was lost while held (this process stalled for over ``stale_after``).
    * ``"other"``: anything else (recipient absent, mailbox full, damaged records...).

    ``send``, ``receive``, ``talk``, ``wait``, ``quiet`` and ``wipe`` set both, "" after a
    success; ``beat`` and the member reads (``alive``, ``member_run``, ``members``) only
    report failures (a gone board), never clear them.
    """

    def __enter__(self) -> "Board":
        if self.run is None:
            self.join()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the API -------------------------------------------------------------------
    def talk(self, to: str, body: str = "") -> TalkResult:
        """``Talk``: receive the oldest message if one waits, else send ``body`` to ``to``.

        Returns ``TalkResult(2, sender, body)`` when a message was received (and
        nothing sent), ``(1, '', '')`` when sent, ``(-1, '', '')`` when nothing
        waited and ``to`` is ``''``, ``(0, '', '')`` on failure (see ``last_error``
        and ``problem``).  A message returned stays on the board until the next call, which
        consumes it first, as ``receive`` says.
        """
        self._need_join()
        if to != "":
            check_name(to, "recipient")
        data = encode_body(body, self.max_body)
        if to == "" and not self._safe_peek():
            return TalkResult(FAILED if self.problem else NOTHING, "", "")
        try:
            with self._on_board(), self.lease.hold(self.lock_timeout):
                self._acknowledge()
                got = self._oldest()
                if got:
                    m = self._hand(got)
                    self._ok()
                    self._quiet_since = None
                    return TalkResult(RECEIVED, m.sender, m.body)
                if to == "":
                    self._ok()
                    return TalkResult(NOTHING, "", "")
                why = self._deliver(to, data)
        except (LockTimeout, OSError) as e:
            self._failed(e)
            return TalkResult(FAILED, "", "")
        if why:
            self._fail(why)
            return TalkResult(FAILED, "", "")
        self._ok()
        self._quiet_since = None
        return TalkResult(SENT, "", "")

    def send(self, to: str, body: str) -> bool:
        """``SendMessage``: deliver ``body`` to ``to``; True when delivered, else see
        ``last_error`` and ``problem``."""
        self._need_join()
        check_name(to, "recipient")
        data = encode_body(body, self.max_body)
        try:
            with self._on_board(), self.lease.hold(self.lock_timeout):
                why = self._deliver(to, data)
        except (LockTimeout, OSError) as e:
            self._failed(e)
            return False
        if why:
            self._fail(why)
            return False
        self._ok()
        self._quiet_since = None        # a reply is soon due: ``wait`` looks often again
        return True

    def receive(self) -> Message | None:
        """``RecvMessage``: the oldest waiting ``Message``, or None.

        The message stays on the board until this Board's next ``receive``, ``talk``,
        ``wait``, ``quiet``, ``wipe`` or ``close``, which consumes it first (M5): a process
        killed before it was done with a message gets it again from its next ``receive``,
        in its next run too (unless that run calls ``quiet``).  Within one run a message is
        returned once.  None also on failure, with ``last_error`` and ``problem`` set.
        Works on a full disk.
        """
        self._need_join()
        if not self._safe_peek():
            return None
        try:
            with self._on_board(), self.lease.hold(self.lock_timeout):
                self._acknowledge()
                got = self._oldest()
                m = self._hand(got) if got else None
        except (LockTimeout, OSError) as e:
            self._failed(e)
            return None
        self._ok()
        if m is not None:
            self._quiet_since = None
        return m

    def _safe_peek(self) -> bool:
        try:
            if self._replaced_by is not None:
                self._check_member()
            now = time.monotonic()
            if self.identity is not None and (now >= self._identity_due or self.problem in self.LASTING):
                self.root.check_identity(self.identity)     # an idle waiter notices a swap (T6)
                self._identity_due = now + IDENTITY_EVERY
            waiting = self._maybe_waiting()
        except OSError as e:
            self._failed(e, "cannot read the board")
            return False
        self._ok()
        return waiting

    LASTING = ("gone", "disconnected", "swapped", "replaced")   # problems ``wait`` does not wait out

    def wait(self, timeout: float | None = None) -> Message | None:
        """Block until a message arrives (returned) or ``timeout`` seconds pass (None).

        Polls by opening known names: every millisecond at first, backing off
        to every 50 ms after a second of waiting, so an idle waiter costs well
        under 1% of a core.  The second is counted from this Board's last message sent
        or received, not from this call: a caller that waits in short calls (to do
        something else between them) backs off too.  Returns None at once when the board is gone, disconnected or
        swapped, or this member was replaced (``problem`` says which); other failures (lock
        busy, disk full, read-only...) are
        retried with a pause that grows to 2 s, and ``problem`` stays set if the time ran
        out on one.
        """
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        quiet = self._quiet_since      # (read once: another thread of this Board may send meanwhile)
        if quiet is None:
            quiet = self._quiet_since = start
        failures = 0
        while True:
            msg = self.receive()
            if msg is not None:
                return msg
            if self.problem in self.LASTING:
                return None
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return None
            # the pause grows with the time already waited: 1 ms at first, 50 ms at most
            pause = min(0.001 + (now - quiet) / 20, 0.05)
            if self.problem:
                failures += 1
                pause = min(0.05 * 2 ** min(failures, 6), 2.0)
            else:
                failures = 0
            if deadline is not None:
                pause = min(pause, deadline - now)
            time.sleep(max(0.0, pause))

    quieted: list[Message] = []     # what the last ``quiet`` discarded (its first QUIETED_KEPT)

    def quiet(self) -> int:
        """``Quiet``: discard messages left for earlier runs of this name; returns how many.

        Messages sent to this run (after ``join``) are never discarded.  A message an earlier
        run received but did not acknowledge (it was killed, M5) is one of those discarded.
        A run that has been replaced (I6) discards nothing.  A failure (the lock not obtained,
        the board gone, this run replaced) returns what was discarded until then, with
        ``last_error`` and ``problem`` set.
        """
        self.quieted: list[Message] = []       # the first ones discarded (QUIETED_KEPT), for the caller to judge
        return self._drop(lambda msg: msg.to_run != self.run, "cannot quiet", self.quieted)

    def wipe(self) -> int:
        """``WipeMessage``: discard every message waiting for this name; returns how many (on a
        failure, how many until then, with ``last_error`` and ``problem`` set)."""
        return self._drop(lambda msg: True, "cannot wipe")

    def _drop(self, which: Callable[[Message], bool], doing: str, kept: list[Message] | None = None) -> int:
        """Discard the oldest waiting messages while ``which(message)`` holds (the first
        ``QUIETED_KEPT`` of them appended to ``kept``, their bodies cut to 200 characters)."""
        self._need_join()
        dropped = 0
        try:
            with self._on_board(), self.lease.hold(self.lock_timeout):
                self._acknowledge()
                while (got := self._oldest()) and which(got[1]):
                    self._consume(got[0])
                    if kept is not None and len(kept) < QUIETED_KEPT:
                        kept.append(got[1]._replace(body=got[1].body[:200]))
                    dropped += 1
        except (LockTimeout, OSError) as e:
            self._failed(e, doing)
            return dropped
        self._ok()
        return dropped

