"""``python -m training.evaluate``: the arena's command line, kept at its documented name.

The arena itself lives in ``training.arena`` (its command line in ``training.arena.cli``).
"""

import sys

from training.arena.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
