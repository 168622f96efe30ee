"""The operations whose machine instructions ``scoreboard bench --only counts`` counts.

``python -m scoreboard.bench.counted OP N``: sets ``OP`` up (always the same way, whatever
``N``, and carries it out once then, so that what a first one loads is not counted), carries
it out ``N`` times and exits. Run under valgrind with ``N`` and with 0, the
difference of the two counts divided by ``N`` is what one operation costs, the set-up and
the interpreter's start cancelled out (:mod:`scoreboard.bench.count_bench`).

- ``done``: a Done press through the turn controller, the play judged and committed, and
  the shared display's frame rendered (the plays of :mod:`.press_bench`'s German game in
  turn, each from the state its Done was pressed in: the controller is a pure function).
- ``blank2``: a Done whose play holds two blanks, their letters inferred (:data:`BLANK_PLAY`,
  the issue's example); ``blank2worst``: the same for the worst case of :func:`blank_cases`
  (:data:`WORST_BLANK_PLAY`).
- ``lookup``: a lexicon lookup (German, half present, half absent words).
- ``frame``: a board-link frame parsed and decoded (:mod:`.link_bench`'s mix).

A start is counted with :mod:`scoreboard.start_probe` (outside this package, which loads
every benchmark).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable

__all__ = ["BLANK_PLAY", "blank_cases", "main", "setup"]

BLANK_PLAY = "D8:? E8:? F8:I G8:E H8:L I8:E J8:N"
"""The two-blank play counted: ``??IELEN`` across the centre on an empty board (the
inference tries every pair of letters the German set has for the first two squares)."""


WORST_BLANK_PLAY = "E8:? F8:? G8:E H8:N"
"""The worst two-blank play of :func:`blank_cases` (``??EN``: both blanks first, so every
pair of letters that starts a word is asked for; 21 ways to name them)."""


def _done() -> Callable[[int], None]:
    from drivers.buttons.logic import ButtonEvent, Kind, Role
    from engine.rules import get_profile
    from scoreboard import lexicons
    from scoreboard.bench.press_bench import PANEL, PLAYS, SEATS, Driver, Registry
    from scoreboard.controller import Show
    from scoreboard.screens.render import render

    profile = get_profile("de")
    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    driver = Driver(profile, Registry(profile.tile_set), lexicon)
    driver.start()
    presses = []
    for index in range(len(PLAYS)):  # the state each Done is pressed in, the play's tiles laid
        seat = index % SEATS
        driver.lay(seat, driver.plays[index])
        presses.append((driver.state, ButtonEvent(seat + 1, Role.DONE, Kind.PRESS, driver.now)))
        driver.feed(presses[-1][1])
        driver.now += driver.settings.window_s + 1.0
        from scoreboard.controller import Tick

        driver.feed(Tick(driver.now))
        driver.refill(seat)
    table = driver.table

    def op(n: int) -> None:
        for i in range(n):
            state, press = presses[i % len(presses)]
            _, effects = table.step(state, press)
            shown = next(e for e in effects if isinstance(e, Show) and e.seats is None)
            render(shown.screen, "de", PANEL).tobytes()

    return op


def blank_state(play: str = BLANK_PLAY) -> tuple[object, object, object]:
    """The table, the state with ``play`` laid (seat 1 to move, first play) and its Done press."""
    from drivers.buttons.logic import ButtonEvent, Kind, Role
    from engine.board import Square
    from engine.rules import get_profile
    from scoreboard import lexicons
    from scoreboard.bench.press_bench import Driver, Registry

    profile = get_profile("de")
    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    driver = Driver(profile, Registry(profile.tile_set), lexicon)
    tiles = [item.split(":") for item in play.split()]
    driver.demand[0] = [letter for _, letter in tiles]  # the deal gives seat 1 these tiles
    driver.start()
    rack = driver.racks[0]
    for square, letter in tiles:
        slot = next(s for s, u in rack.items() if driver.letter(u) == letter)
        driver.cells[Square.from_name(square)] = rack.pop(slot)
    driver.read()
    return driver.table, driver.state, ButtonEvent(1, Role.DONE, Kind.PRESS, driver.now)


def blank_cases() -> list[str]:
    """Two-blank plays tried for the worst case of the inference (German set, empty board)."""
    return [
        BLANK_PLAY,
        "D8:? E8:I F8:? G8:L H8:E",  # ?I?LE
        "H8:E I8:R J8:? K8:?",  # ER??
        "H8:? I8:?",  # ??: every two-letter word
        "G8:S H8:? I8:? J8:E K8:N",  # S??EN
        "E8:? F8:? G8:E H8:N",  # ??EN
    ]


def _blank2(play: str = BLANK_PLAY) -> Callable[[int], None]:
    table, state, press = blank_state(play)

    def op(n: int) -> None:
        for _ in range(n):
            table.step(state, press)  # type: ignore[attr-defined]

    return op


def _lookup() -> Callable[[int], None]:
    from scoreboard import lexicons

    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    rng = random.Random(7)
    words = [w for i, w in enumerate(lexicon) if i % 97 == 0]
    present = [rng.choice(words) for _ in range(5000)]
    sample = present + [w[:-1] + ("Q" if w[-1] != "Q" else "X") + "Z" for w in present]
    rng.shuffle(sample)

    def op(n: int) -> None:
        count = len(sample)
        for i in range(n):
            sample[i % count] in lexicon  # noqa: B015

    return op


def _frame() -> Callable[[int], None]:
    from drivers.board.protocol import FrameParser, decode_payload
    from scoreboard.bench.link_bench import make_stream

    stream, count = make_stream()

    def op(n: int) -> None:
        parser = FrameParser()
        fed = 0
        while parser.stats.frames + parser.stats.crc_errors + parser.stats.malformed < n and fed < len(stream):
            for frame in parser.feed(stream[fed:fed + 64]):
                decode_payload(frame.type, frame.payload)
            fed += 64

    return op


SETUPS: dict[str, Callable[[], Callable[[int], None]]] = {
    "done": _done, "blank2": _blank2, "blank2worst": lambda: _blank2(WORST_BLANK_PLAY), "lookup": _lookup,
    "frame": _frame,
}


def setup(name: str) -> Callable[[int], None]:
    """The operation ``name``, set up and carried out once (what a first one loads, such as
    the fonts of the first frame rendered, is not counted): call it with how many times to
    carry it out."""
    op = SETUPS[name]()
    op(1)
    return op


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in SETUPS:
        print(f"usage: python -m scoreboard.bench.counted {{{','.join(SETUPS)}}} N", file=sys.stderr)
        return 2
    op = setup(argv[0])
    op(int(argv[1]))
    sys.stdout.flush()
    os._exit(0)  # (no teardown counted)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
