"""Board scripts: the commands of :mod:`scoreboard.sim.commands`, each at its time.

``scoreboard simulate-board --script FILE`` plays one; one command a line, ``#`` starts a
comment, a time in front of the command or none::

    at 1.5 place H8 04A1B2C3D4E5F6    # absolute time in seconds since start
    after 0.5 remove H8               # relative to the previous line
    place R1.3 04112233445566         # no time: same moment as the previous line
    move R1.3 I8                      # lift a tile and put it down elsewhere
    at 3 slide H8 I8 0.1              # the tile answers on both for 0.1 s, then on I8
    flicker H8 0.5                    # missed on half the reads (0 stops; 'alternate')
    after 1 unplug 2.0 reboot         # cable out for 2 s, the controller restarting
    fault reader 3                    # reader 3 stops answering ('garbage': bad data)
    exit                              # stop the simulator

The whole command list (faults on the link and the readers too) is in
:mod:`scoreboard.sim.commands`. Lines at the same time keep their order; no step comes
later than :data:`~scoreboard.sim.commands.MAX_SCRIPT_S` (6 hours).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoreboard.sim.commands import (
    MAX_SCRIPT_S, Command, CommandError, Geometry, Problem, command_from_words, number_text, seconds, words_of,
)

__all__ = ["Step", "parse_script"]


@dataclass(frozen=True)
class Step:
    """The command ``command`` at ``at`` seconds since the start (``line``: its script line, 0: none)."""

    at: float
    command: Command
    line: int = 0

    def __str__(self) -> str:
        return f"at {number_text(self.at)} {self.command}"


def parse_script(text: str, geometry: Geometry | None = None) -> list[Step]:
    """The steps of a board script (see the module doc), in time order, for a board of
    ``geometry`` when given.

    A bad line raises :class:`~scoreboard.sim.commands.CommandError` with its number.
    """
    steps: list[Step] = []
    now = 0.0
    for number, raw in enumerate(text.splitlines(), 1):
        words = words_of(raw)
        if not words:
            continue
        try:
            when = words[0].lower()
            if when in ("at", "after"):
                if len(words) < 3:
                    raise CommandError(Problem.ARITY, f"{when} TIME COMMAND ...")
                t = seconds(words[1], MAX_SCRIPT_S)
                now = t if when == "at" else now + t
                if now > MAX_SCRIPT_S:
                    raise CommandError(Problem.NUMBER, f"later than {MAX_SCRIPT_S:g} s since the start")
                words = words[2:]
            command = command_from_words(words)
            if geometry is not None:
                geometry.check(command)
        except CommandError as e:
            raise e.on(raw.strip(), number) from None
        steps.append(Step(now, command, number))
    steps.sort(key=lambda s: s.at)  # stable: lines at the same time keep their order
    return steps
