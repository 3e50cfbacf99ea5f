import sys

from .installed import check

check("python -m peer")
from .cli import main  # noqa: E402

sys.exit(main())
