"""Records a classmate can forge that once killed a member with a traceback."""
import json
import shutil
import subprocess
import sys

import pytest

from comm import Board, BoardError, fsops
from comm.lease import MACHINE

from peertools import ROOT


@pytest.mark.skipif(not MACHINE, reason="no boot id here: same-machine pid checks are off")
@pytest.mark.parametrize("pid", ["99999999999999999999999", "-1", "0", "12x", "²"])
def test_a_lock_owner_with_an_absurd_pid_on_our_machine_is_judged_by_its_heartbeat(tmp_path, pid):
    board = tmp_path / "b"
    Board(board, "alice").join().close()
    ghost = board / "tmp" / "ghost"
    ghost.mkdir()
    (ghost / "owner").write_bytes(fsops.record(
        f"cardstand-lock 1\ntoken: abcd\nname: evil\nhost: h\nmachine: {MACHINE}\npid: {pid}"))
    (ghost).rename(board / "lock")
    me = Board(board, "bob", stale_after=0.5, lock_timeout=5)
    me.join()                       # waits the stale bound, breaks the lock, no traceback
    assert not (board / "lock").exists() or me.lease.holder().get("name") != "evil"


@pytest.mark.parametrize("marker", ["cardstand-board ²\n", "cardstand-board ٣\n", "cardstand-board " + "9" * 5000])
def test_a_forged_marker_is_refused_with_a_plain_message(tmp_path, marker):
    board = tmp_path / "b"
    board.mkdir()
    (board / "cardstand.board").write_text(marker, encoding="utf-8")
    with pytest.raises(BoardError) as e:
        Board(board, "alice").join()
    assert "not a cardstand board marker" in str(e.value) and "Errno" not in str(e.value)


def test_serve_answers_a_request_that_is_not_an_object(tmp_path):
    r = subprocess.run([sys.executable, "-m", "comm", "serve", "--board", str(tmp_path / "b"), "--name", "a"],
                       input='[1,2]\n"x"\nnull\n{"op": "quit"}\n', capture_output=True, text=True, timeout=60)
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 0 and [a["ok"] for a in answers] == [False, False, False, True], r.stderr
    assert "JSON object" in answers[0]["error"]


# -- one reader of key: value lines (fsops.parse_record) ------------------------------------------

def test_records_are_read_line_by_line_and_forgiving():
    text = "cardstand-member 1\r\n name : Black\r\nrun: 11\nrun: 22\njunk\n\nstate:\nx: a: b\n"
    first, f = fsops.parse_record(text)
    assert first == "cardstand-member 1\r"
    # keys as written (" name " is not "name", R1), the first run wins, "state:" is no line
    assert f == {" name ": "Black", "run": "11", "x": "a: b"}
    assert fsops.record_fields("h\nrun:  \t9e2f \t\x85 \n") == {"run": "9e2f \t\x85"}   # spaces and tabs only
    assert fsops.parse_record("") == ("", {})


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\r"])
def test_only_a_newline_ends_a_record_line(sep):
    """A name holding another line break cannot add a key (Python's splitlines would split there)."""
    f = fsops.parse_record(f"cardstand-member 1\nname: x{sep}run: forged\nrun: real")[1]
    assert f == {"name": f"x{sep}run: forged", "run": "real"}


@pytest.mark.parametrize("header, why", [
    ("from: a\nfrom: b", "header key 'from' given twice"),
    ("from: a\nfrom:b", "bad header line 'from:b'"),
    ("from: a\n", "bad header line ''"),
    ("from: a\r", None),
])
def test_a_message_header_is_read_strictly(header, why):
    if why is None:
        assert fsops.parse_record("cardstand-msg 1\n" + header, strict=True)[1] == {"from": "a\r"}
        return
    with pytest.raises(ValueError) as e:
        fsops.parse_record("cardstand-msg 1\n" + header, strict=True)
    assert str(e.value) == why


def test_every_record_reader_uses_the_same_rules(tmp_path):
    """member, alive and the lock's owner: padding stripped, a forged second line ignored, a line
    break other than a newline kept inside its value."""
    board = tmp_path / "b"
    a = Board(board, "alice").join()
    b = Board(board, "bob").join()
    member = b.mine / "member"
    real = fsops.record_fields(member.read_text())["run"]
    member.write_bytes(fsops.record(f"cardstand-member 1\nname: bob\u2028run: forged\nrun: {real}\nrun: second"))
    assert a.member_run("bob") == real and a.members() == ["alice", "bob\u2028run: forged"]
    assert a.send("bob", "to the real run") and b.receive().to_run == real
    (b.mine / "alive").write_bytes(fsops.record("cardstand-alive 1\nrun: r\nbeat: 1\nbeat: 99\ngarbage\nstate:"))
    assert a.alive("bob") == {"run": "r", "beat": "1", "state": ""}
    owner = fsops.record("cardstand-lock 1\ntoken: abc\ntoken: def\nname: eve\u2028pid: 1\npid: 7")
    assert a.lease._owner_fields(owner) == {"token": "abc", "name": "eve\u2028pid: 1", "pid": "7"}
    assert a.lease._owner_fields(b"<owner: a symbolic link>") == {}


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_python_and_javascript_read_a_forged_record_alike():
    """R1 in one way: two readers that disagree would see two runs in one planted member record."""
    records = [
        "cardstand-member 1\n run: A\nrun: B\n", "cardstand-member 1\nrun: C\x1f\n", "cardstand-member 1\nrun: C\x85 \n",
        "cardstand-member 1\nrun: \ufeffE\n", "cardstand-member 1\nrun:\nrun: F\n", "cardstand-member 1\nrun\t: D\nrun: G\n",
        "cardstand-member 1\r\nrun: H\r\n", "cardstand-member 1\n: x\nrun: I  \t  \n", "cardstand-member 1\nrun: J\u2028run: K\n",
    ]
    js = ROOT / "interop" / "js" / "cardstand.js"
    r = subprocess.run(["node", "-e", f"const cs = require({json.dumps(str(js))});"
                        "const recs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                        "console.log(JSON.stringify(recs.map((t) => Object.assign({}, cs.fields(t)))));"],
                       input=json.dumps(records), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [fsops.record_fields(t) for t in records]


def test_quiet_and_wipe_fail_with_a_reason_on_a_gone_board(tmp_path):
    import shutil as sh
    b = Board(tmp_path / "b", "a", lock_timeout=1).join()
    sh.rmtree(tmp_path / "b")
    assert b.quiet() == 0 and b.problem == "gone" and "gone" in b.last_error
    assert b.wipe() == 0 and b.problem == "gone"
    b.close()


def test_serve_answers_a_request_before_init_instead_of_crashing(tmp_path):
    r = subprocess.run([sys.executable, "-m", "comm", "serve", "--board", str(tmp_path / "b"), "--name", "a"],
                       input='{"op": "recv"}\n{"op": "quiet"}\n{"op": "quit"}\n', capture_output=True, text=True,
                       timeout=60)
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 0 and [a["ok"] for a in answers] == [False, False, True], r.stderr
    assert "has not joined" in answers[0]["error"] and "Traceback" not in r.stderr
