"""engine.procgroup: a program's process group is killed whole, and never another's, even after
the program's pid has been reaped and handed to someone else (the conformance kit starts many
session leaders side by side; pids wrap around)."""
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.procgroup import NEW_GROUP, group_left, kill_group

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups by pid are POSIX")

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]
# a wrapper that starts a program (in the wrapper's group) and says its pid; it then leaves, the
# program running, unless "; time.sleep(60)" is added
WRAPPER = [sys.executable, "-c",
           "import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
           " print(p.pid, flush=True)"]


def _gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.parent.parent.is_dir() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True             # (a zombie nobody reaps has gone too)
        except OSError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def test_a_running_program_and_what_it_started_are_killed() -> None:
    proc = subprocess.Popen(WRAPPER[:-1] + [WRAPPER[-1] + "; time.sleep(60)"], stdout=subprocess.PIPE, text=True,
                            **NEW_GROUP)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert group_left(proc)
    kill_group(proc)
    assert proc.wait(10) != 0
    assert _gone(child)


def test_the_leftovers_of_a_reaped_wrapper_are_killed() -> None:
    proc = subprocess.Popen(WRAPPER, stdout=subprocess.PIPE, text=True, **NEW_GROUP)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert proc.wait(10) == 0                       # reaped: its pid is free, its group is not
    assert group_left(proc)
    kill_group(proc)
    assert _gone(child)
    deadline = time.monotonic() + 10
    while group_left(proc):
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_reaped_pid_that_names_another_process_now_is_left_alone() -> None:
    """What happens when the pid comes round again: another session leader has it."""
    other = subprocess.Popen(SLEEP, **NEW_GROUP)
    try:
        reaped: Any = SimpleNamespace(pid=other.pid, returncode=0)     # ours, long reaped
        assert not group_left(reaped)
        kill_group(reaped)
        time.sleep(0.2)
        assert other.poll() is None, "another program's group was killed"
    finally:
        other.kill()
        other.wait()


def test_a_group_that_has_gone_is_no_error() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"], **NEW_GROUP)
    proc.wait(10)
    kill_group(proc)
    assert not group_left(proc)
