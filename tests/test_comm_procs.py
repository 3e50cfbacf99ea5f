"""Several real processes on one board: nothing lost, duplicated, corrupted or reordered."""
import random
import time
from pathlib import Path

import pytest

from comm import Board

from commtools import check_stream, expect_line, spawn


def test_four_senders_one_reader(tmp_path):
    board = tmp_path / "board"
    out = tmp_path / "received.txt"
    reader = spawn("recv", board, "reader", 0, out)
    expect_line(reader, "ready")
    senders = [spawn("send", board, f"s{i}", "reader", 200, tmp_path / f"s{i}.log") for i in range(4)]
    for s in senders:
        assert s.wait(timeout=300) == 0, s.stderr.read()
    assert Board(board, "closer").join().send("reader", "stop")
    assert reader.wait(timeout=120) == 0, reader.stderr.read()
    lines = out.read_text().splitlines()
    check_stream(lines, {f"s{i}" for i in range(4)})
    assert len(lines) == 800
    for i in range(4):
        assert sorted(int(b.split(":")[2]) for b in lines if b.startswith(f"s{i}:")) == list(range(200))


def test_lock_excludes_between_processes(tmp_path):
    board = tmp_path / "board"
    count = tmp_path / "count"
    workers = [spawn("counter", board, f"c{i}", 150, count) for i in range(3)]
    for w in workers:
        assert w.wait(timeout=300) == 0, w.stderr.read()
    assert int(count.read_text()) == 450


@pytest.mark.slow
def test_senders_killed_at_random_then_restarted(tmp_path):
    """SIGKILL senders at random instants (inside and outside the lock) and restart them.

    Every message a sender logged as sent arrives exactly once; nothing arrives
    twice or out of order; the board stays usable (a dead holder's lock is broken).
    """
    rng = random.Random(1234)
    board = tmp_path / "board"
    out = tmp_path / "received.txt"
    reader = spawn("recv", board, "reader", 0, out, stale=1.0)
    expect_line(reader, "ready")
    names = ["k0", "k1", "k2"]
    total = 400
    procs = {n: spawn("send", board, n, "reader", total, tmp_path / f"{n}.log", stale=1.0) for n in names}
    kills = 0
    deadline = time.monotonic() + 240
    while procs and time.monotonic() < deadline:
        time.sleep(rng.uniform(0.01, 0.25))
        name = rng.choice(sorted(procs))
        p = procs[name]
        if p.poll() is not None:
            assert p.returncode == 0, p.stderr.read()
            del procs[name]
            continue
        p.kill()                # SIGKILL; on Windows TerminateProcess
        p.wait()
        kills += 1
        procs[name] = spawn("send", board, name, "reader", total, tmp_path / f"{name}.log", stale=1.0)
    for p in procs.values():
        assert p.wait(timeout=120) == 0, p.stderr.read()
    assert Board(board, "closer", lock_timeout=30).join().send("reader", "stop")
    assert reader.wait(timeout=60) == 0
    lines = out.read_text().splitlines()
    check_stream(lines, set(names))
    for n in names:
        logged = [int(x) for x in (tmp_path / f"{n}.log").read_text().split()]
        got = {int(b.split(":")[2]) for b in lines if b.startswith(n + ":")}
        assert set(logged) <= got, f"{n}: logged as sent but never arrived: {set(logged) - got}"
        assert set(range(total)) == got
    assert kills >= 10


@pytest.mark.slow
def test_receiver_killed_at_random_then_restarted(tmp_path):
    """SIGKILL the receiver at random instants (inside and outside the lock) while a sender sends
    numbered messages, and restart it under the same name without Quiet.

    Every number arrives, in order; a number arrives twice only as the first message after a
    restart: the one the killed run had been handed and not acknowledged (M5, section 9).
    """
    rng = random.Random(4321)
    board = tmp_path / "board"
    out = tmp_path / "received.txt"
    reader = spawn("recv", board, "reader", 0, out, stale=1.0)
    expect_line(reader, "ready")
    total = 900
    sender = spawn("send", board, "s", "reader", total, tmp_path / "s.log", 0.01, stale=1.0)
    kills = 0
    deadline = time.monotonic() + 40
    while sender.poll() is None and kills < 60 and time.monotonic() < deadline:
        time.sleep(rng.uniform(0.05, 0.4))
        reader.kill()                                   # SIGKILL: no clean-up of any kind
        reader.wait()
        kills += 1
        with open(out, "a") as f:
            f.write("restart\n")
        reader = spawn("recv", board, "reader", 0, out, stale=1.0)
    assert sender.wait(timeout=120) == 0, sender.stderr.read()
    assert Board(board, "closer", lock_timeout=30).join().send("reader", "stop")
    assert reader.wait(timeout=60) == 0, reader.stderr.read()
    last, twice = -1, 0
    for n, run in enumerate(out.read_text().split("restart\n")):
        for j, line in enumerate(run.split()):
            i = int(line.split(":")[2])
            if j == 0 and i == last:
                twice += 1                              # handed to the killed run, not acknowledged
                continue
            assert i == last + 1, f"run {n} of the receiver: {i} after {last} (lost, or twice within a run)"
            last = i
    assert last == total - 1 and kills >= 20, (last, kills)
    assert kills >= 20, f"only {kills} kills: the sender finished too soon"
    print(f"{kills} kills, {twice} messages returned again after a restart")
