"""An external engine in the one-shot format, written with nothing but the standard library: it
reads the side to move, the size and the rows on stdin and plays the legal move that flips the
most discs (the first such in reading order).  For the league's tests: it starts in milliseconds."""
import sys

words = sys.stdin.read().split()
side, n = int(words[0]), int(words[1])
cells = words[2:2 + n * n]
board = [[cells[y * n + x] for x in range(n)] for y in range(n)]
me, them = str(side), str(-side)
best, move = 0, None
for y in range(n):
    for x in range(n):
        if board[y][x] != "0":
            continue
        flips = 0
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == dy == 0:
                    continue
                i, j, run = x + dx, y + dy, 0
                while 0 <= i < n and 0 <= j < n and board[j][i] == them:
                    i, j, run = i + dx, j + dy, run + 1
                if run and 0 <= i < n and 0 <= j < n and board[j][i] == me:
                    flips += run
        if flips > best:
            best, move = flips, (x, y)
print(f"{move[0]} {move[1]}" if move else "pass")
