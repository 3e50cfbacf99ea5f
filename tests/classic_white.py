"""A program in the style of the original tutorial: comm + othellotool, bare coordinates, no passes.

    python classic_white.py BOARD_DIR
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import comm  # noqa: E402
import othellotool as ot  # noqa: E402

cols = "abcdefgh"
comm.Init("white", sys.argv[1])
comm.Quiet()
board = ot.SetBoard()
me, you = 1, 0


def place(bw, y, x):
    global board
    dl = ot.GetDirLength(board, y, x, bw)
    board = ot.RevDirLength(board, y, x, bw, dl)
    board[y][x] = bw


while True:
    lp_you, lp_me = ot.ListLegalPlaces(you, board), ot.ListLegalPlaces(me, board)
    if not lp_you and not lp_me:
        break
    if lp_you:  # wait for black's move (a classic program only ever waits for coordinates)
        while True:
            r, sender, body = comm.Talk("", "")
            if r == 2:
                y, x = ot.MsgToPos(body)
                if ot.IsLegalPlace(ot.ListLegalPlaces(you, board), y, x) >= 0:
                    place(you, y, x)
                    break
                print("ignored:", body, flush=True)
            time.sleep(0.01)
    lp_me = ot.ListLegalPlaces(me, board)
    if lp_me:
        y, x = lp_me[0]
        place(me, y, x)
        while comm.Talk("black", cols[x] + str(y + 1))[0] != 1:
            time.sleep(0.05)
b, w = ot.CountingStone(board)
print(f"classic result: black {b} - white {w}", flush=True)
