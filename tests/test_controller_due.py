"""Table.next_due: no tick before it changes anything, on the states of whole scenarios.

Every step of the controller tests named below is checked: for the state it gives, ticks
between its time and :meth:`Table.next_due` (and far later when nothing is due) must give
no effect and the same state (only its time moved on). A real-time service sleeps until
that deadline, so a tick it skips is one that would have done nothing. (A display's number
turns the instant after a whole second: ticks within :data:`EPSILON_S` of the state's time
are not looked at; the service ticks that much after the second.)
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from types import ModuleType

import pytest

import tests.test_controller_games as games
import tests.test_controller_interruptions as interruptions
import tests.test_controller_review as review
import tests.test_controller_speech as speech
import tests.test_controller_table as table_tests
from scoreboard.controller import Tick
from scoreboard.controller.due import EPSILON_S
from scoreboard.controller.table import Table

MODULES: tuple[ModuleType, ...] = (games, interruptions, review, speech, table_tests)
SCENARIOS = [
    pytest.param(f, id=f"{m.__name__.rsplit('.', 1)[-1]}::{name}")
    for m in MODULES
    for name, f in sorted(vars(m).items())
    if name.startswith("test_") and inspect.isfunction(f) and not inspect.signature(f).parameters
]


def _probe_times(now: float, due: float | None) -> list[float]:
    if due is None:
        return [now + 0.001, now + 1.0, now + 3600.0]
    gap = due - now
    return [t for f in (0.001, 0.5, 0.999) if now + EPSILON_S <= (t := now + gap * f) < due]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_tick_before_next_due_changes_anything(scenario, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    step = Table.step

    def checking(self: Table, state, event):  # type: ignore[no-untyped-def]
        after, effects = step(self, state, event)
        due = self.next_due(after)
        assert due is None or due > after.now
        for t in _probe_times(after.now, due):
            ticked, fx = step(self, after, Tick(t))
            assert fx == [], f"a tick at {t} (next due {due}, now {after.now}) after {event!r} gave {fx!r}"
            assert replace(ticked, now=after.now) == after, f"a tick at {t} (next due {due}) changed the state"
        return after, effects

    monkeypatch.setattr(Table, "step", checking)
    scenario()
