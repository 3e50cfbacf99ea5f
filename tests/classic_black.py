"""A black program in the style of the original tutorial: comm + othellotool, bare coordinates only.

    python classic_black.py BOARD_DIR

It never speaks a control line and takes whatever it receives for white's move, as the
tutorial's programs do: a line that is not a coordinate is printed ("not a move: ...") and
dropped, like the tutorial's programs drop what they cannot read.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import comm  # noqa: E402
import othellotool as ot  # noqa: E402

cols = "abcdefgh"
comm.Init("black", sys.argv[1])
comm.Quiet()
board = ot.SetBoard()
me, you = 0, 1


def place(bw, y, x):
    global board
    dl = ot.GetDirLength(board, y, x, bw)
    board = ot.RevDirLength(board, y, x, bw, dl)
    board[y][x] = bw


def got(body):
    """Something white sent: its move, or (for a classic program) junk that eats a Talk."""
    print("not a move:", body, flush=True)


while True:
    lp_me, lp_you = ot.ListLegalPlaces(me, board), ot.ListLegalPlaces(you, board)
    if not lp_me and not lp_you:
        break
    if lp_me:
        y, x = lp_me[-1]
        place(me, y, x)
        while True:     # the tutorial's way: Talk until it says "sent"
            r, sender, body = comm.Talk("white", cols[x] + str(y + 1))
            if r == 1:
                break
            if r == 2:
                got(body)   # a message was waiting: it was taken instead of sending ours
            time.sleep(0.05)
    lp_you = ot.ListLegalPlaces(you, board)
    if lp_you:  # wait for white's move
        while True:
            r, sender, body = comm.Talk("", "")
            if r == 2:
                try:
                    y, x = ot.MsgToPos(body)
                    ok = ot.IsLegalPlace(ot.ListLegalPlaces(you, board), y, x) >= 0
                except (ValueError, IndexError, KeyError, TypeError):
                    ok = False
                if ok:
                    place(you, y, x)
                    break
                got(body)
            time.sleep(0.01)
b, w = ot.CountingStone(board)
print(f"classic result: black {b} - white {w}", flush=True)
