"""The compiled Searcher: several threads, a hash table kept between calls, stop(), pondering,
and the solver's best estimate under a time limit."""
import json
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import Position, backend, strategies
from engine.__main__ import main
from peertools import default_sigint

pytestmark = pytest.mark.skipif(backend.compiled is None, reason="compiled core not built")
compiled = backend.compiled
FFO = Path(__file__).parent / "data" / "fforum-1-19.obf"


def random_position(rng, empties):
    while True:
        p = Position.start()
        while p.empties() > empties and not p.is_game_over():
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else -1)
        if not p.is_game_over() and p.legal_moves():
            return p


def ffo(n):
    board, rest = FFO.read_text().splitlines()[n - 1].split(";", 1)
    return Position.from_text(board.strip()), max(int(x.split(":")[1]) for x in rest.split(";") if ":" in x)


def test_two_threads_solve_ffo_exactly():
    for n in (1, 5, 9, 14, 19):
        p, best = ffo(n)
        score, move, nodes, complete = compiled.solve(8, p.player, p.opponent, threads=2)
        assert complete and score == best, n
        after = p.play(move)
        assert -compiled.solve(8, after.player, after.opponent)[0] == best, n


def test_one_searcher_many_positions_agrees_with_fresh_solves():
    """The kept hash table (entries of earlier searches, both kinds) never changes a result."""
    rng = random.Random(15)
    shared = compiled.Searcher(12, 2)  # a small table: many entries of other positions collide
    for k in range(12):
        p = random_position(rng, 14 + k % 5)
        shared.search(8, p.player, p.opponent, 6, 0.0, "full")  # midgame entries of the same positions
        fresh = compiled.solve(8, p.player, p.opponent)
        kept = shared.solve(8, p.player, p.opponent)
        assert fresh[0] == kept[0] and kept[3]
        window = shared.solve(8, p.player, p.opponent, 0.0, -1, 1)
        assert (window[0] > 0) == (fresh[0] > 0) and (window[0] < 0) == (fresh[0] < 0)


def test_threads_agree_with_the_pure_python_solver():
    rng = random.Random(21)
    saved = strategies.compiled
    for _ in range(4):
        p = random_position(rng, 9)
        c = compiled.solve(8, p.player, p.opponent, threads=2)
        try:
            strategies.compiled = None
            pure = strategies.solve(p)
        finally:
            strategies.compiled = saved
        assert c[0] == pure[0] and c[3]


def test_a_kept_table_makes_the_second_solve_cheaper():
    p, best = ffo(19)
    s = compiled.Searcher(20, 1)
    first = s.solve(8, p.player, p.opponent)
    second = s.solve(8, p.player, p.opponent)
    assert first[0] == second[0] == best
    assert second[2] < first[2] / 10


def test_stop_ends_an_unlimited_search_and_holds_until_cleared():
    s = compiled.Searcher(18, 2)
    p = Position.start().play("f5").play("d6")
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("r", s.search(8, p.player, p.opponent, 60, 0.0,
                                                                               "full")))
    worker.start()
    time.sleep(0.3)
    t = time.monotonic()
    s.stop()
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - t < 1.0
    score, move, nodes, depth = result["r"]
    assert depth >= 1 and p.is_legal(move)
    assert s.search(8, p.player, p.opponent, 60, 5.0, "full")[3] == 0  # still stopped
    s.clear_stop()
    assert s.search(8, p.player, p.opponent, 3, 5.0, "full")[3] == 3


def test_bad_arguments():
    with pytest.raises(ValueError):
        compiled.Searcher(20, 0)
    with pytest.raises(ValueError):
        compiled.Searcher(5, 1)
    with pytest.raises(ValueError):
        compiled.Searcher(16, 1).search(8, 0, 0, 0)


def test_best_ponders_and_stops_at_once():
    ai = strategies.get("best", threads=2, seed=1)
    p = random_position(random.Random(5), 36)
    ai.ponder(p)
    time.sleep(0.3)
    t = time.monotonic()
    move = ai.next_move(p, 0.2)  # stops pondering first
    assert p.is_legal(move) and time.monotonic() - t < 0.5
    ai.ponder(p.play(move))
    ai.stop_pondering()
    ai.stop_pondering()  # twice: nothing left to stop
    ai.ponder(Position.from_text("X" * 64 + " X"))  # over: nothing to think about
    ai.stop_pondering()


def test_solve_within_exact_or_a_flagged_estimate():
    p, best = ffo(1)
    score, move, nodes, exact = strategies.solve_within(p, 5.0, threads=2)
    assert exact and score == best
    hard = random_position(random.Random(2), 34)
    score, move, nodes, exact = strategies.solve_within(hard, 0.2, threads=2)
    assert not exact and hard.is_legal(move) and -64 <= score <= 64


def test_solve_cli_time_and_threads(capsys):
    hard = random_position(random.Random(2), 34).text()
    assert main(["solve", hard, "--time", "0.2", "--threads", "2", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["exact"] is False and obj["complete"] is False and isinstance(obj["score"], int)
    assert main(["solve", hard, "--time", "0.2"]) == 0
    assert "estimate" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["solve", hard, "--threads", "0"])
    assert "threads must be" in capsys.readouterr().err
    assert main(["nboard", "--ai", "greedy", "--threads", "2"]) == 2     # it would not use them
    assert "--threads is for --ai best, not greedy" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_a_long_solve_at_once(capsys):
    hard = random_position(random.Random(2), 34).text()
    proc = subprocess.Popen([sys.executable, "-m", "engine", "solve", hard, "--threads", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1], preexec_fn=default_sigint)
    try:
        time.sleep(1.5)   # started and searching
        t = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()       # never leave a solve of 34 empties running
        proc.wait()
    assert proc.returncode == 130 and time.monotonic() - t < 2.0
    assert "interrupted" in err and "Traceback" not in err


CTRL_C_LOOP = """
import os, random, signal, sys, threading, time
from engine import Position, _core
rng = random.Random(5)
positions = []
for empties in (30, 24, 16):
    for _ in range(20):
        p = Position.start()
        while p.empties() > empties and not p.is_game_over():
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else -1)
        if p.legal_moves():
            positions.append((p.player, p.opponent))
mine = []
for trial in range(60):
    if trial == 30:     # the program's own handler (as the players have): called, once the threads have ended
        signal.signal(signal.SIGINT, lambda s, f: mine.append(s) or sys.exit(130))
    timer = threading.Timer(rng.uniform(0.002, 0.03), os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()   # (inside: on a loaded machine the signal can come before the next line)
        for i in range(10 ** 6):
            P, O = positions[i % len(positions)]
            if bin(P | O).count("1") >= 48:
                _core.solve(8, P, O)
            else:
                _core.search(8, P, O, 5, 0.0, "simple", 12, 1 + i % 2)
    except (KeyboardInterrupt, SystemExit):
        pass
    timer.join()
    running = [t.name for t in threading.enumerate() if "_helper" in t.name]
    assert not running, (trial, running)
assert len(mine) == 30 and signal.getsignal(signal.SIGINT) is not signal.default_int_handler
print("ok")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT sent to itself is POSIX")
def test_a_ctrl_c_ends_every_thread_of_the_search_before_it_is_passed_on():
    """CPython 3.11's Thread.join, interrupted by KeyboardInterrupt, may take a running thread for
    stopped: the search's memory was freed under its threads, and an interrupted labelling run
    died with a segmentation fault in 2 runs of 5 (exit -11 after 'interrupted')."""
    proc = subprocess.run([sys.executable, "-c", CTRL_C_LOOP], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1], preexec_fn=default_sigint)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stdout, proc.stderr[-2000:])


def test_times_that_are_not_a_limit_are_refused(capsys):
    p = Position.start()
    for bad in ("-1", "nan", "0", "abc"):
        with pytest.raises(SystemExit):
            main(["solve", p.text(), "--time", bad])
        assert "argument --time: must be a number of seconds above 0" in capsys.readouterr().err
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError):
            compiled.Searcher(12, 1).search(8, p.player, p.opponent, 3, bad)
        with pytest.raises(ValueError):
            compiled.Searcher(12, 1).solve(8, p.player, p.opponent, bad)


def test_impossible_positions_are_refused():
    """Masks that overlap or reach past the board would search nonsense (or for ever)."""
    p = Position.start()
    s = compiled.Searcher(10, 2)
    for size, P, O in ((8, p.player, p.player), (6, p.player, p.opponent), (8, -1, 0)):
        with pytest.raises(ValueError):
            s.solve(size, P, O, 1.0)
        with pytest.raises(ValueError):
            s.search(size, P, O, 3, 1.0)
