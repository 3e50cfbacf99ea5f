"""Windows: which machine and boot this is, and whether a process of it runs (see ``lease.pid_alive``).

A pid means one process only on one machine during one boot.  Windows names the machine by its
``MachineGuid`` (written when Windows was installed; under Wine, when the prefix was made) and
the boot by the minute it started (now less the milliseconds ``GetTickCount64`` counts since,
sleep included).  Under Wine the prefix's own folder is added: each prefix has its own Wine
server, and so its own pids.  Whatever cannot be read gives "" and every pid is then judged by
its heartbeat, as before: a wrong "unknown" only costs time, never a live process taken for gone.
"""
import ctypes
import hashlib
import sys
import time
from typing import Any

_QUERY_LIMITED_INFORMATION = 0x1000
_STILL_ACTIVE = 259
_INVALID_PARAMETER = 87      # OpenProcess of a pid no process has


def _kernel32() -> Any:
    if sys.platform != "win32":
        raise OSError("Windows only")
    k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    k32.GetTickCount64.restype = ctypes.c_uint64
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


def _wine_prefix(k32: Any) -> str:
    """The Linux path of drive C: under Wine (its prefix); "" on Windows itself."""
    try:
        unix_name = k32.wine_get_unix_file_name
    except AttributeError:
        return ""
    unix_name.restype = ctypes.c_char_p
    unix_name.argtypes = [ctypes.c_wchar_p]
    path = unix_name("C:\\")
    if not path:
        raise OSError("Wine gave no path for drive C:")
    return "wine:" + path.decode("utf-8", "replace")


def machine() -> str:
    """This machine and boot, for ``lease.MACHINE`` (short: records keep 100 characters of it);
    "" when they cannot be told."""
    if sys.platform != "win32":
        return ""
    try:
        k32 = _kernel32()
        boot_minute = int((time.time() - k32.GetTickCount64() / 1000) // 60)
        parts = [_machine_guid(), f"boot-{boot_minute}", _wine_prefix(k32)]
    except (OSError, AttributeError, ValueError, ImportError):
        return ""
    return "win-" + hashlib.sha1("/".join(p for p in parts if p).encode("utf-8")).hexdigest()[:24]


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
