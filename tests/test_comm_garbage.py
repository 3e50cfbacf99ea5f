"""Foreign files, damaged messages and crash leftovers never crash a reader or block the board."""
import os
import time

import pytest

from comm import Board
from comm.board import frame, msg_name


@pytest.fixture
def pair(tmp_path):
    a = Board(tmp_path / "board", "alice", stale_after=1).join()
    b = Board(tmp_path / "board", "bob", stale_after=1).join()
    return a, b


def test_foreign_files_are_ignored(pair):
    a, b = pair
    root = b.folder
    (root / "notes.txt").write_text("hello")
    (root / "box" / "README").write_text("x")
    (root / "box" / "stray-dir").mkdir()
    (b.mine / "000000000099.msg.bak").write_text("x")
    (b.mine / "junk").mkdir()
    (root / "tmp" / "junk").write_bytes(os.urandom(100))
    assert a.send("bob", "through the mess")
    assert b.receive().body == "through the mess"
    assert sorted(a.members()) == ["alice", "bob"]


@pytest.mark.parametrize("damage", [
    b"\x00\xff garbage",
    b"cardstand-msg 1\nfrom: alice\n",
    frame("alice", "r", "bob", "r", 1, "hello".encode())[:-2],            # truncated
    frame("alice", "r", "bob", "r", 1, "hello".encode()).replace(b"hello", b"jello"),  # bad crc
    frame("alice", "r", "bob", "r", 1, b"x").replace(b"cardstand-msg 1", b"cardstand-msg 9"),
    frame("a/b", "r", "bob", "r", 1, b"x"),                                # bad sender
])
def test_damaged_message_is_set_aside_and_the_next_delivered(pair, damage, caplog):
    a, b = pair
    (b.mine / msg_name(1)).write_bytes(damage)
    assert a.send("bob", "good")            # lands after the damaged one
    m = b.receive()
    assert m.body == "good" and m.sender == "alice"
    assert b.receive() is None
    assert len(list(b.trash.iterdir())) == 1
    assert "damaged message" in caplog.text


def test_missing_message_in_the_sequence_is_skipped(pair):
    a, b = pair
    for body in ("1", "2", "3"):
        a.send("bob", body)
    os.unlink(b.mine / msg_name(2))
    assert [b.receive().body, b.receive().body] == ["1", "3"]
    assert b.receive() is None
    a.send("bob", "4")
    assert b.receive().body == "4"


def test_crashed_writers_scratch_is_cleaned_by_the_shares_clock(pair, tmp_path):
    a, b = pair
    old = b.tmp / "deadhost-1-abc.tmp"
    old.write_text("half a mess")
    fresh = b.tmp / "livehost-2-def.tmp"
    fresh.write_text("being written")
    past = time.time() - 3600
    os.utime(old, (past, past))
    (b.tmp / "lock-0123").mkdir()
    os.utime(b.tmp / "lock-0123", (past, past))
    Board(b.folder, "carol").join()
    assert not old.exists() and not (b.tmp / "lock-0123").exists()
    assert fresh.exists()


def _age(path, seconds):
    past = time.time() - seconds
    not_through_links = {"follow_symlinks": False} if os.utime in os.supports_follow_symlinks else {}   # (not on Windows)
    os.utime(path, (past, past), **not_through_links)


def test_a_kept_private_lock_folder_is_judged_by_its_owner_record(pair):
    """S1: a member keeps tmp/lock-<token> between takings and rewrites its owner: the
    folder's own time says nothing, and clean-up by another member leaves it alone."""
    a, b = pair
    assert a.send("bob", "x")                       # a took and released: it keeps a spare
    spare = b.tmp / f"lock-{a.lease._spare}"
    assert (spare / "owner").is_file()
    _age(spare, 3600)
    Board(b.folder, "carol").join()
    assert spare.is_dir()                           # owner written just now
    _age(spare / "owner", 3600)
    _age(spare, 3600)
    a.lease._spare_at -= 1000                       # as if SPARE_REFRESH had passed
    a.lease.refresh_spare()
    assert time.time() - (spare / "owner").stat().st_mtime < 60
    Board(b.folder, "dave").join()
    assert spare.is_dir()
    assert a.send("bob", "y") and [b.receive().body, b.receive().body] == ["x", "y"]


def test_the_heartbeat_refreshes_an_idle_members_private_folder(pair, monkeypatch):
    a, b = pair
    assert a.send("bob", "x")
    spare = b.tmp / f"lock-{a.lease._spare}"
    _age(spare / "owner", 3600)
    monkeypatch.setattr("comm.lease.SPARE_REFRESH", 0.0)
    deadline = time.time() + 5
    while time.time() - (spare / "owner").stat().st_mtime > 60 and time.time() < deadline:
        time.sleep(0.1)
    assert time.time() - (spare / "owner").stat().st_mtime < 60


def test_an_abandoned_private_lock_folder_is_moved_away_then_deleted(pair):
    a, b = pair
    assert a.send("bob", "x")
    a.lease._spare_at = float("inf")                # never refreshed again (a frozen member)
    spare = b.tmp / f"lock-{a.lease._spare}"
    _age(spare / "owner", 3600)
    _age(spare, 3600)
    Board(b.folder, "carol").join()
    assert not spare.exists()
    assert sorted(p.name for p in b.tmp.iterdir() if not p.name.startswith("lock-")) == []
    assert a.send("bob", "y")                       # its owner makes a new one and goes on
    assert [b.receive().body, b.receive().body] == ["x", "y"]


def test_consumed_but_undeleted_message_is_not_delivered_again(pair):
    a, b = pair
    a.send("bob", "once")
    (b.mine / "keep").write_bytes((b.mine / msg_name(1)).read_bytes())
    assert b.receive().body == "once"
    b.close()                                           # acknowledged: tail 1, file deleted (M5)
    os.replace(b.mine / "keep", b.mine / msg_name(1))   # as if killed between the two
    b2 = Board(b.folder, "bob").join()
    assert b2.receive() is None
    assert not (b.mine / msg_name(1)).exists()


def test_head_pointer_behind_is_repaired_by_probing(pair):
    a, b = pair
    a.send("bob", "1")
    (b.mine / "head").write_text("0\n")   # as if the sender died before updating it
    a.send("bob", "2")
    assert [b.receive().body, b.receive().body] == ["1", "2"]


def test_garbage_pointers_do_not_block(pair):
    a, b = pair
    (b.mine / "head").write_text("not a number")
    (b.mine / "tail").write_bytes(b"\xff\xfe")
    assert a.send("bob", "still fine")
    assert b.receive().body == "still fine"


def test_a_share_that_fails_reads_now_and_then_loses_nothing(pair, monkeypatch):
    """EIO on some reads (seen through smbnetfs under load): retried or taken as no news,
    never an exception out of the board, and every message still arrives once, in order."""
    import random
    import threading
    a, b = pair
    platform = type(a.root)            # DirFdRoot, or PortableRoot
    real_open = platform._open_file_at
    rng = random.Random(7)
    failed = []

    me = threading.current_thread()     # the heartbeat threads read too: the same failures each run

    def flaky_open(self, ph, name, rel):
        if self.folder == a.folder and threading.current_thread() is me and rng.random() < 0.2:
            failed.append(rel)
            raise OSError(5, "Input/output error", rel)
        return real_open(self, ph, name, rel)

    monkeypatch.setattr(platform, "_open_file_at", flaky_open)
    for i in range(30):
        assert a.send("bob", f"m{i}")
        b.alive("alice")  # presence reads: None or a record, never an exception
    got = []
    while len(got) < 30:
        m = b.wait(timeout=5)
        assert m is not None, f"only {got}"
        got.append(m.body)
    assert got == [f"m{i}" for i in range(30)]
    assert len(failed) > 10, "hardly any read failed: the test tested nothing"


# -- what was set aside, told to the program (comm.aside) --------------------------------------------

def test_what_is_set_aside_is_told_once_with_its_kind(pair):
    a, b = pair
    a.take_set_aside(), b.take_set_aside()
    (b.mine / msg_name(1)).write_bytes(frame("alice", "r", "bob", "r", 1, b"hello").replace(b"hello", b"jello"))
    (b.mine / msg_name(2)).mkdir()
    assert a.send("bob", "good")
    assert b.receive().body == "good"
    told, more = b.take_set_aside()
    assert more == 0
    assert [(t.path, t.kind) for t in told] == [("box/bob/000000000001.msg", "damaged"),
                                                 ("box/bob/000000000002.msg", "not_message")]
    assert told[0].detail == "checksum mismatch"
    assert b.take_set_aside() == ([], 0)        # once
    assert a.take_set_aside()[0] == told        # every Board of the process on that folder hears it


def test_a_file_where_a_folder_belongs_is_told(pair):
    import shutil
    a, b = pair
    b.take_set_aside()
    shutil.rmtree(b.folder / "tmp")
    (b.folder / "tmp").write_text("not a folder")
    assert a.send("bob", "through")
    told, _ = b.take_set_aside()
    assert [(t.path, t.kind, t.detail) for t in told] == [("tmp", "not_folder", "a file")]


def test_a_flood_of_junk_is_counted_not_kept(pair):
    from comm.aside import KEPT
    a, b = pair
    b.take_set_aside()
    for k in range(1, KEPT + 51):
        (b.mine / msg_name(k)).write_bytes(b"junk %d" % k)
    assert a.send("bob", "after the flood")
    assert b.receive().body == "after the flood"
    told, more = b.take_set_aside()
    assert len(told) == KEPT and more == 50
    assert told[0].path == "box/bob/000000000001.msg" and {t.kind for t in told} == {"damaged"}
