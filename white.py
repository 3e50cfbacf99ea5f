"""Play white: ``python white.py [--ai NAME] [--board DIR] ...`` (``--help`` for all options)."""
import sys

from peer.installed import check

check("white.py")
from peer.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(colour="white"))
