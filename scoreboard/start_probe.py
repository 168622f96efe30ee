"""``python -m scoreboard.start_probe first|game ARGS...``: ``scoreboard run ARGS`` until a frame, then exit.

What ``scoreboard bench --only counts`` counts of a start (:mod:`scoreboard.bench.count_bench`):
``first`` exits once the first frame is shown (the starting frame,
:func:`scoreboard.starting.show_starting`; exit 4 when there was none), ``game`` where the
devices would start, the game's first screen shown by then. It lives outside
:mod:`scoreboard.bench`, whose package loads every benchmark: the count is of the start alone.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["main"]


def _stop(*_: object) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("first", "game"):
        print("usage: python -m scoreboard.start_probe first|game RUN_ARGS...", file=sys.stderr)
        return 2
    if argv[0] == "game":
        from scoreboard import hardware

        hardware.Hardware.start = _stop  # type: ignore[method-assign,assignment]
    else:
        from scoreboard import starting

        show = starting.show_starting

        def shown_then_stop(*args: Any, **kw: Any) -> None:
            if show(*args, **kw) is None:
                print("start_probe: no starting frame", file=sys.stderr)
                os._exit(4)
            _stop()

        starting.show_starting = shown_then_stop
    from scoreboard.cli import main as scoreboard

    scoreboard(["run", *argv[1:]])
    print("start_probe: the service ended before the frame", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
