"""Conformance kit: check any implementation of docs/PROTOCOL.md from the outside.

    python -m peer.conformance --peer "node interop/js/peer.js"

The implementation offers two commands (see docs/CONFORMANCE.md):

    CMD serve --board DIR --name NAME [--stale-after S] [--lock-timeout S]
        JSON requests on stdin, one JSON answer per line on stdout
    CMD play --board DIR --color black|white
        plays one game on DIR to its end, then exits 0 (non-zero when the game
        was refused)

Each scenario names the clauses of docs/PROTOCOL.md it checks and passes or
fails on its own; the exit status is 0 only when all pass.
"""
import argparse
import errno
import hashlib
import hmac
import json
import logging
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from pathlib import Path

from comm import Board, fsops
from comm.board import frame, msg_name
from engine import Game, PASS, notation, square_name

from . import protocol
from .record import Record, Records

ROOT = Path(__file__).resolve().parents[1]


class Fail(Exception):
    pass


class Skip(Exception):
    """The scenario cannot run here (no symbolic links or FIFOs on this system)."""


def _env(secret=None, base=None):
    """The environment for a program the kit starts: CARDSTAND_SECRET only when a scenario sets it."""
    env = dict(os.environ if base is None else base)
    env.pop("CARDSTAND_SECRET", None)
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret
    return env


def other_view(d):
    """The same board folder as the kit's own side sees it (another mount of the share, if given)."""
    return VIEW["b"] / d.relative_to(VIEW["a"]) if VIEW.get("b") else d


VIEW = {}


def check(cond, what):
    if not cond:
        raise Fail(what)


_STARTED = []      # every program the kit started: stopped when run() ends, however it ends


class _Player(subprocess.Popen):
    """A program the kit started, its output read as it comes (a program that writes a lot never
    blocks on a full pipe: players may write anything) and kept for the failure messages."""

    KEEP = 1 << 20      # bytes of output kept (the end)

    def __init__(self, argv, **kw):
        super().__init__(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
        self._out = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self):
        kept = 0
        while True:
            try:
                chunk = self.stdout.read1(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self._out.append(chunk)
            kept += len(chunk)
            while kept > self.KEEP and len(self._out) > 1:
                kept -= len(self._out.pop(0))

    def output(self, timeout=10):
        """What it wrote (all of it once it has exited)."""
        if self.poll() is not None:
            self._reader.join(timeout)
        return b"".join(self._out).decode("utf-8", "replace")

    def communicate(self, input=None, timeout=None):
        self.wait(timeout)
        return self.output(), None

    def kill(self):
        _kill_group(self)


# Each program in a process group of its own, so that stopping it stops what it started too (a
# wrapper script, `npm start`, `sh -c '...'`): kill() takes the whole group
_GROUP = {"start_new_session": True} if os.name == "posix" else \
    {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}


def _kill_group(proc):
    """Kill ``proc`` and its process group, and wait (up to 5 s) until the group is gone: a
    wrapper's children die a moment after it."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                proc.poll()                     # (reap our own child)
                os.killpg(proc.pid, 0)
                time.sleep(0.01)
            return
        except OSError:
            return
    try:
        subprocess.Popen.kill(proc)
    except OSError:
        pass


def _traceback(out):
    """Whether ``out`` shows a stack trace (Python's, or one like Node's, Java's: "at f (file:12:5)")."""
    return "Traceback (most recent call last)" in out or re.search(r"(?m)^\s+at \S.*:\d+(:\d+)?\)?$", out)


def _start(argv, kind=None, **kw):
    """Start a program (a ``_Player`` unless ``kind`` says otherwise) in a process group of its
    own, kept for ``_stop_all``; a clear failure when it cannot be started at all."""
    try:
        proc = (kind or _Player)(argv, **_GROUP, **kw)
    except OSError as e:
        raise Fail(f"cannot start {' '.join(argv)[:200]!r}: {e.strerror or e}") from None
    _STARTED.append(proc)
    return proc


def _stop_all():
    for p in _STARTED:
        _kill_group(p)      # (even when it has exited: what it started may still run)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            pass
    _STARTED.clear()


class Served:
    """An implementation under test in ``serve`` mode."""

    def __init__(self, cmd, board, name, stale_after=10.0, lock_timeout=10.0, secret=None):
        argv = shlex.split(cmd) + ["serve", "--board", str(board), "--name", name,
                                   "--stale-after", str(stale_after), "--lock-timeout", str(lock_timeout)]
        self._err = tempfile.TemporaryFile()    # what it writes on stderr: shown if it dies
        self.proc = _start(argv, subprocess.Popen, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=self._err, text=True, encoding="utf-8", env=_env(secret))

    def _why_silent(self):
        """How it ended, if it did: its exit code and the end of what it wrote on stderr."""
        code = self.proc.poll()
        if code is None:
            return ""
        size = self._err.seek(0, os.SEEK_END)
        self._err.seek(max(0, size - 400))
        err = self._err.read(400).decode("utf-8", "replace").strip()
        return f" (exit code {code}" + (f"; it said: {err!r})" if err else ")")

    def ask(self, timeout=30, **req):
        try:
            self.proc.stdin.write(json.dumps(req, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass                    # it exited (after its last answer, which is read below)
        box = {}

        def read():
            box["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        line = box.get("line")
        if not line:
            if self.proc.poll() is None:
                time.sleep(0.1)
            why = self._why_silent()
            if why:
                raise Fail(f"no answer to {req}: it exited before answering{why}")
            raise Fail(f"no answer to {req} within {timeout} s")
        try:
            return json.loads(line)
        except ValueError:
            raise Fail(f"answer is not JSON: {line[:80]!r}") from None

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=0.5 if sys.exc_info()[0] is not None else 5)   # failing: no wait
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)

    def end(self, timeout=20):
        """End of input: the implementation closes its board and exits (its exit code)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)
            raise Fail(f"serve did not exit within {timeout} s of the end of its input") from None

    def kill(self):
        """Kill it at once (SIGKILL where there are signals), with what it started: it closes nothing."""
        _kill_group(self.proc)
        self.proc.wait()


# -- scenarios -------------------------------------------------------------------------------

def _check_r1(path, what):
    """R1: a record is UTF-8 text padded with spaces to 255 bytes, then ``\\n`` (256 bytes), with
    no ``\\n`` after its last line; returns its text."""
    data = path.read_bytes()
    check(len(data) == 256 and data.endswith(b"\n"), f"{what} is {len(data)} bytes, not a 256-byte record "
                                                      "ending in \\n (R1)")
    text = data[:255].rstrip(b" ")
    check(not text.endswith(b"\n") and b"\n" not in data[len(text):255],
          f"{what}: a \\n before or inside its padding (R1: no \\n after the last line)")
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail(f"{what} is not UTF-8 (R1)") from None


BAD_MARKERS = [("U+00A0 between its words", "cardstand-board\u00a01\n".encode()),
               ("a BOM", "\ufeffcardstand-board 1\n".encode()),
               ("a 10-digit version", b"cardstand-board 0000000001\n"),
               ("more than 4096 bytes", b"cardstand-board 1" + b" " * 4090 + b"\n")]


def _answer_or_refused(impl, timeout=20, **req):
    """The answer to ``req``; ``{"ok": False}`` when the implementation stopped without one."""
    try:
        return impl.ask(timeout=timeout, **req)
    except Fail:
        return {"ok": False}


def s_init(cmd, d):
    """F2 F3 R1 I1: Init creates the board and the member record (256 bytes) in a folder holding other files; a marker that is not one is refused; no operation before init."""
    # serve contract: before init every operation is refused, and not even the board folder is made
    early = Served(cmd, d / "not-yet", "impl")
    try:
        for op in ("send", "recv", "talk", "quiet", "wipe"):
            a = _answer_or_refused(early, op=op, **({"to": "kit", "body": "x"} if op in ("send", "talk") else {}))
            check(not a.get("ok"), f"{op} before init was answered {a} (CONFORMANCE.md: ok false before init)")
        check(not os.path.lexists(d / "not-yet"), "an operation before init made the board folder")
    finally:
        early.close()
    # F2: a folder whose cardstand.board is not a marker is refused, changing nothing
    tried = []
    for i, (what, data) in enumerate(BAD_MARKERS):
        sub = d / f"marker-{i}"
        sub.mkdir()
        (sub / "cardstand.board").write_bytes(data)
        tried.append((what, sub, data, Served(cmd, sub, "impl")))
    (d / "loose").mkdir()
    (d / "loose" / "cardstand.board").write_bytes(b"  cardstand-board\t1\r\n")
    loose = Served(cmd, d / "loose", "impl")
    try:
        for what, sub, data, impl in tried:
            a = _answer_or_refused(impl, op="init")
            check(not a.get("ok"), f"init on a folder whose marker has {what} was answered {a} (F2: not a board)")
            check(sorted(p.name for p in sub.iterdir()) == ["cardstand.board"]
                  and (sub / "cardstand.board").read_bytes() == data,
                  f"init on a folder whose marker has {what} changed the folder (F2: refuse, changing nothing)")
        a = loose.ask(op="init")
        check(a.get("ok"), f"init with the marker '  cardstand-board\\t1\\r\\n' was answered {a} (F2: white space "
                           "around and between the words is allowed)")
    finally:
        for *_, impl in tried:
            impl.close()
        loose.close()
    # a folder without a marker that holds other files (the ones above) is made a board; they stay
    before = _snapshot(d)
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed on a folder without a marker holding other files (F2)")
        check((d / "cardstand.board").read_text().split() == ["cardstand-board", "1"], "marker (F2)")
        for sub in ("box", "tmp", "trash"):
            check((d / sub).is_dir(), f"{sub}/ missing (F2)")
        after = _snapshot(d)
        changed = sorted(k for k in before if after.get(k) != before[k])
        check(not changed, f"init changed what the folder held: {', '.join(changed[:4])} (F2, F3: left alone)")
        member = _check_r1(d / "box" / "impl" / "member", "box/impl/member")
        check("\nrun: " in member and "\nname: impl" in member, "member record fields (I1)")
        if (d / "box" / "impl" / "alive").exists():
            _check_r1(d / "box" / "impl" / "alive", "box/impl/alive")
    finally:
        impl.close()


def s_send(cmd, d):
    """M1 M3 N3: a message from the implementation is framed right and arrives byte for byte."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        body = "こんにちは\nline two\r\n🀄 end"
        a = impl.ask(op="send", to="kit", body=body)
        check(a.get("result") == 1, f"send answered {a}")
        f, data = _kit_parse((d / "box" / "kit" / msg_name(1)).read_bytes())   # the kit's own reading
        check(f.get("length") == str(len(data)), f"length: {f.get('length')!r}, the body has {len(data)} bytes (M1)")
        check(f.get("crc32") == f"{zlib.crc32(data):08x}", "crc32: is not the body's CRC-32 (M1)")
        check(f.get("seq") == "1" and f.get("to") == "kit", f"seq {f.get('seq')!r}, to {f.get('to')!r} (M1)")
        check(data == body.encode("utf-8") and f.get("from") == "impl", "body or sender differ (N3)")
        check(f.get("to-run") == kit.run, "to-run is not the recipient's run (M3)")
        check(kit.receive().body == body, "kit could not receive it")
        a = impl.ask(op="send", to="nobody", body="x")
        check(a.get("result") == 0, "send to a member that never joined must fail (M3)")
    finally:
        impl.close()


def s_recv(cmd, d):
    """M4 M5 M7: messages to the implementation arrive in order, exact, once."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        bodies = ["d3", "日本語\n二行目", "", "x" * 5000]
        for b in bodies:
            check(kit.send("impl", b), "kit could not send")
        for b in bodies:
            a = impl.ask(op="recv")
            check(a.get("result") == 2 and a.get("body") == b and a.get("sender") == "kit",
                  f"expected {b[:20]!r}, got {a}")
        check(impl.ask(op="recv").get("result") == -1, "a fifth message appeared (M5)")
        check(impl.ask(op="quiet").get("result") == 0, "quiet dropped a message sent to this run (I2)")
        tail = fsops.read_int(d / "box" / "impl" / "tail")
        check(tail == len(bodies), f"tail is {tail} after a quiet, expected {len(bodies)} (M5)")
    finally:
        impl.close()


def s_redeliver(cmd, d):
    """M5 I2 9: a message received by a process killed before its next call comes back to its next run, once."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed")
        for body in ("first", "second", "third", "fourth"):
            check(kit.send("impl", body), f"the kit could not send: {kit.last_error}")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "first", f"recv answered {a}")
        impl.kill()                                     # before its next call: nothing acknowledged
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "first",
              f"after the receiver was killed, its next run's recv answered {a}: the message it had "
              "received was lost (M5: it stays until the next call; section 9)")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "second",
              f"a second recv in the same run answered {a} (M5: a message is returned once in a run)")
        code = impl.end()                               # a clean end: close acknowledges "second"
        check(code == 0, f"serve exited {code} at the end of its input")
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "third",
              f"after a clean end (close), the next run's recv answered {a}, not the next message (M5)")
        impl.kill()                                     # "third" handed, not acknowledged
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="quiet")
        check(a.get("result") == 2, f"quiet in a new run answered {a}: it must drop the message handed to "
                                    "the killed run and the one after, both sent to earlier runs (I2)")
        a = impl.ask(op="recv")
        check(a.get("result") == -1, f"after quiet, recv answered {a} (I2)")
    finally:
        impl.close()


def s_talk(cmd, d):
    """I3: Talk receives a waiting message instead of sending."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        kit.send("impl", "waiting")
        a = impl.ask(op="talk", to="kit", body="crossing")
        check(a.get("result") == 2 and a.get("body") == "waiting", f"talk answered {a}")
        check(kit.receive() is None, "talk sent although a message was waiting")
        a = impl.ask(op="talk", to="kit", body="now")
        check(a.get("result") == 1, f"talk answered {a}")
        check(kit.receive().body == "now", "kit did not get the message")
        check(impl.ask(op="talk", to="", body="").get("result") == -1, "Talk('', '') must give -1")
    finally:
        impl.close()


def s_quiet(cmd, d):
    """I2: Quiet drops what was sent to an earlier run, keeps what was sent to this one."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        kit.send("impl", "for the old run")
        impl.ask(op="init")          # a new run of the same name
        kit.send("impl", "for the new run")
        impl.ask(op="quiet")
        a = impl.ask(op="recv")
        check(a.get("body") == "for the new run", f"after Quiet got {a}")
        check(impl.ask(op="recv").get("result") == -1, "Quiet kept an old message")
    finally:
        impl.close()


def _plant_member(d, name, run, machine, beat, state=""):
    """A member record and an alive record for ``name`` as another computer's program writes them."""
    box = d / "box" / name
    box.mkdir(parents=True, exist_ok=True)
    fsops.replace_with(d / "tmp", box / "member", fsops.record(
        f"cardstand-member 1\nname: {name}\nrun: {run}\nhost: elsewhere\nmachine: {machine}\npid: 4242"), durable=False)
    fsops.replace_with(d / "tmp", box / "alive", fsops.record(
        f"cardstand-alive 1\nrun: {run}\nbeat: {beat}\nstate: {state}"), durable=False)


def s_members(cmd, d):
    """I6: one live run per name; a live one is refused, a dead one taken over, take_over replaces."""
    kit = KitBoard(other_view(d), "twin").join()    # alive: this process runs on this machine
    impl = Served(cmd, d, "Twin", stale_after=1.0, lock_timeout=5.0)
    first = second = None
    try:
        kit_run = kit.run
        a = impl.ask(op="init")
        check(not a.get("ok") and a.get("error"), f"init as Twin while twin runs here was answered {a} (I6)")
        check(_run_of(d / "box" / "twin") == kit_run, "a refused init changed the member record (I6)")
        # a program on another computer that keeps beating: refused; once silent: taken over
        run = fsops.new_token()
        _plant_member(d, "ghost", run, "elsewhere/0000", 1)
        stop = threading.Event()

        def beating():
            n = 1
            while not stop.wait(0.2):
                n += 1
                try:            # a share may refuse to replace a file another client has open
                    fsops.replace_with(d / "tmp", d / "box" / "ghost" / "alive", fsops.record(
                        f"cardstand-alive 1\nrun: {run}\nbeat: {n}\nstate: "), durable=False)
                except OSError:
                    pass
        t = threading.Thread(target=beating, daemon=True)
        t.start()
        # L = 4 s: a share's client may show a file's old content for a second or two
        ghost = Served(cmd, d, "ghost", stale_after=4.0, lock_timeout=5.0)
        try:
            a = ghost.ask(op="init", timeout=20)
            check(not a.get("ok"), "init as a member whose heartbeat goes on (another computer) succeeded (I6)")
            stop.set()
            t.join()
            started = time.monotonic()
            a = ghost.ask(op="init", timeout=30)
            check(a.get("ok"), f"init as a member whose heartbeat stopped was answered {a} (I6)")
            check(time.monotonic() - started < 20, "a silent member was taken over only after 20 s (I6: L + margin)")
        finally:
            stop.set()
            ghost.close()
        # take_over: the first run stops taking messages; a killed run is taken over without it
        first = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        check(first.ask(op="init").get("ok"), "init as dup failed")
        second = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        check(not second.ask(op="init").get("ok"), "a second live run of dup was accepted (I6)")
        check(second.ask(op="init", take_over=True).get("ok"), "init with take_over failed (I6)")
        check(kit.send("dup", "for the new run"), f"the kit could not send to dup: {kit.last_error}")
        a = first.ask(op="recv")
        check(a.get("result") != 2, f"the replaced run still took a message: {a} (I6)")
        check(first.ask(op="send", to="twin", body="from a replaced run").get("result") == 0,
              "a replaced run could still send (I6)")
        for op in ("quiet", "wipe"):
            a = first.ask(op=op)
            check(a.get("result") == 0 and a.get("error"), f"a replaced run's {op} answered {a}, not result 0 "
                                                          "with an error (I6: it MUST NOT Quiet)")
        a = second.ask(op="recv")
        check(a.get("body") == "for the new run", f"the new run got {a} (a replaced run's quiet or wipe "
                                                  "must drop nothing, I6)")
        second.proc.kill()
        second.proc.wait()
        third = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        try:
            check(third.ask(op="init", timeout=20).get("ok"), "a killed run's name was not taken over (I6)")
        finally:
            third.close()
    finally:
        for p in (impl, first, second):
            if p is not None:
                p.close()
        kit.close()


def s_lock_held(cmd, d):
    """L1 L3: while someone (heartbeating) holds the lock, the implementation waits; one that gives up names the holder."""
    kit = KitBoard(other_view(d), "kit", stale_after=1.0).join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=20)
    try:
        impl.ask(op="init")
        released = {}

        def hold():
            with kit.lease.hold(10):
                time.sleep(2.5)          # longer than stale-after: the heartbeat keeps it
                released["t"] = time.monotonic()

        th = threading.Thread(target=hold)
        th.start()
        time.sleep(0.3)
        a = impl.ask(op="send", to="kit", body="after you", timeout=30)
        done = time.monotonic()
        th.join()
        check(a.get("result") == 1, f"send answered {a}")
        check(done >= released["t"], "sent while the lock was held (broke a live lock)")
        check(kit.receive().body == "after you", "message missing")
    finally:
        impl.close()
    # L3: a wait that gives up names the holder it watched (its name and pid at least)
    holder = KitBoard(other_view(d), "holder7", stale_after=1.0).join()
    hasty = Served(cmd, d, "hasty", stale_after=1.0, lock_timeout=1.0)
    try:
        hasty.ask(op="init")
        with holder.lease.hold(10):
            a = hasty.ask(op="send", to="kit", body="in a hurry", timeout=30)
        error = a.get("error", "")
        check(a.get("result") == 0 and "holder7" in error and str(os.getpid()) in error,
              f"a send that gave up waiting for the lock answered {a}: the error must name the holder, "
              f"holder7 (pid {os.getpid()}) (L3)")
    finally:
        hasty.close()
        holder.close()


def _ghost_lock(d):
    """A lock left by a holder on "another computer" that never beats."""
    lock = d / "lock"
    lock.mkdir()
    (lock / "owner").write_bytes(fsops.record(
        "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\n"
        "machine: elsewhere/boot\npid: 1"))
    return lock


def s_stale(cmd, d):
    """L4 L5: a silent lock of another computer is broken within the bound; file times are not used."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=8)     # the bound is 6 s: 8 s is plenty
    try:
        impl.ask(op="init")
        lock = _ghost_lock(d)
        future = time.time() + 10 * 365 * 86400
        os.utime(lock / "owner", (future, future))
        t = time.monotonic()
        a = impl.ask(op="send", to="kit", body="through", timeout=30)
        took = time.monotonic() - t
        check(a.get("result") == 1, f"send answered {a}")
        check(0.8 <= took <= 1.0 + 5, f"broke the stale lock after {took:.1f} s (bound 1 s)")
        check(kit.receive().body == "through", "message missing")
    finally:
        impl.close()


def s_stale_short(cmd, d):
    """L3 L4: operations that give up before the bound still see a stale lock (the watch is kept)."""
    kit = KitBoard(other_view(d), "kit", stale_after=1.0).join()     # holding, it beats every 0.2 s (L2)
    # a live lock (beating): the first send may wait L + a margin (L3), the next ones only T (plus,
    # through a share, the time its client takes to show a replaced record: L3's settled reads)
    watcher = Served(cmd, d, "watcher", stale_after=4.0, lock_timeout=0.5)
    held, release = threading.Event(), threading.Event()

    def hold():
        with kit.lease.hold(10):
            held.set()
            release.wait(30)
    th = threading.Thread(target=hold, daemon=True)
    try:
        watcher.ask(op="init")
        th.start()
        held.wait(10)
        a = watcher.ask(op="send", to="kit", body="never", timeout=30)
        check(a.get("result") == 0, f"a send while the kit held the lock answered {a}")
        bound = 0.5 + (2.5 if VIEW.get("b") else 0.7)
        for _ in range(2):
            t = time.monotonic()
            a = watcher.ask(op="send", to="kit", body="never", timeout=30)
            took = time.monotonic() - t
            check(a.get("result") == 0, f"a send while the kit held the lock answered {a}")
            check(took < bound, f"a later send waited {took:.1f} s for a lock it had watched already, not its "
                                "0.5 s (L3: the watch is kept between operations; only the first wait lasts L "
                                "plus a margin, here 5 s)")
    finally:
        release.set()
        if th.is_alive():
            th.join()
        watcher.close()
    impl = Served(cmd, d, "impl", stale_after=2.0, lock_timeout=0.5)
    try:
        impl.ask(op="init")
        _ghost_lock(other_view(d))      # (through the kit's view: the other may show the released lock a while)
        t = time.monotonic()
        while True:
            a = impl.ask(op="send", to="kit", body="at last", timeout=30)
            if a.get("result") == 1:
                break
            check(a.get("result") == 0, f"send answered {a}")
            check(time.monotonic() - t < 2.0 + 8, "0.5 s sends never broke a lock left silent for 2 s")
        check(time.monotonic() - t >= 1.5, f"broke the lock after {time.monotonic() - t:.1f} s (bound 2 s)")
        check(kit.receive().body == "at last", "message missing")
    finally:
        impl.close()


def s_garbage(cmd, d):
    """M1 M4 S3 F3 R1: damaged messages (no from-run, an empty from-run, an empty file, no crc32) are set aside, foreign files ignored; one without to-run, one with an unknown header key, one with its lines in another order arrive; a member record's first line is not checked."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        box = d / "box" / "impl"
        (box / msg_name(1)).write_bytes(frame("kit", "r", "impl", "r", 1, b"hello")[:-2])
        (box / "notes.txt").write_text("foreign")
        (d / "README.txt").write_text("foreign")
        kit.send("impl", "valid")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "valid", f"recv answered {a}")
        check(not (box / msg_name(1)).exists(), "the damaged message was left in place")
        check((box / "notes.txt").exists(), "a foreign file was removed")
        # M1: from-run and crc32 are required (from-run not empty); to-run may be missing
        kbox, run = other_view(box), _run_of(box)

        def without(key, body):
            return lambda k: re.sub(rb"\n" + key + rb": [^\n]*", b"", _kit_frame("kit", kit.run, "impl", run, k, body), 1)
        bad = [("a message without from-run", without(b"from-run", "no from-run")),
               ("a message with an empty from-run", lambda k: _kit_frame("kit", "", "impl", run, k, "empty from-run")),
               ("an empty message file", lambda k: b""),
               ("a message without crc32", without(b"crc32", "no crc32"))]
        placed = [(what, _place(kit, kbox, make)) for what, make in bad]
        _place(kit, kbox, without(b"to-run", "no to-run"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "no to-run",
              f"after {', '.join(w for w, _ in bad)}, then a message without to-run: recv answered {a} "
              "(M1: the bad ones are never returned; to-run MAY be missing)")
        for what, k in placed:
            check(not os.path.lexists(box / msg_name(k)), f"{what} was left in the mailbox (M1 M4: moved to trash)")
        a = impl.ask(op="recv")
        check(a.get("result") == -1, f"after the last message, recv answered {a}")
        # M1: header keys M1 does not list are ignored, and the order of the lines is free
        _place(kit, kbox, lambda k: _kit_frame("kit", kit.run, "impl", run, k, "with a new key").replace(
            b"\nseq: ", b"\nfuture: yes\nseq: ", 1))

        def reordered(k):
            head, _, body = _kit_frame("kit", kit.run, "impl", run, k, "in another order").partition(b"\n\n")
            first, *lines = head.split(b"\n")
            return b"\n".join([first, *reversed(lines)]) + b"\n\n" + body
        _place(kit, kbox, reordered)
        for want, why in (("with a new key", "a header key M1 does not list MUST be ignored"),
                          ("in another order", "the order of the header lines is free")):
            a = impl.ask(op="recv")
            check(a.get("result") == 2 and a.get("body") == want, f"recv answered {a}, not the message "
                                                                  f"{want!r} (M1: {why})")
        # R1: readers MUST NOT check a record's first line (the board's version is the marker's)
        member = d / "box" / "kit" / "member"
        text = member.read_bytes().decode("utf-8").replace("cardstand-member 1\n", "cardstand-member 2\n", 1)
        fsops.replace_with(kit.tmp, other_view(member), text.encode("utf-8"), durable=False)
        a = impl.ask(op="send", to="kit", body="to a member record of another first line")
        check(a.get("result") == 1, f"with 'cardstand-member 2' on the first line of the kit's member record, "
                                    f"send answered {a} (R1: readers MUST NOT check the first line)")
    finally:
        impl.close()


def s_cleanup(cmd, d):
    """S1 F3: init removes old scratch of the forms S1 names (a private lock folder judged by its owner's time), and nothing else."""
    KitBoard(other_view(d), "kit").join()
    tmp, trash = d / "tmp", d / "trash"
    hour_ago, tomorrow, days_ago = time.time() - 3600, time.time() + 86400, time.time() - 8 * 86400

    def plant(p, mtime, folder=False, owner=None):
        if folder:
            p.mkdir()
            if owner is not None:
                (p / "owner").write_bytes(fsops.record("cardstand-lock 1\ntoken: " + p.name[5:] +
                                                       "\nname: ghost\nhost: elsewhere\nmachine: \npid: 1"))
                os.utime(p / "owner", (owner, owner))
        else:
            p.write_bytes(b"x")
        os.utime(p, (mtime, mtime))

    gone = {"tmp/host-1-0ld.tmp": (hour_ago, False, None), "tmp/host-1-future.tmp": (tomorrow, False, None),
            "tmp/lock-0123456789abcdef": (hour_ago, True, hour_ago), "tmp/stale-5ca1ab1e": (hour_ago, True, None),
            "tmp/released-0ddba11-owner": (hour_ago, False, None), "trash/0ddba11-old.msg": (days_ago, False, None),
            "tmp/lock-f11e": (hour_ago, False, None)}
    kept = {"tmp/host-1-fresh.tmp": (time.time(), False, None), "tmp/notes.txt": (hour_ago, False, None),
            "tmp/lock-fedcba9876543210": (hour_ago, True, time.time()), "tmp/keep": (hour_ago, True, None),
            "trash/notes": (days_ago, False, None), "trash/0ddba11-recent.msg": (hour_ago, False, None),
            "tmp/folder.tmp": (hour_ago, True, None), "tmp/lock-0feedbeef": (time.time(), True, None)}
    for rel, (mtime, folder, owner) in {**gone, **kept}.items():
        plant(d / rel, mtime, folder, owner)
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed")
    finally:
        impl.close()
    left = [rel for rel in gone if os.path.lexists(d / rel)]
    check(not left, "old scratch left after init: " + ", ".join(
        f"{rel} (dated {(time.time() - os.lstat(d / rel).st_mtime) / 3600:.1f} h ago here)" for rel in left)
        + " (S1)")
    removed = [rel for rel in kept if not os.path.lexists(d / rel)]
    why = {"tmp/lock-fedcba9876543210": " (a private lock folder whose owner was written just now: S1 "
                                        "judges it by the newer of its own and its owner's times)",
           "tmp/host-1-fresh.tmp": " (younger than 10 minutes)",
           "tmp/folder.tmp": " (a folder: only files are cleaned up by the name *.tmp, S1)",
           "tmp/lock-0feedbeef": " (a fresh private lock folder whose owner is not written yet: S1a judges it "
                                 "by its own time then)", "trash/0ddba11-recent.msg": " (younger than 7 days)"}
    check(not removed, "init removed " + ", ".join(r + why.get(r, " (a name S1 does not list: F3)") for r in removed))
    stale = sorted(p.name for p in tmp.iterdir() if p.name.startswith("stale-"))
    check(not stale, f"init left {', '.join(stale)} in tmp/ (S1: what it moves aside it deletes)")


def s_names(cmd, d):
    """N1 I5: invalid names are refused before the board is touched."""
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        for bad in ("a/b", "..", "sp ace", "con", "x" * 33):
            a = impl.ask(op="send", to=bad, body="x")
            check(a.get("ok") is False, f"a send to {bad!r} was answered {a}, not ok: false (I5: a bad 'to' "
                                        "is an invalid argument, refused before the board is touched)")
        check(sorted(p.name for p in (d / "box").iterdir()) == ["impl"], "something was created in box/")
    finally:
        impl.close()


def s_device_names(cmd, d):
    """N1 I5: COM0 and LPT0 are Windows device names too (Microsoft's naming rules): refused."""
    KitBoard(other_view(d), "kit").join()            # the board exists
    for bad in ("com0", "LPT0"):
        impl = Served(cmd, d, bad)                 # joining under that name must fail
        try:
            try:
                a = impl.ask(op="init", timeout=20)
            except Fail:
                a = {"ok": False}                  # it stopped at once: refused too
            check(not a.get("ok"), f"joined as {bad!r}: {a}")
        finally:
            impl.close()
        box = other_view(d) / "box" / bad.lower()  # a member planted under that name: not sent to
        box.mkdir()
        (box / "member").write_bytes(fsops.record(f"cardstand-member 1\nname: {bad}\nrun: 0123456789abcdef"))
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        for bad in ("com0", "LPT0", "Com0", "lpt0"):
            a = impl.ask(op="send", to=bad, body="x")
            check(not a.get("ok") or a.get("result") == 0, f"{bad!r} was accepted: {a}")
        for bad in ("com0", "lpt0"):
            check(sorted(p.name for p in (d / "box" / bad).iterdir()) == ["member"], f"a message was delivered to {bad}")
    finally:
        impl.close()


def _ours(colour, board, *extra):
    env = _env(base=dict(os.environ, NO_COLOR="1"))
    return _start([sys.executable, str(ROOT / f"{colour}.py"), "--board", str(board), "--ai", "random",
                   "--lang", "en", *extra], env=env)


def _theirs(play_cmd, board, colour, secret=None, extra=()):
    return _start(shlex.split(play_cmd) + ["--board", str(board), "--color", colour, *extra], env=_env(secret))


def _game(play_cmd, d, colour):
    other = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    ours = _ours(other, other_view(d), "--patience", "15")
    deadline = time.monotonic() + 300
    while ours.poll() is None and time.monotonic() < deadline:
        if theirs.poll() not in (None, 0):
            ours.kill()
            raise Fail(f"their {colour} exited {theirs.returncode}: {theirs.output()[-300:]}")
        time.sleep(0.2)
    if ours.poll() is None:
        theirs.kill()
        ours.kill()
        raise Fail("the game did not finish within 300 s")
    out_ours = ours.output()
    try:
        out_theirs, _ = theirs.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        theirs.kill()
        out_theirs, _ = theirs.communicate()
        raise Fail(f"their side did not stop within 120 s after the game; ours said: "
                   f"{out_ours.strip()[-200:]!r}; theirs said: {out_theirs.strip()[-300:]!r}") from None
    check(ours.returncode == 0, f"our {other} exited {ours.returncode}: {out_ours[-300:]}")
    check(theirs.returncode == 0, f"their {colour} exited {theirs.returncode}: {out_theirs[-300:]}")
    rec = Records(d).current()
    check(rec is not None and rec.status == "over", "the game record is not finished")
    check(rec.mode == "full", "the game fell back to classic mode: no handshake (H1-H3)")
    g = Game.from_transcript(rec.moves)
    check(g.position.is_game_over(), "the recorded game is not over")


def _kit_record(d, gid):
    """D1: the record ``records/<gid>.game`` read the way D1 describes it (the kit's own reading):
    a dict of its keys, or None when there is none.  ``records/current`` must name it."""
    rec = d / "records"
    try:
        raw = (rec / f"{gid}.game").read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise Fail(f"records/{gid}.game is not UTF-8 (D1)") from None
    lines = text.split("\n")
    check(lines[0] == "cardstand-game 1", f"records/{gid}.game begins {lines[0][:40]!r}, not 'cardstand-game 1' (D1)")
    check(len(raw) <= 262144 and text.endswith("\n") and "\r" not in text,
          f"records/{gid}.game ({len(raw)} bytes) is not lines each ending with \\n, at most 262,144 bytes (D1)")
    check(all(": " in line for line in lines[1:-1]), f"records/{gid}.game has a line that is not 'key: value' (D1)")
    f = {}
    for line in lines[1:]:
        k, s, v = line.rstrip("\r").partition(": ")
        if s and k not in f:
            f[k] = v
    check((rec / "current").exists(), f"no records/current beside records/{gid}.game (D1)")
    current = _check_r1(rec / "current", "records/current")
    check(current == gid, f"records/current says {current[:70]!r}, not the bare id of the game {gid} it wrote "
                          "last (D1: the id, no key, then the padding)")
    return f


def _check_own_record(d, gid, game, colour, what, ended=False):
    """D1 D2 G1: the implementation's own record of ``gid`` (the kit writes none) holds the plies
    of ``game``; with ``ended``, the end too."""
    f = _kit_record(d, gid)
    check(f is not None, f"{what}: no records/{gid}.game: the implementation keeps no game record (D1)")
    check(f.get("id") == gid and f.get("size") == "8", f"{what}: its record says id {f.get('id')!r}, "
                                                         f"size {f.get('size')!r} (D1)")
    want = game.transcript(passes=True).lower()
    got = (f.get("moves") or "").lower()
    check(got == want, f"{what}: its record holds moves {got[-30:]!r}, not {want[-30:]!r} "
                       "(D1: written after every ply; G1: a mover saves before it sends)")
    check(f.get("mode") == "full", f"{what}: its record says mode {f.get('mode')!r}, not 'full' (D1)")
    kit_side = "white" if colour == "black" else "black"
    check(f.get(kit_side) == "kit", f"{what}: its record names {kit_side} {f.get(kit_side)!r}, not 'kit', "
                                    "the name in the kit's greeting (D1)")
    if ended:
        b, w = game.position.discs()
        check(f.get("status") == "over" and f.get("result") == f"{b}-{w}",
              f"{what}: its record says status {f.get('status')!r}, result {f.get('result')!r}, "
              f"not over {b}-{w} (D1)")
    else:
        check(f.get("status") == "playing", f"{what}: its record says status {f.get('status')!r}, not playing (D1)")


def _recorded_game(play_cmd, d, colour):
    """A whole game against the kit, which writes no record: what is in records/ is the
    implementation's own.  After each of its plies (saved before sent, G1) its record must hold
    it; at the end it must be over, and the kit's ``result`` acknowledged (D3)."""
    kit_colour = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    try:
        kit = _kit_board(other_view(d), kit_colour)
        game = Game(8)
        gid, _ = _kit_handshake(kit, kit_colour, theirs)
        _kit_play(kit, kit_colour, theirs, game,
                  on_theirs=lambda: _check_own_record(d, gid, game, colour, f"after its ply {len(game.moves)}",
                                                     ended=game.position.is_game_over()))
        res = _expect_from(kit, "result", theirs, what=" at the end")
        _check_result(res, game, "at the end")
        kit.send(colour, _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"their {colour} exited {code} after the acknowledged end")
        _check_own_record(d, gid, game, colour, "after the end", ended=True)
        check(Records(d).acknowledged(gid, colour), f"no records/{gid}.ack-{colour} after the kit's result (D3)")
        _check_r1(d / "records" / f"{gid}.ack-{colour}", f"records/{gid}.ack-{colour}")
    finally:
        _reap(theirs, timeout=1)


def s_game_black(cmd, d, play_cmd):
    """P1-P5 H1-H3 G1-G4 D1-D3: a whole game as black against our white, and one against the kit checking its own record."""
    (d / "ours").mkdir()
    (d / "kit").mkdir()
    _game(play_cmd, d / "ours", "black")
    _recorded_game(play_cmd, d / "kit", "black")


def s_game_white(cmd, d, play_cmd):
    """P1-P5 H1-H3 G1-G4 D1-D3: a whole game as white against our black, and one against the kit checking its own record."""
    (d / "ours").mkdir()
    (d / "kit").mkdir()
    _game(play_cmd, d / "ours", "white")
    _recorded_game(play_cmd, d / "kit", "white")


def _expect(kit, kind, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
        if m is None:
            break
        msg = protocol.parse(m.body)
        if msg.kind == kind:
            return msg
    raise Fail(f"no {kind!r} message within {timeout} s")


def s_refused_move(cmd, d, play_cmd):
    """G2 H5a H8 P5: an illegal move is refused with a reason and not applied; a move sent before the handshake is never applied; a repeated hello is welcomed again."""
    theirs = _theirs(play_cmd, d, "white")
    kit = _kit_board(other_view(d), "black")
    try:
        _send_until(kit, "white", "d3 #1", theirs)          # before the handshake: dropped (H8)
        hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-1")   # no moves (P5)
        kit.send("white", hello)
        w = _expect_from(kit, "welcome", theirs, what=" to a hello without moves (P5: like moves=, no plies)")
        check(w.get("game") == "conf-1", "welcome for another game (H3)")
        check(not w.get("moves"), f"the welcome to a new game carries moves {w.get('moves')!r}: 'd3 #1', sent "
                                  "before the handshake, was applied (H8)")
        kit.send("white", "a1 #1")
        deadline = time.monotonic() + 15                   # an answer, not a move: no thinking time
        while True:
            m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
            check(m is not None, "no 'refused' message within 15 s")
            r = protocol.parse(m.body)
            check(r.kind != "move", f"it moved {m.body[:40]!r} before black's first move: 'd3 #1', sent before the "
                                    "handshake, was applied after it (H8: dropped, not kept for later)")
            if r.kind == "refused":
                break
        check(r.get("reason"), "refused without a reason (G2)")
        kit.send("white", "f5 #1")
        reply = _expect(kit, "move")
        g = Game.from_transcript("f5")
        check(reply.get("n") == 2 and g.position.is_legal(reply.get("square")),
              f"after f5 the reply was {reply.text!r}: the refused move changed its board")
        g.play(notation.parse_square(reply.get("square"), 8))
        kit.send("white", _kit_hello("black", "conf-1", g.transcript(passes=True)))     # repeated (H5a)
        w = _expect_from(kit, "welcome", theirs, what=" to a repeated hello for the game it plays (H5a)", timeout=10)
        check(w.get("game") == "conf-1", f"the repeated hello was answered {w.text[:100]!r} (H5a)")
        kit.send("white", "#cardstand resign")
        kit.send("white", protocol.control("result", black=2, white=2))     # G4: the resigner's result
    finally:
        _reap(theirs)


# A game of 58 plies after which black must pass (ply 59), white has one move (ply 60), black
# must pass again (ply 61) and white has a move (ply 62, the last): found by a random search
PASS_GAME = ("e6d6c4f6d7c3d3e3c2b5c5d8f7b2c6c7b3e7b7c8e2a8b8f3b6d2a2f8g6f1a6f5g2a7e1h7g7g3g1a3g8a1h5h1g4"
             "a5f2h6h8h2e8d1a4b4b1h3g5c1")


def _pass_left_out():
    """PASS_GAME to ply 60 (white's only move) with black's pass, ply 59, left out: it does not replay (H2)."""
    g = Game.from_transcript(PASS_GAME)
    check(g.position.must_pass() and g.position.turn == 0, "the kit's own bookkeeping: PASS_GAME")
    g.play(PASS)
    only = g.position.legal_moves()
    check(len(only) == 1, "the kit's own bookkeeping: PASS_GAME")
    return PASS_GAME + square_name(only[0], 8)


def _expect_refuse(kit, proc, what, timeout=15):
    """The ``refuse`` that answers ``what``; fails at once on a welcome or a move instead."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=min(1.0, max(0.01, deadline - time.monotonic())))
        if m is None:
            if proc.poll() is not None and kit.receive() is None:
                raise Fail(f"{what}: the implementation exited {proc.returncode} without sending 'refuse'")
            continue
        msg = protocol.parse(m.body)
        if msg.kind == "refuse":
            return msg
        check(msg.kind not in ("welcome", "move", "refused"), f"{what} was answered {m.body[:100]!r}, not 'refuse' (H4)")
    raise Fail(f"{what}: no 'refuse' message within {timeout} s (H4)")


def s_version(cmd, d, play_cmd):
    """H2 H4 G7: a greeting of another version, without v, with an empty v, or whose transcript leaves out a pass is refused (refuse, nothing more, exit 3)."""
    cases = [("a hello with v=2", dict(v=2), "version"),
             ("a hello without v", {}, "version"),
             ("a hello with an empty v", dict(v=""), "version"),
             ("a hello whose transcript leaves out a pass", dict(v=1, moves=_pass_left_out()), None)]
    started = []
    try:
        for i, (what, fields, _) in enumerate(cases):          # all at once: they wait for the kit
            sub = d / f"case-{i}"
            sub.mkdir()
            started.append((_theirs(play_cmd, sub, "white"), sub))
        for (what, fields, word), (theirs, sub) in zip(cases, started):
            kit = _kit_board(other_view(sub), "black")
            fields = dict(dict(role="black", name="kit", size=8, game=f"v{uuid.uuid4().hex[:6]}", moves=""), **fields)
            _send_until(kit, "white", protocol.control("hello", **fields), theirs)
            r = _expect_refuse(kit, theirs, what)
            if word:
                check(word in r.get("reason", ""), f"{what}: refuse without the {word}: {r.get('reason')!r} (H4)")
            try:
                code = theirs.wait(timeout=20)
            except subprocess.TimeoutExpired:
                raise Fail(f"{what}: the implementation kept running after refusing (H4: it stops)") from None
            check(code == 3, f"{what}: the refused game exited {code}, not 3 (G7)")
            for m in iter(kit.receive, None):
                raise Fail(f"{what}: after its refuse it sent {m.body[:80]!r} (H4: nothing more)")
            kit.close()
    finally:
        for theirs, _ in started:
            _reap(theirs, timeout=1)


def s_control_lines(cmd, d, play_cmd):
    """P4 P5 H4 D1: a greeting written as P4 allows (bytes encoded without need, lower-case hex, raw UTF-8, an = and a + inside a value, a lone %, an empty value, a key given twice, an unknown key, an unexpected role) is read as meant."""
    gid, name = "g-p4-test", "Kit 日本🀄=x+y%"
    raw = ("#cardstand hello v=1 size=6 role=observer name=Ki%74%20日本%f0%9f%80%84=x+y% size=%38 "
           "game=g-p4%2dtest moves= x-future=yes%20please")
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        got, welcome = _kit_handshake(kit, "black", theirs, gid=gid, hello=raw, within=10)
        check(got == gid, f"it welcomed game {got!r}, not {gid!r} (P4: %2d is '-')")
        deadline = time.monotonic() + 10
        while (rec := Records(d).load(gid)) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        check(rec is not None, f"no record of game {gid} after the handshake (D1)")
        check(rec.black == name, f"its record names black {rec.black!r}, not {name!r} (P4: percent-decoded "
                                 "as UTF-8, raw UTF-8 kept, an '=' after the first is part of the value, '+' "
                                 "is a plus, a '%' without two hex digits stays)")
        check(rec.size == 8, f"its record says size {rec.size}, not 8 (P4: size=%38; P5: a key given twice "
                             "counts with its last value)")
        game = Game(8)
        _kit_resigns(kit, "white", game, gid)
        code = _exit_code(theirs)
        check(code == 0, f"after the kit resigned it exited {code}: {theirs.output().strip()[-300:]!r}")
    finally:
        _reap(theirs, timeout=1)


def _quiet_for(kit, secs, what):
    """Nothing but greetings from the implementation for ``secs`` seconds: no move, no ``refused``."""
    deadline = time.monotonic() + secs
    while True:
        m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
        if m is None:
            return
        msg = protocol.parse(m.body)
        check(msg.kind not in ("move", "refused", "refuse"), f"{what}: it sent {m.body[:80]!r}")


def _answer_move(kit, proc, sent, game):
    """The implementation's move answering the kit's ``sent``, checked legal and played on ``game``
    (10 s: white has one legal move, nothing to think about)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        m = kit.wait(timeout=0.5)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} after {sent!r}")
            continue
        msg = protocol.parse(m.body)
        check(msg.kind != "refused", f"{sent!r} was refused: {m.body[:120]!r} (P3: a pass is spelt pass, PASS or Pass)")
        if msg.kind == "move":
            n = len(game.moves) + 1
            check(msg.get("n") == n, f"after {sent!r} it sent {m.body[:80]!r}, not move {n}")
            sq = notation.parse_square(msg.get("square"), 8) if msg.get("square") != "pass" else PASS
            check(sq != PASS and game.position.is_legal(sq), f"after {sent!r} its move {m.body[:80]!r} is illegal "
                                                            "(the pass was not applied)")
            game.play(sq)
            return
    raise Fail(f"no move within 10 s after {sent!r} (P3: a pass is spelt pass, PASS or Pass)")


def s_passes(cmd, d, play_cmd):
    """G3 P3 P5: in the numbered form white waits for black's pass #n; pAss is junk; PASS and Pass are passes."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game.from_transcript(PASS_GAME)          # black must pass at ply 59, and again at 61
        gid, _ = _kit_handshake(kit, "black", theirs, game=game)
        _quiet_for(kit, 1.0, "black must pass (ply 59), and before its 'pass #59' arrived "
                             "(G3: the other side waits for it, it never applies it itself)")
        kit.send("white", "pAss #59")
        _quiet_for(kit, 1.0, "after 'pAss #59' (P5: junk, ignored, not answered)")
        for spelt in ("PASS", "Pass"):
            sent = f"{spelt} #{len(game.moves) + 1}"
            game.play(PASS)
            kit.send("white", sent)
            _answer_move(kit, theirs, sent, game)
        check(game.position.is_game_over(), "the kit's own bookkeeping: PASS_GAME does not end at ply 62")
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
    finally:
        _reap(theirs, timeout=1)


# -- the kit's own reading of A2 (written from docs/PROTOCOL.md, not with comm's code) -----------

def _kit_mac(key, sender, sender_run, to, to_run, seq, data):
    """A2: HMAC-SHA256 over "cardstand-mac 1\\n" from \\n from-run \\n to \\n to-run \\n seq \\n body."""
    text = "\n".join(["cardstand-mac 1", sender, sender_run, to, to_run, str(seq), ""]).encode("ascii")
    return hmac.new(key, text + data, hashlib.sha256).hexdigest()


def _kit_frame(sender, sender_run, to, to_run, seq, body, key=None, mac=None):
    """A message file as M1 and A2 describe it (``mac`` forces a value)."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    head = (f"cardstand-msg 1\nfrom: {sender}\nfrom-run: {sender_run}\nto: {to}\nto-run: {to_run}\n"
            f"seq: {seq}\nlength: {len(data)}\ncrc32: {zlib.crc32(data):08x}\n")
    if mac is None and key is not None:
        mac = _kit_mac(key, sender, sender_run, to, to_run, seq, data)
    if mac is not None:
        head += f"mac: {mac}\n"
    return (head + "\n").encode("ascii") + data


_KIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")        # N1
_KIT_RUN = re.compile(r"[A-Za-z0-9_-]{1,64}")                   # M1
_KIT_DIGITS = re.compile(r"[0-9]{1,12}")                        # M1: seq, length
_KIT_REQUIRED = ("from", "from-run", "to", "to-run", "seq", "length", "crc32")     # M1, M3 (to-run)


def _kit_parse(raw, box=None, number=None):
    """(header dict, body bytes) of a message file, read the way M1 describes it, with the kit's
    own code (not comm's): a header of ASCII ``key: value`` lines, every key M1 and M3 have a
    writer put there (``from-run`` and ``to-run`` included) given once and well formed, ``length``
    and ``crc32`` those of the body, the body UTF-8 (N3); ``to`` is ``box`` and ``seq`` is
    ``number`` when given (M4).  Keys M1 does not list are ignored."""
    head, sep, data = raw.partition(b"\n\n")
    check(sep, "a message file without the empty line after its header (M1)")
    try:
        lines = head.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise Fail("a message header that is not ASCII (M1)") from None
    check(lines[0] == "cardstand-msg 1", f"first line {lines[0][:40]!r} (M1)")
    f = {}
    for line in lines[1:]:
        k, s, v = line.partition(": ")
        check(s and k, f"bad header line {line[:40]!r} (M1)")
        check(k not in f, f"the header key {k!r} is given twice (M1: a bad header)")
        f[k] = v
    for k in _KIT_REQUIRED:
        check(k in f, f"a message without {k!r} in its header (M1{', M3' if k == 'to-run' else ''}): "
                      f"{head[:200].decode('ascii', 'replace')!r}")
    for k in ("from", "to"):
        check(_KIT_NAME.fullmatch(f[k]), f"{k}: {f[k][:40]!r} is not a member name (M1, N1)")
    for k in ("from-run", "to-run"):
        check(_KIT_RUN.fullmatch(f[k]), f"{k}: {f[k][:70]!r} is not 1-64 of [A-Za-z0-9_-] (M1)")
    for k in ("seq", "length"):
        check(_KIT_DIGITS.fullmatch(f[k]), f"{k}: {f[k][:20]!r} is not 1 to 12 decimal digits (M1)")
    check(re.fullmatch(r"[0-9a-f]{8}", f["crc32"]), f"crc32: {f['crc32'][:20]!r} is not 8 lower-case hex digits (M1)")
    check(int(f["length"]) == len(data), f"length: {f['length']}, the body has {len(data)} bytes (M1)")
    check(int(f["crc32"], 16) == zlib.crc32(data), "crc32: is not the body's CRC-32 (M1)")
    if "mac" in f:
        check(re.fullmatch(r"[0-9a-f]{64}", f["mac"]), f"mac: {f['mac'][:70]!r} is not 64 lower-case hex digits (A2)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail("a message body that is not UTF-8 (N3)") from None
    if box is not None:
        check(f["to"].lower() == box, f"a message to {f['to']!r} in the mailbox of {box!r} (M1 M3)")
    if number is not None:
        check(int(f["seq"]) == number, f"message file {msg_name(number)} says seq: {f['seq']} (M1 M2)")
    return f, data


def _kit_inspect(box):
    """The kit's check of each raw message file that ``box``'s mailbox hands out."""
    return lambda raw, k: _kit_parse(raw, box=box, number=k)


def KitBoard(folder, name, **options):
    """The kit's side of the board: comm's Board, but every message file it takes from its mailbox
    (all of them written by the implementation) is first judged by the kit's own decoder
    (``_kit_parse``, written from M1), so that comm does not judge the framing of the messages."""
    return Board(folder, name, inspect=_kit_inspect(name.lower()), **options)


def _run_of(box):
    """The run in a mailbox's member record."""
    text = (box / "member").read_text("utf-8", "replace")
    runs = [line[5:].strip() for line in text.splitlines() if line.startswith("run: ")]
    check(runs and runs[0], f"no run in {box / 'member'}")
    return runs[0]


def _place(kit, box, make):
    """Deliver ``make(seq)`` (the bytes of a message file) into the mailbox folder ``box`` as M2/M3
    do, under the lock, probing with lstat only (never opening what is there); returns seq."""
    with kit.lease.hold(10):
        k = max(fsops.read_int(box / "head"), fsops.read_int(box / "tail")) + 1
        while os.path.lexists(box / msg_name(k)):
            k += 1
        data = make(k)
        scratch = fsops.write_scratch(kit.tmp, data)
        os.replace(scratch, box / msg_name(k))
        fsops.replace_with(kit.tmp, box / "head", fsops.record(str(k)), durable=False)
    return k


def _plain_messages(box):
    """The regular message files of a mailbox folder, read without opening anything else."""
    out = []
    for p in sorted(box.iterdir()):
        if re.fullmatch(r"[0-9]{12}\.msg", p.name) and stat.S_ISREG(os.lstat(p).st_mode):
            out.append((p, _kit_parse(p.read_bytes())))
    return out


def _secret():
    return f"conformance {uuid.uuid4().hex[:12]} sécret"


def s_mac(cmd, d):
    """A1 A2 A3 A4 A5: with CARDSTAND_SECRET the implementation signs what it sends and refuses what is not signed right."""
    secret = _secret()
    key = secret.encode("utf-8")
    kit = KitBoard(other_view(d), "kit").join()          # no secret: the kit checks MACs with its own code
    impl = Served(cmd, d, "impl", secret=f"  {secret}\n")     # A1: white space around it is not part of it
    try:
        check(impl.ask(op="init").get("ok"), "init failed with CARDSTAND_SECRET set")
        body = "signé\nby the implementation 🀄"
        a = impl.ask(op="send", to="kit", body=body)
        check(a.get("result") == 1, f"send answered {a}")
        f, data = _kit_parse((d / "box" / "kit" / msg_name(1)).read_bytes())
        check("mac" in f, "a message sent with CARDSTAND_SECRET set has no mac: line (A2)")
        check(re.fullmatch(r"[0-9a-f]{64}", f["mac"]), f"mac: {f['mac'][:70]!r} is not 64 lower-case hex digits (A2)")
        want = _kit_mac(key, f["from"], f["from-run"], f["to"], f["to-run"], f["seq"], data)
        check(hmac.compare_digest(f["mac"], want), "the mac: line is not HMAC-SHA256 of A2 with the stripped secret")
        check(data.decode("utf-8") == body, "the signed body differs")
        check(kit.receive().body == body, "the kit could not receive it")

        box = other_view(d) / "box" / "impl"
        run = _run_of(box)

        def good(text):
            return lambda k: _kit_frame("kit", kit.run, "impl", run, k, text, key)

        k = _place(kit, box, good("signed by the kit"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "signed by the kit", f"a correctly signed message: recv answered {a}")
        _place(kit, box, lambda k: _kit_frame("kit", kit.run, "impl", run, f"{k:04d}", "zeros", key))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "zeros", f"a message signed with 'seq: 000N' as written "
              f"(leading zeros): recv answered {a} (M1: its number is the decimal value; A2: the MAC is over "
              "the value exactly as written, never normalised)")
        copy = _kit_frame("kit", kit.run, "impl", run, k, "signed by the kit", key)
        bad = [
            ("an unsigned message", lambda k: _kit_frame("kit", kit.run, "impl", run, k, "unsigned")),
            ("a message signed with another secret", lambda k: _kit_frame("kit", kit.run, "impl", run, k, "other", b"not it")),
            ("a message with a malformed mac", lambda k: _kit_frame("kit", kit.run, "impl", run, k, "short", mac="00ff")),
            ("a message whose body was changed after signing",
             lambda k: _kit_frame("kit", kit.run, "impl", run, k, "d4", mac=_kit_mac(key, "kit", kit.run, "impl", run, k, b"d3"))),
            ("a message whose sender was changed after signing",
             lambda k: _kit_frame("white", kit.run, "impl", run, k, "x", mac=_kit_mac(key, "kit", kit.run, "impl", run, k, b"x"))),
            ("a signed message copied to another number", lambda k: copy),
        ]
        for what, make in bad:
            k = _place(kit, box, make)
            a = impl.ask(op="recv")
            check(a.get("result") != 2, f"{what} was returned: {a} (A3)")
            check(not os.path.lexists(box / msg_name(k)), f"{what} was left in the mailbox (A3: moved to trash)")
        _place(kit, box, good("still talking"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "still talking", f"after the refused ones: recv answered {a}")
    finally:
        impl.close()
    plain = Served(cmd, d, "plain")                  # A4: a reader without a secret ignores mac:
    try:
        check(plain.ask(op="init").get("ok"), "init failed")
        pbox = other_view(d) / "box" / "plain"
        _place(kit, pbox, lambda k: _kit_frame("kit", kit.run, "plain", _run_of(pbox), k, "signed, read plainly", key))
        a = plain.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "signed, read plainly",
              f"without a secret, a signed message must be read (A4): {a}")
    finally:
        plain.close()


def _snapshot(root):
    """Every entry under ``root`` (not following links): type, mode and content or link target."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[rel] = ("file", stat.S_IMODE(st.st_mode), hashlib.sha256(f.read()).hexdigest())
            else:
                out[rel] = ("other", st.st_mode)
    return out


def _victim(v):
    """A folder outside the board that looks like a board's lock, mailbox and scratch, all old."""
    v.mkdir()
    (v / "owner").write_bytes(fsops.record("cardstand-lock 1\ntoken: 0123456789abcdef\nname: victim\nhost: x\npid: 1"))
    (v / "beat").write_bytes(fsops.record("7"))
    (v / "member").write_bytes(fsops.record("cardstand-member 1\nname: ghost\nrun: 00000000deadbeef\nhost: x\npid: 1"))
    (v / "head").write_bytes(fsops.record("0"))
    (v / "tail").write_bytes(fsops.record("0"))
    (v / msg_name(1)).write_bytes(_kit_frame("kit", "0000000000000001", "impl", "0000000000000002", 1, "victim's"))
    (v / "private.txt").write_text("the owner's own file\n")
    (v / "sub").mkdir()
    (v / "sub" / "deep.txt").write_text("deeper\n")
    old = time.time() - 30 * 86400
    for p in [*v.rglob("*"), v]:
        os.utime(p, (old, old))


def _link(target, where, mtime=None):
    """A symbolic link at ``where`` to ``target``, dated ``mtime`` where the system allows.

    The target is written relative to the link: on a loopback share (sshfs) the server follows
    links for some operations (SFTP SETSTAT), and an absolute target there would lead it back
    into the client mount it is serving, which deadlocks the mount. A relative one stays on the
    server's disk.
    """
    try:
        os.symlink(os.path.relpath(target, where.parent), where)
    except (OSError, NotImplementedError) as e:
        raise Skip(f"cannot make symbolic links here: {e}") from None
    if mtime is not None:
        try:
            os.utime(where, (mtime, mtime), follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass


def s_links(cmd, d):
    """B6 F2 S1 L5: symbolic links planted in the board (tmp/ entries, trash, lock, box/<key>, head) are never followed."""
    board, victim = d / "board", d / "victim"
    _victim(victim)
    before = _snapshot(victim)
    kit = KitBoard(other_view(board), "kit").join()
    old, future = time.time() - 3600, time.time() + 86400
    tmp = board / "tmp"
    _link(victim, tmp / "old-link", old)                      # S1: old scratch that is a link
    (tmp / "old-dir").mkdir()
    _link(victim, tmp / "old-dir" / "inside", old)            # ... a link inside old scratch
    os.utime(tmp / "old-dir", (old, old))
    _link(victim, tmp / "future-link", future)                # ... scratch dated in the future
    for p in (board / "trash").iterdir():
        p.unlink()
    (board / "trash").rmdir()
    _link(victim, board / "trash")                            # a fixed folder that is a link
    _link(victim, board / "lock")                             # a lock that is a link
    _link(victim, board / "box" / "impl")                     # the implementation's own mailbox
    _link(victim, board / "box" / "ghost")                    # a mailbox it may send to
    head = board / "box" / "kit" / "head"
    if os.path.lexists(head):
        head.unlink()
    _link(victim / "head", head)                              # a record that is a link
    impl = Served(cmd, board, "impl", stale_after=1.0, lock_timeout=20)
    try:
        check(impl.ask(op="init", timeout=40).get("ok"), "init failed on a board with planted links")
        check(_snapshot(victim) == before, "init changed the folder outside the board")
        mine = board / "box" / "impl"
        check(mine.is_dir() and not mine.is_symlink(), "box/impl is still a link after init (F2: set aside, recreated)")
        a = impl.ask(op="send", to="kit", body="through the links", timeout=40)
        check(a.get("result") == 1, f"send answered {a}")
        got = kit.receive()
        check(got is not None and got.body == "through the links", "the kit did not get the message")
        (mine / msg_name(1)).write_bytes(_kit_frame("kit", kit.run, "impl", "r", 1, "damaged")[:-2])
        check(kit.send("impl", "valid"), f"the kit could not send: {kit.last_error}")
        a = impl.ask(op="recv", timeout=40)
        check(a.get("result") == 2 and a.get("body") == "valid", f"recv answered {a}")
        a = impl.ask(op="send", to="ghost", body="into the link", timeout=40)
        check(a.get("result") != 1, "delivered into box/ghost, a link to a folder outside the board")
        lock = board / "lock"                                   # L5: a stale lock with a link inside
        if os.path.lexists(lock):
            raise Fail("lock/ is still there after the implementation released it")
        lock.mkdir()
        (lock / "owner").write_bytes(fsops.record(
            "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\nmachine: elsewhere/b\npid: 1"))
        _link(victim, lock / "inside")
        _link(victim / "beat", lock / "beat")
        a = impl.ask(op="send", to="kit", body="past the stale lock", timeout=40)
        check(a.get("result") == 1, f"send answered {a}")
        got = kit.receive()
        check(got is not None and got.body == "past the stale lock", "the kit did not get the message")
        check(impl.ask(op="init", timeout=40).get("ok"), "a second init failed")
    finally:
        impl.close()
    after = _snapshot(victim)
    changed = sorted(set(before) ^ set(after) | {k for k in before if k in after and before[k] != after[k]})
    check(after == before, f"the folder outside the board changed: {', '.join(changed[:6])}")


def _fifo(p):
    if not hasattr(os, "mkfifo"):
        raise Skip("no FIFOs on this system")
    try:
        os.mkfifo(p)
    except OSError as e:
        raise Skip(f"cannot make a FIFO here: {e}") from None


def s_fifo(cmd, d):
    """B7 M2 M4 S3: a FIFO and a folder named like messages neither block nor jam a mailbox."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", lock_timeout=5)
    try:
        impl.ask(op="init")
        box = d / "box" / "impl"
        run = _run_of(box)
        _fifo(box / msg_name(1))
        (box / msg_name(2)).mkdir()
        (box / msg_name(2) / "inside").write_text("x")
        _place(kit, other_view(box), lambda k: _kit_frame("kit", kit.run, "impl", run, k, "after the junk"))
        a = impl.ask(op="recv", timeout=10)
        check(a.get("result") == 2 and a.get("body") == "after the junk", f"recv answered {a}")
        check(impl.ask(op="recv", timeout=10).get("result") == -1, "the junk came back as a message")
        _place(kit, other_view(box), lambda k: _kit_frame("kit", kit.run, "impl", run, k, "and the next"))
        a = impl.ask(op="recv", timeout=10)
        check(a.get("result") == 2 and a.get("body") == "and the next", f"the mailbox is jammed: recv answered {a}")
        kbox = d / "box" / "kit"                             # where its next message to the kit would go
        _fifo(kbox / msg_name(1))
        (kbox / msg_name(2)).mkdir()
        a = impl.ask(op="send", to="kit", body="past the FIFO", timeout=10)
        check(a.get("result") == 1, f"send answered {a}")
        bodies = [data.decode("utf-8") for _, (f, data) in _plain_messages(kbox)]
        check(bodies == ["past the FIFO"], f"messages in the kit's mailbox: {bodies}")
        check(not os.path.lexists(d / "lock"), "the lock was left held")
    finally:
        impl.close()


def s_pointers(cmd, d):
    """M2 M3 M4: absurd head values (beyond tail + 1000, 15 digits) neither loop forever nor fake a full mailbox."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", lock_timeout=5)
    try:
        impl.ask(op="init")
        box = other_view(d) / "box" / "impl"
        run = _run_of(box)
        for head in ("999999999999999", "5000", "99999999999"):
            tail = fsops.read_int(box / "tail")
            fsops.replace_with(kit.tmp, box / "head", fsops.record(str(tail)), durable=False)
            _place(kit, box, lambda k: _kit_frame("kit", kit.run, "impl", run, k, f"head {head}"))
            fsops.replace_with(kit.tmp, box / "head", fsops.record(head), durable=False)
            a = impl.ask(op="recv", timeout=10)
            check(a.get("result") == 2 and a.get("body") == f"head {head}", f"with head {head}, recv answered {a}")
            check(impl.ask(op="recv", timeout=10).get("result") == -1, f"with head {head}, a second message appeared")
        kbox = other_view(d) / "box" / "kit"
        for head in ("999999999999999", "5000"):
            fsops.replace_with(kit.tmp, kbox / "head", fsops.record(head), durable=False)
            a = impl.ask(op="send", to="kit", body=f"to head {head}", timeout=10)
            check(a.get("result") == 1, f"with the kit's head at {head}, send answered {a} (not full: M3)")
            found = _plain_messages(kbox)
            bodies = [data.decode("utf-8") for _, (f, data) in found]
            check(bodies == [f"to head {head}"], f"with the kit's head at {head}, its mailbox holds {bodies}")
            path, (f, _) = found[0]
            check(len(path.name) == len(msg_name(1)), f"with head {head}, the message went to {path.name}")
            path.unlink()                                    # consumed by hand (the kit's own reader would loop)
            fsops.replace_with(kit.tmp, kbox / "tail", fsops.record(f["seq"]), durable=False)
    finally:
        impl.close()


def _send_until(kit, to, body, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while not kit.send(to, body):
        check(proc.poll() is None, f"the implementation exited {proc.returncode} before joining")
        check(time.monotonic() < deadline, f"the implementation never joined as {to}")
        time.sleep(0.1)


def _kit_board(folder, name, secret=None):
    """The kit's side of a game: joined, and showing (P2 ``state``) that it speaks control lines (H9)."""
    kit = KitBoard(folder, name, secret=secret).join()
    kit.beat("waiting")
    return kit


def _kit_hello(colour, gid, moves="", size=8):
    if colour == "black":
        return protocol.control("hello", v=1, role="black", name="kit", size=size, game=gid, moves=moves)
    return protocol.control("hello", v=1, role="white", name="kit")


def _kit_handshake(kit, colour, proc, gid=None, game=None, hello=None, within=30):
    """H1-H3 as ``colour`` against ``proc``; black offers ``game`` (a ``Game``, default a new one)
    as ``gid`` (``hello``: the greeting as written, instead of the kit's own).  Returns (gid, the
    other side's greeting)."""
    other = "white" if colour == "black" else "black"
    gid = gid or f"conf-{uuid.uuid4().hex[:8]}"
    moves = game.transcript(passes=True) if game is not None else ""
    hello = hello or _kit_hello(colour, gid, moves)
    _send_until(kit, other, hello, proc)
    next_hello = time.monotonic() + 2
    shake_by = time.monotonic() + within
    while True:
        check(time.monotonic() < shake_by, f"no handshake within {within} s")
        check(proc.poll() is None, f"the implementation exited {proc.returncode} during the handshake")
        m = kit.wait(timeout=0.2)
        if m is None:
            if time.monotonic() > next_hello:
                kit.send(other, hello)
                next_hello = time.monotonic() + 2
            continue
        msg = protocol.parse(m.body)
        if colour == "black" and msg.kind == "hello":
            kit.send(other, hello)
        elif colour == "black" and msg.kind == "welcome" and msg.get("game") == gid:
            return gid, msg
        elif colour == "white" and msg.kind == "hello" and msg.get("role") == "black":
            gid = msg.get("game")
            kit.send(other, protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                             moves=msg.get("moves")))
            return gid, msg
        elif msg.kind == "refuse":
            raise Fail(f"the implementation refused: {msg.get('reason')!r}")


def _kit_play(kit, colour, proc, game, timeout=120, hold_last=False, until=None, on_theirs=None):
    """The kit plays ``game`` on (the first legal move) as ``colour`` until it is over (or holds
    ``until`` plies).  With ``hold_last`` the kit's own last ply, if it makes it, is not sent.
    ``on_theirs()`` is called after each ply received from the implementation.
    Returns whether one was held."""
    other = "white" if colour == "black" else "black"
    me = 0 if colour == "black" else 1
    deadline = time.monotonic() + timeout
    while not game.position.is_game_over() and (until is None or len(game.moves) < until):     # G1-G4
        check(time.monotonic() < deadline, f"the game did not finish within {timeout} s")
        pos = game.position
        if pos.turn == me:
            move = PASS if pos.must_pass() else pos.legal_moves()[0]
            game.play(move)
            if hold_last and game.position.is_game_over():
                return True
            text = "pass" if move == PASS else square_name(move, 8)
            kit.send(other, protocol.move(text, len(game.moves), 0))
            continue
        m = kit.wait(timeout=1)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} in the middle of the game")
            continue
        msg = protocol.parse(m.body)
        if msg.kind == "move":
            n = msg.get("n")
            if n is not None and n < len(game.moves) + 1:
                continue
            sq = PASS if msg.get("square") == "pass" else notation.parse_square(msg.get("square"), 8)
            check(sq == PASS and pos.must_pass() or sq != PASS and pos.is_legal(sq), f"illegal move {m.body!r}")
            game.play(sq)
            if on_theirs is not None:
                on_theirs()
        elif msg.kind in ("refuse", "refused", "resign"):
            raise Fail(f"the implementation sent {m.body[:100]!r}")
    return False


def _result_of(game, gid=None):
    b, w = game.position.discs()
    return protocol.control("result", black=b, white=w, game=gid)


def _kit_game(kit, colour, proc, timeout=120):
    """The kit plays a whole numbered game as ``colour`` (the first legal move) against ``proc``."""
    other = "white" if colour == "black" else "black"
    game = Game(8)
    gid, _ = _kit_handshake(kit, colour, proc)
    _kit_play(kit, colour, proc, game, timeout)
    kit.send(other, _result_of(game, gid))


def _reap(proc, timeout=20):
    """Let a scenario's program end by itself for ``timeout`` s, then kill it; at once when the
    scenario is failing (called from a ``finally`` while its ``Fail`` propagates)."""
    if sys.exc_info()[0] is not None:
        timeout = 0.5
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def _exit_code(proc, timeout=30):
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Fail(f"the implementation kept running for {timeout} s") from None
    return proc.returncode


# Our Python player (python -m peer play), when it knows the shared secret (H7)
OUR_PLAYER = [sys.executable, "-m", "peer", "play", "--ai", "random"]
_OUR_SECRET = {}


def _our_player_has_secret():
    if "yes" not in _OUR_SECRET:
        try:
            r = subprocess.run(OUR_PLAYER[:4] + ["--help"], capture_output=True, text=True, timeout=60, cwd=ROOT,
                               env=_env())
            _OUR_SECRET["yes"] = "--secret-file" in r.stdout
        except (OSError, subprocess.SubprocessError):
            _OUR_SECRET["yes"] = False
    return _OUR_SECRET["yes"]


def _our_play(board, colour, secret=None):
    return _start(OUR_PLAYER + ["--board", str(board), "--color", colour], cwd=ROOT,
                  env=_env(secret, dict(os.environ, NO_COLOR="1")))


def _both(a, b, timeout=120):
    """Wait for two players; (code a, output a, code b, output b)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (a.poll() is None or b.poll() is None):
        time.sleep(0.1)
    for p in (a, b):
        if p.poll() is None:
            p.kill()
    out_a, out_b = a.output(), b.output()
    return a.wait(), out_a, b.wait(), out_b


def _secret_with_our_player(play_cmd, d, secret):
    """H7 against our Python player: the same secret plays; a secret against none: both exit 3."""
    for colour, theirs_secret, ours_secret in (("white", secret, secret), ("black", secret, None),
                                               ("white", None, secret)):
        other = "black" if colour == "white" else "white"
        sub = d / f"ours-{colour}-{'s' if theirs_secret else 'n'}{'s' if ours_secret else 'n'}"
        sub.mkdir()
        theirs = _theirs(play_cmd, sub, colour, secret=theirs_secret)
        ours = _our_play(other_view(sub), other, secret=ours_secret)
        code_t, out_t, code_o, out_o = _both(theirs, ours)
        want = 0 if theirs_secret == ours_secret else 3
        what = "the same secret" if want == 0 else ("a secret on their side only" if theirs_secret else
                                                    "a secret on our side only")
        check(code_t == want, f"{what}: their {colour} exited {code_t}, not {want}: {out_t.strip()[-300:]!r}")
        check(code_o == want, f"{what}: our {other} exited {code_o}, not {want}: {out_o.strip()[-300:]!r}")
        if want == 0:
            rec = Records(sub).current()
            check(rec is not None and rec.status == "over", f"{what}: the game record is not finished")


def s_game_secret(cmd, d, play_cmd):
    """A1 H7: with the same secret both sides play; a side with a secret and a side without refuse (exit 3)."""
    # The kit plays the other side itself through comm.Board(secret=...); then, when our Python
    # player knows --secret-file, against it as well (both sides must exit 3 when one has no secret).
    secret = _secret()
    key = secret.encode("utf-8")
    for colour in ("white", "black"):                       # the same secret: a whole game
        sub = d / f"same-{colour}"
        sub.mkdir()
        theirs = _theirs(play_cmd, sub, colour, secret=secret)
        try:
            kit = _kit_board(other_view(sub), "black" if colour == "white" else "white", secret=key)
            _kit_game(kit, "black" if colour == "white" else "white", theirs)
            code = _exit_code(theirs)
            out = theirs.output()
            check(code == 0, f"their {colour} with the secret exited {code}: {out[-300:]!r}")
            check(not kit.take_rejected(), "the kit refused messages signed by the implementation")
        finally:
            if theirs.poll() is None:
                theirs.kill()
    for colour, theirs_secret in (("white", True), ("black", True), ("white", False), ("black", False)):
        sub = d / f"mixed-{colour}-{'theirs' if theirs_secret else 'kits'}"
        sub.mkdir()
        theirs = _theirs(play_cmd, sub, colour, secret=secret if theirs_secret else None)
        kit_colour = "black" if colour == "white" else "white"
        try:
            kit = _kit_board(other_view(sub), kit_colour, secret=None if theirs_secret else key)
            if kit_colour == "black":
                hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-mixed", moves="")
            else:
                hello = protocol.control("hello", v=1, role="white", name="kit")
            _send_until(kit, colour, hello, theirs)
            deadline = time.monotonic() + 30
            refused = None
            while refused is None and time.monotonic() < deadline and theirs.poll() is None:
                m = kit.wait(timeout=0.5)
                if m is not None and protocol.parse(m.body).kind == "refuse":
                    refused = protocol.parse(m.body).get("reason")
                elif m is None:
                    kit.send(colour, hello)
            code = _exit_code(theirs)
            out = theirs.output()
            who = "their side has the secret, the kit's has none" if theirs_secret else \
                "the kit's side has the secret, theirs has none"
            check(code == 3, f"{who}: their {colour} exited {code}, not 3: {out[-300:]!r}")
            if theirs_secret:
                # its refuse reaches the kit (which has no secret); A4 makes it say why
                m = refused or next((protocol.parse(x.body).get("reason") for x in iter(lambda: kit.wait(timeout=2), None)
                                     if protocol.parse(x.body).kind == "refuse"), None)
                check(m is not None, f"{who}: their {colour} sent no refuse (H7)")
            else:
                # its unsigned messages are refused by the kit's board (A3): not a game
                check(not any(protocol.parse(x.body).kind in ("welcome", "move")
                              for x in iter(lambda: kit.wait(timeout=0.5), None)),
                      f"{who}: an unsigned welcome or move was accepted")
        finally:
            if theirs.poll() is None:
                theirs.kill()
    if _our_player_has_secret():
        _secret_with_our_player(play_cmd, d, secret)


def s_runs(cmd, d, play_cmd):
    """H8: after the handshake, a move from another run of the opponent is neither applied nor answered."""
    theirs = _theirs(play_cmd, d, "white")
    kit = _kit_board(other_view(d), "black")
    try:
        hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-runs", moves="")
        _send_until(kit, "white", hello, theirs)
        check(_expect(kit, "welcome").get("game") == "conf-runs", "welcome for another game (H3)")
        kit.send("white", "f5 #1")
        g = Game.from_transcript("f5")
        reply = _expect(kit, "move")
        check(reply.get("n") == 2, f"the reply to f5 #1 was {reply.text!r}")
        g.play(notation.parse_square(reply.get("square"), 8))
        legal = g.position.legal_moves()
        forged, real = legal[-1], legal[0]
        # another run of black, which never joined: its message written as M1-M3 say, under the lock
        white_box = other_view(d) / "box" / "white"
        forger_run, white_run = fsops.new_token(), _run_of(white_box)
        _place(kit, white_box, lambda k: _kit_frame("black", forger_run, "white", white_run, k,
                                                    f"{square_name(forged, 8)} #3"))
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
            if m is not None:
                k = protocol.parse(m.body).kind
                check(k not in ("move", "refused"), f"after a move from another run of black it sent {m.body!r} (H8)")
        kit.send("white", f"{square_name(real, 8)} #3")
        g.play(real)
        reply = _expect(kit, "move")
        check(reply.get("n") == 4 and g.position.is_legal(notation.parse_square(reply.get("square"), 8)),
              f"after the real move 3 the reply was {reply.text!r}: the forged move was applied")
        kit.send("white", "#cardstand resign")
        kit.send("white", protocol.control("result", black=2, white=2))     # G4: the resigner's result
    finally:
        _reap(theirs)


def _expect_from(kit, kind, proc, timeout=30, what=""):
    """The next ``kind`` message; fails early when ``proc`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=0.5)
        if m is not None:
            msg = protocol.parse(m.body)
            if msg.kind == kind:
                return msg
            if msg.kind == "refuse":
                raise Fail(f"the implementation refused{what}: {msg.get('reason')!r}")
        elif proc.poll() is not None and kit.receive() is None:
            break
    raise Fail(f"no {kind!r} message{what} within {timeout} s (the implementation "
               f"{'exited ' + str(proc.returncode) if proc.poll() is not None else 'is still running'})")


def _check_result(msg, game, what):
    b, w = game.position.discs()
    check((msg.get("black"), msg.get("white")) == (str(b), str(w)),
          f"{what}: result black={msg.get('black')} white={msg.get('white')}, the board says {b}-{w} (G4)")


def _check_finished(d, gid, colour, game, what):
    """D1 D3: the implementation's record of ``gid`` is over with the whole game, its end acknowledged."""
    rec = Records(d).load(gid)
    check(rec is not None, f"{what}: no record of game {gid} (D1)")
    check(rec.status == "over", f"{what}: its record says status {rec.status!r}, not 'over' (D1)")
    check(Game.from_transcript(rec.moves).moves == game.moves, f"{what}: its record holds other moves (D1)")
    check(Records(d).acknowledged(gid, colour),
          f"{what}: no records/{gid}.ack-{colour} after the kit's result (D3)")


def s_end_reoffer(cmd, d, play_cmd):
    """G4 G6 H5: the last ply never sent (its mover died) reaches the implementation when the game is offered again."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        held = _kit_play(kit, "black", theirs, game, hold_last=True)
        if not held:        # the implementation made the last ply: its result, but the kit says nothing
            _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.close()
        # the kit "restarts": a new run of black offers the whole game, its last ply included
        kit = _kit_board(other_view(d), "black")
        hello = _kit_hello("black", gid, game.transcript(passes=True))
        _send_until(kit, "white", hello, theirs)
        w = _expect_from(kit, "welcome", theirs, what=" to the game offered again")
        check(w.get("game") == gid, f"welcome for game {w.get('game')!r}, not {gid} (H5)")
        _check_result(_expect_from(kit, "result", theirs, what=" after the game was offered again (G6)"),
                      game, "after the game was offered again")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
        _check_finished(d, gid, "white", game, "after the end")
    finally:
        _reap(theirs)


def s_end_restart(cmd, d, play_cmd):
    """G6 H5 D3: an end the opponent never acknowledged is offered again by the implementation's next start."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        theirs.kill()                   # the kit never acknowledged the end
        theirs.wait()
        check(not Records(d).acknowledged(gid, "white"), f"records/{gid}.ack-white without the kit's result (D3)")
        theirs = _theirs(play_cmd, d, "white")
        hello = _expect_from(kit, "hello", theirs, what=" from the restarted implementation")
        check(hello.get("game") == gid and hello.get("moves").lower() == game.transcript(passes=True).lower(),
              f"the restarted implementation offered game {hello.get('game')!r} with moves "
              f"{hello.get('moves')[:40]!r}..., not the ended game {gid} whose end the kit never acknowledged (G6)")
        kit.send("white", _kit_hello("black", gid, game.transcript(passes=True)))
        _expect_from(kit, "welcome", theirs, what=" to the kit's hello")
        _check_result(_expect_from(kit, "result", theirs, what=" after the restart (G6)"), game, "after the restart")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the implementation exited {code} after the acknowledged end")
        _check_finished(d, gid, "white", game, "after the restart")
        theirs = _theirs(play_cmd, d, "white")      # finished now: its next start offers no old game
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started once more")
        check(not hello.get("game"), f"after the acknowledged end, the next start offered game {hello.get('game')!r} again")
    finally:
        _reap(theirs, timeout=1)


def _kit_classic_game(kit, colour, proc, timeout=150):
    """The kit plays a classic program (H6) as ``colour``: bare squares, passes not sent, no state in
    its alive record, never a greeting.  Everything the implementation sends must be a bare square."""
    other = "white" if colour == "black" else "black"
    me = 0 if colour == "black" else 1
    game = Game(8)
    deadline = time.monotonic() + timeout
    while not game.position.is_game_over():
        check(time.monotonic() < deadline, f"the classic game did not finish within {timeout} s")
        pos = game.position
        if pos.turn == me:
            if pos.must_pass():
                game.play(PASS)             # G3: a classic program does not send its pass
                continue
            move = pos.legal_moves()[0]
            game.play(move)
            _send_until(kit, other, square_name(move, 8), proc)
            continue
        if pos.must_pass():
            game.play(PASS)                 # the implementation's pass, applied here
            continue
        m = kit.wait(timeout=1)
        if m is None:
            check(proc.poll() is None, f"the implementation exited {proc.returncode} in the middle of the game")
            continue
        check(not m.body.startswith("#"), f"a classic program was sent a control line: {m.body[:80]!r} (H9)")
        msg = protocol.parse(m.body)
        check(msg.kind == "move" and "n" not in msg.fields and msg.get("square") != "pass",
              f"a classic program was sent {m.body[:80]!r}, not a bare square (H6)")
        sq = notation.parse_square(msg.get("square"), 8)
        check(pos.is_legal(sq), f"illegal move {m.body!r}")
        game.play(sq)
    code = _exit_code(proc, timeout=30)
    check(code == 0, f"the implementation exited {code} after the classic game")
    for m in iter(lambda: kit.receive(), None):
        check(not m.body.startswith("#"), f"a classic program was sent a control line after the game: {m.body[:80]!r} (H9)")
    return game


def s_classic_white(cmd, d, play_cmd):
    """H6 H9 G3: against a classic black (no greeting, no state) the implementation sends no control line, only bare squares."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = KitBoard(other_view(d), "black").join()   # a classic program: Init, Quiet, Talk
        deadline = time.monotonic() + 30
        while kit.member_run("white") is None:
            check(time.monotonic() < deadline and theirs.poll() is None, "the implementation never joined as white")
            time.sleep(0.1)
        time.sleep(1.5)         # it has seen us join: still it must send nothing
        first = kit.receive()
        check(first is None, f"before black's first move a classic program was sent {first and first.body[:80]!r} (H9)")
        _kit_classic_game(kit, "black", theirs)
    finally:
        _reap(theirs, timeout=1)


def s_classic_black(cmd, d, play_cmd):
    """H6 H9 G3: against a classic white the implementation sends no greeting and plays bare squares (after 10 s)."""
    kit = KitBoard(other_view(d), "white").join()       # a classic program: Init, Quiet, Talk
    theirs = _theirs(play_cmd, d, "black")
    try:
        _kit_classic_game(kit, "white", theirs)
    finally:
        _reap(theirs, timeout=1)


def _board_state(d):
    """Every file of a board but heartbeats (``alive``) and scratch: what a refused start must leave alone."""
    out = {}
    for dirpath, _, files in os.walk(d):
        rel = Path(dirpath).relative_to(d)
        if rel.parts and rel.parts[0] in ("tmp", "trash", "lock"):
            continue
        for f in files:
            if f != "alive":
                p = Path(dirpath) / f
                out[str(p.relative_to(d))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _kill(proc):
    proc.kill()
    proc.wait()


def _kit_resigns(kit, other, game, gid):
    kit.send(other, protocol.control("resign"))
    kit.send(other, _result_of(game, gid))


def _status(d, gid, what):
    rec = Records(d).load(gid)
    check(rec is not None, f"{what}: no record of game {gid} (D1)")
    return rec.status


def _mid_game(play_cmd, d, colour, plies, extra=()):
    """The implementation plays ``colour`` against the kit until ``plies`` plies; then it is killed.
    Returns (kit, game, gid)."""
    kit_colour = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour, extra=extra)
    try:
        kit = _kit_board(other_view(d), kit_colour)
        game = Game(8)
        gid, _ = _kit_handshake(kit, kit_colour, theirs)
        _kit_play(kit, kit_colour, theirs, game, until=plies)
        check(_status(d, gid, "in the middle of the game") == "playing", "the unfinished game's record is not 'playing' (D1)")
    finally:
        _kill(theirs)
    return kit, game, gid


def s_restart_size(cmd, d, play_cmd):
    """H5 H5a D1: another --size on an unfinished game is refused before anything changes; another --name resumes it, ignoring a welcome for another game."""
    kit, game, gid = _mid_game(play_cmd, d, "black", 3)        # ply 3 was the implementation's: saved, then sent
    before = _board_state(d)
    theirs = _theirs(play_cmd, d, "black", extra=["--size", "6"])
    try:
        code = _exit_code(theirs)
        out = theirs.output()
        check(code == 2, f"with an unfinished 8x8 game on the board, a start with --size 6 exited {code}, not 2 (H5)")
        check(gid in out, f"the refusal does not name the unfinished game {gid}: {out.strip()[-300:]!r}")
        check(_board_state(d) == before, "the refused start changed the board (H5: nothing changes)")
        m = kit.receive()
        check(m is None, f"the refused start sent {m and m.body[:80]!r}")
        theirs = _theirs(play_cmd, d, "black", extra=["--name", "Zed"])
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started with another --name")
        check(hello.get("game") == gid and hello.get("moves").lower() == game.transcript(passes=True),
              f"with another --name the implementation offered {hello.get('game')!r} {hello.get('moves')!r}, "
              f"not the unfinished game {gid} (H5)")
        check(hello.get("name") == "Zed", f"its hello says name={hello.get('name')!r}, not the new name Zed")
        older = _prefix(game, len(game.moves))                # H5a: a welcome for another game is ignored
        _kit_ply(older, 1)
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game="conf-older",
                                           moves=older.transcript(passes=True)))
        _quiet_for(kit, 1.0, "after a welcome for another game, with one ply more (H5a: ignored)")
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                           moves=game.transcript(passes=True)))
        _kit_resigns(kit, "black", game, gid)
        code = _exit_code(theirs)
        check(code == 0, f"the resumed game ended by the kit's resignation, but the implementation exited {code}")
        rec = Records(d).load(gid)
        check(rec.status == "resigned" and rec.black == "Zed", f"its record says {rec.status!r}, black {rec.black!r}")
    finally:
        _reap(theirs, timeout=1)


def s_restart_new(cmd, d, play_cmd):
    """H2 H5 D1: --new closes the unfinished game as abandoned and starts another (white asks with new=1); so does a greeting for a new game; a game of an unknown status is not resumed."""
    for colour in ("black", "white"):
        sub = d / f"new-{colour}"
        sub.mkdir()
        kit_colour = "white" if colour == "black" else "black"
        kit, game, gid = _mid_game(play_cmd, sub, colour, 3 if colour == "black" else 2)
        theirs = _theirs(play_cmd, sub, colour, extra=["--new"])
        try:
            hello = _expect_from(kit, "hello", theirs, what=f" from {colour} started with --new")
            if colour == "black":
                new = hello.get("game")
                check(new and new != gid and not hello.get("moves"),
                      f"black with --new offered game {new!r} with moves {hello.get('moves')!r}, not a new game (H5)")
                kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=new, moves=""))
            else:
                check(hello.get("new") == "1" and not hello.get("game"),
                      f"white with --new greeted with {hello.text[:120]!r}: no new=1, or a game (H2)")
                new = f"conf-{uuid.uuid4().hex[:8]}"
                kit.send("white", _kit_hello("black", new))
                _expect_from(kit, "welcome", theirs, what=" to the new game")
            check(_status(sub, gid, "after --new") == "abandoned",
                  f"after --new the unfinished game's record says {_status(sub, gid, '')!r}, not 'abandoned' (D1)")
            _kit_resigns(kit, colour, Game(8), new)
            code = _exit_code(theirs)
            check(code == 0, f"{colour} with --new: the new game ended by the kit's resignation, but it exited {code}")
        finally:
            _reap(theirs, timeout=1)
    # a greeting for a new game during a game closes the old one too (H5)
    sub = d / "switch"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, "white")
    try:
        kit = _kit_board(other_view(sub), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=2)
        kit.close()
        kit = _kit_board(other_view(sub), "black")          # black restarted with --new
        new = f"conf-{uuid.uuid4().hex[:8]}"
        _send_until(kit, "white", _kit_hello("black", new), theirs)
        w = _expect_from(kit, "welcome", theirs, what=" to a new game during a game")
        check(w.get("game") == new and not w.get("moves"), f"the welcome to a new game was {w.text[:120]!r} (H5)")
        check(_status(sub, gid, "after a new game") == "abandoned",
              f"the game left for a new one says {_status(sub, gid, '')!r}, not 'abandoned' (D1)")
        _kit_resigns(kit, "white", Game(8), new)
        check(_exit_code(theirs) == 0, "the new game ended by the kit's resignation, but the implementation did not exit 0")
    finally:
        _reap(theirs, timeout=1)
    # D1: a status this document does not name reads as closed: that game is not offered again
    sub = d / "unknown-status"
    sub.mkdir()
    kit = _kit_board(other_view(sub), "white")
    Records(other_view(sub)).save(Record(id="g-post", size=8, black="impl", white="kit", mode="full", moves="f5",
                                         status="postponed", result=""))
    theirs = _theirs(play_cmd, sub, "black")
    try:
        hello = _expect_from(kit, "hello", theirs, what=" with a game of status 'postponed' on the board")
        check(hello.get("game") != "g-post" and not hello.get("moves"),
              f"with the current game's status 'postponed', black offered {hello.text[:120]!r} (D1: an unknown "
              "status reads as closed: a new game)")
    finally:
        _reap(theirs, timeout=0.5)


def s_record_trust(cmd, d, play_cmd):
    """D4 D5 D6: a record whose end its moves do not give, or (with a secret) one not signed with it, is set aside and none of it offered; with a secret the records written are signed."""
    for name, secret, rec, why in (
            ("forged-end", None, Record(id="g-forged", size=8, black="impl", white="kit", moves="f5d6c3",
                                        status="over", result="64-0"),
             "a record saying 'over' / '64-0' after 3 plies (D5)"),
            ("unsigned", _secret(), Record(id="g-unsigned", size=8, black="impl", white="kit", moves="f5d6c3"),
             "with a secret, a record without a mac line (D4)")):
        sub = d / name
        sub.mkdir()
        key = secret.encode("utf-8") if secret else None
        kit = _kit_board(other_view(sub), "white", secret=key)
        Records(other_view(sub)).save(rec)          # written without the secret
        theirs = _theirs(play_cmd, sub, "black", secret=secret)
        try:
            hello = _expect_from(kit, "hello", theirs, what=f" with {why} on the board")
            check(not hello.get("moves"), f"with {why}, black offered {hello.text[:120]!r}: nothing of such a "
                                          "record may be used (D6: the game goes on from no plies)")
            names = sorted(p.name for p in (sub / "records").iterdir())
            check(len([n for n in names if re.fullmatch(rf"{re.escape(rec.id)}\.set-aside-[0-9a-f]{{16}}", n)]) == 1,
                  f"with {why}, the record was not set aside as records/{rec.id}.set-aside-<token> (D6): "
                  f"records/ holds {names}")
        finally:
            _reap(theirs, timeout=0.5)
    # D4: what an implementation with a secret writes is signed
    secret = _secret()
    key = secret.encode("utf-8")
    sub = d / "signed"
    sub.mkdir()
    theirs = _theirs(play_cmd, sub, "white", secret=secret)
    try:
        kit = _kit_board(other_view(sub), "black", secret=key)
        gid, _ = _kit_handshake(kit, "black", theirs)
        deadline = time.monotonic() + 10
        text = None
        while time.monotonic() < deadline and not text:
            try:
                text = (sub / "records" / f"{gid}.game").read_text(encoding="utf-8")
            except OSError:
                time.sleep(0.1)
        check(text is not None, f"no records/{gid}.game after the handshake (D2)")
        try:
            Record.parse(text).check_mac(key)
        except ValueError as e:
            check(False, f"with a secret, the record written is not signed as D4 says: {e}")
    finally:
        _reap(theirs, timeout=0.5)


def s_refused_record(cmd, d, play_cmd):
    """H4 D1: a game refused over its size is recorded as refused and never offered again."""
    theirs = _theirs(play_cmd, d, "black", extra=["--size", "6"])
    try:
        kit = _kit_board(other_view(d), "white")
        _send_until(kit, "black", protocol.control("hello", v=1, role="white", name="kit", size=8), theirs)
        _expect(kit, "refuse")
        code = _exit_code(theirs)
        check(code != 0, "a refused game must not exit 0")
        rec = Records(d).current()
        check(rec is not None and rec.size == 6, "no record of the refused 6x6 game (D1)")
        check(rec.status == "refused", f"the game refused over its size is recorded {rec.status!r}, not 'refused' (D1)")
        theirs = _theirs(play_cmd, d, "black")
        hello = _expect_from(kit, "hello", theirs, what=" from the implementation started again")
        check(hello.get("game") != rec.id, f"the refused game {rec.id} was offered again (D1: never resumed)")
    finally:
        _reap(theirs, timeout=1)


def _remove_folder(folder):
    """Delete ``folder`` although the implementation may be writing in it meanwhile."""
    import shutil
    deadline = time.monotonic() + 30
    while folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
        check(time.monotonic() < deadline, f"{folder} could not be deleted")


def s_board_gone(cmd, d, play_cmd):
    """T1 G7: the board moved away and back mid-game: the game goes on; deleted: the implementation leaves within its patience, never making the folder again."""
    board = d / "board"
    theirs = _theirs(play_cmd, board, "white", extra=["--patience", "60"])
    try:
        kit = _kit_board(other_view(board), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=5)      # ply 5 sent: the implementation's turn
        aside = d / "aside"
        try:
            board.rename(aside)
        except OSError as e:             # SMB refuses (EACCES, EBUSY) to rename a folder a client holds open
            if not isinstance(e, PermissionError) and e.errno != errno.EBUSY:
                raise
            raise Skip(f"this share will not move a board folder in use: {e.strerror}") from None
        time.sleep(3)
        check(not board.exists(), "the board folder was made again while it was away (T1)")
        check(theirs.poll() is None, f"the implementation exited {theirs.returncode} while the board was away "
                                     "for 3 s (its patience: 60 s)")
        aside.rename(board)
        _kit_play(kit, "black", theirs, game)
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs, timeout=60)
        check(code == 0, f"after the board came back and the game ended, the implementation exited {code}")
        check(_status(board, gid, "after the board came back") == "over", "its record of the game is not over (D1)")
    finally:
        _reap(theirs, timeout=1)
    board = d / "deleted"
    theirs = _theirs(play_cmd, board, "white", extra=["--patience", "3"])
    try:
        kit = _kit_board(other_view(board), "black")
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, Game(8), until=4)
        _remove_folder(board)
        code = _exit_code(theirs, timeout=60)
        out = theirs.output()
        check(code == 5, f"the board was deleted mid-game and stayed away; the implementation exited {code}, "
                         f"not 5 (G7): {out.strip()[-300:]!r}")
        check(not _traceback(out), f"the implementation showed a traceback when the board went away (G7): "
                                   f"{out.strip()[-300:]!r}")
        check(not board.exists(), "the deleted board folder was made again (T1)")
    finally:
        _reap(theirs, timeout=1)


def s_take_over(cmd, d, play_cmd):
    """I6 P1 G7: a second run of a colour in play is refused (exit 2, nothing changed); --take-over replaces it, and the replaced run sends nothing more."""
    first = _theirs(play_cmd, d, "black")
    second = third = None
    try:
        kit = _kit_board(other_view(d), "white")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "white", first)
        _kit_play(kit, "white", first, game, until=3)        # the implementation's ply 3 received: the kit's turn
        old_run = _run_of(d / "box" / "black")
        member = (d / "box" / "black" / "member").read_bytes()
        second = _theirs(play_cmd, d, "black")
        code = _exit_code(second, timeout=60)
        check(code == 2, f"a second black while the first plays exited {code}, not 2 (I6)")
        check((d / "box" / "black" / "member").read_bytes() == member, "the refused second black changed black's member record")
        m = kit.receive()
        check(m is None, f"the refused second black sent {m and m.body[:80]!r}")
        third = _theirs(play_cmd, d, "black", extra=["--take-over"])
        deadline = time.monotonic() + 30
        hello = None
        while hello is None:
            check(time.monotonic() < deadline, "no hello from the black started with --take-over within 30 s")
            m = kit.wait(timeout=0.5)
            if m is not None and protocol.parse(m.body).kind == "hello" and m.sender_run != old_run:
                hello = protocol.parse(m.body)
        check(hello.get("game") == gid, f"the black that took over offered {hello.get('game')!r}, not the game {gid} (H5)")
        code = _exit_code(first, timeout=30)
        out = first.output()
        check(code == 6, f"the replaced black exited {code}, not 6 (I6): {out.strip()[-300:]!r}")
        check(not _traceback(out), f"the replaced black showed a traceback: {out.strip()[-300:]!r}")
        kit.send("black", protocol.control("welcome", v=1, role="white", name="kit", game=gid,
                                           moves=game.transcript(passes=True)))
        _kit_resigns(kit, "black", game, gid)
        check(_exit_code(third) == 0, "the black that took over did not exit 0 after the kit resigned")
        for m in iter(lambda: kit.receive(), None):
            check(m.sender_run != old_run, f"the replaced run still sent {m.body[:80]!r} (I6)")
    finally:
        for p in (first, second, third):
            if p is not None:
                _reap(p, timeout=1)


def _prefix(game, n):
    """The first ``n`` plies of ``game`` as a new ``Game``."""
    g = Game(8)
    for m in game.moves[:n]:
        g.play(m)
    return g


def _kit_ply(game, me):
    """The kit's next ply in ``game`` (it must be the kit's turn), played on ``game`` and not sent."""
    pos = game.position
    check(pos.turn == me, "the kit's own bookkeeping: not its turn")
    game.play(PASS if pos.must_pass() else pos.legal_moves()[0])


def s_gone(cmd, d, play_cmd):
    """P2 G5 G7: an opponent that beats is never judged gone however long it thinks; one that stops beating is, and the implementation leaves (exit 4) after its patience."""
    theirs = _theirs(play_cmd, d, "white", extra=["--patience", "1"])
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=2)       # the kit's turn
        kit.beat("thinking")
        time.sleep(7.5)             # beating, silent: longer than 6 s (P2) plus the patience (1 s)
        check(theirs.poll() is None, f"the implementation exited {theirs.returncode} while the kit thought for 7.5 s "
                                     "with its heartbeat going on (P2: only a still heartbeat means gone)")
        _kit_play(kit, "black", theirs, game, until=4)       # it still plays
        kit.stop_heartbeat()         # the kit's program hangs: its alive record stays, unchanged
        stopped = time.monotonic()
        try:
            code = theirs.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise Fail("the kit's heartbeat stopped, yet the implementation (--patience 1) was still there "
                       "after 15 s (P2: unchanged for 6 s is gone; G7: it leaves after its patience)") from None
        took = time.monotonic() - stopped
        check(took >= 4.5, f"the implementation left {took:.1f} s after the kit's last beat (P2: gone after 6 s)")
        check(code == 4, f"the opponent stayed away, the implementation exited {code}, not 4 (G7)")
        check(_status(d, _kit_record_id(d), "after it left") == "playing",
              "the game left because the opponent was gone is not 'playing' in its record (G5: unfinished)")
    finally:
        _reap(theirs, timeout=1)


def _kit_record_id(d):
    cur = d / "records" / "current"
    check(cur.exists(), "no records/current (D1)")
    return cur.read_text("utf-8", "replace").strip()


def s_result(cmd, d, play_cmd):
    """G4 G6 D3: a result before the end or for another game is ignored; one whose counts differ from its board still acknowledges the end, and its record keeps its own count."""
    theirs = _theirs(play_cmd, d, "white")
    try:
        kit = _kit_board(other_view(d), "black")
        game = Game(8)
        gid, _ = _kit_handshake(kit, "black", theirs)
        _kit_play(kit, "black", theirs, game, until=4)
        kit.send("white", protocol.control("result", black=2, white=2, game=gid))      # before the end: ignored
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        ack = d / "records" / f"{gid}.ack-white"
        for what, msg in (("a result before the end", None),
                          ("a result for another game", protocol.control("result", black=2, white=2, game="conf-other"))):
            if msg is not None:
                kit.send("white", msg)
            time.sleep(1.5)
            check(theirs.poll() is None, f"after {what} the implementation exited {theirs.returncode} "
                                         "as if the end were acknowledged (G6: ignored)")
            check(not ack.exists(), f"after {what}, records/{gid}.ack-white was written (G6: ignored)")
        b, w = game.position.discs()
        kit.send("white", protocol.control("result", black=b + 1, white=w - 1, game=gid))
        deadline = time.monotonic() + 10
        while not Records(d).acknowledged(gid, "white") and time.monotonic() < deadline:
            time.sleep(0.1)
        check(Records(d).acknowledged(gid, "white"),
              f"a result for the ended game (counts {b + 1}-{w - 1}, its board {b}-{w}) was not taken as the "
              f"acknowledgement: no records/{gid}.ack-white within 10 s (G6)")
        code = _exit_code(theirs)
        check(code == 0, f"after a result for the game whose counts differ it exited {code}, not 0")
        _check_own_record(d, gid, game, "white", "after the end", ended=True)
    finally:
        _reap(theirs, timeout=1)


def s_resume(cmd, d, play_cmd):
    """H5 H8 D1: killed as white mid-game, the implementation offers the game again; when the kit restarts with a shorter or longer transcript, both go on from the longer."""
    kit, game, gid = _mid_game(play_cmd, d, "white", 4)     # its ply 4 sent: the kit's turn
    theirs = _theirs(play_cmd, d, "white")
    try:
        want = game.transcript(passes=True).lower()
        hello = _expect_from(kit, "hello", theirs, what=" from the restarted white")
        check(hello.get("role") == "white" and hello.get("game") == gid and hello.get("moves").lower() == want,
              f"the restarted white greeted with {hello.text[:160]!r}, not game {gid} with moves {want} (H2 H5)")
        kit.send("white", _kit_hello("black", gid, want))
        w = _expect_from(kit, "welcome", theirs, what=" to the kit's hello after its restart")
        check(w.get("game") == gid, f"welcome for game {w.get('game')!r}, not {gid} (H5)")
        _kit_play(kit, "black", theirs, game, until=8)       # its ply 8 received: the kit's turn
        for shorter in (True, False):
            # the kit restarts: a new run, which lost the last ply it received or never sent its own
            if shorter:
                offer = _prefix(game, len(game.moves) - 1)
            else:
                _kit_ply(game, 0)
                offer = game
            kit.close()
            kit = _kit_board(other_view(d), "black")
            kit.quiet()
            _send_until(kit, "white", _kit_hello("black", gid, offer.transcript(passes=True)), theirs)
            w = _expect_from(kit, "welcome", theirs, what=" to the restarted kit's hello")
            # its own plies (H3), or the longer transcript it now goes on from
            longer = game.transcript(passes=True).lower()
            mine = longer if shorter else _prefix(game, len(game.moves) - 1).transcript(passes=True).lower()
            got = (w.get("moves") or "").lower()
            check(w.get("game") == gid and longer.startswith(got) and len(got) >= len(mine),
                  f"the welcome to a restarted black offering {len(offer.moves)} plies was {w.text[:160]!r}, "
                  f"not game {gid} with its own moves {mine} (H3 H5)")
            if not shorter:
                n = len(game.moves) + 1
                reply = _expect_from(kit, "move", theirs, what=" after the kit offered one ply more")
                check(reply.get("n") == n, f"after the kit offered one ply more the reply was {reply.text!r}, "
                                           f"not move {n} (H5: both go on from the longer)")
                sq = PASS if reply.get("square") == "pass" else notation.parse_square(reply.get("square"), 8)
                check(sq == PASS and game.position.must_pass() or sq != PASS and game.position.is_legal(sq),
                      f"after the kit offered one ply more the reply {reply.text!r} is illegal: "
                      "the extra ply was not applied (H5)")
                game.play(sq)
            else:
                _kit_play(kit, "black", theirs, game, until=len(game.moves) + 2)
        _kit_play(kit, "black", theirs, game)
        _check_result(_expect_from(kit, "result", theirs, what=" at the end"), game, "at the end")
        kit.send("white", _result_of(game, gid))
        code = _exit_code(theirs)
        check(code == 0, f"the resumed game ended, but the implementation exited {code}")
        _check_own_record(d, gid, game, "white", "after the resumed game", ended=True)
    finally:
        _reap(theirs, timeout=1)


class _Filler:
    """Keeps a small disk full: a file grown whenever space is freed, until ``end``."""

    def __init__(self, disk):
        self.path = disk / "filler"
        self.stop = threading.Event()
        self.f = open(self.path, "ab", buffering=0)
        self._fill()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _fill(self):
        try:
            while True:
                self.f.write(b"x" * 4096)
        except OSError:
            pass

    def _loop(self):
        while not self.stop.wait(0.02):
            self._fill()

    def end(self):
        self.stop.set()
        self.thread.join()
        self.f.close()
        self.path.unlink()


def s_full_disk(cmd, d, play_cmd):
    """T2 T3 G7: a full disk mid-game is waited out and the game goes on; one that stays full is left within the patience."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or VIEW.get("b"):
        raise Skip("a small disk (tmpfs) can only be mounted by root on Linux, on one view of the board")
    disk = d / "disk"
    disk.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True, text=True)
    if r.returncode:
        raise Skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        for patience, stays in (("60", False), ("3", True)):
            board = disk / f"board-{patience}"
            theirs = _theirs(play_cmd, board, "white", extra=["--patience", patience])
            filler = None
            try:
                kit = _kit_board(board, "black")
                game = Game(8)
                gid, _ = _kit_handshake(kit, "black", theirs)
                _kit_play(kit, "black", theirs, game, until=5)      # the implementation's turn
                filler = _Filler(disk)
                if stays:
                    code = _exit_code(theirs, timeout=90)
                    check(code not in (0, None), "the disk stayed full, yet the implementation exited 0")
                    continue
                time.sleep(8)
                check(theirs.poll() is None, f"the implementation exited {theirs.returncode} on a full disk (patience 60 s)")
                filler.end()
                filler = None
                _kit_play(kit, "black", theirs, game)
                kit.send("white", _result_of(game, gid))
                code = _exit_code(theirs, timeout=60)
                check(code == 0, f"after space was freed and the game ended, the implementation exited {code}")
            finally:
                if filler is not None:
                    filler.end()
                _reap(theirs, timeout=1)
                shutil_rm = __import__("shutil").rmtree
                shutil_rm(board, ignore_errors=True)
    finally:
        subprocess.run(["umount", "-l", str(disk)])


BOARD_SCENARIOS = [s_init, s_send, s_recv, s_redeliver, s_talk, s_quiet, s_members, s_lock_held, s_stale, s_stale_short, s_garbage,
                   s_cleanup, s_names, s_device_names, s_mac, s_links, s_fifo, s_pointers]
GAME_SCENARIOS = [s_record_trust, s_game_black, s_game_white, s_refused_move, s_version, s_control_lines, s_passes, s_runs, s_game_secret, s_end_reoffer,
                  s_end_restart, s_classic_white, s_classic_black, s_restart_size, s_restart_new, s_refused_record,
                  s_board_gone, s_take_over, s_full_disk, s_gone, s_result, s_resume]


def run(cmd, play_cmd=None, base=None, only=None, stream=sys.stdout, base_b=None):
    """Run the scenarios; boards under ``base`` (default: a temporary folder).

    ``base_b``: the same folder seen through a second mount; the kit and our
    players then work through it while the implementation uses ``base``.
    Every program a scenario started is stopped when it ends (Ctrl+C too: then the
    results so far are summed up and ``KeyboardInterrupt`` goes on).
    """
    play_cmd = play_cmd or f"{cmd} play"
    results = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(base) if base else Path(tmp)
            VIEW.clear()
            VIEW.update(a=root, b=Path(base_b) if base_b else None)
            for i, fn in enumerate(BOARD_SCENARIOS + GAME_SCENARIOS, 1):
                name = fn.__name__[2:]
                if only and name not in only:
                    continue
                d = root / f"{i:02d}-{name}-{os.getpid()}"
                d.mkdir(parents=True)
                t = time.monotonic()
                try:
                    if fn in GAME_SCENARIOS:
                        fn(cmd, d, play_cmd)
                    else:
                        fn(cmd, d)
                    ok, why = True, ""
                except Skip as e:
                    ok, why = True, f"skipped: {e}"
                except Fail as e:
                    ok, why = False, str(e)
                except Exception as e:  # a crash in the implementation's answers is a failure too
                    ok, why = False, f"{type(e).__name__}: {e}"
                finally:
                    _stop_all()
                doc = (fn.__doc__ or "").strip()
                clauses, _, title = doc.partition(": ")
                word = "SKIP" if why.startswith("skipped:") else "PASS" if ok else "FAIL"
                stream.write(f"{word}  {name:15s} {clauses:22s} {title} ({time.monotonic() - t:.1f} s)\n")
                if why:
                    stream.write(f"      {why}\n")
                stream.flush()
                results.append((name, clauses, ok, why))
    except KeyboardInterrupt:
        _stop_all()
        _summary(results, stream, " (interrupted)")
        raise
    _summary(results, stream)
    return results


def _summary(results, stream, note=""):
    skipped = sum(why.startswith("skipped:") for _, _, _, why in results)
    passed = sum(ok for _, _, ok, _ in results) - skipped
    stream.write(f"{passed} passed, {len(results) - passed - skipped} failed, {skipped} skipped "
                 f"(a skipped clause is not checked here){note}\n")
    stream.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m peer.conformance", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, metavar="CMD", help="the implementation's command")
    ap.add_argument("--player", metavar="CMD",
                    help="the command that plays a game (default: the --peer command followed by 'play')")
    ap.add_argument("--board", metavar="DIR", help="make the boards under DIR (e.g. on a network share)")
    ap.add_argument("--board-b", metavar="DIR",
                    help="DIR as a second mount shows it: the kit and our players use this view")
    ap.add_argument("--only", nargs="+", metavar="SCENARIO", help="run only these scenarios (the names the "
                    "kit prints, e.g. init game_black)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the kit's own retries are expected, not news
    if args.board_b and not args.board:
        ap.error("--board-b goes with --board")
    names = [fn.__name__[2:] for fn in BOARD_SCENARIOS + GAME_SCENARIOS]
    unknown = [n for n in args.only or () if n not in names]
    if unknown:
        ap.error(f"no scenario {', '.join(map(repr, unknown))}; the scenarios: {' '.join(names)}")
    for folder in (args.board, args.board_b):
        if folder is None:
            continue
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            probe = Path(tempfile.mkdtemp(prefix="kit-probe-", dir=folder))
            probe.rmdir()
        except OSError as e:
            print(f"python -m peer.conformance: cannot make boards under {folder}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
    stopped = {}

    def on_term(signum, frame):     # stopped from outside: as Ctrl+C (programs stopped, summed up)
        stopped["code"] = 128 + signum
        raise KeyboardInterrupt
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, on_term)
    try:
        results = run(args.peer, args.player, args.board, args.only, base_b=args.board_b)
    except KeyboardInterrupt:
        return stopped.get("code", 130)
    return 0 if results and all(ok for _, _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
