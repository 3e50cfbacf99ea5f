"""I6: one live run per member name; a dead run is taken over silently, a live one only on request."""
import shutil
import subprocess
import sys
import threading
import time

import pytest

import comm
from comm import Board, MemberBusy, fsops
from comm.board import member_mac
from conformance import Served

from peertools import ROOT

STALE = 1.0


def join_in_child(board, name, *extra):
    """Join ``board`` as ``name`` in another process; (exit code, last line of stderr, stdout)."""
    code = ("import sys, comm\n"
            f"b = comm.Board({str(board)!r}, {name!r}, stale_after={STALE}, take_over={'take' in extra})\n"
            "try:\n    b.join()\nexcept comm.MemberBusy as e:\n"
            "    print(e, file=sys.stderr); print(e.pid, e.host, e.seen, e.how); sys.exit(5)\n"
            "print('joined', b.run)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1], r.stdout.strip()


def member_run(board, name):
    text = (board / "box" / name / "member").read_text()
    return next(line[5:].strip() for line in text.splitlines() if line.startswith("run: "))


def test_a_live_member_is_refused_naming_it_and_nothing_changes(tmp_path):
    me = Board(tmp_path, "black", stale_after=STALE).join()
    try:
        before = (tmp_path / "box" / "black" / "member").read_bytes()
        code, err, out = join_in_child(tmp_path, "BLACK")          # names compare without case (N2)
        assert code == 5, (err, out)
        assert "already on this board" in err and "take_over" in err and "its process runs" in err
        import os
        assert out.split()[:2] == [str(os.getpid()), fsops.HOST[:64]]
        assert (tmp_path / "box" / "black" / "member").read_bytes() == before
        assert me.send("black", "still mine") and me.receive().body == "still mine"
    finally:
        me.close()


def test_take_over_replaces_the_live_run_which_then_takes_nothing(tmp_path):
    old = Board(tmp_path, "white", stale_after=STALE).join()
    sender = Board(tmp_path, "black", stale_after=STALE).join()
    try:
        code, err, out = join_in_child(tmp_path, "white", "take")
        assert code == 0 and out.startswith("joined"), err
        new_run = out.split()[1]
        assert member_run(tmp_path, "white") == new_run
        assert sender.send("white", "for the new run")
        assert old.receive() is None and old.problem == "replaced"
        assert "taken this name" in old.last_error
        assert old.wait(timeout=5) is None and old.problem == "replaced"
        assert old.quiet() == 0 and old.problem == "replaced"
        assert not old.send("black", "from the old run") and old.problem == "replaced"
        assert sender.receive() is None
        # the message is still there for the new run
        assert (tmp_path / "box" / "white" / "000000000001.msg").exists()
    finally:
        old.close()
        sender.close()


def test_the_replaced_run_notices_while_idle_and_stops_beating(tmp_path):
    old = Board(tmp_path, "white", stale_after=STALE).join()
    try:
        new = Board(tmp_path, "white", stale_after=STALE, take_over=True).join()
        start = time.monotonic()
        assert old.wait(timeout=10) is None and old.problem == "replaced"
        assert time.monotonic() - start < 5
        beat = old.alive("white")
        assert beat["run"] == new.run
        new.close()
    finally:
        old.close()


def test_a_killed_member_is_taken_over_silently(tmp_path):
    child = subprocess.Popen([sys.executable, "-c",
                              "import comm, sys, time; comm.Init('black', sys.argv[1]); print('in', flush=True); "
                              "time.sleep(60)", str(tmp_path)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout.readline().strip() == "in"
        with pytest.raises(MemberBusy):
            Board(tmp_path, "black", stale_after=STALE).join()
    finally:
        child.kill()
        child.wait()
    start = time.monotonic()
    me = Board(tmp_path, "black", stale_after=STALE).join()      # its pid is gone on this machine
    assert time.monotonic() - start < 2
    me.close()


def test_a_closed_board_is_not_alive_though_its_process_runs(tmp_path):
    me = Board(tmp_path, "black", stale_after=STALE).join()
    me.close()
    assert not (tmp_path / "box" / "black" / "alive").exists()
    code, err, out = join_in_child(tmp_path, "black")
    assert code == 0, err


def test_left_tells_a_run_that_ended_from_one_that_runs_or_cannot_be_judged(tmp_path):
    watcher = Board(tmp_path, "white", stale_after=STALE).join()
    try:
        me = Board(tmp_path, "black", stale_after=STALE).join()
        assert not watcher.left("black")
        me.close()                                    # a clean close: its alive record is gone
        assert watcher.left("BLACK")
        child = subprocess.run([sys.executable, "-c", "import comm, os, sys; comm.Init('red', sys.argv[1]); os._exit(0)",
                                str(tmp_path)], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=60)
        assert child.returncode == 0
        assert watcher.left("red")                    # its process is gone from this machine
        plant(tmp_path, "blue", "d4" * 8, 1)          # on another machine: judged by its heartbeat
        assert not watcher.left("blue")
    finally:
        watcher.close()


def plant(board, name, run, beat, machine="elsewhere/00000000", extra=""):
    box = board / "box" / name
    box.mkdir(parents=True, exist_ok=True)
    fsops.replace_with(board / "tmp", box / "member", fsops.record(
        f"cardstand-member 1\nname: {name}\nrun: {run}\nhost: elsewhere\nmachine: {machine}\npid: 4242{extra}"),
        durable=False)
    fsops.replace_with(board / "tmp", box / "alive", fsops.record(
        f"cardstand-alive 1\nrun: {run}\nbeat: {beat}\nstate: waiting"), durable=False)


def test_a_member_on_another_machine_is_judged_by_its_heartbeat(tmp_path):
    Board(tmp_path, "setup").join().close()
    run = "a1" * 8
    plant(tmp_path, "white", run, 1)
    stop = threading.Event()

    def beating():
        n = 1
        while not stop.wait(0.2):
            n += 1
            plant(tmp_path, "white", run, n)
    t = threading.Thread(target=beating, daemon=True)
    t.start()
    try:
        b = Board(tmp_path, "white", stale_after=STALE)
        with pytest.raises(MemberBusy) as e:
            b.join()
        assert e.value.host == "elsewhere" and e.value.pid == "4242" and e.value.seen is not None
        assert "heartbeat" in str(e.value)
    finally:
        stop.set()
        t.join()
    start = time.monotonic()
    b = Board(tmp_path, "white", stale_after=STALE).join()       # silent now: gone after L + margin
    waited = time.monotonic() - start
    assert STALE <= waited < STALE + 5
    assert member_run(tmp_path, "white") == b.run
    b.close()


@pytest.mark.parametrize("impl", ["python", "javascript"])
def test_a_heartbeat_replaced_with_a_gap_is_still_alive(tmp_path, impl):
    """Through SMB a reader may find no alive record for a moment while it is replaced: a gap
    shorter than 0.3 s is not a clean close (I6)."""
    if impl == "javascript" and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    Board(tmp_path, "setup").join().close()
    run = "e5" * 8
    plant(tmp_path, "white", run, 1)
    alive = tmp_path / "box" / "white" / "alive"
    stop = threading.Event()

    def beating_with_gaps():
        n = 1
        while not stop.wait(0.15):
            n += 1
            alive.unlink()
            time.sleep(0.1)                     # no record at all meanwhile
            plant(tmp_path, "white", run, n)
    t = threading.Thread(target=beating_with_gaps, daemon=True)
    t.start()
    try:
        for _ in range(3):
            if impl == "python":
                with pytest.raises(MemberBusy):
                    Board(tmp_path, "white", stale_after=STALE).join()
            else:
                js = Served(f"node {ROOT / 'interop' / 'js' / 'peer.js'}", tmp_path, "white", stale_after=STALE)
                try:
                    a = js.ask(op="init")
                    assert not a.get("ok") and "already on this board" in a.get("error", ""), a
                finally:
                    js.close()
    finally:
        stop.set()
        t.join()


@pytest.mark.parametrize("alive", ["none", "other run", "garbage", "a folder"])
def test_a_member_without_its_own_heartbeat_is_taken_over_at_once(tmp_path, alive):
    Board(tmp_path, "setup").join().close()
    plant(tmp_path, "white", "b2" * 8, 1)
    a = tmp_path / "box" / "white" / "alive"
    a.unlink()
    if alive == "other run":
        a.write_text("cardstand-alive 1\nrun: cccccccccccccccc\nbeat: 5\nstate: \n")
    elif alive == "garbage":
        a.write_bytes(b"\xff\x00" * 300)
    elif alive == "a folder":
        a.mkdir()
    start = time.monotonic()
    Board(tmp_path, "white", stale_after=STALE).join().close()
    assert time.monotonic() - start < 1


def test_with_a_secret_a_planted_member_record_replaces_nobody(tmp_path):
    key = b"s3cret"
    me = Board(tmp_path, "white", secret=key, stale_after=STALE).join()
    other = Board(tmp_path, "black", secret=key, stale_after=STALE).join()
    try:
        assert f"mac: {member_mac(key, 'white', me.run)}" in (tmp_path / "box" / "white" / "member").read_text()
        plant(tmp_path, "white", "d4" * 8, 1)                       # no MAC: a forgery
        assert other.send("white", "hello")
        assert me.receive().body == "hello" and me.problem == ""
        forged_mac = f"\nmac: {member_mac(b'guess', 'white', 'e5' * 8)}"
        plant(tmp_path, "white", "e5" * 8, 1, extra=forged_mac)
        assert other.send("white", "again") and me.receive().body == "again"
        # a run that has the secret takes over for real
        taker = Board(tmp_path, "white", secret=key, stale_after=STALE, take_over=True).join()
        assert other.send("white", "to the taker")
        assert me.receive() is None and me.problem == "replaced"
        got = taker.receive().body
        if got == "again":      # the replaced run saw the take-over before acknowledging it (M5)
            got = taker.receive().body
        assert got == "to the taker"
        taker.close()
    finally:
        me.close()
        other.close()


def test_init_takes_over_on_request(tmp_path):
    child = subprocess.Popen([sys.executable, "-c",
                              "import comm, sys, time; comm.Init('black', sys.argv[1]); print('in', flush=True); "
                              "time.sleep(60)", str(tmp_path)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout.readline().strip() == "in"
        with pytest.raises(comm.MemberBusy):
            comm.Init("black", str(tmp_path))
        board = comm.Init("black", str(tmp_path), take_over=True)
        assert member_run(tmp_path, "black") == board.run
        board.close()
    finally:
        child.kill()
        child.wait()
