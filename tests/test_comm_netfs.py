"""Two processes through two mounts of one real network share (sshfs and SMB over loopback)."""
import shutil
import signal
import time

import pytest

from comm import Board

from commtools import check_stream, expect_line, spawn
from netfs import board_pair

# One worker runs all share tests in turn: see the note on concurrent SMB load in docs/benchmarks.md
pytestmark = [pytest.mark.netfs, pytest.mark.xdist_group("netfs")]
KINDS = ["sshfs", "smb"]


@pytest.fixture(params=KINDS)
def boards(request):
    a, b = board_pair(request.param)
    yield a, b
    shutil.rmtree(a, ignore_errors=True)


def test_writer_on_a_reader_on_b(boards, tmp_path):
    a, b = boards
    out = tmp_path / "got.txt"
    reader = spawn("recv", b, "reader", 0, out)
    expect_line(reader, "ready")
    writers = [spawn("send", a, "w1", "reader", 60, tmp_path / "w1.log"),
               spawn("send", b, "w2", "reader", 60, tmp_path / "w2.log")]
    for w in writers:
        assert w.wait(timeout=300) == 0, w.stderr.read()
    assert Board(a, "closer").join().send("reader", "stop")
    assert reader.wait(timeout=120) == 0, reader.stderr.read()
    lines = out.read_text().splitlines()
    check_stream(lines, {"w1", "w2"})
    assert len(lines) == 120


def test_lock_excludes_across_mounts(boards, tmp_path):
    a, b = boards
    workers = [spawn("counter", a, "ca", 40, a / "count"), spawn("counter", b, "cb", 40, b / "count")]
    for w in workers:
        expect_line(w, "ready")
    for w in workers:
        assert w.wait(timeout=300) == 0, w.stderr.read()
    assert int((a / "count").read_text()) == 80


def test_talk_turns_across_mounts(boards):
    a, b = boards
    one = Board(a, "one").join()
    two = Board(b, "two").join()
    for i in range(15):
        assert one.talk("two", f"move {i}") == (1, "", "")
        m = two.wait(timeout=30)
        assert m.body == f"move {i}"
        assert two.talk("one", f"reply {i}") == (1, "", "")
        assert one.wait(timeout=30).body == f"reply {i}"


def test_killed_holder_on_one_mount_is_recovered_from_the_other(boards):
    a, b = boards
    Board(b, "me").join()
    p = spawn("hold_and_die", a, "dier", stale=2)
    expect_line(p, "holding")
    p.send_signal(signal.SIGKILL)
    p.wait()
    other = Board(b, "other", stale_after=2, lock_timeout=20)
    t = time.monotonic()
    other.join()
    assert time.monotonic() - t < 2 + 3
    assert other.send("me", "recovered")


def test_silent_foreign_holder_is_broken_through_a_share(boards):
    from test_comm_lock import foreign_lock
    a, b = boards
    me = Board(b, "me", stale_after=1.5, lock_timeout=20).join()
    foreign_lock(a)
    t = time.monotonic()
    assert me.lease.acquire(timeout=20)
    me.lease.release()
    assert 1.3 <= time.monotonic() - t <= 1.5 + 3
