"""Play black: ``python black.py [--ai NAME] [--board DIR] ...`` (``--help`` for all options)."""
import sys

from peer.cli import main

if __name__ == "__main__":
    sys.exit(main(colour="black"))
