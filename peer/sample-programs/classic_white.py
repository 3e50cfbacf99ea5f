"""The tutorial's white player: comm + othellotool, moves sent as bare squares ("c4").
チュートリアルの白番プログラム: comm と othellotool だけで、手を「c4」のように送ります。

    python classic_white.py BOARD_FOLDER        (with classic_black.py, or `python black.py`)

It plays the first legal square it finds. / 見つけた最初の合法手を打ちます。
"""
import sys
import time

import comm
import othellotool as ot

cols = "abcdefgh"
folder = sys.argv[1] if len(sys.argv) > 1 else "cardstand"
comm.Init("white", folder)
comm.Quiet()
board = ot.SetBoard()
me, you = 1, 0


def place(bw: int, y: int, x: int) -> None:
    global board
    dl = ot.GetDirLength(board, y, x, bw)
    board = ot.RevDirLength(board, y, x, bw, dl)
    board[y][x] = bw


while True:
    lp_you, lp_me = ot.ListLegalPlaces(you, board), ot.ListLegalPlaces(me, board)
    if not lp_you and not lp_me:
        break
    if lp_you:                                  # wait for black's move / 黒の手を待つ
        while True:
            r, sender, body = comm.Talk("", "")
            if r == 2:
                try:
                    y, x = ot.MsgToPos(body)
                    ok = ot.IsLegalPlace(ot.ListLegalPlaces(you, board), y, x) >= 0
                except (ValueError, IndexError):
                    ok = False
                if ok:
                    place(you, y, x)
                    break
                print("not a move / 手ではありません:", body)
            time.sleep(0.02)
    lp_me = ot.ListLegalPlaces(me, board)
    if lp_me:
        y, x = lp_me[0]
        place(me, y, x)
        ot.BoardDisplay(board, [])
        while comm.Talk("black", cols[x] + str(y + 1))[0] != 1:
            time.sleep(0.05)
b, w = ot.CountingStone(board)
print(f"black {b} - white {w}")
