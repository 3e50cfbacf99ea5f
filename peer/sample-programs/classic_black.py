"""The tutorial's black player: comm + othellotool, moves sent as bare squares ("d3").
チュートリアルの黒番プログラム: comm と othellotool だけで、手を「d3」のように送ります。

    python classic_black.py BOARD_FOLDER        (then, in another terminal / 別の端末で:
    python classic_white.py BOARD_FOLDER         白番を起動)

It plays the last legal square it finds; change `choose` to play better.
見つけた最後の合法手を打ちます。`choose` を書き換えると強くなります。
"""
import sys
import time

import comm
import othellotool as ot

cols = "abcdefgh"
folder = sys.argv[1] if len(sys.argv) > 1 else "cardstand"
comm.Init("black", folder)          # join the board as "black" / 伝言台に black として参加
comm.Quiet()                        # no log lines on the screen / ログを画面に出さない
board = ot.SetBoard()               # 8x8, the four discs in the middle / 初期盤面
me, you = 0, 1                      # 0 = black / 黒, 1 = white / 白


def place(bw: int, y: int, x: int) -> None:
    """Put a disc of colour bw on (y, x) and turn the flanked discs / 石を置いて挟んだ石を返す."""
    global board
    dl = ot.GetDirLength(board, y, x, bw)
    board = ot.RevDirLength(board, y, x, bw, dl)
    board[y][x] = bw


def choose(legal: list[list[int]]) -> list[int]:
    """Which legal square to play / どの合法手を打つか."""
    return legal[-1]


while True:
    lp_me, lp_you = ot.ListLegalPlaces(me, board), ot.ListLegalPlaces(you, board)
    if not lp_me and not lp_you:
        break                                   # nobody can move: the end / 双方打てない: 終局
    if lp_me:
        y, x = choose(lp_me)
        place(me, y, x)
        ot.BoardDisplay(board, [])
        while comm.Talk("white", cols[x] + str(y + 1))[0] != 1:    # 1: sent / 送信できた
            time.sleep(0.05)
    if ot.ListLegalPlaces(you, board):          # wait for white's move / 白の手を待つ
        while True:
            r, sender, body = comm.Talk("", "")
            if r == 2:                          # 2: a message came / メッセージが届いた
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
b, w = ot.CountingStone(board)
print(f"black {b} - white {w}")
