"""Records a classmate can forge that once killed a member with a traceback."""
import json
import subprocess
import sys

import pytest

from comm import Board, BoardError, fsops
from comm.lease import MACHINE


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
