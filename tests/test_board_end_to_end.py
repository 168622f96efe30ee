"""The whole board link: the simulated controller in its own process, the host's serial
driver through the symlink, the stabiliser on top — through slides, flicker, garbage and an
unplugged cable. Real time, a few seconds."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from drivers.board.link import SnapshotReceived
from drivers.board.protocol import Loc
from drivers.board.serial_link import BoardDisconnected, BoardReconnected, SerialBoard
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import Stabiliser

ROOT = Path(__file__).resolve().parent.parent
A, B, C, D, E = (bytes.fromhex(f"04A1B2C3D4E5{i:02X}") for i in range(1, 6))

SCRIPT = """
at 0.3 place H8 04A1B2C3D4E501
place I8 04A1B2C3D4E502
place R1.1 04A1B2C3D4E503
after 0.6 slide R1.1 J8 0.08
garbage 40
flicker I8 0.5
after 0.5 flicker I8 0
corrupt 1
after 0.4 unplug 1.0
after 1.5 place K8 04A1B2C3D4E504
after 0.3 place L8 04A1B2C3D4E505
after 0.8 slide L8 M8 0.04
after 0.08 move M8 N8
"""
FINAL = BoardSnapshot.of(
    [(Loc.cell("H8"), A), (Loc.cell("I8"), B), (Loc.cell("J8"), C), (Loc.cell("K8"), D), (Loc.cell("N8"), E)]
)


def test_a_scripted_game_survives_faults_and_an_unplugged_cable(tmp_path: Path) -> None:
    link = tmp_path / "usb-scoreboard-board"
    script = tmp_path / "game.txt"
    script.write_text(SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--script", str(script)],
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    stabiliser = Stabiliser(reports=2, seconds=0.2)
    seen: list[object] = []
    stable_boards: list[BoardSnapshot] = []
    try:
        deadline = time.monotonic() + 20
        while not link.is_symlink():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the simulator made no link"
            time.sleep(0.02)
        with SerialBoard(str(link)) as board:
            while time.monotonic() < deadline:
                for event in board.read_events(timeout=0.1):
                    seen.append(event)
                    if isinstance(event, SnapshotReceived):
                        stabiliser.update(event.snapshot, event.at)
                        if not stable_boards or stable_boards[-1] != stabiliser.stable:
                            stable_boards.append(stabiliser.stable)
                if stabiliser.stable == FINAL and any(isinstance(e, BoardReconnected) for e in seen[1:]):
                    break
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert stabiliser.stable == FINAL
    kinds = [type(e) for e in seen]
    assert BoardDisconnected in kinds and kinds.count(BoardReconnected) >= 2  # first open, replug
    # The tile slid from L8 across M8 to N8 never lay on M8 in a stable board (it rested there
    # for less than the debounce), and the flicker never emptied I8.
    assert any(snap.at(Loc.cell("L8")) == E for snap in stable_boards)
    i8_seen = False
    for snap in stable_boards:
        assert snap.at(Loc.cell("M8")) is None
        i8_seen = i8_seen or snap.at(Loc.cell("I8")) == B
        if i8_seen:
            assert snap.at(Loc.cell("I8")) == B
