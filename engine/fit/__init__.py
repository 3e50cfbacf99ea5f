"""Offline tools that make the data files the players read: nothing at play time imports them.

- ``engine.fit.weights``: the pattern evaluation's weights (``engine/weights.bin.gz``),
  ``python -m engine.fit.weights`` (needs numpy);
- ``engine.fit.probcut``: ProbCut's table (``engine/probcut.txt``),
  ``python -m engine.fit.probcut fit``;
- ``engine.fit.book``: the learned opening book (``engine/book.bin.gz``),
  ``python -m engine book build``.
"""
