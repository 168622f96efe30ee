"""What the table announces: spoken news taken from a step's old and new state, pure.

:func:`announcements` compares the state a step began with and the state it made, as
:func:`~.view.frames` derives the screens from a state: the moves the game's log gained (a
play with its main word and score, a pass, an exchange), a ruling (the engine's Challenge in
the log, or an override a second seat confirmed; told as the display's ruling shows it), the
game clock of the player to move crossing a warning (:data:`CLOCK_WARNINGS`), the move timer
crossing :data:`MOVE_WARNINGS` or running out, the tally once the game is over, and whose
turn it is when that changed or time runs again after a pause or the board's return. Only
the kinds in :attr:`Settings.announce` are announced (none: nothing is looked at).
"""

from __future__ import annotations

from engine.events import Challenge, ChallengeBonus, ChallengePenalty, Command, Exchange, Pass, Play, PlayMade
from engine.game import Game
from scoreboard.screens.models import LANGUAGES, ChallengeResultScreen, ConfirmKind, ErrorKind, ErrorScreen, Lang
from scoreboard.voice.models import (
    ExchangeSpeech,
    PassSpeech,
    PlaySpeech,
    RulingSpeech,
    Speech,
    TallySpeech,
    TimeSpeech,
    TurnSpeech,
    kind_of,
)

from .context import Context
from .state import Asking, Over, Playing, TableState

__all__ = ["CLOCK_WARNINGS", "MOVE_WARNINGS", "announcements"]

CLOCK_WARNINGS = (300, 60, 0)
"""Seconds left on a player's game clock that are announced (0: time is up), those below
the clock's time."""

MOVE_WARNINGS = (30,)
"""Seconds left of the move limit that are announced, those below the limit (its end is the
controller's own notice)."""


def announcements(ctx: Context, old: TableState, new: TableState) -> tuple[Speech, ...]:
    """What to say about the step from ``old`` to ``new``, in order."""
    kinds = ctx.settings.announce
    if not kinds:
        return ()
    said = [*_moves(old, new), *_ruling(old, new), *_time(old, new), *_tally(old, new), *_turn(old, new)]
    return tuple(s for s in said if kind_of(s) in kinds)


def _language(game: Game) -> Lang:
    """The game's language (its tile set's), whose voice says its words."""
    lang = game.tile_set.language
    assert lang in LANGUAGES, lang
    return lang


def _new_commands(old: Game | None, new: Game | None) -> list[Command]:
    """The commands ``new``'s log gained over ``old``'s (none when it was rebuilt: an undo or
    an override replays the game from a copy)."""
    if old is None or new is None or old is new:
        return []
    before, after = old.log, new.log
    n = len(before)
    if len(after) <= n or (n and after[n - 1] is not before[n - 1]):
        return []
    return after[n:]


def _moves(old: TableState, new: TableState) -> list[Speech]:
    game = new.game
    said: list[Speech] = []
    for command in _new_commands(old.game, game):
        assert game is not None
        match command:
            case Play(player=player, placement=placement):
                play = next(
                    (e for e in reversed(game.events) if isinstance(e, PlayMade) and e.placement == placement), None
                )
                if play is not None and play.words:
                    blanks = {p.square for p in placement.tiles if p.tile.blank}
                    main = play.words[0]
                    word = "".join(ch.lower() if sq in blanks else ch for ch, sq in zip(main.text, main.squares))
                    said.append(PlaySpeech(new.names[player], word, play.points, _language(game), play.bingo))
            case Pass(player=player):
                said.append(PassSpeech(new.names[player]))
            case Exchange(player=player, tiles=tiles):
                said.append(ExchangeSpeech(new.names[player], len(tiles)))
            case _:
                pass
    return said


def _ruling(old: TableState, new: TableState) -> list[Speech]:
    """A ruling made in this step, as the display shows it."""
    game = new.game
    overridden = isinstance(old.mode, Asking) and old.mode.kind is ConfirmKind.OVERRIDE and game is not old.game
    ruled = [c for c in _new_commands(old.game, game) if isinstance(c, Challenge)]
    if game is None or not (ruled or overridden):
        return []
    lang = _language(game)
    last = next((e for e in reversed(game.events) if isinstance(e, PlayMade)), None)
    main = (last.words[0].text,) if last is not None and last.words else ()
    screen = new.notice.screen if new.notice is not None else None
    if isinstance(screen, ChallengeResultScreen):
        words = main if screen.valid else screen.invalid_words
        return [
            RulingSpeech(
                screen.challenger, screen.player, screen.valid, words, lang,
                screen.points, screen.lost_turn, screen.lost_game, overridden,
            )
        ]
    if not ruled:
        return []
    # the ruling's notice was covered in the same step (rare): told from the engine's record
    challenge = ruled[-1]
    player = last.player if last is not None else 0
    points = sum(
        e.points for e in game.events[len(old.game.events) if old.game is not None else 0:]
        if isinstance(e, (ChallengePenalty, ChallengeBonus))
    )
    valid = not challenge.invalid_words
    return [
        RulingSpeech(
            new.names[challenge.challenger], new.names[player], valid, main if valid else challenge.invalid_words,
            lang, points,
        )
    ]


def _time(old: TableState, new: TableState) -> list[Speech]:
    said: list[Speech] = []
    notice, before = new.notice, old.notice
    if (  # the move limit ran out: the controller's notice, new (not one a pause moved on)
        notice is not None
        and notice is not before
        and new.now < notice.until
        and isinstance(notice.screen, ErrorScreen)
        and notice.screen.kind is ErrorKind.MOVE_TIME_UP
        and (before is None or before.screen != notice.screen or old.now >= before.until)
    ):
        said.append(TimeSpeech(notice.screen.detail, 0, move=True))
    was, now = old.phase, new.phase
    if not isinstance(was, Playing) or not isinstance(now, Playing) or old.halt is not None or new.halt is not None:
        return said
    if was.clocks is None or now.clocks is None:
        return said
    clock, player = now.clocks.game, now.clocks.game.running
    if player is None or clock.limit is None:
        return said
    left_then = was.clocks.game.remaining(player, old.now)
    left_now = clock.remaining(player, new.now)
    assert left_then is not None and left_now is not None
    crossed = [t for t in CLOCK_WARNINGS if t < clock.limit and left_then > t >= left_now]
    if crossed:
        said.append(TimeSpeech(new.names[player], min(crossed)))
    limit = now.game.profile.move_time_limit
    move, was_move = now.clocks.move, was.clocks.move
    if limit and move.player == player and was_move.player == player and was_move.started == move.started:
        left_then, left_now = was_move.left(old.now, limit), move.left(new.now, limit)
        crossed = [t for t in MOVE_WARNINGS if t < limit and left_then > t >= left_now]
        if crossed:
            said.append(TimeSpeech(new.names[player], min(crossed), move=True))
    return said


def _tally(old: TableState, new: TableState) -> list[Speech]:
    if isinstance(old.phase, Over) or not isinstance(new.phase, Over):
        return []
    tally = new.phase.game.tally()
    rows = sorted(tally.rows, key=lambda r: -r.final)
    return [TallySpeech(tuple((r.name, r.final) for r in rows), tuple(tally.rows[i].name for i in tally.winners))]


def _turn(old: TableState, new: TableState) -> list[Speech]:
    """Whose turn, when it changed, the game began, or time runs again."""
    phase = new.phase
    if not isinstance(phase, Playing) or phase.game.over or new.halt is not None:
        return []
    turn = phase.game.turn
    was = old.phase
    if isinstance(was, Playing) and was.game.turn == turn and old.halt is None:
        return []
    return [TurnSpeech(new.names[turn])]
