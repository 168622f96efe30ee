"""Which physical tile lies where: the committed board and racks, by tag, after a command.

Pure bookkeeping beside the engine: a play puts its tags on the board, a draw onto a rack,
an exchange swaps them, a withdrawn or undone play sends them back (and what its player
drew since goes back into the bag), an overridden ruling puts them back on the board.
"""

from __future__ import annotations

from dataclasses import replace

from engine.board import Square
from engine.events import Challenge, Command, Draw, Exchange, OverrideRuling, Play, UndoLastPlay
from engine.game import ChallengeResult

from .state import LastPlay, Tiles

__all__ = ["track"]


def track(
    tiles: Tiles,
    command: Command,
    laid: tuple[tuple[Square, bytes], ...],
    drawn: tuple[bytes, ...],
    returned: tuple[bytes, ...],
    result: object,
) -> Tiles:
    """``tiles`` after ``command`` (with the tags it moved) was applied with ``result``."""
    match command:
        case Draw(player=player):
            lp = tiles.last_play
            if lp is not None and lp.player == player:
                lp = replace(lp, drawn=lp.drawn | set(drawn))
            tiles = _with_rack(tiles, player, tiles.racks[player] | set(drawn))
            return replace(tiles, to_return=tiles.to_return - set(drawn), last_play=lp)
        case Play(player=player):
            placed = dict(laid)
            tiles = _with_rack(tiles, player, tiles.racks[player] - set(placed.values()))
            return replace(
                tiles,
                board={**tiles.board, **placed},
                to_remove=tiles.to_remove - set(placed),
                last_play=LastPlay(player, placed),
            )
        case Exchange(player=player):
            tiles = _with_rack(tiles, player, (tiles.racks[player] - set(returned)) | set(drawn))
            return replace(tiles, to_return=tiles.to_return - set(drawn))
        case Challenge(invalid_words=invalid) if invalid:
            return _withdrawn(tiles)
        case UndoLastPlay():
            return replace(_withdrawn(tiles), last_play=None)
        case OverrideRuling():
            assert isinstance(result, ChallengeResult)
            return _reinstated(tiles) if result.valid else _withdrawn(tiles)
        case _:
            return tiles


def _with_rack(tiles: Tiles, seat: int, tags: frozenset[bytes]) -> Tiles:
    racks = list(tiles.racks)
    racks[seat] = frozenset(tags)
    return replace(tiles, racks=tuple(racks))


def _withdrawn(tiles: Tiles) -> Tiles:
    """The last play's tiles go back to the rack, its draws back into the bag."""
    lp = tiles.last_play
    assert lp is not None
    tiles = _with_rack(tiles, lp.player, (tiles.racks[lp.player] - lp.drawn) | set(lp.laid.values()))
    return replace(
        tiles,
        board={sq: uid for sq, uid in tiles.board.items() if sq not in lp.laid},
        to_remove=tiles.to_remove | set(lp.laid),
        to_return=tiles.to_return | lp.drawn,
        to_place=tiles.to_place - set(lp.laid),
    )


def _reinstated(tiles: Tiles) -> Tiles:
    """A withdrawn play stands after all: its tiles on the board, its draws on the rack."""
    lp = tiles.last_play
    assert lp is not None
    tiles = _with_rack(tiles, lp.player, (tiles.racks[lp.player] - set(lp.laid.values())) | lp.drawn)
    return replace(
        tiles,
        board={**tiles.board, **lp.laid},
        to_remove=tiles.to_remove - set(lp.laid),
        to_place=tiles.to_place | set(lp.laid),
        to_return=tiles.to_return - lp.drawn,
    )
