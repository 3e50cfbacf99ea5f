"""What the live terminal screen (``peer.faces.live``) and the window (``peer.faces.window``) share: a
``Screen`` that keeps what the session says as messages and draws ``Session.view()`` in place,
while the session runs in a worker thread.  The game itself is the session's."""
import signal
import sys
import threading
from types import FrameType
from typing import Any, Callable, Iterable, TextIO, Union

from ..players import EOF_LINE, Lines
from ..view import Side, View
from .plain import ERRORS, Screen, clock, wants_colour

# what a signal is given to (a function, or signal.SIG_DFL / SIG_IGN; None: not set from Python)
Handler = Union[Callable[[int, FrameType | None], Any], int, None]

MESSAGES_KEPT = 500
CHAT_KEYS = frozenset({"chat"})


def state_text(side: Side, screen: Screen) -> str:
    """``thinking 12 s · used 0:34, left 1:30``: a player's state and clock."""
    t = screen.t
    secs = int(side.since) if side.since is not None else None
    if side.state in ("thinking", "gone", "left") and secs is not None:
        state = t(f"live_{side.state}", secs=secs)
    else:
        state = t(f"live_{side.state}_now")
    used = t("live_used", t=clock(side.used))
    if side.left is not None:
        used += t("live_left_time", t=clock(side.left))
    elif side.per_move is not None:
        used += t("live_per_move", secs=f"{side.per_move:g}")
    return f"{state} · {used}"


def player_label(side: Side, colour: int, screen: Screen) -> str:
    """``● black Ann (person, you)``: a player's disc, colour, name and kind."""
    t = screen.t
    label = f"{screen.disc(colour)} {screen.colour_name(colour)}"
    name = screen.shown_name(side.name)
    tags = [t("kind_" + side.kind)] if side.kind else []
    if name not in (screen.colour_name(colour), *tags[:1]):   # (not "black person (person)")
        label += f" {name}"
    if side.me:
        tags.append(t("you"))
    if tags:
        label += t("tags", tags=t("tag_sep").join(tags))
    return label


def result_text(view: View, screen: Screen) -> str:
    """How the game ended, for people: the record's result, else the discs."""
    if view.result:
        return screen.result(view.result)
    b, w = view.position.discs() if view.position is not None else (0, 0)
    return screen.t("score_text", b=b, w=w)


class Face(Screen):
    """A ``Screen`` that draws in place.  ``run(work, view)`` shows it while ``work()`` (the
    session) runs in another thread; what the person enters goes to ``lines``.  A subclass
    draws: ``_show(start)`` runs its main loop (calling ``start()`` once it is up) until the face
    is closed, ``_close(result)`` ends that loop from any thread, ``refresh()`` asks for a redraw."""

    # leave as quit does (SIGHUP: the terminal closed; SIGBREAK: Windows' Ctrl+Break, or its console closed)
    signals: tuple[str, ...] = ("SIGTERM", "SIGHUP", "SIGBREAK")
    leaving = "leaving"                 # what is said when leaving is asked for

    def __init__(self, lang: str = "en", colour: bool = True, human: bool = True) -> None:
        super().__init__(lang, colour=colour)
        self.human = human          # a person moves on this side (else: a computer)
        self.lines = Lines()
        self.messages: list[tuple[str, str]] = []          # (style, text): what the session said, oldest first
        self.said = 0               # messages said in all (the list keeps the last MESSAGES_KEPT)
        self.errors: list[str] = []            # the messages meant for stderr (shown again there at the end)
        self.view: Callable[[], View] | None = None     # once a session is attached
        self.finished = False       # work() has returned
        self._style = ""
        self._lock = threading.RLock()
        self._interrupted = 0

    # -- what the session says ---------------------------------------------------------
    def say(self, key: str, **kw: object) -> None:
        with self._lock:
            self._style = "chat" if key in CHAT_KEYS else "error" if key in ERRORS else ""
            super().say(key, **kw)
            self._style = ""

    def line(self, s: str = "", stream: TextIO | None = None) -> None:
        with self._lock:
            style = self._style or ("error" if stream is sys.stderr else "")
            for part in str(s).split("\n"):
                self.messages.append((style, part))
                self.said += 1
                if style == "error":
                    self.errors.append(part)
            del self.messages[:-MESSAGES_KEPT]
        self.refresh()

    def _fitted(self, text: str, stream: TextIO) -> str:
        return text         # wrapped when drawn, to the width of the moment

    def draw(self, view: View) -> None:
        self.refresh()      # (drawn from the session's view, as it is when drawn)

    def refresh(self) -> None:
        pass

    def enter(self, text: str, echo: bool = True, shown: str | None = None) -> None:
        """A line for the session, as if typed, shown among the messages (``shown`` instead of
        the line itself; nothing when not ``echo``)."""
        if echo:
            with self._lock:
                self.messages.append(("typed", f"> {text if shown is None else shown}"))
                self.said += 1
        self.lines.put(text + "\n")

    def interrupt(self) -> None:
        """Ctrl+C, SIGTERM, closing: leave as ``quit`` does; a second one leaves at once."""
        self._interrupted += 1
        if self._interrupted == 1:
            self.say(self.leaving)
            self.lines.put("quit\n")
        else:
            self._close("forced")

    # -- running ---------------------------------------------------------------------------
    def _show(self, start: Callable[[], None]) -> None:
        raise NotImplementedError

    def _close(self, result: str) -> None:
        raise NotImplementedError

    def _finished(self) -> None:
        """``work()`` has returned (called in its thread): the face closes."""
        self._close("done")

    def run(self, work: Callable[[], int], view: Callable[[], View]) -> int:
        """Show the face while ``work()`` runs (in a thread); ``view()`` is what it draws.
        Returns ``work()``'s exit code (130 when left at once, before it returned)."""
        self.view = view
        outcome: dict[str, Any] = {}

        def target() -> None:
            try:
                outcome["code"] = work()
            except BaseException as e:      # shown after the face is closed
                outcome["error"] = e
            finally:
                self.finished = True
                self._finished()

        thread = threading.Thread(target=target, name="session", daemon=True)
        old = on_signals(self.signals, lambda *_: self.interrupt())
        try:
            self._show(thread.start)
            if self._interrupted < 2:
                thread.join(1.0)            # (closed as the session ends: its exit code)
        except (EOFError, OSError):         # the terminal went away: leave as quit does
            self.lines.put(EOF_LINE)
            thread.join(5)
        finally:
            on_signals(self.signals, old)
        try:
            self._summary()
        except OSError:     # (the terminal is gone: nobody to show it to)
            pass
        if "error" in outcome:
            raise outcome["error"]
        code: int = outcome.get("code", 130)
        return code

    def _summary(self) -> None:
        """What stays on the terminal: the final board and the last things said (errors also
        to stderr), in plain lines."""
        plain = Screen(self.lang, self.colour and wants_colour())
        v = self.view() if self.view is not None else None
        if v is not None and v.position is not None:
            plain.board(v.position, last=v.last_square, flipped=v.flipped, show_legal=False)
        with self._lock:
            shown = [text for style, text in self.messages[-20:] if style not in ("typed", "error")]
        for text in shown:
            plain.line(plain._fitted(text, plain.stream))
        for text in self.errors:
            plain.line(plain._fitted(text, sys.stderr), sys.stderr)


def on_signals(names: Iterable[str], handler: Handler | dict[int, Handler]) -> dict[int, Handler]:
    """Install ``handler`` for the signals ``names`` that this system has, in the main thread;
    returns what to give back to ``on_signals`` to restore the old ones."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old: dict[int, Handler] = {}
    for name in names:
        sig = getattr(signal, name, None)
        if sig is not None:
            h = handler.get(sig) if isinstance(handler, dict) else handler
            old[sig] = signal.signal(sig, h if h is not None else signal.SIG_DFL)
    return old
