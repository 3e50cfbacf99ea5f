"""The live terminal screen: the board, both players, the move list and the messages drawn in
place, above an input line with editing and history that nothing arriving ever breaks.

It is a face of ``Session``: it draws ``Session.view()`` and shows what the session says; the game
itself is the session's.  prompt_toolkit draws it (the same on Windows consoles and VT100
terminals, with resizing); the plain line-by-line ``Screen`` stays for pipes, ``--plain`` and
``NO_COLOR``.
"""
import functools
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple

from engine import BLACK, WHITE

from .face import Face, player_label, result_text, state_text
from ..view import View
from .plain import HOLE, cwidth, wrap

if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyPressEvent
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.layout import Dimension

Line = List[Tuple[str, str]]     # a line of (style, text) fragments
SIDE_MIN = 30           # columns the players' panel needs beside the board (else it goes below)
SIDE_MAX = 44           # (and at most takes: the counts stay near the names)
STYLE = {
    "board": "bg:ansigreen fg:ansiblack",
    "black": "bg:ansigreen fg:ansiblack bold",
    "white": "bg:ansigreen fg:ansiwhite bold",
    "last": "bg:ansired",
    "flip": "bg:ansiyellow",
    "legal": "bg:ansigreen fg:ansibrightyellow bold",
    "hole": "bg:ansiblack fg:ansibrightblack",
    "coord": "fg:ansibrightblack",
    "turn": "bold",
    "me": "bold",
    "dim": "fg:ansibrightblack",
    "chat": "fg:ansicyan",
    "error": "fg:ansired bold",
    "typed": "fg:ansibrightblack",
    "rule": "fg:ansibrightblack",
}
MONO = {"last": "reverse", "flip": "underline", "legal": "bold", "hole": "", "turn": "bold", "me": "bold",
        "error": "bold", "typed": "", "chat": "", "dim": "", "rule": ""}


def fit(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` (with … when cut)."""
    if cwidth(text) <= columns:
        return text
    while text and cwidth(text) > columns - 1:
        text = text[:-1]
    return text + "…"


# -- drawing a View: pure functions of it, the screen's words, and the width -------------------

def board_lines(view: View, screen: Face) -> List[Line]:
    """The board as lines of (style, text) fragments, coordinates around it."""
    n = view.size
    pos = view.position
    legal = pos.legal_moves_mask() if pos is not None and view.show_legal else 0
    last = view.last_square
    out: List[Line] = [[("class:coord", "     " + " ".join(chr(ord("a") + x) for x in range(n)))]]
    for y in range(n):
        row: Line = [("class:coord", f"{y + 1:>3} "), ("class:board", " ")]
        for x in range(n):
            sq = y * n + x
            c = pos.colour_at(sq) if pos is not None else None
            if pos is not None and pos.holes >> sq & 1:
                row.append(("class:hole", HOLE))
            elif c is None:
                row.append(("class:legal", screen.dot) if legal >> sq & 1 else ("class:board", "."))
            else:
                style = "class:black" if c == BLACK else "class:white"
                if sq == last:
                    style += " class:last"
                elif view.flipped >> sq & 1:
                    style += " class:flip"
                row.append((style, screen.disc(c)))
            row.append(("class:board", " "))
        out.append(row)
    return out


def side_lines(view: View, screen: Face, width: int, move_rows: int, rows: Optional[int] = None) -> List[Line]:
    """Both players (name, kind, discs, state, clock), whose turn, the last move, and the end of
    the numbered move list (at most ``move_rows`` rows).  At most ``rows`` lines: the oldest moves
    give way first, then the blank line, the last move and the players' states; whose turn it is
    stays longest."""
    t = screen.t
    pos = view.position
    counts = pos.discs() if pos is not None else (None, None)
    items: List[Tuple[int, Line]] = []      # (rank, line) in the order shown; the highest rank gives way first
    for colour in (BLACK, WHITE):
        side = view.sides[colour]
        label = player_label(side, colour, screen)
        count = "" if counts[colour] is None else f"{counts[colour]:>3}"
        room = max(1, width - len(count) - 1)
        label = fit(label, room)
        style = "class:me" if side.me else ""
        items.append((1, [(style, label + " " * (room - cwidth(label) + 1)), ("class:turn", count)]))
        items.append((2, [("class:dim", fit("   " + state_text(side, screen), width))]))
    items.append((4, []))
    if pos is None:
        items.append((0, [("class:dim", fit(t("live_not_started"), width))]))
    else:
        if view.ended:
            turn = t("live_over", result=result_text(view, screen))
        else:
            turn = t("live_turn", n=len(view.moves) + 1, colour=screen.colour_name(pos.turn))
        items.append((0, [("class:turn", fit(turn, width))]))
        if view.last is not None:
            items.append((3, [("", fit(t("live_last", move=screen.describe(view.last, view.size)), width))]))
        entries = [f"{i:>2} {screen.describe(m, view.size)}" for i, m in enumerate(view.moves, 1)]
        if entries and move_rows > 0:
            wide = max(cwidth(e) for e in entries) + 2
            per_row = max(1, width // wide)
            lines = [entries[i:i + per_row] for i in range(0, len(entries), per_row)][-move_rows:]
            for age, r in enumerate(lines):
                items.append((5 + len(lines) - age, [("", "".join(e + " " * (wide - cwidth(e)) for e in r).rstrip())]))
    if rows is not None and rows < len(items):
        kept = sorted(sorted(range(len(items)), key=lambda i: items[i][0])[:max(0, rows)])
        items = [items[i] for i in kept]
    return [line for _, line in items]


def board_width(size: int) -> int:
    """Columns the board takes, with its coordinates."""
    return 5 + 2 * size


def _beside(view: View, width: int) -> bool:
    return width >= board_width(view.size) + 2 + SIDE_MIN


def top_lines(view: View, screen: Face, width: int, height: Optional[int] = None) -> List[Line]:
    """The board with the players' panel beside it, or above it when the terminal is narrow; at
    most ``height`` lines, of which the board takes the whole height it needs and the panel what
    is left (see ``side_lines``).  Before the game starts, only the panel.  A terminal too narrow
    or too short for the board says so instead."""
    if view.position is None:
        return side_lines(view, screen, min(SIDE_MAX, width), 0, height)
    height = 10 ** 6 if height is None else height
    board = board_lines(view, screen)
    board_w = board_width(view.size)
    if width < board_w or height < len(board):
        return too_small(view, screen, width)[:max(0, height)]
    fixed = 8       # players (4), a blank, turn, last move, a blank
    if _beside(view, width):
        side_w = min(SIDE_MAX, width - board_w - 2)
        side = side_lines(view, screen, side_w, max(2, len(board) - fixed), height)
        out = []
        for i in range(max(len(board), len(side))):
            left = board[i] if i < len(board) else []
            used = sum(cwidth(text) for _, text in left)
            out.append(left + [("", " " * (board_w + 2 - used))] + (side[i] if i < len(side) else []))
        return out
    return side_lines(view, screen, min(SIDE_MAX, width), 1, height - len(board)) + board


def too_small(view: View, screen: Face, width: int) -> List[Line]:
    """What a terminal too small for the board shows instead of it: the size it needs."""
    text = screen.t("live_too_small", columns=board_width(view.size), rows=view.size + 1 + BELOW)
    return [[("class:error", line)] for line in wrap(text, width)]


BELOW = 2               # lines under the top that always stay: the last message and the input line
ESSENTIAL = 3           # lines of the panel that stay above a board in a narrow terminal: the players, the turn


def frame(view: View, screen: Face, columns: int, rows: int) -> Tuple[List[Line], bool, bool]:
    """The screen laid out for ``columns`` x ``rows``: (the top's lines, whether the rule under
    it is shown, whether the keys line is).  The board stays whole; under it the last message
    and the input line; then, as the terminal grows, the essential panel (the players and whose
    turn), two more lines of messages, the rule, the keys line, the rest of the panel; all
    further lines go to the messages.  What has no room is one command away: ``moves`` says the
    moves and the time used."""
    room = max(0, rows - BELOW)
    if view.position is None:
        essential = ESSENTIAL
    elif columns < board_width(view.size) or room < view.size + 1:
        return top_lines(view, screen, columns, room), False, False
    else:
        essential = view.size + 1 + (0 if _beside(view, columns) else ESSENTIAL)
    essential = min(essential, room)
    spare = max(0, room - essential - 2)    # two more lines of messages first (a hint's moves fit)
    rule, keys = spare >= 1, spare >= 2
    spare = max(0, spare - 2)               # then the rule and the keys line
    return top_lines(view, screen, columns, essential + spare), rule, keys


@functools.lru_cache(maxsize=2048)
def _wrapped(text: str, width: int) -> Tuple[str, ...]:
    return tuple(wrap(text, width))


def message_lines(messages: List[Tuple[str, str]], width: int, height: Optional[int] = None) -> List[Tuple[str, str]]:
    """``messages`` ((style, text), oldest first) wrapped to ``width``: (style, line) pairs, shown
    from the end.  When the last message takes more than ``height`` lines, its first ones end the
    list (the last of them cut with …): what a message says first is what matters (a hint's moves)."""
    lines = [("class:" + style if style else "", line) for style, text in messages for line in _wrapped(text, width)]
    if messages and height is not None and height > 0:
        last = len(_wrapped(messages[-1][1], width))
        if last > height:
            kept = lines[-last:][:height]
            kept[-1] = (kept[-1][0], fit(kept[-1][1] + " …", width))
            lines[-last:] = kept
    return lines


class LiveScreen(Face):
    """The live face in a terminal (prompt_toolkit)."""

    def __init__(self, lang: str = "en", colour: bool = True, human: bool = True, watching: bool = False) -> None:
        super().__init__(lang, colour=colour, human=human)
        self.watching = watching    # a game followed from the board (watch, demo): nothing to type for it
        self.closed = False         # (watching) Ctrl+C or quit asked to stop
        self.app: "Application[str] | None" = None
        # (render counter, frame): the screen laid out for that render
        self._frame_at: Tuple[int, Tuple[List[Line], bool, bool]] | None = None

    def refresh(self) -> None:
        app = self.app
        if app is not None:
            app.invalidate()

    # -- the layout -------------------------------------------------------------------------
    def _frame(self) -> Tuple[List[Line], bool, bool]:
        """This frame laid out (see ``frame``): once per render (the heights and the contents
        are asked for separately), from one view of the session."""
        from prompt_toolkit.application import get_app
        app = get_app()
        if self.view is None:
            return [], True, True
        if self._frame_at is None or self._frame_at[0] != app.render_counter:
            size = app.output.get_size()
            self._frame_at = (app.render_counter, frame(self.view(), self, size.columns, size.rows))
        return self._frame_at[1]

    def _top_lines(self) -> List[Line]:
        return self._frame()[0]

    def _top_height(self) -> "Dimension":
        from prompt_toolkit.layout import Dimension
        return Dimension.exact(len(self._top_lines()))

    def _top(self) -> "StyleAndTextTuples":
        return _joined(self._top_lines())

    def _message_lines(self) -> List[Tuple[str, str]]:
        from prompt_toolkit.application import get_app
        size = get_app().output.get_size()
        top, rule, keys = self._frame()
        with self._lock:
            shown = self.messages[-size.rows:]
        # (the messages have the rows the top, the rules and a one-line input leave)
        return message_lines(shown, size.columns - 1, size.rows - len(top) - rule - keys - 1)

    def _messages(self) -> "StyleAndTextTuples":
        """The messages, the window scrolled to the end of the last one (a cursor marker in the
        same fragments: one snapshot, whatever arrives or resizes meanwhile)."""
        return _joined([[fragment] for fragment in self._message_lines()]) + [("[SetCursorPosition]", "")]

    def _typed(self, buffer: "Buffer") -> bool:
        if self.watching and buffer.text.strip().lower() in ("q", "quit"):
            self.interrupt()
        elif self.watching:
            self.say("live_watching_keys")
        else:
            self.enter(buffer.text)
        return False        # the line empties (it is in the history)

    def interrupt(self) -> None:
        if self.watching:
            self.closed = True
            self._close("done")
        else:
            super().interrupt()

    def _application(self) -> "Application[str]":
        from prompt_toolkit.application import Application
        from prompt_toolkit.buffer import Buffer
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
        from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
        from prompt_toolkit.layout.processors import BeforeInput
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        buffer = Buffer(multiline=False, history=InMemoryHistory(), accept_handler=self._typed)
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d", filter=_empty(buffer))
        def _leave(event: "KeyPressEvent") -> None:
            self.interrupt()

        @keys.add("c-z")
        def _nothing(event: "KeyPressEvent") -> None:
            pass        # (not a character to type; suspending would leave the game unattended)

        @keys.add(Keys.BracketedPaste)
        def _paste(event: "KeyPressEvent") -> None:
            """Pasted lines are typed lines: each whole one is entered, the rest stays to edit."""
            text = event.data.replace("\r\n", "\n").replace("\r", "\n")
            *whole, rest = text.split("\n")
            if whole:
                whole[0] = buffer.text + whole[0]
                buffer.reset()
                for line in whole:
                    buffer.history.append_string(line)
                    self.enter(line)
            buffer.insert_text(rest)

        def rule() -> "StyleAndTextTuples":
            from prompt_toolkit.application import get_app
            key = "live_watching_keys" if self.watching else "live_keys" if self.human else "live_keys_computer"
            return [("class:rule", fit(self.t(key), get_app().output.get_size().columns))]

        root = HSplit([
            Window(FormattedTextControl(self._top), height=self._top_height, wrap_lines=False),
            ConditionalContainer(Window(height=1, char="─", style="class:rule"),
                                 filter=Condition(lambda: self._frame()[1])),
            Window(FormattedTextControl(self._messages), height=Dimension(min=1, preferred=3), wrap_lines=True),
            ConditionalContainer(Window(FormattedTextControl(rule), height=1, style="class:rule"),
                                 filter=Condition(lambda: self._frame()[2])),
            Window(BufferControl(buffer, input_processors=[BeforeInput("> ")]), height=Dimension(min=1, max=4),
                   dont_extend_height=True, wrap_lines=True),
        ])
        style = Style.from_dict(STYLE if self.colour else MONO)
        return Application(layout=Layout(root, focused_element=buffer), key_bindings=keys, style=style,
                           full_screen=True, refresh_interval=0.5,
                           color_depth=None if self.colour else ColorDepth.MONOCHROME)

    def _close(self, result: str) -> None:
        app = self.app
        loop = getattr(app, "loop", None)
        if app is None or loop is None:
            return

        def done() -> None:
            if app.is_running and app.future is not None and not app.future.done():
                app.exit(result=result)
        loop.call_soon_threadsafe(done)

    def _show(self, start: Callable[[], None]) -> None:
        self.app = self._application()
        try:
            self.app.run(pre_run=start)
        finally:
            self.app = None


def _joined(lines: List[Line]) -> "StyleAndTextTuples":
    """Lines of (style, text) fragments as one fragment list, with newlines between them."""
    frags: "StyleAndTextTuples" = []
    for i, line in enumerate(lines):
        if i:
            frags.append(("", "\n"))
        frags.extend(line)
    return frags


def _empty(buffer: "Buffer") -> "Condition":
    from prompt_toolkit.filters import Condition
    return Condition(lambda: not buffer.text)
