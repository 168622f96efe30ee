"""The board at rest: a read with the last one's tags may be held back while the table does
not need it (:func:`scoreboard.controller.board.reads_matter`), because then it changes
nothing a tick at its time would not change, but the time of the latest settled run. Checked
after every step of the controller's scenarios, as the ticks are in ``test_controller_due``:
a repeated read there gives the effects of a :class:`Tick` at its time, and the state that
tick gives but for the latest settled run's time. (The runner takes a reading held back
before every input and every tick, so time passes for the table as it did.)"""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoreboard.controller import BoardRead, Tick
from scoreboard.controller.board import reads_matter
from scoreboard.controller.table import Table
from tests.test_controller_due import SCENARIOS


def _last_run_at(state, last: float):  # type: ignore[no-untyped-def]
    runs = state.reads.runs
    if runs:
        runs = (*runs[:-1], replace(runs[-1], last=last))
    return replace(state, reads=replace(state.reads, runs=runs))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_repeated_read_changes_nothing_while_reads_do_not_matter(scenario, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    step = Table.step
    checked = [0]

    def checking(self: Table, state, event):  # type: ignore[no-untyped-def]
        after, effects = step(self, state, event)
        if not reads_matter(after) and after.reads.runs:
            r = after.reads
            for later in (0.001, 0.5, 7.0):
                at = max(after.now, r.runs[-1].last) + later
                again, fx = step(self, after, BoardRead(r.observed, r.settled, at, r.duplicates))
                ticked, tick_fx = step(self, after, Tick(at))
                assert fx == tick_fx, f"a repeated read at {at} after {event!r} gave {fx!r}, a tick {tick_fx!r}"
                assert again.reads.runs[-1].last == at  # (what the held read carries in)
                assert _last_run_at(again, 0.0) == _last_run_at(ticked, 0.0), f"a repeated read after {event!r} changed the table"
            checked[0] += 1
        return after, effects

    monkeypatch.setattr(Table, "step", checking)
    scenario()


def test_the_scenarios_reach_rest() -> None:
    """The property above is not empty: most scenarios pass through states at rest."""
    step = Table.step
    rested: list[int] = []

    def counting(self: Table, state, event):  # type: ignore[no-untyped-def]
        after, effects = step(self, state, event)
        rested.append(not reads_matter(after) and bool(after.reads.runs))
        return after, effects

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Table, "step", counting)
        for param in SCENARIOS[:20]:
            param.values[0]()
    assert sum(rested) > 50
