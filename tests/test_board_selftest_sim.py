"""``scoreboard board selftest`` against ``scoreboard simulate-board``, each as its own process.

The simulator runs in lockstep (``--control``, ``--lockstep``): the test moves its clock with
``advance`` and slides the test tiles with ``place`` over the control socket, as a builder's
hand would, while the command follows the self-test on the pty like on a real board. A
board's minute takes seconds here. Real-time limits are generous and only guard against a
hang.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.tiles import GERMAN
from scoreboard.registry import TileRegistry
from scoreboard.sim.client import SimControl
from scoreboard.sim.tags import tile_set_uids

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 60.0
COLUMNS = "ABCDEFGHIJKLMNO"
UID_T = "04A1B2C3D4E5F6"
UID_UNKNOWN = "04AABBCCDDEEFF"


class Command:
    """``scoreboard board selftest ...`` running; its stderr lines gathered as they come."""

    def __init__(self, *argv: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "scoreboard.cli", "board", "selftest", *argv],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.lines: list[str] = []
        self.out: list[str] = []  # (read as it comes too: the JSON is more than a pipe holds)
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._read_out, daemon=True)]
        for t in self._readers:
            t.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        self.out.append(self.proc.stdout.read())

    def said(self, *parts: str) -> bool:
        """True when a line has every one of ``parts``."""
        return any(all(p in line for p in parts) for line in list(self.lines))

    def result(self) -> tuple[int, dict[str, object]]:
        code = self.proc.wait(timeout=PATIENCE)
        for t in self._readers:
            t.join(timeout=10)
        return code, json.loads("".join(self.out))


Run = Callable[..., tuple[SimControl, Command]]


@pytest.fixture()
def selftest() -> Iterator[Run]:
    """Start the simulator (lockstep, with a script) and the command on its link."""
    folder = Path(tempfile.mkdtemp(prefix="selftest-"))  # short: a unix socket's path is short
    procs: list[subprocess.Popen[str]] = []
    clients: list[SimControl] = []

    def start(*argv: str, script: str = "", registry: dict[str, bytes] | None = None) -> tuple[SimControl, Command]:
        link, control = folder / "board", folder / "control"
        (folder / "board.txt").write_text(script)
        sim = subprocess.Popen([sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", str(control),
                                "--lockstep", "--script", str(folder / "board.txt")],
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        procs.append(sim)
        client = SimControl.connect(control, timeout=PATIENCE)
        clients.append(client)
        state = folder / "state"
        if registry:
            reg = TileRegistry.load(state, "de")
            for letter, uid in registry.items():
                reg.add(uid, letter[0])
            reg.save()
        config = folder / "config.toml"
        config.write_text(f'[paths]\nstate_dir = "{state}"\n')
        command = Command("--link", str(link), "--config", str(config), "--json", *argv)
        procs.append(command.proc)
        return client, command

    yield start
    for c in clients:
        c.close()
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


def advance_until(sim: SimControl, command: Command, done: Callable[[], bool], step: float = 0.05) -> None:
    """Run the board in small steps until ``done`` (the command reads meanwhile)."""
    deadline = time.monotonic() + PATIENCE
    while not done():
        assert time.monotonic() < deadline, "\n".join(command.lines[-20:])
        if command.proc.poll() is not None and not done():
            raise AssertionError("the command ended early:\n" + "\n".join(command.lines[-20:]))
        sim.advance(step)


def finish(sim: SimControl, command: Command) -> None:
    """Run the board until the command has ended its self-test and exited."""
    deadline = time.monotonic() + PATIENCE
    while command.proc.poll() is None:
        assert time.monotonic() < deadline, "\n".join(command.lines[-30:])
        sim.advance(0.05)


def test_sliding_tiles_over_every_cell_and_slot_passes(selftest: Run) -> None:
    tiles = tile_set_uids(GERMAN)[:19]  # one enrolled tile per reader, slid along its row or rack
    registry = {f"{tile.letter}{n}": uid for n, (tile, uid) in enumerate(tiles)}
    sim, command = selftest("--set", "de", "--seconds", "600", registry=registry)
    advance_until(sim, command, lambda: command.said("Slide the test tile"))
    assert command.said("reader 18 rack 4", " OK ", "MFRC522 2.0 (VersionReg 0x92)")
    for step in range(15):
        for row in range(15):  # the rows' tiles five columns apart: the keep-out lets them all read
            sim.request(f"place {COLUMNS[(step + 5 * row) % 15]}{row + 1} {tiles[row][1].hex()}")
        if step < 7:
            for rack in range(4):
                sim.request(f"place R{rack + 1}.{step + 1} {tiles[15 + rack][1].hex()}")
        sim.advance(0.35)
    finish(sim, command)
    code, data = command.result()
    assert code == 0, "\n".join(command.lines[-30:])
    assert data["passed"] is True and data["ended"] == "complete" and data["never_read"] == []
    assert all(r["ok"] and r["antennas_read"] == r["antennas"] for r in data["readers"])  # type: ignore[attr-defined]
    antennas = data["antennas"]
    assert isinstance(antennas, list) and len(antennas) == 253
    assert all(a["read"] and a["tile_ms"]["min"] >= 7.5 for a in antennas)  # settle 1 ms + a 6.5 ms select at least
    assert command.said("Result: PASS: 19 readers healthy, all 253 antennas read the test tile.")
    assert command.said("reader 7 (row 8): every antenna has read the test tile")


def test_a_dead_reader_a_garbled_one_and_a_stranger_tag_fail(selftest: Run) -> None:
    script = f"fault reader 3\nfault reader 5 garbage\nplace A1 {UID_UNKNOWN}\n"
    sim, command = selftest("--tile", UID_T, "--seconds", "600", script=script)
    advance_until(sim, command, lambda: command.said("Slide the test tile"))
    assert command.said("reader  3 row 4", " FAULTY ", "no answer on SPI: VersionReg reads 0xFF")
    slid = [f"{c}{row}" for row in (3, 4) for c in COLUMNS] + [f"R1.{slot}" for slot in range(1, 8)]
    for where in slid:
        if where == "A4":
            sim.advance(0.6)  # (the reads since the last report would be lost with the controller's RAM)
            sim.request("reboot")  # the controller restarts in the middle: the command starts the test again
            advance_until(sim, command, lambda: command.said("The self-test runs again."))
            assert command.said("The board's controller restarted")
        sim.request(f"place {where} {UID_T}")
        sim.advance(0.3)
    assert command.said("reader 5 (row 6): FAULTY: ")
    command.proc.send_signal(signal.SIGINT)  # the builder's Ctrl-C
    finish(sim, command)
    code, data = command.result()
    assert code == 1
    assert data["passed"] is False and data["ended"] == "interrupted" and data["restarts"] == 1
    readers = data["readers"]
    assert isinstance(readers, list)
    assert [r["reader"] for r in readers if not r["ok"]] == [3, 5]
    assert readers[3]["problems"][0].startswith("no answer on SPI: VersionReg reads 0xFF")
    assert "got no answer in time" in readers[3]["problems"][1]
    assert "gave bad data" in readers[5]["problems"][0] and readers[5]["version"] == "0x92"
    read = {a["location"] for a in data["antennas"] if a["read"]}  # type: ignore[union-attr]
    assert read == {f"{c}3" for c in COLUMNS} | {f"rack 1 slot {s}" for s in range(1, 8)}
    never = set(data["never_read"])  # type: ignore[arg-type]
    assert {f"{c}4" for c in COLUMNS} <= never and {f"{c}6" for c in COLUMNS} <= never and len(never) == 253 - 22
    assert data["other_tags"] == [{"uid": UID_UNKNOWN, "locations": ["A1"], "reads": data["other_tags"][0]["reads"],
                                   "letter": None}]
    assert command.said("  row 4: all 15") and command.said("Result: FAIL: 2 of 19 readers faulty (3, 5)")
