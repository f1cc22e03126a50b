"""``python -m streammetrics``: the command line of :mod:`streammetrics.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
