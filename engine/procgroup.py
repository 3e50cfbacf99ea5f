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

On Windows only the leader is killed (its children end at their input's end), unless it was put
in a job object (``contain``): then closing the job (``release``) ends it and all it started,
and the job can limit their memory together.
"""
import os
import signal
import subprocess
import sys
from typing import Any, Callable, Optional

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


def dies_with_parent() -> "Optional[Callable[[], None]]":
    """A ``preexec_fn`` for ``Popen`` that has the kernel send the child SIGTERM when this process
    ends, however it ends (Linux: ``PR_SET_PDEATHSIG``); None elsewhere (Windows: ``contain``, whose
    job ends with this process)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl     # (looked up here: the child only calls it)
    except (OSError, AttributeError):
        return None
    term = int(signal.SIGTERM)

    def arm() -> None:
        prctl(1, term, 0, 0, 0)     # PR_SET_PDEATHSIG
    return arm


def contain(proc: "subprocess.Popen[Any]", memory_mb: int) -> Optional[int]:
    """Windows: put ``proc`` in a job object of its own that ends it and every process it starts
    when the job is released (``release``, or this program's end), and limits their memory
    together to ``memory_mb`` megabytes (0: no limit).  The job's handle, or None (not Windows, or
    the system refused: nothing is limited then, and nothing else changes).  A process ``proc``
    started before it was put in the job stays outside it."""
    if sys.platform != "win32":
        return None
    try:
        import ctypes
        from ctypes import wintypes
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.CreateJobObjectW.restype = wintypes.HANDLE
        kernel32.CreateJobObjectW.argtypes = [wintypes.LPVOID, wintypes.LPCWSTR]
        kernel32.SetInformationJobObject.argtypes = [wintypes.HANDLE, ctypes.c_int, wintypes.LPVOID, wintypes.DWORD]
        kernel32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
        kernel32.CloseHandle.argtypes = [wintypes.HANDLE]

        class Basic(ctypes.Structure):      # JOBOBJECT_BASIC_LIMIT_INFORMATION
            _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                        ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                        ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                        ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                        ("SchedulingClass", wintypes.DWORD)]

        class Counters(ctypes.Structure):   # IO_COUNTERS
            _fields_ = [(name, ctypes.c_uint64) for name in ("ReadOperationCount", "WriteOperationCount",
                                                             "OtherOperationCount", "ReadTransferCount",
                                                             "WriteTransferCount", "OtherTransferCount")]

        class Extended(ctypes.Structure):   # JOBOBJECT_EXTENDED_LIMIT_INFORMATION
            _fields_ = [("BasicLimitInformation", Basic), ("IoInfo", Counters),
                        ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                        ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

        job = kernel32.CreateJobObjectW(None, None)
        if not job:
            return None
        info = Extended()
        info.BasicLimitInformation.LimitFlags = 0x2000 | (0x200 if memory_mb else 0)   # kill on close, job memory
        info.JobMemoryLimit = memory_mb * 1024 * 1024
        handle = int(getattr(proc, "_handle", 0))
        if not (kernel32.SetInformationJobObject(job, 9, ctypes.byref(info), ctypes.sizeof(info))
                and handle and kernel32.AssignProcessToJobObject(job, handle)):
            kernel32.CloseHandle(job)
            return None
        return int(job)
    except (OSError, AttributeError, ValueError, TypeError):
        return None


def release(job: Optional[int]) -> None:
    """End the job ``contain`` made: the processes in it end (nothing for None)."""
    if job is None or sys.platform != "win32":
        return
    try:
        import ctypes
        from ctypes import wintypes
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.TerminateJobObject.argtypes = [wintypes.HANDLE, wintypes.UINT]
        kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
        kernel32.TerminateJobObject(job, 1)
        kernel32.CloseHandle(job)
    except (OSError, AttributeError, ValueError, TypeError):
        pass
