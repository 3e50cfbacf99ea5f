"""Windows: which machine and boot this is, and whether a process of it runs (see ``lease.pid_alive``).

A pid means one process only on one machine during one boot.  Windows names the machine by its
``MachineGuid`` (written when Windows was installed; under Wine, when the prefix was made) and
the boot by the time it booted as the system keeps it (``NtQuerySystemInformation``'s boot time,
in 100 ns; under Wine, the moment its Wine server started: each server has pids of its own).
Whatever cannot be read gives "" and every pid is then judged by its heartbeat, as before: a
wrong "unknown" only costs time, never a live process taken for gone.
"""
import ctypes
import functools
import hashlib
import sys
from typing import Any

_QUERY_LIMITED_INFORMATION = 0x1000
_STILL_ACTIVE = 259
_INVALID_PARAMETER = 87      # OpenProcess of a pid no process has


@functools.cache
def _kernel32() -> Any:
    """kernel32, its functions' types declared once (``running`` is asked at every lock watched)."""
    if sys.platform != "win32":
        raise OSError("Windows only")
    k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    k32.OpenProcess.restype = ctypes.c_void_p
    k32.OpenProcess.argtypes = [ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32]
    k32.GetExitCodeProcess.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]
    k32.CloseHandle.argtypes = [ctypes.c_void_p]
    return k32


def _machine_guid() -> str:
    if sys.platform != "win32":
        raise OSError("Windows only")
    import winreg
    key = r"SOFTWARE\Microsoft\Cryptography"
    with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key, 0, winreg.KEY_READ | winreg.KEY_WOW64_64KEY) as k:
        guid, _ = winreg.QueryValueEx(k, "MachineGuid")
    return str(guid)


class _TimeOfDay(ctypes.Structure):
    """SYSTEM_TIMEOFDAY_INFORMATION (NtQuerySystemInformation's class 3)."""
    _fields_ = [("BootTime", ctypes.c_int64), ("CurrentTime", ctypes.c_int64), ("TimeZoneBias", ctypes.c_int64),
                ("TimeZoneId", ctypes.c_uint32), ("Reserved", ctypes.c_uint32), ("BootTimeBias", ctypes.c_uint64),
                ("SleepTimeBias", ctypes.c_uint64)]


def _boot_time() -> int:
    """When this machine booted (under Wine: when its Wine server started), in 100 ns."""
    if sys.platform != "win32":
        raise OSError("Windows only")
    info = _TimeOfDay()
    status = ctypes.WinDLL("ntdll").NtQuerySystemInformation(3, ctypes.byref(info), ctypes.sizeof(info), None)
    if status != 0 or info.BootTime <= 0:
        raise OSError(f"no boot time (status {status:#x})")
    return int(info.BootTime)


def machine() -> str:
    """This machine and boot, for ``lease.MACHINE`` (short: records keep 100 characters of it);
    "" when they cannot be told."""
    if sys.platform != "win32":
        return ""
    try:
        text = f"{_machine_guid()}/boot-{_boot_time()}"
    except (OSError, AttributeError, ValueError, ImportError):
        return ""
    return "win-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:24]


def running(pid: int) -> bool:
    """Whether process ``pid`` of this machine runs (True when that cannot be told)."""
    if sys.platform != "win32":
        return True
    k32 = _kernel32()
    handle = k32.OpenProcess(_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return bool(ctypes.get_last_error() != _INVALID_PARAMETER)   # (access denied: it exists)
    try:
        code = ctypes.c_uint32()
        if not k32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == _STILL_ACTIVE      # (exited, its handle still held by someone)
    finally:
        k32.CloseHandle(handle)
