"""The soak's scripted games: short tables of 2 to 4 players under de, fr and en.

Each game is written with :class:`scoreboard.demo.ScriptWriter`, which mirrors it in the
engine: :attr:`SoakGame.expected` is the game the script should give, computed without the
service. Across the games: challenges upheld and failed, a withdrawn phony, exchanges,
undo, every menu correction (undo, adjust a score, end the game, and overriding a ruling
from the seat buttons), pauses, a setting of the next game picked and the menu closed
again, games that end on passes, a correction after the end, and the game clock on in
some of them. ``SOAK_GAMES`` is the list; :func:`soak_games` builds them (a game's script
is checked as it is written: every word laid is valid, but the phonies).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.game import Game
from engine.lexicon import Lexicon
from engine.rules import get_profile
from scoreboard.demo import ScriptWriter, short_demo_script
from scoreboard.lexicons import open_lexicon
from scoreboard.screens.models import MenuItem

WINDOW_S = 3  # game.challenge_seconds of the soak games (the demo keeps its 20)


@dataclass(frozen=True)
class SoakGame:
    """One scripted game: its rule profile, players, ``--set`` options, script and the
    engine game the script gives (the expected tally)."""

    name: str
    rules: str
    players: tuple[str, ...]
    sets: tuple[str, ...]
    script: str
    expected: Game

    @property
    def language(self) -> str:
        return get_profile(self.rules).tile_set.language

    def options(self, state: str) -> list[str]:
        """The ``--set`` options of a run with its journal in ``state``."""
        names = ", ".join(f'"{p}"' for p in self.players)
        out = [f"paths.state_dir={state}", f"game.rules={self.rules}", f"game.players=[{names}]",
               f"ui.language={self.language}"]
        out += list(self.sets)
        return [x for item in out for x in ("--set", item)]


class Table:
    """A :class:`ScriptWriter` with its lexicon checks: plays are valid unless called phonies."""

    def __init__(self, rules: str, players: Sequence[str], clock: int = 0) -> None:
        self.lexicon: Lexicon = open_lexicon(get_profile(rules).tile_set.language)
        self.w = ScriptWriter(get_profile(rules), players, self.lexicon)
        self.w.window_s = WINDOW_S
        self.sets = [f"game.challenge_seconds={WINDOW_S}"] + ([f"game.clock={clock}"] if clock else [])

    def begin(self, first_draws: str, racks: dict[int, str]) -> None:
        """The draw for the first player (a letter per seat), then the deal: ``racks`` in order."""
        self.w.start(first_draws)
        for seat, letters in racks.items():
            self.w.draw(seat, letters)
        self.w.line("tick", 1.0)

    @property
    def g(self) -> Game:
        assert self.w.game is not None
        return self.w.game

    def play(self, seat: int, tiles: str, phony: bool = False) -> None:
        assert self.g.turn == seat, f"{tiles}: it is seat {self.g.turn}'s turn, not {seat}'s"
        self.w.play(seat, tiles)
        pending = self.g.pending_play
        assert pending is not None
        bad = [w.text for w in pending.words if w.text not in self.lexicon]
        assert bool(bad) == phony, f"{tiles}: words {[w.text for w in pending.words]}, not in the lexicon: {bad}"

    def challenge(self, seat: int, upheld: bool) -> None:
        assert self.w.challenge(seat, ruling_s=1.0) == upheld

    def passes_to_the_end(self, at_once: bool = True) -> None:
        first = True
        while not self.g.over:
            self.w.pass_turn(self.g.turn, at_once=at_once and not first)  # the first one asked, then confirmed
            first = False

    def done(self, name: str) -> SoakGame:
        w = self.w
        w.line("tick", 3.0)
        w.line("end")
        return SoakGame(name, w.profile.name, w.players, tuple(self.sets), w.text(), self.g)


def de2_clock() -> SoakGame:
    """de, 2 players, the game clock: a failed challenge, an exchange, a pause, passes to the end."""
    t = Table("de", ["Anna", "Ben"], clock=25)
    w = t.w
    t.begin("AE", {0: "ROSETAX", 1: "NTEMRAI"})  # Anna begins
    t.play(0, "G8:R H8:O I8:S J8:E")  # ROSE
    t.challenge(1, upheld=False)  # Ben is wrong: -5
    w.refill(0, "DIEU")
    t.play(1, "H7:N H9:T H10:E")  # NOTE through the O
    w.wait_window()
    w.refill(1, "SEU")
    w.exchange(0, "XD", "LN")
    w.pause(3.0, resume_seat=1)  # the Menu button held: the clocks stand still
    t.play(1, "G10:S I10:E")  # SEE across the E of NOTE
    w.wait_window()
    w.refill(1, "RT")
    t.passes_to_the_end()
    return t.done("de2-clock")


def fr3() -> SoakGame:
    """fr, 3 players: a failed challenge, a withdrawn phony, an undo after the player drew
    (the tiles drawn go back), an exchange held at once, End game from the menu."""
    t = Table("fr", ["Anna", "Ben", "Cleo"])
    w = t.w
    t.begin("EAO", {1: "TOURSEA", 2: "NIEEARL", 0: "XESTUIO"})  # Ben begins
    t.play(1, "G8:T H8:O I8:U J8:R")  # TOUR
    t.challenge(2, upheld=False)  # Cleo is wrong: -5
    w.refill(1, "NEST")  # (fr: the draw closes the window)
    t.play(2, "H7:L H9:A H10:E", phony=True)  # LOAE
    t.challenge(0, upheld=True)  # withdrawn: Cleo's turn is over
    t.play(0, "K8:S K9:U K10:I K11:T K12:E")  # SUITE down, TOURS across
    w.refill(0, "RAMEN")
    w.undo(1, 2)  # Ben asks, Cleo agrees: SUITE goes back, so do the five tiles drawn
    t.play(0, "K8:S")  # TOURS
    w.refill(0, "R")
    w.exchange(1, "EE", "BL", at_once=True)
    w.end_game(2, 0)  # Cleo asks, Anna agrees
    return t.done("fr3")


def en4_clock() -> SoakGame:
    """en, 4 players, the game clock: a failed challenge (the challenger loses a turn) whose
    ruling is overridden, an unchallenged play whose window the next player closes, a score
    adjusted from the menu, a setting of the next game, passes to the end."""
    t = Table("en", ["Anna", "Ben", "Cleo", "Dirk"], clock=30)
    w = t.w
    t.begin("EAOI", {1: "RATEONS", 2: "ZONEDIL", 3: "QUITEAH", 0: "LIMPETS"})  # Ben begins
    t.play(1, "G8:R H8:A I8:T J8:E")  # RATE
    t.challenge(2, upheld=False)  # Cleo is wrong: she is to lose her next turn
    result = w.override(2, 3)  # Cleo asks to override, Dirk agrees: RATE is ruled out after all
    assert not result.valid and t.g.turn == 2
    t.play(2, "G8:Z H8:O I8:N J8:E")  # ZONE
    w.refill(2, "AIRE")
    t.play(3, "J4:Q J5:U J6:I J7:T")  # QUITE down to the E (its first tile closed ZONE's window)
    w.wait_window()
    w.refill(3, "SOLE")
    w.adjust(0, 3, 12, 1)  # Anna gives Dirk 12 points, Ben agrees
    w.menu_setting(MenuItem.PLAYERS, 2, times=2)  # Cleo sets the next game's players, then closes the menu
    t.passes_to_the_end()
    return t.done("en4-clock")


def de4() -> SoakGame:
    """de, 4 players: a withdrawn phony, an undo, an exchange, End game from the menu, and a
    score adjusted after the end."""
    t = Table("de", ["Anna", "Ben", "Cleo", "Dirk"])
    w = t.w
    t.begin("OEAU", {2: "HAUSTEN", 3: "BOHNERX", 0: "ENTERIG", 1: "LAMPEIR"})  # Cleo begins
    t.play(2, "G8:H H8:A I8:U J8:S")  # HAUS
    w.wait_window()
    w.refill(2, "RIEN")
    t.play(3, "J9:O J10:X", phony=True)  # SOX
    t.challenge(0, upheld=True)
    t.play(0, "I7:G I9:T")  # GUT down through the U
    w.refill(0, "LM")
    w.undo(1, 3)  # Ben asks, Dirk agrees: GUT goes back, and the L and M into the bag
    t.play(0, "I7:G I9:T I10:E")  # GUTE
    w.refill(0, "LMO")
    w.exchange(1, "EI", "NS", at_once=True)
    w.end_game(2, 0)  # Cleo asks, Anna agrees
    w.adjust(3, 0, -7, 1)  # after the end: Dirk takes 7 points off Anna, Ben agrees
    return t.done("de4")


def fr2_clock() -> SoakGame:
    """fr, 2 players, the game clock: a phony ruled out and the ruling overridden (the play
    stands, its tiles go back on the board), an exchange, a failed challenge, passes to the end."""
    t = Table("fr", ["Anna", "Ben"], clock=20)
    w = t.w
    t.begin("EA", {1: "ZETAROU", 0: "RAILESN"})  # Ben begins
    t.play(1, "G8:Z H8:O I8:U J8:T", phony=True)  # ZOUT
    t.challenge(0, upheld=True)
    result = w.override(1, 0)  # Ben asks, Anna agrees: ZOUT stands
    assert result.valid
    w.refill(1, "TIES")
    w.exchange(0, "NSL", "EEU")
    t.play(1, "G9:E G10:T G11:A")  # ZETA down from the Z
    t.challenge(0, upheld=False)  # Anna is wrong: -5
    w.refill(1, "DRS")
    t.passes_to_the_end()
    return t.done("fr2-clock")


def en3() -> SoakGame:
    """en, 3 players: a failed challenge (a turn lost), a withdrawn phony, an undo, Pause from
    the menu, a negative adjustment, End game from the menu."""
    t = Table("en", ["Anna", "Ben", "Cleo"])
    w = t.w
    t.begin("AEO", {0: "TONEARS", 1: "DOZEBIG", 2: "LIONXEA"})  # Anna begins
    t.play(0, "G8:N H8:O I8:T J8:E")  # NOTE
    t.challenge(1, upheld=False)  # Ben is wrong: he loses his next turn
    w.refill(0, "WIND")
    assert t.g.turn == 2  # Ben's turn was lost
    t.play(2, "H7:L H9:I H10:X", phony=True)  # LOIX
    t.challenge(0, upheld=True)
    t.play(0, "J9:A J10:R J11:S")  # EARS down from the E
    w.refill(0, "HUT")
    w.undo(2, 1)  # Cleo asks, Ben agrees: EARS goes back, so do H, U and T
    t.play(0, "J9:A J10:R")  # EAR
    w.refill(0, "HU")
    w.pause(3.0, resume_seat=2, from_menu=True)  # Ben picks Pause... (Cleo resumes)
    w.adjust(1, 2, -3, 0)  # Ben takes 3 points off Cleo, Anna agrees
    w.end_game(0, 2)  # Anna asks, Cleo agrees
    return t.done("en3")


SOAK_GAMES: tuple[Callable[[], SoakGame], ...] = (de2_clock, fr3, en4_clock, de4, fr2_clock, en3)


def demo_game() -> SoakGame:
    """The short demo game (``short_demo_script``, version 0.1's demo), as in ``tests/test_crash_recovery.py``."""
    players = ("Anna", "Ben")
    text, expected = short_demo_script("de", players, open_lexicon("de"))
    return SoakGame("demo-de", "de", players, (), text, expected)


def soak_games(names: Sequence[str] | None = None) -> list[SoakGame]:
    """The soak games (those named, in the order of :data:`SOAK_GAMES`)."""
    games = [build() for build in SOAK_GAMES]
    return [g for g in games if names is None or g.name in names]


__all__ = ["SOAK_GAMES", "SoakGame", "Table", "demo_game", "soak_games"]

