"""A new game: the board cleared, the draw for the first player on the racks, the deal.

In the lobby the tiles of the last game come off the board. Then every seat puts one tile
from the bag on its rack (:class:`~engine.first_player.FirstPlayerDraw` decides; tied seats
draw another tile), those tiles go back into the bag, and the game starts: its
:class:`Started` record is journaled and the players draw their racks.
"""

from __future__ import annotations

import random
from dataclasses import replace

from drivers.board.snapshot import BoardSnapshot
from engine.first_player import FirstPlayerDraw
from engine.game import Game
from engine.rules import RuleProfile
from engine.tiles import Tile
from scoreboard.screens.text import text

from .clocks import new_clocks
from .commit import Step
from .context import Context
from .effects import Append
from .records import Started
from .state import FirstDraw, Idle, Lobby, Playing, TableState, Tiles

__all__ = ["draw_read", "new_game", "start_game"]


def new_game(ctx: Context, s: TableState, profile_name: str, seats: int) -> TableState:
    """Back to the lobby (the board must be cleared first) or straight to the draw."""
    names = ctx.names
    s = replace(
        s,
        profile_name=profile_name,
        seats=seats,
        names=tuple(
            names[i] if i < len(names) else text("player.default", ctx.language(profile_name), n=i + 1) for i in range(seats)
        ),
        next_profile=profile_name,
        next_seats=seats,
        mode=Idle(),
        notice=None,
        tiles=Tiles(racks=(frozenset(),) * seats, to_remove=frozenset(s.reads.observed.cells())),
    )
    return _draw_when_clear(s)


def _draw_when_clear(s: TableState) -> TableState:
    if s.tiles.to_remove:
        return replace(s, phase=Lobby())
    return replace(s, phase=FirstDraw(FirstPlayerDraw.start(s.seats), ("",) * s.seats))


def draw_read(ctx: Context, s: TableState, snap: BoardSnapshot, settled: bool) -> Step:
    """A board read in the lobby or during the draw for the first player."""
    if isinstance(s.phase, Lobby):
        s = _draw_when_clear(s)
    phase = s.phase
    if not isinstance(phase, FirstDraw) or not settled or s.tiles.to_remove:
        return s, ()
    profile = ctx.profiles(s.profile_name)
    if phase.draw.first is not None:  # the tiles go back into the bag, then the deal
        if any(snap.rack(p) for p in range(s.seats)):
            return s, ()
        started = Started(profile.rules_line(), s.names, phase.draw.first, phase.draw.record())
        return start_game(ctx, s, started, profile)
    lookup = ctx.tiles(profile.tile_set)
    letters = list(phase.letters)
    drawn: dict[int, tuple[bytes, Tile]] = {}
    for p in phase.draw.contenders:
        uids = [u for u in snap.rack(p).values() if u not in phase.stale]
        tile = lookup.tile_of(uids[0]) if len(uids) == 1 else None
        letters[p] = tile.rack_letter if tile is not None else ""
        if tile is not None:
            drawn[p] = (uids[0], tile)
    phase = replace(phase, letters=tuple(letters))
    if len(drawn) == len(phase.draw.contenders):
        draw = phase.draw.draw({p: tile for p, (_, tile) in drawn.items()}, profile.tile_set)
        stale = phase.stale if draw.first is not None else phase.stale | {uid for uid, _ in drawn.values()}
        phase = replace(phase, draw=draw, stale=stale)
    return replace(s, phase=phase), ()


def start_game(ctx: Context, s: TableState, started: Started, profile: RuleProfile, *, journal: bool = True) -> Step:
    """The game of ``started`` begins (``journal`` False: a restore)."""
    seats = len(started.players)
    game = Game(profile, started.players, rng=random.Random(0), first=started.first)
    clocks = new_clocks(profile.clock_minutes, profile.move_time_limit, seats)
    s = replace(
        s,
        phase=Playing(game, clocks=clocks),
        names=started.players,
        seats=seats,
        tiles=replace(s.tiles, racks=(frozenset(),) * seats),
    )
    return s, ((Append((started,)),) if journal else ())
