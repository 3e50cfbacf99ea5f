"""The board's lock: exclusive across processes and across computers sharing the folder.

Two layers.  On one host, a lock on a file in this user's own folder under the
local temp folder queues this user's processes (``hostlock``, see
``local_lock_dir``).  Across hosts and users, a lease in the board folder built
from operations network shares honour (every name reached without following
links, see ``fsops.Root``):

* take: write ``owner`` into a private scratch folder, then rename that folder
  to ``lock``.  The rename fails while ``lock`` exists; whatever it returned,
  read ``lock/owner`` back: the lock is ours only if it names our token.  The
  private folder is kept between tries, and a released lock becomes the next one
  (its fixed-size owner record overwritten in place with a new token), so that
  taking the lock needs no free space on the board's disk (a receiver can empty
  its mailbox on a full disk).
* hold: a background thread rewrites ``lock/beat`` every ``stale_after / 5`` s.
* stale: an observer keeps the last (owner, beat) it read and when that
  changed, on its own monotonic clock.  Unchanged for ``stale_after`` s means
  the holder is gone (clocks of two computers never meet: file times are not
  used).  A holder on the observer's own machine (same host and boot) whose
  process is gone is stale at once.  A wait that starts with nothing watched
  (a fresh process) lasts until the lock could be judged: ``stale_after`` plus
  ``FRESH_MARGIN`` after its first look, whatever its timeout.
* the host-local queue is waited for at most ``LOCAL_WAIT * stale_after``; then
  the lease alone decides (a holder stopped with SIGSTOP keeps its local lock).
* break: rename ``lock`` aside, check that what moved is what was judged
  stale (else put it back), delete it.
* release: rename ``lock`` to our next private folder (a new token written over the
  old in place); where that fails, aside and delete it.  False when it was taken
  from us (we stalled for over ``stale_after``).
* ``lock`` as a symbolic link is moved to the trash at once (no holder makes one).
* interrupted (Ctrl+C, or a signal raised as KeyboardInterrupt, at any point of a take or a
  release): the token that may stand on the board is kept (``_put_up``); the next take
  adopts a lock naming it, and ``close`` takes it down, so that the process can still say
  goodbye and leaves no lock for the others to wait out.
"""
import hashlib
import logging
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import fsops, winprocess
from .aside import Why
from .hostlock import HostLock, PlatformLock

log = logging.getLogger("comm")

# a lock's (owner, beat), as read; a record that is not there reads as None
Signature = tuple[bytes | None, bytes | None]

FRESH_MARGIN = 1.0   # s: a first wait lasts at least L + this after its first look (L3)
LOCAL_WAIT = 0.5     # the host-local queue is waited for at most this times L (L7)
SPARE_REFRESH = 120.0  # s: a kept private lock folder's owner is rewritten this often (S1)


def _boot_id() -> str:
    """Linux's id of this boot; "" elsewhere.  (On Windows under Wine, /proc is Linux's: a pid
    there is Wine's, not one that Linux's processes of the same boot could look up.  Windows
    has its own, see ``_machine``.)"""
    if os.name == "nt":
        return ""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _pid_namespace() -> str:
    """Linux's name for this process's pid namespace (``pid:[4026531836]``): two containers
    on one host share its name and boot id, not their pids."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except (OSError, AttributeError):
        return ""


def _machine() -> str:
    if os.name == "nt":
        win = winprocess.machine()
        return f"{fsops.HOST}/{win}" if win else ""
    boot = _boot_id()
    return "/".join(x for x in (fsops.HOST, boot, _pid_namespace()) if x) if boot else ""


# Where a pid means one process (L1, L4, I6): host, boot and pid namespace (on Windows: host,
# installation and boot, see winprocess); "" when unknown
MACHINE = _machine()


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":
        return winprocess.running(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A process that has exited and waits to be reaped (Linux: state Z in /proc) runs no more."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read(4096).rpartition(b")")[2].split()[:1] == [b"Z"]
    except OSError:
        return False


def pid_alive(fields: Mapping[str, str]) -> bool | None:
    """Whether the process a record names (``machine``, ``pid``) runs: True or False when it
    is on this machine (same host and boot), None when that cannot be told here (another
    machine, no boot id, or a pid no machine has: judged by a heartbeat instead)."""
    if not MACHINE or fields.get("machine") != MACHINE:
        return None
    pid = fields.get("pid", "")
    if not re.fullmatch(r"[1-9][0-9]{0,9}", pid) or int(pid) > 2**31 - 1:
        return None
    try:
        return _pid_alive(int(pid))
    except (OverflowError, ValueError):
        return None


def local_lock_dir() -> Path | None:
    """This user's folder for host-local lock files, or None when there is no safe one.

    One folder per user (``<temp>/cardstand-locks-<uid>``, mode 0700, checked to be a real
    folder owned by this user that nobody else can write): another user can neither plant
    a link in it nor hold our lock files.  Processes of different users on one host do not
    queue on each other then: the board's own lease (L1-L6) orders them.  Windows and macOS
    give every user a temp folder of their own already.
    """
    base = tempfile.gettempdir()
    d: Path | None
    if not hasattr(os, "geteuid"):
        shared = Path(base) / "cardstand-locks"
        try:
            shared.mkdir(exist_ok=True)
            d = shared
        except OSError:
            d = None
    else:
        uid = os.geteuid()
        d = Path(base) / f"cardstand-locks-{uid}"
        try:
            top = os.stat(base)
            if top.st_mode & 0o002 and not top.st_mode & stat.S_ISVTX:
                # others could rename our folder away and put theirs in its place
                raise PermissionError(f"{base} is writable by everyone and not sticky")
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
        except OSError as e:
            log.warning("no host-local lock queue (%s); the board's lock alone orders processes", e)
            d = None
        if d is not None:
            try:
                st = os.lstat(d)
                ok = stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o022
            except OSError:
                ok = False
            if not ok:
                log.warning("not using %s for host-local locks: it is not a private folder of this "
                            "user (a link, or made by someone else); the board's lock alone orders "
                            "processes", d)
                d = None
    return d


def local_lock(folder: str | os.PathLike[str]) -> HostLock | None:
    """The host-local lock of a board folder, or None (see above)."""
    d = local_lock_dir()
    if d is None:
        return None
    digest = hashlib.sha1(str(Path(folder).resolve()).encode("utf-8", "replace")).hexdigest()[:20]
    return PlatformLock(d / f"{digest}.lock")


class Lease:
    """The exclusive lock on one board folder.  Use ``with lease.hold(timeout):``.

    Every name under the board is reached without following links (``fsops.Root``): a link
    planted as ``lock``, inside it or under ``tmp/`` is moved or removed, never followed.
    """

    LINK = (b"<a link, not a folder>", b"")

    def __init__(self, folder: str | os.PathLike[str], scratch: str | os.PathLike[str], *,
                 stale_after: float = 10.0, who: str = "") -> None:
        self.folder = Path(folder)
        self.root = fsops.Root.for_folder(folder)
        self.path = self.folder / "lock"
        self.scratch = Path(scratch)
        self._tmp = Path(os.path.relpath(os.path.abspath(scratch), os.path.abspath(folder))).as_posix()
        self.stale_after = float(stale_after)
        self.who = who
        self.token: str | None = None
        self._put_up: str | None = None     # a token of ours that may name the lock without our knowing
        self._unfinished: set[str] = set()  # our folders under tmp/ that an interrupt may have left
        self._local = local_lock(self.folder)
        self._local_stuck = False       # the local queue was busy for LOCAL_WAIT * L (logged once)
        self._spare: str | None = None  # token of our private lock folder in tmp/, ready to rename
        self._spare_at = 0.0            # when its owner was last written (our monotonic clock)
        self._spare_lock = threading.Lock()  # one writer of the spare's owner at a time
        self._cv = threading.Condition()
        self._beat_lock = threading.Lock()  # held while a beat is written: release() waits it out
        self._beater: threading.Thread | None = None
        self._closed = False            # close() ends the heartbeat thread at once
        self._beats = 0
        # what the lock looked like and since when (our monotonic clock): kept across
        # acquire() calls, so that operations giving up after T <= L still see a stale lock
        self._seen: Signature | None = None
        self._since = 0.0
        self._unjudged = False          # a new observation not yet checked for a dead local holder
        self._refused: OSError | None = None    # why the last try's rename failed, if it did (timeout_reason)

    # -- reading the lock ----------------------------------------------------
    def _signature(self, rel: str = "lock") -> Signature | None:
        """(owner bytes, beat bytes) of a lock folder; None when there is none.

        What is not a plain lock reads as a fixed marker, so that it is judged stale (L4) and
        broken like a lock whose holder is gone: ``lock`` as a file, FIFO or link (``LINK``),
        ``owner`` or ``beat`` as a link or anything but a regular file.
        """
        root = self.root
        with root.holding(rel):     # owner and beat of one and the same folder
            try:
                owner = root.read(f"{rel}/owner", 4096, strict=True)
            except fsops.NotRegular as e:
                if e.filename == rel:
                    st = root.lstat(rel)
                    if st is None:
                        return None
                    return self.LINK if fsops.is_link(st) else (b"<not a folder>", b"")
                owner = b"<owner: %s>" % (e.strerror or "").encode("ascii", "replace")
            except OSError as e:
                return (self._unreadable_sig(e), b"")
            if owner is None and root.lstat(rel) is None:
                return None
            try:
                beat = root.read(f"{rel}/beat", 64, strict=True)
            except fsops.NotRegular as e:
                beat = b"<beat: %s>" % (e.strerror or "").encode("ascii", "replace")
            except OSError as e:
                return (self._unreadable_sig(e), b"")
        return (owner, beat)

    @staticmethod
    def _unreadable_sig(e: OSError) -> bytes:
        """The owner part of a signature that could not be read, with the reason."""
        why = (e.strerror or os.strerror(e.errno or 0) or "error").encode("ascii", "replace")[:80]
        return b"<unreadable: %s (errno %d)>" % (why, e.errno or 0)

    @staticmethod
    def _unreadable(sig: Signature | None) -> bool:
        return sig is not None and (sig[0] or b"").startswith(b"<unreadable")

    def _settled_signature(self, rel: str = "lock", patience: float = 2.0) -> Signature | None:
        """The signature, read again while a share answers with errors (up to ``patience`` s)."""
        give_up = time.monotonic() + patience
        delay = 0.01
        while True:
            sig = self._signature(rel)
            if not self._unreadable(sig) or time.monotonic() >= give_up:
                return sig
            time.sleep(delay)
            delay = min(2 * delay, 0.2)

    @staticmethod
    def _owner_fields(owner: bytes | None) -> dict[str, str]:
        return fsops.record_fields((owner or b"").decode("utf-8", "replace"))

    def holder(self) -> dict[str, str] | None:
        """Who holds the lock now: a dict of the owner fields, or None."""
        sig = self._signature()
        return None if sig is None else self._owner_fields(sig[0])

    def is_mine(self) -> bool:
        """Whether the lock is held by this ``Lease`` now (read back from the board)."""
        sig = self._settled_signature()
        return sig is not None and self.token is not None and \
            self._owner_fields(sig[0]).get("token") == self.token

    # -- taking and breaking ---------------------------------------------------
    def _owner_text(self, token: str) -> bytes:
        return fsops.record(f"cardstand-lock 1\ntoken: {token}\nname: {self.who}\nhost: {fsops.HOST[:64]}\n"
                            f"machine: {MACHINE[:100]}\npid: {os.getpid()}")

    def _prepared(self) -> str:
        """The token of our private lock folder ``tmp/lock-<token>`` (owner written), made now
        if there is none: kept between tries, and refilled by ``release``, so that taking the
        lock needs no free space."""
        if self._spare is not None:
            self.refresh_spare()
            return self._spare
        token = fsops.new_token()
        mine = f"{self._tmp}/lock-{token}"
        root = self.root
        with self._making(mine):
            try:
                root.mkdir(mine)
                root.create(f"{mine}/owner", self._owner_text(token))  # no fsync: a lock does not outlive a reboot
            except OSError as e:
                root.remove_tree(mine)
                raise OSError(e.errno, f"cannot write in the board's scratch folder {self.scratch}: "
                                       f"{e.strerror or e}") from None
            self._spare, self._spare_at = token, time.monotonic()
        return token

    @contextmanager
    def _making(self, name: str) -> Iterator[None]:
        """A folder under tmp/ that the block makes or moves there, and hands over (as the spare)
        or removes: ``close`` removes it if an interrupt stops the block before that."""
        self._unfinished.add(name)
        yield
        self._unfinished.discard(name)

    def refresh_spare(self) -> None:
        """Rewrite the owner record of our kept private folder in place when it is due (every
        ``SPARE_REFRESH`` s), so that clean-up (S1), which judges such a folder by the newer of
        its own and its owner's times, never takes it from a live member.  Safe to call from
        another thread (the heartbeat does, while the member is idle)."""
        with self._spare_lock:
            token = self._spare
            if token is None or time.monotonic() - self._spare_at < SPARE_REFRESH:
                return
            try:
                self.root.overwrite(f"{self._tmp}/lock-{token}/owner", self._owner_text(token))
                self._spare_at = time.monotonic()
            except OSError as e:    # gone or replaced: the next take makes a new one
                log.debug("private lock folder not refreshed: %s", e)

    def _try_take(self) -> bool:
        """One try (L1): True when the lock is ours.  Raises at once an error that no holder
        explains (T2-T5): the board read-only, its share disconnected, another board in its
        place; or refused (permission, space, I/O) while no lock is there to refuse it."""
        root = self.root
        with root.batch():
            token = self._prepared()
            refused = None
            try:
                with self._spare_lock:
                    self._put_up = self._put_up or token
                    root.rename(f"{self._tmp}/lock-{token}", "lock", attempts=1)
            except FileNotFoundError:
                self._spare = None      # cleaned up under us (S1): made again at the next try
            except OSError as e:
                # refused because the lock exists, or an error a share made up: read back
                if fsops.trouble(e) in ("readonly", "disconnected", "swapped"):
                    raise
                refused = e
            sig = self._settled_signature()
            owner = self._owner_fields(sig[0]).get("token") if sig is not None else None
            if owner is not None and owner in (token, self._put_up, self.token):
                if owner == token:
                    self._spare = None
                # (or ours already: from a take or a release an interrupt stopped, or a hold whose
                # end never ran)
                self.token, self._put_up = owner, None
                return True
            if self._put_up == token:
                self._put_up = None
            if sig is None and refused is not None and fsops.trouble(refused):
                raise refused
            self._refused = refused
            return False

    def _dead_on_this_machine(self, owner: bytes | None) -> bool:
        return pid_alive(self._owner_fields(owner)) is False

    def _dismantle(self, owner: bytes | None, label: str) -> bool:
        """Take the lock apart where its folder cannot be renamed: move ``owner`` aside (the
        lock's identity), check it is the record meant, then delete the rest.

        SMB refuses to rename a folder while a file inside is open on the same connection,
        and a client that lost track of an open (a timeout under load) keeps it so for good.
        True when the record was removed; the folder may stay behind, empty (L4 judges it).
        """
        root = self.root
        aside = f"{self._tmp}/{label}-owner"
        with root.batch():
            if owner is not None:
                try:
                    root.rename("lock/owner", aside)
                except OSError:
                    return False
                try:
                    moved = root.read(aside, 4096, strict=True)
                except fsops.NotRegular as e:
                    moved = b"<owner: %s>" % (e.strerror or "").encode("ascii", "replace")
                except OSError:
                    moved = None
                if moved != owner:
                    try:
                        root.rename(aside, "lock/owner", attempts=1)  # not the record we judged: put it back
                    except OSError:
                        log.warning("lock changed while being taken apart; its holder will notice")
                    return False
            root.remove("lock/beat")
            try:
                root.rmdir("lock")
            except OSError:
                pass
            root.remove_tree(aside)
            return True

    def _break(self, sig: Signature, why: str) -> None:
        root = self.root
        aside = f"{self._tmp}/stale-{fsops.new_token()}"
        with root.batch():
            try:
                root.rename("lock", aside, attempts=1)
            except FileNotFoundError:
                return  # gone already
            except OSError:
                # refused: someone else is breaking it, or the share will not rename it at all
                if not self._unreadable(sig) and sig[0] != b"<not a folder>" and sig != self.LINK \
                        and self._dismantle(sig[0], aside.rpartition("/")[2]):
                    self._report_break(sig, why)
                return
            if self._settled_signature(aside) != sig:
                try:
                    root.rename(aside, "lock", attempts=1)  # it changed since we judged it: put it back
                except OSError:
                    log.warning("lock changed while being broken; its holder will notice")
                return
            self._report_break(sig, why)
            root.remove_tree(aside, expect=("owner", "beat"))   # never follows a link planted inside

    def _set_aside_link(self) -> None:
        """``lock`` is a symbolic link (or reparse point): no holder ever makes one (L1 renames a
        folder), so it is moved to the trash at once, never followed."""
        self.root.set_aside("lock", Why("not_folder", "a symbolic link", "a symbolic link where the lock folder belongs"))

    def _report_break(self, sig: Signature, why: str) -> None:
        f = self._owner_fields(sig[0])
        log.warning("broke a stale lock of %r (pid %r on %r): %s", f.get("name", "?"),
                    f.get("pid", "?"), f.get("host", "?"), why)

    def _watch(self, sig: Signature | None, now: float) -> bool:
        """Note when the lock's (owner, beat) last changed, on our clock (L3); True when it is
        new.  A read error is no news: it neither changes nor resets the observation."""
        if sig is not None and (self._seen is None or (sig != self._seen and not self._unreadable(sig))):
            self._seen, self._since, self._unjudged = sig, now, True
            return True
        return False

    def _queue_locally(self, deadline: float) -> None:
        """Wait for the host-local lock (L7), at most ``LOCAL_WAIT * stale_after`` and not past
        ``deadline``, watching the board's lock meanwhile; the board's lease goes on either way.

        A holder stopped with SIGSTOP keeps its local lock for as long as it is stopped: the
        others then go on with the board's lease alone, which breaks its lock after L.  Once
        the queue was found stuck it is only tried, not waited for, until it is obtained again.
        """
        local = self._local
        if local is None:
            return
        now = time.monotonic()
        bound = now + (0.0 if self._local_stuck else self.stale_after * LOCAL_WAIT)
        until = min(deadline, bound)
        look = now + 0.25       # when to look at the board's lock again while queued here
        while True:
            if local.try_acquire():
                self._local_stuck = False
                return
            now = time.monotonic()
            if now >= until:
                if until >= bound and not self._local_stuck:
                    self._local_stuck = True
                    log.warning("the host-local lock queue of %s has been busy for %g s (a process of "
                                "this machine stopped while holding the board lock?): going on with "
                                "the board's lock alone", self.folder, self.stale_after * LOCAL_WAIT)
                return
            if now >= look:
                self._watch(self._signature(), now)
                look = now + 0.25
            time.sleep(min(0.001, until - now))

    def acquire(self, timeout: float, patient: bool = True) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds; False when it could not.

        A wait that starts with nothing watched (this ``Lease``'s first, or the first after a
        break) lasts until its first look at the lock is ``stale_after + FRESH_MARGIN`` old if
        need be, so that a fresh process can judge a lock left behind (L3); not when
        ``patient`` is False (a wait that may as well give up).  ``timeout_reason()`` then
        says who held the lock.
        """
        start = time.monotonic()
        deadline = start + max(0.0, timeout)
        fresh = patient and self._seen is None
        holders = set()     # the owners of the locks seen during this wait
        self._refused = None
        try:
            self._queue_locally(deadline)
            delay = 0.0005
            with self.root.batch():
                while True:
                    if self._try_take():
                        self._start_beating()
                        return True
                    sig = self._signature()
                    now = time.monotonic()
                    if sig == self.LINK:
                        self._set_aside_link()
                        continue
                    self._watch(sig, now)
                    if sig is not None and not self._unreadable(sig):
                        holders.add(sig[0])
                    if self._unjudged and sig is not None:
                        self._unjudged = False
                        if self._dead_on_this_machine(sig[0]):
                            self._break(sig, "its process is gone")
                            continue
                    elif sig is not None and self._seen is not None and now - self._since >= self.stale_after:
                        self._break(self._seen, f"no heartbeat for {self.stale_after:g} s")
                        self._seen = None
                        continue
                    if fresh and self._seen is not None:
                        fresh = False
                        deadline = max(deadline, self._since + self.stale_after + FRESH_MARGIN)
                    if now >= deadline:
                        self._timed_out = (now - start, len(holders), self._refused)
                        self._release_local()
                        return False
                    time.sleep(min(delay, max(0.0, deadline - now)))
                    delay = min(delay * 2, 0.01)
        except BaseException:
            with self._cv:      # interrupted once taken: not held, but adopted by the next take
                if self.token is not None:
                    self._put_up, self.token = self.token, None
            self._release_local()
            raise

    def _release_local(self) -> None:
        # whatever a flag of ours says: an interrupt landing just after it was taken would leave
        # it held, and this host's queue stuck until the process ends (release closes the file,
        # and does nothing when none is open)
        if self._local is not None:
            self._local.release()

    def timeout_reason(self) -> str:
        """Why the last ``acquire`` gave up, naming the holder it watched (for ``LockTimeout``)."""
        waited, holders, refused = getattr(self, "_timed_out", (0.0, 0, None))
        sig = self._seen
        if sig is None and holders:
            return (f"the board lock was not obtained within {waited:.3g} s (it kept changing hands: "
                    f"{holders} holders came and went)")
        if sig is None:
            why = f"{refused.strerror or refused}" if refused is not None else "no error was reported"
            return (f"the board lock was not obtained within {waited:.3g} s, though no holder was seen "
                    f"({self.folder}): taking it failed ({why})")
        return (f"the board lock was not obtained within {waited:.3g} s: it is held by "
                f"{self._describe(sig[0])}, unchanged for {time.monotonic() - self._since:.1f} s")

    def _describe(self, owner: bytes | None) -> str:
        """The holder named by an owner record, for people (text from the board made visible)."""
        from .text import visible
        if owner is not None and owner.startswith(b"<"):
            return f"nobody known (its owner record is {visible(owner.decode('ascii', 'replace').strip('<>'), 80)})"
        if owner is None:
            return "nobody known (it has no owner record)"
        f = self._owner_fields(owner)
        if not f.get("name") and not f.get("pid"):
            return "nobody known (its owner record is not one)"
        v = {k: visible(f.get(k) or "?", 64) for k in ("name", "pid", "host")}
        machine = f", machine {visible(f['machine'], 100)}" if f.get("machine") else ""
        return f"{v['name']} (pid {v['pid']} on {v['host']}{machine})"

    def release(self) -> bool:
        """Leave the lock (L6).  False when it had been taken from us (we stalled for over L:
        what we did under it after that is not to be trusted), True otherwise."""
        with self._cv:
            held = self.token is not None
            token = self._put_up = self.token or self._put_up
            self.token = None
            self._cv.notify_all()
        with self._beat_lock:   # a beat under way may have read the lock as ours before this
            pass
        if token is None:
            return True
        root = self.root
        lost = False
        try:
            with root.batch():
                sig = self._settled_signature()
                if sig is not None and self._owner_fields(sig[0]).get("token") == token:
                    self._leave(sig, token)
                elif sig is not None and self._unreadable(sig):
                    log.warning("could not read the board lock to release it (others will break it "
                                "after %g s): %s", self.stale_after, (sig[0] or b"").decode("ascii", "replace"))
                elif held:
                    lost = True
                    log.warning("the board lock was taken from us while we held it "
                                "(stalled or stopped for over %g s?)", self.stale_after)
            self._put_up = None
        finally:
            self._release_local()
        return not lost

    def _leave(self, sig: Signature, token: str) -> None:
        """Move our lock out of the way: it becomes our next private folder, its owner record
        overwritten in place with a new token (a record keeps its size: no space needed); where
        that fails it is deleted.  SMB refuses to rename a folder while another client reads a
        file in it (for a moment), or for good once its own client lost track of an open file
        inside: after two refusals, also try taking the lock apart (L5a)."""
        root = self.root
        nxt = fsops.new_token() if self._spare is None else None
        aside = f"{self._tmp}/lock-{nxt}" if nxt else f"{self._tmp}/released-{token}"
        with self._making(aside):
            self._move_aside(sig, token, aside, nxt)

    def _move_aside(self, sig: Signature, token: str, aside: str, nxt: str | None) -> None:
        root = self.root
        for attempt in range(30):
            try:
                root.rename("lock", aside, attempts=1)
                break
            except FileNotFoundError:
                return
            except OSError as e:
                refusal = e
            if attempt >= 2 and self._dismantle(sig[0], f"released-{token}"):
                return
            time.sleep(min(0.01 * (attempt + 1), 0.05))
        else:
            log.warning("could not release the board lock (others will break it after "
                        "%g s): %s", self.stale_after, refusal)
            return
        if nxt:
            root.remove(f"{aside}/beat")
            try:
                with self._spare_lock:
                    root.overwrite(f"{aside}/owner", self._owner_text(nxt))
                    self._spare, self._spare_at = nxt, time.monotonic()
                return
            except OSError:
                pass
        root.remove_tree(aside, expect=("owner", "beat"))

    def close(self) -> bool:
        """Release the lock if held and remove our private folder from ``tmp/``."""
        ok = self.release()
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        spare, self._spare = self._spare, None
        left = [f"{self._tmp}/lock-{spare}"] if spare is not None else []
        for name in [*left, *sorted(self._unfinished)]:
            try:
                self.root.remove_tree(name, expect=("owner", "beat"))
            except OSError:
                pass
            self._unfinished.discard(name)
        return ok

    def hold(self, timeout: float, patient: bool = True) -> "_Held":
        """``with lease.hold(timeout):`` holds the lock for the block; ``LockTimeout`` when it
        could not be taken in time."""
        return _Held(self, timeout, patient)

    # -- heartbeat -------------------------------------------------------------
    def _start_beating(self) -> None:
        with self._cv:
            self._closed = False
            self._cv.notify_all()
            if self._beater is None or not self._beater.is_alive():
                self._beater = threading.Thread(target=self._beat_loop, name="comm-heartbeat", daemon=True)
                self._beater.start()

    def _beat_loop(self) -> None:
        every = self.stale_after / 5
        while True:
            with self._cv:
                while self.token is None:
                    if self._closed or not self._cv.wait(timeout=60) and self.token is None:
                        self._beater = None
                        return
                token = self.token
                self._cv.wait(timeout=every)
            with self._beat_lock:
                if self.token != token:
                    continue
                try:
                    with self.root.batch():
                        if self.is_mine():
                            self._beats += 1
                            self.root.replace("lock/beat", fsops.record(str(self._beats)), durable=False,
                                              scratch=self._tmp)
                except OSError as e:
                    log.warning("heartbeat failed: %s", e)


class _Held:
    def __init__(self, lease: Lease, timeout: float, patient: bool = True) -> None:
        self.lease, self.timeout, self.patient = lease, timeout, patient

    def __enter__(self) -> Lease:
        if not self.lease.acquire(self.timeout, self.patient):
            raise LockTimeout(self.lease.timeout_reason())
        return self.lease

    def __exit__(self, *exc: Any) -> None:
        self.lease.release()


class LockTimeout(TimeoutError):
    """The board lock could not be obtained in time."""


class LockLost(LockTimeout):
    """The board lock was taken from us while we held it (we stalled for over L): the
    operation was abandoned before it changed anything."""
