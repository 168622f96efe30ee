"""``python -m scoreboard.sim --link PATH ...``: ``scoreboard simulate-board`` (see :mod:`scoreboard.sim.cli`)."""

import sys

from scoreboard.sim.cli import main

if __name__ == "__main__":
    sys.exit(main())
