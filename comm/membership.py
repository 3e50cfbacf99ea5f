"""Membership of a board (I6, P2): joining (the folder, its marker and identity, the member
record, judging whether an earlier run of the name is alive), the heartbeat, reading others'
presence, and leaving."""
import errno
import logging
import os
import re
import time
import uuid
from collections.abc import Mapping
from typing import TypeVar

from . import cleanup, fsops
from .aside import Why
from .errors import BoardError, MemberBusy
from .heartbeat import BEAT_EVERY
from .lease import FRESH_MARGIN, MACHINE, LockTimeout, pid_alive
from .mailbox import Mailbox
from .member import IDENTITY_EVERY
from .message import _NAME, _RUN, VERSION, check_name, member_mac

log = logging.getLogger("comm")

SETTLE = 0.3               # s an alive record must stay away before it counts as gone (I6)
MARKER_LIMIT = 4096  # bytes: a bigger cardstand.board is not a marker (F2)
CLOSE_WAIT = 2.0  # s: how long close() waits for the lock to acknowledge the last message (M5)

_Self = TypeVar("_Self", bound="Membership")


class Membership(Mailbox):
    """Joining, presence and leaving of a member (``Board``)."""

    def close(self) -> None:
        """Leave the board: acknowledge the message last returned (consume it, M5) if the lock
        can be taken within ``CLOSE_WAIT`` s (if not, it is returned again to this name's next
        run, unless that run calls ``quiet``); stop beating and remove this run's ``alive``
        record (I6: a closed run is not alive, though its process may go on); then remove the
        lock's private folder."""
        self.heartbeat.stop()
        if self._handed is not None:
            try:
                with self._on_board(), self.lease.hold(min(self.lock_timeout, CLOSE_WAIT), patient=False):
                    self._acknowledge()
            except (LockTimeout, OSError) as e:
                log.info("%s: message %d not acknowledged at close (%s): it will be returned again",
                         self.name, self._handed, e)
        if self.run is not None and self._replaced_by is None:
            try:
                with self._on_board():
                    if (self.alive(self.name) or {}).get("run") == self.run:
                        self.root.remove(f"{self._mine}/alive")
            except OSError:
                pass
        self.lease.close()

    # -- joining -----------------------------------------------------------------
    def join(self: _Self, take_over: bool | None = None) -> _Self:
        """Create the board if needed and become the current reader of this name (``Init``).

        Refused with ``MemberBusy`` while another run of this name is alive (I6), unless
        ``take_over`` (default: the constructor's): then that run is replaced, and told so
        by its next operation (``problem`` "replaced").  A run found gone is taken over
        silently.  Judging a run on another machine watches its heartbeat: up to
        ``stale_after`` plus a second when it is silent.
        """
        with self.root.unguarded():     # this Init adopts the board's identity (F2b)
            self._join(self.take_over if take_over is None else take_over)
        self._ok()
        run = self._need_join()
        self.heartbeat.start(min(BEAT_EVERY, self.lease.stale_after / 5), lambda: self._beat_once(run))
        return self

    def _join(self, take_over: bool) -> None:
        root = self.root
        try:
            self._make_folder()
            with root.batch(), root.founding():
                self._check_marker()
                for d in ("trash", "tmp", "box"):   # a link or a file in their place is set aside
                    root.ensure_dir(d)
        except BoardError as e:
            self._fail(str(e))
            raise
        except OSError as e:
            self._failed(e, f"cannot use {self.folder} as a board")
            raise self._coded("cannot_use", e) from None
        self._clean_scratch()
        self.heartbeat.stop()
        run = fsops.new_token()
        text = (f"cardstand-member {VERSION}\nname: {self.name}\nrun: {run}\nhost: {fsops.HOST[:64]}\n"
                f"machine: {MACHINE[:100]}\npid: {os.getpid()}")
        if self.secret is not None:
            text += f"\nmac: {member_mac(self.secret, self.name, run)}"
        member = fsops.record(text)
        judged: dict[str, str] = {}
        for _ in range(5):
            if not take_over:
                judged = self._member_fields()
                self._refuse_if_alive(judged)
            try:
                with root.batch(), self.lease.hold(self.lock_timeout):
                    if not take_over and self._member_fields().get("run") != judged.get("run"):
                        continue        # another run joined while we judged: judge it in turn
                    identity = self._adopt_identity()
                    root.ensure_dir(self._mine)
                    root.replace(f"{self._mine}/member", member)
                    self._member = member
                    self.run, self._replaced_by = run, None
                    self.identity = root.identity = identity
                    self._identity_due = time.monotonic() + IDENTITY_EVERY
                    self.heartbeat.write(run, first=True)
                    self._clean_consumed()
                    break
            except (LockTimeout, OSError) as e:
                self.run = None
                self._failed(e, f"cannot join {self.folder} as {self.name}")
                raise self._coded("cannot_join", e) from None
        else:
            self._fail(f"cannot join {self.folder} as {self.name}: the name keeps changing hands")
            raise BoardError.coded("name_contested", self.last_error, folder=str(self.folder), name=self.name)

    def _coded(self, code: str, e: BaseException) -> BoardError:
        """The error of a join that failed on ``e`` (already recorded by ``_failed``): its text,
        and for a program that words it itself ``code`` with ``folder``, ``name``, ``kind`` (the
        problem code: "denied", "locked"...; '' for another) and ``system`` (the system's text)."""
        error = BoardError.coded(code, self.last_error, folder=str(self.folder), name=self.name, kind=self.problem,
                                 system=getattr(e, "strerror", None) or str(e))
        error.errno = getattr(e, "errno", None)
        return error

    def _adopt_identity(self) -> str | None:
        """F2b, under the lock of Init: the board's identity, written now when it has none
        (an older board) or a damaged one (set aside); None when it cannot be written."""
        root = self.root
        now = root.identity_now()
        if now:
            return now
        if now == "":
            root.set_aside(root.IDENTITY, Why("damaged", "no valid board identity in it",
                                              "a damaged board identity: a new one is written"))
        new = uuid.uuid4().hex
        try:
            root.replace(root.IDENTITY, fsops.record(f"cardstand-id {VERSION}\nid: {new}"))
        except OSError as e:
            log.warning("no identity written on the board %s (swapping it would go unnoticed): %s",
                        self.folder, e)
            return None
        return new

    def _refuse_if_alive(self, fields: Mapping[str, str]) -> None:
        """I6: raise ``MemberBusy`` when the run named by ``fields`` is alive.

        A run is alive when its ``alive`` record names it and either its process runs on this
        machine, or (elsewhere) its beat changes while we watch, up to L plus a margin.  Its
        process gone, its alive record gone (a clean close) or naming another run, or a beat
        that stays still: it may be taken over."""
        run = fields.get("run", "")
        if not run or not _RUN.fullmatch(run) or run == self.run:
            return
        if fields.get("machine") == MACHINE and fields.get("pid") == str(os.getpid()):
            return              # this process joins again: the earlier Board is replaced
        local = pid_alive(fields)
        if local is False:
            return              # its process is gone from this machine (no need to settle a read)
        first = self._alive_of_settled(run)
        if first is None:
            return
        if local:
            self._busy(fields, None, "its process runs on this machine")
        start = time.monotonic()
        while time.monotonic() - start < self.lease.stale_after + FRESH_MARGIN:
            time.sleep(min(0.1, BEAT_EVERY / 5))
            now = self._alive_of_settled(run, unreadable=first)     # a passing share error is no news
            if now is None:
                return
            if now != first:
                self._busy(fields, time.monotonic() - start, "its heartbeat goes on")

    def _busy(self, fields: Mapping[str, str], seen: float | None, how: str) -> None:
        e = MemberBusy(self.name, fields, seen, how)
        self._fail(str(e))
        raise e

    def _alive_of_settled(self, run: str, unreadable: str | None = None) -> str | None:
        """``_alive_of``, but a record that is not there (or names another run) is read again
        for ``SETTLE`` s first: an SMB client may show no file while its writer replaces it."""
        beat = self._alive_of(run, unreadable)
        deadline = time.monotonic() + SETTLE
        while beat is None and time.monotonic() < deadline:
            time.sleep(SETTLE / 4)
            beat = self._alive_of(run, unreadable)
        return beat

    def _alive_of(self, run: str, unreadable: str | None = None) -> str | None:
        """The beat of this name's ``alive`` record when it names ``run``, else None
        (``unreadable`` when it is there but cannot be read)."""
        try:
            text = self.root.read_text(f"{self._mine}/alive", strict=True)
        except (fsops.NotRegular, OSError):
            return unreadable
        if text is None:
            return None
        f = fsops.record_fields(text)
        return f.get("beat", "") if f.get("run") == run else None

    # -- the heartbeat (I6, P2) ----------------------------------------------------------
    def stop_heartbeat(self) -> None:
        """Stop beating the alive record while staying a member: to others this run then looks
        hung (P2); ``leave`` or ``close`` still end it cleanly."""
        self.heartbeat.stop()


    def _beat_once(self, run: str) -> bool:
        """One beat of the heartbeat thread: False when ``run`` is over (closed, joined again, or
        its name taken by another run)."""
        with self._on_board():
            if self.run != run or self._taken_by() is not None:
                return False
            self.heartbeat.write(run)
            self.lease.refresh_spare()
        return True

    def _make_folder(self) -> None:
        """The board folder itself, as the user named it (it may be a link: their choice)."""
        try:
            self.folder.mkdir(parents=True)
        except FileExistsError:
            return
        fsops.make_group_writable(self.folder)   # ours: writable by its group (F2)

    def _check_marker(self) -> None:
        marker = self.folder / "cardstand.board"
        try:
            data = self.root.read("cardstand.board", MARKER_LIMIT + 1, strict=True)
        except fsops.NotRegular as e:
            self.root.ensure_dir("trash")
            self.root.set_aside("cardstand.board", Why("not_file", e.strerror or "", f"the board marker is {e.strerror}"))
            data = None
        if data is None:
            self.root.replace("cardstand.board", f"cardstand-board {VERSION}\n".encode(), scratch="")
            return
        text = data.decode("utf-8", "replace")
        # F2: two words between runs of space, tab, CR and LF (only these: other white space, a
        # BOM, makes it no marker), the version 1 to 9 digits; interop/js reads it the same way
        words = re.split(r"[ \t\r\n]+", text.strip(" \t\r\n"))
        if len(data) > MARKER_LIMIT or len(words) != 2 or words[0] != "cardstand-board" \
                or not re.fullmatch(r"[0-9]{1,9}", words[1]):
            raise BoardError.coded("not_a_marker", f"{marker} is not a cardstand board marker: choose another folder",
                                   marker=str(marker))
        if int(words[1]) != VERSION:
            raise BoardError.coded("other_version", f"{self.folder} is a board of protocol version {words[1][:20]}; "
                                   f"this program speaks version {VERSION}",
                                   folder=str(self.folder), version=words[1][:20], mine=VERSION)

    def _clean_scratch(self) -> None:
        cleanup.clean_scratch(self.root)

    # -- presence ----------------------------------------------------------------
    def beat(self, state: object = None) -> None:
        """Say "I am here" now, with a short ``state`` kept for the beats that follow.

        A joined Board beats its member's ``alive`` record by itself about every second
        (I6); ``state`` (a game's "waiting", "thinking"; empty until given) tells others
        more (P2).  Others read it with ``alive(name)``.  Takes no lock: only this member
        writes its own record.  A failure is reported (``last_error``), never raised.
        """
        run = self._need_join()
        if state is not None:
            self.heartbeat.state = str(state)[:64]
        if self._replaced_by is not None:
            return
        try:
            with self._on_board():
                self.heartbeat.write(run)
        except OSError as e:
            self._failed(e, "cannot write presence")

    def alive(self, name: str) -> dict[str, str] | None:
        """The ``alive`` record of ``name`` as a dict (``run``, ``beat``, ``state``), or None.

        A record that stops changing means its member is gone; judge that on
        your own clock (``time.monotonic``), never by file times.  None also
        when the record cannot be read just now (a share's passing error is no news).
        """
        check_name(name)
        text = self._quiet_read(f"box/{name.lower()}/alive")
        return None if text is None else fsops.record_fields(text)

    def _quiet_read(self, rel: str) -> str | None:
        """A record's text, or None when missing, unreadable just now, or not a regular file
        (no log line: presence is polled every second).  A gone board sets ``problem``."""
        try:
            text = self.root.read_text(rel, strict=True)
        except fsops.NotRegular:
            return None
        except OSError as e:
            text, err = None, e
        else:
            if text is not None:
                return text
            err = FileNotFoundError(errno.ENOENT, "no such record", rel)
        if self.is_gone():
            self._failed(err, f"cannot read {rel}")
        return None

    def member_run(self, name: str) -> str | None:
        """The run id of ``name``'s latest ``join``, or None if it never joined."""
        text = self._quiet_read(f"box/{check_name(name).lower()}/member")
        return fsops.record_fields(text).get("run")

    def left(self, name: str) -> bool:
        """Whether ``name``'s current run is known to have ended (I6): its ``alive`` record is
        gone (a clean close) while its process was on this machine, or that process is gone.
        False when that cannot be told (another machine: judge its heartbeat, P2)."""
        return bool(self.left_how(name))

    def left_how(self, name: str) -> str:
        """How ``name``'s current run is known to have ended (``left``): "gone" (its process, on this
        machine, is gone), "closed" (its process runs but no ``alive`` record names the run: a clean
        close, or a program that keeps no ``alive`` record and wrongly names this machine, I1a);
        "" when it is not known to have ended."""
        fields = fsops.record_fields(self._quiet_read(f"box/{check_name(name).lower()}/member"))
        running = pid_alive(fields)
        if running is None:
            return ""
        if not running:
            return "gone"
        return "closed" if (self.alive(name) or {}).get("run") != fields.get("run") else ""

    def members(self) -> list[str]:
        """Names that have joined this board (from a listing: informational)."""
        out: list[str] = []
        if self.is_gone():
            self._failed(FileNotFoundError(errno.ENOENT, "no such folder", "box"), "cannot list the members")
            return out
        for key in self.root.listdir("box"):
            if not _NAME.fullmatch(key) or key.lower() != key:
                continue
            name = fsops.record_fields(self._quiet_read(f"box/{key}/member")).get("name")
            if name is not None:
                out.append(name)
        return sorted(out)

