"""A class on one share, with real processes: players started with ``--share`` all at once pair up
at tables and finish their games, both sides agreeing; the lobby lists every table as its record
says, at an 80x24 terminal and in a window, and opens a live game from there."""
import os
import re
import subprocess
import sys
import time

import pytest

from peer.record import Records
from peer.tables import ENDED, Tables
from peertools import ROOT, default_sigint

PAIRS = 10


def seated(colour, share, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    env.pop("CARDSTAND_SECRET", None)
    return subprocess.Popen([sys.executable, "-m", "peer", "--color", colour, "--share", str(share), "--lang", "en",
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, encoding="utf-8", env=env, cwd=ROOT)


def outcome(out):
    """(the record's path, the end as said) from a player's output."""
    path = re.findall(r"^Game record: (.+)$", out, re.M)
    over = [line for line in out.splitlines() if line.startswith("Game over")]
    return (path[-1] if path else None), (over[-1] if over else None)


def lobby_once(share):
    r = subprocess.run([sys.executable, "-m", "peer", "lobby", "--share", str(share), "--once", "--lang", "en"],
                       capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1"))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_ten_pairs_started_at_once_pair_up_and_the_lobby_lists_every_table(tmp_path):
    share = tmp_path / "class"
    share.mkdir()
    procs = []
    for i in range(PAIRS):      # (black and white interleaved, all at once)
        procs.append(seated("black", share, "--ai", "greedy", "--time", "0.05", "--name", f"b{i}"))
        procs.append(seated("white", share, "--ai", "random", "--time", "0.05", "--name", f"w{i}", "--seed", i))
    results = []
    for p in procs:
        out, _ = p.communicate(timeout=240)
        assert p.returncode == 0, out[-3000:]
        results.append(outcome(out))
    games = {}
    for path, over in results:
        assert path and over, results
        games.setdefault(path, []).append(over)
    assert len(games) == PAIRS and all(len(v) == 2 and v[0] == v[1] for v in games.values()), games
    tables = Tables(share).look()
    # every game is in its table's records (a table whose game ended early may have been taken
    # again by a later pair: the lobby lists its latest game)
    recorded = {str(p) for t in tables for p in (t.folder / "records").glob("*.game")}
    assert recorded == set(games)
    listing = lobby_once(share)
    for t in tables:
        rec = Records(t.folder).current()
        row = next(line for line in listing.splitlines() if f" {t.name} " in line)
        if rec is None:
            assert "free" in row            # a table a white left for a waiting black
            continue
        assert t.state == ENDED and t.there == (False, False)
        b, w = rec.game().position.discs()
        assert f"black {b} - white {w}" in row and rec.black in row and rec.white in row, row
        assert str(Records(t.folder).path(rec.id)) in games


def test_the_lobby_at_a_small_terminal_shows_the_tables_and_opens_a_live_game(tmp_path):
    import pexpect
    share = tmp_path / "class"
    share.mkdir()
    black = seated("black", share, "--ai", "greedy", "--time", "0.05", "--pace", "0.25", "--size", "6", "--name", "Ann")
    white = seated("white", share, "--ai", "random", "--time", "0.05", "--pace", "0.25", "--name", "Bob")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", TERM="xterm")
    env.pop("NO_COLOR", None)
    lobby = pexpect.spawn(sys.executable, ["-m", "peer", "lobby", "--share", str(share), "--lang", "en"], env=env,
                          cwd=str(ROOT), encoding="utf-8", timeout=30, dimensions=(24, 80), preexec_fn=default_sigint)
    try:
        # (a pair started at once sits at table-0001, or, when black does not see white beat in
        # time, at a second table that white then moves to)
        lobby.expect(r"(table-\d{4}) +playing, move \d+ +6x6 +\*Ann \[AI\] +- +\*Bob \[AI\] +\d+:\d\d/\d+:\d\d")
        table = lobby.match.group(1)
        lobby.sendline(table)
        lobby.expect("Watching")
        lobby.expect(r"#\d+ (black|white): [a-f][1-6]")         # a ply as it is played
        lobby.expect(r"Game over: black (\d+) - white (\d+)", timeout=60)
        b, w = lobby.match.group(1), lobby.match.group(2)
        lobby.expect("Back to the lobby")
        lobby.expect(rf"{table} +black {b} - white {w} +6x6 +Ann \[AI\] +- +Bob \[AI\]")
        lobby.sendline("q")
        lobby.expect(pexpect.EOF)
    finally:
        lobby.close(force=True)
        for p in (black, white):
            out, _ = p.communicate(timeout=60)
            assert p.returncode == 0, out[-2000:]


@pytest.mark.slow
def test_the_lobby_window_shows_the_tables_and_opens_a_live_game(tmp_path):
    from windowtools import Driven, start_display
    share = tmp_path / "class"
    share.mkdir()
    proc, display = start_display()
    black = seated("black", share, "--ai", "greedy", "--time", "0.05", "--pace", "0.3", "--size", "6", "--name", "Ann")
    white = seated("white", share, "--ai", "random", "--time", "0.05", "--pace", "0.3", "--name", "Bob")
    lobby = Driven(display, ["-m", "peer", "lobby", "--share", share, "--lang", "en"], tmp_path / "lobby.json",
                   tmp_path / "lobby.out")
    try:
        def playing(s):         # (the table the pair sits at: see the test above)
            return [r[0] for r in s["rows"] if r[1].startswith("playing") and r[3] == "*Ann [AI]" and r[4] == "*Bob [AI]"]
        s = lobby.wait("the table playing", playing)
        table = playing(s)[0]
        x, y, width, height = s["rows_at"][table]
        lx, ly = s["list_at"]
        lobby.click(lx + x + width // 4, ly + y + height // 2, clicks=2)
        s = lobby.wait("the watch window opened", lambda s: s["opened"])
        assert s["opened"][0][:3] == ["watch", "--board", str(share / table)]
        found = subprocess.run(["xdotool", "search", "--sync", "--name", "Othello: watching"], env=lobby.env,
                               capture_output=True, text=True, timeout=30)
        assert found.returncode == 0 and found.stdout.strip()
        for p in (black, white):
            p.communicate(timeout=120)
            assert p.returncode == 0
        lobby.wait("the game's end", lambda s: any(r[0] == table and re.fullmatch(r"black \d+ - white \d+", r[1])
                                                   for r in s["rows"]))
        lobby.proc.terminate()          # (SIGTERM closes the lobby as its Close button does)
        assert lobby.proc.wait(timeout=30) == 0
        deadline = time.monotonic() + 10
        while subprocess.run(["xdotool", "search", "--name", "Othello: watching"], env=lobby.env,
                             capture_output=True, timeout=30).stdout.strip():
            assert time.monotonic() < deadline, "the watch window the lobby opened is still open"
            time.sleep(0.2)
    finally:
        for p in (black, white, lobby.proc):
            if p.poll() is None:
                p.kill()
        proc.terminate()
        proc.wait()
