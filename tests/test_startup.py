"""A one-shot move loads only what it plays with: every ``python -m engine move`` pays its
imports again, so the tournament, the book builder, the loader of one's own strategies and the
standard modules only they need stay out of it.  A fresh interpreter runs the command's ``main``
and lists what it imported; no timing is asserted (bench/startup.py measures it)."""
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Position, oneshot

ROOT = Path(__file__).resolve().parents[1]
NOT_FOR_A_MOVE = ["engine.tournament", "engine.fit", "engine.fit.book", "engine.loader", "engine.nboard",
                  "engine.ownchild", "multiprocessing", "statistics", "platform"]


def imported_by(argv: list[str], stdin: str) -> tuple[int, str, set[str]]:
    """(exit code, stdout, the modules of NOT_FOR_A_MOVE imported) of ``main(argv)`` in a fresh
    interpreter reading ``stdin``."""
    code = ("import contextlib, io, sys\n"
            f"sys.stdin = io.StringIO({stdin!r})\n"
            "out = io.StringIO()\n"
            "from engine.__main__ import main\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    rc = main({argv!r})\n"
            f"print(rc, out.getvalue().strip(), '|', *sorted(m for m in {NOT_FOR_A_MOVE!r} if m in sys.modules))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    answer, _, loaded = r.stdout.partition("|")
    rc, _, move = answer.strip().partition(" ")
    return int(rc), move, set(loaded.split())


def test_a_one_shot_move_of_best_loads_neither_the_tools_nor_the_loader() -> None:
    position = Position.start().play("f5").play("f4").play("e3")
    rc, move, loaded = imported_by(["move", "--ai", "best", "--time", "0.05"], oneshot.format_request(position))
    assert rc == 0 and position.is_legal(oneshot.parse_answer(move, 8)), move
    assert loaded == set(), f"a one-shot move imports {sorted(loaded)}"


def test_the_guard_sees_a_command_that_needs_them() -> None:
    """The same probe on ``book check`` finds the book builder: the guard above can fail."""
    rc, _, loaded = imported_by(["book", "check"], "")
    assert rc == 0
    assert "engine.fit.book" in loaded


def test_output_to_a_reader_that_has_gone_ends_quietly():
    """``python -m engine info | head -1``: the reader closes the pipe; no traceback, exit 1."""
    p = subprocess.Popen([sys.executable, "-m", "engine", "info"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()                    # gone before the first line is written
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 1 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_one_shot_move_counts_its_start_up_in_its_time(monkeypatch, capsys):
    import io
    import time
    from engine import __main__ as cli, strategies
    given = []

    class Clocked(strategies.Greedy):
        def next_move(self, position, time_limit=None):
            given.append(time_limit)
            return super().next_move(position, time_limit)
    monkeypatch.setattr(strategies, "get", lambda name, threads=None, load_limit=None: Clocked())
    request = "1\n4\n0 0 0 0\n0 -1 1 0\n0 1 -1 0\n0 0 0 0\n"
    for started, limit in ((time.monotonic() - 0.4, 1.0), (time.monotonic() - 5.0, 1.0)):
        monkeypatch.setattr(cli, "STARTED", started)
        monkeypatch.setattr("sys.stdin", io.StringIO(request))
        assert cli.main(["move", "--ai", "greedy", "--time", str(limit)]) == 0
    assert 0.01 < given[0] <= 0.6 and given[1] == 0.01      # what the start-up took is not thought with
    assert len(capsys.readouterr().out.splitlines()) == 2       # a move printed each time


@pytest.mark.skipif(sys.platform == "win32", reason="closes the child's streams with preexec_fn (POSIX)")
def test_a_one_shot_move_with_its_output_closed_or_full_says_so_in_one_line():
    """The move's process ends as soon as its answer is out; an answer that cannot be written is
    one error line and exit code 1, and a closed input one line and 2, never a traceback."""
    request = oneshot.format_request(Position.start())
    move = [sys.executable, "-m", "engine", "move", "--ai", "best", "--time", "0.05"]
    closed = subprocess.run(move, cwd=ROOT, input=request.encode(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, timeout=60, preexec_fn=lambda: __import__("os").close(1))
    assert closed.returncode == 1 and closed.stderr.decode().strip() == \
        "error: the move cannot be written: standard output is closed"
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            r = subprocess.run(move, cwd=ROOT, input=request.encode(), stdout=full, stderr=subprocess.PIPE,
                               timeout=60)
        assert r.returncode == 1 and r.stderr.decode().strip().startswith("error: the move cannot be written")
    no_input = subprocess.run(move, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              preexec_fn=lambda: __import__("os").close(0))
    assert no_input.returncode == 2 and b"Traceback" not in no_input.stderr and b"closed" in no_input.stderr
