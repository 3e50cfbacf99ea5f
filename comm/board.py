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
"""
import errno
import hashlib
import hmac
import logging
import os
import re
import stat
import threading
import time
import uuid
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from . import fsops
from .lease import FRESH_MARGIN, MACHINE, Lease, LockLost, LockTimeout, pid_alive

log = logging.getLogger("comm")

VERSION = 1
MAX_BODY = 64 * 1024
HEADER_LIMIT = 4096  # bytes before the empty line: a longer message header is damaged (B7, M4)
MAX_UNREAD = 1000
RECEIVED, SENT, FAILED, NOTHING = 2, 1, 0, -1
SCRATCH_MAX_AGE = 600.0  # seconds, by the share's own clock (also how far in the future)
TRASH_MAX_AGE = 7 * 86400.0
MAX_SEQ = 999_999_000_000  # a pointer above this is damaged (M8): numbering never gets there
SETTLE = 0.3               # s an alive record must stay away before it counts as gone (I6)
BEAT_EVERY = 1.0           # s between two beats of a member's alive record (I6; at most L/5)
MAX_SECRET = 4096   # bytes: a longer secret file is a mistake (A1)
MARKER_LIMIT = 4096  # bytes: a bigger cardstand.board is not a marker (F2)
CLOSE_WAIT = 2.0  # s: how long close() waits for the lock to acknowledge the last message (M5)
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

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
# Windows device names, refused in any case (N1): CON PRN AUX NUL, COM1-COM9 and LPT1-LPT9 with
# the superscript digits ¹ ² ³ (Microsoft, "Naming Files, Paths, and Namespaces"), and COM0 and
# LPT0, which an earlier revision of that page listed and other tools reserve.  The one list.
_RESERVED = frozenset({"con", "prn", "aux", "nul"} | {f"{d}{i}" for d in ("com", "lpt") for i in "0123456789¹²³"})
_MSG_FILE = re.compile(r"([0-9]{12})\.msg")
_POINTER = re.compile(r"[0-9]{1,12}")
# What clean-up may remove (S1), and nothing else (F3): in tmp/, scratch files and the
# private, stale and released lock folders with their moved owner records; in trash/, what
# was set aside.  (Through a link that a share's server follows, clean-up can only ever
# reach names of these forms.)
_SCRATCH_FILE = re.compile(r"[^/]+\.tmp|(stale|released)-[0-9A-Za-z]+-owner")
_SCRATCH_DIR = re.compile(r"(lock|stale|released)-[0-9A-Za-z]+")
_TRASH_ENTRY = re.compile(r"[0-9A-Za-z]+-[^/]+")


class InvalidArgument(ValueError):
    """A name or body that the board refuses; nothing was changed."""


class BoardError(OSError):
    """The board folder cannot be used (missing, unreadable, foreign)."""

    def __str__(self):
        return self.strerror if self.strerror and self.errno is None else super().__str__()


class MemberBusy(BoardError):
    """``join`` refused: the name's current run is alive (I6).  Nothing was changed.

    ``name``, ``run``, ``host``, ``machine``, ``pid`` come from its member record (text from
    the board, made visible); ``seen`` is how many seconds ago it last showed life on this
    process's clock (None when judged by its running process); ``how`` says how it was judged.
    """

    def __init__(self, name, fields, seen, how):
        from .text import visible
        self.name = name
        self.run, self.host, self.machine, self.pid = (visible(fields.get(k, ""), 100)
                                                       for k in ("run", "host", "machine", "pid"))
        self.seen = seen
        self.how = how
        where = f"pid {self.pid or '?'} on {self.host or '?'}" + (f", machine {self.machine}" if self.machine else "")
        super().__init__(None, f"{name} is already on this board and alive ({where}; {how}): another "
                               f"run of the same name would take its messages.  If that program is "
                               f"truly gone, join again taking over its name (take_over=True)")


class Replaced(BoardError):
    """Another run has joined under this member's name (I6): this run must stop."""


class Message(NamedTuple):
    sender: str
    body: str
    seq: int
    to_run: str
    sender_run: str
    signed: bool = False    # it carried a MAC (checked when the reader has the secret)


class Rejected(NamedTuple):
    """A message refused for its MAC (A3): moved to trash, never returned."""
    sender: str             # as the message claims
    sender_run: str
    seq: int
    reason: str             # starts with "no MAC" or "wrong MAC"


class Unauthentic(ValueError):
    """A well-formed message whose MAC is missing or wrong; ``message`` is what it claims."""

    def __init__(self, reason, message):
        super().__init__(reason)
        self.message = message


class TalkResult(NamedTuple):
    result: int
    sender: str
    body: str


def is_device_name(name):
    """Whether Windows takes ``name`` (even with an extension: ``nul.game``) for a device (N1)."""
    return name.split(".", 1)[0].rstrip(" ").lower() in _RESERVED


def check_name(name, what="name"):
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidArgument(
            f"invalid {what} {name!r}: use 1-32 letters, digits, '-' or '_', starting with a letter "
            "or digit (no spaces, '/', '..' or control characters)")
    if is_device_name(name):
        raise InvalidArgument(f"invalid {what} {name!r}: reserved as a device name on Windows")
    return name


def encode_body(body, limit=MAX_BODY):
    if not isinstance(body, str):
        raise InvalidArgument(f"message body must be text (str), not {type(body).__name__}")
    try:
        data = body.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgument(f"message body is not valid Unicode text: {e}") from None
    if len(data) > limit:
        raise InvalidArgument(f"message body is {len(data)} bytes in UTF-8; the limit is {limit}")
    return data


_RUN = re.compile(r"[A-Za-z0-9_-]{0,64}")
_DIGITS = re.compile(r"[0-9]{1,12}")
_HEX8 = re.compile(r"[0-9a-f]{8}")


def load_secret(secret_file=None, environ=None):
    """The shared secret (A1): the file's content if ``secret_file`` is given, else the
    ``CARDSTAND_SECRET`` environment variable, without surrounding white space; None when
    neither is given.  Raises ``InvalidArgument`` for an empty or unreadable secret."""
    if secret_file is not None:
        if not os.path.isfile(secret_file):     # a folder, a device (/dev/zero), a FIFO
            raise InvalidArgument(f"cannot read the secret file {secret_file}: "
                                  f"{'no such file' if not os.path.exists(secret_file) else 'not a regular file'}")
        try:
            with open(secret_file, "rb") as f:
                raw = f.read(MAX_SECRET + 1)
        except OSError as e:
            raise InvalidArgument(f"cannot read the secret file {secret_file}: {e.strerror or e}") from None
        if len(raw) > MAX_SECRET:
            raise InvalidArgument(f"the secret file {secret_file} is longer than {MAX_SECRET} bytes: "
                                  "not a secret file")
        raw = raw.removeprefix(b"\xef\xbb\xbf")      # the BOM Windows Notepad writes
        where = f"the secret file {secret_file}"
    else:
        value = (os.environ if environ is None else environ).get("CARDSTAND_SECRET")
        if value is None:
            return None
        raw = value.encode("utf-8", "surrogateescape")
        where = "CARDSTAND_SECRET"
    key = raw.strip(b" \t\r\n")
    if not key:
        raise InvalidArgument(f"the shared secret in {where} is empty")
    return key


def _key(secret):
    if secret is None:
        return None
    key = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
    if not key:
        raise InvalidArgument("the shared secret is empty")
    return key


def mac(key, sender, sender_run, to, to_run, seq, data):
    """HMAC-SHA256 of a message (A2) as 64 lower-case hex digits."""
    signed = f"cardstand-mac {VERSION}\n{sender}\n{sender_run}\n{to}\n{to_run}\n{seq}\n".encode("ascii")
    return hmac.new(key, signed + data, hashlib.sha256).hexdigest()


def member_mac(key, name, run):
    """HMAC-SHA256 of a member record's name and run (I6, with a shared secret) as hex."""
    return hmac.new(key, f"cardstand-member-mac {VERSION}\n{name}\n{run}\n".encode("utf-8"),
                    hashlib.sha256).hexdigest()


def frame(sender, sender_run, to, to_run, seq, data, key=None):
    head = (f"cardstand-msg {VERSION}\nfrom: {sender}\nfrom-run: {sender_run}\nto: {to}\n"
            f"to-run: {to_run}\nseq: {seq}\nlength: {len(data)}\ncrc32: {zlib.crc32(data):08x}\n")
    if key is not None:
        head += f"mac: {mac(key, sender, sender_run, to, to_run, seq, data)}\n"
    return (head + "\n").encode("ascii") + data


def unframe(raw, *, box=None, number=None, key=None):
    """Parse a message file; raises ValueError saying what is wrong with it (M1, M4).

    ``box`` and ``number`` are the mailbox name and file number it was found under (checked
    against ``to`` and ``seq`` when given); with ``key`` (the shared secret) a missing or
    wrong MAC raises ``Unauthentic`` (A3).
    """
    head, sep, data = raw.partition(b"\n\n")
    if not sep:
        raise ValueError("no header end")
    if len(head) > HEADER_LIMIT:
        raise ValueError("header too long")      # B7, M4: as every reader (interop/js) judges it
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError("header is not ASCII") from None
    first = text.partition("\n")[0]
    if first != f"cardstand-msg {VERSION}":
        raise ValueError(f"not a version-{VERSION} message: {first[:40]!r}")
    f = fsops.parse_record(text, strict=True)[1]
    try:
        for k in ("from", "from-run", "to", "seq", "length", "crc32"):
            if k not in f:
                raise ValueError(f"no {k!r}")
        if not (_DIGITS.fullmatch(f["seq"]) and _DIGITS.fullmatch(f["length"]) and _HEX8.fullmatch(f["crc32"])):
            raise ValueError("seq, length or crc32 malformed")
        length, crc, seq = int(f["length"]), int(f["crc32"], 16), int(f["seq"])
        sender = check_name(f["from"])
        check_name(f["to"])
        if not f["from-run"] or not _RUN.fullmatch(f["from-run"]) or not _RUN.fullmatch(f.get("to-run", "")):
            raise ValueError("run id malformed")
    except ValueError as e:
        raise ValueError(f"bad header: {e}") from None
    if box is not None and f["to"].lower() != box:
        raise ValueError(f"addressed to {f['to']!r}, found in the mailbox of {box!r}")
    if number is not None and seq != number:
        raise ValueError(f"numbered {seq}, found as message {number} (a copy?)")
    if len(data) != length:
        raise ValueError(f"truncated: {len(data)} of {length} bytes")
    if zlib.crc32(data) != crc:
        raise ValueError("checksum mismatch")
    try:
        body = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("body is not UTF-8") from None
    msg = Message(sender, body, seq, f.get("to-run", ""), f["from-run"], "mac" in f)
    if key is not None:
        if "mac" not in f:
            raise Unauthentic("no MAC (the sender has no shared secret)", msg)
        want = mac(key, f["from"], f["from-run"], f["to"], f.get("to-run", ""), f["seq"], data)
        if not hmac.compare_digest(want, f["mac"]):
            raise Unauthentic("wrong MAC (another secret, or a forged message)", msg)
    return msg


def msg_name(seq):
    return f"{seq:012d}.msg"


class Board:
    """One member's view of a board folder.

    >>> with Board("cardstand", "alice") as me:       # joins (Init) on entry
    ...     me.talk("bob", "hello")                   # doctest: +SKIP
    TalkResult(result=1, sender='', body='')

    With ``secret`` (bytes or str, see ``load_secret``) every message sent carries a MAC
    and every message received must carry the right one: others are refused (moved to
    ``trash/``, logged, listed by ``take_rejected``) and never returned.

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

    def __init__(self, folder, name, *, secret=None, stale_after=10.0, lock_timeout=10.0,
                 max_body=MAX_BODY, max_unread=MAX_UNREAD, take_over=False, inspect=None):
        self.name = check_name(name)
        # called with (bytes, seq) of every message file read from my mailbox before it is
        # decoded; what it raises reaches the caller (the conformance kit's own decoder)
        self.inspect = inspect
        self.take_over = take_over
        self.secret = _key(secret)
        self._rejected = []
        self.key = name.lower()
        self.folder = Path(folder)
        self.box = self.folder / "box"
        self.mine = self.box / self.key
        self.tmp = self.folder / "tmp"
        self.trash = self.folder / "trash"
        # every name under the folder is reached through the Root, never following a link
        self.root = fsops.Root.for_folder(self.folder)
        self._mine = f"box/{self.key}"
        self._member = None
        self.lock_timeout = lock_timeout
        self.max_body = max_body
        self.max_unread = max_unread
        self.run = None
        self.last_error = ""
        self.problem = ""
        self._logged = None
        # the message last returned to the caller and not yet acknowledged (M5): its number
        # and its bytes; it stays on the board until this Board's next receive, talk, wait,
        # quiet, wipe or close consumes it
        self._handed = None
        self._handed_raw = None
        self.lease = Lease(self.folder, self.tmp, stale_after=stale_after, who=self.key)
        self._state = ""
        self._beats = 0
        self._beat_lock = threading.Lock()
        self._beat_stop = None
        self._replaced_by = None     # the member record of the run that took our name
        self.identity = None         # F2b: the board's identity when this member joined
        self._identity_due = 0.0     # when the lock-free look checks it next (monotonic)

    def __repr__(self):
        return f"Board({str(self.folder)!r}, {self.name!r})"

    def __enter__(self):
        if self.run is None:
            self.join()
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Leave the board: acknowledge the message last returned (consume it, M5) if the lock
        can be taken within ``CLOSE_WAIT`` s (if not, it is returned again to this name's next
        run, unless that run calls ``quiet``); stop beating and remove this run's ``alive``
        record (I6: a closed run is not alive, though its process may go on); then remove the
        lock's private folder."""
        self.stop_heartbeat()
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
                    if self.alive(self.name).get("run") == self.run:
                        self.root.remove(f"{self._mine}/alive")
            except (OSError, AttributeError):
                pass
        self.lease.close()

    # -- joining -----------------------------------------------------------------
    def join(self, take_over=None):
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
        self._start_beating()
        return self

    def _join(self, take_over):
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
            raise BoardError(e.errno, self.last_error) from None
        self._clean_scratch()
        self.stop_heartbeat()
        run = fsops.new_token()
        text = (f"cardstand-member {VERSION}\nname: {self.name}\nrun: {run}\nhost: {fsops.HOST[:64]}\n"
                f"machine: {MACHINE[:100]}\npid: {os.getpid()}")
        if self.secret is not None:
            text += f"\nmac: {member_mac(self.secret, self.name, run)}"
        member = fsops.record(text)
        judged = None
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
                    self.run, self._replaced_by, self._beats = run, None, 0
                    self.identity = root.identity = identity
                    self._identity_due = time.monotonic() + IDENTITY_EVERY
                    self._write_alive()
                    self._clean_consumed()
                    break
            except (LockTimeout, OSError) as e:
                self.run = None
                self._failed(e, f"cannot join {self.folder} as {self.name}")
                raise BoardError(getattr(e, "errno", None), self.last_error) from None
        else:
            self._fail(f"cannot join {self.folder} as {self.name}: the name keeps changing hands")
            raise BoardError(None, self.last_error)

    def _adopt_identity(self):
        """F2b, under the lock of Init: the board's identity, written now when it has none
        (an older board) or a damaged one (set aside); None when it cannot be written."""
        root = self.root
        now = root.identity_now()
        if now:
            return now
        if now == "":
            root.set_aside(root.IDENTITY, "a damaged board identity: a new one is written")
        new = uuid.uuid4().hex
        try:
            root.replace(root.IDENTITY, fsops.record(f"cardstand-id {VERSION}\nid: {new}"))
        except OSError as e:
            log.warning("no identity written on the board %s (swapping it would go unnoticed): %s",
                        self.folder, e)
            return None
        return new

    def _member_fields(self):
        """The fields of this name's ``member`` record ({} when there is none or it is damaged)."""
        try:
            text = self.root.read_text(f"{self._mine}/member", strict=True)
        except (fsops.NotRegular, OSError):
            return {}
        return fsops.record_fields(text)

    def _refuse_if_alive(self, fields):
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

    def _busy(self, fields, seen, how):
        e = MemberBusy(self.name, fields, seen, how)
        self._fail(str(e))
        raise e

    def _alive_of_settled(self, run, unreadable=None):
        """``_alive_of``, but a record that is not there (or names another run) is read again
        for ``SETTLE`` s first: an SMB client may show no file while its writer replaces it."""
        beat = self._alive_of(run, unreadable)
        deadline = time.monotonic() + SETTLE
        while beat is None and time.monotonic() < deadline:
            time.sleep(SETTLE / 4)
            beat = self._alive_of(run, unreadable)
        return beat

    def _alive_of(self, run, unreadable=None):
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

    # -- presence (I6, P2) --------------------------------------------------------------
    def _write_alive(self):
        with self._beat_lock:
            self._beats += 1
            text = (f"cardstand-alive {VERSION}\nrun: {self.run}\nbeat: {self._beats}\n"
                    f"state: {self._state[:64]}")
            self.root.replace(f"{self._mine}/alive", fsops.record(text), durable=False)

    def _start_beating(self):
        stop = self._beat_stop = threading.Event()
        every = min(BEAT_EVERY, self.lease.stale_after / 5)
        threading.Thread(target=self._beat_loop, args=(stop, self.run, every), daemon=True,
                         name=f"comm-alive-{self.key}").start()

    def stop_heartbeat(self):
        """Stop beating the alive record while staying a member: to others this run then looks
        hung (P2); ``leave`` or ``close`` still end it cleanly."""
        if self._beat_stop is not None:
            self._beat_stop.set()
            self._beat_stop = None

    def _beat_loop(self, stop, run, every):
        """Beat the alive record until stopped, or until another run takes the name."""
        while not stop.wait(every):
            try:
                with self._on_board():
                    if self.run != run or self._taken_by() is not None:
                        return
                    self._write_alive()
                    self.lease.refresh_spare()
            except Exception as e:      # a share's passing error, a gone board: no news here
                log.debug("%s: beat skipped: %s", self.name, e)

    def _taken_by(self):
        """The member record of the run that has taken this name (I6), or None.  With a secret,
        only a record signed with it counts (A6): a planted one is logged and ignored."""
        if self._replaced_by is not None:
            return self._replaced_by
        fields = self._member_fields()
        run = fields.get("run", self.run)
        if run == self.run:
            return None
        # another board in its place is no take-over (T6): Swapped, or the folder gone, raised
        self.root.check_identity(self.identity)
        if self.secret is not None and not hmac.compare_digest(
                member_mac(self.secret, fields.get("name", ""), run), fields.get("mac", "")):
            if self._logged != ("forged member", run):
                self._logged = ("forged member", run)
                log.warning("%s: a member record naming another run (%r) without the shared secret's "
                            "MAC was ignored", self.name, run[:64])
            return None
        self._replaced_by = fields
        self.stop_heartbeat()
        return fields

    def _check_member(self):
        """Under the lock: raise ``Replaced`` when another run has taken this name (I6)."""
        fields = self._taken_by()
        if fields is None:
            return
        from .text import visible
        where = ", ".join(f"{k} {visible(fields.get(k, '?'), 64)}" for k in ("pid", "host"))
        raise Replaced(None, f"another run of {self.name} ({where}) has joined this board and "
                             "taken this name: this run must stop")

    def _make_folder(self):
        """The board folder itself, as the user named it (it may be a link: their choice)."""
        try:
            self.folder.mkdir(parents=True)
        except FileExistsError:
            return
        fsops.make_group_writable(self.folder)   # ours: writable by its group (F2)

    def _check_marker(self):
        marker = self.folder / "cardstand.board"
        try:
            data = self.root.read("cardstand.board", MARKER_LIMIT + 1, strict=True)
            text = None if data is None else data.decode("utf-8", "replace")
        except fsops.NotRegular as e:
            self.root.ensure_dir("trash")
            self.root.set_aside("cardstand.board", f"the board marker is {e.strerror}")
            text = None
        if text is None:
            self.root.replace("cardstand.board", f"cardstand-board {VERSION}\n".encode(), scratch="")
            return
        # F2: two words between runs of space, tab, CR and LF (only these: other white space, a
        # BOM, makes it no marker), the version 1 to 9 digits; interop/js reads it the same way
        words = re.split(r"[ \t\r\n]+", text.strip(" \t\r\n"))
        if len(data) > MARKER_LIMIT or len(words) != 2 or words[0] != "cardstand-board" \
                or not re.fullmatch(r"[0-9]{1,9}", words[1]):
            raise BoardError(None, f"{marker} is not a cardstand board marker: choose another folder")
        if int(words[1]) != VERSION:
            raise BoardError(None, f"{self.folder} is a board of protocol version {words[1][:20]}; "
                                   f"this program speaks version {VERSION}")

    def _clean_scratch(self):
        """Remove scratch left by crashed writers, judged old by the share's own clock (and
        scratch dated more than as much in the future), and old trash.  Never follows a link."""
        root = self.root
        try:
            with root.batch():
                probe = root.write_scratch("tmp", b"", durable=False)
                st = root.lstat(probe)
                root.remove(probe)
                if st is None:
                    return
                now = st.st_mtime
                for folder, max_age in (("tmp", SCRATCH_MAX_AGE), ("trash", TRASH_MAX_AGE)):
                    for name, est in root.scan(folder):
                        if est is None or not _cleanable(folder, name, est):
                            continue
                        rel = f"{folder}/{name}"
                        spare = folder == "tmp" and name.startswith("lock-") and stat.S_ISDIR(est.st_mode)
                        if spare:   # a kept private lock folder: its owner is rewritten (S1)
                            ost = root.lstat(f"{rel}/owner")
                            if ost is not None and stat.S_ISREG(ost.st_mode) and ost.st_mtime > est.st_mtime:
                                est = ost
                        age = now - est.st_mtime
                        if not (age > max_age or age < -SCRATCH_MAX_AGE):
                            continue
                        if spare:   # away from the name its member renames to lock, then deleted
                            rel, old = f"tmp/stale-{fsops.new_token()}", rel
                            try:
                                root.rename(old, rel, attempts=1)
                            except OSError:
                                continue    # taken or renamed under us: not ours to delete
                        root.remove_tree(rel)
        except OSError as e:
            log.debug("scratch clean-up skipped: %s", e)

    def _clean_consumed(self):
        """Message files at or below ``tail`` were consumed by a reader killed before deleting them."""
        tail, _ = self._pointers(self._mine)
        for name in self.root.listdir(self._mine):
            n = _msg_number(name)
            if n is not None and n <= tail:
                rel = f"{self._mine}/{name}"
                if not self.root.remove(rel):
                    st = self.root.lstat(rel)
                    if st is not None and stat.S_ISDIR(st.st_mode):
                        self._set_aside(rel, "a folder named like a consumed message")

    @contextmanager
    def _on_board(self):
        """A batch of this member's operations: every write in it first checks that the folder
        still is the board this member joined (F2b, T6)."""
        with self.root.batch(), self.root.expecting(self.identity):
            yield

    def _need_join(self):
        if self.run is None:
            raise RuntimeError(f"{self!r} has not joined: call join() (comm.Init) first")

    # -- the mailbox protocol (call with the lock held) -------------------------------
    def _oldest(self):
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
                self._set_aside(self.mine / msg_name(k), f"refused message from {m.sender}: {e}")
                self._rejected.append(Rejected(m.sender, m.sender_run, k, str(e)))
                del self._rejected[:-100]
            except ValueError as e:
                self._set_aside(self.mine / msg_name(k), f"damaged message: {e}")
            k += 1

    def _read_msg(self, k):
        """The bytes of message ``k`` of my mailbox, or None when there is none.  Anything
        but a regular file under that name (a FIFO, a folder, a link...) is moved to the
        trash and counts as missing: it never blocks, loops or jams the mailbox."""
        rel = f"{self._mine}/{msg_name(k)}"
        try:
            raw = self.root.read(rel, self.max_body + 4096, strict=True)
        except fsops.NotRegular as e:
            self._set_aside(rel, f"not a message: {e.strerror}")
            return None
        if raw is not None and self.inspect is not None:
            self.inspect(raw, k)
        return raw

    def _pointers(self, box):
        """``(tail, head)`` of the mailbox folder ``box`` (under the lock).

        Damaged values (not 1-12 decimal digits, above ``MAX_SEQ``, not a regular file, or a
        head further above the tail than any real mailbox gets) are never trusted to loop or
        to say "full": they are repaired by looking (M8), logged, and written back when the
        mailbox is mine.
        """
        if box == self._mine and self._member is not None:
            self._own_box()
        tail, tail_ok = self._read_pointer(f"{box}/tail")
        head, head_ok = self._read_pointer(f"{box}/head")
        if tail_ok and head_ok and head - tail <= self._span():
            return tail, head
        return self._repair_pointers(box, tail if tail_ok else None, head if head_ok else None)

    def _span(self):
        return 2 * max(self.max_unread, MAX_UNREAD)

    def _read_pointer(self, rel):
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

    def _listed(self, box):
        """Message numbers in a mailbox's listing (a listing may be stale: a hint only)."""
        return sorted(n for n in map(_msg_number, self.root.listdir(box)) if n is not None)

    def _repair_pointers(self, box, tail, head):
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

    def _own_box(self):
        """My mailbox is a real folder (under the lock): one set aside (it was a link or a file)
        is rebuilt, with my member record, and said so."""
        if self.root.ensure_dir(self._mine):
            log.warning("the mailbox %r was missing or not a folder: rebuilt", self._mine)
            self.root.replace(f"{self._mine}/member", self._member)

    def _hand(self, got):
        """Return a message found by ``_oldest`` to the caller: it stays on the board (its file
        and ``tail`` untouched) until the caller comes back (``_acknowledge``, M5), so that a
        process killed before the message reached its caller gets it again."""
        self._handed, self._handed_raw = got[0], got[2]
        return got[1]

    def _acknowledge(self):
        """Consume the message last handed to the caller, if any (under the lock, M5).

        Only that very message: when ``tail`` has passed it, or its file no longer holds the
        bytes returned (another run of this name took it, it was set aside...), nothing is
        touched.  If this raises, it is still handed and acknowledged by the next call."""
        seq = self._handed
        if seq is None:
            return
        tail, sane = self._read_pointer(f"{self._mine}/tail")
        if not sane or tail < seq:
            rel = f"{self._mine}/{msg_name(seq)}"
            try:
                now = self.root.read(rel, len(self._handed_raw) + 1, strict=True)
            except fsops.NotRegular:
                now = None
            if now == self._handed_raw:
                self._consume(seq)
        self._handed = self._handed_raw = None

    def _consume(self, seq):
        # Not forced to disk: a process killed at any instant leaves it intact;
        # only a power cut could bring back a consumed message (see PROTOCOL.md).
        self._write_tail(seq)
        self.root.remove(f"{self._mine}/{msg_name(seq)}")

    def _write_tail(self, seq):
        """Replace my ``tail``.  On a full disk it cannot be written: the message is deleted
        all the same, and the next search skips its missing number (M4, T2)."""
        try:
            self.root.replace(f"{self._mine}/tail", fsops.record(str(seq)), durable=False)
        except OSError as e:
            if fsops.trouble(e) != "full":
                raise
            log.info("%s: tail not moved to %d (%s): the next search skips what is gone", self.name, seq, e)

    def _set_aside(self, path, why):
        rel = path if isinstance(path, str) else Path(path).relative_to(self.folder).as_posix()
        self.root.set_aside(rel, why)

    def _deliver(self, to, data):
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
        framed = frame(self.name, self.run, to, to_run, k, data, self.secret)
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

    def take_rejected(self):
        """The messages refused for their MAC since the last call (``Rejected``), oldest first."""
        out, self._rejected = self._rejected, []
        return out

    def _maybe_waiting(self):
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

    def _fail(self, why, problem="other"):
        """Record a failure for the caller (``last_error``, ``problem``); logged once while it
        stays the same (a waiter retries it many times)."""
        self.last_error, self.problem = why, problem
        if self._logged != (problem, why):
            self._logged = (problem, why)
            log.warning("%s: %s", self.name, why)

    def _ok(self):
        self.last_error, self.problem, self._logged = "", "", None

    def _failed(self, e, doing=""):
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

    def _board_state(self):
        """None when the board's marker is there; "gone" when it or the folder is missing, or
        what reading it says (``fsops.trouble``: "disconnected"...).  Reads only."""
        try:
            return None if self.root.read(fsops.Root.MARKER, 64, strict=True) is not None else "gone"
        except fsops.NotRegular:
            return None         # something is there: the board is
        except OSError as e:
            return fsops.trouble(e) or "gone"

    def is_gone(self):
        """Whether the board folder or its marker is missing or unreachable (reads only)."""
        return self._board_state() is not None

    # -- the API -------------------------------------------------------------------
    def talk(self, to, body=""):
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
        return TalkResult(SENT, "", "")

    def send(self, to, body):
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
        return True

    def receive(self):
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
        return m

    def _safe_peek(self):
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

    def wait(self, timeout=None):
        """Block until a message arrives (returned) or ``timeout`` seconds pass (None).

        Polls by opening known names: every millisecond at first, backing off
        to every 50 ms after a second of waiting, so an idle waiter costs well
        under 1% of a core.  Returns None at once when the board is gone, disconnected or
        swapped, or this member was replaced (``problem`` says which); other failures (lock
        busy, disk full, read-only...) are
        retried with a pause that grows to 2 s, and ``problem`` stays set if the time ran
        out on one.
        """
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
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
            pause = min(0.001 + (now - start) / 20, 0.05)
            if self.problem:
                failures += 1
                pause = min(0.05 * 2 ** min(failures, 6), 2.0)
            else:
                failures = 0
            if deadline is not None:
                pause = min(pause, deadline - now)
            time.sleep(max(0.0, pause))

    def quiet(self):
        """``Quiet``: discard messages left for earlier runs of this name; returns how many.

        Messages sent to this run (after ``join``) are never discarded.  A message an earlier
        run received but did not acknowledge (it was killed, M5) is one of those discarded.
        A run that has been replaced (I6) discards nothing.  A failure (the lock not obtained,
        the board gone, this run replaced) returns what was discarded until then, with
        ``last_error`` and ``problem`` set.
        """
        return self._drop(lambda msg: msg.to_run != self.run, "cannot quiet")

    def wipe(self):
        """``WipeMessage``: discard every message waiting for this name; returns how many (on a
        failure, how many until then, with ``last_error`` and ``problem`` set)."""
        return self._drop(lambda msg: True, "cannot wipe")

    def _drop(self, which, doing):
        """Discard the oldest waiting messages while ``which(message)`` holds."""
        self._need_join()
        dropped = 0
        try:
            with self._on_board(), self.lease.hold(self.lock_timeout):
                self._acknowledge()
                while (got := self._oldest()) and which(got[1]):
                    self._consume(got[0])
                    dropped += 1
        except (LockTimeout, OSError) as e:
            self._failed(e, doing)
            return dropped
        self._ok()
        return dropped

    # -- presence ----------------------------------------------------------------
    def beat(self, state=None):
        """Say "I am here" now, with a short ``state`` kept for the beats that follow.

        A joined Board beats its member's ``alive`` record by itself about every second
        (I6); ``state`` (a game's "waiting", "thinking"; empty until given) tells others
        more (P2).  Others read it with ``alive(name)``.  Takes no lock: only this member
        writes its own record.  A failure is reported (``last_error``), never raised.
        """
        self._need_join()
        if state is not None:
            self._state = str(state)[:64]
        if self._replaced_by is not None:
            return
        try:
            with self._on_board():
                self._write_alive()
        except OSError as e:
            self._failed(e, "cannot write presence")

    def alive(self, name):
        """The ``alive`` record of ``name`` as a dict (``run``, ``beat``, ``state``), or None.

        A record that stops changing means its member is gone; judge that on
        your own clock (``time.monotonic``), never by file times.  None also
        when the record cannot be read just now (a share's passing error is no news).
        """
        check_name(name)
        text = self._quiet_read(f"box/{name.lower()}/alive")
        return None if text is None else fsops.record_fields(text)

    def _quiet_read(self, rel):
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

    def member_run(self, name):
        """The run id of ``name``'s latest ``join``, or None if it never joined."""
        text = self._quiet_read(f"box/{check_name(name).lower()}/member")
        return fsops.record_fields(text).get("run")

    def left(self, name):
        """Whether ``name``'s current run is known to have ended (I6): its ``alive`` record is
        gone (a clean close) while its process was on this machine, or that process is gone.
        False when that cannot be told (another machine: judge its heartbeat, P2)."""
        fields = fsops.record_fields(self._quiet_read(f"box/{check_name(name).lower()}/member"))
        running = pid_alive(fields)
        if running is None:
            return False
        return not running or (self.alive(name) or {}).get("run") != fields.get("run")

    def members(self):
        """Names that have joined this board (from a listing: informational)."""
        out = []
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


def _cleanable(folder, name, st):
    """Whether clean-up may remove ``folder/name`` (a link is never followed: it goes alone)."""
    if folder == "trash":
        return bool(_TRASH_ENTRY.fullmatch(name))
    is_dir = stat.S_ISDIR(st.st_mode)
    return bool((_SCRATCH_DIR if is_dir else _SCRATCH_FILE).fullmatch(name)
                or not is_dir and _SCRATCH_DIR.fullmatch(name))


def _msg_number(name):
    """The sequence number of a message file name, or None."""
    m = _MSG_FILE.fullmatch(name)
    if m is None:
        return None
    n = int(m.group(1))
    return n if n <= MAX_SEQ else None
