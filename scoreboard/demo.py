"""``scoreboard demo``: a complete scripted game on simulated hardware, end to end.

The simulated board runs as its own process (a pty, in lockstep with a virtual clock), the
buttons are gpiozero mock pins and the display an emulated OLED writing PNG frames: the
configured panel, by default the reference build's 3.12in 256x64 one. The
game goes through the real service (:mod:`scoreboard.run_cli`): the draw for the first
player, the deal, plays, a challenge that fails and one that succeeds (the phony is taken
back), then passes until the game ends and the tally is shown. Writes ``DIR/game.gcg``,
``DIR/screens/*.png``, ``DIR/screens.gif`` and ``DIR/script.txt``; prints the tally. With
``--voice`` the announcements too, a WAV each in ``DIR/voice`` (listed in ``voice.txt``).

The script is written by :class:`ScriptWriter`, which mirrors the game in the engine so
that it knows whose turn it is and when the game is over under each rule profile.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from engine.board import PlacedTile, Square
from engine.events import OverrideRuling, PlayMade
from engine.first_player import FirstPlayerDraw
from engine.game import ChallengeResult, Game
from engine.lexicon import Lexicon, infer_blanks
from engine.placement import Placement
from engine.scoring import ScoredPlay
from engine.tiles import BLANK
from engine.rules import RuleProfile, get_profile
from engine.tiles import TileSet
from scoreboard.config import load_config
from scoreboard.controller.state import MENU_ITEMS
from scoreboard.demo_games import DEMO_GAMES
from scoreboard.screens.models import MenuItem

__all__ = ["DEMO_PLAYERS", "ScriptWriter", "cmd_demo", "demo_script", "short_demo_script"]

DEMO_PLAYERS = ("Anna", "Ben")
"""The demo's players (``make demo``, ``scoreboard play --watch``)."""

SETTLE = 0.8  # seconds for the board to settle before a Done (stabiliser: 2 reports, 0.3 s)


class ScriptWriter:
    """Writes a table script while mirroring the physical tiles and the game in the engine.

    Tiles are named ``LETTER.COPY`` of the simulated tile set; racks are ``R<seat>.<slot>``.
    Besides plays, challenges and passes it writes exchanges, the menu and its corrections
    (undo, adjust a score, end the game), overridden rulings and pauses (the soak's games,
    ``tests/soakgames.py``).
    """

    def __init__(self, profile: RuleProfile, players: Sequence[str], lexicon: Lexicon) -> None:
        self.profile = profile
        self.tile_set: TileSet = profile.tile_set
        self.lexicon = lexicon
        self.lines: list[str] = []
        self.racks: list[dict[int, str]] = [{} for _ in players]  # slot -> tile name
        self.cells: dict[str, str] = {}  # square -> tile name
        self.used: set[str] = set()
        self.players = tuple(players)
        self.game: Game | None = None
        self.window_s = 20.0  # game.challenge_seconds of the run the script is for
        # the last play, for an undo or an overridden ruling: seat, square -> tile, tiles drawn since
        self.last_play: tuple[int, dict[str, str], list[str]] | None = None

    # --- lines ---

    def line(self, text: str, after: float = 0.0) -> None:
        self.lines.append(f"after {after:g} {text}" if after else text)

    def comment(self, text: str) -> None:
        self.lines.append(f"# {text}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    # --- tiles ---

    def take_from_bag(self, letter: str) -> str:
        for copy in range(self.tile_set.counts[letter]):
            name = f"{letter}.{copy}"
            if name not in self.used:
                self.used.add(name)
                return name
        raise ValueError(f"no {letter!r} left in the bag")

    def to_rack(self, seat: int, letters: str) -> str:
        drawn = ""
        for letter in letters:
            slot = next(s for s in range(self.profile.rack_size) if s not in self.racks[seat])
            name = self.take_from_bag(letter)
            self.racks[seat][slot] = name
            self.line(f"place R{seat + 1}.{slot + 1} {name}", 0.1)
            drawn += letter
        return drawn

    def draw(self, seat: int, letters: str) -> None:
        """Seat ``seat`` (0-based) draws these letters; the engine mirror draws them too."""
        before = set(self.racks[seat].values())
        self.to_rack(seat, letters)
        if self.last_play is not None and self.last_play[0] == seat:
            self.last_play[2].extend(n for n in self.racks[seat].values() if n not in before)
        if self.game is not None:
            self.game.draw(seat, letters)

    def refill(self, seat: int, letters: str) -> None:
        """Draw up to a full rack (or what the bag holds) from ``letters`` in order."""
        assert self.game is not None
        room = min(self.profile.rack_size - len(self.game.racks[seat]), len(self.game.bag))
        self.draw(seat, letters[:room])

    def slot_of(self, seat: int, letter: str) -> int:
        return next(s for s, n in sorted(self.racks[seat].items()) if n.rpartition(".")[0] == letter)

    def lay(self, seat: int, tiles: str) -> Placement:
        """Lay rack tiles (``"H8:R H9:O"``, a blank as the letter it stands for in lower case:
        ``"H10:s"``) on the board; the placement for the mirror."""
        placed = []
        self.last_play = (seat, {}, [])
        for item in tiles.split():
            square, letter = item.split(":")
            blank = letter.islower()
            slot = self.slot_of(seat, BLANK if blank else letter)
            name = self.racks[seat].pop(slot)
            self.cells[square] = name
            self.last_play[1][square] = name
            self.line(f"move R{seat + 1}.{slot + 1} {square}", 0.2)
            tile = self.tile_set.tile(BLANK).assigned(letter.upper()) if blank else self.tile_set.tile(letter)
            placed.append((Square.from_name(square), tile))
        return Placement(placed)

    def name_blanks(self, seat: int, placement: Placement) -> None:
        """After a Done: the presses that name the play's blanks on the blank picker, as
        the controller offers them (none when the lexicon leaves one letter only)."""
        assert self.game is not None
        ts = self.tile_set
        named: list[PlacedTile] = []
        for i, placed in enumerate(placement.tiles):
            if not placed.tile.blank:
                continue
            # the blanks before this one as the player named them, this one and those after unnamed
            unnamed = [PlacedTile(p.square, ts.tile(BLANK)) if p.tile.blank and j >= i else p
                       for j, p in enumerate(placement.tiles)]
            options = infer_blanks(self.game.board, Placement(unnamed), self.lexicon, ts)
            if len(options) == 1:
                return  # (the controller names the rest itself, by the same search)
            fitting = {t.tile.letter for o in options for t in o.tiles if t.square == placed.square}
            candidates = [ch for ch in ts.letters if ch != BLANK and (not fitting or ch in fitting)]
            index = candidates.index(placed.tile.letter)
            self.comment(f"{self.players[seat]} names the blank on {placed.square.name()}: {placed.tile.letter}")
            forward = index <= len(candidates) - index
            for n in range(index if forward else len(candidates) - index):
                self.press(seat, "done" if forward else "challenge", after=1.0 if n == 0 and not named else 0.3)
            self.press(seat, "done", long=True, after=0.3 if index or named else 1.0)
            named.append(placed)

    def take_back(self, seat: int, squares: Sequence[str]) -> None:
        for square in squares:
            name = self.cells.pop(square)
            slot = next(s for s in range(self.profile.rack_size) if s not in self.racks[seat])
            self.racks[seat][slot] = name
            self.line(f"move {square} R{seat + 1}.{slot + 1}", 0.2)

    def return_all(self) -> None:
        for seat, rack in enumerate(self.racks):
            for slot, name in sorted(rack.items()):
                self.line(f"remove R{seat + 1}.{slot + 1}", 0.1)
                self.used.discard(name)
            rack.clear()

    # --- presses ---

    def press(self, seat: int, role: str, long: bool = False, after: float = SETTLE) -> None:
        self.line(f"press {seat + 1} {role}{' long' if long else ''}", after)

    # --- the game ---

    def start(self, first_draws: str) -> None:
        """The draw for the first player (one tile per seat), tiles back, the mirror game."""
        self.comment("the draw for the first player: one tile on each rack")
        for seat, letter in enumerate(first_draws):
            self.to_rack(seat, letter)
        self.line("tick", 1.5)
        self.comment("the tiles go back into the bag")
        self.return_all()
        self.line("tick", 1.5)
        drawn = {seat: self.tile_set.tile(ch) for seat, ch in enumerate(first_draws)}
        first = FirstPlayerDraw.start(len(self.players)).draw(drawn, self.tile_set).first
        assert first is not None, f"{first_draws!r} ties: the demo draws different tiles"
        self.game = Game(self.profile, self.players, rng=random.Random(0), first=first)

    def play(self, seat: int, tiles: str) -> ScoredPlay:
        """``seat`` lays ``tiles`` and presses Done (naming its blanks when asked); the play."""
        assert self.game is not None
        placement = self.lay(seat, tiles)
        self.press(seat, "done")
        self.name_blanks(seat, placement)
        scored = self.game.play(seat, placement)
        self.line("tick", 1.0)
        return scored

    def agree_out(self, seat: int) -> None:
        """``seat`` went out: every other seat presses Done, the window closes, the game ends."""
        assert self.game is not None
        for other in range(len(self.players)):
            if other != seat:
                self.press(other, "done", after=0.5)
        self.game.close_window()
        self.line("tick", 1.0)

    def challenge(self, seat: int, ruling_s: float = 5.5) -> bool:
        """``seat`` challenges the pending play; True when it is withdrawn. ``ruling_s``: the
        time before the next line (the ruling stays on the display for 5 s)."""
        assert self.game is not None
        pending = self.game.pending_play
        assert pending is not None
        result = self.game.challenge(seat, self.lexicon)
        self.press(seat, "challenge", after=0.5)
        self.line("tick", ruling_s)  # the ruling stays on the display
        if not result.valid:
            self.take_back(pending.player, [sq.name() for sq in pending.placement.squares])
            self.line("tick", 1.0)
        return not result.valid

    def wait_window(self) -> None:
        """Let the challenge window run out (:attr:`window_s`, the configured 20 s by default)."""
        assert self.game is not None
        if self.game.window_open:
            self.line("tick", self.window_s + 1.0)
            self.game.close_window()

    def pass_turn(self, seat: int, at_once: bool = False) -> None:
        """``seat`` passes: Done, then Done held (``at_once``: Done held, no question shown first)."""
        assert self.game is not None
        if at_once:
            self.comment(f"{self.players[seat]} passes: Done held")
            self.press(seat, "done", long=True)
        else:
            self.comment(f"{self.players[seat]} passes: Done, then Done held")
            self.press(seat, "done")
            self.press(seat, "done", long=True, after=0.5)
        self.game.pass_turn(seat)
        self.line("tick", 1.0)

    # --- more of the table: exchanges, the menu and its corrections, overrides, pauses ---

    def exchange(self, seat: int, out: str, new: str, at_once: bool = False) -> None:
        """``seat`` swaps the rack letters ``out`` for ``new`` from the bag (in one instant, so
        that the rack never has room for a draw), then Done and Done held (``at_once``: held
        at once, no question shown first)."""
        assert self.game is not None and len(out) == len(new)
        self.comment(f"{self.players[seat]} exchanges {out} for {new}")
        slots = []
        for letter in out:
            slot = next(s for s, n in sorted(self.racks[seat].items()) if n.rpartition(".")[0] == letter and s not in slots)
            slots.append(slot)
        names = [self.take_from_bag(letter) for letter in new]  # before the returned ones are back in the bag
        for i, slot in enumerate(slots):
            self.line(f"remove R{seat + 1}.{slot + 1}", 0.3 if i == 0 else 0.0)
        for slot, name in zip(slots, names):
            self.used.discard(self.racks[seat][slot])
            self.racks[seat][slot] = name
            self.line(f"place R{seat + 1}.{slot + 1} {name}")
        if not at_once:
            self.press(seat, "done")
        self.press(seat, "done", long=True, after=0.5 if not at_once else SETTLE)
        self.game.exchange(seat, out, new)
        self.last_play = None
        self.line("tick", 1.0)

    def press_menu(self, long: bool = False, after: float = 0.3) -> None:
        """The shared Menu button (long: pause, or done with a score adjustment)."""
        self.line(f"press menu{' long' if long else ''}", after)

    def menu(self, item: MenuItem, seat: int) -> None:
        """Open the menu, step to ``item``, and ``seat``'s Done picks it."""
        self.comment(f"{self.players[seat]} picks {item.value} in the menu")
        self.press_menu(after=SETTLE)
        for _ in range(MENU_ITEMS.index(item)):
            self.press_menu()
        self.press(seat, "done", after=0.3)

    def menu_setting(self, item: MenuItem, seat: int, times: int = 1) -> None:
        """Pick a setting of the next game (``players``, ``profile``) ``times`` over, then close
        the menu with ``seat``'s Challenge: the game in play does not change."""
        assert item in (MenuItem.PLAYERS, MenuItem.PROFILE)
        self.menu(item, seat)
        for _ in range(times - 1):
            self.press(seat, "done", after=0.3)
        self.press(seat, "challenge", after=0.3)

    def _back_to_rack(self, seat: int, laid: dict[str, str], drawn: Sequence[str]) -> None:
        """A withdrawn or undone play: tiles drawn since into the bag, the laid ones to the rack."""
        for name in drawn:
            slot = next(s for s, n in self.racks[seat].items() if n == name)
            del self.racks[seat][slot]
            self.used.discard(name)
            self.line(f"remove R{seat + 1}.{slot + 1}", 0.2)
        self.take_back(seat, sorted(laid, key=lambda sq: Square.from_name(sq)))

    def undo(self, by: int, confirm: int) -> None:
        """``by`` picks Undo in the menu, ``confirm`` holds Done; the tiles go back."""
        assert self.game is not None and self.last_play is not None
        seat, laid, drawn = self.last_play
        self.menu(MenuItem.UNDO, by)
        self.press(confirm, "done", long=True, after=0.3)
        self.game.undo_last_play()
        self.last_play = None
        self.line("tick", 1.0)
        self._back_to_rack(seat, laid, drawn)
        self.line("tick", 1.0)

    def adjust(self, by: int, player: int, points: int, confirm: int) -> None:
        """``by`` corrects ``player``'s score by ``points`` from the menu; ``confirm`` agrees."""
        assert self.game is not None and points
        self.menu(MenuItem.ADJUST_SCORE, by)
        for _ in range(player):
            self.press_menu()  # the next player
        tens, ones = divmod(abs(points), 10)
        role = "done" if points > 0 else "challenge"
        for _ in range(tens):
            self.press(by, role, long=True, after=0.3)
        for _ in range(ones):
            self.press(by, role, after=0.3)
        self.press_menu(long=True)  # set: a second seat confirms
        self.press(confirm, "done", long=True, after=0.3)
        self.game.adjust_score(player, points)
        self.line("tick", 1.0)

    def end_game(self, by: int, confirm: int) -> None:
        """``by`` picks End game in the menu, ``confirm`` holds Challenge: the tally."""
        assert self.game is not None
        self.menu(MenuItem.END_GAME, by)
        self.press(confirm, "challenge", long=True, after=0.3)
        self.game.end_game()
        self.line("tick", 1.0)

    def override(self, by: int, confirm: int) -> ChallengeResult:
        """``by`` holds Challenge to override the last ruling, ``confirm`` holds Done; the
        tiles follow (a withdrawn play back on the board, a play that stood back to the rack)."""
        g = self.game
        assert g is not None and self.last_play is not None
        ruling = g.overridable_ruling
        assert ruling is not None
        play = next(e for e in reversed(g.events) if isinstance(e, PlayMade))
        words = () if ruling.invalid_words else (play.words[0].text,)
        self.comment(f"{self.players[by]} asks to override the ruling, {self.players[confirm]} agrees")
        self.press(by, "challenge", long=True, after=0.5)
        self.press(confirm, "done", long=True, after=0.3)
        result = g.apply(OverrideRuling(words))
        assert isinstance(result, ChallengeResult)
        self.line("tick", 2.0)  # (the new ruling stays on the display)
        seat, laid, drawn = self.last_play
        if result.valid:  # the withdrawn play stands: its tiles go back on their squares
            for square, name in sorted(laid.items()):
                slot = next(s for s, n in self.racks[seat].items() if n == name)
                del self.racks[seat][slot]
                self.cells[square] = name
                self.line(f"move R{seat + 1}.{slot + 1} {square}", 0.2)
        else:
            self._back_to_rack(seat, laid, drawn)
        self.line("tick", 1.0)
        return result

    def pause(self, seconds: float, resume_seat: int, from_menu: bool = False) -> None:
        """Time stands still for ``seconds`` (Menu held, or Pause in the menu), then a press
        of ``resume_seat``'s Challenge resumes."""
        if from_menu:
            self.menu(MenuItem.PAUSE, resume_seat)
        else:
            self.press_menu(long=True, after=SETTLE)
        self.line("tick", seconds)
        self.press(resume_seat, "challenge", after=0.3)
        self.line("tick", 1.0)


def demo_script(rules: str, players: Sequence[str], lexicon: Lexicon) -> tuple[str, Game]:
    """The table script of the demo game under ``rules`` (a whole game,
    :mod:`scoreboard.demo_games`; the short one where the profile has none), and the game it
    should give."""
    plan = DEMO_GAMES.get(rules)
    if plan is None:
        return short_demo_script(rules, players, lexicon)
    profile = get_profile(rules)
    w = ScriptWriter(profile, players, lexicon)
    w.start("AE")  # A is nearer to the start of the alphabet: seat 1 begins
    assert w.game is not None
    g = w.game
    for number, text in enumerate(plan.strip().splitlines(), start=1):
        words = text.split("|")
        head = words[0].split()
        kind, rest = head[0], head[1:]
        if kind == "deal":
            w.comment("the deal: seven tiles each")
            for seat, rack in enumerate(rest):
                w.draw(seat, rack)
            w.line("tick", 1.0)
            continue
        seat = int(rest[0]) - 1
        assert g.turn == seat, f"{rules} demo, line {number}: {text!r} is not {g.players[g.turn]}'s turn"
        tiles = " ".join(rest[1:])
        if kind == "play":
            scored = w.play(seat, tiles)
            w.comment(f"{g.players[seat]}: {', '.join(word.text for word in scored.words)}, {scored.score}"
                      + (" (a bingo)" if scored.bingo else ""))
            for extra in words[1:]:
                what, value = extra.split()
                if what == "challenged":
                    w.comment(f"{g.players[int(value) - 1]} challenges; the play stands")
                    assert not w.challenge(int(value) - 1), f"{rules} demo, line {number}: the play does not stand"
                else:
                    w.draw(seat, value)
                    w.line("tick", SETTLE)  # the rack read before its tiles move on (the same player may play next)
            if not g.racks[seat] and not len(g.bag):
                w.agree_out(seat)
        elif kind == "phony":
            w.comment(f"{g.players[seat]} tries a phony; it is challenged and taken back")
            w.play(seat, tiles)
            assert w.challenge(1 - seat), f"{rules} demo, line {number}: the phony stands"
        elif kind == "exchange":
            w.exchange(seat, rest[1], rest[2])
        elif kind == "pass":
            w.pass_turn(seat)
        else:
            raise ValueError(f"{rules} demo, line {number}: no such turn {kind!r}")
    assert g.over, f"the {rules} demo game does not end"
    w.comment("the tally")
    w.line("tick", 3.0)
    w.line("end")
    return w.text(), g


def short_demo_script(rules: str, players: Sequence[str], lexicon: Lexicon) -> tuple[str, Game]:
    """The short demo game (two plays, a challenge each way, passes until the tally): the
    game of version 0.1's demo, which the crash, soak and cable tests play many times over."""
    profile = get_profile(rules)
    w = ScriptWriter(profile, players, lexicon)
    w.start("AE")  # A is nearer to the start of the alphabet: seat 1 begins
    assert w.game is not None
    g = w.game
    w.comment("the deal: seven tiles each")
    w.draw(0, "ROSETAX")
    w.draw(1, "NTEMRAI")
    w.line("tick", 1.0)
    w.comment("Anna: ROSE across the centre; Ben challenges and is wrong")
    w.play(0, "G8:R H8:O I8:S J8:E")
    w.challenge(1)
    w.refill(0, "DIEUNOS")
    w.comment("the next move: NOTE down through the O")
    turn = g.turn
    if turn == 1:
        w.play(1, "H7:N H9:T H10:E")
        w.wait_window()
        w.refill(1, "SEUL")
    w.comment("a phony: ROSEX; it is challenged and taken back")
    seat = g.turn
    w.play(seat, "K8:X")
    if not w.challenge(1 - seat):
        w.refill(seat, "NEST")
    w.line("tick", 1.0)
    w.comment("scoreless turns until the game ends; then the tally")
    while not g.over:
        w.pass_turn(g.turn)
    w.line("tick", 3.0)
    w.line("end")
    return w.text(), g


# --- the command -------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """``scoreboard demo``; exit 0 when the game ran to its tally."""
    from scoreboard import export_cli
    from scoreboard.hardware import Simulation, build_hardware
    from scoreboard.journal import Journal
    from scoreboard.lexicons import open_lexicon
    from scoreboard.run_cli import run, stop_signals
    from scoreboard.table_script import parse

    started = time.monotonic()
    out = Path(args.out)
    for old in ("state", "screens", "voice"):
        shutil.rmtree(out / old, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    for old_file in ("screens.gif", "screens.txt", "game.gcg"):
        (out / old_file).unlink(missing_ok=True)
    state = out / "state"
    players = list(DEMO_PLAYERS)
    language = get_profile(args.rules).tile_set.language
    config = load_config(
        None,
        [
            f"game.rules={args.rules}",
            f'game.players=["{players[0]}", "{players[1]}"]',  # (names without quotes)
            f"ui.language={language}",
            f"paths.state_dir={state.resolve()}",
            *(["voice.enabled=true"] if getattr(args, "voice", False) else []),
        ],
    )
    lexicon = open_lexicon(language)
    script, expected = demo_script(args.rules, players, lexicon)
    (out / "script.txt").write_text(script, encoding="utf-8")
    state.mkdir(parents=True, exist_ok=True)
    with stop_signals() as stop, build_hardware(config, state, Simulation(out, virtual_clock=True)) as hardware:
        run(config, state, hardware, parse(script), stop)
    if stop.is_set():
        return 130
    with Journal.open(state) as journal:
        info = journal.latest()
        if info is None:
            print("scoreboard: the demo game did not start", file=sys.stderr)
            return 1
        gcg = export_cli.game_to_gcg(info, journal.entries(info.id))
        (out / "game.gcg").write_text(gcg, encoding="utf-8")
        result = info.result or {}
    rows = result.get("rows", [])
    if not info.finished or not rows:
        print("scoreboard: the demo game did not reach its tally", file=sys.stderr)
        return 1
    print(f"{args.rules}: {result.get('termination')}")
    for i, row in enumerate(rows):
        mark = " *" if i in result.get("winners", []) else ""
        print(f"  {row['name']:10s} {row['score']:5d} {row['rack_adjustment']:+5d} = {row['final']:5d}{mark}")
    want = [r.final for r in expected.tally().rows]
    if [row["final"] for row in rows] != want:
        print(f"scoreboard: the demo's tally {rows} differs from the script's game {want}", file=sys.stderr)
        return 1
    frames = len(list((out / "screens").glob("*.png")))
    said = f", {len(list((out / 'voice').glob('*.wav')))} announcements in {out / 'voice'}" if config.voice.enabled else ""
    print(f"wrote {out / 'game.gcg'}, {frames} frames in {out / 'screens'}, {out / 'screens.gif'}{said}"
          f" ({time.monotonic() - started:.1f} s)")
    return 0
