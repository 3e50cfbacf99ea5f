"""This host's queue for a board (comm.hostlock): one holder at a time across processes and
threads, freed when its holder ends however it ends, never a traceback or a followed link.  Runs
on Windows' Python too (tests/test_windows.py), where the lock is LockFile's and not flock's."""
import errno
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from comm import hostlock
from comm.hostlock import PlatformLock as HostLock

HOLD = ("import sys, time; from comm.hostlock import PlatformLock as HostLock; "
        "lock = HostLock(sys.argv[1]); assert lock.try_acquire(); print('held', flush=True); time.sleep(60)")
ROOT = Path(__file__).resolve().parents[1]


def holder(path):
    """A child process that holds the lock on ``path`` until it is killed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None and child.stdout.readline() == "held\n"
    return child


def test_one_holder_at_a_time_in_one_process(tmp_path):
    a, b = HostLock(tmp_path / "q.lock"), HostLock(tmp_path / "q.lock")
    assert a.try_acquire() and a.held
    assert a.try_acquire()              # held already: still ours
    assert not b.try_acquire()
    assert not b.try_acquire()          # tried again on the file it keeps open
    a.release()
    assert not a.held
    assert b.try_acquire()
    assert not a.try_acquire()
    b.release()
    b.release()                         # not held: nothing happens
    assert a.try_acquire()
    a.release()


def test_another_process_holds_it_until_killed(tmp_path):
    path = tmp_path / "q.lock"
    child = holder(path)
    lock = HostLock(path)
    try:
        assert not lock.try_acquire()
    finally:
        child.kill()                    # no tidying up: the system frees the lock with the process
        child.wait()
    deadline = time.monotonic() + 5
    while not lock.try_acquire():
        assert time.monotonic() < deadline, "the lock of a killed process was not freed"
        time.sleep(0.01)
    lock.release()


def test_an_interrupt_just_after_the_lock_was_taken_leaves_it_releasable(tmp_path, monkeypatch):
    path = tmp_path / "q.lock"
    lock = HostLock(path)
    taken = lock._lock

    def lock_then_interrupted(fd):
        taken(fd)
        raise KeyboardInterrupt
    monkeypatch.setattr(lock, "_lock", lock_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        lock.try_acquire()
    assert lock.held
    other = HostLock(path)
    assert not other.try_acquire()
    lock.release()
    assert other.try_acquire()
    other.release()


def test_an_unlock_the_system_refuses_still_frees_it(tmp_path, monkeypatch):
    """(Seen under Wine: "Lock violation" on an unlock after an interrupted one.)  Closing the
    file frees the lock all the same."""
    path = tmp_path / "q.lock"
    lock = HostLock(path)
    assert lock.try_acquire()

    def refused(fd):
        raise PermissionError(errno.EACCES, "Lock violation")
    monkeypatch.setattr(lock, "_unlock", refused)
    lock.release()
    assert not lock.held
    other = HostLock(path)
    assert other.try_acquire()
    other.release()


def test_two_threads_queue_on_each_other(tmp_path):
    """As two processes do: each thread has a file of its own (one open file shared would let the
    second thread in as if it held the lock already)."""
    lock = HostLock(tmp_path / "q.lock")
    inside, overlaps = [0], [0]

    def work():
        for _ in range(200):
            while not lock.try_acquire():
                time.sleep(0.0002)
            inside[0] += 1
            overlaps[0] += inside[0] > 1
            time.sleep(0.0002)
            inside[0] -= 1
            lock.release()
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps[0] == 0 and not lock.held


def test_a_system_without_locks_leaves_the_queue_aside_for_a_while(tmp_path, monkeypatch, caplog):
    lock = HostLock(tmp_path / "q.lock")
    fails = [0]

    def unsupported(fd):
        fails[0] += 1
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(lock, "_lock", unsupported)
    with caplog.at_level(logging.WARNING, logger="comm"):
        assert lock.try_acquire() and lock.try_acquire()
        assert fails[0] == 1 and not lock.held      # aside: not tried again, its file closed
        lock.aside_since -= hostlock.ASIDE          # a while later: tried again, said no more
        assert lock.try_acquire() and fails[0] == 2
    assert caplog.text.count("no host-local lock queue") == 1 and "No locks available" in caplog.text
    monkeypatch.undo()
    lock.aside_since -= hostlock.ASIDE
    assert lock.try_acquire() and lock.held         # locks again once the system does
    assert not HostLock(tmp_path / "q.lock").try_acquire()
    lock.release()


def test_a_folder_that_is_not_there_leaves_the_queue_aside(tmp_path, caplog):
    lock = HostLock(tmp_path / "gone" / "q.lock")
    with caplog.at_level(logging.WARNING, logger="comm"):
        assert lock.try_acquire()
    assert "no host-local lock queue" in caplog.text and not lock.held
    assert not (tmp_path / "gone").exists()


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="links are not followed by O_NOFOLLOW here")
def test_a_link_in_its_place_is_not_followed(tmp_path, caplog):
    target = tmp_path / "elsewhere"
    (tmp_path / "q.lock").symlink_to(target)
    lock = HostLock(tmp_path / "q.lock")
    with caplog.at_level(logging.WARNING, logger="comm"):
        assert lock.try_acquire()
    assert not target.exists() and "no host-local lock queue" in caplog.text
    assert not lock.held
