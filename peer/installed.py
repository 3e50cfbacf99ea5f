"""Whether this Python has what the game needs, asked before anything imports it: a player
started outside the project's environment is told in one line what to activate or install,
instead of a ``ModuleNotFoundError`` traceback.  It imports nothing that may be missing."""
import importlib.util
import signal
import sys
import threading
from pathlib import Path
from typing import List, Optional, Sequence

NEEDED = ("filelock", "colorama", "prompt_toolkit")    # the modules of pyproject.toml's dependencies


def missing() -> List[str]:
    """The modules of ``NEEDED`` this Python cannot import."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def _quit(signum: int, frame: object) -> None:
    raise SystemExit(130)


def check(program: str, argv: Optional[Sequence[str]] = None) -> None:
    """Exit with code 2 and one line on stderr (in the language of ``--lang``, else the
    system's) when a module the game needs is missing.  Until ``interruptible``, a Ctrl+C
    (while the game's modules load) ends the program quietly, with code 130."""
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler:   # (not one ignored on purpose)
        signal.signal(signal.SIGINT, _quit)
    lacking = missing()
    if not lacking:
        return
    from .faces import texts
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = texts.default_lang()
    for i, arg in enumerate(argv):
        if arg.startswith("--lang="):
            lang = arg.split("=", 1)[1]
        elif arg == "--lang" and i + 1 < len(argv):
            lang = argv[i + 1]
    folder = str(Path(__file__).resolve().parent.parent)
    print(texts.text(lang, "not_installed", program=program, python=sys.executable, modules=", ".join(lacking),
                     activate=". .venv/bin/activate", activate_windows=r".venv\Scripts\Activate.ps1",
                     install="python -m pip install -e " + (f'"{folder}"' if " " in folder else folder)),
          file=sys.stderr)
    sys.exit(2)


def interruptible() -> None:
    """Ctrl+C raises ``KeyboardInterrupt`` again (after ``check``), for the program to handle."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _quit:
        signal.signal(signal.SIGINT, signal.default_int_handler)
