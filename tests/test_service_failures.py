"""A step that fails half-way (a bug, not a refusal) never lets the display run ahead of the journal.

The service drops an input whose step raised and keeps the state it had; every state owns
its game, so nothing of the failed step survives. Here an exception of a kind the
controller does not expect is injected at several points inside a step (after the engine
applied a command to the game, while the tiles are followed, in the clock, while the view
is made), once per run at a chosen call, while a German game is played through the service.
After every input, what the display shows must be exactly what the journal holds: the game
of the service's state is the game its journal restores to, and the display shows that
state's screen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig

from drivers.display.oled import Display
from engine.game import Game
from scoreboard.controller import commit, table
from scoreboard.journal import Journal
from scoreboard.journal_format import read_game
from scoreboard.screens import render
from scoreboard.service import Service


class Injected(RuntimeError):
    """The fault: not a ScoreboardError, so nothing in the controller expects it."""


class Fault:
    """Wraps a function so that its ``at``-th call (from 1) raises after the call was made."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.calls = 0
        self.raised = 0
        self.armed = True  # (off while the test itself checks the journal)

    def wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kw: Any) -> Any:
            result = original(*args, **kw)
            if not self.armed:
                return result
            self.calls += 1
            if self.calls == self.at:
                self.raised += 1
                raise Injected(f"injected at call {self.at} of {original.__name__}")
            return result

        return wrapped


POINTS: dict[str, tuple[Any, str]] = {
    "the engine, after applying a command": (Game, "apply"),
    "following the tiles, after the engine": (commit, "track"),
    "the clock, at the end of the step": (table, "sync_clock"),
    "the view, after everything else": (table, "frames"),
}


def play(r: Rig) -> None:
    """A German game: the draw, the deal, HAUS, a failed challenge, refills, Ben's word across
    the A (nobody challenges it), a phony of Anna's challenged and taken back, passes to the end."""
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)  # HAUS is valid: Ben -5
    r.tick(6)
    r.draw(0, "IRDE")
    r.lay(1, "F9:B G9:O I9:N J9:E")  # BOANE
    r.done(2)
    r.tick(21)
    r.draw(1, "LTAI")
    r.lay(0, "I10:T I11:E")
    r.done(1)
    r.challenge(2)  # invalid: Anna takes the tiles back
    r.tick(6)
    r.take_back(0, "I10 I11")
    for _ in range(4):
        game = r.state.game
        if game is None or game.over:
            break
        r.done(game.turn + 1, long=True)
        r.tick(2)


def check(service: Service, display: Display, state: Path, when: str) -> None:
    """The service's game is its journal's, and the display shows the service's screen."""
    assert service.state is not None
    info = service.journal.unfinished() or (service.journal.latest() if isinstance(service.journal, Journal) else None)
    shown = service.state.game
    if info is not None and shown is not None:
        records = read_game(info.meta, service.journal.entries(info.id)).records
        restored, _ = service.table.restore(records, service.state.now, paused=False)
        journaled = restored.game
        assert journaled is not None, when
        assert journaled.events == shown.events and journaled.scores() == shown.scores(), when
        assert journaled.board == shown.board and journaled.racks == shown.racks, when
    screen = service.state.shown.table
    if screen is not None and display.image is not None:
        assert display.image.tobytes() == render(screen, "de").convert("1").tobytes(), when


@pytest.mark.parametrize("point", list(POINTS))
def test_an_unexpected_error_inside_a_step_loses_nothing_and_shows_nothing_unjournaled(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, name = POINTS[point]
    raised = 0
    for at in (1, 2, 3, 5, 8, 13, 21, 34):
        folder = tmp_path / f"at-{at}"
        r = rig("de", 2, words=("HAUS", "BOHNE", "OB", "NEU"))
        display = Display(dummy(width=128, height=64, mode="1"))
        service = Service(r.table, Journal.open(folder), [display], clock=lambda: r.now)
        service.start("de", 2)
        fault = Fault(at)
        with monkeypatch.context() as m:
            m.setattr(owner, name, fault.wrap(getattr(owner, name)))

            def feed(event: object) -> None:
                before = service.state
                calls = fault.raised
                service.handle(event)  # type: ignore[arg-type]
                if fault.raised != calls:  # the step failed: the input is dropped, the state kept
                    assert service.state is before
                assert service.state is not None
                r.state = service.state  # the rig plays on with what the service has
                fault.armed = False
                check(service, display, folder, f"{point}, call {at}, after {event!r}")
                fault.armed = True

            r.feed = feed  # type: ignore[method-assign]
            play(r)
        raised += fault.raised
        service.close()
    assert raised >= 5, f"the fault at {point} was hardly ever hit ({raised} times)"
