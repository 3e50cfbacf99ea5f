"""Trouble on the board: a lock left behind met by a fresh process, a holder
stopped with SIGSTOP, the board folder going away, a full disk."""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from comm import Board, LockTimeout, fsops
from comm.lease import FRESH_MARGIN, MACHINE

from commtools import expect_line, spawn

L = 1.0
ROOT = Path(__file__).resolve().parents[1]
posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX signals and FIFOs")

OWNER = (b"cardstand-lock 1\ntoken: feedfacefeedface\nname: far\nhost: elsewhere\n"
         b"machine: elsewhere/other-boot\npid: 4242\n")


def leave_lock(folder, form):
    """A lock left behind by a holder on another computer, its records in ``form``."""
    lock = folder / "lock"
    if form == "lock is a file":
        lock.write_bytes(OWNER)
        return
    lock.mkdir()
    owner, beat = lock / "owner", lock / "beat"
    if form == "record":
        owner.write_bytes(OWNER)
        beat.write_bytes(b"7\n")
    elif form == "owner is a folder":
        owner.mkdir()
        (owner / "inside").write_bytes(b"x")
    elif form == "owner is a FIFO":
        os.mkfifo(owner)
    elif form == "beat is a folder":
        owner.write_bytes(OWNER)
        beat.mkdir()
    elif form == "garbage":
        owner.write_bytes(bytes(range(256)) * 40)
        beat.write_bytes(b"\xff\xfe" * 100)
    elif form == "absurd values":   # our own machine, a pid no machine has, an endless beat
        owner.write_bytes(f"cardstand-lock 1\ntoken: {'z' * 300}\nname: {'n' * 500}\nhost: h\n"
                          f"machine: {MACHINE}\npid: 99999999999999999999\n".encode())
        beat.write_bytes(b"9" * 5000)
    elif form != "no owner record":
        raise ValueError(form)


FORMS = ["record", "no owner record", "owner is a folder", "owner is a FIFO", "beat is a folder",
         "garbage", "absurd values", "lock is a file"]


@posix_only
@pytest.mark.parametrize("form", FORMS)
def test_a_fresh_process_breaks_a_lock_left_behind(tmp_path, monkeypatch, form):
    """Its first wait lasts until the lock can be judged (L + margin), even with a timeout
    shorter than L, whatever the owner record looks like (L3, L4)."""
    board = tmp_path / "board"
    Board(board, "first").join().close()
    leave_lock(board, form)
    monkeypatch.setenv("COMM_LOCK_TIMEOUT", str(L / 2))
    t = time.monotonic()
    p = spawn("do", board, "fresh", "send:first:hi", stale=L)
    try:
        expect_line(p, "joined", timeout=L + FRESH_MARGIN + 20)
        expect_line(p, "sent first", timeout=20)
    finally:
        p.kill()
        p.wait()
    if form != "no owner record":   # an empty lock folder is simply replaced (L5a)
        assert time.monotonic() - t >= L * 0.9
    assert Board(board, "first").join().receive().body == "hi"


class Beating:
    """A live holder on another computer: it keeps beating."""

    def __init__(self, folder):
        self.lock = folder / "lock"
        self.lock.mkdir()
        (self.lock / "owner").write_bytes(OWNER)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat)
        self.thread.start()

    def _beat(self):
        n = 0
        while not self.stop.wait(L / 5):
            n += 1
            fsops.replace_with(self.lock.parent / "tmp", self.lock / "beat", b"%d\n" % n)

    def end(self):
        self.stop.set()
        self.thread.join()
        shutil.rmtree(self.lock)


def test_a_lock_timeout_names_the_holder(tmp_path):
    board = Board(tmp_path / "board", "me", stale_after=L, lock_timeout=0.3).join()
    holder = Beating(board.folder)
    try:
        assert not board.send("me", "x")
        assert board.problem == "locked"
        err = board.last_error
        assert "far (pid 4242 on elsewhere, machine elsewhere/other-boot)" in err, err
        assert "unchanged for" in err and "not obtained within" in err, err
        with pytest.raises(LockTimeout, match="held by far"):
            with board.lease.hold(0.2):
                pass
    finally:
        holder.end()
    assert board.send("me", "x") and board.problem == "" and board.last_error == ""


@posix_only
def test_a_stopped_holder_does_not_freeze_the_others_of_its_machine(tmp_path, monkeypatch):
    """SIGSTOP a process inside the lock: another one on this machine gets the lock after
    about L (the host-local queue is waited for L/2 at most, L7); when the stopped one goes
    on, it sees it lost the lock (L2), sends nothing then, and the board is intact."""
    board = tmp_path / "board"
    monkeypatch.setenv("COMM_LOCK_TIMEOUT", "30")
    stalled = spawn("stall", board, "stalled", "other", 1.0, stale=L)
    other = None
    try:
        expect_line(stalled, "inside", timeout=30)
        os.kill(stalled.pid, signal.SIGSTOP)
        t = time.monotonic()
        other = spawn("do", board, "other", "send:stalled:hi", "recv:30", stale=L)
        expect_line(other, "joined", timeout=L + FRESH_MARGIN + 20)
        expect_line(other, "sent stalled", timeout=20)
        took = time.monotonic() - t
        os.kill(stalled.pid, signal.SIGCONT)
        line = stalled.stdout.readline().strip()
        assert line.startswith("failed locked: lost the board lock"), line
        expect_line(stalled, "sent again", timeout=30)
        expect_line(other, "got after", timeout=30)
        assert stalled.wait(timeout=30) == 0
        assert "taken from us" in stalled.stderr.read()
        assert other.wait(timeout=30) == 0
    finally:
        for p in (stalled, other):
            if p is not None and p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.kill()
                p.wait()
    assert took >= L * 0.9
    me = Board(board, "stalled").join()
    assert [m.body for m in iter(me.receive, None)] == ["hi"]
    assert not list((board / "box" / "other").glob("*.msg"))


# -- the board folder goes away ------------------------------------------------------------------
def everything_fails_as_gone(board, folder):
    assert not board.send("b", "x") and board.problem == "gone", board.last_error
    assert "gone or unreachable" in board.last_error and str(folder) in board.last_error
    assert board.talk("b", "x").result == 0 and board.problem == "gone"
    assert board.receive() is None and board.problem == "gone"
    t = time.monotonic()
    assert board.wait(timeout=60) is None and board.problem == "gone"
    assert time.monotonic() - t < 30, "wait polled on"
    board.problem = ""
    board.beat("here")
    assert board.problem == "gone"
    board.problem = ""
    assert board.alive("b") is None and board.problem == "gone"
    board.problem = ""
    assert board.member_run("b") is None and board.problem == "gone"
    board.problem = ""
    assert board.members() == [] and board.problem == "gone"


@pytest.mark.parametrize("how", ["deleted", "moved away", "emptied (a share no longer mounted)"])
def test_a_board_that_goes_away_is_reported_and_never_made_again(tmp_path, how):
    folder = tmp_path / "board"
    a = Board(folder, "a", stale_after=L, lock_timeout=2).join()
    b = Board(folder, "b", stale_after=L, lock_timeout=2).join()
    assert a.send("b", "before")
    aside = tmp_path / "aside"
    if how == "deleted":
        shutil.rmtree(folder)
    else:
        folder.rename(aside)
        if how.startswith("emptied"):
            folder.mkdir()       # the mount point, left empty
    everything_fails_as_gone(a, folder)
    everything_fails_as_gone(b, folder)
    if how == "deleted":
        assert not folder.exists(), "comm made the board folder again"
        return
    if how.startswith("emptied"):
        assert list(folder.iterdir()) == [], "comm wrote into an empty mount point"
        folder.rmdir()
    aside.rename(folder)         # it comes back: everything works again
    assert b.receive().body == "before" and b.problem == ""
    assert a.send("b", "after") and a.problem == ""
    assert b.wait(timeout=10).body == "after"


@pytest.mark.parametrize("argv", [["status"], ["status", "--board"]])
def test_status_of_a_missing_board_says_so(tmp_path, argv):
    missing = tmp_path / "nowhere"
    r = subprocess.run([sys.executable, "-m", "comm", *argv, *([str(missing)] if argv[-1] == "--board" else [])],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "no board" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not missing.exists()


# -- a full disk -------------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs (needs root on Linux; skipped elsewhere, saying why)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root on Linux")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def fill(disk):
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 4096)
        except OSError:
            pass
    return filler


def test_a_full_disk(small_disk):
    folder = small_disk / "board"
    a = Board(folder, "a", stale_after=L, lock_timeout=2).join()
    b = Board(folder, "b", stale_after=L, lock_timeout=2).join()
    for i in range(3):
        assert a.send("b", f"m{i}")
    assert b.receive().body == "m0"
    filler = fill(small_disk)
    # sending: a clear message, and nothing left behind
    for _ in range(3):
        assert not a.send("b", "no room") and a.problem == "full"
    assert f"no space left on the board's disk ({folder})" in a.last_error
    a.problem = ""
    a.beat("x")
    assert a.problem == "full"
    # receiving needs no space
    assert [m.body for m in iter(b.receive, None)] == ["m1", "m2"]
    assert b.problem == ""
    assert b.wait(timeout=0.2) is None and b.problem == ""
    # the last one received is consumed by the next call all the same (M5): its file goes
    assert b.quiet() == 0 and b.problem == ""
    assert not [p.name for p in b.mine.iterdir() if p.name.endswith(".msg")]
    assert b.receive() is None
    left = sorted(p.name for p in (folder / "tmp").iterdir())
    assert len(left) <= 2 and all(n.startswith("lock-") for n in left), f"scratch leaked: {left}"
    # space again: everything works
    filler.unlink()
    assert a.send("b", "room again") and a.problem == ""
    assert b.receive().body == "room again"
    assert a.receive() is None and a.problem == ""


# -- the same in interop/js ---------------------------------------------------------------------
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
JS = str(ROOT / "interop" / "js" / "cardstand.js")


def node(script, *args, timeout=120):
    """Run ``script`` with ``cs`` (cardstand.js) and ``args`` (strings); its printed JSON."""
    import json
    r = subprocess.run(["node", "-e", f"const cs = require({json.dumps(JS)}); const args = process.argv.slice(1);\n"
                        f"const out = (x) => console.log(JSON.stringify(x));\n{script}", *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@needs_node
@posix_only
@pytest.mark.parametrize("form", ["record", "owner is a folder", "garbage", "lock is a file"])
def test_javascript_fresh_process_breaks_a_lock_left_behind(tmp_path, form):
    board = tmp_path / "board"
    Board(board, "first").join().close()
    leave_lock(board, form)
    got = node("const b = new cs.Board(args[0], 'fresh', { staleAfter: 1, lockTimeout: 0.5, log: () => {} });"
               "b.join(); out({ sent: b.send('first', 'hi'), error: b.lastError });", board)
    assert got == {"sent": True, "error": ""}
    assert Board(board, "first").join().receive().body == "hi"


@needs_node
def test_javascript_lock_timeout_names_the_holder(tmp_path):
    board = Board(tmp_path / "board", "me", stale_after=L).join()
    holder = Beating(board.folder)
    try:
        got = node("const b = new cs.Board(args[0], 'js', { staleAfter: 1, lockTimeout: 0.3, log: () => {} });"
                   "let joined = true; try { b.join(); } catch (e) { joined = e.message; }"
                   "out({ joined, sent: b.run ? b.send('me', 'x') : null, error: b.lastError, problem: b.problem });",
                   board.folder)
    finally:
        holder.end()
    assert "far (pid 4242 on elsewhere, machine elsewhere/other-boot)" in str(got["joined"]), got
    assert "unchanged for" in got["joined"], got


@needs_node
@pytest.mark.parametrize("how", ["deleted", "emptied (a share no longer mounted)"])
def test_javascript_board_that_goes_away(tmp_path, how):
    folder = tmp_path / "board"
    Board(folder, "b").join().close()
    got = node("""
const b = new cs.Board(args[0], 'a', { staleAfter: 1, lockTimeout: 2, log: () => {} });
b.join();
require('fs').rmSync(args[0], { recursive: true });
if (args[1] === 'emptied') require('fs').mkdirSync(args[0]);
const r = {};
r.send = [b.send('b', 'x'), b.problem, b.lastError];
r.talk = [b.talk('b', 'x')[0], b.problem];
r.receive = [b.receive(), b.problem];
const t = cs.now(); r.wait = [b.wait(60), b.problem, cs.now() - t < 30];
b.problem = ''; b.beat('x'); r.beat = b.problem;
b.problem = ''; r.member = [b.memberRun('b'), b.problem];
r.left = require('fs').existsSync(args[0]) ? require('fs').readdirSync(args[0]) : null;
out(r);""", folder, how.split()[0])
    assert got["send"][:2] == [False, "gone"] and "gone or unreachable" in got["send"][2], got
    assert got["talk"] == [0, "gone"] and got["receive"] == [None, "gone"] and got["wait"] == [None, "gone", True]
    assert got["beat"] == "gone" and got["member"] == [None, "gone"]
    assert got["left"] == (None if how == "deleted" else []), "the JS board wrote into a gone board"


@needs_node
def test_javascript_full_disk(small_disk):
    folder = small_disk / "board"
    got = node("""
const fs = require('fs');
const a = new cs.Board(args[0], 'a', { staleAfter: 1, lockTimeout: 2, log: () => {} }).join();
const b = new cs.Board(args[0], 'b', { staleAfter: 1, lockTimeout: 2, log: () => {} }).join();
for (let i = 0; i < 3; i++) a.send('b', 'm' + i);
b.receive();
const fd = fs.openSync(args[1], 'w');
try { for (;;) fs.writeSync(fd, Buffer.alloc(4096)); } catch (e) { fs.closeSync(fd); }
const r = {};
r.send = [a.send('b', 'no room'), a.problem, a.lastError];
a.send('b', 'no room'); a.send('b', 'no room');
r.got = [b.receive(), b.receive()].map((m) => m && m.body);
r.receiveProblem = b.problem;
r.quiet = b.quiet();                                          // consumes the last one received (M5)
r.left = fs.readdirSync(b.mine).filter((n) => n.endsWith('.msg'));
r.tmp = fs.readdirSync(args[0] + '/tmp');
fs.unlinkSync(args[1]);
r.after = [a.send('b', 'room again'), (b.receive() || {}).body];
out(r);""", folder, small_disk / "filler")
    assert got["send"][:2] == [False, "full"] and "no space left on the board's disk" in got["send"][2], got
    assert got["got"] == ["m1", "m2"] and got["receiveProblem"] == "", got
    assert got["quiet"] == 0 and got["left"] == [], got
    assert len(got["tmp"]) <= 2 and all(n.startswith("lock-") for n in got["tmp"]), got["tmp"]
    assert got["after"] == [True, "room again"], got
