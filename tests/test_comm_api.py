"""The tutorial's comm API and the Board object: meanings, refusals, Unicode."""
import os

import pytest

import comm
from comm import Board, InvalidArgument

from commtools import Clock


@pytest.fixture
def board(tmp_path):
    return tmp_path / "board"


def test_talk_sends_then_receives(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    assert a.talk("bob", "d3") == (1, "", "")
    assert b.talk("", "") == (2, "alice", "d3")
    assert b.talk("", "") == (-1, "", "")


def test_talk_receives_instead_of_sending_when_a_message_waits(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    assert a.talk("bob", "first") == (1, "", "")
    # bob has a message waiting: his Talk returns it and sends nothing
    assert b.talk("alice", "crossing") == (2, "alice", "first")
    assert a.talk("", "") == (-1, "", "")
    assert b.talk("alice", "now") == (1, "", "")
    assert a.talk("", "") == (2, "bob", "now")


def test_order_is_kept_and_bodies_are_exact(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    bodies = ["こんにちは、世界", "line1\nline2\r\nline3\r", "", " spaced ", "emoji 🀄",
              "x" * comm.MAX_BODY, "\t\x00\x7f", "ｄ３"]
    for body in bodies:
        assert a.send("bob", body)
    got = [b.receive() for _ in bodies]
    assert [m.body for m in got] == bodies
    assert [m.sender for m in got] == ["alice"] * len(bodies)
    assert [m.seq for m in got] == sorted(m.seq for m in got)
    assert b.receive() is None


def test_unjoined_recipient_and_full_mailbox_fail_with_reason(board):
    a = Board(board, "alice", max_unread=3).join()
    Board(board, "bob").join()
    assert a.talk("carol", "hi") == (0, "", "")
    assert "carol has not joined" in a.last_error
    for _ in range(3):
        assert a.send("bob", "x")
    assert not a.send("bob", "one too many")
    assert "full" in a.last_error
    assert a.talk("bob", "x") == (0, "", "")


@pytest.mark.parametrize("name", ["", "a/b", "..", "../x", "a b", "tab\t", "nl\n", "x" * 33,
                                  "-dash", "con", "COM1", "名前", "a\\b", None, 7])
def test_invalid_names_are_refused(board, name):
    with pytest.raises(InvalidArgument):
        Board(board, name)
    a = Board(board, "alice").join()
    if name != "":  # Talk("", ...) means "only receive"
        with pytest.raises(InvalidArgument):
            a.talk(name, "hi")
        with pytest.raises(InvalidArgument):
            a.send(name, "hi")
    assert os.listdir(board / "box") == ["alice"]


def test_invalid_bodies_are_refused_and_nothing_is_sent(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    for body in (b"bytes", 42, None, "x" * (comm.MAX_BODY + 1), "\ud800"):
        with pytest.raises(InvalidArgument):
            a.talk("bob", body)
    assert b.receive() is None


def test_names_are_case_insensitive_but_keep_their_spelling(board):
    a = Board(board, "Alice").join()
    b = Board(board, "BOB").join()
    assert a.send("bob", "hi")
    assert b.receive().sender == "Alice"
    assert sorted(a.members()) == ["Alice", "BOB"]


def test_quiet_drops_earlier_runs_but_keeps_this_run(board):
    old = Board(board, "bob").join()
    a = Board(board, "alice").join()
    assert a.send("bob", "for the old run 1")
    assert a.send("bob", "for the old run 2")
    new = Board(board, "bob").join()          # bob starts again
    assert a.send("bob", "for the new run")   # arrives between Init and Quiet
    assert new.quiet() == 2
    assert new.receive().body == "for the new run"
    assert new.receive() is None
    assert old.run != new.run


def test_wipe_discards_everything(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    for i in range(5):
        a.send("bob", str(i))
    assert b.wipe() == 5
    assert b.receive() is None


def test_module_functions_wrap_one_board(board, monkeypatch):
    monkeypatch.setattr(comm, "_board", None)
    with pytest.raises(RuntimeError, match="Init"):
        comm.Talk("x", "y")
    other = Board(board, "white").join()
    comm.Init("black", str(board))
    assert comm.Quiet() == 0
    assert comm.Talk("white", "d3") == (1, "", "")
    assert comm.LastError() == ""
    assert other.talk("black", "c5") == (2, "black", "d3")
    assert other.send("black", "c5")
    assert comm.SendMessage("white", "e6") == 1
    assert comm.RecvMessage() == (2, "white", "c5")
    assert comm.RecvMessage() == (-1, "", "")
    assert comm.Talk("nobody", "x") == (0, "", "")
    assert "nobody" in comm.LastError()
    assert other.receive().body == "e6"
    other.send("black", "1")
    other.send("black", "2")
    assert comm.WipeMessage() == 2
    assert comm.Talk("", "") == (-1, "", "")


def test_wait_returns_a_message_or_times_out(board):
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    assert b.wait(timeout=0.05) is None
    a.send("bob", "hello")
    assert b.wait(timeout=1).body == "hello"


def test_a_waiter_in_short_calls_backs_off_as_one_long_wait(board, monkeypatch):
    """A player waits in calls of 0.1-0.2 s (it reads the keyboard between them): the pause between
    looks grows with the time since its last message, not since the call, so an idle player looks
    20 times a second, not hundreds."""
    import comm.board
    Board(board, "alice").join()
    b = Board(board, "bob").join()
    clock = Clock()
    monkeypatch.setattr(comm.board, "time", clock)
    for _ in range(100):                # 10 s of waiting in calls of 0.1 s
        assert b.wait(timeout=0.1) is None
    looks = len(clock.slept)
    assert 200 <= looks <= 400, looks   # (pauses of 50 ms after the first second; each call ends on one)
    assert max(clock.slept) == pytest.approx(0.05)     # (starting each call afresh: 3,600 looks, 11 ms at most)


@pytest.mark.parametrize("activity", ["send", "receive", "talk sends", "talk receives"])
def test_a_message_sent_or_received_makes_the_next_wait_look_often_again(board, monkeypatch, activity):
    import comm.board
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    clock = Clock()
    monkeypatch.setattr(comm.board, "time", clock)
    for _ in range(30):
        assert b.wait(timeout=0.1) is None
    clock.slept.clear()
    assert b.wait(timeout=0.1) is None
    assert clock.slept[0] == pytest.approx(0.05)       # idle: the pause stays long across calls
    if activity == "send":
        assert b.send("alice", "c5")
    elif activity == "receive":
        assert a.send("bob", "d3") and b.receive().body == "d3"
    elif activity == "talk sends":
        assert b.talk("alice", "c5").result == comm.SENT
    else:
        assert a.send("bob", "d3") and b.talk("", "").result == comm.RECEIVED
    clock.slept.clear()
    assert b.wait(timeout=0.1) is None
    assert clock.slept[0] == pytest.approx(0.001)


def test_one_thread_waits_while_another_sends_on_the_same_board(board):
    """A player's threads share one Board: a send from one while another waits changes when the
    waiter looks, and nothing else."""
    import threading
    a = Board(board, "alice").join()
    Board(board, "bob").join()
    errors, stop = [], threading.Event()

    def waiting():
        try:
            while not stop.is_set():
                a.wait(timeout=0.01)
        except Exception as e:      # (a failure in the thread is the test's)
            errors.append(e)
    t = threading.Thread(target=waiting)
    t.start()
    try:
        for i in range(200):
            assert a.send("bob", str(i))
    finally:
        stop.set()
        t.join(30)
    assert not errors, errors


def test_context_manager_joins(board):
    with Board(board, "alice") as a:
        assert a.run
    assert (board / "box" / "alice" / "member").exists()


def test_unusable_folder_gives_clear_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("not a folder")
    with pytest.raises(comm.BoardError, match="cannot use") as caught:
        Board(f, "alice").join()
    # for a program that words it itself: the code, the member's problem code and the system's words
    assert caught.value.code == "cannot_use" and caught.value.fields["folder"] == str(f)
    assert caught.value.fields["kind"] == "gone" and caught.value.fields["system"]
    if os.name != "nt" and os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(comm.BoardError):
            Board(ro / "board", "alice").join()


def test_foreign_marker_and_other_versions_are_refused(board):
    board.mkdir()
    (board / "cardstand.board").write_text("my shopping list\n")
    with pytest.raises(comm.BoardError, match="not a cardstand board"):
        Board(board, "alice").join()
    (board / "cardstand.board").write_text("cardstand-board 2\n")
    with pytest.raises(comm.BoardError, match="version 2"):
        Board(board, "alice").join()
    assert (board / "cardstand.board").read_text() == "cardstand-board 2\n"
