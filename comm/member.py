"""One member's state on a board folder, and what every part of it needs: recording failures
for the caller, batches of operations checked against the board joined (F2b), and whether
another run has taken this member's name (I6).  ``Board`` is built on it (mailbox.py,
membership.py, board.py)."""
import hmac
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import fsops
from .errors import Replaced
from .heartbeat import Heartbeat
from .lease import Lease, LockTimeout
from .message import MAX_BODY, Rejected, _key, check_name, member_mac
from .text import visible

log = logging.getLogger("comm")

MAX_UNREAD = 1000
IDENTITY_EVERY = 1.0  # s: how often an idle waiter's lock-free look checks the identity (F2b, T6)
# T1-T6: what a board in trouble is said to be, by ``problem`` (the kinds of ``fsops.trouble``,
# and "gone"); the error itself follows, except for "swapped", which says it all
_TROUBLE_WORDS = {
    "gone": "the board folder {folder} is gone or unreachable (deleted, or a share no longer mounted; comm "
            "does not make it again)",
    "full": "no space left on the board's disk ({folder})",
    "readonly": "the board folder {folder} is on a read-only disk or share (remounted read-only?): nothing "
                "can be written there",
    "denied": "permission denied in the board folder {folder} (its owner or permissions changed?)",
    "disconnected": "the share holding the board folder {folder} is disconnected or stale (its server, or the "
                    "program that mounted it, went away)",
    "io": "input/output error on the disk or share of the board folder {folder}",
    "swapped": "this is not the board this member joined: the folder was swapped or replaced ({folder})",
}


class Member:
    """The state of one member (``name``) of the board in ``folder``; see ``Board``."""

    def __init__(self, folder: str | os.PathLike[str], name: str, *, secret: str | bytes | None = None,
                 stale_after: float = 10.0, lock_timeout: float = 10.0, max_body: int = MAX_BODY,
                 max_unread: int = MAX_UNREAD, take_over: bool = False,
                 inspect: Callable[[bytes, int], object] | None = None) -> None:
        self.name = check_name(name)
        # called with (bytes, seq) of every message file read from my mailbox before it is
        # decoded; what it raises reaches the caller (the conformance kit's own decoder)
        self.inspect = inspect
        self.take_over = take_over
        self.secret = _key(secret)
        self._rejected: list[Rejected] = []
        self.key = name.lower()
        self.folder = Path(folder)
        self.box = self.folder / "box"
        self.mine = self.box / self.key
        self.tmp = self.folder / "tmp"
        self.trash = self.folder / "trash"
        # every name under the folder is reached through the Root, never following a link
        self.root = fsops.Root.for_folder(self.folder)
        self._aside_news = self.root.aside_news()      # what is set aside, for ``take_set_aside``
        self._mine = f"box/{self.key}"
        self._member: bytes | None = None
        self.lock_timeout = lock_timeout
        self.max_body = max_body
        self.max_unread = max_unread
        self.run: str | None = None
        self.last_error = ""
        self.problem = ""
        self._logged: tuple[str, str] | None = None
        self._forged_logged: tuple[str, str] | None = None     # (name, run) of the planted record last logged
        # the message last returned to the caller and not yet acknowledged (M5): its number
        # and its bytes; it stays on the board until this Board's next receive, talk, wait,
        # quiet, wipe or close consumes it
        self._handed: int | None = None
        self._handed_raw: bytes | None = None
        self.lease = Lease(self.folder, self.tmp, stale_after=stale_after, who=self.key)
        self.heartbeat = Heartbeat(self.root, f"{self._mine}/alive", self.name)
        self._replaced_by: dict[str, str] | None = None     # the member record of the run that took our name
        self.identity: str | None = None         # F2b: the board's identity when this member joined
        self._identity_due = 0.0     # when the lock-free look checks it next (monotonic)
        self._quiet_since: float | None = None  # since when ``wait`` has found nothing (monotonic), across calls

    def __repr__(self) -> str:
        return f"Board({str(self.folder)!r}, {self.name!r})"

    def _fail(self, why: str, problem: str = "other") -> None:
        """Record a failure for the caller (``last_error``, ``problem``); logged once while it
        stays the same (a waiter retries it many times)."""
        self.last_error, self.problem = why, problem
        if self._logged != (problem, why):
            self._logged = (problem, why)
            log.warning("%s: %s", self.name, why)

    def _ok(self) -> None:
        self.last_error, self.problem, self._logged = "", "", None

    def _failed(self, e: BaseException, doing: str = "") -> None:
        """Record the failure an exception tells of, with its problem code (see the class)."""
        what = f"{doing}: " if doing else ""
        if isinstance(e, Replaced):
            self._fail(f"{what}{e}", "replaced")
        elif isinstance(e, LockTimeout):
            self._fail(f"{what}{e}", "locked")
        elif kind := fsops.trouble(e) or self._board_state():
            words = _TROUBLE_WORDS[kind].format(folder=self.folder)
            self._fail(f"{what}{words}" if kind == "swapped" else f"{what}{words}: {e}", kind)
        else:
            self._fail(f"{what}{e}")

    def _board_state(self) -> str | None:
        """None when the board's marker is there; "gone" when it or the folder is missing, or
        what reading it says (``fsops.trouble``: "disconnected"...).  Reads only."""
        try:
            return None if self.root.read(fsops.Root.MARKER, 64, strict=True) is not None else "gone"
        except fsops.NotRegular:
            return None         # something is there: the board is
        except OSError as e:
            return fsops.trouble(e) or "gone"

    def is_gone(self) -> bool:
        """Whether the board folder or its marker is missing or unreachable (reads only)."""
        return self._board_state() is not None

    @contextmanager
    def _on_board(self) -> Iterator[None]:
        """A batch of this member's operations: every write in it first checks that the folder
        still is the board this member joined (F2b, T6)."""
        with self.root.batch(), self.root.expecting(self.identity):
            yield

    def _need_join(self) -> str:
        """This run's id; RuntimeError before ``join``."""
        if self.run is None:
            raise RuntimeError(f"{self!r} has not joined: call join() (comm.Init) first")
        return self.run

    def _member_fields(self) -> dict[str, str]:
        """The fields of this name's ``member`` record ({} when there is none or it is damaged)."""
        try:
            text = self.root.read_text(f"{self._mine}/member", strict=True)
        except (fsops.NotRegular, OSError):
            return {}
        return fsops.record_fields(text)


    @property
    def replaced_by(self) -> dict[str, str]:
        """The member record (``pid``, ``host``...) of the run that took this name over (I6), as
        read from the board; empty while this run has its name."""
        return dict(self._replaced_by or {})

    def _taken_by(self) -> dict[str, str] | None:
        """The member record of the run that has taken this name (I6), or None.  With a secret,
        only a record signed with it counts (A6): a planted one is logged and ignored."""
        if self._replaced_by is not None:
            return self._replaced_by
        fields = self._member_fields()
        run = fields.get("run")
        if run is None or run == self.run:
            return None
        # another board in its place is no take-over (T6): Swapped, or the folder gone, raised
        self.root.check_identity(self.identity)
        if self.secret is not None and not hmac.compare_digest(
                member_mac(self.secret, fields.get("name", ""), run), fields.get("mac", "")):
            if self._forged_logged != (self.name.lower(), run):     # (once: not reset by a success)
                self._forged_logged = (self.name.lower(), run)
                log.warning("%s: a member record naming another run (%r) without the shared secret's "
                            "MAC was ignored", self.name, run[:64])
            return None
        self._replaced_by = fields
        self.heartbeat.stop()
        return fields

    def _check_member(self) -> None:
        """Under the lock: raise ``Replaced`` when another run has taken this name (I6)."""
        fields = self._taken_by()
        if fields is None:
            return
        where = ", ".join(f"{k} {visible(fields.get(k, '?'), 64)}" for k in ("pid", "host"))
        raise Replaced(None, f"another run of {self.name} ({where}) has joined this board and "
                             "taken this name: this run must stop")

