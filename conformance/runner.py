"""Running the scenarios and reporting pass, fail or skip for each."""
import contextvars
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence, TextIO, TypeVar

from .board import (
    s_init, s_lock_held, s_members, s_quiet, s_recv, s_redeliver, s_send, s_stale, s_stale_short, s_talk)
from .common import Fail, PARTS_AT_ONCE, Skip, VIEWS
from .games import (
    s_classic_again, s_classic_black, s_classic_size, s_classic_white, s_control_lines, s_game_black, s_game_secret, s_game_white, s_passes,
    s_record_trust, s_refused_move, s_runs, s_shape, s_version)
from .minimal import s_minimal_board, s_minimal_lock, s_minimal_quiet, s_minimal_stale, s_minimal_turns, s_ours
from .hostile import s_cleanup, s_device_names, s_fifo, s_garbage, s_links, s_mac, s_names, s_pointers
from .process import PROGRAMS, Programs
from .restarts import (
    s_board_gone, s_end_reoffer, s_end_restart, s_full_disk, s_gone, s_refused_record, s_restart_new,
    s_restart_size, s_result, s_resume, s_take_over)


# A scenario's docstring begins with the clauses it checks, then ": " and what it does; it is called
# with the implementation's command and a board folder, and a game scenario with the play command too
Scenario = Callable[..., None]
Result = tuple[str, str, bool, str]         # name, clauses, passed (or skipped), why not / why skipped

BOARD_SCENARIOS: list[Scenario] = [s_init, s_send, s_recv, s_redeliver, s_talk, s_quiet, s_members, s_lock_held, s_stale, s_stale_short, s_garbage,
                   s_cleanup, s_names, s_device_names, s_mac, s_links, s_fifo, s_pointers]

GAME_SCENARIOS: list[Scenario] = [s_record_trust, s_game_black, s_game_white, s_shape, s_refused_move, s_version, s_control_lines, s_passes, s_runs, s_game_secret, s_end_reoffer,
                  s_end_restart, s_classic_white, s_classic_black, s_classic_again, s_classic_size, s_restart_size, s_restart_new, s_refused_record,
                  s_board_gone, s_take_over, s_full_disk, s_gone, s_result, s_resume]


# The profiles of PROTOCOL.md ("Profiles"): full is every scenario above; minimal, for a peer with only a
# `play` command, its own five (in the order docs/FIRST-PEER.md builds a peer) and the two classic games.  Every minimal scenario takes the play command.
MINIMAL_SCENARIOS: list[Scenario] = [s_minimal_board, s_minimal_stale, s_minimal_quiet, s_minimal_lock,
                                     s_minimal_turns, s_ours, s_classic_white, s_classic_black]
PROFILES: dict[str, list[Scenario]] = {"full": BOARD_SCENARIOS + GAME_SCENARIOS, "minimal": MINIMAL_SCENARIOS}

# The clauses a minimal peer MUST keep: the first table of PROTOCOL.md PR2 (tests/test_conformance_profile.py
# holds the two together).  The report tells those that no minimal scenario checks from those it may leave out.
MINIMAL_CLAUSES = frozenset("B1 B2 B4 F2 R1 R2 L1 L2 L3 L4 L5 L6 L3a I1 I1a I2 M1 M1a M2 M3 M4 M5 "
                            "P1 P3 P5 H6 H6a H9 G1 G2 G2a G3 G3a G4".split())


# Scenarios side by side by default (docs/CONFORMANCE.md, "Side by side"): they spend their time waiting on
# the protocol's clocks (L, heartbeats, patience), so four at once use less than one processor and the full
# profile takes about the time of its longest few.
JOBS = 4

# What the scenarios that wait longest on those clocks took against ``comm`` and ``peer`` (seconds, on
# two cores, 2026-11-29); side by side they start first, so that the run ends soon after its longest one
# (in the profile's order the full profile took 23 s at eight at a time, longest first 18 s)
WAITS = {"minimal_lock": 24, "full_disk": 15, "gone": 13, "minimal_stale": 12, "classic_black": 11,
         "minimal_turns": 11, "classic_size": 10, "stale_short": 9, "board_gone": 7, "members": 6,
         "game_secret": 6, "lock_held": 6, "result": 4}


T = TypeVar("T")


def longest_first(items: Iterable[T], name: Callable[[T], str] = str) -> list[T]:
    """``items`` (scenarios named by ``name``) in the order to start them side by side: the longest
    waits first, the rest as given."""
    return sorted(items, key=lambda x: -WAITS.get(name(x), 0))


def clauses_of(scenarios: Sequence[Scenario]) -> set[str]:
    """The clauses a list of scenarios checks, ranges spelt out (``H1-H3`` is H1, H2 and H3)."""
    out: set[str] = set()
    for fn in scenarios:
        for word in (fn.__doc__ or "").partition(": ")[0].split():
            m = re.fullmatch(r"([A-Z]+)(\d+)-([A-Z]+)?(\d+)", word)
            if m and (m[3] in (None, m[1])):
                out.update(f"{m[1]}{i}" for i in range(int(m[2]), int(m[4]) + 1))
            else:
                out.add(word)
    return out


def _clause_key(c: str) -> tuple[str, int, str]:
    m = re.fullmatch(r"([A-Z]*)(\d*)(.*)", c)
    return (m[1], int(m[2] or 0), m[3]) if m else (c, 0, "")


def run(cmd: str, play_cmd: str | None = None, base: str | Path | None = None, only: Sequence[str] | None = None,
        stream: TextIO = sys.stdout, base_b: str | Path | None = None, profile: str = "full",
        jobs: int = JOBS) -> list[Result]:
    """Run the scenarios of ``profile`` ("full" or "minimal"); boards under ``base`` (default: a temporary folder).

    ``base_b``: the same folder seen through a second mount; the kit and our
    players then work through it while the implementation uses ``base``.
    ``jobs``: how many scenarios run side by side, each on a board folder and
    with programs of its own; the report keeps the profile's order, whichever
    ends first.  Every program a scenario started is stopped when it ends (Ctrl+C
    too: then the results so far are summed up and ``KeyboardInterrupt`` goes on).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    play_cmd = play_cmd or f"{cmd} play"
    todo = [(i, fn) for i, fn in enumerate(PROFILES[profile], 1) if not only or fn.__name__[2:] in only]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:   # (a stopped scenario may still write)
        root = Path(base) if base else Path(tmp)
        views = (root, Path(base_b) if base_b else None)
        pending = longest_first(todo, lambda t: t[1].__name__[2:])
        done: dict[int, tuple[bool, str, float]] = {}
        running: dict[int, Programs] = {}
        lock = threading.Condition()
        stopping = False

        def worker() -> None:
            while True:
                with lock:
                    if stopping or not pending:
                        return
                    i, fn = pending.pop(0)
                    programs = running[i] = Programs()
                d = root / f"{i:02d}-{fn.__name__[2:]}-{os.getpid()}"
                outcome = contextvars.Context().run(_scenario, fn, cmd, play_cmd, d, programs, views, jobs > 1)
                with lock:
                    done[i] = outcome
                    del running[i]
                    lock.notify_all()

        def report(i: int, fn: Scenario) -> None:
            ok, why, took = done[i]
            name = fn.__name__[2:]
            clauses, _, title = (fn.__doc__ or "").strip().partition(": ")
            word = "SKIP" if why.startswith("skipped:") else "PASS" if ok else "FAIL"
            stream.write(f"{word}  {name:15s} {clauses:22s} {title} ({took:.1f} s)\n")
            if why:
                stream.write(f"      {why}\n")
            stream.flush()
            results.append((name, clauses, ok, why))

        threads = [threading.Thread(target=worker, name=f"kit-{n}", daemon=True) for n in range(min(jobs, len(todo)))]
        reported = 0
        try:
            for t in threads:
                t.start()
            for i, fn in todo:
                with lock:
                    while i not in done:
                        lock.wait(0.5)      # (a timeout, so that Ctrl+C is seen on every system)
                report(i, fn)
                reported += 1
        except BaseException:
            with lock:
                stopping = True
                ended, stop = set(done), list(running.values())
            for programs in stop:
                programs.stop()
            for i, fn in todo[reported:]:
                if i in ended:
                    report(i, fn)
            _summary(results, stream, " (interrupted)")
            deadline = time.monotonic() + 15        # their programs stopped, the scenarios fail fast: let each
            for t in threads:                       # clean up after itself (its finally: a disk unmounted)
                t.join(max(0.0, deadline - time.monotonic()))
            raise
        for t in threads:
            t.join()
    _summary(results, stream)
    if profile != "full":
        checked = clauses_of(PROFILES[profile])
        unchecked = sorted(MINIMAL_CLAUSES - checked, key=_clause_key)
        left = sorted(clauses_of(PROFILES["full"]) - checked - MINIMAL_CLAUSES, key=_clause_key)
        stream.write(f"Not checked by the {profile} profile (full profile only): {' '.join(left)}\n"
                     "  but T1 in part: a minimal peer MUST still never make the board folder again once it is gone (PROTOCOL.md PR2)\n"
                     f"Minimal clauses no scenario here checks (keep them all the same): {' '.join(unchecked)}\n")
        stream.flush()
    return results


def _scenario(fn: Scenario, cmd: str, play_cmd: str, d: Path, programs: Programs,
              views: tuple[Path, Path | None], at_once: bool = True) -> tuple[bool, str, float]:
    """Run one scenario on the board folder ``d`` (in a context of its own: its programs, its views,
    whether its parts may run at once); (passed or skipped, why not or why skipped, seconds).  Its
    programs are stopped when it ends."""
    PROGRAMS.set(programs)
    VIEWS.set(views)
    PARTS_AT_ONCE.set(at_once)
    t = time.monotonic()
    try:
        d.mkdir(parents=True)
        if fn not in BOARD_SCENARIOS:
            fn(cmd, d, play_cmd)
        else:
            fn(cmd, d)
        ok, why = True, ""
    except Skip as e:
        ok, why = True, f"skipped: {e}"
    except Fail as e:
        ok, why = False, str(e)
        why = programs.explained(why)       # (the implementation's own error, when it exited)
    except BaseException as e:  # a crash in the implementation's answers is a failure too (in a thread of its own, whatever it is)
        ok, why = False, f"{type(e).__name__}: {e}"
    finally:
        programs.stop()
    return ok, why, time.monotonic() - t


def _summary(results: list[Result], stream: TextIO, note: str = "") -> None:
    skipped = sum(why.startswith("skipped:") for _, _, _, why in results)
    passed = sum(ok for _, _, ok, _ in results) - skipped
    stream.write(f"{passed} passed, {len(results) - passed - skipped} failed, {skipped} skipped "
                 f"(a skipped clause is not checked here){note}\n")
    stream.flush()
