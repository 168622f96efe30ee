"""Rule profiles as data: ``de``, ``fr``, ``en``, ``en-tournament`` and their variants.

A :class:`RuleProfile` holds every parameter of the rules reference (docs/RULES.md: the
profile table, and every choice in "This project's choices"). Variants (9-tile racks,
finish-line target, per-move time limit, game clock with overtime penalty, a tournament
challenge rule) are applied with :meth:`RuleProfile.with_variants` and written in GCG as
``#rules de rack=9 target=120``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .errors import PlayerCountError, UnknownProfileError, VariantError
from .tiles import TileSet, get_tile_set


class ChallengeOutcome(enum.Enum):
    """What happens to a challenger when the challenged play is valid."""

    CHALLENGER_LOSES_POINTS = "points"  # de: -5, fr: -10
    CHALLENGER_LOSES_TURN = "lose-turn"  # en; challenge=double
    PLAYER_GETS_BONUS = "bonus"  # challenge=five (+5) or ten (+10) to the player who laid it
    NOTHING = "nothing"  # challenge=single: a wrong challenge costs nothing
    LOSER_LOSES_GAME = "loses-game"  # challenge=triple: the challenger loses the game


class ChallengeRule(enum.Enum):
    """A challenge rule chosen per game, named as Macondo and Woogles name them.

    ``void``: a play with an invalid word is refused when laid (never scored; nothing to
    challenge). ``single``: a wrong challenge costs nothing. ``double``: a wrong
    challenger loses the turn. ``five``/``ten``: the player whose valid play was
    challenged gets 5/10 points. ``triple``: the loser of the challenge loses the game
    (2 players). Without one, a profile plays its own rule (de -5, fr -10, en a turn).
    """

    VOID = "void"
    SINGLE = "single"
    DOUBLE = "double"
    FIVE = "five"
    TEN = "ten"
    TRIPLE = "triple"


CHALLENGE_ALIASES: dict[str, ChallengeRule] = {"5pt": ChallengeRule.FIVE, "10pt": ChallengeRule.TEN}
"""Other names read in ``challenge=`` (Macondo's shell writes ``5pt`` and ``10pt``)."""


class WindowCloses(enum.Enum):
    """When the challenge window of a play closes (besides the configured time)."""

    NEXT_PLAYER_ACTS = "next-player-acts"
    PLAYER_DRAWS = "player-draws"  # fr: the player who laid the word draws a tile


class PassScope(enum.Enum):
    """How consecutive scoreless turns end the game."""

    ALL_PLAYERS = "all-players"  # `count` rounds of every player: count x players turns in a row
    ONE_PLAYER = "one-player"  # one player's own `count` turns in a row
    TOTAL = "total"  # `count` consecutive turns, whoever takes them


class TurnKind(enum.Enum):
    """How a turn ended, for the pass-ending rule."""

    PLAY = "play"
    PASS = "pass"
    EXCHANGE = "exchange"
    WITHDRAWN = "withdrawn"  # a play taken back after a successful challenge
    LOST_TURN = "lost-turn"  # a turn lost to a failed challenge


class TieRule(enum.Enum):
    """How a tie in final score is broken."""

    STANDS = "stands"
    HIGHER_BEFORE_ADJUSTMENT = "higher-before-adjustment"


class MoveLimitAction(enum.Enum):
    """What happens when the per-move time limit runs out."""

    WARN = "warn"
    PASS = "pass"


# Finish-line targets by players and level (docs/RULES.md, from 004_).
FINISH_LINE_TARGETS: dict[int, dict[str, int]] = {
    2: {"beginner": 70, "intermediate": 120, "expert": 200},
    3: {"beginner": 60, "intermediate": 100, "expert": 180},
    4: {"beginner": 50, "intermediate": 90, "expert": 160},
}


@dataclass(frozen=True)
class RuleProfile:
    """Every rule parameter of a profile, variants included."""

    name: str
    tile_set_name: str
    min_players: int = 2
    max_players: int = 4
    rack_size: int = 7
    bingo_tiles: int = 7
    bingo_bonus: int = 50
    exchange_min_bag: int = 7
    challenge_outcome: ChallengeOutcome = ChallengeOutcome.CHALLENGER_LOSES_POINTS
    challenge_penalty: int = 5  # points a wrong challenger loses (CHALLENGER_LOSES_POINTS)
    challenge_bonus: int = 5  # points per challenge for the player (PLAYER_GETS_BONUS)
    challenge_rule: ChallengeRule | None = None  # a tournament rule; None: the profile's own
    invalid_play_refused: bool = False  # challenge=void: an invalid play is refused when laid
    window_closes: WindowCloses = WindowCloses.NEXT_PLAYER_ACTS
    overrides_allowed: bool = True
    phony_extension_rule: bool = False
    pass_scope: PassScope = PassScope.ALL_PLAYERS
    pass_count: int = 2
    pass_kinds: frozenset[TurnKind] = frozenset(
        {TurnKind.PASS, TurnKind.WITHDRAWN, TurnKind.LOST_TURN}
    )
    out_bonus_factor: int = 1  # the player who goes out adds this x the other racks
    others_subtract_on_out: bool = True
    tie_rule: TieRule = TieRule.STANDS
    # variants
    target: int | None = None  # finish line: the game ends when a final play reaches it
    move_time_limit: int | None = None  # seconds per move
    move_limit_action: MoveLimitAction = MoveLimitAction.WARN
    clock_minutes: int | None = None  # game clock per player
    overtime_penalty: int = 0  # points per started minute over the game clock
    clock_overtime: int = 0  # the overtime penalty a game clock brings when none is given
    gcg_default: bool = False  # the rules of a GCG record without #rules (a standard record)
    # choices where the rule texts are silent (docs/RULES.md, "This project's choices")
    going_out_beats_finish_line: bool = True  # a final play reaching the target and going out:
    #   the game ends as a going-out game, with the rack adjustment (False: finish line, none)
    challenge_bonus_reaches_target: bool = True  # a challenge bonus counts towards the target
    finish_line_rack_adjustment: bool = False  # racks are not counted at a finish-line end
    triple_rack_adjustment: bool = False  # racks are not counted when a triple challenge ends it

    @property
    def tile_set(self) -> TileSet:
        """The tile set this profile plays with."""
        return get_tile_set(self.tile_set_name)

    @property
    def challenge_kind(self) -> str | None:
        """The challenge rule's name (``double``, ``five``, ...); None: the profile's own rule."""
        return None if self.challenge_rule is None else self.challenge_rule.value

    def pass_end_turns(self, players: int) -> int:
        """Consecutive scoreless turns that end the game (ALL_PLAYERS and TOTAL scopes)."""
        return self.pass_count * players if self.pass_scope is PassScope.ALL_PLAYERS else self.pass_count

    def pass_rule_ends(self, turns: Sequence[tuple[int, TurnKind]], players: int) -> bool:
        """True when ``turns`` (seat, how the turn ended), oldest first, end the game by the
        pass rule: ``pass_count`` scoreless turns of the kinds in ``pass_kinds``, counted
        over everybody's turns or (ONE_PLAYER) one player's own."""
        kinds = self.pass_kinds
        if self.pass_scope is PassScope.ONE_PLAYER:
            for player in {p for p, _ in turns}:
                run = 0
                for p, kind in reversed(turns):
                    if p != player:
                        continue
                    if kind not in kinds:
                        break
                    run += 1
                if run >= self.pass_count:
                    return True
            return False
        run = 0
        for _, kind in reversed(turns):
            if kind not in kinds:
                break
            run += 1
        return bool(turns) and run >= self.pass_end_turns(players)

    @property
    def most_players(self) -> int:
        """The most players a game under this profile takes: ``max_players``, but 2 under
        ``challenge=triple`` (its loser loses the game to the other)."""
        return 2 if self.challenge_rule is ChallengeRule.TRIPLE else self.max_players

    def check_players(self, players: int) -> None:
        """Raise :class:`PlayerCountError` when ``players`` is outside ``min_players`` to
        :attr:`most_players`."""
        least, most = self.min_players, self.most_players
        if least <= players <= most:
            return
        if most < self.max_players:
            message = f"challenge=triple is for 2 players, not {players}"
        else:
            span = str(least) if least == most else f"{least}-{most}"
            message = f"profile {self.name!r} is for {span} players, not {players}"
        raise PlayerCountError(message, players, least, most, self.name)

    def has_variants(self) -> bool:
        """True when anything but the tile set differs from the registered profile."""
        return replace(self, tile_set_name=PROFILES[self.name].tile_set_name) != PROFILES[self.name]

    def with_tile_set(self, name: str) -> RuleProfile:
        """This profile played with another tile set (``german``, ``french``, ``english``)."""
        return replace(self, tile_set_name=get_tile_set(name).name)

    def with_variants(
        self,
        *,
        rack: int | None = None,
        target: int | None = None,
        challenge: str | None = None,
        move_limit: int | None = None,
        move_limit_action: str | None = None,
        clock: int | None = None,
        overtime: int | None = None,
    ) -> RuleProfile:
        """This profile with variants applied; ``None`` leaves a parameter as it is.

        ``rack`` 7 or 9 (9: bingo for 7, 8 or 9 tiles); ``target`` finish-line points (0:
        off); ``challenge`` a :class:`ChallengeRule` name (``void``, ``single``, ``double``,
        ``five``, ``ten``, ``triple``; also ``5pt``, ``10pt``), in any profile; ``move_limit``
        seconds per move (0: off); ``clock`` minutes per player (0: off); ``overtime``
        points per started minute over the clock.
        """
        p = self
        if rack is not None:
            if rack not in (7, 9):
                raise VariantError(f"rack={rack!r}: a rack holds 7 or 9 tiles")
            p = replace(p, rack_size=rack, bingo_tiles=7)
        if target is not None:
            if target < 0:
                raise VariantError(f"target={target!r}: must be 0 (off) or a positive score")
            p = replace(p, target=target or None)
        if challenge is not None:
            p = p.with_challenge_rule(challenge)
        if move_limit is not None:
            if move_limit < 0:
                raise VariantError(f"move-limit={move_limit!r}: seconds, 0 for none")
            p = replace(p, move_time_limit=move_limit or None)
        if move_limit_action is not None:
            try:
                p = replace(p, move_limit_action=MoveLimitAction(move_limit_action))
            except ValueError:
                raise VariantError(
                    f"move-limit-action={move_limit_action!r}: use warn or pass"
                ) from None
        if clock is not None:
            if clock < 0:
                raise VariantError(f"clock={clock!r}: minutes, 0 for none")
            p = replace(p, clock_minutes=clock or None)
            if clock and overtime is None:
                p = replace(p, overtime_penalty=p.clock_overtime)
        if overtime is not None:
            if overtime < 0:
                raise VariantError(f"overtime={overtime!r}: points per minute, 0 or more")
            p = replace(p, overtime_penalty=overtime)
        return p

    def with_challenge_rule(self, name: str) -> RuleProfile:
        """This profile under the challenge rule ``name`` (see :class:`ChallengeRule`)."""
        rule = CHALLENGE_ALIASES.get(name)
        if rule is None:
            try:
                rule = ChallengeRule(name)
            except ValueError:
                names = ", ".join(r.value for r in ChallengeRule)
                raise VariantError(f"challenge={name!r}: use one of {names}") from None
        outcome, bonus = {
            ChallengeRule.VOID: (ChallengeOutcome.NOTHING, 0),
            ChallengeRule.SINGLE: (ChallengeOutcome.NOTHING, 0),
            ChallengeRule.DOUBLE: (ChallengeOutcome.CHALLENGER_LOSES_TURN, 0),
            ChallengeRule.FIVE: (ChallengeOutcome.PLAYER_GETS_BONUS, 5),
            ChallengeRule.TEN: (ChallengeOutcome.PLAYER_GETS_BONUS, 10),
            ChallengeRule.TRIPLE: (ChallengeOutcome.LOSER_LOSES_GAME, 0),
        }[rule]
        return replace(
            self,
            challenge_rule=rule,
            challenge_outcome=outcome,
            challenge_bonus=bonus or self.challenge_bonus,
            invalid_play_refused=rule is ChallengeRule.VOID,
        )

    # --- the #rules line -------------------------------------------------------------

    def rules_line(self) -> str:
        """The GCG ``#rules`` value: ``de rack=9 target=120`` (defaults omitted)."""
        parts = [self.name]
        if self.rack_size != 7:
            parts.append(f"rack={self.rack_size}")
        if self.target:
            parts.append(f"target={self.target}")
        if self.challenge_rule is not PROFILES[self.name].challenge_rule and self.challenge_rule is not None:
            parts.append(f"challenge={self.challenge_rule.value}")
        if self.move_time_limit:
            parts.append(f"move-limit={self.move_time_limit}")
        if self.move_limit_action is not MoveLimitAction.WARN:
            parts.append(f"move-limit-action={self.move_limit_action.value}")
        if self.clock_minutes:
            parts.append(f"clock={self.clock_minutes}")
        default_overtime = self.clock_overtime if self.clock_minutes else 0
        if self.overtime_penalty != default_overtime:
            parts.append(f"overtime={self.overtime_penalty}")
        return " ".join(parts)

    @classmethod
    def from_rules_line(cls, text: str) -> RuleProfile:
        """Parse a ``#rules`` value such as ``de rack=9 target=120``."""
        words = text.split()
        if not words:
            raise VariantError("empty #rules line")
        profile = get_profile(words[0])
        kwargs: dict[str, object] = {}
        keys = {
            "rack": "rack",
            "target": "target",
            "challenge": "challenge",
            "move-limit": "move_limit",
            "move-limit-action": "move_limit_action",
            "clock": "clock",
            "overtime": "overtime",
        }
        for item in words[1:]:
            key, sep, value = item.partition("=")
            if not sep or key not in keys:
                raise VariantError(
                    f"#rules: unknown setting {item!r}; known: {', '.join(k + '=' for k in keys)}"
                )
            if key in ("challenge", "move-limit-action"):
                kwargs[keys[key]] = value
            else:
                try:
                    kwargs[keys[key]] = int(value)
                except ValueError:
                    raise VariantError(f"#rules: {key}={value!r} is not a whole number") from None
        return profile.with_variants(**kwargs)  # type: ignore[arg-type]


_CLASSIC_PASS = frozenset({TurnKind.PASS, TurnKind.WITHDRAWN, TurnKind.LOST_TURN})

PROFILES: dict[str, RuleProfile] = {
    p.name: p
    for p in (
        RuleProfile(
            name="de",
            tile_set_name="german",
            challenge_outcome=ChallengeOutcome.CHALLENGER_LOSES_POINTS,
            challenge_penalty=5,
            pass_scope=PassScope.ALL_PLAYERS,
            pass_count=2,
            pass_kinds=_CLASSIC_PASS,
        ),
        RuleProfile(
            name="fr",
            tile_set_name="french",
            challenge_outcome=ChallengeOutcome.CHALLENGER_LOSES_POINTS,
            challenge_penalty=10,
            window_closes=WindowCloses.PLAYER_DRAWS,
            phony_extension_rule=True,
            pass_scope=PassScope.ALL_PLAYERS,
            pass_count=2,
            pass_kinds=_CLASSIC_PASS,
        ),
        RuleProfile(
            name="en",
            tile_set_name="english",
            challenge_outcome=ChallengeOutcome.CHALLENGER_LOSES_TURN,
            pass_scope=PassScope.ONE_PLAYER,
            pass_count=2,
            pass_kinds=_CLASSIC_PASS,
            tie_rule=TieRule.HIGHER_BEFORE_ADJUSTMENT,
        ),
        RuleProfile(
            name="en-tournament",
            tile_set_name="english",
            min_players=2,
            max_players=2,
            challenge_outcome=ChallengeOutcome.CHALLENGER_LOSES_TURN,
            challenge_rule=ChallengeRule.DOUBLE,
            overrides_allowed=False,
            clock_overtime=10,
            gcg_default=True,
            pass_scope=PassScope.TOTAL,
            pass_count=6,
            pass_kinds=frozenset(
                {TurnKind.PASS, TurnKind.EXCHANGE, TurnKind.WITHDRAWN, TurnKind.LOST_TURN}
            ),
            out_bonus_factor=2,
            others_subtract_on_out=False,
        ),
    )
}


def profile_names() -> tuple[str, ...]:
    """Names of the registered profiles."""
    return tuple(PROFILES)


def get_profile(name: str) -> RuleProfile:
    """The registered profile ``name``; an unknown name lists the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfileError(
            f"unknown rule profile {name!r}; known: {', '.join(PROFILES)}"
        ) from None


def standard_record_profile(tile_distribution: str | None = None) -> RuleProfile:
    """Rules of a GCG file without ``#rules``: a 2-player tournament record.

    Going out scores 2x the opponent's rack; the tile set comes from
    ``#tile-distribution`` (``german``, ``french``, ``english``; default English).
    """
    base = next(p for p in PROFILES.values() if p.gcg_default)
    return base.with_tile_set(tile_distribution) if tile_distribution else base
