"""The board's lock: exclusive across processes and across computers sharing the folder.

Two layers.  On one host, ``filelock.FileLock`` on a file in the local temp
folder queues the local processes.  Across hosts, a lease in the board folder
built from operations network shares honour:

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
"""
import hashlib
import logging
import os
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


class Lease:
    """The exclusive lock on one board folder.  Use ``with lease.hold(timeout):``."""

    def __init__(self, folder, scratch, *, stale_after=10.0, who=""):
        self.folder = Path(folder)
        self.path = self.folder / "lock"
        self.scratch = Path(scratch)
        self.stale_after = float(stale_after)
        self.who = who
        self.token = None
        digest = hashlib.sha1(str(self.folder.resolve()).encode("utf-8", "replace")).hexdigest()[:20]
        local_dir = Path(tempfile.gettempdir()) / "cardstand-locks"
        local_dir.mkdir(parents=True, exist_ok=True)
        self._local = filelock.FileLock(str(local_dir / f"{digest}.lock"))
        self._cv = threading.Condition()
        self._beater = None
        self._beats = 0
        # what the lock looked like and since when (our monotonic clock): kept across
        # acquire() calls, so that operations giving up after T <= L still see a stale lock
        self._seen = None
        self._since = 0.0

    # -- reading the lock ----------------------------------------------------
    def _signature(self, path=None):
        """(owner bytes, beat bytes) of a lock folder; None when there is none."""
        path = self.path if path is None else path
        try:
            owner = fsops.read_bytes(path / "owner", 4096)
        except NotADirectoryError:
            return (b"<not a folder>", b"")
        except OSError as e:
            return (b"<unreadable: %d>" % (e.errno or 0), b"")
        if owner is None and not os.path.lexists(path):
            return None
        try:
            beat = fsops.read_bytes(path / "beat", 64)
        except OSError as e:
            return (b"<unreadable: %d>" % (e.errno or 0), b"")
        return (owner, beat)

    @staticmethod
    def _unreadable(sig):
        return sig is not None and (sig[0] or b"").startswith(b"<unreadable")

    def _settled_signature(self, path=None, patience=2.0):
        """The signature, read again while a share answers with errors (up to ``patience`` s)."""
        give_up = time.monotonic() + patience
        delay = 0.01
        while True:
            sig = self._signature(path)
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
        mine = self.scratch / f"lock-{token}"
        try:
            os.mkdir(mine)
            with open(mine / "owner", "wb") as f:  # no fsync: a lock does not outlive a reboot
                f.write(self._owner_text(token))
        except OSError as e:
            fsops.remove_tree(mine)
            raise OSError(e.errno, f"cannot write in the board's scratch folder {self.scratch}: {e.strerror}")
        try:
            os.rename(mine, self.path)
        except OSError:
            pass  # refused because the lock exists, or an error a share made up: read back
        sig = self._settled_signature()
        if sig is not None and self._owner_fields(sig[0]).get("token") == token:
            self.token = token
            return True
        fsops.remove_tree(mine)
        return False

    def _dead_on_this_machine(self, owner):
        f = self._owner_fields(owner)
        if not MACHINE or f.get("machine") != MACHINE:
            return False
        try:
            return not _pid_alive(int(f.get("pid", "")))
        except ValueError:
            return False

    def _dismantle(self, owner, label):
        """Take the lock apart where its folder cannot be renamed: move ``owner`` aside (the
        lock's identity), check it is the record meant, then delete the rest.

        SMB refuses to rename a folder while a file inside is open on the same connection,
        and a client that lost track of an open (a timeout under load) keeps it so for good.
        True when the record was removed; the folder may stay behind, empty (L4 judges it).
        """
        aside = self.scratch / f"{label}-owner"
        if owner is not None:
            try:
                fsops.retry(os.rename, self.path / "owner", aside)
            except OSError:
                return False
            moved = fsops.read_bytes(aside, 4096)
            if moved != owner:
                try:
                    os.rename(aside, self.path / "owner")  # not the record we judged: put it back
                except OSError:
                    log.warning("lock changed while being taken apart; its holder will notice")
                return False
        fsops.remove(self.path / "beat")
        try:
            os.rmdir(self.path)
        except OSError:
            pass
        fsops.remove(aside)
        return True

    def _break(self, sig, why):
        aside = self.scratch / f"stale-{fsops.new_token()}"
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return  # gone already
        except OSError:
            # refused: someone else is breaking it, or the share will not rename it at all
            if not self._unreadable(sig) and self._dismantle(sig[0], aside.name):
                self._report_break(sig, why)
            return
        if self._settled_signature(aside) != sig:
            try:
                os.rename(aside, self.path)  # it changed since we judged it: put it back
            except OSError:
                log.warning("lock changed while being broken; its holder will notice")
            return
        self._report_break(sig, why)
        if aside.is_dir():
            fsops.remove_tree(aside)
        else:
            fsops.remove(aside)

    def _report_break(self, sig, why):
        f = self._owner_fields(sig[0])
        log.warning("broke a stale lock of %s (pid %s on %s): %s", f.get("name", "?"),
                    f.get("pid", "?"), f.get("host", "?"), why)

    def acquire(self, timeout):
        """Take the lock, waiting up to ``timeout`` seconds; False when it could not."""
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            self._local.acquire(timeout=max(0.0, timeout), poll_interval=0.001)
        except filelock.Timeout:
            return False
        try:
            delay = 0.0005
            while True:
                if self._try_take():
                    self._start_beating()
                    return True
                sig = self._signature()
                now = time.monotonic()
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
                    self._local.release()
                    return False
                time.sleep(min(delay, max(0.0, deadline - now)))
                delay = min(delay * 2, 0.01)
        except BaseException:
            if self.token is None:
                self._local.release()
            raise

    def release(self):
        with self._cv:
            token, self.token = self.token, None
            self._cv.notify_all()
        if token is None:
            return
        try:
            sig = self._settled_signature()
            if sig is not None and self._owner_fields(sig[0]).get("token") == token:
                aside = self.scratch / f"released-{token}"
                # SMB refuses to rename a folder while another client reads a file in it (for a
                # moment), or for good once its own client lost track of an open file inside:
                # after two refusals, also try taking the lock apart (L5a)
                for attempt in range(30):
                    try:
                        os.rename(self.path, aside)
                        fsops.remove_tree(aside)
                        break
                    except FileNotFoundError:
                        break
                    except OSError as e:
                        refusal = e
                    if attempt >= 2 and self._dismantle(sig[0], aside.name):
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
                if self.is_mine():
                    self._beats += 1
                    fsops.replace_with(self.scratch, self.path / "beat", fsops.record(str(self._beats)),
                                       durable=False)
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
