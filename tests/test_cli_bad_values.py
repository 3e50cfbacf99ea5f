"""Bad option values on every command line: refused before any work starts, with
exit code 2 and a one-line reason, never a traceback; an external engine's output and the
gzip files read with a bound.

The subcommands and their checked options are discovered from the argparse parsers, so a new
subcommand or option without a row in ``BAD`` fails ``test_every_command_and_option_is_covered``.
"""
import argparse
import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import comm.__main__ as comm_main
import engine.__main__ as engine_main
import peer.cli as peer_cli
from engine import book, gzipped, patterns

ROOT = Path(__file__).resolve().parents[1]

WHOLE = ["-1", "nan", "inf", "99999999999999999999", "abc", "1.5", ""]
POSITIVE = WHOLE + ["0"]
SECONDS = ["0", "-1", "nan", "inf", "-inf", "1e400", "abc", ""]
NONNEG = ["-1", "-0.001", "nan", "inf", "1e400", "abc", ""]
SIZE = ["0", "7", "28", "-8", "99999999999999999999", "nan", "abc"]
SHAPE = ["Hexagon", "{tmp}/missing.txt", "{tmp}", ""]   # no such name, no such file, a folder
THREADS = ["0", "-1", "nan", "99999999999999999999"]
CHOICE = ["klingon", ""]
OUT = ["{tmp}", "{tmp}/missing/x", ""]          # a folder, a path in a missing folder, no name
NAME = ["../x", "", "a b", "x" * 100]
SHARE = ["foo", "a=b", "=a,b", "a=,b", "a={tmp}/not-mounted,{tmp}/not-mounted"]

# "CLI subcommand": (the arguments it needs, {option or positional: bad values})
BAD = {
    "engine info": ([], {}),
    "engine perft": (["1"], {"depth": WHOLE + ["1000"], "--size": SIZE, "--shape": SHAPE}),
    "engine bench": ([], {"--depth": WHOLE + ["13"], "--pure-depth": WHOLE + ["13"], "--repeat": POSITIVE}),
    "engine move": ([], {"--time": SECONDS, "--threads": THREADS}),
    "engine solve": (["x.obf"], {"--time": SECONDS, "--threads": THREADS, "--first": POSITIVE}),
    "engine tournament": (["random", "greedy"],
                          {"--games": POSITIVE + ["100001"], "--time": SECONDS, "--size": SIZE, "--shape": SHAPE,
                           "--opening": WHOLE + ["672"], "--seed": WHOLE, "--workers": POSITIVE + ["257"],
                           "--out": OUT}),
    "engine nboard": ([], {"--time": SECONDS, "--threads": THREADS}),
    "engine book build": ([], {"--out": OUT, "--plies": POSITIVE + ["61"], "--depth": POSITIVE + ["61"],
                               "--width": NONNEG + ["65"], "--seed": WHOLE + [str(2 ** 32)],
                               "--positions": WHOLE, "--minutes": SECONDS, "--workers": POSITIVE + ["257"]}),
    "engine book show": ([], {}),
    "engine book check": ([], {}),
    "peer play": (["--color", "black"],
                  {"--color": CHOICE, "--size": SIZE, "--lang": CHOICE, "--time": SECONDS,
                   "--game-time": SECONDS, "--threads": THREADS, "--patience": SECONDS, "--pace": NONNEG,
                   "--seed": WHOLE, "--stats": OUT, "--classic-after": SECONDS}),
    "peer demo": ([], {"--size": SIZE, "--pace": NONNEG, "--time": SECONDS, "--lang": CHOICE}),
    "peer watch": ([], {"--lang": CHOICE}),
    "peer replay": (["x.game"], {"--delay": NONNEG + ["3601"], "--lang": CHOICE}),
    "peer bench": ([], {"--games": POSITIVE + ["10001"], "--size": SIZE}),
    "peer samples": ([], {}),
    "peer lobby": (["--share", "s"], {"--lang": CHOICE}),
    "peer league enter": (["--share", "s", "--league", "l", "--name", "n", "--ai", "greedy"], {"--patience": SECONDS}),
    "peer league referee": (["--share", "s", "--league", "l"],
                            {"--entrants": WHOLE + ["1", "65"], "--wait": SECONDS, "--rounds": POSITIVE + ["11"],
                             "--size": SIZE, "--time": SECONDS + ["3601"], "--start-limit": SECONDS,
                             "--gone-limit": SECONDS,
                             "--move-limit": SECONDS, "--ack-limit": SECONDS}),
    "peer league standings": (["--share", "s", "--league", "l"], {}),
    "comm status": ([], {}),
    "comm echo": (["--board", "b"], {"--name": NAME, "--count": WHOLE, "--stale-after": SECONDS}),
    "comm serve": (["--board", "b", "--name", "n"], {"--name": NAME, "--stale-after": SECONDS,
                                                     "--lock-timeout": SECONDS}),
    "comm bench": ([], {"--rounds": POSITIVE, "--share": SHARE, "--idle": SECONDS + ["3601"]}),
}

MAINS = {"engine": engine_main.main, "peer": peer_cli.main, "comm": comm_main.main}


class _Parsed(Exception):
    """Raised instead of running a command whose arguments were accepted."""


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def _leaves(prefix, parser):
    """``{"engine book check": parser}`` for every subcommand below ``parser``."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return {prefix: parser}
    out = {}
    for name, sub in subs[0].choices.items():
        out.update(_leaves(f"{prefix} {name}", sub))
    return out


def _captured_parser(main, argv):
    """The parser that ``main(argv)`` parses its arguments with (nothing runs)."""
    def capture(self, args=None, namespace=None):
        raise _Captured(self)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(argparse.ArgumentParser, "parse_args", capture)
        try:
            main(argv)
        except _Captured as c:
            return c.parser
    raise AssertionError(f"{argv}: no parser")


def all_commands():
    """Every subcommand of the three command lines, found from their parsers."""
    out = {}
    out.update(_leaves("engine", engine_main.parser()))
    out.update(_leaves("comm", comm_main.parser()))
    for cmd in ["play", *peer_cli.COMMANDS]:
        if cmd == "league":
            from peer import leaguecli
            out.update(_leaves("peer league", leaguecli.parser()))
            continue
        out[f"peer {cmd}"] = _captured_parser(peer_cli.main, [cmd])
    return out


def checked_options(parser):
    """The options (and positionals) whose value is parsed or chosen: each needs bad values."""
    return {a.option_strings[0] if a.option_strings else a.dest: a for a in parser._actions
            if not isinstance(a, (argparse._SubParsersAction, argparse._HelpAction))
            and (a.type is not None or a.choices is not None)}


def test_every_command_and_option_is_covered():
    commands = all_commands()
    assert set(commands) == set(BAD), "a subcommand without a row in BAD (or a row for none)"
    for name, parser in commands.items():
        options = checked_options(parser)
        assert set(options) == set(BAD[name][1]), f"{name}: options without bad values in BAD"
        for opt, action in options.items():
            # bare int/float take nan, inf and 20-digit numbers: use engine.cliargs (comm.cliargs)
            assert action.type not in (int, float), f"{name} {opt}: type={action.type.__name__}"


def _cases():
    for name, (base, options) in BAD.items():
        for opt, values in options.items():
            for value in values:
                yield pytest.param(name, base, opt, value, id=f"{name} {opt}={value[:24]}")


def run_in_process(cli, argv):
    """(exit code, stderr) of ``python -m CLI ARGV`` run here, stopped right after its arguments
    are parsed when they are accepted (exit code None then)."""
    parse = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        parse(self, args, namespace)
        raise _Parsed
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        mp.setattr(argparse.ArgumentParser, "parse_args", parse_only)
        try:
            code = MAINS[cli](argv)
        except SystemExit as e:
            code = e.code
        except _Parsed:
            code = None
    return code, err.getvalue()


def assert_one_line_error(stderr, about):
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, stderr
    assert errors[0] == stderr.rstrip("\n").splitlines()[-1], stderr
    assert about in errors[0], stderr


@pytest.mark.parametrize("name, base, opt, value", list(_cases()))
def test_bad_value_is_refused_before_any_work(name, base, opt, value, tmp_path):
    cli, *words = name.split()
    value = value.format(tmp=tmp_path)
    if opt.startswith("-"):
        argv = words + base + [f"{opt}={value}"]
    else:                                   # a positional: in place of the one in base
        argv = words + [value]
    code, stderr = run_in_process(cli, argv)
    assert code == 2, f"{argv} accepted" if code is None else stderr
    assert_one_line_error(stderr, opt)


def test_the_opening_must_fit_the_board():
    from engine import tournament
    with pytest.raises(ValueError, match="from 0 to 11 plies on a 4x4"):
        tournament.check_opening(12, 4)
    tournament.check_opening(11, 4)


def test_the_two_copies_of_cliargs_are_the_same():
    assert (ROOT / "engine" / "cliargs.py").read_text() == (ROOT / "comm" / "cliargs.py").read_text()


@pytest.mark.parametrize("argv, about", [
    (["engine", "tournament", "random", "greedy", "--opening", "99"], "--opening"),
    (["engine", "tournament", "random", "greedy", "--size", "4", "--opening", "12"], "--opening"),
    (["engine", "perft", "99999999999999999999"], "depth"),
    (["engine", "tournament", "random", "greedy", "--out", "{tmp}"], "--out"),
    (["engine", "tournament", "random", "greedy", "--out", "{tmp}/missing/x"], "--out"),
    (["peer", "replay", "{tmp}/x.game", "--delay", "nan"], "--delay"),
    (["engine", "solve", "/dev/zero", "--first", "1"], "not a regular file"),   # never read (it has no end)
    (["engine", "solve", ""], "no position"),
    (["engine", "solve", "{tmp}"], "not a regular file"),
    (["engine", "solve", "{tmp}/missing.obf"], "no such file"),
    (["engine.fit.weights", "smooth", "--weights", "{tmp}", "--out", "{tmp}/o.bin.gz"], "not a regular file"),
    (["engine.fit.weights", "label", "--data", "", "--labels", "{tmp}/l.npz"], "--data: '' is not a file name"),
    (["engine.fit.weights", "generate", "--games", "2", "--journal", ""], "--journal: '' is not a file name"),
    (["engine.fit.weights", "generate", "--games", "-3", "--data", "{tmp}/g.npz"], "--games"),
    (["engine.fit.weights", "fit", "--data", "{tmp}/g.npz", "--ridge", "nan", "--out", "{tmp}/w.bin.gz"], "--ridge"),
    (["engine.fit.weights", "fit", "--data", "{tmp}/g.npz", "--iterations", "0", "--out", "{tmp}/w.bin.gz"],
     "--iterations"),
    # a file written that is one this step reads (the games replaced by weights, the weights by games)
    (["engine.fit.weights", "fit", "--data", "{tmp}/g.npz", "--out", "{tmp}/g.npz"], "a file this step reads"),
    (["engine.fit.weights", "generate", "--games", "2", "--evaluation", "patterns", "--weights", "{tmp}/w.bin.gz",
      "--data", "{tmp}/w.bin.gz"], "a file this step reads"),
    (["engine.fit.weights", "generate", "--games", "2", "--data", "{tmp}/a.npz", "--data", "{tmp}/b.npz"],
     "one --data"),
    (["engine.fit.probcut", "fit", "--positions", "30", "--depth", "3", "--cluster", "local:abc"], "local:N"),
    (["engine.fit.probcut", "fit", "--positions", "30", "--depth", "3", "--journal", "{tmp}/file/j",
      "--out", "{tmp}/pc.txt"], "{tmp}/file/j"),
])
def test_real_processes_refuse_bad_values(argv, about, tmp_path):
    argv = [a.format(tmp=tmp_path) for a in argv]
    about = about.format(tmp=tmp_path)
    (tmp_path / "file").write_text("a file, not a folder\n")
    r = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, timeout=60,
                       cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 2, r.stderr
    assert_one_line_error(r.stderr, about)
    assert r.stdout == ""


# -- an external engine's output is read with a cap ------------------------------------------

PLAYER = textwrap.dedent("""
    import json, os, resource, sys
    from engine import Position
    from peer.players import External
    results = []
    for code in sys.argv[1:]:
        engine = External(f'"{sys.executable}" -c "{code}"', time_limit=2)
        move, why = engine.choose(Position.start())
        results.append(why)
    try:    # this process's own peak: ru_maxrss also counts the parent's pages at the fork (Linux)
        peak_mb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
    print(json.dumps({"reasons": results, "peak_mb": peak_mb}))
""")


@pytest.mark.skipif(sys.platform == "win32", reason="resource (peak memory) is POSIX only")
def test_an_engine_printing_without_end_is_stopped_and_memory_stays_bounded(tmp_path):
    pidfile = tmp_path / "pid"
    flood = ("import os, sys; open(sys.argv[1], 'w').write(str(os.getpid())); "
             "[sys.stdout.write('3 4 ' * 10000) for _ in iter(int, 1)]")
    one_line = "import sys, time; sys.stdout.write('x' * 100000); sys.stdout.flush(); time.sleep(30)"
    noisy = "import sys; [sys.stderr.write('chatter ' * 10000) for _ in iter(int, 1)]"
    r = subprocess.run([sys.executable, "-c", PLAYER, f"{flood.replace('sys.argv[1]', repr(str(pidfile)))}",
                        one_line, noisy], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    flooded, long_line, chatter = out["reasons"]
    assert "more than 4096 bytes of output: the engine was stopped" in flooded
    assert "more than 4096 bytes of output" in long_line     # (not the time limit: stopped at once)
    assert "no answer within 2 s" in chatter                 # stderr is drained, not kept
    assert out["peak_mb"] < 150, out                         # unbounded, it was GBs within 2 s
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):                  # killed and reaped
        os.kill(pid, 0)


# -- gzip files are read with a bound ---------------------------------------------------------

def test_a_gzip_bomb_book_is_refused(tmp_path):
    bomb = tmp_path / "bomb.bin.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (50 << 20)))     # 50 MB of zeros in ~50 KB
    for read in (book.check, book.load):
        with pytest.raises(book.BookError, match="expands to more than 33,554,432 bytes"):
            read(bomb)
    r = subprocess.run([sys.executable, "-m", "engine", "book", "check", str(bomb)], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [f"error: {bomb}: refused: it expands to more than "
                                             f"33,554,432 bytes (the most accepted)"]


def test_a_gzip_bomb_of_weights_is_refused(tmp_path):
    bomb = tmp_path / "w.bin.gz"
    bomb.write_bytes(gzip.compress(patterns.MAGIC + b"\0" * (50 << 20)))
    with pytest.raises(ValueError, match="expands to more than"):
        patterns.load(bomb)
    assert patterns.load() is not None      # the shipped weights are within their bound


def test_gzipped_decompress_bounds():
    data = b"abc" * 1000
    assert gzipped.decompress(gzip.compress(data), len(data)) == data
    assert gzipped.decompress(gzip.compress(data) + gzip.compress(b"de"), len(data) + 2) == data + b"de"
    with pytest.raises(ValueError, match="more than 2,999 bytes"):
        gzipped.decompress(gzip.compress(data), len(data) - 1)
    with pytest.raises(ValueError, match="more than 3,001 bytes"):
        gzipped.decompress(gzip.compress(data) + gzip.compress(b"de"), len(data) + 1)
    with pytest.raises(ValueError, match="truncated"):
        gzipped.decompress(gzip.compress(data)[:-10], 10 ** 6)
    with pytest.raises(ValueError, match="trailing"):
        gzipped.decompress(gzip.compress(data) + b"junk", 10 ** 6)
    with pytest.raises(ValueError, match="does not decompress"):
        gzipped.decompress(b"\x1f\x8b" + b"x" * 30, 10 ** 6)


def test_nboard_ignores_an_endless_line(capsys):
    from engine import nboard
    out = io.StringIO()
    stdin = io.StringIO("x" * (2 * nboard.MAX_LINE + 5) + "\nnboard 2\nquit\nnboard 2\n")
    assert nboard.run("random", 0.1, stdin=stdin, stdout=out) == 0
    assert out.getvalue().count("set myname") == 1      # the line after it is read; quit ends
    assert "a line longer than 1048576 characters was ignored" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_in_a_replay_with_delay_is_quiet(tmp_path):
    import signal
    import time
    from peer.record import Record
    game = tmp_path / "g1.game"
    game.write_text(Record(id="g1", size=8, black="a", white="b", moves="f5d6c3d3c4f4", status="playing").text())
    # (a pytest-xdist worker ignores SIGINT, and a child would inherit that: as at a terminal, it may not)
    p = subprocess.Popen([sys.executable, "-m", "peer", "replay", str(game), "--delay", "5"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in p.stdout:       # the first move is shown: the replay sleeps before the next
        if line.startswith("#1 "):
            break
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and "Traceback" not in err, err


def test_every_option_of_the_players_commands_is_described():
    """``python -m peer COMMAND --help`` describes every option it shows (and each command)."""
    for name, parser in all_commands().items():
        if not name.startswith("peer "):
            continue
        assert parser.description, name
        for action in parser._actions:
            if action.help != argparse.SUPPRESS:
                assert action.help, f"{name} {action.option_strings or action.dest}: no description"


def test_the_players_top_help_lists_the_commands_and_color_is_for_play():
    r = subprocess.run([sys.executable, "-m", "peer", "--help"], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0 and not r.stderr, r
    lines = r.stdout.splitlines()
    for cmd in ("play", "watch", "replay", "demo", "bench"):
        assert sum(line.startswith(f"  {cmd} ") for line in lines) == 1, (cmd, r.stdout)
    assert "python -m peer COMMAND --help" in r.stdout and "--color black or white" in r.stdout
    r = subprocess.run([sys.executable, "-m", "peer", "play", "--help"], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0 and "--color {black,white}" in r.stdout and "python -m peer --help" in r.stdout
    r = subprocess.run([sys.executable, "white.py", "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0 and "--color" not in r.stdout.replace("--no-color", "") and "--name" in r.stdout


def test_the_installed_command_names_itself_in_its_help_and_messages():
    """``cardstand --help`` said "usage: python -m peer", which is not what the person typed."""
    import shutil
    command = shutil.which("cardstand", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the cardstand command is not installed beside this Python")
    r = subprocess.run([command, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: cardstand [COMMAND]"), r.stdout[:200]
    assert "python -m peer" not in r.stdout and "cardstand COMMAND --help" in r.stdout
    for cmd in ("watch", "replay", "demo", "bench", "samples"):
        r = subprocess.run([command, cmd, "--help"], capture_output=True, text=True, timeout=60)
        assert r.stdout.startswith(f"usage: cardstand {cmd}"), (cmd, r.stdout[:200])
    r = subprocess.run([command, "bogus"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cardstand: unknown command 'bogus'" in r.stderr and "python -m peer" not in r.stderr
    r = subprocess.run([command, "play", "--help"], capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("usage: cardstand play "), r.stdout[:100]
    for sibling in ("cardstand-engine", "cardstand-comm", "cardstand-kit"):
        path = shutil.which(sibling, path=str(Path(sys.executable).parent))
        r = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
        assert r.stdout.startswith(f"usage: {sibling} "), (sibling, r.stdout[:100])
    r = subprocess.run([sys.executable, "-m", "peer", "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.stdout.startswith("usage: python -m peer [COMMAND]")


def test_peer_without_arguments_lists_the_commands_and_bench_checks_its_ai():
    r = subprocess.run([sys.executable, "-m", "peer"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert all(c in r.stderr for c in ("play", "watch", "replay", "demo", "bench"))
    r = subprocess.run([sys.executable, "-m", "peer", "bench", "--ai", "nosuch", "--games", "1"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2
    assert_one_line_error(r.stderr, "unknown AI 'nosuch'")


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX rules (Windows': tests/test_windows.py)")
def test_commands_are_split_as_the_shell_splits_them():
    from engine.cliargs import command_words
    assert command_words("python -m peer play --name 'Ann Lee' a\\ b") == [
        "python", "-m", "peer", "play", "--name", "Ann Lee", "a b"]
    with pytest.raises(ValueError):
        command_words("python 'unclosed")
