"""``python -m training``: the one entry point of the training package (see ``training.cli``)."""

import sys

from training.cli import main

if __name__ == "__main__":
    sys.exit(main())
