"""The simulated board: the real firmware on a virtual board, behind a pty, in parts.

``scoreboard simulate-board --link PATH`` (or ``python -m scoreboard.sim``) runs
``firmware.controller`` on ``firmware.hal_fake`` in its own process and serves the board
link protocol on a pseudo terminal reached through the symlink PATH, so the service can be
killed and restarted while the "board" keeps its tiles.

- :mod:`~scoreboard.sim.tags`: the deterministic tag UIDs of the simulated tiles;
- :mod:`~scoreboard.sim.commands`: the typed commands (``place H8 04A1...``), parsed once;
- :mod:`~scoreboard.sim.script`: board scripts, the commands at their times;
- :mod:`~scoreboard.sim.board`: the simulated board (controller, HAL, clock, commands);
- :mod:`~scoreboard.sim.faults`: faults on its output (drop, corrupt, duplicate, reorder);
- :mod:`~scoreboard.sim.pty`: the pty transport and its stable symlink;
- :mod:`~scoreboard.sim.control`: the control socket's server and its line protocol;
- :mod:`~scoreboard.sim.client`: :class:`~scoreboard.sim.client.SimControl`, a client;
- :mod:`~scoreboard.sim.cli`: the command line.

Nothing is imported here: a client does not load the firmware.
"""
