"""Committing engine commands: on a copy of the state's game, journaled, the tiles followed.

Every function of the controller's modules takes a state (and what happened) and returns
the next state with the effects it asks for (:data:`Step`); the effects of one input are
merged by :func:`scoreboard.controller.table.finish`. :func:`commit` is the one place where
a game changes: the command is applied to a copy of the state's game, so a refusal (or any
error) leaves every existing state as it was.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeAlias

from engine.board import Square
from engine.events import AdjustScore, Challenge, Command, OverrideRuling, PenalizeTime
from engine.game import ChallengeResult
from engine.lexicon import HouseLexicon, Lexicon
from engine.rules import RuleProfile

from .context import Context
from .effects import Append, Effect, GameOver, HouseWord
from .records import Committed
from .state import Idle, Menu, Over, Playing, TableState
from .tags import track

__all__ = ["Fx", "Step", "commit", "game_over", "lexicon", "playing"]

Fx: TypeAlias = tuple[Effect, ...]
"""Effects of a step, in order (records one :class:`Append` each until merged)."""

Step: TypeAlias = tuple[TableState, Fx]
"""A next state and the effects that lead to it."""


# --- the game -----------------------------------------------------------------------------


def playing(s: TableState) -> Playing:
    """The phase of a table known to be playing."""
    assert isinstance(s.phase, Playing), s.phase
    return s.phase


def lexicon(ctx: Context, s: TableState, profile: RuleProfile) -> Lexicon:
    """The lexicon of ``profile``'s language with this session's overridden rulings."""
    base = ctx.lexicons(profile.tile_set.language)
    if not (s.accepted or s.rejected):
        return base
    return HouseLexicon(base, accept=s.accepted, reject=s.rejected)


def commit(
    ctx: Context,
    s: TableState,
    command: Command,
    *,
    laid: tuple[tuple[Square, bytes], ...] = (),
    drawn: tuple[bytes, ...] = (),
    returned: tuple[bytes, ...] = (),
    journal: bool = True,
) -> tuple[TableState, Fx, object]:
    """Apply ``command`` to a copy of the game, journal it with its tags, follow the tiles.

    Returns the new state, its effects and what the engine returned. An engine refusal
    raises (a :class:`ScoreboardError`) before any state is made. ``journal`` False: a
    restore folding journaled records (nothing is appended, the game's end is known); the
    game being rebuilt is the restore's own and is changed in place.
    """
    phase = s.phase
    assert isinstance(phase, (Playing, Over)), phase
    game = phase.game.copy() if journal else phase.game
    ruling = game.overridable_ruling
    result = game.apply(command)
    fx: Fx = (Append((Committed(command, laid, drawn, returned),)),) if journal else ()
    tiles = track(s.tiles, command, laid, drawn, returned, result)
    s = replace(s, tiles=tiles)
    if isinstance(command, OverrideRuling):
        assert isinstance(result, ChallengeResult)
        s, words = _house_words(s, game.tile_set.language, ruling, command, result)
        fx += words
    if isinstance(phase, Over):
        s = replace(s, phase=replace(phase, game=game))
        if journal and isinstance(command, (AdjustScore, PenalizeTime)):
            fx += (GameOver(game.tally()),)  # a correction after the end: the new tally
        return s, fx, result
    window = phase.window if phase.window is not None and game.window_open else None
    s = replace(s, phase=replace(phase, game=game, window=window))
    if game.over:
        s, more = game_over(ctx, s, journal)
        fx += more
    return s, fx, result


def _house_words(
    s: TableState, language: str, ruling: Challenge | None, command: OverrideRuling, result: ChallengeResult
) -> tuple[TableState, Fx]:
    """An overridden ``ruling`` teaches the table's lists: the words ruled invalid are accepted,
    the word ruled valid rejected (also on a restore: the list file may have missed them)."""
    if result.valid:
        assert ruling is not None
        house, accept = set(ruling.invalid_words), True
        s = replace(s, accepted=s.accepted | house, rejected=s.rejected - house)
    else:
        house, accept = set(command.invalid_words), False
        s = replace(s, rejected=s.rejected | house, accepted=s.accepted - house)
    return s, tuple(HouseWord(language, w, accept) for w in sorted(house))


def game_over(ctx: Context, s: TableState, journal: bool = True) -> Step:
    """The game in play ended: overtime is charged and the tally is due (the clocks stop
    when the step ends, :func:`scoreboard.controller.clocks.sync_clock`)."""
    phase = playing(s)
    game, clocks, profile = phase.game, phase.clocks, phase.game.profile
    mode = replace(s.mode, under=Idle()) if isinstance(s.mode, Menu) else Idle()  # an open menu stays
    s = replace(s, phase=Over(game, clocks), mode=mode)
    fx: Fx = ()
    # (a restore takes the penalties from the journal)
    if journal and clocks is not None and profile.overtime_penalty:
        for player, points in enumerate(clocks.game.penalties(s.now, profile.overtime_penalty)):
            if points:
                s, more, _ = commit(ctx, s, PenalizeTime(player, points))
                fx += tuple(e for e in more if not isinstance(e, GameOver))  # one tally, below
    if journal:
        over = s.game
        assert over is not None
        fx += (GameOver(over.tally()),)
    return s, fx
