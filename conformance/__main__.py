"""``python -m conformance --peer CMD``: see ``conformance.cli``."""
import sys

from .cli import main

sys.exit(main())
