"""What the live screen costs: a player waiting at a terminal, live screen vs --plain.

    python bench/screen.py [--seconds 10]

Runs ``black.py`` (a person's side, waiting for white to join) in a pseudo-terminal, first with
the live screen, then with ``--plain``, and prints the CPU time each used while idle (Linux: from
/proc); then the time to lay out one frame of the live screen (``peer.faces.live.top_lines`` and the
message wrapping) for an 8x8 and a 26x26 board in the middle of a game.
Needs pexpect (a test dependency).
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(seconds, *extra):
    import pexpect
    env = dict(os.environ, TERM="xterm", PYTHONIOENCODING="utf-8", PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("NO_COLOR", None)
    with tempfile.TemporaryDirectory() as tmp:
        p = pexpect.spawn(sys.executable, [str(ROOT / "black.py"), "--board", str(Path(tmp) / "b"), *extra],
                          env=env, cwd=str(ROOT), encoding="utf-8", dimensions=(40, 100))
        p.expect("white")
        time.sleep(1.0)                          # started: imports and first frame done
        start = cpu_seconds(p.pid)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                p.read_nonblocking(65536, timeout=0.2)
            except pexpect.TIMEOUT:
                pass
        used = cpu_seconds(p.pid) - start
        p.sendline("quit")
        p.expect(pexpect.EOF, timeout=10)
    return used


def mid_game_view(size, hints=0):
    """A View of a ``size`` board half full, black (a person) to move, with ``hints`` hints."""
    from engine import PASS, Game
    from peer.view import Side, View
    g = Game(size)
    while len(g.moves) < size * size // 2 and not g.position.is_game_over():
        legal = g.position.legal_moves()
        g.play(legal[len(g.moves) % len(legal)] if legal else PASS)
    sides = (Side("Ann", "human", True, "thinking", 4.2, 31.0), Side("best", "computer", False, "waiting", None, 12.5))
    flipped = g.positions[-2].flips(g.moves[-1]) if g.moves[-1] != PASS else 0
    return View(colour=0, size=size, position=g.position, moves=tuple(g.moves), flipped=flipped, sides=sides,
                show_legal=True, hints=tuple((m, 4 - i) for i, m in enumerate(g.position.legal_moves()[:hints])))


def idle_line(face, used, plain, seconds):
    """What a face and ``--plain`` used, idle for ``seconds``, in one line."""
    return (f"idle for {seconds:g} s, waiting for the opponent: {face} {used:.2f} s CPU "
            f"({used / seconds * 100:.1f}% of a core), --plain {plain:.2f} s CPU ({plain / seconds * 100:.1f}%)")


def frame_ms(size, frames):
    from peer.faces.live import LiveScreen, message_lines, top_lines
    view = mid_game_view(size)
    screen = LiveScreen("en", colour=True)
    messages = [("", f"Wendy says: message number {i} with a few words in it to wrap") for i in range(40)]
    t = time.perf_counter()
    for _ in range(frames):
        top_lines(view, screen, 100)
        message_lines(messages, 99)
    return (time.perf_counter() - t) / frames * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--frames", type=int, default=200)
    args = ap.parse_args()
    live = idle_cpu(args.seconds)
    plain = idle_cpu(args.seconds, "--plain")
    print(idle_line("live screen", live, plain, args.seconds))
    for size in (8, 26):
        print(f"one frame laid out, {size}x{size} mid-game, 40 messages: {frame_ms(size, args.frames):.2f} ms")


if __name__ == "__main__":
    main()
