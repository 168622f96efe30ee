"""Register-level fakes of the reference build's chips, for running ``firmware/hal_rp2.py``
unchanged under CPython (tests/test_firmware_rp2.py).

- ``mfrc522``: the MFRC522 reader, its registers, FIFO, timer, IRQ pin and the radio;
- ``iso14443``: ISO 14443-3 type A tags (7-byte UIDs, cascade levels, power-up time);
- ``mcp23s17``: the MCP23S17 expander with the A2/HAEN erratum;
- ``usbcdc``: MicroPython's USB CDC writes and POLLOUT, per release;
- ``micropython_env``: ``machine``, ``micropython``, ``time``, ``select``, ``sys``, ``os`` on
  a virtual clock, and the loader that runs ``hal_rp2`` on them;
- ``board``: the reference build's wiring (hardware/README.md) tying them together.
"""

from .board import ReferenceBoard, near, snapshot_tags
from .micropython_env import BlockedForever, CpuCosts, KeyboardInterruptOnBoard, WatchdogReset

__all__ = ["BlockedForever", "CpuCosts", "KeyboardInterruptOnBoard", "ReferenceBoard", "WatchdogReset", "near",
           "snapshot_tags"]
