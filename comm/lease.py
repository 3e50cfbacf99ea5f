"""The board's lock: exclusive across processes and across computers sharing the folder.

Two layers.  On one host, ``filelock.FileLock`` on a file in this user's own
folder under the local temp folder queues this user's processes (see
``local_lock_dir``).  Across hosts and users, a lease in the board folder built
from operations network shares honour (every name reached without following
links, see ``fsops.Root``):

* take: write ``owner`` into a private scratch folder, then rename that folder
  to ``lock``.  The rename fails while ``lock`` exists; whatever it returned,
  read ``lock/owner`` back: the lock is ours only if it names our token.
* hold: a background thread rewrites ``lock/beat`` every ``stale_after / 5`` s.
* stale: an observer keeps the last (owner, beat) it read and when that
  changed, on its own monotonic clock.  Unchanged for ``stale_after`` s means
  the holder is gone (clocks of two computers never meet: file times are not
  used).  A holder on the observer's own machine (same host and boot) whose
  process is gone is stale at once.
* break: rename ``lock`` aside, check that what moved is what was judged
  stale (else put it back), delete it.
* release: rename ``lock`` aside, then delete it.
* ``lock`` as a symbolic link is moved to the trash at once (no holder makes one).
"""
import hashlib
import logging
import os
import re
import stat
import tempfile
import threading
import time
from pathlib import Path

import filelock

from . import fsops

log = logging.getLogger("comm")


def _boot_id():
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


MACHINE = f"{fsops.HOST}/{_boot_id()}" if _boot_id() else ""


def _pid_alive(pid):
    if os.name == "nt":
        return True  # no cheap portable check: rely on the heartbeat
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def local_lock_dir():
    """This user's folder for host-local lock files, or None when there is no safe one.

    One folder per user (``<temp>/cardstand-locks-<uid>``, mode 0700, checked to be a real
    folder owned by this user that nobody else can write): another user can neither plant
    a link in it nor hold our lock files.  Processes of different users on one host do not
    queue on each other then: the board's own lease (L1-L6) orders them.  Windows and macOS
    give every user a temp folder of their own already.
    """
    base = tempfile.gettempdir()
    if not hasattr(os, "geteuid"):
        d = Path(base) / "cardstand-locks"
        try:
            d.mkdir(exist_ok=True)
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


def local_lock(folder):
    """The host-local lock (a ``filelock.FileLock``) of a board folder, or None (see above)."""
    d = local_lock_dir()
    if d is None:
        return None
    digest = hashlib.sha1(str(Path(folder).resolve()).encode("utf-8", "replace")).hexdigest()[:20]
    return filelock.FileLock(str(d / f"{digest}.lock"))


class Lease:
    """The exclusive lock on one board folder.  Use ``with lease.hold(timeout):``.

    Every name under the board is reached without following links (``fsops.Root``): a link
    planted as ``lock``, inside it or under ``tmp/`` is moved or removed, never followed.
    """

    LINK = (b"<a link, not a folder>", b"")

    def __init__(self, folder, scratch, *, stale_after=10.0, who=""):
        self.folder = Path(folder)
        self.root = fsops.Root.for_folder(folder)
        self.path = self.folder / "lock"
        self.scratch = Path(scratch)
        self._tmp = Path(os.path.relpath(os.path.abspath(scratch), os.path.abspath(folder))).as_posix()
        self.stale_after = float(stale_after)
        self.who = who
        self.token = None
        self._local = local_lock(self.folder)
        self._cv = threading.Condition()
        self._beater = None
        self._beats = 0
        # what the lock looked like and since when (our monotonic clock): kept across
        # acquire() calls, so that operations giving up after T <= L still see a stale lock
        self._seen = None
        self._since = 0.0

    # -- reading the lock ----------------------------------------------------
    def _signature(self, rel="lock"):
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
                    return self.LINK if fsops._is_link(st) else (b"<not a folder>", b"")
                owner = b"<owner: %s>" % e.strerror.encode("ascii", "replace")
            except OSError as e:
                return (b"<unreadable: %d>" % (e.errno or 0), b"")
            if owner is None and root.lstat(rel) is None:
                return None
            try:
                beat = root.read(f"{rel}/beat", 64, strict=True)
            except fsops.NotRegular as e:
                beat = b"<beat: %s>" % e.strerror.encode("ascii", "replace")
            except OSError as e:
                return (b"<unreadable: %d>" % (e.errno or 0), b"")
        return (owner, beat)

    @staticmethod
    def _unreadable(sig):
        return sig is not None and (sig[0] or b"").startswith(b"<unreadable")

    def _settled_signature(self, rel="lock", patience=2.0):
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
    def _owner_fields(owner):
        fields = {}
        for line in (owner or b"").decode("utf-8", "replace").splitlines():
            key, sep, value = line.partition(": ")
            if sep:
                fields[key] = value.strip()
        return fields

    def holder(self):
        """Who holds the lock now: a dict of the owner fields, or None."""
        sig = self._signature()
        return None if sig is None else self._owner_fields(sig[0])

    def is_mine(self):
        sig = self._settled_signature()
        return sig is not None and self.token is not None and \
            self._owner_fields(sig[0]).get("token") == self.token

    # -- taking and breaking ---------------------------------------------------
    def _owner_text(self, token):
        return fsops.record(f"cardstand-lock 1\ntoken: {token}\nname: {self.who}\nhost: {fsops.HOST[:64]}\n"
                            f"machine: {MACHINE[:100]}\npid: {os.getpid()}")

    def _try_take(self):
        token = fsops.new_token()
        mine = f"{self._tmp}/lock-{token}"
        root = self.root
        with root.batch():
            try:
                root.mkdir(mine)
                root.create(f"{mine}/owner", self._owner_text(token))  # no fsync: a lock does not outlive a reboot
            except OSError as e:
                root.remove_tree(mine)
                raise OSError(e.errno, f"cannot write in the board's scratch folder {self.scratch}: "
                                       f"{e.strerror or e}") from None
            try:
                root.rename(mine, "lock", attempts=1)
            except OSError:
                pass  # refused because the lock exists, or an error a share made up: read back
            sig = self._settled_signature()
            if sig is not None and self._owner_fields(sig[0]).get("token") == token:
                self.token = token
                return True
            root.remove_tree(mine)
            return False

    def _dead_on_this_machine(self, owner):
        f = self._owner_fields(owner)
        if not MACHINE or f.get("machine") != MACHINE:
            return False
        pid = f.get("pid", "")
        if not re.fullmatch(r"[1-9][0-9]{0,9}", pid) or int(pid) > 2**31 - 1:
            return False    # not a pid this machine could have: judged by its heartbeat (L4)
        try:
            return not _pid_alive(int(pid))
        except (OverflowError, ValueError):
            return False

    def _dismantle(self, owner, label):
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
                    moved = b"<owner: %s>" % e.strerror.encode("ascii", "replace")
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

    def _break(self, sig, why):
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

    def _set_aside_link(self):
        """``lock`` is a symbolic link (or reparse point): no holder ever makes one (L1 renames a
        folder), so it is moved to the trash at once, never followed."""
        self.root.set_aside("lock", "a symbolic link where the lock folder belongs")

    def _report_break(self, sig, why):
        f = self._owner_fields(sig[0])
        log.warning("broke a stale lock of %r (pid %r on %r): %s", f.get("name", "?"),
                    f.get("pid", "?"), f.get("host", "?"), why)

    def acquire(self, timeout):
        """Take the lock, waiting up to ``timeout`` seconds; False when it could not."""
        deadline = time.monotonic() + max(0.0, timeout)
        local = self._local
        if local is not None:
            try:
                local.acquire(timeout=max(0.0, timeout), poll_interval=0.001)
            except filelock.Timeout:
                return False
        try:
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
                    if sig is not None:
                        # a read error is no news: it neither changes nor resets the observation
                        if self._seen is None or (sig != self._seen and not self._unreadable(sig)):
                            self._seen, self._since = sig, now
                            if self._dead_on_this_machine(sig[0]):
                                self._break(sig, "its process is gone")
                                continue
                        elif now - self._since >= self.stale_after:
                            self._break(self._seen, f"no heartbeat for {self.stale_after:g} s")
                            self._seen = None
                            continue
                    if now >= deadline:
                        if local is not None:
                            local.release()
                        return False
                    time.sleep(min(delay, max(0.0, deadline - now)))
                    delay = min(delay * 2, 0.01)
        except BaseException:
            if self.token is None and local is not None:
                local.release()
            raise

    def release(self):
        with self._cv:
            token, self.token = self.token, None
            self._cv.notify_all()
        if token is None:
            return
        root = self.root
        try:
            with root.batch():
                sig = self._settled_signature()
                if sig is not None and self._owner_fields(sig[0]).get("token") == token:
                    aside = f"{self._tmp}/released-{token}"
                    # SMB refuses to rename a folder while another client reads a file in it (for a
                    # moment), or for good once its own client lost track of an open file inside:
                    # after two refusals, also try taking the lock apart (L5a)
                    for attempt in range(30):
                        try:
                            root.rename("lock", aside, attempts=1)
                            root.remove_tree(aside, expect=("owner", "beat"))
                            break
                        except FileNotFoundError:
                            break
                        except OSError as e:
                            refusal = e
                        if attempt >= 2 and self._dismantle(sig[0], aside.rpartition("/")[2]):
                            break
                        time.sleep(min(0.01 * (attempt + 1), 0.05))
                    else:
                        log.warning("could not release the board lock (others will break it after "
                                    "%g s): %s", self.stale_after, refusal)
                elif self._unreadable(sig):
                    log.warning("could not read the board lock to release it (others will break it "
                                "after %g s): %s", self.stale_after, sig[0].decode("ascii", "replace"))
                else:
                    log.warning("the board lock was taken from us while we held it "
                                "(stalled for over %g s?)", self.stale_after)
        finally:
            if self._local is not None:
                self._local.release()

    def hold(self, timeout):
        return _Held(self, timeout)

    # -- heartbeat -------------------------------------------------------------
    def _start_beating(self):
        with self._cv:
            self._cv.notify_all()
            if self._beater is None or not self._beater.is_alive():
                self._beater = threading.Thread(target=self._beat_loop, name="comm-heartbeat", daemon=True)
                self._beater.start()

    def _beat_loop(self):
        every = self.stale_after / 5
        while True:
            with self._cv:
                while self.token is None:
                    if not self._cv.wait(timeout=60):
                        if self.token is None:
                            self._beater = None
                            return
                token = self.token
                self._cv.wait(timeout=every)
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
    def __init__(self, lease, timeout):
        self.lease, self.timeout = lease, timeout

    def __enter__(self):
        if not self.lease.acquire(self.timeout):
            raise LockTimeout(f"the board lock was not obtained within {self.timeout:g} s")
        return self.lease

    def __exit__(self, *exc):
        self.lease.release()


class LockTimeout(TimeoutError):
    """The board lock could not be obtained in time."""
