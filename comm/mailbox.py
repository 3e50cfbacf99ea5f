"""A member's mailbox (docs/PROTOCOL.md M1-M8): delivering, finding the oldest message,
handing it and acknowledging it, and repairing damaged pointers.  Called with the lock held,
except the lock-free look ``_maybe_waiting``."""
import logging
import re
import stat
from pathlib import Path

from . import fsops
from .aside import SetAside, Why
from .lease import LockLost
from .member import MAX_UNREAD, Member
from .message import (_RUN, MAX_SEQ, Message, Rejected, Unauthentic, check_name, frame, msg_name, msg_number,
                      unframe)

log = logging.getLogger("comm")

_POINTER = re.compile(r"[0-9]{1,12}")


class Mailbox(Member):
    """The mailbox protocol of a member (``Board``)."""

    def _oldest(self) -> tuple[int, Message, bytes] | None:
        """(seq, Message, bytes) of the oldest valid message for me, or None; sets aside
        damaged ones.  Call ``_acknowledge`` first: the message last handed is still there.
        ``Replaced`` when another run has taken this name (its messages are not ours)."""
        self._check_member()
        tail, head = self._pointers(self._mine)
        k = tail + 1
        while True:
            raw = self._read_msg(k)
            if raw is None:
                if k <= head:
                    k += 1
                    continue
                if k - 1 != tail:
                    self._write_tail(k - 1)
                return None
            try:
                return k, unframe(raw, box=self.key, number=k, key=self.secret), raw
            except Unauthentic as e:
                m = e.message
                self._set_aside(self.mine / msg_name(k),
                                Why("refused", str(e), f"refused message from {m.sender}: {e}"))
                self._rejected.append(Rejected(m.sender, m.sender_run, k, str(e)))
                del self._rejected[:-100]
            except ValueError as e:
                self._set_aside(self.mine / msg_name(k), Why("damaged", str(e), f"damaged message: {e}"))
            k += 1

    def _read_msg(self, k: int) -> bytes | None:
        """The bytes of message ``k`` of my mailbox, or None when there is none.  Anything
        but a regular file under that name (a FIFO, a folder, a link...) is moved to the
        trash and counts as missing: it never blocks, loops or jams the mailbox."""
        rel = f"{self._mine}/{msg_name(k)}"
        try:
            raw = self.root.read(rel, self.max_body + 4096, strict=True)
        except fsops.NotRegular as e:
            self._set_aside(rel, Why("not_message", e.strerror or "", f"not a message: {e.strerror}"))
            return None
        if raw is not None and self.inspect is not None:
            self.inspect(raw, k)
        return raw

    def _pointers(self, box: str) -> tuple[int, int]:
        """``(tail, head)`` of the mailbox folder ``box`` (under the lock).

        Damaged values (not 1-12 decimal digits, above ``MAX_SEQ``, not a regular file, or a
        head further above the tail than any real mailbox gets) are never trusted to loop or
        to say "full": they are repaired by looking (M8), logged, and written back when the
        mailbox is mine.
        """
        if box == self._mine and self._member is not None:
            self._own_box(self._member)
        tail, tail_ok = self._read_pointer(f"{box}/tail")
        head, head_ok = self._read_pointer(f"{box}/head")
        if tail_ok and head_ok and head - tail <= self._span():
            return tail, head
        return self._repair_pointers(box, tail if tail_ok else None, head if head_ok else None)

    def _span(self) -> int:
        return 2 * max(self.max_unread, MAX_UNREAD)

    def _read_pointer(self, rel: str) -> tuple[int, bool]:
        """(value, sane) of a number record: missing counts as 0 (R3)."""
        try:
            text = self.root.read_text(rel, strict=True)
        except fsops.NotRegular:
            return 0, False
        if text is None:
            return 0, True
        text = text.strip(" \t\r\n")       # R3: only these (interop/js strips the same)
        if _POINTER.fullmatch(text) and int(text) <= MAX_SEQ:
            return int(text), True
        return 0, False

    def _listed(self, box: str) -> list[int]:
        """Message numbers in a mailbox's listing (a listing may be stale: a hint only)."""
        return sorted(n for n in map(msg_number, self.root.listdir(box)) if n is not None)

    def _repair_pointers(self, box: str, tail: int | None, head: int | None) -> tuple[int, int]:
        """Rebuild damaged pointers (None) from the listing and by probing names."""
        before = (tail, head)
        nums = self._listed(box)
        if tail is None:
            tail = nums[0] - 1 if nums else (head if head is not None else 0)
        span = self._span()
        if head is None or head - tail > span:
            near = [n for n in nums if tail < n <= tail + span]
            head = near[-1] if near else tail
            while head < tail + span and self.root.present(f"{box}/{msg_name(head + 1)}"):
                head += 1
        log.warning("mailbox %r: damaged pointers (tail %s, head %s): repaired to tail %d, head %d",
                    box, "damaged" if before[0] is None else before[0],
                    "damaged" if before[1] is None else before[1], tail, head)
        if box == self._mine:
            for name, value in (("tail", tail), ("head", head)):
                self.root.replace(f"{box}/{name}", fsops.record(str(value)), durable=False)
        return tail, head

    def _own_box(self, member: bytes) -> None:
        """My mailbox is a real folder (under the lock): one set aside (it was a link or a file)
        is rebuilt, with my member record, and said so."""
        if self.root.ensure_dir(self._mine):
            log.warning("the mailbox %r was missing or not a folder: rebuilt", self._mine)
            self.root.replace(f"{self._mine}/member", member)

    def _hand(self, got: tuple[int, Message, bytes]) -> Message:
        """Return a message found by ``_oldest`` to the caller: it stays on the board (its file
        and ``tail`` untouched) until the caller comes back (``_acknowledge``, M5), so that a
        process killed before the message reached its caller gets it again."""
        self._handed, self._handed_raw = got[0], got[2]
        return got[1]

    def _acknowledge(self) -> None:
        """Consume the message last handed to the caller, if any (under the lock, M5).

        Only that very message: when ``tail`` has passed it, or its file no longer holds the
        bytes returned (another run of this name took it, it was set aside...), nothing is
        touched.  If this raises, it is still handed and acknowledged by the next call."""
        seq, raw = self._handed, self._handed_raw
        if seq is None or raw is None:
            return
        tail, sane = self._read_pointer(f"{self._mine}/tail")
        if not sane or tail < seq:
            rel = f"{self._mine}/{msg_name(seq)}"
            try:
                now = self.root.read(rel, len(raw) + 1, strict=True)
            except fsops.NotRegular:
                now = None
            if now == raw:
                self._consume(seq)
        self._handed = self._handed_raw = None

    def _consume(self, seq: int) -> None:
        # Not forced to disk: a process killed at any instant leaves it intact;
        # only a power cut could bring back a consumed message (see PROTOCOL.md).
        self._write_tail(seq)
        self.root.remove(f"{self._mine}/{msg_name(seq)}")

    def _write_tail(self, seq: int) -> None:
        """Replace my ``tail``.  On a full disk it cannot be written: the message is deleted
        all the same, and the next search skips its missing number (M4, T2)."""
        try:
            self.root.replace(f"{self._mine}/tail", fsops.record(str(seq)), durable=False)
        except OSError as e:
            if fsops.trouble(e) != "full":
                raise
            log.info("%s: tail not moved to %d (%s): the next search skips what is gone", self.name, seq, e)

    def _set_aside(self, path: str | Path, why: Why) -> None:
        rel = path if isinstance(path, str) else Path(path).relative_to(self.folder).as_posix()
        self.root.set_aside(rel, why)

    def _deliver(self, to: str, data: bytes) -> str:
        """Put one message in ``to``'s mailbox; returns the failure reason or ''."""
        check_name(to, "recipient")
        self._check_member()
        root = self.root
        rbox = f"box/{to.lower()}"
        try:
            member = root.read_text(f"{rbox}/member", strict=True)
        except fsops.NotRegular as e:
            return f"the mailbox of {to} is damaged (its member record is {e.strerror})"
        if member is None:
            return f"{to} has not joined this board"
        to_run = fsops.record_fields(member).get("run", "")
        if not to_run or not _RUN.fullmatch(to_run):
            return f"the mailbox of {to} is damaged (no valid run in its member file)"
        tail, head = self._pointers(rbox)
        if head - tail >= self.max_unread:
            waiting = sum(1 for n in self._listed(rbox) if tail < n <= head)
            if waiting >= self.max_unread:
                return f"the mailbox of {to} is full ({self.max_unread} unread messages)"
            log.warning("mailbox %r: head %d is %d above tail but %d messages wait: not full",
                        rbox, head, head - tail, waiting)
        k = max(head, tail) + 1
        while root.present(f"{rbox}/{msg_name(k)}"):   # never blocks: a FIFO there is just taken
            k += 1
        framed = frame(self.name, self._need_join(), to, to_run, k, data, self.secret)
        target = f"{rbox}/{msg_name(k)}"
        scratch = root.write_scratch("tmp", framed)
        try:
            if not self.lease.is_mine():
                raise LockLost("lost the board lock before delivering (this process stalled or was "
                               f"stopped for over {self.lease.stale_after:g} s): nothing was sent")
            try:
                root.rename(scratch, target)
            except OSError as e:
                # A share may report an error for a rename it did: look before failing.
                try:
                    back = root.read(target, len(framed) + 1, strict=True)
                except OSError:
                    back = None
                if back != framed:
                    raise OSError(e.errno, f"could not deliver to {to}: {e.strerror or e}") from None
        finally:
            root.remove(scratch)
        # Published: from here on the message counts as sent, whatever else fails.
        try:
            root.fsync_dir(rbox)
            root.replace(f"{rbox}/head", fsops.record(str(k)), durable=False)  # a hint
        except OSError as e:
            log.warning("delivered to %s, but could not update its head pointer: %s", to, e)
        return ""

    def take_rejected(self) -> list[Rejected]:
        """The messages refused for their MAC since the last call (``Rejected``), oldest first."""
        out, self._rejected = self._rejected, []
        return out

    def take_set_aside(self) -> tuple[list[SetAside], int]:
        """What was set aside on this board (moved into ``trash/``: see ``comm.aside``) since the
        last call, by any Board of this process on this folder: (the first ``comm.aside.KEPT``,
        oldest first; how many more).  Thread-safe."""
        return self._aside_news.take()

    def _maybe_waiting(self) -> bool:
        """Lock-free look: is there possibly a message for me?  Opens files by name only.

        It looks past the message last handed (M6): that one is still on the board until the
        next call consumes it, and an idle waiter must not take the lock for it on every poll.
        True also when something needs repair (a damaged pointer, a missing or replaced
        mailbox): the look under the lock repairs it."""
        root = self.root
        with root.batch():
            try:
                with root._dir(self._mine):
                    pass
            except (FileNotFoundError, fsops.NotRegular):
                return True
            try:
                tail_text = root.read_text(f"{self._mine}/tail", strict=True)
                if tail_text is not None and not _POINTER.fullmatch(tail_text.strip()):
                    return True
                tail = int(tail_text) if tail_text is not None else 0
                seen = max(tail, self._handed or 0)
                if root.present(f"{self._mine}/{msg_name(seen + 1)}"):
                    return True
                head_text = root.read_text(f"{self._mine}/head", strict=True)
            except fsops.NotRegular:
                return True
            if head_text is None:
                return False
            head_text = head_text.strip()
            return not _POINTER.fullmatch(head_text) or int(head_text) > seen

    def _clean_consumed(self) -> None:
        """Message files at or below ``tail`` were consumed by a reader killed before deleting them."""
        tail, _ = self._pointers(self._mine)
        for name in self.root.listdir(self._mine):
            n = msg_number(name)
            if n is not None and n <= tail:
                rel = f"{self._mine}/{name}"
                if not self.root.remove(rel):
                    st = self.root.lstat(rel)
                    if st is not None and stat.S_ISDIR(st.st_mode):
                        self._set_aside(rel, Why("not_message", "a folder",
                                                "a folder named like a consumed message"))
