"""A deliberately plain rules implementation (lists, loops) used only to check the engine."""
DIRS = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]


def flips(board, n, x, y, me):
    """Squares (x, y) flipped by ``me`` playing at (x, y); board[y][x] in {None, 0, 1}."""
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


def from_masks(n, black, white):
    return [[0 if black >> (y * n + x) & 1 else 1 if white >> (y * n + x) & 1 else None
             for x in range(n)] for y in range(n)]
