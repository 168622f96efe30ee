"""The OLED: luma.oled devices built from ``[display]``, and a change-detecting wrapper.

Three layers, as in luma: the bus (I2C, optionally behind a TCA9548A multiplexer), the
device (``ssd1306``, ``sh1106``, luma's ``dummy`` or luma.emulator's ``capture``) and
:class:`Display`, which pushes an image only when it differs from the last one pushed:
a full frame costs about 23 ms of I2C bus time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from PIL import Image

from engine.errors import ScoreboardError

__all__ = [
    "Display",
    "DisplayError",
    "Multiplexer",
    "make_device",
    "make_display",
    "make_displays",
]

WIDTH, HEIGHT = 128, 64


class DisplayError(ScoreboardError, RuntimeError):
    """A display that cannot be opened or driven (no I2C bus, no luma.emulator, bad seat)."""


class _Device(Protocol):
    """What :class:`Display` needs of a luma device."""

    def display(self, image: Image.Image) -> None: ...

    def cleanup(self) -> None: ...


class _ByteWriter(Protocol):
    def write_byte(self, i2c_addr: int, value: int) -> None: ...


class Multiplexer:
    """A TCA9548A I2C multiplexer: :meth:`select` routes the bus to one channel (0-7)."""

    def __init__(self, bus: _ByteWriter, address: int = 0x70) -> None:
        self.bus = bus
        self.address = address

    def __repr__(self) -> str:
        return f"<Multiplexer at 0x{self.address:02X}>"

    def select(self, channel: int) -> None:
        """Connect ``channel`` alone (writes the control byte ``1 << channel``)."""
        if not 0 <= channel <= 7:
            raise ValueError(f"multiplexer channel {channel!r} is not 0 to 7")
        self.bus.write_byte(self.address, 1 << channel)


class Display:
    """An OLED (real or emulated) that is sent an image only when it changed.

    ``select`` (a multiplexer channel selection) runs before each push. ``pushes``
    counts the images actually sent; ``image`` is the last one.
    """

    def __init__(self, device: _Device, select: Callable[[], None] | None = None) -> None:
        self.device: Any = device  # the luma device, e.g. dummy's .image in tests
        self.select = select
        self.image: Image.Image | None = None
        self.pushes = 0
        self._last: bytes | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<Display {type(self.device).__name__} pushes={self.pushes}>"

    def show(self, image: Image.Image) -> bool:
        """Push ``image`` (128x64) unless it equals the last one pushed; True if pushed."""
        if image.size != (WIDTH, HEIGHT):
            raise ValueError(f"image is {image.size[0]}x{image.size[1]}, not {WIDTH}x{HEIGHT}")
        frame = image if image.mode == "1" else image.convert("1")
        data = frame.tobytes()
        if data == self._last:
            return False
        if self.select is not None:
            self.select()
        self.device.display(frame)
        self._last = data
        self.image = frame.copy()
        self.pushes += 1
        return True

    def keep_shown(self) -> None:
        """Leave the last frame on the panel when it is closed (a message that must outlast
        the service, such as why it stopped), instead of clearing it and switching it off."""
        self.device.persist = True

    def close(self) -> None:
        """Release the device (luma clears and switches this panel off, unless
        :meth:`keep_shown`); once only."""
        if self._closed:
            return
        self._closed = True
        if self.select is not None:
            self.select()  # behind a multiplexer, switch off this seat's panel, not the last one
        self.device.cleanup()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def make_device(display: Any, capture_dir: str | Path | None = None, seat: int = 0) -> Any:
    """The luma device for a ``[display]`` section (:class:`scoreboard.config.DisplayConfig`).

    ``capture`` writes ``screen-SEAT-NNNNNN.png`` files into ``capture_dir`` (default:
    the current directory), each atomically, numbered on after the frames already there
    (:mod:`drivers.display.capture`); it needs luma.emulator (and pygame).
    """
    driver = display.driver
    if driver == "dummy":
        from luma.core.device import dummy

        return dummy(width=WIDTH, height=HEIGHT, rotate=display.rotate, mode="1")
    if driver == "capture":
        try:
            from drivers.display.capture import AtomicCapture
        except ImportError as e:
            raise DisplayError(
                f"display.driver = \"capture\" needs luma.emulator: {e}; install the test extra"
            ) from None
        folder = Path(capture_dir or ".")
        folder.mkdir(parents=True, exist_ok=True)
        return AtomicCapture(folder, f"screen-{seat + 1}-", WIDTH, HEIGHT, rotate=display.rotate)
    if driver in ("ssd1306", "sh1106"):
        from luma.core.error import DeviceNotFoundError, DevicePermissionError
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled

        try:
            serial = i2c(port=display.port, address=display.address)
        except (DeviceNotFoundError, DevicePermissionError) as e:
            raise DisplayError(
                f"no display bus /dev/i2c-{display.port} (display.port): {e}"
            ) from None
        make = oled.ssd1306 if driver == "ssd1306" else oled.sh1106
        try:  # the panel's start-up commands go out here: no panel answers at a wrong address
            return make(serial, width=WIDTH, height=HEIGHT, rotate=display.rotate)
        except (DeviceNotFoundError, DevicePermissionError, OSError) as e:
            raise DisplayError(
                f"no {driver} display at address {display.address:#04x} on /dev/i2c-{display.port}"
                f" (display.address, display.port): {e}"
            ) from None
    raise DisplayError(f"unknown display.driver {driver!r}")


def _open_bus(port: int) -> _ByteWriter:
    from smbus2 import SMBus

    try:
        return SMBus(port)
    except OSError as e:
        raise DisplayError(f"no I2C bus /dev/i2c-{port} for the multiplexer: {e}") from None


def make_displays(
    config: Any,
    capture_dir: str | Path | None = None,
    bus: _ByteWriter | None = None,
) -> tuple[Display, ...]:
    """The displays of a :class:`scoreboard.config.Config`: one per seat or one shared.

    With ``display.mux_address`` and ``display.seat_channels`` each seat has its own
    display behind the multiplexer (``bus`` writes its control byte; default smbus2 on
    ``display.port``); the emulated drivers then still select the (fake) channel.
    """
    display = config.display
    channels: tuple[int, ...] = tuple(display.seat_channels)
    if not channels:
        return (Display(make_device(display, capture_dir)),)
    if not display.mux_address:
        raise DisplayError("display.seat_channels needs display.mux_address (the TCA9548A)")
    if bus is None:
        if display.driver in ("dummy", "capture"):
            raise DisplayError(f"display.driver {display.driver!r} with a multiplexer needs a bus")
        bus = _open_bus(display.port)
    mux = Multiplexer(bus, display.mux_address)
    displays: list[Display] = []
    try:
        for seat, channel in enumerate(channels):
            mux.select(channel)  # the device's init sequence goes to this seat's panel
            device = make_device(display, capture_dir, seat)
            displays.append(Display(device, select=functools.partial(mux.select, channel)))
    except BaseException:
        for made in displays:  # do not leave the seats set up so far switched on
            made.close()
        raise
    return tuple(displays)


def make_display(
    config: Any, capture_dir: str | Path | None = None, bus: _ByteWriter | None = None
) -> Display:
    """The display of ``config`` (with seat displays: the first seat's)."""
    return make_displays(config, capture_dir, bus)[0]
