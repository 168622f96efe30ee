"""The table's state as the board publishes it (retained): a pure function of the controller's state.

The summary of :func:`scoreboard.play.view.table_view` without what only the table needs
(the tags the controller reads, the tiles to put right), with the clocks (seconds used,
whose runs, the limit) and the challenge in progress; the racks' letters go under
``private``, for the hub to hold back until its viewers may see them.
"""

from __future__ import annotations

from typing import Any

from scoreboard.controller.state import Over, Playing, TableState
from scoreboard.play.view import table_view

__all__ = ["PUBLIC_KEYS", "state_view"]

PUBLIC_KEYS = (
    "phase", "profile", "names", "seats", "turn", "scores", "bag", "racks", "board", "window", "tally", "first_draw",
    "paused", "away", "mode",
)
"""What of :func:`table_view` is published (``racks`` there is the number of tiles on each)."""


def state_view(state: TableState) -> dict[str, Any]:
    """The published summary of ``state`` (JSON data)."""
    full = table_view(state)
    view: dict[str, Any] = {key: full[key] for key in PUBLIC_KEYS}
    view["now"] = state.now
    phase = state.phase
    clocks = phase.clocks if isinstance(phase, (Playing, Over)) else None
    if clocks is not None:
        clock = clocks.game
        view["clock"] = {
            "used": [round(u, 3) for u in clock.used_at(state.now)],
            "running": None if state.paused else clock.running,
            "limit": clock.limit,
        }
    else:
        view["clock"] = None
    challenge = None
    if isinstance(phase, Playing) and phase.challenges:
        challenge = {"by": [seat for _, seat in phase.challenges]}
    view["challenge"] = challenge
    game = state.game
    view["private"] = {"racks": [game.rack(p) for p in range(len(game.players))] if game is not None else None}
    return view
