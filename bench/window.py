"""What the window costs: a player waiting in a window (``--gui``) against the same player with
``--plain``, and the time to draw the board.

    python bench/window.py [--seconds 10] [--frames 100]

Runs ``black.py`` (a person's side, waiting for white to join) with ``--gui``, then with
``--plain``, and prints the CPU time each used while idle (Linux: from /proc); then the time to
draw one frame of the board (``Window._draw`` and Tk's drawing of it) for an 8x8 and a 26x26 board
in the middle of a game, with hints shown.  Needs a display: without ``DISPLAY`` it starts a
virtual one (Xvfb).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from screen import cpu_seconds, idle_line, mid_game_view  # noqa: E402


def idle_cpu(seconds, *extra):
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / "b"
        p = subprocess.Popen([sys.executable, str(ROOT / "black.py"), "--board", str(board), "--lang", "en", *extra],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=env, cwd=ROOT, text=True)
        while not (board / "box" / "black" / "member").exists():
            time.sleep(0.1)
        time.sleep(1.5)                          # started: imports and the first frame done
        start = cpu_seconds(p.pid)
        time.sleep(seconds)
        used = cpu_seconds(p.pid) - start
        p.terminate()                            # (leaves as quit does, in both modes)
        p.wait(timeout=20)
    return used


def frame_ms(size, frames):
    from peer.faces.window import Window
    view = mid_game_view(size, hints=3)
    w = Window("en")
    w.open()
    w.root.update()
    w._shown = view
    w._draw()
    w.root.update()
    t = time.perf_counter()
    for _ in range(frames):
        w._draw()
        w.root.update_idletasks()
        w.root.update()
    ms = (time.perf_counter() - t) / frames * 1000
    w.root.destroy()
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--frames", type=int, default=100)
    args = ap.parse_args()
    xvfb = None
    if not os.environ.get("DISPLAY"):
        xvfb = subprocess.Popen(["Xvfb", ":57", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.environ["DISPLAY"] = ":57"
        time.sleep(1.0)
    try:
        gui = idle_cpu(args.seconds, "--gui")
        plain = idle_cpu(args.seconds, "--plain")
        print(idle_line("window", gui, plain, args.seconds))
        for size in (8, 26):
            print(f"one frame of the board drawn, {size}x{size} mid-game with hints: {frame_ms(size, args.frames):.2f} ms")
    finally:
        if xvfb is not None:
            xvfb.terminate()


if __name__ == "__main__":
    main()
