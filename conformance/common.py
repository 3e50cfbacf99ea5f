"""What every scenario uses: its verdict (``check``, ``Fail``, ``Skip``) and the two views of the board folder."""
import contextvars
import threading
import uuid
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from comm import Board, Message


class Fail(Exception):
    """The implementation does not do what the clause says (the message says what it did)."""


class Skip(Exception):
    """The scenario cannot run here (no symbolic links or FIFOs on this system)."""


# The running scenario's folders (runner.py sets them): where its boards are made, and the same folder
# seen through a second mount (None: no second mount).  Outside a scenario there is no second view.
VIEWS: ContextVar[tuple[Path, Path | None] | None] = ContextVar("conformance_views", default=None)


def second_view() -> Path | None:
    """Where the kit's own side sees the boards through a second mount, if it was given one."""
    views = VIEWS.get()
    return views[1] if views else None


def other_view(d: Path) -> Path:
    """The same board folder as the kit's own side sees it (another mount of the share, if given)."""
    views = VIEWS.get()
    if views is None or views[1] is None:
        return d
    return views[1] / d.relative_to(views[0])


def check(cond: object, what: str) -> None:
    if not cond:
        raise Fail(what)


def _secret() -> str:
    """A fresh shared secret (CARDSTAND_SECRET), not ASCII."""
    return f"conformance {uuid.uuid4().hex[:12]} sécret"


def run_of(board: "Board") -> str:
    """The run of a joined ``board`` (the kit's own, for the messages it frames itself)."""
    if board.run is None:
        raise Fail(f"{board.name} has not joined")
    return board.run


def body_of(message: "Message | None") -> str | None:
    """The body of a received message, or None when none was received."""
    return None if message is None else message.body


# Whether a scenario's parts may run at once (``side_by_side``): not when the kit runs one thing at a
# time (``--jobs 1``, for a slow or busy computer)
PARTS_AT_ONCE: ContextVar[bool] = ContextVar("conformance_parts_at_once", default=True)


def side_by_side(*parts: Callable[[], None]) -> None:
    """Run a scenario's parts that need nothing of each other (each on a board folder of its own) at
    once, each in a copy of the scenario's context with programs of its own, and wait for them; the
    first to fail, in the order given, fails the scenario, with what its own programs said.  The parts
    after a failed one are stopped (their outcome no longer matters); those before it run on.  One
    after another, stopping at the first failure, when the kit runs one thing at a time."""
    from .process import PROGRAMS, Programs
    scenario = PROGRAMS.get()
    own = [scenario.part() if scenario is not None else Programs() for _ in parts]
    errors: list[BaseException | None] = [None] * len(parts)

    def run(i: int, part: Callable[[], None]) -> None:
        PROGRAMS.set(own[i])
        try:
            part()
        except Fail as e:
            errors[i] = Fail(own[i].explained(str(e)))      # (before its programs are stopped)
        except BaseException as e:      # (Skip, or a bug of the kit's: the scenario reports it)
            errors[i] = e
        finally:
            if errors[i] is not None:
                for programs in own[i + 1:]:
                    programs.stop()
            own[i].stop()

    if PARTS_AT_ONCE.get():
        threads = [threading.Thread(target=contextvars.copy_context().run, args=(run, i, part), daemon=True)
                   for i, part in enumerate(parts)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for i, part in enumerate(parts):
            contextvars.copy_context().run(run, i, part)
            if errors[i] is not None:
                break
    for e in errors:
        if e is not None:
            raise e
