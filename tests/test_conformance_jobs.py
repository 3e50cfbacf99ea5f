"""The kit's scenarios side by side (``--jobs``): the report keeps the profile's order, and a scenario
that fails or is stopped stops its own programs and no one else's."""
import _thread
import contextvars
import io
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import conformance
from conformance import runner
from conformance.common import Fail, other_view, second_view
from conformance.process import _start

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def _until(cond, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise Fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.05)


def _profile(monkeypatch: pytest.MonkeyPatch, *scenarios) -> None:
    monkeypatch.setitem(runner.PROFILES, "full", list(scenarios))
    monkeypatch.setattr(runner, "BOARD_SCENARIOS", list(scenarios))


def test_the_report_keeps_the_profile_order_whichever_ends_first(monkeypatch):
    second_done = threading.Event()

    def s_first(cmd: str, d: Path) -> None:
        """X1: waits for the second."""
        if not second_done.wait(30):
            raise Fail("the second scenario did not run beside the first")

    def s_second(cmd: str, d: Path) -> None:
        """X2: ends at once."""
        second_done.set()

    _profile(monkeypatch, s_first, s_second)
    out = io.StringIO()
    results = conformance.run("unused", stream=out, jobs=2)
    assert results == [("first", "X1", True, ""), ("second", "X2", True, "")], out.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("PASS  first           X1") and lines[1].startswith("PASS  second          X2")
    assert lines[2].startswith("2 passed, 0 failed, 0 skipped")


def test_the_longest_waits_start_first_and_the_report_keeps_the_profile_order(monkeypatch):
    started = []

    def s_quick(cmd: str, d: Path) -> None:
        """X1: a short one."""
        started.append("quick")

    def s_slow(cmd: str, d: Path) -> None:
        """X2: one that waits on a long clock."""
        started.append("slow")

    _profile(monkeypatch, s_quick, s_slow)
    monkeypatch.setitem(runner.WAITS, "slow", 30)
    out = io.StringIO()
    results = conformance.run("unused", stream=out, jobs=1)
    assert started == ["slow", "quick"]
    assert [r[0] for r in results] == ["quick", "slow"], out.getvalue()
    assert runner.longest_first(["quick", "slow", "other"]) == ["slow", "quick", "other"]


def test_the_parts_of_a_scenario_run_at_once_in_its_context_and_the_first_failure_in_order_is_its(tmp_path):
    from conformance.common import VIEWS, side_by_side
    all_three = threading.Barrier(3, timeout=30)
    seen = []

    def part(name: str, fails: bool):
        def run() -> None:
            all_three.wait()            # (all three at once, or the barrier breaks)
            seen.append((name, other_view(tmp_path / "a" / "x")))
            if fails:
                raise Fail(f"{name} failed")
        return run

    def scenario() -> None:
        VIEWS.set((tmp_path / "a", tmp_path / "b"))        # (as the runner sets them for a scenario)
        side_by_side(part("first", False), part("second", True), part("third", True))

    with pytest.raises(Fail, match="^second failed$"):
        contextvars.copy_context().run(scenario)
    assert sorted(seen) == [(n, tmp_path / "b" / "x") for n in ("first", "second", "third")]


def test_each_scenario_has_its_own_board_and_views(monkeypatch, tmp_path):
    seen: dict[str, tuple[Path, Path]] = {}
    both = threading.Barrier(2, timeout=30)

    def s_one(cmd: str, d: Path) -> None:
        """X1: notes its board."""
        both.wait()
        seen["one"] = (d, other_view(d))

    def s_two(cmd: str, d: Path) -> None:
        """X2: notes its board."""
        both.wait()
        seen["two"] = (d, other_view(d))

    _profile(monkeypatch, s_one, s_two)
    results = conformance.run("unused", base=tmp_path / "a", base_b=tmp_path / "b", stream=io.StringIO(), jobs=2)
    assert all(ok for _, _, ok, _ in results), results
    (one, one_b), (two, two_b) = seen["one"], seen["two"]
    assert one != two and one.parent == two.parent == tmp_path / "a"
    assert one_b == tmp_path / "b" / one.name and two_b == tmp_path / "b" / two.name
    assert second_view() is None        # outside a scenario: no second view


def test_a_failing_scenario_stops_its_own_programs_only(monkeypatch):
    procs = {}
    first_over = threading.Event()

    def s_failing(cmd: str, d: Path) -> None:
        """X1: starts a program, then fails."""
        procs["failing"] = _start(SLEEPER)
        _until(lambda: "other" in procs, "the other scenario's start")
        raise Fail("on purpose")

    def s_other(cmd: str, d: Path) -> None:
        """X2: starts a program, which must outlive the failing scenario."""
        procs["other"] = _start(SLEEPER)
        _until(lambda: "failing" in procs and procs["failing"].poll() is not None,
               "the failing scenario's program stopping")
        time.sleep(0.5)
        if procs["other"].poll() is not None:
            raise Fail("another scenario's end stopped this one's program")
        first_over.set()

    _profile(monkeypatch, s_failing, s_other)
    out = io.StringIO()
    results = conformance.run("unused", stream=out, jobs=2)
    assert [(name, ok, why) for name, _, ok, why in results] == [("failing", False, "on purpose"),
                                                                ("other", True, "")], out.getvalue()
    assert first_over.is_set()
    assert procs["other"].poll() is not None        # stopped at its own scenario's end


def test_ctrl_c_stops_the_running_scenarios_programs_and_starts_no_more(monkeypatch):
    monkeypatch.setattr(signal, "signal", signal.signal)        # (restored below: the handler Ctrl+C meets)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    procs = []

    def s_pressed(cmd: str, d: Path) -> None:
        """X1: starts a program, then Ctrl+C is pressed."""
        procs.append(_start(SLEEPER))
        _thread.interrupt_main()
        _until(lambda: procs[0].poll() is not None, "its program stopping", timeout=60)

    def s_never(cmd: str, d: Path) -> None:
        """X2: must not start."""
        procs.append(_start(SLEEPER))

    _profile(monkeypatch, s_pressed, s_never)
    out = io.StringIO()
    try:
        with pytest.raises(KeyboardInterrupt):
            conformance.run("unused", stream=out, jobs=1)
    finally:
        signal.signal(signal.SIGINT, before)
    assert len(procs) == 1 and procs[0].poll() is not None
    assert out.getvalue() == "0 passed, 0 failed, 0 skipped (a skipped clause is not checked here) (interrupted)\n"


def test_jobs_must_be_a_whole_number_of_at_least_one(capsys):
    for bad in ("0", "-2", "two", "1.5"):
        with pytest.raises(SystemExit) as e:
            conformance.main(["--peer", "unused", "--jobs", bad])
        assert e.value.code == 2
        assert f"argument --jobs: {bad!r} is not a whole number of at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError):
        conformance.run("unused", jobs=0)


def test_a_peer_command_that_cannot_be_split_is_one_line_and_exit_2(capsys):
    from conformance.cli import main
    for peer in ['node "peer.js', "", "peer\\"]:
        with pytest.raises(SystemExit) as e:
            main(["--peer", peer])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "--peer" in err and "Traceback" not in err and "FAIL" not in err


def test_a_scenario_failing_because_the_implementation_exited_quotes_its_own_error(monkeypatch):
    """The peer's own words (say, that it refuses an option) are in the failure, not only its exit code."""
    def s_refusing(cmd: str, d: Path) -> None:
        """X1: the implementation refuses its options."""
        p = _start([sys.executable, "-c", "import sys; print('error: unknown option --size'); sys.exit(2)"])
        p.wait()
        raise Fail(f"the implementation exited {p.returncode} before joining")

    _profile(monkeypatch, s_refusing)
    results = conformance.run("unused", stream=io.StringIO(), jobs=1)
    why = results[0][3]
    assert "exited 2 before joining" in why and "error: unknown option --size" in why, why


def test_what_serve_writes_is_bounded(tmp_path):
    """A ``serve`` that floods stderr, or answers a line without end: the kit keeps a bounded tail and
    says what happened (it kept 126 MB of stderr in a file, and read a 450 MB line whole)."""
    from conformance.process import ANSWER_LIMIT, Served, Tail
    flood = tmp_path / "flood.py"
    flood.write_text("import sys\n"
                     "if sys.argv[1] == 'serve':\n"
                     "    sys.stdin.readline()\n"
                     "    for _ in range(3000): sys.stderr.write('x' * 10000)\n"
                     "    sys.stdout.write('y' * (3 << 20)); sys.stdout.flush()\n")
    s = Served(f"{sys.executable} {flood}", tmp_path / "b", "kit")
    try:
        with pytest.raises(Fail) as e:
            s.ask(timeout=60, op="hello")
        assert f"{ANSWER_LIMIT} characters and more" in str(e.value)
        s.kill()            # (it still writes its line: a program the kit gave up on)
        kept = s._err.text(timeout=5)
        assert 0 < len(kept) <= Tail.KEEP and set(kept) == {"x"}
    finally:
        s.kill()
