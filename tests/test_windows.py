"""Our code on Windows' own Python (the embeddable CPython 3.13 for Windows, under Wine): part of the
test suite run there, games with one side on Windows and the other on Linux through the same folder,
either side killed and started again, the C peer built for Windows, the kit against a Windows player.

Skipped, saying why, where Wine or the prepared interpreter is missing (tests/winpython.py sets it
up; docs/windows.md says what this covers and what only a real Windows machine can show).
"""
import io
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import conformance
import kitruns
import winpython
from peer.record import Records
from peertools import final_line, finish, player, plies, wait_for

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "peer" / "sample-programs"
pytestmark = pytest.mark.xdist_group("windows")   # one worker: one Wine server, no two suites at once

# The test files run on Windows' Python as they are (each is also part of the Linux run), in two
# processes at once: the lock's tests mostly wait out its clocks.
SUITE = [["test_comm_lock.py"],
         ["test_comm_hostlock.py", "test_comm_api.py", "test_comm_fsops.py", "test_comm_ack.py", "test_othellotool.py", "test_position.py",
          "test_files.py", "test_comm_garbage.py", "test_board_folder.py"]]
# Files that pass on Windows' Python but do not fit the test run's fifteen minutes yet: they run when
# asked (CARDSTAND_WINDOWS_SLOW=1, docs/windows.md).  test_peer_restart.py and test_peer_records.py
# took 130-140 s under Wine alone, test_comm_procs.py 225 s and test_peer_games.py 121 s; test_own_ai.py
# took 52 s, and the run's own suite from 32 s to 64 s (pytest 784-853 s in three runs of the whole
# suite on 2026-11-29, against 768 s without it).
SLOW_SUITE = [["test_comm_procs.py"], ["test_peer_restart.py", "test_own_ai.py"], ["test_peer_records.py", "test_peer_games.py"]]
WHEN_ASKED = pytest.mark.skipif(os.environ.get("CARDSTAND_WINDOWS_SLOW") != "1",
                                reason="slow under Wine: set CARDSTAND_WINDOWS_SLOW=1 (docs/windows.md)")


@pytest.fixture(scope="module")
def win():
    why = winpython.missing()
    if why:
        pytest.skip(why)
    winpython.start_server()
    return winpython


def windows_player(colour, board, *args):
    """``black.py``/``white.py`` on Windows' Python, on ``board`` named as Windows names it."""
    return winpython.popen(winpython.windows_path(ROOT / f"{colour}.py"), "--board", winpython.windows_path(board),
                           "--lang", "en", *map(str, args))


def test_it_is_windows_python_that_runs(win):
    proc = win.run("-c", "import os, sys, engine.backend as b; print(os.name, sys.platform, b.compiled is None)")
    assert proc.returncode == 0 and proc.stdout.split() == ["nt", "win32", "True"], proc.stdout


def test_commands_are_split_into_words_as_windows_names_paths(win):
    """A program's path with spaces is quoted, its backslashes are no escapes."""
    code = ("from engine.cliargs import command_words; "
            "print(command_words(r'\"C:\\Program Files\\my peer.exe\" play --board Z:\\tmp\\b'))")
    proc = win.run("-c", code)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.strip() == repr(["C:\\Program Files\\my peer.exe", "play", "--board", "Z:\\tmp\\b"]), proc.stdout


def test_the_engine_counts_right_on_windows(win):
    proc = win.run("-m", "engine", "perft", "6")
    assert proc.returncode == 0 and "pure-python core" in proc.stdout, proc.stdout
    assert [line.split()[2] for line in proc.stdout.splitlines() if line.startswith("depth")] == ["8,200"], proc.stdout
    assert proc.stdout.rstrip().endswith("ok"), proc.stdout


def windows_suite(win, tmp_path, groups):
    """Test files run unchanged on Windows' Python, each group in a process of its own, at once."""
    import concurrent.futures
    def suite(i, names):
        files = [winpython.windows_path(ROOT / "tests" / f) for f in names]
        return win.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-ra", "--timeout=300",
                       "--basetemp", winpython.windows_path(tmp_path / f"t{i}"), *files, timeout=900)
    with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
        procs = list(pool.map(suite, range(len(groups)), groups))
    for proc in procs:
        tail = proc.stdout[-4000:]
        assert proc.returncode == 0, tail
        assert " passed" in tail and " failed" not in tail and " error" not in tail, tail


def test_the_windows_suite_passes_on_windows_python(win, tmp_path):
    """These tests, unchanged, on Windows' Python: comm on its portable root with Windows' rules
    for locks, renames and open files; the helpers of the tutorial; records and folders."""
    windows_suite(win, tmp_path, SUITE)


@WHEN_ASKED
def test_the_slow_windows_suite_passes_on_windows_python(win, tmp_path):
    """Kills and restarts of both players on Windows' Python (the last ply, a resignation, a new
    game asked for, another size refused, one live run per colour), attacks on the game record
    while they are away (a forged end, a rewritten history, a ply nobody sent, signed records),
    and one's own AI in its child process."""
    windows_suite(win, tmp_path, SLOW_SUITE)


@pytest.mark.parametrize("windows_side", ["black", "white"])
def test_a_game_with_one_side_on_windows(win, tmp_path, windows_side):
    board = tmp_path / "b"
    linux_side = "white" if windows_side == "black" else "black"
    # on Windows: a built-in AI as black; as white, one's own AI (a sample file), in its child process
    ai = "random" if windows_side == "black" else winpython.windows_path(SAMPLES / "first_ai.py") + ":FirstAI"
    procs = {windows_side: windows_player(windows_side, board, "--ai", ai, "--seed", 1),
             linux_side: player(linux_side, board, "--ai", "greedy", "--seed", 2)}
    try:
        results = {c: finish(procs[c], timeout=240) for c in ("black", "white")}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    (rb, ob), (rw, ow) = results["black"], results["white"]
    assert rb == 0 and rw == 0, (ob[-800:], ow[-800:])
    assert final_line(ob) == final_line(ow) is not None, (ob[-500:], ow[-500:])
    rec = Records(board).current()
    assert rec is not None and rec.status == "over"
    assert Records(board).acknowledged(rec.id, "black") and Records(board).acknowledged(rec.id, "white")
    if windows_side == "white":
        said = ow
        assert "FirstAI" in said and "greedy" not in said.split("FirstAI", 1)[1].split("\n", 1)[0], said[-1500:]
    if windows_side == "black":
        replaying_a_record_on_windows(board, Records(board).path(rec.id))


def replaying_a_record_on_windows(board, path):
    """The record replays on Windows as on Linux; a folder named instead gets its one-line reason;
    and a reader that stops early (``| more``, a closed pipe: EINVAL on Windows) gets no traceback."""
    proc = winpython.run("-m", "peer", "replay", winpython.windows_path(path), "--lang", "en")
    here = subprocess.run([sys.executable, "-m", "peer", "replay", str(path), "--lang", "en"], capture_output=True,
                          text=True, encoding="utf-8", env=dict(os.environ, NO_COLOR="1"), cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout == here.stdout and "over (" in proc.stdout, proc.stdout[-800:]
    proc = winpython.run("-m", "peer", "replay", winpython.windows_path(board), "--lang", "en")
    assert proc.returncode != 0 and "a folder, not a game record" in proc.stdout, proc.stdout[-800:]
    assert "Traceback" not in proc.stdout, proc.stdout[-800:]
    early = winpython.popen("-m", "peer", "replay", winpython.windows_path(path), "--lang", "en",
                            stderr=subprocess.PIPE)
    early.stdout.readline()
    early.stdout.close()
    errors = early.stderr.read()
    assert early.wait(timeout=60) in (0, 1) and "Traceback" not in errors, errors[-2000:]


def killed_and_started_again(board, windows_side):
    """A paced game, one side on each system: the Windows side killed after 8 plies and started
    again, then the Linux side after 24; the exit code and output of black and of white."""
    linux_side = "white" if windows_side == "black" else "black"
    slow = ["--ai", "random", "--pace", "0.05"]
    start = {windows_side: lambda seed: windows_player(windows_side, board, *slow, "--seed", seed),
             linux_side: lambda seed: player(linux_side, board, *slow, "--seed", seed)}
    procs = {c: start[c](n) for n, c in enumerate(("black", "white"), 1)}
    try:
        for victim, at in ((windows_side, 8), (linux_side, 24)):
            wait_for(lambda: plies(board) >= at, 240, f"{at} plies ({windows_side} on Windows)")
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].communicate(timeout=60)
            procs[victim] = start[victim](at)
        return finish(procs["black"], timeout=300), finish(procs["white"], timeout=300)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()


def test_either_side_killed_and_started_again_across_the_two_systems(win, tmp_path):
    """In both colours (the two games at once, on boards of their own): the Windows side is killed
    mid-game and started again, then the Linux side; the game goes on where it was and ends the same
    on both sides, acknowledged by both."""
    from concurrent.futures import ThreadPoolExecutor
    boards = {side: tmp_path / f"windows-{side}" for side in ("black", "white")}
    with ThreadPoolExecutor(2) as pool:
        games = {side: pool.submit(killed_and_started_again, board, side) for side, board in boards.items()}
        results = {side: game.result() for side, game in games.items()}
    for side, ((rb, ob), (rw, ow)) in results.items():
        board = boards[side]
        assert rb == 0 and rw == 0, (side, ob[-800:], ow[-800:])
        assert final_line(ob) == final_line(ow) is not None, (side, ob[-500:], ow[-500:])
        rec = Records(board).current()
        assert rec is not None and rec.status == "over" and plies(board) > 24, side
        assert Records(board).acknowledged(rec.id, "black") and Records(board).acknowledged(rec.id, "white"), side


def test_a_match_of_two_engines_runs_on_windows(win):
    """bench/sprt.py starts its engines through the system's shell: on Windows cmd.exe, which takes no
    POSIX quotes."""
    proc = win.run(winpython.windows_path(ROOT / "bench" / "sprt.py"), "--ai-a", "random", "--ai-b", "greedy",
                   "--time", "0.02", "--min-games", "2", "--max-games", "2", "--workers", "1")
    assert proc.returncode == 0 and "forfeits: 0" in proc.stdout, proc.stdout[-1500:]
    assert "cardstand-random, " in proc.stdout and "cardstand-greedy, " in proc.stdout, proc.stdout[-1500:]


MINGW = shutil.which("x86_64-w64-mingw32-gcc")

# Wine shows a link made on Linux as what it points to: the kit's planted links cannot be seen as
# links from Windows' Python there (docs/windows.md)
UNSEEN_UNDER_WINE = {"s_links"}


def c_peer_for_windows(tmp):
    exe = tmp / "minimal.exe"
    built = subprocess.run([MINGW, "-std=c99", "-O2", "-o", str(exe), str(ROOT / "interop" / "c" / "minimal.c")],
                           capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    out = io.StringIO()
    results = conformance.run(f"{winpython.wine()} {exe}", base=tmp / "boards", stream=out, profile="minimal",
                              jobs=8)      # (all at once: they wait on the protocol's clocks)
    return results, out.getvalue()


def our_player_on_windows(profile):
    def run(tmp):
        own = [f"{k}={v}" for k, v in winpython.environment().items() if k.startswith("PYTHON")]
        py = shlex.join(["env", *own, *winpython.command()])      # (Windows' Python's settings: its own only)
        names = [fn.__name__[2:] for fn in conformance.PROFILES[profile] if fn.__name__ not in UNSEEN_UNDER_WINE]
        out = io.StringIO()
        results = conformance.run(f"{py} -m comm", f"{py} -m peer play --ai random", base=tmp / "boards",
                                  stream=out, profile=profile, only=names, jobs=8)
        return names, results, out.getvalue()
    return run


# The full profile starts 91 Windows processes: alone it took 82 s under Wine (whose server, not the
# protocol's clocks, is the bound).  In the test run (2026-11-29, two cores) it took pytest from 792 s
# to 854 s, and under that load a Windows white of game_secret did not join in time.  It runs when
# asked (WHEN_ASKED, docs/windows.md).

# The kit's runs against Windows, side by side (tests/kitruns.py): one after another the minimal
# profile took 29 s and the C peer's 14 s, mostly waiting on the protocol's clocks.
kit_runs = kitruns.side_by_side({
    "test_the_c_peer_built_for_windows_passes_the_minimal_profile": c_peer_for_windows,
    "test_the_kit_passes_our_player_on_windows[minimal]": our_player_on_windows("minimal"),
    "test_the_kit_passes_our_player_on_windows[full]": our_player_on_windows("full")}.get)


@pytest.fixture(scope="module")
def wine_environment(win):
    """Wine's settings for the programs the kit starts."""
    with pytest.MonkeyPatch.context() as mp:
        for k, v in winpython.environment().items():
            if k.startswith("WINE"):
                mp.setenv(k, v)
        yield


@pytest.mark.skipif(MINGW is None, reason="no mingw-w64 C compiler (Debian: gcc-mingw-w64-x86-64-win32)")
def test_the_c_peer_built_for_windows_passes_the_minimal_profile(win, wine_environment, kit_runs, request):
    results, text = kit_runs(request)
    assert results and all(ok for _, _, ok, _ in results), text


@pytest.mark.parametrize("profile", ["minimal", pytest.param("full", marks=WHEN_ASKED)])
def test_the_kit_passes_our_player_on_windows(win, wine_environment, kit_runs, request, profile):
    """The kit's profiles, with our comm tool and player on Windows' Python as the peer under test."""
    names, results, text = kit_runs(request)
    assert len(results) == len(names) and all(ok for _, _, ok, _ in results), text
