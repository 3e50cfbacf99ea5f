"""bench/sprt.py: the SPRT statistics, the balanced openings and small matches of NBoard engines."""
import importlib.util
import io
import math
import sys
from pathlib import Path

import pytest

from engine import Game
from peertools import default_sigint

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("sprt", ROOT / "bench" / "sprt.py")
sprt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sprt)

PY = sys.executable
FAKE = Path(__file__).resolve().parent / "fake_nboard.py"


def nboard(ai, seconds=0.05):
    return f"{PY} -m engine nboard --ai {ai} --time {seconds}"


def fake(mode):
    return f"{PY} {FAKE} {mode}"


def match(*argv):
    out = io.StringIO()
    code = sprt.main([*argv, "--cwd-a", str(ROOT), "--cwd-b", str(ROOT)], out)
    return code, out.getvalue()


# -- statistics ---------------------------------------------------------------

def test_llr_known_values():
    # the published GSPRT figure for W 4307, D 8620, L 4063 at [0, 3]: LLR 2.99
    assert sprt.llr(4307, 8620, 4063, 0, 3) == pytest.approx(2.9922, abs=1e-4)
    # by hand: W 100 D 50 L 50: s = 0.625, v = .5*.375^2 + .25*.625^2 + .25*.125^2 = 0.171875,
    # s0 = 0.5, s1 = 1/(1+10^(-1/20)) = 0.5287510; LLR = 0.028751 * 0.221249 / (2 * 0.171875 / 200)
    assert sprt.llr(100, 50, 50, 0, 20) == pytest.approx(3.70097, abs=1e-4)
    # the mirror result is as much evidence for H0 on the mirrored hypotheses
    assert sprt.llr(50, 50, 100, -20, 0) == pytest.approx(-sprt.llr(100, 50, 50, 0, 20))
    # a score halfway between s0 and s1 favours neither
    assert sprt.llr(10, 0, 10, -20, 20) == pytest.approx(0.0)
    assert sprt.llr(0, 0, 0, 0, 20) == 0.0
    assert sprt.llr(0, 7, 0, 0, 20) == 0.0  # no spread: no evidence either way


def test_llr_on_game_pairs_known_values():
    # fastchess's test figures for its logistic pentanomial GSPRT: -3.07 and -4.98
    assert sprt.llr_pentanomial([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5) == pytest.approx(-3.0743, abs=1e-3)
    assert sprt.llr_pentanomial([871, 26175, 55003 + 980, 26678, 821], 0, 2) == pytest.approx(-4.9782, abs=1e-3)
    assert sprt.llr_pentanomial([0, 0, 0, 0, 0], 0, 20) == 0.0
    # a clean sweep is evidence (it was none: no spread, and a match of losses never ended)
    lo, hi = sprt.sprt_bounds(0.05, 0.05)
    assert sprt.llr_pentanomial([10, 0, 0, 0, 0], 0, 20) < lo and sprt.llr_pentanomial([0, 0, 0, 0, 10], 0, 20) > hi
    assert sprt.llr_pentanomial([0, 0, 7, 0, 0], 0, 20) < 0      # all even: not 20 Elo stronger
    # pairs that are alike (each opening won by the side that had it right): the same score as the
    # games', a smaller variance, more evidence
    assert sprt.llr_pentanomial([0, 0, 10, 0, 10], 0, 20) > 1.4 * sprt.llr(30, 0, 10, 0, 20) > 0


def test_a_match_counts_its_pairs_and_decides_sooner_than_on_games(monkeypatch):
    """A wins both games of one opening, then wins one and loses one: the pentanomial test accepts
    H1 on fewer games than the trinomial one would have (which sees only 3 wins to 1 loss)."""
    played = []

    def made_up(black, white, *args, **kw):
        played.append(1)
        a_black, pair = len(played) % 2 == 1, (len(played) - 1) // 2
        a_wins = a_black or pair % 2 == 0
        diff = 10 if a_wins else -10
        return {"game": None, "diff": diff if a_black else -diff, "forfeit": None, "abandoned": False}

    monkeypatch.setattr(sprt, "play_game", made_up)
    m = sprt.Match(_Idle(), _Idle(), ["f5d6c3d3c4f4f6f3"], 0.5, 2.0, 0, 40, 0.05, 0.05, max_games=400,
                   out=io.StringIO(), min_games=0)
    result = m.run()
    w, d, l = result["wins"], result["draws"], result["losses"]
    assert result["decision"].startswith("H1 accepted") and result["pentanomial"][0:2] == [0, 0]
    assert sprt.llr(w, d, l, 0, 40) < m.upper       # the games alone had not decided yet


def test_a_killed_match_with_a_journal_resumes_to_the_result_of_one_never_killed(tmp_path):
    import signal
    import subprocess
    import time
    script = ROOT / "bench" / "sprt.py"

    def command(journal):
        return [sys.executable, str(script), "--ai-a", "greedy", "--ai-b", "table", "--time", "0.01",
                "--max-games", "8", "--min-games", "8", "--journal", str(journal)]

    def verdict(out):
        return [line for line in out.splitlines() if line.startswith(("result", "games", "LLR", "colours"))]

    whole = subprocess.run(command(tmp_path / "whole"), capture_output=True, text=True, timeout=300)
    assert whole.returncode == 0, whole.stdout[-800:] + whole.stderr[-800:]
    p = subprocess.Popen(command(tmp_path / "killed"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (tmp_path / "killed" / "job-000000.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    again = subprocess.run(command(tmp_path / "killed"), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout[-800:] + again.stderr[-800:]
    assert "taken from the journal" in again.stdout
    assert verdict(again.stdout) == verdict(whole.stdout) and verdict(whole.stdout), (whole.stdout, again.stdout)
    done = subprocess.run(command(tmp_path / "whole"), capture_output=True, text=True, timeout=300)
    assert "pairs  : 4, " in done.stdout and "4 taken from the journal" in done.stdout
    assert verdict(done.stdout) == verdict(whole.stdout)
    other = subprocess.run(command(tmp_path / "whole")[:-4] + ["--max-games", "10", "--journal", str(tmp_path / "whole")],
                           capture_output=True, text=True, timeout=300)
    assert other.returncode == 2 and "journal of another run" in other.stdout, other.stdout[-500:]


def test_bounds_and_elo():
    lo, hi = sprt.sprt_bounds(0.05, 0.05)
    assert (lo, hi) == pytest.approx((-math.log(19), math.log(19)))
    assert hi == pytest.approx(2.9444, abs=1e-4)
    assert sprt.sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    e, err = sprt.elo_estimate(30, 40, 30)
    assert e == pytest.approx(0.0) and 0 < err < 100
    e, _ = sprt.elo_estimate(3, 0, 1)
    assert e == pytest.approx(400 * math.log10(3))


# -- openings -----------------------------------------------------------------

def test_symmetric_positions_share_a_key():
    key = sprt.canonical(Game.from_transcript("f5").position)
    assert all(sprt.canonical(Game.from_transcript(m).position) == key for m in ("d3", "c4", "e6"))
    assert sprt.canonical(Game.from_transcript("f5d6").position) != sprt.canonical(
        Game.from_transcript("f5f6").position)


def test_opening_generator_is_deterministic():
    first = sprt.make_openings(4, plies=6, seed=7, depth=3, max_abs=3.0)
    assert first == sprt.make_openings(4, plies=6, seed=7, depth=3, max_abs=3.0)
    assert first != sprt.make_openings(4, plies=6, seed=8, depth=3, max_abs=3.0)
    keys = {sprt.canonical(Game.from_transcript(t).position) for t, _ in first}
    assert len(keys) == 4
    assert all(abs(v) <= 3.0 and len(Game.from_transcript(t).moves) == 6 for t, v in first)


def test_shipped_openings_are_legal_balanced_and_distinct():
    lines = [line for line in (ROOT / "bench" / "openings.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    openings = sprt.read_openings(ROOT / "bench" / "openings.txt")
    assert len(openings) == len(lines) >= 100
    keys = set()
    for text, line in zip(openings, lines):
        g = Game.from_transcript(text)
        assert 6 <= len(g.moves) <= 8 and not g.position.is_game_over()
        assert abs(float(line.split("#")[1])) <= 2.0
        keys.add(sprt.canonical(g.position))
    assert len(keys) == len(openings)


# -- matches --------------------------------------------------------------------

def test_tiny_match_of_two_engines(tmp_path):
    ggf = tmp_path / "games.ggf"
    code, out = match("--engine-a", nboard("greedy"), "--engine-b", nboard("random"), "--time", "0.05",
                      "--max-games", "2", "--ggf-out", str(ggf))
    assert code == 0, out
    assert "result : stopped at --max-games 2" in out
    summary = out.split("=== summary")[1]
    assert "games  : 2, A " in summary and "forfeits: 0" in summary
    assert "engine A: cardstand-greedy" in summary and "engine B: cardstand-random" in summary
    assert "LLR    : " in summary and "command: python bench/sprt.py --engine-a" in summary
    games = ggf.read_text().splitlines()
    assert len(games) == 2
    g0, g1 = (Game.from_ggf(g) for g in games)
    assert g0.position.is_game_over() and g1.position.is_game_over()
    assert g0.moves[:8] == g1.moves[:8]  # one opening, both colours
    assert "PB[A:cardstand-greedy]" in games[0] and "PB[B:cardstand-random]" in games[1]


def test_an_illegal_move_loses(tmp_path):
    code, out = match("--engine-a", fake("illegal"), "--engine-b", nboard("greedy"), "--time", "0.05",
                      "--max-games", "2", "--ggf-out", str(tmp_path / "g.ggf"))
    assert code == 0, out
    assert "A 0-0-2" in out
    assert out.count("FORFEIT by A: illegal move 'D4'") == 2
    assert "forfeits: 2" in out
    assert all(":r]" in g for g in (tmp_path / "g.ggf").read_text().splitlines())


def test_a_long_illegal_move_is_shown_cut_short(tmp_path):
    code, out = match("--engine-a", fake("long"), "--engine-b", nboard("greedy"), "--time", "0.05",
                      "--max-games", "2")
    assert code == 0 and out.count("FORFEIT by A: illegal move '" + "A" * 40 + "...'") == 2, out[:2000]
    assert len(out) < 5000      # (each forfeit line held the engine's whole answer)


def test_files_and_folders_that_cannot_serve_are_refused_before_the_match(tmp_path, capsys):
    """--ggf-out and --cwd-a/-b used to fail with a traceback after the first game (or append
    games to the openings file, or to any file)."""
    blob = tmp_path / "weights.bin.gz"
    blob.write_bytes(b"\x1f\x8b\x08\x00binary")
    openings = tmp_path / "op.txt"
    openings.write_text((ROOT / "bench" / "openings.txt").read_text())
    cases = [(["--ggf-out", str(tmp_path / "missing" / "g.ggf")], "its folder does not exist"),
             (["--ggf-out", str(tmp_path)], "a folder"),
             (["--ggf-out", str(openings), "--openings", str(openings)], "the openings file"),
             (["--ggf-out", str(blob)], "not a file of GGF games"),
             (["--cwd-a", str(tmp_path / "nowhere")], "--cwd-a"),
             (["--cwd-b", str(blob)], "--cwd-b"),
             (["--openings", str(blob)], "not a text file of openings"),
             (["--workers", "1000"], "at most 256"), (["--time", "inf"], "--time"),
             (["--elo1", "1e309"], "finite"), (["--alpha", "nan"], "finite")]
    for extra, why in cases:
        with pytest.raises(SystemExit) as e:
            sprt.main(["--ai-a", "greedy", "--ai-b", "random", "--time", "0.01", "--max-games", "2", *extra],
                      io.StringIO())
        assert e.value.code == 2
        assert why in capsys.readouterr().err, extra
    assert blob.read_bytes() == b"\x1f\x8b\x08\x00binary"
    assert openings.read_text() == (ROOT / "bench" / "openings.txt").read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes and /dev/zero are POSIX's")
def test_an_openings_file_that_is_a_pipe_or_a_device_is_refused_without_being_read(tmp_path, capsys):
    """A FIFO hung the match before it began, a link to /dev/zero ended in a MemoryError traceback."""
    import os
    os.mkfifo(tmp_path / "fifo.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    for name in ("fifo.txt", "zero.txt"):
        with pytest.raises(SystemExit) as e:
            sprt.main(["--ai-a", "greedy", "--ai-b", "random", "--time", "0.01", "--max-games", "2",
                       "--openings", str(tmp_path / name)], io.StringIO())
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "not a file of openings: it is not a regular file" in err and "Traceback" not in err, err


def test_a_crash_or_a_silence_loses_and_the_engine_is_started_again():
    code, out = match("--engine-a", nboard("greedy"), "--engine-b", fake("crash"), "--time", "0.05",
                      "--max-games", "2")
    assert code == 0, out
    assert "A 2-0-0" in out and out.count("FORFEIT by B: crash") == 2
    assert "started 2 time(s)" in out.split("engine B:")[1]
    code, out = match("--engine-a", fake("silent"), "--engine-b", nboard("greedy"), "--time", "0.05",
                      "--timeout", "0.3", "--max-games", "2")
    assert code == 0, out
    assert "B 0-0-2" not in out and "A 0-0-2" in out and out.count("FORFEIT by A: timeout") == 2



@pytest.mark.parametrize("where", [["--workers", "2"], ["--cluster", "local:2"]])
def test_a_match_spread_over_processes_or_a_cluster_counts_whole_pairs(tmp_path, where):
    if where[0] == "--cluster":
        pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    ggf = tmp_path / "games.ggf"
    code, out = match("--engine-a", nboard("greedy"), "--engine-b", nboard("random"), "--time", "0.05",
                      "--max-games", "4", "--ggf-out", str(ggf), *where)
    assert code == 0, out
    assert "game pairs on " + ("2 local processes" if where[0] == "--workers" else "local:2") in out
    summary = out.split("=== summary")[1]
    assert "result : stopped at --max-games 4" in summary and "games  : 4, A " in summary
    assert "engine A: cardstand-greedy" in summary and "started 2 time(s)" in summary
    games = [Game.from_ggf(g) for g in ggf.read_text().splitlines()]
    assert len(games) == 4 and all(g.position.is_game_over() for g in games)
    openings = sorted(g.moves[:8] for g in games)
    assert openings[0] == openings[1] and openings[2] == openings[3]   # each pair: one opening, both colours
    code, out = match("--engine-a", fake("crash"), "--engine-b", nboard("greedy"), "--time", "0.05",
                      "--max-games", "2", *where)
    assert code == 0 and "A 0-0-2" in out and out.count("FORFEIT by A: crash") == 2, out


class _Idle:
    """An engine for a match whose games are made up (play_game replaced)."""
    name, label, command, cwd, starts = "idle", "I", "idle", None, 1

    def start(self):
        pass

    def ask_to_quit(self):
        pass

    def stop(self, graceful=True, until=None):
        pass


@pytest.mark.parametrize("min_games, decided_at", [(0, 2), (10, 10)])
def test_no_decision_before_min_games(monkeypatch, min_games, decided_at):
    """One pair, a win and a draw, already passes the upper bound (the variance estimate is tiny);
    --min-games holds the decision back."""
    played = []

    def made_up(black, white, *args, **kw):
        played.append(1)
        a_black = len(played) % 2 == 1
        diff = 0 if len(played) == 2 else 10      # A wins every game but the second, a draw
        return {"game": None, "diff": diff if a_black else -diff, "forfeit": None, "abandoned": False}

    monkeypatch.setattr(sprt, "play_game", made_up)
    m = sprt.Match(_Idle(), _Idle(), ["f5d6c3d3c4f4f6f3"], 0.5, 2.0, 0, 40, 0.05, 0.05, max_games=30,
                   out=io.StringIO(), min_games=min_games)
    result = m.run()
    assert result["games"] == decided_at and result["decision"].startswith("H1 accepted")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_a_ctrl_c_at_any_moment_of_the_start_ends_the_run_without_a_traceback(tmp_path):
    # one in the first ~70 ms, while the engine's modules loaded, gave a traceback.  The delays count
    # from the end of Python's own start (-X importtime's line for site): a Ctrl+C before that is
    # Python's business, not the script's
    import signal
    import subprocess
    import time
    script = Path(__file__).resolve().parents[1] / "bench" / "sprt.py"
    # (the match ends in about 0.2 s: the later delays land after it, while Python ends, which
    # once gave a KeyboardInterrupt at exit)
    for delay in (0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5):
        p = subprocess.Popen([sys.executable, "-X", "importtime", str(script), "--ai-a", "greedy", "--ai-b", "random",
                              "--time", "0.01", "--max-games", "4"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
        for line in p.stderr:
            if line.rstrip().endswith("| site"):
                break
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith("import time:"))
        assert p.returncode in (130, 0) and "Traceback" not in out + err, (delay, p.returncode, out, err)


def test_a_clean_sweep_ends_the_match(monkeypatch):
    """A losing every game: no spread at all, which gave no evidence, so a match without
    --max-games never ended; it accepts H0 as soon as --min-games allows."""
    monkeypatch.setattr(sprt, "play_game", lambda black, white, *a, **kw: {
        "game": None, "diff": -10 if white.name == "B" else 10, "forfeit": None, "abandoned": False})

    class Named(_Idle):
        def __init__(self, name):
            self.name = self.label = name

    m = sprt.Match(Named("A"), Named("B"), ["f5d6c3d3c4f4f6f3"], 0.5, 2.0, 0, 20, 0.05, 0.05, max_games=None,
                   out=io.StringIO(), min_games=8)
    result = m.run()
    assert result["games"] == 8 and result["losses"] == 8 and result["decision"].startswith("H0 accepted")


def test_a_journal_that_cannot_serve_is_said_in_one_line_and_an_edited_ai_is_another_match(tmp_path, capsys):
    (tmp_path / "bot.py").write_text("class Bot:\n    def next_move(self, position, time_limit=None):\n"
                                     "        return position.legal_moves()[0]\n")
    (tmp_path / "file").write_text("x")
    base = ["--ai-a", f"{tmp_path / 'bot.py'}:Bot", "--ai-b", "greedy", "--time", "0.01", "--max-games", "2",
            "--min-games", "2"]
    for journal in ("", "  "):
        with pytest.raises(SystemExit) as e:
            sprt.main([*base, "--journal", journal], io.StringIO())
        assert e.value.code == 2 and "--journal needs a folder" in capsys.readouterr().err
    out = io.StringIO()
    assert sprt.main([*base, "--journal", str(tmp_path / "file" / "j")], out) == 2
    assert out.getvalue().strip().splitlines()[-1].startswith("error: ") and "Traceback" not in out.getvalue()
    out = io.StringIO()
    assert sprt.main([*base, "--journal", str(tmp_path / "j")], out) == 0
    (tmp_path / "bot.py").write_text("class Bot:\n    def next_move(self, position, time_limit=None):\n"
                                     "        return position.legal_moves()[-1]\n")
    out = io.StringIO()
    assert sprt.main([*base, "--journal", str(tmp_path / "j")], out) == 2
    assert "journal of another run" in out.getvalue(), out.getvalue()[-300:]


def test_an_openings_file_saved_with_a_bom_is_read(tmp_path):
    (tmp_path / "bom.txt").write_text("\ufefff5d6c3d3\nf5f6\n", encoding="utf-8")
    assert sprt.read_openings(tmp_path / "bom.txt") == ["f5d6c3d3", "f5f6"]
