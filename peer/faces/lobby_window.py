"""The lobby in a window (``lobby --gui``): the tables of a share in a list, looked at again every
second in a worker thread; a double click (or Watch) opens the watch window of a table's game, in
a process of its own; Replay opens its record in the replay window.  Looking writes nothing."""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from comm.text import visible

from ..record import Records
from ..tables import Table, Tables
from .face import Face, on_signals
from .lobby import board_label, clock, player, state_text
from .plain import Screen
from .window import INSTALL, NO_TK, Unavailable

if NO_TK is None:
    import tkinter as tk
    from tkinter import ttk

REFRESH_MS = 1000
COLUMNS = ("table", "state", "board", "black", "white", "clocks")


class LobbyWindow:
    """The window; ``state_file``: where to write what it shows, as JSON (for tests)."""

    def __init__(self, share: Path, lang: str, secret: bytes | None = None,
                 state_file: str | os.PathLike[str] | None = None, secret_file: str | None = None) -> None:
        self.share = share
        self.lang = lang
        self.secret = secret
        self.secret_file = secret_file
        self.screen = Screen(lang, colour=False)
        self.tables = Tables(share, secret)
        self.state_file = Path(state_file) if state_file else None
        self.shown: list[Table] = []
        self.latest: list[Table] | None = None
        self.children: list[tuple[list[str], subprocess.Popen[bytes]]] = []     # (what was opened, its process)
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def open(self) -> None:
        if NO_TK is not None:
            raise Unavailable(self.screen.t("gui_no_tk", reason=NO_TK, packages=INSTALL))
        try:
            self.root = tk.Tk(className="Cardstand")
        except tk.TclError as e:
            raise Unavailable(self.screen.t("gui_no_display", reason=visible(str(e), 200))) from None
        t = self.screen.t
        root = self.root
        root.title(t("lobby_title", share=visible(str(self.share), 80), n="…"))
        root.geometry("760x420")
        root.minsize(520, 240)
        if root.tk.call("tk", "windowingsystem") == "x11":
            ttk.Style(root).theme_use("clam")
        frame = ttk.Frame(root, padding=6)
        frame.pack(fill="both", expand=True)
        self.tree = ttk.Treeview(frame, columns=COLUMNS, show="headings", selectmode="browse")
        heads = {"table": t("lobby_table"), "state": t("lobby_state"), "board": t("lobby_board"),
                 "black": t("black"), "white": t("white"), "clocks": t("gui_lobby_clocks")}
        widths = {"table": 110, "state": 190, "board": 110, "black": 120, "white": 120, "clocks": 90}
        for c in COLUMNS:
            self.tree.heading(c, text=heads[c])
            self.tree.column(c, width=widths[c], stretch=c in ("state", "black", "white"))
        bar = ttk.Scrollbar(frame, orient="vertical", command=self.tree.yview)
        self.tree.configure(yscrollcommand=bar.set)
        buttons = ttk.Frame(frame)
        buttons.pack(side="bottom", fill="x", pady=(6, 0))
        bar.pack(side="right", fill="y")
        self.tree.pack(side="left", fill="both", expand=True)
        self.tree.bind("<Double-1>", lambda e: self.watch())
        self.tree.bind("<Return>", lambda e: self.watch())
        for key, command in (("gui_lobby_watch", self.watch), ("gui_lobby_replay", self.replay),
                             ("gui_lobby_close", self.close)):
            ttk.Button(buttons, text=t(key), command=command).pack(side="left", padx=(0, 6))
        self.note = ttk.Label(buttons, text=t("gui_lobby_hint"))
        self.note.pack(side="left", padx=6)
        root.protocol("WM_DELETE_WINDOW", self.close)

    def _look(self) -> None:
        while not self.stop.is_set():
            tables = self.tables.look()
            with self.lock:
                self.latest = tables
            self.stop.wait(REFRESH_MS / 1000)

    def _tick(self) -> None:
        with self.lock:
            tables, self.latest = self.latest, None
        if tables is not None and tables != self.shown:
            self.shown = tables
            self._fill(tables)
        self._dump()
        self.root.after(200, self._tick)

    def _fill(self, tables: list[Table]) -> None:
        s = self.screen
        chosen = self.tree.selection()
        self.tree.delete(*self.tree.get_children())
        for t in tables:
            clocks = f"{clock(t.used[0])} / {clock(t.used[1])}" if t.gid and t.state in ("playing", "left") else ""
            self.tree.insert("", "end", iid=t.name, values=(
                t.name, state_text(s, t), board_label(s, t.board),
                player(t.black, t.there[0], t.kinds[0]).strip(), player(t.white, t.there[1], t.kinds[1]).strip(),
                clocks))
        keep = [c for c in chosen if self.tree.exists(c)]
        if keep:
            self.tree.selection_set(keep)
        self.root.title(s.t("lobby_title", share=visible(str(self.share), 80),
                            n=f"{len(tables)}+" if self.tables.more else len(tables)))

    def chosen(self) -> Table | None:
        sel = self.tree.selection() or self.tree.focus()
        name = sel[0] if isinstance(sel, tuple) and sel else sel if isinstance(sel, str) and sel else None
        for t in self.shown:
            if t.name == name:
                return t
        self.note.configure(text=self.screen.t("gui_lobby_choose"))
        return None

    def _start(self, args: list[str]) -> None:
        cmd = [sys.executable, "-m", "peer", *args, "--gui", "--lang", self.lang]
        if self.secret_file:
            cmd += ["--secret-file", self.secret_file]
        self.children = [(a, c) for a, c in self.children if c.poll() is None]
        self.children.append((args, subprocess.Popen(cmd, stdin=subprocess.DEVNULL)))

    def watch(self) -> None:
        t = self.chosen()
        if t is not None:
            self._start(["watch", "--board", str(t.folder)])
            self.note.configure(text=self.screen.t("gui_lobby_opened", table=t.name))

    def replay(self) -> None:
        t = self.chosen()
        if t is None:
            return
        rec = Records(t.folder, self.secret, readonly=True).current() if t.gid else None
        if rec is None:
            self.note.configure(text=self.screen.t("lobby_no_record", table=t.name))
            return
        self._start(["replay", str(Records(t.folder, readonly=True).path(rec.id))])
        self.note.configure(text=self.screen.t("gui_lobby_opened", table=t.name))

    def close(self) -> None:
        """Close the lobby and the windows it opened."""
        if self.stop.is_set():
            return
        self.stop.set()
        for _, child in self.children:
            if child.poll() is None:
                child.terminate()
        self.root.destroy()

    def shown_state(self) -> dict[str, Any]:
        return {"title": self.root.title(),
                "rows": [self.tree.item(i, "values") for i in self.tree.get_children()],
                "note": self.note.cget("text"),
                "window": {"x": self.root.winfo_rootx(), "y": self.root.winfo_rooty(),
                           "width": self.root.winfo_width(), "height": self.root.winfo_height()},
                "list_at": [self.tree.winfo_rootx(), self.tree.winfo_rooty()],
                "rows_at": {i: self.tree.bbox(i) for i in self.tree.get_children()},
                "opened": [a for a, c in self.children if c.poll() is None]}

    def _dump(self) -> None:
        if self.state_file is None or not self.root.winfo_viewable():
            return
        text = json.dumps(self.shown_state(), ensure_ascii=False, indent=1)
        scratch = self.state_file.with_name(self.state_file.name + ".tmp")
        try:
            scratch.write_text(text, encoding="utf-8")
            os.replace(scratch, self.state_file)
        except OSError:
            self.state_file = None

    def run(self) -> int:
        threading.Thread(target=self._look, name="lobby", daemon=True).start()
        self.root.after(100, self._tick)
        # Ctrl+C and the stopping signals (SIGTERM...) close it as its Close button does
        old = on_signals(Face.signals, lambda *_: self.root.after(0, self.close))
        try:
            self.root.mainloop()
        except KeyboardInterrupt:
            self.close()
        finally:
            on_signals(Face.signals, old)
        self.stop.set()
        return 0


def lobby_window(share: Path, lang: str, secret: bytes | None = None, state_file: str | None = None,
                 secret_file: str | None = None) -> int:
    """``lobby --gui``: 2 when no window can be opened here (said why on stderr)."""
    window = LobbyWindow(share, lang, secret, state_file=state_file, secret_file=secret_file)
    try:
        window.open()
    except Unavailable as e:
        print(e, file=sys.stderr)
        return 2
    return window.run()
