"""What signing the game record (PROTOCOL.md D4) and checking it (D4, D5) cost.

    python bench/records.py --rounds 2000

A side saves the record once after every ply (D2) and loads it when a game
starts or is resumed.  This times, on a board folder in a temporary
directory, ``Records.save`` and ``Records.load`` of the record of a whole
60-ply game, plain and signed in turn (alternating, so that a drift of the
machine's speed hits both), and the HMAC alone; it prints the medians in
microseconds and the difference a move.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game  # noqa: E402
from peer.record import Record, Records, record_mac  # noqa: E402


def whole_game() -> str:
    """The transcript of a finished game: the first legal move each time."""
    g = Game()
    while not g.position.is_game_over():
        legal = list(g.position.legal_moves())
        g.play(legal[0] if legal else -1)
    return g.transcript(passes=True)


def rounds_option(text: str) -> int:
    n = int(text)
    if not 1 <= n <= 1_000_000:
        raise argparse.ArgumentTypeError("must be 1 to 1000000")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=rounds_option, default=2000, help="saves and loads of each kind (default 2000)")
    args = ap.parse_args(argv)
    moves = whole_game()
    secret = b"a phrase only the two of you know"
    times: dict[str, list[float]] = {k: [] for k in ("save plain", "save signed", "load plain", "load signed")}
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp)
        (board / "tmp").mkdir()
        (board / "cardstand.board").write_text("cardstand-board 1\n")
        rec = Record(id="bench-1", black="Ann", white="Bob", moves=moves, status="playing")
        stores = {"plain": Records(board), "signed": Records(board, secret)}
        for _ in range(args.rounds):
            for kind, records in stores.items():
                t = time.perf_counter()
                records.save(rec)
                times[f"save {kind}"].append(time.perf_counter() - t)
                t = time.perf_counter()
                records.load("bench-1")
                times[f"load {kind}"].append(time.perf_counter() - t)
        lines = rec.lines()
        t = time.perf_counter()
        for _ in range(args.rounds):
            record_mac(secret, lines)
        mac = (time.perf_counter() - t) / args.rounds
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    print(f"records: a {len(Game.from_transcript(moves).moves)}-ply game, {args.rounds} rounds, medians")
    for k, v in med.items():
        print(f"  {k:12s} {v:8.1f} us")
    print(f"  HMAC alone   {mac * 1e6:8.1f} us")
    print(f"signing costs a move (one save): {med['save signed'] - med['save plain']:+.1f} us; "
          f"a start or resume (one load): {med['load signed'] - med['load plain']:+.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
