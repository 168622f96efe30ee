"""The OLED: luma.oled devices built from ``[display]``, and a change-detecting wrapper.

Three layers, as in luma: the bus (I2C, optionally behind a TCA9548A multiplexer, or SPI
with its D/C and reset lines on GPIOs driven through gpiozero), the device (luma.oled's
``ssd1306``, ``sh1106``, ``ssd1309`` or ``ssd1322``, luma's ``dummy`` or our PNG
``capture``, each of the panel's size) and :class:`Display`, which pushes an image only when
it differs from the last one pushed: a full 128x64 frame costs about 23 ms of I2C bus time,
a 256x64 greyscale one about 8 ms of SPI at 8 MHz.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from PIL import Image

from drivers.display.panels import Panel, panel_of_controller
from engine.errors import ScoreboardError

__all__ = [
    "Display",
    "DisplayError",
    "FrameSizeError",
    "GpiozeroLines",
    "Multiplexer",
    "emulated_displays",
    "make_device",
    "make_display",
    "make_displays",
]


class DisplayError(ScoreboardError, RuntimeError):
    """A display that cannot be opened or driven (no I2C or SPI bus, no luma.emulator, bad seat)."""


class FrameSizeError(ScoreboardError, ValueError):
    """An image of another size than the panel's: ``size`` it, ``panel`` the panel's."""

    def __init__(self, size: tuple[int, int], panel: tuple[int, int]) -> None:
        self.size, self.panel = size, panel
        super().__init__(f"image is {size[0]}x{size[1]}, not {panel[0]}x{panel[1]}")


class _Device(Protocol):
    """What :class:`Display` needs of a luma device."""

    width: int
    height: int

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

    ``panel`` is what the screens are laid out for (by default the known panel of the
    device's size). ``select`` (a multiplexer channel selection) runs before each push.
    ``pushes`` counts the images actually sent; ``image`` is the last one.
    """

    def __init__(self, device: _Device, select: Callable[[], None] | None = None, panel: Panel | None = None) -> None:
        self.device: Any = device  # the luma device, e.g. dummy's .image in tests
        self.panel = panel if panel is not None else _panel_of_size(self.device.width, self.device.height)
        self.select = select
        self.image: Image.Image | None = None
        self.pushes = 0
        self._last: bytes | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<Display {type(self.device).__name__} pushes={self.pushes}>"

    def show(self, image: Image.Image) -> bool:
        """Push ``image`` (the panel's size) unless it equals the last one pushed; True if pushed."""
        if image.size != self.panel.size:
            raise FrameSizeError(image.size, self.panel.size)
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


def _panel_of_size(width: int, height: int) -> Panel:
    from drivers.display.panels import PANELS

    return next((p for p in PANELS.values() if p.size == (width, height)), PANELS["0.96in"])


class GpiozeroLines:
    """The RPi.GPIO calls luma's SPI interface makes for its D/C and reset lines, on gpiozero
    output devices: gpiozero picks the pin library (lgpio on a Pi 5, where RPi.GPIO fails)."""

    BCM, OUT, LOW, HIGH = "BCM", "OUT", 0, 1

    def __init__(self, pin_factory: Any = None) -> None:
        self._factory = pin_factory
        self._lines: dict[int, Any] = {}

    def setmode(self, mode: str) -> None:
        """Pins are BCM numbers always."""

    def setup(self, pin: int, mode: str, initial: int | None = None) -> None:
        """Make ``pin`` an output (low, or ``initial``)."""
        from gpiozero import DigitalOutputDevice  # type: ignore[import-untyped]

        if pin not in self._lines:
            self._lines[pin] = DigitalOutputDevice(pin, initial_value=bool(initial), pin_factory=self._factory)

    def output(self, pin: int, value: int) -> None:
        """Drive ``pin`` high (true) or low."""
        self._lines[pin].value = bool(value)

    def cleanup(self, pins: int | list[int] | None = None) -> None:
        """Release ``pins`` (every line when None)."""
        chosen = list(self._lines) if pins is None else [pins] if isinstance(pins, int) else pins
        for pin in chosen:
            line = self._lines.pop(pin, None)
            if line is not None:
                line.close()


class _SpiDevice:
    """A luma device on SPI whose cleanup also releases the D/C and reset lines."""

    def __init__(self, device: Any, lines: GpiozeroLines) -> None:
        self._device = device
        self._lines = lines

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._device, name, value)  # e.g. persist, read by luma's cleanup

    def display(self, image: Image.Image) -> None:
        self._device.display(image)

    def cleanup(self) -> None:
        try:
            self._device.cleanup()
        finally:
            self._lines.cleanup()


def make_device(display: Any, capture_dir: str | Path | None = None, seat: int = 0, *,
                spi: Any = None, pin_factory: Any = None) -> Any:
    """The luma device for a ``[display]`` section (:class:`scoreboard.config.DisplayConfig`),
    of its panel's size (:meth:`~scoreboard.config.DisplayConfig.chosen_panel`).

    ``capture`` writes ``screen-SEAT-NNNNNN.png`` files into ``capture_dir`` (default:
    the current directory), each atomically, numbered on after the frames already there
    (:mod:`drivers.display.capture`, Pillow's PNG encoder). An SPI panel
    uses ``spi`` (a ``spidev.SpiDev``-like object; default spidev's) and gpiozero's
    ``pin_factory`` for its D/C and reset lines.
    """
    driver = display.driver
    panel: Panel = display.chosen_panel()
    width, height = panel.size
    if driver == "dummy":
        from luma.core.device import dummy

        return dummy(width=width, height=height, rotate=display.rotate, mode="1")
    if driver == "capture":
        from drivers.display.capture import AtomicCapture

        folder = Path(capture_dir or ".")
        folder.mkdir(parents=True, exist_ok=True)
        return AtomicCapture(folder, f"screen-{seat + 1}-", width, height, rotate=display.rotate)
    if driver != panel_of_controller(driver).controller:
        raise DisplayError(f"unknown display.driver {driver!r}")
    from luma.core.error import DeviceNotFoundError, DevicePermissionError
    from luma.oled import device as oled

    make = getattr(oled, driver)
    options: dict[str, Any] = {"width": width, "height": height, "rotate": display.rotate}
    if panel.greyscale:
        options["mode"] = "1"  # the screens are 1-bit: lit or dark
    if display.chosen_interface() == "spi":
        return _spi_device(display, make, options, spi, pin_factory)
    from luma.core.interface.serial import i2c

    try:
        serial = i2c(port=display.port, address=display.address)
    except (DeviceNotFoundError, DevicePermissionError) as e:
        raise DisplayError(
            f"no display bus /dev/i2c-{display.port} (display.port): {e}"
        ) from None
    try:  # the panel's start-up commands go out here: no panel answers at a wrong address
        return make(serial, **options)
    except (DeviceNotFoundError, DevicePermissionError, OSError) as e:
        raise DisplayError(
            f"no {driver} display at address {display.address:#04x} on /dev/i2c-{display.port}"
            f" (display.address, display.port): {e}"
        ) from None


def _spi_device(display: Any, make: Callable[..., Any], options: dict[str, Any], spi: Any, pin_factory: Any) -> Any:
    from luma.core.error import DeviceNotFoundError, DevicePermissionError
    from luma.core.interface.serial import spi as luma_spi

    where = f"/dev/spidev{display.spi_port}.{display.spi_device} (display.spi_port, display.spi_device)"
    if spi is None:
        try:
            import spidev  # type: ignore[import-not-found]
        except ImportError as e:
            raise DisplayError(f"an SPI display needs spidev: {e}; install the pi extra") from None
        spi = spidev.SpiDev()
    lines = GpiozeroLines(pin_factory)
    try:
        serial = luma_spi(spi=spi, gpio=lines, port=display.spi_port, device=display.spi_device,
                          bus_speed_hz=display.spi_hz, gpio_DC=display.gpio_dc, gpio_RST=display.gpio_rst)
        return _SpiDevice(make(serial, **options), lines)
    except (DeviceNotFoundError, DevicePermissionError, OSError) as e:
        lines.cleanup()
        raise DisplayError(f"no {display.driver} display on {where}: {e}") from None
    except BaseException:
        lines.cleanup()
        raise


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
    panel = display.chosen_panel()
    channels: tuple[int, ...] = tuple(display.seat_channels)
    if not channels:
        return (Display(make_device(display, capture_dir), panel=panel),)
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
            displays.append(Display(device, select=functools.partial(mux.select, channel), panel=panel))
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


class _Capture:
    """The keys :func:`make_device` reads, for the ``capture`` driver of ``panel``."""

    driver = "capture"

    def __init__(self, panel: Panel, rotate: int) -> None:
        self.panel, self.rotate = panel, rotate

    def chosen_panel(self) -> Panel:
        return self.panel


def emulated_displays(display: Any, folder: str | Path) -> tuple[Display, ...]:
    """Emulated panels of a ``[display]`` section's kind (its panel and rotation) writing PNG
    frames into ``folder``: one shared, or one per seat when ``seat_channels`` gives seat
    displays (no multiplexer is emulated: each seat's frames are its own files,
    ``screen-SEAT-NNNNNN.png``)."""
    panel: Panel = display.chosen_panel()
    capture = _Capture(panel, display.rotate)
    displays: list[Display] = []
    try:
        for seat in range(max(1, len(display.seat_channels))):
            displays.append(Display(make_device(capture, folder, seat), panel=panel))
    except BaseException:
        for made in displays:
            made.close()
        raise
    return tuple(displays)
