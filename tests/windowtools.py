"""Running the window (``--gui``) under a virtual X server and driving it with real clicks.

The window writes what it shows (read back from its widgets) to a JSON file (``--gui-state``);
``Driven`` reads it, clicks with xdotool (real X events through the server, as a mouse would)
and takes screenshots with Pillow."""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from peertools import ROOT

ARTIFACTS = ROOT / "test-artifacts"


def missing():
    """Why windows cannot be tested here, or None."""
    for tool, package in (("Xvfb", "xvfb"), ("xdotool", "xdotool")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian package {package}; .ci/run installs it as root)"
    try:
        import tkinter  # noqa: F401
    except ImportError as e:
        return f"this Python has no tkinter ({e}; Debian package python3-tk)"
    return None


def start_display():
    """A virtual X server on a free display: (process, ":N")."""
    why = missing()
    if why:
        pytest.skip(why)
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "2000x1000x24", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    number = b""
    deadline = time.monotonic() + 20
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([r], [], [], 1)
        if ready:
            chunk = os.read(r, 16)
            if not chunk:
                break
            number += chunk
    os.close(r)
    if not number.strip():
        proc.kill()
        pytest.fail("Xvfb did not start")
    return proc, f":{number.strip().decode()}"


class Driven:
    """A window in a process of its own, its state read back, driven by clicks."""

    def __init__(self, display, argv, state, out):
        self.display = display
        self.state = Path(state)
        self.out = Path(out)
        self.env = dict(os.environ, DISPLAY=display, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
        self.env.pop("NO_COLOR", None)
        self.env.pop("CARDSTAND_SECRET", None)
        self.state.unlink(missing_ok=True)
        with open(self.out, "w", encoding="utf-8") as f:
            self.proc = subprocess.Popen([sys.executable, *map(str, argv), "--gui", "--gui-state", str(self.state)],
                                         stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=self.env, cwd=ROOT)

    def output(self):
        return self.out.read_text(encoding="utf-8")

    def now(self):
        try:
            return json.loads(self.state.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def wait(self, what, test, timeout=30):
        """The window's state once ``test(state)`` holds (fails, saying ``what``, after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        s = None
        while time.monotonic() < deadline:
            s = self.now()
            if s is not None and test(s):
                return s
            if self.proc.poll() is not None:
                pytest.fail(f"the window's process ended ({self.proc.returncode}) waiting for {what}:\n"
                            f"{self.output()[-3000:]}")
            time.sleep(0.05)
        pytest.fail(f"the window never showed {what}; it shows {json.dumps(s, ensure_ascii=False)[:3000]}")

    def settled(self, test, timeout=30):
        """The window's state once ``test`` holds and nothing changed for half a second (after a
        resize or a move, its widgets are laid out anew)."""
        last = self.wait("the change", test, timeout)
        while True:
            time.sleep(0.5)
            now = self.wait("the change", test, timeout)
            if now == last:
                return now
            last = now

    def xdotool(self, *args):
        subprocess.run(["xdotool", *map(str, args)], env=self.env, check=True, timeout=20)

    def click(self, x, y, clicks=1):
        """A left click at (x, y) on the screen, the pointer coming from outside every window
        (a Tk button takes a click only after the pointer entered it).  The pointer is seen there
        first: on a new Xvfb the first move may land at 0,0."""
        x, y = int(x), int(y)
        for _ in range(50):
            self.xdotool("mousemove", 1999, 999)
            self.xdotool("mousemove", x, y)
            where = subprocess.run(["xdotool", "getmouselocation", "--shell"], env=self.env, capture_output=True,
                                   text=True, timeout=20).stdout
            if f"X={x}\n" in where and f"Y={y}\n" in where:
                break
            time.sleep(0.02)
        else:
            pytest.fail(f"the pointer does not go to {x},{y}")
        self.xdotool("click", "--repeat", clicks, "--delay", 80, "1")

    def move_window(self, x, y):
        """Put the window at (x, y) on the screen (without a window manager, every window opens
        at 0,0, the newest above)."""
        title = self.wait("its title", lambda s: s["title"])["title"]
        self.xdotool("search", "--sync", "--name", "^" + re.escape(title) + "$", "windowmove", x, y)
        self.settled(lambda s: (s["window"]["x"], s["window"]["y"]) == (x, y))

    def click_square(self, name):
        b = self.now()["board"]
        n, cell = b["size"], b["cell"]
        x, y = ord(name[0]) - ord("a"), int(name[1:]) - 1
        self.click(b["x"] + (x + 0.5) * cell, b["y"] + (y + 0.5) * cell)

    def click_button(self, key, clicks=1):
        b = self.now()["buttons"][key]
        self.click(b["x"], b["y"], clicks)

    def type_chat(self, text):
        e = self.now()["entry"]
        self.click(e["x"], e["y"])
        self.xdotool("type", "--delay", "10", text)
        self.xdotool("key", "Return")

    def screenshot(self, name):
        """The window as a PNG in ``test-artifacts/`` (and a small copy, fit for the README)."""
        from PIL import ImageGrab
        w = self.now()["window"]
        image = ImageGrab.grab(bbox=(w["x"], w["y"], w["x"] + w["width"], w["y"] + w["height"]),
                               xdisplay=self.display)
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        image.save(path)
        from PIL import Image
        image.convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(
            ARTIFACTS / f"{name}-small.png", optimize=True)
        return image, path

    def pixels(self, name, state, points, agree, timeout=10):
        """A screenshot (see ``screenshot``) whose pixel at each of ``points`` (x, y in the board,
        from ``state``) passes ``agree(i, rgb)``: taken again until it does, as the X server may
        paint a canvas after the state that describes it was written; fails after ``timeout`` s
        saying which pixel disagreed."""
        deadline = time.monotonic() + timeout
        while True:
            image, _ = self.screenshot(name)
            x0, y0 = state["board"]["x"] - state["window"]["x"], state["board"]["y"] - state["window"]["y"]
            wrong = [(i, image.getpixel((int(x0 + x), int(y0 + y)))[:3]) for i, (x, y) in enumerate(points)]
            wrong = [(i, px) for i, px in wrong if not agree(i, px)]
            if not wrong:
                return image
            assert time.monotonic() < deadline, f"the pixels disagree (point, rgb): {wrong}"
            time.sleep(0.2)

    def finish(self, timeout=30):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"the window's process did not end:\n{self.output()[-3000:]}")
        return self.proc.returncode, self.output()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
