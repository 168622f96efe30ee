"""A journal written by version 0.1 (tests/data/journal-v0.1) still exports and resumes.

The file holds two German games with a 25-minute clock, played by ``script.txt`` through
``scoreboard run --simulate`` of version 0.1: game 1 finished (the demo game), game 2
unfinished (Ben's HAUS, a failed challenge, Anna's BAND; Ben to move). The GCG and JSON
files beside it are what version 0.1 exported; a later version must export the same and
resume game 2 where it stood.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from luma.core.device import dummy

from drivers.buttons.logic import ButtonEvent, Kind, Role
from drivers.display.oled import Display
from scoreboard.cli import main
from scoreboard.config import load_config
from scoreboard.journal import Journal
from scoreboard.hardware import simulated_tiles
from scoreboard.run_cli import build_table
from scoreboard.screens.models import PausedScreen, ScoresScreen
from scoreboard.service import Service

DATA = Path(__file__).parent / "data" / "journal-v0.1"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    folder = tmp_path / "state"
    folder.mkdir()
    shutil.copy(DATA / "journal.db", folder / "journal.db")
    return folder


def export(state: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["export", *args, "--set", f"paths.state_dir={state}"]) == 0
    return capsys.readouterr().out


def test_both_games_are_listed(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = export(state, capsys, "--list").splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2"]
    assert "finished" in lines[0] and lines[1].split("\t")[4] == "in progress"
    assert all(line.split("\t")[3] == "de clock=25" for line in lines)


@pytest.mark.parametrize("game", [1, 2])
def test_the_exports_are_those_of_version_0_1(game: int, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gcg = export(state, capsys, "--game", str(game), "--format", "gcg")
    assert gcg == (DATA / f"game{game}.gcg").read_text(encoding="utf-8")
    record = json.loads(export(state, capsys, "--game", str(game), "--format", "json"))
    assert record == json.loads((DATA / f"game{game}.json").read_text(encoding="utf-8"))


def test_the_unfinished_game_resumes_where_it_stood(state: Path) -> None:
    config = load_config(None, [
        f"paths.state_dir={state}", "game.rules=de", 'game.players=["Anna", "Ben"]', "game.clock=25",
    ])
    now = [500.0]
    display = Display(dummy(width=128, height=64, mode="1"))
    service = Service(
        build_table(config, simulated_tiles(state), state), Journal.open(state), [display],
        clock=lambda: now[0],
    )
    service.start("de", 2)
    try:
        assert service.game_id == 2
        assert service.state is not None and isinstance(service.state.shown.table, PausedScreen)
        assert service.state.shown.table.player == "Ben"
        game = service.state.game
        assert game is not None
        assert game.scores() == [5, 10] and game.turn == 1 and not game.over
        assert sorted(game.rack(0)) == sorted("AERO") and sorted(game.rack(1)) == sorted("TENEIRL")
        assert len(game.bag) == 84 and not game.window_open
        service.handle(ButtonEvent(1, Role.DONE, Kind.PRESS, now[0]))  # any button resumes
        shown = service.state.shown.table
        assert isinstance(shown, ScoresScreen)
        assert [(p.name, p.score, p.is_turn) for p in shown.players] == [("Anna", 5, False), ("Ben", 10, True)]
        # the clocks as last journaled (used 9.05 s and 17.05 s of 25 minutes); Ben's runs again
        assert [p.clock_s for p in shown.players] == [1490, 1482]
    finally:
        service.close()
