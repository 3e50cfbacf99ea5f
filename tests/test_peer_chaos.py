"""Chaos: either side killed (SIGKILL) at random moments, just after a save of the record included,
then started again as a user would; every game still ends the same on both sides, with one record.

More games or another draw: ``CHAOS_GAMES=40 CHAOS_SEED=7 python -m pytest tests/test_peer_chaos.py``.
"""
import os
import random
import time

import pytest

from engine import Game
from peer.record import Records

from peertools import final_line, player

SIZE = 6
COMMON = ["--ai", "random", "--time", "0.02", "--size", SIZE, "--patience", "60"]


def _records(board):
    d = board / "records"
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".game")) if d.is_dir() else []


def _stamp(board):
    """What the records folder looks like now (changes at every save)."""
    d = board / "records"
    try:
        return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(d.iterdir()))
    except OSError:
        return ()


class Side:
    def __init__(self, colour, board, seed):
        self.colour, self.board, self.seed = colour, board, seed
        self.runs = 0
        self.out = ""
        self.proc = None
        self.start()

    def start(self):
        self.runs += 1
        self.proc = player(self.colour, self.board, *COMMON, "--seed", self.seed * 100 + self.runs)

    def kill(self):
        self.proc.kill()
        out, _ = self.proc.communicate(timeout=30)
        self.out += out

    def finished(self):
        """The exit code once this run ended on its own, else None."""
        code = self.proc.poll()
        if code is None:
            return None
        out, _ = self.proc.communicate(timeout=30)
        self.out += out
        return code


def _one_game(board, rng, seed, kills):
    sides = [Side("black", board, seed), Side("white", board, seed + 50)]
    codes = [None, None]
    deadline = time.monotonic() + 240
    left = kills
    try:
        while None in codes:
            assert time.monotonic() < deadline, [s.out[-1500:] for s in sides]
            if left and rng.random() < 0.5:
                # a moment: at once, after a random pause, or just after the next save
                i = rng.randrange(2)
                how = rng.choice(["pause", "after-save", "after-save"])
                if how == "pause":
                    time.sleep(rng.uniform(0.0, 0.8))
                else:
                    before, until = _stamp(board), time.monotonic() + 5
                    while _stamp(board) == before and time.monotonic() < until:
                        time.sleep(0.002)
                if codes[i] is None and sides[i].proc.poll() is None:
                    sides[i].kill()
                    left -= 1
                    if final_line(sides[i].out):
                        codes[i] = 0            # it had shown the end: a user would not start it again
                    else:
                        sides[i].start()
            else:
                time.sleep(0.05)
            for i, s in enumerate(sides):
                if codes[i] is None:
                    codes[i] = s.finished()
    finally:
        for s in sides:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.communicate()
    return codes, sides


@pytest.mark.slow
def test_random_kills_of_either_side_never_lose_a_ply_or_a_game(tmp_path):
    rng = random.Random(int(os.environ.get("CHAOS_SEED", "20261124")))
    for g in range(int(os.environ.get("CHAOS_GAMES", "8"))):
        board = tmp_path / f"g{g}"
        codes, sides = _one_game(board, rng, g, kills=3)
        outs = [s.out for s in sides]
        assert codes == [0, 0], [o[-1500:] for o in outs]
        assert final_line(outs[0]) is not None and final_line(outs[0]) == final_line(outs[1]), \
            [o[-1500:] for o in outs]
        assert len(_records(board)) == 1, _records(board)
        rec = Records(board).current()
        assert rec.status == "over", rec
        game = Game.from_transcript(rec.moves, size=SIZE)
        assert game.position.is_game_over()
        b, w = game.position.discs()
        assert f"black {b} - white {w}" in final_line(outs[0])
