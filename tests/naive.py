"""A deliberately plain rules implementation (lists, loops) used only to check the engine.

A board is a list of rows; a cell is ``None`` (empty), 0 (black), 1 (white) or ``HOLE`` (no
square: never played, and no line of flips runs across it).
"""
DIRS = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]
HOLE = "#"


def flips(board, n, x, y, me):
    """Squares (x, y) flipped by ``me`` playing at (x, y); board[y][x] in {None, 0, 1, HOLE}."""
    if board[y][x] is not None:
        return []
    out = []
    for dx, dy in DIRS:
        run = []
        cx, cy = x + dx, y + dy
        while 0 <= cx < n and 0 <= cy < n and board[cy][cx] == 1 - me:
            run.append((cx, cy))
            cx += dx
            cy += dy
        if run and 0 <= cx < n and 0 <= cy < n and board[cy][cx] == me:
            out.extend(run)
    return out


def from_masks(n, black, white, holes=0):
    return [[0 if black >> (y * n + x) & 1 else 1 if white >> (y * n + x) & 1
             else HOLE if holes >> (y * n + x) & 1 else None
             for x in range(n)] for y in range(n)]


def children(board, me):
    """The boards after each legal move of ``me``, square by square."""
    n = len(board)
    out = []
    for y in range(n):
        for x in range(n):
            fl = flips(board, n, x, y, me)
            if fl:
                nxt = [row[:] for row in board]
                for cx, cy in fl + [(x, y)]:
                    nxt[cy][cx] = me
                out.append(nxt)
    return out


def perft(board, me, depth, passed=False):
    """Leaves ``depth`` plies below: a pass is a ply, a finished game is one leaf."""
    if depth == 0:
        return 1
    kids = children(board, me)
    if kids:
        return sum(perft(k, 1 - me, depth - 1) for k in kids)
    if passed:
        return 1
    return perft(board, 1 - me, depth - 1, True)


def final_score(board, me):
    """Disc difference for ``me`` at the end, the empty squares (never a hole) to the winner."""
    cells = [c for row in board for c in row]
    p, o, e = cells.count(me), cells.count(1 - me), cells.count(None)
    return p - o + e if p > o else p - o - e if p < o else 0


def solve(board, me, passed=False):
    """Exact final disc difference for ``me`` to move, by plain minimax over every line."""
    kids = children(board, me)
    if kids:
        return max(-solve(k, 1 - me) for k in kids)
    if passed:
        return final_score(board, me)
    return -solve(board, 1 - me, True)
