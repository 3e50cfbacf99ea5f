"""Your own computer player, by name, wherever a built-in one goes.

``--ai`` takes a built-in name (``best``), and also:

- ``FILE.py:CLASS``: a class in a Python file (``mybot.py:Corners``); ``FILE.py`` alone when the
  file defines exactly one strategy class;
- ``package.module:CLASS``: a class in an importable module;
- a name that an installed package announces in the entry-point group ``cardstand.strategies``
  (``[project.entry-points."cardstand.strategies"] corners = "mybots:Corners"``).

A class is a strategy when it has a ``next_move(position, time_limit=None)`` method (subclassing
``engine.strategies.Strategy`` is the documented way).  Anything that goes wrong is a
``StrategyError`` whose message names the file and line where there is one.

Once loaded, a strategy is not trusted to behave: ``Own`` asks it for a move with a time limit,
and an exception, an illegal answer or a think that overruns gives the fallback's move and the
reason, never a traceback and never a hang.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Callable, Optional

from .notation import PASS, square_name
from .position import Position

GROUP = "cardstand.strategies"
GRACE = 1.0     # seconds a strategy may overrun its time limit before its move is not waited for
DEFAULT_LIMIT = 10.0    # seconds a move may take when no time limit is given
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class StrategyError(ValueError):
    """A strategy that cannot be loaded or made; the message says which file, line and why."""


def is_spec(name: str) -> bool:
    """Whether ``name`` names one's own strategy (a file or a module and a class) rather than a
    built-in or announced name."""
    return ":" in name or name.lower().endswith(".py")


def resolve(name: str) -> type:
    """The class ``name`` names: ``FILE.py[:CLASS]``, ``package.module:CLASS`` or an announced
    name (see the module's docstring).  ``StrategyError`` says why not."""
    if not is_spec(name):
        for ep in announced():
            if ep.name.lower() == name.lower():
                try:
                    cls = ep.load()
                except Exception as e:      # noqa: BLE001 - someone else's code: any failure is theirs
                    raise StrategyError(f"strategy {name!r} ({ep.value}) does not load: {_where(e)}") from None
                return _check_class(cls, f"{ep.value}")
        raise StrategyError(f"unknown AI {name!r}")
    if name.lower().endswith(".py"):
        target, cls_name = name, ""
    else:
        target, _, cls_name = name.rpartition(":")
        if not cls_name.isidentifier():
            raise StrategyError(f"{name!r}: {cls_name!r} is not a class name (write FILE.py:CLASS or "
                                f"package.module:CLASS)")
    if target.lower().endswith(".py"):
        module = _load_file(Path(target))
        where = target
    elif MODULE.fullmatch(target):
        try:
            module = importlib.import_module(target)
        except Exception as e:      # noqa: BLE001
            raise StrategyError(f"module {target!r} does not load: {_where(e)}") from None
        where = target
    else:
        raise StrategyError(f"{name!r}: write FILE.py:CLASS or package.module:CLASS")
    if not cls_name:
        found = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if c.__module__ == module.__name__ and _is_strategy(c)]
        if len(found) != 1:
            names = ", ".join(c.__name__ for c in found)
            raise StrategyError(f"{where}: {'no strategy class' if not found else 'several strategy classes (' + names + ')'}"
                                f": name one, as {where}:CLASS")
        return found[0]
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise StrategyError(f"{where}: no class {cls_name!r} in it")
    return _check_class(cls, f"{where}:{cls_name}")


def make(cls: type, **options: Any) -> Any:
    """An instance of one's own strategy class; ``options`` it does not take are left out."""
    try:
        params = inspect.signature(cls).parameters
        takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
        kept = {k: v for k, v in options.items() if takes_all or k in params}
        obj = cls(**kept)
    except Exception as e:      # noqa: BLE001
        raise StrategyError(f"{cls.__name__}() fails: {_where(e)}") from None
    if not getattr(obj, "name", None) or getattr(obj, "name", None) == "strategy":
        try:
            obj.name = cls.__name__
        except Exception:       # noqa: BLE001 - a name is a nicety
            pass
    return obj


def announced() -> list[Any]:
    """The strategies installed packages announce (entry-point group ``cardstand.strategies``:
    ``importlib.metadata.EntryPoint``s)."""
    import importlib.metadata     # (only when asked: it costs a start-up some 30 ms)
    try:
        return list(importlib.metadata.entry_points(group=GROUP))
    except Exception:       # noqa: BLE001 - a broken distribution must not stop the built-in ones
        return []


class Own:
    """One's own strategy, guarded: ``next_move`` always returns a legal move.  When the strategy
    raises, answers what is not a legal move, or has not answered ``GRACE`` seconds after its time
    limit, the ``fallback``'s move is played and ``problem`` says why ('' after a good move;
    ``problems`` counts them).  Other attributes are the strategy's own."""

    def __init__(self, strategy: Any, fallback: Any, where: str = "") -> None:
        self.strategy = strategy
        self.fallback = fallback
        self.where = where
        self.name = str(getattr(strategy, "name", "") or type(strategy).__name__)
        self.problem = ""
        self.problems = 0
        self.nodes = 0
        self._thinking: Optional[threading.Thread] = None

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        if self._thinking is not None and self._thinking.is_alive():
            move, problem = self.fallback.next_move(position), "it is still thinking about an earlier move"
        else:
            move, problem, self._thinking = guarded_move(self.strategy, position, time_limit,
                                                         self.fallback.next_move)
        self.problem = f"{self.name}: {problem}" if problem else ""
        self.problems += bool(problem)
        return move

    def ponder(self, position: Position) -> None:
        """(one's own strategies do not think in the background)"""

    def stop_pondering(self) -> None:
        """(nothing to stop)"""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "strategy":
            raise AttributeError(name)
        return getattr(self.strategy, name)


def guarded_move(strategy: Any, position: Position, time_limit: Optional[float],
                 fallback: Callable[[Position], int]) -> tuple[int, str, Optional[threading.Thread]]:
    """``(move, problem, thread)``: ``strategy``'s move for ``position``, or when it raises, answers
    what is not a legal move, or has not answered ``GRACE`` seconds after ``time_limit`` (None:
    ``DEFAULT_LIMIT``), ``fallback``'s move and the reason ('' when nothing went wrong).  A think
    that overruns is left to finish on its own (a thread cannot be stopped): ``thread`` is it
    (None when it has finished), and its answer is not used."""
    box: dict[str, Any] = {}

    def think() -> None:
        try:
            box["move"] = strategy.next_move(position, time_limit)
        except BaseException as e:      # noqa: BLE001 - someone else's code: report, never crash
            box["error"] = e

    limit = DEFAULT_LIMIT if time_limit is None else time_limit
    worker = threading.Thread(target=think, name=f"strategy {getattr(strategy, 'name', '?')}", daemon=True)
    worker.start()
    worker.join(limit + GRACE)
    if worker.is_alive():
        return fallback(position), f"no move within {limit:g} s", worker
    if "error" in box:
        return fallback(position), _where(box["error"]), None
    move = box.get("move")
    problem = _illegal(position, move)
    if problem or not isinstance(move, int):
        return fallback(position), problem, None
    return move, "", None


def _illegal(position: Position, move: object) -> str:
    if isinstance(move, bool) or not isinstance(move, int):
        return f"next_move returned {_short(move)}, not a square index"
    if move == PASS:
        return "" if not position.legal_moves_mask() else "it passed with a legal move to play"
    if not 0 <= move < position.size * position.size:
        return f"next_move returned {move}, off the {position.size}x{position.size} board"
    if not position.is_legal(move):
        return f"{square_name(move, position.size)} is not a legal move"
    return ""


def _short(value: object) -> str:
    s = repr(value)
    return s if len(s) <= 40 else s[:37] + "..."


def _is_strategy(cls: type) -> bool:
    return callable(getattr(cls, "next_move", None))


def _check_class(cls: object, where: str) -> type:
    if not isinstance(cls, type):
        raise StrategyError(f"{where} is not a class")
    if not _is_strategy(cls):
        raise StrategyError(f"{where} is not a strategy: it has no next_move(position, time_limit) method")
    return cls


_loaded: dict[Path, Any] = {}


def _load_file(path: Path) -> Any:
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as e:
        raise StrategyError(f"{path}: {e}") from None
    if real in _loaded:
        return _loaded[real]
    if not real.is_file():
        raise StrategyError(f"{path}: {'no such file' if not real.exists() else 'not a file'}")
    name = f"cardstand_user_{abs(hash(str(real))):x}_{re.sub(r'[^A-Za-z0-9_]', '_', real.stem)}"
    spec = importlib.util.spec_from_file_location(name, real)
    if spec is None or spec.loader is None:
        raise StrategyError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(real.parent)
    sys.path.insert(0, folder)      # (its own helper modules beside it import)
    try:
        spec.loader.exec_module(module)
    except BaseException as e:      # noqa: BLE001 - SystemExit and KeyboardInterrupt in a file are its errors too
        del sys.modules[name]
        if isinstance(e, KeyboardInterrupt):
            raise
        raise StrategyError(f"{path} does not load: {_where(e)}") from None
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:
            pass
    _loaded[real] = module
    return module


def _where(e: BaseException) -> str:
    """``FILE, line N: Kind: message`` for an exception raised in someone's code (the last frame
    outside this package), or ``Kind: message``."""
    text = f"{type(e).__name__}: {e}".strip().rstrip(":")
    if isinstance(e, SyntaxError) and e.filename:
        return f"{e.filename}, line {e.lineno}: {type(e).__name__}: {e.msg}"
    here = os.path.dirname(os.path.abspath(__file__))
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not os.path.abspath(f.filename).startswith(here) and "importlib" not in f.filename]
    if frames:
        f = frames[-1]
        return f"{f.filename}, line {f.lineno}: {text}"
    return text
