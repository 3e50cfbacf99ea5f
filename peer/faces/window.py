"""The window (``--gui``): the game on a board you click, another face of the session, as the
live terminal screen is.  It draws ``Session.view()`` and sends what the person clicks or types to
the session as the lines a person would type (``d3``, ``hint``, ``resign``, ``say ...``,
``quit``); the game itself stays in the session.

tkinter comes with Python on Windows and macOS, and is a system package on Linux (``python3-tk``);
nothing else is needed.  The session runs in a worker thread, the window in the main thread, and
the window reads the session only through ``view()`` and the messages, ten times a second.
"""
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from comm.text import visible
from engine import BLACK, PASS, WHITE, notation

from ..commands import Resign
from .face import Face, player_label, result_text, state_text
from ..view import Side, View

NO_TK: str | None = None     # why tkinter cannot be imported (then ``tk`` is not defined)
try:
    import tkinter as tk
    from tkinter import font as tkfont
except ImportError as e:        # a Linux Python without its python3-tk package
    NO_TK = str(e)

INSTALL = ("Debian and Ubuntu: sudo apt install python3-tk; Fedora: sudo dnf install python3-tkinter; "
           "Arch: sudo pacman -S tk; openSUSE: sudo zypper install python3-tk; macOS with Homebrew: "
           "brew install python-tk; the python.org installers for Windows and macOS include it")
COLOURS = {"felt": "#2e7d32", "line": "#174d1b", "black": "#111111", "white": "#f4f4f4",
           "legal": "#81c784", "last": "#e53935", "flip": "#fdd835", "hint": "#fff59d",
           "coord": "#c8e6c9", "back": "#1e4620"}
BANNER = {"": ("#263238", "#ffffff"), "turn": ("#1565c0", "#ffffff"), "pass": ("#f9a825", "#000000"),
          "over": ("#6a1b9a", "#ffffff")}
SIDE_WIDTH = 330        # pixels of the panel beside the board (fixed while the window keeps its size:
SIDE_NARROW = 190       # nothing moves as texts change), and at least, in a small window
MESSAGE_ROWS = ((600, 6), (480, 4), (0, 2))    # lines of messages for a window at least this high
BUTTON_TEXTS = {"resign": ("gui_resign", "gui_resign_sure"), "quit": ("gui_quit", "gui_close")}
MESSAGE_STYLES = {"chat": "#1565c0", "error": "#c62828", "typed": "#616161"}
TICK_MS = 100           # how often the window looks at the session
FLIP_FRAMES = 8         # a flip turns the disc over in this many frames,
FLIP_MS = 30            # this many ms apart
RESIGN_ARMED = 4.0      # seconds the resign button waits for its second click,
RESIGN_SLOW = 0.3       # and not sooner (a double click is not two decisions)
# what the session says for a terminal, said for a window
WINDOW_WORDS = {"to_leave_human": "gui_to_leave", "to_leave_terminal": "gui_to_leave",
                "to_leave_computer": "gui_to_leave", "watching": "gui_watching",
                "computer_plays": "gui_computer_plays"}
MESSAGE_LINES = 500     # lines the message box keeps
MOVES_LEAST = 3         # lines the move list needs to be shown (else a note says where it went)


class Unavailable(Exception):
    """No window can be opened here; the message says why and what to do, in the player's language."""


class Window(Face):
    """The face in a window.  ``mode``: "play" (a session's side: the board takes clicks, with
    hint, resign, quit and chat), "watch" (read-only) or "replay" (stepping through a record:
    ``ply`` is the move shown).  ``state_file``: where to write what the window shows, as JSON,
    whenever it changes (for tests and tools)."""

    signals = Face.signals + ("SIGINT",)   # Ctrl+C in the shell that started the window
    leaving = "gui_leaving"
    # the widgets, made by open()
    root: "tk.Tk"
    banner: "tk.Label"
    canvas: "tk.Canvas"
    side: "tk.Frame"
    players: list[tuple["tk.Label", "tk.Label", "tk.Label"]]
    turn: "tk.Label"
    last: "tk.Label"
    moves: "tk.Listbox"
    moves_title: "tk.Label"
    button_bar: "tk.Frame"
    buttons: dict[str, "tk.Button"]
    bottom: "tk.Frame"
    text: "tk.Text"
    entry: "tk.Entry | None"
    font_bold: "tkfont.Font"
    font_big: "tkfont.Font"
    font_banner: "tkfont.Font"

    def __init__(self, lang: str = "en", human: bool = True, mode: str = "play", title: str = "",
                 state_file: str | os.PathLike[str] | None = None) -> None:
        super().__init__(lang, colour=True, human=human)
        self.discs = ("●", "○")
        self.dot = "·"
        self.mode = mode
        self.title = title
        self.state_file = Path(state_file) if state_file else None
        self.ply = 0                # replay: the move shown
        self._all_moves: tuple[int, ...] = ()        # replay: the whole game's moves
        self.plies = 0              # replay: how many there are
        self.closed = False
        self._closing = False       # the next tick closes the window (it is the main thread's)
        self._leaving = False       # quit asked from the window: it closes when the session has left
        self._shown: View | None = None          # the View drawn
        self._shown_key: tuple[Any, ...] | None = None
        # (x0, y0, cell, size) of the board on the canvas
        self._geometry: tuple[float, float, float, int] | None = None
        self._flip: tuple[int, int] | None = None           # (mask, frame) while discs turn over
        self._resign_armed: tuple[float, float] | None = None   # (since, until): the resign button was clicked once
        self._hint_asked: tuple[int, ...] | None = None     # the moves a hint was asked after (until it is shown)
        self._said_shown = 0
        self._labels: dict[str, dict[str, Any]] = {}
        self._dumped: str | None = None
        self._fitted_to: tuple[int, int] | None = None         # the window's size the layout was fitted to
        self._elided: dict[tuple[str, int], str] = {}       # (a player's label, pixels): the label that fits
        # (buttons a row, their widths when each fits its longest text)
        self._buttons_per_row: tuple[int, list[int] | None] = (0, None)

    # -- opening ---------------------------------------------------------------------------
    def open(self) -> None:
        """Open the window (raises ``Unavailable`` with the reason and the remedy)."""
        if NO_TK is not None:
            raise Unavailable(self.t("gui_no_tk", reason=NO_TK, packages=INSTALL))
        try:
            self.root = tk.Tk(className="Cardstand")
        except tk.TclError as e:
            raise Unavailable(self.t("gui_no_display", reason=visible(str(e), 200))) from None
        self._build()

    def _build(self) -> None:
        root = self.root
        root.title(self.title)
        root.geometry("960x680")
        root.protocol("WM_DELETE_WINDOW", self.close_asked)
        root.columnconfigure(0, weight=1)
        root.columnconfigure(1, minsize=SIDE_WIDTH)
        root.rowconfigure(1, weight=1)
        base = tkfont.nametofont("TkDefaultFont")
        size = abs(base.actual("size")) or 10
        self.font_bold = base.copy()
        self.font_bold.configure(weight="bold")
        self.font_big = base.copy()
        self.font_big.configure(size=size + 6, weight="bold")
        self.font_banner = base.copy()
        self.font_banner.configure(size=size + 3, weight="bold")

        self.banner = tk.Label(root, anchor="w", padx=10, pady=4, font=self.font_banner)
        self.banner.grid(row=0, column=0, columnspan=2, sticky="ew")
        self.canvas = tk.Canvas(root, bg=COLOURS["back"], highlightthickness=0, width=560, height=520)
        self.canvas.grid(row=1, column=0, sticky="nsew")
        self.canvas.bind("<Configure>", lambda e: self._draw())
        self.canvas.bind("<Button-1>", self._clicked)

        side = self.side = tk.Frame(root, padx=10, pady=8, width=SIDE_WIDTH)
        side.grid(row=1, column=1, sticky="ns")
        side.grid_propagate(False)      # (its width is the window's choice, see _fit)
        side.columnconfigure(0, weight=1)
        # what gives way in a small window: the move list, then its title (never the buttons below
        # them, which stay where they are as texts change)
        side.rowconfigure(4, weight=1)
        side.rowconfigure(5, weight=1000)
        self.players = []
        for colour in (BLACK, WHITE):
            f = tk.Frame(side)
            f.grid(row=colour, column=0, sticky="ew", pady=(0, 8))
            f.columnconfigure(0, weight=1)
            name = tk.Label(f, anchor="w", justify="left", wraplength=SIDE_WIDTH - 80)
            name.grid(row=0, column=0, sticky="w")
            count = tk.Label(f, anchor="e", font=self.font_big, width=3)
            count.grid(row=0, column=1, sticky="e")
            state = tk.Label(f, anchor="w", fg="#555555", justify="left", wraplength=SIDE_WIDTH - 30)
            state.grid(row=1, column=0, columnspan=2, sticky="w")
            self.players.append((name, count, state))
        self.turn = tk.Label(side, anchor="w", justify="left", font=self.font_bold, wraplength=SIDE_WIDTH - 30)
        self.turn.grid(row=2, column=0, sticky="ew")
        self.last = tk.Label(side, anchor="w")
        self.last.grid(row=3, column=0, sticky="ew")
        self.moves_title = tk.Label(side, text=self.t("gui_moves"), anchor="nw", justify="left",
                                    wraplength=SIDE_WIDTH - 30)
        self.moves_title.grid(row=4, column=0, sticky="new", pady=(8, 0))
        box = tk.Frame(side)
        box.grid(row=5, column=0, sticky="nsew")
        box.rowconfigure(0, weight=1)
        box.columnconfigure(0, weight=1)
        self.moves = tk.Listbox(box, width=16, height=8, activestyle="none", exportselection=False)
        self.moves.grid(row=0, column=0, sticky="nsew")
        bar = tk.Scrollbar(box, command=self.moves.yview)
        bar.grid(row=0, column=1, sticky="ns")
        self.moves.configure(yscrollcommand=bar.set)
        box.bind("<Configure>", lambda e: self._moves_room(e.height, bar))
        box.bind("<Unmap>", lambda e: self._moves_room(0, bar))     # (no room at all: grid unmaps it)
        buttons = self.button_bar = tk.Frame(side, pady=8)
        buttons.grid(row=6, column=0, sticky="ew")
        spec: list[tuple[str, str | None, Callable[[], None]]]     # (key, text, command)
        if self.mode == "play":
            spec = [("hint", "gui_hint", self.hint), ("resign", "gui_resign", self.resign),
                    ("quit", "gui_quit", self.close_asked)]
        elif self.mode == "replay":
            spec = [("first", None, lambda: self.step(-10 ** 6)), ("back", None, lambda: self.step(-1)),
                    ("next", None, lambda: self.step(1)), ("end", None, lambda: self.step(10 ** 6)),
                    ("quit", "gui_close", self.close_asked)]
            self.moves.bind("<<ListboxSelect>>", self._picked)
            for key, n in (("<Left>", -1), ("<Right>", 1), ("<Home>", -10 ** 6), ("<End>", 10 ** 6)):
                root.bind(key, self._stepper(n))
        else:
            spec = [("quit", "gui_close", self.close_asked)]
        symbols = {"first": "|<", "back": "<", "next": ">", "end": ">|"}
        self.buttons = {}
        self._button_texts = {}     # every text each button may show
        for key, text, command in spec:
            shown = [self.t(k) for k in BUTTON_TEXTS.get(key, (text,))] if text else [symbols[key]]
            b = tk.Button(buttons, text=self.t(text) if text else shown[0], command=command)
            self.buttons[key] = b
            self._button_texts[key] = shown
        self._button_fg = b.cget("fg")

        bottom = self.bottom = tk.Frame(root, padx=6, pady=4)
        bottom.grid(row=2, column=0, columnspan=2, sticky="ew")
        bottom.columnconfigure(1, weight=1)
        self.text = tk.Text(bottom, height=6, wrap="word", state="disabled", takefocus=0,
                            relief="flat", background=root.cget("background"))
        self.text.grid(row=0, column=0, columnspan=3, sticky="ew")
        for style, fg in MESSAGE_STYLES.items():
            self.text.tag_configure(style, foreground=fg)
        self.entry = None
        if self.mode == "play":
            tk.Label(bottom, text=self.t("gui_chat")).grid(row=1, column=0, sticky="w")
            self.entry = tk.Entry(bottom)
            self.entry.grid(row=1, column=1, sticky="ew", padx=4)
            self.entry.bind("<Return>", self.send)
            b = tk.Button(bottom, text=self.t("gui_send"), command=self.send)
            b.grid(row=1, column=2)
            self.buttons["send"] = b
        self._fit_buttons(SIDE_WIDTH)
        root.minsize(*self._least_size())
        root.bind("<Configure>", self._fit, add="+")

    def _least_size(self) -> tuple[int, int]:
        """The smallest window in which every control stays whole with this machine's fonts: the
        narrow panel's players, turn, the move list's title and buttons (two lines a name), beside a board of as much
        height, above the fewest lines of messages; never below 520x420."""
        root = self.root
        root.update_idletasks()
        line = tkfont.nametofont("TkDefaultFont").metrics("linespace")
        keys = [k for k in self.buttons if k != "send"]
        rows = -(-len(keys) // 2)        # (two buttons a row at the narrowest)
        button = max(self.buttons[k].winfo_reqheight() for k in keys) + 2
        name, count, state = self.players[0]
        player = max(2 * line, count.winfo_reqheight()) + state.winfo_reqheight() + 8
        title = 2 * line + 8        # (the move list's title, or the note that it is hidden)
        panel = 2 * player + self.turn.winfo_reqheight() + self.last.winfo_reqheight() + title + rows * button + 32
        messages = MESSAGE_ROWS[-1][1] * tkfont.nametofont(self.text.cget("font")).metrics("linespace")
        bottom = messages + (self.entry.winfo_reqheight() + 12 if self.entry is not None else 12) + 8
        height = self.banner.winfo_reqheight() + panel + bottom + 2 * line    # (and the frames' borders)
        return max(520, SIDE_NARROW + panel), max(420, height)

    def _fit(self, event: Any = None) -> None:
        """The window's space shared out anew for its size: the board takes what it can; a small
        window has fewer lines of messages and a narrower panel (its texts wrapped, its buttons
        in more rows)."""
        root = self.root
        if event is not None and event.widget is not root:
            return
        width, height = root.winfo_width(), root.winfo_height()
        if (width, height) == self._fitted_to or width < 2:
            return
        self._fitted_to = (width, height)
        rows = next(n for least, n in MESSAGE_ROWS if height >= least)
        self._set(self.text, height=rows)
        line = tkfont.nametofont(self.text.cget("font")).metrics("linespace")
        below = rows * line + (self.entry.winfo_reqheight() + 12 if self.entry is not None else 12)
        board = height - self.banner.winfo_reqheight() - below
        side = max(SIDE_NARROW, min(SIDE_WIDTH, width - board))
        root.columnconfigure(1, minsize=side)
        self._set(self.side, width=side)
        for name, _count, state in self.players:
            self._set(name, wraplength=side - 80)
            self._set(state, wraplength=side - 30)
        self._set(self.turn, wraplength=side - 30)
        self._set(self.moves_title, wraplength=side - 30)
        self._fit_buttons(side - 20)
        self._scroll_messages()

    def _moves_room(self, height: int, bar: "tk.Scrollbar") -> None:
        """The move list shown when its place is ``MOVES_LEAST`` lines high or more; else hidden,
        its title saying so (a list a few pixels high shows nothing)."""
        line = tkfont.nametofont(self.moves.cget("font")).metrics("linespace")
        room = height >= MOVES_LEAST * line
        if room == bool(self.moves.winfo_manager()):
            return
        if room:
            self.moves.grid()
            bar.grid()
        else:
            self.moves.grid_remove()
            bar.grid_remove()
        self.moves_title.configure(text=self.t("gui_moves" if room else "gui_moves_hidden"))

    def _fit_buttons(self, width: int) -> None:
        """The buttons in ``width`` pixels: in one row, each as wide as its longest text (nothing
        moves as a text changes), when they fit so; else in rows of as many as fit with their
        shortest texts, all of one width, a longer text wrapped."""
        keys = [k for k in self.buttons if k != "send"]
        measure = tkfont.nametofont("TkDefaultFont").measure
        pad = max(self.buttons[k].winfo_reqwidth() - measure(self.buttons[k].cget("text")) for k in keys) + 4
        longest = [max(map(measure, self._button_texts[k])) + pad for k in keys]
        if sum(longest) <= width:
            per_row, minsizes = len(keys), longest
        else:
            shortest = max(min(map(measure, self._button_texts[k])) + pad for k in keys)
            per_row, minsizes = max(1, min(len(keys), width // shortest)), None
        if self._buttons_per_row == (per_row, minsizes):
            return
        self._buttons_per_row = (per_row, minsizes)
        bar = self.button_bar
        for i in range(len(keys)):
            if minsizes:
                bar.columnconfigure(i, minsize=minsizes[i], weight=0, uniform="")
            elif i < per_row:
                bar.columnconfigure(i, minsize=0, weight=1, uniform="button")
            else:
                bar.columnconfigure(i, minsize=0, weight=0, uniform="")
        for i, key in enumerate(keys):
            self.buttons[key].configure(wraplength=0 if minsizes else max(20, width // per_row - pad))
            self.buttons[key].grid(row=i // per_row, column=i % per_row, padx=2, pady=1, sticky="ew")

    # -- what the person does --------------------------------------------------------------
    def _clicked(self, event: "tk.Event[tk.Canvas]") -> None:
        if self.mode != "play" or self._geometry is None:
            return
        x0, y0, cell, n = self._geometry
        x, y = math.floor((event.x - x0) / cell), math.floor((event.y - y0) / cell)
        if not (0 <= x < n and 0 <= y < n):
            return
        if self._shown is not None and self._shown.ended:
            # (said here: the session may be waiting for the opponent's result, or have finished)
            self.say("already_over")
        else:
            self.enter(notation.square_name(y * n + x, n), echo=False)   # the session says what it did

    def hint(self) -> None:
        """One hint at a time: the button is off until it is shown or the game goes on."""
        if self._shown is not None and self._hint_asked != self._shown.moves:
            self._hint_asked = self._shown.moves
            self.buttons["hint"].configure(state="disabled")
            self.enter("hint", echo=False)

    def resign(self) -> None:
        """The first click asks (the button says so for a few seconds); a second one, not in
        the same double click, resigns."""
        now = time.monotonic()
        armed = self._resign_armed
        if armed and armed[0] + RESIGN_SLOW <= now < armed[1]:
            self.lines.put(Resign(confirmed=True))     # (the button asked already)
            self._arm_resign(None)
        elif not armed or now >= armed[1]:
            self._arm_resign((now, now + RESIGN_ARMED))

    def _arm_resign(self, armed: tuple[float, float] | None) -> None:
        self._resign_armed = armed
        b = self.buttons["resign"]
        b.configure(text=self.t("gui_resign_sure" if armed else "gui_resign"),
                    fg="#c62828" if armed else self._button_fg)

    def send(self, *_: object) -> None:
        """The chat line is said to the opponent."""
        assert self.entry is not None, "the chat line is there when playing"
        text = " ".join(self.entry.get().split())     # (a pasted newline is a space)
        if not text:
            return
        self.entry.delete(0, "end")
        self.enter("say " + text, shown=text)

    def replaying(self, moves: Sequence[int]) -> None:
        """Replay mode: the whole game's ``moves`` are listed, and stepped through."""
        self._all_moves = tuple(moves)
        self.plies = len(moves)

    def step(self, n: int) -> None:
        """Replay: ``n`` moves on (back when negative)."""
        self.ply = max(0, min(self.plies, self.ply + n))

    def _stepper(self, n: int) -> Callable[[object], None]:
        """What a key that steps ``n`` moves does."""
        return lambda _event: self.step(n)

    def _picked(self, _event: object) -> None:
        chosen = self.moves.curselection()  # type: ignore[no-untyped-call]
        if chosen:
            self.ply = chosen[0] + 1

    def close_asked(self) -> None:
        """The window's close box or Quit: a game in progress is left as ``quit`` leaves it (the
        window closes once the session has); a second time, at once."""
        if self.mode != "play" or self.finished:
            return self._destroy()
        self.interrupt()

    def interrupt(self) -> None:
        """Ctrl+C, SIGTERM, SIGHUP, the close box: playing, leave as ``quit`` does (a second
        time, at once); watching or replaying, close (at the next tick: a signal may come in the
        middle of a drawing)."""
        if self.mode != "play":
            self._closing = True
            return
        self._leaving = True
        super().interrupt()

    def say(self, key: str, **kw: object) -> None:
        if key == "your_turn":
            return          # the banner says it
        super().say(key, **kw)

    def t(self, key: str, **kw: object) -> str:
        return super().t(WINDOW_WORDS.get(key, key), **kw)

    # -- the main loop -----------------------------------------------------------------------
    def _show(self, start: Callable[[], None]) -> None:
        self.root.after(0, start)
        # (the tick also lets Python's signal handlers run: Tcl waits for events in C, and a
        # signal alone does not wake it)
        self.root.after(0, self._tick)
        self.root.mainloop()

    def _close(self, result: str) -> None:
        if result == "forced":
            self._closing = True

    def _finished(self) -> None:
        pass        # the window stays, showing the end, until it is closed

    def _destroy(self) -> None:
        if not self.closed:
            self.closed = True
            self.root.destroy()

    def _tick(self) -> None:
        if self.closed:
            return
        if self._closing or (self.finished and (self._leaving or self.mode == "watch")):
            return self._destroy()
        assert self.view is not None, "run() gives the view before the window shows"
        try:
            self._update(self.view())
        finally:
            if not self.closed:
                self.root.after(TICK_MS, self._tick)

    def _summary(self) -> None:
        if self.mode == "play":
            super()._summary()

    # -- drawing --------------------------------------------------------------------------
    def _update(self, v: View) -> None:
        key = (v.size, v.position, v.moves, v.result, v.show_legal, v.hints)
        if key != self._shown_key:
            prev, self._shown, self._shown_key = self._shown, v, key
            self._new_ply(prev, v)
            self._fill_moves(v)
            self._draw()
        if self._resign_armed and time.monotonic() >= self._resign_armed[1]:
            self._arm_resign(None)
        self._fill_panel(v)
        self._fill_messages()
        self._dump()

    def _new_ply(self, prev: View | None, v: View) -> None:
        """Plies more than were drawn: the last move's discs turn over."""
        if prev is None or prev.position is None or v.moves[:len(prev.moves)] != prev.moves:
            return
        if len(v.moves) > len(prev.moves) and v.moves[-1] != PASS and v.flipped:
            self._flip = (v.flipped, 1)
            self.root.after(FLIP_MS, self._flip_frame)

    def _flip_frame(self) -> None:
        if self.closed or self._flip is None:
            return
        mask, frame = self._flip
        self._flip = (mask, frame + 1) if frame < FLIP_FRAMES else None
        self._draw()
        if self._flip is not None:
            self.root.after(FLIP_MS, self._flip_frame)
        else:
            self._dump()

    def _set(self, widget: "tk.Misc", **options: Any) -> None:
        """Configure ``widget`` only when something changed (a label set ten times a second
        redraws ten times a second)."""
        if self._labels.get(str(widget)) != options:
            self._labels[str(widget)] = options
            widget.configure(**options)

    def _fill_panel(self, v: View) -> None:
        pos = v.position
        counts = pos.discs() if pos is not None else ("", "")
        to_move = pos.turn if pos is not None and not v.ended else None
        for colour, (name, count, state) in zip((BLACK, WHITE), self.players):
            side = v.sides[colour]
            self._set(name, text=self._label(side, colour, int(name.cget("wraplength"))),
                      font=self.font_bold if to_move == colour else "TkDefaultFont")
            self._set(count, text=str(counts[colour]))
            if v.colour is not None:
                shown = state_text(side, self)
            else:
                shown = self.t("live_thinking_now") if side.state == "thinking" else ""
            self._set(state, text=shown)
        if pos is None:
            turn = self.t("live_not_started")
        elif v.ended:
            turn = self.t("live_over", result=result_text(v, self))
        else:
            turn = self.t("live_turn", n=len(v.moves) + 1, colour=self.colour_name(pos.turn))
        self._set(self.turn, text=turn)
        self._set(self.last, text=self.t("live_last", move=self.describe(v.last, v.size)) if v.last is not None else "")
        self._set(self.banner, **self._banner(v))
        if self.mode == "play":
            playing = pos is not None and not v.ended and not self.finished
            asked = self._hint_asked == v.moves and not v.hints
            self._set(self.buttons["hint"], state="normal" if v.show_legal and self.human and not v.hints
                      and not asked else "disabled")
            self._set(self.buttons["resign"], state="normal" if playing and self.human else "disabled")
            self._set(self.buttons["send"], state="normal" if playing else "disabled")
            self._set(self.buttons["quit"], text=self.t("gui_close" if self.finished else "gui_quit"))
        elif self.mode == "replay":
            for key in ("first", "back"):
                self._set(self.buttons[key], state="normal" if self.ply > 0 else "disabled")
            for key in ("next", "end"):
                self._set(self.buttons[key], state="normal" if self.ply < self.plies else "disabled")

    def _label(self, side: Side, colour: int, width: int) -> str:
        """A player's label (``player_label``) with its name cut (…) until the label fits in one
        line of ``width`` pixels, or the name in half of that: a long name never pushes the
        panel's buttons out of the window."""
        full = player_label(side, colour, self)
        key = (full, width)
        if key not in self._elided:
            if len(self._elided) > 64:      # (a window resized at length: widths come and go)
                self._elided.clear()
            measure, label = self.font_bold.measure, full
            name = side.name
            for n in range(len(name) - 1, 0, -1):
                if measure(label) <= width or measure(name[:n + 1]) <= width // 2:
                    break
                label = player_label(replace(side, name=name[:n] + "…"), colour, self)
            self._elided[key] = label
        return self._elided[key]

    def _passed(self, v: View) -> str | None:
        """A pass announced: the text while a pass is one of the last two plies (the player
        who passed sees it on their next turn; in a replay, only the ply just shown), else None."""
        back = 1 if self.mode == "replay" else 2
        for ply in range(len(v.moves), max(0, len(v.moves) - back), -1):
            if v.moves[ply - 1] == PASS:
                return self.t("gui_passed", colour=self.colour_name(BLACK if ply % 2 else WHITE))
        return None

    def _banner(self, v: View) -> dict[str, str]:
        """What the strip above the board says: the end (the result, as the panel says it), a
        pass, whose turn; why a game never started."""
        pos = v.position
        passed = self._passed(v) if pos is not None else None
        if pos is None and self.finished:
            with self._lock:
                errors = self.errors[-1:]
            text, kind = (errors[0] if errors else self.t("live_not_started")), "over"
        elif pos is None:
            text, kind = self.t("live_not_started"), ""
        elif v.ended:
            text, kind = self.t("live_over", result=result_text(v, self)), "over"
        elif passed:
            text, kind = passed, "pass"
        elif v.colour is not None and pos.turn == v.colour and self.human:
            text, kind = self.t("gui_your_turn", colour=self.colour_name(pos.turn)), "turn"
        else:
            text = self.t("gui_to_play", name=self.shown_name(v.sides[pos.turn].name), colour=self.colour_name(pos.turn))
            kind = ""
        if self.mode == "replay":   # (the panel names the move to come: "Move 6: white to play")
            at = self.t("gui_replay_at", n=self.ply, last=self.plies) if self.ply else \
                self.t("gui_replay_start", last=self.plies)
            text = at + "   " + text
        bg, fg = BANNER[kind]
        return {"text": text, "bg": bg, "fg": fg}

    def _fill_moves(self, v: View) -> None:
        moves = self._all_moves if self.mode == "replay" else v.moves    # (replay: the whole game)
        entries = [f"{i:>3} {self.disc(BLACK if i % 2 else WHITE)} {self.describe(m, v.size)}"
                   for i, m in enumerate(moves, 1)]
        if list(self.moves.get(0, "end")) != entries:
            self.moves.delete(0, "end")
            self.moves.insert("end", *entries)
        self.moves.selection_clear(0, "end")
        if self.mode == "replay":
            if self.ply:
                self.moves.selection_set(self.ply - 1)
                self.moves.see(self.ply - 1)
        else:
            self.moves.see("end")

    def _fill_messages(self) -> None:
        with self._lock:
            new = min(self.said - self._said_shown, len(self.messages))
            shown = self.messages[len(self.messages) - new:] if new else []
            self._said_shown = self.said
        if not shown:
            return
        t = self.text
        t.configure(state="normal")
        for style, text in shown:
            t.insert("end", text + "\n", (style,) if style else ())
        extra = int(t.index("end-1c").split(".")[0]) - MESSAGE_LINES
        if extra > 0:
            t.delete("1.0", f"{extra + 1}.0")
        t.configure(state="disabled")
        self._scroll_messages()

    def _scroll_messages(self) -> None:
        """The end of the messages in view; but a last message longer than the box is shown from
        its start (what it says first is what matters: a hint's moves)."""
        t = self.text
        t.see("end")
        last = f"{int(t.index('end-1c').split('.')[0]) - 1}.0"
        lines = t.count(last, "end", "displaylines")
        if lines and lines[0] > int(t.cget("height")):
            t.yview(last)

    def _draw(self) -> None:
        """The board, scaled to the canvas: discs, the last move (a red mark), the discs it
        turned (a yellow ring, after they have turned over), legal moves, hints."""
        c, v = self.canvas, self._shown
        c.delete("all")
        w, h = max(c.winfo_width(), 40), max(c.winfo_height(), 40)
        if v is None or v.position is None:
            self._geometry = None
            c.create_text(w / 2, h / 2, text=self.t("live_not_started"), fill=COLOURS["coord"])
            return
        n, pos = v.size, v.position
        cell = max(6.0, min((w - 16) / (n + 0.8), (h - 16) / (n + 0.8)))
        side = cell * n
        x0 = (w - side + cell * 0.8) / 2
        y0 = (h - side + cell * 0.8) / 2
        self._geometry = (x0, y0, cell, n)
        c.create_rectangle(x0, y0, x0 + side, y0 + side, fill=COLOURS["felt"], outline=COLOURS["line"], width=2)
        for i in range(1, n):
            c.create_line(x0 + i * cell, y0, x0 + i * cell, y0 + side, fill=COLOURS["line"])
            c.create_line(x0, y0 + i * cell, x0 + side, y0 + i * cell, fill=COLOURS["line"])
        if n >= 8:
            for i in (2, n - 2):
                for j in (2, n - 2):
                    r = max(2.0, cell * 0.06)
                    c.create_oval(x0 + i * cell - r, y0 + j * cell - r, x0 + i * cell + r, y0 + j * cell + r,
                                  fill=COLOURS["line"], outline="")
        for sq in range(n * n):        # a hole: no square at all, the window's back shows through
            if pos.holes >> sq & 1:
                hx, hy = x0 + (sq % n) * cell, y0 + (sq // n) * cell
                c.create_rectangle(hx, hy, hx + cell, hy + cell, fill=COLOURS["back"], outline=COLOURS["back"],
                                   tags=("hole", f"sq{sq}"))
        small = ("TkDefaultFont", -max(8, int(cell * 0.3)))
        for i in range(n):
            c.create_text(x0 + (i + 0.5) * cell, y0 - cell * 0.35, text=chr(ord("a") + i), fill=COLOURS["coord"],
                          font=small)
            c.create_text(x0 - cell * 0.4, y0 + (i + 0.5) * cell, text=str(i + 1), fill=COLOURS["coord"], font=small)
        legal = pos.legal_moves_mask() if v.show_legal else 0
        last = v.last_square
        flipping, frame = self._flip or (0, 0)
        hinted = {h.square for h in v.hints}
        r = cell * 0.41
        for sq in range(n * n):
            cx, cy = x0 + (sq % n + 0.5) * cell, y0 + (sq // n + 0.5) * cell
            colour = pos.colour_at(sq)
            if colour is None:
                if legal >> sq & 1 and sq not in hinted:
                    d = cell * 0.13
                    c.create_oval(cx - d, cy - d, cx + d, cy + d, fill=COLOURS["legal"], outline="",
                                  tags=("legal", f"sq{sq}"))
                continue
            shown, rx = colour, r
            if flipping >> sq & 1:      # turning over: the old colour narrows, the new one widens
                turned = frame / FLIP_FRAMES
                rx = max(1.0, r * abs(math.cos(math.pi * turned)))
                shown = colour if turned >= 0.5 else 1 - colour
            fill = COLOURS["black" if shown == BLACK else "white"]
            c.create_oval(cx - rx, cy - r, cx + rx, cy + r, fill=fill, outline="#000000",
                          tags=("disc", f"sq{sq}"))
            if sq == last:
                d = cell * 0.11
                c.create_oval(cx - d, cy - d, cx + d, cy + d, fill=COLOURS["last"], outline="", tags=("last",))
            elif v.flipped >> sq & 1 and not flipping:
                c.create_oval(cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1, outline=COLOURS["flip"],
                              width=max(2, int(cell * 0.05)), tags=("flip",))
        hint_font = ("TkDefaultFont", -max(9, int(cell * 0.32)), "bold")
        for sq, value, exact in v.hints:
            cx, cy = x0 + (sq % n + 0.5) * cell, y0 + (sq // n + 0.5) * cell
            c.create_text(cx, cy, text=f"{'' if exact else '~'}{value:+d}", fill=COLOURS["hint"], font=hint_font, tags=("hint", f"sq{sq}"))

    # -- what the window shows, for tests and tools ------------------------------------------
    def shown(self) -> dict[str, Any]:
        """What the window shows now, read back from its widgets: the squares (``B``, ``W``,
        ``*`` a legal move, ``#`` a hole, ``.``) from the canvas, where they and the buttons are on the screen,
        the texts of the banner, the panel, the move list and the messages."""
        c = self.canvas
        squares, hints = [], {}
        if self._geometry is not None:
            n = self._geometry[3]
            fills = {COLOURS["black"]: "B", COLOURS["white"]: "W"}
            for sq in range(n * n):
                mark = "."
                for item in c.find_withtag(f"sq{sq}"):
                    tags = c.gettags(item)
                    if "disc" in tags:
                        mark = fills.get(c.itemcget(item, "fill"), "?")  # type: ignore[no-untyped-call]
                    elif "hole" in tags:
                        mark = "#"
                    elif "legal" in tags and mark == ".":
                        mark = "*"
                    elif "hint" in tags:
                        hints[notation.square_name(sq, n)] = c.itemcget(item, "text")  # type: ignore[no-untyped-call]
                        mark = "*" if mark == "." else mark
                squares.append(mark)
        rx, ry = c.winfo_rootx(), c.winfo_rooty()
        board = None
        if self._geometry is not None:
            x0, y0, cell, n = self._geometry
            board = {"x": rx + x0, "y": ry + y0, "cell": cell, "size": n}

        def centre(widget: "tk.Button | tk.Entry") -> dict[str, Any]:
            return {"x": widget.winfo_rootx() + widget.winfo_width() // 2,
                    "y": widget.winfo_rooty() + widget.winfo_height() // 2, "state": str(widget.cget("state")),
                    "text": widget.cget("text"), "width": widget.winfo_width(), "height": widget.winfo_height(),
                    "cut": (widget.winfo_width() < widget.winfo_reqwidth()
                            or widget.winfo_height() < widget.winfo_reqheight() or not shown_whole(widget))}

        def shown_whole(widget: "tk.Misc") -> bool:
            """Whether all of ``widget`` is inside each of the frames that hold it (a frame given
            less height than its content clips what lies below)."""
            x0, y0 = widget.winfo_rootx(), widget.winfo_rooty()
            x1, y1 = x0 + widget.winfo_width(), y0 + widget.winfo_height()
            holder = widget.master
            while holder is not None:
                hx, hy = holder.winfo_rootx(), holder.winfo_rooty()
                if x0 < hx or y0 < hy or x1 > hx + holder.winfo_width() or y1 > hy + holder.winfo_height():
                    return False
                holder = holder.master
            return True
        return {
            "title": self.root.title(), "mode": self.mode, "banner": self.banner.cget("text"),
            "least": list(self.root.minsize()),
            "players": [[name.cget("text"), count.cget("text"), state.cget("text")]
                        for name, count, state in self.players],
            "turn": self.turn.cget("text"), "last": self.last.cget("text"),
            "moves": list(self.moves.get(0, "end")), "selected": list(self.moves.curselection()),  # type: ignore[no-untyped-call]
            "squares": "".join(squares), "hints": hints, "board": board,
            "buttons": {k: centre(b) for k, b in self.buttons.items()},
            "entry": centre(self.entry) if self.entry is not None else None,
            "messages": self.text.get("1.0", "end").splitlines()[-40:],
            "messages_seen": self.text.get("@0,0", f"@{self.text.winfo_width()},{self.text.winfo_height()} lineend"),
            "moves_height": self.moves.winfo_height() if self.moves.winfo_ismapped() else 0,
            "moves_title": self.moves_title.cget("text"),
            "window": {"x": self.root.winfo_rootx(), "y": self.root.winfo_rooty(),
                       "width": self.root.winfo_width(), "height": self.root.winfo_height()},
            "finished": self.finished,
        }

    def _dump(self) -> None:
        if self.state_file is None or self._flip is not None or not self.root.winfo_viewable():
            return          # (what is not on the screen yet cannot be clicked)
        text = json.dumps(self.shown(), ensure_ascii=False, indent=1)
        if text != self._dumped:
            self._dumped = text
            scratch = self.state_file.with_name(self.state_file.name + ".tmp")
            try:
                scratch.write_text(text, encoding="utf-8")
                os.replace(scratch, self.state_file)
            except OSError as e:
                print(f"--gui-state {self.state_file}: {e.strerror or e}; not written again", file=sys.stderr)
                self.state_file = None
