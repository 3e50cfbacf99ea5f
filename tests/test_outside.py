"""bench/outside.py: NBoard fronts for Zebra and for one-shot programs, played by bench/sprt.py."""
import importlib.util
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from engine import Game, notation

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ROOT / "bench" / "outside.py"
PY = sys.executable
_spec = importlib.util.spec_from_file_location("sprt", ROOT / "bench" / "sprt.py")
sprt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sprt)

# A stand-in for Zebra: it replays -seq with our rules and answers the first legal move in
# Zebra's output format; "dies" files in its folder make it fail (exit 1) that many times first,
# and every call is logged with its arguments.
FAKE_ZEBRA = f"""#!{PY}
import sys
from pathlib import Path
sys.path.insert(0, {str(ROOT)!r})
from engine import Game, notation
here = Path(__file__).resolve().parent
with open(here / "calls.log", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
dies = here / "dies"
if dies.exists() and int(dies.read_text()) > 0:
    dies.write_text(str(int(dies.read_text()) - 1))
    sys.exit(1)
seq = sys.argv[sys.argv.index("-seq") + 1] if "-seq" in sys.argv else ""
game = Game.from_transcript(seq)
if game.position.must_pass():
    game.play(notation.PASS)
m = sorted(game.position.legal_moves())[0]
print("Zebra (c) 1997-2005 Gunnar Andersson")
print("-->   2  +20.96            52  " + notation.square_name(m) + "        0.0 s   47489 nps")
print("-->  14  +1.00         141177  " + notation.square_name(m) + " h5 h1     0.0 s  25515453 nps")
"""


# (the fake is run by its #! line, as Zebra's front runs ./zebra)
posix_script = pytest.mark.skipif(sys.platform == "win32", reason="the fake Zebra is a script run by its #! line")


def fake_zebra(folder: Path, dies: int = 0) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "zebra").write_text(FAKE_ZEBRA)
    (folder / "zebra").chmod(0o755)
    (folder / "coeffs2.bin").write_bytes(b"")
    if dies:
        (folder / "dies").write_text(str(dies))
    return folder


def session(args, lines):
    import subprocess
    return subprocess.run([PY, str(OUTSIDE), *args], input="".join(x + "\n" for x in lines),
                          capture_output=True, text=True, timeout=60)


@posix_script
def test_zebra_is_asked_the_game_so_far_and_its_move_is_answered(tmp_path):
    folder = fake_zebra(tmp_path / "z")
    ggf = Game.from_transcript("f5d6").to_ggf()
    run = session(["zebra", "--dir", str(folder), "--depth", "12", "--exact", "18"],
                  ["nboard 2", f"set game {ggf}", "move C3", "ping 1", "go", "quit"])
    assert run.returncode == 0, run.stderr
    first = notation.square_name(sorted(Game.from_transcript("f5d6c3").position.legal_moves())[0]).upper()
    assert run.stdout.split() == ["set", "myname", "Zebra-12/18", "pong", "1", "===", first]
    call = (folder / "calls.log").read_text().split()
    assert call[call.index("-l") + 1:call.index("-l") + 7] == ["12", "18", "18", "12", "18", "18"]
    assert call[call.index("-seq") + 1] == "f5d6c3" and call[call.index("-b") + 1] == "0"


@posix_script
def test_a_zebra_that_dies_is_asked_again_solving_less(tmp_path):
    folder = fake_zebra(tmp_path / "z", dies=2)
    run = session(["zebra", "--dir", str(folder)], ["nboard 2", "go", "quit"])
    assert run.returncode == 0 and "===" in run.stdout, run.stderr
    exacts = [line.split()[line.split().index("-l") + 2] for line in (folder / "calls.log").read_text().splitlines()]
    assert exacts == ["16", "14", "12"]
    assert "asking again from 14" in run.stderr and "(2 so far)" in run.stderr


def test_a_folder_without_zebra_is_refused_in_one_line(tmp_path):
    run = session(["zebra", "--dir", str(tmp_path)], ["go"])
    assert run.returncode == 2 and "make zebra" in run.stderr and "Traceback" not in run.stderr


def test_a_one_shot_program_that_answers_nonsense_gets_no_move(tmp_path):
    run = session(["oneshot", "echo 9 9"], ["nboard 2", "go", "ping 1", "quit"])
    assert "===" not in run.stdout and "pong 1" in run.stdout
    assert "off the 8x8 board" in run.stderr


@posix_script
def test_a_match_through_both_fronts_counts_each_sides_time_a_move(tmp_path):
    """Our one-shot command against the fake Zebra, one process a move on both sides, as in
    docs/benchmarks.md; the summary gives each side's mean time a move."""
    folder = fake_zebra(tmp_path / "z")
    ours = f"{PY} -m engine move --ai greedy"
    out = io.StringIO()
    code = sprt.main(["--engine-a", f"{shlex.quote(PY)} {OUTSIDE} oneshot {shlex.quote(ours)}",
                      "--engine-b", f"{shlex.quote(PY)} {OUTSIDE} zebra --dir {folder}",
                      "--time", "1", "--max-games", "2", "--cwd-a", str(ROOT)], out)
    text = out.getvalue()
    assert code == 0, text
    assert "forfeits: 0" in text and "games  : 2" in text
    means = re.findall(r"engine [AB]: (.+), (\d+) moves, ([0-9.]+) s a move", text)
    assert [m[0] for m in means] == [f"oneshot[{ours}]", "Zebra-14/16"], text
    assert all(int(n) > 20 and 0 < float(s) < 10 for _, n, s in means)
    assert len((folder / "calls.log").read_text().splitlines()) == int(means[1][1])


def test_a_one_shot_program_that_prints_without_end_is_cut_short():
    run = session(["oneshot", f"{shlex.quote(PY)} -c \"import sys\nwhile True: sys.stdout.write('x' * 65536)\""],
                  ["nboard 2", "go", "ping 1", "quit"])
    assert "===" not in run.stdout and "pong 1" in run.stdout
    assert "the program failed" in run.stderr and len(run.stderr) < 2000


def test_an_overlong_line_is_ignored_whole():
    """As ``python -m engine nboard``: the rest of a line longer than the limit is no command."""
    line = "ping 1" + " " * (1048577 - len("ping 1")) + "go"
    run = session(["oneshot", "echo 3 2"], ["nboard 2", line, "ping 2", "quit"])
    assert "===" not in run.stdout and "pong 1" not in run.stdout and "pong 2" in run.stdout
    assert "was ignored" in run.stderr


@posix_script
def test_a_zebra_that_may_not_run_or_always_fails_is_said_so(tmp_path):
    folder = fake_zebra(tmp_path / "z")
    (folder / "zebra").chmod(0o644)
    run = session(["zebra", "--dir", str(folder)], ["go"])
    assert run.returncode == 2 and "chmod +x" in run.stderr and "Traceback" not in run.stderr
    folder = fake_zebra(tmp_path / "z2", dies=1000)
    run = session(["zebra", "--dir", str(folder), "--exact", "60"], ["nboard 2", "go", "ping 1", "quit"])
    assert "===" not in run.stdout and "pong 1" in run.stdout
    assert len((folder / "calls.log").read_text().splitlines()) == 4      # asked again three times
    assert "Zebra failed (exit code 1), solving from 54 empties the last time" in run.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="the failing program is a POSIX shell's")
def test_a_one_shot_program_that_fails_gets_no_move_and_a_pass_is_answered():
    run = session(["oneshot", "sh -c 'echo 3 2; exit 7'"], ["nboard 2", "go", "ping 1", "quit"])
    assert "===" not in run.stdout and "exit code 7" in run.stderr
    must_pass = Game.from_transcript("d3c3b3e3f3c5f6g2b5c6f4a5h1f5d6e7d7e6d8c4c7b7a8b6a4f8g4b4e8a3a7g5g8c2h4g3a2"
                                     "h3c1d1d2e1f1f7a6h6e2b8g7c8h5g6h2h7h8g1b2f2")
    assert must_pass.position.must_pass()
    run = session(["oneshot", "echo 0 0"], ["nboard 2", f"set game {must_pass.to_ggf()}", "go", "quit"])
    assert run.stdout.split()[-2:] == ["===", "PA"]
