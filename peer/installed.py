"""Whether this Python has what the game needs, asked before anything imports it: a player
started outside the project's environment is told in one line what to activate or install,
instead of a ``ModuleNotFoundError`` traceback.  It imports nothing that may be missing."""
import signal
import sys

TYPE_CHECKING = False   # (typing is not imported: a Ctrl+C is caught sooner)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

_interrupted = False
_program = False    # check ran: this process is one of the programs, not a library's user


def _quit(signum: int, frame: object) -> None:
    global _interrupted
    if _interrupted:        # (a second one, as the program already exits)
        return
    _interrupted = True     # (an exception raised while Python compiles a module is lost: see interruptible)
    try:                    # the program ends: a second Ctrl+C would only cut into its exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):
        pass
    raise SystemExit(130)


def _unraisable(u: "Any") -> None:
    """``sys.unraisablehook`` of a program: the exit of ``_quit`` landing in a callback Python
    cannot raise from (a weakref's, a gc's) is not reported: the program ends anyway."""
    if _interrupted and isinstance(u.exc_value, (SystemExit, KeyboardInterrupt)):
        return
    sys.__unraisablehook__(u)


def _catch() -> None:
    """``_quit`` for Ctrl+C when the default handler is in place (not one ignored on purpose), in
    the main thread only."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _quit)
    except ValueError:      # not the main thread
        pass


NEEDED = ("colorama", "prompt_toolkit")    # the modules of pyproject.toml's dependencies


def missing() -> "list[str]":
    """The modules of ``NEEDED`` this Python cannot import."""
    import importlib.util
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def check(program: str, argv: "Sequence[str] | None" = None) -> None:
    """Exit with code 2 and one line on stderr (in the language of ``--lang``, else the
    system's) when a module the game needs is missing.  Until ``interruptible``, a Ctrl+C
    (while the game's modules load) ends the program quietly, with code 130."""
    global _program
    _program = True
    if sys.unraisablehook is sys.__unraisablehook__:
        sys.unraisablehook = _unraisable
    _catch()
    lacking = missing()
    if not lacking:
        return
    from pathlib import Path
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
    """Ctrl+C raises ``KeyboardInterrupt`` again (after ``check``), for the program to handle; a
    Ctrl+C that came while the modules loaded and was lost there ends the program now (130)."""
    try:
        if signal.getsignal(signal.SIGINT) is _quit:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:      # not the main thread
        pass
    if _interrupted:
        raise SystemExit(130)


STOPPING = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")    # Ctrl+C and the signals that stop a program


def hold_off() -> "dict[int, Any]":
    """Ignore ``STOPPING`` (those this system has) from now on; returns their handlers before, to
    give back.  A signal pending as one is set is handled in that call: it is set again.  Nothing
    outside the main thread."""
    old: "dict[int, Any]" = {}
    for name in STOPPING:
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            old[sig] = signal.getsignal(sig)
        except ValueError:      # not the main thread
            return old
        while True:
            try:
                signal.signal(sig, signal.SIG_IGN)
                break
            except KeyboardInterrupt:
                pass
            except OSError:     # "Signal 2 ignored due to race condition": one came as it was set
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    raise
                break
    return old


def leaving() -> None:
    """The program has done its cleaning up and exits: from here on Ctrl+C and the stopping signals
    are ignored, as a second Ctrl+C would only cut into Python's own shutdown (with a traceback).
    Nothing happens in a process that did not start through ``check``."""
    if _program:
        hold_off()


def command_name(colour: "str | None" = None) -> str:
    """``cardstand-black`` (or ``cardstand``...) when this run was started by the console command
    an installed package gives, else ''."""
    from pathlib import Path
    name = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else ""
    if not name.startswith("cardstand"):
        return ""
    return {None: "cardstand", "black": "cardstand-black", "white": "cardstand-white"}.get(colour, "cardstand")


def peer_command() -> str:
    """How the person started the players' commands: ``cardstand`` or ``python -m peer``."""
    return command_name() or "python -m peer"
