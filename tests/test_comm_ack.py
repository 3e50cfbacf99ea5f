"""A received message stays on the board until the receiver's next call (M5): a receiver killed
before it was done with a message gets it again; within one run a message is returned once."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import comm
from comm import Board
from comm.board import frame, msg_name

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pair(tmp_path):
    return Board(tmp_path / "board", "alice").join(), Board(tmp_path / "board", "bob").join()


def files(b):
    return sorted(p.name for p in b.mine.iterdir() if p.name.endswith(".msg"))


def tail(b):
    p = b.mine / "tail"
    return int(p.read_text()) if p.exists() else 0


def test_a_received_message_stays_until_the_next_call(pair):
    a, b = pair
    a.send("bob", "one")
    m = b.receive()
    assert m.body == "one"
    assert files(b) == [msg_name(1)] and tail(b) == 0         # handed, not consumed
    a.send("bob", "two")
    assert b.receive().body == "two"                           # "one" acknowledged first
    assert files(b) == [msg_name(2)] and tail(b) == 1


def test_a_killed_receiver_gets_the_message_again_in_its_next_run(pair):
    a, b = pair
    a.send("bob", "lost?")
    first = b.receive()
    # bob is killed here: its Board is never used again (no close)
    again = Board(b.folder, "bob").join()                      # same name, new run, no quiet
    m = again.receive()
    assert m is not None and (m.body, m.seq, m.to_run) == ("lost?", first.seq, b.run)
    assert again.receive() is None                             # once in this run


def test_only_the_message_handed_comes_back(pair):
    a, b = pair
    for body in ("1", "2", "3"):
        a.send("bob", body)
    assert [b.receive().body, b.receive().body] == ["1", "2"]
    # bob is killed here: its Board is never used again (no close)
    again = Board(b.folder, "bob").join()
    assert [again.receive().body, again.receive().body, again.receive()] == ["2", "3", None]


def test_never_returned_twice_in_one_run(pair):
    a, b = pair
    a.send("bob", "once")
    assert b.receive().body == "once"
    assert b.receive() is None
    assert b.wait(timeout=0) is None
    assert b.talk("", "") == (-1, "", "")
    a.send("bob", "next")
    assert b.talk("", "") == (2, "alice", "next")
    assert b.receive() is None and files(b) == [msg_name(2)]


@pytest.mark.parametrize("how", ["receive", "talk", "talk to", "wait", "quiet", "wipe", "close", "Init"])
def test_acknowledged_by_the_next_call(pair, how):
    a, b = pair
    a.send("bob", "first")
    assert b.receive().body == "first"
    if how == "receive":
        a.send("bob", "second")
        assert b.receive().body == "second"
    elif how == "talk":
        a.send("bob", "second")
        assert b.talk("", "") == (2, "alice", "second")
    elif how == "talk to":                                     # consumed, nothing else waits: sent
        assert b.talk("alice", "reply") == (1, "", "")
        assert a.receive().body == "reply"
    elif how == "wait":
        a.send("bob", "second")
        assert b.wait(timeout=5).body == "second"
    elif how == "quiet":
        assert b.quiet() == 0                                  # acknowledged, not counted as dropped
    elif how == "wipe":
        assert b.wipe() == 0
    elif how == "close":
        b.close()
    else:                                                      # the tutorial's Init replaces its board
        comm._board = b
        try:
            comm.Init("carol", b.folder)
        finally:
            comm._board.close()
            comm._board = None
    assert tail(b) == 1 and msg_name(1) not in files(b)
    m = Board(b.folder, "bob").join().receive()               # b killed now: "first" is not back
    handed = "second" if how in ("receive", "talk", "wait") else None   # ... but a handed "second" is (M5c)
    assert (m and m.body) == handed


def test_talk_with_a_handed_message_returns_the_next_one_and_sends_nothing(pair):
    a, b = pair
    a.send("bob", "1")
    a.send("bob", "2")
    assert b.receive().body == "1"
    assert b.talk("alice", "crossing") == (2, "alice", "2")
    assert a.receive() is None


def test_quiet_in_a_new_run_drops_a_message_handed_to_an_earlier_one(pair):
    a, b = pair
    a.send("bob", "for the old run")
    assert b.receive().body == "for the old run"
    # bob is killed here: its Board is never used again (no close)
    again = Board(b.folder, "bob").join()
    a.send("bob", "for the new run")
    assert again.quiet() == 1
    assert again.receive().body == "for the new run"
    assert again.receive() is None


def test_the_lock_free_look_does_not_report_the_handed_message(pair):
    a, b = pair
    a.send("bob", "one")
    assert b._maybe_waiting()
    assert b.receive().body == "one"
    assert not b._maybe_waiting()                              # the handed one is not news
    taken = []
    real = b.lease.acquire
    b.lease.acquire = lambda *args, **kw: taken.append(1) or real(*args, **kw)
    for _ in range(5):
        assert b.receive() is None
    assert b.wait(timeout=0.05) is None
    assert taken == [], "an idle waiter took the lock for the message it was handed"
    a.send("bob", "two")
    assert b._maybe_waiting()
    assert b.receive().body == "two" and taken == [1]


def test_the_acknowledgement_consumes_only_the_message_handed(pair):
    """If the message's number holds another message by then (another run of the name took it,
    and its number was given again), that one is not deleted: it is the next message."""
    a, b = pair
    a.send("bob", "old")
    assert b.receive().body == "old"
    scratch = b.tmp / "new.tmp"
    scratch.write_bytes(frame("alice", a.run, "bob", b.run, 1, b"new"))
    os.replace(scratch, b.mine / msg_name(1))
    a.send("bob", "two")
    assert [b.receive().body, b.receive().body, b.receive()] == ["new", "two", None]


def test_a_message_handed_whose_file_went_away_is_forgotten(pair):
    a, b = pair
    a.send("bob", "1")
    a.send("bob", "2")
    assert b.receive().body == "1"
    os.unlink(b.mine / msg_name(1))                            # taken by someone else
    assert b.receive().body == "2"
    assert b.receive() is None


def test_close_does_not_wait_long_for_the_lock(pair):
    """close() acknowledges only if it gets the lock soon; otherwise the message comes back."""
    a, b = pair
    a.send("bob", "kept")
    assert b.receive().body == "kept"
    with a.lease.hold(5):
        waits = []
        real = b.lease.acquire
        b.lease.acquire = lambda timeout, *args: waits.append((timeout, args)) or real(0.2, *args)
        b.close()
    assert waits == [(min(b.lock_timeout, comm.board.CLOSE_WAIT), (False,))]
    again = Board(b.folder, "bob").join()
    assert again.receive().body == "kept"


def test_the_tutorial_api_gets_the_message_again_after_a_crash(tmp_path):
    board = tmp_path / "board"
    alice = Board(board, "alice").join()
    try:
        comm.Init("bob", board)
        alice.send("bob", "d3")
        assert comm.RecvMessage() == (2, "alice", "d3")
        assert comm.RecvMessage() == (-1, "", "")
        comm._board = None                                     # the program dies here
        comm.Init("bob", board)                                # ... and starts again, no Quiet
        assert comm.RecvMessage() == (2, "alice", "d3")
        assert comm.Talk("alice", "c5") == (1, "", "")
        assert alice.receive().body == "c5"
        comm.Init("bob", board)
        assert comm.Talk("", "") == (-1, "", "")               # acknowledged by the Talk before
    finally:
        if comm._board is not None:
            comm._board.close()
        comm._board = None


# -- the same in interop/js ---------------------------------------------------------------------
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
JS = str(ROOT / "interop" / "js" / "cardstand.js")


def node(script, *args):
    r = subprocess.run(["node", "-e", f"const cs = require({json.dumps(JS)}); const args = process.argv.slice(1);\n"
                        "const out = (x) => console.log(JSON.stringify(x));\n"
                        "const open = (name) => new cs.Board(args[0], name, { log: () => {} }).join();\n"
                        "const body = (m) => m ? m.body : null;\n" + script, *map(str, args)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@needs_node
def test_javascript_gets_a_message_again_after_a_crash(tmp_path):
    board = tmp_path / "board"
    alice = Board(board, "alice").join()
    Board(board, "bob").join().close()         # closed: not alive (I6), node's runs may join as bob
    for body in ("1", "2", "3"):
        alice.send("bob", body)
    got = node("""
const b = open('bob');
const r = { first: body(b.receive()), second: body(b.receive()) };
r.files = require('fs').readdirSync(b.mine).filter((n) => n.endsWith('.msg'));
out(r);""", board)                                            # it ends without close: killed
    assert got == {"first": "1", "second": "2", "files": [msg_name(2), msg_name(3)]}
    got = node("""
const b = open('bob');
out([body(b.receive()), body(b.receive()), body(b.receive()), b.talk('', '')[0]]);""", board)
    assert got == ["2", "3", None, -1]
    got = node("""
const b = open('bob');
const r = [body(b.receive())];
const taken = [];
const acquire = b.lease.acquire.bind(b.lease);
b.lease.acquire = (...a) => { taken.push(1); return acquire(...a); };
r.push(b.receive(), b.wait(0.05), taken.length, b.maybeWaiting());
b.close();
r.push(taken.length);
out(r);""", board)
    assert got == ["3", None, None, 0, False, 1]               # peeked past it; close acknowledged it
    bob = Board(board, "bob").join()
    assert bob.receive() is None
    alice.send("bob", "4")
    assert bob.receive().body == "4"


@needs_node
def test_javascript_quiet_drops_a_message_handed_to_an_earlier_run(tmp_path):
    board = tmp_path / "board"
    alice = Board(board, "alice").join()
    Board(board, "bob").join().close()
    alice.send("bob", "old")
    assert node("out(body(open('bob').receive()));", board) == "old"     # then killed
    got = node("""
const b = open('bob');
const q = b.quiet();
open('carol').send('bob', 'mine');
out([q, body(b.receive()), b.quiet(), b.receive()]);""", board)
    assert got == [1, "mine", 0, None]              # its own handed message: acknowledged, not dropped
    assert node("out(open('bob').receive());", board) is None
