"""A program in a process group of its own, and killing that group without touching another's.

``Popen(..., **NEW_GROUP)`` starts a program as the leader of a new process group (a new session
on POSIX, a new process group on Windows): Ctrl+C at the terminal does not reach it, and killing
its group also stops what it started (a shell's children, a wrapper script's program).

``kill_group(proc)`` kills that group. On POSIX the group's id is the leader's pid:

- while the leader has not been reaped (``proc.returncode is None``: alive, or a zombie) its pid
  is ours, and the group is killed by it;
- once it has been reaped (by ``wait`` or ``poll``), its pid may be handed to a new process. The
  system never hands out a pid that is still some group's id, so when a process has that pid now,
  our group is empty and the pid is someone else's: nothing is killed. When none has, what is
  left of our group (a wrapper's children) is killed.

On Windows only the leader is killed (its children end at their input's end).
"""
import os
import signal
import subprocess
from typing import Any

NEW_GROUP: dict[str, Any] = ({"start_new_session": True} if os.name == "posix" else
                             {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)})


def kill_group(proc: "subprocess.Popen[Any]") -> None:
    """Kill ``proc`` (started with ``NEW_GROUP``) and what is left of its process group; it does
    not wait for them (``proc.wait()`` reaps the leader, ``group_left`` says when all have gone)."""
    if os.name != "posix":
        if proc.returncode is None:
            try:
                subprocess.Popen.kill(proc)     # (not a subclass's kill, which may come here)
            except OSError:
                pass
        return
    if _ours(proc):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:                 # the group has gone already
            pass


def group_left(proc: "subprocess.Popen[Any]") -> bool:
    """Whether anything of ``proc``'s process group still runs (POSIX; elsewhere: the leader,
    unreaped)."""
    if os.name != "posix":
        return proc.returncode is None
    if not _ours(proc):
        return False
    try:
        os.killpg(proc.pid, 0)
        return True
    except OSError:
        return False


def _ours(proc: "subprocess.Popen[Any]") -> bool:
    """Whether ``proc.pid`` still names our group: the leader is unreaped, or no process has its
    pid (then only our leftovers can hold the group's id)."""
    if proc.returncode is None:
        return True
    try:
        os.kill(proc.pid, 0)
        return False                    # the pid is another process's now: our group is empty
    except ProcessLookupError:
        return True
    except OSError:                     # (someone else's process: not allowed to signal it)
        return False
