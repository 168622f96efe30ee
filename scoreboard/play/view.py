"""The table as the page shows it: a summary of the controller's state, as plain JSON data.

:func:`table_view` is a pure function of a :class:`~scoreboard.controller.TableState`: who
plays, the scores, whose turn, the bag, the committed board (a blank with the letter it
was given), what the board controller reads where (its tags, as the service last took them
settled), the readers that do not answer, whether the link is away or the table paused, the
challenge window, the tiles to put right (the committed ones asked back by their tags), the
committed tiles and racks by tag, and the tally. The service's control channel
(:mod:`scoreboard.play.channel`) pushes it whenever it changes.
"""

from __future__ import annotations

import math
from typing import Any

from drivers.board.protocol import Area, Loc
from engine.game import Tally
from scoreboard.controller.state import (
    Adjusting,
    Asking,
    BlankPick,
    Confirming,
    FirstDraw,
    Idle,
    Lobby,
    Menu,
    Mode,
    Over,
    Playing,
    Reading,
    TableState,
)

__all__ = ["location_name", "mode_name", "table_view", "tally_view"]


def mode_name(mode: Mode) -> str:
    """What the table waits for, in a word the page shows (``reading``, ``blank``, ``menu`` ...)."""
    match mode:
        case Idle():
            return "idle"
        case Reading():
            return "reading"
        case Confirming():
            return f"confirm-{mode.kind.value}"
        case BlankPick():
            return "blank"
        case Menu():
            return "menu"
        case Adjusting():
            return "adjusting"
        case Asking():
            return f"asking-{mode.kind.value}"
    raise AssertionError(f"no such mode {mode!r}")  # pragma: no cover - every mode is named above


def tally_view(tally: Tally) -> dict[str, Any]:
    """A tally as the journal keeps a result: termination, rows, winners."""
    return {
        "termination": tally.termination.value if tally.termination else None,
        "rows": [
            {"name": r.name, "score": r.score, "rack_adjustment": r.rack_adjustment, "final": r.final}
            for r in tally.rows
        ],
        "winners": list(tally.winners),
    }


def table_view(state: TableState) -> dict[str, Any]:
    """The page's summary of ``state`` (JSON data: strings, numbers, lists, dicts, None)."""
    phase = state.phase
    game = state.game
    view: dict[str, Any] = {
        "phase": _phase_name(phase),
        "profile": state.profile_name,
        "names": list(state.names),
        "seats": state.seats,
        "turn": None,
        "scores": None,
        "bag": None,
        "racks": None,
        "board": {},
        "window": None,
        "tally": None,
        "first_draw": None,
    }
    if game is not None:
        view["scores"] = game.scores()
        view["bag"] = len(game.bag)
        view["racks"] = [len(rack) for rack in game.racks]
        view["board"] = {
            square.name(): {"letter": tile.letter, "blank": tile.blank} for square, tile in game.board.tiles()
        }
        if isinstance(phase, Playing):
            view["turn"] = game.turn
            if phase.window is not None:
                view["window"] = {"player": phase.window.player, "left_s": math.ceil(max(0.0, phase.window.deadline - state.now))}
        elif isinstance(phase, Over):
            view["tally"] = tally_view(game.tally())
    if isinstance(phase, FirstDraw):
        view["first_draw"] = {"letters": list(phase.letters)}
    reads = state.reads
    view["reads"] = {location_name(loc): uid.hex().upper() for loc, uid in sorted(reads.observed.tags.items())}
    view["settled"] = reads.settled
    view["dead"] = [{"reader": reader, "at": [location_name(loc) for loc in locs]} for reader, locs in reads.dead]
    halt = state.halt
    view["paused"] = state.paused
    view["away"] = halt.away if halt is not None else None
    view["refused"] = bool(halt is not None and halt.refused)
    view["mode"] = mode_name(state.mode)
    tiles = state.tiles
    view["to_remove"] = sorted(square.name() for square in tiles.to_remove)
    view["to_place"] = sorted(square.name() for square in tiles.to_place)
    view["to_return"] = sorted(uid.hex().upper() for uid in tiles.to_return)
    # the very tiles, by tag: where each committed one lies (the ones asked back among them) and each rack's
    view["asked"] = {square.name(): tiles.board[square].hex().upper() for square in sorted(tiles.to_place)
                     if square in tiles.board}
    view["committed_tags"] = {square.name(): uid.hex().upper() for square, uid in sorted(tiles.board.items())}
    view["rack_tags"] = [sorted(uid.hex().upper() for uid in rack) for rack in tiles.racks]
    return view


def location_name(loc: Loc) -> str:
    """A location as the simulated board's commands name it: ``H8``, ``R1.3`` (rack, slot from 1)."""
    if loc.area is Area.BOARD:
        return loc.square.name()
    return f"R{loc.rack + 1}.{loc.rack_slot + 1}"


def _phase_name(phase: Lobby | FirstDraw | Playing | Over) -> str:
    match phase:
        case Lobby():
            return "lobby"
        case FirstDraw():
            return "first-draw"
        case Playing():
            return "playing"
        case Over():
            return "over"
    raise AssertionError(f"no such phase {phase!r}")  # pragma: no cover
