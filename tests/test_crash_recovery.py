"""SIGKILL at random points: the service restarts, nothing shown is lost, nothing doubled.

The simulated board runs as its own process (it keeps its tiles while the service dies);
the service plays the short demo's scripted German game (``short_demo_script``) on a virtual clock, in lockstep with the
board. It is killed with SIGKILL at 50 or more random moments and started again with the
same script, until it finishes the game on its own. After every kill the journal must hold
every event the killed service had shown (each score line and each play on its display);
at the end the game must be the one an uninterrupted run plays: the same moves in the same
order, the same draws, the same tally.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import faultlog
import pytest
from soakharness import Launcher, board_looks, launcher

from engine.events import Draw, PlayMade
from engine.game import Game
from engine.rules import RuleProfile
from scoreboard.controller import Committed
from scoreboard.demo import short_demo_script
from scoreboard.journal import Journal
from scoreboard.lexicons import open_lexicon
from scoreboard.journal_format import decode_entry, decode_meta
from scoreboard.sim.client import SimControl

ROOT = Path(__file__).resolve().parent.parent
KILLS = 50
PATIENCE = 120.0  # real seconds for one uninterrupted run


def start_board(folder: Path) -> tuple[subprocess.Popen[bytes], Path]:
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "board"
    board = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
         "--lockstep", "--racks", "2", "--slots", "7"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    SimControl.connect(f"{link}.control", timeout=30).close()
    return board, link


class Run:
    """A service started through the soak's fork server (``tests/killpoint.py --serve``: the
    imports are done once, so a restart costs the service's own start, as on the device)."""

    def __init__(self, launch: Launcher, argv: list[str], log: Path) -> None:
        self.launch = launch
        self.pid = launch.start(argv, {}, log)
        self.code: int | None = None

    def poll(self) -> int | None:
        if self.code is None:
            self.code = self.launch.wait(self.pid, 0.0)
        return self.code

    def wait(self, timeout: float) -> int:
        if self.code is None:
            self.code = self.launch.wait(self.pid, timeout)
        if self.code is None:
            raise subprocess.TimeoutExpired("scoreboard run", timeout)
        return self.code

    def kill(self) -> None:
        self.launch.kill(self.pid)
        self.wait(30)


def service(launch: Launcher, state: Path, out: Path, link: Path, script: Path) -> Run:
    """The service; its log goes to ``state.log`` (shown when a run does not end)."""
    state.parent.mkdir(parents=True, exist_ok=True)
    argv = ["--simulate", "--link", str(link), "--script", str(script), "--virtual-clock", "--out", str(out),
            "--set", f"paths.state_dir={state}", "--set", "game.rules=de", "--set", 'game.players=["Anna", "Ben"]',
            "--set", "ui.language=de"]
    return Run(launch, argv, Path(f"{state}.log"))


def finished(proc: Run, state: Path) -> int:
    """The exit code of a run left alone; one that does not end shows the end of its log."""
    try:
        return proc.wait(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        tail = Path(f"{state}.log").read_text(encoding="utf-8", errors="replace").splitlines()[-40:]
        pytest.fail(f"the service did not finish within {PATIENCE:g} s; its log ends:\n" + "\n".join(tail))


def shown_times(shown_log: Path) -> list[float]:
    """The (virtual) times of the screens in a run's log, in order."""
    return [float(line.split("\t", 1)[0]) for line in shown_log.read_text(encoding="utf-8").splitlines()]


def shown_from(proc: Run, shown_log: Path, lines: int, moment: float) -> None:
    """Wait until the started service has shown something at or past ``moment`` of its game's
    time (or has ended, or :data:`PATIENCE` ran out)."""
    deadline = time.monotonic() + PATIENCE
    while proc.poll() is None and time.monotonic() < deadline:
        if shown_log.exists() and any(t >= moment for t in shown_times(shown_log)[lines:]):
            return
        time.sleep(0.01)


def journal_game(state: Path) -> tuple[list[Committed], Game | None, dict[str, object] | None]:
    """The journal's one game: its committed records, the game they give, its result."""
    if not (state / "journal.db").exists():
        return [], None, None
    with Journal.open(state) as journal:
        games = journal.games()
        assert len(games) <= 1, f"more than one game in the journal: {games}"
        if not games:
            return [], None, None
        info = games[0]
        started = decode_meta(info.meta)
        profile = RuleProfile.from_rules_line(started.rules)
        records = [decode_entry(e.kind, e.payload, profile.tile_set) for e in journal.entries(info.id)]
        committed = [r for r in records if isinstance(r, Committed)]
        game = Game.replay(profile, started.players, [c.command for c in committed], first=started.first)
        return committed, game, info.result


def score_history(committed: list[Committed], game: Game) -> set[tuple[int, ...]]:
    """Every score line the journal's game went through."""
    seen = {(0,) * len(game.players)}
    replay = Game(game.profile, game.players, rng=random.Random(0), first=game.first)
    for record in committed:
        replay.apply(record.command)
        seen.add(tuple(replay.scores()))
    return seen


SCORES = re.compile(r"^[\d.]+\tScoresScreen\(players=\((.*)\), bag=")
LINE = re.compile(r"PlayerLine\(name='([^']*)', score=(-?\d+)")
PLAY = re.compile(r"^[\d.]+\tLastPlayScreen\(player='([^']*)', words=\((.*)\), total=(-?\d+)")
WORD = re.compile(r"WordLine\(text='([^']*)'")


def check_shown(lines: list[str], state: Path) -> int:
    """Every score line and play the killed service showed is in the journal; how many."""
    committed, game, _ = journal_game(state)
    history = score_history(committed, game) if game is not None else {(0, 0)}
    plays = {
        (game.players[e.player], tuple(w.text for w in e.words), e.points)
        for e in (game.events if game is not None else [])
        if isinstance(e, PlayMade)
    }
    checked = 0
    for line in lines:
        if m := SCORES.match(line):
            shown = tuple(int(s) for _, s in LINE.findall(m.group(1)))
            assert shown in history, f"the display showed scores {shown}, the journal never had them"
            checked += 1
        elif m := PLAY.match(line):
            shown_play = (m.group(1), tuple(w.upper() for w in WORD.findall(m.group(2))), int(m.group(3)))
            assert shown_play in plays, f"the display showed {shown_play}, the journal lacks it"
            checked += 1
    return checked


def moves(committed: list[Committed]) -> tuple[list[object], dict[int, Counter[str]]]:
    """The non-draw commands in order, and every player's drawn letters (however grouped)."""
    draws: dict[int, Counter[str]] = {}
    others = []
    for record in committed:
        command = record.command
        if isinstance(command, Draw):
            draws.setdefault(command.player, Counter()).update(command.tiles or "")
        else:
            others.append(command)
    return others, draws


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_at_random_points_loses_and_doubles_nothing() -> None:
    script_text, expected = short_demo_script("de", ["Anna", "Ben"], open_lexicon("de"))
    rng = random.Random(int(os.environ.get("CRASH_SEED", "20261129")))
    launch = launcher()
    try:
        play_and_kill(launch, rng, script_text, expected)
    finally:
        launch.close()


def play_and_kill(launch: Launcher, rng: random.Random, script_text: str, expected: Game) -> None:
    with tempfile.TemporaryDirectory(prefix="crash-") as tmp:  # short: unix socket paths
        folder = Path(tmp)
        script = folder / "script.txt"
        script.write_text(script_text, encoding="utf-8")

        # the uninterrupted run
        board, link = start_board(folder / "ref")
        try:
            ref = service(launch, folder / "ref-state", folder / "ref-out", link, script)
            assert ref.wait(timeout=PATIENCE) == 0
        finally:
            board.terminate()
            board.wait(timeout=10)
        ref_committed, ref_game, ref_result = journal_game(folder / "ref-state")
        assert ref_game is not None and ref_game.over and ref_result is not None
        assert [r.final for r in ref_game.tally().rows] == [r.final for r in expected.tally().rows]

        # the same game, killed again and again
        state, out = folder / "state", folder / "out"
        board, link = start_board(folder / "crash")
        kills = checked = 0
        shown_log = out / "screens.txt"
        # The kill moments are random moments of the game's own (virtual) time, in order: each
        # run is killed just after it shows something at or past its moment, so that how fast
        # this machine plays (a fixed time in seconds gave a fast machine 5 kills) and how long
        # a start takes (a moment too soon after it never gets past the draw for first player,
        # which is journaled with the game's start) do not matter.
        length = shown_times(folder / "ref-out" / "screens.txt")[-1]
        moments = sorted(rng.uniform(0.0, 0.95 * length) for _ in range(KILLS))
        try:
            while True:
                before = shown_log.read_text(encoding="utf-8").splitlines() if shown_log.exists() else []
                proc = service(launch, state, out, link, script)
                if kills < KILLS:
                    shown_from(proc, shown_log, len(before), moments[kills])
                    try:
                        code = proc.wait(timeout=rng.uniform(0.0, 0.05))  # anywhere in the step after it
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        board_looks(link)
                        kills += 1
                        faultlog.injected("SIGKILL at a random point")  # survived if this test passes
                        after = shown_log.read_text(encoding="utf-8").splitlines() if shown_log.exists() else []
                        checked += check_shown(after[len(before):], state)
                        continue
                else:
                    code = finished(proc, state)
                board_looks(link)  # (the next service must not count as this one for the lockstep board)
                assert code == 0
                committed, game, result = journal_game(state)
                if game is not None and game.over:
                    break
                assert kills < KILLS + 5, "the service stopped before the game ended"
        finally:
            board.terminate()
            board.wait(timeout=10)
        committed, game, result = journal_game(state)
        assert game is not None and result is not None
        assert kills >= KILLS
        assert checked > 0  # the killed services did show things, and the journal had them
        assert moves(committed) == moves(ref_committed)  # the same moves, nothing twice
        assert game.tally() == ref_game.tally()
        assert result == ref_result
        print(f"\n{kills} kills, {checked} shown events found in the journal, tally {[r.final for r in game.tally().rows]}")
